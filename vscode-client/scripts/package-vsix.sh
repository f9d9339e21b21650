#!/usr/bin/env bash
# Build the .vsix files: the universal (pure-Python) one and one per platform, each carrying that
# platform's compiled wheels, a stripped Fast Downward (where a wheel exists) and WordNet 3.0
# (scripts/bundle_platform.py says what and why). Needs node_modules (npm ci) and the pure bundle
# (scripts/bundle-python.sh) first; reproducible: the archives are normalised (normalize_vsix.py).
#
#   scripts/package-vsix.sh [TARGET...]    default: universal and all five platforms
#
# Writes plansight-<version>.vsix (universal) and plansight-<target>-<version>.vsix.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x ../.venv/bin/python ]]; then PYTHON=../.venv/bin/python; else PYTHON=python3; fi
fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 universal)
version=$(node -p 'require("./package.json").version')
for target in "${targets[@]}"; do
  "$PYTHON" scripts/bundle_platform.py "$target"
  if [[ $target == universal ]]; then
    out="plansight-$version.vsix"
    npm run --silent package -- --out "$out"
  else
    out="plansight-$target-$version.vsix"
    npm run --silent package -- --target "$target" --out "$out"
  fi
  "$PYTHON" scripts/normalize_vsix.py "$out"
  echo "$out: $(du -h "$out" | cut -f1)"
done
