//! End-to-end fabric runs: latency against an analytic formula, fault campaigns with the
//! safety checker, rebuilds, file errors.

mod common;

use netcoll_fabric::sm::{Policy, SubnetManager, Tree};
use netcoll_fabric::topology::{End, Topology};
use netcoll_fabric::{parse, Fabric, Report, RunOptions};
use netcoll_models::config::Config;
use netcoll_models::switch_engine::LATENCY;
use netcoll_testbench::harness::Level;

fn run(text: &str, seed: u64) -> (Fabric, Report) {
    let file = parse(text).unwrap_or_else(|e| panic!("fabric file: {e}"));
    let fabric = Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("fabric: {e}"));
    let report = fabric
        .run(
            &RunOptions {
                seed,
                ..Default::default()
            },
            &mut |_, _| {},
        )
        .unwrap_or_else(|e| panic!("run: {e}"));
    (fabric, report)
}

/// Barrier latency when every member enters in the same cycle and nothing is lost, written
/// from the timing rules of the fabric (not from its code):
/// - a node's FULL leaves `o` (node overhead) cycles after its last process entered;
/// - a link costs `s + L` (serialisation of the 8-byte header at `bw` bytes/cycle, latency);
/// - a switch's engine takes one packet per cycle, in arrival order, and answers
///   `LATENCY` cycles after taking it; so packets arriving together at a switch with `c`
///   children finish `c - 1 + LATENCY` cycles after they arrived;
/// - an EXIT to the `j`-th child port (counting from the lowest) leaves `j / R` cycles late
///   (`R` copies per cycle);
/// - a node releases its processes `o` cycles after the EXIT arrives.
///
/// Computed by recursion over the tree: the up pass gives the root's completion time, the
/// down pass the last release.
fn analytic(topo: &Topology, tree: &Tree, o: u64, l: u64, bw: u64, r: u64) -> u64 {
    let s = 8u64.div_ceil(bw);
    let lat = LATENCY as u64;
    let link = s + l;
    // Children of each tree switch: (port, Some(switch) | None for a node).
    let kids = |sw: usize| -> Vec<(usize, Option<usize>)> {
        let e = tree.entries[&sw];
        (0..64)
            .filter(|p| e.children >> p & 1 == 1)
            .map(|p| {
                let li = topo.switch_ports[sw][p].unwrap();
                match topo.links[li].other(End::Switch(sw, p)) {
                    End::Switch(t, _) => (p, Some(t)),
                    End::Node(_) => (p, None),
                }
            })
            .collect()
    };
    // Up: the cycle (after the common entry) a switch's FULL or EXIT comes out of its engine.
    fn up(
        sw: usize,
        kids: &dyn Fn(usize) -> Vec<(usize, Option<usize>)>,
        o: u64,
        link: u64,
        lat: u64,
    ) -> u64 {
        let mut arrivals: Vec<u64> = kids(sw)
            .iter()
            .map(|&(_, c)| match c {
                None => o + link,
                Some(t) => up(t, kids, o, link, lat) + link,
            })
            .collect();
        arrivals.sort_unstable();
        let mut taken = 0;
        for (i, a) in arrivals.iter().enumerate() {
            taken = if i == 0 { *a } else { (*a).max(taken + 1) };
        }
        taken + lat
    }
    fn down(
        sw: usize,
        exit: u64,
        kids: &dyn Fn(usize) -> Vec<(usize, Option<usize>)>,
        o: u64,
        link: u64,
        lat: u64,
        r: u64,
    ) -> u64 {
        kids(sw)
            .iter()
            .enumerate()
            .map(|(j, &(_, c))| {
                let arrive = exit + j as u64 / r + link;
                match c {
                    None => arrive + o,
                    Some(t) => down(t, arrive + lat, kids, o, link, lat, r),
                }
            })
            .max()
            .unwrap_or(exit)
    }
    let root_exit = up(tree.root, &kids, o, link, lat);
    down(tree.root, root_exit, &kids, o, link, lat, r)
}

