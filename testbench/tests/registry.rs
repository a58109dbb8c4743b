//! The registries: every block has every view, and every block's emitted Verilog is what the
//! project promises — fresh in `verilog/`, deterministic, with legal names, the declared
//! ports, and clean under Verilator's lint, Yosys and Icarus.

use netcoll_hdl::generate::generate;
use netcoll_models::config::Config;
use netcoll_models::nic::NicParams;
use netcoll_models::reduce_alu::ReduceAluParams;
use netcoll_models::switch_engine::SwitchEngineParams;
use netcoll_testbench::check::{run, CheckOptions};
use netcoll_testbench::harness::Level;
use netcoll_testbench::registry::{completeness, Views};
use netcoll_testbench::tools::repo_root;

/// The small configuration of every block.
fn small() -> Config {
    Config {
        switch: SwitchEngineParams::SMALL,
        nic: NicParams::SMALL,
        alu: ReduceAluParams {
            lanes: 1,
            fp: 0,
            ..Default::default()
        },
    }
}

/// The views of the real registries, with the rows a `check` and a bench run produce.
fn real_views() -> Views {
    let mut v = Views::declared();
    let opts = CheckOptions {
        config: Config::default(),
        cycles: 0,
        levels: vec![Level::Golden],
        vcd_dir: None,
        trace: None,
    };
    let report = run(&opts, &mut |_, _| {});
    assert!(report.passed, "{}", report.table());
    v.check_rows = report.rows.iter().map(|r| r.block.clone()).collect();
    for b in netcoll_testbench::registry::blocks() {
        let rows = (b.bench)(&small(), 300).unwrap_or_else(|e| panic!("{}: bench: {e}", b.name));
        assert_eq!(
            rows.len(),
            Level::CYCLE.len(),
            "{}: a rate per cycle level",
            b.name
        );
        assert!(rows.iter().all(|(_, r)| *r > 0.0));
        v.bench_rows.push(b.name.to_string());
    }
    v
}

