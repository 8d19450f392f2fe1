//! The `scholia` binary: exit codes and one-line errors (built with `--features mcp`).
#![cfg(feature = "mcp")]

use std::path::Path;
use std::process::{Command, Output};

fn scholia(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scholia"))
        .args(args)
        .current_dir(cwd)
        .env_remove("OBSIDIAN_VAULT_PATH")
        .env_remove("OBSIDIAN_SYNTHESIS_FOLDER")
        .env("XDG_CONFIG_HOME", cwd.join("no-config"))
        .output()
        .expect("run scholia")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn vault_with_note() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".obsidian")).unwrap();
    std::fs::create_dir_all(dir.path().join("References")).unwrap();
    std::fs::write(
        dir.path().join("References/@smith2023.md"),
        "---\ncategory: Annotations\ncitekey: smith2023\n---\n# Annotations\n",
    )
    .unwrap();
    dir
}

#[test]
fn missing_file_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = scholia(&["parse", "nope.md"], dir.path());
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.starts_with("scholia: cannot read nope.md"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn no_vault_says_how_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "x").unwrap();
    let out = scholia(&["summarize", "a.md"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("pass --vault DIR"), "{}", stderr(&out));
}

#[test]
fn bad_date_is_refused() {
    let vault = vault_with_note();
    let out = scholia(&["summarize", "References/@smith2023.md", "--date", "22/11/2026"], vault.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("write it as YYYY-MM-DD"), "{}", stderr(&out));
}

#[test]
fn note_outside_the_vault_is_refused() {
    let vault = vault_with_note();
    let elsewhere = tempfile::tempdir().unwrap();
    let note = elsewhere.path().join("x.md");
    std::fs::write(&note, "x").unwrap();
    let out = scholia(
        &["summarize", note.to_str().unwrap(), "--vault", vault.path().to_str().unwrap()],
        vault.path(),
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is not inside the vault"), "{}", stderr(&out));
}

#[test]
fn unknown_colour_lists_the_valid_ones() {
    let vault = vault_with_note();
    let out = scholia(&["parse", "References/@smith2023.md", "--colors", "positive,purpleish"], vault.path());
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("unknown colour \"purpleish\"") && err.contains("question"), "{err}");
}

#[test]
fn synthesize_needs_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = scholia(&["synthesize"], dir.path());
    assert!(!out.status.success());
}

/// Copies `tests/fixtures/vault` into a fresh temporary folder.
fn fixture_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::check::copy_dir(&crate::check::root().join("tests/fixtures/vault"), dir.path());
    dir
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "scholia failed: {}", stderr(out));
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn parse_reads_crlf_bom_and_unicode_citekeys() {
    let vault = fixture_vault();
    let cases = [
        ("References/@smith2023.md", "smith2023", 3),
        ("References/Deutsch/@müllerÜberblick2021.md", "müllerÜberblick2021", 2),
        ("References/@李2020深度.md", "李2020深度", 1),
        ("References/@2019first-key.md", "2019first-key", 1),
        ("References/Broken frontmatter.md", "broken2020", 1),
    ];
    for (file, citekey, count) in cases {
        let doc: serde_json::Value =
            serde_json::from_str(&stdout(&scholia(&["parse", file], vault.path()))).unwrap();
        assert_eq!(doc["citekey"], citekey, "{file}");
        assert_eq!(doc["annotations"].as_array().unwrap().len(), count, "{file}");
        assert!(Path::new(doc["file_path"].as_str().unwrap()).is_absolute());
    }
    let only: serde_json::Value = serde_json::from_str(&stdout(&scholia(
        &["parse", "References/@smith2023.md", "--colors", "negative,#5FB236"],
        vault.path(),
    )))
    .unwrap();
    let colors: Vec<&str> =
        only["annotations"].as_array().unwrap().iter().map(|a| a["color"].as_str().unwrap()).collect();
    assert_eq!(colors, ["positive", "negative"]);
}

