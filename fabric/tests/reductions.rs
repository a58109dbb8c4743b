//! Reductions end to end: every operation and element type through multi-level trees, checked
//! against a fold written here from the definitions (not the engine's element rule), under
//! faults and rebuilds, the same with any number of threads and with every switch stepped in
//! every cycle, and the fabric file's errors.

mod common;

use common::reference;
use netcoll_fabric::collective::contribution;
use netcoll_fabric::{parse, Fabric, Report, RunOptions};
use netcoll_models::config::Config;
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_testbench::harness::Level;
use std::collections::BTreeMap;

fn fabric(text: &str) -> Fabric {
    let file = parse(text).unwrap_or_else(|e| panic!("fabric file: {e}"));
    Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("fabric: {e}"))
}

fn run(f: &Fabric, opts: &RunOptions) -> Report {
    f.run(opts, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("run: {e}"))
}

/// Every operation over every integer type, each a group of its own (48 groups) over a
/// three-level fat tree: 16 nodes, 20 switches, trees of one to three levels; vectors of 20
/// words in chunks of 8 (the last one 4), two operations each. Every member's every chunk
/// result equals the fold above of the members' contributions.
#[test]
fn every_operation_and_type_reduces_to_the_fold_of_the_definitions() {
    let member_sets = ["\"all\"", "\"0..9\"", "[1, 4, 6, 11, 15]", "[2, 3]"];
    let mut text = String::from(
        "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 3\nlatency = 5\n\
         [switch]\nmax_plen = 8\nlanes = 4\nslots = 64\ngroups = 256\n\
         [node]\noverhead = 5\nretry_timeout = 3000\ncompute = [0, 30]\n",
    );
    let mut groups = vec![];
    for (i, (op, dtype)) in AluOp::ALL
        .iter()
        .flat_map(|&op| Dtype::INT.iter().map(move |&d| (op, d)))
        .enumerate()
    {
        let members = member_sets[i % member_sets.len()];
        text += &format!(
            "[[group]]\nname = 'g{i}'\nmembers = {members}\ncollective = 'allreduce'\nop = '{}'\ndtype = '{}'\nwords = 20\nchunk = 8\nwindow = {}\noperations = 2\n",
            op.name(),
            dtype.name(),
            if i % 4 == 0 { 2 } else { 1 },
        );
        groups.push((op, dtype));
    }
    let f = fabric(&text);
    let seed = 11;
    let r = run(
        &f,
        &RunOptions {
            seed,
            keep_results: true,
            ..Default::default()
        },
    );
    assert!(r.summary.safe, "{}", r.table());
    // Members per group, by index, to recompute the contributions.
    let members_of = |i: usize| -> Vec<usize> {
        match i % member_sets.len() {
            0 => (0..16).collect(),
            1 => (0..9).collect(),
            2 => vec![1, 4, 6, 11, 15],
            _ => vec![2, 3],
        }
    };
    let mut seen: BTreeMap<(usize, u64, u64), usize> = BTreeMap::new();
    for res in &r.results {
        let g: usize = res.group[1..].parse().unwrap();
        let (op, dtype) = groups[g];
        let members = members_of(g);
        let first = res.chunk * 8;
        let len = 8.min(20 - first);
        let vectors: Vec<Vec<u64>> = members
            .iter()
            .map(|&m| {
                (first..first + len)
                    .map(|w| contribution(seed, g, m, res.op, w))
                    .collect()
            })
            .collect();
        assert_eq!(
            res.words,
            reference(op, dtype, &vectors),
            "seed {seed}: group {} ({} {}), {} operation {} chunk {}",
            res.group,
            op.name(),
            dtype.name(),
            res.node,
            res.op,
            res.chunk
        );
        *seen.entry((g, res.op, res.chunk)).or_insert(0) += 1;
    }
    // Every member received every chunk of every operation, once.
    for (g, _) in groups.iter().enumerate() {
        for k in 0..2 {
            for c in 0..3 {
                assert_eq!(
                    seen.get(&(g, k, c)).copied(),
                    Some(members_of(g).len()),
                    "group g{g} operation {k} chunk {c}"
                );
            }
        }
    }
    assert_eq!(r.summary.results_checked as usize, r.results.len());
}

