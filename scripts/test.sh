#!/usr/bin/env bash
# Runs every test: formatting and lints, the Rust test suites, then the Python tests.
# Expects the package to be installed (pip install -e . or pip install .).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --quiet
ruff check python tests examples
python -m pytest -q
