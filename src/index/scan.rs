//! A search answered without the index, for while it is first built. Every note under the folder
//! is read, on every core; a [`Sieve`] (a case-insensitive literal test, and the words written
//! with letters outside ASCII folded) leaves out the notes that hold none of the query's words,
//! which are only counted ([`LeftOut`]: how many, how many words); the others are tokenized for
//! the query's words alone ([`Encoded::only`]: no parse, a vocabulary of a few words). When the
//! query filters by tag, a note whose body may hold one of its tags (`#ml`, maybe in code) needs
//! its parse to tell: only the notes the query's words find are parsed, read again once the
//! others are counted. So every note scores as in an index of all the notes read, for a fraction
//! of its cost; the best notes are parsed at the end for the graph.

use std::sync::atomic::{AtomicUsize, Ordering};

use regex::bytes::{Regex, RegexBuilder};

use super::graph::{Attachment, Graph, GraphNote, aliases};
use super::query::Query;
use super::text::{Encoded, LeftOut, TextBuilder, Vocab};
use super::tokenize::{fold_into, tokens, wildcard_match};
use super::vault_index::{Scope, VaultIndex, title_text, title_words};
use crate::cores;
use crate::note::frontmatter::{Frontmatter, body_start};
use crate::vault::{FileMeta, Vault, VaultError, VaultPath};

/// Notes a thread of the scan takes at a time.
const BATCH: usize = 32;

/// Which notes can hold a word of a query: never says no of a note that does.
#[derive(Debug)]
pub struct Sieve {
    /// The ASCII words, each as its longest run without `*`, any case: a word written in ASCII
    /// holds it.
    ascii: Option<Regex>,
    /// Every word of the query, folded (wildcards kept): compared with the folded form of each
    /// word of a note written with a letter outside ASCII (which may fold to an ASCII word).
    words: Vec<String>,
}

impl Sieve {
    /// The sieve of the words and phrases `query` requires; `None` when they cannot narrow the
    /// notes (no word, or a bare `*`): every note must then be read.
    pub fn new(query: &Query) -> Option<Self> {
        let words: Vec<String> = query.must.iter().flat_map(|c| c.words()).cloned().collect();
        if words.is_empty() {
            return None;
        }
        let mut needles = Vec::new();
        for word in words.iter().filter(|w| w.is_ascii()) {
            // A word that folds to something outside ASCII is written outside ASCII: only the
            // folded comparison can find it.
            let piece = word.split('*').max_by_key(|p| p.len()).unwrap_or_default();
            if piece.is_empty() {
                return None;
            }
            needles.push(regex::escape(piece));
        }
        let ascii = if needles.is_empty() {
            None
        } else {
            let pattern = needles.join("|");
            Some(RegexBuilder::new(&pattern).case_insensitive(true).unicode(false).build().ok()?)
        };
        Some(Self { ascii, words })
    }

    /// Whether the note at `path` whose text is `text` may hold a word of the query, in its
    /// text or among its title words (name, aliases, title, citekey).
    pub fn keeps(&self, path: &VaultPath, text: &str) -> bool {
        let folds = &mut Folds::default();
        self.in_text(text, folds) || self.in_titles(path, text, folds)
    }

    fn in_text(&self, text: &str, folds: &mut Folds) -> bool {
        self.ascii.as_ref().is_some_and(|re| re.is_match(text.as_bytes()))
            || (!text.is_ascii() && self.folded_words(text, folds, |_| ()))
    }

    /// Whether a title word of the note may hold a word of the query (the frontmatter read
    /// only when the note has one: a YAML value may print otherwise than it is written).
    fn in_titles(&self, path: &VaultPath, text: &str, folds: &mut Folds) -> bool {
        self.in_text(&titles_of(path, text), folds)
    }

    /// Whether a word of `text` written with a letter outside ASCII folds to a word of the
    /// query; `count` is told of every word of the text on the way (all of them when none does).
    fn folded_words(&self, text: &str, folds: &mut Folds, mut count: impl FnMut(u32)) -> bool {
        for token in tokens(text) {
            count(1);
            if !token.raw.is_ascii() && folds.matches(token.raw, &self.words) {
                return true;
            }
        }
        false
    }

