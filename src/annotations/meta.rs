//! The item's title, authors, year and citekey as an annotation note shows them: frontmatter
//! (under the names templates use), inline fields (`Title:: …`, `**Authors:** …`, `- **저자:** …`,
//! also inside a callout), the first heading above the annotations.

use serde_json::Value;

use super::lines::{Lines, heading, unquote};
use super::text::{LINE_BREAKS, citekey_prefix, find_short};
use crate::note::frontmatter::{Frontmatter, scalar_string};

/// What the note says about the item.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Meta {
    /// The item's title.
    pub title: Option<String>,
    /// Its authors, `, `-separated.
    pub authors: Option<String>,
    /// Its year, from a field that names the year or the publication date.
    pub year: Option<String>,
    /// The year of a bare `date` field: the item's date in some templates, the note's own in
    /// others, so it yields to any other source of the year.
    pub dated: Option<String>,
    /// Its citekey, from the frontmatter or an inline field.
    pub citekey: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Title,
    Authors,
    Year,
    Date,
    Citekey,
}

/// Field names templates give these, lowercased, in the languages seen in real vaults.
fn key_of(name: &str) -> Option<Key> {
    let n = name.trim().trim_matches(['*', '_', ':', ' ']);
    // The longest name is 16 bytes, and lowercasing shrinks a character to no less than a third.
    if n.len() > 48 {
        return None;
    }
    let n = n.to_lowercase();
    Some(match n.as_str() {
        "title" | "paper" | "paper title" | "paper_title" | "full title" | "titel" | "titre" | "título"
        | "titolo" | "제목" | "标题" | "題名" | "タイトル" | "название" => Key::Title,
        "author" | "authors" | "firstauthor" | "first author" | "by" | "written by" | "creators"
        | "autor" | "autoren" | "auteur" | "auteurs" | "autores" | "autori" | "저자" | "作者" | "著者"
        | "авторы" | "автор" => Key::Authors,
        // A publication date is the paper's year; a bare `date` is often the note's own (a fallback).
        "year" | "publication year" | "jahr" | "année" | "año" | "anno" | "연도" | "발표 연도" | "年份"
        | "年" | "год" | "publish date" | "published" | "publication date" | "pub date" | "publish-year"
        | "publish year" => Key::Year,
        "date" => Key::Date,
        "citekey" | "citation key" | "citation-key" | "citationkey" | "citation_key" | "bibtex key"
        | "zotero_citekey" | "zotero-citekey" | "zotero citekey" => Key::Citekey,
        _ => return None,
    })
}

