//! Which notes are annotation notes, and the citekey each is known by.
//!
//! A note is an annotation note when the parser reads annotations from it, when its path is one
//! an export format writes (`outputPathTemplate`), when its frontmatter says `category:
//! Annotations`, when it carries an exporter's own marks (Zotero Integration's `%% begin
//! annotations %%` and `%% Import Date %%`, ZotLit's `zotero-key` frontmatter and `%%zt-managed%%`),
//! or when it is named `@citekey.md` and links to places in a PDF (`zotero://open-pdf/…`): real
//! exports rarely say `category`, settings are often not in the vault, and a note with no
//! annotation read yet is still the paper's note.
//!
//! Cheap checks come first: the path, the frontmatter and a few byte searches decide whether the
//! parser is asked at all ([`Facts::may_hold_annotations`]).

use serde::Serialize;

use super::pattern::NotePattern;
use crate::annotations::{self, AnnotationDoc, ParseOptions};
use crate::note::Frontmatter;
use crate::note::frontmatter::scalar_string;
use crate::vault::VaultPath;

/// Byte strings one of which a note holds when the parser can read an annotation from it: the
/// Zotero links, `<mark>` tags, callouts, quoted lines, embeds, image names, printed pages and
/// markers the template styles and the parser's general rule read. A note with none of them is
/// never parsed while listing.
pub const MAY_HOLD: [&str; 13] = [
    "zotero://",
    "<mark",
    "[!",
    "“",
    "![[",
    "image-",
    "[p",
    "[P",
    "Page:",
    "page:",
    "Page ",
    "%%",
    "](file:",
];

/// Why a note counts as an annotation note (several may hold).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Evidence {
    /// The parser read annotations from it.
    pub annotations: bool,
    /// Its path is one an export format writes.
    pub output_path: bool,
    /// `category: Annotations` in its frontmatter.
    pub category: bool,
    /// An exporter's own marks.
    pub export_marker: bool,
    /// Named `@citekey.md`, with links to places in a PDF.
    pub at_name: bool,
}

impl Evidence {
    /// Whether any of them holds.
    pub fn any(&self) -> bool {
        self.annotations || self.output_path || self.category || self.export_marker || self.at_name
    }

    /// The reasons, in words: `annotations`, `note path`, `category`, `export marker`,
    /// `@citekey name`.
    pub fn reasons(&self) -> Vec<&'static str> {
        [
            (self.annotations, "annotations"),
            (self.output_path, "note path"),
            (self.category, "category"),
            (self.export_marker, "export marker"),
            (self.at_name, "@citekey name"),
        ]
        .into_iter()
        .filter_map(|(held, name)| held.then_some(name))
        .collect()
    }
}

/// Where a note's citekey was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from", content = "detail")]
pub enum CitekeySource {
    /// A frontmatter field (`citekey`, `citation-key`, `citationKey`, …), named.
    Frontmatter(String),
    /// An inline field such as `Citekey:: key`.
    InlineField,
    /// The `{{citekey}}` place of an export format's note path, named.
    NotePath(String),
    /// A file named `@key.md`.
    AtFileName,
    /// The note's own Pandoc citations `[@key]` (the key cited most).
    Citation,
    /// Nothing else: the file name.
    FileName,
}

impl CitekeySource {
    /// In words, for people.
    pub fn describe(&self) -> String {
        match self {
            Self::Frontmatter(key) => format!("frontmatter {key}"),
            Self::InlineField => "inline field".into(),
            Self::NotePath(pattern) => format!("note path {pattern}"),
            Self::AtFileName => "file name @key.md".into(),
            Self::Citation => "citation [@key]".into(),
            Self::FileName => "file name".into(),
        }
    }
}

/// What a note shows without being parsed: read from its path, frontmatter and a byte scan.
#[derive(Debug)]
pub struct Facts {
    fm: Frontmatter,
    /// The note path pattern it matches, with the citekey its path names (may be empty).
    pattern: Option<(String, String)>,
    evidence: Evidence,
    template: bool,
    may_hold: bool,
    /// Links to a place in a PDF (`zotero://open-pdf/…`, `zotero://open/…`), not item links.
    pub annotation_links: usize,
    /// Embedded annotation images (`image-5-x98-y533.png`).
    pub image_embeds: usize,
}

