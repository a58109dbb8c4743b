//! # NIC conformance harness
//!
//! Every level of the NIC behind one interface, [`NicDut`] (from `netcoll_models::nic::scenario`,
//! whose `step` applies a clock edge and returns the outputs *after* it — the NIC's outputs are
//! registered, so those are the next cycle's):
//! the cycle model, the rust-hdl RTL and the emitted Verilog under Verilator. A scenario (a host
//! program) runs unchanged on any of them through `run_cycles`, and on the golden reference
//! through `run_golden`.
//!
//! - [`Lockstep`] runs two cycle-level designs side by side and compares every output every
//!   cycle, keeping the first mismatch (cycle, port, expected, actual, inputs);
//! - [`random_scenario`] makes a random host program (fixed seed) that exercises every work
//!   request, error path and host command, for lockstep runs;
//! - [`run_level`] runs a scenario at one named level — what `netcoll nic run` uses.

pub mod random;

pub use random::random_scenario;

use crate::verilator::{PortDesc, VerilatedModel};
use netcoll_hdl::nic::NicRtl;
use netcoll_models::config::Config;
use netcoll_models::nic::model::NicModel;
use netcoll_models::nic::scenario::{run_cycles, run_golden, Event, NicDut, Scenario};
use netcoll_models::nic::{input_ports, output_ports, NicIn, NicOut, NicParams};

/// A level a scenario can run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Golden,
    Model,
    Rtl,
    Verilator,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Golden, Level::Model, Level::Rtl, Level::Verilator];
    /// The cycle-level ones, which must agree exactly.
    pub const CYCLE: [Level; 3] = [Level::Model, Level::Rtl, Level::Verilator];
    pub fn name(self) -> &'static str {
        match self {
            Level::Golden => "golden",
            Level::Model => "model",
            Level::Rtl => "rtl",
            Level::Verilator => "verilator",
        }
    }
    pub fn from_name(s: &str) -> Option<Level> {
        Self::ALL.into_iter().find(|l| l.name() == s)
    }
}

/// The cycle model as a [`NicDut`] is implemented in `netcoll_models`; this is the rust-hdl RTL.
pub struct RtlNic(pub Box<dyn NicRtl>);

impl NicDut for RtlNic {
    fn step(&mut self, i: &NicIn) -> NicOut {
        self.0.step(i);
        self.0.outputs()
    }
    fn name(&self) -> &str {
        "rust-hdl rtl"
    }
}

/// The generated Verilog (`nic.v` and the `reduce_alu_l1.v` it instantiates) under Verilator.
pub struct VerilatorNic {
    model: VerilatedModel,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

impl VerilatorNic {
    /// Generates the NIC for `p` exactly as `netcoll gen` writes it and verilates it (cached).
    pub fn new(p: &NicParams) -> Result<Self, String> {
        Self::from_text(&Self::verilog(p)?)
    }

    /// The text Verilator compiles for `p`: `nic.v` followed by the files it requires, as
    /// `netcoll gen` writes them.
    pub fn verilog(p: &NicParams) -> Result<String, String> {
        let cfg = Config {
            nic: *p,
            ..Default::default()
        };
        let files = netcoll_hdl::generate::generate(&cfg).map_err(|e| e.to_string())?;
        let nic = netcoll_hdl::generate::nic(&cfg).map_err(|e| e.to_string())?;
        // The files `netcoll gen` writes for the NIC: its own and every module it instantiates.
        let mut text = String::new();
        for name in std::iter::once(&nic.name).chain(nic.children.iter().map(|c| &c.name)) {
            let f = files
                .iter()
                .find(|f| f.name == format!("{name}.v"))
                .ok_or_else(|| format!("{name}.v is not generated"))?;
            text.push_str(&f.contents);
        }
        Ok(text)
    }

