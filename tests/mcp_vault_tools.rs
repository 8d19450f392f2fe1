//! The property, tag, periodic, status and seed-002 note tools in process, against a copy of the
//! fixture vault with `fixtures/vault_tools/` laid over it; toolsets and read-only mode.

use std::path::Path;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use scholia::mcp::{Scholia, Settings, Toolset};
use serde_json::{Value, json};

use crate::mcp_client::Tools;

struct Session {
    client: RunningService<RoleClient, ()>,
    vault: tempfile::TempDir,
}

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = crate::check::root().join("tests/fixtures");
    crate::check::copy_dir(&fixtures.join("vault"), dir.path());
    crate::check::copy_dir(&fixtures.join("vault_tools"), dir.path());
    dir
}

fn settings(vault: &Path, toolsets: &[Toolset], read_only: bool) -> Settings {
    let config = crate::mcp_client::config(vault, None);
    Settings { read_only, toolsets: toolsets.to_vec(), ..Settings::new(config) }
}

async fn start_with(toolsets: &[Toolset], read_only: bool) -> Session {
    let vault = vault();
    let server = Scholia::new(settings(vault.path(), toolsets, read_only)).unwrap();
    let client_io = crate::mcp_client::serve(server);
    Session { client: ().serve(client_io).await.unwrap(), vault }
}

async fn start() -> Session {
    start_with(&[], false).await
}

impl Session {
    async fn ok(&self, tool: &str, args: Value) -> Value {
        self.client.ok(tool, args).await
    }

    async fn err(&self, tool: &str, args: Value) -> String {
        self.client.err(tool, args).await
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.vault.path().join(path)).unwrap()
    }

    fn exists(&self, path: &str) -> bool {
        self.vault.path().join(path).exists()
    }

    async fn tool_names(&self) -> Vec<String> {
        self.client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect()
    }
}

const NEW_TOOLS: [&str; 9] = [
    "obsidian_update_properties",
    "obsidian_manage_tags",
    "obsidian_get_periodic_note",
    "obsidian_delete_periodic_note",
    "obsidian_check_status",
    "read_note",
    "update_note",
    "delete_note",
    "list_notes",
];

#[tokio::test]
async fn every_tool_is_described_and_in_a_toolset() {
    let s = start().await;
    let tools = s.client.list_all_tools().await.unwrap();
    let facts = scholia::mcp::tool_facts();
    let writes = |name: &str| facts.iter().any(|f| f.name == name && f.writes);
    for name in NEW_TOOLS {
        let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} missing"));
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 80), "{name}");
        let hints = tool.annotations.as_ref().unwrap();
        assert_eq!(hints.open_world_hint, Some(false));
        assert_eq!(hints.read_only_hint, Some(!writes(name)), "{name}");
    }
    for tool in &tools {
        assert!(facts.iter().any(|f| f.name == tool.name), "{} has no toolset", tool.name);
        let schema = serde_json::to_string(&tool.input_schema).unwrap();
        if writes(&tool.name) && NEW_TOOLS.contains(&tool.name.as_ref()) {
            assert!(schema.contains("dryRun"), "{} lacks dryRun", tool.name);
        }
    }
}

