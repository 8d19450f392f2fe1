use super::*;
use crate::annotations::AnnotationType;
use crate::annotations::{ParseOptions, parse};

fn no_includes(_: &str) -> Option<String> {
    None
}

fn read(template: &str, note: &str) -> crate::annotations::AnnotationDoc {
    let t = Template::compile("t.md", template, &no_includes).unwrap_or_else(|e| panic!("{e}"));
    let options = ParseOptions { templates: vec![std::sync::Arc::new(t)], ..ParseOptions::default() };
    parse(note, "/v/n.md", &options)
}

/// An annotation's text, comment, colour and page.
type Fields<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>, Option<&'a str>);

/// Each annotation's text, comment, colour and page.
fn text_comment_colour_page(doc: &crate::annotations::AnnotationDoc) -> Vec<Fields<'_>> {
    doc.annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref(), a.page.as_deref()))
        .collect()
}

#[test]
fn a_callout_template_reads_its_own_output() {
    let template = "# {{title}}\n{% for annotation in annotations -%}\n> [!quote|{{annotation.color}}] {{annotation.type | capitalize}}\n> {{annotation.annotatedText}}\n> [page {{annotation.page}}]({{annotation.desktopURI}})\n{% if annotation.comment %}\n**Memo:** {{annotation.comment}}\n{% endif %}\n\n{% endfor %}";
    let note = "# Paper\n> [!quote|#ff6666] Highlight\n> First passage\n> over two lines\n> [page 3](zotero://open-pdf/library/items/AB?page=3&annotation=X1)\n\n**Memo:** a thought\n\nits second paragraph\n\n> [!quote|#5fb236] Underline\n> Second passage\n> [page 1](zotero://open-pdf/library/items/AB?page=2932&annotation=X2)\n\n";
    let doc = read(template, note);
    assert_eq!(doc.annotations.len(), 2, "{:#?}", doc.annotations);
    let a = &doc.annotations[0];
    assert_eq!(a.text.as_deref(), Some("First passage\nover two lines"));
    assert_eq!(a.comment.as_deref(), Some("a thought\n\nits second paragraph"));
    assert_eq!(a.color_hex.as_deref(), Some("#ff6666"));
    assert_eq!(a.page.as_deref(), Some("3"));
    assert_eq!(a.page_label, None);
    assert_eq!(a.zotero_link.as_deref(), Some("zotero://open-pdf/library/items/AB?page=3&annotation=X1"));
    let b = &doc.annotations[1];
    assert_eq!(b.kind, crate::annotations::AnnotationType::Underline);
    assert_eq!((b.page.as_deref(), b.page_label.as_deref()), (Some("1"), Some("2932")));
    assert_eq!(b.comment, None);
    assert_eq!(doc.template, crate::annotations::TemplateStyle::UserTemplate);
}

#[test]
fn macros_and_colour_conditions_give_the_colour() {
    let template = "{% macro mark(color) -%}{%- if color == \"#5fb236\" -%}${%- elif color == \"#ff6666\" -%}!{%- endif -%}{%- endmacro %}{% for a in annotations %}\n- {{mark(a.color)}} {{a.annotatedText | nl2br}} [(p. {{a.pageLabel}})](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.pageLabel}}&annotation={{a.id}})\n{% endfor %}";
    let note = "\n- $ green text<br />\nnext line [(p. 4)](zotero://open-pdf/library/items/K?page=4&annotation=A)\n- ! red text [(p. 5)](zotero://open-pdf/library/items/K?page=5&annotation=B)\n";
    let doc = read(template, note);
    assert_eq!(doc.annotations.len(), 2);
    assert_eq!(doc.annotations[0].text.as_deref(), Some("green text\nnext line"));
    assert_eq!(doc.annotations[0].color_hex.as_deref(), Some("#5fb236"));
    assert_eq!(doc.annotations[1].color_hex.as_deref(), Some("#ff6666"));
    assert_eq!(doc.annotations[1].page.as_deref(), Some("5"));
}

#[test]
fn colour_groups_unrolled_from_a_dictionary_give_each_its_colour() {
    let template = "{% set groups = {\"#ffd400\": \"Main ideas\", \"#ff6666\": \"Critique\"} %}{% for hex, name in groups %}\n## {{name}}\n{% for a in annotations | filterby(\"color\", \"startswith\", hex) %}\n- {{a.annotatedText}}\n{% endfor %}{% endfor %}";
    let note = "\n## Main ideas\n\n- one\n- two\n\n## Critique\n\n- three\n";
    let doc = read(template, note);
    let colours: Vec<_> = doc.annotations.iter().map(|a| a.color_hex.as_deref()).collect();
    assert_eq!(colours, [Some("#ffd400"), Some("#ffd400"), Some("#ff6666")]);
}

#[test]
fn a_value_set_per_colour_in_an_if_chain_is_any_of_them() {
    // No `else`: the callout keeps the last iteration's value when no branch is taken.
    let template = "{% for a in annotations -%}\n{%- if a.color == \"#5fb236\" -%}{%- set c = \"[!quote|#5fb236]+ key\" -%}{%- elif a.color == \"#f19837\" -%}{%- set c = \"[!quote|#f19837]+ term\" -%}{%- elif a.color == \"#ffd400\" -%}{%- set c = \"[!quote|#ffd400]+ check\" -%}{%- endif %}\n> {{c}}\n> «{{a.annotatedText}}» ([Page {{a.page}}](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.page}}&annotation={{a.id}}))\n{% endfor -%}";
    let note = "\n> [!quote|#5fb236]+ key\n> «one» ([Page 1](zotero://open-pdf/library/items/K?page=1&annotation=A))\n\n> [!quote|#ffd400]+ check\n> «two» ([Page 2](zotero://open-pdf/library/items/K?page=2&annotation=B))\n\n> [!quote|#f19837]+ term\n> «three» ([Page 3](zotero://open-pdf/library/items/K?page=3&annotation=C))\n";
    let doc = read(template, note);
    assert_eq!(doc.template, crate::annotations::TemplateStyle::UserTemplate);
    let read: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.color_hex.as_deref())).collect();
    assert_eq!(
        read,
        [(Some("one"), Some("#5fb236")), (Some("two"), Some("#ffd400")), (Some("three"), Some("#f19837"))]
    );
}

#[test]
fn images_printed_one_after_another_on_a_line_are_one_annotation_each() {
    let template = "{% for a in annotations -%}{%- if a.annotatedText -%}\n<mark>{{a.annotatedText}}</mark> ([{{a.page}}](zotero://open-pdf/library/items/K?page={{a.page}}&annotation={{a.id}}))\n\n{%- endif %} {% if a.imageRelativePath %} ![[{{a.imageRelativePath}}]]{% endif %}{% endfor -%}";
    let note = "\n<mark>first</mark> ([2](zotero://open-pdf/library/items/K?page=2&annotation=A))\n   ![[figure one.png]]  ![[algo.png]]\n<mark>second</mark> ([3](zotero://open-pdf/library/items/K?page=3&annotation=B))\n";
    let doc = read(template, note);
    let read: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.image_path.as_deref())).collect();
    assert_eq!(
        read,
        [
            (Some("first"), None),
            (None, Some("figure one.png")),
            (None, Some("algo.png")),
            (Some("second"), None)
        ]
    );
}

