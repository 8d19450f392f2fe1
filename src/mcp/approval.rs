//! One approval path for every writing tool: whether a change needs the user's approval (the
//! `--confirm` policy; a replace that removes much counts as destructive), how the user is asked
//! (elicitation; on the 2026 revision an input round; else the agent's `confirm: true`), and the
//! write after it, refused when the note changed while the user was asked.
//!
//! The rules: when the client can ask the user, only the user approves (the agent's
//! `confirm: true` is ignored); "allow for this session" approves the rest of the session; a
//! change is written only over the text it was planned from.

use std::sync::atomic::Ordering;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolResponse, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::{ElicitationError, RequestContext};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reply::fail;
use super::server::{ConfirmPolicy, Scholia};
use crate::note::Note;
use crate::vault::{Change, Vault as _, VaultPath};

/// A replace that removes more text than this (bytes) is destructive.
const LARGE_REMOVAL: usize = 1024;

/// The user's answer to a confirmation.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Approval {
    /// Approve this change.
    pub approve: bool,
    /// Approve changes like this for the rest of the session.
    #[serde(default)]
    pub allow_for_session: bool,
}
rmcp::elicit_safe!(Approval);

/// A change a tool asks the user to approve.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ask<'a> {
    /// What the change does, as the user reads it ("delete Gone.md (it goes to .trash/)").
    pub what: &'a str,
    /// An overwrite, a delete, a move, or a replace that removes much.
    pub destructive: bool,
    /// The agent's `confirm: true`: it approves only when the client cannot ask the user.
    pub confirm: bool,
    /// The content hash of the note the change was planned from (an input round that comes back
    /// after the note changed is refused).
    pub version: Option<&'a str>,
}

/// The two arguments every writing tool takes, in every tool's schema.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
pub struct Write {
    /// Only show what would change (a diff, the note that would be written, the links that would change); write nothing. Default false.
    #[serde(default, rename = "dryRun", alias = "dry_run")]
    pub dry_run: bool,
    /// Set to true once the user has approved this change, when the server said it needs approval and could not ask the user itself. Default false.
    #[serde(default)]
    pub confirm: bool,
}

impl<'a> Ask<'a> {
    /// A change, destructive or not, with the agent's `confirm` from the call's arguments.
    pub fn new(what: &'a str, destructive: bool, write: Write) -> Self {
        Self { what, destructive, confirm: write.confirm, version: None }
    }

    /// A change that adds or edits, asked of the user only under `--confirm writes`.
    pub fn edit(what: &'a str, write: Write) -> Self {
        Self::new(what, false, write)
    }

    /// An overwrite, a delete, a move or a replace that removes much: asked of the user unless
    /// `--confirm never`.
    pub fn destructive(what: &'a str, write: Write) -> Self {
        Self::new(what, true, write)
    }

    /// The change was planned from the note whose content hash is `version`.
    pub fn planned_from(self, version: Option<&'a str>) -> Self {
        Self { version, ..self }
    }
}

/// A 2026 call's input round: the state it carries back and the user's answers.
pub(super) struct Round {
    /// The state the first answer sent.
    pub state: Option<String>,
    /// The client's answers to the questions.
    pub responses: Option<InputResponses>,
}

/// Why a call is not approved (yet).
enum Refusal {
    /// The answer to send now: a refusal with its reason.
    Now(String),
    /// An "input required" answer: the client asks the user and calls again.
    Round(Box<CallToolResponse>),
}

impl Scholia {
    /// Asks for approval of `ask` when the policy wants it. A tool that answers on the 2026
    /// revision passes its `round`; `Err` is the answer to send back now.
    pub(super) async fn ask(
        &self,
        ctx: &RequestContext<RoleServer>,
        ask: Ask<'_>,
        round: Option<Round>,
    ) -> Result<(), CallToolResponse> {
        self.decide(ctx, ask, round).await.map_err(|refusal| match refusal {
            Refusal::Now(reason) => fail(reason).into(),
            Refusal::Round(answer) => *answer,
        })
    }

