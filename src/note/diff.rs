//! How a change of a note is shown and checked: a unified line diff (what a dry run of the MCP
//! tools returns) and a content hash (what `ifMatch` compares). One implementation for every tool.

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// Most edit steps the diff searches before it reports the rest of the change as one block
/// (bounds time and memory on unrelated texts; the diff stays correct, only less minimal).
const MAX_EDITS: usize = 1000;

/// The content hash of a file's text: FNV-1a 64 of its bytes, 16 hex digits. Stable across runs
/// and platforms; it detects changes, it is not a security measure.
pub fn content_hash(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The unified diff of the note at `path` from `before` to `after` (`a/path`, `b/path`).
pub fn for_path(path: &str, before: &str, after: &str) -> String {
    unified(before, after, &format!("a/{path}"), &format!("b/{path}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Delete,
    Insert,
}

/// A unified diff from `old` to `new` (`""` for a missing file), with `---`/`+++` headers naming
/// them, hunks with three lines of context, and `\ No newline at end of file` where it applies.
/// Empty when the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = script(&a, &b);
    // Each step with the number of old and new lines before it.
    let mut steps = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in ops {
        steps.push((op, i, j));
        match op {
            Op::Keep => (i, j) = (i + 1, j + 1),
            Op::Delete => i += 1,
            Op::Insert => j += 1,
        }
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let changes: Vec<usize> = (0..steps.len()).filter(|&k| steps[k].0 != Op::Keep).collect();
    let mut c = 0;
    while c < changes.len() {
        let start = changes[c].saturating_sub(CONTEXT);
        let mut last = changes[c];
        while c + 1 < changes.len() && changes[c + 1] - last <= 2 * CONTEXT {
            c += 1;
            last = changes[c];
        }
        c += 1;
        let end = (last + CONTEXT + 1).min(steps.len());
        hunk(&mut out, &steps[start..end], &a, &b);
    }
    out
}

/// Writes one hunk: its `@@` header and lines.
fn hunk(out: &mut String, steps: &[(Op, usize, usize)], a: &[&str], b: &[&str]) {
    let old_count = steps.iter().filter(|s| s.0 != Op::Insert).count();
    let new_count = steps.iter().filter(|s| s.0 != Op::Delete).count();
    let (_, i, j) = steps[0];
    let start = |first: usize, count: usize| if count == 0 { first } else { first + 1 };
    out.push_str(&format!(
        "@@ -{},{old_count} +{},{new_count} @@\n",
        start(i, old_count),
        start(j, new_count)
    ));
    for &(op, i, j) in steps {
        let (mark, line) = match op {
            Op::Keep => (' ', a[i]),
            Op::Delete => ('-', a[i]),
            Op::Insert => ('+', b[j]),
        };
        out.push(mark);
        out.push_str(line.trim_end_matches('\n').trim_end_matches('\r'));
        out.push('\n');
        if !line.ends_with('\n') {
            out.push_str("\\ No newline at end of file\n");
        }
    }
}

/// The edit script from `a` to `b`: common ends kept, the middle by Myers' algorithm.
fn script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut ops = vec![Op::Keep; prefix];
    let (mid_a, mid_b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    match myers(mid_a, mid_b) {
        Some(middle) => ops.extend(middle),
        None => {
            ops.extend(std::iter::repeat_n(Op::Delete, mid_a.len()));
            ops.extend(std::iter::repeat_n(Op::Insert, mid_b.len()));
        }
    }
    ops.extend(std::iter::repeat_n(Op::Keep, suffix));
    ops
}

/// The shortest edit script (Myers 1986), or `None` when it needs more than [`MAX_EDITS`] steps.
fn myers(a: &[&str], b: &[&str]) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (a.len() + b.len()).min(MAX_EDITS) as isize;
    let offset = max + 1;
    let mut v = vec![0isize; 2 * max as usize + 3];
    // trace[d]: v before step d, for diagonals -(d+1)..=d+1.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max {
        trace.push(v[(offset - d - 1) as usize..=(offset + d + 1) as usize].to_vec());
        for k in (-d..=d).step_by(2) {
            let at = |k: isize| v[(offset + k) as usize];
            let mut x = if k == -d || (k != d && at(k - 1) < at(k + 1)) { at(k + 1) } else { at(k - 1) + 1 };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(offset + k) as usize] = x;
            if x >= n && y >= m {
                return Some(backtrack(&trace, n, m));
            }
        }
    }
    None
}

