//! # Cycle model of the switch collective engine
//!
//! [`SwitchEngineModel::step`] is one clock cycle of the RTL (`netcoll-hdl`'s `switch_engine`): it
//! returns what every output port shows during the cycle, then applies the rising edge. The
//! testbench compares it with the RTL port by port, cycle by cycle, and with the
//! [golden reference](super::golden) operation by operation.
//!
//! ## Micro-architecture (what the RTL implements, register for register)
//!
//! An operation accepted in cycle `t` goes through four stages and answers in `t + 4`
//! ([`super::LATENCY`]); one enters every cycle. The stages are cut so that no path runs from a
//! RAM's output into a decision in the same cycle and the decision itself starts from
//! registers: the memories' reads are registered twice (the RAM's own read register, then an
//! output register), the entry is resolved a stage before the decision (so what the packet's
//! port and opcode make of it can be registered), the write bypass is selected by CGID
//! compares made a cycle or two early, and the counters count a verdict that is already in a
//! register. The one path left from a decision to the next is the state of a group that gets
//! a packet every cycle: its next state is in `byp1_st`, and the next decision takes it
//! through a 2:1 mux.
//!
//! - **Reset sweep.** `init_done`, `init_ptr`, every pipeline valid bit, the output registers
//!   and the counters are registers reset to zero by a synchronous `reset`. The table and state
//!   memories are RAMs with no reset; instead, every cycle in which `init_done` is low and
//!   `reset` is low writes `entry[init_ptr] = 0` (invalid) and `state[init_ptr] = 0` (Idle, TID
//!   0) and advances `init_ptr`; the edge that writes entry `groups - 1` sets `init_done`.
//!   Hence `pkt_ready` and `cfg_ready` are low for exactly `groups` cycles after the last reset
//!   cycle. Clearing one entry per cycle is why a reset takes `groups` cycles: a RAM has one
//!   write port.
//! - **Time.** `now` ([`NOW_BITS`] wide, reset to 0) counts the cycles in which `init_done`
//!   is high; the epoch of an operation is taken from it in stage 0 and travels with it.
//! - **Stage 0 (cycle `t`).** `cfg_ready = init_done`, `pkt_ready = init_done && !cfg_valid
//!   && room` (combinational: the configuration port has priority; `room` is a function of
//!   registers, below). The accepted operation's CGID addresses both memories (their read is
//!   registered, and reads the word as it is *before* that edge's write); the operation, every
//!   field reduced to its port width, with its epoch, is latched into the stage-1 registers.
//!   With the retry timer on, a cycle with nothing offered (`!cfg_valid && !pkt_valid`), the
//!   sweep done and `room` is a tick: the group of the scan pointer enters stage 1 as an
//!   operation of its own, and the pointer advances.
//! - **Stage 1 (`t + 1`).** The memories' read data is latched into their output registers
//!   (`tbl_q`, `st_q`). The read of stage 0 missed three writes, all made by stage 3: the one
//!   of the edge before (`byp1`), the one at the end of this cycle and the one at the end of
//!   the next (the operations now in stages 3 and 2). Table entries are written only by
//!   configuration `Write`s, whose entry is in a register from stage 1 on, so the table
//!   bypass is resolved here completely: the newest of the three entries written to this
//!   CGID is registered (`e_byp`, with `e_use_byp`). For the state, the CGID is compared with
//!   the two older writes, which will be in `byp1` and `byp2` during stage 2 (`pre_byp1`,
//!   `pre_byp2`). (The RTL writes the state memory a cycle later, from `byp1`, so that the
//!   decision's loop ends in flip-flops rather than at a RAM's write port; its read then also
//!   misses the write in `byp2`; it registers here the newer of `byp1`'s and `byp2`'s writes
//!   to hit (`old_st`, `pre_old`) in place of `pre_byp2`: the same state.) A `Write` the port rejects is found here (from its registered entry): from
//!   stage 2 on it counts as writing nothing, for the bypass and the memories alike.
//! - **Stage 2 (`t + 2`).** The entry (`e_byp` or `tbl_q`) is registered for stage 3
//!   (`s3_entry`), with what the packet's port and opcode make of it (the RTL's
//!   `switch_engine_classify`: rules 1–5, the path, the parent's port as a mask); the state
//!   as the two older writes and the memory left it is registered (`st_pre`: `byp1` if
//!   `pre_byp1`, else `byp2` if `pre_byp2`, else `st_q`); and the CGID is compared with the
//!   operation in stage 3, whose write at the end of this cycle is the newest (`sel1`).
//!   The RTL also registers what the decision needs to know of each of the two states stage
//!   3 chooses between (failed, Full, the TID compares, the port's reported bit, every child
//!   reported, sent in this epoch, quiet for a whole epoch): of `st_pre` here, of `byp1_st`
//!   with the decision that writes it. Those are functions of registers the model has, so
//!   the model works them out when it decides.
//! - **Stage 3 (`t + 3`).** The state is `byp1` if `sel1`, else `st_pre`. Rules 6–7 (or the
//!   configuration operation, or rule 8 for a tick) decide; at the edge the state is written
//!   back (every packet and tick writes it, unchanged for the drop verdicts 1–3 and the
//!   invisible ticks; an accepted `Write` writes Idle at `cfg_tid` and the entry; a rejected
//!   one writes nothing), the write is kept in `byp1` (and `byp1`'s state moves to `byp2`),
//!   and the output registers are loaded, with the verdict and the counter command (count a
//!   packet, count an event's verdict, clear, read, index) in registers of their own.
//! - **Stage 4 (`t + 4`): outputs and counters.** `ev_*` and `rsp_*` but `rsp_counter` are
//!   the output registers; an output group that was not loaded at the previous edge is all
//!   zero. `out_*` show the head of the output queue or, with the queue empty, the stage-4
//!   output packet register; at the edge the packet shown leaves if `out_ready`, and the
//!   stage-4 packet joins the queue unless it was shown and left. `room` is `queued +
//!   in_flight < 8` with `queued` the packets in the queue and `in_flight` the packets and
//!   ticks in stages 1–3 plus the stage-4 output packet: so the queue (8 slots) cannot
//!   overflow. (The RTL keeps `room` in a register worked out a cycle ahead: what carries
//!   over — the queue, the output packet, stages 1 and 2 — is summed from registers, and the
//!   terms known late — the packet or tick accepted, stage 3's decision to send, the packet
//!   leaving the queue — choose among compares of that sum made beforehand.) The counters count the registered verdict (or clear) at the
//!   edge ending this cycle, and `rsp_counter` is the selected counter during this cycle
//!   (a mux of registers, zero unless a `ReadCounter` is in stage 4). Since every counter
//!   operation (count, clear, read) happens in this one stage, in order, a `ReadCounter` sees
//!   every earlier packet and clear and none of the later ones.
//!
//! ### The payload path (a reducing engine, `max_plen > 0`)
//!
//! Beside the four stages, which decide on headers as above, payload beats go through a path
//! of their own, in order:
//!
//! - **Input.** A packet's first beat is accepted as above (`pkt_ready` also needs room for a
//!   whole packet in the **input payload FIFO**, `ipf`, [`ipf_depth`] beats: `ipf` holds no more
//!   than `ipf_depth - max_beats` beats); its header enters stage 1 with the number of beats
//!   still to come, which are then accepted whenever offered (`pkt_ready` is high for them
//!   whatever else is offered; a configuration operation may be accepted in the same cycle).
//!   The beats of a packet with `0 < plen <= max_plen` are written into `ipf`; those of any
//!   other packet are dropped as they arrive.
//! - **Commands.** Stage 3 turns its decision into a payload command, which joins a command
//!   FIFO one edge later (a register between the decision and the FIFO): which buffer of the
//!   slot to read (accumulator, retained result or none), whether to take the packet's beats
//!   from `ipf` and combine them (with the operation and type) or pass one operand through,
//!   which buffers to write and whether the result is the output packet's payload. A packet
//!   whose beats are in `ipf` but have no use makes a command that only drops them; a decision
//!   with no beats to take and nothing to send makes none.
//! - **Payload engine.** It works through the commands in order, one beat a cycle, from a
//!   register that holds the current command: the head of the FIFO is loaded into it at the
//!   edge where the command before issues its last beat (or at once if it holds none), so
//!   commands follow each other without a gap. In the cycle it issues beat `j` of a command it
//!   pops the beat's words from `ipf` (when the command takes beats), reads word `j` of the
//!   buffer (the memories' read, registered twice; a write to the same word at the edge ending
//!   that cycle is forwarded to it), and the reduction ALU (`lanes` words a cycle; latency 6,
//!   or `FP_LATENCY` on an engine that reduces the floating-point types: its `latency()`)
//!   combines them; `D` = 2 + that latency cycles after the issue ([`payload_pipe`]: 8
//!   without the floating-point types), at that cycle's edge, the result is written to the
//!   buffers and pushed into the **output payload FIFO** (`opf`, `OUT_QUEUE × max_beats`
//!   beats). A beat is not issued while a beat of its input has not arrived, nor while an
//!   earlier beat writing the same word of the same slot will be written after this cycle's
//!   edge (its read would miss the write): so two commands of one slot issue at least `D`
//!   cycles apart. Packets of `max_beats >= D` beats of one group, and packets of different
//!   groups, go through without a gap; shorter packets of one group are `D` cycles apart (the
//!   ALU's result is the next contribution's operand).
//! - **Output.** The output queue holds the headers as above; a packet with payload is shown
//!   (`out_valid`) beat by beat as its beats are in `opf`, with its header fields on every
//!   beat and beat `j`'s words on `out_data_*`, and leaves the queue with its last beat.
//!   A packet without payload is shown as before. So an answer with payload shows its first
//!   beat 15 cycles after the packet that caused it was accepted (`7 + D`), at the earliest;
//!   events and responses still come after 4.
//! - `reset` empties `ipf`, the commands (the staged one too), the engine's pipeline and
//!   `opf`, like every other queue, and forgets the beats still to come of a packet being
//!   received.
//!
//! The ready signals are not gated by `reset`: an operation handshaken during a reset cycle is
//! simply lost, because the reset edge clears the pipeline's valid bits and the output
//! queue. Stage 3 does not write the memories at a reset edge either; that is
//! unobservable, since the sweep that follows rewrites every entry before anything can read it.
//!
//! [`SwitchEngineModel::new`] starts in the state right after a reset edge (so it sweeps first).
//!
//! The model keeps entries and states packed into one `u64` each, in the memory word layouts
//! the RTL uses ([`SwitchEngineParams::entry_layout`], [`SwitchEngineParams::state_layout`]),
//! and implements the packet rules independently of the golden, in the flat form the RTL
//! uses; the tests compare the two on random streams.

use super::golden::Response;
use super::{
    CfgOp, CsmState, GroupState, Opcode, PayloadMeta, SwitchEngineIn, SwitchEngineOut,
    SwitchEngineParams, TableEntry, Verdict, COUNTERS, NOW_BITS, OUT_QUEUE,
};
use crate::kit::cycle::CycleSim;
use crate::kit::ports::mask;
use crate::reduce_alu::golden::golden_int as alu_element;
use crate::reduce_alu::{is_reserved_op, AluOp, Dtype};
use std::collections::VecDeque;

/// Positions of the fields of the table and state memory words, taken once from the shared
/// layouts ([`SwitchEngineParams::entry_layout`], [`SwitchEngineParams::state_layout`]) so
/// that the per-cycle code is shifts and masks.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Words {
    e_valid: u32,
    e_root: u32,
    e_parent: u32,
    e_children: u32,
    s_csm: u32,
    s_fail: u32,
    s_tid: u32,
    s_sent: u32,
    s_reported: u32,
    /// The buffers' shapes (`None`: a barrier-only engine, whose state words have none).
    s_meta: Option<[u32; 6]>,
    plen_bits: usize,
    dtype_bits: usize,
    port_bits: usize,
    radix: usize,
}

