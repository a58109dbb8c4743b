//! The reduction ALU's directed suite at every level and lane count, random lockstep
//! co-simulation (including ≥ 1 million cycles of the emitted Verilog under Verilator per lane
//! count), a wrong design caught, and the flip-flop count of the emitted Verilog.

use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::reduce_alu::model::ReduceAluModel;
use netcoll_models::reduce_alu::{ReduceAluIn, ReduceAluOut, ReduceAluParams};
use netcoll_testbench::harness::Level;
use netcoll_testbench::reduce_alu::{dut, lockstep, params, suite, AluSim, Stimulus};
use std::time::Instant;

const LANES: [usize; 3] = [1, 2, 4];

/// Blocks with some of the floating-point types only (`fp_types`): f16, bf16 and f32 (the
/// datapath synthesis narrows to four multipliers) on one lane; bf16 and f64 (a gap) on two.
const SUBSETS: [(usize, usize); 2] = [(1, 0b0111), (2, 0b1010)];

fn subset(lanes: usize, fp_types: usize) -> ReduceAluParams {
    ReduceAluParams {
        fp_types,
        ..params(lanes, true)
    }
}

/// The suite at `level` for every lane count, with and without the floating-point types, and
/// for the [`SUBSETS`].
fn run_suite(level: Level) {
    let mut failures = vec![];
    let all = LANES
        .into_iter()
        .flat_map(|l| [params(l, false), params(l, true)])
        .chain(SUBSETS.map(|(l, t)| subset(l, t)));
    for p in all {
        let lanes = p.lanes;
        let cycles = suite::cycles(p);
        let t0 = Instant::now();
        let mut d = dut(level, p).unwrap_or_else(|e| panic!("{} level: {e}", level.name()));
        match suite::run(&mut d, p, &cycles) {
            Ok(r) => println!(
                "{} level, {lanes} lane(s), {}: {} cycles, {} operations, {} lane results checked in {:.2?}",
                level.name(),
                netcoll_models::kit::params::ParamTable::describe(&p),
                r.cycles,
                r.operations,
                r.lane_results,
                t0.elapsed()
            ),
            Err(e) => failures.push(format!(
                "{} level, {}: {e}",
                level.name(),
                netcoll_models::kit::params::ParamTable::describe(&p)
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// No `suite_golden`: the suite's expectations come from the golden function, so running it on
// the golden would compare the golden with itself. The golden is checked against hand-written
// values in `netcoll_models::reduce_alu::golden`'s tests and against the bit-level cycle model
// below.

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

/// `dut` in lockstep with the cycle model (or, for the model, with the golden).
fn lockstep_run(level: Level, lanes: usize, fp: bool, seed: u64, cycles: u64) {
    lockstep_params(level, params(lanes, fp), seed, cycles);
}

fn lockstep_params(level: Level, p: ReduceAluParams, seed: u64, cycles: u64) {
    let (lanes, fp) = (
        p.lanes,
        netcoll_models::kit::params::ParamTable::describe(&p),
    );
    let d = match level {
        Level::Model => dut(Level::Golden, p),
        _ => dut(level, p),
    }
    .expect("build");
    let mut stim = Stimulus::new(lanes, seed);
    let t0 = Instant::now();
    if let Err(m) = lockstep(p, d, &mut stim, cycles, None) {
        panic!(
            "{} vs cycle model, {lanes} lane(s), {fp}: {m}",
            level.name()
        );
    }
    println!(
        "{} vs cycle model, {lanes} lane(s), {fp}, seed {seed:#x}: {cycles} cycles in lockstep in {:.2?}",
        level.name(),
        t0.elapsed()
    );
}

/// The cycle model against the golden function (behind its register) on random inputs.
#[test]
fn lockstep_cycle_model_vs_golden() {
    for (n, lanes) in LANES.into_iter().enumerate() {
        lockstep_run(Level::Model, lanes, false, 0xA1_0000 + n as u64, 1_000_000);
        lockstep_run(Level::Model, lanes, true, 0xA1_0010 + n as u64, 1_000_000);
    }
}

#[test]
fn lockstep_rust_hdl_rtl_vs_cycle_model() {
    for (n, lanes) in LANES.into_iter().enumerate() {
        lockstep_run(Level::Rtl, lanes, false, 0xA1_0100 + n as u64, 50_000);
        lockstep_run(Level::Rtl, lanes, true, 0xA1_0110 + n as u64, 20_000);
    }
}

/// The long co-simulation: 1.2 million cycles of the emitted Verilog per lane count without
/// the floating-point types, every output compared with the cycle model every cycle.
#[test]
fn lockstep_verilator_vs_cycle_model_1m() {
    for (n, lanes) in LANES.into_iter().enumerate() {
        lockstep_run(
            Level::Verilator,
            lanes,
            false,
            0xA1_0200 + n as u64,
            1_200_000,
        );
    }
}

/// With the floating-point types: 10 million cycles each of the emitted two- and four-lane
/// Verilog, 1 million of the one-lane block.
#[test]
fn lockstep_verilator_vs_cycle_model_fp_10m() {
    lockstep_run(Level::Verilator, 2, true, 0xA1_0F02, 10_000_000);
    lockstep_run(Level::Verilator, 4, true, 0xA1_0F04, 10_000_000);
    lockstep_run(Level::Verilator, 1, true, 0xA1_0F01, 1_000_000);
}

/// Blocks with some of the floating-point types: random operations (every type, the ones left
/// out answered with `err`) in lockstep, the cycle model with the golden, the RTL and the
/// emitted Verilog with the cycle model.
#[test]
fn lockstep_fp_types_subsets() {
    for (n, (lanes, types)) in SUBSETS.into_iter().enumerate() {
        let p = subset(lanes, types);
        lockstep_params(Level::Model, p, 0xA1_0E00 + n as u64, 200_000);
        lockstep_params(Level::Rtl, p, 0xA1_0E10 + n as u64, 10_000);
        lockstep_params(Level::Verilator, p, 0xA1_0E20 + n as u64, 1_000_000);
    }
}

/// A design whose MINLOC reports the higher of the two indices in its last lane (wrong on
/// ties, where the lower one wins, and whenever the winner carries the lower one).
struct HighIndexTies(ReduceAluModel, usize);

impl CycleSim for HighIndexTies {
    type In = ReduceAluIn;
    type Out = ReduceAluOut;
    fn step(&mut self, i: &ReduceAluIn) -> ReduceAluOut {
        let mut i = *i;
        let k = self.1 - 1;
        if i.op == 3 {
            let hi = i.ai[k].max(i.bi[k]);
            i.ai[k] = hi;
            i.bi[k] = hi;
        }
        self.0.step(&i)
    }
    fn peek(&mut self) -> ReduceAluOut {
        self.0.peek()
    }
}

/// The suite and the lockstep both catch a wrong design, naming the signal and cycle.
#[test]
fn a_wrong_design_is_caught() {
    for lanes in LANES {
        let p = params(lanes, false);
        let bad = || -> AluSim { Box::new(HighIndexTies(ReduceAluModel::new(p), lanes)) };
        let e = suite::run(&mut bad(), p, &suite::cycles(p)).expect_err("the suite must fail");
        let ri = format!("ri_{}", lanes - 1);
        assert!(e.contains(&format!("signal {ri}")), "{e}");
        let mut stim = Stimulus::new(lanes, 7);
        let text = lockstep(p, bad(), &mut stim, 100_000, None).expect_err("must differ");
        assert!(text.contains(&format!("signal {ri} expected")), "{text}");
        assert!(text.contains("seed 0x7"), "{text}");
        // The last cycles are in the report: the MINLOC that went wrong is one of them.
        assert!(text.contains("op=0x3"), "{text}");
    }
}

/// Yosys finds exactly the integer ALU's (`fp = 0`) pipeline registers (see "Micro-architecture" in
/// `netcoll_models::reduce_alu`), counted by hand:
/// - control, 41: stage 1 `in_valid`, `op` (4), `dtype`'s width bit and its floating-point bit
///   (its signedness is decoded from the offered `dtype`, so nothing reads the registered
///   bit); "`dtype` is floating point" in stages 2 to 5 and at the outputs (5), which zeroes a
///   block without the floating-point types' results for such a `dtype`; stage 2 valid, `err`,
///   `is32` and `op` one-hot less the four reserved codes' bits, which nothing reads (12);
///   stage 3 valid, `err`, `is_prod`, `is32` (4: the lanes decide the compare ops in stage 3,
///   from stage 2's one-hot `op`); stages 4 and 5 valid, `err`, `is_prod`, `is32` (4 each);
///   outputs `out_valid`, `err`;
/// - per lane, 2095: stage 1 `a`, `ai`, `b`, `bi` (256) and of the compare keys only the two
///   sign bits each can flip (4: the other bits equal the operands', and synthesis merges
///   them); stage 2 `av`, `bv`, `ai`, `bi`, `sum` (320), eleven compare and truth bits (the
///   keys' quarters compared apart, greater and less each, `bi < ai`, `a != 0`, `b != 0`), ten
///   32-bit partial products less the upper halves of the four of weight 2^48, which shift
///   past bit 63 and synthesis removes (256) — the multipliers' operand registers: of the
///   operands' low 32 bits copies of stage 1's, which merge with them, of the high 32 bits
///   their own (64: the multipliers take the operands unmasked, stage 1 keeps them masked);
///   stage 3 the compare ops' decision (value from `a`,
///   from `b`, index from `a`, from `b`: 4), `av`, `bv`,
///   `ai`, `bi` (256), the result of the ops without a compare (64) and the partial products
///   again, less the same upper halves (256); stage 4 value, index (128) and the tree's four
///   rows less their constant-zero bits (156): the level-3 sum (64), the level-3 carry above
///   bit 17 (46: no carry is born below bit 16, where `p00` is alone, and one born at bit 16
///   moves up a bit per level), the level-2 carry of the upper half above bit 33 (30: its
///   lowest terms start at bit 32) and `p30` at bit 48 (16); stage 5 value, index and PROD's
///   sum (192); outputs `r`, `ri` (128).
#[test]
fn emitted_alu_has_exactly_its_registers() {
    let dir = std::env::temp_dir().join(format!("netcoll-alu-ffs-{}", std::process::id()));
    for lanes in LANES {
        let cfg = netcoll_testbench::reduce_alu::config(params(lanes, false));
        let files = netcoll_hdl::generate::generate(&cfg).expect("generate");
        netcoll_hdl::generate::write_files(&dir, &files).expect("write");
        let top = format!("reduce_alu_l{lanes}");
        let f = files
            .iter()
            .find(|f| f.name == format!("{top}.v"))
            .expect("generated");
        let mut paths = vec![dir.join(&f.name)];
        paths.extend(f.requires.iter().map(|r| dir.join(r)));
        let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        let r = netcoll_testbench::tools::yosys_synth_check_files(&refs, &top)
            .unwrap_or_else(|e| panic!("{top}: {e}"));
        assert_eq!(r.flip_flops, 41 + 2095 * lanes as u64, "{top}: {r:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
