#!/usr/bin/env bash
# Bundle plansight and its pure-Python dependencies into bundled/libs, the way the Python-tool
# extensions (Ruff, Black, isort) ship their server: the .vsix then runs with any Python 3.10+ the
# user has, without installing anything into the user's environments.
#
# Only pure-Python wheels are accepted (--abi none --platform any): a dependency that gains a
# compiled part fails here, not on a user's machine with another OS or Python. pip evaluates
# dependency markers for the Python that runs it, not for --python-version, so the requirements
# that only some supported Pythons need (`exceptiongroup; python_version < "3.11"` for cattrs on
# 3.10) are added afterwards until every supported version (3.10 to 3.14) has what it needs.
#
# Six dependencies are not bundled here, because they have no pure-Python wheel: up-fast-downward
# (the Fast Downward binary: plan repair), unified-planning (its ConfigSpace/numpy stack; plansight
# never needs it at run time), rustworkx (the fast graph isomorphism of equivalence checks; networkx,
# which is bundled, answers the same more slowly), orjson (fast encoding of large replies; the
# standard json module is the fallback), and numpy with scipy (the exact solver of goal F1 on goals
# whose choices share many conditions, tens of megabytes per platform and Python: without them such
# an F1 is "not computed", with the command that installs them); nor is `regex`, the compiled part of
# nltk (nltk itself and its other dependencies are pure and bundled). scripts/bundle_platform.py adds the compiled ones (all
# but unified-planning) and WordNet for each `vsce package --target`; this pure bundle alone is the
# universal package. plansight imports them only when a feature needs them and says so when they are
# missing; installing them into the interpreter the extension uses (`python -m pip install
# up-fast-downward regex rustworkx orjson`) turns those features on, since the bundle is put in
# front of that interpreter's own site-packages, not instead of them. Any other dependency without
# a pure wheel fails the bundle.
#
# Usage: scripts/bundle-python.sh   (PYTHON=... to choose the interpreter that runs pip)
set -euo pipefail

client="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$client/.." && pwd)"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x "$repo/.venv/bin/python" ]]; then PYTHON="$repo/.venv/bin/python"; else PYTHON=python3; fi
fi
libs="$client/bundled/libs"
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT

"$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$wheels" "$repo"
rm -rf "$libs"
pure_install() {
  "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-compile --no-warn-script-location \
    --no-warn-conflicts --target "$libs" --python-version 3.10 --implementation py --abi none \
    --platform any --only-binary=:all: "$@"
}
not_bundled=(up-fast-downward unified-planning regex rustworkx orjson numpy scipy)
# nltk is pure but requires regex: installed without its requirements, which the loop below completes
no_deps=(nltk)
pure_install --no-deps "$wheels"/plansight-*.whl
mapfile -t requirements < <("$PYTHON" - "$libs" "${not_bundled[@]}" "${no_deps[@]}" <<'PY'
import sys
from importlib.metadata import distributions

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip always carries a copy
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name

# plansight's own requirements (not its extras), less the ones that are not bundled
skipped = {canonicalize_name(name) for name in sys.argv[2:]}
(plansight,) = [d for d in distributions(path=[sys.argv[1]]) if canonicalize_name(d.metadata["Name"]) == "plansight"]
for line in plansight.requires or ():
    req = Requirement(line)
    if req.marker is not None and "extra" in str(req.marker):
        continue
    if canonicalize_name(req.name) not in skipped:
        print(line)
PY
)
echo "not bundled (no pure-Python wheel; optional at run time): ${not_bundled[*]}"
pure_install "${requirements[@]}"
mapfile -t no_deps_requirements < <("$PYTHON" - "$wheels"/plansight-*.whl "${no_deps[@]}" <<'PY'
import sys
import zipfile

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip always carries a copy
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name

wanted = {canonicalize_name(name) for name in sys.argv[2:]}
with zipfile.ZipFile(sys.argv[1]) as wheel:
    (metadata,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    for line in wheel.read(metadata).decode().splitlines():
        if line.startswith("Requires-Dist:"):
            req = Requirement(line.split(":", 1)[1].strip())
            if canonicalize_name(req.name) in wanted and not (req.marker and "extra" in str(req.marker)):
                print(f"{req.name}{req.specifier}")
PY
)
pure_install --no-deps "${no_deps_requirements[@]}"

# Requirements of the bundled distributions that some supported Python needs and the bundle lacks.
missing_for_supported_pythons() {
  "$PYTHON" - "$libs" "${not_bundled[@]}" <<'PY'
import sys
from importlib.metadata import distributions

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip always carries a copy
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name

dists = list(distributions(path=[sys.argv[1]]))
present = {canonicalize_name(d.metadata["Name"]) for d in dists} | {canonicalize_name(n) for n in sys.argv[2:]}
missing = set()
for dist in dists:
    for line in dist.requires or ():
        req = Requirement(line)
        for minor in range(10, 15):
            env = {"python_version": f"3.{minor}", "python_full_version": f"3.{minor}.0", "extra": ""}
            if (req.marker is None or req.marker.evaluate(env)) and canonicalize_name(req.name) not in present:
                missing.add(f"{req.name}{req.specifier}")
print("\n".join(sorted(missing)))
PY
}
for _ in 1 2 3 4 5; do
  mapfile -t missing < <(missing_for_supported_pythons | sed "/^$/d")
  [[ ${#missing[@]} -eq 0 ]] && break
  echo "adding requirements of other supported Pythons: ${missing[*]}"
  pure_install --no-deps "${missing[@]}"  # their own requirements: the next round
done
[[ -z "$(missing_for_supported_pythons)" ]] || { echo "bundle-python.sh: requirements still missing" >&2; exit 1; }
# Console scripts point at the interpreter that ran pip: meaningless on a user's machine.
rm -rf "$libs/bin"
test -f "$libs/plansight/__init__.py"
echo "bundled plansight and its dependencies into ${libs#"$repo"/} ($(du -sh "$libs" | cut -f1))"
