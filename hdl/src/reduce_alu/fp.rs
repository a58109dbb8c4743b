//! # The floating-point datapath of one ALU lane (module `reduce_alu_fp`)
//!
//! `r, ri = a op b` on one element of a floating-point type (fp16, bf16, fp32, fp64), through
//! six register stages, bit for bit as the integer model `netcoll_models::reduce_alu::fp_bits`
//! computes it: IEEE 754 round to nearest even with subnormals, signed zeros and infinities,
//! the canonical quiet NaN for every NaN result, MIN / MAX as C's `fmin` / `fmax` with
//! `-0 < +0`, MINLOC / MAXLOC keeping the lower index on a tie. One datapath sized for fp64
//! serves every type: the narrower ones are placed exactly into it (significand at fp64's
//! position, exponent in the type's own bias) and rounded back at the type's precision.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; every register resets to zero);
//! - `a`, `ai`, `b`, `bi` (64 bits each): the operands and their indices, as offered; the
//!   element sits in the low bits of `a` and `b`, the bits above it are ignored;
//! - `fmt`: the type, 0 fp16, 1 bf16, 2 fp32, 3 fp64 (the order of `FpType::ALL`);
//! - `op`: the `AluOp` code: MAX, MIN, MAXLOC, MINLOC, SUM, PROD; any other code gives
//!   `r = ri = 0`.
//!
//! # Outputs
//! - `r` (the result, zero-extended) and `ri` (MAXLOC's and MINLOC's index, else 0):
//!   registers, six cycles after the operands (offered at edge `t`, out after edge `t + 5`).
//!   Every stage loads every cycle: one operation per cycle, sustained.
//!
//! # Structure
//! Exponents travel as 13-bit unsigned numbers with an offset, so that no stage needs signed
//! arithmetic: a result's exponent is `R = B + 4096`, `B` the type's biased exponent that the
//! result has when its leading one is at bit 63 of a 64-bit significand (`B < 1`: subnormal).
//!
//! - Stage 1 (`s1_*`): the inputs as offered.
//! - Stage 2 (`s2_*`): each operand unpacked (sign, exponent field, fraction at fp64's
//!   position, NaN / infinity / zero). SUM: the operand of larger magnitude first (`s2_big`,
//!   `s2_small`, their exponent difference `s2_diff`); PROD: each significand normalised
//!   (a leading-zero count and shift, for subnormals) to a 64-bit word with its leading one at
//!   bit 63, split into four 16-bit digits for the sixteen [`Mul16`]s (their operand registers
//!   are this stage), the exponents `s2_xa`, `s2_xb`; the result when it is decided by the
//!   classes alone (NaN, infinity, zero: `s2_val`, `s2_arith` clear), or 0 for a reserved `op`;
//!   MIN / MAX: the elements, the NaN tests and the compare keys' 16-bit quarters compared
//!   (four short carry chains), the indices' quarters likewise.
//! - Stage 3 (`s3_*`; the multipliers' product registers): SUM: the smaller significand
//!   shifted right to the larger one's exponent, three guard bits and a sticky bit; PROD's
//!   exponent; MIN / MAX: the quarters combined.
//! - Stage 4 (`s4_*`): SUM: the add or subtract; PROD: the sixteen partial products, packed
//!   into seven rows (products two digits apart do not overlap), reduced by four levels of
//!   3:2 carry-save adders to two rows; MIN / MAX / MINLOC / MAXLOC: the value and index
//!   selected, which take the place of the result (`s4_val`).
//! - Stage 5 (`s5_*`): SUM: the sum normalised (leading-zero count by halves); PROD: the two
//!   rows added and the product's top 64 bits kept, the rest ORed into bit 0 (a sticky bit,
//!   far below any rounding position); an exact cancellation made `+0`.
//! - Output (`o_*`): round and pack, shared by SUM and PROD: a subnormal result shifted right
//!   further (what drops out ORed into the sticky bit), the type's `p` bits kept, rounded to
//!   nearest even, packed by adding them to the biased exponent minus one shifted to the
//!   exponent field (a rounding carry into the next binade or into infinity needs no special
//!   case); an exponent too large gives infinity; or the decided result instead.
//!
//! # Timing (measured; not closed)
//! Six stages are too few for 125 MHz on an ECP5 (-6). The module alone, every port registered
//! as `netcoll synth --fpga` wraps a block, places and routes at 46.7 MHz (median of seeds 1, 2,
//! 3: 47.0, 46.7, 43.6). Its longest paths (seed 1), found by removing each in turn from a copy
//! of the emitted Verilog:
//! - stage 2, 22.4 ns (17 ns of it routing): the unpack, then PROD's normaliser fanning each
//!   16-bit digit out to four multipliers; its exponent path (the leading-zero count into
//!   `s2_xa`) alone is 16.6 ns;
//! - the output stage, 21.3 ns: `s5_exp` → the subnormal shift → the rounding add → `o_r`;
//! - stage 5, 15.5 ns: the sum's normaliser into `s5_exp`;
//! - with those removed, 12.6 ns (79.2 MHz): stage 2's SUM compare and exponent difference;
//!   every other path is shorter.
//!
//! Stage 1 has no logic. An 8 ns cycle needs about twice the stages (unpack; normalise in two;
//! the multipliers; the carry-save tree; the wide add; normalise; shift; round), so an ALU
//! built with these types needs a longer latency than [`LATENCY`](netcoll_models::reduce_alu::LATENCY),
//! and the NIC's CALC wait and the switch's payload pipeline must follow it.

use netcoll_models::reduce_alu::fp::FpType;
use netcoll_models::reduce_alu::{AluOp, WORD_BITS};
use rust_hdl::prelude::*;

use crate::dff_setup;
use crate::prim::{Mul16, Reg};