fn check_analytic(fabric_text: &str, expect_closed_form: Option<u64>) {
    let text = format!(
        "{fabric_text}\n[node]\noverhead = 7\ninterval = 3000\n[[group]]\nmembers = \"all\"\nbarriers = 6\n"
    );
    let (fabric, report) = run(&text, 1);
    assert!(report.summary.safe, "{}", report.table());
    assert_eq!(report.records.len(), 6);
    let f = &fabric.file.fabric;
    let members: Vec<usize> = (0..fabric.topo.node_names.len()).collect();
    let tree = SubnetManager::new(fabric.topo.clone(), 256)
        .build_tree(&members, Policy::Shortest)
        .unwrap();
    let want = analytic(
        &fabric.topo,
        &tree,
        7,
        f.latency,
        f.bandwidth,
        f.replication,
    );
    if let Some(c) = expect_closed_form {
        assert_eq!(want, c, "the recursion and the closed form disagree");
    }
    for r in &report.records {
        assert_eq!(r.latency, want, "barrier {} of {fabric_text}", r.barrier);
    }
}

/// Closed form for a symmetric tree with child counts `c[0]` (edge) .. `c[d]` (root).
fn closed(c: &[u64], o: u64, l: u64, s: u64, r: u64) -> u64 {
    let d = c.len() as u64 - 1;
    let lat = LATENCY as u64;
    2 * o
        + 2 * (d + 1) * (s + l)
        + (2 * d + 1) * lat
        + c.iter().map(|c| c - 1 + (c - 1) / r).sum::<u64>()
}

#[test]
fn loss_free_latency_equals_the_formula_on_fat_trees() {
    // Leaf-spine k = 4: leaves have 2 nodes, the root spine 4 leaves.
    check_analytic(
        "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2",
        Some(closed(&[2, 4], 7, 10, 1, 4)),
    );
    // k = 8: 4 nodes per leaf, 8 leaves; replication 4 per cycle delays the last 4 leaves.
    check_analytic(
        "[fabric]\ntopology = 'fat_tree'\nk = 8\nlevels = 2\nlatency = 25",
        Some(closed(&[4, 8], 7, 25, 1, 4)),
    );
    // Three levels, k = 4: edge 2 nodes, agg 2 edges, core 4 pods; slow links (2 cycles per packet).
    check_analytic(
        "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 3\nbandwidth = 4",
        Some(closed(&[2, 2, 4], 7, 10, 2, 4)),
    );
    // k = 6, three levels, 54 nodes, replication 2 per cycle.
    check_analytic(
        "[fabric]\ntopology = 'fat_tree'\nk = 6\nlevels = 3\nreplication = 2",
        Some(closed(&[3, 3, 6], 7, 10, 1, 2)),
    );
}

#[test]
fn loss_free_latency_equals_the_formula_on_dragonflies() {
    check_analytic(
        "[fabric]\ntopology = 'dragonfly'\na = 2\np = 2\nh = 1",
        None,
    );
    check_analytic(
        "[fabric]\ntopology = 'dragonfly'\na = 4\np = 2\nh = 2\nlatency = 3",
        None,
    );
}

fn campaign(fabric: &str, faults: &str, barriers: u64, seed: u64) -> Report {
    let text = format!(
        "{fabric}\n[node]\noverhead = 7\nretry_timeout = 400\ncompute = [0, 50]\n[[group]]\nmembers = \"all\"\nbarriers = {barriers}\n{faults}"
    );
    let (_, report) = run(&text, seed);
    report
}

fn run_levels(text: &str, seed: u64, levels: &[(&str, Level)]) -> Report {
    let file = parse(text).unwrap_or_else(|e| panic!("fabric file: {e}"));
    let fabric = Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("fabric: {e}"));
    let opts = RunOptions {
        seed,
        levels: levels.iter().map(|(s, l)| (s.to_string(), *l)).collect(),
        threads: 1,
        ..Default::default()
    };
    fabric
        .run(&opts, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("run: {e}"))
}

