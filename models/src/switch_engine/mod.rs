//! # Switch collective engine
//!
//! The switch-side engine of seed `000_…`: a collective forwarding table per collective group id
//! (CGID), a per-group collective state machine (CSM) ratchet and a 2-bit modular transaction-id
//! (TID) comparator. It runs barriers inside a spanning tree of switches.
//!
//! This module holds what every level shares, each declared once: the parameters
//! ([`SwitchEngineParams`]), the port declaration ([`switch_engine_ports!`](crate::switch_engine_ports),
//! which generates [`SwitchEngineIn`] / [`SwitchEngineOut`] here and the RTL's ports), the
//! codes that appear on those ports ([`Verdict`], [`CsmState`], [`CfgOp`]) and the memory word
//! layouts. The packet format is the collective header of [`crate::net::header`]. The golden reference is in [`golden`], the cycle model in [`model`], the transaction-level
//! model the fabric runs (the golden with the ports' timing) in [`txn`]; the RTL
//! is `netcoll-hdl`'s `switch_engine`.
//!
//! ## Per-group state
//!
//! | field      | width | meaning                                                       |
//! |------------|-------|---------------------------------------------------------------|
//! | `csm`      | 2     | Idle = 0, Filling = 1, Full = 2, Exiting = 3                  |
//! | `fail`     | 1     | Failure flag: set by an impossible TID, cleared only by a configuration write |
//! | `tid`      | 2     | transaction id of the current (not yet completed) transaction |
//! | `sent`     | 2     | the epoch (below) in which the group last sent anything to its parent |
//! | `reported` | radix | one bit per child port that has reported Full this transaction |
//!
//! The CSM is a ratchet: it only ever moves one state forward (Idle → Filling → Full → Exiting →
//! Idle). One packet may take it through several consecutive steps (a root whose last child
//! reports goes Filling → Full → Exiting → Idle), never skipping one. Exiting is passed through
//! within the packet that causes it, because the switch sends Exit to its children without
//! waiting for acknowledgement; so between packets a group is Idle, Filling or Full.
//!
//! ## Time: `now` and the epoch
//!
//! The engine counts cycles: `now` is 0 in the first cycle in which `cfg_ready` is high after a
//! reset (the cycle after the table sweep) and grows by one every cycle after it. The **epoch**
//! of a cycle is `(now / epoch_cycles) mod 4` (2 bits; `epoch_cycles` is a parameter). An
//! operation's epoch is the epoch of the cycle in which it is accepted. Epochs only serve to
//! pace retries (rules 6 and 8): "sent in this epoch" and "nothing sent for a whole epoch".
//!
//! ## Packet processing (one packet, in this order)
//!
//! Let `p` be the ingress port, `T` the packet TID, `G` the group TID, `d = (T - G) mod 4` and
//! `E` the packet's epoch.
//! 1. table entry not valid → drop, verdict [`Verdict::UnknownCgid`];
//! 2. opcode reserved (4..7) → drop, [`Verdict::BadOpcode`];
//! 3. role: `p` is the parent (non-root only) → from parent; else `p` in the child mask → from
//!    child; else drop, [`Verdict::NotInTree`];
//! 4. direction: FULL and STATUS_REQ must come from a child, EXIT and STATUS_RSP from the parent;
//!    otherwise drop, [`Verdict::BadOpcode`];
//! 5. group in Failure → drop, [`Verdict::GroupFailed`];
//! 6. from a child (FULL or STATUS_REQ):
//!    - `d == 3` (the child is one transaction behind: it missed Exit) → discard, answer
//!      STATUS_RSP with TID `T` ("transaction T completed") to port `p` alone, state untouched,
//!      [`Verdict::Lag`];
//!    - `d == 1 or 2` (the child is ahead: impossible short of a bug) → set Failure,
//!      [`Verdict::TidFail`];
//!    - `d == 0`, child's `reported` bit clear, FULL → set the bit; Idle → Filling; if every
//!      child has now reported, Filling → Full; then on Full: a root goes Full → Exiting → Idle,
//!      clears `reported`, advances its TID and multicasts EXIT(`T`) to the child mask; a
//!      non-root sends FULL(`T`) to its parent, sets `sent = E` and waits. [`Verdict::Ok`];
//!    - `d == 0`, bit clear, STATUS_REQ → the child asks about a transaction it has not
//!      reported in (its FULL is lost or still on its way): nothing changes, nothing is sent,
//!      [`Verdict::Unreported`]. A member that timed out waiting re-sends FULL, not
//!      STATUS_REQ: FULL is the protocol's retry message (idempotent thanks to `reported`);
//!    - `d == 0`, bit set, group Full (only a non-root rests in Full) → a retry, FULL or
//!      STATUS_REQ, from a member that may have missed Exit or whose report may have been
//!      lost above this switch: if `sent != E`, forward the same opcode with TID `T` to the
//!      parent, set `sent = E`, [`Verdict::Ok`]; if `sent == E` (this switch already sent
//!      upward in this epoch), send nothing, [`Verdict::Coalesced`];
//!    - `d == 0`, bit set, group Filling (at a root, the only case) → FULL is a duplicate:
//!      [`Verdict::Stale`]; STATUS_REQ: nothing to say yet, [`Verdict::Ok`] with no output.
//! 7. from the parent (EXIT or STATUS_RSP, which both mean "transaction `T` completed"):
//!    - `d == 0` and Full → Full → Exiting → Idle, clear `reported`, advance TID, multicast
//!      EXIT(`T`) to the child mask, [`Verdict::Ok`];
//!    - `d == 0` and not Full (the parent cannot complete before we reported) → Failure,
//!      [`Verdict::TidFail`];
//!    - `d == 3` (news of a transaction already completed here) → [`Verdict::Stale`];
//!    - `d == 1 or 2` → Failure, [`Verdict::TidFail`].
//! 8. retry timer (parameter `retry_timer = 1`; never with the default 0): the engine visits
//!    its groups in turn with internal **ticks**. A tick of group `g` in epoch `E` acts only
//!    when the entry is valid and not the root, the group is Full, not failed, and
//!    `(E - sent) mod 4 >= 2` (nothing went upward in at least one whole epoch): it sends
//!    FULL(`G`, the group's TID) to the parent, sets `sent = E`, and yields an event with
//!    [`Verdict::Retry`] and the group's state. Any other tick is invisible: no event, no
//!    output, no change. The timer sends FULL rather than STATUS_REQ on purpose: under rule 6
//!    a STATUS_REQ whose FULL was lost is `Unreported` and recovers nothing, while FULL
//!    recovers both losses — a lost FULL (the parent counts it now) and a lost EXIT (the
//!    parent, a transaction ahead, sees `d == 3` and answers STATUS_RSP, rule 6 `Lag`).
//!
//! Every accepted packet yields exactly one event (`ev_*` outputs) with its verdict and the
//! group's state after it (all zero for the drop verdicts 1–3, where no group state is read),
//! and at most one output packet. A tick yields one event (verdict `Retry`) and one output
//! packet, or nothing.
//!
//! ### Clarifications
//!
//! Points the rules above leave open, and the reading the golden, the cycle model and the RTL
//! all implement:
//! - "Every child has now reported" means `reported == children` exactly. A non-root entry
//!   whose parent port is also in its child mask cannot be written (a `Write` of it is
//!   rejected, see the configuration port), and neither can a valid entry with no child.
//! - EXIT goes to the configured child mask (`out_ports = children`); FULL, a forwarded
//!   retry and a timer retry to `1 << parent`; the Lag answer STATUS_RSP to `1 << p`. Every
//!   output packet of a packet carries the CGID and the TID `T` of the packet that caused it;
//!   a timer retry carries the group's TID.
//! - `TidFail` only sets `fail`; the CSM, TID, `sent` and `reported` keep their values (and are
//!   what `ev_*` and `ReadEntry` show). `GroupFailed` changes nothing and reports the stored
//!   state.
//! - **Failure is reported**: the event with verdict `TidFail` is the group's failure report
//!   (a fabric forwards it to the subnet manager as a trap). The group then drops every packet
//!   that reaches rule 5 (`GroupFailed`) and its ticks are invisible, until the subnet
//!   manager's `Write`, which sets the TID it chooses (`cfg_tid`).
//! - `sent` is set only as the rules say (a non-root's completing FULL, a forwarded retry, a
//!   timer retry) and is kept otherwise, also when a transaction completes; a `Write` sets it
//!   to 0. It is read only while the group is Full, which only a completion (which sets it)
//!   reaches, so its value before the first completion never matters.
//! - A retry is forwarded from a Full group only. In Filling the parent cannot have
//!   completed the transaction (it has not had this switch's FULL), so there is nothing to
//!   recover upward; the switch's own FULL goes up when its last child reports.
//! - Coalescing counts any upward packet: after a non-root's completing FULL, retries of its
//!   children are coalesced for the rest of that epoch (so a burst of timed-out children
//!   costs the parent one retry per epoch, not one per child).
//! - A group's state between packets is Idle with `reported == 0`, Filling, or Full with
//!   `reported == children` (Full only for a non-root); so "bit clear while Full" cannot occur.
//!
//! ## Counters
//!
//! `counter_bits`-wide, saturating, readable and clearable through the configuration port.
//! Counter 0 counts accepted packets; counter `v` (1..=10) counts the events whose verdict has
//! code `v` ([`Verdict::code`]). A packet with verdict `Ok` therefore increments counter 0 only
//! (code 0 is taken by the total); any other packet increments counter 0 and its verdict's; a
//! timer retry (a tick that acts) increments counter 10 (`RETRY`) only — it is not a packet.
//! A `ReadCounter` of an index 11..15 reads 0. Counters are cleared by `reset` and by
//! `ClearCounters`.
//!
//! ## Configuration port
//!
//! One operation per cycle, with priority over packets (a packet offered in the same cycle is
//! not accepted: `pkt_ready` is low). [`CfgOp`]:
//! - `Write`: writes the table entry of `cfg_cgid` and resets that group's state to Idle, TID
//!   `cfg_tid`, no Failure, nothing reported, `sent` 0 (joining, re-building — also a live
//!   tree mid-barrier, at its current TID — recovering a failed group and destroying a group
//!   all go through it); answers with the entry and state written (`rsp_tid = cfg_tid`).
//!   **Rejected** (nothing written, table and state unchanged) when the entry is valid and
//!   either has no child (`cfg_children == 0`) or is not the root and has its parent port in
//!   its child mask; the answer is then the stored entry and state, as `ReadEntry` would give
//!   them, with `rsp_rejected = 1`. Writing an invalid entry (destroying) is always accepted;
//! - `ReadEntry`: answers with the entry and the group state;
//! - `ReadCounter`: answers `rsp_counter` = counter `cfg_counter`;
//! - `ClearCounters`: zeroes every counter; answers with all fields zero.
//!
//! Fields of a response that the operation does not produce are zero (`rsp_rejected` is 1
//! only for a rejected `Write`). An accepted `Write` stores the entry as given (reduced to the
//! port widths) even when `cfg_entry_valid` is low or `cfg_parent` is meaningless for a root,
//! and `ReadEntry` returns it as stored: only `valid` (step 1) and, for a non-root, `parent`
//! (step 3) are interpreted.
//!
//! ## Timing
//!
//! - Synchronous, active-high `reset`. After reset the engine clears its tables, one group per
//!   cycle: `pkt_ready` and `cfg_ready` are low for exactly `groups` cycles after the last reset
//!   cycle, then high (`pkt_ready` is also low in a cycle with `cfg_valid` or without room).
//! - An operation accepted in cycle `t` (`valid && ready`) produces its event or response
//!   (`ev_*` or `rsp_*`) in cycle `t + 4` ([`LATENCY`]), and its output packet, if any, enters
//!   the output queue then; one operation per cycle, sustained, in order. Every operation sees
//!   the effect of every operation accepted before it, however close: a packet right after a
//!   `Write` or another packet of the same group, a `ReadEntry` right after a packet, a
//!   `ReadCounter` right after packets or a `ClearCounters`. Outputs not valid in a cycle are
//!   all zero.
//! - **Output queue.** `out_*` show the head of a queue of output packets, [`OUT_QUEUE`] = 8
//!   deep, first-word-fall-through: a packet produced while the queue is empty appears on
//!   `out_*` in that same cycle `t + 4`, so with `out_ready` always high the timing is as it
//!   always was. A packet leaves the queue in a cycle with `out_valid && out_ready`; the
//!   others wait, in order. (An EXIT multicast is one packet with its port mask; the fabric
//!   replicates it to its ports at its own pace behind `out_ready`.)
//! - `cfg_ready = init_done` and `pkt_ready = init_done && !cfg_valid && room`,
//!   combinationally, where `room` is `queued + in_flight < 8`: `queued` the packets waiting
//!   in the queue behind the stage-4 output register, `in_flight` the operations that could
//!   still produce an output packet — packets and ticks in stages 1 to 3, plus the stage-4
//!   output register if it holds a packet. `room` depends on registers only (not on
//!   `out_ready` in the same cycle), and it guarantees that the queue never overflows however
//!   long `out_ready` stays low. Configuration never produces a packet, so `cfg_ready` has no
//!   `room` term. `ev_*` and `rsp_*` are **not** back-pressured: the events are an
//!   observation tap, and a response answers the one outstanding configuration operation of
//!   the subnet manager, so both are shown in `t + 4` whatever `out_ready` does.
//! - Ticks (rule 8): with `retry_timer = 1`, in every cycle after the sweep in which no
//!   operation is accepted and there is `room`, the engine issues a tick for the group of its
//!   scan pointer (0 after reset, advanced by one, modulo `groups`, by every tick) through the
//!   same pipeline; its event and packet, if any, come 4 cycles later like an operation's.
//! - Neither ready is gated by `reset`. The reset edge clears the pipeline and the output
//!   queue, so an operation accepted in a reset cycle or in the three cycles before one is
//!   lost (no outputs, no effect), and so is every queued packet.
//! - Inputs wider than their port are cut to the port width (the RTL port has fewer bits), e.g.
//!   `pkt_port & (radix - 1)`, `pkt_op & 7`, `cfg_children & port_mask()`, `cfg_counter & 15`,
//!   `cfg_tid & 3`. The golden reduces its inputs the same way, so one stimulus drives every
//!   level.
//!
//! The cycle-level micro-architecture (reset sweep, four pipeline stages, write bypass, output
//! queue) is described in [`model`].
//!
//! ### What changed (issue 9): recovery semantics, version 2
//!
//! - `Write` takes the group's TID from the new input `cfg_tid` (was: always 0; `cfg_tid = 0`
//!   is the old behaviour), so the subnet manager recovers a failed group, or rebuilds a live
//!   tree mid-barrier, at the tree's current TID.
//! - `Write`s of a valid entry with no child, or of a non-root entry whose parent is also a
//!   child, are rejected (new output `rsp_rejected`); they used to be stored, and such a group
//!   could never complete.
//! - A STATUS_REQ from a child that has not reported is `Unreported` and changes nothing (it
//!   used to count as the child's FULL: a node polling while still Filling released the
//!   barrier early). A member that timed out re-sends FULL.
//! - A child's retry (FULL or STATUS_REQ, bit already set) at a Full non-root is forwarded to
//!   the parent, at most once per epoch (`Coalesced` otherwise). A repeated FULL there used to
//!   be `Stale`; a repeated STATUS_REQ used to be forwarded every time.
//! - Optional retry timer (rule 8, `retry_timer`, `epoch_cycles`); the state word has a 2-bit
//!   `sent` field.
//! - Verdicts are 4 bits: `Unreported` = 8, `Coalesced` = 9, `Retry` = 10; eleven counters,
//!   `cfg_counter` is 4 bits.
//! - `out_*` are the head of an 8-deep output queue behind the new input `out_ready`;
//!   `pkt_ready` also needs room in it. With `out_ready` high every cycle, the timing is
//!   unchanged.
//!
//! ### Latency changes (issue 8, timing closure): 2 → 3 → 4 cycles
//!
//! Until issue 8 the engine answered in `t + 2`: the table and state RAMs' read data went,
//! through a one-deep write bypass, straight into the CSM decision, the port muxes, the verdict
//! priority chain and the eight saturating counters, all in one cycle (about 12 logic levels:
//! 65 MHz on an ECP5 -6). Now the RAMs' read data is registered first (the RAM output register,
//! one more cycle), the write bypass is two deep and its CGID compares are registered a cycle
//! early, and the counters count a verdict that is already in a register, in the stage that
//! also reads and clears them. Only the latency changes: still one operation per cycle, in
//! order, with no stall and the same answers; `pkt_ready` / `cfg_ready` and the reset sweep
//! are unchanged. `rsp_counter` is now the counter selected by the `ReadCounter` answering in
//! that cycle (a mux of registers) rather than a register of its own; every other output is
//! still a register.
//!
//! At three cycles the decision still began at the bypass muxes: entry → the packet's port
//! against the child mask and the parent (a 16:1 mux) → the path → the state rules → the next
//! state, about seven logic levels (108 MHz on an ECP5 -6). Now the entry is resolved a stage
//! earlier and what the packet's port and opcode make of it is registered (rules 1–5 and the
//! path), so the decision starts from registers and the 2:1 state mux; the write bypass is
//! three deep. Again only the latency changes, by one cycle.

