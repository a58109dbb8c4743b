//! `netcoll fabric run` and `netcoll fabric sweep`: barriers and reductions across a simulated
//! fabric.
//!
//! `run` prints one JSON line per completed barrier, then the summary (a table, or one more
//! JSON line with `--json`); it exits 1 when the safety checker found a violation (an early
//! release, a barrier slower than its bound, a hang) and 2 for a bad file or command line.

use crate::out::{CliError, Out};
use netcoll_fabric::{sweep, Fabric, FabricFile, RunOptions};
use netcoll_models::config::Config;
use netcoll_testbench::harness::Level;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The arguments of `fabric run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The fabric file (see `scenarios/fabric/` and the README's "Fabric files").
    pub fabric: PathBuf,
    /// Seed of every random choice (loss, duplicates, compute times).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Run switches at other levels than the default transaction-level model: `SWITCH=LEVEL`
    /// pairs (levels: model, the cycle model; rtl; verilator), or one level for every switch,
    /// e.g. `--levels spine0=verilator`. The output is the same at every level.
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<String>,
    /// Threads: the fabric is cut into this many partitions, run in parallel in windows of
    /// the shortest link latency; the output is the same for any number.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Print the summary as a JSON line instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Engine parameters from this parameter file (the fabric file's `[switch]` table, if
    /// any, overrides them).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Write the waveforms of the switches named in `--levels` (every cycle, one scope per
    /// switch, signals named as the engine's Verilog ports) to FILE (VCD).
    #[arg(long)]
    pub vcd: Option<PathBuf>,
}

/// The arguments of `fabric sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Fabric files, one series each (named after the file's `name`, else its stem).
    #[arg(required = true)]
    pub fabrics: Vec<PathBuf>,
    /// Node counts to run each file at.
    #[arg(long, value_delimiter = ',', default_value = "8,16,32,64,128")]
    pub hosts: Vec<usize>,
    /// Vector sizes, bytes per member: runs each file's reduction groups at these sizes
    /// (instead of node counts) and plots their bandwidth as a fraction of the link rate.
    #[arg(long, value_delimiter = ',')]
    pub bytes: Vec<u64>,
    /// Writes OUT.csv and OUT.svg.
    #[arg(long, default_value = "fabric-sweep")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub config: Option<PathBuf>,
}

fn load_config(config: &Option<PathBuf>) -> Result<Config, CliError> {
    match config {
        Some(p) => Config::from_file(p).map_err(|e| CliError::Input(e.to_string())),
        None => Ok(Config::default()),
    }
}

fn load(path: &Path) -> Result<FabricFile, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
    netcoll_fabric::parse(&text).map_err(|e| CliError::Input(format!("{}: {e}", path.display())))
}

fn levels(list: &[String], fabric: &Fabric) -> Result<BTreeMap<String, Level>, CliError> {
    let cycle = |s: &str| {
        Level::from_name(s.trim())
            .filter(|l| Level::CYCLE.contains(l))
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "--levels: `{}` is not a cycle level; allowed: model, rtl, verilator",
                    netcoll_models::kit::toml_text::escaped(s)
                ))
            })
    };
    let mut out = BTreeMap::new();
    for item in list {
        match item.split_once('=') {
            Some((sw, level)) => {
                if fabric.topo.switch_by_name(sw.trim()).is_none() {
                    return Err(CliError::Usage(format!(
                        "--levels: `{}` is not a switch of the fabric (e.g. {})",
                        netcoll_models::kit::toml_text::escaped(sw),
                        fabric.topo.switch_names[0]
                    )));
                }
                out.insert(sw.trim().to_string(), cycle(level)?);
            }
            None => {
                let l = cycle(item)?;
                for s in &fabric.topo.switch_names {
                    out.insert(s.clone(), l);
                }
            }
        }
    }
    Ok(out)
}

