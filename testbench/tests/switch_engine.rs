//! The switch engine's conformance suite at every level, random tests, lockstep co-simulation
//! (including ≥ 10 million cycles of the emitted Verilog under Verilator) and the checks on the
//! emitted Verilog itself.

use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::switch_engine::golden::{CfgCmd, Op, SwitchEngineGolden};
use netcoll_models::switch_engine::model::SwitchEngineModel;
use netcoll_models::switch_engine::{
    CfgOp, Packet, SwitchEngineIn, SwitchEngineOut, SwitchEngineParams, TableEntry,
};
use netcoll_testbench::harness::Lockstep;
use netcoll_testbench::switch_engine::{
    cycle_dut, dut, lockstep, observable, suite, Level, Stimulus, Timed, RESET_CYCLES,
};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngAlgorithm, TestRng, TestRunner};

fn run_suite(level: Level) {
    let mut failures = vec![];
    for case in suite::cases() {
        let mut d = dut(level, &case.params).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        if let Err(e) = suite::run_case(d.as_mut(), &case) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} level:\n{}",
        level.name(),
        failures.join("\n")
    );
}

#[test]
fn suite_golden() {
    run_suite(Level::Golden);
}

#[test]
fn suite_cycle_model() {
    run_suite(Level::Model);
}

#[test]
fn suite_rust_hdl_rtl() {
    run_suite(Level::Rtl);
}

#[test]
fn suite_verilator() {
    run_suite(Level::Verilator);
}

/// Random operation sequences, small value ranges so that trees, TIDs and drops all occur.
fn op_strategy(p: SwitchEngineParams) -> impl Strategy<Value = Timed> {
    let r = p.radix as u64;
    let pkt = (
        0..r,
        0..3u64,
        0..4u64,
        prop_oneof![8 => 0..4u64, 1 => 4..8u64],
    )
        .prop_map(|(port, cgid, tid, op)| {
            Op::Packet(Packet {
                port,
                cgid,
                tid,
                op,
            })
        });
    let cfg = (
        0..4u64,
        0..3u64,
        any::<bool>(),
        0..r,
        1..(1u64 << r),
        any::<bool>(),
        0..8u64,
    )
        .prop_map(
            move |(k, cgid, valid, parent, children, is_root, counter)| {
                let op = [
                    CfgOp::Write,
                    CfgOp::ReadEntry,
                    CfgOp::ReadCounter,
                    CfgOp::ClearCounters,
                ][k as usize];
                Op::Cfg(CfgCmd {
                    op,
                    cgid,
                    entry: TableEntry {
                        valid,
                        parent,
                        children,
                        is_root,
                    },
                    counter,
                })
            },
        );
    (
        prop_oneof![1 => Just(0u32), 1 => 0..3u32],
        prop_oneof![6 => pkt, 1 => cfg],
    )
        .prop_map(|(idle, op)| Timed { idle, op })
}

/// Each level's answers to random sequences equal the golden reference's.
fn random_against_golden(level: Level, cases: u32, seed: u8) {
    let p = SwitchEngineParams::SMALL;
    let cfg = PtConfig {
        cases,
        failure_persistence: None,
        ..PtConfig::default()
    };
    let mut runner =
        TestRunner::new_with_rng(cfg, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]));
    let result = runner.run(&proptest::collection::vec(op_strategy(p), 1..120), |ops| {
        let mut g = SwitchEngineGolden::new(p);
        let want: Vec<_> = ops.iter().map(|t| observable(&g.apply(&t.op))).collect();
        let mut d = dut(level, &p).map_err(TestCaseError::fail)?;
        let got = d.run(&ops).map_err(TestCaseError::fail)?;
        for (k, (w, g)) in want.iter().zip(&got).enumerate() {
            prop_assert_eq!(w, g, "operation #{} {:?}", k, ops[k].op);
        }
        prop_assert_eq!(want.len(), got.len());
        Ok(())
    });
    if let Err(e) = result {
        panic!("{} level, proptest seed [{seed}; 32]: {e}", level.name());
    }
}

#[test]
fn random_ops_cycle_model() {
    random_against_golden(Level::Model, 400, 1);
}

#[test]
fn random_ops_rust_hdl_rtl() {
    random_against_golden(Level::Rtl, 60, 2);
}

#[test]
fn random_ops_verilator() {
    random_against_golden(Level::Verilator, 300, 3);
}

