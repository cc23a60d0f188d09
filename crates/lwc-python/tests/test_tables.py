"""Tables through write and read: every Arrow type lwc stores, pandas, streams, options, shapes."""

import datetime
import decimal
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import lwc


def roundtrip(table, path, **options):
    lwc.write(table, path, **options)
    return lwc.read(path)


INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]


@pytest.mark.parametrize("arrow_type", INT_TYPES, ids=str)
def test_integers_of_every_width_with_extremes_and_nulls(arrow_type, path):
    info = np.iinfo(arrow_type.to_pandas_dtype())
    values = [info.min, info.max, 0, None, 1, info.max - 1, None, info.min + 1] * 1000
    table = pa.table({"x": pa.array(values, arrow_type)})
    assert roundtrip(table, path).equals(table)


@pytest.mark.parametrize("arrow_type", [pa.float32(), pa.float64()], ids=str)
def test_floats_keep_nan_infinities_and_signed_zero(arrow_type, path):
    values = [1.5, float("nan"), float("inf"), -float("inf"), -0.0, 0.0, None, 3.25e-300 if arrow_type == pa.float64() else 1e-30]
    table = pa.table({"x": pa.array(values * 500, arrow_type)})
    back = roundtrip(table, path)["x"].to_pylist()
    for got, want in zip(back, table["x"].to_pylist()):
        if want is None:
            assert got is None
        elif math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want)


def test_decimals_dates_times_timestamps_with_time_zones(path):
    n = 3000
    table = pa.table(
        {
            "price": pa.array([decimal.Decimal(f"{i % 997}.{i % 100:02d}") if i % 13 else None for i in range(n)], pa.decimal128(12, 2)),
            "wide": pa.array([decimal.Decimal(10**30 + i) for i in range(n)], pa.decimal128(38, 0)),
            "day": pa.array([datetime.date(1992, 1, 1) + datetime.timedelta(days=i % 2500) for i in range(n)], pa.date32()),
            "day64": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i) for i in range(n)], pa.date64()),
            "at": pa.array([1_700_000_000_000_000 + i * 1_000_003 for i in range(n)], pa.timestamp("us", tz="Europe/Oslo")),
            "at_ns": pa.array([i * 17 for i in range(n)], pa.timestamp("ns", tz="UTC")),
            "naive": pa.array([i * 60 for i in range(n)], pa.timestamp("s")),
            "clock": pa.array([(i * 37) % 86_400 for i in range(n)], pa.time32("s")),
            "clock_us": pa.array([(i * 37_000_001) % 86_400_000_000 for i in range(n)], pa.time64("us")),
            "took": pa.array([i - 1500 for i in range(n)], pa.duration("ms")),
            "flag": pa.array([None if i % 7 == 0 else i % 3 == 0 for i in range(n)], pa.bool_()),
            "half": pa.array(np.arange(n, dtype=np.float16)),
            "nothing": pa.nulls(n),
        }
    )
    back = roundtrip(table, path)
    assert back.schema == table.schema
    assert back.equals(table)


def test_strings_binaries_nulls_empties_and_views(path):
    words = ["", "a", None, "ünïcødé", "x" * 300, "", None, "MAIL"]
    table = pa.table(
        {
            "s": pa.array(words * 400, pa.string()),
            "large": pa.array(words * 400, pa.large_string()),
            "bin": pa.array([None if w is None else w.encode() for w in words] * 400, pa.binary()),
        }
    )
    assert roundtrip(table, path).equals(table)
    viewed = pa.table({"v": pa.array(words * 10, pa.string_view())})
    assert roundtrip(viewed, path)["v"].to_pylist() == words * 10


def test_dictionary_arrays_come_back_as_their_values(path):
    cities = pa.array(["Oslo", "Lima", None, "Pune", "Lima"] * 2000).dictionary_encode()
    table = pa.table({"city": cities, "code": pa.array([1, 2, 3, 4, 5] * 2000, pa.int16()).dictionary_encode()})
    back = roundtrip(table, path)
    assert back.schema.field("city").type == pa.string()
    assert back["city"].to_pylist() == cities.to_pylist()
    assert back["code"].to_pylist() == table["code"].to_pylist()


def test_pandas_with_nullable_dtypes(path):
    frame = pd.DataFrame(
        {
            "i": pd.array([1, None, -3, 4] * 500, dtype="Int64"),
            "u": pd.array([1, 2, None, 255] * 500, dtype="UInt8"),
            "f": pd.array([0.5, None, 2.5, -1.0] * 500, dtype="Float64"),
            "b": pd.array([True, None, False, True] * 500, dtype="boolean"),
            "s": pd.array(["a", None, "", "dd"] * 500, dtype="string"),
            "t": pd.date_range("2024-03-31", periods=2000, freq="h", tz="America/Lima"),
            "c": pd.Categorical(["x", "y", None, "x"] * 500),
            "plain": np.arange(2000, dtype=np.int32),
        },
        index=pd.RangeIndex(10, 2010),
    )
    lwc.write(frame, path)
    back = lwc.read(path)
    expected = pa.Table.from_pandas(frame, preserve_index=False)
    assert back.column_names == list(frame.columns)
    for name in frame.columns:
        assert back[name].to_pylist() == expected[name].to_pylist(), name
    assert back.schema.field("t").type == expected.schema.field("t").type
    assert back.schema.field("c").type in (pa.string(), pa.large_string())
    again = back.to_pandas()
    assert again["i"].isna().sum() == 500 and again["t"].equals(frame["t"].reset_index(drop=True))


