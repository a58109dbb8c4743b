//! Conformance harness of the switch collective engine.
//!
//! The suite ([`suite`]) is written once against [`EngineDut`]: "here are operations, give me
//! the engine's answers". Four levels implement it, only the design under test changes:
//! - [`Level::Golden`]: `netcoll_models::switch::golden`, untimed;
//! - [`Level::Model`]: the cycle model, through [`CycleDriver`];
//! - [`Level::Rtl`]: the rust-hdl block under rust-hdl's `simulate()`, through [`CycleDriver`];
//! - [`Level::Verilator`]: the emitted Verilog under Verilator, through [`CycleDriver`].
//!
//! [`CycleDriver`] also checks the timing contract every cycle: each accepted operation answers
//! exactly [`LATENCY`] cycles later and outputs that are not valid are zero. [`lockstep`]
//! compares two cycle-level designs every output every cycle; [`Stimulus`] makes the random,
//! protocol-aware inputs it (and the random suite) uses.

pub mod stimulus;
pub mod suite;

pub use stimulus::Stimulus;

use crate::verilator::{PortDesc, VerilatedModel};
use netcoll_hdl::switch::EngineRtl;
use netcoll_models::switch::engine::{expected_outputs, EngineModel};
use netcoll_models::switch::golden::{
    CfgCmd, CfgResult, GoldenEngine, Op, OutPacket, PacketResult, Response,
};
use netcoll_models::switch::{
    input_ports, output_ports, CfgOp, CsmState, EngineIn, EngineOut, EngineParams, GroupState,
    Opcode, TableEntry, Verdict, LATENCY,
};
use std::collections::VecDeque;
use std::fmt;

/// The levels a block is checked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Golden,
    Model,
    Rtl,
    Verilator,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Golden, Level::Model, Level::Rtl, Level::Verilator];
    pub fn name(self) -> &'static str {
        match self {
            Level::Golden => "golden",
            Level::Model => "cycle model",
            Level::Rtl => "rust-hdl rtl",
            Level::Verilator => "verilator",
        }
    }
}

/// An operation and the idle cycles offered before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timed {
    pub idle: u32,
    pub op: Op,
}

/// A design under test, at operation level: reset, run `ops`, return one answer per op.
pub trait EngineDut {
    fn level(&self) -> Level;
    fn params(&self) -> EngineParams;
    /// Resets the design, then offers `ops` in order. Answers are in [`observable`] form.
    fn run(&mut self, ops: &[Timed]) -> Result<Vec<Response>, String>;
    /// Clock cycles simulated so far (0 for the untimed golden reference).
    fn cycles(&self) -> u64 {
        0
    }
}

/// A design under test, at cycle level.
pub trait CycleDut {
    fn step(&mut self, i: &EngineIn) -> EngineOut;
}

impl CycleDut for EngineModel {
    fn step(&mut self, i: &EngineIn) -> EngineOut {
        EngineModel::step(self, i)
    }
}

impl CycleDut for Box<dyn EngineRtl> {
    fn step(&mut self, i: &EngineIn) -> EngineOut {
        self.as_mut().step(i)
    }
}

