/**
 * The language client's life: decide how to start the server, start it, restart it when the
 * settings that choose the server change, and keep its settings in step with VS Code's.
 *
 * The server receives its settings in one shape whichever way it asks (see `serverSettings.ts`):
 * as `initializationOptions`, pushed in `workspace/didChangeConfiguration`, and as the answer to a
 * `workspace/configuration` pull, where the middleware replaces VS Code's raw section (which also
 * holds the client-only settings) with the server's view of it.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import {
  type CancellationToken,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
} from "vscode-languageclient/node";

import { selectedInterpreter } from "./pythonExtension";
import {
  decideLaunch,
  defaultInterpreters,
  findBundledLibs,
  type InterpreterCandidate,
  MINIMUM_PYTHON,
  type ServerCommand,
} from "./serverLaunch";
import { clientCommandFor, type CommandRunner } from "./serverCommands";
import { buildInitializationOptions, buildServerSettings, SECTION, type SettingReader } from "./serverSettings";

/** The languages the server analyses. LTL joins when the server checks `.ltl` files. */
export const SERVED_LANGUAGES = ["pddl", "pddl-plan"] as const;

/** Settings that choose which server runs: changing one restarts it. */
const LAUNCH_SETTINGS = ["interpreter", "serverPath"].map((key) => `${SECTION}.${key}`);

function readerFor(scope?: vscode.Uri): SettingReader {
  const configuration = vscode.workspace.getConfiguration(SECTION, scope);
  return (key) => configuration.get(key);
}

/** `${workspaceFolder}` and a leading `~` in a configured path, as users write them in other tools. */
function expandPath(configured: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  return configured
    .replace(/\$\{workspaceFolder\}/g, folder)
    .replace(/^~(?=$|[\\/])/, os.homedir());
}

