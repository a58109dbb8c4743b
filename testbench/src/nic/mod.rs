//! # The NIC's transactor and conformance harness
//!
//! The NIC's transactor is the host-program driver of [`scenario`]: a scenario (configure
//! queue pairs, write memory, post work requests, deliver messages, run, poll, read) runs
//! unchanged on the golden reference ([`scenario::run_golden`]) and on any cycle-level design
//! ([`scenario::run_cycles`]): the cycle model, the rust-hdl RTL, the emitted Verilog, or two of
//! them in the harness's [`Lockstep`].
//!
//! - [`cycle_dut`]: the NIC at a cycle level;
//! - [`run_level`]: a scenario at one level (what `netcoll nic run` uses);
//! - [`run_level_with`]: the same with driver [`Knobs`], a waveform tap and an event sink
//!   (what `netcoll nic run` uses to stream events);
//! - [`lockstep`]: a scenario on the cycle model and a design, every output every cycle, with
//!   driver knobs (idle gaps, `tx_ready` back-pressure);
//! - [`random_scenario`]: random host programs (fixed seed) exercising every work request,
//!   error path and host command.

pub mod examples;
pub mod network;
pub mod random;
pub mod scenario;

pub use random::{random_scenario, settled_random_scenario};

use crate::harness::{cycle_sim, Knobs, Level, Lockstep, Sim};
use netcoll_models::config::Config;
use netcoll_models::kit::block::BlockSpec;
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::nic::model::NicModel;
use netcoll_models::nic::{HostOp, Nic, NicIn, NicParams};
use scenario::{run_cycles_with, run_golden_with, CycleRun, Event, Scenario, Sink};

/// The NIC at a cycle level.
pub type NicDesign = Sim<Nic>;

/// The configuration with the NIC's parameters `p`.
pub fn config(p: &NicParams) -> Config {
    Config {
        nic: *p,
        ..Default::default()
    }
}

/// A fresh cycle-level design of `level` (`None` for the golden, which has no cycles).
pub fn cycle_dut(level: Level, p: &NicParams) -> Result<Option<NicDesign>, String> {
    if level == Level::Golden {
        return Ok(None);
    }
    cycle_sim::<Nic>(level, &config(p)).map(Some)
}

/// Runs `s` at `level` (cycle levels with [`Knobs::OFF`]).
pub fn run_level(s: &Scenario, level: Level) -> Result<Vec<Event>, String> {
    run_level_with(s, level, None, Knobs::OFF, None)
}

/// Runs `s` at `level`, the design tapped by `tracer` (scope `level / nic / scenario name`).
pub fn run_level_traced(
    s: &Scenario,
    level: Level,
    tracer: Option<&crate::harness::vcd::Tracer>,
) -> Result<Vec<Event>, String> {
    run_level_with(s, level, tracer, Knobs::OFF, None)
}

/// Runs `s` at `level`: a cycle level driven with `knobs` and, given a `tracer`, tapped with
/// the scope `level / <module> / <scenario name>`; each event goes to `sink` as it happens.
pub fn run_level_with(
    s: &Scenario,
    level: Level,
    tracer: Option<&crate::harness::vcd::Tracer>,
    knobs: Knobs,
    sink: Option<Sink>,
) -> Result<Vec<Event>, String> {
    let title = level.title();
    let run = match (cycle_dut(level, &s.params)?, tracer) {
        (None, _) => return run_golden_with(s, sink).map_err(|e| e.to_string()),
        (Some(d), Some(t)) => {
            let name = scenario_label(s);
            let module = Nic::module_name(&s.params);
            let mut tap = t.tap(d, s.params, &[level.name(), &module, &name]);
            run_cycles_with(s, &mut tap, title, knobs, sink)
        }
        (Some(mut d), None) => run_cycles_with(s, d.as_mut(), title, knobs, sink),
    };
    run.map(|r| r.events).map_err(|e| e.to_string())
}

/// A scenario's name for scopes: its `name`, else its file's stem.
pub fn scenario_label(s: &Scenario) -> String {
    if !s.name.is_empty() {
        return s.name.clone();
    }
    std::path::Path::new(&s.file)
        .file_stem()
        .map_or("scenario".into(), |n| n.to_string_lossy().into_owned())
}