pub fn run(args: &RunArgs, out: &mut Out) -> Result<bool, CliError> {
    let file = load(&args.fabric)?;
    let fabric = Fabric::new(file, load_config(&args.config)?)
        .map_err(|e| CliError::Input(format!("{}: {e}", args.fabric.display())))?;
    if args.threads == 0 {
        return Err(CliError::Usage("--threads: give at least 1".to_string()));
    }
    let opts = RunOptions {
        seed: args.seed,
        levels: levels(&args.levels, &fabric)?,
        threads: args.threads,
        ..Default::default()
    };
    if args.vcd.is_some() && opts.levels.is_empty() {
        return Err(CliError::Usage(
            "--vcd: name the switches to record with --levels, e.g. --levels spine0=model"
                .to_string(),
        ));
    }
    let bar = crate::progress_bar(fabric.file.run.max_cycles, "cycles");
    let tracer = netcoll_testbench::harness::vcd::Tracer::new();
    let mut tick = |cycle, _| bar.set_position(cycle);
    let report = match &args.vcd {
        Some(_) => fabric.run_traced(&opts, &tracer, &mut tick),
        None => fabric.run(&opts, &mut tick),
    }
    .map_err(|e| CliError::Input(format!("{}: {e}", args.fabric.display())))?;
    bar.finish_and_clear();
    if let Some(path) = &args.vcd {
        tracer
            .write(path)
            .map_err(|e| CliError::Input(format!("writing {}: {e}", path.display())))?;
        eprintln!(
            "netcoll fabric run: waveforms written to {}",
            path.display()
        );
    }
    out.text(&report.json_lines())?;
    if args.json {
        out.line(&serde_json::to_string(&report.summary).unwrap_or_default())?;
    } else {
        out.text(&report.table())?;
    }
    Ok(report.summary.safe)
}

pub fn sweep(args: &SweepArgs, out: &mut Out) -> Result<bool, CliError> {
    let config = load_config(&args.config)?;
    let mut series = vec![];
    for p in &args.fabrics {
        let f = load(p)?;
        let name = if f.name.is_empty() {
            p.file_stem().map_or_else(
                || p.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            )
        } else {
            f.name.clone()
        };
        series.push((name, f));
    }
    if !args.bytes.is_empty() {
        return sweep_sizes(args, &series, &config, out);
    }
    let (points, skipped) = sweep::run(&series, &args.hosts, &config, args.seed, &mut |what| {
        eprintln!("netcoll fabric sweep: {what}")
    })
    .map_err(|e| CliError::Input(e.to_string()))?;
    let safe = points.iter().all(|p| p.safe);
    write_sweep(
        args,
        &skipped,
        &sweep::csv(&points),
        |svg| sweep::svg(&points, svg),
        out,
    )?;
    Ok(safe)
}

/// Reports the skipped runs, writes OUT.csv and OUT.svg, prints the CSV.
fn write_sweep(
    args: &SweepArgs,
    skipped: &[String],
    csv_text: &str,
    plot: impl FnOnce(&Path) -> Result<(), String>,
    out: &mut Out,
) -> Result<(), CliError> {
    for s in skipped {
        eprintln!("netcoll fabric sweep: skipped {s}");
    }
    let csv = args.out.with_extension("csv");
    let svg = args.out.with_extension("svg");
    std::fs::write(&csv, csv_text)
        .map_err(|e| CliError::Input(format!("writing {}: {e}", csv.display())))?;
    plot(&svg).map_err(|e| CliError::Input(format!("writing {}: {e}", svg.display())))?;
    out.text(csv_text)?;
    out.line(&format!("wrote {} and {}", csv.display(), svg.display()))?;
    Ok(())
}

/// `fabric sweep --bytes`: reduction bandwidth against vector size.
fn sweep_sizes(
    args: &SweepArgs,
    series: &[(String, FabricFile)],
    config: &Config,
    out: &mut Out,
) -> Result<bool, CliError> {
    let (points, skipped) = sweep::run_sizes(series, &args.bytes, config, args.seed, &mut |what| {
        eprintln!("netcoll fabric sweep: {what}")
    })
    .map_err(|e| CliError::Input(e.to_string()))?;
    let safe = points.iter().all(|p| p.safe);
    let csv = sweep::csv_sizes(&points);
    write_sweep(
        args,
        &skipped,
        &csv,
        |svg| sweep::svg_sizes(&points, svg),
        out,
    )?;
    Ok(safe)
}
