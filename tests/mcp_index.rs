//! The vault index behind the MCP server, in process: every index tool, the building state
//! (answers scanned from the vault, saying so), the file watcher, and search quality.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, NumberOrString, ProgressToken, RequestMetaObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use scholia::index::service::{BuildGate, IndexOptions};
use scholia::mcp::{ConfirmPolicy, Scholia, Settings};
use serde_json::{Value, json};

use crate::mcp_client::Tools;

use crate::vaultgen;

/// Serves `vault` in process with the index run by `options`; returns the client's end.
fn serve(vault: &Path, options: IndexOptions) -> tokio::io::DuplexStream {
    let config = crate::mcp_client::config(vault, Some("References"));
    let settings = Settings { confirm: ConfirmPolicy::Destructive, ..Settings::new(config) };
    let server = Scholia::with_index(settings, options).unwrap();
    crate::mcp_client::serve(server)
}

struct Session<C: rmcp::ClientHandler = ()> {
    client: RunningService<RoleClient, C>,
    vault: tempfile::TempDir,
}

/// A session on a copy of the example vault whose index is ready.
async fn ready() -> Session {
    let s = start(crate::mcp_client::example_vault(), IndexOptions::default(), ()).await;
    s.wait_ready().await;
    s
}

async fn start<C: rmcp::ClientHandler>(
    vault: tempfile::TempDir,
    options: IndexOptions,
    handler: C,
) -> Session<C> {
    let client_io = serve(vault.path(), options);
    Session { client: handler.serve(client_io).await.unwrap(), vault }
}

/// A server over `vault` whose first build is held at a gate, once it has reached it: every
/// answer is scanned from the vault until `gate.open()`.
async fn start_held(vault: tempfile::TempDir) -> (Session<()>, BuildGate) {
    let gate = BuildGate::new();
    let options =
        IndexOptions { watch: false, threads: 2, gate: Some(gate.clone()), ..IndexOptions::default() };
    let s = start(vault, options, ()).await;
    let waiting = gate.clone();
    let reached = tokio::task::spawn_blocking(move || waiting.wait_reached(Duration::from_secs(60)));
    assert!(reached.await.unwrap(), "the build never reached the gate");
    (s, gate)
}

impl<C: rmcp::ClientHandler> Session<C> {
    async fn ok(&self, tool: &str, args: Value) -> Value {
        self.client.ok(tool, args).await
    }

    async fn err(&self, tool: &str, args: Value) -> String {
        self.client.err(tool, args).await
    }

