"""lwc: lightweight columnar compression you can compute on.

Tables from pyarrow, pandas or any Arrow stream are stored as ``.lwc`` files whose segments stay
queryable: filters, aggregates, point lookups and gathers run on the encoded form, and the encoding of
every segment is chosen from the data and from how it will be read (the *objective*).

>>> import os, tempfile, pyarrow as pa, lwc
>>> table = pa.table({"id": list(range(100_000)), "city": ["Oslo", "Lima", None, "Pune"] * 25_000})
>>> path = os.path.join(tempfile.mkdtemp(), "cities.lwc")
>>> summary = lwc.write(table, path)
>>> summary["file_bytes"] < 50_000    # 1.5 MB as Arrow
True
>>> lwc.read(path, filter="city = 'Lima' and id < 10")["id"].to_pylist()
[1, 5, 9]
>>> lwc.sql("SELECT count(*) AS n FROM t WHERE city IS NULL", tables={"t": path})["n"][0].as_py()
25000

Errors are exceptions: :class:`LwcError` (and :class:`CorruptFileError` for bad bytes), or
``ValueError``, ``KeyError``, ``IndexError``, ``TypeError`` and ``OSError`` for bad arguments.
"""

from __future__ import annotations

import numbers
import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.compute as pc

from . import _lwc
from ._lwc import CorruptFileError, LwcError

if TYPE_CHECKING:  # pragma: no cover
    import numpy
    import pandas

__all__ = [
    "File",
    "open",
    "read",
    "write",
    "encode",
    "decode",
    "describe",
    "sql",
    "LwcError",
    "CorruptFileError",
    "ENCODINGS",
    "OBJECTIVES",
    "__version__",
]

__version__: str = _lwc.__version__

#: The encodings a column may be forced to (``"auto"`` chooses per segment); cascades nest them, as in
#: ``"rle(delta(dict), delta)"``.
ENCODINGS: List[str] = list(_lwc.ENCODINGS)

#: The objectives the selector knows; weights such as ``"scan=0.8,get=0.2"`` are accepted too.
OBJECTIVES: List[str] = ["size", "scan", "random", "balanced"]

PathLike = Union[str, "os.PathLike[str]"]
Rows = Union[None, range, slice, Sequence[int], "numpy.ndarray"]

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def _bytes(budget: Union[int, str, None]) -> Optional[int]:
    """A memory budget in bytes, from an int or text such as ``"512MiB"``."""
    if budget is None or isinstance(budget, int):
        return budget
    text = str(budget).strip().lower().replace(" ", "")
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = text[len(number):]
    if unit not in _UNITS or not number:
        raise ValueError(f"cannot read the memory budget {budget!r}: use bytes or a size such as '512MiB' or '2GB'")
    return int(float(number) * _UNITS[unit])


def _arrow_stream(data: Any) -> Any:
    """Something that exports an Arrow stream, from a table, a batch, a reader or a DataFrame."""
    if isinstance(data, (pa.Table, pa.RecordBatchReader)):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    module = type(data).__module__.split(".")[0]
    if module == "pandas":
        return pa.Table.from_pandas(data, preserve_index=False)
    if hasattr(data, "__arrow_c_stream__"):
        return data
    raise TypeError(
        f"lwc.write takes a pyarrow.Table, RecordBatch or RecordBatchReader, a pandas.DataFrame or any object "
        f"with __arrow_c_stream__, not {type(data).__name__}"
    )


