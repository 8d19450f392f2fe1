//! The link and tag graph over a vault of tricky notes: resolution, backlinks, tags, related
//! notes, the health check, counts, and staying fresh through edits.

use scholia::index::graph::{Graph, IssueKind, Reason, TaskCounts};
use scholia::note::Resolution;
use scholia::vault::{MemVault, Vault, VaultPath};
use serde_json::json;

fn p(path: &str) -> VaultPath {
    VaultPath::new(path).unwrap()
}

const INDEX: &str = "---
aliases: [Home, Start]
tags: [moc]
up: \"[[Projects/Plan]]\"
---
# Index
See [[Plan]], [[Plan#Goals]], [[Plan#Nope]], [[Plan#^goal1]] and [[Plan#^gone]].
Which [[Notes]]? [[Strcture]] is misspelt.
![[diagram.png]] ![[missing.png]]
[as markdown](Projects/Plan.md#Goals) and [web](https://example.com)
```
[[InCode]]
```
Not `[[InSpan]]` either. #project/alpha
Accents: [[Cafe\u{301}]] and [[#Index]].
";

const PLAN: &str = "# Plan
## Goals
- [ ] open task
- [x] done task ^goal1
- [-] dropped
#project/beta #Project/Beta
";

fn vault() -> MemVault {
    MemVault::with_files([
        ("Index.md", INDEX),
        ("Projects/Plan.md", PLAN),
        ("A/Notes.md", "---\ntags: [project]\n---\nBack to [[Home]].\n"),
        ("B/Notes.md", "#project/alpha and nothing else\n"),
        ("Structure.md", "---\ntitle: [unclosed\n---\nbody\n"),
        ("Café.md", "# Café\nsee [[index]]\n"),
        ("Lonely.md", "nothing links here\n"),
        ("img/diagram.png", "PNG"),
        ("unused.pdf", "PDF"),
        (".hidden/Secret.md", "[[Index]]"),
    ])
    .unwrap()
}

/// (target#subpath, status, the path Obsidian opens, anchor found, line) of an outgoing link.
type Row = (String, String, Option<String>, Option<bool>, usize);

fn outgoing(graph: &Graph, path: &str) -> Vec<Row> {
    graph
        .outgoing(&p(path))
        .iter()
        .map(|l| {
            let status = match &l.resolution {
                Resolution::Resolved(_) => "resolved",
                Resolution::Ambiguous(_) => "ambiguous",
                Resolution::Missing => "missing",
            };
            let shown = match &l.subpath {
                Some(sub) => format!("{}#{sub}", l.target),
                None => l.target.clone(),
            };
            (shown, status.to_string(), l.path().map(String::from), l.anchor_found, l.line)
        })
        .collect()
}

fn row(target: &str, status: &str, path: Option<&str>, anchor: Option<bool>, line: usize) -> Row {
    (target.into(), status.into(), path.map(String::from), anchor, line)
}

#[test]
fn resolves_links_with_anchors_aliases_and_unicode() {
    let graph = Graph::build(&vault()).unwrap();
    let plan = Some("Projects/Plan.md");
    assert_eq!(
        outgoing(&graph, "Index.md"),
        vec![
            row("Projects/Plan", "resolved", plan, None, 4),
            row("Plan", "resolved", plan, None, 7),
            row("Plan#Goals", "resolved", plan, Some(true), 7),
            row("Plan#Nope", "resolved", plan, Some(false), 7),
            row("Plan#^goal1", "resolved", plan, Some(true), 7),
            row("Plan#^gone", "resolved", plan, Some(false), 7),
            row("Notes", "ambiguous", Some("A/Notes.md"), None, 8),
            row("Strcture", "missing", None, None, 8),
            row("diagram.png", "resolved", Some("img/diagram.png"), None, 9),
            row("missing.png", "missing", None, None, 9),
            row("Projects/Plan.md#Goals", "resolved", plan, Some(true), 10),
            row("Cafe\u{301}", "resolved", Some("Café.md"), None, 15),
            row("#Index", "resolved", Some("Index.md"), Some(true), 15),
        ]
    );
    // The alias `Home` leads to Index; names compare case-insensitively.
    assert_eq!(outgoing(&graph, "A/Notes.md"), vec![row("Home", "resolved", Some("Index.md"), None, 4)]);
    assert_eq!(outgoing(&graph, "Café.md"), vec![row("index", "resolved", Some("Index.md"), None, 2)]);
    assert!(graph.outgoing(&p("Nope.md")).is_empty());

    let index = graph.note(&p("Index.md")).unwrap();
    assert_eq!(index.aliases, ["Home", "Start"]);
    assert_eq!(index.tags, ["moc", "project/alpha"]);
    assert_eq!(index.frontmatter["up"], json!("[[Projects/Plan]]"));
    let plan = graph.note(&p("Projects/Plan.md")).unwrap();
    assert_eq!(plan.tags, ["project/beta"], "tags are lowercase and deduplicated");
    assert_eq!(plan.headings.iter().map(|h| &**h).collect::<Vec<_>>(), ["Plan", "Goals"]);
    assert_eq!(&*plan.blocks[0], "goal1");
    assert_eq!(plan.tasks, TaskCounts { open: 1, done: 1, cancelled: 1 });
    assert!(graph.note(&p(".hidden/Secret.md")).is_none());
    assert_eq!(
        graph.attachments().map(|a| a.path.as_str()).collect::<Vec<_>>(),
        ["img/diagram.png", "unused.pdf"]
    );
}

#[test]
fn backlinks_come_from_other_notes_with_lines() {
    let graph = Graph::build(&vault()).unwrap();
    let lines = |path: &str| -> Vec<(String, usize, bool)> {
        graph
            .backlinks(&p(path))
            .into_iter()
            .map(|b| (b.source.as_str().to_string(), b.line, b.embed))
            .collect()
    };
    let plan: Vec<(String, usize, bool)> =
        [4, 7, 7, 7, 7, 7, 10].into_iter().map(|l| ("Index.md".to_string(), l, false)).collect();
    assert_eq!(lines("Projects/Plan.md"), plan);
    // Self-links do not count; aliases and case-insensitive names do.
    assert_eq!(lines("Index.md"), [("A/Notes.md".into(), 4, false), ("Café.md".into(), 2, false)]);
    assert_eq!(lines("img/diagram.png"), [("Index.md".into(), 9, true)]);
    // An ambiguous link counts for the file Obsidian opens, and says so.
    let notes = graph.backlinks(&p("A/Notes.md"));
    assert!(notes.len() == 1 && notes[0].ambiguous);
    assert!(graph.backlinks(&p("B/Notes.md")).is_empty());
    assert!(graph.backlinks(&p("Missing.md")).is_empty());
}

#[test]
fn tags_count_nested_tags_for_their_parents() {
    let graph = Graph::build(&vault()).unwrap();
    let tags = graph.tags();
    assert_eq!(
        serde_json::to_value(&tags).unwrap(),
        json!({"moc": 1, "project": 4, "project/alpha": 2, "project/beta": 1})
    );
    let with = |tag: &str| -> Vec<String> {
        graph.notes_with_tag(tag).into_iter().map(|p| p.as_str().to_string()).collect()
    };
    assert_eq!(with("#Project"), ["A/Notes.md", "B/Notes.md", "Index.md", "Projects/Plan.md"]);
    assert_eq!(with("project/alpha"), ["B/Notes.md", "Index.md"]);
    assert!(with("proj").is_empty(), "a prefix of a tag's name is not its parent");
}

#[test]
fn related_notes_say_why() {
    let graph = Graph::build(&vault()).unwrap();
    let related = graph.related(&p("Index.md"), 10);
    let paths: Vec<&str> = related.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["A/Notes.md", "Café.md", "Projects/Plan.md", "B/Notes.md"]);
    assert_eq!(related[0].reasons, [Reason::LinksTo, Reason::LinkedFrom]);
    assert_eq!(related[2].reasons, [Reason::LinksTo]);
    assert_eq!(related[3].reasons, [Reason::SharedTags { tags: vec!["project/alpha".into()] }]);
    assert!(related.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(graph.related(&p("Index.md"), 1).len(), 1);

    // Notes linking to the same note are related through it.
    let from_notes = graph.related(&p("A/Notes.md"), 10);
    let cafe = from_notes.iter().find(|r| r.path.as_str() == "Café.md").unwrap();
    assert_eq!(cafe.reasons, [Reason::SharedLinks { notes: vec!["Index.md".into()] }]);

    // A text similarity given by the caller adds to the score.
    let similar = graph
        .related_with(&p("Lonely.md"), 5, |other| if other.as_str() == "Structure.md" { 0.5 } else { 0.0 });
    assert_eq!(similar.len(), 1);
    assert_eq!(similar[0].reasons, [Reason::Similar { score: 0.5 }]);
    assert!(graph.related(&p("Nope.md"), 5).is_empty());
}

#[test]
fn validate_reports_each_problem_with_a_fix() {
    let graph = Graph::build(&vault()).unwrap();
    let issues = graph.validate();
    let found: Vec<(IssueKind, &str, usize)> =
        issues.iter().map(|i| (i.kind, i.path.as_str(), i.line)).collect();
    assert_eq!(
        found,
        [
            (IssueKind::DuplicateName, "A/Notes.md", 0),
            (IssueKind::Orphan, "B/Notes.md", 0),
            (IssueKind::DuplicateName, "B/Notes.md", 0),
            (IssueKind::MissingHeading, "Index.md", 7),
            (IssueKind::MissingBlock, "Index.md", 7),
            (IssueKind::BrokenLink, "Index.md", 8),
            (IssueKind::AmbiguousLink, "Index.md", 8),
            (IssueKind::BrokenEmbed, "Index.md", 9),
            (IssueKind::Orphan, "Lonely.md", 0),
            (IssueKind::Orphan, "Structure.md", 0),
            (IssueKind::BadFrontmatter, "Structure.md", 2),
            (IssueKind::UnusedAttachment, "unused.pdf", 0),
        ]
    );
    let about = |kind: IssueKind| issues.iter().find(|i| i.kind == kind).unwrap();
    assert!(about(IssueKind::BrokenLink).suggestion.contains("did you mean [[Structure]]"));
    assert!(about(IssueKind::BrokenEmbed).suggestion.contains("add `missing.png` to the vault"));
    assert!(about(IssueKind::AmbiguousLink).suggestion.contains("[[A/Notes]] or [[B/Notes]]"));
    assert!(about(IssueKind::MissingHeading).message.contains("no heading `Nope`"));
    assert!(about(IssueKind::MissingBlock).suggestion.contains("^gone"));
    assert!(about(IssueKind::Orphan).suggestion.contains("[[Index]]"), "B/Notes shares a tag with Index");
    assert!(about(IssueKind::DuplicateName).message.contains("B/Notes.md"));
    assert!(about(IssueKind::BadFrontmatter).message.contains("not valid YAML"));
    // Every issue serialises with snake_case names.
    let json = serde_json::to_value(&issues[0]).unwrap();
    assert_eq!(json["kind"], "duplicate_name");
}

#[test]
fn near_misses_are_suggested_for_headings_and_blocks() {
    let vault = MemVault::with_files([
        ("Source.md", "# Methods and Results\ntext ^key-finding\n"),
        ("Linker.md", "[[Source#Method and Results]] [[Source#^key-findings]] [[Source#Unrelated words]]\n"),
    ])
    .unwrap();
    let issues = Graph::build(&vault).unwrap().validate();
    let suggestions: Vec<&str> = issues.iter().map(|i| i.suggestion.as_str()).collect();
    // Sorted by path, line, then kind: the headings first.
    assert!(suggestions[0].starts_with("did you mean `#Methods and Results`?"), "{suggestions:?}");
    assert!(suggestions[1].starts_with("add the heading `Unrelated words`"), "{suggestions:?}");
    assert!(suggestions[2].starts_with("did you mean `#^key-finding`?"), "{suggestions:?}");
}

#[test]
fn stats_count_the_vault() {
    let vault = vault();
    let graph = Graph::build(&vault).unwrap();
    let stats = serde_json::to_value(graph.stats()).unwrap();
    let bytes: u64 = vault.list(&VaultPath::root()).unwrap().iter().map(|f| f.size).sum();
    assert_eq!(
        stats,
        json!({
            "notes": 7, "attachments": 2, "links": 15, "embeds": 2, "broken_links": 2,
            "ambiguous_links": 1, "broken_anchors": 2, "tags": 4, "tasks_open": 1, "tasks_done": 1,
            "tasks_cancelled": 1, "bytes": bytes,
        })
    );
}

#[test]
fn refresh_reads_only_changes_and_updates_links() {
    let vault = vault();
    let mut graph = Graph::build(&vault).unwrap();
    let stats = graph.refresh(&vault).unwrap();
    assert_eq!((stats.read, stats.removed, stats.notes, stats.attachments), (0, 0, 7, 2));

    // Edit: the misspelt link is fixed and a heading appears in Plan.
    vault.write(&p("Index.md"), &INDEX.replace("[[Strcture]]", "[[Structure]]")).unwrap();
    vault.write(&p("Projects/Plan.md"), &format!("{PLAN}## Nope\n")).unwrap();
    // Delete: B/Notes goes, so [[Notes]] is no longer ambiguous.
    vault.trash(&p("B/Notes.md")).unwrap();
    // Add: the missing image and a note named like the broken block's target.
    vault.write(&p("img/missing.png"), "PNG").unwrap();
    vault.write(&p("New.md"), "[[Lonely]]\n").unwrap();
    let stats = graph.refresh(&vault).unwrap();
    assert_eq!((stats.read, stats.removed, stats.notes, stats.attachments), (3, 1, 7, 3));

    let issues = graph.validate();
    let left: Vec<(IssueKind, &str, usize)> =
        issues.iter().map(|i| (i.kind, i.path.as_str(), i.line)).collect();
    assert_eq!(
        left,
        [
            (IssueKind::MissingBlock, "Index.md", 7),
            (IssueKind::BadFrontmatter, "Structure.md", 2),
            (IssueKind::UnusedAttachment, "unused.pdf", 0),
        ]
    );
    assert_eq!(graph.backlinks(&p("Lonely.md")).len(), 1);
    assert_eq!(graph.backlinks(&p("Structure.md")).len(), 1);
    assert_eq!(graph.backlinks(&p("img/missing.png")).len(), 1);
}

#[test]
fn incremental_updates_match_a_fresh_build() {
    let vault = vault();
    let mut graph = Graph::build(&vault).unwrap();
    let edits = [
        // Same names: only this note is resolved again, and links into it are checked again.
        ("Projects/Plan.md", "# Plan\n## Nope\nno block any more\n"),
        // A new alias changes what other notes' links resolve to.
        ("Lonely.md", "---\naliases: [Strcture]\n---\nnow linked\n"),
        // A new note.
        ("C/Notes.md", "[[Plan#Nope]]\n"),
    ];
    for (path, text) in edits {
        vault.write(&p(path), text).unwrap();
        graph.update_note(&vault.stat(&p(path)).unwrap(), text);
        assert_same(&graph, &Graph::build(&vault).unwrap());
    }
    assert!(graph.remove_note(&p("Index.md")));
    vault.trash(&p("Index.md")).unwrap();
    assert_same(&graph, &Graph::build(&vault).unwrap());
    assert!(!graph.remove_note(&p("Index.md")));
    assert!(graph.remove_note(&p("unused.pdf")));
    graph.update_note(&vault.stat(&p("img/diagram.png")).unwrap(), "");
    assert_eq!(graph.stats().attachments, 1);
    // A refresh after the incremental updates reads no note again; it finds the pdf back.
    assert_eq!(graph.refresh(&vault).unwrap().read, 0);
    assert_eq!(graph.stats().attachments, 2);
    // A refresh that only sees edits (no name appears or disappears) keeps the graph exact too.
    vault.write(&p("Projects/Plan.md"), PLAN).unwrap();
    vault.write(&p("C/Notes.md"), "[[Plan#Goals]] [[Lonely]]\n").unwrap();
    assert_eq!(graph.refresh(&vault).unwrap().read, 2);
    assert_same(&graph, &Graph::build(&vault).unwrap());
}

/// Two graphs hold the same notes, links, backlinks and problems.
fn assert_same(a: &Graph, b: &Graph) {
    let notes = |g: &Graph| serde_json::to_value(g.notes().collect::<Vec<_>>()).unwrap();
    assert_eq!(notes(a), notes(b));
    for note in b.notes() {
        assert_eq!(a.backlinks(&note.path), b.backlinks(&note.path), "backlinks of {}", note.path);
    }
    assert_eq!(a.validate(), b.validate());
    assert_eq!(a.stats(), b.stats());
}

#[test]
fn empty_and_odd_vaults_do_not_panic() {
    let graph = Graph::build(&MemVault::new()).unwrap();
    assert_eq!(graph.stats().notes, 0);
    assert!(graph.validate().is_empty());
    let vault = MemVault::with_files([
        ("x.md", "[[]] [[#]] [[|]] ![[]] [](<>) [[../../x]] [[/]] [[#^]] #/ ##"),
        ("y.md", "---\n---\n[[x#a#b#]]"),
    ])
    .unwrap();
    let graph = Graph::build(&vault).unwrap();
    let _ = (graph.validate(), graph.stats(), graph.tags(), graph.related(&p("x.md"), 3));
}

#[test]
fn links_in_tables_resolve_through_their_escaped_bar() {
    let table = "| Link | Figure |\n| --- | --- |\n| [[Plan\\|the plan]] | ![[diagram.png\\|300]] |\n\
                 | [[Plan#Goals\\|goals]] | x |\n";
    let vault =
        MemVault::with_files([("Plan.md", PLAN), ("diagram.png", "png"), ("Table.md", table)]).unwrap();
    let graph = Graph::build(&vault).unwrap();
    let broken: Vec<_> =
        graph.validate().into_iter().filter(|i| i.kind <= IssueKind::AmbiguousLink).collect();
    assert_eq!(broken, []);
    assert_eq!(graph.backlinks(&p("Plan.md")).len(), 2);
    assert_eq!(graph.backlinks(&p("diagram.png")).len(), 1);
}

#[test]
fn tags_and_links_after_display_math_are_counted() {
    let math = "$$\nx = 1 #notatag\n$$ and inline $x$ after it.\n\nSee [[Plan]] #after-math\n";
    let vault = MemVault::with_files([("Plan.md", PLAN), ("Math.md", math)]).unwrap();
    let graph = Graph::build(&vault).unwrap();
    assert_eq!(graph.notes_with_tag("after-math"), [&p("Math.md")]);
    assert_eq!(graph.notes_with_tag("notatag"), Vec::<&VaultPath>::new());
    assert_eq!(graph.backlinks(&p("Plan.md")).len(), 1);
}
