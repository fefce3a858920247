#!/usr/bin/env bash
# Runs every test: formatting and lints, the Rust test suites, then the Python tests.
# Installs what it needs (pytest, ruff, polars, dpkt to read packet captures back,
# dask.distributed for the Dask sweep tests; tcplab itself if it is not importable yet).
# The report test also uses headless Chromium when it is installed (.ci/run installs it on
# Debian) and the pcap test tshark (apt-get install tshark); each says why it skips otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip --version >/dev/null
python3 -c "import pytest, ruff, polars, dpkt" 2>/dev/null || python3 -m pip install -q pytest ruff polars dpkt
python3 -c "import distributed" 2>/dev/null || python3 -m pip install -q "dask[distributed]"
python3 -c "import tcplab._tcplab" 2>/dev/null || python3 -m pip install -q .
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --quiet
python3 -m ruff check python tests examples
python3 -m pytest -q
