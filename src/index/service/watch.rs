//! Keeping the index fresh: the file watcher's events (debounced), the mtime poll, and applying
//! each batch of changes (then telling the listeners).

use super::*;

pub(super) fn start_watcher(shared: &Arc<Shared>) -> notify::Result<notify::RecommendedWatcher> {
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
pub(super) fn vault_path(root: &Path, file: &Path) -> Option<VaultPath> {
    let rel: PathBuf = file.strip_prefix(root).ok()?.to_path_buf();
    let text = rel.to_str()?.replace(std::path::MAIN_SEPARATOR, "/");
    VaultPath::new(&text).ok()
}

pub(super) fn ms_since_epoch() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl Shared {
    /// Called on the watcher's thread: remembers which paths changed and wakes the maintainer.
    pub(super) fn on_event(&self, root: &Path, event: notify::Result<notify::Event>) {
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
    pub(super) fn watch(self: &Arc<Self>) -> Option<notify::RecommendedWatcher> {
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

    /// Applies file events as they come (debounced) and polls modification times, until the
    /// service stops.
    pub(super) fn maintain(&self) {
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
    pub(super) fn flush(&self, batch: Pending, source: &'static str) {
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
    pub(super) fn poll(&self, source: &'static str) {
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

    pub(super) fn record(&self, mut changes: Changes, start: Instant, source: &'static str) {
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
    pub(super) fn notify_rebuilt(&self, old: Option<VaultIndex>) {
        let Some(old) = old.filter(|_| self.listeners.any()) else { return };
        let changes = match self.read().as_ref() {
            Some(new) => NoteChanges::between(old.graph(), new.graph()),
            None => return,
        };
        drop(old);
        self.listeners.notify(&changes);
    }
}
