//! # Transaction-level model of the switch collective engine (the fabric's fast engine)
//!
//! [`SwitchEngineTxn`] shows at its ports, cycle for cycle, exactly what the
//! [cycle model](super::model) shows (and so the RTL and the Verilog), but works per operation
//! instead of per register: an operation accepted in cycle `t` is answered at once by the
//! [golden](super::golden) (told the engine's `now`), and the answer is held back until cycle
//! `t + 4` ([`super::LATENCY`]). Around the golden it keeps only what the ports can see of the
//! pipeline:
//! - the reset sweep (`cfg_ready` and `pkt_ready` low for `groups` cycles after a reset);
//! - `now`, for the epoch an operation is accepted in;
//! - the operations accepted in the last four cycles, with their answers: which may send (a
//!   packet or a tick) counts for `room`, and the one accepted four cycles ago is what the
//!   stage-4 output registers show;
//! - the output queue of [`super::OUT_QUEUE`] packets behind them, drained by `out_ready`;
//! - with the retry timer on, the scan pointer of the ticks (rule 8).
//!
//! ## Why it is equal to the cycle model
//!
//! The cycle model's bypasses make its four stages behave as if each operation ran alone, in
//! acceptance order, in the cycle it was accepted (which is what its random comparison with the
//! golden checks): so the answers are the golden's. Its ports then depend on the pipeline only
//! through the timing kept above. The test `txn_equals_cycle_model` (in [`super::model`]) runs
//! both on random traffic, with idle gaps, resets, random `out_ready` back-pressure and the
//! retry timer on and off, and compares every output of every cycle.
//!
//! ## Why it exists
//!
//! A fabric of thousands of switches spends most of its time in the engines; the cycle model
//! costs a few hundred instructions per clock and an operation takes five clocks to come out.
//! This model costs one golden step per operation and almost nothing per clock.

use super::golden::{Op, Response, SwitchEngineGolden};
use super::model::expected_outputs;
use super::{SwitchEngineIn, SwitchEngineOut, SwitchEngineParams, LATENCY, NOW_BITS, OUT_QUEUE};
use crate::kit::cycle::CycleSim;
use crate::kit::ports::mask;
use std::collections::VecDeque;

/// An accepted operation until it has shown its answer: the golden's answer (none for an
/// invisible tick) and whether it may send a packet (a packet or a tick: counted against the
/// output queue's room).
#[derive(Clone, Debug)]
struct InFlight {
    /// The cycle it was accepted in; it shows its answer in `at + LATENCY`.
    at: u64,
    may_send: bool,
    answer: Option<Response>,
}

/// An output packet waiting in the queue.
#[derive(Clone, Copy, Debug)]
struct Queued {
    ports: u64,
    cgid: u64,
    tid: u64,
    op: u64,
}

/// What a fabric of engines acts on in a cycle, out of the whole [`SwitchEngineOut`]: the two
/// ready signals, the output packet, the event's verdict and CGID, and whether a configuration
/// response came (and was a rejection). [`SwitchEngineTxn::step_fabric`] shows exactly these
/// fields of what [`SwitchEngineTxn::step`] would show; `From<&SwitchEngineOut>` takes them from
/// any level's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FabricOut {
    pub cfg_ready: bool,
    pub pkt_ready: bool,
    /// `out_valid` and the packet shown.
    pub out: Option<FabricPacket>,
    /// `ev_valid` with (`ev_verdict`, `ev_cgid`).
    pub ev: Option<(u64, u64)>,
    /// `rsp_valid` with `rsp_rejected`.
    pub rsp: Option<bool>,
}

/// The output packet's beat: `out_ports`, `out_cgid`, `out_tid`, `out_op`, and on a reducing
/// engine `out_plen`, `out_rop`, `out_dtype` and the beat's words `out_data` (all zero on a
/// barrier-only engine, which is all this model is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FabricPacket {
    pub ports: u64,
    pub cgid: u64,
    pub tid: u64,
    pub op: u64,
    pub plen: u64,
    pub rop: u64,
    pub dtype: u64,
    pub data: [u64; 4],
}

impl From<&SwitchEngineOut> for FabricOut {
    fn from(o: &SwitchEngineOut) -> FabricOut {
        FabricOut {
            cfg_ready: o.cfg_ready,
            pkt_ready: o.pkt_ready,
            out: o.out_valid.then_some(FabricPacket {
                ports: o.out_ports,
                cgid: o.out_cgid,
                tid: o.out_tid,
                op: o.out_op,
                plen: o.out_plen,
                rop: o.out_rop,
                dtype: o.out_dtype,
                data: o.out_data,
            }),
            ev: o.ev_valid.then_some((o.ev_verdict, o.ev_cgid)),
            rsp: o.rsp_valid.then_some(o.rsp_rejected),
        }
    }
}

