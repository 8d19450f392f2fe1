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
use serde_json::json;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::server::Scholia;
use crate::index::NoteChanges;
use crate::index::service::IndexService;
use crate::vault::{Vault, VaultPath};

/// How every note resource URI starts.
const NOTE_URI: &str = "scholia://note/";
/// Batches of changes a session may fall behind by; one that falls further is told that every
/// note it follows changed, and that the list changed.
const BACKLOG: usize = 256;
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
    feed: Feed,
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

impl Scholia {
    /// This server for a new session: the same vault, index and settings, no subscriptions.
    pub(super) fn new_session(&self) -> Self {
        let mut session = self.clone();
        session.subscriptions = Arc::new(Subscriptions::new(self.subscriptions.feed.clone()));
        // "Allow for this session" is one client's answer: it must not approve another's calls.
        session.approved = Arc::new(AtomicBool::new(false));
        session
    }

    /// The note a resource URI names (existing or not): a `scholia://note/` URI whose
    /// percent-decoded path is a Markdown note inside the vault, outside hidden folders.
    fn uri_note(&self, uri: &str) -> Result<VaultPath, McpError> {
        let bad = |why: String| McpError::invalid_params(why, Some(json!({"uri": uri})));
        let raw = uri.strip_prefix(NOTE_URI).ok_or_else(|| {
            bad(format!(
                "{uri} is not a note resource: note URIs are {NOTE_URI} and the note's vault path, as resources/list gives them"
            ))
        })?;
        let path = self
            .note_path(&crate::note::percent_decode(raw))
            .map_err(|e| bad(format!("{uri} does not name a note inside the vault: {e}")))?;
        if !path.is_markdown() || path.is_hidden() {
            return Err(bad(format!(
                "{uri} is not a note: only Markdown notes outside hidden folders are resources; see resources/list"
            )));
        }
        Ok(path)
    }

    /// Starts this session's forwarding task (once) if it is not running: notifications for
    /// the notes it follows and list changes go to `peer`.
    pub(super) fn start_forwarding(&self, peer: Peer<RoleServer>) {
        let session = &self.subscriptions;
        if session.forwarding.swap(true, Ordering::SeqCst) {
            return;
        }
        // Read the feed from now on, before the subscription is confirmed.
        let feed = session.feed.subscribe();
        tokio::spawn(forward(Arc::downgrade(session), session.ended.clone(), feed, peer));
    }

    /// `resources/subscribe`: follows the note `uri` names, which must exist.
    pub(super) fn subscribe_note(&self, uri: String, peer: Peer<RoleServer>) -> Result<(), McpError> {
        let path = self.uri_note(&uri)?;
        if !self.vault.exists(&path) {
            return Err(McpError::resource_not_found(
                format!("no note at {path}; subscribe to a note URI that resources/list gives"),
                Some(json!({"uri": uri})),
            ));
        }
        {
            let mut followed = self.subscriptions.followed();
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

    /// `resources/unsubscribe`: stops following the note `uri` names (under any URI); a note
    /// not followed, or gone since, is no error.
    pub(super) fn unsubscribe_note(&self, uri: &str) -> Result<(), McpError> {
        let path = self.uri_note(uri)?;
        self.subscriptions.followed().remove(&path);
        Ok(())
    }

    /// The part of a `subscriptions/listen` filter this server serves (protocol 2026-07-28):
    /// resource list changes, and updates of the requested URIs that name existing notes.
    pub(super) fn accepted_filter(&self, requested: &SubscriptionFilter) -> SubscriptionFilter {
        let mut accepted = SubscriptionFilter::builder();
        if requested.resources_list_changed == Some(true) {
            accepted = accepted.resources_list_changed();
        }
        let uris = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| self.uri_note(uri).is_ok_and(|path| self.vault.exists(&path)));
        let uris: Vec<&String> = uris.take(MAX_FOLLOWED).collect();
        if !uris.is_empty() {
            accepted = accepted.resource_subscriptions(uris.into_iter().cloned());
        }
        accepted.build()
    }

    /// Serves one `subscriptions/listen` request (protocol 2026-07-28) until it is cancelled or
    /// the client goes away.
    pub(super) async fn listen_to_notes(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let accepted = context.accepted();
        let lists = accepted.resources_list_changed == Some(true);
        let mut followed = Followed::new();
        for uri in accepted.resource_subscriptions.iter().flatten() {
            if let Ok(path) = self.uri_note(uri) {
                followed.entry(path).or_default().insert(uri.clone());
            }
        }
        if followed.is_empty() && !lists {
            context.cancelled().await;
            return Ok(());
        }
        let mut feed = self.subscriptions.feed.subscribe();
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use rmcp::model::{ProtocolVersion, SubscribeRequestParams};
    use rmcp::service::{NotificationContext, RunningService};
    use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
    use tokio::sync::mpsc;

    use super::*;
    use crate::index::service::IndexOptions;
    use crate::mcp::Settings;
    use crate::vault::config::Config;

    /// A client that passes on the URIs of `resources/updated`.
    #[derive(Clone)]
    struct Ears(mpsc::UnboundedSender<String>);

    impl rmcp::ClientHandler for Ears {
        async fn on_resource_updated(
            &self,
            params: ResourceUpdatedNotificationParam,
            _ctx: NotificationContext<RoleClient>,
        ) {
            let _ = self.0.send(params.uri);
        }
    }

    /// A server over a vault of two notes, `a.md` and `b.md` (no watcher: changes are fed by hand).
    fn server() -> (Scholia, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "a").unwrap();
        std::fs::write(dir.path().join("b.md"), "b").unwrap();
        let config = Config {
            vault: dir.path().canonicalize().unwrap(),
            vault_source: "test".into(),
            annotations_folder: None,
            synthesis_folder: "Synthesis".into(),
            template_path: None,
            colors: Vec::new(),
        };
        let options = IndexOptions { watch: false, ..IndexOptions::default() };
        (Scholia::with_index(Settings::new(config), options).unwrap(), dir)
    }

    #[test]
    fn a_new_session_starts_with_its_own_subscriptions_and_approvals() {
        let (server, _dir) = server();
        server.approved.store(true, std::sync::atomic::Ordering::Relaxed);
        let session = server.new_session();
        assert!(!session.approved.load(std::sync::atomic::Ordering::Relaxed));
        assert!(!Arc::ptr_eq(&session.subscriptions, &server.subscriptions));
        assert!(Arc::ptr_eq(&session.index, &server.index));
    }

    fn serve(server: Scholia) -> tokio::io::DuplexStream {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        client_io
    }

    async fn client(server: Scholia) -> (RunningService<RoleClient, Ears>, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Ears(tx).serve(serve(server)).await.unwrap(), rx)
    }