    /// How many words `text` holds (as the index counts them), or `None` when one of them may
    /// be a word of the query.
    fn words_unless_kept(&self, path: &VaultPath, text: &str, folds: &mut Folds) -> Option<u32> {
        if self.ascii.as_ref().is_some_and(|re| re.is_match(text.as_bytes())) {
            return None;
        }
        let words = if text.is_ascii() {
            ascii_words(text.as_bytes())
        } else {
            let mut words = 0;
            if self.folded_words(text, folds, |n| words += n) {
                return None;
            }
            words
        };
        (!self.in_titles(path, text, folds)).then_some(words)
    }
}

/// Words written outside ASCII, each with whether its folded form is one of some words (those
/// of one query): folding (Unicode decomposition) costs far more than looking a word up again.
#[derive(Debug, Default)]
struct Folds {
    known: foldhash::HashMap<Box<str>, bool>,
    scratch: String,
}

impl Folds {
    /// At most this many words are remembered.
    const MAX: usize = 1 << 16;

    /// Whether `raw`, folded, is one of `words` (or matches one of their wildcards).
    fn matches(&mut self, raw: &str, words: &[String]) -> bool {
        if let Some(&known) = self.known.get(raw) {
            return known;
        }
        fold_into(raw, &mut self.scratch);
        let found = words.iter().any(|w| wildcard_match(w, &self.scratch));
        if self.known.len() < Self::MAX {
            self.known.insert(raw.into(), found);
        }
        found
    }
}

/// How many words an ASCII text holds: runs of letters and digits (what [`tokens`] finds in it).
fn ascii_words(bytes: &[u8]) -> u32 {
    let word = |b: u8| b.is_ascii_alphanumeric();
    let starts = bytes.windows(2).filter(|w| word(w[1]) && !word(w[0])).count();
    (starts + usize::from(bytes.first().is_some_and(|&b| word(b)))) as u32
}

/// An index for answering `query` in `scope`: every note under the scope's folder read (on
/// every core); those that hold none of the query's words only counted (see [`Sieve`]); the
/// others tokenized keeping only the query's words (and their tags parsed when the query filters
/// by tag). Its search for `query` finds the notes, and scores them, as an index of the folder
/// would; its graph holds only the best `first` notes of that search.
pub fn search_index(
    vault: &dyn Vault,
    scope: &Scope,
    query: &Query,
    first: usize,
) -> Result<VaultIndex, VaultError> {
    let folder = &scope.folder;
    let files = vault.list(folder)?;
    let (notes, others): (Vec<FileMeta>, Vec<FileMeta>) =
        files.into_iter().partition(|f| f.path.is_markdown());
    let reader = Reader::new(query);
    let next = AtomicUsize::new(0);
    let workers: Vec<usize> = (0..cores::cores().min(notes.len().div_ceil(BATCH)).max(1)).collect();
    let parts = cores::map(&workers, 1, |_| reader.read_part(vault, &notes, &next));
    let mut text = TextBuilder::new();
    let mut left_out = LeftOut::default();
    let mut untagged = Vec::new();
    let workers = parts.len();
    for (worker, part) in parts.into_iter().enumerate() {
        text.adopt(worker, part.vocab.words_from(0));
        for doc in part.docs {
            text.push(worker, doc);
        }
        left_out.notes += part.left_out.notes;
        left_out.words += part.left_out.words;
        untagged.extend(part.untagged);
    }
    // The notes read without their tags: those the query's words find are read again, with them.
    if !untagged.is_empty() {
        let found: foldhash::HashSet<VaultPath> = text.index().matching_any(query).into_iter().collect();
        let again: Vec<&FileMeta> = untagged.iter().filter(|m| found.contains(&m.path)).collect();
        let runs: Vec<&[&FileMeta]> = again.chunks(BATCH).collect();
        let read = cores::map(&runs, 4, |run| {
            let mut vocab = Vocab::new();
            let (mut wanted, mut docs) = (Folds::default(), Vec::new());
            for meta in run.iter() {
                let read = vault.read(&meta.path);
                if matches!(read, Err(VaultError::NotFound { .. })) {
                    continue;
                }
                docs.push(reader.encode(&mut vocab, meta, &read, &mut wanted, true).0);
            }
            (vocab, docs)
        });
        for (i, (vocab, docs)) in read.into_iter().enumerate() {
            text.adopt(workers + i, vocab.words_from(0));
            for doc in docs {
                text.push(workers + i, doc);
            }
        }
    }
    let mut text = text.finish();
    text.count_left_out(left_out);
    let mut index = VaultIndex::from_parts(text, Graph::default(), folder);
    // The graph of the notes the answer shows (their titles, tags, …).
    let best: Vec<GraphNote> = index
        .search(query, scope, 0, first)
        .hits
        .iter()
        .filter_map(|hit| {
            let meta = notes.iter().find(|m| m.path == hit.path)?;
            Some(match vault.read(&hit.path) {
                Ok(text) => GraphNote::parse(meta, &text),
                Err(err) => GraphNote::unreadable(meta, &err),
            })
        })
        .collect();
    index.set_graph(Graph::from_parts(best, others.iter().map(Attachment::of).collect()));
    Ok(index)
}

