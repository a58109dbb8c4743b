//! # Host-program scenarios
//!
//! A scenario is what a host program does with one NIC: configure queue pairs, write memory,
//! post work requests, let messages from peers arrive, let the NIC run, poll completions and
//! read results. The same scenario runs on the [golden reference](super::golden)
//! ([`run_golden`]) and on any cycle-level implementation ([`NicDut`], [`run_cycles`]), and
//! both give a list of [`Event`]s, printed as JSON lines ([`Event::to_json`]).
//!
//! ## File format (TOML)
//!
//! ```toml
//! name = "send"                       # optional
//! description = "one SEND"            # optional
//!
//! [nic]                               # optional; same keys as netcoll.toml's [nic]
//! qps = 4                             # default: NicParams::SMALL (4 / 4 / 8 / 1024)
//! cqs = 4
//! counters = 8
//! dmem_words = 1024
//!
//! [[step]]
//! op = "write_mem"
//! addr = 16
//! data = [1, -2, "0xffff_ffff_ffff_ffff"]
//!
//! [[step]]
//! op = "post_sq"
//! qp = 0
//! wqe = "SEND"
//! addr = 16
//! len = 3
//! dst = 5
//! dst_qp = 2
//! counter = 3                         # optional: the receiver increments its counter 3
//!
//! [[step]]
//! op = "run"
//! cycles = 200
//!
//! [[step]]
//! op = "poll"
//! cq = 0
//! ```
//!
//! Steps are numbered from 1 in file order and run one after another. Numbers are TOML
//! integers or hex strings `"0x…"` (underscores allowed; needed above `i64::MAX`). A value
//! must fit its field (the widths below); nothing is silently truncated. Negative integers
//! are only allowed in `data` arrays, where they mean the 64-bit two's complement (so `-1`
//! is both an `int64` and, in its low 32 bits, an `int32` minus one).
//!
//! | `op` | keys (default) | what it does |
//! |---|---|---|
//! | `config_qp` | `qp`, `sq_cq` (0), `rq_cq` (0), `sq_managed` (false), `rq_managed` (false) | `CONFIG_QP` |
//! | `write_mem` | `addr`, `data` = `[words]` | one `WRITE_MEM` per word, at `addr`, `addr + 1`, … |
//! | `write_counter` | `counter`, `value` (32 bits) | `WRITE_CNT` |
//! | `post_sq`, `post_rq` | `qp` and a WQE (below) | `POST_SQ` / `POST_RQ` |
//! | `deliver` | `qp`, `src`, `src_qp`, `counter` (none), `tag` (0), `data` ([]), `nak` (false) | a message from a peer arrives |
//! | `run` | `cycles` (1000) | cycle level: that many clock cycles; golden: run to quiescence |
//! | `poll` | `cq` | `POLL_CQ` until the CQ answers something else than OK |
//! | `read_mem` | `addr`, `len` (1) | `READ_MEM` of each word |
//! | `read_counter` | `counter` | `READ_CNT` |
//! | `read_stat` | `stat`: a name (`"ERROR_CQE"`, `"ErrorCqe"`, `"error_cqe"`) or a number | `READ_STAT` |
//! | `host` | `host_op` (4 bits), `arg` (16 bits), `w0` (0), `w1` (0) | any raw host command |
//!
//! Host-command indices (`qp` of `config_qp` / `post_*`, `counter` of `*_counter`, `cq` of
//! `poll`, addresses) are 16-bit fields and are *not* checked against the NIC's sizes: an
//! out-of-range one is answered `BAD_INDEX` by the NIC, which is how errors are tested.
//! `deliver`'s `qp`, `src`, `src_qp`, `counter` are 8 bits, `tag` 16. A delivered NAK
//! (`nak = true`) is one empty beat; its `data` holds at most one word, the reason (default 0).
//!
//! A WQE is given either by name, `wqe` = one of the names below with its fields, or raw, by
//! `w0` and `w1` (default 0; any bit pattern, e.g. an unknown opcode). `signaled` defaults to
//! **true** for every named WQE.
//!
//! | `wqe` | fields (default) |
//! |---|---|
//! | `"NOP"` | `signaled` |
//! | `"SEND"` | `signaled`, `addr`, `len`, `dst`, `dst_qp`, `counter` (none) |
//! | `"RECV"` | `signaled`, `addr`, `len` |
//! | `"WAIT_CQ"` | `signaled`, `cq`, `count` (32 bits) |
//! | `"WAIT_COUNTER"` | `signaled`, `counter`, `threshold` (32 bits) |
//! | `"SEND_EN"`, `"RECV_EN"` | `signaled`, `target_qp`, `value` (16 bits), `up_to` (false: move the enable index by `value`; true: enable up to WQE index `value`) |
//! | `"CALC"` | `signaled`, `alu_op` (`"SUM"`, `"MAXLOC"`, … or a number 0..15), `dtype` (`"int32"`, `"uint32"`, `"int64"`, `"uint64"` or 0..3), `count`, `a`, `sa` (1), `b`, `sb` (1), `dst_addr`, `to_peer` (false), `dst` (0; required if `to_peer`), `dst_qp` (0; required if `to_peer`), `counter` (none) |
//!
//! Widths: `addr`, `len`, `count` (CALC), `a`, `b`, `dst_addr`, `value` (enable) 16 bits;
//! `dst`, `dst_qp`, `counter`, `cq`, `target_qp`, `sa`, `sb` 8 bits.
//!
//! Every mistake is reported on one line naming the file, the step, the key, the value and what
//! is allowed, e.g.
//! `send.toml: step 2 (post_sq): `addr` = 70000 is out of range; allowed: 0..=65535 (16 bits)`.
//!
//! ## Events
//!
//! One JSON object per line, keys in a fixed order, `step` the 1-based step that produced it:
//!
//! ```text
//! {"event":"host","step":2,"op":"post_sq","status":"OK","data":0}
//! {"event":"tx","step":3,"dst":5,"qp":2,"src_qp":0,"nak":false,"counter":3,"tag":0,"data":[1,18446744073709551614,18446744073709551615]}
//! {"event":"cqe","step":4,"cq":0,"status":"OK","opcode":"SEND","qp":0,"recv":false,"index":0,"len":0}
//! {"event":"host","step":4,"op":"poll","status":"EMPTY","data":0}
//! {"event":"mem","step":5,"addr":16,"status":"OK","value":1}
//! {"event":"counter","step":6,"counter":3,"status":"OK","value":1}
//! {"event":"stat","step":7,"stat":"ERROR_CQE","status":"OK","value":0}
//! ```
//!
//! - `host`: the response to each host command of `config_qp`, `write_mem`, `write_counter`,
//!   `post_sq`, `post_rq` and `host` steps (`op` is the step's `op`), and the response that
//!   ends a `poll` (normally `EMPTY`).
//! - `cqe`: each CQE a `poll` popped, decoded (an unknown opcode shows as `"OP_9"`).
//! - `tx`: each message the NIC sent, in the order sent, after the event of the host command
//!   or the step during which it was sent. A NAK has `"nak":true` and `data` = `[reason]`.
//! - `mem`, `counter`, `stat`: the reads.
//!
//! The JSON text is written by [`Event::to_json`] (this crate has no JSON dependency); it is
//! exactly what `serde_json::to_string` gives for the [`Serialize`] derive of [`Event`].
//!
//! ## Running at cycle level
//!
//! [`run_cycles`] drives a [`NicDut`]. Timing convention: all NIC outputs are registered. The
//! driver holds the [`NicOut`] returned by the previous [`NicDut::step`], which are the outputs
//! visible during the current cycle, chooses this cycle's inputs from them, and calls `step`,
//! which applies one rising clock edge and returns the outputs of the next cycle. A transfer
//! happens in a cycle where valid (input or output) and ready (output or input) are both high.
//!
//! 1. One cycle with `reset` high, then idle cycles until `host_ready` (the NIC clears its
//!    contexts after reset).
//! 2. A host command is presented until a cycle where `host_ready` was high (that cycle
//!    transfers it); then the driver idles until `host_rsp_valid` and records the response.
//! 3. A delivery presents the message's beats (header on every beat, `rx_last` on the final
//!    one, `rx_empty` for an empty message), advancing a beat in each cycle where `rx_ready`
//!    was high; the step ends in the cycle its last beat transfers.
//! 4. `run` steps `cycles` idle cycles.
//! 5. Throughout, `tx_ready` is high and every cycle with `tx_valid` transfers a beat; beats are
//!    gathered into messages ending at `tx_last` (the header must not change within a message).
//!
//! Every wait is bounded by [`WAIT_BOUND`] cycles; exceeding it is an error naming the step.
//!
//! ## Comparing levels
//!
//! [`compare_events`] requires identical lists. The golden has no timing, so golden and cycle
//! level are compared after [`normalise`] ([`compare_normalised`]); see [`Normalised`] for
//! what is kept and why.

use super::golden::{GoldenNic, Message};
use super::{
    Cqe, HostOp, HostStatus, NicIn, NicOut, NicParams, Opcode, Status, Wqe, COUNTERS_VALUES,
    CQS_VALUES, DMEM_VALUES, QPS_VALUES,
};
use crate::alu::{AluOp, Dtype};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use thiserror::Error;

/// Bound on every wait of the cycle-level driver, in clock cycles.
pub const WAIT_BOUND: u64 = 100_000;
/// Cycles of a `run` step without `cycles`.
pub const DEFAULT_RUN_CYCLES: u64 = 1000;
/// Bound on the CQEs one `poll` step pops.
pub const POLL_BOUND: usize = 1000;
/// The name used in messages for text that did not come from a file.
pub const DEFAULT_FILE_NAME: &str = "scenario.toml";

/// Names of the statistics counters, in [`super::Stat`] order (as `read_stat` accepts them and
/// `stat` events show them).
pub const STAT_NAMES: [&str; super::STATS] = [
    "HOST_BAD_OP",
    "HOST_BAD_INDEX",
    "WQ_FULL",
    "CQ_STALL",
    "ERROR_CQE",
    "RX_DISCARD",
    "NAK_RECEIVED",
    "CQ_OVERRUN",
];

// -------------------------------------------------------------------------------------------
// Scenarios
// -------------------------------------------------------------------------------------------

/// One host command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HostCmd {
    pub op: u64,
    pub arg: u64,
    pub w0: u64,
    pub w1: u64,
}

