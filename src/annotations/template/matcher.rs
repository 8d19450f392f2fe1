//! A loop body's [`Pat`] as a regular expression, and the matches of it in a note.
//!
//! Constant text must appear as written (runs of spaces are loose, line breaks must be line
//! breaks, extra blank lines are allowed); each slot is a capture group whose class fits its field
//! (a hex for `color`, no spaces in a link, one line for an unknown value); each `if` branch is an
//! empty group, so a match says which branch was taken and thus what its condition said. A free
//! text slot at the very start of the body is kept to one line so that it cannot swallow the
//! lines above it; a free-text slot that ends the body gets the lines up to the next match.

use regex::{Regex, RegexBuilder};

use super::pattern::{Fact, Field, Pat, Slot, Transform};
use crate::annotations::text::is_tag_line;

/// What a capture group of the expression stands for.
#[derive(Debug, Clone)]
enum Group {
    /// A slot, the text before it on its line when that is a quote prefix (`> `), and for a
    /// comment the most line breaks the template prints between the iteration's content before
    /// it and its line ([`Builder::run`]).
    Slot(Slot, Option<String>, Gap),
    /// An `if` branch: its facts, and the most line breaks the template prints between the
    /// iteration's content before it and the branch's first content ([`UNBOUNDED`] when it does
    /// not bound them or the branch prints nothing).
    Branch(Vec<Fact>, usize),
    /// The start of loop body `n` (index into the bodies).
    Body(usize),
}

/// The annotation loops of a template, ready to match.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// The expressions, strictest first: the first leaves out `if` branches that start with free
    /// text where a sibling branch starts with the template's constant text, so that the branch
    /// held by constant text wins wherever both could match (in whichever loop body it is).
    tiers: Vec<Tier>,
    /// Whether body `n` ends with a free-text slot that takes the lines after the match.
    open_end: Vec<bool>,
    /// Whether body `n` starts with the comment (`{{comment}} "{{annotatedText}}"`): lines
    /// between the last iteration and the match are that comment's first paragraphs.
    open_start: Vec<bool>,
    /// The characters an iteration can start with (of the bodies that start with constant text).
    leads: Vec<char>,
    /// Each body's constant first words when they are distinctive enough to mark where an
    /// iteration starts on their own (`#### anno `), without a Zotero link or an image.
    heads: Vec<String>,
    /// Whether an iteration can follow the one before it on the same line (not every body is
    /// sure to start with a line break).
    may_glue: bool,
}

#[derive(Debug, Clone)]
struct Tier {
    regex: Regex,
    /// The same expression held to start exactly where it is run (`\A`, not a line start):
    /// for an iteration printed right after the last one on the same line, when the template's
    /// `{%- endfor %}` ate the line break. Built the first time it is needed.
    glued: std::sync::OnceLock<Option<Regex>>,
    /// The same expression held to start where it is run and to end at the end of what it is
    /// run on: an iteration read again whole, with the lines after it it took ([`extend`]).
    /// Built the first time it is needed.
    whole: std::sync::OnceLock<Option<Regex>>,
    /// Capture group index → meaning (index 0 unused).
    groups: Vec<Option<Group>>,
}

impl Tier {
    /// The expression held to start where it is run (the `glued` field), built the first time.
    fn glued(&self) -> Option<&Regex> {
        self.glued.get_or_init(|| compile(&held_at_start(self.regex.as_str())).ok()).as_ref()
    }

    /// The expression held to the whole of what it is run on (the `whole` field).
    fn whole(&self) -> Option<&Regex> {
        self.whole
            .get_or_init(|| compile(&format!("(?:{})\\s*\\z", held_at_start(self.regex.as_str()))).ok())
            .as_ref()
    }

    /// The iteration a match of this tier's expression (or of one derived from it) read, its
    /// groups relative to `offset`.
    fn hit(&self, caps: &regex::Captures<'_>, offset: usize) -> Hit {
        let whole = caps.get(0).map_or((offset, offset), |m| (offset + m.start(), offset + m.end()));
        let mut hit = Hit { start: whole.0, end: whole.1, body: 0, captures: Vec::new(), facts: Vec::new() };
        for (i, group) in self.groups.iter().enumerate() {
            let (Some(group), Some(m)) = (group, caps.get(i)) else { continue };
            match group {
                Group::Body(n) => hit.body = *n,
                Group::Branch(facts, _) => hit.facts.extend(facts.iter().cloned()),
                Group::Slot(slot, prefix, gap) => {
                    hit.captures.push(capture(slot, prefix.as_deref(), m, offset, *gap))
                }
            }
        }
        hit
    }
}

/// One field read from a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// Which field.
    pub field: Field,
    /// The text, with the template's transforms undone.
    pub value: String,
    /// Byte range in the note.
    pub span: (usize, usize),
    /// Whether the value was changed in a way that cannot be undone (truncated, lowercased).
    pub partial: bool,
    /// What the template prints before the line of a comment (see [`comment_apart`]).
    pub gap: Gap,
    /// The template prints the field's line breaks with a prefix (`replace("\n", "\n> ")`): lines
    /// after the match that carry it may be the field's.
    pub prefixed_lines: bool,
}

/// One iteration of a loop found in a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Byte range in the note (the text taken after it included).
    pub start: usize,
    /// End of the range.
    pub end: usize,
    /// Which loop body matched.
    pub body: usize,
    /// The slots that matched.
    pub captures: Vec<Capture>,
    /// The facts of the branches taken.
    pub facts: Vec<Fact>,
}

/// Why the loops could not be made into an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub String);

struct Builder {
    out: String,
    groups: Vec<Option<Group>>,
    /// The text emitted since the last line break, when it is only constant text.
    line_prefix: Option<String>,
    /// Whether loosely anchored branches are left out (see [`Matcher::tiers`]).
    strict: bool,
    /// Line breaks printed since the body's last content (constant text or a field), the most
    /// any path through the branches so far prints; [`UNBOUNDED`] after an inner loop.
    run: usize,
    /// `run` as it stood when the current line's first content was printed (`None` while the
    /// line has none).
    line_gap: Option<usize>,
    /// The fields the enclosing branches' conditions say are set (`{% if a.comment %}`).
    set: Vec<Field>,
    /// Whether the body prints constant text after what is being emitted.
    followed: bool,
    /// The branch groups entered whose first content is not printed yet.
    pending: Vec<usize>,
    /// Per free field of the body being built, the characters its value does not start with
    /// (see [`lead_marks`]).
    not_first: Vec<(Field, String)>,
}

/// A gap the template does not bound.
const UNBOUNDED: usize = usize::MAX;

/// What the template prints before a comment's line (see [`comment_apart`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The most line breaks between the iteration's content before it and its line;
    /// [`UNBOUNDED`] when the template does not bound them, or for another field.
    pub breaks: usize,
    /// Whether the field starts its line (no constant text before it on the line).
    pub alone: bool,
}

impl Gap {
    const NONE: Gap = Gap { breaks: UNBOUNDED, alone: false };
}

impl Matcher {
    /// Builds the matcher for the given loop bodies (in template order).
    pub fn new(bodies: &[Pat]) -> Result<Matcher, BuildError> {
        // A body that can match nothing would match, empty, at every line and hide the bodies
        // after it: each is rewritten to print at least one of its fields or constant text.
        let trimmed: Vec<Pat> = bodies
            .iter()
            .map(|b| {
                let mut b = trim(b);
                drop_ambiguous_types(&mut b);
                non_empty(&b).unwrap_or(b)
            })
            .collect();
        let open_end = trimmed.iter().map(ends_in_free_text).collect();
        let open_start = trimmed.iter().map(starts_with_comment).collect();
        let mut tiers: Vec<Tier> = Vec::new();
        let mut last: Option<String> = None;
        for strict in [true, false] {
            let (source, groups) = expression(&trimmed, strict);
            // Most templates have no branch the strict tier leaves out: one expression, built once.
            if last.as_ref() == Some(&source) {
                continue;
            }
            tiers.push(Tier {
                regex: compile(&source)?,
                glued: std::sync::OnceLock::new(),
                whole: std::sync::OnceLock::new(),
                groups,
            });
            last = Some(source);
        }
        let mut leads: Vec<char> = trimmed.iter().filter_map(first_chars).flatten().collect();
        leads.sort_unstable();
        leads.dedup();
        let may_glue = !bodies.iter().all(|b| starts(b) == Edge::Break);
        let heads = trimmed.iter().filter_map(head).collect();
        Ok(Matcher { tiers, open_end, open_start, leads, heads, may_glue })
    }

