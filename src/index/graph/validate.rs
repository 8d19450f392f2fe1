//! The vault's health check: broken links and embeds, missing anchors, ambiguous links, orphans,
//! unused attachments, duplicate names, unreadable frontmatter or files — each with a fix.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{Graph, GraphLink, GraphNote};
use crate::note::{LinkStyle, Resolution};
use crate::suggest::{Names, closest};
use crate::vault::VaultPath;

/// What kind of problem [`Graph::validate`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    /// A link to a note or file that does not exist.
    BrokenLink,
    /// An embed of a note or file that does not exist.
    BrokenEmbed,
    /// A `#heading` that the target note does not have.
    MissingHeading,
    /// A `#^block` id that the target note does not have.
    MissingBlock,
    /// A name that several files share; Obsidian opens one of them.
    AmbiguousLink,
    /// A note with no links in or out.
    Orphan,
    /// An attachment no note links to or embeds.
    UnusedAttachment,
    /// A note named like another note in a different folder.
    DuplicateName,
    /// Frontmatter that is not a valid YAML mapping.
    BadFrontmatter,
    /// A note that could not be read.
    Unreadable,
}

/// A problem in the vault, with how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// What kind of problem.
    pub kind: IssueKind,
    /// The note (or attachment) it is in.
    pub path: VaultPath,
    /// 1-based line (0 when it concerns the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub suggestion: String,
}

impl Graph {
    /// Every problem found: broken links and embeds, missing headings and blocks, ambiguous links,
    /// orphans, unused attachments, duplicate note names, unreadable frontmatter or files. Each
    /// with a suggestion; sorted by path, line and kind.
    pub fn validate(&self) -> Vec<Issue> {
        let mut issues = Vec::new();
        let mut suggest = Suggester::new(self);
        for note in self.notes.values() {
            for link in &note.links {
                self.link_issues(note, link, &mut suggest, &mut issues);
            }
            for diag in &note.frontmatter_errors {
                issues.push(Issue {
                    kind: IssueKind::BadFrontmatter,
                    path: note.path.clone(),
                    line: diag.line,
                    message: diag.message.clone(),
                    suggestion: "fix the YAML between the `---` lines (quote values that contain `:` or \
                                 `#`, close brackets and quotes); until then its properties, tags and \
                                 aliases are ignored"
                        .into(),
                });
            }
            if let Some(why) = &note.unreadable {
                issues.push(Issue {
                    kind: IssueKind::Unreadable,
                    path: note.path.clone(),
                    line: 0,
                    message: why.clone(),
                    suggestion: "save the note as UTF-8 text".into(),
                });
            }
        }
        self.orphan_issues(&mut issues);
        self.duplicate_issues(&mut issues);
        issues.sort_by(|a, b| (&a.path, a.line, a.kind).cmp(&(&b.path, b.line, b.kind)));
        issues
    }

    fn link_issues(&self, note: &GraphNote, link: &GraphLink, suggest: &mut Suggester, out: &mut Vec<Issue>) {
        let issue = |kind, message: String, suggestion: String| Issue {
            kind,
            path: note.path.clone(),
            line: link.line,
            message,
            suggestion,
        };
        let shown = link.shown();
        let what = if link.embed { "embed" } else { "link" };
        match &link.resolution {
            Resolution::Missing => {
                let file = is_attachment_name(&link.target);
                let kind = if link.embed { IssueKind::BrokenEmbed } else { IssueKind::BrokenLink };
                let noun = if file { "file" } else { "note" };
                let message = format!("the {what} to `{shown}` leads to no {noun} in the vault");
                let suggestion = match suggest.closest(&link.target, file) {
                    Some(path) => {
                        let text =
                            self.resolver.link_text(path, Some(note.path.as_str()), LinkStyle::Shortest);
                        format!("did you mean [[{text}]]? fix the {what}, or create `{}`", link.target)
                    }
                    None if file => format!("add `{}` to the vault, or remove the {what}", link.target),
                    None => format!("create the note `{}`, or remove the {what}", link.target),
                };
                out.push(issue(kind, message, suggestion));
            }
            Resolution::Ambiguous(paths) => {
                let message = format!(
                    "`{}` names {} files ({}); Obsidian opens {}",
                    link.target,
                    paths.len(),
                    paths.join(", "),
                    paths.first().map_or("", String::as_str)
                );
                let choices: Vec<String> = paths
                    .iter()
                    .map(|p| {
                        format!("[[{}]]", VaultPath::new(p).map_or(p.clone(), |v| v.without_md().into()))
                    })
                    .collect();
                out.push(issue(
                    IssueKind::AmbiguousLink,
                    message,
                    format!("write the folder to choose one: {}", choices.join(" or ")),
                ));
            }
            Resolution::Resolved(_) => {}
        }
        if link.anchor_found == Some(false)
            && let (Some(sub), Some(target)) = (&link.subpath, link.path().and_then(|p| self.notes.get(p)))
        {
            let (kind, message, suggestion) = anchor_issue(sub, target);
            out.push(issue(kind, format!("the {what} to `{shown}`: {message}"), suggestion));
        }
    }