pub mod golden;
pub mod model;
pub mod txn;

pub use crate::net::header::{Opcode, Packet};

use crate::kit::block::BlockSpec;
use crate::kit::layout::Layout;
use crate::model_ports;

/// Cycles from accepting an operation to its outputs.
pub const LATENCY: usize = 4;
/// Width of the TID, fixed by the protocol (seed `000_…`).
pub const TID_BITS: usize = 2;
/// Width of the opcode field.
pub const OP_BITS: usize = 3;
/// Number of counters: the total, then one per verdict code 1..=10.
pub const COUNTERS: usize = 11;
/// Width of a counter index on the configuration port (indices 11..15 read 0).
pub const COUNTER_INDEX_BITS: usize = 4;
/// Width of an epoch number and of the state's `sent` stamp.
pub const EPOCH_BITS: usize = 2;
/// Depth of the output queue (see "Timing": `room`).
pub const OUT_QUEUE: usize = 8;
/// Width of the engine's `now` counter. It wraps at `2^NOW_BITS`, a multiple of
/// `4 * epoch_cycles` for every allowed `epoch_cycles`, so the epoch (`now / epoch_cycles mod
/// 4`, bits `log2(epoch_cycles) + 1 ..= log2(epoch_cycles)`) never notices the wrap.
pub const NOW_BITS: usize = 18;