/// One step, with every value checked against its field width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Host commands issued one after another (`config_qp`, `write_mem`, `write_counter`,
    /// `post_sq`, `post_rq`, `host`); `label` is the step's `op`.
    Host {
        label: &'static str,
        cmds: Vec<HostCmd>,
    },
    /// A message from a peer (`node` = its source node).
    Deliver(Message),
    Run {
        cycles: u64,
    },
    Poll {
        cq: u64,
    },
    ReadMem {
        addr: u64,
        len: u64,
    },
    ReadCounter {
        counter: u64,
    },
    ReadStat {
        stat: u64,
    },
}

impl Step {
    /// The step's `op` as written in the file.
    pub fn op_name(&self) -> &'static str {
        match self {
            Step::Host { label, .. } => label,
            Step::Deliver(_) => "deliver",
            Step::Run { .. } => "run",
            Step::Poll { .. } => "poll",
            Step::ReadMem { .. } => "read_mem",
            Step::ReadCounter { .. } => "read_counter",
            Step::ReadStat { .. } => "read_stat",
        }
    }
}

/// A parsed scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// The file it was read from (or [`DEFAULT_FILE_NAME`]), for messages.
    pub file: String,
    pub name: String,
    pub description: String,
    pub params: NicParams,
    pub steps: Vec<Step>,
}

/// A scenario that cannot be read or run. Displays as one line.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ScenarioError {
    #[error("{file}: cannot read the file: {message}")]
    Io { file: String, message: String },
    #[error("{file}: TOML syntax error{location}: {message}")]
    Syntax {
        file: String,
        /// ` at line L, column C` when known, else empty.
        location: String,
        message: String,
    },
    /// A problem outside the steps (top-level keys, `[nic]`).
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    /// A problem with one step: when parsing, or when running it.
    #[error("{file}: step {step}{}: {message}", op_suffix(.op))]
    Step {
        file: String,
        /// 1-based.
        step: usize,
        /// The step's `op`, empty if it has none.
        op: String,
        message: String,
    },
}

fn op_suffix(op: &str) -> String {
    if op.is_empty() {
        String::new()
    } else {
        format!(" ({op})")
    }
}

/// The `op` values of steps.
const STEP_OPS: [&str; 12] = [
    "config_qp",
    "write_mem",
    "write_counter",
    "post_sq",
    "post_rq",
    "deliver",
    "run",
    "poll",
    "read_mem",
    "read_counter",
    "read_stat",
    "host",
];

/// The `wqe` names and their fields (besides `op`, `qp`, `wqe`).
const WQE_KINDS: [(&str, &[&str]); 8] = [
    ("NOP", &["signaled"]),
    (
        "SEND",
        &["signaled", "addr", "len", "dst", "dst_qp", "counter"],
    ),
    ("RECV", &["signaled", "addr", "len"]),
    ("WAIT_CQ", &["signaled", "cq", "count"]),
    ("WAIT_COUNTER", &["signaled", "counter", "threshold"]),
    ("SEND_EN", &["signaled", "target_qp", "value", "up_to"]),
    ("RECV_EN", &["signaled", "target_qp", "value", "up_to"]),
    (
        "CALC",
        &[
            "signaled", "alu_op", "dtype", "count", "a", "sa", "b", "sb", "dst_addr", "to_peer",
            "dst", "dst_qp", "counter",
        ],
    ),
];

/// A TOML value as written in the file, on one line.
fn show(v: &toml::Value) -> String {
    v.to_string().trim().replace('\n', " ")
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Why a value is not a number of the field.
enum NumErr {
    WrongType,
    OutOfRange,
}

/// A TOML integer or `"0x…"` string as a 64-bit word; negative integers only if `signed`.
fn number(v: &toml::Value, signed: bool) -> Result<u64, NumErr> {
    match v {
        toml::Value::Integer(i) if *i >= 0 || signed => Ok(*i as u64),
        toml::Value::Integer(_) => Err(NumErr::OutOfRange),
        toml::Value::String(s) => {
            let t = s.trim();
            let hex = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .ok_or(NumErr::WrongType)?
                .replace('_', "");
            if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(NumErr::WrongType);
            }
            u64::from_str_radix(&hex, 16).map_err(|_| NumErr::OutOfRange)
        }
        _ => Err(NumErr::WrongType),
    }
}

const NUMBER_EXPECTED: &str = "an integer or a hex string like \"0x1f\"";

/// Reads the keys of one step, producing one-line errors that name it.
struct StepReader<'a> {
    file: &'a str,
    step: usize,
    op: &'a str,
    t: &'a toml::Table,
}

impl<'a> StepReader<'a> {
    fn err(&self, message: String) -> ScenarioError {
        ScenarioError::Step {
            file: self.file.to_string(),
            step: self.step,
            op: self.op.to_string(),
            message,
        }
    }

    /// Rejects keys outside `allowed` (plus `op`); `what` says for what they are allowed.
    fn only(&self, allowed: &[&str], what: &str) -> Result<(), ScenarioError> {
        for key in self.t.keys() {
            if key != "op" && !allowed.contains(&key.as_str()) {
                return Err(self.err(format!(
                    "unknown key `{key}`; allowed keys {what}: {}",
                    allowed.join(", ")
                )));
            }
        }
        Ok(())
    }

    fn missing(&self, key: &str, why: &str) -> ScenarioError {
        self.err(format!("missing key `{key}`{why}"))
    }

    fn wrong_type(&self, key: &str, v: &toml::Value, expected: &str) -> ScenarioError {
        self.err(format!(
            "`{key}` = {} has the wrong type: expected {expected}",
            show(v)
        ))
    }

    fn out_of_range(&self, key: &str, v: &toml::Value, bits: u32) -> ScenarioError {
        self.err(format!(
            "`{key}` = {} is out of range; allowed: 0..={} ({bits} bits)",
            show(v),
            mask(bits)
        ))
    }

    /// An unsigned field of `bits` bits, if present.
    fn opt_uint(&self, key: &str, bits: u32) -> Result<Option<u64>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        match number(v, false) {
            Ok(n) if n <= mask(bits) => Ok(Some(n)),
            Ok(_) | Err(NumErr::OutOfRange) => Err(self.out_of_range(key, v, bits)),
            Err(NumErr::WrongType) => Err(self.wrong_type(key, v, NUMBER_EXPECTED)),
        }
    }

    /// A required unsigned field; `why` completes "missing key `k`".
    fn uint(&self, key: &str, bits: u32, why: &str) -> Result<u64, ScenarioError> {
        self.opt_uint(key, bits)?
            .ok_or_else(|| self.missing(key, why))
    }

    fn flag(&self, key: &str, default: bool) -> Result<bool, ScenarioError> {
        match self.t.get(key) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(v) => Err(self.wrong_type(key, v, "true or false")),
        }
    }

    fn string(&self, key: &str) -> Result<Option<&'a str>, ScenarioError> {
        match self.t.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(self.wrong_type(key, v, "a string")),
        }
    }

    /// An array of 64-bit words (negative integers are two's complement).
    fn words(&self, key: &str) -> Result<Option<Vec<u64>>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        let toml::Value::Array(items) = v else {
            return Err(self.wrong_type(
                key,
                v,
                "an array of integers or hex strings, e.g. [1, -2, \"0xff\"]",
            ));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match number(item, true) {
                Ok(n) => out.push(n),
                Err(NumErr::OutOfRange) => {
                    return Err(self.err(format!(
                        "`{key}[{i}]` = {} is out of range; allowed: 64-bit words",
                        show(item)
                    )))
                }
                Err(NumErr::WrongType) => {
                    return Err(self.wrong_type(&format!("{key}[{i}]"), item, NUMBER_EXPECTED))
                }
            }
        }
        Ok(Some(out))
    }

    /// A name from `names` (compared ignoring case and `_`) or a number of `bits` bits.
    fn named(
        &self,
        key: &str,
        names: &[(&str, u64)],
        bits: u32,
        why: &str,
    ) -> Result<u64, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Err(self.missing(key, why));
        };
        if let toml::Value::String(s) = v {
            let want = squash(s);
            if let Some((_, code)) = names.iter().find(|(n, _)| squash(n) == want) {
                return Ok(*code);
            }
            if number(v, false).is_err() {
                return Err(self.err(format!(
                    "`{key}` = {} is not a known name; allowed: {} or a number 0..={}",
                    show(v),
                    names
                        .iter()
                        .map(|(n, _)| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    mask(bits)
                )));
            }
        }
        self.uint(key, bits, why)
    }
}

/// Lower case without `_`.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '_')
        .flat_map(|c| c.to_lowercase())
        .collect()
}

impl Scenario {
    /// Parses scenario text; errors name [`DEFAULT_FILE_NAME`].
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, DEFAULT_FILE_NAME)
    }

    /// Reads and parses a scenario file; errors name `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Io {
            file: file.clone(),
            message: e.to_string(),
        })?;
        Self::parse(&text, &file)
    }

    /// Parses scenario text; errors name `file`.
    pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        let invalid = |message: String| ScenarioError::Invalid {
            file: file.to_string(),
            message,
        };
        let top: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let location = match e.span() {
                Some(span) => {
                    let (line, col) = line_col(text, span.start);
                    format!(" at line {line}, column {col}")
                }
                None => String::new(),
            };
            ScenarioError::Syntax {
                file: file.to_string(),
                location,
                message: e.message().trim().replace('\n', " "),
            }
        })?;
        let mut s = Scenario {
            file: file.to_string(),
            name: String::new(),
            description: String::new(),
            params: NicParams::SMALL,
            steps: vec![],
        };
        for (key, v) in &top {
            match (key.as_str(), v) {
                ("name", toml::Value::String(t)) => s.name = t.clone(),
                ("description", toml::Value::String(t)) => s.description = t.clone(),
                ("name" | "description", v) => {
                    return Err(invalid(format!(
                        "`{key}` = {} has the wrong type: expected a string",
                        show(v)
                    )))
                }
                ("nic", toml::Value::Table(t)) => s.params = parse_nic(t).map_err(invalid)?,
                ("nic", v) => {
                    return Err(invalid(format!(
                        "`nic` = {} has the wrong type: expected a table `[nic]`",
                        show(v)
                    )))
                }
                ("step", toml::Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        let toml::Value::Table(t) = item else {
                            return Err(ScenarioError::Step {
                                file: file.to_string(),
                                step: i + 1,
                                op: String::new(),
                                message: format!(
                                    "{} is not a table; write steps as [[step]]",
                                    show(item)
                                ),
                            });
                        };
                        s.steps.push(parse_step(file, i + 1, t)?);
                    }
                }
                ("step", v) => {
                    return Err(invalid(format!(
                        "`step` = {} has the wrong type: expected [[step]] tables",
                        show(v)
                    )))
                }
                _ => {
                    return Err(invalid(format!(
                        "unknown key `{key}`; allowed at the top level: name, description, [nic], [[step]]"
                    )))
                }
            }
        }
        Ok(s)
    }
}

