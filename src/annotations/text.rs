//! Small readers shared by the template styles: citekeys, pages, `<mark>` tags, Zotero links,
//! comment prefixes, quotes. Each takes a `&str` and returns what it found; none allocates unless
//! it returns owned text.

use super::colors;
use super::prefixes::PrefixTable;

/// Characters a citekey may hold inside it (Better BibTeX / Pandoc), besides letters, digits, `_`.
const KEY_INNER: &str = "-:.#$%&+?<>~/";

/// The HTML line breaks templates print (`nl2br` and hand-written ones).
pub const LINE_BREAKS: [&str; 4] = ["<br />", "<br/>", "</br>", "<br>"];

/// Reads a citekey at the start of `s` (after its `@`). Keys may start with a digit, hold
/// Unicode letters, and hold `-:.#$%&+?<>~/` inside but not at the end.
pub fn citekey_prefix(s: &str) -> Option<&str> {
    let mut end = 0;
    let mut last_word_end = 0;
    for (i, c) in s.char_indices() {
        if c.is_alphanumeric() || c == '_' {
            end = i + c.len_utf8();
            last_word_end = end;
        } else if KEY_INNER.contains(c) && end > 0 {
            end = i + c.len_utf8();
        } else {
            break;
        }
    }
    (last_word_end > 0).then(|| &s[..last_word_end])
}

/// A Pandoc citation `[@key, p. 5]` / `[@key p. 5]` / `[@key]`: the key and the page (label
/// removed), when `s` (trimmed) is exactly one.
pub fn citation(s: &str) -> Option<(&str, Option<String>)> {
    let inner = s.trim().strip_prefix("[@")?.strip_suffix(']')?;
    let mut key = citekey_prefix(inner)?;
    if !inner[key.len()..].is_empty() && !inner[key.len()..].starts_with([' ', ',', ';', '\t']) {
        // A key with characters Pandoc would not allow: take the whole token rather than misread
        // the rest of it as a page.
        let end = inner.find([' ', ',', ';', '\t']).unwrap_or(inner.len());
        key = &inner[..end];
    }
    let rest = inner[key.len()..].trim_start_matches([',', ' ', '\t']).trim();
    if rest.contains(['[', ']']) {
        return None;
    }
    Some((key, page_of_locator(rest)))
}

/// `p. 5`, `p.5`, `pp. 12-14`, `page 3`, `S12`, `xii` → the page label; empty → `None`.
pub fn page_of_locator(locator: &str) -> Option<String> {
    let mut rest = locator.trim();
    let labels: &[&str] =
        if rest.starts_with(['p', 'P']) { &["pages", "page.", "page", "pp.", "pp", "p.", "p"] } else { &[] };
    for label in labels {
        if let Some(after) = strip_prefix_ci(rest, label) {
            // "p" must be followed by a space, a dot or a digit: "pxii" is not "p xii".
            if after.starts_with([' ', '\t'])
                || after.starts_with(|c: char| c.is_ascii_digit())
                || label.ends_with('.')
            {
                rest = after.trim();
                break;
            }
        }
    }
    let page = rest.trim_matches([' ', ',', ';', '.']);
    // A label with its number left empty (`[Page](…?page=)`) prints no page.
    let label_only = ["page", "pages", "p", "pp", "seite", "página", "страница"]
        .iter()
        .any(|l| page.eq_ignore_ascii_case(l));
    (!page.is_empty() && !label_only).then(|| page.to_string())
}

/// The page a link label prints: `Page 3`, `p. 3`, `page 2`, `3`, `@Page 1133`, `Author, 2020, p. 5`.
pub fn label_page(label: &str) -> Option<String> {
    // `(Author, 2009, p. 777)`: the parentheses are the citation's, not the page's.
    let label = label.trim().trim_start_matches('(').trim_end_matches(')');
    let last = label.rsplit(',').next().unwrap_or(label).trim().trim_start_matches('@');
    let p_first = last.starts_with(['p', 'P']);
    let is_page = p_first || last.chars().all(|c| c.is_ascii_digit());
    // `Engelbart, 1962`: a citation without a locator ends with the year.
    let year = label.split(',').count() == 2 && last.len() == 4;
    if !is_page || last.is_empty() || year && !p_first {
        return None;
    }
    page_of_locator(last).filter(|p| is_page_token(p))
}

