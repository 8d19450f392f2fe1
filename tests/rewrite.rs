//! Link rewriting for a moved or renamed file: the links to it across the vault, and the moved
//! note's own links.

use proptest::prelude::*;
use scholia::note::rewrite::{Rewrite, rebase_links, rewrite_links};
use scholia::note::{LinkResolver, LinkStyle, Note};

/// The vault's resolvers before and after `old` moves to `new`.
fn vaults(paths: &[&str], old: &str, new: &str) -> (LinkResolver, LinkResolver) {
    let before = LinkResolver::new(paths.iter().copied());
    let after = LinkResolver::new(paths.iter().map(|&p| if p == old { new } else { p }));
    (before, after)
}

/// `text` (the note at `from`) after `old` moved to `new` in the vault of `paths`.
fn moved(paths: &[&str], from: &str, (old, new): (&str, &str), style: LinkStyle, text: &str) -> Rewrite {
    let (before, after) = vaults(paths, old, new);
    rewrite_links(text, from, old, new, &before, &after, style)
}

/// Like [`moved`] in the default (shortest) style, the text only.
fn shortest(paths: &[&str], from: &str, old_new: (&str, &str), text: &str) -> String {
    moved(paths, from, old_new, LinkStyle::Shortest, text).text
}

const VAULT: &[&str] = &["Old.md", "Notes/Index.md", "Other.md", "img/x.png", "My Old.md", "Über.md"];

#[test]
fn wikilinks_keep_their_heading_block_and_alias() {
    let text = "See [[Old|the old one]], [[Old#Methods]], [[Old#^abc123|quote]] and [[ Old ]].\n\
                Also [[old.md]], [[Old.md#Intro]] and [[Other]].\n";
    let done = moved(VAULT, "Notes/Index.md", ("Old.md", "Papers/New Name.md"), LinkStyle::Shortest, text);
    assert_eq!(
        done.text,
        "See [[New Name|the old one]], [[New Name#Methods]], [[New Name#^abc123|quote]] and [[ New Name ]].\n\
         Also [[New Name.md]], [[New Name.md#Intro]] and [[Other]].\n"
    );
    assert_eq!(done.changes.len(), 6);
    assert_eq!((done.changes[5].line, done.changes[5].before.as_str()), (2, "[[Old.md#Intro]]"));
}

#[test]
fn embeds_keep_their_size() {
    let text = "![[x.png|300]] ![[x.png]] ![[img/x.png|100x200]] ![pic](img/x.png) [[x.png#page=2]]\n";
    assert_eq!(
        shortest(VAULT, "Notes/Index.md", ("img/x.png", "media/y.png"), text),
        "![[y.png|300]] ![[y.png]] ![[y.png|100x200]] ![pic](y.png) [[y.png#page=2]]\n"
    );
}

#[test]
fn markdown_links_keep_their_encoding() {
    let text =
        "[a](My%20Old.md#Sec) [b](<My Old.md>) [c](My%20Old) [d](My Old.md \"title\") [e](./My%20Old.md)\n";
    assert_eq!(
        shortest(VAULT, "Notes/Index.md", ("My Old.md", "Papers/My New (2024).md"), text),
        "[a](My%20New%20(2024).md#Sec) [b](<My New (2024).md>) [c](My%20New%20(2024)) \
         [d](My New (2024).md \"title\") [e](My%20New%20(2024).md)\n"
    );
}

#[test]
fn markdown_links_encode_non_ascii_as_they_did() {
    let text = "[u](%C3%9Cber.md) [v](Über.md) [w](<Über.md>)\n";
    assert_eq!(
        shortest(VAULT, "Other.md", ("Über.md", "Ärger 100%.md"), text),
        "[u](%C3%84rger%20100%25.md) [v](Ärger%20100%25.md) [w](<Ärger 100%25.md>)\n"
    );
}

