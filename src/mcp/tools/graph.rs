//! The graph toolset (seed 002): `find_related_notes`, `validate_vault`, `get_vault_stats`,
//! `get_roots` and `rebuild_index`, over the index and its link graph; each tool's arguments
//! follow the router.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::index::graph::{Issue, IssueKind, Reason};
use crate::index::service::State;
use crate::mcp::approval::{Ask, Write};
use crate::mcp::reply::schema;
use crate::mcp::reply::{Answer, Window, attempt, fail, ok, page};
use crate::mcp::server::Scholia;
use crate::note::LinkStyle;
use crate::vault::{Vault, VaultPath};

/// Issue kinds, most urgent first.
const KINDS: [IssueKind; 10] = [
    IssueKind::Unreadable,
    IssueKind::BadFrontmatter,
    IssueKind::BrokenEmbed,
    IssueKind::BrokenLink,
    IssueKind::MissingHeading,
    IssueKind::MissingBlock,
    IssueKind::AmbiguousLink,
    IssueKind::DuplicateName,
    IssueKind::UnusedAttachment,
    IssueKind::Orphan,
];

fn kind_name(kind: IssueKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

fn issue_json(issue: &Issue) -> Value {
    json!({"kind": issue.kind, "path": issue.path.as_str(), "line": issue.line, "message": issue.message,
        "suggestion": issue.suggestion})
}

/// Counts of `issues` by kind, in [`KINDS`] order.
fn by_kind<'a>(issues: impl Iterator<Item = &'a Issue>) -> Map<String, Value> {
    let mut counts: BTreeMap<IssueKind, usize> = BTreeMap::new();
    for issue in issues {
        *counts.entry(issue.kind).or_default() += 1;
    }
    KINDS.iter().filter_map(|k| counts.get(k).map(|n| (kind_name(*k), json!(n)))).collect()
}

/// Why a note is related, in words.
fn why(reasons: &[Reason], link: impl Fn(&str) -> String) -> String {
    let parts: Vec<String> = reasons
        .iter()
        .map(|r| match r {
            Reason::LinksTo => "this note links to it".to_string(),
            Reason::LinkedFrom => "it links to this note".to_string(),
            Reason::SharedTags { tags } => {
                format!(
                    "both are tagged {}",
                    tags.iter().map(|t| format!("#{t}")).collect::<Vec<_>>().join(", ")
                )
            }
            Reason::SharedLinks { notes } => {
                let shown: Vec<String> = notes.iter().take(5).map(|n| link(n)).collect();
                let more =
                    if notes.len() > 5 { format!(" and {} more", notes.len() - 5) } else { String::new() };
                format!("both link to {}{more}", shown.join(", "))
            }
            Reason::Similar { score } => format!("similar words ({score:.2})"),
        })
        .collect();
    parts.join("; ")
}

