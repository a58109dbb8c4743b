//! # Reduction ALU
//!
//! The element-wise reduction unit the NIC's CALC work request uses (`r = a op b`), and that a
//! switch could use for in-network reduction. This module is the specification every level
//! implements: the codes ([`AluOp`], [`Dtype`]), the port structs ([`ReduceAluIn`], [`ReduceAluOut`]) and
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
//! for them: value 0, index 0, `err` high (when `in_valid`). The same answer is given to a
//! floating-point `dtype` with an operation the block does not compute on it: LAND … BXOR
//! (undefined on floating point), or any operation on a block built without the
//! floating-point types (`[alu] fp = 0`).
//!
//! ## Element types
//!
//! `dtype` is a 3-bit code ([`Dtype`]): I32 = 0, U32 = 1, I64 = 2, U64 = 3, and the
//! floating-point types F16 = 4, BF16 = 5, F32 = 6, F64 = 7 (`dtype[2]` set, `dtype[1:0]` the
//! [`fp::FpType`] in the order fp16, bf16, fp32, fp64). Every element is carried in a 64-bit
//! word:
//! - for the 32-bit and 16-bit types only the low 32 or 16 bits of `a` and `b` are used (the
//!   upper bits are ignored) and the result value has its upper bits zero — it is
//!   zero-extended, **not** sign-extended, also for I32;
//! - index words (`ai`, `bi`, `ri`) are always full 64-bit unsigned values.
//!
//! The floating-point types are built in when the configuration says so (`[alu] fp = 1`,
//! [`ReduceAluParams::fp`]; they cost area). On them SUM, PROD, MIN, MAX, MINLOC and MAXLOC
//! follow the rules of [`fp`] (IEEE 754 round to nearest even with subnormals, canonical NaN,
//! MIN / MAX as C's `fmin` / `fmax` with `-0 < +0`, MINLOC / MAXLOC ties to the lower index),
//! computed by a datapath of their own (see "Micro-architecture"). The reproducible sum REPRO
//! ([`repro`]) needs no ALU operation: its partials travel in a carry-free format of 32-bit
//! digits in 64-bit words, which SUM over U64 combines exactly, and the member that uses the
//! result rounds it ([`fp_bits::repro_round`]); the fabric's `op = "REPRO"` does this.
//!
//! **Changed in issue 11:** `dtype` was 2 bits (the four integer types). The packet header's
//! `dtype` field and the NIC's CALC still have 2 bits ([`INT_DTYPE_BITS`]): the switch and the
//! NIC reduce integers only, until the next part of issue 11 carries the floating-point types
//! through them.
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
//! A block has `lanes` ∈ {1, 2, 4} ([`ReduceAluParams`]) independent lanes that compute in the same cycle and
//! share `op` and `dtype`. The NIC uses the 1-lane block.
//!
//! ## Ports
//!
//! Declared once in [`reduce_alu_ports!`](crate::reduce_alu_ports) (with their docs): `reset`,
//! `in_valid`, `op` and `dtype`, then per lane `k` the operands `a_k`, `ai_k`, `b_k`, `bi_k`;
//! out: `out_valid`, `err` and per lane the results `r_k`, `ri_k`. Every port is at most 64
//! bits wide.
//!
//! ## Timing
//!
//! The latency is a property of the build ([`ReduceAluParams::latency`]): [`LATENCY`] = 6 for
//! a block with the integer types only (`fp = 0`), [`FP_LATENCY`] for a block with the
//! floating-point types built in (`fp = 1`) — for every operation of that block, the integer
//! ones too: one latency per build. Below, `λ` is that latency. One operation per cycle,
//! sustained: the values computed from the inputs present at clock edge `t` appear on the
//! outputs after edge `t + λ - 1`, i.e. an operation offered in cycle `t` is answered in cycle
//! `t + λ` (`t + 6` without the floating-point types). Every output is a register, so the
//! outputs depend on registers only (no combinational path from input to output), and every
//! input goes straight into a register.
//!
//! - `out_valid` and `err` follow `in_valid` and `in_valid && reserved(op)` through the pipeline.
//! - The result registers `r_k`, `ri_k`, and every pipeline register before them, are loaded
//!   **every cycle, regardless of `in_valid`**: when `in_valid` is low they carry the result of
//!   whatever is on the operand ports. This saves an enable on about 1,000 flip-flops per lane;
//!   consumers must qualify the results with `out_valid`.
//! - `reset` (synchronous, active high) clears every register to zero at the edge, taking
//!   precedence over the inputs: an operation offered in a reset cycle, or in one of the
//!   `λ - 1` cycles before it, is lost, and the outputs are zero for the `λ` cycles after a
//!   reset edge. That is what the ports show; inside the RTL, the floating-point datapaths'
//!   registers have no reset (one reset net to the 22,000 flip-flops of four datapaths was the
//!   placed block's longest path), and their results reach the outputs only through the
//!   floating-point select, a flag that does reset.
//! - Inputs wider than their port are cut to the port width (`op & 15`, `dtype & 7`).
//!
//! **Changed in issue 8 (timing closure):** the latency was 1 (the whole computation between
//! the inputs and one output register, about 48 MHz on an ECP5 -6). It became 4 (a register
//! stage on the inputs, the partial products registered, a carry-save tree registered, and the
//! final add), then 6, for 200 MHz on an ECP5-5G -8: the partial products leave the DSP blocks
//! into registers of their own, the compare ops select from registered compares, and PROD's
//! add is registered before the final select and mask. The results, their order and the throughput are unchanged.
//!
//! **Changed (per-build latency):** the floating-point datapath needs more stages than six to
//! close timing, so a block with it built in answers after [`FP_LATENCY`] cycles, and its
//! integer results wait as long (the six stages below, then `FP_LATENCY - LATENCY` more
//! registers on every output). The NIC's CALC wait and the switch's payload pipeline follow
//! the latency of the ALU they instantiate.
//!
//! ## Micro-architecture (shared by the cycle model and the RTL)
//!
//! Six register stages, and with the floating-point types a tail of more (rule 7), every one
//! loaded every cycle:
//!
//! 1. **Inputs** (`s1_*`): `in_valid`, `op`, `dtype` as offered; per lane the operands at
//!    width, `av = a & wmask`, `bv = b & wmask` with `wmask` = `0xFFFF_FFFF` for the 32-bit
//!    types and all ones for the 64-bit ones, their compare keys `ak = av ^ sflip`,
//!    `bk = bv ^ sflip` (`sflip` is the sign bit, bit 31 for I32 and bit 63 for I64, or 0 for
//!    the unsigned types: flipping it maps two's complement order onto unsigned order), and
//!    `ai`, `bi` as offered. The cycle model flips the keys in stage 2 from the registered
//!    `dtype`, the same function; the RTL registers them so that stage 2's compares start from
//!    registers.
//! 2. **Compares and products** (`s2_*`), from stage 1 (`av`, `bv`, `ai`, `bi` carried on):
//!    - `a_gt = ak > bk`, `a_lt = ak < bk` (unsigned); `bi_lt_ai` compares the indices. The RTL
//!      compares the keys' 16-bit quarters here, registers the eight results and combines them
//!      in stage 3 (four short carry chains instead of one long one);
//!    - `sum = av + bv`, the truth values `av != 0`, `bv != 0`;
//!    - product: rust-hdl only multiplies `Bits<16> × Bits<16> → Bits<32>`, so the low 64 bits
//!      of `av × bv` are built from the ten 16 × 16 partial products `a_i × b_j` of the 16-bit
//!      digits with `i + j <= 3` ([`model::partial_products`]); each is registered. In the RTL
//!      each is a multiplier with its own operand registers (copies of stage 1's, taken from
//!      the same masked operands) and product register — the shape of an FPGA DSP block, so
//!      that no fabric logic sits on either side of it.
//!    - the decoded `op` is carried on, with `err`'s `reserved(op)`. The RTL registers it
//!      one-hot (a bit per code) from here on, so that the selects start from registers.
//! 3. **Compares, other results, products** (`s3_*`), from stage 2: `a_gt`, `a_lt`,
//!    `bi_lt_ai`, `av`, `bv`, `ai`, `bi` carried on; the result of every operation that needs
//!    no compare (SUM, the logical and bitwise ones; 0 for the others); the partial products
//!    carried on (in the RTL, from the DSP blocks into fabric registers next to them). The RTL
//!    goes one step further with the compares: with stage 2's `op` it decides here what stage
//!    4's table below takes for MAX, MIN, MAXLOC, MINLOC (value `av` or `bv`, index `ai`, `bi`
//!    or 0) and registers that as four flags, so that stage 4's multiplexers are driven by
//!    registers of their own rather than by the compares.
//! 4. **Values and carry-save rows** (`s4_*`): the value and index of every operation but
//!    PROD (the operation table above: MAX, MIN, MAXLOC, MINLOC select from the registered
//!    compares, the others take stage 3's result; PROD and the reserved codes give 0); the ten
//!    partial products, each shifted left by `16 (i + j)`, reduced modulo 2^64 by three levels
//!    of 3:2 carry-save adders to four rows ([`model::carry_save_rows`]).
//! 5. **PROD's sum** (`s5_*`): the last two carry-save levels to `ps`, `pc`
//!    ([`model::carry_save_finish`]) and their one 64-bit add, `prod = ps + pc`; the value and
//!    index carried on.
//! 6. **Outputs**: `r = (PROD ? prod : value) & wmask` (SUM and PROD carry out of bit 31, and
//!    the mask keeps a 32-bit result zero-extended), `ri`, `out_valid`, `err`.
//! 7. **The tail** (`fp = 1` only): `FP_LATENCY - LATENCY` more registers (none while the two
//!    are equal) after stage 6 on every output, `out_valid`, `err`, every lane's `r` and `ri`,
//!    and the "`dtype` is floating point" select; at the last of them the select takes the
//!    floating-point datapath's result, which is `FP_LATENCY` stages deep itself. (The RTL
//!    delays `r` and `ri` in a LUT RAM instead, and a flag that resets keeps the words it
//!    reads in the cycles after a reset off the outputs: the ports behave the same.)
//!
//! For the 32-bit types the low 32 bits of the 64-bit product are the wrapped product, so one
//! multiplier serves every dtype.
//!
//! **Floating point** (`fp = 1`): per lane a second datapath, `netcoll-hdl`'s `reduce_alu_fp`,
//! takes the same operands and has [`FP_LATENCY`] stages, built from [`fp_bits`]' arithmetic:
//! the operands unpacked into one format wide enough for all four types (fp64's 53-bit
//! significand, subnormals normalised), aligned and added with guard, round and sticky bits,
//! or multiplied from 16 × 16 partial products (rust-hdl multiplies no wider), then normalised,
//! rounded to the type's precision (fewer bits for a subnormal result) and packed; MIN, MAX,
//! MINLOC and MAXLOC are the NaN tests and one unsigned compare of keys. The control carries
//! "`dtype` is floating point" from stage 2 to the outputs (`s2_fp` … `o_fp`), where it
//! selects the floating-point result, or zero on a block without the datapath. The cycle
//! model computes the floating-point result with [`fp_bits`] in stage 2 and carries it to the
//! outputs: the ports agree cycle by cycle, which is what the lockstep compares.

