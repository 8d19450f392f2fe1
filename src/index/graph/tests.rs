//! The graph kept fresh change by change equals the graph built afresh from the same files.

use proptest::prelude::*;

use super::*;

/// Folders and names chosen to collide: the same name in several folders, names differing only
/// in case or by `.md`, Greek final sigma, a decomposed accent, an attachment.
const FOLDERS: &[&str] = &["", "A/", "B/", "A/B/"];
const NAMES: &[&str] = &["Note", "note", "ΣΟΦΟΣ", "Café", "Cafe\u{301}", "x", "x.md", "Plan", "pic.png"];
const TARGETS: &[&str] = &[
    "Note",
    "NOTE.md",
    "A/Note",
    "B/Note",
    "../Note",
    "../A/Note",
    "A/B/Note",
    "./Note",
    "Note/",
    "A/../Note",
    "/B/Note",
    "σοφοσ",
    "Café",
    "Cafe\u{301}",
    "x",
    "x.md",
    "Plan",
    "The Plan",
    "home",
    "pic.png",
    "A/pic.png",
    "Missing",
    "",
];
const SUBPATHS: &[&str] = &["", "#Top", "#Top#Sub", "#^blk", "#Nope"];
const ALIASES: &[&str] = &["The Plan", "Home", "home", "Note", "σοφος"];