impl Facts {
    /// Reads the facts of the note at `path` holding `text`, against the export formats' note
    /// paths. A note that looks like a template (Nunjucks `{% %}` tags or `{{name}}` variables)
    /// is never an annotation note.
    pub fn read(path: &VaultPath, text: &str, patterns: &[NotePattern]) -> Self {
        let fm = Frontmatter::parse(text);
        let bytes = text.as_bytes();
        let annotation_links = count(bytes, b"zotero://") - count(bytes, b"zotero://select");
        let image_embeds = image_embeds(bytes);
        let pattern = patterns.iter().find_map(|p| {
            let key = p.matches(path.as_str())?;
            let corroborated = p.is_specific()
                || memchr::memmem::find(bytes, b"zotero://").is_some()
                || frontmatter_citekey(&fm).is_some();
            corroborated.then(|| (p.source.clone(), key))
        });
        let evidence = Evidence {
            annotations: false,
            output_path: pattern.is_some(),
            category: is_annotations_category(&fm),
            export_marker: has_export_marker(text, &fm),
            at_name: path.file_name().starts_with('@') && annotation_links > 0,
        };
        Self {
            template: looks_like_template(bytes),
            may_hold: MAY_HOLD.iter().any(|m| memchr::memmem::find(bytes, m.as_bytes()).is_some()),
            fm,
            pattern,
            evidence,
            annotation_links,
            image_embeds,
        }
    }

    /// The note's frontmatter.
    pub fn frontmatter(&self) -> &Frontmatter {
        &self.fm
    }

    /// Whether the parser could read annotations from the note (else it need not be parsed).
    pub fn may_hold_annotations(&self) -> bool {
        self.may_hold && !self.template
    }

    /// The evidence found without parsing (its `annotations` is false).
    pub fn evidence(&self) -> Evidence {
        if self.template { Evidence::default() } else { self.evidence }
    }

    /// The note's citekey: a frontmatter field, an inline field, the note path's `{{citekey}}`
    /// place, an `@key.md` file name, the note's own `[@key]` citations, else the file name.
    pub fn citekey(&self, path: &VaultPath, text: &str) -> (String, CitekeySource) {
        if let Some((field, key)) = frontmatter_citekey(&self.fm) {
            return (key, CitekeySource::Frontmatter(field));
        }
        if let Some(key) = inline_citekey(text) {
            return (key, CitekeySource::InlineField);
        }
        if let Some((pattern, key)) = self.pattern.as_ref().filter(|(_, k)| !k.is_empty()) {
            return (key.clone(), CitekeySource::NotePath(pattern.clone()));
        }
        let stem = path.stem();
        if let Some(key) = stem.strip_prefix('@').map(str::trim).filter(|k| !k.is_empty()) {
            return (key.to_string(), CitekeySource::AtFileName);
        }
        if let Some(key) = cited_most(text) {
            return (key, CitekeySource::Citation);
        }
        (stem.to_string(), CitekeySource::FileName)
    }
}

/// A note examined: whether it is an annotation note, its citekey, and its parse when it was
/// parsed (every note that may hold annotations or is an annotation note by other evidence).
#[derive(Debug)]
pub struct Examined {
    /// The citekey it is listed and found by.
    pub citekey: String,
    /// Where the citekey was read.
    pub citekey_from: CitekeySource,
    /// Why it is an annotation note (none: it is not one).
    pub evidence: Evidence,
    /// The parse, when the note was parsed.
    pub doc: Option<AnnotationDoc>,
    /// Links to a place in a PDF.
    pub annotation_links: usize,
    /// Embedded annotation images.
    pub image_embeds: usize,
    /// It looks like a Zotero Integration template (never an annotation note).
    pub template: bool,
}

/// Examines one note: the cheap facts, then the parse when it could matter. `absolute` is the
/// path recorded in the parse.
pub fn examine(
    path: &VaultPath,
    absolute: &str,
    text: &str,
    options: &ParseOptions,
    patterns: &[NotePattern],
) -> Examined {
    let facts = Facts::read(path, text, patterns);
    let (citekey, citekey_from) = facts.citekey(path, text);
    let mut evidence = facts.evidence();
    let doc =
        (evidence.any() || facts.may_hold_annotations()).then(|| annotations::parse(text, absolute, options));
    evidence.annotations = doc.as_ref().is_some_and(|d| !d.annotations.is_empty())
        && !facts.template
        && !annotations::is_scholia_output(facts.frontmatter());
    Examined {
        citekey,
        citekey_from,
        evidence,
        doc,
        annotation_links: facts.annotation_links,
        image_embeds: facts.image_embeds,
        template: facts.template,
    }
}

