//! Approvals in process: the user, not the agent, approves when the client can ask; an edit made
//! on disk while the user is asked is never lost; a replace that removes a section, a block or
//! more than 1 KB needs approval and keeps the previous version in `.trash/`.

use std::path::{Path, PathBuf};

use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use scholia::mcp::{ConfirmPolicy, Scholia, Settings};
use serde_json::{Value, json};

use crate::mcp_client::{Asker, Tools};

/// The note every call changes.
const NOTE: &str =
    "---\ntags: [draft]\n---\n# Plan\n## Notes\nFirst. ^first\n## Parent\nText.\n### Child\nMore.\n";

/// A vault holding `Plan.md` (with `big` bytes of text under `## Big`) and `Gone.md`.
fn vault(big: usize) -> tempfile::TempDir {
    let vault = tempfile::tempdir().unwrap();
    let text = format!("{NOTE}## Big\n{}\n", "word ".repeat(big / 5));
    std::fs::write(vault.path().join("Plan.md"), text).unwrap();
    std::fs::write(vault.path().join("Gone.md"), "To delete.\n").unwrap();
    vault
}

/// A client of a server over `vault` with `confirm`, on the 2025 protocol or the 2026 one.
async fn client<C: ClientHandler>(
    vault: &Path,
    confirm: ConfirmPolicy,
    handler: C,
    v2026: bool,
) -> RunningService<RoleClient, C> {
    let config = crate::mcp_client::config(vault, None);
    let server = Scholia::new(Settings { confirm, ..Settings::new(config) }).unwrap();
    let io = crate::mcp_client::serve(server);
    if v2026 {
        let mode = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        handler.serve_with_lifecycle(io, mode).await.unwrap()
    } else {
        handler.serve(io).await.unwrap()
    }
}

/// Every tool that edits `Plan.md`, with arguments that change it.
fn edits() -> Vec<(&'static str, Value)> {
    vec![
        (
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": "Plan.md", "modificationType": "patch", "patchOperation": "append", "patchTargetType": "heading", "patchTarget": "Notes", "content": "Added."}),
        ),
        (
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": "Plan.md", "modificationType": "wholeFile", "wholeFileMode": "overwrite", "overwriteIfExists": true, "content": "All new."}),
        ),
        (
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": "Plan.md", "modificationType": "wholeFile", "wholeFileMode": "append", "ifMatch": "", "content": "Added."}),
        ),
        ("update_note", json!({"note": "Plan", "content": "Added.", "mode": "append"})),
        ("update_note", json!({"note": "Plan", "content": "All new.", "mode": "replace"})),
        (
            "patch_note",
            json!({"path": "Plan.md", "operation": "append", "targetType": "heading", "target": "Notes", "content": "Added."}),
        ),
        (
            "obsidian_manage_frontmatter",
            json!({"filePath": "Plan.md", "operation": "set", "key": "status", "value": "done"}),
        ),
        ("obsidian_update_properties", json!({"filepath": "Plan.md", "properties": {"status": "done"}})),
        ("obsidian_manage_tags", json!({"filePath": "Plan.md", "operation": "add", "tags": ["new"]})),
        ("obsidian_write_note", json!({"path": "Plan.md", "content": "All new.", "overwrite": true})),
    ]
}

#[tokio::test]
async fn an_edit_made_on_disk_while_the_user_approves_is_kept() {
    for v2026 in [false, true] {
        for (tool, args) in edits() {
            let vault = vault(100);
            let path: PathBuf = vault.path().join("Plan.md");
            let edit = path.clone();
            let meanwhile = move || {
                let text = std::fs::read_to_string(&edit).unwrap();
                std::fs::write(&edit, format!("{text}Typed by the user meanwhile.\n")).unwrap();
            };
            let asker = Asker::new(json!({"approve": true}), meanwhile);
            let client = client(vault.path(), ConfirmPolicy::Writes, asker.clone(), v2026).await;
            let mut args = args;
            if args.get("ifMatch").is_some() {
                let read = client.ok("obsidian_read_file", json!({"filePath": "Plan.md"})).await;
                args["ifMatch"] = read["hash"].clone();
            }
            let err = client.err(tool, args).await;
            assert!(asker.asked() >= 1, "{tool}: the user was not asked");
            assert!(err.contains("changed") && err.contains("again"), "{tool} (2026: {v2026}): {err}");
            let now = std::fs::read_to_string(&path).unwrap();
            assert!(
                now.ends_with("Typed by the user meanwhile.\n"),
                "{tool} (2026: {v2026}) lost the edit: {now}"
            );
        }
    }
}

