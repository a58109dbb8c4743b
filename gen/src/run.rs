//! `netcoll nic run` and `netcoll switch run`: a scenario on one block at several levels.
//!
//! The first level's events are printed as JSON lines as they happen (each line flushed);
//! every other level must print exactly the same events, or the command exits 1. The
//! parameters used are printed on standard error first. A mistake in the scenario or the
//! command line exits 2 with one line naming the file, the line, the step and the key.

use crate::out::{CliError, Out};
use netcoll_models::config::Config;
use netcoll_models::kit::params::ParamTable;
use netcoll_testbench::harness::vcd::Tracer;
use netcoll_testbench::harness::Level;
use std::path::{Path, PathBuf};

/// The arguments of `<block> run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The scenario file (see `scenarios/<block>/`).
    pub scenario: PathBuf,
    /// Levels to run, compared event by event (nic: model, rtl, verilator; switch: golden,
    /// model, rtl, verilator). Default: all of them.
    #[arg(long, value_delimiter = ',')]
    pub levels: Option<Vec<String>>,
    /// nic: also run the golden reference and compare it with the first level after removing
    /// timing (the scenario must be race-free).
    #[arg(long)]
    pub golden: bool,
    /// Run on the block `netcoll gen` emits for this parameter file (its table replaces the
    /// scenario's own parameters).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Write the waveforms of every cycle-level run to FILE (VCD), one scope per level.
    #[arg(long)]
    pub vcd: Option<PathBuf>,
}

fn config(args: &RunArgs) -> Result<Option<Config>, CliError> {
    args.config
        .as_ref()
        .map(|p| Config::from_file(p).map_err(|e| CliError::Input(e.to_string())))
        .transpose()
}

/// Where the parameters come from, for the message on standard error.
fn origin(args: &RunArgs) -> String {
    match &args.config {
        Some(p) => format!("from --config {}", p.display()),
        None => format!("from {}", args.scenario.display()),
    }
}

fn levels(args: &RunArgs, allowed: &[Level]) -> Result<Vec<Level>, CliError> {
    match &args.levels {
        Some(l) => Level::parse_list(l, allowed).map_err(CliError::Usage),
        None => Ok(allowed.to_vec()),
    }
}

/// Prints each event of the first level as it happens, flushed; keeps the first write error.
struct Stream<'a> {
    out: &'a mut Out,
    error: Option<CliError>,
}

impl Stream<'_> {
    fn line(&mut self, text: &str) -> bool {
        let r = self.out.line(text).and_then(|()| self.out.flush());
        match r {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }
}

/// Writes the waveforms, if asked.
fn write_vcd(cmd: &str, tracer: &Option<Tracer>, path: &Option<PathBuf>) -> Result<(), CliError> {
    if let (Some(t), Some(path)) = (tracer, path) {
        t.write(path)
            .map_err(|e| CliError::Input(format!("writing {}: {e}", path.display())))?;
        eprintln!("netcoll {cmd} run: waveforms written to {}", path.display());
    }
    Ok(())
}

/// Compares a later level's events with the first level's; prints the verdict on stderr.
fn report(cmd: &str, first: Level, level: Level, n: usize, diff: Result<(), String>) -> bool {
    match diff {
        Ok(()) => {
            eprintln!(
                "netcoll {cmd} run: {} and {} print identical events ({n})",
                first.name(),
                level.name()
            );
            true
        }
        Err(d) => {
            eprintln!(
                "netcoll {cmd} run: {} and {} differ: {d}",
                first.name(),
                level.name()
            );
            false
        }
    }
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// `netcoll nic run`.
pub fn nic(args: &RunArgs, out: &mut Out) -> Result<bool, CliError> {
    use netcoll_testbench::harness::Knobs;
    use netcoll_testbench::nic::run_level_with;
    use netcoll_testbench::nic::scenario::{compare_events, compare_normalised, Event, Scenario};
    let mut s = Scenario::from_file(&args.scenario).map_err(|e| CliError::Input(e.to_string()))?;
    if let Some(cfg) = config(args)? {
        s.params = cfg.nic;
    }
    let levels = levels(args, &Level::CYCLE)?;
    eprintln!(
        "netcoll nic run: {}: NIC {} ({})",
        display(&args.scenario),
        s.params.describe(),
        origin(args)
    );
    let tracer = args.vcd.as_ref().map(|_| Tracer::new());
    let mut first: Option<(Level, Vec<Event>)> = None;
    let mut ok = true;
    for level in levels {
        let failed = |e: String| CliError::Failed(format!("{}: {e}", level.name()));
        match &first {
            None => {
                let mut stream = Stream {
                    out: &mut *out,
                    error: None,
                };
                let mut sink = |e: &Event| stream.line(&e.to_json());
                let run = run_level_with(&s, level, tracer.as_ref(), Knobs::OFF, Some(&mut sink));
                if let Some(e) = stream.error {
                    return Err(e);
                }
                first = Some((level, run.map_err(failed)?));
            }
            Some((l0, e0)) => {
                let events =
                    run_level_with(&s, level, tracer.as_ref(), Knobs::OFF, None).map_err(failed)?;
                ok &= report("nic", *l0, level, events.len(), compare_events(e0, &events));
            }
        }
    }
    if args.golden {
        let g = netcoll_testbench::nic::run_level(&s, Level::Golden)
            .map_err(|e| CliError::Failed(format!("golden: {e}")))?;
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
        }
    }
    write_vcd("nic", &tracer, &args.vcd)?;
    Ok(ok)
}

