//! The MCP server tried as an attacker (and an unlucky user) would, in process: a vault folder
//! that goes away, a regex search over a huge note, deletes and moves approved while the vault
//! changes, concurrent calls on one note, and links that lead to protected folders.
#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use scholia::mcp::{ConfirmPolicy, Scholia, Settings};
use serde_json::{Value, json};

use crate::mcp_client::{Asker, Tools};

async fn client<C: ClientHandler>(vault: &Path, handler: C) -> RunningService<RoleClient, C> {
    let config = crate::mcp_client::config(vault, None);
    let server =
        Scholia::new(Settings { confirm: ConfirmPolicy::Destructive, ..Settings::new(config) }).unwrap();
    handler.serve(crate::mcp_client::serve(server)).await.unwrap()
}

/// Waits (bounded) until the server's index is built.
async fn wait_ready<C: ClientHandler>(client: &RunningService<RoleClient, C>) {
    let start = Instant::now();
    while client.ok("get_vault_stats", json!({})).await["index"] != "ready" {
        assert!(start.elapsed() < Duration::from_secs(30), "the index never got ready");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every read, search and listing tool, with arguments that would find `a.md`.
fn reads() -> Vec<(&'static str, Value)> {
    vec![
        ("obsidian_global_search", json!({"query": "text"})),
        ("obsidian_global_search", json!({"query": "te.t", "regex": true})),
        ("obsidian_search", json!({"query": "text"})),
        ("search_vault", json!({"query": "text"})),
        ("list_notes", json!({})),
        ("obsidian_list_files", json!({})),
        ("read_note", json!({"note": "a"})),
        ("obsidian_read_file", json!({"filePath": "a.md"})),
        ("get_vault_stats", json!({})),
        ("obsidian_check_status", json!({})),
    ]
}

/// After the vault folder is renamed, then deleted, every read says the vault is gone (never an
/// empty or stale answer that looks complete).
#[tokio::test]
async fn reads_of_a_vault_that_is_gone_say_so() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("Vault");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.md"), "# A\n\nsome text\n").unwrap();
    let client = client(&root, ()).await;
    wait_ready(&client).await;
    std::fs::rename(&root, parent.path().join("Moved")).unwrap();
    for gone in ["renamed", "deleted"] {
        if gone == "deleted" {
            std::fs::remove_dir_all(parent.path().join("Moved")).unwrap();
            // The watcher's events (every note removed) have time to arrive.
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        for (tool, args) in reads() {
            let err = client.err(tool, args.clone()).await;
            assert!(err.contains("is gone"), "{gone}: {tool} {args}: {err}");
        }
    }
}

/// The peak memory (VmHWM, bytes) of process `pid`.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// A `.` regex over an 8 MB note: the match count is exact and the answer is under the cap, and
/// the server (its own process) needs no memory in proportion to the matches (16 bytes each
/// held would be 128 MB): a few copies of the note at most.
#[test]
#[cfg(target_os = "linux")]
fn a_regex_search_streams_its_matches() {
    let dir = tempfile::tempdir().unwrap();
    let line = "x".repeat(99) + "\n";
    let size = 8 << 20;
    std::fs::write(dir.path().join("big.md"), line.repeat(size / line.len())).unwrap();
    let mut server = crate::crash::Child::start(dir.path());
    server.wait_ready();
    let before = peak_memory(server.id());
    let answer = server.call("obsidian_global_search", json!({"query": ".", "regex": true}));
    let grown = peak_memory(server.id()).saturating_sub(before);
    let content = &answer["result"]["structuredContent"];
    assert_eq!(content["results"][0]["match_count"], json!(size / line.len() * 99), "{answer}");
    assert_eq!(content["results"][0]["lines"], json!(size / line.len()));
    assert!(answer.to_string().len() < 40 * 1024);
    assert!(grown < 4 * size as u64, "{} MB more for a {} MB note", grown >> 20, size >> 20);
}

/// A delete approved while the note changed on disk is refused, and the new text kept at its path.
#[tokio::test]
async fn a_delete_approved_while_the_note_changed_is_refused() {
    let vault = tempfile::tempdir().unwrap();
    let note = vault.path().join("Gone.md");
    std::fs::write(&note, "To delete.\n").unwrap();
    for tool in ["delete_note", "obsidian_delete_file"] {
        let edit = note.clone();
        let asker = Asker::new(json!({"approve": true}), move || std::fs::write(&edit, "Kept.\n").unwrap());
        let client = client(vault.path(), asker.clone()).await;
        let args = json!({"note": "Gone", "filePath": "Gone.md"});
        let err = client.err(tool, args).await;
        assert_eq!(asker.asked(), 1, "{tool}");
        assert!(err.contains("changed"), "{tool}: {err}");
        assert_eq!(std::fs::read_to_string(&note).unwrap(), "Kept.\n", "{tool}");
        std::fs::write(&note, "To delete.\n").unwrap();
    }
}

/// A move approved while a file appeared at its target is refused; both files are kept.
#[tokio::test]
async fn a_move_onto_a_name_that_appeared_meanwhile_is_refused() {
    let vault = tempfile::tempdir().unwrap();
    std::fs::write(vault.path().join("Gone.md"), "To move.\n").unwrap();
    let target = vault.path().join("Moved.md");
    let asker =
        Asker::new(json!({"approve": true}), move || std::fs::write(&target, "Here first.\n").unwrap());
    let client = client(vault.path(), asker.clone()).await;
    let err = client.err("obsidian_move_file", json!({"filePath": "Gone.md", "newPath": "Moved.md"})).await;
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(vault.path().join("Gone.md")).unwrap(), "To move.\n");
    assert_eq!(std::fs::read_to_string(vault.path().join("Moved.md")).unwrap(), "Here first.\n");
}

/// 40 appends to one note called at once through the server all land, each once.
#[tokio::test]
async fn concurrent_appends_through_the_server_all_land() {
    let vault = tempfile::tempdir().unwrap();
    std::fs::write(vault.path().join("Log.md"), "# Log\n").unwrap();
    let client = std::sync::Arc::new(client(vault.path(), ()).await);
    let calls = (0..40).map(|i| {
        let client = std::sync::Arc::clone(&client);
        tokio::spawn(async move {
            client.ok("append_to_note", json!({"path": "Log.md", "content": format!("entry {i}\n")})).await
        })
    });
    for call in calls.collect::<Vec<_>>() {
        call.await.unwrap();
    }
    let text = std::fs::read_to_string(vault.path().join("Log.md")).unwrap();
    for i in 0..40 {
        assert_eq!(text.matches(&format!("entry {i}\n")).count(), 1, "entry {i}: {text}");
    }
}

/// Obsidian's settings and a `.git` folder reached through in-vault symbolic links are neither
/// read nor written.
#[tokio::test]
async fn protected_folders_behind_in_vault_links_stay_protected() {
    let vault = tempfile::tempdir().unwrap();
    let root = vault.path();
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".obsidian/app.json"), r#"{"apiKey": "secret"}"#).unwrap();
    std::fs::write(root.join(".git/config"), "[remote]\n").unwrap();
    symlink(".obsidian", root.join("Settings")).unwrap();
    symlink(".git", root.join("Repo")).unwrap();
    let client = client(root, ()).await;
    for path in ["Settings/app.json", "Repo/config"] {
        let err = client.err("obsidian_read_file", json!({"filePath": path})).await;
        assert!(err.contains("protected"), "{path}: {err}");
    }
    for path in ["Settings/x.md", "Repo/x.md"] {
        let args = json!({"path": path, "content": "x", "confirm": true});
        client.err("obsidian_write_note", args).await;
        assert!(!root.join(path).exists(), "{path}");
    }
    let found = client.ok("obsidian_global_search", json!({"query": "secret"})).await;
    assert_eq!(found["results"], json!([]), "{found}");
}

