//! `layoutc lsp` end to end: the real binary driven over stdio by a small
//! JSON-RPC client. A burst of incremental edits lands in order, positions
//! are UTF-16 on lines with non-ASCII text, a panic inside one request is
//! answered with an error, no example crashes any feature, and no frame a
//! client can send ends the session.

use std::process::Command;
use std::time::{Duration, Instant};

use layout_test_support::lsp_client::{Client, URI, frame, pos, wait};
use serde_json::{Value, json};

const LAYOUTC: &str = env!("CARGO_BIN_EXE_layoutc");

/// A server with no client capabilities.
fn start() -> Client {
    Client::start(LAYOUTC)
}

/// A server initialized with `params`.
fn start_with(params: Value) -> Client {
    Client::start_with(LAYOUTC, params)
}

#[test]
fn a_burst_of_200_incremental_edits_lands_in_order() {
    let mut c = start();
    c.open(URI, "let v0 = 0\n");
    // Each edit appends a line where only the previous edits put text: an
    // edit applied out of order would land on the wrong line.
    for i in 1..=200 {
        let line = if i == 200 {
            "check v199 == missing_name\n".to_string()
        } else {
            format!("let v{i} = v{} + 1\n", i - 1)
        };
        c.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": URI, "version": i + 1},
                "contentChanges": [{"range": {"start": pos(i, 0), "end": pos(i, 0)}, "text": line}],
            }),
        );
    }
    let diagnostics = c.diagnostics(201);
    assert_eq!(
        diagnostics
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{} {} {}", d["code"], d["range"]["start"], d["message"]))
            .collect::<Vec<_>>(),
        [r#""E0101" {"line":200,"character":14} "undefined name `missing_name`""#]
    );
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let names: Vec<String> = symbols["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, (0..200).map(|i| format!("v{i}")).collect::<Vec<_>>());
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(199, 5)}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.starts_with("**v199**: an integer"), "{text}");
    c.shutdown();
}

#[test]
fn positions_are_utf16_code_units_on_lines_with_non_ascii_text() {
    let mut c = start();
    let line1 = r#"check "é𝔽" != "x" and n == 3 // ü"#;
    let text = format!("let n = 3\n{line1}\ncheck \"𝔽\" == nope\n");
    c.open(URI, &text);
    // `n` on line 1: 𝔽 is two UTF-16 units, é one.
    let col = line1[..line1.find(" n ").unwrap() + 1]
        .encode_utf16()
        .count();
    assert_eq!(col, 23);
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(1, col)}),
    );
    assert_eq!(
        hover["result"]["range"],
        json!({"start": pos(1, col), "end": pos(1, col + 1)})
    );
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": URI}, "position": pos(1, col)}),
    );
    assert_eq!(
        def["result"]["range"],
        json!({"start": pos(0, 4), "end": pos(0, 5)})
    );
    let diagnostics = c.diagnostics(1);
    assert_eq!(
        diagnostics[0]["range"],
        json!({"start": pos(2, 14), "end": pos(2, 18)})
    );
    // An edit that replaces the é𝔽 string by UTF-16 positions.
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"range": {"start": pos(1, 7), "end": pos(1, 10)}, "text": "x"}],
        }),
    );
    // The string is now "x": the check fails, reported at its place.
    let diagnostics = c.diagnostics(2);
    let found: Vec<String> = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}", d["code"], d["range"]))
        .collect();
    assert_eq!(
        found,
        [
            r#""E0401" {"start":{"line":1,"character":6},"end":{"line":1,"character":27}}"#,
            r#""E0101" {"start":{"line":2,"character":14},"end":{"line":2,"character":18}}"#,
        ]
    );
    c.shutdown();
}

#[test]
fn a_panic_in_one_request_is_an_error_answer_and_the_server_goes_on() {
    let mut c = start();
    c.open(URI, "let n = 3\n");
    let r = c.request("layoutc/panicForTest", Value::Null);
    assert_eq!(r["error"]["code"], json!(-32603), "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("deliberate panic")
    );
    assert!(c.hover_text(URI, 0, 4).contains("**n**"));
    c.shutdown();
}

