//! # `netcoll check`: every registered block's conformance suite at every level
//!
//! One row per block and level ([`crate::registry`]): the directed suite (or the example
//! scenarios) and, at the cycle levels, random traffic in lockstep with the cycle model, with
//! the drivers' idle gaps and back-pressure on. The report prints as a table or as JSON.

use crate::harness::Level;
use netcoll_models::config::Config;
use serde::Serialize;
use std::fmt::Write;
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The configuration whose parameters the random runs use (directed cases carry their
    /// own).
    pub config: Config,
    /// Random lockstep cycles at the Verilator and model levels (the rust-hdl level runs a
    /// fiftieth of it, at least 2,000: it is a thousand times slower).
    pub cycles: u64,
    /// Levels to run (a subset of [`Level::ALL`]).
    pub levels: Vec<Level>,
    /// Where lockstep mismatches write the waveform of their last cycles.
    pub vcd_dir: Option<PathBuf>,
    /// Taps every cycle-level run of the directed suites (for `--vcd`).
    pub trace: Option<crate::harness::vcd::Tracer>,
}

impl CheckOptions {
    /// Random cycles at `level`.
    pub fn cycles_at(&self, level: Level) -> u64 {
        match level {
            Level::Golden => 0,
            Level::Rtl => (self.cycles / 50).clamp(2_000, 20_000),
            _ => self.cycles,
        }
    }
}

/// One row of the table: a block at a level.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Row {
    pub block: String,
    pub level: String,
    pub tests: usize,
    pub cycles: u64,
    pub seconds: f64,
    pub failures: Vec<String>,
}

impl Row {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// The result of a check.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub config_hash: String,
    pub parameters: String,
    pub rows: Vec<Row>,
    /// Levels not run, and why.
    pub skipped: Vec<String>,
    pub passed: bool,
}

impl Report {
    /// The table, then every failure.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "configuration {} ({})",
            self.config_hash, self.parameters
        );
        let _ = writeln!(
            t,
            "{:<16} {:<13} {:>6} {:>12} {:>9}  result",
            "block", "level", "tests", "cycles", "seconds"
        );
        for r in &self.rows {
            let result = if r.passed() {
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
        for s in &self.skipped {
            let _ = writeln!(t, "skipped: {s}");
        }
        for r in &self.rows {
            for f in &r.failures {
                let _ = writeln!(t, "\n{} / {}: {f}", r.block, r.level);
            }
        }
        t
    }

    /// The report as one JSON document.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Runs every registered block at every requested level; `progress` hears of each row as it
/// starts (`block`, `level`).
pub fn run(opts: &CheckOptions, progress: &mut dyn FnMut(&str, Level)) -> Report {
    let mut report = Report {
        config_hash: opts.config.hash(),
        parameters: opts.config.describe(),
        ..Default::default()
    };
    for level in Level::ALL {
        if !opts.levels.contains(&level) {
            report
                .skipped
                .push(format!("level {} (not requested)", level.name()));
        }
    }
    for block in crate::registry::blocks() {
        for level in Level::ALL {
            if !opts.levels.contains(&level) {
                continue;
            }
            progress(block.name, level);
            let started = std::time::Instant::now();
            let mut row = (block.check)(level, opts);
            row.block = block.name.to_string();
            row.level = level.title().to_string();
            row.seconds = started.elapsed().as_secs_f64();
            report.rows.push(row);
        }
    }
    report.passed = report.rows.iter().all(|r| r.passed());
    report
}
