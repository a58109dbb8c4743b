//! # Cycle model of the NIC cross-channel controller
//!
//! [`NicModel::step`] is one clock cycle of the RTL (`netcoll-hdl`'s `nic`): it returns what
//! the output ports show during the cycle (all registered, so they do not depend on this cycle's
//! inputs), then applies the rising edge. The testbench compares it with the RTL every port every
//! cycle, and its observable results with the [golden reference](super::golden).
//!
//! ## Micro-architecture (what the RTL implements, register for register)
//!
//! One control sequencer owns every memory; it does one thing at a time, which keeps the memories
//! single-ported and the behaviour easy to state. Beside it the *transmit engine* sends
//! messages (below), so that the NIC receives while it transmits. The sequencer's *slots*:
//!
//! - **Host command** (taken in `Idle`, where `host_ready` is high): 2–4 cycles, then one response
//!   cycle; then one *background slot* before `host_ready` rises again, so that arriving messages
//!   and the send queues progress even under a continuous stream of host commands.
//! - **Background slot**: an arriving message (if `rx_valid` and the previous background slot was
//!   not a message) or a visit of send queue `visit_qp` (round robin). A visit runs the queue's
//!   head WQE if it is runnable and its CQ has room, otherwise it moves on. A blocked WAIT
//!   re-checks its condition on every visit. `visit_qp` advances after every visit.
//! - The first beat of a message is only looked at when the slot starts; beats are consumed in
//!   `RxData` / `RxDrop` where `rx_ready` is high.
//!
//! Per work request (cycles after the visit starts): context read (1), WQE + CQ-count read (1),
//! decode (1), then: NOP → completion (1); SEND → handed over to the transmit engine, completed
//! by a later visit once sent (a reliable QP's: once answered); WAIT → condition read (1);
//! SEND_EN / RECV_EN → target context read (1); CALC → the address check (1), then one element
//! a cycle (MAXLOC / MINLOC: a pair every 2 cycles) plus the ALU's latency and 2 (3) when it
//! streams, else 10 cycles per element (13 for MAXLOC / MINLOC), `FP_LATENCY - LATENCY` more
//! per element on a NIC with the floating-point types (see "CALC"); and the optional send;
//! PIPE → the receive QP's pipe context read (1), one step (see "Pipes" in the
//! [specification](super)). The completion cycle writes the CQE and the queue context.
//!
//! An arriving data message reads its QP's pipe context with the queue's context: if a PIPE
//! owns the receive side, `RxContext` sends the message to `RxData` at once, into the pipe's
//! next buffer (or refuses it), and its last beat updates the pipe context instead of
//! completing a WQE.
//!
//! ## The transmit engine
//!
//! Registers of its own ([`TxPhase`] and RTL `nic_transmit`), running every cycle whatever the
//! sequencer does, and its own read port of data memory (a copy of the memory in the RTL,
//! written with it). It holds at most one *data message* and one *answer*:
//!
//! - The sequencer hands a data message over in `SqDecode` — a SEND, a retry, or a CALC to a
//!   peer, whose message is held (`go` clear) until `CalcWrite` / `CalcWriteIndex` has written
//!   the last result — only when the engine holds none (`pend` and `sent` clear); otherwise the
//!   visit ends and the WQE runs at a later one. Once the message may go, the SQ's visit is
//!   over: the sequencer goes on with other work while the engine sends. A reliable QP's SQ
//!   awaits its answer from then on (it cannot come before the last beat).
//! - An SQ whose message is held and not all sent is skipped by its visits; after the last
//!   beat of a message without `ack` the engine keeps it as `sent`, and the SQ's next visit
//!   with room in its CQ completes the WQE (`OK`), which frees the engine.
//! - An arriving message's NAK or ACK is posted to the answer register where the sequencer
//!   used to show it; if the register is still taken, the sequencer waits in `AnsWait`.
//! - Phases: `Idle` (no beat shown): the answer if one waits, else the data message if it may
//!   go (reads its first word, or shows the empty beat) — but not in a cycle where an answer
//!   is posted, so a data message always starts with the answer register empty; `Beat`:
//!   shows the word read; `Hold`: waits for `tx_ready`, then reads the next word, or ends the
//!   message. 2 cycles a beat.
//!
//! So the sequencer never waits for the network: it waits only for beats to arrive (in
//! `RxData` / `RxDrop`) and, in `AnsWait`, for the answer register, which needs two answered
//! messages (NAKed, or asking for an ACK) to arrive whole while one data message is being sent.
//! Between two NICs whose links hold at most one message each way that cannot happen on both
//! sides at once (each side's second message would have to be sent before the other side's
//! data message started, and received after it), so they never wait for each other. With
//! deeper links and every message answered both ways, both could wait in `AnsWait` behind
//! each other's data message: InfiniBand avoids it by keeping acknowledgements as per-QP state
//! (coalesced ACKs) rather than queued messages, which is not built here.
//!
//! ## CALC
//!
//! The ALU is the pipelined reduction ALU ([`crate::reduce_alu`]): its inputs come from the
//! operand registers (its operation and type from the current WQE), its result comes its
//! latency later: [`LATENCY`](crate::reduce_alu::LATENCY) cycles, or
//! [`FP_LATENCY`](crate::reduce_alu::FP_LATENCY) on a NIC built with the floating-point types
//! (`fp = 1`, [`NicParams::alu`]). This model keeps the pipeline as `pipe`, a result (value
//! and index, computed from the operand registers every cycle) and whether operands entered
//! with it, one entry per stage.
//!
//! `CalcReadA` checks the addresses, then the CALC runs one of two ways (the results are the
//! same, those of the specification's element-by-element order):
//!
//! - **Streaming** (`CalcStream`), unless some element would read a word an earlier element
//!   writes (`stream_hazard`: the result starts inside an argument's span, after its first
//!   word; or a repeated argument lies in the result — stride 0, or for MAXLOC / MINLOC pairs
//!   stride 1, pairs overlapping). Every cycle it reads the next element's `a` from data memory
//!   and its `b` from a second read port (RTL: the copy `dmem_b`), while elements remain — for
//!   MAXLOC / MINLOC the pairs' values, then their indices in the next cycle (`half`); the
//!   words arrive in the operand registers a cycle later (`rd_valid`; the index words of a
//!   pair when `half` is clear again) and, with an
//!   element's last word, enter the ALU the cycle after (`op_valid`); and whenever the ALU shows
//!   a result, it is written to the next result word — for a pair its value, and its index
//!   (held in `ri_hold`) in the next cycle (`wr_index`). One element a cycle: `count + 2 +
//!   latency` cycles in `CalcStream`, where the last result is written; a pair every 2 cycles:
//!   `2 count + 3 + latency`.
//! - **Element by element**: read `a` and `b` (and for LOC their indices) one after the other
//!   from data memory, let the ALU compute (`CalcAlu`, then `CalcWait` for `latency - 2`
//!   cycles, [`alu_wait`]), write the result (and its index), then the next element. The
//!   operands stay put from `CalcAlu` to `CalcWriteIndex`, so the result the ALU shows in
//!   `CalcWriteIndex` is still theirs. 10 cycles an element (13 for LOC), `FP_LATENCY -
//!   LATENCY` more with the floating-point types.
//!
//! ## Lanes
//!
//! A NIC built with `lanes` = 2 or 4 has that many ALU lanes and its data memory in as many
//! banks (RTL `nic_dmem`: word `w` in bank `w mod lanes`, at row `w / lanes`; each of the three
//! copies banked alike). A streaming CALC that is not MAXLOC / MINLOC and whose `a` and `b`
//! strides are odd or 0 ([`lane_group`]) goes in **lane groups**: every cycle it reads the next
//! `lanes` elements of the current row of `a` and `b` (fewer at a row's end: a group never
//! leaves its row), computes them in the ALU's lanes side by side, and writes their results,
//! which are consecutive words. `lanes` consecutive multiples of an odd stride fall in
//! `lanes` different banks, and a stride 0 reads one word for every lane, so no bank is asked
//! for two words in a cycle; the result's stride is 1. The walks step a group at a time
//! (`Walk::step` with the group's size), so a streaming CALC of `n1 × n2` rows of `count`
//! elements takes `n1 n2 ⌈count / lanes⌉ + 2 + latency` cycles in `CalcStream`. The order
//! argument of "CALC" still holds: an element reads a word only the same or a later element
//! writes (else the CALC does not stream), and a group's words are all read before its
//! results are written. Every other CALC runs as with one lane, in lane 0, and the host, the
//! receive side and the transmit engine use one word a cycle, in the bank of its address.
//!
//! ## The sequencer's states
//!
//! Declared once, in [`nic_seq_states!`](crate::nic_seq_states), for this model ([`SeqState`])
//! and the RTL (a `LogicState` enum; both number the states by position). "Complete" below means
//! the pending completion is set up (its status, the WQE's opcode, queue and index) and the
//! next state is `Complete`.
//!
//! | state | what it does | next states |
//! |---|---|---|
//! | `Init` | writes zero to the context memories at index `sweep`, `sweep += 1` | `Init`; `Idle` after the last index |
//! | `Idle` | `host_ready`: takes a host command (latches it, also as the WQE), else starts a background slot | `HostDecode`; or as `Background` |
//! | `Background` | a message if `rx_valid` and the last slot was not one (latches its header, reads its queue's context), else a visit of SQ `visit_qp` (reads its context) | `RxContext`, `NakContext`, `RxDrop` (QP out of range); `SqContext` |
//! | `HostDecode` | checks the index, issues the reads | `HostAccess`; `Background` (answered) |
//! | `HostAccess` | uses what was read, writes, issues more reads | `HostFinish`; `Background` (answered) |
//! | `HostFinish` | the last step of `POLL_CQ` / `CONFIG_QP`, answers | `Background` |
//! | `SqContext` | latches the SQ's context and reliability word; if its head WQE may run (and does not await an answer, and the engine is not sending its message), reads it and its CQ's counts | `SqWqe`; `Idle` (next SQ) |
//! | `SqWqe` | latches the WQE and the counts; whether an RNR retry is due (`due`) | `SqDecode` |
//! | `SqDecode` | a retry not due → next SQ; CQ full → stall; a head whose message the engine has sent completes (not a PIPE); an answered head completes with the answer's status; a due retry hands the message over again; else decodes the WQE (a CALC's spans are registered; a SEND's or a CALC-to-peer's message is handed over, or the visit ends if the engine holds one; a PIPE reads its receive QP's pipe context); registers `nbuf × blen` | `Idle` (not due, stall, engine taken, SEND / retry handed over), `Complete` (NOP, error, sent, answered, PIPE of no messages), `WaitCheck`, `EnableWrite`, `CalcReadA`, `PipeCheck`, `Idle` / `Complete` (empty CALC) |
//! | `WaitCheck` | compares the CQ's produced count or the counter with the WQE's target | `Complete`; `Idle` (not yet, next SQ) |
//! | `EnableWrite` | writes the target queue's new enable index | `Complete` |
//! | `Complete` | writes the CQE (if signaled or failed) and the CQ's count, retires the WQE (context `ci + 1`) | `Idle` |
//! | `AnsWait` | posts the answer once the answer register is free | `AnsWait`; `Complete` (pending), `Idle` |
//! | `RxContext` | latches the RQ's context and the pipe context; a pipe with a free buffer takes the message (its store pointer and length); else, if no pipe owns the queue, the counter's receive channel (read with them) if it is armed for the QP (and is disarmed); else, if a WQE is enabled, reads it and its CQ's counts | `RxData` (pipe, channel), `RxWqe`; `RxDrop` (NAK: not ready, or RNR NAK) |
//! | `RxWqe` | latches the WQE and counts | `RxCheck` |
//! | `RxCheck` | checks the WQE and the CQ's room | `RxData`; `RxDrop` (NAK: CQ full, or the WQE fails) |
//! | `RxData` | `rx_ready`: stores beats; at the last one completes (a pipe's chunk: writes the pipe context instead; a channel's message: nothing, `ChanOverrun` if it overflowed), and reads the counter, or posts the ACK | `RxData`, `Complete`, `Idle` (pipe), `RxCounter`, `AnsWait` (ACK, register taken) |
//! | `RxCounter` | increments the counter (and posts the ACK) | `Complete`, `Idle` (pipe, channel), `AnsWait` (ACK, register taken) |
//! | `RxDrop` | `rx_ready`: consumes beats; after the last one posts the NAK, or completes | `RxDrop`, `AnsWait` (NAK, register taken), `Complete`, `Idle` |
//! | `NakContext` | latches the SQ's CQ, reads its counts; an answer the SQ's head awaits is written to its reliability word; a stray ACK is dropped | `NakCq`; `RxDrop` (answer, stray ACK) |
//! | `NakCq` | sets up the `REMOTE_DISCARD` completion (or counts the overrun) | `RxDrop` |
//! | `CalcReadA` | reads `a`; checks the CALC's addresses (from the spans); whether it streams | `CalcStream`, `CalcReadB`; `Complete` (`BAD_ADDR`) |
//! | `CalcReadB` | latches `a`, reads `b` | `CalcReadAIndex` (LOC), `CalcOperands` |
//! | `CalcReadAIndex` | latches `b`, reads `a`'s index | `CalcReadBIndex` |
//! | `CalcReadBIndex` | latches `a`'s index, reads `b`'s index | `CalcOperands` |
//! | `CalcOperands` | latches the last operand | `CalcAlu` |
//! | `CalcAlu` | the operands enter the ALU; `wait = latency - 2` ([`alu_wait`]) | `CalcWait` |
//! | `CalcWait` | the ALU computes; `wait -= 1` | `CalcWait`; `CalcWrite` when `wait` was 0 |
//! | `CalcWrite` | writes the result | `CalcWriteIndex` (LOC); `CalcReadA` (next element), `Idle` (to a peer: the held message may go), `Complete` |
//! | `CalcWriteIndex` | writes the result's index | as `CalcWrite` without LOC |
//! | `CalcStream` | reads the next element's `a` and `b` (while `rd_more`; pairs: values, then indices), the walk `rd` steps; writes the result the ALU shows (pairs: value, then index), the walk `wr` steps per element | `CalcStream`; after the last result `Idle` (to a peer), `Complete` |
//! | `PipeCheck` | one step of the PIPE from the pipe context just read: takes the receive side (buffers beyond data memory: `BAD_ADDR`); another SQ's PIPE owns it: nothing; frees the chunk the engine has sent (after the last one releases the receive side and completes with the pipe's status); hands the oldest chunk held over (no `ack`, may go at once) | `Idle`; `Complete` |
//!
//! ## Registers, by the RTL sub-block that holds them
//!
//! - sequencer: `state`, `sweep` (reset sweep index), `last_slot_rx`, `visit_qp`, `now`
//!   (cycles since reset);
//! - host: the command `op`, `arg`, `w0`, `w1`; the response `rsp_valid`, `rsp_status`,
//!   `rsp_data`;
//! - queues: the served work queue `wq` (`2 qp` for an SQ, `2 qp + 1` for an RQ), its context
//!   `ctx` ([`WqContext`]), its CQ's `counts` ([`CqContext`]) and `full` (no room for a CQE,
//!   computed when the counts are latched with the WQE), its reliability word `rc`
//!   ([`RcContext`], latched with the context) and `due` (an RNR retry is due, computed in
//!   `SqWqe` from `rc.at`), its head WQE `w0`, `w1` (also
//!   loaded with the host's command words when one is taken, so that one register pair feeds
//!   every decoder);
//! - completion: the pending completion (`status`, `len`, `opcode`, `qp`, `is_recv`, `index`
//!   — a [`CqeWord`]'s fields), `write_cqe`, `retire` (the WQE leaves its queue) and `pending`
//!   (a completion is due after a discarded message);
//! - receive: the message's header (`src`, `src_qp`, `qp`, `cnt_en`, `cnt`, `tag`, `ack`), `nak` (a
//!   NAK is due) and its `reason`, `overflow`, the store pointer `addr`, `stored`, `cap`;
//! - transmit engine: `phase`, the `tx_*` output registers; the held data message (`pend`,
//!   `go`, `sent`, its header — whose `src_qp` is the handing SQ's QP, RTL `sq` — and `left`
//!   beats from `addr`); the answer register (`ans`, the header and reason);
//! - calc: the walks of `a`, `b` and the result (`rd`, `wr`: each its counters of the three
//!   dimensions, current address and row and plane starts; `rd` ends with the last element
//!   read, `wr` with the last written), `rd_more` (streaming: elements still to read), the
//!   shape's dimensions (latched in `SqDecode`), the operands `a`, `a_index`, `b`, `b_index`,
//!   `rd_valid`, `half` and `op_valid` (streaming: the reads arrive, the operands
//!   enter the ALU), `wr_index` and `ri_hold` (streaming pairs: the index written next), the
//!   `CalcWait` counter `wait`; `span_a`, `span_b` (`(count - 1) × stride` plus the shape's
//!   outer span), `span_d` (the result's span), for the bounds check; the ALU's pipeline;
//! - pipe: `ctx`, the pipe context of the message being received (latched in `RxContext`),
//!   and `size` (`nbuf × blen`, registered in `SqDecode`, so that `PipeCheck`'s bounds check
//!   has no multiplier in front of it); receive: `pipe` (the message goes to the pipe),
//!   `chan` (to its counter's receive channel);
//! - statistics: one 32-bit counter per [`Stat`].
//!
//! ## Memories
//!
//! All have one registered read port and one write port (read-before-write), as `netcoll-hdl`'s
//! `Mem`: a value read in cycle `t` is used in cycle `t + 1`.
//!
//! | memory | words | word |
//! |---|---|---|
//! | `wqc` | `2 qps` (SQ of QP q at `2q`, RQ at `2q + 1`) | [`WqContext`] |
//! | `wqe0`, `wqe1` | `2 qps × WQ_DEPTH` at `{wq, index[3:0]}` | the WQE words ([`WqeWords`]) |
//! | `cqp` | `cqs` | [`CqContext`] |
//! | `cqw` | `cqs` | [`CqWait`]: the wait index and count |
//! | `wqen` | `2 qps`, as `wqc` | [`WqEnable`]: the enable head |
//! | `rcc` | `2 qps`, as `wqc` (read with it) | [`RcContext`]: the QP's reliability settings, an SQ's awaited answer |
//! | `cqe` | `cqs × CQ_DEPTH` at `{cq, produced[4:0]}` | [`CqeWord`] |
//! | `cnt` | `counters` | 32 bits |
//! | `dmem` | `dmem_words` | 64 bits; a second read port for the transmit engine and a third for a streaming CALC's `b` (RTL: copies, `dmem_tx` and `dmem_b`, written with `dmem`) |
//! | `pipc0`, `pipc1` | `qps` | the two words of a QP's [`PipeContext`] |
//! | `chan` | `counters` | [`RxChannel`]: a counter's receive channel, read at `rx_cnt` with the message's queue context (RTL: in `nic_receive`) |
//! | `shape_dim1`, `shape_dim2`, `shape_ext` | [`SHAPES`] | a CALC shape's dimensions ([`ShapeDim`]) and outer spans ([`ShapeExtent`]); LUT RAM in the RTL (in `nic_calc`), read at the head WQE's `calc_shape` as it is latched (`SqWqe`) and used in `SqDecode`; no host command runs in between, so this model reads them in `SqDecode` (`peek`). The RTL writes a `SET_SHAPE`'s outer spans two cycles after its dimensions (its multipliers are pipelined, see `nic_host`), still before the earliest `SqWqe`, so a CALC sees every shape as this model, which writes all of it in `HostDecode` |
//!
//! After reset the sequencer writes zero to `wqc`, `cqp`, `cqw`, `wqen`, `rcc`, `cnt`, `pipc0`, `pipc1`, `chan` and the shape memories at index `sweep` for
//! `sweep = 0 .. 2^SWB - 1` (each memory at `sweep` modulo its size), `SWB` the widest of their
//! index widths; the WQE, CQE and data memories are not cleared (nothing reads them before
//! writing).
//!
//! ## Timing
//!
//! A block RAM's read data arrives late in its cycle (an ECP5 DP16KD without its output
//! register: 5.8 ns after the clock at speed grade 6), so nothing decides on it in the cycle it
//! arrives: the head WQE and its CQ's counts are latched first (`SqWqe`, `RxWqe`) and decoded
//! and checked from those registers in the next state (`SqDecode`, `RxCheck`); whether the CQ
//! is full is computed while latching (the counts come from distributed RAM, early in the
//! cycle) and registered, so the decode does not wait for a 32-bit subtraction. A CALC's address
//! check needs `(count - 1) × stride`, a multiplier: `SqDecode` registers the two spans and
//! `CalcReadA` compares the ends, so the multiplier and the compare sit in different cycles.
//! Each costs a cycle: a send-queue WQE takes one more cycle than before the timing issue, an
//! arriving message one more before its first beat is taken, and a CALC whose addresses are
//! outside data memory completes (`BAD_ADDR`) from `CalcReadA` instead of `SqDecode`. What is
//! computed, and in which order, is unchanged.
//!
//! The RTL also issues some reads whatever the decision, so that the memories' addresses do
//! not wait for it: `SqContext` / `RxContext` read the head WQE and its CQ's counts even when
//! the queue is not runnable, `SqWqe` reads a CQ WAIT's counts (`nic_queues`) and a counter
//! WAIT's counter (`nic_execute`) at the WQE being latched, and `SqDecode` an enable's target
//! context (`nic_queues`), whatever the WQE. Only the states that use what they return follow,
//! so this model, which reads only what it uses, shows the same outputs every cycle. The RTL
//! compares a WAIT's counts or counter with its target in `SqDecode` and registers the result,
//! on which `WaitCheck` decides: nothing writes them from `SqWqe` to `WaitCheck`, so it is the
//! result this model computes in `WaitCheck`. For the same reason the RTL loads some registers
//! whatever it decides: the CALC loop in `SqDecode` (walks, shape, spans: `nic_calc`), and the
//! pending completion's fields in every state that may complete a WQE and go to `Complete` at
//! once (`SqDecode`, `WaitCheck`, `EnableWrite`, the CALC's, `PipeCheck`: `nic_completion`);
//! they are read only in the states the decision to use them leads to (the CALC states,
//! `Complete`), which no other path reaches without loading them first. Its reliability RAM
//! `rcc` is written a cycle after the decision that writes it, and a read at that edge of the
//! word written is forwarded (`nic_queues`): what a read returns is what it returns here.
//!
//! A WQE's checks that depend on its words alone (reserved bits, an index or a buffer out of
//! range, a refused argument, nothing to do) are made in the RTL when the WQE is posted and
//! stored beside it (memory `wqe_chk`, RTL only, see `nic_execute`); `SqDecode` and `RxCheck`
//! decide on them as this model decides on the words: same order, same statuses.

