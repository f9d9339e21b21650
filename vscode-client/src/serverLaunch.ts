/**
 * How to start `plansight serve`, decided the way the Python-tool extensions (Ruff, Black, isort)
 * decide it: a `plansight` executable the user named wins; otherwise a Python interpreter (the
 * user's setting, the one selected in the Python extension, or `python3`/`python` on the PATH) runs
 * the copy of plansight bundled in `bundled/libs`, or the one installed in that interpreter's
 * environment when the extension was built without a bundle (a development checkout).
 *
 * This module must not import `vscode`: the Node tests start the real server through it.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The oldest Python plansight supports (`requires-python` in `pyproject.toml`). */
export const MINIMUM_PYTHON: readonly [number, number] = [3, 10];

/** A process to spawn; `env` holds only the variables to add to the extension host's environment. */
export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** For the log and for error messages: where this command came from. */
  origin: string;
}

/** An interpreter to try, and where its name came from (shown to the user when it is unusable). */
export interface InterpreterCandidate {
  command: string;
  origin: string;
}

export interface PythonProbe {
  ok: boolean;
  /** `[major, minor, micro]` when the interpreter answered. */
  version?: [number, number, number];
  /** Why it cannot be used, in words for a notification. */
  problem?: string;
}

/** `Python 3.11.7` (what `python --version` prints) -> `[3, 11, 7]`. */
export function parsePythonVersion(output: string): [number, number, number] | undefined {
  const match = /Python\s+(\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) {
    return undefined;
  }
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

export function isSupportedPython(version: readonly number[]): boolean {
  const [major, minor] = MINIMUM_PYTHON;
  return version[0] > major || (version[0] === major && version[1] >= minor);
}

/**
 * Ask an interpreter for its version (`python --version`), within a time limit: a wrapper script
 * that hangs must not hang the extension.
 */
export function probePython(command: string, timeoutMs = 10_000): Promise<PythonProbe> {
  return new Promise((resolve) => {
    execFile(command, ["--version"], { timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      // Python 2 printed its version on stderr; read both so the message can name it.
      const version = parsePythonVersion(`${stdout}\n${stderr}`);
      if (version === undefined) {
        const reason = error ? (error as NodeJS.ErrnoException).code ?? error.message : "no version printed";
        resolve({ ok: false, problem: `\`${command} --version\` failed (${reason})` });
      } else if (!isSupportedPython(version)) {
        resolve({
          ok: false,
          version,
          problem: `\`${command}\` is Python ${version.join(".")}; plansight needs ${MINIMUM_PYTHON.join(".")} or newer`,
        });
      } else {
        resolve({ ok: true, version });
      }
    });
  });
}

/** The interpreters to try when the user configured none: what a shell would find, in order. */
export function defaultInterpreters(platform: NodeJS.Platform = process.platform): InterpreterCandidate[] {
  const names = platform === "win32" ? ["python", "py"] : ["python3", "python"];
  return names.map((command) => ({ command, origin: "the PATH" }));
}

/**
 * `PYTHONPATH` with the bundled libraries first, so the bundled plansight (and the pygls it was
 * tested with) wins over anything installed in the interpreter's environment.
 */
export function bundledPythonPath(bundledLibs: string, inherited: string | undefined): string {
  return inherited ? `${bundledLibs}${path.delimiter}${inherited}` : bundledLibs;
}

/** `python -m plansight serve`, with the bundle on `PYTHONPATH` when the extension ships one. */
export function pythonServerCommand(
  interpreter: InterpreterCandidate,
  bundledLibs: string | undefined,
  inheritedPythonPath: string | undefined = process.env.PYTHONPATH,
): ServerCommand {
  const env: Record<string, string> = {
    // The protocol runs over stdout: never let Python buffer it, never write .pyc into the bundle.
    PYTHONUNBUFFERED: "1",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  if (bundledLibs !== undefined) {
    env.PYTHONPATH = bundledPythonPath(bundledLibs, inheritedPythonPath);
  }
  return {
    command: interpreter.command,
    args: ["-m", "plansight", "serve"],
    env,
    origin: `${interpreter.command} (from ${interpreter.origin})${bundledLibs ? " with the bundled plansight" : ""}`,
  };
}

/** A `plansight` executable the user named: run as `plansight serve`, no bundle involved. */
export function executableServerCommand(serverPath: string): ServerCommand {
  return { command: serverPath, args: ["serve"], env: {}, origin: `${serverPath} (from plansight.serverPath)` };
}

/** `<extension>/bundled/libs` when the build put plansight there, else `undefined`. */
export function findBundledLibs(extensionRoot: string): string | undefined {
  const libs = path.join(extensionRoot, "bundled", "libs");
  return fs.existsSync(path.join(libs, "plansight")) ? libs : undefined;
}

export type LaunchDecision =
  | { ok: true; server: ServerCommand; python?: PythonProbe }
  | { ok: false; problems: string[] };

/**
 * Pick how to start the server: `serverPath` if set, else the first candidate interpreter that
 * is Python 3.10+. When none qualifies, every reason is returned so the notification can say
 * exactly what was tried.
 */
export async function decideLaunch(options: {
  serverPath?: string;
  interpreters: InterpreterCandidate[];
  bundledLibs: string | undefined;
  probe?: (command: string) => Promise<PythonProbe>;
}): Promise<LaunchDecision> {
  const serverPath = options.serverPath?.trim();
  if (serverPath) {
    return { ok: true, server: executableServerCommand(serverPath) };
  }
  const probe = options.probe ?? probePython;
  const problems: string[] = [];
  for (const candidate of options.interpreters) {
    const result = await probe(candidate.command);
    if (result.ok) {
      return { ok: true, server: pythonServerCommand(candidate, options.bundledLibs), python: result };
    }
    problems.push(`${candidate.origin}: ${result.problem}`);
  }
  return { ok: false, problems };
}
