/**
 * The plansight extension: starts the language server for PDDL domains, problems and plans, and
 * shows what the active file is in the status bar.
 *
 * Everything the user sees about the files (diagnostics, and each feature the server adds later)
 * comes from the server; this file only wires the pieces: the client's lifecycle
 * (`serverController.ts`), how the server is found (`serverLaunch.ts`, `pythonExtension.ts`), its
 * settings (`serverSettings.ts`) and the status-bar item (`statusBar.ts`).
 */
import * as vscode from "vscode";

import { onDidChangeInterpreter } from "./pythonExtension";
import { ServerController } from "./serverController";
import { describeLocally, FileStatusItem } from "./statusBar";

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // One channel for the client's own messages, the server's stderr log and the protocol trace.
  const output = vscode.window.createOutputChannel("plansight");
  controller = new ServerController(context.extensionPath, output);
  const server = controller;

  context.subscriptions.push(
    output,
    server,
    vscode.commands.registerCommand("plansight.restartServer", () => server.restart()),
    vscode.commands.registerCommand("plansight.showLog", () => output.show(true)),
    // The association (which domain/problem a file is checked against) will come from the server;
    // until it offers it, the item shows the kind, decided locally.
    new FileStatusItem(describeLocally, "plansight.showLog"),
  );
  const interpreterWatch = await onDidChangeInterpreter(() => server.pythonInterpreterChanged());
  if (interpreterWatch) {
    context.subscriptions.push(interpreterWatch);
  }
  await server.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