/// The engine as the golden plus the timing of its ports.
#[derive(Clone, Debug)]
pub struct SwitchEngineTxn {
    p: SwitchEngineParams,
    golden: SwitchEngineGolden,
    /// Sweep cycles left after the last reset (the engine is ready when it is 0).
    sweep_left: u64,
    /// Cycles since the sweep ended, [`NOW_BITS`] wide.
    now: u64,
    /// The group of the next tick (retry timer on).
    scan_ptr: u64,
    /// The current cycle, counted from the engine's creation (never wraps).
    cycle: u64,
    /// Operations accepted in the last four cycles (stages 1–4), oldest first …
    in_flight: VecDeque<InFlight>,
    /// … and how many of them may send.
    sends: usize,
    /// Output packets behind the stage-4 output register, oldest first.
    queue: VecDeque<Queued>,
    /// The last cycle's `cfg_valid` (for [`CycleSim::peek`]: `pkt_ready` depends on it).
    last_cfg_valid: bool,
}

impl SwitchEngineTxn {
    /// An engine in the state right after a reset edge (it sweeps first), as
    /// [`super::model::SwitchEngineModel::new`].
    ///
    /// # Panics
    /// For a reducing engine (`max_plen > 0`): this model has no payload path (a fabric runs
    /// such an engine as the cycle model).
    pub fn new(p: SwitchEngineParams) -> Self {
        assert!(
            !p.reduces(),
            "the transaction-level model is for barrier-only engines (max_plen = 0)"
        );
        Self {
            p,
            golden: SwitchEngineGolden::new(p),
            sweep_left: p.groups as u64,
            now: 0,
            scan_ptr: 0,
            cycle: 0,
            in_flight: VecDeque::with_capacity(LATENCY),
            sends: 0,
            queue: VecDeque::with_capacity(OUT_QUEUE),
            last_cfg_valid: false,
        }
    }

    pub fn params(&self) -> SwitchEngineParams {
        self.p
    }

    /// The golden behind the ports: its table, states and counters are the engine's once
    /// every accepted operation has come out.
    pub fn golden(&self) -> &SwitchEngineGolden {
        &self.golden
    }

    fn init_done(&self) -> bool {
        self.sweep_left == 0
    }

    /// The operation in stage 4 (accepted `LATENCY` cycles ago), showing its answer now.
    fn stage4(&self) -> Option<&InFlight> {
        self.in_flight
            .front()
            .filter(|f| f.at + LATENCY as u64 == self.cycle)
    }

    /// The output packet of the stage-4 output register.
    fn stage4_packet(&self) -> Option<Queued> {
        match self.stage4()?.answer.as_ref()? {
            Response::Packet { result, .. } => result.out.as_ref().map(|o| Queued {
                ports: o.ports,
                cgid: o.cgid,
                tid: o.tid,
                op: o.op.code(),
            }),
            Response::Cfg(_) => None,
        }
    }

    /// The cycle model's `room`: the queued packets plus every one that may still join them
    /// (stages 1–3, and the stage-4 output register) stay within the queue's depth.
    fn room(&self) -> bool {
        let (stage4_sends, stage4_packet) = match self.stage4() {
            Some(f) => (f.may_send, self.stage4_packet().is_some()),
            None => (false, false),
        };
        self.queue.len() + self.sends - usize::from(stage4_sends) + usize::from(stage4_packet)
            < OUT_QUEUE
    }

    fn outputs(&self, i: &SwitchEngineIn) -> SwitchEngineOut {
        let mut o = match self.stage4().and_then(|f| f.answer.as_ref()) {
            Some(r) => expected_outputs(r),
            None => SwitchEngineOut::default(),
        };
        if let Some(head) = self.queue.front() {
            o.out_valid = true;
            o.out_ports = head.ports;
            o.out_cgid = head.cgid;
            o.out_tid = head.tid;
            o.out_op = head.op;
        }
        o.cfg_ready = self.init_done();
        o.pkt_ready = self.init_done() && !i.cfg_valid && self.room();
        o
    }

    /// One clock cycle: the outputs during the cycle, then the edge.
    pub fn step(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
        let o = self.outputs(i);
        self.edge(i, o.out_valid, o.cfg_ready, o.pkt_ready);
        o
    }

    /// [`Self::step`], returning only what a fabric acts on ([`FabricOut`]): the same cycle,
    /// without building the rest of the port struct.
    pub fn step_fabric(&mut self, i: &SwitchEngineIn) -> FabricOut {
        let answer = self.stage4().and_then(|f| f.answer.as_ref());
        let out = match self.queue.front() {
            Some(head) => Some(*head),
            None => self.stage4_packet(),
        };
        let (ev, rsp) = match answer {
            Some(Response::Packet { cgid, result }) => (Some((result.verdict.code(), *cgid)), None),
            Some(Response::Cfg(r)) => (None, Some(r.rejected)),
            None => (None, None),
        };
        let cfg_ready = self.init_done();
        let pkt_ready = cfg_ready && !i.cfg_valid && self.room();
        self.edge(i, out.is_some(), cfg_ready, pkt_ready);
        FabricOut {
            cfg_ready,
            pkt_ready,
            out: out.map(|q| FabricPacket {
                ports: q.ports,
                cgid: q.cgid,
                tid: q.tid,
                op: q.op,
                ..FabricPacket::default()
            }),
            ev,
            rsp,
        }
    }