    /// Verilates `text` (a `nic` module and what it instantiates), e.g. a deliberately broken
    /// variant of [`VerilatorNic::verilog`] in a mutation test.
    pub fn from_text(text: &str) -> Result<Self, String> {
        let desc = |ports: Vec<netcoll_models::switch::PortSpec>| -> Vec<PortDesc> {
            ports
                .iter()
                .map(|s| PortDesc::new(s.name, s.width))
                .collect()
        };
        let (ins, outs) = (desc(input_ports()), desc(output_ports()));
        let model = VerilatedModel::build(text, netcoll_hdl::nic::TOP, &ins, &outs)
            .map_err(|e| e.to_string())?;
        Ok(Self {
            model,
            inputs: vec![0; ins.len()],
            outputs: vec![0; outs.len()],
        })
    }
}

impl NicDut for VerilatorNic {
    fn step(&mut self, i: &NicIn) -> NicOut {
        i.write_values(&mut self.inputs);
        self.model.step(&self.inputs, &mut self.outputs);
        self.model.outputs_now(&mut self.outputs);
        NicOut::from_values(&self.outputs)
    }
    fn name(&self) -> &str {
        "verilator"
    }
}

/// A fresh cycle-level design of `level` (`None` for the golden, which has no cycles).
pub fn cycle_dut(level: Level, p: &NicParams) -> Result<Option<Box<dyn NicDut>>, String> {
    Ok(match level {
        Level::Golden => None,
        Level::Model => Some(Box::new(NicModel::new(*p))),
        Level::Rtl => Some(Box::new(RtlNic(
            netcoll_hdl::nic::build(p)
                .ok_or_else(|| format!("unsupported NIC parameters {p:?}"))?,
        ))),
        Level::Verilator => Some(Box::new(VerilatorNic::new(p)?)),
    })
}

/// Runs `s` at `level`.
pub fn run_level(s: &Scenario, level: Level) -> Result<Vec<Event>, String> {
    match cycle_dut(level, &s.params)? {
        None => run_golden(s).map_err(|e| e.to_string()),
        Some(mut d) => run_cycles(s, d.as_mut()).map_err(|e| e.to_string()),
    }
}

/// The first difference seen by [`Lockstep`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub port: &'static str,
    pub expected: u64,
    pub actual: u64,
    pub inputs: NicIn,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cycle {}: output `{}` expected {:#x}, got {:#x}; inputs {:?}",
            self.cycle, self.port, self.expected, self.actual, self.inputs
        )
    }
}

/// Two cycle-level designs in lockstep: every cycle both get the same inputs and every output
/// port is compared. It answers with the reference's outputs, so a driver sees one design.
pub struct Lockstep {
    pub reference: Box<dyn NicDut>,
    pub dut: Box<dyn NicDut>,
    pub cycles: u64,
    pub first_mismatch: Option<Mismatch>,
    name: String,
}

impl Lockstep {
    pub fn new(reference: Box<dyn NicDut>, dut: Box<dyn NicDut>) -> Lockstep {
        let name = format!("{} vs {}", reference.name(), dut.name());
        Lockstep {
            reference,
            dut,
            cycles: 0,
            first_mismatch: None,
            name,
        }
    }
}

impl NicDut for Lockstep {
    fn step(&mut self, i: &NicIn) -> NicOut {
        let a = self.reference.step(i);
        let b = self.dut.step(i);
        if self.first_mismatch.is_none() && a != b {
            let (av, bv) = (a.to_values(), b.to_values());
            if let Some((k, port)) = output_ports()
                .iter()
                .enumerate()
                .find(|(k, _)| av[*k] != bv[*k])
            {
                self.first_mismatch = Some(Mismatch {
                    cycle: self.cycles,
                    port: port.name,
                    expected: av[k],
                    actual: bv[k],
                    inputs: *i,
                });
            }
        }
        self.cycles += 1;
        a
    }
    fn name(&self) -> &str {
        &self.name
    }
}

/// Runs `s` on `reference` and `dut` in lockstep; the events, or the first mismatch / error.
pub fn lockstep(
    s: &Scenario,
    reference: Box<dyn NicDut>,
    dut: Box<dyn NicDut>,
) -> Result<(Vec<Event>, u64), String> {
    let mut l = Lockstep::new(reference, dut);
    let events = run_cycles(s, &mut l);
    if let Some(m) = &l.first_mismatch {
        return Err(format!("{}: {m}", l.name));
    }
    Ok((events.map_err(|e| e.to_string())?, l.cycles))
}
