//! # Golden reference of the switch collective engine
//!
//! Untimed and written for clarity: one [`SwitchEngineGolden::apply`] per operation, a plain table of
//! entries and states, explicit matches on roles, opcodes and TID distances, following the
//! numbered steps of the [module docs](super) one for one. It is the reference the cycle model
//! ([`super::model`]) and, through it, the RTL are checked against, so it deliberately shares no
//! code with them beyond the types of [`super`].
//!
//! Inputs wider than their fields are reduced to the field width (modulo `radix`, `groups`, 4,
//! 8, ...) exactly as the RTL's narrower ports would truncate them, so the same random stimulus
//! can drive all three levels.
//!
//! ## Time
//!
//! The golden has no clock, but rules 6 and 8 depend on the epoch of an operation. It is told
//! the time instead: [`SwitchEngineGolden::apply_at`] takes `now`, the engine's cycle count
//! (see "Time" in the [module docs](super)) in the cycle the operation is accepted, which
//! whoever drives the golden knows (the transactor counts cycles; the scenario runner and the
//! directed suite know their schedules). [`SwitchEngineGolden::apply`] uses the last `now`
//! given. Ticks (rule 8) are issued by the caller too, [`SwitchEngineGolden::tick`]: when the
//! engine ticks which group is a question of the cycle level, what a tick does is the
//! golden's to say.

use super::{
    CfgOp, CsmState, GroupState, Opcode, Packet, PayloadMeta, SwitchEngineIn, SwitchEngineParams,
    TableEntry, Verdict, COUNTERS,
};
use crate::reduce_alu::golden::golden_int as alu;
use crate::reduce_alu::{is_reserved_op, AluOp, Dtype};

/// One operation offered to the engine: a packet (its header and its payload words, `plen`
/// of them: missing words are zero, extra ones ignored), or a configuration-port command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Packet(Packet, Vec<u64>),
    Cfg(CfgCmd),
}

impl Op {
    /// What a cycle's inputs offer on the configuration port (`cfg`) or the packet port, as
    /// the ports carry it (the golden cuts every field to its width).
    pub fn offered(i: &SwitchEngineIn, cfg: bool) -> Op {
        if cfg {
            Op::Cfg(CfgCmd {
                op: CfgOp::of(i.cfg_op),
                cgid: i.cfg_cgid,
                entry: TableEntry {
                    valid: i.cfg_entry_valid,
                    parent: i.cfg_parent,
                    children: i.cfg_children,
                    is_root: i.cfg_is_root,
                },
                counter: i.cfg_counter,
                tid: i.cfg_tid,
            })
        } else {
            Op::Packet(
                Packet {
                    port: i.pkt_port,
                    cgid: i.pkt_cgid,
                    tid: i.pkt_tid,
                    op: i.pkt_op,
                    plen: i.pkt_plen,
                    rop: i.pkt_rop,
                    dtype: i.pkt_dtype,
                },
                vec![],
            )
        }
    }

    /// A packet without payload.
    pub fn header(p: Packet) -> Op {
        Op::Packet(p, vec![])
    }

    /// The header of a packet operation (a default one for a configuration command).
    pub fn header_packet(&self) -> Packet {
        match self {
            Op::Packet(p, _) => *p,
            Op::Cfg(_) => Packet::default(),
        }
    }
}

/// A configuration-port command. `entry` and `tid` are used by [`CfgOp::Write`], `counter`
/// by [`CfgOp::ReadCounter`]; `cgid` by `Write` and `ReadEntry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfgCmd {
    pub op: CfgOp,
    pub cgid: u64,
    pub entry: TableEntry,
    pub counter: u64,
    /// The TID a `Write` gives the group (`cfg_tid`).
    pub tid: u64,
}

/// The packet the engine sends in answer to a packet, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutPacket {
    /// Egress port mask: one bit for a unicast, the child mask for EXIT.
    pub ports: u64,
    pub cgid: u64,
    /// The TID of the packet being answered / forwarded (`T`), never the advanced group TID.
    pub tid: u64,
    pub op: Opcode,
    /// The payload's shape (all zero without payload) …
    pub meta: PayloadMeta,
    /// … and its `meta.plen` words.
    pub data: Vec<u64>,
}

/// What the engine did with one packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketResult {
    pub verdict: Verdict,
    /// The group's state after the packet; [`GroupState::default`] for the verdicts
    /// `UnknownCgid`, `NotInTree` and `BadOpcode` (no group state is read for them).
    pub state: GroupState,
    pub out: Option<OutPacket>,
}

/// The answer to a configuration command. Fields the command does not produce are
/// zero / default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CfgResult {
    pub entry: TableEntry,
    pub state: GroupState,
    pub counter: u64,
    /// A `Write` that was rejected (`rsp_rejected`).
    pub rejected: bool,
}

/// The engine's answer to one [`Op`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// `cgid` is the packet's (width-reduced) CGID, as on `ev_cgid`.
    Packet {
        cgid: u64,
        result: PacketResult,
    },
    Cfg(CfgResult),
}

/// Where a packet came from, relative to the group's tree (step 3 of the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    FromParent,
    FromChild,
}

/// The golden reference: the table, the group states and the counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchEngineGolden {
    params: SwitchEngineParams,
    /// Indexed by CGID; every entry starts invalid (the state after the reset sweep).
    table: Vec<TableEntry>,
    /// Indexed by CGID.
    states: Vec<GroupState>,
    counters: [u64; COUNTERS],
    /// The time of the last operation (see "Time" above).
    now: u64,
    /// Per group with data memory (`0 .. slots` of a reducing engine): the accumulator and the
    /// retained result, `max_plen` words each (their shapes are in the group's state).
    buffers: Vec<Buffers>,
}

/// A group's data memory.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Buffers {
    acc: Vec<u64>,
    ret: Vec<u64>,
}

impl SwitchEngineGolden {
    /// An engine just out of reset: every entry invalid, every group Idle with TID 0, counters 0.
    pub fn new(params: SwitchEngineParams) -> Self {
        let slots = if params.reduces() { params.slots } else { 0 };
        Self {
            params,
            table: vec![TableEntry::default(); params.groups],
            states: vec![GroupState::default(); params.groups],
            counters: [0; COUNTERS],
            now: 0,
            buffers: vec![
                Buffers {
                    acc: vec![0; params.max_plen],
                    ret: vec![0; params.max_plen],
                };
                slots
            ],
        }
    }

