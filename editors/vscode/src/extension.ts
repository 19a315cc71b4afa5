// The layoutc extension: starts `layoutc lsp` for .lay files and Triton
// dumps, runs `layoutc solve` on the current file, and shows `layoutc
// render`'s picture of the value under the cursor.
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;

/** `layoutc.solver.timeoutMs`: the solver's limit per solve block. */
function solverTimeoutMs(): number {
  const ms = vscode.workspace.getConfiguration("layoutc").get<number>("solver.timeoutMs") ?? 10000;
  return Math.max(1, Math.round(ms));
}

/** Where the extension is installed: a platform package carries `bin/layoutc`. */
let extensionPath = "";

/**
 * The layoutc binary: `layoutc.path` when the user set it, else the one this
 * platform's package carries, else `layoutc` on the PATH.
 */
function layoutcPath(): string {
  const configured = vscode.workspace.getConfiguration("layoutc").inspect<string>("path");
  const chosen = configured?.workspaceFolderValue ?? configured?.workspaceValue ?? configured?.globalValue;
  if (chosen) {
    return chosen;
  }
  const bundled = path.join(extensionPath, "bin", process.platform === "win32" ? "layoutc.exe" : "layoutc");
  return extensionPath && fs.existsSync(bundled) ? bundled : "layoutc";
}

async function startClient(): Promise<void> {
  const command = layoutcPath();
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"] },
    debug: { command, args: ["lsp"] },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "lay" },
      { scheme: "untitled", language: "lay" },
    ],
    outputChannel: output,
    // `layoutc.trace.server` is read by the client under this section; the
    // server reads `solver.timeoutMs` from the same section, at start and
    // whenever it changes.
    initializationOptions: { solverTimeoutMs: solverTimeoutMs() },
    synchronize: { configurationSection: "layoutc" },
  };
  client = new LanguageClient("layoutc", "layoutc", serverOptions, clientOptions);
  await client.start();
}

async function solveCurrentFile(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "lay") {
    vscode.window.showWarningMessage("layoutc: open a .lay file to solve it");
    return;
  }
  // The text in the editor is solved as it is, saved or not: a copy in a
  // fresh temporary folder, so the user's file is never written behind
  // their back.
  const doc = editor.document;
  const shown = doc.isUntitled ? "untitled.lay" : doc.uri.fsPath;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layoutc-solve-"));
  const file = path.join(dir, path.basename(shown));
  fs.writeFileSync(file, doc.getText());
  const timeout = solverTimeoutMs();
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "layoutc solve", cancellable: true },
    (_progress, token) =>
      new Promise<void>((resolve) => {
        const child = execFile(
          layoutcPath(),
          ["solve", file, "--timeout", String(timeout)],
          { maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            fs.rmSync(dir, { recursive: true, force: true });
            output.appendLine(`$ layoutc solve ${shown} --timeout ${timeout}`);
            output.append(stdout.split(file).join(shown));
            output.append(stderr.split(file).join(shown));
            output.show(true);
            if (error && !token.isCancellationRequested) {
              vscode.window.showErrorMessage(`layoutc solve failed: ${stderr.trim() || error.message}`);
            }
            resolve();
          },
        );
        token.onCancellationRequested(() => child.kill());
      }),
  );
}

/** Runs `layoutc render FILE NAME -o OUT`; resolves to the exit code and stderr. */
function render(file: string, name: string, out: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      layoutcPath(),
      ["render", file, name, "-o", out],
      { timeout: 60000, maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 2) : 0;
        resolve({ code, stderr });
      },
    );
  });
}

/** A name as `.lay` and Triton dumps spell it: `acc`, `#blocked`, `%acc_62#2`. */
const NAME = /[%#]?[A-Za-z_][A-Za-z0-9_.$-]*(#[0-9]+)?/;

/**
 * Draws the value under the cursor with `layoutc render` into an HTML page in a
 * fresh temporary folder and opens it beside the editor. The name under the
 * cursor is tried first, then the cursor's line (what has no name: a pasted
 * `ttg.local_store`, a `check bank_conflicts(...) == 0`). The file's current
 * text is drawn, saved or not.
 */
async function showPicture(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "lay") {
    vscode.window.showWarningMessage("layoutc: open a .lay file to draw one of its layouts");
    return;
  }
  const doc = editor.document;
  const position = editor.selection.active;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layoutc-picture-"));
  const base = doc.isUntitled ? "untitled.lay" : path.basename(doc.uri.fsPath);
  const file = path.join(dir, base);
  fs.writeFileSync(file, doc.getText());
  const out = path.join(dir, "picture.html");
  const wordRange = doc.getWordRangeAtPosition(position, NAME);
  const candidates = [wordRange ? doc.getText(wordRange) : undefined, String(position.line + 1)];
  let last = { code: 2, stderr: "" };
  let drawn: string | undefined;
  for (const name of candidates) {
    if (!name) {
      continue;
    }
    last = await render(file, name, out);
    output.appendLine(`$ layoutc render ${file} ${name} -o ${out} (exit ${last.code})`);
    if (last.stderr) {
      output.append(last.stderr);
    }
    // Exit 1 still draws the value when the errors are elsewhere in the file.
    if (last.code !== 2 && fs.existsSync(out)) {
      drawn = name;
      break;
    }
  }
  if (!drawn) {
    vscode.window.showErrorMessage(
      `layoutc: nothing to draw here: ${last.stderr.trim().split("\n").pop() || "no layout under the cursor"}`,
    );
    return;
  }
  if (last.code === 1) {
    vscode.window.showWarningMessage("layoutc: the file has errors (see Problems); drawn anyway");
  }
  const panel = vscode.window.createWebviewPanel(
    "layoutc.picture",
    `layoutc: ${drawn}`,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: true },
  );
  panel.webview.html = fs.readFileSync(out, "utf8");
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel("layoutc");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("layoutc.solve", solveCurrentFile),
    vscode.commands.registerCommand("layoutc.showPicture", showPicture),
    vscode.commands.registerCommand("layoutc.restartServer", async () => {
      await client?.stop();
      await startClient();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("layoutc.path")) {
        await client?.stop();
        await startClient();
      }
    }),
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
