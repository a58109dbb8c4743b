//! # The floating-point datapath of one ALU lane (module `reduce_alu_fp`)
//!
//! `r, ri = a op b` on one element of a floating-point type (fp16, bf16, fp32, fp64), through
//! [`FP_STAGES`] register stages, bit for bit as the integer model
//! `netcoll_models::reduce_alu::fp_bits` computes it: IEEE 754 round to nearest even with
//! subnormals, signed zeros and infinities, the canonical quiet NaN for every NaN result, MIN /
//! MAX as C's `fmin` / `fmax` with `-0 < +0`, MINLOC / MAXLOC keeping the lower index on a tie.
//! One datapath sized for fp64 serves every type: the narrower ones are placed exactly into it
//! (significand at fp64's position, exponent in the type's own bias) and rounded back at the
//! type's precision.
//!
//! A build may leave types out ([`ReduceAluFp::set_types`], the configuration's `fp_types`;
//! module [`module_name`]): an operation on one is made a reserved one (`r = ri = 0`), its
//! unpacking gives constant zeros, and the multipliers only it needs are not read
//! (`mul_used`), so synthesis removes the significand bits and the multipliers the built
//! types do not use (f16 and bf16: one multiplier; with f32: four; with f64: sixteen).
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; only the multipliers' registers reset: the datapath's
//!   registers do not, so what is in flight at a reset edge comes out unspecified — the ALU's
//!   control flags, which reset, select the datapath's results only for operations offered
//!   after it);
//! - `a`, `ai`, `b`, `bi` (64 bits each): the operands and their indices, as offered; the
//!   element sits in the low bits of `a` and `b`, the bits above it are ignored;
//! - `fmt`: the type, 0 fp16, 1 bf16, 2 fp32, 3 fp64 (the order of `FpType::ALL`);
//! - `op`: the `AluOp` code: MAX, MIN, MAXLOC, MINLOC, SUM, PROD; any other code gives
//!   `r = ri = 0`.
//!
//! # Outputs
//! - `r` (the result, zero-extended) and `ri` (MAXLOC's and MINLOC's index, else 0):
//!   registers, [`FP_STAGES`] cycles after the operands (offered at edge `t`, out after edge
//!   `t + 15`). Every stage loads every cycle: one operation per cycle, sustained.
//!
//! # Structure
//! Exponents travel as 13-bit unsigned numbers with an offset, so that no stage needs signed
//! arithmetic: a result's exponent is `R = B + 4096`, `B` the type's biased exponent that the
//! result has when its leading one is at bit 63 of a 64-bit significand (`B < 1`: subnormal).
//! Until the result is normalised it is carried as `E` and a count `lz` still to subtract.
//!
//! Every stage is a few look-up tables or one carry chain deep, for an 8 ns cycle on an ECP5
//! (see "Timing"). `tf[k]` is stage `k + 1`'s type; the other arrays `c_*` carry a value along
//! stages, their first element at the stage their documentation names.
//!
//! - Stage 1 (`s1_*`): the inputs as offered; each operand's sign bit for the offered type,
//!   and four copies of the type (`tk`), one per operand half, for stage 2's compare keys.
//! - Stage 2 (`s2_*`): each operand unpacked: sign, exponent field (zero or not, all ones or
//!   not), significand with its hidden bit at fp64's position, the element and its compare key.
//! - Stage 3 (`s3_*`): the classes (NaN, infinity, zero) and, for SUM and PROD, the result
//!   they decide (NaN, infinity or zero, and its sign); SUM: the magnitudes compared and both
//!   exponent differences; MIN / MAX: the keys' and the indices' 16-bit quarters compared;
//!   PROD: the first stage of each significand's normaliser ([`ReduceAluFpNorm`], stages 3 to
//!   5: a subnormal's leading one brought to bit 63).
//! - Stage 4 (`s4_*`): SUM: the larger magnitude first, the shift that aligns the smaller one,
//!   `E` of the sum; PROD: `E` before the normalisers' counts; the result the classes
//!   decided in the type's encoding (`c_arith` clear), or 0 for a reserved `op`; MIN / MAX:
//!   the quarters combined and the decision (which value, which index) registered.
//! - Stages 5 and 6: SUM: the smaller significand aligned with three guard bits and a sticky
//!   bit ([`ReduceAluFpShr`] `shr[0]`); MIN / MAX / MINLOC / MAXLOC: the value and index
//!   multiplexed (stage 5), which take the place of the result; PROD: the normalised
//!   significands (stage 5), split into four 16-bit digits for the sixteen [`Mul16`]s, whose
//!   operand registers are stage 6; `E` of the product (stage 6).
//! - Stage 7: SUM: the add or subtract; PROD: the multipliers' product registers.
//! - Stages 8 to 10: SUM: the sum normalised ([`ReduceAluFpNorm`] `norm[2]`), an exact
//!   cancellation made `+0`; PROD: the products in fabric registers (8), packed into seven
//!   rows and reduced by four levels of 3:2 carry-save adders to two rows (9), the rows' low
//!   halves added as two 32-bit halves side by side (the upper one's carry out and the sum's
//!   bit 63 kept for either carry into it) and the high halves added with and without a
//!   carry in (10).
//! - Stage 11: PROD: the low halves' carry picked by their lower half's, then the high
//!   halves' sum by it, the product's top 64 bits kept and the rest ORed into bit 0 (a
//!   sticky bit, far below any rounding position; whether the low half is zero is found in
//!   stage 10 without its carries, in four 16-bit parts ORed here); SUM's
//!   or PROD's significand and count chosen; `4097 - E` split into "at least 64", "in
//!   -64..=63" and its low 8 bits.
//! - Stage 12: the exponent `R = E - lz`; for a subnormal result the further shift right,
//!   `4097 - E + lz` added in 8 bits.
//! - Stages 13 and 14: that shift ([`ReduceAluFpShr`] `shr[1]`, what drops out sticky); too
//!   large an exponent noted (infinity).
//! - Stage 15: the type's `p` bits from bit 63 down packed under the exponent field (0 for a
//!   subnormal), the round bit and the sticky bits reduced to "add one".
//! - Output (`o_*`): the add (a carry out of the significand lands in the exponent field: the
//!   next binade, the smallest normal, or infinity from the largest binade), the sign; or the
//!   decided result instead.
//!
//! # Timing
//! Closes 125 MHz on an ECP5 (LFE5U-85F, -6): the module alone, every port registered as
//! `netcoll synth --fpga` wraps a block (`synth --fpga ecp5 --blocks reduce_alu --module
//! reduce_alu_fp` with `[alu] fp = 1`), places and routes at 133.3 MHz (median of seeds 1, 2,
//! 3: 133.3, 133.3, 130.8; LUT4 4,118, CCU2C 347, FF 5,537, MULT18 16), its longest path
//! stage 12 (`E - lz`, the subnormal shift's count). Before it, the first stage of a PROD
//! normaliser (its OR trees: 125.4 MHz), hence the quarters' flags registered a stage early
//! (`s2_aq`, `s2_bq`), and then the unpack's type → exponent field → its test (125.1 MHz),
//! hence each type's tests in its own arm (`*_fnz`, `*_fq`). The six-stage datapath before
//! it made 46.7 MHz (47.0, 46.7, 43.6; LUT4 5,021, FF 1,879); its longest paths, found by
//! removing each in turn from a copy of the emitted Verilog, set the cuts above: the unpack
//! followed by PROD's normaliser fanning out to the multipliers (22.4 ns), the subnormal
//! shift followed by the rounding add (21.3 ns), the sum's normaliser (15.5 ns), the unpack
//! followed by SUM's compare (12.6 ns).
//! With stage 11 adding the product's high halves after the carry of the low ones (a 64-bit
//! chain and the selects behind it) it made 121.3 MHz (131.5, 119.7, 121.3), hence the
//! carry-select in stage 10.
//!
//! In the 4-lane ALU (`reduce_alu_l4_fp`, seed 1) the reset was the longest path (87.4 MHz):
//! one net to every register of four datapaths. So the registers here are [`DataReg`]s, without
//! reset (the ALU selects a result only for an operation offered after a reset, by flags that
//! do reset), but for the multipliers'. Then (104.3 MHz) stage 3's NaN test, an OR of the 52
//! fraction bits: it then read the quarter flags (107.1 MHz; one flag now, below). Then MIN /
//! MAX's "take a" fanning out to the value and index multiplexers: stage 4 now registers the
//! decision (105.0 MHz); then stage 11's carry select followed by the picked half's
//! normalisation: both halves are now normalised before the pick, and the low half's zero test
//! needs no carries (105.1 MHz, median of seeds 1 and 2). Then, mostly routing, the type and
//! `op` pipelines, which Yosys had merged into one register for all four datapaths: they are
//! [`KeptReg`]s now, one copy per datapath (109.1 MHz: 104.3, 114.0; the longest path `tf[0]`
//! through the unpack into the compare key `s2_akey`, 7.9 of its 9.6 ns routing). A third of
//! the block's flip-flops then were delay lines: MIN / MAX's value and index carried ten
//! stages here, and the integer lanes' results waiting ten in the ALU's tail. Both now wait in
//! 16-word LUT RAMs (`line` here and in the ALU, module `reduce_alu_delay_line`), which leaves
//! 22,137 flip-flops instead of 31,279 but no faster: 110.2 and 107.2 MHz on seeds 1 and 2
//! (median 108.7), the longest path now `s11_lz` into the subnormal shift's count. With the
//! count from an 8-bit add (`s11_nx*`) and stage 2's keys from stage-1 signs and type copies
//! (`s1_asign`, `tk`), seed 1 made 117.0 MHz, its longest path stage 10's 63-bit carry; that
//! carry from two 32-bit chains, seed 1 made 113.3 MHz (its path then mostly routing). With
//! no logic after those chains (`s10_c32` picks `s10_b*`, `s10_cy*` in stage 11), seeds 1 and
//! 2 made 124.6 and 109.7 MHz: seed 1's longest path the first stage of PROD's normaliser
//! (`q` → its shift's multiplexers), seed 2's an integer lane's operand mask in front of a
//! multiplier. With the stage-3 class decision (`s3_rnan` …), the second chain for `c63_1`
//! and the lanes' multipliers fed unmasked operands, the 4-lane ALU closes 125 MHz: seeds 1,
//! 2 and 3 route at 126.9, 124.8 and 125.4 MHz, median 125.4 (the README has the paths).
//! In the floating-point switch, whose control spreads further, stage 3's class decision was
//! the longest path once (116.5 MHz on seed 1: `s2_bq` → six LUTs → `s3_rneg`): it now reads
//! "the fraction is zero" and "SUM" / "PROD" from registers (`s2_afz`, `s2_bfz`, tested in
//! each arm of the unpack, and `s2_sum`, `s2_prod`). There an odd lane's operands are the high
//! halves of its even neighbour's, so Yosys merged the two datapaths' stage-1 registers for
//! those bits, and one datapath's unpack read the other's (`fpu_0.s1_a` → `fpu_1`'s logic →
//! `fpu_0.s2_afz`, two 1.8 ns routes: 111.9 MHz on seed 2): `s1_a`, `s1_ai`, `s1_b`, `s1_bi`
//! are [`KeptReg`]s, one copy per datapath.

pub mod norm;
pub mod shr;

pub use norm::ReduceAluFpNorm;
pub use shr::ReduceAluFpShr;

use netcoll_models::reduce_alu::fp::FpType;
use netcoll_models::reduce_alu::{AluOp, ALL_FP_TYPES, WORD_BITS};
use rust_hdl::prelude::*;

use super::delay_line::ReduceAluDelayLine;
use crate::dff_setup;
use crate::prim::{DataReg, KeptReg, Mul16};

/// Register stages from the operands to `r`, `ri`: the latency the models give a block with
/// the floating-point types built in.
pub const FP_STAGES: usize = 16;
const _: () = assert!(FP_STAGES == netcoll_models::reduce_alu::FP_LATENCY);

/// The sub-blocks emitted as modules of their own (field name, module name): what every
/// `emit_with_children` of a block containing this datapath declares.
///
/// The delay lines are declared as `line` here and in the ALU: one module however many use it.
pub const FP_CHILDREN: [(&str, &str); 3] = [
    ("norm", norm::MODULE),
    ("shr", shr::MODULE),
    ("line", super::delay_line::MODULE),
];

const W: usize = WORD_BITS;
/// Bits of an offset exponent (`R = B + 4096`, `E`, see the module docs).
const XW: usize = 13;
/// `4097 - E` in two's complement (the further shift of a subnormal result, before `lz`).
const NW: usize = 14;
/// A significand with its hidden bit, at fp64's width.
const SW: usize = 53;
/// The exponent field at fp64's width.
const EW: usize = 11;
/// A full product of two 64-bit significand words.
const PW: usize = 128;
const OPB: usize = AluOp::BITS;
/// Cycles from the register `c_val` (stage 5) to the output stage's: the delay lines'.
const LINE: u64 = 10;
const _: () = assert!(LINE >= 2 && LINE <= super::delay_line::MAX_DELAY as u64);

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// One constant per type, in the order of `fmt`.
fn per_type<const N: usize>(f: impl Fn(FpType) -> u64) -> [Constant<Bits<N>>; 4] {
    core::array::from_fn(|t| k::<N>(f(FpType::ALL[t])))
}