#[test]
fn the_templates_own_lines_give_the_title() {
    let template = "## {{title}}\nAuthor: {{authors}}\n\n### Notes\n{% for a in annotations %}\n- {{a.annotatedText}} ([{{a.page}}](zotero://open-pdf/library/items/K?page={{a.page}}&annotation={{a.id}}))\n{% endfor %}";
    let note = "## Tide Mills of the North Sea\nAuthor: Kari Haugen\n\n### Notes\n\n- one ([2](zotero://open-pdf/library/items/K?page=2&annotation=A))\n";
    let doc = read(template, note);
    assert_eq!(doc.title, "Tide Mills of the North Sea");
    assert_eq!(doc.authors.as_deref(), Some("Kari Haugen"));
}

#[test]
fn templates_that_cannot_be_read_say_why() {
    let e = Template::compile("t.md", "{% for a in annotations %}x", &no_includes).unwrap_err();
    assert!(e.message.contains("endfor"), "{e}");
    let e = Template::compile("t.md", "# {{title}}\n", &no_includes).unwrap_err();
    assert!(e.message.contains("no loop over the annotations"), "{e}");
}

#[test]
fn dictionaries_looked_up_by_the_colour_give_the_colour_of_what_they_print() {
    // A symbol from a dict keyed by the colour, and an icon from a dict keyed by the colour's name.
    let template = "{% set kinds = {\"#ffd400\": {\"symbol\": \"- & \"}, \"#ff6666\": {\"symbol\": \"- £ \"}} %}{% set names = {\"#ffd400\": \"yellow\", \"#ff6666\": \"red\"} %}{% set icons = {\"yellow\": \"📚\", \"red\": \"⛔\"} %}{% for a in annotations %}\n{{kinds[a.color].symbol}}{{icons[names[a.color]]}} {{a.annotatedText}} [(p. {{a.pageLabel}})](zotero://open-pdf/library/items/K?page={{a.pageLabel}}&annotation={{a.id}})\n{% endfor %}";
    let note = "\n- & 📚 a plain point [(p. 4)](zotero://open-pdf/library/items/K?page=4&annotation=A)\n- £ ⛔ a point I doubt [(p. 5)](zotero://open-pdf/library/items/K?page=5&annotation=B)\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.color_hex.as_deref())).collect();
    assert_eq!(got, [(Some("a plain point"), Some("#ffd400")), (Some("a point I doubt"), Some("#ff6666"))]);
}

#[test]
fn the_branch_with_more_constant_text_is_tried_first() {
    // `- {{text}}` (a heading highlight) and `- {{text}} [(p. N)](…)`: the link is not text.
    let template = "{% for a in annotations %}\n{% if a.color == \"#2ea8e5\" %}- {{a.annotatedText | lower}}{% else %}- {{a.annotatedText}} [(p. {{a.pageLabel}})](zotero://open-pdf/library/items/K?page={{a.pageLabel}}&annotation={{a.id}}){% endif %}\n{% endfor %}";
    let note = "\n- a point [(p. 4)](zotero://open-pdf/library/items/K?page=4&annotation=A)\n- a heading\n";
    let doc = read(template, note);
    let texts: Vec<_> = doc.annotations.iter().map(|a| a.text.as_deref()).collect();
    assert_eq!(texts, [Some("a point"), Some("a heading")]);
    assert_eq!(doc.annotations[0].page.as_deref(), Some("4"));
}

#[test]
fn a_colour_group_heading_names_its_colour_in_the_legend() {
    let group = |hex: &str| {
        format!(
            "{{% for a in annotations | filterby(\"color\", \"startswith\", \"{hex}\") %}}\n- {{{{a.annotatedText}}}}\n{{% endfor %}}"
        )
    };
    let template = format!(
        "# {{{{title}}}}\n## 🔹 Key Terms\n{}\n## Everything else\n{}\n{}",
        group("#2ea8e5"),
        group("#ff6666"),
        group("#5fb236")
    );
    let t = Template::compile("t.md", &template, &no_includes).unwrap_or_else(|e| panic!("{e}"));
    let legend: Vec<(String, String)> = t.legend().into_iter().map(|e| (e.hex, e.name)).collect();
    // "## Everything else" heads the red and the green loop: it names neither colour.
    assert_eq!(legend, [("#2ea8e5".to_string(), "Key Terms".to_string())]);
}

#[test]
fn a_label_chosen_by_colour_in_the_loop_names_that_colour() {
    // Set in the branches and printed later; the callout type beside it is not the label.
    let template = "{% for a in annotations %}{% set box = \"quote\" %}{% set label = \"Passage\" %}\
        {% if a.colorCategory == \"Yellow\" %}{% set box = \"tip\" %}{% set label = \"Main claim\" %}\
        {% elif a.colorCategory == \"Red\" %}{% set box = \"bug\" %}{% set label = \"Weak spot\" %}{% endif %}\n\
        > [!{{box}}] {{label}}\n> {{a.annotatedText}}\n{% endfor %}";
    let t = Template::compile("t.md", template, &no_includes).unwrap_or_else(|e| panic!("{e}"));
    let legend: Vec<(String, String)> = t.legend().into_iter().map(|e| (e.hex, e.name)).collect();
    assert_eq!(
        legend,
        [("#ffd400".to_string(), "Main claim".to_string()), ("#ff6666".to_string(), "Weak spot".to_string())]
    );
    // Printed in place.
    let template = "{% for a in annotations %}- {% if a.color == \"#ff6666\" %}Critique{% elif a.color == \"#5fb236\" %}Support{% endif %}: {{a.annotatedText}}\n{% endfor %}";
    let t = Template::compile("t.md", template, &no_includes).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = t.legend().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["Critique", "Support"]);
}

#[test]
fn a_list_of_annotations_chosen_in_an_if_keeps_what_its_filter_says() {
    let template = "{% if title %}{% set reds = annotations | filterby(\"colorCategory\", \"startswith\", \"Red\") %}\
        {% else %}{% set reds = annotations | filterby(\"color\", \"startswith\", \"#ff6666\") %}{% endif %}\
        ## Critique\n{% for a in reds %}- {{a.annotatedText}}\n{% endfor %}";
    let t = Template::compile("t.md", template, &no_includes).unwrap_or_else(|e| panic!("{e}"));
    let legend: Vec<(String, String)> = t.legend().into_iter().map(|e| (e.hex, e.name)).collect();
    assert_eq!(legend, [("#ff6666".to_string(), "Critique".to_string())]);
}

