//! The wasm binding used by the Obsidian plugin: the only file that knows `wasm_bindgen`.
//!
//! Each export takes plain JS values (DTOs), calls the core, and returns plain objects
//! (serde-wasm-bindgen's JSON-compatible serializer) or throws a JS `Error` whose message says
//! what was wrong. No text offsets cross this boundary.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::annotations::{self, ColorMap, ParseOptions, PrefixTable};
use crate::library::{self, setup::Setup};
use crate::note::Note;
use crate::synthesis::{self, GroupTitles, RenderOptions, SourceNote};
use crate::vault::{VaultPath, naming};

/// Installs the panic hook, so a bug shows a Rust message in the console instead of "unreachable".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The plugin's settings, as far as the core needs them. Every field is optional.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Settings {
    colors: Option<ColorMap>,
    prefixes: Option<PrefixTable>,
    titles: Option<GroupTitles>,
    /// The `created` date of written notes, `YYYY-MM-DD`.
    date: Option<String>,
    /// The date as file names write it (`{{date}}` in name patterns), in the user's format.
    name_date: Option<String>,
    theme: Option<String>,
    /// Where the plugin looks for annotation notes and writes results (checked by
    /// `validateSettings` only; the plugin does the looking and writing).
    annotations_folder: Option<String>,
    synthesis_folder: Option<String>,
    summary_pattern: Option<String>,
    synthesis_pattern: Option<String>,
}

thread_local! {
    /// The vault's setup, as the last complete `loadSetup` found it (none before).
    static SETUP: std::cell::RefCell<Option<Setup>> = const { std::cell::RefCell::new(None) };
}

impl Settings {
    /// The parse options: the plugin's colours and prefixes, the templates `loadSetup` compiled.
    fn parse_options(&self) -> ParseOptions {
        let mut options =
            SETUP.with_borrow(|setup| setup.as_ref().map(|s| s.parse_options(&[]))).unwrap_or_default();
        options.colors = self.colors.clone().unwrap_or_default();
        options.prefixes = self.prefixes.clone().unwrap_or_default();
        options
    }

    fn render_options(&self) -> RenderOptions {
        RenderOptions {
            date: self.date.clone().unwrap_or_default(),
            titles: self.titles.clone().unwrap_or_default(),
            theme: self.theme.clone().filter(|t| !t.trim().is_empty()),
            palette: self
                .colors
                .as_ref()
                .filter(|c| **c != ColorMap::default())
                .map(|_| "the plugin's colour settings".to_string()),
        }
    }

    fn name_date(&self) -> String {
        self.name_date.clone().or_else(|| self.date.clone()).unwrap_or_default()
    }
}

/// One note handed over by the plugin: its text, vault path, and the link text Obsidian resolves
/// to it (`fileToLinktext`).
#[derive(Debug, Deserialize)]
struct NoteInput {
    text: String,
    path: String,
    link: String,
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

fn from_js<T: DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| JsError::new(&format!("{what} are not valid: {e}")))
}

fn source(note: NoteInput, settings: &Settings) -> SourceNote {
    library::source_of(&note.text, &note.path, note.link, &settings.parse_options())
}

/// Finds the vault's Zotero setup (Zotero Integration's settings and templates, ZotLit's
/// templates) in the files the plugin read: `files` maps vault paths (settings under
/// `configDir/plugins/…`) to their text, or `null` for a file that does not exist. Answers
/// `{needs, report}`: `needs` names the files (a folder ends with `/`) still to read and hand over
/// on the next call; when it is empty the setup is complete, and every later call reads notes
/// with its templates. `report` is what was found, for the settings tab.
#[wasm_bindgen(js_name = loadSetup)]
pub fn load_setup(files: JsValue, config_dir: &str) -> Result<JsValue, JsError> {
    let files: BTreeMap<String, Option<String>> = from_js(files, "the setup files")?;
    let (setup, handed) = library::handed::discover(&files, config_dir, None);
    if handed.needs.is_empty() {
        SETUP.set(Some(setup));
    }
    to_js(&handed)
}

/// Parses an annotation note into `{citekey, title, file_path, annotations, …, diagnostics}`.
#[wasm_bindgen(js_name = parseNote)]
pub fn parse_note(text: &str, path: &str, settings: JsValue) -> Result<JsValue, JsError> {
    let settings: Settings = from_js(settings, "settings")?;
    to_js(&annotations::parse(text, path, &settings.parse_options()))
}

/// Whether a note is an annotation note (`category: Annotations`, or annotations recognised).
#[wasm_bindgen(js_name = isAnnotationNote)]
pub fn is_annotation_note(text: &str, settings: JsValue) -> Result<bool, JsError> {
    let settings: Settings = from_js(settings, "settings")?;
    Ok(annotations::is_annotation_note(text, &settings.parse_options()))
}

/// A rendered note and the variables its name pattern may use.
#[derive(Serialize)]
struct Rendered {
    markdown: String,
    title: String,
    vars: BTreeMap<&'static str, String>,
}

/// The summary of one note `{text, path, link}`: `{markdown, title, vars: {title, citekey, date}}`.
#[wasm_bindgen]
pub fn summarize(note: JsValue, settings: JsValue) -> Result<JsValue, JsError> {
    let settings: Settings = from_js(settings, "settings")?;
    let note: NoteInput = serde_wasm_bindgen::from_value(note)
        .map_err(|e| JsError::new(&format!("the note is not valid: {e}")))?;
    let source = source(note, &settings);
    let markdown = synthesis::summarize(&source, &settings.render_options());
    let title = source.doc.title.clone();
    let vars = BTreeMap::from([
        ("title", title.clone()),
        ("citekey", source.doc.citekey.clone()),
        ("date", settings.name_date()),
    ]);
    to_js(&Rendered { markdown, title, vars })
}

