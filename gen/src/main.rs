//! `netcoll`: the command line of the netcoll RTL generator.
//!
//! - `netcoll gen [--config F] [--out DIR]`: write the Verilog of every block and a manifest;
//! - `netcoll check [--config F] [--cycles N]`: run the conformance suite at every level;
//! - `netcoll synth [--config F]`: lint, synthesise and compile the emitted Verilog with
//!   Verilator, Yosys and Icarus;
//! - `netcoll nic run SCENARIO.toml [--levels model,rtl,verilator] [--golden]`: run a host
//!   program on the NIC at each level, print its events as JSON lines, fail on any difference.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use netcoll_models::config::Config;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "netcoll",
    version,
    about = "RTL generator and cycle models for in-network collective offload hardware"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Emit the Verilog of every block and manifest.json.
    Gen {
        /// Parameter file (TOML); built-in defaults when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output directory (created if missing).
        #[arg(long, default_value = "verilog")]
        out: PathBuf,
    },
    /// Run the conformance suite at every level and print a table.
    Check {
        #[arg(long)]
        config: Option<PathBuf>,
        /// Random lockstep cycles against Verilator.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        /// Skip the Verilator level (no external tools needed).
        #[arg(long)]
        no_verilator: bool,
    },
    /// Lint (Verilator -Wall), synthesise (Yosys, no latches) and compile (Icarus) the Verilog.
    Synth {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// The NIC cross-channel controller.
    Nic {
        #[command(subcommand)]
        cmd: NicCmd,
    },
}

#[derive(Subcommand)]
enum NicCmd {
    /// Run a scenario (a host program) at each level; print the events (CQEs, sent messages,
    /// host responses, reads) as JSON lines; exit 1 if two levels differ.
    Run {
        /// The scenario file (see `scenarios/nic/`).
        scenario: PathBuf,
        /// Cycle-level levels to run, compared event by event: model, rtl, verilator.
        #[arg(long, value_delimiter = ',', default_value = "model,rtl,verilator")]
        levels: Vec<String>,
        /// Also run the golden reference and compare it after removing timing (the scenario
        /// must be race-free: its outcome must not depend on how far the queues got).
        #[arg(long)]
        golden: bool,
    },
}

fn load(config: &Option<PathBuf>) -> Result<Config> {
    match config {
        Some(path) => Ok(Config::from_file(path)?),
        None => Ok(Config::default()),
    }
}

/// Writes every generated file; returns each path, its size and the paths it requires.
fn write_files(cfg: &Config, out: &Path) -> Result<Vec<(PathBuf, usize, Vec<PathBuf>)>> {
    let files = netcoll_hdl::generate::generate(cfg)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut written = vec![];
    for f in files {
        let path = out.join(&f.name);
        std::fs::write(&path, &f.contents)
            .with_context(|| format!("writing {}", path.display()))?;
        let requires = f.requires.iter().map(|r| out.join(r)).collect();
        written.push((path, f.contents.len(), requires));
    }
    Ok(written)
}

fn nic_run(scenario: &Path, levels: &[String], golden: bool) -> Result<bool> {
    use netcoll_models::nic::scenario::{compare_events, compare_normalised, to_json_lines};
    use netcoll_testbench::nic::{run_level, Level};
    let s = netcoll_models::nic::scenario::Scenario::from_file(scenario)?;
    let mut levels_parsed = vec![];
    for l in levels {
        match Level::from_name(l.trim()) {
            Some(level) if level != Level::Golden => levels_parsed.push(level),
            _ => bail!("--levels: `{l}` is not a level; allowed: model, rtl, verilator"),
        }
    }
    let mut first: Option<(Level, Vec<netcoll_models::nic::scenario::Event>)> = None;
    let mut ok = true;
    for level in levels_parsed {
        let events = run_level(&s, level).map_err(|e| anyhow::anyhow!("{}: {e}", level.name()))?;
        match &first {
            None => {
                print!("{}", to_json_lines(&events));
                first = Some((level, events));
            }
            Some((l0, e0)) => match compare_events(e0, &events) {
                Ok(()) => eprintln!(
                    "netcoll nic run: {} and {} print identical events ({})",
                    l0.name(),
                    level.name(),
                    events.len()
                ),
                Err(d) => {
                    eprintln!(
                        "netcoll nic run: {} and {} differ: {d}",
                        l0.name(),
                        level.name()
                    );
                    ok = false;
                }
            },
        }
    }
    if golden {
        let g = run_level(&s, Level::Golden).map_err(|e| anyhow::anyhow!("golden: {e}"))?;
        if let Some((l0, e0)) = &first {
            match compare_normalised(&g, e0) {
                Ok(()) => eprintln!(
                    "netcoll nic run: golden and {} agree (timing removed)",
                    l0.name()
                ),
                Err(d) => {
                    eprintln!("netcoll nic run: golden and {} differ: {d}", l0.name());
                    ok = false;
                }
            }
        } else {
            print!("{}", to_json_lines(&g));
        }
    }
    Ok(ok)
}

