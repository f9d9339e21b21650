"""Run a planner as a subprocess within a wall-clock budget, cancellable, on POSIX and Windows alike.

Planners start helpers of their own (Fast Downward's driver runs a translator and then a search
binary), so stopping only the process we started would leave the search running. On POSIX the
planner gets its own session and the whole process group is killed (``os.killpg``); Windows has
neither sessions nor ``SIGKILL``, so there the planner is started in a new process group
(``CREATE_NEW_PROCESS_GROUP``), which receives ``CTRL_BREAK_EVENT`` before the started process is
killed. Output is read line by line in a thread so a caller can show it while the planner runs.
Never run on an event loop: the call blocks until the planner is done.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05
TAIL_LINES = 200
"""How much of the planner's output a result keeps (its end says why it stopped)."""


@dataclass(frozen=True, slots=True)
class ProcessRun:
    """How a budgeted run ended: ``exit_code`` is None when we stopped it (budget or cancel)."""

    exit_code: int | None
    output: str
    """the last :data:`TAIL_LINES` lines of stdout and stderr, interleaved"""
    cancelled: bool
    over_budget: bool
    seconds: float


def _start_options() -> dict[str, Any]:
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def _limit_memory(process: subprocess.Popen[bytes], memory_limit_mb: int | None) -> None:
    """Cap the address space of a planner that has no memory option of its own (Linux only: elsewhere
    nothing can set another process's limit; the processes it starts later inherit the cap)."""
    if memory_limit_mb is None or not sys.platform.startswith("linux"):
        return
    import resource

    limit = memory_limit_mb * 1024 * 1024
    with contextlib.suppress(OSError, ValueError):
        resource.prlimit(process.pid, resource.RLIMIT_AS, (limit, limit))


def stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and everything it started; returns once it is gone."""
    if sys.platform == "win32":
        with contextlib.suppress(OSError, ValueError):
            process.send_signal(signal.CTRL_BREAK_EVENT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)
        with contextlib.suppress(OSError):
            process.kill()
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _pump(stream: IO[bytes], tail: deque[str], on_output: Callable[[str], None] | None) -> None:
    for raw in iter(stream.readline, b""):
        line = raw.decode(errors="replace").rstrip("\r\n")
        tail.append(line)
        if on_output is not None:
            try:
                on_output(line)
            except Exception:  # a failing listener must not stop the planner's output being read
                log.exception("the planner output listener failed")
    stream.close()


def run_budgeted(
    command: Sequence[str],
    cwd: str,
    wall_limit_s: float,
    cancel: threading.Event | None = None,
    on_output: Callable[[str], None] | None = None,
    memory_limit_mb: int | None = None,
) -> ProcessRun:
    """Run ``command`` (no shell) in ``cwd`` until it exits, ``wall_limit_s`` passes or ``cancel`` is set.

    ``memory_limit_mb`` is for planners without a memory option of their own; see :func:`_limit_memory`.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(command), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, **_start_options(),
    )
    _limit_memory(process, memory_limit_mb)
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    assert process.stdout is not None
    reader = threading.Thread(target=_pump, args=(process.stdout, tail, on_output), daemon=True)
    reader.start()
    deadline = started + wall_limit_s
    code: int | None = None
    cancelled = over_budget = False
    while True:
        try:
            code = process.wait(timeout=POLL_SECONDS)
            break
        except subprocess.TimeoutExpired:
            pass
        if cancel is not None and cancel.is_set():
            cancelled = True
        elif time.monotonic() > deadline:
            over_budget = True
        else:
            continue
        stop(process)
        code = None
        break
    # a helper that outlived a killed parent (Windows) may hold the pipe open: do not wait for it forever
    reader.join(timeout=2.0)
    return ProcessRun(code, "\n".join(tail), cancelled, over_budget, time.monotonic() - started)
