//! The NIC cross-channel controller's RTL, monomorphised for every supported parameter set.
//!
//! [`build`] turns run-time [`NicParams`] into a concrete [`controller::Nic`] behind the [`NicRtl`]
//! trait, which both simulates it with rust-hdl and emits its Verilog (the NIC module preceded
//! by the reduction ALU module it instantiates).

pub mod controller;

use crate::emit::{emit_with_children, EmitError, Module};
use netcoll_models::nic::{NicIn, NicOut, NicParams};
use rust_hdl::prelude::*;

/// Name of the emitted top module.
pub const TOP: &str = "nic";

/// The NIC RTL at some parameter set.
pub trait NicRtl {
    /// One clock cycle under rust-hdl's `simulate()`: apply `i`, settle with the clock low,
    /// sample the outputs, then raise the clock.
    fn step(&mut self, i: &NicIn) -> NicOut;
    /// The outputs now, after the last step's rising edge (all NIC outputs are registered, so
    /// these are the next cycle's).
    fn outputs(&self) -> NicOut;
    /// The block as Verilog, with `header` as its leading comment.
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    let v = if N >= 64 { v } else { v & ((1u64 << N) - 1) };
    Bits::<N>::from(v)
}

impl<
        const QB: usize,
        const WB: usize,
        const WEB: usize,
        const CB: usize,
        const CEB: usize,
        const KB: usize,
        const DB: usize,
        const SWB: usize,
    > NicRtl for controller::Nic<QB, WB, WEB, CB, CEB, KB, DB, SWB>
{
    fn step(&mut self, i: &NicIn) -> NicOut {
        self.reset.next = i.reset;
        self.host_valid.next = i.host_valid;
        self.host_op.next = b(i.host_op);
        self.host_arg.next = b(i.host_arg);
        self.host_w0.next = b(i.host_w0);
        self.host_w1.next = b(i.host_w1);
        self.rx_valid.next = i.rx_valid;
        self.rx_kind.next = i.rx_kind;
        self.rx_src.next = b(i.rx_src);
        self.rx_src_qp.next = b(i.rx_src_qp);
        self.rx_qp.next = b(i.rx_qp);
        self.rx_cnt_en.next = i.rx_cnt_en;
        self.rx_cnt.next = b(i.rx_cnt);
        self.rx_tag.next = b(i.rx_tag);
        self.rx_empty.next = i.rx_empty;
        self.rx_last.next = i.rx_last;
        self.rx_data.next = b(i.rx_data);
        self.tx_ready.next = i.tx_ready;
        self.clock.next = Clock { clk: false };
        simulate(self, 1000);
        let o = self.outputs();
        self.clock.next = Clock { clk: true };
        simulate(self, 1000);
        o
    }

    fn outputs(&self) -> NicOut {
        NicOut {
            host_ready: self.host_ready.val(),
            host_rsp_valid: self.host_rsp_valid.val(),
            host_rsp_status: self.host_rsp_status.val().to_u64(),
            host_rsp_data: self.host_rsp_data.val().to_u64(),
            rx_ready: self.rx_ready.val(),
            tx_valid: self.tx_valid.val(),
            tx_kind: self.tx_kind.val(),
            tx_dst: self.tx_dst.val().to_u64(),
            tx_src_qp: self.tx_src_qp.val().to_u64(),
            tx_qp: self.tx_qp.val().to_u64(),
            tx_cnt_en: self.tx_cnt_en.val(),
            tx_cnt: self.tx_cnt.val().to_u64(),
            tx_tag: self.tx_tag.val().to_u64(),
            tx_empty: self.tx_empty.val(),
            tx_last: self.tx_last.val(),
            tx_data: self.tx_data.val().to_u64(),
        }
    }

    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        emit_with_children(self, TOP, header, &[("alu", "reduce_alu_l1")])
    }
}

fn boxed<
    const QB: usize,
    const WB: usize,
    const WEB: usize,
    const CB: usize,
    const CEB: usize,
    const KB: usize,
    const DB: usize,
    const SWB: usize,
>(
    p: &NicParams,
) -> Box<dyn NicRtl> {
    let mut n = controller::Nic::<QB, WB, WEB, CB, CEB, KB, DB, SWB>::new(
        p.qps as u64,
        p.cqs as u64,
        p.counters as u64,
        p.dmem_words as u64,
    );
    n.connect_all();
    Box::new(n)
}

/// The NIC RTL for `p`, or `None` when `p` is not a supported parameter set (the configuration
/// loader rejects those first, naming the allowed values).
pub fn build(p: &NicParams) -> Option<Box<dyn NicRtl>> {
    macro_rules! pick {
        ($(($q:literal, $c:literal, $k:literal, $qb:literal, $wb:literal, $web:literal, $cb:literal, $ceb:literal, $kb:literal, $swb:literal)),*) => {
            $( if (p.qps, p.cqs, p.counters) == ($q, $c, $k) {
                return match p.dmem_words {
                    1024 => Some(boxed::<$qb, $wb, $web, $cb, $ceb, $kb, 10, $swb>(p)),
                    4096 => Some(boxed::<$qb, $wb, $web, $cb, $ceb, $kb, 12, $swb>(p)),
                    _ => None,
                };
            } )*
        };
    }
    pick!(
        (4, 4, 8, 2, 3, 7, 2, 7, 3, 3),
        (4, 4, 32, 2, 3, 7, 2, 7, 5, 5),
        (4, 16, 8, 2, 3, 7, 4, 9, 3, 4),
        (4, 16, 32, 2, 3, 7, 4, 9, 5, 5),
        (16, 4, 8, 4, 5, 9, 2, 7, 3, 5),
        (16, 4, 32, 4, 5, 9, 2, 7, 5, 5),
        (16, 16, 8, 4, 5, 9, 4, 9, 3, 5),
        (16, 16, 32, 4, 5, 9, 4, 9, 5, 5)
    );
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_parameter_set_builds() {
        for p in NicParams::all_supported() {
            assert!(build(&p).is_some(), "{p:?}");
        }
        let bad = NicParams {
            qps: 8,
            ..NicParams::SMALL
        };
        assert!(build(&bad).is_none());
    }
}
