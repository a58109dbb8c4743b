//! # Bench rows: cycles per second of each block at each cycle level
//!
//! Inputs are recorded once from the cycle model under the block's own random stimulus, then
//! replayed open loop at the cycle model, the emitted Verilog under Verilator and the rust-hdl
//! RTL (a two-hundredth as many there, at least 5,000: it is about a thousand times slower), so
//! every level does the same work and the figures are comparable within one run. The
//! `blocks` bench (`cargo bench -p netcoll-testbench --bench blocks`) prints them as ratios to
//! the cycle model.

use crate::harness::{cycle_sim, Level};
use netcoll_models::config::Config;
use netcoll_models::kit::block::BlockSpec;
use netcoll_models::kit::cycle::CycleSim;
use std::time::Instant;

/// Replays `inputs` at every cycle level of `B`: (level, cycles per second).
fn replay<B: BlockSpec>(cfg: &Config, inputs: &[B::In]) -> Result<Vec<(Level, f64)>, String>
where
    B::Model: 'static,
{
    let mut rows = vec![];
    for level in Level::CYCLE {
        let n = match level {
            Level::Rtl => (inputs.len() / 200).max(5_000).min(inputs.len()),
            _ => inputs.len(),
        };
        let mut d = cycle_sim::<B>(level, cfg)?;
        let start = Instant::now();
        let mut acc = 0u64;
        for i in &inputs[..n] {
            let o = d.step(i);
            // Keep the outputs alive so the work is not optimised away.
            acc = acc.wrapping_add((o == B::Out::default()) as u64);
        }
        std::hint::black_box(acc);
        rows.push((level, n as f64 / start.elapsed().as_secs_f64()));
    }
    Ok(rows)
}

/// A design that records the inputs it is given.
struct Recorder<S: CycleSim> {
    sim: S,
    inputs: Vec<S::In>,
}

impl<S: CycleSim> CycleSim for Recorder<S> {
    type In = S::In;
    type Out = S::Out;
    fn step(&mut self, i: &S::In) -> S::Out {
        self.inputs.push(*i);
        self.sim.step(i)
    }
    fn peek(&mut self) -> S::Out {
        self.sim.peek()
    }
}

/// The switch engine under its protocol-aware stimulus.
pub fn switch_engine(cfg: &Config, cycles: u64) -> Result<Vec<(Level, f64)>, String> {
    use crate::switch_engine::{Stimulus, RESET_CYCLES};
    use netcoll_models::switch_engine::{model::SwitchEngineModel, SwitchEngine, SwitchEngineIn};
    let p = cfg.switch;
    let mut stim = Stimulus::new(p, 0xBE0C);
    stim.reset = 0.0;
    let mut m = SwitchEngineModel::new(p);
    let mut inputs = Vec::with_capacity(cycles as usize);
    for c in 0..cycles {
        let i = if c < RESET_CYCLES {
            SwitchEngineIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        let o = m.step(&i);
        stim.observe(&i, &o);
        inputs.push(i);
    }
    replay::<SwitchEngine>(cfg, &inputs)
}

/// The NIC under random host programs.
pub fn nic(cfg: &Config, cycles: u64) -> Result<Vec<(Level, f64)>, String> {
    use netcoll_models::nic::{model::NicModel, Nic};
    let p = cfg.nic;
    let mut r = Recorder {
        sim: NicModel::new(p),
        inputs: Vec::with_capacity(cycles as usize),
    };
    let mut seed = 1;
    while (r.inputs.len() as u64) < cycles {
        let s = crate::nic::random_scenario(&p, seed, 400);
        crate::nic::scenario::run_cycles(&s, &mut r, "cycle model").map_err(|e| e.to_string())?;
        seed += 1;
    }
    replay::<Nic>(cfg, &r.inputs)
}

/// The reduction ALU under its random operations.
pub fn reduce_alu(cfg: &Config, cycles: u64) -> Result<Vec<(Level, f64)>, String> {
    use netcoll_models::reduce_alu::{ReduceAlu, ReduceAluIn};
    let mut stim = crate::reduce_alu::Stimulus::new(cfg.alu.lanes, 0xBE0C);
    let inputs: Vec<ReduceAluIn> = (0..cycles).map(|_| stim.next_inputs()).collect();
    replay::<ReduceAlu>(cfg, &inputs)
}
