//! The switch engine's conformance suite at every level, random tests, lockstep co-simulation
//! (including ≥ 10 million cycles of the emitted Verilog under Verilator) and the checks on the
//! emitted Verilog itself.

use netcoll_models::kit::cycle::{CycleSim, Typed};
use netcoll_models::kit::ports::PortValues;
use netcoll_models::switch_engine::golden::{CfgCmd, Op};
use netcoll_models::switch_engine::model::SwitchEngineModel;
use netcoll_models::switch_engine::{
    CfgOp, Packet, SwitchEngineIn, SwitchEngineOut, SwitchEngineParams, TableEntry,
};
use netcoll_testbench::harness::verilator::VerilatorSim;
use netcoll_testbench::harness::Lockstep;
use netcoll_testbench::switch_engine::{
    cycle_dut, dut, lockstep, suite, Level, Stimulus, Timed, RESET_CYCLES,
};
use netcoll_testbench::switch_engine::{CycleDriver, EngineSim};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngAlgorithm, TestRng, TestRunner};

fn run_suite(level: Level) {
    let mut failures = vec![];
    for case in suite::cases().into_iter().filter(|c| c.runs_at(level)) {
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
            Op::header(Packet {
                port,
                cgid,
                tid,
                op,
                ..Default::default()
            })
        });
    let cfg = (
        0..4u64,
        0..3u64,
        any::<bool>(),
        0..r,
        1..(1u64 << r),
        any::<bool>(),
        (0..16u64, 0..4u64),
    )
        .prop_map(
            move |(k, cgid, valid, parent, children, is_root, (counter, tid))| {
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
                    tid,
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
        // The golden told the time of each operation by the transactor's schedule.
        let want = dut(Level::Golden, &p)
            .map_err(TestCaseError::fail)?
            .run(&ops)
            .map_err(TestCaseError::fail)?;
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

/// The retry timer on, with short epochs so that ticks act often.
const TIMED: SwitchEngineParams = SwitchEngineParams {
    retry_timer: 1,
    epoch_cycles: 256,
    ..SwitchEngineParams::SMALL
};

/// `level`'s design in lockstep with the cycle model under the random stimulus (a panic names
/// the first difference); the stimulus, with its counts, afterwards.
fn run_stimulus(level: Level, p: SwitchEngineParams, seed: u64, cycles: u64) -> Stimulus {
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
    stim
}

fn lockstep_run(level: Level, p: SwitchEngineParams, seed: u64, cycles: u64) {
    let stim = run_stimulus(level, p, seed, cycles);
    assert!(
        stim.checked > cycles / 4,
        "seed {seed:#x}: only {} answers checked",
        stim.checked
    );
    // The output queue filled (out_ready low long enough), and the timer acted.
    assert!(stim.held > 0, "seed {seed:#x}: no packet ever held back");
    assert!(
        !p.retry_timer_on() || stim.retries > 0,
        "seed {seed:#x}: the retry timer never acted"
    );
}

#[test]
fn lockstep_cycle_model_alone_with_timer_and_back_pressure() {
    // The model against the stimulus's golden shadow (ticks mirrored, the queue checked).
    for (p, seed) in [(TIMED, 11), (SwitchEngineParams::SMALL, 12)] {
        let mut stim = Stimulus::new(p, seed);
        lockstep(None, &mut stim, 300_000, None).unwrap_or_else(|m| panic!("{m}"));
        assert!(stim.held > 0 && stim.checked > 50_000, "{p:?}");
        assert!(
            !p.retry_timer_on() || stim.retries > 10,
            "{p:?}: {}",
            stim.retries
        );
    }
}

#[test]
fn lockstep_rust_hdl_rtl_with_retry_timer() {
    lockstep_run(Level::Rtl, TIMED, 0x5EED_0011, 30_000);
}

#[test]
fn lockstep_verilator_with_retry_timer() {
    lockstep_run(Level::Verilator, TIMED, 0x5EED_0012, 1_000_000);
}

/// The switch engine's Verilog as Verilator runs it: `switch_engine.v` and what it requires.
fn engine_verilog(p: &SwitchEngineParams) -> String {
    let cfg = netcoll_testbench::switch_engine::config(p);
    let files = netcoll_hdl::generate::generate(&cfg).expect("generate");
    netcoll_hdl::generate::simulation_text(&files, "switch_engine")
        .expect("switch_engine.v and its requirements")
}

/// Tests of the tests: each mutant of the emitted Verilog, one rule of issue 9 (or issue 10's
/// rule 2b) undone, must fail some case of the directed suite.
#[test]
fn mutants_of_the_recovery_rules_fail_the_suite() {
    let p = SwitchEngineParams::SMALL;
    let good = engine_verilog(&p);
    let mutants: [(&str, &[(&str, &str)]); 4] = [
        (
            "a STATUS_REQ from a child that has not reported counts as its FULL again",
            &[
                (
                    "assign may_report = (((c_path & live) & t_same) & (~rep_bit)) & (~status_req);",
                    "assign may_report = ((c_path & live) & t_same) & (~rep_bit);",
                ),
                (
                    "assign unreported = (((c_path & live) & t_same) & (~rep_bit)) & status_req;",
                    "assign unreported = 1'b0;",
                ),
            ],
        ),
        (
            "retries are never coalesced",
            &[
                (
                    "assign ask_up = retry_in & (~sent_now);",
                    "assign ask_up = retry_in;",
                ),
                (
                    "end else if (retry_in & sent_now) begin",
                    "end else if (1'b0) begin",
                ),
            ],
        ),
        (
            "`cfg_tid` ignored (a Write resets the TID to 0)",
            &[("s1_cfg_tid_d = cfg_tid;", "s1_cfg_tid_d = 2'd0;")],
        ),
        (
            "rule 2b ignored (reduction fields in a barrier header accepted)",
            &[(
                "s1_bad_d = ((|pkt_plen) | (|pkt_rop)) | (|pkt_dtype);",
                "s1_bad_d = 1'b0;",
            )],
        ),
    ];
    let cases: Vec<_> = suite::cases()
        .into_iter()
        .filter(|c| c.params == p)
        .collect();
    for (what, edits) in mutants {
        let mut text = good.clone();
        for (from, to) in edits {
            assert_eq!(
                text.matches(from).count(),
                1,
                "mutation site `{from}` not found once"
            );
            text = text.replace(from, to);
        }
        let caught: Vec<&str> = cases
            .iter()
            .filter(|case| {
                let sim = VerilatorSim::from_text(
                    &text,
                    "switch_engine",
                    &SwitchEngineIn::specs(&p),
                    &SwitchEngineOut::specs(&p),
                )
                .expect("the mutant verilates");
                let sim: EngineSim =
                    Box::new(Typed::<SwitchEngineIn, SwitchEngineOut, _>::new(p, sim));
                let mut d = CycleDriver::new(Level::Verilator, p, sim);
                suite::run_case(&mut d, case).is_err()
            })
            .map(|c| c.name)
            .collect();
        assert!(!caught.is_empty(), "mutant not caught: {what}");
        println!("mutant caught ({what}): {caught:?}");
    }
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
        SwitchEngineParams::sized(32, 4096, 32),
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

/// A reducing engine the RTL builds, as the payload lockstep runs it.
const REDUCING: SwitchEngineParams = SwitchEngineParams::SMALL.with_payload(8, 2, 4);

#[test]
fn lockstep_cycle_model_alone_with_payloads() {
    let mut stim = Stimulus::new(REDUCING, 21);
    lockstep(None, &mut stim, 300_000, None).unwrap_or_else(|m| panic!("{m}"));
    println!(
        "checked {} held {} payloads {} words {}",
        stim.checked, stim.held, stim.payloads, stim.words_checked
    );
    assert!(stim.held > 0 && stim.checked > 20_000 && stim.payloads > 1_000);
}

/// The reducing engine the RTL builds with the floating-point types (its ALU has a
/// floating-point datapath per lane); half its payload shapes are a floating-point type.
const REDUCING_FP: SwitchEngineParams = SwitchEngineParams { fp: 1, ..REDUCING };

/// The same engine with two of the floating-point types only (`fp_types = ["f16", "f32"]`): a
/// bf16 or f64 payload is malformed (rule 2b), dropped and counted.
const REDUCING_FP_SUBSET: SwitchEngineParams = SwitchEngineParams {
    fp_types: 0b0101,
    ..REDUCING_FP
};

/// The engine with some floating-point types in lockstep at every level: the cycle model
/// alone (against the golden reference), the RTL and the emitted Verilog against the model.
#[test]
fn lockstep_with_some_fp_types() {
    let mut stim = Stimulus::new(REDUCING_FP_SUBSET, 29);
    lockstep(None, &mut stim, 100_000, None).unwrap_or_else(|m| panic!("seed 29: {m}"));
    assert!(
        stim.checked > 5_000 && stim.payloads > 300,
        "{}",
        stim.payloads
    );
    payload_lockstep(Level::Rtl, REDUCING_FP_SUBSET, 0x5EED_0107, 5_000);
    payload_lockstep(Level::Verilator, REDUCING_FP_SUBSET, 0x5EED_0108, 500_000);
}

#[test]
fn lockstep_cycle_model_alone_with_fp_payloads() {
    let mut stim = Stimulus::new(REDUCING_FP, 23);
    lockstep(None, &mut stim, 300_000, None).unwrap_or_else(|m| panic!("seed 23: {m}"));
    println!(
        "checked {} held {} payloads {} words {}",
        stim.checked, stim.held, stim.payloads, stim.words_checked
    );
    assert!(stim.held > 0 && stim.checked > 20_000 && stim.payloads > 1_000);
}

/// The RTL (or Verilog) of a reducing engine in lockstep with the cycle model under payload
/// traffic: every output every cycle, every payload word against the golden reference. (On a
/// thread of its own: rust-hdl's simulation of the larger reducing engine needs more than a
/// test thread's 2 MiB of stack; a program's main thread has 8.)
fn payload_lockstep(level: Level, p: SwitchEngineParams, seed: u64, cycles: u64) {
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || payload_lockstep_here(level, p, seed, cycles))
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

fn payload_lockstep_here(level: Level, p: SwitchEngineParams, seed: u64, cycles: u64) {
    let stim = run_stimulus(level, p, seed, cycles);
    println!(
        "{}: {cycles} cycles, {} answers, {} payloads, {} words checked, {} cycles held",
        level.name(),
        stim.checked,
        stim.payloads,
        stim.words_checked,
        stim.held
    );
    assert!(
        stim.checked > cycles / 8 && stim.payloads > cycles / 100 && stim.held > 0,
        "seed {seed:#x}: too little traffic"
    );
}

/// The other reducing engine the RTL builds: radix 16, 256 groups, 32-word packets in beats
/// of four words, 16 groups with data memory.
const REDUCING_WIDE: SwitchEngineParams =
    SwitchEngineParams::sized(16, 256, 32).with_payload(32, 4, 16);

#[test]
fn lockstep_rust_hdl_rtl_with_payloads() {
    payload_lockstep(Level::Rtl, REDUCING, 0x5EED_0101, 30_000);
    payload_lockstep(Level::Rtl, REDUCING_WIDE, 0x5EED_0103, 20_000);
    payload_lockstep(Level::Rtl, REDUCING_FP, 0x5EED_0105, 20_000);
}

/// The long co-simulation with payload traffic: 10 million cycles of the emitted Verilog of
/// both integer reducing engines and 4 million of the floating-point one, every output
/// compared with the cycle model every cycle, every answer and payload word with the golden
/// reference.
#[test]
fn lockstep_verilator_with_payloads_10m() {
    payload_lockstep(Level::Verilator, REDUCING, 0x5EED_0102, 6_000_000);
    payload_lockstep(Level::Verilator, REDUCING_WIDE, 0x5EED_0104, 4_000_000);
    payload_lockstep(Level::Verilator, REDUCING_FP, 0x5EED_0106, 4_000_000);
}

/// Tests of the tests for the payload path: each mutant of a reducing engine's emitted Verilog
/// must fail the directed suite or a short payload lockstep against the cycle model.
#[test]
fn mutants_of_the_reduction_fail_the_suite_or_the_lockstep() {
    let p = REDUCING;
    let good = engine_verilog(&p);
    let mutants: [(&str, &str, &str, usize); 5] = [
        (
            "the combine uses BOR whatever the operation",
            "alu_op = s2_rop_q;",
            "alu_op = op_bor;",
            1,
        ),
        (
            "a child's repeated FULL is counted (combined) again",
            "assign may_report = (((c_path & live) & t_same) & (~rep_bit)) & (~status_req);",
            "assign may_report = ((c_path & live) & t_same) & (~status_req);",
            1,
        ),
        (
            "the sequence (TID) check of a contribution is removed",
            "assign may_report = (((c_path & live) & t_same) & (~rep_bit)) & (~status_req);",
            "assign may_report = ((c_path & live) & (~rep_bit)) & (~status_req);",
            1,
        ),
        (
            "a beat reads its slot's word while a write to it is in flight",
            "assign issue = (cur_valid_q & ((~takes) | ipf_nonempty)) & (~cur_blocked_q);",
            "assign issue = cur_valid_q & ((~takes) | ipf_nonempty);",
            1,
        ),
        (
            "a beat reads its slot's word without the write at the same edge forwarded",
            "if (hit_acc_q) begin",
            "if (1'b0) begin",
            2,
        ),
    ];
    let cases: Vec<_> = suite::cases()
        .into_iter()
        .filter(|c| c.params == p)
        .collect();
    assert!(cases.len() >= 2, "the directed suite has reducing cases");
    for (what, from, to, sites) in mutants {
        assert_eq!(good.matches(from).count(), sites, "mutation site `{from}`");
        let text = good.replace(from, to);
        let sim = || -> EngineSim {
            let v = VerilatorSim::from_text(
                &text,
                "switch_engine",
                &SwitchEngineIn::specs(&p),
                &SwitchEngineOut::specs(&p),
            )
            .expect("the mutant verilates");
            Box::new(Typed::<SwitchEngineIn, SwitchEngineOut, _>::new(p, v))
        };
        let by_suite: Vec<&str> = cases
            .iter()
            .filter(|case| {
                let mut d = CycleDriver::new(Level::Verilator, p, sim());
                suite::run_case(&mut d, case).is_err()
            })
            .map(|c| c.name)
            .collect();
        let mut stim = Stimulus::new(p, 0x5EED_0105);
        let by_lockstep = lockstep(Some(sim()), &mut stim, 200_000, None).is_err();
        assert!(
            !by_suite.is_empty() || by_lockstep,
            "mutant not caught: {what}"
        );
        println!("mutant caught ({what}): suite {by_suite:?}, lockstep {by_lockstep}");
    }
}
