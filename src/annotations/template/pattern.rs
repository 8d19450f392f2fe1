//! What a compiled template expects to find in a note: constant text, slots for the annotation's
//! fields, alternatives (the template's `if`s, each with what its condition says about the
//! annotation), and repetitions (inner loops).

/// An annotation field a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `annotatedText`.
    Text,
    /// `comment`.
    Comment,
    /// `color` (a hex).
    Color,
    /// `colorCategory` (`Yellow`, `Red`, …).
    ColorCategory,
    /// `type`.
    Type,
    /// `page` (the PDF page's index + 1).
    Page,
    /// `pageLabel` (the page as the PDF numbers it).
    PageLabel,
    /// `desktopURI` (`zotero://open-pdf/…`).
    Link,
    /// `imageRelativePath` / `imageBaseName` / `imagePath`.
    Image,
    /// `id` (the annotation key).
    Id,
    /// `date` (formatted).
    Date,
    /// `tags`, `allTags`.
    Tags,
    /// `hashTags`: the tags as `#tag`s.
    HashTags,
    /// Anything else printed: an unknown value, kept to one line.
    Other,
    /// The item's title (outside the annotation loop).
    MetaTitle,
    /// The item's authors.
    MetaAuthors,
    /// The item's year.
    MetaYear,
    /// The item's citekey.
    MetaCitekey,
}

impl Field {
    /// The field of an annotation attribute name, as Zotero Integration names them.
    pub fn of_attribute(name: &str) -> Option<Field> {
        Some(match name {
            "annotatedText" => Field::Text,
            "comment" => Field::Comment,
            "color" => Field::Color,
            "colorCategory" => Field::ColorCategory,
            "type" => Field::Type,
            "page" => Field::Page,
            "pageLabel" => Field::PageLabel,
            "desktopURI" => Field::Link,
            "imageRelativePath" | "imageBaseName" | "imagePath" => Field::Image,
            "id" | "key" => Field::Id,
            "date" | "dateModified" | "dateAdded" => Field::Date,
            "tags" | "allTags" => Field::Tags,
            "hashTags" => Field::HashTags,
            _ => return None,
        })
    }

    /// Whether the field is free text that may span lines.
    pub fn is_free_text(self) -> bool {
        matches!(self, Field::Text | Field::Comment)
    }

    /// A field printed as a short token on one line (a page, a link, a key, a colour, an image
    /// path): it never runs over the text after it.
    pub fn is_narrow(self) -> bool {
        matches!(
            self,
            Field::Page
                | Field::PageLabel
                | Field::Link
                | Field::Id
                | Field::Color
                | Field::ColorCategory
                | Field::Type
                | Field::Image
        )
    }
}

/// How a printed value was changed on its way out, so the parser can undo it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transform {
    /// `nl2br`: line breaks became `<br />` followed by a line break.
    Nl2br,
    /// `replace(from, to)` with a plain string.
    Replace(String, String),
    /// Case changed (`lower`, `upper`, `capitalize`, `title`): compare without case.
    Case,
    /// `escape`: `&`, `<`, `>`, `"` and `'` became HTML entities.
    Escape,
    /// `truncate`, `substring`, `slice`, a regex `replace`: the value printed is not the whole field.
    Partial,
}

/// What a branch's condition says about the annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// The field is set (`{% if a.comment %}`).
    Has(Field),
    /// The field is empty (`{% if not a.comment %}`).
    Lacks(Field),
    /// The field equals a value (`{% if a.type == "image" %}`, `a.color == "#ff6666"`).
    Is(Field, String),
}

/// A slot: one printed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The field.
    pub field: Field,
    /// What the template did to it, in order.
    pub transforms: Vec<Transform>,
}

/// The expected shape of (part of) a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pat {
    /// Constant text.
    Lit(String),
    /// A printed field.
    Slot(Slot),
    /// One after another.
    Seq(Vec<Pat>),
    /// One of several branches, each with the facts its condition gives.
    Alt(Vec<(Vec<Fact>, Pat)>),
    /// Zero or more times (a loop over something that is not the annotations).
    Repeat(Box<Pat>),
    /// The `n`-th loop over the annotations.
    Loop(usize),
}

impl Pat {
    /// The empty pattern.
    pub fn empty() -> Pat {
        Pat::Seq(Vec::new())
    }

    /// Appends `p` to a sequence, merging adjacent text.
    pub fn push(items: &mut Vec<Pat>, p: Pat) {
        match p {
            Pat::Seq(inner) => {
                for p in inner {
                    Pat::push(items, p);
                }
            }
            Pat::Lit(s) if s.is_empty() => {}
            Pat::Lit(s) => match items.last_mut() {
                Some(Pat::Lit(prev)) => prev.push_str(&s),
                _ => items.push(Pat::Lit(s)),
            },
            other => items.push(other),
        }
    }

    /// A sequence of `parts`, flattened.
    pub fn seq(parts: impl IntoIterator<Item = Pat>) -> Pat {
        let mut items = Vec::new();
        for p in parts {
            Pat::push(&mut items, p);
        }
        if items.len() == 1 { items.pop().unwrap_or_else(Pat::empty) } else { Pat::Seq(items) }
    }

    /// Whether the pattern can only match the empty string.
    pub fn is_empty(&self) -> bool {
        match self {
            Pat::Lit(s) => s.is_empty(),
            Pat::Seq(items) => items.iter().all(Pat::is_empty),
            Pat::Alt(branches) => branches.iter().all(|(_, p)| p.is_empty()),
            Pat::Repeat(p) => p.is_empty(),
            Pat::Slot(_) | Pat::Loop(_) => false,
        }
    }

    /// Calls `f` on every slot.
    pub fn visit_slots(&self, f: &mut dyn FnMut(&Slot)) {
        match self {
            Pat::Slot(s) => f(s),
            Pat::Seq(items) => items.iter().for_each(|p| p.visit_slots(f)),
            Pat::Alt(branches) => branches.iter().for_each(|(_, p)| p.visit_slots(f)),
            Pat::Repeat(p) => p.visit_slots(f),
            Pat::Lit(_) | Pat::Loop(_) => {}
        }
    }

    /// Each slot's field with the constant text printed before it on its line (`> **Note:** ` for
    /// `> **Note:** {{a.comment}}`), for the slots that only constant text precedes on their
    /// line, in template order; each branch of an alternative starts from the line as it stood.
    pub fn line_prefixes(&self) -> Vec<(Field, String)> {
        fn walk(p: &Pat, line: &mut Option<String>, out: &mut Vec<(Field, String)>) {
            match p {
                Pat::Lit(s) => match s.rfind('\n') {
                    Some(n) => *line = Some(s[n + 1..].to_string()),
                    None => {
                        if let Some(l) = line {
                            l.push_str(s);
                        }
                    }
                },
                Pat::Slot(slot) => {
                    if let Some(l) = line.take() {
                        out.push((slot.field, l));
                    }
                }
                Pat::Seq(items) => items.iter().for_each(|i| walk(i, line, out)),
                Pat::Alt(branches) => {
                    for (_, b) in branches {
                        walk(b, &mut line.clone(), out);
                    }
                    *line = None;
                }
                Pat::Repeat(inner) => {
                    walk(inner, &mut None, out);
                    *line = None;
                }
                Pat::Loop(_) => *line = None,
            }
        }
        let mut out = Vec::new();
        walk(self, &mut Some(String::new()), &mut out);
        out
    }

    /// Whether a slot for `field` appears.
    pub fn has_field(&self, field: Field) -> bool {
        let mut found = false;
        self.visit_slots(&mut |s| found |= s.field == field);
        found
    }
}
