//! `netcoll`: the command line of the netcoll RTL generator.
//!
//! - `netcoll gen [--config F] [--out DIR]`: write the Verilog of every block and a manifest;
//! - `netcoll check [--config F] [--cycles N]`: run the conformance suite at every level;
//! - `netcoll synth [--config F]`: lint, synthesise and compile the emitted Verilog with
//!   Verilator, Yosys and Icarus.

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
}

fn load(config: &Option<PathBuf>) -> Result<Config> {
    match config {
        Some(path) => Ok(Config::from_file(path)?),
        None => Ok(Config::default()),
    }
}

fn write_files(cfg: &Config, out: &Path) -> Result<Vec<(PathBuf, usize)>> {
    let files = netcoll_hdl::generate::generate(cfg)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut written = vec![];
    for f in files {
        let path = out.join(&f.name);
        std::fs::write(&path, &f.contents)
            .with_context(|| format!("writing {}", path.display()))?;
        written.push((path, f.contents.len()));
    }
    Ok(written)
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
            for (path, bytes) in write_files(&cfg, &out)? {
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
            for (path, _) in written
                .iter()
                .filter(|(p, _)| p.extension().is_some_and(|e| e == "v"))
            {
                let top = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                let lint = netcoll_testbench::tools::verilator_lint(path, &top);
                let synth = netcoll_testbench::tools::yosys_synth_check(path, &top);
                let icarus = netcoll_testbench::tools::iverilog_compile(path, &top);
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