const MIXED: &str = "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\nlatency = 6\n[node]\noverhead = 5\nretry_timeout = 300\ncompute = [0, 40]\n[[group]]\nmembers = 'all'\nbarriers = 40\n[[group]]\nmembers = [0, 3, 5]\nbarriers = 30\n[[fault]]\nkind = 'loss'\nrate = 0.02\nop = 'EXIT'\n[[fault]]\nkind = 'duplicate'\nrate = 0.05\ndelay = [1, 40]\n";

#[test]
fn a_verilator_switch_at_the_root_and_an_edge_gives_identical_output() {
    let model = run_levels(MIXED, 5, &[]);
    assert!(model.summary.safe, "{}", model.table());
    assert!(
        model.summary.faults.get("duplicate").copied().unwrap_or(0) > 0,
        "the run exercises duplicates"
    );
    let mixed = run_levels(
        MIXED,
        5,
        &[("spine0", Level::Verilator), ("leaf1", Level::Verilator)],
    );
    assert_eq!(mixed.json_lines(), model.json_lines());
    assert_eq!(mixed.table(), model.table());
}

#[test]
fn a_rust_hdl_switch_gives_identical_output() {
    let text = MIXED
        .replace("barriers = 40", "barriers = 6")
        .replace("barriers = 30", "barriers = 4");
    let model = run_levels(&text, 9, &[]);
    let mixed = run_levels(&text, 9, &[("leaf0", Level::Rtl)]);
    assert_eq!(mixed.json_lines(), model.json_lines());
    assert_eq!(mixed.table(), model.table());
}

/// Model switches run the transaction-level engine; run as the cycle model instead (every
/// switch, through the harness), the output is the same, with the engines' retry timer off
/// and on.
#[test]
fn the_cycle_model_switch_gives_identical_output() {
    // With the timer, FULLs are lost above leaf0 and nodes are slow to retry: the engines'
    // ticks recover them.
    let timer = format!(
        "[switch]\nretry_timer = 1\nepoch_cycles = 256\n{}[[fault]]\nkind = 'loss'\nrate = 0.3\nop = 'FULL'\nlink = 'leaf0:2'\n",
        MIXED.replace("retry_timeout = 300", "retry_timeout = 3000")
    );
    for text in [MIXED.to_string(), timer] {
        let file = parse(&text).unwrap_or_else(|e| panic!("fabric file: {e}"));
        let fabric = Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("{e}"));
        let names = fabric.topo.switch_names.clone();
        let all: Vec<(&str, Level)> = names.iter().map(|s| (s.as_str(), Level::Model)).collect();
        let txn = run_levels(&text, 3, &[]);
        assert!(txn.summary.safe, "{}", txn.table());
        if text.contains("retry_timer") {
            assert!(
                txn.summary.verdicts.contains_key("RETRY"),
                "{}",
                txn.table()
            );
        }
        let cycle = run_levels(&text, 3, &all);
        assert_eq!(cycle.json_lines(), txn.json_lines(), "{text}");
        assert_eq!(cycle.table(), txn.table(), "{text}");
    }
}