#[test]
fn an_arrow_in_a_comment_does_not_start_the_next_iteration() {
    // Each iteration starts on a line of its own (`> ` after a line break): a `>` inside a
    // comment (`2001 -> 10k`) is the comment's, never a quote glued to it.
    let template = "{% for a in annotations -%}\n{%- if a.annotatedText %}\n> {{a.annotatedText}} [p. {{a.pageLabel}}](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.pageLabel}})\n{%- endif %}\n{%- if a.comment %}\n**Note:** {{a.comment}}\n{%- endif %}\n\n{% endfor %}";
    let note = "\n> First passage [p. 3](zotero://open-pdf/library/items/K?page=3)\n**Note:** in 2001 -> 10k were known\n\n> Second passage [p. 4](zotero://open-pdf/library/items/K?page=4)\n**Note:** plain\n\n";
    let doc = read(template, note);
    let read: Vec<(Option<&str>, Option<&str>)> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        read,
        [(Some("First passage"), Some("in 2001 -> 10k were known")), (Some("Second passage"), Some("plain"))]
    );
}

#[test]
fn a_label_the_template_prints_over_each_annotation_is_not_one() {
    // `<mark …>Passage</mark>` over each highlight reads, to the built-in rules, as a highlight of
    // its own; the template's reading (no links, no pages, found after its persist marker) wins
    // all the same, and a comment's rich-text tags are left out.
    let template = "# {{title}}\n\n## Highlights\n{%- macro head(kind, colour) -%}\n{%- if kind == \"highlight\" -%}\n<mark style=\"background-color: {{colour}}\">Passage</mark>\n{%- endif -%}\n{%- endmacro -%}\n\n{% persist \"annotations\" %}\n{% for a in annotations %}\n{{head(a.type, a.color)}}\n{% if a.annotatedText %}\n> <mark style=\"background-color: {{a.color}}\">{{a.annotatedText}}</mark>\n> {% if a.comment %}\n>> <mark style=\"background-color: {{a.color}}\">Remark</mark>\n>> {{a.comment}}\n{% endif %}\n{% endif %}\n{% endfor %}\n{% endpersist %}";
    let note = "# Tidal mills\n\n## Highlights%% begin annotations %%\n\n<mark style=\"background-color: #2ea8e5\">Passage</mark>\n\n> <mark style=\"background-color: #2ea8e5\">Tides set the schedule.</mark>\n> \n\n<mark style=\"background-color: #ff6666\">Passage</mark>\n\n> <mark style=\"background-color: #ff6666\">Nobody measured the silt.</mark>\n> \n>> <mark style=\"background-color: #ff6666\">Remark</mark>\n>> <b>Key gap</b> in the method.\n\n%% end annotations %%\n";
    let doc = read(template, note);
    let read: Vec<(Option<&str>, Option<&str>, Option<&str>)> = doc
        .annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref()))
        .collect();
    assert_eq!(
        read,
        [
            (Some("Tides set the schedule."), None, Some("#2ea8e5")),
            (Some("Nobody measured the silt."), Some("Key gap in the method."), Some("#ff6666"))
        ]
    );
    assert_eq!(doc.template, crate::annotations::TemplateStyle::UserTemplate);
}

#[test]
fn loops_in_persist_blocks_are_the_exports_and_the_users_own_items_there_are_not() {
    // Each colour's loop in a persist block of its own, the page printed only when there is one;
    // the user writes in the same blocks (items without a page) and fills in the template's
    // `- [[]]` placeholder, which then no longer marks where the loop starts.
    let template = "## Aims\n{% persist \"aims\" %}\n{% for a in annotations -%}\n{%- if a.colorCategory == \"Blue\" and a.annotatedText %}\n- {% if a.page %}(p. {{a.page}}) {% endif %}{{a.annotatedText}}\n{%- if a.comment %}\n  - Note: {{a.comment}}\n{%- endif %}\n{%- endif -%}\n{%- endfor %}\n{% endpersist %}\n\n---\n\n## Findings\n{% persist \"findings\" %}\n- [[]]\n{% for a in annotations -%}\n{%- if a.colorCategory == \"Yellow\" and a.annotatedText %}\n- {% if a.page %}(p. {{a.page}}) {% endif %}{{a.annotatedText}}\n{%- if a.comment %}\n  - Note: {{a.comment}}\n{%- endif %}\n{%- endif -%}\n{%- endfor %}\n{% endpersist %}\n";
    let note = "## Aims\n%% begin aims %%\n- SL = stride length, my abbreviation\n\n- (p. 2) measure how many strides are enough\n- (p. 2) compare corridors of two lengths\n  - Note: ten and twenty metres\n%% end aims %%\n\n---\n\n## Findings\n%% begin findings %%\n- [[Ten strides are enough for most groups]]\n\n- (p. 6) variability settles after ten strides\n- (p. 7) turns inflate the estimate\n%% end findings %%\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| {
            (a.text.as_deref().unwrap_or(""), a.comment.as_deref(), a.color_hex.as_deref(), a.page.as_deref())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("measure how many strides are enough", None, Some("#2ea8e5"), Some("2")),
            ("compare corridors of two lengths", Some("ten and twenty metres"), Some("#2ea8e5"), Some("2")),
            ("variability settles after ten strides", None, Some("#ffd400"), Some("6")),
            ("turns inflate the estimate", None, Some("#ffd400"), Some("7")),
        ]
    );
}

#[test]
fn a_group_heading_over_its_annotations_gives_them_its_page() {
    // `groupby("page")`: the page is printed once, in the heading over each page's annotations;
    // Zotero's `undefined` page (an annotation with none) ends the group above it.
    let template = "### Annotations\n{% set byPage = annotations | groupby('page') %}\n{% for page, annots in byPage %}\n#### Page {{page}}\n\n{% for a in annots %}\n> {{a.annotatedText}}\n\n- **Color**: {{a.color}}\n\n---\n{% endfor %}\n{% endfor %}\n";
    let note = "### Annotations\n\n#### Page 2\n\n> Tides rise twice a day.\n\n- **Color**: #ffd400\n\n---\n\n> The mill turns with them.\n\n- **Color**: #ff6666\n\n---\n\n#### Page 5\n\n> Spring tides are higher.\n\n- **Color**: #ffd400\n\n---\n\n#### Page undefined\n\n> A note on the cover.\n\n- **Color**: #ffd400\n\n---\n";
    let doc = read(template, note);
    let got: Vec<_> =
        doc.annotations.iter().map(|a| (a.text.as_deref().unwrap_or(""), a.page.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("Tides rise twice a day.", Some("2")),
            ("The mill turns with them.", Some("2")),
            ("Spring tides are higher.", Some("5")),
            ("A note on the cover.", None),
        ]
    );
}

