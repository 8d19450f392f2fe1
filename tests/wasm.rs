//! The wasm binding layer, run in Node by wasm-bindgen-test (`scripts/test.sh`): plain objects in and
//! out, readable JS errors, the same answers as the core.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, JSON, Object, Reflect};
use scholia::wasm;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const NOTE: &str = include_str!("../examples/vault/References/@kim2020spacing.md");
const OTHER: &str = include_str!("../examples/vault/References/@ruiz2021forgetting.md");

fn json(text: &str) -> JsValue {
    JSON::parse(text).expect("valid JSON in the test")
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).expect("an object")
}

fn string(value: &JsValue, key: &str) -> String {
    get(value, key).as_string().unwrap_or_else(|| panic!("{key} is not a string"))
}

fn note(text: &str, path: &str, link: &str) -> JsValue {
    let object = Object::new();
    Reflect::set(&object, &"text".into(), &text.into()).unwrap();
    Reflect::set(&object, &"path".into(), &path.into()).unwrap();
    Reflect::set(&object, &"link".into(), &link.into()).unwrap();
    object.into()
}

fn error_message(error: wasm_bindgen::JsError) -> String {
    let value: JsValue = error.into();
    value.dyn_into::<js_sys::Error>().expect("a JS Error").message().into()
}

#[wasm_bindgen_test]
fn results_are_plain_objects() {
    let info = wasm::describe_note(NOTE, "References/@kim2020spacing.md", JsValue::UNDEFINED).unwrap();
    assert_eq!(Object::get_prototype_of(&info), Object::get_prototype_of(&Object::new()));
    assert_eq!(get(&info, "isAnnotation"), JsValue::TRUE);
    assert_eq!(string(&info, "citekey"), "kim2020spacing");
    assert!(get(&info, "annotations").as_f64().unwrap() > 0.0);
    let parsed = wasm::parse_note(NOTE, "/v/References/@kim2020spacing.md", JsValue::NULL).unwrap();
    let annotations: Array = get(&parsed, "annotations").dyn_into().unwrap();
    assert!(annotations.length() > 0);
    assert_eq!(Object::get_prototype_of(&annotations.get(0)), Object::get_prototype_of(&Object::new()));
}

