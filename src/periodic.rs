//! Periodic notes (daily, weekly, monthly, quarterly, yearly): where the note of a date lives,
//! following the Periodic Notes plugin's settings, else the core Daily notes settings, as Obsidian
//! would. One implementation for every period and every tool.
//!
//! Formats are moment.js formats (what both plugins store), rendered here for a civil date.

use jiff::civil::{Date, DateTime};
use serde::Serialize;
use serde_json::Value;

use crate::diag::Diagnostic;
use crate::vault::{VaultError, VaultPath};

/// A note period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// One note a day.
    Daily,
    /// One note a week.
    Weekly,
    /// One note a month.
    Monthly,
    /// One note a quarter.
    Quarterly,
    /// One note a year.
    Yearly,
}

impl Period {
    /// Every period, shortest first.
    pub const ALL: [Period; 5] =
        [Period::Daily, Period::Weekly, Period::Monthly, Period::Quarterly, Period::Yearly];

    /// Parses `daily`, `weekly`, … (also `day`, `week`, …), any case.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "daily" | "day" => Period::Daily,
            "weekly" | "week" => Period::Weekly,
            "monthly" | "month" => Period::Monthly,
            "quarterly" | "quarter" => Period::Quarterly,
            "yearly" | "year" | "annual" => Period::Yearly,
            _ => return None,
        })
    }

    /// The name the settings use (`daily`, …).
    pub fn name(self) -> &'static str {
        match self {
            Period::Daily => "daily",
            Period::Weekly => "weekly",
            Period::Monthly => "monthly",
            Period::Quarterly => "quarterly",
            Period::Yearly => "yearly",
        }
    }

    /// The default moment.js format of the period (the plugins' defaults).
    pub fn default_format(self) -> &'static str {
        match self {
            Period::Daily => "YYYY-MM-DD",
            Period::Weekly => "gggg-[W]ww",
            Period::Monthly => "YYYY-MM",
            Period::Quarterly => "YYYY-[Q]Q",
            Period::Yearly => "YYYY",
        }
    }

    /// The first day of the period containing `date` (weeks start on Sunday, moment's default;
    /// the calendar's first day for the week that starts before it).
    pub fn start(self, date: Date) -> Date {
        match self {
            Period::Daily => date,
            Period::Weekly => {
                let back = jiff::Span::new().days(i64::from(date.weekday().to_sunday_zero_offset()));
                date.checked_sub(back).unwrap_or(Date::MIN)
            }
            Period::Monthly => date.first_of_month(),
            Period::Quarterly => Date::new(date.year(), (date.month() - 1) / 3 * 3 + 1, 1).unwrap_or(date),
            Period::Yearly => date.first_of_year(),
        }
    }
}

/// How one period's notes are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeriodSettings {
    /// Whether the user enabled this period (daily notes always count as enabled).
    pub enabled: bool,
    /// Folder (vault-relative, `""` for the root).
    pub folder: String,
    /// moment.js file name format.
    pub format: String,
    /// Template note (vault-relative, `.md` optional), if any.
    pub template: Option<String>,
    /// Which settings file this came from (`periodic-notes`, `daily-notes`, or `default`).
    pub source: &'static str,
}

/// The periodic-note settings of a vault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PeriodicSettings {
    periods: Vec<(Period, PeriodSettings)>,
}

/// Where the plugins keep their settings, relative to the vault root (with `.obsidian` the config dir).
pub const PERIODIC_NOTES_DATA: &str = "plugins/periodic-notes/data.json";
/// The core Daily notes plugin's settings, relative to the config dir.
pub const DAILY_NOTES_DATA: &str = "daily-notes.json";

impl PeriodicSettings {
    /// Reads the settings from the texts of the Periodic Notes plugin's `data.json` and the core
    /// `daily-notes.json` (either may be missing). Unreadable JSON becomes a diagnostic.
    pub fn from_json(periodic_notes: Option<&str>, daily_notes: Option<&str>) -> (Self, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let mut parse = |text: Option<&str>, name: &str| -> Option<Value> {
            let text = text?;
            match serde_json::from_str::<Value>(text) {
                Ok(value) => Some(value),
                Err(err) => {
                    diagnostics.push(Diagnostic::warning(
                        0,
                        format!("{name} is not valid JSON ({err}); it was ignored"),
                    ));
                    None
                }
            }
        };
        let periodic = parse(periodic_notes, PERIODIC_NOTES_DATA);
        let daily = parse(daily_notes, DAILY_NOTES_DATA);
        let mut periods = Vec::new();
        for period in Period::ALL {
            if let Some(found) = periodic.as_ref().and_then(|v| from_periodic_plugin(v, period)) {
                periods.push((period, found));
            } else if period == Period::Daily
                && let Some(found) = daily.as_ref().map(from_daily_plugin)
            {
                periods.push((period, found));
            }
        }
        (Self { periods }, diagnostics)
    }

