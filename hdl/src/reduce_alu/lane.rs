//! # One lane of the reduction ALU (module `reduce_alu_lane`)
//!
//! `r, ri = a op b` for one element, through the six register stages of
//! `netcoll_models::reduce_alu` ("Micro-architecture"): the operands at width and their
//! compare keys (`s1_*`); their compares, sum and 16 × 16 partial products (`s2_*`); the
//! compare ops' choice of value and index, the other results and the products again
//! (`s3_*`); the value and index, and PROD's partly reduced terms (`s4_*`); PROD's sum
//! (`s5_*`); the outputs (`o_*`). The block instantiates one per lane and decodes `op` and
//! `dtype` for all of them, each at the stage that needs it.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; every register resets to zero);
//! - `a`, `ai`, `b`, `bi` (64 bits each): the operands and their indices, as offered;
//! - `in_wmask`, `in_sflip`: the decode of the offered `dtype`: the element's bits; the sign
//!   bit to flip before an unsigned compare (or 0);
//! - `s2_is_sum`, `s2_is_land`, `s2_is_lor`, `s2_is_lxor`, `s2_is_band`, `s2_is_bor`,
//!   `s2_is_bxor`: stage 2's `op` is that operation (registered one-hot, so that the selects
//!   start from registers instead of a decoder shared by every bit of every lane);
//! - `s2_takes_larger`, `s2_takes_smaller`: stage 2's `op` keeps the larger value (MAX,
//!   MAXLOC), the smaller (MIN, MINLOC); `s2_is_maxloc`, `s2_is_minloc`: it is MAXLOC,
//!   MINLOC;
//! - `s5_is_prod`, `s5_wmask`: stage 5's op is PROD; its element mask.
//!
//! # Outputs
//! - `r` (the value, masked to the element width) and `ri` (the index; 0 but for MAXLOC /
//!   MINLOC): registers, six cycles after the operands.
//!
//! # Structure
//! Stage 1: the masked operands `am`, `bm` and their compare keys, registered. Stage 2: their
//! unsigned comparison quarter by quarter (four 16-bit carry chains), the truth values, the
//! sum, and the ten partial products `p{i}{j}` with `i + j <= 3` (rust-hdl multiplies only
//! 16 × 16), each a [`Mul16`] — a DSP block with its own operand and product registers, fed from
//! the operands as offered (unmasked: the output mask makes that the same product). Stage 3: the quarters combined into `a_gt`, `a_lt`,
//! and with the `s2_*` bits of MAX, MIN, MAXLOC, MINLOC into four flags, registered with the
//! operands: which of them is the value (`s3_v_a`, `s3_v_b`) and the index (`s3_i_a`,
//! `s3_i_b`); the result of the ops without a compare as an OR of terms, each selected by its
//! `s2_*` operation bit; the partial products, straight out of the DSP blocks into fabric
//! registers (`s3_p*`). Stage 4: the value and index multiplexed by those flags, ORed with
//! stage 3's result; the partial products,
//! shifted to their weights (`t0` … `t9`), through three levels of 3:2 carry-save adders
//! (`l1_*` … `l3_*`), 10 → 7 → 5 → 4 terms (`s4_row*`). Stage 5: the tree's last two levels
//! (`l4_*`, then `ps`, `pc`) and one 64-bit add, straight from the carry chain into
//! `s5_prod`. Output: PROD's sum or the value, masked. Every select starts from registers (a
//! compare or an op bit drives a whole lane's worth of multiplexers, which costs routing), the
//! routing out of the DSP column has a cycle of its own (2–3 ns on an ECP5), and so do the
//! tree, the add and the final select.

use netcoll_models::reduce_alu::WORD_BITS;
use rust_hdl::prelude::*;

use crate::dff_setup;
use crate::prim::{Mul16, Reg};

const W: usize = WORD_BITS;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

