//! Colour semantics (seed 001): which Zotero highlight colour means what.

use serde::{Deserialize, Serialize};

use super::model::ColorCategory;

/// Meaning names of the seed's table, in the order the summary presents them.
pub const SECTION1: &str = "section1";
/// Purple: a `###` sub-section.
pub const SECTION2: &str = "section2";
/// Magenta: a `####` minor heading.
pub const SECTION3: &str = "section3";
/// Green: key findings, evidence, claims.
pub const POSITIVE: &str = "positive";
/// Grey: definitions, methodology, context.
pub const DETAIL: &str = "detail";
/// Red: criticisms, limitations, concerns.
pub const NEGATIVE: &str = "negative";
/// Orange: technical content, statistics.
pub const CODE: &str = "code";
/// Yellow: questions, gaps, uncertainties.
pub const QUESTION: &str = "question";
/// A colour the map does not know.
pub const OTHER: &str = "other";

/// Every meaning a colour can have, besides `other`.
pub const MEANINGS: [&str; 8] = [SECTION1, SECTION2, SECTION3, POSITIVE, DETAIL, NEGATIVE, CODE, QUESTION];

/// One row of the colour map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColorEntry {
    /// `#rrggbb`, any case (compared case-insensitively).
    pub hex: String,
    /// The meaning: one of [`MEANINGS`] or a name of the user's.
    pub name: String,
}

/// Hex → meaning, with the seed's table as the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColorMap {
    /// The rows; the first row whose hex matches wins.
    pub entries: Vec<ColorEntry>,
}

impl Default for ColorMap {
    fn default() -> Self {
        let rows = [
            ("#2ea8e5", SECTION1),
            ("#a28ae5", SECTION2),
            ("#e56eee", SECTION3),
            ("#5fb236", POSITIVE),
            ("#aaaaaa", DETAIL),
            ("#ff6666", NEGATIVE),
            ("#f19837", CODE),
            ("#ffd400", QUESTION),
        ];
        Self {
            entries: rows
                .iter()
                .map(|(hex, name)| ColorEntry { hex: hex.to_string(), name: name.to_string() })
                .collect(),
        }
    }
}

impl ColorMap {
    /// Puts `meanings` (hex or Zotero colour name, meaning: the `[colors]` table of
    /// `.zotero-mcp.toml`) before the entries already in the map; keys that name no colour are
    /// skipped.
    pub fn put_first(&mut self, meanings: &[(String, String)]) {
        let mut rows: Vec<ColorEntry> = Vec::new();
        for (key, meaning) in meanings {
            let hex = parse_hex(key).or_else(|| zotero_hex_of_name(key).map(str::to_string));
            if let Some(hex) = hex {
                rows.push(ColorEntry { hex, name: meaning.trim().to_string() });
            }
        }
        rows.append(&mut self.entries);
        self.entries = rows;
    }

    /// The meaning of `hex` (`#rrggbb` or `rrggbb`, any case), or `other`.
    pub fn name_of(&self, hex: &str) -> &str {
        let hex = hex.trim().trim_start_matches('#');
        self.entries
            .iter()
            .find(|e| e.hex.trim().trim_start_matches('#').eq_ignore_ascii_case(hex))
            .map_or(OTHER, |e| e.name.as_str())
    }

    /// The hex of the first row with meaning `name` (case-insensitive), lowercase with `#`.
    pub fn hex_of(&self, name: &str) -> Option<String> {
        self.entries.iter().find(|e| e.name.eq_ignore_ascii_case(name)).map(|e| normalize_hex(&e.hex))
    }

    /// Checks every row: a hex must be `#rrggbb` (or `#rgb`), a name must not be empty.
    /// Returns one message per bad row, naming it, so a settings screen can show it inline.
    pub fn validate(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            if parse_hex(&entry.hex).is_none() {
                problems.push(format!(
                    "row {}: \"{}\" is not a colour; write it as #rrggbb, for example #ffd400",
                    i + 1,
                    entry.hex
                ));
            }
            if entry.name.trim().is_empty() {
                problems.push(format!("row {}: the meaning is empty", i + 1));
            }
        }
        problems
    }
}

/// The category of a meaning: `hierarchy` for section1–3, else `semantic`.
pub fn category_of(name: &str) -> ColorCategory {
    if heading_level_of(name).is_some() { ColorCategory::Hierarchy } else { ColorCategory::Semantic }
}

/// The heading level a section colour creates: section1 → 2, section2 → 3, section3 → 4.
pub fn heading_level_of(name: &str) -> Option<u8> {
    match name {
        SECTION1 => Some(2),
        SECTION2 => Some(3),
        SECTION3 => Some(4),
        _ => None,
    }
}

