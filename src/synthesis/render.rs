//! Placeholder for the renderer (summary and synthesis).

use super::{RenderOptions, SourceNote, SynthesisError};

/// Renders the single-document summary of `source` (seed 001's layout).
pub fn summarize(source: &SourceNote, options: &RenderOptions) -> String {
    let _ = (source, options);
    todo!("summary renderer")
}

/// Renders the multi-document synthesis of `sources` (seed 001's layout).
pub fn synthesize(sources: &[SourceNote], options: &RenderOptions) -> Result<String, SynthesisError> {
    let _ = (sources, options);
    todo!("synthesis renderer")
}
