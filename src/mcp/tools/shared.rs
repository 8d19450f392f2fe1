//! What more than one toolset uses: the answer of a dry run, appending whole lines to a note,
//! refusals and not-found hints, a note's wikilink, and where the vault keeps its periodic notes
//! (the periodic tools, and the periodicNote target of `obsidian_update_file`).

use jiff::civil::Date;
use rmcp::model::{CallToolResponse, CallToolResult};
use serde_json::{Value, json};

use crate::mcp::reply::{MAX_ANSWER_BYTES, cut_text, fail, ok};
use crate::mcp::server::Scholia;
use crate::note::diff;
use crate::periodic::{self, Period, PeriodSettings, PeriodicSettings};
use crate::vault::{Change, Vault, VaultError, VaultExt as _, VaultPath};

/// Appends `content` as whole lines: on a new line after the existing text (or `seed`, when the
/// note is created), ending with a line end; one locked step. Returns whether the note was created.
pub(super) fn append_lines(
    vault: &dyn Vault,
    path: &VaultPath,
    seed: &str,
    content: &str,
) -> Result<bool, VaultError> {
    let updated = vault.update(path, |old| {
        let base = old.unwrap_or(seed);
        Ok::<_, VaultError>(Change::Write(format!("{base}{}", line_suffix(base, content))))
    })?;
    Ok(updated.created)
}

/// What [`append_lines`] adds after `existing`.
pub(super) fn line_suffix(existing: &str, content: &str) -> String {
    let sep = if existing.is_empty() || existing.ends_with('\n') { "" } else { "\n" };
    let end = if content.ends_with('\n') { "" } else { "\n" };
    format!("{sep}{content}{end}")
}

/// The text of the file at `path`, empty when there is none.
pub(super) fn existing_text(vault: &dyn Vault, path: &VaultPath) -> Result<String, VaultError> {
    match vault.read(path) {
        Ok(text) => Ok(text),
        Err(VaultError::NotFound { .. }) => Ok(String::new()),
        Err(err) => Err(err),
    }
}

/// A refusal sent before anything is written.
pub(super) fn refuse(err: impl ToString) -> CallToolResponse {
    fail(err.to_string()).into()
}

/// A note's wikilink: `[[name]]`.
pub(super) fn wikilink(path: &VaultPath) -> String {
    format!("[[{}]]", path.stem())
}

/// A read error as an agent can act on it: a missing note says where to look for notes.
pub(super) fn not_found_hint(err: VaultError) -> String {
    match err {
        VaultError::NotFound { path } => {
            format!(
                "{path} does not exist in the vault; find notes with search_vault or obsidian_list_annotation_files"
            )
        }
        other => other.to_string(),
    }
}

impl Scholia {
    /// The answer of a dry run: the diff from `before` to `after`, cut to fit, plus `fields`.
    pub(super) fn dry_run_answer(
        path: &VaultPath,
        before: &str,
        after: &str,
        mut fields: Value,
    ) -> CallToolResult {
        let shown = diff::for_path(path.as_str(), before, after);
        let (cut, truncated) = cut_text(&shown, MAX_ANSWER_BYTES - 4096);
        fields["path"] = json!(path.as_str());
        fields["dry_run"] = json!(true);
        fields["changed"] = json!(before != after);
        fields["diff"] = json!(cut);
        if truncated {
            fields["truncated"] = json!(true);
        }
        ok(fields)
    }

    /// The vault's periodic-note settings (Periodic Notes plugin, else core Daily notes).
    fn periodic_settings(&self) -> PeriodicSettings {
        let read =
            |p: &str| VaultPath::new(&format!(".obsidian/{p}")).ok().and_then(|p| self.vault.read(&p).ok());
        let periodic = read(periodic::PERIODIC_NOTES_DATA);
        let daily = read(periodic::DAILY_NOTES_DATA);
        PeriodicSettings::from_json(periodic.as_deref(), daily.as_deref()).0
    }

    /// Where the `period` note holding `date` lives, with the period's settings.
    pub(super) fn periodic_path(
        &self,
        period: Period,
        date: Date,
    ) -> Result<(VaultPath, PeriodSettings), String> {
        let settings = self.periodic_settings().get(period);
        let path = periodic::note_path(&settings, period, date).map_err(|e| {
            format!("the {} note format {:?} does not give a valid path: {e}", period.name(), settings.format)
        })?;
        Ok((path, settings))
    }

    /// The text a new `period` note for `date` starts with: its template (when the settings name
    /// one that exists) filled as the plugins fill it, else nothing.
    pub(super) fn periodic_template(&self, period: Period, settings: &PeriodSettings, date: Date) -> String {
        periodic::template_path(settings)
            .and_then(Result::ok)
            .and_then(|t| self.vault.read(&t).ok())
            .map(|t| {
                let now = jiff::Zoned::now().datetime();
                periodic::fill_template(&t, period, &settings.format, date, now)
            })
            .unwrap_or_default()
    }
}