/// The `[nic]` table.
fn parse_nic(t: &toml::Table) -> Result<NicParams, String> {
    let mut p = NicParams::SMALL;
    for (key, v) in t {
        let allowed: &[usize] = match key.as_str() {
            "qps" => &QPS_VALUES,
            "cqs" => &CQS_VALUES,
            "counters" => &COUNTERS_VALUES,
            "dmem_words" => &DMEM_VALUES,
            _ => {
                return Err(format!(
                    "unknown key `nic.{key}`; allowed keys in [nic]: qps, cqs, counters, dmem_words"
                ))
            }
        };
        let list = allowed
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let toml::Value::Integer(i) = v else {
            return Err(format!(
                "`nic.{key}` = {} has the wrong type: expected an integer",
                show(v)
            ));
        };
        let n = match usize::try_from(*i) {
            Ok(n) if allowed.contains(&n) => n,
            _ => {
                return Err(format!(
                    "`nic.{key}` = {i} is not supported; allowed values: {list}"
                ))
            }
        };
        match key.as_str() {
            "qps" => p.qps = n,
            "cqs" => p.cqs = n,
            "counters" => p.counters = n,
            _ => p.dmem_words = n,
        }
    }
    Ok(p)
}

fn host(label: &'static str, op: HostOp, arg: u64, w0: u64, w1: u64) -> Step {
    Step::Host {
        label,
        cmds: vec![HostCmd {
            op: op as u64,
            arg,
            w0,
            w1,
        }],
    }
}

fn parse_step(file: &str, step: usize, t: &toml::Table) -> Result<Step, ScenarioError> {
    let ops_list = STEP_OPS.join(", ");
    let bare = StepReader {
        file,
        step,
        op: "",
        t,
    };
    let op = match t.get("op") {
        None => return Err(bare.missing("op", &format!("; allowed: {ops_list}"))),
        Some(toml::Value::String(s)) => s.as_str(),
        Some(v) => return Err(bare.wrong_type("op", v, "a string")),
    };
    let Some(&label) = STEP_OPS.iter().find(|o| **o == op) else {
        return Err(bare.err(format!(
            "`op` = {} is not a step kind; allowed: {ops_list}",
            show(&toml::Value::String(op.to_string()))
        )));
    };
    let r = StepReader {
        file,
        step,
        op: label,
        t,
    };
    let for_op = format!("for op = \"{label}\"");
    match label {
        "config_qp" => {
            r.only(
                &["qp", "sq_cq", "rq_cq", "sq_managed", "rq_managed"],
                &for_op,
            )?;
            let qp = r.uint("qp", 16, "")?;
            let sq_cq = r.opt_uint("sq_cq", 8)?.unwrap_or(0);
            let rq_cq = r.opt_uint("rq_cq", 8)?.unwrap_or(0);
            let sqm = r.flag("sq_managed", false)? as u64;
            let rqm = r.flag("rq_managed", false)? as u64;
            let w0 = sq_cq | rq_cq << 8 | sqm << 16 | rqm << 17;
            Ok(host(label, HostOp::ConfigQp, qp, w0, 0))
        }
        "write_mem" => {
            r.only(&["addr", "data"], &for_op)?;
            let addr = r.uint("addr", 16, "")?;
            let data = r.words("data")?.ok_or_else(|| r.missing("data", ""))?;
            if data.is_empty() {
                return Err(r.err("`data` = [] is empty; give at least one word".to_string()));
            }
            if addr + data.len() as u64 - 1 > mask(16) {
                return Err(r.err(format!(
                    "`addr` + {} words goes past 65535, the last host address",
                    data.len()
                )));
            }
            let cmds = data
                .iter()
                .enumerate()
                .map(|(i, &w)| HostCmd {
                    op: HostOp::WriteMem as u64,
                    arg: addr + i as u64,
                    w0: w,
                    w1: 0,
                })
                .collect();
            Ok(Step::Host { label, cmds })
        }
        "write_counter" => {
            r.only(&["counter", "value"], &for_op)?;
            let c = r.uint("counter", 16, "")?;
            let v = r.uint("value", 32, "")?;
            Ok(host(label, HostOp::WriteCnt, c, v, 0))
        }
        "post_sq" | "post_rq" => {
            let qp_op = if label == "post_sq" {
                HostOp::PostSq
            } else {
                HostOp::PostRq
            };
            let (w0, w1) = parse_wqe(&r)?;
            let qp = r.uint("qp", 16, "")?;
            Ok(host(label, qp_op, qp, w0, w1))
        }
        "deliver" => {
            r.only(
                &["qp", "src", "src_qp", "counter", "tag", "data", "nak"],
                &for_op,
            )?;
            let qp = r.uint("qp", 8, "")?;
            let src = r.uint("src", 8, "")?;
            let src_qp = r.uint("src_qp", 8, "")?;
            let cnt = r.opt_uint("counter", 8)?;
            let tag = r.opt_uint("tag", 16)?.unwrap_or(0);
            let data = r.words("data")?.unwrap_or_default();
            let nak = r.flag("nak", false)?;
            if nak && data.len() > 1 {
                return Err(r.err(format!(
                    "`data` has {} words but a NAK carries at most one (its reason)",
                    data.len()
                )));
            }
            Ok(Step::Deliver(Message {
                kind_nak: nak,
                node: src,
                src_qp,
                qp,
                cnt,
                tag,
                data,
            }))
        }
        "run" => {
            r.only(&["cycles"], &for_op)?;
            let cycles = r.opt_uint("cycles", 32)?.unwrap_or(DEFAULT_RUN_CYCLES);
            Ok(Step::Run { cycles })
        }
        "poll" => {
            r.only(&["cq"], &for_op)?;
            Ok(Step::Poll {
                cq: r.uint("cq", 16, "")?,
            })
        }
        "read_mem" => {
            r.only(&["addr", "len"], &for_op)?;
            let addr = r.uint("addr", 16, "")?;
            let len = r.opt_uint("len", 16)?.unwrap_or(1);
            if len == 0 || addr + len - 1 > mask(16) {
                return Err(r.err(format!(
                    "`len` = {len} must be at least 1 and `addr` + `len` - 1 at most 65535"
                )));
            }
            Ok(Step::ReadMem { addr, len })
        }
        "read_counter" => {
            r.only(&["counter"], &for_op)?;
            Ok(Step::ReadCounter {
                counter: r.uint("counter", 16, "")?,
            })
        }
        "read_stat" => {
            r.only(&["stat"], &for_op)?;
            let names: Vec<(&str, u64)> = STAT_NAMES
                .iter()
                .enumerate()
                .map(|(i, n)| (*n, i as u64))
                .collect();
            Ok(Step::ReadStat {
                stat: r.named("stat", &names, 16, "")?,
            })
        }
        _ => {
            // "host"
            r.only(&["host_op", "arg", "w0", "w1"], &for_op)?;
            let cmd = HostCmd {
                op: r.uint("host_op", 4, "")?,
                arg: r.opt_uint("arg", 16)?.unwrap_or(0),
                w0: r.opt_uint("w0", 64)?.unwrap_or(0),
                w1: r.opt_uint("w1", 64)?.unwrap_or(0),
            };
            Ok(Step::Host {
                label,
                cmds: vec![cmd],
            })
        }
    }
}

/// The WQE of a `post_sq` / `post_rq` step, encoded.
fn parse_wqe(r: &StepReader) -> Result<(u64, u64), ScenarioError> {
    let kinds = WQE_KINDS
        .iter()
        .map(|(n, _)| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(kind) = r.string("wqe")? else {
        r.only(&["qp", "w0", "w1"], "for a raw WQE (no `wqe`)")?;
        if !r.t.contains_key("w0") {
            return Err(r.missing(
                "wqe",
                &format!(" (one of {kinds}) or `w0` / `w1` for a raw WQE"),
            ));
        }
        return Ok((
            r.opt_uint("w0", 64)?.unwrap_or(0),
            r.opt_uint("w1", 64)?.unwrap_or(0),
        ));
    };
    let Some((kind, fields)) = WQE_KINDS.iter().find(|(n, _)| *n == kind) else {
        return Err(r.err(format!(
            "`wqe` = \"{kind}\" is not a work request; allowed: {kinds} (or raw `w0` / `w1`)"
        )));
    };
    let mut allowed = vec!["qp", "wqe"];
    allowed.extend_from_slice(fields);
    r.only(&allowed, &format!("for wqe = \"{kind}\""))?;
    let why = format!(" (required for wqe = \"{kind}\")");
    let signaled = r.flag("signaled", true)?;
    let wqe = match *kind {
        "NOP" => Wqe::nop(signaled),
        "SEND" => Wqe::send(
            r.uint("addr", 16, &why)?,
            r.uint("len", 16, &why)?,
            r.uint("dst", 8, &why)?,
            r.uint("dst_qp", 8, &why)?,
            r.opt_uint("counter", 8)?,
            signaled,
        ),
        "RECV" => Wqe::recv(
            r.uint("addr", 16, &why)?,
            r.uint("len", 16, &why)?,
            signaled,
        ),
        "WAIT_CQ" => Wqe::wait_cq(r.uint("cq", 8, &why)?, r.uint("count", 32, &why)?, signaled),
        "WAIT_COUNTER" => Wqe::wait_counter(
            r.uint("counter", 8, &why)?,
            r.uint("threshold", 32, &why)?,
            signaled,
        ),
        "SEND_EN" | "RECV_EN" => Wqe::enable(
            *kind == "RECV_EN",
            r.uint("target_qp", 8, &why)?,
            r.flag("up_to", false)?,
            r.uint("value", 16, &why)?,
            signaled,
        ),
        _ => {
            // CALC
            let ops: Vec<(&str, u64)> = AluOp::ALL.iter().map(|o| (o.name(), o.code())).collect();
            let dtypes: [(&str, u64); 8] = [
                ("int32", Dtype::I32 as u64),
                ("uint32", Dtype::U32 as u64),
                ("int64", Dtype::I64 as u64),
                ("uint64", Dtype::U64 as u64),
                ("i32", Dtype::I32 as u64),
                ("u32", Dtype::U32 as u64),
                ("i64", Dtype::I64 as u64),
                ("u64", Dtype::U64 as u64),
            ];
            let to_peer = r.flag("to_peer", false)?;
            let peer_why = " (required for a CALC with to_peer = true)";
            let (dst, dst_qp) = if to_peer {
                (r.uint("dst", 8, peer_why)?, r.uint("dst_qp", 8, peer_why)?)
            } else {
                (
                    r.opt_uint("dst", 8)?.unwrap_or(0),
                    r.opt_uint("dst_qp", 8)?.unwrap_or(0),
                )
            };
            let cnt = r.opt_uint("counter", 8)?;
            Wqe {
                opcode: Opcode::Calc as u64,
                signaled,
                alu_op: r.named("alu_op", &ops, 4, &why)?,
                dtype: r.named("dtype", &dtypes, 2, &why)?,
                mode: to_peer as u64,
                len: r.uint("count", 16, &why)?,
                addr: r.uint("a", 16, &why)?,
                sa: r.opt_uint("sa", 8)?.unwrap_or(1),
                b: r.uint("b", 16, &why)?,
                sb: r.opt_uint("sb", 8)?.unwrap_or(1),
                dst_addr: r.uint("dst_addr", 16, &why)?,
                dst,
                qp: dst_qp,
                cnt_en: cnt.is_some(),
                cnt: cnt.unwrap_or(0),
                ..Default::default()
            }
        }
    };
    Ok(wqe.encode())
}

// -------------------------------------------------------------------------------------------
// Events
// -------------------------------------------------------------------------------------------

/// One observable result of a scenario. See the [module docs](self#events).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Host {
        step: usize,
        op: String,
        status: String,
        data: u64,
    },
    Cqe {
        step: usize,
        cq: u64,
        status: String,
        opcode: String,
        qp: u64,
        recv: bool,
        index: u64,
        len: u64,
    },
    Tx {
        step: usize,
        dst: u64,
        qp: u64,
        src_qp: u64,
        nak: bool,
        counter: Option<u64>,
        tag: u64,
        data: Vec<u64>,
    },
    Mem {
        step: usize,
        addr: u64,
        status: String,
        value: u64,
    },
    Counter {
        step: usize,
        counter: u64,
        status: String,
        value: u64,
    },
    Stat {
        step: usize,
        stat: String,
        status: String,
        value: u64,
    },
}

