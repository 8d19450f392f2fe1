//! The resource subscriptions end to end: sessions of a server hearing of the notes they follow,
//! and a `subscriptions/listen` request reading the feed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    ProtocolVersion, ResourceUpdatedNotificationParam, SubscribeRequestParams, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use tokio::sync::mpsc;

use super::server::{Scholia, Settings};
use super::subscriptions::BACKLOG;
use crate::index::NoteChanges;
use crate::index::service::IndexOptions;
use crate::vault::VaultPath;
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
