//! Engine cycles per second at each simulated level, side by side in one run, on the same
//! protocol-aware random inputs: the cycle model, the rust-hdl RTL under `simulate()` and the
//! emitted Verilog under Verilator.
//!
//! `cargo bench -p netcoll-testbench --bench engine` (optionally `-- CYCLES`).

use netcoll_models::switch::engine::EngineModel;
use netcoll_models::switch::{EngineIn, EngineParams};
use netcoll_testbench::switch::{cycle_dut, CycleDut, Level, Stimulus, RESET_CYCLES};
use std::time::Instant;

fn inputs(p: EngineParams, cycles: usize) -> Vec<EngineIn> {
    // Recorded against the cycle model; every level behaves identically, so replaying them
    // open loop exercises each level the same way.
    let mut stim = Stimulus::new(p, 0xBE0C);
    stim.reset = 0.0;
    let mut m = EngineModel::new(p);
    let mut v = Vec::with_capacity(cycles);
    for c in 0..cycles {
        let i = if (c as u64) < RESET_CYCLES {
            EngineIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        let o = m.step(&i);
        stim.observe(&i, &o);
        v.push(i);
    }
    v
}

fn rate(d: &mut dyn CycleDut, inputs: &[EngineIn]) -> f64 {
    let start = Instant::now();
    let mut acc = 0u64;
    for i in inputs {
        acc = acc.wrapping_add(d.step(i).ev_verdict);
    }
    std::hint::black_box(acc);
    inputs.len() as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let cycles: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    println!("switch_engine cycles per second (default configuration, same inputs at every level)");
    let p = EngineParams::default();
    let all = inputs(p, cycles);
    let rtl_cycles = (cycles / 100).max(5_000);
    let mut rows = vec![];
    for (level, n) in [
        (Level::Model, cycles),
        (Level::Verilator, cycles),
        (Level::Rtl, rtl_cycles),
    ] {
        let mut d = match cycle_dut(level, &p) {
            Ok(Some(d)) => d,
            Ok(None) => continue,
            Err(e) => {
                println!("{:<14} unavailable: {e}", level.name());
                continue;
            }
        };
        let r = rate(d.as_mut(), &all[..n.min(all.len())]);
        rows.push((level, n, r));
    }
    let model = rows
        .iter()
        .find(|r| r.0 == Level::Model)
        .map(|r| r.2)
        .unwrap_or(1.0);
    println!(
        "{:<14} {:>12} {:>16} {:>14}",
        "level", "cycles", "cycles/s", "vs model"
    );
    for (level, n, r) in rows {
        println!(
            "{:<14} {:>12} {:>16.0} {:>13.4}x",
            level.name(),
            n,
            r,
            r / model
        );
    }
}