    /// [`Scholia::ask`] for a tool that asks within the call only; `Err` is the reason.
    pub(super) async fn ask_now(&self, ctx: &RequestContext<RoleServer>, ask: Ask<'_>) -> Result<(), String> {
        match self.decide(ctx, ask, None).await {
            Ok(()) => Ok(()),
            Err(Refusal::Now(reason)) => Err(reason),
            Err(Refusal::Round(_)) => Err(format!("cannot ask the user to approve: {}", ask.what)),
        }
    }

    async fn decide(
        &self,
        ctx: &RequestContext<RoleServer>,
        ask: Ask<'_>,
        round: Option<Round>,
    ) -> Result<(), Refusal> {
        let wanted = match self.settings.confirm {
            ConfirmPolicy::None => false,
            ConfirmPolicy::Destructive => ask.destructive,
            ConfirmPolicy::Writes => true,
        };
        if !wanted || self.approved.load(Ordering::Relaxed) {
            return Ok(());
        }
        let can_ask = ctx.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let stateless = ctx.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        match round {
            _ if !can_ask => confirmed(ask),
            Some(round) if stateless => self.input_round(ask, round),
            // A tool without an input round cannot ask within a 2026 call: as without elicitation.
            None if stateless => confirmed(ask),
            _ => self.elicit(ctx, ask).await,
        }
    }

    /// Asks the user now, through the client.
    async fn elicit(&self, ctx: &RequestContext<RoleServer>, ask: Ask<'_>) -> Result<(), Refusal> {
        match ctx.peer.elicit::<Approval>(question(ask.what)).await {
            Ok(Some(answer)) => self.answered(&answer, ask.what),
            Ok(None) | Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => {
                Err(Refusal::Now(declined(ask.what)))
            }
            // The client asks in another mode only (a URL): as without elicitation.
            Err(ElicitationError::CapabilityNotSupported) => confirmed(ask),
            Err(e) => Err(Refusal::Now(format!(
                "the client could not ask the user to approve: {} ({e}); nothing was changed, try again",
                ask.what
            ))),
        }
    }

