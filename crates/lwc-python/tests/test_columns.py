"""Single columns: numpy in, bytes, numpy out."""

import numpy as np
import pyarrow as pa
import pytest

import lwc

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", ["random", "sorted", "runs", "constant", "one", "empty", "edge"])
def test_numpy_arrays_of_every_dtype_round_trip(dtype, shape):
    rng = np.random.default_rng(11)
    n = {"one": 1, "empty": 0, "edge": 2**16 + 1}.get(shape, 100_000)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        base = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    else:
        base = (rng.standard_normal(n) * 1e3).astype(dtype)
        if n > 10:
            base[::97] = np.nan
            base[1] = np.inf
            base[2] = -0.0
    values = {
        "random": base,
        "sorted": np.sort(base),
        "runs": np.repeat(base[: n // 50 + 1], 50)[:n],
        "constant": np.full(n, base[0] if n else 0, dtype=dtype),
    }.get(shape, base)
    data = lwc.encode(values)
    back = lwc.decode(data)
    assert back.dtype == values.dtype and not isinstance(back, np.ma.MaskedArray)
    assert np.array_equal(back, values, equal_nan=np.issubdtype(dtype, np.floating))
    if np.issubdtype(dtype, np.floating):
        assert np.array_equal(np.signbit(back), np.signbit(values))
    info = lwc.describe(data)
    assert info["rows"] == n and info["bytes"] == len(data) and info["plain_bytes"] == values.nbytes


def test_masked_arrays_keep_their_nulls():
    values = np.ma.MaskedArray(np.arange(10_000, dtype=np.int32), mask=(np.arange(10_000) % 3 == 0))
    back = lwc.decode(lwc.encode(values))
    assert isinstance(back, np.ma.MaskedArray)
    assert np.array_equal(back.mask, values.mask)
    assert np.array_equal(back.compressed(), values.compressed())


@pytest.mark.parametrize("encoding", ["plain", "bitpack", "for", "delta", "dict", "rle", "varint", "zstd", "rle(sequence, sequence)"])
def test_forced_encodings_are_used_and_round_trip(encoding):
    values = (np.arange(50_000, dtype=np.int64) // 10) * 3
    data = lwc.encode(values, encoding=encoding)
    # Children are chosen unless the cascade names them.
    assert lwc.describe(data)["encodings"].startswith(encoding), lwc.describe(data)
    assert np.array_equal(lwc.decode(data), values)


def test_objectives_and_inputs():
    values = np.arange(100_000, dtype=np.uint32) % 12
    sizes = {o: len(lwc.encode(values, objective=o)) for o in lwc.OBJECTIVES}
    assert sizes["size"] <= min(sizes.values())
    assert np.array_equal(lwc.decode(lwc.encode(pa.chunked_array([[1, 2], [3]]))), [1, 2, 3])
    assert np.array_equal(lwc.decode(lwc.encode([5, 6, 7])), [5, 6, 7])
    assert "auto" in lwc.ENCODINGS and "for_n" in lwc.ENCODINGS


def test_bad_columns_raise():
    with pytest.raises(TypeError, match="integers or floats"):
        lwc.encode(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="1-d"):
        lwc.encode(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="unknown encoding"):
        lwc.encode(np.arange(3), encoding="nope")
    with pytest.raises(ValueError, match="objective"):
        lwc.encode(np.arange(3), objective="nope")
    data = lwc.encode(np.arange(100_000, dtype=np.int64) ** 2 % 977)
    for bad in [b"", b"LWC1", data[:20], data[: len(data) // 2], b"XXXX" + data[4:]]:
        with pytest.raises(lwc.CorruptFileError):
            lwc.decode(bad)
        with pytest.raises(lwc.CorruptFileError):
            lwc.describe(bad)
