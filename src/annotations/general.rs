//! The general rule, for notes no template and no known style explains: in most exports each
//! annotation carries its own anchor — a `zotero://open-pdf/…` link (or ZotLit's `zotero://open`,
//! or Zotero's own `([Author, 2020, p. 5](zotero://select/…))` citation), a printed page
//! (`[p. 5]`, `[page 2](file://…)`, `*Page: ii*`), or an image named `image-PAGE-xX-yY` — and
//! that anchor bounds one annotation. Around it: the text (on the anchor's line, or the lines the
//! anchor heads, or the lines it ends), then the comment (labelled lines, nested items, the
//! paragraph after). Markup, links and labels never reach a field.

use std::borrow::Cow;

use super::colors::{ColorEntry, zotero_hex_of_name};
use super::draft::{ColorSource, Draft};
use super::lines::{Lines, heading, unquote};
use super::text::{
    annotation_key, find_short, is_page_token, is_zotlit_id, label_page, mark_colours, offset_in,
    page_of_locator, rfind_short, strip_prefix_ci,
};

/// What one line holds.
#[derive(Debug, Default, Clone)]
struct Info<'a> {
    /// Blockquote depth.
    depth: usize,
    blank: bool,
    heading: bool,
    /// A callout header (`> [!type…]`).
    callout: bool,
    /// The line's words are all inside one coloured `<span>` or `<mark>` (a highlight's text).
    marked: bool,
    /// The annotation link of the line (open-pdf, open, a page citation's select link).
    link: Option<String>,
    page: Option<String>,
    image: Option<String>,
    color: ColorSource,
    label: Option<String>,
    /// The line without markup, links, labels: what could be text or comment.
    rest: Cow<'a, str>,
    /// The line starts with Zotero's citation of the item (`([Author, 2021, p. 5](zotero://select/…))`):
    /// Zotero's export prints a highlight's text before it, so words after it are a note's comment.
    cited_first: bool,
    /// The anchor is a Zotero note's `[Go to annotation](…)` link: the quoted passage after it is
    /// the highlight; the user's prose around it in the note is not its comment.
    go_to: bool,
    /// The words of a `<mark>` or `<span>` the line starts with, when more follows it: the
    /// highlight's text, what follows its link the comment.
    lead_mark: Option<String>,
    /// The words between the annotation's link and the same link printed again on the line
    /// (`text [Page 7](L)comment [Page 7](L)`): its comment.
    link_comment: Option<String>,
    /// The line cites the item as Zotero does (`([Author, 2020, p. 5](zotero://select/…))`):
    /// Zotero's own text of the annotation, pasted or exported.
    cited: bool,
    /// The line ends with ZotLit's block id (`^KEYaATTACHMpN`): an annotation's own key.
    zotlit_id: bool,
    /// A callout header whose block holds no other anchor but ends with ZotLit's block id.
    keyed: bool,
    /// Zotero's placeholder of an image annotation exported without its image (`\[image\]`),
    /// with the annotation's link: Zotero prints its citation and comment on the next line.
    image_placeholder: bool,
    /// A heading at a level the templates print a colour's highlights as, among annotations
    /// ([`colour_headings`]): an annotation with no link.
    colour_heading: bool,
    /// A persisted block's end (`%% end annotations %%`): no annotation goes on past it.
    region_end: bool,
    /// The colour a callout's title names, as a colour label of the templates
    /// (`> [!note] Concepts`): the title is a label, however many words it has.
    title_colour: Option<String>,
    /// The line goes on the paragraph of the line above it, a quote's or a list item's, with
    /// no marker of its own (Markdown's lazy continuation: `> text,` then `more text [p. 3](…)`).
    lazy: bool,
}

impl Info<'_> {
    fn anchored(&self) -> bool {
        self.link.is_some()
            || self.page.is_some()
            || self.image.is_some()
            || self.keyed
            || self.colour_heading
    }
}

/// One annotation found by the general rule, with the byte offset of its first line.
pub struct Found {
    /// Byte offset in the note.
    pub at: usize,
    /// What was read.
    pub draft: Draft<'static>,
    /// Read from a Zotero note's copy of the annotation (`[Go to annotation](…)`, or Zotero's
    /// citation first): a note printed beside the export's own list of the same annotations.
    copy: bool,
}

const TYPE_WORDS: [&str; 6] = ["highlight", "underline", "image", "note", "ink", "text"];
/// A colour's name or sign (`yellow`, `amarillo`, `🟨`), or a colour word a template prints that
/// no Zotero colour has (`black`, `white`, `cyan`).
pub(super) fn is_colour_word(word: &str) -> bool {
    zotero_hex_of_name(word).is_some() || OTHER_COLOUR_WORDS.contains(&word)
}

/// Colour words templates print that no Zotero colour has.
const OTHER_COLOUR_WORDS: [&str; 3] = ["black", "white", "cyan"];

/// Whether an ASCII word, in any case, is a type word or a colour word.
fn is_type_or_colour_ascii(word: &str) -> bool {
    is_type_word(word).is_some()
        || zotero_hex_of_name(word).is_some()
        || OTHER_COLOUR_WORDS.iter().any(|c| c.eq_ignore_ascii_case(word))
}

/// The colour a callout type ends with, after a hyphen or an underscore (`annotation-yellow`,
/// `highlight_Red`).
pub(super) fn type_colour(callout_type: &str) -> Option<&str> {
    let (_, last) = callout_type.rsplit_once(['-', '_'])?;
    zotero_hex_of_name(last).or_else(|| zotero_hex_of_name(&last.to_ascii_lowercase())).map(|_| last)
}

/// The colour whose label (one of the templates' colour labels) `title` is.
fn label_colour(labels: &[ColorEntry], title: &str) -> Option<String> {
    let title = title.trim();
    labels.iter().find(|l| !title.is_empty() && l.name == title).map(|l| l.hex.clone())
}

/// Reads every anchored annotation in `lines`; `labels` are the colour labels of the vault's
/// templates, which group headings may print.
/// `heading_colours`: the heading levels the templates print one colour's highlights as.
///
/// `templated`: the user has templates of their own, whose reading says what a colour code means.
pub fn read(
    lines: &Lines<'_>,
    labels: &[ColorEntry],
    heading_colours: &[(usize, String)],
    templated: bool,
) -> Vec<Found> {
    let mut infos: Vec<Info<'_>> = (0..lines.len()).map(|i| info(lines.get(i))).collect();
    // ZotLit's first notes hold each highlight in a `zotero-annot` code block: its fences are
    // no more than blank lines.
    for (i, info) in infos.iter_mut().enumerate() {
        let t = lines.get(i).trim();
        if t == "```" || t.strip_prefix("```").is_some_and(|lang| lang.trim() == "zotero-annot") {
            *info = Info { blank: true, ..Info::default() };
        }
    }
    for info in infos.iter_mut().filter(|i| i.callout) {
        info.title_colour = label_colour(labels, &info.rest);
    }
    lazy_continuations(lines, &mut infos);
    // A ZotLit callout with no page and no link (`> [!note] Concepts`, its text, `> ^KEYaATTpN`):
    // its block id marks it, and its header is the anchor.
    for i in 0..infos.len() {
        if !infos[i].zotlit_id {
            continue;
        }
        let depth = infos[i].depth;
        let mut j = i;
        while j > 0 && !infos[j - 1].blank && infos[j - 1].depth == depth && !infos[j - 1].anchored() {
            j -= 1;
            if infos[j].callout {
                if !infos[i].anchored() {
                    infos[j].keyed = true;
                }
                break;
            }
        }
    }
    colour_headings(lines, &mut infos, heading_colours);
    // With the user's template, the template says what its page headings hold.
    if !templated {
        page_sections(lines, &mut infos);
    }
    code_characters(&mut infos, !templated);
    let mut skip = skipped(lines, &infos);
    let mut above = image_comments_above(&infos);
    above.extend(item_comments_above(lines, &infos));
    let labelled = labelled_comments_above(&infos, &skip);
    for &(_, j) in above.iter().chain(&labelled) {
        skip[j] = true;
    }
    let anchors: Vec<usize> = (0..infos.len()).filter(|&i| !skip[i] && infos[i].anchored()).collect();
    // A note whose first wordless quoted link ends the quotes above it (`> text`, `> comment`,
    // `> [p. 3](…)`): so do the next ones, and the quotes after one link are the next one's.
    let links_end_quotes = anchors
        .iter()
        .find(|&&n| bare_quoted_link(&infos[n]))
        .is_some_and(|&n| !quotes_above(&infos, &skip, n, 0).is_empty());
    let mut found = Vec::new();
    let mut heading_colour: Option<String> = None;
    let mut next_heading = 0;
    let mut claimed_until = 0;
    let mut k = 0;
    while k < anchors.len() {
        let a = anchors[k];
        // Header-only anchor lines next to each other (`*Page: 2*` then `[Link](zotero://…)`)
        // are one annotation's header, unless each has its own link.
        let headers = |x: &Info<'_>, y: &Info<'_>| {
            let both_linked = x.link.is_some() && y.link.is_some();
            let wordless = !has_word(&x.rest) && !has_word(&y.rest);
            wordless && !both_linked && x.image.is_none() && y.image.is_none()
        };
        let mut b = a;
        while k + 1 < anchors.len()
            && anchors[k + 1] == b + 1
            && (headers(&infos[b], &infos[b + 1]) || image_above_citation(&infos[b], &infos[b + 1]))
            && infos[b].depth == infos[b + 1].depth
        {
            b += 1;
            k += 1;
        }
        // A header (`> [!yellow] Page 3 [link](…)`) and, below it in the same quote, the image it
        // heads: one image annotation.
        // So is an image with the link below it (`![](KEY.png)` then `[Go to annotation](…)`).
        let (link_only, image_only) = (
            |i: &Info<'_>| i.link.is_some() && i.image.is_none() && !has_word(&i.rest),
            |i: &Info<'_>| i.image.is_some() && i.link.is_none() && !has_word(&i.rest),
        );
        // In a note that prints comments above their annotations, the comment may stand between
        // the image and the link (`![[image-2-….png]]`, `> **Note**: …`, `>  [p. 2](zotero://…)`).
        let comment_between =
            |j: usize| labelled.iter().any(|&(m, c)| c == j && anchors.get(k + 1) == Some(&m));
        if let Some(&n) = anchors.get(k + 1)
            && (link_only(&infos[b]) && image_only(&infos[n])
                || image_only(&infos[b]) && link_only(&infos[n]))
            && (b + 1..n).all(|j| {
                infos[j].blank && infos[j].depth == infos[b].depth && infos[n].depth == infos[b].depth
                    || image_only(&infos[b]) && (infos[j].blank || comment_between(j))
            })
            && (infos[n].depth == infos[b].depth || (b + 1..n).any(comment_between))
        {
            b = n;
            k += 1;
        }
        while next_heading < a {
            if infos[next_heading].heading {
                heading_colour = colour_word(lines.get(next_heading))
                    .or_else(|| label_colour(labels, heading(lines.get(next_heading))?.1));
            }
            next_heading += 1;
        }
        // The next annotation begins where its block does when its text stands above its anchor
        // (`<mark>Highlight</mark>`, text, then `[page 2](…)`), after a blank line.
        // A list item starts where its marker is: the lines above it are the item before.
        let limit = anchors.get(k + 1).map_or(lines.len(), |&n| {
            if is_list_item(super::lines::unquote(lines.get(n), infos[n].depth)) {
                return n;
            }
            if links_end_quotes
                && bare_quoted_link(&infos[n])
                && let Some(&(top, _)) = quotes_above(&infos, &skip, n, b + 1).first()
            {
                return top;
            }
            let mut top = n;
            while top > b + 1
                && !skip[top - 1]
                && infos[top - 1].depth == infos[n].depth
                && joins_above(&infos[top - 1])
            {
                top -= 1;
            }
            if top < n && top > b + 1 && infos[top - 1].blank { top } else { n }
        });
        let limit = (b + 1..limit).find(|&j| infos[j].region_end).unwrap_or(limit);
        let colour = infos[a].title_colour.as_deref().or(heading_colour.as_deref());
        let (first, mut draft) = record(lines, &infos, &skip, a, b, claimed_until, limit, colour);
        // `###### text [Page 4](…)`: the heading level the template gives the colour.
        if draft.color.hex.is_none()
            && draft.color.name.is_none()
            && !heading_colours.is_empty()
            && let Some(hex) = (first..=a).find_map(|j| {
                let (level, _) = heading(lines.get(j)).filter(|_| infos[j].depth == 0)?;
                heading_colours.iter().find(|(l, _)| *l == level).map(|(_, h)| h.clone())
            })
        {
            draft.color.hex = Some(hex);
        }
        if let Some(&(_, j)) = above.iter().find(|(n, _)| *n == a)
            && draft.comment.is_empty()
        {
            let words = list_marker_off(infos[j].rest.trim()).trim_end_matches([':', '：']).trim_end();
            draft.comment.push(Cow::Owned(unwrap_emphasis(words).to_string()));
        }
        // A comment printed above its annotation comes first; what the record took after it is
        // the export's own lines (`%% end annotations %%`), if anything.
        if let Some(&(_, j)) = labelled.iter().find(|(n, _)| (a..=b).contains(n)) {
            let comment = unwrap_emphasis(strip_label(infos[j].rest.trim())).to_string();
            // Lines the record took that are only debris (a tag line, `%% end … %%`) are the
            // export's: the labelled comment is then the whole comment, tags and all.
            if draft.comment.iter().all(|c| super::text::strip_trailing_debris(c).is_empty()) {
                draft.comment.clear();
                draft.labelled_comment = true;
            }
            draft.comment.insert(0, Cow::Owned(comment));
        }
        claimed_until = draft_end(&infos, &skip, b, limit);
        // An annotation with nothing in it, under its own page heading (`## Page 9 ^id`, then
        // `[Zotero](…&annotation=KEY)`), is still one: ZotLit's first template prints it so.
        let keyed = draft.link.as_deref().and_then(annotation_key).is_some();
        let page_heading = (0..a).rev().find(|&j| !infos[j].blank).is_some_and(|j| {
            heading(lines.get(j)).is_some_and(|(_, title)| {
                let title = title.split(" ^").next().unwrap_or(title);
                label_page(title).is_some() && at_most_words(title, 2)
            })
        });
        // So is Zotero's placeholder of an image exported without it.
        let kept_empty = keyed && page_heading || infos[a].image_placeholder;
        if !draft.is_empty() || kept_empty {
            let copy = (a..=b).any(|i| infos[i].go_to || infos[i].cited_first);
            found.push(Found { at: lines.offset(first), draft, copy });
        }
        k += 1;
    }
    // A header that only links the annotation (`[Zotero](zotero://open-pdf/…)`) above the
    // lines that link it again with its text: one annotation.
    let same_link = |a: &Found, b: &Found| a.draft.link.is_some() && a.draft.link == b.draft.link;
    let mut k = 0;
    while k + 1 < found.len() {
        let bare = |d: &Draft| d.text.is_empty() && d.comment.is_empty();
        let (d, next) = (&found[k].draft, &found[k + 1].draft);
        if !same_link(&found[k], &found[k + 1]) {
            k += 1;
        } else if bare(d) && d.image.is_none() {
            found.remove(k);
        } else if !bare(d)
            && d.link.as_deref().and_then(annotation_key).is_some()
            && next.comment.is_empty()
            && next.image.is_none()
            && !next.text.is_empty()
        {
            // `text [p. 4](L)*first paragraph` and, after a blank line, `second paragraph* [p. 4](L)`:
            // a comment of several paragraphs, its last one printed with the link again; or
            // `text [p. 4](L)`, a blank line, `comment [p. 4](L)`: the comment's own paragraph.
            let rest = found.remove(k + 1).draft;
            let into = &mut found[k].draft;
            let target = &mut into.comment;
            if !target.is_empty() {
                target.push(Cow::Borrowed(""));
            }
            target.extend(rest.text);
            // The emphasis the template put around the whole comment (`*…*`, `_…_`).
            let whole = target.iter().map(|l| l.trim_end()).collect::<Vec<_>>().join("\n");
            let unwrapped = unwrap_emphasis(&whole);
            if unwrapped.len() < whole.trim().len() {
                *target = vec![Cow::Owned(unwrapped.to_string())];
            }
        } else if d.image.is_none() && next.image.is_some() && bare(next) {
            // An image annotation's comment printed above it, with the same link (BibNotes
            // Formatter's "comment above the image"): its words are the comment.
            let above = found.remove(k).draft;
            found[k].draft.comment = above.text.into_iter().chain(above.comment).collect();
        } else {
            k += 1;
        }
    }
    // `> ![[image-8-….png]]`, `> comment`, then `> [p. 8](…)`: in a note whose links end the
    // quotes above them, an image with no link and the link after it are one image annotation,
    // the words between them its comment.
    if links_end_quotes {
        let mut k = 0;
        while k + 1 < found.len() {
            let (d, next) = (&found[k].draft, &found[k + 1].draft);
            if d.image.is_some()
                && d.link.is_none()
                && d.text.is_empty()
                && d.comment.is_empty()
                && next.image.is_none()
                && next.link.is_some()
            {
                let next = found.remove(k + 1).draft;
                let image = &mut found[k].draft;
                image.link = next.link;
                image.page = image.page.take().or(next.page);
                image.comment = next.text.into_iter().chain(next.comment).collect();
            }
            k += 1;
        }
    }
    drop_copies(&mut found);
    found
}

