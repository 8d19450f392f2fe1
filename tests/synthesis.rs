//! synthesis tests.
