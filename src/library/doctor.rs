//! `scholia doctor`: what Scholia makes of a vault's Zotero setup and annotation notes, so a user
//! can see why a note is or is not read. Pure over [`Vault`]; the report holds no text of the
//! plugin settings or of a template (they may hold secrets), only paths, counts and problems.

use std::fmt::{self, Write as _};

use serde::Serialize;

use super::detect::Examined;
use super::setup::{Setup, SetupReport};
use crate::annotations::{ParseOptions, TemplateStyle};
use crate::vault::{Vault, VaultError, VaultPath};

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoctorReport {
    /// What was found of Zotero Integration's settings and templates.
    pub setup: SetupReport,
    /// Every annotation note, by path.
    pub notes: Vec<NoteReport>,
    /// Notes with Zotero annotation links or annotation images from which no annotation was read
    /// (templates aside).
    pub flagged: Vec<FlaggedNote>,
    /// The counts.
    pub summary: Summary,
}

/// One annotation note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoteReport {
    /// Vault-relative path.
    pub path: String,
    /// The citekey it is listed and found by.
    pub citekey: String,
    /// Where the citekey was read, in words (`frontmatter citekey`, `note path Sources/{{citekey}}.md`, …).
    pub citekey_from: String,
    /// How many annotations were read.
    pub annotations: usize,
    /// The template style they were read with.
    pub template: TemplateStyle,
    /// Why it is an annotation note: `annotations`, `note path`, `category`, `export marker`,
    /// `@citekey name`.
    pub found_by: Vec<&'static str>,
}

/// A note that looks exported from Zotero but gave no annotation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlaggedNote {
    /// Vault-relative path.
    pub path: String,
    /// Whether it is listed as an annotation note (by its path, category or export marks).
    pub listed: bool,
    /// Links to a place in a PDF (`zotero://open-pdf/…`, `zotero://open/…`).
    pub annotation_links: usize,
    /// Embedded annotation images (`image-5-x98-y533.png`).
    pub image_embeds: usize,
}

/// The counts, and the summary line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Markdown notes looked at.
    pub notes_examined: usize,
    /// Annotation notes found.
    pub annotation_notes: usize,
    /// Annotations read from them.
    pub annotations: usize,
    /// Templates looked at.
    pub templates: usize,
    /// Templates that compiled.
    pub templates_compiled: usize,
    /// Notes flagged.
    pub flagged: usize,
    /// All of it in one line.
    pub line: String,
}

/// Examines every note of the vault with the setup's templates (in `options`) and note paths.
pub fn examine(vault: &dyn Vault, setup: &Setup, options: &ParseOptions) -> Result<DoctorReport, VaultError> {
    let (mut notes, mut flagged, mut examined) = (Vec::new(), Vec::new(), 0);
    super::for_each_note(vault, &VaultPath::root(), options, &setup.patterns, |path, note| {
        examined += 1;
        let read = note.doc.as_ref().map_or(0, |d| d.annotations.len());
        if read == 0 && !note.template && note.annotation_links + note.image_embeds > 0 {
            flagged.push(FlaggedNote {
                path: path.as_str().to_string(),
                listed: note.evidence.any(),
                annotation_links: note.annotation_links,
                image_embeds: note.image_embeds,
            });
        }
        if note.evidence.any() {
            notes.push(note_report(path, note));
        }
    })?;
    let report = &setup.report;
    let mut summary = Summary {
        notes_examined: examined,
        annotation_notes: notes.len(),
        annotations: notes.iter().map(|n| n.annotations).sum(),
        templates: report.templates.len(),
        templates_compiled: report.templates.iter().filter(|t| t.compiled).count(),
        flagged: flagged.len(),
        line: String::new(),
    };
    summary.line = summary_line(&summary);
    Ok(DoctorReport { setup: report.clone(), notes, flagged, summary })
}

