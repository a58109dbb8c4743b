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