    pub fn params(&self) -> SwitchEngineParams {
        self.params
    }

    /// The table entry of `cgid` (reduced modulo `groups`).
    pub fn entry(&self, cgid: u64) -> TableEntry {
        self.table[self.group_index(cgid)]
    }

    /// The state of group `cgid` (reduced modulo `groups`).
    pub fn state(&self, cgid: u64) -> GroupState {
        self.states[self.group_index(cgid)]
    }

    /// Counter `i` (reduced modulo 16, the index port's width); 0 for 12..15, which name no
    /// counter.
    pub fn counter(&self, i: u64) -> u64 {
        self.counters.get((i % 16) as usize).copied().unwrap_or(0)
    }

    /// The epoch of the last operation.
    pub fn epoch(&self) -> u64 {
        self.params.epoch(self.now)
    }

    /// Applies one operation accepted when the engine's cycle count is `now`.
    pub fn apply_at(&mut self, op: &Op, now: u64) -> Response {
        self.now = now;
        self.apply(op)
    }

    /// Rule 8: a tick of group `cgid` at time `now`. `Some` (verdict `Retry`, counted) when
    /// the tick acts; `None` for an invisible tick. The caller decides when the engine ticks
    /// (whether `retry_timer` is on is the caller's business too).
    pub fn tick(&mut self, cgid: u64, now: u64) -> Option<Response> {
        self.now = now;
        let cgid = cgid % self.params.groups as u64;
        let index = self.group_index(cgid);
        let entry = self.table[index];
        let state = &mut self.states[index];
        let epoch = self.params.epoch(now);
        // Nothing sent upward for at least one whole epoch: two or three epochs ago.
        let quiet = (epoch + 4 - state.sent) % 4 >= 2;
        if !entry.valid || entry.is_root || state.csm != CsmState::Full || state.fail || !quiet {
            return None;
        }
        state.sent = epoch;
        let state = *state;
        // The FULL carries the accumulator: the complete partial result of the transaction.
        let data = self.words(index, Buf::Acc, state.acc.plen);
        let result = PacketResult {
            verdict: Verdict::Retry,
            state,
            out: Some(OutPacket {
                ports: 1 << entry.parent,
                cgid,
                tid: state.tid,
                op: Opcode::Full,
                meta: state.acc,
                data,
            }),
        };
        let max = self.params.counter_max();
        let c = &mut self.counters[Verdict::Retry.code() as usize];
        *c = (*c + 1).min(max);
        Some(Response::Packet { cgid, result })
    }

    /// Applies one operation (at the time of the last [`Self::apply_at`] or
    /// [`Self::tick`]; 0 if none) and returns the engine's answer.
    pub fn apply(&mut self, op: &Op) -> Response {
        match op {
            Op::Packet(pkt, data) => {
                let pkt = Packet {
                    port: pkt.port % self.params.radix as u64,
                    cgid: pkt.cgid % self.params.groups as u64,
                    tid: pkt.tid % 4,
                    op: pkt.op % 8,
                    plen: pkt.plen % 256,
                    rop: pkt.rop % 16,
                    dtype: pkt.dtype % 8,
                };
                let result = self.process_packet(&pkt, data);
                self.count(result.verdict);
                Response::Packet {
                    cgid: pkt.cgid,
                    result,
                }
            }
            Op::Cfg(cmd) => Response::Cfg(self.configure(cmd)),
        }
    }

    fn group_index(&self, cgid: u64) -> usize {
        (cgid % self.params.groups as u64) as usize
    }

    /// Counter 0 counts every packet; counter `v` counts verdict `v` (there is no separate
    /// counter for `Ok`, whose code 0 is taken by the total).
    fn count(&mut self, verdict: Verdict) {
        let max = self.params.counter_max();
        self.counters[0] = (self.counters[0] + 1).min(max);
        if verdict != Verdict::Ok {
            let v = verdict.code() as usize;
            self.counters[v] = (self.counters[v] + 1).min(max);
        }
    }

    /// Steps 1–7 of the module docs, in order.
    fn process_packet(&mut self, pkt: &Packet, data: &[u64]) -> PacketResult {
        let index = self.group_index(pkt.cgid);
        let entry = self.table[index];
        let dropped = |verdict| PacketResult {
            verdict,
            state: GroupState::default(),
            out: None,
        };

        // 1. unknown group
        if !entry.valid {
            return dropped(Verdict::UnknownCgid);
        }
        // 2. reserved opcode
        let Some(opcode) = Opcode::from_code(pkt.op) else {
            return dropped(Verdict::BadOpcode);
        };
        // 2b. malformed payload
        if self.malformed(pkt, opcode) {
            return dropped(Verdict::BadPayload);
        }
        // 3. role of the ingress port (the parent wins if it is also in the child mask)
        let role = if !entry.is_root && pkt.port == entry.parent {
            Role::FromParent
        } else if entry.children & (1 << pkt.port) != 0 {
            Role::FromChild
        } else {
            return dropped(Verdict::NotInTree);
        };
        // 4. direction
        let direction_ok = match opcode {
            Opcode::Full | Opcode::StatusReq => role == Role::FromChild,
            Opcode::Exit | Opcode::StatusRsp => role == Role::FromParent,
        };
        if !direction_ok {
            return dropped(Verdict::BadOpcode);
        }
        // 5. failed group
        let mut state = self.states[index];
        if state.fail {
            return PacketResult {
                verdict: Verdict::GroupFailed,
                state,
                out: None,
            };
        }
        // 6. / 7.
        let distance = (pkt.tid + 4 - state.tid) % 4;
        let epoch = self.params.epoch(self.now);
        let reported_before = state.reported;
        let (verdict, out) = match role {
            Role::FromChild => from_child(&entry, &mut state, pkt, opcode, distance, epoch),
            Role::FromParent => from_parent(&entry, &mut state, pkt, distance),
        };
        // A counted report (its child's bit went from clear to set; a completion clears them
        // all): the first one's payload becomes the accumulator, the others are combined into
        // it, element by element.
        let counted = role == Role::FromChild
            && verdict == Verdict::Ok
            && opcode == Opcode::Full
            && distance == 0
            && reported_before & (1 << pkt.port) == 0;
        if counted {
            let words = packet_words(pkt, data);
            let first = reported_before == 0;
            if let Some(b) = self.buffers.get_mut(index) {
                let acc = &mut b.acc[..words.len()];
                if first {
                    acc.copy_from_slice(&words);
                } else {
                    reduce_into(acc, &words, pkt.rop, pkt.dtype);
                }
            }
        }
        // The data each answer carries (rule 6 and 7's payload clauses).
        let out = out.map(|(o, carries)| {
            let (meta, data) = match carries {
                Carries::Nothing => (PayloadMeta::default(), vec![]),
                Carries::Accumulator => (state.acc, self.words(index, Buf::Acc, state.acc.plen)),
                Carries::Retained => (state.ret, self.words(index, Buf::Ret, state.ret.plen)),
                Carries::Packet => (PayloadMeta::of(pkt), packet_words(pkt, data)),
            };
            OutPacket { meta, data, ..o }
        });
        // A completion here (an EXIT to the children) retains the result it sends down.
        if let (Some(o), Some(b)) = (&out, self.buffers.get_mut(index)) {
            if o.op == Opcode::Exit {
                b.ret[..o.data.len()].copy_from_slice(&o.data);
            }
        }
        self.states[index] = state;
        PacketResult {
            verdict,
            state,
            out,
        }
    }

