//! The file tools (seed 004) in process, against a copy of `tests/fixtures/vault`: reading with a
//! hash, updating (whole file, patch, active and periodic notes, `ifMatch`, dry runs), deleting to
//! `.trash/` with the links that break, and moving with every link rewritten. Update cases are
//! data: `tests/cases/update_file/*.call.json` with the note expected after (`*.out.md`) or the
//! error (`*.err.txt`).

use std::path::Path;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use scholia::mcp::{ConfirmPolicy, Scholia, Settings};
use serde_json::{Value, json};

use crate::check::{cases, check, copy_dir, root};
use crate::mcp_client::{Approver, Tools};

struct Session {
    client: RunningService<RoleClient, ()>,
    vault: tempfile::TempDir,
}

/// Serves `vault` in process; returns the client's end of the connection.
fn serve(vault: &Path, confirm: ConfirmPolicy) -> tokio::io::DuplexStream {
    let config = crate::mcp_client::config(vault, None);
    let server = Scholia::new(Settings { confirm, ..Settings::new(config) }).unwrap();
    crate::mcp_client::serve(server)
}

/// A fresh copy of the fixture vault.
fn fixture_vault() -> tempfile::TempDir {
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/vault"), vault.path());
    vault
}

/// A server over a fresh copy of the fixture vault, and a client without elicitation.
async fn start(confirm: ConfirmPolicy) -> Session {
    let vault = fixture_vault();
    let client_io = serve(vault.path(), confirm);
    Session { client: ().serve(client_io).await.unwrap(), vault }
}

/// Like [`start`], with `files` written into the vault before the server starts, so that its
/// index holds them whatever the machine's load (written after, they reach it with the watcher).
async fn start_with(confirm: ConfirmPolicy, files: &[(&str, &[u8])]) -> Session {
    let vault = fixture_vault();
    for (path, bytes) in files {
        let path = vault.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let client_io = serve(vault.path(), confirm);
    Session { client: ().serve(client_io).await.unwrap(), vault }
}

impl Session {
    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.client.call(tool, args).await
    }

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

    /// Every file of the vault (hidden folders too) with its bytes.
    fn snapshot(&self) -> Vec<(std::path::PathBuf, Vec<u8>)> {
        crate::check::snapshot(self.vault.path())
    }
}

#[tokio::test]
async fn the_file_tools_are_listed_with_annotations_and_write_tools_marked() {
    let s = start(ConfirmPolicy::Destructive).await;
    let tools = s.client.list_all_tools().await.unwrap();
    let facts = scholia::mcp::tool_facts();
    for name in ["obsidian_read_file", "obsidian_update_file", "obsidian_delete_file", "obsidian_move_file"] {
        let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} missing"));
        let hints = tool.annotations.as_ref().unwrap();
        assert_eq!(hints.read_only_hint, Some(name == "obsidian_read_file"), "{name}");
        let writes = facts.iter().any(|f| f.name == name && f.writes);
        assert_eq!(writes, name != "obsidian_read_file", "{name}");
        let schema = serde_json::to_value(&tool.input_schema).unwrap();
        for (field, about) in schema["properties"].as_object().unwrap() {
            assert!(
                about["description"].as_str().is_some_and(|d| d.len() > 10),
                "{name}.{field} undescribed"
            );
        }
    }
}

