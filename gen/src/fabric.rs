//! `netcoll fabric run` and `netcoll fabric sweep`: barriers and reductions across a simulated
//! fabric.
//!
//! `run` prints one JSON line per completed barrier, then the summary (a table, or one more
//! JSON line with `--json`); it exits 1 when the safety checker found a violation (an early
//! release, a barrier slower than its bound, a hang) and 2 for a bad file or command line.
//! `--algo nic` / `host` runs the groups' collectives by the NICs or by host software instead
//! of the switches (`netcoll_fabric::offload`); `sweep --algo switch,nic,host` plots the three.

use crate::out::{CliError, Out};
use netcoll_fabric::{sweep, Algo, Fabric, FabricFile, OffloadOptions, RunOptions};
use netcoll_models::config::Config;
use netcoll_testbench::harness::Level;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The arguments of `fabric run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The fabric file (see `scenarios/fabric/` and the README's "Fabric files").
    pub fabric: PathBuf,
    /// Seed of every random choice (loss, duplicates, compute times, contributions, noise).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Who runs the collectives: `switch` (the switches' engines), `nic` (cross-channel
    /// schedules offloaded to the NICs) or `host` (the same schedules progressed by host
    /// software, `[node] overhead` cycles per message).
    #[arg(long, default_value = "switch")]
    pub algo: String,
    /// Run switches (`--algo switch`) or NICs (`--algo nic` / `host`) at other levels than the
    /// default: `NAME=LEVEL` pairs (levels: model, the cycle model; rtl; verilator), or one
    /// level for every switch or NIC, e.g. `--levels spine0=verilator` or `--levels
    /// h3=rtl`. The output is the same at every level.
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<String>,
    /// `--algo nic` / `host`: before each host action, with this probability, the host is
    /// away for `--noise-cycles` cycles (OS noise).
    #[arg(long, default_value_t = 0.0)]
    pub noise_prob: f64,
    #[arg(long, default_value_t = 0)]
    pub noise_cycles: u64,
    /// Threads: the fabric is cut into this many partitions, run in parallel in windows of
    /// the shortest link latency; the output is the same for any number.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Print the summary as a JSON line instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Engine and NIC parameters from this parameter file (the fabric file's `[switch]` and
    /// `[nic]` tables, if any, override them).
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
    /// Who runs the collectives, one series per file and algorithm: `switch`, `nic`, `host`
    /// (see `fabric run --algo`).
    #[arg(long, value_delimiter = ',', default_value = "switch")]
    pub algo: Vec<String>,
    /// `--algo nic` / `host`: OS noise, as `fabric run`'s.
    #[arg(long, default_value_t = 0.0)]
    pub noise_prob: f64,
    #[arg(long, default_value_t = 0)]
    pub noise_cycles: u64,
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

/// `--levels` for `algo`: switch names for the switches, node names for the NICs.
fn levels(
    list: &[String],
    fabric: &Fabric,
    algo: Algo,
) -> Result<BTreeMap<String, Level>, CliError> {
    let (names, what) = match algo {
        Algo::Switch => (&fabric.topo.switch_names, "switch"),
        Algo::Nic | Algo::Host => (&fabric.topo.node_names, "node (--algo nic / host)"),
    };
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
                if !names.iter().any(|n| n == sw.trim()) {
                    return Err(CliError::Usage(format!(
                        "--levels: `{}` is not a {what} of the fabric (e.g. {})",
                        netcoll_models::kit::toml_text::escaped(sw),
                        names[0]
                    )));
                }
                out.insert(sw.trim().to_string(), cycle(level)?);
            }
            None => {
                let l = cycle(item)?;
                for s in names {
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
    let algo = algo(&args.algo)?;
    noise(args.noise_prob, args.noise_cycles, &[algo])?;
    if algo != Algo::Switch {
        if args.vcd.is_some() {
            return Err(CliError::Usage(
                "--vcd: records switches, with --algo switch".to_string(),
            ));
        }
        let opts = OffloadOptions {
            seed: args.seed,
            levels: levels(&args.levels, &fabric, algo)?,
            noise_prob: args.noise_prob,
            noise_cycles: args.noise_cycles,
            keep_results: false,
        };
        let bar = crate::progress_bar(fabric.file.run.max_cycles, "cycles");
        let report = fabric
            .run_offloaded(algo, &opts, &mut |cycle, _| bar.set_position(cycle))
            .map_err(|e| CliError::Input(format!("{}: {e}", args.fabric.display())))?;
        bar.finish_and_clear();
        return print(&report, args.json, out);
    }
    let opts = RunOptions {
        seed: args.seed,
        levels: levels(&args.levels, &fabric, algo)?,
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
    print(&report, args.json, out)
}

/// A run's records as JSON lines, then its summary (a JSON line or a table); whether it was
/// safe.
fn print(report: &netcoll_fabric::Report, json: bool, out: &mut Out) -> Result<bool, CliError> {
    out.text(&report.json_lines())?;
    if json {
        out.line(&serde_json::to_string(&report.summary).unwrap_or_default())?;
    } else {
        out.text(&report.table())?;
    }
    Ok(report.summary.safe)
}

fn algo(name: &str) -> Result<Algo, CliError> {
    Algo::parse(name.trim()).ok_or_else(|| {
        CliError::Usage(format!(
            "--algo: `{}` is not an algorithm; allowed: switch, nic, host",
            netcoll_models::kit::toml_text::escaped(name)
        ))
    })
}

/// Noise applies to the NICs' and hosts' runs only.
fn noise(prob: f64, cycles: u64, algos: &[Algo]) -> Result<(), CliError> {
    if !(0.0..=1.0).contains(&prob) {
        return Err(CliError::Usage(format!(
            "--noise-prob: {prob} is not a probability (0 to 1)"
        )));
    }
    if (prob > 0.0 || cycles > 0) && algos.iter().all(|&a| a == Algo::Switch) {
        return Err(CliError::Usage(
            "--noise-prob / --noise-cycles: apply to --algo nic and host".to_string(),
        ));
    }
    Ok(())
}

pub fn sweep(args: &SweepArgs, out: &mut Out) -> Result<bool, CliError> {
    let mut algos: Vec<Algo> = vec![];
    for a in &args.algo {
        let a = algo(a)?;
        if !algos.contains(&a) {
            algos.push(a);
        }
    }
    noise(args.noise_prob, args.noise_cycles, &algos)?;
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
        if algos != [Algo::Switch] {
            return Err(CliError::Usage(
                "--bytes: measures the switches' reductions, with --algo switch".to_string(),
            ));
        }
        return sweep_sizes(args, &series, &config, out);
    }
    let how = sweep::How {
        algos,
        seed: args.seed,
        noise_prob: args.noise_prob,
        noise_cycles: args.noise_cycles,
    };
    let (points, skipped) = sweep::run(&series, &args.hosts, &config, &how, &mut |what| {
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
