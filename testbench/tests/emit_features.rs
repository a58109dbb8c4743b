//! The back end's loops, arrays, `match` and enums, end to end: every example block of
//! `netcoll_hdl::emit::examples` is emitted, linted (`verilator --lint-only -Wall`, no waivers),
//! synthesised (Yosys, no latches), compiled by Icarus, and simulated under Verilator in lockstep
//! with rust-hdl's `simulate()` on seeded random inputs, every output compared every cycle.

use netcoll_hdl::emit::examples::{
    ChildArray, Example, KeptCopies, LocalArray, MatchLiterals, MemArray, MulPair, NestedLoops,
    RegArrayLoop, StateMachine,
};
use netcoll_hdl::emit::{Dir, Module};
use netcoll_testbench::harness::verilator::{PortDesc, VerilatedModel};
use netcoll_testbench::tools::{self, TempDir};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

/// Random cycles per example.
const CYCLES: usize = 4000;

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

/// The module's ports as the Verilator wrapper wants them: inputs without `clock`, outputs.
fn ports(m: &Module) -> (Vec<PortDesc>, Vec<PortDesc>) {
    let pick = |dir: Dir| -> Vec<PortDesc> {
        m.ports
            .iter()
            .filter(|p| p.dir == dir && p.name != "clock")
            .map(|p| PortDesc::new(p.name.clone(), p.width))
            .collect()
    };
    (pick(Dir::Input), pick(Dir::Output))
}

/// Writes the module and its children one per file (as `netcoll gen` does; `-Wall` wants a
/// module's file named after it).
fn write_files(m: &Module, dir: &Path, out: &mut Vec<PathBuf>) {
    let p = dir.join(format!("{}.v", m.name));
    std::fs::write(&p, &m.text).expect("write");
    out.push(p);
    for c in &m.children {
        write_files(c, dir, out);
    }
}

fn tool_checks(m: &Module) {
    let dir = TempDir::new("netcoll-emit-features").expect("temp dir");
    let mut paths = vec![];
    write_files(m, dir.path(), &mut paths);
    let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    tools::verilator_lint_files(&refs, &m.name, &[]).unwrap_or_else(|e| panic!("{e}"));
    let r = tools::yosys_synth_check_files(&refs, &m.name).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.flip_flops > 0, "{}: {r:?}", m.name);
    assert!(r.warnings.is_empty(), "{}: {:?}", m.name, r.warnings);
    tools::iverilog_compile_files(&refs, &m.name).unwrap_or_else(|e| panic!("{e}"));
}

/// Runs `E` under rust-hdl and `text` (its emitted Verilog) under Verilator on `CYCLES` random
/// cycles from `seed` (reset in the first cycle and now and then), comparing every output every
/// cycle after the first edge; the first difference is the error.
fn lockstep<E: Example>(m: &Module, text: &str, seed: u64) -> Result<(), String> {
    let mut dut = E::connected();
    let (ins, outs) = ports(m);
    let mut model = VerilatedModel::build(text, &m.name, &ins, &outs)
        .unwrap_or_else(|e| panic!("{}: {e}", m.name));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut got = vec![0; outs.len()];
    let mut busy_cycles = 0;
    for cycle in 0..CYCLES {
        let v: Vec<u64> = ins
            .iter()
            .map(|p| match p.name.as_str() {
                "reset" => u64::from(cycle == 0 || rng.gen_ratio(1, 64)),
                _ => rng.gen::<u64>() & mask(p.width),
            })
            .collect();
        let want = dut.cycle(&v).ok_or_else(|| {
            format!(
                "{}: seed {seed:#x}, cycle {cycle}: rust-hdl did not settle",
                m.name
            )
        })?;
        model.step(&v, &mut got);
        // Before the first edge the Verilog registers are not yet reset.
        if cycle > 0 && got != want {
            return Err(format!(
                "{}: seed {seed:#x}, cycle {cycle}: outputs {:?} are {got:?} under Verilator, \
                 {want:?} under rust-hdl; inputs {:?} = {v:?}",
                m.name,
                E::OUTPUTS,
                E::INPUTS
            ));
        }
        busy_cycles += usize::from(want.iter().any(|&o| o != 0));
    }
    if busy_cycles <= CYCLES / 4 {
        return Err(format!("{}: outputs mostly zero, a weak test", m.name));
    }
    Ok(())
}

