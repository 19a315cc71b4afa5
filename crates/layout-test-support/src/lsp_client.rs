//! A small LSP client over stdio for tests and benchmarks of `layoutc lsp`:
//! requests wait for their answer (answering the server's own requests on
//! the way), notifications are kept for later reads.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct Client {
    pub child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications seen while waiting for responses.
    pub notifications: Vec<Value>,
}

/// The document most tests open.
pub const URI: &str = "file:///tmp/test.lay";
/// How long any answer may take before a test gives up.
pub const TIMEOUT: Duration = Duration::from_secs(60);

impl Client {
    /// `binary lsp`, initialized as a client with no capabilities.
    pub fn start(binary: &str) -> Client {
        Client::start_with(binary, json!({"capabilities": {}}))
    }

    /// `binary lsp` initialized with `params` (capabilities, processId),
    /// with the server's test hooks on.
    pub fn start_with(binary: &str, params: Value) -> Client {
        let mut child = Command::new(binary)
            .arg("lsp")
            .env("LAYOUTC_LSP_TEST_HOOKS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("layoutc lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            incoming,
            next_id: 1,
            notifications: Vec::new(),
        };
        client.request("initialize", params);
        client.notify("initialized", json!({}));
        client
    }

    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Bytes as they are, for frames no well-behaved client sends.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The whole response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if m["id"] == json!(id) && m.get("method").is_none() => return m,
                Ok(m) if m.get("id").is_some() && m.get("method").is_some() => {
                    // A request from the server (progress, configuration).
                    let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": null});
                    self.send(reply);
                }
                Ok(m) => self.notifications.push(m),
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {method} in {TIMEOUT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server died during {method}"),
            }
        }
    }

    /// The text of the hover at `line`, `character` of `uri`.
    pub fn hover_text(&mut self, uri: &str, line: usize, character: usize) -> String {
        let hover = self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(line, character)}),
        );
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits for the diagnostics of `version`.
    pub fn diagnostics(&mut self, version: i64) -> Value {
        let is_wanted = |n: &Value| {
            n["method"] == "textDocument/publishDiagnostics"
                && n["params"]["version"] == json!(version)
        };
        // The newest first: benchmarks wait for thousands of versions.
        if let Some(p) = self.notifications.iter().rev().find(|n| is_wanted(n)) {
            return p["params"]["diagnostics"].clone();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if is_wanted(&m) => {
                    let diagnostics = m["params"]["diagnostics"].clone();
                    self.notifications.push(m);
                    return diagnostics;
                }
                Ok(m) => self.notifications.push(m),
                Err(e) => panic!("no diagnostics for version {version}: {e:?}"),
            }
        }
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "lay", "version": 1, "text": text}}),
        );
    }

    /// How many times the server has run each query (a test hook).
    pub fn executions(&mut self, query: &str) -> u64 {
        let counts = self.request("layoutc/executionsForTest", Value::Null);
        counts["result"][query].as_u64().unwrap_or(0)
    }

    /// The labels of the inlay hints of the whole of `uri`.
    pub fn inlay_labels(&mut self, uri: &str) -> String {
        let hints = self.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": pos(0, 0), "end": pos(100, 0)}}),
        );
        hints["result"].to_string()
    }

    pub fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        let status = wait(&mut self.child);
        assert!(status.success(), "layoutc lsp exited with {status}");
    }
}

pub fn wait(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn pos(line: usize, character: usize) -> Value {
    json!({"line": line, "character": character})
}

/// An LSP frame around `body`, whatever the body is.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}