fn lockstep_run(level: Level, p: SwitchEngineParams, seed: u64, cycles: u64) {
    let d = cycle_dut(level, &p)
        .expect("build")
        .expect("a cycle-level design");
    let mut stim = Stimulus::new(p, seed);
    if let Err(m) = lockstep(Some(d), &mut stim, cycles, None) {
        panic!(
            "{} vs cycle model, {p:?}, seed {seed:#x}: {m}",
            level.name()
        );
    }
    assert!(
        stim.checked > cycles / 4,
        "seed {seed:#x}: only {} answers checked",
        stim.checked
    );
}

#[test]
fn lockstep_rust_hdl_rtl_vs_cycle_model() {
    lockstep_run(Level::Rtl, SwitchEngineParams::SMALL, 0x5EED_0001, 40_000);
    lockstep_run(
        Level::Rtl,
        SwitchEngineParams::default(),
        0x5EED_0002,
        20_000,
    );
}

/// The long co-simulation: 10.4 million cycles of the emitted Verilog, every output compared
/// with the cycle model every cycle, every answer with the golden reference.
#[test]
fn lockstep_verilator_vs_cycle_model_10m() {
    lockstep_run(
        Level::Verilator,
        SwitchEngineParams::SMALL,
        0x5EED_0003,
        4_000_000,
    );
    lockstep_run(
        Level::Verilator,
        SwitchEngineParams::default(),
        0x5EED_0004,
        4_000_000,
    );
    lockstep_run(
        Level::Verilator,
        SwitchEngineParams {
            radix: 32,
            groups: 4096,
            counter_bits: 32,
        },
        0x5EED_0005,
        2_400_000,
    );
}

/// A lockstep mismatch is reported with cycle, signal, expected and actual, the last cycles
/// and a waveform of them that an independent reader opens.
#[test]
fn lockstep_reports_the_first_difference() {
    struct Stuck(SwitchEngineModel);
    impl CycleSim for Stuck {
        type In = SwitchEngineIn;
        type Out = SwitchEngineOut;
        fn step(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
            let mut o = self.0.step(i);
            o.out_tid = 0; // a TID that never advances on the wire
            o
        }
        fn peek(&mut self) -> SwitchEngineOut {
            self.0.peek()
        }
    }
    let p = SwitchEngineParams::SMALL;
    let dir = std::env::temp_dir().join(format!("netcoll-mismatch-{}", std::process::id()));
    let mut l = Lockstep::new(
        p,
        Box::new(SwitchEngineModel::new(p)),
        Box::new(Stuck(SwitchEngineModel::new(p))),
        "model vs stuck",
    )
    .with_vcd_dir(&dir);
    let mut stim = Stimulus::new(p, 7);
    for c in 0..100_000u64 {
        let i = if c < RESET_CYCLES {
            SwitchEngineIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        let o = l.step(&i);
        stim.observe(&i, &o);
        if l.mismatch().is_some() {
            break;
        }
    }
    let m = l.finish().expect_err("must differ");
    assert_eq!(m.signal, "out_tid");
    assert_ne!(m.expected, m.actual);
    let text = m.to_string();
    assert!(
        text.contains(&format!("cycle {}: signal out_tid", m.cycle)),
        "{text}"
    );
    assert_eq!(
        m.history.len(),
        Lockstep::<SwitchEngineIn, SwitchEngineOut>::HISTORY
    );
    assert_eq!(m.history.last().map(|r| r.cycle), Some(m.cycle));
    assert!(
        text.contains("!out_tid="),
        "the differing output is marked: {text}"
    );
    // The waveform of those cycles, read back by an independent reader.
    let vcd = m.vcd.clone().expect("a waveform was written");
    let mut w = wellen::simple::read(&vcd).expect("wellen reads the VCD");
    let h = w.hierarchy();
    let find = |scope: &str, name: &str| {
        h.lookup_var(&["netcoll", scope], name)
            .map(|v| h[v].signal_ref())
            .unwrap_or_else(|| panic!("no netcoll.{scope}.{name}"))
    };
    let (r, d) = (find("reference", "out_tid"), find("dut", "out_tid"));
    w.load_signals(&[r, d]);
    let last = m.history.len() - 1;
    // The last recorded cycle is at 10 ns per cycle from 0.
    let t = w
        .time_table()
        .iter()
        .position(|&t| t == last as u64 * 10)
        .expect("a time step for the last cycle") as u32;
    let value = |s| {
        w.get_signal(s)
            .and_then(|sig| sig.get_offset(t).map(|o| sig.get_value_at(&o, 0)))
            .and_then(|v| v.to_bit_string())
            .and_then(|b| u64::from_str_radix(&b, 2).ok())
    };
    assert_eq!(value(r), Some(m.expected));
    assert_eq!(value(d), Some(m.actual));
    let _ = std::fs::remove_dir_all(&dir);
}
