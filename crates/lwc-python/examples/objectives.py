"""Compress a DataFrame with lwc under each objective, print the encodings chosen, and plot size against
read speed (a full read and a random take), with Parquet-zstd and Arrow IPC measured in the same run.

    pip install ./crates/lwc-python matplotlib
    python crates/lwc-python/examples/objectives.py --rows 1000000 --out docs/python-objectives.png
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

import lwc


def orders(rows: int, seed: int = 1) -> pd.DataFrame:
    """An orders table with the shapes real columns have: keys, dates, prices, small categories, text."""
    rng = np.random.default_rng(seed)
    day = pd.Timestamp("1992-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 2400, rows)), unit="D")
    return pd.DataFrame(
        {
            "order_key": np.arange(rows, dtype=np.int64) * 4 + 1,
            "customer": rng.integers(1, rows // 10 + 2, rows),
            "order_date": day,
            "price": np.round(rng.gamma(2.0, 40_000, rows), 2),
            "quantity": pd.array(np.where(rng.random(rows) < 0.02, None, rng.integers(1, 51, rows)), dtype="Int32"),
            "status": rng.choice(["F", "O", "P"], rows, p=[0.49, 0.49, 0.02]),
            "priority": rng.choice(["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"], rows),
            "clerk": [f"Clerk#{c:09d}" for c in rng.integers(1, 1001, rows)],
        }
    )


def median_seconds(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--takes", type=int, default=10_000, help="random rows per take")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing (the median is kept)")
    parser.add_argument("--out", default="objectives.png", help="where the plot goes")
    args = parser.parse_args()

    frame = orders(args.rows)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    rows = np.random.default_rng(7).integers(0, args.rows, args.takes)
    points = []  # (label, bytes, full read seconds, take seconds)
    with tempfile.TemporaryDirectory() as tmp:
        for objective in lwc.OBJECTIVES:
            path = os.path.join(tmp, f"{objective}.lwc")
            lwc.write(frame, path, objective=objective)
            f = lwc.open(path)
            if objective == "balanced":
                print(f"encodings chosen for {args.rows:,} rows under the default objective (balanced):")
                print(f.columns_frame()[["type", "encoded_bytes", "ratio", "encodings"]].to_string())
                print()
            read = median_seconds(lambda: f.read(), args.repeat)
            take = median_seconds(lambda: f.take(rows), args.repeat)
            points.append((f"lwc {objective}", f.file_bytes, read, take))

        parquet = os.path.join(tmp, "t.parquet")
        pq.write_table(table, parquet, compression="zstd")
        read = median_seconds(lambda: pq.read_table(parquet), args.repeat)
        take = median_seconds(lambda: pq.read_table(parquet).take(rows), args.repeat)
        points.append(("Parquet zstd", os.path.getsize(parquet), read, take))

        ipc = os.path.join(tmp, "t.arrow")
        feather.write_feather(table, ipc, compression="uncompressed")
        read = median_seconds(lambda: feather.read_table(ipc, memory_map=True), args.repeat)
        take = median_seconds(lambda: feather.read_table(ipc, memory_map=True).take(rows), args.repeat)
        points.append(("Arrow IPC (mmap)", os.path.getsize(ipc), read, take))

    arrow_bytes = table.nbytes
    print(f"{'format':<18} {'bytes':>12} {'of Arrow':>9} {'full read':>11} {f'take {args.takes:,}':>12}")
    for label, size, read, take in points:
        print(f"{label:<18} {size:>12,} {size / arrow_bytes:>8.1%} {read * 1e3:>9.1f} ms {take * 1e3:>9.2f} ms")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, index, title in [(axes[0], 2, "full read (pyarrow.Table)"), (axes[1], 3, f"take of {args.takes:,} random rows")]:
        for label, size, *times in points:
            marker = "o" if label.startswith("lwc") else "s"
            ax.scatter(size / 1e6, times[index - 2] * 1e3, marker=marker, s=45)
            ax.annotate(label, (size / 1e6, times[index - 2] * 1e3), textcoords="offset points", xytext=(5, 4), fontsize=8)
        ax.set_xlabel("file size (MB)")
        ax.set_ylabel("time (ms, median)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"lwc objectives on a {args.rows:,}-row orders DataFrame (Arrow: {arrow_bytes / 1e6:.0f} MB)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"\nplot written to {args.out}")


if __name__ == "__main__":
    main()