def write(
    data: Union[pa.Table, pa.RecordBatch, pa.RecordBatchReader, "pandas.DataFrame"],
    path: PathLike,
    objective: str = "balanced",
    memory_budget: Union[int, str, None] = None,
    segment_rows: int = 65536,
    threads: Optional[int] = None,
    encoding: str = "auto",
) -> Dict[str, Any]:
    """Writes ``data`` to ``path`` as a ``.lwc`` file and returns what was written.

    ``data`` is a ``pyarrow.Table``, ``RecordBatch``, a ``RecordBatchReader`` (streamed batch by batch,
    for tables larger than memory), a ``pandas.DataFrame`` (its index is not stored) or any object with
    ``__arrow_c_stream__``. Dictionary columns are stored as their values, string views as strings.

    ``objective`` says how the data will be read, and the selector picks each segment's encoding for
    it: ``"size"``, ``"scan"``, ``"random"``, ``"balanced"`` (the default) or weights such as
    ``"scan=1,get=0.1"``. ``memory_budget`` (bytes, or text such as ``"64MiB"``) picks an objective
    per column so the encoded table fits, reading the whole table first. ``encoding`` forces one
    encoding or cascade for every integer segment. ``segment_rows`` (at most 65,536) is the row group
    size; ``threads`` the encoding threads (all cores by default). Nothing appears at ``path`` unless
    the write succeeds.

    The result holds ``path``, ``rows``, ``file_bytes``, ``plain_bytes`` (Arrow's size of the values)
    and ``columns`` (as :meth:`File.columns`).

    >>> import os, tempfile, pyarrow as pa, lwc
    >>> path = os.path.join(tempfile.mkdtemp(), "t.lwc")
    >>> done = lwc.write(pa.table({"x": [5, 6, 7] * 1000}), path, objective="size")
    >>> done["rows"], done["file_bytes"] < done["plain_bytes"] / 10
    (3000, True)
    """
    return _lwc.write(
        _arrow_stream(data),
        os.fspath(path),
        objective=objective,
        memory_budget=_bytes(memory_budget),
        segment_rows=segment_rows,
        threads=threads,
        encoding=encoding,
    )


def open(path: PathLike) -> "File":  # noqa: A001 - lwc.open mirrors the builtin on purpose
    """Opens a ``.lwc`` file (memory-mapped: segments are read in place when a read needs them)."""
    return File(path)


def read(
    path: PathLike,
    columns: Optional[Sequence[str]] = None,
    rows: Rows = None,
    filter: Optional[str] = None,
) -> pa.Table:
    """Reads a ``.lwc`` file into a ``pyarrow.Table``; see :meth:`File.read`."""
    return File(path).read(columns=columns, rows=rows, filter=filter)