/// The reference itself, on vectors worked out by hand.
#[test]
fn the_reference_fold_on_hand_worked_vectors() {
    let v = vec![vec![5u64, u64::MAX], vec![7, 2]];
    assert_eq!(reference(AluOp::Sum, Dtype::U64, &v), vec![12, 1]);
    assert_eq!(reference(AluOp::Max, Dtype::I64, &v), vec![7, 2]);
    assert_eq!(reference(AluOp::Max, Dtype::U64, &v), vec![7, u64::MAX]);
    // 32-bit halves: word 0 is (5, 0), word 1 is (-1, -1) as i32.
    assert_eq!(
        reference(AluOp::Min, Dtype::I32, &v),
        vec![5, 0xFFFF_FFFF_FFFF_FFFF]
    );
    // MAXLOC: (value 5, index 9) and (value 5, index 3): the lowest index.
    let loc = vec![vec![5u64, 9], vec![5, 3], vec![4, 1]];
    assert_eq!(reference(AluOp::MaxLoc, Dtype::I64, &loc), vec![5, 3]);
    assert_eq!(reference(AluOp::MinLoc, Dtype::I64, &loc), vec![4, 1]);
    assert_eq!(
        reference(AluOp::LXor, Dtype::U64, &[vec![1], vec![0], vec![3]]),
        vec![0]
    );
}

/// Two reductions, a broadcast and a barrier group sharing a three-level fat tree with loss,
/// delayed duplicates, a burst of lost EXITs, a link flapping, a core dying and a member
/// leaving one reduction.
const FAULTY: &str = concat!(
    "
[fabric]
topology = 'fat_tree'
k = 8
levels = 3
latency = 7
bandwidth = 4
credits = 2
[switch]
max_plen = 64
lanes = 4
slots = 16
[node]
overhead = 15
retry_timeout = 3000
procs = 2
compute = [0, 40]
[[group]]
name = 'a'
members = 'all'
collective = 'allreduce'
op = 'MAX'
dtype = 'i32'
words = 300
window = 3
operations = 12
[[group]]
name = 'b'
members = '0..40'
collective = 'reduce'
root = 5
op = 'BXOR'
dtype = 'u64'
words = 8
operations = 40
[[group]]
name = 'c'
members = [3, 9, 17, 33, 60, 61, 62]
barriers = 60
start = 500
[[group]]
name = 'd'
members = '10..70'
collective = 'broadcast'
root = 12
words = 40
chunk = 16
window = 3
operations = 25
",
    campaign_faults!(),
    "[[fault]]
kind = 'leave'
node = 33
group = 'a'
at = 30000
"
);

/// Under every fault: no wrong or lost result, no early release, no hang; results of the
/// operations a member left during are not checked, and members that missed a result
/// during a rebuild get it from the SM.
#[test]
fn reductions_survive_faults_and_rebuilds_with_every_result_right() {
    for seed in [1, 2] {
        let r = run(
            &fabric(FAULTY),
            &RunOptions {
                seed,
                ..Default::default()
            },
        );
        let s = &r.summary;
        assert!(s.safe, "seed {seed}:\n{}", r.table());
        assert_eq!(s.barriers, 12 + 40 + 60 + 25, "seed {seed}");
        assert!(
            s.rebuilds >= 2 && s.results_relayed > 0,
            "seed {seed}:\n{}",
            r.table()
        );
        assert!(
            s.results_checked > 10 * s.results_unchecked && s.results_unchecked > 0,
            "seed {seed}:\n{}",
            r.table()
        );
    }
}

/// What `fabric run --json` prints, the work counters included.
fn printed(f: &Fabric, opts: &RunOptions) -> String {
    let r = run(f, opts);
    let summary = serde_json::to_string(&r.summary).unwrap();
    format!("{}{summary}\n{}", r.json_lines(), r.table())
}

#[test]
fn reductions_give_the_same_output_with_any_number_of_threads() {
    let f = fabric(FAULTY);
    let opts = |threads| RunOptions {
        seed: 3,
        threads,
        ..Default::default()
    };
    let one = printed(&f, &opts(1));
    assert!(one.contains("SAFE"), "{one}");
    for threads in [2, 3] {
        let other = printed(&f, &opts(threads));
        for (a, b) in one.lines().zip(other.lines()) {
            assert_eq!(a, b, "{threads} threads");
        }
        assert_eq!(one.lines().count(), other.lines().count());
    }
}