use super::{
    log2, CqContext, CqWait, CqeWord, HostOp, HostStatus, NicIn, NicOut, NicParams, Opcode,
    PipeContext, QpConfig, RcContext, RcState, RxChannel, ShapeDim, ShapeExtent, Stat, Status,
    WqContext, WqEnable, WqeWords, CQ_DEPTH, SHAPES, STATS, WQ_DEPTH,
};
use crate::kit::layout::LayoutField;
use crate::model_states;
use crate::reduce_alu::{golden::golden, AluOp, Dtype, FIRST_RESERVED_OP, MAX_LANES};

/// The sequencer's states, declared once for the model and the RTL (the RTL's `LogicState`
/// enum is generated from the same list, so the encodings — the positions — agree).
#[macro_export]
macro_rules! nic_seq_states {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            /// A state of the NIC's sequencer (see the state table of `netcoll_models::nic::model`).
            SeqState {
                /// Clearing the context memories after reset, one index per cycle.
                Init,
                /// Waiting: takes a host command, else starts a background slot.
                Idle,
                /// The cycle after a host response: a background slot, never a host command.
                Background,
                /// Host command, first cycle: check the index, issue reads.
                HostDecode,
                /// Host command, second cycle: use what was read, issue more.
                HostAccess,
                /// Host command, third cycle.
                HostFinish,
                /// Send-queue visit: the queue's context has been read.
                SqContext,
                /// Send-queue visit: the head WQE and its CQ's counts have been latched; decode.
                SqDecode,
                /// WAIT: the CQ count or the counter has been read; compare.
                WaitCheck,
                /// SEND_EN / RECV_EN: the target queue's context has been read; update it.
                EnableWrite,
                /// Write the CQE (if wanted) and the queue context.
                Complete,
                /// An arriving message's answer waits for the transmit engine's answer register.
                AnsWait,
                /// Arriving message: the receive queue's context has been read.
                RxContext,
                /// Arriving message: the receive WQE and its CQ's counts have been read; latch them.
                RxWqe,
                /// Arriving message: storing beats.
                RxData,
                /// Arriving message: the counter has been read; increment it.
                RxCounter,
                /// Arriving message: discarding beats (then NAK or complete).
                RxDrop,
                /// Arriving NAK: the send queue's context has been read.
                NakContext,
                /// Arriving NAK: the CQ's counts have been read.
                NakCq,
                /// CALC element: read `a`.
                CalcReadA,
                /// CALC element: `a` arrives; read `b`.
                CalcReadB,
                /// CALC element (LOC ops): `b` arrives; read `a`'s index.
                CalcReadAIndex,
                /// CALC element (LOC ops): `a`'s index arrives; read `b`'s index.
                CalcReadBIndex,
                /// CALC element: the last operand arrives.
                CalcOperands,
                /// CALC element: the operands enter the ALU.
                CalcAlu,
                /// CALC element: write the result value.
                CalcWrite,
                /// CALC element (LOC ops): write the result index.
                CalcWriteIndex,
                /// CALC element: waiting for the ALU's pipeline (its latency less one cycle).
                CalcWait,
                /// Send-queue visit: the head WQE and its CQ's counts have been read; latch them.
                SqWqe,
                /// Arriving message: the receive WQE and its CQ's counts are latched; check them.
                RxCheck,
                /// CALC, streaming: reads an element, writes the result the ALU shows (see
                /// "CALC").
                CalcStream,
                /// PIPE: the receive QP's pipe context has been read; one step of the pipe.
                PipeCheck,
            }
        }
    };
}
crate::nic_seq_states!(model_states! {});
use SeqState::*;

