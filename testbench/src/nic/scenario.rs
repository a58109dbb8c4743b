//! # Host-program scenarios
//!
//! A scenario is what a host program does with one NIC: configure queue pairs, write memory,
//! post work requests, let messages from peers arrive, let the NIC run, poll completions and
//! read results. The same scenario runs on the golden reference ([`run_golden`]) and on any
//! cycle-level design ([`NicSim`], [`run_cycles`]), and both give a list of [`Event`]s, printed
//! as JSON lines ([`Event::to_json`]). The runners also report each event as it happens to a
//! [`Sink`] ([`run_golden_with`], [`run_cycles_with`]), which is how `netcoll nic run` streams
//! them.
//!
//! What every block's scenario language shares (the file's top-level keys, number parsing,
//! one-line errors) is in [`crate::harness::scenario`].
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
//! `netcoll nic run --config netcoll.toml` replaces the `[nic]` table by the parameter file's
//! (the NIC `netcoll gen` emits for it); the parameters used are printed on standard error.
//!
//! Steps are numbered from 1 in file order and run one after another. Numbers are TOML
//! integers or hex strings `"0x…"` (underscores allowed; needed above `i64::MAX`). A value
//! must fit its field (the widths below); nothing is silently truncated. Negative integers
//! are only allowed in `data` arrays, where they mean the 64-bit two's complement (so `-1`
//! is both an `int64` and, in its low 32 bits, an `int32` minus one).
//!
//! | `op` | keys (default) | what it does |
//! |---|---|---|
//! | `config_qp` | `qp`, `sq_cq` (0), `rq_cq` (0), `sq_managed` (false), `rq_managed` (false), `cross_channel` (true; false: a plain QP, which refuses WAIT, SEND_EN, RECV_EN and CALC posts), `rc` (false; true: a reliable QP, whose messages are answered and whose RQ answers RNR NAK when not ready), `rnr_retry` (0; 0..7 retries after RNR NAKs per WQE, 7 for ever), `rnr_delay` (0; 16 bits, cycles before a retry) | `CONFIG_QP` |
//! | `write_mem` | `addr`, `data` = `[words]` | one `WRITE_MEM` per word, at `addr`, `addr + 1`, … |
//! | `write_counter` | `counter`, `value` (32 bits) | `WRITE_CNT` |
//! | `set_channel` | `counter`, `qp`, `addr`, `len` (the buffer), `armed` (true; false: disarms, and the other keys may be left out) | `SET_CHANNEL` (see "Receive channels") |
//! | `set_shape` | `shape` (1..7; 0 and 8.. are answered `BAD_INDEX`), dimension 1: `count1`, `sa1`, `sb1`, `sd1`, dimension 2: `count2`, `sa2`, `sb2`, `sd2` (each 0; 16 bits; `count` 0 = the dimension is absent, `sa`, `sb`, `sd` the strides of `a`, `b` and the result in words) | `SET_SHAPE` (see "Multi-dimensional arguments") |
//! | `post_sq`, `post_rq` | `qp` and a WQE (below) | `POST_SQ` / `POST_RQ` |
//! | `deliver` | `qp`, `src`, `src_qp`, `counter` (none), `tag` (0), `data` ([]), `nak` (false), `ack` (false; true: the data message asks for an answer, as a reliable QP's do) | a message from a peer arrives |
//! | `run` | `cycles` (1000) | cycle level: that many clock cycles; golden: run to quiescence |
//! | `poll` | `cq` | `POLL_CQ` until the CQ answers something else than OK |
//! | `read_mem` | `addr`, `len` (1) | `READ_MEM` of each word |
//! | `read_counter` | `counter` | `READ_CNT` |
//! | `read_stat` | `stat`: a name (`"ERROR_CQE"`, `"ErrorCqe"`, `"error_cqe"`) or a number | `READ_STAT` |
//! | `host` | `host_op` (4 bits), `arg` (16 bits), `w0` (0), `w1` (0) | any raw host command |
//!
//! Host-command indices (`qp` of `config_qp` / `post_*`, `counter` of `*_counter` and
//! `set_channel`, `shape` of `set_shape`, `cq` of `poll`, addresses) are 16-bit fields and
//! are *not* checked against the NIC's sizes: an out-of-range one is answered `BAD_INDEX` by
//! the NIC, which is how errors are tested.
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
//! | `"WAIT_CQ"` | `signaled`, `cq`, `count` (32 bits), `last` (true; false: more WAITs of its group follow and the CQ's wait index stays, mlx5's `IBV_EXP_SEND_WAIT_EN_LAST` clear) |
//! | `"WAIT_COUNTER"` | `signaled`, `counter`, `threshold` (32 bits) |
//! | `"SEND_EN"`, `"RECV_EN"` | `signaled`, `target_qp`, and either `value` (16 bits), `up_to` (false: move the enable index by `value`; true: enable up to WQE index `value`), or `count` (16 bits: enable `count` WQEs from the queue's enable head, 0 = everything posted, refused if the queue is not managed or has not posted that many, as libmlx5's `IBV_EXP_WR_SEND_ENABLE` / `RECV_ENABLE`) and `last` (true; false: more enables of its group follow and the head stays) |
//! | `"PIPE"` | `signaled`, `rq` (the receive QP), `base`, `blen` (words per buffer), `nbuf` (buffers), `count` (messages), `dst`, `dst_qp`, `counter` (none): forwards `count` messages arriving at QP `rq` through the buffers `base`, `base + blen`, … to `dst_qp` of node `dst` (see "Pipes" in `netcoll_models::nic`) |
//! | `"CALC"` | `signaled`, `alu_op` (`"SUM"`, `"MAXLOC"`, … or a number 0..15), `dtype` (`"int32"`, `"uint32"`, `"int64"`, `"uint64"`, `"f16"`, `"bf16"`, `"f32"` / `"float"`, `"f64"` / `"double"` or 0..7; the floating-point types need `[nic] fp = 1`), `count`, `a`, `sa` (1), `b`, `sb` (1), `dst_addr`, `to_peer` (false), `dst` (0; required if `to_peer`), `dst_qp` (0; required if `to_peer`), `counter` (none), `shape` (0: one-dimensional; 1..7: the shape `set_shape` set, whose two outer dimensions repeat the CALC, see "Multi-dimensional arguments" in `netcoll_models::nic`) |
//!
//! Widths: `addr`, `len`, `count` (CALC, enable, PIPE), `a`, `b`, `dst_addr`, `value` (enable),
//! `base`, `blen` 16 bits; `dst`, `dst_qp`, `counter`, `cq`, `target_qp`, `sa`, `sb`, `rq`,
//! `nbuf` 8 bits; `shape` (CALC) 3 bits.
//!
//! Every mistake is reported on one line naming the file, the line of the key, the step, its
//! `op`, the key, the value (escaped and cut) and what is allowed, e.g.
//! `send.toml: line 14: step 2 (post_sq): `addr` = 70000 is out of range; allowed: 0..=65535 (16 bits)`.
//! This format is unchanged since the first version, except that the line is new and that
//! echoed keys and values are escaped.
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
//!   `set_channel`, `set_shape`, `post_sq`, `post_rq` and `host` steps (`op` is the step's `op`), and the response that
//!   ends a `poll` (normally `EMPTY`).
//! - `cqe`: each CQE a `poll` popped, decoded (an unknown opcode shows as `"OP_9"`).
//! - `tx`: each message the NIC sent, in the order sent, after the event of the host command
//!   or the step during which its last beat was sent. A NAK has `"nak":true` and
//!   `data` = `[reason]` (an ACK is a NAK with reason 0, `OK`). A data message that asks for
//!   an answer has `"ack":true` after `tag` (the key is left out otherwise, so the lines of
//!   files without reliable QPs are unchanged).
//! - `mem`, `counter`, `stat`: the reads.
//!
//! The JSON text is `serde_json`'s for the [`Serialize`] derive of [`Event`] (the variant's
//! name as `event`, then the fields in declaration order), byte for byte what the first,
//! hand-written printer gave.
//!
//! ## Running at cycle level
//!
//! [`run_cycles`] drives a [`NicSim`] through the one clock convention of
//! `netcoll_models::kit::cycle`: `step(i)` applies this cycle's inputs, returns the outputs
//! during the cycle and applies the rising edge; `peek()` returns the outputs after the last
//! edge. The NIC's outputs are all registered, so the driver `peek`s the outputs of the coming
//! cycle, chooses that cycle's inputs from them and `step`s. A transfer happens in a cycle
//! where valid and ready are both high.
//!
//! 1. One cycle with `reset` high, then idle cycles until `host_ready` (the NIC clears its
//!    contexts after reset).
//! 2. A host command is presented until a cycle where `host_ready` is high (that cycle
//!    transfers it); then the driver idles until `host_rsp_valid` and records the response.
//! 3. A delivery presents the message's beats ([`netcoll_models::net::Message::beats`]:
//!    header on every beat, `rx_last` on the final one, `rx_empty` for an empty message),
//!    advancing a beat in each cycle where `rx_ready` is high; the step ends in the cycle its
//!    last beat transfers.
//! 4. `run` steps `cycles` idle cycles.
//! 5. Throughout, a beat the NIC shows on `tx_*` transfers in a cycle where the driver holds
//!    `tx_ready` high; beats are gathered into messages ending at `tx_last` by a
//!    [`netcoll_models::net::Reassembler`] (the header must not change within a message).
//! 6. After the last step, one cycle that transfers nothing (every valid and `tx_ready` low),
//!    so that a waveform of the run shows the outputs the last step ended on.
//!
//! The driver takes [`Knobs`] ([`run_cycles_with`]). With [`Knobs::OFF`] — what
//! [`run_cycles`] and `netcoll nic run` use — it never idles and `tx_ready` is always high, so
//! the events are a function of the scenario alone. Otherwise it inserts random idle cycles
//! before each host command and before each beat it delivers (so `rx_valid` may drop within a
//! message), and holds `tx_ready` low in random cycles: every valid/ready path of the NIC runs.
//! [`DriverStats`] counts what happened (e.g. the cycles a beat was held by `tx_ready`).
//!
//! Every wait is bounded by [`WAIT_BOUND`] cycles; exceeding it is an error naming the step.
//!
//! ## Comparing levels
//!
//! [`compare_events`] requires identical lists: the cycle model, the rust-hdl RTL and the
//! Verilog must print exactly the same events for a scenario run with the same knobs. The
//! golden has no timing, so golden and cycle level are compared after [`normalise`]
//! ([`compare_normalised`]); see [`Normalised`] for what is kept and why. Runs with different
//! knobs are compared the same way (the knobs change timing, not what the program computes,
//! for a race-free scenario).

