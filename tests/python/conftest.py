from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def example():
    return ROOT / "examples" / "newreno-lossy.toml"
