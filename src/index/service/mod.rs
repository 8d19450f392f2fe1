//! The index of the running server (native, feature `mcp`): built by a parallel scan in the
//! background when the server starts (the server answers before that is done: callers get a
//! [`View`] that scans the vault until the index is ready), kept fresh by a file watcher
//! (`notify`, debounced) and by polling modification times, rebuilt on demand.
//!
//! One maintenance thread runs the first build, then applies watcher events and polls. Readers
//! share a lock with it; a change holds the write side only while it is applied.
//!
//! Here the shared state and the service's API; `build.rs` the build, `watch.rs` the watcher, the
//! poll and applying changes, `status.rs` what the service says about itself, `listeners.rs` who
//! is told of changes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::graph::{Attachment, Graph, Issue};
use super::text::{Integrity, TextBuilder, Vocab};
use super::{Changes, NoteChanges, NoteDraft, Query, Scope, VaultIndex, scan};
use crate::vault::{FileMeta, FsVault, Vault, VaultError, VaultPath};

mod build;
mod listeners;
mod status;
mod watch;

pub use listeners::Listener;
pub use status::{BuildTimes, State, Status, Update};

/// Quiet time after the last file event before the batch is applied.
const DEBOUNCE: Duration = Duration::from_millis(40);
/// Longest a batch of events waits while events keep coming.
const MAX_HOLD: Duration = Duration::from_millis(400);
/// Shortest time between two polls of the vault's modification times.
const MIN_POLL: Duration = Duration::from_secs(2);
/// Shortest poll period when no watcher runs (a vault whose poll takes longer is polled less
/// often: at most a tenth of one core goes to polling).
const POLL_UNWATCHED: Duration = Duration::from_secs(1);
/// Notes a worker takes at a time.
const BATCH: usize = 32;
/// Longest a worker of the first build waits for answers scanned from the vault before it takes
/// its next batch (so that a stream of such answers cannot hold the build back for long).
const MAX_YIELD: Duration = Duration::from_secs(2);
/// An answer waits for the first build rather than scan the vault when the build should be done
/// within this time.
const NEARLY_READY: Duration = Duration::from_millis(150);

/// Holds the first build until opened: lets a test see the server while it is still building.
/// The build reaches the gate once it has listed the vault (so its progress has a total).
#[derive(Debug, Clone, Default)]
pub struct BuildGate(Arc<(Mutex<GateState>, Condvar)>);

#[derive(Debug, Default)]
struct GateState {
    open: bool,
    reached: bool,
}

impl BuildGate {
    /// A closed gate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the build go on.
    pub fn open(&self) {
        self.0.0.lock().unwrap_or_else(|e| e.into_inner()).open = true;
        self.0.1.notify_all();
    }

    /// Blocks until the build waits at the gate (or `limit` passes); returns whether it does.
    pub fn wait_reached(&self, limit: Duration) -> bool {
        let state = self.0.0.lock().unwrap_or_else(|e| e.into_inner());
        let (state, _) =
            self.0.1.wait_timeout_while(state, limit, |s| !s.reached).unwrap_or_else(|e| e.into_inner());
        state.reached
    }

    fn wait(&self, shutdown: &AtomicBool) {
        let mut state = self.0.0.lock().unwrap_or_else(|e| e.into_inner());
        state.reached = true;
        self.0.1.notify_all();
        while !state.open && !shutdown.load(Ordering::Relaxed) {
            state = self
                .0
                .1
                .wait_timeout(state, Duration::from_millis(50))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }
}

/// How the service runs.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Watch the vault's files for changes (else only polling keeps the index fresh).
    pub watch: bool,
    /// Worker threads of a build (0: one per core).
    pub threads: usize,
    /// Hold the first build until this gate opens.
    pub gate: Option<BuildGate>,
    /// Check every modification time now and then (the safety net under the watcher).
    pub poll: bool,
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self { watch: true, threads: 0, gate: None, poll: true }
    }
}

#[derive(Debug)]
struct Info {
    state: State,
    build: Option<BuildTimes>,
    last_update: Option<Update>,
    updates: u64,
    watching: bool,
    watcher_error: Option<String>,
    error: Option<String>,
    last_poll: Instant,
    poll_cost: Duration,
}