/// The transmit engine's phases, declared once for the model and the RTL (as
/// [`nic_seq_states!`](crate::nic_seq_states)).
#[macro_export]
macro_rules! nic_tx_phases {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            /// A phase of the NIC's transmit engine (see "The transmit engine" in
            /// `netcoll_models::nic::model`).
            TxPhase {
                /// No beat shown: starts the pending answer, else a handed-over message.
                Idle,
                /// The word of the next beat has been read.
                Beat,
                /// A beat is shown, waiting for `tx_ready`.
                Hold,
            }
        }
    };
}
crate::nic_tx_phases!(model_states! {});

const M16: u64 = 0xFFFF;

/// The answer states of an SQ's reliability word ([`RcContext`]`::state`).
const RC_AWAIT: u64 = RcState::Await as u64;
const RC_RETRY: u64 = RcState::Retry as u64;
const RC_ANSWERED: u64 = RcState::Answered as u64;

/// `CalcWait`'s count for a NIC whose ALU has (`fp`) or has not the floating-point types: with
/// `CalcAlu`, the ALU's latency from the operands to `CalcWrite` (its `latency() - 2`).
pub const fn alu_wait_count(fp: bool) -> u64 {
    let latency = if fp {
        crate::reduce_alu::FP_LATENCY
    } else {
        crate::reduce_alu::LATENCY
    };
    latency as u64 - 2
}

/// Bits of the `CalcWait` counter that counts from [`alu_wait_count`]`(fp)`: 3 without the
/// floating-point types.
pub const fn alu_wait_bits(fp: bool) -> usize {
    let w = alu_wait_count(fp);
    if w == 0 {
        1
    } else {
        (u64::BITS - w.leading_zeros()) as usize
    }
}

/// `CalcWait`'s count of the NIC `p` ([`alu_wait_count`] for its ALU).
pub fn alu_wait(p: &NicParams) -> u64 {
    let wait = p.alu().latency() as u64 - 2;
    debug_assert_eq!(wait, alu_wait_count(p.fp == 1));
    wait
}
const M32: u64 = 0xFFFF_FFFF;

/// A memory with a registered read port, as `netcoll-hdl`'s `Mem`.
#[derive(Clone, Debug)]
struct Ram {
    words: Vec<u64>,
    rd_addr: usize,
    rd_data: u64,
    /// Data memory's read port for the transmit engine (RTL: a copy of the memory, `dmem_tx`,
    /// written with the first).
    tx_addr: usize,
    tx_data: u64,
    /// Data memory's read port for a streaming CALC's `b` (RTL: a copy, `dmem_b`).
    b_addr: usize,
    b_data: u64,
    /// A streaming CALC's other lanes (1, 2, 3) of `a` and `b` (RTL: the banks; see "Lanes").
    lane_addr: [Option<(usize, usize)>; MAX_LANES - 1],
    lane_data: [(u64, u64); MAX_LANES - 1],
    wr: Option<(usize, u64)>,
    /// The other lanes' result words (a streaming CALC writes up to `lanes` words a cycle).
    lane_wr: [Option<(usize, u64)>; MAX_LANES - 1],
}

impl Ram {
    fn new(n: usize) -> Ram {
        Ram {
            words: vec![0; n],
            rd_addr: 0,
            rd_data: 0,
            tx_addr: 0,
            tx_data: 0,
            b_addr: 0,
            b_data: 0,
            lane_addr: [None; MAX_LANES - 1],
            lane_data: [(0, 0); MAX_LANES - 1],
            wr: None,
            lane_wr: [None; MAX_LANES - 1],
        }
    }
    fn read(&mut self, a: u64) {
        self.rd_addr = a as usize % self.words.len();
    }
    fn read_tx(&mut self, a: u64) {
        self.tx_addr = a as usize % self.words.len();
    }
    fn read_b(&mut self, a: u64) {
        self.b_addr = a as usize % self.words.len();
    }
    /// Lane `lane` (1 ..) of a streaming CALC reads `a` at `a`, `b` at `b`.
    fn read_lane(&mut self, lane: usize, a: u64, b: u64) {
        let n = self.words.len();
        self.lane_addr[lane - 1] = Some((a as usize % n, b as usize % n));
    }
    /// Lane `lane` (1 ..) of a streaming CALC writes its result `d` at `a`.
    fn write_lane(&mut self, lane: usize, a: u64, d: u64) {
        self.lane_wr[lane - 1] = Some((a as usize % self.words.len(), d));
    }
    /// A distributed RAM's read, without a register: the word as it is this cycle.
    fn peek(&self, a: u64) -> u64 {
        self.words[a as usize % self.words.len()]
    }
    fn write(&mut self, a: u64, d: u64) {
        self.wr = Some((a as usize % self.words.len(), d));
    }
    fn edge(&mut self) {
        self.rd_data = self.words[self.rd_addr];
        self.tx_data = self.words[self.tx_addr];
        self.b_data = self.words[self.b_addr];
        // A lane that did not read keeps its word (a lane beyond its group is never used).
        for (d, read) in self.lane_data.iter_mut().zip(&mut self.lane_addr) {
            if let Some((a, b)) = read.take() {
                *d = (self.words[a], self.words[b]);
            }
        }
        for (a, d) in self
            .wr
            .take()
            .into_iter()
            .chain(self.lane_wr.iter_mut().flat_map(Option::take))
        {
            self.words[a] = d;
        }
        self.rd_addr = 0;
        self.tx_addr = 0;
        self.b_addr = 0;
    }
}

/// The sequencer's registers (RTL `nic_sequencer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sequencer {
    state: SeqState,
    /// The index the reset sweep clears next.
    sweep: u64,
    /// The last background slot took a message.
    last_slot_rx: bool,
    /// The send queue the next visit looks at.
    visit_qp: u64,
    /// Cycles since reset, 32 bits (the time of an RNR retry).
    now: u64,
}

/// The host command unit's registers (RTL `nic_host`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Host {
    op: u64,
    arg: u64,
    w0: u64,
    w1: u64,
    rsp_valid: bool,
    rsp_status: u64,
    rsp_data: u64,
    /// A mode 2 enable's target queue, latched in `HostAccess`: its `pi` and whether it is
    /// managed.
    en_pi: u64,
    en_managed: bool,
}

/// The served work queue (RTL `nic_queues`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Queue {
    wq: u64,
    ctx: WqContext,
    counts: CqContext,
    /// The CQ had no room when its counts were latched with the WQE (computed then, from
    /// the counts just read, so that the decode has no 32-bit subtraction in front of it).
    full: bool,
    w0: u64,
    w1: u64,
    /// The queue's reliability word (see "Reliable QPs"), latched with its context.
    rc: RcContext,
    /// An RNR retry is due (`now - rc.at` not negative), computed in `SqWqe`.
    due: bool,
}

/// The pending completion (RTL `nic_completion`): the CQE's fields and what to do with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Completion {
    cqe: CqeWord,
    write_cqe: bool,
    /// The WQE leaves its queue (`ci + 1`); not for a NAK's notification.
    retire: bool,
    /// A completion is due once the discarded message has been consumed (or its NAK sent).
    pending: bool,
}

/// The message being received (RTL `nic_receive`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Receive {
    src: u64,
    src_qp: u64,
    qp: u64,
    cnt_en: bool,
    cnt: u64,
    tag: u64,
    /// The message asks for an answer.
    ack: bool,
    /// A NAK is to be sent when the dropped message has been consumed, with data `reason`.
    nak: bool,
    reason: u64,
    overflow: bool,
    addr: u64,
    stored: u64,
    cap: u64,
    /// The message goes to the pipe that owns its QP's receive side (see "Pipes").
    pipe: bool,
    /// The message goes to the receive channel of its counter (see "Receive channels").
    chan: bool,
}

/// A message's header as the `tx_*` ports show it (every beat repeats it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TxHeader {
    /// A NAK-kind message (an answer).
    kind: bool,
    dst: u64,
    src_qp: u64,
    qp: u64,
    cnt_en: bool,
    cnt: u64,
    tag: u64,
    ack: bool,
}

/// The transmit engine's registers (RTL `nic_transmit`): the `tx_*` outputs, the beat loop,
/// the handed-over data message and the answer register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Transmit {
    phase: TxPhase,
    /// The port: `valid`, the header shown, `empty`, `last`, `data`.
    valid: bool,
    hdr: TxHeader,
    empty: bool,
    last: bool,
    data: u64,
    /// A data message has been handed over and not all sent; `go`: it may start (a CALC's
    /// is handed over before its result is computed).
    pend: bool,
    go: bool,
    /// A data message without `ack` has been sent; its WQE completes at its SQ's next visit.
    sent: bool,
    /// The handed-over message's header (its `src_qp` is the QP whose SQ handed it over).
    msg: TxHeader,
    /// Beats still to send (the one shown included); the word of the next beat.
    left: u64,
    addr: u64,
    /// An answer waits to be sent: its header and reason.
    ans: bool,
    answer: TxHeader,
    reason: u64,
}

/// The CALC loop (RTL `nic_calc`) and the ALU's result registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Calc {
    /// The walk of `a` and `b`: the next element to read (element by element: to compute).
    rd: Walk,
    /// Streaming: elements still to read.
    rd_more: bool,
    /// The walk of the result: the next element to write.
    wr: Walk,
    /// The shape's dimensions 1 and 2 (latched in `SqDecode`, counts 0 read as 1).
    dims: [ShapeDim; 2],
    /// `(count - 1) × calc_sa` and `× calc_sb` plus the shape's outer spans, the result's span:
    /// registered in `SqDecode` so that `CalcReadA`'s bounds check has no multiplier in front
    /// of it.
    span_a: u64,
    span_b: u64,
    span_d: u64,
    a: u64,
    a_index: u64,
    b: u64,
    b_index: u64,
    /// The other lanes' operands (lanes 1, 2, 3: `a`, `b`), for a CALC in lane groups.
    lane_ops: [(u64, u64); MAX_LANES - 1],
    /// `CalcWait` cycles still to go after this one.
    wait: u64,
    /// A streaming CALC read `a` and `b` in the previous cycle (they arrive now).
    rd_valid: bool,
    /// A streaming MAXLOC / MINLOC reads its pairs' index words next.
    half: bool,
    /// The operand registers hold a streaming CALC's element (it enters the ALU now).
    op_valid: bool,
    /// A streaming MAXLOC / MINLOC writes `ri_hold`, the index of the result value written in
    /// the previous cycle.
    wr_index: bool,
    ri_hold: u64,
    /// The ALU's pipeline: `pipe[k]` is (valid, the lanes' values, lane 0's index) for the
    /// operand registers of `k + 1` cycles ago, valid if they entered it then; its result port
    /// shows `pipe[latency - 1]`.
    pipe: [(bool, [u64; MAX_LANES], u64); ALU_PIPE],
}

/// A walk over a CALC's elements in the order of "Multi-dimensional arguments" (RTL
/// `nic_calc_walk`, one per address): elements still to go in each dimension (the current
/// one included), and for `a`, `b` and the result the current address and the starts of the
/// current row (dimension 1) and plane (dimension 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Walk {
    left: [u64; 3],
    addr: [u64; 3],
    row: [u64; 3],
    plane: [u64; 3],
}

impl Walk {
    /// At the first element of `count × n1 × n2`, from `base`.
    fn start(count: u64, dims: &[ShapeDim; 2], base: [u64; 3]) -> Walk {
        Walk {
            left: [count, dims[0].count, dims[1].count],
            addr: base,
            row: base,
            plane: base,
        }
    }

    /// The current group of `g` elements (the rest of the row if fewer) is the last (no
    /// dimension has more than it).
    fn last(&self, g: u64) -> bool {
        self.left[0] <= g && self.left[1] <= 1 && self.left[2] <= 1
    }

    /// The elements of the current group of `g`: `g`, or the rest of the row if fewer.
    fn take(&self, g: u64) -> u64 {
        self.left[0].min(g)
    }

