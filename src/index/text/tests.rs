use super::rank::PARALLEL_PHRASE;
use super::*;
use crate::index::query::Query;
use crate::vault::FileMeta;

fn meta(path: &str, mtime_ms: i64) -> FileMeta {
    FileMeta { path: VaultPath::new(path).unwrap(), size: 10, mtime_ms, ctime_ms: 0 }
}

fn index(notes: &[(&str, &str)]) -> TextIndex {
    let mut index = TextIndex::new();
    for (path, text) in notes {
        let stem = VaultPath::new(path).unwrap().stem().to_string();
        index.insert(meta(path, 1), text, &stem, &[]);
    }
    index
}

fn search(index: &TextIndex, query: &str) -> Vec<String> {
    index
        .search(&Query::parse(query), &|_| true, 0, 50)
        .hits
        .into_iter()
        .map(|h| h.path.as_str().to_string())
        .collect()
}

#[test]
fn ranks_with_phrases_exclusions_and_wildcards() {
    let index = index(&[
        ("a/Seeds.md", "random seeds decide leaderboards; seeds matter"),
        ("b/Other.md", "spacing effects in learning, random order"),
        ("b/Mixed.md", "a note about seeds and spacing; Random seeds again"),
    ]);
    assert_eq!(search(&index, "seeds")[0], "a/Seeds.md");
    assert_eq!(search(&index, "seeds spacing"), ["b/Mixed.md"]);
    assert_eq!(search(&index, "\"random seeds\"").len(), 2);
    assert_eq!(search(&index, "\"seeds random\""), Vec::<String>::new());
    assert_eq!(search(&index, "seeds -spacing"), ["a/Seeds.md"]);
    assert_eq!(search(&index, "seeds -\"random seeds\""), Vec::<String>::new());
    assert_eq!(search(&index, "leader*"), ["a/Seeds.md"]);
    assert_eq!(search(&index, "*ing").len(), 2);
    // No note has both words: the search is relaxed to any of them.
    let page = index.search(&Query::parse("leaderboards learning"), &|_| true, 0, 10);
    assert!(page.relaxed);
    assert_eq!(page.total, 2);
    // Filters only: every note that passes, by path.
    assert_eq!(search(&index, "-seeds"), ["b/Other.md"]);
}

#[test]
fn the_title_counts_and_pages_are_stable() {
    let index = index(&[
        ("Spaced repetition.md", "how to review cards"),
        ("Log.md", "spaced repetition spaced repetition spaced repetition in my log"),
        ("Other.md", "repetition"),
    ]);
    assert_eq!(search(&index, "spaced repetition")[0], "Spaced repetition.md");
    let all = index.search(&Query::parse("repetition"), &|_| true, 0, 10);
    let first = index.search(&Query::parse("repetition"), &|_| true, 0, 2);
    let second = index.search(&Query::parse("repetition"), &|_| true, 2, 2);
    assert_eq!((all.total, first.total, second.hits.len()), (3, 3, 1));
    assert_eq!([first.hits, second.hits].concat(), all.hits);
}

#[test]
fn unicode_folding_and_cjk_phrases() {
    let index = index(&[
        ("de.md", "Ein Überblick über die Straße"),
        ("zh.md", "知识图谱 与 检索"),
        ("zh2.md", "识知图"),
    ]);
    assert_eq!(search(&index, "uberblick STRASSE"), ["de.md"]);
    assert_eq!(search(&index, "überblick"), ["de.md"]);
    assert_eq!(search(&index, "知识"), ["zh.md"]);
}

#[test]
fn edits_replace_and_compaction_keeps_answers() {
    let mut index = index(&[("a.md", "alpha beta"), ("b.md", "beta gamma")]);
    for round in 0..3000 {
        index.insert(meta("a.md", round), &format!("alpha beta round{round}"), "a", &[]);
    }
    assert!(index.remove(&VaultPath::new("b.md").unwrap()));
    assert_eq!(search(&index, "beta"), ["a.md"]);
    assert_eq!(search(&index, "round2999"), ["a.md"]);
    assert!(search(&index, "round5").is_empty());
    assert_eq!(index.len(), 1);
    let check = index.verify();
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    assert!(index.postings() < 10);
}