    async fn wait_ready(&self) {
        let start = Instant::now();
        loop {
            let stats = self.ok("get_vault_stats", json!({})).await;
            if stats["index"] == "ready" {
                assert_eq!(stats["complete"], true);
                return;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "the index never got ready: {stats}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.vault.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
}

fn paths(answer: &Value, key: &str) -> Vec<String> {
    answer[key].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn lists_the_index_tools_with_descriptions_and_annotations() {
    let s = ready().await;
    let tools = s.client.list_all_tools().await.unwrap();
    for name in [
        "obsidian_global_search",
        "text_search",
        "tag_search",
        "metadata_search",
        "find_related_notes",
        "validate_vault",
        "get_vault_stats",
        "get_roots",
        "rebuild_index",
    ] {
        let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} missing"));
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 80), "{name}");
        let a = tool.annotations.as_ref().unwrap();
        assert_eq!(a.open_world_hint, Some(false));
        // rebuild_index too: it replaces the server's index and changes no file of the vault.
        assert_eq!((a.read_only_hint, a.destructive_hint), (Some(true), Some(false)), "{name}");
        let props =
            tool.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (field, schema) in props {
            assert!(schema.get("description").is_some(), "{name}.{field} has no description");
        }
    }
}

/// What each index-backed tool answers, reduced to what must not depend on the index.
async fn answers<C: rmcp::ClientHandler>(s: &Session<C>) -> Vec<(String, Value)> {
    let calls = [
        ("search_vault", json!({"query": "seed variance leaderboards"})),
        ("text_search", json!({"query": "spacing retention"})),
        ("obsidian_search", json!({"query": "massed practice"})),
        ("obsidian_global_search", json!({"query": "/spac(ed|ing)/i"})),
        ("obsidian_global_search", json!({"query": "leaderboards"})),
        ("tag_search", json!({"tags": ["ml"]})),
        ("metadata_search", json!({"where": {"status": "done"}})),
        ("find_related_notes", json!({"path": "Projects/Literature review.md"})),
        ("validate_vault", json!({})),
        ("get_note_metadata", json!({"path": "References/@weber2022seeds.md"})),
        ("obsidian_read_annotations", json!({"citekey": "kim2020spacing"})),
        ("get_roots", json!({})),
        ("get_vault_stats", json!({})),
    ];
    let mut out = Vec::new();
    for (tool, args) in calls {
        let answer = s.ok(tool, args.clone()).await;
        let key = ["results", "related", "issues", "backlinks", "folders", "annotations"]
            .into_iter()
            .find(|k| answer.get(*k).is_some());
        let essence = match (tool, key) {
            ("get_vault_stats", _) => json!([answer["notes"], answer["attachments"], answer["bytes"]]),
            (_, Some(k)) => answer[k].clone(),
            _ => answer.clone(),
        };
        out.push((format!("{tool} {args}"), json!({"answer": answer, "essence": essence})));
    }
    out
}

#[tokio::test]
async fn while_building_every_answer_says_so_and_is_scanned_correctly() {
    let vault = crate::mcp_client::example_vault();
    std::fs::write(vault.path().join("Projects/Broken.md"), "See [[Nowhere]].").unwrap();
    let (s, gate) = start_held(vault).await;
    let building = answers(&s).await;
    for (call, value) in &building {
        let answer = &value["answer"];
        assert_eq!(answer["index"], "building", "{call}");
        assert_eq!(answer["complete"], false, "{call}");
        assert_eq!(answer["progress"]["done"], 0, "{call}");
        assert_eq!(answer["progress"]["total"], 15, "{call}");
        assert!(answer["index_note"].as_str().unwrap().contains("scanning"), "{call}");
        assert_ne!(value["essence"], json!([]), "{call}: an empty answer while building");
    }
    assert_eq!(building[0].1["answer"]["results"][0]["path"], "References/@weber2022seeds.md");
    let stats = &building.last().unwrap().1["answer"];
    assert!(stats["pending"].as_str().unwrap().contains("once the index is built"), "{stats}");
    let err = s.err("rebuild_index", json!({"confirm": true})).await;
    assert!(err.contains("still being built"), "{err}");
    gate.open();
    s.wait_ready().await;
    let built = answers(&s).await;
    for ((call, scanned), (_, indexed)) in building.iter().zip(&built) {
        assert_eq!(indexed["answer"]["complete"], true, "{call}");
        assert!(indexed["answer"].get("progress").is_none(), "{call}");
        assert_eq!(scanned["essence"], indexed["essence"], "{call}: the scan and the index disagree");
    }
}

/// A vault whose notes write the same words in many ways (case, accents, ß, a ligature, CJK, a
/// name, an alias, a YAML number, tags in frontmatter and body): a search scanned while the index
/// builds must find the notes the index finds.
fn varied_vault() -> tempfile::TempDir {
    let vault = tempfile::tempdir().unwrap();
    let notes = [
        ("Cafe notes.md", "Plain ASCII about the cafe and coffee brewing.\n"),
        (
            "Reisen/Café Wien.md",
            "---\ntags: [travel, Coffee/Vienna]\n---\n# Wien\nEin Café am Ring, eine STRASSE weiter. Retrieval of memories.\n",
        ),
        ("Reisen/Berlin.md", "Die Straße nach Berlin; das ﬁle liegt dort. #travel\n"),
        (
            "Ideas/Graphs.md",
            "---\naliases: [Knowledge Graph]\ntitle: Graphs of things\n---\nNodes and edges; a knowledge graph links notes. #ml/graphs\n",
        ),
        (
            "Ideas/Retrieval.md",
            "Retrieval-augmented generation: retrieve, then generate. Knowledge and a graph, apart.\n",
        ),
        ("Ideas/知识图谱.md", "关于知识图谱的笔记。Retrieval 检索.\n"),
        // `#ml` in a code block is no tag: only the note's parse tells.
        ("Ideas/Code.md", "A graph drawn in code:\n```\n#ml graph\n```\n"),
        (
            "Drafts/Old idea.md",
            "---\ntitle: 0x1F\nstatus: draft\n---\nAn old draft about retrieval and coffee. #ml\n",
        ),
        ("Zebra crossing.md", "No word of the name in the text.\n"),
        (
            "Daily/2024-01-01.md",
            "Met a friend at the café.\r\nThe \u{212A}elvin scale; retrieval practice.\n",
        ),
    ];
    for (path, text) in notes {
        let full = vault.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    vault
}

/// The notes each search tool finds in the varied vault (in order, with the total).
async fn found_notes<C: rmcp::ClientHandler>(s: &Session<C>) -> Vec<(String, Value)> {
    let queries = [
        "cafe",
        "café",
        "strasse",
        "file",
        "kelvin",
        "knowledge graph",
        "\"knowledge graph\"",
        "retriev*",
        "retrieval -draft",
        "retrieval tag:ml",
        "\"knowledge graph\" tag:ml",
        "graph tag:ml",
        "graph -tag:ml",
        "coffee -tag:travel",
        "zebra",
        "31",
        "知识",
        "graph path:Ideas",
        "zebrafish",
        "tag:travel",
    ];
    let mut calls = Vec::new();
    for query in queries {
        calls.push(("search_vault", json!({"query": query, "limit": 50})));
        calls.push(("text_search", json!({"query": query, "limit": 50})));
        calls.push(("obsidian_global_search", json!({"query": query, "limit": 50})));
    }
    calls.push(("search_vault", json!({"query": "retrieval", "folder": "Ideas"})));
    calls.push(("obsidian_global_search", json!({"query": "/caf[eé]/i"})));
    calls.push(("obsidian_search", json!({"query": "Café"})));
    calls.push(("obsidian_search", json!({"query": "knowledge graph"})));
    let mut out = Vec::new();
    for (tool, args) in calls {
        let answer = s.ok(tool, args.clone()).await;
        let found = json!([paths(&answer, "results"), answer["total"], answer["relaxed"]]);
        out.push((format!("{tool} {args}"), json!({"answer": answer, "found": found})));
    }
    out
}

#[tokio::test]
async fn searches_scanned_while_building_find_what_the_index_finds() {
    let (s, gate) = start_held(varied_vault()).await;
    let scanned = found_notes(&s).await;
    for (call, value) in &scanned {
        assert_eq!(value["answer"]["index"], "building", "{call}");
    }
    // What the scan must find however the words are written (so an answer that misses them
    // fails here, not only by disagreeing with the index).
    let found = |tool: &str, query: &str| -> Vec<String> {
        let call = format!("{tool} {}", json!({"query": query, "limit": 50}));
        let (_, value) = scanned.iter().find(|(c, _)| *c == call).unwrap_or_else(|| panic!("{call}?"));
        let mut paths: Vec<String> =
            value["found"][0].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect();
        paths.sort();
        paths
    };
    let cafe = ["Cafe notes.md", "Daily/2024-01-01.md", "Reisen/Café Wien.md"];
    assert_eq!(found("search_vault", "cafe"), cafe);
    assert_eq!(found("text_search", "café"), cafe);
    assert_eq!(found("search_vault", "strasse"), ["Reisen/Berlin.md", "Reisen/Café Wien.md"]);
    assert_eq!(found("search_vault", "file"), ["Reisen/Berlin.md"]);
    assert_eq!(found("search_vault", "kelvin"), ["Daily/2024-01-01.md"]);
    assert_eq!(found("search_vault", "zebra"), ["Zebra crossing.md"]);
    assert_eq!(found("search_vault", "知识"), ["Ideas/知识图谱.md"]);
    assert_eq!(found("text_search", "retrieval tag:ml"), ["Drafts/Old idea.md"]);
    assert_eq!(found("obsidian_global_search", "\"knowledge graph\" tag:ml"), ["Ideas/Graphs.md"]);
    assert_eq!(found("search_vault", "graph tag:ml"), ["Ideas/Graphs.md"]);
    assert_eq!(found("search_vault", "graph -tag:ml"), ["Ideas/Code.md", "Ideas/Retrieval.md"]);
    assert_eq!(
        found("obsidian_global_search", "retrieval -draft"),
        ["Daily/2024-01-01.md", "Ideas/Retrieval.md", "Ideas/知识图谱.md", "Reisen/Café Wien.md"]
    );
    gate.open();
    s.wait_ready().await;
    let indexed = found_notes(&s).await;
    for ((call, scanned), (_, indexed)) in scanned.iter().zip(&indexed) {
        assert_eq!(indexed["answer"]["index"], "ready", "{call}");
        assert_eq!(scanned["found"], indexed["found"], "{call}: the scan and the index disagree");
        let scores = |v: &Value| -> Vec<Value> {
            v["answer"]["results"].as_array().unwrap().iter().map(|r| r["score"].clone()).collect()
        };
        // A folder's scan ranks by the folder's statistics, the index by the whole vault's.
        if !call.contains("folder") {
            assert_eq!(scores(scanned), scores(indexed), "{call}: the scan ranks otherwise");
        }
    }
}

#[tokio::test]
async fn global_search_reads_text_regex_wildcards_and_dates() {
    let s = ready().await;
    let found = s
        .ok("obsidian_global_search", json!({"query": "\"massed practice\" retention", "contextLength": 80}))
        .await;
    assert_eq!(found["mode"], "text");
    assert_eq!(paths(&found, "results")[0], "References/@kim2020spacing.md");
    let first = &found["results"][0];
    assert!(first["match_count"].as_u64().unwrap() >= 2);
    let line = &first["matches"][0];
    assert!(line["line"].as_u64().unwrap() > 1);
    assert!(line["context"].as_str().unwrap().contains("**"), "{line}");
    assert!(line["context"].as_str().unwrap().chars().count() <= 82);

    let wild = s.ok("obsidian_global_search", json!({"query": "retent* -massed"})).await;
    assert!(!paths(&wild, "results").contains(&"References/@kim2020spacing.md".to_string()));
    let regex = s.ok("obsidian_global_search", json!({"query": "\\d+% with", "regex": true})).await;
    assert_eq!(regex["mode"], "regex");
    assert_eq!(paths(&regex, "results")[0], "References/@kim2020spacing.md");
    let slashed = s.ok("obsidian_global_search", json!({"query": "/RETENTION AFTER/"})).await;
    assert_eq!(slashed["total"], 0, "without the i flag the case counts");
    let insensitive = s.ok("obsidian_global_search", json!({"query": "/RETENTION AFTER/i"})).await;
    assert_eq!(insensitive["total"], 1);

    let old = s.vault.path().join("References/@kim2020spacing.md");
    let file = std::fs::File::options().write(true).open(&old).unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_577_836_800)).unwrap(); // 2020-01-01
    drop(file);
    s.ok("rebuild_index", json!({"confirm": true})).await;
    let recent =
        s.ok("obsidian_global_search", json!({"query": "retention", "modified_since": "2 weeks ago"})).await;
    assert!(!paths(&recent, "results").contains(&"References/@kim2020spacing.md".to_string()), "{recent}");
    assert!(recent["modified_since"].as_str().unwrap().ends_with('Z'));
    let before =
        s.ok("obsidian_global_search", json!({"query": "retention", "modified_until": "2020-01-01"})).await;
    assert_eq!(paths(&before, "results"), ["References/@kim2020spacing.md"]);
    let err = s.err("obsidian_global_search", json!({"query": "x", "modified_since": "the day after"})).await;
    assert!(err.contains("2 weeks ago"), "{err}");
    let err = s.err("obsidian_global_search", json!({"query": "(unclosed", "regex": true})).await;
    assert!(err.contains("regular expression"), "{err}");
    assert!(s.err("obsidian_global_search", json!({"query": "  "})).await.contains("empty"));
}

