//! # The switch engine's transactor and conformance harness
//!
//! The suite ([`suite`]) is written once against [`EngineDut`]: "here are operations, give me
//! the engine's answers". Four levels implement it, only the design under test changes:
//! - [`Level::Golden`]: `netcoll_models::switch_engine::golden`, untimed ([`GoldenDut`]);
//! - [`Level::Model`], [`Level::Rtl`], [`Level::Verilator`]: the cycle model, the rust-hdl RTL
//!   and the emitted Verilog, each made by [`crate::harness::cycle_sim`] and driven by the
//!   transactor [`CycleDriver`].
//!
//! [`CycleDriver`] also checks the timing contract every cycle: each accepted operation answers
//! exactly [`LATENCY`] cycles later and outputs that are not valid are zero. [`lockstep`] runs a
//! cycle-level design against the cycle model every output every cycle (the harness's
//! [`Lockstep`]) under the random, protocol-aware inputs of [`Stimulus`], which checks every
//! answer against its shadow golden reference. The drivers disturb traffic with idle gaps and
//! with `out_ready` low (the output queue's back-pressure, which also holds packets back).
//!
//! Time: the golden reference is told each operation's `now` (see "Time" in
//! `netcoll_models::switch_engine`). [`GoldenDut`] works it out from the schedule the
//! transactor follows when nothing stalls (the ready-detection cycle after the sweep is
//! `now` 0, then one cycle per idle cycle and per operation), and issues the ticks of the
//! retry timer in the idle cycles, as the engine does; the random stimulus counts cycles.

pub mod scenario;
pub mod stimulus;
pub mod suite;

pub use crate::harness::Level;
pub use stimulus::Stimulus;

use crate::harness::{cycle_sim, Lockstep, Sim};
use netcoll_models::config::Config;
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::kit::ports::PortValues;
use netcoll_models::switch_engine::golden::{
    CfgCmd, CfgResult, Op, OutPacket, PacketResult, Response, SwitchEngineGolden,
};
use netcoll_models::switch_engine::model::{
    expected_outputs, ipf_depth, payload_pipe, SwitchEngineModel,
};
use netcoll_models::switch_engine::{
    CfgOp, CsmState, GroupState, Opcode, PayloadMeta, SwitchEngine, SwitchEngineIn,
    SwitchEngineOut, SwitchEngineParams, TableEntry, Verdict, LATENCY, OUT_QUEUE,
};
use std::collections::VecDeque;

/// An operation and the idle cycles offered before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed {
    pub idle: u32,
    pub op: Op,
}

/// A design under test, at operation level: reset, run `ops`, return one answer per op.
pub trait EngineDut {
    fn level(&self) -> Level;
    fn params(&self) -> SwitchEngineParams;
    /// Resets the design, then offers `ops` in order. Answers are in [`observable`] form.
    fn run(&mut self, ops: &[Timed]) -> Result<Vec<Response>, String> {
        self.run_with(ops, &mut |_, _| {})
    }
    /// Like [`EngineDut::run`], telling `on_answer` of each answer (its operation's index and
    /// the answer) as soon as the design shows it.
    fn run_with(
        &mut self,
        ops: &[Timed],
        on_answer: &mut dyn FnMut(usize, &Response),
    ) -> Result<Vec<Response>, String>;
    /// Clock cycles simulated so far (0 for the untimed golden reference).
    fn cycles(&self) -> u64 {
        0
    }
    /// Drives `out_ready` by `pattern(now)` in the next runs (`None`: always high). With a
    /// pattern, output packets are not attached to the answers (they may leave the queue
    /// long after their event): they are in [`RunLog::outs`], in order.
    fn set_out_ready(&mut self, pattern: Option<fn(u64) -> bool>);
    /// What the last run showed besides the answers.
    fn log(&self) -> &RunLog;
}

/// What a run showed besides the answers to its operations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunLog {
    /// With an `out_ready` pattern: the output packets, in the order they left the queue.
    pub outs: Vec<OutPacket>,
    /// The retry timer's events (verdict `Retry`, rule 8), with the `now` of their tick.
    pub retries: Vec<(u64, Response)>,
}

/// The engine at a cycle level.
pub type EngineSim = Sim<SwitchEngine>;