/// `### Page 3` over quotes or callouts with no link (a template that groups the annotations by
/// page and prints no link): in a section with no anchor of its own, each quote under the
/// heading is an annotation on that page.
fn page_sections(lines: &Lines<'_>, infos: &mut [Info<'_>]) {
    let mut h = 0;
    while h < infos.len() {
        let page = infos[h]
            .heading
            .then(|| heading(lines.get(h)))
            .flatten()
            .filter(|(_, title)| at_most_words(title, 2))
            .and_then(|(_, title)| label_page(title));
        let Some(page) = page else {
            h += 1;
            continue;
        };
        let end = (h + 1..infos.len()).find(|&j| infos[j].heading).unwrap_or(infos.len());
        if !infos[h + 1..end].iter().any(Info::anchored) {
            for j in h + 1..end {
                let starts =
                    infos[j].depth > 0 && !infos[j].blank && (infos[j - 1].blank || infos[j - 1].depth == 0);
                if starts {
                    infos[j].page = Some(page.clone());
                }
            }
        }
        h = end;
    }
}

/// Lines that continue the paragraph above them without its marker: a template that prints
/// `> {{annotatedText}}` (or `- {{annotatedText}}`) marks only the first line of a text of
/// several lines, and Markdown reads the next lines on in the same quote or item. Such a line
/// takes the quote's depth. Not a line that starts a block of its own (a list item, a heading,
/// a divider, a fence, an HTML block, a table row, an embed), nor one after a callout's header.
fn lazy_continuations(lines: &Lines<'_>, infos: &mut [Info<'_>]) {
    for i in 1..infos.len() {
        let (above, this) = (&infos[i - 1], &infos[i]);
        if this.depth > 0 || this.blank || this.heading || above.blank || above.heading || above.callout {
            continue;
        }
        let prev = lines.get(i - 1).trim_start();
        let in_item = above.depth == 0 && (above.lazy || is_list_item(prev));
        if above.depth == 0 && !in_item {
            continue;
        }
        let t = lines.get(i).trim_start();
        let starts_block = is_list_item(t)
            || super::lines::is_thematic_break(t)
            || t.starts_with(['<', '|', '%'])
            || t.starts_with("```")
            || t.starts_with("~~~")
            || t.starts_with("![")
            || t.starts_with("[!");
        // A list item's own lines are indented under it; a line at the margin after a quote's
        // fenced or table line is not the quote's.
        let prev_inner = unquote(prev, above.depth).trim_start();
        let above_closed = prev_inner.starts_with("```") || prev_inner.starts_with('|');
        if starts_block || above_closed {
            continue;
        }
        let depth = above.depth;
        infos[i].lazy = true;
        infos[i].depth = depth;
    }
}

/// A heading at a level the templates print one colour's highlights as (`###### text`), with no
/// link (an older version of the template printed none), among the annotations: the line next
/// to it (blank lines and other such headings aside) holds an anchor. It is an annotation, its
/// marker the template's. Only the small levels (`####` to `######`): the larger ones are the
/// note's own sections as often as a colour's highlights.
fn colour_headings(lines: &Lines<'_>, infos: &mut [Info<'_>], heading_colours: &[(usize, String)]) {
    if heading_colours.is_empty() {
        return;
    }
    let candidate: Vec<bool> = (0..infos.len())
        .map(|i| {
            let info = &infos[i];
            info.heading
                && info.depth == 0
                && !info.anchored()
                && has_word(&info.rest)
                && heading(lines.get(i))
                    .is_some_and(|(level, _)| level >= 4 && heading_colours.iter().any(|(l, _)| *l == level))
        })
        .collect();
    if !candidate.contains(&true) {
        return;
    }
    // Whether the chain of candidate headings through `i` (blank lines between) reaches an
    // anchored line, forward or backward.
    let reaches_anchor = |i: usize, forward: bool| {
        let mut j = i;
        loop {
            j = match (forward, j) {
                (true, j) if j + 1 < infos.len() => j + 1,
                (false, j) if j > 0 => j - 1,
                _ => return false,
            };
            if infos[j].blank || candidate[j] {
                continue;
            }
            return infos[j].anchored();
        }
    };
    let accepted: Vec<usize> = (0..infos.len())
        .filter(|&i| candidate[i] && (reaches_anchor(i, true) || reaches_anchor(i, false)))
        .collect();
    for i in accepted {
        let info = &mut infos[i];
        info.colour_heading = true;
        let (marker, end) = (heading_marker_len(&info.rest), info.rest.len());
        narrow(&mut info.rest, marker, end);
    }
}

/// The colour codes of one widely shared Zotero Integration template and its descendants,
/// which print one character per colour before a highlight's list item (`- & text [(p. 5)](…)`).
/// The four public templates of the lineage seen so far (`calloutCharacter`, `codeChar`,
/// `colorToType` macros and tables) never give one character two colours.
const CODE_CHARACTERS: [(char, &str); 11] = [
    ('&', "yellow"),
    ('@', "blue"),
    ('$', "green"),
    ('+', "green"),
    ('!', "red"),
    ('£', "red"),
    ('?', "orange"),
    ('%', "gray"),
    ('~', "purple"),
    ('=', "purple"),
    ('€', "magenta"),
];

/// `- & text [(p. 5)](…)`: where two or more of a note's annotation list items start with a
/// colour code, the code is the template's: it is taken off and, when `colours`, gives the colour
/// when nothing else on the line does (a user's own template says what its codes mean).
fn code_characters(infos: &mut [Info<'_>], colours: bool) {
    let code = |info: &Info<'_>| {
        let item = info.rest.strip_prefix("- ")?;
        let c = item.chars().next()?;
        let colour = CODE_CHARACTERS.iter().find(|(k, _)| *k == c)?.1;
        let after = item[c.len_utf8()..].strip_prefix(' ')?;
        has_word(after).then_some((colour, after.len()))
    };
    if infos.iter().filter(|i| i.anchored() && code(i).is_some()).take(2).count() < 2 {
        return;
    }
    for info in infos.iter_mut().filter(|i| i.anchored()) {
        let Some((colour, len)) = code(info) else { continue };
        if colours && info.color.hex.is_none() && info.color.name.is_none() {
            info.color.name = Some(colour.to_string());
        }
        let after = &info.rest[info.rest.len() - len..];
        info.rest = Cow::Owned(format!("- {after}"));
    }
}