    /// The clock edge, given the cycle's inputs and the outputs it showed (`out_valid`,
    /// `cfg_ready`, `pkt_ready`: the handshakes).
    fn edge(&mut self, i: &SwitchEngineIn, out_valid: bool, cfg_ready: bool, pkt_ready: bool) {
        let room = self.room();
        self.last_cfg_valid = i.cfg_valid;
        if i.reset {
            // An operation handshaken during a reset cycle is lost with everything in flight.
            *self = Self {
                last_cfg_valid: i.cfg_valid,
                cycle: self.cycle + 1,
                ..Self::new(self.p)
            };
            return;
        }
        // The output queue: the packet shown leaves with `out_ready`; the stage-4 packet
        // joins the queue unless it was the one shown and left.
        let from_queue = !self.queue.is_empty();
        let taken = out_valid && i.out_ready;
        if taken && from_queue {
            self.queue.pop_front();
        }
        if let Some(q) = self.stage4_packet() {
            if from_queue || !taken {
                self.queue.push_back(q);
            }
        }
        if let Some(f) = self.stage4() {
            self.sends -= usize::from(f.may_send);
            self.in_flight.pop_front();
        }
        // Stage 0: accept (the configuration port first), or tick when nothing is offered.
        let take_cfg = cfg_ready && i.cfg_valid;
        let take_pkt = pkt_ready && i.pkt_valid;
        let tick =
            self.p.retry_timer_on() && self.init_done() && !i.cfg_valid && !i.pkt_valid && room;
        if take_cfg || take_pkt {
            let answer = self.golden.apply_at(&Op::offered(i, take_cfg), self.now);
            self.sends += usize::from(!take_cfg);
            self.in_flight.push_back(InFlight {
                at: self.cycle,
                may_send: !take_cfg,
                answer: Some(answer),
            });
        } else if tick {
            let cgid = self.scan_ptr;
            self.scan_ptr = (self.scan_ptr + 1) & (self.p.groups as u64 - 1);
            let answer = self.golden.tick(cgid, self.now);
            self.sends += 1;
            self.in_flight.push_back(InFlight {
                at: self.cycle,
                may_send: true,
                answer,
            });
        }
        self.cycle += 1;
        if self.init_done() {
            self.now = (self.now + 1) & mask(NOW_BITS);
        } else {
            self.sweep_left -= 1;
        }
    }

    /// Nothing in flight, nothing queued, the sweep done and the timer off: the outputs show
    /// nothing (but the ready signals) and a cycle with nothing offered changes only the time.
    pub fn quiet(&self) -> bool {
        self.in_flight.is_empty()
            && self.queue.is_empty()
            && self.init_done()
            && !self.p.retry_timer_on()
    }

    /// `n` cycles with every input low, exactly as `n` calls of [`Self::step`] with
    /// `SwitchEngineIn::default()`, in time independent of `n`: nothing is accepted and, with
    /// `out_ready` low, nothing leaves, so every operation that shows its answer within the
    /// stretch adds its packet (if any) to the queue, and the rest is time. With the timer on,
    /// idle cycles tick: they are stepped.
    pub fn idle(&mut self, n: u64) {
        let idle = SwitchEngineIn::default();
        if self.p.retry_timer_on() {
            for _ in 0..n {
                self.step(&idle);
            }
            return;
        }
        self.last_cfg_valid = false;
        let end = self.cycle + n;
        while let Some(f) = self
            .in_flight
            .front()
            .filter(|f| f.at + (LATENCY as u64) < end)
        {
            let (at, may_send) = (f.at, f.may_send);
            self.cycle = at + LATENCY as u64;
            if let Some(q) = self.stage4_packet() {
                self.queue.push_back(q);
            }
            self.sends -= usize::from(may_send);
            self.in_flight.pop_front();
        }
        self.cycle = end;
        let sweep = self.sweep_left.min(n);
        self.sweep_left -= sweep;
        self.now = (self.now + n - sweep) & mask(NOW_BITS);
    }
}

impl CycleSim for SwitchEngineTxn {
    type In = SwitchEngineIn;
    type Out = SwitchEngineOut;
    fn step(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
        SwitchEngineTxn::step(self, i)
    }
    fn peek(&mut self) -> SwitchEngineOut {
        let last = SwitchEngineIn {
            cfg_valid: self.last_cfg_valid,
            ..SwitchEngineIn::default()
        };
        self.outputs(&last)
    }
}