class File:
    """An open ``.lwc`` file.

    >>> import os, tempfile, pyarrow as pa, lwc
    >>> path = os.path.join(tempfile.mkdtemp(), "t.lwc")
    >>> _ = lwc.write(pa.table({"qty": list(range(10)), "mode": ["MAIL", "SHIP"] * 5}), path)
    >>> f = lwc.open(path)
    >>> f.num_rows, f.schema.names
    (10, ['qty', 'mode'])
    >>> f.take([9, 0], columns=["qty"])["qty"].to_pylist()
    [9, 0]
    >>> f.scan("qty", where="mode = 'SHIP'", sum=True)
    {'rows': 5, 'count': 5, 'sum': 25}
    """

    def __init__(self, path: PathLike) -> None:
        self._file = _lwc.File(os.fspath(path))
        self.path: str = os.fspath(path)

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the rows."""
        return self._file.schema

    @property
    def num_rows(self) -> int:
        """Rows in the file."""
        return self._file.num_rows

    @property
    def file_bytes(self) -> int:
        """Size of the file in bytes."""
        return self._file.file_bytes

    @property
    def options(self) -> str:
        """The options the file was written with, as its footer records them."""
        return self._file.options

    def __len__(self) -> int:
        return len(self._file)

    def __repr__(self) -> str:
        return repr(self._file)

    def columns(self) -> List[Dict[str, Any]]:
        """Per column: ``name``, ``type``, ``storage``, ``rows``, ``nulls``, ``plain_bytes`` (Arrow's),
        ``encoded_bytes``, ``ratio``, ``segments`` and ``encodings`` (each cascade and its segment count)."""
        return self._file.columns()

    def columns_frame(self) -> "pandas.DataFrame":
        """:meth:`columns` as a ``pandas.DataFrame``, one row per column."""
        import pandas

        return pandas.DataFrame(self.columns()).set_index("name")

    def read(
        self,
        columns: Optional[Sequence[str]] = None,
        rows: Rows = None,
        filter: Optional[str] = None,
    ) -> pa.Table:
        """The rows of ``columns`` (all by default) as a ``pyarrow.Table``.

        ``rows`` is a ``range`` or ``slice`` of step 1, a ``(start, stop)`` pair, or a list or numpy array
        of row numbers (any order, repeats allowed, negative counts from the end). ``filter`` is a
        condition such as ``"l_quantity < 3 and l_shipmode in ('MAIL', 'SHIP')"``: comparisons,
        ``between``, ``in``, ``is [not] null`` and ``like 'prefix%'`` on columns, joined with ``and``,
        ``or``, ``not`` and parentheses. It runs on the encoded segments (zone maps first), and only the
        selected rows of the other columns are decoded. A filter cannot be combined with a list of rows.
        """
        names = None if columns is None else list(columns)
        if rows is None:
            return self._file.read(names, 0, None, filter)
        span = self._span(rows)
        if span is not None:
            return self._file.read(names, span[0], span[1], filter)
        if filter is not None:
            raise ValueError("a filter selects rows itself: pass either rows as a list or a filter, or rows as a range")
        return self.take(rows, columns=names)

    def take(
        self,
        indices: Union[Sequence[int], "numpy.ndarray", pa.Array, pa.ChunkedArray],
        columns: Optional[Sequence[str]] = None,
    ) -> pa.Table:
        """The rows at ``indices`` (any order, repeats allowed, negative counts from the end) as a
        ``pyarrow.Table``; each column gathers only from the segments the rows are in. ``indices`` may be
        a list of ints or an integer numpy, pandas or pyarrow array; arrays are read without a Python
        loop over their rows."""
        positions = _positions(indices, self.num_rows)
        return self._file.take(positions, None if columns is None else list(columns))

    def scan(
        self,
        column: str,
        where: Optional[str] = None,
        *,
        count: bool = True,
        sum: bool = False,
        min: bool = False,
        max: bool = False,
        stats: bool = False,
    ) -> Dict[str, Any]:
        """Aggregates of ``column`` over the rows ``where`` selects (all rows without it), computed on the
        encoded segments without decoding the column.

        The result has ``count`` (non-null rows) and ``rows`` (nulls included), and the aggregates asked
        for: ``sum`` (exact for integers and decimals, a ``decimal.Decimal`` for decimals, dates and
        times in stored units; ``None`` for strings), ``min`` and ``max`` (as Python values; ``None``
        when no row counts). ``stats=True`` adds how many row groups the zone maps skipped
        (``row_groups_skipped``), kept whole (``row_groups_whole``) or left to the filter.
        """
        result = self._file.scan(column, where)
        keep = {"rows"}
        keep |= {k for k, asked in [("count", count), ("sum", sum), ("min", min), ("max", max)] if asked}
        if stats:
            keep |= {k for k in result if k.startswith("row_groups")}
        return {k: v for k, v in result.items() if k in keep}

    def explain(self, columns: Optional[Sequence[str]] = None, objective: str = "balanced") -> str:
        """How the selector chooses each segment of ``columns`` (every column whose encoding is chosen, by
        default) under ``objective``: the candidates, their estimated sizes and modelled costs, and why
        the winner won. The columns are encoded again; the file is not changed."""
        return self._file.explain(None if columns is None else list(columns), objective)

    def verify(self) -> None:
        """Checks every segment's checksum and opens it; raises :class:`CorruptFileError` if one fails."""
        self._file.verify()

    def _span(self, rows: Any) -> Optional[tuple]:
        """``(start, stop)`` for a range, slice or pair; ``None`` for a list of rows."""
        n = self.num_rows
        if isinstance(rows, (range, slice)):
            start, stop, step = (rows.start, rows.stop, rows.step)
            if step not in (None, 1):
                raise ValueError("rows as a range or slice must have step 1; pass a list of rows to take others")
            if isinstance(rows, slice):
                start, stop, _ = rows.indices(n)
            return (max(0, start), max(0, stop))
        if isinstance(rows, tuple) and len(rows) == 2 and all(isinstance(x, int) for x in rows):
            return (max(0, rows[0]), max(0, rows[1]))
        return None


def _positions(indices: Any, n: int) -> pa.Array:
    """``indices`` as a pyarrow uint64 array of rows, negative ones counted back from ``n``: converted by
    pyarrow in one call (2 ms for 10^6 numpy indices, where checking them one by one in Python took 190
    ms, six times the take). Rows past the end are left for the take to report."""
    if isinstance(indices, numbers.Integral):
        raise TypeError("indices must be a list of row numbers, not one number: take([5]), not take(5)")
    if isinstance(indices, pa.ChunkedArray):
        indices = indices.combine_chunks()
    try:
        rows = indices if isinstance(indices, pa.Array) else pa.array(indices)
    except OverflowError:
        raise IndexError(f"a row is out of range for {n} rows") from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise TypeError(f"indices must be row numbers: {e}") from None
    if rows.null_count:
        raise TypeError("indices must be row numbers, not nulls")
    if pa.types.is_null(rows.type):  # an empty list
        return pa.array([], pa.uint64())
    if not pa.types.is_integer(rows.type):
        raise TypeError(f"indices must be integers, not {rows.type}")
    if pa.types.is_signed_integer(rows.type):
        given = rows.cast(pa.int64())
        negative = pc.less(given, 0)
        if pc.any(negative).as_py():
            rows = pc.if_else(negative, pc.add(given, n), given)
            before_first = pc.less(rows, 0)
            if pc.any(before_first).as_py():
                row = given[pc.index(before_first, True).as_py()].as_py()
                raise IndexError(f"row {row} is out of range for {n} rows")
    return rows.cast(pa.uint64())


def encode(
    array: Union["numpy.ndarray", pa.Array, pa.ChunkedArray, Iterable[Any]],
    encoding: str = "auto",
    objective: str = "balanced",
    segment_rows: int = 65536,
) -> bytes:
    """Encodes one column of integers or floats as lwc bytes.

    ``array`` is a numpy array of any integer or float dtype (a masked array's masked values become
    nulls), a pyarrow array, or a list. ``encoding`` is ``"auto"`` (the selector chooses each segment for
    ``objective``) or an encoding or cascade from :data:`ENCODINGS`, such as ``"for"`` or
    ``"rle(sequence, sequence)"``.

    >>> import numpy as np, lwc
    >>> values = np.arange(1_000_000, dtype=np.int64) * 3
    >>> data = lwc.encode(values)
    >>> len(data) < 2_000, lwc.describe(data)["encodings"]
    (True, 'sequence ×16')
    >>> bool((lwc.decode(data) == values).all())
    True
    """
    return _lwc.encode(_arrow_array(array), encoding=encoding, objective=objective, segment_rows=segment_rows)


def _arrow_array(array: Any) -> pa.Array:
    if isinstance(array, pa.ChunkedArray):
        return array.combine_chunks()
    if isinstance(array, pa.Array):
        return array
    module = type(array).__module__.split(".")[0]
    if module == "numpy":
        import numpy

        if array.ndim != 1:
            raise ValueError(f"lwc.encode takes one column (a 1-d array), not an array of shape {array.shape}")
        if isinstance(array, numpy.ma.MaskedArray):
            return pa.array(array.data, mask=numpy.ma.getmaskarray(array))
        return pa.array(array)
    return pa.array(array)


def decode(data: bytes) -> "numpy.ndarray":
    """Decodes bytes from :func:`encode` into a numpy array of their dtype (a masked array if the
    column has nulls)."""
    import numpy

    array = _lwc.decode(data)
    if array.null_count == 0:
        return array.to_numpy(zero_copy_only=False)
    values = array.fill_null(0).to_numpy(zero_copy_only=False)
    return numpy.ma.MaskedArray(values, mask=array.is_null().to_numpy(zero_copy_only=False))


def describe(data: bytes) -> Dict[str, Any]:
    """What bytes from :func:`encode` hold: ``type``, ``rows``, ``bytes``, ``plain_bytes``, ``segments``
    and ``encodings`` (each cascade and its segment count)."""
    return _lwc.describe(data)


def sql(query: str, tables: Mapping[str, PathLike], threads: Optional[int] = None) -> pa.Table:
    """Runs a SQL query over ``.lwc`` tables through Apache DataFusion and returns the answer.

    ``tables`` maps each table name to a ``.lwc`` file or to a directory of them (one table). Filters,
    projections and limits are pushed into the scans (zone maps, filters on the encoded segments), and
    aggregates without ``GROUP BY`` over one filtered table run on the encoded form.

    >>> import os, tempfile, pyarrow as pa, lwc
    >>> path = os.path.join(tempfile.mkdtemp(), "t.lwc")
    >>> _ = lwc.write(pa.table({"k": [1, 2, 3, 4], "v": [10.0, 20.0, 30.0, 40.0]}), path)
    >>> lwc.sql("SELECT sum(v) AS s FROM t WHERE k > 2", {"t": path}).to_pylist()
    [{'s': 70.0}]
    """
    return _lwc.sql(query, {name: os.fspath(p) for name, p in tables.items()}, threads=threads)