/// Reads the note's metadata; `annotations_from` is where its first annotation starts (a heading
/// below it is not the title).
/// `unreadable_yaml` is the frontmatter's text when it is not valid YAML (`citekey: @Man1995`):
/// its `key: value` lines are read one by one.
pub fn read(
    fm: &Frontmatter,
    unreadable_yaml: Option<&str>,
    lines: &Lines<'_>,
    annotations_from: usize,
    file_stem: &str,
) -> Meta {
    let mut meta = Meta::default();
    let mut date = None;
    // Better Notes' Markdown export (`$libraryID`, `$itemKey`): `parent:` is the item's title.
    let better_notes = fm.data.keys().any(|k| k.starts_with('$'));
    for (name, value) in &fm.data {
        // `key: "@lee2021"`: a field of another name that holds a Pandoc citation of the item.
        let cited = || {
            ["key", "bibkey", "cite", "citation"].iter().any(|k| name.eq_ignore_ascii_case(k))
                && scalar_string(value)
                    .is_some_and(|v| v.starts_with('@') && citekey_prefix(&v[1..]) == Some(&v[1..]))
        };
        let key = if better_notes && name == "parent" {
            Some(Key::Title)
        } else {
            key_of(name).or_else(|| cited().then_some(Key::Citekey))
        };
        let Some(key) = key else { continue };
        let text = match value {
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().filter_map(scalar_string).map(|s| clean(&s)).collect();
                let sep = if parts.iter().any(|p| p.contains(',')) { "; " } else { ", " };
                (!parts.is_empty()).then(|| parts.join(sep))
            }
            other => scalar_string(other).map(|s| clean(&s)),
        };
        let Some(text) = text.filter(|t| !t.is_empty()) else { continue };
        let text = if key == Key::Citekey { text.trim_start_matches('@').to_string() } else { text };
        // A `title:` that only repeats the file's name (the citekey) is not the title.
        if key == Key::Title
            && (text == file_stem || text.trim_start_matches('@') == file_stem.trim_start_matches('@'))
        {
            continue;
        }
        set(&mut meta, &mut date, key, text, name.eq_ignore_ascii_case("title"));
    }
    for line in unreadable_yaml.into_iter().flat_map(str::lines) {
        if let Some((key, value)) = plain_field(line) {
            let value = value.trim_matches(['"', '\'']);
            let value = if key == Key::Citekey { value.trim_start_matches('@') } else { value };
            // A value that broke the YAML itself (`[broken`) or a key that is not one is left out.
            let whole_key = citekey_prefix(value) == Some(value);
            if value.starts_with(['[', '{']) || key == Key::Citekey && !whole_key {
                continue;
            }
            set(&mut meta, &mut date, key, value.to_string(), false);
        }
    }
    let mut h1 = None;
    // The line of the last `Author:: …` field: one author per line (Zotero Integration's
    // `{% for c in creators %}` loops) adds up to one list.
    let mut author_line: Option<usize> = None;
    let authors_from_fields = meta.authors.is_none();
    for i in 0..lines.len() {
        let line = lines.get(i);
        let head = lines.offset(i) < annotations_from;
        // `**Author**:: Lee, A.</br> **Author**:: Chen, B.`: fields a template put on one line.
        // A field has a colon; most lines of an annotation note have none.
        let colon = memchr::memchr(b':', line.as_bytes()).is_some();
        let split;
        let segments: &[&str] = if !colon {
            &[]
        } else if find_short(line, "::").is_some_and(|at| find_short(&line[at + 2..], "::").is_some()) {
            split = split_breaks(line);
            &split
        } else {
            std::slice::from_ref(&line)
        };
        let mut was_field = false;
        for &segment in segments {
            let Some((key, value)) = field(segment).or_else(|| head.then(|| plain_field(segment)).flatten())
            else {
                continue;
            };
            if key == Key::Authors && authors_from_fields && author_line.is_some_and(|l| l + 1 >= i) {
                if let Some(list) = meta.authors.as_mut()
                    && !list.split("; ").any(|a| a == value)
                {
                    list.push_str("; ");
                    list.push_str(&value);
                }
            } else {
                set(&mut meta, &mut date, key, value, false);
            }
            if key == Key::Authors {
                author_line = Some(i);
            }
            was_field = true;
        }
        if was_field {
            continue;
        }
        if h1.is_none()
            && lines.offset(i) < annotations_from
            && let Some((1, text)) = heading(line)
        {
            let text = clean(text.trim_matches('*'));
            // Zotero's own heading: `Annotations`, `Annotations (8/11/2024, 10:09:40 PM)`.
            let zotero_heading = text.get(..11).is_some_and(|h| h.eq_ignore_ascii_case("annotations"))
                && text[11..].trim().starts_with('(')
                || text.eq_ignore_ascii_case("annotations");
            if !text.is_empty() && !zotero_heading {
                h1 = Some(text);
            }
        }
    }
    meta.title = meta.title.or(h1);
    meta.year = meta.year.map(|y| year(&y));
    meta.dated = date.map(|y| year(&y));
    meta
}

/// A line cut at its HTML line breaks (`<br>`, `</br>`, `<br/>`, `<br />`).
fn split_breaks(line: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = line;
    while let Some(at) = LINE_BREAKS.iter().filter_map(|b| rest.find(b).map(|i| (i, b.len()))).min() {
        parts.push(&rest[..at.0]);
        rest = &rest[at.0 + at.1..];
    }
    parts.push(rest);
    parts
}

fn set(meta: &mut Meta, date: &mut Option<String>, key: Key, value: String, strong: bool) {
    // `Ho、 Jain、 Abbeel` (an ideographic comma), `Douglas C. Engelbart,`.
    let value = if key == Key::Authors {
        value.replace("、 ", ", ").replace('、', ", ").trim_end_matches([',', ';', ' ']).to_string()
    } else {
        value
    };
    let slot = match key {
        Key::Title => &mut meta.title,
        Key::Authors => &mut meta.authors,
        Key::Year => &mut meta.year,
        Key::Date => date,
        Key::Citekey => &mut meta.citekey,
    };
    if strong || slot.is_none() {
        *slot = Some(value);
    }
}