#[wasm_bindgen_test]
fn summary_and_synthesis_with_name_variables() {
    let settings = json(r#"{"date": "2024-01-15", "nameDate": "15.01.2024"}"#);
    let summary =
        wasm::summarize(note(NOTE, "References/@kim2020spacing.md", "@kim2020spacing"), settings.clone())
            .unwrap();
    assert!(string(&summary, "markdown").contains("[[@kim2020spacing"));
    let vars = get(&summary, "vars");
    assert_eq!(string(&vars, "citekey"), "kim2020spacing");
    assert_eq!(string(&vars, "date"), "15.01.2024");

    let notes = Array::of2(
        &note(NOTE, "References/@kim2020spacing.md", "@kim2020spacing"),
        &note(OTHER, "References/@ruiz2021forgetting.md", "@ruiz2021forgetting"),
    );
    let synthesis = wasm::synthesize(notes.into(), settings).unwrap();
    let markdown = string(&synthesis, "markdown");
    assert!(markdown.contains("[[@kim2020spacing") && markdown.contains("[[@ruiz2021forgetting"));
    assert_eq!(string(&get(&synthesis, "vars"), "theme"), string(&synthesis, "title"));
}

#[wasm_bindgen_test]
fn names_never_overwrite() {
    let vars = json(r#"{"theme": "Spacing: effects?", "date": "2024-01-15"}"#);
    let existing = vec!["Synthesis/Synthesis - Spacing effects - 2024-01-15.md".to_string()];
    let path = wasm::result_path("Synthesis", "Synthesis - {{theme}} - {{date}}", vars, existing).unwrap();
    assert_eq!(path, "Synthesis/Synthesis - Spacing effects - 2024-01-15 1.md");
    let refused = wasm::result_path(".obsidian", "x", JsValue::UNDEFINED, vec![]).unwrap_err();
    assert!(error_message(refused).contains("protected"));
}

#[wasm_bindgen_test]
fn bad_input_is_a_readable_error() {
    let err = wasm::summarize(json(r#"{"text": 3}"#), JsValue::UNDEFINED).unwrap_err();
    assert!(error_message(err).starts_with("the note is not valid"));
    let err = wasm::synthesize(Array::new().into(), JsValue::UNDEFINED).unwrap_err();
    assert!(error_message(err).contains("at least one annotation note"));
    let err = wasm::is_annotation_note(NOTE, json(r#"{"colors": 5}"#)).unwrap_err();
    assert!(error_message(err).starts_with("settings are not valid"));
}

#[wasm_bindgen_test]
fn settings_problems_are_named() {
    let problems = wasm::validate_settings(json(
        r##"{"colors": {"entries": [{"hex": "#12345z", "name": "positive"}]}, "synthesisFolder": ".obsidian/x", "summaryPattern": " "}"##,
    ))
    .unwrap();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems[0].contains("#12345z"));
    assert!(wasm::validate_settings(wasm::default_settings().unwrap()).unwrap().is_empty());
}

#[wasm_bindgen_test]
fn links_of_a_selection() {
    let links =
        wasm::note_links("See [[@kim2020spacing#Results|here]], `[[code]]`, [web](https://x.org).").unwrap();
    let links: Array = links.dyn_into().unwrap();
    assert_eq!(links.length(), 1);
    assert_eq!(string(&links.get(0), "target"), "@kim2020spacing");
    assert_eq!(string(&links.get(0), "subpath"), "Results");
}

const FAMILY_SETTINGS: &str = include_str!(
    "cases/families/category_callout_persist/.obsidian/plugins/obsidian-zotero-desktop-connector/data.json"
);
const FAMILY_TEMPLATE: &str = include_str!("cases/families/category_callout_persist/Templates/zotero.md");
const FAMILY_NOTE: &str =
    include_str!("cases/families/category_callout_persist/References/okaforCoastalSensorDrift2022.md");

/// `loadSetup` over rounds, as the plugin calls it: each answer names the files still to read.
#[wasm_bindgen_test]
fn the_setup_is_read_in_rounds_and_then_reads_notes_with_the_template() {
    let before = wasm::parse_note(FAMILY_NOTE, "References/n.md", JsValue::NULL).unwrap();
    assert_eq!(string(&before, "template"), "anchored");
    let files = Object::new();
    let needs = |files: &Object| -> Vec<String> {
        let answer = wasm::load_setup(files.clone().into(), ".obsidian").unwrap();
        let needs: Array = get(&answer, "needs").dyn_into().unwrap();
        needs.iter().map(|n| n.as_string().unwrap()).collect()
    };
    let first = needs(&files);
    assert!(
        first.contains(&".obsidian/plugins/obsidian-zotero-desktop-connector/data.json".to_string()),
        "{first:?}"
    );
    for path in &first {
        let text: JsValue = if path.ends_with("obsidian-zotero-desktop-connector/data.json") {
            FAMILY_SETTINGS.into()
        } else {
            JsValue::NULL
        };
        Reflect::set(&files, &path.as_str().into(), &text).unwrap();
    }
    assert_eq!(needs(&files), ["Templates/zotero.md"]);
    Reflect::set(&files, &"Templates/zotero.md".into(), &FAMILY_TEMPLATE.into()).unwrap();
    assert!(needs(&files).is_empty());
    let after = wasm::parse_note(FAMILY_NOTE, "References/n.md", JsValue::NULL).unwrap();
    assert_eq!(string(&after, "template"), "user_template");
    let bad = wasm::load_setup(json(r#"{"x": 3}"#), ".obsidian").map(|_| ()).unwrap_err();
    assert!(error_message(bad).contains("the setup files are not valid"));
    // A vault with no setup at all: complete at once, and notes are read with the built-in rules.
    let none = Object::new();
    for path in first {
        Reflect::set(&none, &path.as_str().into(), &JsValue::NULL).unwrap();
    }
    assert!(needs(&none).is_empty());
    let plain = wasm::parse_note(FAMILY_NOTE, "References/n.md", JsValue::NULL).unwrap();
    assert_eq!(string(&plain, "template"), "anchored");
}
