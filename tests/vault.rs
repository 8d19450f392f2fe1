//! The vault layer: one behaviour suite run against `MemVault` and `FsVault`, plus what only the
//! file system can show (atomic writes, symlinks out of the vault) and the configuration lookup.

use scholia::vault::{FsVault, MemVault, Vault, VaultError, VaultPath, naming};

fn p(path: &str) -> VaultPath {
    VaultPath::new(path).unwrap()
}

/// The behaviour every vault shares.
fn suite(vault: &dyn Vault) {
    vault.create_new(&p("Notes/A.md"), "alpha").unwrap();
    vault.create_new(&p("Notes/Deep/B.md"), "beta").unwrap();
    vault.write(&p("Top.md"), "top").unwrap();

    // create_new never clobbers; write replaces.
    assert!(matches!(vault.create_new(&p("Notes/A.md"), "x"), Err(VaultError::AlreadyExists { .. })));
    assert_eq!(vault.read(&p("Notes/A.md")).unwrap(), "alpha");
    vault.write(&p("Notes/A.md"), "alpha 2").unwrap();
    assert_eq!(vault.read(&p("Notes/A.md")).unwrap(), "alpha 2");
    vault.append(&p("Notes/A.md"), "\nmore").unwrap();
    vault.append(&p("Notes/New.md"), "fresh").unwrap();
    assert_eq!(vault.read(&p("Notes/A.md")).unwrap(), "alpha 2\nmore");
    assert_eq!(vault.read(&p("Notes/New.md")).unwrap(), "fresh");

    // Listing: recursive, scoped, sorted; direct children with folders first.
    let all: Vec<String> =
        vault.list(&VaultPath::root()).unwrap().into_iter().map(|f| f.path.into()).collect();
    assert_eq!(all, ["Notes/A.md", "Notes/Deep/B.md", "Notes/New.md", "Top.md"]);
    let scoped = vault.list(&p("Notes/Deep")).unwrap();
    assert_eq!(scoped.len(), 1);
    assert_eq!(scoped[0].size, 4);
    let children: Vec<(String, bool)> =
        vault.list_dir(&p("Notes")).unwrap().into_iter().map(|e| (e.path.into(), e.is_dir)).collect();
    assert_eq!(
        children,
        [("Notes/Deep".into(), true), ("Notes/A.md".into(), false), ("Notes/New.md".into(), false)]
    );
    assert!(matches!(vault.list(&p("Missing")), Err(VaultError::NotFound { .. })));

    // Protected folders are never written.
    for bad in [".obsidian/app.json", ".git/config", ".trash/x.md"] {
        assert!(matches!(vault.write(&p(bad), "x"), Err(VaultError::Protected { .. })), "{bad}");
    }

    // Trash keeps the note, under a new name, out of the listings.
    let trashed = vault.trash(&p("Top.md")).unwrap();
    assert!(trashed.as_str().starts_with(".trash/Top "), "{trashed}");
    assert_eq!(vault.read(&trashed).unwrap(), "top");
    assert!(!vault.exists(&p("Top.md")));
    assert!(vault.list(&VaultPath::root()).unwrap().iter().all(|f| !f.path.as_str().starts_with(".trash")));
    // A trashed note can be restored; settings can never be moved.
    vault.rename(&trashed, &p("Top.md")).unwrap();
    assert_eq!(vault.read(&p("Top.md")).unwrap(), "top");
    assert!(matches!(
        vault.rename(&p(".obsidian/app.json"), &p("x.json")),
        Err(VaultError::Protected { .. })
    ));

    // Rename refuses to clobber.
    assert!(matches!(
        vault.rename(&p("Notes/A.md"), &p("Notes/New.md")),
        Err(VaultError::AlreadyExists { .. })
    ));
    vault.rename(&p("Notes/A.md"), &p("Archive/A.md")).unwrap();
    assert_eq!(vault.read(&p("Archive/A.md")).unwrap(), "alpha 2\nmore");
    assert!(matches!(vault.read(&p("Notes/A.md")), Err(VaultError::NotFound { .. })));

    // Results are numbered, never overwritten.
    let first =
        scholia::library::write_result(vault, "Synthesis", "Summary - {{title}}", &[("title", "X: Y")], "1")
            .unwrap();
    let second =
        scholia::library::write_result(vault, "Synthesis", "Summary - {{title}}", &[("title", "X: Y")], "2")
            .unwrap();
    assert_eq!(
        (first.as_str(), second.as_str()),
        ("Synthesis/Summary - X Y.md", "Synthesis/Summary - X Y 1.md")
    );
    assert_eq!(vault.read(&first).unwrap(), "1");
}