/// `Key:: value`, `**Key:** value`, `**Key**: value`, `- **Key:** value`, `> **Key**:: value`.
fn field(line: &str) -> Option<(Key, String)> {
    // `#### Paper:: …`: a field on a heading line is a field (as Dataview reads it).
    let t = unquote(line, 4).trim_start_matches(['-', '*', '+', ' ', '\t']);
    let t = t.strip_prefix('#').map_or(t, |h| h.trim_start_matches('#').trim_start());
    let t = line_start_bold(line).unwrap_or(t);
    let (name, value) = if let Some(i) = find_short(t, "::") {
        (&t[..i], &t[i + 2..])
    } else if line_start_bold(line).is_some() || unquote(line, 4).trim_start().starts_with("**") {
        let i = t.find(':')?;
        (&t[..i], &t[i + 1..])
    } else {
        return None;
    };
    if name.chars().count() > 24 {
        return None;
    }
    let key = key_of(name)?;
    let value = clean(value.trim_start_matches(['*', ' ', ':']).trim());
    (!value.is_empty()).then_some((key, value))
}

/// `Key: value` on a line of its own above the annotations (`Written by: …`, `Paper: …`), also as
/// a list item in a callout (ZotLit's `> - authors: Kahng`).
fn plain_field(line: &str) -> Option<(Key, String)> {
    let t = unquote(line, 4).trim();
    let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t).trim_start();
    let i = t.find(':')?;
    let key = key_of(&t[..i]).filter(|_| t[..i].chars().count() <= 16)?;
    let value = clean(t[i + 1..].trim());
    (!value.is_empty() && !value.starts_with("//")).then_some((key, value))
}

/// The text after a leading `**` (list marker and quote allowed), when the line starts bold.
fn line_start_bold(line: &str) -> Option<&str> {
    let t = unquote(line, 4).trim_start();
    let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t).trim_start();
    t.strip_prefix("**")
}