#[derive(Debug, Default)]
struct Pending {
    paths: BTreeSet<VaultPath>,
    rescan: bool,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.rescan
    }

    fn due(&self) -> bool {
        !self.is_empty()
            && (self.last.is_none_or(|t| t.elapsed() >= DEBOUNCE)
                || self.first.is_some_and(|t| t.elapsed() >= MAX_HOLD))
    }
}

#[derive(Debug)]
struct Shared {
    vault: Arc<FsVault>,
    index: RwLock<Option<VaultIndex>>,
    info: Mutex<Info>,
    done: AtomicUsize,
    total: AtomicUsize,
    events: AtomicU64,
    rebuilding: AtomicBool,
    shutdown: AtomicBool,
    pending: Mutex<Pending>,
    wake: Condvar,
    threads: usize,
    /// Whether to poll modification times (see [`IndexOptions::poll`]).
    poll: bool,
    /// Counts the changes applied, so answers derived from the index can be cached.
    generation: AtomicU64,
    /// Told which notes changed after each change applied.
    listeners: listeners::Listeners,
    /// How many answers are being scanned from the vault now: the first build lets them have
    /// the cores (see [`Shared::yield_to_scans`]).
    scans: AtomicUsize,
    /// When the running build began reading the notes.
    reading_since: Mutex<Option<Instant>>,
}

/// The server's index: see the module documentation.
#[derive(Debug)]
pub struct IndexService {
    shared: Arc<Shared>,
    /// The vault's issues, as of a generation of the index.
    issues: Mutex<Option<(u64, Arc<Vec<Issue>>)>>,
}

/// An index to answer from: the live one, or (while it is being built) one scanned for this call
/// (of every note, or for a search of only the notes that can match it).
#[derive(Debug)]
pub enum View<'a> {
    /// The service's index.
    Live(RwLockReadGuard<'a, Option<VaultIndex>>),
    /// Built by scanning the vault for this call.
    Scanned(Box<VaultIndex>),
}

impl std::ops::Deref for View<'_> {
    type Target = VaultIndex;

    fn deref(&self) -> &VaultIndex {
        static EMPTY: std::sync::OnceLock<VaultIndex> = std::sync::OnceLock::new();
        match self {
            View::Live(guard) => guard.as_ref().unwrap_or_else(|| EMPTY.get_or_init(VaultIndex::default)),
            View::Scanned(index) => index,
        }
    }
}

impl View<'_> {
    /// Whether the answer comes from the live index (not from a scan).
    pub fn is_live(&self) -> bool {
        matches!(self, View::Live(_))
    }
}

/// What a rebuild did.
#[derive(Debug, Clone, Serialize)]
pub struct Rebuilt {
    /// How long it took.
    pub build: BuildTimes,
    /// The integrity check of the new index against the vault and itself.
    pub integrity: Integrity,
}

