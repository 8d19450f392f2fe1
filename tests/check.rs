//! The data-driven test helper: compare an actual output with the expected file beside the case.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test` rewrites the expected files from the actual outputs.
#![allow(dead_code)] // each test module uses the part it needs

use std::path::{Path, PathBuf};

/// The repository root (where Cargo.toml is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compares `actual` with the contents of `expected_path`; with `UPDATE_SNAPSHOTS=1` set,
/// writes `actual` there instead. Panics with a readable diff summary on mismatch.
pub fn check(expected_path: &Path, actual: &str) {
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(expected_path, actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(expected_path).unwrap_or_else(|_| {
        panic!("missing expected file {}; run with UPDATE_SNAPSHOTS=1 to create it", expected_path.display())
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| expected.lines().count().min(actual.lines().count()) + 1, |i| i + 1);
        panic!(
            "{} differs from the actual output at line {line}\n--- expected\n{}\n--- actual\n{}\n(UPDATE_SNAPSHOTS=1 refreshes it)",
            expected_path.display(),
            expected,
            actual
        );
    }
}

/// Every file in `dir` whose name ends with `suffix`, sorted.
pub fn cases(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)))
        .collect();
    out.sort();
    out
}

/// Copies the folder `from` (recursively) to `to`, which is created.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file under `dir` (hidden folders too) with its bytes, by vault-relative path.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                let rel = entry.path().strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}
