/**
 * The language server's commands (`workspace/executeCommand`) and custom requests: their ids, the
 * one argument object each takes and the JSON each answers.
 *
 * GENERATED from the server's table (server/commands.py) by scripts/sync-server-commands.py
 * --write; do not edit by hand. A Python test fails when this file and the server's table differ.
 * The results are what the server sends; the extension still reads them defensively, since a server
 * of another version may send less.
 *
 * This module must not import `vscode`.
 */

/** The `workspace/executeCommand` ids, by the name the extension's code uses. */
export const SERVER_COMMAND_IDS = {
  simulatePlan: "plansight.server.simulatePlan",
  stateAtStep: "plansight.server.stateAtStep",
  repairPlan: "plansight.server.repairPlan",
  solveProblem: "plansight.server.solveProblem",
  checkEquivalence: "plansight.server.checkEquivalence",
  gradeFolder: "plansight.server.gradeFolder",
  ltlReport: "plansight.server.ltlReport",
  planView: "plansight.server.planView",
  modelView: "plansight.server.modelView",
} as const;

/** The custom request methods, by the name the extension's code uses. */
export const SERVER_REQUEST_METHODS = {
  association: "plansight/association",
} as const;

/** The argument object of each command and request. */
export interface ServerArguments {
  simulatePlan: UriArguments;
  stateAtStep: StepArguments;
  repairPlan: UriArguments;
  solveProblem: UriArguments;
  checkEquivalence: UriArguments;
  gradeFolder: GradeArguments;
  ltlReport: UriArguments;
  planView: UriArguments;
  modelView: UriArguments;
  association: UriArguments;
}

/** What each one answers (`null`: nothing to say for this document or line). */
export interface ServerResults {
  simulatePlan: SimulatePlanResult;
  stateAtStep: StateAtStepResult | null;
  repairPlan: RepairPlanResult;
  solveProblem: SolveProblemResult;
  checkEquivalence: CheckEquivalenceResult;
  gradeFolder: GradeFolderResult;
  ltlReport: LtlReportResult | null;
  planView: ViewResult;
  modelView: ViewResult;
  association: AssociationResult;
}

/**
 * The document a command works on.
 */
export interface UriArguments {
  uri: string;
}

export interface StepArguments {
  uri: string;
  line: number;
}

/**
 * File-system paths: the server reads the folder and the reference, and writes the report.
 */
export interface GradeArguments {
  folder: string;
  reference: string;
  report: string;
}

/**
 * The `plansight plan --format json` report of the plan, as the editor has it.
 */
export interface SimulatePlanResult {
  path: string;
  length: number | null;
  executable: boolean | null;
  valid: boolean | null;
  lea: number | null;
  failure: PlanFailure | null;
  goals: PlanGoals | null;
  trace: PlanTraceStep[];
  reference: Record<string, unknown> | null;
  recovery: Record<string, unknown> | null;
  skipped_reason: string | null;
  stopped_reason: string | null;
  redundant: number[];
  domain: string | null;
  problem: string | null;
  error: string | null;
  metric: Record<string, unknown> | null;
  pddl3: Record<string, unknown> | null;
}

/**
 * The state before the step on a line (the command answers `null` on a line without a step): its basic
 * atoms, its fluent values as `:init` writes them, the atoms the `:derived` rules add, and for a
 * temporal plan the happening the step starts at (the state is the one before it).
 */
export interface StateAtStepResult {
  index: number;
  action: string;
  state: string[];
  values: string[];
  derived: string[];
  happening: StepHappening | null;
  reached: boolean;
}

/**
 * The planner's repair; `applied` says whether the plan was rewritten. A plan that cannot be read gets
 * only `status` and `message`.
 */
export interface RepairPlanResult {
  status?: string;
  message?: string;
  applied?: boolean;
  prefix?: string[];
  completion?: string[];
  plan?: string[] | null;
  planner?: string;
  prefix_rule?: string;
  seconds?: number;
}

/**
 * The planner's outcome for the problem (`status`: `solved`, `unsolvable`, `budget-exceeded`,
 * `planner-error`, `cancelled`, or `skipped` when the problem or its domain cannot be read), the plan
 * as the planner wrote it, and what plansight's simulator says of it (`valid`, `verdict`).
 */
export interface SolveProblemResult {
  status: string;
  message: string;
  planner: string;
  plan: string | null;
  output: string;
  seconds: number;
  exit_code: number | null;
  valid: boolean | null;
  verdict: string | null;
  problem: string;
  domain: string | null;
}

/**
 * A verdict against the reference problem, or only a `message` saying why there is none.
 */
export interface CheckEquivalenceResult {
  message?: string;
  candidate?: string;
  parseable?: boolean;
  solvable?: boolean | null;
  equivalent?: boolean | null;
  mode?: string;
  explanation?: string;
  method?: string;
  reference?: string;
  summary?: string;
}

/**
 * Where the report was written and the count of each verdict, or only a `message`.
 */
export interface GradeFolderResult {
  message?: string;
  report?: string;
  summary?: string;
  counts?: Record<string, number>;
}

/**
 * What `plansight ltl --format json` prints for the document (`null` for a non-LTL file).
 */
export interface LtlReportResult {
  path: string;
  satisfied: boolean | null;
  satisfied_at: number | null;
  f1: number | null;
  failures: LtlFailure[];
  notes: string[];
}

/**
 * A view page (`plansight plan --report`'s or `plansight model --report`'s) to show in a webview:
 * self-contained HTML under its own Content-Security-Policy, and a title for the tab.
 */
export interface ViewResult {
  title: string;
  html: string;
}

/**
 * Which domain and problem a file is checked against, by which rule; `reference` is a problem's
 * reference problem, `referencePlan` a plan's ground-truth plan.
 */
export interface AssociationResult {
  kind: "domain" | "problem" | "plan" | "ltl" | "unknown";
  domain: DomainLink | null;
  problem: Link | null;
  reference: Link | null;
  referencePlan: Link | null;
}

export interface PlanFailure {
  index: number;
  action: string;
  category: string;
  unsatisfied: string[];
  message: string;
}

export interface PlanGoals {
  satisfied: string[];
  unsatisfied: string[];
  fraction: number;
}

export interface PlanTraceStep {
  index: number;
  action: string;
  added: string[];
  deleted: string[];
  changed: PlanValueChange[];
  derived_added: string[];
  derived_deleted: string[];
}

/**
 * Where a temporal plan's step starts: its start happening (0-based) and time, and every snap action
 * of that happening (`(drive t1 a b) start, (at 2 (open a))`).
 */
export interface StepHappening {
  index: number;
  time: number;
  label: string;
}

export interface LtlFailure {
  message: string;
  range: LtlRange;
}

export interface DomainLink {
  path: string;
  name: string | null;
  how: "flag" | "directive" | "setting" | "convention" | null;
}

export interface Link {
  path: string;
  how: "flag" | "directive" | "setting" | "convention" | null;
}

export interface PlanValueChange {
  term: string;
  before: number | string | null;
  after: number | string | null;
}

export interface LtlRange {
  start: LtlPosition;
  end: LtlPosition;
}

export interface LtlPosition {
  line: number;
  character: number;
}
