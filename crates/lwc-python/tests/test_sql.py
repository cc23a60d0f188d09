"""SQL over .lwc tables, against the same query answered by pyarrow."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import lwc


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    rng = np.random.default_rng(5)
    n = 80_000
    orders = pa.table(
        {
            "o_id": pa.array(np.arange(n // 4, dtype=np.int64)),
            "o_status": pa.array(np.array(["F", "O", "P"])[rng.integers(0, 3, n // 4)]),
        }
    )
    items = pa.table(
        {
            "l_order": pa.array(rng.integers(0, n // 4, n)),
            "l_qty": pa.array(rng.integers(1, 51, n), pa.int32()),
            "l_price": pa.array(np.round(rng.uniform(1, 1000, n), 2)),
            "l_mode": pa.array(np.array(["MAIL", "SHIP", "AIR"])[rng.integers(0, 3, n)], mask=rng.random(n) < 0.1),
        }
    )
    root = tmp_path_factory.mktemp("sql")
    paths = {"orders": str(root / "orders.lwc"), "items": str(root / "items.lwc")}
    lwc.write(orders, paths["orders"], segment_rows=4096)
    lwc.write(items, paths["items"], segment_rows=4096)
    return {"orders": orders, "items": items}, paths


def test_a_grouped_aggregate_matches_pyarrow(tables):
    data, paths = tables
    got = lwc.sql(
        "SELECT l_mode, count(*) AS n, sum(l_qty) AS q FROM items WHERE l_price < 500 GROUP BY l_mode ORDER BY l_mode NULLS LAST",
        paths,
    )
    items = data["items"]
    cheap = items.filter(pc.less(items["l_price"], 500.0))
    want = cheap.group_by("l_mode").aggregate([([], "count_all"), ("l_qty", "sum")])
    by_mode = {r["l_mode"]: (r["count_all"], r["l_qty_sum"]) for r in want.to_pylist()}
    assert [r["l_mode"] for r in got.to_pylist()] == ["AIR", "MAIL", "SHIP", None]
    for r in got.to_pylist():
        assert (r["n"], r["q"]) == by_mode[r["l_mode"]]


def test_aggregates_on_the_encoded_form_and_a_join(tables):
    data, paths = tables
    items, orders = data["items"], data["orders"]
    got = lwc.sql("SELECT count(*) AS n, sum(l_qty) AS q, min(l_price) AS lo, max(l_mode) AS hi FROM items WHERE l_qty >= 49", paths).to_pylist()[0]
    sel = items.filter(pc.greater_equal(items["l_qty"], 49))
    assert got == {"n": sel.num_rows, "q": pc.sum(sel["l_qty"]).as_py(), "lo": pc.min(sel["l_price"]).as_py(), "hi": pc.max(sel["l_mode"]).as_py()}
    joined = lwc.sql("SELECT count(*) AS n FROM items JOIN orders ON l_order = o_id WHERE o_status = 'F' AND l_mode = 'AIR'", paths, threads=2)
    f_orders = orders.filter(pc.equal(orders["o_status"], "F"))["o_id"]
    air = items.filter(pc.fill_null(pc.equal(items["l_mode"], "AIR"), False))
    assert joined["n"][0].as_py() == pc.sum(pc.is_in(air["l_order"], f_orders)).as_py()


def test_a_directory_is_one_table(tmp_path):
    for k in range(3):
        lwc.write(pa.table({"x": pa.array(range(k * 100, k * 100 + 100))}), str(tmp_path / f"part{k}.lwc"))
    got = lwc.sql("SELECT count(*) AS n, sum(x) AS s FROM t", {"t": tmp_path})
    assert got.to_pylist() == [{"n": 300, "s": sum(range(300))}]


def test_sql_errors_are_lwc_errors(tables, tmp_path):
    _, paths = tables
    with pytest.raises(lwc.LwcError, match="nope"):
        lwc.sql("SELECT * FROM nope", paths)
    with pytest.raises(lwc.LwcError, match="l_nope"):
        lwc.sql("SELECT l_nope FROM items", paths)
    with pytest.raises(lwc.LwcError):
        lwc.sql("SELEC 1", paths)
    with pytest.raises(FileNotFoundError):
        lwc.sql("SELECT 1", {"t": tmp_path / "missing.lwc"})
    with pytest.raises(ValueError, match="threads"):
        lwc.sql("SELECT 1", paths, threads=0)
