//! Conformance harness of the reduction ALU.
//!
//! The ALU has no protocol beyond "one operation per cycle, answered one cycle later", so every
//! level is driven at cycle level through [`AluDut`]; only the design under test changes:
//! - [`Level::Golden`]: [`GoldenAlu`], the golden function behind one register stage;
//! - [`Level::Model`]: the cycle model `netcoll_models::alu::model::AluModel`;
//! - [`Level::Rtl`]: the rust-hdl block under rust-hdl's `simulate()`;
//! - [`Level::Verilator`]: the emitted Verilog under Verilator ([`VerilatorAlu`]).
//!
//! The directed suite ([`suite`]) runs unchanged at every level and checks every output every
//! cycle against the golden function. [`lockstep`] compares two designs every output every
//! cycle under the random inputs of [`Stimulus`].

pub mod suite;

pub use crate::switch::Level;

use crate::verilator::{PortDesc, VerilatedModel};
use netcoll_hdl::alu::AluRtl;
use netcoll_models::alu::golden::golden_codes;
use netcoll_models::alu::model::AluModel;
use netcoll_models::alu::{
    check_lanes, input_ports, is_reserved_op, num_inputs, num_outputs, output_ports, AluIn,
    AluLaneIn, AluLaneOut, AluOp, AluOut, Dtype, MAX_LANES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;

/// A design under test, at cycle level.
pub trait AluDut {
    fn level(&self) -> Level;
    fn lanes(&self) -> usize;
    /// One clock cycle: the outputs before the edge, then the edge with inputs `i`.
    fn step(&mut self, i: &AluIn) -> AluOut;
}

/// What the output registers load at an edge with inputs `i`, by the golden function: the
/// block's specification in one place. Lanes from `lanes` on stay zero.
pub fn golden_next(i: &AluIn, lanes: usize) -> AluOut {
    if i.reset {
        return AluOut::default();
    }
    let mut o = AluOut {
        out_valid: i.in_valid,
        err: i.in_valid && is_reserved_op(i.op),
        ..Default::default()
    };
    for (out, l) in o.lanes.iter_mut().zip(&i.lanes).take(lanes) {
        // A reserved code has no golden result: the block outputs zero.
        let (r, ri) = golden_codes(i.op, i.dtype, l.a, l.ai, l.b, l.bi).unwrap_or((0, 0));
        *out = AluLaneOut { r, ri };
    }
    o
}

/// The golden function behind one register stage (latency 1, reset to zero).
pub struct GoldenAlu {
    lanes: usize,
    q: AluOut,
}

impl GoldenAlu {
    pub fn new(lanes: usize) -> Result<Self, String> {
        Ok(Self {
            lanes: check_lanes(lanes).map_err(|e| e.to_string())?,
            q: AluOut::default(),
        })
    }
}

impl AluDut for GoldenAlu {
    fn level(&self) -> Level {
        Level::Golden
    }
    fn lanes(&self) -> usize {
        self.lanes
    }
    fn step(&mut self, i: &AluIn) -> AluOut {
        std::mem::replace(&mut self.q, golden_next(i, self.lanes))
    }
}

impl AluDut for AluModel {
    fn level(&self) -> Level {
        Level::Model
    }
    fn lanes(&self) -> usize {
        AluModel::lanes(self)
    }
    fn step(&mut self, i: &AluIn) -> AluOut {
        AluModel::step(self, i)
    }
}

impl AluDut for Box<dyn AluRtl> {
    fn level(&self) -> Level {
        Level::Rtl
    }
    fn lanes(&self) -> usize {
        self.as_ref().lanes()
    }
    fn step(&mut self, i: &AluIn) -> AluOut {
        self.as_mut().step(i)
    }
}

/// The emitted Verilog of the ALU under Verilator.
pub struct VerilatorAlu {
    lanes: usize,
    model: VerilatedModel,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

impl VerilatorAlu {
    /// Emits the `lanes`-lane block and verilates it (cached across runs).
    pub fn new(lanes: usize) -> Result<Self, String> {
        let module = netcoll_hdl::alu::reduce_alu_module(lanes).map_err(|e| e.to_string())?;
        let desc = |ports: Vec<netcoll_models::switch::PortSpec>| -> Vec<PortDesc> {
            ports
                .iter()
                .map(|s| PortDesc::new(s.name, s.width))
                .collect()
        };
        let (ins, outs) = (desc(input_ports(lanes)), desc(output_ports(lanes)));
        let model = VerilatedModel::build(&module.text, &module.name, &ins, &outs)
            .map_err(|e| e.to_string())?;
        Ok(Self {
            lanes,
            model,
            inputs: vec![0; num_inputs(lanes)],
            outputs: vec![0; num_outputs(lanes)],
        })
    }
}

impl AluDut for VerilatorAlu {
    fn level(&self) -> Level {
        Level::Verilator
    }
    fn lanes(&self) -> usize {
        self.lanes
    }
    fn step(&mut self, i: &AluIn) -> AluOut {
        i.write_values(self.lanes, &mut self.inputs);
        self.model.step(&self.inputs, &mut self.outputs);
        AluOut::from_values(self.lanes, &self.outputs)
    }
}

/// A fresh design of one level with `lanes` lanes.
pub fn dut(level: Level, lanes: usize) -> Result<Box<dyn AluDut>, String> {
    check_lanes(lanes).map_err(|e| e.to_string())?;
    Ok(match level {
        Level::Golden => Box::new(GoldenAlu::new(lanes)?),
        Level::Model => Box::new(AluModel::new(lanes).map_err(|e| e.to_string())?),
        Level::Rtl => Box::new(netcoll_hdl::alu::build(lanes).map_err(|e| e.to_string())?),
        Level::Verilator => Box::new(VerilatorAlu::new(lanes)?),
    })
}

/// The first output port of a `lanes`-lane block that differs between `expected` and
/// `actual`: (port name, expected, actual).
pub fn first_difference(
    lanes: usize,
    expected: &AluOut,
    actual: &AluOut,
) -> Option<(&'static str, u64, u64)> {
    if expected == actual {
        return None;
    }
    let (e, a) = (expected.to_values(lanes), actual.to_values(lanes));
    let names = output_ports(lanes);
    (0..e.len())
        .find(|&k| e[k] != a[k])
        .map(|k| (names[k].name, e[k], a[k]))
}

/// Inputs in words: `op=MAXLOC dtype=i32 valid reset l0=(a, ai, b, bi) ...`.
pub fn describe(i: &AluIn, lanes: usize) -> String {
    let op = AluOp::from_code(i.op & 0xF)
        .map(|o| o.name().to_string())
        .unwrap_or_else(|| format!("reserved({})", i.op & 0xF));
    let dt = Dtype::from_code(i.dtype & 3)
        .map(|d| d.name())
        .unwrap_or("?");
    let mut s = format!(
        "op={op} dtype={dt} in_valid={} reset={}",
        i.in_valid as u8, i.reset as u8
    );
    for (k, l) in i.lanes.iter().take(lanes).enumerate() {
        s += &format!(
            " l{k}=(a={:#x}, ai={:#x}, b={:#x}, bi={:#x})",
            l.a, l.ai, l.b, l.bi
        );
    }
    s
}

/// A difference between two designs run in lockstep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub seed: u64,
    pub cycle: u64,
    pub signal: &'static str,
    pub expected: u64,
    pub actual: u64,
    /// The inputs of the previous cycle, whose results were compared.
    pub cause: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seed {:#x}, cycle {}: signal {} expected {:#x}, actual {:#x} (inputs of the previous cycle: {})",
            self.seed, self.cycle, self.signal, self.expected, self.actual, self.cause
        )
    }
}

