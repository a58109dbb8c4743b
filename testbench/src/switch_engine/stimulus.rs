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
//! appear on the outputs [`LATENCY`] cycles later ([`Stimulus::observe`]) — its event or
//! response then, its output packet at the head of the output queue, in order, whenever
//! `out_ready` lets it out. The stimulus holds `out_ready` low for stretches of up to
//! [`Stimulus::max_stall`] cycles, long enough to fill the queue and hold `pkt_ready` low. It
//! counts the engine's cycles (`now`, for the golden's epochs) and mirrors the retry timer:
//! a cycle after the sweep with nothing offered and `pkt_ready` high is a tick of the next
//! group, which the golden answers too.
//!
//! For a reducing engine, packets carry payloads: most of a group's contributions share the
//! group's shape (length, operation, type) so that reductions complete, some do not, and some
//! are malformed (too long, a reserved operation, an odd MAXLOC length, a group without data
//! memory). The words are random; a packet's later beats follow its header with idle gaps
//! and configuration operations between them, and junk in the header fields of the beats.
//! The shadow checks each output packet's shape and every word of its payload as it leaves.
//! (The retry timer's ticks are mirrored from `pkt_ready`, which a reducing engine also
//! lowers for a full input FIFO, so a reducing engine is run with the timer off.)

use super::{from_outputs, observable, op_inputs};
use netcoll_models::kit::ports::mask;
use netcoll_models::reduce_alu::{AluOp, FIRST_RESERVED_OP};
use netcoll_models::switch_engine::golden::{CfgCmd, Op, OutPacket, Response, SwitchEngineGolden};
use netcoll_models::switch_engine::model::{answer_part, expected_outputs};
use netcoll_models::switch_engine::{
    CfgOp, CsmState, Packet, PayloadMeta, SwitchEngineIn, SwitchEngineOut, SwitchEngineParams,
    TableEntry, LATENCY, NOW_BITS,
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
    /// Output packets due, in queue order: from their answer's cycle on, the first is the
    /// one `out_*` must show.
    outs: VecDeque<OutPacket>,
    cycle: u64,
    /// The engine's `now` in the next cycle, and the group of its next tick.
    now: u64,
    scan: u64,
    /// Cycles left with `out_ready` low.
    stall: u64,
    /// Probability of an idle cycle.
    pub idle: f64,
    /// Probability of a reset cycle.
    pub reset: f64,
    /// Probability, in a cycle with `out_ready` high, that a stretch of `out_ready` low
    /// begins, and the longest stretch (1 ..= this many cycles).
    pub backpressure: f64,
    pub max_stall: u64,
    /// Ticks that acted (`Retry` events checked), and cycles in which a packet was held back
    /// by a full output queue.
    pub retries: u64,
    pub held: u64,
    /// Answers checked against the golden reference.
    pub checked: u64,
    /// First disagreement between the design and the golden reference.
    pub golden_mismatch: Option<String>,
    /// The packet offered this cycle (a reducing engine: with its payload words).
    offered: Option<Op>,
    /// The beats still to send of the packet whose header was taken.
    beats: VecDeque<[u64; 4]>,
    /// The shape most contributions to each group take.
    shapes: Vec<PayloadMeta>,
    /// Beats of the head output packet already taken.
    out_sent: u64,
    /// Payload words checked on the outputs, and packets with a payload taken.
    pub words_checked: u64,
    pub payloads: u64,
}

