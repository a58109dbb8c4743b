//! # Switch scenarios
//!
//! A scenario is what the network and a subnet manager do with one switch's collective engine:
//! configuration writes and reads, packets arriving on given ports at given cycles, idle
//! stretches. It runs on the golden reference (untimed, [`SwitchEngineGolden`]) and at every
//! cycle level through the transactor ([`super::CycleDriver`], which checks the exact latency
//! of every answer), and every level prints the same [`Event`]s as JSON lines: any difference
//! is an error. `netcoll switch run SCENARIO.toml` runs it; `scenarios/switch/` has examples.
//!
//! The file format shares its top level, numbers and one-line errors with the NIC's scenarios
//! ([`crate::harness::scenario`]).
//!
//! ## File format (TOML)
//!
//! ```toml
//! name = "barrier"                    # optional
//! description = "one barrier"         # optional
//!
//! [switch]                            # optional; same keys as netcoll.toml's [switch]
//! radix = 4                           # default: SwitchEngineParams::SMALL (4 / 16 / 16)
//! groups = 16
//! counter_bits = 16
//!
//! # Group 1: this switch is the root; its children are on ports 1 and 2.
//! [[step]]
//! op = "write"
//! cgid = 1
//! is_root = true
//! children = [1, 2]
//!
//! # Both children report FULL, back to back: the second completes the barrier.
//! [[step]]
//! op = "packet"
//! port = [1, 2]
//! cgid = 1
//! tid = 0
//! opcode = "FULL"
//!
//! [[step]]
//! op = "read_counter"
//! counter = "TOTAL"
//! at = 20                             # in cycle 20
//! ```
//!
//! | `op` | keys (default) | what it does |
//! |---|---|---|
//! | `write` | `cgid`, `children` (a port or a list of ports) or `children_mask`, `is_root` (false), `parent` (required unless `is_root`; else 0), `valid` (true), `tid` (0), `at` | configuration `Write`: the table entry, and the group reset to Idle at TID `tid` (`cfg_tid`); rejected (answered `"rejected":true`, nothing written) for a valid entry with no child or a non-root whose parent is a child |
//! | `read_entry` | `cgid` (one or a list), `at` | configuration `ReadEntry` of each |
//! | `read_counter` | `counter`: `"TOTAL"`, a verdict name (`"STALE"`, `"COALESCED"`, …) or an index 0..15; one or a list; `at` | configuration `ReadCounter` of each |
//! | `clear_counters` | `at` | configuration `ClearCounters` |
//! | `packet` | `port` (one or a list: one packet from each, back to back), `cgid`, `tid`, `opcode` (`"FULL"`, `"EXIT"`, `"STATUS_REQ"`, `"STATUS_RSP"` or a raw code 0..7), `at`; optional payload: `data` (64-bit words, negative ones two's complement), `plen` (default: the words given), `rop` (`"SUM"`, `"MAX"`, … or a raw code 0..15), `dtype` (`"i32"`, `"u32"`, `"i64"`, `"u64"`, with `[switch] fp = 1` `"f16"`, `"bf16"`, `"f32"`, `"f64"`, or 0..7) | collective packets |
//! | `idle` | `cycles` | that many cycles with nothing offered |
//!
//! Widths follow the parameters: a port is below `radix`, a CGID below `groups`, a TID is 2
//! bits, `children_mask` is `radix` bits. Nothing is silently truncated: a value that does not
//! fit is an error naming the file, the line, the step and the key.
//!
//! ## Timing
//!
//! Cycle 0 is the first cycle in which the engine accepts operations after its reset and table
//! sweep (in waveforms, [`first_cycle`]: the driver's [`super::RESET_CYCLES`] reset cycles,
//! `groups` sweep cycles, and the cycle in which it sees `cfg_ready`). Operations are offered
//! one per cycle in file order: each step's first operation in its `at` cycle if given (it must
//! not be earlier than the first free cycle), else in the first free cycle; the other
//! operations of a step (a list of ports, CGIDs or counters) follow back to back; a packet
//! with a payload on a reducing engine takes one cycle per beat. `idle`
//! leaves cycles free. The engine accepts every operation offered this way (`cfg_ready` and
//! `pkt_ready` are high after the sweep and only one operation is offered per cycle), and
//! answers it [`LATENCY`] cycles later. The schedule is therefore fixed by the file, and the
//! golden reference, which has no cycles, reports the same cycles; it is told each
//! operation's time, the engine's `now`, which is the scenario cycle + 1 (the epochs of the
//! retry rules count from there: with the default `epoch_cycles = 1024`, scenario cycles 0 to
//! 1022 are epoch 0). `out_ready` is high in every cycle. The retry timer (`retry_timer = 1`)
//! is not supported in scenarios: its ticks are not operations of the file.
//!
//! ## Events
//!
//! One JSON object per line, in the order the engine answers; `step` is the 1-based step of
//! the operation answered and `cycle` the cycle of the answer (its issue cycle + [`LATENCY`]):
//!
//! ```text
//! {"event":"entry","step":1,"cycle":3,"op":"write","cgid":1,"valid":true,"parent":0,"children":[1,2],"is_root":true,"state":"IDLE","tid":0,"fail":false,"reported":[]}
//! {"event":"verdict","step":2,"cycle":4,"port":1,"cgid":1,"verdict":"OK","state":"FILLING","tid":0,"fail":false}
//! {"event":"verdict","step":2,"cycle":5,"port":2,"cgid":1,"verdict":"OK","state":"IDLE","tid":1,"fail":false}
//! {"event":"out","step":2,"cycle":5,"ports":[1,2],"cgid":1,"tid":0,"op":"EXIT"}
//! {"event":"counter","step":3,"cycle":23,"counter":"TOTAL","index":0,"value":2}
//! {"event":"cleared","step":4,"cycle":24}
//! ```
//!
//! - `verdict`: the engine's event for a packet (`ev_*`): the packet's ingress `port` (from
//!   the scenario), the group, the [`Verdict`], the group's CSM state, TID and failure flag
//!   after the packet;
//! - `out`: the packet the engine sent in answer (`out_*`), right after its `verdict`: the
//!   egress ports, the group, the TID and the opcode, and for a packet with a payload its
//!   `plen`, `rop`, `dtype` and `data` words (its `cycle` is its event's: a payload leaves
//!   the engine later, beat by beat, and a reducing engine's events are printed when the run
//!   has ended);
//! - `entry`: the answer to `write` and `read_entry` (`rsp_*`): the entry, the group state and
//!   the child ports that have reported (`reported`); for a rejected `write`, the stored
//!   entry and state and `"rejected":true` (the key is absent otherwise);
//! - `counter`: the answer to `read_counter`, the counter named and numbered;
//! - `cleared`: the answer to `clear_counters`.
//!
//! Port masks are printed as lists of port numbers.