/// A string as a JSON string literal.
fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            '\u{8}' => o.push_str("\\b"),
            '\u{c}' => o.push_str("\\f"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl Event {
    /// The event as one line of compact JSON, keys in declaration order (`event` first).
    pub fn to_json(&self) -> String {
        let s = json_str;
        match self {
            Event::Host {
                step,
                op,
                status,
                data,
            } => format!(
                "{{\"event\":\"host\",\"step\":{step},\"op\":{},\"status\":{},\"data\":{data}}}",
                s(op),
                s(status)
            ),
            Event::Cqe {
                step,
                cq,
                status,
                opcode,
                qp,
                recv,
                index,
                len,
            } => format!(
                "{{\"event\":\"cqe\",\"step\":{step},\"cq\":{cq},\"status\":{},\"opcode\":{},\"qp\":{qp},\"recv\":{recv},\"index\":{index},\"len\":{len}}}",
                s(status),
                s(opcode)
            ),
            Event::Tx {
                step,
                dst,
                qp,
                src_qp,
                nak,
                counter,
                tag,
                data,
            } => format!(
                "{{\"event\":\"tx\",\"step\":{step},\"dst\":{dst},\"qp\":{qp},\"src_qp\":{src_qp},\"nak\":{nak},\"counter\":{},\"tag\":{tag},\"data\":[{}]}}",
                counter.map_or("null".to_string(), |c| c.to_string()),
                data.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Event::Mem {
                step,
                addr,
                status,
                value,
            } => format!(
                "{{\"event\":\"mem\",\"step\":{step},\"addr\":{addr},\"status\":{},\"value\":{value}}}",
                s(status)
            ),
            Event::Counter {
                step,
                counter,
                status,
                value,
            } => format!(
                "{{\"event\":\"counter\",\"step\":{step},\"counter\":{counter},\"status\":{},\"value\":{value}}}",
                s(status)
            ),
            Event::Stat {
                step,
                stat,
                status,
                value,
            } => format!(
                "{{\"event\":\"stat\",\"step\":{step},\"stat\":{},\"status\":{},\"value\":{value}}}",
                s(stat),
                s(status)
            ),
        }
    }

    /// The same event with `step` set to 0 (for comparisons that ignore when it happened).
    fn without_step(&self) -> Event {
        let mut e = self.clone();
        match &mut e {
            Event::Host { step, .. }
            | Event::Cqe { step, .. }
            | Event::Tx { step, .. }
            | Event::Mem { step, .. }
            | Event::Counter { step, .. }
            | Event::Stat { step, .. } => *step = 0,
        }
        e
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// The events as JSON lines (each followed by `\n`).
pub fn to_json_lines(events: &[Event]) -> String {
    events.iter().map(|e| e.to_json() + "\n").collect()
}

fn host_status_name(c: u64) -> String {
    HostStatus::from_code(c).map_or_else(|| format!("HOST_STATUS_{c}"), |s| s.name().to_string())
}

fn status_name(c: u64) -> String {
    Status::from_code(c).map_or_else(|| format!("STATUS_{c}"), |s| s.name().to_string())
}

fn opcode_name(c: u64) -> String {
    Opcode::from_code(c).map_or_else(|| format!("OP_{c}"), |o| o.name().to_string())
}

fn stat_name(c: u64) -> String {
    STAT_NAMES
        .get(c as usize)
        .map_or_else(|| format!("STAT_{c}"), |n| n.to_string())
}

fn tx_event(step: usize, m: &Message) -> Event {
    Event::Tx {
        step,
        dst: m.node,
        qp: m.qp,
        src_qp: m.src_qp,
        nak: m.kind_nak,
        counter: m.cnt,
        tag: m.tag,
        data: m.data.clone(),
    }
}

// -------------------------------------------------------------------------------------------
// Running
// -------------------------------------------------------------------------------------------

/// A design under test that runs scenarios at cycle level (see the
/// [timing convention](self#running-at-cycle-level)).
pub trait NicDut {
    /// Applies one rising clock edge with inputs `i` (this cycle's inputs) and returns the
    /// outputs of the next cycle (registered, so they depend only on the state after the edge).
    fn step(&mut self, i: &NicIn) -> NicOut;
    /// A short name for messages.
    fn name(&self) -> &str;
}

/// What [`execute`] needs of a level. Errors are messages, placed in a step by the caller.
trait Level {
    fn host(&mut self, c: HostCmd) -> Result<(u64, u64), String>;
    fn deliver(&mut self, m: &Message) -> Result<(), String>;
    fn run(&mut self, cycles: u64) -> Result<(), String>;
    fn take_sent(&mut self) -> Vec<Message>;
    /// Checks the end state (e.g. no message half sent).
    fn finish(&mut self) -> Result<(), String>;
}

/// Runs the steps on a level, producing the events.
fn execute(s: &Scenario, level: &mut dyn Level) -> Result<Vec<Event>, ScenarioError> {
    let mut ev = vec![];
    for (i, step) in s.steps.iter().enumerate() {
        let n = i + 1;
        let err = |message: String| ScenarioError::Step {
            file: s.file.clone(),
            step: n,
            op: step.op_name().to_string(),
            message,
        };
        // Runs one host command and appends what was sent meanwhile after `push`'s event.
        let cmd = |ev: &mut Vec<Event>,
                   level: &mut dyn Level,
                   c: HostCmd,
                   push: &dyn Fn(u64, u64) -> Event|
         -> Result<(u64, u64), ScenarioError> {
            let (status, data) = level.host(c).map_err(err)?;
            ev.push(push(status, data));
            ev.extend(level.take_sent().iter().map(|m| tx_event(n, m)));
            Ok((status, data))
        };
        match step {
            Step::Host { label, cmds } => {
                for &c in cmds {
                    cmd(&mut ev, level, c, &|status, data| Event::Host {
                        step: n,
                        op: label.to_string(),
                        status: host_status_name(status),
                        data,
                    })?;
                }
            }
            Step::Deliver(m) => level.deliver(m).map_err(err)?,
            Step::Run { cycles } => level.run(*cycles).map_err(err)?,
            Step::Poll { cq } => {
                let c = HostCmd {
                    op: HostOp::PollCq as u64,
                    arg: *cq,
                    ..Default::default()
                };
                let mut popped = 0;
                loop {
                    let (status, _) = cmd(&mut ev, level, c, &|status, data| {
                        if status == HostStatus::Ok as u64 {
                            let q = Cqe::decode(data);
                            Event::Cqe {
                                step: n,
                                cq: *cq,
                                status: status_name(q.status),
                                opcode: opcode_name(q.opcode),
                                qp: q.qp,
                                recv: q.is_recv,
                                index: q.index,
                                len: q.len,
                            }
                        } else {
                            Event::Host {
                                step: n,
                                op: "poll".to_string(),
                                status: host_status_name(status),
                                data,
                            }
                        }
                    })?;
                    if status != HostStatus::Ok as u64 {
                        break;
                    }
                    popped += 1;
                    if popped > POLL_BOUND {
                        return Err(err(format!(
                            "CQ {cq} still answers OK after {POLL_BOUND} polls"
                        )));
                    }
                }
            }
            Step::ReadMem { addr, len } => {
                for a in *addr..*addr + *len {
                    let c = HostCmd {
                        op: HostOp::ReadMem as u64,
                        arg: a,
                        ..Default::default()
                    };
                    cmd(&mut ev, level, c, &|status, value| Event::Mem {
                        step: n,
                        addr: a,
                        status: host_status_name(status),
                        value,
                    })?;
                }
            }
            Step::ReadCounter { counter } => {
                let c = HostCmd {
                    op: HostOp::ReadCnt as u64,
                    arg: *counter,
                    ..Default::default()
                };
                cmd(&mut ev, level, c, &|status, value| Event::Counter {
                    step: n,
                    counter: *counter,
                    status: host_status_name(status),
                    value,
                })?;
            }
            Step::ReadStat { stat } => {
                let c = HostCmd {
                    op: HostOp::ReadStat as u64,
                    arg: *stat,
                    ..Default::default()
                };
                cmd(&mut ev, level, c, &|status, value| Event::Stat {
                    step: n,
                    stat: stat_name(*stat),
                    status: host_status_name(status),
                    value,
                })?;
            }
        }
        ev.extend(level.take_sent().iter().map(|m| tx_event(n, m)));
    }
    level.finish().map_err(|message| ScenarioError::Step {
        file: s.file.clone(),
        step: s.steps.len(),
        op: s.steps.last().map_or("", |st| st.op_name()).to_string(),
        message,
    })?;
    Ok(ev)
}

impl Level for GoldenNic {
    fn host(&mut self, c: HostCmd) -> Result<(u64, u64), String> {
        Ok(GoldenNic::host(self, c.op, c.arg, c.w0, c.w1))
    }
    fn deliver(&mut self, m: &Message) -> Result<(), String> {
        GoldenNic::deliver(self, m);
        Ok(())
    }
    fn run(&mut self, _cycles: u64) -> Result<(), String> {
        GoldenNic::run(self);
        Ok(())
    }
    fn take_sent(&mut self) -> Vec<Message> {
        GoldenNic::take_sent(self)
    }
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// Runs a scenario on the golden reference (`run` steps run it to quiescence).
pub fn run_golden(s: &Scenario) -> Result<Vec<Event>, ScenarioError> {
    execute(s, &mut GoldenNic::new(s.params))
}

/// The header of a tx beat: kind, dst, src_qp, qp, cnt_en, cnt, tag.
type TxHeader = (bool, u64, u64, u64, bool, u64, u64);

/// The cycle-level driver.
struct Driver<'a> {
    dut: &'a mut dyn NicDut,
    /// The outputs visible during the current cycle.
    out: NicOut,
    /// The message being received from `tx_*`.
    partial: Option<(TxHeader, Vec<u64>)>,
    sent: Vec<Message>,
}

impl Driver<'_> {
    /// One clock cycle with inputs `i` (plus `tx_ready`), collecting a tx beat if one is shown.
    fn cycle(&mut self, mut i: NicIn) -> Result<(), String> {
        i.tx_ready = true;
        if self.out.tx_valid {
            self.collect()?;
        }
        self.out = self.dut.step(&i);
        Ok(())
    }

    /// The tx beat visible this cycle transfers (tx_ready is always high).
    fn collect(&mut self) -> Result<(), String> {
        let o = self.out;
        let hdr: TxHeader = (
            o.tx_kind,
            o.tx_dst,
            o.tx_src_qp,
            o.tx_qp,
            o.tx_cnt_en,
            o.tx_cnt,
            o.tx_tag,
        );
        let (h, data) = self.partial.get_or_insert_with(|| (hdr, vec![]));
        if *h != hdr {
            return Err(format!(
                "{}: tx header changed within a message (first beat {h:?}, now {hdr:?})",
                self.dut.name()
            ));
        }
        if o.tx_empty {
            if !o.tx_last || !data.is_empty() {
                return Err(format!(
                    "{}: an empty tx beat that is not a whole message (tx_last = {}, {} beats before)",
                    self.dut.name(),
                    o.tx_last,
                    data.len()
                ));
            }
            if o.tx_kind {
                data.push(o.tx_data); // a NAK's reason
            }
        } else {
            data.push(o.tx_data);
        }
        if o.tx_last {
            let Some((h, data)) = self.partial.take() else {
                return Ok(());
            };
            self.sent.push(Message {
                kind_nak: h.0,
                node: h.1,
                src_qp: h.2,
                qp: h.3,
                cnt: h.4.then_some(h.5),
                tag: h.6,
                data,
            });
        }
        Ok(())
    }

    fn idle() -> NicIn {
        NicIn::default()
    }

    /// Idles until `cond(outputs)`, at most [`WAIT_BOUND`] cycles.
    fn wait_for(&mut self, what: &str, cond: impl Fn(&NicOut) -> bool) -> Result<(), String> {
        let mut n = 0;
        while !cond(&self.out) {
            if n == WAIT_BOUND {
                return Err(format!(
                    "{}: no {what} within {WAIT_BOUND} cycles",
                    self.dut.name()
                ));
            }
            self.cycle(Self::idle())?;
            n += 1;
        }
        Ok(())
    }

    /// Presents `i` until a cycle where `ready(outputs)` was high (that cycle transfers it).
    fn transfer(
        &mut self,
        what: &str,
        i: NicIn,
        ready: impl Fn(&NicOut) -> bool,
    ) -> Result<(), String> {
        for _ in 0..=WAIT_BOUND {
            let go = ready(&self.out);
            self.cycle(i)?;
            if go {
                return Ok(());
            }
        }
        Err(format!(
            "{}: {what} not accepted within {WAIT_BOUND} cycles",
            self.dut.name()
        ))
    }
}

impl Level for Driver<'_> {
    fn host(&mut self, c: HostCmd) -> Result<(u64, u64), String> {
        let i = NicIn {
            host_valid: true,
            host_op: c.op,
            host_arg: c.arg,
            host_w0: c.w0,
            host_w1: c.w1,
            ..Default::default()
        };
        self.transfer("host command (host_ready low)", i, |o| o.host_ready)?;
        self.wait_for("host_rsp_valid", |o| o.host_rsp_valid)?;
        Ok((self.out.host_rsp_status, self.out.host_rsp_data))
    }

    fn deliver(&mut self, m: &Message) -> Result<(), String> {
        let base = NicIn {
            rx_valid: true,
            rx_kind: m.kind_nak,
            rx_src: m.node,
            rx_src_qp: m.src_qp,
            rx_qp: m.qp,
            rx_cnt_en: m.cnt.is_some(),
            rx_cnt: m.cnt.unwrap_or(0),
            rx_tag: m.tag,
            ..Default::default()
        };
        let beats: Vec<NicIn> = if m.kind_nak || m.data.is_empty() {
            vec![NicIn {
                rx_empty: true,
                rx_last: true,
                rx_data: m.data.first().copied().unwrap_or(0),
                ..base
            }]
        } else {
            m.data
                .iter()
                .enumerate()
                .map(|(k, &d)| NicIn {
                    rx_last: k + 1 == m.data.len(),
                    rx_data: d,
                    ..base
                })
                .collect()
        };
        for (k, b) in beats.into_iter().enumerate() {
            self.transfer(&format!("rx beat {k} (rx_ready low)"), b, |o| o.rx_ready)?;
        }
        Ok(())
    }

    fn run(&mut self, cycles: u64) -> Result<(), String> {
        for _ in 0..cycles {
            self.cycle(Self::idle())?;
        }
        Ok(())
    }

    fn take_sent(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.sent)
    }

    fn finish(&mut self) -> Result<(), String> {
        match &self.partial {
            None => Ok(()),
            Some((_, data)) => Err(format!(
                "{}: the scenario ended while a message was being sent ({} beats so far); add a run step",
                self.dut.name(),
                data.len()
            )),
        }
    }
}

/// Runs a scenario on a cycle-level design (see the [module docs](self#running-at-cycle-level)).
pub fn run_cycles(s: &Scenario, dut: &mut dyn NicDut) -> Result<Vec<Event>, ScenarioError> {
    let out = dut.step(&NicIn {
        reset: true,
        tx_ready: true,
        ..Default::default()
    });
    let mut d = Driver {
        dut,
        out,
        partial: None,
        sent: vec![],
    };
    d.wait_for("host_ready after reset", |o| o.host_ready)
        .map_err(|message| ScenarioError::Step {
            file: s.file.clone(),
            step: 0,
            op: "reset".to_string(),
            message,
        })?;
    execute(s, &mut d)
}

// -------------------------------------------------------------------------------------------
// Comparing
// -------------------------------------------------------------------------------------------

/// Checks that two event lists are identical; otherwise describes the first difference.
pub fn compare_events(expected: &[Event], actual: &[Event]) -> Result<(), String> {
    compare_lists("events", expected, actual)
}

fn compare_lists(what: &str, expected: &[Event], actual: &[Event]) -> Result<(), String> {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            return Err(format!("{what} differ at index {i}: expected {e}, got {a}"));
        }
    }
    match expected.len().cmp(&actual.len()) {
        std::cmp::Ordering::Equal => Ok(()),
        std::cmp::Ordering::Greater => Err(format!(
            "{what}: expected {} events, got {}; first missing: {}",
            expected.len(),
            actual.len(),
            expected[actual.len()]
        )),
        std::cmp::Ordering::Less => Err(format!(
            "{what}: expected {} events, got {}; first extra: {}",
            expected.len(),
            actual.len(),
            actual[expected.len()]
        )),
    }
}

