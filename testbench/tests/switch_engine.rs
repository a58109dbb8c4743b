//! The switch engine's conformance suite at every level, random tests, lockstep co-simulation
//! (including ≥ 10 million cycles of the emitted Verilog under Verilator) and the checks on the
//! emitted Verilog itself.

use netcoll_hdl::generate::generate;
use netcoll_models::config::Config;
use netcoll_models::switch::engine::EngineModel;
use netcoll_models::switch::golden::{CfgCmd, GoldenEngine, Op};
use netcoll_models::switch::{CfgOp, EngineParams, Packet, TableEntry};
use netcoll_testbench::switch::{
    cycle_dut, dut, lockstep, observable, suite, Level, Stimulus, Timed,
};
use netcoll_testbench::tools;
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
fn op_strategy(p: EngineParams) -> impl Strategy<Value = Timed> {
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
    let p = EngineParams::SMALL;
    let cfg = PtConfig {
        cases,
        failure_persistence: None,
        ..PtConfig::default()
    };
    let mut runner =
        TestRunner::new_with_rng(cfg, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]));
    let result = runner.run(&proptest::collection::vec(op_strategy(p), 1..120), |ops| {
        let mut g = GoldenEngine::new(p);
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

fn lockstep_run(level: Level, p: EngineParams, seed: u64, cycles: u64) {
    let mut reference = EngineModel::new(p);
    let mut d = cycle_dut(level, &p)
        .expect("build")
        .expect("a cycle-level design");
    let mut stim = Stimulus::new(p, seed);
    if let Err(m) = lockstep(&mut reference, Some(d.as_mut()), &mut stim, cycles) {
        panic!(
            "{} vs cycle model, {p:?}, seed {seed:#x}: {m}",
            level.name()
        );
    }
    assert!(
        stim.golden_mismatch.is_none(),
        "{}",
        stim.golden_mismatch.unwrap_or_default()
    );
    assert!(
        stim.checked > cycles / 4,
        "seed {seed:#x}: only {} answers checked",
        stim.checked
    );
}

#[test]
fn lockstep_rust_hdl_rtl_vs_cycle_model() {
    lockstep_run(Level::Rtl, EngineParams::SMALL, 0x5EED_0001, 40_000);
    lockstep_run(Level::Rtl, EngineParams::default(), 0x5EED_0002, 20_000);
}

/// The long co-simulation: 10.4 million cycles of the emitted Verilog, every output compared
/// with the cycle model every cycle, every answer with the golden reference.
#[test]
fn lockstep_verilator_vs_cycle_model_10m() {
    lockstep_run(
        Level::Verilator,
        EngineParams::SMALL,
        0x5EED_0003,
        4_000_000,
    );
    lockstep_run(
        Level::Verilator,
        EngineParams::default(),
        0x5EED_0004,
        4_000_000,
    );
    lockstep_run(
        Level::Verilator,
        EngineParams {
            radix: 32,
            groups: 4096,
            counter_bits: 32,
        },
        0x5EED_0005,
        2_400_000,
    );
}

/// A lockstep mismatch is reported with cycle, signal, expected and actual.
#[test]
fn lockstep_reports_the_first_difference() {
    struct Stuck(EngineModel);
    impl netcoll_testbench::switch::CycleDut for Stuck {
        fn step(
            &mut self,
            i: &netcoll_models::switch::EngineIn,
        ) -> netcoll_models::switch::EngineOut {
            let mut o = self.0.step(i);
            o.out_tid = 0; // a TID that never advances on the wire
            o
        }
    }
    let p = EngineParams::SMALL;
    let mut reference = EngineModel::new(p);
    let mut bad = Stuck(EngineModel::new(p));
    let mut stim = Stimulus::new(p, 7);
    let m = lockstep(&mut reference, Some(&mut bad), &mut stim, 100_000).expect_err("must differ");
    assert_eq!(m.signal, "out_tid");
    assert_ne!(m.expected, m.actual);
    assert!(m.to_string().contains(&format!("cycle {}", m.cycle)));
}

fn verilog_dir() -> std::path::PathBuf {
    tools::repo_root().join("verilog")
}

/// `verilog/` holds exactly what `netcoll gen` writes for the default configuration.
#[test]
fn committed_verilog_is_fresh() {
    for f in generate(&Config::default()).expect("generate") {
        let path = verilog_dir().join(&f.name);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == f.contents,
            "{} is stale: run `cargo run --release --bin netcoll -- gen` and commit verilog/",
            path.display()
        );
    }
}

#[test]
fn generation_is_deterministic_and_clean() {
    for p in [EngineParams::default(), EngineParams::SMALL] {
        let cfg = Config {
            switch: p,
            ..Default::default()
        };
        let a = generate(&cfg).expect("generate");
        let b = generate(&cfg).expect("generate");
        assert_eq!(a, b);
        for f in a.iter().filter(|f| f.name.ends_with(".v")) {
            let mut declared = 0;
            for line in f.contents.lines() {
                assert!(!line.contains('$'), "{}: `$` in `{line}`", f.name);
                let l = line.trim();
                if ["input ", "output ", "reg ", "localparam "]
                    .iter()
                    .any(|k| l.starts_with(k))
                {
                    let decl = l
                        .split('=')
                        .next()
                        .unwrap_or(l)
                        .trim_end_matches([',', ';', ' ']);
                    // A memory's unpacked range follows its name.
                    let decl = match decl.rfind('[') {
                        Some(i) if decl.ends_with(']') => decl[..i].trim_end(),
                        _ => decl,
                    };
                    let name = decl.split_whitespace().last().unwrap_or_default();
                    assert!(
                        netcoll_hdl::emit::is_legal_name(name),
                        "{}: declared name `{name}` in `{l}`",
                        f.name
                    );
                    declared += 1;
                }
            }
            assert!(
                declared > 50,
                "{}: only {declared} declarations found",
                f.name
            );
        }
    }
}

/// Every emitted file passes `verilator --lint-only -Wall` (no waivers), Yosys `synth` +
/// `check -assert` with no latches, and `iverilog -g2012`; for the default and a small
/// configuration.
#[test]
fn emitted_verilog_passes_the_tools() {
    for p in [EngineParams::default(), EngineParams::SMALL] {
        let dir =
            std::env::temp_dir().join(format!("netcoll-tools-{}-{}", std::process::id(), p.radix));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for f in generate(&Config {
            switch: p,
            ..Default::default()
        })
        .expect("generate")
        {
            // The NIC and the ALU have their own tool tests (tests/nic.rs, tests/alu.rs).
            if f.name != "switch_engine.v" {
                continue;
            }
            assert!(!f.contents.contains("lint_off"), "no waivers");
            let path = dir.join(&f.name);
            std::fs::write(&path, &f.contents).expect("write");
            let top = f.name.trim_end_matches(".v");
            tools::verilator_lint(&path, top).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let r = tools::yosys_synth_check(&path, top).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(r.flip_flops > 0);
            tools::iverilog_compile(&path, top).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