/// Zotero's named highlight colours (as Highlightr classes and the built-in template name them),
/// also in the languages templates are written in (`amarillo`, `gelb`, `jaune`, `黄色`) and as the
/// coloured squares and circles templates print (`🟨`, `🔴`). Case-insensitive.
pub fn zotero_hex_of_name(name: &str) -> Option<&'static str> {
    let name = name.trim();
    // The longest name is a dozen bytes; most words asked about are not colours at all.
    if name.len() > LONGEST_NAME || name.is_empty() {
        return None;
    }
    let of = |name: &str| {
        let table = &*BY_NAME;
        table.binary_search_by(|(n, _)| n.cmp(&name)).ok().map(|i| table[i].1)
    };
    if name.is_ascii() {
        // Most words asked about are no colour: a name with their first letter and length is
        // looked for only when there is one.
        let first = name.as_bytes()[0].to_ascii_lowercase();
        let known = first.is_ascii_lowercase()
            && name.len() < 16
            && ASCII_SHAPES[usize::from(first - b'a')] & (1 << name.len()) != 0;
        if !known {
            return None;
        }
        // Lowercased on the stack: most words asked about are short ASCII words.
        let mut buf = [0u8; LONGEST_NAME];
        let lower = &mut buf[..name.len()];
        lower.copy_from_slice(name.as_bytes());
        lower.make_ascii_lowercase();
        return of(std::str::from_utf8(lower).unwrap_or(""));
    }
    let lower = name.to_lowercase();
    of(lower.trim_end_matches('\u{fe0f}'))
}

/// Every name of [`COLOUR_NAMES`] with its colour's hex, sorted by name (a name two colours
/// share is the first one's).
static BY_NAME: std::sync::LazyLock<Vec<(&'static str, &'static str)>> = std::sync::LazyLock::new(|| {
    let mut table: Vec<(&str, &str)> =
        COLOUR_NAMES.iter().flat_map(|(hex, names)| names.iter().map(move |n| (*n, *hex))).collect();
    // A stable sort keeps each name's first colour first; `dedup_by_key` keeps that one.
    table.sort_by_key(|(n, _)| *n);
    table.dedup_by_key(|(n, _)| *n);
    table
});

/// For each ASCII letter, the lengths (bit `n`: `n` bytes) of the ASCII names of
/// [`COLOUR_NAMES`] that start with it.
static ASCII_SHAPES: std::sync::LazyLock<[u16; 26]> = std::sync::LazyLock::new(|| {
    let mut shapes = [0u16; 26];
    for (name, _) in BY_NAME.iter().filter(|(n, _)| n.is_ascii() && n.len() < 16) {
        let first = name.as_bytes()[0];
        if first.is_ascii_lowercase() {
            shapes[usize::from(first - b'a')] |= 1 << name.len();
        }
    }
    shapes
});

/// Bytes in the longest name of [`COLOUR_NAMES`] (with an emoji variation selector after it).
const LONGEST_NAME: usize = 24;

/// Each Zotero colour and its names: English, Spanish, Portuguese, French, Italian, German,
/// Dutch, Russian, Chinese, Japanese, then the emoji of its colour.
const COLOUR_NAMES: [(&str, &[&str]); 8] = [
    (
        "#ffd400",
        &[
            "yellow",
            "amarillo",
            "amarelo",
            "jaune",
            "giallo",
            "gelb",
            "geel",
            "жёлтый",
            "желтый",
            "黄色",
            "黄",
            "🟨",
            "🟡",
            "💛",
        ],
    ),
    (
        "#ff6666",
        &[
            "red",
            "rojo",
            "vermelho",
            "rouge",
            "rosso",
            "rot",
            "rood",
            "красный",
            "红色",
            "红",
            "赤",
            "🟥",
            "🔴",
            "❤",
        ],
    ),
    (
        "#5fb236",
        &[
            "green",
            "verde",
            "vert",
            "grün",
            "gruen",
            "groen",
            "зелёный",
            "зеленый",
            "绿色",
            "绿",
            "緑",
            "🟩",
            "🟢",
            "💚",
        ],
    ),
    (
        "#2ea8e5",
        &[
            "blue",
            "azul",
            "bleu",
            "blu",
            "blau",
            "blauw",
            "синий",
            "голубой",
            "蓝色",
            "蓝",
            "青",
            "🟦",
            "🔵",
            "💙",
        ],
    ),
    (
        "#a28ae5",
        &[
            "purple",
            "morado",
            "roxo",
            "violeta",
            "violet",
            "viola",
            "lila",
            "violett",
            "paars",
            "фиолетовый",
            "紫色",
            "紫",
            "🟪",
            "🟣",
            "💜",
        ],
    ),
    ("#e56eee", &["magenta", "pink", "rosa", "rose", "roze", "розовый", "粉色", "品红", "洋红"]),
    (
        "#f19837",
        &["orange", "naranja", "laranja", "arancione", "oranje", "оранжевый", "橙色", "橙", "🟧", "🟠", "🧡"],
    ),
    (
        "#aaaaaa",
        &[
            "gray",
            "grey",
            "gris",
            "cinza",
            "grigio",
            "grau",
            "grijs",
            "серый",
            "灰色",
            "灰",
            "⬛",
            "⬜",
            "⚫",
            "⚪",
            "🩶",
        ],
    ),
];

