//! The reduction ALU's directed suite at every level and lane count, random lockstep
//! co-simulation (including ≥ 1 million cycles of the emitted Verilog under Verilator per lane
//! count) and the checks on the emitted Verilog itself.

use netcoll_models::alu::model::AluModel;
use netcoll_models::alu::{AluIn, AluOut, LANES_VALUES};
use netcoll_testbench::alu::{dut, lockstep, suite, AluDut, GoldenAlu, Level, Stimulus};
use netcoll_testbench::tools;
use std::time::Instant;

fn run_suite(level: Level) {
    let mut failures = vec![];
    for lanes in LANES_VALUES {
        let cycles = suite::cycles(lanes);
        let t0 = Instant::now();
        let mut d = dut(level, lanes).unwrap_or_else(|e| panic!("{} level: {e}", level.name()));
        match suite::run(d.as_mut(), &cycles) {
            Ok(r) => println!(
                "{} level, {lanes} lane(s): {} cycles, {} operations, {} lane results checked in {:.2?}",
                level.name(),
                r.cycles,
                r.operations,
                r.lane_results,
                t0.elapsed()
            ),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// No `suite_golden`: the suite's expectations come from the golden function, so running it on
// the golden would compare the golden with itself. The golden is checked against hand-written
// values in `netcoll_models::alu::golden`'s tests and against the bit-level cycle model below.

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

fn lockstep_run(reference: &mut dyn AluDut, d: &mut dyn AluDut, seed: u64, cycles: u64) {
    let lanes = reference.lanes();
    let mut stim = Stimulus::new(lanes, seed);
    let t0 = Instant::now();
    if let Err(m) = lockstep(reference, d, &mut stim, cycles) {
        panic!(
            "{} vs {}, {lanes} lane(s): {m}",
            d.level().name(),
            reference.level().name()
        );
    }
    println!(
        "{} vs {}, {lanes} lane(s), seed {seed:#x}: {cycles} cycles in lockstep in {:.2?}",
        d.level().name(),
        reference.level().name(),
        t0.elapsed()
    );
}

fn model(lanes: usize) -> AluModel {
    AluModel::new(lanes).expect("a supported lane count")
}

/// The cycle model against the golden function (behind its register) on random inputs.
#[test]
fn lockstep_cycle_model_vs_golden() {
    for (n, lanes) in LANES_VALUES.into_iter().enumerate() {
        let mut g = GoldenAlu::new(lanes).expect("a supported lane count");
        lockstep_run(&mut g, &mut model(lanes), 0xA1_0000 + n as u64, 1_000_000);
    }
}

#[test]
fn lockstep_rust_hdl_rtl_vs_cycle_model() {
    for (n, lanes) in LANES_VALUES.into_iter().enumerate() {
        let mut d = dut(Level::Rtl, lanes).expect("build");
        lockstep_run(&mut model(lanes), d.as_mut(), 0xA1_0100 + n as u64, 50_000);
    }
}

/// The long co-simulation: 1.2 million cycles of the emitted Verilog per lane count, every
/// output compared with the cycle model every cycle.
#[test]
fn lockstep_verilator_vs_cycle_model_1m() {
    for (n, lanes) in LANES_VALUES.into_iter().enumerate() {
        let mut d = dut(Level::Verilator, lanes).expect("verilate");
        lockstep_run(
            &mut model(lanes),
            d.as_mut(),
            0xA1_0200 + n as u64,
            1_200_000,
        );
    }
}

/// A design whose MINLOC reports the higher of the two indices in its last lane (wrong on
/// ties, where the lower one wins, and whenever the winner carries the lower one).
struct HighIndexTies(AluModel);

impl AluDut for HighIndexTies {
    fn level(&self) -> Level {
        Level::Model
    }
    fn lanes(&self) -> usize {
        self.0.lanes()
    }
    fn step(&mut self, i: &AluIn) -> AluOut {
        let mut i = *i;
        let k = self.0.lanes() - 1;
        if i.op == 3 {
            let l = &mut i.lanes[k];
            let hi = l.ai.max(l.bi);
            l.ai = hi;
            l.bi = hi;
        }
        self.0.step(&i)
    }
}

/// The suite and the lockstep both catch a wrong design, naming the signal and cycle.
#[test]
fn a_wrong_design_is_caught() {
    for lanes in LANES_VALUES {
        let e = suite::run(&mut HighIndexTies(model(lanes)), &suite::cycles(lanes))
            .expect_err("the suite must fail");
        let ri = format!("signal l{}_ri", lanes - 1);
        assert!(e.contains(&ri), "{e}");
        let mut stim = Stimulus::new(lanes, 7);
        let m = lockstep(
            &mut model(lanes),
            &mut HighIndexTies(model(lanes)),
            &mut stim,
            100_000,
        )
        .expect_err("must differ");
        assert_eq!(m.signal, &ri["signal ".len()..]);
        assert_ne!(m.expected, m.actual);
        let text = m.to_string();
        assert!(text.contains(&format!("cycle {}", m.cycle)) && text.contains("seed 0x7"));
        assert!(text.contains("MINLOC"), "{text}");
    }
}

/// Every emitted block passes `verilator --lint-only -Wall` (no waivers), Yosys `synth` +
/// `check -assert` with no latches and exactly the expected flip-flops, and `iverilog -g2012`.
#[test]
fn emitted_verilog_passes_the_tools() {
    let dir = std::env::temp_dir().join(format!("netcoll-alu-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for lanes in LANES_VALUES {
        let m = netcoll_hdl::alu::reduce_alu_module(lanes).expect("emit");
        assert!(!m.text.contains("lint_off"), "no waivers");
        let path = dir.join(format!("{}.v", m.name));
        std::fs::write(&path, &m.text).expect("write");
        tools::verilator_lint(&path, &m.name).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let r =
            tools::yosys_synth_check(&path, &m.name).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        // out_valid, err, and 2 × 64 result bits per lane.
        assert_eq!(r.flip_flops, 2 + 128 * lanes as u64, "{}: {r:?}", m.name);
        println!(
            "{}: {} cells, {} flip-flops after yosys synth",
            m.name, r.cells, r.flip_flops
        );
        tools::iverilog_compile(&path, &m.name).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
