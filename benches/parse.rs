//! Parse throughput on a generated corpus of annotation notes in every template style.
//! `cargo bench --bench parse` prints MB/s (best of several rounds, one core).

#[path = "support/vaultgen.rs"]
mod vaultgen;

use std::hint::black_box;
use std::time::Instant;

use scholia::annotations::{ParseOptions, parse};

fn other_styles(rng: &mut vaultgen::Rng, i: usize) -> String {
    let mut s = format!("---\ncitekey: other{i}\n---\n# Other {i}\n\n");
    for a in 0..30 {
        let words = 15 + rng.below(25);
        let text: Vec<&str> =
            (0..words).map(|_| rng.pick(&["retrieval", "évaluation", "学习", "memory", "index"])).collect();
        let text = text.join(" ");
        match a % 3 {
            0 => s.push_str(&format!(
                "> [!quote|#ffd400]\n> {text}\n> ([p. {a}](zotero://open-pdf/library/items/AB{i}?page={a}&annotation=X{a}))\n\nQ: why {a}\n\n"
            )),
            1 => s.push_str(&format!(
                "> “{text}” Green Highlight [Page {a}](zotero://open-pdf/library/items/AB{i}?page={a}&annotation=Y{a})\n\nA comment {a}\n\n"
            )),
            _ => s.push_str(&format!("<mark class=\"hltr-red\">\"{text}\"</mark> [@other{i} p. {a}]\n**LIMITATION: l{a}**\n\n")),
        }
    }
    s
}

fn main() {
    let mut rng = vaultgen::Rng::new(7);
    let mut corpus = Vec::new();
    for i in 0..600 {
        let note =
            if i % 4 == 3 { other_styles(&mut rng, i) } else { vaultgen::annotation_note(&mut rng, i, 40) };
        corpus.push(note);
    }
    let bytes: usize = corpus.iter().map(String::len).sum();
    let options = ParseOptions::default();
    let mut best = f64::MAX;
    let mut annotations = 0;
    for _ in 0..15 {
        let start = Instant::now();
        annotations = 0;
        for note in &corpus {
            annotations += black_box(parse(black_box(note), "/vault/x.md", &options)).annotations.len();
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "parse: {} notes, {:.1} MB, {annotations} annotations: best {:.1} ms = {:.0} MB/s",
        corpus.len(),
        bytes as f64 / 1e6,
        best * 1e3,
        bytes as f64 / 1e6 / best
    );
}
