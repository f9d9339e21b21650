"""Benchmark tables as published: JSON Lines, CSV, Parquet, and PlanBench's result JSON, read as rows and
written back one row per input.

Rows are plain ``dict``s so a table keeps every column it came with; the verdict columns are added beside
them. Parquet needs the optional ``pyarrow`` (``pip install plansight[datasets]``): the other formats are
read with the standard library. Writers stream: each row is on disk once it is written, which is what
``--resume`` relies on after an interrupted run (docs/datasets.md).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any, Protocol

FORMATS = ("jsonl", "csv", "parquet", "json")
"""Every table format, by the file suffix that selects it (``.ndjson`` reads as JSON Lines)."""

_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet", ".json": "json"}


class DatasetError(ValueError):
    """The table cannot be read or written as asked; the message is meant for the user."""


def table_format(path: str) -> str | None:
    """The format a path's suffix names, or None when it names none (a folder of files, say)."""
    return _SUFFIXES.get(os.path.splitext(path)[1].lower())


def is_table(path: str) -> bool:
    """Whether ``path`` names a table rather than a folder of files."""
    return table_format(path) is not None and not os.path.isdir(path)


def read_rows(path: str, partial: bool = False) -> list[dict[str, Any]]:
    """Every row of the table at ``path``, in order.

    A PlanBench result file (a JSON object with ``instances``) gives one row per instance, each carrying
    the file's top-level fields (``domain``, ``engine``, ``task``...) that the instances do not repeat.
    ``partial`` reads the output of an interrupted run: a JSON Lines row cut short by the interruption
    is left out instead of making the whole file unreadable.
    """
    kind = table_format(path)
    try:
        if kind == "jsonl":
            return _read_jsonl(path, partial)
        if kind == "csv":
            with open(path, encoding="utf-8-sig", newline="") as handle:
                return [dict(row) for row in csv.DictReader(handle)]
        if kind == "parquet":
            return _read_parquet(path)
        if kind == "json":
            return _read_json(path)
    except OSError as error:
        raise DatasetError(f"{path}: {error.strerror or error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError, csv.Error) as error:
        raise DatasetError(f"{path}: not a readable {kind} table: {error}") from error
    raise DatasetError(f"{path}: not a table (use .jsonl, .csv, .parquet or a PlanBench .json)")


def _read_parquet(path: str) -> list[dict[str, Any]]:
    parquet = _pyarrow_parquet()
    import pyarrow

    try:
        rows: list[dict[str, Any]] = parquet.read_table(path).to_pylist()
    except pyarrow.ArrowException as error:
        raise DatasetError(f"{path}: not a readable Parquet file: {error}") from error
    return rows


def _read_jsonl(path: str, partial: bool = False) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                if partial:
                    continue
                raise
            if not isinstance(value, dict):
                raise DatasetError(f"{path}:{number}: a row must be a JSON object")
            rows.append(value)
    return rows


def _read_json(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        value = json.load(handle)
    if isinstance(value, list):
        return [row for row in value if isinstance(row, dict)]
    if isinstance(value, dict) and isinstance(value.get("instances"), list):
        shared = {k: v for k, v in value.items() if k != "instances" and not isinstance(v, (dict, list))}
        return [{**shared, **row} for row in value["instances"] if isinstance(row, dict)]
    raise DatasetError(f"{path}: a JSON table is a list of rows or an object with `instances`")


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as parquet
    except ImportError as error:
        raise DatasetError(
            "reading or writing Parquet needs pyarrow: pip install 'plansight[datasets]'"
        ) from error
    return parquet


class RowWriter(Protocol):
    """Where result rows go as they finish."""

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        """Add ``rows`` to the output (already on disk for the streaming formats)."""

    def close(self) -> None:
        """Finish the file."""


def open_writer(
    path: str,
    columns: Sequence[str],
    kept: Sequence[dict[str, Any]] = (),
    types: Mapping[str, str] | None = None,
) -> RowWriter:
    """A writer for ``path`` in the format its suffix names, starting with the ``kept`` rows of an earlier
    run (``--resume``); ``columns`` fixes the order of a CSV's header and a Parquet file's columns, and
    ``types`` (``bool``, ``int``, ``float``, ``str``) the Parquet type of columns whose first rows may all
    be empty."""
    kind = table_format(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise DatasetError(f"{path}: the folder {directory} does not exist")
    writer: RowWriter
    if kind == "jsonl":
        writer = _JsonlWriter(path)
    elif kind == "csv":
        writer = _CsvWriter(path, columns)
    elif kind == "parquet":
        writer = _ParquetWriter(path, columns, types or {})
    elif kind == "json":
        writer = _JsonWriter(path)
    else:
        raise DatasetError(f"{path}: write .jsonl, .csv, .parquet or .json")
    if kept:
        writer.write(list(kept))
    return writer


def write_table(path: str, rows: Sequence[dict[str, Any]], columns: Sequence[str] = ()) -> None:
    """Write a whole table at once (the summary tables)."""
    names = list(columns) or _columns_of(rows)
    writer = open_writer(path, names)
    writer.write(rows)
    writer.close()


def _columns_of(rows: Iterable[dict[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return list(names)


def _cell(value: Any) -> Any:
    """A value CSV can hold: nested values as JSON, missing ones empty."""
    if value is None:
        return ""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return value


class _JsonlWriter:
    def __init__(self, path: str) -> None:
        self._handle: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        for row in rows:
            self._handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


class _CsvWriter:
    def __init__(self, path: str, columns: Sequence[str]) -> None:
        self._handle: IO[str] = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self._writer = csv.DictWriter(self._handle, fieldnames=list(columns), extrasaction="ignore")
        self._writer.writeheader()

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        from plansight.analyses.equivalence.grade_report import spreadsheet_safe

        for row in rows:
            self._writer.writerow({k: spreadsheet_safe(_cell(v)) for k, v in row.items()})
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


class _JsonWriter:
    """PlanBench's layout back: ``{"instances": [...]}``; JSON cannot be appended to, so it is written at
    the end (resume still works: the rows written so far are kept in memory until then)."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._rows: list[dict[str, Any]] = []

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        self._rows.extend(rows)

    def close(self) -> None:
        with open(self._path, "w", encoding="utf-8") as handle:
            json.dump({"instances": self._rows}, handle, indent=2, ensure_ascii=False, default=str)
            handle.write("\n")


class _ParquetWriter:
    """One row group per batch of finished rows, so an interrupted run keeps what it wrote. The schema is
    fixed by the first batch (and ``types``): a later value that does not fit its column is written as
    text when the column is text, else cast."""

    def __init__(self, path: str, columns: Sequence[str], types: Mapping[str, str]) -> None:
        self._parquet = _pyarrow_parquet()
        self._path = path
        self._columns = list(columns)
        self._types = types
        self._writer: Any = None
        self._schema: Any = None

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        import pyarrow

        if not rows:
            return
        values = {c: [_parquet_cell(row.get(c)) for row in rows] for c in self._columns}
        if self._schema is None:
            self._schema = pyarrow.schema([(c, self._type_of(c, values[c])) for c in self._columns])
            self._writer = self._parquet.ParquetWriter(self._path, self._schema)
        arrays = [_array(values[field.name], field.type) for field in self._schema]
        self._writer.write_table(pyarrow.Table.from_arrays(arrays, schema=self._schema))

    def _type_of(self, column: str, values: list[Any]) -> Any:
        import pyarrow

        named = {
            "bool": pyarrow.bool_(),
            "int": pyarrow.int64(),
            "float": pyarrow.float64(),
            "str": pyarrow.string(),
        }
        if column in self._types:
            return named[self._types[column]]
        try:
            inferred = pyarrow.array(values).type
        except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError):
            return pyarrow.string()
        return pyarrow.string() if pyarrow.types.is_null(inferred) else inferred

    def close(self) -> None:
        if self._writer is None:
            import pyarrow

            empty = pyarrow.table({c: pyarrow.array([], type=pyarrow.string()) for c in self._columns})
            self._parquet.write_table(empty, self._path)
        else:
            self._writer.close()


def _parquet_cell(value: Any) -> Any:
    """Parquet columns have one type: nested values go as JSON text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _array(values: list[Any], kind: Any) -> Any:
    import pyarrow

    try:
        return pyarrow.array(values, type=kind)
    except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError):
        if pyarrow.types.is_string(kind):
            return pyarrow.array([None if v is None else str(v) for v in values], type=kind)
        return pyarrow.array(values).cast(kind, safe=False)