/// The first non-empty frontmatter citekey: `citekey` itself, else any key that reads
/// `citekey`, `citationkey` or `zoterocitekey` once case, `-`, `_` and spaces are set aside.
/// Returns the field's name and the key.
pub fn frontmatter_citekey(fm: &Frontmatter) -> Option<(String, String)> {
    let named = |k: &str| {
        let folded: String =
            k.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).collect::<String>().to_lowercase();
        folded == "citekey" || folded == "citationkey" || folded == "zoterocitekey"
    };
    let exact = fm.data.get_key_value("citekey");
    exact.into_iter().chain(fm.data.iter().filter(|(k, _)| named(k))).find_map(|(k, v)| {
        let key = clean_key(&scalar_string(v)?)?;
        Some((k.clone(), key))
    })
}

/// `Citekey:: key` (also `Citation key::`, in a list item, bold, or in `[…]`/`(…)`).
fn inline_citekey(text: &str) -> Option<String> {
    memchr::memmem::find(text.as_bytes(), b"::")?;
    let body = &text[crate::note::frontmatter::body_start(text)..];
    for line in body.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("::") {
            let before = &rest[..at];
            let start = before.rfind(['[', '(']).map_or(0, |i| i + 1);
            let name: String = before[start..]
                .chars()
                .filter(|c| !matches!(c, '-' | '_' | ' ' | '*' | '>' | '\t'))
                .collect::<String>()
                .to_lowercase();
            let after = &rest[at + 2..];
            if name == "citekey" || name == "citationkey" {
                let value = after.split([']', ')']).next().unwrap_or(after);
                if let Some(key) = clean_key(value) {
                    return Some(key);
                }
            }
            rest = after;
        }
    }
    None
}

/// A key as written: quotes, brackets, backticks and a leading `@` dropped; the first word.
fn clean_key(raw: &str) -> Option<String> {
    let t = raw.trim().trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '[' | ']' | '*'));
    let t = t.trim().trim_start_matches('@');
    let word = t.split_whitespace().next()?;
    (!word.is_empty()).then(|| word.to_string())
}

/// The key the note cites most in Pandoc citations `[@key]`, `[@key, p. 5]`, `[see @key]`
/// (first cited wins a tie). Links such as `[@Page 3](zotero://…)` and wikilinks are not
/// citations.
fn cited_most(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for at in memchr::memmem::find_iter(bytes, b"@") {
        // The `[` that opens the citation, at most 40 bytes back, with no `]` or line end between.
        let window = &bytes[at.saturating_sub(40)..at];
        let Some(open) = window.iter().rposition(|&b| b == b'[').map(|o| at - window.len() + o) else {
            continue;
        };
        let before = text[..at].chars().next_back();
        if bytes[open + 1..at].iter().any(|&b| b == b']' || b == b'\n')
            || (open > 0 && bytes[open - 1] == b'[')
            || !before.is_some_and(|c| c == '[' || c == ';' || c.is_whitespace())
        {
            continue;
        }
        let key = crate::annotations::citekey_prefix(&text[at + 1..]).unwrap_or("");
        let tail = &bytes[at..bytes.len().min(at + 200)];
        let Some(close) = tail.iter().position(|&b| b == b']' || b == b'\n').map(|c| at + c) else {
            continue;
        };
        if key.is_empty() || bytes[close] != b']' || bytes.get(close + 1) == Some(&b'(') {
            continue;
        }
        match counts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => counts.push((key, 1)),
        }
    }
    let most = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == most).map(|(k, _)| k.to_string())
}

fn is_annotations_category(fm: &Frontmatter) -> bool {
    let Some(value) = fm.get_ci("category") else { return false };
    let values: Vec<String> = match value {
        serde_json::Value::Array(items) => items.iter().filter_map(scalar_string).collect(),
        other => scalar_string(other).into_iter().collect(),
    };
    values.iter().any(|c| c.trim().trim_matches(['[', ']']).eq_ignore_ascii_case("annotations"))
}

