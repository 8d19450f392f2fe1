//! The note model: data-driven cases (`tests/cases/note/*.md` → `*.json`), and properties.

use proptest::prelude::*;
use scholia::note::Note;
use serde_json::json;

use crate::check::{cases, check, root};

/// The parsed model as JSON, with the text each span covers (easier to read than offsets).
fn model_json(text: &str) -> serde_json::Value {
    let note = Note::parse(text);
    let at = |s: &std::ops::Range<usize>| text.get(s.clone()).unwrap_or("<bad span>").to_string();
    json!({
        "frontmatter": note.frontmatter.data,
        "diagnostics": note.diagnostics,
        "headings": note.headings.iter().enumerate().map(|(i, h)| json!({
            "level": h.level, "text": h.text, "anchor": h.anchor, "line": h.line,
            "path": note.heading_path(i).join(" > "),
            "section_ends_before": at(&(note.section(i, text).end..(note.section(i, text).end + 12).min(text.len()))),
        })).collect::<Vec<_>>(),
        "links": note.links.iter().map(|l| json!({
            "kind": l.kind, "embed": l.embed, "target": l.target, "subpath": l.subpath, "alias": l.alias,
            "external": l.external, "line": l.line, "source": at(&l.span),
        })).collect::<Vec<_>>(),
        "tags": note.tags.iter().map(|t| json!({"name": t.name, "line": t.line, "source": t.span.as_ref().map(at)})).collect::<Vec<_>>(),
        "blocks": note.blocks.iter().map(|b| json!({"id": b.id, "line": b.line, "block": at(&b.block), "marker": at(&b.marker)})).collect::<Vec<_>>(),
        "tasks": note.tasks.iter().map(|t| json!({"status": t.status.to_string(), "text": t.text, "line": t.line})).collect::<Vec<_>>(),
        "comments": note.comments.iter().map(at).collect::<Vec<_>>(),
        "callouts": note.callouts.iter().map(|c| json!({"kind": c.kind, "title": c.title, "fold": c.fold.map(String::from), "line": c.line, "source": at(&c.span)})).collect::<Vec<_>>(),
        "fields": note.fields.iter().map(|f| json!({"key": f.key, "value": f.value, "line": f.line})).collect::<Vec<_>>(),
    })
}

#[test]
fn parse_cases_match_their_expected_json() {
    let dir = root().join("tests/cases/note");
    for note in cases(&dir, ".md") {
        let text = std::fs::read_to_string(&note).unwrap();
        let json = serde_json::to_string_pretty(&model_json(&text)).unwrap() + "\n";
        check(&note.with_extension("json"), &json);
    }
}

#[test]
fn crlf_and_bom_give_the_same_model() {
    let text = std::fs::read_to_string(root().join("tests/cases/note/tricky.md")).unwrap();
    let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
    let (a, b) = (Note::parse(&text), Note::parse(&crlf));
    let names = |n: &Note| n.headings.iter().map(|h| (h.level, h.text.clone(), h.line)).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    assert_eq!(a.tag_names(), b.tag_names());
    assert_eq!(
        a.links.iter().map(|l| &l.target).collect::<Vec<_>>(),
        b.links.iter().map(|l| &l.target).collect::<Vec<_>>()
    );
    assert_eq!(a.anchors(), b.anchors());
    for h in &b.headings {
        assert!(!crlf[h.span.clone()].ends_with('\r'));
    }
}