/// Whether `p` reads as a page: a number or a roman numeral (`12`, `S12`, `xii`, `A-3`, `5-7`),
/// not a word (`PDF`, `dAttention`).
pub fn is_page_token(p: &str) -> bool {
    let roman = |p: &str| p.chars().all(|c| "ivxlcdmIVXLCDM".contains(c));
    p.chars().count() <= 12 && (p.chars().any(|c| c.is_ascii_digit()) || roman(p)) && !p.contains(' ')
}

/// A page link to the PDF file that is not a Zotero link — `[page 2](file://…)`, or `[page 2]()`
/// when the template printed an empty path — as the byte range to remove (with the parentheses
/// around it, if any) and the page it prints.
pub fn file_page_link(line: &str) -> Option<(std::ops::Range<usize>, String)> {
    let mut from = 0;
    while let Some(open) = line[from..].find('[').map(|o| from + o) {
        let mid = line[open..].find("](").map(|m| open + m)?;
        let close = line[mid + 2..].find(')').map(|c| mid + 2 + c)?;
        let target = line[mid + 2..close].trim().trim_start_matches('<').trim_end_matches('>');
        if (target.is_empty() || strip_prefix_ci(target, "file://").is_some())
            && let Some(page) = label_page(&line[open + 1..mid])
        {
            return Some((in_parens(line, open..close + 1), page));
        }
        from = open + 1;
    }
    None
}

/// `range` of `line`, widened by one on each side when parentheses enclose it: a link printed as
/// `([p. 3](…))` is removed with them.
pub fn in_parens(line: &str, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
    if line[..range.start].ends_with('(') && line[range.end..].starts_with(')') {
        range.start - 1..range.end + 1
    } else {
        range
    }
}

/// `s` without the ASCII-case-insensitive `prefix`, if it starts with it.
pub fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

/// Byte offset of the first `needle` in `haystack` (SIMD substring search).
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// Where `part`, a slice of `whole`, starts in it.
pub fn offset_in(whole: &str, part: &str) -> usize {
    let at = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    debug_assert!(at + part.len() <= whole.len(), "not a slice of it");
    at
}

/// Byte offset of the first `needle` in `haystack`, for a line's few bytes: each place of one
/// of the needle's bytes (its first that is not a space) is tried, with no searcher built as
/// [`find`] does.
pub fn find_short(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let k = anchor(n)?;
    let mut from = k;
    while let Some(i) = memchr::memchr(n[k], h.get(from..)?) {
        let start = from + i - k;
        if h[start..].starts_with(n) {
            return Some(start);
        }
        from += i + 1;
    }
    None
}

/// Byte offset of the last `needle` in `haystack`, for a line's few bytes (see [`find_short`]).
pub fn rfind_short(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let k = anchor(n)?;
    let mut end = h.len();
    while let Some(at) = memchr::memrchr(n[k], &h[..end]) {
        let start = at.checked_sub(k)?;
        if h[start..].starts_with(n) {
            return Some(start);
        }
        end = at;
    }
    None
}

/// The byte of `needle` a short search looks for: its first that is not a space (spaces are
/// everywhere in a line). `None` for an empty needle.
fn anchor(needle: &[u8]) -> Option<usize> {
    (!needle.is_empty()).then(|| needle.iter().position(|&b| b != b' ').unwrap_or(0))
}

/// Byte offset of the last `needle` in `haystack`.
pub fn rfind(haystack: &str, needle: &str) -> Option<usize> {
    memchr::memmem::rfind(haystack.as_bytes(), needle.as_bytes())
}

