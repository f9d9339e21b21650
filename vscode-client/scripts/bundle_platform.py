"""Add one platform's compiled parts to the bundle that `bundle-python.sh` made, for `vsce package --target`.

    bundle_platform.py TARGET      (TARGET: linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64,
                                    or universal for the pure-Python fallback)

The pure bundle (`bundled/libs`) runs with any Python 3.10+; this adds, the way Microsoft's Python
Debugger extension ships debugpy per platform:

- `bundled/libs`: rustworkx (one abi3 wheel serves every CPython) and Fast Downward (the
  `up-fast-downward` wheel, its search binary stripped of debug symbols: 225 MB become under 5 MB),
  where a wheel exists for the platform;
- `bundled/cpython/cp3XX`: orjson and regex (NLTK's dependency), compiled per CPython minor version;
  plansight's launcher (`plansight.bundle_paths`) puts the folder of the running Python on `sys.path`;
- `bundled/wordnet`: WordNet 3.0 (Debian's `wordnet-base` files, installed by
  `scripts/install-wordnet.sh`) and its licence, which allows redistribution; the launcher points
  `PLANSIGHT_WORDNET` at it. Every target carries it, the universal one too (its users add `regex`).

Wheels come from pip (`pip download --only-binary=:all: --platform ... --python-version ...
--implementation cp --abi ...`), in the versions installed in the interpreter running this script
(the ones the tests ran with) where that version has a wheel for the Python, cached in
`vscode-client/.cache/wheels`. What a target cannot carry (there is no `up-fast-downward` wheel for
linux-arm64) is written to `bundled/manifest.json`. Every file gets the same modification time, and
`normalize_vsix.py` rewrites the archive vsce makes with sorted entries and fixed times, so
packaging twice gives the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent
BUNDLED = CLIENT / "bundled"
LIBS = BUNDLED / "libs"
CACHE = CLIENT / ".cache" / "wheels"
WORDNET_SOURCE = Path("/usr/share/wordnet")
WORDNET_LICENCE = Path("/usr/share/doc/wordnet-base/copyright")
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
PER_VERSION = ("orjson", "regex")
FIXED_MTIME = 315532800  # 1980-01-01, the earliest time a zip entry can carry


@dataclass(frozen=True)
class Target:
    """pip's platform tags for a `vsce --target`, newest first (pip does not widen manylinux tags)."""

    name: str
    platforms: tuple[str, ...]


def _linux(arch: str) -> tuple[str, ...]:
    glibc = (f"manylinux_2_{minor}_{arch}" for minor in (28, 27, 26, 25, 24, 17))
    return (*glibc, f"manylinux2014_{arch}")


TARGETS = {
    target.name: target
    for target in (
        Target("linux-x64", _linux("x86_64")),
        Target("linux-arm64", _linux("aarch64")),
        Target("darwin-x64", ("macosx_11_0_x86_64", "macosx_11_0_universal2")),
        Target("darwin-arm64", ("macosx_11_0_arm64", "macosx_11_0_universal2")),
        Target("win32-x64", ("win_amd64",)),
    )
}


def download(package: str, target: Target, python: str, abis: tuple[str, ...]) -> Path | None:
    """The wheel of `package` for `target` and `python`, or None if none exists: the installed version,
    else the newest that has one (regex stopped shipping CPython 3.10 wheels)."""
    folder = CACHE / target.name / f"cp{python.replace('.', '')}"
    folder.mkdir(parents=True, exist_ok=True)
    stem = package.replace("-", "_").lower() + "-"
    for requirement in (f"{package}=={version(package)}", package):
        prefix = stem + (requirement.split("==")[1] + "-" if "==" in requirement else "")
        cached = sorted(path for path in folder.glob("*.whl") if path.name.lower().startswith(prefix))
        if cached:
            return cached[-1]
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                   "--python-version", python, "--implementation", "cp", "--dest", str(folder)]
        for platform in target.platforms:
            command += ["--platform", platform]
        for abi in abis:
            command += ["--abi", abi]
        if subprocess.run([*command, requirement], capture_output=True, text=True).returncode == 0:
            return sorted(path for path in folder.glob("*.whl") if path.name.lower().startswith(prefix))[-1]
    print(f"  no {package} wheel for {target.name} (CPython {python})")
    return None


