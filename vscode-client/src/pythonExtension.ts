/**
 * The interpreter selected in the Python extension (`ms-python.python`), when it is installed.
 *
 * The Python extension is optional: without it, or when it has no interpreter selected, this
 * returns `undefined` and the caller falls back to the PATH. Only the few members used here are
 * typed (the shape of its documented `environments` API), so the extension needs no extra package.
 */
import * as vscode from "vscode";

const PYTHON_EXTENSION_ID = "ms-python.python";

interface EnvironmentPath {
  readonly id: string;
  readonly path: string;
}

interface ResolvedEnvironment {
  readonly executable: { readonly uri?: vscode.Uri };
}

interface PythonExtensionApi {
  readonly environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
    resolveEnvironment(environment: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
    readonly onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined; // a broken Python extension must not stop plansight
  }
}

/** The selected interpreter's executable for `resource`'s workspace folder, if any. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const environments = (await pythonApi())?.environments;
  if (!environments) {
    return undefined;
  }
  try {
    const active = environments.getActiveEnvironmentPath(resource);
    const resolved = await environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath;
  } catch {
    return undefined;
  }
}

/** Call `listener` when the user selects another interpreter in the Python extension. */
export async function onDidChangeInterpreter(listener: () => void): Promise<vscode.Disposable | undefined> {
  const environments = (await pythonApi())?.environments;
  return environments?.onDidChangeActiveEnvironmentPath(() => listener());
}