/// `netcoll switch run`.
pub fn switch(args: &RunArgs, out: &mut Out) -> Result<bool, CliError> {
    use netcoll_testbench::switch_engine::scenario::{
        compare_events, module_name, run_level, Event, Scenario,
    };
    if args.golden {
        return Err(CliError::Usage(
            "switch run: --golden is for nic run; list golden in --levels instead".to_string(),
        ));
    }
    let params = config(args)?.map(|c| c.switch);
    let s =
        Scenario::from_file(&args.scenario, params).map_err(|e| CliError::Input(e.to_string()))?;
    let mut levels = levels(args, &Level::ALL)?;
    eprintln!(
        "netcoll switch run: {}: {} {} ({})",
        display(&args.scenario),
        module_name(&s),
        s.params.describe(),
        origin(args)
    );
    if netcoll_hdl::switch_engine::build(&s.params).is_none() {
        // The RTL is built for some reducing engines only (REDUCING_SHAPES); the others run as
        // the golden reference and the cycle model.
        let skipped: Vec<&str> = levels
            .iter()
            .filter(|l| matches!(l, Level::Rtl | Level::Verilator))
            .map(|l| l.name())
            .collect();
        if !skipped.is_empty() {
            eprintln!(
                "netcoll switch run: levels {} skipped: the RTL builds reducing engines of {} only",
                skipped.join(", "),
                reducing_shapes()
            );
        }
        levels.retain(|l| matches!(l, Level::Golden | Level::Model));
        if levels.is_empty() {
            return Err(CliError::Usage(
                "switch run: no level left to run (this reducing engine runs at golden and model)"
                    .to_string(),
            ));
        }
    }
    let tracer = args.vcd.as_ref().map(|_| Tracer::new());
    let mut first: Option<(Level, Vec<Event>)> = None;
    let mut ok = true;
    for level in levels {
        // The error names the file and the level.
        let failed = |e: netcoll_testbench::harness::scenario::ScenarioError| {
            CliError::Failed(e.to_string())
        };
        match &first {
            None => {
                let mut stream = Stream {
                    out: &mut *out,
                    error: None,
                };
                let mut sink = |e: &Event| stream.line(&e.to_json());
                let run = run_level(&s, level, tracer.as_ref(), Some(&mut sink));
                if let Some(e) = stream.error {
                    return Err(e);
                }
                first = Some((level, run.map_err(failed)?));
            }
            Some((l0, e0)) => {
                let events = run_level(&s, level, tracer.as_ref(), None).map_err(failed)?;
                ok &= report(
                    "switch",
                    *l0,
                    level,
                    events.len(),
                    compare_events(e0, &events),
                );
            }
        }
    }
    write_vcd("switch", &tracer, &args.vcd)?;
    Ok(ok)
}

/// The reducing engines the RTL builds, as `[switch]` keys.
fn reducing_shapes() -> String {
    netcoll_hdl::switch_engine::REDUCING_SHAPES
        .iter()
        .map(|(r, g, c, m, l, s, fp)| {
            format!(
                "radix {r} groups {g} counter_bits {c} max_plen {m} lanes {l} slots {s} fp {fp}"
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