    /// The settings of `period`: configured, else the defaults (vault root, default format).
    pub fn get(&self, period: Period) -> PeriodSettings {
        self.periods.iter().find(|(p, _)| *p == period).map(|(_, s)| s.clone()).unwrap_or_else(|| {
            PeriodSettings {
                enabled: period == Period::Daily,
                folder: String::new(),
                format: period.default_format().to_string(),
                template: None,
                source: "default",
            }
        })
    }
}

fn string_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// Periodic Notes stores `{"daily": {enabled, folder, format, template}, …}` (0.x) or
/// `{"calendarSets": [{"day": {enabled, folder, format, templatePath}, …}]}` (1.x).
fn from_periodic_plugin(root: &Value, period: Period) -> Option<PeriodSettings> {
    let short = match period {
        Period::Daily => "day",
        Period::Weekly => "week",
        Period::Monthly => "month",
        Period::Quarterly => "quarter",
        Period::Yearly => "year",
    };
    let entry = root
        .get(period.name())
        .or_else(|| root.get("calendarSets")?.as_array()?.first()?.get(short))
        .filter(|v| v.is_object())?;
    let enabled = entry.get("enabled").and_then(Value::as_bool).unwrap_or(false);
    if !enabled {
        return None;
    }
    Some(PeriodSettings {
        enabled,
        folder: string_at(entry, "folder").unwrap_or("").trim_matches('/').to_string(),
        format: string_at(entry, "format").unwrap_or(period.default_format()).to_string(),
        template: string_at(entry, "template")
            .or_else(|| string_at(entry, "templatePath"))
            .map(str::to_string),
        source: "periodic-notes",
    })
}

fn from_daily_plugin(value: &Value) -> PeriodSettings {
    PeriodSettings {
        enabled: true,
        folder: string_at(value, "folder").unwrap_or("").trim_matches('/').to_string(),
        format: string_at(value, "format").unwrap_or(Period::Daily.default_format()).to_string(),
        template: string_at(value, "template").map(str::to_string),
        source: "daily-notes",
    }
}

/// The vault path of the `period` note containing `date`.
pub fn note_path(settings: &PeriodSettings, period: Period, date: Date) -> Result<VaultPath, VaultError> {
    let name = format_moment(&settings.format, period.start(date));
    let folder = VaultPath::new(&settings.folder)?;
    folder.join(&format!("{name}.md"))
}

/// The template path as a vault path with `.md` (templates are named without it in settings).
pub fn template_path(settings: &PeriodSettings) -> Option<Result<VaultPath, VaultError>> {
    let template = settings.template.as_deref()?;
    let with_ext = if template.to_ascii_lowercase().ends_with(".md") {
        template.to_string()
    } else {
        format!("{template}.md")
    };
    Some(VaultPath::new(&with_ext))
}