crate::param_table! {
    /// Parameters of the switch collective engine: the `[switch]` table of `netcoll.toml`.
    /// Only the listed values are supported (the RTL is monomorphised per combination of the
    /// first three; the last two are constants of the RTL).
    pub struct SwitchEngineParams in "switch" {
        /// Ports per switch; also the width of child masks.
        radix: 16 in [4, 8, 16, 32],
        /// Collective groups (table depth); a CGID is `log2(groups)` bits.
        groups: 256 in [16, 256, 1024, 4096],
        /// Width of each drop / event counter.
        counter_bits: 32 in [16, 32],
        /// 1: the retry timer of rule 8 (ticks re-send FULL from Full groups that sent
        /// nothing upward for a whole epoch); 0: no ticks.
        retry_timer: 0 in [0, 1],
        /// Cycles per epoch (the pace of retries, rules 6 and 8).
        epoch_cycles: 1024 in [256, 1024, 4096, 16384, 65536],
    }
}

impl SwitchEngineParams {
    /// The small configuration used for the second snapshot and quick tests.
    pub const SMALL: SwitchEngineParams = SwitchEngineParams {
        radix: 4,
        groups: 16,
        counter_bits: 16,
        retry_timer: 0,
        epoch_cycles: 1024,
    };

    /// The engine at `radix`, `groups`, `counter_bits`, with the default retry settings.
    pub const fn sized(radix: usize, groups: usize, counter_bits: usize) -> SwitchEngineParams {
        SwitchEngineParams {
            radix,
            groups,
            counter_bits,
            retry_timer: 0,
            epoch_cycles: 1024,
        }
    }

