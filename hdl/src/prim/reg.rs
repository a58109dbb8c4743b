//! The registers: [`Reg`], with synchronous, active-high reset to zero ([`StateReg`] is one
//! that holds a large state machine's state); [`DataReg`], without reset (its docs say when a
//! block may use it), and [`KeptReg`], a `DataReg` that synthesis may not share between
//! instances; and [`dff_setup!`](crate::dff_setup), which wires any of them.
//!
//! `Reg`'s ports:
//!
//! # Inputs
//! - `clock`: rising-edge clock.
//! - `reset`: synchronous reset; at an edge with `reset` high, `q` becomes zero.
//! - `d`: next value.
//!
//! # Outputs
//! - `q`: the registered value.
//!
//! Zero is the only reset value on purpose: every netcoll block encodes its idle state as zero,
//! which keeps the emitted reset branch a plain list of `<= 0` assignments.

use super::PRIMITIVE_MARK;
use rust_hdl::prelude::*;

/// Declares a register with synchronous reset to zero: the struct (its docs given by the
/// caller), its simulation, and the primitive mark (`kind`) by which the back end knows it.
macro_rules! register_with_reset {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, LogicBlock, Default)]
        pub struct $name<T: Synth> {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, bool>,
            pub d: Signal<In, T>,
            pub q: Signal<Out, T>,
        }

        impl<T: Synth> Logic for $name<T> {
            fn update(&mut self) {
                if self.clock.pos_edge() {
                    self.q.next = if self.reset.val() {
                        T::default()
                    } else {
                        self.d.val()
                    };
                }
            }
            fn connect(&mut self) {
                self.q.connect();
            }
            fn hdl(&self) -> Verilog {
                Verilog::Custom(format!(
                    "{PRIMITIVE_MARK}{}\nalways @(posedge clock) begin\n    if (reset) q <= {w}'d0;\n    else q <= d;\nend\n",
                    $kind,
                    w = T::BITS
                ))
            }
            fn timing(&self) -> Vec<TimingInfo> {
                vec![TimingInfo {
                    name: "reg".into(),
                    clock: "clock".into(),
                    inputs: vec!["d".into(), "reset".into()],
                    outputs: vec!["q".into()],
                }]
            }
        }

        impl<T: Synth> Clocked for $name<T> {
            fn setup(&mut self, clock: Clock, reset: bool) {
                self.clock.next = clock;
                self.d.next = self.q.val();
                self.reset.next = reset;
            }
        }
    };
}

register_with_reset!(
    /// The register with synchronous reset to zero (its ports in the module docs).
    Reg,
    "reg"
);

register_with_reset!(
    /// A [`Reg`] that holds the state of a state machine of many states: the back end declares
    /// it `(* fsm_encoding = "one-hot" *)`, so that Yosys, which extracts the machine, gives
    /// each state a flip-flop of its own.
    ///
    /// Ports as [`Reg`]'s; the Verilog keeps the state's binary code (its enum's positions),
    /// and simulation, Verilator and the lint see exactly a `Reg`.
    ///
    /// Why it exists: Yosys's `fsm` pass recodes a machine it extracts, but maps its `auto`
    /// encoding to binary from 32 states on. The NIC's sequencer has 32, and every unit decodes
    /// the 5-bit state in front of every decision it makes: some 3 levels of logic and a wide
    /// fan-out on each of the NIC's longest paths. One-hot, each decision reads one flip-flop
    /// (67.5 → 77.5 MHz on ECP5 -6, seed 1). Other synthesis tools ignore the attribute or
    /// spell it differently (Vivado: `one_hot`).
    StateReg,
    "reg onehot"
);

/// Declares a register without reset: the struct (its docs given by the caller), its
/// simulation, and the primitive mark (`kind`) by which the back end knows it.
macro_rules! register_without_reset {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, LogicBlock, Default)]
        pub struct $name<T: Synth> {
            pub clock: Signal<In, Clock>,
            pub d: Signal<In, T>,
            pub q: Signal<Out, T>,
        }

        impl<T: Synth> Logic for $name<T> {
            fn update(&mut self) {
                if self.clock.pos_edge() {
                    self.q.next = self.d.val();
                }
            }
            fn connect(&mut self) {
                self.q.connect();
            }
            fn hdl(&self) -> Verilog {
                Verilog::Custom(format!(
                    "{PRIMITIVE_MARK}{}\nalways @(posedge clock) q <= d;\n",
                    $kind
                ))
            }
            fn timing(&self) -> Vec<TimingInfo> {
                vec![TimingInfo {
                    name: "reg".into(),
                    clock: "clock".into(),
                    inputs: vec!["d".into()],
                    outputs: vec!["q".into()],
                }]
            }
        }

        impl<T: Synth> Clocked for $name<T> {
            fn setup(&mut self, clock: Clock, _reset: bool) {
                self.clock.next = clock;
                self.d.next = self.q.val();
            }
        }
    };
}