    async fn until(what: &str, check: impl Fn() -> bool) {
        let start = Instant::now();
        while !check() {
            assert!(start.elapsed() < Duration::from_secs(20), "{what} never happened");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn modified(paths: &[&str]) -> Arc<NoteChanges> {
        let modified = paths.iter().map(|p| VaultPath::new(p).unwrap()).collect();
        Arc::new(NoteChanges { modified, ..NoteChanges::default() })
    }

    #[allow(deprecated)]
    #[tokio::test]
    async fn each_session_hears_of_its_own_notes_and_stops_listening_when_it_ends() {
        let (server, _dir) = server();
        let feed = server.subscriptions.feed.clone();
        let (one, mut heard_one) = client(server.new_session()).await;
        let (two, mut heard_two) = client(server.new_session()).await;
        one.subscribe(SubscribeRequestParams::new("scholia://note/a.md")).await.unwrap();
        two.subscribe(SubscribeRequestParams::new("scholia://note/b")).await.unwrap();
        assert_eq!(feed.receiver_count(), 2);
        feed.send(modified(&["a.md", "b.md"])).unwrap();
        assert_eq!(heard_one.recv().await.unwrap(), "scholia://note/a.md");
        assert_eq!(heard_two.recv().await.unwrap(), "scholia://note/b");
        feed.send(modified(&["b.md"])).unwrap();
        feed.send(modified(&["a.md"])).unwrap();
        assert_eq!(heard_one.recv().await.unwrap(), "scholia://note/a.md", "b.md is not session one's");
        one.cancel().await.unwrap();
        until("session one letting go of the feed", || feed.receiver_count() == 1).await;
        // The other session still hears; nothing breaks for the one that ended.
        feed.send(modified(&["a.md", "b.md"])).unwrap();
        assert_eq!(heard_two.recv().await.unwrap(), "scholia://note/b");
        assert_eq!(heard_two.recv().await.unwrap(), "scholia://note/b");
        drop(two);
        until("session two letting go of the feed", || feed.receiver_count() == 0).await;
    }

    #[tokio::test]
    async fn a_listen_request_reads_the_feed_until_it_is_cancelled() {
        let (server, _dir) = server();
        let feed = server.subscriptions.feed.clone();
        let client = ()
            .serve_with_lifecycle(
                serve(server),
                ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
            )
            .await
            .unwrap();
        let filter = SubscriptionFilter::builder().resource_subscription("scholia://note/a.md").build();
        let mut subscription = client.listen(filter).await.unwrap();
        until("the listen request reading the feed", || feed.receiver_count() == 1).await;
        // A batch lost by a slow reader counts as a change of every note followed.
        for _ in 0..=BACKLOG {
            feed.send(modified(&["b.md"])).unwrap();
        }
        let next = subscription.next().await.unwrap();
        assert!(matches!(next, Some(rmcp::model::ServerNotification::ResourceUpdatedNotification(_))));
        subscription.cancel().await.unwrap();
        until("the listen request letting go of the feed", || feed.receiver_count() == 0).await;
    }
}