    /// The epoch of the cycle at `now` (see "Time" in the module docs).
    pub fn epoch(&self, now: u64) -> u64 {
        (now / self.epoch_cycles as u64) % 4
    }
    /// `log2(epoch_cycles)`: the position of the epoch in `now`.
    pub fn epoch_shift(&self) -> usize {
        self.epoch_cycles.trailing_zeros() as usize
    }
    /// The retry timer is on.
    pub fn retry_timer_on(&self) -> bool {
        self.retry_timer != 0
    }

    /// Bits of a port number.
    pub fn port_bits(&self) -> usize {
        self.radix.trailing_zeros() as usize
    }
    /// Bits of a CGID.
    pub fn cgid_bits(&self) -> usize {
        self.groups.trailing_zeros() as usize
    }
    /// Width of a child mask (one bit per port).
    pub fn radix(&self) -> usize {
        self.radix
    }
    /// Width of a counter.
    pub fn counter_bits(&self) -> usize {
        self.counter_bits
    }
    /// Mask of the valid child-mask bits.
    pub fn port_mask(&self) -> u64 {
        crate::kit::ports::mask(self.radix)
    }
    /// Largest counter value (counters saturate there).
    pub fn counter_max(&self) -> u64 {
        crate::kit::ports::mask(self.counter_bits)
    }