crate::sub_block! {
    /// The floating-point datapath of one lane.
    pub struct ReduceAluFp {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub a: Signal<In, Bits<W>>,
        pub ai: Signal<In, Bits<W>>,
        pub b: Signal<In, Bits<W>>,
        pub bi: Signal<In, Bits<W>>,
        pub fmt: Signal<In, Bits<2>>,
        pub op: Signal<In, Bits<OPB>>,
        pub r: Signal<Out, Bits<W>>,
        pub ri: Signal<Out, Bits<W>>,

        /// The type: `tf[k]` is stage `k + 1`'s.
        tf: [KeptReg<Bits<2>>; 15],
        // Stage 1: the inputs as offered.
        s1_a: KeptReg<Bits<W>>,
        s1_ai: KeptReg<Bits<W>>,
        s1_b: KeptReg<Bits<W>>,
        s1_bi: KeptReg<Bits<W>>,
        s1_op: KeptReg<Bits<OPB>>,
        /// The operands' sign bits for the offered type, and copies of the type for the
        /// elements and compare keys of stage 2 (`tk[0]`, `tk[1]`: `a`'s low and high 32
        /// bits; `tk[2]`, `tk[3]`: `b`'s), so that each key bit is one look-up table of four
        /// inputs (type, sign, the bit) fed by a type register with 64 loads, not 512.
        s1_asign: DataReg<bool>,
        s1_bsign: DataReg<bool>,
        tk: [KeptReg<Bits<2>>; 4],
        // Stage 2: the operands unpacked.
        s2_op: KeptReg<Bits<OPB>>,
        s2_asign: DataReg<bool>,
        s2_bsign: DataReg<bool>,
        s2_afield: DataReg<Bits<EW>>,
        s2_bfield: DataReg<Bits<EW>>,
        /// The exponent field is zero (zero or subnormal), all ones (infinity or NaN).
        s2_aez: DataReg<bool>,
        s2_bez: DataReg<bool>,
        s2_aones: DataReg<bool>,
        s2_bones: DataReg<bool>,
        /// The significand: the fraction at fp64's position, the hidden bit (52) set for a
        /// normal number.
        s2_asig: DataReg<Bits<SW>>,
        s2_bsig: DataReg<Bits<SW>>,
        /// Which of the top three 16-bit quarters of the fraction are not zero, at the PROD
        /// normaliser's input (`frac << 11`, the hidden bit left out: `s2_aez` gives it), for
        /// the normaliser's `q` a stage early.
        s2_aq: DataReg<Bits<3>>,
        s2_bq: DataReg<Bits<3>>,
        /// The type's fraction is zero, tested in each arm of the unpack's type `case`: stage
        /// 3's class decision reads one flag, not an OR of 52 bits or of the quarters' flags.
        s2_afz: DataReg<bool>,
        s2_bfz: DataReg<bool>,
        /// The operation is SUM / PROD, decoded a stage early for stage 3's class decision.
        s2_sum: KeptReg<bool>,
        s2_prod: KeptReg<bool>,
        /// The elements, and their compare keys (`fp_bits::key`: unsigned, in the order of
        /// the numbers).
        s2_aelem: DataReg<Bits<W>>,
        s2_belem: DataReg<Bits<W>>,
        s2_akey: DataReg<Bits<W>>,
        s2_bkey: DataReg<Bits<W>>,
        s2_ai: DataReg<Bits<W>>,
        s2_bi: DataReg<Bits<W>>,
        /// The normalisers: PROD's significands, `a`'s (`norm[0]`) and `b`'s (`norm[1]`),
        /// stages 3 to 5; SUM's result (`norm[2]`), stages 8 to 10.
        norm: [ReduceAluFpNorm; 3],
        // Stage 3: the classes and the compares.
        s3_op: KeptReg<Bits<OPB>>,
        s3_asign: DataReg<bool>,
        s3_bsign: DataReg<bool>,
        s3_anan: DataReg<bool>,
        s3_bnan: DataReg<bool>,
        /// SUM / PROD when the classes decide the result (fp_bits::add / mul's first cases):
        /// it is the canonical NaN (`s3_rnan`), else infinity (`s3_rinf`), else zero, with the
        /// sign bit `s3_rneg`; `s3_arith` when they do not. Decided here so that stage 4's
        /// value multiplexer, 64 bits wide, reads only registers and the type.
        s3_rnan: DataReg<bool>,
        s3_rinf: DataReg<bool>,
        s3_rneg: DataReg<bool>,
        s3_arith: DataReg<bool>,
        /// SUM: `|a| >= |b|`; the exponent fields, at least 1 (a subnormal's exponent is the
        /// smallest normal's), and their differences either way.
        s3_a_ge: DataReg<bool>,
        s3_asig: DataReg<Bits<SW>>,
        s3_bsig: DataReg<Bits<SW>>,
        s3_aeff: DataReg<Bits<EW>>,
        s3_beff: DataReg<Bits<EW>>,
        s3_dab: DataReg<Bits<EW>>,
        s3_dba: DataReg<Bits<EW>>,
        /// MIN / MAX: the keys' 16-bit quarters compared (`a` against `b`), combined in
        /// stage 4; the indices' likewise (`bi` against `ai`).
        s3_k0_gt: DataReg<bool>,
        s3_k0_lt: DataReg<bool>,
        s3_k1_gt: DataReg<bool>,
        s3_k1_lt: DataReg<bool>,
        s3_k2_gt: DataReg<bool>,
        s3_k2_lt: DataReg<bool>,
        s3_k3_gt: DataReg<bool>,
        s3_k3_lt: DataReg<bool>,
        s3_i0_gt: DataReg<bool>,
        s3_i0_lt: DataReg<bool>,
        s3_i1_gt: DataReg<bool>,
        s3_i1_lt: DataReg<bool>,
        s3_i2_gt: DataReg<bool>,
        s3_i2_lt: DataReg<bool>,
        s3_i3_gt: DataReg<bool>,
        s3_i3_lt: DataReg<bool>,
        s3_aelem: DataReg<Bits<W>>,
        s3_belem: DataReg<Bits<W>>,
        s3_ai: DataReg<Bits<W>>,
        s3_bi: DataReg<Bits<W>>,
        // Stage 4.
        /// SUM: the significands, the larger magnitude first (equal magnitudes in either
        /// order give the same sum); the shift that aligns the smaller (at most 63: anything
        /// beyond 55 is all sticky anyway); whether the signs differ; `E` of the sum word
        /// (larger significand's hidden bit at 55: a leading one at bit 63 is 8 binades above).
        s4_big: DataReg<Bits<SW>>,
        s4_small: DataReg<Bits<SW>>,
        s4_diff: DataReg<Bits<6>>,
        s4_sub: DataReg<bool>,
        s4_esum: DataReg<Bits<XW>>,
        /// PROD: `E` before the normalisers' counts: the product of the normalised
        /// significands is in `[1, 4)`, and its leading one at bit 127 counts as `lz = 0`.
        s4_kprod: DataReg<Bits<XW>>,
        /// MIN / MAX: the elements (`a` replaced by the canonical NaN if it is one: a NaN `a`
        /// is only ever returned when both are NaNs) and the indices.
        s4_ea: DataReg<Bits<W>>,
        s4_eb: DataReg<Bits<W>>,
        s4_ai: DataReg<Bits<W>>,
        s4_bi: DataReg<Bits<W>>,
        /// MIN … MINLOC, decided: the value is `s4_ea` (`s4_v_a`) or `s4_eb` (`s4_v_b`) instead
        /// of `s4_val`; the index is `s4_ai` (`s4_i_a`) or `s4_bi` (`s4_i_b`) instead of 0. At
        /// most one of each pair is set, so stage 5 is multiplexers only.
        s4_v_a: DataReg<bool>,
        s4_v_b: DataReg<bool>,
        s4_i_a: DataReg<bool>,
        s4_i_b: DataReg<bool>,
        /// The decided result (stage 4), which MIN / MAX replace in stage 5.
        s4_arith: DataReg<bool>,
        s4_val: DataReg<Bits<W>>,
        /// The result's sign (PROD's, or the SUM's larger operand's), from stage 4.
        c_sign: [DataReg<bool>; 12],
        /// The operation is PROD (stages 4 to 10), SUM (stages 4 to 7).
        c_prod: [KeptReg<bool>; 7],
        c_sum: [KeptReg<bool>; 4],
        // Stages 5 and 6.
        /// The right shifters: SUM's smaller significand aligned (`shr[0]`, stages 5 and 6);
        /// a subnormal result brought to its position (`shr[1]`, stages 13 and 14).
        shr: [ReduceAluFpShr; 2],
        s5_big: DataReg<Bits<SW>>,
        s6_big: DataReg<Bits<SW>>,
        s5_sub: DataReg<bool>,
        s6_sub: DataReg<bool>,
        s5_esum: DataReg<Bits<XW>>,
        s5_kprod: DataReg<Bits<XW>>,
        /// The result is the rounded datapath's (SUM or PROD of two finite numbers, not both
        /// zero, not an exact cancellation: cleared in stage 8); otherwise it is the value
        /// `c_val`, and `c_index` MAXLOC's and MINLOC's index, of stage 5.
        c_arith: [DataReg<bool>; 11],
        c_val: DataReg<Bits<W>>,
        c_index: DataReg<Bits<W>>,
        /// `c_val` and `c_index` carried from stage 5 to the output stage in LUT RAM rather
        /// than ten registers each (module `reduce_alu_delay_line`, `LINE` cycles).
        line: ReduceAluDelayLine,
        lag_words: Constant<Bits<4>> = k(LINE - 1),
        /// PROD's partial products: element `4 i + j` multiplies digit `i` of `a`'s
        /// normalised significand by digit `j` of `b`'s (operands registered with stage 6,
        /// product with stage 7).
        mul: [Mul16; 16],
        /// `E`, from stage 6.
        c_e: [DataReg<Bits<XW>>; 6],
        // Stage 7.
        /// SUM: the sum or difference, larger significand's hidden bit at 55.
        s7_sum: DataReg<Bits<W>>,
        // Stages 8 to 10.
        /// `4097 - E`, from stage 8.
        c_nx: [DataReg<Bits<NW>>; 3],
        /// PROD: the products out of the multipliers.
        s8_p: [DataReg<Bits<32>>; 16],
        /// PROD: the product as two carry-save rows.
        s9_pa: DataReg<Bits<PW>>,
        s9_pb: DataReg<Bits<PW>>,
        /// PROD: of the rows' low halves' sum:
        /// - whether bits 62 to 0 are not all zero, in four groups of 16 bits from bit 0
        ///   (tested without the carries, beside the add: only the sticky bit needs them;
        ///   ORed in stage 11, so that the test is two look-up tables deep);
        /// - the carry out of bits 31 to 0 (`s10_c32`);
        /// - bit 63 (`s10_b*`) and the carry out (`s10_cy*`), each for a carry into bit 32 set
        ///   (`*1`) and clear (`*0`): `s10_c32` picks them in stage 11, so that no logic
        ///   follows either carry chain here.
        ///
        /// The high halves added without and with a carry in (the carry picks one in stage
        /// 11: no carry chain there).
        s10_nz: [DataReg<bool>; 4],
        s10_c32: DataReg<bool>,
        s10_b0: DataReg<bool>,
        s10_b1: DataReg<bool>,
        s10_cy0: DataReg<bool>,
        s10_cy1: DataReg<bool>,
        s10_hi0: DataReg<Bits<W>>,
        s10_hi1: DataReg<Bits<W>>,
        // Stage 11: one significand for the rounding, leading one at bit 63 once shifted
        // left by `lz`.
        s11_sig: DataReg<Bits<W>>,
        s11_lz: DataReg<Bits<6>>,
        /// `4097 - E` in three parts, so that stage 12 adds `lz` in 8 bits, not 14: it is at
        /// least 64 (the result is subnormal, shifted out entirely); it is in -64..=63; its
        /// low 8 bits (then `nx + lz`, in -64..=126, fits them).
        s11_nxbig: DataReg<bool>,
        s11_nxfit: DataReg<bool>,
        s11_nx8: DataReg<Bits<8>>,
        // Stage 12.
        s12_sig: DataReg<Bits<W>>,
        s12_exp: DataReg<Bits<XW>>,
        s12_subn: DataReg<bool>,
        /// A subnormal result's further shift right (at most 64: beyond, everything is sticky
        /// and the result 0 for every type).
        s12_dsh: DataReg<Bits<7>>,
        // Stages 13 and 14.
        /// The exponent is too large (infinity); the exponent field (0 for a subnormal).
        s13_ovf: DataReg<bool>,
        s14_ovf: DataReg<bool>,
        s13_field: DataReg<Bits<EW>>,
        s14_field: DataReg<Bits<EW>>,
        // Stage 15.
        /// The exponent field over the fraction, before rounding; round up by one.
        s15_packed: DataReg<Bits<W>>,
        s15_incr: DataReg<bool>,
        s15_ovf: DataReg<bool>,
        // Outputs.
        o_r: DataReg<Bits<W>>,
        o_ri: DataReg<Bits<W>>,

        // Stage 2's logic: the type's constants, the operands' fields.
        /// Per copy `tk[j]`, the type's element mask and sign bit (zero for a type not built).
        km: [Signal<Local, Bits<W>>; 4],
        ks: [Signal<Local, Bits<W>>; 4],
        /// `a`'s and `b`'s element masks and sign bits, each half from its own copy.
        a_km: Signal<Local, Bits<W>>,
        a_ks: Signal<Local, Bits<W>>,
        b_km: Signal<Local, Bits<W>>,
        b_ks: Signal<Local, Bits<W>>,
        lo_half: Constant<Bits<W>> = k(0xFFFF_FFFF),
        a_sign: Signal<Local, bool>,
        b_sign: Signal<Local, bool>,
        a_field: Signal<Local, Bits<EW>>,
        b_field: Signal<Local, Bits<EW>>,
        /// The fraction at fp64's position (bit 51 down).
        a_frac: Signal<Local, Bits<52>>,
        b_frac: Signal<Local, Bits<52>>,
        a_ones: Signal<Local, bool>,
        b_ones: Signal<Local, bool>,
        /// The exponent field is not zero: like `*_ones`, tested on the type's bits in each
        /// arm of the type's `case`, so that the type only chooses among the tests' results
        /// (the longest path of the unpack stage was the type → the field → its OR).
        a_fnz: Signal<Local, bool>,
        b_fnz: Signal<Local, bool>,
        /// `s2_aq`, `s2_bq` likewise: the quarters' tests on the type's fraction bits.
        a_fq: Signal<Local, Bits<3>>,
        b_fq: Signal<Local, Bits<3>>,
        /// `s2_afz`, `s2_bfz` likewise.
        a_fzero: Signal<Local, bool>,
        b_fzero: Signal<Local, bool>,
        a_elem: Signal<Local, Bits<W>>,
        b_elem: Signal<Local, Bits<W>>,
        // Stage 3's logic.
        a_fz: Signal<Local, bool>,
        b_fz: Signal<Local, bool>,
        a_nan: Signal<Local, bool>,
        b_nan: Signal<Local, bool>,
        a_inf: Signal<Local, bool>,
        b_inf: Signal<Local, bool>,
        a_zero: Signal<Local, bool>,
        b_zero: Signal<Local, bool>,
        a_eff: Signal<Local, Bits<EW>>,
        b_eff: Signal<Local, Bits<EW>>,
        /// Magnitudes: exponent field over fraction orders like the absolute values.
        a_mag: Signal<Local, Bits<63>>,
        b_mag: Signal<Local, Bits<63>>,
        // Stage 4's logic.
        t4_cnan: Signal<Local, Bits<W>>,
        t4_inf: Signal<Local, Bits<W>>,
        t4_sign: Signal<Local, Bits<W>>,
        t4_bias: Signal<Local, Bits<XW>>,
        diff_raw: Signal<Local, Bits<EW>>,
        big_eff: Signal<Local, Bits<EW>>,
        /// Stage 4's MIN / MAX decision: the keys compared, the operation keeps the larger
        /// value, selects (MIN … MINLOC), returns an index; which operand's value is kept;
        /// `b`'s index is the lower.
        a_gt: Signal<Local, bool>,
        a_lt: Signal<Local, bool>,
        is_max: Signal<Local, bool>,
        is_sel: Signal<Local, bool>,
        is_loc: Signal<Local, bool>,
        a_better: Signal<Local, bool>,
        b_better: Signal<Local, bool>,
        take_a: Signal<Local, bool>,
        take_b: Signal<Local, bool>,
        bi_lt_ai: Signal<Local, bool>,
        /// Stage 5's: the normalised significands' 16-bit digits, least significant first.
        da: [Signal<Local, Bits<16>>; 4],
        db: [Signal<Local, Bits<16>>; 4],
        // Stage 7's logic.
        big_w: Signal<Local, Bits<W>>,
        small_w: Signal<Local, Bits<W>>,
        /// Stage 9's: the partial products in seven rows at their weights, then the
        /// carry-save levels.
        row: [Signal<Local, Bits<PW>>; 7],
        l1_s0: Signal<Local, Bits<PW>>,
        l1_c0: Signal<Local, Bits<PW>>,
        l1_s1: Signal<Local, Bits<PW>>,
        l1_c1: Signal<Local, Bits<PW>>,
        l2_s: Signal<Local, Bits<PW>>,
        l2_c: Signal<Local, Bits<PW>>,
        l3_s: Signal<Local, Bits<PW>>,
        l3_c: Signal<Local, Bits<PW>>,
        // Stage 10's and 11's.
        /// Stage 10's: the rows' bits 62 to 0, bit 63 of each.
        lo_x: Signal<Local, Bits<63>>,
        lo_y: Signal<Local, Bits<63>>,
        /// Per bit of the low halves' sum: set when the carry in that makes the bit 0
        /// (`x ^ y`) is not the carry out of the bits below when they sum to 0 (`x | y` of
        /// the bit below): the sum's bits 62 to 0 are all zero if and only if none is set.
        lo_z: Signal<Local, Bits<63>>,
        /// The carry into bit 63 when the carry into bit 32 is set (`c63_1`) and clear
        /// (`c63_0`): carry chains of 31 bits beside the low 32 bits' one, not one of 63 (an
        /// all-ones test with `c63_0` instead of the second chain was three look-up tables deep).
        c63_0: Signal<Local, bool>,
        c63_1: Signal<Local, bool>,
        x63: Signal<Local, bool>,
        y63: Signal<Local, bool>,
        /// Stage 11's: each high half with its leading one at bit 63 (shifted left one when
        /// it is not), and the one the carry picks; its leading bit; the sticky bit (the low
        /// half: its bit 63 is the shifted half's bit 0 or below it, both sticky).
        p_sig0: Signal<Local, Bits<W>>,
        p_sig1: Signal<Local, Bits<W>>,
        p_sig: Signal<Local, Bits<W>>,
        p_top: Signal<Local, bool>,
        p_sticky: Signal<Local, bool>,
        /// The low halves' sum's bit 63 and carry out, picked by the carry out of bits 31 to 0.
        p_lo63: Signal<Local, bool>,
        p_carry: Signal<Local, bool>,
        // Stage 12's.
        dn8: Signal<Local, Bits<8>>,
        subn: Signal<Local, bool>,
        // Stage 13's.
        t13_rinf: Signal<Local, Bits<XW>>,
        /// Stage 1's: the offered `fmt` is a type built in.
        fmt_built: Signal<Local, bool>,
        // Stage 15's.
        field_w: Signal<Local, Bits<W>>,
        lsb: Signal<Local, bool>,
        rb: Signal<Local, bool>,
        st: Signal<Local, bool>,
        // The output stage's.
        t16_inf: Signal<Local, Bits<W>>,
        t16_sign: Signal<Local, Bits<W>>,
        rounded: Signal<Local, Bits<W>>,

        mask: [Constant<Bits<W>>; 4] = per_type(|t| t.mask()),
        sign: [Constant<Bits<W>>; 4] = per_type(|t| t.sign_bit()),
        inf: [Constant<Bits<W>>; 4] = per_type(|t| t.inf()),
        cnan: [Constant<Bits<W>>; 4] = per_type(|t| t.canonical_nan()),
        bias: [Constant<Bits<XW>>; 4] = per_type(|t| t.bias() as u64),
        /// `R` from which the result is infinite: 4096 + the all-ones exponent field.
        r_inf: [Constant<Bits<XW>>; 4] = per_type(|t| 4096 + (t.inf() >> t.fraction_bits())),
        /// The fraction's bits, at bit 0.
        fmask: [Constant<Bits<W>>; 4] = per_type(|t| (1 << t.fraction_bits()) - 1),
        hidden: Constant<Bits<SW>> = k(1 << 52),
        zero: Constant<Bits<W>> = k(0),
        /// The types built in, bit `t` for `FpType::ALL[t]` (all four unless
        /// [`ReduceAluFp::set_types`] says otherwise). A type left out is unpacked as zeros,
        /// so that synthesis removes what only it needs (the low significand bits, the
        /// multipliers of the low digits), and its operation made a reserved one (result 0).
        types: Constant<Bits<4>> = k(ALL_FP_TYPES as u64),
        /// Multiplier `4 i + j` (digit `i` of one significand times digit `j` of the other)
        /// is needed by a type built in: its product is taken, else zero, so that synthesis
        /// removes the multiplier (a DSP block, which it cannot see is fed zeros).
        mul_used: [Constant<bool>; 16] = core::array::from_fn(|n| Constant::new(mul_used(ALL_FP_TYPES, n))),
        op_reserved: Constant<Bits<OPB>> = k((1 << OPB) - 1),
        op_max: Constant<Bits<OPB>> = k(AluOp::Max.code()),
        op_maxloc: Constant<Bits<OPB>> = k(AluOp::MaxLoc.code()),
        op_minloc: Constant<Bits<OPB>> = k(AluOp::MinLoc.code()),
        op_sum: Constant<Bits<OPB>> = k(AluOp::Sum.code()),
        op_prod: Constant<Bits<OPB>> = k(AluOp::Prod.code()),
    }
}

