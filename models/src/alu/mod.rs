//! # Reduction ALU
//!
//! The element-wise reduction unit the NIC's CALC work request uses (`r = a op b`), and that a
//! switch could use for in-network reduction. This module is the specification every level
//! implements: the codes ([`AluOp`], [`Dtype`]), the port structs ([`AluIn`], [`AluOut`]) and
//! the constants. The golden reference is [`golden`] (plain Rust integer arithmetic), the cycle
//! model [`model`] (bit-level, the way the RTL computes); the RTL is `netcoll-hdl`'s `alu`.
//!
//! ## Operations
//!
//! `op` is a 4-bit code ([`AluOp`]):
//!
//! | code | op      | result value                                   | result index |
//! |------|---------|------------------------------------------------|--------------|
//! | 0    | MAX     | the larger of `a`, `b`                         | 0            |
//! | 1    | MIN     | the smaller of `a`, `b`                        | 0            |
//! | 2    | MAXLOC  | see below                                      | see below    |
//! | 3    | MINLOC  | see below                                      | see below    |
//! | 4    | SUM     | `a + b`, wrapping at the dtype width            | 0            |
//! | 5    | PROD    | `a * b`, wrapping at the dtype width            | 0            |
//! | 6    | LAND    | `1` if `a != 0 && b != 0`, else `0`            | 0            |
//! | 7    | LOR     | `1` if `a != 0 \|\| b != 0`, else `0`          | 0            |
//! | 8    | LXOR    | `1` if exactly one of `a`, `b` is non-zero     | 0            |
//! | 9    | BAND    | `a & b`                                        | 0            |
//! | 10   | BOR     | `a \| b`                                       | 0            |
//! | 11   | BXOR    | `a ^ b`                                        | 0            |
//! | 12–15| reserved| `0`, and the `err` output is set                | 0            |
//!
//! Reserved codes are rejected by the NIC before they reach the ALU, but the block is defined
//! for them: value 0, index 0, `err` high (when `in_valid`).
//!
//! ## Element types
//!
//! `dtype` is a 2-bit code ([`Dtype`]): I32 = 0, U32 = 1, I64 = 2, U64 = 3. Every element is
//! carried in a 64-bit word:
//! - for the 32-bit types only the low 32 bits of `a` and `b` are used (the upper bits are
//!   ignored) and the result value has its upper 32 bits zero — it is zero-extended, **not**
//!   sign-extended, also for I32;
//! - index words (`ai`, `bi`, `ri`) are always full 64-bit unsigned values.
//!
//! MAX, MIN, MAXLOC and MINLOC compare under the dtype's signedness (two's complement for I32
//! and I64). SUM and PROD wrap around (modulo 2^32 or 2^64); signed and unsigned types give the
//! same bits. The logical operations treat an operand as true when it is non-zero at the dtype
//! width (so for U32, `0x1_0000_0000` is false). The bitwise operations work at the dtype width.
//!
//! ### MAXLOC / MINLOC (MPI semantics)
//!
//! The operands are the pairs `(a, ai)` and `(b, bi)`. If `a`'s value is strictly better
//! (larger for MAXLOC, smaller for MINLOC) the result is `(a, ai)`; if `b`'s is strictly better,
//! `(b, bi)`; if the values are equal, `(a, min(ai, bi))` with the indices compared as unsigned
//! 64-bit numbers: on a tie the lowest index wins, whichever operand carries it.
//!
//! All other operations give index 0.
//!
//! ## Lanes
//!
//! A block has `lanes` ∈ [`LANES_VALUES`] independent lanes that compute in the same cycle and
//! share `op` and `dtype`. The NIC uses the 1-lane block.
//!
//! ## Ports
//!
//! Every port is at most 64 bits wide.
//!
//! | port                              | dir | width | meaning                               |
//! |-----------------------------------|-----|-------|---------------------------------------|
//! | `clock`                           | in  | 1     | rising edge                           |
//! | `reset`                           | in  | 1     | synchronous, active high              |
//! | `in_valid`                        | in  | 1     | an operation is offered               |
//! | `op`                              | in  | 4     | [`AluOp`] code (12–15 reserved)        |
//! | `dtype`                           | in  | 2     | [`Dtype`] code                        |
//! | `l{k}_a`, `l{k}_ai`               | in  | 64    | lane `k`: first operand and its index  |
//! | `l{k}_b`, `l{k}_bi`               | in  | 64    | lane `k`: second operand and its index |
//! | `out_valid`                       | out | 1     | registered `in_valid`                 |
//! | `err`                             | out | 1     | registered `in_valid && op >= 12`     |
//! | `l{k}_r`, `l{k}_ri`               | out | 64    | lane `k`: result value and index      |
//!
//! ([`input_ports`] and [`output_ports`] list them in the order the harness uses.)
//!
//! ## Timing
//!
//! Latency [`LATENCY`] = 1, one operation per cycle: every output is a register. The values
//! computed from the inputs present at clock edge `t` appear on the outputs after edge `t`, so
//! the outputs depend on registers only (no combinational path from input to output).
//!
//! - `out_valid` and `err` are loaded every cycle: `in_valid` and `in_valid && reserved(op)`.
//! - The result registers `l{k}_r`, `l{k}_ri` are loaded **every cycle, regardless of
//!   `in_valid`**: when `in_valid` is low they hold the result of whatever is on the operand
//!   ports. This saves an enable on 128 × lanes flip-flops; consumers must qualify the results
//!   with `out_valid`.
//! - `reset` (synchronous, active high) clears every register to zero at the edge, taking
//!   precedence over the inputs: an operation offered in a reset cycle is lost.
//! - Inputs wider than their port are cut to the port width (`op & 15`, `dtype & 3`).
//!
//! ## Micro-architecture (shared by the cycle model and the RTL)
//!
//! - Operands at width: `av = a & wmask`, `bv = b & wmask` with `wmask` = `0xFFFF_FFFF` for the
//!   32-bit types and all ones for the 64-bit ones. The final value is `& wmask` again.
//! - Signed compare: flip the sign bit (bit 31 for I32, bit 63 for I64) of `av`, `bv` and compare
//!   the results unsigned; for unsigned types nothing is flipped.
//! - Product: rust-hdl only multiplies `Bits<16> × Bits<16> → Bits<32>`, so the low 64 bits of
//!   `av × bv` are built from the ten 16 × 16 partial products `a_i × b_j` of the 16-bit digits
//!   with `i + j <= 3`, each shifted left by `16 (i + j)`, summed modulo 2^64
//!   ([`model::mul64_lo_from_16x16`]). For the 32-bit types the low 32 bits of that product are
//!   the wrapped product, so one multiplier serves every dtype.

