//! `obsidian_update_file` before it writes: which note (a path, the active note, a periodic note),
//! whether it may be changed (`ifMatch`, protected folders), and its new text.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::params::{ModificationType, TargetType, UpdateFile, UpdateTarget, WholeFileMode};
use crate::mcp::approval::large_removal;
use crate::mcp::names::Lookup;
use crate::mcp::reply::{cut_text, ok};
use crate::mcp::server::Scholia;
use crate::note::diff::{content_hash, unified};
use crate::note::frontmatter::body_start;
use crate::note::{PatchOptions, Target, patch};
use crate::periodic::Period;
use crate::vault::{Vault, VaultPath};

/// A change worked out but not written.
#[derive(Debug)]
pub(super) struct Update {
    /// The note.
    pub path: VaultPath,
    /// Its text now (`None`: it does not exist and will be created).
    pub old: Option<String>,
    /// Its text after the change.
    pub new: String,
    /// Whether the change replaces the whole note (an overwrite) or removes much of it.
    pub destructive: bool,
    /// For a patch that removes much: what it removes (a section, a block, more than 1 KB).
    pub removes: Option<String>,
    /// For a patch replace: the text replaced.
    pub replaced: Option<String>,
    /// For a patch: whether the target (heading, key) was created.
    pub created_target: bool,
}

impl Update {
    /// What the change does, as the user is asked to approve it.
    pub fn what(&self) -> String {
        let path = &self.path;
        match &self.removes {
            Some(removes) => format!("replace part of {path}, which {removes}"),
            None if self.destructive => format!("replace all of {path}"),
            None => format!("edit {path}"),
        }
    }

    /// Whether the text changes.
    pub fn changes(&self) -> bool {
        self.old.as_deref() != Some(self.new.as_str())
    }

    /// The dry-run answer: a unified diff of the change (cut to `budget` bytes).
    pub fn preview(&self, budget: usize) -> CallToolResult {
        let path = &self.path;
        let from = if self.old.is_some() { format!("a/{path}") } else { "/dev/null".into() };
        let diff = unified(self.old.as_deref().unwrap_or(""), &self.new, &from, &format!("b/{path}"));
        let (shown, truncated) = cut_text(&diff, budget);
        let mut value = json!({
            "path": path.as_str(), "dry_run": true, "changed": self.changes(), "created": self.old.is_none(),
            "diff": shown, "replaced": self.replaced, "created_target": self.created_target,
            "removes": self.removes,
        });
        if truncated {
            value["truncated"] = json!(true);
            value["hint"] = json!("the diff is cut; call without dryRun to make the change");
        }
        ok(value)
    }

    /// The answer after the write (`written`), or when nothing needed writing; `previous` is
    /// where an overwritten note's old version went.
    pub fn answer(&self, written: bool, previous: Option<&VaultPath>) -> CallToolResult {
        ok(self.answer_fields(written, previous))
    }

    /// The structured content of [`Update::answer`].
    pub fn answer_fields(&self, written: bool, previous: Option<&VaultPath>) -> Value {
        let path = &self.path;
        json!({
            "path": path.as_str(), "changed": written, "created": self.old.is_none(),
            "bytes": self.new.len(), "hash": content_hash(&self.new), "replaced": self.replaced,
            "created_target": self.created_target, "previous_version": previous.map(VaultPath::as_str),
        })
    }
}

/// The note an update names, with its current text (or the text a new note starts from).
struct Note {
    path: VaultPath,
    text: Option<String>,
    /// What a new note starts with (a periodic note's template).
    seed: String,
}

impl Scholia {
    /// Works out the change `args` asks for, without writing.
    pub(super) fn plan_update(&self, args: &UpdateFile) -> Result<Update, String> {
        let note = self.update_target(args)?;
        note.path.ensure_writable().map_err(|e| e.to_string())?;
        let path = &note.path;
        if let Some(expected) = args.if_match.as_deref() {
            match &note.text {
                Some(text) if same_hash(expected, text) => {}
                Some(_) => {
                    return Err(format!(
                        "{path}: the file changed since you read it; read it again with obsidian_read_file and pass \
                         its new hash as ifMatch (nothing was changed)"
                    ));
                }
                None => return Err(format!("{path} does not exist any more; nothing was changed")),
            }
        }
        match args.modification_type {
            ModificationType::WholeFile => whole_file(args, note),
            ModificationType::Patch => patch_note(args, note),
        }
    }