#[test]
fn a_colour_printed_as_a_heading_level_is_known_to_the_general_rule() {
    let source = "{% for a in annotations %}{%- if a.colorCategory == \"Purple\" -%}\n###### {{a.annotatedText}}\n\
                  {%- elif \"Red\" in a.colorCategory %}\n# {{a.annotatedText}}\n\
                  {%- elif a.color == \"#5FB236\" %}\n## {{a.annotatedText}}\n\
                  {%- elif a.colorCategory == \"Blue\" %}\n## {{a.annotatedText}}\n\
                  {%- else -%}\n- {{a.annotatedText}}\n{%- endif %}\n{% endfor %}";
    let template = Template::compile("t.md", source, &no_includes).unwrap_or_else(|e| panic!("{e}"));
    // Level 2 is printed for green and for blue: it tells no colour.
    assert_eq!(template.heading_colours(), [(6, "#a28ae5".to_string()), (1, "#ff6666".to_string())]);
}

#[test]
fn a_comment_alone_is_a_sticky_note_only_beside_the_templates_own_annotations() {
    // The template prints a sticky note as `>comment`: in a note another template wrote, its
    // quoted lines are not sticky notes.
    let template = "{% for a in annotations -%}{%- if a.annotatedText -%}\n<mark class=\"customZot-{{a.colorCategory}}\">{{a.annotatedText}}</mark> ([{{a.page}}](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.page}}&annotation={{a.id}}))\n{% endif %}{% if a.comment %} \n>{{a.comment}}\n{% endif %}{% endfor -%}";
    let other = "> [!info]- Metadata\n> title:: Tide mills\n> year:: 2019\n\n> [!annotation-green] Relevant\n> mills ground grain (p. [8](zotero://open-pdf/library/items/K?page=8&annotation=A1))\n> [[2023-03-17#18:05]]\n> #zotero/#nosource\n\n> [!annotation-yellow] Relevant\n> tides turn wheels (p. [9](zotero://open-pdf/library/items/K?page=9&annotation=A2))\n> [[2023-03-17#18:05]]\n";
    let doc = read(template, other);
    assert!(doc.annotations.iter().all(|a| a.text.is_some()), "{:#?}", doc.annotations);
    assert_eq!(doc.annotations.len(), 2, "{:#?}", doc.annotations);
    // Its own output: a sticky note between highlights is kept.
    let own = "\n<mark class=\"customZot-Yellow\">mills ground grain</mark> ([8](zotero://open-pdf/library/items/K?page=8&annotation=A1))\n \n>a note of mine\n\n<mark class=\"customZot-Red\">tides turn wheels</mark> ([9](zotero://open-pdf/library/items/K?page=9&annotation=A2))\n";
    let doc = read(template, own);
    let comments: Vec<_> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        comments,
        [(Some("mills ground grain"), Some("a note of mine")), (Some("tides turn wheels"), None)],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_comment_of_several_lines_is_not_cut_where_a_free_text_branch_could_start() {
    // `{{allTags}}` alone would take any line whole, the comment's last line with its link too:
    // that is no iteration starting inside the comment.
    let template = "{% for a in annotations -%}\n  {%- if a.annotatedText -%}\n- {{a.annotatedText}} [Page {{a.pageLabel}}](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.pageLabel}}&annotation={{a.id}})\n  {%- endif %}\n  {%- if a.comment -%}\n    *{{a.comment}}* [Page {{a.pageLabel}}](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.pageLabel}}&annotation={{a.id}})\n  {%- endif %}\n  {%- if a.allTags -%}\n    {{a.allTags}}\n  {%- endif %}\n{% endfor -%}";
    let note = "\n- Tide mills [Page 2](zotero://open-pdf/library/items/K?page=2&annotation=A1)*first line of a comment\nits second line* [Page 2](zotero://open-pdf/library/items/K?page=2&annotation=A1)\n- Wheels turn [Page 3](zotero://open-pdf/library/items/K?page=3&annotation=A2)\n";
    let doc = read(template, note);
    let read: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        read,
        [(Some("Tide mills"), Some("first line of a comment\nits second line")), (Some("Wheels turn"), None)],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_branch_that_prints_the_text_alone_reads_each_paragraph_between_iterations() {
    // Green highlights print as plain paragraphs; the others as headings with a link line, or in
    // bold; a comment follows its highlight in a block of its own.
    let template = "### {{title}}\n\n### Notes\n{% for a in annotations -%}\n{%- if \"Yellow\" in a.colorCategory %}\n## {{a.annotatedText}}\n([{{a.page}}](zotero://open-pdf/library/items/{{a.attachment.itemKey}}?page={{a.page}}&annotation={{a.id}}))\n{%- elif \"Purple\" in a.colorCategory %}\n**{{a.annotatedText}}**\n{%- elif \"Green\" in a.colorCategory %}\n{{a.annotatedText}}\n{%- else %}\n{{a.annotatedText}}\n{%- endif %}\n{%- if a.comment %}\n<div class=\"c\">\n  <p>{{a.comment}}</p>\n</div>\n{%- endif %}\n\n{% endfor -%}";
    let note = "### Tides\n\n### Notes\n\nFirst plain passage\nover two lines\n\n## A heading passage\n([4](zotero://open-pdf/library/items/K?page=4&annotation=A))\n\nSecond plain passage\n<div class=\"c\">\n  <p>its comment</p>\n</div>\n\n**A bold passage**\n\nThird plain passage\n\n## My own section\n\nNot exported.\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (Some("First plain passage\nover two lines"), None, Some("#5fb236")),
            (Some("A heading passage"), None, Some("#ffd400")),
            (Some("Second plain passage"), Some("its comment"), Some("#5fb236")),
            (Some("A bold passage"), None, Some("#a28ae5")),
            (Some("Third plain passage"), None, Some("#5fb236")),
        ]
    );
}

#[test]
fn iterations_glued_one_after_another_are_each_read_and_labels_stay_out_of_fields() {
    // The template's whitespace control glues each iteration to the end of the one before.
    let template = "## Annotations\n{% for hl in annotations -%}\n**Page {{hl.pageLabel}}** — [Open annotation](zotero://open-pdf/library/items/{{hl.attachment.itemKey}}?page={{hl.pageLabel}}&annotation={{hl.id}})\n{%- if hl.annotatedText %}\n{{hl.annotatedText}}\n{%- endif %}\n{%- if hl.comment %}\n_Note:_ {{hl.comment}}\n{%- endif %}\n{%- if hl.allTags %}\n_Tags:_ {{hl.allTags}}\n{%- endif %}\n{%- endfor %}";
    let link = |p: u32, k: &str| {
        format!("[Open annotation](zotero://open-pdf/library/items/K?page={p}&annotation={k})")
    };
    let note = format!(
        "## Annotations\n**Page 1** — {}\nfirst passage\n_Tags:_ thesis**Page 2** — {}\nsecond passage**Page 3** — {}\nthird passage\n_Note:_ two lines\nof comment\n_Tags:_ a, b**Page 4** — {}\n_Note:_ a comment alone\n",
        link(1, "AAAAAAAA"),
        link(2, "BBBBBBBB"),
        link(3, "CCCCCCCC"),
        link(4, "DDDDDDDD")
    );
    let doc = read(template, &note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.page.as_deref(), a.text.as_deref(), a.comment.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (Some("1"), Some("first passage"), None),
            (Some("2"), Some("second passage"), None),
            (Some("3"), Some("third passage"), Some("two lines\nof comment")),
            (Some("4"), None, Some("a comment alone")),
        ]
    );
}

