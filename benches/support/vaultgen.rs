#![allow(dead_code)] // each bench uses the part it needs
//! A generator of realistic Obsidian vaults for benchmarks: folders, frontmatter, wikilinks, tags,
//! tasks, tables (escaped `\|` in links and embeds), display math with text after its closing `$$`,
//! links to notes not written yet, attachments, annotation notes in the Zotero Integration
//! template, Unicode text and a few large notes.
//! Deterministic: the same seed and size give the same bytes.

use std::fmt::Write as _;
use std::path::Path;

/// A small, fast, deterministic PRNG (xorshift64*); benchmarks need no cryptographic quality.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (0 is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> Self {
        Self(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One item of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "retrieval",
    "augmented",
    "generation",
    "evaluation",
    "benchmark",
    "reproducibility",
    "variance",
    "seed",
    "ablation",
    "baseline",
    "transformer",
    "attention",
    "memory",
    "spacing",
    "recall",
    "learning",
    "curriculum",
    "dataset",
    "annotation",
    "citation",
    "hypothesis",
    "method",
    "result",
    "limitation",
    "threat",
    "validity",
    "sample",
    "effect",
    "size",
    "regression",
    "causal",
    "graph",
    "knowledge",
    "vault",
    "note",
    "embedding",
    "index",
    "query",
    "latency",
    "throughput",
    "Überblick",
    "naïve",
    "café",
    "résumé",
    "Straße",
    "мышление",
    "知识",
    "学习",
    "検索",
    "평가",
];
const TAGS: &[&str] = &[
    "ml",
    "ml/evaluation",
    "ml/rag",
    "reading",
    "review",
    "method",
    "stats",
    "project/alpha",
    "project/beta",
    "todo",
    "idea",
    "学习",
    "übersicht",
];
const FOLDERS: &[&str] =
    &["References", "Projects", "Daily", "Ideas", "Meetings", "Areas/Research", "Areas/Teaching", "Inbox"];
const COLORS: &[&str] = &["#2ea8e5", "#a28ae5", "#5fb236", "#aaaaaa", "#ff6666", "#f19837", "#ffd400"];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    s.push('.');
    s
}

/// The vault-relative path of note `i` of a vault of `n` notes.
pub fn note_path(i: usize, n: usize) -> String {
    let folder = FOLDERS[i % FOLDERS.len()];
    let shard = i / 500;
    if folder == "References" {
        format!("{folder}/{shard:03}/@paper{i}.md")
    } else {
        let _ = n;
        format!("{folder}/{shard:03}/Note {i} {}.md", ["alpha", "beta", "gamma", "δ"][i % 4])
    }
}

fn note_name(i: usize, n: usize) -> String {
    let path = note_path(i, n);
    path.rsplit('/').next().unwrap_or(&path).trim_end_matches(".md").to_string()
}

/// Text of an annotation note in the user's template.
pub fn annotation_note(rng: &mut Rng, i: usize, annotations: usize) -> String {
    let key = format!("paper{i}");
    let mut s = format!(
        "---\ncategory: Annotations\nstatus: Pending\ncitekey: {key}\ntags: {}, {}\n---\n\n> [!Cite]\n> [@{key}]\n\n# Annotations\n%% begin annotations %%\n## Imported: 2024-01-15 2:30 pm\n\n",
        rng.pick(TAGS),
        rng.pick(TAGS)
    );
    for a in 0..annotations {
        let hex = rng.pick(COLORS);
        let _ = writeln!(s, "<mark style=\"background-color: {hex}\">Highlight</mark>");
        match hex {
            "#2ea8e5" => {
                let _ = writeln!(s, "## **{}**", sentence(rng, 3).trim_end_matches('.'));
            }
            "#a28ae5" => {
                let _ = writeln!(s, "### **{}**", sentence(rng, 3).trim_end_matches('.'));
            }
            _ if a % 3 == 0 => {
                let _ = writeln!(
                    s,
                    "**{} {}**",
                    ["THESIS:", "Q:", "METHOD:", "LIMITATION:"][a % 4],
                    sentence(rng, 5)
                );
            }
            _ => {}
        }
        let words = 12 + rng.below(30);
        let _ = writeln!(s, "\"{}\"", sentence(rng, words));
        let _ = writeln!(s, "[@{key} p. {}]\n", 1 + rng.below(300));
    }
    s.push_str("%% end annotations %%\n\n%% Import Date: 2024-01-15T14:30:00.000+01:00 %%\n");
    s
}

