//! Every tool call answers: a call runs on its own task, so a panic inside it becomes a tool
//! error that says so, instead of a request the client waits on forever.

use std::any::Any;

use rmcp::ErrorData as McpError;
use rmcp::model::CallToolResponse;

use super::reply::fail;

/// Aborts the task when the call is dropped (the client cancelled it), as the call would have
/// stopped had it run in place.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `call` (the tool `tool`) on a task of its own and answers for it: its own answer, or a
/// tool error when it panicked.
pub async fn guarded<F>(tool: &str, call: F) -> Result<CallToolResponse, McpError>
where
    F: Future<Output = Result<CallToolResponse, McpError>> + Send + 'static,
{
    let mut task = AbortOnDrop(tokio::spawn(call));
    match (&mut task.0).await {
        Ok(answer) => answer,
        Err(e) if e.is_panic() => Ok(fail(format!(
            "{tool} stopped on an internal error ({}); nothing after it was done. This is a bug in Scholia: \
             please report it with the arguments; meanwhile try other arguments or another tool",
            panic_message(e.into_panic().as_ref())
        ))
        .into()),
        Err(_) => Err(McpError::internal_error(format!("{tool} was cancelled"), None)),
    }
}

/// The text a panic was raised with.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    match payload.downcast_ref::<&'static str>() {
        Some(text) => text,
        None => payload.downcast_ref::<String>().map_or("no message", String::as_str),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_a_tool_error() {
        let call = async { panic!("index out of bounds") };
        let Ok(CallToolResponse::Complete(result)) = guarded("obsidian_search", call).await else {
            panic!("the call should have answered with a tool error");
        };
        assert_eq!(result.is_error, Some(true));
        let error = result.structured_content.unwrap()["error"].as_str().unwrap().to_string();
        assert!(
            error.starts_with("obsidian_search stopped on an internal error (index out of bounds)"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn an_answer_passes_through() {
        let call = async { Ok(fail("no such note").into()) };
        let Ok(CallToolResponse::Complete(result)) = guarded("read_note", call).await else { panic!() };
        assert_eq!(result.structured_content.unwrap()["error"], "no such note");
    }
}