/// The kernel skips what changes nothing (quiet engines, switches asleep until their engine
/// answers or a credit comes back, idle stretches); stepping every switch in every cycle
/// instead (the naive reference) gives the same output but for the work counters: over loss,
/// delayed duplicates, a member leaving, a link flapping, a switch dying and senders waiting
/// for credits.
#[test]
fn skipping_idle_switches_changes_nothing() {
    let shipped = |name: &str, barriers: &str| {
        let path = format!("{}/../scenarios/fabric/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        text.replace("barriers = 1000", barriers)
    };
    let cases = [
        (MIXED.to_string(), 5),
        (shipped("faults.toml", "barriers = 300"), 1),
        (shipped("faults.toml", "barriers = 300"), 7),
        (shipped("rebuild.toml", "barriers = 400"), 7),
        // Senders waiting for credits, woken when one comes back.
        (CONGESTED.to_string(), 1),
    ];
    for (text, seed) in cases {
        let file = parse(&text).unwrap_or_else(|e| panic!("fabric file: {e}"));
        let fabric = Fabric::new(file, Config::default()).unwrap_or_else(|e| panic!("{e}"));
        let run = |every_cycle| {
            let opts = RunOptions {
                seed,
                every_cycle,
                ..Default::default()
            };
            fabric
                .run(&opts, &mut |_, _| {})
                .unwrap_or_else(|e| panic!("run: {e}"))
        };
        let (fast, naive) = (run(false), run(true));
        assert!(fast.summary.safe, "{}", fast.table());
        assert!(
            naive.summary.steps > 2 * fast.summary.steps,
            "the reference steps every cycle"
        );
        let counters = |r: &netcoll_fabric::Report| {
            let mut s = r.summary.clone();
            (s.steps, s.events) = (0, 0);
            (r.records.clone(), s)
        };
        assert_eq!(counters(&naive), counters(&fast), "seed {seed}: {text}");
    }
}

/// The fault campaign: 100,000 barriers in total over loss rates from 1e-4 to 1e-1, delayed
/// duplicates, a tree link going down in the middle of barriers (and coming back), and a
/// member leaving; every run must be safe (no early release) and finish (no hang).
#[test]
fn fault_campaigns_have_no_violation_and_no_hang() {
    let leaf_spine = "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\nlatency = 8";
    let mut total = 0;
    let mut runs: Vec<(String, u64, u64)> = vec![];
    for (i, rate) in [1e-4, 1e-3, 1e-2, 1e-1].iter().enumerate() {
        runs.push((
            format!("[[fault]]\nkind = 'loss'\nrate = {rate}"),
            15_000,
            10 + i as u64,
        ));
    }
    runs.push((
        "[[fault]]\nkind = 'duplicate'\nrate = 0.05\ndelay = [1, 400]".into(),
        15_000,
        20,
    ));
    runs.push(("[[fault]]\nkind = 'duplicate'\nrate = 0.02\ndelay = [1, 50]\n[[fault]]\nkind = 'loss'\nrate = 0.02".into(), 10_000, 21));
    // Link down mid-barrier (leaf0's uplink to the root spine), up again later, repeatedly.
    let mut flaps = String::new();
    for k in 0..10 {
        let at = 20_000 + k * 60_000;
        flaps += &format!(
            "[[fault]]\nkind = 'link_down'\nlink = 'leaf{}:2'\nat = {at}\nup = {}\n",
            k % 4,
            at + 30_000
        );
    }
    runs.push((flaps + "[[fault]]\nkind = 'loss'\nrate = 0.01", 10_000, 22));
    runs.push((
        "[[fault]]\nkind = 'leave'\nnode = 3\nat = 5000\n[[fault]]\nkind = 'loss'\nrate = 0.01"
            .into(),
        10_000,
        23,
    ));
    for (faults, barriers, seed) in &runs {
        let r = campaign(leaf_spine, faults, *barriers, *seed);
        assert!(
            r.summary.safe,
            "seed {seed}, faults {faults}:\n{}",
            r.table()
        );
        total += r.summary.barriers;
    }
    assert!(total >= 100_000, "{total} barriers");
}

/// A link of the tree goes down in the middle of a barrier: the SM rebuilds the tree at the
/// members' TID through the other spine; every barrier completes, none early, and the
/// barrier in flight when the link failed completes after the rebuild.
#[test]
fn a_mid_barrier_rebuild_completes_every_barrier_with_no_early_release() {
    for (at, seed) in [
        (20_003, 1),
        (20_011, 2),
        (20_029, 3),
        (20_047, 4),
        (33_333, 5),
    ] {
        let faults = format!("[[fault]]\nkind = 'link_down'\nlink = 'leaf1:2'\nat = {at}");
        let r = campaign(
            "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2",
            &faults,
            400,
            seed,
        );
        assert!(r.summary.safe, "link down at {at}:\n{}", r.table());
        assert_eq!(r.summary.barriers, 400);
        assert!(r.summary.rebuilds >= 1, "the tree was rebuilt");
        // Some barrier straddled the failure and took longer than the loss-free ones.
        assert!(
            r.summary.latency_max > 2 * r.summary.latency_median,
            "{}",
            r.table()
        );
    }
}

#[test]
fn a_switch_failure_moves_the_tree_and_nodes_behind_it_leave() {
    // spine0 (the root) fails: the tree moves to spine1. Then leaf3 fails: its nodes (h6, h7)
    // cannot be reached and leave the group; the others carry on.
    let faults = "[[fault]]\nkind = 'switch_down'\nswitch = 'spine0'\nat = 10000\n[[fault]]\nkind = 'switch_down'\nswitch = 'leaf3'\nat = 30000";
    let r = campaign(
        "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2",
        faults,
        500,
        7,
    );
    assert!(r.summary.safe, "{}", r.table());
    assert_eq!(r.summary.barriers, 500);
    assert_eq!(r.records.last().map(|x| x.members), Some(6));
}

#[test]
fn bad_fabric_files_get_one_line_errors_naming_the_key() {
    let err = |text: &str| match parse(text) {
        Err(e) => e.to_string(),
        Ok(f) => Fabric::new(f, Config::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
    };
    let base = "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\n";
    assert_eq!(err(&format!("{base}[[group]]\nmembers = '0..9'\nbarriers = 1")), "group[0].members = \"0..9\": must be \"all\", \"a..b\" with a < b <= 8, or a list of nodes");
    assert_eq!(err(&format!("{base}[[group]]\nmembers = 'all'\nbarriers = 1\n[[fault]]\nkind = 'link_down'\nlink = 'leaf0:7'\nat = 5")), "fault[0].link = \"leaf0:7\": must be \"switch:port\" of a port with a link");
    assert_eq!(
        err(&format!(
            "{base}[[group]]\nmembers = 'all'\nbarriers = 1\n[[fault]]\nkind = 'loss'\nrate = 2.0"
        )),
        "fault[0].rate = 2: must be a probability in [0, 1]"
    );
    assert_eq!(
        err(&format!(
            "{base}[sm]\npolicy = 'fastest'\n[[group]]\nmembers = 'all'\nbarriers = 1"
        )),
        "sm.policy = \"fastest\": must be shortest or least_congested"
    );
    assert!(err(&format!(
        "{base}colour = 3\n[[group]]\nmembers = 'all'\nbarriers = 1"
    ))
    .contains("unknown field `colour`"));
    assert!(err(&format!(
        "{base}[switch]\nradix = 5\n[[group]]\nmembers = 'all'\nbarriers = 1"
    ))
    .contains("radix"));
    assert_eq!(
        err(base),
        "group = (none): a fabric file needs at least one [[group]]"
    );
}

#[test]
fn the_shipped_examples_run_safe() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/fabric");
    let mut names = vec![];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            names.push(path);
        }
    }
    names.sort();
    assert!(names.len() >= 6);
    for path in names {
        let (_, r) = run(&std::fs::read_to_string(&path).unwrap(), 1);
        assert!(r.summary.safe, "{}:\n{}", path.display(), r.table());
        assert!(r.summary.barriers > 0);
    }
}

