//! Toolsets: named groups of tools, so a user can expose fewer tools to an agent
//! (`scholia mcp --toolsets notes,search`). Every tool belongs to exactly one set, by the one
//! table [`TOOLSETS`]; adding a tool is one line there.

use rmcp::handler::server::router::tool::ToolRouter;

/// A group of tools.
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
}

/// Which set each tool belongs to. A test checks that every tool the server has is here.
pub const TOOLSETS: &[(&str, Toolset)] = &[
    ("obsidian_read_annotations", Toolset::Annotations),
    ("obsidian_list_annotation_files", Toolset::Annotations),
    ("obsidian_summarize", Toolset::Annotations),
    ("obsidian_synthesize", Toolset::Annotations),
    ("read_note", Toolset::Notes),
    ("list_notes", Toolset::Notes),
    ("create_note", Toolset::Notes),
    ("update_note", Toolset::Notes),
    ("delete_note", Toolset::Notes),
    ("get_note_content", Toolset::Notes),
    ("get_note_metadata", Toolset::Notes),
    ("obsidian_write_note", Toolset::Notes),
    ("append_to_note", Toolset::Edit),
    ("patch_note", Toolset::Edit),
    ("obsidian_list_files", Toolset::Edit),
    ("obsidian_read_file", Toolset::Edit),
    ("obsidian_update_file", Toolset::Edit),
    ("obsidian_delete_file", Toolset::Edit),
    ("obsidian_move_file", Toolset::Edit),
    ("obsidian_get_properties", Toolset::Metadata),
    ("obsidian_update_properties", Toolset::Metadata),
    ("obsidian_manage_frontmatter", Toolset::Metadata),
    ("obsidian_manage_tags", Toolset::Metadata),
    ("obsidian_get_tags", Toolset::Metadata),
    ("obsidian_check_status", Toolset::Metadata),
    ("daily_note_append", Toolset::Periodic),
    ("obsidian_get_periodic_note", Toolset::Periodic),
    ("obsidian_delete_periodic_note", Toolset::Periodic),
    ("obsidian_search", Toolset::Search),
    ("search_vault", Toolset::Search),
    ("obsidian_global_search", Toolset::Search),
    ("text_search", Toolset::Search),
    ("tag_search", Toolset::Search),
    ("metadata_search", Toolset::Search),
    ("find_related_notes", Toolset::Graph),
    ("validate_vault", Toolset::Graph),
    ("get_vault_stats", Toolset::Graph),
    ("get_roots", Toolset::Graph),
    ("rebuild_index", Toolset::Graph),
];

/// The set of the tool `name`, if the table has it.
pub fn toolset_of(name: &str) -> Option<Toolset> {
    TOOLSETS.iter().find(|(tool, _)| *tool == name).map(|(_, set)| *set)
}

/// Removes from `router` every tool outside `enabled` (a tool missing from the table counts as
/// outside: it is shown only when every set is enabled). Empty `enabled` means every set.
pub fn retain<S: Send + Sync + 'static>(router: &mut ToolRouter<S>, enabled: &[Toolset]) {
    if enabled.is_empty() || Toolset::ALL.iter().all(|set| enabled.contains(set)) {
        return;
    }
    let names: Vec<String> = router.list_all().into_iter().map(|t| t.name.to_string()).collect();
    for name in names {
        if !toolset_of(&name).is_some_and(|set| enabled.contains(&set)) {
            router.remove_route(&name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_name_appears_once() {
        for (i, (name, _)) in TOOLSETS.iter().enumerate() {
            assert!(!TOOLSETS[i + 1..].iter().any(|(other, _)| other == name), "{name} twice");
        }
        assert_eq!(toolset_of("search_vault"), Some(Toolset::Search));
        assert_eq!(toolset_of("nope"), None);
    }
}