/// Zotero's note of an image annotation: the image (`![](attachments/KEY.png)`, or the
/// `\[image\]` placeholder of an export without images) alone on its line, and on the next its
/// citation (`([Author, 2021, p. 5](zotero://select/…))`) and the comment.
fn image_above_citation(image: &Info<'_>, next: &Info<'_>) -> bool {
    next.cited_first && (image.image_placeholder || image.image.is_some() && !has_word(&image.rest))
}

/// An annotation printed twice, once in the export's own list and once in a Zotero note the
/// template printed too (`{{note}}` of an "Add note from annotations" note): one annotation, the
/// list's record. Its key in the links tells them apart from annotations that are only alike.
fn drop_copies(found: &mut Vec<Found>) {
    let key = |f: &Found| f.draft.link.as_deref().and_then(annotation_key).map(str::to_string);
    if !found.iter().any(|f| f.copy) {
        return;
    }
    let listed: foldhash::HashSet<String> = found.iter().filter(|f| !f.copy).filter_map(key).collect();
    if listed.is_empty() {
        return;
    }
    found.retain(|f| !f.copy || key(f).is_none_or(|k| !listed.contains(&k)));
}

/// Whether `t` is one bold run (`**words**`).
fn all_bold(t: &str) -> bool {
    t.len() > 4 && t.starts_with("**") && t.ends_with("**")
}

/// BibNotes prints an image annotation's comment above the image, as a quoted bold paragraph of
/// its own (`>  **comment**`, a blank line, then `![](…image.png)[ ](zotero://…)`): each image
/// anchor with such a paragraph above it, and the paragraph's line.
fn image_comments_above(infos: &[Info<'_>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for n in 2..infos.len() {
        let (image, j) = (&infos[n], n - 2);
        if image.image.is_some()
            && image.link.is_some()
            && !has_word(&image.rest)
            && infos[n - 1].blank
            && infos[j].depth >= 1
            && !infos[j].anchored()
            && all_bold(infos[j].rest.trim())
            && (j == 0 || infos[j - 1].blank)
        {
            out.push((n, j));
        }
    }
    out
}

/// A template that prints a commented annotation as its comment, a bold list item ending with a
/// colon, with the annotation the one item nested under it (`- **comment**:` then
/// `\t- text [(p. 5)](…)`): each nested anchor with such an item above it, and the item's line.
fn item_comments_above(lines: &Lines<'_>, infos: &[Info<'_>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for j in 0..infos.len().saturating_sub(1) {
        let n = j + 1;
        let raw = lines.get(j);
        let item = raw.strip_prefix("- ").and_then(|t| t.trim_end().strip_suffix([':', '：']));
        let Some(bold) = item.filter(|t| all_bold(t)) else {
            continue;
        };
        let nested = |i: usize| i < infos.len() && infos[i].depth == 0 && is_nested_item(lines.get(i), 0);
        if infos[j].depth == 0
            && !infos[j].anchored()
            && has_word(bold)
            && nested(n)
            && infos[n].anchored()
            && !nested(n + 1)
        {
            out.push((n, j));
        }
    }
    out
}

/// Notes that print each annotation's comment above it, as a labelled paragraph of its own
/// (`> **笔记**: comment`, a blank line, then `> text [p. 2](zotero://…)`): each anchor with such a
/// paragraph right above it, and the paragraph's line. Only when the first anchor has one (no
/// annotation before it can own it) and no labelled paragraph follows the last anchor (where a
/// note that prints comments after their annotations has its last one).
fn labelled_comments_above(infos: &[Info<'_>], skip: &[bool]) -> Vec<(usize, usize)> {
    let paragraph = |j: usize| {
        let info = &infos[j];
        (j == 0 || infos[j - 1].blank)
            && infos.get(j + 1).is_some_and(|next| next.blank)
            && !skip[j]
            && !info.anchored()
            && !info.heading
            && is_labelled(&info.rest)
            && has_word(strip_label(&info.rest))
    };
    let anchors: Vec<usize> = (0..infos.len()).filter(|&i| !skip[i] && infos[i].anchored()).collect();
    let (Some(&first), Some(&last)) = (anchors.first(), anchors.last()) else { return Vec::new() };
    let mut out = Vec::new();
    for &n in &anchors {
        let mut j = n;
        while j > 0 && infos[j - 1].blank {
            j -= 1;
        }
        if j < n && j > 0 && paragraph(j - 1) {
            out.push((n, j - 1));
        }
    }
    let after_last = (last + 1..infos.len()).take_while(|&j| !infos[j].heading).any(paragraph);
    if out.first().is_none_or(|&(n, _)| n != first) || after_last {
        return Vec::new();
    }
    out
}

/// Whether a line is plain text that can continue an annotation's text from above.
fn joins_above(info: &Info<'_>) -> bool {
    !info.blank && !info.anchored() && !info.heading
}

/// Lines outside annotations: code blocks, metadata callouts, HTML, the frontmatter-like head.
fn skipped(lines: &Lines<'_>, infos: &[Info<'_>]) -> Vec<bool> {
    let mut skip = vec![false; infos.len()];
    let mut i = 0;
    while i < infos.len() {
        let t = lines.get(i).trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            let fence = &t[..3];
            let start = i;
            i += 1;
            while i < infos.len() && !lines.get(i).trim_start().starts_with(fence) {
                i += 1;
            }
            // A `zotero-annot` block holds the annotation (its fences read as blank lines).
            if t[3..].trim() != "zotero-annot" {
                skip[start..=i.min(infos.len() - 1)].fill(true);
            }
        } else if infos[i].callout && !infos[i].anchored() && !in_anchored_callout(infos, i) {
            // A callout with no anchor in it (abstract, info, cite) is not an annotation; one
            // nested in an annotation's callout holds its comment (`> > [!note]- Comment`).
            let depth = infos[i].depth;
            let end = (i + 1..infos.len())
                .find(|&j| infos[j].depth < depth || infos[j].callout || infos[j].blank)
                .unwrap_or(infos.len());
            if !(i..end).any(|j| infos[j].anchored()) {
                skip[i..end].fill(true);
            }
            i = end.max(i + 1);
            continue;
        }
        i += 1;
    }
    skip
}

