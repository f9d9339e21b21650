/**
 * The server's commands that the extension's own commands run (`workspace/executeCommand`), the
 * arguments each takes, and what the user is told when a server cannot run one.
 *
 * Every server command takes one object (`{uri}`, `{uri, line}`, `{folder, reference, report}`), so
 * the extension and the server agree on names rather than on argument positions. A server older
 * than the extension may not have a command yet: the user is told so in words ("this server does not
 * support plan repair yet"), never shown a protocol error.
 *
 * The ids and argument objects are the server's own table (`serverProtocol.ts`, generated from
 * server/commands.py); the words and progress titles here are the extension's.
 *
 * This module must not import `vscode`: the Node tests run it against the real server.
 */
import { SERVER_COMMAND_IDS } from "./serverProtocol";

export type { GradeArguments, StepArguments, UriArguments } from "./serverProtocol";

export interface ServerCommand {
  /** The server's command id; they all start with `plansight.server.`. */
  id: string;
  /** What it does, for messages: "this server does not support {feature} yet". */
  feature: string;
  /** What runs while it works, for the progress notification. */
  progress: string;
}

export const SERVER_COMMANDS = {
  simulatePlan: { id: SERVER_COMMAND_IDS.simulatePlan, feature: "plan validation", progress: "Validating the plan" },
  repairPlan: { id: SERVER_COMMAND_IDS.repairPlan, feature: "plan repair", progress: "Repairing the plan" },
  solveProblem: { id: SERVER_COMMAND_IDS.solveProblem, feature: "planning", progress: "Planning" },
  checkEquivalence: {
    id: SERVER_COMMAND_IDS.checkEquivalence,
    feature: "equivalence checking",
    progress: "Checking equivalence with the reference",
  },
  gradeFolder: { id: SERVER_COMMAND_IDS.gradeFolder, feature: "grading", progress: "Grading the submissions" },
  stateAtStep: {
    id: SERVER_COMMAND_IDS.stateAtStep,
    feature: "showing the state at a plan step",
    progress: "Simulating the plan",
  },
  planView: { id: SERVER_COMMAND_IDS.planView, feature: "the plan view", progress: "Drawing the plan view" },
  modelView: { id: SERVER_COMMAND_IDS.modelView, feature: "the model view", progress: "Drawing the model view" },
} as const satisfies Record<string, ServerCommand>;

/** The `workspace/executeCommand` parameters: the one argument object, as the only argument. */
export function executeCommandParams(command: ServerCommand, argument: object): { command: string; arguments: unknown[] } {
  return { command: command.id, arguments: [argument] };
}

/** What a run came to. `unsupported` and `notRunning` are not failures of the user's file. */
export type Outcome =
  | { kind: "done"; result: unknown }
  | { kind: "unsupported"; message: string }
  | { kind: "notRunning"; message: string }
  | { kind: "cancelled" }
  | { kind: "failed"; message: string };

/** What the extension needs from the language client to run a server command. */
export interface CommandRunner {
  /** The commands the server announced at `initialize`; undefined when no server is running. */
  serverCommands(): readonly string[] | undefined;
  /** Send `workspace/executeCommand`; rejects with the server's error. */
  execute(params: { command: string; arguments: unknown[] }, token?: unknown): Promise<unknown>;
}

export function unsupportedMessage(command: ServerCommand): string {
  return (
    `plansight: this server does not support ${command.feature} yet (it has no \`${command.id}\` command). ` +
    "Update plansight, or point plansight.serverPath at a newer one."
  );
}

// JSON-RPC codes: the request was cancelled by the client / the server does not know the method.
const REQUEST_CANCELLED = -32800;
const METHOD_NOT_FOUND = -32601;

/** pygls answers an unknown command with "Command name '…' is not defined"; other servers differ. */
const UNKNOWN_COMMAND = /is not defined|unknown command|command not found|no such command|not (?:a )?registered/i;

function errorParts(error: unknown): { code: number | undefined; message: string } {
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { code: typeof code === "number" ? code : undefined, message: typeof message === "string" ? message : String(error) };
  }
  return { code: undefined, message: String(error) };
}

/** Run a server command and classify what happened; never throws. */
export async function runServerCommand(
  runner: CommandRunner,
  command: ServerCommand,
  argument: object,
  token?: unknown,
): Promise<Outcome> {
  const announced = runner.serverCommands();
  if (announced === undefined) {
    return {
      kind: "notRunning",
      message: `plansight: the language server is not running, so ${command.feature} is unavailable. ` +
        "See the plansight output channel, or run \"plansight: Restart the language server\".",
    };
  }
  if (!announced.includes(command.id)) {
    return { kind: "unsupported", message: unsupportedMessage(command) };
  }
  try {
    return { kind: "done", result: await runner.execute(executeCommandParams(command, argument), token) };
  } catch (error) {
    const { code, message } = errorParts(error);
    if (code === REQUEST_CANCELLED || (token as { isCancellationRequested?: boolean } | undefined)?.isCancellationRequested) {
      return { kind: "cancelled" };
    }
    if (code === METHOD_NOT_FOUND || UNKNOWN_COMMAND.test(message)) {
      return { kind: "unsupported", message: unsupportedMessage(command) };
    }
    return { kind: "failed", message: `plansight: ${command.feature} failed: ${message}` };
  }
}

/**
 * The extension command that shows a server command's result. The server's code lenses name its own
 * commands (so that every editor can run them); in VS Code a click should also show the verdict, so
 * the lens is pointed at the extension's command, which runs the server's and shows what it said.
 */
const CLIENT_COMMAND_FOR: Readonly<Record<string, string>> = {
  [SERVER_COMMANDS.simulatePlan.id]: "plansight.validatePlan",
  [SERVER_COMMANDS.repairPlan.id]: "plansight.repairPlan",
  [SERVER_COMMANDS.checkEquivalence.id]: "plansight.checkEquivalence",
  [SERVER_COMMANDS.planView.id]: "plansight.showPlanView",
  [SERVER_COMMANDS.modelView.id]: "plansight.showModelView",
  [SERVER_COMMANDS.solveProblem.id]: "plansight.planProblem",
};

export function clientCommandFor(serverCommand: string): string | undefined {
  return CLIENT_COMMAND_FOR[serverCommand];
}
