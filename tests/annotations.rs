//! The annotation parser: data-driven cases (`tests/cases/annotations/*.md` → `*.json`), and
//! properties that hold for any input.

use proptest::prelude::*;
use scholia::annotations::{AnnotationDoc, AnnotationType, ParseOptions, is_annotation_note, parse};

use crate::check::{cases, check, root};

#[test]
fn cases_match_their_expected_json() {
    let dir = root().join("tests/cases/annotations");
    let options = ParseOptions::default();
    let notes = cases(&dir, ".md");
    assert!(notes.len() >= 6, "the annotation cases are missing");
    for note in notes {
        let text = std::fs::read_to_string(&note).unwrap();
        let name = note.file_name().unwrap().to_string_lossy().into_owned();
        let doc = parse(&text, &format!("/vault/References/{name}"), &options);
        let json = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        check(&note.with_extension("json"), &json);
    }
}

#[test]
fn crlf_and_bom_read_like_the_plain_note() {
    let dir = root().join("tests/cases/annotations");
    let options = ParseOptions::default();
    let plain = parse(&std::fs::read_to_string(dir.join("real_export.md")).unwrap(), "x", &options);
    let crlf = parse(&std::fs::read_to_string(dir.join("crlf_bom.md")).unwrap(), "x", &options);
    assert_eq!(plain.annotations, crlf.annotations);
    assert_eq!(plain.title, crlf.title);
}

#[test]
fn every_annotation_block_becomes_a_record() {
    // Each `<mark` in the user's template is one annotation: none is dropped.
    let text = std::fs::read_to_string(root().join("tests/cases/annotations/real_export.md")).unwrap();
    let doc = parse(&text, "x", &ParseOptions::default());
    assert_eq!(doc.annotations.len(), text.matches("<mark").count());
}

#[test]
fn an_indented_item_under_a_list_annotation_is_its_comment() {
    // Outside any quote, the item's indentation is what makes it the annotation's own; an item
    // of Zotero tags is not part of the comment, and the next item of the list ends it.
    let text = "- <mark class=\"hltr-blue\">\"Second one.\"</mark> [Page 7](zotero://open-pdf/library/items/D8BW?page=7&annotation=BBBB2222)\n\t - #further_reading, #metrics\n\t - Just a comment\n  <br>\n- \"Third.\" [Page 8](zotero://open-pdf/library/items/D8BW?page=8&annotation=CCCC2222)\n\t- Another one\n- \"Fourth.\" [Page 9](zotero://open-pdf/library/items/D8BW?page=9&annotation=DDDD2222)\n";
    let doc = parse(text, "x", &ParseOptions::default());
    let read: Vec<(Option<&str>, Option<&str>)> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        read,
        [
            (Some("Second one."), Some("Just a comment")),
            (Some("Third."), Some("Another one")),
            (Some("Fourth."), None)
        ]
    );
}

#[test]
fn a_titled_callout_with_persist_markers_reads_without_its_template() {
    // The category title is the template's, the text is below it, the empty persist block glued
    // to each annotation's last line is no text, and `image-undefined-…` is an annotation image.
    let path = root()
        .join("tests/cases/families/category_callout_persist/References/okaforCoastalSensorDrift2022.md");
    let doc = parse(&std::fs::read_to_string(path).unwrap(), "x", &ParseOptions::default());
    let first = &doc.annotations[0];
    assert_eq!(first.page.as_deref(), Some("211"));
    assert!(first.text.as_deref().is_some_and(|t| t.starts_with("Uncorrected conductivity")), "{first:?}");
    assert_eq!(
        first.comment.as_deref(),
        Some("The headline number; check whether it holds in brackish water.")
    );
    let image =
        doc.annotations.iter().find(|a| a.image_path.as_deref().is_some_and(|p| p.contains("image-5-")));
    assert_eq!(
        image.and_then(|a| a.comment.as_deref()),
        Some("Figure 4: drift per station, with the correction applied.")
    );
    assert!(doc.annotations.iter().any(|a| a.image_path.as_deref().is_some_and(|p| p.contains("undefined"))));
    for a in &doc.annotations {
        for field in [&a.text, &a.comment].into_iter().flatten() {
            assert!(!field.contains("%%") && !field.contains("Main claim"), "{field}");
        }
    }
}

