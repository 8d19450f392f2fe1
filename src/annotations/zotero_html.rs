//! Zotero's own note HTML, left as it is in a Markdown note: what "Add note from annotations"
//! writes (Zotero 6 and 7), imported or pasted without conversion.
//!
//! One paragraph per annotation: `<span class="highlight" data-annotation="%7B…%7D">“text”</span>`
//! (or `underline`, or an `<img data-annotation=…>` for an image), then a citation
//! `<span class="citation" …>(<span class="citation-item">Author, 2020, p. 5</span>)</span>`, then
//! the comment. A paragraph with a citation and no annotation element is a note annotation. The
//! colour, the page label and the keys that make the deep link are in the URL-encoded JSON of
//! `data-annotation`; the printed citation gives the page as the note shows it.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use super::draft::{ColorSource, Draft};
use super::text::{find, label_page};

/// What marks a note as Zotero note HTML.
const MARKER: &str = "data-annotation=\"";

/// Whether `text` holds Zotero note HTML annotations.
pub fn present(text: &str) -> bool {
    find(text, MARKER).is_some()
        || find(text, "class=\"citation\"").is_some() && find(text, "ztype=").is_some()
}

/// Every annotation of the Zotero note HTML in `text[from..]`, with its byte offset.
pub fn read(text: &str, from: usize) -> Vec<(usize, Draft<'static>)> {
    paragraphs(text, from)
        .into_iter()
        .filter_map(|range| paragraph(&text[range.clone()]).map(|d| (range.start, d)))
        .collect()
}

/// The paragraphs of the body: `<p>…</p>` elements when the note has them, else blocks between
/// blank lines.
fn paragraphs(text: &str, from: usize) -> Vec<Range<usize>> {
    let body = &text[from..];
    let mut out = Vec::new();
    if find(body, "<p>").is_some() || find(body, "<p ").is_some() {
        let mut at = 0;
        while let Some(open) = next_p(&body[at..]).map(|o| at + o) {
            let start = body[open..].find('>').map_or(body.len(), |e| open + e + 1);
            let end = find(&body[start..], "</p>").map_or(body.len(), |e| start + e);
            out.push(from + start..from + end);
            at = end.max(open + 1);
        }
        return out;
    }
    let mut start = 0;
    let mut pos = 0;
    for line in body.split_inclusive('\n') {
        if line.trim().is_empty() {
            if pos > start {
                out.push(from + start..from + pos);
            }
            start = pos + line.len();
        }
        pos += line.len();
    }
    if pos > start {
        out.push(from + start..from + pos);
    }
    out
}

/// The offset of the next `<p>` or `<p …>` opening tag.
fn next_p(s: &str) -> Option<usize> {
    let mut at = 0;
    while let Some(i) = find(&s[at..], "<p").map(|i| at + i) {
        if matches!(s.as_bytes().get(i + 2), Some(b'>' | b' ')) {
            return Some(i);
        }
        at = i + 2;
    }
    None
}

/// One paragraph's annotation, if it holds one.
fn paragraph(p: &str) -> Option<Draft<'static>> {
    let mut draft = Draft::default();
    let mut rest = p.to_string();
    if let Some(at) = find(&rest, MARKER) {
        let open = rest[..at].rfind('<')?;
        let tag_end = tag_end(&rest, open)?;
        let tag = &rest[open..tag_end];
        let json = attribute(tag, "data-annotation").and_then(|v| decode_json(&v));
        let element: String = tag[1..].chars().take_while(char::is_ascii_alphanumeric).collect();
        let class = attribute(tag, "class").unwrap_or_default();
        let (label, end) = if element.eq_ignore_ascii_case("img") {
            ("image", tag_end)
        } else {
            let close = closing(&rest, &element, tag_end)?;
            let inner = &rest[tag_end..close];
            if let Some(link) = href(inner, "zotero://open-pdf") {
                draft.link = Some(link);
            }
            let text = plain(inner);
            if !text.trim().is_empty() {
                draft.text.push(Cow::Owned(text));
            }
            let end = close + element.len() + 3;
            (if class.contains("underline") { "underline" } else { "highlight" }, end)
        };
        draft.label = Some(label.to_string());
        if let Some(json) = &json {
            from_json(json, &mut draft);
        }
        if label == "image" {
            // The image is stored in the note database; name it by its attachment key.
            let key = attribute(tag, "data-attachment-key")
                .or_else(|| json.as_ref().and_then(|j| j["annotationKey"].as_str().map(str::to_string)));
            draft.image = key.map(|k| format!("{k}.png"));
        }
        rest.replace_range(open..end.min(rest.len()), " ");
        if label == "image" {
            drop_empty_image_link(&mut rest);
        }
    }
    let citation = take_citation(&mut rest);
    if draft.label.is_none() {
        // A note annotation: a citation and the comment beside it.
        citation.as_ref()?;
        draft.label = Some("note".to_string());
    }
    if let Some(Some(page)) = citation {
        draft.page = Some(page);
    }
    let comment = plain(&rest);
    let comment = comment.trim();
    if !comment.is_empty() {
        draft.comment.push(Cow::Owned(comment.to_string()));
    }
    Some(draft)
}