#[test]
fn semantic_token_deltas_rebuild_the_full_tokens() {
    let mut c = start();
    c.open(URI, "let n = 3\nlet m = n * 2 // twice\ncheck m == 6\n");
    let full = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": URI}}),
    );
    let id = full["result"]["resultId"].clone();
    let mut data: Vec<u64> = full["result"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"range": {"start": pos(1, 8), "end": pos(1, 9)}, "text": "size(n)"}],
        }),
    );
    let delta = c.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": URI}, "previousResultId": id}),
    );
    let edits = delta["result"]["edits"]
        .as_array()
        .expect("a delta, not full tokens");
    assert_eq!(edits.len(), 1, "{delta}");
    for e in edits {
        let start = e["start"].as_u64().unwrap() as usize;
        let count = e["deleteCount"].as_u64().unwrap() as usize;
        let new: Vec<u64> = e["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        data.splice(start..start + count, new);
    }
    let again = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": URI}}),
    );
    let expected: Vec<u64> = again["result"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(data, expected);
    c.shutdown();
}

/// Every example, every feature, at pseudo-random places (a fixed seed):
/// each answer is a result or a `ContentModified`, never an internal
/// error, and the server is alive at the end.
#[test]
fn every_feature_at_random_places_of_every_example_answers() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lay"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10);
    let mut c = start();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut random = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let whole = [
        "textDocument/documentSymbol",
        "textDocument/foldingRange",
        "textDocument/semanticTokens/full",
        "textDocument/semanticTokens/full/delta",
        "textDocument/formatting",
    ];
    let at = [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/documentHighlight",
        "textDocument/prepareRename",
        "textDocument/completion",
        "textDocument/signatureHelp",
        "textDocument/codeAction",
        "textDocument/inlayHint",
    ];
    for (k, path) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        let uri = format!("file:///examples/{k}.lay");
        c.open(&uri, &text);
        let lines: Vec<&str> = text.lines().collect();
        let mut answers = Vec::new();
        for method in whole {
            let params = json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}});
            answers.push((method, c.request(method, params)));
        }
        for _ in 0..12 {
            for method in at {
                let line = random(lines.len());
                let col = random(lines.get(line).map_or(0, |l| l.encode_utf16().count()) + 2);
                let range = json!({"start": pos(line, col), "end": pos(line, col + 3)});
                let params = json!({
                    "textDocument": {"uri": uri},
                    "position": pos(line, col),
                    "range": range,
                    "context": {"includeDeclaration": true, "diagnostics": []},
                });
                answers.push((method, c.request(method, params)));
            }
        }
        let rename = c.request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": pos(random(lines.len()), 8), "newName": "renamed"}),
        );
        answers.push(("textDocument/rename", rename));
        for (method, a) in answers {
            let code = a["error"]["code"].as_i64();
            assert!(
                code.is_none() || code == Some(-32801) || code == Some(-32602),
                "{method} on {}: {a}",
                path.display()
            );
        }
    }
    c.shutdown();
}

/// A solve that would search for a minute neither blocks a hover on
/// another item nor an edit: the edit cancels the snapshot the solve runs
/// on, Z3 is interrupted, and the new text's diagnostics come at once.
#[test]
fn a_long_solve_never_blocks_hovers_or_edits() {
    let text = "let n = 1\n\nsolve hard {\n    kind = tiling\n    array = xla f32[10007,10009,997]\n    tile_multiple = [1, 1, 1]\n    min_tile_elements = 1000000\n    max_tile_elements = 4000000\n    timeout = 60000\n}\n";
    let mut c = start();
    let started = Instant::now();
    c.open(URI, text);
    std::thread::sleep(Duration::from_millis(500));
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(0, 4)}),
    );
    assert!(hover.get("error").is_none(), "{hover}");
    assert!(
        hover["result"]["contents"].to_string().contains('1'),
        "{hover}"
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"text": "let n = 2\n"}]}),
    );
    let diagnostics = c.diagnostics(2);
    assert_eq!(diagnostics, json!([]));
    // The solve's time limit is a minute; all of this took far less.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    c.shutdown();
}

