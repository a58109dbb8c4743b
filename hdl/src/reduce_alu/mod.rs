//! # Reduction ALU (RTL)
//!
//! The rust-hdl description of the block specified in `netcoll_models::reduce_alu` (read its
//! module docs for the operations, element types and timing; the cycle model there is compared
//! with this block every output every cycle). Its ports come from the one declaration,
//! `netcoll_models::reduce_alu_ports!`: lane `k`'s ports are `a_k`, `ai_k`, `b_k`, `bi_k`,
//! `r_k`, `ri_k`. The block for `L` lanes is emitted as module `reduce_alu_l<L>`.
//!
//! # Structure
//! A shared decode of `dtype` (the element mask and the sign bit to flip), `L` instances of
//! [`ReduceAluLane`] (module `reduce_alu_lane`) and one stage of output registers (latency 1).
//! A block that contains the ALU (the NIC) instantiates `ReduceAlu<1>` as a child and drives
//! its ports like any others.

pub mod lane;

pub use lane::ReduceAluLane;

use crate::dff_setup;
use crate::emit::{emit_with_children, EmitError, Module};
use crate::prim::Reg;
use crate::rtl_block;
use netcoll_models::kit::cycle::ValueSim;
use netcoll_models::reduce_alu::{ReduceAluParams, FIRST_RESERVED_OP, WORD_BITS};
use rust_hdl::prelude::*;

const W: usize = WORD_BITS;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

netcoll_models::reduce_alu_ports!(rtl_block! {
    /// The reduction ALU with `L` lanes.
    pub struct ReduceAlu<const L: usize> {
        o_valid: Reg<bool> = Default::default(),
        o_err: Reg<bool> = Default::default(),
        /// Per lane: the result value and index registers (loaded every cycle).
        o_r: [Reg<Bits<W>>; L] = core::array::from_fn(|_| Default::default()),
        o_ri: [Reg<Bits<W>>; L] = core::array::from_fn(|_| Default::default()),
        /// The lanes (module `reduce_alu_lane`).
        lane: [ReduceAluLane; L] = core::array::from_fn(|_| Default::default()),
        // Shared decode: `dtype[1] = 0` is a 32-bit type, `dtype[0] = 0` a signed one.
        is32: Signal<Local, bool> = Default::default(),
        is_signed: Signal<Local, bool> = Default::default(),
        wmask: Signal<Local, Bits<W>> = Default::default(),
        sflip: Signal<Local, Bits<W>> = Default::default(),
        reserved: Signal<Local, bool> = Default::default(),
        first_reserved: Constant<Bits<4>> = k(FIRST_RESERVED_OP),
        mask32: Constant<Bits<W>> = k(0xFFFF_FFFF),
        mask64: Constant<Bits<W>> = k(u64::MAX),
        sign32: Constant<Bits<W>> = k(1 << 31),
        sign64: Constant<Bits<W>> = k(1 << 63),
        zero: Constant<Bits<W>> = k(0),
    }
});

impl<const L: usize> Logic for ReduceAlu<L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, o_valid, o_err);
        self.is32.next = !self.dtype.val().get_bit(1);
        self.is_signed.next = !self.dtype.val().get_bit(0);
        self.wmask.next = self.mask64.val();
        if self.is32.val() {
            self.wmask.next = self.mask32.val();
        }
        self.sflip.next = self.zero.val();
        if self.is_signed.val() {
            if self.is32.val() {
                self.sflip.next = self.sign32.val();
            } else {
                self.sflip.next = self.sign64.val();
            }
        }
        self.reserved.next = self.op.val() >= self.first_reserved.val();
        self.o_valid.d.next = self.in_valid.val();
        self.o_err.d.next = self.in_valid.val() & self.reserved.val();
        self.out_valid.next = self.o_valid.q.val();
        self.err.next = self.o_err.q.val();
        for n in 0..L {
            self.lane[n].op.next = self.op.val();
            self.lane[n].wmask.next = self.wmask.val();
            self.lane[n].sflip.next = self.sflip.val();
            self.lane[n].a.next = self.a[n].val();
            self.lane[n].ai.next = self.ai[n].val();
            self.lane[n].b.next = self.b[n].val();
            self.lane[n].bi.next = self.bi[n].val();
            // Loaded every cycle, valid or not: no enable on the wide registers.
            self.o_r[n].clock.next = self.clock.val();
            self.o_r[n].reset.next = self.reset.val();
            self.o_r[n].d.next = self.lane[n].r.val();
            self.o_ri[n].clock.next = self.clock.val();
            self.o_ri[n].reset.next = self.reset.val();
            self.o_ri[n].d.next = self.lane[n].ri.val();
            self.r[n].next = self.o_r[n].q.val();
            self.ri[n].next = self.o_ri[n].q.val();
        }
    }
}

/// The ALU's RTL at one lane count, behind the interfaces the registry needs.
pub trait ReduceAluRtl {
    /// The block as Verilog (module `reduce_alu_l<lanes>` and its lane module).
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
    /// The block under rust-hdl's `simulate()`, as a value-vector design.
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim>;
}

impl<const L: usize> ReduceAluRtl for ReduceAlu<L> {
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        emit_with_children(
            self,
            &module_name(L),
            header,
            &[("lane", "reduce_alu_lane")],
        )
    }
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim> {
        Box::new(crate::kit::RtlSim::new(*self))
    }
}

/// The module name of the `lanes`-lane block.
pub fn module_name(lanes: usize) -> String {
    format!("reduce_alu_l{lanes}")
}

/// The ALU RTL for `p`, connected; `None` for an unsupported lane count.
pub fn build(p: &ReduceAluParams) -> Option<Box<dyn ReduceAluRtl>> {
    fn boxed<const L: usize>() -> Box<dyn ReduceAluRtl> {
        let mut b = ReduceAlu::<L>::default();
        b.connect_all();
        Box::new(b)
    }
    match p.lanes {
        1 => Some(boxed::<1>()),
        2 => Some(boxed::<2>()),
        4 => Some(boxed::<4>()),
        _ => None,
    }
}
