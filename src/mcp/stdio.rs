//! The stdio transport, with a line reader in front of the protocol: every line gets an answer.
//! A line over [`MAX_LINE`], text that is not JSON, and JSON that is no JSON-RPC message are
//! answered with a JSON-RPC error (`-32600` invalid request, `-32700` parse error) carrying the
//! request's id when it can be read, where rmcp's own stdio transport would drop them silently.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::{Deserializer as _, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest request line read (rmcp's own limit); longer ones are answered with an error.
pub const MAX_LINE: usize = 16 << 20;
/// How much of an oversized line is kept to read its id from.
const KEPT: usize = 64 << 10;

/// JSON-RPC over newline-delimited stdio (or any reader and writer).
pub struct Stdio<R, W> {
    lines: Lines<R>,
    out: Arc<Mutex<W>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Stdio<R, W> {
    /// Reads requests from `read` and writes answers to `write`.
    pub fn new(read: R, write: W) -> Self {
        Stdio {
            lines: Lines { read: BufReader::new(read), buf: Vec::new(), oversized: false },
            out: Arc::new(Mutex::new(write)),
        }
    }
}

/// Writes `message` as one line.
async fn write_line<W: AsyncWrite + Unpin>(
    out: Arc<Mutex<W>>,
    message: TxJsonRpcMessage<RoleServer>,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(&message)?;
    line.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&line).await?;
    out.flush().await
}

impl<R, W> Transport<RoleServer> for Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        write_line(self.out.clone(), item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let answer = match self.lines.next().await? {
                Line::Whole(line) => match read_message(&line) {
                    Read::Message(message) => return Some(*message),
                    Read::Skip => continue,
                    Read::Answer(answer) => *answer,
                },
                Line::Oversized(kept) => oversized(&kept),
            };
            // Written on its own task: `receive` may be cancelled, a half-written line may not.
            tokio::spawn(write_line(self.out.clone(), answer));
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.lock().await.shutdown().await
    }
}

/// What one line holds.
enum Read {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to answer: a blank line, a notification or a response that is not understood.
    Skip,
    /// The error to answer with.
    Answer(Box<TxJsonRpcMessage<RoleServer>>),
}

fn read_message(line: &[u8]) -> Read {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line).trim_ascii();
    if line.is_empty() {
        return Read::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            let error = ErrorData::parse_error(
                format!("the request is not JSON ({e}); send one JSON-RPC message per line"),
                None,
            );
            return Read::Answer(Box::new(JsonRpcMessage::error(error, None)));
        }
    };
    let id = value.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let is_request = value.get("method").is_some();
    match serde_json::from_value(value) {
        Ok(message) => Read::Message(Box::new(message)),
        // Notifications and responses are never answered (rmcp ignores the ones it does not know).
        Err(_) if id.is_none() && is_request => Read::Skip,
        Err(_) if !is_request && id.is_some() => Read::Skip,
        Err(e) => {
            let error =
                ErrorData::invalid_request(format!("the request is not a valid JSON-RPC message: {e}"), None);
            Read::Answer(Box::new(JsonRpcMessage::error(error, id)))
        }
    }
}

/// The answer to a line over [`MAX_LINE`] (`kept` is its start).
fn oversized(kept: &[u8]) -> TxJsonRpcMessage<RoleServer> {
    let error = ErrorData::invalid_request(
        format!(
            "the request is over {} MiB, the most one message may hold; send less at once (split the content over several calls)",
            MAX_LINE >> 20
        ),
        None,
    );
    JsonRpcMessage::error(error, id_in_prefix(kept))
}

/// The `id` of a JSON object cut off after `prefix`, when the cut comes after it (clients write
/// `jsonrpc`, `id` and `method` before the `params`).
fn id_in_prefix(prefix: &[u8]) -> Option<RequestId> {
    let mut id = None;
    let _ = serde_json::Deserializer::from_slice(prefix).deserialize_map(IdOnly(&mut id));
    id
}

/// Reads an object's keys up to `id` and keeps its value; stops there (with an error, as the
/// object is not read to its end).
struct IdOnly<'a>(&'a mut Option<RequestId>);

impl<'de> Visitor<'de> for IdOnly<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                *self.0 = map.next_value().ok();
                return Err(A::Error::custom("the id is read"));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// One line read, with its `\n`.
enum Line {
    Whole(Vec<u8>),
    /// A line over [`MAX_LINE`]: its first [`KEPT`] bytes.
    Oversized(Vec<u8>),
}

/// Newline-delimited lines, never buffering more than [`MAX_LINE`] bytes. Cancel-safe: a line
/// read in part stays in `buf` for the next call.
struct Lines<R> {
    read: BufReader<R>,
    buf: Vec<u8>,
    oversized: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// The next line; `None` at the end of input (or when it cannot be read).
    async fn next(&mut self) -> Option<Line> {
        loop {
            let available = self.read.fill_buf().await.ok()?;
            if available.is_empty() {
                return None;
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |i| i + 1);
            if !self.oversized && self.buf.len() + take > MAX_LINE {
                self.oversized = true;
                self.buf.truncate(KEPT);
                self.buf.shrink_to_fit();
            }
            let keep = if self.oversized { take.min(KEPT.saturating_sub(self.buf.len())) } else { take };
            self.buf.extend_from_slice(&available[..keep]);
            self.read.consume(take);
            if newline.is_some() {
                let line = std::mem::take(&mut self.buf);
                return Some(if std::mem::take(&mut self.oversized) {
                    Line::Oversized(line)
                } else {
                    Line::Whole(line)
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        let Read::Answer(answer) = read_message(line.as_bytes()) else { panic!("{line}: no answer") };
        serde_json::to_value(answer).unwrap()
    }

    #[test]
    fn malformed_lines_are_answered_with_their_id() {
        let a = answer(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}"#);
        assert_eq!((a["id"].clone(), a["error"]["code"].clone()), (3.into(), (-32600).into()));
        let a = answer(r#"{"jsonrpc":"2.0","id":"#);
        assert_eq!((a.get("id"), a["error"]["code"].clone()), (None, (-32700).into()));
        assert!(matches!(
            read_message(br#"{"jsonrpc":"2.0","method":"notifications/x","params":1}"#),
            Read::Skip
        ));
        assert!(matches!(read_message(b"\r\n"), Read::Skip));
    }

    #[test]
    fn the_id_of_a_cut_request() {
        assert_eq!(
            id_in_prefix(br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"a":"xxx"#),
            Some(RequestId::String("big".into()))
        );
        assert_eq!(id_in_prefix(br#"{"jsonrpc":"2.0","params":{"id":1,"a":"xxx"#), None);
        assert_eq!(id_in_prefix(br#"{"jsonrpc":"2.0","method":"x","id":7}"#), Some(RequestId::Number(7)));
    }
}