/// Every call that needs approval under the default policy, with the agent's `confirm: true`.
fn destructive_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("delete_note", json!({"note": "Gone", "confirm": true})),
        ("obsidian_delete_file", json!({"filePath": "Gone.md", "confirm": true})),
        ("obsidian_move_file", json!({"filePath": "Gone.md", "newPath": "Moved.md", "confirm": true})),
        ("update_note", json!({"note": "Gone", "content": "New.", "mode": "replace", "confirm": true})),
        (
            "obsidian_write_note",
            json!({"path": "Gone.md", "content": "New.", "overwrite": true, "confirm": true}),
        ),
        (
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": "Gone.md", "modificationType": "wholeFile", "wholeFileMode": "overwrite", "overwriteIfExists": true, "content": "New.", "confirm": true}),
        ),
    ]
}

#[tokio::test]
async fn the_agents_confirm_does_not_approve_when_the_user_can_be_asked() {
    for v2026 in [false, true] {
        for (tool, args) in destructive_calls() {
            let vault = vault(100);
            let asker = Asker::new(json!({"approve": false}), || {});
            let client = client(vault.path(), ConfirmPolicy::Destructive, asker.clone(), v2026).await;
            // The user declines; the agent calls again, first without confirm, then with it.
            let mut unconfirmed = args.clone();
            unconfirmed["confirm"] = json!(false);
            for (call, args) in [unconfirmed, args].into_iter().enumerate() {
                let err = client.err(tool, args).await;
                assert!(err.contains("did not approve"), "{tool}: {err}");
                assert_eq!(asker.asked(), call + 1, "{tool} (2026: {v2026}): the user must be asked");
            }
            let gone = std::fs::read_to_string(vault.path().join("Gone.md")).unwrap();
            assert_eq!(gone, "To delete.\n", "{tool} (2026: {v2026}) went through without the user");
        }
    }
}

/// Replaces that remove much: more than 1 KB, a block, a section with a subsection.
fn large_replaces() -> Vec<(&'static str, Value)> {
    let patch = |kind: &str, target: &str| json!({"targetType": "filePath", "targetIdentifier": "Plan.md", "modificationType": "patch", "patchOperation": "replace", "patchTargetType": kind, "patchTarget": target, "content": "Short."});
    vec![
        (
            "patch_note",
            json!({"path": "Plan.md", "operation": "replace", "targetType": "heading", "target": "Big", "content": "Short."}),
        ),
        (
            "patch_note",
            json!({"path": "Plan.md", "operation": "replace", "targetType": "heading", "target": "Notes", "content": "Short."}),
        ),
        (
            "patch_note",
            json!({"path": "Plan.md", "operation": "replace", "targetType": "heading", "target": "Parent", "content": "Short."}),
        ),
        ("obsidian_update_file", patch("heading", "Big")),
        ("obsidian_update_file", patch("heading", "Parent")),
    ]
}