    /// Every iteration in `text[from..to]`, in order; lines between two iterations go to the
    /// first when its body ends with free text (a comment of several paragraphs), up to a line
    /// `stop` says ends the loop's output.
    pub fn find(&self, text: &str, from: usize, to: usize, stop: &dyn Fn(&str) -> bool) -> Vec<Hit> {
        let mut hits: Vec<Hit> = Vec::new();
        let mut pos = from;
        while pos < to {
            // On a line of several image embeds and nothing else, each embed is read alone: the
            // text is cut after the next one (a template that prints image annotations one after
            // another on a line, where an iteration must end at the line's end).
            let next = pos + text[pos..].len() - text[pos..].trim_start().len();
            let hay = &text[..embed_end(text, next).map_or(to, |end| end.min(to))];
            let glued =
                (pos > from && !text[..pos].ends_with('\n')).then(|| self.glued_whole(hay, pos)).flatten();
            let (tier, caps, offset) = match glued {
                Some((tier, caps)) => (tier, caps, pos),
                None => {
                    let line_start = self.leftmost(hay, pos);
                    let before =
                        line_start.as_ref().and_then(|(_, c)| c.get(0)).map_or(hay.len(), |m| m.start());
                    // An iteration glued mid-line after lines a field of the last one took
                    // (`_Tags:_ a, b**Page 4** — [link](…)`), before the next at a line's start.
                    match (hits.is_empty(), self.glued_between(hay, pos, before)) {
                        (false, Some((at, (tier, caps)))) => (tier, caps, at),
                        _ => match line_start {
                            Some((tier, caps)) => (tier, caps, 0),
                            None => break,
                        },
                    }
                }
            };
            let whole = caps.get(0).map_or((pos, pos), |m| (offset + m.start(), offset + m.end()));
            if whole.1 == whole.0 {
                // An empty iteration (every branch empty): skip a character and go on.
                pos = next_char(text, whole.0);
                continue;
            }
            // An iteration does not start with a blank line (a branch whose leading white space
            // is optional may take one): read it from the next line, where every branch can.
            let lead =
                text[whole.0..whole.1].len() - text[whole.0..whole.1].trim_start_matches([' ', '\t']).len();
            if offset == 0 && text[whole.0 + lead..whole.1].starts_with('\n') {
                pos = whole.0 + lead + 1;
                continue;
            }
            let hit = tier.hit(&caps, offset);
            if !has_content(&hit) && !self.open_end[hit.body] {
                // Only the template's decoration (every field empty): not an annotation.
                pos = next_char(text, whole.0);
                continue;
            }
            pos = whole.1;
            hits.push(hit);
        }
        let mut apart = Vec::new();
        // Iterations read as part of the one before them ([`Matcher::read_whole`]).
        let mut merged = vec![false; hits.len()];
        for i in 0..hits.len() {
            if merged[i] {
                continue;
            }
            let gap_end = hits.get(i + 1).map_or(to, |h| h.start);
            if self.open_end[hits[i].body] {
                let before = hits[i].end;
                if let Some(own) = extend(&mut hits[i], text, gap_end, stop) {
                    apart.push((i + 1, own));
                } else if hits[i].end > before
                    && let Some(whole) = self.read_whole(text, &hits[i], None)
                {
                    hits[i] = whole;
                    // A comment alone matched right after the lines the field took (blank lines
                    // aside): the one the template prints after that field (`- **Comment:** …`),
                    // when the whole reads as one iteration with it.
                    if let Some(next) = hits.get(i + 1)
                        && text[hits[i].end..next.start].trim().is_empty()
                        && only_comment(next)
                        && let Some(whole) = self.read_whole(text, &hits[i], Some(next.end))
                    {
                        hits[i] = whole;
                        merged[i + 1] = true;
                    }
                }
            }
            if self.open_start[hits[i].body] {
                let gap_start = if i == 0 { from } else { hits[i - 1].end };
                extend_back(&mut hits[i], text, gap_start);
            }
        }
        let mut kept = merged.iter().map(|m| !m);
        hits.retain(|_| kept.next().unwrap_or(true));
        for (at, own) in apart.into_iter().rev() {
            let at = at - merged[..at].iter().filter(|&&m| m).count();
            hits.insert(at, own);
        }
        hits.retain(has_content);
        hits
    }
}

/// The free-text capture of `hit` that ends last: the one the lines after its match go to.
fn last_free(hit: &Hit) -> Option<usize> {
    (0..hit.captures.len())
        .filter(|&i| hit.captures[i].field.is_free_text())
        .max_by_key(|&i| hit.captures[i].span.1)
}

/// Whether the only field `hit` read is a comment.
fn only_comment(hit: &Hit) -> bool {
    hit.captures.iter().all(|c| c.field == Field::Comment || c.value.is_empty())
}

impl Matcher {
    /// `hit`, which took the lines after its match into its last field, read again as one
    /// iteration over all of its lines, when that field is one the template prints with a prefix
    /// on each line (`> {{annotatedText | replace("\n", "\n> ")}}` then `> *{{comment}}*`): the
    /// lines it took may hold the fields after it (the comment), which the match, ending at the
    /// text's first line, had left empty.
    /// `to`: read it up to there instead of its end.
    fn read_whole(&self, text: &str, hit: &Hit, to: Option<usize>) -> Option<Hit> {
        let last = &hit.captures[last_free(hit)?];
        if !last.prefixed_lines {
            return None;
        }
        let span = &text[hit.start..to.unwrap_or(hit.end)];
        // The reading must agree with the match on every field before the lines taken: where
        // the expression, held to all the lines, can only match by reading the fields anew
        // (the header's words as the text), the lines are the field's after all.
        let kept = |whole: &Hit| {
            hit.captures.iter().filter(|c| c.span.1 < last.span.0 && !c.value.is_empty()).all(|c| {
                whole.captures.iter().any(|w| w.field == c.field && w.span == c.span && w.value == c.value)
            }) && whole.captures.iter().any(|w| w.field == last.field && w.span.0 == last.span.0)
        };
        self.tiers.iter().find_map(|tier| {
            let caps = tier.whole()?.captures(span)?;
            let whole = tier.hit(&caps, hit.start);
            (has_content(&whole) && kept(&whole)).then_some(whole)
        })
    }