impl IndexService {
    /// Starts the service over `vault`: the watcher (when asked) and the maintenance thread,
    /// which builds the index, then keeps it fresh.
    pub fn start(vault: Arc<FsVault>, options: IndexOptions) -> Self {
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        };
        let shared = Arc::new(Shared {
            vault,
            index: RwLock::new(None),
            info: Mutex::new(Info {
                state: State::Building,
                build: None,
                last_update: None,
                updates: 0,
                watching: false,
                watcher_error: None,
                error: None,
                last_poll: Instant::now(),
                poll_cost: Duration::ZERO,
            }),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            events: AtomicU64::new(0),
            rebuilding: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            threads,
            poll: options.poll,
            generation: AtomicU64::new(0),
            listeners: listeners::Listeners::default(),
            scans: AtomicUsize::new(0),
            reading_since: Mutex::new(None),
        });
        let worker = Arc::clone(&shared);
        let spawned = std::thread::Builder::new().name("scholia-index".into()).spawn(move || {
            // The watcher is set up on this thread, once the first build is done (see
            // `first_build`); the thread owns it and drops it when the service stops.
            let _watcher = worker.first_build(options.gate, options.watch);
            worker.maintain();
        });
        if let Err(e) = spawned {
            let mut info = shared.info();
            info.state = State::Failed;
            info.error = Some(format!("cannot start the index thread: {e}"));
        }
        Self { shared, issues: Mutex::new(None) }
    }

    /// The state, counts and timings.
    pub fn status(&self) -> Status {
        let s = &self.shared;
        let (notes, attachments, terms, postings, bytes) = match s.index.try_read().ok().as_deref() {
            Some(Some(index)) => (
                index.text().len(),
                index.graph().attachments().count(),
                index.text().vocab().len(),
                index.text().postings(),
                index.text().heap_bytes(),
            ),
            _ => (0, 0, 0, 0, 0),
        };
        let unreadable_folders = s.vault.unreadable();
        let info = s.info();
        Status {
            state: info.state,
            complete: info.state == State::Ready && unreadable_folders.is_empty(),
            done: s.done.load(Ordering::Relaxed),
            total: s.total.load(Ordering::Relaxed),
            rebuilding: s.rebuilding.load(Ordering::Relaxed),
            notes,
            attachments,
            terms,
            postings,
            text_index_bytes: bytes,
            build: info.build,
            last_update: info.last_update.clone(),
            updates: info.updates,
            watching: info.watching,
            events: s.events.load(Ordering::Relaxed),
            watcher_error: info.watcher_error.clone(),
            error: info.error.clone(),
            unreadable_folders,
        }
    }

    /// The state, how far the running build got (done, total), and whether a rebuild runs:
    /// cheap enough for every answer.
    pub fn brief(&self) -> (State, usize, usize, bool) {
        let s = &self.shared;
        (
            s.info().state,
            s.done.load(Ordering::Relaxed),
            s.total.load(Ordering::Relaxed),
            s.rebuilding.load(Ordering::Relaxed),
        )
    }

    /// The vault's issues ([`super::graph::Graph::validate`]) in `view`, computed once per
    /// change of the live index.
    pub fn issues(&self, view: &View<'_>) -> Arc<Vec<Issue>> {
        if !view.is_live() {
            return Arc::new(view.graph().validate());
        }
        let generation = self.shared.generation.load(Ordering::SeqCst);
        let mut cache = self.issues.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, issues)) = cache.as_ref()
            && *g == generation
        {
            return Arc::clone(issues);
        }
        let issues = Arc::new(view.graph().validate());
        *cache = Some((generation, Arc::clone(&issues)));
        issues
    }

    /// Whether the index is built.
    pub fn is_ready(&self) -> bool {
        self.shared.info().state == State::Ready
    }

    /// Waits until the index is built, its build failed, or `timeout` passes; returns whether
    /// it is built (a failed build is not waited for: answers then come from scanning).
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < timeout {
            match self.shared.info().state {
                State::Ready => return true,
                State::Failed => return false,
                State::Building => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        self.is_ready()
    }

    /// Makes the index current before an answer: the files this process wrote (the vault's
    /// journal) and the file events not yet applied are applied now; when the journal lost
    /// count, every modification time is checked.
    pub fn prepare(&self) {
        // The first build stores its index a moment before it says it is ready: an answer taken
        // from the index in between must have this process's writes applied too.
        if !self.is_ready() && self.shared.read().is_none() {
            return;
        }
        let Some(written) = self.shared.vault.take_written() else {
            self.shared.poll("write");
            return;
        };
        let source = if written.is_empty() { "query" } else { "write" };
        let batch = {
            let mut pending = self.shared.pending();
            pending.paths.extend(written);
            if pending.is_empty() {
                return;
            }
            std::mem::take(&mut *pending)
        };
        self.shared.flush(batch, source);
    }

    /// Makes the index current with every file on disk, not only the ones it heard of: what
    /// [`IndexService::prepare`] applies, then every modification time checked (a listing of the
    /// vault). For a change planned from the index that rewrites other notes (a move, a delete's
    /// list of links), where a note another program wrote a moment ago must not be missed.
    pub fn sync(&self) {
        if self.is_ready() {
            self.prepare();
            self.shared.poll("sync");
        }
    }

    /// An index for the notes under `folder`: the live index when it is built, else one scanned
    /// now (the whole vault when `folder` is the root).
    pub fn view(&self, folder: &VaultPath) -> Result<View<'_>, VaultError> {
        let guard = self.shared.read();
        if guard.is_some() {
            return Ok(View::Live(guard));
        }
        drop(guard);
        if let Some(live) = self.live_soon() {
            return Ok(live);
        }
        let _scan = Scan::start(&self.shared);
        Ok(View::Scanned(Box::new(VaultIndex::build(self.shared.vault.as_ref(), folder)?)))
    }

    /// An index to answer `query` in `scope` from: the live index when it is built, else one
    /// read now for this query alone ([`scan::search_index`]: its search for `query` answers as
    /// the live index's would, and its graph holds the best `first` notes).
    pub fn search_view(&self, scope: &Scope, query: &Query, first: usize) -> Result<View<'_>, VaultError> {
        if let Some(live) = self.live().or_else(|| self.live_soon()) {
            return Ok(live);
        }
        let _scan = Scan::start(&self.shared);
        let index = scan::search_index(self.shared.vault.as_ref(), scope, query, first)?;
        Ok(View::Scanned(Box::new(index)))
    }

    /// The live index once the first build is done, when it should be done within
    /// [`NEARLY_READY`] (judged by how fast it has read the notes so far): waiting for it is
    /// then faster than scanning the vault.
    fn live_soon(&self) -> Option<View<'_>> {
        let s = &self.shared;
        let (done, total) = (s.done.load(Ordering::Relaxed), s.total.load(Ordering::Relaxed));
        let since = *s.reading_since.lock().unwrap_or_else(|e| e.into_inner());
        if s.info().state != State::Building || done == 0 || total == 0 {
            return None;
        }
        let elapsed = since?.elapsed();
        // The notes left to read at the pace so far, and assembling the index: about a fifth of
        // the reading.
        let left = elapsed.mul_f64(total.saturating_sub(done) as f64 / done as f64) + elapsed / 5;
        if left > NEARLY_READY {
            return None;
        }
        self.wait_ready(left * 2 + Duration::from_millis(20));
        self.live()
    }

    /// Says that an answer is being scanned from the vault (not through [`IndexService::view`]
    /// or [`IndexService::search_view`], which say it themselves) until the guard is dropped: the
    /// first build lets it have the cores meanwhile.
    pub fn scanning(&self) -> Scan<'_> {
        Scan::start(&self.shared)
    }

    /// The live index, `None` while it is being built.
    pub fn live(&self) -> Option<View<'_>> {
        let guard = self.shared.read();
        guard.is_some().then_some(View::Live(guard))
    }

    /// Calls `listener` after each batch of changes applied to the built index (file events,
    /// polling, this server's writes, a rebuild) with the notes it added, read again or
    /// dropped. It runs on the thread that applied the batch, so it must return quickly.
    /// Returns an id for [`IndexService::unlisten`].
    pub fn listen(&self, listener: impl Fn(&NoteChanges) + Send + Sync + 'static) -> u64 {
        self.shared.listeners.add(Arc::new(listener))
    }

    /// Stops calling the listener `id`; returns whether it was listening.
    pub fn unlisten(&self, id: u64) -> bool {
        self.shared.listeners.remove(id)
    }

    /// Builds a new index (answers keep coming from the current one meanwhile), swaps it in,
    /// catches up with changes made during the build and checks its integrity. `progress` is
    /// told (notes read, notes in all) as the build goes.
    pub fn rebuild(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Rebuilt, String> {
        let s = &self.shared;
        if s.info().state == State::Building {
            return Err(format!(
                "the index is still being built ({} of {} notes); it will be ready shortly, follow it with get_vault_stats",
                s.done.load(Ordering::Relaxed),
                s.total.load(Ordering::Relaxed)
            ));
        }
        if s.rebuilding.swap(true, Ordering::SeqCst) {
            return Err("a rebuild is already running; follow it with get_vault_stats".into());
        }
        let built = s.build(None, Some(progress));
        let result = built.map_err(|e| format!("the rebuild failed: {e}")).and_then(|(index, build)| {
            let old = s.write().replace(index);
            s.generation.fetch_add(1, Ordering::SeqCst);
            s.notify_rebuilt(old);
            {
                let mut info = s.info();
                info.state = State::Ready;
                info.error = None;
                info.build = Some(build);
            }
            s.poll("rebuild");
            let integrity = s
                .read()
                .as_ref()
                .map(|index| index.verify(s.vault.as_ref()))
                .transpose()
                .map_err(|e| e.to_string())?
                .unwrap_or_default();
            Ok(Rebuilt { build, integrity })
        });
        s.rebuilding.store(false, Ordering::SeqCst);
        result
    }
}