#[tokio::test]
async fn notes_are_found_by_path_name_alias_or_link() {
    let s = start(ConfirmPolicy::Destructive).await;
    for given in [
        "Projects/Alpha.md",
        "Projects/Alpha",
        "alpha",
        "Project Alpha",
        "[[Alpha]]",
        "[[Alpha|shown]]",
        "![[Projects/Alpha#Goals]]",
        "Alpha#^goal1",
    ] {
        let read = s.ok("obsidian_read_file", json!({"filePath": given})).await;
        assert_eq!(read["path"], "Projects/Alpha.md", "{given}");
    }
    let unicode = s.ok("obsidian_read_file", json!({"path": "[[@müllerÜberblick2021]]"})).await;
    assert_eq!(unicode["path"], "References/Deutsch/@müllerÜberblick2021.md");
    // A decomposed name (as macOS writes it) finds the composed file.
    let nfd = s.ok("obsidian_read_file", json!({"filePath": "U\u{308}ber Notes"})).await;
    assert_eq!(nfd["path"], "Links/Über Notes.md");
    let err = s.err("obsidian_read_file", json!({"filepath": "Notes"})).await;
    assert!(err.contains("A/Notes.md") && err.contains("B/Notes.md") && err.contains("path"), "{err}");
    let err = s.err("obsidian_read_file", json!({"filePath": "Alpah"})).await;
    assert!(err.contains("did you mean Projects/Alpha.md"), "{err}");
    let err = s.err("obsidian_read_file", json!({"filePath": "Zyxwvut"})).await;
    assert!(err.contains("no note or file named") && err.contains("search_vault"), "{err}");
    let err = s.err("obsidian_read_file", json!({"filePath": "Projects"})).await;
    assert!(err.contains("is a folder"), "{err}");
    for bad in ["../outside.md", "/etc/passwd", "C:\\x.md", "[[../../x]]"] {
        let err = s.err("obsidian_read_file", json!({"filePath": bad})).await;
        assert!(err.contains("invalid path"), "{bad}: {err}");
    }
}

#[tokio::test]
async fn read_file_gives_markdown_or_note_json_with_a_hash_and_pages() {
    let s = start(ConfirmPolicy::Destructive).await;
    let text = s.read("Links/Über Notes.md");
    let md = s.ok("obsidian_read_file", json!({"filePath": "Links/Über Notes.md"})).await;
    assert_eq!(md["content"], text, "BOM and CRLF come back as they are");
    assert_eq!(md["hash"].as_str().unwrap().len(), 16);
    assert!(md.get("frontmatter").is_none());
    let note = s.ok("obsidian_read_file", json!({"filePath": "Alpha", "format": "json"})).await;
    assert_eq!(note["frontmatter"]["aliases"], json!(["Project Alpha"]));
    assert_eq!(note["frontmatter"]["status"], "active");
    assert!(note["stat"]["mtime"].as_i64().unwrap() > 0 && note["stat"]["ctime"].as_i64().unwrap() > 0);
    assert_eq!(note["stat"]["size"], s.read("Projects/Alpha.md").len());
    let part = s.ok("obsidian_read_file", json!({"filePath": "Alpha", "offset": 4, "length": 10})).await;
    assert_eq!(part["content"], &s.read("Projects/Alpha.md")[4..14]);
    assert_eq!(part["truncated"], true);
    assert_eq!(part["next"], json!({"filePath": "Projects/Alpha.md", "format": "markdown", "offset": 14}));
    assert_eq!(part["hash"], note["hash"], "the hash is of the whole note");
}

/// Each case is the arguments of one `obsidian_update_file` call on a fresh copy of the fixture
/// vault; the note it changed is compared after it (or the error message).
#[tokio::test]
async fn update_cases_match_their_expected_notes() {
    let dir = root().join("tests/cases/update_file");
    let calls = cases(&dir, ".call.json");
    assert!(calls.len() >= 10);
    for call_path in calls {
        let s = start(ConfirmPolicy::None).await;
        let args: Value = serde_json::from_str(&std::fs::read_to_string(&call_path).unwrap()).unwrap();
        let stem = call_path.to_string_lossy().trim_end_matches(".call.json").to_string();
        let result = s.call("obsidian_update_file", args.clone()).await;
        let value = result.structured_content.unwrap_or_default();
        if result.is_error == Some(true) {
            let message = format!("{}\n", value["error"].as_str().unwrap());
            check(Path::new(&format!("{stem}.err.txt")), &message);
        } else {
            check(Path::new(&format!("{stem}.out.md")), &s.read(value["path"].as_str().unwrap()));
        }
    }
}

