//! # One lane of the reduction ALU (module `reduce_alu_lane`)
//!
//! `r, ri = a op b` for one element, through the four register stages of
//! `netcoll_models::reduce_alu` ("Micro-architecture"): the operands at width (`s1_*`); their
//! compares, sum and 16 × 16 partial products (`s2_*`); the result of every op
//! but PROD and PROD's carry-save pair (`s3_*`); the outputs (`o_*`). The block instantiates
//! one per lane and decodes `op` and `dtype` for all of them, each at the stage that needs it.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; every register resets to zero);
//! - `a`, `ai`, `b`, `bi` (64 bits each): the operands and their indices, as offered;
//! - `in_wmask`: the element's bits, the decode of the offered `dtype`;
//! - `s1_sflip`: the sign bit to flip before an unsigned compare (or 0), the decode of stage
//!   1's `dtype`;
//! - `s2_op`: stage 2's `op` (an `AluOp` code);
//! - `s3_is_prod`, `s3_wmask`: stage 3's op is PROD; its element mask.
//!
//! # Outputs
//! - `r` (the value, masked to the element width) and `ri` (the index; 0 but for MAXLOC /
//!   MINLOC): registers, four cycles after the operands.
//!
//! # Structure
//! Stage 2: `av`, `bv` (stage 1's operands at width), compare keys with the sign bit flipped (`ak`, `bk`)
//! and their unsigned comparison, the truth values, the sum and the ten partial products
//! `p{i}{j}` with `i + j <= 3` (rust-hdl multiplies only 16 × 16), each registered. Stage 3: an
//! if/else chain on `s2_op` picks the value and index (reserved codes and PROD give 0); the
//! partial products, shifted to their weights (`t0` … `t9`), go through a tree of 3:2
//! carry-save adders (`l1_*` … `l4_*`) to the pair `ps`, `pc`. Output: one 64-bit add for
//! PROD, the mask.

use netcoll_models::reduce_alu::{AluOp, WORD_BITS};
use rust_hdl::prelude::*;