    /// The leftmost match of any tier at or after `pos` (the stricter tier where they start
    /// together), cut short when a field of several lines swallowed the next iteration: a
    /// comment in `**…**` must not run over the following annotations to the next `**`.
    fn leftmost<'h>(&self, hay: &'h str, pos: usize) -> Option<(&Tier, regex::Captures<'h>)> {
        let first = self.first_match(hay, pos)?;
        let start = first.1.get(0)?.start();
        Some(self.cut_short(hay, first, |h| {
            self.first_match(h, pos).filter(|shorter| shorter.1.get(0).is_some_and(|m| m.start() == start))
        }))
    }

    /// `best` cut short where a field of several lines or words swallowed the next iteration:
    /// `rematch` reads the match again in the text up to there (`None` keeps what was found).
    /// Each retry ends before the iteration the last one swallowed: a handful at most.
    fn cut_short<'h, 's>(
        &'s self,
        hay: &'h str,
        mut best: (&'s Tier, regex::Captures<'h>),
        rematch: impl Fn(&'h str) -> Option<(&'s Tier, regex::Captures<'h>)>,
    ) -> (&'s Tier, regex::Captures<'h>) {
        let mut limit = hay.len();
        for _ in 0..8 {
            let Some(inner) = self.swallowed(hay, &best, limit) else { break };
            limit = inner;
            match rematch(&hay[..limit]) {
                Some(shorter) => best = shorter,
                None => break,
            }
        }
        best
    }

    fn first_match<'h>(&self, hay: &'h str, pos: usize) -> Option<(&Tier, regex::Captures<'h>)> {
        self.tiers
            .iter()
            .filter_map(|t| t.regex.captures_at(hay, pos).map(|c| (t, c)))
            .min_by_key(|(_, c)| c.get(0).map_or(usize::MAX, |m| m.start()))
    }

    /// The start of a line inside a field of several lines of `found` where another iteration
    /// that carries a Zotero link or an image starts.
    fn swallowed(&self, hay: &str, found: &(&Tier, regex::Captures<'_>), limit: usize) -> Option<usize> {
        let (tier, caps) = found;
        let whole = caps.get(0)?;
        let hay = &hay[..limit];
        // A line inside a free field that starts a whole iteration with the body's distinctive
        // first words (`#### anno 2`): the field took the next iteration.
        if !self.heads.is_empty() {
            let inner = tier.groups.iter().enumerate().filter_map(|(i, g)| match g {
                Some(Group::Slot(slot, _, _)) if !slot.field.is_narrow() => caps.get(i),
                _ => None,
            });
            let headed = inner
                .flat_map(|m| {
                    hay[m.start()..m.end()].match_indices('\n').map(move |(i, _)| m.start() + i + 1)
                })
                .filter(|&at| at > whole.start() && self.headed_at(hay, at))
                .min();
            if headed.is_some() {
                return headed;
            }
        }
        // Two `if` blocks one after the other whose conditions exclude each other
        // (`{% if a.type == "highlight" %}…{% endif %}{% if a.type == "note" %}…`): one
        // annotation takes one of them, and the second starts the next iteration.
        let mut taken: Vec<&Fact> = Vec::new();
        for (i, group) in tier.groups.iter().enumerate() {
            let (Some(Group::Branch(facts, gap)), Some(m)) = (group, caps.get(i)) else { continue };
            if m.start() > whole.start() && facts.iter().any(|f| taken.iter().any(|g| conflict(f, g))) {
                return Some(m.start());
            }
            if facts.contains(&Fact::Has(Field::Comment))
                && let Some(cut) = branch_apart(hay, whole.start(), m.start(), *gap)
            {
                return Some(cut);
            }
            taken.extend(facts);
        }
        for (i, group) in tier.groups.iter().enumerate() {
            let (Some(Group::Slot(slot, quote, gap)), Some(m)) = (group, caps.get(i)) else { continue };
            if let Some(cut) = comment_apart(hay, whole.start(), m, slot.field, *gap) {
                return Some(cut);
            }
            // Only free text (text, comment, tags…) can run over another iteration; a page, a
            // link or a key cannot.
            if slot.field.is_narrow() {
                continue;
            }
            // The lines of the field, from the start of the line it starts on (a field after
            // `\t- ` on a line of its own may have taken the next iteration's line from its `- `).
            // Only when nothing but a list marker is before it on that line: a field after the
            // template's own words, or after the quote marker the template puts there, is on its
            // iteration's line.
            let line_start = hay[..m.start()].rfind('\n').map_or(0, |nl| nl + 1);
            let marker_only =
                quote.is_none() && hay[line_start..m.start()].chars().all(|c| " \t-*+>".contains(c));
            let first = marker_only.then_some(line_start);
            let inner_lines = hay[m.start()..m.end()].match_indices('\n').map(|(i, _)| m.start() + i + 1);
            for at in first.into_iter().chain(inner_lines) {
                if at <= whole.start() || at >= m.end() {
                    continue;
                }
                if self.glued_tier(hay, at).is_some() {
                    return Some(at);
                }
            }
            // An iteration printed on the field's own line, right after the text before it (not
            // inside a word: the `-` of `claim-making` does not start a `- ` item).
            let glued = hay[m.start()..m.end()]
                .char_indices()
                .skip(1)
                .filter(|(_, c)| self.leads.contains(c))
                .map(|(i, _)| m.start() + i)
                .filter(|&at| !hay[..at].ends_with('\n') && !in_word_hyphen(hay, at))
                .find(|&at| self.glued_tier(hay, at).is_some());
            if glued.is_some() {
                return glued;
            }
        }
        None
    }

    /// [`Matcher::glued_at`], cut short ([`Matcher::cut_short`]) when a field swallowed the next
    /// iteration glued on its line (`_Tags:_ thesis**Page 89** — [link](…)` then
    /// `text**Page 95** — [link](…)`). The groups are relative to `at`.
    fn glued_whole<'h>(&self, hay: &'h str, at: usize) -> Option<(&Tier, regex::Captures<'h>)> {
        let rest = &hay[at..];
        let first = self.glued_at(rest, 0)?;
        Some(self.cut_short(rest, first, |h| self.glued_at(h, 0)))
    }

    /// The first iteration glued after other words on a line of `hay[from..to]` (at a lead
    /// character, not at a line's start), with its groups relative to where it starts.
    fn glued_between<'h>(
        &self,
        hay: &'h str,
        from: usize,
        to: usize,
    ) -> Option<(usize, (&Tier, regex::Captures<'h>))> {
        if !self.may_glue || from >= to {
            return None;
        }
        hay[from..to]
            .char_indices()
            .map(|(i, c)| (from + i, c))
            .filter(|&(at, c)| {
                self.leads.contains(&c)
                    && at > 0
                    && !hay[..at].ends_with(['\n', ' ', '\t'])
                    && !in_word_hyphen(hay, at)
            })
            .find_map(|(at, _)| self.glued_whole(hay, at).map(|found| (at, found)))
    }

    /// An iteration that starts exactly at `at` and carries a Zotero link or an image, with its
    /// groups.
    fn glued_at<'h>(&self, hay: &'h str, at: usize) -> Option<(&Tier, regex::Captures<'h>)> {
        let (tier, regex) = self.glued_tier(hay, at)?;
        regex.captures(&hay[at..]).map(|caps| (tier, caps))
    }

    /// Whether a whole iteration starts at the line start `at` with a body's distinctive first
    /// words ([`head`]).
    fn headed_at(&self, hay: &str, at: usize) -> bool {
        let line = hay[at..].trim_start_matches([' ', '\t']);
        self.heads.iter().any(|h| line.starts_with(h.as_str()))
            && self.tiers.iter().any(|tier| tier.glued().is_some_and(|r| r.is_match(&hay[at..])))
    }

    /// The tier (and its glued pattern) of an iteration that starts exactly at `at` and carries a
    /// Zotero link or an image: the match alone, without its groups (far faster).
    fn glued_tier(&self, hay: &str, at: usize) -> Option<(&Tier, &Regex)> {
        if !self.may_glue {
            return None;
        }
        self.tiers.iter().find_map(|tier| {
            let regex = tier.glued()?;
            let found = regex.find(&hay[at..])?.as_str();
            // Glued means on the same line: a match that starts with a line break is an iteration
            // of the next line, which the line-anchored search reads with its own indent.
            if found.trim_start_matches([' ', '\t']).starts_with(['\n', '\r']) {
                return None;
            }
            if !found.contains("zotero://") && !found.contains("![") {
                return None;
            }
            // The link or image must be the iteration's own, not words of a free-text field
            // (a line of `{{tags}}` alone takes any line whole, links and all).
            let caps = regex.captures(&hay[at..])?;
            let free: Vec<(usize, usize)> = tier
                .groups
                .iter()
                .enumerate()
                .filter(|(_, g)| matches!(g, Some(Group::Slot(slot, _, _)) if !slot.field.is_narrow()))
                .filter_map(|(i, _)| caps.get(i).map(|m| (m.start(), m.end())))
                .collect();
            let own = ["zotero://", "!["].iter().any(|mark| {
                found.match_indices(mark).any(|(i, _)| !free.iter().any(|&(s, e)| s <= i && i < e))
            });
            own.then_some((tier, regex))
        })
    }
}