#[test]
fn the_link_style_decides_the_new_text() {
    let paths = &["A/Old.md", "D/x.md", "B/C/other.md"];
    let text = "[[Old|o]] and [m](../A/Old.md)\n";
    let write = |style| moved(paths, "D/x.md", ("A/Old.md", "B/C/New.md"), style, text).text;
    assert_eq!(write(LinkStyle::Shortest), "[[New|o]] and [m](New.md)\n");
    assert_eq!(write(LinkStyle::Relative), "[[../B/C/New|o]] and [m](../B/C/New.md)\n");
    assert_eq!(write(LinkStyle::Absolute), "[[B/C/New|o]] and [m](B/C/New.md)\n");
}

#[test]
fn a_rename_into_a_taken_name_writes_a_path() {
    let paths = &["A/Foo.md", "B/Bar.md", "x.md"];
    let text = "[[Foo]] [[Foo#H|h]] [[B/Bar]]\n";
    assert_eq!(
        shortest(paths, "x.md", ("A/Foo.md", "A/Bar.md"), text),
        "[[A/Bar]] [[A/Bar#H|h]] [[B/Bar]]\n"
    );
}

#[test]
fn an_ambiguous_name_is_the_file_obsidian_opens() {
    let paths = &["A/Notes.md", "B/Notes.md", "A/x.md", "B/y.md"];
    // From A/, `[[Notes]]` opens A/Notes.md; from B/, B/Notes.md.
    let old_new = ("A/Notes.md", "A/Renamed.md");
    assert_eq!(shortest(paths, "A/x.md", old_new, "[[Notes]]\n"), "[[Renamed]]\n");
    assert_eq!(shortest(paths, "B/y.md", old_new, "[[Notes]]\n"), "[[Notes]]\n");
}

#[test]
fn links_that_still_reach_the_file_are_untouched() {
    let paths = &["Notes/Paper.md", "x.md"];
    let text = "[[Paper]] [[paper#H|a]] [p](Paper.md) ![[Paper#^b]] [[Notes/Paper]]\n";
    let done = moved(paths, "x.md", ("Notes/Paper.md", "Archive/Paper.md"), LinkStyle::Absolute, text);
    assert_eq!(done.text, "[[Paper]] [[paper#H|a]] [p](Paper.md) ![[Paper#^b]] [[Archive/Paper]]\n");
    assert_eq!(done.changes.len(), 1);
}

#[test]
fn code_comments_external_links_and_other_files_are_untouched() {
    let text = "```\n[[Old]]\n```\n`[[Old]]` %%[[Old]]%% [Old](https://example.com/Old.md) [[Other]] [[Missing]]\n\
                ~~~md\n[o](Old.md)\n~~~\n[[Old]]\n";
    let done = moved(VAULT, "Notes/Index.md", ("Old.md", "New.md"), LinkStyle::Shortest, text);
    assert_eq!(done.text, format!("{}[[New]]\n", text.strip_suffix("[[Old]]\n").unwrap()));
    assert_eq!(done.changes.len(), 1);
    assert_eq!(done.changes[0].line, 8);
}

#[test]
fn links_in_headings_quotes_and_tasks_are_rewritten() {
    let text = "## From [[Old#Sec|old]]\n> [!note] [[Old]]\n> see [o](Old.md)\n- [ ] read [[Old]]\n";
    assert_eq!(shortest(VAULT, "Other.md", ("Old.md", "New.md"), text), text.replace("Old", "New"));
}

#[test]
fn escaped_bars_in_tables_stay_escaped() {
    let text = "| a | b |\n| - | - |\n| [[Old\\|alias]] | [[Old#H\\|h]] |\n";
    assert_eq!(
        shortest(VAULT, "Other.md", ("Old.md", "New.md"), text),
        "| a | b |\n| - | - |\n| [[New\\|alias]] | [[New#H\\|h]] |\n"
    );
}

