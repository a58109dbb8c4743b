//! `netcoll`: the command line of the netcoll RTL generator.
//!
//! - `netcoll gen [--config F] [--out DIR]`: the Verilog of every block and a manifest;
//! - `netcoll check [--config F] [--cycles N] [--levels L,…] [--json] [--vcd FILE]`: every
//!   block's conformance suite at every level;
//! - `netcoll synth [--config F] [--json]`: the Verilog through Verilator's lint, Yosys and
//!   Icarus, with each block's area;
//! - `netcoll nic run SCENARIO` / `netcoll switch run SCENARIO`: a scenario on a block at
//!   several levels, its events as JSON lines, any difference between levels an error;
//! - `netcoll fabric run FABRIC` / `netcoll fabric sweep FABRIC…`: barriers across a fabric
//!   of switch engines under faults, with a safety checker; `--algo nic|host` runs them by
//!   the NICs or by host software instead, and the sweep compares the three.
//!
//! Exit status: 0 success; 1 a check failed (a level differs, a test fails, a tool rejects the
//! Verilog); 2 the command line or an input file is wrong (the message says which key, value
//! and what is allowed), or a file could not be read or written. Output that goes to a closed
//! pipe (`netcoll gen | head -1`) ends the command quietly with status 0.

mod collective;
mod fabric;
mod out;
mod run;

use clap::{Parser, Subcommand};
use netcoll_models::config::Config;
use netcoll_testbench::harness::Level;
use out::{CliError, Out};
use std::path::PathBuf;

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
    /// Emit the Verilog of every block and manifest.json (all files or none).
    Gen {
        /// Parameter file (TOML); built-in defaults when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output directory (created if missing). Files a previous run wrote there and this
        /// configuration no longer produces are removed; nothing else is touched.
        #[arg(long, default_value = "verilog")]
        out: PathBuf,
    },
    /// Run every block's conformance suite at every level and print a table.
    Check {
        /// Parameter file (TOML); built-in defaults when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Random lockstep cycles at the cycle-model and Verilator levels (the rust-hdl level
        /// runs a fiftieth, at least 2,000).
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        /// Levels to run: golden, model, rtl, verilator.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "golden,model,rtl,verilator"
        )]
        levels: Vec<String>,
        /// Skip the Verilator level (no external tools needed).
        #[arg(long)]
        no_verilator: bool,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Write the waveforms of the directed suites' cycle-level runs to FILE (VCD); a
        /// lockstep mismatch also writes the waveform of its last cycles beside it.
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Lint (Verilator -Wall), synthesise (Yosys, no latches) and compile (Icarus) the Verilog.
    Synth {
        /// Parameter file (TOML); built-in defaults when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Place and route on this FPGA family instead (ecp5 or ice40): area and Fmax per
        /// block, every port registered; installs pinned Yosys / nextpnr (YoWASP) if missing.
        #[arg(long, value_name = "FAMILY")]
        fpga: Option<String>,
        /// nextpnr device [default: 85k for ecp5 (LFE5U-85F), up5k for ice40].
        #[arg(long, requires = "fpga")]
        device: Option<String>,
        /// Package [default: CABGA381 for ecp5, sg48 for ice40].
        #[arg(long, requires = "fpga")]
        package: Option<String>,
        /// ECP5 speed grade: 6, 7 or 8 [default: 6].
        #[arg(long, requires = "fpga")]
        speed: Option<u8>,
        /// Place-and-route seeds, comma-separated; the report gives each and the median.
        #[arg(
            long,
            requires = "fpga",
            value_delimiter = ',',
            default_value = "1,2,3"
        )]
        seeds: Vec<u64>,
        /// Only these blocks (comma-separated names) [default: every block].
        #[arg(long, requires = "fpga", value_delimiter = ',')]
        blocks: Vec<String>,
        /// Only this module of the blocks' Verilog (a block's top module or one it
        /// instantiates, e.g. `reduce_alu_fp`), wrapped and placed alone.
        #[arg(long, requires = "fpga", value_name = "MODULE")]
        module: Option<String>,
        /// Keep every input, netlist, report and a `run.sh` of the exact commands in DIR.
        #[arg(long, requires = "fpga", value_name = "DIR")]
        keep: Option<PathBuf>,
    },
    /// The NIC cross-channel controller.
    Nic {
        #[command(subcommand)]
        cmd: NicCmd,
    },
    /// The switch collective engine.
    Switch {
        #[command(subcommand)]
        cmd: BlockCmd,
    },
    /// Barriers across a fabric of switch engines, a subnet manager and compute nodes.
    Fabric {
        #[command(subcommand)]
        cmd: FabricCmd,
    },
}

