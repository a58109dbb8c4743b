//! Simulated packet events per second (one core) for fabrics of 64, 512 and 4096 nodes, all
//! three measured side by side in one run, and the cost per node and barrier, to show that
//! the cost is linear in the node count. `cargo bench -p netcoll-fabric` (set
//! `NETCOLL_BENCH_BARRIERS` to change the barriers per fabric; default 20).

use netcoll_fabric::{parse, Fabric, RunOptions};
use netcoll_models::config::Config;
use std::time::Instant;

fn main() {
    let barriers: u64 = std::env::var("NETCOLL_BENCH_BARRIERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let cases = [
        (
            "64 nodes: leaf-spine k=16 (hosts=64)",
            "[fabric]\ntopology='fat_tree'\nk=16\nlevels=2\nhosts=64",
            "",
        ),
        (
            "512 nodes: fat tree k=16, 3 levels (hosts=512)",
            "[fabric]\ntopology='fat_tree'\nk=16\nlevels=3\nhosts=512",
            "",
        ),
        (
            "4096 nodes: fat tree k=26, 3 levels (hosts=4096)",
            "[fabric]\ntopology='fat_tree'\nk=26\nlevels=3\nhosts=4096",
            "[switch]\nradix=32\n",
        ),
    ];
    println!(
        "{:<50} {:>10} {:>12} {:>10} {:>14} {:>16}",
        "fabric", "barriers", "packets", "seconds", "packets/s", "ns/(node·barrier)"
    );
    let mut rates = vec![];
    for (name, fabric, switch) in cases {
        let text = format!(
            "{switch}{fabric}\nlatency=20\n[node]\noverhead=50\nretry_timeout=5000\ncompute=[0,100]\n[[group]]\nmembers='all'\nbarriers={barriers}\n[[fault]]\nkind='loss'\nrate=0.001\n"
        );
        let file = parse(&text).expect("bench fabric parses");
        let fab = Fabric::new(file, Config::default()).expect("bench fabric is valid");
        let nodes = fab.topo.node_names.len() as f64;
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
        let secs = t0.elapsed().as_secs_f64();
        assert!(r.summary.safe, "{}", r.table());
        let rate = r.summary.packets as f64 / secs;
        rates.push(rate);
        println!(
            "{:<50} {:>10} {:>12} {:>10.3} {:>14.3e} {:>16.1}",
            name,
            r.summary.barriers,
            r.summary.packets,
            secs,
            rate,
            secs * 1e9 / (nodes * r.summary.barriers as f64)
        );
    }
    println!(
        "ratios of packets/s to the 64-node fabric: 512 = {:.2}, 4096 = {:.2}",
        rates[1] / rates[0],
        rates[2] / rates[0]
    );
}
