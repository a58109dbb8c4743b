//! # One lane of the reduction ALU (module `reduce_alu_lane`)
//!
//! `r, ri = a op b` for one element, through the four register stages of
//! `netcoll_models::reduce_alu` ("Micro-architecture"): the operands at width and their
//! compare keys (`s1_*`); their compares, sum and 16 × 16 partial products (`s2_*`); the result
//! of every op but PROD and PROD's partly reduced terms (`s3_*`); the outputs (`o_*`). The
//! block instantiates one per lane and decodes `op` and `dtype` for all of them, each at the
//! stage that needs it.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; every register resets to zero);
//! - `a`, `ai`, `b`, `bi` (64 bits each): the operands and their indices, as offered;
//! - `in_wmask`, `in_sflip`: the decode of the offered `dtype`: the element's bits; the sign
//!   bit to flip before an unsigned compare (or 0);
//! - `s2_op`: stage 2's `op` (an `AluOp` code);
//! - `s3_is_prod`, `s3_wmask`: stage 3's op is PROD; its element mask.
//!
//! # Outputs
//! - `r` (the value, masked to the element width) and `ri` (the index; 0 but for MAXLOC /
//!   MINLOC): registers, four cycles after the operands.
//!
//! # Structure
//! Stage 1: the masked operands `am`, `bm` and their compare keys, registered. Stage 2: their
//! unsigned comparison half by half (stage 3 combines the halves into `a_gt`, `a_lt`), the
//! truth values, the sum, and the ten partial products `p{i}{j}` with `i + j <= 3` (rust-hdl
//! multiplies only 16 × 16), each a [`Mul16`] — a DSP block with its own operand and product
//! registers, fed from the same masked operands as stage 1. Stage 3: an if/else chain on
//! `s2_op` picks the value and index (reserved codes and PROD give 0); the partial products,
//! shifted to their weights (`t0` … `t9`), go through three levels of 3:2 carry-save adders
//! (`l1_*` … `l3_*`), 10 → 7 → 5 → 4 terms (`s3_row*`). Output: the last two levels (`l4_*`,
//! then `ps`, `pc`), one 64-bit add for PROD, the mask. The split of the tree
//! keeps the routing out of the DSP column and the add each in a cycle of its own length.

use netcoll_models::reduce_alu::{AluOp, WORD_BITS};
use rust_hdl::prelude::*;

use crate::dff_setup;
use crate::prim::{Mul16, Reg};