    /// Writes an update: a new note, or over the note's text as it was planned from (refused
    /// when it changed since); a destructive one keeps the old version in `.trash/` (returned).
    pub(super) fn apply_update(&self, update: &Update) -> Result<Option<VaultPath>, String> {
        let (path, text) = (&update.path, update.new.as_str());
        match &update.old {
            None => self.vault.create_new(path, text).map(|()| None).map_err(|e| e.to_string()),
            Some(old) => self.write_over(path, old, text, update.destructive),
        }
    }

    /// The note `targetType` and `targetIdentifier` name.
    fn update_target(&self, args: &UpdateFile) -> Result<Note, String> {
        let id = args.target_identifier.as_deref().map(str::trim).filter(|s| !s.is_empty());
        match args.target_type {
            UpdateTarget::FilePath => {
                let id = id
                    .ok_or("targetType filePath needs targetIdentifier: the note's path, name or [[link]]")?;
                match self.lookup_note(id)? {
                    Lookup::Found(path) => {
                        let text = self.vault.read(&path).map_err(|e| e.to_string())?;
                        Ok(Note { path, text: Some(text), seed: String::new() })
                    }
                    // Whether it may be created is decided with the mode.
                    Lookup::Missing { path: Some(path), .. }
                        if args.modification_type == ModificationType::WholeFile =>
                    {
                        Ok(Note { path, text: None, seed: String::new() })
                    }
                    Lookup::Missing { message, .. } => Err(message),
                }
            }
            UpdateTarget::ActiveFile => {
                let path = self.active_file()?;
                if args.if_match.is_none() && !args.write.dry_run {
                    return Err(format!(
                        "the active note is {path}; writing to it needs ifMatch, so the note you change is the one \
                         you read: read it with obsidian_read_file (filePath {path:?}) and pass its hash as ifMatch"
                    ));
                }
                let text = self.vault.read(&path).map_err(|e| e.to_string())?;
                Ok(Note { path, text: Some(text), seed: String::new() })
            }
            UpdateTarget::PeriodicNote => self.periodic_target(id),
        }
    }

    /// The current note of a period, with its template when it does not exist yet.
    fn periodic_target(&self, id: Option<&str>) -> Result<Note, String> {
        let names = "daily, weekly, monthly, quarterly or yearly";
        let id = id.ok_or_else(|| format!("targetType periodicNote needs targetIdentifier: {names}"))?;
        let period = Period::parse(id).ok_or_else(|| format!("{id:?} is not a period; give {names}"))?;
        let today = jiff::Zoned::now().date();
        let (path, settings) = self.periodic_path(period, today)?;
        if !settings.enabled {
            return Err(format!(
                "{} notes are not enabled in the vault's Periodic Notes settings; enable them in Obsidian, or give \
                 the note with targetType filePath",
                period.name()
            ));
        }
        if self.vault.exists(&path) {
            let text = self.vault.read(&path).map_err(|e| e.to_string())?;
            return Ok(Note { path, text: Some(text), seed: String::new() });
        }
        let seed = self.periodic_template(period, &settings, today);
        Ok(Note { path, text: None, seed })
    }
}

fn same_hash(expected: &str, text: &str) -> bool {
    expected.trim().eq_ignore_ascii_case(&content_hash(text))
}

