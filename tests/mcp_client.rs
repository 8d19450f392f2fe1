//! What every in-process MCP test shares: a server served over a pipe, and a client's calls
//! checked against the response contract.

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use scholia::mcp::Scholia;
use scholia::vault::config::Config;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The configuration of a test vault at `vault` (synthesis folder `Synthesis`).
pub fn config(vault: &std::path::Path, annotations_folder: Option<&str>) -> Config {
    Config {
        vault: vault.canonicalize().unwrap(),
        vault_source: "test".into(),
        annotations_folder: annotations_folder.map(String::from),
        synthesis_folder: "Synthesis".into(),
        template_path: None,
        colors: Vec::new(),
    }
}

/// A fresh copy of the example vault.
pub fn example_vault() -> tempfile::TempDir {
    let vault = tempfile::tempdir().unwrap();
    crate::check::copy_dir(&crate::check::root().join("examples/vault"), vault.path());
    vault
}

/// Serves `server` in the background; returns the client's end of the pipe.
pub fn serve(server: Scholia) -> tokio::io::DuplexStream {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client_io
}

/// Tool calls with the response contract checked: every answer is an object with `status` and
/// `success`, in the shape its tool's output schema declares, never over the 20 KB cap (plus a
/// little for the text rendering's keys).
pub trait Tools {
    /// The raw result of a call.
    async fn call(&self, tool: &str, args: Value) -> CallToolResult;

    /// The structured answer of a call that must succeed.
    async fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args).await;
        let value = result.structured_content.clone().unwrap_or_default();
        assert_ne!(result.is_error, Some(true), "{tool} failed: {value}");
        assert_eq!((&value["status"], &value["success"]), (&json!("ok"), &json!(true)), "{tool}: {value}");
        check_schema(tool, &value);
        assert!(serde_json::to_string(&value).unwrap().len() <= 21 * 1024, "{tool}: answer over the cap");
        check_text(tool, &result, &value);
        value
    }

    /// The error message of a call that must fail as a tool error.
    async fn err(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args).await;
        let value = result.structured_content.unwrap_or_default();
        assert_eq!(result.is_error, Some(true), "{tool} should have failed: {value}");
        assert_eq!(value["success"], false);
        check_schema(tool, &value);
        value["error"].as_str().unwrap_or_default().to_string()
    }
}

impl<C: rmcp::ClientHandler> Tools for RunningService<RoleClient, C> {
    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let args = args.as_object().cloned().unwrap_or_default();
        self.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)).await.unwrap()
    }
}

/// Checks `answer` against the output schema `tool` declares, made strict: every object the
/// schema describes field by field holds no other field, so a field added to an answer and not
/// to its schema fails as surely as one the schema promises and the answer lacks.
pub fn check_schema(tool: &str, answer: &Value) {
    static VALIDATORS: OnceLock<HashMap<String, [jsonschema::Validator; 2]>> = OnceLock::new();
    let validators = VALIDATORS.get_or_init(|| {
        scholia::mcp::tool_facts()
            .into_iter()
            .filter_map(|t| Some((t.name, t.output_schema?)))
            .map(|(name, schema)| {
                let mut schema = Value::Object((*schema).clone());
                strict(&mut schema);
                let compile = |schema: &Value| {
                    jsonschema::validator_for(schema)
                        .unwrap_or_else(|e| panic!("{name}: its output schema is not a JSON Schema: {e}"))
                };
                // The answer's branch alone too, for errors that say which field is wrong.
                let mut branch = schema.clone();
                if let Some(map) = branch.as_object_mut() {
                    map.remove("oneOf");
                    map.insert("allOf".into(), json!([schema["oneOf"][0]]));
                }
                let validators = [compile(&schema), compile(&branch)];
                (name, validators)
            })
            .collect()
    });
    let Some([whole, branch]) = validators.get(tool) else { return };
    if whole.is_valid(answer) {
        return;
    }
    let errors: Vec<String> =
        branch.iter_errors(answer).map(|e| format!("{}: {}", e.instance_path(), e)).collect();
    panic!("{tool}: the answer is not in its declared shape: {errors:#?}\n{answer}");
}

/// `schema` with `additionalProperties: false` on every object schema that lists its properties
/// and says nothing of others.
fn strict(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), json!(false));
            }
            map.values_mut().for_each(strict);
        }
        Value::Array(items) => items.iter_mut().for_each(strict),
        _ => {}
    }
}

/// The text rendering of an answer is complete and lean: the structured content as one line of
/// compact JSON, or for a note's text, the Markdown and then one such line with every other field.
fn check_text(tool: &str, result: &CallToolResult, value: &Value) {
    let text: String = result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect();
    let (markdown, line) = match value.get("content").and_then(Value::as_str) {
        Some(_) => text.rsplit_once('\n').unwrap_or(("", &text)),
        None => ("", text.as_str()),
    };
    assert!(!line.contains("\n  "), "{tool}: the text is pretty-printed");
    let mut rest: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("{tool}: the text is not JSON ({e}): {line}"));
    if let Some(content) = value.get("content").filter(|c| c.is_string()) {
        let content = content.as_str().unwrap_or_default();
        assert_eq!(
            markdown.trim_end_matches('\n'),
            content.trim_end_matches('\n'),
            "{tool}: the text is not the note's"
        );
        rest["content"] = json!(content);
    }
    assert_eq!(&rest, value, "{tool}: the text says something else than the structured content");
}

/// A client that supports elicitation and answers every question with its value.
#[derive(Clone)]
pub struct Approver(pub Value);

impl rmcp::ClientHandler for Approver {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder().enable_elicitation().build(),
            rmcp::model::Implementation::new("approver", "1"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _ctx: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
            .with_content(self.0.clone()))
    }
}

/// A client that supports elicitation: while the user is asked it runs `meanwhile` (an edit made
/// on disk during the question), then answers with `answer`; it counts the questions.
#[derive(Clone)]
pub struct Asker {
    /// The form's content the user answers with.
    pub answer: Value,
    /// What happens while the question is open.
    pub meanwhile: std::sync::Arc<dyn Fn() + Send + Sync>,
    /// How many questions were asked.
    pub asked: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Asker {
    /// A user who answers `answer` after `meanwhile` ran.
    pub fn new(answer: Value, meanwhile: impl Fn() + Send + Sync + 'static) -> Self {
        Self { answer, meanwhile: std::sync::Arc::new(meanwhile), asked: Default::default() }
    }

    /// How many questions were asked so far.
    pub fn asked(&self) -> usize {
        self.asked.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl rmcp::ClientHandler for Asker {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        Approver(Value::Null).get_info()
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _ctx: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        (self.meanwhile)();
        Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
            .with_content(self.answer.clone()))
    }
}
