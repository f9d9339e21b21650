"""The plan feature's caches (``analyses/memo.py`` memos of the feature): hover, hints and lens of one
version arrive together, in worker threads, and must share one simulation."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from plansight.analyses.memo import Memo


def test_concurrent_requests_for_one_key_compute_it_once() -> None:
    memo: Memo[str, int] = Memo(8)
    calls: list[int] = []
    lock = threading.Lock()

    def compute() -> int:
        with lock:
            calls.append(1)
        time.sleep(0.05)  # long enough that the other threads ask while it runs
        return 42

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: memo.get("plan v1", compute), range(8)))
    assert results == [42] * 8
    assert len(calls) == 1
    assert memo.ready("plan v1") == 42
    assert memo.ready("plan v2") is None


def test_a_failure_is_raised_to_every_waiter_and_not_kept() -> None:
    memo: Memo[str, int] = Memo(8)

    def broken() -> int:
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError, match="bug"):
        memo.get("k", broken)
    assert memo.ready("k") is None
    assert memo.get("k", lambda: 7) == 7  # the next request tries again


def test_only_the_newest_entries_are_kept() -> None:
    memo: Memo[int, int] = Memo(2)
    for key in range(3):
        memo.get(key, lambda key=key: key * 10)
    assert memo.ready(0) is None
    assert (memo.ready(1), memo.ready(2)) == (10, 20)
