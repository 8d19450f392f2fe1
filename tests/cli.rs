//! The `scholia` binary: exit codes and one-line errors (built with `--features mcp`).
#![cfg(feature = "mcp")]

use std::path::Path;
use std::process::{Command, Output};

fn scholia(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scholia"))
        .args(args)
        .current_dir(cwd)
        .env_remove("OBSIDIAN_VAULT_PATH")
        .env_remove("OBSIDIAN_SYNTHESIS_FOLDER")
        .env("XDG_CONFIG_HOME", cwd.join("no-config"))
        .output()
        .expect("run scholia")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn vault_with_note() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".obsidian")).unwrap();
    std::fs::create_dir_all(dir.path().join("References")).unwrap();
    std::fs::write(
        dir.path().join("References/@smith2023.md"),
        "---\ncategory: Annotations\ncitekey: smith2023\n---\n# Annotations\n",
    )
    .unwrap();
    dir
}

#[test]
fn missing_file_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = scholia(&["parse", "nope.md"], dir.path());
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.starts_with("scholia: cannot read nope.md"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn no_vault_says_how_to_name_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "x").unwrap();
    let out = scholia(&["summarize", "a.md"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("pass --vault DIR"), "{}", stderr(&out));
}

#[test]
fn bad_date_is_refused() {
    let vault = vault_with_note();
    let out = scholia(&["summarize", "References/@smith2023.md", "--date", "22/11/2026"], vault.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("write it as YYYY-MM-DD"), "{}", stderr(&out));
}

#[test]
fn note_outside_the_vault_is_refused() {
    let vault = vault_with_note();
    let elsewhere = tempfile::tempdir().unwrap();
    let note = elsewhere.path().join("x.md");
    std::fs::write(&note, "x").unwrap();
    let out = scholia(
        &["summarize", note.to_str().unwrap(), "--vault", vault.path().to_str().unwrap()],
        vault.path(),
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is not inside the vault"), "{}", stderr(&out));
}

#[test]
fn unknown_colour_lists_the_valid_ones() {
    let vault = vault_with_note();
    let out = scholia(&["parse", "References/@smith2023.md", "--colors", "positive,purpleish"], vault.path());
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("unknown colour \"purpleish\"") && err.contains("question"), "{err}");
}

#[test]
fn synthesize_needs_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = scholia(&["synthesize"], dir.path());
    assert!(!out.status.success());
}

/// Copies `tests/fixtures/vault` into a fresh temporary folder.
fn fixture_vault() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let target = to.join(entry.file_name());
            if entry.path().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vault"), dir.path());
    dir
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "scholia failed: {}", stderr(out));
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn parse_reads_crlf_bom_and_unicode_citekeys() {
    let vault = fixture_vault();
    let cases = [
        ("References/@smith2023.md", "smith2023", 3),
        ("References/Deutsch/@müllerÜberblick2021.md", "müllerÜberblick2021", 2),
        ("References/@李2020深度.md", "李2020深度", 1),
        ("References/@2019first-key.md", "2019first-key", 1),
        ("References/Broken frontmatter.md", "broken2020", 1),
    ];
    for (file, citekey, count) in cases {
        let doc: serde_json::Value =
            serde_json::from_str(&stdout(&scholia(&["parse", file], vault.path()))).unwrap();
        assert_eq!(doc["citekey"], citekey, "{file}");
        assert_eq!(doc["annotations"].as_array().unwrap().len(), count, "{file}");
        assert!(Path::new(doc["file_path"].as_str().unwrap()).is_absolute());
    }
    let only: serde_json::Value = serde_json::from_str(&stdout(&scholia(
        &["parse", "References/@smith2023.md", "--colors", "negative,#5FB236"],
        vault.path(),
    )))
    .unwrap();
    let colors: Vec<&str> =
        only["annotations"].as_array().unwrap().iter().map(|a| a["color"].as_str().unwrap()).collect();
    assert_eq!(colors, ["positive", "negative"]);
}

#[test]
fn summarize_and_synthesize_write_numbered_notes_inside_the_vault() {
    let vault = fixture_vault();
    let args = ["summarize", "References/@smith2023.md", "--write", "--date", "2024-06-01"];
    let first = stdout(&scholia(&args, vault.path()));
    let second = stdout(&scholia(&args, vault.path()));
    assert!(first.trim().ends_with("Synthesis/Summary - Machine Learning Survey.md"), "{first}");
    assert!(second.trim().ends_with("Synthesis/Summary - Machine Learning Survey 1.md"), "{second}");
    let summary = std::fs::read_to_string(first.trim()).unwrap();
    assert!(
        summary.starts_with("---\ntype: summary\nsource: \"[[@smith2023]]\"\ncreated: 2024-06-01\n"),
        "{summary}"
    );
    assert!(summary.contains("[[@smith2023#Methods|p. 9]]"), "{summary}");

    let notes = [
        "References/@smith2023.md",
        "References/Deutsch/@müllerÜberblick2021.md",
        "References/@2019first-key.md",
    ];
    let mut args = vec!["synthesize"];
    args.extend(notes);
    args.extend(["--theme", "Methods", "--date", "2024-06-01"]);
    let printed = stdout(&scholia(&args, vault.path()));
    assert!(printed.contains("# Synthesis: Methods"), "{printed}");
    assert!(printed.contains("[[@müllerÜberblick2021]]"));
    // Nothing was written without --write, and the annotation notes were never modified.
    assert!(!vault.path().join("Synthesis/Synthesis - Methods - 2024-06-01.md").exists());
    let original = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vault/References/@smith2023.md"),
    )
    .unwrap();
    assert_eq!(std::fs::read(vault.path().join("References/@smith2023.md")).unwrap(), original);
}
