//! Protocol-aware random stimulus for the switch engine.
//!
//! Uniformly random packets would drive every group into Failure within a few cycles and then
//! exercise nothing but the `GroupFailed` drop. So the generator keeps a shadow golden
//! reference, updated with every operation the design accepts, and mostly sends what a real
//! tree would: FULL from children that have not reported, EXIT from the parent of a Full group,
//! STATUS_REQ from lagging children; the rest is configuration traffic, duplicates, packets on
//! wrong ports, reserved opcodes, wrong TIDs, back-to-back operations on one group,
//! configuration colliding with packets, idle gaps and the occasional reset.
//!
//! The shadow reference also checks the design: each accepted operation's golden answer must
//! appear on the outputs [`LATENCY`] cycles later ([`Stimulus::observe`]).

use super::{from_outputs, observable, op_inputs};
use netcoll_models::switch_engine::golden::{CfgCmd, Op, Response, SwitchEngineGolden};
use netcoll_models::switch_engine::model::expected_outputs;
use netcoll_models::switch_engine::{
    CfgOp, CsmState, Packet, SwitchEngineIn, SwitchEngineOut, SwitchEngineParams, TableEntry,
    COUNTERS, LATENCY,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Random stimulus with a shadow golden reference.
pub struct Stimulus {
    p: SwitchEngineParams,
    seed: u64,
    rng: ChaCha8Rng,
    shadow: SwitchEngineGolden,
    /// The CGIDs most traffic goes to (a handful, so barriers complete).
    active: Vec<u64>,
    /// Golden answers not yet seen on the outputs: (cycle due, answer).
    due: VecDeque<(u64, Response)>,
    cycle: u64,
    /// Probability of an idle cycle.
    pub idle: f64,
    /// Probability of a reset cycle.
    pub reset: f64,
    /// Answers checked against the golden reference.
    pub checked: u64,
    /// First disagreement between the design and the golden reference.
    pub golden_mismatch: Option<String>,
}

impl Stimulus {
    pub fn new(p: SwitchEngineParams, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = rng.gen_range(2..=6).min(p.groups);
        let active = (0..n).map(|_| rng.gen_range(0..p.groups as u64)).collect();
        Self {
            p,
            seed,
            rng,
            shadow: SwitchEngineGolden::new(p),
            active,
            due: VecDeque::new(),
            cycle: 0,
            idle: 0.2,
            reset: 0.000_01,
            checked: 0,
            golden_mismatch: None,
        }
    }

    pub fn params(&self) -> SwitchEngineParams {
        self.p
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn random_entry(&mut self) -> TableEntry {
        let r = self.p.radix as u64;
        let mut children = 0u64;
        for _ in 0..self.rng.gen_range(1..=4) {
            children |= 1 << self.rng.gen_range(0..r);
        }
        let parent = self.rng.gen_range(0..r);
        // A non-root needs a parent port outside its child mask.
        children &= !(1 << parent);
        if children == 0 {
            children = 1 << ((parent + 1) % r);
        }
        TableEntry {
            valid: !self.rng.gen_bool(0.03),
            parent,
            children,
            is_root: self.rng.gen_bool(0.3),
        }
    }

    /// A configuration command.
    pub fn random_cfg(&mut self) -> Op {
        let cgid = if self.rng.gen_bool(0.9) {
            self.active[self.rng.gen_range(0..self.active.len())]
        } else {
            self.rng.gen_range(0..self.p.groups as u64)
        };
        let k = self.rng.gen_range(0..100);
        let op = match k {
            0..=54 => CfgOp::Write,
            55..=84 => CfgOp::ReadEntry,
            85..=97 => CfgOp::ReadCounter,
            _ => CfgOp::ClearCounters,
        };
        let entry = if op == CfgOp::Write {
            self.random_entry()
        } else {
            TableEntry::default()
        };
        Op::Cfg(CfgCmd {
            op,
            cgid,
            entry,
            counter: self.rng.gen_range(0..COUNTERS as u64),
        })
    }

    /// A packet, mostly one the protocol would send next.
    pub fn random_packet(&mut self) -> Op {
        let cgid = if self.rng.gen_bool(0.97) {
            self.active[self.rng.gen_range(0..self.active.len())]
        } else {
            self.rng.gen_range(0..self.p.groups as u64)
        };
        let e = self.shadow.entry(cgid);
        let s = self.shadow.state(cgid);
        let r = self.p.radix as u64;
        let k = self.rng.gen_range(0..100);
        let children: Vec<u64> = (0..r).filter(|b| e.children >> b & 1 == 1).collect();
        let waiting: Vec<u64> = children
            .iter()
            .copied()
            .filter(|b| s.reported >> b & 1 == 0)
            .collect();
        let (port, op, tid) = if !e.valid || k >= 92 {
            // Anything at all: reserved opcodes, wrong ports, wrong TIDs.
            (
                self.rng.gen_range(0..r),
                self.rng.gen_range(0..8),
                self.rng.gen_range(0..4),
            )
        } else if s.csm == CsmState::Full && !e.is_root && k < 60 {
            // The parent completes the transaction (sometimes as a STATUS_RSP, sometimes late).
            let op = if self.rng.gen_bool(0.8) { 1 } else { 3 };
            let tid = if self.rng.gen_bool(0.9) {
                s.tid
            } else {
                (s.tid + 3) % 4
            };
            (e.parent, op, tid)
        } else if k < 75 && !waiting.is_empty() {
            let port = waiting[self.rng.gen_range(0..waiting.len())];
            let op = if self.rng.gen_bool(0.9) { 0 } else { 2 };
            (port, op, s.tid)
        } else if k < 85 && !children.is_empty() {
            // A child that already reported, or one that lags a transaction behind.
            let port = children[self.rng.gen_range(0..children.len())];
            let op = self.rng.gen_range(0..3) & 2;
            let tid = if self.rng.gen_bool(0.5) {
                s.tid
            } else {
                (s.tid + 3) % 4
            };
            (port, op, tid)
        } else {
            (e.parent, self.rng.gen_range(0..4), s.tid)
        };
        Op::Packet(Packet {
            port,
            cgid,
            tid,
            op,
        })
    }

    /// The inputs of the next cycle (the shadow reference, kept by [`Self::observe`], is what
    /// makes them protocol-aware).
    pub fn next_inputs(&mut self) -> SwitchEngineIn {
        if self.rng.gen_bool(self.reset) {
            return SwitchEngineIn {
                reset: true,
                ..Default::default()
            };
        }
        if self.rng.gen_bool(self.idle) {
            return SwitchEngineIn::default();
        }
        let k = self.rng.gen_range(0..100);
        if k < 4 {
            op_inputs(&self.random_cfg())
        } else if k < 6 {
            // Configuration and a packet in the same cycle: the packet must wait.
            let mut i = op_inputs(&self.random_cfg());
            let pkt = op_inputs(&self.random_packet());
            i.pkt_valid = true;
            i.pkt_port = pkt.pkt_port;
            i.pkt_cgid = pkt.pkt_cgid;
            i.pkt_tid = pkt.pkt_tid;
            i.pkt_op = pkt.pkt_op;
            i
        } else {
            op_inputs(&self.random_packet())
        }
    }

    /// Records what the design did with `i` (its outputs `o` in the same cycle): applies an
    /// accepted operation to the shadow reference and checks the answer due this cycle.
    pub fn observe(&mut self, i: &SwitchEngineIn, o: &SwitchEngineOut) {
        let now = self.cycle;
        self.cycle += 1;
        if let Some((due, want)) = self.due.front().copied() {
            if due == now {
                self.due.pop_front();
                self.checked += 1;
                // Compared on the raw port values, not through a conversion that could hide a
                // reserved code.
                let want_ports = expected_outputs(&want);
                let shown = SwitchEngineOut {
                    pkt_ready: false,
                    cfg_ready: false,
                    ..*o
                };
                if shown != want_ports && self.golden_mismatch.is_none() {
                    self.golden_mismatch = Some(format!(
                        "seed {}: cycle {now}: golden reference answers {want:?}, design shows {:?}",
                        self.seed,
                        from_outputs(o)
                    ));
                }
            }
        }
        if i.reset {
            self.shadow = SwitchEngineGolden::new(self.p);
            self.due.clear();
            return;
        }
        let op = if i.cfg_valid && o.cfg_ready {
            Some(Op::Cfg(CfgCmd {
                op: CfgOp::of(i.cfg_op),
                cgid: i.cfg_cgid,
                entry: TableEntry {
                    valid: i.cfg_entry_valid,
                    parent: i.cfg_parent,
                    children: i.cfg_children,
                    is_root: i.cfg_is_root,
                },
                counter: i.cfg_counter,
            }))
        } else if i.pkt_valid && o.pkt_ready {
            Some(Op::Packet(Packet {
                port: i.pkt_port,
                cgid: i.pkt_cgid,
                tid: i.pkt_tid,
                op: i.pkt_op,
            }))
        } else {
            None
        };
        if let Some(op) = op {
            let answer = observable(&self.shadow.apply(&op));
            self.due.push_back((now + LATENCY as u64, answer));
        }
    }
}
