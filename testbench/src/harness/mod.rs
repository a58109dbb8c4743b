//! # One harness for every block
//!
//! - [`Level`]: the four levels a block is checked at, and [`cycle_sim`], which makes any
//!   registered block's design at a cycle level — its cycle model, its rust-hdl RTL or its
//!   emitted Verilog under Verilator — behind the one clock convention
//!   (`netcoll_models::kit::cycle::CycleSim`);
//! - [`lockstep`]: two designs side by side, every output every cycle; on the first difference
//!   a report naming the cycle, the signal, the expected and actual values, the last cycles of
//!   inputs and outputs, and a VCD of them;
//! - [`vcd`]: waveforms of any cycle-level run, with the port names of the emitted Verilog;
//! - [`knobs`]: idle gaps between transactions and random `ready` back-pressure for drivers;
//! - [`verilator`]: the emitted Verilog under Verilator (the bytes `netcoll gen` writes).
//!
//! What is block-specific — a transactor (transactions in, responses out), a directed suite,
//! random stimulus — lives in the block's module of this crate (`switch_engine`, `nic`,
//! `reduce_alu`) and runs unchanged at every level.

pub mod knobs;
pub mod lockstep;
pub mod scenario;
pub mod vcd;
pub mod verilator;

pub use knobs::Knobs;
pub use lockstep::{Lockstep, Mismatch};

use netcoll_models::config::Config;
use netcoll_models::kit::block::BlockSpec;
use netcoll_models::kit::cycle::{CycleSim, Typed};

/// The levels a block is checked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The golden reference: untimed, written for clarity.
    Golden,
    /// The cycle model: plain Rust, one `step` per clock.
    Model,
    /// The rust-hdl RTL under rust-hdl's `simulate()`.
    Rtl,
    /// The emitted Verilog under Verilator.
    Verilator,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Golden, Level::Model, Level::Rtl, Level::Verilator];
    /// The cycle-level ones, which must agree exactly, cycle for cycle.
    pub const CYCLE: [Level; 3] = [Level::Model, Level::Rtl, Level::Verilator];

    /// The name on the command line (`--levels`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Golden => "golden",
            Level::Model => "model",
            Level::Rtl => "rtl",
            Level::Verilator => "verilator",
        }
    }

    /// The name in tables and reports.
    pub fn title(self) -> &'static str {
        match self {
            Level::Golden => "golden",
            Level::Model => "cycle model",
            Level::Rtl => "rust-hdl rtl",
            Level::Verilator => "verilator",
        }
    }

    pub fn from_name(s: &str) -> Option<Level> {
        Self::ALL.into_iter().find(|l| l.name() == s)
    }

    /// Parses a `--levels` list (`model,rtl`); the error names the bad entry and what is
    /// allowed.
    pub fn parse_list(list: &[String], allowed: &[Level]) -> Result<Vec<Level>, String> {
        let names = allowed
            .iter()
            .map(|l| l.name())
            .collect::<Vec<_>>()
            .join(", ");
        let mut out = vec![];
        for l in list {
            match Level::from_name(l.trim()) {
                Some(level) if allowed.contains(&level) => {
                    if !out.contains(&level) {
                        out.push(level)
                    }
                }
                _ => {
                    return Err(format!(
                        "--levels: `{}` is not a level; allowed: {names}",
                        netcoll_models::kit::toml_text::escaped(l)
                    ))
                }
            }
        }
        if out.is_empty() {
            return Err(format!("--levels: give at least one of {names}"));
        }
        Ok(out)
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A block's cycle-level design in its typed port structs.
pub type Sim<B> = Box<dyn CycleSim<In = <B as BlockSpec>::In, Out = <B as BlockSpec>::Out>>;

/// Block `B` of configuration `cfg` at a cycle level: its cycle model, its rust-hdl RTL or its
/// emitted Verilog under Verilator (built and cached on first use). The golden level has no
/// cycles: each block's transactor runs its golden reference itself.
pub fn cycle_sim<B: BlockSpec>(level: Level, cfg: &Config) -> Result<Sim<B>, String>
where
    B::Model: 'static,
{
    let p = B::params(cfg);
    match level {
        Level::Golden => Err(format!("{}: the golden reference has no cycles", B::NAME)),
        Level::Model => Ok(Box::new(B::model(&p))),
        Level::Rtl => {
            let entry = netcoll_hdl::registry::block(B::NAME)
                .ok_or_else(|| format!("{}: no RTL is registered", B::NAME))?;
            let sim = (entry.sim)(cfg).map_err(|e| e.to_string())?;
            Ok(Box::new(Typed::<B::In, B::Out, _>::new(p, sim)))
        }
        Level::Verilator => {
            let sim = verilator::VerilatorSim::for_block(B::NAME, cfg)?;
            Ok(Box::new(Typed::<B::In, B::Out, _>::new(p, sim)))
        }
    }
}