#[derive(Subcommand)]
enum FabricCmd {
    /// Run a fabric file: one JSON line per barrier, then a summary with the safety verdict;
    /// exit 1 on a violation. `--algo nic|host`: by the NICs or host software.
    Run(fabric::RunArgs),
    /// Run fabric files at several node counts (and algorithms); write a CSV and an SVG plot
    /// of latency.
    Sweep(fabric::SweepArgs),
}

// One value per run of the command line: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum NicCmd {
    /// Run a scenario at each level; print its events as JSON lines; exit 1 if two levels
    /// differ.
    Run(run::RunArgs),
    /// Run a collective (barrier, allreduce, broadcast) offloaded to NICs that reach each
    /// other: the host library's cross-channel schedules; a JSON line per node and a summary
    /// per node count; exit 1 if a node fails or two levels differ.
    Collective(collective::CollectiveArgs),
}

#[derive(Subcommand)]
enum BlockCmd {
    /// Run a scenario at each level; print its events as JSON lines; exit 1 if two levels
    /// differ.
    Run(run::RunArgs),
}

fn load(config: &Option<PathBuf>) -> Result<Config, CliError> {
    match config {
        Some(path) => Config::from_file(path).map_err(|e| CliError::Input(e.to_string())),
        None => Ok(Config::default()),
    }
}

/// A bar on stderr (drawn only when stderr is a terminal).
fn progress_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

fn gen(config: &Option<PathBuf>, dir: &std::path::Path, out: &mut Out) -> Result<bool, CliError> {
    let cfg = load(config)?;
    let files =
        netcoll_hdl::generate::generate(&cfg).map_err(|e| CliError::Failed(e.to_string()))?;
    let report = netcoll_hdl::generate::write_files(dir, &files)
        .map_err(|e| CliError::Input(e.to_string()))?;
    out.line(&format!(
        "netcoll gen: configuration {} ({})",
        cfg.hash(),
        cfg.describe()
    ))?;
    for (path, bytes) in &report.written {
        out.line(&format!("  wrote {} ({bytes} bytes)", path.display()))?;
    }
    for path in &report.removed {
        out.line(&format!(
            "  removed {} (no longer produced by this configuration)",
            path.display()
        ))?;
    }
    Ok(true)
}

#[allow(clippy::too_many_arguments)]
fn check(
    config: &Option<PathBuf>,
    cycles: u64,
    levels: &[String],
    no_verilator: bool,
    json: bool,
    vcd: &Option<PathBuf>,
    out: &mut Out,
) -> Result<bool, CliError> {
    let cfg = load(config)?;
    let mut levels = Level::parse_list(levels, &Level::ALL).map_err(CliError::Usage)?;
    if no_verilator {
        levels.retain(|l| *l != Level::Verilator);
    }
    let tracer = vcd
        .as_ref()
        .map(|_| netcoll_testbench::harness::vcd::Tracer::new());
    let opts = netcoll_testbench::check::CheckOptions {
        config: cfg,
        cycles,
        levels: levels.clone(),
        vcd_dir: vcd.as_ref().map(|f| {
            f.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), |p| p.to_path_buf())
        }),
        trace: tracer.clone(),
    };
    let rows = netcoll_testbench::registry::blocks().len() * levels.len();
    let bar = progress_bar(rows as u64, "netcoll check");
    let report = netcoll_testbench::check::run(&opts, &mut |block, level| {
        bar.set_message(format!("{block} / {}", level.title()));
        bar.inc(1);
    });
    bar.finish_and_clear();
    if let (Some(t), Some(path)) = (&tracer, vcd) {
        t.write(path)
            .map_err(|e| CliError::Input(format!("writing {}: {e}", path.display())))?;
        eprintln!("netcoll check: waveforms written to {}", path.display());
    }
    if json {
        out.line(&report.json())?;
    } else {
        out.text(&report.table())?;
    }
    Ok(report.passed)
}