/// Whether `at` is the hyphen of a hyphenated word (`claim-making`).
fn in_word_hyphen(hay: &str, at: usize) -> bool {
    let mut after = hay[at..].chars();
    after.next() == Some('-')
        && after.next().is_some_and(char::is_alphanumeric)
        && hay[..at].chars().next_back().is_some_and(char::is_alphanumeric)
}

/// `source` with each body held to start where the search starts instead of at a line start.
fn held_at_start(source: &str) -> String {
    source.replace("(?:^[ \\t]*", "(?:\\A[ \\t]*")
}

/// The characters `p` can start with, blanks aside; `None` when it can start with a field.
/// What a pattern prints first: a line break before anything else, something else, or possibly
/// nothing but spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    Break,
    Other,
    Vanish,
}

/// What `p` prints first.
fn starts(p: &Pat) -> Edge {
    match p {
        Pat::Lit(s) => {
            let lead = &s[..s.len() - s.trim_start().len()];
            if lead.contains('\n') {
                Edge::Break
            } else if s.trim().is_empty() {
                Edge::Vanish
            } else {
                Edge::Other
            }
        }
        Pat::Slot(_) | Pat::Loop(_) => Edge::Other,
        Pat::Repeat(inner) => match starts(inner) {
            Edge::Other => Edge::Other,
            _ => Edge::Vanish,
        },
        Pat::Alt(branches) => {
            let edges: Vec<Edge> = branches.iter().map(|(_, b)| starts(b)).collect();
            if edges.contains(&Edge::Other) {
                Edge::Other
            } else if !edges.is_empty() && edges.iter().all(|e| *e == Edge::Break) {
                Edge::Break
            } else {
                Edge::Vanish
            }
        }
        Pat::Seq(items) => items.iter().map(starts).find(|e| *e != Edge::Vanish).unwrap_or(Edge::Vanish),
    }
}

fn first_chars(p: &Pat) -> Option<Vec<char>> {
    match p {
        Pat::Lit(s) => Some(s.trim_start().chars().next().into_iter().collect()),
        Pat::Slot(_) | Pat::Repeat(_) | Pat::Loop(_) => None,
        Pat::Alt(branches) => {
            let mut out = Vec::new();
            for (_, b) in branches {
                out.extend(first_chars(b)?);
            }
            Some(out)
        }
        Pat::Seq(items) => {
            let mut out = Vec::new();
            for item in items {
                out.extend(first_chars(item)?);
                let may_vanish = matches!(item, Pat::Lit(s) if s.trim().is_empty())
                    || alt_has_empty(item)
                    || item.is_empty();
                if !may_vanish {
                    return Some(out);
                }
            }
            Some(out)
        }
    }
}

/// A body's constant first words, up to its first field or line break, when they hold at least
/// three letters or digits and start with something other than a letter (`#### anno `,
/// `> [!quote`): words no annotation's own lines are likely to start with.
fn head(p: &Pat) -> Option<String> {
    let first = match p {
        Pat::Lit(s) => s,
        Pat::Seq(items) => match items.first()? {
            Pat::Lit(s) => s,
            _ => return None,
        },
        _ => return None,
    };
    let line = first.trim_start().split('\n').next()?;
    let letters = line.chars().filter(|c| c.is_alphanumeric()).count();
    (letters >= 3 && !line.starts_with(char::is_alphanumeric)).then(|| line.to_string())
}

/// Whether a hit read any text, comment or image: one that did not is the template's decoration
/// alone (an iteration whose every field is empty cannot be told from nothing).
fn has_content(hit: &Hit) -> bool {
    hit.captures
        .iter()
        .any(|c| matches!(c.field, Field::Text | Field::Comment | Field::Image) && !c.value.is_empty())
}

/// The expression of the loop bodies (strict: see [`Matcher::tiers`]) and the meaning of each of
/// its capture groups.
fn expression(bodies: &[Pat], strict: bool) -> (String, Vec<Option<Group>>) {
    let mut b = Builder {
        out: String::from("(?m)"),
        groups: vec![None],
        line_prefix: None,
        strict,
        run: 0,
        line_gap: None,
        set: Vec::new(),
        followed: false,
        pending: Vec::new(),
        not_first: Vec::new(),
    };
    let mut order: Vec<usize> = (0..bodies.len()).collect();
    order.sort_by_key(|&n| anchoring(&bodies[n]));
    for (i, &n) in order.iter().enumerate() {
        if i > 0 {
            b.out.push('|');
        }
        b.out.push_str("(?:^[ \\t]*");
        b.group(Group::Body(n), "");
        b.line_prefix = Some(String::new());
        (b.run, b.line_gap) = (0, None);
        b.not_first = lead_marks(&bodies[n]);
        b.pat(&bodies[n], true);
        // A body that may end with a field (or with what may be left out after one) ends at the
        // end of a line (a block id may follow), so that the field is not cut short.
        if !ends_in_constant(&bodies[n]) {
            b.out.push_str(r"[ \t]*(?:\^[A-Za-z0-9-]+[ \t]*)?$");
        }
        b.out.push(')');
    }
    (b.out, b.groups)
}

fn compile(source: &str) -> Result<Regex, BuildError> {
    RegexBuilder::new(source)
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
        .map_err(|e| BuildError(format!("the annotation loop is too large to match ({e})")))
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at + 1, |c| at + c.len_utf8())
}

/// Gives the lines after a hit (up to `gap_end` or a stop line) to its last free-text capture.
/// When that capture is an empty comment and the lines stand further from the hit's content than
/// the template prints a comment (see [`comment_apart`]), they are an iteration of their own: a
/// sticky note's comment after an annotation with none, returned as a hit of its own.
fn extend(hit: &mut Hit, text: &str, gap_end: usize, stop: &dyn Fn(&str) -> bool) -> Option<Hit> {
    let mut end = hit.end;
    let mut taken_end = hit.end;
    for line in text[hit.end..gap_end].split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if stop(bare) || is_image_line(bare) {
            break;
        }
        end += line.len();
        if !bare.trim().is_empty() {
            taken_end = end;
        }
    }
    if taken_end == hit.end {
        return None;
    }
    let at = last_free(hit)?;
    let last = &mut hit.captures[at];
    if !text[last.span.1..hit.end].trim().is_empty() {
        return None;
    }
    // Only a comment the template prints alone at a line's start: lines that are not the
    // template's comment line (`<p class="comment">…`) but a paragraph an older template printed
    // are the comment's, however far.
    if last.field == Field::Comment && last.value.is_empty() && last.gap.alone {
        let words = hit.end + text[hit.end..taken_end].len() - text[hit.end..taken_end].trim_start().len();
        let line = text[..words].rfind('\n').map_or(0, |nl| nl + 1);
        if further_than(text, hit.start, line, last.gap.breaks).is_some() && agree(&hit.facts) {
            let value = text[line..taken_end].trim().to_string();
            let comment = Capture {
                field: Field::Comment,
                value,
                span: (line, taken_end),
                partial: false,
                gap: Gap::NONE,
                prefixed_lines: false,
            };
            return Some(Hit {
                start: line,
                end: taken_end,
                body: hit.body,
                captures: vec![comment],
                facts: Vec::new(),
            });
        }
    }
    last.value = format!("{}{}", last.value, &text[last.span.1..taken_end]).trim().to_string();
    last.span.1 = taken_end;
    hit.end = taken_end;
    None
}

/// Whether the branches a match took agree on each field they test (no `color == "Blue"` beside
/// `color == "Gray"`): a match that took one colour's text and another's comment was read
/// loosely, and its empty comment tells nothing of where the template prints one.
fn agree(facts: &[Fact]) -> bool {
    facts.iter().enumerate().all(|(i, f)| !facts[..i].iter().any(|g| conflict(f, g)))
}