impl Drop for IndexService {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
    }
}

/// An answer being scanned from the vault, while it lasts: the first build waits meanwhile
/// (see [`IndexService::scanning`]).
#[derive(Debug)]
pub struct Scan<'a>(&'a Shared);

impl<'a> Scan<'a> {
    fn start(shared: &'a Shared) -> Self {
        shared.scans.fetch_add(1, Ordering::SeqCst);
        Self(shared)
    }
}

impl Drop for Scan<'_> {
    fn drop(&mut self) {
        self.0.scans.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
    /// Waits while answers are scanned from the vault (at most [`MAX_YIELD`] a time): a caller
    /// waiting for an answer comes first, the index a moment later.
    pub(super) fn yield_to_scans(&self) {
        let start = Instant::now();
        while self.scans.load(Ordering::SeqCst) > 0 && start.elapsed() < MAX_YIELD {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    pub(super) fn info(&self) -> MutexGuard<'_, Info> {
        self.info.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn read(&self) -> RwLockReadGuard<'_, Option<VaultIndex>> {
        self.index.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, Option<VaultIndex>> {
        self.index.write().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A service over a vault of one note whose first build is held once it has listed the
    /// vault (no polling; watching as `watch` says).
    fn held(watch: bool) -> (tempfile::TempDir, IndexService, BuildGate) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "A note.").unwrap();
        let vault = Arc::new(FsVault::open(dir.path()).unwrap());
        let gate = BuildGate::new();
        let options = IndexOptions { watch, poll: false, gate: Some(gate.clone()), threads: 1 };
        let service = IndexService::start(vault, options);
        assert!(gate.wait_reached(Duration::from_secs(60)));
        (dir, service, gate)
    }

    #[test]
    fn waiting_for_the_index_ends_when_its_build_failed() {
        let (_dir, service, gate) = held(false);
        let service = Arc::new(service);
        // As when a worker reading the notes failed.
        service.shared.info().state = State::Failed;
        let (send, receive) = std::sync::mpsc::channel();
        let waiting = Arc::clone(&service);
        std::thread::spawn(move || send.send(waiting.wait_ready(Duration::from_secs(3600))));
        let answer = receive.recv_timeout(Duration::from_secs(60));
        gate.open();
        assert_eq!(answer, Ok(false), "still waiting for a build that failed");
    }

    #[test]
    fn a_note_written_during_the_first_build_is_indexed_and_then_watched() {
        let (dir, service, gate) = held(true);
        // The build has listed the vault; the watcher starts once it is done.
        assert!(!service.status().watching);
        std::fs::write(dir.path().join("b.md"), "Written while the notes were read: zebrafish.").unwrap();
        gate.open();
        assert!(service.wait_ready(Duration::from_secs(60)));
        let found = |word: &str| {
            let view = service.view(&VaultPath::root()).unwrap();
            view.search(&crate::index::Query::parse(word), &Scope::default(), 0, 10).total
        };
        assert_eq!(found("zebrafish"), 1, "the poll after the build reads the note the build missed");
        assert!(service.status().watching);
        std::fs::write(dir.path().join("c.md"), "Written once watched: okapi.").unwrap();
        let start = Instant::now();
        while found("okapi") == 0 && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(found("okapi"), 1, "the watcher reports a note written after the build");
    }
}