use super::{observable, traced_dut, Timed};
pub use crate::harness::scenario::ScenarioError;
use crate::harness::scenario::{compare_lists, read_text, Doc, StepReader, DEFAULT_FILE_NAME};
use crate::harness::vcd::Tracer;
use crate::harness::Level;
use netcoll_models::kit::block::BlockSpec;
use netcoll_models::net::header::{DTYPE_BITS, PLEN_BITS, ROP_BITS};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_models::switch_engine::golden::{
    CfgCmd, Op, OutPacket, PacketResult, Response, SwitchEngineGolden,
};
use netcoll_models::switch_engine::{
    CfgOp, Opcode, Packet, SwitchEngine, SwitchEngineParams, TableEntry, Verdict, COUNTERS,
    COUNTER_INDEX_BITS, LATENCY, OP_BITS, TID_BITS,
};
use serde::Serialize;
use std::fmt;
use std::path::Path;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Bound on `at` and `cycles` (32 bits), so that a typo does not start a run of years.
pub const CYCLE_BITS: usize = 32;

/// The step kinds.
const STEP_OPS: &[&str] = &[
    "write",
    "read_entry",
    "read_counter",
    "clear_counters",
    "packet",
    "idle",
];

/// The name of counter `i`: `TOTAL`, then the verdict whose code is `i`.
pub fn counter_name(i: u64) -> String {
    if i == 0 {
        return "TOTAL".to_string();
    }
    Verdict::from_code(i).map_or_else(|| format!("COUNTER_{i}"), |v| v.name().to_string())
}