pub mod golden;
pub mod model;

use crate::switch::PortSpec;
use std::fmt;

/// Cycles from the inputs to the outputs.
pub const LATENCY: usize = 1;
/// Supported numbers of lanes per block.
pub const LANES_VALUES: [usize; 3] = [1, 2, 4];
/// The most lanes a block has; the size of the lane arrays in [`AluIn`] and [`AluOut`].
pub const MAX_LANES: usize = 4;
/// Width of the `op` port.
pub const OP_BITS: usize = 4;
/// Width of the `dtype` port.
pub const DTYPE_BITS: usize = 2;
/// Width of every operand, index and result port.
pub const WORD_BITS: usize = 64;
/// The first reserved operation code.
pub const FIRST_RESERVED_OP: u64 = 12;

/// ALU operations (4-bit code); 12..15 are reserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    Max = 0,
    Min = 1,
    MaxLoc = 2,
    MinLoc = 3,
    Sum = 4,
    Prod = 5,
    LAnd = 6,
    LOr = 7,
    LXor = 8,
    BAnd = 9,
    BOr = 10,
    BXor = 11,
}

impl AluOp {
    /// Every operation, in code order.
    pub const ALL: [AluOp; 12] = [
        AluOp::Max,
        AluOp::Min,
        AluOp::MaxLoc,
        AluOp::MinLoc,
        AluOp::Sum,
        AluOp::Prod,
        AluOp::LAnd,
        AluOp::LOr,
        AluOp::LXor,
        AluOp::BAnd,
        AluOp::BOr,
        AluOp::BXor,
    ];

    /// The `op` port value.
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The operation with code `c`; `None` for the reserved codes 12..15 and anything wider
    /// than 4 bits.
    pub fn from_code(c: u64) -> Option<AluOp> {
        AluOp::ALL.get(usize::try_from(c).ok()?).copied()
    }

    /// The MPI-style name (`"MAXLOC"`).
    pub fn name(self) -> &'static str {
        match self {
            AluOp::Max => "MAX",
            AluOp::Min => "MIN",
            AluOp::MaxLoc => "MAXLOC",
            AluOp::MinLoc => "MINLOC",
            AluOp::Sum => "SUM",
            AluOp::Prod => "PROD",
            AluOp::LAnd => "LAND",
            AluOp::LOr => "LOR",
            AluOp::LXor => "LXOR",
            AluOp::BAnd => "BAND",
            AluOp::BOr => "BOR",
            AluOp::BXor => "BXOR",
        }
    }

    /// Whether the operation works on (value, index) pairs: MAXLOC and MINLOC.
    pub fn is_loc(self) -> bool {
        matches!(self, AluOp::MaxLoc | AluOp::MinLoc)
    }
}

