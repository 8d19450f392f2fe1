//! Where the vault is and which folders to use: one lookup order for the CLI and the MCP server.
//!
//! Vault: `--vault` > `OBSIDIAN_VAULT_PATH` > `vault_path` in `.zotero-mcp.toml` (working directory,
//! then the user's config directory) > the nearest ancestor of the working directory holding
//! `.obsidian/`. Folders: `OBSIDIAN_ANNOTATIONS_FOLDER` / `OBSIDIAN_SYNTHESIS_FOLDER` > the same keys
//! in `.zotero-mcp.toml` (working directory, vault root, config directory) > defaults.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The config file's name.
pub const CONFIG_FILE: &str = ".zotero-mcp.toml";

/// The process environment, injectable for tests.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// Environment variables.
    pub vars: HashMap<String, String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The user's config directory for Scholia (e.g. `~/.config/scholia`), if there is one.
    pub config_dir: Option<PathBuf>,
}

impl Env {
    /// The real environment of this process.
    pub fn from_process() -> Self {
        let vars: HashMap<String, String> = std::env::vars().collect();
        let config_dir = vars
            .get("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| vars.get("HOME").map(|h| Path::new(h).join(".config")))
            .map(|base| base.join("scholia"));
        Self { cwd: std::env::current_dir().unwrap_or_default(), vars, config_dir }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(|s| s.trim()).filter(|s| !s.is_empty())
    }
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The vault folder (canonical).
    pub vault: PathBuf,
    /// Where the vault path came from (`--vault`, `OBSIDIAN_VAULT_PATH`, a config file, `.obsidian`).
    pub vault_source: String,
    /// Default folder of the annotation tools (`None`: the whole vault).
    pub annotations_folder: Option<String>,
    /// Where summaries and syntheses are written.
    pub synthesis_folder: String,
    /// The Zotero Integration template the notes were written with (vault-relative), when set.
    pub template_path: Option<String>,
    /// Colour meanings from the `[colors]` table: (hex or Zotero colour name, meaning).
    pub colors: Vec<(String, String)>,
}

/// Why no usable configuration was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No vault was named anywhere and no `.obsidian` folder was found above the working directory.
    #[error(
        "no vault found: pass --vault DIR, set OBSIDIAN_VAULT_PATH, or run inside a vault (a folder with .obsidian/)"
    )]
    NoVault,
    /// The vault path given does not name a folder.
    #[error("vault {path} (from {source_name}) is not a folder; fix the path")]
    NotAFolder {
        /// The path.
        path: String,
        /// Where it came from.
        source_name: String,
    },
    /// A config file could not be read.
    #[error("{path} is not a valid config file: {reason}")]
    BadFile {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

#[derive(Debug, Default, Deserialize)]
struct FileConfig {
    #[serde(default)]
    obsidian: ObsidianSection,
    /// `[colors]`: hex or Zotero colour name → meaning.
    #[serde(default)]
    colors: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
struct ObsidianSection {
    vault_path: Option<String>,
    annotations_folder: Option<String>,
    synthesis_folder: Option<String>,
    template_path: Option<String>,
    #[serde(skip)]
    colors: Vec<(String, String)>,
}

fn read_file(dir: &Path) -> Result<Option<(PathBuf, ObsidianSection)>, ConfigError> {
    let path = dir.join(CONFIG_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    let parsed: FileConfig = toml::from_str(&text).map_err(|e| ConfigError::BadFile {
        path: path.display().to_string(),
        reason: e.message().to_string(),
    })?;
    let mut section = parsed.obsidian;
    section.colors = parsed.colors.into_iter().collect();
    Ok(Some((path, section)))
}

/// Resolves the configuration from the `--vault` flag (if given) and the environment.
pub fn resolve(flag_vault: Option<&Path>, env: &Env) -> Result<Config, ConfigError> {
    let cwd_file = read_file(&env.cwd)?;
    let user_file = match &env.config_dir {
        Some(dir) => read_file(dir)?,
        None => None,
    };
    let (vault, vault_source) = find_vault(flag_vault, env, &cwd_file, &user_file)?;
    let vault = absolutize(&env.cwd, &vault);
    let canonical = std::fs::canonicalize(&vault).ok().filter(|p| p.is_dir()).ok_or_else(|| {
        ConfigError::NotAFolder { path: vault.display().to_string(), source_name: vault_source.clone() }
    })?;
    let vault_file = if Some(canonical.as_path()) == env.cwd.canonicalize().ok().as_deref() {
        None
    } else {
        read_file(&canonical)?
    };
    let files: Vec<&ObsidianSection> =
        [&cwd_file, &vault_file, &user_file].into_iter().flatten().map(|(_, s)| s).collect();
    let pick = |var: &str, get: fn(&ObsidianSection) -> Option<&String>| {
        env.var(var).map(str::to_string).or_else(|| files.iter().find_map(|s| get(s).cloned()))
    };
    Ok(Config {
        vault: canonical,
        vault_source,
        annotations_folder: pick("OBSIDIAN_ANNOTATIONS_FOLDER", |s| s.annotations_folder.as_ref())
            .filter(|f| !f.trim().is_empty() && f.trim() != "/"),
        synthesis_folder: pick("OBSIDIAN_SYNTHESIS_FOLDER", |s| s.synthesis_folder.as_ref())
            .unwrap_or_else(|| "Synthesis".to_string()),
        template_path: pick("SCHOLIA_TEMPLATE_PATH", |s| s.template_path.as_ref())
            .filter(|p| !p.trim().is_empty()),
        colors: files.iter().find(|s| !s.colors.is_empty()).map(|s| s.colors.clone()).unwrap_or_default(),
    })
}

type Found = Option<(PathBuf, ObsidianSection)>;

fn find_vault(
    flag: Option<&Path>,
    env: &Env,
    cwd_file: &Found,
    user_file: &Found,
) -> Result<(PathBuf, String), ConfigError> {
    if let Some(flag) = flag {
        return Ok((flag.to_path_buf(), "--vault".into()));
    }
    if let Some(path) = env.var("OBSIDIAN_VAULT_PATH") {
        return Ok((PathBuf::from(path), "OBSIDIAN_VAULT_PATH".into()));
    }
    for (file, section) in [cwd_file, user_file].into_iter().flatten() {
        if let Some(path) = section.vault_path.as_deref().filter(|p| !p.trim().is_empty()) {
            let base = file.parent().unwrap_or(Path::new("."));
            return Ok((absolutize(base, Path::new(path)), file.display().to_string()));
        }
    }
    env.cwd
        .ancestors()
        .find(|dir| dir.join(".obsidian").is_dir())
        .map(|dir| (dir.to_path_buf(), "the .obsidian folder above the working directory".into()))
        .ok_or(ConfigError::NoVault)
}

fn absolutize(base: &Path, path: &Path) -> PathBuf {
    let expanded = match path.strip_prefix("~") {
        Ok(rest) => std::env::var_os("HOME").map_or_else(|| path.to_path_buf(), |h| Path::new(&h).join(rest)),
        Err(_) => path.to_path_buf(),
    };
    if expanded.is_absolute() { expanded } else { base.join(expanded) }
}
