//! Resource subscriptions, fed by the index's file watcher.
//!
//! The index service tells one listener per server ([`relay`]) which notes each applied batch of
//! changes added, read again or dropped (file events, polling, this server's writes, a rebuild);
//! the listener puts the batch on a broadcast channel that every session reads.
//!
//! - Protocol 2025-11-25 and earlier (stdio, stateful streamable HTTP sessions):
//!   `resources/subscribe` and `resources/unsubscribe` keep the session's set of followed notes
//!   ([`Subscriptions`]). A forwarding task, started when the client says it is initialized (or
//!   at its first subscription), sends `notifications/resources/updated` for every followed note
//!   that changed, was deleted or moved away, and `notifications/resources/list_changed` when
//!   notes appeared or went away. It ends when the session's handler is dropped, or at the first
//!   notification the closed peer refuses.
//! - Protocol 2026-07-28 (stateless): there are no sessions, and rmcp 3.11 answers
//!   `resources/subscribe` with "method not found" on it. The revision's way is one long-lived
//!   `subscriptions/listen` request naming the URIs (and whether list changes are wanted), which
//!   rmcp offers through `accepted_subscription_filter` and `listen`. A filter cannot fail, so a
//!   URI that names no note is left out of the acknowledged filter instead of being refused; the
//!   client sees what was accepted in the acknowledgment. The same notifications then flow
//!   through the subscription until the client cancels it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::index::NoteChanges;
use crate::index::service::IndexService;
use crate::vault::VaultPath;

/// Batches of changes a session may fall behind by; one that falls further is told that every
/// note it follows changed, and that the list changed.
pub(super) const BACKLOG: usize = 256;
/// Notes one session may follow.
const MAX_FOLLOWED: usize = 10_000;

/// The batches of note changes of one server's index, for its sessions to read.
pub(super) type Feed = broadcast::Sender<Arc<NoteChanges>>;

/// Registers on `index` the listener that puts each batch of note changes on the returned feed.
pub(super) fn relay(index: &IndexService) -> Feed {
    let (feed, _) = broadcast::channel(BACKLOG);
    let sender = feed.clone();
    index.listen(move |changes| {
        if sender.receiver_count() > 0 {
            // An error only means every session went away meanwhile.
            let _ = sender.send(Arc::new(changes.clone()));
        }
    });
    feed
}

/// The notes a client follows: each note's path and the URIs it was subscribed under (as the
/// client wrote them, so notifications carry the same strings).
type Followed = BTreeMap<VaultPath, BTreeSet<String>>;

/// One session's subscriptions (protocol 2025-11-25 and earlier).
#[derive(Debug)]
pub(super) struct Subscriptions {
    pub(super) feed: Feed,
    followed: Mutex<Followed>,
    /// Whether the forwarding task was started.
    forwarding: AtomicBool,
    /// Cancelled when the session's handler is dropped: stops its forwarding task.
    ended: CancellationToken,
}

impl Subscriptions {
    /// A session's subscriptions to `feed`, following nothing yet.
    pub(super) fn new(feed: Feed) -> Self {
        Self {
            feed,
            followed: Mutex::default(),
            forwarding: AtomicBool::new(false),
            ended: CancellationToken::new(),
        }
    }

    fn followed(&self) -> MutexGuard<'_, Followed> {
        self.followed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        self.ended.cancel();
    }
}

/// One notification for a client.
#[derive(Debug, PartialEq, Eq)]
enum Tell {
    Updated(String),
    ListChanged,
}

/// What to tell a client that follows `followed` (and, with `lists`, list changes) about the
/// next item of its feed; `None` when the feed is closed. A batch lost because the client fell
/// behind counts as a change of everything.
fn tells(
    followed: &Followed,
    lists: bool,
    item: Result<Arc<NoteChanges>, broadcast::error::RecvError>,
) -> Option<Vec<Tell>> {
    let (uris, list_changed): (Vec<String>, bool) = match item {
        Ok(changes) => {
            let touched: BTreeSet<&VaultPath> =
                changes.paths().filter(|p| followed.contains_key(*p)).collect();
            let uris = touched.into_iter().flat_map(|p| followed[p].iter().cloned()).collect();
            (uris, changes.list_changed())
        }
        Err(broadcast::error::RecvError::Lagged(_)) => (followed.values().flatten().cloned().collect(), true),
        Err(broadcast::error::RecvError::Closed) => return None,
    };
    let mut out: Vec<Tell> = uris.into_iter().map(Tell::Updated).collect();
    if lists && list_changed {
        out.push(Tell::ListChanged);
    }
    Some(out)
}