#[tokio::test]
async fn if_match_refuses_a_note_changed_since_it_was_read() {
    let s = start(ConfirmPolicy::Destructive).await;
    let read = s.ok("obsidian_read_file", json!({"filePath": "Alpha"})).await;
    let hash = read["hash"].as_str().unwrap().to_string();
    let append = |if_match: &str| {
        json!({"targetType": "filePath", "targetIdentifier": "Alpha", "modificationType": "wholeFile",
               "wholeFileMode": "append", "content": "- more", "ifMatch": if_match})
    };
    let done = s.ok("obsidian_update_file", append(&hash)).await;
    let after = s.read("Projects/Alpha.md");
    assert!(after.ends_with("duplicate name.\n- more\n"), "{after}");
    assert_eq!(done["hash"], s.ok("obsidian_read_file", json!({"filePath": "Alpha"})).await["hash"]);
    let err = s.err("obsidian_update_file", append(&hash)).await;
    assert!(err.contains("the file changed since you read it; read it again"), "{err}");
    assert_eq!(s.read("Projects/Alpha.md"), after);
    s.ok("obsidian_update_file", append(done["hash"].as_str().unwrap())).await;
    let same = s
        .ok("obsidian_update_file", json!({"targetType": "filePath", "targetIdentifier": "Alpha", "modificationType": "wholeFile", "wholeFileMode": "append", "content": ""}))
        .await;
    assert_eq!(same["changed"], false);
}

#[tokio::test]
async fn the_active_note_needs_if_match_to_be_written() {
    let s = start(ConfirmPolicy::Destructive).await;
    let args = |extra: Value| {
        let mut args = json!({"targetType": "activeFile", "modificationType": "patch", "patchOperation": "append",
                              "patchTargetType": "heading", "patchTarget": "Alpha::Goals", "content": "Then publish."});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        args
    };
    let err = s.err("obsidian_update_file", args(json!({}))).await;
    assert!(err.contains("Projects/Alpha.md") && err.contains("ifMatch"), "{err}");
    let preview = s.ok("obsidian_update_file", args(json!({"dryRun": true}))).await;
    assert!(preview["diff"].as_str().unwrap().contains("+Then publish."), "{preview}");
    let hash = s.ok("obsidian_read_file", json!({"filePath": "Projects/Alpha.md"})).await["hash"].clone();
    let done = s.ok("obsidian_update_file", args(json!({"ifMatch": hash}))).await;
    assert_eq!(done["path"], "Projects/Alpha.md");
    assert!(s.read("Projects/Alpha.md").contains("Ship the survey. ^goal1\nThen publish.\n## Notes"));
}

#[tokio::test]
async fn periodic_notes_follow_the_settings_and_start_from_nothing() {
    let s = start(ConfirmPolicy::Destructive).await;
    let today = format!("{}.md", jiff::Zoned::now().date());
    let args = json!({"targetType": "periodicNote", "targetIdentifier": "daily", "modificationType": "wholeFile",
                      "wholeFileMode": "append", "content": "- met Ana"});
    let done = s.ok("obsidian_update_file", args).await;
    assert_eq!((done["path"].as_str(), done["created"].as_bool()), (Some(today.as_str()), Some(true)));
    assert_eq!(s.read(&today), "- met Ana");
    let err = s.err("obsidian_update_file", json!({"targetType": "periodicNote", "targetIdentifier": "weekly", "modificationType": "wholeFile", "wholeFileMode": "append", "content": "x"})).await;
    assert!(err.contains("not enabled"), "{err}");
    let err = s.err("obsidian_update_file", json!({"targetType": "periodicNote", "targetIdentifier": "fortnightly", "modificationType": "wholeFile", "wholeFileMode": "append", "content": "x"})).await;
    assert!(err.contains("daily, weekly"), "{err}");
}

