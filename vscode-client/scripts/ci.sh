#!/usr/bin/env bash
# Everything the extension needs, from a clean checkout: install the locked npm packages, type-check,
# bundle the Python server, build and package the linux-x64 and universal .vsix (and check what the
# first carries, with a bare Python), check the settings schema and the server command table, and
# run the grammar tests and the Node tests (which drive the real server through the extension's
# code).
# Exits non-zero on the first failure.
#
#   vscode-client/scripts/ci.sh [--with-browser]
#
# --with-browser also runs the real-editor test (test/e2e-browser/run.sh: code-server + Chromium),
# which installs Debian packages when they are missing and about 300 MB of npm packages.
#
# PYTHON runs pip for the bundle and pytest for the .vsix test (default: the repository's .venv).
# PLANSIGHT_TEST_PYTHON runs the server in the tests (default: python3 from the PATH, as the
# extension would find it; PLANSIGHT_TEST_REQUIRE_BUNDLE makes the tests run the bundled server).
set -euo pipefail
cd "$(dirname "$0")/.."
with_browser=false
case "${1:-}" in
  "") ;;
  --with-browser) with_browser=true ;;
  *) echo "usage: $0 [--with-browser]" >&2; exit 2 ;;
esac

started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }

step "npm ci"
npm ci --no-audit --no-fund

step "type-check"
npm run --silent typecheck

step "bundle the Python server into bundled/libs"
scripts/bundle-python.sh

step "settings: package.json mirrors server/settings.py"
PYTHONPATH=bundled/libs python3 scripts/sync-settings.py

step "server commands: src/serverProtocol.ts is what server/commands.py generates"
PYTHONPATH=bundled/libs python3 scripts/sync-server-commands.py

# Two of the six packages (`make vsix` builds all): the universal one, then linux-x64, which leaves
# bundled/ as a Linux user's package holds it (Fast Downward, WordNet, the compiled modules), so the
# Node tests below run the server as that user gets it, whatever python3 has installed.
step "build and package the universal and linux-x64 .vsix"
rm -f ./*.vsix
scripts/package-vsix.sh universal linux-x64
vsix=$(ls ./plansight-[0-9]*.vsix)
test -s "$vsix"

step "the linux-x64 .vsix: its contents, and WordNet and Fast Downward with a bare Python"
"${PYTHON:-../.venv/bin/python}" -m pytest -q -p no:cacheprovider test/bundle/test_platform_vsix.py

step "grammar tests"
npm run --silent test:grammar

step "Node tests (protocol end to end with the bundled server)"
npm run --silent build
PLANSIGHT_TEST_REQUIRE_BUNDLE=1 PLANSIGHT_TEST_PYTHON="${PLANSIGHT_TEST_PYTHON:-python3}" node --test out/test/

if $with_browser; then
  # The linux-x64 one: its planning flows need the Fast Downward it bundles.
  step "real editor: the linux-x64 .vsix in code-server, driven by Chromium"
  test/e2e-browser/run.sh "plansight-linux-x64-$(node -p 'require("./package.json").version').vsix"
fi

step "done: $vsix"