/// Whether two facts cannot both hold: one field equal to two different values, or a text for a
/// sticky note or an image (Zotero gives neither one).
fn conflict(a: &Fact, b: &Fact) -> bool {
    let textless = |f: &Fact| matches!(f, Fact::Is(Field::Type, t) if t == "note" || t == "image");
    matches!((a, b), (Fact::Is(fa, va), Fact::Is(fb, vb)) if fa == fb && va != vb)
        || textless(a) && *b == Fact::Has(Field::Text)
        || textless(b) && *a == Fact::Has(Field::Text)
}

/// Removes the annotation type a branch's condition names (`{% if a.type == "underline" %}`) where
/// another branch for another type prints exactly the same: the note cannot tell them apart.
fn drop_ambiguous_types(body: &mut Pat) {
    // Compared without the white space at their ends (`{%- endif -%}` may leave a line break).
    fn collect<'p>(p: &'p Pat, out: &mut Vec<(Pat, &'p str)>) {
        match p {
            Pat::Alt(branches) => {
                for (facts, b) in branches {
                    for f in facts {
                        if let Fact::Is(Field::Type, v) = f {
                            out.push((bare(b), v.as_str()));
                        }
                    }
                    collect(b, out);
                }
            }
            Pat::Seq(items) => items.iter().for_each(|i| collect(i, out)),
            Pat::Repeat(inner) => collect(inner, out),
            Pat::Lit(_) | Pat::Slot(_) | Pat::Loop(_) => {}
        }
    }
    fn strip(p: &mut Pat, ambiguous: &[Pat]) {
        match p {
            Pat::Alt(branches) => {
                for (facts, b) in branches.iter_mut() {
                    if ambiguous.contains(&bare(b)) {
                        facts.retain(|f| !matches!(f, Fact::Is(Field::Type, _)));
                    }
                    strip(b, ambiguous);
                }
            }
            Pat::Seq(items) => items.iter_mut().for_each(|i| strip(i, ambiguous)),
            Pat::Repeat(inner) => strip(inner, ambiguous),
            Pat::Lit(_) | Pat::Slot(_) | Pat::Loop(_) => {}
        }
    }
    let mut typed = Vec::new();
    collect(body, &mut typed);
    let ambiguous: Vec<Pat> = typed
        .iter()
        .filter(|(b, v)| typed.iter().any(|(c, w)| c == b && w != v))
        .map(|(b, _)| b.clone())
        .collect();
    if !ambiguous.is_empty() {
        strip(body, &ambiguous);
    }
}

/// `p` without the parts at its two ends that print only white space, for comparing what two
/// branches print.
fn bare(p: &Pat) -> Pat {
    fn blank(p: &Pat) -> bool {
        match p {
            Pat::Lit(s) => s.trim().is_empty(),
            Pat::Seq(items) => items.iter().all(blank),
            Pat::Alt(branches) => branches.iter().all(|(_, b)| blank(b)),
            Pat::Slot(_) | Pat::Repeat(_) | Pat::Loop(_) => false,
        }
    }
    let items: Vec<Pat> = match p {
        Pat::Seq(items) => items.clone(),
        other => vec![other.clone()],
    };
    let start = items.iter().position(|i| !blank(i)).unwrap_or(items.len());
    let end = items.iter().rposition(|i| !blank(i)).map_or(start, |e| e + 1);
    let mut items: Vec<Pat> = items[start..end.max(start)].to_vec();
    if let Some(Pat::Lit(s)) = items.first_mut() {
        *s = s.trim_start().to_string();
    }
    if let Some(Pat::Lit(s)) = items.last_mut() {
        *s = s.trim_end().to_string();
    }
    Pat::Seq(items)
}

/// Where the image embed after `pos` ends, when `pos` is on a line of two or more embeds and
/// nothing else (`   ![[a.png]]  ![[b.png]]`).
fn embed_end(text: &str, pos: usize) -> Option<usize> {
    let line_start = text[..pos].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[pos..].find('\n').map_or(text.len(), |n| pos + n);
    let line = &text[line_start..line_end];
    let mut ends = Vec::new();
    let mut rest = line.trim_start();
    while let Some(inner) = rest.strip_prefix("![[") {
        let end = inner.find("]]")?;
        // `inner` is the end of `line`.
        ends.push(line_start + line.len() - inner.len() + end + 2);
        rest = inner[end + 2..].trim_start();
    }
    if ends.len() < 2 || !rest.trim().is_empty() {
        return None;
    }
    ends.into_iter().find(|&end| end > pos)
}

/// Whether `line` holds only embeds of images Zotero exported (`  ![[…/image-4-x98-y401.png]]  ![[…]]`):
/// image annotations printed on one line, never the end of the comment above them.
fn is_image_line(line: &str) -> bool {
    let mut rest = line.trim();
    let mut any = false;
    while let Some(inner) = rest.strip_prefix("![[") {
        let Some(end) = inner.find("]]") else { return false };
        let target = inner[..end].split('|').next().unwrap_or_default();
        if crate::annotations::text::image_page(target).is_none() {
            return false;
        }
        any = true;
        rest = inner[end + 2..].trim_start();
    }
    any && rest.is_empty()
}

/// Whether every way into `p` that prints something starts with the comment slot.
fn starts_with_comment(p: &Pat) -> bool {
    match p {
        Pat::Slot(s) => s.field == Field::Comment,
        Pat::Seq(items) => items
            .iter()
            .find(|i| !i.is_empty() && !matches!(i, Pat::Lit(s) if s.trim().is_empty()))
            .is_some_and(starts_with_comment),
        Pat::Alt(branches) => {
            branches.iter().any(|(_, b)| starts_with_comment(b))
                && branches.iter().all(|(_, b)| b.is_empty() || starts_with_comment(b))
        }
        Pat::Lit(_) | Pat::Repeat(_) | Pat::Loop(_) => false,
    }
}

/// Takes the lines above a hit whose body starts with the comment, back to `gap_start` (the last
/// iteration's end), into that comment: a comment of several lines or paragraphs prints its
/// first lines above the one that holds the text. Lines the template prints around the loop
/// (`%%` markers, a bold-only `**Imported: …**` line, `---`) end the gap.
fn extend_back(hit: &mut Hit, text: &str, gap_start: usize) {
    let gap = &text[gap_start..hit.start];
    let mut start = hit.start;
    let mut taken = hit.start;
    for line in gap.split_inclusive('\n').rev() {
        let t = line.trim();
        let bold_only =
            t.len() > 4 && t.starts_with("**") && t.ends_with("**") && !t[2..t.len() - 2].contains("**");
        // Hashtags under the last iteration are its tags.
        let tags_only = !t.is_empty() && is_tag_line(t);
        if t.starts_with("%%") || t == "---" || bold_only || tags_only || t.starts_with("```") {
            break;
        }
        start -= line.len();
        if !t.is_empty() {
            taken = start;
        }
    }
    if taken == hit.start {
        return;
    }
    let above = text[taken..hit.start].trim_end().to_string();
    match hit.captures.iter_mut().find(|c| c.field == Field::Comment) {
        Some(c) if text[hit.start..c.span.0].trim().is_empty() => {
            c.value = if c.value.is_empty() { above } else { format!("{above}\n{}", c.value) };
            c.span.0 = taken;
        }
        Some(_) => return,
        None => hit.captures.push(Capture {
            field: Field::Comment,
            value: above,
            span: (taken, hit.start),
            partial: false,
            gap: Gap::NONE,
            prefixed_lines: false,
        }),
    }
    hit.start = taken;
}

fn capture(slot: &Slot, prefix: Option<&str>, m: regex::Match<'_>, offset: usize, gap: Gap) -> Capture {
    let mut value = m.as_str().to_string();
    let mut partial = false;
    for t in slot.transforms.iter().rev() {
        match t {
            Transform::Nl2br => value = undo_nl2br(&value),
            Transform::Replace(from, to) if !to.is_empty() && from != to => {
                value = value.replace(to.as_str(), from)
            }
            Transform::Replace(..) | Transform::Partial => partial = true,
            Transform::Case => {}
            // Nunjucks' `escape` filter: its entities decoded.
            Transform::Escape => value = crate::annotations::zotero_html::entities(&value).into_owned(),
        }
    }
    if let Some(prefix) = prefix.map(str::trim).filter(|p| !p.is_empty()) {
        value = strip_continuation(&value, prefix);
    }
    let span = (offset + m.start(), offset + m.end());
    let gap = if slot.field == Field::Comment { gap } else { Gap::NONE };
    let prefixed_lines = slot.transforms.iter().any(
        |t| matches!(t, Transform::Replace(from, to) if from == "\n" && to.len() > 1 && to.starts_with('\n')),
    );
    Capture { field: slot.field, value: value.trim().to_string(), span, partial, gap, prefixed_lines }
}

