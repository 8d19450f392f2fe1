//! Every call answers: dates out of range, periodic notes at the ends of the calendar, malformed
//! and oversized JSON-RPC over stdio, a closed stdout pipe, and search answers that stop at their
//! budget. A call that never answered would hang a test, so each wait here has a bound (and fails
//! at it); none of them measures speed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::RunningService;
use rmcp::{RoleClient, model::CallToolResult};
use scholia::mcp::{Scholia, Settings};
use serde_json::{Value, json};

use crate::mcp_client::Tools;

/// How long a call may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);

/// A small vault: `.obsidian/` and one note.
fn small_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".obsidian")).unwrap();
    std::fs::write(dir.path().join("a.md"), "# A\n\nsome text\n").unwrap();
    dir
}

async fn client(vault: &Path) -> RunningService<RoleClient, ()> {
    let server = Scholia::new(Settings::new(crate::mcp_client::config(vault, None))).unwrap();
    ().serve(crate::mcp_client::serve(server)).await.unwrap()
}

/// The answer of a call, or a failed test when none comes.
async fn answer(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    tokio::time::timeout(HANG, client.call(tool, args))
        .await
        .unwrap_or_else(|_| panic!("{tool} never answered"))
}

fn error_of(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{:?}", result.structured_content);
    result.structured_content.as_ref().and_then(|v| v["error"].as_str()).unwrap_or_default().to_string()
}

#[tokio::test]
async fn dates_out_of_range_are_a_clear_error() {
    let vault = small_vault();
    let client = client(vault.path()).await;
    for phrase in ["20000 years ago", "19999y ago", "9999999 days ago", "last 99999 years"] {
        let result =
            answer(&client, "obsidian_global_search", json!({"query": "text", "modified_since": phrase}))
                .await;
        let err = error_of(&result);
        assert!(err.contains(phrase) && err.contains("-9999"), "{phrase}: {err}");
    }
}

#[tokio::test]
async fn periodic_notes_at_the_ends_of_the_calendar_answer() {
    let vault = small_vault();
    let client = client(vault.path()).await;
    for period in ["daily", "weekly", "monthly", "quarterly", "yearly"] {
        for date in ["9999-12-31", "-009999-01-01"] {
            let args = json!({"period": period, "date": date});
            let result = answer(&client, "obsidian_get_periodic_note", args).await;
            // There is no such note: the answer says where it would be.
            assert!(error_of(&result).contains("there is no"), "{period} {date}");
        }
    }
}

#[test]
fn periodic_names_and_templates_at_the_ends_of_the_calendar() {
    use jiff::civil::Date;
    use scholia::periodic::{Period, fill_template, format_moment};
    let (last, first) = (Date::MAX, Date::MIN);
    assert_eq!(format_moment("gggg-[W]ww", last), "10000-W01");
    assert!(format_moment("GGGG-[W]WW YYYY", last).ends_with(" 9999"));
    let noon = last.at(12, 0, 0, 0);
    for period in [Period::Daily, Period::Weekly, Period::Yearly] {
        for date in [first, last] {
            let out = fill_template(
                "{{date+99999y}} {{date-3w}} {{tomorrow}} {{saturday:YYYY}}",
                period,
                "YYYY-MM-DD",
                date,
                noon,
            );
            assert!(out.contains("{{date+99999y}}"), "{out}");
        }
    }
}

/// Runs `scholia ARGS` and returns its output, or fails the test when it does not end.
fn run_bounded(mut command: Command) -> std::process::Output {
    let child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let id = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(HANG) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            panic!("scholia did not end");
        }
    }
}

fn scholia() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_scholia"));
    command.env_remove("OBSIDIAN_VAULT_PATH").env("XDG_CONFIG_HOME", "/nonexistent");
    command
}

