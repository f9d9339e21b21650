"""The budgeted subprocess every planner runs in: past its budget or on cancel, the planner *and the
helpers it started* are gone (a process group on POSIX; on Windows, where there is no ``killpg`` nor
``SIGKILL``, a new process group that is sent ``CTRL_BREAK_EVENT`` before the planner is killed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from plansight.analyses.plans import budgeted_process
from plansight.analyses.plans.budgeted_process import run_budgeted

# A planner that starts a helper (as Fast Downward's driver starts its search) and waits for it.
PARENT = """import subprocess, sys, time
helper = "import time, os; open('child.pid', 'w').write(str(os.getpid())); time.sleep(60)"
child = subprocess.Popen([sys.executable, "-c", helper])
print("started", flush=True)
child.wait()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")  # a zombie is dead


def _child_pid(folder: Path) -> int:
    deadline = time.monotonic() + 10
    while not (folder / "child.pid").exists() or not (folder / "child.pid").read_text():
        assert time.monotonic() < deadline, "the helper never started"
        time.sleep(0.05)
    return int((folder / "child.pid").read_text())


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX branch; the Windows one is checked below")
def test_over_budget_the_planner_and_its_helper_are_killed(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    lines: list[str] = []
    started = time.monotonic()
    run = run_budgeted([sys.executable, str(script)], str(tmp_path), 1.0, on_output=lines.append)
    assert run.over_budget and not run.cancelled and run.exit_code is None
    assert time.monotonic() - started < 5
    assert lines == ["started"]
    child = _child_pid(tmp_path)
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the helper outlived its planner"


def test_cancel_stops_the_run(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    run = run_budgeted([sys.executable, "-c", "import time; time.sleep(30)"], str(tmp_path), 60, cancel)
    assert run.cancelled and not run.over_budget and run.seconds < 5


class _FakeProcess:
    """Records what is done to it, as a Windows process would receive it."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def send_signal(self, sent: int) -> None:
        self.calls.append(("signal", sent))

    def wait(self, timeout: float | None = None) -> int:
        self.calls.append("wait")
        return 1

    def kill(self) -> None:
        self.calls.append("kill")


def test_on_windows_a_new_process_group_gets_ctrl_break_then_the_planner_is_killed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(signal, "CTRL_BREAK_EVENT", 1, raising=False)
    monkeypatch.setattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200, raising=False)
    monkeypatch.setattr(os, "killpg", lambda *_: pytest.fail("Windows has no killpg"), raising=False)
    assert budgeted_process._start_options() == {"creationflags": 0x200}
    process = _FakeProcess()
    budgeted_process.stop(process)  # type: ignore[arg-type]
    assert process.calls[0] == ("signal", 1)
    assert "kill" in process.calls and process.calls[-1] == "wait"
