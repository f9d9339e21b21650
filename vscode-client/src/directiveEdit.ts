/**
 * The edit that links a file to its domain (or a plan to its problem, or either to its reference):
 * the `; @domain PATH` line at the top of the file, inserted, or replacing the one already there.
 * Nothing else in the file changes.
 *
 * Only comment lines above the first form count as directives (analyses/syntax/documents.py), so an
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

/** `domain`/`problem`: the partner a file is checked against; `reference`/`reference-plan`: what it is compared with. */
export type DirectiveKey = "domain" | "problem" | "reference" | "reference-plan";

/** `relativePath` as written in the directive: forward slashes, so the file works on every system. */
export function directiveLine(key: DirectiveKey, relativePath: string): string {
  return `; @${key} ${relativePath.split("\\").join("/")}`;
}

export function directiveEdit(text: string, key: DirectiveKey, relativePath: string): DirectiveEdit {
  const line = directiveLine(key, relativePath);
  // `@reference` must not match `@reference-plan`: the key is followed by blanks, then the path.
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

/** What a file may be linked to: its partner (checked against) or its reference (compared with). */
export type LinkTarget = "partner" | "reference";

/** The directive to write, and the kind of file to offer for it. */
export interface LinkChoice {
  key: DirectiveKey;
  offer: "domain" | "problem" | "plan";
}

/**
 * Which directive a file gets for a link, from its language and header: a problem's partner is its
 * domain and its reference another problem; a plan's partner is its problem and its reference another
 * plan. A string is the reason there is nothing to link (a domain, or not a PDDL file).
 */
export function linkChoice(languageId: string, isDomain: boolean, target: LinkTarget): LinkChoice | string {
  if (languageId === "pddl-plan") {
    return target === "partner" ? { key: "problem", offer: "problem" } : { key: "reference-plan", offer: "plan" };
  }
  if (languageId !== "pddl") {
    return "open a PDDL problem or plan to link it.";
  }
  if (isDomain) {
    return target === "partner"
      ? "this is a domain; problems and plans are linked to it."
      : "a domain has no reference; problems (reference problem) and plans (reference plan) do.";
  }
  return target === "partner" ? { key: "domain", offer: "domain" } : { key: "reference", offer: "problem" };
}
