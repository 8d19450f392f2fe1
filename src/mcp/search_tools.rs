//! The index's search tools: `obsidian_global_search` (seed 004: text or regex, dates),
//! `text_search`, `tag_search` and `metadata_search` (seed 002).

use regex::{Regex, RegexBuilder};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::{Value, json};

use super::dates::{self, Edge};
use super::index_params::*;
use super::reply::{Answer, Window, attempt, fail, ok, page};
use super::search::{self, Ranked};
use super::server::Scholia;
use crate::index::filter::Condition;
use crate::index::graph::GraphNote;
use crate::index::snippet::{self, Highlighter};
use crate::index::{Query, Scope};
use crate::note::frontmatter::scalar_string;
use crate::vault::Vault;

/// Matching lines shown per note.
const LINES_PER_NOTE: usize = 5;

/// `/pattern/flags`, or the query itself when `regex` is set: the expression to scan with.
fn regex_of(query: &str, regex: bool) -> Result<Option<Regex>, String> {
    let slashed = query
        .strip_prefix('/')
        .and_then(|rest| rest.rsplit_once('/'))
        .filter(|(pattern, flags)| !pattern.is_empty() && flags.chars().all(|c| "imsxU".contains(c)));
    let (pattern, flags, insensitive) = match slashed {
        Some((pattern, flags)) => (pattern, flags, flags.contains('i')),
        None if regex => (query, "", true),
        None => return Ok(None),
    };
    RegexBuilder::new(pattern)
        .case_insensitive(insensitive)
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .ignore_whitespace(flags.contains('x'))
        .swap_greed(flags.contains('U'))
        .size_limit(1 << 22)
        .build()
        .map(Some)
        .map_err(|e| {
            format!(
                "the regular expression does not compile: {e}; fix it, or search the text with regex: false"
            )
        })
}

/// The title of a note: frontmatter `title`, else its file name.
fn title(note: &GraphNote) -> String {
    note.frontmatter.get("title").and_then(scalar_string).unwrap_or_else(|| note.path.stem().to_string())
}

fn modified(raw: Option<&str>, edge: Edge, now: &jiff::Zoned) -> Result<Option<i64>, String> {
    raw.filter(|t| !t.trim().is_empty()).map(|t| dates::parse(t, edge, now)).transpose()
}

fn iso(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map(|t| t.to_string()).unwrap_or_default()
}

