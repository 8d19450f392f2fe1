//! The setup from files handed over, for a front end that reads the vault itself (the plugin reads
//! through Obsidian's API, asynchronously): discovery runs over the files given, and every file or
//! folder it asks for that was not given is named in `needs`, to be read and handed over on the
//! next call. A few rounds settle it: the settings, then the templates they name, then the ones
//! those include.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde::Serialize;

use super::setup::{self, Setup, SetupReport};
use crate::vault::{Change, DirEntry, FileMeta, MemVault, Updated, Vault, VaultError, VaultPath};

/// What one round found.
#[derive(Debug, Clone, Serialize)]
pub struct Handed {
    /// Files to read and hand over next (vault paths; a folder ends with `/`, `/` alone is the
    /// whole vault: hand over its Markdown files that may be templates, and the folder itself
    /// with any text, to say it was listed). Empty when the setup is complete.
    pub needs: Vec<String>,
    /// What was found so far.
    pub report: SetupReport,
}

/// How discovery names the settings folder; the vault's own may be another (`config_dir`).
const CONFIG_DIR: &str = ".obsidian/";

/// Runs discovery over `files` (vault path → text, `None` for a file that does not exist; a key
/// ending with `/` says that folder's files are all among them). `config_dir` is the vault's
/// settings folder (Obsidian's `configDir`, `.obsidian` unless the user changed it): the
/// plugins' settings are asked for, and read, under it.
pub fn discover(
    files: &BTreeMap<String, Option<String>>,
    config_dir: &str,
    template_path: Option<&str>,
) -> (Setup, Handed) {
    let ours = format!("{}/", config_dir.trim_matches('/'));
    let files: BTreeMap<String, Option<String>> =
        files.iter().map(|(k, v)| (rebase(k, &ours, CONFIG_DIR), v.clone())).collect();
    let vault = HandedVault::new(&files);
    let setup = setup::discover(&vault, template_path);
    let needs = vault.needs.into_inner().unwrap_or_else(|e| e.into_inner());
    let needs = needs.iter().map(|n| rebase(n, CONFIG_DIR, &ours)).collect();
    let mut report = setup.report.clone();
    for path in [&mut report.plugin_settings, &mut report.zotlit_settings].into_iter().flatten() {
        *path = rebase(path, CONFIG_DIR, &ours);
    }
    let handed = Handed { needs, report };
    (setup, handed)
}

/// `path` with its leading folder `from` (ending with `/`) renamed `to`; any other path as is.
fn rebase(path: &str, from: &str, to: &str) -> String {
    path.strip_prefix(from).map_or_else(|| path.to_string(), |rest| format!("{to}{rest}"))
}

/// A read-only vault of the files handed over that notes what else was asked for.
struct HandedVault {
    files: MemVault,
    /// Paths given, with or without text.
    known: BTreeSet<String>,
    /// Folders given whole (`folder/`, `/` for the vault).
    listed: BTreeSet<String>,
    needs: Mutex<BTreeSet<String>>,
}

impl HandedVault {
    fn new(files: &BTreeMap<String, Option<String>>) -> Self {
        let (folders, given): (Vec<_>, Vec<_>) = files.iter().partition(|(k, _)| k.ends_with('/'));
        // A path the vault cannot hold is left out, as a file that does not exist.
        let texts: Vec<(&str, &str)> = given
            .iter()
            .filter(|(k, _)| VaultPath::new(k).is_ok())
            .filter_map(|(k, v)| v.as_deref().map(|t| (k.as_str(), t)))
            .collect();
        let files = MemVault::with_files(texts).unwrap_or_default();
        Self {
            files,
            known: given.iter().map(|(k, _)| k.to_string()).collect(),
            listed: folders.iter().map(|(k, _)| k.to_string()).collect(),
            needs: Mutex::new(BTreeSet::new()),
        }
    }

    fn need(&self, what: String) {
        self.needs.lock().unwrap_or_else(|e| e.into_inner()).insert(what);
    }

    fn folder_key(folder: &VaultPath) -> String {
        if folder.is_root() { "/".to_string() } else { format!("{}/", folder.as_str()) }
    }

    fn read_only(path: &VaultPath) -> VaultError {
        VaultError::InvalidPath {
            path: path.to_string(),
            reason: "the handed-over files are read-only".into(),
        }
    }
}

impl Vault for HandedVault {
    fn list(&self, folder: &VaultPath) -> Result<Vec<FileMeta>, VaultError> {
        let key = Self::folder_key(folder);
        // A folder inside one handed over whole is among its files (`/`: the notes that may be
        // templates, which is what a folder is listed for).
        if !self.listed.iter().any(|f| f == "/" || key.starts_with(f.as_str())) {
            self.need(key);
            return Ok(Vec::new());
        }
        Ok(self.files.list(folder).unwrap_or_default())
    }