/// The configuration with the engine's parameters `p` (and defaults elsewhere).
pub fn config(p: &SwitchEngineParams) -> Config {
    Config {
        switch: *p,
        ..Default::default()
    }
}

/// Makes a fresh cycle-level design of one level; `None` for the golden level.
pub fn cycle_dut(level: Level, p: &SwitchEngineParams) -> Result<Option<EngineSim>, String> {
    if level == Level::Golden {
        return Ok(None);
    }
    cycle_sim::<SwitchEngine>(level, &config(p)).map(Some)
}

/// Like [`dut`], with a cycle-level design tapped by `tracer` (scope `level / switch_engine /
/// case`).
pub fn traced_dut(
    level: Level,
    p: &SwitchEngineParams,
    tracer: Option<&crate::harness::vcd::Tracer>,
    case: &str,
) -> Result<Box<dyn EngineDut>, String> {
    let Some(t) = tracer else {
        return dut(level, p);
    };
    Ok(match cycle_dut(level, p)? {
        None => Box::new(GoldenDut::new(*p)),
        Some(d) => {
            let tap = t.tap(d, *p, &[level.name(), "switch_engine", case]);
            Box::new(CycleDriver::new(level, *p, Box::new(tap)))
        }
    })
}

/// A fresh operation-level design of one level.
pub fn dut(level: Level, p: &SwitchEngineParams) -> Result<Box<dyn EngineDut>, String> {
    Ok(match cycle_dut(level, p)? {
        None => Box::new(GoldenDut::new(*p)),
        Some(d) => Box::new(CycleDriver::new(level, *p, d)),
    })
}

/// Answers as they can be observed on the ports: a packet's `reported` mask and any `sent`
/// stamp are not outputs, so they are zero here (`reported` is checked through `ReadEntry`,
/// `sent` through what retries do). Every level's answers go through this, so levels are
/// compared on exactly what the hardware shows.
pub fn observable(r: &Response) -> Response {
    let mut seen = from_outputs(&expected_outputs(r)).unwrap_or_else(|| r.clone());
    // The payload is not part of one cycle's outputs: it comes beat by beat.
    if let (
        Response::Packet { result: seen, .. },
        Response::Packet {
            result: PacketResult { out: Some(o), .. },
            ..
        },
    ) = (&mut seen, r)
    {
        if let Some(s) = &mut seen.out {
            s.data = o.data.clone();
        }
    }
    seen
}

/// The answer shown by one cycle's outputs, if any.
pub fn from_outputs(o: &SwitchEngineOut) -> Option<Response> {
    if o.ev_valid {
        // A reserved opcode on the wire has no `Opcode`; CycleDriver rejects it before this.
        let out = Opcode::from_code(o.out_op)
            .filter(|_| o.out_valid)
            .map(|op| OutPacket {
                ports: o.out_ports,
                cgid: o.out_cgid,
                tid: o.out_tid,
                op,
                meta: PayloadMeta {
                    plen: o.out_plen,
                    rop: o.out_rop,
                    dtype: o.out_dtype,
                },
                data: vec![],
            });
        Some(Response::Packet {
            cgid: o.ev_cgid,
            result: PacketResult {
                verdict: Verdict::from_code(o.ev_verdict).unwrap_or(Verdict::Ok),
                state: GroupState {
                    csm: CsmState::of(o.ev_state),
                    fail: o.ev_fail,
                    tid: o.ev_tid,
                    ..GroupState::default()
                },
                out,
            },
        })
    } else if o.rsp_valid {
        Some(Response::Cfg(CfgResult {
            entry: TableEntry {
                valid: o.rsp_entry_valid,
                parent: o.rsp_parent,
                children: o.rsp_children,
                is_root: o.rsp_is_root,
            },
            state: GroupState {
                csm: CsmState::of(o.rsp_state),
                fail: o.rsp_fail,
                tid: o.rsp_tid,
                reported: o.rsp_reported,
                ..GroupState::default()
            },
            counter: o.rsp_counter,
            rejected: o.rsp_rejected,
        }))
    } else {
        None
    }
}

/// The golden reference as a design under test.
pub struct GoldenDut {
    params: SwitchEngineParams,
    out_ready: Option<fn(u64) -> bool>,
    log: RunLog,
}

impl GoldenDut {
    pub fn new(params: SwitchEngineParams) -> Self {
        Self {
            params,
            out_ready: None,
            log: RunLog::default(),
        }
    }
}