/// The absolute cycle (as in waveforms) of scenario cycle 0, for parameters `p`.
pub fn first_cycle(p: &SwitchEngineParams) -> u64 {
    super::RESET_CYCLES + p.groups as u64 + 1
}

/// One operation offered to the engine, in its scenario cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub cycle: u64,
    pub op: Op,
}

/// One step: the operations it offers (none for `idle`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The step's `op` as written in the file.
    pub label: &'static str,
    pub issues: Vec<Issue>,
}

/// A parsed switch scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scenario {
    /// The file it was read from (or [`DEFAULT_FILE_NAME`]), for messages.
    pub file: String,
    pub name: String,
    pub description: String,
    pub params: SwitchEngineParams,
    pub steps: Vec<Step>,
}

impl Scenario {
    /// Parses scenario text; errors name [`DEFAULT_FILE_NAME`].
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        Self::parse(text, DEFAULT_FILE_NAME, None)
    }

    /// Reads and parses a scenario file; errors name `path`. `params`, if given, replace the
    /// file's `[switch]` table (`netcoll switch run --config`); the steps' values are checked
    /// against the parameters used.
    pub fn from_file(
        path: impl AsRef<Path>,
        params: Option<SwitchEngineParams>,
    ) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        Self::parse(&text, &path.display().to_string(), params)
    }

    /// Parses scenario text read from `file` (see [`Scenario::from_file`] for `params`).
    pub fn parse(
        text: &str,
        file: &str,
        params: Option<SwitchEngineParams>,
    ) -> Result<Scenario, ScenarioError> {
        let doc = Doc::parse(text, file, STEP_OPS)?;
        let mut p = SwitchEngineParams::SMALL;
        let header = doc.header(&mut p)?;
        let p = params.unwrap_or(p);
        if p.retry_timer_on() {
            return Err(ScenarioError::file(
                file,
                "retry_timer = 1 is not supported in switch scenarios (the timer's ticks are not operations of the file); use the directed suite or `netcoll check`".to_string(),
            ));
        }
        let mut next = 0u64;
        let mut steps = vec![];
        for r in doc.steps(STEP_OPS)? {
            steps.push(parse_step(&r, &p, &mut next)?);
        }
        Ok(Scenario {
            file: file.to_string(),
            name: header.name,
            description: header.description,
            params: p,
            steps,
        })
    }

    /// Every operation with its step (0-based), in order.
    pub fn issues(&self) -> Vec<(usize, Issue)> {
        self.steps
            .iter()
            .enumerate()
            .flat_map(|(k, s)| s.issues.iter().map(move |i| (k, i.clone())))
            .collect()
    }
}

fn port_what(p: &SwitchEngineParams) -> String {
    format!("a port of a radix-{} switch", p.radix)
}

fn cgid_what(p: &SwitchEngineParams) -> String {
    format!("a CGID of {} groups", p.groups)
}

/// The first cycle of a step: `at` if given (not before `next`), else `next`.
fn start_cycle(r: &StepReader, next: u64) -> Result<u64, ScenarioError> {
    match r.opt_uint("at", CYCLE_BITS)? {
        None => Ok(next),
        Some(at) if at >= next => Ok(at),
        Some(at) => Err(r.error(
            "at",
            format!(
                "`at` = {at} is before cycle {next}, the first free cycle (operations are offered one per cycle, in file order)"
            ),
        )),
    }
}

