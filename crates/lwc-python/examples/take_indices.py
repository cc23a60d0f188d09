"""Time `File.take` of random numpy indices against pyarrow's `Table.take` of the same column in plain
memory, and the conversion of the indices on their own, old (a Python loop over the rows, as `take` did
before) and new (`lwc._positions`, one pyarrow call).

    pip install ./crates/lwc-python
    python crates/lwc-python/examples/take_indices.py --rows 1000000
"""

import argparse
import os
import tempfile
import time

import numpy as np
import pyarrow as pa

import lwc
from lwc import _positions


def loop_positions(indices, n):
    """What `take` did before: a Python list, each row counted back and checked one by one."""
    rows = indices.tolist()
    positions = [int(i) + n if int(i) < 0 else int(i) for i in rows]
    for i, p in zip(rows, positions):
        if p < 0:
            raise IndexError(f"row {i} is out of range for {n} rows")
    return positions


def fastest_ms(f, rounds=7):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    n = args.rows
    rng = np.random.default_rng(1)
    table = pa.table({"q": pa.array(rng.integers(1, 51, n), pa.int32())})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "take.lwc")
        lwc.write(table, path)
        f = lwc.open(path)
        for k in [1_000, 100_000, n]:
            indices = rng.integers(0, n, k)
            old = fastest_ms(lambda: loop_positions(indices, n))
            new = fastest_ms(lambda: _positions(indices, n))
            take = fastest_ms(lambda: f.take(indices))
            arrow = fastest_ms(lambda: table.take(pa.array(indices)))
            print(
                f"{k} indices: conversion {old:.2f} ms before, {new:.3f} ms now ({old / new:.0f}x); "
                f"File.take {take:.2f} ms, pyarrow Table.take {arrow:.2f} ms ({take / arrow:.2f}x)"
            )


if __name__ == "__main__":
    main()