#[test]
fn literal_candidates_narrow_without_missing_a_match() {
    let index = index(&[
        ("1.md", "the knowledge graph of notes"),
        ("2.md", "paragraphs without it"),
        ("3.md", "知识图谱"),
        ("4.md", "Café-Bar"),
    ]);
    let paths = |q: &str| -> Option<Vec<String>> {
        index.literal_candidates(q).map(|v| v.into_iter().map(|p| p.as_str().to_string()).collect())
    };
    assert_eq!(paths("knowledge graph").unwrap(), ["1.md"]);
    assert_eq!(paths("graph").unwrap(), ["1.md", "2.md"]);
    assert_eq!(paths("owledge gra").unwrap(), ["1.md"]);
    assert_eq!(paths("识图").unwrap(), ["3.md"]);
    assert_eq!(paths("é-b").unwrap(), ["4.md"]);
    assert_eq!(paths(" of ").unwrap(), ["1.md"]);
    assert_eq!(paths("missingword here").unwrap(), Vec::<String>::new());
    assert!(paths("--").is_none());
}

proptest::proptest! {
    /// Whatever a note holds, a case-insensitive literal that occurs in it never rules it out.
    #[test]
    fn literal_candidates_keep_every_note_that_matches(
        text in "[aBéÉßẞſςΣK知识 \\-_ǅ\u{301}x.]{1,24}",
        start in 0usize..24,
        len in 1usize..10,
    ) {
        let chars: Vec<char> = text.chars().collect();
        let start = start.min(chars.len() - 1);
        let literal: String = chars[start..(start + len).min(chars.len())].iter().collect();
        let mut index = TextIndex::new();
        index.insert(meta("n.md", 1), &text, "", &[]);
        if let Some(found) = index.literal_candidates(&literal.to_uppercase()) {
            let upper = literal.to_uppercase();
            // Only when the uppercased literal still matches case-insensitively.
            let re = regex_lite_match(&text, &upper);
            proptest::prop_assert!(!re || found.len() == 1, "{text:?} / {upper:?}");
        }
        if let Some(found) = index.literal_candidates(&literal) {
            proptest::prop_assert_eq!(found.len(), 1, "{:?} / {:?}", text, literal);
        }
    }
}

/// Case-insensitive containment by Unicode simple case folding, as the literal search does it.
fn regex_lite_match(text: &str, needle: &str) -> bool {
    let fold = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<String>();
    fold(text).contains(&fold(needle))
}

#[test]
fn a_phrase_of_common_words_is_walked_on_every_core_with_the_same_answer() {
    // More notes than the parallel walk's threshold, a few with the words in a row.
    let texts: Vec<(String, String)> = (0..PARALLEL_PHRASE + 500)
        .map(|i| {
            let text = match i % 7 {
                0 => "random seeds matter, random seeds again",
                1 => "seeds are random here",
                _ => "random words and seeds apart",
            };
            (format!("n/{i:05}.md"), text.to_string())
        })
        .collect();
    let notes: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let index = index(&notes);
    let ids = index.phrase_terms(&["random".into(), "seeds".into()]).unwrap();
    let walked = index.phrase_docs(&ids);
    let one = index.phrase_range(&ids, 0, u32::MAX);
    assert_eq!(walked.len(), one.len());
    assert_eq!(walked.len(), texts.len());
    for (a, b) in walked.iter().zip(&one) {
        assert_eq!((a.doc, a.count, a.titles), (b.doc, b.count, b.titles));
    }
    assert_eq!(walked.iter().filter(|p| p.count == 2).count(), texts.len().div_ceil(7));
    let page = index.search(&Query::parse("\"random seeds\""), &|_| true, 0, 5);
    assert_eq!(page.total, texts.len().div_ceil(7));
}
