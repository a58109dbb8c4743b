//! Simulating a block under rust-hdl with the one clock convention.

use super::PortIo;
use netcoll_models::kit::cycle::ValueSim;
use rust_hdl::prelude::*;

/// Iterations `simulate()` may take to settle one clock phase; a block that does not settle
/// has a combinational loop, which the emitter and Verilator would also reject.
const SETTLE: usize = 1000;

/// A rust-hdl block simulated one clock cycle at a time (see
/// `netcoll_models::kit::cycle`): inputs applied, clock low, settle, outputs sampled, clock
/// high, settle. This calls rust-hdl's `simulate()` directly: its `Simulation` harness is
/// about a hundred times slower.
pub struct RtlSim<B: Block + PortIo> {
    /// Boxed: a block with a payload path is a quarter of a megabyte.
    block: Box<B>,
}

impl<B: Block + PortIo> RtlSim<B> {
    /// Takes a block and connects it.
    pub fn new(block: B) -> RtlSim<B> {
        Self::from_box(Box::new(block))
    }

    /// Takes a boxed block and connects it (without moving it onto the stack).
    pub fn from_box(mut block: Box<B>) -> RtlSim<B> {
        block.connect_all();
        RtlSim { block }
    }

    /// The block, for tests that look inside.
    pub fn block(&mut self) -> &mut B {
        &mut self.block
    }
}

impl<B: Block + PortIo> ValueSim for RtlSim<B> {
    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.block.drive(inputs);
        self.block.set_clock(false);
        simulate(self.block.as_mut(), SETTLE);
        self.block.sample(outputs);
        self.block.set_clock(true);
        simulate(self.block.as_mut(), SETTLE);
    }

    fn peek_values(&mut self, outputs: &mut [u64]) {
        self.block.sample(outputs);
    }
}
