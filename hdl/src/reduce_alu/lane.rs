//! # One lane of the reduction ALU (module `reduce_alu_lane`)
//!
//! Combinational: `r, ri = a op b` for one element (see `netcoll_models::reduce_alu`). The
//! block instantiates one per lane and registers what they compute.
//!
//! # Inputs
//! - `op` (4 bits, an `AluOp` code), and the shared decode of `dtype`: `wmask` (the element's
//!   bits) and `sflip` (the sign bit to flip before an unsigned compare, or 0);
//! - `a`, `ai`, `b`, `bi` (64 bits each): the operands and their indices.
//!
//! # Outputs
//! - `r` (the value, masked to the element width) and `ri` (the index; 0 but for MAXLOC /
//!   MINLOC).
//!
//! # Structure
//! Operands at width (`av`, `bv`); compare keys with the sign bit flipped (`ak`, `bk`) and
//! their unsigned comparison (`a_gt`, `a_lt`); truth values (`at`, `bt`); the smaller index
//! (`imin`); the sum; the product's low 64 bits from the ten 16 × 16 partial products
//! `p{i}{j}` with `i + j <= 3` (rust-hdl multiplies only 16 × 16); an if/else chain on `op`
//! picks the result. Reserved codes give 0.

use netcoll_models::reduce_alu::{AluOp, WORD_BITS};
use rust_hdl::prelude::*;

const W: usize = WORD_BITS;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// One lane.
#[derive(LogicBlock)]
pub struct ReduceAluLane {
    pub op: Signal<In, Bits<{ AluOp::BITS }>>,
    pub wmask: Signal<In, Bits<W>>,
    pub sflip: Signal<In, Bits<W>>,
    pub a: Signal<In, Bits<W>>,
    pub ai: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    pub bi: Signal<In, Bits<W>>,
    pub r: Signal<Out, Bits<W>>,
    pub ri: Signal<Out, Bits<W>>,

    av: Signal<Local, Bits<W>>,
    bv: Signal<Local, Bits<W>>,
    ak: Signal<Local, Bits<W>>,
    bk: Signal<Local, Bits<W>>,
    a_gt: Signal<Local, bool>,
    a_lt: Signal<Local, bool>,
    at: Signal<Local, bool>,
    bt: Signal<Local, bool>,
    imin: Signal<Local, Bits<W>>,
    sum: Signal<Local, Bits<W>>,
    p00: Signal<Local, Bits<32>>,
    p01: Signal<Local, Bits<32>>,
    p02: Signal<Local, Bits<32>>,
    p03: Signal<Local, Bits<32>>,
    p10: Signal<Local, Bits<32>>,
    p11: Signal<Local, Bits<32>>,
    p12: Signal<Local, Bits<32>>,
    p20: Signal<Local, Bits<32>>,
    p21: Signal<Local, Bits<32>>,
    p30: Signal<Local, Bits<32>>,
    prod: Signal<Local, Bits<W>>,
    nr: Signal<Local, Bits<W>>,

    op_max: Constant<Bits<{ AluOp::BITS }>>,
    op_min: Constant<Bits<{ AluOp::BITS }>>,
    op_maxloc: Constant<Bits<{ AluOp::BITS }>>,
    op_minloc: Constant<Bits<{ AluOp::BITS }>>,
    op_sum: Constant<Bits<{ AluOp::BITS }>>,
    op_prod: Constant<Bits<{ AluOp::BITS }>>,
    op_land: Constant<Bits<{ AluOp::BITS }>>,
    op_lor: Constant<Bits<{ AluOp::BITS }>>,
    op_lxor: Constant<Bits<{ AluOp::BITS }>>,
    op_band: Constant<Bits<{ AluOp::BITS }>>,
    op_bor: Constant<Bits<{ AluOp::BITS }>>,
    op_bxor: Constant<Bits<{ AluOp::BITS }>>,
    zero: Constant<Bits<W>>,
    one: Constant<Bits<W>>,
}

impl Default for ReduceAluLane {
    fn default() -> Self {
        Self {
            op: Default::default(),
            wmask: Default::default(),
            sflip: Default::default(),
            a: Default::default(),
            ai: Default::default(),
            b: Default::default(),
            bi: Default::default(),
            r: Default::default(),
            ri: Default::default(),
            av: Default::default(),
            bv: Default::default(),
            ak: Default::default(),
            bk: Default::default(),
            a_gt: Default::default(),
            a_lt: Default::default(),
            at: Default::default(),
            bt: Default::default(),
            imin: Default::default(),
            sum: Default::default(),
            p00: Default::default(),
            p01: Default::default(),
            p02: Default::default(),
            p03: Default::default(),
            p10: Default::default(),
            p11: Default::default(),
            p12: Default::default(),
            p20: Default::default(),
            p21: Default::default(),
            p30: Default::default(),
            prod: Default::default(),
            nr: Default::default(),
            op_max: k(AluOp::Max.code()),
            op_min: k(AluOp::Min.code()),
            op_maxloc: k(AluOp::MaxLoc.code()),
            op_minloc: k(AluOp::MinLoc.code()),
            op_sum: k(AluOp::Sum.code()),
            op_prod: k(AluOp::Prod.code()),
            op_land: k(AluOp::LAnd.code()),
            op_lor: k(AluOp::LOr.code()),
            op_lxor: k(AluOp::LXor.code()),
            op_band: k(AluOp::BAnd.code()),
            op_bor: k(AluOp::BOr.code()),
            op_bxor: k(AluOp::BXor.code()),
            zero: k(0),
            one: k(1),
        }
    }
}

