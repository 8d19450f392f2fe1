//! The user's Zotero Integration setup, found in the vault: the plugin's settings (`data.json`:
//! export formats, their templates and output paths), the templates compiled, and what could not
//! be read. Pure over [`Vault`]. The settings and templates are read here only: nothing returns
//! their text (plugin settings may hold secrets).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::pattern::NotePattern;
use crate::annotations::template::Template;
use crate::annotations::{ColorEntry, ParseOptions, colors};
use crate::vault::{Vault, VaultPath};

/// Where Zotero Integration keeps its settings.
pub const PLUGIN_SETTINGS: &str = ".obsidian/plugins/obsidian-zotero-desktop-connector/data.json";
/// Where ZotLit keeps its settings (its templates' folder among them).
pub const ZOTLIT_SETTINGS: &str = ".obsidian/plugins/zotlit/data.json";
/// ZotLit's templates' folder when its settings name none.
const ZOTLIT_FOLDER: &str = "ZtTemplates";

/// What was found, for `scholia doctor`, `obsidian_check_status` and the plugin's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SetupReport {
    /// The plugin settings file, when the vault has one.
    pub plugin_settings: Option<String>,
    /// The export formats' note paths (`outputPathTemplate`), e.g. `References/@{{citekey}}.md`.
    pub output_paths: Vec<String>,
    /// Every template looked at.
    pub templates: Vec<TemplateReport>,
    /// Problems with the settings themselves.
    pub problems: Vec<String>,
    /// ZotLit's settings file, when the vault has one (its templates are not compiled; their
    /// colour labels are read).
    pub zotlit_settings: Option<String>,
    /// The labels the templates give Zotero's colours (`label[color]` group headings).
    pub colour_labels: Vec<ColorEntry>,
}

/// One template and how it compiled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TemplateReport {
    /// Vault-relative path.
    pub path: String,
    /// Why it was looked at: `settings` (a `.zotero-mcp.toml` `template_path`), `data.json`
    /// (an export format), or `vault` (a note holding an annotation loop).
    pub found_in: String,
    /// Whether it compiled into a reader.
    pub compiled: bool,
    /// How many loops over the annotations it has.
    pub loops: usize,
    /// Why it did not compile, or the constructs read only loosely.
    pub problems: Vec<String>,
}

/// The setup: the compiled templates, the note paths as matchers, and the report.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// Templates that compiled, best first.
    pub templates: Vec<Arc<Template>>,
    /// The export formats' note paths that could be read as patterns.
    pub patterns: Vec<NotePattern>,
    /// What was found.
    pub report: SetupReport,
}