/// Zotero Integration's `%% begin annotations %%` / `%% Import Date … %%`, ZotLit's
/// `%%zt-managed%%` or `zotero-key` frontmatter.
fn has_export_marker(text: &str, fm: &Frontmatter) -> bool {
    if fm.get_ci("zotero-key").and_then(scalar_string).is_some_and(|k| !k.trim().is_empty()) {
        return true;
    }
    memchr::memmem::find_iter(text.as_bytes(), b"%%").any(|at| {
        let after = text[at + 2..].trim_start();
        ["begin annotations", "import date", "zt-managed"]
            .iter()
            .any(|m| after.get(..m.len()).is_some_and(|s| s.eq_ignore_ascii_case(m)))
    })
}

/// Nunjucks tags around the annotations or the citekey, Zotero Integration's variables
/// (`{{citekey}}`, `{{title}}`, `{{formattedAnnotations}}`, …), or ZotLit's Eta tags on its
/// `it` (`<%= it.text %>`): a template, not an export.
fn looks_like_template(bytes: &[u8]) -> bool {
    // A real annotation key (`annotation=J2JSFQXZ`) is an export's, whatever placeholder the
    // template left unfilled in it (`{{citekey}}`); a template prints `{{annotation.id}}`.
    let real_key = memchr::memmem::find_iter(bytes, b"annotation=").any(|at| {
        let key = &bytes[at + "annotation=".len()..];
        key.get(..8).is_some_and(annotations::is_zotero_key)
            && key.get(8).is_none_or(|b| !b.is_ascii_alphanumeric())
    });
    if real_key {
        return false;
    }
    let has = |needle: &[u8]| memchr::memmem::find(bytes, needle).is_some();
    if has(b"{%") && has(b"%}") && (has(b"annot") || has(b"citekey")) {
        return true;
    }
    if eta_tags_on_it(bytes) {
        return true;
    }
    const VARIABLES: [&[u8]; 6] =
        [b"citekey", b"title", b"annotation", b"formattedannotation", b"importdate", b"pdfzoterolink"];
    memchr::memmem::find_iter(bytes, b"{{").any(|at| {
        let rest = bytes[at + 2..].trim_ascii_start();
        let name: Vec<u8> =
            rest.iter().take_while(|b| b.is_ascii_alphanumeric()).map(u8::to_ascii_lowercase).collect();
        VARIABLES.iter().any(|v| name.starts_with(v))
    })
}

/// Whether an Eta tag (`<% … %>`) uses ZotLit's `it` (`it.text`, `(it)`, `of it`): Templater's
/// `<% tp.file… %>` left in a note is not one, nor the words "of its" elsewhere in the note.
fn eta_tags_on_it(bytes: &[u8]) -> bool {
    let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    memchr::memmem::find_iter(bytes, b"<%").any(|start| {
        let rest = &bytes[start + 2..];
        let Some(end) = memchr::memmem::find(rest, b"%>") else { return false };
        let tag = &rest[..end];
        memchr::memmem::find_iter(tag, b"it").any(|at| {
            let (before, after) = (at.checked_sub(1).and_then(|i| tag.get(i)), tag.get(at + 2));
            !word(before) && matches!(after, Some(b'.' | b')' | b' ' | b'\n') | None)
        })
    })
}

fn count(bytes: &[u8], needle: &[u8]) -> usize {
    memchr::memmem::find_iter(bytes, needle).count()
}