#[test]
fn a_sticky_note_after_an_annotation_without_comment_is_its_own() {
    // The comment's line prefix (`\t- `) and a comment alone at a line's start: the note's comment
    // stands further from the highlight before it than the template prints a comment.
    let listed = "{% for a in annotations -%}\n{%- if a.annotatedText -%}\n- ==\"{{a.annotatedText}}\"== [p. {{a.page}}](zotero://open-pdf/library/items/K?page={{a.page}}&annotation={{a.id}})\n{%- endif %}\n{% if a.comment %}\n\t- {{a.comment}}\n{% endif %}\n{% endfor -%}";
    let bare = "{% for a in annotations -%}\n{%- if a.annotatedText -%}\n\"=={{a.annotatedText}}==\" [p. {{a.page}}](zotero://open-pdf/library/items/K?page={{a.page}}&annotation={{a.id}})\n{%- endif %}\n\n{% if a.comment %}\n{{a.comment}}\n{% endif %}\n{% endfor -%}";
    let listed_note = "- ==\"First claim\"== [p. 2](zotero://open-pdf/library/items/K?page=2&annotation=A1)\n\n\t- my comment\n\n- ==\"Second claim\"== [p. 3](zotero://open-pdf/library/items/K?page=3&annotation=A2)\n\n\n\n\t- a sticky note\n\n- ==\"Third claim\"== [p. 4](zotero://open-pdf/library/items/K?page=4&annotation=A3)\n\n";
    let bare_note = "\"==First claim==\" [p. 2](zotero://open-pdf/library/items/K?page=2&annotation=A1)\n\n\nmy comment\n\n\"==Second claim==\" [p. 3](zotero://open-pdf/library/items/K?page=3&annotation=A2)\n\n\n\n\n\na sticky note\n\n\"==Third claim==\" [p. 4](zotero://open-pdf/library/items/K?page=4&annotation=A3)\n\n\n";
    for (template, note) in [(listed, listed_note), (bare, bare_note)] {
        let doc = read(template, note);
        let got: Vec<(Option<&str>, Option<&str>)> =
            doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
        assert_eq!(
            got,
            [
                (Some("First claim"), Some("my comment")),
                (Some("Second claim"), None),
                (None, Some("a sticky note")),
                (Some("Third claim"), None)
            ],
            "{note}"
        );
        assert_eq!(doc.annotations[2].kind, crate::annotations::AnnotationType::Note);
    }
}

#[test]
fn a_note_in_a_callout_whose_text_line_is_left_out_is_read_as_a_note() {
    // The widely shared callout template: a note has no text line, so its header is followed by
    // the comment's `>` and `>>` lines. An empty text must not let the optional line after the
    // text (here OCR text) take the comment's line.
    let template = "{% for a in annotations -%}\n> [!quote|{{a.color}}] {{a.type | capitalize}}\n{%- if a.annotatedText %}\n> {{a.annotatedText}}\n{%- endif -%}\n{%- if a.ocrText %}\n> {{a.ocrText}}\n{%- endif %}\n{%- if a.comment %}\n>\n>> {{a.comment}}\n{%- endif %}\n>\n> [Page {{a.page}}](zotero://open-pdf/library/items/K?page={{a.page}})\n\n{% endfor -%}";
    let note = "> [!quote|#ffd400] Highlight\n> A passage\n>\n> [Page 2](zotero://open-pdf/library/items/K?page=2)\n\n> [!quote|#f19837] Note\n>\n>> Check the appendix first.\n>\n> [Page 3](zotero://open-pdf/library/items/K?page=3)\n\n";
    let doc = read(template, note);
    assert_eq!(doc.template, crate::annotations::TemplateStyle::UserTemplate);
    let got: Vec<_> =
        doc.annotations.iter().map(|a| (a.kind, a.text.as_deref(), a.comment.as_deref())).collect();
    use crate::annotations::AnnotationType::{Highlight, Note};
    assert_eq!(got, [(Highlight, Some("A passage"), None), (Note, None, Some("Check the appendix first."))]);
}

#[test]
fn sibling_ifs_on_the_type_are_one_annotation_each() {
    // Three `if` blocks, not `elif`s: each annotation prints one of them, so a highlight line
    // followed by a note line is two iterations, not one that took both.
    let template = "{%- for a in annotations %}\n{%- if a.type === \"highlight\" %}\n* **Quote**: <mark>{{a.annotatedText}}</mark> on [p. {{a.page}}]({{a.desktopURI}})\n{%- endif %}\n{%- if a.type === \"note\" %}\n* **Note**: {{a.comment}} on [p. {{a.page}}]({{a.desktopURI}})\n{%- endif %}\n{%- endfor %}";
    let note = "# Paper\n* **Quote**: <mark>First passage</mark> on [p. 2](zotero://open-pdf/library/items/K?page=2&annotation=A1)\n* **Note**: my own remark on [p. 3](zotero://open-pdf/library/items/K?page=3&annotation=A2)\n* **Quote**: <mark>Second passage</mark> on [p. 4](zotero://open-pdf/library/items/K?page=4&annotation=A3)\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.page.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (Some("First passage"), None, Some("2")),
            (None, Some("my own remark"), Some("3")),
            (Some("Second passage"), None, Some("4"))
        ]
    );
}

#[test]
fn a_sticky_note_in_its_own_block_after_an_annotation_without_comment_is_its_own() {
    // The comment branch opens with a wrapper line of its own: the distance that tells a sticky
    // note from a comment is before the wrapper, not before the comment's line.
    let template = "{% for a in annotations -%}\n{%- if a.annotatedText -%}\n<div class=\"hl\">\n  <mark>{{a.annotatedText}}</mark> [p. {{a.page}}](zotero://open-pdf/library/items/K?page={{a.page}})\n</div>\n{%- endif -%}\n{%- if a.comment %}\n\n<div class=\"note\">\n  <b>Remark:</b> {{a.comment}}\n</div>\n{%- endif %}\n\n\n{% endfor %}";
    let note = "<div class=\"hl\">\n  <mark>First claim</mark> [p. 2](zotero://open-pdf/library/items/K?page=2)\n</div>\n\n<div class=\"note\">\n  <b>Remark:</b> mine\n</div>\n\n\n<div class=\"hl\">\n  <mark>Second claim</mark> [p. 3](zotero://open-pdf/library/items/K?page=3)\n</div>\n\n\n\n\n<div class=\"note\">\n  <b>Remark:</b> a sticky note\n</div>\n\n\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        got,
        [(Some("First claim"), Some("mine")), (Some("Second claim"), None), (None, Some("a sticky note"))]
    );
}