#[test]
fn frontmatter_wikilinks_are_rewritten_inside_their_quotes() {
    let text =
        "---\nup: '[[Old]]'\nrelated: [\"[[Old|O]]\", \"[[Other]]\"]\nplain: see [[Old]]\n---\n[[Old]]\n";
    assert_eq!(
        shortest(VAULT, "Other.md", ("Old.md", "Smith's \"notes\".md"), text),
        "---\nup: '[[Smith''s \"notes\"]]'\nrelated: [\"[[Smith's \\\"notes\\\"|O]]\", \"[[Other]]\"]\n\
         plain: see [[Smith's \"notes\"]]\n---\n[[Smith's \"notes\"]]\n"
    );
    let quoted = "---\nup: '[[Smith''s notes]]'\n---\n";
    let paths = &["Smith's notes.md", "x.md"];
    assert_eq!(
        shortest(paths, "x.md", ("Smith's notes.md", "Jones.md"), quoted),
        "---\nup: '[[Jones]]'\n---\n"
    );
}

#[test]
fn crlf_and_bom_are_kept() {
    let text = "\u{feff}---\r\nup: \"[[Old]]\"\r\n---\r\n# Title\r\n\r\n[[Old|x]] and [o](Old.md)\r\n";
    let done = moved(VAULT, "Other.md", ("Old.md", "Sub/New.md"), LinkStyle::Shortest, text);
    assert_eq!(done.text, text.replace("Old", "New"));
    assert_eq!(done.changes.iter().map(|c| c.line).collect::<Vec<_>>(), [2, 6, 6]);
}

#[test]
fn changes_serialize_as_plain_objects() {
    let done = moved(VAULT, "Other.md", ("Old.md", "New.md"), LinkStyle::Shortest, "x\n![[Old#^b|300]]\n");
    assert_eq!(
        serde_json::to_value(&done.changes).unwrap(),
        serde_json::json!([{"line": 2, "before": "![[Old#^b|300]]", "after": "![[New#^b|300]]"}])
    );
}

const MOVED: &str = "# Note\n\
    See [[Note#Intro|self]], [[#Local]], [up](../Top.md), [[../Top]], [[Top]], [[Sibling]], [[Index]],\n\
    ![p](sub/pic.png), [web](https://example.com/a.md) and [[Gone]].\n";

const REBASE_VAULT: &[&str] =
    &["A/Note.md", "A/Sibling.md", "A/sub/pic.png", "A/Index.md", "B/C/Index.md", "Top.md"];

#[test]
fn the_moved_note_links_to_the_same_files_from_its_new_folder() {
    let (before, after) = vaults(REBASE_VAULT, "A/Note.md", "B/C/Moved.md");
    let rebase = |style| rebase_links(MOVED, "A/Note.md", "B/C/Moved.md", &before, &after, style);
    let done = rebase(LinkStyle::Shortest);
    assert_eq!(
        done.text,
        "# Note\n\
         See [[Moved#Intro|self]], [[#Local]], [up](Top.md), [[Top]], [[Top]], [[Sibling]], [[A/Index]],\n\
         ![p](sub/pic.png), [web](https://example.com/a.md) and [[Gone]].\n"
    );
    assert_eq!(
        rebase(LinkStyle::Relative).text,
        "# Note\n\
         See [[Moved#Intro|self]], [[#Local]], [up](../../Top.md), [[../../Top]], [[Top]], [[Sibling]], \
         [[../../A/Index]],\n![p](sub/pic.png), [web](https://example.com/a.md) and [[Gone]].\n"
    );
}

#[test]
fn a_moved_note_without_relative_links_is_unchanged() {
    let (before, after) = vaults(REBASE_VAULT, "A/Note.md", "B/Note.md");
    let text = "[[Top]] [[Sibling#H]] [[Note#^b]] [[#Local]]\r\n";
    let done = rebase_links(text, "A/Note.md", "B/Note.md", &before, &after, LinkStyle::Shortest);
    assert_eq!((done.text.as_str(), done.changes.len()), (text, 0));
}

const PROP_VAULT: &[&str] = &["Old.md", "Deep/Old.md", "Notes/Index.md", "Other.md", "img/x.png"];