fn synth(config: &Option<PathBuf>, json: bool, out: &mut Out) -> Result<bool, CliError> {
    let cfg = load(config)?;
    let files =
        netcoll_hdl::generate::generate(&cfg).map_err(|e| CliError::Failed(e.to_string()))?;
    let dir = std::env::temp_dir().join(format!("netcoll-synth-{}", std::process::id()));
    netcoll_hdl::generate::write_files(&dir, &files).map_err(|e| CliError::Input(e.to_string()))?;
    let bar = progress_bar(
        netcoll_hdl::registry::blocks().len() as u64,
        "netcoll synth",
    );
    let report = netcoll_testbench::synth::run(&cfg, &files, &dir, &mut |block| {
        bar.set_message(block.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&dir);
    if json {
        out.line(&report.json())?;
    } else {
        out.text(&report.table())?;
    }
    Ok(report.passed)
}

fn fpga(
    config: &Option<PathBuf>,
    opts: &netcoll_testbench::fpga::FpgaOptions,
    json: bool,
    out: &mut Out,
) -> Result<bool, CliError> {
    use netcoll_testbench::fpga::FpgaError;
    let cfg = load(config)?;
    let start = std::time::Instant::now();
    let report = netcoll_testbench::fpga::run(&cfg, opts, &mut |what| {
        eprintln!(
            "netcoll synth --fpga [{:>4}s]: {what}",
            start.elapsed().as_secs()
        );
    })
    .map_err(|e| match e {
        FpgaError::BadOption { .. } => CliError::Input(format!("netcoll synth --fpga: {e}")),
        e => CliError::Failed(format!("netcoll synth --fpga: {e}")),
    })?;
    if json {
        out.line(&serde_json::to_string_pretty(&report).unwrap_or_default())?;
    } else {
        out.text(&report.table())?;
    }
    Ok(report.passed)
}

fn dispatch(cli: Cli, out: &mut Out) -> Result<bool, CliError> {
    match cli.cmd {
        Cmd::Gen { config, out: dir } => gen(&config, &dir, out),
        Cmd::Check {
            config,
            cycles,
            levels,
            no_verilator,
            json,
            vcd,
        } => check(&config, cycles, &levels, no_verilator, json, &vcd, out),
        Cmd::Synth {
            config,
            json,
            fpga: Some(family),
            device,
            package,
            speed,
            seeds,
            blocks,
            module,
            keep,
        } => {
            let family = netcoll_testbench::fpga::Family::parse(&family)
                .map_err(|e| CliError::Input(e.to_string()))?;
            let mut opts = netcoll_testbench::fpga::FpgaOptions::new(family);
            if let Some(d) = device {
                opts.device = d;
            }
            if let Some(p) = package {
                opts.package = p;
            }
            if speed.is_some() || family == netcoll_testbench::fpga::Family::Ice40 {
                opts.speed = speed;
            }
            opts.seeds = seeds;
            opts.blocks = blocks;
            opts.module = module;
            opts.keep = keep;
            fpga(&config, &opts, json, out)
        }
        Cmd::Synth { config, json, .. } => synth(&config, json, out),
        Cmd::Nic {
            cmd: NicCmd::Run(args),
        } => run::nic(&args, out),
        Cmd::Nic {
            cmd: NicCmd::Collective(args),
        } => collective::run(&args, out),
        Cmd::Switch {
            cmd: BlockCmd::Run(args),
        } => run::switch(&args, out),
        Cmd::Fabric {
            cmd: FabricCmd::Run(args),
        } => fabric::run(&args, out),
        Cmd::Fabric {
            cmd: FabricCmd::Sweep(args),
        } => fabric::sweep(&args, out),
    }
}

fn main() {
    let cli = Cli::parse();
    let mut out = Out::stdout();
    let code = match dispatch(cli, &mut out).and_then(|ok| out.flush().map(|()| ok)) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => e.report(),
    };
    std::process::exit(code);
}
