//! vault tests.
