//! Comment prefixes (seed 001): finer categories inside a semantic colour.

use serde::{Deserialize, Serialize};

/// One prefix and the colour meanings it refines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixEntry {
    /// The prefix as seed 001 writes it: `THESIS:`, `Q:`, or `THEME` (for `THEME [x]:`).
    pub prefix: String,
    /// Colour meanings it belongs to (`UNCLEAR:` belongs to both negative and question).
    pub colors: Vec<String>,
}

/// The recognised prefixes; matched case-insensitively, plain or bold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixTable {
    /// The rows, in seed order.
    pub entries: Vec<PrefixEntry>,
}

impl Default for PrefixTable {
    fn default() -> Self {
        let groups: [(&str, &[&str]); 5] = [
            ("positive", &["THESIS:", "PREMISE:", "EVIDENCE:", "CLAIM:", "A:", "FINDING:", "CORE:"]),
            ("negative", &["WEAKNESS:", "LIMITATION:", "UNCLEAR:", "CONCERN:"]),
            ("question", &["Q:", "GAP:", "UNCLEAR:", "RELEVANT:"]),
            ("detail", &["ASSUMPTION:", "TERM:", "CONNECTION:", "METHOD:", "THEME", "DETAIL:"]),
            ("code", &["STAT:", "CODE:", "DATA:"]),
        ];
        let mut entries: Vec<PrefixEntry> = Vec::new();
        for (color, prefixes) in groups {
            for prefix in prefixes {
                match entries.iter_mut().find(|e| e.prefix == *prefix) {
                    Some(entry) => entry.colors.push(color.to_string()),
                    None => entries
                        .push(PrefixEntry { prefix: prefix.to_string(), colors: vec![color.to_string()] }),
                }
            }
        }
        Self { entries }
    }
}