crate::sub_block! {
    /// One lane.
    pub struct ReduceAluLane {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub a: Signal<In, Bits<W>>,
        pub ai: Signal<In, Bits<W>>,
        pub b: Signal<In, Bits<W>>,
        pub bi: Signal<In, Bits<W>>,
        pub in_wmask: Signal<In, Bits<W>>,
        pub in_sflip: Signal<In, Bits<W>>,
        pub s2_is_sum: Signal<In, bool>,
        pub s2_is_land: Signal<In, bool>,
        pub s2_is_lor: Signal<In, bool>,
        pub s2_is_lxor: Signal<In, bool>,
        pub s2_is_band: Signal<In, bool>,
        pub s2_is_bor: Signal<In, bool>,
        pub s2_is_bxor: Signal<In, bool>,
        pub s2_takes_larger: Signal<In, bool>,
        pub s2_takes_smaller: Signal<In, bool>,
        pub s2_is_maxloc: Signal<In, bool>,
        pub s2_is_minloc: Signal<In, bool>,
        pub s5_is_prod: Signal<In, bool>,
        pub s5_wmask: Signal<In, Bits<W>>,
        pub r: Signal<Out, Bits<W>>,
        pub ri: Signal<Out, Bits<W>>,

        // Stage 1: the operands at width, the indices as offered.
        s1_av: Reg<Bits<W>>,
        s1_ai: Reg<Bits<W>>,
        s1_bv: Reg<Bits<W>>,
        s1_bi: Reg<Bits<W>>,
        s1_ak: Reg<Bits<W>>,
        s1_bk: Reg<Bits<W>>,
        // Stage 2; the partial products are multipliers with their own operand registers (a
        // copy of stage 1's) and product register.
        s2_av: Reg<Bits<W>>,
        s2_bv: Reg<Bits<W>>,
        s2_ai: Reg<Bits<W>>,
        s2_bi: Reg<Bits<W>>,
        /// The keys' 16-bit quarters compared separately (four short carry chains instead of
        /// one of 64), combined in stage 3.
        s2_q0_gt: Reg<bool>,
        s2_q0_lt: Reg<bool>,
        s2_q1_gt: Reg<bool>,
        s2_q1_lt: Reg<bool>,
        s2_q2_gt: Reg<bool>,
        s2_q2_lt: Reg<bool>,
        s2_q3_gt: Reg<bool>,
        s2_q3_lt: Reg<bool>,
        s2_bi_lt_ai: Reg<bool>,
        s2_sum: Reg<Bits<W>>,
        s2_at: Reg<bool>,
        s2_bt: Reg<bool>,
        s2_p00: Mul16,
        s2_p01: Mul16,
        s2_p02: Mul16,
        s2_p03: Mul16,
        s2_p10: Mul16,
        s2_p11: Mul16,
        s2_p12: Mul16,
        s2_p20: Mul16,
        s2_p21: Mul16,
        s2_p30: Mul16,
        // Stage 3: the compare ops decided and the operands carried, for stage 4's
        // multiplexers; the result of every op that needs no compare.
        /// The value is `s3_av` (`s3_v_a`), `s3_bv` (`s3_v_b`), or neither (not a compare op);
        /// the index is `s3_ai` (`s3_i_a`), `s3_bi` (`s3_i_b`), or 0. At most one of each pair
        /// is set.
        s3_v_a: Reg<bool>,
        s3_v_b: Reg<bool>,
        s3_i_a: Reg<bool>,
        s3_i_b: Reg<bool>,
        s3_av: Reg<Bits<W>>,
        s3_bv: Reg<Bits<W>>,
        s3_ai: Reg<Bits<W>>,
        s3_bi: Reg<Bits<W>>,
        s3_other: Reg<Bits<W>>,
        /// The partial products, registered in the fabric: the routing out of the DSP column
        /// gets a cycle of its own.
        s3_p00: Reg<Bits<32>>,
        s3_p01: Reg<Bits<32>>,
        s3_p02: Reg<Bits<32>>,
        s3_p03: Reg<Bits<32>>,
        s3_p10: Reg<Bits<32>>,
        s3_p11: Reg<Bits<32>>,
        s3_p12: Reg<Bits<32>>,
        s3_p20: Reg<Bits<32>>,
        s3_p21: Reg<Bits<32>>,
        s3_p30: Reg<Bits<32>>,
        // Stage 4: the carry-save rows, the value and the index.
        s4_row0: Reg<Bits<W>>,
        s4_row1: Reg<Bits<W>>,
        s4_row2: Reg<Bits<W>>,
        s4_row3: Reg<Bits<W>>,
        s4_value: Reg<Bits<W>>,
        s4_index: Reg<Bits<W>>,
        // Stage 5.
        s5_value: Reg<Bits<W>>,
        s5_index: Reg<Bits<W>>,
        s5_prod: Reg<Bits<W>>,
        // Outputs.
        o_r: Reg<Bits<W>>,
        o_ri: Reg<Bits<W>>,

        am: Signal<Local, Bits<W>>,
        a_gt: Signal<Local, bool>,
        a_lt: Signal<Local, bool>,
        bm: Signal<Local, Bits<W>>,
        av: Signal<Local, Bits<W>>,
        bv: Signal<Local, Bits<W>>,
        /// The keys are equal; and `ai`, `bi` is the lower index (which MAXLOC and MINLOC
        /// keep on a tie).
        tie: Signal<Local, bool>,
        tie_ai: Signal<Local, bool>,
        tie_bi: Signal<Local, bool>,
        /// The truth value of the logical operation selected (0 for any other).
        logical: Signal<Local, bool>,
        // The terms of the value and the index, zero unless their operation is selected.
        v_a: Signal<Local, Bits<W>>,
        v_b: Signal<Local, Bits<W>>,
        v_sum: Signal<Local, Bits<W>>,
        v_and: Signal<Local, Bits<W>>,
        v_or: Signal<Local, Bits<W>>,
        v_xor: Signal<Local, Bits<W>>,
        v_logical: Signal<Local, Bits<W>>,
        i_a: Signal<Local, Bits<W>>,
        i_b: Signal<Local, Bits<W>>,
        t0: Signal<Local, Bits<W>>,
        t1: Signal<Local, Bits<W>>,
        t2: Signal<Local, Bits<W>>,
        t3: Signal<Local, Bits<W>>,
        t4: Signal<Local, Bits<W>>,
        t5: Signal<Local, Bits<W>>,
        t6: Signal<Local, Bits<W>>,
        t7: Signal<Local, Bits<W>>,
        t8: Signal<Local, Bits<W>>,
        t9: Signal<Local, Bits<W>>,
        l1_s0: Signal<Local, Bits<W>>,
        l1_c0: Signal<Local, Bits<W>>,
        l1_s1: Signal<Local, Bits<W>>,
        l1_c1: Signal<Local, Bits<W>>,
        l1_s2: Signal<Local, Bits<W>>,
        l1_c2: Signal<Local, Bits<W>>,
        l2_s0: Signal<Local, Bits<W>>,
        l2_c0: Signal<Local, Bits<W>>,
        l2_s1: Signal<Local, Bits<W>>,
        l2_c1: Signal<Local, Bits<W>>,
        l3_s: Signal<Local, Bits<W>>,
        l3_c: Signal<Local, Bits<W>>,
        l4_s: Signal<Local, Bits<W>>,
        l4_c: Signal<Local, Bits<W>>,
        ps: Signal<Local, Bits<W>>,
        pc: Signal<Local, Bits<W>>,

        zero: Constant<Bits<W>> = k(0),
        one: Constant<Bits<W>> = k(1),
    }
}

