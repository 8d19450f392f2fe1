//! The tools, one file per toolset: `annotations.rs`, `notes.rs`, `edit/`, `metadata.rs`,
//! `periodic.rs`, `search.rs`, `graph.rs`. Each holds its set's one router (the set's tools) and
//! the tools' arguments; what several sets use is in `shared.rs`. A tool validates its arguments,
//! calls the core, and answers through `reply`.

mod annotations;
mod edit;
mod graph;
mod metadata;
mod notes;
mod periodic;
mod search;
mod shared;

use rmcp::handler::server::router::tool::ToolRouter;

use super::server::Scholia;
use super::toolsets::Toolset;

impl Toolset {
    /// The set's tools: the router of its file.
    pub fn router(self) -> ToolRouter<Scholia> {
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
