//! Annotation notes that say nothing of `category:` (fixture `tests/fixtures/zotero_paths/`):
//! known by their export format's note path, an inline field or their annotations. The listing,
//! the citekey lookup, `scholia doctor` and `obsidian_check_status`.

use scholia::annotations::ParseOptions;
use scholia::library;
use scholia::vault::{FsVault, VaultPath};

/// Every annotation note of the fixture and the citekey it is listed by.
const NOTES: [(&str, &str); 4] = [
    ("Inbox/Salt marsh reading.md", "baptiste2020marsh"),
    ("Literature/@ferrand2018moss.md", "ferrand2018moss"),
    ("Literature/@nguyen2021tides.md", "nguyen2021tides"),
    ("Reading/okoro2019lichens.md", "okoro2019lichens"),
];

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::check::copy_dir(&crate::check::root().join("tests/fixtures/zotero_paths"), dir.path());
    dir
}

fn options(vault: &FsVault) -> (ParseOptions, library::setup::Setup) {
    let setup = library::setup::discover(vault, None);
    (setup.parse_options(&[]), setup)
}

#[test]
fn notes_named_by_the_note_path_are_listed_with_their_citekeys() {
    let dir = vault();
    let vault = FsVault::open(dir.path()).unwrap();
    let (with_templates, _) = options(&vault);
    for options in [with_templates, ParseOptions::default()] {
        let listed = library::list_annotation_files(&vault, &VaultPath::root(), &[], &options).unwrap();
        let keys: Vec<(&str, &str)> = listed.iter().map(|f| (f.path.as_str(), f.citekey.as_str())).collect();
        // Not the template, not the project note that only cites two papers.
        assert_eq!(keys, NOTES);
        assert_eq!(listed[2].title, "Tidal mixing in shallow estuaries");
    }
    let tagged = library::list_annotation_files(
        &vault,
        &VaultPath::new("Reading").unwrap(),
        &["lichens".to_string()],
        &ParseOptions::default(),
    )
    .unwrap();
    assert_eq!(tagged.len(), 1);
}

#[test]
fn every_listed_note_is_found_by_the_citekey_it_is_listed_by() {
    let dir = vault();
    let vault = FsVault::open(dir.path()).unwrap();
    let (options, setup) = options(&vault);
    let root = VaultPath::root();
    for (path, key) in NOTES {
        let found = library::find_by_citekey(&vault, &root, key).unwrap();
        assert_eq!(found.as_ref().map(VaultPath::as_str), Some(path), "{key}");
        let upper = key.to_uppercase();
        let found = library::find_annotation_note(&vault, &root, &upper, &options, &setup.patterns).unwrap();
        assert_eq!(found.as_ref().map(VaultPath::as_str), Some(path), "{upper}");
    }
    // An ordinary note is not found by its name, nor the template by its own.
    assert_eq!(library::find_by_citekey(&vault, &root, "Field season").unwrap(), None);
    assert_eq!(library::find_by_citekey(&vault, &root, "Paper").unwrap(), None);
}

#[cfg(feature = "mcp")]
mod binary {
    use std::process::Command;

    use serde_json::{Value, json};