/// The costly check of docs/performance.md: `bank_conflicts` over every
/// element of a padded 4096x4096 tensor, for each of four warps.
const COSTLY: &str = include_str!("../../../benches/padded_4096.lay");

/// The count is made once for the check, and the hover on it, the inlay
/// hints beside it (asked twice) and an edit of another line read that
/// count: the query that counts runs once in the whole session.
#[test]
fn a_costly_count_is_made_once_for_the_check_its_hovers_and_its_hints() {
    let mut c = start();
    c.open(URI, COSTLY);
    assert_eq!(c.diagnostics(1), json!([]), "the check holds: 31 ways");
    assert_eq!(c.executions("counting_call"), 1);
    let check_line = COSTLY.lines().position(|l| l.starts_with("check")).unwrap();
    for _ in 0..2 {
        let labels = c.inlay_labels(URI);
        assert!(labels.contains("31"), "{labels}");
    }
    let hover = c.hover_text(URI, check_line, 0);
    assert!(hover.contains("31"), "{hover}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": pos(0, 0), "end": pos(0, 0)},
                                   "text": "// an edit elsewhere\n"}]}),
    );
    assert_eq!(c.diagnostics(2), json!([]));
    assert!(c.inlay_labels(URI).contains("31"));
    assert_eq!(c.executions("counting_call"), 1);
    c.shutdown();
}

/// Edits that arrive while the costly check counts stop that count: the
/// diagnostics of the last text come about one count after the last edit,
/// not after one count per edit (each edit's count would otherwise run to
/// its end before the next edit could be applied).
#[test]
fn edits_during_a_costly_check_stop_it() {
    let mut c = start();
    let opened = Instant::now();
    c.open(URI, COSTLY);
    assert_eq!(c.diagnostics(1), json!([]));
    let one_count = opened.elapsed();
    let first_edit = Instant::now();
    for version in 2..=6 {
        let expected = if version == 6 { 30 } else { 30 + version };
        let text = COSTLY.replace("== 31", &format!("== {expected}"));
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
        std::thread::sleep(one_count / 10);
    }
    let last = c.diagnostics(6);
    let waited = first_edit.elapsed();
    assert_eq!(last.as_array().map(Vec::len), Some(1), "{last}");
    assert!(
        last[0]["message"].as_str().unwrap().contains("31"),
        "{last}"
    );
    // Five counts run to their end would take five times one count.
    assert!(
        waited < one_count * 3,
        "the last diagnostics took {waited:?}, one count {one_count:?}"
    );
    c.shutdown();
}

#[test]
fn no_frame_a_client_can_send_ends_the_session() {
    let mut c = start();
    c.open(URI, "let n = 3\n");
    let bad: [(&[u8], i64); 6] = [
        (b"{\"bad json", -32700),
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\xff\xfe\"}",
            -32700,
        ),
        (b"{}", -32600),
        (b"[1, 2]", -32600),
        (
            br#"{"jsonrpc":"2.0","id":{"x":1},"method":"textDocument/hover"}"#,
            -32600,
        ),
        (b"null", -32600),
    ];
    let mut wire = Vec::new();
    for (body, _) in &bad {
        wire.extend(frame(body));
    }
    // A Content-Length no message has: the reader skips to the next header.
    wire.extend(b"Content-Length: 99999999999999999999\r\n\r\n{}\r\n");
    c.send_raw(&wire);
    // A lone surrogate escape, as a client sends half an emoji: the text
    // is kept, the half read as U+FFFD.
    c.send_raw(&frame(
        br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/half.lay","languageId":"lay","version":1,"text":"let half = 1 // \ud83d\n"}}}"#,
    ));
    // Parameters a method does not take are its own error, not the end.
    let wrong = c.request("textDocument/hover", json!({"position": "here"}));
    assert_eq!(wrong["error"]["code"], json!(-32602), "{wrong}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///tmp/half.lay"}, "position": pos(0, 4)}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("**half**"),
        "{hover}"
    );
    let errors: Vec<i64> = c
        .notifications
        .iter()
        .filter(|m| m["id"].is_null() && m.get("error").is_some())
        .map(|m| m["error"]["code"].as_i64().unwrap())
        .collect();
    let mut expected: Vec<i64> = bad.iter().map(|(_, code)| *code).collect();
    expected.push(-32700);
    assert_eq!(errors, expected);
    c.shutdown();
}

