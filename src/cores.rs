//! Work split over the machine's cores, for the index, the vault's listing and the search: where
//! threads cannot be spawned (wasm32 in the plugin), everything runs on the calling thread.

/// How many cores the machine has (asked once; 1 where it cannot say, as on wasm32).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` over `items`, the results in order: on every core (one run of items each) when there are
/// at least `min` items, else on this thread.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], min: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let parts = cores().min(items.len().div_ceil(min.max(1)));
    if parts < 2 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(parts);
    let (first, rest) = items.split_at(chunk.min(items.len()));
    std::thread::scope(|scope| {
        // The other runs on new threads, the first on this one (one thread fewer to start).
        let runs: Vec<_> = rest
            .chunks(chunk)
            .map(|run| {
                let f = &f;
                scope.spawn(move || run.iter().map(f).collect::<Vec<R>>())
            })
            .collect();
        let mut out: Vec<R> = first.iter().map(&f).collect();
        for run in runs {
            out.extend(run.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn maps_in_order_on_any_number_of_items() {
        for n in [0, 1, 7, 1000, 4097] {
            let items: Vec<usize> = (0..n).collect();
            assert_eq!(super::map(&items, 10, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