/// Text of an ordinary note linking to others.
pub fn plain_note(rng: &mut Rng, i: usize, n: usize, paragraphs: usize) -> String {
    let mut s = format!(
        "---\ntitle: Note {i}\ntags: [{}, {}]\naliases: [n{i}]\n---\n\n# Note {i}\n\n",
        rng.pick(TAGS),
        rng.pick(TAGS)
    );
    for p in 0..paragraphs {
        if p % 4 == 0 {
            let _ = writeln!(s, "## {}\n", sentence(rng, 2).trim_end_matches('.'));
        }
        let target = note_name(rng.below(n), n);
        let _ = writeln!(
            s,
            "{} See [[{target}]] and #{} for more. {}\n",
            sentence(rng, 15),
            rng.pick(TAGS),
            sentence(rng, 10)
        );
        if p % 5 == 2 {
            let _ = writeln!(s, "- [ ] {}\n- [x] {}\n", sentence(rng, 5), sentence(rng, 4));
        }
        match (i + p) % 9 {
            // A table: in a row, an alias's or an embed size's `|` is escaped (`\|`).
            4 => {
                let target = note_name(rng.below(n), n);
                let figure = rng.below(FIGURES);
                let _ = writeln!(
                    s,
                    "| Note | Why |\n| --- | --- |\n| [[{target}\\|{}]] | {} |\n| ![[figure-{figure}.png\\|300]] | {} |\n",
                    rng.pick(WORDS),
                    sentence(rng, 4),
                    sentence(rng, 3)
                );
            }
            // Display math whose closing line goes on with text (links and tags follow it).
            6 => {
                let _ = writeln!(
                    s,
                    "$$\n\\sum_{{i=1}}^n {} = {}\n$$ and inline $x_{p}$ after it.\n",
                    rng.pick(WORDS),
                    rng.pick(WORDS)
                );
            }
            // A link to a note not written yet: unresolved, as vaults have many.
            8 => {
                let _ = writeln!(s, "Later: [[Draft {} {}]].\n", rng.below(n), rng.pick(WORDS));
            }
            _ => {}
        }
    }
    s
}

/// How many attachments (`Attachments/figure-K.png`) a vault holds for its embeds.
const FIGURES: usize = 20;

/// Writes a vault of `n` notes into `dir` (created); returns the total Markdown bytes written.
pub fn write_vault(dir: &Path, n: usize, seed: u64) -> std::io::Result<u64> {
    let mut rng = Rng::new(seed);
    std::fs::create_dir_all(dir.join(".obsidian"))?;
    std::fs::write(dir.join(".obsidian/app.json"), "{}\n")?;
    std::fs::create_dir_all(dir.join("Attachments"))?;
    for k in 0..FIGURES {
        std::fs::write(dir.join(format!("Attachments/figure-{k}.png")), b"\x89PNG\r\n\x1a\n")?;
    }
    let mut total = 0u64;
    for i in 0..n {
        let path = dir.join(note_path(i, n));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let text = if note_path(i, n).starts_with("References") {
            let count = 10 + rng.below(40);
            annotation_note(&mut rng, i, count)
        } else if i % 997 == 0 {
            plain_note(&mut rng, i, n, 400)
        } else {
            let paragraphs = 2 + rng.below(12);
            plain_note(&mut rng, i, n, paragraphs)
        };
        total += text.len() as u64;
        std::fs::write(path, text)?;
    }
    Ok(total)
}