#[test]
fn summarize_and_synthesize_write_numbered_notes_inside_the_vault() {
    let vault = fixture_vault();
    let args = ["summarize", "References/@smith2023.md", "--write", "--date", "2024-06-01"];
    let first = stdout(&scholia(&args, vault.path()));
    let second = stdout(&scholia(&args, vault.path()));
    assert!(first.trim().ends_with("Synthesis/Summary - Machine Learning Survey.md"), "{first}");
    assert!(second.trim().ends_with("Synthesis/Summary - Machine Learning Survey 1.md"), "{second}");
    let summary = std::fs::read_to_string(first.trim()).unwrap();
    assert!(summary.starts_with("---\ntype: summary\nsource: \"[[@smith2023]]\"\n"), "{summary}");
    assert!(summary.contains("\ncreated: 2024-06-01\n") && summary.contains("\nannotations: "), "{summary}");
    assert!(summary.contains("[[@smith2023#Methods|p. 9]]"), "{summary}");

    let notes = [
        "References/@smith2023.md",
        "References/Deutsch/@müllerÜberblick2021.md",
        "References/@2019first-key.md",
    ];
    let mut args = vec!["synthesize"];
    args.extend(notes);
    args.extend(["--theme", "Methods", "--date", "2024-06-01"]);
    let printed = stdout(&scholia(&args, vault.path()));
    assert!(printed.contains("# Synthesis: Methods"), "{printed}");
    assert!(printed.contains("[[@müllerÜberblick2021]]"));
    // Nothing was written without --write, and the annotation notes were never modified.
    assert!(!vault.path().join("Synthesis/Synthesis - Methods - 2024-06-01.md").exists());
    let original = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vault/References/@smith2023.md"),
    )
    .unwrap();
    assert_eq!(std::fs::read(vault.path().join("References/@smith2023.md")).unwrap(), original);
}

mod mcp_http {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;
    use std::process::{Child, Command, Stdio};

    struct Server(Child);

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Starts `scholia mcp --http 127.0.0.1:0` and returns it with the address it printed.
    fn start(extra: &[&str]) -> (Server, String) {
        start_on("127.0.0.1:0", extra)
    }