impl EngineDut for GoldenDut {
    fn level(&self) -> Level {
        Level::Golden
    }
    fn params(&self) -> SwitchEngineParams {
        self.params
    }
    fn set_out_ready(&mut self, pattern: Option<fn(u64) -> bool>) {
        self.out_ready = pattern;
    }
    fn log(&self) -> &RunLog {
        &self.log
    }
    fn run_with(
        &mut self,
        ops: &[Timed],
        on_answer: &mut dyn FnMut(usize, &Response),
    ) -> Result<Vec<Response>, String> {
        let p = self.params;
        let mut g = SwitchEngineGolden::new(p);
        let mut answers = Vec::with_capacity(ops.len());
        self.log = RunLog::default();
        // The transactor's schedule: `now` 0 is the cycle in which it sees the engine ready,
        // idle; then each operation's idle cycles and its own cycle; then the drain.
        let mut now = 0u64;
        let mut scan = 0u64;
        let mut tick = |g: &mut SwitchEngineGolden, log: &mut RunLog, now: u64| {
            if p.retry_timer_on() {
                if let Some(r) = g.tick(scan, now) {
                    log.retries.push((now, observable(&r)));
                }
                scan = (scan + 1) % p.groups as u64;
            }
        };
        tick(&mut g, &mut self.log, now);
        for (n, t) in ops.iter().enumerate() {
            for _ in 0..t.idle {
                now += 1;
                tick(&mut g, &mut self.log, now);
            }
            now += 1;
            let mut a = observable(&g.apply_at(&t.op, now));
            if self.out_ready.is_some() || p.reduces() {
                if let Response::Packet { result, .. } = &mut a {
                    self.log.outs.extend(result.out.take());
                }
            }
            on_answer(n, &a);
            answers.push(a);
        }
        // The transactor drains for LATENCY + 1 cycles: only the first of them ticks early
        // enough for its answer to be seen.
        tick(&mut g, &mut self.log, now + 1);
        Ok(answers)
    }
}

/// The port inputs that offer `op` (with `reset` low); for a packet, its first beat (the
/// header and the first `lanes` payload words).
pub fn op_inputs(op: &Op) -> SwitchEngineIn {
    let mut i = SwitchEngineIn::default();
    match op {
        Op::Packet(p, data) => {
            i.pkt_valid = true;
            i.pkt_port = p.port;
            i.pkt_cgid = p.cgid;
            i.pkt_tid = p.tid;
            i.pkt_op = p.op;
            i.pkt_plen = p.plen;
            i.pkt_rop = p.rop;
            i.pkt_dtype = p.dtype;
            for (k, w) in i.pkt_data.iter_mut().zip(data) {
                *k = *w;
            }
        }
        Op::Cfg(CfgCmd {
            op,
            cgid,
            entry,
            counter,
            tid,
        }) => {
            i.cfg_valid = true;
            i.cfg_op = *op as u64;
            i.cfg_cgid = *cgid;
            i.cfg_entry_valid = entry.valid;
            i.cfg_parent = entry.parent;
            i.cfg_children = entry.children;
            i.cfg_is_root = entry.is_root;
            i.cfg_counter = *counter;
            i.cfg_tid = *tid;
        }
    }
    i.out_ready = true;
    i
}

/// Drives a cycle-level design through operations, checking the timing contract.
pub struct CycleDriver {
    level: Level,
    params: SwitchEngineParams,
    dut: EngineSim,
    cycle: u64,
    out_ready: Option<fn(u64) -> bool>,
    /// The cycle in which the engine was seen ready after the sweep (`now` 0).
    ready_at: u64,
    log: RunLog,
    /// The output packet being taken beat by beat, and its payload words so far.
    taking: Option<(OutPacket, Vec<u64>)>,
}

/// The most cycles the driver waits for `pkt_ready` (held low by a full output queue).
pub const MAX_STALL: u64 = 100_000;

/// Reset cycles the driver applies before every run.
pub const RESET_CYCLES: u64 = 2;

impl CycleDriver {
    pub fn new(level: Level, params: SwitchEngineParams, dut: EngineSim) -> Self {
        Self {
            level,
            params,
            dut,
            cycle: 0,
            out_ready: None,
            ready_at: 0,
            log: RunLog::default(),
            taking: None,
        }
    }