use crate::dff_setup;
use crate::prim::Reg;

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
        pub s1_sflip: Signal<In, Bits<W>>,
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
        // Stage 2.
        s2_av: Reg<Bits<W>>,
        s2_bv: Reg<Bits<W>>,
        s2_ai: Reg<Bits<W>>,
        s2_bi: Reg<Bits<W>>,
        s2_a_gt: Reg<bool>,
        s2_a_lt: Reg<bool>,
        s2_bi_lt_ai: Reg<bool>,
        s2_sum: Reg<Bits<W>>,
        s2_at: Reg<bool>,
        s2_bt: Reg<bool>,
        s2_p00: Reg<Bits<32>>,
        s2_p01: Reg<Bits<32>>,
        s2_p02: Reg<Bits<32>>,
        s2_p03: Reg<Bits<32>>,
        s2_p10: Reg<Bits<32>>,
        s2_p11: Reg<Bits<32>>,
        s2_p12: Reg<Bits<32>>,
        s2_p20: Reg<Bits<32>>,
        s2_p21: Reg<Bits<32>>,
        s2_p30: Reg<Bits<32>>,
        // Stage 3.
        s3_value: Reg<Bits<W>>,
        s3_index: Reg<Bits<W>>,
        s3_ps: Reg<Bits<W>>,
        s3_pc: Reg<Bits<W>>,
        // Outputs.
        o_r: Reg<Bits<W>>,
        o_ri: Reg<Bits<W>>,

        av: Signal<Local, Bits<W>>,
        bv: Signal<Local, Bits<W>>,
        ak: Signal<Local, Bits<W>>,
        bk: Signal<Local, Bits<W>>,
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
            s2_av,
            s2_bv,
            s2_ai,
            s2_bi,
            s2_a_gt,
            s2_a_lt,
            s2_bi_lt_ai,
            s2_sum,
            s2_at,
            s2_bt,
            s2_p00,
            s2_p01,
            s2_p02,
            s2_p03,
            s2_p10,
            s2_p11,
            s2_p12,
            s2_p20,
            s2_p21,
            s2_p30,
            s3_value,
            s3_index,
            s3_ps,
            s3_pc,
            o_r,
            o_ri
        );
        // ---- Stage 1: the operands at width (masked here, so that stage 2's multipliers have
        // registers at their inputs), the indices as offered.
        self.s1_av.d.next = self.a.val() & self.in_wmask.val();
        self.s1_ai.d.next = self.ai.val();
        self.s1_bv.d.next = self.b.val() & self.in_wmask.val();
        self.s1_bi.d.next = self.bi.val();

        // ---- Stage 2: flipping the sign bit maps two's complement order onto unsigned order.
        self.av.next = self.s1_av.q.val();
        self.bv.next = self.s1_bv.q.val();
        self.ak.next = self.av.val() ^ self.s1_sflip.val();
        self.bk.next = self.bv.val() ^ self.s1_sflip.val();
        self.s2_av.d.next = self.av.val();
        self.s2_bv.d.next = self.bv.val();
        self.s2_ai.d.next = self.s1_ai.q.val();
        self.s2_bi.d.next = self.s1_bi.q.val();
        self.s2_a_gt.d.next = self.ak.val() > self.bk.val();
        self.s2_a_lt.d.next = self.ak.val() < self.bk.val();
        self.s2_bi_lt_ai.d.next = self.s1_bi.q.val() < self.s1_ai.q.val();
        self.s2_sum.d.next = self.av.val() + self.bv.val();
        self.s2_at.d.next = self.av.val().any();
        self.s2_bt.d.next = self.bv.val().any();
        // The partial products of the 16-bit digits whose weight 2^(16 (i + j)) is below 2^64
        // (of those of weight 2^48 only the low 16 bits count; synthesis drops the rest).
        self.s2_p00.d.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(0);
        self.s2_p01.d.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(16);
        self.s2_p02.d.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(32);
        self.s2_p03.d.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(48);
        self.s2_p10.d.next = self.av.val().get_bits::<16>(16) * self.bv.val().get_bits::<16>(0);
        self.s2_p11.d.next = self.av.val().get_bits::<16>(16) * self.bv.val().get_bits::<16>(16);
        self.s2_p12.d.next = self.av.val().get_bits::<16>(16) * self.bv.val().get_bits::<16>(32);
        self.s2_p20.d.next = self.av.val().get_bits::<16>(32) * self.bv.val().get_bits::<16>(0);
        self.s2_p21.d.next = self.av.val().get_bits::<16>(32) * self.bv.val().get_bits::<16>(16);
        self.s2_p30.d.next = self.av.val().get_bits::<16>(48) * self.bv.val().get_bits::<16>(0);

        // ---- Stage 3: the result of every op but PROD; reserved codes and PROD give zero.
        self.imin.next = self.s2_ai.q.val();
        if self.s2_bi_lt_ai.q.val() {
            self.imin.next = self.s2_bi.q.val();
        }
        self.s3_value.d.next = self.zero.val();
        self.s3_index.d.next = self.zero.val();
        if self.s2_op.val() == self.op_max.val() {
            self.s3_value.d.next = self.s2_av.q.val();
            if self.s2_a_lt.q.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
            }
        } else if self.s2_op.val() == self.op_min.val() {
            self.s3_value.d.next = self.s2_av.q.val();
            if self.s2_a_gt.q.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
            }
        } else if self.s2_op.val() == self.op_maxloc.val() {
            if self.s2_a_gt.q.val() {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.s2_ai.q.val();
            } else if self.s2_a_lt.q.val() {
                self.s3_value.d.next = self.s2_bv.q.val();
                self.s3_index.d.next = self.s2_bi.q.val();
            } else {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.imin.val();
            }
        } else if self.s2_op.val() == self.op_minloc.val() {
            if self.s2_a_lt.q.val() {
                self.s3_value.d.next = self.s2_av.q.val();
                self.s3_index.d.next = self.s2_ai.q.val();
            } else if self.s2_a_gt.q.val() {
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
        // tree 10 → 7 → 5 → 4 → 3 → 2 (x + y + z = (x ^ y ^ z) + (majority(x, y, z) << 1)).
        self.t0.next = bit_cast::<64, 32>(self.s2_p00.q.val());
        self.t1.next = bit_cast::<64, 32>(self.s2_p01.q.val()) << 16;
        self.t2.next = bit_cast::<64, 32>(self.s2_p02.q.val()) << 32;
        self.t3.next = bit_cast::<64, 32>(self.s2_p03.q.val()) << 48;
        self.t4.next = bit_cast::<64, 32>(self.s2_p10.q.val()) << 16;
        self.t5.next = bit_cast::<64, 32>(self.s2_p11.q.val()) << 32;
        self.t6.next = bit_cast::<64, 32>(self.s2_p12.q.val()) << 48;
        self.t7.next = bit_cast::<64, 32>(self.s2_p20.q.val()) << 32;
        self.t8.next = bit_cast::<64, 32>(self.s2_p21.q.val()) << 48;
        self.t9.next = bit_cast::<64, 32>(self.s2_p30.q.val()) << 48;
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
        self.l4_s.next = self.l3_s.val() ^ self.l3_c.val() ^ self.l2_c1.val();
        self.l4_c.next = ((self.l3_s.val() & self.l3_c.val())
            | (self.l3_s.val() & self.l2_c1.val())
            | (self.l3_c.val() & self.l2_c1.val()))
            << 1;
        self.s3_ps.d.next = self.l4_s.val() ^ self.l4_c.val() ^ self.t9.val();
        self.s3_pc.d.next = ((self.l4_s.val() & self.l4_c.val())
            | (self.l4_s.val() & self.t9.val())
            | (self.l4_c.val() & self.t9.val()))
            << 1;

        // ---- Outputs: PROD's one add; SUM and PROD carry past bit 31, and the mask keeps a
        // 32-bit result zero-extended.
        self.prod.next = self.s3_ps.q.val() + self.s3_pc.q.val();
        self.o_r.d.next = self.s3_value.q.val() & self.s3_wmask.val();
        if self.s3_is_prod.val() {
            self.o_r.d.next = self.prod.val() & self.s3_wmask.val();
        }
        self.o_ri.d.next = self.s3_index.q.val();
        self.r.next = self.o_r.q.val();
        self.ri.next = self.o_ri.q.val();
    }
}