#[derive(Debug, Clone)]
enum Op {
    /// Writes a note (new or changed): folder, name, aliases, links (target, subpath), headings.
    Note(usize, usize, Vec<usize>, Vec<(usize, usize)>, bool),
    /// Writes an attachment.
    Attachment(usize, usize),
    /// Removes the `n`th file (by path order, modulo the count).
    Remove(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let note = (
        0..FOLDERS.len(),
        0..NAMES.len(),
        proptest::collection::vec(0..ALIASES.len(), 0..2),
        proptest::collection::vec((0..TARGETS.len(), 0..SUBPATHS.len()), 0..4),
        any::<bool>(),
    );
    prop_oneof![
        4 => note.prop_map(|(f, n, a, l, h)| Op::Note(f, n, a, l, h)),
        1 => (0..FOLDERS.len(), 0..NAMES.len()).prop_map(|(f, n)| Op::Attachment(f, n)),
        2 => any::<usize>().prop_map(Op::Remove),
    ]
}

fn path_of(folder: usize, name: usize, note: bool) -> VaultPath {
    let name = NAMES[name];
    let path =
        if note { format!("{}{name}.md", FOLDERS[folder]) } else { format!("{}{name}", FOLDERS[folder]) };
    VaultPath::new(&path).unwrap()
}

fn note_text(aliases: &[usize], links: &[(usize, usize)], headings: bool) -> String {
    let mut text = String::new();
    if !aliases.is_empty() {
        let list: Vec<&str> = aliases.iter().map(|&a| ALIASES[a]).collect();
        text.push_str(&format!("---\naliases: [{}]\n---\n", list.join(", ")));
    }
    if headings {
        text.push_str("# Top\n## Sub\nA block ^blk\n");
    }
    for &(target, subpath) in links {
        text.push_str(&format!("See [[{}{}]].\n", TARGETS[target], SUBPATHS[subpath]));
    }
    text
}

/// Everything the graph answers about links: each note's links with where they lead, the
/// backlinks of every file, the counts, the shortest link text of every file.
fn snapshot(graph: &Graph) -> String {
    let mut out = String::new();
    for note in graph.notes() {
        out.push_str(&format!("{}: {:?}\n", note.path, note.links));
        out.push_str(&format!("  in: {:?}\n", graph.backlinks(&note.path)));
        out.push_str(&format!(
            "  as {}\n",
            graph.resolver().link_text(note.path.as_str(), None, Default::default())
        ));
    }
    for attachment in graph.attachments() {
        out.push_str(&format!("{}: in: {:?}\n", attachment.path, graph.backlinks(&attachment.path)));
        let shortest = graph.resolver().link_text(attachment.path.as_str(), None, Default::default());
        out.push_str(&format!("  as {shortest}\n"));
    }
    out.push_str(&format!("{:?}\n", graph.stats()));
    out
}

fn meta(path: &VaultPath, mtime: i64) -> FileMeta {
    FileMeta { path: path.clone(), size: 1, mtime_ms: mtime, ctime_ms: 0 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// After any sequence of notes and attachments added, changed and removed, the graph kept
    /// fresh change by change resolves every link, lists every backlink and counts as a graph
    /// built afresh from the same files.
    #[test]
    fn incremental_changes_equal_a_fresh_build(start in proptest::collection::vec(op(), 0..8),
                                               ops in proptest::collection::vec(op(), 1..12)) {
        // The files now: path → note text (None: an attachment).
        let mut files: BTreeMap<VaultPath, Option<String>> = BTreeMap::new();
        let apply = |files: &mut BTreeMap<VaultPath, Option<String>>, op: &Op| -> Option<(Option<GraphNote>, Option<Attachment>, Option<VaultPath>)> {
            match op {
                Op::Note(f, n, a, l, h) => {
                    let path = path_of(*f, *n, true);
                    let text = note_text(a, l, *h);
                    files.insert(path.clone(), Some(text.clone()));
                    Some((Some(GraphNote::parse(&meta(&path, files.len() as i64), &text)), None, None))
                }
                Op::Attachment(f, n) => {
                    let path = path_of(*f, *n, false);
                    if path.is_markdown() {
                        return None;
                    }
                    files.insert(path.clone(), None);
                    Some((None, Some(Attachment::of(&meta(&path, 1))), None))
                }
                Op::Remove(k) => {
                    let path = files.keys().nth(k % files.len().max(1))?.clone();
                    files.remove(&path);
                    Some((None, None, Some(path)))
                }
            }
        };
        let fresh = |files: &BTreeMap<VaultPath, Option<String>>| {
            let mut notes = Vec::new();
            let mut attachments = Vec::new();
            for (path, text) in files {
                match text {
                    Some(text) => notes.push(GraphNote::parse(&meta(path, 1), text)),
                    None => attachments.push(Attachment::of(&meta(path, 1))),
                }
            }
            Graph::from_parts(notes, attachments)
        };
        for op in &start {
            apply(&mut files, op);
        }
        let mut graph = fresh(&files);
        for op in &ops {
            let Some((note, attachment, removed)) = apply(&mut files, op) else { continue };
            graph.apply(note.into_iter().collect(), attachment.into_iter().collect(), removed.as_slice());
            let want = fresh(&files);
            prop_assert_eq!(snapshot(&graph), snapshot(&want), "after {:?}", op);
            prop_assert!(graph.verify().is_empty(), "{:?}", graph.verify());
        }
    }
}

#[test]
fn a_new_note_takes_the_links_that_name_it_and_only_those() {
    let note = |path: &str, text: &str| GraphNote::parse(&meta(&VaultPath::new(path).unwrap(), 1), text);
    let mut graph = Graph::from_parts(
        vec![note("A/Note.md", "[[Plan]] [[Other]] [[Plan#Goals]]"), note("B/Plan.md", "# Goals\n[[Note]]")],
        Vec::new(),
    );
    let plan = VaultPath::new("B/Plan.md").unwrap();
    assert_eq!(graph.backlinks(&plan).len(), 2);
    // A Plan at the root is named by the path `Plan` itself; Other appears.
    graph.apply(vec![note("Plan.md", "top"), note("Other.md", "")], Vec::new(), &[]);
    let links = graph.outgoing(&VaultPath::new("A/Note.md").unwrap());
    assert_eq!(links[0].resolution, Resolution::Resolved("Plan.md".into()));
    assert_eq!(graph.backlinks(&plan).len(), 0);
    assert_eq!(links[1].resolution, Resolution::Resolved("Other.md".into()));
    assert_eq!(links[2].anchor_found, Some(false), "Obsidian opens the root Plan, which has no Goals");
    graph.remove_note(&VaultPath::new("Plan.md").unwrap());
    let links = graph.outgoing(&VaultPath::new("A/Note.md").unwrap());
    assert_eq!(links[0].resolution, Resolution::Resolved("B/Plan.md".into()));
    assert_eq!(links[2].anchor_found, Some(true));
    assert_eq!(graph.backlinks(&plan).len(), 2);
    assert!(graph.verify().is_empty());
}
