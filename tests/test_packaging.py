"""The distribution installs into one `plansight` namespace, both editable and as a built wheel.

The project must not squat generic top-level names (`analyses`, `server`, `grammar`); these tests
build the real wheel and run the console script from a fresh virtual environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from installed_tree import pyproject

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
    )
    (built,) = out.glob("plansight-*.whl")
    return built


def test_wheel_has_only_the_plansight_namespace(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {
        n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith((".dist-info", ".data"))
    }
    assert top_level == {"plansight"}
    assert "plansight/grammar/pddl.lark" in names
    assert "plansight/analyses/syntax/pddl.tables.json" in names  # start-up needs no lark
    assert "plansight/analyses/model/pddl.py" in names
    assert "plansight/server/__init__.py" in names


def test_wheel_installs_and_lints_from_a_fresh_environment(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True)
    # Dependencies come from the test environment's site-packages (no network needed); the editable
    # install there is a .pth hook, which PYTHONPATH does not process, so `plansight` resolves to the wheel.
    site = next(p for p in sys.path if p.endswith("site-packages"))
    env = {**os.environ, "PYTHONPATH": site}
    where = subprocess.run(
        [str(python), "-c",
         "import plansight, plansight.analyses.model.pddl as m; print(plansight.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    ).stdout
    assert str(env_dir) in where
    broken = tmp_path / "broken.pddl"
    broken.write_text(
        "(define (domain d)\n  (:predicates (p ?x)\n  (:action a :parameters (?x) :effect (p ?x))\n)\n"
    )
    run = subprocess.run(
        [str(env_dir / "bin" / "plansight"), "lint", str(broken)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr
    assert "unclosed-paren" in run.stdout
    for generic in ("analyses", "server", "grammar", "cli"):
        probe = subprocess.run(
            [str(python), "-c", f"import {generic}"], capture_output=True, env=env, cwd=tmp_path
        )
        assert probe.returncode != 0, f"the wheel installed a top-level `{generic}` package"


def test_editable_install_resolves_into_the_repository() -> None:
    import plansight.analyses
    import plansight.grammar

    assert Path(plansight.analyses.__file__).resolve().parent == ROOT / "analyses"
    assert Path(plansight.grammar.__file__).resolve().parent == ROOT / "grammar"


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    """A folder mapped in `package-dir` but missing from `packages` is left out of the wheel and of the
    .vsix bundle while the editable install still finds it: the server then fails at import only there."""
    config = pyproject()["tool"]["setuptools"]
    listed = set(config["packages"])
    assert set(config["package-dir"]) - listed == set()
    folders = {f"plansight.analyses.{init.parent.name}" for init in (ROOT / "analyses").glob("*/__init__.py")}
    assert folders - listed == set()