/// A value without its links' targets, wiki-link brackets and emphasis.
fn clean(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        if let Some(inner) = tail.strip_prefix("[[") {
            let Some(end) = inner.find("]]") else {
                out.push_str(tail);
                rest = "";
                break;
            };
            let link = &inner[..end];
            out.push_str(link.rsplit('|').next().unwrap_or(link).rsplit('/').next().unwrap_or(link));
            rest = &inner[end + 2..];
        } else if let Some(mid) = tail.find("](")
            && let Some(close) = tail[mid..].find(')')
        {
            let label = &tail[1..mid];
            // A link that is only an icon (`[🔗](zotero://…)`) is dropped with its label.
            if label.chars().any(char::is_alphanumeric) {
                out.push_str(label);
            }
            rest = &tail[mid + close + 1..];
        } else {
            out.push('[');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    // Nunjucks' error text that Zotero Integration prints in place of a failed filter
    // (`Title-Error: \`format\` can only be applied to dates…`) is not part of the value.
    if let Some(at) = out.find("Error: `") {
        out.truncate(at);
        out.truncate(out.trim_end_matches(['-', ' ', ',', '(']).len());
    }
    let mut t = out.trim();
    // Line breaks a template put after the value (`Lee, Jung-Shin<br>`).
    while let Some(head) = LINE_BREAKS.iter().find_map(|b| t.strip_suffix(b)) {
        t = head.trim_end();
    }
    // Separators a template printed after the value (`OpenAI,, `, `2023 ;`).
    let t = t.trim_matches(['*', '_']).trim().trim_end_matches([',', ';', ' ']);
    // A placeholder the template left unfilled (`{{citekey}}`) is no value.
    if t.contains("{{") && t.contains("}}") {
        return String::new();
    }
    // A value set in code (`**Citekey:** `key``), or quoted as in YAML (`title: "Tide Mills"` in a
    // frontmatter a template left unclosed).
    let t = ['`', '"', '\'']
        .iter()
        .find_map(|&q| t.strip_prefix(q).and_then(|c| c.strip_suffix(q)).filter(|c| !c.contains(q)))
        .unwrap_or(t);
    t.trim().to_string()
}

fn year(value: &str) -> String {
    if let Some(y) = epoch_year(value.trim()) {
        return y.to_string();
    }
    let digits: String =
        value.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    if digits.len() == 4 { digits } else { value.trim().to_string() }
}

/// The year of a date a template printed as a Unix time (`date: 1262325600000`, JavaScript's
/// milliseconds; or seconds): the item's date at local midnight, so half a day is added before the
/// year is read in UTC, which puts midnight of every time zone from UTC−11 to UTC+14 in its own year.
fn epoch_year(value: &str) -> Option<i16> {
    if !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = value.parse().ok()?;
    let ms = match value.len() {
        12 | 13 => n,
        9 | 10 => n.checked_mul(1000)?,
        _ => return None,
    };
    let ts = jiff::Timestamp::from_millisecond(ms.checked_add(12 * 3600 * 1000)?).ok()?;
    Some(ts.to_zoned(jiff::tz::TimeZone::UTC).year())
}

/// The year Zotero's own citation of the item prints (`([Gershman, 2019, p. 2](zotero://select/…))`,
/// `[Lee et al., 2021a](zotero://select/…)`): the first citation whose label holds one, for a note
/// that states the year nowhere else (an "Add note from annotations" note pasted as it is).
pub fn citation_year(text: &str) -> Option<String> {
    for end in memchr::memmem::find_iter(text.as_bytes(), b"](zotero://select/") {
        let Some(open) = text[..end].rfind('[').filter(|&o| end - o <= 200) else { continue };
        let label = &text[open + 1..end];
        if label.contains(['[', ']', '\n']) {
            continue;
        }
        // `Author, 2019, p. 2`: a part that is a year (with a letter after it when an author has
        // two items that year).
        let year = label.split(',').map(str::trim).find_map(|part| {
            let digits = part.trim_end_matches(|c: char| c.is_ascii_lowercase());
            (digits.len() == 4 && part.len() <= 5 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.to_string())
        });
        if year.is_some() {
            return year;
        }
    }
    None
}

/// The citekey of the note: the metadata's, else its first `[@key]` citation, else its file name
/// (`@key.md` → `key`).
pub fn citekey(meta: &Meta, first_cite: Option<&str>, file_path: &str) -> String {
    if let Some(key) =
        meta.citekey.as_deref().map(|k| k.trim().trim_start_matches('@')).filter(|k| !k.is_empty())
    {
        return key.to_string();
    }
    if let Some(key) = first_cite {
        return key.to_string();
    }
    let name = file_path.rsplit(['/', '\\']).next().unwrap_or(file_path);
    let stem = name.strip_suffix(".md").unwrap_or(name);
    stem.strip_prefix('@').and_then(citekey_prefix).unwrap_or(stem).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zotero_citations_give_the_year() {
        let note = "- “text” ([Gershman, 2019, p. 2](zotero://select/library/items/HR3W5E6K))";
        assert_eq!(citation_year(note).as_deref(), Some("2019"));
        let two =
            "[Go](zotero://select/x) then ([Lee et al., 2021a, p. ii](zotero://select/library/items/AB))";
        assert_eq!(citation_year(two).as_deref(), Some("2021"));
        assert_eq!(citation_year("[Lee, p. 12345](zotero://select/x)"), None);
    }

    #[test]
    fn a_date_printed_as_unix_time_gives_its_year() {
        // 2010-01-01 at midnight in UTC−6, and in UTC+1 (still 2009 in UTC).
        assert_eq!(year("1262325600000"), "2010");
        assert_eq!(year("1262300400000"), "2010");
        assert_eq!(year("1533106800"), "2018");
        assert_eq!(year("2021"), "2021");
        assert_eq!(year("12345"), "12345");
    }

    fn meta(text: &str) -> Meta {
        let fm = Frontmatter::parse(text);
        let lines = Lines::new(text, crate::note::frontmatter::body_start(text));
        read(&fm, fm.unreadable_yaml(text), &lines, text.len(), "key2020")
    }

    #[test]
    fn fields_in_the_shapes_templates_write() {
        let m = meta(
            "---\ntitle: key2020\nauthors: [Ann Lee, Bo Chen]\ndate: 2024-06-01\n---\n# The Real Title [🔗](zotero://select/x)\n> **Year**:: 2021\n",
        );
        assert_eq!(m.title.as_deref(), Some("The Real Title"));
        assert_eq!(m.authors.as_deref(), Some("Ann Lee, Bo Chen"));
        assert_eq!(m.year.as_deref(), Some("2021"));
        let m = meta("- **저자:** Seo-yeon Park, Min Cho\n- **연도:** 2024\nWritten by: nobody\n");
        assert_eq!((m.authors.as_deref(), m.year.as_deref()), (Some("Seo-yeon Park, Min Cho"), Some("2024")));
        let m = meta("---\ncitation-key: lee2020\n---\nAuthors:: [[People/Ann Lee|Ann Lee]]\n");
        assert_eq!((m.citekey.as_deref(), m.authors.as_deref()), (Some("lee2020"), Some("Ann Lee")));
        let m = meta("---\nzotero_citekey: lee2021\n---\n");
        assert_eq!(m.citekey.as_deref(), Some("lee2021"));
        // `key: "@lee2021"`: a Pandoc citation is the citekey; Zotero's own item key is not.
        let m = meta("---\nkey: \"@lee2021retrieval\"\n---\n");
        assert_eq!(m.citekey.as_deref(), Some("lee2021retrieval"));
        let m = meta("---\nkey: ABCD1234\n---\n");
        assert_eq!(m.citekey, None);
        // A frontmatter whose closing fence the template glued to the next line is no frontmatter.
        let m = meta("---\ntitle: \"Tide Mills\"\nyear: 2019\n---# Tide Mills\n");
        assert_eq!((m.title.as_deref(), m.year.as_deref()), (Some("Tide Mills"), Some("2019")));
    }

    #[test]
    fn a_template_error_printed_after_a_value_is_not_part_of_it() {
        let m =
            meta("Title: Bridges-Error: `format` can only be applied to dates. Tried for format object\n");
        assert_eq!(m.title.as_deref(), Some("Bridges"));
    }

    #[test]
    fn one_author_per_line_adds_up_to_one_list() {
        let m = meta("> **Author**:: Lee, Ann<br>  \n> **Author**:: Chen, Bo<br>  \n> **Title**:: T\n");
        assert_eq!(m.authors.as_deref(), Some("Lee, Ann; Chen, Bo"));
        // Apart, and under frontmatter authors, a later field does not add to the list.
        let m = meta("Author:: Ann Lee\n\nText.\n\nAuthor:: Someone Else\n");
        assert_eq!(m.authors.as_deref(), Some("Ann Lee"));
        let m = meta("---\nauthors: [Ann Lee]\n---\n> **Author**:: Bo Chen\n> **Author**:: Cy Dee\n");
        assert_eq!(m.authors.as_deref(), Some("Ann Lee"));
        // On one line, cut by the template's line breaks.
        let m = meta("> **FirstAuthor**:: Lee, Ann  \n> **Author**:: Chen, Bo  \n");
        assert_eq!(m.authors.as_deref(), Some("Lee, Ann; Chen, Bo"));
        let m = meta(">**Author**:: Lee, A.</br> **Author**:: Chen, B.</br> **Author**:: Dee, C.\n");
        assert_eq!(m.authors.as_deref(), Some("Lee, A.; Chen, B.; Dee, C."));
        let m = meta("Authors:: Jonathan Ho、 Ajay Jain、 Pieter Abbeel\n");
        assert_eq!(m.authors.as_deref(), Some("Jonathan Ho, Ajay Jain, Pieter Abbeel"));
    }

    #[test]
    fn list_items_in_a_metadata_callout_are_fields_and_a_publish_date_beats_the_notes_date() {
        let m = meta(
            "---\ndate: 2023-12-15\n---\n> [!info]- metadata\n> - publish date: 2022\n> - title: A Road Ahead\n> - authors: Kahng et al.\n\n> [!note] [Page 3](zotero://open-pdf/library/items/A?page=3&annotation=B)\n> text\n",
        );
        assert_eq!(m.authors.as_deref(), Some("Kahng et al."));
        assert_eq!(m.year.as_deref(), Some("2022"));
        assert_eq!(m.title.as_deref(), Some("A Road Ahead"));
    }

    #[test]
    fn a_field_on_a_heading_line_is_a_field() {
        let m = meta("#### Paper:: Tendon Stiffness\n\n# text\n");
        assert_eq!(m.title.as_deref(), Some("Tendon Stiffness"));
        let m = meta("- **CiteKey**: {{citekey}}\n - **Title**: A Report, \n - **Author**: OpenAI,, \n");
        assert_eq!(m.citekey, None);
        assert_eq!((m.title.as_deref(), m.authors.as_deref()), (Some("A Report"), Some("OpenAI")));
        let m = meta("**Citekey:** `lee2020`\n**Published:** 2020\n");
        assert_eq!((m.citekey.as_deref(), m.year.as_deref()), (Some("lee2020"), Some("2020")));
    }

    #[test]
    fn a_frontmatter_that_is_not_yaml_is_read_line_by_line() {
        let m = meta("---\ncitekey: @Man1995\nyear: 1995\n---\n# A Title\n");
        assert_eq!((m.citekey.as_deref(), m.year.as_deref()), (Some("Man1995"), Some("1995")));
    }

    #[test]
    fn better_notes_names_the_title_parent() {
        let m = meta("---\nparent: 'Augmenting Human Intellect'\n$libraryID: 1\n---\nkey2020\n");
        assert_eq!(m.title.as_deref(), Some("Augmenting Human Intellect"));
        assert_eq!(meta("---\nparent: '[[Index]]'\n---\n").title, None);
    }
}
