import pytest


@pytest.fixture
def path(tmp_path):
    """A fresh .lwc path in a temporary directory."""
    return str(tmp_path / "table.lwc")
