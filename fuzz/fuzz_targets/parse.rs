//! The annotation parser and the note model must accept any text without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scholia::annotations::{ParseOptions, is_annotation_note, parse};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let options = ParseOptions::default();
        let _ = parse(text, "/vault/fuzz.md", &options);
        let _ = is_annotation_note(text, &options);
        let _ = scholia::note::anchors(text);
    }
});