#[tool_router(router = graph, vis = "pub(super)")]
impl Scholia {
    /// Notes related to a note (seed 002): links both ways, shared tags, shared link targets and similar wording (so unlinked but relevant notes show up too). Each result says why it is related.
    #[tool(output_schema = schema::<answers::FindRelatedNotesAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn find_related_notes(&self, Parameters(args): Parameters<FindRelated>) -> Answer {
        let path = attempt!(self.resolve_note(&args.path));
        let window = Window::new(args.offset, args.limit, 10, 50);
        let view = attempt!(self.index_view(&VaultPath::root()));
        let graph = view.graph();
        if graph.note(&path).is_none() {
            return Ok(fail(format!(
                "{path} is not a note of the vault; find notes with text_search or obsidian_list_files"
            )));
        }
        let similar = view.text().similar(&path, 200);
        let best = window.offset.saturating_add(window.limit);
        let (related, total) = graph.related_to_similar(&path, best, similar.iter().map(|(p, s)| (p, *s)));
        let link = |p: &str| {
            format!("[[{}]]", graph.resolver().link_text(p, Some(path.as_str()), LinkStyle::Shortest))
        };
        let results: Vec<Value> = related
            .iter()
            .skip(window.offset)
            .take(window.limit)
            .map(|r| {
                json!({"path": r.path.as_str(), "score": (r.score * 1000.0).round() / 1000.0,
                    "why": why(&r.reasons, link), "reasons": r.reasons})
            })
            .collect();
        let live = view.is_live();
        drop(view);
        let mut value = json!({"path": path.as_str(), "count": total});
        if total == 0 {
            value["message"] = json!("no note shares a link, a tag or distinctive words with this one");
        }
        let value = page(value, "related", results, total, window, json!({"path": path.as_str()}));
        Ok(ok(self.mark_index(value, live)))
    }

    /// Check the vault's health (seed 002): broken links and embeds, links to missing headings or blocks, ambiguous links, orphan notes, unused attachments, duplicate note names, unreadable frontmatter or files. Each issue with its line and a suggested fix; counts by kind; paged.
    #[tool(output_schema = schema::<answers::ValidateVaultAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn validate_vault(&self, Parameters(args): Parameters<ValidateVault>) -> Answer {
        let mut kinds = Vec::new();
        for name in &args.kinds {
            match KINDS.iter().find(|k| kind_name(**k) == name.trim().to_lowercase()) {
                Some(k) => kinds.push(*k),
                None => {
                    let names: Vec<String> = KINDS.iter().map(|k| kind_name(*k)).collect();
                    return Ok(fail(format!("unknown issue kind {name:?}; use one of {}", names.join(", "))));
                }
            }
        }
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let window = Window::new(args.offset, args.limit, 50, 200);
        let view = attempt!(self.index_view(&VaultPath::root()));
        let issues = self.index.issues(&view);
        let live = view.is_live();
        drop(view);
        let in_folder: Vec<&Issue> = issues.iter().filter(|i| i.path.is_within(&folder)).collect();
        let counts = by_kind(in_folder.iter().copied());
        let chosen: Vec<&Issue> =
            in_folder.into_iter().filter(|i| kinds.is_empty() || kinds.contains(&i.kind)).collect();
        let total = chosen.len();
        let items: Vec<Value> =
            chosen.iter().skip(window.offset).take(window.limit).map(|i| issue_json(i)).collect();
        let value = json!({"by_kind": counts, "healthy": counts.is_empty()});
        let next = json!({"kinds": args.kinds, "folder": args.folder});
        let value = page(value, "issues", items, total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// Counts and health of the vault (seed 002): notes, attachments, links, embeds, tags, tasks, bytes; the index's state (building or ready, progress), size and timings (build, last update); and the issues needing attention by kind, the most urgent listed. While the index is being built, only the files are counted.
    #[tool(output_schema = schema::<answers::GetVaultStatsAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_vault_stats(&self) -> Answer {
        let start = Instant::now();
        // While the index is built, the files are counted from a listing; links, tags, tasks
        // and issues need every note read, which the build is doing.
        let Some(view) = self.live_index() else {
            let files = attempt!(self.vault.list(&VaultPath::root()));
            let notes = files.iter().filter(|f| f.path.is_markdown()).count();
            let value = json!({
                "notes": notes,
                "attachments": files.len() - notes,
                "bytes": files.iter().map(|f| f.size).sum::<u64>(),
                "pending": "links, tags, tasks and issues are counted once the index is built; call again then",
                "index_status": self.index.status(),
                "answer_ms": (start.elapsed().as_secs_f64() * 1e4).round() / 10.0,
            });
            return Ok(ok(self.mark_index(value, false)));
        };
        let stats = view.graph().stats();
        let issues = self.index.issues(&view);
        let live = view.is_live();
        drop(view);
        // The first ten in KINDS order, each kind in the order found (a stable sort's first ten).
        let urgent = KINDS.iter().flat_map(|k| issues.iter().filter(move |i| i.kind == *k));
        let attention: Vec<Value> = urgent.take(10).map(issue_json).collect();
        let status = self.index.status();
        let value = json!({
            "notes": stats.notes,
            "attachments": stats.attachments,
            "links": stats.links,
            "embeds": stats.embeds,
            "broken_links": stats.broken_links,
            "ambiguous_links": stats.ambiguous_links,
            "broken_anchors": stats.broken_anchors,
            "tags": stats.tags,
            "tasks": {"open": stats.tasks_open, "done": stats.tasks_done, "cancelled": stats.tasks_cancelled},
            "bytes": stats.bytes,
            "issues": {"total": issues.len(), "by_kind": by_kind(issues.iter()), "attention": attention,
                "hint": "list them all with validate_vault"},
            "index_status": status,
            "answer_ms": (start.elapsed().as_secs_f64() * 1e4).round() / 10.0,
        });
        Ok(ok(self.mark_index(value, live)))
    }

    /// The vault's root (seed 002 get_roots): its absolute path, its top-level folders with how many notes each holds, and the notes at the root. The folders page: pass the returned next arguments.
    #[tool(output_schema = schema::<answers::GetRootsAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_roots(&self, Parameters(args): Parameters<GetRoots>) -> Answer {
        let root = VaultPath::root();
        let entries = attempt!(self.vault.list_dir(&root));
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut at_root = 0;
        let live = {
            let view = self.live_index();
            let paths: Vec<VaultPath> = match &view {
                Some(index) => index.text().paths().cloned().collect(),
                None => attempt!(crate::library::notes(self.vault.as_ref(), &root))
                    .into_iter()
                    .map(|m| m.path)
                    .collect(),
            };
            for path in &paths {
                match path.as_str().split_once('/') {
                    Some((top, _)) => *counts.entry(top.to_string()).or_default() += 1,
                    None => at_root += 1,
                }
            }
            view.is_some()
        };
        let folders: Vec<&crate::vault::DirEntry> = entries.iter().filter(|e| e.is_dir).collect();
        let window = Window::new(args.offset, args.limit, 100, 500);
        let items = folders.iter().skip(window.offset).map(
            |e| json!({"path": e.path.as_str(), "notes": counts.get(e.path.as_str()).copied().unwrap_or(0)}),
        );
        let total: usize = counts.values().sum::<usize>() + at_root;
        let value = json!({
            "root": self.vault.absolute(&root),
            "name": self.settings.config.vault.file_name().map(|n| n.to_string_lossy().into_owned()),
            "notes_at_root": at_root,
            "notes": total,
        });
        let value = page(value, "folders", items, folders.len(), window, json!({}));
        Ok(ok(self.mark_index(value, live)))
    }

    /// Rebuild the vault index from disk (seed 002): every note is read again on every core while answers keep coming from the current index; then the new index is swapped in and its integrity checked against the vault. Needs the user's approval; reports progress when the client sent a progress token.
    // Read-only in MCP's sense: it changes no file of the vault (it replaces the server's index),
    // so --read-only keeps it; it still asks the user, as it reads every note again.
    #[tool(output_schema = schema::<answers::RebuildIndexAnswer>(), annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn rebuild_index(
        &self,
        Parameters(args): Parameters<RebuildIndex>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let (state, done, total, _) = self.index.brief();
        if state == State::Building {
            return Ok(fail(format!(
                "the index is still being built ({done} of {total} notes); it will be ready shortly, follow it with get_vault_stats"
            )));
        }
        if args.write.dry_run {
            let value = json!({"dry_run": true, "would_read": total});
            return Ok(ok(self.mark_index(value, true)));
        }
        let what = "rebuild the vault index (every note is read again)";
        attempt!(self.ask_now(&ctx, Ask::destructive(what, args.write)).await);
        let token = ctx.meta.get_progress_token();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, usize)>();
        let service = Arc::clone(&self.index);
        let mut job = tokio::task::spawn_blocking(move || {
            service.rebuild(&|done, total| {
                let _ = tx.send((done, total));
            })
        });
        let mut last_sent = (0usize, Instant::now() - Duration::from_secs(1));
        let result = loop {
            tokio::select! {
                joined = &mut job => break joined,
                Some((done, total)) = rx.recv() => {
                    let step = done.saturating_sub(last_sent.0) * 20 >= total.max(1);
                    let due = done > last_sent.0 && (step || last_sent.1.elapsed() > Duration::from_millis(250));
                    if let Some(token) = &token && due {
                        last_sent = (done, Instant::now());
                        let note = ProgressNotificationParam::new(token.clone(), done as f64)
                            .with_total(total as f64)
                            .with_message(format!("{done} of {total} notes read"));
                        let _ = ctx.peer.notify_progress(note).await;
                    }
                }
            }
        };
        let rebuilt = match result {
            Ok(Ok(rebuilt)) => rebuilt,
            Ok(Err(message)) => return Ok(fail(message)),
            Err(e) => {
                return Ok(fail(format!("the rebuild stopped: {e}; the previous index is still in use")));
            }
        };
        if let Some(token) = &token {
            let n = rebuilt.build.notes as f64;
            let note =
                ProgressNotificationParam::new(token.clone(), n).with_total(n).with_message("index rebuilt");
            let _ = ctx.peer.notify_progress(note).await;
        }
        let sound = rebuilt.integrity.problems.is_empty();
        let value = json!({
            "notes": rebuilt.build.notes,
            "build": rebuilt.build,
            "integrity": {"ok": sound, "notes": rebuilt.integrity.notes, "postings": rebuilt.integrity.postings,
                "problems": rebuilt.integrity.problems},
            "message": if sound { "index rebuilt; the integrity check found nothing wrong".to_string() } else {
                format!("index rebuilt, but the integrity check found {} problems (a file changed during the check can cause this); call rebuild_index again if they persist", rebuilt.integrity.problems.len())
            },
        });
        Ok(ok(self.mark_index(value, true)))
    }
}