    fn list_dir(&self, folder: &VaultPath) -> Result<Vec<DirEntry>, VaultError> {
        self.files.list_dir(folder)
    }

    fn read(&self, path: &VaultPath) -> Result<String, VaultError> {
        if !self.known.contains(path.as_str()) && !self.listed.iter().any(|f| in_folder(path, f)) {
            self.need(path.to_string());
        }
        self.files.read(path)
    }

    fn stat(&self, path: &VaultPath) -> Result<FileMeta, VaultError> {
        self.files.stat(path)
    }

    fn exists(&self, path: &VaultPath) -> bool {
        self.files.exists(path)
    }

    fn create_new(&self, path: &VaultPath, _: &str) -> Result<(), VaultError> {
        Err(Self::read_only(path))
    }

    fn write(&self, path: &VaultPath, _: &str) -> Result<(), VaultError> {
        Err(Self::read_only(path))
    }

    fn trash(&self, path: &VaultPath) -> Result<VaultPath, VaultError> {
        Err(Self::read_only(path))
    }

    fn rename(&self, from: &VaultPath, _: &VaultPath) -> Result<(), VaultError> {
        Err(Self::read_only(from))
    }

    fn absolute(&self, path: &VaultPath) -> String {
        path.to_string()
    }

    fn update_with(
        &self,
        path: &VaultPath,
        _: &mut dyn FnMut(Option<&str>) -> Change,
    ) -> Result<Updated, VaultError> {
        Err(Self::read_only(path))
    }
}

/// Whether `path` is in the folder `key` names (`folder/`). The whole vault (`/`) is handed over
/// only in part (the notes that may be templates), so it holds no other path for sure.
fn in_folder(path: &VaultPath, key: &str) -> bool {
    key != "/" && path.as_str().starts_with(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, Option<&str>)]) -> BTreeMap<String, Option<String>> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.map(str::to_string))).collect()
    }

    #[test]
    fn rounds_ask_for_the_settings_then_the_templates_they_name() {
        // Round 1: nothing given; discovery asks for both plugins' settings and, with no settings,
        // for the whole vault (templates may be notes).
        let (_, first) = discover(&BTreeMap::new(), ".obsidian", None);
        assert!(first.needs.contains(&setup::PLUGIN_SETTINGS.to_string()), "{:?}", first.needs);
        assert!(first.needs.contains(&setup::ZOTLIT_SETTINGS.to_string()), "{:?}", first.needs);
        // Round 2: Zotero Integration's settings name a template, which is asked for (the vault's
        // notes handed over as `/` are only those that may be templates).
        let data = r#"{"exportFormats":[{"templatePath":"Templates/zotero.md"}]}"#;
        let mut given =
            files(&[(setup::PLUGIN_SETTINGS, Some(data)), (setup::ZOTLIT_SETTINGS, None), ("/", None)]);
        let (_, second) = discover(&given, ".obsidian", None);
        assert_eq!(second.needs, ["Templates/zotero.md"]);
        // Round 3: the template given, the setup is complete and compiled.
        let template = "{% for annotation in annotations %}> {{annotation.annotatedText}}\n{% endfor %}";
        given.insert("Templates/zotero.md".into(), Some(template.into()));
        let (setup, third) = discover(&given, ".obsidian", None);
        assert!(third.needs.is_empty(), "{:?}", third.needs);
        assert_eq!(setup.templates.len(), 1);
        assert!(third.report.templates[0].compiled);
    }

    #[test]
    fn a_zotlit_folder_is_asked_for_whole_and_its_labels_read() {
        // The vault's settings folder is named `.config`: the settings are asked for there.
        let (_, first) = discover(&BTreeMap::new(), ".config", None);
        assert!(first.needs.contains(&".config/plugins/zotlit/data.json".to_string()), "{:?}", first.needs);
        let data = r#"{"template":{"folder":"Zt"}}"#;
        let mut given = files(&[
            (".config/plugins/obsidian-zotero-desktop-connector/data.json", None),
            (".config/plugins/zotlit/data.json", Some(data)),
        ]);
        let (_, first) = discover(&given, ".config", None);
        assert!(first.needs.contains(&"Zt/".to_string()), "{:?}", first.needs);
        given.insert("Zt/".into(), Some(String::new()));
        given.insert("/".into(), Some(String::new()));
        given.insert("Zt/zt-annots.eta.md".into(), Some(r#"<% const label = {"red": "Gaps"} %>"#.into()));
        let (setup, done) = discover(&given, ".config", None);
        assert!(done.needs.is_empty(), "{:?}", done.needs);
        let labels: Vec<(String, String)> =
            setup.report.colour_labels.iter().map(|l| (l.hex.clone(), l.name.clone())).collect();
        assert_eq!(labels, [("#ff6666".to_string(), "Gaps".to_string())]);
    }
}
