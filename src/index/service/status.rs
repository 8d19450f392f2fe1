//! What the index service says about itself: its state, how long the build took, the last
//! change applied (`obsidian_check_status` and the index tools' answers).

use serde::Serialize;

use crate::index::Changes;

/// Where the index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// The first build is running; answers come from scanning the vault.
    Building,
    /// The index is built and kept fresh.
    Ready,
    /// The first build failed (see `error`); answers come from scanning the vault.
    Failed,
}

/// How long a build took.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct BuildTimes {
    /// Listing the vault.
    #[serde(serialize_with = "tenths")]
    pub list_ms: f64,
    /// Reading, parsing and tokenizing the notes (in parallel).
    #[serde(serialize_with = "tenths")]
    pub read_ms: f64,
    /// Assembling the text index and resolving the links.
    #[serde(serialize_with = "tenths")]
    pub assemble_ms: f64,
    /// In all.
    #[serde(serialize_with = "tenths")]
    pub total_ms: f64,
    /// Worker threads.
    pub threads: usize,
    /// Notes read.
    pub notes: usize,
    /// Bytes of Markdown read.
    pub bytes: u64,
}

/// The last change applied to the index.
#[derive(Debug, Clone, Serialize)]
pub struct Update {
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// How long applying it took.
    #[serde(serialize_with = "tenths")]
    pub took_ms: f64,
    /// What changed.
    #[serde(flatten)]
    pub changes: Changes,
    /// What found it: `watcher`, `poll`, `query` (events applied before answering), `write`
    /// (this server wrote), `rebuild`.
    pub source: &'static str,
}

/// The index's state, counts and timings.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// Building, ready or failed.
    pub state: State,
    /// Whether answers come from a complete, fresh index.
    pub complete: bool,
    /// Notes read by the running build (first build or rebuild).
    pub done: usize,
    /// Notes the running build will read.
    pub total: usize,
    /// Whether a rebuild is running (answers still come from the previous index).
    pub rebuilding: bool,
    /// Notes indexed.
    pub notes: usize,
    /// Attachments known.
    pub attachments: usize,
    /// Distinct words.
    pub terms: usize,
    /// (word, note) pairs.
    pub postings: usize,
    /// Approximate memory of the text index, bytes.
    pub text_index_bytes: usize,
    /// The last build.
    pub build: Option<BuildTimes>,
    /// The last change applied.
    pub last_update: Option<Update>,
    /// Changes applied since the start.
    pub updates: u64,
    /// Whether the file watcher runs.
    pub watching: bool,
    /// File events received.
    pub events: u64,
    /// Why the watcher does not run, or the last error it reported.
    pub watcher_error: Option<String>,
    /// Why the first build failed.
    pub error: Option<String>,
    /// Folders the last listing could not read (with the reason): their notes are missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable_folders: Vec<String>,
}

/// Milliseconds to a tenth: what a person reads in a status answer.
fn tenths<S: serde::Serializer>(ms: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64((ms * 10.0).round() / 10.0)
}