/// The meaning a colour-group heading gives its colour: its words, less a leading colour name
/// set off by a symbol (`Blue 🔹 Definitions` → `Definitions`, `Key Terms` → `Key Terms`);
/// `None` when nothing but a colour name (and words like "highlights") is left.
pub fn legend_name(heading: &str) -> Option<String> {
    let words = heading.trim().trim_matches(|c: char| !c.is_alphanumeric());
    let first = words.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    let rest = words[first.len()..].trim_start();
    let set_off = rest.starts_with(|c: char| !c.is_alphanumeric());
    let name = if zotero_hex_of_name(first).is_some() && (set_off || rest.is_empty()) {
        rest.trim_start_matches(|c: char| !c.is_alphanumeric())
    } else {
        words
    };
    let filler = ["highlight", "highlights", "annotation", "annotations", "notes"];
    let empty = name.is_empty() || filler.iter().any(|f| name.eq_ignore_ascii_case(f));
    (!empty).then(|| name.to_string())
}

/// The labels a template gives Zotero's colours in a table of its own: ZotLit's
/// `const label = { "red": "Open problems", "yellow": "Ideas" }` (printed as the heading of each
/// colour's group), a Nunjucks `{% set names = {"Red": "Critique"} %}`. Keys are Zotero colour
/// names or `#rrggbb`; a value that is itself a colour (`"red": "#ff6666"`, `"yellow": "🟨"`) is
/// a colour table, not a label; of a list (`"yellow": ["Questions", "question"]`, a heading and a
/// callout type) the first is the label. The first label of a colour wins.
pub fn labels_in_template(text: &str) -> Vec<ColorEntry> {
    static PAIR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["']?(#?[A-Za-z0-9]+)["']?[ \t]*:[ \t]*\[?[ \t]*(?:"([^"\n]+)"|'([^'\n]+)')"#)
            .expect("the label pattern compiles")
    });
    // ZotLit's Eta: `<% if (it.color == '#a28ae5') { %>Concepts<% } %>`.
    static BRANCH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"colou?r(?:Name)?[ \t]*===?[ \t]*["'](#?[A-Za-z0-9]+)["'][ \t]*\)[ \t]*\{[ \t]*[-_]?%>([^<\n]+)<%"#,
        )
        .expect("the branch pattern compiles")
    });
    let mut out: Vec<ColorEntry> = Vec::new();
    for caps in PAIR.captures_iter(text).chain(BRANCH.captures_iter(text)) {
        let key = &caps[1];
        let hex = if key.starts_with('#') {
            parse_hex(key)
        } else {
            zotero_hex_of_name(&key.to_ascii_lowercase()).map(str::to_string)
        };
        let Some(hex) = hex else { continue };
        let label = caps.get(2).or_else(|| caps.get(3)).map_or("", |m| m.as_str()).trim();
        let colour_itself = parse_hex(label).is_some() || zotero_hex_of_name(&label.to_lowercase()).is_some();
        if label.is_empty() || colour_itself || out.iter().any(|e| e.hex == hex) {
            continue;
        }
        out.push(ColorEntry { hex, name: label.to_string() });
    }
    out
}

/// `#RGB`/`#RRGGBB` (with or without `#`) → lowercase `#rrggbb`; `None` if it is not a colour.
pub fn parse_hex(text: &str) -> Option<String> {
    let digits = text.trim().strip_prefix('#').unwrap_or(text.trim());
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    match digits.len() {
        6 => {
            let mut hex = String::with_capacity(7);
            hex.push('#');
            hex.push_str(digits);
            hex.make_ascii_lowercase();
            Some(hex)
        }
        3 => Some(digits.chars().fold(String::from("#"), |mut s, c| {
            s.push(c.to_ascii_lowercase());
            s.push(c.to_ascii_lowercase());
            s
        })),
        _ => None,
    }
}

