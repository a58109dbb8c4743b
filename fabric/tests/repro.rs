//! REPRO in the fabric: a reproducible floating-point allreduce gives the same bits over three
//! different tree shapes and many arrival orders (timing, loss and retries), and they are the
//! correctly rounded exact sum — checked here against a reference of our own: for `f16`,
//! `bf16` and `f32` the members' elements (normal numbers between 2^-8 and 2^8, or zeros) sum
//! exactly in `f64` (at most 24 + 16 + 4 significant bits), and one rounding to the type gives
//! the correctly rounded sum.

use half::{bf16, f16};
use netcoll_fabric::collective::{contribution, fp_element};
use netcoll_fabric::{parse, Fabric, Report, RunOptions};
use netcoll_models::config::Config;
use netcoll_models::reduce_alu::fp::FpType;
use std::collections::BTreeMap;

/// The topologies: a two-level leaf-spine (radix 8), a three-level fat tree (radix 4) and a
/// dragonfly (4 routers a group, 2 nodes a router, one global link each): trees of different
/// depths and fan-outs over the same 16 members, nodes 0 to 15.
const SHAPES: [&str; 3] = [
    "topology = 'fat_tree'\nk = 8\nlevels = 2\n",
    "topology = 'fat_tree'\nk = 4\nlevels = 3\n",
    "topology = 'dragonfly'\na = 4\np = 2\nh = 1\n",
];

/// Arrival orders: the members' compute time before each operation, and loss.
const TIMINGS: [&str; 3] = [
    "[node]\noverhead = 5\nretry_timeout = 4000\ncompute = [0, 0]\n",
    "[node]\noverhead = 5\nretry_timeout = 4000\ncompute = [0, 700]\n",
    "[node]\noverhead = 5\nretry_timeout = 4000\ncompute = [0, 3000]\n[[fault]]\nkind = 'loss'\nrate = 0.01\n",
];

/// One group per type: (type, name, elements, elements per chunk).
const GROUPS: [(FpType, &str, u64, u64); 4] = [
    (FpType::F16, "f16", 16, 8),
    (FpType::Bf16, "bf16", 8, 4),
    (FpType::F32, "f32", 8, 4),
    (FpType::F64, "f64", 3, 1),
];

const MEMBERS: usize = 16;
const OPERATIONS: u64 = 3;

fn text(shape: &str, timing: &str) -> String {
    let mut t = format!(
        "[fabric]\n{shape}latency = 9\n[switch]\nradix = 8\nmax_plen = 128\nlanes = 4\nslots = 16\n{timing}"
    );
    for (ty, name, elements, per_chunk) in GROUPS {
        let e = netcoll_models::reduce_alu::repro::ReproPartial::wire_words(ty) as u64;
        t += &format!(
            "[[group]]\nname = '{name}'\nmembers = '0..{MEMBERS}'\ncollective = 'allreduce'\nop = 'REPRO'\ndtype = '{name}'\nwords = {}\nchunk = {}\nwindow = 2\noperations = {OPERATIONS}\n",
            elements * e,
            per_chunk * e
        );
    }
    t
}

fn run(text: &str, seed: u64) -> Report {
    let file = parse(text).unwrap_or_else(|e| panic!("fabric file: {e}"));
    let f = Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("fabric: {e}"));
    f.run(
        &RunOptions {
            seed,
            keep_results: true,
            ..Default::default()
        },
        &mut |_, _| {},
    )
    .unwrap_or_else(|e| panic!("run: {e}"))
}

/// Member `m`'s element `e` in operation `k` of group `g` (the fabric's seeded data).
fn element(seed: u64, g: usize, m: usize, k: u64, e: u64) -> u64 {
    fp_element(GROUPS[g].0, contribution(seed, g, m, k, e))
}

/// `v` rounded to the type, to nearest, ties to even.
fn round(t: FpType, v: f64) -> u64 {
    match t {
        FpType::F16 => f16::from_f64(v).to_bits() as u64,
        FpType::Bf16 => bf16::from_f64(v).to_bits() as u64,
        FpType::F32 => (v as f32).to_bits() as u64,
        FpType::F64 => v.to_bits(),
    }
}

