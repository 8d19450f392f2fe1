//! Link rewriting for a moved or renamed file, as Obsidian does it: every link to the file, across
//! the vault, is pointed at its new path ([`rewrite_links`]), and the moved note's own links are
//! re-based so they still reach the same files from its new folder ([`rebase_links`]).
//!
//! Both are pure and edit only the target part of the links they change: subpaths (`#Heading`,
//! `#^block`), aliases, embed sizes, the `!`, the syntax (wikilink or Markdown), line ends and
//! everything else stay byte-identical. A link is changed only when it no longer reaches its file
//! after the move; Obsidian leaves the others alone too.
//!
//! Links are read as [`Note::parse`] reads them (links in code and comments are not links), plus
//! the wikilinks in the frontmatter, which Obsidian treats as links from the note's properties.

use std::fmt::Write as _;
use std::ops::Range;

use serde::Serialize;

use super::model::{Link, LinkKind, Span};
use super::resolve::{LinkResolver, LinkStyle, Resolve};
use super::{Note, frontmatter, inline, percent_decode};

/// A note's text with some of its links rewritten.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rewrite {
    /// The new text (the input itself when nothing changed).
    pub text: String,
    /// The links changed, in order.
    pub changes: Vec<LinkChange>,
}

/// One link changed by a rewrite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkChange {
    /// 1-based line of the link.
    pub line: usize,
    /// The whole link as it was (`[[Old#Methods|see]]`).
    pub before: String,
    /// The whole link as it is now (`[[New#Methods|see]]`).
    pub after: String,
}

/// Rewrites the links in `text` (the note at `from`) that reach `old` so they reach `new`.
///
/// `before` and `after` index the vault before and after the move (register the same aliases in
/// both). A link reaches `old` when `before` resolves it to `old` from `from`, an ambiguous name
/// counting as the file Obsidian opens ([`LinkResolver::first`]). Such a link is rewritten to
/// `after.link_text(new, Some(from), style)` unless it still reaches `new` as written (a move
/// into another folder of a note linked by its unique name). Links to other files, external
/// links and links in code are untouched; a text without links to `old` comes back identical.
pub fn rewrite_links(
    text: &str,
    from: &str,
    old: &str,
    new: &str,
    before: &LinkResolver,
    after: &dyn Resolve,
    style: LinkStyle,
) -> Rewrite {
    let retarget = Retarget { before, after, from_before: from, from_after: from, style };
    retarget.apply(text, |path| same_path(path, old).then(|| new.to_string()))
}

/// Re-bases the links of the note moved from `old` to `new` (its `text`) so that each still
/// reaches the file it reached from `old`: relative paths (`../Top.md`, `[[Sub/Page]]`), names
/// that Obsidian picked among several by folder, and links to the note itself by its old name.
///
/// A link that still reaches its file from `new` is untouched; the others are written with
/// `after.link_text(target, Some(new), style)`. Broken and external links are untouched.
pub fn rebase_links(
    text: &str,
    old: &str,
    new: &str,
    before: &LinkResolver,
    after: &dyn Resolve,
    style: LinkStyle,
) -> Rewrite {
    let retarget = Retarget { before, after, from_before: old, from_after: new, style };
    retarget.apply(text, |path| Some(if same_path(path, old) { new } else { path }.to_string()))
}

/// Paths compare as the resolver compares them: case-insensitively.
fn same_path(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
}

/// One rewrite pass: which vault and folder links are read in before and after the move.
struct Retarget<'a> {
    before: &'a LinkResolver,
    after: &'a dyn Resolve,
    from_before: &'a str,
    from_after: &'a str,
    style: LinkStyle,
}

/// The replacement of a link's target.
struct Edit {
    link: Span,
    target: Range<usize>,
    text: String,
    line: usize,
}

