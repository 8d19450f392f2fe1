//! Obsidian-flavoured Markdown as data, with byte offsets into the original text.
//!
//! Pure and infallible: a note always parses; what could not be read becomes a diagnostic.

pub mod anchor;
pub mod frontmatter;

pub use frontmatter::Frontmatter;

/// The link anchors that exist in `text`: every heading as [`anchor::heading_anchor`] writes it
/// (headings inside code fences are not headings) and every block id with its `^`.
pub fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        }
        let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with([' ', '\t']) {
            out.push(anchor::heading_anchor(trimmed[hashes..].trim().trim_end_matches('#').trim()));
        }
        if let Some(pos) = line.trim_end().rfind(" ^") {
            let id = &line.trim_end()[pos + 2..];
            if !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                out.push(format!("^{id}"));
            }
        }
    }
    out
}