/// Fills the template of a new `period` note as the Periodic Notes and Daily notes plugins do.
/// `date` is any day of the period, `now` the moment of creation (its time of day is used), and
/// `format` the note's file name format. Placeholders (names in any case):
///
/// - `{{title}}`, `{{date}}`: the note's name; `{{time}}`: `now` as `HH:mm`;
/// - `{{date:FORMAT}}`, `{{time:FORMAT}}`: the period's first day at `now`'s time, in a moment.js format;
/// - `{{date+1d}}`, `{{date-2w:FORMAT}}`: shifted by `y`, `Q`, `M` (months), `w`, `d`, `h`, `m`
///   (minutes), `s`; the note's format unless one is given;
/// - `{{yesterday}}`, `{{tomorrow}}`: the days around it, in the note's format;
/// - `{{sunday:FORMAT}}` … `{{saturday:FORMAT}}`: that day of the period's week (weeks start on Sunday).
///
/// Unknown placeholders stay as written (Templater syntax, for example).
pub fn fill_template(template: &str, period: Period, format: &str, date: Date, now: DateTime) -> String {
    let start = period.start(date).to_datetime(now.time());
    let title = format_moment(format, start.date());
    crate::vault::naming::fill(template, |inner| {
        let (name, custom) = inner.split_once(':').map_or((inner, None), |(n, f)| (n.trim(), Some(f.trim())));
        let lower = name.to_ascii_lowercase();
        let shown = |at: DateTime, default: &str| format_moment_at(custom.unwrap_or(default), at);
        match lower.as_str() {
            "title" => Some(title.clone()),
            "date" if custom.is_none() => Some(title.clone()),
            "time" if custom.is_none() => Some(format_moment_at("HH:mm", now)),
            "date" | "time" => Some(shown(start, format)),
            "yesterday" => Some(format_moment(format, start.date().yesterday().ok()?)),
            "tomorrow" => Some(format_moment(format, start.date().tomorrow().ok()?)),
            _ => {
                if let Some(day) = DAYS.iter().position(|d| d.eq_ignore_ascii_case(name)) {
                    let sunday = Period::Weekly.start(start.date());
                    let at = sunday.checked_add(jiff::Span::new().days(day as i64)).ok()?;
                    return Some(format_moment(custom.unwrap_or(format), at));
                }
                let shifted = shift(start, name)?;
                Some(shown(shifted, format))
            }
        }
    })
}

