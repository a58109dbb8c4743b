//! `netcoll check`: the conformance suite at every level, summarised as a table.
//!
//! Per level: the directed cases of [`crate::switch::suite`]; then random traffic — for the
//! cycle model against the golden reference, for the RTL and the Verilog in lockstep with the
//! cycle model (every output, every cycle) while the golden reference checks every answer.
//!
//! The NIC rows: every example scenario of `scenarios/nic/` (the golden and the cycle model
//! compared with timing removed; the RTL and the Verilog must print exactly the cycle model's
//! events), then random host programs in lockstep with the cycle model.

use crate::switch::{cycle_dut, dut, lockstep, suite, Level, Stimulus};
use netcoll_models::switch::engine::EngineModel;
use netcoll_models::switch::EngineParams;
use std::fmt::Write;
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Parameters of the random runs (the directed cases carry their own).
    pub params: EngineParams,
    /// Random lockstep cycles at the Verilator level (and the cycle model's own random run).
    pub verilator_cycles: u64,
    /// Whether to run the Verilator level at all.
    pub verilator: bool,
    /// Parameters of the NIC's random programs.
    pub nic: netcoll_models::nic::NicParams,
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub block: &'static str,
    pub level: &'static str,
    pub tests: usize,
    pub cycles: u64,
    pub seconds: f64,
    pub failures: Vec<String>,
}

/// The result of a check.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.failures.is_empty())
    }

    /// The table, then every failure.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<16} {:<13} {:>6} {:>12} {:>9}  result",
            "block", "level", "tests", "cycles", "seconds"
        );
        for r in &self.rows {
            let result = if r.failures.is_empty() {
                "pass".to_string()
            } else {
                format!("FAIL ({})", r.failures.len())
            };
            let _ = writeln!(
                t,
                "{:<16} {:<13} {:>6} {:>12} {:>9.2}  {result}",
                r.block, r.level, r.tests, r.cycles, r.seconds
            );
        }
        for r in &self.rows {
            for f in &r.failures {
                let _ = writeln!(t, "\n{} / {}: {f}", r.block, r.level);
            }
        }
        t
    }
}

/// Seeds of the random runs; fixed so a failure reproduces.
pub const SEEDS: [u64; 2] = [0x000_9E48_F7EB, 0x2DF9_8CE6];

/// Runs the directed cases at `level`; returns (cases run, cycles, failures).
pub fn directed(level: Level) -> (usize, u64, Vec<String>) {
    let mut failures = vec![];
    let mut cycles = 0;
    let cases = suite::cases();
    for case in &cases {
        match dut(level, &case.params) {
            Ok(mut d) => {
                if let Err(e) = suite::run_case(d.as_mut(), case) {
                    failures.push(format!("{}: {e}", case.name));
                }
                cycles += d.cycles();
            }
            Err(e) => failures.push(format!("{}: cannot build the design: {e}", case.name)),
        }
    }
    (cases.len(), cycles, failures)
}

/// Random traffic at `level`: `cycles` per seed. The golden level has no random run (it is
/// the reference the others are compared with).
pub fn random(level: Level, p: &EngineParams, cycles: u64) -> (usize, u64, Vec<String>) {
    if level == Level::Golden {
        return (0, 0, vec![]);
    }
    let mut failures = vec![];
    let mut total = 0;
    for &seed in &SEEDS {
        let mut stim = Stimulus::new(*p, seed);
        let mut reference = EngineModel::new(*p);
        let result = match level {
            Level::Model => lockstep(&mut reference, None, &mut stim, cycles),
            _ => match cycle_dut(level, p) {
                Ok(Some(mut d)) => lockstep(&mut reference, Some(d.as_mut()), &mut stim, cycles),
                Ok(None) => Ok(()),
                Err(e) => {
                    failures.push(format!("cannot build the design: {e}"));
                    continue;
                }
            },
        };
        total += cycles;
        if let Err(m) = result {
            failures.push(format!(
                "seed {seed:#x}: lockstep with the cycle model: {m}"
            ));
        }
        if let Some(g) = stim.golden_mismatch {
            failures.push(g);
        } else if stim.checked < cycles / 4 {
            failures.push(format!(
                "seed {seed:#x}: only {} answers checked in {cycles} cycles: the stimulus is not exercising the design",
                stim.checked
            ));
        }
    }
    (SEEDS.len(), total, failures)
}

