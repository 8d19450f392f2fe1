//! Link anchors as Obsidian writes and matches them.

/// The anchor Obsidian links a heading by: inline formatting markers removed, the characters
/// Obsidian does not allow in link anchors replaced by spaces, whitespace collapsed.
pub fn heading_anchor(heading: &str) -> String {
    let mut text = heading.trim().to_string();
    for marker in ["**", "__", "==", "~~"] {
        text = text.replace(marker, "");
    }
    let cleaned: String = text
        .chars()
        .map(|c| if matches!(c, '#' | '|' | '^' | ':' | '%' | '[' | ']' | '\\') { ' ' } else { c })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether two anchors name the same heading (Obsidian compares them case-insensitively).
pub fn anchors_match(a: &str, b: &str) -> bool {
    heading_anchor(a).to_lowercase() == heading_anchor(b).to_lowercase()
}
