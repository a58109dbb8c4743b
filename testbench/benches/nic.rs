//! NIC cycles per second at each simulated level, side by side in one run, on the same inputs:
//! the cycle model, the emitted Verilog under Verilator and the rust-hdl RTL under
//! `simulate()`. The inputs are those a random host program (`random_scenario`, fixed seed)
//! drives into the cycle model, replayed open loop (every level behaves identically).
//!
//! `cargo bench -p netcoll-testbench --bench nic` (optionally `-- CYCLES`).

use netcoll_models::nic::model::NicModel;
use netcoll_models::nic::scenario::{run_cycles, NicDut};
use netcoll_models::nic::{NicIn, NicOut, NicParams};
use netcoll_testbench::nic::{cycle_dut, random_scenario, Level};
use std::time::Instant;

/// The cycle model, recording every cycle's inputs.
struct Recorder {
    model: NicModel,
    inputs: Vec<NicIn>,
}

impl NicDut for Recorder {
    fn step(&mut self, i: &NicIn) -> NicOut {
        self.inputs.push(*i);
        NicDut::step(&mut self.model, i)
    }
    fn name(&self) -> &str {
        "recorder"
    }
}

fn main() {
    let cycles: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let p = NicParams::default();
    let mut rec = Recorder {
        model: NicModel::new(p),
        inputs: vec![],
    };
    let mut seed = 1;
    while rec.inputs.len() < cycles {
        let s = random_scenario(&p, seed, 4000);
        if let Err(e) = run_cycles(&s, &mut rec) {
            println!("recording failed: {e}");
            return;
        }
        seed += 1;
    }
    let all = rec.inputs;
    println!("nic cycles per second (default configuration, same inputs at every level)");
    let rtl_cycles = (cycles / 200).max(5_000);
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
        let start = Instant::now();
        let mut acc = 0u64;
        for i in &all[..n.min(all.len())] {
            acc = acc.wrapping_add(d.step(i).tx_data);
        }
        std::hint::black_box(acc);
        rows.push((level, n, n as f64 / start.elapsed().as_secs_f64()));
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