/// Emits `E`, checks its ports and runs the tools on it, then [`lockstep`].
fn check<E: Example>(seed: u64) {
    let m = E::connected()
        .verilog()
        .unwrap_or_else(|e| panic!("{}: {e}", E::NAME));
    tool_checks(&m);
    let (ins, outs) = ports(&m);
    let names = |p: &[PortDesc]| p.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ins), E::INPUTS, "{}: inputs", m.name);
    assert_eq!(names(&outs), E::OUTPUTS, "{}: outputs", m.name);
    lockstep::<E>(&m, &m.full_text(), seed).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn reg_array_loop() {
    check::<RegArrayLoop>(0x5eed_0001);
}

#[test]
fn nested_loops() {
    check::<NestedLoops>(0x5eed_0002);
}

#[test]
fn local_array() {
    check::<LocalArray>(0x5eed_0003);
}

#[test]
fn child_array() {
    check::<ChildArray>(0x5eed_0004);
}

#[test]
fn kept_copies() {
    check::<KeptCopies>(0x5eed_000a);
}

/// Yosys honours `(* keep *)` across instances: after flattening, the two instances' `plain`
/// registers (same next value) merge into one, their `own`s ([`KeptReg`]) stay two.
///
/// [`KeptReg`]: netcoll_hdl::prim::KeptReg
#[test]
fn kept_registers_survive_synthesis_per_instance() {
    let m = KeptCopies::connected().verilog().expect("emits");
    let dir = TempDir::new("netcoll-kept").expect("temp dir");
    let mut paths = vec![];
    write_files(&m, dir.path(), &mut paths);
    let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let r = tools::yosys_synth_check_files(&refs, &m.name).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.flip_flops, 8 + 2 * 8, "one `plain`, two `own`s: {r:?}");
    // Without the attribute the `own`s merge too: the count above depends on it.
    let dropped = m.full_text().replace("(* keep *) ", "");
    let p = dir.path().join("no_keep.v");
    std::fs::write(&p, dropped).expect("write");
    let r =
        tools::yosys_synth_check_files(&[p.as_path()], &m.name).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.flip_flops, 2 * 8, "one `plain`, one `own`: {r:?}");
}

#[test]
fn mem_array() {
    check::<MemArray>(0x5eed_0008);
}

#[test]
fn mul_pair() {
    check::<MulPair>(0x5eed_0009);
}

#[test]
fn match_literals() {
    check::<MatchLiterals>(0x5eed_0005);
}

#[test]
fn state_machine() {
    check::<StateMachine>(0x5eed_0006);
}

/// The state machine visits every state under random inputs, so its `case` is exercised
/// arm by arm, not only its default.
#[test]
fn state_machine_visits_every_state() {
    let mut dut = StateMachine::connected();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0007);
    let mut seen = [false; 5];
    for cycle in 0..CYCLES {
        let v = [
            u64::from(cycle == 0),
            u64::from(rng.gen_bool(0.5)),
            rng.gen::<u64>() & 0xff,
        ];
        let out = dut.cycle(&v).expect("settles");
        seen[out[0] as usize] = true;
    }
    assert_eq!(seen, [true; 5]);
}

/// The comparison is live: the same harness on a corrupted module (an enum code changed, one
/// loop iteration's register update changed) reports the difference.
#[test]
fn lockstep_catches_a_corrupted_module() {
    let m = StateMachine::connected().verilog().expect("emit");
    let bad = m.text.replace("PHASE_DRAIN = 3'd3;", "PHASE_DRAIN = 3'd5;");
    assert_ne!(bad, m.text);
    let err = lockstep::<StateMachine>(&m, &bad, 0x5eed_0009).expect_err("corrupted");
    assert!(err.contains("seed 0x5eed0009"), "{err}");
    let m = RegArrayLoop::connected().verilog().expect("emit");
    let bad = m
        .text
        .replace("acc_2_d = acc_2_q + din;", "acc_2_d = acc_2_q - din;");
    assert_ne!(bad, m.text);
    let err = lockstep::<RegArrayLoop>(&m, &bad, 0x5eed_000a).expect_err("corrupted");
    assert!(err.contains("cycle"), "{err}");
}