/// How [`search_index`] reads a note for a query.
struct Reader {
    /// Which notes hold none of the query's words (`None`: the words cannot tell).
    sieve: Option<Sieve>,
    /// The words of the query, required or excluded, folded (wildcards kept).
    words: Vec<String>,
    /// Those of them written in ASCII without wildcard: most words of a note are compared
    /// with these alone, without folding.
    plain: Vec<String>,
    /// Whether a word of the query holds a wildcard.
    patterns: bool,
    /// The tags the query filters by, any case, as the frontmatter and the body (`#tag`) write
    /// them: a note holding none of them carries none.
    tags: Option<(Regex, Regex)>,
}

/// What one thread of [`search_index`] read.
struct Part {
    vocab: Vocab,
    docs: Vec<Encoded>,
    left_out: LeftOut,
    /// The notes read without their tags (see [`Reader::encode`]).
    untagged: Vec<FileMeta>,
}

impl Reader {
    fn new(query: &Query) -> Self {
        let clauses = query.must.iter().chain(&query.not);
        let words: Vec<String> = clauses.flat_map(|c| c.words()).cloned().collect();
        let tags: Vec<String> = query.tags.iter().chain(&query.not_tags).map(|t| regex::escape(t)).collect();
        // Unicode case folding: a tag's letters may be written in any case, even outside ASCII.
        // (A pattern too large to build matches every note: each is then parsed for its tags.)
        let any_case = |pattern: &str| {
            RegexBuilder::new(pattern).case_insensitive(true).build().or_else(|_| Regex::new("")).ok()
        };
        let tags = if tags.is_empty() {
            None
        } else {
            any_case(&tags.join("|")).zip(any_case(&format!("#(?:{})", tags.join("|"))))
        };
        let plain = words.iter().filter(|w| w.is_ascii() && !w.contains('*')).cloned().collect();
        let patterns = words.iter().any(|w| w.contains('*'));
        Self { sieve: Sieve::new(query), words, plain, patterns, tags }
    }

    /// Whether the word `raw` (as written) is one the query asks about.
    fn wants(&self, raw: &str, folds: &mut Folds) -> bool {
        if raw.is_ascii() {
            // Folded, an ASCII word is the word in lowercase.
            if self.plain.iter().any(|w| w.len() == raw.len() && raw.eq_ignore_ascii_case(w)) {
                return true;
            }
            if !self.patterns {
                return false;
            }
        }
        folds.matches(raw, &self.words)
    }

    /// One thread: takes batches of `notes` until none is left.
    fn read_part(&self, vault: &dyn Vault, notes: &[FileMeta], next: &AtomicUsize) -> Part {
        let mut part = Part {
            vocab: Vocab::new(),
            docs: Vec::new(),
            left_out: LeftOut::default(),
            untagged: Vec::new(),
        };
        // The sieve's words and the query's (with the excluded ones) are looked up apart.
        let (mut sieved, mut wanted) = (Folds::default(), Folds::default());
        loop {
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            let Some(batch) = notes.get(start..(start + BATCH).min(notes.len())) else { break };
            for meta in batch {
                let read = vault.read(&meta.path);
                if matches!(read, Err(VaultError::NotFound { .. })) {
                    continue;
                }
                let text = read.as_deref().unwrap_or("");
                if let Some(words) =
                    self.sieve.as_ref().and_then(|s| s.words_unless_kept(&meta.path, text, &mut sieved))
                {
                    part.left_out.notes += 1;
                    part.left_out.words += u64::from(words);
                    continue;
                }
                let (doc, tagged) = self.encode(&mut part.vocab, meta, &read, &mut wanted, false);
                if !tagged {
                    part.untagged.push(meta.clone());
                }
                part.docs.push(doc);
            }
        }
        part
    }

