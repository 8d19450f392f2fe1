//! Hostile notes in linear time. `cargo bench --bench hostile` reads each shape of
//! `support/hostile.rs` (openers that never close, thousands of distinct tags, links and aliases)
//! at N and 2N bytes through each reader of note text, and prints the best time of a few rounds
//! at both sizes and their ratio: about 2 when the time is linear, about 4 when it is quadratic
//! (flagged `NOT LINEAR`). `SCHOLIA_BENCH_SIZE=bytes` sets N (default 800 KB, the size of the
//! note that once took 20 s); `SCHOLIA_BENCH_SHAPE=text` only the shapes whose name holds it.

#[path = "support/hostile.rs"]
mod hostile;

use std::hint::black_box;
use std::time::Instant;

use scholia::annotations::{ParseOptions, is_annotation_note, parse};
use scholia::index::VaultIndex;
use scholia::index::graph::Graph;
use scholia::note::Note;
use scholia::vault::{MemVault, VaultPath};

/// Rounds per measure; the best is reported.
const ROUNDS: usize = 3;

/// A reader of a note's text.
type Stage = fn(&str);

/// The readers of a note's text, by name.
const STAGES: &[(&str, Stage)] = &[("note", note), ("annotations", annotations), ("index", index)];

fn note(text: &str) {
    let note = Note::parse(text);
    black_box((note.tag_names(), note.anchors()));
}

fn annotations(text: &str) {
    let options = ParseOptions::default();
    black_box((parse(text, "/vault/hostile.md", &options), is_annotation_note(text, &options)));
}

fn index(text: &str) {
    let vault = MemVault::with_files([("hostile.md", text), ("other.md", "see [[hostile]]")]).unwrap();
    black_box(Graph::build(&vault).unwrap());
    black_box(VaultIndex::build(&vault, &VaultPath::root()).unwrap());
}

/// The best time of `f(text)` over [`ROUNDS`], in ms.
fn best_ms(f: fn(&str), text: &str) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            f(text);
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let size: usize =
        std::env::var("SCHOLIA_BENCH_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(800_000);
    println!(
        "hostile notes: best of {ROUNDS} rounds, N = {size} bytes; ratio 2N/N (≈2 linear, ≈4 quadratic)"
    );
    let only = std::env::var("SCHOLIA_BENCH_SHAPE").unwrap_or_default();
    let mut worst: f64 = 0.0;
    for (shape, make) in hostile::SHAPES.iter().filter(|(name, _)| name.contains(&only)) {
        let (small, large) = (make(size), make(2 * size));
        for (stage, f) in STAGES {
            let (a, b) = (best_ms(*f, &small), best_ms(*f, &large));
            // Below a millisecond the ratio is noise.
            let ratio = if a < 1.0 { f64::NAN } else { b / a };
            worst = worst.max(if ratio.is_nan() { 0.0 } else { ratio });
            let flag = if ratio > 3.0 { "  NOT LINEAR" } else { "" };
            println!("{shape:44} {stage:12} N {a:9.2} ms  2N {b:9.2} ms  ratio {ratio:4.2}{flag}");
        }
    }
    println!("worst ratio: {worst:.2}");
}