    /// To the next group of `g` elements (1: the next element; a group never leaves its
    /// row); `s0` the inner strides, `dims` the outer dimensions (the last group stays where
    /// it is).
    fn step(&self, g: u64, count: u64, s0: [u64; 3], dims: &[ShapeDim; 2]) -> Walk {
        let mut w = *self;
        let stride = |d: &ShapeDim| [d.sa, d.sb, d.sd];
        let add = |from: [u64; 3], s: [u64; 3]| -> [u64; 3] {
            std::array::from_fn(|k| (from[k] + s[k]) & M16)
        };
        if self.left[0] > g {
            w.left[0] -= g;
            w.addr = add(self.addr, s0.map(|s| s * g));
        } else if self.left[1] > 1 {
            w.left = [count, self.left[1] - 1, self.left[2]];
            w.row = add(self.row, stride(&dims[0]));
            w.addr = w.row;
        } else if self.left[2] > 1 {
            w.left = [count, dims[0].count, self.left[2] - 1];
            w.plane = add(self.plane, stride(&dims[1]));
            w.row = w.plane;
            w.addr = w.plane;
        }
        w
    }
}

/// The deepest ALU pipeline a NIC has.
const ALU_PIPE: usize = if crate::reduce_alu::FP_LATENCY > crate::reduce_alu::LATENCY {
    crate::reduce_alu::FP_LATENCY
} else {
    crate::reduce_alu::LATENCY
};

/// The pipe unit's registers (RTL `nic_pipe`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pipe {
    /// The pipe context of the message being received, latched in `RxContext`.
    ctx: PipeContext,
    /// `nbuf × blen` of the PIPE being decoded, registered in `SqDecode` (`PipeCheck`'s
    /// bounds check has no multiplier in front of it).
    size: u64,
}

/// Every register of the RTL (all reset to zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Regs {
    seq: Sequencer,
    host: Host,
    queue: Queue,
    cpl: Completion,
    rx: Receive,
    tx: Transmit,
    calc: Calc,
    pipe: Pipe,
    stats: [u64; STATS],
}

/// The cycle model. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct NicModel {
    p: NicParams,
    /// The ALU's latency (`p.alu().latency()`).
    alu_latency: usize,
    qb: u32,
    swb: u32,
    r: Regs,
    wqc: Ram,
    wqe0: Ram,
    wqe1: Ram,
    cqp: Ram,
    cqw: Ram,
    wqen: Ram,
    rcc: Ram,
    cqe: Ram,
    cnt: Ram,
    dmem: Ram,
    pipc0: Ram,
    pipc1: Ram,
    chan: Ram,
    shape_dim1: Ram,
    shape_dim2: Ram,
    shape_ext: Ram,
}

/// `v` taken as a signed 16-bit number is positive.
fn sx16_pos(v: u64) -> bool {
    let v = v & M16;
    v != 0 && v < 0x8000
}

/// `v` taken as a signed 16-bit number is not negative.
fn sx16_nonneg(v: u64) -> bool {
    v & M16 < 0x8000
}

/// What a cycle does besides the register and memory updates: the statistic it counts.
type StatEvent = Option<Stat>;

impl NicModel {
    /// A model in the state right after a reset edge (it sweeps its contexts first).
    pub fn new(p: NicParams) -> NicModel {
        assert!(p.is_supported(), "unsupported NIC parameters {p:?}");
        let qb = log2(p.qps) as u32;
        let swb = (qb + 1)
            .max(log2(p.cqs) as u32)
            .max(log2(p.counters) as u32);
        NicModel {
            p,
            alu_latency: p.alu().latency(),
            qb,
            swb,
            r: Regs::default(),
            wqc: Ram::new(2 * p.qps),
            wqe0: Ram::new(2 * p.qps * WQ_DEPTH),
            wqe1: Ram::new(2 * p.qps * WQ_DEPTH),
            cqp: Ram::new(p.cqs),
            cqw: Ram::new(p.cqs),
            wqen: Ram::new(2 * p.qps),
            rcc: Ram::new(2 * p.qps),
            cqe: Ram::new(p.cqs * CQ_DEPTH),
            cnt: Ram::new(p.counters),
            dmem: Ram::new(p.dmem_words),
            pipc0: Ram::new(p.qps),
            pipc1: Ram::new(p.qps),
            chan: Ram::new(p.counters),
            shape_dim1: Ram::new(SHAPES),
            shape_dim2: Ram::new(SHAPES),
            shape_ext: Ram::new(SHAPES),
        }
    }

    pub fn params(&self) -> &NicParams {
        &self.p
    }

    /// The outputs during the current cycle (a function of the registers only).
    pub fn outputs(&self) -> NicOut {
        let r = &self.r;
        let t = &r.tx;
        NicOut {
            host_ready: r.seq.state == Idle,
            host_rsp_valid: r.host.rsp_valid,
            host_rsp_status: r.host.rsp_status,
            host_rsp_data: r.host.rsp_data,
            rx_ready: r.seq.state == RxData || r.seq.state == RxDrop,
            tx_valid: t.valid,
            tx_kind: t.hdr.kind,
            tx_dst: t.hdr.dst,
            tx_src_qp: t.hdr.src_qp,
            tx_qp: t.hdr.qp,
            tx_cnt_en: t.hdr.cnt_en,
            tx_cnt: t.hdr.cnt,
            tx_tag: t.hdr.tag,
            tx_ack: t.hdr.ack,
            tx_empty: t.empty,
            tx_last: t.last,
            tx_data: t.data,
        }
    }

    fn memories(&mut self) -> [&mut Ram; 16] {
        [
            &mut self.wqc,
            &mut self.wqe0,
            &mut self.wqe1,
            &mut self.cqp,
            &mut self.cqw,
            &mut self.wqen,
            &mut self.rcc,
            &mut self.cqe,
            &mut self.cnt,
            &mut self.dmem,
            &mut self.pipc0,
            &mut self.pipc1,
            &mut self.chan,
            &mut self.shape_dim1,
            &mut self.shape_dim2,
            &mut self.shape_ext,
        ]
    }

    /// One clock cycle: the outputs during the cycle, then the rising edge with inputs `i`.
    pub fn step(&mut self, i: &NicIn) -> NicOut {
        let o = self.outputs();
        if i.reset {
            self.r = Regs::default();
            for m in self.memories() {
                m.wr = None;
                m.edge();
            }
            return o;
        }
        let cur = self.r;
        let mut n = cur;
        n.host.rsp_valid = false;
        n.seq.now = (cur.seq.now + 1) & M32;
        // The WQE the units look at: the latched one, or the host's command while one runs
        // (latched into the same registers; never the memory's output: see "Timing").
        let wqe = WqeWords::unpack(cur.queue.w0, cur.queue.w1);
        // A streaming CALC's reads arrive in the operand registers a cycle after they were
        // issued, and enter the ALU the cycle after the last of an element's words.
        n.calc.rd_valid = false;
        n.calc.op_valid = false;
        n.calc.wr_index = false;
        // A pair's index words were read the cycle `half` went back to the values.
        let rd_index = is_loc(&wqe) && !cur.calc.half;
        if cur.calc.rd_valid && rd_index {
            n.calc.a_index = self.dmem.rd_data;
            n.calc.b_index = self.dmem.b_data;
            n.calc.op_valid = true;
        } else if cur.calc.rd_valid {
            n.calc.a = self.dmem.rd_data;
            n.calc.b = self.dmem.b_data;
            n.calc.lane_ops = self.dmem.lane_data;
            n.calc.op_valid = !is_loc(&wqe);
        }
        let stat = self.cycle(i, &cur, &mut n, &wqe);
        self.transmit(i, &cur, &mut n);
        if let Some(s) = stat {
            n.stats[s as usize] = (n.stats[s as usize] + 1) & M32;
        }
        // The ALU's pipeline moves on; operands enter it in `CalcAlu`, and while a CALC
        // streams (see "CALC").
        let alu_in = cur.seq.state == CalcAlu || cur.calc.op_valid;
        n.calc.pipe[0] = alu_eval(&wqe, &cur.calc, alu_in, self.p.lanes);
        n.calc.pipe[1..].copy_from_slice(&cur.calc.pipe[..ALU_PIPE - 1]);
        self.r = n;
        for m in self.memories() {
            m.edge();
        }
        o
    }

    fn cycle(&mut self, i: &NicIn, cur: &Regs, n: &mut Regs, wqe: &WqeWords) -> StatEvent {
        match cur.seq.state {
            Init => {
                self.sweep(cur, n);
                None
            }
            Idle if i.host_valid => {
                n.host.op = i.host_op & 15;
                n.host.arg = i.host_arg & M16;
                n.host.w0 = i.host_w0;
                n.host.w1 = i.host_w1;
                n.queue.w0 = i.host_w0;
                n.queue.w1 = i.host_w1;
                n.seq.state = HostDecode;
                None
            }
            Idle | Background => self.background(i, cur, n),
            HostDecode | HostAccess | HostFinish => self.host(cur, n, wqe),
            SqContext | SqWqe | SqDecode | WaitCheck | EnableWrite => self.execute(cur, n, wqe),
            PipeCheck => {
                self.pipe_check(cur, n, wqe);
                None
            }
            CalcReadA | CalcReadB | CalcReadAIndex | CalcReadBIndex | CalcOperands | CalcAlu
            | CalcWait | CalcWrite | CalcWriteIndex | CalcStream => {
                self.calc(cur, n, wqe);
                None
            }
            Complete => self.complete(cur, n),
            AnsWait => {
                if !cur.tx.ans {
                    Self::post_answer(&cur.rx, cur.cpl.pending, n);
                }
                None
            }
            RxContext | RxWqe | RxCheck | RxData | RxCounter | RxDrop | NakContext | NakCq => {
                self.receive(i, cur, n, wqe)
            }
        }
    }

    /// `Init`: the reset sweep.
    fn sweep(&mut self, cur: &Regs, n: &mut Regs) {
        let s = cur.seq.sweep;
        self.wqc.write(s, 0);
        self.cqp.write(s, 0);
        self.cqw.write(s, 0);
        self.wqen.write(s, 0);
        self.rcc.write(s, 0);
        self.cnt.write(s, 0);
        self.pipc0.write(s, 0);
        self.pipc1.write(s, 0);
        self.chan.write(s, 0);
        self.shape_dim1.write(s, 0);
        self.shape_dim2.write(s, 0);
        self.shape_ext.write(s, 0);
        let last = (1u64 << self.swb) - 1;
        n.seq.sweep = (s + 1) & last;
        if s == last {
            n.seq.state = Idle;
        }
    }

    fn advance_visit(&self, cur: &Regs, n: &mut Regs) {
        n.seq.visit_qp = (cur.seq.visit_qp + 1) & ((1 << self.qb) - 1);
    }

    /// Starts a background slot (from `Idle` without a host command, or from `Background`).
    fn background(&mut self, i: &NicIn, cur: &Regs, n: &mut Regs) -> StatEvent {
        if i.rx_valid && !cur.seq.last_slot_rx {
            n.seq.last_slot_rx = true;
            // The message's queue: the RQ of `rx_qp` for data, its SQ for a NAK (read even
            // when `rx_qp` is out of range: nothing uses it then).
            let wq = 2 * (i.rx_qp & 0xFF) + (!i.rx_kind) as u64;
            n.queue.wq = wq & ((2 << self.qb) - 1);
            self.wqc.read(wq);
            self.rcc.read(wq);
            self.pipc0.read(i.rx_qp & 0xFF);
            self.pipc1.read(i.rx_qp & 0xFF);
            self.chan.read(i.rx_cnt & 0xFF);
            self.receive_start(i, n)
        } else {
            n.seq.last_slot_rx = false;
            n.queue.wq = 2 * cur.seq.visit_qp;
            self.wqc.read(2 * cur.seq.visit_qp);
            self.rcc.read(2 * cur.seq.visit_qp);
            n.seq.state = SqContext;
            None
        }
    }

    /// Latches the work-queue context just read; when its head WQE may run (posted and, in a
    /// managed queue, enabled) also reads that WQE and the CQ's counts, and says so.
    fn latch_context(&mut self, cur: &Regs, n: &mut Regs) -> bool {
        let c = WqContext::unpack(self.wqc.rd_data);
        n.queue.ctx = c;
        n.queue.rc = RcContext::unpack(self.rcc.rd_data);
        let runnable = c.ci != c.pi && (c.managed == 0 || sx16_pos(c.ei.wrapping_sub(c.ci)));
        if runnable {
            let slot = cur.queue.wq * WQ_DEPTH as u64 + (c.ci & (WQ_DEPTH as u64 - 1));
            self.wqe0.read(slot);
            self.wqe1.read(slot);
            self.cqp.read(c.cq);
        }
        runnable
    }