#[tokio::test]
async fn text_search_ranks_pages_and_filters() {
    let s = ready().await;
    for i in 0..30 {
        s.write(&format!("Inbox/pile {i}.md"), &format!("# Pile {i}\nquokka notes, round {i}. #pile\n"));
    }
    s.ok("rebuild_index", json!({"confirm": true})).await;
    let first = s.ok("text_search", json!({"query": "quokka", "limit": 12})).await;
    assert_eq!(first["total"], 30);
    assert_eq!(first["results"].as_array().unwrap().len(), 12);
    let next = first["next"].clone();
    assert_eq!(next["offset"], 12);
    let second = s.ok("text_search", next).await;
    let mut seen = paths(&first, "results");
    seen.extend(paths(&second, "results"));
    seen.dedup();
    assert_eq!(seen.len(), 24, "pages overlap");
    let hit = &first["results"][0];
    assert!(hit["snippet"].as_str().unwrap().contains("**quokka**"), "{hit}");
    assert_eq!(hit["tags"], json!(["pile"]));

    let phrase = s.ok("text_search", json!({"query": "\"round 7\" quokka"})).await;
    assert_eq!(paths(&phrase, "results"), ["Inbox/pile 7.md"]);
    let excluded = s.ok("text_search", json!({"query": "quokka -round"})).await;
    assert_eq!(excluded["total"], 0);
    let tagged = s.ok("text_search", json!({"query": "leaderboards tag:variance"})).await;
    assert_eq!(paths(&tagged, "results"), ["References/@weber2022seeds.md"]);
    let by_path = s.ok("text_search", json!({"query": "repetition path:Projects"})).await;
    assert_eq!(paths(&by_path, "results"), ["Projects/Literature review.md"]);
    let relaxed = s.ok("text_search", json!({"query": "quokka leaderboards"})).await;
    assert_eq!(relaxed["relaxed"], true);
    assert!(s.err("text_search", json!({"query": ""})).await.contains("empty"));
}

