/**
 * The edit that links a file to its domain (or a plan to its problem): the `; @domain PATH` line at
 * the top of the file, inserted, or replacing the one already there. Nothing else in the file changes.
 *
 * Only comment lines above the first form count as directives (analyses/documents.py), so an
 * existing directive is looked for there, and a new one goes on the first line.
 *
 * This module must not import `vscode`.
 */

export interface Position {
  line: number;
  character: number;
}

export interface DirectiveEdit {
  range: { start: Position; end: Position };
  newText: string;
}

export type DirectiveKey = "domain" | "problem";

/** `relativePath` as written in the directive: forward slashes, so the file works on every system. */
export function directiveLine(key: DirectiveKey, relativePath: string): string {
  return `; @${key} ${relativePath.split("\\").join("/")}`;
}

export function directiveEdit(text: string, key: DirectiveKey, relativePath: string): DirectiveEdit {
  const line = directiveLine(key, relativePath);
  const existing = new RegExp(`^[ \\t]*;+[ \\t]*@${key}[ \\t]+\\S`, "i");
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const content = lines[index].endsWith("\r") ? lines[index].slice(0, -1) : lines[index];
    const trimmed = content.trim();
    if (trimmed !== "" && !trimmed.startsWith(";")) {
      break; // the first form: directives end here
    }
    if (existing.test(content)) {
      return {
        range: { start: { line: index, character: 0 }, end: { line: index, character: content.length } },
        newText: line,
      };
    }
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: line + eol };
}
