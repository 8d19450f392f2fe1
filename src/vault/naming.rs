//! Names of the notes Scholia writes: folder + name pattern, and a numbered name instead of ever
//! overwriting (`Name.md` taken → `Name 1.md`, `Name 2.md`, as Obsidian numbers new notes).

use serde::{Deserialize, Serialize};

use super::{VaultError, VaultPath};

/// The default name pattern of summaries.
pub const SUMMARY_PATTERN: &str = "Summary - {{title}}";
/// The default name pattern of syntheses.
pub const SYNTHESIS_PATTERN: &str = "Synthesis - {{theme}} - {{date}}";
/// Longest file name stem written (bytes), well under file-system limits.
const MAX_STEM_BYTES: usize = 120;

/// Where and how results are named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NamingOptions {
    /// Folder the results go to (vault-relative; `""` is the root).
    pub folder: String,
    /// Name pattern of summaries.
    pub summary_pattern: String,
    /// Name pattern of syntheses.
    pub synthesis_pattern: String,
}

impl Default for NamingOptions {
    fn default() -> Self {
        Self {
            folder: "Synthesis".into(),
            summary_pattern: SUMMARY_PATTERN.into(),
            synthesis_pattern: SYNTHESIS_PATTERN.into(),
        }
    }
}

/// Replaces each `{{…}}` in `template` with what `lookup` gives for its trimmed inside; a
/// placeholder `lookup` does not know (`None`) stays as written. The one placeholder engine of the
/// crate (name patterns, note templates).
pub fn fill(template: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        match lookup(after[..end].trim()) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Fills `{{name}}` placeholders from `vars` (names compared case-insensitively; unknown
/// placeholders become empty).
pub fn render_pattern(pattern: &str, vars: &[(&str, &str)]) -> String {
    fill(pattern, |key| {
        Some(
            vars.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map_or(String::new(), |(_, v)| v.to_string()),
        )
    })
}

/// A file name stem Obsidian accepts: `*"\/<>:|?#^[]` and control characters become spaces,
/// whitespace is collapsed, leading dots and trailing dots/spaces are dropped, the length is capped.
/// An empty result becomes `Untitled`.
pub fn sanitize_stem(name: &str) -> String {
    let replaced: String =
        name.chars().map(|c| if c.is_control() || "*\"\\/<>:|?#^[]".contains(c) { ' ' } else { c }).collect();
    let mut stem = replaced.split_whitespace().collect::<Vec<_>>().join(" ");
    stem = stem.trim_start_matches('.').trim_end_matches(['.', ' ']).trim_start().to_string();
    if stem.len() > MAX_STEM_BYTES {
        let mut cut = MAX_STEM_BYTES;
        while !stem.is_char_boundary(cut) {
            cut -= 1;
        }
        stem.truncate(cut);
        stem = stem.trim_end_matches(['.', ' ', '-']).to_string();
    }
    if stem.is_empty() { "Untitled".into() } else { stem }
}

/// The first free `folder/stem.md`, `folder/stem 1.md`, `folder/stem 2.md`… for which `exists`
/// is false. Existence is compared case-insensitively by the caller's predicate if it wants to.
pub fn free_path(
    folder: &VaultPath,
    stem: &str,
    exists: impl Fn(&VaultPath) -> bool,
) -> Result<VaultPath, VaultError> {
    let stem = sanitize_stem(stem);
    for n in 0u32.. {
        let name = if n == 0 { format!("{stem}.md") } else { format!("{stem} {n}.md") };
        let candidate = folder.join(&name)?;
        if !exists(&candidate) {
            return Ok(candidate);
        }
    }
    unreachable!("u32 names exhausted")
}

/// The path for a result: `pattern` filled from `vars`, sanitised, in `folder`, numbered if taken.
pub fn result_path(
    folder: &str,
    pattern: &str,
    vars: &[(&str, &str)],
    exists: impl Fn(&VaultPath) -> bool,
) -> Result<VaultPath, VaultError> {
    let folder = VaultPath::new(folder)?;
    if folder.is_protected() {
        return Err(VaultError::Protected { path: folder.to_string() });
    }
    free_path(&folder, &render_pattern(pattern, vars), exists)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_sanitising() {
        let name = render_pattern(SUMMARY_PATTERN, &[("title", "Deep Learning: A Survey?")]);
        assert_eq!(sanitize_stem(&name), "Summary - Deep Learning A Survey");
        assert_eq!(render_pattern("{{ theme }}-{{missing}}", &[("theme", "x")]), "x-");
        assert_eq!(sanitize_stem("..."), "Untitled");
        assert!(sanitize_stem(&"é".repeat(200)).len() <= MAX_STEM_BYTES);
    }

    #[test]
    fn numbers_instead_of_overwriting() {
        let taken = ["Synthesis/A.md", "Synthesis/A 1.md"];
        let path = result_path("Synthesis", "A", &[], |p| taken.contains(&p.as_str())).unwrap();
        assert_eq!(path.as_str(), "Synthesis/A 2.md");
        assert!(result_path(".obsidian", "A", &[], |_| false).is_err());
    }
}