/// Removes what is left of a Markdown image the `<img>` was the alt text of (a Markdown export of
/// the note: `![\<img …>](attachments/KEY.png)\`): `![\ ](…)` and its line-break backslash.
fn drop_empty_image_link(rest: &mut String) {
    let Some(open) = rest.find("![") else { return };
    let alt = &rest[open + 2..];
    let alt_len = alt.len() - alt.trim_start_matches(['\\', ' ']).len();
    let Some(target) = alt[alt_len..].strip_prefix("](") else { return };
    let Some(close) = target.find(')') else { return };
    let mut end = open + 2 + alt_len + 2 + close + 1;
    if rest[end..].starts_with('\\') {
        end += 1;
    }
    rest.replace_range(open..end, " ");
}

/// Colour, page label and deep link from the `data-annotation` JSON.
fn from_json(json: &Value, draft: &mut Draft) {
    if let Some(color) = json["color"].as_str() {
        draft.color = ColorSource { hex: Some(color.to_string()), name: None };
    }
    if let Some(label) = json["pageLabel"].as_str().filter(|l| !l.is_empty()) {
        draft.page = Some(label.to_string());
    }
    if draft.link.is_none()
        && let (Some(uri), Some(key)) = (json["attachmentURI"].as_str(), json["annotationKey"].as_str())
        && let Some(library) = library_path(uri)
    {
        let mut link = format!("zotero://open-pdf/{library}");
        if let Some(index) = json["position"]["pageIndex"].as_u64() {
            link.push_str(&format!("?page={}&annotation={key}", index + 1));
        } else {
            link.push_str(&format!("?annotation={key}"));
        }
        draft.link = Some(link);
    }
}

/// `http://zotero.org/users/1/items/KEY` → `library/items/KEY`; groups → `groups/ID/items/KEY`.
fn library_path(uri: &str) -> Option<String> {
    let path = uri.split("zotero.org/").nth(1)?;
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        ["users", _, "items", key] => Some(format!("library/items/{key}")),
        ["groups", id, "items", key] => Some(format!("groups/{id}/items/{key}")),
        _ => None,
    }
}

/// Removes the first `<span class="citation" …>…</span>` from `rest`; returns `None` when there
/// is none, else the page it prints (`Author, 2020, p. 5`), if any.
fn take_citation(rest: &mut String) -> Option<Option<String>> {
    let at = find(rest, "class=\"citation\"")?;
    let open = rest[..at].rfind('<')?;
    let tag_end = tag_end(rest, open)?;
    let close = closing(rest, "span", tag_end)?;
    let inner = plain(&rest[tag_end..close]);
    let printed = inner.trim().trim_start_matches('(').trim_end_matches(')').trim();
    let page = label_page(printed).or_else(|| {
        attribute(&rest[open..tag_end], "data-citation")
            .and_then(|v| decode_json(&v))
            .and_then(|j| j["citationItems"][0]["locator"].as_str().map(str::to_string))
    });
    rest.replace_range(open..close + "</span>".len(), " ");
    Some(page)
}

/// Where the tag opened at `open` ends (after its `>`), skipping `>` inside quoted values.
fn tag_end(s: &str, open: usize) -> Option<usize> {
    let mut quoted = false;
    for (i, b) in s.as_bytes()[open..].iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'>' if !quoted => return Some(open + i + 1),
            _ => {}
        }
    }
    None
}

/// The offset of the `</element>` that closes an element whose content starts at `from`.
fn closing(s: &str, element: &str, from: usize) -> Option<usize> {
    let open = format!("<{element}");
    let close = format!("</{element}>");
    let mut depth = 1;
    let mut at = from;
    loop {
        let next_close = find(&s[at..], &close).map(|i| at + i)?;
        match find(&s[at..next_close], &open) {
            Some(i) => {
                depth += 1;
                at += i + open.len();
            }
            None => {
                depth -= 1;
                if depth == 0 {
                    return Some(next_close);
                }
                at = next_close + close.len();
            }
        }
    }
}

/// The value of attribute `name` in an opening tag, entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = find(tag, &key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(entities(&tag[start..end]).into_owned())
}

/// The first `href` in `html` that starts with `prefix`, entities decoded.
fn href(html: &str, prefix: &str) -> Option<String> {
    let mut at = 0;
    while let Some(i) = find(&html[at..], "href=\"").map(|i| at + i + 6) {
        let end = html[i..].find('"').map_or(html.len(), |e| i + e);
        let value = entities(&html[i..end]);
        if value.starts_with(prefix) {
            return Some(value.into_owned());
        }
        at = end;
    }
    None
}