    /// The table memory's word: `{children[R], parent[P], is_root, valid}` (LSB on the right).
    /// All zero is an invalid entry, which is what the reset sweep writes.
    pub fn entry_layout(&self) -> Layout {
        Layout::packed(&[
            ("valid", 1),
            ("is_root", 1),
            ("parent", self.port_bits()),
            ("children", self.radix),
        ])
    }

    /// The state memory's word: `{reported[R], sent[2], tid[2], fail, csm[2]}` (LSB on the
    /// right). All zero is Idle, TID 0, no failure, nothing sent, nothing reported.
    pub fn state_layout(&self) -> Layout {
        Layout::packed(&[
            ("csm", CsmState::BITS),
            ("fail", 1),
            ("tid", TID_BITS),
            ("sent", EPOCH_BITS),
            ("reported", self.radix),
        ])
    }
}

crate::codes! {
    /// CSM states, encoded as on the `ev_state` / `rsp_state` ports.
    pub enum CsmState: 2 {
        Idle = 0 => "IDLE",
        Filling = 1 => "FILLING",
        Full = 2 => "FULL",
        Exiting = 3 => "EXITING",
    }
}

impl CsmState {
    /// The state of a 2-bit code (every code is a state).
    pub fn of(c: u64) -> CsmState {
        CsmState::ALL[(c & 3) as usize]
    }
    /// The ratchet: the one state that may follow this one.
    pub fn next(self) -> CsmState {
        CsmState::of(self.code() + 1)
    }
}

