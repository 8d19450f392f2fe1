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
