//! Simulation speed on one core for fabrics of 64, 512 and 4096 nodes, measured side by side
//! in one run: barriers under 0.1 % loss, each case run three times and the fastest kept (the
//! machines this runs on are shared and noisy).
//!
//! Columns, per second of wall time:
//! - `packets/s`: packets delivered over a link (the strictest count: one per hop);
//! - `events/s`: everything the kernel simulates one by one: the queued events (packet
//!   arrivals, node software steps, timers, wake-ups, management messages; credit returns are
//!   not counted, see the summary's `events`) plus the switch clock cycles stepped one at a
//!   time (idle stretches are skipped at once);
//! - `ns/(node·barrier)`: wall time per node and barrier (flat when the cost is linear in the
//!   node count).
//!
//! `cargo bench -p netcoll-fabric`. `NETCOLL_BENCH_SCALE` multiplies the barriers of every
//! case (default 1); `NETCOLL_BENCH_ONLY=4096` runs the cases whose name contains it (for
//! profiling).

use netcoll_fabric::{parse, Fabric, RunOptions};
use netcoll_models::config::Config;
use std::time::Instant;

fn main() {
    let scale: u64 = std::env::var("NETCOLL_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let only = std::env::var("NETCOLL_BENCH_ONLY").unwrap_or_default();
    // Barriers per case: about the same number of packets in each.
    let cases = [
        (
            "64 nodes: leaf-spine k=16 (hosts=64)",
            "[fabric]\ntopology='fat_tree'\nk=16\nlevels=2\nhosts=64",
            "",
            1600,
        ),
        (
            "512 nodes: fat tree k=16, 3 levels (hosts=512)",
            "[fabric]\ntopology='fat_tree'\nk=16\nlevels=3\nhosts=512",
            "",
            160,
        ),
        (
            "4096 nodes: fat tree k=26, 3 levels (hosts=4096)",
            "[fabric]\ntopology='fat_tree'\nk=26\nlevels=3\nhosts=4096",
            "[switch]\nradix=32\n",
            20,
        ),
    ];
    println!(
        "{:<50} {:>9} {:>10} {:>11} {:>8} {:>11} {:>11} {:>18}",
        "fabric",
        "barriers",
        "packets",
        "events",
        "seconds",
        "packets/s",
        "events/s",
        "ns/(node·barrier)"
    );
    let mut rates = vec![];
    for (name, fabric, switch, barriers) in cases {
        if !name.contains(&only) {
            continue;
        }
        let barriers = barriers * scale;
        let text = format!(
            "{switch}{fabric}\nlatency=20\n[node]\noverhead=50\nretry_timeout=5000\ncompute=[0,100]\n[[group]]\nmembers='all'\nbarriers={barriers}\n[[fault]]\nkind='loss'\nrate=0.001\n"
        );
        let file = parse(&text).expect("bench fabric parses");
        let fab = Fabric::new(file, Config::default()).expect("bench fabric is valid");
        let nodes = fab.topo.node_names.len() as f64;
        let mut best = f64::INFINITY;
        let mut summary = None;
        for _ in 0..3 {
            let t0 = Instant::now();
            let r = fab
                .run(
                    &RunOptions {
                        seed: 1,
                        ..Default::default()
                    },
                    &mut |_, _| {},
                )
                .expect("bench run");
            best = best.min(t0.elapsed().as_secs_f64());
            assert!(r.summary.safe, "{}", r.table());
            summary = Some(r.summary);
        }
        let Some(s) = summary else { continue };
        let events = s.events + s.steps;
        let rate = s.packets as f64 / best;
        rates.push((name, rate, best * 1e9 / (nodes * s.barriers as f64)));
        println!(
            "{:<50} {:>9} {:>10} {:>11} {:>8.3} {:>11.3e} {:>11.3e} {:>18.1}",
            name,
            s.barriers,
            s.packets,
            events,
            best,
            rate,
            events as f64 / best,
            best * 1e9 / (nodes * s.barriers as f64)
        );
    }
    if let Some(&(_, base, base_cost)) = rates.first() {
        for (name, rate, cost) in &rates[1..] {
            println!(
                "{name}: packets/s {:.2} of the first case's, cost per node and barrier {:.2} of it",
                rate / base,
                cost / base_cost
            );
        }
    }
}