/// The first `zotero://…` link in `s` that starts with `zotero://{kind}`: up to `)`, `>`, a quote
/// or whitespace.
pub fn zotero_link<'a>(s: &'a str, kind: &str) -> Option<&'a str> {
    static SCHEME: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("zotero://"));
    let mut from = 0;
    while let Some(pos) = SCHEME.find(&s.as_bytes()[from..]) {
        let start = from + pos;
        let end = s[start..].find([')', '>', '"', ' ', '\t', ']']).map_or(s.len(), |e| start + e);
        let link = &s[start..end];
        if link["zotero://".len()..].starts_with(kind) {
            return Some(link);
        }
        from = end.max(start + 1);
    }
    None
}

/// The `page=` query value of a Zotero deep link (none for `page=undefined`, what an export
/// prints for a note that has no page).
pub fn link_page(link: &str) -> Option<String> {
    let query = link.split_once('?')?.1;
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix("page="))
        .filter(|p| !p.is_empty() && *p != "undefined")
        .map(str::to_string)
}

/// Whether `s` is a Zotero key: eight capital letters and digits (`J2JSFQXZ`), as items and
/// annotations are named.
pub fn is_zotero_key(s: &[u8]) -> bool {
    s.len() == 8 && s.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// The `annotation=` key of a Zotero link, when it has one (not `undefined`).
pub fn annotation_key(link: &str) -> Option<&str> {
    let query = link.split_once('?')?.1;
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix("annotation="))
        .filter(|k| !k.is_empty() && *k != "undefined")
}

/// The page in the file name Zotero Integration gives an image annotation:
/// `…/image-5-x98-y533.png` (`{base}-{page}-x{x}-y{y}.{ext}`) → `5`.
pub fn image_page(path: &str) -> Option<String> {
    let (page, x, y) = image_name_parts(path)?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    (digits(x) && digits(y) && digits(page)).then(|| page.to_string())
}

/// The page, x and y of an image annotation's file name as Zotero Integration writes it
/// (`{base}-{page}-x{x}-y{y}.{ext}`), none of them checked.
pub fn image_name_parts(path: &str) -> Option<(&str, &str, &str)> {
    let name = path.rsplit(['/', '\\']).next()?;
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let mut parts = stem.rsplit('-');
    let y = parts.next()?.strip_prefix('y')?;
    let x = parts.next()?.strip_prefix('x')?;
    Some((parts.next()?, x, y))
}

/// An opening `<mark …>` tag read from the start of `s`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkTag {
    /// `#rrggbb` from a `background-color`/`background` style (hex or `rgb()`).
    pub hex: Option<String>,
    /// The colour name of a Highlightr `hltr-NAME` class.
    pub class_color: Option<String>,
    /// Byte length of the opening tag.
    pub len: usize,
}

/// Reads `<mark style="background-color: #hex">`, `<mark style="background: #hex">`,
/// `<mark style="background-color: rgb(…)">` or `<mark class="hltr-NAME">` at the start of `s`.
pub fn mark_open(s: &str) -> Option<MarkTag> {
    if !s.get(..5)?.eq_ignore_ascii_case("<mark") {
        return None;
    }
    let close = s.find('>')?;
    let (hex, class_color) = mark_colours(&s[5..close]);
    Some(MarkTag { hex, class_color, len: close + 1 })
}

/// The colours a tag's attributes (`style="…"`, `class="hltr-NAME"`) give: the style's hex and
/// the Highlightr class's name.
pub fn mark_colours(attrs: &str) -> (Option<String>, Option<String>) {
    let hex = style_color(attrs);
    let class_color = find_short(attrs, "hltr-").map(|i| {
        let name = &attrs[i + 5..];
        let end = name.find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).unwrap_or(name.len());
        name[..end].to_string()
    });
    (hex, class_color)
}