const W: usize = WORD_BITS;
/// Bits of an offset exponent (`R = B + 4096` and the operands' `X`, see the module docs).
const XW: usize = 13;
/// A significand with its hidden bit, at fp64's width.
const SW: usize = 53;
/// The exponent field at fp64's width.
const EW: usize = 11;
/// A full product of two 64-bit significand words.
const PW: usize = 128;
const OPB: usize = AluOp::BITS;

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

        // Stage 1: the inputs as offered.
        s1_a: Reg<Bits<W>>,
        s1_ai: Reg<Bits<W>>,
        s1_b: Reg<Bits<W>>,
        s1_bi: Reg<Bits<W>>,
        s1_fmt: Reg<Bits<2>>,
        s1_op: Reg<Bits<OPB>>,
        // Stage 2: the operands unpacked.
        s2_fmt: Reg<Bits<2>>,
        s2_op: Reg<Bits<OPB>>,
        /// The result is the rounded datapath's (SUM or PROD of two finite numbers, not both
        /// zero); otherwise it is `s2_val`, decided by the operands' classes, or 0 (a reserved
        /// `op`, and the all-zero state after a reset). MIN / MAX replace `s*_val` in stage 4.
        s2_arith: Reg<bool>,
        s2_val: Reg<Bits<W>>,
        /// The result's sign: PROD's, or the SUM's larger operand's.
        s2_sign: Reg<bool>,
        /// SUM: the significands (hidden bit at 52), the larger magnitude first; the shift
        /// that aligns the smaller (at most 63: anything beyond 55 is all sticky anyway); the
        /// larger one's exponent field (at least 1); whether the signs differ.
        s2_big: Reg<Bits<SW>>,
        s2_small: Reg<Bits<SW>>,
        s2_diff: Reg<Bits<6>>,
        s2_eff: Reg<Bits<EW>>,
        s2_sub: Reg<bool>,
        /// PROD: the operands' exponents `X = 2048 + (biased exponent of the leading one)`.
        s2_xa: Reg<Bits<XW>>,
        s2_xb: Reg<Bits<XW>>,
        /// MIN / MAX: the elements (`a` already replaced by the canonical NaN if it is one:
        /// a NaN `a` is only ever returned when both are NaNs), the NaN tests, the indices.
        s2_ea: Reg<Bits<W>>,
        s2_eb: Reg<Bits<W>>,
        s2_anan: Reg<bool>,
        s2_bnan: Reg<bool>,
        s2_ai: Reg<Bits<W>>,
        s2_bi: Reg<Bits<W>>,
        /// The compare keys' 16-bit quarters compared separately, combined in stage 3.
        s2_k0_gt: Reg<bool>,
        s2_k0_lt: Reg<bool>,
        s2_k1_gt: Reg<bool>,
        s2_k1_lt: Reg<bool>,
        s2_k2_gt: Reg<bool>,
        s2_k2_lt: Reg<bool>,
        s2_k3_gt: Reg<bool>,
        s2_k3_lt: Reg<bool>,
        /// The indices' quarters: `bi` against `ai`.
        s2_i0_gt: Reg<bool>,
        s2_i0_lt: Reg<bool>,
        s2_i1_gt: Reg<bool>,
        s2_i1_lt: Reg<bool>,
        s2_i2_gt: Reg<bool>,
        s2_i2_lt: Reg<bool>,
        s2_i3_gt: Reg<bool>,
        s2_i3_lt: Reg<bool>,
        /// PROD's partial products: element `4 i + j` multiplies digit `i` of `a`'s
        /// normalised significand by digit `j` of `b`'s (operands registered with stage 2,
        /// product with stage 3).
        mul: [Mul16; 16],
        // Stage 3.
        s3_fmt: Reg<Bits<2>>,
        s3_op: Reg<Bits<OPB>>,
        s3_arith: Reg<bool>,
        s3_val: Reg<Bits<W>>,
        s3_sign: Reg<bool>,
        s3_sub: Reg<bool>,
        /// SUM: the larger significand, and the smaller one aligned to it with three guard
        /// bits (bit 0 sticky: the OR of everything shifted out).
        s3_big: Reg<Bits<SW>>,
        s3_small: Reg<Bits<W>>,
        /// The result's exponent `R` before normalisation: PROD's for a product below 2,
        /// SUM's for a sum whose leading one is at bit 63.
        s3_exp: Reg<Bits<XW>>,
        s3_ea: Reg<Bits<W>>,
        s3_eb: Reg<Bits<W>>,
        s3_anan: Reg<bool>,
        s3_bnan: Reg<bool>,
        s3_ai: Reg<Bits<W>>,
        s3_bi: Reg<Bits<W>>,
        s3_a_gt: Reg<bool>,
        s3_a_lt: Reg<bool>,
        s3_bi_lt_ai: Reg<bool>,
        // Stage 4.
        s4_fmt: Reg<Bits<2>>,
        s4_is_sum: Reg<bool>,
        s4_is_prod: Reg<bool>,
        s4_arith: Reg<bool>,
        s4_val: Reg<Bits<W>>,
        s4_index: Reg<Bits<W>>,
        s4_sign: Reg<bool>,
        s4_exp: Reg<Bits<XW>>,
        /// SUM: the sum or difference, larger significand's hidden bit at 55.
        s4_sum: Reg<Bits<W>>,
        /// PROD: the product as two carry-save rows.
        s4_pa: Reg<Bits<PW>>,
        s4_pb: Reg<Bits<PW>>,
        // Stage 5: one significand for the rounding, leading one at bit 63.
        s5_fmt: Reg<Bits<2>>,
        s5_arith: Reg<bool>,
        s5_val: Reg<Bits<W>>,
        s5_index: Reg<Bits<W>>,
        s5_sign: Reg<bool>,
        s5_exp: Reg<Bits<XW>>,
        s5_sig: Reg<Bits<W>>,
        // Outputs.
        o_r: Reg<Bits<W>>,
        o_ri: Reg<Bits<W>>,

        // Stage 2's logic: the type's constants, the operands' fields and classes.
        t_mask: Signal<Local, Bits<W>>,
        t_sign: Signal<Local, Bits<W>>,
        t_inf: Signal<Local, Bits<W>>,
        t_cnan: Signal<Local, Bits<W>>,
        a_sign: Signal<Local, bool>,
        b_sign: Signal<Local, bool>,
        a_field: Signal<Local, Bits<EW>>,
        b_field: Signal<Local, Bits<EW>>,
        /// The fraction at fp64's position (bit 51 down).
        a_frac: Signal<Local, Bits<52>>,
        b_frac: Signal<Local, Bits<52>>,
        /// The exponent field is all ones (infinity or NaN).
        a_ones: Signal<Local, bool>,
        b_ones: Signal<Local, bool>,
        a_elem: Signal<Local, Bits<W>>,
        b_elem: Signal<Local, Bits<W>>,
        a_ez: Signal<Local, bool>,
        b_ez: Signal<Local, bool>,
        a_fz: Signal<Local, bool>,
        b_fz: Signal<Local, bool>,
        a_nan: Signal<Local, bool>,
        b_nan: Signal<Local, bool>,
        a_inf: Signal<Local, bool>,
        b_inf: Signal<Local, bool>,
        a_zero: Signal<Local, bool>,
        b_zero: Signal<Local, bool>,
        /// Compare keys (`fp_bits::key`): unsigned, in the order of the numbers.
        a_key: Signal<Local, Bits<W>>,
        b_key: Signal<Local, Bits<W>>,
        /// Magnitudes: exponent field over fraction orders like the absolute values.
        a_mag: Signal<Local, Bits<63>>,
        b_mag: Signal<Local, Bits<63>>,
        a_ge: Signal<Local, bool>,
        a_sig: Signal<Local, Bits<SW>>,
        b_sig: Signal<Local, Bits<SW>>,
        /// The exponent field, at least 1 (a subnormal's exponent is the smallest normal's).
        a_eff: Signal<Local, Bits<EW>>,
        b_eff: Signal<Local, Bits<EW>>,
        diff_raw: Signal<Local, Bits<EW>>,
        big_sign: Signal<Local, bool>,
        /// The normaliser of each significand (`a_n0` its word, `a_z5` … `a_z0`: the top
        /// 32, 16 … 1 bits were zero and the word moved up by as many).
        a_n0: Signal<Local, Bits<W>>,
        a_n1: Signal<Local, Bits<W>>,
        a_n2: Signal<Local, Bits<W>>,
        a_n3: Signal<Local, Bits<W>>,
        a_n4: Signal<Local, Bits<W>>,
        a_n5: Signal<Local, Bits<W>>,
        a_n6: Signal<Local, Bits<W>>,
        a_z5: Signal<Local, Bits<1>>,
        a_z4: Signal<Local, Bits<1>>,
        a_z3: Signal<Local, Bits<1>>,
        a_z2: Signal<Local, Bits<1>>,
        a_z1: Signal<Local, Bits<1>>,
        a_z0: Signal<Local, Bits<1>>,
        a_lz: Signal<Local, Bits<XW>>,
        b_n0: Signal<Local, Bits<W>>,
        b_n1: Signal<Local, Bits<W>>,
        b_n2: Signal<Local, Bits<W>>,
        b_n3: Signal<Local, Bits<W>>,
        b_n4: Signal<Local, Bits<W>>,
        b_n5: Signal<Local, Bits<W>>,
        b_n6: Signal<Local, Bits<W>>,
        b_z5: Signal<Local, Bits<1>>,
        b_z4: Signal<Local, Bits<1>>,
        b_z3: Signal<Local, Bits<1>>,
        b_z2: Signal<Local, Bits<1>>,
        b_z1: Signal<Local, Bits<1>>,
        b_z0: Signal<Local, Bits<1>>,
        b_lz: Signal<Local, Bits<XW>>,
        /// The normalised significands' 16-bit digits, least significant first.
        da: [Signal<Local, Bits<16>>; 4],
        db: [Signal<Local, Bits<16>>; 4],
        // Stage 3's logic.
        t_bias: Signal<Local, Bits<XW>>,
        small_w: Signal<Local, Bits<W>>,
        small_al: Signal<Local, Bits<W>>,
        small_lost: Signal<Local, bool>,
        // Stage 4's logic.
        big_w: Signal<Local, Bits<W>>,
        is_max: Signal<Local, bool>,
        a_better: Signal<Local, bool>,
        b_better: Signal<Local, bool>,
        take_a: Signal<Local, bool>,
        take_b: Signal<Local, bool>,
        imin: Signal<Local, Bits<W>>,
        sel_v: Signal<Local, Bits<W>>,
        sel_i: Signal<Local, Bits<W>>,
        /// The partial products in seven rows at their weights, then the carry-save levels.
        row: [Signal<Local, Bits<PW>>; 7],
        l1_s0: Signal<Local, Bits<PW>>,
        l1_c0: Signal<Local, Bits<PW>>,
        l1_s1: Signal<Local, Bits<PW>>,
        l1_c1: Signal<Local, Bits<PW>>,
        l2_s: Signal<Local, Bits<PW>>,
        l2_c: Signal<Local, Bits<PW>>,
        l3_s: Signal<Local, Bits<PW>>,
        l3_c: Signal<Local, Bits<PW>>,
        // Stage 5's logic: the sum's normaliser (as stage 2's), the product's add.
        m0: Signal<Local, Bits<W>>,
        m1: Signal<Local, Bits<W>>,
        m2: Signal<Local, Bits<W>>,
        m3: Signal<Local, Bits<W>>,
        m4: Signal<Local, Bits<W>>,
        m5: Signal<Local, Bits<W>>,
        m6: Signal<Local, Bits<W>>,
        mz5: Signal<Local, Bits<1>>,
        mz4: Signal<Local, Bits<1>>,
        mz3: Signal<Local, Bits<1>>,
        mz2: Signal<Local, Bits<1>>,
        mz1: Signal<Local, Bits<1>>,
        mz0: Signal<Local, Bits<1>>,
        m_lz: Signal<Local, Bits<XW>>,
        prod: Signal<Local, Bits<PW>>,
        p_top: Signal<Local, bool>,
        p_sig: Signal<Local, Bits<W>>,
        p_sticky: Signal<Local, bool>,
        // The output stage's logic: round and pack.
        subn: Signal<Local, bool>,
        dn: Signal<Local, Bits<XW>>,
        dsh: Signal<Local, Bits<7>>,
        u: Signal<Local, Bits<W>>,
        lost: Signal<Local, bool>,
        em1: Signal<Local, Bits<EW>>,
        q: Signal<Local, Bits<W>>,
        rb: Signal<Local, bool>,
        st: Signal<Local, bool>,
        lsb: Signal<Local, bool>,
        ex: Signal<Local, Bits<W>>,
        ovf: Signal<Local, bool>,
        o_inf: Signal<Local, Bits<W>>,
        o_sign: Signal<Local, Bits<W>>,
        packed_word: Signal<Local, Bits<W>>,
        rounded: Signal<Local, Bits<W>>,

        mask: [Constant<Bits<W>>; 4] = per_type(|t| t.mask()),
        sign: [Constant<Bits<W>>; 4] = per_type(|t| t.sign_bit()),
        inf: [Constant<Bits<W>>; 4] = per_type(|t| t.inf()),
        cnan: [Constant<Bits<W>>; 4] = per_type(|t| t.canonical_nan()),
        bias: [Constant<Bits<XW>>; 4] = per_type(|t| t.bias() as u64),
        /// `R` from which the result is infinite: 4096 + the all-ones exponent field.
        r_inf: [Constant<Bits<XW>>; 4] = per_type(|t| 4096 + (t.inf() >> t.fraction_bits())),
        hidden: Constant<Bits<SW>> = k(1 << 52),
        ones: Constant<Bits<W>> = k(u64::MAX),
        zero: Constant<Bits<W>> = k(0),
        op_max: Constant<Bits<OPB>> = k(AluOp::Max.code()),
        op_maxloc: Constant<Bits<OPB>> = k(AluOp::MaxLoc.code()),
        op_minloc: Constant<Bits<OPB>> = k(AluOp::MinLoc.code()),
        op_sum: Constant<Bits<OPB>> = k(AluOp::Sum.code()),
        op_prod: Constant<Bits<OPB>> = k(AluOp::Prod.code()),
    }
}