impl fmt::Display for AluOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether the 4-bit `op` port value `code` is reserved (12..15).
pub fn is_reserved_op(code: u64) -> bool {
    code & 0xF >= FIRST_RESERVED_OP
}

/// Element types (2-bit code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    I32 = 0,
    U32 = 1,
    I64 = 2,
    U64 = 3,
}

impl Dtype {
    /// Every type, in code order.
    pub const ALL: [Dtype; 4] = [Dtype::I32, Dtype::U32, Dtype::I64, Dtype::U64];

    /// The `dtype` port value.
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The type with code `c`; `None` if `c` does not fit in 2 bits.
    pub fn from_code(c: u64) -> Option<Dtype> {
        Dtype::ALL.get(usize::try_from(c).ok()?).copied()
    }

    /// Lower-case Rust-style name (`"i32"`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::I32 => "i32",
            Dtype::U32 => "u32",
            Dtype::I64 => "i64",
            Dtype::U64 => "u64",
        }
    }

    /// Element width: 32 or 64.
    pub fn bits(self) -> u32 {
        match self {
            Dtype::I32 | Dtype::U32 => 32,
            Dtype::I64 | Dtype::U64 => 64,
        }
    }

    /// Whether values compare as two's complement.
    pub fn is_signed(self) -> bool {
        matches!(self, Dtype::I32 | Dtype::I64)
    }

    /// The bits of a word that carry the element: `0xFFFF_FFFF` or all ones.
    pub fn mask(self) -> u64 {
        match self.bits() {
            32 => 0xFFFF_FFFF,
            _ => u64::MAX,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A number of lanes that is not in [`LANES_VALUES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedLanes(pub usize);

impl fmt::Display for UnsupportedLanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the reduction ALU has {:?} lanes, not {}",
            LANES_VALUES, self.0
        )
    }
}

impl std::error::Error for UnsupportedLanes {}

/// `Ok(lanes)` if `lanes` is one of [`LANES_VALUES`].
pub fn check_lanes(lanes: usize) -> Result<usize, UnsupportedLanes> {
    if LANES_VALUES.contains(&lanes) {
        Ok(lanes)
    } else {
        Err(UnsupportedLanes(lanes))
    }
}

/// One lane's operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AluLaneIn {
    pub a: u64,
    pub ai: u64,
    pub b: u64,
    pub bi: u64,
}

/// One lane's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AluLaneOut {
    /// Result value (upper 32 bits zero for the 32-bit types).
    pub r: u64,
    /// Result index (MAXLOC / MINLOC), else 0.
    pub ri: u64,
}

/// Inputs of a block for one clock cycle. Lanes at or beyond the block's `lanes` are not
/// ports of the block and are ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AluIn {
    /// Synchronous, active high.
    pub reset: bool,
    pub in_valid: bool,
    /// 4 bits, [`AluOp`] code; 12..15 reserved.
    pub op: u64,
    /// 2 bits, [`Dtype`] code.
    pub dtype: u64,
    pub lanes: [AluLaneIn; MAX_LANES],
}

/// Outputs of a block in one clock cycle (sampled before the clock edge). Lanes at or beyond
/// the block's `lanes` are always zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AluOut {
    pub out_valid: bool,
    pub err: bool,
    pub lanes: [AluLaneOut; MAX_LANES],
}

const LANE_IN_NAMES: [[&str; 4]; MAX_LANES] = [
    ["l0_a", "l0_ai", "l0_b", "l0_bi"],
    ["l1_a", "l1_ai", "l1_b", "l1_bi"],
    ["l2_a", "l2_ai", "l2_b", "l2_bi"],
    ["l3_a", "l3_ai", "l3_b", "l3_bi"],
];
const LANE_OUT_NAMES: [[&str; 2]; MAX_LANES] = [
    ["l0_r", "l0_ri"],
    ["l1_r", "l1_ri"],
    ["l2_r", "l2_ri"],
    ["l3_r", "l3_ri"],
];

/// Number of input ports of a `lanes`-lane block besides `clock`.
pub fn num_inputs(lanes: usize) -> usize {
    4 + 4 * lanes.min(MAX_LANES)
}

/// Number of output ports of a `lanes`-lane block.
pub fn num_outputs(lanes: usize) -> usize {
    2 + 2 * lanes.min(MAX_LANES)
}

/// Input ports besides `clock`, in [`AluIn::write_values`] order (the RTL's declaration order).
pub fn input_ports(lanes: usize) -> Vec<PortSpec> {
    let mut v = vec![
        PortSpec {
            name: "reset",
            width: 1,
        },
        PortSpec {
            name: "in_valid",
            width: 1,
        },
        PortSpec {
            name: "op",
            width: OP_BITS,
        },
        PortSpec {
            name: "dtype",
            width: DTYPE_BITS,
        },
    ];
    for names in LANE_IN_NAMES.iter().take(lanes) {
        v.extend(names.iter().map(|&name| PortSpec {
            name,
            width: WORD_BITS,
        }));
    }
    v
}

/// Output ports, in [`AluOut::to_values`] order (the RTL's declaration order).
pub fn output_ports(lanes: usize) -> Vec<PortSpec> {
    let mut v = vec![
        PortSpec {
            name: "out_valid",
            width: 1,
        },
        PortSpec {
            name: "err",
            width: 1,
        },
    ];
    for names in LANE_OUT_NAMES.iter().take(lanes) {
        v.extend(names.iter().map(|&name| PortSpec {
            name,
            width: WORD_BITS,
        }));
    }
    v
}

impl AluIn {
    /// Writes the port values of a `lanes`-lane block in [`input_ports`] order into `out` (at
    /// least [`num_inputs`] long) without allocating: the co-simulation calls this every cycle.
    pub fn write_values(&self, lanes: usize, out: &mut [u64]) {
        out[0] = self.reset as u64;
        out[1] = self.in_valid as u64;
        out[2] = self.op;
        out[3] = self.dtype;
        for (k, l) in self.lanes.iter().take(lanes).enumerate() {
            out[4 + 4 * k..8 + 4 * k].copy_from_slice(&[l.a, l.ai, l.b, l.bi]);
        }
    }

    /// Port values of a `lanes`-lane block in [`input_ports`] order.
    pub fn to_values(&self, lanes: usize) -> Vec<u64> {
        let mut v = vec![0; num_inputs(lanes)];
        self.write_values(lanes, &mut v);
        v
    }
}

impl AluOut {
    /// Port values of a `lanes`-lane block in [`output_ports`] order.
    pub fn to_values(&self, lanes: usize) -> Vec<u64> {
        let mut v = vec![self.out_valid as u64, self.err as u64];
        for l in self.lanes.iter().take(lanes) {
            v.extend([l.r, l.ri]);
        }
        v
    }

    /// Inverse of [`AluOut::to_values`]; `v` must be at least [`num_outputs`] long.
    pub fn from_values(lanes: usize, v: &[u64]) -> AluOut {
        let mut o = AluOut {
            out_valid: v[0] != 0,
            err: v[1] != 0,
            ..Default::default()
        };
        for (k, l) in o.lanes.iter_mut().take(lanes).enumerate() {
            l.r = v[2 + 2 * k];
            l.ri = v[3 + 2 * k];
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for (k, op) in AluOp::ALL.iter().enumerate() {
            assert_eq!(op.code(), k as u64);
            assert_eq!(AluOp::from_code(k as u64), Some(*op));
            assert!(!is_reserved_op(k as u64));
        }
        for c in 12..16 {
            assert_eq!(AluOp::from_code(c), None);
            assert!(is_reserved_op(c));
        }
        assert_eq!(AluOp::from_code(u64::MAX), None);
        for (k, d) in Dtype::ALL.iter().enumerate() {
            assert_eq!(Dtype::from_code(k as u64), Some(*d));
        }
        assert_eq!(Dtype::from_code(4), None);
        assert_eq!(AluOp::MaxLoc.to_string(), "MAXLOC");
        assert_eq!(Dtype::I32.to_string(), "i32");
    }

    #[test]
    fn port_lists_match_the_value_order() {
        for lanes in LANES_VALUES {
            let ins = input_ports(lanes);
            let outs = output_ports(lanes);
            assert_eq!(ins.len(), num_inputs(lanes));
            assert_eq!(outs.len(), num_outputs(lanes));
            assert!(ins.iter().chain(&outs).all(|p| p.width <= 64));
            assert_eq!(
                ins.last().map(|p| p.name),
                Some(LANE_IN_NAMES[lanes - 1][3])
            );
            let mut o = AluOut {
                out_valid: true,
                err: false,
                ..Default::default()
            };
            for (k, l) in o.lanes.iter_mut().take(lanes).enumerate() {
                l.r = 10 + k as u64;
                l.ri = 20 + k as u64;
            }
            assert_eq!(AluOut::from_values(lanes, &o.to_values(lanes)), o);
            let mut i = AluIn {
                op: 5,
                dtype: 2,
                ..Default::default()
            };
            i.lanes[lanes - 1].bi = 77;
            let v = i.to_values(lanes);
            assert_eq!(v[2], 5);
            assert_eq!(v[3], 2);
            assert_eq!(v[num_inputs(lanes) - 1], 77);
        }
    }

    #[test]
    fn lanes_are_checked() {
        assert_eq!(check_lanes(2), Ok(2));
        assert_eq!(check_lanes(3), Err(UnsupportedLanes(3)));
        assert!(UnsupportedLanes(8).to_string().contains('8'));
    }
}