/// Whether the callout header at `i` is nested in a callout whose lines above it hold an anchor.
fn in_anchored_callout(infos: &[Info<'_>], i: usize) -> bool {
    let depth = infos[i].depth;
    depth > 1
        && infos[..i]
            .iter()
            .rev()
            .take_while(|info| info.depth > 0)
            .take_while(|info| !(info.callout && info.depth < depth && !info.anchored()))
            .any(|info| info.depth < depth && info.anchored())
}

/// Where the lines that can belong to the record anchored at `b` end.
fn draft_end(infos: &[Info<'_>], skip: &[bool], b: usize, limit: usize) -> usize {
    (b + 1..limit).find(|&j| infos[j].heading || skip[j]).unwrap_or(limit)
}

#[allow(clippy::too_many_arguments)]
fn record(
    lines: &Lines<'_>,
    infos: &[Info<'_>],
    skip: &[bool],
    a: usize,
    b: usize,
    claimed_until: usize,
    limit: usize,
    heading_colour: Option<&str>,
) -> (usize, Draft<'static>) {
    let mut d = Draft::default();
    for info in &infos[a..=b] {
        d.link = d.link.take().or_else(|| info.link.clone());
        d.page = d.page.take().or_else(|| info.page.clone());
        d.image = d.image.take().or_else(|| info.image.clone());
        if d.color.hex.is_none() && d.color.name.is_none() {
            d.color = info.color.clone();
        }
        d.label = d.label.take().or_else(|| info.label.clone());
    }
    let end = draft_end(infos, skip, b, limit);
    let depth = infos[a].depth;
    // `> [!note] Key Passage (Page 3)` over the callout's text: a title of a few words is the
    // template's label, and the text is below it.
    let titled = infos[a].callout
        && a == b
        && (at_most_words(&infos[a].rest, 3) || infos[a].title_colour.is_some())
        && infos.get(a + 1).is_some_and(|n| {
            n.depth >= infos[a].depth
                && !n.callout
                && !n.anchored()
                && has_word(&n.rest)
                && !is_labelled(&n.rest)
        });
    let inline = !titled && (a..=b).any(|i| has_word(&infos[i].rest));
    let mut first = a;
    let mut text: Vec<Cow<'_, str>> = Vec::new();
    let mut comment: Vec<Cow<'_, str>> = Vec::new();
    let mut after = b + 1;
    // Whether line `j` is plain text that can continue an annotation's text from above.
    let joins = |j: usize| joins_above(&infos[j]) && !skip[j];
    if inline {
        // Text on the anchor's line; lines of the same block above it (not claimed by the
        // annotation before) continue it.
        // A line that continues a list item's paragraph (`- text,` then `more [p. 3](…)`) goes
        // up to the item's marker.
        let mut up = a;
        while up > claimed_until
            && joins(up - 1)
            && infos[up - 1].depth == depth
            && (depth > 0 || infos[up].lazy)
            && !infos[up - 1].callout
            && (infos[up].lazy || !is_labelled(&infos[up - 1].rest))
        {
            up -= 1;
        }
        first = up;
        take_label_line(&mut d, &infos[up..a]);
        // `> [!quote]|#5fb236` over the block: the callout's colour is the annotation's.
        if d.color.hex.is_none()
            && d.color.name.is_none()
            && let Some(header) = up.checked_sub(1).and_then(|h| infos.get(h))
            && header.callout
            && header.depth == depth
            && !has_word(&header.rest)
        {
            d.color = header.color.clone();
        }
        if let Some(m) = (up..a).find(|&j| infos[j].marked) {
            // `<span class="highlight" style="…">text</span>` heads the block: the lines after
            // it, the anchor's included, are the comment.
            text.extend(infos[up..=m].iter().map(|i| i.rest.clone()));
            comment.extend(infos[m + 1..=a].iter().map(|i| i.rest.clone()));
        } else if b > a && image_above_citation(&infos[a], &infos[b]) {
            // `\[image\] ([pdf](…))` or `![](KEY.png)`, then `([Author, 2021, p. 5](zotero://select/…))
            // words`: an image annotation, the words its comment.
            comment.push(infos[b].rest.clone());
        } else if up == a && infos[a].cited_first && d.image.is_none() {
            // `([Author, 2021, p. 5](zotero://select/…)) words`: a note, the words its comment.
            comment.push(infos[a].rest.clone());
            d.label.get_or_insert_with(|| "note".to_string());
        } else {
            // The item's marker above lazy lines is the template's, as on the anchor's line.
            text.extend(infos[up..a].iter().enumerate().map(|(n, i)| match n {
                0 if infos[up + 1].lazy && depth == 0 => Cow::Owned(list_marker_off(&i.rest).to_string()),
                _ => i.rest.clone(),
            }));
            // `- text [(p. 5)](…)`: the list marker is the template's, not the text's.
            let mut rest = list_marker_off(&infos[a].rest);
            // `1. “text” [Page 1](…)`: the note's numbered list, when the line starts with it.
            if ordered_marker_off(super::lines::unquote(lines.get(a), depth)).is_some() {
                rest = ordered_marker_off(rest).unwrap_or(rest);
            }
            let go_to = infos[a].go_to;
            if go_to {
                // `Label: [Go to annotation](…) “text”`: the user's words before the quote.
                rest = rest
                    .find(['“', '"'])
                    .filter(|&q| rest[..q].trim_end().ends_with([':', '：']))
                    .map_or(rest, |q| &rest[q..]);
            }
            // `text (p. 2)<br>💬 comment`: a labelled line after a break starts the comment.
            let (rest, labelled) = match rest.find('\n').filter(|&n| is_labelled(&rest[n + 1..])) {
                Some(n) => (&rest[..n], Some(strip_label(&rest[n + 1..]))),
                None => (rest, None),
            };
            let rest = task_box_off(rest);
            // `<mark …>text</mark> [(p. 1)](…)  comment`: the mark holds the text.
            let marked = infos[a].lead_mark.as_deref().and_then(|m| {
                let after = rest.strip_prefix(m)?.trim();
                // `<mark>text</mark> [Page 3](…)\t - comment`: a list marker before the comment.
                let after = after.strip_prefix("- ").unwrap_or(after).trim();
                Some((m, (!after.is_empty()).then(|| strip_label(after))))
            });
            // `<mark …>*“comment**</mark>`: a sticky note in a mark.
            let marked = marked.map(|(m, c)| match bibnotes_note(m) {
                Some(note) if c.is_none() => ("", Some(note)),
                _ => (m, c),
            });
            // `text [Page 7](L)comment [Page 7](L)`: the link printed again after the comment.
            let linked = infos[a].link_comment.as_deref().and_then(|c| {
                let t = rest.trim_end().strip_suffix(c)?;
                Some((t.trim_end(), Some(c)))
            });
            let (t, c) = marked
                .or(linked)
                .or_else(|| bibnotes_split(rest))
                .or_else(|| quoted_comment_after(rest))
                .unwrap_or_else(|| split_inline(rest));
            // `ABC “text” ([Author, p. 2](zotero://select/…))`: Zotero quotes the passage; the
            // words before the quote are the writing it was pasted into.
            let t = match t.find('“') {
                Some(q)
                    if infos[a].cited && q > 0 && t.trim_end().ends_with('”') && !t[..q].contains('”') =>
                {
                    &t[q..]
                }
                _ => t,
            };
            text.push(Cow::Borrowed(t));
            // `"text" ([Key](zotero://select/…)) comment`: the citation is the quote's.
            let c = c.map(item_citation_off).filter(|c| !c.is_empty());
            // `“text”，as the user's sentence goes on`: not a comment. Nor after Zotero's
            // citation pasted into the user's prose (`“text” ([A, 2025, p. 5](…)) ([pdf](…))：words`):
            // Zotero prints a comment after a space, and it does not start with a clause's
            // punctuation.
            let clause = |ch: char| ",.;:，。；：、".contains(ch);
            comment.extend(
                c.filter(|c| {
                    !(go_to && c.starts_with(|ch: char| ch.is_ascii_punctuation() || clause(ch))
                        || infos[a].cited && c.starts_with(clause))
                })
                .map(Cow::Borrowed),
            );
            comment.extend(labelled.map(Cow::Borrowed));
        }
    } else {
        let block_start = infos[a].blank || a == 0 || infos[a - 1].blank || infos[a].callout;
        let above = !block_start && a > claimed_until && joins(a - 1) && infos[a - 1].depth == depth;
        if above && !infos[a].callout {
            // The anchor line ends a paragraph of text (`text` then `Yellow Highlight [Page 3](…)`).
            let mut up = a;
            while up > claimed_until && joins(up - 1) {
                up -= 1;
            }
            first = up;
            take_label_line(&mut d, &infos[up..a]);
            match (up..a).find(|&j| infos[j].marked) {
                Some(m) => {
                    // The anchor's line ends the comment with what is left on it (`🔤🔤 ([p2](…))`).
                    text.extend((up..=m).map(|i| infos[i].rest.clone()));
                    comment.extend((m + 1..=a).map(|i| infos[i].rest.clone()));
                }
                None => text.extend((up..a).map(|i| infos[i].rest.clone())),
            }
            // `text"` over `Blue Highlight [Page 1](…)`: a closing quote the template printed
            // with no opening one is not the text's.
            let quotes: usize = text.iter().map(|t| t.matches('"').count()).sum();
            if quotes == 1
                && let Some(last) = text.last_mut()
                && let Some(head) = last.trim_end().strip_suffix('"')
            {
                *last = Cow::Owned(head.to_string());
            }
        } else {
            // The anchor heads its lines: text up to a blank line, a divider or a label.
            let mut i = b + 1;
            // The depth of the text's first line: a text quoted inside the callout (`> > text`)
            // ends where the quote does, and what follows in the callout is the comment.
            let mut text_depth: Option<usize> = None;
            while i < end && infos[i].depth >= depth.min(1) && (depth > 0 || !infos[i].blank) {
                let rest = infos[i].rest.trim();
                if depth > 0 && infos[i].depth == 0 {
                    break;
                }
                if !infos[i].blank && !rest.is_empty() {
                    match text_depth {
                        Some(t) if t > depth && infos[i].depth < t => break,
                        None => text_depth = Some(infos[i].depth),
                        _ => {}
                    }
                }
                let nested_callout = infos[i].callout && infos[i].depth > depth;
                // `> *comment*` under the text's lines: the template's emphasis marks the comment.
                let emphasised =
                    !text.is_empty() && emphasis_opens(rest, infos[i..end].iter().map(|i| i.rest.trim()));
                if emphasised
                    || rest == "---"
                    || is_labelled(rest)
                    || is_labelled(list_marker_off(rest))
                    || is_nested_item(lines.get(i), depth)
                    || nested_callout
                {
                    break;
                }
                if !rest.is_empty() || !text.is_empty() {
                    text.push(infos[i].rest.clone());
                }
                i += 1;
            }
            // `[Annotation KEY · page 2](zotero://…)`, a blank line, then `> text`: a link on a
            // line of its own heads the block quote below it, which is the text.
            if text.is_empty() && depth == 0 && d.image.is_none() {
                let mut j = i;
                while j < end && infos[j].blank && infos[j].depth == 0 && j < i + 2 {
                    j += 1;
                }
                if j < end && infos[j].depth > 0 && !infos[j].callout && !infos[j].anchored() {
                    let mut k = j;
                    while k < end
                        && infos[k].depth > 0
                        && !infos[k].callout
                        && !infos[k].anchored()
                        && !skip[k]
                    {
                        text.push(infos[k].rest.clone());
                        k += 1;
                    }
                    i = k;
                }
            }
            after = i;
            // `> text`, `> comment`, then `> [p. 3](…)`: each a quote of its own, blank lines
            // between them. The link ends the quotes above it, up to what the annotation before
            // claimed or to the empty callout over them: the first is the text, the rest the
            // comment.
            if text.is_empty() && a == b && bare_quoted_link(&infos[a]) {
                let blocks = quotes_above(infos, skip, a, claimed_until);
                if let Some((top, _)) = blocks.first() {
                    first = *top;
                    for (n, &(from, to)) in blocks.iter().enumerate() {
                        let lines = infos[from..to].iter().map(|i| i.rest.clone());
                        if n == 0 {
                            text.extend(lines);
                        } else {
                            if !comment.is_empty() {
                                comment.push(Cow::Borrowed(""));
                            }
                            comment.extend(lines);
                        }
                    }
                }
            }
        }
    }
    // A colour on the text's own lines (`<span style="background:…">text</span>` under a header).
    if d.color.hex.is_none()
        && d.color.name.is_none()
        && let Some(c) = infos[first..after.max(b + 1)]
            .iter()
            .map(|i| &i.color)
            .find(|c| c.hex.is_some() || c.name.is_some())
    {
        d.color = c.clone();
    }
    // `>[!quote|#ffd400]` over `>🟡 Highlight`, then blank lines, then the quote that holds the
    // text and its link: the callout, only a label, heads the quote below it.
    if d.color.hex.is_none()
        && d.color.name.is_none()
        && depth > 0
        && let Some(header) = label_callout_above(infos, skip, first, claimed_until)
    {
        d.color = infos[header].color.clone();
        if d.label.is_none() {
            d.label = infos[header + 1..first].iter().find_map(|i| i.label.clone());
        }
    }
    if d.color.hex.is_none() && d.color.name.is_none() {
        set_colour(&mut d.color, heading_colour.unwrap_or(""));
    }
    // The comment: the rest of the anchor's block, then the paragraphs after it (only its own
    // paragraph after a Zotero note's quote: the paragraphs there are the note's own).
    let own_paragraph = inline && infos[a].go_to;
    // A list item's comment ends at the next item of its list (the user's own item there).
    let indent = |j: usize| {
        let line = quote_off(lines.get(j), depth);
        is_list_item(line).then(|| line.len() - line.trim_start().len())
    };
    let item_indent = indent(a);
    let mut i = after;
    while i < end {
        let info = &infos[i];
        let rest = info.rest.trim();
        if own_paragraph && info.blank || item_indent.is_some_and(|n| indent(i).is_some_and(|m| m <= n)) {
            break;
        }
        // An Obsidian comment opened on a line of its own (another plugin's data below the
        // export): hidden text, no part of a comment.
        if rest.starts_with("%%") && !rest[2..].contains("%%") {
            break;
        }
        if rest == "---" || rest.is_empty() {
            // A blank line between the comment's paragraphs stays a paragraph break.
            if comment.last().is_some_and(|c| !c.is_empty()) {
                comment.push(Cow::Borrowed(""));
            }
            i += 1;
            continue;
        }
        if info.callout && info.depth > depth && at_most_words(rest, 3) {
            // A callout nested in the annotation's: its title is the template's label.
            i += 1;
            continue;
        }
        if info.callout {
            break;
        }
        // `tags: #method, ideas`: the annotation's Zotero tags, printed after its comment.
        if tags_field(rest) || super::text::is_import_stamp(rest) {
            i += 1;
            continue;
        }
        // `- **Color**: #5fb236 (Green)`, `- **Date**: …`: the annotation's own fields.
        if let Some((name, value)) = annotation_field(list_marker_off(rest)) {
            if matches!(name, "color" | "colour") && d.color.hex.is_none() && d.color.name.is_none() {
                set_colour(&mut d.color, value.split_whitespace().next().unwrap_or(""));
            }
            i += 1;
            continue;
        }
        // `Methods Details:`, a paragraph of its own over the next annotations: the label of
        // their section, not this one's comment.
        if rest.ends_with([':', '：'])
            && at_most_words(rest, 5)
            && i > 0
            && infos[i - 1].blank
            && (i + 1..infos.len()).find(|&j| !infos[j].blank).is_none_or(|j| j >= end || infos[j].anchored())
        {
            break;
        }
        // `- **My Note:** …`: a labelled item under the annotation is its comment too.
        let item = is_nested_item(lines.get(i), depth) || is_labelled(list_marker_off(rest));
        let line = if item { list_marker_off(rest) } else { rest };
        // `- #method, #figure`: the annotation's Zotero tags as an item of their own.
        if line.contains('#') && super::text::is_tag_line(line) {
            i += 1;
            continue;
        }
        let line = strip_label(line);
        comment.push(Cow::Borrowed(unwrap_emphasis(line.trim())));
        i += 1;
    }
    while text.last().is_some_and(|t| t.trim().is_empty()) {
        text.pop();
    }
    let text = clean_text(&text.join("\n"));
    if !text.is_empty() {
        d.text.push(Cow::Owned(text));
    }
    // An emphasis the template wraps the whole comment in, over its paragraphs (`*one` … `two*`).
    let comment = unescape_markdown(unwrap_emphasis(&comment.join("\n")));
    if !comment.is_empty() {
        d.comment.push(Cow::Owned(comment));
    }
    (first, d)
}

/// Whether `line` opens a single emphasis (`*…`, `_…`, not `**`) that closes at the end of it or
/// of one of the `next` lines (the line itself first among them).
fn emphasis_opens<'a>(line: &str, mut next: impl Iterator<Item = &'a str>) -> bool {
    let Some(m) = line.chars().next().filter(|c| matches!(c, '*' | '_')) else {
        return false;
    };
    let double = line[1..].starts_with(m);
    !double && line.len() > 1 && next.any(|l| l.len() > 1 && l.ends_with(m) && !l[..l.len() - 1].ends_with(m))
}

/// `**Color**: #5fb236 (Green)`, `Date: 2024-10-25`, `Type:: highlight`: a field of the
/// annotation a template prints under it (its name, lowercased, and its value).
fn annotation_field(line: &str) -> Option<(&'static str, &str)> {
    let t = line.trim_start_matches(['*', '_']);
    ["color", "colour", "date", "type", "page", "created", "modified"].into_iter().find_map(|name| {
        let r = strip_prefix_ci(t, name)?.trim_start_matches(['*', '_']);
        let r = r.strip_prefix("::").or_else(|| r.strip_prefix(':'))?;
        let r = r.trim_start_matches(['*', '_']).trim();
        // A colour field holds a colour; the others a short value, not a sentence.
        let fits = match name {
            "color" | "colour" => {
                let first = r.split_whitespace().next().unwrap_or("");
                first.starts_with('#') || is_colour_word(&first.to_lowercase())
            }
            _ => !r.is_empty() && at_most_words(r, 4),
        };
        fits.then_some((name, r))
    })
}

/// `tags: #method`, `**Categories:** …`, `Keywords:: …`: a field of the annotation's tags (or the
/// template's placeholder for them), printed after its comment.
fn tags_field(line: &str) -> bool {
    let t = line.trim_start_matches(['*', '_', ' ']);
    ["tags", "categories", "keywords"].iter().any(|name| {
        strip_prefix_ci(t, name).is_some_and(|r| r.trim_start_matches(['*', '_']).starts_with(':'))
    })
}

/// The header of the coloured callout above line `first` (blank lines between) that holds no
/// anchor and no more than a label (`>[!quote|#ffd400]`, `>🟡 Highlight`).
fn label_callout_above(
    infos: &[Info<'_>],
    skip: &[bool],
    first: usize,
    claimed_until: usize,
) -> Option<usize> {
    let mut j = first;
    while j > claimed_until && infos[j - 1].blank {
        j -= 1;
    }
    if j == first {
        return None;
    }
    let end = j;
    while j > claimed_until && !infos[j - 1].blank && infos[j - 1].depth > 0 {
        j -= 1;
        if infos[j].callout {
            let coloured = infos[j].color.hex.is_some() || infos[j].color.name.is_some();
            let labels_only = (j..end).all(|i| !infos[i].anchored() && at_most_words(&infos[i].rest, 2));
            return (coloured && labels_only && skip[j]).then_some(j);
        }
    }
    None
}

/// A quoted anchor with no word and no image (`> [p. 3](zotero://…)`).
fn bare_quoted_link(info: &Info<'_>) -> bool {
    info.depth > 0 && info.image.is_none() && !info.callout && !has_word(&info.rest)
}

/// The quotes above the wordless anchor at `a` (blank lines between them and it), each as the
/// range of its lines, top first: none when a line of words outside a quote, a heading, a
/// callout, another anchor or a skipped line comes first.
fn quotes_above(infos: &[Info<'_>], skip: &[bool], a: usize, claimed_until: usize) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut j = a;
    let mut end: Option<usize> = None;
    while j > claimed_until {
        let k = j - 1;
        let info = &infos[k];
        if info.blank {
            if let Some(e) = end.take() {
                blocks.push((j, e));
            }
        } else if skip[k] || info.heading || info.callout || info.anchored() || info.depth == 0 {
            if end.is_some() {
                return Vec::new();
            }
            break;
        } else if end.is_none() {
            end = Some(j);
        }
        j -= 1;
    }
    // A quote that runs on up to what the annotation before claimed, with no blank line
    // between, is that annotation's.
    if let Some(e) = end
        && (j == 0 || infos[j - 1].blank || infos[j - 1].heading || infos[j - 1].callout || skip[j - 1])
    {
        blocks.push((j, e));
    }
    blocks.reverse();
    blocks
}

/// A line of the block above the anchor that is only the template's type label (`<span
/// class="note" style="…">note</span>` over a sticky note's lines) gives the draft its type.
fn take_label_line(d: &mut Draft<'static>, block: &[Info<'_>]) {
    if d.label.is_none()
        && let Some(label) =
            block.iter().find(|i| i.label.is_some() && !has_word(&i.rest)).and_then(|i| i.label.clone())
    {
        d.label = Some(label);
    }
}

/// The words of the `<mark …>` or `<span …>` that opens `line` (after a list marker or task
/// box), when it closes before the line ends and holds no other tag.
fn lead_mark(line: &str) -> Option<String> {
    memchr::memchr(b'<', line.as_bytes())?;
    let t = task_box_off(list_marker_off(line));
    let (open, close) = if t.starts_with("<mark") { ("<mark", "</mark>") } else { ("<span", "</span>") };
    let inner = &t.strip_prefix(open)?[t[open.len()..].find('>')? + 1..];
    let end = inner.find(close)?;
    let words = inner[..end].trim();
    (has_word(words) && !words.contains('<') && !inner[end + close.len()..].trim().is_empty())
        .then(|| words.to_string())
}

/// A task line's box (`[ ] `, `[x] `) removed.
fn task_box_off(line: &str) -> &str {
    ["[ ] ", "[x] ", "[X] "].iter().find_map(|b| line.strip_prefix(b)).unwrap_or(line).trim_start()
}

/// BibNotes Formatter's line: `*“«text»”*`, or with a comment `*“comment** *“«text»”*` (the
/// comment printed first), either wrapped in `==…==` for a red highlight.
fn bibnotes_split(rest: &str) -> Option<(&str, Option<&str>)> {
    let t = rest.trim();
    let t = t.strip_prefix("==").unwrap_or(t);
    let t = t.strip_suffix("==").unwrap_or(t).trim();
    // A section title highlighted in the PDF: `# «Title»`.
    if let Some(title) = t.strip_prefix("# «").and_then(|x| x.strip_suffix('»')) {
        return Some((title, None));
    }
    if let Some(comment) = bibnotes_note(t) {
        return Some(("", Some(comment)));
    }
    let body = t.strip_prefix("*“")?.strip_suffix("»”*")?;
    if let Some(text) = body.strip_prefix('«') {
        return Some((text, None));
    }
    let (comment, text) = body.split_once("** *“«")?;
    let comment = comment.trim();
    Some((text, (!comment.is_empty()).then_some(comment)))
}

/// A sticky note as BibNotes prints it: its comment alone, in the comment-first form with nothing
/// after it (`*“Read more**`).
fn bibnotes_note(t: &str) -> Option<&str> {
    let comment = t.trim().strip_prefix("*“")?.strip_suffix("**")?;
    (!comment.contains(['“', '”', '*'])).then_some(comment.trim())
}

/// `*“text”* >  **comment**`: a comment BibNotes prints as a quote on the highlight's line, after
/// its link.
fn quoted_comment_after(rest: &str) -> Option<(&str, Option<&str>)> {
    let at = find_short(rest, " >")?;
    let (text, comment) = (&rest[..at], &rest[at + 2..]);
    let text = text.trim();
    let comment = comment.trim();
    if !(text.ends_with("”*") || text.ends_with("”_")) || !comment.starts_with("**") {
        return None;
    }
    let comment = super::text::strip_bold(comment);
    Some((text, (!comment.is_empty()).then_some(comment)))
}

/// `“text” comment` on one line: the quoted part is the text, what follows the comment.
fn split_inline(rest: &str) -> (&str, Option<&str>) {
    let t = rest.trim();
    for (open, close) in [('“', '”'), ('"', '"'), ('"', '”'), ('«', '»'), ('„', '“')] {
        if let Some(body) = t.strip_prefix(open)
            && let Some(end) = body.rfind(close)
        {
            let after = body[end + close.len_utf8()..].trim();
            let after = strip_label(after.trim_start_matches(['-', '–', '—', ':', '|', ' ']));
            return (&body[..end], (!after.is_empty()).then_some(after));
        }
    }
    (t, None)
}

fn clean_text(text: &str) -> String {
    let t = text.trim();
    let unquoted = super::text::strip_quotes(t);
    // `text” Yellow Highlight [Page 1](…)`: a closing quote the template printed after the text,
    // with no other quote mark anywhere in it (a text in quotes may end with one of its own).
    let t = match t.strip_suffix('”') {
        Some(head) if unquoted.len() == t.len() && !head.contains(['“', '”', '"']) => head.trim_end(),
        _ => unquoted,
    };
    let t = unwrap_emphasis(t);
    let t = t.strip_prefix("==").and_then(|r| r.strip_suffix("==")).unwrap_or(t);
    unescape_markdown(super::text::strip_quotes(t))
}

/// `s` with Markdown's backslash escapes undone (`\[17\]` → `[17]`, `\*` → `*`), as Zotero's
/// own export escapes the passage's brackets and asterisks. Text with TeX (`$…$`, `\frac`) keeps
/// its backslashes.
fn unescape_markdown(s: &str) -> String {
    // `\mathbb{E}`, `\frac`: TeX written as is, where a backslash is no escape.
    if memchr::memchr(b'\\', s.as_bytes()).is_none() {
        return s.to_string();
    }
    let tex = s.as_bytes().windows(2).any(|w| w[0] == b'\\' && w[1].is_ascii_alphabetic());
    if s.contains('$') || tex {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| "\\`*_{}[]()#+-.!|<>~".contains(*n)) {
            continue;
        }
        out.push(c);
    }
    out
}

fn unwrap_emphasis(t: &str) -> &str {
    let t = t.trim();
    for m in ["**", "__", "*", "_"] {
        if let Some(inner) = t.strip_prefix(m).and_then(|r| r.strip_suffix(m))
            && !inner.is_empty()
            && (!inner.contains(m) || m.len() == 1 && nested_emphasis(inner, m))
        {
            return inner.trim();
        }
    }
    t
}

/// Whether the `m` signs inside an emphasis are pairs of their own (`*a *b* c*`): the first opens
/// (after a space, before a word), and they are even. `*a* and *b*` is two emphases, not one.
fn nested_emphasis(inner: &str, m: &str) -> bool {
    let Some(first) = inner.find(m) else { return true };
    let opens = inner[..first].ends_with(char::is_whitespace)
        && inner[first + m.len()..].starts_with(|c: char| !c.is_whitespace());
    opens && inner.matches(m).count().is_multiple_of(2)
}

/// A list item's text without its marker (`- `, `* `, `+ `): `- **bold**` keeps its emphasis.
fn list_marker_off(line: &str) -> &str {
    let t = line.trim_start();
    ["- ", "* ", "+ "].iter().find_map(|m| t.strip_prefix(m)).unwrap_or(t).trim_start()
}

/// Whether `line` starts a list item (`- `, `* `, `+ `, `1. `).
fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m)) || ordered_marker_off(t).is_some()
}