def test_a_record_batch_reader_streams_batch_by_batch(path):
    schema = pa.schema([("k", pa.int64()), ("v", pa.string())])
    made = []

    def batches():
        for b in range(40):
            made.append(b)
            yield pa.record_batch([pa.array(range(b * 5000, (b + 1) * 5000)), pa.array([f"v{b}"] * 5000)], schema=schema)

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    done = lwc.write(reader, path, segment_rows=8192)
    assert done["rows"] == 200_000 and len(made) == 40
    f = lwc.open(path)
    assert f.num_rows == 200_000
    assert f.columns()[0]["segments"] == math.ceil(200_000 / 8192)
    assert f.read(columns=["k"])["k"].to_pylist() == list(range(200_000))


@pytest.mark.parametrize("rows", [0, 1, 2**16 - 1, 2**16, 2**16 + 1])
def test_shapes_at_segment_edges(rows, path):
    table = pa.table(
        {
            "neg": pa.array(np.arange(rows, dtype=np.int64) - rows // 2),
            "runs": pa.array([None if (i // 100) % 2 else i % 5 for i in range(rows)], pa.int32()),
            "text": pa.array([("" if i % 3 else f"r{i % 17}") for i in range(rows)]),
        }
    )
    assert roundtrip(table, path).equals(table)


@pytest.mark.parametrize("objective", ["size", "scan", "random", "balanced", "scan=0.8,get=0.2"])
def test_every_objective_writes_the_same_rows(objective, path):
    table = pa.table({"x": pa.array(np.random.default_rng(7).integers(0, 1000, 70_000)), "m": pa.array(np.arange(70_000) % 12, pa.int8())})
    assert roundtrip(table, path, objective=objective, threads=1).equals(table)
    assert f"objective={objective}" in lwc.open(path).options


def test_a_memory_budget_fits_the_table(path):
    rng = np.random.default_rng(3)
    table = pa.table({"a": pa.array(rng.integers(0, 2**40, 100_000)), "b": pa.array(np.arange(100_000) // 7)})
    small = lwc.write(table, path, memory_budget="1MiB")
    assert sum(c["encoded_bytes"] for c in small["columns"]) <= 2**20
    assert lwc.read(path).equals(table)
    with pytest.raises(ValueError, match="budget"):
        lwc.write(table, path, memory_budget=10)
    with pytest.raises(ValueError, match="access mix"):
        lwc.write(table, path, memory_budget=2**20, objective="size")
    with pytest.raises(ValueError, match="memory budget"):
        lwc.write(table, path, memory_budget="lots")


def test_a_forced_encoding_is_used(path):
    table = pa.table({"x": pa.array(np.arange(10_000) % 100, pa.int32())})
    done = lwc.write(table, path, encoding="for")
    assert done["columns"][0]["encodings"] == "for ×1"
    assert lwc.read(path).equals(table)


def test_bad_options_and_data_raise_before_anything_is_written(tmp_path):
    path = str(tmp_path / "t.lwc")
    table = pa.table({"x": [1, 2, 3]})
    with pytest.raises(ValueError, match="objective"):
        lwc.write(table, path, objective="fastest")
    with pytest.raises(ValueError, match="segment_rows"):
        lwc.write(table, path, segment_rows=0)
    with pytest.raises(ValueError, match="unknown encoding"):
        lwc.write(table, path, encoding="gzip")
    with pytest.raises(ValueError, match="threads"):
        lwc.write(table, path, threads=0)
    with pytest.raises(TypeError, match="pandas.DataFrame"):
        lwc.write([1, 2, 3], path)
    with pytest.raises(TypeError, match="not support"):
        lwc.write(pa.table({"l": pa.array([[1], [2]])}), path)
    assert list(tmp_path.iterdir()) == []


def test_file_describes_itself(path):
    table = pa.table({"id": pa.array(range(100_000)), "mode": pa.array(["MAIL", "SHIP", "AIR", None] * 25_000)})
    lwc.write(table, path)
    f = lwc.open(path)
    assert len(f) == 100_000 and f.num_rows == 100_000
    assert f.schema == table.schema
    assert repr(f).startswith("lwc.File(") and "100000 rows" in repr(f)
    columns = f.columns()
    assert [c["name"] for c in columns] == ["id", "mode"]
    assert columns[1]["nulls"] == 25_000 and columns[0]["encodings"] == "sequence ×2"
    assert sum(c["encoded_bytes"] for c in columns) < f.file_bytes
    frame = f.columns_frame()
    assert list(frame.index) == ["id", "mode"] and frame.loc["id", "rows"] == 100_000
    text = f.explain(["mode"], objective="size")
    assert text.startswith("column mode (Utf8") and "segment 1 (rows 65536..100000)" in text
    assert "column id" in f.explain()
    f.verify()


def test_the_gil_is_released_while_encoding(path):
    import threading

    table = pa.table({"x": pa.array(np.random.default_rng(0).integers(0, 2**40, 2_000_000))})
    ticks = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks[0]
        lwc.write(table, path, threads=1)
        during = ticks[0] - before
    finally:
        stop.set()
        counter.join()
    # Holding the GIL, the counting thread could not run at all while the table was encoded.
    assert during > 1000, during
