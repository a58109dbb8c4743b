//! The switch collective engine's RTL, monomorphised for every supported parameter set.
//!
//! [`build`] turns run-time [`EngineParams`] into a concrete [`engine::SwitchEngine`] behind the
//! [`EngineRtl`] trait, which both simulates it with rust-hdl and emits its Verilog.

pub mod engine;

use crate::emit::{emit, EmitError, Module};
use netcoll_models::switch::{EngineIn, EngineOut, EngineParams};
use rust_hdl::prelude::*;

/// Name of the emitted top module.
pub const TOP: &str = "switch_engine";

/// The engine RTL at some parameter set.
pub trait EngineRtl {
    /// One clock cycle under rust-hdl's `simulate()`: apply `i`, settle with the clock low,
    /// sample the outputs, then raise the clock.
    fn step(&mut self, i: &EngineIn) -> EngineOut;
    /// The block as Verilog, with `header` as its leading comment.
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
}

fn mask(v: u64, bits: usize) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    Bits::<N>::from(mask(v, N))
}

impl<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
    > EngineRtl for engine::SwitchEngine<R, P, G, C, EW, SW>
{
    fn step(&mut self, i: &EngineIn) -> EngineOut {
        self.reset.next = i.reset;
        self.pkt_valid.next = i.pkt_valid;
        self.pkt_port.next = b(i.pkt_port);
        self.pkt_cgid.next = b(i.pkt_cgid);
        self.pkt_tid.next = b(i.pkt_tid);
        self.pkt_op.next = b(i.pkt_op);
        self.cfg_valid.next = i.cfg_valid;
        self.cfg_op.next = b(i.cfg_op);
        self.cfg_cgid.next = b(i.cfg_cgid);
        self.cfg_entry_valid.next = i.cfg_entry_valid;
        self.cfg_parent.next = b(i.cfg_parent);
        self.cfg_children.next = b(i.cfg_children);
        self.cfg_is_root.next = i.cfg_is_root;
        self.cfg_counter.next = b(i.cfg_counter);
        self.clock.next = Clock { clk: false };
        simulate(self, 1000);
        let o = EngineOut {
            pkt_ready: self.pkt_ready.val(),
            cfg_ready: self.cfg_ready.val(),
            out_valid: self.out_valid.val(),
            out_ports: self.out_ports.val().to_u64(),
            out_cgid: self.out_cgid.val().to_u64(),
            out_tid: self.out_tid.val().to_u64(),
            out_op: self.out_op.val().to_u64(),
            ev_valid: self.ev_valid.val(),
            ev_cgid: self.ev_cgid.val().to_u64(),
            ev_verdict: self.ev_verdict.val().to_u64(),
            ev_state: self.ev_state.val().to_u64(),
            ev_tid: self.ev_tid.val().to_u64(),
            ev_fail: self.ev_fail.val(),
            rsp_valid: self.rsp_valid.val(),
            rsp_entry_valid: self.rsp_entry_valid.val(),
            rsp_parent: self.rsp_parent.val().to_u64(),
            rsp_children: self.rsp_children.val().to_u64(),
            rsp_is_root: self.rsp_is_root.val(),
            rsp_state: self.rsp_state.val().to_u64(),
            rsp_tid: self.rsp_tid.val().to_u64(),
            rsp_fail: self.rsp_fail.val(),
            rsp_reported: self.rsp_reported.val().to_u64(),
            rsp_counter: self.rsp_counter.val().to_u64(),
        };
        self.clock.next = Clock { clk: true };
        simulate(self, 1000);
        o
    }

    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        emit(self, TOP, header)
    }
}

fn boxed<
    const R: usize,
    const P: usize,
    const G: usize,
    const C: usize,
    const EW: usize,
    const SW: usize,
>() -> Box<dyn EngineRtl> {
    let mut e = engine::SwitchEngine::<R, P, G, C, EW, SW>::default();
    e.connect_all();
    Box::new(e)
}

/// The engine RTL for `p`, or `None` when `p` is not a supported parameter set (the
/// configuration loader rejects those first, naming the allowed values).
pub fn build(p: &EngineParams) -> Option<Box<dyn EngineRtl>> {
    macro_rules! pick {
        ($(($r:literal, $pb:literal, $ew:literal, $sw:literal)),*; $(($gn:literal, $gb:literal)),*) => {
            pick!(@r [$(($r, $pb, $ew, $sw)),*] [$(($gn, $gb)),*])
        };
        (@r [$(($r:literal, $pb:literal, $ew:literal, $sw:literal)),*] $gs:tt) => {
            $( if p.radix == $r { return pick!(@g $r, $pb, $ew, $sw, $gs); } )*
        };
        (@g $r:literal, $pb:literal, $ew:literal, $sw:literal, [$(($gn:literal, $gb:literal)),*]) => {{
            $( if p.groups == $gn {
                return match p.counter_bits {
                    16 => Some(boxed::<$r, $pb, $gb, 16, $ew, $sw>()),
                    32 => Some(boxed::<$r, $pb, $gb, 32, $ew, $sw>()),
                    _ => None,
                };
            } )*
            None
        }};
    }
    pick!((4, 2, 8, 9), (8, 3, 13, 13), (16, 4, 22, 21), (32, 5, 39, 37);
          (16, 4), (256, 8), (1024, 10), (4096, 12));
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::switch::{COUNTER_BITS_VALUES, GROUP_VALUES, RADIX_VALUES};

    #[test]
    fn every_supported_parameter_set_builds() {
        for &radix in &RADIX_VALUES {
            for &groups in &GROUP_VALUES {
                for &counter_bits in &COUNTER_BITS_VALUES {
                    let p = EngineParams {
                        radix,
                        groups,
                        counter_bits,
                    };
                    assert!(build(&p).is_some(), "{p:?}");
                }
            }
        }
        assert!(build(&EngineParams {
            radix: 6,
            groups: 16,
            counter_bits: 16
        })
        .is_none());
    }
}