/// `s` without the citation of the item it starts with (`([Key](zotero://select/…))`).
fn item_citation_off(s: &str) -> &str {
    let t = s.trim_start();
    if !t.starts_with("([") || find_short(t, "](zotero://select/").is_none_or(|m| t[..m].contains(']')) {
        return s;
    }
    matching_paren(t).map_or(s, |end| t[end + 1..].trim_start())
}

/// `line` without the marker of an ordered list item (`1. `, `2) `) it starts with.
fn ordered_marker_off(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    // `2.` alone: the item held only what was taken out of it (an image embed).
    let after = &t[digits..];
    let r = match after.trim_end() {
        "." | ")" => "",
        _ => after.strip_prefix(". ").or_else(|| after.strip_prefix(") "))?,
    };
    (1..=3).contains(&digits).then(|| r.trim_start())
}

/// Comment labels templates print: `**Note:**`, `Comment:`, `→`, `💬`, `_Note:_`, `Memo:`.
fn label_len(rest: &str) -> Option<usize> {
    let t = rest.trim_start();
    let lead = rest.len() - t.len();
    // Each label starts with a sign (not ASCII), `*` or `_`, or one of the words' first letters.
    match t.as_bytes().first()?.to_ascii_lowercase() {
        b'*' | b'_' | b'c' | b'n' | b'm' | b'a' | b'k' => {}
        b if b.is_ascii() => return None,
        _ => {}
    }
    for arrow in ["→", "💬", "💭", "✏️", "✍️", "🗨️", "🖊️", "📝"] {
        if let Some(r) = t.strip_prefix(arrow) {
            // `📝 **Comentario**:`: a sign and a label.
            let sign = lead + t.len() - r.len();
            return Some(sign + label_len(r).filter(|&n| bold_label_len(r) == Some(n)).unwrap_or(0));
        }
    }
    // `> – comment`: an en dash and a space before the comment's line.
    if let Some(r) = t.strip_prefix("– ")
        && has_word(r)
    {
        return Some(lead + t.len() - r.len());
    }
    if let Some(n) = bold_label_len(t) {
        return Some(lead + n);
    }
    for word in
        ["comment:", "comments:", "note:", "notes:", "memo:", "annotation:", "kommentar:", "commentaire:"]
    {
        if strip_prefix_ci(t, word).is_some() {
            return Some(lead + word.len());
        }
    }
    None
}