    /// A note read for the query: its text's words the query asks about, its title words, and
    /// its tags when the query filters by tag; and whether its tags are in it (see
    /// [`Reader::titles_and_tags`]).
    fn encode(
        &self,
        vocab: &mut Vocab,
        meta: &FileMeta,
        read: &Result<String, VaultError>,
        wanted: &mut Folds,
        parse: bool,
    ) -> (Encoded, bool) {
        let text = read.as_deref().unwrap_or("");
        let (title, tags) = self.titles_and_tags(meta, read, parse);
        let mut keep = |raw: &str| self.wants(raw, wanted);
        let tagged = tags.is_some();
        (Encoded::only(vocab, meta.clone(), text, &title, &tags.unwrap_or_default(), &mut keep), tagged)
    }

    /// The title words of a note, and its tags when the query filters by tag and the note may
    /// carry one of them: the tags its frontmatter gives, and when its body may hold one (`#tag`,
    /// any case) those the note's parse finds (as the index parses it). Those are `None` (not
    /// read yet) unless `parse` or the query has no words: telling needs the note's parse, which
    /// only the notes the query's words find are worth (see [`search_index`]).
    fn titles_and_tags(
        &self,
        meta: &FileMeta,
        read: &Result<String, VaultError>,
        parse: bool,
    ) -> (String, Option<Vec<String>>) {
        let text = read.as_deref().unwrap_or("");
        let Some((plain, hashed)) = &self.tags else {
            return (titles_of(&meta.path, text), Some(Vec::new()));
        };
        let (yaml, body) = text.as_bytes().split_at(body_start(text));
        if hashed.is_match(body) {
            if !parse && self.sieve.is_some() {
                // The same title words as the note's parse gives.
                return (titles_of(&meta.path, text), None);
            }
            let note = GraphNote::parse(meta, text);
            return (title_words(&note), Some(note.tags));
        }
        if !plain.is_match(yaml) {
            return (titles_of(&meta.path, text), Some(Vec::new()));
        }
        // The body carries no tag of the query: the frontmatter's tell whether the note does.
        let frontmatter = Frontmatter::parse(text);
        let tags = frontmatter.tags().iter().map(|t| t.to_lowercase()).collect();
        (title_text(&meta.path, &aliases(&frontmatter), &frontmatter.data), Some(tags))
    }
}

/// The title words of the note at `path` whose text is `text` (its frontmatter read only when
/// it has one).
fn titles_of(path: &VaultPath, text: &str) -> String {
    if !text.starts_with("---") && !text.starts_with("\u{feff}---") {
        return path.stem().to_string();
    }
    let frontmatter = Frontmatter::parse(text);
    title_text(path, &aliases(&frontmatter), &frontmatter.data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::tokenize::tokens;

    #[test]
    fn ascii_words_are_counted_as_the_tokenizer_counts_them() {
        for text in ["", "a", " a", "a b", "state-of-the-art, 2024!", "x\n\n  y_z 3.14 ", "--- \n"] {
            assert_eq!(ascii_words(text.as_bytes()) as usize, tokens(text).count(), "{text:?}");
        }
    }

    fn keeps(query: &str, path: &str, text: &str) -> bool {
        Sieve::new(&Query::parse(query)).unwrap().keeps(&VaultPath::new(path).unwrap(), text)
    }

    #[test]
    fn the_sieve_keeps_every_note_holding_a_word_however_written() {
        assert!(keeps("graph", "a.md", "Knowledge GRAPHS"));
        assert!(keeps("cafe", "a.md", "un café noir"));
        assert!(keeps("cafe", "a.md", "un cafe\u{301} noir"));
        assert!(keeps("strasse", "a.md", "die Straße"));
        assert!(keeps("file", "a.md", "ﬁle"));
        assert!(keeps("straße", "a.md", "STRASSE"));
        assert!(keeps("知识", "a.md", "关于知识图谱"));
        assert!(keeps("retriev*", "a.md", "Retrieval"));
        assert!(keeps("*ization", "a.md", "organization"));
        assert!(keeps("zebra", "Notes/Zebra crossing.md", "no word of it"));
        assert!(keeps("zebra", "a.md", "---\naliases: [Zebra]\n---\nbody"));
        // A value that prints otherwise than it is written: 0x1F is 31.
        assert!(keeps("31", "a.md", "---\ntitle: 0x1F\n---\nbody"));
        assert!(!keeps("graph", "a.md", "knowledge base"));
        assert!(!keeps("cafe", "a.md", "un thé"));
        assert!(!keeps("知识", "a.md", "图谱"));
        assert!(Sieve::new(&Query::parse("tag:ml")).is_none());
        assert!(Sieve::new(&Query::parse("*")).is_none());
    }
}