#[test]
fn a_deeply_nested_document_is_a_diagnostic_not_a_crash() {
    let mut c = start();
    let deep = format!(
        "let a = {}1{}\nlet b = {}true\nlet c = 1\n",
        "(".repeat(10_000),
        ")".repeat(10_000),
        "not ".repeat(100_000)
    );
    c.open(URI, &deep);
    let diagnostics = c.diagnostics(1);
    let codes: Vec<&str> = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["E0003", "E0003"]);
    assert!(c.hover_text(URI, 2, 4).contains("**c**"));
    c.shutdown();
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let mut c = start();
    c.notify("exit", Value::Null);
    assert_eq!(wait(&mut c.child).code(), Some(1));
}

#[test]
fn the_server_exits_when_its_client_process_is_gone() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let mut parent = Command::new("sleep").arg("60").spawn().unwrap();
    let mut c = start_with(json!({"capabilities": {}, "processId": parent.id()}));
    parent.kill().unwrap();
    parent.wait().unwrap();
    assert_eq!(wait(&mut c.child).code(), Some(1));
}

#[test]
fn a_plain_text_client_gets_plain_text_hovers() {
    let mut c = start_with(json!({"capabilities": {
        "textDocument": {"hover": {"contentFormat": ["plaintext"]}}
    }}));
    c.open(URI, "let n = 3\n");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(0, 4)}),
    );
    let contents = &hover["result"]["contents"];
    assert_eq!(contents["kind"], "plaintext", "{hover}");
    let text = contents["value"].as_str().unwrap();
    assert!(
        text.contains('n') && !text.contains("**") && !text.contains("```"),
        "{text}"
    );
    c.shutdown();
}

#[test]
fn the_clients_solver_time_limit_replaces_each_blocks() {
    let mut c = start_with(json!({
        "capabilities": {},
        "initializationOptions": {"solverTimeoutMs": 50}
    }));
    // A block that allows a minute, for a search that never finishes.
    c.open(
        URI,
        "solve hard {\n    kind = tiling\n    array = xla f32[10007,10009,997]\n    tile_multiple = [1, 1, 1]\n    min_tile_elements = 1000000\n    max_tile_elements = 4000000\n    timeout = 60000\n}\n",
    );
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(0, 7)}),
    );
    let text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("after 50 ms"), "{hover}");
    // A new setting applies to the open document.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"layoutc": {"solver": {"timeoutMs": 80}}}}),
    );
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(0, 7)}),
    );
    let text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("after 80 ms"), "{hover}");
    c.shutdown();
}

