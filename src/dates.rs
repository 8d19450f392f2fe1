//! Dates as agents write them in the search tools' `modified_since` / `modified_until` (seed 004): `2024-01-15`,
//! `2024-03-20 17:00`, RFC 3339 instants, and phrases: `now`, `today`, `yesterday`, `tomorrow`,
//! `3 days ago`, `2 weeks ago`, `an hour ago`, `last week`, `last month`, `last year`. Local
//! dates and times are in the system's time zone.

use jiff::civil::{Date, DateTime};
use jiff::{Span, Timestamp, ToSpan, Zoned};

/// Which end of a day a bare date means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// The day's first moment (for "since").
    Start,
    /// The day's last moment (for "until": the whole day is included).
    End,
}

/// Why a date cannot be used.
enum Unusable {
    /// It is not a date or phrase this module reads.
    Unreadable,
    /// It names a moment before -9999-01-01 or after 9999-12-31.
    OutOfRange,
}

/// The instant `text` names, in ms since the Unix epoch, relative to `now`.
pub fn parse(text: &str, edge: Edge, now: &Zoned) -> Result<i64, String> {
    let lower = text.trim().to_lowercase();
    let day = |date: Date| day_edge(date, edge, now);
    let at = match lower.as_str() {
        "" => return Err("the date is empty".into()),
        "now" => Ok(now.timestamp()),
        "today" => day(now.date()),
        "yesterday" => now.date().yesterday().map_err(|_| Unusable::OutOfRange).and_then(day),
        "tomorrow" => now.date().tomorrow().map_err(|_| Unusable::OutOfRange).and_then(day),
        _ => relative(&lower, now).unwrap_or_else(|| absolute(text.trim(), edge, now)),
    };
    at.map(|t| t.as_millisecond()).map_err(|why| match why {
        Unusable::Unreadable => format!(
            "cannot read the date {text:?}; write it as 2024-01-15, 2024-03-20 17:00, or a phrase such as yesterday, 3 days ago, 2 weeks ago, last month"
        ),
        Unusable::OutOfRange => format!(
            "the date {text:?} is out of range: dates run from -9999-01-01 to 9999-12-31; give a later or earlier one"
        ),
    })
}

fn day_edge(date: Date, edge: Edge, now: &Zoned) -> Result<Timestamp, Unusable> {
    let start = date.to_zoned(now.time_zone().clone()).map_err(|_| Unusable::OutOfRange)?;
    match edge {
        Edge::Start => Ok(start.timestamp()),
        // The calendar's last day ends at the last instant there is.
        Edge::End => Ok(start.tomorrow().map_or(Timestamp::MAX, |next| next.timestamp() - 1.millisecond())),
    }
}

/// `N unit(s) ago`, `a/an unit ago`, `last unit`; `None` when `text` is no such phrase.
fn relative(text: &str, now: &Zoned) -> Option<Result<Timestamp, Unusable>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (count, unit) = match words.as_slice() {
        [n, unit, "ago"] => (count(n)?, *unit),
        ["last", unit] | ["past", unit] | ["previous", unit] => (1, *unit),
        ["last", n, unit] | ["past", n, unit] => (count(n)?, *unit),
        _ => {
            // `3d ago`, `2w ago`.
            let [compact, "ago"] = words.as_slice() else { return None };
            let split = compact.find(|c: char| !c.is_ascii_digit())?;
            (compact[..split].parse().ok()?, &compact[split..])
        }
    };
    let at = span(count, unit)?.and_then(|span| now.checked_sub(span)).map(|z| z.timestamp());
    Some(at.map_err(|_| Unusable::OutOfRange))
}

fn count(word: &str) -> Option<i64> {
    match word {
        "a" | "an" | "one" => Some(1),
        "two" => Some(2),
        "three" => Some(3),
        "few" => Some(3),
        _ => word.parse().ok().filter(|n| *n >= 0),
    }
}

/// `n` units as a span (an error when there is no such span); `None` for an unknown unit.
fn span(n: i64, unit: &str) -> Option<Result<Span, jiff::Error>> {
    let unit = unit.trim_end_matches('s');
    let zero = Span::new();
    Some(match unit {
        "second" | "sec" | "s" => zero.try_seconds(n),
        "minute" | "min" | "m" => zero.try_minutes(n),
        "hour" | "hr" | "h" => zero.try_hours(n),
        "day" | "d" => zero.try_days(n),
        "week" | "wk" | "w" => zero.try_weeks(n),
        "month" | "mo" => zero.try_months(n),
        "year" | "yr" | "y" => zero.try_years(n),
        _ => return None,
    })
}

fn absolute(text: &str, edge: Edge, now: &Zoned) -> Result<Timestamp, Unusable> {
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    // A bare date means a whole day; anything longer has a time.
    if text.len() <= 10
        && let Ok(date) = text.parse::<Date>()
    {
        return day_edge(date, edge, now);
    }
    let normal = text.replacen(' ', "T", 1);
    let dt: DateTime = normal.parse().map_err(|_| Unusable::Unreadable)?;
    dt.to_zoned(now.time_zone().clone()).map(|z| z.timestamp()).map_err(|_| Unusable::OutOfRange)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Zoned {
        "2024-06-12T15:30:00+00:00[UTC]".parse().unwrap()
    }

    fn at(text: &str, edge: Edge) -> String {
        Timestamp::from_millisecond(parse(text, edge, &now()).unwrap()).unwrap().to_string()
    }

    #[test]
    fn reads_dates_and_phrases() {
        assert_eq!(at("2024-01-15", Edge::Start), "2024-01-15T00:00:00Z");
        assert_eq!(at("2024-01-15", Edge::End), "2024-01-15T23:59:59.999Z");
        assert_eq!(at("2024-03-20 17:00", Edge::Start), "2024-03-20T17:00:00Z");
        assert_eq!(at("2024-03-20T17:00:00+02:00", Edge::Start), "2024-03-20T15:00:00Z");
        assert_eq!(at("yesterday", Edge::Start), "2024-06-11T00:00:00Z");
        assert_eq!(at("Today", Edge::End), "2024-06-12T23:59:59.999Z");
        assert_eq!(at("2 weeks ago", Edge::Start), "2024-05-29T15:30:00Z");
        assert_eq!(at("an hour ago", Edge::Start), "2024-06-12T14:30:00Z");
        assert_eq!(at("last month", Edge::Start), "2024-05-12T15:30:00Z");
        assert_eq!(at("3d ago", Edge::Start), "2024-06-09T15:30:00Z");
        assert_eq!(at("now", Edge::End), "2024-06-12T15:30:00Z");
        let err = parse("next blue moon", Edge::Start, &now()).unwrap_err();
        assert!(err.contains("2 weeks ago"), "{err}");
    }

    #[test]
    fn dates_out_of_range_are_refused_as_such() {
        for phrase in
            ["20000 years ago", "19999y ago", "9999999 days ago", "last 99999 years", "-009999-01-01 01:00"]
        {
            let err = parse(phrase, Edge::Start, &now()).unwrap_err();
            assert!(err.contains("out of range"), "{phrase}: {err}");
        }
    }
}