use crate::harness::knobs::{Dice, Knobs};
pub use crate::harness::scenario::ScenarioError;
use crate::harness::scenario::{compare_lists, read_text, Doc, StepReader, DEFAULT_FILE_NAME};
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::kit::ports::mask;
use netcoll_models::net::Reassembler;
use netcoll_models::nic::golden::NicGolden;
use netcoll_models::nic::{
    Cqe, HostOp, HostStatus, Message, NicIn, NicOut, NicParams, Opcode, QpConfig, RxChannel,
    ShapeDim, Status, Wqe,
};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// Bound on every wait of the cycle-level driver, in clock cycles.
pub const WAIT_BOUND: u64 = 100_000;
/// Cycles of a `run` step without `cycles`.
pub const DEFAULT_RUN_CYCLES: u64 = 1000;
/// Bound on the CQEs one `poll` step pops.
pub const POLL_BOUND: usize = 1000;

/// Names of the statistics counters, in `Stat` order (as `read_stat` accepts them and `stat`
/// events show them).
pub fn stat_names() -> Vec<&'static str> {
    netcoll_models::nic::Stat::ALL
        .iter()
        .map(|s| s.name())
        .collect()
}

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
    /// `set_channel`, `set_shape`, `post_sq`, `post_rq`, `host`); `label` is the step's `op`.
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scenario {
    /// The file it was read from (or [`DEFAULT_FILE_NAME`]), for messages.
    pub file: String,
    pub name: String,
    pub description: String,
    pub params: NicParams,
    pub steps: Vec<Step>,
    /// The line of each step's `[[step]]` header, for messages about running it (empty for a
    /// scenario not read from a file).
    pub lines: Vec<Option<usize>>,
}

/// The `op` values of steps.
const STEP_OPS: &[&str] = &[
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
    "set_channel",
    "set_shape",
    "host",
];

/// The `wqe` names and their fields (besides `op`, `qp`, `wqe`).
const WQE_KINDS: [(&str, &[&str]); 9] = [
    ("NOP", &["signaled"]),
    (
        "SEND",
        &["signaled", "addr", "len", "dst", "dst_qp", "counter"],
    ),
    ("RECV", &["signaled", "addr", "len"]),
    ("WAIT_CQ", &["signaled", "cq", "count", "last"]),
    ("WAIT_COUNTER", &["signaled", "counter", "threshold"]),
    (
        "SEND_EN",
        &["signaled", "target_qp", "value", "up_to", "count", "last"],
    ),
    (
        "RECV_EN",
        &["signaled", "target_qp", "value", "up_to", "count", "last"],
    ),
    (
        "CALC",
        &[
            "signaled", "alu_op", "dtype", "count", "a", "sa", "b", "sb", "dst_addr", "to_peer",
            "dst", "dst_qp", "counter", "shape",
        ],
    ),
    (
        "PIPE",
        &[
            "signaled", "rq", "base", "blen", "nbuf", "count", "dst", "dst_qp", "counter",
        ],
    ),
];

impl Scenario {
    /// Parses scenario text; errors name [`DEFAULT_FILE_NAME`].
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, DEFAULT_FILE_NAME)
    }

    /// Reads and parses a scenario file; errors name `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses scenario text; errors name `file`.
    pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        let doc = Doc::parse(text, file, STEP_OPS)?;
        let mut params = NicParams::SMALL;
        let header = doc.header(&mut params)?;
        let readers = doc.steps(STEP_OPS)?;
        let mut steps = Vec::with_capacity(readers.len());
        for r in &readers {
            steps.push(parse_step(r)?);
        }
        Ok(Scenario {
            file: file.to_string(),
            name: header.name,
            description: header.description,
            params,
            steps,
            lines: step_lines(text, readers.len()),
        })
    }

    /// The line of step `index`'s header (0-based), if known.
    fn line(&self, index: usize) -> Option<usize> {
        self.lines.get(index).copied().flatten()
    }
}

/// The lines of the `[[step]]` headers, if there are exactly `n` (steps may also be written
/// as an inline array, which has none).
fn step_lines(text: &str, n: usize) -> Vec<Option<usize>> {
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim();
            l.strip_prefix("[[")
                .and_then(|r| r.split_once("]]"))
                .is_some_and(|(t, _)| t.trim() == "step")
        })
        .map(|(k, _)| k + 1)
        .collect();
    if found.len() == n {
        found.into_iter().map(Some).collect()
    } else {
        vec![None; n]
    }
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

