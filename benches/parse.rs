//! Parse throughput and template compilation time. `cargo bench --bench parse` prints one line per
//! measure (best of several rounds, one core):
//!
//! - the built-in rules (`ParseOptions::default()`) on a generated corpus of annotation notes in
//!   every built-in style, on every fixture family's notes (`tests/cases/families/*/References`,
//!   each replicated with a varied frontmatter so no two copies are identical), per family and
//!   overall;
//! - each templated family's notes read with its own compiled template (found as the user's setup
//!   is: `library::setup::discover` on the family folder), per family and overall, with the share
//!   of `Template::read` in it and the built-in rules' speed on the same notes for comparison;
//! - the generated corpus with a template that matches none of it (what a user with a template pays
//!   on their other notes);
//! - compiling each family's `Templates/zotero.md` (and the round trip's example template).
//!
//! `SCHOLIA_BENCH_FAMILY=<name>`: only that family (for profiling); `SCHOLIA_BENCH_BUILTIN_ONLY=1`:
//! only the built-in rules' measures; `SCHOLIA_BENCH_DIR=<folder>`: only the built-in rules on
//! every note under that folder (a local copy of real notes, which the repository does not hold).
//! Targets: parse ≥ 200 MB/s with the built-in rules; a typical template compiles in ≤ 1 ms.

#[path = "support/vaultgen.rs"]
mod vaultgen;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use scholia::annotations::template::Template;
use scholia::annotations::{ParseOptions, TemplateStyle, parse};
use scholia::library::setup;
use scholia::note::frontmatter::body_start;
use scholia::vault::FsVault;

/// Rounds per throughput measure; the best is reported.
const ROUNDS: usize = 15;
/// Copies of each family note in the corpus.
const COPIES: usize = 200;

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

/// Copy `k` of a family note: the same body, a frontmatter line of its own (a frontmatter block
/// added when the note has none), so the copies are not byte-identical. The line's value starts
/// with a letter: a value like `0-0` is one the frontmatter's fast path leaves to the YAML reader,
/// and the copies would then measure that reader on every note instead of the notes' own blocks.
fn variant(note: &str, k: usize) -> String {
    let line = format!("bench-copy: copy{k}-{:x}\n", k.wrapping_mul(0x9e37_79b9) & 0xff_ffff);
    match note.strip_prefix("---\n") {
        Some(rest) => format!("---\n{line}{rest}"),
        None => format!("---\n{line}---\n{note}"),
    }
}

/// One fixture family: its notes and, when it has a template, the options that use it.
struct Family {
    name: String,
    dir: PathBuf,
    notes: Vec<String>,
    templated: Option<ParseOptions>,
    /// Why its template, if it has one, is not used.
    template_problem: Option<String>,
}

fn families(root: &Path, only: Option<&str>) -> Vec<Family> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("tests/cases/families")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("References").is_dir())
        .filter(|p| only.is_none_or(|o| p.file_name().is_some_and(|n| n == o)))
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("References"))
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect();
            files.sort();
            let notes = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
            let (mut templated, mut template_problem) = (None, None);
            if dir.join("Templates/zotero.md").is_file() {
                let vault = FsVault::open(&dir).expect("family vault");
                let found = setup::discover(&vault, None);
                if found.templates.is_empty() {
                    let problems: Vec<String> = found
                        .report
                        .templates
                        .iter()
                        .map(|t| format!("{}: {}", t.path, t.problems.join("; ")))
                        .chain(found.report.problems.iter().cloned())
                        .collect();
                    template_problem = Some(problems.join(" | "));
                } else {
                    templated = Some(ParseOptions { templates: found.templates, ..ParseOptions::default() });
                }
            }
            Family { name, dir, notes, templated, template_problem }
        })
        .collect()
}

/// Best wall time of `ROUNDS` runs of `f`, and what its last run returned.
fn best_of<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.unwrap())
}

/// Parses every note of each (corpus, options) pair once; the number of annotations found.
fn parse_all(sets: &[(&[String], &ParseOptions)]) -> usize {
    let mut annotations = 0;
    for (notes, options) in sets {
        for note in notes.iter() {
            annotations += black_box(parse(black_box(note), "/vault/x.md", options)).annotations.len();
        }
    }
    annotations
}

fn bytes(notes: &[String]) -> usize {
    notes.iter().map(String::len).sum()
}

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}

fn line(label: &str, notes: usize, bytes: usize, annotations: usize, secs: f64) -> String {
    format!(
        "{label}: {notes} notes, {:.2} MB, {annotations} annotations: best {:.2} ms = {:.0} MB/s",
        bytes as f64 / 1e6,
        secs * 1e3,
        mbps(bytes, secs)
    )
}