/// Runs `reference` and `dut` on the same random inputs for `cycles` cycles (the first one a
/// reset), comparing every output every cycle; returns the first difference.
pub fn lockstep(
    reference: &mut dyn AluDut,
    dut: &mut dyn AluDut,
    stim: &mut Stimulus,
    cycles: u64,
) -> Result<(), Mismatch> {
    let lanes = reference.lanes();
    let mut prev = AluIn::default();
    for cycle in 0..cycles {
        let i = if cycle == 0 {
            AluIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        let (a, b) = (reference.step(&i), dut.step(&i));
        // Before the first edge the registers hold whatever power-up gave them.
        if cycle > 0 {
            if let Some((signal, expected, actual)) = first_difference(lanes, &a, &b) {
                return Err(Mismatch {
                    seed: stim.seed(),
                    cycle,
                    signal,
                    expected,
                    actual,
                    cause: describe(&prev, lanes),
                });
            }
        }
        prev = i;
    }
    Ok(())
}

/// Words that sit on the boundaries the ALU cares about: signs, digit edges, type limits, and
/// 32-bit values with garbage in the upper half.
pub const EDGE_WORDS: [u64; 20] = [
    0,
    1,
    2,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x1_0000_0000,
    0x7FFF_FFFF_FFFF_FFFF,
    0x8000_0000_0000_0000,
    0xFFFF_FFFF_FFFF_FFFE,
    u64::MAX,
    0xFFFF_FFFF_0000_0000,
    0xA5A5_A5A5_0000_0001,
    0xFFFF_FFFF_7FFF_FFFF,
    0x0000_0001_8000_0000,
    0xFFFF_0000_FFFF_0000,
    0x0123_4567_89AB_CDEF,
    0xDEAD_BEEF_DEAD_BEEF,
];

/// Random ALU inputs from a fixed seed: mostly valid operations on a mix of edge words, random
/// words, small numbers and equal operands (so that ties happen), some idle cycles (with
/// operands still changing), some reserved operation codes and the occasional reset.
pub struct Stimulus {
    lanes: usize,
    seed: u64,
    rng: ChaCha8Rng,
    /// Probability of an idle cycle (`in_valid` low).
    pub idle: f64,
    /// Probability of a reset cycle.
    pub reset: f64,
    /// Probability of a reserved operation code.
    pub reserved: f64,
}

impl Stimulus {
    pub fn new(lanes: usize, seed: u64) -> Self {
        Self {
            lanes,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            idle: 0.15,
            reset: 0.001,
            reserved: 0.04,
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn word(&mut self) -> u64 {
        match self.rng.gen_range(0..10) {
            0..=3 => EDGE_WORDS[self.rng.gen_range(0..EDGE_WORDS.len())],
            4..=6 => self.rng.gen(),
            7 => self.rng.gen_range(0..16),
            // A small negative number, at either width.
            8 => 0u64.wrapping_sub(self.rng.gen_range(1..16)),
            _ => (0u32.wrapping_sub(self.rng.gen_range(1..16))) as u64,
        }
    }

    fn index(&mut self) -> u64 {
        match self.rng.gen_range(0..4) {
            0 | 1 => self.rng.gen_range(0..8),
            2 => self.rng.gen(),
            _ => EDGE_WORDS[self.rng.gen_range(0..EDGE_WORDS.len())],
        }
    }

    pub fn next_inputs(&mut self) -> AluIn {
        let op = if self.rng.gen_bool(self.reserved) {
            self.rng.gen_range(12..16)
        } else {
            self.rng.gen_range(0..12)
        };
        let mut i = AluIn {
            reset: self.rng.gen_bool(self.reset),
            in_valid: !self.rng.gen_bool(self.idle),
            op,
            dtype: self.rng.gen_range(0..4),
            lanes: [AluLaneIn::default(); MAX_LANES],
        };
        for k in 0..self.lanes {
            let a = self.word();
            let b = match self.rng.gen_range(0..6) {
                // Equal values (for 32-bit types, equal in the low half only).
                0 => a,
                1 => (self.word() & 0xFFFF_FFFF_0000_0000) | (a & 0xFFFF_FFFF),
                _ => self.word(),
            };
            let ai = self.index();
            let bi = if self.rng.gen_range(0..5) == 0 {
                ai
            } else {
                self.index()
            };
            i.lanes[k] = AluLaneIn { a, ai, b, bi };
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_alu_has_latency_one() {
        let mut g = GoldenAlu::new(1).expect("supported");
        let mut i = AluIn {
            in_valid: true,
            op: 4,
            dtype: 3,
            ..Default::default()
        };
        i.lanes[0] = AluLaneIn {
            a: 40,
            ai: 0,
            b: 2,
            bi: 0,
        };
        assert_eq!(g.step(&i), AluOut::default());
        let o = g.step(&AluIn::default());
        assert!(o.out_valid);
        assert_eq!(o.lanes[0].r, 42);
        assert_eq!(g.step(&AluIn::default()).lanes[0].r, 0);
    }

    #[test]
    fn stimulus_is_reproducible() {
        let mut a = Stimulus::new(4, 9);
        let mut b = Stimulus::new(4, 9);
        for _ in 0..1000 {
            assert_eq!(a.next_inputs(), b.next_inputs());
        }
    }

    #[test]
    fn differences_name_the_port() {
        let e = AluOut::default();
        let mut a = e;
        a.lanes[1].ri = 5;
        assert_eq!(first_difference(2, &e, &a), Some(("l1_ri", 0, 5)));
        assert_eq!(first_difference(2, &e, &e), None);
    }
}