/// The forwarding task of one session: reads the feed until the session ends and sends what
/// concerns it to `peer`; stops at the first notification the peer refuses (it closed).
async fn forward(
    session: Weak<Subscriptions>,
    ended: CancellationToken,
    mut feed: broadcast::Receiver<Arc<NoteChanges>>,
    peer: Peer<RoleServer>,
) {
    loop {
        let item = tokio::select! {
            () = ended.cancelled() => return,
            item = feed.recv() => item,
        };
        let tells = {
            let Some(session) = session.upgrade() else { return };
            let followed = session.followed();
            tells(&followed, true, item)
        };
        let Some(tells) = tells else { return };
        for tell in tells {
            let sent = match tell {
                Tell::Updated(uri) => {
                    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await
                }
                Tell::ListChanged => peer.notify_resource_list_changed().await,
            };
            if sent.is_err() {
                return;
            }
        }
    }
}

impl Subscriptions {
    /// Subscriptions of a new session to the same feed, following nothing yet.
    pub(super) fn for_new_session(&self) -> Self {
        Self::new(self.feed.clone())
    }

    /// Starts this session's forwarding task (once) if it is not running: notifications for
    /// the notes it follows and list changes go to `peer`.
    pub(super) fn start_forwarding(self: &Arc<Self>, peer: Peer<RoleServer>) {
        if self.forwarding.swap(true, Ordering::SeqCst) {
            return;
        }
        // Read the feed from now on, before the subscription is confirmed.
        let feed = self.feed.subscribe();
        tokio::spawn(forward(Arc::downgrade(self), self.ended.clone(), feed, peer));
    }

    /// `resources/subscribe`: follows the existing note at `path` under `uri`.
    pub(super) fn follow(
        self: &Arc<Self>,
        path: VaultPath,
        uri: String,
        peer: Peer<RoleServer>,
    ) -> Result<(), McpError> {
        {
            let mut followed = self.followed();
            if followed.len() >= MAX_FOLLOWED && !followed.contains_key(&path) {
                return Err(McpError::invalid_params(
                    format!("this session already follows {MAX_FOLLOWED} notes; unsubscribe from some first"),
                    None,
                ));
            }
            followed.entry(path).or_default().insert(uri);
        }
        self.start_forwarding(peer);
        Ok(())
    }

    /// `resources/unsubscribe`: stops following the note at `path` (under any URI); a note not
    /// followed is no error.
    pub(super) fn unfollow(&self, path: &VaultPath) {
        self.followed().remove(path);
    }

    /// The part of a `subscriptions/listen` filter this server serves (protocol 2026-07-28):
    /// resource list changes, and updates of the requested URIs that `names_note` accepts (those
    /// that name existing notes).
    pub(super) fn accepted_filter(
        requested: &SubscriptionFilter,
        names_note: impl Fn(&str) -> bool,
    ) -> SubscriptionFilter {
        let mut accepted = SubscriptionFilter::builder();
        if requested.resources_list_changed == Some(true) {
            accepted = accepted.resources_list_changed();
        }
        let uris = requested.resource_subscriptions.iter().flatten().filter(|uri| names_note(uri));
        let uris: Vec<&String> = uris.take(MAX_FOLLOWED).collect();
        if !uris.is_empty() {
            accepted = accepted.resource_subscriptions(uris.into_iter().cloned());
        }
        accepted.build()
    }

    /// Serves one `subscriptions/listen` request (protocol 2026-07-28) until it is cancelled or
    /// the client goes away; `note_of` is the note a URI names.
    pub(super) async fn listen(
        &self,
        context: SubscriptionContext,
        note_of: impl Fn(&str) -> Option<VaultPath>,
    ) -> Result<(), McpError> {
        let accepted = context.accepted();
        let lists = accepted.resources_list_changed == Some(true);
        let mut followed = Followed::new();
        for uri in accepted.resource_subscriptions.iter().flatten() {
            if let Some(path) = note_of(uri) {
                followed.entry(path).or_default().insert(uri.clone());
            }
        }
        if followed.is_empty() && !lists {
            context.cancelled().await;
            return Ok(());
        }
        let mut feed = self.feed.subscribe();
        let sink = context.sink();
        loop {
            let item = tokio::select! {
                () = context.cancelled() => return Ok(()),
                item = feed.recv() => item,
            };
            let Some(tells) = tells(&followed, lists, item) else { return Ok(()) };
            for tell in tells {
                let sent = match tell {
                    Tell::Updated(uri) => sink.notify_resource_updated(uri).await,
                    Tell::ListChanged => sink.notify_resource_list_changed().await,
                };
                if sent.is_err() {
                    return Ok(());
                }
            }
        }
    }
}
