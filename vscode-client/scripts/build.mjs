// Bundles the extension (dist/extension.js) and the Node tests (out/test/*.test.js) with esbuild.
// One bundle file loads faster in VS Code than hundreds of node_modules files, and lets the .vsix
// ship without node_modules. Usage: node scripts/build.mjs [--production] [--watch]
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  // VS Code 1.82 (the oldest the manifest accepts) runs extensions on Node 18.
  target: "node18",
  logLevel: "warning",
  absWorkingDir: root,
};

const extension = {
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  external: ["vscode"],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
};

const testDir = join(root, "test", "node");
const tests = {
  ...common,
  entryPoints: readdirSync(testDir).filter((name) => name.endsWith(".test.ts")).map((name) => `test/node/${name}`),
  outdir: "out/test",
  sourcemap: "inline",
};

if (watch) {
  const contexts = await Promise.all([esbuild.context(extension), esbuild.context(tests)]);
  await Promise.all(contexts.map((context) => context.watch()));
} else {
  await Promise.all([esbuild.build(extension), esbuild.build(tests)]);
}