crate::codes! {
    /// What the engine did with an accepted packet (or a tick, `Retry`); the code is the
    /// `ev_verdict` value and the index of the counter it increments.
    pub enum Verdict: 4 {
        Ok = 0 => "OK",
        UnknownCgid = 1 => "UNKNOWN_CGID",
        NotInTree = 2 => "NOT_IN_TREE",
        BadOpcode = 3 => "BAD_OPCODE",
        GroupFailed = 4 => "GROUP_FAILED",
        Stale = 5 => "STALE",
        Lag = 6 => "LAG",
        TidFail = 7 => "TID_FAIL",
        Unreported = 8 => "UNREPORTED",
        Coalesced = 9 => "COALESCED",
        Retry = 10 => "RETRY",
    }
}

crate::codes! {
    /// Configuration-port operations (`cfg_op`).
    pub enum CfgOp: 2 {
        /// Write a table entry and reset its group.
        Write = 0 => "WRITE",
        /// Read a table entry and its group state.
        ReadEntry = 1 => "READ_ENTRY",
        /// Read one counter.
        ReadCounter = 2 => "READ_COUNTER",
        /// Zero every counter.
        ClearCounters = 3 => "CLEAR_COUNTERS",
    }
}

impl CfgOp {
    /// The operation of a 2-bit code (every code is an operation).
    pub fn of(c: u64) -> CfgOp {
        CfgOp::ALL[(c & 3) as usize]
    }
}