/// `find_related_notes` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindRelated {
    /// The note: its vault path, its name or alias, or a [[wikilink]] to it.
    #[serde(alias = "filePath", alias = "note")]
    pub path: String,
    /// Skip this many related notes (paging; the answer gives the next offset).
    #[serde(default)]
    pub offset: usize,
    /// Most related notes to return (default 10, at most 50); fewer when they would not fit one answer.
    pub limit: Option<usize>,
}

/// `validate_vault` (seed 002).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ValidateVault {
    /// Only these kinds of issue: broken_link, broken_embed, missing_heading, missing_block, ambiguous_link, orphan, unused_attachment, duplicate_name, bad_frontmatter, unreadable.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Only issues in notes under this folder (vault-relative).
    pub folder: Option<String>,
    /// Skip this many issues (paging).
    #[serde(default)]
    pub offset: usize,
    /// Most issues to return (default 50, at most 200).
    pub limit: Option<usize>,
}

/// `rebuild_index`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RebuildIndex {
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `get_roots`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct GetRoots {
    /// Skip this many top-level folders (for paging; the answer says what to pass next).
    #[serde(default)]
    pub offset: usize,
    /// Most top-level folders to list (default 100, at most 500).
    pub limit: Option<usize>,
}

/// What the tools answer, as their output schemas declare it: the tools build their answers as
/// JSON, and the tests check every answer against these.
#[allow(dead_code)]
mod answers {
    use schemars::JsonSchema;
    use serde_json::{Map, Value};