/// A short bold or italic label ending in a colon (`**Note:**`, `**我的评价**：`, `_Memo:_`).
fn bold_label_len(rest: &str) -> Option<usize> {
    let t = rest.trim_start();
    let lead = rest.len() - t.len();
    if !t.starts_with(['*', '_']) {
        return None;
    }
    for (open, close) in [
        ("**", ":**"),
        ("**", "**:"),
        ("**", "：**"),
        ("**", "**："),
        ("_", ":_"),
        ("*", ":*"),
        ("__", ":__"),
    ] {
        if let Some(r) = t.strip_prefix(open)
            && let Some(end) = find_short(r, close)
            && r[..end].chars().count() <= 24
            && !r[..end].contains(['*', '_'])
        {
            return Some(lead + open.len() + end + close.len());
        }
    }
    None
}

fn is_labelled(rest: &str) -> bool {
    label_len(rest).is_some()
}

fn strip_label(rest: &str) -> &str {
    label_len(rest).map_or(rest, |n| rest[n..].trim_start())
}

/// `line` without its `depth` quote markers, its indentation kept (outside a quote too, where
/// [`super::lines::unquote`] trims it).
fn quote_off(line: &str, depth: usize) -> &str {
    if depth == 0 { line } else { super::lines::unquote(line, depth) }
}

/// `> - comment` under a quoted annotation, or `\t- comment` under a list item.
fn is_nested_item(line: &str, depth: usize) -> bool {
    let inner = quote_off(line, depth);
    let indented = inner.starts_with(['\t', ' ']);
    let t = inner.trim_start();
    (t.starts_with("- ") || t.starts_with("* ")) && (depth > 0 || indented)
}

/// Whether `s` holds a word (not only signs and punctuation).
fn has_word(s: &str) -> bool {
    s.split_whitespace().any(|w| w.chars().any(char::is_alphanumeric))
}

/// Whether `s` holds no more than `n` words (it stops counting at the one after).
fn at_most_words(s: &str, n: usize) -> bool {
    s.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).nth(n).is_none()
}

/// A Zotero colour name in a heading (`# Yellow`, `### Red ⭐`).
fn colour_word(line: &str) -> Option<String> {
    let (_, title) = heading(line)?;
    let lower = title.to_lowercase();
    let cjk = [
        ("黄", "yellow"),
        ("红", "red"),
        ("绿", "green"),
        ("蓝", "blue"),
        ("紫", "purple"),
        ("橙", "orange"),
        ("灰", "gray"),
    ];
    for (sign, name) in cjk {
        if lower.starts_with(sign) {
            return Some(name.to_string());
        }
    }
    let first = lower.split(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty())?;
    is_colour_word(first).then(|| first.to_string())
}

/// Reads one line.
fn info(raw: &str) -> Info<'_> {
    let mut depth = 0;
    let mut inner = raw.trim_start();
    while let Some(r) = inner.strip_prefix('>') {
        depth += 1;
        inner = r.trim_start_matches(' ');
    }
    let inner = inner.trim();
    // `&gt; "text"`: a quote marker a conversion escaped, no part of the line.
    let inner = if depth == 0 { inner.strip_prefix("&gt; ").unwrap_or(inner) } else { inner };
    // `<!-- ZF_ANNO_BEG_KEY -->`: an HTML comment alone on its line is hidden, as a blank line is.
    // So is an Obsidian comment (`%% end annotations %%`), and a line that is only a plugin's
    // inline field or query (Meta Bind's `` `BUTTON[update]` ``, Dataview's `` `= this.year` ``).
    let hidden = inner.starts_with("<!--") && inner.ends_with("-->") && !inner[4..].contains("<!--")
        || inner.len() >= 4
            && inner.starts_with("%%")
            && inner.ends_with("%%")
            && !inner[2..inner.len() - 2].contains("%%")
        || plugin_code(inner);
    let mut info = Info { depth, blank: inner.is_empty() || hidden, ..Info::default() };
    info.region_end = hidden && inner.starts_with("%% end ");
    if info.blank {
        return info;
    }
    info.heading = depth == 0 && heading(inner).is_some();
    // Most lines are plain text: no link, tag, embed or printed page to take out.
    let bytes = inner.as_bytes();
    if memchr::memchr3(b'[', b'<', b'!', bytes).is_none()
        && memchr::memchr3(b'^', b'*', b'%', bytes).is_none()
        && find_short(inner, "(p").is_none()
        && !bytes.ends_with(b")")
    {
        info.rest = Cow::Borrowed(inner);
        return info;
    }
    let mut rest = Cow::Borrowed(inner);
    info.cited_first = inner.starts_with("([")
        && find_short(inner, "](zotero://select/").is_some_and(|m| !inner[..m].contains(']'));
    if let Some(header) = inner.strip_prefix("[!") {
        info.callout = true;
        let close = header.find(']').unwrap_or(header.len());
        let meta = &header[..close];
        let mut after = header.get(close + 1..).unwrap_or("").trim_start_matches(['+', '-']);
        if let Some((_, colour)) = meta.split_once('|') {
            set_colour(&mut info.color, colour.trim());
        } else if let Some(c) = after.strip_prefix('|') {
            let word = c.split_whitespace().next().unwrap_or("");
            set_colour(&mut info.color, word);
            after = &c[word.len()..];
        } else if zotero_hex_of_name(meta).is_some() {
            // `> [!yellow]`, `> [!amarillo]`: a callout type per colour.
            set_colour(&mut info.color, meta);
        } else if let Some(colour) = type_colour(meta) {
            // `> [!annotation-yellow]`, `> [!highlight-Red]`: the type ends with the colour.
            set_colour(&mut info.color, colour);
        } else if let Some((_, hex)) = meta.rsplit_once("-#")
            && hex.len() == 6
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            // ZotFlow's `> [!zotflow-highlight-#ffd400]`: the colour ends the callout's type.
            set_colour(&mut info.color, &meta[meta.len() - 7..]);
        }
        rest = Cow::Borrowed(after.trim());
    }
    let whole_mark = {
        let t = rest.trim();
        (t.starts_with("<span") || t.starts_with("<mark"))
            && (t.ends_with("</span>") || t.ends_with("</mark>"))
            && memchr::memmem::find_iter(t.as_bytes(), b"</").count() == 1
    };
    info.lead_mark = lead_mark(&rest);
    take_marks(&mut rest, &mut info);
    info.marked = whole_mark
        && (info.color.hex.is_some() || info.color.name.is_some())
        && !rest.trim().is_empty()
        && is_type_word(rest.trim()).is_none();
    take_links(&mut rest, &mut info);
    let mut other_image = None;
    take_images(&mut rest, &mut info, &mut other_image);
    take_pages(&mut rest, &mut info);
    if info.image.is_none() && (info.link.is_some() || info.page.is_some()) {
        info.image = other_image;
    }
    if info.anchored() || info.callout {
        take_lead_label(&mut rest, &mut info);
    }
    let coloured = info.color.hex.is_some() || info.color.name.is_some();
    if info.anchored() || info.callout {
        take_words(&mut rest, &mut info);
    } else if coloured && let Some(word) = is_type_word(rest.trim()) {
        // `<mark style="…">Highlight</mark>` heading the annotation's lines: a label, not text.
        info.label = Some(word.to_string());
        rest = Cow::Borrowed("");
    }
    // Block ids, timestamps, tags at the end.
    let mut t: &str = rest.trim_end();
    info.zotlit_id = memchr::memchr(b'^', t.as_bytes()).is_some()
        && t.rsplit([' ', '^']).next().is_some_and(is_zotlit_id)
        && (t.starts_with('^') || t.contains(" ^"));
    loop {
        let before = t.len();
        if memchr::memchr(b'^', t.as_bytes()).is_some() {
            if let Some(i) =
                rfind_short(t, " ^").filter(|&i| t[i + 2..].chars().all(|c| c.is_alphanumeric() || c == '-'))
            {
                t = &t[..i];
            }
            if t.starts_with('^') && !t.contains(' ') {
                t = "";
            }
        }
        if t.ends_with("]]")
            && let Some(i) = rfind_short(t, "[[")
            && t[i + 2..].starts_with(|c: char| c.is_ascii_digit())
        {
            t = &t[..i];
        }
        // `text%% begin KEY %%%% end KEY %%`: an empty block persisted per annotation.
        if t.ends_with(" %%")
            && let Some(at) = rfind_short(t, "%% begin ")
            && find_short(&t[at..], "%% end ").is_some()
        {
            t = &t[..at];
        }
        // `*“text”* [(p. 3)](zotero://…)-`: a dash the template glued after the link.
        if info.link.is_some()
            && let Some(head) = t.strip_suffix(['-', '–'])
            && !head.ends_with(|c: char| c.is_alphanumeric())
        {
            t = head;
        }
        t = t.trim_end();
        if t.len() == before {
            break;
        }
    }
    // `t` is the start of `rest`: only its end was cut.
    let len = t.len();
    narrow(&mut rest, 0, len);
    // `\[image\] ([pdf](zotero://…))`: Zotero's note of an image annotation, exported without
    // its image (the type word is taken as the label).
    info.image_placeholder = info.link.is_some()
        && info.image.is_none()
        && info.label.as_deref() == Some("image")
        && matches!(rest.trim(), "" | "\\[\\]" | "[]");
    // `###### text [Page 4](zotero://…)`: a template that prints a colour's highlights as
    // headings; the marker is the template's.
    if info.heading && info.anchored() {
        let marker = heading_marker_len(&rest);
        if (1..=7).contains(&marker) {
            let end = rest.len();
            narrow(&mut rest, marker, end);
        }
    }
    info.rest = rest;
    info
}

/// A line that is one inline code span a plugin renders: Meta Bind's `` `BUTTON[…]` ``,
/// `` `INPUT[…]` ``, `` `VIEW[…]` ``, or Dataview's inline query `` `= …` `` / `` `$= …` ``.
fn plugin_code(line: &str) -> bool {
    let Some(code) = line.strip_prefix('`').and_then(|l| l.strip_suffix('`')) else { return false };
    !code.contains('`')
        && (["BUTTON[", "INPUT[", "VIEW["].iter().any(|p| code.starts_with(p)) && code.ends_with(']')
            || code.starts_with("= ")
            || code.starts_with("$= "))
}