/// Walks the trace back from the end to the start, collecting the script.
fn backtrack(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (0..trace.len() as isize).rev() {
        let at = |k: isize| trace[d as usize][(k + d + 1) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) { k + 1 } else { k - 1 };
        let prev_x = at(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            ops.push(Op::Keep);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            ops.push(if x == prev_x { Op::Insert } else { Op::Delete });
        }
        x = prev_x;
        y = prev_y;
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_differ() {
        assert_eq!(content_hash(""), "cbf29ce484222325");
        assert_eq!(content_hash("a"), "af63dc4c8601ec8c");
        assert_ne!(content_hash("note\n"), content_hash("note\r\n"));
    }

    #[test]
    fn a_changed_line_gets_a_hunk_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            unified(old, new, "a/x.md", "b/x.md"),
            "--- a/x.md\n+++ b/x.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn distant_changes_get_separate_hunks_and_new_files_count_from_zero() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .filter(|&i| i != 19)
            .map(|i| if i == 2 { "two\n".to_string() } else { format!("{i}\n") })
            .collect();
        let diff = unified(&old, &new, "a", "b");
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.ends_with("@@ -16,5 +16,4 @@\n 16\n 17\n 18\n-19\n 20\n"), "{diff}");
        assert_eq!(
            unified("", "x", "/dev/null", "b"),
            "--- /dev/null\n+++ b\n@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n"
        );
        assert_eq!(unified("same", "same", "a", "b"), "");
    }

    #[test]
    fn the_script_is_minimal_and_replays_to_the_new_text() {
        let a = ["a", "b", "c", "a", "b", "b", "a"];
        let b = ["c", "b", "a", "b", "a", "c"];
        let ops = script(&a, &b);
        assert_eq!(ops.iter().filter(|&&o| o != Op::Keep).count(), 5);
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        for op in ops {
            match op {
                Op::Keep => {
                    out.push(a[i]);
                    i += 1;
                    j += 1;
                }
                Op::Delete => i += 1,
                Op::Insert => {
                    out.push(b[j]);
                    j += 1;
                }
            }
        }
        assert_eq!(out, b);
    }

    /// Applies a diff of texts whose lines all end with `\n` back to `old`.
    fn apply(old: &str, diff: &str) -> String {
        let old: Vec<&str> = old.lines().collect();
        let (mut out, mut at) = (String::new(), 0);
        for line in diff.lines().skip(2) {
            if let Some(header) = line.strip_prefix("@@ -") {
                let (start, count) = header.split_once(' ').unwrap().0.split_once(',').unwrap();
                let start: usize = start.parse().unwrap();
                let first = if count == "0" { start } else { start - 1 };
                old[at..first].iter().for_each(|l| out.push_str(&format!("{l}\n")));
                at = first;
                continue;
            }
            let (mark, text) = line.split_at(1);
            if mark != "+" {
                assert_eq!(old[at], text, "context or deleted line differs");
                at += 1;
            }
            if mark != "-" {
                out.push_str(&format!("{text}\n"));
            }
        }
        old[at..].iter().for_each(|l| out.push_str(&format!("{l}\n")));
        out
    }

    proptest::proptest! {
        #[test]
        fn applying_the_diff_gives_the_new_text(
            old in proptest::collection::vec("[abc]{0,2}", 0..30),
            new in proptest::collection::vec("[abc]{0,2}", 0..30),
        ) {
            let text = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            let (old, new) = (text(&old), text(&new));
            let diff = unified(&old, &new, "a", "b");
            proptest::prop_assert_eq!(if diff.is_empty() { old.clone() } else { apply(&old, &diff) }, new);
        }
    }

    #[test]
    fn unrelated_long_texts_fall_back_to_one_block() {
        let old: String = (0..3000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..3000).map(|i| format!("new {i}\n")).collect();
        let diff = unified(&old, &new, "a", "b");
        assert!(diff.starts_with("--- a\n+++ b\n@@ -1,3000 +1,3000 @@\n-old 0\n"), "{}", &diff[..60]);
    }
}