fn prop_move(text: &str, style: usize) -> (Rewrite, LinkResolver, LinkResolver) {
    let style = [LinkStyle::Shortest, LinkStyle::Relative, LinkStyle::Absolute][style];
    let (before, after) = vaults(PROP_VAULT, "Old.md", "Papers/New Name.md");
    let done = rewrite_links(text, "Notes/Index.md", "Old.md", "Papers/New Name.md", &before, &after, style);
    (done, before, after)
}

/// A wikilink or Markdown link to `Old.md` or another file (some written strangely), or text
/// that can change how the links around it read (code, comments, frontmatter, line ends).
fn link_or_noise() -> impl Strategy<Value = String> {
    let select = |items: &[&'static str]| proptest::sample::select(items.to_vec());
    let target =
        select(&["Old", "old.md", "Old.md", " Old ", "../Old", "Deep/Old", "Other", "x.png", "Gone"]);
    let sub = select(&["", "", "#Sec", "#^b1", "#A#B"]);
    let wiki = (select(&["[[", "![["]), target.clone(), sub.clone(), select(&["", "|alias", "|300", "\\|a"]))
        .prop_map(|(open, t, s, a)| format!("{open}{t}{s}{a}]]"));
    let markdown = (select(&["[t](", "![t](", "[a [b]](", "[t](<"]), target, sub).prop_map(|(open, t, s)| {
        let t = t.trim().replace(' ', "%20");
        if open.ends_with('<') { format!("{open}{t}{s}>)") } else { format!("{open}{t}{s})") }
    });
    let noise = select(&[
        " ", " ", "\n", "\r\n", "`", "```\n", "%%", "---\n", "up: \"", "'", "## ", "> ", "| ", "x", "[",
        "]]", ")",
    ])
    .prop_map(str::to_string);
    prop_oneof![wiki, markdown, noise]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rewriting_never_panics(text in "\\PC{0,300}", style in 0usize..3) {
        let (done, ..) = prop_move(&text, style);
        if done.changes.is_empty() {
            prop_assert_eq!(&done.text, &text);
        }
        let (before, after) = vaults(PROP_VAULT, "Old.md", "Papers/New Name.md");
        let rebased = rebase_links(&text, "Old.md", "Papers/New Name.md", &before, &after, LinkStyle::Relative);
        if rebased.changes.is_empty() {
            prop_assert_eq!(rebased.text, text);
        }
    }

    /// Without an `o`, nothing can name `Old.md`: the text comes back byte-identical.
    #[test]
    fn a_text_without_links_to_the_file_is_identical(
        text in "([\\[\\]()!|#^<>%`'\" \n\r:-]|[a-nA-N]|[p-zP-Z]|é){0,300}",
        style in 0usize..3,
    ) {
        let (done, ..) = prop_move(&text, style);
        prop_assert!(done.changes.is_empty());
        prop_assert_eq!(done.text, text);
    }

    /// Every link that reached the file reaches it at its new path; the others keep their target.
    #[test]
    fn links_to_the_file_follow_it(parts in proptest::collection::vec(link_or_noise(), 0..24),
        style in 0usize..3,
    ) {
        let text = parts.concat();
        let (done, before, after) = prop_move(&text, style);
        let (old_links, new_links) = (Note::parse(&text).links, Note::parse(&done.text).links);
        prop_assert_eq!(old_links.len(), new_links.len());
        let from = Some("Notes/Index.md");
        for (was, now) in old_links.iter().zip(&new_links) {
            if was.external {
                prop_assert_eq!(&was.target, &now.target);
            } else if before.first(&was.target, from).as_deref() == Some("Old.md") {
                prop_assert_eq!(after.first(&now.target, from), Some("Papers/New Name.md".to_string()));
            } else if !was.target.ends_with('\\') {
                prop_assert_eq!(before.first(&was.target, from), after.first(&now.target, from));
            }
        }
    }
}