#[tokio::test]
async fn dry_runs_show_a_diff_and_write_nothing() {
    let s = start(ConfirmPolicy::Writes).await;
    let before = s.snapshot();
    let preview = s
        .ok("obsidian_update_file", json!({"targetType": "filePath", "targetIdentifier": "Plan", "modificationType": "patch", "patchOperation": "replace", "patchTargetType": "frontmatter", "patchTarget": "status", "content": "done", "dryRun": true}))
        .await;
    let diff = preview["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("--- a/Projects/Deep/Deeper/Plan.md\n+++ b/Projects/Deep/Deeper/Plan.md\n@@ -1,"),
        "{diff}"
    );
    assert!(diff.contains("\n-status: \"draft\"   # odd quoting\n+status: done   # odd quoting\n"), "{diff}");
    let fresh = s
        .ok("obsidian_update_file", json!({"targetType": "filePath", "targetIdentifier": "Inbox/New idea", "modificationType": "wholeFile", "wholeFileMode": "overwrite", "content": "# New\n", "dryRun": true}))
        .await;
    assert_eq!(fresh["created"], true);
    assert!(
        fresh["diff"]
            .as_str()
            .unwrap()
            .starts_with("--- /dev/null\n+++ b/Inbox/New idea.md\n@@ -0,0 +1,1 @@\n+# New\n")
    );
    let moved =
        s.ok("obsidian_move_file", json!({"filePath": "Alpha", "newPath": "Archive/", "dryRun": true})).await;
    assert_eq!(moved["dry_run"], true);
    assert!(moved["notes_changed"].as_u64().unwrap() > 0);
    let deleted = s.ok("obsidian_delete_file", json!({"filePath": "Alpha", "dryRun": true})).await;
    assert_eq!(deleted["dry_run"], true);
    assert!(deleted["broken_count"].as_u64().unwrap() > 0);
    assert_eq!(s.snapshot(), before, "a dry run changed the vault");
}

#[tokio::test]
async fn overwrites_need_overwrite_if_exists_and_approval_and_keep_the_old_version() {
    let s = start(ConfirmPolicy::Destructive).await;
    let overwrite = |extra: Value| {
        let mut args = json!({"targetType": "filePath", "targetIdentifier": "Meeting", "modificationType": "wholeFile",
                              "wholeFileMode": "overwrite", "content": "# Meeting\nRewritten.\n"});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        args
    };
    let old = s.read("Projects/Meeting.md");
    assert!(s.err("obsidian_update_file", overwrite(json!({}))).await.contains("overwriteIfExists: true"));
    let err = s.err("obsidian_update_file", overwrite(json!({"overwriteIfExists": true}))).await;
    assert!(err.contains("confirm: true"), "{err}");
    assert_eq!(s.read("Projects/Meeting.md"), old);
    let done =
        s.ok("obsidian_update_file", overwrite(json!({"overwriteIfExists": true, "confirm": true}))).await;
    assert_eq!(s.read("Projects/Meeting.md"), "# Meeting\nRewritten.\n");
    assert_eq!(s.read(done["previous_version"].as_str().unwrap()), old);
    // Appending and patching are not destructive: no approval asked.
    s.ok("obsidian_update_file", json!({"targetType": "filePath", "targetIdentifier": "Meeting", "modificationType": "wholeFile", "wholeFileMode": "append", "content": "More."})).await;
}

#[tokio::test]
async fn protected_and_escaping_targets_are_refused() {
    let s = start(ConfirmPolicy::None).await;
    let write = |target: &str| {
        json!({"targetType": "filePath", "targetIdentifier": target, "modificationType": "wholeFile",
               "wholeFileMode": "append", "content": "x"})
    };
    for bad in ["../outside.md", "/tmp/x.md", "a/../../x.md"] {
        assert!(s.err("obsidian_update_file", write(bad)).await.contains("invalid path"), "{bad}");
    }
    for protected in [".obsidian/app.json", ".obsidian/new.md", ".trash/x.md"] {
        assert!(s.err("obsidian_update_file", write(protected)).await.contains("protected"), "{protected}");
    }
    let err = s.err("obsidian_delete_file", json!({"filePath": ".obsidian/app.json"})).await;
    assert!(err.contains("protected"), "{err}");
    let err =
        s.err("obsidian_move_file", json!({"filePath": "Alpha", "newPath": ".obsidian/Alpha.md"})).await;
    assert!(err.contains("protected"), "{err}");
    let err = s.err("obsidian_move_file", json!({"filePath": "Alpha", "newPath": "../Alpha.md"})).await;
    assert!(err.contains("invalid path"), "{err}");
    assert!(!s.vault.path().parent().unwrap().join("outside.md").exists());
    assert!(!s.vault.path().parent().unwrap().join("Alpha.md").exists());
}