/// Where a CQE came from, for [`Normalised::cqes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CqeSource {
    /// A send-queue WQE.
    Sq,
    /// A receive-queue WQE.
    Rq,
    /// The notification of an arriving NAK (`REMOTE_DISCARD`).
    Nak,
}

/// A scenario's events reduced to what does not depend on timing, for comparing the golden
/// with a cycle-level run.
///
/// - `host`: every `host` event (responses to posts, configuration, writes, raw commands, and
///   the response ending each poll), in order, with their steps. Their status and data depend
///   only on the order of host commands and on state the scenario has let settle.
/// - `cqes`: the popped CQEs grouped by (CQ, QP, source), each group in pop order, steps
///   dropped. The spec fixes the order of completions within one queue (in order per queue),
///   but not between queues sharing a CQ (the golden's round robin is one possible order) nor
///   which `poll` step pops a CQE (the hardware may finish a WQE between two host commands
///   that the golden only runs at the next `run`). NAK notifications are their own group
///   because they are written when the NAK arrives, not when the SQ advances.
/// - `tx`: messages grouped by (source QP, NAK or data), each in the order sent, steps dropped:
///   an SQ sends in WQE order and NAKs go out in arrival order, but SQs run concurrently and
///   the golden only sends during `run`.
/// - `reads`: `mem`, `counter` and `stat` events in order with their steps (scenarios read
///   after letting the NIC settle), except that the value of `CQ_STALL` is set to 0: it counts
///   attempts, which depend on timing (see [`super::golden`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalised {
    pub host: Vec<Event>,
    pub cqes: BTreeMap<(u64, u64, CqeSource), Vec<Event>>,
    pub tx: BTreeMap<(u64, bool), Vec<Event>>,
    pub reads: Vec<Event>,
}

/// See [`Normalised`].
pub fn normalise(events: &[Event]) -> Normalised {
    let mut n = Normalised::default();
    for e in events {
        match e {
            Event::Host { .. } => n.host.push(e.clone()),
            Event::Cqe {
                cq,
                qp,
                recv,
                status,
                ..
            } => {
                let src = if *recv {
                    CqeSource::Rq
                } else if status == Status::RemoteDiscard.name() {
                    CqeSource::Nak
                } else {
                    CqeSource::Sq
                };
                n.cqes
                    .entry((*cq, *qp, src))
                    .or_default()
                    .push(e.without_step());
            }
            Event::Tx { src_qp, nak, .. } => {
                n.tx.entry((*src_qp, *nak))
                    .or_default()
                    .push(e.without_step())
            }
            Event::Stat {
                step, stat, status, ..
            } if stat == STAT_NAMES[super::Stat::CqStall as usize] => n.reads.push(Event::Stat {
                step: *step,
                stat: stat.clone(),
                status: status.clone(),
                value: 0,
            }),
            Event::Mem { .. } | Event::Counter { .. } | Event::Stat { .. } => {
                n.reads.push(e.clone())
            }
        }
    }
    n
}