    fn doctor(vault: &std::path::Path, json: bool) -> String {
        let mut args = vec!["doctor", "--vault", vault.to_str().unwrap()];
        if json {
            args.push("--json");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_scholia"))
            .args(&args)
            .current_dir(vault)
            .env_remove("OBSIDIAN_VAULT_PATH")
            .env("XDG_CONFIG_HOME", vault.join("no-config"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn doctor_reports_the_template_and_flags_a_note_without_annotations() {
        let dir = super::vault();
        let text = doctor(dir.path(), true);
        let report: Value = serde_json::from_str(&text).unwrap();
        let setup = &report["setup"];
        assert_eq!(setup["plugin_settings"], library_settings());
        assert_eq!(setup["output_paths"], json!(["Literature/@{{citekey}}.md", "Reading/{{citekey}}.md"]));
        let template = &setup["templates"][0];
        assert_eq!(
            (&template["path"], &template["found_in"]),
            (&json!("Templates/Paper.md"), &json!("data.json"))
        );
        assert_eq!((&template["compiled"], &template["loops"]), (&json!(true), &json!(1)), "{template}");
        let notes: Vec<(&str, &str)> = report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["path"].as_str().unwrap(), n["citekey"].as_str().unwrap()))
            .collect();
        assert_eq!(notes, super::NOTES);
        let okoro = &report["notes"][3];
        assert_eq!(okoro["citekey_from"], "note path Reading/{{citekey}}.md");
        assert_eq!(okoro["annotations"], 1);
        assert_eq!(report["notes"][0]["citekey_from"], "inline field");
        assert_eq!(
            report["flagged"],
            json!([{"path": "Literature/@ferrand2018moss.md", "listed": true, "annotation_links": 2, "image_embeds": 0}])
        );
        assert_eq!(report["summary"]["annotation_notes"], 4);
        assert_eq!(report["summary"]["flagged"], 1);
        let human = doctor(dir.path(), false);
        assert!(human.contains("Templates/Paper.md (from data.json): compiled"), "{human}");
        assert!(human.trim_end().ends_with("1 of 1 template compiled; 1 note flagged."), "{human}");
        // Neither the settings' nor the template's text is ever printed.
        for output in [&text, &human] {
            assert!(!output.contains("PRIVATE-SETTING") && !output.contains("PRIVATE-TEMPLATE"), "{output}");
        }
    }

    fn library_settings() -> Value {
        json!(scholia::library::setup::PLUGIN_SETTINGS)
    }

    #[tokio::test]
    async fn status_and_annotation_tools_use_the_note_paths() {
        use crate::mcp_client::Tools;
        use rmcp::ServiceExt;

        let dir = super::vault();
        let config = crate::mcp_client::config(dir.path(), None);
        let server = scholia::mcp::Scholia::new(scholia::mcp::Settings::new(config)).unwrap();
        let client = ().serve(crate::mcp_client::serve(server)).await.unwrap();
        let status = client.ok("obsidian_check_status", json!({})).await;
        let zotero = &status["zotero_integration"];
        assert_eq!(zotero["output_paths"][1], "Reading/{{citekey}}.md");
        assert_eq!(zotero["templates"][0]["compiled"], true, "{zotero}");
        assert!(!status.to_string().contains("PRIVATE-"));
        let listed = client.ok("obsidian_list_annotation_files", json!({})).await;
        assert_eq!(listed["count"], 4);
        for (path, key) in super::NOTES {
            let read = client.ok("obsidian_read_annotations", json!({"citekey": key})).await;
            assert_eq!(read["path"], path, "{key}");
        }
    }
}

/// Zotero Integration's settings name the template the user writes new notes with; an older note
/// was written with the template beside it, which is read too.
#[test]
fn the_templates_beside_the_named_one_read_the_notes_they_wrote() {
    let settings = r#"{"exportFormats": [{"name": "Note", "templatePath": "Meta/Templates/Current.md",
        "outputPathTemplate": "Sources/@{{citekey}}.md"}]}"#;
    let current = "{% for a in annotations %}\n> [!quote] {{a.annotatedText}}\n{% endfor %}\n";
    let older = "{% for a in annotations %}\n{% if a.color == \"#ff6666\" %}\n- ! {{a.annotatedText}} [(p. {{a.page}})]({{a.desktopURI}})\n{% else %}\n- ~ {{a.annotatedText}} [(p. {{a.page}})]({{a.desktopURI}})\n{% endif %}\n{% endfor %}\n";
    let note = "# Moss\n\n- ! Moss dries out within hours [(p. 3)](zotero://open-pdf/library/items/K1?page=3&annotation=A1)\n- ~ and recovers overnight [(p. 4)](zotero://open-pdf/library/items/K1?page=4&annotation=A2)\n";
    let vault = scholia::vault::MemVault::with_files([
        (".obsidian/plugins/obsidian-zotero-desktop-connector/data.json", settings),
        ("Meta/Templates/Current.md", current),
        ("Meta/Templates/Older.md", older),
        ("Sources/@moss.md", note),
    ])
    .unwrap();
    let setup = library::setup::discover(&vault, None);
    let names: Vec<&str> = setup.report.templates.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(names, ["Meta/Templates/Current.md", "Meta/Templates/Older.md"]);
    let doc = scholia::annotations::parse(note, "Sources/@moss.md", &setup.parse_options(&[]));
    let read: Vec<(Option<&str>, Option<&str>)> =
        doc.annotations.iter().map(|a| (a.text.as_deref(), a.color_hex.as_deref())).collect();
    assert_eq!(
        read,
        [(Some("Moss dries out within hours"), Some("#ff6666")), (Some("and recovers overnight"), None)]
    );
}
