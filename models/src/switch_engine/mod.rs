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
//! Counter 0 counts accepted packets; counter `v` (1..=11) counts the events whose verdict has
//! code `v` ([`Verdict::code`]). A packet with verdict `Ok` therefore increments counter 0 only
//! (code 0 is taken by the total); any other packet increments counter 0 and its verdict's; a
//! timer retry (a tick that acts) increments counter 10 (`RETRY`) only — it is not a packet.
//! A `ReadCounter` of an index 12..15 reads 0. Counters are cleared by `reset` and by
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
//! queue, payload path) is described in [`model`].
//!
//! ## Reductions: packets with a payload (issue 10)
//!
//! A transaction of a group may carry data: each member's FULL carries its **contribution**,
//! a vector of `plen` 64-bit words, and the EXIT (or STATUS_RSP) that completes it carries the
//! **result**, the element-wise reduction of every member's contribution under the operation
//! `rop` (the reduction ALU's [`crate::reduce_alu::AluOp`]: MAX, MIN, MAXLOC, MINLOC, SUM,
//! PROD, LAND, LOR, LXOR, BAND, BOR, BXOR) over the element type `dtype`
//! ([`crate::reduce_alu::Dtype`]: I32, U32, I64, U64, and with `fp = 1` F16, BF16, F32, F64
//! for MAX … PROD). The barrier protocol above is unchanged
//! and does the synchronisation and the recovery: a switch combines a child's contribution
//! exactly when rule 6 counts the child's FULL (its `reported` bit goes from clear to set), so
//! a duplicate or a retry is never counted twice, and every answer rule 6 or 7 sends out
//! carries the data that answer stands for. A vector longer than one packet is cut into
//! chunks, each a transaction of its own: a sender streams several chunks at once through
//! several groups (a pool of CGIDs; chunk `c` goes through the pool's group `c mod k`), and
//! the TID of each is the chunk's sequence check.
//!
//! Parameters: `max_plen` (payload words a packet may carry at most; 0 is a barrier-only
//! engine), `lanes` (payload words per beat: the payload path moves one beat per cycle),
//! `slots` (the groups `0..slots` have data memory and can reduce; a payload for any other
//! group is malformed) and `fp` (1: the floating-point types too).
//!
//! ### Format
//!
//! The header ([`crate::net::header`]) carries `plen`, `rop` and `dtype`; a packet is
//! `B = max(1, ceil(plen / lanes))` **beats** on the packet port (`pkt_valid` / `pkt_ready`
//! per beat): the first beat carries the header fields and payload words `0 .. lanes`, beat `j`
//! words `j·lanes ..`; words past `plen` in the last beat are ignored. A packet's beats are
//! consecutive handshakes (`pkt_valid` may drop between them; the engine keeps `pkt_ready`
//! high for them, so nothing else enters between). Element layout in the words: a 64-bit
//! type has one element per word; a type of 32 bits or fewer two, element `2i` in the
//! 32-bit slot `[31:0]` of word `i` and element `2i + 1` in the slot `[63:32]`. A 16-bit
//! element (F16, BF16) sits in the low 16 bits of its slot: the upper 16 are ignored, and
//! zero in a result. MAXLOC and MINLOC reduce pairs: words `2i`
//! hold values and words `2i + 1` their indices (64-bit indices for the 64-bit types; for
//! the 32-bit types the index word packs the two elements' 32-bit indices like the values),
//! so their `plen` is even. Element-wise, `r = a op b` is exactly the reduction ALU's rule
//! for that element (wrap-around SUM and PROD, MPI's MAXLOC / MINLOC with the lowest index on
//! ties, 32-bit elements at 32 bits; on the floating-point types the rules of
//! [`crate::reduce_alu::fp`]). Every integer operation, and MIN, MAX, MINLOC and MAXLOC on
//! the floating-point types, is associative and commutative on its elements, so the result
//! does not depend on the order contributions arrive in or on the shape of the tree: the
//! engine combines in arrival order, and a fold in any order gives the same bits.
//! Floating-point SUM and PROD round at every step, so their bits depend on that order and on
//! the tree (every member of a transaction still receives the same bits: the root's); the
//! reproducible sum ([`crate::reduce_alu::repro`]) travels as U64 SUM and does not.
//!
//! ### Rules (added to the numbered steps above)
//!
//! - **2b. malformed payload** (after step 2, from the header alone, no group state read) →
//!   drop, [`Verdict::BadPayload`]: `plen > max_plen`; `plen > 0` for a group `>= slots`;
//!   `plen > 0` with a reserved `rop` (12..15), on a STATUS_REQ (a question carries no data),
//!   or for MAXLOC / MINLOC with an odd `plen` or on an engine with `lanes = 1` (a value and
//!   its index are one beat); a floating-point `dtype` (4..7) on an engine with `fp = 0`, or
//!   with LAND … BXOR; `plen == 0` with a nonzero `rop` or `dtype`
//!   (a barrier header carries no reduction fields).
//! - Each group with data memory has two buffers of `max_plen` words: the **accumulator**,
//!   the current transaction's partial result, and the **retained** result, the result of the
//!   last transaction completed here (the "shadow copy" that answers a child that missed it),
//!   each with its own `(rop, dtype, plen)` (the group state's `acc_*` and `ret_*` fields).
//! - **6, counting a FULL** (`d == 0`, bit clear): if it is the transaction's first report
//!   (`reported == 0`), the accumulator takes the packet's payload and its `(rop, dtype, plen)`;
//!   otherwise the packet's `(rop, dtype, plen)` must equal the accumulator's, else the packet
//!   is dropped, [`Verdict::BadPayload`], the state unchanged (the bit stays clear, so the
//!   child's correct retry still counts), and if they are equal each element becomes
//!   `acc op payload`. When the transaction completes: a non-root's FULL(`T`) to its parent
//!   carries the accumulator (with its `rop, dtype, plen`); a root's EXIT(`T`) carries it and
//!   it becomes the retained result.
//! - **6, a retry forwarded** (bit set, Full, `sent != E`) and **8, a tick's FULL**: FULL
//!   carries the accumulator (the complete partial result of `T`: the parent counts it if
//!   the first one was lost); a forwarded STATUS_REQ carries nothing. The retry's own payload
//!   is not combined again (the bit is set).
//! - **6, Lag** (`d == 3`): STATUS_RSP(`T`) carries the retained result (the result of `T`,
//!   the last transaction completed here) with its `(rop, dtype, plen)`; the lagging packet's
//!   own payload is dropped.
//! - **7, completing from the parent** (`d == 0`, Full): the EXIT's or STATUS_RSP's
//!   `(rop, dtype, plen)` must equal the accumulator's, else [`Verdict::BadPayload`] and
//!   nothing changes; if equal, its payload becomes the retained result and the EXIT(`T`) to
//!   the children carries it.
//! - Every other verdict (stale, coalesced, unreported, failed, dropped) ignores the
//!   payload. A `Write` resets both buffers' `(rop, dtype, plen)` to zero with the rest of the
//!   state (their words are not cleared: nothing reads them before a first report writes the
//!   accumulator or a completion the retained result).
//! - An output packet without data has `plen`, `rop` and `dtype` zero.
//!
//! ### Readings of the specification
//!
//! - A barrier is a transaction whose first report has `plen == 0`; later reports must then
//!   have `plen == 0` too (`(0, 0, 0)` must match), so a group can alternate barriers and
//!   reductions, one kind per transaction.
//! - The retained result is the result of the last transaction *completed at this switch*: a
//!   root's own, a non-root's as its parent sent it. It is what a child that is one
//!   transaction behind needs (rule 6's Lag is the only case that reads it), and it stays
//!   until the next transaction completes here, which cannot happen before that child has
//!   caught up (the child is part of every transaction).
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
/// Number of counters: the total, then one per verdict code 1..=11.
pub const COUNTERS: usize = 12;
/// Width of a counter index on the configuration port (indices 12..15 read 0).
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
        /// Payload words a packet may carry at most (64 bits each; 0: barriers only).
        max_plen: 0 in [0, 8, 16, 32, 64, 128],
        /// Payload words per beat: the payload path moves one beat per cycle.
        lanes: 4 in [1, 2, 4],
        /// Groups `0 .. slots` have data memory (an accumulator and a retained result) and
        /// can reduce; at most `groups`.
        slots: 16 in [4, 16, 64],
        /// 1: the payload path reduces the floating-point types too (f16, bf16, f32, f64 with
        /// MAX … PROD); 0: a floating-point payload is malformed (rule 2b).
        fp: 0 in [0, 1],
        /// With `fp = 1`, which floating-point types the payload path reduces (a payload of
        /// one left out is malformed, rule 2b); see `[alu] fp_types`.
        fp_types: 15 in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
            names ["f16", "bf16", "f32", "f64"],
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
        max_plen: 0,
        lanes: 4,
        slots: 16,
        fp: 0,
        fp_types: crate::reduce_alu::ALL_FP_TYPES,
    };

    /// The engine at `radix`, `groups`, `counter_bits`, with the default retry settings.
    pub const fn sized(radix: usize, groups: usize, counter_bits: usize) -> SwitchEngineParams {
        SwitchEngineParams {
            radix,
            groups,
            counter_bits,
            retry_timer: 0,
            epoch_cycles: 1024,
            max_plen: 0,
            lanes: 4,
            slots: 16,
            fp: 0,
            fp_types: crate::reduce_alu::ALL_FP_TYPES,
        }
    }

    /// This engine at `max_plen` payload words, `lanes` words per beat, `slots` groups with
    /// data memory.
    pub const fn with_payload(self, max_plen: usize, lanes: usize, slots: usize) -> Self {
        SwitchEngineParams {
            max_plen,
            lanes,
            slots,
            ..self
        }
    }

    /// Bits of a stored payload length (`0 ..= max_plen`): 6 for 32 words, 8 for 128. The
    /// state word of a reducing engine is `7 + radix + 2 · (plen_bits + 4 + dtype_bits)`
    /// bits, 63 at most (see [`Self::cross_check`]).
    pub fn plen_bits(&self) -> usize {
        (usize::BITS - self.max_plen.leading_zeros()) as usize
    }

    /// The engine reduces (it has a payload path).
    pub fn reduces(&self) -> bool {
        self.max_plen > 0
    }

    /// The payload path reduces the floating-point types.
    pub fn reduces_fp(&self) -> bool {
        self.fp != 0
    }

    /// The latency of the payload path's reduction ALU: [`FP_LATENCY`] when it reduces the
    /// floating-point types, else [`LATENCY`] (the ALU's `latency()`: one per build).
    ///
    /// [`FP_LATENCY`]: crate::reduce_alu::FP_LATENCY
    /// [`LATENCY`]: crate::reduce_alu::LATENCY
    pub fn alu_latency(&self) -> usize {
        self.alu().latency()
    }

    /// The parameters of the payload path's ALU: two lanes per beat word, the
    /// floating-point types of this engine.
    pub fn alu(&self) -> crate::reduce_alu::ReduceAluParams {
        crate::reduce_alu::ReduceAluParams {
            lanes: 2 * self.lanes,
            fp: self.fp,
            fp_types: self.fp_types,
        }
    }

    /// Rule 2b's element-type part: a floating-point `dtype` on an engine without it (none
    /// built in, or not among `fp_types`), or with an operation the floating-point types do
    /// not define (LAND … BXOR).
    pub fn refuses_dtype(&self, rop: u64, dtype: u64) -> bool {
        let fp = crate::reduce_alu::Dtype::from_code(dtype).is_some_and(|d| d.fp().is_some());
        fp && (!crate::reduce_alu::builds_code(self.alu().fp_mask(), dtype)
            || rop > crate::reduce_alu::AluOp::Prod.code())
    }

    /// Bits of a `dtype` kept in the group state: 3 with the floating-point types, else the
    /// integer types' 2 (a floating-point payload is refused before it is stored).
    pub fn dtype_bits(&self) -> usize {
        if self.reduces_fp() {
            crate::reduce_alu::Dtype::BITS
        } else {
            crate::reduce_alu::INT_DTYPE_BITS
        }
    }

    /// Beats of a packet of `plen` payload words: `max(1, ceil(plen / lanes))` on a reducing
    /// engine; always 1 on a barrier-only one, whose ports carry headers only.
    pub fn beats(&self, plen: u64) -> u64 {
        if self.reduces() {
            plen.div_ceil(self.lanes as u64).max(1)
        } else {
            1
        }
    }

    /// Beats of the longest packet (`max_plen / lanes`; 1 for a barrier-only engine).
    pub fn max_beats(&self) -> usize {
        (self.max_plen / self.lanes).max(1)
    }

    /// The payload words a beat carries on the ports: `lanes` when the engine reduces, else
    /// none (a barrier-only engine has no data ports).
    pub fn data_lanes(&self) -> usize {
        if self.reduces() {
            self.lanes
        } else {
            0
        }
    }

    /// Why this parameter set is not one of the engine's, across keys (each key's own values
    /// are checked by the table): `(key, value, what is allowed)`.
    pub fn cross_check(&self) -> Option<(&'static str, usize, String)> {
        if self.slots > self.groups {
            return Some((
                "slots",
                self.slots,
                format!("at most `groups` ({})", self.groups),
            ));
        }
        if self.reduces_fp() && !self.reduces() {
            return Some((
                "fp",
                self.fp,
                "0 on an engine that does not reduce (set `max_plen`)".to_string(),
            ));
        }
        // A group's state word holds both buffers' shapes beside a bit per port.
        if self.reduces_fp() && self.radix > 16 && self.max_plen > 16 {
            return Some((
                "fp",
                self.fp,
                format!(
                    "0 with `radix` = {} and `max_plen` = {} (the group state word would pass 63 bits; with fp = 1 a radix of 32 takes max_plen 16 at most)",
                    self.radix, self.max_plen
                ),
            ));
        }
        if self.max_plen > 32 && self.radix > 16 {
            return Some((
                "max_plen",
                self.max_plen,
                format!(
                    "at most 32 with `radix` = {} (64 and 128 need a radix of 16 or less)",
                    self.radix
                ),
            ));
        }
        None
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
    /// right), followed, when the engine reduces, by the two buffers' shapes
    /// `{ret_dtype, ret_rop, ret_plen, acc_dtype, acc_rop, acc_plen}` (`plen` in
    /// [`SwitchEngineParams::plen_bits`], `dtype` in [`SwitchEngineParams::dtype_bits`]). All zero is Idle, TID 0,
    /// no failure, nothing sent, nothing reported, no payload.
    pub fn state_layout(&self) -> Layout {
        let mut fields = vec![
            ("csm", CsmState::BITS),
            ("fail", 1),
            ("tid", TID_BITS),
            ("sent", EPOCH_BITS),
            ("reported", self.radix),
        ];
        if self.reduces() {
            use crate::net::header::ROP_BITS;
            let plen = self.plen_bits();
            let dtype = self.dtype_bits();
            fields.extend([
                ("acc_plen", plen),
                ("acc_rop", ROP_BITS),
                ("acc_dtype", dtype),
                ("ret_plen", plen),
                ("ret_rop", ROP_BITS),
                ("ret_dtype", dtype),
            ]);
        }
        Layout::packed(&fields)
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
        BadPayload = 11 => "BAD_PAYLOAD",
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
    /// What the accumulator holds (the current transaction's partial result); zero for a
    /// group without data memory. Not an output.
    pub acc: PayloadMeta,
    /// What the retained result holds (the last transaction completed here). Not an output.
    pub ret: PayloadMeta,
}

impl Default for GroupState {
    fn default() -> Self {
        Self {
            csm: CsmState::Idle,
            fail: false,
            tid: 0,
            sent: 0,
            reported: 0,
            acc: PayloadMeta::default(),
            ret: PayloadMeta::default(),
        }
    }
}

/// The shape of a payload: `plen` words of `rop` over `dtype` (raw codes, as in the header).
/// All zero: no payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PayloadMeta {
    pub plen: u64,
    pub rop: u64,
    pub dtype: u64,
}