#[tokio::test]
async fn properties_change_surgically_and_byte_identically() {
    let s = start().await;
    let before = s.read("Notes/Properties.md");
    let preview = s
        .ok(
            "obsidian_update_properties",
            json!({"filepath": "Notes/Properties", "properties": {"status": "done"}, "dryRun": true}),
        )
        .await;
    assert_eq!(preview["dry_run"], true);
    let diff = preview["diff"].as_str().unwrap();
    assert!(diff.contains("-status: \"draft\"\n+status: done\n"), "{diff}");
    assert_eq!(s.read("Notes/Properties.md"), before, "a dry run wrote");

    let done = s
        .ok(
            "obsidian_update_properties",
            json!({"filePath": "Notes/Properties.md", "properties": {"status": "done", "tags": ["BETA", "gamma"], "reviewed": true, "rating": 3}}),
        )
        .await;
    let expected = before
        .replace("status: \"draft\"\n", "status: done\n")
        .replace("tags: [alpha, \"beta\"]", "tags: [alpha, \"beta\", gamma]")
        .replace("nested: {a: 1, b: [x, y]}\n", "nested: {a: 1, b: [x, y]}\nreviewed: true\n");
    assert_eq!(s.read("Notes/Properties.md"), expected);
    let actions: Vec<&str> =
        done["changes"].as_array().unwrap().iter().map(|c| c["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["set", "merged", "added", "unchanged"]);
    assert_eq!(done["properties"]["tags"], json!(["alpha", "beta", "gamma"]));

    s.ok("obsidian_update_properties", json!({"path": "Notes/Properties.md", "properties": {"aliases": ["Only"], "reviewed": null}, "replace": true})).await;
    let replaced = s.read("Notes/Properties.md");
    assert_eq!(
        replaced,
        expected
            .replace("aliases:\n  - Props\n  - 'Die Eigenschaften'\n", "aliases:\n  - Only\n")
            .replace("reviewed: true\n", "")
    );

    s.ok(
        "obsidian_update_properties",
        json!({"filepath": "Projects/Meeting.md", "properties": {"kind": "meeting"}}),
    )
    .await;
    assert!(s.read("Projects/Meeting.md").starts_with("---\nkind: meeting\n---\n# Meeting\n"));
    let crlf = s.read("Notes/Tags CRLF.md");
    s.ok(
        "obsidian_update_properties",
        json!({"filepath": "Notes/Tags CRLF.md", "properties": {"status": "open"}}),
    )
    .await;
    assert_eq!(
        s.read("Notes/Tags CRLF.md"),
        crlf.replace("  - todo\r\n---", "  - todo\r\nstatus: open\r\n---")
    );

    let err = s
        .err(
            "obsidian_update_properties",
            json!({"filepath": "References/Broken frontmatter.md", "properties": {"a": 1}}),
        )
        .await;
    assert!(err.contains("fix it by hand"), "{err}");
    assert!(
        s.err("obsidian_update_properties", json!({"filepath": "Nope.md", "properties": {"a": 1}}))
            .await
            .contains("no note or file named")
    );
    assert!(
        s.err("obsidian_update_properties", json!({"filepath": "Notes/Spaced.md", "properties": {}}))
            .await
            .contains("empty")
    );
}

#[tokio::test]
async fn tags_are_listed_added_and_removed_outside_code_and_links() {
    let s = start().await;
    let note = "Notes/Tags CRLF.md";
    let before = s.read(note);
    let listed = s.ok("obsidian_manage_tags", json!({"filePath": note, "operation": "list"})).await;
    let project = listed["tags"].as_array().unwrap().iter().find(|t| t["name"] == "project").unwrap().clone();
    assert_eq!((project["frontmatter"].clone(), project["lines"].clone()), (json!(true), json!([8])));
    assert_eq!(listed["currentTags"], json!(["project", "todo", "project/sub"]));

    let added = s
        .ok(
            "obsidian_manage_tags",
            json!({"filePath": note, "operation": "add", "tags": ["#Todo", "area/research"]}),
        )
        .await;
    assert_eq!(
        (added["changed"].clone(), added["unchanged"].clone()),
        (json!(["area/research"]), json!(["Todo"]))
    );
    let with_new = before.replace("  - todo\r\n---", "  - todo\r\n  - area/research\r\n---");
    assert_eq!(s.read(note), with_new);

    let dry = s
        .ok(
            "obsidian_manage_tags",
            json!({"filePath": note, "operation": "remove", "tags": ["project", "todo"], "dryRun": true}),
        )
        .await;
    assert!(dry["diff"].as_str().unwrap().contains("-Work on #project today."), "{dry}");
    assert_eq!(s.read(note), with_new);

    let removed = s
        .ok(
            "obsidian_manage_tags",
            json!({"filePath": note, "operation": "remove", "tags": ["project", "todo"]}),
        )
        .await;
    assert_eq!(removed["inline_removed"], 2);
    let expected = with_new
        .replace("  - project   # main\r\n  - todo\r\n", "")
        .replace("Work on #project today.\r\n#todo\r\n", "Work on today.\r\n");
    assert_eq!(s.read(note), expected);
    for kept in [
        "#project in code",
        "[[Meeting#project]]",
        "https://e.x/#project",
        "`#todo`",
        "%% #project in a comment %%",
        "#project/sub",
    ] {
        assert!(s.read(note).contains(kept), "{kept} was touched");
    }
    assert_eq!(removed["currentTags"], json!(["area/research", "project/sub"]));

    s.ok("obsidian_manage_tags", json!({"path": "Notes/Spaced.md", "operation": "add", "tags": ["three"]}))
        .await;
    assert_eq!(s.read("Notes/Spaced.md"), "---\ntags: one two three\n---\nSpace-separated tags.\n");
    s.ok("obsidian_manage_tags", json!({"path": "Notes/Spaced.md", "operation": "remove", "tags": ["two"]}))
        .await;
    assert_eq!(s.read("Notes/Spaced.md"), "---\ntags: one three\n---\nSpace-separated tags.\n");
    let err = s
        .err("obsidian_manage_tags", json!({"filePath": note, "operation": "add", "tags": ["two words"]}))
        .await;
    assert!(err.contains("cannot contain"), "{err}");
    assert!(
        s.err("obsidian_manage_tags", json!({"filePath": note, "operation": "add"}))
            .await
            .contains("tags is empty")
    );
}

#[tokio::test]
async fn periodic_notes_follow_the_plugin_settings() {
    let s = start().await;
    let daily = s.ok("obsidian_get_periodic_note", json!({"period": "daily", "date": "2024-01-10"})).await;
    assert_eq!(daily["path"], "Journal/2024/01/10-Wednesday.md");
    assert_eq!(daily["content"], "# Wednesday\n\n- a day\n");
    let weekly = s
        .ok("obsidian_get_periodic_note", json!({"period": "weekly", "date": "2024-01-12", "format": "json"}))
        .await;
    assert_eq!(
        (weekly["path"].as_str(), weekly["start"].as_str(), weekly["end"].as_str()),
        (Some("Periodic/Weekly/2024-W02.md"), Some("2024-01-07"), Some("2024-01-13"))
    );
    assert_eq!(weekly["frontmatter"]["type"], "weekly");
    assert!(weekly["stat"]["size"].as_u64().unwrap() > 0);
    let err = s.err("obsidian_get_periodic_note", json!({"period": "monthly", "date": "2024-02-03"})).await;
    assert!(err.contains("Periodic/2024-02.md") && err.contains("periodic-notes"), "{err}");
    assert!(
        s.err("obsidian_get_periodic_note", json!({"period": "daily", "date": "10.01.2024"}))
            .await
            .contains("YYYY-MM-DD")
    );

    // A new daily note starts from its template, filled as the Daily notes plugin fills it.
    s.ok("daily_note_append", json!({"content": "- new", "year": 2024, "month": 3, "day": 1})).await;
    assert_eq!(
        s.read("Journal/2024/03/01-Friday.md"),
        "---\ncreated: 2024-03-01\n---\n# 2024/03/01-Friday\n\n[[2024/02/29-Thursday]] | [[2024/03/02-Saturday]] | {{templater}}\n- new\n"
    );

    let dry = s
        .ok(
            "obsidian_delete_periodic_note",
            json!({"period": "weekly", "date": "2024-01-08", "dryRun": true}),
        )
        .await;
    assert_eq!(dry["would_delete"], true);
    let err = s.err("obsidian_delete_periodic_note", json!({"period": "weekly", "date": "2024-01-08"})).await;
    assert!(err.contains("confirm: true"), "{err}");
    assert!(s.exists("Periodic/Weekly/2024-W02.md"));
    let gone = s
        .ok(
            "obsidian_delete_periodic_note",
            json!({"period": "weekly", "date": "2024-01-08", "confirm": true}),
        )
        .await;
    let trashed = gone["trashed_to"].as_str().unwrap();
    assert!(trashed.starts_with(".trash/2024-W02"), "{trashed}");
    assert!(!s.exists("Periodic/Weekly/2024-W02.md") && s.read(trashed).contains("planned things"));
    assert!(
        s.err(
            "obsidian_delete_periodic_note",
            json!({"period": "weekly", "date": "2024-01-08", "confirm": true})
        )
        .await
        .contains("no weekly note")
    );
}

#[tokio::test]
async fn status_reports_the_server_honestly() {
    let s = start().await;
    std::fs::write(s.vault.path().join(".obsidian/workspace.json"), "{}").unwrap();
    let status = s.ok("obsidian_check_status", json!({})).await;
    assert_eq!(status["service"], "scholia");
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
    assert!(status["vault"]["notes"].as_u64().unwrap() >= 15);
    assert_eq!(status["read_only"], false);
    assert_eq!(status["confirm"], "destructive");
    assert_eq!(status["transport"], "stdio");
    assert!(["building", "ready"].contains(&status["index"]["state"].as_str().unwrap()), "{status}");
    assert_eq!(status["toolsets"].as_array().unwrap().len(), 7);
    let evidence = status["obsidian"]["evidence"].as_array().unwrap();
    assert!(evidence[0].as_str().unwrap().contains("workspace.json was modified"), "{evidence:?}");
    assert!(["yes", "probably", "probably not"].contains(&status["obsidian"]["running"].as_str().unwrap()));
    s.ok("search_vault", json!({"query": "unicode"})).await;
    s.ok("read_note", json!({"note": "Linker"})).await;
    let mut later = s.ok("obsidian_check_status", json!({})).await;
    for _ in 0..500 {
        if later["index"]["state"] == "ready" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        later = s.ok("obsidian_check_status", json!({})).await;
    }
    assert_eq!(later["index"]["state"], "ready");
    assert_eq!(later["index"]["complete"], true);
    assert_eq!(later["index"]["notes"], later["vault"]["notes"]);
}

#[tokio::test]
async fn notes_are_read_by_name_alias_wikilink_or_path() {
    let s = start().await;
    let by_name = s.ok("read_note", json!({"note": "ünïcödé nöté"})).await;
    assert_eq!(by_name["path"], "Café/Ünïcödé Nöté.md");
    assert_eq!(by_name["title"], "Ünïcödé Nöté");
    assert_eq!(
        (by_name["created"].as_str(), by_name["created_from"].as_str()),
        (Some("2023-05-01"), Some("frontmatter"))
    );
    assert_eq!(by_name["aliases"], json!(["Umlaut"]));
    let sources: Vec<&str> =
        by_name["backlinks"].as_array().unwrap().iter().map(|b| b["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["Notes/Linker.md", "Notes/Linker.md"]);
    for name in
        ["Umlaut", "[[Umlaut|the umlaut note]]", "![[Ünïcödé Nöté#Ünïcödé Nöté]]", "Café/Ünïcödé Nöté"]
    {
        assert_eq!(s.ok("read_note", json!({"note": name})).await["path"], "Café/Ünïcödé Nöté.md", "{name}");
    }
    let crlf = s.ok("read_note", json!({"name": "tags crlf"})).await;
    assert!(crlf["content"].as_str().unwrap().starts_with("\u{feff}---\r\n"));
    assert_eq!(crlf["created_from"], "file");
    let err = s.err("read_note", json!({"note": "Notes"})).await;
    assert!(err.contains("A/Notes.md") && err.contains("B/Notes.md") && err.contains("2 files"), "{err}");
    let err = s.err("read_note", json!({"note": "Linke"})).await;
    assert!(err.contains("Notes/Linker.md") && err.contains("did you mean"), "{err}");
}

#[tokio::test]
async fn notes_are_updated_with_history_and_dry_runs() {
    let s = start().await;
    let before = s.read("Notes/Properties.md");
    s.ok("update_note", json!({"note": "Props", "content": "Appended line.", "mode": "append"})).await;
    assert_eq!(s.read("Notes/Properties.md"), format!("{before}Appended line.\n"));

    let dry = s
        .ok("update_note", json!({"note": "[[Properties]]", "content": "New body.\n", "dryRun": true}))
        .await;
    assert!(dry["diff"].as_str().unwrap().contains("+New body."), "{dry}");
    assert!(s.read("Notes/Properties.md").contains("Appended line."));
    let err = s.err("update_note", json!({"note": "Properties", "content": "New body.\n"})).await;
    assert!(err.contains("confirm: true"), "{err}");
    let done = s.ok("update_note", json!({"note": "Properties", "content": "New body.\n", "frontmatter": {"status": "final"}, "confirm": true})).await;
    let now = s.read("Notes/Properties.md");
    assert!(
        now.starts_with(
            "---\n# Status is set by hand.\ntitle: 'Odd: quoting'   # keep this comment\nstatus: final\n"
        ),
        "{now}"
    );
    assert!(now.ends_with("---\nNew body.\n"), "{now}");
    let previous = done["previous_version"].as_str().unwrap();
    assert!(s.read(previous).contains("Appended line."));

    s.ok("update_note", json!({"note": "Tags CRLF", "content": "Top line\n", "mode": "prepend"})).await;
    assert!(s.read("Notes/Tags CRLF.md").contains("\r\n---\r\nTop line\r\n# Tasks\r\n"));
    let same = s.ok("update_note", json!({"note": "Spaced", "frontmatter": {"tags": ["one"]}})).await;
    assert_eq!(same["changed"], false);
    assert!(s.err("update_note", json!({"note": "Spaced"})).await.contains("nothing to change"));
}

#[tokio::test]
async fn deleting_a_note_warns_of_links_into_it() {
    let s = start().await;
    let dry = s.ok("delete_note", json!({"note": "Umlaut", "dryRun": true})).await;
    assert_eq!(dry["linking_notes"], 1);
    assert!(dry["warning"].as_str().unwrap().contains("Notes/Linker.md"), "{dry}");
    assert!(s.exists("Café/Ünïcödé Nöté.md"));
    let err = s.err("delete_note", json!({"note": "Umlaut"})).await;
    assert!(err.contains("Notes/Linker.md") && err.contains("confirm: true"), "{err}");
    let gone = s.ok("delete_note", json!({"note": "Umlaut", "confirm": true})).await;
    assert!(!s.exists("Café/Ünïcödé Nöté.md"));
    assert!(s.read(gone["trashed_to"].as_str().unwrap()).contains("Unicode name"));
    assert!(s.err("read_note", json!({"note": "Umlaut"})).await.contains("no note or file named"));
    let lonely = s.ok("delete_note", json!({"note": "Notes/Spaced.md", "confirm": true})).await;
    assert_eq!(lonely["warning"], Value::Null);
}

#[tokio::test]
async fn notes_are_listed_with_titles_previews_and_pages() {
    let s = start().await;
    let first = s.ok("list_notes", json!({"folder": "Notes", "limit": 2})).await;
    assert_eq!(first["total"], 4);
    let notes = first["notes"].as_array().unwrap();
    assert_eq!(notes[0]["path"], "Notes/Linker.md");
    assert_eq!(notes[0]["title"], "Linker");
    assert!(notes[0]["preview"].as_str().unwrap().starts_with("See [[Ünïcödé Nöté]]"), "{notes:?}");
    assert_eq!(notes[1]["title"], "Odd: quoting");
    assert_eq!(first["truncated"], true);
    let second = s.ok("list_notes", first["next"].clone()).await;
    let paths: Vec<&str> =
        second["notes"].as_array().unwrap().iter().map(|n| n["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["Notes/Spaced.md", "Notes/Tags CRLF.md"]);
    assert!(second.get("next").is_none());
    let top = s.ok("list_notes", json!({"folder": "Projects", "recursive": false})).await;
    assert_eq!(top["notes"].as_array().unwrap().len(), 2, "Projects/Alpha.md and Projects/Meeting.md");
    assert!(s.err("list_notes", json!({"folder": "Nowhere"})).await.contains("does not exist"));
}

#[tokio::test]
async fn toolsets_narrow_the_tools_and_read_only_applies_after() {
    let s = start_with(&[Toolset::Metadata, Toolset::Periodic], false).await;
    let mut names = s.tool_names().await;
    names.sort();
    let mut expected: Vec<String> = scholia::mcp::tool_facts()
        .into_iter()
        .filter(|f| matches!(f.toolset, Toolset::Metadata | Toolset::Periodic))
        .map(|f| f.name)
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    let refused = s
        .client
        .call_tool(
            CallToolRequestParams::new("search_vault")
                .with_arguments(json!({"query": "x"}).as_object().unwrap().clone()),
        )
        .await;
    assert!(refused.is_err() || refused.unwrap().is_error == Some(true));

    let ro = start_with(&[Toolset::Metadata], true).await;
    let mut names = ro.tool_names().await;
    names.sort();
    assert_eq!(names, ["obsidian_check_status", "obsidian_get_properties", "obsidian_get_tags"]);
    let status = ro.ok("obsidian_check_status", json!({})).await;
    assert_eq!(
        (status["read_only"].clone(), status["toolsets"].clone(), status["tools"].clone()),
        (json!(true), json!(["metadata"]), json!(3))
    );
}

#[test]
fn unknown_toolsets_stop_the_server_with_the_valid_names() {
    let vault = vault();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scholia"))
        .args(["mcp", "--vault"])
        .arg(vault.path())
        .args(["--toolsets", "notes,bogus"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bogus"), "{err}");
    for set in ["annotations", "notes", "edit", "metadata", "periodic", "search", "graph"] {
        assert!(err.contains(set), "{set} missing from: {err}");
    }
}

#[tokio::test]
async fn every_writing_tool_has_a_dry_run_that_writes_nothing() {
    let s = start().await;
    let tools = s.client.list_all_tools().await.unwrap();
    let facts = scholia::mcp::tool_facts();
    for tool in tools.iter().filter(|t| facts.iter().any(|f| f.writes && f.name == t.name)) {
        let schema = serde_json::to_string(&tool.input_schema).unwrap();
        assert!(schema.contains("\"dryRun\""), "{} has no dryRun", tool.name);
    }
    let before = crate::check::snapshot(s.vault.path());
    let calls = [
        ("obsidian_write_note", json!({"path": "Projects/Meeting.md", "content": "new", "overwrite": true})),
        (
            "obsidian_manage_frontmatter",
            json!({"filePath": "Projects/Meeting.md", "operation": "set", "key": "k", "value": 1}),
        ),
        ("create_note", json!({"path": "Inbox/New.md", "content": "hello"})),
        ("append_to_note", json!({"path": "Projects/Meeting.md", "content": "more"})),
        (
            "patch_note",
            json!({"path": "Projects/Meeting.md", "operation": "append", "targetType": "heading", "target": "Meeting", "content": "x"}),
        ),
        ("daily_note_append", json!({"content": "- x", "year": 2024, "month": 3, "day": 1})),
        ("obsidian_summarize", json!({"citekey": "smith2023", "date": "2024-06-01"})),
        ("obsidian_synthesize", json!({"citekeys": ["smith2023", "2019first-key"], "date": "2024-06-01"})),
        ("obsidian_update_properties", json!({"filepath": "Notes/Spaced.md", "properties": {"a": 1}})),
        (
            "obsidian_manage_tags",
            json!({"filePath": "Notes/Spaced.md", "operation": "remove", "tags": ["one"]}),
        ),
        ("obsidian_delete_periodic_note", json!({"period": "daily", "date": "2024-01-10"})),
        ("update_note", json!({"note": "Linker", "content": "gone"})),
        ("delete_note", json!({"note": "Linker"})),
    ];
    for (tool, mut args) in calls {
        args["dryRun"] = json!(true);
        let answer = s.ok(tool, args).await;
        assert_eq!(answer["dry_run"], true, "{tool}: {answer}");
        assert_eq!(crate::check::snapshot(s.vault.path()), before, "{tool} wrote in a dry run");
    }
    let daily = s
        .ok(
            "daily_note_append",
            json!({"content": "- x", "year": 2024, "month": 3, "day": 1, "dryRun": true}),
        )
        .await;
    assert!(daily["diff"].as_str().unwrap().contains("+# 2024/03/01-Friday\n"), "{daily}");
    let summary = s.ok("obsidian_summarize", json!({"citekey": "smith2023", "dryRun": true})).await;
    assert!(summary["path"].as_str().unwrap().starts_with("Synthesis/Summary - "));
    assert!(summary["content"].as_str().unwrap().contains("type: summary"));
}