#[tokio::test]
async fn tags_and_frontmatter_conditions() {
    let s = ready().await;
    let ml = s.ok("tag_search", json!({"tags": "#ML"})).await;
    assert!(ml["total"].as_u64().unwrap() >= 2);
    assert!(
        ml["results"].as_array().unwrap().iter().all(|r| r["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "ml"))
    );
    let both = s.ok("tag_search", json!({"tags": ["ml", "variance"]})).await;
    let any = s.ok("tag_search", json!({"tags": ["ml", "variance"], "match": "any"})).await;
    assert!(both["total"].as_u64().unwrap() < any["total"].as_u64().unwrap() + 1);
    assert!(paths(&both, "results").contains(&"References/@weber2022seeds.md".to_string()));
    s.write("Inbox/Nested.md", "#area/research/ml");
    s.ok("rebuild_index", json!({"confirm": true})).await;
    assert_eq!(paths(&s.ok("tag_search", json!({"tags": ["area"]})).await, "results"), ["Inbox/Nested.md"]);
    assert!(s.err("tag_search", json!({"tags": []})).await.contains("tags"));

    let done = s.ok("metadata_search", json!({"conditions": [{"key": "status", "value": "done"}, {"key": "year", "op": "gte", "value": 2023}]})).await;
    assert!(done["total"].as_u64().unwrap() >= 1);
    for r in done["results"].as_array().unwrap() {
        assert!(r["frontmatter"]["year"].as_i64().unwrap() >= 2023, "{r}");
    }
    let key = s.ok("metadata_search", json!({"where": {"citekey": "weber2022seeds"}})).await;
    assert_eq!(paths(&key, "results"), ["References/@weber2022seeds.md"]);
    let missing = s
        .ok(
            "metadata_search",
            json!({"conditions": [{"key": "citekey", "op": "missing"}], "folder": "References"}),
        )
        .await;
    assert_eq!(missing["total"], 0);
    assert!(s.err("metadata_search", json!({})).await.contains("conditions"));
}

#[tokio::test]
async fn graph_tools_say_why_and_what_to_fix() {
    let s = ready().await;
    s.write("Inbox/Broken.md", "See [[Nowhere]] and [[@weber2022seeds#No such heading]].");
    s.ok("rebuild_index", json!({"confirm": true})).await;
    let related = s.ok("find_related_notes", json!({"path": "References/@weber2022seeds"})).await;
    let first = &related["related"][0];
    assert!(first["why"].as_str().unwrap().len() > 5, "{first}");
    assert!(
        related["related"].as_array().unwrap().iter().any(|r| r["path"] == "Projects/Literature review.md"
            && r["why"].as_str().unwrap().contains("links to this note"))
    );
    assert!(s.err("find_related_notes", json!({"path": "Nope.md"})).await.contains("no note or file named"));

    let issues = s.ok("validate_vault", json!({"folder": "Inbox"})).await;
    let kinds: Vec<&str> =
        issues["issues"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"broken_link") && kinds.contains(&"missing_heading"), "{kinds:?}");
    assert!(
        issues["issues"].as_array().unwrap().iter().all(|i| !i["suggestion"].as_str().unwrap().is_empty())
    );
    let only = s.ok("validate_vault", json!({"kinds": ["broken_link"]})).await;
    assert!(only["issues"].as_array().unwrap().iter().all(|i| i["kind"] == "broken_link"));
    assert!(s.err("validate_vault", json!({"kinds": ["typo"]})).await.contains("broken_link"));

    let stats = s.ok("get_vault_stats", json!({})).await;
    assert_eq!(stats["notes"], 15);
    assert!(stats["links"].as_u64().unwrap() > 10 && stats["broken_links"].as_u64().unwrap() >= 1);
    assert_eq!(stats["index_status"]["state"], "ready");
    assert!(stats["index_status"]["build"]["total_ms"].as_f64().unwrap() > 0.0);
    assert!(stats["issues"]["by_kind"]["broken_link"].as_u64().unwrap() >= 1);
    assert!(!stats["issues"]["attention"].as_array().unwrap().is_empty());

    let roots = s.ok("get_roots", json!({})).await;
    assert!(roots["root"].as_str().unwrap().starts_with('/'));
    let folders: Vec<(&str, u64)> = roots["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["notes"].as_u64().unwrap()))
        .collect();
    assert!(folders.contains(&("References", 12)) && folders.contains(&("Synthesis", 0)), "{folders:?}");

    let meta = s.ok("get_note_metadata", json!({"path": "References/@weber2022seeds.md"})).await;
    let from: Vec<&str> =
        meta["backlinks"].as_array().unwrap().iter().map(|b| b["path"].as_str().unwrap()).collect();
    assert!(from.contains(&"Projects/Literature review.md") && from.contains(&"Inbox/Broken.md"), "{from:?}");
    let out = s.ok("get_note_metadata", json!({"path": "Inbox/Broken.md"})).await;
    let links = out["outgoing"].as_array().unwrap();
    assert_eq!(links[0]["resolved"], false);
    assert_eq!(links[1]["path"], "References/@weber2022seeds.md");
    assert_eq!(links[1]["anchor_found"], false);
}

/// (progress, total) of a notification.
type Step = (f64, Option<f64>);

/// A client that records the progress notifications it gets.
#[derive(Clone, Default)]
struct Progress(std::sync::Arc<std::sync::Mutex<Vec<Step>>>);

impl rmcp::ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _ctx: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push((params.progress, params.total));
    }
}