#[test]
fn annotation_notes_are_recognised() {
    let options = ParseOptions::default();
    assert!(is_annotation_note("---\ncategory: annotations\n---\nno marks", &options));
    assert!(is_annotation_note("---\ncategory: [Annotations]\n---\n", &options));
    assert!(is_annotation_note(
        "<mark style=\"background-color: #5fb236\">Highlight</mark>\n\"x\"\n",
        &options
    ));
    assert!(!is_annotation_note("---\ncategory: Meeting\n---\n# Notes\n> [!Cite]\n> [@x]\n", &options));
    // Read by the general rule only (BibNotes' list of quoted highlights).
    let bibnotes = "## Extracted Annotations\n\n- *“a passage”* [(Author, 2023, p. 2)](zotero://open-pdf/library/items/T3Z5?page=2&annotation=J2JS)\n";
    assert!(is_annotation_note(bibnotes, &options));
    assert!(!is_annotation_note("[PDF](zotero://open-pdf/library/items/T3Z5)\n\nMy own notes.\n", &options));
    // A callout whose metadata is a theme's (`|no-icon`, `|right`), not a colour, with no
    // Zotero link in it: the user's own layout.
    let layout = "> [!link|no-icon]- Today\n> - my theme is `=this.theme`\n>\n> ![[Progress bar]]\n\n> [!aside|right +++]\n> Navigational System\n";
    assert!(!is_annotation_note(layout, &options));
    assert!(parse(layout, "/v/n.md", &options).annotations.is_empty());
    // Words that start like a page (`PagedAttention`, `**Page size tuning:**`) print none.
    let prose = "## Paging\n\n**Page Size tuning:**\n\nSee the [PagedAttention Paper](https://arxiv.org/abs/2309.06180) (page tables, chapter 2).\n";
    assert!(parse(prose, "/v/n.md", &options).annotations.is_empty());
    // One page cited in the user's prose (a reference's `(pp. 115–142)`, `… list page (page 1)`)
    // is no export; ZotLit's block id makes such a passage an annotation all the same.
    let lone = "# Spec\n\n- **After**: `/notes` shows the list page (page 1)\n- paging by query\n";
    let doc = parse(lone, "/v/n.md", &options);
    assert!(doc.annotations.is_empty() && doc.diagnostics.iter().any(|d| d.message.contains("lone passage")));
    let keyed = "> [!note] Page 2\n>\n> The inquiry branch asks.\n> ^IY94HRD2aJRIVCZXVp2\n";
    assert_eq!(parse(keyed, "/v/n.md", &options).annotations.len(), 1);
    // A summary Scholia wrote quotes annotations with their links: it is not one.
    let summary = format!(
        "---\ntype: summary\n---\n# Summary\n\n{}",
        bibnotes.trim_start_matches("## Extracted Annotations\n\n")
    );
    assert!(!is_annotation_note(&summary, &options));
}

fn mutated(seed: &str) -> impl Strategy<Value = String> {
    let seed = seed.to_string();
    (0..seed.len(), 0..64usize, "[<>\\[\\]#*\"“”@|!`%\n\r a-z0-9]{0,8}").prop_map(move |(at, cut, insert)| {
        let mut at = at;
        while !seed.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + cut).min(seed.len());
        while !seed.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}{insert}{}", &seed[..at], &seed[end..])
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        let doc = parse(&text, "x.md", &ParseOptions::default());
        prop_assert!(doc.annotations.len() <= text.len());
    }

    #[test]
    fn never_panics_on_mutated_exports(text in mutated(include_str!("cases/annotations/real_export.md"))) {
        let _ = parse(&text, "x.md", &ParseOptions::default());
    }

    #[test]
    fn never_panics_on_mutated_callouts(text in mutated(include_str!("cases/annotations/callout_style.md"))) {
        let _ = parse(&text, "x.md", &ParseOptions::default());
    }
}

#[test]
fn the_words_under_an_image_annotation_are_its_comment() {
    // Zotero gives an image annotation no text: what is printed with it is the user's comment.
    // (The shape of a template printing `{{annotatedText}}"` over `Blue Highlight [Page 1](…)`.)
    let text = "# Paper\n\nFirst passage.\"\nBlue Highlight [Page 1](zotero://open-pdf/library/items/BR?page=1&annotation=AAAA1111)\n\n# img\n![[Z/paper/MCH3UHST.png]]\nthe grading example\n\n# text\n";
    let doc = parse(text, "x", &ParseOptions::default());
    let image = doc.annotations.iter().find(|a| a.image_path.is_some()).expect("the image is read");
    assert_eq!((image.text.as_deref(), image.comment.as_deref()), (None, Some("the grading example")));
    // The closing quote the template printed after the text, with no opening one, is not the text's.
    assert_eq!(doc.annotations[0].text.as_deref(), Some("First passage."));
}