    /// Rule 2b: a payload this engine cannot take, or reduction fields on a packet without one.
    fn malformed(&self, pkt: &Packet, opcode: Opcode) -> bool {
        let p = &self.params;
        if pkt.plen == 0 {
            return pkt.rop != 0 || pkt.dtype != 0;
        }
        pkt.plen > p.max_plen as u64
            || pkt.cgid >= p.slots as u64
            || is_reserved_op(pkt.rop)
            || (AluOp::from_code(pkt.rop).is_some_and(AluOp::is_loc)
                && (pkt.plen % 2 == 1 || p.lanes == 1))
            || p.refuses_dtype(pkt.rop, pkt.dtype)
            || opcode == Opcode::StatusReq
    }

    /// The first `plen` words of a buffer of group `index` (none for a group without data
    /// memory, which only ever has shapes of zero words).
    fn words(&self, index: usize, buf: Buf, plen: u64) -> Vec<u64> {
        match self.buffers.get(index) {
            Some(b) => match buf {
                Buf::Acc => b.acc[..plen as usize].to_vec(),
                Buf::Ret => b.ret[..plen as usize].to_vec(),
            },
            None => vec![],
        }
    }

    fn configure(&mut self, cmd: &CfgCmd) -> CfgResult {
        let index = self.group_index(cmd.cgid);
        match cmd.op {
            CfgOp::Write => {
                // Stored (and echoed) as given, reduced to the port widths, even when `valid`
                // is false or `parent` is meaningless for a root.
                let entry = TableEntry {
                    valid: cmd.entry.valid,
                    parent: cmd.entry.parent % self.params.radix as u64,
                    children: cmd.entry.children & self.params.port_mask(),
                    is_root: cmd.entry.is_root,
                };
                // A valid group needs a child, and a non-root's parent cannot be one of them.
                let childless = entry.children == 0;
                let parent_is_child = !entry.is_root && entry.children & (1 << entry.parent) != 0;
                if entry.valid && (childless || parent_is_child) {
                    return CfgResult {
                        entry: self.table[index],
                        state: self.states[index],
                        counter: 0,
                        rejected: true,
                    };
                }
                let state = GroupState {
                    tid: cmd.tid % 4,
                    ..GroupState::default()
                };
                self.table[index] = entry;
                self.states[index] = state;
                CfgResult {
                    entry,
                    state,
                    ..Default::default()
                }
            }
            CfgOp::ReadEntry => CfgResult {
                entry: self.table[index],
                state: self.states[index],
                ..Default::default()
            },
            CfgOp::ReadCounter => CfgResult {
                counter: self.counter(cmd.counter),
                ..Default::default()
            },
            CfgOp::ClearCounters => {
                self.counters = [0; COUNTERS];
                CfgResult::default()
            }
        }
    }
}

/// Moves the CSM one step along the ratchet. Asserting the step documents (and checks) that the
/// golden never skips a state.
fn ratchet(state: &mut GroupState, to: CsmState) {
    assert_eq!(state.csm.next(), to, "CSM may only move one step forward");
    state.csm = to;
}

/// Full → Exiting → Idle: the transaction completes here, so forget who reported and move to
/// the next TID.
fn complete_transaction(state: &mut GroupState) {
    ratchet(state, CsmState::Exiting);
    ratchet(state, CsmState::Idle);
    state.reported = 0;
    state.tid = (state.tid + 1) % 4;
}

/// Which data an answer carries (see "Reductions" in the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carries {
    Nothing,
    /// The accumulator (a non-root's FULL, a forwarded retry, a tick, a root's EXIT).
    Accumulator,
    /// The retained result (a Lag answer).
    Retained,
    /// The packet's own payload (an EXIT passed down).
    Packet,
}

/// One of a group's two data buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Buf {
    Acc,
    Ret,
}

/// An answer: its header (with no payload yet) and what it carries.
type Answer = Option<(OutPacket, Carries)>;

/// The packet's `plen` payload words (missing ones zero).
fn packet_words(pkt: &Packet, data: &[u64]) -> Vec<u64> {
    (0..pkt.plen as usize)
        .map(|i| data.get(i).copied().unwrap_or(0))
        .collect()
}

/// `acc[i] = acc[i] op words[i]`, element by element (see "Format" in the module docs): the
/// reduction ALU's rule for each element, two 32-bit slots to a word (a 16-bit element in
/// the low half of its slot), MAXLOC / MINLOC on (value, index) word pairs.
pub fn reduce_into(acc: &mut [u64], words: &[u64], rop: u64, dtype: u64) {
    let (Some(op), Some(dt)) = (AluOp::from_code(rop), Dtype::from_code(dtype)) else {
        return;
    };
    let narrow = dt.bits() <= 32;
    let halves: &[u32] = if narrow { &[0, 32] } else { &[0] };
    let elem = |w: u64, h: u32| {
        if narrow {
            (w >> h) & 0xFFFF_FFFF
        } else {
            w
        }
    };
    let step = if op.is_loc() { 2 } else { 1 };
    for i in (0..acc.len().min(words.len())).step_by(step) {
        let mut value = 0;
        let mut index = 0;
        for &h in halves {
            let (a, b) = (elem(acc[i], h), elem(words[i], h));
            let (ai, bi) = if op.is_loc() {
                (elem(acc[i + 1], h), elem(words[i + 1], h))
            } else {
                (0, 0)
            };
            let (r, ri) = alu(op, dt, a, ai, b, bi);
            value |= r << h;
            index |= ri << h;
        }
        acc[i] = value;
        if op.is_loc() {
            acc[i + 1] = index;
        }
    }
}

