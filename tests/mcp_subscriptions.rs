//! Resource subscriptions in process: an rmcp client follows notes while files change on disk
//! (the index's watcher finds them) or through the server's tools, on the 2025 revision
//! (`resources/subscribe`) and the 2026 one (`subscriptions/listen`).

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ProtocolVersion, ResourceUpdatedNotificationParam, ServerNotification,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use scholia::mcp::{Scholia, Settings};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Long enough for any machine; nothing is asserted about speed.
const PATIENCE: Duration = Duration::from_secs(20);

/// What the client heard.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Heard {
    Updated(String),
    ListChanged,
}

/// A client that passes every resource notification on.
#[derive(Clone)]
struct Ears(mpsc::UnboundedSender<Heard>);

impl rmcp::ClientHandler for Ears {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(Heard::Updated(params.uri));
    }

    async fn on_resource_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        let _ = self.0.send(Heard::ListChanged);
    }
}

/// Serves a copy of the example vault (index watched) in process; returns the client's end.
fn serve(vault: &Path) -> tokio::io::DuplexStream {
    let config = crate::mcp_client::config(vault, Some("References"));
    let server = Scholia::new(Settings::new(config)).unwrap();
    crate::mcp_client::serve(server)
}

struct Session {
    client: RunningService<RoleClient, Ears>,
    heard: mpsc::UnboundedReceiver<Heard>,
    vault: tempfile::TempDir,
}

/// A 2025 session on a copy of the example vault whose index is built.
async fn start() -> Session {
    let vault = crate::mcp_client::example_vault();
    let (tx, heard) = mpsc::unbounded_channel();
    let client = Ears(tx).serve(serve(vault.path())).await.unwrap();
    let s = Session { client, heard, vault };
    s.wait_ready().await;
    s
}

impl Session {
    async fn wait_ready(&self) {
        let start = Instant::now();
        loop {
            let stats = self.call("get_vault_stats", json!({})).await;
            if stats["index"] == "ready" {
                return;
            }
            assert!(start.elapsed() < PATIENCE, "the index never got ready: {stats}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn call(&self, tool: &str, args: Value) -> Value {
        let args = args.as_object().cloned().unwrap_or_default();
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
            .await
            .unwrap();
        let value = result.structured_content.unwrap_or_default();
        assert_ne!(result.is_error, Some(true), "{tool} failed: {value}");
        value
    }

    #[allow(deprecated)] // resources/subscribe is the 2025 revisions' way
    async fn subscribe(&self, uri: &str) -> Result<(), rmcp::ServiceError> {
        self.client.subscribe(SubscribeRequestParams::new(uri)).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(&self, uri: &str) -> Result<(), rmcp::ServiceError> {
        self.client.unsubscribe(UnsubscribeRequestParams::new(uri)).await
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.vault.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// Everything heard until `want` (included); fails if it never comes.
    async fn until(&mut self, want: Heard) -> Vec<Heard> {
        let mut heard = Vec::new();
        loop {
            match tokio::time::timeout(PATIENCE, self.heard.recv()).await {
                Ok(Some(h)) => {
                    let done = h == want;
                    heard.push(h);
                    if done {
                        return heard;
                    }
                }
                _ => panic!("never heard {want:?}; heard {heard:?}"),
            }
        }
    }
}

fn uri(path: &str) -> String {
    format!("scholia://note/{}", path.replace(' ', "%20"))
}

fn updated(path: &str) -> Heard {
    Heard::Updated(uri(path))
}

const REVIEW: &str = "Projects/Literature review.md";
const DAILY: &str = "Daily/2024-06-12.md";
const KIM: &str = "References/@kim2020spacing.md";

#[tokio::test]
async fn an_edit_on_disk_notifies_the_subscribed_note_only() {
    let mut s = start().await;
    let resources = s.client.list_all_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == uri(REVIEW)), "the URI is the one resources/list gives");
    s.subscribe(&uri(REVIEW)).await.unwrap();
    // The unsubscribed note changes first: anything said about it would come before the rest.
    s.write(DAILY, "# 2024-06-12\n\nUnfollowed edit.\n");
    s.write(REVIEW, "# Literature review\n\nEdited from outside.\n");
    let heard = s.until(updated(REVIEW)).await;
    assert!(!heard.contains(&updated(DAILY)), "{heard:?}");
    // Once more, so that a late word about the other note would show.
    s.write(REVIEW, "# Literature review\n\nEdited from outside, twice.\n");
    let heard = s.until(updated(REVIEW)).await;
    assert!(!heard.contains(&updated(DAILY)), "{heard:?}");
    // Unsubscribed: no more word about it.
    s.subscribe(&uri(KIM)).await.unwrap();
    s.unsubscribe(&uri(REVIEW)).await.unwrap();
    s.write(REVIEW, "# Literature review\n\nNobody follows this now.\n");
    s.write(KIM, "---\ncitekey: kim2020spacing\n---\nReplaced.\n");
    let heard = s.until(updated(KIM)).await;
    assert!(!heard.contains(&updated(REVIEW)), "{heard:?}");
}

#[tokio::test]
async fn adding_deleting_and_moving_notes_changes_the_list() {
    let mut s = start().await;
    s.subscribe(&uri(REVIEW)).await.unwrap();
    s.write("Inbox/New idea.md", "A new note.\n");
    s.until(Heard::ListChanged).await;
    let resources = s.client.list_all_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == uri("Inbox/New idea.md")));
    // A move is the old note gone (its subscribers hear of it) and a new one listed.
    std::fs::rename(s.vault.path().join(REVIEW), s.vault.path().join("Projects/Review.md")).unwrap();
    let mut heard = s.until(updated(REVIEW)).await;
    if !heard.contains(&Heard::ListChanged) {
        heard = s.until(Heard::ListChanged).await;
    }
    assert!(heard.contains(&Heard::ListChanged));
    // A deletion of a followed note.
    s.subscribe(&uri(DAILY)).await.unwrap();
    std::fs::remove_file(s.vault.path().join(DAILY)).unwrap();
    s.until(updated(DAILY)).await;
}