/// The colour of a `style` attribute: its background (`background-color`, `background`), else its
/// text colour (`color:`, as ZotLit's default template writes a highlight's colour).
fn style_color(attrs: &str) -> Option<String> {
    let style = attrs.split_once("style=").map_or(attrs, |(_, style)| style).trim_start_matches(['"', '\'']);
    let style = style.split(['"', '\'']).next().unwrap_or_default();
    let mut text_color = None;
    for declaration in style.split(';') {
        let Some((key, value)) = declaration.split_once(':') else { continue };
        let key = key.trim().to_ascii_lowercase();
        if key == "background" || key == "background-color" {
            if let Some(hex) = css_color(value) {
                return Some(hex);
            }
        } else if key == "color" {
            text_color = text_color.or_else(|| css_color(value));
        }
    }
    text_color
}

/// `#rrggbb` of a CSS colour value given as a hex or `rgb()`/`rgba()`.
fn css_color(value: &str) -> Option<String> {
    let value = value.trim_start();
    if let Some(hex) = value.strip_prefix('#') {
        let digits: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
        return colors::parse_hex(&digits);
    }
    // `background: green`: a CSS colour name, read as Zotero's colour of that name.
    let name = value.trim().trim_end_matches(['!', ' ']).trim_end_matches("important").trim();
    if name.chars().all(|c| c.is_ascii_alphabetic())
        && let Some(hex) = colors::zotero_hex_of_name(name)
    {
        return Some(hex.to_string());
    }
    let rgb = strip_prefix_ci(value, "rgb")?.trim_start_matches('a').trim_start().strip_prefix('(')?;
    let parts: Vec<u8> = rgb.split([',', ')']).take(3).filter_map(|p| p.trim().parse().ok()).collect();
    (parts.len() == 3).then(|| format!("#{:02x}{:02x}{:02x}", parts[0], parts[1], parts[2]))
}

/// Removes one pair of surrounding double quotes (straight or curly) from annotated text.
pub fn strip_quotes(text: &str) -> &str {
    let t = text.trim();
    // Each form below opens with a quote or an emphasis mark.
    if !t.starts_with(['"', '“', '„', '«', '_', '*']) {
        return t;
    }
    // Templates also mix a straight and a curly quote (`"{{annotatedText}}”`).
    for (open, close) in [('"', '"'), ('“', '”'), ('„', '“'), ('«', '»'), ('"', '”'), ('“', '"')]
    {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            return inner.trim();
        }
        // `_« text »_`, `*“text”*`: quotes the template set in italics.
        for em in ['_', '*'] {
            if let Some(inner) = t
                .strip_prefix(em)
                .and_then(|r| r.strip_suffix(em))
                .and_then(|r| r.strip_prefix(open))
                .and_then(|r| r.strip_suffix(close))
            {
                return inner.trim();
            }
        }
    }
    t
}

/// Whether `line` is the header Zotero writes over the annotations it adds to a note, in the
/// interface's language: a word and the date in parentheses (`Annotations(5/8/2022, 11:47:12 AM)`,
/// `注释(2023/9/30 下午3:54:57)`, `Anmerkungen (12.1.2023, 10:02:11)`).
pub fn is_import_stamp(line: &str) -> bool {
    let t = line.trim();
    let Some(open) = t.find('(') else { return false };
    let (word, rest) = (t[..open].trim(), &t[open + 1..]);
    let Some(inner) = rest.strip_suffix(')') else { return false };
    let date: String = inner.chars().take_while(|c| c.is_ascii_digit() || "/.-".contains(*c)).collect();
    !word.is_empty()
        && word.chars().count() <= 20
        && !word.contains(char::is_whitespace)
        && date.matches(['/', '.', '-']).count() == 2
        && date.chars().filter(char::is_ascii_digit).count() >= 4
}