/// The issues of `ops`, back to back from the step's start cycle: a packet takes as many
/// cycles as it has beats (one unless the engine reduces and it has a payload).
fn schedule(
    r: &StepReader,
    p: &SwitchEngineParams,
    next: &mut u64,
    ops: Vec<Op>,
) -> Result<Vec<Issue>, ScenarioError> {
    let mut cycle = start_cycle(r, *next)?;
    let issues: Vec<Issue> = ops
        .into_iter()
        .map(|op| {
            let at = cycle;
            cycle += match &op {
                Op::Packet(pkt, _) => p.beats(pkt.plen & 255),
                Op::Cfg(_) => 1,
            };
            Issue { cycle: at, op }
        })
        .collect();
    *next = cycle;
    Ok(issues)
}

fn cfg(op: CfgOp, cgid: u64, entry: TableEntry, counter: u64) -> Op {
    Op::Cfg(CfgCmd {
        op,
        cgid,
        entry,
        counter,
        tid: 0,
    })
}

fn parse_step(
    r: &StepReader,
    p: &SwitchEngineParams,
    next: &mut u64,
) -> Result<Step, ScenarioError> {
    let label = r.op;
    let for_op = format!("for op = \"{label}\"");
    let groups = p.groups as u64;
    let radix = p.radix as u64;
    let ops = match label {
        "write" => {
            r.only(
                &[
                    "cgid",
                    "children",
                    "children_mask",
                    "is_root",
                    "parent",
                    "valid",
                    "tid",
                    "at",
                ],
                &for_op,
            )?;
            let cgid = r
                .opt_below("cgid", groups, &cgid_what(p))?
                .ok_or_else(|| r.missing("cgid", ""))?;
            let is_root = r.flag("is_root", false)?;
            let parent = match r.opt_below("parent", radix, &port_what(p))? {
                Some(x) => x,
                None if is_root => 0,
                None => return Err(r.missing("parent", " (required unless is_root = true)")),
            };
            let list = r.opt_list_below("children", radix, &port_what(p))?;
            let mask = r.opt_uint("children_mask", p.radix)?;
            let children = match (list, mask) {
                (Some(_), Some(_)) => {
                    return Err(r.error(
                        "children_mask",
                        "give `children` (a list of ports) or `children_mask`, not both"
                            .to_string(),
                    ))
                }
                (Some(l), None) => l.iter().fold(0, |m, port| m | 1 << port),
                (None, Some(m)) => m,
                (None, None) => {
                    return Err(
                        r.missing("children", " (a list of child ports, or `children_mask`)")
                    )
                }
            };
            let entry = TableEntry {
                valid: r.flag("valid", true)?,
                parent,
                children,
                is_root,
            };
            let tid = r.opt_uint("tid", TID_BITS)?.unwrap_or(0);
            vec![Op::Cfg(CfgCmd {
                op: CfgOp::Write,
                cgid,
                entry,
                counter: 0,
                tid,
            })]
        }
        "read_entry" => {
            r.only(&["cgid", "at"], &for_op)?;
            r.opt_list_below("cgid", groups, &cgid_what(p))?
                .ok_or_else(|| r.missing("cgid", ""))?
                .into_iter()
                .map(|cgid| cfg(CfgOp::ReadEntry, cgid, TableEntry::default(), 0))
                .collect()
        }
        "read_counter" => {
            r.only(&["counter", "at"], &for_op)?;
            let names: Vec<(String, u64)> =
                (0..COUNTERS as u64).map(|i| (counter_name(i), i)).collect();
            let names: Vec<(&str, u64)> = names.iter().map(|(n, i)| (n.as_str(), *i)).collect();
            r.opt_named_list("counter", &names, COUNTER_INDEX_BITS)?
                .ok_or_else(|| r.missing("counter", ""))?
                .into_iter()
                .map(|c| cfg(CfgOp::ReadCounter, 0, TableEntry::default(), c))
                .collect()
        }
        "clear_counters" => {
            r.only(&["at"], &for_op)?;
            vec![cfg(CfgOp::ClearCounters, 0, TableEntry::default(), 0)]
        }
        "packet" => {
            r.only(
                &[
                    "port", "cgid", "tid", "opcode", "at", "plen", "rop", "dtype", "data",
                ],
                &for_op,
            )?;
            let ports = r
                .opt_list_below("port", radix, &port_what(p))?
                .ok_or_else(|| r.missing("port", " (a port or a list of ports)"))?;
            let cgid = r
                .opt_below("cgid", groups, &cgid_what(p))?
                .ok_or_else(|| r.missing("cgid", ""))?;
            let tid = r.uint("tid", TID_BITS, "")?;
            let names: Vec<(&str, u64)> =
                Opcode::ALL.iter().map(|o| (o.name(), o.code())).collect();
            let op = r.named("opcode", &names, OP_BITS, "")?;
            // The payload: `data` words, `plen` of them (by default as many as given).
            let data = r.words("data")?.unwrap_or_default();
            let plen = match r.opt_uint("plen", PLEN_BITS)? {
                Some(n) if (n as usize) < data.len() => {
                    return Err(r.error(
                        "plen",
                        format!(
                            "`plen` = {n} is shorter than `data` ({} words); allowed: at least {}",
                            data.len(),
                            data.len()
                        ),
                    ))
                }
                Some(n) => n,
                None => data.len() as u64,
            };
            let rops: Vec<(&str, u64)> = AluOp::ALL.iter().map(|o| (o.name(), o.code())).collect();
            let rop = r.opt_named("rop", &rops, ROP_BITS)?.unwrap_or(0);
            let dtypes: Vec<(&str, u64)> =
                Dtype::ALL.iter().map(|d| (d.name(), d.code())).collect();
            let dtype = r.opt_named("dtype", &dtypes, DTYPE_BITS)?.unwrap_or(0);
            ports
                .into_iter()
                .map(|port| {
                    Op::Packet(
                        Packet {
                            port,
                            cgid,
                            tid,
                            op,
                            plen,
                            rop,
                            dtype,
                        },
                        data.clone(),
                    )
                })
                .collect()
        }
        _ => {
            // "idle"
            r.only(&["cycles"], &for_op)?;
            let cycles = r.uint("cycles", CYCLE_BITS, "")?;
            *next += cycles;
            vec![]
        }
    };
    Ok(Step {
        label,
        issues: schedule(r, p, next, ops)?,
    })
}

