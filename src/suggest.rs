//! "Did you mean": the names closest to a misspelt one, by edit distance. The one suggester of
//! the crate: the health check's (one name each) and the note lookup's (several names).
//!
//! Among a note's headings or blocks every candidate is measured ([`closest`]); a note named by
//! an agent is matched against every name ([`closest_several`]). Among the vault's names in the
//! health check ([`Names`]) only a bounded few are: those sharing the most of the missing name's
//! rarer trigrams. Measuring every name for every missing one made the health check quadratic
//! (47 s at 10,000 notes with 14,000 broken links); with the trigram index a lookup costs the
//! same at any vault size, so the check grows linearly.

use std::collections::HashMap;

/// The candidate closest to `word` by edit distance (case-insensitive), if any is close enough:
/// at most a third of the word's length, and at least one edit. Ties go to the first candidate.
pub fn closest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let word = lower_chars(word);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let max = best.map_or(max_distance(&word), |(d, _)| d.saturating_sub(1));
        if let Some(d) = edit_distance(&word, &lower_chars(candidate), max)
            && best.is_none_or(|(b, _)| d < b)
        {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// How many edits a name close to `word` may be from it.
fn max_distance(word: &[char]) -> usize {
    (word.len() / 3).max(1)
}

fn lower_chars(s: &str) -> Vec<char> {
    s.to_lowercase().chars().collect()
}

/// Levenshtein distance between `a` and `b` if it is at most `max` (`usize::MAX`: always).
pub fn edit_distance(a: &[char], b: &[char], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        if cur.iter().min().is_some_and(|&m| m > max) {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= max)
}

/// How many posting entries one lookup reads at most (the rarest trigrams' first).
const POSTINGS_READ: usize = 1024;
/// How many candidates, those sharing the most trigrams, one lookup measures.
const MEASURED: usize = 48;

/// (name, path) pairs in order of preference (by path), indexed by trigram on first use.
pub(crate) struct Names<'a> {
    names: Vec<(&'a str, &'a str)>,
    index: Option<Trigrams>,
}

/// The lowercase names as characters, and for each trigram the names holding it.
struct Trigrams {
    lower: Vec<Vec<char>>,
    postings: HashMap<[char; 3], Vec<u32>>,
    /// The names of at most three characters: those one edit from a word of one or two, which
    /// may share no trigram with it.
    short: Vec<u32>,
    /// Per name, the trigrams it shares with the name being looked up (reset after each lookup).
    shared: Vec<u16>,
}

impl<'a> Names<'a> {
    pub(crate) fn new(names: Vec<(&'a str, &'a str)>) -> Self {
        Names { names, index: None }
    }

    /// The path of the name closest to `name`, as [`closest`] chooses among the candidates.
    pub(crate) fn closest(&mut self, name: &str) -> Option<&'a str> {
        let names = &self.names;
        let index = self.index.get_or_insert_with(|| Trigrams::new(names.iter().map(|(n, _)| *n)));
        let word = lower_chars(name);
        let mut best: Option<(usize, u32)> = None;
        // Candidates come by trigrams shared, not in order of preference: a tie is measured too.
        for id in index.candidates(&word) {
            let max = best.map_or(max_distance(&word), |(d, _)| d);
            let Some(d) = edit_distance(&word, &index.lower[id as usize], max) else { continue };
            if best.is_none_or(|(b, at)| (d, id) < (b, at)) {
                best = Some((d, id));
            }
        }
        best.map(|(_, id)| names[id as usize].1)
    }
}

/// The trigrams of `chars` padded at both ends (so a short name has some), without repeats.
fn trigrams(chars: &[char]) -> Vec<[char; 3]> {
    let padded: Vec<char> = [' ', ' '].into_iter().chain(chars.iter().copied()).chain([' ']).collect();
    let mut grams: Vec<[char; 3]> = padded.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
    grams.sort_unstable();
    grams.dedup();
    grams
}