/// A collective forwarding table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableEntry {
    pub valid: bool,
    /// Port toward the parent; ignored for the root.
    pub parent: u64,
    /// One bit per child port.
    pub children: u64,
    pub is_root: bool,
}

/// The per-group state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupState {
    pub csm: CsmState,
    pub fail: bool,
    pub tid: u64,
    /// The epoch of the group's last packet to its parent (rules 6 and 8); not an output.
    pub sent: u64,
    pub reported: u64,
}

impl Default for GroupState {
    fn default() -> Self {
        Self {
            csm: CsmState::Idle,
            fail: false,
            tid: 0,
            sent: 0,
            reported: 0,
        }
    }
}

/// The switch engine's ports: the one declaration every view uses (see [`crate::kit::ports`]).
/// Widths: `P` = port bits, `G` = CGID bits, `R` = radix, `C` = counter bits.
#[macro_export]
macro_rules! switch_engine_ports {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            params $crate::switch_engine::SwitchEngineParams;
            /// Inputs of the engine for one clock cycle.
            inputs SwitchEngineIn {
                /// Synchronous reset, active high.
                reset: 1,
                /// A packet is offered.
                pkt_valid: 1,
                /// The packet's ingress port.
                pkt_port: (P, port_bits),
                /// The packet's collective group.
                pkt_cgid: (G, cgid_bits),
                /// The packet's transaction id.
                pkt_tid: {$crate::switch_engine::TID_BITS},
                /// The packet's opcode (`Opcode` code; 4..7 reserved).
                pkt_op: {$crate::switch_engine::OP_BITS},
                /// A configuration operation is offered (it has priority over a packet).
                cfg_valid: 1,
                /// `CfgOp` code.
                cfg_op: {$crate::switch_engine::CfgOp::BITS},
                /// The group of `Write` and `ReadEntry`.
                cfg_cgid: (G, cgid_bits),
                /// `Write`: the entry's valid bit.
                cfg_entry_valid: 1,
                /// `Write`: the port toward the parent.
                cfg_parent: (P, port_bits),
                /// `Write`: the child-port mask.
                cfg_children: (R, radix),
                /// `Write`: the group's root is this switch.
                cfg_is_root: 1,
                /// `ReadCounter`: the counter index (11..15 read 0).
                cfg_counter: {$crate::switch_engine::COUNTER_INDEX_BITS},
                /// `Write`: the TID the group starts with (0 for a new group; the tree's
                /// current TID to rebuild or recover a group without restarting its count).
                cfg_tid: {$crate::switch_engine::TID_BITS},
                /// The consumer takes the packet on `out_*` this cycle (`out_valid &&
                /// out_ready`); low holds it in the output queue. Events and responses are
                /// not held.
                out_ready: 1,
            }
            /// Outputs of the engine in one clock cycle (sampled before the clock edge).
            outputs SwitchEngineOut {
                /// A packet offered this cycle is accepted: `init_done && !cfg_valid && room`
                /// (room in the output queue, see the module docs' "Timing").
                pkt_ready: 1,
                /// A configuration operation offered this cycle is accepted.
                cfg_ready: 1,
                /// The head of the output queue: a packet to send (it leaves with `out_ready`).
                out_valid: 1,
                /// Its egress port mask: one bit for a unicast, the child mask for EXIT.
                out_ports: (R, radix),
                out_cgid: (G, cgid_bits),
                out_tid: {$crate::switch_engine::TID_BITS},
                out_op: {$crate::switch_engine::OP_BITS},
                /// An event: one per accepted packet and per acting tick (`Retry`); not held
                /// by `out_ready`.
                ev_valid: 1,
                ev_cgid: (G, cgid_bits),
                /// `Verdict` code.
                ev_verdict: {$crate::switch_engine::Verdict::BITS},
                /// `CsmState` code after the packet.
                ev_state: {$crate::switch_engine::CsmState::BITS},
                ev_tid: {$crate::switch_engine::TID_BITS},
                ev_fail: 1,
                /// A configuration response (not held by `out_ready`).
                rsp_valid: 1,
                /// The `Write` answered was rejected (nothing written; the other fields show
                /// the stored entry and state, as `ReadEntry` would).
                rsp_rejected: 1,
                rsp_entry_valid: 1,
                rsp_parent: (P, port_bits),
                rsp_children: (R, radix),
                rsp_is_root: 1,
                rsp_state: {$crate::switch_engine::CsmState::BITS},
                rsp_tid: {$crate::switch_engine::TID_BITS},
                rsp_fail: 1,
                rsp_reported: (R, radix),
                rsp_counter: (C, counter_bits),
            }
        }
    };
}
crate::switch_engine_ports!(model_ports! {});