#[tokio::test]
async fn delete_goes_to_the_trash_and_lists_the_links_that_break() {
    let s = start(ConfirmPolicy::Destructive).await;
    let err = s.err("obsidian_delete_file", json!({"filePath": "@smith2023"})).await;
    assert!(err.contains("confirm: true"), "{err}");
    let done = s.ok("obsidian_delete_file", json!({"filePath": "@smith2023", "confirm": true})).await;
    let trashed = done["trashed_to"].as_str().unwrap();
    assert!(trashed.starts_with(".trash/@smith2023 ") && s.exists(trashed), "{trashed}");
    assert!(!s.exists("References/@smith2023.md"));
    assert_eq!(
        done["broken_links"],
        json!([{"path": "Projects/Meeting.md", "line": 2, "link": "@smith2023#Methods", "embed": false}])
    );

    let alpha = s.ok("obsidian_delete_file", json!({"filePath": "Project Alpha", "confirm": true})).await;
    let broken = alpha["broken_links"].as_array().unwrap();
    let from = |path: &str| broken.iter().filter(|l| l["path"] == path).count();
    // Index: two frontmatter links, seven in the body (not the one in code); Über: the embed.
    assert_eq!((from("Links/Index.md"), from("Links/Über Notes.md")), (9, 1), "{broken:?}");
    assert!(broken.iter().any(|l| l["link"] == "Alpha#^goal1" && l["embed"] == true && l["line"] == 8));
    assert_eq!(alpha["broken_count"], 10);

    // A link whose name another note shares opens that note instead.
    let notes = s.ok("obsidian_delete_file", json!({"filePath": "A/Notes", "confirm": true})).await;
    assert_eq!(notes["broken_count"], 0);
    assert_eq!(notes["redirected_links"][0]["now_opens"], "B/Notes.md");
    assert_eq!(notes["redirected_links"][0]["path"], "Links/Über Notes.md");
}

#[tokio::test]
async fn move_rewrites_every_link_and_keeps_the_rest_byte_identical() {
    // Written before the server starts, so that the index has it when the move is planned.
    let s = start_with(ConfirmPolicy::None, &[("Links/Heading.md", b"## About [[Alpha]]\ntext\n")]).await;
    let code_block = "```\n[[Alpha]] in code stays\n```\n";
    let done = s.ok("obsidian_move_file", json!({"filePath": "[[Alpha]]", "newPath": "Alpha v2"})).await;
    assert_eq!(
        (done["path"].as_str(), done["previous_path"].as_str()),
        (Some("Projects/Alpha v2.md"), Some("Projects/Alpha.md"))
    );
    assert!(!s.exists("Projects/Alpha.md"));
    assert_eq!(
        s.read("Links/Index.md"),
        "---\nup: \"[[Alpha v2]]\"\nrelated:\n  - \"[[Project Alpha]]\"\n---\n# Index\n\
         - [[Alpha v2]] and [[Alpha v2|the project]]\n\
         - [[Alpha v2#Goals]] and ![[Alpha v2#^goal1]]\n\
         - [[Project Alpha]] by its alias\n\
         - [md](Alpha%20v2.md) and [[Alpha v2]]\n\n"
            .to_string()
            + code_block
    );
    assert_eq!(
        s.read("Links/Über Notes.md"),
        "\u{feff}# Über\r\n![[Alpha v2]]\r\nSee [[Notes]] (ambiguous: A/Notes opens).\r\n"
    );
    assert!(s.read("Projects/Alpha v2.md").contains("[[Alpha v2#Goals|my goals]]"));
    let notes = done["notes"].as_array().unwrap();
    assert_eq!(notes[0]["path"], "Projects/Alpha v2.md", "the moved note comes first");
    let index = notes.iter().find(|n| n["path"] == "Links/Index.md").unwrap();
    assert!(
        index["changes"]
            .as_array()
            .unwrap()
            .contains(&json!({"line": 8, "before": "![[Alpha#^goal1]]", "after": "![[Alpha v2#^goal1]]"}))
    );
    assert_eq!(s.read("Links/Heading.md"), "## About [[Alpha v2]]\ntext\n");
    assert_eq!((done["notes_changed"].as_u64(), done["links_changed"].as_u64()), (Some(4), Some(10)));

    let err =
        s.err("obsidian_move_file", json!({"filePath": "Alpha v2", "newPath": "Projects/Meeting.md"})).await;
    assert!(err.contains("already exists") && err.contains("nothing was moved"), "{err}");
    assert!(s.exists("Projects/Alpha v2.md"));
}

