//! The tools, one file per toolset: `annotations.rs`, `notes.rs`, `edit/`, `metadata.rs`,
//! `periodic.rs`, `search.rs`, `graph.rs`. Each holds its set's one router (the set's tools) and
//! the tools' arguments; what several sets use is in `shared.rs`. A tool validates its arguments,
//! calls the core, and answers through `reply`.
//!
//! Everything the server knows about a tool is in its declaration: its set is the router it is in
//! ([`Toolset::router`]), and whether `--read-only` hides it is its `#[tool]` annotations
//! ([`writes`]). A new tool goes in its set's file, beside its arguments; nothing else lists it.

mod annotations;
mod edit;
mod graph;
mod metadata;
mod notes;
mod periodic;
mod search;
mod shared;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{JsonObject, Tool};

use super::server::Scholia;

/// A group of tools, so a user can expose fewer tools to an agent
/// (`scholia mcp --toolsets notes,search`). Every tool belongs to exactly one set: the one whose
/// file holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Toolset {
    /// Zotero annotation notes: read, list, summarize, synthesize.
    Annotations,
    /// Notes by name or wikilink (seed 002): read, list, create, update, delete.
    Notes,
    /// Editing files by path (seeds 003/004): append, patch, read/update/delete/move files.
    Edit,
    /// Frontmatter properties, tags, and the server's status.
    Metadata,
    /// Daily, weekly, monthly, quarterly and yearly notes.
    Periodic,
    /// Literal and ranked search.
    Search,
    /// Links, backlinks and the vault's link graph.
    Graph,
}

impl Toolset {
    /// Every set, the default.
    pub const ALL: [Toolset; 7] = [
        Toolset::Annotations,
        Toolset::Notes,
        Toolset::Edit,
        Toolset::Metadata,
        Toolset::Periodic,
        Toolset::Search,
        Toolset::Graph,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Toolset::Annotations => "annotations",
            Toolset::Notes => "notes",
            Toolset::Edit => "edit",
            Toolset::Metadata => "metadata",
            Toolset::Periodic => "periodic",
            Toolset::Search => "search",
            Toolset::Graph => "graph",
        }
    }

    /// The set's tools: the router of its file.
    pub(crate) fn router(self) -> ToolRouter<Scholia> {
        match self {
            Toolset::Annotations => Scholia::annotations(),
            Toolset::Notes => Scholia::notes(),
            Toolset::Edit => Scholia::edit(),
            Toolset::Metadata => Scholia::metadata(),
            Toolset::Periodic => Scholia::periodic(),
            Toolset::Search => Scholia::search(),
            Toolset::Graph => Scholia::graph(),
        }
    }
}

/// Whether a tool writes, so `--read-only` hides it: its annotations do not say it is read-only
/// (`read_only_hint`; none counts as not).
fn writes(tool: &Tool) -> bool {
    tool.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true)
}

/// The server's tools: those of the `enabled` sets (none: every set), without the tools that
/// write when `read_only`.
pub(super) fn router(enabled: &[Toolset], read_only: bool) -> ToolRouter<Scholia> {
    let sets = if enabled.is_empty() { &Toolset::ALL[..] } else { enabled };
    let mut router = ToolRouter::new();
    for set in sets {
        router += set.router();
    }
    if read_only {
        let writing: Vec<String> =
            router.list_all().into_iter().filter(writes).map(|t| t.name.into_owned()).collect();
        for name in writing {
            router.remove_route(&name);
        }
    }
    router
}

/// A tool as the server declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFacts {
    /// Its name.
    pub name: String,
    /// Its set: the router it is in.
    pub toolset: Toolset,
    /// Whether it writes: `--read-only` hides it (its annotations say it is not read-only, and it
    /// changes notes).
    pub writes: bool,
    /// The shape of its answers (`outputSchema`), when it declares one.
    pub output_schema: Option<Arc<JsonObject>>,
}

/// Every tool, by name, with its set, whether it writes and its output schema, read from the routers (so it cannot
/// drift from them).
pub fn tool_facts() -> Vec<ToolFacts> {
    let mut facts: Vec<ToolFacts> = Toolset::ALL
        .iter()
        .flat_map(|&toolset| {
            toolset.router().list_all().into_iter().map(move |tool| ToolFacts {
                writes: writes(&tool),
                output_schema: tool.output_schema.clone(),
                name: tool.name.into_owned(),
                toolset,
            })
        })
        .collect();
    facts.sort_by(|a, b| a.name.cmp(&b.name));
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_in_one_set() {
        let facts = tool_facts();
        for pair in facts.windows(2) {
            assert_ne!(pair[0].name, pair[1].name, "{} is in two sets", pair[0].name);
        }
        let set_of = |name: &str| facts.iter().find(|t| t.name == name).map(|t| t.toolset);
        assert_eq!(set_of("search_vault"), Some(Toolset::Search));
        assert_eq!(set_of("daily_note_append"), Some(Toolset::Periodic));
        assert_eq!(set_of("nope"), None);
    }

    #[test]
    fn read_only_hides_the_tools_that_change_notes() {
        let writing: Vec<String> = tool_facts().into_iter().filter(|t| t.writes).map(|t| t.name).collect();
        assert_eq!(
            writing,
            [
                "append_to_note",
                "create_note",
                "daily_note_append",
                "delete_note",
                "obsidian_delete_file",
                "obsidian_delete_periodic_note",
                "obsidian_manage_frontmatter",
                "obsidian_manage_tags",
                "obsidian_move_file",
                "obsidian_summarize",
                "obsidian_synthesize",
                "obsidian_update_file",
                "obsidian_update_properties",
                "obsidian_write_note",
                "patch_note",
                "update_note",
            ]
        );
        let served = router(&[], true).list_all();
        assert!(served.iter().any(|t| t.name == "rebuild_index"), "rebuild_index changes no note");
        assert!(served.iter().all(|t| !writes(t)));
    }
}