impl PayloadMeta {
    /// The shape a packet header announces.
    pub fn of(p: &Packet) -> PayloadMeta {
        PayloadMeta {
            plen: p.plen,
            rop: p.rop,
            dtype: p.dtype,
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
                /// A beat of a packet is offered (the header fields count on a packet's first
                /// beat only).
                pkt_valid: 1,
                /// The packet's ingress port.
                pkt_port: (P, port_bits),
                /// The packet's collective group.
                pkt_cgid: (G, cgid_bits),
                /// The packet's transaction id.
                pkt_tid: {$crate::switch_engine::TID_BITS},
                /// The packet's opcode (`Opcode` code; 4..7 reserved).
                pkt_op: {$crate::switch_engine::OP_BITS},
                /// The packet's payload length in words (beats: `max(1, ceil(plen / lanes))`).
                pkt_plen: {$crate::net::header::PLEN_BITS},
                /// The payload's reduction operation (`AluOp` code; 0 without payload).
                pkt_rop: {$crate::net::header::ROP_BITS},
                /// The payload's element type (`Dtype` code; 0 without payload).
                pkt_dtype: {$crate::net::header::DTYPE_BITS},
                /// The beat's payload words (a reducing engine only: `lanes` of them).
                pkt_data: [64; L, data_lanes, 4],
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
                /// `ReadCounter`: the counter index (12..15 read 0).
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
                /// A beat of the head of the output queue (its first beat carries the header;
                /// the packet leaves with its last beat's `out_ready`).
                out_valid: 1,
                /// Its egress port mask: one bit for a unicast, the child mask for EXIT.
                out_ports: (R, radix),
                out_cgid: (G, cgid_bits),
                out_tid: {$crate::switch_engine::TID_BITS},
                out_op: {$crate::switch_engine::OP_BITS},
                out_plen: {$crate::net::header::PLEN_BITS},
                out_rop: {$crate::net::header::ROP_BITS},
                out_dtype: {$crate::net::header::DTYPE_BITS},
                /// The beat's payload words (a reducing engine only).
                out_data: [64; L, data_lanes, 4],
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

    /// Rule 2b's element types, codes by hand (4 f16, 5 bf16, 6 f32, 7 f64; SUM 4, LAND 6).
    #[test]
    fn a_payload_of_a_type_not_built_in_is_refused() {
        let p = SwitchEngineParams::SMALL.with_payload(8, 2, 4);
        let all = SwitchEngineParams { fp: 1, ..p };
        let some = SwitchEngineParams {
            fp_types: 0b0101,
            ..all
        };
        for dtype in 0..4 {
            assert!(!p.refuses_dtype(4, dtype) && !some.refuses_dtype(6, dtype));
        }
        for dtype in 4..8 {
            assert!(p.refuses_dtype(4, dtype), "no floating point: {dtype}");
            assert!(!all.refuses_dtype(4, dtype) && all.refuses_dtype(6, dtype));
            assert_eq!(
                some.refuses_dtype(4, dtype),
                dtype == 5 || dtype == 7,
                "{dtype}"
            );
        }
    }

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
        // A barrier-only engine has the reduction header fields but no data ports.
        assert_eq!(outs.len(), 27);
        assert_eq!(ins.len(), 19);
        assert_eq!(w("cfg_counter"), Some(4));
        assert_eq!(w("cfg_tid"), Some(2));
        assert_eq!(
            (w("pkt_plen"), w("pkt_rop"), w("pkt_dtype")),
            (Some(8), Some(4), Some(3))
        );
        assert_eq!(w("pkt_data_0"), None);
        assert_eq!(
            outs.last().map(|s| (s.name.as_str(), s.width)),
            Some(("rsp_counter", 16))
        );
        // A reducing one has `lanes` 64-bit words a beat each way.
        let r = SwitchEngineParams::default().with_payload(32, 2, 16);
        let ins = SwitchEngineIn::specs(&r);
        let outs = SwitchEngineOut::specs(&r);
        assert_eq!((ins.len(), outs.len()), (21, 29));
        let data: Vec<_> = ins
            .iter()
            .filter(|s| s.name.starts_with("pkt_data"))
            .collect();
        assert_eq!(
            data.iter()
                .map(|s| (s.name.as_str(), s.width))
                .collect::<Vec<_>>(),
            [("pkt_data_0", 64), ("pkt_data_1", 64)]
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
                Verdict::BadPayload.code(),
                Verdict::BITS
            ),
            (8, 9, 10, 11, 4)
        );
        assert_eq!(Verdict::from_code(9).map(|v| v.name()), Some("COALESCED"));
        assert_eq!(Verdict::from_code(12), None);
        assert_eq!(COUNTERS, Verdict::ALL.len());
        assert_eq!(Verdict::from_code(5), Some(Verdict::Stale));
        assert_eq!(CsmState::Full.next(), CsmState::Exiting);
        assert_eq!(CsmState::Exiting.next(), CsmState::Idle);
        assert_eq!(CfgOp::of(6), CfgOp::ReadCounter);
    }
}