    /// Latches the WQE and the CQ's counts just read, and whether that CQ is full.
    fn latch_wqe(&self, n: &mut Regs) {
        n.queue.w0 = self.wqe0.rd_data;
        n.queue.w1 = self.wqe1.rd_data;
        n.queue.full = self.latch_counts(n);
    }

    /// Latches the CQ's counts just read; whether that CQ is full.
    fn latch_counts(&self, n: &mut Regs) -> bool {
        let q = CqContext::unpack(self.cqp.rd_data);
        n.queue.counts = q;
        q.produced.wrapping_sub(q.consumed) & M32 == CQ_DEPTH as u64
    }

    /// Sets up the completion of the current WQE (`wqe`, of queue `wq`) with `status`.
    fn complete_with(cur: &Regs, n: &mut Regs, wqe: &WqeWords, status: Status) {
        n.cpl.cqe = CqeWord {
            status: status.code(),
            opcode: wqe.opcode,
            qp: cur.queue.wq >> 1,
            is_recv: cur.queue.wq & 1,
            index: cur.queue.ctx.ci,
            len: 0,
        };
        n.cpl.write_cqe = wqe.signaled == 1 || status != Status::Ok;
        n.cpl.retire = true;
        n.seq.state = Complete;
    }

    /// `Complete`: the CQE and the CQ's count, the queue's context.
    fn complete(&mut self, cur: &Regs, n: &mut Regs) -> StatEvent {
        let q = &cur.queue;
        let mut stat = None;
        if cur.cpl.write_cqe {
            let slot = q.counts.produced & (CQ_DEPTH as u64 - 1);
            self.cqe
                .write(q.ctx.cq * CQ_DEPTH as u64 + slot, cur.cpl.cqe.pack()[0]);
            let counts = CqContext {
                produced: (q.counts.produced + 1) & M32,
                ..q.counts
            };
            self.cqp.write(q.ctx.cq, counts.pack()[0]);
            if cur.cpl.cqe.status != Status::Ok.code() {
                stat = Some(Stat::ErrorCqe);
            }
        }
        if cur.cpl.retire {
            let ctx = WqContext {
                ci: (q.ctx.ci + 1) & M16,
                ..q.ctx
            };
            self.wqc.write(q.wq, ctx.pack()[0]);
            if q.wq & 1 == 0 {
                // The head leaves its SQ: nothing is awaited any more.
                let rc = RcContext { state: 0, ..q.rc };
                self.rcc.write(q.wq, rc.pack()[0]);
                self.advance_visit(cur, n);
            }
        }
        n.cpl.pending = false;
        n.seq.state = Idle;
        stat
    }

    /// The send-queue states: `SqContext`, `SqDecode`, `WaitCheck`, `EnableWrite`.
    fn execute(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) -> StatEvent {
        match cur.seq.state {
            SqContext => {
                // A head awaiting its answer, or whose message is being sent, does not run.
                let awaits = RcContext::unpack(self.rcc.rd_data).state == RC_AWAIT;
                let sending = cur.tx.pend && cur.tx.msg.src_qp == cur.queue.wq >> 1;
                if self.latch_context(cur, n) && !awaits && !sending {
                    n.seq.state = SqWqe;
                } else {
                    self.advance_visit(cur, n);
                    n.seq.state = Idle;
                }
                None
            }
            SqWqe => {
                self.latch_wqe(n);
                n.queue.due = cur.seq.now.wrapping_sub(cur.queue.rc.at) & M32 < 0x8000_0000;
                n.seq.state = SqDecode;
                None
            }
            SqDecode => {
                // (`PipeCheck`'s bounds check uses it; registered whatever the WQE.)
                n.pipe.size = (wqe.pipe_blen * wqe.pipe_nbuf) & M32;
                let rc = cur.queue.rc;
                if rc.state == RC_RETRY && !cur.queue.due {
                    self.advance_visit(cur, n);
                    n.seq.state = Idle;
                    return None;
                }
                if cur.queue.full {
                    // Back-pressure: the WQE does not start while its CQ is full.
                    self.advance_visit(cur, n);
                    n.seq.state = Idle;
                    return Some(Stat::CqStall);
                }
                let pipe = wqe.opcode == Opcode::Pipe.code() && !reserved(wqe);
                if cur.tx.sent && cur.tx.msg.src_qp == cur.queue.wq >> 1 && !pipe {
                    // Its message has been sent (a PIPE's chunk is freed in `PipeCheck`).
                    n.tx.sent = false;
                    Self::complete_with(cur, n, wqe, Status::Ok);
                    return None;
                }
                if rc.state == RC_ANSWERED {
                    let status = Status::from_code(rc.status).unwrap_or(Status::Ok);
                    Self::complete_with(cur, n, wqe, status);
                    return None;
                }
                if rc.state == RC_RETRY {
                    // The message again: a SEND's buffer, a CALC's result, as they are now.
                    if !self.engine_free(cur, n) {
                        return None;
                    }
                    let (addr, len) = if wqe.opcode == Opcode::Send.code() {
                        (wqe.buf_addr, wqe.buf_len)
                    } else {
                        (wqe.calc_dst, self.calc_message_len(wqe))
                    };
                    self.hand_over(cur, n, wqe, addr, len, true);
                    return Some(Stat::RnrRetry);
                }
                self.decode(cur, n, wqe);
                None
            }
            WaitCheck => {
                let ok = if wqe.wait_kind == 0 {
                    let produced = CqContext::unpack(self.cqp.rd_data).produced;
                    produced.wrapping_sub(wqe.wait_count) & M32 < 0x8000_0000
                } else {
                    self.cnt.rd_data & M32 >= wqe.wait_count
                };
                if ok {
                    Self::complete_with(cur, n, wqe, Status::Ok);
                } else {
                    self.advance_visit(cur, n);
                    n.seq.state = Idle;
                }
                None
            }
            _ => {
                // EnableWrite.
                let c = WqContext::unpack(self.wqc.rd_data);
                let ei = if wqe.en_mode == 0 {
                    (c.ei + wqe.en_value) & M16
                } else {
                    // Mode 1 enables index `en_value` itself; modes 3 (and 2, left so only for
                    // a QP out of range, which fails before this state) stop before it.
                    let up_to = (wqe.en_value + (wqe.en_mode == 1) as u64) & M16;
                    if sx16_nonneg(up_to.wrapping_sub(c.ei)) {
                        up_to
                    } else {
                        c.ei
                    }
                };
                let target = enable_target(wqe);
                self.wqc.write(target, WqContext { ei, ..c }.pack()[0]);
                if target == cur.queue.wq {
                    n.queue.ctx.ei = ei;
                }
                Self::complete_with(cur, n, wqe, Status::Ok);
                None
            }
        }
    }

    /// `SqDecode` with room in the CQ: what the latched WQE does.
    fn decode(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) {
        let p = self.p;
        let (qps, cqs, cnts, dmw) = (
            p.qps as u64,
            p.cqs as u64,
            p.counters as u64,
            p.dmem_words as u64,
        );
        if reserved(wqe) {
            return Self::complete_with(cur, n, wqe, Status::BadOpcode);
        }
        match Opcode::from_code(wqe.opcode) {
            Some(Opcode::Nop) => Self::complete_with(cur, n, wqe, Status::Ok),
            Some(Opcode::Send) => {
                if wqe.buf_addr + wqe.buf_len > dmw {
                    Self::complete_with(cur, n, wqe, Status::BadAddr);
                } else if self.engine_free(cur, n) {
                    self.hand_over(cur, n, wqe, wqe.buf_addr, wqe.buf_len, true);
                }
            }
            Some(Opcode::Wait) => {
                let limit = if wqe.wait_kind == 0 { cqs } else { cnts };
                if wqe.wait_index >= limit {
                    Self::complete_with(cur, n, wqe, Status::BadIndex);
                } else {
                    if wqe.wait_kind == 0 {
                        self.cqp.read(wqe.wait_index);
                    } else {
                        self.cnt.read(wqe.wait_index);
                    }
                    n.seq.state = WaitCheck;
                }
            }
            Some(Opcode::SendEn) | Some(Opcode::RecvEn) => {
                if wqe.en_qp >= qps {
                    Self::complete_with(cur, n, wqe, Status::BadIndex);
                } else {
                    self.wqc.read(enable_target(wqe));
                    n.seq.state = EnableWrite;
                }
            }
            Some(Opcode::Calc) => {
                let count = wqe.calc_count;
                // A reserved operation; a floating-point type without the datapath, or with an
                // operation it does not define.
                let built = crate::reduce_alu::builds_code(
                    self.p.alu().fp_mask(),
                    4 | (wqe.calc_dtype & 3),
                );
                let fp_refused = wqe.calc_fp == 1 && (!built || wqe.calc_op > AluOp::Prod.code());
                if wqe.calc_op >= FIRST_RESERVED_OP || fp_refused {
                    Self::complete_with(cur, n, wqe, Status::BadArg);
                } else if wqe.calc_to_peer == 1 && !self.engine_free(cur, n) {
                    // The result's message needs the engine: the CALC starts when it is free.
                } else {
                    if wqe.calc_to_peer == 1 {
                        // The engine holds the message until the result is computed.
                        let words = self.calc_message_len(wqe);
                        self.hand_over(cur, n, wqe, wqe.calc_dst, words, false);
                    }
                    // The shape, read once; `CalcReadA` checks the addresses with the spans.
                    let dims = self.shape_dims(wqe);
                    let ext = ShapeExtent::unpack(self.shape_ext.peek(wqe.calc_shape));
                    let last = count.wrapping_sub(1) & M16;
                    n.calc.span_a = last * wqe.calc_sa + ext.a;
                    n.calc.span_b = last * wqe.calc_sb + ext.b;
                    n.calc.span_d = (count << is_loc(wqe) as u64) + ext.d;
                    n.calc.dims = dims;
                    let base = [wqe.calc_a, wqe.calc_b, wqe.calc_dst];
                    n.calc.rd = Walk::start(count, &dims, base);
                    n.calc.wr = Walk::start(count, &dims, base);
                    n.calc.rd_more = count != 0;
                    if count != 0 {
                        n.seq.state = CalcReadA;
                    } else {
                        self.calc_done(cur, n, wqe);
                    }
                }
            }
            Some(Opcode::Pipe) => {
                if wqe.pipe_rq >= qps {
                    Self::complete_with(cur, n, wqe, Status::BadIndex);
                } else if wqe.pipe_blen == 0 || wqe.pipe_nbuf == 0 {
                    Self::complete_with(cur, n, wqe, Status::BadArg);
                } else if wqe.pipe_count == 0 {
                    Self::complete_with(cur, n, wqe, Status::Ok);
                } else {
                    self.pipc0.read(wqe.pipe_rq);
                    self.pipc1.read(wqe.pipe_rq);
                    n.seq.state = PipeCheck;
                }
            }
            // RECV on a send queue, or an unknown opcode.
            _ => Self::complete_with(cur, n, wqe, Status::BadOpcode),
        }
    }

    /// `PipeCheck`: one step of the PIPE at the head of the served SQ, from the receive QP's
    /// pipe context just read (see "Pipes"): take the receive side; or free the chunk the
    /// engine has sent (and complete after the last); or hand the oldest chunk held over.
    fn pipe_check(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) {
        let pc = PipeContext::unpack(self.pipc0.rd_data, self.pipc1.rd_data);
        let me = cur.queue.wq >> 1;
        let rq = wqe.pipe_rq;
        if pc.piped == 0 {
            let end = wqe.pipe_base + cur.pipe.size;
            if end > self.p.dmem_words as u64 {
                return Self::complete_with(cur, n, wqe, Status::BadAddr);
            }
            let start = PipeContext {
                base: wqe.pipe_base,
                blen: wqe.pipe_blen,
                bound: end,
                wr_addr: wqe.pipe_base,
                piped: 1,
                status: Status::Ok.code(),
                owner: me,
                held: 0,
                nbuf: wqe.pipe_nbuf,
                rleft: wqe.pipe_count,
                rd_addr: wqe.pipe_base,
            };
            let [p0, p1] = start.pack();
            self.pipc0.write(rq, p0);
            self.pipc1.write(rq, p1);
        } else if pc.owner != me {
            // Another SQ's PIPE owns the receive side: wait.
        } else if cur.tx.sent && cur.tx.msg.src_qp == me {
            // The chunk has been sent: its buffer is free.
            n.tx.sent = false;
            let next = (pc.rd_addr + pc.blen) & M16;
            let freed = PipeContext {
                held: (pc.held - 1) & 0xFF,
                rd_addr: if next == pc.bound { pc.base } else { next },
                piped: (pc.rleft != 0 || pc.held != 1) as u64,
                ..pc
            };
            self.pipc1.write(rq, freed.pack()[1]);
            if freed.piped == 0 {
                let status = Status::from_code(pc.status).unwrap_or(Status::Ok);
                return Self::complete_with(cur, n, wqe, status);
            }
        } else if !cur.tx.pend && !cur.tx.sent && pc.held != 0 {
            // The oldest chunk: the last one with the words it stored.
            let last = pc.rleft == 0 && pc.held == 1;
            let len = if last { pc.wr_addr } else { pc.blen };
            Self::load_message(cur, n, wqe, (pc.rd_addr, len), true, false);
        }
        self.advance_visit(cur, n);
        n.seq.state = Idle;
    }

