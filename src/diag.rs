//! Diagnostics: what the pure core says about input it could not fully read.
//!
//! Parsing never fails: anything unexpected becomes a [`Diagnostic`] next to the data that
//! could be read, so a user can see why a note or template did not parse as they meant.

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the data is complete.
    Info,
    /// Something was read in a degraded way (for example an unknown colour).
    Warning,
    /// Something could not be read; it was kept as plain text or skipped with this note.
    Error,
}

/// One message about the input, with the 1-based line it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// 1-based line number in the original text (0 when it concerns the whole text).
    pub line: usize,
    /// A sentence for people: what was found and what to do about it.
    pub message: String,
}

impl Diagnostic {
    /// A warning at `line`.
    pub fn warning(line: usize, message: impl Into<String>) -> Self {
        Self { severity: Severity::Warning, line, message: message.into() }
    }

    /// An error at `line`.
    pub fn error(line: usize, message: impl Into<String>) -> Self {
        Self { severity: Severity::Error, line, message: message.into() }
    }

    /// An informational note at `line`.
    pub fn info(line: usize, message: impl Into<String>) -> Self {
        Self { severity: Severity::Info, line, message: message.into() }
    }
}
