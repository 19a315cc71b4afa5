// layoutc lsp driven by the client library VS Code itself uses
// (vscode-languageserver-protocol, from editors/vscode's node_modules).
// Run: node tests/lsp/node_client.js (after `npm ci` in editors/vscode).
// Exits 0 when every check holds, 1 otherwise.
"use strict";
const path = require("path");
const fs = require("fs");
const { spawn } = require("child_process");
const modules = path.join(__dirname, "../../editors/vscode/node_modules");
const rpc = require(path.join(modules, "vscode-languageserver-protocol/node"));

const root = path.join(__dirname, "../..");
const layoutc = process.env.LAYOUTC || path.join(root, "target/debug/layoutc");
const fixture = path.join(__dirname, "fixture.lay");
const uri = "file://" + fixture;
const text = fs.readFileSync(fixture, "utf8");

let failures = 0;
function check(name, ok, detail) {
  if (ok) {
    console.log("ok   " + name);
  } else {
    failures++;
    console.error("FAIL " + name + ": " + JSON.stringify(detail));
  }
}

function positionOf(needle, shift = 0) {
  const lines = text.split("\n");
  for (let line = 0; line < lines.length; line++) {
    const col = lines[line].indexOf(needle);
    if (col >= 0) return { line, character: col + shift };
  }
  throw new Error("fixture has no " + needle);
}

async function main() {
  const server = spawn(layoutc, ["lsp"], { stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createProtocolConnection(
    new rpc.StreamMessageReader(server.stdout),
    new rpc.StreamMessageWriter(server.stdin),
  );
  // Diagnostics by document, resolved when they first arrive.
  const published = new Map();
  const waiting = new Map();
  const diagnosticsOf = (u) =>
    published.has(u) ? Promise.resolve(published.get(u)) : new Promise((resolve) => waiting.set(u, resolve));
  connection.onNotification(rpc.PublishDiagnosticsNotification.type, (p) => {
    if (!published.has(p.uri)) published.set(p.uri, p);
    if (waiting.has(p.uri)) waiting.get(p.uri)(p);
  });
  const diagnostics = diagnosticsOf(uri);
  // Work done progress: the client lets the server create tokens and
  // records what it reports.
  const progress = [];
  connection.onRequest("window/workDoneProgress/create", () => null);
  connection.onNotification("$/progress", (p) => progress.push(p));
  connection.listen();
  const init = await connection.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid,
    rootUri: "file://" + root,
    capabilities: { window: { workDoneProgress: true } },
  });
  check("initialize", init.capabilities.hoverProvider === true, init.capabilities);
  await connection.sendNotification(rpc.InitializedNotification.type, {});
  await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "lay", version: 1, text },
  });
  const first = await diagnostics;
  check("diagnostics", first.diagnostics.length === 1 && first.diagnostics[0].code === "E0101", first);
  check("no progress without solve blocks", progress.length === 0, progress);

  const doc = { uri };
  const hover = await connection.sendRequest(rpc.HoverRequest.type, {
    textDocument: doc,
    position: positionOf("acc(register"),
  });
  check("hover", hover && hover.contents.value.includes("owner of each element"), hover);

  const refs = await connection.sendRequest(rpc.ReferencesRequest.type, {
    textDocument: doc,
    position: positionOf("acc ="),
    context: { includeDeclaration: true },
  });
  check("references", refs && refs.length === 3, refs);

  const help = await connection.sendRequest(rpc.SignatureHelpRequest.type, {
    textDocument: doc,
    position: positionOf("size(acc)", 5),
  });
  check("signature help", help && help.signatures[0].label === "size(x: layout) -> int" && help.activeParameter === 0, help);

  const hints = await connection.sendRequest(rpc.InlayHintRequest.type, {
    textDocument: doc,
    range: { start: { line: 0, character: 0 }, end: { line: 99, character: 0 } },
  });
  check("inlay hints", hints && hints.some((h) => h.label.includes("register 4")), hints);

  const actions = await connection.sendRequest(rpc.CodeActionRequest.type, {
    textDocument: doc,
    range: { start: positionOf("tensor<32x16xf32"), end: positionOf("tensor<32x16xf32") },
    context: { diagnostics: [] },
  });
  check("code action: #ttg.linear", actions && actions.some((a) => a.title.includes("#ttg.linear")), actions);

  const folds = await connection.sendRequest(rpc.FoldingRangeRequest.type, { textDocument: doc });
  check("folding ranges answer", Array.isArray(folds), folds);

  // A file with solve blocks: checking it runs the solver, reported as
  // work done progress (begin, then end) around its diagnostics.
  const solveFile = path.join(root, "examples/solve_tpu.lay");
  const solveUri = "file://" + solveFile;
  await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
    textDocument: { uri: solveUri, languageId: "lay", version: 1, text: fs.readFileSync(solveFile, "utf8") },
  });
  const solveBlocks = (fs.readFileSync(solveFile, "utf8").match(/^solve /gm) || []).length;
  const solved = await diagnosticsOf(solveUri);
  check("solve file checks clean", solved.diagnostics.length === 0, solved);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const kinds = progress.map((p) => p.value.kind);
  check(
    "progress while solving",
    kinds[0] === "begin" && kinds[kinds.length - 1] === "end" && progress[0].value.message.includes(`solving ${solveBlocks} block`),
    progress,
  );

  await connection.sendRequest(rpc.ShutdownRequest.type);
  await connection.sendNotification(rpc.ExitNotification.type);
  const code = await new Promise((resolve) => server.on("exit", resolve));
  check("exit", code === 0, code);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => {
  console.error("FAIL", e);
  process.exit(1);
});