// -------------------------------------------------------------------------------------------
// Events
// -------------------------------------------------------------------------------------------

/// One answer of the engine, as printed. See the [module docs](self#events).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Verdict {
        step: usize,
        cycle: u64,
        port: u64,
        cgid: u64,
        verdict: String,
        state: String,
        tid: u64,
        fail: bool,
    },
    Out {
        step: usize,
        cycle: u64,
        ports: Vec<u64>,
        cgid: u64,
        tid: u64,
        op: String,
        /// The payload (none for a barrier packet, and then not printed).
        #[serde(skip_serializing_if = "is_zero")]
        plen: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        rop: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        dtype: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        data: Vec<u64>,
    },
    Entry {
        step: usize,
        cycle: u64,
        op: String,
        cgid: u64,
        valid: bool,
        parent: u64,
        children: Vec<u64>,
        is_root: bool,
        state: String,
        tid: u64,
        fail: bool,
        reported: Vec<u64>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        rejected: bool,
    },
    Counter {
        step: usize,
        cycle: u64,
        counter: String,
        index: u64,
        value: u64,
    },
    Cleared {
        step: usize,
        cycle: u64,
    },
}

impl Event {
    /// The event as one line of compact JSON, keys in declaration order (`event` first).
    pub fn to_json(&self) -> String {
        // Serialising plain strings, integers, booleans and vectors cannot fail.
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
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

/// The ports of a mask, lowest first.
pub fn ports_of(mask: u64) -> Vec<u64> {
    (0..64).filter(|b| mask >> b & 1 == 1).collect()
}

/// The events of the answer `r` to `op`, offered by step `step` (0-based) in cycle `issued`;
/// an error if `r` is not an answer to such an operation.
pub fn events_of(step: usize, issued: u64, op: &Op, r: &Response) -> Result<Vec<Event>, String> {
    let step = step + 1;
    let cycle = issued + LATENCY as u64;
    match (op, r) {
        (Op::Packet(pkt, _), Response::Packet { cgid, result }) => {
            let mut v = vec![Event::Verdict {
                step,
                cycle,
                port: pkt.port,
                cgid: *cgid,
                verdict: result.verdict.name().to_string(),
                state: result.state.csm.name().to_string(),
                tid: result.state.tid,
                fail: result.state.fail,
            }];
            if let Some(OutPacket {
                ports,
                cgid,
                tid,
                op,
                meta,
                data,
            }) = &result.out
            {
                let with = meta.plen > 0;
                v.push(Event::Out {
                    step,
                    cycle,
                    ports: ports_of(*ports),
                    cgid: *cgid,
                    tid: *tid,
                    op: op.name().to_string(),
                    plen: meta.plen,
                    rop: with.then(|| {
                        AluOp::from_code(meta.rop)
                            .map_or_else(|| meta.rop.to_string(), |o| o.name().to_string())
                    }),
                    dtype: with.then(|| {
                        Dtype::from_code(meta.dtype)
                            .map_or_else(|| meta.dtype.to_string(), |d| d.name().to_string())
                    }),
                    data: data.clone(),
                });
            }
            Ok(v)
        }
        (Op::Cfg(cmd), Response::Cfg(c)) => Ok(vec![match cmd.op {
            CfgOp::Write | CfgOp::ReadEntry => Event::Entry {
                step,
                cycle,
                op: if cmd.op == CfgOp::Write {
                    "write"
                } else {
                    "read_entry"
                }
                .to_string(),
                cgid: cmd.cgid,
                valid: c.entry.valid,
                parent: c.entry.parent,
                children: ports_of(c.entry.children),
                is_root: c.entry.is_root,
                state: c.state.csm.name().to_string(),
                tid: c.state.tid,
                fail: c.state.fail,
                reported: ports_of(c.state.reported),
                rejected: c.rejected,
            },
            CfgOp::ReadCounter => Event::Counter {
                step,
                cycle,
                counter: counter_name(cmd.counter),
                index: cmd.counter,
                value: c.counter,
            },
            CfgOp::ClearCounters => Event::Cleared { step, cycle },
        }]),
        (op, r) => Err(format!(
            "step {step}: the answer {r:?} does not answer the operation {op:?}"
        )),
    }
}

// -------------------------------------------------------------------------------------------
// Running
// -------------------------------------------------------------------------------------------

/// Receives each event as soon as the level has it; returns false to stop the run (the
/// runner then returns the events so far).
pub type Sink<'a> = &'a mut dyn FnMut(&Event) -> bool;

/// Runs `s` at `level`: the golden reference operation by operation, or a cycle level through
/// the transactor, tapped by `tracer` if given (scope `level / switch_engine / scenario
/// name`). Each event goes to `sink` as soon as the level has it: the golden's as each
/// operation is applied, a cycle level's in the cycle its answer appears on the outputs.
pub fn run_level(
    s: &Scenario,
    level: Level,
    tracer: Option<&Tracer>,
    mut sink: Option<Sink>,
) -> Result<Vec<Event>, ScenarioError> {
    let issues = s.issues();
    let mut events = vec![];
    let mut emit = |e: Event, events: &mut Vec<Event>| -> bool {
        let go = sink.as_mut().is_none_or(|f| f(&e));
        events.push(e);
        go
    };
    if level == Level::Golden {
        let mut g = SwitchEngineGolden::new(s.params);
        for (k, i) in &issues {
            // Scenario cycle 0 is the engine's `now` 1 (see "Timing").
            let r = observable(&g.apply_at(&i.op, i.cycle + 1));
            let answer = events_of(*k, i.cycle, &i.op, &r)
                .map_err(|m| ScenarioError::file(&s.file, format!("{}: {m}", level.title())))?;
            for e in answer {
                if !emit(e, &mut events) {
                    return Ok(events);
                }
            }
        }
        return Ok(events);
    }
    let fail = |m: String| ScenarioError::file(&s.file, format!("{}: {m}", level.title()));
    let mut d = traced_dut(level, &s.params, tracer, &scenario_label(s)).map_err(&fail)?;
    let mut prev: Option<u64> = None;
    let timed: Vec<Timed> = issues
        .iter()
        .map(|(_, i)| {
            let idle = match prev {
                None => i.cycle,
                Some(c) => i.cycle - c - 1,
            };
            prev = Some(i.cycle);
            Timed {
                idle: u32::try_from(idle).unwrap_or(u32::MAX),
                op: i.op.clone(),
            }
        })
        .collect();
    if s.params.reduces() {
        return run_reducing(s, &issues, &timed, d.as_mut(), &fail, events, &mut emit);
    }
    // Events go to the sink as each answer appears on the outputs; a sink that wants no more
    // (a closed pipe) only stops the printing, not the run, whose answers are still checked.
    let mut stopped = false;
    let mut bad: Option<String> = None;
    let answers = d
        .run_with(&timed, &mut |n, r| {
            let Some((k, i)) = issues.get(n) else {
                return;
            };
            match events_of(*k, i.cycle, &i.op, r) {
                Ok(evs) => {
                    for e in evs {
                        if !stopped && !emit(e, &mut events) {
                            stopped = true;
                        }
                    }
                }
                Err(m) => {
                    bad.get_or_insert(m);
                }
            }
        })
        .map_err(&fail)?;
    if let Some(m) = bad {
        return Err(fail(m));
    }
    if answers.len() != issues.len() {
        return Err(fail(format!(
            "{} answers to {} operations",
            answers.len(),
            issues.len()
        )));
    }
    Ok(events)
}

/// [`run_level`] for a reducing engine at a cycle level. Its answers with payloads leave long
/// after their events, so the transactor collects the output packets apart, in order; they go
/// back to the operations that sent them (the ones whose golden answer has an output packet,
/// in the same order), and every event is printed after the run.
fn run_reducing(
    s: &Scenario,
    issues: &[(usize, Issue)],
    timed: &[Timed],
    d: &mut dyn super::EngineDut,
    fail: &dyn Fn(String) -> ScenarioError,
    mut events: Vec<Event>,
    emit: &mut dyn FnMut(Event, &mut Vec<Event>) -> bool,
) -> Result<Vec<Event>, ScenarioError> {
    let mut answers = d.run(timed).map_err(fail)?;
    if answers.len() != issues.len() {
        return Err(fail(format!(
            "{} answers to {} operations",
            answers.len(),
            issues.len()
        )));
    }
    let mut g = SwitchEngineGolden::new(s.params);
    let mut outs = d.log().outs.clone().into_iter();
    for ((_, i), a) in issues.iter().zip(answers.iter_mut()) {
        let sends = matches!(
            g.apply_at(&i.op, i.cycle + 1),
            Response::Packet {
                result: PacketResult { out: Some(_), .. },
                ..
            }
        );
        if let (true, Response::Packet { result, .. }) = (sends, a) {
            result.out = Some(outs.next().ok_or_else(|| {
                fail("fewer output packets than the golden reference sends".to_string())
            })?);
        }
    }
    if outs.next().is_some() {
        return Err(fail(
            "more output packets than the golden reference sends".to_string(),
        ));
    }
    for ((k, i), a) in issues.iter().zip(&answers) {
        for e in events_of(*k, i.cycle, &i.op, a).map_err(fail)? {
            if !emit(e, &mut events) {
                return Ok(events);
            }
        }
    }
    Ok(events)
}

/// A scenario's name for waveform scopes: its `name`, else its file's stem.
pub fn scenario_label(s: &Scenario) -> String {
    if !s.name.is_empty() {
        return s.name.clone();
    }
    Path::new(&s.file)
        .file_stem()
        .map_or("scenario".into(), |n| n.to_string_lossy().into_owned())
}

/// The Verilog module the cycle levels run (the scope below the level in waveforms).
pub fn module_name(s: &Scenario) -> String {
    SwitchEngine::module_name(&s.params)
}

/// Checks that two levels printed the same events; otherwise describes the first difference.
pub fn compare_events(expected: &[Event], actual: &[Event]) -> Result<(), String> {
    compare_lists("events", expected, actual)
}