#[test]
fn repro_is_the_same_over_three_trees_and_many_arrival_orders_and_is_the_exact_sum() {
    const SEED: u64 = 0x05ee_d4e9;
    // (group, operation, chunk) -> the values every member of every run received.
    let mut seen: BTreeMap<(String, u64, u64), (Vec<u64>, String)> = BTreeMap::new();
    let mut runs = 0;
    for shape in SHAPES {
        for timing in TIMINGS {
            let ctx = format!("seed {SEED:#x}, {shape:?}, {timing:?}");
            let r = run(&text(shape, timing), SEED);
            assert!(r.summary.safe, "{ctx}\n{}", r.table());
            // The checker compared every result with the golden's exact sum.
            assert!(r.summary.results_checked > 0, "{ctx}");
            assert_eq!(r.summary.results_checked as usize, r.results.len(), "{ctx}");
            let mut per_chunk: BTreeMap<(String, u64, u64), usize> = BTreeMap::new();
            for res in &r.results {
                let key = (res.group.clone(), res.op, res.chunk);
                let per = GROUPS.iter().find(|x| x.1 == res.group).map(|x| x.3);
                assert_eq!(Some(res.values.len() as u64), per, "{ctx}: {key:?}");
                *per_chunk.entry(key.clone()).or_default() += 1;
                match seen.get(&key) {
                    None => {
                        seen.insert(key, (res.values.clone(), ctx.clone()));
                    }
                    Some((v, first)) => assert_eq!(
                        &res.values, v,
                        "{key:?} at {} in run {ctx} differs from run {first}",
                        res.node
                    ),
                }
            }
            // Every member received every chunk of every operation.
            for (g, (_, name, elements, per)) in GROUPS.iter().enumerate() {
                for k in 0..OPERATIONS {
                    for c in 0..elements.div_ceil(*per) {
                        let n = per_chunk.get(&(name.to_string(), k, c)).copied();
                        assert_eq!(n, Some(MEMBERS), "{ctx}: group {g} op {k} chunk {c}");
                    }
                }
            }
            runs += 1;
        }
    }
    assert_eq!(runs, 9);
    // Our own reference for the three narrow types; and a plain floating-point sum in two
    // orders differs somewhere (so the sameness above is not an accident of the data).
    let mut order_matters = [false; 4];
    for ((group, k, c), (values, _)) in &seen {
        let g = GROUPS.iter().position(|x| x.1 == group).expect("a group");
        let (t, _, _, per) = GROUPS[g];
        for (i, &got) in values.iter().enumerate() {
            let e = c * per + i as u64;
            let xs: Vec<u64> = (0..MEMBERS).map(|m| element(SEED, g, m, *k, e)).collect();
            let plain = |order: &mut dyn Iterator<Item = &u64>| {
                order.fold(round(t, -0.0), |acc, &x| {
                    round(t, t.value(acc) + t.value(x))
                })
            };
            if plain(&mut xs.iter()) != plain(&mut xs.iter().rev()) {
                order_matters[g] = true;
            }
            if t == FpType::F64 {
                continue;
            }
            let exact = xs.iter().fold(-0.0, |a, &x| a + t.value(x));
            assert_eq!(
                got,
                round(t, exact),
                "seed {SEED:#x}: {group} operation {k} element {e}: {xs:#x?}"
            );
        }
    }
    assert_eq!(order_matters[..3], [true; 3]);
    let chunks: u64 = GROUPS.iter().map(|g| g.2.div_ceil(g.3)).sum();
    assert_eq!(seen.len() as u64, chunks * OPERATIONS);
}

/// The value of an element of type `t`, and whether it is `+0` (so that `-0 < +0` orders).
fn key(t: FpType, x: u64) -> (f64, bool) {
    let v = t.value(x);
    (v, v == 0.0 && x & t.sign_bit() == 0)
}