impl Retarget<'_> {
    /// Rewrites each link whose file (before the move) `goal` maps to a path it no longer reaches.
    fn apply(&self, text: &str, goal: impl Fn(&str) -> Option<String>) -> Rewrite {
        let mut edits = Vec::new();
        for (link, quoting) in links(text) {
            let Some(written) = Written::find(text, &link, quoting) else { continue };
            let Some(path) = self.before.first(&written.target, Some(self.from_before)) else { continue };
            let Some(goal) = goal(&path) else { continue };
            let now = self.after.first(&written.target, Some(self.from_after));
            if now.is_some_and(|p| same_path(&p, &goal)) {
                continue;
            }
            let target = self.new_target(&goal, &written);
            let text = written.encode(&target);
            edits.push(Edit { link: link.span, target: written.range, text, line: link.line });
        }
        splice(text, edits)
    }

    /// The target to write for `goal`: in the requested style, else the first other style whose
    /// text resolves to `goal` (a same-folder relative link can name another file first).
    fn new_target(&self, goal: &str, written: &Written) -> String {
        let from = Some(self.from_after);
        let styles = [self.style, LinkStyle::Absolute, LinkStyle::Shortest];
        let candidates = styles.map(|style| {
            let mut target = self.after.link_text(goal, from, style);
            if let Some(ext) = &written.md_extension
                && goal.to_lowercase().ends_with(".md")
            {
                target.push_str(ext);
            }
            target
        });
        let resolves = |t: &String| self.after.first(t, from).is_some_and(|p| same_path(&p, goal));
        candidates.iter().find(|t| resolves(t)).unwrap_or(&candidates[0]).clone()
    }
}

/// Applies `edits` (in text order) to `text`, recording each changed link.
fn splice(text: &str, edits: Vec<Edit>) -> Rewrite {
    let mut out = String::with_capacity(text.len() + 16 * edits.len());
    let mut changes = Vec::with_capacity(edits.len());
    let mut done = 0;
    for edit in edits {
        let (Some(head), Some(tail), Some(before)) = (
            text.get(edit.link.start..edit.target.start),
            text.get(edit.target.end..edit.link.end),
            text.get(edit.link.clone()),
        ) else {
            continue;
        };
        if edit.link.start < done {
            continue;
        }
        out.push_str(&text[done..edit.link.start]);
        let after = format!("{head}{}{tail}", edit.text);
        out.push_str(&after);
        done = edit.link.end;
        changes.push(LinkChange { line: edit.line, before: before.to_string(), after });
    }
    out.push_str(&text[done..]);
    Rewrite { text: out, changes }
}

/// How the text around a link quotes it: Markdown, or a YAML scalar in the frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Body,
    YamlPlain,
    YamlSingle,
    YamlDouble,
}

/// The links of `text` in order: the frontmatter's wikilinks, then the body's links, those in
/// headings included (Obsidian counts them; `Note::parse` does not collect them).
fn links(text: &str) -> Vec<(Link, Quoting)> {
    let note = Note::parse(text);
    let mut body = note.links;
    for heading in &note.headings {
        body.extend(scan(text, heading.span.clone(), heading.line));
    }
    body.retain(|l| !l.external);
    body.sort_by_key(|l| l.span.start);
    body.dedup_by_key(|l| l.span.start);
    let mut out = frontmatter_links(text);
    out.extend(body.into_iter().map(|l| (l, Quoting::Body)));
    out
}

/// The links [`inline::scan`] finds on the lines of `range`, the first of which is `line_no`.
fn scan(text: &str, range: Span, mut line_no: usize) -> Vec<Link> {
    let mut scratch = Note::default();
    let mut pos = range.start;
    while let Some(rest) = text.get(pos..range.end).filter(|rest| !rest.is_empty()) {
        let end = rest.find('\n').map_or(range.end, |i| pos + i);
        inline::scan(&mut scratch, text[pos..end].trim_end_matches('\r'), pos, line_no);
        pos = end + 1;
        line_no += 1;
    }
    scratch.links
}

/// Wikilinks in frontmatter values (`related: "[[Paper]]"`), each with its YAML quoting.
fn frontmatter_links(text: &str) -> Vec<(Link, Quoting)> {
    let Some(block) = frontmatter::locate(text) else { return Vec::new() };
    let line_no = 1 + text[..block.yaml.start].matches('\n').count();
    scan(text, block.yaml, line_no)
        .into_iter()
        .filter(|l| l.kind == LinkKind::Wiki)
        .map(|l| {
            let line_start = text[..l.span.start].rfind('\n').map_or(0, |i| i + 1);
            let quoting = yaml_quoting(&text[line_start..l.span.start]);
            (l, quoting)
        })
        .collect()
}