impl Logic for ReduceAluFp {
    #[hdl_gen]
    fn update(&mut self) {
        // Every stage loads every cycle: no valid bit, no enables.
        dff_setup!(
            self,
            clock,
            s1_a,
            s1_ai,
            s1_b,
            s1_bi,
            s1_fmt,
            s1_op,
            s2_fmt,
            s2_op,
            s2_arith,
            s2_val,
            s2_sign,
            s2_big,
            s2_small,
            s2_diff,
            s2_eff,
            s2_sub,
            s2_xa,
            s2_xb,
            s2_ea,
            s2_eb,
            s2_anan,
            s2_bnan,
            s2_ai,
            s2_bi,
            s2_k0_gt,
            s2_k0_lt,
            s2_k1_gt,
            s2_k1_lt,
            s2_k2_gt,
            s2_k2_lt,
            s2_k3_gt,
            s2_k3_lt,
            s2_i0_gt,
            s2_i0_lt,
            s2_i1_gt,
            s2_i1_lt,
            s2_i2_gt,
            s2_i2_lt,
            s2_i3_gt,
            s2_i3_lt,
            s3_fmt,
            s3_op,
            s3_arith,
            s3_val,
            s3_sign,
            s3_sub,
            s3_big,
            s3_small,
            s3_exp,
            s3_ea,
            s3_eb,
            s3_anan,
            s3_bnan,
            s3_ai,
            s3_bi,
            s3_a_gt,
            s3_a_lt,
            s3_bi_lt_ai,
            s4_fmt,
            s4_is_sum,
            s4_is_prod,
            s4_arith,
            s4_val,
            s4_index,
            s4_sign,
            s4_exp,
            s4_sum,
            s4_pa,
            s4_pb,
            s5_fmt,
            s5_arith,
            s5_val,
            s5_index,
            s5_sign,
            s5_exp,
            s5_sig,
            o_r,
            o_ri
        );

        // ---- Stage 1: the inputs as offered.
        self.s1_a.d.next = self.a.val();
        self.s1_ai.d.next = self.ai.val();
        self.s1_b.d.next = self.b.val();
        self.s1_bi.d.next = self.bi.val();
        self.s1_fmt.d.next = self.fmt.val();
        self.s1_op.d.next = self.op.val();

        // ---- Stage 2: unpack. The fraction goes to fp64's position, so that one datapath
        // and one exponent difference serve every type.
        match self.s1_fmt.q.val().index() {
            0 => {
                self.t_mask.next = self.mask[0].val();
                self.t_sign.next = self.sign[0].val();
                self.t_inf.next = self.inf[0].val();
                self.t_cnan.next = self.cnan[0].val();
                self.a_sign.next = self.s1_a.q.val().get_bit(15);
                self.a_field.next = bit_cast::<EW, 5>(self.s1_a.q.val().get_bits::<5>(10));
                self.a_frac.next = bit_cast::<52, 10>(self.s1_a.q.val().get_bits::<10>(0)) << 42;
                self.a_ones.next = self.s1_a.q.val().get_bits::<5>(10).all();
                self.b_sign.next = self.s1_b.q.val().get_bit(15);
                self.b_field.next = bit_cast::<EW, 5>(self.s1_b.q.val().get_bits::<5>(10));
                self.b_frac.next = bit_cast::<52, 10>(self.s1_b.q.val().get_bits::<10>(0)) << 42;
                self.b_ones.next = self.s1_b.q.val().get_bits::<5>(10).all();
            }
            1 => {
                self.t_mask.next = self.mask[1].val();
                self.t_sign.next = self.sign[1].val();
                self.t_inf.next = self.inf[1].val();
                self.t_cnan.next = self.cnan[1].val();
                self.a_sign.next = self.s1_a.q.val().get_bit(15);
                self.a_field.next = bit_cast::<EW, 8>(self.s1_a.q.val().get_bits::<8>(7));
                self.a_frac.next = bit_cast::<52, 7>(self.s1_a.q.val().get_bits::<7>(0)) << 45;
                self.a_ones.next = self.s1_a.q.val().get_bits::<8>(7).all();
                self.b_sign.next = self.s1_b.q.val().get_bit(15);
                self.b_field.next = bit_cast::<EW, 8>(self.s1_b.q.val().get_bits::<8>(7));
                self.b_frac.next = bit_cast::<52, 7>(self.s1_b.q.val().get_bits::<7>(0)) << 45;
                self.b_ones.next = self.s1_b.q.val().get_bits::<8>(7).all();
            }
            2 => {
                self.t_mask.next = self.mask[2].val();
                self.t_sign.next = self.sign[2].val();
                self.t_inf.next = self.inf[2].val();
                self.t_cnan.next = self.cnan[2].val();
                self.a_sign.next = self.s1_a.q.val().get_bit(31);
                self.a_field.next = bit_cast::<EW, 8>(self.s1_a.q.val().get_bits::<8>(23));
                self.a_frac.next = bit_cast::<52, 23>(self.s1_a.q.val().get_bits::<23>(0)) << 29;
                self.a_ones.next = self.s1_a.q.val().get_bits::<8>(23).all();
                self.b_sign.next = self.s1_b.q.val().get_bit(31);
                self.b_field.next = bit_cast::<EW, 8>(self.s1_b.q.val().get_bits::<8>(23));
                self.b_frac.next = bit_cast::<52, 23>(self.s1_b.q.val().get_bits::<23>(0)) << 29;
                self.b_ones.next = self.s1_b.q.val().get_bits::<8>(23).all();
            }
            _ => {
                self.t_mask.next = self.mask[3].val();
                self.t_sign.next = self.sign[3].val();
                self.t_inf.next = self.inf[3].val();
                self.t_cnan.next = self.cnan[3].val();
                self.a_sign.next = self.s1_a.q.val().get_bit(63);
                self.a_field.next = self.s1_a.q.val().get_bits::<EW>(52);
                self.a_frac.next = self.s1_a.q.val().get_bits::<52>(0);
                self.a_ones.next = self.s1_a.q.val().get_bits::<EW>(52).all();
                self.b_sign.next = self.s1_b.q.val().get_bit(63);
                self.b_field.next = self.s1_b.q.val().get_bits::<EW>(52);
                self.b_frac.next = self.s1_b.q.val().get_bits::<52>(0);
                self.b_ones.next = self.s1_b.q.val().get_bits::<EW>(52).all();
            }
        }
        self.a_elem.next = self.s1_a.q.val() & self.t_mask.val();
        self.b_elem.next = self.s1_b.q.val() & self.t_mask.val();
        self.a_ez.next = !self.a_field.val().any();
        self.b_ez.next = !self.b_field.val().any();
        self.a_fz.next = !self.a_frac.val().any();
        self.b_fz.next = !self.b_frac.val().any();
        self.a_nan.next = self.a_ones.val() & !self.a_fz.val();
        self.b_nan.next = self.b_ones.val() & !self.b_fz.val();
        self.a_inf.next = self.a_ones.val() & self.a_fz.val();
        self.b_inf.next = self.b_ones.val() & self.b_fz.val();
        self.a_zero.next = self.a_ez.val() & self.a_fz.val();
        self.b_zero.next = self.b_ez.val() & self.b_fz.val();
        self.a_sig.next = bit_cast::<SW, 52>(self.a_frac.val());
        if !self.a_ez.val() {
            self.a_sig.next = bit_cast::<SW, 52>(self.a_frac.val()) | self.hidden.val();
        }
        self.b_sig.next = bit_cast::<SW, 52>(self.b_frac.val());
        if !self.b_ez.val() {
            self.b_sig.next = bit_cast::<SW, 52>(self.b_frac.val()) | self.hidden.val();
        }
        self.a_eff.next = self.a_field.val();
        if self.a_ez.val() {
            self.a_eff.next = 1.into();
        }
        self.b_eff.next = self.b_field.val();
        if self.b_ez.val() {
            self.b_eff.next = 1.into();
        }

        // SUM: the larger magnitude first (equal magnitudes in either order give the same
        // sum), the other shifted right by the difference of the exponents.
        self.a_mag.next =
            (bit_cast::<63, EW>(self.a_field.val()) << 52) | bit_cast::<63, 52>(self.a_frac.val());
        self.b_mag.next =
            (bit_cast::<63, EW>(self.b_field.val()) << 52) | bit_cast::<63, 52>(self.b_frac.val());
        self.a_ge.next = self.a_mag.val() >= self.b_mag.val();
        self.s2_big.d.next = self.b_sig.val();
        self.s2_small.d.next = self.a_sig.val();
        self.s2_eff.d.next = self.b_eff.val();
        self.diff_raw.next = self.b_eff.val() - self.a_eff.val();
        self.big_sign.next = self.b_sign.val();
        if self.a_ge.val() {
            self.s2_big.d.next = self.a_sig.val();
            self.s2_small.d.next = self.b_sig.val();
            self.s2_eff.d.next = self.a_eff.val();
            self.diff_raw.next = self.a_eff.val() - self.b_eff.val();
            self.big_sign.next = self.a_sign.val();
        }
        self.s2_diff.d.next = bit_cast::<6, EW>(self.diff_raw.val());
        if self.diff_raw.val() > 63 {
            self.s2_diff.d.next = 63.into();
        }
        self.s2_sub.d.next = self.a_sign.val() ^ self.b_sign.val();
        self.s2_sign.d.next = self.big_sign.val();
        if self.s1_op.q.val() == self.op_prod.val() {
            self.s2_sign.d.next = self.a_sign.val() ^ self.b_sign.val();
        }

        // PROD: each significand normalised to a word with its leading one at bit 63 (a
        // normal number's hidden bit is there already; a subnormal's leading zeros are
        // counted by halves), so that the product's leading one is at bit 127 or 126.
        // `X = 2048 + field - zeros` is the operand's biased exponent of its leading one,
        // offset by 2048 (a subnormal fp64 goes down to 2048 - 51).
        self.a_n0.next = bit_cast::<W, SW>(self.a_sig.val()) << 11;
        self.a_z5.next = (!self.a_n0.val().get_bits::<32>(32).any()).into();
        self.a_n1.next = self.a_n0.val();
        if self.a_z5.val().any() {
            self.a_n1.next = self.a_n0.val() << 32;
        }
        self.a_z4.next = (!self.a_n1.val().get_bits::<16>(48).any()).into();
        self.a_n2.next = self.a_n1.val();
        if self.a_z4.val().any() {
            self.a_n2.next = self.a_n1.val() << 16;
        }
        self.a_z3.next = (!self.a_n2.val().get_bits::<8>(56).any()).into();
        self.a_n3.next = self.a_n2.val();
        if self.a_z3.val().any() {
            self.a_n3.next = self.a_n2.val() << 8;
        }
        self.a_z2.next = (!self.a_n3.val().get_bits::<4>(60).any()).into();
        self.a_n4.next = self.a_n3.val();
        if self.a_z2.val().any() {
            self.a_n4.next = self.a_n3.val() << 4;
        }
        self.a_z1.next = (!self.a_n4.val().get_bits::<2>(62).any()).into();
        self.a_n5.next = self.a_n4.val();
        if self.a_z1.val().any() {
            self.a_n5.next = self.a_n4.val() << 2;
        }
        self.a_z0.next = (!self.a_n5.val().get_bit(63)).into();
        self.a_n6.next = self.a_n5.val();
        if self.a_z0.val().any() {
            self.a_n6.next = self.a_n5.val() << 1;
        }
        self.a_lz.next = (bit_cast::<XW, 1>(self.a_z5.val()) << 5)
            | (bit_cast::<XW, 1>(self.a_z4.val()) << 4)
            | (bit_cast::<XW, 1>(self.a_z3.val()) << 3)
            | (bit_cast::<XW, 1>(self.a_z2.val()) << 2)
            | (bit_cast::<XW, 1>(self.a_z1.val()) << 1)
            | bit_cast::<XW, 1>(self.a_z0.val());
        self.b_n0.next = bit_cast::<W, SW>(self.b_sig.val()) << 11;
        self.b_z5.next = (!self.b_n0.val().get_bits::<32>(32).any()).into();
        self.b_n1.next = self.b_n0.val();
        if self.b_z5.val().any() {
            self.b_n1.next = self.b_n0.val() << 32;
        }
        self.b_z4.next = (!self.b_n1.val().get_bits::<16>(48).any()).into();
        self.b_n2.next = self.b_n1.val();
        if self.b_z4.val().any() {
            self.b_n2.next = self.b_n1.val() << 16;
        }
        self.b_z3.next = (!self.b_n2.val().get_bits::<8>(56).any()).into();
        self.b_n3.next = self.b_n2.val();
        if self.b_z3.val().any() {
            self.b_n3.next = self.b_n2.val() << 8;
        }
        self.b_z2.next = (!self.b_n3.val().get_bits::<4>(60).any()).into();
        self.b_n4.next = self.b_n3.val();
        if self.b_z2.val().any() {
            self.b_n4.next = self.b_n3.val() << 4;
        }
        self.b_z1.next = (!self.b_n4.val().get_bits::<2>(62).any()).into();
        self.b_n5.next = self.b_n4.val();
        if self.b_z1.val().any() {
            self.b_n5.next = self.b_n4.val() << 2;
        }
        self.b_z0.next = (!self.b_n5.val().get_bit(63)).into();
        self.b_n6.next = self.b_n5.val();
        if self.b_z0.val().any() {
            self.b_n6.next = self.b_n5.val() << 1;
        }
        self.b_lz.next = (bit_cast::<XW, 1>(self.b_z5.val()) << 5)
            | (bit_cast::<XW, 1>(self.b_z4.val()) << 4)
            | (bit_cast::<XW, 1>(self.b_z3.val()) << 3)
            | (bit_cast::<XW, 1>(self.b_z2.val()) << 2)
            | (bit_cast::<XW, 1>(self.b_z1.val()) << 1)
            | bit_cast::<XW, 1>(self.b_z0.val());
        self.s2_xa.d.next = bit_cast::<XW, EW>(self.a_eff.val()) + 2048 - self.a_lz.val();
        self.s2_xb.d.next = bit_cast::<XW, EW>(self.b_eff.val()) + 2048 - self.b_lz.val();
        self.da[0].next = self.a_n6.val().get_bits::<16>(0);
        self.da[1].next = self.a_n6.val().get_bits::<16>(16);
        self.da[2].next = self.a_n6.val().get_bits::<16>(32);
        self.da[3].next = self.a_n6.val().get_bits::<16>(48);
        self.db[0].next = self.b_n6.val().get_bits::<16>(0);
        self.db[1].next = self.b_n6.val().get_bits::<16>(16);
        self.db[2].next = self.b_n6.val().get_bits::<16>(32);
        self.db[3].next = self.b_n6.val().get_bits::<16>(48);
        for i in 0..4 {
            for j in 0..4 {
                self.mul[i * 4 + j].clock.next = self.clock.val();
                self.mul[i * 4 + j].reset.next = self.reset.val();
                self.mul[i * 4 + j].a.next = self.da[i].val();
                self.mul[i * 4 + j].b.next = self.db[j].val();
            }
        }

        // The result when the classes decide it (fp_bits::add / mul's first cases), or 0 for
        // a reserved operation; MIN / MAX overwrite it in stage 4.
        self.s2_arith.d.next = false;
        self.s2_val.d.next = self.zero.val();
        if self.s1_op.q.val() == self.op_sum.val() {
            self.s2_arith.d.next = true;
            if self.a_nan.val()
                | self.b_nan.val()
                | (self.a_inf.val() & self.b_inf.val() & (self.a_sign.val() ^ self.b_sign.val()))
            {
                self.s2_arith.d.next = false;
                self.s2_val.d.next = self.t_cnan.val();
            } else if self.a_inf.val() {
                self.s2_arith.d.next = false;
                self.s2_val.d.next = self.t_inf.val();
                if self.a_sign.val() {
                    self.s2_val.d.next = self.t_inf.val() | self.t_sign.val();
                }
            } else if self.b_inf.val() {
                self.s2_arith.d.next = false;
                self.s2_val.d.next = self.t_inf.val();
                if self.b_sign.val() {
                    self.s2_val.d.next = self.t_inf.val() | self.t_sign.val();
                }
            } else if self.a_zero.val() & self.b_zero.val() {
                // -0 only if both are -0.
                self.s2_arith.d.next = false;
                if self.a_sign.val() & self.b_sign.val() {
                    self.s2_val.d.next = self.t_sign.val();
                }
            }
        } else if self.s1_op.q.val() == self.op_prod.val() {
            self.s2_arith.d.next = true;
            if self.a_nan.val()
                | self.b_nan.val()
                | (self.a_inf.val() & self.b_zero.val())
                | (self.a_zero.val() & self.b_inf.val())
            {
                self.s2_arith.d.next = false;
                self.s2_val.d.next = self.t_cnan.val();
            } else if self.a_inf.val() | self.b_inf.val() {
                self.s2_arith.d.next = false;
                self.s2_val.d.next = self.t_inf.val();
                if self.a_sign.val() ^ self.b_sign.val() {
                    self.s2_val.d.next = self.t_inf.val() | self.t_sign.val();
                }
            } else if self.a_zero.val() | self.b_zero.val() {
                self.s2_arith.d.next = false;
                if self.a_sign.val() ^ self.b_sign.val() {
                    self.s2_val.d.next = self.t_sign.val();
                }
            }
        }

        // MIN / MAX: keys as fp_bits::key (a positive number with its sign bit set, a
        // negative one inverted), compared by quarters.
        self.a_key.next = self.a_elem.val() | self.t_sign.val();
        if self.a_sign.val() {
            self.a_key.next = !self.a_elem.val() & self.t_mask.val();
        }
        self.b_key.next = self.b_elem.val() | self.t_sign.val();
        if self.b_sign.val() {
            self.b_key.next = !self.b_elem.val() & self.t_mask.val();
        }
        self.s2_k0_gt.d.next =
            self.a_key.val().get_bits::<16>(0) > self.b_key.val().get_bits::<16>(0);
        self.s2_k0_lt.d.next =
            self.a_key.val().get_bits::<16>(0) < self.b_key.val().get_bits::<16>(0);
        self.s2_k1_gt.d.next =
            self.a_key.val().get_bits::<16>(16) > self.b_key.val().get_bits::<16>(16);
        self.s2_k1_lt.d.next =
            self.a_key.val().get_bits::<16>(16) < self.b_key.val().get_bits::<16>(16);
        self.s2_k2_gt.d.next =
            self.a_key.val().get_bits::<16>(32) > self.b_key.val().get_bits::<16>(32);
        self.s2_k2_lt.d.next =
            self.a_key.val().get_bits::<16>(32) < self.b_key.val().get_bits::<16>(32);
        self.s2_k3_gt.d.next =
            self.a_key.val().get_bits::<16>(48) > self.b_key.val().get_bits::<16>(48);
        self.s2_k3_lt.d.next =
            self.a_key.val().get_bits::<16>(48) < self.b_key.val().get_bits::<16>(48);
        self.s2_i0_gt.d.next =
            self.s1_bi.q.val().get_bits::<16>(0) > self.s1_ai.q.val().get_bits::<16>(0);
        self.s2_i0_lt.d.next =
            self.s1_bi.q.val().get_bits::<16>(0) < self.s1_ai.q.val().get_bits::<16>(0);
        self.s2_i1_gt.d.next =
            self.s1_bi.q.val().get_bits::<16>(16) > self.s1_ai.q.val().get_bits::<16>(16);
        self.s2_i1_lt.d.next =
            self.s1_bi.q.val().get_bits::<16>(16) < self.s1_ai.q.val().get_bits::<16>(16);
        self.s2_i2_gt.d.next =
            self.s1_bi.q.val().get_bits::<16>(32) > self.s1_ai.q.val().get_bits::<16>(32);
        self.s2_i2_lt.d.next =
            self.s1_bi.q.val().get_bits::<16>(32) < self.s1_ai.q.val().get_bits::<16>(32);
        self.s2_i3_gt.d.next =
            self.s1_bi.q.val().get_bits::<16>(48) > self.s1_ai.q.val().get_bits::<16>(48);
        self.s2_i3_lt.d.next =
            self.s1_bi.q.val().get_bits::<16>(48) < self.s1_ai.q.val().get_bits::<16>(48);
        self.s2_ea.d.next = self.a_elem.val();
        if self.a_nan.val() {
            self.s2_ea.d.next = self.t_cnan.val();
        }
        self.s2_eb.d.next = self.b_elem.val();
        self.s2_anan.d.next = self.a_nan.val();
        self.s2_bnan.d.next = self.b_nan.val();
        self.s2_ai.d.next = self.s1_ai.q.val();
        self.s2_bi.d.next = self.s1_bi.q.val();
        self.s2_fmt.d.next = self.s1_fmt.q.val();
        self.s2_op.d.next = self.s1_op.q.val();

        // ---- Stage 3. SUM: the smaller significand aligned, with guard, round and sticky
        // bits below the larger one's lowest bit (fp_bits::add's GUARD = 3).
        self.small_w.next = bit_cast::<W, SW>(self.s2_small.q.val()) << 3;
        self.small_al.next = self.small_w.val() >> self.s2_diff.q.val();
        self.small_lost.next =
            (self.small_w.val() & !(self.ones.val() << self.s2_diff.q.val())).any();
        self.s3_small.d.next = self.small_al.val();
        if self.small_lost.val() {
            self.s3_small.d.next = self.small_al.val() | 1;
        }
        self.s3_big.d.next = self.s2_big.q.val();
        self.s3_sub.d.next = self.s2_sub.q.val();
        // R for the sum word (larger significand's hidden bit at 55, so a leading one at
        // bit 63 is 8 binades above the larger operand's), or for a product below 2.
        match self.s2_fmt.q.val().index() {
            0 => {
                self.t_bias.next = self.bias[0].val();
            }
            1 => {
                self.t_bias.next = self.bias[1].val();
            }
            2 => {
                self.t_bias.next = self.bias[2].val();
            }
            _ => {
                self.t_bias.next = self.bias[3].val();
            }
        }
        self.s3_exp.d.next = bit_cast::<XW, EW>(self.s2_eff.q.val()) + 4104;
        if self.s2_op.q.val() == self.op_prod.val() {
            self.s3_exp.d.next = self.s2_xa.q.val() + self.s2_xb.q.val() - self.t_bias.val();
        }
        // MIN / MAX: the most significant unequal quarter decides.
        self.s3_a_gt.d.next = self.s2_k3_gt.q.val()
            | (!self.s2_k3_lt.q.val()
                & (self.s2_k2_gt.q.val()
                    | (!self.s2_k2_lt.q.val()
                        & (self.s2_k1_gt.q.val()
                            | (!self.s2_k1_lt.q.val() & self.s2_k0_gt.q.val())))));
        self.s3_a_lt.d.next = self.s2_k3_lt.q.val()
            | (!self.s2_k3_gt.q.val()
                & (self.s2_k2_lt.q.val()
                    | (!self.s2_k2_gt.q.val()
                        & (self.s2_k1_lt.q.val()
                            | (!self.s2_k1_gt.q.val() & self.s2_k0_lt.q.val())))));
        self.s3_bi_lt_ai.d.next = self.s2_i3_lt.q.val()
            | (!self.s2_i3_gt.q.val()
                & (self.s2_i2_lt.q.val()
                    | (!self.s2_i2_gt.q.val()
                        & (self.s2_i1_lt.q.val()
                            | (!self.s2_i1_gt.q.val() & self.s2_i0_lt.q.val())))));
        self.s3_ea.d.next = self.s2_ea.q.val();
        self.s3_eb.d.next = self.s2_eb.q.val();
        self.s3_anan.d.next = self.s2_anan.q.val();
        self.s3_bnan.d.next = self.s2_bnan.q.val();
        self.s3_ai.d.next = self.s2_ai.q.val();
        self.s3_bi.d.next = self.s2_bi.q.val();
        self.s3_arith.d.next = self.s2_arith.q.val();
        self.s3_val.d.next = self.s2_val.q.val();
        self.s3_sign.d.next = self.s2_sign.q.val();
        self.s3_fmt.d.next = self.s2_fmt.q.val();
        self.s3_op.d.next = self.s2_op.q.val();

        // ---- Stage 4. SUM: |big| >= |small|, so the difference is never negative.
        self.big_w.next = bit_cast::<W, SW>(self.s3_big.q.val()) << 3;
        self.s4_sum.d.next = self.big_w.val() + self.s3_small.q.val();
        if self.s3_sub.q.val() {
            self.s4_sum.d.next = self.big_w.val() - self.s3_small.q.val();
        }
        // PROD: product (i, j) has weight 2^(16 (i + j)); products whose weights differ by
        // 2^32 or more do not overlap, so each row is a concatenation, no adder.
        self.row[0].next = bit_cast::<PW, 32>(self.mul[0].p.val())
            | (bit_cast::<PW, 32>(self.mul[5].p.val()) << 32)
            | (bit_cast::<PW, 32>(self.mul[10].p.val()) << 64)
            | (bit_cast::<PW, 32>(self.mul[15].p.val()) << 96);
        self.row[1].next = (bit_cast::<PW, 32>(self.mul[2].p.val()) << 32)
            | (bit_cast::<PW, 32>(self.mul[7].p.val()) << 64);
        self.row[2].next = (bit_cast::<PW, 32>(self.mul[8].p.val()) << 32)
            | (bit_cast::<PW, 32>(self.mul[13].p.val()) << 64);
        self.row[3].next = (bit_cast::<PW, 32>(self.mul[1].p.val()) << 16)
            | (bit_cast::<PW, 32>(self.mul[6].p.val()) << 48)
            | (bit_cast::<PW, 32>(self.mul[11].p.val()) << 80);
        self.row[4].next = (bit_cast::<PW, 32>(self.mul[4].p.val()) << 16)
            | (bit_cast::<PW, 32>(self.mul[9].p.val()) << 48)
            | (bit_cast::<PW, 32>(self.mul[14].p.val()) << 80);
        self.row[5].next = bit_cast::<PW, 32>(self.mul[3].p.val()) << 48;
        self.row[6].next = bit_cast::<PW, 32>(self.mul[12].p.val()) << 48;
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
        self.s4_pa.d.next = self.l3_s.val() ^ self.l3_c.val() ^ self.row[6].val();
        self.s4_pb.d.next = ((self.l3_s.val() & self.l3_c.val())
            | (self.l3_s.val() & self.row[6].val())
            | (self.l3_c.val() & self.row[6].val()))
            << 1;
        // MIN, MAX, MINLOC, MAXLOC (fp_bits::select): a number beats a NaN, between numbers
        // the keys decide; otherwise (equal bits, or two NaNs, when `s3_ea` is the canonical
        // NaN) `a`'s value with the lower index.
        self.is_max.next = (self.s3_op.q.val() == self.op_max.val())
            | (self.s3_op.q.val() == self.op_maxloc.val());
        self.a_better.next = self.s3_a_lt.q.val();
        self.b_better.next = self.s3_a_gt.q.val();
        if self.is_max.val() {
            self.a_better.next = self.s3_a_gt.q.val();
            self.b_better.next = self.s3_a_lt.q.val();
        }
        self.take_a.next = !self.s3_anan.q.val() & (self.s3_bnan.q.val() | self.a_better.val());
        self.take_b.next = !self.s3_bnan.q.val() & (self.s3_anan.q.val() | self.b_better.val());
        self.imin.next = self.s3_ai.q.val();
        if self.s3_bi_lt_ai.q.val() {
            self.imin.next = self.s3_bi.q.val();
        }
        self.sel_v.next = self.s3_ea.q.val();
        self.sel_i.next = self.imin.val();
        if self.take_a.val() {
            self.sel_i.next = self.s3_ai.q.val();
        } else if self.take_b.val() {
            self.sel_v.next = self.s3_eb.q.val();
            self.sel_i.next = self.s3_bi.q.val();
        }
        self.s4_arith.d.next = self.s3_arith.q.val();
        self.s4_val.d.next = self.s3_val.q.val();
        self.s4_index.d.next = self.zero.val();
        if self.s3_op.q.val() <= self.op_minloc.val() {
            self.s4_val.d.next = self.sel_v.val();
            if self.s3_op.q.val() >= self.op_maxloc.val() {
                self.s4_index.d.next = self.sel_i.val();
            }
        }
        self.s4_is_sum.d.next = self.s3_op.q.val() == self.op_sum.val();
        self.s4_is_prod.d.next = self.s3_op.q.val() == self.op_prod.val();
        self.s4_sign.d.next = self.s3_sign.q.val();
        self.s4_exp.d.next = self.s3_exp.q.val();
        self.s4_fmt.d.next = self.s3_fmt.q.val();

        // ---- Stage 5. SUM: the leading one to bit 63, by halves.
        self.m0.next = self.s4_sum.q.val();
        self.mz5.next = (!self.m0.val().get_bits::<32>(32).any()).into();
        self.m1.next = self.m0.val();
        if self.mz5.val().any() {
            self.m1.next = self.m0.val() << 32;
        }
        self.mz4.next = (!self.m1.val().get_bits::<16>(48).any()).into();
        self.m2.next = self.m1.val();
        if self.mz4.val().any() {
            self.m2.next = self.m1.val() << 16;
        }
        self.mz3.next = (!self.m2.val().get_bits::<8>(56).any()).into();
        self.m3.next = self.m2.val();
        if self.mz3.val().any() {
            self.m3.next = self.m2.val() << 8;
        }
        self.mz2.next = (!self.m3.val().get_bits::<4>(60).any()).into();
        self.m4.next = self.m3.val();
        if self.mz2.val().any() {
            self.m4.next = self.m3.val() << 4;
        }
        self.mz1.next = (!self.m4.val().get_bits::<2>(62).any()).into();
        self.m5.next = self.m4.val();
        if self.mz1.val().any() {
            self.m5.next = self.m4.val() << 2;
        }
        self.mz0.next = (!self.m5.val().get_bit(63)).into();
        self.m6.next = self.m5.val();
        if self.mz0.val().any() {
            self.m6.next = self.m5.val() << 1;
        }
        self.m_lz.next = (bit_cast::<XW, 1>(self.mz5.val()) << 5)
            | (bit_cast::<XW, 1>(self.mz4.val()) << 4)
            | (bit_cast::<XW, 1>(self.mz3.val()) << 3)
            | (bit_cast::<XW, 1>(self.mz2.val()) << 2)
            | (bit_cast::<XW, 1>(self.mz1.val()) << 1)
            | bit_cast::<XW, 1>(self.mz0.val());
        // PROD: the rows added; the top 64 bits from the leading one down, the rest a sticky
        // bit (the rounding position is at bit 10 or above, far from bit 0).
        self.prod.next = self.s4_pa.q.val() + self.s4_pb.q.val();
        self.p_top.next = self.prod.val().get_bit(127);
        self.p_sig.next = self.prod.val().get_bits::<W>(63);
        self.p_sticky.next = self.prod.val().get_bits::<63>(0).any();
        if self.p_top.val() {
            self.p_sig.next = self.prod.val().get_bits::<W>(64);
            self.p_sticky.next = self.prod.val().get_bits::<W>(0).any();
        }
        self.s5_sig.d.next = self.m6.val();
        self.s5_exp.d.next = self.s4_exp.q.val() - self.m_lz.val();
        if self.s4_is_prod.q.val() {
            self.s5_sig.d.next = self.p_sig.val();
            if self.p_sticky.val() {
                self.s5_sig.d.next = self.p_sig.val() | 1;
            }
            self.s5_exp.d.next = self.s4_exp.q.val() + self.p_top.val();
        }
        // An exact cancellation is +0 (rounding to nearest).
        self.s5_arith.d.next =
            self.s4_arith.q.val() & !(self.s4_is_sum.q.val() & !self.s4_sum.q.val().any());
        self.s5_val.d.next = self.s4_val.q.val();
        self.s5_index.d.next = self.s4_index.q.val();
        self.s5_sign.d.next = self.s4_sign.q.val();
        self.s5_fmt.d.next = self.s4_fmt.q.val();

        // ---- Output: round and pack (fp_bits::round_pack). B = R - 4096 below 1 is a
        // subnormal: shift right by 1 - B more (at most 64: beyond, everything is sticky and
        // the result 0 for every type), the exponent field 0.
        self.subn.next = self.s5_exp.q.val() < 4097;
        self.dn.next = 4097 - self.s5_exp.q.val();
        self.dsh.next = 0.into();
        if self.subn.val() {
            self.dsh.next = bit_cast::<7, XW>(self.dn.val());
            if self.dn.val() > 64 {
                self.dsh.next = 64.into();
            }
        }
        self.u.next = self.s5_sig.q.val() >> self.dsh.val();
        self.lost.next = (self.s5_sig.q.val() & !(self.ones.val() << self.dsh.val())).any();
        // B - 1 at the exponent field's width (only used when 1 <= B < the all-ones field).
        self.em1.next = bit_cast::<EW, XW>(self.s5_exp.q.val()) - 1;
        // The type's p bits from bit 63 down, the round bit below them, the sticky bits.
        match self.s5_fmt.q.val().index() {
            0 => {
                self.q.next = self.u.val() >> 53;
                self.lsb.next = self.u.val().get_bit(53);
                self.rb.next = self.u.val().get_bit(52);
                self.st.next = self.u.val().get_bits::<52>(0).any();
                self.ex.next = bit_cast::<W, EW>(self.em1.val()) << 10;
                self.ovf.next = self.s5_exp.q.val() >= self.r_inf[0].val();
                self.o_inf.next = self.inf[0].val();
                self.o_sign.next = self.sign[0].val();
            }
            1 => {
                self.q.next = self.u.val() >> 56;
                self.lsb.next = self.u.val().get_bit(56);
                self.rb.next = self.u.val().get_bit(55);
                self.st.next = self.u.val().get_bits::<55>(0).any();
                self.ex.next = bit_cast::<W, EW>(self.em1.val()) << 7;
                self.ovf.next = self.s5_exp.q.val() >= self.r_inf[1].val();
                self.o_inf.next = self.inf[1].val();
                self.o_sign.next = self.sign[1].val();
            }
            2 => {
                self.q.next = self.u.val() >> 40;
                self.lsb.next = self.u.val().get_bit(40);
                self.rb.next = self.u.val().get_bit(39);
                self.st.next = self.u.val().get_bits::<39>(0).any();
                self.ex.next = bit_cast::<W, EW>(self.em1.val()) << 23;
                self.ovf.next = self.s5_exp.q.val() >= self.r_inf[2].val();
                self.o_inf.next = self.inf[2].val();
                self.o_sign.next = self.sign[2].val();
            }
            _ => {
                self.q.next = self.u.val() >> 11;
                self.lsb.next = self.u.val().get_bit(11);
                self.rb.next = self.u.val().get_bit(10);
                self.st.next = self.u.val().get_bits::<10>(0).any();
                self.ex.next = bit_cast::<W, EW>(self.em1.val()) << 52;
                self.ovf.next = self.s5_exp.q.val() >= self.r_inf[3].val();
                self.o_inf.next = self.inf[3].val();
                self.o_sign.next = self.sign[3].val();
            }
        }
        // Nearest, ties to even; a carry out of the significand lands in the exponent field
        // (the next binade, the smallest normal, or infinity from the largest binade).
        self.packed_word.next =
            self.q.val() + (self.rb.val() & (self.st.val() | self.lost.val() | self.lsb.val()));
        if !self.subn.val() {
            self.packed_word.next = self.ex.val()
                + self.q.val()
                + (self.rb.val() & (self.st.val() | self.lost.val() | self.lsb.val()));
        }
        self.rounded.next = self.packed_word.val();
        if self.ovf.val() {
            self.rounded.next = self.o_inf.val();
        }
        self.o_r.d.next = self.s5_val.q.val();
        if self.s5_arith.q.val() {
            self.o_r.d.next = self.rounded.val();
            if self.s5_sign.q.val() {
                self.o_r.d.next = self.rounded.val() | self.o_sign.val();
            }
        }
        self.o_ri.d.next = self.s5_index.q.val();
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
    /// (`reduce_alu_mul16`) as its only child. To lint it, run this test with `FP_VERILOG_DIR`
    /// set to a directory, which receives one file per module, then
    /// `verilator --lint-only -Wall --top-module reduce_alu_fp *.v` there.
    #[test]
    fn fp_synthesizes() {
        let mut uut = ReduceAluFp::default();
        uut.connect_all();
        let m = crate::emit::emit_with_children(&uut, "reduce_alu_fp", &[], &[])
            .expect("reduce_alu_fp emits");
        if let Ok(dir) = std::env::var("FP_VERILOG_DIR") {
            for module in std::iter::once(&m).chain(&m.children) {
                std::fs::write(format!("{dir}/{}.v", module.name), &module.text)
                    .expect("FP_VERILOG_DIR is writable");
            }
        }
        assert!(m.text.contains("module reduce_alu_fp"));
        let children: Vec<&str> = m.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(children, [crate::prim::mul::MUL16_MODULE]);
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

    /// Register stages: an operation offered at edge `t` is on `r`, `ri` after edge `t + 5`.
    const STAGES: usize = 6;
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

    /// The reference: `fp_bits`, as the module docs map the operations onto it.
    fn expected(o: &Offer) -> (u64, u64) {
        let t = FpType::ALL[o.fmt];
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
    /// the reference for the operation offered five edges earlier.
    struct Bench {
        uut: ReduceAluFp,
        /// The operations of the last edges, oldest first (`None`: lost to a reset).
        pending: VecDeque<Option<Offer>>,
        seed: u64,
        /// Operations compared so far.
        checked: usize,
    }

    impl Bench {
        fn new(seed: u64) -> Self {
            let mut uut = ReduceAluFp::default();
            uut.connect_all();
            let mut b = Bench {
                uut,
                pending: VecDeque::new(),
                seed,
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
                // Everything in flight is lost: the outputs are zero until the next
                // operation comes out.
                self.pending.iter_mut().for_each(|p| *p = None);
            }
            if self.pending.len() == STAGES {
                let due = self.pending.pop_front().expect("six in flight");
                let want = due.as_ref().map_or((0, 0), expected);
                let got = (self.uut.r.val().to_u64(), self.uut.ri.val().to_u64());
                assert_eq!(
                    got,
                    want,
                    "seed {:#x}, after operation {}: (r, ri) of {:?} {} {:x?} (None: zeros \
                     after a reset)",
                    self.seed,
                    self.checked,
                    due.map(|o| FpType::ALL[o.fmt]),
                    due.map_or("-".to_string(), |o| op_name(o.op)),
                    due
                );
                self.checked += usize::from(due.is_some());
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
    /// reserved codes among them), with two resets in the middle, after which the outputs are
    /// zero until the next operation comes out.
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
        // A reset also loses the operations of the five edges before it: five for the
        // first, five for the back-to-back pair.
        assert_eq!(bench.checked, offered - 5 - 5);
    }
}