/// A note that is a hard link to a file outside the vault: it is the vault's note (readable, as
/// the user put it there); a write replaces the vault's name only, and the file outside keeps its
/// text.
#[tokio::test]
async fn a_hard_link_out_of_the_vault_is_never_written_through() {
    let vault = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("Private.md"), "private\n").unwrap();
    if std::fs::hard_link(outside.path().join("Private.md"), vault.path().join("Linked.md")).is_err() {
        return; // two file systems: no hard link can be made
    }
    let client = client(vault.path(), ()).await;
    client.ok("append_to_note", json!({"path": "Linked.md", "content": "added\n"})).await;
    let args = json!({"path": "Linked.md", "content": "new", "overwrite": true, "confirm": true});
    client.ok("obsidian_write_note", args).await;
    assert_eq!(std::fs::read_to_string(outside.path().join("Private.md")).unwrap(), "private\n");
    assert_eq!(std::fs::read_to_string(vault.path().join("Linked.md")).unwrap().trim(), "new");
}

/// A folder the server cannot read (its path too long for the system) is reported by the status
/// tools, and answers from the index say they are not complete.
#[tokio::test]
async fn a_folder_that_cannot_be_read_is_reported_by_the_tools() {
    let vault = tempfile::tempdir().unwrap();
    std::fs::write(vault.path().join("a.md"), "# A\n\nsome text\n").unwrap();
    crate::vault_safety::deep_folders(vault.path(), &"d".repeat(250), 20);
    let client = client(vault.path(), ()).await;
    wait_ready(&client).await;
    let stats = client.ok("get_vault_stats", json!({})).await;
    let unread = stats["index_status"]["unreadable_folders"][0].as_str().unwrap_or_default();
    assert!(unread.contains("too long"), "{stats}");
    let found = client.ok("obsidian_global_search", json!({"query": "text"})).await;
    assert_eq!(
        (&found["complete"], found["unreadable_folders"].is_array()),
        (&json!(false), true),
        "{found}"
    );
    let status = client.ok("obsidian_check_status", json!({})).await;
    assert_eq!(status["vault"]["unreadable_folders"].as_array().map(Vec::len), Some(1), "{status}");
}

