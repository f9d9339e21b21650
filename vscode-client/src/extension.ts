/**
 * The plansight extension: starts the language server for PDDL domains, problems and plans, and
 * shows what the active file is in the status bar.
 *
 * Everything the user sees about the files (diagnostics, and each feature the server adds later)
 * comes from the server; this file only wires the pieces: the client's lifecycle
 * (`serverController.ts`), how the server is found (`serverLaunch.ts`, `pythonExtension.ts`), its
 * settings (`serverSettings.ts`), the status-bar item (`statusBar.ts`), the link commands
 * (`linkCommand.ts`), the commands that run the server's analyses (`commands.ts`) and the planner
 * (`planCommand.ts`).
 */
import * as vscode from "vscode";

import { type AssociationResult, requestAssociation } from "./association";
import { FILE_ACTIONS_COMMAND, registerCommands } from "./commands";
import { linkToPartner, SET_DOMAIN_COMMAND, SET_REFERENCE_COMMAND } from "./linkCommand";
import { registerPlanCommand, routedOutput } from "./planCommand";
import { onDidChangeInterpreter } from "./pythonExtension";
import { ServerController } from "./serverController";
import { describeLocally, type FileDescriber, FileStatusItem } from "./statusBar";

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // One channel for the client's own messages, the server's stderr log and the protocol trace.
  const output = vscode.window.createOutputChannel("plansight");
  // The planner's output (streamed by the server as marked log lines) gets a channel of its own.
  const planner = vscode.window.createOutputChannel("plansight planner");
  controller = new ServerController(context.extensionPath, routedOutput(output, planner));
  const server = controller;

  // The kind is decided locally (instant, and right while the server starts); the association
  // (which domain/problem the file is checked against) comes from the server when it runs.
  const describe: FileDescriber = async (document) => {
    const local = await describeLocally(document);
    if (local?.kind !== "problem" && local?.kind !== "plan") {
      return local;
    }
    const association = await askAssociation(server, document.uri.toString());
    return association && association.kind !== "unknown" ? { ...local, association } : local;
  };
  const status = new FileStatusItem(describe, FILE_ACTIONS_COMMAND);
  context.subscriptions.push(
    output,
    planner,
    server,
    status,
    vscode.commands.registerCommand("plansight.restartServer", () => server.restart()),
    vscode.commands.registerCommand("plansight.showLog", () => output.show(true)),
    vscode.commands.registerCommand(SET_DOMAIN_COMMAND, (resource?: vscode.Uri) => linkToPartner(resource, "partner")),
    vscode.commands.registerCommand(SET_REFERENCE_COMMAND, (resource?: vscode.Uri) => linkToPartner(resource, "reference")),
    ...registerCommands(context, server),
    ...registerPlanCommand(server, planner),
    // New diagnostics mean a new analysis, and maybe a new partner (a directive typed, a domain saved).
    vscode.languages.onDidChangeDiagnostics((event) => {
      const active = vscode.window.activeTextEditor?.document.uri.toString();
      if (active !== undefined && event.uris.some((uri) => uri.toString() === active)) {
        status.refreshSoon();
      }
    }),
  );
  const interpreterWatch = await onDidChangeInterpreter(() => server.pythonInterpreterChanged());
  if (interpreterWatch) {
    context.subscriptions.push(interpreterWatch);
  }
  await server.start();
}

async function askAssociation(server: ServerController, uri: string): Promise<AssociationResult | undefined> {
  try {
    return await requestAssociation(server, uri);
  } catch {
    return undefined; // an older server, or one restarting: the kind alone is still right
  }
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