    use crate::mcp::indexed::IndexMarks;
    use crate::mcp::reply::Paged;

    /// An item of `reasons` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct FindRelatedNotesRelatedReasons {
        pub kind: String,
        pub tags: Option<Vec<String>>,
        pub score: Option<f64>,
        pub notes: Option<Vec<String>>,
    }

    /// An item of `related` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct FindRelatedNotesRelated {
        pub path: String,
        pub score: f64,
        pub why: String,
        pub reasons: Vec<FindRelatedNotesRelatedReasons>,
    }

    /// What `find_related_notes` answers.
    #[derive(Debug, JsonSchema)]
    pub struct FindRelatedNotesAnswer {
        #[serde(flatten)]
        pub page: Paged,
        #[serde(flatten)]
        pub index: IndexMarks,
        pub path: String,
        pub count: usize,
        pub related: Vec<FindRelatedNotesRelated>,
    }

    /// An item of `issues` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ValidateVaultIssues {
        pub kind: String,
        pub path: String,
        pub line: usize,
        pub message: String,
        pub suggestion: String,
    }

    /// What `validate_vault` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ValidateVaultAnswer {
        #[serde(flatten)]
        pub page: Paged,
        #[serde(flatten)]
        pub index: IndexMarks,
        pub by_kind: Map<String, Value>,
        pub healthy: bool,
        pub issues: Vec<ValidateVaultIssues>,
    }

    /// An item of `tasks` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct GetVaultStatsTasks {
        pub open: usize,
        pub done: usize,
        pub cancelled: usize,
    }

    /// An item of `issues` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct GetVaultStatsIssues {
        pub total: usize,
        pub by_kind: Map<String, Value>,
        pub attention: Vec<ValidateVaultIssues>,
        pub hint: String,
    }

    /// What `get_vault_stats` answers.
    #[derive(Debug, JsonSchema)]
    pub struct GetVaultStatsAnswer {
        #[serde(flatten)]
        pub index: IndexMarks,
        pub notes: usize,
        pub attachments: usize,
        pub bytes: usize,
        pub pending: Option<String>,
        pub index_status: Map<String, Value>,
        pub answer_ms: f64,
        pub links: Option<usize>,
        pub embeds: Option<usize>,
        pub broken_links: Option<usize>,
        pub ambiguous_links: Option<usize>,
        pub broken_anchors: Option<usize>,
        pub tags: Option<usize>,
        pub tasks: Option<GetVaultStatsTasks>,
        pub issues: Option<GetVaultStatsIssues>,
    }

    /// An item of `folders` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct GetRootsFolders {
        pub path: String,
        pub notes: usize,
    }

    /// What `get_roots` answers.
    #[derive(Debug, JsonSchema)]
    pub struct GetRootsAnswer {
        #[serde(flatten)]
        pub page: Paged,
        #[serde(flatten)]
        pub index: IndexMarks,
        pub root: String,
        pub name: String,
        pub notes_at_root: usize,
        pub notes: usize,
        pub folders: Vec<GetRootsFolders>,
    }

    /// An item of `build` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct RebuildIndexBuild {
        pub list_ms: f64,
        pub read_ms: f64,
        pub assemble_ms: f64,
        pub total_ms: f64,
        pub threads: usize,
        pub notes: usize,
        pub bytes: usize,
    }

    /// An item of `integrity` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct RebuildIndexIntegrity {
        pub ok: bool,
        pub notes: usize,
        pub postings: usize,
        pub problems: Vec<Value>,
    }

    /// What `rebuild_index` answers.
    #[derive(Debug, JsonSchema)]
    pub struct RebuildIndexAnswer {
        #[serde(flatten)]
        pub index: IndexMarks,
        pub notes: usize,
        pub build: RebuildIndexBuild,
        pub integrity: RebuildIndexIntegrity,
        pub message: String,
    }
}