/// The YAML quoting in force at the end of `prefix` (the start of a line): a quote opens a
/// scalar only where one can start (after a space, `:`, `-`, `[`, `{` or `,`).
fn yaml_quoting(prefix: &str) -> Quoting {
    let mut quoting = Quoting::YamlPlain;
    let mut prev = ' ';
    let mut chars = prefix.chars().peekable();
    while let Some(c) = chars.next() {
        let opens = prev.is_whitespace() || matches!(prev, ':' | '-' | '[' | '{' | ',');
        quoting = match (quoting, c) {
            (Quoting::YamlPlain, '\'') if opens => Quoting::YamlSingle,
            (Quoting::YamlPlain, '"') if opens => Quoting::YamlDouble,
            // `''` inside single quotes and `\x` inside double quotes are escapes.
            (Quoting::YamlSingle, '\'') if chars.next_if_eq(&'\'').is_some() => Quoting::YamlSingle,
            (Quoting::YamlDouble, '\\') => {
                chars.next();
                Quoting::YamlDouble
            }
            (Quoting::YamlSingle, '\'') | (Quoting::YamlDouble, '"') => Quoting::YamlPlain,
            (q, _) => q,
        };
        prev = c;
    }
    quoting
}

/// How a Markdown link destination is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// A wikilink target, in the body or in a YAML scalar.
    Wiki(Quoting),
    /// `[t](<My Note.md>)`.
    Angle,
    /// `[t](My%20Note.md)`; `unicode` when non-ASCII characters are encoded too.
    Encoded { unicode: bool },
    /// `[t](My Note.md)`: spaces written as they are.
    Raw,
}

/// Where a link's target is written in the text and how.
struct Written {
    /// The target's bytes in the note (without subpath, alias or surrounding spaces).
    range: Range<usize>,
    /// The target as the resolver reads it (decoded, unquoted).
    target: String,
    /// The `.md` as the target wrote it, if it did.
    md_extension: Option<String>,
    form: Form,
}

impl Written {
    /// Finds the target of `link` in `text`; `None` when the link is not where it says.
    fn find(text: &str, link: &Link, quoting: Quoting) -> Option<Self> {
        let source = text.get(link.span.clone())?;
        let (start, raw, form) = match link.kind {
            LinkKind::Wiki => wiki_target(source, link.embed, quoting)?,
            LinkKind::Markdown => markdown_target(source, link)?,
        };
        let target = match form {
            Form::Wiki(quoting) => unquote(raw, quoting),
            _ => percent_decode(raw),
        };
        let md_extension = target
            .get(target.len().saturating_sub(3)..)
            .filter(|ext| target.len() > 3 && ext.eq_ignore_ascii_case(".md"))
            .map(str::to_string);
        let start = link.span.start + start;
        Some(Self { range: start..start + raw.len(), target, md_extension, form })
    }

    /// `target` (a vault path or name) written as this link wrote its target.
    fn encode(&self, target: &str) -> String {
        match self.form {
            Form::Wiki(quoting) => quote(target, quoting),
            form => percent_encode(target, form),
        }
    }
}

/// The target of a wikilink `source` (`[[…]]` or `![[…]]`): its offset in `source`, its text.
fn wiki_target(source: &str, embed: bool, quoting: Quoting) -> Option<(usize, &str, Form)> {
    let open = if embed { 3 } else { 2 };
    let inner = source.get(open..source.len().checked_sub(2)?)?;
    let dest_end = inner.find('|').unwrap_or(inner.len());
    let dest = &inner[..dest_end];
    let raw = &dest[..dest.find('#').unwrap_or(dest.len())];
    let lead = raw.len() - raw.trim_start().len();
    let mut target = raw.trim();
    // In a table, `[[Note\|alias]]` escapes the bar: the `\` is not part of the name.
    if quoting == Quoting::Body && raw.len() == dest_end && dest_end < inner.len() {
        target = target.strip_suffix('\\').unwrap_or(target);
    }
    Some((open + lead, target, Form::Wiki(quoting)))
}