register_without_reset!(
    /// A register without reset, for a datapath stage whose contents are never visible at a
    /// block's outputs unless a flag that does reset (a valid bit, a select) says they belong to
    /// an operation offered after the reset.
    ///
    /// # Inputs
    /// - `clock`: rising-edge clock.
    /// - `d`: next value.
    ///
    /// # Outputs
    /// - `q`: the registered value; zero before the first edge (in rust-hdl and under
    ///   Verilator), and through a reset it keeps what it holds.
    ///
    /// Why it exists: on an FPGA a synchronous reset is one net to every register it clears.
    /// The four floating-point datapaths of a 4-lane ALU hold some 22,000 flip-flops, and the
    /// reset's fan-out to them was the longest path of the placed block (10 ns of routing).
    DataReg,
    "reg noreset"
);

register_without_reset!(
    /// A [`DataReg`] that every instance of its block keeps for itself: the back end writes it
    /// in an `always` block marked `(* keep *)`, so synthesis does not merge it with the
    /// identical register of a sibling instance.
    ///
    /// Ports as [`DataReg`]'s.
    ///
    /// Why it exists: after flattening, Yosys's `opt_merge` shares registers that have the same
    /// next value. The four floating-point datapaths of a 4-lane ALU all register the same `op`
    /// and `dtype` stage by stage, so each of those registers became one flip-flop driving
    /// multiplexers in all four datapaths, spread over the chip: the longest path of the placed
    /// block (8 of its 9.8 ns routing). Use it for a block's control registers that fan out
    /// widely inside the block and whose next value sibling instances share; a datapath register
    /// needs nothing (its operands differ from instance to instance).
    KeptReg,
    "reg noreset keep"
);

/// What [`dff_setup!`] does to one register: its clock, `d = q` (hold unless `update` assigns
/// `d` later) and, for a [`Reg`], the block's reset.
pub trait Clocked {
    fn setup(&mut self, clock: Clock, reset: bool);
}

/// `dff_setup!(self, clock, a, b, …)` for netcoll's [`Reg`]s and [`DataReg`]s: each register
/// gets the block's `clock` and (a [`Reg`]) its synchronous `reset`, and holds its value unless
/// `update` assigns its `d` later.
///
/// It shadows rust-hdl's macro of the same name (import it with `use crate::dff_setup;` after
/// the rust-hdl prelude). `#[hdl_gen]` reads the invocation as rust-hdl's ("clock, and `d = q`
/// by default"); the reset needs no statement in the emitted Verilog, where every `Reg`
/// resets with the block's `reset` (see [`crate::emit`]), so this only adds the reset wiring
/// the rust-hdl simulation needs — which every block used to write out by hand, one line per
/// register.
#[macro_export]
macro_rules! dff_setup {
    ($self:ident, $clock:ident, $($reg:ident),+ $(,)?) => {
        $(
            $crate::prim::reg::Clocked::setup(
                &mut $self.$reg,
                $self.$clock.val(),
                $self.reset.val(),
            );
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(r: &mut Reg<Bits<8>>, d: u64, reset: bool) -> u64 {
        r.d.next = d.into();
        r.reset.next = reset;
        r.clock.next = Clock { clk: false };
        simulate(r, 10);
        r.clock.next = Clock { clk: true };
        simulate(r, 10);
        r.q.val().to_u64()
    }

    #[test]
    fn data_reg_loads_and_keeps_its_value_without_reset() {
        let mut r = DataReg::<Bits<8>>::default();
        r.connect_all();
        let mut edge = |d: u64| {
            r.d.next = d.into();
            r.clock.next = Clock { clk: false };
            simulate(&mut r, 10);
            r.clock.next = Clock { clk: true };
            simulate(&mut r, 10);
            r.q.val().to_u64()
        };
        assert_eq!(edge(0x5a), 0x5a);
        assert_eq!(edge(0x11), 0x11);
    }

    #[test]
    fn reg_loads_and_resets_synchronously() {
        let mut r = Reg::<Bits<8>>::default();
        r.connect_all();
        assert_eq!(step(&mut r, 0x5a, false), 0x5a);
        assert_eq!(step(&mut r, 0x11, true), 0);
        assert_eq!(step(&mut r, 0x22, false), 0x22);
    }
}
