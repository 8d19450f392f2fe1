//! The MCP server in process: an rmcp client talks to `Scholia` over `tokio::io::duplex`, against a
//! copy of the example vault. Every tool, and the error paths an agent will hit.

use std::path::Path;

use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use scholia::mcp::{ConfirmPolicy, Scholia, Settings};
use serde_json::{Value, json};

use crate::mcp_client::{Approver, Tools};

/// Serves `vault` in process; returns the client's end of the connection.
fn serve(vault: &Path, annotations_folder: Option<&str>, read_only: bool) -> tokio::io::DuplexStream {
    let config = crate::mcp_client::config(vault, annotations_folder);
    let server =
        Scholia::new(Settings { read_only, confirm: ConfirmPolicy::Destructive, ..Settings::new(config) })
            .unwrap();
    crate::mcp_client::serve(server)
}

struct Session {
    client: RunningService<RoleClient, ()>,
    vault: tempfile::TempDir,
}

async fn start(read_only: bool) -> Session {
    let vault = crate::mcp_client::example_vault();
    let client_io = serve(vault.path(), Some("References"), read_only);
    Session { client: ().serve(client_io).await.unwrap(), vault }
}

impl Session {
    /// The structured answer of a call that must succeed.
    async fn ok(&self, tool: &str, args: Value) -> Value {
        self.client.ok(tool, args).await
    }

    /// The message of a call that must fail as a tool error.
    async fn err(&self, tool: &str, args: Value) -> String {
        self.client.err(tool, args).await
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.vault.path().join(path)).unwrap()
    }
}

#[tokio::test]
async fn lists_every_tool_with_schemas_and_annotations() {
    let s = start(false).await;
    let tools = s.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "obsidian_read_annotations",
        "obsidian_write_note",
        "obsidian_list_annotation_files",
        "obsidian_search",
        "search_vault",
        "get_note_metadata",
        "get_note_content",
        "create_note",
        "append_to_note",
        "patch_note",
        "daily_note_append",
        "obsidian_summarize",
        "obsidian_synthesize",
    ] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    for tool in &tools {
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 40), "{} lacks a description", tool.name);
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.open_world_hint, Some(false));
        assert!(annotations.read_only_hint.is_some() && annotations.destructive_hint.is_some());
        let props =
            tool.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (field, schema) in props {
            let described = schema.get("description").and_then(Value::as_str).is_some_and(|d| d.len() > 10);
            assert!(described, "{}.{field} has no description", tool.name);
        }
    }
}

#[tokio::test]
async fn reads_annotations_by_citekey_and_colour() {
    let s = start(false).await;
    let doc = s.ok("obsidian_read_annotations", json!({"citekey": "moreau2024ragsurvey"})).await;
    assert_eq!(doc["path"], "References/@moreau2024ragsurvey.md");
    assert!(doc["file_path"].as_str().unwrap().ends_with("References/@moreau2024ragsurvey.md"));
    assert_eq!(doc["annotations"].as_array().unwrap().len(), 11);
    let positive = s
        .ok("obsidian_read_annotations", json!({"citekey": "moreau2024ragsurvey", "colors": ["positive"]}))
        .await;
    let colors: Vec<&str> =
        positive["annotations"].as_array().unwrap().iter().map(|a| a["color"].as_str().unwrap()).collect();
    assert_eq!(colors, ["positive", "positive"]);
    let by_hex = s
        .ok("obsidian_read_annotations", json!({"citekey": "moreau2024ragsurvey", "colors": ["#FFD400"]}))
        .await;
    assert_eq!(by_hex["annotations"].as_array().unwrap().len(), 2);
    // Zotero's colour names, as the colour table names them: green is positive.
    let by_name = s
        .ok("obsidian_read_annotations", json!({"citekey": "moreau2024ragsurvey", "colors": ["Green"]}))
        .await;
    assert_eq!(by_name["annotations"], positive["annotations"]);
    let err = s
        .err("obsidian_read_annotations", json!({"citekey": "moreau2024ragsurvey", "colors": ["mauve"]}))
        .await;
    assert!(err.contains("unknown colour \"mauve\"") && err.contains("Zotero colour name"), "{err}");
    let err = s.err("obsidian_read_annotations", json!({"citekey": "nobody1999"})).await;
    assert!(err.contains("obsidian_list_annotation_files"), "{err}");
}

