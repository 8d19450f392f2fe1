//! Annotation notes that say nothing of `category:` (fixture `tests/fixtures/zotero_paths/`):
//! known by their export format's note path, an inline field or their annotations. The listing
//! and the citekey lookup.

use scholia::annotations::ParseOptions;
use scholia::library;
use scholia::vault::{FsVault, VaultPath};

/// Every annotation note of the fixture and the citekey it is listed by.
const NOTES: [(&str, &str); 4] = [
    ("Inbox/Salt marsh reading.md", "baptiste2020marsh"),
    ("Literature/@ferrand2018moss.md", "ferrand2018moss"),
    ("Literature/@nguyen2021tides.md", "nguyen2021tides"),
    ("Reading/okoro2019lichens.md", "okoro2019lichens"),
];

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::check::copy_dir(&crate::check::root().join("tests/fixtures/zotero_paths"), dir.path());
    dir
}

fn options(vault: &FsVault) -> (ParseOptions, library::setup::Setup) {
    let setup = library::setup::discover(vault, None);
    (ParseOptions { templates: setup.templates.clone(), ..ParseOptions::default() }, setup)
}

#[test]
fn notes_named_by_the_note_path_are_listed_with_their_citekeys() {
    let dir = vault();
    let vault = FsVault::open(dir.path()).unwrap();
    let (with_templates, _) = options(&vault);
    for options in [with_templates, ParseOptions::default()] {
        let listed = library::list_annotation_files(&vault, &VaultPath::root(), &[], &options).unwrap();
        let keys: Vec<(&str, &str)> = listed.iter().map(|f| (f.path.as_str(), f.citekey.as_str())).collect();
        // Not the template, not the project note that only cites two papers.
        assert_eq!(keys, NOTES);
        assert_eq!(listed[2].title, "Tidal mixing in shallow estuaries");
    }
    let tagged = library::list_annotation_files(
        &vault,
        &VaultPath::new("Reading").unwrap(),
        &["lichens".to_string()],
        &ParseOptions::default(),
    )
    .unwrap();
    assert_eq!(tagged.len(), 1);
}

#[test]
fn every_listed_note_is_found_by_the_citekey_it_is_listed_by() {
    let dir = vault();
    let vault = FsVault::open(dir.path()).unwrap();
    let (options, setup) = options(&vault);
    let root = VaultPath::root();
    for (path, key) in NOTES {
        let found = library::find_by_citekey(&vault, &root, key).unwrap();
        assert_eq!(found.as_ref().map(VaultPath::as_str), Some(path), "{key}");
        let upper = key.to_uppercase();
        let found = library::find_annotation_note(&vault, &root, &upper, &options, &setup.patterns).unwrap();
        assert_eq!(found.as_ref().map(VaultPath::as_str), Some(path), "{upper}");
    }
    // An ordinary note is not found by its name, nor the template by its own.
    assert_eq!(library::find_by_citekey(&vault, &root, "Field season").unwrap(), None);
    assert_eq!(library::find_by_citekey(&vault, &root, "Paper").unwrap(), None);
}