fn decode_json(value: &str) -> Option<Value> {
    serde_json::from_str(&crate::note::percent_decode(value)).ok()
}

/// The text of an HTML fragment: tags removed, `<br>` and block ends as line breaks, entities
/// decoded.
fn plain(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(end) = tag_end(rest, open) else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let name: String = rest[open + 1..end]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if name == "br" || (rest[open + 1..].starts_with('/') && matches!(name.as_str(), "p" | "div" | "li"))
        {
            out.push('\n');
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    let text = entities(&out).into_owned();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines.join("\n").trim().to_string()
}

/// Decodes the character references Zotero's note serializer writes (`&amp;`, `&lt;`, `&gt;`,
/// `&quot;`, `&#39;`, `&nbsp;`, and numeric ones like `&#x26;`).
pub(crate) fn entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let semi = tail.bytes().take(12).position(|b| b == b';');
        let decoded = semi.and_then(|semi| {
            let name = &tail[1..semi];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .map(|h| u32::from_str_radix(h, 16))
                    .or_else(|| name.strip_prefix('#').map(str::parse::<u32>))
                    .and_then(Result::ok)
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, semi + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte but letters and digits as `%XX`, as Zotero writes `data-annotation`.
    fn encode(json: &str) -> String {
        json.bytes()
            .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
            .collect()
    }

    #[test]
    fn a_highlight_its_citation_and_comment() {
        let data = encode(
            r##"{"attachmentURI":"http://zotero.org/users/7/items/ATT1","annotationKey":"AK1","color":"#5fb236","pageLabel":"iv","position":{"pageIndex":5}}"##,
        );
        let p = format!(
            "<p><span class=\"highlight\" data-annotation=\"{data}\">“Tides &amp; mills”</span> <span class=\"citation\" data-citation=\"x\">(<span class=\"citation-item\">Lee, 2020, p. iv</span>)</span> first<br>second</p>"
        );
        let found = read(&p, 0);
        assert_eq!(found.len(), 1);
        let d = &found[0].1;
        assert_eq!(d.text.concat(), "“Tides & mills”");
        assert_eq!(d.comment.concat(), "first\nsecond");
        assert_eq!(d.color.hex.as_deref(), Some("#5fb236"));
        assert_eq!(d.page.as_deref(), Some("iv"));
        assert_eq!(d.link.as_deref(), Some("zotero://open-pdf/library/items/ATT1?page=6&annotation=AK1"));
    }

    #[test]
    fn an_image_in_a_markdown_image_leaves_no_debris() {
        let data = "%7B%22annotationKey%22%3A%22IMG1%22%2C%22color%22%3A%22%23ffd400%22%2C%22pageLabel%22%3A%2218%22%7D";
        let text = format!(
            "## Figures\n\n![\\<img alt=\"\" data-attachment-key=\"IMG1\" data-annotation=\"{data}\" src=\"attachments/IMG1.png\" ztype=\"zimage\">](attachments/IMG1.png)\\\n<span class=\"citation\" data-citation=\"x\" ztype=\"zcitation\">(<span class=\"citation-item\">Vey, 2020, p. 18</span>)</span>\n"
        );
        let found = read(&text, 0);
        assert_eq!(found.len(), 1, "{found:?}");
        let d = &found[0].1;
        assert_eq!((d.image.as_deref(), d.page.as_deref()), (Some("IMG1.png"), Some("18")));
        assert!(d.comment.is_empty(), "{:?}", d.comment);
    }

    #[test]
    fn a_citation_alone_is_a_note_and_plain_paragraphs_are_nothing() {
        let text = "# Annotations\n\n<span class=\"citation\" data-citation=\"x\">(<span class=\"citation-item\">Lee, 2020, p. 2</span>)</span> My note.\n\nJust text.\n";
        let found = read(text, 0);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.label.as_deref(), Some("note"));
        assert_eq!(found[0].1.comment.concat(), "My note.");
        assert_eq!(found[0].1.page.as_deref(), Some("2"));
    }

    #[test]
    fn entities_and_links_inside_the_span() {
        let p = "<span class=\"highlight\" data-annotation=\"%7B%7D\"><a href=\"zotero://open-pdf/library/items/K?page=1&#x26;annotation=A\">“x &lt; y”</a></span>";
        let d = &read(p, 0)[0].1;
        assert_eq!(d.link.as_deref(), Some("zotero://open-pdf/library/items/K?page=1&annotation=A"));
        assert_eq!(d.text.concat(), "“x < y”");
        assert_eq!(entities("&#38;&bogus;&"), "&&bogus;&");
        assert_eq!(entities("&amp”&”;"), "&amp”&”;");
    }
}
