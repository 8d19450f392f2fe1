//! Hostile notes: shapes on which a parser that rescans the rest of a line (or of the note) for
//! every opener takes quadratic time. Shared by the regression tests (`tests/hostile.rs`), the
//! bench (`benches/hostile.rs`) and the fuzz seeds (`fuzz/seeds/parse/`).

/// A shape: a function from a size in bytes to a note of about that size.
pub type Shape = fn(usize) -> String;

/// Every shape, by name.
pub const SHAPES: &[(&str, Shape)] = &[
    ("link openers `[a](`", link_openers),
    ("callout openers `> [!` on one line", callout_openers),
    ("callouts `> [!note]` in one quote", callout_lines),
    ("open brackets `[`", open_brackets),
    ("wikilink openers `[[a`", wikilink_openers),
    ("nested wikilinks `[[…]]`", nested_wikilinks),
    ("angle destinations `[a](<`", angle_destinations),
    ("backtick runs of every length", backtick_runs),
    ("HTML tags with open quotes `<a \"`", html_quotes),
    ("distinct inline tags", inline_tags),
    ("distinct wikilinks", wikilinks),
    ("distinct frontmatter tags", frontmatter_tags),
    ("distinct aliases", aliases),
    ("quotes nested on one line `> > > …`", nested_quotes),
    ("list items nested on one line `- - - …`", nested_list_items),
    ("a list indented one more space each line", staircase_list),
];

/// `unit` repeated to about `size` bytes.
fn repeat(unit: &str, size: usize) -> String {
    unit.repeat(size / unit.len().max(1) + 1)
}

/// `[a](` over and over on one line: every link's destination never closes.
pub fn link_openers(size: usize) -> String {
    repeat("[a](", size)
}

/// `> [!` over and over on one line: a callout header that never closes.
pub fn callout_openers(size: usize) -> String {
    repeat("> [!", size)
}

/// `> [!note] x` lines in one block quote: every callout runs to the end of the quote.
pub fn callout_lines(size: usize) -> String {
    repeat("> [!note] x\n", size)
}

/// `[` over and over: no bracket ever closes.
pub fn open_brackets(size: usize) -> String {
    repeat("[", size)
}

/// `[[a` over and over: no wikilink ever closes.
pub fn wikilink_openers(size: usize) -> String {
    repeat("[[a", size)
}

/// `[[` over and over, closed once at the end: every opener reaches the same `]]`.
pub fn nested_wikilinks(size: usize) -> String {
    repeat("[[", size) + "]]"
}

/// `[a](<` over and over: an angle-bracket destination that never closes.
pub fn angle_destinations(size: usize) -> String {
    repeat("[a](<", size)
}

/// Runs of 1, 2, 3, … backticks on one line: no run is ever closed by one of its length.
pub fn backtick_runs(size: usize) -> String {
    let mut out = String::with_capacity(size + 64);
    let mut n = 1;
    while out.len() < size {
        out.push_str(&"`".repeat(n));
        out.push('x');
        n += 1;
    }
    out
}

/// `<a "` and `<b '` over and over: tags whose attribute quotes never close.
pub fn html_quotes(size: usize) -> String {
    repeat("<a \"<b '", size)
}

/// Distinct inline tags, 100 to a line.
pub fn inline_tags(size: usize) -> String {
    numbered(size, |i| format!("#t{i}{}", if i % 100 == 99 { "\n" } else { " " }))
}

/// Distinct wikilinks, 100 to a line.
pub fn wikilinks(size: usize) -> String {
    numbered(size, |i| format!("[[n{i}]]{}", if i % 100 == 99 { "\n" } else { " " }))
}

/// A frontmatter list of distinct tags.
pub fn frontmatter_tags(size: usize) -> String {
    format!("---\ntags:\n{}---\nbody\n", numbered(size, |i| format!("  - t{i}\n")))
}

/// A frontmatter list of distinct aliases.
pub fn aliases(size: usize) -> String {
    format!("---\naliases:\n{}---\nbody\n", numbered(size, |i| format!("  - a{i}\n")))
}

/// `item(0)`, `item(1)`, … joined until the text reaches `size` bytes.
fn numbered(size: usize, item: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(size + 64);
    let mut i = 0;
    while out.len() < size {
        out.push_str(&item(i));
        i += 1;
    }
    out
}

/// One line of `> ` openers: a quote nested as deep as the note is long.
pub fn nested_quotes(size: usize) -> String {
    repeat("> ", size)
}

/// One line of `- ` markers: a list item nested as deep as the note is long.
pub fn nested_list_items(size: usize) -> String {
    repeat("- ", size)
}

/// List items, each indented one space more than the one before.
pub fn staircase_list(size: usize) -> String {
    numbered(size, |i| format!("{}- item\n", " ".repeat(i)))
}
