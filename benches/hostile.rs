//! Hostile notes in linear time. `cargo bench --bench hostile` reads each shape of
//! `support/hostile.rs` (openers that never close, thousands of distinct tags, links and aliases)
//! at N and 2N bytes through each reader of note text, each size in its own process, and prints
//! the best time of a few rounds at both sizes and their ratio: about 2 when the time is linear,
//! about 4 when it is quadratic (flagged `NOT LINEAR`). `SCHOLIA_BENCH_SIZE=bytes` sets N (default
//! 800 KB, the size of the note that once took 20 s); `SCHOLIA_BENCH_SHAPE=text` only the shapes
//! whose name holds it.
//!
//! Wall time on megabytes of distinct names also grows with the memory they take (cache misses,
//! the allocator's page faults), so a ratio a little above 2 there is not a quadratic step. The
//! work itself is counted by the instructions of one measure, e.g. shape 12 (distinct aliases)
//! at 400 KB, then at 800 KB:
//! `SCHOLIA_BENCH_CHILD=12,400000 valgrind --tool=cachegrind --cache-sim=no target/release/deps/hostile-…`

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
fn best_ms(f: Stage, text: &str) -> f64 {
    (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            f(text);
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

/// Set in the child that measures one shape at one size: `shape index,size`.
const CHILD: &str = "SCHOLIA_BENCH_CHILD";

/// In a child: the best time of every stage on one shape at one size, printed as one line of
/// milliseconds.
fn measure(spec: &str) {
    let (shape, size) = spec.split_once(',').expect("shape,size");
    let (_, make) = hostile::SHAPES[shape.parse::<usize>().expect("shape index")];
    let text = make(size.parse().expect("size"));
    let times: Vec<String> = STAGES.iter().map(|(_, f)| best_ms(*f, &text).to_string()).collect();
    println!("{}", times.join(" "));
}

/// The times of every stage on shape `shape` at `size` bytes, measured in a fresh process: one
/// size measured after the other in one process finds the allocator grown by the first (the
/// larger size then pays page faults the smaller did not, a ratio near 3 on linear code).
fn stage_times(shape: usize, size: usize) -> Vec<f64> {
    let exe = std::env::current_exe().expect("the bench's own path");
    let out = std::process::Command::new(exe)
        .env(CHILD, format!("{shape},{size}"))
        .output()
        .expect("the bench runs itself");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .split(' ')
        .map(|t| t.parse().expect("milliseconds"))
        .collect()
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        return measure(&spec);
    }
    let size: usize =
        std::env::var("SCHOLIA_BENCH_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(800_000);
    println!(
        "hostile notes: best of {ROUNDS} rounds, N = {size} bytes, each size in its own process; \
         ratio 2N/N (≈2 linear, ≈4 quadratic)"
    );
    let only = std::env::var("SCHOLIA_BENCH_SHAPE").unwrap_or_default();
    let mut worst: f64 = 0.0;
    for (i, (shape, _)) in hostile::SHAPES.iter().enumerate().filter(|(_, (name, _))| name.contains(&only)) {
        let (small, large) = (stage_times(i, size), stage_times(i, 2 * size));
        for (((stage, _), a), b) in STAGES.iter().zip(small).zip(large) {
            // Below a millisecond the ratio is noise.
            let ratio = if a < 1.0 { f64::NAN } else { b / a };
            worst = worst.max(if ratio.is_nan() { 0.0 } else { ratio });
            let flag = if ratio > 3.0 { "  NOT LINEAR" } else { "" };
            println!("{shape:44} {stage:12} N {a:9.2} ms  2N {b:9.2} ms  ratio {ratio:4.2}{flag}");
        }
    }
    println!("worst ratio: {worst:.2}");
}