impl Setup {
    /// The parse options this setup gives: its templates and colour labels, the colour meanings
    /// of the configuration (`[colors]`) before the default map.
    pub fn parse_options(&self, colors: &[(String, String)]) -> ParseOptions {
        let mut options = ParseOptions {
            templates: self.templates.clone(),
            colour_labels: self.report.colour_labels.clone(),
            ..ParseOptions::default()
        };
        options.colors.put_first(colors);
        options
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ZotlitSettings {
    template: ZotlitTemplates,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ZotlitTemplates {
    folder: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PluginSettings {
    #[serde(default)]
    export_formats: Vec<ExportFormat>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct ExportFormat {
    output_path_template: Option<String>,
    template_path: Option<String>,
    annotation_template_path: Option<String>,
}

/// How Zotero Integration names a template file: `.md` added, a leading `/` removed.
fn template_file(raw: &str) -> Option<VaultPath> {
    let raw = raw.trim().trim_start_matches('/');
    if raw.is_empty() {
        return None;
    }
    let name = if raw.ends_with(".md") { raw.to_string() } else { format!("{raw}.md") };
    VaultPath::new(&name).ok()
}

/// Finds and compiles the vault's templates: `template_path` (Scholia's settings) first, then the
/// export formats of Zotero Integration's settings and the other templates in their folders, else
/// (none named) the notes of the vault that hold a loop over the annotations.
pub fn discover(vault: &dyn Vault, template_path: Option<&str>) -> Setup {
    let mut setup = Setup::default();
    let mut candidates: Vec<(VaultPath, &str)> = Vec::new();
    if let Some(path) = template_path.and_then(template_file) {
        candidates.push((path, "settings"));
    }
    if let Some(read) = plugin_settings(vault) {
        setup.report.plugin_settings = Some(PLUGIN_SETTINGS.to_string());
        match read {
            Ok(settings) => {
                for format in settings.export_formats {
                    if let Some(raw) = format.output_path_template.filter(|p| !p.trim().is_empty()) {
                        match NotePattern::parse(&raw) {
                            Ok(pattern) => setup.patterns.push(pattern),
                            Err(problem) => setup.report.problems.push(problem),
                        }
                        setup.report.output_paths.push(raw);
                    }
                    let path = format.template_path.or(format.annotation_template_path);
                    if let Some(path) = path.as_deref().and_then(template_file)
                        && !candidates.iter().any(|(p, _)| *p == path)
                    {
                        candidates.push((path, "data.json"));
                    }
                }
            }
            Err(problem) => setup.report.problems.push(problem),
        }
    }
    // The other templates beside a named one: older notes were often written with a template
    // the user has since replaced in the same folder.
    let mut folders: Vec<VaultPath> =
        candidates.iter().map(|(p, _)| p.parent().unwrap_or_default()).collect();
    folders.sort();
    folders.dedup();
    for folder in folders.iter().filter(|f| !f.as_str().is_empty()) {
        for path in template_notes(vault, folder) {
            if !candidates.iter().any(|(p, _)| *p == path) {
                candidates.push((path, "the named template's folder"));
            }
        }
    }
    if candidates.is_empty() {
        candidates.extend(template_notes(vault, &VaultPath::root()).into_iter().map(|p| (p, "vault")));
    }
    for (path, found_in) in candidates {
        let (template, report, labels) = compile(vault, &path, found_in);
        setup.report.templates.push(report);
        setup.templates.extend(template.map(Arc::new));
        add_labels(&mut setup.report.colour_labels, labels);
    }
    zotlit(vault, &mut setup.report);
    setup
}

/// ZotLit's setup: its settings name the templates' folder, whose templates may give Zotero's
/// colours labels of their own. The templates are Eta (or Liquid), not compiled here.
fn zotlit(vault: &dyn Vault, report: &mut SetupReport) {
    let Ok(path) = VaultPath::new(ZOTLIT_SETTINGS) else { return };
    let Ok(text) = vault.read(&path) else { return };
    report.zotlit_settings = Some(ZOTLIT_SETTINGS.to_string());
    let folder = match serde_json::from_str::<ZotlitSettings>(&text) {
        Ok(settings) => settings.template.folder.unwrap_or_else(|| ZOTLIT_FOLDER.to_string()),
        Err(e) => {
            report.problems.push(format!("{ZOTLIT_SETTINGS} could not be read: {e}"));
            return;
        }
    };
    let Ok(folder) = VaultPath::new(folder.trim().trim_matches('/')) else { return };
    let Ok(files) = vault.list(&folder) else { return };
    for file in files.iter().filter(|f| f.path.is_markdown() && f.size < 256 * 1024) {
        if let Ok(text) = vault.read(&file.path) {
            add_labels(&mut report.colour_labels, colors::labels_in_template(&text));
        }
    }
}

/// Adds the labels of colours that have none yet.
fn add_labels(into: &mut Vec<ColorEntry>, labels: Vec<ColorEntry>) {
    for label in labels {
        if !into.iter().any(|l| l.hex == label.hex) {
            into.push(label);
        }
    }
}

/// The export formats' note paths that can be read as patterns: only the plugin settings are
/// read (no template is compiled), for a listing that has no [`Setup`] at hand.
pub fn note_patterns(vault: &dyn Vault) -> Vec<NotePattern> {
    let Some(Ok(settings)) = plugin_settings(vault) else { return Vec::new() };
    settings
        .export_formats
        .into_iter()
        .filter_map(|f| NotePattern::parse(f.output_path_template.as_deref()?).ok())
        .collect()
}

/// Zotero Integration's settings: `None` when the vault has none, an error in words when they
/// cannot be read.
fn plugin_settings(vault: &dyn Vault) -> Option<Result<PluginSettings, String>> {
    let text = vault.read(&VaultPath::new(PLUGIN_SETTINGS).ok()?).ok()?;
    Some(serde_json::from_str(&text).map_err(|e| format!("{PLUGIN_SETTINGS} could not be read: {e}")))
}

/// Compiles the template at `path`; also returns the colour labels its text spells out.
fn compile(
    vault: &dyn Vault,
    path: &VaultPath,
    found_in: &str,
) -> (Option<Template>, TemplateReport, Vec<ColorEntry>) {
    let mut report = TemplateReport {
        path: path.as_str().to_string(),
        found_in: found_in.to_string(),
        compiled: false,
        loops: 0,
        problems: Vec::new(),
    };
    let source = match vault.read(path) {
        Ok(s) => s,
        Err(e) => {
            report.problems.push(format!("the template could not be read: {e}"));
            return (None, report, Vec::new());
        }
    };
    let loader = |name: &str| {
        let target = name.trim().trim_start_matches("[[").trim_end_matches("]]");
        template_file(target).and_then(|p| vault.read(&p).ok())
    };
    let labels = colors::labels_in_template(&source);
    match Template::compile(path.as_str(), &source, &loader) {
        Ok(t) => {
            report.compiled = true;
            report.loops = t.loop_count();
            report.problems = t.problems.iter().map(|(line, m)| line_message(*line, m)).collect();
            (Some(t), report, labels)
        }
        Err(e) => {
            report.problems.push(line_message(e.line, &e.message));
            (None, report, labels)
        }
    }
}

fn line_message(line: usize, message: &str) -> String {
    if line > 0 { format!("line {line}: {message}") } else { message.to_string() }
}

/// Notes that look like Zotero Integration templates: a Nunjucks loop and the annotation text.
fn template_notes(vault: &dyn Vault, folder: &VaultPath) -> Vec<VaultPath> {
    let Ok(files) = vault.list(folder) else { return Vec::new() };
    let mut found = Vec::new();
    for meta in files.iter().filter(|f| f.path.is_markdown() && f.size < 256 * 1024) {
        let Ok(text) = vault.read(&meta.path) else { continue };
        let bytes = text.as_bytes();
        if memchr::memmem::find(bytes, b"{%").is_some()
            && memchr::memmem::find(bytes, b"annotatedText").is_some()
            && memchr::memmem::find(bytes, b"in annot").is_some()
        {
            found.push(meta.path.clone());
        }
        if found.len() >= 16 {
            break;
        }
    }
    found
}