/// Runs `s` on the cycle model and `dut` in lockstep, driven with `knobs`; the events and
/// what the driver did (its cycle count is the lockstep's), or the first mismatch (with the
/// last cycles; their waveform goes to `vcd_dir` if given) or error.
pub fn lockstep(
    s: &Scenario,
    dut: NicDesign,
    dut_name: &str,
    vcd_dir: Option<&std::path::Path>,
    knobs: Knobs,
) -> Result<CycleRun, String> {
    let mut l = Lockstep::new(
        s.params,
        Box::new(NicModel::new(s.params)),
        dut,
        format!("cycle model vs {dut_name}"),
    );
    if let Some(dir) = vcd_dir {
        l = l.with_vcd_dir(dir);
    }
    let run = run_cycles_with(s, &mut l, "lockstep", knobs, None);
    // A mismatch explains a failed run better than the run's own error.
    l.finish().map_err(|m| m.to_string())?;
    run.map_err(|e| e.to_string())
}

/// The NIC's row of `netcoll check` at `level`: every example scenario (the golden and the
/// cycle model compared with timing removed; the RTL and the Verilog must print exactly the
/// cycle model's events), then (cycle levels) random host programs in lockstep with the cycle
/// model, driven with [`Knobs::busy`] (idle gaps, `tx_ready` back-pressure), until the cycle
/// budget is spent.
pub fn check(level: Level, opts: &crate::check::CheckOptions) -> crate::check::Row {
    use scenario::{compare_events, compare_normalised};
    let mut row = crate::check::Row::default();
    let examples = match examples::examples() {
        Ok(e) => e,
        Err(e) => {
            row.failures.push(e);
            return row;
        }
    };
    for s in &examples {
        row.tests += 1;
        let model_run = if level == Level::Model {
            run_level_traced(s, Level::Model, opts.trace.as_ref())
        } else {
            run_level(s, Level::Model)
        };
        let verdict = model_run.and_then(|model| match level {
            Level::Golden | Level::Model => {
                run_level(s, Level::Golden).and_then(|golden| compare_normalised(&golden, &model))
            }
            _ => run_level_traced(s, level, opts.trace.as_ref())
                .and_then(|got| compare_events(&model, &got)),
        });
        if let Err(e) = verdict {
            row.failures.push(format!("{}: {e}", s.file));
        }
    }
    let budget = opts.cycles_at(level);
    if level == Level::Golden || level == Level::Model || budget == 0 {
        return row;
    }
    let p = opts.config.nic;
    let mut seed = 1u64;
    while row.cycles < budget {
        row.tests += 1;
        let s = random_scenario(&p, seed, 400);
        let dut = match cycle_dut(level, &p) {
            Ok(Some(d)) => d,
            Ok(None) => break,
            Err(e) => {
                row.failures.push(format!("cannot build the design: {e}"));
                break;
            }
        };
        match lockstep(
            &s,
            dut,
            level.title(),
            opts.vcd_dir.as_deref(),
            Knobs::busy(seed),
        ) {
            Ok(run) => row.cycles += run.stats.cycles,
            Err(e) => {
                row.failures
                    .push(format!("random program seed {seed}: {e}"));
                break;
            }
        }
        seed += 1;
    }
    row
}

/// Steps `d` until it takes host command `(op, arg, w0, w1)`, then until it answers: the cycle
/// the command was taken and the response (status, data). `now` counts the cycles; an error
/// if the command is not taken or not answered within 10 million of them.
pub fn host_command(
    d: &mut NicDesign,
    now: &mut u64,
    op: HostOp,
    arg: u64,
    w: (u64, u64),
) -> Result<(u64, u64, u64), String> {
    const LIMIT: u64 = 10_000_000;
    let i = NicIn {
        host_valid: true,
        host_op: op as u64,
        host_arg: arg,
        host_w0: w.0,
        host_w1: w.1,
        ..Default::default()
    };
    // The outputs are registered: `peek` shows this cycle's `host_ready` before the inputs.
    while !d.peek().host_ready {
        d.step(&NicIn::default());
        *now += 1;
        if *now >= LIMIT {
            return Err(format!("{op:?} never taken"));
        }
    }
    let taken = *now;
    d.step(&i);
    *now += 1;
    loop {
        let o = d.step(&NicIn::default());
        *now += 1;
        if o.host_rsp_valid {
            return Ok((taken, o.host_rsp_status, o.host_rsp_data));
        }
        if *now >= LIMIT {
            return Err(format!("no response to {op:?}"));
        }
    }
}