/// A fat tree of radix 8 where senders often wait for credits: three groups, loss, delayed
/// duplicates, a burst of lost EXITs, a link flapping, a core dying, a member leaving.
const CONGESTED: &str = concat!(
    "
[fabric]
topology = 'fat_tree'
k = 8
levels = 3
latency = 7
bandwidth = 1
credits = 2
egress_depth = 3
replication = 2
[node]
overhead = 15
retry_timeout = 600
procs = 3
compute = [0, 40]
[[group]]
name = 'a'
members = 'all'
barriers = 60
[[group]]
name = 'b'
members = '0..40'
barriers = 80
policy = 'least_congested'
[[group]]
name = 'c'
members = [3, 9, 17, 33, 60, 61, 62]
barriers = 100
start = 500
",
    campaign_faults!(),
    "[[fault]]
kind = 'leave'
node = 9
group = 'c'
at = 30000
"
);

/// Everything `fabric run` prints for `fabric` (records, the summary as `--json` prints it,
/// work counters included, and the summary table), with `threads`.
fn printed(fabric: &Fabric, seed: u64, threads: usize) -> String {
    let r = fabric
        .run(
            &RunOptions {
                seed,
                threads,
                ..Default::default()
            },
            &mut |_, _| {},
        )
        .unwrap();
    let summary = serde_json::to_string(&r.summary).unwrap();
    format!("{}{summary}\n{}", r.json_lines(), r.table())
}