fn note_report(path: &VaultPath, note: Examined) -> NoteReport {
    NoteReport {
        path: path.as_str().to_string(),
        citekey_from: note.citekey_from.describe(),
        citekey: note.citekey,
        annotations: note.doc.as_ref().map_or(0, |d| d.annotations.len()),
        template: note.doc.as_ref().map_or(TemplateStyle::Unknown, |d| d.template),
        found_by: note.evidence.reasons(),
    }
}

fn summary_line(s: &Summary) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{} ({}) in {}; {} of {} compiled; {} flagged.",
        plural(s.annotation_notes, "annotation note", "annotation notes"),
        plural(s.annotations, "annotation", "annotations"),
        plural(s.notes_examined, "note", "notes"),
        s.templates_compiled,
        plural(s.templates, "template", "templates"),
        plural(s.flagged, "note", "notes"),
    )
}

/// The template style in words.
fn style(t: TemplateStyle) -> String {
    if t == TemplateStyle::Unknown {
        return "no style recognised".into();
    }
    let name = serde_json::to_value(t).ok().and_then(|v| v.as_str().map(|s| s.replace('_', " ")));
    format!("read as {}", name.unwrap_or_default())
}

impl fmt::Display for DoctorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_setup(&mut out, &self.setup)?;
        writeln!(out, "\nAnnotation notes ({}):", self.notes.len())?;
        for n in &self.notes {
            writeln!(
                out,
                "  {}\n      citekey {} ({}); {} annotation{}, {}; found by {}",
                n.path,
                n.citekey,
                n.citekey_from,
                n.annotations,
                if n.annotations == 1 { "" } else { "s" },
                style(n.template),
                n.found_by.join(", ")
            )?;
        }
        if !self.flagged.is_empty() {
            writeln!(
                out,
                "\nFlagged: Zotero annotation links or images, but no annotation read ({}):",
                self.flagged.len()
            )?;
            for n in &self.flagged {
                writeln!(
                    out,
                    "  {}: {} annotation link{}, {} image embed{}{}",
                    n.path,
                    n.annotation_links,
                    if n.annotation_links == 1 { "" } else { "s" },
                    n.image_embeds,
                    if n.image_embeds == 1 { "" } else { "s" },
                    if n.listed { "" } else { "; not listed as an annotation note" }
                )?;
            }
        }
        writeln!(out, "\n{}", self.summary.line)?;
        f.write_str(&out)
    }
}

fn write_setup(out: &mut String, r: &SetupReport) -> fmt::Result {
    match &r.plugin_settings {
        Some(path) => writeln!(out, "Zotero Integration settings: {path}")?,
        None => writeln!(out, "Zotero Integration settings: none found")?,
    }
    if !r.output_paths.is_empty() {
        writeln!(out, "  note paths: {}", r.output_paths.join(", "))?;
    }
    for problem in &r.problems {
        writeln!(out, "  problem: {problem}")?;
    }
    if let Some(path) = &r.zotlit_settings {
        writeln!(
            out,
            "ZotLit settings: {path} (its templates are not compiled; their colour labels are read)"
        )?;
    }
    if !r.colour_labels.is_empty() {
        let labels: Vec<String> = r.colour_labels.iter().map(|l| format!("{} = {}", l.hex, l.name)).collect();
        writeln!(out, "  colour labels the templates print: {}", labels.join(", "))?;
    }
    if r.templates.is_empty() {
        writeln!(out, "Templates: none found (notes are read with the built-in rules)")?;
    } else {
        writeln!(out, "Templates:")?;
    }
    for t in &r.templates {
        let loops = format!("{} annotation loop{}", t.loops, if t.loops == 1 { "" } else { "s" });
        let state = if t.compiled { format!("compiled, {loops}") } else { "not compiled".to_string() };
        writeln!(out, "  {} (from {}): {state}", t.path, t.found_in)?;
        for problem in &t.problems {
            writeln!(out, "      problem: {problem}")?;
        }
    }
    Ok(())
}
