/**
 * The settings the language server reads, in the one shape the extension ever sends them.
 *
 * The keys come from this extension's own `package.json` (`contributes.configuration`), which
 * `scripts/sync-settings.py` keeps identical to the server's schema (`server/settings.py`), so adding
 * a server setting needs no TypeScript change. The same object goes out as `initializationOptions`,
 * in `workspace/didChangeConfiguration` and as the answer to `workspace/configuration`: the server
 * then sees one shape whichever way it asks.
 *
 * This module must not import `vscode`: the Node tests run it against the real server.
 */
import manifest from "../package.json";

/** The configuration section; settings are `plansight.<key>`. */
export const SECTION = "plansight";

/**
 * Settings only the extension reads (how to start the server, protocol tracing). Every other
 * `plansight.*` setting belongs to the server and is sent to it.
 */
export const CLIENT_ONLY_SETTINGS: ReadonlySet<string> = new Set([
  "interpreter",
  "serverPath",
  "trace.server",
  "planner.whenPlanExists",
]);

/** A JSON value, as VS Code's configuration API returns them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The nested `plansight` section sent to the server: `{"diagnostics": {"debounceMs": 20}, ...}`. */
export type ServerSettings = { [key: string]: Json };

/** Reads one setting by its key relative to the section (`diagnostics.debounceMs`). */
export type SettingReader = (key: string) => unknown;

const PREFIX = `${SECTION}.`;

/** Every setting declared in `package.json`, keyed relative to the section, with its declared default. */
export function declaredSettings(): ReadonlyMap<string, Json> {
  const properties = manifest.contributes.configuration.properties as Record<string, { default?: Json }>;
  const declared = new Map<string, Json>();
  for (const [fullKey, schema] of Object.entries(properties)) {
    if (fullKey.startsWith(PREFIX)) {
      declared.set(fullKey.slice(PREFIX.length), schema.default ?? null);
    }
  }
  return declared;
}

/** The keys (relative to the section) of the settings the server reads. */
export function serverSettingKeys(): string[] {
  return [...declaredSettings().keys()].filter((key) => !CLIENT_ONLY_SETTINGS.has(key));
}

/**
 * The `plansight` section for the server, nested by dots.
 *
 * Values are passed through as the user wrote them: the server validates each one and tells the
 * user about a bad value, which is better than the extension silently dropping it. A value that is
 * not JSON (cannot happen with VS Code's configuration, but a reader is only a function) is left out.
 */
export function buildServerSettings(read: SettingReader): ServerSettings {
  const section: ServerSettings = {};
  for (const key of serverSettingKeys()) {
    const value = read(key);
    if (value === undefined || !isJson(value)) {
      continue;
    }
    const parts = key.split(".");
    let node = section;
    for (const part of parts.slice(0, -1)) {
      const child = node[part];
      if (child === null || typeof child !== "object" || Array.isArray(child)) {
        node[part] = {};
      }
      node = node[part] as ServerSettings;
    }
    node[parts[parts.length - 1]] = value;
  }
  return section;
}

/** What the extension sends as `initializationOptions`: `{"plansight": {...}}`, as the server expects. */
export function buildInitializationOptions(read: SettingReader): { [SECTION]: ServerSettings } {
  return { [SECTION]: buildServerSettings(read) };
}

function isJson(value: unknown): value is Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") {
    return true;
  }
  if (typeof value === "number") {
    return Number.isFinite(value);
  }
  if (Array.isArray(value)) {
    return value.every(isJson);
  }
  if (typeof value === "object") {
    return Object.values(value as object).every(isJson);
  }
  return false;
}
