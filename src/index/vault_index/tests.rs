use super::*;
use crate::vault::MemVault;

fn vault() -> MemVault {
    MemVault::with_files([
        (
            "References/@smith2020.md",
            "---\ncitekey: smith2020\ntags: [ml]\n---\n# Smith\nRandom seeds decide leaderboards.",
        ),
        ("References/@doe2021.md", "---\ncitekey: Doe2021\n---\nA survey of retrieval."),
        ("Notes/Seeds.md", "---\naliases: [Randomness]\n---\nSee [[@smith2020]]. #ml/eval seeds matter."),
        ("Notes/Other.md", "spacing effects in learning [[@doe2021#Missing]]"),
        ("img.png", "png"),
    ])
    .unwrap()
}

fn paths(page: &Page) -> Vec<&str> {
    page.hits.iter().map(|h| h.path.as_str()).collect()
}

#[test]
fn builds_both_indexes_and_searches_with_filters() {
    let vault = vault();
    let index = VaultIndex::build(&vault, &VaultPath::root()).unwrap();
    assert_eq!(index.text().len(), 4);
    assert_eq!(index.graph().attachments().count(), 1);
    let root = Scope::default();
    let hits = |q: &str| paths(&index.search(&Query::parse(q), &root, 0, 10)).join(",");
    assert_eq!(hits("seeds"), "Notes/Seeds.md,References/@smith2020.md");
    assert_eq!(hits("seeds tag:ml/eval"), "Notes/Seeds.md");
    assert_eq!(hits("seeds -tag:ml/eval"), "References/@smith2020.md");
    assert_eq!(hits("seeds path:references"), "References/@smith2020.md");
    assert_eq!(hits("randomness"), "Notes/Seeds.md");
    assert_eq!(hits("tag:ml"), "Notes/Seeds.md,References/@smith2020.md");
    let scoped = Scope::folder(&VaultPath::new("Notes").unwrap());
    assert_eq!(paths(&index.search(&Query::parse("seeds"), &scoped, 0, 10)), ["Notes/Seeds.md"]);
    let backlinks = index.graph().backlinks(&VaultPath::new("References/@smith2020.md").unwrap());
    assert_eq!(backlinks.len(), 1);
    let check = index.verify(&vault).unwrap();
    assert!(check.problems.is_empty(), "{:?}", check.problems);
}

#[test]
fn citekeys_are_found_as_the_library_finds_them() {
    let vault = vault();
    let index = VaultIndex::build(&vault, &VaultPath::root()).unwrap();
    for key in ["smith2020", "@smith2020", "doe2021", "DOE2021", "nobody"] {
        let expected = crate::library::find_by_citekey(&vault, &VaultPath::root(), key).unwrap();
        assert_eq!(index.find_citekey(&VaultPath::root(), key), expected, "{key}");
    }
}

#[test]
fn refresh_and_watched_paths_follow_edits_moves_and_deletions() {
    let vault = vault();
    let mut index = VaultIndex::build(&vault, &VaultPath::root()).unwrap();
    assert!(index.refresh(&vault).unwrap().is_empty());
    let other = VaultPath::new("Notes/Other.md").unwrap();
    vault.write(&other, "now about seeds, see [[Seeds]]").unwrap();
    let changes = index.update_paths(&vault, std::slice::from_ref(&other));
    assert_eq!(changes.read, 1);
    let seeds = VaultPath::new("Notes/Seeds.md").unwrap();
    assert_eq!(index.graph().backlinks(&seeds).len(), 1);
    assert_eq!(index.search(&Query::parse("seeds"), &Scope::default(), 0, 10).total, 3);
    // A folder that disappears takes its notes along.
    vault.rename(&seeds, &VaultPath::new("Archive/Seeds.md").unwrap()).unwrap();
    let changes =
        index.update_paths(&vault, &[VaultPath::new("Notes").unwrap(), VaultPath::new("Archive").unwrap()]);
    assert_eq!((changes.read, changes.removed), (1, 1));
    assert!(index.graph().note(&VaultPath::new("Archive/Seeds.md").unwrap()).is_some());
    vault.trash(&other).unwrap();
    assert_eq!(index.refresh(&vault).unwrap().removed, 1);
    let check = index.verify(&vault).unwrap();
    assert!(check.problems.is_empty(), "{:?}", check.problems);
}
