//! Every list an answer holds pages (`reply.rs`): `offset`/`limit` in; the true `total`, and while
//! items remain `truncated` and `next` (the arguments of the call that continues) out; no answer
//! over the 20 KB cap; paging through with `next` gives every item exactly once. On a generated
//! vault big enough to need several pages of each list.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use scholia::mcp::{Scholia, Settings};
use serde_json::{Value, json};

use crate::mcp_client::Tools;

use crate::vaultgen;

/// Notes in the folder `Big/`.
const BIG: usize = 1_500;
/// Annotation notes in `Papers/`, the annotations folder (the first with 200 annotations).
const PAPERS: usize = 1_000;
/// Notes of `Big/` holding the word "quasar" (every fifth).
const MATCHING: usize = 300;
/// Tags of `Big/`: `topic/subject-00` to `topic/subject-59`, and `topic` for them all.
const TOPICS: usize = 60;

struct Session {
    client: RunningService<RoleClient, ()>,
    vault: tempfile::TempDir,
}

/// A generated vault (vaultgen's 200 notes) with a folder of 1,500 notes and 1,000 annotation
/// notes beside it.
fn big_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    vaultgen::write_vault(dir.path(), 200, 5).unwrap();
    std::fs::create_dir_all(dir.path().join("Big")).unwrap();
    for i in 0..BIG {
        let word = if i % 5 == 0 { "quasar " } else { "" };
        let text =
            format!("# Note {i}\n\nA {word}note on a subject #topic/subject-{:02}. {LONG}\n", i % TOPICS);
        std::fs::write(dir.path().join(big_note(i)), text).unwrap();
    }
    let paragraph = "A paragraph of a long note, about #topic/long and nothing else, said at length. ";
    std::fs::write(
        dir.path().join("Long.md"),
        format!("---\ntags: [long]\n---\n{}", paragraph.repeat(1_000)),
    )
    .unwrap();
    std::fs::write(dir.path().join("Points to long.md"), "See [[Long]].\n").unwrap();
    std::fs::create_dir_all(dir.path().join("Papers")).unwrap();
    let mut rng = vaultgen::Rng::new(9);
    for i in 0..PAPERS {
        let text = vaultgen::annotation_note(&mut rng, 100_000 + i, if i == 0 { 200 } else { 1 });
        std::fs::write(dir.path().join(format!("Papers/@paper{}.md", 100_000 + i)), text).unwrap();
    }
    dir
}

/// A sentence longer than a preview.
const LONG: &str = "It goes on about retrieval, evaluation and variance for long enough to fill the preview \
    a listing shows of it, and then some more, so that a page of notes is mostly previews.";

fn big_note(i: usize) -> String {
    format!("Big/Note {i:04} on a rather long subject.md")
}