#[test]
fn code_actions_read_the_range_the_diagnostics_and_only() {
    let mut c = start();
    let text = "layout acc = identity_1d(4, \"i\", \"o\")\nlayout blocked = acc\ncheck size(acd) == 4\ncheck size(blocekd) == 4\n";
    c.open(URI, text);
    let diagnostics = c.diagnostics(1);
    assert_eq!(diagnostics.as_array().unwrap().len(), 2, "{diagnostics}");
    let ask = |c: &mut Client, only: Value| {
        c.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": URI},
                "range": {"start": pos(0, 0), "end": pos(4, 0)},
                "context": {"diagnostics": diagnostics, "only": only},
            }),
        )["result"]
            .clone()
    };
    let fixes = ask(&mut c, json!(["quickfix"]));
    let fixes = fixes.as_array().unwrap();
    let titles: Vec<&str> = fixes.iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Change to `acc`", "Change to `blocked`"]);
    for (fix, diagnostic) in fixes.iter().zip(diagnostics.as_array().unwrap()) {
        assert_eq!(fix["diagnostics"], json!([diagnostic]), "{fix}");
        assert_eq!(fix["isPreferred"], true);
    }
    // Rewrites only: no fixes.
    let rewrites = ask(&mut c, json!(["refactor"]));
    assert!(
        rewrites
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["kind"].as_str().unwrap().starts_with("refactor")),
        "{rewrites}"
    );
    c.shutdown();
}

/// Semantic tokens as absolute `(line, column, length, type)`.
fn absolute_tokens(data: &Value) -> Vec<[u64; 4]> {
    let data: Vec<u64> = data
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let (mut line, mut col) = (0, 0);
    data.chunks(5)
        .map(|t| {
            if t[0] > 0 {
                col = 0;
            }
            line += t[0];
            col += t[1];
            [line, col, t[2], t[3]]
        })
        .collect()
}

#[test]
fn a_range_of_semantic_tokens_is_the_full_tokens_of_those_lines() {
    let mut c = start();
    let text =
        "let n = 3\nlet m = n * 2 // twice\ncheck m == 6\nsolve s {\n    kind = swizzle\n}\n";
    c.open(URI, text);
    let full = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": URI}}),
    );
    let range = c.request(
        "textDocument/semanticTokens/range",
        json!({"textDocument": {"uri": URI}, "range": {"start": pos(1, 0), "end": pos(4, 0)}}),
    );
    let all = absolute_tokens(&full["result"]["data"]);
    let some = absolute_tokens(&range["result"]["data"]);
    let expected: Vec<[u64; 4]> = all.into_iter().filter(|t| (1..4).contains(&t[0])).collect();
    assert!(!expected.is_empty());
    assert_eq!(some, expected);
    c.shutdown();
}

#[test]
fn a_loc_goes_to_its_definition_and_to_the_python_line_it_names() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .unwrap();
    let root_uri = format!("file://{}", root.display());
    let mut c = start_with(json!({"capabilities": {}, "rootUri": root_uri}));
    let dump = root.join("tests/corpus/ttgir/flash_attention_fwd_sm90.ttgir");
    let text = std::fs::read_to_string(&dump).unwrap();
    let uri = format!("file://{}", dump.display());
    c.open(&uri, &text);
    let at = text.find("loc(#loc54)").unwrap() + 6;
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    let r = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": pos(line, column)}),
    );
    let found = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    assert_eq!(found.len(), 2, "{r}");
    // The `#loc54 = loc("...gen_ttgir_corpus.py":256:22)` line of the dump...
    let def_line = text
        .lines()
        .position(|l| l.starts_with("#loc54 ="))
        .unwrap();
    assert_eq!(found[0]["uri"], json!(uri));
    assert_eq!(found[0]["range"]["start"]["line"], json!(def_line));
    // ... and the Python line it names, found under the workspace folder.
    let py = root.join("tests/vectors/triton/gen_ttgir_corpus.py");
    assert_eq!(found[1]["uri"], json!(format!("file://{}", py.display())));
    assert_eq!(
        found[1]["range"]["start"],
        json!({"line": 255, "character": 21})
    );
    c.shutdown();
}

