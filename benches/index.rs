//! The vault index in process, on generated vaults: cold build (in parallel, as the server does
//! it), ranked-query latency p50/p95 for several kinds of query (search and snippets of the top
//! 10, as `search_vault` does), one edited note reindexed, and the memory the index takes.
//!
//! `cargo bench --features mcp --bench index [-- NOTES...]` (default 1000 10000;
//! `SCHOLIA_BENCH_100K=1` adds 100000). The scans next to ripgrep are in `--bench mcp`.

#[path = "support/vaultgen.rs"]
mod vaultgen;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use scholia::index::service::{IndexOptions, IndexService};
use scholia::index::snippet::{self, Highlighter};
use scholia::index::{Query, Scope, VaultIndex};
use scholia::vault::{FsVault, Vault, VaultPath};

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// What `search_vault` does without the JSON: rank, then read and highlight the top 10.
fn ranked(vault: &dyn Vault, index: &VaultIndex, query: &str) -> usize {
    let query = Query::parse(query);
    let page = index.search(&query, &Scope::default(), 0, 10);
    let highlighter = Highlighter::new(&query);
    for hit in &page.hits {
        let text = vault.read(&hit.path).unwrap_or_default();
        let matches = highlighter.matches(&text);
        std::hint::black_box(snippet::snippet(&text, &matches, 100, 0));
    }
    page.total
}

fn run(notes: usize) {
    let dir = tempfile::tempdir().unwrap();
    let bytes = vaultgen::write_vault(dir.path(), notes, 42).unwrap();
    println!("\n== {notes} notes, {:.1} MB of Markdown", bytes as f64 / 1e6);
    let vault = Arc::new(FsVault::open(dir.path()).unwrap());

    // Cold build in the background, as the server starts it (page cache warm: just written).
    let before = rss_kb();
    let service = IndexService::start(Arc::clone(&vault), IndexOptions::default());
    assert!(service.wait_ready(Duration::from_secs(600)));
    let memory = rss_kb().saturating_sub(before) * 1024;
    let status = service.status();
    let build = status.build.unwrap();
    let mut rebuilds: Vec<f64> =
        (0..3).map(|_| service.rebuild(&|_, _| {}).unwrap().build.total_ms).collect();
    println!(
        "cold index ({} threads): {:.0} ms (list {:.0}, read+parse {:.0}, assemble {:.0}); rebuilds median {:.0} ms",
        build.threads,
        build.total_ms,
        build.list_ms,
        build.read_ms,
        build.assemble_ms,
        percentile(&mut rebuilds, 0.5)
    );
    println!(
        "index: {} notes, {} terms, {} postings; text index ~{:.1} MB; process memory grew {:.1} MB = {:.2}x the Markdown",
        status.notes,
        status.terms,
        status.postings,
        status.text_index_bytes as f64 / 1e6,
        memory as f64 / 1e6,
        memory as f64 / bytes as f64
    );

    let mid = notes / 2;
    let title = vaultgen::note_path(mid + 1, notes);
    let title = Path::new(&title).file_stem().unwrap().to_string_lossy().to_string();
    let kinds: Vec<(&str, String)> = vec![
        ("one word", "retrieval".into()),
        ("two words", "retrieval evaluation".into()),
        ("three words", "knowledge graph latency".into()),
        ("title words", title),
        ("citekey", format!("paper{}", (mid / 8) * 8)),
        ("phrase", "\"knowledge graph\"".into()),
        ("wildcard", "retriev*".into()),
        ("tag + path filters", "evaluation tag:ml path:Projects".into()),
        ("exclusion", "retrieval -evaluation".into()),
        ("unicode folded", "uberblick resume".into()),
        ("cjk", "知识".into()),
    ];
    let view = service.live().unwrap();
    println!("{:<20} {:>9} {:>9} {:>8}", "ranked query", "p50 ms", "p95 ms", "matches");
    for (kind, query) in &kinds {
        let mut total = 0;
        let mut samples: Vec<f64> = (0..200)
            .map(|_| {
                let t = Instant::now();
                total = ranked(vault.as_ref(), &view, query);
                ms(t.elapsed())
            })
            .collect();
        println!(
            "{kind:<20} {:>9.3} {:>9.3} {total:>8}",
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.95)
        );
    }
    drop(view);
    drop(service);

    // One edited note reindexed (what the watcher does for an event), on an index we own.
    let t = Instant::now();
    let mut index = VaultIndex::build(vault.as_ref(), &VaultPath::root()).unwrap();
    println!("single-thread build for comparison: {:.0} ms", ms(t.elapsed()));
    // What `validate_vault` and `get_vault_stats` compute on their first call after a change.
    let t = Instant::now();
    let issues = index.graph().validate();
    let validate = ms(t.elapsed());
    let t = Instant::now();
    let stats = index.graph().stats();
    println!(
        "first validate: {validate:.1} ms ({} issues); first stats: {:.1} ms ({} links, {} broken)",
        issues.len(),
        ms(t.elapsed()),
        stats.links,
        stats.broken_links
    );
    let mut edits: Vec<f64> = (0..60)
        .map(|k| {
            let path = VaultPath::new(&vaultgen::note_path(1 + k * (notes / 61).max(1), notes)).unwrap();
            let text = vault.read(&path).unwrap();
            vault.write(&path, &format!("{text}\nEdited {k}: a zebrafish sentence.\n")).unwrap();
            let t = Instant::now();
            let changes = index.update_paths(vault.as_ref(), std::slice::from_ref(&path));
            assert_eq!(changes.read, 1);
            ms(t.elapsed())
        })
        .collect();
    let p50 = percentile(&mut edits, 0.5);
    let p95 = percentile(&mut edits, 0.95);
    let new = VaultPath::new("Inbox/Brand new.md").unwrap();
    vault.write(&new, "A new note linking [[Note 1 beta]].").unwrap();
    let t = Instant::now();
    index.update_paths(vault.as_ref(), std::slice::from_ref(&new));
    let added = ms(t.elapsed());
    println!(
        "one edited note reindexed: p50 {p50:.2} ms, p95 {p95:.2} ms; a new note (links resolved again): {added:.1} ms"
    );
    assert!(index.verify(vault.as_ref()).unwrap().problems.is_empty());
}

fn main() {
    let mut sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000];
        if std::env::var_os("SCHOLIA_BENCH_100K").is_some() {
            sizes.push(100_000);
        }
    }
    for notes in sizes {
        run(notes);
    }
}
