//! The index of the running server (native, feature `mcp`): built by a parallel scan in the
//! background when the server starts (the server answers before that is done: callers get a
//! [`View`] that scans the vault until the index is ready), kept fresh by a file watcher
//! (`notify`, debounced) and by polling modification times, rebuilt on demand.
//!
//! One maintenance thread runs the first build, then applies watcher events and polls. Readers
//! share a lock with it; a change holds the write side only while it is applied.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::graph::{Attachment, Graph, Issue};
use super::text::{Integrity, TextBuilder, Vocab};
use super::{Changes, NoteChanges, NoteDraft, VaultIndex};
use crate::vault::{FileMeta, FsVault, Vault, VaultError, VaultPath};

mod listeners;
pub use listeners::Listener;

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

/// Where the index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// The first build is running; answers come from scanning the vault.
    Building,
    /// The index is built and kept fresh.
    Ready,
    /// The first build failed (see `error`); answers come from scanning the vault.
    Failed,
}

/// How long a build took.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct BuildTimes {
    /// Listing the vault.
    #[serde(serialize_with = "tenths")]
    pub list_ms: f64,
    /// Reading, parsing and tokenizing the notes (in parallel).
    #[serde(serialize_with = "tenths")]
    pub read_ms: f64,
    /// Assembling the text index and resolving the links.
    #[serde(serialize_with = "tenths")]
    pub assemble_ms: f64,
    /// In all.
    #[serde(serialize_with = "tenths")]
    pub total_ms: f64,
    /// Worker threads.
    pub threads: usize,
    /// Notes read.
    pub notes: usize,
    /// Bytes of Markdown read.
    pub bytes: u64,
}

/// The last change applied to the index.
#[derive(Debug, Clone, Serialize)]
pub struct Update {
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// How long applying it took.
    #[serde(serialize_with = "tenths")]
    pub took_ms: f64,
    /// What changed.
    #[serde(flatten)]
    pub changes: Changes,
    /// What found it: `watcher`, `poll`, `query` (events applied before answering), `write`
    /// (this server wrote), `rebuild`.
    pub source: &'static str,
}

/// The index's state, counts and timings.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// Building, ready or failed.
    pub state: State,
    /// Whether answers come from a complete, fresh index.
    pub complete: bool,
    /// Notes read by the running build (first build or rebuild).
    pub done: usize,
    /// Notes the running build will read.
    pub total: usize,
    /// Whether a rebuild is running (answers still come from the previous index).
    pub rebuilding: bool,
    /// Notes indexed.
    pub notes: usize,
    /// Attachments known.
    pub attachments: usize,
    /// Distinct words.
    pub terms: usize,
    /// (word, note) pairs.
    pub postings: usize,
    /// Approximate memory of the text index, bytes.
    pub text_index_bytes: usize,
    /// The last build.
    pub build: Option<BuildTimes>,
    /// The last change applied.
    pub last_update: Option<Update>,
    /// Changes applied since the start.
    pub updates: u64,
    /// Whether the file watcher runs.
    pub watching: bool,
    /// File events received.
    pub events: u64,
    /// Why the watcher does not run, or the last error it reported.
    pub watcher_error: Option<String>,
    /// Why the first build failed.
    pub error: Option<String>,
    /// Folders the last listing could not read (with the reason): their notes are missing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable_folders: Vec<String>,
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
}

/// The server's index: see the module documentation.
#[derive(Debug)]
pub struct IndexService {
    shared: Arc<Shared>,
    /// The vault's issues, as of a generation of the index.
    issues: Mutex<Option<(u64, Arc<Vec<Issue>>)>>,
}

