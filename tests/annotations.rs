//! annotations tests.