/// The target of a Markdown link `source` (`[text](dest)` or `![text](dest)`).
fn markdown_target<'s>(source: &'s str, link: &Link) -> Option<(usize, &'s str, Form)> {
    let text_end = usize::from(link.embed) + 1 + link.alias.as_ref()?.len();
    if source.get(text_end..text_end + 2)? != "](" {
        return None;
    }
    let dest_start = text_end + 2;
    let rest = source.get(dest_start..source.len().checked_sub(1)?)?;
    let (offset, dest, angle) = match rest.strip_prefix('<') {
        Some(inner) => (1, &inner[..inner.find('>')?], true),
        None => (0, rest.split(" \"").next().unwrap_or(rest), false),
    };
    let raw = &dest[..dest.find('#').unwrap_or(dest.len())];
    let lead = raw.len() - raw.trim_start().len();
    let target = raw.trim();
    let form = if angle {
        Form::Angle
    } else if target.contains(' ') {
        Form::Raw
    } else {
        Form::Encoded { unicode: target.is_ascii() }
    };
    Some((dest_start + offset + lead, target, form))
}

/// A wikilink target as the resolver reads it, YAML quoting undone.
fn unquote(raw: &str, quoting: Quoting) -> String {
    match quoting {
        Quoting::YamlSingle => raw.replace("''", "'"),
        Quoting::YamlDouble => {
            let mut out = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                out.extend(if c == '\\' { chars.next() } else { Some(c) });
            }
            out
        }
        Quoting::Body | Quoting::YamlPlain => raw.to_string(),
    }
}

/// A wikilink target written inside its YAML quoting.
fn quote(target: &str, quoting: Quoting) -> String {
    match quoting {
        Quoting::YamlSingle => target.replace('\'', "''"),
        Quoting::YamlDouble => target.replace('\\', "\\\\").replace('"', "\\\""),
        Quoting::Body | Quoting::YamlPlain => target.to_string(),
    }
}

/// A Markdown link destination for `target`: characters that would end, split or change the
/// destination are percent-encoded (`%`, `#`, `<`, `>`, unbalanced parentheses, control
/// characters), and in the encoded form spaces and the rest of what `encodeURI` encodes too.
fn percent_encode(target: &str, form: Form) -> String {
    let balanced = parentheses_balanced(target);
    let mut out = String::with_capacity(target.len());
    for c in target.chars() {
        let escape = match c {
            '%' | '#' | '<' | '>' => true,
            c if c.is_control() => true,
            '(' | ')' => form != Form::Angle && !balanced,
            '"' => form != Form::Angle,
            ' ' | '[' | ']' | '{' | '}' | '|' | '\\' | '^' | '`' => matches!(form, Form::Encoded { .. }),
            c if !c.is_ascii() => form == Form::Encoded { unicode: true },
            _ => false,
        };
        if escape {
            for byte in c.encode_utf8(&mut [0; 4]).bytes() {
                let _ = write!(out, "%{byte:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn parentheses_balanced(s: &str) -> bool {
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_quoting_follows_the_scalar() {
        assert_eq!(yaml_quoting("up: \""), Quoting::YamlDouble);
        assert_eq!(yaml_quoting("up: '"), Quoting::YamlSingle);
        assert_eq!(yaml_quoting("  - '"), Quoting::YamlSingle);
        assert_eq!(yaml_quoting("up: 'it''s "), Quoting::YamlSingle);
        assert_eq!(yaml_quoting("up: it's "), Quoting::YamlPlain);
        assert_eq!(yaml_quoting("up: \"say \\\"x\\\" "), Quoting::YamlDouble);
    }

    #[test]
    fn encodes_what_would_break_the_destination() {
        let encoded = Form::Encoded { unicode: true };
        assert_eq!(percent_encode("A/My Note (2020).md", encoded), "A/My%20Note%20(2020).md");
        assert_eq!(percent_encode("Über 50%.md", encoded), "%C3%9Cber%2050%25.md");
        assert_eq!(percent_encode("Über a).md", Form::Encoded { unicode: false }), "Über%20a%29.md");
        assert_eq!(percent_encode("My Note#1.md", Form::Angle), "My Note%231.md");
        assert_eq!(percent_encode("My Note.md", Form::Raw), "My Note.md");
    }
}
