//! note tests.