impl Words {
    fn new(p: &SwitchEngineParams) -> Words {
        let (e, s) = (p.entry_layout(), p.state_layout());
        Words {
            e_valid: e.lsb("valid") as u32,
            e_root: e.lsb("is_root") as u32,
            e_parent: e.lsb("parent") as u32,
            e_children: e.lsb("children") as u32,
            s_csm: s.lsb("csm") as u32,
            s_fail: s.lsb("fail") as u32,
            s_tid: s.lsb("tid") as u32,
            s_sent: s.lsb("sent") as u32,
            s_reported: s.lsb("reported") as u32,
            s_meta: p.reduces().then(|| {
                [
                    "acc_plen",
                    "acc_rop",
                    "acc_dtype",
                    "ret_plen",
                    "ret_rop",
                    "ret_dtype",
                ]
                .map(|f| s.lsb(f) as u32)
            }),
            plen_bits: p.plen_bits(),
            dtype_bits: p.dtype_bits(),
            port_bits: p.port_bits(),
            radix: p.radix,
        }
    }

    fn entry(&self, e: TableEntry) -> u64 {
        ((e.valid as u64) << self.e_valid)
            | ((e.is_root as u64) << self.e_root)
            | (e.parent << self.e_parent)
            | (e.children << self.e_children)
    }

    fn unpack_entry(&self, e: u64) -> TableEntry {
        TableEntry {
            valid: (e >> self.e_valid) & 1 != 0,
            is_root: (e >> self.e_root) & 1 != 0,
            parent: (e >> self.e_parent) & mask(self.port_bits),
            children: (e >> self.e_children) & mask(self.radix),
        }
    }

    fn state(&self, g: GroupState) -> u64 {
        let mut w = (g.csm.code() << self.s_csm)
            | ((g.fail as u64) << self.s_fail)
            | (g.tid << self.s_tid)
            | (g.sent << self.s_sent)
            | (g.reported << self.s_reported);
        if let Some(m) = self.s_meta {
            let f = [
                g.acc.plen,
                g.acc.rop,
                g.acc.dtype,
                g.ret.plen,
                g.ret.rop,
                g.ret.dtype,
            ];
            for (lsb, v) in m.iter().zip(f) {
                w |= v << lsb;
            }
        }
        w
    }

    fn unpack_state(&self, s: u64) -> GroupState {
        let meta = |at: &[u32]| PayloadMeta {
            plen: (s >> at[0]) & mask(self.plen_bits),
            rop: (s >> at[1]) & 15,
            dtype: (s >> at[2]) & mask(self.dtype_bits),
        };
        let (acc, ret) = match self.s_meta {
            Some(m) => (meta(&m[0..3]), meta(&m[3..6])),
            None => (PayloadMeta::default(), PayloadMeta::default()),
        };
        GroupState {
            csm: CsmState::of(s >> self.s_csm),
            fail: (s >> self.s_fail) & 1 != 0,
            tid: (s >> self.s_tid) & 3,
            sent: (s >> self.s_sent) & 3,
            reported: (s >> self.s_reported) & mask(self.radix),
            acc,
            ret,
        }
    }
}

/// The cycle model. See the [module docs](self) for the micro-architecture.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchEngineModel {
    p: SwitchEngineParams,
    /// `radix - 1`: the mask of a port number.
    port_num_mask: u64,
    /// `groups - 1`: the mask of a CGID.
    cgid_mask: u64,
    /// [`SwitchEngineParams::port_mask`]: the mask of a child mask.
    child_mask: u64,
    counter_max: u64,
    w: Words,

    // Memories (not reset by `reset`).
    table: Vec<u64>,
    state: Vec<u64>,

    // Registers.
    counters: [u64; COUNTERS],
    init_done: bool,
    init_ptr: u64,
    /// Cycles since the sweep ended (`now`, [`NOW_BITS`] wide), and the group of the next
    /// tick.
    now: u64,
    scan_ptr: u64,
    /// Stage 1: the accepted operation, fields already reduced to port widths.
    s1: Stage,
    /// The memories' own read registers (`rd_data`): the words of stage 1's CGID.
    tbl_rd: u64,
    st_rd: u64,
    /// Stage 2: the operation, and the memories' output registers.
    s2: Stage,
    tbl_q: u64,
    st_q: u64,
    /// The table bypass, resolved in stage 1: the newest entry written to stage 2's CGID that
    /// the memory read missed.
    e_use_byp: bool,
    e_byp: u64,
    /// The state bypass selects for stage 2, compared in stage 1: the state is `byp1_st` /
    /// `byp2_st` rather than `st_q`.
    pre_byp1: bool,
    pre_byp2: bool,
    /// Stage 3: the operation, its entry (resolved in stage 2) …
    s3: Stage,
    s3_entry: u64,
    /// … its state as every write but the one stage 3 makes at this edge left it (resolved
    /// in stage 2), and whether that write replaces it (compared in stage 2).
    st_pre: u64,
    sel1: bool,
    /// The write stage 3 made at the last edge (`byp1`) and the one before (`byp2_st`).
    byp1_cgid: u64,
    byp1_tbl_valid: bool,
    byp1_st_valid: bool,
    byp1_tbl: u64,
    byp1_st: u64,
    byp2_st: u64,
    /// Stage 4: output registers (`pkt_ready`, `cfg_ready` and `rsp_counter` are always zero
    /// here; they are combinational and computed in [`SwitchEngineModel::step`]) …
    regs: SwitchEngineOut,
    /// … and the counter command: count a packet (`s4_count`, counter 0) and its verdict
    /// (`s4_verdict`, unless `Ok`), clear, or read counter `s4_sel`.
    s4_count: bool,
    s4_verdict: Option<Verdict>,
    s4_clear: bool,
    s4_read: bool,
    s4_sel: u64,
    /// The output queue behind the stage-4 output register (`regs.out_*`), oldest first.
    queue: VecDeque<SwitchEngineOut>,
    /// The last cycle's inputs (for [`CycleSim::peek`]).
    last: SwitchEngineIn,
    /// The payload path (see its section in the module docs; empty for a barrier-only engine).
    pay: PayloadPath,
}

/// The input payload FIFO's depth: two packets of the longest kind and eight beats of slack
/// (the decision takes four cycles, and a beat may wait for a write in flight).
pub fn ipf_depth(p: &SwitchEngineParams) -> usize {
    2 * p.max_beats() + 8
}

/// Cycles from a payload engine's issue of a beat to the edge that writes its result: the
/// memories' read (2) and the reduction ALU's latency, per build
/// ([`SwitchEngineParams::alu_latency`]): 8 without the floating-point types.
pub fn payload_pipe(p: &SwitchEngineParams) -> usize {
    2 + p.alu_latency()
}

/// A beat of `lanes` payload words (unused lanes zero).
type Beat = [u64; 4];

/// One of a group's two data buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Buf {
    Acc,
    Ret,
}

/// What the payload engine does for one decision (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PayCmd {
    slot: u64,
    /// Beats taken from `ipf` (the packet's stored beats).
    take: u64,
    /// Beats of buffer work (0: the command only drops the beats it takes).
    work: u64,
    /// The buffer read as the first operand.
    src: Option<Buf>,
    /// The beats taken are the second operand (else they are dropped).
    use_in: bool,
    /// Combine the operands; else pass on the one there is.
    combine: bool,
    rop: u64,
    dtype: u64,
    wr_acc: bool,
    wr_ret: bool,
    emit: bool,
}

/// A beat issued by the payload engine, until its result is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Issued {
    slot: u64,
    j: u64,
    value: Beat,
    wr_acc: bool,
    wr_ret: bool,
    emit: bool,
}

/// The payload path's registers and memories.
#[derive(Clone, Debug, PartialEq)]
struct PayloadPath {
    /// Beats still to come of the packet being received, and whether they are stored.
    in_left: u64,
    in_store: bool,
    ipf: VecDeque<Beat>,
    /// Stage 3's command of the last edge, on its way into `cmds`.
    staged: Option<PayCmd>,
    cmds: VecDeque<PayCmd>,
    /// The command being issued and its next beat (a register, loaded from `cmds`).
    current: Option<(PayCmd, u64)>,
    /// `pipe[k]`: the beat issued `k + 1` cycles ago, if any.
    /// ([`payload_pipe`] elements.)
    pipe: Vec<Option<Issued>>,
    /// The data memories: beat `j` of slot `s` at `s * max_beats + j`.
    acc: Vec<Beat>,
    ret: Vec<Beat>,
    opf: VecDeque<Beat>,
    /// Beats of the head output packet already taken.
    out_sent: u64,
}

impl PayloadPath {
    fn new(p: &SwitchEngineParams) -> PayloadPath {
        let words = if p.reduces() {
            p.slots * p.max_beats()
        } else {
            0
        };
        PayloadPath {
            in_left: 0,
            in_store: false,
            ipf: VecDeque::new(),
            staged: None,
            cmds: VecDeque::new(),
            current: None,
            pipe: vec![None; payload_pipe(p)],
            acc: vec![[0; 4]; words],
            ret: vec![[0; 4]; words],
            opf: VecDeque::new(),
            out_sent: 0,
        }
    }
}

/// The group after its transaction completes here: Exiting is passed through to Idle, the
/// TID advances, nothing is reported (`sent` and `fail` stay).
fn completed(g: GroupState) -> GroupState {
    GroupState {
        csm: CsmState::Idle,
        tid: (g.tid + 1) & 3,
        reported: 0,
        ..g
    }
}

/// A pipeline stage's operation register.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Stage {
    valid: bool,
    cfg: bool,
    /// A tick (rule 8) of group `op.pkt_cgid`; the other packet fields mean nothing.
    tick: bool,
    /// The epoch of the cycle the operation was accepted in.
    epoch: u64,
    /// A packet whose beats go into `ipf` (`0 < plen <= max_plen`).
    stored: bool,
    op: SwitchEngineIn,
}

impl Stage {
    fn cgid(&self) -> u64 {
        if self.cfg {
            self.op.cfg_cgid
        } else {
            self.op.pkt_cgid
        }
    }
    /// A `Write` the configuration port rejects: a valid entry with no child, or a non-root
    /// whose parent is also a child (fields already cut to the port widths).
    fn rejected(&self) -> bool {
        let o = &self.op;
        o.cfg_entry_valid
            && (o.cfg_children == 0
                || (!o.cfg_is_root && (o.cfg_children >> o.cfg_parent) & 1 != 0))
    }
    /// An accepted configuration `Write`: writes the table (and the state).
    fn writes_table(&self) -> bool {
        self.valid && self.cfg && CfgOp::of(self.op.cfg_op) == CfgOp::Write && !self.rejected()
    }
    /// A packet, a tick or an accepted `Write`: writes the state back in stage 3.
    fn writes_state(&self) -> bool {
        self.valid && (!self.cfg || self.writes_table())
    }
    /// A packet or a tick: may produce an output packet (counted against the queue's room).
    fn may_send(&self) -> bool {
        self.valid && !self.cfg
    }
}

/// What stage 3 decides for one operation.
struct Decision {
    out: SwitchEngineOut,
    tbl_wr: Option<u64>,
    st_wr: Option<u64>,
    /// A packet (counter 0).
    packet: bool,
    /// The verdict of an event (packet or acting tick).
    verdict: Option<Verdict>,
    /// The payload engine's command.
    cmd: Option<PayCmd>,
}