    /// Starts `scholia mcp --http BIND` and returns it with the address it printed.
    fn start_on(bind: &str, extra: &[&str]) -> (Server, String) {
        let vault = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vault");
        let mut child = Command::new(env!("CARGO_BIN_EXE_scholia"))
            .args(["mcp", "--vault", vault.to_str().unwrap(), "--http", bind])
            .args(extra)
            .env("SCHOLIA_TOKEN", "test-token")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("the server said where it listens").unwrap();
            if let Some(rest) = line.split("http://").nth(1) {
                break rest.split("/mcp").next().unwrap().to_string();
            }
        };
        (Server(child), addr)
    }

    fn post(addr: &str, auth: Option<&str>, host: &str) -> String {
        post_from(addr, auth, host, None)
    }

    /// `post` with an `Origin` header, as a browser sends it.
    fn post_from(addr: &str, auth: Option<&str>, host: &str, origin: Option<&str>) -> String {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let mut auth = auth.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
        if let Some(origin) = origin {
            auth.push_str(&format!("Origin: {origin}\r\n"));
        }
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
        let _ = stream.read_to_string(&mut response);
        response
    }

    #[test]
    fn http_needs_the_bearer_token_and_a_local_host() {
        let (_server, addr) = start(&[]);
        let denied = post(&addr, None, "127.0.0.1");
        assert!(denied.starts_with("HTTP/1.1 401"), "{denied}");
        let wrong = post(&addr, Some("guess"), "127.0.0.1");
        assert!(wrong.starts_with("HTTP/1.1 401"), "{wrong}");
        let ok = post(&addr, Some("test-token"), "127.0.0.1");
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        assert!(ok.contains("\"serverInfo\"") && ok.contains("scholia"), "{ok}");
        let rebound = post(&addr, Some("test-token"), "evil.example.com");
        assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    }

    #[test]
    fn loopback_is_all_of_127_and_the_ipv6_one() {
        let (_server, addr) = start_on("127.0.0.2:0", &[]);
        assert!(addr.starts_with("127.0.0.2:"), "{addr}");
        let port = addr.rsplit(':').next().unwrap();
        let ok = post(&addr, Some("test-token"), &addr);
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        for origin in [
            format!("http://[::1]:{port}"),
            format!("http://127.0.0.2:{port}"),
            "http://localhost:3000".into(),
        ] {
            let ok = post_from(&addr, Some("test-token"), &addr, Some(&origin));
            assert!(ok.starts_with("HTTP/1.1 200"), "{origin}: {ok}");
        }
        for origin in ["http://evil.example.com", "null", "http://127.0.0.2.evil.example.com"] {
            let refused = post_from(&addr, Some("test-token"), &addr, Some(origin));
            assert!(refused.starts_with("HTTP/1.1 403"), "{origin}: {refused}");
        }
        let (_server, addr) = start_on("[::1]:0", &[]);
        let ok = post_from(&addr, Some("test-token"), &addr, Some("http://127.0.0.1:9"));
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        let rebound = post(&addr, Some("test-token"), "evil.example.com");
        assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    }

    #[test]
    fn non_loopback_addresses_are_refused_without_allow_remote() {
        let vault = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vault");
        let out = Command::new(env!("CARGO_BIN_EXE_scholia"))
            .args(["mcp", "--vault", vault.to_str().unwrap(), "--http", "0.0.0.0:0"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    }

    #[test]
    fn a_missing_vault_stops_the_server_with_one_line() {
        let out = Command::new(env!("CARGO_BIN_EXE_scholia"))
            .args(["mcp", "--vault", "/no/such/vault"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("/no/such/vault") && err.trim().lines().count() == 1, "{err}");
    }
}

#[test]
fn call_runs_a_tool_and_prints_its_answer() {
    let dir = vault_with_note();
    let vault = dir.path().to_str().unwrap();
    let out = scholia(
        &[
            "call",
            "create_note",
            r#"{"path": "Inbox/Idea.md", "content": "See [[@smith2023]]."}"#,
            "--vault",
            vault,
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((answer["path"].as_str(), answer["success"].as_bool()), (Some("Inbox/Idea.md"), Some(true)));
    let out = scholia(&["call", "read_note", r#"{"note": "[[Idea]]"}"#, "--vault", vault], dir.path());
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(answer["content"].as_str().unwrap().contains("[[@smith2023]]"));
    let out = scholia(
        &["call", "get_note_metadata", r#"{"path": "References/@smith2023.md"}"#, "--vault", vault],
        dir.path(),
    );
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["backlinks"][0]["path"], "Inbox/Idea.md", "{answer}");
}

#[test]
fn call_refuses_what_needs_approval_until_yes() {
    let dir = vault_with_note();
    let vault = dir.path().to_str().unwrap();
    let out = scholia(&["call", "delete_note", r#"{"note": "@smith2023"}"#, "--vault", vault], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("add --yes"), "{}", stderr(&out));
    assert!(dir.path().join("References/@smith2023.md").exists());
    let out =
        scholia(&["call", "delete_note", r#"{"note": "@smith2023"}"#, "--vault", vault, "--yes"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!dir.path().join("References/@smith2023.md").exists());
    let out = scholia(
        &["call", "create_note", r#"{"path": "x.md", "content": ""}"#, "--vault", vault, "--read-only"],
        dir.path(),
    );
    assert!(
        !out.status.success() && stderr(&out).contains("no tool named \"create_note\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn call_explains_bad_arguments_and_unknown_tools() {
    let dir = vault_with_note();
    let vault = dir.path().to_str().unwrap();
    let out = scholia(&["call", "search_vault", "{query", "--vault", vault], dir.path());
    assert!(stderr(&out).contains("not valid JSON"), "{}", stderr(&out));
    let out = scholia(&["call", "search_vaults", "--vault", vault], dir.path());
    assert!(stderr(&out).contains("the tools are:") && stderr(&out).contains("search_vault,"));
    let out = scholia(&["call", "read_note", r#"{"note": "Nobody"}"#, "--vault", vault], dir.path());
    assert!(stderr(&out).starts_with("scholia: read_note: no note or file named"), "{}", stderr(&out));
    let out = scholia(&["tools", "--vault", vault], dir.path());
    assert!(stdout(&out).lines().any(|l| l.starts_with("obsidian_move_file ")));
}

/// The server's tools as clients see them (names, descriptions, schemas, read-only and destructive
/// hints): a change to any of them shows here first, and is made on purpose
/// (`UPDATE_SNAPSHOTS=1 cargo test --all-features --test main cli::tools_list_is_the_golden_one`).
#[test]
fn tools_list_is_the_golden_one() {
    let vault = vault_with_note();
    let out = scholia(&["tools", "--json", "--vault", vault.path().to_str().unwrap()], vault.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8(out.stdout).expect("utf-8");
    crate::check::check(&crate::check::root().join("tests/cases/mcp/tools.json"), &listed);
}
