"""Bad files raise; they never abort the interpreter."""

import os

import pyarrow as pa
import pytest

import lwc


@pytest.fixture
def good(path):
    table = pa.table({"k": pa.array(range(70_000)), "s": pa.array([f"v{i % 300}" for i in range(70_000)])})
    lwc.write(table, path)
    return path


def read_everything(path):
    f = lwc.open(path)
    f.read()
    f.take([0, f.num_rows - 1])
    f.scan("k", where="s = 'v7'", sum=True)
    f.verify()


def test_truncated_files_raise(good, tmp_path):
    data = open(good, "rb").read()
    for keep in [0, 3, 8, 100, len(data) // 2, len(data) - 1]:
        cut = tmp_path / f"cut{keep}.lwc"
        cut.write_bytes(data[:keep])
        with pytest.raises(lwc.CorruptFileError):
            read_everything(str(cut))


def test_flipped_bytes_raise_or_read_but_never_crash(good, tmp_path):
    data = bytearray(open(good, "rb").read())
    raised = 0
    step = max(1, len(data) // 300)
    for at in range(0, len(data), step):
        bad = bytearray(data)
        bad[at] ^= 0x5A
        target = tmp_path / "bad.lwc"
        target.write_bytes(bytes(bad))
        try:
            read_everything(str(target))
        except lwc.CorruptFileError:
            raised += 1
    # Every segment and the footer are checksummed: verify catches every flip.
    assert raised == len(range(0, len(data), step))


def test_missing_files_and_directories(tmp_path):
    with pytest.raises(FileNotFoundError):
        lwc.open(tmp_path / "missing.lwc")
    with pytest.raises(OSError):
        lwc.open(tmp_path)
    with pytest.raises(OSError):
        lwc.write(pa.table({"x": [1]}), tmp_path / "no" / "such" / "dir.lwc")


def test_not_an_lwc_file(tmp_path):
    other = tmp_path / "data.csv"
    other.write_text("a,b\n1,2\n" * 100)
    with pytest.raises(lwc.CorruptFileError):
        lwc.open(other)
    assert isinstance(lwc.CorruptFileError("x"), lwc.LwcError)
    assert os.path.exists(other)