/// Lowercase `#rrggbb` for a hex that may lack `#` or use upper case; unchanged if not a colour.
pub fn normalize_hex(text: &str) -> String {
    parse_hex(text).unwrap_or_else(|| text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_colour_name_fits_the_length_guard() {
        for (_, names) in COLOUR_NAMES {
            for name in names {
                assert!(name.len() + '\u{fe0f}'.len_utf8() <= LONGEST_NAME, "{name}");
                assert!(zotero_hex_of_name(&format!("{name}\u{fe0f}")).is_some(), "{name}");
                // The ASCII guard lets every name through, in any case.
                assert!(zotero_hex_of_name(name).is_some(), "{name}");
                assert!(zotero_hex_of_name(&name.to_uppercase()).is_some(), "{name}");
            }
        }
    }

    /// The labels of `template`, as (hex, label) pairs.
    fn labels(template: &str) -> Vec<(String, String)> {
        labels_in_template(template).into_iter().map(|e| (e.hex, e.name)).collect()
    }

    #[test]
    fn a_templates_own_table_names_its_colours() {
        // ZotLit's Eta: a table of labels per colour name, beside a table of signs that is no label.
        let eta = "<% const label = {\n  \"red\": \"Open problems\",\n  'yellow': 'Ideas',\n  \"cyan\": \"Cyan\",\n};\nconst sign = { \"red\": \"🟥\", \"green\": \"#5fb236\" } %>\n### <%= label[color] ?? color %>";
        let read = labels(eta);
        assert_eq!(
            read,
            [
                ("#ff6666".to_string(), "Open problems".to_string()),
                ("#ffd400".to_string(), "Ideas".to_string())
            ]
        );
        // A heading and a callout type per colour: the heading is the label.
        let pairs = "<% const label = {\n  \"yellow\": [\"Fragen\",\"question\"],\n  \"green\": [ 'Hauptgedanken', 'idea' ],\n} %>";
        let read = labels(pairs);
        assert_eq!(
            read,
            [
                ("#ffd400".to_string(), "Fragen".to_string()),
                ("#5fb236".to_string(), "Hauptgedanken".to_string())
            ]
        );
        let branches = "[!note] <% if (it.color == '#a28ae5') { %>Concepts<% } %><% else if(it.color == '#5fb236') { %>Claims<% }%>";
        let read = labels(branches);
        assert_eq!(
            read,
            [("#a28ae5".to_string(), "Concepts".to_string()), ("#5fb236".to_string(), "Claims".to_string())]
        );
        let nunjucks = "{% set names = {\"#2EA8E5\": \"Definitions\", \"Gray\": \"Aside\"} %}";
        let read = labels(nunjucks);
        assert_eq!(
            read,
            [
                ("#2ea8e5".to_string(), "Definitions".to_string()),
                ("#aaaaaa".to_string(), "Aside".to_string())
            ]
        );
        assert!(labels_in_template("title: \"{{title}}\"\nyear: 2020").is_empty());
    }

    #[test]
    fn default_map_matches_case_insensitively() {
        let map = ColorMap::default();
        assert_eq!(map.name_of("#5FB236"), POSITIVE);
        assert_eq!(map.name_of("2ea8e5"), SECTION1);
        assert_eq!(map.name_of("#123456"), OTHER);
        assert_eq!(map.hex_of("Question").as_deref(), Some("#ffd400"));
    }

    #[test]
    fn categories_and_levels() {
        assert_eq!(category_of(SECTION2), ColorCategory::Hierarchy);
        assert_eq!(category_of(CODE), ColorCategory::Semantic);
        assert_eq!(heading_level_of(SECTION3), Some(4));
        assert_eq!(heading_level_of(POSITIVE), None);
    }

    #[test]
    fn legend_names_drop_a_leading_colour_name() {
        assert_eq!(legend_name("Blue 🔹 Definitions").as_deref(), Some("Definitions"));
        assert_eq!(legend_name("Red ❗ Disagree").as_deref(), Some("Disagree"));
        assert_eq!(legend_name("Key Terms & Background").as_deref(), Some("Key Terms & Background"));
        assert_eq!(legend_name("Green energy policy").as_deref(), Some("Green energy policy"));
        assert_eq!(legend_name("Yellow"), None);
        assert_eq!(legend_name("🟡 Yellow - highlights"), None);
    }

    #[test]
    fn validation_names_bad_rows() {
        let mut map = ColorMap::default();
        map.entries.push(ColorEntry { hex: "#12345g".into(), name: "odd".into() });
        let problems = map.validate();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("row 9"));
        assert_eq!(parse_hex("#AbC").as_deref(), Some("#aabbcc"));
    }
}