#[tokio::test]
async fn writes_through_the_tools_notify_too() {
    let mut s = start().await;
    s.subscribe(&uri(REVIEW)).await.unwrap();
    s.call("append_to_note", json!({"path": REVIEW, "content": "Appended by a tool."})).await;
    s.until(updated(REVIEW)).await;
    s.call("create_note", json!({"path": "Inbox/From a tool.md", "content": "Made by a tool."})).await;
    s.until(Heard::ListChanged).await;
}

#[tokio::test]
async fn subscribing_to_something_that_is_not_a_note_is_an_error() {
    let s = start().await;
    for (bad, why) in [
        ("file:///etc/passwd", "is not a note resource"),
        ("scholia://note/../../etc/passwd", "does not name a note inside the vault"),
        ("scholia://note/Attachments/image-8-x40-y220.png", "is not a note"),
        ("scholia://note/.obsidian/app.md", "is not a note"),
        ("scholia://note/Nowhere/missing.md", "no note at Nowhere/missing.md"),
    ] {
        let error = s.subscribe(bad).await.expect_err(bad).to_string();
        assert!(error.contains(why), "{bad}: {error}");
    }
    assert!(s.unsubscribe("file:///etc/passwd").await.is_err());
    // Unsubscribing from a note not followed (or gone) is fine; a URI without `.md` names the note.
    s.unsubscribe(&uri("Nowhere/missing.md")).await.unwrap();
    s.subscribe("scholia://note/Projects/Literature%20review").await.unwrap();
}

#[tokio::test]
async fn on_the_2026_revision_a_listen_request_carries_the_notifications() {
    let vault = crate::mcp_client::example_vault();
    let client = ()
        .serve_with_lifecycle(
            serve(vault.path()),
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        )
        .await
        .unwrap();
    // resources/subscribe belongs to the 2025 revisions.
    #[allow(deprecated)]
    let refused = client.subscribe(SubscribeRequestParams::new(uri(REVIEW))).await;
    assert!(refused.is_err());
    let start = Instant::now();
    loop {
        let args = json!({}).as_object().cloned().unwrap();
        let stats = client
            .call_tool(CallToolRequestParams::new("get_vault_stats").with_arguments(args))
            .await
            .unwrap();
        if stats.structured_content.unwrap_or_default()["index"] == "ready" {
            break;
        }
        assert!(start.elapsed() < PATIENCE, "the index never got ready");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let filter = SubscriptionFilter::builder()
        .resources_list_changed()
        .resource_subscription(uri(REVIEW))
        .resource_subscription("scholia://note/Nowhere/missing.md")
        .resource_subscription("file:///etc/passwd")
        .build();
    let mut subscription = client.listen(filter).await.unwrap();
    // Only the URI that names a note is accepted.
    let accepted =
        SubscriptionFilter::builder().resources_list_changed().resource_subscription(uri(REVIEW)).build();
    assert_eq!(subscription.acknowledged(), &accepted);
    std::fs::write(vault.path().join(DAILY), "Not followed.\n").unwrap();
    std::fs::write(vault.path().join(REVIEW), "# Literature review\n\nEdited.\n").unwrap();
    std::fs::write(vault.path().join("New.md"), "A new note.\n").unwrap();
    let (mut updates, mut list_changed) = (Vec::new(), false);
    while updates.is_empty() || !list_changed {
        let next = tokio::time::timeout(PATIENCE, subscription.next()).await;
        match next.expect("no notification came").unwrap() {
            Some(ServerNotification::ResourceUpdatedNotification(n)) => updates.push(n.params.uri),
            Some(ServerNotification::ResourceListChangedNotification(_)) => list_changed = true,
            Some(other) => panic!("unexpected {other:?}"),
            None => panic!("the subscription ended"),
        }
    }
    // (One edit may be seen as two when the watcher catches the file half written.)
    assert!(updates.iter().all(|u| *u == uri(REVIEW)), "{updates:?}");
    subscription.cancel().await.unwrap();
}