impl Stimulus {
    pub fn new(p: SwitchEngineParams, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = rng.gen_range(2..=6).min(p.groups);
        // A reducing engine's traffic goes mostly to groups with data memory.
        let pool = if p.reduces() { p.slots } else { p.groups };
        let active = (0..n).map(|_| rng.gen_range(0..pool as u64)).collect();
        let shapes = (0..p.groups).map(|_| random_shape(&p, &mut rng)).collect();
        Self {
            p,
            seed,
            rng,
            shadow: SwitchEngineGolden::new(p),
            active,
            due: VecDeque::new(),
            outs: VecDeque::new(),
            cycle: 0,
            now: 0,
            scan: 0,
            stall: 0,
            idle: 0.2,
            reset: 0.000_01,
            backpressure: 0.01,
            max_stall: 80,
            retries: 0,
            held: 0,
            checked: 0,
            golden_mismatch: None,
            offered: None,
            beats: VecDeque::new(),
            shapes,
            out_sent: 0,
            words_checked: 0,
            payloads: 0,
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
        let mut entry = if op == CfgOp::Write {
            self.random_entry()
        } else {
            TableEntry::default()
        };
        // Now and then an entry the port rejects: no child, or the parent among them.
        if op == CfgOp::Write && self.rng.gen_bool(0.05) {
            if self.rng.gen_bool(0.5) {
                entry.children = 0;
            } else {
                entry.is_root = false;
                entry.children |= 1 << entry.parent;
            }
        }
        // Mostly a new group (TID 0) or the group's own TID, as a subnet manager would.
        let tid = match self.rng.gen_range(0..4) {
            0 => self.rng.gen_range(0..4),
            1 => self.shadow.state(cgid).tid,
            _ => 0,
        };
        Op::Cfg(CfgCmd {
            op,
            cgid,
            entry,
            counter: self.rng.gen_range(0..16),
            tid,
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
        // Now and then reduction fields on a packet without payload: malformed (rule 2b).
        let (rop, dtype) = if self.rng.gen_bool(0.02) {
            (self.rng.gen_range(1..16), self.rng.gen_range(0..4))
        } else {
            (0, 0)
        };
        let header = Packet {
            port,
            cgid,
            tid,
            op,
            rop,
            dtype,
            ..Default::default()
        };
        // A reducing engine: FULL and EXIT mostly carry the group's shape, now and then
        // another one (or a malformed one); STATUS_REQ mostly nothing.
        let payload = self.p.reduces() && (op & 2 == 0 || self.rng.gen_bool(0.05));
        if !payload || self.rng.gen_bool(0.05) {
            return Op::header(header);
        }
        let shape = if self.rng.gen_bool(0.85) {
            self.shapes[(cgid as usize) % self.shapes.len()]
        } else {
            random_shape(&self.p, &mut self.rng)
        };
        let data = (0..shape.plen).map(|_| self.rng.gen::<u64>()).collect();
        Op::Packet(
            Packet {
                plen: shape.plen,
                rop: shape.rop,
                dtype: shape.dtype,
                ..header
            },
            data,
        )
    }

    /// The inputs of the next cycle (the shadow reference, kept by [`Self::observe`], is what
    /// makes them protocol-aware).
    pub fn next_inputs(&mut self) -> SwitchEngineIn {
        if self.stall > 0 {
            self.stall -= 1;
        } else if self.rng.gen_bool(self.backpressure) {
            self.stall = self.rng.gen_range(1..=self.max_stall);
        }
        let mut i = self.next_op_inputs();
        i.out_ready = self.stall == 0;
        i
    }

    fn next_op_inputs(&mut self) -> SwitchEngineIn {
        self.offered = None;
        if self.rng.gen_bool(self.reset) {
            return SwitchEngineIn {
                reset: true,
                ..Default::default()
            };
        }
        if self.rng.gen_bool(self.idle) {
            return SwitchEngineIn::default();
        }
        if let Some(beat) = self.beats.front().copied() {
            // A later beat of the packet being received, junk in its header fields, now and
            // then with a configuration operation.
            let mut i = if self.rng.gen_bool(0.05) {
                op_inputs(&self.random_cfg())
            } else {
                SwitchEngineIn::default()
            };
            i.pkt_valid = true;
            i.pkt_data = beat;
            i.pkt_port = self.rng.gen_range(0..self.p.radix as u64);
            i.pkt_cgid = self.rng.gen_range(0..self.p.groups as u64);
            i.pkt_op = self.rng.gen_range(0..8);
            i.pkt_plen = self.rng.gen_range(0..256);
            return i;
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
            let op = self.random_packet();
            let i = op_inputs(&op);
            self.offered = Some(op);
            i
        }
    }

    /// Records what the design did with `i` (its outputs `o` in the same cycle): applies an
    /// accepted operation (or a tick) to the shadow reference and checks the answer due this
    /// cycle and the output packet shown.
    pub fn observe(&mut self, i: &SwitchEngineIn, o: &SwitchEngineOut) {
        let now = self.cycle;
        self.cycle += 1;
        if let Some((due, want)) = self.due.front().cloned() {
            if due == now {
                self.due.pop_front();
                self.checked += 1;
                // Compared on the raw port values, not through a conversion that could hide a
                // reserved code; the output packet is checked at the queue's head.
                if let Response::Packet { result, .. } = &want {
                    self.outs.extend(result.out.clone());
                }
                if answer_part(o) != answer_part(&expected_outputs(&want)) {
                    self.mismatch(format!(
                        "cycle {now}: golden reference answers {want:?}, design shows {:?}",
                        from_outputs(o)
                    ));
                }
            }
        }
        let head = self.outs.front().cloned();
        let shown = from_outputs(&SwitchEngineOut {
            ev_valid: true,
            rsp_valid: false,
            ..*o
        })
        .and_then(|r| match r {
            Response::Packet { result, .. } => result.out,
            Response::Cfg(_) => None,
        });
        let header = |x: &Option<OutPacket>| x.clone().map(|p| OutPacket { data: vec![], ..p });
        // A packet with a payload is shown once its first beat is there.
        let waits = !o.out_valid && head.as_ref().is_some_and(|h| h.meta.plen > 0);
        if (header(&shown) != header(&head) && !waits) || (o.out_valid && shown.is_none()) {
            self.mismatch(format!(
                "cycle {now}: the output queue's head should be {head:?}, design shows {shown:?} (out_valid {})",
                o.out_valid
            ));
        }
        if let (true, Some(h)) = (o.out_valid, &head) {
            if h.meta.plen > 0 {
                let lanes = self.p.lanes;
                for k in 0..lanes {
                    let at = self.out_sent as usize * lanes + k;
                    let want = h.data.get(at).copied().unwrap_or(0);
                    if o.out_data[k] != want {
                        self.mismatch(format!(
                            "cycle {now}: word {at} of the payload of {h:?} is {:#x}, the golden reference's {want:#x}",
                            o.out_data[k]
                        ));
                    }
                    self.words_checked += u64::from(at < h.data.len());
                }
            }
        }
        if o.out_valid && i.out_ready {
            let plen = head.as_ref().map_or(0, |h| h.meta.plen);
            self.out_sent += 1;
            if plen == 0 || self.out_sent == self.p.beats(plen) {
                self.payloads += u64::from(plen > 0);
                self.out_sent = 0;
                self.outs.pop_front();
            }
        }
        if i.reset {
            self.shadow = SwitchEngineGolden::new(self.p);
            self.due.clear();
            self.outs.clear();
            self.beats.clear();
            self.out_sent = 0;
            self.now = 0;
            self.scan = 0;
            return;
        }
        let engine_now = self.now;
        if o.cfg_ready && i.pkt_valid && !i.cfg_valid && !o.pkt_ready {
            self.held += 1;
        }
        if o.cfg_ready {
            self.now = (self.now + 1) & mask(NOW_BITS);
        }
        // A later beat of a packet is taken whenever offered (beside a configuration
        // operation); a header only when nothing else is.
        let beat = i.pkt_valid && !self.beats.is_empty();
        if beat {
            if !o.pkt_ready {
                self.mismatch(format!("cycle {now}: a packet's later beat is not taken"));
            }
            self.beats.pop_front();
        }
        let op = if i.cfg_valid && o.cfg_ready {
            Some(Op::offered(i, true))
        } else if i.pkt_valid && o.pkt_ready && !beat {
            let op = self.offered.take().unwrap_or_else(|| Op::offered(i, false));
            if let Op::Packet(pkt, data) = &op {
                let lanes = self.p.lanes;
                for j in 1..self.p.beats(pkt.plen & 255) as usize {
                    let mut b = [0; 4];
                    for (k, w) in b.iter_mut().take(lanes).enumerate() {
                        *w = data.get(j * lanes + k).copied().unwrap_or(0);
                    }
                    self.beats.push_back(b);
                }
            }
            Some(op)
        } else {
            None
        };
        if let Some(op) = op {
            let answer = observable(&self.shadow.apply_at(&op, engine_now));
            self.due.push_back((now + LATENCY as u64, answer));
        } else if self.p.retry_timer_on() && !i.cfg_valid && !i.pkt_valid && o.pkt_ready {
            // Nothing offered, ready and room: the engine ticks its next group.
            let g = self.scan;
            self.scan = (self.scan + 1) % self.p.groups as u64;
            if let Some(r) = self.shadow.tick(g, engine_now) {
                self.retries += 1;
                self.due.push_back((now + LATENCY as u64, observable(&r)));
            }
        }
    }

    fn mismatch(&mut self, m: String) {
        if self.golden_mismatch.is_none() {
            self.golden_mismatch = Some(format!("seed {}: {m}", self.seed));
        }
    }
}

/// A random payload shape for a reducing engine: mostly a valid one (a defined operation, an
/// even length for MAXLOC / MINLOC), now and then one rule 2b refuses.
fn random_shape(p: &SwitchEngineParams, rng: &mut ChaCha8Rng) -> PayloadMeta {
    if !p.reduces() {
        return PayloadMeta::default();
    }
    let max = p.max_plen as u64;
    // With the floating-point types, half the shapes are one of them with an operation they
    // define (without them such a shape is one of the refused ones below).
    let fp = p.reduces_fp() && rng.gen_bool(0.5);
    let rop = if fp {
        rng.gen_range(0..=AluOp::Prod.code())
    } else {
        rng.gen_range(0..FIRST_RESERVED_OP)
    };
    let loc = AluOp::from_code(rop).is_some_and(AluOp::is_loc);
    let mut plen = rng.gen_range(1..=max);
    if loc && p.lanes > 1 {
        plen = (plen & !1).max(2);
    }
    let mut m = PayloadMeta {
        plen,
        rop,
        // One of the floating-point types built in (`fp_types`).
        dtype: if fp {
            let built: Vec<u64> = (4..8)
                .filter(|&c| netcoll_models::reduce_alu::builds_code(p.alu().fp_mask(), c))
                .collect();
            built[rng.gen_range(0..built.len())]
        } else {
            rng.gen_range(0..4)
        },
    };
    match rng.gen_range(0..100) {
        0..=1 => m.plen = rng.gen_range(max + 1..=(max + 8).min(255)),
        2..=3 => m.rop = rng.gen_range(FIRST_RESERVED_OP..16),
        4 if loc => m.plen |= 1,
        // A floating-point type: refused without it, and with LAND … BXOR.
        5 => m.dtype = rng.gen_range(4..8),
        _ => {}
    }
    m
}