#[test]
fn a_callout_header_over_the_block_gives_its_colour() {
    // `> [!quote]|#hex` heads the quote; the text and its page link are on the lines below.
    let text = "# Paper\n\n![[images/image-2-x4-y6.png]]\n> [!quote]|#5fb236\n> input signal r ([p.2](zotero://open-pdf/library/items/WU?page=2))\n> **Memo:** length of the signal\n> [!quote]|#ffd400\n> Let L be the frame size ([p.3](zotero://open-pdf/library/items/WU?page=3))\n";
    let doc = parse(text, "x", &ParseOptions::default());
    let read: Vec<(Option<&str>, Option<&str>)> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.color_hex.as_deref())).collect();
    assert_eq!(
        read,
        [
            (None, None),
            (Some("input signal r"), Some("#5fb236")),
            (Some("Let L be the frame size"), Some("#ffd400"))
        ]
    );
}

#[test]
fn a_text_of_several_lines_marked_only_on_its_first_goes_on_to_its_link() {
    // A template that prints `> {{annotatedText}}` or `- {{annotatedText}}` marks only the first
    // line of a highlight that spans lines; Markdown reads the next line on in the same quote or
    // item (lazy continuation), and so does the reader.
    let text = "# Paper\n\n> Tides rise twice a day,\nand fall more slowly than they rise. [(p. 3)](zotero://open-pdf/library/items/TD?page=3&annotation=AAAA1111)\n\n> One line only. [(p. 4)](zotero://open-pdf/library/items/TD?page=4&annotation=BBBB2222)\n\n- Sand moves with the storms,\nnot with the tides. [(p. 5)](zotero://open-pdf/library/items/TD?page=5&annotation=CCCC3333)\n- Mud stays. [(p. 6)](zotero://open-pdf/library/items/TD?page=6&annotation=DDDD4444)\n";
    let doc = parse(text, "x", &ParseOptions::default());
    let read: Vec<(Option<&str>, Option<&str>)> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.page.as_deref())).collect();
    assert_eq!(
        read,
        [
            (Some("Tides rise twice a day,\nand fall more slowly than they rise."), Some("3")),
            (Some("One line only."), Some("4")),
            (Some("Sand moves with the storms,\nnot with the tides."), Some("5")),
            (Some("Mud stays."), Some("6")),
        ]
    );
}

#[test]
fn a_coloured_sign_and_a_bold_colour_label_over_the_quote_are_the_templates() {
    // `<span style="background-color:…">✎</span> **Green Highlight** - [Page 4](…)` heads the
    // annotation: the sign and the label are decoration, the quote below is the text.
    let text = "# P\n\n<span style=\"background-color:Green;color:Black\">✎</span> **Green Highlight** - [Page 4](zotero://open-pdf/library/items/KK?page=4&annotation=AAAA1111)\n\n> Ferns spread by spores.\n\n**Note:** First paragraph.\n\nSecond paragraph.\n\n---\n\n<span style=\"background-color:Orange;color:Black\">⚑</span> **Orange Note** - [Page 7](zotero://open-pdf/library/items/KK?page=7&annotation=BBBB2222)\n\n**Note:** Check the herbarium.\n\n---\n";
    let doc = parse(text, "x", &ParseOptions::default());
    type Read<'a> = (AnnotationType, Option<&'a str>, Option<&'a str>, Option<&'a str>);
    let read: Vec<Read> = doc
        .annotations
        .iter()
        .map(|a| (a.kind, a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref()))
        .collect();
    assert_eq!(
        read,
        [
            (
                AnnotationType::Highlight,
                Some("Ferns spread by spores."),
                Some("First paragraph.\n\nSecond paragraph."),
                Some("#5fb236")
            ),
            (AnnotationType::Note, None, Some("Check the herbarium."), Some("#f19837")),
        ]
    );
}