pub mod fp;
pub mod fp_bits;
#[cfg(test)]
mod fp_reference;
pub mod golden;
pub mod model;
pub mod repro;

use crate::kit::block::BlockSpec;
use crate::model_ports;

/// Cycles from the inputs to the outputs of a block with the integer types only (`fp = 0`): an
/// operation offered in cycle `t` is answered in cycle `t + LATENCY` (see "Timing"). A block's
/// own latency is [`ReduceAluParams::latency`].
pub const LATENCY: usize = 6;
/// The latency of a block with the floating-point types built in (`fp = 1`): the FP datapath
/// `reduce_alu_fp`'s stages. Integer-only builds keep [`LATENCY`]; a block with the
/// floating-point types answers every operation, the integer ones too, after this many cycles.
pub const FP_LATENCY: usize = 16;
const _: () = assert!(FP_LATENCY >= LATENCY);
/// The most lanes a block has; the size of the lane arrays in [`ReduceAluIn`] and
/// [`ReduceAluOut`].
pub const MAX_LANES: usize = 4;
/// Width of an operand, a result and an index.
pub const WORD_BITS: usize = 64;
/// Operation codes from this one up are reserved.
pub const FIRST_RESERVED_OP: u64 = 12;
/// Width of a `dtype` field that names the integer types only (codes 0 to 3): the packet
/// header's and the NIC's CALC work request's. The floating-point types reach the ALU's 3-bit
/// port only; carrying them through the switch and the NIC is the next part of issue 11.
pub const INT_DTYPE_BITS: usize = 2;