#[tokio::test]
async fn rebuild_asks_for_approval_reports_progress_and_checks_integrity() {
    let vault = crate::mcp_client::example_vault();
    vaultgen::write_vault(&vault.path().join("Generated"), 300, 3).unwrap();
    let progress = Progress::default();
    let s = start(vault, IndexOptions::default(), progress.clone()).await;
    s.wait_ready().await;
    let err = s.err("rebuild_index", json!({})).await;
    assert!(err.contains("confirm: true"), "{err}");
    let mut meta = RequestMetaObject::new();
    meta.set_progress_token(ProgressToken(NumberOrString::String("rebuild-1".into())));
    let mut request = CallToolRequestParams::new("rebuild_index")
        .with_arguments(json!({"confirm": true}).as_object().unwrap().clone());
    request.meta = Some(meta);
    let result = s.client.call_tool(request).await.unwrap();
    let value = result.structured_content.unwrap();
    assert_eq!(value["integrity"]["ok"], true, "{value}");
    assert_eq!(value["notes"], 314);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let seen = progress.0.lock().unwrap().clone();
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert_eq!(seen.last().unwrap(), &(314.0, Some(314.0)));
}

#[tokio::test]
async fn the_watcher_picks_up_external_edits() {
    let s = ready().await;
    let find = |word: &'static str| {
        let s = &s;
        async move { paths(&s.ok("search_vault", json!({"query": word})).await, "results") }
    };
    // Poll: the watcher applies events after a short quiet time; no timing is asserted.
    async fn until<F: std::future::Future<Output = bool>>(step: &str, mut check: impl FnMut() -> F) {
        let start = Instant::now();
        while !check().await {
            assert!(start.elapsed() < Duration::from_secs(15), "{step}: the change was never seen");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
    s.write("Inbox/Creature.md", "A wombat appears.");
    until("create", || async { find("wombat").await == ["Inbox/Creature.md"] }).await;
    s.write("Inbox/Creature.md", "Now a numbat.");
    until("edit", || async {
        find("wombat").await.is_empty() && find("numbat").await == ["Inbox/Creature.md"]
    })
    .await;
    std::fs::rename(s.vault.path().join("Inbox"), s.vault.path().join("Archive")).unwrap();
    until("move", || async { find("numbat").await == ["Archive/Creature.md"] }).await;
    std::fs::remove_file(s.vault.path().join("Archive/Creature.md")).unwrap();
    until("delete", || async { find("numbat").await.is_empty() }).await;
    let stats = s.ok("get_vault_stats", json!({})).await;
    assert!(
        stats["index_status"]["watching"] == true && stats["index_status"]["events"].as_u64().unwrap() > 0
    );
    let literal = s.ok("obsidian_search", json!({"query": "numbat"})).await;
    assert_eq!(literal["total_files"], 0);
}

#[tokio::test]
async fn the_servers_own_writes_are_in_its_next_answer_without_a_rescan() {
    // No watcher and no polling: only the vault's journal of this server's writes brings them in.
    let options = IndexOptions { watch: false, poll: false, ..IndexOptions::default() };
    let s = start(crate::mcp_client::example_vault(), options, ()).await;
    s.wait_ready().await;
    let found = |r: &Value| paths(r, "results");
    s.ok("create_note", json!({"path": "Inbox/Quokka.md", "content": "A quokka smiles."})).await;
    assert_eq!(found(&s.ok("search_vault", json!({"query": "quokka"})).await), ["Inbox/Quokka.md"]);
    let stats = s.ok("get_vault_stats", json!({})).await;
    assert_eq!(stats["index_status"]["last_update"]["source"], "write", "{stats}");
    s.ok("obsidian_move_file", json!({"filePath": "Quokka", "newPath": "Archive/", "confirm": true})).await;
    assert_eq!(found(&s.ok("search_vault", json!({"query": "quokka"})).await), ["Archive/Quokka.md"]);
    s.ok("delete_note", json!({"note": "Quokka", "confirm": true})).await;
    assert!(found(&s.ok("search_vault", json!({"query": "quokka"})).await).is_empty());
    // The journal holds only this process's writes: a file written behind the server's back
    // waits for the watcher or a poll (both off here).
    s.write("Inbox/Wallaby.md", "A wallaby hops.");
    assert!(found(&s.ok("search_vault", json!({"query": "wallaby"})).await).is_empty());
}

#[tokio::test]
async fn a_move_rewrites_links_in_a_note_written_behind_the_servers_back_a_moment_ago() {
    // No watcher and no polling: the index hears nothing of the file written outside.
    let options = IndexOptions { watch: false, poll: false, ..IndexOptions::default() };
    let s = start(crate::mcp_client::example_vault(), options, ()).await;
    s.wait_ready().await;
    s.ok("create_note", json!({"path": "Inbox/Numbat.md", "content": "A numbat digs."})).await;
    s.write("Inbox/Outside.md", "Written by another program: see [[Numbat]].");
    let dry = s.ok("delete_note", json!({"note": "Numbat", "dryRun": true})).await;
    assert!(dry.to_string().contains("Inbox/Outside.md"), "the delete names the link that breaks: {dry}");
    s.ok(
        "obsidian_move_file",
        json!({"filePath": "Numbat", "newPath": "Archive/Termites.md", "confirm": true}),
    )
    .await;
    let outside = std::fs::read_to_string(s.vault.path().join("Inbox/Outside.md")).unwrap();
    assert_eq!(outside, "Written by another program: see [[Termites]].");
}

#[tokio::test]
async fn writing_tools_list_the_links_they_wrote_that_open_nothing() {
    let s = ready().await;
    let text = "See [[Nowhere note]], [[Literature review#Plan|the plan]], [x](Missing%20file.md),\n`[[in code]]` and [site](https://example.org).\n";
    let created = s.ok("create_note", json!({"path": "Inbox/Links.md", "content": text})).await;
    let unresolved = created["unresolved_links"].as_array().unwrap();
    let targets: Vec<&str> = unresolved.iter().map(|l| l["target"].as_str().unwrap()).collect();
    assert_eq!(targets, ["Nowhere note", "Missing file.md"], "{created}");
    assert_eq!(unresolved[0]["link"], "[[Nowhere note]]");
    assert_eq!(unresolved[0]["line"], 1);
    assert!(created["link_warning"].as_str().unwrap().contains("2 links"));
    // Only the text a call wrote is checked; a link to a note written just before resolves.
    let appended = s
        .ok("append_to_note", json!({"path": "Inbox/Links.md", "content": "- [[Links]] [[Inbox/Links]]"}))
        .await;
    assert!(appended.get("unresolved_links").is_none(), "{appended}");
    let patched = s
        .ok(
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": "Links", "modificationType": "wholeFile",
                "wholeFileMode": "append", "content": "![[ghost.png]]"}),
        )
        .await;
    assert_eq!(patched["unresolved_links"][0]["target"], "ghost.png", "{patched}");
}

