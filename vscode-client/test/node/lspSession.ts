/**
 * A minimal LSP client for the tests, on the same protocol stack as `vscode-languageclient`
 * (`vscode-languageserver-protocol` over stdio), talking to the real `plansight serve` started the
 * way the extension starts it (`decideLaunch` in `src/serverLaunch.ts`).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  type ClientCapabilities,
  createProtocolConnection,
  type Diagnostic,
  DidChangeConfigurationNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  type ProtocolConnection,
  type ServerCapabilities,
  PublishDiagnosticsNotification,
  ShowMessageNotification,
  type ShowMessageParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";

import { decideLaunch, findBundledLibs, type ServerCommand } from "../../src/serverLaunch";

/** `vscode-client/` (the tests run from `out/test/`, built from `test/node/`). */
export const CLIENT_ROOT = path.resolve(__dirname, "..", "..");
export const REPO_ROOT = path.resolve(CLIENT_ROOT, "..");

/**
 * The interpreter the tests run the server with: `PLANSIGHT_TEST_PYTHON`, else the repository's
 * virtual environment. With `bundled/libs` built it runs the bundled plansight, as the .vsix does.
 */
export function testInterpreter(): string {
  return process.env.PLANSIGHT_TEST_PYTHON ?? path.join(REPO_ROOT, ".venv", "bin", "python");
}

/** The command the extension would run, resolved by the extension's own code. */
export async function serverCommand(): Promise<ServerCommand> {
  const bundledLibs = findBundledLibs(CLIENT_ROOT);
  if (process.env.PLANSIGHT_TEST_REQUIRE_BUNDLE === "1" && bundledLibs === undefined) {
    throw new Error("PLANSIGHT_TEST_REQUIRE_BUNDLE=1 but bundled/libs has no plansight: run scripts/bundle-python.sh");
  }
  const decision = await decideLaunch({
    interpreters: [{ command: testInterpreter(), origin: "the tests" }],
    bundledLibs,
  });
  if (!decision.ok) {
    throw new Error(`no usable Python for the server: ${decision.problems.join("; ")}`);
  }
  return decision.server;
}

export function fileUri(file: string): string {
  return pathToFileURL(file).toString();
}

export class LspSession {
  readonly messages: ShowMessageParams[] = [];
  /** What the server announced at `initialize`. */
  capabilities: ServerCapabilities = {};
  private readonly diagnostics = new Map<string, Diagnostic[]>();
  private readonly waiters: Array<() => void> = [];
  private stderr = "";

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.diagnostics.set(params.uri, params.diagnostics);
      this.waiters.splice(0).forEach((wake) => wake());
    });
    connection.onNotification(ShowMessageNotification.type, (params) => this.messages.push(params));
    connection.onNotification(LogMessageNotification.type, () => undefined);
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
  }

  /** Start the server and complete the initialize handshake with these options. */
  static async start(options: {
    workspace: string;
    initializationOptions: unknown;
    capabilities?: ClientCapabilities;
    /** Answers `workspace/configuration` when the capabilities announce it. */
    configuration?: (section: string | undefined, scopeUri: string | undefined) => unknown;
  }): Promise<LspSession> {
    const server = await serverCommand();
    const child = spawn(server.command, server.args, {
      env: { ...process.env, ...server.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const session = new LspSession(child, connection);
    connection.onRequest("workspace/configuration", (params: { items: { section?: string; scopeUri?: string }[] }) =>
      params.items.map((item) => options.configuration?.(item.section, item.scopeUri) ?? null),
    );
    connection.listen();
    const initialized = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: fileUri(options.workspace),
      workspaceFolders: [{ uri: fileUri(options.workspace), name: path.basename(options.workspace) }],
      capabilities: options.capabilities ?? {},
      initializationOptions: options.initializationOptions,
    });
    session.capabilities = initialized.capabilities;
    await connection.sendNotification(InitializedNotification.type, {});
    return session;
  }

  async open(file: string, languageId: string, text = fs.readFileSync(file, "utf8")): Promise<string> {
    const uri = fileUri(file);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version: 1, text },
    });
    return uri;
  }

  async changeConfiguration(settings: unknown): Promise<void> {
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings });
  }

  /** The first publication for `uri` that satisfies `accept`, or a failure naming what did arrive. */
  async diagnosticsFor(
    uri: string,
    accept: (diagnostics: Diagnostic[]) => boolean,
    timeoutMs = 20_000,
  ): Promise<Diagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = this.diagnostics.get(uri);
      if (current && accept(current)) {
        return current;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `no acceptable diagnostics for ${uri} within ${timeoutMs} ms; last: ${JSON.stringify(current)}\n` +
            `server stderr:\n${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Shut down politely, and make sure the process is gone even if the server misbehaves. */
  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) {
        resolve();
      } else {
        this.child.once("exit", () => resolve());
      }
    });
    try {
      await Promise.race([this.connection.sendRequest(ShutdownRequest.type), delay(5_000)]);
      await this.connection.sendNotification(ExitNotification.type);
    } finally {
      const killer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
      this.connection.dispose();
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