#[tokio::test]
async fn a_move_dry_run_lists_the_links_the_index_leaves_out_and_writes_nothing() {
    // In a YAML comment and in a heading: not links to Markdown, links to Obsidian.
    let commented = "---\n# up: [[Projects/Alpha]]\ntitle: x\n---\nbody\n";
    let heading = "## About [Alpha](../Projects/Alpha.md)\n";
    let s = start_with(
        ConfirmPolicy::None,
        &[("Links/Commented.md", commented.as_bytes()), ("Links/Heading.md", heading.as_bytes())],
    )
    .await;
    let before = s.snapshot();
    let args = json!({"filePath": "Alpha", "newPath": "Archive/", "dryRun": true});
    let plan = s.ok("obsidian_move_file", args).await;
    assert_eq!(s.snapshot(), before);
    let change = |path: &str| {
        let notes = plan["notes"].as_array().unwrap();
        let note = notes.iter().find(|n| n["path"] == path).unwrap_or_else(|| panic!("{path}: {plan}"));
        (note["changes"][0]["line"].clone(), note["changes"][0]["before"].clone())
    };
    assert_eq!(change("Links/Commented.md"), (json!(2), json!("[[Projects/Alpha]]")));
    assert_eq!(change("Links/Heading.md"), (json!(1), json!("[Alpha](../Projects/Alpha.md)")));
    // The move itself makes the same plan.
    let done = s.ok("obsidian_move_file", json!({"filePath": "Alpha", "newPath": "Archive/"})).await;
    assert_eq!(done["notes"], plan["notes"]);
    assert_eq!(done["links_changed"], plan["links_changed"]);
    assert_ne!(s.read("Links/Commented.md"), commented);
}

#[tokio::test]
async fn moved_links_follow_the_vaults_link_format() {
    for (format, written) in
        [("shortest", "[[Alpha]]"), ("relative", "[[../Archive/Alpha]]"), ("absolute", "[[Archive/Alpha]]")]
    {
        let s = start(ConfirmPolicy::None).await;
        std::fs::write(
            s.vault.path().join(".obsidian/app.json"),
            format!("{{\"newLinkFormat\":\"{format}\"}}"),
        )
        .unwrap();
        let done =
            s.ok("obsidian_move_file", json!({"filePath": "Projects/Alpha.md", "newPath": "Archive/"})).await;
        assert_eq!(done["path"], "Archive/Alpha.md");
        let index = s.read("Links/Index.md");
        // Links by name still reach the note and stay; the path link is rewritten in the format.
        assert!(index.contains("- [[Alpha]] and [[Alpha|the project]]\n"), "{format}: {index}");
        assert!(index.contains(&format!(" and {written}\n")), "{format}: {index}");
    }
}