impl Logic for ReduceAluLane {
    #[hdl_gen]
    fn update(&mut self) {
        // Operands at the element width, zero-extended.
        self.av.next = self.a.val() & self.wmask.val();
        self.bv.next = self.b.val() & self.wmask.val();
        // Flipping the sign bit maps two's complement order onto unsigned order.
        self.ak.next = self.av.val() ^ self.sflip.val();
        self.bk.next = self.bv.val() ^ self.sflip.val();
        self.a_gt.next = self.ak.val() > self.bk.val();
        self.a_lt.next = self.ak.val() < self.bk.val();
        self.at.next = self.av.val().any();
        self.bt.next = self.bv.val().any();
        self.imin.next = self.ai.val();
        if self.bi.val() < self.ai.val() {
            self.imin.next = self.bi.val();
        }
        self.sum.next = self.av.val() + self.bv.val();
        // Low 64 bits of av * bv from 16-bit digits: the partial products whose weight
        // 2^(16 (i + j)) is below 2^64.
        self.p00.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(0);
        self.p01.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(16);
        self.p02.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(32);
        self.p03.next = self.av.val().get_bits::<16>(0) * self.bv.val().get_bits::<16>(48);
        self.p10.next = self.av.val().get_bits::<16>(16) * self.bv.val().get_bits::<16>(0);
        self.p11.next = self.av.val().get_bits::<16>(16) * self.bv.val().get_bits::<16>(16);
        self.p12.next = self.av.val().get_bits::<16>(16) * self.bv.val().get_bits::<16>(32);
        self.p20.next = self.av.val().get_bits::<16>(32) * self.bv.val().get_bits::<16>(0);
        self.p21.next = self.av.val().get_bits::<16>(32) * self.bv.val().get_bits::<16>(16);
        self.p30.next = self.av.val().get_bits::<16>(48) * self.bv.val().get_bits::<16>(0);
        self.prod.next = bit_cast::<64, 32>(self.p00.val())
            + (bit_cast::<64, 32>(self.p01.val()) << 16)
            + (bit_cast::<64, 32>(self.p10.val()) << 16)
            + (bit_cast::<64, 32>(self.p02.val()) << 32)
            + (bit_cast::<64, 32>(self.p11.val()) << 32)
            + (bit_cast::<64, 32>(self.p20.val()) << 32)
            + (bit_cast::<64, 32>(self.p03.val()) << 48)
            + (bit_cast::<64, 32>(self.p12.val()) << 48)
            + (bit_cast::<64, 32>(self.p21.val()) << 48)
            + (bit_cast::<64, 32>(self.p30.val()) << 48);

        // The result; reserved codes fall through to zero.
        self.nr.next = self.zero.val();
        self.ri.next = self.zero.val();
        if self.op.val() == self.op_max.val() {
            self.nr.next = self.av.val();
            if self.a_lt.val() {
                self.nr.next = self.bv.val();
            }
        } else if self.op.val() == self.op_min.val() {
            self.nr.next = self.av.val();
            if self.a_gt.val() {
                self.nr.next = self.bv.val();
            }
        } else if self.op.val() == self.op_maxloc.val() {
            if self.a_gt.val() {
                self.nr.next = self.av.val();
                self.ri.next = self.ai.val();
            } else if self.a_lt.val() {
                self.nr.next = self.bv.val();
                self.ri.next = self.bi.val();
            } else {
                self.nr.next = self.av.val();
                self.ri.next = self.imin.val();
            }
        } else if self.op.val() == self.op_minloc.val() {
            if self.a_lt.val() {
                self.nr.next = self.av.val();
                self.ri.next = self.ai.val();
            } else if self.a_gt.val() {
                self.nr.next = self.bv.val();
                self.ri.next = self.bi.val();
            } else {
                self.nr.next = self.av.val();
                self.ri.next = self.imin.val();
            }
        } else if self.op.val() == self.op_sum.val() {
            self.nr.next = self.sum.val();
        } else if self.op.val() == self.op_prod.val() {
            self.nr.next = self.prod.val();
        } else if self.op.val() == self.op_land.val() {
            if self.at.val() & self.bt.val() {
                self.nr.next = self.one.val();
            }
        } else if self.op.val() == self.op_lor.val() {
            if self.at.val() | self.bt.val() {
                self.nr.next = self.one.val();
            }
        } else if self.op.val() == self.op_lxor.val() {
            if self.at.val() ^ self.bt.val() {
                self.nr.next = self.one.val();
            }
        } else if self.op.val() == self.op_band.val() {
            self.nr.next = self.av.val() & self.bv.val();
        } else if self.op.val() == self.op_bor.val() {
            self.nr.next = self.av.val() | self.bv.val();
        } else if self.op.val() == self.op_bxor.val() {
            self.nr.next = self.av.val() ^ self.bv.val();
        }
        // SUM and PROD carry past bit 31: the mask keeps a 32-bit result zero-extended.
        self.r.next = self.nr.val() & self.wmask.val();
    }
}
