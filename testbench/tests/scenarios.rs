//! The scenario runners as users meet them: the shipped NIC examples print the bytes they
//! printed before the runner moved out of `models`; the shipped switch examples print the same
//! events at every level, and the events a reader of each example expects; mistakes in a
//! scenario are one escaped line naming the file, the line, the step and the key; waveforms
//! read back by an independent VCD reader (`wellen`) show the values the events say.

use netcoll_models::switch_engine::SwitchEngineParams;
use netcoll_testbench::harness::scenario::ScenarioError;
use netcoll_testbench::harness::vcd::Tracer;
use netcoll_testbench::harness::{Knobs, Level};
use netcoll_testbench::nic::scenario::{self as nic, to_json_lines};
use netcoll_testbench::nic::{examples, run_level_with};
use netcoll_testbench::switch_engine::scenario::{self as sw, first_cycle};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netcoll-scen-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

// -------------------------------------------------------------------------------------------
// NIC
// -------------------------------------------------------------------------------------------

#[test]
fn nic_examples_print_the_recorded_bytes_at_the_model_level() {
    let data = root().join("testbench/tests/data/nic_events");
    let mut recorded: Vec<String> = std::fs::read_dir(&data)
        .expect("recorded events")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    recorded.sort();
    let names: Vec<String> = examples::EXAMPLES
        .iter()
        .map(|(n, _)| n.replace(".toml", ".jsonl"))
        .collect();
    assert_eq!(recorded, names, "one recording per shipped example");
    for (name, _) in examples::EXAMPLES {
        // Read from the file, as `netcoll nic run scenarios/nic/<name>` does.
        let s = nic::Scenario::from_file(root().join("scenarios/nic").join(name))
            .unwrap_or_else(|e| panic!("{e}"));
        let events = run_level_with(&s, Level::Model, None, Knobs::OFF, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want =
            std::fs::read_to_string(data.join(name.replace(".toml", ".jsonl"))).expect("recorded");
        let got = to_json_lines(&events);
        if got != want {
            let first = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            panic!(
                "{name}: output differs from the recording at line {}:\n  recorded: {:?}\n  now:      {:?}",
                first + 1,
                want.lines().nth(first),
                got.lines().nth(first)
            );
        }
    }
}

#[test]
fn nic_events_stream_in_order_and_a_sink_can_stop_the_run() {
    let s = nic::Scenario::from_file(root().join("scenarios/nic/send.toml")).expect("valid");
    for level in [Level::Golden, Level::Model] {
        let mut seen = vec![];
        let mut sink = |e: &nic::Event| {
            seen.push(e.clone());
            true
        };
        let all = run_level_with(&s, level, None, Knobs::OFF, Some(&mut sink)).expect("runs");
        assert_eq!(seen, all, "{level}");
        let mut n = 0;
        let mut stop = |_: &nic::Event| {
            n += 1;
            n < 2
        };
        let some = run_level_with(&s, level, None, Knobs::OFF, Some(&mut stop)).expect("runs");
        assert_eq!(
            some,
            all[..2].to_vec(),
            "{level}: stops after the sink says so"
        );
    }
}

#[test]
fn nic_examples_with_busy_knobs_compute_the_same_at_the_model_level() {
    // Gaps and tx_ready back-pressure change timing, not results: every example still agrees
    // with the golden (timing removed), and the driver really held beats.
    let (mut held, mut gaps) = (0, 0);
    for s in examples::examples().expect("valid") {
        let g = nic::run_golden(&s).expect("golden");
        for seed in [1u64, 2] {
            let mut m = netcoll_models::nic::model::NicModel::new(s.params);
            let run = nic::run_cycles_with(&s, &mut m, "model", Knobs::busy(seed), None)
                .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", s.file));
            if let Err(e) = nic::compare_normalised(&g, &run.events) {
                panic!("{} with Knobs::busy({seed}): {e}", s.file);
            }
            held += run.stats.tx_held;
            gaps += run.stats.gap_cycles;
        }
    }
    assert!(
        held > 20,
        "tx_ready back-pressure happened only {held} times"
    );
    assert!(gaps > 20, "only {gaps} idle cycles were inserted");
}

// -------------------------------------------------------------------------------------------
// Switch
// -------------------------------------------------------------------------------------------

const SWITCH_EXAMPLES: [&str; 6] = [
    "barrier.toml",
    "lagging_child.toml",
    "drops.toml",
    "interleaved.toml",
    "recovery.toml",
    "reduction.toml",
];

fn switch_example(name: &str) -> sw::Scenario {
    sw::Scenario::from_file(root().join("scenarios/switch").join(name), None)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn switch_lines(name: &str, level: Level) -> Vec<String> {
    sw::run_level(&switch_example(name), level, None, None)
        .unwrap_or_else(|e| panic!("{name} at {level}: {e}"))
        .iter()
        .map(|e| e.to_json())
        .collect()
}

#[test]
fn the_switch_examples_are_the_directory() {
    let mut found: Vec<String> = std::fs::read_dir(root().join("scenarios/switch"))
        .expect("scenarios/switch")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    found.sort();
    let mut want: Vec<String> = SWITCH_EXAMPLES.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(found, want, "a new example needs expectations here");
    for name in SWITCH_EXAMPLES {
        let s = switch_example(name);
        assert!(!s.name.is_empty() && !s.description.is_empty(), "{name}");
        let want = if name == "reduction.toml" {
            SwitchEngineParams::SMALL.with_payload(8, 2, 4)
        } else {
            SwitchEngineParams::SMALL
        };
        assert_eq!(s.params, want, "{name}");
    }
}

fn same_at(levels: &[Level]) {
    for name in SWITCH_EXAMPLES {
        let golden = switch_lines(name, Level::Golden);
        assert!(golden.len() > 5, "{name}");
        // The RTL levels of a reducing engine the RTL builds too.
        let built = netcoll_hdl::switch_engine::build(&switch_example(name).params).is_some();
        for &level in levels.iter().filter(|&&l| built || l == Level::Model) {
            let got = switch_lines(name, level);
            let g =
                sw::run_level(&switch_example(name), Level::Golden, None, None).expect("golden");
            let l = sw::run_level(&switch_example(name), level, None, None).expect("level");
            if let Err(e) = sw::compare_events(&g, &l) {
                panic!("{name}: golden vs {level}: {e}");
            }
            assert_eq!(got, golden, "{name} at {level}");
        }
    }
}

#[test]
fn switch_examples_are_identical_at_golden_model_and_rtl() {
    same_at(&[Level::Model, Level::Rtl]);
}

#[test]
fn switch_examples_are_identical_at_verilator() {
    same_at(&[Level::Verilator]);
}

/// `{"event":"verdict",…}` written out.
#[allow(clippy::too_many_arguments)]
fn verdict(
    step: usize,
    cycle: u64,
    port: u64,
    cgid: u64,
    v: &str,
    state: &str,
    tid: u64,
    fail: bool,
) -> String {
    format!(
        r#"{{"event":"verdict","step":{step},"cycle":{cycle},"port":{port},"cgid":{cgid},"verdict":"{v}","state":"{state}","tid":{tid},"fail":{fail}}}"#
    )
}

fn out(step: usize, cycle: u64, ports: &str, cgid: u64, tid: u64, op: &str) -> String {
    format!(
        r#"{{"event":"out","step":{step},"cycle":{cycle},"ports":{ports},"cgid":{cgid},"tid":{tid},"op":"{op}"}}"#
    )
}

fn counter(step: usize, cycle: u64, name: &str, index: u64, value: u64) -> String {
    format!(
        r#"{{"event":"counter","step":{step},"cycle":{cycle},"counter":"{name}","index":{index},"value":{value}}}"#
    )
}

#[test]
fn barrier_example_prints_what_the_protocol_says() {
    // Written from the example's comments and the spec: writes in cycles 0 and 1, answers
    // four cycles (LATENCY) after each operation.
    let want = vec![
        r#"{"event":"entry","step":1,"cycle":4,"op":"write","cgid":1,"valid":true,"parent":0,"children":[1,2,3],"is_root":true,"state":"IDLE","tid":0,"fail":false,"reported":[]}"#.to_string(),
        r#"{"event":"entry","step":2,"cycle":5,"op":"write","cgid":2,"valid":true,"parent":0,"children":[1,2],"is_root":false,"state":"IDLE","tid":0,"fail":false,"reported":[]}"#.to_string(),
        verdict(3, 6, 1, 1, "OK", "FILLING", 0, false),
        verdict(3, 7, 2, 1, "OK", "FILLING", 0, false),
        verdict(3, 8, 3, 1, "OK", "IDLE", 1, false),
        out(3, 8, "[1,2,3]", 1, 0, "EXIT"),
        verdict(4, 24, 3, 1, "OK", "FILLING", 1, false),
        verdict(4, 25, 1, 1, "OK", "FILLING", 1, false),
        verdict(4, 26, 2, 1, "OK", "IDLE", 2, false),
        out(4, 26, "[1,2,3]", 1, 1, "EXIT"),
        verdict(5, 27, 1, 2, "OK", "FILLING", 0, false),
        verdict(5, 28, 2, 2, "OK", "FULL", 0, false),
        out(5, 28, "[0]", 2, 0, "FULL"),
        verdict(7, 39, 0, 2, "OK", "IDLE", 1, false),
        out(7, 39, "[1,2]", 2, 0, "EXIT"),
        r#"{"event":"entry","step":8,"cycle":40,"op":"read_entry","cgid":1,"valid":true,"parent":0,"children":[1,2,3],"is_root":true,"state":"IDLE","tid":2,"fail":false,"reported":[]}"#.to_string(),
        r#"{"event":"entry","step":8,"cycle":41,"op":"read_entry","cgid":2,"valid":true,"parent":0,"children":[1,2],"is_root":false,"state":"IDLE","tid":1,"fail":false,"reported":[]}"#.to_string(),
    ];
    assert_eq!(switch_lines("barrier.toml", Level::Golden), want);
}

fn contains_in_order(lines: &[String], want: &[String], what: &str) {
    let mut at = 0;
    for w in want {
        match lines[at..].iter().position(|l| l == w) {
            Some(k) => at += k + 1,
            None => panic!(
                "{what}: missing (in order) {w}\n--- got\n{}",
                lines.join("\n")
            ),
        }
    }
}

#[test]
fn lagging_child_example_is_answered_and_recovers() {
    let l = switch_lines("lagging_child.toml", Level::Golden);
    contains_in_order(
        &l,
        &[
            out(3, 7, "[1,2]", 3, 0, "EXIT"),
            // Port 2 missed that EXIT: its STATUS_REQ(0) is one transaction behind.
            verdict(4, 34, 2, 3, "LAG", "IDLE", 1, false),
            out(4, 34, "[2]", 3, 0, "STATUS_RSP"),
            verdict(5, 36, 1, 3, "OK", "IDLE", 2, false),
            out(5, 36, "[1,2]", 3, 1, "EXIT"),
            out(6, 38, "[0]", 4, 0, "FULL"),
            // In the next epoch the middle switch forwards the question, then the answer
            // completes it.
            verdict(7, 1104, 1, 4, "OK", "FULL", 0, false),
            out(7, 1104, "[0]", 4, 0, "STATUS_REQ"),
            verdict(8, 1105, 0, 4, "OK", "IDLE", 1, false),
            out(8, 1105, "[1,2]", 4, 0, "EXIT"),
            counter(9, 1106, "TOTAL", 0, 9),
            counter(9, 1107, "LAG", 6, 1),
        ],
        "lagging_child",
    );
}

#[test]
fn recovery_example_fails_is_rewritten_and_coalesces() {
    let l = switch_lines("recovery.toml", Level::Golden);
    let rejected = |step: usize, cycle: u64| {
        format!(
            r#"{{"event":"entry","step":{step},"cycle":{cycle},"op":"write","cgid":6,"valid":true,"parent":0,"children":[1,2],"is_root":false,"state":"IDLE","tid":0,"fail":true,"reported":[],"rejected":true}}"#
        )
    };
    contains_in_order(
        &l,
        &[
            verdict(2, 5, 1, 6, "TID_FAIL", "IDLE", 0, true),
            verdict(3, 6, 2, 6, "GROUP_FAILED", "IDLE", 0, true),
            rejected(4, 7),
            rejected(5, 8),
            r#"{"event":"entry","step":6,"cycle":9,"op":"write","cgid":6,"valid":true,"parent":0,"children":[1,2],"is_root":false,"state":"IDLE","tid":2,"fail":false,"reported":[]}"#.to_string(),
            verdict(7, 10, 2, 6, "UNREPORTED", "IDLE", 2, false),
            verdict(8, 11, 1, 6, "OK", "FILLING", 2, false),
            verdict(8, 12, 2, 6, "OK", "FULL", 2, false),
            out(8, 12, "[0]", 6, 2, "FULL"),
            verdict(8, 13, 1, 6, "COALESCED", "FULL", 2, false),
            verdict(9, 1104, 2, 6, "OK", "FULL", 2, false),
            out(9, 1104, "[0]", 6, 2, "FULL"),
            verdict(9, 1105, 1, 6, "COALESCED", "FULL", 2, false),
            verdict(10, 1106, 0, 6, "OK", "IDLE", 3, false),
            out(10, 1106, "[1,2]", 6, 2, "EXIT"),
            counter(11, 1107, "TOTAL", 0, 9),
            counter(11, 1108, "TID_FAIL", 7, 1),
            counter(11, 1109, "GROUP_FAILED", 4, 1),
            counter(11, 1110, "UNREPORTED", 8, 1),
            counter(11, 1111, "COALESCED", 9, 2),
        ],
        "recovery",
    );
    assert_eq!(l.len(), 21, "{}", l.join("\n"));
}

/// The reduction example, written out by hand: the sums (wrapping), the Lag answer with the
/// retained result, the refused contribution, the MAX of each 32-bit half.
#[test]
fn reduction_example_reduces_and_answers_a_lagging_child() {
    let want = [
        r#"{"event":"entry","step":1,"cycle":4,"op":"write","cgid":1,"valid":true,"parent":0,"children":[1,2],"is_root":true,"state":"IDLE","tid":0,"fail":false,"reported":[]}"#.to_string(),
        verdict(2, 5, 1, 1, "OK", "FILLING", 0, false),
        verdict(3, 7, 2, 1, "OK", "IDLE", 1, false),
        r#"{"event":"out","step":3,"cycle":7,"ports":[1,2],"cgid":1,"tid":0,"op":"EXIT","plen":4,"rop":"SUM","dtype":"i64","data":[11,22,33,1]}"#.to_string(),
        verdict(4, 9, 1, 1, "LAG", "IDLE", 1, false),
        r#"{"event":"out","step":4,"cycle":9,"ports":[1],"cgid":1,"tid":0,"op":"STATUS_RSP","plen":4,"rop":"SUM","dtype":"i64","data":[11,22,33,1]}"#.to_string(),
        verdict(5, 11, 2, 1, "OK", "FILLING", 1, false),
        verdict(6, 12, 1, 1, "BAD_PAYLOAD", "FILLING", 1, false),
        verdict(7, 13, 1, 1, "OK", "IDLE", 2, false),
        format!(
            r#"{{"event":"out","step":7,"cycle":13,"ports":[1,2],"cgid":1,"tid":1,"op":"EXIT","plen":2,"rop":"MAX","dtype":"u32","data":[{},{}]}}"#,
            0x0000_0007_FFFF_FFF0u64, 0x8000_0000_0000_0002u64
        ),
    ];
    for level in [Level::Golden, Level::Model] {
        assert_eq!(switch_lines("reduction.toml", level), want, "{level}");
    }
}

#[test]
fn drops_example_gives_each_verdict_and_counts_it() {
    let l = switch_lines("drops.toml", Level::Golden);
    contains_in_order(
        &l,
        &[
            verdict(3, 6, 1, 9, "UNKNOWN_CGID", "IDLE", 0, false),
            verdict(4, 7, 3, 5, "NOT_IN_TREE", "IDLE", 0, false),
            verdict(5, 8, 1, 5, "BAD_OPCODE", "IDLE", 0, false),
            verdict(6, 9, 1, 5, "BAD_OPCODE", "IDLE", 0, false),
            verdict(7, 10, 1, 5, "OK", "FILLING", 0, false),
            verdict(7, 11, 1, 5, "STALE", "FILLING", 0, false),
            verdict(8, 12, 2, 5, "LAG", "FILLING", 0, false),
            out(8, 12, "[2]", 5, 3, "STATUS_RSP"),
            verdict(9, 13, 0, 6, "STALE", "IDLE", 0, false),
            verdict(10, 14, 2, 5, "TID_FAIL", "FILLING", 0, true),
            verdict(11, 15, 2, 5, "GROUP_FAILED", "FILLING", 0, true),
            verdict(12, 16, 1, 6, "BAD_PAYLOAD", "IDLE", 0, false),
        ],
        "drops",
    );
    let counters: Vec<&String> = l
        .iter()
        .filter(|x| x.contains(r#""event":"counter""#))
        .collect();
    let want = [
        counter(13, 44, "TOTAL", 0, 11),
        counter(13, 45, "UNKNOWN_CGID", 1, 1),
        counter(13, 46, "NOT_IN_TREE", 2, 1),
        counter(13, 47, "BAD_OPCODE", 3, 2),
        counter(13, 48, "GROUP_FAILED", 4, 1),
        counter(13, 49, "STALE", 5, 2),
        counter(13, 50, "LAG", 6, 1),
        counter(13, 51, "TID_FAIL", 7, 1),
        counter(13, 52, "BAD_PAYLOAD", 11, 1),
        // After the rewrite, the clear and one good barrier.
        counter(17, 57, "TOTAL", 0, 2),
        counter(17, 58, "TID_FAIL", 7, 0),
    ];
    assert_eq!(counters, want.iter().collect::<Vec<_>>());
    assert!(
        l.contains(&r#"{"event":"cleared","step":15,"cycle":54}"#.to_string()),
        "{l:?}"
    );
    assert!(l.contains(&out(16, 56, "[1,2]", 5, 0, "EXIT")), "{l:?}");
}

#[test]
fn interleaved_example_completes_each_group_on_its_own() {
    let l = switch_lines("interleaved.toml", Level::Golden);
    let outs: Vec<&String> = l
        .iter()
        .filter(|x| x.contains(r#""event":"out""#))
        .collect();
    let want = [
        out(7, 10, "[1,2]", 7, 0, "EXIT"),
        out(9, 12, "[2,3]", 8, 0, "EXIT"),
        out(11, 15, "[3]", 9, 0, "FULL"),
        out(12, 16, "[0,2]", 9, 0, "EXIT"),
    ];
    assert_eq!(outs, want.iter().collect::<Vec<_>>());
    // Group 9's first FULL (from port 0) was forgotten by the rewrite in step 8.
    assert!(
        l.contains(&verdict(11, 14, 0, 9, "OK", "FILLING", 0, false)),
        "{l:?}"
    );
    contains_in_order(
        &l,
        &[
            r#"{"event":"entry","step":13,"cycle":17,"op":"read_entry","cgid":7,"valid":true,"parent":0,"children":[1,2],"is_root":true,"state":"FILLING","tid":1,"fail":false,"reported":[1]}"#.to_string(),
            r#"{"event":"entry","step":13,"cycle":18,"op":"read_entry","cgid":8,"valid":true,"parent":0,"children":[2,3],"is_root":true,"state":"IDLE","tid":1,"fail":false,"reported":[]}"#.to_string(),
            r#"{"event":"entry","step":13,"cycle":19,"op":"read_entry","cgid":9,"valid":true,"parent":3,"children":[0,2],"is_root":false,"state":"IDLE","tid":1,"fail":false,"reported":[]}"#.to_string(),
        ],
        "interleaved",
    );
}

#[test]
fn switch_config_parameters_widen_the_fields() {
    // groups = 16 by default: CGID 200 does not fit; with groups = 256 (--config) it does.
    let text = "[[step]]\nop = \"read_entry\"\ncgid = 200\n";
    let e = sw::Scenario::parse(text, "t.toml", None).expect_err("too wide");
    assert_eq!(
        e.to_string(),
        "t.toml: line 3: step 1 (read_entry): `cgid` = 200 is out of range; allowed: 0..=15 (a CGID of 16 groups)"
    );
    let p = SwitchEngineParams::default();
    let s = sw::Scenario::parse(text, "t.toml", Some(p)).expect("fits");
    assert_eq!(s.params, p);
    let ev = sw::run_level(&s, Level::Model, None, None).expect("runs");
    assert_eq!(ev.len(), 1);
    let e = sw::Scenario::parse(
        "[[step]]\nop = \"packet\"\nport = 1\ncgid = 1\ntid = 0\nopcode = \"FULL\"\n[[step]]\nop = \"packet\"\nport = 1\ncgid = 1\ntid = 0\nopcode = \"FULL\"\nat = 0\n",
        "t.toml",
        None,
    )
    .expect_err("in the past");
    assert_eq!(
        e.to_string(),
        "t.toml: line 13: step 2 (packet): `at` = 0 is before cycle 1, the first free cycle (operations are offered one per cycle, in file order)"
    );
}

// -------------------------------------------------------------------------------------------
// Bad scenarios
// -------------------------------------------------------------------------------------------

/// Checks that `e` is one harmless line naming the file, line, step and key.
fn one_line(e: &ScenarioError, line: usize, step: usize, key: &str, shown: &str) -> String {
    let m = e.to_string();
    assert!(
        !m.contains('\n') && !m.contains('\u{1b}'),
        "not one escaped line: {m:?}"
    );
    assert!(m.starts_with("bad.toml: "), "{m}");
    assert!(m.contains(&format!("line {line}: ")), "line {line}: {m}");
    assert!(m.contains(&format!("step {step}")), "step {step}: {m}");
    assert!(m.contains(shown), "key shown as {shown}: {m}");
    assert_eq!(e.line, Some(line), "{m}");
    assert_eq!(e.step, Some(step), "{m}");
    assert_eq!(e.key.as_deref(), Some(key), "{m}");
    assert!(m.len() < 400, "{m}");
    m
}

const PKT: &str = "[[step]]\nop = \"packet\"\nport = 1\ncgid = 1\ntid = 0\nopcode = \"FULL\"\n";

#[test]
fn bad_switch_scenarios_are_one_line_naming_file_line_step_and_key() {
    let bad = |extra: &str| {
        sw::Scenario::parse(
            &format!("name = \"x\"\n{PKT}{PKT}{extra}"),
            "bad.toml",
            None,
        )
        .expect_err("invalid")
    };
    // The second step starts on line 8; its keys follow; `extra` is line 14.
    let m = one_line(&bad("prot = 1\n"), 14, 2, "prot", "`prot`");
    assert!(
        m.ends_with(
            "allowed keys for op = \"packet\": port, cgid, tid, opcode, at, plen, rop, dtype, data"
        ),
        "{m}"
    );
    one_line(
        &bad("at = \"soon\"\n"),
        14,
        2,
        "at",
        "`at` = \"soon\" has the wrong type",
    );
    one_line(
        &bad("at = 1.5\n"),
        14,
        2,
        "at",
        "`at` = 1.5 has the wrong type",
    );
    // Too wide for the field: a TID is 2 bits, a port below the radix.
    let t = sw::Scenario::parse(&PKT.replace("tid = 0", "tid = 4"), "bad.toml", None)
        .expect_err("wide");
    one_line(
        &t,
        5,
        1,
        "tid",
        "`tid` = 4 is out of range; allowed: 0..=3 (2 bits)",
    );
    let t = sw::Scenario::parse(&PKT.replace("port = 1", "port = [1, 4]"), "bad.toml", None)
        .expect_err("wide");
    one_line(
        &t,
        3,
        1,
        "port[1]",
        "`port[1]` = 4 is out of range; allowed: 0..=3",
    );
    // An integer too large for 64 bits is a TOML syntax error; it still names the key.
    let m = one_line(&bad("at = 99999999999999999999\n"), 14, 2, "at", "in `at`");
    assert!(m.contains("step 2 (packet)"), "{m}");
    // A hex string above 64 bits is out of range, not truncated.
    one_line(
        &bad("at = \"0x1_0000_0000_0000_0000\"\n"),
        14,
        2,
        "at",
        "is out of range; allowed: 0..=4294967295 (32 bits)",
    );
    // An unknown op.
    let t = sw::Scenario::parse("[[step]]\nop = \"jump\"\n", "bad.toml", None).expect_err("op");
    let m = one_line(&t, 2, 1, "op", "`op` = \"jump\" is not a step kind");
    assert!(
        m.contains("allowed: write, read_entry, read_counter, clear_counters, packet, idle"),
        "{m}"
    );
    // Keys with a newline and an ANSI escape are echoed escaped.
    one_line(
        &bad("\"a\\nb\" = 1\n"),
        14,
        2,
        "a\nb",
        "unknown key `a\\nb`",
    );
    one_line(
        &bad("\"\\u001b[31mred\" = 1\n"),
        14,
        2,
        "\u{1b}[31mred",
        "unknown key `\\u{1b}[31mred`",
    );
    // A value with them too.
    let t = sw::Scenario::parse(
        &PKT.replace("opcode = \"FULL\"", "opcode = \"FU\\nLL\\u001b[0m\""),
        "bad.toml",
        None,
    )
    .expect_err("name");
    one_line(
        &t,
        6,
        1,
        "opcode",
        "is not a known name; allowed: \"FULL\", \"EXIT\"",
    );
}

#[test]
fn bad_nic_scenarios_are_one_line_naming_file_line_step_and_key() {
    let bad = |extra: &str| {
        nic::Scenario::parse(
            &format!("[[step]]\nop = \"run\"\n[[step]]\nop = \"poll\"\ncq = 0\n{extra}"),
            "bad.toml",
        )
        .expect_err("invalid")
    };
    one_line(&bad("cqq = 1\n"), 6, 2, "cqq", "unknown key `cqq`");
    let t = nic::Scenario::parse("[[step]]\nop = \"poll\"\ncq = \"one\"\n", "bad.toml")
        .expect_err("type");
    one_line(&t, 3, 1, "cq", "`cq` = \"one\" has the wrong type");
    let t = nic::Scenario::parse("[[step]]\nop = \"poll\"\ncq = 65536\n", "bad.toml")
        .expect_err("wide");
    one_line(
        &t,
        3,
        1,
        "cq",
        "`cq` = 65536 is out of range; allowed: 0..=65535 (16 bits)",
    );
    let t = nic::Scenario::parse(
        "[[step]]\nop = \"run\"\n\n[[step]]\nop = \"run\"\ncycles = 99999999999999999999\n",
        "bad.toml",
    )
    .expect_err("syntax");
    let m = one_line(&t, 6, 2, "cycles", "in `cycles`");
    assert!(m.contains("step 2 (run): TOML syntax error"), "{m}");
    let t = nic::Scenario::parse("[[step]]\nop = \"jump\"\n", "bad.toml").expect_err("op");
    one_line(&t, 2, 1, "op", "`op` = \"jump\" is not a step kind");
    one_line(&bad("\"a\\nb\" = 1\n"), 6, 2, "a\nb", "unknown key `a\\nb`");
    one_line(
        &bad("\"\\u001b[31mred\" = 1\n"),
        6,
        2,
        "\u{1b}[31mred",
        "unknown key `\\u{1b}[31mred`",
    );
    let long = format!("\"{}\" = 1\n", "k".repeat(500));
    let m = one_line(&bad(&long), 6, 2, &"k".repeat(500), "unknown key `kkk");
    assert!(m.contains('…'), "long keys are cut: {m}");
}

// -------------------------------------------------------------------------------------------
// Waveforms
// -------------------------------------------------------------------------------------------

/// The value of `netcoll.<path>.<name>` at time `ns` (the last change at or before it).
fn value_at(w: &mut wellen::simple::Waveform, path: &[&str], name: &str, ns: u64) -> Option<u64> {
    let h = w.hierarchy();
    let mut full = vec!["netcoll"];
    full.extend_from_slice(path);
    let var = h.lookup_var(&full, name)?;
    let sig = h[var].signal_ref();
    w.load_signals(&[sig]);
    let t = w.time_table().iter().rposition(|&t| t <= ns)? as u32;
    let s = w.get_signal(sig)?;
    let bits = s
        .get_offset(t)
        .map(|o| s.get_value_at(&o, 0))?
        .to_bit_string()?;
    u64::from_str_radix(&bits, 2).ok()
}

fn switch_vcd_shows_the_golden_events(levels: &[Level]) {
    let s = switch_example("barrier.toml");
    let golden = sw::run_level(&s, Level::Golden, None, None).expect("golden");
    let tracer = Tracer::new();
    for &level in levels {
        let ev = sw::run_level(&s, level, Some(&tracer), None).expect("runs");
        assert_eq!(ev, golden, "{level}");
    }
    let dir = scratch("switch-vcd");
    let file = dir.join("barrier.vcd");
    tracer.write(&file).expect("written");
    let mut w = wellen::simple::read(&file).expect("wellen reads the VCD");
    let first = first_cycle(&s.params);
    for &level in levels {
        let scope = [level.name(), "switch_engine", "barrier"];
        // Sample in the middle of each cycle (values change at 10 c, the edge is at 10 c + 5).
        let at = |cycle: u64| (first + cycle) * 10 + 2;
        let mut checked = 0;
        for e in &golden {
            match e {
                sw::Event::Verdict {
                    cycle,
                    verdict,
                    state,
                    tid,
                    ..
                } => {
                    let code = |n: &str| match n {
                        "OK" => 0,
                        "FILLING" => 1,
                        "FULL" => 2,
                        "IDLE" => 0,
                        other => panic!("{other}"),
                    };
                    assert_eq!(
                        value_at(&mut w, &scope, "ev_valid", at(*cycle)),
                        Some(1),
                        "{level} {e}"
                    );
                    assert_eq!(
                        value_at(&mut w, &scope, "ev_verdict", at(*cycle)),
                        Some(code(verdict)),
                        "{level} {e}"
                    );
                    assert_eq!(
                        value_at(&mut w, &scope, "ev_state", at(*cycle)),
                        Some(code(state)),
                        "{level} {e}"
                    );
                    assert_eq!(
                        value_at(&mut w, &scope, "ev_tid", at(*cycle)),
                        Some(*tid),
                        "{level} {e}"
                    );
                    checked += 1;
                }
                sw::Event::Out {
                    cycle, ports, op, ..
                } => {
                    let mask = ports.iter().fold(0, |m, p| m | 1 << p);
                    assert_eq!(
                        value_at(&mut w, &scope, "out_valid", at(*cycle)),
                        Some(1),
                        "{level} {e}"
                    );
                    assert_eq!(
                        value_at(&mut w, &scope, "out_ports", at(*cycle)),
                        Some(mask),
                        "{level} {e}"
                    );
                    let code = if op == "EXIT" { 1 } else { 0 };
                    assert_eq!(
                        value_at(&mut w, &scope, "out_op", at(*cycle)),
                        Some(code),
                        "{level} {e}"
                    );
                    checked += 1;
                }
                _ => {}
            }
        }
        assert!(checked >= 10, "{level}: {checked}");
        // Between answers nothing is valid, and the clock runs.
        assert_eq!(
            value_at(&mut w, &scope, "ev_valid", at(10)),
            Some(0),
            "{level}"
        );
        assert_eq!(
            value_at(&mut w, &scope, "clock", at(10)),
            Some(0),
            "{level}"
        );
        assert_eq!(
            value_at(&mut w, &scope, "clock", at(10) + 5),
            Some(1),
            "{level}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn switch_vcd_from_the_model_and_rtl_read_back_with_wellen() {
    switch_vcd_shows_the_golden_events(&[Level::Model, Level::Rtl]);
}

#[test]
fn switch_vcd_from_verilator_read_back_with_wellen() {
    switch_vcd_shows_the_golden_events(&[Level::Verilator]);
}

fn nic_vcd_shows_every_host_response(level: Level) {
    let s = nic::Scenario::from_file(root().join("scenarios/nic/nop.toml")).expect("valid");
    let tracer = Tracer::new();
    let events = run_level_with(&s, level, Some(&tracer), Knobs::OFF, None).expect("runs");
    let dir = scratch(&format!("nic-vcd-{level}"));
    let file = dir.join("nop.vcd");
    tracer.write(&file).expect("written");
    let mut w = wellen::simple::read(&file).expect("wellen reads the VCD");
    let scope = [level.name(), "nic", "nop"];
    let cycles = tracer.recordings()[0].cycles;
    // Every host command is answered by one cycle of host_rsp_valid, in order, with the
    // data the events report (a post's WQE index, a CQE word, 0 for the final EMPTY).
    let mut pulses = vec![];
    for c in 0..cycles {
        if value_at(&mut w, &scope, "host_rsp_valid", c * 10 + 2) == Some(1) {
            pulses.push((
                value_at(&mut w, &scope, "host_rsp_status", c * 10 + 2),
                value_at(&mut w, &scope, "host_rsp_data", c * 10 + 2),
            ));
        }
    }
    let answers: Vec<(Option<u64>, Option<u64>)> = events
        .iter()
        .filter_map(|e| match e {
            nic::Event::Host { status, data, .. } => {
                let code = netcoll_models::nic::HostStatus::ALL
                    .iter()
                    .find(|s| s.name() == status)
                    .map(|s| s.code());
                Some((code, Some(*data)))
            }
            nic::Event::Cqe { .. } => Some((Some(0), None)),
            _ => None,
        })
        .collect();
    assert_eq!(pulses.len(), answers.len(), "{level}: {pulses:?}");
    for (p, a) in pulses.iter().zip(&answers) {
        assert_eq!(p.0, a.0, "{level}");
        if a.1.is_some() {
            assert_eq!(p.1, a.1, "{level}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nic_vcd_from_the_model_read_back_with_wellen() {
    nic_vcd_shows_every_host_response(Level::Model);
}

#[test]
fn nic_vcd_from_verilator_read_back_with_wellen() {
    nic_vcd_shows_every_host_response(Level::Verilator);
}

#[test]
fn a_difference_between_levels_is_reported_at_its_first_event() {
    let s = switch_example("drops.toml");
    let g = sw::run_level(&s, Level::Golden, None, None).expect("golden");
    assert_eq!(sw::compare_events(&g, &g), Ok(()));
    let mut other = g.clone();
    if let sw::Event::Verdict { verdict, .. } = &mut other[4] {
        *verdict = "OK".into();
    }
    let e = sw::compare_events(&g, &other).expect_err("differs");
    assert!(
        e.starts_with("events differ at index 4: expected {\"event\":\"verdict\""),
        "{e}"
    );
    let e = sw::compare_events(&g, &g[..3]).expect_err("shorter");
    assert!(
        e.contains(&format!(
            "expected {} events, got 3; first missing",
            g.len()
        )),
        "{e}"
    );
}