/// Whether `line` holds only tags (`#📚 #to-read`, Zotero Integration's `#a, #b`); blank is.
pub fn is_tag_line(line: &str) -> bool {
    line.split_whitespace().all(|w| {
        w.len() > 1 && w.starts_with('#') && !w[1..].starts_with(['#', ' ']) && !w[1..].contains('#')
    })
}

/// Where the Obsidian block id that ends `line` starts (` ^id`, an id of ASCII letters, digits
/// and `-`): the byte offset of its space.
pub fn block_id_at(line: &str) -> Option<usize> {
    let i = rfind_short(line, " ^")?;
    let id = &line[i + 2..];
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then_some(i)
}

/// `s` without what Obsidian or the template put after the annotation's own words: a trailing
/// block id (` ^id`), and final lines that are only an Obsidian comment (`%% … %%`), only tags
/// (`#📚`, `#to-read`) or only a block id. Zotero never writes these into a text or comment.
pub fn strip_trailing_debris(s: &str) -> &str {
    let mut t = s.trim_end();
    loop {
        let before = t.len();
        let (head, last) = memchr::memrchr(b'\n', t.as_bytes()).map_or(("", t), |n| (&t[..n], &t[n + 1..]));
        let l = last.trim();
        // `---%% end annotations %%`: the export's end marker, a rule glued before it.
        let marker = l.trim_start_matches(['-', '*', '_']).starts_with("%%");
        if marker || l.starts_with('^') && !l.contains(' ') || is_tag_line(l) || is_date_stamp(l) {
            t = head.trim_end();
        } else if let Some(i) = block_id_at(t) {
            t = t[..i].trim_end();
        } else if let Some(i) = trailing_obsidian_comment(l).map(|i| t.len() - l.len() + i) {
            // `💬 Evidence %% fold %%`: a comment Obsidian hides, ending the line.
            t = t[..i].trim_end();
        }
        if t.len() == before {
            return t;
        }
    }
}

/// Whether `line` is only a date, with or without a time (`2024-04-01;10:05`,
/// `[[2024-04-01#10:05 am]]`, `2024-04-01T10:05:00`): the annotation's date a template prints
/// on a line of its own.
pub fn is_date_stamp(line: &str) -> bool {
    static STAMP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)^[\[(*_]*\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T;,@#]+\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:\s*[ap]\.?m\.?)?(?:Z|[+-]\d{2}:?\d{2})?)?[\])*_]*$",
        )
        .expect("the date stamp expression")
    });
    let l = line.trim();
    l.len() >= 8
        && l.len() <= 48
        && l.as_bytes()[..l.len().min(3)].iter().any(u8::is_ascii_digit)
        && STAMP.is_match(l)
}

/// Where an Obsidian comment that ends `line` starts (`words %% fold %%`), when words come before
/// it.
fn trailing_obsidian_comment(line: &str) -> Option<usize> {
    let inner = line.strip_suffix("%%")?;
    let open = rfind_short(inner, " %%")?;
    let comment = &inner[open + 3..];
    (!comment.contains("%%") && !comment.trim().is_empty() && has_letters(&line[..open])).then_some(open)
}

fn has_letters(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// ZotLit's block id: the annotation's key, `a`, the attachment's key, `p`, the page
/// (`ENKXZ9UHaTF7IBHFEp1`).
pub fn is_zotlit_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() > 18
        && is_zotero_key(&b[..8])
        && b[8] == b'a'
        && is_zotero_key(&b[9..17])
        && b[17] == b'p'
        && b[18..].iter().all(u8::is_ascii_digit)
}