#[tokio::test]
async fn moving_needs_approval_when_the_policy_asks() {
    let s = start(ConfirmPolicy::Destructive).await;
    let before = s.snapshot();
    let err = s.err("obsidian_move_file", json!({"filePath": "Alpha", "newPath": "Beta"})).await;
    assert!(err.contains("confirm: true"), "{err}");
    assert_eq!(s.snapshot(), before);
    s.ok("obsidian_move_file", json!({"filePath": "Alpha", "newPath": "Beta", "confirm": true})).await;
    assert!(s.exists("Projects/Beta.md") && s.read("Links/Index.md").contains("[[Beta|the project]]"));
}

#[tokio::test]
async fn attachments_move_with_their_embeds_and_are_never_read_as_text() {
    let s = start_with(
        ConfirmPolicy::None,
        &[
            ("img/pic.png", &[0x89, b'P', b'N', b'G', 0xff, 0xfe]),
            ("Links/Gallery.md", b"![[pic.png|300]] and ![alt](../img/pic.png)\n"),
        ],
    )
    .await;
    let done = s.ok("obsidian_move_file", json!({"filePath": "pic.png", "newPath": "photo"})).await;
    assert_eq!(done["path"], "img/photo.png");
    assert_eq!(s.read("Links/Gallery.md"), "![[photo.png|300]] and ![alt](photo.png)\n");
    assert_eq!(
        std::fs::read(s.vault.path().join("img/photo.png")).unwrap(),
        [0x89, b'P', b'N', b'G', 0xff, 0xfe]
    );
    let gone = s.ok("obsidian_delete_file", json!({"filePath": "[[photo.png]]", "confirm": true})).await;
    assert_eq!(gone["broken_count"], 2);
}

#[tokio::test]
async fn links_in_tables_keep_their_escaped_bar_when_their_file_moves() {
    let table = "| Link | Figure |\n| --- | --- |\n| [[Alpha\\|the project]] | ![[pic.png\\|300]] |\n\
                 | [[Alpha#Goals\\|goals]] | x |\n";
    let s = start_with(ConfirmPolicy::None, &[("img/pic.png", b"png"), ("Links/Table.md", table.as_bytes())])
        .await;
    s.ok("obsidian_move_file", json!({"filePath": "Alpha", "newPath": "Alpha v2"})).await;
    s.ok("obsidian_move_file", json!({"filePath": "pic.png", "newPath": "photo"})).await;
    assert_eq!(
        s.read("Links/Table.md"),
        "| Link | Figure |\n| --- | --- |\n| [[Alpha v2\\|the project]] | ![[photo.png\\|300]] |\n\
         | [[Alpha v2#Goals\\|goals]] | x |\n"
    );
}