/// Runs everything `opts` asks for.
pub fn run(opts: &CheckOptions) -> Report {
    let mut report = Report::default();
    for level in Level::ALL {
        if level == Level::Verilator && !opts.verilator {
            continue;
        }
        let started = Instant::now();
        let random_cycles = match level {
            Level::Golden => 0,
            Level::Rtl => (opts.verilator_cycles / 50).clamp(2_000, 20_000),
            _ => opts.verilator_cycles,
        };
        let (n1, c1, mut f1) = directed(level);
        let (n2, c2, f2) = random(level, &opts.params, random_cycles);
        f1.extend(f2);
        report.rows.push(Row {
            block: "switch_engine",
            level: level.name(),
            tests: n1 + n2,
            cycles: c1 + c2,
            seconds: started.elapsed().as_secs_f64(),
            failures: f1,
        });
    }
    for level in crate::nic::Level::ALL {
        if level == crate::nic::Level::Verilator && !opts.verilator {
            continue;
        }
        let started = Instant::now();
        let cycles = match level {
            crate::nic::Level::Rtl => (opts.verilator_cycles / 50).clamp(2_000, 20_000),
            _ => opts.verilator_cycles,
        };
        let (tests, cycles, failures) = nic(level, &opts.nic, cycles);
        report.rows.push(Row {
            block: "nic",
            level: level.name(),
            tests,
            cycles,
            seconds: started.elapsed().as_secs_f64(),
            failures,
        });
    }
    report
}

/// The example scenarios of `scenarios/nic/`, sorted by name.
pub fn nic_examples() -> Result<Vec<netcoll_models::nic::scenario::Scenario>, String> {
    let dir = crate::tools::repo_root().join("scenarios").join("nic");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| netcoll_models::nic::scenario::Scenario::from_file(p).map_err(|e| e.to_string()))
        .collect()
}

/// The NIC at `level`: the examples, then (cycle levels) random programs of about `cycles`
/// cycles in lockstep with the cycle model. Returns (tests, cycles, failures).
pub fn nic(
    level: crate::nic::Level,
    p: &netcoll_models::nic::NicParams,
    cycles: u64,
) -> (usize, u64, Vec<String>) {
    use crate::nic::{cycle_dut, lockstep, random_scenario, run_level, Level as L};
    use netcoll_models::nic::model::NicModel;
    use netcoll_models::nic::scenario::{compare_events, compare_normalised};
    let mut failures = vec![];
    let mut tests = 0;
    let mut total = 0u64;
    let examples = match nic_examples() {
        Ok(e) => e,
        Err(e) => return (0, 0, vec![e]),
    };
    for s in &examples {
        tests += 1;
        // The golden and the cycle model are compared with each other (timing removed); the
        // RTL and the Verilog must print exactly the cycle model's events.
        let verdict = run_level(s, L::Model).and_then(|model| match level {
            L::Golden | L::Model => {
                run_level(s, L::Golden).and_then(|golden| compare_normalised(&golden, &model))
            }
            _ => run_level(s, level).and_then(|got| compare_events(&model, &got)),
        });
        if let Err(e) = verdict {
            failures.push(format!("{}: {e}", s.file));
        }
    }
    if level == L::Golden || level == L::Model {
        return (tests, total, failures);
    }
    let mut seed = 1u64;
    while total < cycles {
        tests += 1;
        let s = random_scenario(p, seed, 400);
        let dut = match cycle_dut(level, p) {
            Ok(Some(d)) => d,
            Ok(None) => break,
            Err(e) => {
                failures.push(format!("cannot build the design: {e}"));
                break;
            }
        };
        match lockstep(&s, Box::new(NicModel::new(*p)), dut) {
            Ok((_, c)) => total += c,
            Err(e) => {
                failures.push(format!("random program seed {seed}: {e}"));
                break;
            }
        }
        seed += 1;
    }
    (tests, total, failures)
}
