//! What a write would change, for dry runs: a unified line diff with three lines of context.

/// One step of the edit script: a line kept, removed (index in `before`) or added (in `after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Del(usize),
    Add(usize),
}

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Past this many cells the middle is shown as replaced as a whole (no quadratic table).
const MAX_CELLS: usize = 4_000_000;

/// The unified diff from `before` to `after` for `path` (`""` when they are equal). Line ends are
/// not shown; a change of line end alone shows as the line removed and added.
pub fn unified(path: &str, before: &str, after: &str) -> String {
    if before == after {
        return String::new();
    }
    let a: Vec<&str> = before.split_inclusive('\n').collect();
    let b: Vec<&str> = after.split_inclusive('\n').collect();
    let ops = script(&a, &b);
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for (start, end) in hunks(&ops) {
        let part = &ops[start..end];
        let first_a = part.iter().find_map(|op| match op {
            Op::Same(i, _) | Op::Del(i) => Some(*i),
            Op::Add(_) => None,
        });
        let first_b = part.iter().find_map(|op| match op {
            Op::Same(_, j) | Op::Add(j) => Some(*j),
            Op::Del(_) => None,
        });
        let count_a = part.iter().filter(|op| !matches!(op, Op::Add(_))).count();
        let count_b = part.iter().filter(|op| !matches!(op, Op::Del(_))).count();
        let at = |first: Option<usize>, count: usize, before_hunk: usize| {
            first.map_or(before_hunk, |i| i + 1).to_string()
                + &if count == 1 { String::new() } else { format!(",{count}") }
        };
        let (prev_a, prev_b) = position_before(&ops[..start]);
        out.push_str(&format!("@@ -{} +{} @@\n", at(first_a, count_a, prev_a), at(first_b, count_b, prev_b)));
        for op in part {
            let (mark, line) = match *op {
                Op::Same(i, _) => (' ', a[i]),
                Op::Del(i) => ('-', a[i]),
                Op::Add(j) => ('+', b[j]),
            };
            out.push(mark);
            out.push_str(line.trim_end_matches(['\n', '\r']));
            out.push('\n');
        }
    }
    out
}

/// How many lines of each side come before the ops given.
fn position_before(ops: &[Op]) -> (usize, usize) {
    let a = ops.iter().filter(|op| !matches!(op, Op::Add(_))).count();
    let b = ops.iter().filter(|op| !matches!(op, Op::Del(_))).count();
    (a, b)
}

/// The edit script: common prefix and suffix kept, the middle by longest common subsequence.
fn script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Same(i, i)).collect();
    if ma.len() * mb.len() > MAX_CELLS {
        ops.extend((0..ma.len()).map(|i| Op::Del(prefix + i)));
        ops.extend((0..mb.len()).map(|j| Op::Add(prefix + j)));
    } else {
        ops.extend(lcs(ma, mb).into_iter().map(|op| match op {
            Op::Same(i, j) => Op::Same(prefix + i, prefix + j),
            Op::Del(i) => Op::Del(prefix + i),
            Op::Add(j) => Op::Add(prefix + j),
        }));
    }
    let (ta, tb) = (a.len() - suffix, b.len() - suffix);
    ops.extend((0..suffix).map(|k| Op::Same(ta + k, tb + k)));
    ops
}

fn lcs(a: &[&str], b: &[&str]) -> Vec<Op> {
    let width = b.len() + 1;
    // table[i * width + j]: the LCS length of a[i..] and b[j..].
    let mut table = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
        } else if j == b.len() || (i < a.len() && table[(i + 1) * width + j] >= table[i * width + j + 1]) {
            ops.push(Op::Del(i));
            i += 1;
        } else {
            ops.push(Op::Add(j));
            j += 1;
        }
    }
    ops
}

/// Ranges of `ops` to show: each change with its context, overlapping ranges merged.
fn hunks(ops: &[Op]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        if matches!(op, Op::Same(..)) {
            continue;
        }
        let (start, end) = (k.saturating_sub(CONTEXT), (k + 1 + CONTEXT).min(ops.len()));
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn shows_changes_with_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n";
        assert_eq!(
            unified("x.md", before, after),
            "--- a/x.md\n+++ b/x.md\n@@ -2,8 +2,9 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n i\n+j\n"
        );
        assert_eq!(unified("x.md", "same", "same"), "");
        assert_eq!(unified("n.md", "", "new\n"), "--- a/n.md\n+++ b/n.md\n@@ -0,0 +1 @@\n+new\n");
        let far = format!("x\n{}y\n", "k\n".repeat(10));
        let diff = unified("f.md", &far, &far.replace('x', "X").replace('y', "Y"));
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
    }
}