    /// Output packets go to [`RunLog::outs`] rather than with their answers: with an
    /// `out_ready` pattern, and always on a reducing engine (a payload leaves long after its
    /// event).
    fn split(&self) -> bool {
        self.out_ready.is_some() || self.params.reduces()
    }

    /// `out_ready` in the next cycle.
    fn ready_now(&self) -> bool {
        self.out_ready
            .is_none_or(|f| f(self.cycle.saturating_sub(self.ready_at)))
    }

    fn step(
        &mut self,
        i: &SwitchEngineIn,
        pending: &mut VecDeque<(u64, bool)>,
        answers: &mut Vec<Response>,
        on_answer: &mut dyn FnMut(usize, &Response),
    ) -> Result<SwitchEngineOut, String> {
        let mut i = *i;
        i.out_ready = self.ready_now();
        let o = self.dut.step(&i);
        let now = self.cycle;
        self.cycle += 1;
        let split = self.split();
        let mut answer = from_outputs(&o);
        if o.ev_valid && o.rsp_valid {
            return Err(format!("cycle {now}: ev_valid and rsp_valid together"));
        }
        if o.out_valid && !o.ev_valid && !split {
            return Err(format!(
                "cycle {now}: out_valid without ev_valid (out_ready always high)"
            ));
        }
        if o.out_valid && Opcode::from_code(o.out_op).is_none() {
            return Err(format!(
                "cycle {now}: out_op is the reserved code {}",
                o.out_op
            ));
        }
        // Outputs of a group (out_*, ev_*, rsp_*) whose valid is low must be zero.
        let specs = SwitchEngineOut::specs(&self.params);
        for (spec, v) in specs.iter().zip(o.to_values(&self.params)).skip(2) {
            if v != 0 && !is_answer_field(&spec.name, &o) {
                return Err(format!(
                    "cycle {now}: signal {} is {v:#x} but its group is not valid (expected 0)",
                    spec.name
                ));
            }
        }
        if split && o.out_valid && i.out_ready && !i.reset {
            if let Some(Response::Packet {
                result: PacketResult {
                    out: Some(head), ..
                },
                ..
            }) = from_outputs(&SwitchEngineOut {
                ev_valid: true,
                ..o
            }) {
                // A packet leaves with its last beat; its header stays on every beat.
                let (first, mut words) = self.taking.take().unwrap_or((head.clone(), vec![]));
                if first != head {
                    return Err(format!(
                        "cycle {now}: an output packet's header changed between its beats: {first:?}, then {head:?}"
                    ));
                }
                if head.meta.plen > 0 {
                    words.extend_from_slice(&o.out_data[..self.params.lanes]);
                }
                if words.len() as u64 >= head.meta.plen {
                    words.truncate(head.meta.plen as usize);
                    self.log.outs.push(OutPacket {
                        data: words,
                        ..head
                    });
                } else {
                    self.taking = Some((head, words));
                }
            }
        }
        if i.reset {
            self.taking = None;
        }
        if let Some(Response::Packet { result, .. }) = &mut answer {
            if split {
                result.out = None;
            }
            if result.verdict == Verdict::Retry {
                let tick = now - LATENCY as u64 - self.ready_at;
                self.log
                    .retries
                    .push((tick, answer.take().expect("an answer")));
            }
        }
        if let Some(a) = answer {
            let (accepted, is_cfg) = pending
                .pop_front()
                .ok_or_else(|| format!("cycle {now}: an answer with no operation outstanding"))?;
            if now != accepted + LATENCY as u64 {
                return Err(format!(
                    "cycle {now}: answer to the operation accepted in cycle {accepted} came after {} cycles, expected {LATENCY}",
                    now - accepted
                ));
            }
            if is_cfg != matches!(a, Response::Cfg(_)) {
                return Err(format!("cycle {now}: answer of the wrong kind: {a:?}"));
            }
            on_answer(answers.len(), &a);
            answers.push(a);
        }
        Ok(o)
    }
}

/// Whether `name` belongs to an output group that is valid in `o` (so may be non-zero).
fn is_answer_field(name: &str, o: &SwitchEngineOut) -> bool {
    (name.starts_with("out_") && o.out_valid)
        || (name.starts_with("ev_") && o.ev_valid)
        || (name.starts_with("rsp_") && o.rsp_valid)
}