#[tokio::test]
async fn two_notes_with_one_citekey_are_each_read_by_path() {
    let s = start(false).await;
    // A titled copy of a paper's note carries the same citekey as `@moreau2024ragsurvey.md`.
    let copy = s.read("References/@moreau2024ragsurvey.md");
    std::fs::write(s.vault.path().join("References/Retrieval survey (copy).md"), &copy).unwrap();
    let listed = s.ok("obsidian_list_annotation_files", json!({})).await;
    assert_eq!(listed["shared_citekeys"], json!(["moreau2024ragsurvey"]), "{listed}");
    for path in ["References/@moreau2024ragsurvey.md", "References/Retrieval survey (copy).md"] {
        let doc = s.ok("obsidian_read_annotations", json!({"path": path})).await;
        assert_eq!(doc["path"], path);
        assert_eq!(doc["annotations"].as_array().unwrap().len(), 11);
    }
    let err = s.err("obsidian_read_annotations", json!({})).await;
    assert!(err.contains("citekey or a path"), "{err}");
    // A paper's annotation note known by its name `@solo2020.md`, and a reading note that only
    // carries `citekey: solo2020`: the citekey reads the annotations.
    let annotations: String =
        copy.lines().filter(|l| !l.starts_with("citekey:")).collect::<Vec<_>>().join("\n");
    std::fs::write(s.vault.path().join("References/@solo2020.md"), annotations).unwrap();
    std::fs::write(
        s.vault.path().join("Reading solo.md"),
        "---\ncitekey: solo2020\n---\nMy reading notes.\n",
    )
    .unwrap();
    let doc = s.ok("obsidian_read_annotations", json!({"citekey": "solo2020", "folder": ""})).await;
    assert_eq!(doc["path"], "References/@solo2020.md", "{doc}");
    assert_eq!(doc["annotations"].as_array().unwrap().len(), 11);
}

#[tokio::test]
async fn lists_annotation_files_by_tag() {
    let s = start(false).await;
    let all = s.ok("obsidian_list_annotation_files", json!({})).await;
    assert_eq!(all["count"], 12);
    let tagged = s.ok("obsidian_list_annotation_files", json!({"tags": ["spaced-repetition"]})).await;
    let keys: Vec<&str> =
        tagged["files"].as_array().unwrap().iter().map(|f| f["citekey"].as_str().unwrap()).collect();
    assert_eq!(keys.len(), 4, "{keys:?}");
    assert!(tagged["files"][0]["title"].is_string() && tagged["files"][0]["tags"].is_array());
    let err = s.err("obsidian_list_annotation_files", json!({"folder": "Nowhere"})).await;
    assert!(err.contains("does not exist"), "{err}");
}

#[tokio::test]
async fn literal_search_returns_every_match_with_lines() {
    let s = start(false).await;
    let found = s.ok("obsidian_search", json!({"query": "exact match", "folder": "References"})).await;
    let results = found["results"].as_array().unwrap();
    assert!(results.len() >= 2);
    for file in results {
        for m in file["matches"].as_array().unwrap() {
            assert!(m["line"].as_u64().unwrap() > 0);
            assert!(m["context"].as_str().unwrap().to_lowercase().contains("exact match"));
        }
    }
    assert!(s.err("obsidian_search", json!({"query": "  "})).await.contains("empty"));
}