/// The switch collective engine as a block (see [`crate::kit::block`]).
pub struct SwitchEngine;

impl BlockSpec for SwitchEngine {
    const NAME: &'static str = "switch_engine";
    const DESCRIPTION: &'static str =
        "switch collective engine: forwarding table, CSM ratchet, 2-bit TID comparator";
    const REGISTERED_OUTPUTS: bool = false;
    type Params = SwitchEngineParams;
    type In = SwitchEngineIn;
    type Out = SwitchEngineOut;
    type Model = model::SwitchEngineModel;
    type Golden = golden::SwitchEngineGolden;
    fn params(cfg: &crate::config::Config) -> SwitchEngineParams {
        cfg.switch
    }
    fn model(p: &SwitchEngineParams) -> Self::Model {
        model::SwitchEngineModel::new(*p)
    }
    fn golden(p: &SwitchEngineParams) -> Self::Golden {
        golden::SwitchEngineGolden::new(*p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::ports::PortValues;

    #[test]
    fn port_widths_follow_the_parameters() {
        let p = SwitchEngineParams::default();
        let ins = SwitchEngineIn::specs(&p);
        let w = |n: &str| ins.iter().find(|s| s.name == n).map(|s| s.width);
        assert_eq!(
            (
                w("pkt_port"),
                w("pkt_cgid"),
                w("cfg_children"),
                w("pkt_tid")
            ),
            (Some(4), Some(8), Some(16), Some(2))
        );
        let outs = SwitchEngineOut::specs(&SwitchEngineParams::SMALL);
        assert_eq!(outs.len(), 24);
        assert_eq!(ins.len(), 16);
        assert_eq!(w("cfg_counter"), Some(4));
        assert_eq!(w("cfg_tid"), Some(2));
        assert_eq!(
            outs.last().map(|s| (s.name.as_str(), s.width)),
            Some(("rsp_counter", 16))
        );
    }

    #[test]
    fn memory_word_layouts_are_pinned() {
        // Written out by hand: entry {children, parent, is_root, valid}, state
        // {reported, sent, tid, fail, csm}.
        let p = SwitchEngineParams::default();
        let e = p.entry_layout();
        assert_eq!(
            (
                e.lsb("valid"),
                e.lsb("is_root"),
                e.lsb("parent"),
                e.lsb("children")
            ),
            (0, 1, 2, 6)
        );
        assert_eq!(e.width(), 2 + 4 + 16);
        let s = p.state_layout();
        assert_eq!(
            (
                s.lsb("csm"),
                s.lsb("fail"),
                s.lsb("tid"),
                s.lsb("sent"),
                s.lsb("reported")
            ),
            (0, 2, 3, 5, 7)
        );
        assert_eq!(s.width(), 7 + 16);
    }

    #[test]
    fn codes_are_pinned() {
        assert_eq!(Verdict::TidFail.code(), 7);
        assert_eq!(
            (
                Verdict::Unreported.code(),
                Verdict::Coalesced.code(),
                Verdict::Retry.code(),
                Verdict::BITS
            ),
            (8, 9, 10, 4)
        );
        assert_eq!(Verdict::from_code(9).map(|v| v.name()), Some("COALESCED"));
        assert_eq!(Verdict::from_code(11), None);
        assert_eq!(COUNTERS, Verdict::ALL.len());
        assert_eq!(Verdict::from_code(5), Some(Verdict::Stale));
        assert_eq!(CsmState::Full.next(), CsmState::Exiting);
        assert_eq!(CsmState::Exiting.next(), CsmState::Idle);
        assert_eq!(CfgOp::of(6), CfgOp::ReadCounter);
    }
}
