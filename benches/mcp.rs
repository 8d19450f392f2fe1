//! MCP server latency on a generated vault: process start to `initialize` answered, start to the
//! index built, per-call latency (p50/p95) of the read tools over stdio once it is, the server's
//! peak memory, and a full regular-expression scan next to ripgrep's on the same files.
//!
//! `cargo build --release --features mcp && cargo bench --features mcp --bench mcp [-- NOTES] [first]`
//!
//! `first`: only the first searches after start. `SCHOLIA_BENCH_VAULT=DIR`: measure that vault
//! (one `cargo run --release --example gen_vault -- DIR NOTES` wrote) instead of a new one.

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

    /// Polls `obsidian_check_status` every 100 ms until the index is ready (each poll lists the
    /// vault: a few hundred ms at 100k notes, on a core the build could use); the build's own
    /// time as the server reports it, in ms.
    fn wait_ready(&mut self) -> f64 {
        loop {
            let status =
                self.request("tools/call", json!({"name": "obsidian_check_status", "arguments": {}}));
            let index = &status["result"]["structuredContent"]["index"];
            if index["state"] == "ready" {
                return index["build_ms"].as_f64().unwrap_or(f64::NAN);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
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

/// The Markdown files under `dir`: how many, and their total size.
fn markdown(dir: &std::path::Path) -> (usize, u64) {
    let (mut notes, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                notes += 1;
                bytes += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    (notes, bytes)
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let notes: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(10_000);
    let only_first = std::env::args().skip(1).any(|a| a == "first");
    let temp = tempfile::tempdir().unwrap();
    let (dir, count, bytes) = match std::env::var_os("SCHOLIA_BENCH_VAULT") {
        Some(given) => {
            let dir = PathBuf::from(given);
            let (count, bytes) = markdown(&dir);
            (dir, count, bytes)
        }
        None => (temp.path().to_path_buf(), notes, vaultgen::write_vault(temp.path(), notes, 42).unwrap()),
    };
    println!("vault: {count} notes, {:.1} MB of Markdown", bytes as f64 / 1e6);
    if only_first {
        first_searches(&dir);
        return;
    }

    let mut starts: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            let mut server = Server::start(&dir);
            server.initialize();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    println!(
        "start -> initialize answered: p50 {:.1} ms, p95 {:.1} ms",
        percentile(&mut starts, 0.5),
        percentile(&mut starts, 0.95)
    );

    first_searches(&dir);

    let started = Instant::now();
    let mut server = Server::start(&dir);
    server.initialize();
    let build_ms = server.wait_ready();
    println!(
        "start -> index ready (100 ms polls of obsidian_check_status): {:.0} ms; the build itself: {build_ms:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let mut peak = server.peak_kb();
    println!("peak memory once the index is ready: {}", times_markdown(peak, bytes));
    let calls: Vec<(&str, Value)> = vec![
        ("get_note_metadata", json!({"path": vaultgen::note_path(1, notes)})),
        ("get_note_content", json!({"path": vaultgen::note_path(2, notes)})),
        ("obsidian_read_annotations", json!({"citekey": "paper8"})),
        ("search_vault", json!({"query": "retrieval evaluation"})),
        ("text_search", json!({"query": "knowledge graph latency"})),
        ("obsidian_global_search", json!({"query": "\"knowledge graph\" tag:ml"})),
        ("obsidian_search", json!({"query": "knowledge graph", "folder": "Ideas"})),
        ("obsidian_search", json!({"query": "zebrafish"})),
        ("tag_search", json!({"tags": ["project/alpha"]})),
        ("metadata_search", json!({"where": {"citekey": "paper16"}})),
        ("find_related_notes", json!({"path": vaultgen::note_path(3, notes)})),
        ("validate_vault", json!({"kinds": ["broken_link"]})),
        ("read_note", json!({"note": format!("[[{}]]", note_name(5, notes))})),
        ("obsidian_delete_file", json!({"filePath": vaultgen::note_path(6, notes), "dryRun": true})),
        (
            "obsidian_move_file",
            json!({"filePath": vaultgen::note_path(7, notes), "newPath": "Moved/", "dryRun": true}),
        ),
        ("get_vault_stats", json!({})),
    ];
    for (tool, args) in calls {
        let runs = if tool.starts_with("get_") { 200 } else { 50 };
        let mut samples: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let answer = server.request("tools/call", json!({"name": tool, "arguments": args}));
                assert_eq!(answer["result"]["isError"], false, "{tool}: {answer}");
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!(
            "{tool:<28} p50 {:>8.2} ms   p95 {:>8.2} ms   {}",
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.95),
            args.to_string().chars().take(60).collect::<String>()
        );
        if server.peak_kb() > peak {
            peak = server.peak_kb();
            println!("    peak memory grew: {}", times_markdown(peak, bytes));
        }
    }
    scan_versus_ripgrep(&mut server, &dir);
    println!("peak memory {}", times_markdown(server.peak_kb(), bytes));
}

/// The first searches of a client that asks at once, while the index is still being built:
/// each answer's time from the server's start, and when the index was ready meanwhile.
fn first_searches(vault: &std::path::Path) {
    let searches = [
        ("search_vault", json!({"query": "retrieval evaluation"})),
        ("obsidian_search", json!({"query": "zebrafish"})),
        ("obsidian_global_search", json!({"query": "\"knowledge graph\" tag:ml"})),
    ];
    for (tool, args) in searches {
        let started = Instant::now();
        let mut server = Server::start(vault);
        server.initialize();
        let answer = server.request("tools/call", json!({"name": tool, "arguments": args}));
        let answered = started.elapsed().as_secs_f64() * 1e3;
        assert_eq!(answer["result"]["isError"], false, "{tool}: {answer}");
        let from = answer["result"]["structuredContent"]["index"].as_str().unwrap_or("?").to_string();
        let build_ms = server.wait_ready();
        println!(
            "first {tool:<24} answered {answered:>7.0} ms after start (index {from}); index ready at {:.0} ms (build {build_ms:.0} ms)",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// A peak in kB as megabytes and as a multiple of the vault's Markdown size.
fn times_markdown(peak_kb: u64, bytes: u64) -> String {
    format!("{:.1} MB = {:.2}x the Markdown", peak_kb as f64 / 1e3, peak_kb as f64 * 1e3 / bytes as f64)
}

/// A regular expression over every note (`obsidian_global_search` in regex mode: every file read
/// and matched, on every core) next to `rg` over the same files, when it is installed.
/// The name of generated note `i` (its file name without `.md`), as an agent would write it.
fn note_name(i: usize, notes: usize) -> String {
    let path = vaultgen::note_path(i, notes);
    let name = path.rsplit('/').next().unwrap_or(&path);
    name.trim_end_matches(".md").to_string()
}

fn scan_versus_ripgrep(server: &mut Server, vault: &std::path::Path) {
    let pattern = "knowledge graph";
    let mut ours: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            let args = json!({"query": format!("/{pattern}/i")});
            let answer =
                server.request("tools/call", json!({"name": "obsidian_global_search", "arguments": args}));
            assert_eq!(answer["result"]["isError"], false, "{answer}");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let ours = percentile(&mut ours, 0.5);
    let rg = Command::new("rg")
        .args(["-n", "-i", "--no-messages", pattern])
        .arg(vault)
        .stdout(Stdio::null())
        .status();
    if rg.is_err() {
        println!(
            "regex full scan: p50 {ours:.1} ms (rg is not installed: apt-get install ripgrep for the floor)"
        );
        return;
    }
    let mut floor: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            let _ = Command::new("rg")
                .args(["-n", "-i", "--no-messages", pattern])
                .arg(vault)
                .stdout(Stdio::null())
                .status();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let floor = percentile(&mut floor, 0.5);
    println!(
        "regex full scan /{pattern}/i: p50 {ours:.1} ms; rg -n -i over the same files: p50 {floor:.1} ms; ratio {:.2}x",
        ours / floor
    );
}