    /// The CALC states.
    fn calc(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) {
        let c = &cur.calc;
        let loc = is_loc(wqe);
        match cur.seq.state {
            CalcReadA => {
                self.dmem.read(c.rd.addr[0]);
                // The whole CALC's addresses (the same answer for every element): a bad one
                // fails the WQE before its first write.
                let dmw = self.p.dmem_words as u64;
                let pair = loc as u64;
                let a_end = wqe.calc_a + c.span_a + pair;
                let b_end = wqe.calc_b + c.span_b + pair;
                let dst_end = wqe.calc_dst + c.span_d;
                if a_end >= dmw || b_end >= dmw || dst_end > dmw {
                    // Nothing to send: the engine drops the message it holds for the result.
                    if wqe.calc_to_peer == 1 {
                        n.tx.pend = false;
                    }
                    Self::complete_with(cur, n, wqe, Status::BadAddr);
                } else if !stream_hazard(wqe.calc_a, a_end, short(wqe, wqe.calc_sa), wqe, dst_end)
                    && !stream_hazard(wqe.calc_b, b_end, short(wqe, wqe.calc_sb), wqe, dst_end)
                {
                    n.seq.state = CalcStream;
                } else {
                    n.seq.state = CalcReadB;
                }
            }
            CalcStream => {
                // Reads: a group's words (for a pair, its values, then its indices).
                let g = self.group(wqe);
                if c.rd_more {
                    let word = c.half as u64;
                    self.dmem.read((c.rd.addr[0] + word) & M16);
                    self.dmem.read_b((c.rd.addr[1] + word) & M16);
                    for lane in 1..c.rd.take(g) {
                        let a = (c.rd.addr[0] + lane * wqe.calc_sa) & M16;
                        let b = (c.rd.addr[1] + lane * wqe.calc_sb) & M16;
                        self.dmem.read_lane(lane as usize, a, b);
                    }
                    n.calc.rd_valid = true;
                    n.calc.half = loc && !c.half;
                    if !n.calc.half {
                        n.calc.rd_more = !c.rd.last(g);
                        n.calc.rd = c.rd.step(g, wqe.calc_count, strides(wqe), &c.dims);
                    }
                }
                // Writes: the results the ALU shows (for a pair, its value, then its index).
                let (valid, r, ri) = c.pipe[self.alu_latency - 1];
                let dst = c.wr.addr[2];
                let element_written = if c.wr_index {
                    self.dmem.write((dst + 1) & M16, c.ri_hold);
                    true
                } else if valid {
                    self.dmem.write(dst, r[0]);
                    for lane in 1..c.wr.take(g) {
                        self.dmem
                            .write_lane(lane as usize, (dst + lane) & M16, r[lane as usize]);
                    }
                    n.calc.wr_index = loc;
                    n.calc.ri_hold = ri;
                    !loc
                } else {
                    false
                };
                if element_written {
                    n.calc.wr = c.wr.step(g, wqe.calc_count, strides(wqe), &c.dims);
                    if c.wr.last(g) {
                        self.calc_done(cur, n, wqe);
                    }
                }
            }
            CalcReadB => {
                n.calc.a = self.dmem.rd_data;
                self.dmem.read(c.rd.addr[1]);
                n.seq.state = if loc { CalcReadAIndex } else { CalcOperands };
            }
            CalcReadAIndex => {
                n.calc.b = self.dmem.rd_data;
                self.dmem.read((c.rd.addr[0] + 1) & M16);
                n.seq.state = CalcReadBIndex;
            }
            CalcReadBIndex => {
                n.calc.a_index = self.dmem.rd_data;
                self.dmem.read((c.rd.addr[1] + 1) & M16);
                n.seq.state = CalcOperands;
            }
            CalcOperands => {
                if loc {
                    n.calc.b_index = self.dmem.rd_data;
                } else {
                    n.calc.b = self.dmem.rd_data;
                    n.calc.a_index = 0;
                    n.calc.b_index = 0;
                }
                n.seq.state = CalcAlu;
            }
            CalcAlu => {
                n.calc.wait = alu_wait(&self.p);
                n.seq.state = CalcWait;
            }
            CalcWait if c.wait == 0 => n.seq.state = CalcWrite,
            CalcWait => n.calc.wait = c.wait - 1,
            CalcWrite => {
                let (_, result, _) = c.pipe[self.alu_latency - 1];
                self.dmem.write(c.rd.addr[2], result[0]);
                if loc {
                    n.seq.state = CalcWriteIndex;
                } else {
                    self.calc_next(cur, n, wqe);
                }
            }
            _ => {
                // CalcWriteIndex: the operands have not changed since `CalcAlu`.
                let (_, _, index) = c.pipe[self.alu_latency - 1];
                self.dmem.write((c.rd.addr[2] + 1) & M16, index);
                self.calc_next(cur, n, wqe);
            }
        }
    }

    /// After one CALC element: the next one, or the send of the result, or the completion.
    fn calc_next(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) {
        let c = &cur.calc;
        n.calc.rd = c.rd.step(1, wqe.calc_count, strides(wqe), &c.dims);
        if c.rd.last(1) {
            self.calc_done(cur, n, wqe);
        } else {
            n.seq.state = CalcReadA;
        }
    }

    /// A CALC's shape dimensions (distributed RAM, read now), counts 0 read as 1.
    fn shape_dims(&self, wqe: &WqeWords) -> [ShapeDim; 2] {
        [&self.shape_dim1, &self.shape_dim2].map(|m| {
            let mut d = ShapeDim::unpack(m.peek(wqe.calc_shape));
            d.count = d.count.max(1);
            d
        })
    }

    /// The words a CALC sends to a peer: its result's span (0 for `count = 0`).
    fn calc_message_len(&self, wqe: &WqeWords) -> u64 {
        if wqe.calc_count == 0 {
            return 0;
        }
        let ext = ShapeExtent::unpack(self.shape_ext.peek(wqe.calc_shape));
        ((wqe.calc_count << is_loc(wqe) as u64) + ext.d) & M16
    }

    /// The running CALC's lane group ([`lane_group`]).
    fn group(&self, wqe: &WqeWords) -> u64 {
        lane_group(self.p.lanes, wqe)
    }

    /// The CALC loop is over: the engine may send the result to the peer, or the WQE completes.
    fn calc_done(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) {
        if wqe.calc_to_peer == 1 {
            n.tx.go = true;
            self.sent_by(cur, n);
        } else {
            Self::complete_with(cur, n, wqe, Status::Ok);
        }
    }

    /// Whether the transmit engine can take a data message; if not, the visit is over.
    fn engine_free(&self, cur: &Regs, n: &mut Regs) -> bool {
        let free = !cur.tx.pend && !cur.tx.sent;
        if !free {
            self.advance_visit(cur, n);
            n.seq.state = Idle;
        }
        free
    }

    /// Hands the transmit engine a data message of `len` words from `addr`, with the peer
    /// header of the current WQE (SEND and CALC share it); `go`: it may start at once (a
    /// CALC's waits for its result).
    fn hand_over(
        &mut self,
        cur: &Regs,
        n: &mut Regs,
        wqe: &WqeWords,
        addr: u64,
        len: u64,
        go: bool,
    ) {
        Self::load_message(cur, n, wqe, (addr, len), go, cur.queue.rc.rc == 1);
        if go {
            self.sent_by(cur, n);
        }
    }

    /// The transmit engine takes a data message of `len` words from `addr` with the current
    /// WQE's peer header and tag, asking for an answer if `ack`.
    fn load_message(
        cur: &Regs,
        n: &mut Regs,
        wqe: &WqeWords,
        (addr, len): (u64, u64),
        go: bool,
        ack: bool,
    ) {
        let t = &mut n.tx;
        t.pend = true;
        t.go = go;
        t.msg = TxHeader {
            kind: false,
            dst: wqe.peer_node,
            src_qp: cur.queue.wq >> 1,
            qp: wqe.peer_qp,
            cnt_en: wqe.peer_cnt_en == 1,
            cnt: wqe.peer_cnt,
            tag: cur.queue.ctx.ci,
            ack,
        };
        t.left = len;
        t.addr = addr;
    }

    /// The message of the SQ being served may go: a reliable QP's SQ awaits its answer from
    /// now on (it cannot come before the last beat), any other's completes at a visit after
    /// the last beat. The visit is over.
    fn sent_by(&mut self, cur: &Regs, n: &mut Regs) {
        let rc = cur.queue.rc;
        if rc.rc == 1 {
            let left = if rc.state == RC_RETRY {
                rc.left
            } else {
                rc.retry
            };
            let awaiting = RcContext {
                state: RC_AWAIT,
                left,
                ..rc
            };
            self.rcc.write(cur.queue.wq, awaiting.pack()[0]);
        }
        self.advance_visit(cur, n);
        n.seq.state = Idle;
    }

    /// The transmit engine, every cycle beside the sequencer: shows the pending answer, else
    /// the handed-over message once it may go, one beat at a time, each held until
    /// `tx_ready`. It reads data memory through its own port.
    fn transmit(&mut self, i: &NicIn, cur: &Regs, n: &mut Regs) {
        let t = &cur.tx;
        match t.phase {
            TxPhase::Idle => {
                if t.ans {
                    // The answer: one empty beat.
                    let o = &mut n.tx;
                    o.ans = false;
                    o.hdr = t.answer;
                    o.valid = true;
                    o.empty = true;
                    o.last = true;
                    o.data = t.reason;
                    o.phase = TxPhase::Hold;
                } else if t.pend && t.go && !n.tx.ans {
                    // (Not in the cycle an answer is posted: that one goes first, so a data
                    // message always starts with the answer register empty.)
                    let o = &mut n.tx;
                    o.hdr = t.msg;
                    if t.left == 0 {
                        // The empty message: one beat without data.
                        o.valid = true;
                        o.empty = true;
                        o.last = true;
                        o.data = 0;
                        o.phase = TxPhase::Hold;
                    } else {
                        self.dmem.read_tx(t.addr);
                        o.phase = TxPhase::Beat;
                    }
                }
            }
            TxPhase::Beat => {
                let o = &mut n.tx;
                o.valid = true;
                o.empty = false;
                o.last = t.left == 1;
                o.data = self.dmem.tx_data;
                o.phase = TxPhase::Hold;
            }
            TxPhase::Hold => {
                if i.tx_ready {
                    let o = &mut n.tx;
                    o.valid = false;
                    if !t.last {
                        o.left = (t.left - 1) & M16;
                        o.addr = (t.addr + 1) & M16;
                        self.dmem.read_tx(o.addr);
                        o.phase = TxPhase::Beat;
                    } else {
                        o.phase = TxPhase::Idle;
                        if !t.hdr.kind {
                            o.pend = false;
                            o.sent = !t.hdr.ack;
                        }
                    }
                }
            }
        }
    }

    /// A background slot takes the message on `rx_*`: latches its header and decides.
    fn receive_start(&mut self, i: &NicIn, n: &mut Regs) -> StatEvent {
        let r = &mut n.rx;
        r.src = i.rx_src & 0xFF;
        r.src_qp = i.rx_src_qp & 0xFF;
        r.qp = i.rx_qp & 0xFF;
        r.cnt_en = i.rx_cnt_en;
        r.cnt = i.rx_cnt & 0xFF;
        r.tag = i.rx_tag & M16;
        r.ack = i.rx_ack;
        r.reason = Status::Ok.code();
        r.nak = false;
        r.overflow = false;
        r.pipe = false;
        r.chan = false;
        if r.qp < self.p.qps as u64 {
            n.seq.state = if i.rx_kind { NakContext } else { RxContext };
            return None;
        }
        n.seq.state = RxDrop;
        if i.rx_kind {
            // A NAK for a QP that does not exist: drop the notification.
            return Some(Stat::CqOverrun);
        }
        r.nak = true;
        r.reason = Status::BadIndex.code();
        None
    }

    /// Refuses the message: it is dropped and a NAK with `reason` sent.
    fn refuse(n: &mut Regs, reason: Status) {
        n.rx.nak = true;
        n.rx.reason = reason.code();
        n.seq.state = RxDrop;
    }

