"""The linux-x64 and universal .vsix as a user gets them: what they carry, and that it works with a bare
Python.

Run by `scripts/ci.sh` after `scripts/package-vsix.sh linux-x64 universal` (not part of the Python
suite, which runs before any .vsix exists); `PLANSIGHT_VSIX_DIR` names another folder holding them.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2]
REPO = CLIENT.parent
EXAMPLES = REPO / "examples" / "plan-evaluation"
PYTHONS = ("cp310", "cp311", "cp312", "cp313", "cp314")
WORDNET_FILES = ("data.noun", "data.verb", "index.noun", "index.verb", "verb.exc", "LICENSE")
FAST_DOWNWARD = "extension/bundled/libs/up_fast_downward/downward"


def built(pattern: str) -> Path:
    folder = Path(os.environ.get("PLANSIGHT_VSIX_DIR", CLIENT))
    found = sorted(folder.glob(pattern))
    assert found, f"no {pattern} in {folder}: run vscode-client/scripts/package-vsix.sh linux-x64 universal"
    return found[-1]


@pytest.fixture(scope="module")
def linux_vsix() -> zipfile.ZipFile:
    return zipfile.ZipFile(built("plansight-linux-x64-*.vsix"))


@pytest.fixture(scope="module")
def universal_vsix() -> zipfile.ZipFile:
    return zipfile.ZipFile(built("plansight-[0-9]*.vsix"))


def names(vsix: zipfile.ZipFile) -> set[str]:
    return set(vsix.namelist())


def test_linux_x64_carries_the_compiled_wheels_for_every_python(linux_vsix: zipfile.ZipFile) -> None:
    entries = names(linux_vsix)
    assert "extension/bundled/libs/rustworkx/__init__.py" in entries
    assert any(n.startswith("extension/bundled/libs/rustworkx/rustworkx.abi3") for n in entries)
    for python in PYTHONS:
        for module in ("orjson", "regex"):
            folder = f"extension/bundled/cpython/{python}/{module}/"
            compiled = [n for n in entries if n.startswith(folder) and n.endswith(".so")]
            assert compiled, f"no compiled {module} for {python}"
            assert all(python in n or "abi3" in n for n in compiled), compiled
    assert "extension/bundled/libs/nltk/__init__.py" in entries
    manifest = json.loads(linux_vsix.read("extension/bundled/manifest.json"))
    assert manifest["target"] == "linux-x64" and manifest["missing"] == {}


def test_linux_x64_carries_wordnet_and_its_licence(linux_vsix: zipfile.ZipFile) -> None:
    entries = names(linux_vsix)
    for name in WORDNET_FILES:
        assert f"extension/bundled/wordnet/{name}" in entries
    licence = linux_vsix.read("extension/bundled/wordnet/LICENSE").decode()
    assert "Princeton University" in licence and "Permission to use, copy, modify and distribute" in licence


def test_fast_downward_is_stripped_and_executable(linux_vsix: zipfile.ZipFile) -> None:
    info = linux_vsix.getinfo(f"{FAST_DOWNWARD}/builds/release/bin/downward")
    assert info.file_size < 20 * 2**20  # 225 MB in the wheel, with its debug symbols
    assert (info.external_attr >> 16) & stat.S_IXUSR
    assert f"{FAST_DOWNWARD}/fast-downward.py" in names(linux_vsix)


def test_universal_is_pure_python_with_nltk_and_wordnet(universal_vsix: zipfile.ZipFile) -> None:
    entries = names(universal_vsix)
    assert not [n for n in entries if n.endswith((".so", ".pyd", ".dylib"))]
    assert not [n for n in entries if n.startswith(("extension/bundled/cpython/", FAST_DOWNWARD))]
    assert "extension/bundled/libs/plansight/__init__.py" in entries
    assert "extension/bundled/libs/nltk/__init__.py" in entries
    assert "extension/bundled/wordnet/data.verb" in entries


def extract(vsix: zipfile.ZipFile, into: Path) -> Path:
    """Unpack as VS Code does: the Unix mode recorded in each entry is kept."""
    for info in vsix.infolist():
        path = Path(vsix.extract(info, into))
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            path.chmod(mode)
    return into / "extension"


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory, linux_vsix: zipfile.ZipFile) -> Iterator[dict[str, Path]]:
    """The extension unpacked, and a virtual environment with no packages at all."""
    root = tmp_path_factory.mktemp("bare")
    extension = extract(linux_vsix, root / "unpacked")
    venv.create(root / "venv", with_pip=False)
    yield {"extension": extension, "python": root / "venv" / "bin" / "python"}


def run_bundled(bare: dict[str, Path], *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PLANSIGHT"))}
    env["PYTHONPATH"] = str(bare["extension"] / "bundled" / "libs")
    return subprocess.run([str(bare["python"]), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_venv_is_really_bare(bare: dict[str, Path]) -> None:
    result = subprocess.run([str(bare["python"]), "-c", "import nltk"], capture_output=True, text=True)
    assert result.returncode != 0 and sys.executable != str(bare["python"])


def test_bundled_wordnet_gives_the_papers_aqm_with_a_bare_python(bare: dict[str, Path]) -> None:
    result = run_bundled(bare, "-m", "plansight", "plan", str(EXAMPLES / "generated" / "p10.plan"),
                         "--reference-plan", str(EXAMPLES / "ground-truth" / "p10.plan"), "--format", "json")
    assert result.returncode == 1, result.stderr  # the plan is invalid: exit 1, not a crash
    reference = json.loads(result.stdout)["reference"]
    assert reference["similarity_source"] == "wordnet-3.0"
    assert reference["aqm_score"] == 0.2656  # 0.25 with the fallback string similarity


def test_the_compiled_modules_load_from_this_pythons_folder(bare: dict[str, Path]) -> None:
    code = ("import plansight.bundle_paths as b; b.activate(); import orjson, regex, rustworkx; "
            "print(orjson.__file__); print(regex.__file__)")
    result = run_bundled(bare, "-c", code)
    assert result.returncode == 0, result.stderr
    version = f"cp{sys.version_info.major}{sys.version_info.minor}"
    for line in result.stdout.splitlines():
        assert f"bundled/cpython/{version}/" in line


def test_the_bundled_fast_downward_solves_a_problem_with_a_bare_python(
        bare: dict[str, Path], tmp_path: Path) -> None:
    driver = bare["extension"] / "bundled" / "libs" / "up_fast_downward" / "downward" / "fast-downward.py"
    problem = EXAMPLES / "problems" / "p10.pddl"
    result = run_bundled(bare, str(driver), str(EXAMPLES / "domain.pddl"), str(problem),
                         "--search", "astar(lmcut())", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-2000:]
    plan = [line for line in (tmp_path / "sas_plan").read_text().splitlines() if not line.startswith(";")]
    assert len(plan) == 6  # the ground truth's length: an optimal plan


def test_plan_repair_works_with_a_bare_python(bare: dict[str, Path]) -> None:
    plan = EXAMPLES / "remapped" / "p10.plan"
    result = run_bundled(bare, "-m", "plansight", "plan", str(plan), "--recover", "--format", "json")
    recovery = json.loads(result.stdout)["recovery"]
    assert recovery["status"] == "solved", recovery
    assert recovery["completion"] == ["(pick-up a)", "(stack a c)"]


def test_the_bundled_server_loads_with_nothing_off(bare: dict[str, Path]) -> None:
    # what `plansight serve` imports, and its start-up check: the linux-x64 package lacks nothing
    code = ("import plansight.bundle_paths as b; b.activate(); import plansight.server.app; "
            "from plansight.server.startup_notes import missing_features; print(missing_features())")
    result = run_bundled(bare, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
