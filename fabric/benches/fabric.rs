//! Simulation speed on one core, measured side by side in one run (each case run three times
//! and the fastest kept: the machines this runs on are shared and noisy).
//!
//! Two tables:
//! 1. **64, 512 and 4096 nodes** (a leaf-spine, and two 3-level fat trees), barriers under
//!    0.1 % loss;
//! 2. **cost against size**: one 3-level fat tree of radix 26 populated with 512, 1024, 2048
//!    and 4096 nodes, loss free, so that every node does the same work per barrier whatever
//!    the size: a cost per node and barrier that stays flat is a cost linear in the nodes.
//! 3. **who runs the barrier** (`fabric run --algo`): 128 nodes on a 3-level fat tree of radix
//!    8, the same barriers by the switches, by the NICs (every NIC a cycle model, stepped every
//!    cycle) and by host software over the NICs: wall time per node and barrier side by side,
//!    and for the NICs' runs NIC cycles simulated per second (nodes × cycles / seconds).
//!
//! Columns, per second of wall time:
//! - `packets/s`: packets delivered over a link (the strictest count: one per hop);
//! - `events/s`: everything the kernel simulates one by one: the queued events (packet
//!   arrivals, node software steps, timers, wake-ups, management messages; the wake-ups of
//!   senders by returning credits are not counted, see the summary's `events`) plus the switch
//!   clock cycles stepped one at a time (idle stretches are skipped at once);
//! - `ns/(node·barrier)`: wall time per node and barrier.
//!
//! `cargo bench -p netcoll-fabric`. `NETCOLL_BENCH_SCALE` multiplies the barriers of every
//! case (default 1); `NETCOLL_BENCH_ONLY=4096` runs the cases whose name contains it (for
//! profiling).

use netcoll_fabric::{parse, Algo, Fabric, OffloadOptions, Summary};
use netcoll_models::config::Config;
use std::time::Instant;

/// One case's best run.
struct Measured {
    barriers: u64,
    packets: u64,
    events: u64,
    seconds: f64,
    nodes: f64,
}

impl Measured {
    fn ns_per_node_barrier(&self) -> f64 {
        self.seconds * 1e9 / (self.nodes * self.barriers as f64)
    }
}

/// Runs `text`'s collectives by `algo` three times (seed 1): the fastest time, the summary and
/// the number of nodes.
fn best_of_three(text: &str, algo: Algo) -> (f64, Summary, f64) {
    let file = parse(text).expect("bench fabric parses");
    let fab = Fabric::new(file, Config::default()).expect("bench fabric is valid");
    let mut best = f64::INFINITY;
    let mut summary = None;
    for _ in 0..3 {
        let t0 = Instant::now();
        let r = fab
            .run_offloaded(
                algo,
                &OffloadOptions {
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
    let nodes = fab.topo.node_names.len() as f64;
    (best, summary.expect("three runs"), nodes)
}

/// Tables 1 and 2: the switches' barriers of `text`.
fn measure(text: &str) -> Measured {
    let (seconds, s, nodes) = best_of_three(text, Algo::Switch);
    Measured {
        barriers: s.barriers,
        packets: s.packets,
        events: s.events + s.steps,
        seconds,
        nodes,
    }
}

fn header() {
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
}

fn row(name: &str, m: &Measured) {
    println!(
        "{:<50} {:>9} {:>10} {:>11} {:>8.3} {:>11.3e} {:>11.3e} {:>18.1}",
        name,
        m.barriers,
        m.packets,
        m.events,
        m.seconds,
        m.packets as f64 / m.seconds,
        m.events as f64 / m.seconds,
        m.ns_per_node_barrier()
    );
}

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
    header();
    let mut rates = vec![];
    for (name, fabric, switch, barriers) in cases {
        if !name.contains(&only) {
            continue;
        }
        let barriers = barriers * scale;
        let m = measure(&format!(
            "{switch}{fabric}\nlatency=20\n[node]\noverhead=50\nretry_timeout=5000\ncompute=[0,100]\n[[group]]\nmembers='all'\nbarriers={barriers}\n[[fault]]\nkind='loss'\nrate=0.001\n"
        ));
        row(name, &m);
        rates.push((name, m.packets as f64 / m.seconds, m.ns_per_node_barrier()));
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
    // Cost against size: one topology, loss free, so that the work per node and barrier is the
    // same at every size (about the same number of packets in each case).
    println!();
    header();
    let mut costs = vec![];
    for (hosts, barriers) in [(512u64, 160u64), (1024, 80), (2048, 40), (4096, 20)] {
        let name = format!("cost against size: fat tree k=26, {hosts} nodes");
        if !name.contains(&only) {
            continue;
        }
        let m = measure(&format!(
            "[switch]\nradix=32\n[fabric]\ntopology='fat_tree'\nk=26\nlevels=3\nhosts={hosts}\nlatency=20\n[node]\noverhead=50\nretry_timeout=5000\ncompute=[0,100]\n[[group]]\nmembers='all'\nbarriers={}\n",
            barriers * scale
        ));
        row(&name, &m);
        costs.push((hosts, m.ns_per_node_barrier()));
    }
    if let Some(&(base_hosts, base)) = costs.first() {
        for (hosts, cost) in &costs[1..] {
            println!(
                "{hosts} nodes: cost per node and barrier {:.2} of {base_hosts} nodes'",
                cost / base
            );
        }
    }
    by_algo(scale, &only);
}

fn by_algo(scale: u64, only: &str) {
    let name = "who runs the barrier: fat tree k=8, 3 levels, 128 nodes";
    if !name.contains(only) {
        return;
    }
    println!();
    println!("{name}");
    println!(
        "{:<8} {:>9} {:>10} {:>8} {:>18} {:>16}",
        "algo", "barriers", "cycles", "seconds", "ns/(node·barrier)", "NIC cycles/s"
    );
    let text = format!(
        "[fabric]\ntopology='fat_tree'\nk=8\nlevels=3\nlatency=20\n[node]\noverhead=50\n\
         [[group]]\nmembers='all'\nbarriers={}\n",
        10 * scale
    );
    let mut costs = vec![];
    for algo in Algo::ALL {
        let (seconds, s, nodes) = best_of_three(&text, algo);
        let (barriers, cycles) = (s.barriers, s.cycles);
        let cost = seconds * 1e9 / (nodes * barriers as f64);
        let nic_rate = match algo {
            Algo::Switch => String::from("-"),
            _ => format!("{:.3e}", nodes * cycles as f64 / seconds),
        };
        println!(
            "{:<8} {:>9} {:>10} {:>8.3} {:>18.1} {:>16}",
            algo.name(),
            barriers,
            cycles,
            seconds,
            cost,
            nic_rate
        );
        costs.push((algo, cost));
    }
    for (algo, cost) in &costs[1..] {
        println!(
            "{}: cost per node and barrier {:.1} times the switches'",
            algo.name(),
            cost / costs[0].1
        );
    }
}