#[test]
fn a_body_that_ends_with_the_annotation_tags_loop_matches_at_the_end_of_its_last_line() {
    // Each tag line ends with a line break; the match ends at the end of a line, so the last tag
    // line's break is not the body's. Before, the iteration matched only up to the heading (and
    // the next loop took the whole section).
    let template = "# With comments\n{% for a in annotations -%}\n{%- if a.comment and a.annotatedText -%}\n## {{a.comment}}\n{% endif %}\n{%- if a.annotatedText and a.comment %}\n> [!quote] {{a.annotatedText}} [Page {{a.page}}]({{a.desktopURI}})\n\nTags:\n{% if a.color -%}\n- #{{a.type | lower}}_{{a.colorCategory | lower}}\n{% else -%}\n- #{{a.type | lower}}\n{% endif %}\n{%- for t in a.tags -%}\n- #{{t.tag}}\n{% endfor %}\n{%- endif -%}\n{% endfor -%}\n\n# Without comments\n{% for a in annotations -%}\n{%- if a.annotatedText and not a.comment -%}\n> [!quote] {{a.annotatedText}} [Page {{a.page}}]({{a.desktopURI}})\n\nTags:\n{% if a.color -%}\n- #{{a.type | lower}}_{{a.colorCategory | lower}}\n{% else -%}\n- #{{a.type | lower}}\n{% endif %}\n{%- for t in a.tags -%}\n- #{{t.tag}}\n{% endfor %}\n---\n{% endif -%}\n{% endfor -%}\n";
    let note = "# With comments\n## Why nightly?\n\n> [!quote] The index is rebuilt nightly. [Page 3](zotero://open-pdf/library/items/K?page=3&annotation=A1)\n\nTags:\n- #highlight_red\n- #method\n## Compare with the baseline.\n\n> [!quote] Accuracy rises by twelve points. [Page 4](zotero://open-pdf/library/items/K?page=4&annotation=A2)\n\nTags:\n- #underline_green\n\n# Without comments\n> [!quote] Small models gain most. [Page 5](zotero://open-pdf/library/items/K?page=5&annotation=A3)\n\nTags:\n- #highlight_yellow\n---\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref(), a.kind))
        .collect();
    assert_eq!(
        got,
        [
            (
                Some("The index is rebuilt nightly."),
                Some("Why nightly?"),
                Some("#ff6666"),
                AnnotationType::Highlight
            ),
            (
                Some("Accuracy rises by twelve points."),
                Some("Compare with the baseline."),
                Some("#5fb236"),
                AnnotationType::Underline
            ),
            (Some("Small models gain most."), None, Some("#ffd400"), AnnotationType::Highlight),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_heading_over_the_annotations_grouped_by_page_label_gives_their_page() {
    let template = "## Annotations\n{% for page, group in annotations | groupby(\"pageLabel\") %}\n### Page {{page}}\n{% for a in group %}\n> [!quote]\n> {{a.annotatedText}}\n\n{% endfor %}\n{% endfor %}\n";
    let note = "## Annotations\n\n### Page iv\n\n> [!quote]\n> Tides rise twice a day.\n\n> [!quote]\n> The mill turns with them.\n\n### Page 12\n\n> [!quote]\n> Spring tides are higher.\n\n";
    let doc = read(template, note);
    let got: Vec<_> =
        doc.annotations.iter().map(|a| (a.text.as_deref().unwrap_or(""), a.page.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("Tides rise twice a day.", Some("iv")),
            ("The mill turns with them.", Some("iv")),
            ("Spring tides are higher.", Some("12")),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn an_annotation_whose_comment_the_template_prints_in_another_section_is_one_annotation() {
    // Highlights under their colour's heading, every comment again under "Personal notes", each
    // with the annotation's own link: one Zotero annotation, its text and its comment.
    let template = "{% set yellow = annotations | filterby(\"color\", \"startswith\", \"#ffd400\") %}{% set withComment = annotations | filterby(\"comment\", \"startswith\", \"\") %}## Findings\n{% for a in yellow %}\n> [!finding]\n> {{a.annotatedText}}\n> [(p. {{a.pageLabel}})]({{a.desktopURI}})\n{% endfor %}\n## Personal notes\n{% for a in annotations %}{% if a.comment %}\n> [!note]\n> {{a.comment}}\n> [(p. {{a.pageLabel}})]({{a.desktopURI}})\n{% endif %}{% endfor %}\n";
    let note = "## Findings\n\n> [!finding]\n> The index is rebuilt nightly.\n> [(p. 3)](zotero://open-pdf/library/items/K?page=3&annotation=A1)\n\n> [!finding]\n> Small models gain most.\n> [(p. 5)](zotero://open-pdf/library/items/K?page=5&annotation=A2)\n\n## Personal notes\n\n> [!note]\n> Why not hourly?\n> [(p. 3)](zotero://open-pdf/library/items/K?page=3&annotation=A1)\n\n> [!note]\n> A sticky note of its own.\n> [(p. 7)](zotero://open-pdf/library/items/K?page=7&annotation=A9)\n";
    let doc = read(template, note);
    let got = text_comment_colour_page(&doc);
    assert_eq!(
        got,
        [
            (Some("The index is rebuilt nightly."), Some("Why not hourly?"), Some("#ffd400"), Some("3")),
            (Some("Small models gain most."), None, Some("#ffd400"), Some("5")),
            (None, Some("A sticky note of its own."), None, Some("7")),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_sticky_note_callout_after_a_highlight_is_not_its_comment_and_or_prints_either_value() {
    // `{{a.page or 1}}` prints the page, or 1 where there is none; the highlight's optional
    // comment (`> {{comment}}`) does not take the note's callout header as its words.
    let template = "# Annotations\n{%- for a in annotations -%}\n{%- if a.type == \"note\" %}\n\n> [!note] \n> \n> {{a.comment}}, (p. {{a.page or 1}})\n{%- endif -%}\n{%- if a.annotatedText %}\n\n{{a.annotatedText}} (p. {{a.page or 1}})\n{%- if a.comment %}\n\n> {{a.comment}}\n{%- endif %}\n{%- endif -%}\n{%- endfor -%}\n";
    let note = "# Annotations\n\nSmall models gain most. (p. 2)\n\n> [!note] \n> \n> Compare with the baseline., (p. 7)\n\nThe index is rebuilt nightly. (p. 1)\n\n> Why not hourly?\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.kind, a.text.as_deref(), a.comment.as_deref(), a.page.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (AnnotationType::Highlight, Some("Small models gain most."), None, Some("2")),
            (AnnotationType::Note, None, Some("Compare with the baseline."), Some("7")),
            (
                AnnotationType::Highlight,
                Some("The index is rebuilt nightly."),
                Some("Why not hourly?"),
                Some("1")
            ),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_list_item_template_does_not_start_at_a_rule_and_an_empty_text_leaves_the_link_alone() {
    // `- {{text}} {{link}}`: the `-` of a `---` rule above the list is no list item; a sticky
    // note printed as `- **{{comment}}**:  {{link}}` (no text) keeps its link out of the text.
    let template = "## Notes\n{% for a in annotations -%}\n{%- set link = '[(p. ' ~ a.pageLabel ~ ')](' ~ a.desktopURI ~ ')' if a.pageLabel else '[Link](' ~ a.desktopURI ~ ')' -%}\n{%- if loop.first %}\n\n### Reading notes\n{%- endif -%}\n{%- if a.comment %}\n- **{{a.comment}}**: {{a.annotatedText}} {{link}}\n{%- else %}\n- {{a.annotatedText}} {{link}}\n{%- endif -%}\n{% endfor %}\n";
    let note = "## Notes\n\n---\n### Reading notes\n- The index is rebuilt nightly. [(p. 3)](zotero://open-pdf/library/items/K?page=3&annotation=A1)\n- **Compare with the baseline.**:  [(p. 7)](zotero://open-pdf/library/items/K?page=7&annotation=A2)\n- **Why?**: Small models gain most. [(p. 9)](zotero://open-pdf/library/items/K?page=9&annotation=A3)\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.kind, a.text.as_deref(), a.comment.as_deref(), a.page.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (AnnotationType::Highlight, Some("The index is rebuilt nightly."), None, Some("3")),
            (AnnotationType::Note, None, Some("Compare with the baseline."), Some("7")),
            (AnnotationType::Highlight, Some("Small models gain most."), Some("Why?"), Some("9")),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn records_pushed_per_annotation_and_filtered_by_a_colour_bucket_are_read_with_that_colour() {
    // The shape of a widely shared template: each annotation pushed with a bucket named after
    // its colour, then one loop per bucket under its heading. Optional `#tags` after the text, an
    // `ocrText` line that must not take the comment's line, a sticky note (no text) whose
    // comment line is framed like every comment, an image, a colour the dictionary leaves out.
    let template = "{%- set zoteroColors = {\"#2ea8e5\": \"blue\", \"#ffd400\": \"yellow\", \"#5fb236\": \"green\"} -%}\n{%- set colorHeading = {\"blue\": \"Definitions\", \"yellow\": \"Findings\", \"green\": \"Methods\", \"red\": \"Questions\"} -%}\n{%- set sorted = [] -%}\n{%- for a in annotations -%}\n{%- if a.color in zoteroColors -%}{%- set bucket = zoteroColors[a.color] -%}{%- elif a.colorCategory|lower in colorHeading -%}{%- set bucket = a.colorCategory|lower -%}{%- else -%}{%- set bucket = \"other\" -%}{%- endif -%}\n{%- set sorted = (sorted.push({\"annotation\": a, \"bucket\": bucket}), sorted) -%}\n{%- endfor -%}\n{%- for color, heading in colorHeading -%}\n{%- for entry in sorted | filterby(\"bucket\", \"startswith\", color) -%}\n{%- set a = entry.annotation -%}\n{%- if loop.first %}\n# {{heading}}\n{%- endif %}\n\n> [!quote]+ {% if a.type == \"image\" %}Image{% else %}Text{% endif %} ([Page {{a.page}}]({{a.desktopURI}}))\n{%- if a.annotatedText %}\n> {{a.annotatedText}} {% if a.hashTags %}{{a.hashTags}}{% endif -%}\n{%- endif %}\n{%- if a.imageRelativePath %}\n> ![[{{a.imageRelativePath}}]]\n{%- endif %}\n{%- if a.ocrText %}\n> {{a.ocrText}}\n{%- endif %}\n{%- if a.comment %}\n> - **{{a.comment}}**\n{%- endif -%}\n{%- endfor -%}\n{%- endfor -%}\n";
    let link = |p: u32, k: &str| format!("zotero://open-pdf/library/items/K?page={p}&annotation={k}");
    let note = format!(
        "# Definitions\n\n> [!quote]+ Text ([Page 1]({}))\n> Tides rise twice a day. #ocean\n\n# Findings\n\n> [!quote]+ Text ([Page 2]({}))\n> - **Check the second gauge.**\n\n> [!quote]+ Text ([Page 3]({}))\n> The mill turns with them. \n> - **why?**\n\n# Methods\n\n> [!quote]+ Image ([Page 4]({}))\n> ![[images/image-4-x10-y20.png]]\n\n# Questions\n\n> [!quote]+ Text ([Page 5]({}))\n> Spring tides are higher.\n",
        link(1, "A1"),
        link(2, "A2"),
        link(3, "A3"),
        link(4, "A4"),
        link(5, "A5")
    );
    let doc = read(template, &note);
    assert_eq!(doc.template, crate::annotations::TemplateStyle::UserTemplate, "{:#?}", doc.diagnostics);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.kind, a.text.as_deref(), a.comment.as_deref(), a.color_hex.as_deref(), a.page.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (AnnotationType::Highlight, Some("Tides rise twice a day."), None, Some("#2ea8e5"), Some("1")),
            (AnnotationType::Note, None, Some("Check the second gauge."), Some("#ffd400"), Some("2")),
            (
                AnnotationType::Highlight,
                Some("The mill turns with them."),
                Some("why?"),
                Some("#ffd400"),
                Some("3")
            ),
            (AnnotationType::Image, None, None, Some("#5fb236"), Some("4")),
            // Red is not in the dictionary: its bucket is its colour's name.
            (AnnotationType::Highlight, Some("Spring tides are higher."), None, Some("#ff6666"), Some("5")),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_text_printed_with_nl2br_goes_on_past_a_line_that_ends_with_its_break() {
    let template = "{% for a in annotations %}\n> [!quote] ([p. {{a.page}}]({{a.desktopURI}}))\n> {{a.annotatedText | nl2br}}\n{%- if a.comment %}\n> → **{{a.comment}}**\n{%- endif %}\n{% endfor %}";
    let note = "\n> [!quote] ([p. 3](zotero://open-pdf/library/items/K?page=3&annotation=A1))\n> The index is rebuilt nightly,<br />\nwhich leaves new pages unseen.\n> → **stale index**\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        got,
        [(Some("The index is rebuilt nightly,\nwhich leaves new pages unseen."), Some("stale index"))],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_lone_zotero_link_on_the_comment_line_is_the_annotation_link_not_a_comment() {
    // `>` then `> {{comment}}`, then `>` then `> [p. N](link)`: without a comment, the comment's
    // optional lines take the page link's.
    let template = "{% for a in annotations %}\n{% if a.type == \"highlight\" %}\n> [!quote]\n{% endif %}\n{% if a.annotatedText %}\n> {{a.annotatedText}}\n{% endif %}\n{% if a.comment %}\n>\n> {{a.comment}}\n{% endif %}\n{% if a.pageLabel %}\n>\n> [p. {{a.pageLabel}}]({{a.desktopURI}})\n{% endif %}\n\n{% endfor %}";
    let note = "\n\n> [!quote]\n\n\n> Tides rise twice a day.\n\n\n\n>\n> [p. 2](zotero://open-pdf/library/items/K?page=2&annotation=A1)\n\n\n\n> [!quote]\n\n\n> The mill turns with them.\n\n\n>\n> Why?\n\n\n>\n> [p. 3](zotero://open-pdf/library/items/K?page=3&annotation=A2)\n\n\n";
    let doc = read(template, note);
    let got: Vec<_> = doc
        .annotations
        .iter()
        .map(|a| (a.text.as_deref(), a.comment.as_deref(), a.page.as_deref(), a.zotero_link.is_some()))
        .collect();
    assert_eq!(
        got,
        [
            (Some("Tides rise twice a day."), None, Some("2"), true),
            (Some("The mill turns with them."), Some("Why?"), Some("3"), true)
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_sticky_note_on_a_line_marked_as_the_comments_is_no_text() {
    // `> {{text}} (p. N)` and `> – {{comment}}` start alike; a note (no text) prints only its
    // `> – ` line, which the text (free to run over lines up to the next `(p. N)`) must not take.
    let template = "{% for a in annotations %}{% if a.annotatedText %}> {{a.annotatedText}} (p. {{a.page}}){% endif %}\n{% if a.comment %}> – {{a.comment}}{% endif %}\n{% endfor %}";
    let note = "> Tides rise twice a day. (p. 1)\n> – and fall twice\n\n> – Check the second gauge.\n> The mill turns with them. (p. 4)\n\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        got,
        [
            (Some("Tides rise twice a day."), Some("and fall twice")),
            (None, Some("Check the second gauge.")),
            (Some("The mill turns with them."), None),
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_page_line_printed_by_a_loop_of_its_own_is_no_group_heading() {
    // `page-no:: {{pageLabel}}` of the first annotation, above the list: a note without a page
    // below it takes its page from its image's name, not from that line.
    let template = "page-no:: {% for a in annotations %}{% if loop.first %}{{a.pageLabel}}{% endif %}{% endfor %}\n\n## Notes\n{% for a in annotations %}\n> [!quote]\n> {% if a.imageRelativePath %}![[{{a.imageRelativePath}}]]{% endif %}{% if a.annotatedText %}{{a.annotatedText}} (p. {{a.pageLabel}}){% endif %}\n> **Comment:** {{a.comment}}\n{% endfor %}";
    let note = "page-no:: 2\n\n## Notes\n\n> [!quote]\n> Tides rise twice a day. (p. 2)\n> **Comment:** \n\n> [!quote]\n> ![[images/image-8-x98-y533.png]]\n> **Comment:** Figure 3\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.comment.as_deref(), a.page.as_deref())).collect();
    assert_eq!(got, [(None, Some("2")), (Some("Figure 3"), Some("8"))], "{:#?}", doc.annotations);
}

#[test]
fn hash_tags_printed_before_the_text_are_whole_tags() {
    let template = "{% for a in annotations %}\n- {% if a.hashTags %}{{a.hashTags}} {% endif %}{{a.annotatedText}} (p. {{a.page}})\n{% endfor %}";
    let note = "\n- #method     Tides rise twice a day. (p. 1)\n\n- #multilingual, #to-read The mill turns with them. (p. 2)\n\n- Spring tides are higher. (p. 3)\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| a.text.as_deref().unwrap_or("")).collect();
    assert_eq!(
        got,
        ["Tides rise twice a day.", "The mill turns with them.", "Spring tides are higher."],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_colour_the_callout_type_names_where_the_template_reading_gives_none_is_kept() {
    // A dictionary lookup whose `else` prints `yellow` for any colour it lacks: where the note
    // says `yellow`, the callout's own colour word is the colour.
    let template = "{% set names = {\"#ff6666\": \"red\"} %}{% for a in annotations %}\n> [!annotation-{% if names[a.color].length > 0 %}{{names[a.color]}}{% else %}yellow{% endif %}] Highlight\n> {{a.annotatedText}} (p. {{a.page}})\n{% endfor %}";
    let note = "\n> [!annotation-yellow] Highlight\n> Tides rise twice a day. (p. 1)\n\n> [!annotation-red] Highlight\n> The mill turns with them. (p. 2)\n";
    let doc = read(template, note);
    assert_eq!(doc.template, crate::annotations::TemplateStyle::UserTemplate);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.color_hex.as_deref())).collect();
    assert_eq!(
        got,
        [
            (Some("Tides rise twice a day."), Some("#ffd400")),
            (Some("The mill turns with them."), Some("#ff6666"))
        ],
        "{:#?}",
        doc.annotations
    );
}

#[test]
fn a_heading_of_its_own_marks_an_iteration_that_prints_no_link() {
    // No whitespace control, no link: the optional comment must not run on into the next
    // iteration, whose `#### note N` heading starts it; the tags loop ends each iteration.
    let template = "{% for annotation in annotations %}\n#### note {{loop.index}}\n{% if annotation.annotatedText %}\n{{annotation.annotatedText}}\n{% endif %}\n{% if annotation.comment %}\n{{annotation.comment}}\n{% endif %}\n\n##### details\n- page {{annotation.page}}\n- color: {{annotation.color}}\n- tags {% for tag in annotation.tags %}\n\t- #topic/{{tag.tag}} {% endfor %}\n\n{% endfor %}";
    let note = "\n#### note 1\n\nRivers carry silt to the sea.\n\n\n\n##### details\n- page 2\n- color: #ffd400\n- tags \n\t- #topic/rivers \n\n\n#### note 2\n\nDeltas grow at the mouth.\n\n\nworth a diagram\n\n\n##### details\n- page 3\n- color: #ff6666\n- tags \n\n";
    let doc = read(template, note);
    let got = text_comment_colour_page(&doc);
    assert_eq!(
        got,
        [
            (Some("Rivers carry silt to the sea."), None, Some("#ffd400"), Some("2")),
            (Some("Deltas grow at the mouth."), Some("worth a diagram"), Some("#ff6666"), Some("3")),
        ]
    );
}

#[test]
fn a_highlight_of_several_lines_printed_with_a_quote_on_each_keeps_its_comment() {
    // `replace("\n", "\n> ")`: the text's second line carries the quote marker, and the comment
    // line after it must not be read as a third line of the text.
    let template = "{% for annotation in annotations %}\n> [!quote] [p. {{annotation.page}}](zotero://open-pdf/library/items/K?page={{annotation.page}})\n> {{annotation.annotatedText | replace(\"\\n\", \"\\n> \")}}{% if annotation.comment %}\n> *{{annotation.comment}}*{% endif %}\n\n{% endfor %}";
    let note = "\n> [!quote] [p. 4](zotero://open-pdf/library/items/K?page=4)\n> Tides rise twice a day,\n> pulled by the moon.\n> *two tides, not one*\n\n> [!quote] [p. 5](zotero://open-pdf/library/items/K?page=5)\n> Spring tides are the largest\n> and follow the full moon.\n\n";
    let doc = read(template, note);
    let got: Vec<_> = doc.annotations.iter().map(|a| (a.text.as_deref(), a.comment.as_deref())).collect();
    assert_eq!(
        got,
        [
            (Some("Tides rise twice a day,\npulled by the moon."), Some("two tides, not one")),
            (Some("Spring tides are the largest\nand follow the full moon."), None),
        ]
    );
}