/// The emitted Verilog of the engine under Verilator.
pub struct VerilatorEngine {
    model: VerilatedModel,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

impl VerilatorEngine {
    /// Emits the engine for `p` and verilates it (cached across runs).
    pub fn new(p: &EngineParams) -> Result<Self, String> {
        let cfg = netcoll_models::config::Config {
            switch: *p,
            ..Default::default()
        };
        let module = netcoll_hdl::generate::switch_engine(&cfg).map_err(|e| e.to_string())?;
        let desc = |ports: Vec<netcoll_models::switch::PortSpec>| -> Vec<PortDesc> {
            ports
                .iter()
                .map(|s| PortDesc {
                    name: s.name.to_string(),
                    width: s.width,
                })
                .collect()
        };
        let (ins, outs) = (desc(input_ports(p)), desc(output_ports(p)));
        let model = VerilatedModel::build(&module.text, &module.name, &ins, &outs)
            .map_err(|e| e.to_string())?;
        Ok(Self {
            model,
            inputs: vec![0; ins.len()],
            outputs: vec![0; outs.len()],
        })
    }
}

impl CycleDut for VerilatorEngine {
    fn step(&mut self, i: &EngineIn) -> EngineOut {
        i.write_values(&mut self.inputs);
        self.model.step(&self.inputs, &mut self.outputs);
        EngineOut::from_values(&self.outputs)
    }
}

/// Makes a fresh cycle-level design of one level; `None` for the golden level.
pub fn cycle_dut(level: Level, p: &EngineParams) -> Result<Option<Box<dyn CycleDut>>, String> {
    Ok(match level {
        Level::Golden => None,
        Level::Model => Some(Box::new(EngineModel::new(*p))),
        Level::Rtl => Some(Box::new(
            netcoll_hdl::switch::build(p).ok_or_else(|| format!("unsupported parameters {p:?}"))?,
        )),
        Level::Verilator => Some(Box::new(VerilatorEngine::new(p)?)),
    })
}

/// A fresh operation-level design of one level.
pub fn dut(level: Level, p: &EngineParams) -> Result<Box<dyn EngineDut>, String> {
    Ok(match cycle_dut(level, p)? {
        None => Box::new(GoldenDut { params: *p }),
        Some(d) => Box::new(CycleDriver::new(level, *p, d)),
    })
}

/// Answers as they can be observed on the ports: a packet's `reported` mask is not an output,
/// so it is zero here (it is checked through `ReadEntry`). Every level's answers go through
/// this, so levels are compared on exactly what the hardware shows.
pub fn observable(r: &Response) -> Response {
    from_outputs(&expected_outputs(r)).unwrap_or(*r)
}

/// The answer shown by one cycle's outputs, if any.
pub fn from_outputs(o: &EngineOut) -> Option<Response> {
    if o.ev_valid {
        // A reserved opcode on the wire has no `Opcode`; CycleDriver rejects it before this.
        let out = Opcode::from_code(o.out_op)
            .filter(|_| o.out_valid)
            .map(|op| OutPacket {
                ports: o.out_ports,
                cgid: o.out_cgid,
                tid: o.out_tid,
                op,
            });
        Some(Response::Packet {
            cgid: o.ev_cgid,
            result: PacketResult {
                verdict: Verdict::from_code(o.ev_verdict).unwrap_or(Verdict::Ok),
                state: GroupState {
                    csm: CsmState::from_code(o.ev_state),
                    fail: o.ev_fail,
                    tid: o.ev_tid,
                    reported: 0,
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
                csm: CsmState::from_code(o.rsp_state),
                fail: o.rsp_fail,
                tid: o.rsp_tid,
                reported: o.rsp_reported,
            },
            counter: o.rsp_counter,
        }))
    } else {
        None
    }
}

/// The golden reference as a design under test.
pub struct GoldenDut {
    params: EngineParams,
}

impl EngineDut for GoldenDut {
    fn level(&self) -> Level {
        Level::Golden
    }
    fn params(&self) -> EngineParams {
        self.params
    }
    fn run(&mut self, ops: &[Timed]) -> Result<Vec<Response>, String> {
        let mut g = GoldenEngine::new(self.params);
        Ok(ops.iter().map(|t| observable(&g.apply(&t.op))).collect())
    }
}

/// The port inputs that offer `op` (with `reset` low).
pub fn op_inputs(op: &Op) -> EngineIn {
    let mut i = EngineIn::default();
    match op {
        Op::Packet(p) => {
            i.pkt_valid = true;
            i.pkt_port = p.port;
            i.pkt_cgid = p.cgid;
            i.pkt_tid = p.tid;
            i.pkt_op = p.op;
        }
        Op::Cfg(CfgCmd {
            op,
            cgid,
            entry,
            counter,
        }) => {
            i.cfg_valid = true;
            i.cfg_op = *op as u64;
            i.cfg_cgid = *cgid;
            i.cfg_entry_valid = entry.valid;
            i.cfg_parent = entry.parent;
            i.cfg_children = entry.children;
            i.cfg_is_root = entry.is_root;
            i.cfg_counter = *counter;
        }
    }
    i
}

/// Drives a cycle-level design through operations, checking the timing contract.
pub struct CycleDriver {
    level: Level,
    params: EngineParams,
    dut: Box<dyn CycleDut>,
    cycle: u64,
}

/// Reset cycles the driver applies before every run.
pub const RESET_CYCLES: u64 = 2;

impl CycleDriver {
    pub fn new(level: Level, params: EngineParams, dut: Box<dyn CycleDut>) -> Self {
        Self {
            level,
            params,
            dut,
            cycle: 0,
        }
    }