/// SUM, PROD, MIN, MAX, MINLOC and MAXLOC over every floating-point type in the switches
/// (`[switch] fp = 1`), each a group of its own on a three-level fat tree with loss: the run is
/// safe (the checker folds MIN … MAXLOC, bounds every SUM by the error of any order of
/// additions, and requires every member of a group to receive the same bits), and MIN, MAX,
/// MINLOC and MAXLOC equal this test's own reference.
#[test]
fn floating_point_reductions_in_the_switches() {
    const SEED: u64 = 0x0f10_a7ed;
    let ops = ["SUM", "PROD", "MIN", "MAX", "MINLOC", "MAXLOC"];
    let types = [
        (FpType::F16, "f16"),
        (FpType::Bf16, "bf16"),
        (FpType::F32, "f32"),
        (FpType::F64, "f64"),
    ];
    let mut text = String::from(
        "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 3\nlatency = 5\n\
         [switch]\nmax_plen = 8\nlanes = 4\nslots = 64\ngroups = 256\nfp = 1\n\
         [node]\noverhead = 5\nretry_timeout = 3000\ncompute = [0, 300]\n\
         [[fault]]\nkind = 'loss'\nrate = 0.005\n",
    );
    let mut groups = vec![];
    for op in ops {
        for (t, name) in types {
            text += &format!(
                "[[group]]\nname = 'g{}'\nmembers = 'all'\ncollective = 'allreduce'\nop = '{op}'\ndtype = '{name}'\nwords = 8\nchunk = 4\nwindow = 2\noperations = 2\n",
                groups.len()
            );
            groups.push((op, t));
        }
    }
    let r = run(&text, SEED);
    assert!(r.summary.safe, "seed {SEED:#x}\n{}", r.table());
    assert_eq!(r.summary.results_checked as usize, r.results.len());
    assert_eq!(r.results.len(), groups.len() * 2 * 2 * 16);
    let mut compared = 0;
    for res in &r.results {
        let g: usize = res.group[1..].parse().expect("a group index");
        let (op, t) = groups[g];
        let first = res.chunk * 4;
        let vectors: Vec<Vec<u64>> = (0..16)
            .map(|m| {
                (first..first + 4)
                    .map(|w| {
                        let c = contribution(SEED, g, m, res.op, w);
                        if op.ends_with("LOC") && w % 2 == 1 {
                            c
                        } else {
                            netcoll_fabric::collective::fp_word(t, c)
                        }
                    })
                    .collect()
            })
            .collect();
        if !matches!(op, "MIN" | "MAX" | "MINLOC" | "MAXLOC") {
            continue;
        }
        let slots = if t.bits() <= 32 { 2 } else { 1 };
        let mask = t.mask();
        let slot = |w: u64, h: usize| {
            if slots == 2 {
                (w >> (32 * h)) & mask
            } else {
                w
            }
        };
        let max = op.starts_with("MAX");
        let step = if op.ends_with("LOC") { 2 } else { 1 };
        for w in (0..4).step_by(step) {
            for h in 0..slots {
                let xs: Vec<u64> = vectors.iter().map(|v| slot(v[w], h)).collect();
                let better = |a: (f64, bool), b: (f64, bool)| {
                    let ord = a.partial_cmp(&b).expect("no NaN in the data");
                    if max {
                        ord.is_gt()
                    } else {
                        ord.is_lt()
                    }
                };
                let best = xs
                    .iter()
                    .copied()
                    .reduce(|a, b| if better(key(t, b), key(t, a)) { b } else { a })
                    .expect("members");
                assert_eq!(
                    slot(res.words[w], h),
                    best,
                    "seed {SEED:#x}: {op} {t:?} operation {} chunk {} word {w} slot {h}",
                    res.op,
                    res.chunk
                );
                if step == 2 {
                    let index = (0..16)
                        .filter(|&m| xs[m] == best)
                        .map(|m| {
                            let i = vectors[m][w + 1];
                            if slots == 2 {
                                (i >> (32 * h)) & 0xFFFF_FFFF
                            } else {
                                i
                            }
                        })
                        .min()
                        .expect("one holds it");
                    let got = if slots == 2 {
                        (res.words[w + 1] >> (32 * h)) & 0xFFFF_FFFF
                    } else {
                        res.words[w + 1]
                    };
                    assert_eq!(got, index, "{op} {t:?} index");
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}
