#!/usr/bin/env bash
# The real-editor end-to-end test: the built .vsix installed into code-server (VS Code in a
# browser, from the npm registry), driven by Debian's Chromium through playwright-core.
#
#   vscode-client/test/e2e-browser/run.sh [path/to/plansight-X.vsix]
#
# Default: the linux-x64 .vsix beside package.json, named by its version. Its planning flows need a
# package that carries Fast Downward (a platform one, not the universal one) and fail without it.
#
# Installs what it needs and nothing else: Debian's chromium, ripgrep and libkrb5-dev (when
# missing; needs root), then code-server and playwright-core from this folder's lockfile.
# No step downloads from outside the package registries:
# - playwright-core never downloads a browser (it is given /usr/bin/chromium);
# - code-server's native modules are built from source (npm_config_build_from_source: no attempt
#   to fetch prebuilt binaries) by node-gyp against the Node headers installed with Node
#   (npm_config_nodedir: no headers download);
# - @vscode/ripgrep, whose install downloads a binary from a code host, finds Debian's `rg` in the
#   download cache it checks first.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
client="$(cd "$here/../.." && pwd)"
vsix="${1:-$client/plansight-linux-x64-$(node -p "require('$client/package.json').version").vsix}"
[[ -f "$vsix" ]] || { echo "run.sh: no $vsix: run vscode-client/scripts/ci.sh first" >&2; exit 1; }
vsix="$(cd "$(dirname "$vsix")" && pwd)/$(basename "$vsix")"

started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }

step "system packages: chromium, ripgrep, Kerberos headers"
missing=()
command -v "${CHROMIUM:-chromium}" >/dev/null || missing+=(chromium)
command -v rg >/dev/null || missing+=(ripgrep)
[[ -f /usr/include/gssapi/gssapi.h ]] || missing+=(libkrb5-dev)  # code-server's `kerberos` module
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then echo "run.sh: install ${missing[*]} (Debian packages) first" >&2; exit 1; fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

step "npm ci (code-server, playwright-core), scripts deferred"
cd "$here"
npm ci --ignore-scripts --no-audit --no-fund

step "code-server's install: native modules, with Debian's ripgrep"
shrinkwrap=node_modules/code-server/lib/vscode/npm-shrinkwrap.json
ripgrep_package=$(node -p "require('./$shrinkwrap').packages['node_modules/@vscode/ripgrep'].version")
# The release of the ripgrep binary that @vscode/ripgrep 1.15.x fetches (its lib/postinstall.js).
ripgrep_release=v13.0.0-10
[[ "$ripgrep_package" == 1.15.* ]] || {
  echo "run.sh: code-server now uses @vscode/ripgrep $ripgrep_package: check its release name in lib/postinstall.js" >&2
  exit 1
}
work="$here/.tmp"  # @vscode/ripgrep's download cache lives in TMPDIR
cache="$work/vscode-ripgrep-cache-$ripgrep_package"
mkdir -p "$cache" "$work/rg"
cp "$(command -v rg)" "$work/rg/rg"
tar -czf "$cache/ripgrep-$ripgrep_release-x86_64-unknown-linux-musl.tar.gz" -C "$work/rg" rg
# code-server refuses to install as root unless told it may; node-pty runs `npx node-gyp` (a
# registry package) and must not stop at npx's question.
nodedir=$(dirname "$(dirname "$(command -v node)")")
[[ -f "$nodedir/include/node/node.h" ]] || { echo "run.sh: no Node headers under $nodedir/include/node" >&2; exit 1; }
TMPDIR="$work" npm_config_unsafe_perm=true npm_config_yes=true npm_config_build_from_source=true \
  npm_config_nodedir="$nodedir" npm rebuild --foreground-scripts >"$work/rebuild.log" 2>&1 \
  || { tail -n 40 "$work/rebuild.log"; exit 1; }

step "the test"
PLANSIGHT_VSIX="$vsix" node --test codeServer.test.mjs
step "done"