impl Logic for ReduceAluLane {
    #[hdl_gen]
    fn update(&mut self) {
        // Every stage loads every cycle, valid or not: no enables on the wide registers.
        dff_setup!(
            self,
            clock,
            s1_av,
            s1_ai,
            s1_bv,
            s1_bi,
            s1_ak,
            s1_bk,
            s2_av,
            s2_bv,
            s2_ai,
            s2_bi,
            s2_q0_gt,
            s2_q0_lt,
            s2_q1_gt,
            s2_q1_lt,
            s2_q2_gt,
            s2_q2_lt,
            s2_q3_gt,
            s2_q3_lt,
            s2_bi_lt_ai,
            s2_sum,
            s2_at,
            s2_bt,
            s3_v_a,
            s3_v_b,
            s3_i_a,
            s3_i_b,
            s3_av,
            s3_bv,
            s3_ai,
            s3_bi,
            s3_other,
            s3_p00,
            s3_p01,
            s3_p02,
            s3_p03,
            s3_p10,
            s3_p11,
            s3_p12,
            s3_p20,
            s3_p21,
            s3_p30,
            s4_row0,
            s4_row1,
            s4_row2,
            s4_row3,
            s4_value,
            s4_index,
            s5_value,
            s5_index,
            s5_prod,
            o_r,
            o_ri
        );
        // ---- Stage 1: the operands at width (masked here, so that stage 2's multipliers have
        // registers at their inputs), the indices as offered.
        self.am.next = self.a.val() & self.in_wmask.val();
        self.bm.next = self.b.val() & self.in_wmask.val();
        self.s1_av.d.next = self.am.val();
        self.s1_ai.d.next = self.ai.val();
        self.s1_bv.d.next = self.bm.val();
        self.s1_bi.d.next = self.bi.val();
        // The compare keys: flipping the sign bit maps two's complement order onto unsigned
        // order (done here, so that stage 2's compares start from registers).
        self.s1_ak.d.next = self.am.val() ^ self.in_sflip.val();
        self.s1_bk.d.next = self.bm.val() ^ self.in_sflip.val();

        // ---- Stage 2.
        self.av.next = self.s1_av.q.val();
        self.bv.next = self.s1_bv.q.val();
        self.s2_av.d.next = self.av.val();
        self.s2_bv.d.next = self.bv.val();
        self.s2_ai.d.next = self.s1_ai.q.val();
        self.s2_bi.d.next = self.s1_bi.q.val();
        self.s2_q0_gt.d.next =
            self.s1_ak.q.val().get_bits::<16>(0) > self.s1_bk.q.val().get_bits::<16>(0);
        self.s2_q0_lt.d.next =
            self.s1_ak.q.val().get_bits::<16>(0) < self.s1_bk.q.val().get_bits::<16>(0);
        self.s2_q1_gt.d.next =
            self.s1_ak.q.val().get_bits::<16>(16) > self.s1_bk.q.val().get_bits::<16>(16);
        self.s2_q1_lt.d.next =
            self.s1_ak.q.val().get_bits::<16>(16) < self.s1_bk.q.val().get_bits::<16>(16);
        self.s2_q2_gt.d.next =
            self.s1_ak.q.val().get_bits::<16>(32) > self.s1_bk.q.val().get_bits::<16>(32);
        self.s2_q2_lt.d.next =
            self.s1_ak.q.val().get_bits::<16>(32) < self.s1_bk.q.val().get_bits::<16>(32);
        self.s2_q3_gt.d.next =
            self.s1_ak.q.val().get_bits::<16>(48) > self.s1_bk.q.val().get_bits::<16>(48);
        self.s2_q3_lt.d.next =
            self.s1_ak.q.val().get_bits::<16>(48) < self.s1_bk.q.val().get_bits::<16>(48);
        self.s2_bi_lt_ai.d.next = self.s1_bi.q.val() < self.s1_ai.q.val();
        self.s2_sum.d.next = self.av.val() + self.bv.val();
        self.s2_at.d.next = self.av.val().any();
        self.s2_bt.d.next = self.bv.val().any();
        // The partial products of the 16-bit digits whose weight 2^(16 (i + j)) is below 2^64
        // (of those of weight 2^48 only the low 16 bits count; synthesis drops the rest), from
        // the operands as offered, not masked: a product's low 32 bits depend only on the
        // operands' low 32 bits, and a 32-bit type's result is masked at the output, so the
        // multipliers' inputs need no `dtype` (whose register would otherwise drive 512
        // look-up tables in front of the DSP column). Each registers its own copy of them.
        self.s2_p00.clock.next = self.clock.val();
        self.s2_p00.reset.next = self.reset.val();
        self.s2_p00.a.next = self.a.val().get_bits::<16>(0);
        self.s2_p00.b.next = self.b.val().get_bits::<16>(0);
        self.s2_p01.clock.next = self.clock.val();
        self.s2_p01.reset.next = self.reset.val();
        self.s2_p01.a.next = self.a.val().get_bits::<16>(0);
        self.s2_p01.b.next = self.b.val().get_bits::<16>(16);
        self.s2_p02.clock.next = self.clock.val();
        self.s2_p02.reset.next = self.reset.val();
        self.s2_p02.a.next = self.a.val().get_bits::<16>(0);
        self.s2_p02.b.next = self.b.val().get_bits::<16>(32);
        self.s2_p03.clock.next = self.clock.val();
        self.s2_p03.reset.next = self.reset.val();
        self.s2_p03.a.next = self.a.val().get_bits::<16>(0);
        self.s2_p03.b.next = self.b.val().get_bits::<16>(48);
        self.s2_p10.clock.next = self.clock.val();
        self.s2_p10.reset.next = self.reset.val();
        self.s2_p10.a.next = self.a.val().get_bits::<16>(16);
        self.s2_p10.b.next = self.b.val().get_bits::<16>(0);
        self.s2_p11.clock.next = self.clock.val();
        self.s2_p11.reset.next = self.reset.val();
        self.s2_p11.a.next = self.a.val().get_bits::<16>(16);
        self.s2_p11.b.next = self.b.val().get_bits::<16>(16);
        self.s2_p12.clock.next = self.clock.val();
        self.s2_p12.reset.next = self.reset.val();
        self.s2_p12.a.next = self.a.val().get_bits::<16>(16);
        self.s2_p12.b.next = self.b.val().get_bits::<16>(32);
        self.s2_p20.clock.next = self.clock.val();
        self.s2_p20.reset.next = self.reset.val();
        self.s2_p20.a.next = self.a.val().get_bits::<16>(32);
        self.s2_p20.b.next = self.b.val().get_bits::<16>(0);
        self.s2_p21.clock.next = self.clock.val();
        self.s2_p21.reset.next = self.reset.val();
        self.s2_p21.a.next = self.a.val().get_bits::<16>(32);
        self.s2_p21.b.next = self.b.val().get_bits::<16>(16);
        self.s2_p30.clock.next = self.clock.val();
        self.s2_p30.reset.next = self.reset.val();
        self.s2_p30.a.next = self.a.val().get_bits::<16>(48);
        self.s2_p30.b.next = self.b.val().get_bits::<16>(0);

        // ---- Stage 3: the compares combined (the most significant unequal quarter decides)
        // and, with stage 2's operation bits, the compare ops' choice of value and index,
        // registered: stage 4 only multiplexes, each select starting from a register of its own
        // (the compares used to drive every multiplexer of the value and the index, 8.0 ns of
        // routing in the floating-point ALU). The operands are carried on, and the result of
        // every op that needs no compare is an OR of terms, each selected by its operation bit
        // `s2_is_*` (the compare ops, PROD and the reserved codes select none, so give 0).
        self.a_gt.next = self.s2_q3_gt.q.val()
            | (!self.s2_q3_lt.q.val()
                & (self.s2_q2_gt.q.val()
                    | (!self.s2_q2_lt.q.val()
                        & (self.s2_q1_gt.q.val()
                            | (!self.s2_q1_lt.q.val() & self.s2_q0_gt.q.val())))));
        self.a_lt.next = self.s2_q3_lt.q.val()
            | (!self.s2_q3_gt.q.val()
                & (self.s2_q2_lt.q.val()
                    | (!self.s2_q2_gt.q.val()
                        & (self.s2_q1_lt.q.val()
                            | (!self.s2_q1_gt.q.val() & self.s2_q0_lt.q.val())))));
        // MAX keeps `a` unless it is the smaller, MIN unless it is the larger (on a tie the
        // values are equal); MAXLOC's index is the larger's, MINLOC's the smaller's, and on a
        // tie the lower of the two.
        self.s3_v_a.d.next = (self.s2_takes_larger.val() & !self.a_lt.val())
            | (self.s2_takes_smaller.val() & !self.a_gt.val());
        self.s3_v_b.d.next = (self.s2_takes_larger.val() & self.a_lt.val())
            | (self.s2_takes_smaller.val() & self.a_gt.val());
        self.tie.next = !self.a_gt.val() & !self.a_lt.val();
        self.tie_ai.next = self.tie.val() & !self.s2_bi_lt_ai.q.val();
        self.tie_bi.next = self.tie.val() & self.s2_bi_lt_ai.q.val();
        self.s3_i_a.d.next = (self.s2_is_maxloc.val() & (self.a_gt.val() | self.tie_ai.val()))
            | (self.s2_is_minloc.val() & (self.a_lt.val() | self.tie_ai.val()));
        self.s3_i_b.d.next = (self.s2_is_maxloc.val() & (self.a_lt.val() | self.tie_bi.val()))
            | (self.s2_is_minloc.val() & (self.a_gt.val() | self.tie_bi.val()));
        self.s3_av.d.next = self.s2_av.q.val();
        self.s3_bv.d.next = self.s2_bv.q.val();
        self.s3_ai.d.next = self.s2_ai.q.val();
        self.s3_bi.d.next = self.s2_bi.q.val();
        self.logical.next = (self.s2_is_land.val() & self.s2_at.q.val() & self.s2_bt.q.val())
            | (self.s2_is_lor.val() & (self.s2_at.q.val() | self.s2_bt.q.val()))
            | (self.s2_is_lxor.val() & (self.s2_at.q.val() ^ self.s2_bt.q.val()));
        self.v_sum.next = self.zero.val();
        if self.s2_is_sum.val() {
            self.v_sum.next = self.s2_sum.q.val();
        }
        self.v_and.next = self.zero.val();
        if self.s2_is_band.val() {
            self.v_and.next = self.s2_av.q.val() & self.s2_bv.q.val();
        }
        self.v_or.next = self.zero.val();
        if self.s2_is_bor.val() {
            self.v_or.next = self.s2_av.q.val() | self.s2_bv.q.val();
        }
        self.v_xor.next = self.zero.val();
        if self.s2_is_bxor.val() {
            self.v_xor.next = self.s2_av.q.val() ^ self.s2_bv.q.val();
        }
        self.v_logical.next = self.zero.val();
        if self.logical.val() {
            self.v_logical.next = self.one.val();
        }
        self.s3_other.d.next = self.v_sum.val()
            | self.v_and.val()
            | self.v_or.val()
            | self.v_xor.val()
            | self.v_logical.val();

        // ---- Stage 3: the partial products, straight from the DSP blocks into the fabric.
        self.s3_p00.d.next = self.s2_p00.p.val();
        self.s3_p01.d.next = self.s2_p01.p.val();
        self.s3_p02.d.next = self.s2_p02.p.val();
        self.s3_p03.d.next = self.s2_p03.p.val();
        self.s3_p10.d.next = self.s2_p10.p.val();
        self.s3_p11.d.next = self.s2_p11.p.val();
        self.s3_p12.d.next = self.s2_p12.p.val();
        self.s3_p20.d.next = self.s2_p20.p.val();
        self.s3_p21.d.next = self.s2_p21.p.val();
        self.s3_p30.d.next = self.s2_p30.p.val();

        // ---- Stage 4: the product's terms at their weights, modulo 2^64, and the carry-save
        // tree's first three levels, 10 → 7 → 5 → 4 (x + y + z = (x ^ y ^ z) +
        // (majority(x, y, z) << 1)).
        self.t0.next = bit_cast::<64, 32>(self.s3_p00.q.val());
        self.t1.next = bit_cast::<64, 32>(self.s3_p01.q.val()) << 16;
        self.t2.next = bit_cast::<64, 32>(self.s3_p02.q.val()) << 32;
        self.t3.next = bit_cast::<64, 32>(self.s3_p03.q.val()) << 48;
        self.t4.next = bit_cast::<64, 32>(self.s3_p10.q.val()) << 16;
        self.t5.next = bit_cast::<64, 32>(self.s3_p11.q.val()) << 32;
        self.t6.next = bit_cast::<64, 32>(self.s3_p12.q.val()) << 48;
        self.t7.next = bit_cast::<64, 32>(self.s3_p20.q.val()) << 32;
        self.t8.next = bit_cast::<64, 32>(self.s3_p21.q.val()) << 48;
        self.t9.next = bit_cast::<64, 32>(self.s3_p30.q.val()) << 48;
        self.l1_s0.next = self.t0.val() ^ self.t1.val() ^ self.t2.val();
        self.l1_c0.next = ((self.t0.val() & self.t1.val())
            | (self.t0.val() & self.t2.val())
            | (self.t1.val() & self.t2.val()))
            << 1;
        self.l1_s1.next = self.t3.val() ^ self.t4.val() ^ self.t5.val();
        self.l1_c1.next = ((self.t3.val() & self.t4.val())
            | (self.t3.val() & self.t5.val())
            | (self.t4.val() & self.t5.val()))
            << 1;
        self.l1_s2.next = self.t6.val() ^ self.t7.val() ^ self.t8.val();
        self.l1_c2.next = ((self.t6.val() & self.t7.val())
            | (self.t6.val() & self.t8.val())
            | (self.t7.val() & self.t8.val()))
            << 1;
        self.l2_s0.next = self.l1_s0.val() ^ self.l1_c0.val() ^ self.l1_s1.val();
        self.l2_c0.next = ((self.l1_s0.val() & self.l1_c0.val())
            | (self.l1_s0.val() & self.l1_s1.val())
            | (self.l1_c0.val() & self.l1_s1.val()))
            << 1;
        self.l2_s1.next = self.l1_c1.val() ^ self.l1_s2.val() ^ self.l1_c2.val();
        self.l2_c1.next = ((self.l1_c1.val() & self.l1_s2.val())
            | (self.l1_c1.val() & self.l1_c2.val())
            | (self.l1_s2.val() & self.l1_c2.val()))
            << 1;
        self.l3_s.next = self.l2_s0.val() ^ self.l2_c0.val() ^ self.l2_s1.val();
        self.l3_c.next = ((self.l2_s0.val() & self.l2_c0.val())
            | (self.l2_s0.val() & self.l2_s1.val())
            | (self.l2_c0.val() & self.l2_s1.val()))
            << 1;
        self.s4_row0.d.next = self.l3_s.val();
        self.s4_row1.d.next = self.l3_c.val();
        self.s4_row2.d.next = self.l2_c1.val();
        self.s4_row3.d.next = self.t9.val();

        // ---- Stage 5: the tree's last two levels, 4 → 3 → 2, then PROD's one add, straight
        // into its register; value and index carried on.
        self.l4_s.next = self.s4_row0.q.val() ^ self.s4_row1.q.val() ^ self.s4_row2.q.val();
        self.l4_c.next = ((self.s4_row0.q.val() & self.s4_row1.q.val())
            | (self.s4_row0.q.val() & self.s4_row2.q.val())
            | (self.s4_row1.q.val() & self.s4_row2.q.val()))
            << 1;
        self.ps.next = self.l4_s.val() ^ self.l4_c.val() ^ self.s4_row3.q.val();
        self.pc.next = ((self.l4_s.val() & self.l4_c.val())
            | (self.l4_s.val() & self.s4_row3.q.val())
            | (self.l4_c.val() & self.s4_row3.q.val()))
            << 1;
        self.s5_prod.d.next = self.ps.val() + self.pc.val();
        self.s5_value.d.next = self.s4_value.q.val();
        self.s5_index.d.next = self.s4_index.q.val();

        // ---- Stage 4: the value and index, multiplexed by stage 3's decision.
        self.v_a.next = self.zero.val();
        if self.s3_v_a.q.val() {
            self.v_a.next = self.s3_av.q.val();
        }
        self.v_b.next = self.zero.val();
        if self.s3_v_b.q.val() {
            self.v_b.next = self.s3_bv.q.val();
        }
        self.s4_value.d.next = self.v_a.val() | self.v_b.val() | self.s3_other.q.val();
        self.i_a.next = self.zero.val();
        if self.s3_i_a.q.val() {
            self.i_a.next = self.s3_ai.q.val();
        }
        self.i_b.next = self.zero.val();
        if self.s3_i_b.q.val() {
            self.i_b.next = self.s3_bi.q.val();
        }
        self.s4_index.d.next = self.i_a.val() | self.i_b.val();

        // ---- Outputs: PROD's sum or the value; SUM and PROD carry past bit 31, and the mask
        // keeps a 32-bit result zero-extended.
        self.o_r.d.next = self.s5_value.q.val() & self.s5_wmask.val();
        if self.s5_is_prod.val() {
            self.o_r.d.next = self.s5_prod.q.val() & self.s5_wmask.val();
        }
        self.o_ri.d.next = self.s5_index.q.val();
        self.r.next = self.o_r.q.val();
        self.ri.next = self.o_ri.q.val();
    }
}