/// Compares golden events with a cycle-level run's after [`normalise`]; describes the first
/// difference.
pub fn compare_normalised(golden: &[Event], dut: &[Event]) -> Result<(), String> {
    let (g, d) = (normalise(golden), normalise(dut));
    compare_lists("host responses", &g.host, &d.host)?;
    let empty = vec![];
    let mut keys: Vec<_> = g.cqes.keys().chain(d.cqes.keys()).copied().collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        compare_lists(
            &format!("CQEs of CQ {} from QP {} {:?}", k.0, k.1, k.2),
            g.cqes.get(&k).unwrap_or(&empty),
            d.cqes.get(&k).unwrap_or(&empty),
        )?;
    }
    let mut keys: Vec<_> = g.tx.keys().chain(d.tx.keys()).copied().collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        compare_lists(
            &format!(
                "{} messages from QP {}",
                if k.1 { "NAK" } else { "data" },
                k.0
            ),
            g.tx.get(&k).unwrap_or(&empty),
            d.tx.get(&k).unwrap_or(&empty),
        )?;
    }
    compare_lists("reads", &g.reads, &d.reads)
}

#[cfg(test)]
mod tests {
    use super::super::model::NicModel;
    use super::*;
    use std::path::PathBuf;

    /// The example scenarios, by file name.
    const EXAMPLES: [&str; 11] = [
        "nop.toml",
        "send.toml",
        "recv.toml",
        "wait_cq.toml",
        "wait_counter.toml",
        "send_en.toml",
        "recv_en.toml",
        "calc.toml",
        "reduce_tree.toml",
        "pipeline.toml",
        "errors.toml",
    ];

