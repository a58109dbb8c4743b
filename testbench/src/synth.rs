//! # `netcoll synth`: the emitted Verilog through the tools a user runs
//!
//! For every registered block, on the files `netcoll gen` writes for the configuration:
//! Verilator's lint (`--lint-only -Wall`, no waivers), Yosys (`synth` + `check -assert`, no
//! latch allowed; memories kept as memories for the blocks the registry marks coarse) and
//! Icarus (`iverilog -g2012`). The report gives each block's area as Yosys counts it.

use crate::tools::{
    iverilog_compile_files, verilator_lint_files, yosys_coarse_check_files,
    yosys_synth_check_files, SynthReport,
};
use netcoll_hdl::generate::GeneratedFile;
use netcoll_hdl::registry::SynthMode;
use netcoll_models::config::Config;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// One block's results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BlockSynth {
    pub block: String,
    pub module: String,
    /// The files checked (the module's and those it requires).
    pub files: Vec<String>,
    /// Why the lint failed (`None`: clean).
    pub lint_error: Option<String>,
    /// `flat` or `coarse` (see `netcoll_hdl::registry::SynthMode`).
    pub yosys_mode: String,
    pub cells: u64,
    pub flip_flops: u64,
    /// Memory cells (`$mem*`) in a coarse run.
    pub memories: u64,
    pub yosys_error: Option<String>,
    pub icarus_error: Option<String>,
}

impl BlockSynth {
    pub fn passed(&self) -> bool {
        self.lint_error.is_none() && self.yosys_error.is_none() && self.icarus_error.is_none()
    }
}

/// The whole report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SynthRun {
    pub config_hash: String,
    pub parameters: String,
    pub blocks: Vec<BlockSynth>,
    pub passed: bool,
}

fn verdict(r: &Option<String>) -> &'static str {
    if r.is_none() {
        "ok"
    } else {
        "FAIL"
    }
}

impl SynthRun {
    /// A table, then every failure's text.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "configuration {} ({})",
            self.config_hash, self.parameters
        );
        let _ = writeln!(
            t,
            "{:<16} {:<16} {:>6} {:>8} {:>9} {:>8} {:>5} {:>7} {:>8}",
            "block", "module", "lint", "yosys", "cells", "flops", "mems", "latches", "icarus"
        );
        for b in &self.blocks {
            let _ = writeln!(
                t,
                "{:<16} {:<16} {:>6} {:>8} {:>9} {:>8} {:>5} {:>7} {:>8}",
                b.block,
                b.module,
                verdict(&b.lint_error),
                format!("{} {}", verdict(&b.yosys_error), b.yosys_mode),
                b.cells,
                b.flip_flops,
                b.memories,
                if b.yosys_error.is_none() { "0" } else { "?" },
                verdict(&b.icarus_error)
            );
        }
        let _ = writeln!(
            t,
            "(cells: Yosys's count after `synth`; a coarse run keeps memories as `$mem` cells \
             and counts coarse cells)"
        );
        for b in &self.blocks {
            for (what, r) in [
                ("lint", &b.lint_error),
                ("yosys", &b.yosys_error),
                ("icarus", &b.icarus_error),
            ] {
                if let Some(e) = r {
                    let _ = writeln!(t, "\n{} ({}): {what}:\n{e}", b.block, b.module);
                }
            }
        }
        t
    }

    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Checks every block of `files` (a generation of `cfg`, written in `dir`).
pub fn run(
    cfg: &Config,
    files: &[GeneratedFile],
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> SynthRun {
    let mut run = SynthRun {
        config_hash: cfg.hash(),
        parameters: cfg.describe(),
        ..Default::default()
    };
    for (info, entry) in netcoll_models::kit::block::blocks()
        .into_iter()
        .zip(netcoll_hdl::registry::blocks())
    {
        progress(info.name);
        let module = (info.module_name)(cfg);
        let Some(top) = files.iter().find(|f| f.name == format!("{module}.v")) else {
            continue;
        };
        let mut paths = vec![dir.join(&top.name)];
        paths.extend(top.requires.iter().map(|r| dir.join(r)));
        let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
        let mut b = BlockSynth {
            block: info.name.to_string(),
            module: module.clone(),
            files: std::iter::once(top.name.clone())
                .chain(top.requires.iter().cloned())
                .collect(),
            lint_error: verilator_lint_files(&refs, &module, &[])
                .err()
                .map(|e| e.to_string()),
            icarus_error: iverilog_compile_files(&refs, &module)
                .err()
                .map(|e| e.to_string()),
            ..Default::default()
        };
        let synth: Result<SynthReport, _> = match entry.synth {
            SynthMode::Flat => {
                b.yosys_mode = "flat".into();
                yosys_synth_check_files(&refs, &module)
            }
            SynthMode::Coarse => {
                b.yosys_mode = "coarse".into();
                yosys_coarse_check_files(&refs, &module)
            }
        };
        match synth {
            Ok(r) => {
                b.cells = r.cells;
                b.flip_flops = r.flip_flops;
                b.memories = r
                    .cells_by_type
                    .iter()
                    .filter(|(t, _)| t.starts_with("$mem"))
                    .map(|(_, n)| n)
                    .sum();
            }
            Err(e) => b.yosys_error = Some(e.to_string()),
        }
        run.blocks.push(b);
    }
    run.passed = run.blocks.iter().all(|b| b.passed());
    run
}