/// A reducing switch sleeps only when its engine is quiet: stepping every switch in every
/// cycle gives the same output but for the work counters.
#[test]
fn reducing_switches_skip_nothing_that_matters() {
    let text = FAULTY.replace("operations = 40", "operations = 10");
    let f = fabric(&text);
    let run_with = |every_cycle| {
        run(
            &f,
            &RunOptions {
                seed: 5,
                every_cycle,
                ..Default::default()
            },
        )
    };
    let (fast, naive) = (run_with(false), run_with(true));
    assert!(fast.summary.safe, "{}", fast.table());
    assert!(naive.summary.steps > 2 * fast.summary.steps);
    let counters = |r: &Report| {
        let mut s = r.summary.clone();
        (s.steps, s.events) = (0, 0);
        (r.records.clone(), s)
    };
    assert_eq!(counters(&naive), counters(&fast));
}

#[test]
fn bad_reduction_groups_get_one_line_errors_naming_the_key() {
    let err = |switch: &str, group: &str| {
        let text = format!(
            "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\n{switch}[[group]]\nmembers = 'all'\n{group}"
        );
        match parse(&text) {
            Err(e) => e.to_string(),
            Ok(f) => Fabric::new(f, Config::default())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
        }
    };
    let red = "[switch]\nmax_plen = 16\nlanes = 2\nslots = 4\n";
    assert_eq!(
        err("", "collective = 'allreduce'\noperations = 1"),
        "group[0].collective = \"allreduce\": needs switches that reduce: set [switch] max_plen (8 to 128)"
    );
    assert_eq!(
        err(red, "collective = 'alltoall'\noperations = 1"),
        "group[0].collective = \"alltoall\": must be one of barrier, allreduce, reduce, broadcast"
    );
    assert_eq!(
        err(red, "collective = 'allreduce'\nop = 'AVG'\noperations = 1"),
        "group[0].op = \"AVG\": must be one of MAX, MIN, MAXLOC, MINLOC, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, REPRO"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\ndtype = 'f32'\noperations = 1"
        ),
        "group[0].dtype = \"f32\": needs switches with the floating-point types: set [switch] fp = 1 (or use op = \"REPRO\", which needs no switch support)"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\ndtype = 'f128'\noperations = 1"
        ),
        "group[0].dtype = \"f128\": must be one of i32, u32, i64, u64, f16, bf16, f32, f64"
    );
    assert_eq!(
        err(
            "[switch]\nmax_plen = 16\nlanes = 2\nslots = 4\nfp = 1\n",
            "collective = 'allreduce'\nop = 'BXOR'\ndtype = 'bf16'\noperations = 1"
        ),
        "group[0].op = \"BXOR\": is not defined on bf16: one of MAX, MIN, MAXLOC, MINLOC, SUM, PROD, REPRO"
    );
    assert_eq!(
        err(
            "[switch]\nmax_plen = 16\nlanes = 2\nslots = 4\nfp = 1\nfp_types = ['f16', 'f32']\n",
            "collective = 'allreduce'\nop = 'SUM'\ndtype = 'f64'\noperations = 1"
        ),
        "group[0].dtype = \"f64\": is not among the switches' [switch] fp_types (f16+f32): add it there, or use op = \"REPRO\""
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nop = 'REPRO'\ndtype = 'i32'\noperations = 1"
        ),
        "group[0].dtype = \"i32\": must be one of f16, bf16, f32, f64 for op = \"REPRO\""
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nop = 'REPRO'\ndtype = 'f32'\nwords = 30\nchunk = 16\noperations = 1"
        ),
        "group[0].chunk = 16: must be a multiple of 15 (one f32 REPRO partial) up to 16 (the engine's max_plen)"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nop = 'REPRO'\ndtype = 'f64'\noperations = 1"
        ),
        "group[0].dtype = \"f64\": REPRO over f64 needs [switch] max_plen of at least 72 (one element's partial); it is 16"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nop = 'REPRO'\ndtype = 'f16'\nwords = 12\noperations = 1"
        ),
        "group[0].words = 12: must be a positive multiple of 8 (the words of one f16 REPRO partial)"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nwords = 64\nchunk = 32\noperations = 1"
        ),
        "group[0].chunk = 32: must be 1 to 16 (the engine's max_plen)"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nwords = 100\nwindow = 5\noperations = 1"
        ),
        "group[0].window = 5: must be 1 to 4 (the chunks, 7, and the switches' slots, 4)"
    );
    assert_eq!(
        err(
            red,
            "collective = 'allreduce'\nop = 'MAXLOC'\nwords = 5\noperations = 1"
        ),
        "group[0].words = 5: must be even for MAXLOC / MINLOC (value and index words)"
    );
    assert_eq!(
        err(red, "collective = 'allreduce'\nroot = 2\noperations = 1"),
        "group[0].root = (given): only for reduce and broadcast"
    );
    assert_eq!(
        err(red, "collective = 'reduce'\nroot = 9\noperations = 1"),
        "group[0].root = 9: must be a node index below 8"
    );
    assert_eq!(
        err(red, "collective = 'broadcast'\nop = 'SUM'\noperations = 1"),
        "group[0].op = \"SUM\": a broadcast combines with BOR (leave `op` out)"
    );
    assert_eq!(
        err(red, "words = 4\nbarriers = 1"),
        "group[0].words = (given): only for a reduction (collective = allreduce, reduce or broadcast)"
    );
    assert_eq!(
        err(red, "barriers = 1\noperations = 1"),
        "group[0].operations = (both given): give `barriers` or `operations`, not both"
    );
    assert_eq!(
        err(red, ""),
        "group[0].operations = (absent): required: how many operations (or `barriers`) the group runs"
    );
}