#[test]
fn a_link_in_a_quote_of_its_own_ends_the_quotes_above_it() {
    // `> text`, `> comment`, `> [p. 3](…)`, each a quote of its own with blank lines between, some
    // under an empty callout: the link ends the quotes above it; an image above the words is an
    // image annotation, the words its comment.
    let link =
        |p: u32, key: &str| format!("[p. {p}](zotero://open-pdf/library/items/QQ?page={p}&annotation={key})");
    let text = format!(
        "# P\n\n> [!quote]\n\n\n> Bees dance to point at food.\n\n\n>\n> the waggle run's angle\n\n>\n> {}\n\n\n> Drones do not forage.\n\n>\n> {}\n\n\n> [!example] Figure\n\n> ![[img/image-8-x98-y533.png]]\n\n>\n> hive map\n\n>\n> {}\n",
        link(3, "AAAA1111"),
        link(4, "BBBB2222"),
        link(8, "CCCC3333")
    );
    let doc = parse(&text, "x", &ParseOptions::default());
    type Read<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>, bool);
    let read: Vec<Read> = doc
        .annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.page.as_deref(), a.image_path.is_some()))
        .collect();
    assert_eq!(
        read,
        [
            (Some("Bees dance to point at food."), Some("the waggle run's angle"), Some("3"), false),
            (Some("Drones do not forage."), None, Some("4"), false),
            (None, Some("hive map"), Some("8"), true),
        ]
    );
}

#[test]
fn a_callout_holding_only_a_label_gives_its_colour_to_the_quote_below_it() {
    // `>[!quote|#hex]` and `>🟡 Highlight`, then blank lines, then the quote with the text and
    // its link: the label callout heads that quote. A `**Categories:**` field is the template's
    // place for tags, not the comment.
    let text = "# P\n\n>[!quote|#ff6666] \n>🔴 Important\n\n\n>\n> \n>Moss grows on the north side. [(p. 3)](zotero://open-pdf/library/items/MM?page=3&annotation=AAAA1111)\n>\n>**Categories:** _add your categories here_\n>**💬 Comment:** only in this forest\n\n>[!quote|#5fb236] \n>🟢 Reference\n\n\n>\n> \n>Lichens need clean air. [(p. 4)](zotero://open-pdf/library/items/MM?page=4&annotation=BBBB2222)\n>\n>**Categories:** _add your categories here_\n>**💬 Comment:** \n";
    let doc = parse(text, "x", &ParseOptions::default());
    let read = text_comment_colour_page(&doc);
    assert_eq!(
        read,
        [
            (Some("Moss grows on the north side."), Some("only in this forest"), Some("#ff6666"), Some("3")),
            (Some("Lichens need clean air."), None, Some("#5fb236"), Some("4")),
        ]
    );
}

#[test]
fn quotes_under_a_page_heading_with_no_link_are_that_pages_annotations() {
    // `### Page 2` over callouts or quotes, no Zotero link anywhere: each quote is an annotation
    // on that page; `> *…*` under the text is the comment; `- **Color**: #hex (Name)` and
    // `- **Date**: …` are the annotation's fields.
    let text = "# P\n\n### Page 2\n%% begin page_2 %%\n%% end page_2 %%\n\n> [!highlight]\n> Owls hunt at dusk.\n> *not all of them*\n\n### Page 5\n\n> Barn owls hear mice under snow.\n**Comment**: a famous figure\n\n- **Color**: #5fb236 (Green)\n- **Date**: 2024-11-05 11:02 pm\n\n---\n\n> Their feathers are silent.\n\n- **Color**: #ff6666 (Red)\n- **Date**: 2024-11-05 11:03 pm\n";
    let doc = parse(text, "x", &ParseOptions::default());
    let read = text_comment_colour_page(&doc);
    assert_eq!(
        read,
        [
            (Some("Owls hunt at dusk."), Some("not all of them"), None, Some("2")),
            (Some("Barn owls hear mice under snow."), Some("a famous figure"), Some("#5fb236"), Some("5")),
            (Some("Their feathers are silent."), None, Some("#ff6666"), Some("5")),
        ]
    );
}

#[test]
fn an_en_dash_line_under_the_text_is_its_comment() {
    let text = "# P\n\n> Rivers carve canyons slowly. (p. 3)\n> – over millions of years\n> Deltas grow at the mouth. (p. 4)\n";
    let doc = parse(text, "x", &ParseOptions::default());
    let read: Vec<(Option<&str>, Option<&str>)> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        read,
        [
            (Some("Rivers carve canyons slowly."), Some("over millions of years")),
            (Some("Deltas grow at the mouth."), None)
        ]
    );
}

/// Each annotation's text, comment, colour and page, in the note's order.
type Fields<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>, Option<&'a str>);

fn text_comment_colour_page(doc: &AnnotationDoc) -> Vec<Fields<'_>> {
    doc.annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref(), a.page.as_deref()))
        .collect()
}