const W: usize = WORD_BITS;
const OPB: usize = AluOp::BITS;

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
        pub s2_op: Signal<In, Bits<OPB>>,
        pub s3_is_prod: Signal<In, bool>,
        pub s3_wmask: Signal<In, Bits<W>>,
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
        /// The keys' halves compared separately (two 32-bit carry chains instead of one of 64),
        /// combined in stage 3.
        s2_hi_gt: Reg<bool>,
        s2_hi_lt: Reg<bool>,
        s2_lo_gt: Reg<bool>,
        s2_lo_lt: Reg<bool>,
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
        // Stage 3.
        s3_value: Reg<Bits<W>>,
        s3_index: Reg<Bits<W>>,
        s3_row0: Reg<Bits<W>>,
        s3_row1: Reg<Bits<W>>,
        s3_row2: Reg<Bits<W>>,
        s3_row3: Reg<Bits<W>>,
        // Outputs.
        o_r: Reg<Bits<W>>,
        o_ri: Reg<Bits<W>>,

        am: Signal<Local, Bits<W>>,
        a_gt: Signal<Local, bool>,
        a_lt: Signal<Local, bool>,
        bm: Signal<Local, Bits<W>>,
        av: Signal<Local, Bits<W>>,
        bv: Signal<Local, Bits<W>>,
        imin: Signal<Local, Bits<W>>,
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
        prod: Signal<Local, Bits<W>>,

        op_max: Constant<Bits<OPB>> = k(AluOp::Max.code()),
        op_min: Constant<Bits<OPB>> = k(AluOp::Min.code()),
        op_maxloc: Constant<Bits<OPB>> = k(AluOp::MaxLoc.code()),
        op_minloc: Constant<Bits<OPB>> = k(AluOp::MinLoc.code()),
        op_sum: Constant<Bits<OPB>> = k(AluOp::Sum.code()),
        op_land: Constant<Bits<OPB>> = k(AluOp::LAnd.code()),
        op_lor: Constant<Bits<OPB>> = k(AluOp::LOr.code()),
        op_lxor: Constant<Bits<OPB>> = k(AluOp::LXor.code()),
        op_band: Constant<Bits<OPB>> = k(AluOp::BAnd.code()),
        op_bor: Constant<Bits<OPB>> = k(AluOp::BOr.code()),
        op_bxor: Constant<Bits<OPB>> = k(AluOp::BXor.code()),
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
            s2_hi_gt,
            s2_hi_lt,
            s2_lo_gt,
            s2_lo_lt,
            s2_bi_lt_ai,
            s2_sum,
            s2_at,
            s2_bt,
            s3_value,
            s3_index,
            s3_row0,
            s3_row1,
            s3_row2,
            s3_row3,
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
        self.s2_hi_gt.d.next =
            self.s1_ak.q.val().get_bits::<32>(32) > self.s1_bk.q.val().get_bits::<32>(32);
        self.s2_hi_lt.d.next =
            self.s1_ak.q.val().get_bits::<32>(32) < self.s1_bk.q.val().get_bits::<32>(32);
        self.s2_lo_gt.d.next =
            self.s1_ak.q.val().get_bits::<32>(0) > self.s1_bk.q.val().get_bits::<32>(0);
        self.s2_lo_lt.d.next =
            self.s1_ak.q.val().get_bits::<32>(0) < self.s1_bk.q.val().get_bits::<32>(0);
        self.s2_bi_lt_ai.d.next = self.s1_bi.q.val() < self.s1_ai.q.val();
        self.s2_sum.d.next = self.av.val() + self.bv.val();
        self.s2_at.d.next = self.av.val().any();
        self.s2_bt.d.next = self.bv.val().any();
        // The partial products of the 16-bit digits whose weight 2^(16 (i + j)) is below 2^64
        // (of those of weight 2^48 only the low 16 bits count; synthesis drops the rest), from
        // the masked operands as offered: each multiplier registers its own copy of them.
        self.s2_p00.clock.next = self.clock.val();
        self.s2_p00.reset.next = self.reset.val();
        self.s2_p00.a.next = self.am.val().get_bits::<16>(0);
        self.s2_p00.b.next = self.bm.val().get_bits::<16>(0);
        self.s2_p01.clock.next = self.clock.val();
        self.s2_p01.reset.next = self.reset.val();
        self.s2_p01.a.next = self.am.val().get_bits::<16>(0);
        self.s2_p01.b.next = self.bm.val().get_bits::<16>(16);
        self.s2_p02.clock.next = self.clock.val();
        self.s2_p02.reset.next = self.reset.val();
        self.s2_p02.a.next = self.am.val().get_bits::<16>(0);
        self.s2_p02.b.next = self.bm.val().get_bits::<16>(32);
        self.s2_p03.clock.next = self.clock.val();
        self.s2_p03.reset.next = self.reset.val();
        self.s2_p03.a.next = self.am.val().get_bits::<16>(0);
        self.s2_p03.b.next = self.bm.val().get_bits::<16>(48);
        self.s2_p10.clock.next = self.clock.val();
        self.s2_p10.reset.next = self.reset.val();
        self.s2_p10.a.next = self.am.val().get_bits::<16>(16);
        self.s2_p10.b.next = self.bm.val().get_bits::<16>(0);
        self.s2_p11.clock.next = self.clock.val();
        self.s2_p11.reset.next = self.reset.val();
        self.s2_p11.a.next = self.am.val().get_bits::<16>(16);
        self.s2_p11.b.next = self.bm.val().get_bits::<16>(16);
        self.s2_p12.clock.next = self.clock.val();
        self.s2_p12.reset.next = self.reset.val();
        self.s2_p12.a.next = self.am.val().get_bits::<16>(16);
        self.s2_p12.b.next = self.bm.val().get_bits::<16>(32);
        self.s2_p20.clock.next = self.clock.val();
        self.s2_p20.reset.next = self.reset.val();
        self.s2_p20.a.next = self.am.val().get_bits::<16>(32);
        self.s2_p20.b.next = self.bm.val().get_bits::<16>(0);
        self.s2_p21.clock.next = self.clock.val();
        self.s2_p21.reset.next = self.reset.val();
        self.s2_p21.a.next = self.am.val().get_bits::<16>(32);
        self.s2_p21.b.next = self.bm.val().get_bits::<16>(16);
        self.s2_p30.clock.next = self.clock.val();
        self.s2_p30.reset.next = self.reset.val();
        self.s2_p30.a.next = self.am.val().get_bits::<16>(48);
        self.s2_p30.b.next = self.bm.val().get_bits::<16>(0);

        // ---- Stage 3: the result of every op but PROD; reserved codes and PROD give zero.
        // The upper halves decide unless they are equal.
        self.a_gt.next = self.s2_hi_gt.q.val() | (!self.s2_hi_lt.q.val() & self.s2_lo_gt.q.val());
        self.a_lt.next = self.s2_hi_lt.q.val() | (!self.s2_hi_gt.q.val() & self.s2_lo_lt.q.val());
        self.imin.next = self.s2_ai.q.val();
        if self.s2_bi_lt_ai.q.val() {
            self.imin.next = self.s2_bi.q.val();
        }
        self.s3_value.d.next = self.zero.val();
        self.s3_index.d.next = self.zero.val();
        if self.s2_op.val() == self.op_max.val() {
            self.s3_value.d.next = self.s2_av.q.val();
            if self.a_lt.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
            }
        } else if self.s2_op.val() == self.op_min.val() {
            self.s3_value.d.next = self.s2_av.q.val();
            if self.a_gt.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
            }
        } else if self.s2_op.val() == self.op_maxloc.val() {
            if self.a_gt.val() {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.s2_ai.q.val();
            } else if self.a_lt.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
                self.s3_index.d.next = self.s2_bi.q.val();
            } else {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.imin.val();
            }
        } else if self.s2_op.val() == self.op_minloc.val() {
            if self.a_lt.val() {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.s2_ai.q.val();
            } else if self.a_gt.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
                self.s3_index.d.next = self.s2_bi.q.val();
            } else {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.imin.val();
            }
        } else if self.s2_op.val() == self.op_sum.val() {
            self.s3_value.d.next = self.s2_sum.q.val();
        } else if self.s2_op.val() == self.op_land.val() {
            if self.s2_at.q.val() & self.s2_bt.q.val() {
                self.s3_value.d.next = self.one.val();
            }
        } else if self.s2_op.val() == self.op_lor.val() {
            if self.s2_at.q.val() | self.s2_bt.q.val() {
                self.s3_value.d.next = self.one.val();
            }
        } else if self.s2_op.val() == self.op_lxor.val() {
            if self.s2_at.q.val() ^ self.s2_bt.q.val() {
                self.s3_value.d.next = self.one.val();
            }
        } else if self.s2_op.val() == self.op_band.val() {
            self.s3_value.d.next = self.s2_av.q.val() & self.s2_bv.q.val();
        } else if self.s2_op.val() == self.op_bor.val() {
            self.s3_value.d.next = self.s2_av.q.val() | self.s2_bv.q.val();
        } else if self.s2_op.val() == self.op_bxor.val() {
            self.s3_value.d.next = self.s2_av.q.val() ^ self.s2_bv.q.val();
        }

        // ---- Stage 3: the product's terms at their weights, modulo 2^64, and the carry-save
        // tree's first three levels, 10 → 7 → 5 → 4 (x + y + z = (x ^ y ^ z) +
        // (majority(x, y, z) << 1)).
        self.t0.next = bit_cast::<64, 32>(self.s2_p00.p.val());
        self.t1.next = bit_cast::<64, 32>(self.s2_p01.p.val()) << 16;
        self.t2.next = bit_cast::<64, 32>(self.s2_p02.p.val()) << 32;
        self.t3.next = bit_cast::<64, 32>(self.s2_p03.p.val()) << 48;
        self.t4.next = bit_cast::<64, 32>(self.s2_p10.p.val()) << 16;
        self.t5.next = bit_cast::<64, 32>(self.s2_p11.p.val()) << 32;
        self.t6.next = bit_cast::<64, 32>(self.s2_p12.p.val()) << 48;
        self.t7.next = bit_cast::<64, 32>(self.s2_p20.p.val()) << 32;
        self.t8.next = bit_cast::<64, 32>(self.s2_p21.p.val()) << 48;
        self.t9.next = bit_cast::<64, 32>(self.s2_p30.p.val()) << 48;
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
        self.s3_row0.d.next = self.l3_s.val();
        self.s3_row1.d.next = self.l3_c.val();
        self.s3_row2.d.next = self.l2_c1.val();
        self.s3_row3.d.next = self.t9.val();

        // ---- Outputs: the tree's last two levels, 4 → 3 → 2, then PROD's one add; SUM and
        // PROD carry past bit 31, and the mask keeps a 32-bit result zero-extended.
        self.l4_s.next = self.s3_row0.q.val() ^ self.s3_row1.q.val() ^ self.s3_row2.q.val();
        self.l4_c.next = ((self.s3_row0.q.val() & self.s3_row1.q.val())
            | (self.s3_row0.q.val() & self.s3_row2.q.val())
            | (self.s3_row1.q.val() & self.s3_row2.q.val()))
            << 1;
        self.ps.next = self.l4_s.val() ^ self.l4_c.val() ^ self.s3_row3.q.val();
        self.pc.next = ((self.l4_s.val() & self.l4_c.val())
            | (self.l4_s.val() & self.s3_row3.q.val())
            | (self.l4_c.val() & self.s3_row3.q.val()))
            << 1;
        self.prod.next = self.ps.val() + self.pc.val();
        self.o_r.d.next = self.s3_value.q.val() & self.s3_wmask.val();
        if self.s3_is_prod.val() {
            self.o_r.d.next = self.prod.val() & self.s3_wmask.val();
        }
        self.o_ri.d.next = self.s3_index.q.val();
        self.r.next = self.o_r.q.val();
        self.ri.next = self.o_ri.q.val();
    }
}