    /// Posts the NAK (or ACK) of the message being received to the transmit engine's answer
    /// register: one empty beat to its sender, naming its QP and WQE, with data `reason`. Then
    /// the pending completion if there is one (`pending`), else the next slot; if the
    /// register is still full, `AnsWait` posts it once it is free.
    fn post_answer(r: &Receive, pending: bool, n: &mut Regs) {
        let t = &mut n.tx;
        t.ans = true;
        t.answer = TxHeader {
            kind: true,
            dst: r.src,
            src_qp: r.qp,
            qp: r.src_qp,
            cnt_en: false,
            cnt: 0,
            tag: r.tag,
            ack: false,
        };
        t.reason = r.reason;
        n.seq.state = if pending { Complete } else { Idle };
    }

    /// The answer of the message being received: posted now if the answer register is free,
    /// else from `AnsWait`.
    fn answer(cur: &Regs, pending: bool, n: &mut Regs) {
        if cur.tx.ans {
            n.seq.state = AnsWait;
        } else {
            Self::post_answer(&cur.rx, pending, n);
        }
    }

    /// The receive states (`NakContext` and `NakCq` for an arriving NAK).
    fn receive(&mut self, i: &NicIn, cur: &Regs, n: &mut Regs, wqe: &WqeWords) -> StatEvent {
        let r = &cur.rx;
        let (cnts, dmw) = (self.p.counters as u64, self.p.dmem_words as u64);
        match cur.seq.state {
            RxContext => {
                let pc = PipeContext::unpack(self.pipc0.rd_data, self.pipc1.rd_data);
                n.pipe.ctx = pc;
                let runnable = self.latch_context(cur, n);
                let ch = RxChannel::unpack(self.chan.rd_data);
                let channel = r.cnt_en && r.cnt < cnts && ch.armed == 1 && ch.qp == r.qp;
                if pc.piped == 1 && pc.rleft != 0 && pc.held < pc.nbuf {
                    // The pipe takes it into its next buffer.
                    n.rx.pipe = true;
                    n.rx.stored = 0;
                    n.rx.addr = pc.wr_addr;
                    n.rx.cap = pc.blen;
                    n.seq.state = RxData;
                } else if channel && pc.piped == 0 {
                    // The counter's channel takes it, once.
                    n.rx.chan = true;
                    n.rx.stored = 0;
                    n.rx.addr = ch.addr;
                    n.rx.cap = ch.len;
                    n.seq.state = RxData;
                    let disarmed = RxChannel { armed: 0, ..ch };
                    self.chan.write(r.cnt, disarmed.pack()[0]);
                } else if runnable && pc.piped == 0 {
                    n.seq.state = RxWqe;
                } else if r.ack && n.queue.rc.rc == 1 {
                    // A reliable QP makes the sender retry.
                    Self::refuse(n, Status::RnrNak);
                } else {
                    Self::refuse(n, Status::NotReady);
                }
            }
            RxWqe => {
                self.latch_wqe(n);
                n.seq.state = RxCheck;
            }
            RxCheck => {
                if cur.queue.full {
                    Self::refuse(n, Status::NotReady);
                } else if wqe.opcode != Opcode::Recv.code() || reserved(wqe) {
                    Self::complete_with(cur, n, wqe, Status::BadOpcode);
                    n.cpl.pending = true;
                    Self::refuse(n, Status::BadOpcode);
                } else if wqe.buf_addr + wqe.buf_len > dmw {
                    Self::complete_with(cur, n, wqe, Status::BadAddr);
                    n.cpl.pending = true;
                    Self::refuse(n, Status::BadAddr);
                } else {
                    n.rx.stored = 0;
                    n.rx.addr = wqe.buf_addr;
                    n.rx.cap = wqe.buf_len;
                    n.rx.overflow = false;
                    n.seq.state = RxData;
                }
            }
            RxData => {
                if i.rx_valid {
                    let store = !i.rx_empty && r.stored < r.cap;
                    let overflow = r.overflow || (!i.rx_empty && r.stored >= r.cap);
                    if store {
                        self.dmem.write(r.addr, i.rx_data);
                        n.rx.stored = (r.stored + 1) & M16;
                        n.rx.addr = (r.addr + 1) & M16;
                    }
                    n.rx.overflow = overflow;
                    if i.rx_last && r.pipe {
                        self.chunk(cur, n);
                    } else if i.rx_last && r.chan {
                        // A channel's message: its counter (in range), no completion.
                        self.cnt.read(r.cnt);
                        n.seq.state = RxCounter;
                        if overflow {
                            return Some(Stat::ChanOverrun);
                        }
                    } else if i.rx_last {
                        let counter_ok = r.cnt < cnts;
                        let status = if r.cnt_en && !counter_ok {
                            Status::BadIndex
                        } else if overflow {
                            Status::LenErr
                        } else {
                            Status::Ok
                        };
                        Self::complete_with(cur, n, wqe, status);
                        n.cpl.cqe.len = n.rx.stored;
                        if r.cnt_en && counter_ok {
                            self.cnt.read(r.cnt);
                            n.seq.state = RxCounter;
                        } else if r.ack {
                            // The ACK, then the completion.
                            n.cpl.pending = true;
                            Self::answer(cur, true, n);
                        }
                    }
                }
            }
            RxCounter => {
                self.cnt.write(r.cnt, (self.cnt.rd_data + 1) & M32);
                let no_cqe = r.pipe || r.chan;
                n.seq.state = if no_cqe { Idle } else { Complete };
                if r.ack {
                    n.cpl.pending = !no_cqe;
                    Self::answer(cur, !no_cqe, n);
                }
            }
            RxDrop => {
                if i.rx_valid && i.rx_last {
                    if r.nak {
                        // Tell the sender: a NAK naming its QP and WQE, with the reason.
                        Self::answer(cur, cur.cpl.pending, n);
                        return Some(Stat::RxDiscard);
                    }
                    n.seq.state = if cur.cpl.pending { Complete } else { Idle };
                }
            }
            NakContext => {
                let c = WqContext::unpack(self.wqc.rd_data);
                let rc = RcContext::unpack(self.rcc.rd_data);
                n.queue.ctx.cq = c.cq;
                n.queue.rc = rc;
                self.cqp.read(n.queue.ctx.cq);
                let reason = i.rx_data & 15;
                if rc.state == RC_AWAIT && r.tag == c.ci {
                    // The answer the SQ's head awaits.
                    let answered = |status: Status| RcContext {
                        state: RC_ANSWERED,
                        status: status.code(),
                        ..rc
                    };
                    let retry = |left: u64| RcContext {
                        state: RC_RETRY,
                        left,
                        at: (cur.seq.now + rc.delay) & M32,
                        ..rc
                    };
                    let next = if reason == Status::Ok.code() {
                        answered(Status::Ok)
                    } else if reason != Status::RnrNak.code() {
                        answered(Status::RemoteDiscard)
                    } else if rc.retry == 7 {
                        retry(rc.left)
                    } else if rc.left != 0 {
                        retry(rc.left - 1)
                    } else {
                        answered(Status::RnrRetryExc)
                    };
                    self.rcc.write(cur.queue.wq, next.pack()[0]);
                    n.seq.state = RxDrop;
                    if next.status == Status::RemoteDiscard.code() && next.state == RC_ANSWERED {
                        return Some(Stat::NakReceived);
                    }
                } else if reason == Status::Ok.code() && rc.rc == 1 {
                    n.seq.state = RxDrop;
                    return Some(Stat::StrayAck);
                } else {
                    n.seq.state = NakCq;
                }
            }
            _ => {
                // NakCq: the notification, unless the CQ is full.
                let full = self.latch_counts(n);
                n.rx.nak = false;
                n.seq.state = RxDrop;
                if full {
                    return Some(Stat::CqOverrun);
                }
                n.cpl.cqe = CqeWord {
                    status: Status::RemoteDiscard.code(),
                    opcode: Opcode::Send.code(),
                    qp: r.qp,
                    is_recv: 0,
                    index: r.tag,
                    len: 0,
                };
                n.cpl.write_cqe = true;
                n.cpl.retire = false;
                n.cpl.pending = true;
                return Some(Stat::NakReceived);
            }
        }
        None
    }

    /// The last beat of a chunk has arrived (`n.rx` holds the words stored): the pipe context
    /// takes it (see "Pipes"), then its counter and its ACK; no completion.
    fn chunk(&mut self, cur: &Regs, n: &mut Regs) {
        let r = &cur.rx;
        let pc = cur.pipe.ctx;
        let counter_ok = r.cnt < self.p.counters as u64;
        let last = pc.rleft == 1;
        let status = if r.cnt_en && !counter_ok {
            Status::BadIndex
        } else if n.rx.overflow || (!last && n.rx.stored < r.cap) {
            Status::LenErr
        } else {
            Status::Ok
        };
        let next = (pc.wr_addr + pc.blen) & M16;
        let taken = PipeContext {
            wr_addr: if last {
                n.rx.stored
            } else if next == pc.bound {
                pc.base
            } else {
                next
            },
            status: if pc.status == 0 {
                status.code()
            } else {
                pc.status
            },
            held: (pc.held + 1) & 0xFF,
            rleft: (pc.rleft - 1) & M16,
            ..pc
        };
        let [p0, p1] = taken.pack();
        self.pipc0.write(r.qp, p0);
        self.pipc1.write(r.qp, p1);
        if r.cnt_en && counter_ok {
            self.cnt.read(r.cnt);
            n.seq.state = RxCounter;
        } else if r.ack {
            Self::answer(cur, false, n);
        } else {
            n.seq.state = Idle;
        }
    }