async fn start() -> Session {
    let vault = big_vault();
    let config = crate::mcp_client::config(vault.path(), Some("Papers"));
    let server = Scholia::new(Settings::new(config)).unwrap();
    let client = ().serve(crate::mcp_client::serve(server)).await.unwrap();
    let s = Session { client, vault };
    let start = Instant::now();
    while s.client.ok("get_vault_stats", json!({})).await["index"] != "ready" {
        assert!(start.elapsed() < Duration::from_secs(120), "the index never got ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    s
}

/// Every page of a list answer, followed through `next`: the answers, and each item's id.
struct Paged {
    answers: Vec<Value>,
    ids: Vec<String>,
}

impl Paged {
    /// The ids as a set, after checking that none came twice and that every answer gave the same
    /// total, the number of items listed.
    fn every_item_once(&self) -> BTreeSet<String> {
        let set: BTreeSet<String> = self.ids.iter().cloned().collect();
        assert_eq!(set.len(), self.ids.len(), "an item came twice");
        for answer in &self.answers {
            assert_eq!(answer["total"], json!(self.ids.len()), "total is not the number of items");
        }
        set
    }
}

impl Session {
    /// Calls `tool` with `args`, then again with each answer's `next` until none is given.
    async fn page_through(&self, tool: &str, args: Value, key: &str, id: fn(&Value) -> String) -> Paged {
        let mut paged = Paged { answers: Vec::new(), ids: Vec::new() };
        let mut args = args;
        loop {
            let answer = self.client.ok(tool, args).await;
            let items = answer[key].as_array().unwrap_or_else(|| panic!("{tool}: no {key} in {answer}"));
            assert!(!items.is_empty() || paged.answers.is_empty(), "{tool}: an empty page");
            assert_eq!(answer["offset"], json!(paged.ids.len()), "{tool}: a page starts elsewhere");
            paged.ids.extend(items.iter().map(id));
            let next = answer.get("next").cloned();
            assert_eq!(
                answer["truncated"] == true,
                next.is_some(),
                "{tool}: truncated without next: {answer}"
            );
            paged.answers.push(answer);
            match next {
                Some(next) => args = next,
                None => return paged,
            }
            assert!(paged.answers.len() < 200, "{tool}: paging does not end");
        }
    }

    fn names_in(&self, folder: &str) -> BTreeSet<String> {
        std::fs::read_dir(self.vault.path().join(folder))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }
}

fn path_of(item: &Value) -> String {
    item["path"].as_str().unwrap().to_string()
}

fn tag_of(item: &Value) -> String {
    item["tag"].as_str().unwrap().to_string()
}

fn text_of(item: &Value) -> String {
    item.as_str().unwrap().to_string()
}

fn big_tags() -> BTreeSet<String> {
    let mut tags: BTreeSet<String> = (0..TOPICS).map(|t| format!("topic/subject-{t:02}")).collect();
    tags.insert("topic".into());
    tags
}

#[tokio::test]
async fn get_tags_pages_through_every_tag_of_a_big_vault() {
    let s = start().await;
    let first = s.client.ok("obsidian_get_tags", json!({"path": "Big"})).await;
    assert_eq!(first["count"], json!(TOPICS + 1));
    assert!(first["tags"].as_array().unwrap().len() > 1, "one tag per answer: {}", first["tags"]);
    // The tag on every note lists some of them, says how many, and where to find them all.
    let topic = &first["tags"][0];
    assert_eq!((&topic["tag"], &topic["count"]), (&json!("topic"), &json!(BIG)));
    assert!(topic["files"].as_array().unwrap().len() < BIG && topic["files_truncated"] == true);
    let paged = s.page_through("obsidian_get_tags", json!({"path": "Big"}), "tags", tag_of).await;
    assert_eq!(paged.every_item_once(), big_tags());
    assert!(paged.answers.len() > 1, "the tags of Big/ fit one answer; the test needs more");
    let all = s.page_through("obsidian_get_tags", json!({"limit": 7}), "tags", tag_of).await;
    assert!(all.every_item_once().is_superset(&big_tags()));
}

#[tokio::test]
async fn list_files_pages_through_a_folder_of_1500_files() {
    let s = start().await;
    let first = s.client.ok("obsidian_list_files", json!({"dirPath": "Big"})).await;
    assert_eq!((&first["count"], &first["total"]), (&json!(BIG), &json!(BIG)));
    assert!(first["next"]["offset"].as_u64().unwrap() > 0, "{}", first["next"]);
    assert!(!first["hint"].as_str().unwrap_or_default().contains("subfolder"), "{}", first["hint"]);
    let paged = s.page_through("obsidian_list_files", json!({"dirPath": "Big"}), "files", text_of).await;
    assert_eq!(paged.every_item_once(), s.names_in("Big"));
    let small =
        s.page_through("obsidian_list_files", json!({"path": "Big", "limit": 400}), "files", text_of).await;
    assert_eq!((small.answers.len(), small.every_item_once()), (4, s.names_in("Big")));
}

#[tokio::test]
async fn list_annotation_files_pages_through_1000_notes() {
    let s = start().await;
    let first = s.client.ok("obsidian_list_annotation_files", json!({})).await;
    assert_eq!(first["count"], json!(PAPERS));
    let paged = s.page_through("obsidian_list_annotation_files", json!({}), "files", path_of).await;
    let expected: BTreeSet<String> =
        s.names_in("Papers").into_iter().map(|n| format!("Papers/{n}")).collect();
    assert_eq!(paged.every_item_once(), expected);
    assert!(paged.answers.len() > 1);
}

#[tokio::test]
async fn list_notes_gives_as_many_notes_as_asked_for_as_fit() {
    let s = start().await;
    let page = s.client.ok("list_notes", json!({"folder": "Big", "limit": 200})).await;
    let notes = page["notes"].as_array().unwrap();
    // Previews shorten to make room for the notes asked for (before: 59 notes with full previews).
    assert!(notes.len() >= 100, "{} notes of the 200 asked for", notes.len());
    assert_eq!(page["next"]["offset"], json!(notes.len()));
    let hint = page["hint"].as_str().unwrap();
    assert!(hint.contains("200 asked for") && hint.contains("20 KB"), "{hint}");
    // A page that leaves room keeps full previews.
    let few = s.client.ok("list_notes", json!({"folder": "Big", "limit": 5})).await;
    let preview = few["notes"][1]["preview"].as_str().unwrap();
    assert!(preview.starts_with("A note on a subject #topic/subject-01. It goes on"), "{preview}");
    assert_eq!((preview.chars().count(), preview.ends_with('…')), (161, true), "{preview}");
    assert_eq!(few["next"]["offset"], 5);
    let paged = s.page_through("list_notes", json!({"folder": "Big", "limit": 200}), "notes", path_of).await;
    assert_eq!(paged.every_item_once(), (0..BIG).map(big_note).collect());
}

#[tokio::test]
async fn search_vault_says_how_many_notes_match_and_pages() {
    let s = start().await;
    let first = s.client.ok("search_vault", json!({"query": "quasar"})).await;
    assert_eq!(first["total"], json!(MATCHING));
    assert_eq!(first["message"], "300 notes match \"quasar\"");
    assert_eq!(first["results"].as_array().unwrap().len(), 10);
    let paged =
        s.page_through("search_vault", json!({"query": "quasar", "limit": 50}), "results", path_of).await;
    assert_eq!(paged.every_item_once(), (0..BIG).step_by(5).map(big_note).collect());
}

/// The other list tools page the same way.
#[tokio::test]
async fn paging_with_next_gives_every_item_once_in_every_list_tool() {
    let s = start().await;
    let quasars: BTreeSet<String> = (0..BIG).step_by(5).map(big_note).collect();
    let cases: [(&str, Value, &str, BTreeSet<String>); 5] = [
        ("text_search", json!({"query": "quasar", "limit": 50}), "results", quasars.clone()),
        ("obsidian_global_search", json!({"query": "quasar", "limit": 50}), "results", quasars.clone()),
        ("obsidian_search", json!({"query": "quasar", "folder": "Big"}), "results", quasars.clone()),
        ("tag_search", json!({"tags": ["topic/subject-07"], "limit": 7}), "results", {
            (7..BIG).step_by(TOPICS).map(big_note).collect()
        }),
        ("metadata_search", json!({"where": {"category": "Annotations"}, "folder": "Papers"}), "results", {
            s.names_in("Papers").into_iter().map(|n| format!("Papers/{n}")).collect()
        }),
    ];
    for (tool, args, key, expected) in cases {
        let paged = s.page_through(tool, args, key, path_of).await;
        assert_eq!(paged.every_item_once(), expected, "{tool}");
        assert!(paged.answers.len() > 1, "{tool} fit one page; the test needs more");
    }
    let annotation = |a: &Value| format!("{} p. {}", a["text"].as_str().unwrap(), a["page"]);
    let read = s
        .page_through(
            "obsidian_read_annotations",
            json!({"citekey": "paper100000"}),
            "annotations",
            annotation,
        )
        .await;
    assert_eq!(read.every_item_once().len(), 200);
    assert!(read.answers.len() > 1);
}

/// A long note comes in parts that add up to the note; what describes it (tags, frontmatter,
/// backlinks) comes once, with the first part, in every tool that reads a note.
#[tokio::test]
async fn a_long_note_is_read_in_parts_with_its_metadata_once() {
    let s = start().await;
    let text = std::fs::read_to_string(s.vault.path().join("Long.md")).unwrap();
    for (tool, key) in
        [("read_note", "note"), ("get_note_content", "path"), ("obsidian_read_file", "filePath")]
    {
        let mut args = json!({key: "Long.md", "format": "json"});
        let (mut whole, mut parts) = (String::new(), 0);
        loop {
            let answer = s.client.ok(tool, args.clone()).await;
            assert_eq!(answer["offset"], json!(whole.len()), "{tool}");
            whole += answer["content"].as_str().unwrap();
            let described = answer.get("tags").is_some();
            assert_eq!(described, parts == 0, "{tool}: part {parts} has tags: {}", described);
            if parts == 0 {
                assert!(
                    answer["tags"].as_array().unwrap().contains(&json!("long")),
                    "{tool}: {}",
                    answer["tags"]
                );
                assert!(answer.get("frontmatter").is_some(), "{tool}");
            }
            assert!(parts > 0 || tool != "read_note" || answer["backlink_count"] == 1, "{tool}");
            assert!(parts == 0 || answer.get("backlinks").is_none(), "{tool}");
            parts += 1;
            match answer.get("next") {
                Some(next) => args = next.clone(),
                None => break,
            }
        }
        assert_eq!((whole == text, parts > 2), (true, true), "{tool}: {parts} parts");
    }
}

/// The top-level folders `get_roots` lists page like every other list (before: cut at the cap,
/// with no way to the rest).
#[tokio::test]
async fn get_roots_pages_through_the_top_level_folders() {
    let s = start().await;
    let dirs: BTreeSet<String> = std::fs::read_dir(s.vault.path())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir() && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(dirs.len() > 2, "{dirs:?}");
    let paged = s.page_through("get_roots", json!({"limit": 2}), "folders", path_of).await;
    assert_eq!(paged.every_item_once(), dirs);
    assert!(paged.answers.len() > 1);
    let big = paged
        .answers
        .iter()
        .flat_map(|a| a["folders"].as_array().unwrap().clone())
        .find(|f| f["path"] == "Big");
    assert_eq!(big.unwrap()["notes"], json!(BIG));
}