#[tokio::test]
async fn a_delete_asks_the_user_through_the_client() {
    for (answer, approved) in [(json!({"approve": true}), true), (json!({"approve": false}), false)] {
        let vault = fixture_vault();
        let client_io = serve(vault.path(), ConfirmPolicy::Destructive);
        let client = Approver(answer).serve(client_io).await.unwrap();
        let args = json!({"filePath": "Meeting"}).as_object().unwrap().clone();
        let result = client
            .call_tool(CallToolRequestParams::new("obsidian_delete_file").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(result.is_error != Some(true), approved, "{result:?}");
        assert_eq!(vault.path().join("Projects/Meeting.md").exists(), !approved);
    }
}

#[tokio::test]
async fn every_note_tool_takes_a_name_or_a_wikilink() {
    let s = start(ConfirmPolicy::None).await;
    let content = s.ok("get_note_content", json!({"path": "[[Project Alpha]]"})).await;
    assert_eq!(content["path"], "Projects/Alpha.md");
    let meta = s.ok("get_note_metadata", json!({"path": "alpha"})).await;
    assert_eq!(meta["path"], "Projects/Alpha.md");
    let props = s.ok("obsidian_get_properties", json!({"filepath": "[[Alpha#Goals]]"})).await;
    assert_eq!(props["path"], "Projects/Alpha.md");
    s.ok("append_to_note", json!({"path": "Alpha", "content": "\nappended by name\n"})).await;
    assert!(s.read("Projects/Alpha.md").ends_with("appended by name\n"));
    s.ok("append_to_note", json!({"path": "Inbox/Fresh idea", "content": "new\n"})).await;
    assert_eq!(s.read("Inbox/Fresh idea.md"), "new\n");
    let err = s.err("get_note_content", json!({"path": "Notes"})).await;
    assert!(err.contains("A/Notes.md") && err.contains("B/Notes.md"), "{err}");
}

/// Calls made at once (agents call tools in parallel): of 8 updates with one `ifMatch` hash one
/// is written, the others refused; 30 appends all land.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_calls_lose_nothing() {
    let s = start(ConfirmPolicy::Destructive).await;
    let hash =
        s.ok("obsidian_read_file", json!({"filePath": "Alpha"})).await["hash"].as_str().unwrap().to_string();
    let update = |i: usize| {
        s.call(
            "obsidian_update_file",
            json!({"targetType": "filePath", "targetIdentifier": "Alpha", "modificationType": "wholeFile",
                   "wholeFileMode": "append", "content": format!("- update {i}"), "ifMatch": hash}),
        )
    };
    let (a, b, c, d) = tokio::join!(update(0), update(1), update(2), update(3));
    let (e, f, g, h) = tokio::join!(update(4), update(5), update(6), update(7));
    let written = [a, b, c, d, e, f, g, h].iter().filter(|r| r.is_error != Some(true)).count();
    assert_eq!(written, 1, "{}", s.read("Projects/Alpha.md"));
    let append =
        |i: usize| s.call("append_to_note", json!({"path": "Log.md", "content": format!("line {i}")}));
    for round in 0..3 {
        let results = join_all((0..10).map(|i| append(round * 10 + i)).collect()).await;
        assert!(results.iter().all(|r| r.is_error != Some(true)));
    }
    let log = s.read("Log.md");
    for i in 0..30 {
        assert!(log.contains(&format!("line {i}\n")), "line {i} lost:\n{log}");
    }
}

/// Awaits every future at once.
async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, future) in out.iter_mut().zip(pinned.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
    })
    .await;
    out.into_iter().map(Option::unwrap).collect()
}

/// Obsidian's settings (plugins keep API keys there) and git's files are not read by default,
/// not by path, not through a link; `--read-config` opens `.obsidian/`, never `.git/`.
#[tokio::test]
async fn settings_and_git_files_are_not_read() {
    let files: &[(&str, &[u8])] = &[
        (".obsidian/plugins/ai/data.json", b"{\"apiKey\": \"sk-secret\"}"),
        (".git/config", b"[remote] url = https://token@host/x"),
        ("Sub/.git/config", b"token"),
    ];
    let s = start_with(ConfirmPolicy::Destructive, files).await;
    std::os::unix::fs::symlink(".obsidian/plugins/ai/data.json", s.vault.path().join("Settings.md")).unwrap();
    let secrets = [".obsidian/plugins/ai/data.json", ".git/config", "Sub/.git/config", "Settings.md"];
    for path in secrets {
        let err = s.err("obsidian_read_file", json!({"filePath": path})).await;
        assert!(err.contains(".obsidian") || err.contains(".git"), "{path}: {err}");
        s.err("get_note_content", json!({"path": path})).await;
    }
    let config = crate::mcp_client::config(s.vault.path(), None);
    let server = Scholia::new(Settings { read_config: true, ..Settings::new(config) }).unwrap();
    let open = ().serve(crate::mcp_client::serve(server)).await.unwrap();
    let read = open.ok("obsidian_read_file", json!({"filePath": ".obsidian/plugins/ai/data.json"})).await;
    assert!(read["content"].as_str().unwrap().contains("apiKey"));
    open.err("obsidian_read_file", json!({"filePath": ".git/config"})).await;
}