    /// The host command states.
    fn host(&mut self, cur: &Regs, n: &mut Regs, wqe: &WqeWords) -> StatEvent {
        let p = self.p;
        let (qps, cqs, cnts, dmw) = (
            p.qps as u64,
            p.cqs as u64,
            p.counters as u64,
            p.dmem_words as u64,
        );
        let h = &cur.host;
        let arg = h.arg;
        let state = cur.seq.state;
        let respond = |n: &mut Regs, s: HostStatus, data: u64| {
            n.host.rsp_valid = true;
            n.host.rsp_status = s.code();
            n.host.rsp_data = data;
            n.seq.state = Background;
        };
        let bad_index = |n: &mut Regs| {
            respond(n, HostStatus::BadIndex, 0);
            Some(Stat::HostBadIndex)
        };
        let Some(op) = HostOp::from_code(h.op) else {
            respond(n, HostStatus::BadOp, 0);
            return Some(Stat::HostBadOp);
        };
        // The work queue a post or CONFIG_QP names (CONFIG_QP: the SQ, then the RQ).
        let wq = 2 * arg
            + (op == HostOp::PostRq || (op == HostOp::ConfigQp && state == HostFinish)) as u64;
        // A mode 2 enable naming a QP in range: its target's context is read first
        // (`HostDecode`), latched (`HostAccess`, which reads the posting queue's), and the post
        // is decided in `HostFinish`.
        let en_post = is_enable(wqe) && wqe.en_mode == 2 && wqe.en_qp < qps;
        let en_target = enable_target(wqe);
        match op {
            HostOp::Nop => respond(n, HostStatus::Ok, 0),
            HostOp::PostSq | HostOp::PostRq if state == HostDecode => {
                if arg >= qps {
                    return bad_index(n);
                }
                self.wqc.read(if en_post { en_target } else { wq });
                self.cqw.read(wqe.wait_index);
                self.wqen.read(en_target);
                n.seq.state = HostAccess;
            }
            HostOp::PostSq | HostOp::PostRq if state == HostAccess && en_post => {
                let t = WqContext::unpack(self.wqc.rd_data);
                n.host.en_pi = t.pi;
                n.host.en_managed = t.managed == 1;
                self.wqc.read(wq);
                self.wqen.read(en_target);
                n.seq.state = HostFinish;
            }
            HostOp::PostSq | HostOp::PostRq => {
                let c = WqContext::unpack(self.wqc.rd_data);
                if c.pi.wrapping_sub(c.ci) & M16 == WQ_DEPTH as u64 {
                    respond(n, HostStatus::Full, 0);
                    return Some(Stat::WqFull);
                }
                // A plain QP takes no cross-channel work.
                if c.plain == 1 && Opcode::is_cross_channel(wqe.opcode) {
                    respond(n, HostStatus::Refused, 0);
                    return Some(Stat::HostRefused);
                }
                let (mut w0, mut w1) = (h.w0, h.w1);
                if en_post {
                    // Counted from the target's enable head (see the module docs of `super`):
                    // refused for an unmanaged target or beyond what it has posted; posted as
                    // mode 3 with the absolute index.
                    let head = WqEnable::unpack(self.wqen.rd_data);
                    let (index, count) = if wqe.en_value != 0 {
                        let index = (head.index + wqe.en_value) & M16;
                        (index, head.count.max(wqe.en_value))
                    } else {
                        (h.en_pi, h.en_pi.wrapping_sub(head.index) & M16)
                    };
                    if !h.en_managed || !sx16_nonneg(h.en_pi.wrapping_sub(index)) {
                        respond(n, HostStatus::Refused, 0);
                        return Some(Stat::HostRefused);
                    }
                    let now = if wqe.en_more == 1 {
                        WqEnable { count, ..head }
                    } else {
                        WqEnable {
                            index: (head.index + count) & M16,
                            count: 0,
                        }
                    };
                    self.wqen.write(en_target, now.pack()[0]);
                    w0 = EN_MODE.put(w0, 3);
                    w1 = EN_VALUE.put(w1, index);
                }
                // A WAIT on a CQ: the count becomes an absolute target (see the module docs of
                // `super`), stored in the posted WQE in place of the count; the last WAIT of a
                // group moves the CQ's wait index by the group's largest count.
                let cq_wait =
                    wqe.opcode == Opcode::Wait.code() && wqe.wait_kind == 0 && wqe.wait_index < cqs;
                if cq_wait {
                    let was = CqWait::unpack(self.cqw.rd_data);
                    let target = (was.index + wqe.wait_count) & M32;
                    let count = was.count.max(wqe.wait_count);
                    let now = if wqe.wait_more == 1 {
                        CqWait { count, ..was }
                    } else {
                        CqWait {
                            index: (was.index + count) & M32,
                            count: 0,
                        }
                    };
                    self.cqw.write(wqe.wait_index, now.pack()[0]);
                    w1 = WAIT_COUNT.put(w1, target);
                }
                let slot = wq * WQ_DEPTH as u64 + (c.pi & (WQ_DEPTH as u64 - 1));
                self.wqe0.write(slot, w0);
                self.wqe1.write(slot, w1);
                let posted = WqContext {
                    pi: (c.pi + 1) & M16,
                    ..c
                };
                self.wqc.write(wq, posted.pack()[0]);
                respond(n, HostStatus::Ok, c.pi);
            }
            HostOp::PollCq if state == HostDecode => {
                if arg >= cqs {
                    return bad_index(n);
                }
                self.cqp.read(arg);
                n.seq.state = HostAccess;
            }
            HostOp::PollCq if state == HostAccess => {
                let q = CqContext::unpack(self.cqp.rd_data);
                if q.produced == q.consumed {
                    respond(n, HostStatus::Empty, 0);
                } else {
                    self.cqe
                        .read(arg * CQ_DEPTH as u64 + (q.consumed & (CQ_DEPTH as u64 - 1)));
                    let popped = CqContext {
                        consumed: (q.consumed + 1) & M32,
                        ..q
                    };
                    self.cqp.write(arg, popped.pack()[0]);
                    n.seq.state = HostFinish;
                }
            }
            HostOp::PollCq => respond(n, HostStatus::Ok, self.cqe.rd_data),
            HostOp::WriteMem => {
                if arg >= dmw {
                    return bad_index(n);
                }
                self.dmem.write(arg, h.w0);
                respond(n, HostStatus::Ok, 0);
            }
            HostOp::ReadMem if state == HostDecode => {
                if arg >= dmw {
                    return bad_index(n);
                }
                self.dmem.read(arg);
                n.seq.state = HostAccess;
            }
            HostOp::ReadMem => respond(n, HostStatus::Ok, self.dmem.rd_data),
            HostOp::WriteCnt => {
                if arg >= cnts {
                    return bad_index(n);
                }
                self.cnt.write(arg, h.w0 & M32);
                respond(n, HostStatus::Ok, 0);
            }
            HostOp::ReadCnt if state == HostDecode => {
                if arg >= cnts {
                    return bad_index(n);
                }
                self.cnt.read(arg);
                n.seq.state = HostAccess;
            }
            HostOp::ReadCnt => respond(n, HostStatus::Ok, self.cnt.rd_data),
            HostOp::ConfigQp => {
                let cfg = QpConfig::unpack(h.w0);
                if state == HostDecode {
                    if arg >= qps || cfg.sq_cq >= cqs || cfg.rq_cq >= cqs {
                        return bad_index(n);
                    }
                    self.wqc.read(wq);
                    n.seq.state = HostAccess;
                    return None;
                }
                // HostAccess writes the SQ's context and reads the RQ's; HostFinish writes it.
                let (cq, managed) = if state == HostAccess {
                    (cfg.sq_cq, cfg.sq_managed)
                } else {
                    (cfg.rq_cq, cfg.rq_managed)
                };
                let c = WqContext::unpack(self.wqc.rd_data);
                let configured = WqContext {
                    ei: c.ci,
                    managed,
                    plain: cfg.plain,
                    cq,
                    ..c
                };
                self.wqc.write(wq, configured.pack()[0]);
                // The QP's reliability settings; nothing awaited.
                let rc = RcContext {
                    rc: cfg.rc,
                    retry: cfg.rnr_retry,
                    delay: cfg.rnr_delay,
                    ..Default::default()
                };
                self.rcc.write(wq, rc.pack()[0]);
                if managed == 1 {
                    // The enable head starts over at the consumer index, as `ei` does.
                    let head = WqEnable {
                        index: c.ci,
                        count: 0,
                    };
                    self.wqen.write(wq, head.pack()[0]);
                }
                if state == HostAccess {
                    self.wqc.read(wq + 1);
                    n.seq.state = HostFinish;
                } else {
                    respond(n, HostStatus::Ok, 0);
                }
            }
            HostOp::ReadStat => {
                if arg >= STATS as u64 {
                    return bad_index(n);
                }
                respond(n, HostStatus::Ok, cur.stats[arg as usize]);
            }
            HostOp::SetChannel => {
                let ch = RxChannel::unpack(h.w0);
                if arg >= cnts || (ch.armed == 1 && (ch.qp >= qps || ch.addr + ch.len > dmw)) {
                    return bad_index(n);
                }
                self.chan.write(arg, ch.pack()[0]);
                respond(n, HostStatus::Ok, 0);
            }
            HostOp::SetShape => {
                if arg == 0 || arg >= SHAPES as u64 {
                    return bad_index(n);
                }
                let (d1, d2) = (ShapeDim::unpack(h.w0), ShapeDim::unpack(h.w1));
                self.shape_dim1.write(arg, h.w0);
                self.shape_dim2.write(arg, h.w1);
                self.shape_ext
                    .write(arg, super::shape_extent(&d1, &d2).pack()[0]);
                respond(n, HostStatus::Ok, 0);
            }
        }
        None
    }
}

/// The field a posted CQ WAIT's target replaces.
const WAIT_COUNT: LayoutField = field(WqeWords::FIELDS, "wait_count");
/// The fields a posted mode 2 enable's mode and absolute index replace.
const EN_MODE: LayoutField = field(WqeWords::FIELDS, "en_mode");
const EN_VALUE: LayoutField = field(WqeWords::FIELDS, "en_value");

/// The field called `name` (a compile-time error when there is none).
const fn field(fields: &[LayoutField], name: &str) -> LayoutField {
    let mut i = 0;
    while !crate::kit::layout::same(fields[i].name, name) {
        i += 1;
    }
    fields[i]
}

/// The WQE is a SEND_EN or RECV_EN.
fn is_enable(wqe: &WqeWords) -> bool {
    wqe.opcode == Opcode::SendEn.code() || wqe.opcode == Opcode::RecvEn.code()
}

/// The work queue a SEND_EN / RECV_EN names.
fn enable_target(wqe: &WqeWords) -> u64 {
    2 * wqe.en_qp + (wqe.opcode == Opcode::RecvEn.code()) as u64
}

/// A reserved bit of the WQE is set (`rsvd2` is a CALC's `calc_shape`).
fn reserved(wqe: &WqeWords) -> bool {
    wqe.rsvd0 != 0 || wqe.rsvd1 != 0 || (wqe.rsvd2 != 0 && wqe.opcode != Opcode::Calc.code())
}

/// The WQE's CALC operation takes (value, index) pairs.
fn is_loc(wqe: &WqeWords) -> bool {
    AluOp::from_code(wqe.calc_op).is_some_and(AluOp::is_loc)
}

/// The ALU's combinational function on the CALC operand registers, with the operation and type
/// of the current WQE (its reserved operations give zero; CALC never reaches it with one).
/// Whether streaming a CALC could read a word of argument `base ..= end` (stride `stride`)
/// after an earlier element wrote it as part of the result `dst .. dst_end`, elements being
/// (value, index) pairs if `pair`; see "CALC". Element `j` writes `dst + j` (pairs:
/// `dst + 2j + d`, `d` in 0..2) and element `i` reads `base + i × stride` (pairs: `+ e`): with
/// `dst <= base` and a stride of at least 1 (pairs: 2) the two meet only for `j >= i`, which
/// the element-by-element order has too.
///
/// With a shape (`calc_shape ≠ 0`) the walk of an argument may fall behind the result's
/// (a row repeated, a stride 0), so `short` is set and any overlap is a hazard.
fn stream_hazard(base: u64, end: u64, short: bool, wqe: &WqeWords, dst_end: u64) -> bool {
    let dst = wqe.calc_dst;
    (dst > base && dst <= end) || (short && dst <= base && base < dst_end)
}

/// An argument of stride `stride` may be passed by the result written in place: its stride is
/// under an element's words, or the CALC has a shape.
fn short(wqe: &WqeWords, stride: u64) -> bool {
    stride <= is_loc(wqe) as u64 || wqe.calc_shape != 0
}

/// A CALC's lane group: `lanes` elements read, computed and written a cycle when it streams
/// (see "Lanes"), if it is not MAXLOC / MINLOC and the strides of `a` and `b` are odd or 0
/// (`lanes` consecutive elements then lie in `lanes` different banks, or all in one word);
/// else 1.
pub fn lane_group(lanes: usize, wqe: &WqeWords) -> u64 {
    let spread = |s: u64| s == 0 || s & 1 == 1;
    if lanes > 1 && !is_loc(wqe) && spread(wqe.calc_sa) && spread(wqe.calc_sb) {
        lanes as u64
    } else {
        1
    }
}

/// The inner strides of `a`, `b` and the result (an element's words).
fn strides(wqe: &WqeWords) -> [u64; 3] {
    [wqe.calc_sa, wqe.calc_sb, 1 + is_loc(wqe) as u64]
}

/// `valid`: the operands enter the ALU. Lanes 1 .. `lanes` are computed only then (their
/// results are written only from a lane group's operands) and have no index words (a CALC
/// in lane groups is never MAXLOC / MINLOC).
fn alu_eval(wqe: &WqeWords, c: &Calc, valid: bool, lanes: usize) -> (bool, [u64; MAX_LANES], u64) {
    let lane = |a, ai, b, bi| match (
        AluOp::from_code(wqe.calc_op),
        Dtype::from_code(wqe.calc_fp << 2 | wqe.calc_dtype),
    ) {
        (Some(op), Some(dt)) => golden(op, dt, a, ai, b, bi).unwrap_or((0, 0)),
        _ => (0, 0),
    };
    let (r, ri) = lane(c.a, c.a_index, c.b, c.b_index);
    let mut rs = [r; MAX_LANES];
    if valid {
        for (r, &(a, b)) in rs[1..lanes.min(MAX_LANES)].iter_mut().zip(&c.lane_ops) {
            *r = lane(a, 0, b, 0).0;
        }
    }
    (valid, rs, ri)
}

impl crate::kit::cycle::CycleSim for NicModel {
    type In = NicIn;
    type Out = NicOut;
    fn step(&mut self, i: &NicIn) -> NicOut {
        NicModel::step(self, i)
    }
    fn peek(&mut self) -> NicOut {
        self.outputs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_count_field_is_the_one_a_cq_wait_target_replaces() {
        assert_eq!(WAIT_COUNT.name, "wait_count");
        assert_eq!(
            (WAIT_COUNT.word, WAIT_COUNT.lsb, WAIT_COUNT.width),
            (1, 32, 32)
        );
    }

    #[test]
    fn state_encodings_are_positions() {
        assert_eq!(SeqState::Init.code(), 0);
        assert_eq!(SeqState::Idle.code(), 1);
        assert_eq!(SeqState::AnsWait.code(), 11);
        assert_eq!(SeqState::RxContext.code(), 12);
        assert_eq!(SeqState::CalcWait.code(), 27);
        assert_eq!(SeqState::SqWqe.code(), 28);
        assert_eq!(SeqState::RxCheck.code(), 29);
        assert_eq!(SeqState::CalcStream.code(), 30);
        assert_eq!(SeqState::PipeCheck.code(), 31);
        assert_eq!(SeqState::ALL.len(), 32);
        assert_eq!(SeqState::BITS, 5);
        assert_eq!(TxPhase::Hold.code(), 2);
        assert_eq!(TxPhase::BITS, 2);
    }
}