/// `date+3d`, `time-1h`, … → the date-time shifted; `None` when `name` is not such a placeholder.
fn shift(at: DateTime, name: &str) -> Option<DateTime> {
    let lower = name.to_ascii_lowercase();
    let rest = lower.strip_prefix("date").or_else(|| lower.strip_prefix("time"))?.trim_start();
    let sign: i64 = match rest.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    // The unit keeps its case from the original: `M` is months, `m` minutes, as in moment.
    let unit = name.trim_end().chars().last()?;
    let amount: i64 = rest[1..].strip_suffix(unit.to_ascii_lowercase())?.trim().parse().ok()?;
    let n = sign.checked_mul(amount)?;
    let zero = jiff::Span::new();
    let span = match unit {
        'y' | 'Y' => zero.try_years(n),
        'q' | 'Q' => zero.try_months(n.checked_mul(3)?),
        'M' => zero.try_months(n),
        'w' | 'W' => zero.try_weeks(n),
        'd' | 'D' => zero.try_days(n),
        'h' | 'H' => zero.try_hours(n),
        'm' => zero.try_minutes(n),
        's' | 'S' => zero.try_seconds(n),
        _ => return None,
    };
    at.checked_add(span.ok()?).ok()
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// Renders a moment.js format for a date (at midnight, as moment renders a date): see
/// [`format_moment_at`].
pub fn format_moment(format: &str, date: Date) -> String {
    format_moment_at(format, date.to_datetime(jiff::civil::Time::midnight()))
}

/// Renders a moment.js format for a date and time: `YYYY YY Q M MM MMM MMMM D DD Do DDD DDDD d dd
/// ddd dddd e E w ww W WW gggg gg GGGG GG`, `H HH h hh k kk m mm s ss A a`, `[literal]` text; other
/// letters are copied as they are.
pub fn format_moment_at(format: &str, at: DateTime) -> String {
    let mut out = String::new();
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '[' {
            let end = chars[i + 1..].iter().position(|&c| c == ']').map_or(chars.len(), |p| i + 1 + p);
            out.extend(&chars[i + 1..end]);
            i = end + 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        let (used, text) = token(c, run, at, chars.get(i + run).copied());
        out.push_str(&text);
        i += used;
    }
    out
}

/// One token starting with `run` copies of `c`: how many characters it used and its text.
fn token(c: char, run: usize, at: DateTime, next: Option<char>) -> (usize, String) {
    let date = at.date();
    let (hour, minute, second) = (i64::from(at.hour()), i64::from(at.minute()), i64::from(at.second()));
    let twelve = if hour % 12 == 0 { 12 } else { hour % 12 };
    let dow = date.weekday().to_sunday_zero_offset() as usize;
    let (locale_year, locale_week) = locale_week(date);
    let iso = date.iso_week_date();
    let pad = |n: i64, width: usize| format!("{n:0width$}");
    let take = |n: usize, text: String| (n.min(run), text);
    match (c, run) {
        ('Y', 4..) => take(4, pad(i64::from(date.year()), 4)),
        ('Y', 2..) => take(2, pad(i64::from(date.year()).rem_euclid(100), 2)),
        ('Y', _) => take(1, date.year().to_string()),
        ('Q', _) => take(1, ((date.month() - 1) / 3 + 1).to_string()),
        ('M', 4..) => take(4, MONTHS[(date.month() - 1) as usize].to_string()),
        ('M', 3) => take(3, MONTHS[(date.month() - 1) as usize][..3].to_string()),
        ('M', 2) => take(2, pad(i64::from(date.month()), 2)),
        ('M', _) => take(1, date.month().to_string()),
        ('D', 4..) => take(4, pad(i64::from(date.day_of_year()), 3)),
        ('D', 3) => take(3, date.day_of_year().to_string()),
        ('D', 2) => take(2, pad(i64::from(date.day()), 2)),
        ('D', 1) if next == Some('o') => (2, ordinal(date.day())),
        ('D', _) => take(1, date.day().to_string()),
        ('d', 4..) => take(4, DAYS[dow].to_string()),
        ('d', 3) => take(3, DAYS[dow][..3].to_string()),
        ('d', 2) => take(2, DAYS[dow][..2].to_string()),
        ('d', _) | ('e', _) => take(1, dow.to_string()),
        ('E', _) => take(1, date.weekday().to_monday_one_offset().to_string()),
        ('w', 2..) => take(2, pad(i64::from(locale_week), 2)),
        ('w', _) => take(1, locale_week.to_string()),
        ('W', 2..) => take(2, pad(i64::from(iso.week()), 2)),
        ('W', _) => take(1, iso.week().to_string()),
        ('g', 4..) => take(4, pad(i64::from(locale_year), 4)),
        ('g', 2..) => take(2, pad(i64::from(locale_year).rem_euclid(100), 2)),
        ('G', 4..) => take(4, pad(i64::from(iso.year()), 4)),
        ('G', 2..) => take(2, pad(i64::from(iso.year()).rem_euclid(100), 2)),
        ('H', 2..) => take(2, pad(hour, 2)),
        ('H', _) => take(1, hour.to_string()),
        ('h', 2..) => take(2, pad(twelve, 2)),
        ('h', _) => take(1, twelve.to_string()),
        ('k', 2..) => take(2, pad(if hour == 0 { 24 } else { hour }, 2)),
        ('k', _) => take(1, (if hour == 0 { 24 } else { hour }).to_string()),
        ('m', 2..) => take(2, pad(minute, 2)),
        ('m', _) => take(1, minute.to_string()),
        ('s', 2..) => take(2, pad(second, 2)),
        ('s', _) => take(1, second.to_string()),
        ('A', _) => take(1, if hour < 12 { "AM" } else { "PM" }.to_string()),
        ('a', _) => take(1, if hour < 12 { "am" } else { "pm" }.to_string()),
        _ => (1, c.to_string()),
    }
}

/// moment's default (en) locale weeks: they start on Sunday and week 1 holds January 1st. The
/// week-year is the year of the week's Saturday (week 1 of the year after 9999 for the calendar's
/// last days, whose Saturday is past its end).
fn locale_week(date: Date) -> (i16, i16) {
    let offset = i64::from(date.weekday().to_sunday_zero_offset());
    match date.checked_add(jiff::Span::new().days(6 - offset)) {
        Ok(saturday) => (saturday.year(), (saturday.day_of_year() - 1) / 7 + 1),
        Err(_) => (date.year() + 1, 1),
    }
}

fn ordinal(n: i8) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i16, m: i8, day: i8) -> Date {
        Date::new(y, m, day).unwrap()
    }

    #[test]
    fn moment_tokens() {
        let date = d(2024, 1, 5); // a Friday
        assert_eq!(format_moment("YYYY-MM-DD", date), "2024-01-05");
        assert_eq!(format_moment("dddd, MMMM Do YYYY", date), "Friday, January 5th 2024");
        assert_eq!(format_moment("ddd D MMM YY", date), "Fri 5 Jan 24");
        assert_eq!(format_moment("YYYY-[Q]Q", d(2024, 8, 1)), "2024-Q3");
        assert_eq!(format_moment("[Week] W, GGGG", d(2021, 1, 3)), "Week 53, 2020");
        assert_eq!(format_moment("DDDD", date), "005");
    }

    #[test]
    fn locale_weeks_start_on_sunday_and_hold_january_first() {
        // Sunday 2023-12-31 starts the week holding 2024-01-01: week 1 of 2024.
        assert_eq!(format_moment("gggg-[W]ww", d(2023, 12, 31)), "2024-W01");
        assert_eq!(format_moment("gggg-[W]ww", d(2024, 1, 7)), "2024-W02");
        assert_eq!(format_moment("gggg-[W]ww", d(2024, 12, 28)), "2024-W52");
    }

    #[test]
    fn settings_from_both_plugins() {
        let periodic = r#"{"weekly": {"enabled": true, "folder": "Weekly/", "format": "gggg-[W]ww", "template": "Templates/Week"},
                          "daily": {"enabled": false, "folder": "Ignored"}}"#;
        let daily = r#"{"folder": "Journal", "format": "DD.MM.YYYY", "template": "Templates/Day"}"#;
        let (settings, diags) = PeriodicSettings::from_json(Some(periodic), Some(daily));
        assert!(diags.is_empty());
        let day = settings.get(Period::Daily);
        assert_eq!((day.folder.as_str(), day.source), ("Journal", "daily-notes"));
        assert_eq!(note_path(&day, Period::Daily, d(2024, 3, 9)).unwrap().as_str(), "Journal/09.03.2024.md");
        let week = settings.get(Period::Weekly);
        assert_eq!(note_path(&week, Period::Weekly, d(2024, 1, 10)).unwrap().as_str(), "Weekly/2024-W02.md");
        assert_eq!(template_path(&week).unwrap().unwrap().as_str(), "Templates/Week.md");
        let month = settings.get(Period::Monthly);
        assert_eq!((month.source, month.enabled), ("default", false));
        assert_eq!(note_path(&month, Period::Monthly, d(2024, 1, 10)).unwrap().as_str(), "2024-01.md");
    }

    #[test]
    fn calendar_sets_and_bad_json() {
        let v1 = r#"{"calendarSets": [{"day": {"enabled": true, "folder": "D", "format": "YYYY/MM/YYYY-MM-DD", "templatePath": "T.md"}}]}"#;
        let (settings, _) = PeriodicSettings::from_json(Some(v1), None);
        let day = settings.get(Period::Daily);
        assert_eq!(
            note_path(&day, Period::Daily, d(2024, 2, 29)).unwrap().as_str(),
            "D/2024/02/2024-02-29.md"
        );
        let (_, diags) = PeriodicSettings::from_json(Some("{nope"), None);
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn templates() {
        let now = d(2030, 6, 1).at(9, 30, 5, 0);
        let out = fill_template(
            "# {{title}}\n{{date}} {{date:dddd}} {{time}} {{time:h:mm A}} {{other}} {{tp.date.now()}}",
            Period::Daily,
            "DD.MM.YYYY",
            d(2024, 1, 5),
            now,
        );
        assert_eq!(out, "# 05.01.2024\n05.01.2024 Friday 09:30 9:30 AM {{other}} {{tp.date.now()}}");
        let around = fill_template(
            "{{yesterday}} {{tomorrow}} {{date+1M:YYYY-MM-DD}} {{date -2d}} {{time+90m:HH:mm}}",
            Period::Daily,
            "YYYY-MM-DD",
            d(2024, 1, 31),
            now,
        );
        assert_eq!(around, "2024-01-30 2024-02-01 2024-02-29 2024-01-29 11:00");
        let week = fill_template(
            "{{title}}: {{monday:MM-DD}} to {{saturday:MM-DD}}, {{date:YYYY-MM-DD}}",
            Period::Weekly,
            "gggg-[W]ww",
            d(2024, 1, 10),
            now,
        );
        assert_eq!(week, "2024-W02: 01-08 to 01-13, 2024-01-07");
        assert_eq!(format_moment_at("HH:mm:ss a k", d(2024, 1, 1).at(0, 5, 9, 0)), "00:05:09 am 24");
    }
}
