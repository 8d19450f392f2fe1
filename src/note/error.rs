//! Why an edit of a note could not be made: the one error of the section engine (`edit.rs`) and
//! the frontmatter editors (`fm_edit.rs`, `meta_edit.rs`).

/// Why an edit could not be made. Nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// No heading matches the target.
    #[error("no heading \"{target}\" in the note; its headings are: {}", list(.available))]
    HeadingNotFound {
        /// The target as given.
        target: String,
        /// Every heading path of the note.
        available: Vec<String>,
    },
    /// Several headings match a bare target.
    #[error("\"{target}\" names several headings: {}; give the full path with the delimiter", list(.candidates))]
    AmbiguousHeading {
        /// The target as given.
        target: String,
        /// The full paths of the matching headings.
        candidates: Vec<String>,
    },
    /// No block has the id.
    #[error("no block ^{id} in the note; its block ids are: {}", list(.available))]
    BlockNotFound {
        /// The id as given.
        id: String,
        /// The block ids of the note.
        available: Vec<String>,
    },
    /// The frontmatter key does not exist.
    #[error(
        "no frontmatter key \"{key}\"; allow creating a missing target (patchCreateTargetIfMissing) to add it"
    )]
    KeyNotFound {
        /// The key.
        key: String,
    },
    /// The frontmatter cannot be edited safely.
    #[error("the frontmatter cannot be edited safely: {reason}")]
    InvalidFrontmatter {
        /// Why.
        reason: String,
    },
    /// The target is not usable.
    #[error("invalid target \"{target}\": {reason}")]
    InvalidTarget {
        /// The target as given.
        target: String,
        /// Why.
        reason: String,
    },
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.iter().map(|i| format!("\"{i}\"")).collect::<Vec<_>>().join(", ")
    }
}