/// Step 6: FULL or STATUS_REQ from a child, in epoch `epoch`.
fn from_child(
    entry: &TableEntry,
    state: &mut GroupState,
    pkt: &Packet,
    opcode: Opcode,
    distance: u64,
    epoch: u64,
) -> (Verdict, Answer) {
    let reply = |ports: u64, op: Opcode, carries: Carries| {
        let o = OutPacket {
            ports,
            cgid: pkt.cgid,
            tid: pkt.tid,
            op,
            meta: PayloadMeta::default(),
            data: vec![],
        };
        Some((o, carries))
    };
    let child_bit = 1u64 << pkt.port;
    let to_parent = 1u64 << entry.parent;
    match distance {
        // The child missed the Exit of transaction T: tell it alone that T completed, with
        // T's result.
        3 => (
            Verdict::Lag,
            reply(child_bit, Opcode::StatusRsp, Carries::Retained),
        ),
        // A child ahead of its parent is impossible short of a bug.
        1 | 2 => {
            state.fail = true;
            (Verdict::TidFail, None)
        }
        _ => {
            let already_reported = state.reported & child_bit != 0;
            match (already_reported, opcode) {
                // The child's report, whose payload must have the transaction's shape.
                (false, Opcode::Full) => {
                    let meta = PayloadMeta::of(pkt);
                    if state.reported == 0 {
                        state.acc = meta;
                    } else if meta != state.acc {
                        return (Verdict::BadPayload, None);
                    }
                    state.reported |= child_bit;
                    if state.csm == CsmState::Idle {
                        ratchet(state, CsmState::Filling);
                    }
                    if state.csm == CsmState::Filling && state.reported == entry.children {
                        ratchet(state, CsmState::Full);
                        if entry.is_root {
                            complete_transaction(state);
                            state.ret = state.acc;
                            return (
                                Verdict::Ok,
                                reply(entry.children, Opcode::Exit, Carries::Accumulator),
                            );
                        }
                        state.sent = epoch;
                        return (
                            Verdict::Ok,
                            reply(to_parent, Opcode::Full, Carries::Accumulator),
                        );
                    }
                    (Verdict::Ok, None)
                }
                // A question about a transaction the child has not reported in: not a report.
                (false, _) => (Verdict::Unreported, None),
                // Only a non-root rests in Full: a retry, which goes up once per epoch (a FULL
                // with the complete partial result, a STATUS_REQ as it is).
                (true, _) if state.csm == CsmState::Full => {
                    if state.sent == epoch {
                        (Verdict::Coalesced, None)
                    } else {
                        state.sent = epoch;
                        let carries = if opcode == Opcode::Full {
                            Carries::Accumulator
                        } else {
                            Carries::Nothing
                        };
                        (Verdict::Ok, reply(to_parent, opcode, carries))
                    }
                }
                (true, Opcode::Full) => (Verdict::Stale, None),
                (true, _) => (Verdict::Ok, None),
            }
        }
    }
}