#[tokio::test]
async fn a_replace_that_removes_much_needs_approval_and_keeps_the_previous_version() {
    for (tool, args) in large_replaces() {
        let vault = vault(2000);
        let path = vault.path().join("Plan.md");
        let before = std::fs::read_to_string(&path).unwrap();
        let client = client(vault.path(), ConfirmPolicy::Destructive, (), false).await;
        let mut dry_run = args.clone();
        dry_run["dryRun"] = json!(true);
        let preview = client.ok(tool, dry_run).await;
        assert!(preview["removes"].as_str().is_some_and(|r| r.starts_with("removes")), "{preview}");
        let err = client.err(tool, args.clone()).await;
        assert!(err.contains("confirm: true") && err.contains("removes"), "{tool} {args}: {err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before, "{tool} wrote without approval");
        let mut approved = args.clone();
        approved["confirm"] = json!(true);
        let done = client.ok(tool, approved).await;
        let previous = done["previous_version"].as_str().unwrap_or_default();
        assert!(previous.starts_with(".trash/Plan "), "{tool} {args}: {done}");
        assert_eq!(std::fs::read_to_string(vault.path().join(previous)).unwrap(), before);
        assert!(std::fs::read_to_string(&path).unwrap().contains("Short."), "{tool}");
    }
}

#[tokio::test]
async fn a_small_replace_needs_no_approval() {
    let vault = vault(100);
    let client = client(vault.path(), ConfirmPolicy::Destructive, (), false).await;
    let block = json!({"path": "Plan.md", "operation": "replace", "targetType": "block", "target": "^first", "content": "Changed."});
    let section = json!({"path": "Plan.md", "operation": "replace", "targetType": "heading", "target": "Big", "content": "Rewritten."});
    for args in [block, section] {
        let done = client.ok("patch_note", args).await;
        assert!(done["previous_version"].is_null(), "{done}");
    }
    let now = std::fs::read_to_string(vault.path().join("Plan.md")).unwrap();
    assert!(now.contains("Changed. ^first") && now.ends_with("## Big\nRewritten.\n"), "{now}");
}

/// One call of every tool that adds or edits, on the example vault, with arguments that change it.
fn writes() -> Vec<(&'static str, Value)> {
    vec![
        ("append_to_note", json!({"path": "Projects/Added.md", "content": "Added."})),
        ("create_note", json!({"path": "Projects/Created.md", "content": "Created."})),
        ("daily_note_append", json!({"content": "Met Ana.", "year": 2024, "month": 6, "day": 1})),
        (
            "obsidian_manage_frontmatter",
            json!({"filePath": "References/@kim2020spacing.md", "operation": "set", "key": "status", "value": "read"}),
        ),
        (
            "obsidian_manage_tags",
            json!({"filePath": "References/@kim2020spacing.md", "operation": "add", "tags": ["spacing"]}),
        ),
        (
            "obsidian_update_properties",
            json!({"filepath": "References/@kim2020spacing.md", "properties": {"read": true}}),
        ),
        ("obsidian_summarize", json!({"citekey": "weber2022seeds", "date": "2024-06-01"})),
        (
            "obsidian_synthesize",
            json!({"citekeys": ["weber2022seeds", "pineda2021checklist"], "date": "2024-06-01"}),
        ),
    ]
}

#[tokio::test]
async fn every_writing_tool_takes_dry_run_and_confirm() {
    let vault = crate::mcp_client::example_vault();
    let client = client(vault.path(), ConfirmPolicy::Writes, (), false).await;
    let tools = client.list_all_tools().await.unwrap();
    let writes = |name: &str| scholia::mcp::tool_facts().into_iter().any(|t| t.writes && t.name == name);
    let writing: Vec<_> = tools.iter().filter(|t| writes(&t.name)).collect();
    assert!(writing.len() >= 15, "{} writing tools", writing.len());
    for tool in writing {
        let properties = tool.input_schema.get("properties").and_then(Value::as_object);
        for field in ["dryRun", "confirm"] {
            assert!(properties.is_some_and(|p| p.contains_key(field)), "{} takes no {field}", tool.name);
        }
    }
}

#[tokio::test]
async fn under_confirm_writes_a_client_that_cannot_ask_approves_every_write_with_confirm() {
    for (tool, args) in writes() {
        let vault = crate::mcp_client::example_vault();
        let client = client(vault.path(), ConfirmPolicy::Writes, (), false).await;
        let before = crate::check::snapshot(vault.path());
        let err = client.err(tool, args.clone()).await;
        assert!(err.contains("confirm: true"), "{tool}: {err}");
        assert_eq!(crate::check::snapshot(vault.path()), before, "{tool} wrote without approval");
        let mut approved = args;
        approved["confirm"] = json!(true);
        client.ok(tool, approved).await;
        assert_ne!(crate::check::snapshot(vault.path()), before, "{tool} approved but wrote nothing");
    }
}