#[test]
fn every_registered_block_has_every_view() {
    let problems = completeness(&real_views(), &repo_root(), &Config::default());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The completeness test fails when one view of one block is removed (a test of the test).
#[test]
fn a_missing_view_is_reported() {
    let root = repo_root();
    let cfg = Config::default();
    let full = real_views();
    assert!(completeness(&full, &root, &cfg).is_empty());
    let drop = |f: &dyn Fn(&mut Views)| {
        let mut v = full.clone();
        f(&mut v);
        completeness(&v, &root, &cfg)
    };
    let p = drop(&|v| v.rtl.retain(|n| *n != "nic"));
    assert_eq!(p, ["nic: no RTL in netcoll_hdl::registry"]);
    let p = drop(&|v| v.harness.retain(|(n, _)| *n != "reduce_alu"));
    assert_eq!(p, ["reduce_alu: no entry in netcoll_testbench::registry"]);
    let p = drop(&|v| {
        for (_, l) in v.harness.iter_mut() {
            l.retain(|l| *l != Level::Verilator)
        }
    });
    assert_eq!(p.len(), 3);
    assert!(p[0].contains("verilator level"), "{p:?}");
    let p = drop(&|v| v.check_rows.retain(|n| n != "switch_engine"));
    assert_eq!(p, ["switch_engine: no `netcoll check` row"]);
    let p = drop(&|v| v.bench_rows.clear());
    assert_eq!(p.len(), 3);
    let p = drop(&|v| v.rtl.push("ghost"));
    assert_eq!(
        p,
        ["ghost: registered, but not in netcoll_models' registry"]
    );
    // Files: a root where one block's constraints are missing.
    let tmp = std::env::temp_dir().join(format!("netcoll-views-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    for dir in ["hdl/tests/snapshots", "verilog", "constraints"] {
        std::fs::create_dir_all(tmp.join(dir)).expect("mkdir");
        for e in std::fs::read_dir(root.join(dir)).expect("read").flatten() {
            std::fs::copy(e.path(), tmp.join(dir).join(e.file_name())).expect("copy");
        }
    }
    assert!(completeness(&full, &tmp, &cfg).is_empty());
    std::fs::remove_file(tmp.join("constraints/nic.sdc")).expect("rm");
    std::fs::remove_file(tmp.join("verilog/reduce_alu_l4.v")).expect("rm");
    std::fs::remove_file(tmp.join("hdl/tests/snapshots/blocks__switch_engine_default.snap"))
        .expect("rm");
    let p = completeness(&full, &tmp, &cfg);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p
        .iter()
        .any(|l| l.starts_with("switch_engine: no snapshot")));
    assert!(p.iter().any(|l| l.starts_with("nic: no constraints")));
    assert!(p.iter().any(|l| l.starts_with("reduce_alu: no committed")));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `verilog/` holds exactly what `netcoll gen` writes for the default configuration.
#[test]
fn committed_verilog_is_fresh() {
    let dir = repo_root().join("verilog");
    let files = generate(&Config::default()).expect("generate");
    for f in &files {
        let path = dir.join(&f.name);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == f.contents,
            "{} is stale: run `cargo run --release --bin netcoll -- gen` and commit verilog/",
            path.display()
        );
    }
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .expect("verilog/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    let mut generated: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    generated.sort();
    assert_eq!(
        committed, generated,
        "verilog/ has files `netcoll gen` no longer writes"
    );
}

#[test]
fn generation_is_deterministic_with_legal_names() {
    for cfg in [Config::default(), small()] {
        let a = generate(&cfg).expect("generate");
        let b = generate(&cfg).expect("generate");
        assert_eq!(a, b);
        for f in a.iter().filter(|f| f.name.ends_with(".v")) {
            assert!(!f.contents.contains("lint_off"), "{}: no waivers", f.name);
            assert!(
                f.contents
                    .contains(&format!("// Configuration {}: ", cfg.hash()))
                    && f.contents.contains(&cfg.describe()),
                "{}: the header names the configuration and every parameter",
                f.name
            );
            for line in f.contents.lines() {
                assert!(!line.contains('$'), "{}: `$` in `{line}`", f.name);
                let l = line.trim();
                if ["input ", "output ", "reg ", "wire ", "localparam "]
                    .iter()
                    .any(|k| l.starts_with(k))
                {
                    let decl = l
                        .split('=')
                        .next()
                        .unwrap_or(l)
                        .trim_end_matches([',', ';', ' ']);
                    // A memory's unpacked range follows its name.
                    let decl = match decl.rfind('[') {
                        Some(i) if decl.ends_with(']') => decl[..i].trim_end(),
                        _ => decl,
                    };
                    let name = decl.split_whitespace().last().unwrap_or_default();
                    assert!(
                        netcoll_hdl::emit::is_legal_name(name),
                        "{}: declared name `{name}` in `{l}`",
                        f.name
                    );
                }
            }
        }
    }
}

/// Every block's emitted top module has exactly the ports of its one declaration: `clock`,
/// then the declared inputs and outputs, in order, with their widths.
#[test]
fn emitted_ports_are_the_declared_ports() {
    use netcoll_hdl::emit::Dir;
    for cfg in [Config::default(), small()] {
        for info in netcoll_models::kit::block::blocks() {
            let m = netcoll_hdl::generate::block_module(&cfg, info.name).expect("emit");
            let got: Vec<(String, bool, usize)> = m
                .ports
                .iter()
                .map(|p| (p.name.clone(), p.dir == Dir::Input, p.width))
                .collect();
            let mut want = vec![("clock".to_string(), true, 1)];
            want.extend(
                (info.inputs)(&cfg)
                    .into_iter()
                    .map(|s| (s.name, true, s.width)),
            );
            want.extend(
                (info.outputs)(&cfg)
                    .into_iter()
                    .map(|s| (s.name, false, s.width)),
            );
            assert_eq!(got, want, "{} ({})", info.name, cfg.describe());
        }
    }
}

/// Every block's files pass `verilator --lint-only -Wall` (no waivers), Yosys (`synth` +
/// `check -assert`, no latch) and `iverilog -g2012`, in the default and the small
/// configuration and with a reducing switch engine, without and with the floating-point
/// types — what `netcoll synth` runs.
#[test]
fn emitted_verilog_passes_the_tools() {
    let reducing = Config {
        switch: SwitchEngineParams::SMALL.with_payload(8, 2, 4),
        ..small()
    };
    let reducing_fp = Config {
        switch: SwitchEngineParams {
            fp: 1,
            ..reducing.switch
        },
        ..small()
    };
    for (n, cfg) in [Config::default(), small(), reducing, reducing_fp]
        .into_iter()
        .enumerate()
    {
        let files = generate(&cfg).expect("generate");
        let dir = std::env::temp_dir().join(format!("netcoll-tools-{}-{n}", std::process::id()));
        netcoll_hdl::generate::write_files(&dir, &files).expect("write");
        let report = netcoll_testbench::synth::run(&cfg, &files, &dir, &mut |_| {});
        assert!(report.passed, "{}", report.table());
        assert_eq!(report.blocks.len(), 3);
        for b in &report.blocks {
            assert!(b.flip_flops > 0 && b.cells > 0, "{b:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