/// Compiles `path` (loader: the family folder, as `setup::discover` resolves includes) until
/// `budget` is spent (at least 20, at most 2000 times): (median µs, best µs, runs, loops).
fn compile_times(
    name: &str,
    root: &Path,
    path: &Path,
    budget: Duration,
) -> Result<(f64, f64, usize, usize), String> {
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let loader = |include: &str| {
        let target = include.trim().trim_start_matches('/').trim_start_matches("[[").trim_end_matches("]]");
        let file = if target.ends_with(".md") { target.to_string() } else { format!("{target}.md") };
        std::fs::read_to_string(root.join(file)).ok()
    };
    let loops = Template::compile(name, &source, &loader).map_err(|e| e.to_string())?.loop_count();
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 20 || (times.len() < 2000 && start.elapsed() < budget) {
        let t = Instant::now();
        black_box(Template::compile(name, black_box(&source), &loader).unwrap());
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], times[0], times.len(), loops))
}

/// Every `.md` file under `dir` (hidden folders skipped).
fn notes_under(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_dir() && !hidden {
            notes_under(&path, out);
        } else if path.extension().is_some_and(|x| x == "md")
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            out.push(text);
        }
    }
}

fn main() {
    if let Some(dir) = std::env::var_os("SCHOLIA_BENCH_DIR") {
        let mut notes = Vec::new();
        notes_under(Path::new(&dir), &mut notes);
        let builtin = ParseOptions::default();
        let (secs, n) = best_of(|| parse_all(&[(&notes, &builtin)]));
        println!(
            "{}",
            line(
                &format!("parse (built-in rules) {}", dir.to_string_lossy()),
                notes.len(),
                bytes(&notes),
                n,
                secs
            )
        );
        return;
    }
    let only = std::env::var("SCHOLIA_BENCH_FAMILY").ok();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let families = families(&repo.join("tests/cases/families"), only.as_deref());
    let builtin = ParseOptions::default();

    // The generated corpus: the seed template's mark blocks and three other built-in styles.
    let mut rng = vaultgen::Rng::new(7);
    let generated: Vec<String> =
        (0..600)
            .map(|i| {
                if i % 4 == 3 {
                    other_styles(&mut rng, i)
                } else {
                    vaultgen::annotation_note(&mut rng, i, 40)
                }
            })
            .collect();

    // Each family's notes, replicated. A copy must read as its original does.
    let corpora: Vec<Vec<String>> = families
        .iter()
        .map(|f| {
            for note in &f.notes {
                for options in [Some(&builtin), f.templated.as_ref()].into_iter().flatten() {
                    let a = parse(note, "/vault/x.md", options);
                    let b = parse(&variant(note, 1), "/vault/x.md", options);
                    if a.annotations != b.annotations || a.template != b.template {
                        eprintln!("warning: {}: a varied copy does not read as the original", f.name);
                    }
                }
            }
            (0..COPIES).flat_map(|k| f.notes.iter().map(move |n| variant(n, k))).collect()
        })
        .collect();

    println!("parse: one core, best of {ROUNDS} rounds; family notes ×{COPIES} (varied frontmatter)");

    // 1. The built-in rules.
    if only.is_none() {
        let (secs, n) = best_of(|| parse_all(&[(&generated, &builtin)]));
        println!(
            "{}",
            line("parse (built-in rules, generated notes)", generated.len(), bytes(&generated), n, secs)
        );
    }
    let mut per_family_builtin = Vec::new();
    for (f, corpus) in families.iter().zip(&corpora) {
        let (secs, n) = best_of(|| parse_all(&[(corpus, &builtin)]));
        let style = parse(&f.notes[0], "/vault/x.md", &builtin).template;
        println!(
            "{} [{style:?}]",
            line(&format!("parse (built-in rules) {}", f.name), corpus.len(), bytes(corpus), n, secs)
        );
        per_family_builtin.push(mbps(bytes(corpus), secs));
    }
    let all: Vec<(&[String], &ParseOptions)> = std::iter::once((&generated[..], &builtin))
        .filter(|_| only.is_none())
        .chain(corpora.iter().map(|c| (&c[..], &builtin)))
        .collect();
    let all_notes: usize = all.iter().map(|(c, _)| c.len()).sum();
    let all_bytes: usize = all.iter().map(|(c, _)| bytes(c)).sum();
    let (secs, n) = best_of(|| parse_all(&all));
    println!(
        "{}",
        line("parse (built-in rules, all: generated + every family)", all_notes, all_bytes, n, secs)
    );
    if std::env::var_os("SCHOLIA_BENCH_BUILTIN_ONLY").is_some() {
        return;
    }

    // 2. The user's templates: each templated family's notes with its own template.
    let mut sets: Vec<(&[String], &ParseOptions)> = Vec::new();
    let mut summary: Vec<(String, f64, f64)> = Vec::new();
    for ((f, corpus), &builtin_mbps) in families.iter().zip(&corpora).zip(&per_family_builtin) {
        if let Some(problem) = &f.template_problem {
            println!("parse (user templates) {}: skipped, the template did not compile: {problem}", f.name);
        }
        let Some(options) = &f.templated else { continue };
        sets.push((corpus, options));
        let (secs, n) = best_of(|| parse_all(&[(corpus, options)]));
        let (read_secs, _) = best_of(|| {
            let mut found = 0;
            for note in corpus {
                let body = body_start(note);
                for t in &options.templates {
                    found += black_box(t.read(black_box(note), body)).len();
                }
            }
            found
        });
        // `parse` asks for the region again after `read` (which asks for it itself).
        let (region_secs, _) = best_of(|| {
            let mut at = 0;
            for note in corpus {
                let body = body_start(note);
                for t in &options.templates {
                    at += black_box(t.region_start(black_box(note), body));
                }
            }
            at
        });
        let style = parse(&f.notes[0], "/vault/x.md", options).template;
        let speed = mbps(bytes(corpus), secs);
        println!(
            "{} [{style:?}{}]; Template::read alone: best {:.2} ms = {:.0}% of it, Template::region_start alone: {:.2} ms = {:.0}%; built-in rules on the same notes: {:.0} MB/s (template path ×{:.1} slower)",
            line(&format!("parse (user templates) {}", f.name), corpus.len(), bytes(corpus), n, secs),
            if style == TemplateStyle::UserTemplate { "" } else { ": not read by the template" },
            read_secs * 1e3,
            100.0 * read_secs / secs,
            region_secs * 1e3,
            100.0 * region_secs / secs,
            builtin_mbps,
            builtin_mbps / speed
        );
        summary.push((f.name.clone(), speed, builtin_mbps));
    }
    if !sets.is_empty() {
        let notes: usize = sets.iter().map(|(c, _)| c.len()).sum();
        let size: usize = sets.iter().map(|(c, _)| bytes(c)).sum();
        let (secs, n) = best_of(|| parse_all(&sets));
        let plain: Vec<(&[String], &ParseOptions)> = sets.iter().map(|(c, _)| (*c, &builtin)).collect();
        let (plain_secs, _) = best_of(|| parse_all(&plain));
        println!(
            "{}; built-in rules on the same notes: {:.0} MB/s",
            line(
                &format!("parse (user templates, all {} templated families)", sets.len()),
                notes,
                size,
                n,
                secs
            ),
            mbps(size, plain_secs)
        );
        if let Some((name, speed, base)) = summary.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
            println!(
                "parse (user templates) slowest: {name} at {speed:.0} MB/s, ×{:.1} below the built-in rules",
                base / speed
            );
        }
    }

    // The generated notes with a template present that matches none of them.
    let example = repo.join("tests/roundtrip/example");
    if only.is_none()
        && let Ok(source) = std::fs::read_to_string(example.join("Templates/zotero.md"))
        && let Ok(t) = Template::compile("Templates/zotero.md", &source, &|_| None)
    {
        let options = ParseOptions { templates: vec![Arc::new(t)], ..ParseOptions::default() };
        let (secs, n) = best_of(|| parse_all(&[(&generated, &options)]));
        println!(
            "{}",
            line(
                "parse (generated notes + the example template, which matches none)",
                generated.len(),
                bytes(&generated),
                n,
                secs
            )
        );
    }

    // 3. Template compilation.
    let mut templates: Vec<(String, PathBuf)> = families
        .iter()
        .filter(|f| f.dir.join("Templates/zotero.md").is_file())
        .map(|f| (f.name.clone(), f.dir.clone()))
        .collect();
    if only.is_none() {
        templates.push(("roundtrip example".into(), example));
    }
    for (name, root) in templates {
        let path = root.join("Templates/zotero.md");
        match compile_times("Templates/zotero.md", &root, &path, Duration::from_millis(500)) {
            Ok((median, best, runs, loops)) => println!(
                "compile template {name} ({} bytes, {loops} loops): {runs} runs, median {median:.0} µs, best {best:.0} µs",
                std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
            ),
            Err(e) => println!("compile template {name}: does not compile: {e}"),
        }
    }
}