#[test]
fn scholia_call_answers_a_date_out_of_range() {
    let vault = small_vault();
    let mut command = scholia();
    command.args([
        "call",
        "obsidian_global_search",
        r#"{"query": "x", "modified_since": "20000 years ago"}"#,
    ]);
    command.args(["--vault", vault.path().to_str().unwrap()]);
    let out = run_bounded(command);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("20000 years ago") && !err.contains("panicked"), "{err}");
}

/// `scholia mcp` over stdio, initialised; lines it writes arrive on `lines`.
struct StdioServer {
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl StdioServer {
    fn start(vault: &Path) -> Self {
        let mut child = scholia()
            .args(["mcp", "--vault", vault.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || output.lines().map_while(Result::ok).try_for_each(|l| tx.send(l)));
        let mut server = StdioServer { child, input, lines };
        server.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
        assert_eq!(server.next()["id"], 1);
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
    }

    fn next(&self) -> Value {
        let line = self.lines.recv_timeout(HANG).expect("the server answered");
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn stdio_answers_malformed_and_oversized_requests() {
    let vault = small_vault();
    let mut server = StdioServer::start(vault.path());
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}"#);
    let answer = server.next();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!(3), json!(-32600)),
        "{answer}"
    );
    server.send(r#"{"jsonrpc":"2.0","id":4,"#);
    let answer = server.next();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (Value::Null, json!(-32700)),
        "{answer}"
    );
    let huge = "x".repeat(17 << 20);
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{{"name":"obsidian_search","arguments":{{"query":"{huge}"}}}}}}"#
    );
    server.send(&request);
    let answer = server.next();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (json!("big"), json!(-32600)),
        "{answer}"
    );
    assert!(answer["error"]["message"].as_str().unwrap().contains("MiB"), "{answer}");
    // The connection still serves.
    server.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    assert_eq!(server.next()["id"], 5);
}

/// Runs `scholia ARGS` with its stdout a pipe whose reading end is already closed.
fn into_closed_pipe(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut command = scholia();
    command.args(args);
    let child = command.stdin(Stdio::null()).stdout(writer).stderr(Stdio::piped()).spawn().unwrap();
    drop(command);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    rx.recv_timeout(HANG).expect("scholia ended").unwrap()
}

#[test]
fn a_closed_stdout_ends_the_output_quietly() {
    let vault = crate::check::root().join("tests/cases/families");
    let note = std::fs::read_dir(&vault)
        .unwrap()
        .filter_map(|f| std::fs::read_dir(f.ok()?.path().join("References")).ok())
        .flat_map(|d| d.filter_map(Result::ok))
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .unwrap();
    let example = crate::check::root().join("examples/vault");
    let example = example.to_str().unwrap();
    for args in [
        vec!["parse", note.to_str().unwrap()],
        vec!["doctor", "--vault", example],
        vec!["doctor", "--json", "--vault", example],
        vec!["tools", "--vault", example],
        vec!["call", "list_notes", "--vault", example],
    ] {
        let out = into_closed_pipe(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
}

#[tokio::test]
async fn a_literal_search_stops_at_the_answer_budget() {
    let vault = small_vault();
    let line = "a line with a dot. ".repeat(4) + "\n";
    std::fs::write(vault.path().join("big.md"), line.repeat(20_000)).unwrap();
    for i in 0..40 {
        std::fs::write(vault.path().join(format!("n{i}.md")), line.repeat(50)).unwrap();
    }
    let client = client(vault.path()).await;
    let answer = client.ok("obsidian_search", json!({"query": "."})).await;
    assert_eq!(answer["total_files"], 41, "{answer}");
    assert_eq!(answer["truncated"], true);
    let first = &answer["results"][0];
    assert_eq!(first["path"], "big.md");
    assert_eq!(first["total_lines"], 20_000, "{first}");
    let next = answer["next"].clone();
    let page = client.ok("obsidian_search", next).await;
    assert_eq!(page["total_files"], 41);
    assert_ne!(page["results"][0]["path"], "big.md");
}
