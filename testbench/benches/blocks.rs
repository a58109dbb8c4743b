//! Cycles per second of every registered block at each cycle level, side by side in one run on
//! the same recorded inputs (see `netcoll_testbench::bench`).
//!
//! `cargo bench -p netcoll-testbench --bench blocks [-- CYCLES]` (default 1,000,000 per block).

use netcoll_models::config::Config;
use netcoll_testbench::harness::Level;

fn main() {
    let cycles: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let cfg = Config::default();
    println!(
        "cycles per second, default configuration {} ({} recorded cycles per block)",
        cfg.hash(),
        cycles
    );
    println!(
        "{:<16} {:<14} {:>16} {:>12}",
        "block", "level", "cycles/s", "vs model"
    );
    for b in netcoll_testbench::registry::blocks() {
        match (b.bench)(&cfg, cycles) {
            Ok(rows) => {
                let model = rows
                    .iter()
                    .find(|r| r.0 == Level::Model)
                    .map_or(1.0, |r| r.1);
                for (level, rate) in rows {
                    println!(
                        "{:<16} {:<14} {:>16.0} {:>11.4}x",
                        b.name,
                        level.title(),
                        rate,
                        rate / model
                    );
                }
            }
            Err(e) => println!("{:<16} unavailable: {e}", b.name),
        }
    }
}