fn undo_nl2br(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<br") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let close = after.find('>').map_or(after.len(), |c| c + 1);
        out.push('\n');
        rest = after[close..]
            .strip_prefix("\r\n")
            .or_else(|| after[close..].strip_prefix('\n'))
            .unwrap_or(&after[close..]);
    }
    out.push_str(rest);
    out
}

/// Removes the quote prefix (`>`) the template put before the slot from its following lines too.
fn strip_continuation(value: &str, prefix: &str) -> String {
    if !value.contains('\n') {
        return value.to_string();
    }
    let marker = prefix.trim_end();
    value
        .split('\n')
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                return line;
            }
            let t = line.trim_start();
            match t.strip_prefix(marker) {
                Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
                None => line,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The body without the whitespace at its two ends, into its first and last branches too (an
/// iteration starts at a line's start and ends wherever the next one starts).
fn trim(body: &Pat) -> Pat {
    trim_side(&trim_side(body, true, false), false, false)
}

/// `p` without the white space it starts (`start`) or ends with: removed, or made optional when
/// `soft` (a part beyond one that may print nothing: when both print, the space separates them).
fn trim_side(p: &Pat, start: bool, soft: bool) -> Pat {
    match p {
        Pat::Lit(s) => {
            let core = if start { s.trim_start() } else { s.trim_end() };
            let edge = if start { &s[..s.len() - core.len()] } else { &s[core.len()..] };
            if !soft || edge.is_empty() {
                Pat::Lit(core.to_string())
            } else if core.is_empty() {
                optional(edge)
            } else if start {
                Pat::seq([optional(edge), Pat::Lit(core.to_string())])
            } else {
                Pat::seq([Pat::Lit(core.to_string()), optional(edge)])
            }
        }
        Pat::Alt(branches) => {
            Pat::Alt(branches.iter().map(|(f, b)| (f.clone(), trim_side(b, start, soft))).collect())
        }
        Pat::Seq(items) => {
            let mut items = items.clone();
            let order: Vec<usize> =
                if start { (0..items.len()).collect() } else { (0..items.len()).rev().collect() };
            let mut soft = soft;
            for i in order {
                items[i] = trim_side(&items[i], start, soft);
                // Go on past what may print nothing: the next part may then come first.
                let vanished = matches!(&items[i], Pat::Lit(s) if s.is_empty())
                    || matches!(&items[i], Pat::Lit(s) if s.trim().is_empty()) && soft;
                if alt_has_empty(&items[i]) {
                    soft = true;
                } else if !vanished {
                    break;
                }
            }
            Pat::seq(items)
        }
        // `{% for t in annotation.tags %}- #{{t.tag}}\n{% endfor %}` ending the body: the last
        // time round ends without its line break (the match ends at the end of a line), so the
        // loop is read as `(?:(X\n)* X)?`; it may print nothing, so the part before it is
        // trimmed softly.
        Pat::Repeat(inner) if !start => {
            let last = trim_side(inner, false, false);
            if last == **inner {
                return p.clone();
            }
            Pat::Alt(vec![(Vec::new(), Pat::seq([p.clone(), last])), (Vec::new(), Pat::empty())])
        }
        other => other.clone(),
    }
}

/// White space that may or may not be there.
fn optional(ws: &str) -> Pat {
    Pat::Alt(vec![(Vec::new(), Pat::Lit(ws.to_string())), (Vec::new(), Pat::empty())])
}

fn alt_has_empty(p: &Pat) -> bool {
    matches!(p, Pat::Alt(branches) if branches.iter().any(|(_, b)| b.is_empty()))
}

/// Whether `p` prints something other than whitespace whatever its branches.
fn contentful(p: &Pat) -> bool {
    match p {
        Pat::Lit(s) => !s.trim().is_empty(),
        Pat::Slot(_) => true,
        Pat::Seq(items) => items.iter().any(contentful),
        Pat::Alt(branches) => branches.iter().all(|(_, b)| contentful(b)),
        Pat::Repeat(_) | Pat::Loop(_) => false,
    }
}

/// Whether `p` always prints some constant text besides whitespace, or a narrow field.
fn has_constant(p: &Pat) -> bool {
    match p {
        Pat::Lit(s) => !s.trim().is_empty(),
        Pat::Slot(s) => !s.field.is_free_text() && s.field != Field::Other,
        Pat::Seq(items) => items.iter().any(has_constant),
        Pat::Alt(branches) => branches.iter().all(|(_, b)| has_constant(b)),
        Pat::Repeat(_) | Pat::Loop(_) => false,
    }
}

/// `p` restricted to the branches that always print constant text; `None` if none does.
fn with_constant(p: &Pat) -> Option<Pat> {
    match p {
        Pat::Alt(branches) => {
            let kept: Vec<(Vec<Fact>, Pat)> =
                branches.iter().filter_map(|(f, b)| with_constant(b).map(|b| (f.clone(), b))).collect();
            (!kept.is_empty()).then_some(Pat::Alt(kept))
        }
        Pat::Seq(items) if !has_constant(p) => {
            // One part that may print constant text makes the sequence do so when it does.
            let i =
                items.iter().position(|item| matches!(item, Pat::Alt(_)) && with_constant(item).is_some())?;
            let mut items = items.clone();
            items[i] = with_constant(&items[i])?;
            Some(Pat::Seq(items))
        }
        _ => has_constant(p).then(|| p.clone()),
    }
}

/// `p` restricted to what prints at least one field or constant text; `None` if it never does.
fn non_empty(p: &Pat) -> Option<Pat> {
    match p {
        Pat::Lit(s) => (!s.trim().is_empty()).then(|| p.clone()),
        Pat::Slot(_) => Some(p.clone()),
        Pat::Repeat(inner) => non_empty(inner).map(|i| Pat::seq([i, p.clone()])),
        Pat::Loop(_) => None,
        Pat::Alt(branches) => {
            let kept: Vec<(Vec<Fact>, Pat)> =
                branches.iter().filter_map(|(f, b)| non_empty(b).map(|b| (f.clone(), b))).collect();
            (!kept.is_empty()).then_some(Pat::Alt(kept))
        }
        Pat::Seq(items) => {
            if items.iter().any(contentful) {
                return Some(p.clone());
            }
            // Each way to print something: the first part that does, and everything after it
            // (the parts before it print nothing).
            let mut ways = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if let Some(first) = non_empty(item) {
                    let rest = items[i + 1..].iter().cloned();
                    let way = Pat::seq(std::iter::once(first.clone()).chain(rest));
                    // Free text alone (a comment printed with nothing around it) would match any
                    // line: such a comment is found as the lines after the annotation before it.
                    if has_constant(&way) {
                        ways.push((Vec::new(), way));
                    } else if let Some(first) = with_constant(&first) {
                        // Branches of it that do print constant text (`# {{text}}` beside a bare
                        // `{{text}}`) are kept.
                        let way = Pat::seq(std::iter::once(first).chain(items[i + 1..].iter().cloned()));
                        ways.push((Vec::new(), way));
                    }
                }
            }
            match ways.len() {
                0 => None,
                1 => ways.pop().map(|(_, p)| p),
                _ => Some(Pat::Alt(ways)),
            }
        }
    }
}

/// Whether the last thing the body prints (through its branches) is free text.
/// Whether every way through `p` ends with the template's constant text (not blank).
fn ends_in_constant(p: &Pat) -> bool {
    match p {
        Pat::Lit(s) => !s.trim().is_empty(),
        Pat::Seq(items) => items
            .iter()
            .rev()
            .find(|i| !i.is_empty() && !matches!(i, Pat::Lit(s) if s.trim().is_empty()))
            .is_some_and(ends_in_constant),
        Pat::Alt(branches) => {
            !branches.is_empty() && branches.iter().all(|(_, b)| !b.is_empty() && ends_in_constant(b))
        }
        Pat::Slot(_) | Pat::Repeat(_) | Pat::Loop(_) => false,
    }
}

fn ends_in_free_text(p: &Pat) -> bool {
    match p {
        Pat::Slot(s) => s.field.is_free_text(),
        Pat::Seq(items) => {
            for item in items.iter().rev() {
                if item.is_empty() {
                    continue;
                }
                if let Pat::Lit(s) = item
                    && s.trim().is_empty()
                {
                    continue;
                }
                if ends_in_free_text(item) {
                    return true;
                }
                if let Pat::Alt(branches) = item
                    && branches.iter().any(|(_, b)| b.is_empty())
                {
                    continue;
                }
                return false;
            }
            false
        }
        Pat::Alt(branches) => branches.iter().any(|(_, b)| ends_in_free_text(b)),
        Pat::Repeat(_) | Pat::Lit(_) | Pat::Loop(_) => false,
    }
}

impl Builder {
    fn group(&mut self, meaning: Group, inner: &str) {
        let index = self.groups.len();
        self.groups.push(Some(meaning));
        self.out.push_str(&format!("(?P<g{index}>{inner})"));
    }

    /// Emits `p`; `leading` is true while nothing but whitespace has been matched.
    fn pat(&mut self, p: &Pat, leading: bool) -> bool {
        match p {
            Pat::Lit(s) => {
                self.lit(s);
                leading && s.trim().is_empty()
            }
            Pat::Slot(slot) => {
                // `# {{annotatedText}}`: a Markdown heading is one line, and its level is exact
                // (the `#` of `### Notes` is no level-one heading's).
                let heading = self.line_prefix.as_deref().is_some_and(|p| {
                    let p = p.trim();
                    (1..=6).contains(&p.len()) && p.bytes().all(|b| b == b'#')
                });
                let class = if heading && matches!(slot.field, Field::Text | Field::Comment) {
                    r"[^#\s][^\n]*?".to_string()
                } else {
                    class_of(slot, leading)
                };
                // A field its branch's condition says is set prints something: the branch does
                // not match where it would be empty (an empty text line would let the lines of
                // the next field be read as another one's). Not a field the body starts or ends
                // with: there an empty match is how the expression reads the branch's absence
                // (and the lines after the match are given to the last field).
                // A text or comment never starts with a callout's header or an embed
                // ([`FREE_START`]).
                let free = matches!(slot.field, Field::Text | Field::Comment) && !heading;
                let marks =
                    self.not_first.iter().find(|(f, _)| *f == slot.field).map_or("", |(_, m)| m.as_str());
                let start = free_start(marks);
                let class = match slot.field {
                    _ if leading || !self.followed || !self.set.contains(&slot.field) => {
                        if free {
                            format!("(?:{start}(?:{class}))??")
                        } else {
                            class
                        }
                    }
                    _ if free => format!(r"{start}(?:{class})"),
                    Field::Image => format!(r"[^\s\]\)|](?:{class})"),
                    _ => class,
                };
                let prefix = self.line_prefix.clone().filter(|p| p.trim_start().starts_with('>'));
                let gap = Gap { breaks: self.line_gap.unwrap_or(self.run), alone: self.line_gap.is_none() };
                self.content();
                self.group(Group::Slot(slot.clone(), prefix, gap), &class);
                self.line_prefix = None;
                false
            }
            Pat::Seq(items) => {
                let mut leading = leading;
                let followed = self.followed;
                for (i, item) in items.iter().enumerate() {
                    self.followed = followed || items[i + 1..].iter().any(|p| constant_len(p) > 0);
                    leading = self.pat(item, leading);
                }
                self.followed = followed;
                leading
            }
            Pat::Alt(branches) => {
                self.out.push_str("(?:");
                let before = self.line_prefix.clone();
                let mut after_prefix = None;
                let mut still_leading = false;
                let (run, line_gap) = (self.run, self.line_gap);
                let (mut most_run, mut most_gap) = (0, Some(0));
                let ordered = by_specificity(branches);
                let firm = ordered.iter().any(|(_, b)| anchoring(b) == 0);
                let kept: Vec<_> = ordered
                    .into_iter()
                    .filter(|(_, b)| !(self.strict && firm && anchoring(b) == 2))
                    .collect();
                for (i, (facts, body)) in kept.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push('|');
                    }
                    self.line_prefix = before.clone();
                    (self.run, self.line_gap) = (run, line_gap);
                    let pending = self.pending.len();
                    self.pending.push(self.groups.len());
                    self.group(Group::Branch(facts.clone(), UNBOUNDED), "");
                    let depth = self.set.len();
                    self.set.extend(facts.iter().filter_map(|f| match f {
                        Fact::Has(field) => Some(*field),
                        _ => None,
                    }));
                    still_leading |= self.pat(body, leading);
                    self.set.truncate(depth);
                    self.pending.truncate(pending);
                    most_run = most_run.max(self.run);
                    most_gap = most_gap.zip(self.line_gap).map(|(a, b)| a.max(b));
                    if i == 0 {
                        after_prefix = self.line_prefix.clone();
                    } else if after_prefix != self.line_prefix {
                        after_prefix = None;
                    }
                }
                self.out.push(')');
                self.line_prefix = after_prefix;
                (self.run, self.line_gap) = (most_run, most_gap);
                still_leading
            }
            Pat::Repeat(inner) => {
                self.out.push_str("(?:");
                self.line_prefix = None;
                self.pat(inner, false);
                self.out.push_str(")*");
                self.line_prefix = None;
                (self.run, self.line_gap) = (UNBOUNDED, None);
                leading
            }
            Pat::Loop(_) => leading,
        }
    }

    fn lit(&mut self, s: &str) {
        let mut chars = s.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if c.is_whitespace() {
                let mut breaks = usize::from(c == '\n');
                while let Some(&(_, n)) = chars.peek() {
                    if !n.is_whitespace() {
                        break;
                    }
                    breaks += usize::from(n == '\n');
                    chars.next();
                }
                if breaks > 0 {
                    self.out.push_str("[ \\t]*\\r?\\n\\s*?");
                    self.line_prefix = Some(String::new());
                    self.run = self.run.saturating_add(breaks);
                    self.line_gap = None;
                } else {
                    // The space after a list marker (`- text`) is Markdown's, there unless the
                    // line ends: `---` is no list item. A marker is what the line holds so far,
                    // or, where that is not known, what this text starts with.
                    let line = self.line_prefix.as_deref().unwrap_or(&s[..at]);
                    let marker = matches!(line.trim_start_matches(['>', ' ', '\t']), "-" | "*" | "+");
                    self.out.push_str(if marker { "(?:[ \\t]+|[ \\t]*$)" } else { "[ \\t]*" });
                    if let Some(p) = self.line_prefix.as_mut() {
                        p.push(' ');
                    }
                }
            } else {
                let mut buf = [0u8; 4];
                self.out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
                if let Some(p) = self.line_prefix.as_mut() {
                    p.push(c);
                }
                self.content();
            }
        }
    }

    /// Content printed: the line's first sets its gap, and the run of line breaks starts over.
    fn content(&mut self) {
        self.line_gap.get_or_insert(self.run);
        for i in self.pending.drain(..) {
            if let Some(Some(Group::Branch(_, gap))) = self.groups.get_mut(i) {
                *gap = self.run;
            }
        }
        self.run = 0;
    }
}