    fn examples_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/nic")
    }

    fn example(name: &str) -> Scenario {
        Scenario::from_file(examples_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
    }

    fn golden_lines(name: &str) -> Vec<String> {
        run_golden(&example(name))
            .unwrap_or_else(|e| panic!("{e}"))
            .iter()
            .map(|e| e.to_json())
            .collect()
    }

    /// The JSON lines of `events` that start with `{"event":"<kind>"`.
    fn only(lines: &[String], kind: &str) -> Vec<String> {
        let p = format!("{{\"event\":\"{kind}\"");
        lines
            .iter()
            .filter(|l| l.starts_with(&p))
            .cloned()
            .collect()
    }

    /// Every `.toml` file in `scenarios/nic/` (the [`EXAMPLES`] and any added later).
    fn all_examples() -> Vec<String> {
        let mut found: Vec<String> = std::fs::read_dir(examples_dir())
            .expect("scenarios/nic")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        found.sort();
        for name in EXAMPLES {
            assert!(found.iter().any(|f| f == name), "{name} is missing");
        }
        found
    }

    #[test]
    fn every_example_parses_and_runs_on_the_golden() {
        for name in all_examples() {
            let s = example(&name);
            assert!(!s.name.is_empty() && !s.description.is_empty(), "{name}");
            let ev = run_golden(&s).unwrap_or_else(|e| panic!("{e}"));
            assert!(!ev.is_empty(), "{name}");
            // Deterministic.
            assert_eq!(run_golden(&s), Ok(ev), "{name}");
        }
        for name in EXAMPLES {
            assert_eq!(example(name).params, NicParams::SMALL, "{name}");
        }
    }

    #[test]
    fn nop_example_events() {
        assert_eq!(
            golden_lines("nop.toml"),
            [
                r#"{"event":"host","step":1,"op":"post_sq","status":"OK","data":0}"#,
                r#"{"event":"host","step":2,"op":"post_sq","status":"OK","data":1}"#,
                r#"{"event":"host","step":3,"op":"post_sq","status":"OK","data":2}"#,
                r#"{"event":"cqe","step":5,"cq":0,"status":"OK","opcode":"NOP","qp":0,"recv":false,"index":0,"len":0}"#,
                r#"{"event":"cqe","step":5,"cq":0,"status":"OK","opcode":"NOP","qp":0,"recv":false,"index":2,"len":0}"#,
                r#"{"event":"host","step":5,"op":"poll","status":"EMPTY","data":0}"#,
            ]
        );
    }

    #[test]
    fn send_example_events() {
        assert_eq!(
            golden_lines("send.toml"),
            [
                r#"{"event":"host","step":1,"op":"write_mem","status":"OK","data":0}"#,
                r#"{"event":"host","step":1,"op":"write_mem","status":"OK","data":0}"#,
                r#"{"event":"host","step":1,"op":"write_mem","status":"OK","data":0}"#,
                r#"{"event":"host","step":2,"op":"post_sq","status":"OK","data":0}"#,
                r#"{"event":"host","step":3,"op":"post_sq","status":"OK","data":1}"#,
                r#"{"event":"tx","step":4,"dst":5,"qp":2,"src_qp":0,"nak":false,"counter":3,"tag":0,"data":[1,18446744073709551614,18446744073709551615]}"#,
                r#"{"event":"tx","step":4,"dst":6,"qp":1,"src_qp":0,"nak":false,"counter":null,"tag":1,"data":[]}"#,
                r#"{"event":"cqe","step":5,"cq":0,"status":"OK","opcode":"SEND","qp":0,"recv":false,"index":0,"len":0}"#,
                r#"{"event":"host","step":5,"op":"poll","status":"EMPTY","data":0}"#,
                r#"{"event":"cqe","step":8,"cq":0,"status":"REMOTE_DISCARD","opcode":"SEND","qp":0,"recv":false,"index":0,"len":0}"#,
                r#"{"event":"host","step":8,"op":"poll","status":"EMPTY","data":0}"#,
                r#"{"event":"stat","step":9,"stat":"NAK_RECEIVED","status":"OK","value":1}"#,
            ]
        );
    }

    #[test]
    fn recv_example_events() {
        let l = golden_lines("recv.toml");
        assert_eq!(
            only(&l, "tx"),
            [
                r#"{"event":"tx","step":6,"dst":3,"qp":0,"src_qp":1,"nak":true,"counter":null,"tag":12,"data":[7]}"#
            ]
        );
        assert_eq!(
            only(&l, "cqe"),
            [
                r#"{"event":"cqe","step":8,"cq":1,"status":"OK","opcode":"RECV","qp":1,"recv":true,"index":0,"len":3}"#,
                r#"{"event":"cqe","step":8,"cq":1,"status":"LEN_ERR","opcode":"RECV","qp":1,"recv":true,"index":1,"len":2}"#,
            ]
        );
        let mem: Vec<String> = only(&l, "mem");
        let want: Vec<String> = [
            (9, 100, 10),
            (9, 101, 20),
            (9, 102, 30),
            (9, 103, 0),
            (10, 200, 1),
            (10, 201, 2),
            (10, 202, 0),
        ]
        .iter()
        .map(|(s, a, v)| {
            format!(r#"{{"event":"mem","step":{s},"addr":{a},"status":"OK","value":{v}}}"#)
        })
        .collect();
        assert_eq!(mem, want);
        assert_eq!(
            only(&l, "counter"),
            [r#"{"event":"counter","step":11,"counter":2,"status":"OK","value":2}"#]
        );
        assert_eq!(
            only(&l, "stat"),
            [r#"{"event":"stat","step":12,"stat":"RX_DISCARD","status":"OK","value":1}"#]
        );
    }

    /// `(addr, value)` of the `mem` events.
    fn mem_reads(ev: &[Event]) -> Vec<(u64, u64)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Mem { addr, value, .. } => Some((*addr, *value)),
                _ => None,
            })
            .collect()
    }

    /// A data message: dst, qp, src_qp, counter, tag, data.
    type Tx = (u64, u64, u64, Option<u64>, u64, Vec<u64>);

    fn tx_data(ev: &[Event]) -> Vec<Tx> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Tx {
                    dst,
                    qp,
                    src_qp,
                    counter,
                    tag,
                    data,
                    nak: false,
                    ..
                } => Some((*dst, *qp, *src_qp, *counter, *tag, data.clone())),
                _ => None,
            })
            .collect()
    }

    fn cqes(ev: &[Event]) -> Vec<(u64, &str, &str, u64, bool, u64, u64)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Cqe {
                    cq,
                    status,
                    opcode,
                    qp,
                    recv,
                    index,
                    len,
                    ..
                } => Some((
                    *cq,
                    status.as_str(),
                    opcode.as_str(),
                    *qp,
                    *recv,
                    *index,
                    *len,
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn calc_example_results() {
        let ev = run_golden(&example("calc.toml")).expect("runs");
        assert_eq!(
            mem_reads(&ev),
            vec![
                (48, 11),
                (49, 22),
                (50, 33),
                (80, 0xFFFF_FFFD),
                (81, 1),
                (82, 7),
                (83, 0),
                (104, 0x0000_FFFF_0000_FFFF),
                (105, 0xF0F0_F0F0_F0F0_F0F0),
            ]
        );
        assert_eq!(
            tx_data(&ev),
            vec![(9, 3, 0, Some(4), 1, vec![0xFFFF_FFFD, 1, 7, 0])]
        );
        assert_eq!(
            cqes(&ev),
            vec![
                (0, "OK", "CALC", 0, false, 0, 0),
                (0, "OK", "CALC", 0, false, 1, 0)
            ]
        );
    }

    #[test]
    fn wait_examples() {
        let ev = run_golden(&example("wait_cq.toml")).expect("runs");
        assert_eq!(
            cqes(&ev),
            vec![
                (0, "OK", "WAIT", 0, false, 0, 0),
                (0, "OK", "SEND", 0, false, 1, 0),
                (0, "OK", "WAIT", 0, false, 2, 0),
                (1, "OK", "RECV", 1, true, 0, 1),
                (1, "OK", "RECV", 1, true, 1, 1),
                (1, "OK", "RECV", 1, true, 2, 1),
            ]
        );
        // The first two polls of CQ 0 (after message 1; after message 2) and where they were.
        let steps: Vec<usize> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Cqe { step, cq: 0, .. } => Some(*step),
                _ => None,
            })
            .collect();
        assert_eq!(steps, vec![14, 14, 17]);
        assert_eq!(tx_data(&ev), vec![(8, 0, 0, None, 1, vec![111, 222])]);

        let ev = run_golden(&example("wait_counter.toml")).expect("runs");
        assert_eq!(
            cqes(&ev),
            vec![
                (0, "OK", "WAIT", 0, false, 0, 0),
                (0, "OK", "SEND", 0, false, 1, 0)
            ]
        );
        assert_eq!(tx_data(&ev), vec![(4, 1, 0, Some(0), 1, vec![5, 6])]);
        assert!(ev.contains(&Event::Counter {
            step: 12,
            counter: 1,
            status: "OK".into(),
            value: 2
        }));
    }

    #[test]
    fn enable_examples() {
        let ev = run_golden(&example("send_en.toml")).expect("runs");
        assert_eq!(
            tx_data(&ev),
            vec![(2, 3, 1, None, 0, vec![0xA]), (2, 3, 1, None, 1, vec![0xB])]
        );
        assert_eq!(
            cqes(&ev),
            vec![
                (1, "OK", "SEND", 1, false, 0, 0),
                (1, "OK", "SEND", 1, false, 1, 0),
                (0, "OK", "SEND_EN", 0, false, 0, 0),
                (0, "OK", "SEND_EN", 0, false, 1, 0),
                (0, "OK", "SEND_EN", 0, false, 2, 0),
            ]
        );
        let ev = run_golden(&example("recv_en.toml")).expect("runs");
        assert_eq!(
            ev.iter()
                .filter(|e| matches!(e, Event::Tx { .. }))
                .cloned()
                .collect::<Vec<_>>(),
            vec![Event::Tx {
                step: 3,
                dst: 6,
                qp: 2,
                src_qp: 1,
                nak: true,
                counter: None,
                tag: 5,
                data: vec![7],
            }]
        );
        assert_eq!(
            cqes(&ev),
            vec![
                (1, "OK", "RECV", 1, true, 0, 2),
                (0, "OK", "RECV_EN", 0, false, 0, 0)
            ]
        );
        assert_eq!(mem_reads(&ev), vec![(0x20, 3), (0x21, 4)]);
    }

    #[test]
    fn reduce_tree_matches_an_independent_fold() {
        // The children's vectors as written in reduce_tree.toml, round by round.
        let rounds: [[[i64; 4]; 2]; 2] = [
            [[1, 2, 3, 4], [10, 20, 30, 40]],
            [[-1, 5, 100, 7], [1, 5, -50, 0x10]],
        ];
        let reduced: Vec<Vec<u64>> = rounds
            .iter()
            .map(|children| {
                (0..4)
                    .map(|i| children.iter().fold(0i64, |acc, c| acc.wrapping_add(c[i])) as u64)
                    .collect()
            })
            .collect();
        let ev = run_golden(&example("reduce_tree.toml")).expect("runs");
        // Both results go to the parent (node 0, QP 1, its counter 0), tagged with the CALCs'
        // WQE indices 3 and 7.
        assert_eq!(
            tx_data(&ev),
            vec![
                (0, 1, 0, Some(0), 3, reduced[0].clone()),
                (0, 1, 0, Some(0), 7, reduced[1].clone()),
            ]
        );
        let reads = mem_reads(&ev);
        let vals: Vec<u64> = reads.iter().map(|r| r.1).collect();
        assert_eq!(vals[..4], reduced[0][..]);
        assert_eq!(vals[4..], reduced[1][..]);
        assert_eq!(reads[0].0, 0x120);
        assert_eq!(
            cqes(&ev),
            vec![
                (0, "OK", "CALC", 0, false, 3, 0),
                (0, "OK", "CALC", 0, false, 7, 0),
                (1, "OK", "RECV", 1, true, 0, 4),
                (1, "OK", "RECV", 2, true, 0, 4),
                (1, "OK", "RECV", 1, true, 1, 4),
                (1, "OK", "RECV", 2, true, 1, 4),
            ]
        );
        assert!(ev.contains(&Event::Counter {
            step: 26,
            counter: 0,
            status: "OK".into(),
            value: 4
        }));
        // Nothing was NAKed.
        assert!(!ev.iter().any(|e| matches!(e, Event::Tx { nak: true, .. })));
    }

    #[test]
    fn pipeline_forwards_every_chunk() {
        let ev = run_golden(&example("pipeline.toml")).expect("runs");
        let chunks: Vec<Vec<u64>> = (0..4u64)
            .map(|k| (4 * k + 1..4 * k + 5).collect())
            .collect();
        assert_eq!(
            tx_data(&ev),
            (0..4)
                .map(|k| (7, 0, 2, None, k as u64, chunks[k].clone()))
                .collect::<Vec<_>>()
        );
        let mut want = vec![(0, "OK", "NOP", 0, false, 15, 0)];
        want.extend((0..4).map(|k| (1, "OK", "RECV", 1, true, k, 4)));
        want.extend((0..4).map(|k| (2, "OK", "SEND", 2, false, k, 0)));
        assert_eq!(cqes(&ev), want);
        assert!(!ev.iter().any(|e| matches!(e, Event::Tx { nak: true, .. })));
    }

    #[test]
    fn errors_example() {
        let ev = run_golden(&example("errors.toml")).expect("runs");
        let host: Vec<(usize, String, u64)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Host {
                    step, status, data, ..
                } if status != "OK" => Some((*step, status.clone(), *data)),
                _ => None,
            })
            .collect();
        assert_eq!(
            host,
            vec![
                (1, "BAD_OP".to_string(), 0),
                (2, "BAD_INDEX".to_string(), 0),
                (3, "BAD_INDEX".to_string(), 0),
                (24, "FULL".to_string(), 0),
                (29, "EMPTY".to_string(), 0),
                (30, "BAD_INDEX".to_string(), 0),
            ]
        );
        assert_eq!(
            cqes(&ev),
            vec![
                (0, "BAD_INDEX", "SEND_EN", 0, false, 0, 0),
                (0, "BAD_OPCODE", "OP_9", 0, false, 1, 0),
                (0, "BAD_ARG", "CALC", 0, false, 2, 0),
                (0, "BAD_ADDR", "SEND", 0, false, 3, 0),
                (0, "OK", "SEND", 0, false, 4, 0),
            ]
        );
        let tx: Vec<&Event> = ev
            .iter()
            .filter(|e| matches!(e, Event::Tx { .. }))
            .collect();
        assert_eq!(
            tx,
            vec![
                &Event::Tx {
                    step: 25,
                    dst: 2,
                    qp: 1,
                    src_qp: 9,
                    nak: true,
                    counter: None,
                    tag: 3,
                    data: vec![2],
                },
                &Event::Tx {
                    step: 28,
                    dst: 1,
                    qp: 0,
                    src_qp: 0,
                    nak: false,
                    counter: None,
                    tag: 4,
                    data: vec![42, 43],
                },
            ]
        );
        let stats: Vec<(String, u64)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Stat { stat, value, .. } => Some((stat.clone(), *value)),
                _ => None,
            })
            .collect();
        let want = [
            ("HOST_BAD_OP", 1),
            ("HOST_BAD_INDEX", 3),
            ("WQ_FULL", 1),
            ("ERROR_CQE", 4),
            ("RX_DISCARD", 1),
        ];
        assert_eq!(
            stats,
            want.iter()
                .map(|(s, v)| (s.to_string(), *v))
                .collect::<Vec<_>>()
        );
    }

    /// The cycle model under the driver's convention (`step` returns the outputs after the
    /// edge). `NicModel::step` returns the outputs *during* the cycle, so this adapter reads
    /// `outputs()` after it.
    struct AfterEdge(NicModel);

    impl NicDut for AfterEdge {
        fn step(&mut self, i: &NicIn) -> NicOut {
            self.0.step(i);
            self.0.outputs()
        }
        fn name(&self) -> &str {
            "cycle model"
        }
    }

    #[test]
    fn every_example_gives_the_same_events_on_the_cycle_model() {
        for name in all_examples() {
            let s = example(&name);
            let golden = run_golden(&s).unwrap_or_else(|e| panic!("{e}"));
            let mut dut = AfterEdge(NicModel::new(s.params));
            let model = run_cycles(&s, &mut dut).unwrap_or_else(|e| panic!("{e}"));
            if let Err(e) = compare_normalised(&golden, &model) {
                panic!(
                    "{name}: {e}\n--- golden\n{}--- model\n{}",
                    to_json_lines(&golden),
                    to_json_lines(&model)
                );
            }
        }
    }

    /// A DUT that is ready for host commands but never answers.
    struct Mute;

    impl NicDut for Mute {
        fn step(&mut self, _: &NicIn) -> NicOut {
            NicOut {
                host_ready: true,
                ..Default::default()
            }
        }
        fn name(&self) -> &str {
            "mute"
        }
    }

    #[test]
    fn driver_waits_are_bounded() {
        let s = Scenario::from_toml_str(
            "[[step]]\nop = \"run\"\ncycles = 3\n[[step]]\nop = \"poll\"\ncq = 0\n",
        )
        .expect("valid");
        let e = run_cycles(&s, &mut Mute).expect_err("never answers");
        assert_eq!(
            e.to_string(),
            "scenario.toml: step 2 (poll): mute: no host_rsp_valid within 100000 cycles"
        );
    }

    #[test]
    fn compare_reports_the_first_difference() {
        let a = run_golden(&example("nop.toml")).expect("runs");
        assert_eq!(compare_events(&a, &a), Ok(()));
        assert_eq!(compare_normalised(&a, &a), Ok(()));
        let mut b = a.clone();
        if let Event::Cqe { index, .. } = &mut b[4] {
            *index = 3;
        }
        assert_eq!(
            compare_events(&a, &b),
            Err(format!(
                "events differ at index 4: expected {}, got {}",
                a[4].to_json(),
                b[4].to_json()
            ))
        );
        let e = compare_normalised(&a, &b).expect_err("differs");
        assert!(
            e.starts_with("CQEs of CQ 0 from QP 0 Sq differ at index 1"),
            "{e}"
        );
        let e = compare_events(&a, &a[..5]).expect_err("shorter");
        assert!(
            e.contains("expected 6 events, got 5; first missing: {\"event\":\"host\""),
            "{e}"
        );
        // Steps of CQEs and the interleaving of queues are not compared after normalising.
        let mut c = a.clone();
        if let Event::Cqe { step, .. } = &mut c[3] {
            *step = 4;
        }
        assert_eq!(compare_normalised(&a, &c), Ok(()));
    }

    #[test]
    fn json_lines() {
        let e = [
            Event::Stat {
                step: 1,
                stat: "CQ_STALL".into(),
                status: "OK".into(),
                value: u64::MAX,
            },
            Event::Counter {
                step: 2,
                counter: 3,
                status: "BAD_INDEX".into(),
                value: 0,
            },
            Event::Host {
                step: 3,
                op: "a\"b\\c\n".into(),
                status: "OK".into(),
                data: 1,
            },
        ];
        assert_eq!(
            to_json_lines(&e),
            concat!(
                r#"{"event":"stat","step":1,"stat":"CQ_STALL","status":"OK","value":18446744073709551615}"#,
                "\n",
                r#"{"event":"counter","step":2,"counter":3,"status":"BAD_INDEX","value":0}"#,
                "\n",
                r#"{"event":"host","step":3,"op":"a\"b\\c\n","status":"OK","data":1}"#,
                "\n"
            )
        );
    }

    fn msg(text: &str) -> String {
        let e = Scenario::from_toml_str(text).expect_err("should fail");
        let m = e.to_string();
        assert!(!m.contains('\n'), "multi-line message: {m}");
        assert!(m.starts_with("scenario.toml: "), "{m}");
        m
    }

    const SEND: &str = "op = \"post_sq\"\nqp = 0\nwqe = \"SEND\"\ndst = 1\ndst_qp = 2\nlen = 1\n";

    #[test]
    fn parse_errors_name_step_key_and_value() {
        assert_eq!(
            msg(&format!("[[step]]\nop = \"run\"\n[[step]]\n{SEND}addr = 70000\n")),
            "scenario.toml: step 2 (post_sq): `addr` = 70000 is out of range; allowed: 0..=65535 (16 bits)"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{SEND}addr = \"4\"\n")),
            "scenario.toml: step 1 (post_sq): `addr` = \"4\" has the wrong type: expected an integer or a hex string like \"0x1f\""
        );
        assert_eq!(
            msg(&format!("[[step]]\n{SEND}adr = 4\n")),
            "scenario.toml: step 1 (post_sq): unknown key `adr`; allowed keys for wqe = \"SEND\": qp, wqe, signaled, addr, len, dst, dst_qp, counter"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{SEND}")),
            "scenario.toml: step 1 (post_sq): missing key `addr` (required for wqe = \"SEND\")"
        );
        assert_eq!(
            msg("[[step]]\nop = \"fly\"\n"),
            "scenario.toml: step 1: `op` = \"fly\" is not a step kind; allowed: config_qp, write_mem, write_counter, post_sq, post_rq, deliver, run, poll, read_mem, read_counter, read_stat, host"
        );
        assert!(msg("[[step]]\nqp = 1\n")
            .starts_with("scenario.toml: step 1: missing key `op`; allowed: config_qp, "));
        assert_eq!(
            msg("[[step]]\nop = \"post_rq\"\nqp = 1\nwqe = \"JUMP\"\n"),
            "scenario.toml: step 1 (post_rq): `wqe` = \"JUMP\" is not a work request; allowed: \"NOP\", \"SEND\", \"RECV\", \"WAIT_CQ\", \"WAIT_COUNTER\", \"SEND_EN\", \"RECV_EN\", \"CALC\" (or raw `w0` / `w1`)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"deliver\"\nqp = -1\nsrc = 0\nsrc_qp = 0\n"),
            "scenario.toml: step 1 (deliver): `qp` = -1 is out of range; allowed: 0..=255 (8 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"write_mem\"\naddr = 0\ndata = [1, \"0x1_0000_0000_0000_0000\"]\n"),
            "scenario.toml: step 1 (write_mem): `data[1]` = \"0x1_0000_0000_0000_0000\" is out of range; allowed: 64-bit words"
        );
        assert_eq!(
            msg("[[step]]\nop = \"write_mem\"\naddr = 0\ndata = [1.5]\n"),
            "scenario.toml: step 1 (write_mem): `data[0]` = 1.5 has the wrong type: expected an integer or a hex string like \"0x1f\""
        );
        let m = msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = \"AVG\"\ndtype = \"int64\"\ncount = 1\na = 0\nb = 0\ndst_addr = 0\n");
        assert!(
            m.starts_with("scenario.toml: step 1 (post_sq): `alu_op` = \"AVG\" is not a known name; allowed: \"MAX\", \"MIN\", \"MAXLOC\""),
            "{m}"
        );
        assert!(m.ends_with("or a number 0..=15"), "{m}");
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = 16\ndtype = 0\ncount = 1\na = 0\nb = 0\ndst_addr = 0\n"),
            "scenario.toml: step 1 (post_sq): `alu_op` = 16 is out of range; allowed: 0..=15 (4 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = 4\ndtype = 0\ncount = 1\na = 0\nb = 0\ndst_addr = 0\nto_peer = true\ndst = 1\n"),
            "scenario.toml: step 1 (post_sq): missing key `dst_qp` (required for a CALC with to_peer = true)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"read_stat\"\nstat = \"FOO\"\n"),
            "scenario.toml: step 1 (read_stat): `stat` = \"FOO\" is not a known name; allowed: \"HOST_BAD_OP\", \"HOST_BAD_INDEX\", \"WQ_FULL\", \"CQ_STALL\", \"ERROR_CQE\", \"RX_DISCARD\", \"NAK_RECEIVED\", \"CQ_OVERRUN\" or a number 0..=65535"
        );
        assert_eq!(
            msg("[[step]]\nop = \"deliver\"\nqp = 1\nsrc = 0\nsrc_qp = 0\nnak = true\ndata = [1, 2]\n"),
            "scenario.toml: step 1 (deliver): `data` has 2 words but a NAK carries at most one (its reason)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"run\"\nsignaled = true\n"),
            "scenario.toml: step 1 (run): unknown key `signaled`; allowed keys for op = \"run\": cycles"
        );
        assert_eq!(
            msg("[[step]]\nop = \"host\"\nhost_op = 16\n"),
            "scenario.toml: step 1 (host): `host_op` = 16 is out of range; allowed: 0..=15 (4 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nsignaled = true\n"),
            "scenario.toml: step 1 (post_sq): unknown key `signaled`; allowed keys for a raw WQE (no `wqe`): qp, w0, w1"
        );
    }

    #[test]
    fn file_level_errors() {
        assert_eq!(
            msg("[nic]\nqps = 5\n"),
            "scenario.toml: `nic.qps` = 5 is not supported; allowed values: 4, 16"
        );
        assert_eq!(
            msg("[nic]\nlanes = 5\n"),
            "scenario.toml: unknown key `nic.lanes`; allowed keys in [nic]: qps, cqs, counters, dmem_words"
        );
        assert_eq!(
            msg("steps = []\n"),
            "scenario.toml: unknown key `steps`; allowed at the top level: name, description, [nic], [[step]]"
        );
        assert_eq!(
            msg("name = 3\n"),
            "scenario.toml: `name` = 3 has the wrong type: expected a string"
        );
        assert_eq!(
            msg("step = [1]\n"),
            "scenario.toml: step 1: 1 is not a table; write steps as [[step]]"
        );
        assert!(msg("[[step]]\nop = = 1\n")
            .starts_with("scenario.toml: TOML syntax error at line 2, column "));
        let s = Scenario::from_toml_str("[nic]\nqps = 16\ndmem_words = 4096\n").expect("valid");
        assert_eq!(
            s.params,
            NicParams {
                qps: 16,
                dmem_words: 4096,
                ..NicParams::SMALL
            }
        );
        assert!(s.steps.is_empty());
        let e = Scenario::from_file("/nonexistent/x.toml").expect_err("missing");
        assert!(e
            .to_string()
            .starts_with("/nonexistent/x.toml: cannot read the file"));
    }

    #[test]
    fn odd_input_never_panics() {
        let values = [
            "1",
            "-1",
            "1.5",
            "true",
            "\"x\"",
            "\"0x\"",
            "\"0xg\"",
            "[]",
            "[[1]]",
            "{}",
            "{a = 1}",
            "\"-0x1\"",
            "9223372036854775807",
            "\"0xffffffffffffffffff\"",
        ];
        let keys = [
            "op", "qp", "wqe", "addr", "len", "data", "cycles", "cq", "stat", "alu_op", "dtype",
            "signaled", "nak", "counter", "w0", "value", "up_to", "to_peer",
        ];
        let ops = [
            "config_qp",
            "write_mem",
            "write_counter",
            "post_sq",
            "post_rq",
            "deliver",
            "run",
            "poll",
            "read_mem",
            "read_counter",
            "read_stat",
            "host",
        ];
        for op in ops {
            for key in keys {
                for v in values {
                    let text = format!("[[step]]\nop = \"{op}\"\n{key} = {v}\n");
                    // Ok or Err, but one line and no panic (a duplicate `op` is a syntax error).
                    if let Err(e) = Scenario::from_toml_str(&text) {
                        assert!(!e.to_string().contains('\n'), "{e}");
                    }
                    let text = format!(
                        "[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\n{key} = {v}\n"
                    );
                    let _ = Scenario::from_toml_str(&text);
                }
            }
        }
    }

    #[test]
    fn numbers_and_names() {
        let s = Scenario::from_toml_str(
            "[[step]]\nop = \"write_mem\"\naddr = \"0x10\"\ndata = [-1, \"0xFFFF_FFFF_FFFF_FFFF\", 9223372036854775807]\n\
             [[step]]\nop = \"read_stat\"\nstat = \"ErrorCqe\"\n\
             [[step]]\nop = \"post_sq\"\nqp = 1\nwqe = \"CALC\"\nalu_op = \"maxloc\"\ndtype = \"u32\"\ncount = 2\na = 1\nb = 2\ndst_addr = 3\nsignaled = false\n",
        )
        .expect("valid");
        let words: Vec<u64> = match &s.steps[0] {
            Step::Host { cmds, .. } => cmds.iter().map(|c| c.w0).collect(),
            st => panic!("{st:?}"),
        };
        assert_eq!(words, vec![u64::MAX, u64::MAX, 0x7FFF_FFFF_FFFF_FFFF]);
        assert_eq!(s.steps[1], Step::ReadStat { stat: 4 });
        // CALC: opcode 6, unsignaled, MAXLOC (2) at w0[11:8], uint32 (1) at w0[13:12],
        // count 2 at w0[31:16], a = 1 at w0[47:32], b = 2 at w0[63:48]; w1: sa = sb = 1 at
        // w1[39:32] and w1[47:40], dst 3 at w1[63:48].
        assert_eq!(
            s.steps[2],
            Step::Host {
                label: "post_sq",
                cmds: vec![HostCmd {
                    op: 1,
                    arg: 1,
                    w0: 0x0002_0001_0002_1206,
                    w1: 0x0003_0101_0000_0000,
                }]
            }
        );
    }
}