#[tokio::test]
async fn a_note_comes_first_for_its_title_its_citekey_and_a_distinctive_phrase() {
    let vault = crate::mcp_client::example_vault();
    vaultgen::write_vault(vault.path(), 800, 11).unwrap();
    let s = start(vault, IndexOptions::default(), ()).await;
    s.wait_ready().await;
    let first = |query: &'static str| {
        let s = &s;
        async move {
            let found = s.ok("search_vault", json!({"query": query})).await;
            found["results"][0]["path"].as_str().unwrap_or_default().to_string()
        }
    };
    // Title words.
    assert_eq!(first("literature review").await, "Projects/Literature review.md");
    assert_eq!(first("Random Seeds Decide Leaderboards").await, "References/@weber2022seeds.md");
    assert_eq!(first("note 123 δ").await, "Ideas/000/Note 123 δ.md");
    assert_eq!(first("Note 42 gamma").await, "Daily/000/Note 42 gamma.md");
    // Citekeys.
    assert_eq!(first("weber2022seeds").await, "References/@weber2022seeds.md");
    assert_eq!(first("@kim2020spacing").await, "References/@kim2020spacing.md");
    assert_eq!(first("paper8").await, "References/000/@paper8.md");
    // A distinctive phrase, with and without quotes.
    assert_eq!(
        first("\"240 university students learned 60 word pairs\"").await,
        "References/@kim2020spacing.md"
    );
    assert_eq!(first("university students word pairs").await, "References/@kim2020spacing.md");
    // The literal search reads only the notes that can match, and finds what a scan finds.
    let hit = s.ok("obsidian_search", json!({"query": "Word Pairs"})).await;
    assert_eq!(paths(&hit, "results"), ["References/@kim2020spacing.md"]);
}
