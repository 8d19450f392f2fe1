//! Periodic notes (seed 004): get and delete the daily, weekly, monthly, quarterly or yearly note
//! of a date, where the Periodic Notes plugin (else the core Daily notes plugin) keeps it; and the
//! shared helpers every periodic tool uses (where a note lives, what a new one starts with).

use jiff::civil::Date;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::json;

use super::approval::{Ask, Round};
use super::reply::{MAX_ANSWER_BYTES, fail, ok, ok_content};
use super::server::Scholia;
use super::vault_params::{DeletePeriodicNote, GetPeriodicNote, NoteFormat};
use crate::note::Note;
use crate::periodic::{self, Period, PeriodSettings};
use crate::vault::{Vault, VaultPath};

/// The day a call names: YYYY-MM-DD, `today`, `yesterday` or `tomorrow`; today when absent.
pub(super) fn civil_date(raw: Option<&str>) -> Result<Date, String> {
    let today = jiff::Zoned::now().date();
    let bad = |d: &str| format!("date {d:?} is not YYYY-MM-DD, today, yesterday or tomorrow");
    match raw.map(str::trim) {
        None | Some("") => Ok(today),
        Some(d) => match d.to_ascii_lowercase().as_str() {
            "today" => Ok(today),
            "yesterday" => today.yesterday().map_err(|_| bad(d)),
            "tomorrow" => today.tomorrow().map_err(|_| bad(d)),
            _ => d.parse::<Date>().map_err(|_| bad(d)),
        },
    }
}

/// The first and last day of the `period` holding `date`.
fn bounds(period: Period, date: Date) -> (Date, Date) {
    let start = period.start(date);
    let next = match period {
        Period::Daily => start.tomorrow().ok(),
        Period::Weekly => start.checked_add(jiff::Span::new().weeks(1)).ok(),
        Period::Monthly => start.checked_add(jiff::Span::new().months(1)).ok(),
        Period::Quarterly => start.checked_add(jiff::Span::new().months(3)).ok(),
        Period::Yearly => start.checked_add(jiff::Span::new().years(1)).ok(),
    };
    // A period that runs past the calendar's last day ends on it.
    (start, next.map_or(Some(Date::MAX), |n| n.yesterday().ok()).unwrap_or(start))
}

impl Scholia {
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

    fn missing_periodic(
        &self,
        period: Period,
        date: Date,
        path: &VaultPath,
        settings: &PeriodSettings,
    ) -> String {
        let create = if period == Period::Daily {
            "daily_note_append creates it from its template".to_string()
        } else {
            format!("create_note with path {path:?} creates it")
        };
        format!(
            "there is no {} note for {date}: it would be {path} (settings from {}, format {:?}); {create}",
            period.name(),
            settings.source,
            settings.format
        )
    }
}

#[tool_router(router = periodic_tools, vis = "pub(super)")]
impl Scholia {
    /// Read the daily, weekly, monthly, quarterly or yearly note of today or of a given date, found where the Periodic Notes plugin (else the core Daily notes plugin) keeps it, with its moment.js file name format. format json adds frontmatter, tags and file stats. A missing note is an error that names the path it would have.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn obsidian_get_periodic_note(
        &self,
        Parameters(args): Parameters<GetPeriodicNote>,
    ) -> Result<CallToolResult, rmcp::ErrorData> {
        let period = Period::from(args.period);
        let date = match civil_date(args.date.as_deref()) {
            Ok(d) => d,
            Err(e) => return Ok(fail(e)),
        };
        let (path, settings) = match self.periodic_path(period, date) {
            Ok(found) => found,
            Err(e) => return Ok(fail(e)),
        };
        let Ok(text) = self.vault.read(&path) else {
            return Ok(fail(self.missing_periodic(period, date, &path, &settings)));
        };
        let (start, end) = bounds(period, date);
        let (from, part, truncated) = super::reply::part_of(&text, args.offset, MAX_ANSWER_BYTES - 3072);
        let mut value = json!({
            "path": path.as_str(),
            "period": period,
            "start": start.to_string(),
            "end": end.to_string(),
            "settings_source": settings.source,
            "content": part,
            "offset": from,
        });
        // What describes the note comes once, with its first part.
        if args.format == NoteFormat::Json && from == 0 {
            let note = Note::parse(&text);
            value["frontmatter"] = json!(note.frontmatter.data);
            value["tags"] = json!(note.tag_names());
            if let Ok(stat) = self.vault.stat(&path) {
                value["stat"] = json!({"mtime": stat.mtime_ms, "ctime": stat.ctime_ms, "size": stat.size});
            }
        }
        if truncated {
            value["truncated"] = json!(true);
            value["next"] = json!({"period": period, "date": date.to_string(), "offset": from + part.len()});
        }
        Ok(ok_content(value))
    }

    /// Delete the daily, weekly, monthly, quarterly or yearly note of today or of a given date: it goes to the vault's .trash/ (as Obsidian does) and the answer names where. Needs the user's approval; dryRun only says what would be deleted.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn obsidian_delete_periodic_note(
        &self,
        Parameters(args): Parameters<DeletePeriodicNote>,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let answer = |r: CallToolResult| Ok(r.into());
        let period = Period::from(args.period);
        let date = match civil_date(args.date.as_deref()) {
            Ok(d) => d,
            Err(e) => return answer(fail(e)),
        };
        let (path, settings) = match self.periodic_path(period, date) {
            Ok(found) => found,
            Err(e) => return answer(fail(e)),
        };
        if !self.vault.exists(&path) {
            return answer(fail(self.missing_periodic(period, date, &path, &settings)));
        }
        if args.write.dry_run {
            return answer(ok(
                json!({"path": path.as_str(), "period": period, "dry_run": true, "would_delete": true}),
            ));
        }
        let what = format!("delete the {} note {path} (it goes to .trash/)", period.name());
        let before = self.vault.read(&path).ok();
        let ask = Ask::destructive(&what, args.write);
        if let Err(refusal) = self.ask(&ctx, ask, Some(Round { state, responses })).await {
            return Ok(refusal);
        }
        match self.trash_approved(&path, before.as_deref(), &what) {
            Ok(trashed) => {
                answer(ok(json!({"path": path.as_str(), "period": period, "trashed_to": trashed.as_str()})))
            }
            Err(e) => answer(fail(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_have_bounds_and_dates_parse() {
        let d = |s: &str| s.parse::<Date>().unwrap();
        assert_eq!(bounds(Period::Weekly, d("2024-01-10")), (d("2024-01-07"), d("2024-01-13")));
        assert_eq!(bounds(Period::Quarterly, d("2024-05-10")), (d("2024-04-01"), d("2024-06-30")));
        assert_eq!(bounds(Period::Monthly, d("2024-02-10")), (d("2024-02-01"), d("2024-02-29")));
        assert_eq!(civil_date(Some("2024-02-29")).unwrap(), d("2024-02-29"));
        assert!(civil_date(Some("2024-02-30")).unwrap_err().contains("YYYY-MM-DD"));
        assert_eq!(civil_date(Some("Tomorrow")).unwrap(), jiff::Zoned::now().date().tomorrow().unwrap());
    }
}