    fn step(
        &mut self,
        i: &EngineIn,
        pending: &mut VecDeque<(u64, bool)>,
        answers: &mut Vec<Response>,
    ) -> Result<EngineOut, String> {
        let o = self.dut.step(i);
        let now = self.cycle;
        self.cycle += 1;
        let answer = from_outputs(&o);
        if o.ev_valid && o.rsp_valid {
            return Err(format!("cycle {now}: ev_valid and rsp_valid together"));
        }
        if o.out_valid && !o.ev_valid {
            return Err(format!("cycle {now}: out_valid without ev_valid"));
        }
        if o.out_valid && Opcode::from_code(o.out_op).is_none() {
            return Err(format!(
                "cycle {now}: out_op is the reserved code {}",
                o.out_op
            ));
        }
        // Outputs of a group (out_*, ev_*, rsp_*) whose valid is low must be zero.
        for (spec, v) in output_ports(&self.params).iter().zip(o.to_values()).skip(2) {
            if v != 0 && !is_answer_field(spec.name, &o) {
                return Err(format!(
                    "cycle {now}: signal {} is {v:#x} but its group is not valid (expected 0)",
                    spec.name
                ));
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
            answers.push(a);
        }
        Ok(o)
    }
}

/// Whether `name` belongs to an output group that is valid in `o` (so may be non-zero).
fn is_answer_field(name: &str, o: &EngineOut) -> bool {
    (name.starts_with("out_") && o.out_valid)
        || (name.starts_with("ev_") && o.ev_valid)
        || (name.starts_with("rsp_") && o.rsp_valid)
}

impl EngineDut for CycleDriver {
    fn level(&self) -> Level {
        self.level
    }
    fn params(&self) -> EngineParams {
        self.params
    }
    fn cycles(&self) -> u64 {
        self.cycle
    }
    fn run(&mut self, ops: &[Timed]) -> Result<Vec<Response>, String> {
        let mut pending = VecDeque::new();
        let mut answers = Vec::with_capacity(ops.len());
        let reset = EngineIn {
            reset: true,
            ..Default::default()
        };
        for _ in 0..RESET_CYCLES {
            self.step(&reset, &mut pending, &mut answers)?;
        }
        // The table sweep: ready must rise after exactly `groups` cycles.
        let idle = EngineIn::default();
        let start = self.cycle;
        loop {
            let o = self.step(&idle, &mut pending, &mut answers)?;
            if o.cfg_ready {
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
                self.step(&idle, &mut pending, &mut answers)?;
            }
            let i = op_inputs(&t.op);
            let is_cfg = i.cfg_valid;
            let at = self.cycle;
            let o = self.step(&i, &mut pending, &mut answers)?;
            let accepted = if is_cfg { o.cfg_ready } else { o.pkt_ready };
            if !accepted {
                return Err(format!(
                    "cycle {at}: operation #{n} {:?} not accepted",
                    t.op
                ));
            }
            pending.push_back((at, is_cfg));
        }
        for _ in 0..=LATENCY {
            self.step(&idle, &mut pending, &mut answers)?;
        }
        if !pending.is_empty() {
            return Err(format!("{} operations never answered", pending.len()));
        }
        Ok(answers)
    }
}

/// A difference between two designs run in lockstep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub signal: &'static str,
    pub expected: u64,
    pub actual: u64,
    pub inputs: EngineIn,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cycle {}: signal {} expected {:#x}, actual {:#x} (inputs this cycle: {:?})",
            self.cycle, self.signal, self.expected, self.actual, self.inputs
        )
    }
}

/// Runs `reference` and `dut` on the same inputs for `cycles` cycles, comparing every output
/// every cycle. The stimulus observes the reference's outputs (it is protocol-aware) and checks
/// them against its golden shadow; with no `dut` that is the only check. A reset is applied
/// for [`RESET_CYCLES`] first. Returns the first difference between the two designs.
pub fn lockstep(
    reference: &mut dyn CycleDut,
    mut dut: Option<&mut dyn CycleDut>,
    stim: &mut Stimulus,
    cycles: u64,
) -> Result<(), Mismatch> {
    let p = stim.params();
    let names: Vec<&'static str> = output_ports(&p).iter().map(|s| s.name).collect();
    for cycle in 0..cycles {
        let i = if cycle < RESET_CYCLES {
            EngineIn {
                reset: true,
                ..Default::default()
            }
        } else {
            stim.next_inputs()
        };
        let a = reference.step(&i);
        let b = match dut.as_mut() {
            Some(d) => d.step(&i),
            None => a,
        };
        if a != b {
            let (va, vb) = (a.to_values(), b.to_values());
            let k = (0..va.len()).find(|&k| va[k] != vb[k]).unwrap_or(0);
            return Err(Mismatch {
                cycle,
                signal: names[k],
                expected: va[k],
                actual: vb[k],
                inputs: i,
            });
        }
        stim.observe(&i, &a);
    }
    Ok(())
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
    })
}