impl SwitchEngineModel {
    /// A model in the state right after a reset edge (it sweeps the tables first).
    ///
    /// # Panics
    /// If `p` is outside what the packed memories hold (a word wider than 64 bits, or a radix
    /// or group count that is not a power of two); every supported value is fine.
    pub fn new(p: SwitchEngineParams) -> Self {
        assert!(
            p.radix.is_power_of_two() && p.entry_layout().width() <= 64,
            "unsupported radix {}",
            p.radix
        );
        assert!(
            p.groups.is_power_of_two(),
            "unsupported groups {}",
            p.groups
        );
        assert!(
            p.counter_bits < 64,
            "unsupported counter_bits {}",
            p.counter_bits
        );
        Self {
            p,
            port_num_mask: p.radix as u64 - 1,
            cgid_mask: p.groups as u64 - 1,
            child_mask: p.port_mask(),
            counter_max: p.counter_max(),
            w: Words::new(&p),
            table: vec![0; p.groups],
            state: vec![0; p.groups],
            counters: [0; COUNTERS],
            init_done: false,
            init_ptr: 0,
            now: 0,
            scan_ptr: 0,
            s1: Stage::default(),
            tbl_rd: 0,
            st_rd: 0,
            s2: Stage::default(),
            tbl_q: 0,
            st_q: 0,
            e_use_byp: false,
            e_byp: 0,
            pre_byp1: false,
            pre_byp2: false,
            s3: Stage::default(),
            s3_entry: 0,
            st_pre: 0,
            sel1: false,
            byp1_cgid: 0,
            byp1_tbl_valid: false,
            byp1_st_valid: false,
            byp1_tbl: 0,
            byp1_st: 0,
            byp2_st: 0,
            regs: SwitchEngineOut::default(),
            s4_count: false,
            s4_verdict: None,
            s4_clear: false,
            s4_read: false,
            s4_sel: 0,
            queue: VecDeque::with_capacity(OUT_QUEUE),
            last: SwitchEngineIn::default(),
            pay: PayloadPath::new(&p),
        }
    }

    pub fn params(&self) -> SwitchEngineParams {
        self.p
    }

    /// True once the reset sweep has finished.
    pub fn init_done(&self) -> bool {
        self.init_done
    }

    /// The table entry of `cgid` as the memory holds it now (for debugging and tests).
    pub fn entry(&self, cgid: u64) -> TableEntry {
        self.w
            .unpack_entry(self.table[(cgid & self.cgid_mask) as usize])
    }

    /// The state of group `cgid` as the memory holds it now.
    pub fn state(&self, cgid: u64) -> GroupState {
        self.w
            .unpack_state(self.state[(cgid & self.cgid_mask) as usize])
    }

    /// Counter `i & 15` (0 for 12..15).
    pub fn counter(&self, i: u64) -> u64 {
        self.counters.get((i & 15) as usize).copied().unwrap_or(0)
    }

    /// Packets waiting in the output queue behind the stage-4 output register.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Nothing in flight and nothing to show: no operation in the pipeline, nothing in the
    /// stage-4 registers, the output queue or the payload path, the sweep over and the retry
    /// timer off. A cycle with no input then changes nothing but `now`, and no output rises
    /// before an input does.
    pub fn quiet(&self) -> bool {
        let pay = &self.pay;
        self.init_done
            && !self.p.retry_timer_on()
            && !(self.s1.valid || self.s2.valid || self.s3.valid)
            && !(self.regs.out_valid || self.regs.ev_valid || self.regs.rsp_valid)
            && !(self.s4_count || self.s4_clear || self.s4_read)
            && self.s4_verdict.is_none()
            && self.queue.is_empty()
            && pay.in_left == 0
            && pay.ipf.is_empty()
            && pay.staged.is_none()
            && pay.cmds.is_empty()
            && pay.current.is_none()
            && pay.pipe.iter().all(Option::is_none)
            && pay.opf.is_empty()
    }

