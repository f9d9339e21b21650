/**
 * `plansight.setDomain`: link the active problem to a domain (or plan to a problem) chosen from the
 * workspace, by writing the `; @domain` / `; @problem` line at the top of the file.
 *
 * The change is an ordinary edit of the buffer (undoable, saved by the user), because the directive
 * is the one link rule that lives with the file and wins over settings and conventions.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";

import { directiveEdit, type DirectiveKey } from "./directiveEdit";
import { definedHeader } from "./fileKind";

export const SET_DOMAIN_COMMAND = "plansight.setDomain";

/** The header is near the top; a multi-megabyte problem must not be read whole to learn its kind. */
const HEAD_BYTES = 4096;
const MAX_FILES = 5000;

async function head(uri: vscode.Uri): Promise<string | undefined> {
  try {
    if (uri.scheme === "file") {
      const handle = await fs.open(uri.fsPath, "r");
      try {
        const buffer = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
        return buffer.subarray(0, bytesRead).toString("utf8");
      } finally {
        await handle.close();
      }
    }
    return Buffer.from((await vscode.workspace.fs.readFile(uri)).subarray(0, HEAD_BYTES)).toString("utf8");
  } catch {
    return undefined; // unreadable: simply not offered
  }
}

interface Candidate extends vscode.QuickPickItem {
  uri: vscode.Uri;
}

async function candidates(key: DirectiveKey, exclude: vscode.Uri): Promise<Candidate[]> {
  const files = await vscode.workspace.findFiles("**/*.pddl", "**/{node_modules,.git}/**", MAX_FILES);
  const found: Candidate[] = [];
  await Promise.all(files.map(async (uri) => {
    if (uri.toString() === exclude.toString()) {
      return;
    }
    const header = definedHeader((await head(uri)) ?? "");
    if (header?.kind === key) {
      found.push({ label: header.name, description: vscode.workspace.asRelativePath(uri), uri });
    }
  }));
  return found.sort((a, b) => (a.description ?? "").localeCompare(b.description ?? ""));
}

export async function linkToPartner(resource?: vscode.Uri): Promise<void> {
  const document = resource instanceof vscode.Uri
    ? await vscode.workspace.openTextDocument(resource)
    : vscode.window.activeTextEditor?.document;
  if (!document || (document.languageId !== "pddl" && document.languageId !== "pddl-plan")) {
    void vscode.window.showInformationMessage("plansight: open a PDDL problem or plan to link it.");
    return;
  }
  const key: DirectiveKey = document.languageId === "pddl-plan" ? "problem" : "domain";
  if (key === "domain" && definedHeader(document.getText())?.kind === "domain") {
    void vscode.window.showInformationMessage("plansight: this is a domain; problems and plans are linked to it.");
    return;
  }
  const items = await candidates(key, document.uri);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`plansight: no PDDL ${key} file found in the workspace.`);
    return;
  }
  const chosen = await vscode.window.showQuickPick(items, {
    placeHolder: `Link ${path.basename(document.uri.path)} to this ${key} (writes a ; @${key} line at the top)`,
    matchOnDescription: true,
  });
  if (!chosen) {
    return;
  }
  const relative = path.relative(path.dirname(document.uri.fsPath), chosen.uri.fsPath);
  const change = directiveEdit(document.getText(), key, relative);
  const { start, end } = change.range;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(start.line, start.character, end.line, end.character), change.newText);
  await vscode.workspace.applyEdit(edit);
}