fn run() -> Result<bool> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Gen { config, out } => {
            let cfg = load(&config)?;
            let p = cfg.switch;
            println!(
                "netcoll gen: configuration {} (radix={} groups={} counter_bits={})",
                cfg.hash(),
                p.radix,
                p.groups,
                p.counter_bits
            );
            for (path, bytes, _) in write_files(&cfg, &out)? {
                println!("  wrote {} ({bytes} bytes)", path.display());
            }
            Ok(true)
        }
        Cmd::Check {
            config,
            cycles,
            no_verilator,
        } => {
            let cfg = load(&config)?;
            let opts = netcoll_testbench::check::CheckOptions {
                params: cfg.switch,
                verilator_cycles: cycles,
                verilator: !no_verilator,
                nic: cfg.nic,
            };
            let report = netcoll_testbench::check::run(&opts);
            print!("{}", report.table());
            Ok(report.passed())
        }
        Cmd::Synth { config } => {
            let cfg = load(&config)?;
            let dir = std::env::temp_dir().join(format!("netcoll-synth-{}", std::process::id()));
            let written = write_files(&cfg, &dir)?;
            let mut ok = true;
            for (path, _, requires) in written
                .iter()
                .filter(|(p, _, _)| p.extension().is_some_and(|e| e == "v"))
            {
                let mut files: Vec<&Path> = vec![path.as_path()];
                files.extend(requires.iter().map(|r| r.as_path()));
                let top = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                let lint = netcoll_testbench::tools::verilator_lint_files(&files, &top, &[]);
                // A block with a data memory is checked coarse: flattening thousands of memory
                // words into flip-flops would take Yosys many minutes.
                let synth = if top == "nic" {
                    netcoll_testbench::tools::yosys_coarse_check_files(&files, &top)
                } else {
                    netcoll_testbench::tools::yosys_synth_check_files(&files, &top)
                };
                let icarus = netcoll_testbench::tools::iverilog_compile_files(&files, &top);
                println!("{top}:");
                println!(
                    "  verilator --lint-only -Wall: {}",
                    lint.as_ref()
                        .map_or_else(|e| format!("FAIL\n{e}"), |_| "ok".into())
                );
                match &synth {
                    Ok(r) => println!("  yosys synth + check -assert, no latches: ok ({r:?})"),
                    Err(e) => println!("  yosys: FAIL\n{e}"),
                }
                println!(
                    "  iverilog -g2012: {}",
                    icarus
                        .as_ref()
                        .map_or_else(|e| format!("FAIL\n{e}"), |_| "ok".into())
                );
                ok &= lint.is_ok() && synth.is_ok() && icarus.is_ok();
            }
            let _ = std::fs::remove_dir_all(&dir);
            if !ok {
                bail!("the emitted Verilog failed a tool check");
            }
            Ok(true)
        }
        Cmd::Nic {
            cmd:
                NicCmd::Run {
                    scenario,
                    levels,
                    golden,
                },
        } => nic_run(&scenario, &levels, golden),
    }
}

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("netcoll: {e:#}");
            std::process::exit(2);
        }
    }
}