fn parse_step(r: &StepReader) -> Result<Step, ScenarioError> {
    let label = r.op;
    let for_op = format!("for op = \"{label}\"");
    match label {
        "config_qp" => {
            r.only(
                &[
                    "qp",
                    "sq_cq",
                    "rq_cq",
                    "sq_managed",
                    "rq_managed",
                    "cross_channel",
                    "rc",
                    "rnr_retry",
                    "rnr_delay",
                ],
                &for_op,
            )?;
            let qp = r.uint("qp", 16, "")?;
            let sq_cq = r.opt_uint("sq_cq", 8)?.unwrap_or(0);
            let rq_cq = r.opt_uint("rq_cq", 8)?.unwrap_or(0);
            let w0 = QpConfig {
                sq_cq,
                rq_cq,
                sq_managed: r.flag("sq_managed", false)? as u64,
                rq_managed: r.flag("rq_managed", false)? as u64,
                plain: !r.flag("cross_channel", true)? as u64,
                rc: r.flag("rc", false)? as u64,
                rnr_retry: r.opt_uint("rnr_retry", 3)?.unwrap_or(0),
                rnr_delay: r.opt_uint("rnr_delay", 16)?.unwrap_or(0),
            }
            .pack()[0];
            Ok(host(label, HostOp::ConfigQp, qp, w0, 0))
        }
        "write_mem" => {
            r.only(&["addr", "data"], &for_op)?;
            let addr = r.uint("addr", 16, "")?;
            let data = r.words("data")?.ok_or_else(|| r.missing("data", ""))?;
            if data.is_empty() {
                return Err(r.error(
                    "data",
                    "`data` = [] is empty; give at least one word".to_string(),
                ));
            }
            if addr + data.len() as u64 - 1 > mask(16) {
                return Err(r.error(
                    "addr",
                    format!(
                        "`addr` + {} words goes past 65535, the last host address",
                        data.len()
                    ),
                ));
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
        "set_channel" => {
            r.only(&["counter", "qp", "addr", "len", "armed"], &for_op)?;
            let c = r.uint("counter", 16, "")?;
            let armed = r.flag("armed", true)?;
            // An armed channel needs its buffer and QP; a disarmed one may leave them out.
            let field = |key: &str, bits: usize| match r.opt_uint(key, bits)? {
                Some(v) => Ok(v),
                None if armed => Err(r.missing(key, " (or `armed = false`)")),
                None => Ok(0),
            };
            let w0 = RxChannel {
                addr: field("addr", 16)?,
                len: field("len", 16)?,
                qp: field("qp", 8)?,
                armed: armed as u64,
            }
            .pack()[0];
            Ok(host(label, HostOp::SetChannel, c, w0, 0))
        }
        "set_shape" => {
            r.only(
                &[
                    "shape", "count1", "sa1", "sb1", "sd1", "count2", "sa2", "sb2", "sd2",
                ],
                &for_op,
            )?;
            let shape = r.uint("shape", 16, "")?;
            // Dimension `k`'s word; a key left out is 0 (a count of 0: the dimension is absent).
            let dim = |k: usize| -> Result<u64, ScenarioError> {
                let field = |name: &str| r.opt_uint(&format!("{name}{k}"), 16);
                Ok(ShapeDim {
                    count: field("count")?.unwrap_or(0),
                    sa: field("sa")?.unwrap_or(0),
                    sb: field("sb")?.unwrap_or(0),
                    sd: field("sd")?.unwrap_or(0),
                }
                .pack()[0])
            };
            Ok(host(label, HostOp::SetShape, shape, dim(1)?, dim(2)?))
        }
        "post_sq" | "post_rq" => {
            let qp_op = if label == "post_sq" {
                HostOp::PostSq
            } else {
                HostOp::PostRq
            };
            let (w0, w1) = parse_wqe(r)?;
            let qp = r.uint("qp", 16, "")?;
            Ok(host(label, qp_op, qp, w0, w1))
        }
        "deliver" => {
            r.only(
                &[
                    "qp", "src", "src_qp", "counter", "tag", "data", "nak", "ack",
                ],
                &for_op,
            )?;
            let qp = r.uint("qp", 8, "")?;
            let src = r.uint("src", 8, "")?;
            let src_qp = r.uint("src_qp", 8, "")?;
            let cnt = r.opt_uint("counter", 8)?;
            let tag = r.opt_uint("tag", 16)?.unwrap_or(0);
            let data = r.words("data")?.unwrap_or_default();
            let nak = r.flag("nak", false)?;
            let ack = r.flag("ack", false)?;
            if nak && ack {
                return Err(r.error(
                    "ack",
                    "`ack` = true asks a NAK for an answer; only a data message (`nak` = false) \
                     may ask"
                        .to_string(),
                ));
            }
            if nak && data.len() > 1 {
                return Err(r.error(
                    "data",
                    format!(
                        "`data` has {} words but a NAK carries at most one (its reason)",
                        data.len()
                    ),
                ));
            }
            Ok(Step::Deliver(Message {
                kind_nak: nak,
                node: src,
                src_qp,
                qp,
                cnt,
                tag,
                ack,
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
                return Err(r.error(
                    "len",
                    format!(
                        "`len` = {len} must be at least 1 and `addr` + `len` - 1 at most 65535"
                    ),
                ));
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
            let names: Vec<(&str, u64)> = stat_names()
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
        if !r.has("w0") {
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
        return Err(r.error(
            "wqe",
            format!(
                "`wqe` = {} is not a work request; allowed: {kinds} (or raw `w0` / `w1`)",
                netcoll_models::kit::toml_text::shown(&toml::Value::String(kind.to_string()))
            ),
        ));
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
        "WAIT_CQ" => Wqe {
            more: !r.flag("last", true)?,
            ..Wqe::wait_cq(r.uint("cq", 8, &why)?, r.uint("count", 32, &why)?, signaled)
        },
        "WAIT_COUNTER" => Wqe::wait_counter(
            r.uint("counter", 8, &why)?,
            r.uint("threshold", 32, &why)?,
            signaled,
        ),
        "SEND_EN" | "RECV_EN" if r.has("count") => {
            // libmlx5's enable, counted from the queue's enable head.
            for key in ["value", "up_to"] {
                if r.has(key) {
                    return Err(r.error(
                        key,
                        format!(
                            "`{key}` cannot go with `count`: `count` enables WQEs counted from \
                             the queue's enable head (libmlx5's), `value` / `up_to` move the \
                             enable index directly; allowed: one of the two forms"
                        ),
                    ));
                }
            }
            Wqe {
                more: !r.flag("last", true)?,
                ..Wqe::enable_posted(
                    *kind == "RECV_EN",
                    r.uint("target_qp", 8, &why)?,
                    r.uint("count", 16, &why)?,
                    signaled,
                )
            }
        }
        "SEND_EN" | "RECV_EN" => {
            if r.has("last") {
                return Err(r.error(
                    "last",
                    "`last` goes with `count` (an enable counted from the queue's enable \
                     head); allowed: `last` with `count`, or `value` / `up_to` without `last`"
                        .to_string(),
                ));
            }
            Wqe::enable(
                *kind == "RECV_EN",
                r.uint("target_qp", 8, &why)?,
                r.flag("up_to", false)?,
                r.uint(
                    "value",
                    16,
                    &format!(" (required for wqe = \"{kind}\", unless `count` is given)"),
                )?,
                signaled,
            )
        }
        "PIPE" => Wqe {
            signaled,
            ..Wqe::pipe(
                r.uint("rq", 8, &why)?,
                (
                    r.uint("base", 16, &why)?,
                    r.uint("blen", 16, &why)?,
                    r.uint("nbuf", 8, &why)?,
                ),
                r.uint("count", 16, &why)?,
                r.uint("dst", 8, &why)?,
                r.uint("dst_qp", 8, &why)?,
                r.opt_uint("counter", 8)?,
            )
        },
        _ => {
            // CALC
            let ops: Vec<(&str, u64)> = AluOp::ALL.iter().map(|o| (o.name(), o.code())).collect();
            let dtypes: [(&str, u64); 14] = [
                ("int32", Dtype::I32 as u64),
                ("uint32", Dtype::U32 as u64),
                ("int64", Dtype::I64 as u64),
                ("uint64", Dtype::U64 as u64),
                ("i32", Dtype::I32 as u64),
                ("u32", Dtype::U32 as u64),
                ("i64", Dtype::I64 as u64),
                ("u64", Dtype::U64 as u64),
                ("f16", Dtype::F16 as u64),
                ("bf16", Dtype::Bf16 as u64),
                ("f32", Dtype::F32 as u64),
                ("f64", Dtype::F64 as u64),
                ("float", Dtype::F32 as u64),
                ("double", Dtype::F64 as u64),
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
                dtype: r.named("dtype", &dtypes, 3, &why)?,
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
                // The shape (`calc_shape`): 0 is the one-dimensional CALC.
                index: r.opt_uint("shape", 3)?.unwrap_or(0),
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
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        ack: bool,
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

impl Event {
    /// The event as one line of compact JSON, keys in declaration order (`event` first).
    pub fn to_json(&self) -> String {
        // Serialising plain strings, integers, booleans and vectors cannot fail.
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
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

/// A host response status's name (`HOST_STATUS_<code>` for an unknown one).
pub fn host_status_name(c: u64) -> String {
    HostStatus::from_code(c).map_or_else(|| format!("HOST_STATUS_{c}"), |s| s.name().to_string())
}

/// A completion status's name (`STATUS_<code>` for an unknown one).
pub fn status_name(c: u64) -> String {
    Status::from_code(c).map_or_else(|| format!("STATUS_{c}"), |s| s.name().to_string())
}

fn opcode_name(c: u64) -> String {
    Opcode::from_code(c).map_or_else(|| format!("OP_{c}"), |o| o.name().to_string())
}

fn stat_name(c: u64) -> String {
    stat_names()
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
        ack: m.ack,
        data: m.data.clone(),
    }
}

// -------------------------------------------------------------------------------------------
// Running
// -------------------------------------------------------------------------------------------

/// A NIC at a cycle level (see the [timing convention](self#running-at-cycle-level)).
pub type NicSim<'a> = &'a mut dyn CycleSim<In = NicIn, Out = NicOut>;

/// Receives each event as soon as it happens; returns false to stop the run (the runner then
/// returns the events so far).
pub type Sink<'a> = &'a mut dyn FnMut(&Event) -> bool;

/// What [`execute`] needs of a level. Errors are messages, placed in a step by the caller.
trait Level {
    fn host(&mut self, c: HostCmd) -> Result<(u64, u64), String>;
    fn deliver(&mut self, m: &Message) -> Result<(), String>;
    fn run(&mut self, cycles: u64) -> Result<(), String>;
    fn take_sent(&mut self) -> Vec<Message>;
    /// Checks the end state (e.g. no message half sent).
    fn finish(&mut self) -> Result<(), String>;
}

/// Collects events and hands each to the sink.
struct Emitter<'a, 'b> {
    events: Vec<Event>,
    sink: Option<&'a mut Sink<'b>>,
    stopped: bool,
}

impl Emitter<'_, '_> {
    fn emit(&mut self, e: Event) {
        if self.stopped {
            return;
        }
        if let Some(s) = self.sink.as_mut() {
            if !s(&e) {
                self.stopped = true;
            }
        }
        self.events.push(e);
    }

    fn sent(&mut self, step: usize, level: &mut dyn Level) {
        for m in level.take_sent() {
            self.emit(tx_event(step, &m));
        }
    }
}

/// Runs the steps on a level, producing the events (also handed to `sink` as they happen).
fn execute(
    s: &Scenario,
    level: &mut dyn Level,
    mut sink: Option<Sink>,
) -> Result<(Vec<Event>, bool), ScenarioError> {
    let mut em = Emitter {
        events: vec![],
        sink: sink.as_mut(),
        stopped: false,
    };
    for (i, step) in s.steps.iter().enumerate() {
        if em.stopped {
            return Ok((em.events, true));
        }
        let n = i + 1;
        let err =
            |message: String| ScenarioError::run(&s.file, s.line(i), n, step.op_name(), message);
        // Runs one host command; its event, then what was sent meanwhile.
        let cmd = |em: &mut Emitter,
                   level: &mut dyn Level,
                   c: HostCmd,
                   make: &dyn Fn(u64, u64) -> Event|
         -> Result<(u64, u64), ScenarioError> {
            let (status, data) = level.host(c).map_err(err)?;
            em.emit(make(status, data));
            em.sent(n, level);
            Ok((status, data))
        };
        match step {
            Step::Host { label, cmds } => {
                for &c in cmds {
                    cmd(&mut em, level, c, &|status, data| Event::Host {
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
                    let (status, _) = cmd(&mut em, level, c, &|status, data| {
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
                    if status != HostStatus::Ok as u64 || em.stopped {
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
                    cmd(&mut em, level, c, &|status, value| Event::Mem {
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
                cmd(&mut em, level, c, &|status, value| Event::Counter {
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
                cmd(&mut em, level, c, &|status, value| Event::Stat {
                    step: n,
                    stat: stat_name(*stat),
                    status: host_status_name(status),
                    value,
                })?;
            }
        }
        em.sent(n, level);
    }
    if em.stopped {
        return Ok((em.events, true));
    }
    let last = s.steps.len().saturating_sub(1);
    level.finish().map_err(|message| {
        ScenarioError::run(
            &s.file,
            s.line(last),
            s.steps.len(),
            s.steps.last().map_or("", |st| st.op_name()),
            message,
        )
    })?;
    Ok((em.events, false))
}

impl Level for NicGolden {
    fn host(&mut self, c: HostCmd) -> Result<(u64, u64), String> {
        Ok(NicGolden::host(self, c.op, c.arg, c.w0, c.w1))
    }
    fn deliver(&mut self, m: &Message) -> Result<(), String> {
        NicGolden::deliver(self, m);
        Ok(())
    }
    fn run(&mut self, _cycles: u64) -> Result<(), String> {
        NicGolden::run(self);
        Ok(())
    }
    fn take_sent(&mut self) -> Vec<Message> {
        NicGolden::take_sent(self)
    }
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// Runs a scenario on the golden reference (`run` steps run it to quiescence).
pub fn run_golden(s: &Scenario) -> Result<Vec<Event>, ScenarioError> {
    run_golden_with(s, None)
}

/// [`run_golden`], handing each event to `sink` as it happens.
pub fn run_golden_with(s: &Scenario, sink: Option<Sink>) -> Result<Vec<Event>, ScenarioError> {
    execute(s, &mut NicGolden::new(s.params), sink).map(|(events, _)| events)
}

/// What the cycle-level driver did, for tests that must show a path was exercised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverStats {
    /// Clock cycles, the reset cycle included.
    pub cycles: u64,
    /// Beats taken from `tx_*` (`tx_valid && tx_ready`).
    pub tx_beats: u64,
    /// Cycles with `tx_valid` high and `tx_ready` held low by the driver.
    pub tx_held: u64,
    /// Beats delivered on `rx_*` (`rx_valid && rx_ready`).
    pub rx_beats: u64,
    /// Cycles with `rx_valid` high and `rx_ready` low.
    pub rx_refused: u64,
    /// Host commands offered while `host_ready` was low (cycles).
    pub host_refused: u64,
    /// Idle cycles inserted by the knobs before transactions.
    pub gap_cycles: u64,
}

/// A cycle-level run: the events and what the driver did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleRun {
    pub events: Vec<Event>,
    pub stats: DriverStats,
}

/// The cycle-level driver.
struct Driver<'a> {
    dut: NicSim<'a>,
    /// The design's name, for messages.
    name: String,
    /// The outputs visible during the current cycle.
    out: NicOut,
    /// Collects the beats of `tx_*` into messages.
    tx: Reassembler,
    sent: Vec<Message>,
    dice: Dice,
    stats: DriverStats,
}

impl Driver<'_> {
    /// One clock cycle with inputs `i` (plus `tx_ready`, chosen by the knobs), taking the tx
    /// beat shown if `tx_ready` is high.
    fn cycle(&mut self, mut i: NicIn) -> Result<(), String> {
        i.tx_ready = self.dice.ready();
        if let Some(b) = self.out.tx_beat() {
            if i.tx_ready {
                self.stats.tx_beats += 1;
                match self.tx.push(&b) {
                    Ok(Some(m)) => self.sent.push(m),
                    Ok(None) => {}
                    Err(e) => return Err(format!("{}: tx: {e}", self.name)),
                }
            } else {
                self.stats.tx_held += 1;
            }
        }
        if i.rx_valid {
            if self.out.rx_ready {
                self.stats.rx_beats += 1;
            } else {
                self.stats.rx_refused += 1;
            }
        }
        if i.host_valid && !self.out.host_ready {
            self.stats.host_refused += 1;
        }
        self.dut.step(&i);
        self.out = self.dut.peek();
        self.stats.cycles += 1;
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
                    self.name
                ));
            }
            self.cycle(Self::idle())?;
            n += 1;
        }
        Ok(())
    }

    /// After the knobs' idle gap, presents `i` until a cycle where `ready(outputs)` is high
    /// (that cycle transfers it).
    fn transfer(
        &mut self,
        what: &str,
        i: NicIn,
        ready: impl Fn(&NicOut) -> bool,
    ) -> Result<(), String> {
        for _ in 0..self.dice.gap() {
            self.stats.gap_cycles += 1;
            self.cycle(Self::idle())?;
        }
        for _ in 0..=WAIT_BOUND {
            let go = ready(&self.out);
            self.cycle(i)?;
            if go {
                return Ok(());
            }
        }
        Err(format!(
            "{}: {what} not accepted within {WAIT_BOUND} cycles",
            self.name
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
        for (k, b) in m.beats().iter().enumerate() {
            let i = NicIn::default().with_rx(b);
            self.transfer(&format!("rx beat {k} (rx_ready low)"), i, |o| o.rx_ready)?;
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
        match self.tx.pending() {
            0 => Ok(()),
            n => Err(format!(
                "{}: the scenario ended while a message was being sent ({n} beats so far); add a run step",
                self.name
            )),
        }
    }
}

/// Runs a scenario on a cycle-level design with [`Knobs::OFF`] (see the
/// [module docs](self#running-at-cycle-level)).
pub fn run_cycles(s: &Scenario, dut: NicSim, name: &str) -> Result<Vec<Event>, ScenarioError> {
    run_cycles_with(s, dut, name, Knobs::OFF, None).map(|r| r.events)
}

/// Runs a scenario on a cycle-level design with `knobs`, handing each event to `sink` as it
/// happens; `name` names the design in messages.
pub fn run_cycles_with(
    s: &Scenario,
    dut: NicSim,
    name: &str,
    knobs: Knobs,
    sink: Option<Sink>,
) -> Result<CycleRun, ScenarioError> {
    dut.step(&NicIn {
        reset: true,
        tx_ready: true,
        ..Default::default()
    });
    let out = dut.peek();
    let mut d = Driver {
        dut,
        name: name.to_string(),
        out,
        tx: Reassembler::default(),
        sent: vec![],
        dice: knobs.dice(),
        stats: DriverStats {
            cycles: 1,
            ..Default::default()
        },
    };
    d.wait_for("host_ready after reset", |o| o.host_ready)
        .map_err(|message| ScenarioError::run(&s.file, None, 0, "reset", message))?;
    let (events, stopped) = execute(s, &mut d, sink)?;
    if !stopped {
        // One last cycle that transfers nothing, so that a waveform shows the outputs the
        // last step ended on (e.g. the final host response).
        d.dut.step(&NicIn::default());
        d.stats.cycles += 1;
    }
    Ok(CycleRun {
        events,
        stats: d.stats,
    })
}

// -------------------------------------------------------------------------------------------
// Comparing
// -------------------------------------------------------------------------------------------

/// Checks that two event lists are identical; otherwise describes the first difference.
pub fn compare_events(expected: &[Event], actual: &[Event]) -> Result<(), String> {
    compare_lists("events", expected, actual)
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
            } if stat == stat_names()[netcoll_models::nic::Stat::CqStall as usize] => {
                n.reads.push(Event::Stat {
                    step: *step,
                    stat: stat.clone(),
                    status: status.clone(),
                    value: 0,
                })
            }
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
    use super::*;
    use netcoll_models::nic::model::NicModel;
    use std::path::PathBuf;

    /// The example scenarios, by file name.
    const EXAMPLES: [&str; 18] = [
        "nop.toml",
        "send.toml",
        "recv.toml",
        "wait_cq.toml",
        "wait_counter.toml",
        "wait_group.toml",
        "send_en.toml",
        "recv_en.toml",
        "enable_group.toml",
        "calc.toml",
        "calc_fp.toml",
        "calc_fp_types.toml",
        "shapes.toml",
        "reduce_tree.toml",
        "repro.toml",
        "pipeline.toml",
        "pipe.toml",
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
        // Every example runs on the small NIC, `calc_fp.toml` with the floating-point types,
        // `calc_fp_types.toml` with three of them.
        for name in EXAMPLES {
            let p = example(name).params;
            let fp_types = if name == "calc_fp_types.toml" {
                0b0111
            } else {
                0b1111
            };
            assert_eq!(
                NicParams {
                    fp: 0,
                    fp_types: 0b1111,
                    ..p
                },
                NicParams::SMALL,
                "{name}"
            );
            assert_eq!(p.fp == 1, name.starts_with("calc_fp"), "{name}");
            assert_eq!(p.fp_types, fp_types, "{name}");
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

    /// Expected values by hand (see the scenario's comments): each element reads what the
    /// elements before it wrote.
    #[test]
    fn calc_overlap_example_results() {
        let ev = run_golden(&example("calc_overlap.toml")).expect("runs");
        let mut want: Vec<(u64, u64)> = (0..8).map(|i| (16 + i, 11 * (i + 1))).collect();
        want.extend([(101, 6), (102, 8), (103, 11), (104, 15)]);
        want.extend([(131, 8), (132, 9), (133, 10), (134, 11)]);
        want.extend([(140, 101), (141, 102), (142, 103), (143, 107), (144, 108)]);
        want.extend([(200, 6), (201, 7), (202, 7), (203, 1)]);
        assert_eq!(mem_reads(&ev), want);
        let statuses: Vec<&str> = cqes(&ev).iter().map(|c| c.1).collect();
        assert_eq!(statuses, vec!["OK"; 5]);
    }

    /// Expected values by hand (see the scenario's comments): a 2-D sub-block, a row fold, a
    /// 3-D MAXLOC whose gapped span is sent, a result beyond memory, shape 0 left alone.
    #[test]
    fn shapes_example_results() {
        let ev = run_golden(&example("shapes.toml")).expect("runs");
        let shape_rsp: Vec<&str> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Host { op, status, .. } if op == "set_shape" => Some(status.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            shape_rsp,
            ["OK", "OK", "OK", "OK", "BAD_INDEX", "BAD_INDEX"]
        );
        let m4 = (-4i64) as u64;
        let span = vec![
            5, 2, 9, 1, 0xEE, m4, 2, 6, 1, 0xEE, 0xEE, 3, 1, 9, 1, 0xEE, 8, 2, 7, 2,
        ];
        let mut want: Vec<(u64, u64)> = [111, 212, 313, 7, 421, 522, 623, 7]
            .into_iter()
            .zip(384..)
            .map(|(v, a)| (a, v))
            .collect();
        want.extend([(420, 1111), (421, 2222), (422, 3333), (423, 4444)]);
        want.extend(span.iter().zip(512..).map(|(&v, a)| (a, v)));
        want.extend([(540, 0), (541, 0), (560, 11), (561, 0)]);
        assert_eq!(mem_reads(&ev), want);
        assert_eq!(tx_data(&ev), vec![(9, 3, 0, Some(4), 2, span)]);
        let calc = |status, index| (0, status, "CALC", 0, false, index, 0);
        assert_eq!(
            cqes(&ev),
            vec![
                calc("OK", 0),
                calc("OK", 1),
                calc("OK", 2),
                calc("BAD_ADDR", 3),
                calc("OK", 4)
            ]
        );
        let stats: Vec<(&str, u64)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Stat { stat, value, .. } => Some((stat.as_str(), *value)),
                _ => None,
            })
            .collect();
        assert_eq!(stats, [("HOST_BAD_INDEX", 2), ("ERROR_CQE", 1)]);
    }

    /// Expected values by hand from IEEE 754; the f64 CALC refused without writing.
    #[test]
    fn calc_fp_types_example_results() {
        let ev = run_golden(&example("calc_fp_types.toml")).expect("runs");
        assert_eq!(
            mem_reads(&ev),
            vec![
                (48, 0x4070_0000), // f32 1.5 + 2.25 = 3.75
                (49, 0x4010_0000), // 2.0 + 0.25 = 2.25
                (56, 0xBFC0),      // bf16 3.0 × -0.5 = -1.5
                (26, 7),           // f64 refused: untouched
            ]
        );
        let statuses: Vec<&str> = cqes(&ev).iter().map(|c| c.1).collect();
        assert_eq!(statuses, vec!["OK", "OK", "BAD_ARG"]);
    }

    /// Expected values by hand from IEEE 754 (see the scenario's comments).
    #[test]
    fn calc_fp_example_results() {
        let ev = run_golden(&example("calc_fp.toml")).expect("runs");
        assert_eq!(
            mem_reads(&ev),
            vec![
                (48, 0x4070_0000),           // f32 1.5 + 2.25 = 3.75
                (49, 0x7F80_0000),           // max + max = +inf
                (50, 0),                     // min subnormal - min subnormal = +0
                (56, 0x3FF8_0000_0000_0000), // f64 3 × 0.5 = 1.5
                (57, 0x7FF8_0000_0000_0000), // inf × 0: the canonical NaN
                (80, 0x3F80),                // bf16 MAXLOC: 1.0 on a tie, lower index
                (81, 2),
                (82, 0xC000), // a NaN loses to -2.0
                (83, 7),
                (96, 0x8000), // f16 MIN(+0, -0) = -0
                (97, 0x3C00), // MIN(1, 1 + ulp) = 1
            ]
        );
        assert_eq!(
            tx_data(&ev),
            vec![(9, 3, 0, None, 2, vec![0x3F80, 2, 0xC000, 7])]
        );
        let statuses: Vec<&str> = cqes(&ev).iter().map(|c| c.1).collect();
        assert_eq!(statuses, vec!["OK", "OK", "OK", "OK", "BAD_ARG"]);
    }

    /// The WAIT group and the plain QP of `wait_group.toml`, worked out by hand (see its
    /// comments): which WAIT completes after which message, and what the plain QP refused.
    #[test]
    fn wait_group_example_results() {
        let ev = run_golden(&example("wait_group.toml")).expect("runs");
        let lines: Vec<String> = ev.iter().map(|e| e.to_json()).collect();
        let refused = lines
            .iter()
            .filter(|l| l.contains("\"status\":\"REFUSED\""))
            .count();
        assert_eq!(refused, 2, "the plain QP's WAIT and CALC");
        assert!(lines
            .iter()
            .any(|l| l.contains("\"stat\":\"HOST_REFUSED\"") && l.contains("\"value\":2")));
        // (cq, status, opcode, qp, recv, index, len) in the order polled.
        let sq: Vec<_> = cqes(&ev).into_iter().filter(|c| c.0 == 0).collect();
        assert_eq!(
            sq,
            vec![
                (0, "OK", "NOP", 3, false, 0, 0),  // runs at once
                (0, "OK", "WAIT", 2, false, 0, 0), // 1st message: target 1
                (0, "OK", "NOP", 2, false, 1, 0),
                (0, "OK", "WAIT", 0, false, 0, 0), // 2nd message: target 2
                (0, "OK", "SEND", 0, false, 1, 0),
                (0, "OK", "WAIT", 0, false, 2, 0), // 3rd message: target 2 + 1
            ]
        );
        assert_eq!(tx_data(&ev), vec![(8, 0, 0, None, 1, vec![111, 222])]);
    }

    /// The enable group and the refusals of `enable_group.toml`, worked out by hand (see its
    /// comments): which NOPs each enable releases, what is refused.
    #[test]
    fn enable_group_example_results() {
        let ev = run_golden(&example("enable_group.toml")).expect("runs");
        let statuses: Vec<String> = ev
            .iter()
            .map(|e| e.to_json())
            .filter(|l| l.contains("\"op\":\"post_sq\""))
            .map(|l| {
                l.split("\"status\":\"")
                    .nth(1)
                    .unwrap_or("")
                    .split('"')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        // Four NOPs on QP 1 and six enables on QP 0; the 4th and 5th enables refused.
        assert_eq!(
            statuses,
            ["OK", "OK", "OK", "OK", "OK", "OK", "REFUSED", "REFUSED", "OK", "OK", "OK"]
        );
        let nop = |i| (1, "OK", "NOP", 1, false, i, 0);
        assert_eq!(
            cqes(&ev),
            vec![
                nop(0), // the group: up to WQE 1
                nop(1),
                nop(2), // 1 from head 2
                nop(3), // count 0: everything posted
                (2, "OK", "RECV", 2, true, 0, 1),
                (0, "OK", "SEND_EN", 0, false, 2, 0),
                (0, "OK", "SEND_EN", 0, false, 3, 0),
                (0, "OK", "RECV_EN", 0, false, 4, 0),
            ]
        );
        assert!(ev
            .iter()
            .map(|e| e.to_json())
            .any(|l| l.contains("\"stat\":\"HOST_REFUSED\"") && l.contains("\"value\":2")));
        assert!(ev
            .iter()
            .map(|e| e.to_json())
            .any(|l| l.contains("\"event\":\"mem\"") && l.contains("\"value\":119")));
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
                ack: false,
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
    fn pipe_example_results() {
        // Expected by hand from the comments of `pipe.toml` and the rules of "Pipes".
        let ev = run_golden(&example("pipe.toml")).expect("runs");
        assert_eq!(
            tx_data(&ev),
            vec![
                (7, 0, 2, Some(5), 0, vec![1, 2, 3, 4]),
                (7, 0, 2, Some(5), 0, vec![5, 6, 7, 8]),
                (7, 0, 2, Some(5), 0, vec![9, 10, 11, 12]),
                // The last chunk with the 3 words it brought.
                (7, 0, 2, Some(5), 0, vec![13, 14, 15]),
                // A short chunk goes with its buffer's length: 77 was there before.
                (7, 1, 2, None, 1, vec![21, 77]),
                (7, 1, 2, None, 1, vec![22, 23]),
                // QP 3's PIPE took QP 1 over once QP 2's was done; a long chunk is cut.
                (8, 2, 3, None, 0, vec![31]),
            ]
        );
        assert_eq!(
            cqes(&ev),
            vec![
                (2, "OK", "PIPE", 2, false, 0, 0),
                (2, "LEN_ERR", "PIPE", 2, false, 1, 0),
                (3, "LEN_ERR", "PIPE", 3, false, 0, 0),
                (2, "BAD_INDEX", "PIPE", 2, false, 2, 0),
                (2, "BAD_ARG", "PIPE", 2, false, 3, 0),
                (2, "BAD_ADDR", "PIPE", 2, false, 4, 0),
                (2, "OK", "PIPE", 2, false, 5, 0),
            ]
        );
        // Once the first PIPE is done, QP 1's RQ (nothing posted) NAKs the stray message.
        let naks: Vec<(u64, Vec<u64>)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Tx {
                    nak: true,
                    tag,
                    data,
                    ..
                } => Some((*tag, data.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(naks, vec![(9, vec![7])]);
        // Every chunk of the first PIPE counted on upstream's counter 1.
        assert!(ev.contains(&Event::Counter {
            step: 14,
            counter: 1,
            status: "OK".into(),
            value: 4
        }));
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
                    ack: false,
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
                    ack: false,
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

    #[test]
    fn every_example_gives_the_same_events_on_the_cycle_model() {
        for name in all_examples() {
            let s = example(&name);
            let golden = run_golden(&s).unwrap_or_else(|e| panic!("{e}"));
            let mut dut = NicModel::new(s.params);
            let model = run_cycles(&s, &mut dut, "cycle model").unwrap_or_else(|e| panic!("{e}"));
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

    impl CycleSim for Mute {
        type In = NicIn;
        type Out = NicOut;
        fn step(&mut self, _: &NicIn) -> NicOut {
            self.peek()
        }
        fn peek(&mut self) -> NicOut {
            NicOut {
                host_ready: true,
                ..Default::default()
            }
        }
    }

    #[test]
    fn driver_waits_are_bounded() {
        let s = Scenario::from_toml_str(
            "[[step]]\nop = \"run\"\ncycles = 3\n[[step]]\nop = \"poll\"\ncq = 0\n",
        )
        .expect("valid");
        let e = run_cycles(&s, &mut Mute, "mute").expect_err("never answers");
        assert_eq!(
            e.to_string(),
            "scenario.toml: line 4: step 2 (poll): mute: no host_rsp_valid within 100000 cycles"
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

    /// An enable takes `value` / `up_to` or `count` / `last`, never a mix; each mistake names
    /// the key.
    #[test]
    fn enable_forms_do_not_mix() {
        let en = "op = \"post_sq\"\nqp = 0\nwqe = \"SEND_EN\"\ntarget_qp = 1\n";
        assert_eq!(
            msg(&format!("[[step]]\n{en}count = 1\nvalue = 2\n")),
            "scenario.toml: line 7: step 1 (post_sq): `value` cannot go with `count`: `count` enables WQEs counted from the queue's enable head (libmlx5's), `value` / `up_to` move the enable index directly; allowed: one of the two forms"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{en}value = 2\nlast = false\n")),
            "scenario.toml: line 7: step 1 (post_sq): `last` goes with `count` (an enable counted from the queue's enable head); allowed: `last` with `count`, or `value` / `up_to` without `last`"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{en}count = 65536\n")),
            "scenario.toml: line 6: step 1 (post_sq): `count` = 65536 is out of range; allowed: 0..=65535 (16 bits)"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{en}")),
            "scenario.toml: line 1: step 1 (post_sq): missing key `value` (required for wqe = \"SEND_EN\", unless `count` is given)"
        );
    }

    #[test]
    fn parse_errors_name_step_key_and_value() {
        assert_eq!(
            msg(&format!("[[step]]\nop = \"run\"\n[[step]]\n{SEND}addr = 70000\n")),
            "scenario.toml: line 10: step 2 (post_sq): `addr` = 70000 is out of range; allowed: 0..=65535 (16 bits)"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{SEND}addr = \"4\"\n")),
            "scenario.toml: line 8: step 1 (post_sq): `addr` = \"4\" has the wrong type: expected an integer or a hex string like \"0x1f\""
        );
        assert_eq!(
            msg(&format!("[[step]]\n{SEND}adr = 4\n")),
            "scenario.toml: line 8: step 1 (post_sq): unknown key `adr`; allowed keys for wqe = \"SEND\": qp, wqe, signaled, addr, len, dst, dst_qp, counter"
        );
        assert_eq!(
            msg(&format!("[[step]]\n{SEND}")),
            "scenario.toml: line 1: step 1 (post_sq): missing key `addr` (required for wqe = \"SEND\")"
        );
        assert_eq!(
            msg("[[step]]\nop = \"fly\"\n"),
            "scenario.toml: line 2: step 1: `op` = \"fly\" is not a step kind; allowed: config_qp, write_mem, write_counter, post_sq, post_rq, deliver, run, poll, read_mem, read_counter, read_stat, set_channel, set_shape, host"
        );
        assert!(msg("[[step]]\nqp = 1\n")
            .starts_with("scenario.toml: line 1: step 1: missing key `op`; allowed: config_qp, "));
        assert_eq!(
            msg("[[step]]\nop = \"post_rq\"\nqp = 1\nwqe = \"JUMP\"\n"),
            "scenario.toml: line 4: step 1 (post_rq): `wqe` = \"JUMP\" is not a work request; allowed: \"NOP\", \"SEND\", \"RECV\", \"WAIT_CQ\", \"WAIT_COUNTER\", \"SEND_EN\", \"RECV_EN\", \"CALC\", \"PIPE\" (or raw `w0` / `w1`)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"deliver\"\nqp = -1\nsrc = 0\nsrc_qp = 0\n"),
            "scenario.toml: line 3: step 1 (deliver): `qp` = -1 is out of range; allowed: 0..=255 (8 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"write_mem\"\naddr = 0\ndata = [1, \"0x1_0000_0000_0000_0000\"]\n"),
            "scenario.toml: line 4: step 1 (write_mem): `data[1]` = \"0x1_0000_0000_0000_0000\" is out of range; allowed: 64-bit words"
        );
        assert_eq!(
            msg("[[step]]\nop = \"write_mem\"\naddr = 0\ndata = [1.5]\n"),
            "scenario.toml: line 4: step 1 (write_mem): `data[0]` = 1.5 has the wrong type: expected an integer or a hex string like \"0x1f\""
        );
        let m = msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = \"AVG\"\ndtype = \"int64\"\ncount = 1\na = 0\nb = 0\ndst_addr = 0\n");
        assert!(
            m.starts_with("scenario.toml: line 5: step 1 (post_sq): `alu_op` = \"AVG\" is not a known name; allowed: \"MAX\", \"MIN\", \"MAXLOC\""),
            "{m}"
        );
        assert!(m.ends_with("or a number 0..=15"), "{m}");
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = 16\ndtype = 0\ncount = 1\na = 0\nb = 0\ndst_addr = 0\n"),
            "scenario.toml: line 5: step 1 (post_sq): `alu_op` = 16 is out of range; allowed: 0..=15 (4 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = 4\ndtype = 0\ncount = 1\na = 0\nb = 0\ndst_addr = 0\nto_peer = true\ndst = 1\n"),
            "scenario.toml: line 1: step 1 (post_sq): missing key `dst_qp` (required for a CALC with to_peer = true)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"read_stat\"\nstat = \"FOO\"\n"),
            "scenario.toml: line 3: step 1 (read_stat): `stat` = \"FOO\" is not a known name; allowed: \"HOST_BAD_OP\", \"HOST_BAD_INDEX\", \"WQ_FULL\", \"CQ_STALL\", \"ERROR_CQE\", \"RX_DISCARD\", \"NAK_RECEIVED\", \"CQ_OVERRUN\", \"HOST_REFUSED\", \"RNR_RETRY\", \"STRAY_ACK\", \"CHAN_OVERRUN\" or a number 0..=65535"
        );
        assert_eq!(
            msg("[[step]]\nop = \"deliver\"\nqp = 1\nsrc = 0\nsrc_qp = 0\nnak = true\nack = true\n"),
            "scenario.toml: line 7: step 1 (deliver): `ack` = true asks a NAK for an answer; only a data message (`nak` = false) may ask"
        );
        assert_eq!(
            msg("[[step]]\nop = \"config_qp\"\nqp = 1\nrc = true\nrnr_retry = 8\n"),
            "scenario.toml: line 5: step 1 (config_qp): `rnr_retry` = 8 is out of range; allowed: 0..=7 (3 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"deliver\"\nqp = 1\nsrc = 0\nsrc_qp = 0\nnak = true\ndata = [1, 2]\n"),
            "scenario.toml: line 7: step 1 (deliver): `data` has 2 words but a NAK carries at most one (its reason)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"run\"\nsignaled = true\n"),
            "scenario.toml: line 3: step 1 (run): unknown key `signaled`; allowed keys for op = \"run\": cycles"
        );
        assert_eq!(
            msg("[[step]]\nop = \"host\"\nhost_op = 16\n"),
            "scenario.toml: line 3: step 1 (host): `host_op` = 16 is out of range; allowed: 0..=15 (4 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nsignaled = true\n"),
            "scenario.toml: line 4: step 1 (post_sq): unknown key `signaled`; allowed keys for a raw WQE (no `wqe`): qp, w0, w1"
        );
        assert_eq!(
            msg("[[step]]\nop = \"set_channel\"\ncounter = 1\nqp = 0\nlen = 2\n"),
            "scenario.toml: line 1: step 1 (set_channel): missing key `addr` (or `armed = false`)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"set_channel\"\ncounter = 1\nqp = 256\naddr = 0\nlen = 2\n"),
            "scenario.toml: line 4: step 1 (set_channel): `qp` = 256 is out of range; allowed: 0..=255 (8 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"set_shape\"\ncount1 = 2\n"),
            "scenario.toml: line 1: step 1 (set_shape): missing key `shape`"
        );
        assert_eq!(
            msg("[[step]]\nop = \"set_shape\"\nshape = 1\nsd2 = 65536\n"),
            "scenario.toml: line 4: step 1 (set_shape): `sd2` = 65536 is out of range; allowed: 0..=65535 (16 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"set_shape\"\nshape = 70000\n"),
            "scenario.toml: line 3: step 1 (set_shape): `shape` = 70000 is out of range; allowed: 0..=65535 (16 bits)"
        );
        assert_eq!(
            msg("[[step]]\nop = \"set_shape\"\nshape = 1\ncount3 = 1\n"),
            "scenario.toml: line 4: step 1 (set_shape): unknown key `count3`; allowed keys for op = \"set_shape\": shape, count1, sa1, sb1, sd1, count2, sa2, sb2, sd2"
        );
        assert_eq!(
            msg("[[step]]\nop = \"post_sq\"\nqp = 0\nwqe = \"CALC\"\nalu_op = 4\ndtype = 0\ncount = 1\na = 0\nb = 0\ndst_addr = 0\nshape = 8\n"),
            "scenario.toml: line 11: step 1 (post_sq): `shape` = 8 is out of range; allowed: 0..=7 (3 bits)"
        );
    }

    /// `set_shape` is host command 11 with shape `arg` and a [`ShapeDim`] word per dimension
    /// (keys left out are 0, so an absent dimension); a CALC's `shape` is `w1[19:17]`, and a
    /// CALC without one is encoded as before shapes existed.
    #[test]
    fn set_shape_and_calc_shape_encode() {
        let s = Scenario::from_toml_str(
            "[[step]]\nop = \"set_shape\"\nshape = 3\ncount1 = 2\nsa1 = 4\nsb1 = 5\nsd1 = \"0xffff\"\nsa2 = 7\n\
             [[step]]\nop = \"set_shape\"\nshape = 9\n\
             [[step]]\nop = \"post_sq\"\nqp = 1\nwqe = \"CALC\"\nalu_op = \"maxloc\"\ndtype = \"u32\"\ncount = 2\na = 1\nb = 2\ndst_addr = 3\nsignaled = false\nshape = 5\n",
        )
        .expect("valid");
        let cmd = |op, arg, w0, w1| Step::Host {
            label: if op == HostOp::SetShape as u64 {
                "set_shape"
            } else {
                "post_sq"
            },
            cmds: vec![HostCmd { op, arg, w0, w1 }],
        };
        assert_eq!(
            s.steps,
            vec![
                cmd(11, 3, 0xFFFF_0005_0004_0002, 0x0000_0000_0007_0000),
                cmd(11, 9, 0, 0),
                // As in `numbers_and_names`, with 5 at w1[19:17].
                cmd(1, 1, 0x0002_0001_0002_1206, 0x0003_0101_000A_0000),
            ]
        );
        let q = Wqe::decode(0x0002_0001_0002_1206, 0x0003_0101_000A_0000);
        assert_eq!((q.opcode, q.index), (Opcode::Calc as u64, 5));
    }

    #[test]
    fn file_level_errors() {
        assert_eq!(
            msg("[nic]\nqps = 5\n"),
            "scenario.toml: line 2: `nic.qps` = 5 is not supported; allowed values: 4, 16"
        );
        assert_eq!(
            msg("[nic]\nlanes = 5\n"),
            "scenario.toml: line 2: `nic.lanes` = 5 is not supported; allowed values: 1, 2, 4"
        );
        assert_eq!(
            msg("[nic]\nwidth = 5\n"),
            "scenario.toml: line 2: unknown key `nic.width`; allowed keys in [nic]: qps, cqs, counters, dmem_words, fp, fp_types, lanes"
        );
        assert_eq!(
            msg("steps = []\n"),
            "scenario.toml: line 1: unknown key `steps`; allowed at the top level: name, description, [nic], [[step]]"
        );
        assert_eq!(
            msg("name = 3\n"),
            "scenario.toml: line 1: `name` = 3 has the wrong type: expected a string"
        );
        assert_eq!(
            msg("step = [1]\n"),
            "scenario.toml: line 1: step 1: 1 is not a table; write steps as [[step]]"
        );
        assert!(msg("[[step]]\nop = = 1\n")
            .starts_with("scenario.toml: line 2: step 1: TOML syntax error at column "));
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
            "signaled", "nak", "counter", "w0", "value", "up_to", "to_peer", "shape", "count1",
            "sd2",
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
            "set_channel",
            "set_shape",
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