crate::param_table! {
    /// Parameters of the stand-alone reduction ALU: the `[alu]` table of `netcoll.toml`. (The
    /// NIC instantiates its own one-lane ALU whatever this says.)
    pub struct ReduceAluParams in "alu" {
        /// Lanes computed per cycle, sharing `op` and `dtype`.
        lanes: 4 in [1, 2, 4],
        /// 1: the floating-point types (f16, bf16, f32, f64) are built in; 0: integers only
        /// (a floating-point `dtype` is then answered as a reserved operation).
        fp: 0 in [0, 1],
        /// With `fp = 1`, which floating-point types are built in (a type left out is
        /// answered as a reserved operation; without f64 the datapath's multipliers shrink to
        /// 4, without f32 as well to 1).
        fp_types: 15 in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
            names ["f16", "bf16", "f32", "f64"],
    }
}

/// Every floating-point type (`fp_types` of all four: bit `i` for `FpType::ALL[i]`).
pub const ALL_FP_TYPES: usize = 0b1111;

/// Whether a block whose floating-point types are the mask `fp_mask` (bit `i` for
/// `FpType::ALL[i]`, 0 without them) computes on `dtype`: every integer type, and the
/// floating-point types in the mask.
pub fn builds_dtype(fp_mask: usize, dtype: Dtype) -> bool {
    dtype.fp().is_none_or(|t| fp_mask >> t.index() & 1 == 1)
}

