//! Who hears about each change the service applies to the index.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::index::NoteChanges;

/// Told which notes changed after each batch of changes is applied; see
/// [`super::IndexService::listen`].
pub type Listener = Arc<dyn Fn(&NoteChanges) + Send + Sync>;

/// The listeners of one service, each under the id [`Listeners::add`] gave it.
#[derive(Default)]
pub(super) struct Listeners {
    list: Mutex<Vec<(u64, Listener)>>,
    next: AtomicU64,
}

impl std::fmt::Debug for Listeners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listeners").field("count", &self.list().len()).finish()
    }
}

impl Listeners {
    fn list(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Listener)>> {
        self.list.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn add(&self, listener: Listener) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.list().push((id, listener));
        id
    }

    /// Returns whether `id` was listening.
    pub(super) fn remove(&self, id: u64) -> bool {
        let mut list = self.list();
        let before = list.len();
        list.retain(|(i, _)| *i != id);
        list.len() != before
    }

    /// Whether anyone listens (so a change worth computing only for listeners can be skipped).
    pub(super) fn any(&self) -> bool {
        !self.list().is_empty()
    }

    /// Tells every listener about `changes` (none when nothing changed). Called without the
    /// lock held, so a listener may add or remove listeners.
    pub(super) fn notify(&self, changes: &NoteChanges) {
        if changes.is_empty() {
            return;
        }
        let listeners: Vec<Listener> = self.list().iter().map(|(_, l)| Arc::clone(l)).collect();
        for listener in listeners {
            listener(changes);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::super::{IndexOptions, IndexService};
    use crate::vault::{FsVault, VaultPath};

    #[test]
    fn listeners_hear_of_each_change_until_they_stop_listening() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "a").unwrap();
        let vault = std::sync::Arc::new(FsVault::open(dir.path()).unwrap());
        let service = IndexService::start(vault, IndexOptions { watch: false, ..IndexOptions::default() });
        assert!(service.wait_ready(Duration::from_secs(20)));
        let (first_tx, first) = mpsc::channel();
        let (second_tx, second) = mpsc::channel();
        let first_id = service.listen(move |c| first_tx.send(c.clone()).unwrap_or_default());
        service.listen(move |c| second_tx.send(c.clone()).unwrap_or_default());
        // Polling or the rebuild finds the new note, whichever comes first.
        std::fs::write(dir.path().join("b.md"), "b").unwrap();
        service.rebuild(&|_, _| {}).unwrap();
        let heard = first.recv_timeout(Duration::from_secs(20)).unwrap();
        assert_eq!(heard.added, [VaultPath::new("b.md").unwrap()]);
        assert_eq!(second.recv_timeout(Duration::from_secs(20)).unwrap(), heard);
        assert!(service.unlisten(first_id));
        assert!(!service.unlisten(first_id));
        // What it heard before it stopped (a poll racing the rebuild may have spoken of b.md
        // again) is behind it; from here on it hears nothing.
        while first.try_recv().is_ok() {}
        std::fs::remove_file(dir.path().join("a.md")).unwrap();
        service.rebuild(&|_, _| {}).unwrap();
        // (A poll racing the first rebuild may have said more about b.md meanwhile.)
        let heard = std::iter::from_fn(|| second.recv_timeout(Duration::from_secs(20)).ok())
            .find(|c| !c.removed.is_empty())
            .unwrap();
        assert_eq!(heard.removed, [VaultPath::new("a.md").unwrap()]);
        assert!(first.try_recv().is_err(), "a listener that stopped heard of a change");
    }
}