/// The length of the heading marker (`###### `) that starts `line`.
fn heading_marker_len(line: &str) -> usize {
    line.len() - line.trim_start_matches('#').trim_start().len()
}

/// `s` cut to `s[start..end]`, without a copy when it is borrowed.
fn narrow(s: &mut Cow<'_, str>, start: usize, end: usize) {
    match s {
        Cow::Borrowed(b) => *b = &b[start..end],
        Cow::Owned(o) => {
            o.truncate(end);
            o.drain(..start);
        }
    }
}

/// The type word `word` is, in any case (`Highlight`, `NOTE`), lowercased.
fn is_type_word(word: &str) -> Option<&'static str> {
    TYPE_WORDS.iter().find(|w| w.eq_ignore_ascii_case(word)).copied()
}

/// A label a template prints before each annotation's text, as a colour sign and an inline field
/// (`🟨 **Amarillo**:: `, `**Highlight**:: `, `Yellow:: `) or a colour sign alone (`🟨 `): its
/// colour or type kept, the label removed. A field whose name is neither stays (it may be the
/// user's words).
fn take_lead_label(rest: &mut Cow<'_, str>, info: &mut Info<'_>) {
    let t = rest.trim_start();
    let sign_end = t.find(|c: char| c.is_alphanumeric() || c == '*' || c == '_').unwrap_or(t.len());
    let signs = t[..sign_end].trim();
    let after = &t[sign_end..];
    let (name, tail) = match after.strip_prefix("**") {
        Some(bold) => match bold.find("**") {
            Some(end) => (&bold[..end], &bold[end + 2..]),
            None => ("", after),
        },
        None => find_short(after, "::").map_or(("", after), |i| (&after[..i], &after[i..])),
    };
    let name = name.trim();
    // `**Highlight:** text`: the colon inside the bold ends the label.
    let colon_inside = name.ends_with([':', '：']);
    let name = name.trim_end_matches([':', '：']).trim();
    let field =
        ["::", ":", "："].iter().find_map(|sep| tail.strip_prefix(sep)).or(colon_inside.then_some(tail));
    let sign_colour = (!signs.is_empty() && zotero_hex_of_name(signs).is_some()).then_some(signs);
    let mut lower = name.to_lowercase();
    // `**Standalone Note:**`, `**Sticky note:**`: a word before the type.
    if let Some((first, last)) = lower.split_once(' ')
        && !first.contains(' ')
        && TYPE_WORDS.contains(&last)
    {
        lower = last.to_string();
    }
    let named = !name.is_empty() && (is_colour_word(&lower) || TYPE_WORDS.contains(&lower.as_str()));
    let cut = match field {
        Some(body) if named => t.len() - body.len(),
        _ if sign_colour.is_some() && after.len() < t.len() && t[..sign_end].ends_with(' ') => sign_end,
        _ => return,
    };
    let colour = sign_colour.or((named && is_colour_word(&lower)).then_some(lower.as_str()));
    if info.color.hex.is_none()
        && info.color.name.is_none()
        && let Some(c) = colour
    {
        info.color.name = Some(c.to_string());
    }
    if named && TYPE_WORDS.contains(&lower.as_str()) {
        info.label.get_or_insert(lower.clone());
    }
    let kept = t[cut..].trim_start();
    let start = offset_in(rest, kept);
    narrow(rest, start, start + kept.len());
}

fn set_colour(c: &mut ColorSource, word: &str) {
    let w = word.trim().trim_end_matches(['"', '\'', ' ']);
    if w.starts_with('#') {
        c.hex = Some(w.to_string());
    } else if !w.is_empty() {
        c.name = Some(w.to_string());
    }
}

/// `<mark …>`, `<span style="background…">` and `</mark>`: colour kept, tags removed.
fn take_marks(rest: &mut Cow<'_, str>, info: &mut Info<'_>) {
    if memchr::memchr(b'<', rest.as_bytes()).is_none() {
        return;
    }
    let mut out = String::with_capacity(rest.len());
    let mut s: &str = rest;
    while let Some(open) = memchr::memchr(b'<', s.as_bytes()) {
        out.push_str(&s[..open]);
        let tag = &s[open..];
        let Some(close) = memchr::memchr(b'>', tag.as_bytes()) else {
            out.push_str(tag);
            s = "";
            break;
        };
        let name_len = tag[1..].bytes().take_while(|b| b.is_ascii_alphabetic() || *b == b'/').count();
        let name = &tag[1..1 + name_len];
        let Some(lower) = [
            "mark", "/mark", "span", "/span", "br", "b", "/b", "i", "/i", "u", "/u", "font", "/font", "p",
            "/p", "small", "/small", "em", "/em", "strong", "/strong",
        ]
        .into_iter()
        .find(|t| t.eq_ignore_ascii_case(name)) else {
            out.push('<');
            s = &tag[1..];
            continue;
        };
        if ["mark", "span", "font", "p"].contains(&lower) {
            let attrs = &tag[..=close];
            let (hex, class_color) = mark_colours(&tag[1 + name.len()..close]);
            if let Some(hex) = hex {
                info.color.hex.get_or_insert(hex);
            }
            if let Some(c) = class_color {
                info.color.name.get_or_insert(c);
            }
            if let Some(class) = attrs.find("class=\"") {
                let value = &attrs[class + 7..];
                let value = &value[..value.find('"').unwrap_or(value.len())];
                if let Some(w) = value.split(['-', '_', ' ']).find(|w| is_colour_word(&w.to_lowercase())) {
                    info.color.name.get_or_insert(w.to_string());
                }
            }
        }
        if lower == "br" {
            out.push('\n');
        }
        s = &tag[close + 1..];
        // `<span style="background-color:Green">✎</span>`: a coloured sign the template prints
        // before the annotation, no word of its text.
        if matches!(lower, "mark" | "span")
            && let Some(end) = find_short(s, "</")
            && !s[..end].trim().is_empty()
            && !s[..end].contains('<')
            && !s[..end].chars().any(char::is_alphanumeric)
            && s[end + 2..].get(..lower.len()).is_some_and(|n| n.eq_ignore_ascii_case(lower))
        {
            s = &s[end..];
        }
    }
    out.push_str(s);
    *rest = Cow::Owned(out);
}

/// Markdown links and bare Zotero links: the annotation's link and page kept, all removed.
fn take_links(rest: &mut Cow<'_, str>, info: &mut Info<'_>) {
    if memchr::memchr(b'[', rest.as_bytes()).is_some() {
        links_off(rest, info);
    }
    // Empty parentheses left by `([p. 3](…))`; by `*comment ([note on p.3](…))* )` the emphasis
    // that closes inside them is kept (`*comment *`).
    if memchr::memchr(b'(', rest.as_bytes()).is_some() {
        for (empty, kept) in
            [("()", ""), ("( )", ""), ("(* )", "*"), ("(*)", "*"), ("(_ )", "_"), ("(_)", "_")]
        {
            if find_short(rest, empty).is_some() {
                *rest = Cow::Owned(replaced(rest, empty, kept));
            }
        }
    }
}

/// `s` with every `pattern` in it replaced by `with`, as `str::replace` does.
fn replaced(s: &str, pattern: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut from = 0;
    while let Some(at) = find_short(&s[from..], pattern) {
        out.push_str(&s[from..from + at]);
        out.push_str(with);
        from += at + pattern.len();
    }
    out.push_str(&s[from..]);
    out
}

/// The links of `rest` read and removed (see [`take_links`]).
fn links_off(rest: &mut Cow<'_, str>, info: &mut Info<'_>) {
    let mut out = String::with_capacity(rest.len());
    let mut changed = false;
    // Where `out` stood after the link that gave the annotation its link.
    let mut after_first: Option<usize> = None;
    let mut s: &str = rest;
    while let Some(open) = memchr::memchr(b'[', s.as_bytes()) {
        // `![…](…)` images are read later.
        if s[..open].ends_with('!') {
            out.push_str(&s[..=open]);
            s = &s[open + 1..];
            continue;
        }
        let Some(mid) = find_short(&s[open..], "](").map(|m| open + m) else { break };
        // `\[17\]` is an escaped bracket, and `[22, 23]. … [(Author)](…)` a bracket that closes
        // before the link's label starts: neither opens the link.
        if s[..open].ends_with('\\') || memchr::memchr(b']', &s.as_bytes()[open + 1..mid]).is_some() {
            out.push_str(&s[..=open]);
            s = &s[open + 1..];
            continue;
        }
        let Some(end) = matching_paren(&s[mid + 1..]).map(|e| mid + 1 + e) else { break };
        let label = &s[open + 1..mid];
        let target = s[mid + 2..end].trim().trim_start_matches('<').trim_end_matches('>');
        let target = inner_link(target).unwrap_or(target);
        let page_in_label = label_page(label);
        let had_link = info.link.is_some();
        let repeated = had_link && target.starts_with("zotero://") && info.link.as_deref() == Some(target);
        let kept = link_meaning(label, page_in_label.as_deref(), target, info);
        changed |= kept;
        out.push_str(&s[..open]);
        if kept
            && repeated
            && info.link_comment.is_none()
            && let Some(from) = after_first
        {
            let between = out[from..].trim();
            if has_word(between) {
                info.link_comment = Some(between.to_string());
            }
        }
        if kept && page_in_label.is_some() {
            // `Seite [13](zotero://…)`: the page word printed before the link is the locator's.
            page_word_off(&mut out);
        }
        if !kept {
            out.push_str(&s[open..=end]);
        }
        if kept && !had_link && info.link.is_some() {
            after_first = Some(out.len());
        }
        s = &s[end + 1..];
    }
    if changed {
        out.push_str(s);
        *rest = Cow::Owned(out);
    }
}

/// The target of a link that is itself a link's whole target (`[Author 2020:5]([Link](zotero://…))`,
/// a vault whose links were rewritten twice).
fn inner_link(target: &str) -> Option<&str> {
    let rest = target.strip_prefix('[')?.strip_suffix(')')?;
    let mid = find_short(rest, "](")?;
    let inner = rest[mid + 2..].trim();
    inner.starts_with("zotero://").then_some(inner)
}

/// Removes a page word (`Seite`, `Page`, `p.`, `S.`, `pág.`, `стр.`) that ends `out`.
fn page_word_off(out: &mut String) {
    const WORDS: [&str; 14] = [
        "page",
        "pages",
        "p.",
        "pp.",
        "seite",
        "s.",
        "página",
        "pág.",
        "pagina",
        "pag.",
        "страница",
        "стр.",
        "頁",
        "页",
    ];
    let t = out.trim_end();
    let start = t
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '[')
        .map_or(0, |i| i + t[i..].chars().next().map_or(1, char::len_utf8));
    // The longest word is 16 bytes.
    if t.len() - start <= 16 && WORDS.contains(&t[start..].to_lowercase().as_str()) {
        out.truncate(start);
    }
}

/// Where the parenthesis that opens `s` closes (nested ones inside skipped).
fn matching_paren(s: &str) -> Option<usize> {
    balanced_end(s.as_bytes(), memchr::memchr2_iter(b'(', b')', s.as_bytes()), b'(')
}

/// Where the parentheses that end `text` open (nested ones inside them skipped).
fn trailing_parens(text: &str) -> Option<usize> {
    let t = text.trim_end().as_bytes();
    t.ends_with(b")").then(|| balanced_end(t, memchr::memchr2_iter(b'(', b')', t).rev(), b')')).flatten()
}

