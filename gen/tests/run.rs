//! `netcoll nic run` and `netcoll switch run` as a user runs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn netcoll() -> Command {
    Command::new(env!("CARGO_BIN_EXE_netcoll"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netcoll-run-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn run(args: &[&str]) -> Output {
    netcoll().args(args).output().expect("run netcoll")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn switch_examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios/switch"))
        .expect("scenarios/switch")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(v.len() >= 4, "{v:?}");
    v
}

#[test]
fn switch_run_passes_every_shipped_example_at_golden_model_and_rtl() {
    for f in switch_examples() {
        let f = f.display().to_string();
        let o = run(&["switch", "run", &f, "--levels", "golden,model,rtl"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{f}: {err}");
        let out = text(&o.stdout);
        assert!(out.lines().count() > 5, "{f}: {out}");
        for l in out.lines() {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            assert!(
                v["event"].is_string() && v["step"].is_u64() && v["cycle"].is_u64(),
                "{l}"
            );
        }
        // The parameters used, then one comparison per later level (the reducing example's
        // engine is one the RTL builds).
        assert!(
            err.contains("switch_engine radix=4 groups=16 counter_bits=16"),
            "{err}"
        );
        assert_eq!(err.matches("print identical events").count(), 2, "{err}");
        assert!(!err.contains("skipped"), "{err}");
    }
}

#[test]
fn switch_run_skips_the_rtl_of_a_reducing_engine_it_does_not_build() {
    let d = scratch("unbuilt");
    let cfg = d.join("netcoll.toml");
    std::fs::write(
        &cfg,
        "[switch]\nradix = 4\ngroups = 16\ncounter_bits = 16\nmax_plen = 16\nlanes = 2\nslots = 4\n",
    )
    .expect("write");
    let f = root().join("scenarios/switch/reduction.toml");
    let o = run(&[
        "switch",
        "run",
        "--config",
        &cfg.display().to_string(),
        &f.display().to_string(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("levels rtl, verilator skipped: the RTL builds reducing engines of radix 4"),
        "{err}"
    );
    assert_eq!(err.matches("print identical events").count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn switch_run_passes_every_shipped_example_at_every_level() {
    for f in switch_examples() {
        let f = f.display().to_string();
        let o = run(&["switch", "run", &f]);
        assert_eq!(o.status.code(), Some(0), "{f}: {}", text(&o.stderr));
        assert_eq!(
            text(&o.stderr).matches("print identical events").count(),
            3,
            "{f}"
        );
    }
}

#[test]
fn switch_run_config_replaces_the_parameters() {
    let d = scratch("config");
    let cfg = d.join("netcoll.toml");
    std::fs::write(&cfg, "[switch]\nradix = 8\ngroups = 256\n").expect("write");
    let f = root().join("scenarios/switch/barrier.toml");
    let o = run(&[
        "switch",
        "run",
        "--levels",
        "golden,model",
        "--config",
        &cfg.display().to_string(),
        &f.display().to_string(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("radix=8 groups=256 counter_bits=32 (from --config"),
        "{err}"
    );
    // The engine on the wider configuration computes the same barrier; only the cycles of
    // the answers are the same too (the sweep is before cycle 0).
    let plain = run(&[
        "switch",
        "run",
        "--levels",
        "golden",
        &f.display().to_string(),
    ]);
    assert_eq!(text(&o.stdout), text(&plain.stdout));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_scenarios_exit_2_with_one_line_naming_the_step_and_key() {
    let d = scratch("bad");
    let cases = [
        (
            "switch",
            "[[step]]\nop = \"packet\"\nport = 1\ncgid = 1\ntid = 9\nopcode = \"FULL\"\n",
            "line 5: step 1 (packet): `tid` = 9 is out of range",
        ),
        (
            "switch",
            "[[step]]\nop = \"idle\"\ncycles = 1\n\"x\\u001b[2Jy\" = 1\n",
            "line 4: step 1 (idle): unknown key `x\\u{1b}[2Jy`",
        ),
        (
            "switch",
            "[[step]]\nop = \"read_counter\"\ncounter = 99999999999999999999\n",
            "line 3: step 1 (read_counter): TOML syntax error at column 11 in `counter`",
        ),
        (
            "nic",
            "[[step]]\nop = \"run\"\n[[step]]\nop = \"poll\"\ncq = \"x\"\n",
            "line 5: step 2 (poll): `cq` = \"x\" has the wrong type",
        ),
    ];
    for (k, (block, body, want)) in cases.iter().enumerate() {
        let f = d.join(format!("bad{k}.toml"));
        std::fs::write(&f, body).expect("write");
        let o = netcoll()
            .args([*block, "run", "--levels", "model"])
            .arg(&f)
            .output()
            .expect("run");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{block} {body}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(&format!("bad{k}.toml: {want}")), "{err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");
        assert!(o.stdout.is_empty());
    }
    // A wrong level is a usage error.
    let f = root().join("scenarios/switch/barrier.toml");
    let o = netcoll()
        .args(["switch", "run", "--levels", "fast"])
        .arg(&f)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("`fast` is not a level"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn nic_run_into_a_closed_pipe_exits_quietly() {
    let f = root().join("scenarios/nic/errors.toml");
    for block in ["nic", "switch"] {
        let f = if block == "nic" {
            f.clone()
        } else {
            root().join("scenarios/switch/drops.toml")
        };
        let script = format!(
            "'{}' {block} run --levels model '{}' | head -1",
            env!("CARGO_BIN_EXE_netcoll"),
            f.display()
        );
        let o = Command::new("sh")
            .args(["-c", &script])
            .output()
            .expect("sh");
        let err = text(&o.stderr);
        assert!(
            matches!(o.status.code(), Some(0) | Some(141)),
            "{block}: {:?} {err}",
            o.status
        );
        assert!(!err.contains("panicked"), "{block}: {err}");
        assert_eq!(text(&o.stdout).lines().count(), 1, "{block}");
    }
}

#[test]
fn nic_run_streams_and_matches_the_recording() {
    let f = root().join("scenarios/nic/send.toml");
    let o = netcoll()
        .args(["nic", "run", "--levels", "model"])
        .arg(&f)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let want = std::fs::read_to_string(root().join("testbench/tests/data/nic_events/send.jsonl"))
        .expect("recorded");
    assert_eq!(text(&o.stdout), want);
    assert!(text(&o.stderr).contains("NIC qps=4 cqs=4 counters=8 dmem_words=1024"));
}

#[test]
fn vcd_option_writes_a_waveform() {
    let d = scratch("vcd");
    for (block, f) in [
        ("switch", root().join("scenarios/switch/barrier.toml")),
        ("nic", root().join("scenarios/nic/nop.toml")),
    ] {
        let vcd = d.join(format!("{block}.vcd"));
        let o = netcoll()
            .args([block, "run", "--levels", "model,rtl", "--vcd"])
            .arg(&vcd)
            .arg(&f)
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let t = std::fs::read_to_string(&vcd).expect("a VCD");
        assert!(t.contains("$timescale"), "{block}");
        for scope in ["$scope module model $end", "$scope module rtl $end"] {
            assert!(t.contains(scope), "{block}: {scope}");
        }
        let port = if block == "nic" {
            "host_rsp_valid"
        } else {
            "ev_valid"
        };
        assert!(t.contains(&format!(" {port} $end")), "{block}: {port}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `fabric sweep --bytes` runs a reduction at each size and writes the CSV and the plot;
/// the streaming fraction of a 64 KiB allreduce on the shipped example is above 0.98 (one
/// chunk is the reference, and 8 of every 1032 bytes on a link are the header); a file
/// without a reduction group is refused in one line.
#[test]
fn fabric_sweep_bytes_measures_reduction_bandwidth() {
    let d = scratch("sweep-bytes");
    let out = d.join("bw");
    let o = netcoll()
        .args(["fabric", "sweep", "--bytes", "4096,65536,1000", "--out"])
        .arg(&out)
        .arg(root().join("scenarios/fabric/streaming.toml"))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let csv = text(&o.stdout);
    // The series name has a comma: it is quoted.
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .filter_map(|l| l.strip_prefix("\"streaming allreduce, leaf-spine k=4\","))
        .map(|l| l.split(',').collect())
        .collect();
    // The one-chunk reference, then the two sizes (1000 bytes is skipped, with a reason).
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!((rows[0][0], rows[0][5]), ("1024", ""), "{csv}");
    let streaming: f64 = rows[2][5].parse().expect("a fraction");
    let end_to_end: f64 = rows[2][4].parse().expect("a fraction");
    assert!(
        streaming > 0.98 && streaming <= 128.0 / 129.0 && end_to_end < streaming,
        "{csv}"
    );
    assert!(text(&o.stderr).contains("skipped"), "{}", text(&o.stderr));
    assert!(std::fs::read_to_string(out.with_extension("svg"))
        .expect("the plot")
        .contains("reduction bandwidth vs vector size"));
    let o = netcoll()
        .args(["fabric", "sweep", "--bytes", "4096", "--out"])
        .arg(&out)
        .arg(root().join("scenarios/fabric/leaf_spine.toml"))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("has no reduction group"), "{err}");
}

/// `fabric sweep --algo switch,nic,host` runs the shipped comparison at two node counts: a
/// series per algorithm, every run safe; at each count the switches are faster than the NICs
/// and the NICs faster than host software (1 µs of software per message); `fabric run --algo
/// nic` prints the same median as the sweep's point. Bad `--algo`, noise without an offload,
/// a switch named as a NIC, and `--bytes` with an offload are refused in one line.
#[test]
fn fabric_sweep_compares_switch_nic_and_host() {
    let d = scratch("sweep-algo");
    let out = d.join("cmp");
    let file = root().join("scenarios/fabric/offload.toml");
    let o = netcoll()
        .args([
            "fabric",
            "sweep",
            "--algo",
            "switch,nic,host",
            "--hosts",
            "8,16",
            "--out",
        ])
        .arg(&out)
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let csv = text(&o.stdout);
    let median = |algo: &str, hosts: &str| -> u64 {
        let prefix = format!("offload fat-tree k=8 ({algo}),{hosts},");
        let line = csv
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {csv}"));
        assert!(line.ends_with(",true"), "{line}");
        line.split(',')
            .nth(3)
            .expect("median")
            .parse()
            .expect("a number")
    };
    for hosts in ["8", "16"] {
        let (s, n, h) = (
            median("switch", hosts),
            median("nic", hosts),
            median("host", hosts),
        );
        assert!(
            s < n && n < h,
            "{hosts} nodes: switch {s}, nic {n}, host {h}"
        );
    }
    // One line and one legend entry per series.
    let svg = std::fs::read_to_string(out.with_extension("svg")).expect("the plot");
    for algo in ["switch", "nic", "host"] {
        let name = format!("offload fat-tree k=8 ({algo})");
        assert_eq!(svg.matches(&name).count(), 1, "{name} in the legend");
    }
    // `fabric run` of the whole file (128 nodes) by the NICs: its summary's median is a
    // number the sweep would print for 128 nodes; here, that it runs safe and counts the
    // messages of a 128-node dissemination barrier (7 rounds, 10 barriers).
    let o = run(&[
        "fabric",
        "run",
        "--algo",
        "nic",
        "--json",
        file.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(text(&o.stdout).lines().last().expect("the summary")).expect("JSON");
    assert_eq!(summary["algo"], "nic");
    assert_eq!(summary["messages"], 10 * 128 * 7);
    assert_eq!(summary["safe"], true);
    for (args, want) in [
        (
            vec!["--algo", "bogus"],
            "--algo: `bogus` is not an algorithm",
        ),
        (vec!["--noise-prob", "0.1"], "apply to --algo nic and host"),
        (
            vec!["--algo", "nic", "--levels", "core0=rtl"],
            "is not a node",
        ),
    ] {
        let mut a = vec!["fabric", "run", file.to_str().expect("path")];
        a.extend(args);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
    let o = netcoll()
        .args([
            "fabric", "sweep", "--algo", "nic", "--bytes", "4096", "--out",
        ])
        .arg(&out)
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--bytes: measures the switches' reductions"));
}

/// `nic collective`: every node's line, then the summary; RTL and Verilator nodes among
/// models give the all-model run; the golden agrees; the allreduce is the sum of the seeded
/// inputs, which the test draws again from the documented rule (ChaCha8, `--seed`).
#[test]
fn nic_collective_allreduce_runs_with_rtl_and_verilator_nodes() {
    let o = run(&[
        "nic",
        "collective",
        "allreduce",
        "--nodes",
        "5",
        "--count",
        "3",
        "--rtl",
        "2",
        "--verilator",
        "4",
        "--golden",
        "--seed",
        "9",
        "--by",
        "nic,host",
        "--overhead",
        "100",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("equals the all-model run, cycle for cycle"),
        "{err}"
    );
    assert!(err.contains("the golden gives the same results"), "{err}");
    let out = text(&o.stdout);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    // Per progress mode: a line per node, then the summary.
    assert_eq!(lines.len(), 12, "{out}");
    let want: Vec<u64> = {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let inputs: Vec<Vec<u64>> = (0..5)
            .map(|_| {
                (0..3)
                    .map(|_| rng.gen::<u64>() >> rng.gen_range(0..64))
                    .collect()
            })
            .collect();
        (0..3)
            .map(|j| inputs.iter().fold(0u64, |s, v| s.wrapping_add(v[j])))
            .collect()
    };
    let mut latency = vec![];
    for (m, by) in ["nic", "host"].iter().enumerate() {
        let block = &lines[6 * m..6 * m + 6];
        for (k, l) in block[..5].iter().enumerate() {
            assert_eq!(
                (l["node"].as_u64(), l["by"].as_str()),
                (Some(k as u64), Some(*by))
            );
            assert_eq!(l["status"], "OK", "{l}");
            let result: Vec<u64> = serde_json::from_value(l["result"].clone()).expect("words");
            assert_eq!(result, want, "by {by}, node {k}");
            let level = ["model", "model", "rtl", "model", "verilator"][k];
            assert_eq!(l["level"], level);
        }
        let s = &block[5];
        assert_eq!(
            (
                s["collective"].as_str(),
                s["nodes"].as_u64(),
                s["by"].as_str()
            ),
            (Some("allreduce"), Some(5), Some(*by))
        );
        // 5 nodes: the extra's vector and result, and two rounds among four: 10 messages.
        assert_eq!(s["messages"], 10, "{s}");
        latency.push(s["latency"].as_u64().expect("latency"));
    }
    // The software's 100 cycles a message make the host-progressed run the slower.
    assert!(latency[1] > latency[0], "{latency:?}");
}

#[test]
fn nic_collective_refuses_bad_values_naming_them() {
    for (args, want) in [
        (
            &["allgather"][..],
            "`allgather` is not a collective; allowed: barrier, allreduce, broadcast",
        ),
        (
            &["allreduce", "--op", "AVG"],
            "--op: `AVG` is not allowed; allowed: MAX, MIN",
        ),
        (&["barrier", "--nodes", "1"], "nodes = 1: 2 to 256 allowed"),
        (
            &["broadcast", "--nodes", "4", "--root", "4"],
            "root = 4: 0 to 3 allowed (nodes = 4)",
        ),
        (
            &["broadcast", "--nodes", "4", "--verilator", "7"],
            "--verilator: node 7 does not exist (nodes = 4)",
        ),
        (
            &["allreduce", "--dtype", "f32"],
            "dtype = f32: the NIC is built without it",
        ),
    ] {
        let mut a = vec!["nic", "collective"];
        a.extend_from_slice(args);
        let o = run(&a);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(o.stdout.is_empty());
    }
}