#[test]
fn completion_sorts_and_gives_snippets_to_clients_that_expand_them() {
    let ask = |snippets: bool| {
        let mut c = start_with(json!({"capabilities": {"textDocument": {"completion": {
            "completionItem": {"snippetSupport": snippets}
        }}}}));
        c.open(URI, "#b = #ttg.\n");
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": URI}, "position": pos(0, 10)}),
        );
        let blocked = r["result"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["label"] == "blocked")
            .cloned()
            .unwrap();
        c.shutdown();
        blocked
    };
    let with = ask(true);
    assert_eq!(with["insertTextFormat"], 2, "{with}");
    assert!(
        with["textEdit"]["newText"]
            .as_str()
            .unwrap()
            .starts_with("blocked<{sizePerThread = [$1]")
    );
    assert!(with["sortText"].as_str().is_some());
    let without = ask(false);
    assert_eq!(without["insertTextFormat"], 1, "{without}");
    assert_eq!(without["textEdit"]["newText"], "blocked");
}

/// A corpus dump as the test's document text.
fn corpus_dump(name: &str) -> String {
    let path = format!(
        "{}/../../tests/corpus/ttgir/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A binary file opened as text (an editor decodes it lossily) gets the
/// capped list of diagnostics, not one per byte.
#[test]
fn a_binary_file_opened_as_text_gets_a_capped_list_of_diagnostics() {
    // 64 KiB of a linear congruential generator's bytes, NULs included.
    let mut x: u32 = 12345;
    let bytes: Vec<u8> = (0..65536)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        })
        .collect();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mut c = start();
    c.open(URI, &text);
    let diagnostics = c.diagnostics(1);
    let n = diagnostics.as_array().map_or(0, Vec::len);
    assert!((1..=101).contains(&n), "{n} diagnostics");
    let last = diagnostics[n - 1]["message"].as_str().unwrap();
    assert!(n < 101 || last.contains("more"), "{last}");
    c.shutdown();
}

/// Renaming an alias of a dump edits every use, on lines layoutc does not
/// evaluate too (a `tt.splat` of pointers names `#blocked` as well).
#[test]
fn renaming_an_alias_of_a_dump_edits_every_use() {
    let text = corpus_dump("transpose_sm80.ttgir");
    let uses = text
        .match_indices("#blocked")
        .filter(|(i, m)| {
            !text[i + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
        .count();
    let uri = "file:///tmp/transpose_sm80.ttgir";
    let mut c = start();
    c.open(uri, &text);
    let line = text
        .lines()
        .position(|l| l.starts_with("#blocked ="))
        .unwrap();
    let edit = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": pos(line, 2), "newName": "#rows"}),
    );
    let edits = edit["result"]["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("{edit}"));
    assert_eq!(edits.len(), uses);
    assert!(edits.iter().all(|e| e["newText"] == "#rows"), "{edit}");
    c.shutdown();
}

/// A dump folds by its regions: the module, the function and the loop.
#[test]
fn a_dump_folds_by_its_regions() {
    let text = corpus_dump("flash_attention_fwd_sm90.ttgir");
    let uri = "file:///tmp/flash_attention_fwd_sm90.ttgir";
    let mut c = start();
    c.open(uri, &text);
    let ranges = c.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    let starts: Vec<u64> = ranges["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{ranges}"))
        .iter()
        .map(|r| r["startLine"].as_u64().unwrap())
        .collect();
    for region in ["module attributes", "tt.func", "scf.for"] {
        let line = text.lines().position(|l| l.contains(region)).unwrap() as u64;
        assert!(
            starts.contains(&line),
            "{region} at line {line}: {starts:?}"
        );
    }
    c.shutdown();
}

/// One broken declaration is one error where it is and one at its first
/// use, however often it is used; a type MLIR does not have is an error at
/// the declaration.
#[test]
fn a_broken_declaration_is_reported_once_at_it_and_once_at_its_uses() {
    let mut c = start();
    c.open(
        URI,
        "let acc = undefined_name\ncheck acc == 1\ncheck acc == 2\ncheck acc == 3\n\
         layout t = tensor<128x64xf13, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>\n",
    );
    let diagnostics = c.diagnostics(1);
    let found: Vec<(String, u64)> = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("E0101".to_string(), 0),
            ("E0106".to_string(), 1),
            ("E0205".to_string(), 4)
        ],
        "{diagnostics}"
    );
    c.shutdown();
}
