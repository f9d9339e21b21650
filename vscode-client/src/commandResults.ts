/**
 * What the user reads after a server command: a one-line summary (the notification) and, for the
 * results worth reading at length, a Markdown report.
 *
 * The results are the server's JSON, the same documents `plansight plan --format json` and
 * `plansight equiv --format json` print (docs/cli.md). They are read defensively: a field a server
 * version does not send is left out of the report rather than shown as "undefined", and a result of
 * an unknown shape is still shown (its `summary`/`message`, and the JSON itself).
 *
 * This module must not import `vscode`.
 */

export type Level = "info" | "warning" | "error";

export interface Rendered {
  summary: string;
  level: Level;
  /** The report, when there is more to say than the summary. */
  markdown?: string;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Markdown inline code that survives backticks in the content. */
function code(value: string): string {
  const fence = value.includes("`") ? "``" : "`";
  return `${fence}${value}${fence}`;
}

/** A table cell: no line breaks, no column separators. */
function cell(value: string): string {
  return value.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function jsonBlock(value: unknown): string {
  return "```json\n" + JSON.stringify(value, null, 2) + "\n```\n";
}

/** The server's own words, when a result has them. */
function ownWords(result: Json | undefined): string | undefined {
  return text(result?.summary) ?? text(result?.message);
}

/** A result of a shape this extension does not know: the server's words, then its JSON. */
export function renderUnknown(result: unknown, title: string, fallback: string): Rendered {
  const summary = ownWords(record(result)) ?? (typeof result === "string" && result.trim() ? result : fallback);
  const markdown = result === null || result === undefined ? undefined : `# ${title}\n\n${summary}\n\n${jsonBlock(result)}`;
  return { summary, level: "info", ...(markdown ? { markdown } : {}) };
}

function basename(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

/** `plansight.server.simulatePlan`: the plan's verdict, its failing step and why, the goals, the trace. */
export function renderPlanReport(raw: unknown, fallbackName: string): Rendered {
  const result = record(raw);
  if (!result || typeof result.valid !== "boolean") {
    return renderUnknown(raw, `Plan report: ${fallbackName}`, "plansight: the plan was checked.");
  }
  const name = basename(text(result.path) ?? fallbackName);
  const length = num(result.length);
  const failure = record(result.failure);
  const goals = record(result.goals);
  const satisfied = strings(goals?.satisfied);
  const unsatisfied = strings(goals?.unsatisfied);
  const goalCount = satisfied.length + unsatisfied.length;
  const steps = length === undefined ? "" : ` (${plural(length, "step")})`;

  let summary: string;
  let level: Level;
  if (result.valid) {
    summary = `${name} is valid${steps}: ${goalCount > 0 ? `all ${plural(goalCount, "goal")} hold at the end` : "the goals hold at the end"}.`;
    level = "info";
  } else if (failure) {
    const index = num(failure.index);
    const action = text(failure.action);
    const where = index === undefined ? "a step" : `step ${index + 1}`;
    // The server's message may name the step itself ("Step 2 (stack b c) is not executable: ..."):
    // the summary names it once.
    const message = text(failure.message)?.replace(/^step \d+\s*(\([^)]*\))?\s*(is not executable)?\s*:?\s*/i, "");
    const why = message || (strings(failure.unsatisfied).length ? `${strings(failure.unsatisfied).join(", ")} does not hold` : "");
    summary = `${name} fails at ${where}${action ? ` ${action}` : ""}${why ? `: ${why}` : "."}`;
    level = "error";
  } else {
    summary = `${name} runs${steps} but ${unsatisfied.length} of ${plural(goalCount, "goal")} ${unsatisfied.length === 1 ? "does" : "do"} not hold at the end: ${unsatisfied.join(", ")}.`;
    level = "warning";
  }

  const lines = [`# Plan report: ${name}`, "", summary, "", "| | |", "|---|---|"];
  lines.push(`| valid | ${result.valid ? "yes" : "no"} |`);
  if (typeof result.executable === "boolean") {
    lines.push(`| executable | ${result.executable ? "yes" : "no"} |`);
  }
  const lea = num(result.lea);
  if (lea !== undefined) {
    lines.push(`| longest executable prefix (LEA) | ${length !== undefined ? `${lea} of ${length}` : lea} steps |`);
  }
  if (goalCount > 0) {
    const fraction = num(goals?.fraction) ?? satisfied.length / goalCount;
    lines.push(`| goals holding at the end | ${satisfied.length} of ${goalCount} (${Math.round(fraction * 100)}%) |`);
  }
  lines.push("");
  if (failure) {
    const index = num(failure.index);
    lines.push("## Where it fails", "");
    lines.push(`Step ${index === undefined ? "?" : index + 1}${text(failure.action) ? `: ${code(String(failure.action))}` : ""}` +
      (text(failure.category) ? ` (${failure.category})` : ""));
    lines.push("");
    if (text(failure.message)) {
      lines.push(String(failure.message), "");
    }
    const missing = strings(failure.unsatisfied);
    if (missing.length) {
      lines.push("Not true before the step:", "", ...missing.map((atom) => `- ${code(atom)}`), "");
    }
  }
  if (goalCount > 0) {
    lines.push("## Goals", "", ...satisfied.map((atom) => `- ✓ ${code(atom)}`), ...unsatisfied.map((atom) => `- ✗ ${code(atom)}`), "");
  }
  const reference = record(result.reference);
  if (reference) {
    lines.push("## Compared with the reference plan", "", "| measure | value |", "|---|---|");
    for (const key of ["stv", "steps", "lcs_subsequence", "lcs_substring", "similarity", "score", "action_distance"]) {
      const value = reference[key];
      if (typeof value === "number" || typeof value === "string") {
        lines.push(`| ${key} | ${cell(String(value))} |`);
      }
    }
    const labels = strings(reference.aqm);
    if (labels.length) {
      lines.push(`| AQM labels | ${cell(labels.join(", "))} |`);
    }
    lines.push("");
  }
  const trace = Array.isArray(result.trace) ? result.trace.map(record).filter((step): step is Json => !!step) : [];
  if (trace.length) {
    lines.push("## Trace", "", "| step | action | adds | deletes |", "|---|---|---|---|");
    for (const step of trace) {
      const index = num(step.index);
      lines.push(`| ${index === undefined ? "" : index + 1} | ${cell(text(step.action) ?? "")} | ` +
        `${cell(strings(step.added).join(" "))} | ${cell(strings(step.deleted).join(" "))} |`);
    }
    lines.push("");
  }
  const recovery = record(result.recovery);
  if (recovery && strings(recovery.plan).length) {
    lines.push("## Repaired plan", "", "```", ...strings(recovery.plan), "```", "");
  }
  return { summary, level, markdown: lines.join("\n") };
}

/** Whether an equivalence answer is a verdict (true, false or unknown), not a reason there is none. */
export function hasVerdict(raw: unknown): boolean {
  const result = record(raw);
  return result !== undefined && "equivalent" in result;
}

/** `plansight.server.checkEquivalence`: equivalent, not, or unknown, with the explanation. */
export function renderEquivalence(raw: unknown, fallbackName: string): Rendered {
  const result = record(raw);
  if (!result || !hasVerdict(result)) {
    return renderUnknown(raw, `Equivalence: ${fallbackName}`, "plansight: the equivalence check finished.");
  }
  const name = basename(text(result.candidate) ?? fallbackName);
  const explanation = text(result.explanation);
  const because = explanation ? `: ${explanation}` : ".";
  let summary: string;
  let level: Level;
  if (result.parseable === false) {
    summary = `${name} does not parse, so it cannot be compared${because}`;
    level = "error";
  } else if (result.equivalent === true) {
    summary = `${name} is equivalent to the reference${because}`;
    level = "info";
  } else if (result.equivalent === false) {
    summary = `${name} is not equivalent to the reference${because}`;
    level = "error";
  } else {
    summary = `Equivalence of ${name} with the reference is unknown${because}`;
    level = "warning";
  }
  const rows = ["parseable", "solvable", "equivalent", "mode", "method"]
    .filter((key) => key in result)
    .map((key) => `| ${key} | ${cell(result[key] === null ? "unknown" : String(result[key]))} |`);
  const markdown = [`# Equivalence: ${name}`, "", summary, "", "| | |", "|---|---|", ...rows, ""].join("\n");
  return { summary, level, markdown };
}

/** `plansight.server.gradeFolder`: `{report, summary}`; the summary a sentence or counts. */
export function renderGrade(raw: unknown): { rendered: Rendered; report?: string } {
  const result = record(raw);
  const report = text(result?.report);
  const summary = result?.summary;
  let sentence: string;
  if (typeof summary === "string" && summary.trim()) {
    sentence = summary;
  } else if (record(summary)) {
    const counts = Object.entries(record(summary)!)
      .filter(([, value]) => typeof value === "number")
      .map(([key, value]) => `${key.replace(/_/g, " ")}: ${value}`);
    sentence = counts.length ? `Graded. ${counts.join(", ")}.` : "Graded.";
  } else {
    sentence = ownWords(result) ?? "Graded.";
  }
  return { rendered: { summary: `plansight: ${sentence}`, level: "info" }, ...(report ? { report } : {}) };
}

/**
 * `plansight.server.stateAtStep`: `{index, action, state: [atoms], values, derived, happening, reached}`,
 * the state before the step (for a temporal plan, before the happening it starts at). A server of an
 * older version sends only the atoms; the other sections are then empty.
 */
export interface StepState {
  title: string;
  /** The basic atoms that hold, sorted. */
  atoms: string[];
  /** The fluent values as `:init` writes them, `(= (fuel t1) 4)`, sorted. */
  values: string[];
  /** The atoms the `:derived` rules add to the basic ones, sorted. */
  derived: string[];
}

export function renderStepState(raw: unknown, line: number): StepState | string {
  if (raw === null || raw === undefined) {
    return `plansight: line ${line + 1} holds no plan step; put the cursor on a step.`;
  }
  const result = record(raw);
  if (!result || !Array.isArray(result.state)) {
    return ownWords(result) ?? "plansight: the server gave no state for this line.";
  }
  const index = num(result.index);
  const action = text(result.action);
  const step = `step ${index === undefined ? "?" : index + 1}${action ? ` ${action}` : ""}`;
  if (result.reached === false) {
    return `plansight: ${step} is never reached: the plan fails before it.`;
  }
  const atoms = [...strings(result.state)].sort();
  const values = [...strings(result.values)].sort();
  const derived = [...strings(result.derived)].sort();
  const happening = record(result.happening);
  const time = num(happening?.time);
  const at = happening && time !== undefined
    ? ` at time ${time} (happening ${(num(happening.index) ?? 0) + 1})`
    : "";
  const more = [...(values.length ? [plural(values.length, "fluent value")] : []),
    ...(derived.length ? [plural(derived.length, "derived atom")] : [])];
  const title = [`State before ${step}${at}: ${plural(atoms.length, "atom")} true`, ...more].join(", ");
  return { title, atoms, values, derived };
}

/** `plansight.server.repairPlan`: the server edits the plan itself; this is only what it says. */
export function renderRepair(raw: unknown): Rendered {
  const result = record(raw);
  const words = ownWords(result) ?? (typeof raw === "string" && raw.trim() ? raw : undefined);
  const failed = result?.applied === false || result?.repaired === false;
  return {
    summary: words ? `plansight: ${words}` : failed ? "plansight: the plan could not be repaired." : "plansight: the plan was repaired.",
    level: failed ? "warning" : "info",
  };
}

/**
 * The grading report's HTML for a webview, locked down: no scripts, nothing fetched from anywhere;
 * inline styles and inline images (the chart) only. The report quotes students' files, so it is
 * treated as untrusted even though plansight wrote it.
 */
export function lockedDownHtml(html: string): string {
  const policy = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) {
    const at = head.index + head[0].length;
    return html.slice(0, at) + policy + html.slice(at);
  }
  return `<!DOCTYPE html><html><head>${policy}</head><body>${html}</body></html>`;
}
