//! # The testbench registry
//!
//! Every block's harness views under the block's name (the names of
//! `netcoll_models::kit::block::blocks`, in the same order): its `check` row at each level
//! (the conformance suite, which must run at every level of [`Level::ALL`]) and its bench row
//! (cycles per second at each cycle level on the same recorded inputs). `netcoll check` and the
//! `blocks` bench loop over [`blocks`]; the registry test fails when a block lacks one.

use crate::check::{CheckOptions, Row};
use crate::harness::Level;
use netcoll_models::config::Config;

/// One block's harness views.
#[derive(Clone, Copy)]
pub struct TbEntry {
    pub name: &'static str,
    /// The levels its conformance suite runs at.
    pub levels: &'static [Level],
    /// Its `netcoll check` row at a level.
    pub check: fn(Level, &CheckOptions) -> Row,
    /// Cycles per second at each cycle level, on the same inputs recorded from the cycle model
    /// (`cycles` of them; fewer at the rust-hdl level, which is a thousand times slower).
    pub bench: BenchFn,
}

/// A block's bench: cycles per second at each cycle level.
pub type BenchFn = fn(&Config, u64) -> Result<Vec<(Level, f64)>, String>;

impl std::fmt::Debug for TbEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TbEntry").field("name", &self.name).finish()
    }
}

/// Every block's harness views, in registry order.
pub fn blocks() -> Vec<TbEntry> {
    vec![
        TbEntry {
            name: "switch_engine",
            levels: &Level::ALL,
            check: crate::switch_engine::check,
            bench: crate::bench::switch_engine,
        },
        TbEntry {
            name: "nic",
            levels: &Level::ALL,
            check: crate::nic::check,
            bench: crate::bench::nic,
        },
        TbEntry {
            name: "reduce_alu",
            levels: &Level::ALL,
            check: crate::reduce_alu::check,
            bench: crate::bench::reduce_alu,
        },
    ]
}

/// The names of the views every block must have, one per view, for [`completeness`].
#[derive(Clone, Debug, Default)]
pub struct Views {
    /// Blocks of the models registry (golden reference, cycle model, ports, parameters).
    pub models: Vec<&'static str>,
    /// Blocks of the RTL registry.
    pub rtl: Vec<&'static str>,
    /// Blocks of this registry, with the levels their suite runs at.
    pub harness: Vec<(&'static str, Vec<Level>)>,
    /// Blocks with a `check` row (from a `check` run).
    pub check_rows: Vec<String>,
    /// Blocks with a bench row.
    pub bench_rows: Vec<String>,
}

impl Views {
    /// The views as the three registries declare them (no `check` or bench run: those rows
    /// are added by the caller that ran them).
    pub fn declared() -> Views {
        Views {
            models: netcoll_models::kit::block::blocks()
                .iter()
                .map(|b| b.name)
                .collect(),
            rtl: netcoll_hdl::registry::blocks()
                .iter()
                .map(|b| b.name)
                .collect(),
            harness: blocks()
                .iter()
                .map(|b| (b.name, b.levels.to_vec()))
                .collect(),
            ..Default::default()
        }
    }
}

/// Every view a registered block lacks, one line each (empty: every block is complete). A
/// block is named by the models registry; it must have, under the same name: an RTL entry, a
/// harness entry whose suite runs at every level, a `check` row and a bench row (given in
/// `views`), and the files `hdl/tests/snapshots/blocks__<name>_default.snap`,
/// `verilog/<module>.v` (for the default configuration) and `constraints/<name>.sdc` under
/// `root`. Names registered in one crate but not in the models registry are reported too.
pub fn completeness(views: &Views, root: &std::path::Path, cfg: &Config) -> Vec<String> {
    let mut problems = vec![];
    for &name in &views.models {
        if !views.rtl.contains(&name) {
            problems.push(format!("{name}: no RTL in netcoll_hdl::registry"));
        }
        match views.harness.iter().find(|(n, _)| *n == name) {
            None => problems.push(format!("{name}: no entry in netcoll_testbench::registry")),
            Some((_, levels)) => {
                for l in Level::ALL {
                    if !levels.contains(&l) {
                        problems.push(format!("{name}: its suite does not run at the {l} level"));
                    }
                }
            }
        }
        if !views.check_rows.iter().any(|r| r == name) {
            problems.push(format!("{name}: no `netcoll check` row"));
        }
        if !views.bench_rows.iter().any(|r| r == name) {
            problems.push(format!("{name}: no bench row"));
        }
        let snapshot = root
            .join("hdl/tests/snapshots")
            .join(format!("blocks__{name}_default.snap"));
        if !snapshot.is_file() {
            problems.push(format!("{name}: no snapshot {}", snapshot.display()));
        }
        let sdc = root.join("constraints").join(format!("{name}.sdc"));
        if !sdc.is_file() {
            problems.push(format!("{name}: no constraints {}", sdc.display()));
        }
        if let Some(info) = netcoll_models::kit::block::block(name) {
            let v = root
                .join("verilog")
                .join(format!("{}.v", (info.module_name)(cfg)));
            if !v.is_file() {
                problems.push(format!("{name}: no committed {}", v.display()));
            }
        }
    }
    let extra = views
        .rtl
        .iter()
        .copied()
        .chain(views.harness.iter().map(|(n, _)| *n))
        .filter(|n| !views.models.contains(n));
    for n in extra {
        problems.push(format!(
            "{n}: registered, but not in netcoll_models' registry"
        ));
    }
    problems
}