/// `s` without the inline formatting tags of Zotero's rich-text comments (`<b>`, `<i>`, `<u>`,
/// `<sup>`, `<sub>`, `<strong>`, `<em>`, `<span>`, each closing tag; `<br>` becomes a line
/// break): a template prints a comment's HTML as it is. Any other `<` is left.
pub fn strip_inline_html(s: &str) -> std::borrow::Cow<'_, str> {
    const TAGS: [&str; 9] = ["b", "i", "u", "sup", "sub", "strong", "em", "span", "br"];
    if !s.contains('<') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let tag = &rest[open + 1..];
        let name_start = usize::from(tag.starts_with('/'));
        let name_end = tag[name_start..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(tag.len(), |e| name_start + e);
        let name = tag[name_start..name_end].to_ascii_lowercase();
        let close = tag.find('>').filter(|&c| !tag[..c].contains('<'));
        match close {
            // Only `<span …>` carries attributes; `<b and c>` in a formula is no tag.
            Some(c)
                if TAGS.contains(&name.as_str())
                    && (c == name_end
                        || tag[name_end..].starts_with('/') && c == name_end + 1
                        || name == "span" && tag[name_end..].starts_with(' ')) =>
            {
                if name == "br" {
                    out.push('\n');
                }
                rest = &tag[c + 1..];
            }
            _ => {
                out.push('<');
                rest = tag;
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Removes one pair of surrounding `**` or `__` (bold) from `s`.
pub fn strip_bold(s: &str) -> &str {
    let t = s.trim();
    for marker in ["**", "__"] {
        if let Some(inner) = t.strip_prefix(marker).and_then(|r| r.strip_suffix(marker)) {
            return inner.trim();
        }
    }
    t
}

/// A comment split into its recognised prefix (as the table writes it), theme, and the rest.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SplitComment {
    /// The prefix as the table writes it (`THESIS:`, `THEME`).
    pub prefix: Option<String>,
    /// The `x` of `THEME [x]:`.
    pub theme: Option<String>,
    /// The comment without the prefix (`None` when nothing is left).
    pub rest: Option<String>,
}

/// Splits `comment` (`THESIS: …`, `**THESIS:** …`, `**THESIS: …**`, `THEME [x]: …`, any case).
pub fn split_comment(comment: &str, table: &PrefixTable) -> SplitComment {
    let whole = strip_bold(comment);
    let nonempty = |s: &str| {
        let s = strip_bold(s.trim()).trim();
        (!s.is_empty()).then(|| s.to_string())
    };
    // `**THESIS:** rest`: the bold part is the prefix.
    let (head, tail) = match whole.strip_prefix("**").and_then(|r| r.split_once("**")) {
        Some((bold, rest)) => (bold.trim(), rest),
        None => (whole, ""),
    };
    if let Some(after) = strip_prefix_ci(head, "THEME") {
        let after = after.trim_start();
        if let Some(inner) = after.strip_prefix('[')
            && let Some((theme, rest)) = inner.split_once(']')
        {
            let rest = rest.trim_start().strip_prefix(':').unwrap_or(rest);
            let entry = table.entries.iter().find(|e| e.prefix.eq_ignore_ascii_case("THEME"));
            if let Some(entry) = entry {
                return SplitComment {
                    prefix: Some(entry.prefix.clone()),
                    theme: nonempty(theme),
                    rest: nonempty(&format!("{rest}{tail}")),
                };
            }
        }
    }
    let Some(colon) = head.find(':') else {
        return SplitComment { rest: nonempty(whole), ..SplitComment::default() };
    };
    let token = &head[..=colon];
    if token.contains(char::is_whitespace) {
        return SplitComment { rest: nonempty(whole), ..SplitComment::default() };
    }
    match table.entries.iter().find(|e| e.prefix.eq_ignore_ascii_case(token)) {
        Some(entry) => SplitComment {
            prefix: Some(entry.prefix.clone()),
            theme: None,
            rest: nonempty(&format!("{}{tail}", &head[colon + 1..])),
        },
        None => SplitComment { rest: nonempty(whole), ..SplitComment::default() },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_that_is_only_a_date_is_a_stamp() {
        for stamp in [
            "2024-04-01;10:05",
            "[[2024-04-01#10:05 am]]",
            "2024-04-01T10:05:00Z",
            "*2023/12/31*",
            "2024-04-01",
        ] {
            assert!(is_date_stamp(stamp), "{stamp}");
        }
        for words in ["2024-04-01 was the day we met", "see p. 2024", "12:30", "the 2024-04-01 release"] {
            assert!(!is_date_stamp(words), "{words}");
        }
        assert_eq!(strip_trailing_debris("a real limitation\n2024-04-01;10:01"), "a real limitation");
    }

    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The short searches find what `str::find` and `str::rfind` find, spaces in the
        /// needle and multi-byte text included.
        #[test]
        fn short_searches_agree_with_the_standard_ones(
            hay in "[ a^\\[\\]é%]{0,40}",
            needle in "[ a^\\[\\]é%]{1,4}",
        ) {
            prop_assert_eq!(find_short(&hay, &needle), hay.find(&needle));
            prop_assert_eq!(rfind_short(&hay, &needle), hay.rfind(&needle));
        }
    }

    #[test]
    fn rich_text_tags_leave_a_comment_and_other_angle_brackets_stay() {
        assert_eq!(
            strip_inline_html("<b>Panel (e) CPC:</b> the <i>outer</i> rods<br/>next"),
            "Panel (e) CPC: the outer rods\nnext"
        );
        assert_eq!(strip_inline_html("<span style=\"color: red\">red</span> text"), "red text");
        assert_eq!(strip_inline_html("if x<b and c>y, 2 < 3"), "if x<b and c>y, 2 < 3");
        assert_eq!(strip_inline_html("a <table> stays"), "a <table> stays");
    }

    #[test]
    fn quotes_and_quotes_in_italics_are_the_templates() {
        assert_eq!(strip_quotes("_« 4. Experiment »_"), "4. Experiment");
        assert_eq!(strip_quotes("*“a passage”*"), "a passage");
        assert_eq!(strip_quotes("“a passage”"), "a passage");
        assert_eq!(strip_quotes("\"a passage”"), "a passage");
        // Italics alone are the passage's own emphasis.
        assert_eq!(strip_quotes("_a passage_"), "_a passage_");
    }

    #[test]
    fn zoteros_import_stamp_in_any_language() {
        assert!(is_import_stamp("Annotations(5/8/2022, 11:47:12 AM)"));
        assert!(is_import_stamp("注释(2023/9/30 下午3:54:57)"));
        assert!(is_import_stamp("Anmerkungen (12.1.2023, 10:02:11)"));
        assert!(!is_import_stamp("Results (see 2/3/4 below)"));
        assert!(!is_import_stamp("Annotations"));
        assert!(!is_import_stamp("A comment (p. 5)"));
    }

    #[test]
    fn trailing_debris_is_not_the_annotation() {
        assert_eq!(strip_trailing_debris("Weight matters\n%%/zt-managed%%"), "Weight matters");
        assert_eq!(strip_trailing_debris("A claim ^ab5369"), "A claim");
        assert_eq!(strip_trailing_debris("^ab5369"), "");
        assert_eq!(strip_trailing_debris("My point\n\n---%% end annotations %%"), "My point");
        assert_eq!(strip_trailing_debris("Clutter grows %% fold %%"), "Clutter grows");
        assert_eq!(strip_trailing_debris("50 %% of cases"), "50 %% of cases");
        assert_eq!(strip_trailing_debris("Last figure\n\n#📚 #to-read"), "Last figure");
        // Words that merely start with a hash, or a caret inside the text, stay.
        assert_eq!(strip_trailing_debris("C# is used, see x^2"), "C# is used, see x^2");
        assert_eq!(strip_trailing_debris("#1 result"), "#1 result");
    }

    #[test]
    fn printed_pages() {
        assert_eq!(label_page("(Lee, 2020, p. 5)").as_deref(), Some("5"));
        assert_eq!(label_page("page 12").as_deref(), Some("12"));
        assert_eq!(label_page("14").as_deref(), Some("14"));
        assert_eq!(label_page("p. xii").as_deref(), Some("xii"));
        // A citation without a locator ends with the year, not a page.
        assert_eq!(label_page("Engelbart, 1962"), None);
        assert_eq!(label_page("Lee, p. 1962").as_deref(), Some("1962"));
        assert_eq!(label_page("PDF"), None);
    }

    #[test]
    fn citekeys() {
        assert_eq!(citekey_prefix("smithML2023 p. 5]"), Some("smithML2023"));
        assert_eq!(citekey_prefix("2020deep-learning.v2, p"), Some("2020deep-learning.v2"));
        assert_eq!(citekey_prefix("müllerÜberblick2021]"), Some("müllerÜberblick2021"));
        assert_eq!(citekey_prefix("李2020深度"), Some("李2020深度"));
        assert_eq!(citekey_prefix("key:with/inner-"), Some("key:with/inner"));
        assert_eq!(citekey_prefix("-x"), None);
    }

    #[test]
    fn citations_and_pages() {
        assert_eq!(citation("[@smithML2023 p. 5]"), Some(("smithML2023", Some("5".into()))));
        assert_eq!(citation("[@smith, pp. 12–14]"), Some(("smith", Some("12–14".into()))));
        assert_eq!(citation("[@smith p.xii]"), Some(("smith", Some("xii".into()))));
        assert_eq!(citation("[@smith S12]"), Some(("smith", Some("S12".into()))));
        assert_eq!(citation("[@smith]"), Some(("smith", None)));
        assert_eq!(page_of_locator("Page"), None);
        assert_eq!(citation("see [@smith]"), None);
        assert_eq!(citation("[@o’brien2018:ch3, p.5]"), Some(("o’brien2018:ch3", Some("5".into()))));
    }

    #[test]
    fn marks_and_links() {
        let tag = mark_open("<mark style=\"background-color: #5FB236\">Highlight</mark>").unwrap();
        assert_eq!(tag.hex.as_deref(), Some("#5fb236"));
        assert_eq!(
            mark_open("<mark style=\"background: rgb(255, 212, 0)\">x").unwrap().hex.as_deref(),
            Some("#ffd400")
        );
        assert_eq!(
            mark_open("<mark class=\"hltr-yellow\">x").unwrap().class_color.as_deref(),
            Some("yellow")
        );
        let link =
            zotero_link("([p. 3](zotero://open-pdf/library/items/AB?page=3&annotation=CD))", "open-pdf")
                .unwrap();
        assert_eq!(link, "zotero://open-pdf/library/items/AB?page=3&annotation=CD");
        assert_eq!(link_page(link).as_deref(), Some("3"));
        assert_eq!(image_page("Papers/images/image-5-x98-y533.png").as_deref(), Some("5"));
        assert_eq!(image_page("a/key_image-12-x1-y2.png").as_deref(), Some("12"));
        assert_eq!(image_page("photo-x1-y2.png"), None);
    }

    #[test]
    fn comment_prefixes() {
        let table = PrefixTable::default();
        let split = split_comment("**THESIS:** Main argument", &table);
        assert_eq!(
            (split.prefix.as_deref(), split.rest.as_deref()),
            (Some("THESIS:"), Some("Main argument"))
        );
        let split = split_comment("**q: why?**", &table);
        assert_eq!((split.prefix.as_deref(), split.rest.as_deref()), (Some("Q:"), Some("why?")));
        let split = split_comment("THEME [evaluation]: metrics", &table);
        assert_eq!(
            (split.prefix.as_deref(), split.theme.as_deref(), split.rest.as_deref()),
            (Some("THEME"), Some("evaluation"), Some("metrics"))
        );
        let split = split_comment("**Question: What about edge cases?**", &table);
        assert_eq!((split.prefix, split.rest.as_deref()), (None, Some("Question: What about edge cases?")));
        assert_eq!(split_comment("A: yes", &table).prefix.as_deref(), Some("A:"));
    }
}