#[tokio::test]
async fn huge_answers_are_cut_with_the_next_call() {
    let s = start(false).await;
    let line = "needle in a haystack of words ".repeat(8);
    for i in 0..60 {
        std::fs::write(s.vault.path().join(format!("Projects/big{i}.md")), format!("{line}\n").repeat(40))
            .unwrap();
    }
    // The index sees the new files when the file watcher reports them: asked until it has.
    let mut first = s.ok("obsidian_search", json!({"query": "needle"})).await;
    for _ in 0..100 {
        if first["truncated"] == true {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        first = s.ok("obsidian_search", json!({"query": "needle"})).await;
    }
    assert_eq!(first["truncated"], true);
    let next = first["next"].clone();
    assert!(serde_json::to_string(&first).unwrap().len() <= 21 * 1024);
    let second = s.ok("obsidian_search", next).await;
    assert_ne!(first["results"][0]["path"], second["results"][0]["path"]);
}

#[tokio::test]
async fn ranked_search_puts_the_right_note_first() {
    let s = start(false).await;
    let found =
        s.ok("search_vault", json!({"query": "seed variance leaderboards", "contextLength": 60})).await;
    let results = found["results"].as_array().unwrap();
    assert_eq!(results[0]["path"], "References/@weber2022seeds.md");
    assert!(results.len() <= 10);
    assert!(results[0]["snippet"].as_str().unwrap().chars().count() <= 62);
    let none = s.ok("search_vault", json!({"query": "zyxwvut"})).await;
    assert_eq!(none["results"].as_array().unwrap().len(), 0);
    assert!(none["message"].as_str().unwrap().contains("no note matches"));
}

#[tokio::test]
async fn note_metadata_and_content() {
    let s = start(false).await;
    let meta = s.ok("get_note_metadata", json!({"path": "Projects/Literature review"})).await;
    assert!(meta.get("content").is_none());
    assert_eq!(meta["tags"], json!(["project", "todo"]));
    assert!(meta["size"].as_u64().unwrap() > 100 && meta["mtime"].as_i64().unwrap() > 0);
    assert!(meta["links"].as_array().unwrap().iter().any(|l| l == "@kim2020spacing"));
    let content = s.ok("get_note_content", json!({"path": "Projects/Literature review.md"})).await;
    assert!(content["content"].as_str().unwrap().starts_with("---\ntags: project"));
    assert_eq!(content["frontmatter"]["tags"], "project");
    let part = s
        .ok("get_note_content", json!({"path": "Projects/Literature review.md", "offset": 10, "length": 20}))
        .await;
    assert_eq!(part["truncated"], true);
    assert_eq!(part["next"]["offset"], 30);
    let err = s.err("get_note_content", json!({"path": "Nope.md"})).await;
    assert!(err.contains("search_vault"), "{err}");
}

#[tokio::test]
async fn writes_stay_inside_the_vault() {
    let s = start(false).await;
    for bad in ["../outside.md", "/etc/passwd", "C:\\x.md", "a/../../b.md", "x\0y.md"] {
        let err = s.err("create_note", json!({"path": bad, "content": "x"})).await;
        assert!(err.contains("invalid path"), "{bad}: {err}");
    }
    let err = s.err("create_note", json!({"path": ".obsidian/evil.md", "content": "x"})).await;
    assert!(err.contains("protected"), "{err}");
    assert!(!s.vault.path().parent().unwrap().join("outside.md").exists());
}

#[tokio::test]
async fn creates_appends_and_patches_notes() {
    let s = start(false).await;
    let created = s
        .ok("create_note", json!({"path": "Inbox/Deep/Idea", "content": "# Idea\n\n## Notes\n", "frontmatter": {"status": "new", "tags": ["idea"]}}))
        .await;
    assert_eq!(created["path"], "Inbox/Deep/Idea.md");
    assert_eq!(created["wikilink"], "[[Idea]]");
    assert_eq!(s.read("Inbox/Deep/Idea.md"), "---\nstatus: new\ntags:\n  - idea\n---\n# Idea\n\n## Notes\n");
    let err = s.err("create_note", json!({"path": "Inbox/Deep/Idea.md", "content": "again"})).await;
    assert!(err.contains("append_to_note") && err.contains("patch_note"), "{err}");

    s.ok("append_to_note", json!({"path": "Inbox/Deep/Idea.md", "content": "Closing line."})).await;
    assert!(s.read("Inbox/Deep/Idea.md").ends_with("## Notes\nClosing line.\n"));
    let fresh = s.ok("append_to_note", json!({"path": "Inbox/New.md", "content": "first"})).await;
    assert_eq!(fresh["created"], true);

    s.ok("patch_note", json!({"path": "Inbox/Deep/Idea.md", "operation": "append", "targetType": "heading", "target": "Idea::Notes", "content": "- under notes"})).await;
    s.ok("patch_note", json!({"path": "Inbox/Deep/Idea.md", "operation": "replace", "targetType": "frontmatter", "target": "status", "content": "done"})).await;
    let text = s.read("Inbox/Deep/Idea.md");
    assert!(
        text.contains("status: done\n") && text.contains("## Notes\nClosing line.\n- under notes\n"),
        "{text}"
    );
    let err = s.err("patch_note", json!({"path": "Inbox/Deep/Idea.md", "operation": "append", "targetType": "heading", "target": "Missing", "content": "x"})).await;
    assert!(err.contains("Idea::Notes"), "{err}");
}

#[tokio::test]
async fn overwriting_needs_overwrite_and_confirmation_and_keeps_the_old_version() {
    let s = start(false).await;
    let first = s
        .ok(
            "obsidian_write_note",
            json!({"path": "Synthesis/review.md", "content": "v1", "frontmatter": {"type": "synthesis"}}),
        )
        .await;
    assert!(first["file_path"].as_str().unwrap().ends_with("Synthesis/review.md"));
    assert_eq!(s.read("Synthesis/review.md"), "---\ntype: synthesis\n---\nv1");
    let err = s.err("obsidian_write_note", json!({"path": "Synthesis/review.md", "content": "v2"})).await;
    assert!(err.contains("overwrite: true"), "{err}");
    let err = s
        .err(
            "obsidian_write_note",
            json!({"path": "Synthesis/review.md", "content": "v2", "overwrite": true}),
        )
        .await;
    assert!(err.contains("confirm: true"), "{err}");
    let done = s
        .ok(
            "obsidian_write_note",
            json!({"path": "Synthesis/review.md", "content": "v2", "overwrite": true, "confirm": true}),
        )
        .await;
    assert_eq!(s.read("Synthesis/review.md"), "v2");
    let previous = done["previous_version"].as_str().unwrap();
    assert!(previous.starts_with(".trash/review "), "{previous}");
    assert_eq!(s.read(previous), "---\ntype: synthesis\n---\nv1");
}

#[tokio::test]
async fn daily_notes_follow_the_vault_settings() {
    let s = start(false).await;
    let done =
        s.ok("daily_note_append", json!({"content": "- met Ana", "year": 2024, "month": 6, "day": 12})).await;
    assert_eq!(done["path"], "Daily/2024-06-12.md");
    assert_eq!(done["created"], false);
    assert!(s.read("Daily/2024-06-12.md").ends_with("#idea\n- met Ana\n"));
    let fresh = s.ok("daily_note_append", json!({"content": "x", "year": 2025, "month": 1, "day": 2})).await;
    assert_eq!(
        (fresh["path"].as_str(), fresh["created"].as_bool()),
        (Some("Daily/2025-01-02.md"), Some(true))
    );
    assert!(
        s.err("daily_note_append", json!({"content": "x", "year": 2025, "month": 2, "day": 30}))
            .await
            .contains("date")
    );
}

#[tokio::test]
async fn summarize_and_synthesize_write_notes() {
    let s = start(false).await;
    let summary =
        s.ok("obsidian_summarize", json!({"citekey": "weber2022seeds", "date": "2024-06-01"})).await;
    assert_eq!(summary["path"], "Synthesis/Summary - Random Seeds Decide Leaderboards.md");
    assert!(summary["sections"].as_array().unwrap().iter().any(|s| s == "Evaluation"));
    assert_eq!(
        (summary["palette"].as_str(), summary["warnings"].as_array().map(Vec::len)),
        (Some("seed 001 (its template)"), Some(0))
    );
    assert!(summary["annotations"].as_u64().unwrap() >= 3, "{summary}");
    assert!(s.read("Synthesis/Summary - Random Seeds Decide Leaderboards.md").contains("type: summary"));
    let synthesis = s
        .ok("obsidian_synthesize", json!({"citekeys": ["weber2022seeds", "pineda2021checklist"], "paths": ["References/@adeyemi2023artifacts.md"], "date": "2024-06-01"}))
        .await;
    let path = synthesis["path"].as_str().unwrap();
    assert!(path.starts_with("Synthesis/Synthesis - ") && path.ends_with(" - 2024-06-01.md"), "{path}");
    assert!(s.read(path).contains("## Contradictions & Gaps"));
    assert_eq!(synthesis["warnings"], json!([]), "{synthesis}");
    assert!(s.err("obsidian_synthesize", json!({})).await.contains("citekeys or paths"));
}

#[tokio::test]
async fn read_only_mode_hides_and_refuses_writes() {
    let s = start(true).await;
    let tools = s.client.list_all_tools().await.unwrap();
    let facts = scholia::mcp::tool_facts();
    assert!(facts.iter().any(|f| f.writes));
    assert!(tools.iter().all(|t| !facts.iter().any(|f| f.writes && f.name == t.name)));
    assert!(tools.iter().any(|t| t.name == "search_vault"));
    let refused = s
        .client
        .call_tool(
            CallToolRequestParams::new("create_note")
                .with_arguments(json!({"path": "x.md"}).as_object().unwrap().clone()),
        )
        .await;
    assert!(refused.is_err() || refused.unwrap().is_error == Some(true));
    assert!(!s.vault.path().join("x.md").exists());
}

#[tokio::test]
async fn prompts_resources_and_completions() {
    let s = start(false).await;
    let prompts = s.client.list_prompts(None).await.unwrap();
    let names: Vec<&str> = prompts.prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"summarize") && names.contains(&"synthesize"));
    let prompt = s
        .client
        .get_prompt(
            GetPromptRequestParams::new("summarize")
                .with_arguments(json!({"citekey": "kim2020spacing"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(text.contains("obsidian_read_annotations") && text.contains("kim2020spacing"));
    let completion = s.client.complete_prompt_simple("summarize", "citekey", "ha").await.unwrap();
    assert_eq!(completion, ["haddad2022adaptive"]);
    let request = rmcp::model::CompleteRequestParams::new(
        rmcp::model::Reference::Resource(rmcp::model::ResourceTemplateReference::new(
            "scholia://note/{path}",
        )),
        rmcp::model::ArgumentInfo::new("path", "lit"),
    );
    let notes = s.client.complete(request).await.unwrap();
    assert_eq!(notes.completion.values, ["Projects/Literature review.md"]);
    let resources = s.client.list_all_resources().await.unwrap();
    assert!(resources.len() >= 14);
    let uri = resources.iter().find(|r| r.uri.contains("kim2020spacing")).unwrap().uri.clone();
    let read = s.client.read_resource(ReadResourceRequestParams::new(uri)).await.unwrap();
    assert!(serde_json::to_string(&read).unwrap().contains("Spacing Effects"));
    assert!(
        s.client
            .read_resource(ReadResourceRequestParams::new("scholia://note/../../etc/passwd"))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn the_stateless_2026_revision_works_without_initialize() {
    use rmcp::{ClientLifecycleMode, ClientServiceExt, model::ProtocolVersion};
    let vault = crate::mcp_client::example_vault();
    let client_io = serve(vault.path(), None, false);
    let client = ()
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        )
        .await
        .unwrap();
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    let args = json!({"citekey": "kim2020spacing"}).as_object().unwrap().clone();
    let result = client
        .call_tool(CallToolRequestParams::new("obsidian_read_annotations").with_arguments(args))
        .await
        .unwrap();
    assert_eq!(result.structured_content.unwrap()["annotations"].as_array().unwrap().len(), 7);
    // Without a client that can be asked, an overwrite still needs `confirm: true`.
    std::fs::write(vault.path().join("x.md"), "old").unwrap();
    let args = json!({"path": "x.md", "content": "new", "overwrite": true}).as_object().unwrap().clone();
    let refused = client
        .call_tool(CallToolRequestParams::new("obsidian_write_note").with_arguments(args))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(std::fs::read_to_string(vault.path().join("x.md")).unwrap(), "old");
}

#[tokio::test]
async fn elicitation_asks_the_user_before_an_overwrite() {
    for (answer, approved) in [(json!({"approve": true}), true), (json!({"approve": false}), false)] {
        let vault = tempfile::tempdir().unwrap();
        std::fs::write(vault.path().join("x.md"), "old").unwrap();
        let client_io = serve(vault.path(), None, false);
        let client = Approver(answer).serve(client_io).await.unwrap();
        let args = json!({"path": "x.md", "content": "new", "overwrite": true}).as_object().unwrap().clone();
        let result = client
            .call_tool(CallToolRequestParams::new("obsidian_write_note").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(result.is_error != Some(true), approved);
        let now = std::fs::read_to_string(vault.path().join("x.md")).unwrap();
        assert_eq!(now, if approved { "new" } else { "old" });
    }
}

#[tokio::test]
async fn on_the_2026_revision_an_overwrite_is_approved_in_an_input_round() {
    use rmcp::{ClientLifecycleMode, ClientServiceExt, model::ProtocolVersion};
    for (answer, approved) in [(json!({"approve": true}), true), (json!({"approve": false}), false)] {
        let vault = tempfile::tempdir().unwrap();
        std::fs::write(vault.path().join("x.md"), "old").unwrap();
        let client_io = serve(vault.path(), None, false);
        let client = Approver(answer)
            .serve_with_lifecycle(
                client_io,
                ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
            )
            .await
            .unwrap();
        let args = json!({"path": "x.md", "content": "new", "overwrite": true}).as_object().unwrap().clone();
        let result = client
            .call_tool(CallToolRequestParams::new("obsidian_write_note").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(result.is_error != Some(true), approved, "{result:?}");
        let now = std::fs::read_to_string(vault.path().join("x.md")).unwrap();
        assert_eq!(now, if approved { "new" } else { "old" });
    }
}

#[tokio::test]
async fn ranked_search_sees_notes_written_a_moment_ago() {
    let s = start(false).await;
    let before = s.ok("search_vault", json!({"query": "quokka"})).await;
    assert_eq!(before["results"].as_array().unwrap().len(), 0);
    s.ok("create_note", json!({"path": "Inbox/Fauna.md", "content": "A quokka smiles."})).await;
    let after = s.ok("search_vault", json!({"query": "quokka"})).await;
    assert_eq!(after["results"][0]["path"], "Inbox/Fauna.md");
    assert!(after["results"][0]["snippet"].as_str().unwrap().contains("quokka"));
}

#[tokio::test]
async fn lists_files_and_manages_properties_and_tags() {
    let s = start(false).await;
    let root = s.ok("obsidian_list_files", json!({"dirPath": "/"})).await;
    let names: Vec<&str> = root["files"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(names.contains(&"References/") && names.contains(&"Projects/"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with('.')), "{names:?}");
    let projects = s.ok("obsidian_list_files", json!({"dirPath": "Projects"})).await;
    assert_eq!(projects["files"], json!(["Literature review.md"]));

    let props = s.ok("obsidian_get_properties", json!({"filepath": "References/@weber2022seeds.md"})).await;
    assert_eq!(props["properties"]["citekey"], "weber2022seeds");
    let got = s
        .ok(
            "obsidian_manage_frontmatter",
            json!({"filePath": "Projects/Literature review.md", "operation": "get", "key": "tags"}),
        )
        .await;
    assert_eq!(got["value"], "project");
    let before = s.read("Projects/Literature review.md");
    s.ok("obsidian_manage_frontmatter", json!({"filePath": "Projects/Literature review.md", "operation": "set", "key": "status", "value": "draft"})).await;
    assert_eq!(
        s.read("Projects/Literature review.md"),
        before.replacen("tags: project\n", "tags: project\nstatus: draft\n", 1)
    );
    s.ok(
        "obsidian_manage_frontmatter",
        json!({"filePath": "Projects/Literature review.md", "operation": "delete", "key": "status"}),
    )
    .await;
    assert_eq!(s.read("Projects/Literature review.md"), before);
    let err = s
        .err(
            "obsidian_manage_frontmatter",
            json!({"filePath": "Projects/Literature review.md", "operation": "delete", "key": "nope"}),
        )
        .await;
    assert!(err.contains("no frontmatter key"), "{err}");

    let tags = s.ok("obsidian_get_tags", json!({})).await;
    let find = |name: &str| tags["tags"].as_array().unwrap().iter().find(|t| t["tag"] == name).cloned();
    assert_eq!(find("spaced-repetition").unwrap()["count"], 4);
    assert!(
        find("todo").unwrap()["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "Projects/Literature review.md")
    );
    let scoped = s.ok("obsidian_get_tags", json!({"path": "Daily"})).await;
    assert_eq!(scoped["count"], 1);
    s.ok("create_note", json!({"path": "Inbox/Nested.md", "content": "#area/research/ml and `#notatag`"}))
        .await;
    let nested = s.ok("obsidian_get_tags", json!({"path": "Inbox"})).await;
    let names: Vec<&str> =
        nested["tags"].as_array().unwrap().iter().map(|t| t["tag"].as_str().unwrap()).collect();
    assert_eq!(names, ["area", "area/research", "area/research/ml"]);
}

/// Every tool declares the shape of its answers (`outputSchema`), and one call of each answers in
/// it (`Tools::ok` and `Tools::err` check every answer of every in-process test against its
/// tool's schema, with no field left undeclared; this test makes sure each tool is called).
#[tokio::test]
async fn every_tool_answers_in_its_declared_output_schema() {
    let s = start(false).await;
    let declared: Vec<String> = scholia::mcp::tool_facts()
        .into_iter()
        .inspect(|t| assert!(t.output_schema.is_some(), "{} declares no output schema", t.name))
        .map(|t| t.name)
        .collect();
    let (log, paper) = ("Schema/Log.md", "References/@weber2022seeds.md");
    let calls = [
        ("create_note", json!({"path": log, "content": "# Log\n\n## Done\n- first [[Nowhere]]\n"})),
        ("create_note", json!({"path": "Schema/Dry.md", "content": "x", "dryRun": true})),
        ("append_to_note", json!({"path": log, "content": "- appended"})),
        (
            "patch_note",
            json!({"path": log, "operation": "append", "targetType": "heading", "target": "Done", "content": "- patched"}),
        ),
        (
            "obsidian_write_note",
            json!({"path": "Schema/Written.md", "content": "Body", "frontmatter": {"type": "note"}}),
        ),
        ("obsidian_read_annotations", json!({"citekey": "moreau2024ragsurvey", "limit": 2})),
        ("obsidian_list_annotation_files", json!({"limit": 3})),
        ("obsidian_summarize", json!({"citekey": "weber2022seeds", "dryRun": true})),
        ("obsidian_summarize", json!({"citekey": "weber2022seeds", "confirm": true})),
        (
            "obsidian_synthesize",
            json!({"citekeys": ["kim2020spacing", "haddad2022adaptive"], "date": "2024-06-01"}),
        ),
        ("obsidian_search", json!({"query": "leaderboard"})),
        ("search_vault", json!({"query": "seed variance", "limit": 1})),
        ("get_note_metadata", json!({"path": paper})),
        ("get_note_content", json!({"path": paper, "length": 100})),
        ("daily_note_append", json!({"content": "- schema", "year": 2024, "month": 6, "day": 13})),
        ("obsidian_list_files", json!({"dirPath": ""})),
        ("obsidian_get_properties", json!({"filepath": paper})),
        (
            "obsidian_manage_frontmatter",
            json!({"filePath": log, "operation": "set", "key": "status", "value": "done"}),
        ),
        ("obsidian_manage_frontmatter", json!({"filePath": log, "operation": "get", "key": "status"})),
        ("obsidian_update_properties", json!({"filepath": log, "properties": {"tags": ["schema"]}})),
        ("obsidian_manage_tags", json!({"filePath": log, "operation": "add", "tags": ["schema/more"]})),
        ("obsidian_manage_tags", json!({"filePath": log, "operation": "list"})),
        ("obsidian_get_tags", json!({})),
        ("obsidian_read_file", json!({"filePath": "[[Log]]", "format": "json"})),
        (
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": log, "modificationType": "patch",
            "patchOperation": "append", "patchTargetType": "heading", "patchTarget": "Log::Done", "content": "- via update_file\n"}),
        ),
        ("obsidian_get_periodic_note", json!({"period": "daily", "date": "2024-06-13"})),
        ("obsidian_delete_periodic_note", json!({"period": "daily", "date": "2024-06-13", "confirm": true})),
        ("obsidian_check_status", json!({})),
        ("read_note", json!({"note": "[[@weber2022seeds]]"})),
        ("update_note", json!({"note": "Log", "content": "- by name", "mode": "append"})),
        ("list_notes", json!({"folder": "References", "limit": 2})),
        ("obsidian_global_search", json!({"query": "/seeds? variance/i"})),
        ("obsidian_global_search", json!({"query": "seed variance", "modified_since": "2000-01-01"})),
        ("text_search", json!({"query": "seed variance"})),
        ("tag_search", json!({"tags": ["reproducibility"]})),
        ("metadata_search", json!({"where": {"citekey": "weber2022seeds"}})),
        ("find_related_notes", json!({"path": "[[@weber2022seeds]]"})),
        ("validate_vault", json!({})),
        ("get_vault_stats", json!({})),
        ("get_roots", json!({})),
        ("rebuild_index", json!({"confirm": true})),
        (
            "obsidian_move_file",
            json!({"filePath": "Schema/Written.md", "newPath": "Schema/Moved.md", "confirm": true}),
        ),
        ("obsidian_delete_file", json!({"filePath": "Schema/Moved.md", "dryRun": true})),
        ("obsidian_delete_file", json!({"filePath": "Schema/Moved.md", "confirm": true})),
        ("delete_note", json!({"note": "Log", "dryRun": true})),
        ("delete_note", json!({"note": "Log", "confirm": true})),
    ];
    for (tool, args) in &calls {
        s.ok(tool, args.clone()).await;
    }
    // Served over HTTP, the status names the endpoint.
    let http = Scholia::new(Settings {
        transport: scholia::mcp::Transport::Http { address: "127.0.0.1:8765".parse().unwrap(), auth: true },
        ..Settings::new(crate::mcp_client::config(s.vault.path(), None))
    })
    .unwrap();
    let client = ().serve(crate::mcp_client::serve(http)).await.unwrap();
    let status = client.ok("obsidian_check_status", json!({})).await;
    assert_eq!(status["transport"]["http"], "http://127.0.0.1:8765/mcp");
    // A failure is in the declared shape too (clients check it as well).
    s.err("read_note", json!({"note": "[[Nowhere at all]]"})).await;
    let called: std::collections::BTreeSet<&str> = calls.iter().map(|(tool, _)| *tool).collect();
    let uncalled: Vec<&String> = declared.iter().filter(|t| !called.contains(t.as_str())).collect();
    assert!(uncalled.is_empty(), "add a call of {uncalled:?} to this test");
}