#[tool_router(router = search_tools, vis = "pub(super)")]
impl Scholia {
    /// Search the vault's text (seed 004). Text queries: every word must occur (case and accents ignored), best notes first; "exact phrases", wildcard* inside a word, -word to exclude, tag:/path:/file: filters. Regular expressions with regex: true or /pattern/flags scan every note. Filter by modification date with modified_since / modified_until (2024-01-15, yesterday, 2 weeks ago). Each note comes with its matching lines (line number and highlighted context).
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_global_search(&self, Parameters(args): Parameters<GlobalSearch>) -> Answer {
        let query = args.query.trim();
        if query.is_empty() {
            return Ok(fail("the query is empty; give the text or the /regular expression/ to search for"));
        }
        let now = jiff::Zoned::now();
        let since = attempt!(modified(args.modified_since.as_deref(), Edge::Start, &now));
        let until = attempt!(modified(args.modified_until.as_deref(), Edge::End, &now));
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let scope = Scope { folder, since_ms: since, until_ms: until };
        let context = args.context_length.unwrap_or(100).clamp(10, 1000);
        let window = Window::new(args.offset, args.limit, 10, 50);
        let regex = attempt!(regex_of(query, args.regex));
        let view = attempt!(self.index_view(&scope.folder));
        let (mode, results, total, relaxed) = match &regex {
            Some(re) => {
                let text = view.text();
                let paths: Vec<_> = text
                    .paths()
                    .filter(|p| text.stamp(p).is_some_and(|(mtime, _)| scope.contains(p, mtime)))
                    .cloned()
                    .collect();
                let mut hits = search::regex_counts(self.vault.as_ref(), &paths, re);
                hits.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                let total = hits.len();
                let results: Vec<Value> = hits
                    .into_iter()
                    .skip(window.offset)
                    .take(window.limit)
                    .map(|(path, count)| {
                        let (matches, lines) =
                            search::regex_lines(self.vault.as_ref(), &path, re, context, LINES_PER_NOTE);
                        let mtime = text.stamp(&path).map_or(0, |s| s.0);
                        json!({"path": path.as_str(), "score": count, "modified": iso(mtime),
                            "match_count": count, "lines": lines, "matches": matches})
                    })
                    .collect();
                ("regex", results, total, false)
            }
            None => {
                let parsed = Query::parse(query);
                if parsed.is_empty() {
                    return Ok(fail(
                        "the query holds no word to search for; give words, a \"phrase\" or a filter such as tag:name",
                    ));
                }
                let found = view.search(&parsed, &scope, window.offset, window.limit);
                let highlighter = Highlighter::new(&parsed);
                let results: Vec<Value> = found
                    .hits
                    .iter()
                    .map(|hit| {
                        let text = self.vault.read(&hit.path).unwrap_or_default();
                        let ranges = highlighter.matches(&text);
                        let (matches, lines) = snippet::lines(&text, &ranges, context, LINES_PER_NOTE);
                        let mtime = view.text().stamp(&hit.path).map_or(0, |s| s.0);
                        json!({"path": hit.path.as_str(), "score": (hit.score * 1000.0).round() / 1000.0,
                            "modified": iso(mtime), "match_count": ranges.len(), "lines": lines, "matches": matches})
                    })
                    .collect();
                ("text", results, found.total, found.relaxed)
            }
        };
        let live = view.is_live();
        drop(view);
        let mut value = json!({"query": query, "mode": mode});
        if relaxed {
            value["relaxed"] = json!(true);
            value["message"] = json!("no note holds every word; notes holding some of them are listed");
        }
        if let Some(t) = since {
            value["modified_since"] = json!(iso(t));
        }
        if let Some(t) = until {
            value["modified_until"] = json!(iso(t));
        }
        let next = json!({"query": query, "regex": args.regex, "contextLength": context, "modified_since": args.modified_since,
            "modified_until": args.modified_until, "folder": args.folder});
        let value = page(value, "results", results, total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// Ranked full-text search (seed 002): the notes most relevant to some words, each with its title, score, tags and a highlighted snippet. Every word must occur, else notes with most of them are listed; supports "exact phrases", wildcard*, -exclusions and tag:/path:/file: filters; pages with offset and limit.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn text_search(&self, Parameters(args): Parameters<TextSearch>) -> Answer {
        let parsed = Query::parse(&args.query);
        if parsed.is_empty() {
            return Ok(fail("the query is empty; give words to search for"));
        }
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let window = Window::new(args.offset, args.limit, 10, 50);
        let context = args.context_length.unwrap_or(160).clamp(10, 1000);
        let view = attempt!(self.index_view(&folder));
        let found = view.search(&parsed, &Scope::folder(&folder), window.offset, window.limit);
        let highlighter = Highlighter::new(&parsed);
        let results: Vec<Value> = found
            .hits
            .iter()
            .map(|hit| {
                let ranked = Ranked::of(self.vault.as_ref(), hit, &highlighter, context);
                let note = view.graph().note(&hit.path);
                json!({
                    "path": ranked.path,
                    "title": note.map(title).unwrap_or_else(|| hit.path.stem().to_string()),
                    "score": ranked.score,
                    "tags": note.map(|n| n.tags.clone()).unwrap_or_default(),
                    "modified": iso(note.map_or(0, |n| n.mtime_ms)),
                    "snippet": ranked.snippet,
                })
            })
            .collect();
        let live = view.is_live();
        drop(view);
        let mut value = json!({"query": args.query});
        if found.relaxed {
            value["relaxed"] = json!(true);
            value["message"] = json!("no note holds every word; notes holding some of them are listed");
        } else if found.total == 0 {
            value["message"] = json!(format!(
                "no note matches {:?}; try fewer or different words, or a wildcard*",
                args.query
            ));
        }
        let next = json!({"query": args.query, "folder": args.folder, "contextLength": context});
        let total = found.total;
        let value = page(value, "results", results, total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// Notes carrying tags (seed 002): frontmatter and inline tags, a tag also matching its nested tags (project finds project/alpha); all tags (default) or any. Each note with its tags and title, by path.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn tag_search(&self, Parameters(args): Parameters<TagSearch>) -> Answer {
        let wanted: Vec<String> = args
            .tags
            .iter()
            .map(|t| t.trim().trim_start_matches('#').to_lowercase())
            .filter(|t| !t.is_empty())
            .collect();
        if wanted.is_empty() {
            return Ok(fail("give the tags to look for, e.g. {\"tags\": [\"project\", \"review\"]}"));
        }
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let window = Window::new(args.offset, args.limit, 50, 200);
        let view = attempt!(self.index_view(&folder));
        let carries = |tags: &[String], want: &str| {
            tags.iter().any(|t| t == want || t.strip_prefix(want).is_some_and(|rest| rest.starts_with('/')))
        };
        let matching: Vec<&GraphNote> = view
            .graph()
            .notes()
            .filter(|n| n.path.is_within(&folder))
            .filter(|n| match args.mode {
                Match::All => wanted.iter().all(|w| carries(&n.tags, w)),
                Match::Any => wanted.iter().any(|w| carries(&n.tags, w)),
            })
            .collect();
        let total = matching.len();
        let results: Vec<Value> = matching
            .iter()
            .skip(window.offset)
            .take(window.limit)
            .map(|n| json!({"path": n.path.as_str(), "title": title(n), "tags": n.tags, "modified": iso(n.mtime_ms)}))
            .collect();
        let live = view.is_live();
        drop(view);
        let value = json!({"tags": wanted, "match": if args.mode == Match::All { "all" } else { "any" }});
        let next = json!({"tags": wanted, "match": if args.mode == Match::All { "all" } else { "any" }, "folder": args.folder});
        let value = page(value, "results", results, total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }

    /// Notes whose frontmatter meets conditions (seed 002): eq, ne, contains, not_contains, starts_with, exists, missing, gt, gte, lt, lte on any key (nested keys as a.b); all conditions (default) or any. Comparisons ignore case; numbers compare by value and ISO dates in time order; a list matches when one item does.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn metadata_search(&self, Parameters(args): Parameters<MetadataSearch>) -> Answer {
        let mut conditions: Vec<Condition> = args.conditions.iter().cloned().map(Condition::from).collect();
        for (key, value) in &args.equals {
            conditions.push(Condition {
                key: key.clone(),
                op: crate::index::filter::Op::Eq,
                value: value.clone(),
            });
        }
        if conditions.is_empty() {
            return Ok(fail(
                "give conditions, e.g. {\"conditions\": [{\"key\": \"status\", \"value\": \"done\"}]} or {\"where\": {\"status\": \"done\"}}",
            ));
        }
        let folder = attempt!(self.folder(args.folder.as_deref(), false));
        let window = Window::new(args.offset, args.limit, 50, 200);
        let view = attempt!(self.index_view(&folder));
        let matching: Vec<&GraphNote> = view
            .graph()
            .notes()
            .filter(|n| n.path.is_within(&folder))
            .filter(|n| match args.mode {
                Match::All => conditions.iter().all(|c| c.matches(&n.frontmatter)),
                Match::Any => conditions.iter().any(|c| c.matches(&n.frontmatter)),
            })
            .collect();
        let total = matching.len();
        let keys: Vec<&str> = conditions.iter().map(|c| c.key.as_str()).collect();
        let results: Vec<Value> = matching
            .iter()
            .skip(window.offset)
            .take(window.limit)
            .map(|n| {
                let shown: serde_json::Map<String, Value> = n
                    .frontmatter
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| keys.iter().any(|want| want.split('.').next().is_some_and(|w| w.eq_ignore_ascii_case(k))))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                json!({"path": n.path.as_str(), "title": title(n), "frontmatter": shown, "modified": iso(n.mtime_ms)})
            })
            .collect();
        let live = view.is_live();
        drop(view);
        let value = json!({"conditions": conditions});
        let next = json!({"conditions": conditions, "match": if args.mode == Match::All { "all" } else { "any" }, "folder": args.folder});
        let value = page(value, "results", results, total, window, next);
        Ok(ok(self.mark_index(value, live)))
    }
}