/// What a module name adds for the floating-point types `fp_mask`: nothing without them,
/// `_fp` with all four, else `_fp` and the types', e.g. `_fp_f16_bf16_f32`.
pub fn fp_suffix(fp_mask: usize) -> String {
    match fp_mask {
        0 => String::new(),
        _ => format!("_fp{}", fp_types_suffix(fp_mask)),
    }
}

/// The types' part of [`fp_suffix`]: empty for all four (or none), else `_` and each type's
/// name as `fp_types` spells it in `netcoll.toml`, narrowest first.
pub fn fp_types_suffix(fp_mask: usize) -> String {
    if fp_mask & ALL_FP_TYPES == ALL_FP_TYPES || fp_mask == 0 {
        return String::new();
    }
    ReduceAluParams::KEYS
        .iter()
        .find(|k| k.name == "fp_types")
        .map(|k| k.members(fp_mask).iter().map(|n| format!("_{n}")).collect())
        .unwrap_or_default()
}

/// [`builds_dtype`] on a raw code: an unknown code is not built.
pub fn builds_code(fp_mask: usize, dtype: u64) -> bool {
    Dtype::from_code(dtype).is_some_and(|d| builds_dtype(fp_mask, d))
}

impl ReduceAluParams {
    /// Lanes (the width method of the lane port arrays).
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Whether the floating-point types are built in.
    pub fn has_fp(&self) -> bool {
        self.fp == 1
    }

    /// The floating-point types built in, bit `i` for `FpType::ALL[i]`: `fp_types` with
    /// `fp = 1`, else 0.
    pub fn fp_mask(&self) -> usize {
        if self.has_fp() {
            self.fp_types
        } else {
            0
        }
    }

    /// Whether the block computes on `dtype` (see [`builds_dtype`]).
    pub fn builds(&self, dtype: Dtype) -> bool {
        builds_dtype(self.fp_mask(), dtype)
    }

    /// The block's latency: [`FP_LATENCY`] with the floating-point types built in, else
    /// [`LATENCY`] (see "Timing").
    pub fn latency(&self) -> usize {
        if self.has_fp() {
            FP_LATENCY
        } else {
            LATENCY
        }
    }

    /// The registers a block with the floating-point types adds after the integer datapath's
    /// six stages: `latency() - LATENCY`.
    pub fn extra_stages(&self) -> usize {
        self.latency() - LATENCY
    }
}

crate::codes! {
    /// ALU operations (`op`, 4 bits); 12..15 are reserved.
    pub enum AluOp: 4 {
        Max = 0 => "MAX",
        Min = 1 => "MIN",
        MaxLoc = 2 => "MAXLOC",
        MinLoc = 3 => "MINLOC",
        Sum = 4 => "SUM",
        Prod = 5 => "PROD",
        LAnd = 6 => "LAND",
        LOr = 7 => "LOR",
        LXor = 8 => "LXOR",
        BAnd = 9 => "BAND",
        BOr = 10 => "BOR",
        BXor = 11 => "BXOR",
    }
}

impl AluOp {
    /// MAXLOC and MINLOC work on (value, index) pairs.
    pub fn is_loc(self) -> bool {
        matches!(self, AluOp::MaxLoc | AluOp::MinLoc)
    }
}

/// Whether `code` (cut to 4 bits) is a reserved operation.
pub fn is_reserved_op(code: u64) -> bool {
    code & 0xF >= FIRST_RESERVED_OP
}

