//! The `netcoll` command line as a user runs it.

use std::path::PathBuf;
use std::process::Command;

fn netcoll() -> Command {
    Command::new(env!("CARGO_BIN_EXE_netcoll"))
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netcoll-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

#[test]
fn gen_twice_gives_identical_bytes() {
    let d = scratch("twice");
    for out in ["a", "b"] {
        let s = netcoll()
            .args(["gen", "--out"])
            .arg(d.join(out))
            .output()
            .expect("run netcoll");
        assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
        assert!(String::from_utf8_lossy(&s.stdout).contains("switch_engine.v"));
    }
    for f in ["switch_engine.v", "manifest.json"] {
        let a = std::fs::read(d.join("a").join(f)).expect("a");
        let b = std::fs::read(d.join("b").join(f)).expect("b");
        assert!(!a.is_empty() && a == b, "{f} differs between runs");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_config_is_one_line_naming_the_key_and_writes_nothing() {
    let d = scratch("bad");
    for (text, key) in [
        ("[switch]\nradix = 0\n", "switch.radix"),
        ("[switch]\nfoo = 1\n", "switch.foo"),
        ("[switch]\ngroups = 100\n", "switch.groups"),
        ("[switch]\ncounter_bits = \"32\"\n", "switch.counter_bits"),
    ] {
        let cfg = d.join("netcoll.toml");
        std::fs::write(&cfg, text).expect("write config");
        let out = d.join("out");
        let s = netcoll()
            .args(["gen", "--config"])
            .arg(&cfg)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&s.stderr);
        assert_eq!(s.status.code(), Some(2), "{text}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{text}: {err}");
        assert!(err.contains(key), "{text}: {err}");
        assert!(!out.exists(), "{text}: output written despite the error");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `gen` removes what its previous run wrote and this configuration no longer produces, and
/// lists every file it wrote and removed; files it did not write are left alone.
#[test]
fn gen_removes_its_stale_files_and_nothing_else() {
    let d = scratch("stale");
    let out = d.join("v");
    let run = |cfg: &str| {
        let c = d.join("netcoll.toml");
        std::fs::write(&c, cfg).expect("write config");
        let s = netcoll()
            .args(["gen", "--config"])
            .arg(&c)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run");
        assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
        String::from_utf8_lossy(&s.stdout).into_owned()
    };
    let first = run("[alu]\nlanes = 4\n");
    assert!(first.contains("reduce_alu_l4.v"), "{first}");
    std::fs::write(out.join("mine.txt"), "a user's file").expect("write");
    let second = run("[alu]\nlanes = 1\n");
    assert!(!out.join("reduce_alu_l4.v").exists(), "stale file kept");
    assert!(
        second.contains("removed") && second.contains("reduce_alu_l4.v"),
        "{second}"
    );
    assert!(out.join("reduce_alu_l1.v").exists());
    assert!(
        out.join("mine.txt").exists(),
        "a file gen did not write was removed"
    );
    for f in ["switch_engine.v", "nic.v", "manifest.json"] {
        assert!(second.contains(f), "{f} not listed: {second}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `gen` writes all files or none: when one cannot be written, the previous files are left
/// as they were.
#[test]
fn gen_writes_all_files_or_none() {
    let d = scratch("atomic");
    let out = d.join("v");
    let ok = netcoll()
        .args(["gen", "--out"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(ok.status.success());
    let before = std::fs::read(out.join("switch_engine.v")).expect("written");
    // A directory where a file must go: that file cannot be replaced.
    std::fs::remove_file(out.join("nic.v")).expect("rm");
    std::fs::create_dir(out.join("nic.v")).expect("mkdir");
    std::fs::write(out.join("nic.v").join("x"), "x").expect("write");
    let cfg = d.join("netcoll.toml");
    std::fs::write(&cfg, "[switch]\nradix = 8\n").expect("write");
    let s = netcoll()
        .args(["gen", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run");
    assert_eq!(
        s.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&s.stderr)
    );
    assert_eq!(
        std::fs::read(out.join("switch_engine.v")).expect("still there"),
        before,
        "a file was replaced although the generation failed"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("nic.v").join("x")).expect("the user's directory stays"),
        "x"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .expect("read")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".netcoll-gen"))
        .collect();
    assert!(leftovers.is_empty(), "staging directory left behind");
    let _ = std::fs::remove_dir_all(&d);
}

/// Output to a closed pipe ends the command quietly (status 0, or 141 from SIGPIPE), never
/// with a panic.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    let d = scratch("pipe");
    let bin = env!("CARGO_BIN_EXE_netcoll");
    let script = format!(
        "'{bin}' gen --out '{}' | head -1 > /dev/null; echo \"status ${{PIPESTATUS[0]}}\"",
        d.join("v").display()
    );
    let s = Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&s.stdout);
    let stderr = String::from_utf8_lossy(&s.stderr);
    assert!(
        stdout.contains("status 0") || stdout.contains("status 141"),
        "{stdout} {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `check --json` prints one JSON document with a row per block and level, the configuration
/// hash and the skipped levels; usage errors exit 2 with one line.
#[test]
fn check_json_parses_and_usage_errors_exit_2() {
    let s = netcoll()
        .args(["check", "--levels", "golden", "--cycles", "0", "--json"])
        .output()
        .expect("run");
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let v: serde_json::Value = serde_json::from_slice(&s.stdout).expect("JSON");
    assert_eq!(v["config_hash"], "914975dda4716ced");
    let rows = v["rows"].as_array().expect("rows");
    let blocks: Vec<&str> = rows.iter().filter_map(|r| r["block"].as_str()).collect();
    assert_eq!(blocks, ["switch_engine", "nic", "reduce_alu"]);
    assert!(rows.iter().all(|r| r["level"] == "golden"));
    assert_eq!(v["skipped"].as_array().map(|a| a.len()), Some(3));
    assert_eq!(v["passed"], true);
    let bad = netcoll()
        .args(["check", "--levels", "gold\u{1b}[31men"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("gold\\u{1b}[31men") && !err.contains('\u{1b}'),
        "{err}"
    );
    assert!(
        err.contains("allowed: golden, model, rtl, verilator"),
        "{err}"
    );
}

/// A key with a newline or an escape sequence in a configuration is echoed escaped, on one
/// line that also gives the line of the key.
#[test]
fn config_errors_escape_what_they_echo() {
    let d = scratch("escape");
    let cfg = d.join("netcoll.toml");
    std::fs::write(&cfg, "[switch]\n\"ra\\u001b[2Jdix\\n\" = 4\n").expect("write");
    let s = netcoll()
        .args(["gen", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(d.join("v"))
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&s.stderr);
    assert_eq!(s.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains('\u{1b}'), "raw escape echoed: {err}");
    assert!(
        err.contains("line 2") && err.contains("\\u{1b}[2Jdix\\n"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A bad FPGA option is a usage error (exit 2) naming the option and what is allowed, given
/// before any tool is installed or run.
#[test]
fn synth_fpga_bad_options_exit_2_naming_the_option() {
    for (args, key, allowed) in [
        (&["--fpga", "xilinx"][..], "--fpga", "ecp5 or ice40"),
        (
            &["--fpga", "ecp5", "--speed", "4"][..],
            "--speed",
            "6, 7 or 8",
        ),
        (
            &["--fpga", "ecp5", "--device", "99k"][..],
            "--device",
            "85k",
        ),
        (
            &["--fpga", "ecp5", "--blocks", "ghost"][..],
            "--blocks",
            "switch_engine",
        ),
        (
            &["--fpga", "ecp5", "--module", "ghost"][..],
            "--module",
            "reduce_alu_lane",
        ),
    ] {
        let s = netcoll()
            .arg("synth")
            .args(args)
            .env("NETCOLL_FPGA_BIN", "/nonexistent")
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&s.stderr);
        assert_eq!(s.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(key) && err.contains(allowed),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    }
}