#[test]
fn an_indented_callout_spans_its_header_line() {
    let text = "Text.\n  >[!note] git checkout 分支名\n  > more\n";
    let note = Note::parse(text);
    let callout = &note.callouts[0];
    assert_eq!((callout.kind.as_str(), callout.title.as_str()), ("note", "git checkout 分支名"));
    assert!(text[callout.span.clone()].starts_with(">[!note] git checkout 分支名\n  > more"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn parse_never_panics(text in "\\PC{0,300}") {
        let note = Note::parse(&text);
        for h in &note.headings { prop_assert!(text.get(h.span.clone()).is_some()); }
        for l in &note.links { prop_assert!(text.get(l.span.clone()).is_some()); }
        for b in &note.blocks { prop_assert!(text.get(b.block.clone()).is_some()); }
    }

    #[test]
    fn parse_never_panics_on_markdown_soup(text in "([#>\\[\\]!|^%`$*\\-: \n\r]|[a-zé名]){0,300}") {
        let note = Note::parse(&text);
        for i in 0..note.headings.len() { prop_assert!(text.get(note.section(i, &text)).is_some()); }
        for c in &note.comments { prop_assert!(text.get(c.clone()).is_some()); }
        for c in &note.callouts { prop_assert!(text.get(c.span.clone()).is_some()); }
    }
}

mod patch {
    use proptest::prelude::*;
    use scholia::note::{Note, Operation, PatchOptions, Target, patch};
    use serde_json::Value;

    use crate::check::{cases, check, root};

    fn target(call: &Value) -> Target {
        let t = &call["target"];
        if let Some(h) = t["heading"].as_str() {
            Target::Heading(h.into())
        } else if let Some(b) = t["block"].as_str() {
            Target::Block(b.into())
        } else {
            Target::Frontmatter(t["frontmatter"].as_str().unwrap().into())
        }
    }

    /// Each `*.call.json` names a note, a target, an operation and content; the expected note is
    /// `*.out.md` beside it, or `*.err.txt` for a refused edit.
    #[test]
    fn patch_cases_match_their_expected_notes() {
        let dir = root().join("tests/cases/note/patch");
        let calls = cases(&dir, ".call.json");
        assert!(calls.len() >= 10);
        for call_path in calls {
            let call: Value = serde_json::from_str(&std::fs::read_to_string(&call_path).unwrap()).unwrap();
            let text = std::fs::read_to_string(dir.join(call["note"].as_str().unwrap())).unwrap();
            let op: Operation = serde_json::from_value(call["operation"].clone()).unwrap();
            let options = PatchOptions {
                create_if_missing: call["options"]["create_if_missing"].as_bool().unwrap_or(false),
                ..PatchOptions::default()
            };
            let stem = call_path.to_string_lossy().trim_end_matches(".call.json").to_string();
            match patch(&text, &target(&call), op, &call["content"], &options) {
                Ok(done) => {
                    check(std::path::Path::new(&format!("{stem}.out.md")), &done.text);
                    // Text outside the target is untouched: re-parsing finds every other heading.
                    assert!(Note::parse(&done.text).headings.len() >= Note::parse(&text).headings.len());
                }
                Err(err) => check(std::path::Path::new(&format!("{stem}.err.txt")), &format!("{err}\n")),
            }
        }
    }

    /// A heading whose own name starts with `#` is named exactly; `k` and `## k` still name `# k`.
    #[test]
    fn a_heading_named_with_a_hash_is_found_by_its_name() {
        let text = "# #k\nfirst\n# k\nsecond\n";
        let add = |target: &str| {
            let content = Value::String("added".into());
            patch(
                text,
                &Target::Heading(target.into()),
                Operation::Append,
                &content,
                &PatchOptions::default(),
            )
            .unwrap()
            .text
        };
        assert_eq!(add("#k"), "# #k\nfirst\nadded\n# k\nsecond\n");
        assert_eq!(add("k"), "# #k\nfirst\n# k\nsecond\nadded\n");
        assert_eq!(add("# k"), "# #k\nfirst\n# k\nsecond\nadded\n");
    }

    const NOTE: &str = include_str!("cases/note/tricky.md");

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Any sequence of patches on sections leaves the text outside the patched section as it was.
        #[test]
        fn text_outside_the_section_is_unchanged(steps in proptest::collection::vec((0usize..6, 0usize..3, "[a-z #\\n]{0,20}"), 1..5)) {
            let mut text = NOTE.to_string();
            for (pick, op, content) in steps {
                let note = Note::parse(&text);
                let index = pick % note.headings.len();
                let section = note.section(index, &text);
                let heading_end = note.headings[index].span.end;
                let path = note.heading_path(index).join("::");
                let op = [Operation::Append, Operation::Prepend, Operation::Replace][op];
                let Ok(done) = patch(&text, &Target::Heading(path), op, &Value::String(content), &PatchOptions::default()) else {
                    continue; // duplicate headings are refused as ambiguous: nothing changes
                };
                prop_assert!(done.text.starts_with(&text[..heading_end]));
                prop_assert!(done.text.ends_with(&text[section.end..]));
                text = done.text;
            }
        }
    }
}

#[test]
fn html_tags_hold_no_tags_or_links() {
    let text = "<mark style=\"background-color: #ffd400\">Highlight #real</mark> [[Linked]]\n\
                <span data-x='a > b #no'>x</span> a < b #after <!-- #hidden [[Hidden]] --> #kept\n\
                <a href=\"[[NotALink]]\">x</a> <br/> #last\n";
    let note = Note::parse(text);
    assert_eq!(note.tag_names(), ["real", "after", "kept", "last"]);
    let targets: Vec<&str> = note.links.iter().map(|l| l.target.as_str()).collect();
    assert_eq!(targets, ["Linked"]);
}