/// An index to answer from: the live one, or (while it is being built) one scanned for this call.
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
        });
        let worker = Arc::clone(&shared);
        let spawned = std::thread::Builder::new().name("scholia-index".into()).spawn(move || {
            // The watcher is set up here, not before `start` returns: watching a large vault
            // (one inotify watch per folder) would delay the server's first answer. It starts
            // before the first build lists the vault, so no change is missed; the thread owns
            // it and drops it when the service stops.
            let _watcher = options.watch.then(|| worker.watch()).flatten();
            worker.first_build(options.gate);
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

    /// Waits until the index is built (or `timeout` passes); returns whether it is.
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if self.is_ready() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.is_ready()
    }

    /// Makes the index current before an answer: the files this process wrote (the vault's
    /// journal) and the file events not yet applied are applied now; when the journal lost
    /// count, every modification time is checked.
    pub fn prepare(&self) {
        if !self.is_ready() {
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

    /// An index for the notes under `folder`: the live index when it is built, else one scanned
    /// now (the whole vault when `folder` is the root).
    pub fn view(&self, folder: &VaultPath) -> Result<View<'_>, VaultError> {
        let guard = self.shared.read();
        if guard.is_some() {
            return Ok(View::Live(guard));
        }
        drop(guard);
        Ok(View::Scanned(Box::new(VaultIndex::build(self.shared.vault.as_ref(), folder)?)))
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

fn start_watcher(shared: &Arc<Shared>) -> notify::Result<notify::RecommendedWatcher> {
    use notify::Watcher as _;
    let root = shared.vault.root().to_path_buf();
    let target = Arc::clone(shared);
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        target.on_event(&root, event);
    })?;
    watcher.watch(shared.vault.root(), notify::RecursiveMode::Recursive)?;
    Ok(watcher)
}

/// The vault path of a file the watcher reported (`None` when it is outside the vault).
fn vault_path(root: &Path, file: &Path) -> Option<VaultPath> {
    let rel: PathBuf = file.strip_prefix(root).ok()?.to_path_buf();
    let text = rel.to_str()?.replace(std::path::MAIN_SEPARATOR, "/");
    VaultPath::new(&text).ok()
}

fn ms_since_epoch() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl Shared {
    fn info(&self) -> MutexGuard<'_, Info> {
        self.info.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn read(&self) -> RwLockReadGuard<'_, Option<VaultIndex>> {
        self.index.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Option<VaultIndex>> {
        self.index.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Called on the watcher's thread: remembers which paths changed and wakes the maintainer.
    fn on_event(&self, root: &Path, event: notify::Result<notify::Event>) {
        let mut pending = self.pending();
        match event {
            Ok(event) => {
                if matches!(event.kind, notify::EventKind::Access(_)) {
                    return;
                }
                pending.rescan |= event.need_rescan();
                for file in &event.paths {
                    match vault_path(root, file) {
                        Some(path) if path.is_root() => pending.rescan = true,
                        Some(path) if !path.is_hidden() => {
                            pending.paths.insert(path);
                        }
                        _ => {}
                    }
                }
            }
            Err(e) => {
                pending.rescan = true;
                self.info().watcher_error = Some(e.to_string());
            }
        }
        if pending.is_empty() {
            return;
        }
        let now = Instant::now();
        pending.first.get_or_insert(now);
        pending.last = Some(now);
        self.events.fetch_add(1, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Starts the file watcher and records whether it runs (and if not, why).
    fn watch(self: &Arc<Self>) -> Option<notify::RecommendedWatcher> {
        let watcher = match start_watcher(self) {
            Ok(w) => Some(w),
            Err(e) => {
                self.info().watcher_error = Some(format!("cannot watch the vault: {e}"));
                None
            }
        };
        self.info().watching = watcher.is_some();
        watcher
    }

    fn first_build(&self, gate: Option<BuildGate>) {
        match self.build(gate, None) {
            Ok((index, build)) => {
                *self.write() = Some(index);
                self.generation.fetch_add(1, Ordering::SeqCst);
                let mut info = self.info();
                info.state = State::Ready;
                info.build = Some(build);
            }
            Err(e) => {
                let mut info = self.info();
                info.state = State::Failed;
                info.error = Some(e);
                return;
            }
        }
        // Changes made while the build ran: events are pending; without a watcher, poll.
        self.poll("poll");
    }

    /// Applies file events as they come (debounced) and polls modification times, until the
    /// service stops.
    fn maintain(&self) {
        let mut pending = self.pending();
        loop {
            if self.shutdown.load(Ordering::Relaxed) {
                return;
            }
            if pending.due() {
                let batch = std::mem::take(&mut *pending);
                drop(pending);
                self.flush(batch, "watcher");
                pending = self.pending();
                continue;
            }
            let (last_poll, period) = {
                let info = self.info();
                let period = if info.watching {
                    MIN_POLL.max(info.poll_cost * 30)
                } else {
                    POLL_UNWATCHED.max(info.poll_cost * 10)
                };
                (info.last_poll, period)
            };
            let period = if self.poll { period } else { Duration::from_secs(3600) };
            if self.poll && last_poll.elapsed() >= period {
                drop(pending);
                self.poll("poll");
                pending = self.pending();
                continue;
            }
            let wait = if pending.is_empty() { period - last_poll.elapsed() } else { DEBOUNCE };
            pending = self.wake.wait_timeout(pending, wait).map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// Applies a batch of file events.
    fn flush(&self, batch: Pending, source: &'static str) {
        let start = Instant::now();
        let mut guard = self.write();
        let Some(index) = guard.as_mut() else { return };
        let changes = if batch.rescan {
            index.refresh(self.vault.as_ref()).unwrap_or_default()
        } else {
            let paths: Vec<VaultPath> = batch.paths.into_iter().collect();
            index.update_paths(self.vault.as_ref(), &paths)
        };
        drop(guard);
        self.record(changes, start, source);
    }

    /// Checks every modification time (listing without blocking readers) and applies what
    /// changed.
    fn poll(&self, source: &'static str) {
        let start = Instant::now();
        let root = VaultPath::root();
        let Ok(files) = self.vault.list(&root) else { return };
        let plan = match self.read().as_ref() {
            Some(index) => index.plan(&root, &files),
            None => return,
        };
        let changes = if plan.is_empty() {
            Changes::default()
        } else {
            self.write().as_mut().map(|index| index.apply(self.vault.as_ref(), plan)).unwrap_or_default()
        };
        {
            let mut info = self.info();
            info.last_poll = Instant::now();
            info.poll_cost = start.elapsed();
        }
        self.record(changes, start, source);
    }

    fn record(&self, mut changes: Changes, start: Instant, source: &'static str) {
        if changes.is_empty() {
            return;
        }
        let notes = std::mem::take(&mut changes.notes);
        self.generation.fetch_add(1, Ordering::SeqCst);
        let mut info = self.info();
        info.updates += 1;
        info.last_update = Some(Update {
            at_ms: ms_since_epoch(),
            took_ms: start.elapsed().as_secs_f64() * 1e3,
            changes,
            source,
        });
        drop(info);
        self.listeners.notify(&notes);
    }

    /// Tells the listeners what a rebuild changed: the notes that differ between the index it
    /// replaced (`old`) and the live one.
    fn notify_rebuilt(&self, old: Option<VaultIndex>) {
        let Some(old) = old.filter(|_| self.listeners.any()) else { return };
        let changes = match self.read().as_ref() {
            Some(new) => NoteChanges::between(old.graph(), new.graph()),
            None => return,
        };
        drop(old);
        self.listeners.notify(&changes);
    }

    /// Lists the vault, reads and parses its notes on every core, and assembles the index.
    fn build(
        &self,
        gate: Option<BuildGate>,
        progress: Option<&(dyn Fn(usize, usize) + Sync)>,
    ) -> Result<(VaultIndex, BuildTimes), String> {
        let start = Instant::now();
        let root = VaultPath::root();
        let files = self.vault.list(&root).map_err(|e| e.to_string())?;
        let (notes, others): (Vec<FileMeta>, Vec<FileMeta>) =
            files.into_iter().partition(|f| f.path.is_markdown());
        let attachments: Vec<Attachment> = others.iter().map(Attachment::of).collect();
        self.done.store(0, Ordering::Relaxed);
        self.total.store(notes.len(), Ordering::Relaxed);
        let list_ms = start.elapsed().as_secs_f64() * 1e3;
        if let Some(gate) = gate {
            gate.wait(&self.shutdown);
        }
        let read_start = Instant::now();
        let threads = self.threads.clamp(1, notes.len().div_ceil(BATCH).max(1));
        let next = AtomicUsize::new(0);
        let bytes = AtomicU64::new(0);
        // Workers read and parse batches of notes and send them here as they finish each one;
        // this thread puts them in the text index in path order meanwhile. Packed notes live
        // only between the two, not all at once (that was a third of the peak memory).
        let (send, receive) = std::sync::mpsc::channel::<Batch>();
        let mut text = TextBuilder::new();
        let mut graph_notes = Vec::with_capacity(notes.len());
        let complete = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|worker| {
                    let send = send.clone();
                    let (notes, next, bytes) = (&notes, &next, &bytes);
                    scope.spawn(move || self.read_notes(worker, notes, next, bytes, progress, &send))
                })
                .collect();
            drop(send);
            let mut waiting = BTreeMap::new();
            let mut due = 0;
            for batch in receive {
                text.adopt(batch.worker, batch.words.iter().map(|w| &**w));
                waiting.insert(batch.start, batch);
                while let Some(batch) = waiting.remove(&due) {
                    due += BATCH;
                    for draft in batch.drafts {
                        let (note, doc) = draft.into_parts();
                        text.push(batch.worker, doc);
                        graph_notes.push(note);
                    }
                }
            }
            // A worker that panicked left a batch out: no index rather than one missing notes.
            workers.into_iter().all(|w| w.join().is_ok()) && waiting.is_empty()
        });
        if self.shutdown.load(Ordering::Relaxed) {
            return Err("the server stopped".into());
        }
        if !complete {
            return Err("a thread reading the notes failed; the index was not built (see the log)".into());
        }
        let read_ms = read_start.elapsed().as_secs_f64() * 1e3;
        let assemble_start = Instant::now();
        let (text, graph) = std::thread::scope(|scope| {
            let text = scope.spawn(|| text.finish());
            let graph = Graph::from_parts(graph_notes, attachments);
            (text.join(), graph)
        });
        let text = text.map_err(|_| "the text index could not be built".to_string())?;
        let index = VaultIndex::from_parts(text, graph, &root);
        let times = BuildTimes {
            list_ms,
            read_ms,
            assemble_ms: assemble_start.elapsed().as_secs_f64() * 1e3,
            total_ms: list_ms + read_ms + assemble_start.elapsed().as_secs_f64() * 1e3,
            threads,
            notes: index.text().len(),
            bytes: bytes.load(Ordering::Relaxed),
        };
        Ok((index, times))
    }

    /// One worker: takes batches of notes until none is left; each note is read, parsed and
    /// tokenized against the worker's own vocabulary, and each batch sent with the words it
    /// added to that vocabulary.
    fn read_notes(
        &self,
        worker: usize,
        notes: &[FileMeta],
        next: &AtomicUsize,
        bytes: &AtomicU64,
        progress: Option<&(dyn Fn(usize, usize) + Sync)>,
        send: &std::sync::mpsc::Sender<Batch>,
    ) {
        let mut vocab = Vocab::new();
        loop {
            if self.shutdown.load(Ordering::Relaxed) {
                break;
            }
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            if start >= notes.len() {
                break;
            }
            let known = vocab.len();
            let batch = &notes[start..(start + BATCH).min(notes.len())];
            let mut drafts = Vec::with_capacity(batch.len());
            for meta in batch {
                let text = self.vault.read(&meta.path);
                if matches!(text, Err(VaultError::NotFound { .. })) {
                    continue;
                }
                bytes.fetch_add(text.as_ref().map_or(0, |t| t.len() as u64), Ordering::Relaxed);
                drafts.push(NoteDraft::new(&mut vocab, meta, &text));
            }
            let words = vocab.words_from(known).map(Box::from).collect();
            let done = self.done.fetch_add(batch.len(), Ordering::Relaxed) + batch.len();
            if send.send(Batch { worker, start, words, drafts }).is_err() {
                break;
            }
            if let Some(report) = progress {
                report(done, notes.len());
            }
        }
    }
}

/// A batch of notes a worker read: from note `start` of the listing on.
struct Batch {
    worker: usize,
    start: usize,
    /// The words the worker's vocabulary learnt from these notes.
    words: Vec<Box<str>>,
    drafts: Vec<NoteDraft>,
}

/// Milliseconds to a tenth: what a person reads in a status answer.
fn tenths<S: serde::Serializer>(ms: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64((ms * 10.0).round() / 10.0)
}
