//! Dates as agents write them in `modified_since` / `modified_until` (seed 004): `2024-01-15`,
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

/// The instant `text` names, in ms since the Unix epoch, relative to `now`.
pub fn parse(text: &str, edge: Edge, now: &Zoned) -> Result<i64, String> {
    let lower = text.trim().to_lowercase();
    let day = |date: Date| day_edge(date, edge, now);
    let at = match lower.as_str() {
        "" => return Err("the date is empty".into()),
        "now" => Ok(now.timestamp()),
        "today" => day(now.date()),
        "yesterday" => now.date().yesterday().map_err(|e| e.to_string()).and_then(day),
        "tomorrow" => now.date().tomorrow().map_err(|e| e.to_string()).and_then(day),
        _ => relative(&lower, now).unwrap_or_else(|| absolute(text.trim(), edge, now)),
    };
    at.map(|t| t.as_millisecond()).map_err(|_| {
        format!(
            "cannot read the date {text:?}; write it as 2024-01-15, 2024-03-20 17:00, or a phrase such as yesterday, 3 days ago, 2 weeks ago, last month"
        )
    })
}

fn day_edge(date: Date, edge: Edge, now: &Zoned) -> Result<Timestamp, String> {
    let start = date.to_zoned(now.time_zone().clone()).map_err(|e| e.to_string())?;
    match edge {
        Edge::Start => Ok(start.timestamp()),
        Edge::End => {
            let next = start.tomorrow().map_err(|e| e.to_string())?;
            Ok(next.timestamp() - 1.millisecond())
        }
    }
}

/// `N unit(s) ago`, `a/an unit ago`, `last unit`.
fn relative(text: &str, now: &Zoned) -> Option<Result<Timestamp, String>> {
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
    let span = span(count, unit)?;
    Some(now.checked_sub(span).map(|z| z.timestamp()).map_err(|e| e.to_string()))
}

fn count(word: &str) -> Option<i64> {
    match word {
        "a" | "an" | "one" => Some(1),
        "two" => Some(2),
        "three" => Some(3),
        "few" => Some(3),
        _ => word.parse().ok().filter(|n| *n >= 0 && *n < 100_000),
    }
}

fn span(n: i64, unit: &str) -> Option<Span> {
    let unit = unit.trim_end_matches('s');
    Some(match unit {
        "second" | "sec" | "s" => n.seconds(),
        "minute" | "min" | "m" => n.minutes(),
        "hour" | "hr" | "h" => n.hours(),
        "day" | "d" => n.days(),
        "week" | "wk" | "w" => n.weeks(),
        "month" | "mo" => n.months(),
        "year" | "yr" | "y" => n.years(),
        _ => return None,
    })
}

fn absolute(text: &str, edge: Edge, now: &Zoned) -> Result<Timestamp, String> {
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
    let dt: DateTime = normal.parse().map_err(|e: jiff::Error| e.to_string())?;
    dt.to_zoned(now.time_zone().clone()).map(|z| z.timestamp()).map_err(|e| e.to_string())
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
}