impl EngineDut for CycleDriver {
    fn level(&self) -> Level {
        self.level
    }
    fn params(&self) -> SwitchEngineParams {
        self.params
    }
    fn cycles(&self) -> u64 {
        self.cycle
    }
    fn set_out_ready(&mut self, pattern: Option<fn(u64) -> bool>) {
        self.out_ready = pattern;
    }
    fn log(&self) -> &RunLog {
        &self.log
    }
    fn run_with(
        &mut self,
        ops: &[Timed],
        on_answer: &mut dyn FnMut(usize, &Response),
    ) -> Result<Vec<Response>, String> {
        let mut pending = VecDeque::new();
        let mut answers = Vec::with_capacity(ops.len());
        self.log = RunLog::default();
        self.ready_at = u64::MAX;
        let reset = SwitchEngineIn {
            reset: true,
            ..Default::default()
        };
        for _ in 0..RESET_CYCLES {
            self.step(&reset, &mut pending, &mut answers, on_answer)?;
        }
        // The table sweep: ready must rise after exactly `groups` cycles.
        let idle = SwitchEngineIn::default();
        let start = self.cycle;
        loop {
            let o = self.step(&idle, &mut pending, &mut answers, on_answer)?;
            if o.cfg_ready {
                self.ready_at = self.cycle - 1;
                break;
            }
            if self.cycle - start > self.params.groups as u64 + 1 {
                return Err(format!("cycle {}: still not ready after reset", self.cycle));
            }
        }
        let waited = self.cycle - 1 - start;
        if waited != self.params.groups as u64 {
            return Err(format!(
                "ready rose {waited} cycles after reset, expected {} (one per group)",
                self.params.groups
            ));
        }
        for (n, t) in ops.iter().enumerate() {
            for _ in 0..t.idle {
                self.step(&idle, &mut pending, &mut answers, on_answer)?;
            }
            let i = op_inputs(&t.op);
            let is_cfg = i.cfg_valid;
            // Offered until taken: only a full output queue (out_ready low) or a full input
            // payload buffer holds a packet.
            let first = self.cycle;
            loop {
                let at = self.cycle;
                let o = self.step(&i, &mut pending, &mut answers, on_answer)?;
                let accepted = if is_cfg { o.cfg_ready } else { o.pkt_ready };
                if accepted {
                    pending.push_back((at, is_cfg));
                    // The packet's other beats follow, one a cycle (always taken).
                    if let Op::Packet(pkt, data) = &t.op {
                        for j in 1..self.params.beats(pkt.plen & 255) as usize {
                            let mut beat = SwitchEngineIn {
                                pkt_valid: true,
                                ..SwitchEngineIn::default()
                            };
                            for (k, w) in beat.pkt_data.iter_mut().enumerate() {
                                *w = data.get(j * self.params.lanes + k).copied().unwrap_or(0);
                            }
                            let o = self.step(&beat, &mut pending, &mut answers, on_answer)?;
                            if !o.pkt_ready {
                                return Err(format!(
                                    "cycle {}: beat {j} of operation #{n} not taken",
                                    self.cycle - 1
                                ));
                            }
                        }
                    }
                    break;
                }
                if self.out_ready.is_none() || at - first >= MAX_STALL {
                    return Err(format!(
                        "cycle {at}: operation #{n} {:?} not accepted",
                        t.op
                    ));
                }
            }
        }
        for _ in 0..=LATENCY {
            self.step(&idle, &mut pending, &mut answers, on_answer)?;
        }
        // With back-pressure, the queue drains at the pattern's pace; a reducing engine's
        // payloads come after their events.
        let mut drain = 0;
        let payload_tail = if self.params.reduces() {
            (OUT_QUEUE as u64 + ipf_depth(&self.params) as u64) * self.params.max_beats() as u64
                + 4 * payload_pipe(&self.params) as u64
        } else {
            0
        };
        while (self.split() && self.dut.peek().out_valid) || drain < payload_tail {
            self.step(&idle, &mut pending, &mut answers, on_answer)?;
            drain += 1;
            if drain > MAX_STALL {
                return Err("the output queue never drained".to_string());
            }
        }
        if !pending.is_empty() {
            return Err(format!("{} operations never answered", pending.len()));
        }
        Ok(answers)
    }
}

