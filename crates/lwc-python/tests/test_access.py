"""Reads as a column store makes them: filters, row ranges, takes and aggregates, against pyarrow."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import lwc

N = 150_000


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(42)
    modes = np.array(["MAIL", "SHIP", "AIR", "TRUCK", ""])
    table = pa.table(
        {
            "qty": pa.array(rng.integers(1, 51, N), pa.int32()),
            "price": pa.array(np.round(rng.uniform(900, 100_000, N), 2)),
            "mode": pa.array(modes[rng.integers(0, 5, N)], mask=rng.random(N) < 0.05),
            "day": pa.array(np.arange(N) // 100, pa.int64()),
            "delta": pa.array(rng.integers(-1000, 1000, N), pa.int16(), mask=(np.arange(N) // 500) % 7 == 0),
        }
    )
    path = str(tmp_path_factory.mktemp("access") / "t.lwc")
    lwc.write(table, path, segment_rows=10_000)
    return table, path


FILTERS = [
    ("qty < 3", lambda t: pc.less(t["qty"], 3)),
    ("qty between 10 and 12 and mode = 'MAIL'", lambda t: pc.and_(pc.and_(pc.greater_equal(t["qty"], 10), pc.less_equal(t["qty"], 12)), pc.equal(t["mode"], "MAIL"))),
    ("mode in ('MAIL', 'SHIP') or price >= 99000", lambda t: pc.or_kleene(pc.is_in(t["mode"], pa.array(["MAIL", "SHIP"])), pc.greater_equal(t["price"], 99000.0))),
    ("mode is null", lambda t: pc.is_null(t["mode"])),
    ("not (delta is not null) or day = 7", lambda t: pc.or_kleene(pc.is_null(t["delta"]), pc.equal(t["day"], 7))),
    ("mode = ''", lambda t: pc.equal(t["mode"], "")),
    ("mode like 'TR%' and delta < -990", lambda t: pc.and_kleene(pc.starts_with(t["mode"], "TR"), pc.less(t["delta"], -990))),
    ("day > 1000000", lambda t: pc.greater(t["day"], 1_000_000)),
    ("not qty <> 5", lambda t: pc.invert(pc.not_equal(t["qty"], 5))),
]


@pytest.mark.parametrize("text,expected", FILTERS, ids=[f[0] for f in FILTERS])
def test_filters_select_what_pyarrow_selects(data, text, expected):
    table, path = data
    want = table.filter(pc.fill_null(expected(table), False))
    got = lwc.read(path, filter=text)
    assert got.equals(want), text
    projected = lwc.read(path, columns=["price", "qty"], filter=text)
    assert projected.equals(want.select(["price", "qty"]))


def test_row_ranges_slices_and_pairs(data):
    table, path = data
    f = lwc.open(path)
    assert f.read(rows=range(9_990, 20_010)).equals(table.slice(9_990, 10_020))
    assert f.read(rows=slice(-5, None)).equals(table.slice(N - 5))
    assert f.read(rows=(100, 50)).num_rows == 0
    assert f.read(rows=(N - 3, N + 100)).equals(table.slice(N - 3))
    ranged = f.read(rows=range(0, 30_000), filter="qty = 1")
    assert ranged.equals(table.slice(0, 30_000).filter(pc.equal(table.slice(0, 30_000)["qty"], 1)))
    with pytest.raises(ValueError, match="step 1"):
        f.read(rows=range(0, 10, 2))


def test_takes_in_any_order_with_repeats_and_negatives(data):
    table, path = data
    f = lwc.open(path)
    rng = np.random.default_rng(1)
    rows = rng.integers(0, N, 5000)
    assert f.take(rows).equals(table.take(pa.array(rows)))
    assert f.take(np.sort(rows), columns=["mode"]).equals(table.select(["mode"]).take(pa.array(np.sort(rows))))
    assert f.take([N - 1, -1, 0, 0]).equals(table.take([N - 1, N - 1, 0, 0]))
    assert f.take([]).num_rows == 0
    assert f.read(rows=[5, 3]).equals(table.take([5, 3]))
    with pytest.raises(IndexError, match="out of range"):
        f.take([N])
    with pytest.raises(IndexError, match="out of range"):
        f.take([-N - 1])
    with pytest.raises(ValueError, match="filter"):
        f.read(rows=[1, 2], filter="qty < 3")
    with pytest.raises(TypeError):
        f.take(5)


def test_takes_indices_of_every_integer_kind(data):
    table, path = data
    f = lwc.open(path)
    rows = np.random.default_rng(2).integers(0, N, 3000)
    expected = table.take(pa.array(rows))
    as_given = [
        rows.astype(np.uint64),
        rows.astype(np.int32),
        rows - N,  # every row counted from the end
        pa.array(rows),
        pa.array(rows, pa.uint32()),
        pa.chunked_array([rows[:1000], rows[1000:]]),
        pd.Series(rows),
        tuple(int(r) for r in rows),
    ]
    for indices in as_given:
        assert f.take(indices).equals(expected), type(indices)
    assert f.take(np.array([], np.int64)).num_rows == 0
    assert f.take(pa.array([], pa.int8())).num_rows == 0
    with pytest.raises(IndexError, match="out of range"):
        f.take(np.array([0, N], np.uint64))
    with pytest.raises(IndexError, match="out of range"):
        f.take([0, 2**70])
    with pytest.raises(IndexError, match=f"row {-N - 5} is out of range"):
        f.take(np.array([3, -N - 5, -1]))
    with pytest.raises(TypeError, match="integers"):
        f.take(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="nulls"):
        f.take([1, None])
    with pytest.raises(TypeError, match="one number"):
        f.take(np.int64(5))


@pytest.mark.parametrize("column", ["qty", "price", "day", "delta", "mode"])
@pytest.mark.parametrize("where", [None, "qty < 3", "mode = 'AIR' and day < 700", "day > 1000000"])
def test_scans_aggregate_like_pyarrow(data, column, where):
    table, path = data
    if where is None:
        selected = table
    else:
        selected = lwc.read(path, filter=where)
    got = lwc.open(path).scan(column, where=where, sum=True, min=True, max=True, stats=True)
    values = selected[column]
    assert got["rows"] == selected.num_rows
    assert got["count"] == pc.count(values).as_py()
    assert got["min"] == pc.min(values).as_py()
    assert got["max"] == pc.max(values).as_py()
    if column == "mode":
        assert got["sum"] is None
    elif column == "price":
        assert got["sum"] == pytest.approx(pc.sum(values).as_py() or 0.0, rel=1e-12)
    else:
        assert got["sum"] == (pc.sum(values).as_py() or 0)
    assert got["row_groups"] == 15
    assert got["row_groups_skipped"] + got["row_groups_whole"] + got["row_groups_filtered"] == 15


def test_zone_maps_skip_row_groups_a_point_query_cannot_touch(data):
    _, path = data
    got = lwc.open(path).scan("day", where="day = 777", stats=True)
    assert got["count"] == 100
    assert got["row_groups_skipped"] == 14


def test_decimal_sums_are_decimals(path):
    import decimal

    table = pa.table({"d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-0.50")] * 10, pa.decimal128(10, 2))})
    lwc.write(table, path)
    got = lwc.open(path).scan("d", sum=True, min=True)
    assert got["sum"] == decimal.Decimal("7.50") and got["min"] == decimal.Decimal("-0.50")


def test_bad_filters_and_columns_say_why(data):
    _, path = data
    f = lwc.open(path)
    with pytest.raises(ValueError, match="cannot read the filter"):
        f.read(filter="qty < 3 and")
    with pytest.raises(ValueError, match="cannot read the condition"):
        f.read(filter="qty ~ 3")
    with pytest.raises(KeyError, match="no column named 'nope'"):
        f.read(filter="nope = 1")
    with pytest.raises(KeyError, match="nope"):
        f.read(columns=["nope"])
    with pytest.raises(KeyError):
        f.scan("nope")
    with pytest.raises(ValueError, match="qty"):
        f.read(filter="qty = 'abc'")