crate::codes! {
    /// Element types (`dtype`, 3 bits): four integer types, then four floating-point ones.
    pub enum Dtype: 3 {
        I32 = 0 => "i32",
        U32 = 1 => "u32",
        I64 = 2 => "i64",
        U64 = 3 => "u64",
        F16 = 4 => "f16",
        Bf16 = 5 => "bf16",
        F32 = 6 => "f32",
        F64 = 7 => "f64",
    }
}

impl Dtype {
    /// The integer types (codes 0 to 3): what a 2-bit `dtype` field (the packet header's, the
    /// NIC's CALC) can name.
    pub const INT: [Dtype; 4] = [Dtype::I32, Dtype::U32, Dtype::I64, Dtype::U64];

    /// The element's width.
    pub fn bits(self) -> u32 {
        match self.fp() {
            Some(t) => t.bits(),
            None if self.code() & 2 == 0 => 32,
            None => 64,
        }
    }

    /// A signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(self, Dtype::I32 | Dtype::I64)
    }

    /// The element's bits in a 64-bit word.
    pub fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    /// The floating-point type, or `None` for an integer type. A floating-point code is `4 +`
    /// its [`FpType`](fp::FpType) position: `dtype[2]` set, `dtype[1:0]` the type.
    pub fn fp(self) -> Option<fp::FpType> {
        match self.code() {
            c @ 4..=7 => Some(fp::FpType::ALL[c as usize - 4]),
            _ => None,
        }
    }

    /// Whether `op` is defined on this type: every operation on the integer types, the six of
    /// [`fp`] (MAX … PROD) on the floating-point ones.
    pub fn defines(self, op: AluOp) -> bool {
        self.fp().is_none() || op.code() <= AluOp::Prod.code()
    }
}

/// The reduction ALU's ports: the one declaration every view uses (see
/// [`crate::kit::ports`]). Lane `k`'s ports are `a_k`, `ai_k`, `b_k`, `bi_k`, `r_k`, `ri_k`.
#[macro_export]
macro_rules! reduce_alu_ports {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            params $crate::reduce_alu::ReduceAluParams;
            /// Inputs of the ALU for one clock cycle.
            inputs ReduceAluIn {
                /// Synchronous reset, active high.
                reset: 1,
                /// An operation is offered.
                in_valid: 1,
                /// `AluOp` code (12..15 reserved).
                op: {$crate::reduce_alu::AluOp::BITS},
                /// `Dtype` code (4..7: floating point).
                dtype: {$crate::reduce_alu::Dtype::BITS},
                /// Per lane: the first operand.
                a: [{$crate::reduce_alu::WORD_BITS}; L, lanes, 4],
                /// Per lane: the first operand's index (MAXLOC / MINLOC).
                ai: [{$crate::reduce_alu::WORD_BITS}; L, lanes, 4],
                /// Per lane: the second operand.
                b: [{$crate::reduce_alu::WORD_BITS}; L, lanes, 4],
                /// Per lane: the second operand's index.
                bi: [{$crate::reduce_alu::WORD_BITS}; L, lanes, 4],
            }
            /// Outputs of the ALU (all registered, latency `ReduceAluParams::latency`).
            outputs ReduceAluOut {
                /// Registered `in_valid`.
                out_valid: 1,
                /// Registered `in_valid` and no answer: a reserved `op`, or a floating-point
                /// `dtype` with an operation the block does not compute on it.
                err: 1,
                /// Per lane: the result value.
                r: [{$crate::reduce_alu::WORD_BITS}; L, lanes, 4],
                /// Per lane: the result index.
                ri: [{$crate::reduce_alu::WORD_BITS}; L, lanes, 4],
            }
        }
    };
}
crate::reduce_alu_ports!(model_ports! {});

/// One lane's operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AluLaneIn {
    pub a: u64,
    pub ai: u64,
    pub b: u64,
    pub bi: u64,
}

/// One lane's results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AluLaneOut {
    pub r: u64,
    pub ri: u64,
}

impl ReduceAluIn {
    /// Lane `k`'s operands.
    pub fn lane(&self, k: usize) -> AluLaneIn {
        AluLaneIn {
            a: self.a[k],
            ai: self.ai[k],
            b: self.b[k],
            bi: self.bi[k],
        }
    }
    /// Sets lane `k`'s operands.
    pub fn set_lane(&mut self, k: usize, l: AluLaneIn) {
        self.a[k] = l.a;
        self.ai[k] = l.ai;
        self.b[k] = l.b;
        self.bi[k] = l.bi;
    }
}