/// More reductions than CGIDs with data memory: the run says which group could not get its
/// pool (the SM's error), and the other groups still run.
#[test]
fn running_out_of_data_memory_is_reported() {
    let mut text = String::from(
        "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\n[switch]\nmax_plen = 8\nslots = 4\n",
    );
    for i in 0..3 {
        text += &format!("[[group]]\nname = 'r{i}'\nmembers = 'all'\ncollective = 'allreduce'\nwords = 16\nwindow = 2\noperations = 3\n");
    }
    let r = run(&fabric(&text), &RunOptions::default());
    assert!(!r.summary.safe);
    assert_eq!(r.summary.barriers, 6, "{}", r.table());
    assert!(
        r.summary.violations[0].starts_with("subnet manager: group r2: no CGIDs with data memory for the reduction: it needs 2 (its window)"),
        "{:?}",
        r.summary.violations
    );
}

/// Reducing switches at other levels: two as their Verilog under Verilator and one as the
/// rust-hdl RTL (the engine of `scenarios/fabric/allreduce.toml`, a shape the RTL builds) give
/// the all-model run's output byte for byte, under lost EXITs and delayed duplicates. (On a
/// thread of its own: rust-hdl's simulation of this engine needs more than a test thread's
/// stack.)
#[test]
fn verilator_and_rtl_reducing_switches_give_identical_output() {
    const TEXT: &str = "[switch]\nmax_plen = 32\nlanes = 4\nslots = 16\n[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\nlatency = 6\n[node]\noverhead = 5\nretry_timeout = 600\ncompute = [0, 40]\n[[group]]\nname = 'sum'\nmembers = 'all'\ncollective = 'allreduce'\nop = 'SUM'\ndtype = 'i64'\nwords = 96\nchunk = 32\noperations = 6\n[[group]]\nname = 'max'\nmembers = [0, 3, 5]\ncollective = 'allreduce'\nop = 'MAXLOC'\ndtype = 'i32'\nwords = 16\noperations = 5\n[[fault]]\nkind = 'loss'\nrate = 0.02\nop = 'EXIT'\n[[fault]]\nkind = 'duplicate'\nrate = 0.05\ndelay = [1, 40]\n";
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(|| {
            let f = fabric(TEXT);
            let at = |levels: &[(&str, Level)]| {
                run(
                    &f,
                    &RunOptions {
                        seed: 5,
                        levels: levels.iter().map(|(s, l)| (s.to_string(), *l)).collect(),
                        ..Default::default()
                    },
                )
            };
            let model = at(&[]);
            assert!(model.summary.safe, "{}", model.table());
            assert!(
                model.summary.results_checked > 100 && model.summary.verdicts.contains_key("LAG"),
                "{}",
                model.table()
            );
            let mixed = at(&[
                ("spine0", Level::Verilator),
                ("leaf1", Level::Verilator),
                ("leaf0", Level::Rtl),
            ]);
            assert_eq!(mixed.json_lines(), model.json_lines());
            assert_eq!(mixed.table(), model.table());
        })
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}
