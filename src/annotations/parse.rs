//! The parser: note text → [`AnnotationDoc`].

use super::{AnnotationDoc, ParseOptions};

/// Parses an annotation note. `file_path` is recorded as given (absolute in the MCP answers).
/// Never fails: what cannot be read becomes a diagnostic in the result.
pub fn parse(text: &str, file_path: &str, options: &ParseOptions) -> AnnotationDoc {
    let _ = (text, file_path, options);
    todo!("annotation parser")
}

/// Whether `text` is an annotation note: `category: Annotations` in its frontmatter, or the
/// parser recognises annotations in it.
pub fn is_annotation_note(text: &str, options: &ParseOptions) -> bool {
    let _ = (text, options);
    todo!("annotation note test")
}