export class ServerController implements vscode.Disposable, CommandRunner {
  private client: LanguageClient | undefined;
  /** Serialises start/stop/restart, so two quick restarts cannot leave two servers running. */
  private queue: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionRoot: string,
    private readonly output: vscode.OutputChannel,
  ) {
    this.subscriptions.push(vscode.workspace.onDidChangeConfiguration((event) => this.configurationChanged(event)));
  }

  start(): Promise<void> {
    return this.enqueue(() => this.startNow());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopNow());
  }

  /** Send a request to the running server; undefined when none is running (starting, or failed). */
  async sendRequest<R>(method: string, params: unknown): Promise<R | undefined> {
    const client = this.client;
    if (!client?.isRunning()) {
      return undefined;
    }
    return client.sendRequest<R>(method, params);
  }

  /** The commands the running server announced; undefined when none is running. */
  serverCommands(): readonly string[] | undefined {
    const client = this.client;
    if (!client?.isRunning()) {
      return undefined;
    }
    return client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  }

  /** `workspace/executeCommand` on the running server; rejects with the server's error. */
  async execute(params: { command: string; arguments: unknown[] }, token?: unknown): Promise<unknown> {
    const client = this.client;
    if (!client?.isRunning()) {
      throw new Error("the language server is not running");
    }
    return client.sendRequest(ExecuteCommandRequest.type, params, token as CancellationToken | undefined);
  }

  /** Restart if the interpreter came from the Python extension (an explicit setting wins over it). */
  pythonInterpreterChanged(): void {
    const configuration = vscode.workspace.getConfiguration(SECTION);
    if (!configuration.get<string>("serverPath")?.trim() && !configuration.get<string>("interpreter")?.trim()) {
      this.log("the Python extension selected another interpreter: restarting the server");
      void this.restart();
    }
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
    void this.stop();
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(work, work);
    return this.queue;
  }

  private log(message: string): void {
    this.output.appendLine(`[client ${new Date().toISOString()}] ${message}`);
  }

  private async interpreters(): Promise<InterpreterCandidate[]> {
    const configured = vscode.workspace.getConfiguration(SECTION).get<string>("interpreter")?.trim();
    if (configured) {
      // The user's explicit choice is not second-guessed with another interpreter.
      return [{ command: expandPath(configured), origin: `${SECTION}.interpreter` }];
    }
    const candidates: InterpreterCandidate[] = [];
    const selected = await selectedInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri);
    if (selected) {
      candidates.push({ command: selected, origin: "the Python extension's selected interpreter" });
    }
    return [...candidates, ...defaultInterpreters()];
  }

  private async startNow(): Promise<void> {
    if (this.client) {
      return;
    }
    const serverPath = vscode.workspace.getConfiguration(SECTION).get<string>("serverPath");
    const decision = await decideLaunch({
      serverPath: serverPath ? expandPath(serverPath) : undefined,
      interpreters: await this.interpreters(),
      bundledLibs: findBundledLibs(this.extensionRoot),
    });
    if (!decision.ok) {
      decision.problems.forEach((problem) => this.log(problem));
      void this.explainNoPython(decision.problems);
      return;
    }
    this.log(`starting the server: ${decision.server.origin}: ${decision.server.command} ${decision.server.args.join(" ")}`);
    const client = new LanguageClient(SECTION, "plansight", serverOptions(decision.server), this.clientOptions());
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      this.log(`the server did not start: ${String(error)}`);
      void this.explainStartFailure(decision.server, error);
    }
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5_000);
      } catch (error) {
        this.log(`stopping the server: ${String(error)}`);
      }
    }
  }

  private clientOptions(): LanguageClientOptions {
    const middleware: Middleware = {
      // A lens that runs a server command runs the extension's command instead, which shows the result.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const lens of lenses ?? []) {
          const command = lens.command && clientCommandFor(lens.command.command);
          if (lens.command && command) {
            lens.command = { ...lens.command, command, arguments: [document.uri] };
          }
        }
        return lenses;
      },
      workspace: {
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers; // an error: pass it on
          }
          return answers.map((answer: unknown, index) => {
            const item = params.items[index];
            if (item?.section !== SECTION) {
              return answer;
            }
            return buildServerSettings(readerFor(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined));
          });
        },
      },
    };
    return {
      documentSelector: SERVED_LANGUAGES.flatMap((language) => [
        { scheme: "file", language },
        { scheme: "untitled", language },
      ]),
      initializationOptions: buildInitializationOptions(readerFor()),
      outputChannel: this.output,
      middleware,
    };
  }

  private configurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (!event.affectsConfiguration(SECTION)) {
      return;
    }
    if (LAUNCH_SETTINGS.some((key) => event.affectsConfiguration(key))) {
      this.log("the server's interpreter or path changed: restarting the server");
      void this.restart();
      return;
    }
    const client = this.client;
    if (client?.isRunning()) {
      void client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: buildInitializationOptions(readerFor()),
      });
    }
  }

  private async explainNoPython(problems: string[]): Promise<void> {
    const minimum = MINIMUM_PYTHON.join(".");
    const choice = await vscode.window.showErrorMessage(
      `plansight needs Python ${minimum} or newer to run its language server, and found none. ` +
        `${problems.join("; ")}. Install Python ${minimum}+, or set "plansight.interpreter" to one` +
        ` (or "plansight.serverPath" to a plansight executable).`,
      "Open settings",
      "Show log",
    );
    await this.followUp(choice);
  }

  private async explainStartFailure(server: ServerCommand, error: unknown): Promise<void> {
    const choice = await vscode.window.showErrorMessage(
      `plansight could not start its language server with ${server.origin}: ${String(error)}.` +
        ` Check "plansight.serverPath" and "plansight.interpreter".`,
      "Open settings",
      "Show log",
    );
    await this.followUp(choice);
  }

  private async followUp(choice: string | undefined): Promise<void> {
    if (choice === "Open settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", `@ext:plansight.plansight`);
    } else if (choice === "Show log") {
      this.output.show(true);
    }
  }
}

/** Over stdio; no `transport` field, which would append `--stdio` to the exact command we log. */
function serverOptions(server: ServerCommand): ServerOptions {
  return {
    command: server.command,
    args: server.args,
    options: { env: { ...process.env, ...server.env } },
  };
}
