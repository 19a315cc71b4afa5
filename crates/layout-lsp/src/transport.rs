//! The wire in front of tower-lsp-server. Its codec ends the session at the
//! first frame it cannot decode (invalid UTF-8, a lone surrogate escape,
//! broken JSON, an absurd `Content-Length`), and a client that restarts a
//! dying server a few times then gives up on it. So frames are read here:
//! one that is not a JSON-RPC message is answered with the error the
//! protocol names (-32700 parse error, -32600 invalid request) and the
//! session goes on with the next frame; only well-formed messages reach the
//! server.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::Mutex;

/// The largest message accepted (a document of 256 MiB is not a layout
/// file); a larger `Content-Length` is answered as a parse error.
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// The longest header line read; a longer one is not LSP.
const MAX_HEADER_LINE: u64 = 8 << 10;

/// JSON-RPC's codes for a frame that is not JSON, and for JSON that is not
/// a request, a notification or a response.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// One frame read from the client.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A well-formed message's JSON body, for the server.
    Message(Vec<u8>),
    /// The error response owed for a frame that was not one, for the client.
    Rejected(Vec<u8>),
}

/// Reads frames one by one; after a broken header it skips to the next
/// `Content-Length` line, since nothing else says where a message starts.
pub struct FrameReader<R> {
    input: R,
    resyncing: bool,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    pub fn new(input: R) -> Self {
        FrameReader {
            input,
            resyncing: false,
        }
    }

    /// The next frame, or `None` at the end of the input (also in the middle
    /// of a frame: there is nobody left to answer).
    pub async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        let mut length: Option<usize> = None;
        let mut broken: Option<&'static str> = None;
        let mut headers = 0usize;
        loop {
            let mut line = Vec::new();
            (&mut self.input)
                .take(MAX_HEADER_LINE)
                .read_until(b'\n', &mut line)
                .await?;
            if line.is_empty() {
                return Ok(None);
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            let content_length = text
                .split_once(':')
                .filter(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
                .map(|(_, value)| value.trim().to_string());
            if self.resyncing && content_length.is_none() {
                continue;
            }
            self.resyncing = false;
            if text.is_empty() {
                if headers == 0 {
                    // A stray blank line between frames.
                    continue;
                }
                break;
            }
            headers += 1;
            if !line.ends_with(b"\n") {
                broken.get_or_insert("a header line that never ends");
            }
            match content_length {
                Some(value) => match value.parse::<usize>() {
                    Ok(n) if n <= MAX_MESSAGE_BYTES => length = Some(n),
                    Ok(_) | Err(_) => {
                        broken.get_or_insert("a Content-Length that is not a size up to 256 MiB");
                    }
                },
                None if !text.contains(':') => {
                    broken.get_or_insert("a header line that is not `Name: value`");
                }
                None => {}
            }
        }
        let length = match (broken, length) {
            (None, Some(length)) => length,
            (broken, _) => {
                self.resyncing = true;
                let why = broken.unwrap_or("a header without Content-Length");
                return Ok(Some(Frame::Rejected(error_response(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("unreadable frame: {why}"),
                ))));
            }
        };
        let mut body = vec![0; length];
        if self.input.read_exact(&mut body).await.is_err() {
            return Ok(None);
        }
        Ok(Some(check_message(&body)))
    }
}

/// The body as the server should see it, or the error owed for it.
pub fn check_message(body: &[u8]) -> Frame {
    let Ok(text) = std::str::from_utf8(body) else {
        return Frame::Rejected(error_response(
            Value::Null,
            PARSE_ERROR,
            "the message is not UTF-8",
        ));
    };
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        // A client that splits an emoji across two edits sends each half as
        // an escape of its own; the text is kept, each half read as U+FFFD
        // (one UTF-16 unit, like the half it replaces, so positions hold).
        Err(first) => match serde_json::from_str::<Value>(&replace_lone_surrogates(text)) {
            Ok(value) => value,
            Err(_) => {
                return Frame::Rejected(error_response(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("the message is not JSON: {first}"),
                ));
            }
        },
    };
    match message_error(&value) {
        None => Frame::Message(serde_json::to_vec(&value).unwrap_or_default()),
        Some(why) => {
            let id = value
                .get("id")
                .filter(|id| id.is_number() || id.is_string())
                .cloned()
                .unwrap_or(Value::Null);
            Frame::Rejected(error_response(id, INVALID_REQUEST, why))
        }
    }
}

/// Why `value` is not a JSON-RPC 2.0 request, notification or response.
fn message_error(value: &Value) -> Option<&'static str> {
    let Some(object) = value.as_object() else {
        return Some("a message is a JSON object");
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some("a message says \"jsonrpc\": \"2.0\"");
    }
    let id_ok = |id: Option<&Value>| {
        id.is_none_or(|id| id.is_null() || id.is_string() || id.as_i64().is_some())
    };
    if !id_ok(object.get("id")) {
        return Some("an id is an integer or a string");
    }
    match object.get("method") {
        Some(Value::String(_)) => {
            let params_ok = object
                .get("params")
                .is_none_or(|p| p.is_object() || p.is_array() || p.is_null());
            (!params_ok).then_some("params are an object or an array")
        }
        Some(_) => Some("a method is a string"),
        None if object.contains_key("id")
            && (object.contains_key("result") || object.contains_key("error")) =>
        {
            None
        }
        None => Some("a message has a method, or an id and a result or error"),
    }
}