/// Runs `dut` against the cycle model on the same inputs for `cycles` cycles, comparing every
/// output every cycle (the harness's [`Lockstep`]); with no `dut`, the cycle model alone. The
/// stimulus observes the outputs (it is protocol-aware) and checks every answer against its
/// golden shadow. A reset is applied for [`RESET_CYCLES`] first. The error is the first
/// difference (with the last cycles and, given `vcd_dir`, their waveform) or the first wrong
/// answer.
pub fn lockstep(
    dut: Option<EngineSim>,
    stim: &mut Stimulus,
    cycles: u64,
    vcd_dir: Option<&std::path::Path>,
) -> Result<(), String> {
    let p = stim.params();
    let mut reference = SwitchEngineModel::new(p);
    match dut {
        None => drive(&mut reference, stim, cycles),
        Some(d) => {
            let mut l = Lockstep::new(p, Box::new(reference), d, "cycle model vs design");
            if let Some(dir) = vcd_dir {
                l = l.with_vcd_dir(dir);
            }
            drive(&mut l, stim, cycles);
            l.finish().map_err(|m| m.to_string())?;
        }
    }
    match &stim.golden_mismatch {
        Some(g) => Err(g.clone()),
        None => Ok(()),
    }
}

/// Steps `design` with reset then `stim` for `cycles` cycles, letting `stim` check every
/// answer; stops at the first wrong one.
fn drive(
    design: &mut dyn CycleSim<In = SwitchEngineIn, Out = SwitchEngineOut>,
    stim: &mut Stimulus,
    cycles: u64,
) {
    for cycle in 0..cycles {
        let i = if cycle < RESET_CYCLES {
            SwitchEngineIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        let o = design.step(&i);
        stim.observe(&i, &o);
        if stim.golden_mismatch.is_some() {
            break;
        }
    }
}

/// Seeds of the random runs of `netcoll check`; fixed so a failure reproduces.
pub const CHECK_SEEDS: [u64; 2] = [0x000_9E48_F7EB, 0x2DF9_8CE6];

/// The engine's row of `netcoll check` at `level`: the directed suite, then (cycle levels)
/// random traffic in lockstep with the cycle model, every answer checked by the stimulus's
/// golden shadow.
pub fn check(level: Level, opts: &crate::check::CheckOptions) -> crate::check::Row {
    let mut row = crate::check::Row::default();
    for case in suite::cases().into_iter().filter(|c| c.runs_at(level)) {
        row.tests += 1;
        match traced_dut(level, &case.params, opts.trace.as_ref(), case.name) {
            Ok(mut d) => {
                if let Err(e) = suite::run_case(d.as_mut(), &case) {
                    row.failures.push(format!("{}: {e}", case.name));
                }
                row.cycles += d.cycles();
            }
            Err(e) => row
                .failures
                .push(format!("{}: cannot build the design: {e}", case.name)),
        }
    }
    let cycles = opts.cycles_at(level);
    if level == Level::Golden || cycles == 0 {
        return row;
    }
    let p = opts.config.switch;
    for &seed in &CHECK_SEEDS {
        row.tests += 1;
        let mut stim = Stimulus::new(p, seed);
        let design = match level {
            Level::Model => None,
            _ => match cycle_dut(level, &p) {
                Ok(d) => d,
                Err(e) => {
                    row.failures.push(format!("cannot build the design: {e}"));
                    continue;
                }
            },
        };
        if let Err(e) = lockstep(design, &mut stim, cycles, opts.vcd_dir.as_deref()) {
            row.failures.push(format!("seed {seed:#x}: {e}"));
        } else if stim.checked < cycles / 4 {
            row.failures.push(format!(
                "seed {seed:#x}: only {} answers checked in {cycles} cycles: the stimulus is not exercising the design",
                stim.checked
            ));
        }
        row.cycles += cycles;
    }
    row
}

/// Configuration commands, for building suites.
pub fn write_entry(cgid: u64, parent: u64, children: u64, is_root: bool) -> Op {
    Op::Cfg(CfgCmd {
        op: CfgOp::Write,
        cgid,
        entry: TableEntry {
            valid: true,
            parent,
            children,
            is_root,
        },
        counter: 0,
        tid: 0,
    })
}
