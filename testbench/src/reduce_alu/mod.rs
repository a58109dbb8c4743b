//! # The reduction ALU's conformance harness
//!
//! The ALU has no protocol beyond "one operation per cycle, answered its latency later"
//! ([`ReduceAluParams::latency`](netcoll_models::reduce_alu::ReduceAluParams::latency): 6, or
//! `FP_LATENCY` with the floating-point types),
//! so every level — the golden function behind a delay line
//! (`netcoll_models::reduce_alu::golden::ReduceAluGolden`), the cycle model, the rust-hdl RTL
//! and the emitted Verilog — is a cycle-level design ([`dut`]); only the design under test
//! changes. The directed suite ([`suite`]) runs unchanged at every level and checks every output
//! every cycle against the golden function. [`lockstep`] compares a design with the cycle model
//! every output every cycle (the harness's [`Lockstep`]) under the random inputs of
//! [`Stimulus`], which inserts idle cycles; the ALU's outputs have no `ready`.

pub mod suite;

use crate::harness::{cycle_sim, Level, Lockstep, Sim};
use netcoll_models::config::Config;
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::kit::ports::PortValues;
use netcoll_models::reduce_alu::fp::FpType;
use netcoll_models::reduce_alu::golden::ReduceAluGolden;
use netcoll_models::reduce_alu::model::ReduceAluModel;
use netcoll_models::reduce_alu::{
    AluLaneIn, AluOp, Dtype, ReduceAlu, ReduceAluIn, ReduceAluOut, ReduceAluParams,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The ALU at a cycle level.
pub type AluSim = Sim<ReduceAlu>;

/// The parameters of the block under test: `lanes` lanes, with all four (`fp`) or without
/// the floating-point types.
pub fn params(lanes: usize, fp: bool) -> ReduceAluParams {
    ReduceAluParams {
        lanes,
        fp: fp as usize,
        ..Default::default()
    }
}

/// The configuration with the ALU `p`.
pub fn config(p: ReduceAluParams) -> Config {
    Config {
        alu: p,
        ..Default::default()
    }
}

/// A fresh design of one level for `p` (the golden level is the golden function behind its
/// delay line).
pub fn dut(level: Level, p: ReduceAluParams) -> Result<AluSim, String> {
    if !netcoll_models::kit::params::ParamTable::is_supported(&p) {
        return Err(format!(
            "the reduction ALU has 1, 2 or 4 lanes and fp 0 or 1, not {}",
            netcoll_models::kit::params::ParamTable::describe(&p)
        ));
    }
    match level {
        Level::Golden => Ok(Box::new(ReduceAluGolden::new(p))),
        _ => cycle_sim::<ReduceAlu>(level, &config(p)),
    }
}

/// The first output port of block `p` that differs between `expected` and `actual`: (port
/// name, expected, actual).
pub fn first_difference(
    p: ReduceAluParams,
    expected: &ReduceAluOut,
    actual: &ReduceAluOut,
) -> Option<(String, u64, u64)> {
    if expected == actual {
        return None;
    }
    let (e, a) = (expected.to_values(&p), actual.to_values(&p));
    let names = ReduceAluOut::specs(&p);
    (0..e.len())
        .find(|&k| e[k] != a[k])
        .map(|k| (names[k].name.clone(), e[k], a[k]))
}

/// Inputs in words: `op=MAXLOC dtype=i32 in_valid=1 reset=0 lane0=(a, ai, b, bi) ...`.
pub fn describe(i: &ReduceAluIn, lanes: usize) -> String {
    let op = AluOp::from_code(i.op & 0xF)
        .map(|o| o.name().to_string())
        .unwrap_or_else(|| format!("reserved({})", i.op & 0xF));
    let dt = Dtype::from_code(i.dtype & 7)
        .map(|d| d.name())
        .unwrap_or("?");
    let mut s = format!(
        "op={op} dtype={dt} in_valid={} reset={}",
        i.in_valid as u8, i.reset as u8
    );
    for k in 0..lanes {
        let l = i.lane(k);
        s += &format!(
            " lane{k}=(a={:#x}, ai={:#x}, b={:#x}, bi={:#x})",
            l.a, l.ai, l.b, l.bi
        );
    }
    s
}

/// Runs `dut` against the cycle model on the same random inputs for `cycles` cycles (the first
/// one a reset), comparing every output every cycle; the first difference, with the last cycles
/// (and their waveform, given `vcd_dir`).
pub fn lockstep(
    p: ReduceAluParams,
    dut: AluSim,
    stim: &mut Stimulus,
    cycles: u64,
    vcd_dir: Option<&std::path::Path>,
) -> Result<(), String> {
    let mut l = Lockstep::new(
        p,
        Box::new(ReduceAluModel::new(p)),
        dut,
        "cycle model vs design",
    );
    if let Some(dir) = vcd_dir {
        l = l.with_vcd_dir(dir);
    }
    for cycle in 0..cycles {
        let i = if cycle == 0 {
            ReduceAluIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        l.step(&i);
        if l.mismatch().is_some() {
            break;
        }
    }
    l.finish()
        .map(|_| ())
        .map_err(|m| format!("seed {:#x}: {m}", stim.seed()))
}

/// The ALU's row of `netcoll check` at `level`: the edge-value suite with every lane count
/// (with the floating-point types as the configuration builds them), then (cycle levels)
/// random operations in lockstep with the cycle model — or, for the cycle model itself, with
/// the golden function behind its delay line.
pub fn check(level: Level, opts: &crate::check::CheckOptions) -> crate::check::Row {
    let mut row = crate::check::Row::default();
    for lanes in [1, 2, 4] {
        row.tests += 1;
        let p = ReduceAluParams {
            lanes,
            ..opts.config.alu
        };
        let suite = suite::cycles(p);
        let traced = dut(level, p).map(|d| match &opts.trace {
            Some(t) if level != Level::Golden => {
                let case = format!("edges_l{lanes}");
                Box::new(t.tap(d, p, &[level.name(), "reduce_alu", &case])) as AluSim
            }
            _ => d,
        });
        match traced {
            Ok(mut d) => match suite::run(&mut d, p, &suite) {
                Ok(r) => row.cycles += r.cycles,
                Err(e) => row.failures.push(e),
            },
            Err(e) => row.failures.push(format!("cannot build the design: {e}")),
        }
    }
    let cycles = opts.cycles_at(level);
    if level == Level::Golden || cycles == 0 {
        return row;
    }
    let p = opts.config.alu;
    row.tests += 1;
    let mut stim = Stimulus::new(p.lanes, 0xA1_0C4B);
    let design = match level {
        // The model against the golden function: the golden is the reference design here.
        Level::Model => dut(Level::Golden, p),
        _ => dut(level, p),
    };
    match design {
        Ok(d) => match lockstep(p, d, &mut stim, cycles, opts.vcd_dir.as_deref()) {
            Ok(()) => row.cycles += cycles,
            Err(e) => row.failures.push(e),
        },
        Err(e) => row.failures.push(format!("cannot build the design: {e}")),
    }
    row
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

    /// An element of floating-point type `t`: an edge value, random bits, or a number near 1
    /// (so that sums cancel and round); garbage above the element now and then.
    fn fp_word(&mut self, t: FpType) -> u64 {
        let garbage = if t.bits() < 64 && self.rng.gen_bool(0.2) {
            self.rng.gen::<u64>() & !t.mask()
        } else {
            0
        };
        let f = t.fraction_bits();
        let x = match self.rng.gen_range(0..4) {
            0 => {
                let e = suite::fp_edges(t);
                e[self.rng.gen_range(0..e.len())]
            }
            1 => self.rng.gen::<u64>() & t.mask(),
            _ => {
                let exponent = (t.bias() + self.rng.gen_range(-6..6)) as u64;
                let sign = if self.rng.gen() { t.sign_bit() } else { 0 };
                sign | exponent << f | (self.rng.gen::<u64>() & ((1 << f) - 1))
            }
        };
        x | garbage
    }

    /// A second floating-point operand for `a`: equal, negated (cancellation), the same
    /// exponent, a unit in the last place away, or unrelated.
    fn fp_partner(&mut self, t: FpType, a: u64) -> u64 {
        let f = t.fraction_bits();
        match self.rng.gen_range(0..6) {
            0 => a,
            1 => a ^ t.sign_bit(),
            2 => (a & !((1 << f) - 1)) | (self.rng.gen::<u64>() & ((1 << f) - 1)),
            3 => (a.wrapping_add(1) & t.mask()) ^ (self.rng.gen_range(0..2) * t.sign_bit()),
            _ => self.fp_word(t),
        }
    }

    pub fn next_inputs(&mut self) -> ReduceAluIn {
        let op = if self.rng.gen_bool(self.reserved) {
            self.rng.gen_range(12..16)
        } else {
            self.rng.gen_range(0..12)
        };
        let dtype = self.rng.gen_range(0..8u64);
        let mut i = ReduceAluIn {
            reset: self.rng.gen_bool(self.reset),
            in_valid: !self.rng.gen_bool(self.idle),
            op,
            dtype,
            ..Default::default()
        };
        let fp = Dtype::from_code(dtype).and_then(|d| d.fp());
        for k in 0..self.lanes {
            if let Some(t) = fp {
                let a = self.fp_word(t);
                let b = self.fp_partner(t, a);
                let ai = self.index();
                let bi = if self.rng.gen_range(0..5) == 0 {
                    ai
                } else {
                    self.index()
                };
                i.set_lane(k, AluLaneIn { a, ai, b, bi });
                continue;
            }
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
            i.set_lane(k, AluLaneIn { a, ai, b, bi });
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let e = ReduceAluOut::default();
        let mut a = e;
        a.ri[1] = 5;
        assert_eq!(
            first_difference(params(2, false), &e, &a),
            Some(("ri_1".to_string(), 0, 5))
        );
        assert_eq!(first_difference(params(2, true), &e, &e), None);
    }

    #[test]
    fn golden_level_answers_after_the_latency() {
        let mut g = dut(Level::Golden, params(1, false)).expect("supported");
        let mut i = ReduceAluIn {
            in_valid: true,
            op: 4,
            dtype: 3,
            ..Default::default()
        };
        i.set_lane(
            0,
            AluLaneIn {
                a: 40,
                ai: 0,
                b: 2,
                bi: 0,
            },
        );
        assert_eq!(g.step(&i), ReduceAluOut::default());
        for t in 1..6 {
            assert_eq!(
                g.step(&ReduceAluIn::default()),
                ReduceAluOut::default(),
                "cycle {t}"
            );
        }
        let o = g.step(&ReduceAluIn::default());
        assert!(o.out_valid);
        assert_eq!(o.r[0], 42, "cycle 6");
        assert_eq!(g.step(&ReduceAluIn::default()).r[0], 0);
        assert!(dut(Level::Model, params(3, false)).is_err());
    }
}