    fn orphan_issues(&self, out: &mut Vec<Issue>) {
        for (key, note) in &self.notes {
            let links_out = note.links.iter().any(|l| l.path().is_some_and(|p| *p != **key));
            if links_out || self.backlinks.contains_key(key) {
                continue;
            }
            let suggestion = match self.related(&note.path, 1).first() {
                Some(r) => format!(
                    "link it from a related note such as [[{}]], or from an index note",
                    self.resolver.link_text(r.path.as_str(), None, LinkStyle::Shortest)
                ),
                None => "link it from an index note, or link from it to what it is about".into(),
            };
            out.push(Issue {
                kind: IssueKind::Orphan,
                path: note.path.clone(),
                line: 0,
                message: "no note links here and it links to no other file".into(),
                suggestion,
            });
        }
        for (key, attachment) in &self.attachments {
            if !self.backlinks.contains_key(key) {
                out.push(Issue {
                    kind: IssueKind::UnusedAttachment,
                    path: attachment.path.clone(),
                    line: 0,
                    message: "no note links to or embeds this file".into(),
                    suggestion: format!(
                        "embed it where it belongs (![[{}]]), or delete it if it is not needed",
                        attachment.path.file_name()
                    ),
                });
            }
        }
    }

    fn duplicate_issues(&self, out: &mut Vec<Issue>) {
        let mut by_name: BTreeMap<String, Vec<&VaultPath>> = BTreeMap::new();
        for note in self.notes.values() {
            by_name.entry(note.path.stem().to_lowercase()).or_default().push(&note.path);
        }
        for paths in by_name.values().filter(|p| p.len() > 1) {
            for path in paths {
                let others: Vec<&str> = paths.iter().filter(|p| *p != path).map(|p| p.as_str()).collect();
                out.push(Issue {
                    kind: IssueKind::DuplicateName,
                    path: (*path).clone(),
                    line: 0,
                    message: format!("`{}` is also the name of {}", path.stem(), others.join(", ")),
                    suggestion: format!(
                        "rename one of them, or link with the folder ([[{}]]) so links are not ambiguous",
                        path.without_md()
                    ),
                });
            }
        }
    }
}

/// Whether a link target names a file other than a note (`pic.png`, `paper.pdf`).
fn is_attachment_name(target: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !ext.eq_ignore_ascii_case("md")
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// What is wrong with a link's `#subpath` into `target`, and the closest thing that exists.
fn anchor_issue(subpath: &str, target: &GraphNote) -> (IssueKind, String, String) {
    let name = target.path.without_md();
    if let Some(id) = subpath.strip_prefix('^') {
        let ids = target.blocks.iter().map(|b| &**b);
        let suggestion = match closest(id, ids) {
            Some(near) => {
                format!("did you mean `#^{near}`? fix the link, or add ` ^{id}` after the block in {name}")
            }
            None => {
                format!("add ` ^{id}` at the end of the block in {name}, or remove `#^{id}` from the link")
            }
        };
        return (IssueKind::MissingBlock, format!("{name} has no block `^{id}`"), suggestion);
    }
    let last = subpath.rsplit('#').next().unwrap_or(subpath);
    let suggestion = match closest(last, target.headings.iter().map(|h| &**h)) {
        Some(near) => format!("did you mean `#{near}`? fix the link, or add the heading `{last}` to {name}"),
        None => format!("add the heading `{last}` to {name}, or remove `#{subpath}` from the link"),
    };
    (IssueKind::MissingHeading, format!("{name} has no heading `{subpath}`"), suggestion)
}

/// Names of the vault's notes (with their aliases) and attachments, for "did you mean" answers;
/// each missing target is looked up once, and the index of each kind is made on its first use.
struct Suggester<'a> {
    notes: Names<'a>,
    files: Names<'a>,
    seen: HashMap<(bool, String), Option<&'a str>>,
}

impl<'a> Suggester<'a> {
    fn new(graph: &'a Graph) -> Self {
        let notes = graph
            .notes
            .iter()
            .flat_map(|(key, n)| {
                std::iter::once(n.path.stem())
                    .chain(n.aliases.iter().map(String::as_str))
                    .map(move |name| (name, &**key))
            })
            .collect();
        let files = graph.attachments.iter().map(|(key, a)| (a.path.file_name(), &**key)).collect();
        Self { notes: Names::new(notes), files: Names::new(files), seen: HashMap::new() }
    }

    /// The path of the note (or, for `file`, attachment) whose name is closest to `target`'s.
    fn closest(&mut self, target: &str, file: bool) -> Option<&'a str> {
        let name = target.rsplit('/').next().unwrap_or(target);
        let name = if file { name } else { name.strip_suffix(".md").unwrap_or(name) };
        if name.is_empty() {
            return None;
        }
        let names = if file { &mut self.files } else { &mut self.notes };
        *self.seen.entry((file, name.to_lowercase())).or_insert_with(|| names.closest(name))
    }
}
