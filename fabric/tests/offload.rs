//! Collectives by the NICs and by host software on the fabric (`fabric run --algo nic|host`):
//! the same results as the switches', checked against a fold written from the definitions;
//! RTL and Verilator NICs identical to the cycle model; host progress paying its overheads;
//! and what the NICs' runs refuse.

mod common;

use common::reference;
use netcoll_fabric::collective::contribution;
use netcoll_fabric::{parse, Algo, Fabric, OffloadOptions, Report};
use netcoll_models::config::Config;
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_testbench::harness::Level;
use std::collections::BTreeMap;

fn fabric(text: &str) -> Fabric {
    let file = parse(text).unwrap_or_else(|e| panic!("fabric file: {e}"));
    Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("fabric: {e}"))
}

fn run(f: &Fabric, algo: Algo, o: &OffloadOptions) -> Report {
    f.run_offloaded(algo, o, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{}: {e}", algo.name()))
}

fn kept(seed: u64) -> OffloadOptions {
    OffloadOptions {
        seed,
        keep_results: true,
        ..Default::default()
    }
}

/// A three-level fat tree of radix 4 (16 nodes, 20 switches), so that trees have one to three
/// levels and messages cross cores.
const FAT_TREE: &str = "
[fabric]
topology = 'fat_tree'
k = 4
levels = 3
latency = 6
[switch]
max_plen = 8
lanes = 4
slots = 64
groups = 256
[node]
overhead = 5
";

/// `(group name, members, op, dtype, words)` of the reductions below.
const GROUPS: [(&str, &str, AluOp, Dtype, u64); 6] = [
    ("sum", "'all'", AluOp::Sum, Dtype::I64, 12),
    ("max32", "'0..9'", AluOp::Max, Dtype::I32, 6),
    ("maxloc", "[1, 4, 6, 11, 15]", AluOp::MaxLoc, Dtype::I64, 8),
    (
        "minloc32",
        "[0, 5, 10, 15, 3, 12]",
        AluOp::MinLoc,
        Dtype::I32,
        4,
    ),
    ("bxor", "[2, 3]", AluOp::BXor, Dtype::U64, 5),
    ("prod", "[7, 8, 9]", AluOp::Prod, Dtype::U32, 3),
];

fn groups_text() -> String {
    let mut text = String::from(FAT_TREE);
    for (name, members, op, dtype, words) in GROUPS {
        text += &format!(
            "[[group]]\nname = '{name}'\nmembers = {members}\ncollective = 'allreduce'\n\
             op = '{}'\ndtype = '{}'\nwords = {words}\noperations = 2\n",
            op.name(),
            dtype.name()
        );
    }
    text
}

/// (group, node, operation).
type Key = (String, String, u64);

/// Each member's result words per (group, operation), chunks joined in order.
fn results(r: &Report) -> BTreeMap<Key, Vec<u64>> {
    let mut out: BTreeMap<Key, Vec<(u64, Vec<u64>)>> = BTreeMap::new();
    for x in &r.results {
        out.entry((x.group.clone(), x.node.clone(), x.op))
            .or_default()
            .push((x.chunk, x.words.clone()));
    }
    out.into_iter()
        .map(|(k, mut chunks)| {
            chunks.sort();
            (k, chunks.into_iter().flat_map(|(_, w)| w).collect())
        })
        .collect()
}

/// Six reductions (every kind of element rule: wrapping SUM and PROD, MAX over packed 32-bit
/// lanes, MAXLOC / MINLOC pairs, BXOR) by the switches, the NICs and host software: every
/// member of every group gets, in every operation, the same words three ways, and they equal
/// the fold of the members' contributions from the definitions (`common::reference`).
#[test]
fn nic_and_host_give_the_switches_results_and_the_definitions() {
    let f = fabric(&groups_text());
    let seed = 11;
    let by: Vec<(Algo, Report)> = Algo::ALL
        .into_iter()
        .map(|a| (a, run(&f, a, &kept(seed))))
        .collect();
    for (a, r) in &by {
        assert!(r.summary.safe, "{}: {:?}", a.name(), r.summary.violations);
        assert_eq!(r.summary.barriers, 12, "{}", a.name());
    }
    let switch = results(&by[0].1);
    for (a, r) in &by[1..] {
        assert_eq!(results(r), switch, "{} differs from the switches", a.name());
    }
    let mut checked = 0;
    for (g, (name, _, op, dtype, words)) in GROUPS.into_iter().enumerate() {
        let members = f.members(g).to_vec();
        for k in 0..2 {
            let vectors: Vec<Vec<u64>> = members
                .iter()
                .map(|&m| (0..words).map(|i| contribution(seed, g, m, k, i)).collect())
                .collect();
            let want = reference(op, dtype, &vectors);
            for &m in &members {
                let node = format!("h{m}");
                let got = &switch[&(name.to_string(), node.clone(), k)];
                assert_eq!(got, &want, "group {name}, {node}, operation {k}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * (16 + 9 + 5 + 6 + 2 + 3));
}

/// A broadcast from h5 and a reduce to h2 by the NICs: every member gets the root's vector
/// (broadcast), and the reduce's result is the sum (every member gets it, as from the
/// switches).
#[test]
fn broadcast_and_reduce_by_the_nics() {
    let text = format!(
        "{FAT_TREE}[[group]]\nname = 'bcast'\nmembers = '0..11'\ncollective = 'broadcast'\n\
         root = 'h5'\nwords = 7\noperations = 2\n\
         [[group]]\nname = 'red'\nmembers = [2, 9, 13]\ncollective = 'reduce'\nroot = 'h2'\n\
         op = 'SUM'\ndtype = 'u64'\nwords = 3\noperations = 1\n"
    );
    let f = fabric(&text);
    let seed = 3;
    for algo in [Algo::Nic, Algo::Host] {
        let r = run(&f, algo, &kept(seed));
        assert!(r.summary.safe, "{:?}", r.summary.violations);
        let res = results(&r);
        for k in 0..2 {
            let root: Vec<u64> = (0..7).map(|i| contribution(seed, 0, 5, k, i)).collect();
            for m in 0..11 {
                assert_eq!(res[&("bcast".into(), format!("h{m}"), k)], root, "h{m} {k}");
            }
        }
        let sum: Vec<u64> = (0..3)
            .map(|i| {
                [2, 9, 13]
                    .iter()
                    .fold(0u64, |a, &m| a.wrapping_add(contribution(seed, 1, m, 0, i)))
            })
            .collect();
        assert_eq!(res[&("red".into(), "h2".into(), 0)], sum);
    }
}

/// A barrier of 16 NICs is a dissemination barrier: every member sends one message a round,
/// `ceil(log2 16)` = 4 rounds, each answered (reliable QPs); under host progress every
/// member pays the software overhead twice a round (a send and an arrival), so a barrier
/// costs more than 8 overheads, while the offloaded one pays it twice (entering and leaving)
/// and costs less than 8.
#[test]
fn barriers_by_the_nics_send_what_dissemination_sends_and_host_progress_pays_its_overheads() {
    let overhead = 300;
    let text = FAT_TREE.replace("overhead = 5", &format!("overhead = {overhead}"))
        + "[[group]]\nname = 'all'\nmembers = 'all'\nbarriers = 3\n";
    let f = fabric(&text);
    let nic = run(&f, Algo::Nic, &OffloadOptions::default());
    let host = run(&f, Algo::Host, &OffloadOptions::default());
    for r in [&nic, &host] {
        assert!(r.summary.safe, "{:?}", r.summary.violations);
        assert_eq!(r.summary.barriers, 3);
        assert_eq!(r.summary.messages, 3 * 16 * 4);
        assert_eq!(r.summary.answers, 3 * 16 * 4);
    }
    assert!(
        host.summary.latency_min > 8 * overhead,
        "host {}",
        host.summary.latency_min
    );
    assert!(
        nic.summary.latency_max < 8 * overhead,
        "nic {:?}",
        nic.records
    );
    // Without the software's overhead the offloaded barrier is two overheads faster, give or
    // take how the members' messages then interleave (a quarter of an overhead either way).
    let free = run(
        &fabric(&text.replace(&format!("overhead = {overhead}"), "overhead = 0")),
        Algo::Nic,
        &OffloadOptions::default(),
    );
    let saved = nic.summary.latency_median - free.summary.latency_median;
    assert!(
        saved.abs_diff(2 * overhead) <= overhead / 4,
        "{saved} cycles for overheads of {overhead}"
    );
    // Records follow one another: each starts after the previous one ended.
    for w in nic.records.windows(2) {
        assert!(w[1].start > w[0].end, "{:?}", nic.records);
    }
}

/// Two groups with no member in common (the even and the odd nodes, so that every leaf's
/// links carry both) run together: their operations start in the same cycle, their results
/// are the sums of their contributions, and each takes longer than it does alone, since their
/// messages share the switches. A third group, which shares members with both, runs after
/// them.
#[test]
fn disjoint_groups_run_together_and_share_the_switches() {
    let even: Vec<String> = (0..16).step_by(2).map(|m| m.to_string()).collect();
    let odd: Vec<String> = (1..16).step_by(2).map(|m| m.to_string()).collect();
    let group = |name: &str, members: &[String]| {
        format!(
            "[[group]]\nname = '{name}'\nmembers = [{}]\ncollective = 'allreduce'\n\
             op = 'SUM'\ndtype = 'u64'\nwords = 64\noperations = 2\n",
            members.join(", ")
        )
    };
    let both = format!(
        "{FAT_TREE}{}{}[[group]]\nname = 'all'\nmembers = 'all'\nbarriers = 1\n",
        group("even", &even),
        group("odd", &odd)
    );
    let seed = 9;
    let r = run(&fabric(&both), Algo::Nic, &kept(seed));
    assert!(r.summary.safe, "{:?}", r.summary.violations);
    let rec = |g: &str, k: u64| {
        r.records
            .iter()
            .find(|x| x.group == g && x.barrier == k)
            .unwrap_or_else(|| panic!("no record of {g} {k}: {:?}", r.records))
            .clone()
    };
    for k in 0..2 {
        assert_eq!(rec("even", k).start, rec("odd", k).start, "operation {k}");
    }
    assert!(rec("all", 0).start > rec("even", 1).end.max(rec("odd", 1).end));
    let res = results(&r);
    for (g, members) in [(0usize, &even), (1, &odd)] {
        let name = if g == 0 { "even" } else { "odd" };
        for k in 0..2 {
            let sum: Vec<u64> = (0..64)
                .map(|i| {
                    members.iter().fold(0u64, |a, m| {
                        a.wrapping_add(contribution(seed, g, m.parse().unwrap(), k, i))
                    })
                })
                .collect();
            for m in members.iter() {
                assert_eq!(
                    res[&(name.to_string(), format!("h{m}"), k)],
                    sum,
                    "{name} h{m} {k}"
                );
            }
        }
    }
    let alone = run(
        &fabric(&format!("{FAT_TREE}{}", group("even", &even))),
        Algo::Nic,
        &OffloadOptions::default(),
    );
    assert!(
        rec("even", 0).latency > alone.records[0].latency,
        "together {} alone {}",
        rec("even", 0).latency,
        alone.records[0].latency
    );
}

/// Everything the run prints, as `fabric run --json` prints it.
fn printed(r: &Report) -> String {
    format!(
        "{}{}\n{}",
        r.json_lines(),
        serde_json::to_string(&r.summary).unwrap(),
        r.table()
    )
}

/// NICs at the rust-hdl RTL and under Verilator, at an edge of the tree and across a core
/// from it, print exactly what the cycle-model NICs print, by the NICs and by host software.
#[test]
fn rtl_and_verilator_nics_in_the_fabric_give_identical_output() {
    let text = format!(
        "{FAT_TREE}[[group]]\nname = 'sum'\nmembers = [0, 1, 6, 13]\ncollective = 'allreduce'\n\
         op = 'SUM'\ndtype = 'i64'\nwords = 4\noperations = 1\n\
         [[group]]\nname = 'sync'\nmembers = [0, 6, 13]\nbarriers = 1\n"
    );
    let f = fabric(&text);
    for algo in [Algo::Nic, Algo::Host] {
        let model = printed(&run(&f, algo, &OffloadOptions::default()));
        let o = OffloadOptions {
            levels: BTreeMap::from([
                ("h0".to_string(), Level::Rtl),
                ("h13".to_string(), Level::Verilator),
            ]),
            ..Default::default()
        };
        let mixed = printed(&run(&f, algo, &o));
        assert_eq!(mixed, model, "{}", algo.name());
    }
}

/// An f32 SUM allreduce, whose bits depend on the order of additions, by the switches and by
/// NICs built with floating point (the fabric file's `[nic]` table): every member of a run
/// gets the same bits and they lie within the error bound of any order, which the runs check
/// (a result outside it, or two members apart, would be a violation). Without `[nic] fp` the
/// NICs' run is refused, naming the group.
#[test]
fn floating_point_allreduce_by_nics_built_with_it() {
    let group = "[[group]]\nname = 'f'\nmembers = 'all'\ncollective = 'allreduce'\n\
                 op = 'SUM'\ndtype = 'f32'\nwords = 6\noperations = 2\n";
    let base = FAT_TREE.replace("[switch]\n", "[switch]\nfp = 1\n");
    let f = fabric(&format!("{base}[nic]\nfp = 1\n{group}"));
    for algo in Algo::ALL {
        let r = run(&f, algo, &kept(5));
        assert!(
            r.summary.safe,
            "{}: {:?}",
            algo.name(),
            r.summary.violations
        );
        assert_eq!(r.summary.results_checked, 2 * 16, "{}", algo.name());
        let res = results(&r);
        for k in 0..2 {
            let first = &res[&("f".into(), "h0".into(), k)];
            for m in 1..16 {
                assert_eq!(
                    &res[&("f".into(), format!("h{m}"), k)],
                    first,
                    "{}",
                    algo.name()
                );
            }
        }
    }
    let err = fabric(&format!("{base}{group}"))
        .run_offloaded(Algo::Nic, &OffloadOptions::default(), &mut |_, _| {})
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("group[0] = f (16 members): the host library cannot schedule it"),
        "{err}"
    );
}

/// What the NICs' runs refuse, with the key (and a bad `[nic]` table).
#[test]
fn what_the_nics_cannot_run_is_refused_naming_the_key() {
    let err = |text: &str| {
        fabric(text)
            .run_offloaded(Algo::Nic, &OffloadOptions::default(), &mut |_, _| {})
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let barrier = format!("{FAT_TREE}[[group]]\nmembers = 'all'\nbarriers = 1\n");
    assert_eq!(
        err(&format!("{barrier}[[fault]]\nkind = 'loss'\nrate = 0.1\n")),
        "fault[0].kind = \"loss\": --algo nic runs fabrics without faults (a NIC has no loss timeout); use --algo switch"
    );
    assert!(err(&format!(
        "{FAT_TREE}[[group]]\nname = 'one'\nmembers = [3]\nbarriers = 1\n"
    ))
    .starts_with("group[0] = one (1 members): the host library cannot schedule it"));
    let bad_nic = format!("{FAT_TREE}[nic]\nqps = 5\n[[group]]\nmembers = 'all'\nbarriers = 1\n");
    let file = parse(&bad_nic).expect("fabric file");
    assert_eq!(
        Fabric::new(file, Config::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
        "the fabric file's [nic] table: line 2: `nic.qps` = 5 is not supported; allowed values: 4, 16"
    );
    let levels = OffloadOptions {
        levels: BTreeMap::from([("core0".to_string(), Level::Rtl)]),
        ..Default::default()
    };
    assert_eq!(
        fabric(&barrier)
            .run_offloaded(Algo::Host, &levels, &mut |_, _| {})
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
        "--levels = core0: with --algo host name nodes (e.g. h0)"
    );
}