impl ReduceAluOut {
    /// Lane `k`'s results.
    pub fn lane(&self, k: usize) -> AluLaneOut {
        AluLaneOut {
            r: self.r[k],
            ri: self.ri[k],
        }
    }
    /// Sets lane `k`'s results.
    pub fn set_lane(&mut self, k: usize, l: AluLaneOut) {
        self.r[k] = l.r;
        self.ri[k] = l.ri;
    }
}

/// The reduction ALU as a block (see [`crate::kit::block`]). Its Verilog module for `lanes`
/// lanes is `reduce_alu_l<lanes>`.
pub struct ReduceAlu;

impl BlockSpec for ReduceAlu {
    const NAME: &'static str = "reduce_alu";
    const DESCRIPTION: &'static str =
        "reduction ALU: MAX MIN MAXLOC MINLOC SUM PROD LAND LOR LXOR BAND BOR BXOR on i32 u32 i64 u64; MAX MIN MAXLOC MINLOC SUM PROD on f16 bf16 f32 f64 (fp = 1)";
    const REGISTERED_OUTPUTS: bool = true;
    type Params = ReduceAluParams;
    type In = ReduceAluIn;
    type Out = ReduceAluOut;
    type Model = model::ReduceAluModel;
    /// The golden function ([`golden::golden`]) behind one register stage.
    type Golden = golden::ReduceAluGolden;
    fn params(cfg: &crate::config::Config) -> ReduceAluParams {
        cfg.alu
    }
    fn module_name(p: &ReduceAluParams) -> String {
        format!("reduce_alu_l{}{}", p.lanes, fp_suffix(p.fp_mask()))
    }
    fn model(p: &ReduceAluParams) -> Self::Model {
        model::ReduceAluModel::new(*p)
    }
    fn golden(p: &ReduceAluParams) -> Self::Golden {
        golden::ReduceAluGolden::new(*p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::ports::PortValues;

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
        assert_eq!(Dtype::from_code(8), None);
        assert_eq!(Dtype::F64.fp(), Some(fp::FpType::F64));
        assert_eq!(Dtype::I64.fp(), None);
        assert_eq!(
            (Dtype::Bf16.bits(), Dtype::U32.bits(), Dtype::F64.mask()),
            (16, 32, u64::MAX)
        );
        assert_eq!(AluOp::MaxLoc.to_string(), "MAXLOC");
        assert_eq!(Dtype::I32.to_string(), "i32");
    }

    #[test]
    fn module_suffixes_name_the_types_built_in() {
        assert_eq!(fp_suffix(0), "");
        assert_eq!(fp_suffix(0b1111), "_fp");
        assert_eq!(fp_suffix(0b0111), "_fp_f16_bf16_f32");
        assert_eq!(fp_suffix(0b1010), "_fp_bf16_f64");
        assert_eq!(fp_suffix(0b0001), "_fp_f16");
    }

    #[test]
    fn port_lists_follow_the_lanes() {
        for lanes in [1, 2, 4] {
            let p = ReduceAluParams {
                lanes,
                fp: 0,
                ..Default::default()
            };
            let ins = ReduceAluIn::specs(&p);
            let outs = ReduceAluOut::specs(&p);
            assert_eq!(ins.len(), 4 + 4 * lanes);
            assert_eq!(outs.len(), 2 + 2 * lanes);
            assert!(ins.iter().chain(&outs).all(|s| s.width <= 64));
            assert_eq!(
                ins.last().map(|s| s.name.clone()),
                Some(format!("bi_{}", lanes - 1))
            );
            let mut o = ReduceAluOut {
                out_valid: true,
                ..Default::default()
            };
            for k in 0..lanes {
                o.set_lane(
                    k,
                    AluLaneOut {
                        r: 10 + k as u64,
                        ri: 20 + k as u64,
                    },
                );
            }
            assert_eq!(ReduceAluOut::from_values(&p, &o.to_values(&p)), o);
            let mut i = ReduceAluIn {
                op: 5,
                dtype: 2,
                ..Default::default()
            };
            i.bi[lanes - 1] = 77;
            let v = i.to_values(&p);
            assert_eq!((v[2], v[3]), (5, 2));
            assert_eq!(v[ins.len() - 1], 77);
        }
    }
}