fn whole_file(args: &UpdateFile, note: Note) -> Result<Update, String> {
    let path = note.path;
    let mode = args
        .whole_file_mode
        .ok_or("modificationType wholeFile needs wholeFileMode: append, prepend or overwrite")?;
    let Value::String(content) = &args.content else {
        return Err("for wholeFile, content is the Markdown text (a string)".into());
    };
    let destructive = note.text.is_some() && mode == WholeFileMode::Overwrite;
    if destructive && !args.overwrite_if_exists {
        return Err(format!(
            "{path} already exists; pass overwriteIfExists: true to replace it (its previous version goes to \
             .trash/), or use wholeFileMode append or prepend"
        ));
    }
    if note.text.is_none() && !args.create_if_needed {
        return Err(format!("{path} does not exist; pass createIfNeeded: true to create it"));
    }
    let new = match (&note.text, mode) {
        (_, WholeFileMode::Overwrite) => content.clone(),
        (Some(text), _) if content.is_empty() => text.clone(),
        (None, _) if note.seed.is_empty() => content.clone(),
        (text, mode) => {
            let base = text.as_deref().unwrap_or(&note.seed);
            if mode == WholeFileMode::Append { append(base, content) } else { prepend(base, content) }
        }
    };
    Ok(Update {
        path,
        old: note.text,
        new,
        destructive,
        removes: None,
        replaced: None,
        created_target: false,
    })
}

fn patch_note(args: &UpdateFile, note: Note) -> Result<Update, String> {
    let path = note.path;
    let Some(text) = note.text else {
        return Err(format!(
            "{path} does not exist; create it first (modificationType wholeFile), then patch it"
        ));
    };
    let (Some(op), Some(kind), Some(target)) =
        (args.patch_operation, args.patch_target_type, args.patch_target.as_deref())
    else {
        return Err("modificationType patch needs patchOperation, patchTargetType and patchTarget".into());
    };
    let target = match kind {
        TargetType::Heading => Target::Heading(target.into()),
        TargetType::Block => Target::Block(target.into()),
        TargetType::Frontmatter => Target::Frontmatter(target.into()),
    };
    let options = PatchOptions {
        delimiter: args
            .patch_target_delimiter
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "::".into()),
        trim_target: args.patch_trim_target_whitespace,
        create_if_missing: args.patch_create_target_if_missing,
    };
    let patched =
        patch(&text, &target, op.into(), &args.content, &options).map_err(|e| format!("{path}: {e}"))?;
    let removes = large_removal(&text, &patched.text);
    Ok(Update {
        path,
        old: Some(text),
        new: patched.text,
        destructive: removes.is_some(),
        removes,
        replaced: patched.replaced,
        created_target: patched.created,
    })
}

/// The line end a note uses.
fn line_end(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// `content` in the note's line ends, ending with one.
fn as_lines(content: &str, nl: &str) -> String {
    let mut lines = content.replace("\r\n", "\n");
    if !lines.ends_with('\n') {
        lines.push('\n');
    }
    if nl == "\n" { lines } else { lines.replace('\n', nl) }
}

/// `content` as whole lines after `text`.
fn append(text: &str, content: &str) -> String {
    let nl = line_end(text);
    let sep = if text.is_empty() || text.ends_with('\n') { "" } else { nl };
    format!("{text}{sep}{}", as_lines(content, nl))
}

/// `content` as whole lines at the start of the body: after the BOM and the frontmatter.
fn prepend(text: &str, content: &str) -> String {
    let at = body_start(text);
    let nl = line_end(text);
    let (head, body) = text.split_at(at);
    // A frontmatter block whose closing line has no line end (the note is only frontmatter).
    let gap = if head.is_empty() || head.ends_with('\n') || head == "\u{feff}" { "" } else { nl };
    format!("{head}{gap}{}{body}", as_lines(content, nl))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_whole_lines_in_the_notes_line_ends() {
        assert_eq!(append("a\r\nb", "c\nd"), "a\r\nb\r\nc\r\nd\r\n");
        assert_eq!(append("a\n", "c"), "a\nc\n");
        assert_eq!(append("", "c"), "c\n");
    }

    #[test]
    fn prepends_after_the_bom_and_the_frontmatter() {
        assert_eq!(prepend("---\nx: 1\n---\nbody\n", "top"), "---\nx: 1\n---\ntop\nbody\n");
        assert_eq!(prepend("\u{feff}body", "top"), "\u{feff}top\nbody");
        assert_eq!(prepend("---\r\nx: 1\r\n---", "top"), "---\r\nx: 1\r\n---\r\ntop\r\n");
        assert_eq!(prepend("body", "top\n"), "top\nbody");
    }
}
