//! The build: the vault listed, its notes read and parsed on every core by workers with their own
//! vocabularies, and added to the index in path order as they come.

use super::*;

impl Shared {
    pub(super) fn first_build(
        self: &Arc<Self>,
        gate: Option<BuildGate>,
        watch: bool,
    ) -> Option<notify::RecommendedWatcher> {
        let built = self.build(gate, None);
        // The watcher starts once the notes are read, not before: watching asks the system for
        // every file open too, so a watcher set up first would be told of each note the build
        // (and a search scanning meanwhile) opens, and its setup (a walk of the whole vault)
        // would compete with the first search's scan. What changed during the build is caught by
        // the poll below, which runs once the watcher is in place, and before the index is
        // said to be ready: a note written during the build is found by the first search after.
        let watcher = if watch { self.watch() } else { None };
        match built {
            Ok((index, build)) => {
                *self.write() = Some(index);
                self.generation.fetch_add(1, Ordering::SeqCst);
                self.poll("poll");
                let mut info = self.info();
                info.state = State::Ready;
                info.build = Some(build);
            }
            Err(e) => {
                let mut info = self.info();
                info.state = State::Failed;
                info.error = Some(e);
            }
        }
        watcher
    }

    /// Lists the vault, reads and parses its notes on every core, and assembles the index.
    pub(super) fn build(
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
        *self.reading_since.lock().unwrap_or_else(|e| e.into_inner()) = Some(read_start);
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
            if progress.is_none() {
                self.yield_to_scans();
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