/// Step 7: EXIT or STATUS_RSP from the parent, both meaning "transaction T completed" (with
/// its result, which must have the shape of this switch's partial result).
fn from_parent(
    entry: &TableEntry,
    state: &mut GroupState,
    pkt: &Packet,
    distance: u64,
) -> (Verdict, Answer) {
    match distance {
        0 if state.csm == CsmState::Full => {
            if PayloadMeta::of(pkt) != state.acc {
                return (Verdict::BadPayload, None);
            }
            complete_transaction(state);
            state.ret = state.acc;
            let out = OutPacket {
                ports: entry.children,
                cgid: pkt.cgid,
                tid: pkt.tid,
                op: Opcode::Exit,
                meta: PayloadMeta::default(),
                data: vec![],
            };
            (Verdict::Ok, Some((out, Carries::Packet)))
        }
        3 => (Verdict::Stale, None),
        // d == 0 but we never reported (the parent cannot have completed), or d == 1, 2.
        _ => {
            state.fail = true;
            (Verdict::TidFail, None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CsmState::*;

    fn pkt(port: u64, cgid: u64, tid: u64, op: Opcode) -> Op {
        Op::header(Packet {
            port,
            cgid,
            tid,
            op: op.code(),
            ..Default::default()
        })
    }

    fn raw_pkt(port: u64, cgid: u64, tid: u64, op: u64) -> Op {
        Op::header(Packet {
            port,
            cgid,
            tid,
            op,
            ..Default::default()
        })
    }

    fn write(cgid: u64, parent: u64, children: u64, is_root: bool) -> Op {
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

    fn cfg(op: CfgOp, cgid: u64, counter: u64) -> Op {
        Op::Cfg(CfgCmd {
            op,
            cgid,
            entry: TableEntry::default(),
            counter,
            tid: 0,
        })
    }

    fn st(csm: CsmState, fail: bool, tid: u64, reported: u64) -> GroupState {
        GroupState {
            csm,
            fail,
            tid,
            reported,
            ..GroupState::default()
        }
    }

    fn out(ports: u64, cgid: u64, tid: u64, op: Opcode) -> Option<OutPacket> {
        Some(OutPacket {
            ports,
            cgid,
            tid,
            op,
            meta: PayloadMeta::default(),
            data: vec![],
        })
    }

    /// Applies a packet and checks the whole result.
    #[track_caller]
    fn expect(
        g: &mut SwitchEngineGolden,
        op: Op,
        verdict: Verdict,
        state: GroupState,
        out: Option<OutPacket>,
    ) {
        let r = g.apply(&op);
        let Response::Packet { result, .. } = r else {
            panic!("not a packet response: {r:?}")
        };
        assert_eq!(
            result,
            PacketResult {
                verdict,
                state,
                out
            },
            "for {op:?}"
        );
    }

    #[test]
    fn root_barrier_two_children() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::default());
        // root of group 5, children on ports 1 and 3
        g.apply(&write(5, 0, 0b1010, true));
        expect(
            &mut g,
            pkt(1, 5, 0, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 0, 0b0010),
            None,
        );
        // last child: Filling → Full → Exiting → Idle, TID 0 → 1, EXIT(0) to both children
        expect(
            &mut g,
            pkt(3, 5, 0, Opcode::Full),
            Verdict::Ok,
            st(Idle, false, 1, 0),
            out(0b1010, 5, 0, Opcode::Exit),
        );
        // second barrier, TID 1, children in the other order
        expect(
            &mut g,
            pkt(3, 5, 1, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 1, 0b1000),
            None,
        );
        expect(
            &mut g,
            pkt(1, 5, 1, Opcode::Full),
            Verdict::Ok,
            st(Idle, false, 2, 0),
            out(0b1010, 5, 1, Opcode::Exit),
        );
        assert_eq!(g.counter(0), 4);
        for v in 1..8 {
            assert_eq!(g.counter(v), 0);
        }
        assert_eq!(g.state(5), st(Idle, false, 2, 0));
    }

    #[test]
    fn single_child_root_completes_in_one_packet() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        g.apply(&write(2, 0, 0b0100, true));
        expect(
            &mut g,
            pkt(2, 2, 0, Opcode::Full),
            Verdict::Ok,
            st(Idle, false, 1, 0),
            out(0b0100, 2, 0, Opcode::Exit),
        );
    }

    #[test]
    fn non_root_full_then_exit() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        // parent on port 0, children on ports 2 and 3
        g.apply(&write(9, 0, 0b1100, false));
        expect(
            &mut g,
            pkt(2, 9, 0, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 0, 0b0100),
            None,
        );
        expect(
            &mut g,
            pkt(3, 9, 0, Opcode::Full),
            Verdict::Ok,
            st(Full, false, 0, 0b1100),
            out(0b0001, 9, 0, Opcode::Full),
        );
        // waiting in Full; the parent completes transaction 0
        expect(
            &mut g,
            pkt(0, 9, 0, Opcode::Exit),
            Verdict::Ok,
            st(Idle, false, 1, 0),
            out(0b1100, 9, 0, Opcode::Exit),
        );
        // next transaction; this time the completion arrives as STATUS_RSP
        expect(
            &mut g,
            pkt(3, 9, 1, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 1, 0b1000),
            None,
        );
        expect(
            &mut g,
            pkt(2, 9, 1, Opcode::Full),
            Verdict::Ok,
            st(Full, false, 1, 0b1100),
            out(0b0001, 9, 1, Opcode::Full),
        );
        expect(
            &mut g,
            pkt(0, 9, 1, Opcode::StatusRsp),
            Verdict::Ok,
            st(Idle, false, 2, 0),
            out(0b1100, 9, 1, Opcode::Exit),
        );
        // a late duplicate EXIT(1) is news of a completed transaction
        expect(
            &mut g,
            pkt(0, 9, 1, Opcode::Exit),
            Verdict::Stale,
            st(Idle, false, 2, 0),
            None,
        );
        assert_eq!(g.counter(0), 7);
        assert_eq!(g.counter(Verdict::Stale.code()), 1);
    }

    /// Builds a non-root group (parent port 0, children 1 and 2) whose TID is `g_tid`, Idle.
    fn non_root_at_tid(g_tid: u64) -> SwitchEngineGolden {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        g.apply(&write(3, 0, 0b0110, false));
        for t in 0..g_tid {
            g.apply(&pkt(1, 3, t, Opcode::Full));
            g.apply(&pkt(2, 3, t, Opcode::Full));
            g.apply(&pkt(0, 3, t, Opcode::Exit));
        }
        assert_eq!(g.state(3), st(Idle, false, g_tid, 0));
        g
    }

    #[test]
    fn tid_pairs_from_child() {
        use Verdict::{Lag as L, Ok as K, TidFail as F};
        // EXPECTED[G][T], d = (T - G) mod 4: 0 → Ok, 3 → Lag, 1/2 → TidFail
        const EXPECTED: [[Verdict; 4]; 4] =
            [[K, F, F, L], [L, K, F, F], [F, L, K, F], [F, F, L, K]];
        for g_tid in 0..4 {
            for t in 0..4 {
                let mut g = non_root_at_tid(g_tid);
                let verdict = EXPECTED[g_tid as usize][t as usize];
                let (state, out) = match verdict {
                    Verdict::Ok => (st(Filling, false, g_tid, 0b0010), None),
                    Verdict::Lag => (
                        st(Idle, false, g_tid, 0),
                        out(0b0010, 3, t, Opcode::StatusRsp),
                    ),
                    _ => (st(Idle, true, g_tid, 0), None),
                };
                expect(&mut g, pkt(1, 3, t, Opcode::Full), verdict, state, out);
            }
        }
    }

    #[test]
    fn tid_pairs_from_parent() {
        use Verdict::{Ok as K, Stale as S, TidFail as F};
        // EXPECTED[G][T] with the group Full: d = 0 → Ok, 3 → Stale, 1/2 → TidFail
        const EXPECTED: [[Verdict; 4]; 4] =
            [[K, F, F, S], [S, K, F, F], [F, S, K, F], [F, F, S, K]];
        for g_tid in 0..4 {
            for t in 0..4 {
                let mut g = non_root_at_tid(g_tid);
                g.apply(&pkt(1, 3, g_tid, Opcode::Full));
                g.apply(&pkt(2, 3, g_tid, Opcode::Full));
                assert_eq!(g.state(3), st(Full, false, g_tid, 0b0110));
                let verdict = EXPECTED[g_tid as usize][t as usize];
                let (state, out) = match verdict {
                    Verdict::Ok => (
                        st(Idle, false, (g_tid + 1) % 4, 0),
                        out(0b0110, 3, t, Opcode::Exit),
                    ),
                    Verdict::Stale => (st(Full, false, g_tid, 0b0110), None),
                    _ => (st(Full, true, g_tid, 0b0110), None),
                };
                expect(&mut g, pkt(0, 3, t, Opcode::Exit), verdict, state, out);
            }
        }
    }

    #[test]
    fn completion_before_report_fails() {
        // The parent cannot complete a transaction this switch has not reported Full in.
        let mut g = non_root_at_tid(2);
        expect(
            &mut g,
            pkt(0, 3, 2, Opcode::StatusRsp),
            Verdict::TidFail,
            st(Idle, true, 2, 0),
            None,
        );
        let mut g = non_root_at_tid(1);
        g.apply(&pkt(2, 3, 1, Opcode::Full));
        expect(
            &mut g,
            pkt(0, 3, 1, Opcode::Exit),
            Verdict::TidFail,
            st(Filling, true, 1, 0b0100),
            None,
        );
    }

    #[test]
    fn drop_verdicts() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        let zero = GroupState::default();
        // group 1: non-root, parent port 3, child port 1; group 2: root, children 0 and 1
        g.apply(&write(1, 3, 0b0010, false));
        g.apply(&write(2, 3, 0b0011, true));

        // 1. unknown CGID wins over everything else, even a reserved opcode
        expect(
            &mut g,
            pkt(1, 7, 0, Opcode::Full),
            Verdict::UnknownCgid,
            zero,
            None,
        );
        expect(
            &mut g,
            raw_pkt(2, 0, 0, 6),
            Verdict::UnknownCgid,
            zero,
            None,
        );
        // 2. reserved opcode wins over the role check
        for op in 4..8 {
            expect(&mut g, raw_pkt(1, 1, 0, op), Verdict::BadOpcode, zero, None);
            expect(&mut g, raw_pkt(2, 1, 0, op), Verdict::BadOpcode, zero, None);
        }
        // 3. port neither parent nor child; a root's `parent` field is ignored
        expect(
            &mut g,
            pkt(2, 1, 0, Opcode::Full),
            Verdict::NotInTree,
            zero,
            None,
        );
        expect(
            &mut g,
            pkt(0, 1, 0, Opcode::Exit),
            Verdict::NotInTree,
            zero,
            None,
        );
        expect(
            &mut g,
            pkt(3, 2, 0, Opcode::Exit),
            Verdict::NotInTree,
            zero,
            None,
        );
        // 4. wrong direction
        expect(
            &mut g,
            pkt(1, 1, 0, Opcode::Exit),
            Verdict::BadOpcode,
            zero,
            None,
        );
        expect(
            &mut g,
            pkt(1, 1, 0, Opcode::StatusRsp),
            Verdict::BadOpcode,
            zero,
            None,
        );
        expect(
            &mut g,
            pkt(3, 1, 0, Opcode::Full),
            Verdict::BadOpcode,
            zero,
            None,
        );
        expect(
            &mut g,
            pkt(3, 1, 0, Opcode::StatusReq),
            Verdict::BadOpcode,
            zero,
            None,
        );
        // none of the above touched group 1
        assert_eq!(g.state(1), zero);

        // Stale: duplicate FULL (group 2: port 0 reports, then again)
        expect(
            &mut g,
            pkt(0, 2, 0, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 0, 0b01),
            None,
        );
        expect(
            &mut g,
            pkt(0, 2, 0, Opcode::Full),
            Verdict::Stale,
            st(Filling, false, 0, 0b01),
            None,
        );
        // TidFail then GroupFailed for everything that reaches step 5, even a valid FULL
        expect(
            &mut g,
            pkt(1, 2, 1, Opcode::Full),
            Verdict::TidFail,
            st(Filling, true, 0, 0b01),
            None,
        );
        expect(
            &mut g,
            pkt(1, 2, 0, Opcode::Full),
            Verdict::GroupFailed,
            st(Filling, true, 0, 0b01),
            None,
        );
        expect(
            &mut g,
            pkt(0, 2, 3, Opcode::StatusReq),
            Verdict::GroupFailed,
            st(Filling, true, 0, 0b01),
            None,
        );
        // ... but steps 1–4 still come first
        expect(
            &mut g,
            pkt(2, 2, 0, Opcode::Full),
            Verdict::NotInTree,
            zero,
            None,
        );

        // counters: 2 + 8 + 3 + 4 + 2 + 1 + 2 + 1 = 23 packets
        assert_eq!(g.counter(0), 23);
        assert_eq!(g.counter(Verdict::UnknownCgid.code()), 2);
        assert_eq!(g.counter(Verdict::BadOpcode.code()), 12);
        assert_eq!(g.counter(Verdict::NotInTree.code()), 4);
        assert_eq!(g.counter(Verdict::Stale.code()), 1);
        assert_eq!(g.counter(Verdict::TidFail.code()), 1);
        assert_eq!(g.counter(Verdict::GroupFailed.code()), 2);
        assert_eq!(g.counter(Verdict::Lag.code()), 0);

        // Only a configuration write clears Failure.
        let r = g.apply(&write(2, 3, 0b0011, true));
        let entry = TableEntry {
            valid: true,
            parent: 3,
            children: 0b0011,
            is_root: true,
        };
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                entry,
                state: zero,
                counter: 0,
                rejected: false,
            })
        );
        expect(
            &mut g,
            pkt(1, 2, 0, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 0, 0b10),
            None,
        );
    }

    #[test]
    fn lagging_child_gets_status_rsp() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::default());
        g.apply(&write(40, 0, 0b0110, true));
        g.apply(&pkt(1, 40, 0, Opcode::Full));
        g.apply(&pkt(2, 40, 0, Opcode::Full));
        assert_eq!(g.state(40), st(Idle, false, 1, 0));
        // child 2 lost EXIT(0) and asks; the answer goes to port 2 only, with TID 0
        expect(
            &mut g,
            pkt(2, 40, 0, Opcode::StatusReq),
            Verdict::Lag,
            st(Idle, false, 1, 0),
            out(0b0100, 40, 0, Opcode::StatusRsp),
        );
        // a stray FULL(0) gets the same answer
        expect(
            &mut g,
            pkt(2, 40, 0, Opcode::Full),
            Verdict::Lag,
            st(Idle, false, 1, 0),
            out(0b0100, 40, 0, Opcode::StatusRsp),
        );
        // the lag answer leaves the new transaction alone
        expect(
            &mut g,
            pkt(1, 40, 1, Opcode::Full),
            Verdict::Ok,
            st(Filling, false, 1, 0b0010),
            None,
        );
        assert_eq!(g.counter(Verdict::Lag.code()), 2);
    }

    #[test]
    fn status_req_handling() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        // non-root, parent 1, children 0, 2, 3
        g.apply(&write(4, 1, 0b1101, false));
        // A STATUS_REQ from a child that has not reported is not its report.
        expect(
            &mut g,
            pkt(0, 4, 0, Opcode::StatusReq),
            Verdict::Unreported,
            st(Idle, false, 0, 0),
            None,
        );
        g.apply(&pkt(0, 4, 0, Opcode::Full));
        // already reported, group Filling: nothing to say yet
        expect(
            &mut g,
            pkt(0, 4, 0, Opcode::StatusReq),
            Verdict::Ok,
            st(Filling, false, 0, 0b0001),
            None,
        );
        g.apply(&pkt(2, 4, 0, Opcode::Full));
        // the last child, polling before it reports: still not counted
        expect(
            &mut g,
            pkt(3, 4, 0, Opcode::StatusReq),
            Verdict::Unreported,
            st(Filling, false, 0, 0b0101),
            None,
        );
        expect(
            &mut g,
            pkt(3, 4, 0, Opcode::Full),
            Verdict::Ok,
            st(Full, false, 0, 0b1101),
            out(0b0010, 4, 0, Opcode::Full),
        );
        assert_eq!(g.counter(Verdict::Unreported.code()), 2);
        assert_eq!(g.counter(0), 6);
    }

    fn sent(s: GroupState, sent: u64) -> GroupState {
        GroupState { sent, ..s }
    }

    #[test]
    fn retries_are_forwarded_once_per_epoch() {
        let mut p = SwitchEngineParams::SMALL;
        p.epoch_cycles = 256;
        let mut g = SwitchEngineGolden::new(p);
        // non-root, parent 1, children 0 and 2; Full in epoch 0 (its own FULL stamps it)
        g.apply_at(&write(4, 1, 0b0101, false), 0);
        g.apply_at(&pkt(0, 4, 0, Opcode::Full), 1);
        let full = st(Full, false, 0, 0b0101);
        let r = g.apply_at(&pkt(2, 4, 0, Opcode::Full), 2);
        assert_eq!(g.state(4), full);
        assert!(matches!(r, Response::Packet { result, .. } if result.out.is_some()));
        // Retries in the same epoch as the FULL: coalesced, FULL and STATUS_REQ alike.
        g.now = 255;
        expect(
            &mut g,
            pkt(0, 4, 0, Opcode::Full),
            Verdict::Coalesced,
            full,
            None,
        );
        expect(
            &mut g,
            pkt(2, 4, 0, Opcode::StatusReq),
            Verdict::Coalesced,
            full,
            None,
        );
        // Epoch 1: the first retry goes up (same opcode, the packet's TID), the next waits.
        g.now = 256;
        expect(
            &mut g,
            pkt(2, 4, 0, Opcode::StatusReq),
            Verdict::Ok,
            sent(full, 1),
            out(0b0010, 4, 0, Opcode::StatusReq),
        );
        expect(
            &mut g,
            pkt(0, 4, 0, Opcode::Full),
            Verdict::Coalesced,
            sent(full, 1),
            None,
        );
        // Epoch 5 = 1 mod 4: the stamp says "sent in this epoch" (the modulo is the point:
        // a group quiet for exactly four epochs waits one more).
        g.now = 5 * 256;
        expect(
            &mut g,
            pkt(0, 4, 0, Opcode::Full),
            Verdict::Coalesced,
            sent(full, 1),
            None,
        );
        g.now = 6 * 256 + 3;
        expect(
            &mut g,
            pkt(0, 4, 0, Opcode::Full),
            Verdict::Ok,
            sent(full, 2),
            out(0b0010, 4, 0, Opcode::Full),
        );
        assert_eq!(g.counter(Verdict::Coalesced.code()), 4);
        assert_eq!(g.counter(Verdict::Stale.code()), 0);
        // At a root a repeated FULL is still a duplicate.
        g.apply(&write(5, 0, 0b0011, true));
        g.apply(&pkt(0, 5, 0, Opcode::Full));
        expect(
            &mut g,
            pkt(0, 5, 0, Opcode::Full),
            Verdict::Stale,
            st(Filling, false, 0, 0b01),
            None,
        );
    }

    #[test]
    fn timer_retries_after_a_quiet_epoch() {
        let p = SwitchEngineParams {
            retry_timer: 1,
            epoch_cycles: 256,
            ..SwitchEngineParams::SMALL
        };
        let mut g = SwitchEngineGolden::new(p);
        g.apply_at(&write(4, 1, 0b0001, false), 0);
        g.apply_at(&write(5, 0, 0b0001, true), 1);
        // Idle, invalid: invisible ticks.
        assert_eq!(g.tick(4, 600), None);
        assert_eq!(g.tick(7, 600), None);
        g.apply_at(&pkt(0, 4, 2, Opcode::Full), 700); // TidFail: a failed group stays quiet
        assert_eq!(g.tick(4, 2000), None);
        g.apply_at(&write(4, 1, 0b0001, false), 700);
        g.apply_at(&pkt(0, 5, 0, Opcode::Full), 700); // the root completes at once
        assert_eq!(g.tick(5, 2000), None);
        // Full in epoch 2 (now 700): quiet in epochs 2 and 3 ...
        g.apply_at(&pkt(0, 4, 0, Opcode::Full), 700);
        assert_eq!(g.tick(4, 767), None);
        assert_eq!(g.tick(4, 1023), None);
        // ... acts in epoch 0 (two epochs on), sending FULL with the group's TID ...
        let retry = Response::Packet {
            cgid: 4,
            result: PacketResult {
                verdict: Verdict::Retry,
                state: sent(st(Full, false, 0, 0b0001), 0),
                out: out(0b0010, 4, 0, Opcode::Full),
            },
        };
        assert_eq!(g.tick(4, 1024), Some(retry));
        assert_eq!(g.tick(4, 1030), None);
        // ... and a forwarded retry also counts as "sent".
        g.apply_at(&pkt(0, 4, 0, Opcode::Full), 1300); // epoch 1
        assert_eq!(g.state(4).sent, 1);
        assert_eq!(g.tick(4, 1600), None); // epoch 2: quiet for one epoch only
        assert!(g.tick(4, 1800).is_some()); // epoch 3
                                            // Counted in RETRY only, not as packets.
        assert_eq!(g.counter(Verdict::Retry.code()), 2);
        assert_eq!(g.counter(0), 4);
    }

    #[test]
    fn bad_entries_are_rejected_and_tid_is_chosen() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        g.apply(&write(0, 1, 0b0101, false));
        g.apply(&pkt(0, 0, 0, Opcode::Full));
        let stored = CfgResult {
            entry: TableEntry {
                valid: true,
                parent: 1,
                children: 0b0101,
                is_root: false,
            },
            state: st(Filling, false, 0, 0b0001),
            counter: 0,
            rejected: true,
        };
        // parent 1 also a child; no child at all (children cut to the port width first)
        for (parent, children, is_root) in [(1, 0b0011, false), (2, 0, true), (0, 0xF0, false)] {
            assert_eq!(
                g.apply(&write(0, parent, children, is_root)),
                Response::Cfg(stored)
            );
        }
        assert_eq!(g.state(0), stored.state);
        // A root's parent field is ignored; destroying is always accepted.
        assert!(matches!(
            g.apply(&write(3, 1, 0b0010, true)),
            Response::Cfg(CfgResult {
                rejected: false,
                ..
            })
        ));
        let destroy = Op::Cfg(CfgCmd {
            op: CfgOp::Write,
            cgid: 0,
            entry: TableEntry::default(),
            counter: 0,
            tid: 0,
        });
        assert!(matches!(
            g.apply(&destroy),
            Response::Cfg(CfgResult {
                rejected: false,
                ..
            })
        ));
        // A write at TID 2 (given as 6, cut to 2 bits): the group continues the tree's count.
        let r = g.apply(&Op::Cfg(CfgCmd {
            op: CfgOp::Write,
            cgid: 0,
            entry: TableEntry {
                valid: true,
                parent: 3,
                children: 0b0001,
                is_root: false,
            },
            counter: 0,
            tid: 6,
        }));
        let Response::Cfg(c) = r else { panic!("{r:?}") };
        assert_eq!((c.state, c.rejected), (st(Idle, false, 2, 0), false));
        expect(
            &mut g,
            pkt(0, 0, 2, Opcode::Full),
            Verdict::Ok,
            st(Full, false, 2, 0b0001),
            out(0b1000, 0, 2, Opcode::Full),
        );
    }

    #[test]
    fn config_ops() {
        let p = SwitchEngineParams::SMALL;
        let mut g = SwitchEngineGolden::new(p);
        // fields are reduced to their widths: parent mod 4, children & 0xF, cgid mod 16
        let r = g.apply(&Op::Cfg(CfgCmd {
            op: CfgOp::Write,
            cgid: 16 + 6,
            entry: TableEntry {
                valid: true,
                parent: 5,
                children: 0xF5,
                is_root: false,
            },
            counter: 0,
            tid: 0,
        }));
        let e = TableEntry {
            valid: true,
            parent: 1,
            children: 0x5,
            is_root: false,
        };
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                entry: e,
                state: GroupState::default(),
                counter: 0,
                rejected: false,
            })
        );
        assert_eq!(g.entry(6), e);
        g.apply(&pkt(0, 6, 0, Opcode::Full));
        let r = g.apply(&cfg(CfgOp::ReadEntry, 6, 5));
        let s = st(Filling, false, 0, 0b01);
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                entry: e,
                state: s,
                counter: 0,
                rejected: false,
            })
        );
        // an invalid entry reads back as stored
        let r = g.apply(&cfg(CfgOp::ReadEntry, 7, 0));
        assert_eq!(r, Response::Cfg(CfgResult::default()));
        let r = g.apply(&cfg(CfgOp::ReadCounter, 3, 0));
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                counter: 1,
                ..Default::default()
            })
        );
        g.apply(&pkt(0, 8, 0, Opcode::Full)); // UnknownCgid
        let r = g.apply(&cfg(CfgOp::ReadCounter, 0, 1 + 16)); // counter index mod 16
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                counter: 1,
                ..Default::default()
            })
        );
        assert_eq!(
            g.apply(&cfg(CfgOp::ClearCounters, 6, 0)),
            Response::Cfg(CfgResult::default())
        );
        for i in 0..16 {
            assert_eq!(g.counter(i), 0);
        }
        // ClearCounters leaves tables alone; a Write of an invalid entry resets the state
        assert_eq!(g.state(6), s);
        let r = g.apply(&Op::Cfg(CfgCmd {
            op: CfgOp::Write,
            cgid: 6,
            entry: TableEntry {
                valid: false,
                parent: 2,
                children: 0b100,
                is_root: true,
            },
            counter: 0,
            tid: 0,
        }));
        let e2 = TableEntry {
            valid: false,
            parent: 2,
            children: 0b100,
            is_root: true,
        };
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                entry: e2,
                state: GroupState::default(),
                counter: 0,
                rejected: false,
            })
        );
        expect(
            &mut g,
            pkt(2, 6, 0, Opcode::Full),
            Verdict::UnknownCgid,
            GroupState::default(),
            None,
        );
    }

    #[test]
    fn counters_saturate() {
        let p = SwitchEngineParams::SMALL;
        assert_eq!(p.counter_max(), 65535);
        let mut g = SwitchEngineGolden::new(p);
        g.apply(&write(1, 0, 0b10, true));
        g.apply(&pkt(1, 1, 0, Opcode::Full)); // Ok: counter 0 only
        for _ in 0..65536 {
            g.apply(&pkt(0, 2, 0, Opcode::Full)); // UnknownCgid
        }
        assert_eq!(g.counter(0), 65535);
        assert_eq!(g.counter(1), 65535);
        g.apply(&pkt(3, 1, 0, Opcode::Full)); // NotInTree, still counted in 2
        assert_eq!(g.counter(0), 65535);
        assert_eq!(g.counter(2), 1);
        let r = g.apply(&cfg(CfgOp::ReadCounter, 0, 1));
        assert_eq!(
            r,
            Response::Cfg(CfgResult {
                counter: 65535,
                ..Default::default()
            })
        );
        g.apply(&cfg(CfgOp::ClearCounters, 0, 0));
        g.apply(&pkt(0, 2, 0, Opcode::Full));
        assert_eq!((g.counter(0), g.counter(1), g.counter(2)), (1, 1, 0));
    }

    #[test]
    fn wide_inputs_are_reduced() {
        let mut g = SwitchEngineGolden::new(SwitchEngineParams::SMALL);
        g.apply(&write(3, 0, 0b10, true));
        // port 5 → 1, cgid 19 → 3, tid 4 → 0, op 8 → 0 (Full)
        let r = g.apply(&raw_pkt(5, 19, 4, 8));
        let expected = PacketResult {
            verdict: Verdict::Ok,
            state: st(Idle, false, 1, 0),
            out: out(0b10, 3, 0, Opcode::Exit),
        };
        assert_eq!(
            r,
            Response::Packet {
                cgid: 3,
                result: expected
            }
        );
    }
}