    /// Applies the user's answer.
    fn answered(&self, answer: &Approval, what: &str) -> Result<(), Refusal> {
        if !answer.approve {
            return Err(Refusal::Now(declined(what)));
        }
        if answer.allow_for_session {
            self.approved.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// On protocol 2026-07-28 the server cannot ask the client mid-call: the call answers "input
    /// required" with an approval form, and the client calls again with the user's answer and
    /// the state, which names the change and the note's version it was planned from.
    fn input_round(&self, ask: Ask<'_>, round: Round) -> Result<(), Refusal> {
        let expected = format!("approve {} #{}", ask.what, ask.version.unwrap_or("-"));
        let answer = round.responses.and_then(|mut r| r.remove("approval"));
        match (answer, round.state) {
            (Some(answer), Some(state)) if state == expected => {
                let approval = serde_json::from_value::<ElicitResult>(answer)
                    .ok()
                    .filter(|r| r.action == ElicitationAction::Accept)
                    .and_then(|r| r.content)
                    .and_then(|c| serde_json::from_value::<Approval>(c).ok());
                match approval {
                    Some(approval) => self.answered(&approval, ask.what),
                    None => Err(Refusal::Now(declined(ask.what))),
                }
            }
            (Some(_), Some(state)) if state.starts_with(&format!("approve {} #", ask.what)) => {
                Err(Refusal::Now(changed_while_asked(ask.what)))
            }
            _ => Err(Refusal::Round(Box::new(approval_form(ask.what, expected)))),
        }
    }

    /// Writes `new` over the note at `path` if it still holds `old`, as one step under the vault's
    /// lock, so an edit made on disk while the user was asked is never lost. With `keep_previous`
    /// the previous version is kept in `.trash/` first (its path is returned) and the new one then
    /// renamed over the note, so the path always holds a whole version.
    pub(super) fn write_over(
        &self,
        path: &VaultPath,
        old: &str,
        new: &str,
        keep_previous: bool,
    ) -> Result<Option<VaultPath>, String> {
        let change =
            if keep_previous { Change::Replace(new.to_string()) } else { Change::Write(new.to_string()) };
        self.save(path, Some(old), change).map(|saved| saved.previous)
    }
}

/// What replacing `old` by `new` removes that makes it destructive: a heading (with its section),
/// a block id, or more than [`LARGE_REMOVAL`] bytes of text; `None` when it removes less.
pub(super) fn large_removal(old: &str, new: &str) -> Option<String> {
    let (before, after) = (Note::parse(old), Note::parse(new));
    let mut headings: Vec<&str> = after.headings.iter().map(|h| h.text.as_str()).collect();
    let lost: Vec<&str> = before
        .headings
        .iter()
        .map(|h| h.text.as_str())
        .filter(|h| match headings.iter().position(|k| k == h) {
            Some(i) => {
                headings.swap_remove(i);
                false
            }
            None => true,
        })
        .collect();
    if let Some(heading) = lost.first() {
        return Some(format!("removes the section \"{heading}\"{}", more(lost.len())));
    }
    let ids: Vec<&str> = before
        .blocks
        .iter()
        .map(|b| b.id.as_str())
        .filter(|id| !after.blocks.iter().any(|b| b.id == *id))
        .collect();
    if let Some(id) = ids.first() {
        return Some(format!("removes the block ^{id}{}", more(ids.len())));
    }
    let removed = removed_bytes(old, new);
    (removed > LARGE_REMOVAL).then(|| format!("removes {removed} bytes of text"))
}

fn more(count: usize) -> String {
    if count > 1 { format!(" and {} more", count - 1) } else { String::new() }
}

/// The bytes of `old` that `new` does not keep, outside their common start and end.
fn removed_bytes(old: &str, new: &str) -> usize {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    a.len() - prefix - suffix
}

/// Without a way to ask the user, the agent's `confirm: true` (given once the user approved).
fn confirmed(ask: Ask<'_>) -> Result<(), Refusal> {
    if ask.confirm { Ok(()) } else { Err(Refusal::Now(needs_confirm(ask.what))) }
}

fn question(what: &str) -> String {
    format!("Scholia wants to {what}. Approve?")
}

fn needs_confirm(what: &str) -> String {
    format!(
        "this call would {what}, which needs the user's approval; ask the user, then call again with confirm: true"
    )
}

fn declined(what: &str) -> String {
    format!("the user did not approve: {what}; nothing was changed (do not retry unless the user asks)")
}

impl Scholia {
    /// Moves `path` to `.trash/` after the user approved `what`, only when it still holds the
    /// text it held when the user was asked (`before`; `None`: not text); else refuses, the
    /// change kept.
    pub(super) fn trash_approved(
        &self,
        path: &VaultPath,
        before: Option<&str>,
        what: &str,
    ) -> Result<VaultPath, String> {
        match self.vault.trash_if(path, &mut |now| now == before) {
            Ok(Some(trashed)) => Ok(trashed),
            Ok(None) => Err(changed_while_asked(what)),
            Err(e) => Err(e.to_string()),
        }
    }
}

fn changed_while_asked(what: &str) -> String {
    format!(
        "the note changed on disk while the user was asked to approve: {what}; nothing was written and that change \
         is kept: read the note again and call again"
    )
}

/// The "input required" answer holding the approval form.
fn approval_form(what: &str, state: String) -> CallToolResponse {
    let schema = match ElicitationSchema::from_type::<Approval>() {
        Ok(schema) => schema,
        Err(e) => return fail(format!("cannot ask for approval: {e}")).into(),
    };
    let mut requests = InputRequests::new();
    requests.insert(
        "approval".into(),
        InputRequest::Elicitation(ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: question(what),
            requested_schema: schema,
        })),
    );
    InputRequiredResult::new(Some(requests), Some(state)).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removal_is_large_when_it_takes_a_section_a_block_or_a_kilobyte() {
        let note = "# A\ntext ^b1\n## B\nmore\n";
        assert_eq!(large_removal(note, "# A\ntext ^b1\nmore\n").unwrap(), "removes the section \"B\"");
        assert_eq!(large_removal(note, "# A\ntext\n## B\nmore\n").unwrap(), "removes the block ^b1");
        assert_eq!(large_removal(note, "# A\nnew text ^b1\n## B\nmore\n"), None);
        let big = format!("# A\n{}\n", "x".repeat(2000));
        assert_eq!(large_removal(&big, "# A\ny\n").unwrap(), "removes 2000 bytes of text");
        assert_eq!(large_removal(&big, &format!("{big}more\n")), None);
    }
}