impl ReduceAluFp {
    /// Builds in only the types of `fp_mask` (bit `t` for `FpType::ALL[t]`); before
    /// `connect_all`.
    pub fn set_types(&mut self, fp_mask: usize) {
        self.types = k((fp_mask & ALL_FP_TYPES) as u64);
        for (n, u) in self.mul_used.iter_mut().enumerate() {
            *u = Constant::new(mul_used(fp_mask, n));
        }
    }
}

/// Whether multiplier `n` (digits `n / 4` and `n % 4`, digit 3 the top one, bits 63 to 48 of
/// a normalised significand) is needed by the types `fp_mask`: a normalised significand of
/// `p` bits has its leading one at bit 63 and nothing below bit `64 - p`, so f16 (11) and
/// bf16 (8) use digit 3 only (one multiplier), f32 (24) digits 2 and 3 (four), f64 (53) all
/// four (sixteen).
fn mul_used(fp_mask: usize, n: usize) -> bool {
    let lowest = FpType::ALL
        .iter()
        .filter(|t| fp_mask >> t.index() & 1 == 1)
        .map(|t| (64 - t.fraction_bits() as usize - 1) / 16)
        .min()
        .unwrap_or(4);
    n / 4 >= lowest && n % 4 >= lowest
}

/// The datapath's module name for the types `fp_mask`: `reduce_alu_fp` with all four, else
/// the types' names appended, e.g. `reduce_alu_fp_f16_bf16_f32` (the modules differ).
pub fn module_name(fp_mask: usize) -> String {
    format!(
        "reduce_alu_fp{}",
        netcoll_models::reduce_alu::fp_types_suffix(fp_mask)
    )
}