/// Path tricks: `..`, absolute paths, a name over 255 bytes, the trash and protected folders
/// reached through a link are refused with a reason, and nothing is written outside or there.
#[tokio::test]
async fn path_tricks_are_refused_with_a_reason() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("Vault");
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    std::fs::write(root.join("a.md"), "a\n").unwrap();
    symlink(".obsidian", root.join("Settings")).unwrap();
    let client = client(&root, ()).await;
    let long = format!("{}.md", "n".repeat(300));
    let outside = parent.path().join("out.md");
    let absolute = outside.to_str().unwrap();
    for path in ["../out.md", "a/../../out.md", absolute, long.as_str(), ".trash/x.md", "Settings/x.md"] {
        let args = json!({"path": path, "content": "x", "confirm": true});
        let err = client.err("obsidian_write_note", args).await;
        assert!(err.len() > 20, "{path}: {err}");
        let moved = json!({"filePath": "a.md", "newPath": path, "confirm": true});
        client.err("obsidian_move_file", moved).await;
    }
    assert!(!outside.exists());
    assert!(!root.join(".obsidian/x.md").exists() && !root.join(".trash/x.md").exists());
    assert_eq!(std::fs::read_to_string(root.join("a.md")).unwrap(), "a\n");
    let err = client.err("obsidian_write_note", json!({"path": long, "content": "x"})).await;
    assert!(err.contains("255"), "{err}");
}

/// A note whose name differs from another's only by its Unicode form (NFC and NFD side by side):
/// each can still be read by its own bytes' form, and a write changes the one named, not both.
#[tokio::test]
async fn look_alike_names_are_kept_apart() {
    let vault = tempfile::tempdir().unwrap();
    std::fs::write(vault.path().join("Caf\u{e9}.md"), "composed\n").unwrap();
    std::fs::write(vault.path().join("Cafe\u{301}.md"), "decomposed\n").unwrap();
    let client = client(vault.path(), ()).await;
    client.ok("append_to_note", json!({"path": "Caf\u{e9}.md", "content": "more\n"})).await;
    let decomposed = std::fs::read_to_string(vault.path().join("Cafe\u{301}.md")).unwrap();
    assert_eq!(decomposed, "decomposed\n");
    let listed = client.ok("list_notes", json!({})).await;
    assert!(listed.to_string().contains("Caf"), "{listed}");
}