/// A comment branch (`{% if a.comment %}`) that the match took from after more line breaks than
/// the template prints before it (see [`comment_apart`]); `branch`: where the branch starts.
fn branch_apart(hay: &str, start: usize, branch: usize, gap: usize) -> Option<usize> {
    let first = branch + hay[branch..].len() - hay[branch..].trim_start().len();
    further_than(hay, start, first, gap)
}

/// Where to cut a match (the start of the line after the content before `first`) when more than
/// `gap` line breaks stand between that content and `first`, and that content is the match's
/// own (after `start`). `None` when the template does not bound the gap.
fn further_than(hay: &str, start: usize, first: usize, gap: usize) -> Option<usize> {
    if gap == UNBOUNDED || first >= hay.len() {
        return None;
    }
    let before = hay[..first].trim_end().len();
    let breaks = memchr::memchr_iter(b'\n', &hay.as_bytes()[before..first]).count();
    if before <= start || breaks <= gap {
        return None;
    }
    memchr::memchr(b'\n', &hay.as_bytes()[before..]).map(|nl| before + nl + 1)
}

/// A comment of an `if` branch that the match took from after more line breaks than the
/// template prints between the iteration's content before it and it: an annotation of its own
/// (a sticky note after an annotation with no comment), which the loose white space of the
/// expression let the comment branch take. The cut: the start of the line after that content.
/// A comment after a template that does not bound the gap, or with nothing of the match before
/// it, stays.
fn comment_apart(hay: &str, start: usize, m: regex::Match<'_>, field: Field, gap: Gap) -> Option<usize> {
    if field != Field::Comment || m.start() == m.end() {
        return None;
    }
    let line = hay[..m.start()].rfind('\n').map_or(0, |nl| nl + 1);
    further_than(hay, start, line, gap.breaks)
}