#[test]
fn mem_vault_keeps_the_promises() {
    suite(&MemVault::new());
}

#[test]
fn fs_vault_keeps_the_promises() {
    let dir = tempfile::tempdir().unwrap();
    let vault = FsVault::open(dir.path()).unwrap();
    suite(&vault);
    // Atomic writes leave no temporary files behind.
    let mut leftovers = Vec::new();
    for entry in walk(dir.path()) {
        if entry.ends_with(".tmp") {
            leftovers.push(entry);
        }
    }
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().is_dir() {
            out.extend(walk(&entry.path()));
        } else {
            out.push(entry.path().display().to_string());
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_vault_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("Escape")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("link.md")).unwrap();
    let vault = FsVault::open(dir.path()).unwrap();
    assert!(matches!(vault.read(&p("Escape/secret.md")), Err(VaultError::OutsideVault { .. })));
    assert!(matches!(vault.read(&p("link.md")), Err(VaultError::OutsideVault { .. })));
    assert!(matches!(vault.write(&p("Escape/new.md"), "x"), Err(VaultError::OutsideVault { .. })));
    assert!(matches!(vault.create_new(&p("Escape/new2.md"), "x"), Err(VaultError::OutsideVault { .. })));
    assert!(!outside.path().join("new.md").exists());
    let listed = vault.list(&VaultPath::root()).unwrap();
    assert!(listed.is_empty(), "{listed:?}");
}

/// Symlinks that stay in the vault are followed, relative or absolute; a relative one that
/// climbs out is refused like an absolute one.
#[cfg(unix)]
#[test]
fn symlinks_inside_the_vault_are_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("Notes/Deep")).unwrap();
    std::fs::write(root.join("Notes/Real.md"), "real").unwrap();
    std::os::unix::fs::symlink("../Real.md", root.join("Notes/Deep/relative.md")).unwrap();
    std::os::unix::fs::symlink(root.join("Notes/Real.md"), root.join("absolute.md")).unwrap();
    std::os::unix::fs::symlink(root.join("Notes"), root.join("Folder")).unwrap();
    let climb = format!("../{}/secret.md", outside.path().canonicalize().unwrap().display());
    std::os::unix::fs::symlink("../".repeat(root.components().count()) + &climb[3..], root.join("climb.md"))
        .unwrap();
    let vault = FsVault::open(&root).unwrap();
    assert_eq!(vault.read(&p("Notes/Deep/relative.md")).unwrap(), "real");
    assert_eq!(vault.read(&p("absolute.md")).unwrap(), "real");
    assert_eq!(vault.read(&p("Folder/Real.md")).unwrap(), "real");
    assert!(matches!(vault.read(&p("climb.md")), Err(VaultError::OutsideVault { .. })));
    assert!(matches!(vault.read(&p("Notes/Missing.md")), Err(VaultError::NotFound { .. })));
    assert!(matches!(vault.read(&p("Notes")), Err(VaultError::WrongKind { .. })));
}

#[test]
fn fs_vault_refuses_a_missing_root() {
    assert!(matches!(FsVault::open("/definitely/not/here"), Err(VaultError::NotAVault { .. })));
}

#[test]
fn naming_is_stable() {
    assert_eq!(naming::sanitize_stem("a/b\\c|d#e^f[g]"), "a b c d e f g");
}