impl Logic for ReduceAluFp {
    #[hdl_gen]
    fn update(&mut self) {
        // Every stage loads every cycle: no valid bit, no enables.
        dff_setup!(
            self, clock, s1_a, s1_ai, s1_b, s1_bi, s1_op, s1_asign, s1_bsign, s2_op, s2_asign,
            s2_bsign, s2_afield, s2_bfield, s2_aez, s2_bez, s2_aones, s2_bones, s2_asig, s2_bsig,
            s2_aq, s2_bq, s2_afz, s2_bfz, s2_sum, s2_prod, s2_aelem, s2_belem, s2_akey, s2_bkey,
            s2_ai, s2_bi, s3_op, s3_asign, s3_bsign, s3_anan, s3_bnan, s3_rnan, s3_rinf, s3_rneg,
            s3_arith, s3_a_ge, s3_asig, s3_bsig, s3_aeff, s3_beff, s3_dab, s3_dba, s3_k0_gt,
            s3_k0_lt, s3_k1_gt, s3_k1_lt, s3_k2_gt, s3_k2_lt, s3_k3_gt, s3_k3_lt, s3_i0_gt,
            s3_i0_lt, s3_i1_gt, s3_i1_lt, s3_i2_gt, s3_i2_lt, s3_i3_gt, s3_i3_lt, s3_aelem,
            s3_belem, s3_ai, s3_bi, s4_big, s4_small, s4_diff, s4_sub, s4_esum, s4_kprod, s4_ea,
            s4_eb, s4_ai, s4_bi, s4_v_a, s4_v_b, s4_i_a, s4_i_b, s4_arith, s4_val, s5_big, s6_big,
            s5_sub, s6_sub, s5_esum, s5_kprod, s7_sum, s9_pa, s9_pb, s10_c32, s10_b0, s10_b1,
            s10_cy0, s10_cy1, s10_hi0, s10_hi1, s11_sig, s11_lz, s11_nxbig, s11_nxfit, s11_nx8,
            s12_sig, s12_exp, s12_subn, s12_dsh, s13_ovf, s14_ovf, s13_field, s14_field,
            s15_packed, s15_incr, s15_ovf, o_r, o_ri, c_val, c_index
        );
        for n in 0..15 {
            self.tf[n].clock.next = self.clock.val();
        }
        for n in 1..15 {
            self.tf[n].d.next = self.tf[n - 1].q.val();
        }
        for n in 0..12 {
            self.c_sign[n].clock.next = self.clock.val();
        }
        for n in 1..12 {
            self.c_sign[n].d.next = self.c_sign[n - 1].q.val();
        }
        for n in 0..7 {
            self.c_prod[n].clock.next = self.clock.val();
        }
        for n in 1..7 {
            self.c_prod[n].d.next = self.c_prod[n - 1].q.val();
        }
        for n in 0..4 {
            self.c_sum[n].clock.next = self.clock.val();
        }
        for n in 1..4 {
            self.c_sum[n].d.next = self.c_sum[n - 1].q.val();
        }
        for n in 0..3 {
            self.c_nx[n].clock.next = self.clock.val();
        }
        for n in 0..4 {
            self.s10_nz[n].clock.next = self.clock.val();
        }
        for n in 1..3 {
            self.c_nx[n].d.next = self.c_nx[n - 1].q.val();
        }
        for n in 0..11 {
            self.c_arith[n].clock.next = self.clock.val();
        }
        for n in 1..11 {
            self.c_arith[n].d.next = self.c_arith[n - 1].q.val();
        }
        self.line.clock.next = self.clock.val();
        self.line.lag.next = self.lag_words.val();
        self.line.d.next = self.c_val.q.val();
        self.line.di.next = self.c_index.q.val();
        for n in 0..6 {
            self.c_e[n].clock.next = self.clock.val();
        }
        for n in 1..6 {
            self.c_e[n].d.next = self.c_e[n - 1].q.val();
        }
        for n in 0..16 {
            self.s8_p[n].clock.next = self.clock.val();
            self.mul[n].clock.next = self.clock.val();
            self.mul[n].reset.next = self.reset.val();
        }
        for n in 0..3 {
            self.norm[n].clock.next = self.clock.val();
        }
        for n in 0..2 {
            self.shr[n].clock.next = self.clock.val();
        }

        // ---- Stage 1: the inputs as offered.
        self.s1_a.d.next = self.a.val();
        self.s1_ai.d.next = self.ai.val();
        self.s1_b.d.next = self.b.val();
        self.s1_bi.d.next = self.bi.val();
        self.tf[0].d.next = self.fmt.val();
        self.s1_op.d.next = self.op.val();
        for j in 0..4 {
            self.tk[j].clock.next = self.clock.val();
            self.tk[j].d.next = self.fmt.val();
        }
        // fp16 and bf16: bit 15; fp32: bit 31; fp64: bit 63.
        self.s1_asign.d.next = self.a.val().get_bit(15);
        self.s1_bsign.d.next = self.b.val().get_bit(15);
        if self.fmt.val().get_bit(1) {
            self.s1_asign.d.next = self.a.val().get_bit(31);
            self.s1_bsign.d.next = self.b.val().get_bit(31);
            if self.fmt.val().get_bit(0) {
                self.s1_asign.d.next = self.a.val().get_bit(63);
                self.s1_bsign.d.next = self.b.val().get_bit(63);
            }
        }
        match self.fmt.val().index() {
            0 => {
                self.fmt_built.next = self.types.val().get_bit(0);
            }
            1 => {
                self.fmt_built.next = self.types.val().get_bit(1);
            }
            2 => {
                self.fmt_built.next = self.types.val().get_bit(2);
            }
            _ => {
                self.fmt_built.next = self.types.val().get_bit(3);
            }
        }
        if !self.fmt_built.val() {
            self.s1_op.d.next = self.op_reserved.val();
        }

        // ---- Stage 2: unpack. The fraction goes to fp64's position, so that one datapath
        // and one exponent difference serve every type.
        // A type not built in unpacks as zeros (see `types`).
        self.a_sign.next = false;
        self.a_field.next = 0.into();
        self.a_frac.next = 0.into();
        self.a_ones.next = false;
        self.a_fnz.next = false;
        self.a_fq.next = 0.into();
        self.a_fzero.next = true;
        self.b_sign.next = false;
        self.b_field.next = 0.into();
        self.b_frac.next = 0.into();
        self.b_ones.next = false;
        self.b_fnz.next = false;
        self.b_fq.next = 0.into();
        self.b_fzero.next = true;
        match self.tf[0].q.val().index() {
            0 => {
                if self.types.val().get_bit(0) {
                    self.a_sign.next = self.s1_a.q.val().get_bit(15);
                    self.a_field.next = bit_cast::<EW, 5>(self.s1_a.q.val().get_bits::<5>(10));
                    self.a_frac.next =
                        bit_cast::<52, 10>(self.s1_a.q.val().get_bits::<10>(0)) << 42;
                    self.a_ones.next = self.s1_a.q.val().get_bits::<5>(10).all();
                    self.a_fnz.next = self.s1_a.q.val().get_bits::<5>(10).any();
                    self.a_fq.next =
                        bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<10>(0).any().into()) << 2;
                    self.a_fzero.next = !self.s1_a.q.val().get_bits::<10>(0).any();
                    self.b_sign.next = self.s1_b.q.val().get_bit(15);
                    self.b_field.next = bit_cast::<EW, 5>(self.s1_b.q.val().get_bits::<5>(10));
                    self.b_frac.next =
                        bit_cast::<52, 10>(self.s1_b.q.val().get_bits::<10>(0)) << 42;
                    self.b_ones.next = self.s1_b.q.val().get_bits::<5>(10).all();
                    self.b_fnz.next = self.s1_b.q.val().get_bits::<5>(10).any();
                    self.b_fq.next =
                        bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<10>(0).any().into()) << 2;
                    self.b_fzero.next = !self.s1_b.q.val().get_bits::<10>(0).any();
                }
            }
            1 => {
                if self.types.val().get_bit(1) {
                    self.a_sign.next = self.s1_a.q.val().get_bit(15);
                    self.a_field.next = bit_cast::<EW, 8>(self.s1_a.q.val().get_bits::<8>(7));
                    self.a_frac.next = bit_cast::<52, 7>(self.s1_a.q.val().get_bits::<7>(0)) << 45;
                    self.a_ones.next = self.s1_a.q.val().get_bits::<8>(7).all();
                    self.a_fnz.next = self.s1_a.q.val().get_bits::<8>(7).any();
                    self.a_fq.next =
                        bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<7>(0).any().into()) << 2;
                    self.a_fzero.next = !self.s1_a.q.val().get_bits::<7>(0).any();
                    self.b_sign.next = self.s1_b.q.val().get_bit(15);
                    self.b_field.next = bit_cast::<EW, 8>(self.s1_b.q.val().get_bits::<8>(7));
                    self.b_frac.next = bit_cast::<52, 7>(self.s1_b.q.val().get_bits::<7>(0)) << 45;
                    self.b_ones.next = self.s1_b.q.val().get_bits::<8>(7).all();
                    self.b_fnz.next = self.s1_b.q.val().get_bits::<8>(7).any();
                    self.b_fq.next =
                        bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<7>(0).any().into()) << 2;
                    self.b_fzero.next = !self.s1_b.q.val().get_bits::<7>(0).any();
                }
            }
            2 => {
                if self.types.val().get_bit(2) {
                    self.a_sign.next = self.s1_a.q.val().get_bit(31);
                    self.a_field.next = bit_cast::<EW, 8>(self.s1_a.q.val().get_bits::<8>(23));
                    self.a_frac.next =
                        bit_cast::<52, 23>(self.s1_a.q.val().get_bits::<23>(0)) << 29;
                    self.a_ones.next = self.s1_a.q.val().get_bits::<8>(23).all();
                    self.a_fnz.next = self.s1_a.q.val().get_bits::<8>(23).any();
                    self.a_fq.next =
                        (bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<15>(8).any().into()) << 2)
                            | (bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<8>(0).any().into())
                                << 1);
                    self.a_fzero.next = !self.s1_a.q.val().get_bits::<23>(0).any();
                    self.b_sign.next = self.s1_b.q.val().get_bit(31);
                    self.b_field.next = bit_cast::<EW, 8>(self.s1_b.q.val().get_bits::<8>(23));
                    self.b_frac.next =
                        bit_cast::<52, 23>(self.s1_b.q.val().get_bits::<23>(0)) << 29;
                    self.b_ones.next = self.s1_b.q.val().get_bits::<8>(23).all();
                    self.b_fnz.next = self.s1_b.q.val().get_bits::<8>(23).any();
                    self.b_fq.next =
                        (bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<15>(8).any().into()) << 2)
                            | (bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<8>(0).any().into())
                                << 1);
                    self.b_fzero.next = !self.s1_b.q.val().get_bits::<23>(0).any();
                }
            }
            _ => {
                if self.types.val().get_bit(3) {
                    self.a_sign.next = self.s1_a.q.val().get_bit(63);
                    self.a_field.next = self.s1_a.q.val().get_bits::<EW>(52);
                    self.a_frac.next = self.s1_a.q.val().get_bits::<52>(0);
                    self.a_ones.next = self.s1_a.q.val().get_bits::<EW>(52).all();
                    self.a_fnz.next = self.s1_a.q.val().get_bits::<EW>(52).any();
                    self.a_fq.next =
                        (bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<15>(37).any().into()) << 2)
                            | (bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<16>(21).any().into())
                                << 1)
                            | bit_cast::<3, 1>(self.s1_a.q.val().get_bits::<16>(5).any().into());
                    self.a_fzero.next = !self.s1_a.q.val().get_bits::<52>(0).any();
                    self.b_sign.next = self.s1_b.q.val().get_bit(63);
                    self.b_field.next = self.s1_b.q.val().get_bits::<EW>(52);
                    self.b_frac.next = self.s1_b.q.val().get_bits::<52>(0);
                    self.b_ones.next = self.s1_b.q.val().get_bits::<EW>(52).all();
                    self.b_fnz.next = self.s1_b.q.val().get_bits::<EW>(52).any();
                    self.b_fq.next =
                        (bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<15>(37).any().into()) << 2)
                            | (bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<16>(21).any().into())
                                << 1)
                            | bit_cast::<3, 1>(self.s1_b.q.val().get_bits::<16>(5).any().into());
                    self.b_fzero.next = !self.s1_b.q.val().get_bits::<52>(0).any();
                }
            }
        }
        self.s2_asign.d.next = self.a_sign.val();
        self.s2_bsign.d.next = self.b_sign.val();
        self.s2_afield.d.next = self.a_field.val();
        self.s2_bfield.d.next = self.b_field.val();
        self.s2_aez.d.next = !self.a_fnz.val();
        self.s2_bez.d.next = !self.b_fnz.val();
        self.s2_aones.d.next = self.a_ones.val();
        self.s2_bones.d.next = self.b_ones.val();
        self.s2_asig.d.next = bit_cast::<SW, 52>(self.a_frac.val());
        if self.a_fnz.val() {
            self.s2_asig.d.next = bit_cast::<SW, 52>(self.a_frac.val()) | self.hidden.val();
        }
        self.s2_bsig.d.next = bit_cast::<SW, 52>(self.b_frac.val());
        if self.b_fnz.val() {
            self.s2_bsig.d.next = bit_cast::<SW, 52>(self.b_frac.val()) | self.hidden.val();
        }
        self.s2_aq.d.next = self.a_fq.val();
        self.s2_bq.d.next = self.b_fq.val();
        self.s2_afz.d.next = self.a_fzero.val();
        self.s2_bfz.d.next = self.b_fzero.val();
        // MIN / MAX: keys as fp_bits::key (a positive number with its sign bit set, a
        // negative one inverted).
        for j in 0..4 {
            self.km[j].next = self.zero.val();
            self.ks[j].next = self.zero.val();
            match self.tk[j].q.val().index() {
                0 => {
                    if self.types.val().get_bit(0) {
                        self.km[j].next = self.mask[0].val();
                        self.ks[j].next = self.sign[0].val();
                    }
                }
                1 => {
                    if self.types.val().get_bit(1) {
                        self.km[j].next = self.mask[1].val();
                        self.ks[j].next = self.sign[1].val();
                    }
                }
                2 => {
                    if self.types.val().get_bit(2) {
                        self.km[j].next = self.mask[2].val();
                        self.ks[j].next = self.sign[2].val();
                    }
                }
                _ => {
                    if self.types.val().get_bit(3) {
                        self.km[j].next = self.mask[3].val();
                        self.ks[j].next = self.sign[3].val();
                    }
                }
            }
        }
        self.a_km.next =
            (self.km[0].val() & self.lo_half.val()) | (self.km[1].val() & !self.lo_half.val());
        self.a_ks.next =
            (self.ks[0].val() & self.lo_half.val()) | (self.ks[1].val() & !self.lo_half.val());
        self.b_km.next =
            (self.km[2].val() & self.lo_half.val()) | (self.km[3].val() & !self.lo_half.val());
        self.b_ks.next =
            (self.ks[2].val() & self.lo_half.val()) | (self.ks[3].val() & !self.lo_half.val());
        self.a_elem.next = self.s1_a.q.val() & self.a_km.val();
        self.b_elem.next = self.s1_b.q.val() & self.b_km.val();
        self.s2_aelem.d.next = self.a_elem.val();
        self.s2_belem.d.next = self.b_elem.val();
        self.s2_akey.d.next = self.a_elem.val() | self.a_ks.val();
        if self.s1_asign.q.val() {
            self.s2_akey.d.next = !self.a_elem.val() & self.a_km.val();
        }
        self.s2_bkey.d.next = self.b_elem.val() | self.b_ks.val();
        if self.s1_bsign.q.val() {
            self.s2_bkey.d.next = !self.b_elem.val() & self.b_km.val();
        }
        self.s2_ai.d.next = self.s1_ai.q.val();
        self.s2_bi.d.next = self.s1_bi.q.val();
        self.s2_op.d.next = self.s1_op.q.val();
        self.s2_sum.d.next = self.s1_op.q.val() == self.op_sum.val();
        self.s2_prod.d.next = self.s1_op.q.val() == self.op_prod.val();

        // ---- Stage 3: the classes; SUM's compare; the quarters; PROD's normalisers start
        // (a normal number's hidden bit is at bit 63 already, a subnormal's leading one is
        // brought there, so that the product's leading one is at bit 127 or 126).
        self.a_fz.next = self.s2_afz.q.val();
        self.b_fz.next = self.s2_bfz.q.val();
        self.a_nan.next = self.s2_aones.q.val() & !self.a_fz.val();
        self.b_nan.next = self.s2_bones.q.val() & !self.b_fz.val();
        self.s3_anan.d.next = self.a_nan.val();
        self.s3_bnan.d.next = self.b_nan.val();
        self.a_inf.next = self.s2_aones.q.val() & self.a_fz.val();
        self.b_inf.next = self.s2_bones.q.val() & self.b_fz.val();
        self.a_zero.next = self.s2_aez.q.val() & self.a_fz.val();
        self.b_zero.next = self.s2_bez.q.val() & self.b_fz.val();
        // The result when the classes decide it, or 0 for a reserved operation (MIN / MAX
        // replace it in stage 5).
        self.s3_rnan.d.next = false;
        self.s3_rinf.d.next = false;
        self.s3_rneg.d.next = false;
        self.s3_arith.d.next = false;
        if self.s2_sum.q.val() {
            if self.a_nan.val()
                | self.b_nan.val()
                | (self.a_inf.val()
                    & self.b_inf.val()
                    & (self.s2_asign.q.val() ^ self.s2_bsign.q.val()))
            {
                self.s3_rnan.d.next = true;
            } else if self.a_inf.val() {
                self.s3_rinf.d.next = true;
                self.s3_rneg.d.next = self.s2_asign.q.val();
            } else if self.b_inf.val() {
                self.s3_rinf.d.next = true;
                self.s3_rneg.d.next = self.s2_bsign.q.val();
            } else if self.a_zero.val() & self.b_zero.val() {
                // -0 only if both are -0.
                self.s3_rneg.d.next = self.s2_asign.q.val() & self.s2_bsign.q.val();
            } else {
                self.s3_arith.d.next = true;
            }
        } else if self.s2_prod.q.val() {
            if self.a_nan.val()
                | self.b_nan.val()
                | (self.a_inf.val() & self.b_zero.val())
                | (self.a_zero.val() & self.b_inf.val())
            {
                self.s3_rnan.d.next = true;
            } else if self.a_inf.val() | self.b_inf.val() {
                self.s3_rinf.d.next = true;
                self.s3_rneg.d.next = self.s2_asign.q.val() ^ self.s2_bsign.q.val();
            } else if self.a_zero.val() | self.b_zero.val() {
                self.s3_rneg.d.next = self.s2_asign.q.val() ^ self.s2_bsign.q.val();
            } else {
                self.s3_arith.d.next = true;
            }
        }
        self.a_eff.next = self.s2_afield.q.val();
        if self.s2_aez.q.val() {
            self.a_eff.next = 1.into();
        }
        self.b_eff.next = self.s2_bfield.q.val();
        if self.s2_bez.q.val() {
            self.b_eff.next = 1.into();
        }
        self.s3_aeff.d.next = self.a_eff.val();
        self.s3_beff.d.next = self.b_eff.val();
        self.s3_dab.d.next = self.a_eff.val() - self.b_eff.val();
        self.s3_dba.d.next = self.b_eff.val() - self.a_eff.val();
        self.a_mag.next = (bit_cast::<63, EW>(self.s2_afield.q.val()) << 52)
            | bit_cast::<63, 52>(self.s2_asig.q.val().get_bits::<52>(0));
        self.b_mag.next = (bit_cast::<63, EW>(self.s2_bfield.q.val()) << 52)
            | bit_cast::<63, 52>(self.s2_bsig.q.val().get_bits::<52>(0));
        self.s3_a_ge.d.next = self.a_mag.val() >= self.b_mag.val();
        self.s3_asig.d.next = self.s2_asig.q.val();
        self.s3_bsig.d.next = self.s2_bsig.q.val();
        self.s3_asign.d.next = self.s2_asign.q.val();
        self.s3_bsign.d.next = self.s2_bsign.q.val();
        self.norm[0].w.next = bit_cast::<W, SW>(self.s2_asig.q.val()) << 11;
        self.norm[1].w.next = bit_cast::<W, SW>(self.s2_bsig.q.val()) << 11;
        // The top quarter also holds the hidden bit.
        self.norm[0].q.next =
            self.s2_aq.q.val() | (bit_cast::<3, 1>((!self.s2_aez.q.val()).into()) << 2);
        self.norm[1].q.next =
            self.s2_bq.q.val() | (bit_cast::<3, 1>((!self.s2_bez.q.val()).into()) << 2);
        self.s3_k0_gt.d.next =
            self.s2_akey.q.val().get_bits::<16>(0) > self.s2_bkey.q.val().get_bits::<16>(0);
        self.s3_k0_lt.d.next =
            self.s2_akey.q.val().get_bits::<16>(0) < self.s2_bkey.q.val().get_bits::<16>(0);
        self.s3_k1_gt.d.next =
            self.s2_akey.q.val().get_bits::<16>(16) > self.s2_bkey.q.val().get_bits::<16>(16);
        self.s3_k1_lt.d.next =
            self.s2_akey.q.val().get_bits::<16>(16) < self.s2_bkey.q.val().get_bits::<16>(16);
        self.s3_k2_gt.d.next =
            self.s2_akey.q.val().get_bits::<16>(32) > self.s2_bkey.q.val().get_bits::<16>(32);
        self.s3_k2_lt.d.next =
            self.s2_akey.q.val().get_bits::<16>(32) < self.s2_bkey.q.val().get_bits::<16>(32);
        self.s3_k3_gt.d.next =
            self.s2_akey.q.val().get_bits::<16>(48) > self.s2_bkey.q.val().get_bits::<16>(48);
        self.s3_k3_lt.d.next =
            self.s2_akey.q.val().get_bits::<16>(48) < self.s2_bkey.q.val().get_bits::<16>(48);
        self.s3_i0_gt.d.next =
            self.s2_bi.q.val().get_bits::<16>(0) > self.s2_ai.q.val().get_bits::<16>(0);
        self.s3_i0_lt.d.next =
            self.s2_bi.q.val().get_bits::<16>(0) < self.s2_ai.q.val().get_bits::<16>(0);
        self.s3_i1_gt.d.next =
            self.s2_bi.q.val().get_bits::<16>(16) > self.s2_ai.q.val().get_bits::<16>(16);
        self.s3_i1_lt.d.next =
            self.s2_bi.q.val().get_bits::<16>(16) < self.s2_ai.q.val().get_bits::<16>(16);
        self.s3_i2_gt.d.next =
            self.s2_bi.q.val().get_bits::<16>(32) > self.s2_ai.q.val().get_bits::<16>(32);
        self.s3_i2_lt.d.next =
            self.s2_bi.q.val().get_bits::<16>(32) < self.s2_ai.q.val().get_bits::<16>(32);
        self.s3_i3_gt.d.next =
            self.s2_bi.q.val().get_bits::<16>(48) > self.s2_ai.q.val().get_bits::<16>(48);
        self.s3_i3_lt.d.next =
            self.s2_bi.q.val().get_bits::<16>(48) < self.s2_ai.q.val().get_bits::<16>(48);
        self.s3_aelem.d.next = self.s2_aelem.q.val();
        self.s3_belem.d.next = self.s2_belem.q.val();
        self.s3_ai.d.next = self.s2_ai.q.val();
        self.s3_bi.d.next = self.s2_bi.q.val();
        self.s3_op.d.next = self.s2_op.q.val();

        // ---- Stage 4. SUM: the larger magnitude first, the other's shift.
        match self.tf[2].q.val().index() {
            0 => {
                self.t4_cnan.next = self.cnan[0].val();
                self.t4_inf.next = self.inf[0].val();
                self.t4_sign.next = self.sign[0].val();
                self.t4_bias.next = self.bias[0].val();
            }
            1 => {
                self.t4_cnan.next = self.cnan[1].val();
                self.t4_inf.next = self.inf[1].val();
                self.t4_sign.next = self.sign[1].val();
                self.t4_bias.next = self.bias[1].val();
            }
            2 => {
                self.t4_cnan.next = self.cnan[2].val();
                self.t4_inf.next = self.inf[2].val();
                self.t4_sign.next = self.sign[2].val();
                self.t4_bias.next = self.bias[2].val();
            }
            _ => {
                self.t4_cnan.next = self.cnan[3].val();
                self.t4_inf.next = self.inf[3].val();
                self.t4_sign.next = self.sign[3].val();
                self.t4_bias.next = self.bias[3].val();
            }
        }
        self.s4_big.d.next = self.s3_bsig.q.val();
        self.s4_small.d.next = self.s3_asig.q.val();
        self.big_eff.next = self.s3_beff.q.val();
        self.diff_raw.next = self.s3_dba.q.val();
        self.c_sign[0].d.next = self.s3_bsign.q.val();
        if self.s3_a_ge.q.val() {
            self.s4_big.d.next = self.s3_asig.q.val();
            self.s4_small.d.next = self.s3_bsig.q.val();
            self.big_eff.next = self.s3_aeff.q.val();
            self.diff_raw.next = self.s3_dab.q.val();
            self.c_sign[0].d.next = self.s3_asign.q.val();
        }
        if self.s3_op.q.val() == self.op_prod.val() {
            self.c_sign[0].d.next = self.s3_asign.q.val() ^ self.s3_bsign.q.val();
        }
        self.s4_diff.d.next = bit_cast::<6, EW>(self.diff_raw.val());
        if self.diff_raw.val() > 63 {
            self.s4_diff.d.next = 63.into();
        }
        self.s4_sub.d.next = self.s3_asign.q.val() ^ self.s3_bsign.q.val();
        self.s4_esum.d.next = bit_cast::<XW, EW>(self.big_eff.val()) + 4104;
        // `X = 2048 + field - zeros` is an operand's biased exponent of its leading one,
        // offset by 2048 (a subnormal fp64 goes down to 2048 - 51); the product of two in
        // `[1, 2)` is `R = Xa + Xb - bias` below 2, one more from 2 (`lz = 0`).
        self.s4_kprod.d.next = bit_cast::<XW, EW>(self.s3_aeff.q.val())
            + bit_cast::<XW, EW>(self.s3_beff.q.val())
            + 4097
            - self.t4_bias.val();
        // The result the classes decided (stage 3), in the type's encoding.
        self.s4_arith.d.next = self.s3_arith.q.val();
        self.s4_val.d.next = self.zero.val();
        if self.s3_rnan.q.val() {
            self.s4_val.d.next = self.t4_cnan.val();
        } else if self.s3_rinf.q.val() {
            self.s4_val.d.next = self.t4_inf.val();
            if self.s3_rneg.q.val() {
                self.s4_val.d.next = self.t4_inf.val() | self.t4_sign.val();
            }
        } else if self.s3_rneg.q.val() {
            self.s4_val.d.next = self.t4_sign.val();
        }
        // MIN / MAX (fp_bits::select), decided here so that stage 5, whose multiplexers fan
        // out to every bit of the value and the index, reads only registers: a number beats
        // a NaN, between numbers the keys decide (the most significant unequal quarter);
        // otherwise (equal bits, or two NaNs, when `s4_ea` is the canonical NaN) `a`'s value
        // with the lower index.
        self.a_gt.next = self.s3_k3_gt.q.val()
            | (!self.s3_k3_lt.q.val()
                & (self.s3_k2_gt.q.val()
                    | (!self.s3_k2_lt.q.val()
                        & (self.s3_k1_gt.q.val()
                            | (!self.s3_k1_lt.q.val() & self.s3_k0_gt.q.val())))));
        self.a_lt.next = self.s3_k3_lt.q.val()
            | (!self.s3_k3_gt.q.val()
                & (self.s3_k2_lt.q.val()
                    | (!self.s3_k2_gt.q.val()
                        & (self.s3_k1_lt.q.val()
                            | (!self.s3_k1_gt.q.val() & self.s3_k0_lt.q.val())))));
        self.bi_lt_ai.next = self.s3_i3_lt.q.val()
            | (!self.s3_i3_gt.q.val()
                & (self.s3_i2_lt.q.val()
                    | (!self.s3_i2_gt.q.val()
                        & (self.s3_i1_lt.q.val()
                            | (!self.s3_i1_gt.q.val() & self.s3_i0_lt.q.val())))));
        self.is_max.next = (self.s3_op.q.val() == self.op_max.val())
            | (self.s3_op.q.val() == self.op_maxloc.val());
        self.is_sel.next = self.s3_op.q.val() <= self.op_minloc.val();
        self.is_loc.next = (self.s3_op.q.val() == self.op_maxloc.val())
            | (self.s3_op.q.val() == self.op_minloc.val());
        self.a_better.next = self.a_lt.val();
        self.b_better.next = self.a_gt.val();
        if self.is_max.val() {
            self.a_better.next = self.a_gt.val();
            self.b_better.next = self.a_lt.val();
        }
        self.take_a.next = !self.s3_anan.q.val() & (self.s3_bnan.q.val() | self.a_better.val());
        self.take_b.next = !self.s3_bnan.q.val() & (self.s3_anan.q.val() | self.b_better.val());
        self.s4_v_a.d.next = self.is_sel.val() & !self.take_b.val();
        self.s4_v_b.d.next = self.is_sel.val() & self.take_b.val();
        self.s4_i_a.d.next =
            self.is_loc.val() & (self.take_a.val() | (!self.take_b.val() & !self.bi_lt_ai.val()));
        self.s4_i_b.d.next =
            self.is_loc.val() & !self.take_a.val() & (self.take_b.val() | self.bi_lt_ai.val());
        self.s4_ea.d.next = self.s3_aelem.q.val();
        if self.s3_anan.q.val() {
            self.s4_ea.d.next = self.t4_cnan.val();
        }
        self.s4_eb.d.next = self.s3_belem.q.val();
        self.s4_ai.d.next = self.s3_ai.q.val();
        self.s4_bi.d.next = self.s3_bi.q.val();
        self.c_prod[0].d.next = self.s3_op.q.val() == self.op_prod.val();
        self.c_sum[0].d.next = self.s3_op.q.val() == self.op_sum.val();

        // ---- Stage 5. SUM: the smaller significand aligned, with guard, round and sticky
        // bits below the larger one's lowest bit (fp_bits::add's GUARD = 3).
        self.shr[0].w.next = bit_cast::<W, SW>(self.s4_small.q.val()) << 3;
        self.shr[0].d.next = bit_cast::<7, 6>(self.s4_diff.q.val());
        self.s5_big.d.next = self.s4_big.q.val();
        self.s5_sub.d.next = self.s4_sub.q.val();
        self.s5_esum.d.next = self.s4_esum.q.val();
        self.s5_kprod.d.next = self.s4_kprod.q.val();
        // MIN, MAX, MINLOC, MAXLOC: the value and the index stage 4 chose.
        self.c_arith[0].d.next = self.s4_arith.q.val();
        self.c_val.d.next = self.s4_val.q.val();
        if self.s4_v_a.q.val() {
            self.c_val.d.next = self.s4_ea.q.val();
        } else if self.s4_v_b.q.val() {
            self.c_val.d.next = self.s4_eb.q.val();
        }
        self.c_index.d.next = self.zero.val();
        if self.s4_i_a.q.val() {
            self.c_index.d.next = self.s4_ai.q.val();
        } else if self.s4_i_b.q.val() {
            self.c_index.d.next = self.s4_bi.q.val();
        }
        // PROD: the normalised significands' 16-bit digits into the multipliers' operand
        // registers.
        self.da[0].next = self.norm[0].n.val().get_bits::<16>(0);
        self.da[1].next = self.norm[0].n.val().get_bits::<16>(16);
        self.da[2].next = self.norm[0].n.val().get_bits::<16>(32);
        self.da[3].next = self.norm[0].n.val().get_bits::<16>(48);
        self.db[0].next = self.norm[1].n.val().get_bits::<16>(0);
        self.db[1].next = self.norm[1].n.val().get_bits::<16>(16);
        self.db[2].next = self.norm[1].n.val().get_bits::<16>(32);
        self.db[3].next = self.norm[1].n.val().get_bits::<16>(48);
        for i in 0..4 {
            for j in 0..4 {
                self.mul[i * 4 + j].a.next = self.da[i].val();
                self.mul[i * 4 + j].b.next = self.db[j].val();
            }
        }

        // ---- Stage 6. E of the product, from the normalisers' counts.
        self.s6_big.d.next = self.s5_big.q.val();
        self.s6_sub.d.next = self.s5_sub.q.val();
        self.c_e[0].d.next = self.s5_esum.q.val();
        if self.c_prod[1].q.val() {
            self.c_e[0].d.next = self.s5_kprod.q.val()
                - (bit_cast::<XW, 6>(self.norm[0].lz.val())
                    + bit_cast::<XW, 6>(self.norm[1].lz.val()));
        }

        // ---- Stage 7. SUM: |big| >= |small|, so the difference is never negative.
        self.big_w.next = bit_cast::<W, SW>(self.s6_big.q.val()) << 3;
        self.small_w.next = self.shr[0].r.val();
        if self.shr[0].lost.val() {
            self.small_w.next = self.shr[0].r.val() | 1;
        }
        self.s7_sum.d.next = self.big_w.val() + self.small_w.val();
        if self.s6_sub.q.val() {
            self.s7_sum.d.next = self.big_w.val() - self.small_w.val();
        }

        // ---- Stage 8. SUM: normalise (stages 8 to 10); an exact cancellation is +0
        // (rounding to nearest). PROD: the products out of the multipliers.
        self.norm[2].w.next = self.s7_sum.q.val();
        self.norm[2].q.next =
            (bit_cast::<3, 1>(self.s7_sum.q.val().get_bits::<16>(48).any().into()) << 2)
                | (bit_cast::<3, 1>(self.s7_sum.q.val().get_bits::<16>(32).any().into()) << 1)
                | bit_cast::<3, 1>(self.s7_sum.q.val().get_bits::<16>(16).any().into());
        self.c_arith[3].d.next =
            self.c_arith[2].q.val() & !(self.c_sum[3].q.val() & !self.s7_sum.q.val().any());
        self.c_nx[0].d.next = 4097 - bit_cast::<NW, XW>(self.c_e[1].q.val());
        for n in 0..16 {
            self.s8_p[n].d.next = 0.into();
            if self.mul_used[n].val() {
                self.s8_p[n].d.next = self.mul[n].p.val();
            }
        }

        // ---- Stage 9. PROD: product (i, j) has weight 2^(16 (i + j)); products whose
        // weights differ by 2^32 or more do not overlap, so each row is a concatenation, no
        // adder.
        self.row[0].next = bit_cast::<PW, 32>(self.s8_p[0].q.val())
            | (bit_cast::<PW, 32>(self.s8_p[5].q.val()) << 32)
            | (bit_cast::<PW, 32>(self.s8_p[10].q.val()) << 64)
            | (bit_cast::<PW, 32>(self.s8_p[15].q.val()) << 96);
        self.row[1].next = (bit_cast::<PW, 32>(self.s8_p[2].q.val()) << 32)
            | (bit_cast::<PW, 32>(self.s8_p[7].q.val()) << 64);
        self.row[2].next = (bit_cast::<PW, 32>(self.s8_p[8].q.val()) << 32)
            | (bit_cast::<PW, 32>(self.s8_p[13].q.val()) << 64);
        self.row[3].next = (bit_cast::<PW, 32>(self.s8_p[1].q.val()) << 16)
            | (bit_cast::<PW, 32>(self.s8_p[6].q.val()) << 48)
            | (bit_cast::<PW, 32>(self.s8_p[11].q.val()) << 80);
        self.row[4].next = (bit_cast::<PW, 32>(self.s8_p[4].q.val()) << 16)
            | (bit_cast::<PW, 32>(self.s8_p[9].q.val()) << 48)
            | (bit_cast::<PW, 32>(self.s8_p[14].q.val()) << 80);
        self.row[5].next = bit_cast::<PW, 32>(self.s8_p[3].q.val()) << 48;
        self.row[6].next = bit_cast::<PW, 32>(self.s8_p[12].q.val()) << 48;
        // Carry-save, 7 → 5 → 4 → 3 → 2 (x + y + z = (x ^ y ^ z) + (majority << 1)); the
        // product is below 2^128, so the carries out of bit 127 are dropped.
        self.l1_s0.next = self.row[0].val() ^ self.row[1].val() ^ self.row[2].val();
        self.l1_c0.next = ((self.row[0].val() & self.row[1].val())
            | (self.row[0].val() & self.row[2].val())
            | (self.row[1].val() & self.row[2].val()))
            << 1;
        self.l1_s1.next = self.row[3].val() ^ self.row[4].val() ^ self.row[5].val();
        self.l1_c1.next = ((self.row[3].val() & self.row[4].val())
            | (self.row[3].val() & self.row[5].val())
            | (self.row[4].val() & self.row[5].val()))
            << 1;
        self.l2_s.next = self.l1_s0.val() ^ self.l1_c0.val() ^ self.l1_s1.val();
        self.l2_c.next = ((self.l1_s0.val() & self.l1_c0.val())
            | (self.l1_s0.val() & self.l1_s1.val())
            | (self.l1_c0.val() & self.l1_s1.val()))
            << 1;
        self.l3_s.next = self.l2_s.val() ^ self.l2_c.val() ^ self.l1_c1.val();
        self.l3_c.next = ((self.l2_s.val() & self.l2_c.val())
            | (self.l2_s.val() & self.l1_c1.val())
            | (self.l2_c.val() & self.l1_c1.val()))
            << 1;
        self.s9_pa.d.next = self.l3_s.val() ^ self.l3_c.val() ^ self.row[6].val();
        self.s9_pb.d.next = ((self.l3_s.val() & self.l3_c.val())
            | (self.l3_s.val() & self.row[6].val())
            | (self.l3_c.val() & self.row[6].val()))
            << 1;

        // ---- Stage 10. PROD: the low halves added, the high halves both ways.
        // Only the low halves' sum's bit 63, its carry out and whether bits 62 to 0 are zero
        // are needed. x + y carries out of n bits if and only if y > !x, and x + y + 1 if
        // and only if y >= !x (each one carry chain);
        // x + y = 0 (mod 2^63) if and only if every bit's carry in is x ^ y, which makes its
        // carry out x | y: no carry chain.
        self.lo_x.next = self.s9_pa.q.val().get_bits::<63>(0);
        self.lo_y.next = self.s9_pb.q.val().get_bits::<63>(0);
        self.x63.next = self.s9_pa.q.val().get_bit(63);
        self.y63.next = self.s9_pb.q.val().get_bit(63);
        self.s10_c32.d.next =
            self.lo_y.val().get_bits::<32>(0) > !self.lo_x.val().get_bits::<32>(0);
        self.c63_0.next = self.lo_y.val().get_bits::<31>(32) > !self.lo_x.val().get_bits::<31>(32);
        self.c63_1.next = self.lo_y.val().get_bits::<31>(32) >= !self.lo_x.val().get_bits::<31>(32);
        self.s10_b0.d.next = self.x63.val() ^ self.y63.val() ^ self.c63_0.val();
        self.s10_b1.d.next = self.x63.val() ^ self.y63.val() ^ self.c63_1.val();
        self.s10_cy0.d.next = (self.x63.val() & self.y63.val())
            | ((self.x63.val() | self.y63.val()) & self.c63_0.val());
        self.s10_cy1.d.next = (self.x63.val() & self.y63.val())
            | ((self.x63.val() | self.y63.val()) & self.c63_1.val());
        self.lo_z.next =
            (self.lo_x.val() ^ self.lo_y.val()) ^ ((self.lo_x.val() | self.lo_y.val()) << 1);
        self.s10_nz[0].d.next = self.lo_z.val().get_bits::<16>(0).any();
        self.s10_nz[1].d.next = self.lo_z.val().get_bits::<16>(16).any();
        self.s10_nz[2].d.next = self.lo_z.val().get_bits::<16>(32).any();
        self.s10_nz[3].d.next = self.lo_z.val().get_bits::<15>(48).any();
        self.s10_hi0.d.next =
            self.s9_pa.q.val().get_bits::<W>(64) + self.s9_pb.q.val().get_bits::<W>(64);
        // x + y + 1 = x - !y: one subtractor, its carry in set.
        self.s10_hi1.d.next =
            self.s9_pa.q.val().get_bits::<W>(64) - !self.s9_pb.q.val().get_bits::<W>(64);

        // ---- Stage 11. PROD: the high half the carry picks (each normalised beforehand, so
        // that the carry drives one multiplexer per bit); the top 64 bits from the leading one
        // down, the rest a sticky bit (the rounding position is at bit 10 or above, far from
        // bit 0). The significand and count for the rounding: SUM's or PROD's.
        self.p_lo63.next = self.s10_b0.q.val();
        self.p_carry.next = self.s10_cy0.q.val();
        if self.s10_c32.q.val() {
            self.p_lo63.next = self.s10_b1.q.val();
            self.p_carry.next = self.s10_cy1.q.val();
        }
        self.p_sig0.next = self.s10_hi0.q.val() << 1;
        if self.s10_hi0.q.val().get_bit(63) {
            self.p_sig0.next = self.s10_hi0.q.val();
        }
        self.p_sig1.next = self.s10_hi1.q.val() << 1;
        if self.s10_hi1.q.val().get_bit(63) {
            self.p_sig1.next = self.s10_hi1.q.val();
        }
        self.p_sig.next = self.p_sig0.val();
        self.p_top.next = self.s10_hi0.q.val().get_bit(63);
        if self.p_carry.val() {
            self.p_sig.next = self.p_sig1.val();
            self.p_top.next = self.s10_hi1.q.val().get_bit(63);
        }
        // Bit 0 of a high half shifted left is 0, so the low half's bit 63 (whichever bit it
        // lands on) and everything under it OR into the sticky bit either way.
        self.p_sticky.next = self.s10_nz[0].q.val()
            | self.s10_nz[1].q.val()
            | self.s10_nz[2].q.val()
            | self.s10_nz[3].q.val()
            | self.p_lo63.val();
        self.s11_sig.d.next = self.norm[2].n.val();
        self.s11_lz.d.next = self.norm[2].lz.val();
        self.s11_nxfit.d.next = !self.c_nx[2].q.val().get_bits::<8>(6).any()
            | self.c_nx[2].q.val().get_bits::<8>(6).all();
        self.s11_nxbig.d.next =
            !self.c_nx[2].q.val().get_bit(13) & self.c_nx[2].q.val().get_bits::<7>(6).any();
        self.s11_nx8.d.next = self.c_nx[2].q.val().get_bits::<8>(0);
        if self.c_prod[6].q.val() {
            self.s11_sig.d.next = self.p_sig.val();
            if self.p_sticky.val() {
                self.s11_sig.d.next = self.p_sig.val() | 1;
            }
            self.s11_lz.d.next = 1.into();
            if self.p_top.val() {
                self.s11_lz.d.next = 0.into();
            }
        }

        // ---- Stage 12. R = E - lz; B = R - 4096 below 1 is a subnormal: shift right by
        // 1 - B = 4097 - R = nx + lz more, the exponent field 0. nx >= 64 shifts everything
        // out; nx < -64 is no subnormal (lz < 64); in between, nx + lz fits 8 bits signed.
        self.s12_sig.d.next = self.s11_sig.q.val();
        self.s12_exp.d.next = self.c_e[5].q.val() - bit_cast::<XW, 6>(self.s11_lz.q.val());
        self.dn8.next = self.s11_nx8.q.val() + bit_cast::<8, 6>(self.s11_lz.q.val());
        self.subn.next = self.s11_nxbig.q.val()
            | (self.s11_nxfit.q.val() & !self.dn8.val().get_bit(7) & self.dn8.val().any());
        self.s12_subn.d.next = self.subn.val();
        self.s12_dsh.d.next = 0.into();
        if self.subn.val() {
            self.s12_dsh.d.next = self.dn8.val().get_bits::<7>(0);
            if self.s11_nxbig.q.val() | (self.dn8.val() > 64) {
                self.s12_dsh.d.next = 64.into();
            }
        }

        // ---- Stages 13 and 14: the subnormal shift; infinity; the exponent field (B, when
        // 1 <= B < the all-ones field: R's low bits).
        self.shr[1].w.next = self.s12_sig.q.val();
        self.shr[1].d.next = self.s12_dsh.q.val();
        match self.tf[11].q.val().index() {
            0 => {
                self.t13_rinf.next = self.r_inf[0].val();
            }
            1 => {
                self.t13_rinf.next = self.r_inf[1].val();
            }
            2 => {
                self.t13_rinf.next = self.r_inf[2].val();
            }
            _ => {
                self.t13_rinf.next = self.r_inf[3].val();
            }
        }
        self.s13_ovf.d.next = self.s12_exp.q.val() >= self.t13_rinf.val();
        self.s13_field.d.next = self.s12_exp.q.val().get_bits::<EW>(0);
        if self.s12_subn.q.val() {
            self.s13_field.d.next = 0.into();
        }
        self.s14_ovf.d.next = self.s13_ovf.q.val();
        self.s14_field.d.next = self.s13_field.q.val();

        // ---- Stage 15: the type's p bits from bit 63 down (`q`; its top bit, the hidden
        // one, is replaced by the exponent field), the round bit below them, the sticky bits.
        self.field_w.next = bit_cast::<W, EW>(self.s14_field.q.val());
        match self.tf[13].q.val().index() {
            0 => {
                self.lsb.next = self.shr[1].r.val().get_bit(53);
                self.rb.next = self.shr[1].r.val().get_bit(52);
                self.st.next = self.shr[1].r.val().get_bits::<52>(0).any();
                self.s15_packed.d.next = (self.field_w.val() << 10)
                    | ((self.shr[1].r.val() >> 53) & self.fmask[0].val());
            }
            1 => {
                self.lsb.next = self.shr[1].r.val().get_bit(56);
                self.rb.next = self.shr[1].r.val().get_bit(55);
                self.st.next = self.shr[1].r.val().get_bits::<55>(0).any();
                self.s15_packed.d.next =
                    (self.field_w.val() << 7) | ((self.shr[1].r.val() >> 56) & self.fmask[1].val());
            }
            2 => {
                self.lsb.next = self.shr[1].r.val().get_bit(40);
                self.rb.next = self.shr[1].r.val().get_bit(39);
                self.st.next = self.shr[1].r.val().get_bits::<39>(0).any();
                self.s15_packed.d.next = (self.field_w.val() << 23)
                    | ((self.shr[1].r.val() >> 40) & self.fmask[2].val());
            }
            _ => {
                self.lsb.next = self.shr[1].r.val().get_bit(11);
                self.rb.next = self.shr[1].r.val().get_bit(10);
                self.st.next = self.shr[1].r.val().get_bits::<10>(0).any();
                self.s15_packed.d.next = (self.field_w.val() << 52)
                    | ((self.shr[1].r.val() >> 11) & self.fmask[3].val());
            }
        }
        // Nearest, ties to even.
        self.s15_incr.d.next =
            self.rb.val() & (self.st.val() | self.shr[1].lost.val() | self.lsb.val());
        self.s15_ovf.d.next = self.s14_ovf.q.val();

        // ---- Output: the rounding add; infinity; the sign; or the decided result.
        match self.tf[14].q.val().index() {
            0 => {
                self.t16_inf.next = self.inf[0].val();
                self.t16_sign.next = self.sign[0].val();
            }
            1 => {
                self.t16_inf.next = self.inf[1].val();
                self.t16_sign.next = self.sign[1].val();
            }
            2 => {
                self.t16_inf.next = self.inf[2].val();
                self.t16_sign.next = self.sign[2].val();
            }
            _ => {
                self.t16_inf.next = self.inf[3].val();
                self.t16_sign.next = self.sign[3].val();
            }
        }
        self.rounded.next = self.s15_packed.q.val() + self.s15_incr.q.val();
        if self.s15_ovf.q.val() {
            self.rounded.next = self.t16_inf.val();
        }
        self.o_r.d.next = self.line.q.val();
        if self.c_arith[10].q.val() {
            self.o_r.d.next = self.rounded.val();
            if self.c_sign[11].q.val() {
                self.o_r.d.next = self.rounded.val() | self.t16_sign.val();
            }
        }
        self.o_ri.d.next = self.line.qi.val();
        self.r.next = self.o_r.q.val();
        self.ri.next = self.o_ri.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::reduce_alu::fp_bits;
    use std::collections::VecDeque;

    /// The block emits as module `reduce_alu_fp` with the multiplier's module
    /// (`reduce_alu_mul16`), the normaliser, the shifter and the delay line as its children. To
    /// lint it, run this test with `FP_VERILOG_DIR` set to a directory, which receives one file
    /// per module, then
    /// `verilator --lint-only -Wall --top-module reduce_alu_fp *.v` there.
    #[test]
    fn fp_synthesizes() {
        let mut uut = ReduceAluFp::default();
        uut.connect_all();
        let m = crate::emit::emit_with_children(&uut, "reduce_alu_fp", &[], &FP_CHILDREN)
            .expect("reduce_alu_fp emits");
        if let Ok(dir) = std::env::var("FP_VERILOG_DIR") {
            for module in std::iter::once(&m).chain(&m.children) {
                std::fs::write(format!("{dir}/{}.v", module.name), &module.text)
                    .expect("FP_VERILOG_DIR is writable");
            }
        }
        assert!(m.text.contains("module reduce_alu_fp"));
        let children: Vec<&str> = m.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            children,
            [
                norm::MODULE,
                shr::MODULE,
                crate::reduce_alu::delay_line::MODULE,
                crate::prim::mul::MUL16_MODULE
            ]
        );
        let ports: Vec<(&str, usize)> =
            m.ports.iter().map(|p| (p.name.as_str(), p.width)).collect();
        assert_eq!(
            ports,
            [
                ("clock", 1),
                ("reset", 1),
                ("a", 64),
                ("ai", 64),
                ("b", 64),
                ("bi", 64),
                ("fmt", 2),
                ("op", 4),
                ("r", 64),
                ("ri", 64)
            ]
        );
    }

    /// Register stages: an operation offered at edge `t` is on `r`, `ri` after edge `t + 15`.
    const STAGES: usize = FP_STAGES;
    /// Enough `simulate` iterations for the longest chain of combinational signals.
    const SETTLE: usize = 100;

    /// One operation as offered to the block.
    #[derive(Clone, Copy, Debug)]
    struct Offer {
        op: u64,
        fmt: usize,
        a: u64,
        ai: u64,
        b: u64,
        bi: u64,
    }

    /// The reference: `fp_bits`, as the module docs map the operations onto it, for a block
    /// with the types `types` built in (a type left out: zeros).
    fn expected(o: &Offer, types: usize) -> (u64, u64) {
        let t = FpType::ALL[o.fmt];
        if types >> o.fmt & 1 == 0 {
            return (0, 0);
        }
        match o.op {
            0..=3 => {
                let (r, ri) = fp_bits::select(t, o.op.is_multiple_of(2), o.a, o.ai, o.b, o.bi);
                (r, if o.op >= 2 { ri } else { 0 })
            }
            4 => (fp_bits::add(t, o.a, o.b), 0),
            5 => (fp_bits::mul(t, o.a, o.b), 0),
            _ => (0, 0),
        }
    }

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    /// The block under `simulate`, one operation offered per edge, each output compared with
    /// the reference for the operation offered `STAGES - 1` edges earlier.
    struct Bench {
        uut: ReduceAluFp,
        /// The operations of the last edges, oldest first (`None`: nothing offered, or in
        /// flight at a reset edge; not compared).
        pending: VecDeque<Option<Offer>>,
        seed: u64,
        /// The types built in.
        types: usize,
        /// Operations compared so far.
        checked: usize,
    }

    impl Bench {
        fn new(seed: u64) -> Self {
            Self::with_types(seed, ALL_FP_TYPES)
        }

        fn with_types(seed: u64, types: usize) -> Self {
            let mut uut = ReduceAluFp::default();
            uut.set_types(types);
            uut.connect_all();
            let mut b = Bench {
                uut,
                pending: VecDeque::new(),
                seed,
                types,
                checked: 0,
            };
            b.edge(None, true);
            b
        }

        /// One clock edge with `offer` on the inputs (zeros for `None`) and `reset`.
        fn edge(&mut self, offer: Option<Offer>, reset: bool) {
            let o = offer.unwrap_or(Offer {
                op: 0,
                fmt: 0,
                a: 0,
                ai: 0,
                b: 0,
                bi: 0,
            });
            let u = &mut self.uut;
            u.a.next = o.a.into();
            u.ai.next = o.ai.into();
            u.b.next = o.b.into();
            u.bi.next = o.bi.into();
            u.fmt.next = (o.fmt as u64).into();
            u.op.next = o.op.into();
            u.reset.next = reset;
            u.clock.next = Clock { clk: false };
            assert!(simulate(u, SETTLE), "seed {:#x}: no settling", self.seed);
            u.clock.next = Clock { clk: true };
            assert!(simulate(u, SETTLE), "seed {:#x}: no settling", self.seed);
            self.pending.push_back(offer);
            if reset {
                // The datapath has no reset of its own (but its multipliers'): what is in
                // flight at a reset edge comes out unspecified, and the ALU, whose flags do
                // reset, never shows it. Everything offered after the edge is exact.
                self.pending.iter_mut().for_each(|p| *p = None);
            }
            if self.pending.len() == STAGES {
                let due = self.pending.pop_front().expect("STAGES in flight");
                let Some(o) = due else {
                    return;
                };
                let want = expected(&o, self.types);
                let got = (self.uut.r.val().to_u64(), self.uut.ri.val().to_u64());
                assert_eq!(
                    got,
                    want,
                    "seed {:#x}, types {:#06b}, after operation {}: (r, ri) of {:?} {} {:x?}",
                    self.seed,
                    self.types,
                    self.checked,
                    FpType::ALL[o.fmt],
                    op_name(o.op),
                    o
                );
                self.checked += 1;
            }
        }

        /// Edges with zeros until every offered operation has been compared.
        fn drain(&mut self) {
            for _ in 0..STAGES {
                self.edge(None, false);
            }
        }
    }

    fn op_name(op: u64) -> String {
        match op {
            0 => "MAX".into(),
            1 => "MIN".into(),
            2 => "MAXLOC".into(),
            3 => "MINLOC".into(),
            4 => "SUM".into(),
            5 => "PROD".into(),
            c => format!("reserved {c}"),
        }
    }

    /// The hard cases of `t`, both signs: zeros, the smallest and largest subnormals, the
    /// smallest normal, the largest finite number, one and its neighbours, half an ulp of one
    /// and one and a half (ties when added to one), a half (ties when multiplied by a few
    /// subnormal units), a power of two whose square overflows, infinities, quiet and
    /// signalling NaNs with payloads.
    fn edge_values(t: FpType) -> Vec<u64> {
        let f = t.fraction_bits();
        let bias = t.bias() as u64;
        let p = f as u64 + 1;
        let one = bias << f;
        let half_ulp = (bias - p) << f;
        let positive = [
            0,
            1,
            3,
            (1 << f) - 1,
            1 << f,
            (1 << f) + 1,
            t.inf() - 1,
            one,
            one + 1,
            one - 1,
            (bias - 1) << f,
            half_ulp,
            half_ulp | 1 << (f - 1),
            (2 * bias) << f,
            t.inf(),
            t.canonical_nan(),
            t.inf() | 1,
            t.canonical_nan() | 1,
        ];
        positive
            .iter()
            .flat_map(|&x| [x, x | t.sign_bit()])
            .collect()
    }

    /// fp64 significands `ma`, `mb` in `[2^52, 2^53)` whose product is `r` modulo 2^54 and
    /// has its leading one at bit 105 (`top`, a product in `[2, 4)`) or 104: `mb` odd and
    /// random, `ma = r / mb` modulo 2^54, kept when it is in range.
    fn significands_with_product_residue(r: u64, top: bool, seed: u64) -> (u64, u64) {
        let mask = (1u64 << 54) - 1;
        let mut next = rng(seed);
        loop {
            let mb = (1 << 52) | (next() & ((1 << 52) - 1)) | 1;
            // Newton's iteration doubles the correct low bits of 1 / mb each step.
            let mut inv = mb;
            for _ in 0..6 {
                inv = inv.wrapping_mul(2u64.wrapping_sub(mb.wrapping_mul(inv)));
            }
            let ma = r.wrapping_mul(inv) & mask;
            let product = ma as u128 * mb as u128;
            if ma >> 52 == 1 && (product >> 105 == 1) == top {
                return (ma, mb);
            }
        }
    }

    /// PROD of fp64 numbers in `[1, 2)` where only the product's low half (below the
    /// datapath's 64-bit significand) tells a tie from more than a tie: a single one at its
    /// bit 63 under a leading one at bit 127 (the kept bits even, the round bit set: a tie
    /// would round down), and a single one at its lowest product bit under a leading one at
    /// bit 126. Found by construction, compared with Rust's `f64` product.
    #[test]
    fn products_whose_low_half_breaks_the_tie() {
        const SEED: u64 = 0x71e5_70c4;
        let mut bench = Bench::new(SEED);
        let fp64 = FpType::ALL
            .iter()
            .position(|&t| t == FpType::F64)
            .expect("fp64 is a type");
        let cases = [
            // Leading one at product bit 105: kept 105..53, round bit 52; product bit 41 is
            // the low half's bit 63 (the low half starts at product bit -22).
            ((1u64 << 52) | (1 << 41), true),
            // Leading one at bit 104: kept 104..52, round bit 51; bit 0 is the low half's 22.
            ((1u64 << 51) | 1, false),
        ];
        for (k, &(r, top)) in cases.iter().enumerate() {
            for n in 0..8 {
                let seed = SEED + 100 * k as u64 + n;
                let (ma, mb) = significands_with_product_residue(r, top, seed);
                let a = (1023u64 << 52) | (ma & ((1 << 52) - 1));
                let b = (1023u64 << 52) | (mb & ((1 << 52) - 1));
                let truncated = ((ma as u128 * mb as u128) >> if top { 53 } else { 52 }) as u64;
                let want = f64::from_bits(a) * f64::from_bits(b);
                // Rounded up although the kept bits are even: the low half decided.
                assert_eq!(
                    want.to_bits() & ((1 << 52) - 1),
                    (truncated + 1) & ((1 << 52) - 1),
                    "seed {seed:#x}: the case is not the one meant"
                );
                bench.edge(
                    Some(Offer {
                        op: 5,
                        fmt: fp64,
                        a,
                        ai: 0,
                        b,
                        bi: 0,
                    }),
                    false,
                );
            }
        }
        bench.drain();
        assert_eq!(bench.checked, 16);
    }

    /// Every pair of edge values of every type under every operation, the operation and the
    /// type changing every cycle; garbage above the narrower types' elements, indices that
    /// tie and that do not.
    #[test]
    fn edge_values_under_every_op() {
        const SEED: u64 = 0xed9e_f00d;
        let mut next = rng(SEED);
        let mut bench = Bench::new(SEED);
        let tables: Vec<Vec<u64>> = FpType::ALL.iter().map(|&t| edge_values(t)).collect();
        let n = tables[0].len();
        for i in 0..n {
            for j in 0..n {
                for op in 0..6 {
                    for (fmt, t) in FpType::ALL.iter().enumerate() {
                        let garbage = next() & !t.mask();
                        let ai = next() % 4;
                        let bi = if next().is_multiple_of(2) {
                            ai
                        } else {
                            next() % 4
                        };
                        let offer = Offer {
                            op,
                            fmt,
                            a: tables[fmt][i] | garbage,
                            ai,
                            b: tables[fmt][j] | (next() & !t.mask()),
                            bi,
                        };
                        bench.edge(Some(offer), false);
                    }
                }
            }
        }
        bench.drain();
        assert_eq!(bench.checked, n * n * 6 * 4);
    }

    /// A random operand of `t` with garbage above the element half of the time; a quarter of
    /// them sparse: of the fraction only the top two bits and the lowest, so that products
    /// and sums are exact ties or just off one by a far lower bit (which only the sticky bits
    /// carry) far more often than with random fractions.
    fn operand(t: FpType, next: &mut impl FnMut() -> u64) -> u64 {
        let garbage = if next().is_multiple_of(2) {
            next() & !t.mask()
        } else {
            0
        };
        let f = t.fraction_bits();
        let mut x = next() & t.mask();
        if next().is_multiple_of(4) {
            x &= !((1 << f) - 1) | 3 << (f - 2) | 1;
        }
        x | garbage
    }

    /// `b` for `a`: exponents within two binades (sums round and cancel), far apart, the same
    /// magnitude of either sign, a neighbour (one ulp apart: cancellation to one bit), small
    /// or subnormal, an exponent that puts the product up to `p + 1` binades below the
    /// smallest normal (subnormal products, rounded after a further shift), or anything.
    fn partner(t: FpType, a: u64, next: &mut impl FnMut() -> u64) -> u64 {
        let f = t.fraction_bits();
        let field = t.inf();
        let b = operand(t, next);
        let garbage = b & !t.mask();
        let e = match next() % 7 {
            5 => {
                let fa = (a & field) >> f;
                // Half of them one to three binades down, where for fp64 the bits the
                // shift drops are the product's far end (the sticky bit of stage 5).
                let down = if next().is_multiple_of(2) {
                    next() % 4
                } else {
                    next() % (f as u64 + 3)
                };
                let fb = (1 + t.bias() as u64).wrapping_sub(fa + down);
                if fb >= 1 && fb < field >> f {
                    (b & !field) | fb << f
                } else {
                    b
                }
            }
            0 => {
                let near = (a & field)
                    .wrapping_add((next() % 5) << f)
                    .wrapping_sub(2 << f);
                (b & !field) | (near & field)
            }
            1 => b,
            2 => a ^ ((next() % 2) * t.sign_bit()),
            3 => {
                (a & t.mask()).wrapping_add(next() % 3).wrapping_sub(1)
                    ^ (next() % 2 * t.sign_bit())
            }
            4 => b & (!field | ((next() % 4) << f)),
            _ => next(),
        };
        (e & t.mask()) | garbage
    }

    /// An index: small (so that ties are decided by it) or anything, and `bi` equal to `ai`,
    /// different in one 16-bit quarter only, or anything.
    fn indices(next: &mut impl FnMut() -> u64) -> (u64, u64) {
        let ai = if next().is_multiple_of(2) {
            next() % 8
        } else {
            next()
        };
        let bi = match next() % 4 {
            0 => ai,
            1 => ai ^ ((next() & 0xFFFF) << (16 * (next() % 4))),
            2 => next() % 8,
            _ => next(),
        };
        (ai, bi)
    }

    /// A seeded random stream, a new operation every cycle (type and op drawn each time,
    /// reserved codes among them), with two resets in the middle, after which every operation
    /// offered is exact again (the datapath's registers do not reset; the ALU drops what was
    /// in flight).
    #[test]
    fn random_stream_with_resets() {
        const SEED: u64 = 0xf10a_75ee;
        const OPS: usize = 200_000;
        let mut next = rng(SEED);
        let mut bench = Bench::new(SEED);
        let mut offered = 0;
        for n in 0..OPS {
            let fmt = (next() % 4) as usize;
            let t = FpType::ALL[fmt];
            let op = if next().is_multiple_of(8) {
                6 + next() % 10
            } else {
                next() % 6
            };
            let a = operand(t, &mut next);
            let b = partner(t, a, &mut next);
            let (ai, bi) = indices(&mut next);
            let (a, b) = if next().is_multiple_of(2) {
                (a, b)
            } else {
                (b, a)
            };
            let reset = n == OPS / 3 || n == OPS / 2 || n == OPS / 2 + 1;
            bench.edge(
                Some(Offer {
                    op,
                    fmt,
                    a,
                    ai,
                    b,
                    bi,
                }),
                reset,
            );
            offered += usize::from(!reset);
        }
        bench.drain();
        // The operations of the `STAGES - 1` edges before a reset edge, and its own, are not
        // compared: for the first, and for the back-to-back pair.
        assert_eq!(bench.checked, offered - 2 * (STAGES - 1));
    }

    /// Built with some of the types only: each built type still exactly `fp_bits`, every
    /// operation on a type left out answered with zeros, for the type sets whose datapaths
    /// synthesis narrows (no f64; only the 16-bit types) and one with a gap (bf16 and f64).
    /// Every pair of edge values under every operation of every type.
    #[test]
    fn a_datapath_with_some_types_computes_those_and_zeros_the_others() {
        const SEED: u64 = 0x5e70_f7e5;
        for types in [0b0111, 0b0011, 0b1010] {
            let mut next = rng(SEED);
            let mut bench = Bench::with_types(SEED, types);
            let tables: Vec<Vec<u64>> = FpType::ALL.iter().map(|&t| edge_values(t)).collect();
            let n = tables[0].len();
            for i in (0..n).step_by(3) {
                for j in 0..n {
                    for op in 0..7 {
                        for (fmt, t) in FpType::ALL.iter().enumerate() {
                            let (ai, bi) = indices(&mut next);
                            bench.edge(
                                Some(Offer {
                                    op,
                                    fmt,
                                    a: tables[fmt][i] | (next() & !t.mask()),
                                    ai,
                                    b: tables[fmt][j],
                                    bi,
                                }),
                                false,
                            );
                        }
                    }
                }
            }
            bench.drain();
            assert_eq!(
                bench.checked,
                n.div_ceil(3) * n * 7 * 4,
                "types {types:#06b}"
            );
        }
    }
}