/// Walking the parentheses of `s` at `at` (forwards or backwards), where the first `open` is
/// balanced by its other (both ASCII, so never inside a character of several bytes).
fn balanced_end(s: &[u8], at: impl Iterator<Item = usize>, open: u8) -> Option<usize> {
    let mut depth = 0i32;
    for i in at {
        if s[i] == open {
            depth += 1;
        } else {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// What a link says about the annotation (`page_in_label`: the page its label prints); returns
/// whether the link is markup to remove.
fn link_meaning(label: &str, page_in_label: Option<&str>, target: &str, info: &mut Info<'_>) -> bool {
    if let Some(zotero) = target.strip_prefix("zotero://") {
        // A link that opens the PDF at no page and no annotation (`[PDF](zotero://open-pdf/…)` in
        // a note's header) is the item's, not an annotation's.
        let keyed = find_short(zotero, "annotation=").is_some();
        let annotation = (zotero.starts_with("open-pdf") || zotero.starts_with("open/"))
            && (find_short(zotero, "page=").is_some() || keyed || page_in_label.is_some())
            || keyed;
        // `## 2 Background [ ](zotero://open-pdf/…?page=3)`: Zotero 6 links a note's headings to
        // their page with an empty label; that marks no annotation.
        if label.trim().is_empty() && !keyed {
            return true;
        }
        if annotation {
            info.go_to |= label.trim().eq_ignore_ascii_case("go to annotation");
            // ZotFile's extracted notes: `comment ([note on p.11](zotero://…))`.
            if strip_prefix_ci(label.trim(), "note on p").is_some() {
                info.label.get_or_insert_with(|| "note".to_string());
            }
            // The annotation's own link wins over the item's citation link read before it
            // (`([Author, 2021, p. 4](zotero://select/…)) ([pdf](zotero://open-pdf/…))`).
            if info.link.as_deref().is_some_and(|l| l.starts_with("zotero://select/")) {
                info.link = None;
                info.cited = true;
            }
            info.link.get_or_insert_with(|| {
                if memchr::memchr2(b'\\', b'#', target.as_bytes()).is_some() {
                    target.replace("\\&", "&").replace("&#x26;", "&")
                } else {
                    target.to_string()
                }
            });
            if let Some(p) = page_in_label {
                info.page.get_or_insert_with(|| p.to_string());
            }
            return true;
        }
        // Zotero's own export cites the item: `([Author, 2020, p. 5](zotero://select/…))`.
        // A bare year (`[Lm et al., 2017](zotero://select/…)`) cites the item, not a page.
        let last = label.rsplit(',').next().unwrap_or(label).trim();
        if let Some(p) = page_in_label.filter(|_| last.starts_with(['p', 'P'])) {
            info.page.get_or_insert_with(|| p.to_string());
            info.cited = true;
            info.link.get_or_insert_with(|| target.to_string());
            return true;
        }
        return false;
    }
    // ZotFlow's `[paper.pdf, p.3](obsidian://zotflow?type=open-annotation&…&key=KEY)`: the
    // annotation's own link, into Obsidian's reader; its label prints the page.
    if target.starts_with("obsidian://zotflow") && find_short(target, "type=open-annotation").is_some() {
        if let Some(p) = page_in_label {
            info.page.get_or_insert_with(|| p.to_string());
        }
        info.keyed = true;
        return true;
    }
    if (target.starts_with("file://") || target.is_empty())
        && let Some(p) = page_in_label
    {
        info.page.get_or_insert_with(|| p.to_string());
        return true;
    }
    // `[attachment](<file:///…/paper.pdf#page=9>)`: a link to the user's own copy of the file.
    strip_prefix_ci(target, "file://").is_some()
}

/// `![[path.png]]`, `![](path.png)`: the image kept, the embed removed.
fn take_images(rest: &mut Cow<'_, str>, info: &mut Info<'_>, other: &mut Option<String>) {
    let is_image = |p: &str| {
        let lower = p.to_ascii_lowercase();
        [".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"].iter().any(|e| lower.ends_with(e))
    };
    while let Some(start) = find_short(rest, "![") {
        let tail = &rest[start..];
        let (path, len) = if let Some(inner) = tail.strip_prefix("![[") {
            let Some(end) = inner.find("]]") else { break };
            (inner[..end].split('|').next().unwrap_or("").trim().to_string(), 3 + end + 2)
        } else if let Some(mid) = tail.find("](") {
            let Some(end) = tail[mid..].find(')') else { break };
            (tail[mid + 2..mid + end].trim().to_string(), mid + end + 1)
        } else {
            break;
        };
        if !is_image(&path) {
            break;
        }
        // `file:///C:%5CZotero%5Ccache%5Cimage.png`: the file's path, decoded.
        let path = if strip_prefix_ci(&path, "file://").is_some() {
            crate::note::percent_decode(&path)
        } else {
            path
        };
        // Alone, only an image Zotero named; any other image only next to a Zotero link or a
        // printed page (decided once the pages are read).
        if zotero_image(&path) {
            info.image.get_or_insert(path);
        } else if other.is_none() {
            *other = Some(path);
        }
        rest.to_mut().replace_range(start..start + len, "");
    }
}

/// Whether an embedded image is one Zotero exported: `image-5-x98-y533.png` (any prefix), or
/// named by its 8-character annotation key.
fn zotero_image(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    // `image-undefined-x305-y310.png`: Zotero Integration's name when the page is not known.
    let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    let undefined_page = super::text::image_name_parts(name)
        .is_some_and(|(page, x, y)| page == "undefined" && number(x) && number(y));
    super::text::image_page(name).is_some() || undefined_page || super::text::is_zotero_key(stem.as_bytes())
}

/// Printed pages that are not links: `[p. 5]`, `(p. 5)`, `*Page: ii*`, `**Page 5**`, `Page 5` in a
/// callout title, `[@key, p. 5]`.
fn take_pages(rest: &mut Cow<'_, str>, info: &mut Info<'_>) {
    for (open, close) in [(b'[', b']'), (b'(', b')')] {
        let mut from = 0;
        while let Some(i) = memchr::memchr(open, &rest.as_bytes()[from..]).map(|i| from + i) {
            let Some(j) = memchr::memchr(close, &rest.as_bytes()[i..]).map(|j| i + j) else { break };
            let inner = rest[i + 1..j].trim();
            let locator = inner
                .strip_prefix('@')
                .and_then(|k| k.split_once([',', ' ']))
                .map_or(inner, |(_, p)| p.trim());
            let starts = |p: &str| locator.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
            if (starts("p.") || starts("pp.") || starts("page"))
                && !inside_quote(&rest[..i])
                && let Some(p) = page_of_locator(locator).filter(|p| is_page_token(p))
            {
                info.page.get_or_insert(p);
                rest.to_mut().replace_range(i..=j, "");
                continue;
            }
            from = j;
        }
    }
    // `“text” (“Title”, 2007, p. 1)`: Zotero's citation, printed without its link, ends the line.
    if let Some(open) = trailing_parens(rest)
        && let Some((_, last)) = rest[open + 1..rest.trim_end().len() - 1].rsplit_once(',')
        && let last = last.trim()
        && (last.starts_with("p.") || last.starts_with("pp."))
        && let Some(p) = page_of_locator(last)
    {
        info.page.get_or_insert(p);
        narrow(rest, 0, open);
    }
    let t = rest.trim();
    // Each form below starts, inside its emphasis, with the word `page`.
    let core = t.trim_start_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
    let forms: &[(&str, &str)] = if strip_prefix_ci(core, "page").is_some() {
        &[("*", "*"), ("**", "**"), ("_", "_"), ("", "")]
    } else {
        &[]
    };
    for &(open, close) in forms {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            let inner = inner.trim();
            if let Some(p) = strip_prefix_ci(inner, "page:").or_else(|| strip_prefix_ci(inner, "page "))
                && let Some(page) = page_of_locator(p.trim_start_matches(':'))
                && !p.trim().contains(' ')
            {
                info.page.get_or_insert(page);
                *rest = Cow::Borrowed("");
                return;
            }
        }
    }
    // `**Page 5** — text`: a page label starting the line.
    if let Some(r) = t.strip_prefix("**Page ").or_else(|| t.strip_prefix("**p. "))
        && let Some(end) = r.find("**")
        // A page, not words (`**Page size tuning:**` is a heading of the user's).
        && let Some(page) = label_page(&format!("p. {}", r[..end].trim()))
    {
        info.page.get_or_insert(page);
        let kept = r[end + 2..].trim_start_matches([' ', '—', '–', '-']);
        let start = offset_in(rest, kept);
        narrow(rest, start, start + kept.len());
    }
}

/// Whether the end of `before` lies inside a quotation the line opened (`“…`, `«…`): a page
/// there is the quoted author's own citation (`“the will” (p. 272). Yet …`), not a locator.
fn inside_quote(before: &str) -> bool {
    let count = |c: char| before.matches(c).count();
    count('“') > count('”') || count('«') > count('»')
}

/// Colour and type words around an anchor (`“…” Yellow Highlight`, a callout's `Highlight`, a
/// line that is only `Yellow Highlight`): read and removed. Words inside the text are left.
fn take_words(rest: &mut Cow<'_, str>, info: &mut Info<'_>) {
    let t = rest.trim();
    // `- "text" | Highlight`: a list item's quote.
    let quote = t.strip_prefix("- ").unwrap_or(t);
    let (keep, tail) = match quote.chars().next() {
        Some(open @ ('“' | '"' | '«')) if !info.callout => {
            let close = match open {
                '“' => '”',
                '«' => '»',
                _ => '"',
            };
            match quote[open.len_utf8()..].rfind(close) {
                Some(end) => t.split_at(t.len() - quote.len() + open.len_utf8() + end + close.len_utf8()),
                None => return,
            }
        }
        _ if info.callout || at_most_words(t, 2) => ("", t),
        // `…last line of the text.” Red Highlight [Page 3](…)`: the quote opened on a line above.
        _ => match t.rfind('”') {
            Some(end)
                if t[end + '”'.len_utf8()..].split_whitespace().count() <= 2
                    && t[end + '”'.len_utf8()..].split_whitespace().all(|w| {
                        let w = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
                        TYPE_WORDS.contains(&w.as_str()) || is_colour_word(&w)
                    }) =>
            {
                t.split_at(end + '”'.len_utf8())
            }
            _ => return,
        },
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut removed = false;
    for w in tail.split(' ') {
        let trimmed = if w.is_ascii() {
            let b = w.as_bytes();
            let start = b.iter().position(u8::is_ascii_alphanumeric).unwrap_or(b.len());
            let end = b.iter().rposition(u8::is_ascii_alphanumeric).map_or(start, |e| e + 1);
            &w[start..end]
        } else {
            w.trim_matches(|c: char| !c.is_alphanumeric())
        };
        let trimmed = if trimmed.is_empty() { w.trim() } else { trimmed };
        // Most words are neither: in ASCII and not one of them, they are kept without being
        // lowercased.
        if trimmed.is_ascii() && !is_type_or_colour_ascii(trimmed) {
            kept.push(w);
            continue;
        }
        let lower = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        let bare = if lower.is_empty() { w.trim().to_string() } else { lower };
        if TYPE_WORDS.contains(&bare.as_str()) && info.label.is_none() {
            info.label = Some(bare);
            removed = true;
        } else if is_colour_word(&bare) {
            // `**Green Highlight**` beside a colour the line's mark already gave: a label too.
            if info.color.name.is_none() && info.color.hex.is_none() {
                info.color.name = Some(bare);
            }
            removed = true;
        } else {
            kept.push(w);
        }
    }
    if !removed {
        // The line as it was, trimmed.
        let start = offset_in(rest, t);
        narrow(rest, start, start + t.len());
        return;
    }
    *rest = Cow::Owned(format!("{keep} {}", kept.join(" ")).trim().to_string());
}