/// `image-5-x98-y533` names (Zotero Integration's image annotations).
fn image_embeds(bytes: &[u8]) -> usize {
    memchr::memmem::find_iter(bytes, b"image-")
        .filter(|&at| {
            let rest = &bytes[at + 6..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            digits > 0 && rest[digits..].starts_with(b"-x")
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(path: &str, text: &str, patterns: &[&str]) -> (String, CitekeySource) {
        let patterns: Vec<NotePattern> = patterns.iter().map(|p| NotePattern::parse(p).unwrap()).collect();
        let path = VaultPath::new(path).unwrap();
        Facts::read(&path, text, &patterns).citekey(&path, text)
    }

    #[test]
    fn citekeys_come_from_the_strongest_place() {
        let fm = |k: &str| format!("---\n{k}: \"@a2020\"\n---\nx [@b2021]\n");
        for field in ["citekey", "citation-key", "citationKey", "citation key", "Citekey", "citation_key"] {
            assert_eq!(key("n.md", &fm(field), &[]).0, "a2020", "{field}");
        }
        assert_eq!(key("n.md", "---\ncitekey: \n---\n- **Citekey**:: c2022\n", &[]).0, "c2022");
        assert_eq!(key("n.md", "Read [citekey:: d2023] today", &[]).0, "d2023");
        let from_path = key("Sources/e2024.md", "[@f2025]", &["Sources/{{citekey}}.md"]);
        assert_eq!(from_path, ("e2024".into(), CitekeySource::NotePath("Sources/{{citekey}}.md".into())));
        assert_eq!(key("R/@g2019.md", "[@f2025]", &[]).1, CitekeySource::AtFileName);
        assert_eq!(key("R/notes.md", "[@h1] [see @i2, p. 4] [@i2]", &[]).0, "i2");
        assert_eq!(key("R/notes.md", "[@Page 3](zotero://x) [[@j3]] [mail a@b.org]", &[]).0, "notes");
    }

    #[test]
    fn evidence_without_a_parse() {
        let facts = |path: &str, text: &str, patterns: &[&str]| {
            let patterns: Vec<NotePattern> =
                patterns.iter().map(|p| NotePattern::parse(p).unwrap()).collect();
            Facts::read(&VaultPath::new(path).unwrap(), text, &patterns)
        };
        assert!(facts("Sources/a.md", "plain", &["Sources/{{citekey}}.md"]).evidence().output_path);
        assert!(!facts("a.md", "plain", &["{{citekey}}.md"]).evidence().output_path);
        assert!(facts("a.md", "[x](zotero://select/1)", &["{{citekey}}.md"]).evidence().output_path);
        assert!(facts("a.md", "---\ncategory: [Annotations]\n---\n", &[]).evidence().category);
        assert!(facts("a.md", "%% Import Date: 2024 %%", &[]).evidence().export_marker);
        assert!(facts("a.md", "---\nzotero-key: AB12\n---\n", &[]).evidence().export_marker);
        assert!(facts("R/@a.md", "[p. 3](zotero://open-pdf/x)", &[]).evidence().at_name);
        assert!(!facts("R/@a.md", "[item](zotero://select/x)", &[]).evidence().any());
        let template =
            facts("Sources/t.md", "%% begin annotations %%\n{{citekey}}", &["Sources/{{citekey}}.md"]);
        assert!(!template.evidence().any() && !template.may_hold_annotations());
        let eta = "> [!quote] [Page <%= it.pageLabel %>](zotero://open-pdf/x)\n> <%= it.text %>";
        // Templater's tag left in a note, and "of its" in a highlight, make no template.
        let templater = "---\ncreated: <% tp.file.creation_date() %>\n---\n> <mark style=\"background-color: #ffd400\">Highlight</mark>\n> the end of its domain\n> [page 4](zotero://open-pdf/library/items/A?page=4&annotation=B)\n";
        assert!(!looks_like_template(templater.as_bytes()));
        assert!(looks_like_template(b"<% for (const a of it) { %>x<% } %>"));
        // An export whose template left a placeholder unfilled is still the export.
        let unfilled = "- **CiteKey**: {{citekey}}\n- *“text”* [(p. 2)](zotero://open-pdf/library/items/T3Z5A7Y1?page=2&annotation=J2JSFQXZ)\n";
        assert!(!looks_like_template(unfilled.as_bytes()));
        assert!(looks_like_template(b"{{citekey}} [p](zotero://open-pdf/x?annotation={{annotation.id}})"));
        assert!(!facts("Templates/zt-annot.eta.md", eta, &[]).may_hold_annotations());
        let plain = facts("a.md", "# Notes\nNothing here.", &[]);
        assert!(!plain.may_hold_annotations() && !plain.evidence().any());
        let signs =
            facts("a.md", "[p](zotero://open-pdf/x) [i](zotero://select/y) ![[a_image-3-x1-y2.png]]", &[]);
        assert_eq!((signs.annotation_links, signs.image_embeds), (1, 1));
    }
}
