//! CALC's throughput: elements per cycle of a long CALC, by argument layout and number of
//! lanes, at every cycle level, side by side in one run.
//!
//! `cargo bench -p netcoll-testbench --bench calc`
//!
//! Each row posts a CALC of `N1` and of `N2` elements to a fresh NIC (default configuration
//! with `lanes` 1, 2 and 4, and with the floating-point types) and polls its CQ until the CQE
//! comes; the rate is `(N2 - N1) / (cycles(N2) - cycles(N1))`, so the cycles of the post, the
//! poll and the CALC's start and end cancel out. Layouts: apart, in place and `b` with stride 3
//! stream in lane groups (`lanes` elements a cycle); `a` with stride 2 and MAXLOC's pairs
//! apart stream in one lane (an element a cycle, a pair every 2 cycles); a result one word
//! after `a` (each element reads the one before) and MAXLOC pairs with stride 1 in place
//! (overlapping) go element by element. The last columns: the rate over that of `dst = a + 1`
//! in the same build, and over the same layout's with one lane.

use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::nic::{HostOp, HostStatus, NicIn, NicParams, Wqe};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_testbench::harness::Level;
use netcoll_testbench::nic::{cycle_dut, host_command as command};

/// Cycles from posting `wqe` until a poll of CQ 0 returns its CQE.
fn calc_cycles(level: Level, p: &NicParams, wqe: &Wqe) -> Result<u64, String> {
    let mut d = cycle_dut(level, p)?.ok_or("no cycles at this level")?;
    let mut now = 0;
    d.step(&NicIn {
        reset: true,
        ..Default::default()
    });
    let (posted, status, _) = command(&mut d, &mut now, HostOp::PostSq, 0, wqe.encode())?;
    assert_eq!(status, HostStatus::Ok as u64, "posted");
    while now < 10_000_000 {
        let (_, status, _) = command(&mut d, &mut now, HostOp::PollCq, 0, (0, 0))?;
        if status == HostStatus::Ok as u64 {
            return Ok(now - posted);
        }
    }
    Err("the CALC did not complete".into())
}

fn calc(op: AluOp, count: u64, a: u64, sa: u64, b: u64, sb: u64, dst: u64) -> Wqe {
    Wqe::calc(op.code(), Dtype::U64.code(), count, (a, sa), (b, sb), dst)
}

/// A layout's name and its CALC of `n` elements.
type Layout = (&'static str, fn(u64) -> Wqe);

fn main() {
    let (n1, n2) = (64u64, 1024u64);
    let layouts: [Layout; 7] = [
        ("apart", |n| calc(AluOp::Sum, n, 0, 1, 1024, 1, 2048)),
        ("in place", |n| calc(AluOp::Sum, n, 0, 1, 1024, 1, 0)),
        ("b stride 3", |n| calc(AluOp::Sum, n, 0, 1, 1024, 3, 0)),
        ("a stride 2", |n| calc(AluOp::Sum, n, 0, 2, 2048, 1, 3072)),
        ("dst = a + 1", |n| calc(AluOp::Sum, n, 0, 1, 1024, 1, 1)),
        ("MAXLOC pairs", |n| {
            calc(AluOp::MaxLoc, n / 2, 0, 2, 1024, 2, 2048)
        }),
        ("MAXLOC sa = 1", |n| {
            calc(AluOp::MaxLoc, n / 2, 0, 1, 1024, 2, 0)
        }),
    ];
    let build = |fp, lanes| NicParams {
        fp,
        lanes,
        ..NicParams::default()
    };
    let builds = [
        ("lanes 1", build(0, 1)),
        ("lanes 2", build(0, 2)),
        ("lanes 4", build(0, 4)),
        ("fp, 1 lane", build(1, 1)),
    ];
    println!("CALC elements per cycle ({n1} and {n2} elements; MAXLOC half as many pairs)");
    println!(
        "{:<11} {:<14} {:<10} {:>10} {:>10} {:>14} {:>16} {:>11}",
        "build",
        "layout",
        "level",
        "cycles n1",
        "cycles n2",
        "elements/cycle",
        "vs dst = a + 1",
        "vs lanes 1"
    );
    // The one-lane rates, by (level, layout), for the last column.
    let mut one_lane = std::collections::BTreeMap::new();
    for (tag, p) in builds {
        for level in [Level::Model, Level::Rtl, Level::Verilator] {
            let mut rows = vec![];
            for (name, mk) in layouts {
                let (w1, w2) = (mk(n1), mk(n2));
                let c = calc_cycles(level, &p, &w1)
                    .and_then(|c1| calc_cycles(level, &p, &w2).map(|c2| (c1, c2)));
                match c {
                    Ok((c1, c2)) => {
                        let elements = (w2.len - w1.len) as f64;
                        rows.push((name, c1, c2, elements / (c2 - c1) as f64));
                    }
                    Err(e) => {
                        println!("{tag:<11} {name:<14} {:<10} unavailable: {e}", level.name())
                    }
                }
            }
            let base = rows
                .iter()
                .find(|r| r.0 == "dst = a + 1")
                .map_or(f64::NAN, |r| r.3);
            for (name, c1, c2, rate) in rows {
                if p.lanes == 1 && p.fp == 0 {
                    one_lane.insert((level.name(), name), rate);
                }
                let vs_one = one_lane
                    .get(&(level.name(), name))
                    .map_or(f64::NAN, |r| rate / r);
                println!(
                    "{tag:<11} {name:<14} {:<10} {c1:>10} {c2:>10} {rate:>14.4} {:>15.2}x {vs_one:>10.2}x",
                    level.name(),
                    rate / base
                );
            }
        }
    }
}