/// The output does not depend on the number of threads (partitions): every event is ordered
/// by its cycle, class, maker and the maker's own count, never by which partition ran it.
#[test]
fn one_two_and_three_threads_give_byte_identical_output() {
    let text = "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 3\nlatency = 5\n[node]\noverhead = 9\nretry_timeout = 250\ncompute = [0, 60]\n[[group]]\nmembers = 'all'\nbarriers = 300\n[[group]]\nmembers = '2..11'\nbarriers = 200\npolicy = 'least_congested'\n[[fault]]\nkind = 'loss'\nrate = 0.03\n[[fault]]\nkind = 'duplicate'\nrate = 0.03\ndelay = [1, 30]\n[[fault]]\nkind = 'link_down'\nlink = 'edge0:2'\nat = 9000\nup = 30000\n[[fault]]\nkind = 'leave'\nnode = 4\nat = 15000\n";
    let fabric = Fabric::new(parse(text).unwrap(), Config::default()).unwrap();
    let one = printed(&fabric, 3, 1);
    assert!(one.contains("SAFE"), "{one}");
    assert_eq!(printed(&fabric, 3, 2), one);
    assert_eq!(printed(&fabric, 3, 3), one);
    // Congested: two credits a link, one byte a cycle, short egress queues, three processes a
    // node, long duplicate delays, a tree link flapping, a core dying. Senders wait for
    // credits that come back over links between partitions (the work counters once differed
    // with the thread count here, with seed 1).
    let fabric = Fabric::new(parse(CONGESTED).unwrap(), Config::default()).unwrap();
    let one = printed(&fabric, 1, 1);
    assert!(one.contains("SAFE"), "{one}");
    for threads in [2, 3] {
        assert_eq!(
            printed(&fabric, 1, threads),
            one,
            "congested: {threads} threads"
        );
    }
    // The shipped examples too: faults and rebuilds near the end of a run, and partitions
    // whose shortest link between them is longer than the shortest link of all.
    for name in ["faults", "rebuild", "dragonfly"] {
        let path = format!(
            "{}/../scenarios/fabric/{name}.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let fabric = Fabric::new(parse(&text).unwrap(), Config::default()).unwrap();
        let one = printed(&fabric, 1, 1);
        for threads in [2, 3] {
            // Compared line by line, so that a failure shows the line, not two whole runs.
            let other = printed(&fabric, 1, threads);
            for (a, b) in one.lines().zip(other.lines()) {
                assert_eq!(a, b, "{name}: {threads} threads");
            }
            assert_eq!(one.lines().count(), other.lines().count(), "{name}");
        }
    }
}

/// With the engines' retry timer on, a switch whose FULL to its parent was lost sends it
/// again by itself: barriers complete although the nodes never retry.
#[test]
fn the_switch_retry_timer_recovers_lost_fulls_without_node_retries() {
    let text = |timer: u64| {
        format!(
            "[switch]\nretry_timer = {timer}\nepoch_cycles = 256\n[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\n[node]\noverhead = 5\nretry_timeout = 1000000000\n[[group]]\nmembers = 'all'\nbarriers = 200\n[[fault]]\nkind = 'loss'\nrate = 0.3\nop = 'FULL'\nlink = 'leaf0:2'\n[run]\ncompletion_bound = 20000\n"
        )
    };
    let (_, with) = run(&text(1), 4);
    assert!(with.summary.safe, "{}", with.table());
    assert_eq!(with.summary.retries, 0, "no node retried");
    assert!(
        with.summary.verdicts.get("RETRY").copied().unwrap_or(0) > 0,
        "{}",
        with.table()
    );
    let (_, without) = run(&text(0), 4);
    assert!(
        !without.summary.safe,
        "without the timer a lost FULL is never sent again"
    );
}