#[cfg(feature = "mcp")]
mod config {
    use std::collections::HashMap;
    use std::path::Path;

    use scholia::vault::config::{ConfigError, Env, resolve};

    fn env(cwd: &Path, vars: &[(&str, &str)], config_dir: Option<&Path>) -> Env {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<HashMap<_, _>>(),
            cwd: cwd.to_path_buf(),
            config_dir: config_dir.map(Path::to_path_buf),
        }
    }

    #[test]
    fn precedence() {
        let root = tempfile::tempdir().unwrap();
        let (a, b, c, d) = ["a", "b", "c", "d"].map(|n| root.path().join(n)).into();
        for dir in [&a, &b, &c, &d] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(d.join(".obsidian")).unwrap();
        let work = d.join("sub/deeper");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::write(
            work.join(".zotero-mcp.toml"),
            format!("[obsidian]\nvault_path = {:?}\nsynthesis_folder = \"Out\"\n", c.display().to_string()),
        )
        .unwrap();

        let flag =
            resolve(Some(&a), &env(&work, &[("OBSIDIAN_VAULT_PATH", b.to_str().unwrap())], None)).unwrap();
        assert_eq!(flag.vault, a.canonicalize().unwrap());
        assert_eq!(flag.synthesis_folder, "Out");
        let var = resolve(
            None,
            &env(
                &work,
                &[("OBSIDIAN_VAULT_PATH", b.to_str().unwrap()), ("OBSIDIAN_SYNTHESIS_FOLDER", "S")],
                None,
            ),
        )
        .unwrap();
        assert_eq!((var.vault, var.synthesis_folder.as_str()), (b.canonicalize().unwrap(), "S"));
        let file = resolve(None, &env(&work, &[], None)).unwrap();
        assert_eq!(file.vault, c.canonicalize().unwrap());
        std::fs::remove_file(work.join(".zotero-mcp.toml")).unwrap();
        let ancestor = resolve(None, &env(&work, &[], None)).unwrap();
        assert_eq!(ancestor.vault, d.canonicalize().unwrap());
        assert_eq!(ancestor.synthesis_folder, "Synthesis");
        assert_eq!(resolve(None, &env(&a, &[], None)), Err(ConfigError::NoVault));
        let missing = resolve(Some(&root.path().join("nope")), &env(&a, &[], None));
        assert!(matches!(missing, Err(ConfigError::NotAFolder { .. })));
    }
}

/// A vault with many folders is listed on every core: every file once, hidden ones left out,
/// in path order.
#[test]
fn many_folders_are_listed_once_each_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for a in 0..12 {
        for b in 0..4 {
            let folder = format!("F{a:02}/Sub{b}/Deep");
            std::fs::create_dir_all(dir.path().join(&folder)).unwrap();
            for (i, name) in ["x.md", "y.png"].iter().enumerate() {
                let path = if i == 0 { format!("F{a:02}/Sub{b}/{name}") } else { format!("{folder}/{name}") };
                std::fs::write(dir.path().join(&path), "x").unwrap();
                expected.push(path);
            }
            std::fs::write(dir.path().join(format!("{folder}/.hidden.md")), "x").unwrap();
        }
    }
    std::fs::create_dir_all(dir.path().join(".obsidian/plugins")).unwrap();
    std::fs::write(dir.path().join(".obsidian/plugins/a.md"), "x").unwrap();
    std::fs::write(dir.path().join("Top.md"), "x").unwrap();
    expected.push("Top.md".to_string());
    expected.sort();
    let vault = FsVault::open(dir.path()).unwrap();
    for _ in 0..5 {
        let listed: Vec<String> =
            vault.list(&VaultPath::root()).unwrap().into_iter().map(|f| f.path.to_string()).collect();
        assert_eq!(listed, expected);
    }
    let scoped: Vec<String> =
        vault.list(&p("F03")).unwrap().into_iter().map(|f| f.path.to_string()).collect();
    assert_eq!(scoped.len(), 8);
    assert!(scoped.iter().all(|p| p.starts_with("F03/")));
}