/// The synthesis of notes `[{text, path, link}]`: `{markdown, title, vars: {theme, date}}` (the
/// title, the theme the synthesis is about, names the note).
#[wasm_bindgen]
pub fn synthesize(notes: JsValue, settings: JsValue) -> Result<JsValue, JsError> {
    let settings: Settings = from_js(settings, "settings")?;
    let notes: Vec<NoteInput> = serde_wasm_bindgen::from_value(notes)
        .map_err(|e| JsError::new(&format!("the notes are not valid: {e}")))?;
    let sources: Vec<SourceNote> = notes.into_iter().map(|n| source(n, &settings)).collect();
    let render = settings.render_options();
    let markdown = synthesis::synthesize(&sources, &render).map_err(|e| JsError::new(&e.to_string()))?;
    let title = synthesis::synthesis_title(&sources, &render);
    let vars = BTreeMap::from([("theme", title.clone()), ("date", settings.name_date())]);
    to_js(&Rendered { markdown, title, vars })
}

/// What the picker shows of a note: `{isAnnotation, citekey, title, tags, annotations}` (the
/// number of annotations).
#[wasm_bindgen(js_name = describeNote)]
pub fn describe_note(text: &str, path: &str, settings: JsValue) -> Result<JsValue, JsError> {
    let settings: Settings = from_js(settings, "settings")?;
    let options = settings.parse_options();
    let is_annotation = annotations::is_annotation_note(text, &options);
    let doc = annotations::parse(text, path, &options);
    to_js(&serde_json::json!({
        "isAnnotation": is_annotation,
        "citekey": doc.citekey,
        "title": doc.title,
        "tags": doc.tags,
        "annotations": doc.annotations.len(),
    }))
}

/// The links of a Markdown text (an editor selection): `[{target, subpath, embed}]`, links into
/// the vault only, in order. Links inside code are not links.
#[wasm_bindgen(js_name = noteLinks)]
pub fn note_links(text: &str) -> Result<JsValue, JsError> {
    let note = Note::parse(text);
    let links: Vec<serde_json::Value> = note
        .links
        .iter()
        .filter(|l| !l.external)
        .map(|l| serde_json::json!({"target": l.target, "subpath": l.subpath, "embed": l.embed}))
        .collect();
    to_js(&links)
}

/// The vault path for a new result note: `pattern` filled from `vars` (`{title, citekey, theme,
/// date}`), in `folder`, numbered instead of overwriting any of `existing`.
#[wasm_bindgen(js_name = resultPath)]
pub fn result_path(
    folder: &str,
    pattern: &str,
    vars: JsValue,
    existing: Vec<String>,
) -> Result<String, JsError> {
    let vars: BTreeMap<String, String> = from_js(vars, "the name variables")?;
    let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let taken: std::collections::HashSet<String> = existing.iter().map(|p| p.to_lowercase()).collect();
    let path = naming::result_path(folder, pattern, &pairs, |p| taken.contains(&p.as_str().to_lowercase()))
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(path.as_str().to_string())
}

/// Problems with the settings, one readable message each (empty when they are fine).
#[wasm_bindgen(js_name = validateSettings)]
pub fn validate_settings(settings: JsValue) -> Result<Vec<String>, JsError> {
    let settings: Settings = from_js(settings, "settings")?;
    let mut problems = settings.colors.as_ref().map(ColorMap::validate).unwrap_or_default();
    for (what, folder, write) in [
        ("annotations folder", &settings.annotations_folder, false),
        ("synthesis folder", &settings.synthesis_folder, true),
    ] {
        let Some(folder) = folder else { continue };
        match VaultPath::new(folder) {
            Err(e) => problems.push(format!("{what}: {e}")),
            Ok(path) if write && path.is_protected() => problems.push(format!(
                "{what}: {folder} is inside .obsidian, .git or .trash, where Scholia never writes; choose another folder"
            )),
            Ok(_) => {}
        }
    }
    for (what, pattern) in
        [("summary name", &settings.summary_pattern), ("synthesis name", &settings.synthesis_pattern)]
    {
        if pattern.as_deref().is_some_and(|p| p.trim().is_empty()) {
            problems.push(format!("{what}: the pattern is empty; for example {}", naming::SUMMARY_PATTERN));
        }
    }
    if let Some(prefixes) = &settings.prefixes {
        for (i, entry) in prefixes.entries.iter().enumerate() {
            if entry.prefix.trim().is_empty() {
                problems.push(format!("comment prefix row {}: the prefix is empty", i + 1));
            }
        }
    }
    Ok(problems)
}

/// The default settings: seed 001's colour map, comment prefixes and group titles.
#[wasm_bindgen(js_name = defaultSettings)]
pub fn default_settings() -> Result<JsValue, JsError> {
    to_js(&Settings {
        colors: Some(ColorMap::default()),
        prefixes: Some(PrefixTable::default()),
        titles: Some(GroupTitles::default()),
        date: None,
        name_date: None,
        theme: None,
        annotations_folder: Some(String::new()),
        synthesis_folder: Some(naming::NamingOptions::default().folder),
        summary_pattern: Some(naming::SUMMARY_PATTERN.into()),
        synthesis_pattern: Some(naming::SYNTHESIS_PATTERN.into()),
    })
}
