"""Where the chunks of a batch run: this process, a local process pool, or a Dask cluster.

``--executor local`` (the default) uses a process pool of ``--jobs`` workers (in-process for one);
``--executor dask`` starts a ``LocalCluster`` of ``--jobs`` worker processes on 127.0.0.1, or with
``--scheduler ADDRESS`` joins an existing cluster (docs/datasets.md: SSH, Kubernetes, SLURM). Either way
chunks are yielded as they finish, not in input order, so results stream to the output.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

Worker = Callable[[str, Any, Sequence[Any]], list[Any]]


class ExecutorError(RuntimeError):
    """The executor cannot start (Dask missing, scheduler unreachable); the message is meant for the user."""


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """``--executor``, ``--scheduler`` and ``--chunk-size``, the same on every batch command."""
    parser.add_argument(
        "--executor",
        choices=("local", "dask"),
        default="local",
        help="run on a local process pool (default) or on Dask",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --executor dask: an existing cluster's scheduler (tcp://host:8786)",
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=0,
        metavar="ROWS",
        help="rows sent to a worker at a time (default: about 4 chunks per worker, at most 64)",
    )


def chunk_size(requested: int, rows: int, workers: int) -> int:
    """Chunks small enough to keep every worker busy and the output streaming, large enough that shipping
    them costs little next to the work."""
    if requested > 0:
        return requested
    return max(1, min(64, rows // max(1, workers * 4)))


def run_chunks(
    worker: Worker,
    kind: str,
    settings: Any,
    chunks: Sequence[Sequence[Any]],
    executor: str,
    jobs: int,
    scheduler: str | None = None,
) -> Iterator[list[Any]]:
    """``worker(kind, settings, chunk)`` for every chunk, yielded as each finishes."""
    if executor == "dask":
        yield from _dask(worker, kind, settings, chunks, jobs, scheduler)
    elif jobs <= 1 or len(chunks) < 2:
        for chunk in chunks:
            yield worker(kind, settings, chunk)
    else:
        with ProcessPoolExecutor(min(jobs, len(chunks))) as pool:
            futures = [pool.submit(worker, kind, settings, chunk) for chunk in chunks]
            for future in as_completed(futures):
                yield future.result()


def _dask(
    worker: Worker,
    kind: str,
    settings: Any,
    chunks: Sequence[Sequence[Any]],
    jobs: int,
    scheduler: str | None,
) -> Iterator[list[Any]]:
    try:
        from distributed import Client, LocalCluster
        from distributed import as_completed as dask_completed
    except ImportError as error:
        raise ExecutorError(
            "--executor dask needs dask.distributed: pip install 'plansight[dask]'"
        ) from error
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout="20s")
        else:
            cluster = LocalCluster(
                n_workers=max(1, jobs),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
    except OSError as error:
        if cluster is not None:
            cluster.close()
        raise ExecutorError(
            f"cannot reach the Dask scheduler {scheduler or 'on 127.0.0.1'}: {error}"
        ) from error
    try:
        futures = [client.submit(worker, kind, settings, chunk, pure=False) for chunk in chunks]
        for future in dask_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def in_input_order(
    finished: Iterator[list[tuple[int, Any]]], indices: Sequence[int]
) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` pairs from chunks finishing in any order, yielded in the order of ``indices`` (the
    submitted items') as soon as every earlier one has arrived: output read top to bottom still streams."""
    waiting: dict[int, Any] = {}
    position = 0
    for chunk in finished:
        waiting.update(chunk)
        while position < len(indices) and indices[position] in waiting:
            yield indices[position], waiting.pop(indices[position])
            position += 1
