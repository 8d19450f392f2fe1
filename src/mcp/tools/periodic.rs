//! The periodic toolset (seed 004): append to the daily note, and get or delete the daily,
//! weekly, monthly, quarterly or yearly note of a date, where the Periodic Notes plugin (else the
//! core Daily notes plugin) keeps it. Where a periodic note lives and what a new one starts with
//! are in `shared.rs` (the edit tools' periodicNote target uses them too). Each tool's arguments
//! follow the router.

use jiff::civil::Date;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::shared::{append_lines, existing_text, line_suffix};
use crate::mcp::approval::{Ask, Round, Write};
use crate::mcp::reply::schema;
use crate::mcp::reply::{Answer, MAX_ANSWER_BYTES, attempt, fail, ok, ok_content};
use crate::mcp::server::Scholia;
use crate::note::Note;
use crate::periodic::{Period, PeriodSettings};
use crate::vault::{Vault, VaultPath};

/// The day a call names: YYYY-MM-DD, `today`, `yesterday` or `tomorrow`; today when absent.
fn civil_date(raw: Option<&str>) -> Result<Date, String> {
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

#[tool_router(router = periodic, vis = "pub(super)")]
impl Scholia {
    /// Append Markdown to the daily note of today (or of year/month/day), creating it (from the daily-note template) when missing. Follows the Periodic Notes plugin's settings, else the core Daily notes settings.
    #[tool(output_schema = schema::<answers::DailyNoteAppendAnswer>(), annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn daily_note_append(
        &self,
        Parameters(args): Parameters<DailyNoteAppend>,
        ctx: RequestContext<RoleServer>,
    ) -> Answer {
        let today = jiff::Zoned::now().date();
        let date = attempt!(
            jiff::civil::Date::new(
                args.year.unwrap_or(today.year()),
                args.month.unwrap_or(today.month()),
                args.day.unwrap_or(today.day()),
            )
            .map_err(|_| "year, month and day do not make a date".to_string())
        );
        let (path, period) = attempt!(self.periodic_path(Period::Daily, date));
        if args.write.dry_run {
            let exists = self.vault.exists(&path);
            let before = attempt!(existing_text(self.vault.as_ref(), &path));
            let start =
                if exists { before.clone() } else { self.periodic_template(Period::Daily, &period, date) };
            let after = format!("{start}{}", line_suffix(&start, &args.content));
            let fields = json!({"would_create": !exists, "date": date.to_string()});
            return Ok(Self::dry_run_answer(&path, &before, &after, fields));
        }
        attempt!(
            self.ask_now(&ctx, Ask::edit(&format!("append to the daily note {path}"), args.write)).await
        );
        let seed = match self.vault.exists(&path) {
            true => String::new(),
            false => self.periodic_template(Period::Daily, &period, date),
        };
        let created = attempt!(append_lines(self.vault.as_ref(), &path, &seed, &args.content));
        let value = json!({"path": path.as_str(), "created": created, "date": date.to_string()});
        Ok(ok(self.link_checked(value, &path, &args.content)))
    }

    /// Read the daily, weekly, monthly, quarterly or yearly note of today or of a given date, found where the Periodic Notes plugin (else the core Daily notes plugin) keeps it, with its moment.js file name format. format json adds frontmatter, tags and file stats. A missing note is an error that names the path it would have.
    #[tool(output_schema = schema::<answers::ObsidianGetPeriodicNoteAnswer>(), annotations(
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
        let (from, part, truncated) = crate::mcp::reply::part_of(&text, args.offset, MAX_ANSWER_BYTES - 3072);
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
    #[tool(output_schema = schema::<answers::ObsidianDeletePeriodicNoteAnswer>(), annotations(
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

/// `daily_note_append`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DailyNoteAppend {
    /// Markdown to append to the daily note.
    pub content: String,
    /// Year of the day (default: today).
    pub year: Option<i16>,
    /// Month 1-12 (default: today).
    pub month: Option<i8>,
    /// Day of the month (default: today).
    pub day: Option<i8>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// `obsidian_get_periodic_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetPeriodicNote {
    /// daily, weekly, monthly, quarterly or yearly.
    pub period: PeriodName,
    /// Any day of the period: YYYY-MM-DD, `today`, `yesterday` or `tomorrow` (default today).
    pub date: Option<String>,
    /// markdown (the text) or json (text, frontmatter, tags, stats). Default markdown.
    #[serde(default)]
    pub format: NoteFormat,
    /// Byte offset to start reading at, for long notes (the answer gives the next one).
    #[serde(default)]
    pub offset: usize,
}

/// `obsidian_delete_periodic_note`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeletePeriodicNote {
    /// daily, weekly, monthly, quarterly or yearly.
    pub period: PeriodName,
    /// Any day of the period: YYYY-MM-DD, `today`, `yesterday` or `tomorrow` (default today).
    pub date: Option<String>,
    /// `dryRun` and `confirm`, as every writing tool takes them.
    #[serde(flatten)]
    pub write: Write,
}

/// A note period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PeriodName {
    /// The daily note.
    Daily,
    /// The weekly note.
    Weekly,
    /// The monthly note.
    Monthly,
    /// The quarterly note.
    Quarterly,
    /// The yearly note.
    Yearly,
}

impl From<PeriodName> for Period {
    fn from(p: PeriodName) -> Self {
        match p {
            PeriodName::Daily => Period::Daily,
            PeriodName::Weekly => Period::Weekly,
            PeriodName::Monthly => Period::Monthly,
            PeriodName::Quarterly => Period::Quarterly,
            PeriodName::Yearly => Period::Yearly,
        }
    }
}

/// How a note is returned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoteFormat {
    /// The Markdown text.
    #[default]
    Markdown,
    /// The text plus frontmatter, tags and file stats.
    Json,
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

/// What the tools answer, as their output schemas declare it: the tools build their answers as
/// JSON, and the tests check every answer against these.
#[allow(dead_code)]
mod answers {
    use schemars::JsonSchema;
    use serde_json::{Map, Value};

    use crate::mcp::linkcheck::LinkCheck;

    /// What `daily_note_append` answers.
    #[derive(Debug, JsonSchema)]
    pub struct DailyNoteAppendAnswer {
        #[serde(flatten)]
        pub links: LinkCheck,
        pub path: String,
        pub created: Option<bool>,
        pub date: String,
        pub would_create: Option<bool>,
        pub dry_run: Option<bool>,
        pub changed: Option<bool>,
        pub diff: Option<String>,
    }

    /// An item of `stat` in the answer.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianGetPeriodicNoteStat {
        pub mtime: i64,
        pub ctime: i64,
        pub size: usize,
    }

    /// What `obsidian_get_periodic_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianGetPeriodicNoteAnswer {
        pub path: String,
        pub period: String,
        pub start: String,
        pub end: String,
        pub settings_source: String,
        pub offset: usize,
        pub content: String,
        pub frontmatter: Option<Map<String, Value>>,
        pub tags: Option<Vec<Value>>,
        pub stat: Option<ObsidianGetPeriodicNoteStat>,
    }

    /// What `obsidian_delete_periodic_note` answers.
    #[derive(Debug, JsonSchema)]
    pub struct ObsidianDeletePeriodicNoteAnswer {
        pub path: String,
        pub period: String,
        pub dry_run: Option<bool>,
        pub would_delete: Option<bool>,
        pub trashed_to: Option<String>,
    }
}
