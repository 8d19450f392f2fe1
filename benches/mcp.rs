//! MCP server latency on a generated vault: process start to `initialize` answered, and per-call
//! latency (p50/p95) of the read tools over stdio, plus the server's peak memory.
//!
//! `cargo build --release --features mcp && cargo bench --features mcp --bench mcp [-- NOTES]`

#[path = "support/vaultgen.rs"]
mod vaultgen;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap().to_path_buf();
    let bin = dir.join("scholia");
    assert!(
        bin.exists(),
        "build the server first: cargo build --release --features mcp ({} is missing)",
        bin.display()
    );
    bin
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    fn start(vault: &std::path::Path) -> Self {
        let mut child = Command::new(binary())
            .args(["mcp", "--vault", vault.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self { child, stdin, stdout, next: 1 }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        writeln!(self.stdin, "{line}").unwrap();
        loop {
            let mut answer = String::new();
            self.stdout.read_line(&mut answer).unwrap();
            let value: Value = serde_json::from_str(&answer).unwrap();
            if value["id"] == id {
                return value;
            }
        }
    }

    fn initialize(&mut self) {
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}});
        assert!(self.request("initialize", params)["result"].is_object());
        writeln!(self.stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    }

    fn peak_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let notes: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let bytes = vaultgen::write_vault(dir.path(), notes, 42).unwrap();
    println!("vault: {notes} notes, {:.1} MB of Markdown", bytes as f64 / 1e6);

    let mut starts: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            let mut server = Server::start(dir.path());
            server.initialize();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    println!(
        "start -> initialize answered: p50 {:.1} ms, p95 {:.1} ms",
        percentile(&mut starts, 0.5),
        percentile(&mut starts, 0.95)
    );

    let mut server = Server::start(dir.path());
    server.initialize();
    let calls: [(&str, Value); 5] = [
        ("get_note_metadata", json!({"path": vaultgen::note_path(1, notes)})),
        ("get_note_content", json!({"path": vaultgen::note_path(2, notes)})),
        ("obsidian_read_annotations", json!({"citekey": "paper8"})),
        ("search_vault", json!({"query": "retrieval evaluation"})),
        ("obsidian_search", json!({"query": "knowledge graph", "folder": "Ideas"})),
    ];
    for (tool, args) in calls {
        let runs = if tool.starts_with("get_") { 200 } else { 10 };
        let mut samples: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let answer = server.request("tools/call", json!({"name": tool, "arguments": args}));
                assert_eq!(answer["result"]["isError"], false, "{tool}: {answer}");
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!(
            "{tool:<28} p50 {:>8.2} ms   p95 {:>8.2} ms",
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.95)
        );
    }
    let peak = server.peak_kb();
    println!(
        "peak memory {:.1} MB = {:.2}x the Markdown",
        peak as f64 / 1e3,
        peak as f64 * 1e3 / bytes as f64
    );
}