    /// Room for one more operation that may send: the queued packets and every one that may
    /// still join them (packets and ticks in stages 1–3, the stage-4 output register) stay
    /// within the queue's depth.
    fn room(&self) -> bool {
        let in_flight = [
            self.s1.may_send(),
            self.s2.may_send(),
            self.s3.may_send(),
            self.regs.out_valid,
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        self.queue.len() + in_flight < OUT_QUEUE
    }

    /// The outputs during a cycle with inputs `i`: the output registers, the head of the
    /// output queue (or, with the queue empty, the stage-4 output register), the counter
    /// selected by a `ReadCounter` in stage 4, and the two combinational ready signals.
    fn outputs(&self, i: &SwitchEngineIn) -> SwitchEngineOut {
        let mut o = self.regs;
        // The packet shown: the queue's head, else the stage-4 output register's; one with a
        // payload only while its next beat is in `opf`.
        let head = match self.queue.front() {
            Some(h) => Some(h),
            None => self.regs.out_valid.then_some(&self.regs),
        };
        let shown = head.filter(|h| h.out_plen == 0 || !self.pay.opf.is_empty());
        o.out_valid = shown.is_some();
        let h = shown.copied().unwrap_or_default();
        o.out_ports = h.out_ports;
        o.out_cgid = h.out_cgid;
        o.out_tid = h.out_tid;
        o.out_op = h.out_op;
        o.out_plen = h.out_plen;
        o.out_rop = h.out_rop;
        o.out_dtype = h.out_dtype;
        o.out_data = match (shown, self.pay.opf.front()) {
            (Some(h), Some(beat)) if h.out_plen > 0 => *beat,
            _ => [0; 4],
        };
        if self.s4_read {
            o.rsp_counter = self.counter(self.s4_sel);
        }
        o.cfg_ready = self.init_done;
        o.pkt_ready = self.pay.in_left > 0
            || (self.init_done && !i.cfg_valid && self.room() && self.ipf_room());
        o
    }

    /// Room in `ipf` for a whole packet (always, for a barrier-only engine).
    fn ipf_room(&self) -> bool {
        !self.p.reduces() || self.pay.ipf.len() + self.p.max_beats() <= ipf_depth(&self.p)
    }

    /// One clock cycle: returns the outputs during the cycle, then applies the edge.
    pub fn step(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
        let o = self.outputs(i);
        let room = self.room();
        self.last = *i;

        if i.reset {
            // Every register but the memories' own read registers (which nothing reads
            // before a valid operation has loaded them).
            // The data memories keep their words too.
            let mut pay = PayloadPath::new(&self.p);
            pay.acc = std::mem::take(&mut self.pay.acc);
            pay.ret = std::mem::take(&mut self.pay.ret);
            *self = Self {
                table: std::mem::take(&mut self.table),
                state: std::mem::take(&mut self.state),
                tbl_rd: self.tbl_rd,
                st_rd: self.st_rd,
                last: *i,
                pay,
                ..Self::new(self.p)
            };
            return o;
        }

        // Stage 4: the counters take the registered command …
        if self.s4_clear {
            self.counters = [0; COUNTERS];
        } else {
            if self.s4_count {
                self.bump(Verdict::Ok); // counter 0: every accepted packet
            }
            if let Some(v) = self.s4_verdict.filter(|&v| v != Verdict::Ok) {
                self.bump(v);
            }
        }
        // … and the output queue: the beat shown leaves with `out_ready`, and the packet with
        // its last beat; the stage-4 output register's packet joins the queue unless it was
        // the one shown and left.
        let shown_from_queue = !self.queue.is_empty();
        let taken = o.out_valid && i.out_ready;
        let mut leaves = taken;
        if taken && o.out_plen > 0 {
            self.pay.opf.pop_front();
            self.pay.out_sent += 1;
            leaves = self.pay.out_sent == self.p.beats(o.out_plen);
        }
        if leaves {
            self.pay.out_sent = 0;
            if shown_from_queue {
                self.queue.pop_front();
            }
        }
        if self.regs.out_valid && (shown_from_queue || !leaves) {
            self.queue.push_back(self.regs);
        }
        assert!(self.queue.len() <= OUT_QUEUE, "output queue overflow");
        // The payload engine (it reads the memories before stage 3's command joins its queue
        // and before this edge's writes).
        self.payload_edge();

        // Stage 3: decide with the resolved entry and the bypassed state; load stage 4.
        let d = if self.s3.valid {
            let st = if self.sel1 { self.byp1_st } else { self.st_pre };
            if self.s3.cfg {
                self.exec_cfg(self.s3_entry, st)
            } else {
                self.exec_pkt(self.s3_entry, st)
            }
        } else {
            Decision {
                out: SwitchEngineOut::default(),
                tbl_wr: None,
                st_wr: None,
                packet: false,
                verdict: None,
                cmd: None,
            }
        };
        // The command joins the queue at the next edge (a register between the decision and
        // the queue).
        if let Some(c) = self.pay.staged.take() {
            self.pay.cmds.push_back(c);
        }
        self.pay.staged = d.cmd;
        self.regs = d.out;
        self.s4_count = d.packet;
        self.s4_verdict = d.verdict;
        let cfg_op = CfgOp::of(self.s3.op.cfg_op);
        let s3_cfg = self.s3.valid && self.s3.cfg;
        self.s4_clear = s3_cfg && cfg_op == CfgOp::ClearCounters;
        self.s4_read = s3_cfg && cfg_op == CfgOp::ReadCounter;
        self.s4_sel = self.s3.op.cfg_counter;

        // Stage 2 → 3: the entry, the state but for stage 3's write, and whether stage 3's
        // write (the newest) replaces it.
        self.s3_entry = if self.e_use_byp {
            self.e_byp
        } else {
            self.tbl_q
        };
        self.st_pre = if self.pre_byp1 {
            self.byp1_st
        } else if self.pre_byp2 {
            self.byp2_st
        } else {
            self.st_q
        };
        self.sel1 = self.s2.cgid() == self.s3.cgid() && self.s3.writes_state();

        // Stage 1 → 2: output registers, and the early bypass compares against the writes
        // the memory read missed: stage 2's and stage 3's (at the next edge and this one) and
        // `byp1`'s.
        let cgid = self.s1.cgid();
        let hit2 = cgid == self.s2.cgid();
        let hit3 = cgid == self.s3.cgid();
        let hit_b1 = cgid == self.byp1_cgid;
        (self.e_use_byp, self.e_byp) = if hit2 && self.s2.writes_table() {
            (true, self.cfg_word(&self.s2.op))
        } else if hit3 && self.s3.writes_table() {
            (true, self.cfg_word(&self.s3.op))
        } else {
            (hit_b1 && self.byp1_tbl_valid, self.byp1_tbl)
        };
        self.pre_byp1 = hit3 && self.s3.writes_state();
        self.pre_byp2 = hit_b1 && self.byp1_st_valid;
        self.tbl_q = self.tbl_rd;
        self.st_q = self.st_rd;

        // Stage 3's write, kept for the bypass.
        let wr_cgid = self.s3.cgid() as usize;
        self.byp2_st = self.byp1_st;
        self.byp1_cgid = self.s3.cgid();
        self.byp1_tbl_valid = d.tbl_wr.is_some();
        self.byp1_st_valid = d.st_wr.is_some();
        self.byp1_tbl = d.tbl_wr.unwrap_or(0);
        self.byp1_st = d.st_wr.unwrap_or(0);
        self.s3 = self.s2;
        self.s2 = self.s1;

        // Stage 0 → 1: accept, or tick when nothing is offered; the memories read (before
        // this edge's writes).
        let take_cfg = o.cfg_ready && i.cfg_valid;
        // A beat of the packet being received, or a packet's first beat (its header).
        let take_beat = self.pay.in_left > 0 && i.pkt_valid;
        let take_pkt = self.pay.in_left == 0 && o.pkt_ready && i.pkt_valid;
        let tick =
            self.p.retry_timer_on() && self.init_done && !i.cfg_valid && !i.pkt_valid && room;
        // The beat as the ports carry it: `lanes` words (the others are no port).
        let mut data = [0; 4];
        data[..self.p.data_lanes()].copy_from_slice(&i.pkt_data[..self.p.data_lanes()]);
        if take_beat {
            self.pay.in_left -= 1;
            if self.pay.in_store {
                self.pay.ipf.push_back(data);
            }
        }
        if take_pkt {
            let plen = i.pkt_plen & 255;
            self.pay.in_store = self.p.reduces() && plen > 0 && plen <= self.p.max_plen as u64;
            self.pay.in_left = self.p.beats(plen) - 1;
            if self.pay.in_store {
                self.pay.ipf.push_back(data);
            }
        }
        assert!(self.pay.ipf.len() <= ipf_depth(&self.p), "ipf overflow");
        self.s1.valid = take_cfg || take_pkt || tick;
        self.s1.cfg = take_cfg;
        self.s1.tick = tick;
        self.s1.epoch = self.p.epoch(self.now);
        self.s1.stored = take_pkt && self.pay.in_store;
        if self.s1.valid {
            self.s1.op = self.reduce(i);
            if tick {
                self.s1.op.pkt_cgid = self.scan_ptr;
                self.scan_ptr = (self.scan_ptr + 1) & self.cgid_mask;
            }
            let c = self.s1.cgid() as usize;
            self.tbl_rd = self.table[c];
            self.st_rd = self.state[c];
        }
        if self.init_done {
            self.now = (self.now + 1) & mask(NOW_BITS);
        }

        // The memory writes: the reset sweep, or stage 3's.
        if !self.init_done {
            // Nothing is in the pipeline during the sweep (nothing is accepted before
            // init_done).
            self.table[self.init_ptr as usize] = 0;
            self.state[self.init_ptr as usize] = 0;
            self.init_done = self.init_ptr == self.cgid_mask;
            self.init_ptr = (self.init_ptr + 1) & self.cgid_mask;
        } else {
            if let Some(e) = d.tbl_wr {
                self.table[wr_cgid] = e;
            }
            if let Some(st) = d.st_wr {
                self.state[wr_cgid] = st;
            }
        }
        o
    }

    /// The inputs as the RTL's ports see them: every field cut to its port width.
    fn reduce(&self, i: &SwitchEngineIn) -> SwitchEngineIn {
        SwitchEngineIn {
            reset: i.reset,
            pkt_valid: i.pkt_valid,
            pkt_port: i.pkt_port & self.port_num_mask,
            pkt_cgid: i.pkt_cgid & self.cgid_mask,
            pkt_tid: i.pkt_tid & 3,
            pkt_op: i.pkt_op & 7,
            pkt_plen: i.pkt_plen & 255,
            pkt_rop: i.pkt_rop & 15,
            pkt_dtype: i.pkt_dtype & 7,
            pkt_data: i.pkt_data,
            cfg_valid: i.cfg_valid,
            cfg_op: i.cfg_op & 3,
            cfg_cgid: i.cfg_cgid & self.cgid_mask,
            cfg_entry_valid: i.cfg_entry_valid,
            cfg_parent: i.cfg_parent & self.port_num_mask,
            cfg_children: i.cfg_children & self.child_mask,
            cfg_is_root: i.cfg_is_root,
            cfg_counter: i.cfg_counter & 15,
            cfg_tid: i.cfg_tid & 3,
            out_ready: i.out_ready,
        }
    }

    /// The table word of a configuration `Write`'s entry fields.
    fn cfg_word(&self, s: &SwitchEngineIn) -> u64 {
        self.w.entry(TableEntry {
            valid: s.cfg_entry_valid,
            parent: s.cfg_parent,
            children: s.cfg_children,
            is_root: s.cfg_is_root,
        })
    }

    fn bump(&mut self, v: Verdict) {
        let c = &mut self.counters[v.code() as usize];
        if *c < self.counter_max {
            *c += 1;
        }
    }

    /// Stage 3 for a packet, with its group's entry word `e` and state word `st`. The state
    /// is always written back (unchanged for the drop verdicts 1–3, which do not read it).
    fn exec_pkt(&self, e: u64, mut st: u64) -> Decision {
        let s = self.s3.op;
        if self.s3.tick {
            return self.exec_tick(e, st);
        }
        let (port, t, op) = (s.pkt_port, s.pkt_tid, s.pkt_op);
        let meta = PayloadMeta {
            plen: s.pkt_plen,
            rop: s.pkt_rop,
            dtype: s.pkt_dtype,
        };
        // The packet's beats in `ipf`: whatever happens to the packet, they are taken.
        let take = if self.s3.stored {
            self.p.beats(meta.plen)
        } else {
            0
        };
        let slot = s.pkt_cgid;
        let epoch = self.s3.epoch;
        let pbit = 1u64 << port;
        let e = self.w.unpack_entry(e);
        let from_parent = !e.is_root && e.parent == port;
        let from_child = !from_parent && e.children & pbit != 0;
        // FULL (0) and STATUS_REQ (2) travel up; EXIT (1) and STATUS_RSP (3) down.
        let upward = op & 1 == 0;

        let mut o = SwitchEngineOut {
            ev_valid: true,
            ev_cgid: s.pkt_cgid,
            ..SwitchEngineOut::default()
        };
        // An answer, with the shape of the payload it carries.
        let mut emit = |ports: u64, opc: u64, m: PayloadMeta| {
            o.out_valid = true;
            o.out_ports = ports;
            o.out_cgid = s.pkt_cgid;
            o.out_tid = t;
            o.out_op = opc;
            o.out_plen = m.plen;
            o.out_rop = m.rop;
            o.out_dtype = m.dtype;
        };
        // The payload work, as a command: the packet's own beats are always taken.
        let dropping = PayCmd {
            slot,
            take,
            work: 0,
            src: None,
            use_in: false,
            combine: false,
            rop: meta.rop,
            dtype: meta.dtype,
            wr_acc: false,
            wr_ret: false,
            emit: false,
        };
        let mut cmd = dropping;
        let beats_of = |m: PayloadMeta| if m.plen > 0 { self.p.beats(m.plen) } else { 0 };

        let verdict = if !e.valid {
            Verdict::UnknownCgid
        } else if op > 3 {
            Verdict::BadOpcode
        } else if self.malformed(&s) {
            Verdict::BadPayload
        } else if !(from_parent || from_child) {
            Verdict::NotInTree
        } else if from_child != upward {
            Verdict::BadOpcode
        } else {
            let w = self.w;
            let mut g = w.unpack_state(st);
            let d = t.wrapping_sub(g.tid) & 3;
            let v = if g.fail {
                Verdict::GroupFailed
            } else if from_child {
                let reported = g.reported & pbit != 0;
                match d {
                    0 if !reported && op == Opcode::Full.code() => {
                        let first = g.reported == 0;
                        if !first && meta != g.acc {
                            Verdict::BadPayload
                        } else {
                            if first {
                                g.acc = meta;
                            }
                            g.reported |= pbit;
                            g.csm = CsmState::Filling;
                            let done = g.reported == e.children;
                            cmd = PayCmd {
                                work: beats_of(meta),
                                src: (!first).then_some(Buf::Acc),
                                use_in: true,
                                combine: !first,
                                wr_acc: true,
                                wr_ret: done && e.is_root,
                                emit: done,
                                ..dropping
                            };
                            if done && e.is_root {
                                emit(e.children, Opcode::Exit.code(), g.acc);
                                g.ret = g.acc;
                                g = completed(g);
                            } else if done {
                                emit(1 << e.parent, Opcode::Full.code(), g.acc);
                                g.csm = CsmState::Full;
                                g.sent = epoch;
                            }
                            Verdict::Ok
                        }
                    }
                    0 if !reported => Verdict::Unreported,
                    0 if g.csm == CsmState::Full && g.sent == epoch => Verdict::Coalesced,
                    0 if g.csm == CsmState::Full => {
                        // A retry goes up: a FULL with the complete partial result.
                        let m = if op == Opcode::Full.code() {
                            g.acc
                        } else {
                            PayloadMeta::default()
                        };
                        emit(1 << e.parent, op, m);
                        cmd = PayCmd {
                            work: beats_of(m),
                            src: Some(Buf::Acc),
                            emit: true,
                            ..dropping
                        };
                        g.sent = epoch;
                        Verdict::Ok
                    }
                    0 if op == Opcode::Full.code() => Verdict::Stale,
                    0 => Verdict::Ok,
                    3 => {
                        emit(pbit, Opcode::StatusRsp.code(), g.ret);
                        cmd = PayCmd {
                            work: beats_of(g.ret),
                            src: Some(Buf::Ret),
                            emit: true,
                            ..dropping
                        };
                        Verdict::Lag
                    }
                    _ => {
                        g.fail = true;
                        Verdict::TidFail
                    }
                }
            } else {
                match d {
                    0 if g.csm == CsmState::Full && meta != g.acc => Verdict::BadPayload,
                    0 if g.csm == CsmState::Full => {
                        emit(e.children, Opcode::Exit.code(), meta);
                        cmd = PayCmd {
                            work: beats_of(meta),
                            use_in: true,
                            wr_ret: true,
                            emit: true,
                            ..dropping
                        };
                        g.ret = g.acc;
                        g = completed(g);
                        Verdict::Ok
                    }
                    3 => Verdict::Stale,
                    _ => {
                        g.fail = true;
                        Verdict::TidFail
                    }
                }
            };
            st = w.state(g);
            o.ev_state = g.csm.code();
            o.ev_tid = g.tid;
            o.ev_fail = g.fail;
            v
        };
        o.ev_verdict = verdict.code();
        Decision {
            out: o,
            tbl_wr: None,
            st_wr: Some(st),
            packet: true,
            verdict: Some(verdict),
            cmd: (cmd.take > 0 || cmd.work > 0).then_some(cmd),
        }
    }

    /// Rule 2b, from the header alone: a payload this engine cannot take, or reduction fields
    /// on a packet without one.
    fn malformed(&self, s: &SwitchEngineIn) -> bool {
        let (plen, rop) = (s.pkt_plen, s.pkt_rop);
        if plen == 0 {
            return rop != 0 || s.pkt_dtype != 0;
        }
        let loc = AluOp::from_code(rop).is_some_and(AluOp::is_loc);
        plen > self.p.max_plen as u64
            || s.pkt_cgid >= self.p.slots as u64
            || is_reserved_op(rop)
            || (loc && (plen % 2 == 1 || self.p.lanes == 1))
            || self.p.refuses_dtype(rop, s.pkt_dtype)
            || s.pkt_op == Opcode::StatusReq.code()
    }

    /// Stage 3 for a tick (rule 8). The state is written back, stamped if the tick acts.
    fn exec_tick(&self, e: u64, st: u64) -> Decision {
        let cgid = self.s3.op.pkt_cgid;
        let epoch = self.s3.epoch;
        let e = self.w.unpack_entry(e);
        let mut g = self.w.unpack_state(st);
        let quiet = epoch.wrapping_sub(g.sent) & 2 != 0;
        let acts = e.valid && !e.is_root && g.csm == CsmState::Full && !g.fail && quiet;
        let mut out = SwitchEngineOut::default();
        let mut cmd = None;
        if acts {
            g.sent = epoch;
            out = SwitchEngineOut {
                out_valid: true,
                out_ports: 1 << e.parent,
                out_cgid: cgid,
                out_tid: g.tid,
                out_op: Opcode::Full.code(),
                out_plen: g.acc.plen,
                out_rop: g.acc.rop,
                out_dtype: g.acc.dtype,
                ev_valid: true,
                ev_cgid: cgid,
                ev_verdict: Verdict::Retry.code(),
                ev_state: g.csm.code(),
                ev_tid: g.tid,
                ev_fail: g.fail,
                ..out
            };
            // The FULL carries the accumulator.
            cmd = (g.acc.plen > 0).then_some(PayCmd {
                slot: cgid,
                take: 0,
                work: self.p.beats(g.acc.plen),
                src: Some(Buf::Acc),
                use_in: false,
                combine: false,
                rop: g.acc.rop,
                dtype: g.acc.dtype,
                wr_acc: false,
                wr_ret: false,
                emit: true,
            });
        }
        Decision {
            out,
            tbl_wr: None,
            st_wr: Some(self.w.state(g)),
            packet: false,
            verdict: acts.then_some(Verdict::Retry),
            cmd,
        }
    }

    /// The payload engine's edge: write the result of the beat issued [`payload_pipe`]
    /// cycles ago, then issue the next beat of the current command (if its input has arrived
    /// and no earlier write to the word it reads is still in flight; this edge's write is
    /// forwarded to the read), and load the next command when the current one is done.
    fn payload_edge(&mut self) {
        if !self.p.reduces() {
            return;
        }
        let mb = self.p.max_beats() as u64;
        let lanes = self.p.lanes;
        let pay = &mut self.pay;
        let depth = pay.pipe.len();
        if let Some(w) = pay.pipe[depth - 1] {
            let at = (w.slot * mb + w.j) as usize;
            if w.wr_acc {
                pay.acc[at] = w.value;
            }
            if w.wr_ret {
                pay.ret[at] = w.value;
            }
            if w.emit {
                pay.opf.push_back(w.value);
            }
        }
        let mut issued = None;
        let mut free = pay.current.is_none();
        if let Some((c, j)) = pay.current {
            let takes = j < c.take;
            let works = j < c.work;
            let arrived = !takes || !pay.ipf.is_empty();
            let in_flight = |x: &Issued| {
                x.slot == c.slot
                    && x.j == j
                    && match c.src {
                        Some(Buf::Acc) => x.wr_acc,
                        Some(Buf::Ret) => x.wr_ret,
                        None => false,
                    }
            };
            let blocked = works && pay.pipe[..depth - 1].iter().flatten().any(in_flight);
            if arrived && !blocked {
                let b = if takes {
                    pay.ipf.pop_front().unwrap_or([0; 4])
                } else {
                    [0; 4]
                };
                if works {
                    let at = (c.slot * mb + j) as usize;
                    let a = match c.src {
                        Some(Buf::Acc) => pay.acc[at],
                        Some(Buf::Ret) => pay.ret[at],
                        None => [0; 4],
                    };
                    let value = if c.combine {
                        combine_beat(a, b, c.rop, c.dtype, lanes)
                    } else if c.use_in {
                        b
                    } else {
                        a
                    };
                    issued = Some(Issued {
                        slot: c.slot,
                        j,
                        value,
                        wr_acc: c.wr_acc,
                        wr_ret: c.wr_ret,
                        emit: c.emit,
                    });
                }
                if j + 1 < c.take.max(c.work) {
                    pay.current = Some((c, j + 1));
                } else {
                    free = true;
                }
            }
        }
        if free {
            pay.current = pay.cmds.pop_front().map(|c| (c, 0));
        }
        pay.pipe.rotate_right(1);
        pay.pipe[0] = issued;
    }

    /// Stage 3 for a configuration operation, with its group's entry word `e` and state word
    /// `st` (used by `ReadEntry` and a rejected `Write`). `ReadCounter` and `ClearCounters`
    /// act in stage 4.
    fn exec_cfg(&self, e: u64, st: u64) -> Decision {
        let s = self.s3.op;
        let mut d = Decision {
            out: SwitchEngineOut {
                rsp_valid: true,
                ..SwitchEngineOut::default()
            },
            tbl_wr: None,
            st_wr: None,
            packet: false,
            verdict: None,
            cmd: None,
        };
        let o = &mut d.out;
        let op = CfgOp::of(s.cfg_op);
        if op == CfgOp::Write && !self.s3.rejected() {
            // Store the entry, reset the group at the chosen TID; echo both.
            d.tbl_wr = Some(self.cfg_word(&s));
            d.st_wr = Some(self.w.state(GroupState {
                tid: s.cfg_tid,
                ..GroupState::default()
            }));
            o.rsp_entry_valid = s.cfg_entry_valid;
            o.rsp_parent = s.cfg_parent;
            o.rsp_children = s.cfg_children;
            o.rsp_is_root = s.cfg_is_root;
            o.rsp_tid = s.cfg_tid;
        } else if op == CfgOp::Write || op == CfgOp::ReadEntry {
            let e = self.w.unpack_entry(e);
            let st = self.w.unpack_state(st);
            o.rsp_rejected = op == CfgOp::Write;
            o.rsp_entry_valid = e.valid;
            o.rsp_parent = e.parent;
            o.rsp_children = e.children;
            o.rsp_is_root = e.is_root;
            o.rsp_state = st.csm.code();
            o.rsp_tid = st.tid;
            o.rsp_fail = st.fail;
            o.rsp_reported = st.reported;
        }
        d
    }
}

impl CycleSim for SwitchEngineModel {
    type In = SwitchEngineIn;
    type Out = SwitchEngineOut;
    fn step(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
        SwitchEngineModel::step(self, i)
    }
    fn peek(&mut self) -> SwitchEngineOut {
        let last = self.last;
        self.outputs(&last)
    }
}

/// One beat of the reduction ALU's work: `lanes` words of `a op b`, the words split into
/// elements as the payload format says (two 32-bit slots to a word for the types of 32 bits
/// or fewer; MAXLOC / MINLOC on (value, index) word pairs, which a beat holds whole).
fn combine_beat(a: Beat, b: Beat, rop: u64, dtype: u64, lanes: usize) -> Beat {
    let (Some(op), Some(dt)) = (AluOp::from_code(rop), Dtype::from_code(dtype)) else {
        return [0; 4];
    };
    let narrow = dt.bits() <= 32;
    let half = |w: u64, h: usize| {
        if narrow {
            (w >> (32 * h)) & 0xFFFF_FFFF
        } else {
            w
        }
    };
    let mut r = [0u64; 4];
    let pairs = op.is_loc();
    let step = if pairs { 2 } else { 1 };
    for k in (0..lanes).step_by(step) {
        for h in 0..if narrow { 2 } else { 1 } {
            let (ai, bi) = if pairs {
                (half(a[k + 1], h), half(b[k + 1], h))
            } else {
                (0, 0)
            };
            let (v, i) = alu_element(op, dt, half(a[k], h), ai, half(b[k], h), bi);
            r[k] |= v << (32 * h);
            if pairs {
                r[k + 1] |= i << (32 * h);
            }
        }
    }
    r
}

/// The outputs that answer an operation [`super::LATENCY`] cycles after it is accepted (its
/// event or configuration response), without the readies and the output packet, which the
/// output queue shows when it can.
pub fn answer_part(o: &SwitchEngineOut) -> SwitchEngineOut {
    SwitchEngineOut {
        pkt_ready: false,
        cfg_ready: false,
        out_valid: false,
        out_ports: 0,
        out_cgid: 0,
        out_tid: 0,
        out_op: 0,
        out_plen: 0,
        out_rop: 0,
        out_dtype: 0,
        out_data: [0; 4],
        ..*o
    }
}

/// The output registers an operation with golden answer `resp` loads, i.e. what the engine
/// shows [`super::LATENCY`] cycles after accepting it (`pkt_ready` / `cfg_ready` false: they
/// are not part of an operation's answer). This is the one place that maps the golden's
/// [`Response`] onto the port fields.
pub fn expected_outputs(resp: &Response) -> SwitchEngineOut {
    let mut o = SwitchEngineOut::default();
    match resp {
        Response::Packet { cgid, result } => {
            o.ev_valid = true;
            o.ev_cgid = *cgid;
            o.ev_verdict = result.verdict.code();
            o.ev_state = result.state.csm as u64;
            o.ev_tid = result.state.tid;
            o.ev_fail = result.state.fail;
            if let Some(out) = &result.out {
                o.out_valid = true;
                o.out_ports = out.ports;
                o.out_cgid = out.cgid;
                o.out_tid = out.tid;
                o.out_op = out.op.code();
                o.out_plen = out.meta.plen;
                o.out_rop = out.meta.rop;
                o.out_dtype = out.meta.dtype;
            }
        }
        Response::Cfg(r) => {
            o.rsp_valid = true;
            o.rsp_entry_valid = r.entry.valid;
            o.rsp_parent = r.entry.parent;
            o.rsp_children = r.entry.children;
            o.rsp_is_root = r.entry.is_root;
            o.rsp_state = r.state.csm as u64;
            o.rsp_tid = r.state.tid;
            o.rsp_fail = r.state.fail;
            o.rsp_reported = r.state.reported;
            o.rsp_counter = r.counter;
            o.rsp_rejected = r.rejected;
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::super::golden::{Op, SwitchEngineGolden};
    use super::super::{CfgOp, Verdict, LATENCY};
    use super::*;
    use std::collections::VecDeque;

    /// An idle cycle's inputs (the consumer of `out_*` always ready).
    fn idle_in() -> SwitchEngineIn {
        SwitchEngineIn {
            out_ready: true,
            ..SwitchEngineIn::default()
        }
    }

    /// Runs `n` reset cycles then steps until `init_done`; returns the idle cycles counted
    /// after the last reset cycle (with packets and cfg ops offered throughout, which must not
    /// be accepted).
    fn reset_and_count(m: &mut SwitchEngineModel, n: usize) -> usize {
        let busy = SwitchEngineIn {
            pkt_valid: true,
            cfg_valid: false,
            pkt_cgid: 1,
            ..idle_in()
        };
        for _ in 0..n {
            m.step(&SwitchEngineIn {
                reset: true,
                ..busy
            });
        }
        let mut low = 0;
        loop {
            let cfg = low % 2 == 1;
            let o = m.step(&SwitchEngineIn {
                cfg_valid: cfg,
                ..busy
            });
            assert!(
                !o.ev_valid && !o.rsp_valid && !o.out_valid,
                "output during sweep: {o:?}"
            );
            if o.cfg_ready {
                assert_eq!(o.pkt_ready, !cfg);
                return low;
            }
            assert!(!o.pkt_ready);
            low += 1;
        }
    }

    #[test]
    fn init_sweep_length() {
        for p in [SwitchEngineParams::SMALL, SwitchEngineParams::default()] {
            let mut m = SwitchEngineModel::new(p);
            assert_eq!(reset_and_count(&mut m, 3), p.groups);
            // a few more cycles of traffic, then reset again
            for _ in 0..10 {
                m.step(&SwitchEngineIn {
                    cfg_valid: true,
                    ..idle_in()
                });
            }
            assert_eq!(reset_and_count(&mut m, 1), p.groups);
            // fresh model without reset: also sweeps
            let mut m = SwitchEngineModel::new(p);
            assert_eq!(reset_and_count(&mut m, 0), p.groups);
        }
    }

    /// A model past reset and sweep.
    fn ready_model(p: SwitchEngineParams) -> SwitchEngineModel {
        let mut m = SwitchEngineModel::new(p);
        m.step(&SwitchEngineIn {
            reset: true,
            ..idle_in()
        });
        for _ in 0..p.groups {
            m.step(&idle_in());
        }
        assert!(m.init_done());
        m
    }

    fn write_in(cgid: u64, parent: u64, children: u64, is_root: bool) -> SwitchEngineIn {
        SwitchEngineIn {
            cfg_valid: true,
            cfg_op: CfgOp::Write as u64,
            cfg_cgid: cgid,
            cfg_entry_valid: true,
            cfg_parent: parent,
            cfg_children: children,
            cfg_is_root: is_root,
            ..idle_in()
        }
    }

    fn pkt_in(port: u64, cgid: u64, tid: u64, op: Opcode) -> SwitchEngineIn {
        SwitchEngineIn {
            pkt_valid: true,
            pkt_port: port,
            pkt_cgid: cgid,
            pkt_tid: tid,
            pkt_op: op.code(),
            ..idle_in()
        }
    }

    /// Outputs with the ready signals of an idle, initialised engine.
    fn idle_out() -> SwitchEngineOut {
        SwitchEngineOut {
            pkt_ready: true,
            cfg_ready: true,
            ..SwitchEngineOut::default()
        }
    }

    #[test]
    fn latency_is_four() {
        assert_eq!(LATENCY, 4);
        let mut m = ready_model(SwitchEngineParams::default());
        let t0 = m.step(&write_in(7, 3, 0b0110, false));
        assert_eq!(
            t0,
            SwitchEngineOut {
                pkt_ready: false,
                ..idle_out()
            }
        );
        for _ in 1..LATENCY {
            assert_eq!(m.step(&idle_in()), idle_out());
        }
        let rsp = SwitchEngineOut {
            rsp_valid: true,
            rsp_entry_valid: true,
            rsp_parent: 3,
            rsp_children: 0b0110,
            ..idle_out()
        };
        assert_eq!(m.step(&idle_in()), rsp);
        assert_eq!(m.step(&idle_in()), idle_out());
        // a packet: accepted at t, event at t + 4
        m.step(&pkt_in(1, 7, 0, Opcode::Full));
        for _ in 1..LATENCY {
            assert_eq!(m.step(&idle_in()), idle_out());
        }
        let ev = SwitchEngineOut {
            ev_valid: true,
            ev_cgid: 7,
            ev_state: 1,
            ..idle_out()
        };
        assert_eq!(m.step(&idle_in()), ev);
        assert_eq!(m.step(&idle_in()), idle_out());
    }

    #[test]
    fn back_to_back_same_cgid() {
        let mut m = ready_model(SwitchEngineParams::default());
        // cycle 0: write root of group 9 with children 2 and 5; a packet offered alongside is
        // not accepted (cfg has priority)
        let both = SwitchEngineIn {
            pkt_valid: true,
            pkt_port: 2,
            pkt_cgid: 9,
            ..write_in(9, 0, 0b10_0100, true)
        };
        let read = SwitchEngineIn {
            cfg_valid: true,
            cfg_op: CfgOp::ReadEntry as u64,
            cfg_cgid: 9,
            ..idle_in()
        };
        let rc = SwitchEngineIn {
            cfg_valid: true,
            cfg_op: CfgOp::ReadCounter as u64,
            cfg_counter: 0,
            ..idle_in()
        };
        // cycles 1, 2: both children report, back to back; cycle 3: read the entry; cycle 4: a
        // FULL of the next transaction; cycle 5: read counter 0; then idle
        let ins = [
            both,
            pkt_in(2, 9, 0, Opcode::Full),
            pkt_in(5, 9, 0, Opcode::Full),
            read,
            pkt_in(5, 9, 1, Opcode::Full),
            rc,
            idle_in(),
            idle_in(),
            idle_in(),
            idle_in(),
            idle_in(),
        ];
        let o: Vec<SwitchEngineOut> = ins.iter().map(|i| m.step(i)).collect();
        let busy = |o: SwitchEngineOut, cfg: bool| SwitchEngineOut {
            pkt_ready: !cfg,
            ..o
        };
        assert_eq!(o[0], busy(idle_out(), true));
        assert_eq!(o[1], idle_out());
        assert_eq!(o[2], idle_out());
        assert_eq!(o[3], busy(idle_out(), true));
        let entry = |o: SwitchEngineOut| SwitchEngineOut {
            rsp_valid: true,
            rsp_entry_valid: true,
            rsp_parent: 0,
            rsp_children: 0b10_0100,
            rsp_is_root: true,
            ..o
        };
        // each answer 4 cycles after its operation
        assert_eq!(o[4], entry(idle_out()));
        assert_eq!(
            o[5],
            busy(
                SwitchEngineOut {
                    ev_valid: true,
                    ev_cgid: 9,
                    ev_state: 1,
                    ..idle_out()
                },
                true
            )
        );
        // second FULL completes: Idle, TID 1, EXIT(0) to the child mask
        let exit = SwitchEngineOut {
            out_valid: true,
            out_ports: 0b10_0100,
            out_cgid: 9,
            out_tid: 0,
            out_op: Opcode::Exit.code(),
            ev_valid: true,
            ev_cgid: 9,
            ev_state: 0,
            ev_tid: 1,
            ..idle_out()
        };
        assert_eq!(o[6], exit);
        // the read (accepted right after the completing packet) sees the new state
        assert_eq!(
            o[7],
            SwitchEngineOut {
                rsp_tid: 1,
                ..entry(idle_out())
            }
        );
        assert_eq!(
            o[8],
            SwitchEngineOut {
                ev_valid: true,
                ev_cgid: 9,
                ev_state: 1,
                ev_tid: 1,
                ..idle_out()
            }
        );
        // the counter read right after the last packet counts all three
        assert_eq!(
            o[9],
            SwitchEngineOut {
                rsp_valid: true,
                rsp_counter: 3,
                ..idle_out()
            }
        );
        assert_eq!(o[10], idle_out());
        assert_eq!(
            m.state(9),
            GroupState {
                csm: super::super::CsmState::Filling,
                fail: false,
                tid: 1,
                sent: 0,
                reported: 1 << 5,
                ..GroupState::default()
            }
        );
    }

    /// xorshift64* — tiny, deterministic, good enough for stimulus.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    /// Picks a set bit of `mask` (nonzero) at random.
    fn random_bit(rng: &mut Rng, mask: u64) -> u64 {
        let n = mask.count_ones() as u64;
        let mut k = rng.below(n);
        for b in 0..64 {
            if mask & (1 << b) != 0 {
                if k == 0 {
                    return b;
                }
                k -= 1;
            }
        }
        unreachable!()
    }

    /// Random stimulus for one cycle, biased by the golden's current state so that barriers
    /// actually complete (uniform TIDs and ports would almost only produce drops). Fields of
    /// invalid ports and high bits beyond the port widths carry garbage on purpose.
    fn random_input(rng: &mut Rng, g: &SwitchEngineGolden, hot: &[u64]) -> SwitchEngineIn {
        let p = g.params();
        let mut i = SwitchEngineIn {
            pkt_port: rng.next(),
            pkt_cgid: rng.next(),
            pkt_tid: rng.next(),
            pkt_op: rng.next(),
            cfg_op: rng.next(),
            cfg_cgid: rng.next(),
            cfg_entry_valid: rng.chance(50),
            cfg_parent: rng.next(),
            cfg_children: rng.next(),
            cfg_is_root: rng.chance(50),
            cfg_counter: rng.next(),
            cfg_tid: rng.next(),
            ..idle_in()
        };
        let garbage =
            |rng: &mut Rng, bits: usize| if rng.chance(3) { rng.next() << bits } else { 0 };
        let pick_cgid = |rng: &mut Rng| {
            if rng.chance(85) {
                hot[rng.below(hot.len() as u64) as usize]
            } else {
                rng.below(p.groups as u64)
            }
        };
        i.cfg_valid = rng.chance(4);
        if i.cfg_valid {
            i.cfg_cgid = pick_cgid(rng) | garbage(rng, p.cgid_bits());
            i.cfg_op = match rng.below(100) {
                0..=59 => 0,
                60..=79 => 1,
                80..=96 => 2,
                _ => 3,
            } | garbage(rng, 2);
            i.cfg_entry_valid = rng.chance(92);
            // mostly small, nonempty child masks, so that barriers complete
            let ch = match rng.below(100) {
                0..=4 => 0,
                5..=9 => rng.next(),
                _ => (rng.next() & rng.next() & rng.next()) | (1 << rng.below(p.radix as u64)),
            };
            i.cfg_children = (ch & p.port_mask()) | garbage(rng, p.radix);
            i.cfg_parent = rng.below(p.radix as u64) | garbage(rng, p.port_bits());
            i.cfg_is_root = rng.chance(40);
            i.cfg_counter = rng.below(16) | garbage(rng, 4);
        }
        i.pkt_valid = rng.chance(75);
        if i.pkt_valid {
            let cgid = pick_cgid(rng);
            let e = g.entry(cgid);
            let s = g.state(cgid);
            let r = rng.below(100);
            let (port, from_parent) = if r < 60 && e.children != 0 {
                (random_bit(rng, e.children), false)
            } else if r < 80 {
                (e.parent, true)
            } else {
                (rng.below(p.radix as u64), false)
            };
            let op = if rng.chance(4) {
                rng.below(8)
            } else if from_parent {
                [1, 1, 3][rng.below(3) as usize]
            } else {
                [0, 0, 0, 2][rng.below(4) as usize]
            };
            // Mostly the TIDs a healthy tree would use: the group's own from a child, the
            // completed one (Stale) from the parent unless the group waits in Full; sometimes
            // a lagging child; rarely anything (TidFail, which disables the group until the
            // next Write).
            let tid = (if rng.chance(3) {
                rng.next()
            } else if from_parent {
                if s.csm == super::super::CsmState::Full && rng.chance(85) {
                    s.tid
                } else {
                    s.tid + 3
                }
            } else if rng.chance(88) {
                s.tid
            } else {
                s.tid + 3
            }) & 3;
            i.pkt_port = port | garbage(rng, p.port_bits());
            i.pkt_cgid = cgid | garbage(rng, p.cgid_bits());
            i.pkt_tid = tid | garbage(rng, 2);
            i.pkt_op = op | garbage(rng, 3);
            // Rarely reduction fields, which a barrier-only engine refuses (`BadPayload`); its
            // packets are one beat whatever `plen` says.
            if !p.reduces() && rng.chance(3) {
                (i.pkt_plen, i.pkt_rop, i.pkt_dtype) = match rng.below(3) {
                    0 => (rng.next(), 0, 0),
                    1 => (0, rng.below(16), 0),
                    _ => (0, 0, rng.below(4)),
                };
                i.pkt_plen |= garbage(rng, 7);
            }
        }
        i
    }

    /// Drives the cycle model with random stimulus (idle gaps, occasional resets) and checks
    /// every output of every cycle against the golden's answers, delayed by [`LATENCY`].
    fn random_compare(p: SwitchEngineParams, seed: u64, min_ops: u64) {
        // Short epochs, so that many retries are forwarded rather than coalesced.
        let p = SwitchEngineParams {
            epoch_cycles: 256,
            ..p
        };
        let mut rng = Rng(seed);
        let hot = [0, 1, 5, p.groups as u64 - 1];
        let mut m = SwitchEngineModel::new(p);
        let mut g = SwitchEngineGolden::new(p);
        let mut pending: VecDeque<(u64, SwitchEngineOut)> = VecDeque::new();
        let mut since_reset = 0usize;
        let mut verdicts = [0u64; COUNTERS];
        let (mut ops, mut cfgs, mut resets) = (0u64, 0u64, 0u64);
        let mut outs = [0u64; 4]; // output packets by opcode
        let mut cycle = 0u64;
        let mut gap = 0;
        let mut reset_left = 1; // start with a reset
        while ops < min_ops {
            let mut i = if gap > 0 {
                gap -= 1;
                SwitchEngineIn {
                    pkt_port: rng.next(),
                    cfg_cgid: rng.next(),
                    ..idle_in()
                }
            } else {
                if rng.chance(8) {
                    gap = rng.below(6);
                }
                random_input(&mut rng, &g, &hot)
            };
            if reset_left == 0 && rng.below(30_000) == 0 {
                reset_left = 1 + rng.below(3);
            }
            if reset_left > 0 {
                i.reset = true;
                reset_left -= 1;
            }
            let o = m.step(&i);

            // expected outputs of this cycle
            let mut want = match pending.front() {
                Some(&(due, e)) if due == cycle => {
                    pending.pop_front();
                    e
                }
                _ => SwitchEngineOut::default(),
            };
            want.cfg_ready = since_reset >= p.groups;
            want.pkt_ready = want.cfg_ready && !i.cfg_valid;
            assert_eq!(o, want, "seed {seed:#x}, cycle {cycle}, input {i:?}");

            if i.reset {
                // the edge drops everything in flight; the sweep then clears the tables
                pending.clear();
                g = SwitchEngineGolden::new(p);
                since_reset = 0;
                resets += 1;
            } else {
                since_reset += 1;
                let take_cfg = o.cfg_ready && i.cfg_valid;
                let take_pkt = o.pkt_ready && i.pkt_valid;
                if take_cfg || take_pkt {
                    // (`since_reset` already counts this cycle.)
                    let now = (since_reset - 1 - p.groups) as u64 & mask(super::super::NOW_BITS);
                    let resp = g.apply_at(&Op::offered(&i, take_cfg), now);
                    if let Response::Packet { result, .. } = &resp {
                        verdicts[result.verdict.code() as usize] += 1;
                        if let Some(out) = &result.out {
                            outs[out.op.code() as usize] += 1;
                        }
                    } else {
                        cfgs += 1;
                    }
                    pending.push_back((cycle + LATENCY as u64, expected_outputs(&resp)));
                    ops += 1;
                }
            }
            cycle += 1;
        }
        // the stimulus must actually exercise the rules
        println!("{p:?}: {cycle} cycles, {ops} ops, verdicts {verdicts:?}, outputs {outs:?}, cfgs {cfgs}, resets {resets}");
        // (Retry needs the timer, which this test leaves off: the golden is not told of ticks.)
        for v in Verdict::ALL.iter().filter(|&&v| v != Verdict::Retry) {
            assert!(
                verdicts[v.code() as usize] >= 50,
                "seed {seed:#x}: verdict {v:?} seen {verdicts:?}"
            );
        }
        // A forwarded STATUS_REQ goes up at most once per epoch and group.
        assert!(
            outs.iter()
                .enumerate()
                .all(|(k, &n)| n >= if k == 2 { 10 } else { 100 }),
            "seed {seed:#x}: outputs by opcode {outs:?}"
        );
        assert!(
            cfgs >= 1000 && resets >= 2,
            "seed {seed:#x}: cfgs {cfgs} resets {resets}"
        );
        // the final state agrees too (after draining the pipeline)
        for _ in 0..LATENCY {
            m.step(&idle_in());
        }
        for c in 0..p.groups as u64 {
            assert_eq!(m.entry(c), g.entry(c), "seed {seed:#x}: entry {c}");
            assert_eq!(m.state(c), g.state(c), "seed {seed:#x}: state {c}");
        }
        for k in 0..COUNTERS as u64 {
            assert_eq!(m.counter(k), g.counter(k), "seed {seed:#x}: counter {k}");
        }
    }

    #[test]
    fn random_vs_golden_small() {
        random_compare(SwitchEngineParams::SMALL, 0x9E48_F7EB_2DF9_8CE6, 150_000);
    }

    #[test]
    fn random_vs_golden_default() {
        random_compare(
            SwitchEngineParams::default(),
            0x0000_C011_EC71_0E55,
            150_000,
        );
    }

    #[test]
    fn random_vs_golden_largest() {
        let p = SwitchEngineParams::sized(32, 4096, 32);
        random_compare(p, 0x5EED_0000_0000_0001, 100_000);
    }

    /// A packet for a reducing engine: its first beat's inputs (header fields) and its payload.
    struct Sent {
        hdr: SwitchEngineIn,
        words: Vec<u64>,
    }

    /// A random packet for group `cgid` of a reducing engine, mostly one the protocol would
    /// send (a child's contribution of the transaction's shape, the parent's result), with
    /// other shapes, lagging and wrong TIDs, other opcodes and malformed payloads mixed in.
    fn reducing_packet(rng: &mut Rng, g: &SwitchEngineGolden, cgid: u64) -> Sent {
        let p = g.params();
        let (e, st) = (g.entry(cgid), g.state(cgid));
        let r = rng.below(100);
        let (port, from_parent) = if r < 75 && e.children != 0 {
            (random_bit(rng, e.children), false)
        } else if r < 92 {
            (e.parent, true)
        } else {
            (rng.below(p.radix as u64), false)
        };
        let op = if rng.chance(1) {
            rng.below(8)
        } else if from_parent {
            [1, 1, 3][rng.below(3) as usize]
        } else if rng.chance(5) {
            2
        } else {
            0
        };
        let tid = if rng.chance(1) {
            rng.below(4)
        } else if from_parent && st.csm != CsmState::Full {
            (st.tid + 3) & 3
        } else if rng.chance(90) {
            st.tid
        } else {
            (st.tid + 3) & 3
        };
        // The transaction's shape, a new one, or a malformed one.
        let random_shape = |rng: &mut Rng| {
            // Every type; on an engine with the floating-point types mostly an operation
            // they define (without them a floating-point payload is malformed, rule 2b).
            let dtype = rng.below(8);
            let rop = if dtype >= 4 && p.reduces_fp() && rng.chance(90) {
                rng.below(6)
            } else {
                rng.below(12)
            };
            let loc = rop == 2 || rop == 3;
            let mut plen = rng.below(p.max_plen as u64 + 1);
            if loc {
                plen &= !1;
            }
            if plen == 0 {
                PayloadMeta::default()
            } else {
                PayloadMeta { plen, rop, dtype }
            }
        };
        let mut m = if st.reported == 0 && !from_parent || rng.chance(8) {
            random_shape(rng)
        } else {
            st.acc
        };
        if op == 2 && rng.chance(90) {
            m = PayloadMeta::default();
        }
        if rng.chance(2) {
            m = match rng.below(3) {
                0 => PayloadMeta {
                    plen: p.max_plen as u64 + 1 + rng.below(255 - p.max_plen as u64),
                    ..m
                },
                1 => PayloadMeta {
                    rop: 12 + rng.below(4),
                    plen: m.plen.max(1),
                    ..m
                },
                _ => PayloadMeta {
                    plen: 0,
                    dtype: 1 + rng.below(3),
                    ..m
                },
            };
        }
        let words = (0..m.plen).map(|_| rng.next()).collect();
        Sent {
            hdr: SwitchEngineIn {
                pkt_valid: true,
                pkt_port: port,
                pkt_cgid: cgid,
                pkt_tid: tid,
                pkt_op: op,
                pkt_plen: m.plen,
                pkt_rop: m.rop,
                pkt_dtype: m.dtype,
                ..idle_in()
            },
            words,
        }
    }

    /// A reducing engine against the golden, beat by beat: packets with payloads (see
    /// [`reducing_packet`]) and configuration writes, idle gaps before and inside packets,
    /// `out_ready` back-pressure in bursts, rare resets. Every event and response must come 4
    /// cycles after its operation was accepted and equal the golden's; every output packet,
    /// header and payload words, must be the golden's, in order.
    fn reducing_compare(p: SwitchEngineParams, seed: u64, min_ops: u64) {
        let p = SwitchEngineParams {
            epoch_cycles: 256,
            ..p
        };
        let lanes = p.lanes;
        let mut rng = Rng(seed);
        let hot: Vec<u64> = [0, 1, 2, p.slots as u64 - 1, p.groups as u64 - 1]
            .into_iter()
            .collect();
        let mut m = SwitchEngineModel::new(p);
        let mut g = SwitchEngineGolden::new(p);
        // Expected events / responses by due cycle, and expected output packets in order.
        let mut pending: VecDeque<(u64, SwitchEngineOut)> = VecDeque::new();
        let mut expected: VecDeque<(SwitchEngineOut, Vec<u64>)> = VecDeque::new();
        let mut got: Vec<u64> = vec![];
        let mut got_hdr: Option<SwitchEngineOut> = None;
        let mut sending: Option<(Sent, u64)> = None;
        let mut cfg: Option<SwitchEngineIn> = None;
        let mut verdicts = [0u64; COUNTERS];
        let (mut quiet, mut busy) = (0u64, 0u64);
        let (mut ops, mut packets_out, mut words_out, mut stalls) = (0u64, 0u64, 0u64, 0u64);
        let mut since_reset = 0usize;
        let mut reset_left = 1;
        let mut cycle = 0u64;
        let compare_events =
            |o: &SwitchEngineOut, w: &SwitchEngineOut| answer_part(o) == answer_part(w);
        while ops < min_ops || !expected.is_empty() {
            let draining = ops >= min_ops;
            // What is offered this cycle.
            if sending.is_none() && !draining && since_reset > p.groups && rng.chance(70) {
                let cgid = if rng.chance(95) {
                    hot[rng.below(hot.len() as u64 - 1) as usize]
                } else {
                    rng.below(p.groups as u64)
                };
                sending = Some((reducing_packet(&mut rng, &g, cgid), 0));
            }
            if cfg.is_none() && !draining && rng.chance(4) {
                let cgid = hot[rng.below(hot.len() as u64) as usize];
                // One to three children, so that transactions complete.
                let children =
                    (0..1 + rng.below(3)).fold(0, |m, _| m | 1 << rng.below(p.radix as u64));
                let parent = rng.below(p.radix as u64);
                cfg = Some(SwitchEngineIn {
                    cfg_valid: true,
                    cfg_op: if rng.chance(85) { 0 } else { 1 },
                    cfg_cgid: cgid,
                    cfg_entry_valid: rng.chance(95),
                    cfg_parent: parent,
                    cfg_children: children & !(1 << parent),
                    cfg_is_root: rng.chance(40),
                    cfg_tid: rng.below(4),
                    ..idle_in()
                });
            }
            let mut i = cfg.unwrap_or_else(idle_in);
            let beat_gap = rng.chance(10);
            if let (Some((pkt, j)), false) = (&sending, beat_gap) {
                let first = *j == 0;
                if first {
                    i.pkt_valid = true;
                    i.pkt_port = pkt.hdr.pkt_port;
                    i.pkt_cgid = pkt.hdr.pkt_cgid;
                    i.pkt_tid = pkt.hdr.pkt_tid;
                    i.pkt_op = pkt.hdr.pkt_op;
                    i.pkt_plen = pkt.hdr.pkt_plen;
                    i.pkt_rop = pkt.hdr.pkt_rop;
                    i.pkt_dtype = pkt.hdr.pkt_dtype;
                } else {
                    // Continuation beats carry junk in the header fields.
                    i.pkt_valid = true;
                    i.pkt_cgid = rng.next();
                    i.pkt_plen = rng.next();
                }
                for k in 0..lanes {
                    let w = (*j as usize) * lanes + k;
                    i.pkt_data[k] = pkt.words.get(w).copied().unwrap_or(rng.next());
                }
            }
            i.out_ready = !(cycle / 24).is_multiple_of(3) || rng.chance(25);
            if reset_left == 0 && rng.below(40_000) == 0 {
                reset_left = 1;
            }
            if reset_left > 0 {
                i.reset = true;
                reset_left -= 1;
            }
            // `quiet`: idle cycles raise no output and leave the model quiet (what the fabric
            // relies on to let a reducing switch sleep).
            if m.quiet() {
                quiet += 1;
                let mut c = m.clone();
                for k in 0..3 {
                    let o = c.step(&idle_in());
                    assert!(
                        !(o.out_valid || o.ev_valid || o.rsp_valid) && c.quiet(),
                        "seed {seed:#x}, cycle {cycle}: idle cycle {k} after a quiet one: {o:?}"
                    );
                }
            } else {
                busy += 1;
            }
            let o = m.step(&i);

            // Events and responses: exactly 4 cycles after acceptance.
            let want = match pending.front() {
                Some(&(due, w)) if due == cycle => {
                    pending.pop_front();
                    w
                }
                _ => SwitchEngineOut::default(),
            };
            assert!(
                compare_events(&o, &want),
                "seed {seed:#x}, cycle {cycle}: events\n got  {o:?}\n want {want:?}"
            );
            assert_eq!(
                o.cfg_ready,
                since_reset >= p.groups,
                "seed {seed:#x}, cycle {cycle}"
            );
            // Output beats, gathered into packets.
            if o.out_valid && i.out_ready && !i.reset {
                // The header fields alone (the other outputs change from beat to beat).
                let h = SwitchEngineOut {
                    out_valid: true,
                    out_ports: o.out_ports,
                    out_cgid: o.out_cgid,
                    out_tid: o.out_tid,
                    out_op: o.out_op,
                    out_plen: o.out_plen,
                    out_rop: o.out_rop,
                    out_dtype: o.out_dtype,
                    ..SwitchEngineOut::default()
                };
                if let Some(prev) = got_hdr {
                    assert_eq!(
                        prev, h,
                        "seed {seed:#x}, cycle {cycle}: header changed mid-packet"
                    );
                }
                got_hdr = Some(h);
                if o.out_plen > 0 {
                    got.extend_from_slice(&o.out_data[..lanes]);
                }
                if got.len() as u64 >= o.out_plen {
                    got.truncate(o.out_plen as usize);
                    let Some((eh, ew)) = expected.pop_front() else {
                        panic!("seed {seed:#x}, cycle {cycle}: unexpected packet {h:?}");
                    };
                    let hdr = |x: &SwitchEngineOut| {
                        (
                            x.out_ports,
                            x.out_cgid,
                            x.out_tid,
                            x.out_op,
                            x.out_plen,
                            x.out_rop,
                            x.out_dtype,
                        )
                    };
                    assert_eq!(
                        hdr(&h),
                        hdr(&eh),
                        "seed {seed:#x}, cycle {cycle}: packet header"
                    );
                    assert_eq!(got, ew, "seed {seed:#x}, cycle {cycle}: payload of {h:?}");
                    packets_out += 1;
                    words_out += got.len() as u64;
                    got.clear();
                    got_hdr = None;
                }
            }

            if i.reset {
                pending.clear();
                expected.clear();
                got.clear();
                got_hdr = None;
                sending = None;
                cfg = None;
                g = SwitchEngineGolden::new(p);
                since_reset = 0;
            } else {
                since_reset += 1;
                let now = (since_reset as u64).wrapping_sub(1 + p.groups as u64) & mask(NOW_BITS);
                let took_cfg = o.cfg_ready && i.cfg_valid;
                if took_cfg {
                    let resp = g.apply_at(&Op::offered(&i, true), now);
                    pending.push_back((cycle + LATENCY as u64, expected_outputs(&resp)));
                    cfg = None;
                    ops += 1;
                }
                if let Some((pkt, j)) = &mut sending {
                    if i.pkt_valid && o.pkt_ready {
                        if *j == 0 {
                            let resp = g.apply_at(
                                &Op::Packet(
                                    Op::offered(&pkt.hdr, false).header_packet(),
                                    pkt.words.clone(),
                                ),
                                now,
                            );
                            if let Response::Packet { result, .. } = &resp {
                                verdicts[result.verdict.code() as usize] += 1;
                                if let Some(out) = &result.out {
                                    expected.push_back((expected_outputs(&resp), out.data.clone()));
                                }
                            }
                            pending.push_back((cycle + LATENCY as u64, expected_outputs(&resp)));
                            ops += 1;
                        }
                        *j += 1;
                        if *j >= p.beats(pkt.hdr.pkt_plen & 255) {
                            sending = None;
                        }
                    } else if i.pkt_valid && *j == 0 {
                        stalls += 1;
                    }
                }
            }
            cycle += 1;
            assert!(cycle < 50 * min_ops, "seed {seed:#x}: no progress");
        }
        println!("{p:?}: {ops} operations, {packets_out} packets out ({words_out} words), {stalls} first beats held, verdicts {verdicts:?}, {quiet} quiet cycles");
        assert!(
            quiet > 100 && busy > 100,
            "seed {seed:#x}: {quiet} quiet, {busy} busy"
        );
        // Every verdict but the timer's occurs, and answers with payloads flow.
        for (v, n) in verdicts.iter().enumerate() {
            if v != Verdict::Retry.code() as usize {
                assert!(
                    *n > 0,
                    "seed {seed:#x}: verdict {v} never seen: {verdicts:?}"
                );
            }
        }
        assert!(
            2 * words_out > min_ops,
            "seed {seed:#x}: {words_out} payload words out"
        );
    }

    #[test]
    fn reducing_engine_vs_golden() {
        let base = SwitchEngineParams::default();
        reducing_compare(base.with_payload(32, 4, 16), 0x0A11_2ED0_0001, 60_000);
        reducing_compare(base.with_payload(8, 2, 4), 0x0A11_2ED0_0002, 60_000);
        let small = SwitchEngineParams::SMALL;
        reducing_compare(small.with_payload(16, 1, 16), 0x0A11_2ED0_0003, 40_000);
        // Kilobyte payloads (32 beats), which the fabric streams.
        reducing_compare(base.with_payload(128, 4, 16), 0x0A11_2ED0_0004, 30_000);
        // The floating-point types (f16 and bf16 in 32-bit slots).
        let fp = |p: SwitchEngineParams| SwitchEngineParams { fp: 1, ..p };
        reducing_compare(fp(base.with_payload(32, 4, 16)), 0x0A11_2ED0_0005, 40_000);
        reducing_compare(fp(small.with_payload(8, 2, 4)), 0x0A11_2ED0_0006, 40_000);
    }

    /// The transaction-level model shows what the cycle model shows, every output of every
    /// cycle: random traffic with idle gaps (some skipped with `idle`), resets, random
    /// `out_ready` back-pressure, the retry timer off and on.
    fn txn_lockstep(p: SwitchEngineParams, seed: u64, cycles: u64) {
        use super::super::txn::SwitchEngineTxn;
        let mut rng = Rng(seed);
        let hot = [0, 1, 5, p.groups as u64 - 1];
        let mut m = SwitchEngineModel::new(p);
        let mut t = SwitchEngineTxn::new(p);
        // The same engine, showing only what the fabric reads.
        let mut lean = SwitchEngineTxn::new(p);
        let (mut outs, mut held, mut events, mut idled) = (0u64, 0u64, 0u64, 0u64);
        let mut retries = 0u64;
        let mut gap = 0;
        let mut cycle = 0;
        while cycle < cycles {
            if gap == 0 && rng.chance(3) {
                // A stretch with every input low: the fabric's sleeping switch.
                let n = 1 + rng.below(40);
                for _ in 0..n {
                    m.step(&SwitchEngineIn::default());
                }
                t.idle(n);
                lean.idle(n);
                idled += n;
                cycle += n;
                continue;
            }
            let mut i = if gap > 0 {
                gap -= 1;
                SwitchEngineIn {
                    pkt_port: rng.next(),
                    ..SwitchEngineIn::default()
                }
            } else {
                if rng.chance(8) {
                    gap = rng.below(6);
                }
                random_input(&mut rng, t.golden(), &hot)
            };
            // Bursts of back-pressure long enough to fill the output queue.
            i.out_ready = (cycle / 16) % 3 != 0 || rng.chance(20);
            i.reset = rng.below(20_000) == 0;
            let want = m.step(&i);
            let got = t.step(&i);
            assert_eq!(got, want, "seed {seed:#x}, cycle {cycle}, input {i:?}");
            assert_eq!(
                lean.step_fabric(&i),
                super::super::txn::FabricOut::from(&want),
                "seed {seed:#x}, cycle {cycle}, input {i:?}: the fabric's view"
            );
            outs += u64::from(want.out_valid && i.out_ready);
            held += u64::from(want.out_valid && !i.out_ready);
            events += u64::from(want.ev_valid);
            retries += u64::from(want.ev_valid && want.ev_verdict == Verdict::Retry.code());
            cycle += 1;
        }
        println!("{p:?}: {cycles} cycles ({idled} idle), {events} events ({retries} ticks acted), {outs} packets out, {held} held back");
        assert!(outs >= cycles / 50 && held >= cycles / 100 && events >= cycles / 10);
        assert_eq!(retries > 0, p.retry_timer_on(), "ticks acted: {retries}");
        // Drain (and finish a sweep) in lockstep, then the memories agree with the golden's;
        // with the timer on, ticks keep changing states in flight: entries only.
        for _ in 0..p.groups + LATENCY {
            assert_eq!(
                t.step(&idle_in()),
                m.step(&idle_in()),
                "seed {seed:#x}: drain"
            );
        }
        for c in 0..p.groups as u64 {
            assert_eq!(m.entry(c), t.golden().entry(c), "seed {seed:#x}: entry {c}");
            if !p.retry_timer_on() {
                assert_eq!(m.state(c), t.golden().state(c), "seed {seed:#x}: state {c}");
            }
        }
    }

    #[test]
    fn txn_equals_cycle_model() {
        let timer = |p: SwitchEngineParams| SwitchEngineParams {
            retry_timer: 1,
            epoch_cycles: 256,
            ..p
        };
        txn_lockstep(SwitchEngineParams::SMALL, 0x7A11_0001, 400_000);
        txn_lockstep(timer(SwitchEngineParams::SMALL), 0x7A11_0002, 400_000);
        txn_lockstep(SwitchEngineParams::default(), 0x7A11_0003, 400_000);
        txn_lockstep(
            timer(SwitchEngineParams::sized(32, 4096, 32)),
            0x7A11_0004,
            400_000,
        );
    }

    #[test]
    fn counters_saturate_in_model() {
        let p = SwitchEngineParams::SMALL;
        let mut m = ready_model(p);
        // 70_000 packets for an unknown group, back to back
        for _ in 0..70_000 {
            m.step(&pkt_in(0, 3, 0, Opcode::Full));
        }
        for _ in 0..LATENCY {
            m.step(&idle_in());
        }
        assert_eq!(m.counter(0), 65_535);
        assert_eq!(m.counter(Verdict::UnknownCgid.code()), 65_535);
        assert_eq!(m.counter(Verdict::NotInTree.code()), 0);
    }
}
