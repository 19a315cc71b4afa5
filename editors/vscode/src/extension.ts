// The layoutc extension: starts `layoutc lsp` for .lay files and Triton
// dumps, and runs `layoutc solve` on the current file.
import { execFile } from "child_process";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;

function layoutcPath(): string {
  return vscode.workspace.getConfiguration("layoutc").get<string>("path") || "layoutc";
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
    // `layoutc.trace.server` is read by the client under this section.
    initializationOptions: {},
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
  if (editor.document.isDirty) {
    await editor.document.save();
  }
  const file = editor.document.uri.fsPath;
  const timeout = vscode.workspace.getConfiguration("layoutc").get<number>("solver.timeoutMs") ?? 10000;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "layoutc solve", cancellable: true },
    (_progress, token) =>
      new Promise<void>((resolve) => {
        const child = execFile(
          layoutcPath(),
          ["solve", file],
          { timeout: timeout + 5000, maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => {
            output.appendLine(`$ layoutc solve ${file}`);
            output.append(stdout);
            output.append(stderr);
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

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("layoutc");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("layoutc.solve", solveCurrentFile),
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