def unpack(wheel: Path, into: Path) -> None:
    """A wheel is a zip laid out as site-packages; keep the executable bits the archive records."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            path = Path(archive.extract(info, into))
            mode = info.external_attr >> 16
            if not info.is_dir() and mode & stat.S_IXUSR:
                path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def strip_binaries(package: Path) -> None:
    """Strip the ELF executables (the Linux search binary ships with its debug symbols)."""
    strip = shutil.which("strip")
    for path in sorted(package.rglob("*")):
        if not path.is_file() or not os.access(path, os.X_OK):
            continue
        with path.open("rb") as file:
            if file.read(4) != b"\x7fELF":
                continue
        if strip is None:
            raise SystemExit(f"bundle_platform.py: `strip` is needed for {path} (apt-get install binutils)")
        before = path.stat().st_size
        subprocess.run([strip, str(path)], check=True)
        print(f"  stripped {path.relative_to(BUNDLED)}: {before >> 20} MB -> {path.stat().st_size >> 20} MB")


def clean() -> None:
    """Remove what an earlier run for another target added."""
    for folder in ("cpython", "wordnet"):
        shutil.rmtree(BUNDLED / folder, ignore_errors=True)
    for pattern in ("rustworkx*", "up_fast_downward*"):
        for path in LIBS.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    (BUNDLED / "manifest.json").unlink(missing_ok=True)


def add_wordnet() -> None:
    if not (WORDNET_SOURCE / "data.verb").is_file():
        raise SystemExit("bundle_platform.py: WordNet is missing; run scripts/install-wordnet.sh --required")
    shutil.copytree(WORDNET_SOURCE, BUNDLED / "wordnet")
    shutil.copyfile(WORDNET_LICENCE, BUNDLED / "wordnet" / "LICENSE")


def add_platform(target: Target) -> dict[str, str]:
    """Unpack the target's wheels; returns what could not be added, with the reason."""
    missing: dict[str, str] = {}
    rustworkx = download("rustworkx", target, PYTHONS[0], ("abi3",))
    if rustworkx is None:
        missing["rustworkx"] = f"no rustworkx wheel for {target.name}"
    else:
        unpack(rustworkx, LIBS)
    fast_downward = download("up-fast-downward", target, PYTHONS[0], ("none",))
    if fast_downward is None:
        missing["fast-downward"] = f"no up-fast-downward wheel exists for {target.name}"
    else:
        unpack(fast_downward, LIBS)
        strip_binaries(LIBS / "up_fast_downward")
    for python in PYTHONS:
        folder = BUNDLED / "cpython" / f"cp{python.replace('.', '')}"
        for package in PER_VERSION:
            wheel = download(package, target, python, (f"cp{python.replace('.', '')}", "abi3"))
            if wheel is None:
                missing[f"{package}-cp{python}"] = f"no {package} wheel for {target.name}, CPython {python}"
            else:
                unpack(wheel, folder)
    return missing


def fix_mtimes() -> None:
    for root, folders, files in os.walk(BUNDLED):
        for name in [*folders, *files]:
            os.utime(os.path.join(root, name), (FIXED_MTIME, FIXED_MTIME), follow_symlinks=False)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or (argv[0] not in TARGETS and argv[0] != "universal"):
        print(f"usage: bundle_platform.py {{{','.join(TARGETS)},universal}}", file=sys.stderr)
        return 2
    if not (LIBS / "plansight" / "__init__.py").is_file():
        print("bundle_platform.py: run scripts/bundle-python.sh first", file=sys.stderr)
        return 2
    clean()
    add_wordnet()
    name = argv[0]
    if name == "universal":
        missing = {"compiled": "the universal package carries only pure-Python code"}
    else:
        print(f"adding the {name} wheels")
        missing = add_platform(TARGETS[name])
    manifest = {"target": name, "pythons": list(PYTHONS), "missing": missing}
    (BUNDLED / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    for cache in BUNDLED.rglob("__pycache__"):
        shutil.rmtree(cache)
    fix_mtimes()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
