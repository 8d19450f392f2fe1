//! What `obsidian_check_status` knows beyond the settings: how clients reach the server,
//! whether Obsidian appears to be running — a guess, always with what it is based on — and the
//! Zotero templates found.
//!
//! The process check reads `/proc` on Linux: the one place outside `vault/fs.rs` that reads the
//! filesystem, and never inside the vault.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Serialize;

/// How clients reach the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Transport {
    /// Standard input and output: the client started the server, so there is no HTTP and no token.
    #[default]
    Stdio,
    /// Streamable HTTP at `address` on `/mcp`.
    Http {
        /// Where the server listens.
        address: SocketAddr,
        /// Whether every request needs the bearer token.
        auth: bool,
    },
}

/// Whether Obsidian appears to be running, and why Scholia thinks so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObsidianGuess {
    /// `yes`, `probably`, `probably not`, `no` or `unknown`.
    pub running: &'static str,
    /// What the guess is based on, one finding per entry.
    pub evidence: Vec<String>,
}

/// What a look at the machine's processes found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessProbe {
    /// A process named `obsidian`, with its id.
    Found(u32),
    /// The process list was read and holds no such process.
    NotFound,
    /// The process list cannot be read here, and why.
    Unavailable(String),
}

/// Saved this recently, `.obsidian/workspace.json` suggests Obsidian has the vault open: Obsidian
/// rewrites it as panes and files change.
pub const RECENT: Duration = Duration::from_secs(10 * 60);

/// Looks for a process named `obsidian` (any case) in `/proc`.
#[cfg(target_os = "linux")]
pub fn probe_processes() -> ProcessProbe {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return ProcessProbe::Unavailable("/proc cannot be read".into());
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if comm.trim().eq_ignore_ascii_case("obsidian") {
            return ProcessProbe::Found(pid);
        }
    }
    ProcessProbe::NotFound
}

/// Looks for a process named `obsidian`: only possible on Linux (through `/proc`).
#[cfg(not(target_os = "linux"))]
pub fn probe_processes() -> ProcessProbe {
    ProcessProbe::Unavailable("the process check runs on Linux only (it reads /proc)".into())
}

/// `42 s`, `5 min`, `3 h`, `2 days`.
pub fn age(d: Duration) -> String {
    match d.as_secs() {
        s if s < 120 => format!("{s} s"),
        s if s < 2 * 3600 => format!("{} min", s / 60),
        s if s < 2 * 86400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86400),
    }
}

/// The guess from how long ago `.obsidian/workspace.json` changed (`None`: there is none) and
/// what the process check found.
pub fn guess(workspace_age: Option<Duration>, process: &ProcessProbe) -> ObsidianGuess {
    let mut evidence = Vec::new();
    let recent = workspace_age.is_some_and(|a| a <= RECENT);
    match workspace_age {
        Some(a) if recent => evidence.push(format!(
            ".obsidian/workspace.json was modified {} ago (Obsidian rewrites it while the vault is open)",
            age(a)
        )),
        Some(a) => evidence.push(format!(".obsidian/workspace.json was last modified {} ago", age(a))),
        None => evidence.push(
            "there is no .obsidian/workspace.json (Obsidian writes it once it has opened the vault)".into(),
        ),
    }
    let running = match process {
        ProcessProbe::Found(pid) => {
            evidence.push(format!(
                "a process named obsidian is running (pid {pid}); it may have another vault open"
            ));
            "yes"
        }
        ProcessProbe::NotFound => {
            evidence.push("no process named obsidian runs on this machine (checked /proc)".into());
            if recent {
                evidence.push(
                    "the recent workspace change may come from another device syncing this vault, or from a sandbox /proc cannot see".into(),
                );
                "probably not"
            } else {
                "no"
            }
        }
        ProcessProbe::Unavailable(why) => {
            evidence.push(format!("processes were not checked: {why}"));
            match workspace_age {
                Some(_) if recent => "probably",
                Some(_) => "probably not",
                None => "unknown",
            }
        }
    };
    ObsidianGuess { running, evidence }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guess_says_what_it_rests_on() {
        let minute = Some(Duration::from_secs(60));
        let day = Some(Duration::from_secs(86400 * 3));
        assert_eq!(guess(minute, &ProcessProbe::Found(7)).running, "yes");
        assert_eq!(guess(day, &ProcessProbe::NotFound).running, "no");
        assert_eq!(guess(minute, &ProcessProbe::NotFound).running, "probably not");
        let unsure = guess(minute, &ProcessProbe::Unavailable("not Linux".into()));
        assert_eq!(unsure.running, "probably");
        assert!(unsure.evidence[0].contains("modified 60 s ago"), "{:?}", unsure.evidence);
        assert!(unsure.evidence[1].contains("not Linux"));
        assert_eq!(guess(None, &ProcessProbe::Unavailable(String::new())).running, "unknown");
        assert!(guess(day, &ProcessProbe::NotFound).evidence[0].contains("3 days ago"));
    }
}
