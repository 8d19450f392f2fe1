//! kill -9 in the middle of writes: a `scholia mcp` child process overwrites and appends to a few
//! notes, calls sent ahead of their answers so writes are always under way, and is killed with
//! SIGKILL at a random moment, 40 times. After each kill every note is at its path and whole
//! (one complete version, plus whole appended lines), and no temporary file shows as a note;
//! the next open of the vault sweeps the temporary files a killed writer left.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use scholia::vault::{FsVault, Vault, VaultPath};
use serde_json::{Value, json};

const NOTES: [&str; 3] = ["A.md", "Sub/B.md", "Sub/Deep/C.md"];
const ROUNDS: usize = 40;
/// Lines in a version: big enough that writing one takes a while.
const BODY_LINES: usize = 4000;
const APPENDED: &str = "appended line, whole or not at all";
/// How long the test waits for an answer before calling the server hung.
const HANG: Duration = Duration::from_secs(60);

/// Version `v` of a note: a head, the body, an end line.
fn version(v: usize) -> String {
    let mut text = format!("# v{v}\n");
    for i in 0..BODY_LINES {
        text.push_str(&format!("v{v} body line {i} of a note that must never be cut\n"));
    }
    text + &format!("end v{v}\n")
}

/// Whether `text` is one whole version followed by whole appended lines.
fn whole(text: &str) -> Result<(), String> {
    let head = text.lines().next().ok_or("empty")?;
    let v: usize = head.strip_prefix("# v").and_then(|v| v.parse().ok()).ok_or(format!("head {head:?}"))?;
    let full = version(v);
    let rest = text.strip_prefix(full.as_str()).ok_or(format!("version {v} is cut"))?;
    match rest.lines().all(|l| l.is_empty() || l == APPENDED) && (rest.is_empty() || rest.ends_with('\n')) {
        true => Ok(()),
        false => Err(format!("appended lines are cut: {:?}", &rest[rest.len().saturating_sub(80)..])),
    }
}

/// A small pseudo-random generator (xorshift), seeded from the clock: where the kills land.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `scholia mcp` over stdio in a child process, initialised.
pub struct Child {
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Child {
    pub fn start(vault: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scholia"))
            .args(["mcp", "--vault", vault.to_str().unwrap()])
            .env_remove("OBSIDIAN_VAULT_PATH")
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || output.lines().map_while(Result::ok).try_for_each(|l| tx.send(l)));
        let mut server = Child { child, input, lines, next_id: 1000 };
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        server.send(init);
        server.next();
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
    }

    /// The next line the server writes, as JSON.
    pub fn next(&self) -> Value {
        let line = self.lines.recv_timeout(HANG).expect("the server answered");
        serde_json::from_str(&line).unwrap()
    }

    /// Calls `tool` and waits for its answer (the whole JSON-RPC response).
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        self.send(&request.to_string());
        loop {
            let answer = self.next();
            if answer["id"] == json!(id) {
                return answer;
            }
        }
    }

    /// Waits (bounded) until the server's index is built.
    pub fn wait_ready(&mut self) {
        for _ in 0..3000 {
            let stats = self.call("get_vault_stats", json!({}));
            if stats["result"]["structuredContent"]["index"] == "ready" {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the index never got ready");
    }

    /// Kills the server with SIGKILL.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `n`th write of a round: overwrites and appends, in turn over the notes.
fn call(n: usize, round: usize) -> String {
    let path = NOTES[n % NOTES.len()];
    let (tool, args) = match n % 2 {
        0 => (
            "obsidian_write_note",
            json!({"path": path, "content": version(round * 100 + n), "overwrite": true, "confirm": true}),
        ),
        _ => ("append_to_note", json!({"path": path, "content": format!("{APPENDED}\n")})),
    };
    json!({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string()
}

fn check_notes(root: &Path, round: usize) {
    for note in NOTES {
        let text = std::fs::read_to_string(root.join(note))
            .unwrap_or_else(|e| panic!("round {round}: {note} is missing: {e}"));
        whole(&text).unwrap_or_else(|e| panic!("round {round}: {note}: {e}"));
    }
    let listed = FsVault::open(root).unwrap().list(&VaultPath::root()).unwrap();
    let names: Vec<&str> = listed.iter().map(|f| f.path.as_str()).collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "round {round}: {names:?}");
}

/// Files under `dir` whose name is a temporary file's.
fn temp_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().unwrap().is_dir() {
            out.extend(temp_files(&entry.path()));
        } else if name.starts_with(".scholia-") {
            out.push(name);
        }
    }
    out
}

#[test]
fn kill_9_during_writes_never_loses_or_cuts_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    std::fs::create_dir_all(root.join("Sub/Deep")).unwrap();
    for note in NOTES {
        std::fs::write(root.join(note), version(0)).unwrap();
    }
    let mut dice = Dice(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
    );
    for round in 1..=ROUNDS {
        let mut server = Child::start(&root);
        for n in 0..24 {
            server.send(&call(n, round));
        }
        // Kill after a random number of answers, a random moment later.
        for _ in 0..dice.below(8) {
            server.next();
        }
        std::thread::sleep(Duration::from_micros(dice.below(3000)));
        server.kill();
        check_notes(&root, round);
    }
    // The vault opened again by a writer: the temporary files the kills left are gone.
    let vault = FsVault::open(&root).unwrap();
    vault.append(&VaultPath::new("A.md").unwrap(), "").unwrap();
    vault.list(&VaultPath::root()).unwrap();
    assert_eq!(temp_files(&root), Vec::<String>::new());
}

/// Two server processes append to one note at once: every append lands, once.
#[test]
fn two_servers_appending_to_one_note_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Log.md"), "# Log\n").unwrap();
    let mut servers = [Child::start(dir.path()), Child::start(dir.path())];
    for i in 0..20 {
        for (s, server) in servers.iter_mut().enumerate() {
            let args = json!({"path": "Log.md", "content": format!("entry {s}-{i}\n")});
            let request = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "append_to_note", "arguments": args}});
            server.send(&request.to_string());
        }
    }
    for server in &servers {
        for _ in 0..20 {
            assert_ne!(server.next()["result"]["isError"], json!(true));
        }
    }
    let text = std::fs::read_to_string(dir.path().join("Log.md")).unwrap();
    for (s, i) in (0..2).flat_map(|s| (0..20).map(move |i| (s, i))) {
        assert_eq!(text.matches(&format!("entry {s}-{i}\n")).count(), 1, "{s}-{i}: {text}");
    }
}