/// `text` with every `\uD800`–`\uDFFF` escape that is not half of a
/// surrogate pair replaced by `\uFFFD`.
fn replace_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let escape_at = |i: usize| -> Option<u16> {
        let digits = bytes.get(i + 2..i + 6)?;
        if bytes[i] != b'\\' || bytes[i + 1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(high @ 0xD800..=0xDBFF)
                if escape_at(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) =>
            {
                let _ = high;
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..i]);
                out.push_str("\\uFFFD");
                i += 6;
                copied = i;
            }
            // Any other escape, `\\` included, is two characters or more
            // that cannot start a surrogate.
            _ => i += 2,
        }
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// A JSON-RPC error response's body.
fn error_response(id: Value, code: i64, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default()
}

/// `body` with its LSP header.
fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Serves `service` over `input`/`output` through this layer until the
/// client exits or the input ends.
pub async fn serve<I, O, S>(
    input: I,
    output: O,
    service: tower_lsp_server::LspService<S>,
    socket: tower_lsp_server::ClientSocket,
) where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    S: tower_lsp_server::LanguageServer,
{
    // Frames for the client come from two writers, the server and the
    // rejections here; each writes whole frames under the lock.
    let output = Arc::new(Mutex::new(output));
    let (to_server, server_input) = tokio::io::duplex(1 << 16);
    let (server_output, from_server) = tokio::io::duplex(1 << 16);

    let rejections = output.clone();
    let reader = tokio::spawn(async move {
        let mut frames = FrameReader::new(tokio::io::BufReader::new(input));
        let mut to_server = to_server;
        while let Ok(Some(frame)) = frames.next().await {
            match frame {
                Frame::Message(body) => {
                    if to_server.write_all(&framed(&body)).await.is_err() {
                        break;
                    }
                }
                Frame::Rejected(body) => {
                    let mut out = rejections.lock().await;
                    if out.write_all(&framed(&body)).await.is_err() || out.flush().await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `to_server` ends the server's input.
    });

    let answers = output.clone();
    let pump = tokio::spawn(async move {
        // The server writes well-formed frames; they are passed on whole.
        let mut frames = FrameReader::new(tokio::io::BufReader::new(from_server));
        while let Ok(Some(Frame::Message(body) | Frame::Rejected(body))) = frames.next().await {
            let mut out = answers.lock().await;
            if out.write_all(&framed(&body)).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });

    tower_lsp_server::Server::new(server_input, server_output, socket)
        .serve(service)
        .await;
    // The server's output is closed now: let the last answers out.
    let _ = pump.await;
    reader.abort();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(wire: &[u8]) -> Vec<Frame> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = FrameReader::new(wire);
            let mut frames = Vec::new();
            while let Some(frame) = reader.next().await.unwrap() {
                frames.push(frame);
            }
            frames
        })
    }

    fn frame(body: &[u8]) -> Vec<u8> {
        framed(body)
    }

    fn code(frame: &Frame) -> Option<i64> {
        match frame {
            Frame::Rejected(body) => {
                serde_json::from_slice::<Value>(body).unwrap()["error"]["code"].as_i64()
            }
            Frame::Message(_) => None,
        }
    }

    const PING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;

    #[test]
    fn a_bad_frame_is_answered_and_the_next_one_is_read() {
        let bad: [(&[u8], i64); 7] = [
            (b"{\"bad json", PARSE_ERROR),
            (
                b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\xff\xfe\"}",
                PARSE_ERROR,
            ),
            (b"{}", INVALID_REQUEST),
            (b"[]", INVALID_REQUEST),
            (
                br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
                INVALID_REQUEST,
            ),
            (br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#, INVALID_REQUEST),
            (br#"{"jsonrpc":"2.0","id":3}"#, INVALID_REQUEST),
        ];
        for (body, expected) in bad {
            let mut wire = frame(body);
            wire.extend(frame(PING));
            let frames = read_all(&wire);
            assert_eq!(frames.len(), 2, "{}", String::from_utf8_lossy(body));
            assert_eq!(code(&frames[0]), Some(expected));
            assert_eq!(
                frames[1],
                Frame::Message(
                    serde_json::to_vec(&serde_json::from_slice::<Value>(PING).unwrap()).unwrap()
                )
            );
        }
    }

    #[test]
    fn a_broken_header_skips_to_the_next_content_length() {
        for header in [
            &b"Content-Length: 99999999999999999999\r\n\r\n{}"[..],
            b"Content-Length: -4\r\n\r\n{}",
            b"garbage without a colon\r\n\r\n",
            b"Content-Type: x\r\n\r\n{}",
        ] {
            let mut wire = header.to_vec();
            wire.extend(b"\r\n");
            wire.extend(frame(PING));
            let frames = read_all(&wire);
            assert_eq!(frames.len(), 2, "{}", String::from_utf8_lossy(header));
            assert_eq!(code(&frames[0]), Some(PARSE_ERROR));
            assert!(matches!(frames[1], Frame::Message(_)));
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let body = br#"{"jsonrpc":"2.0","method":"m","params":{"text":"a\ud800b \\ud800 \ud83d\ude00 \udc00"}}"#;
        let [Frame::Message(message)] = &read_all(&frame(body))[..] else {
            panic!("not read")
        };
        let value: Value = serde_json::from_slice(message).unwrap();
        assert_eq!(
            value["params"]["text"],
            "a\u{FFFD}b \\ud800 \u{1F600} \u{FFFD}"
        );
    }

    #[test]
    fn a_frame_cut_by_the_end_of_input_ends_reading() {
        let mut wire = frame(PING);
        wire.extend(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"");
        assert_eq!(read_all(&wire).len(), 1);
    }
}