impl Trigrams {
    fn new<'n>(names: impl Iterator<Item = &'n str>) -> Self {
        let lower: Vec<Vec<char>> = names.map(lower_chars).collect();
        let mut postings: HashMap<[char; 3], Vec<u32>> = HashMap::new();
        for (id, chars) in lower.iter().enumerate() {
            for gram in trigrams(chars) {
                postings.entry(gram).or_default().push(id as u32);
            }
        }
        let short = (0..lower.len() as u32).filter(|&id| lower[id as usize].len() <= 3).collect();
        let shared = vec![0; lower.len()];
        Trigrams { lower, postings, short, shared }
    }

    /// The names to measure for `word`: those sharing the most of its trigrams, counted in the
    /// rarest trigrams' postings up to [`POSTINGS_READ`] entries (the rarest always read); at most
    /// [`MEASURED`], by the trigrams shared, then in order of preference.
    ///
    /// A name within [`max_distance`] of a word of three or more characters shares a trigram
    /// with it (an edit changes at most three of the word's `len + 1` trigrams, and there are at
    /// most `len / 3` edits); a shorter word is measured against the short names instead.
    fn candidates(&mut self, word: &[char]) -> Vec<u32> {
        if word.len() < 3 {
            return self.short.clone();
        }
        let mut lists: Vec<&Vec<u32>> = trigrams(word).iter().filter_map(|g| self.postings.get(g)).collect();
        lists.sort_by_key(|l| l.len());
        let mut touched: Vec<u32> = Vec::new();
        let mut read = 0;
        for list in lists {
            if read > 0 && read + list.len() > POSTINGS_READ {
                break;
            }
            for &id in list.iter().take(POSTINGS_READ) {
                let count = &mut self.shared[id as usize];
                if *count == 0 {
                    touched.push(id);
                }
                *count = count.saturating_add(1);
            }
            read += list.len().min(POSTINGS_READ);
        }
        let shared = &mut self.shared;
        let order = |&id: &u32| (std::cmp::Reverse(shared[id as usize]), id);
        if touched.len() > MEASURED {
            touched.select_nth_unstable_by_key(MEASURED - 1, order);
        }
        for &id in &touched {
            shared[id as usize] = 0;
        }
        touched.truncate(MEASURED);
        touched
    }
}

/// The keys (paths) of the names closest to `target`'s last part, at most `limit`: names that
/// contain it (or that it contains) first, then by edit distance (at most a third of the name),
/// then by key.
pub fn closest_several<'a>(
    target: &str,
    names: impl Iterator<Item = (&'a str, &'a str)>,
    limit: usize,
) -> Vec<&'a str> {
    let wanted = target.rsplit('/').next().unwrap_or(target);
    let wanted: Vec<char> = wanted.strip_suffix(".md").unwrap_or(wanted).to_lowercase().chars().collect();
    let max = (wanted.len() / 3).max(2);
    let mut scored: Vec<(bool, usize, &str)> = names
        .filter_map(|(name, path)| {
            let name: Vec<char> = name.to_lowercase().chars().collect();
            let contains = contains(&name, &wanted) || contains(&wanted, &name);
            let distance = edit_distance(&wanted, &name, usize::MAX).unwrap_or(usize::MAX);
            (contains || distance <= max).then_some((!contains, distance, path))
        })
        .collect();
    scored.sort();
    let mut out: Vec<&str> = Vec::new();
    for (_, _, path) in scored {
        if !out.contains(&path) {
            out.push(path);
        }
        if out.len() == limit {
            break;
        }
    }
    out
}

fn contains(hay: &[char], needle: &[char]) -> bool {
    needle.len() >= 3 && hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closest_of(names: &[&'static str], word: &str) -> Option<&'static str> {
        let mut index = Names::new(names.iter().map(|n| (*n, *n)).collect());
        index.closest(word)
    }

    #[test]
    fn the_index_finds_what_measuring_every_name_finds() {
        let names = ["Structure", "Strategy", "Street", "Methods", "Café", "Résumé", "知识图谱", "a"];
        for word in ["Strcture", "strategi", "Methds", "cafe", "Resume", "知识图", "b", "zzzzzz", "Struct"]
        {
            assert_eq!(closest_of(&names, word), closest(word, names.iter().copied()), "{word}");
        }
    }

    proptest::proptest! {
        #[test]
        fn below_the_reading_bounds_the_index_is_exact(
            names in proptest::collection::vec("[abcé ]{0,7}", 0..40),
            word in "[abcé ]{1,7}",
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut index = Names::new(names.iter().map(|n| (*n, *n)).collect());
            proptest::prop_assert_eq!(index.closest(&word), closest(&word, names.iter().copied()));
        }
    }

    #[test]
    fn a_name_among_many_alike_is_found() {
        let many: Vec<String> = (0..20_000).map(|i| format!("Note {i} alpha")).collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut index = Names::new(names.iter().map(|n| (*n, *n)).collect());
        assert_eq!(index.closest("Note 12345 alpah"), Some("Note 12345 alpha"));
        assert_eq!(index.closest("Nte 777 alpha"), Some("Note 777 alpha"));
        assert_eq!(index.closest("Draft 4242 vault"), None);
    }

    #[test]
    fn suggests_close_names_first() {
        let paths: Vec<crate::vault::VaultPath> = ["A/Meeting.md", "B/Meetings 2024.md", "C/Plan.md"]
            .iter()
            .map(|p| crate::vault::VaultPath::new(p).unwrap())
            .collect();
        let names = paths.iter().map(|p| (p.stem(), p.as_str()));
        assert_eq!(closest_several("Meting", names.clone(), 5), ["A/Meeting.md"]);
        assert_eq!(closest_several("meeting", names.clone(), 5), ["A/Meeting.md", "B/Meetings 2024.md"]);
        assert!(closest_several("Zzzzzz", names, 5).is_empty());
    }
}
