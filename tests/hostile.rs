//! Hostile notes parse in linear time: each shape of `benches/support/hostile.rs` at a few hundred
//! KB, read by every reader of note text. Quadratic work on any of them would take minutes here;
//! linear work takes milliseconds. Nothing is timed: the test just has to finish.

use scholia::annotations::{ParseOptions, is_annotation_note, parse};
use scholia::index::VaultIndex;
use scholia::index::graph::Graph;
use scholia::note::Note;
use scholia::vault::{MemVault, VaultPath};

#[path = "../benches/support/hostile.rs"]
mod shapes;

/// Big enough that a quadratic reader would run for minutes, small enough to be quick if linear.
const SIZE: usize = 400_000;

#[test]
fn hostile_shapes_parse_as_notes() {
    for (name, shape) in shapes::SHAPES {
        let text = shape(SIZE);
        let note = Note::parse(&text);
        assert!(note.tag_names().len() <= text.len(), "{name}");
        let _ = note.anchors();
    }
}

#[test]
fn hostile_shapes_parse_as_annotation_notes() {
    let options = ParseOptions::default();
    for (_, shape) in shapes::SHAPES {
        let text = shape(SIZE);
        let _ = parse(&text, "/vault/hostile.md", &options);
        let _ = is_annotation_note(&text, &options);
    }
}

#[test]
fn hostile_shapes_are_indexed() {
    for (name, shape) in shapes::SHAPES {
        let text = shape(SIZE);
        let vault =
            MemVault::with_files([("hostile.md", text.as_str()), ("other.md", "see [[hostile]]")]).unwrap();
        let graph = Graph::build(&vault).unwrap();
        assert!(graph.note(&VaultPath::new("hostile.md").unwrap()).is_some(), "{name}");
        VaultIndex::build(&vault, &VaultPath::root()).unwrap();
    }
}

#[test]
fn shapes_have_the_size_asked() {
    for (name, shape) in shapes::SHAPES {
        let text = shape(1000);
        assert!((1000..1200).contains(&text.len()), "{name}: {}", text.len());
    }
}

/// Writes each shape at 16 KB as a seed of the fuzz target (`fuzz/seeds/parse/`):
/// `cargo test --test main hostile::write_fuzz_seeds -- --ignored`.
#[test]
#[ignore = "writes the fuzz seeds; run by hand when the shapes change"]
fn write_fuzz_seeds() {
    let dir = crate::check::root().join("fuzz/seeds/parse");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (_, shape)) in shapes::SHAPES.iter().enumerate() {
        std::fs::write(dir.join(format!("hostile-{i:02}.md")), shape(16 * 1024)).unwrap();
    }
}