/// How firmly a pattern is anchored at its start: constant text first (0), a slot of a narrow
/// field (1), free text (2), nothing at all (3).
fn anchoring(p: &Pat) -> u8 {
    match p {
        Pat::Lit(s) if !s.trim().is_empty() => 0,
        Pat::Slot(s) if s.field.is_free_text() || s.field == Field::Other => 2,
        Pat::Slot(_) => 1,
        Pat::Seq(items) => items
            .iter()
            .find(|i| !i.is_empty() && !matches!(i, Pat::Lit(s) if s.trim().is_empty()))
            .map_or(3, anchoring),
        Pat::Alt(branches) => branches.iter().map(|(_, b)| anchoring(b)).max().unwrap_or(3),
        Pat::Repeat(_) | Pat::Loop(_) | Pat::Lit(_) => 3,
    }
}

/// Branches in the order the expression should try them: where two match at one place, the one
/// held by the template's constant text is the right reading (a branch starting with free text
/// would take that text into its field). The template's order breaks ties.
pub(super) fn by_specificity<T>(branches: &[(T, Pat)]) -> Vec<&(T, Pat)> {
    let mut ordered: Vec<&(T, Pat)> = branches.iter().collect();
    // Then the one that always prints more of the template's own text: `{{symbol}}{{text}}
    // [(p. 3)](…)` before `{{symbol}}{{text}}`, which would take the page link into the text.
    // A branch that prints only values the annotation's fields do not give (`{% if a.ocrText %}>
    // {{a.ocrText}}`) comes after the others, even the empty one: where it could take the
    // comment's line, the comment's own branch is the reading.
    ordered.sort_by_key(|(_, p)| (only_unknown(p), anchoring(p), std::cmp::Reverse(constant_len(p))));
    ordered
}

/// Whether every field `p` prints is one the annotation does not give (and it prints one). The
/// loop that ends a body (`{% for t in annotation.tags %}- #{{t.tag}}\n{% endfor %}`, read as
/// `(X\n)* X` by [`trim_side`]) prints the annotation's own list: it is tried before nothing.
fn only_unknown(p: &Pat) -> bool {
    if matches!(p, Pat::Seq(items) if matches!(items.first(), Some(Pat::Repeat(_)))) {
        return false;
    }
    let (mut unknown, mut known) = (false, false);
    p.visit_slots(&mut |slot| {
        if slot.field == Field::Other {
            unknown = true;
        } else {
            known = true;
        }
    });
    unknown && !known
}

/// How many characters other than white space `p` prints whatever its branches.
fn constant_len(p: &Pat) -> usize {
    match p {
        Pat::Lit(s) => s.chars().filter(|c| !c.is_whitespace()).count(),
        Pat::Seq(items) => items.iter().map(constant_len).sum(),
        Pat::Alt(branches) => branches.iter().map(|(_, b)| constant_len(b)).min().unwrap_or(0),
        Pat::Slot(_) | Pat::Repeat(_) | Pat::Loop(_) => 0,
    }
}

/// The first character of a text or comment: no space, not the start of a callout header
/// (`[!note]`, the template's own line of another branch) or of an embed (`![[image.png]]`, an
/// image annotation's line), and none of `marks`.
fn free_start(marks: &str) -> String {
    let marks: String = marks.chars().map(|c| regex::escape(c.encode_utf8(&mut [0u8; 4]))).collect();
    format!(r"(?:[^\[\s!{marks}]|\[[^!\s]|![^\[\s])")
}

/// Where the template prints the text and the comment on lines that start alike, the comment's
/// line with a mark of its own (`> {{text}}`, `> – {{comment}}`): the text never starts with that
/// mark (a sticky note's `> – words` is no text), and the other way round. Only marks that are
/// punctuation or symbols: a word could start either.
fn lead_marks(body: &Pat) -> Vec<(Field, String)> {
    let prefixes: Vec<(Field, String)> =
        body.line_prefixes().into_iter().filter(|(f, _)| f.is_free_text()).collect();
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: Vec<(Field, String)> = Vec::new();
    for (field, own) in &prefixes {
        let own = squeeze(own);
        for (other, theirs) in &prefixes {
            if other == field {
                continue;
            }
            let theirs = squeeze(theirs);
            let Some(extra) = theirs.strip_prefix(own.as_str()) else { continue };
            let Some(mark) = extra.trim_start().chars().next() else { continue };
            if mark.is_alphanumeric()
                || mark == '['
                || mark == '!'
                || prefixes.iter().any(|(f, p)| f == field && squeeze(p) == theirs)
            {
                continue;
            }
            match out.iter_mut().find(|(f, _)| f == field) {
                Some((_, marks)) if !marks.contains(mark) => marks.push(mark),
                Some(_) => {}
                None => out.push((*field, mark.to_string())),
            }
        }
    }
    out
}

/// The characters a slot may match.
fn class_of(slot: &Slot, leading: bool) -> String {
    let nl2br = slot.transforms.contains(&Transform::Nl2br);
    match slot.field {
        // `nl2br`: a line break is `<br />` and a new line; a `<br` is only ever that (the value
        // does not end at a line that ends with one).
        Field::Text | Field::Comment if nl2br => r"(?:[^\n<]|<(?:[^b\n]|b[^r\n]|$)|<br ?/?>\r?\n)*?".into(),
        Field::Text | Field::Comment if leading => r"[^\n]*?".into(),
        Field::Text | Field::Comment => r"(?s:.*?)".into(),
        Field::Color => r"(?:#?[0-9a-fA-F]{3,8})?".into(),
        Field::ColorCategory | Field::Type => r"[A-Za-z]*".into(),
        Field::Page | Field::PageLabel => r"[^\s\]\)|&]*?".into(),
        Field::Link => r#"(?:zotero://[^\s\)\]>"]*)?"#.into(),
        Field::Image => r"[^\]\)|\n]*?".into(),
        Field::Id => r"[A-Za-z0-9]*".into(),
        // `#tag #other`, `#tag, #other`: whole `#` words (unless the template takes the `#` out).
        Field::HashTags
            if !slot.transforms.iter().any(|t| matches!(t, Transform::Replace(..) | Transform::Partial)) =>
        {
            r"(?:#[^\s#,]+(?:[ \t]*,?[ \t]*#[^\s#,]+)*)?".into()
        }
        Field::Date
        | Field::Tags
        | Field::HashTags
        | Field::Other
        | Field::MetaTitle
        | Field::MetaAuthors
        | Field::MetaYear
        | Field::MetaCitekey => r"[^\n]*?".into(),
    }
}
