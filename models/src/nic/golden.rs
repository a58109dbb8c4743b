//! # Golden reference of the NIC cross-channel controller
//!
//! Untimed and written for clarity: plain vectors for the queues and memories, one method per
//! thing that can happen to the NIC, each applied atomically and following the rules of the
//! [module docs](super) one for one. It is the reference the cycle model ([`super::model`]) and,
//! through it, the RTL are checked against, so it shares no code with them beyond the types of
//! [`super`] and the ALU golden ([`crate::reduce_alu::golden`]).
//!
//! ## API
//!
//! - [`NicGolden::new`]: the NIC right after reset (and after its context sweep).
//! - [`NicGolden::host`]: one host command, atomically: `(HostStatus code, data)`.
//! - [`NicGolden::deliver`]: one whole arriving [`Message`] (data or NAK), atomically. A
//!   discarded message puts its NAK into the outbox.
//! - [`NicGolden::run`]: runs the send queues until none can make progress.
//! - [`NicGolden::take_sent`]: the messages sent since the last call, in the order sent.
//! - Read access for tests: [`NicGolden::mem`], [`NicGolden::counter`], [`NicGolden::stat`],
//!   [`NicGolden::cq_counts`], [`NicGolden::wq_indices`].
//!
//! Inputs wider than their ports are cut to the port width (`host_op` 4 bits, `host_arg` 16,
//! `rx_src` / `rx_src_qp` / `rx_qp` / `rx_cnt` 8, `rx_tag` 16) as the RTL's ports would.
//!
//! ## What it models
//!
//! Every architectural effect: WQE posting (including the conversion of a CQ WAIT's count into
//! an absolute target through the CQ's `wait_index`, and of a mode 2 enable's count into an
//! absolute index through its queue's enable head), the managed / enable indices, in-order
//! completion per queue, CQE contents and the rule "signaled or failed", CQ capacity (a send
//! queue does not start a WQE while its CQ is full; a message whose RQ's CQ is full is
//! discarded), the CALC arithmetic through the ALU golden, messages sent (SEND, CALC to a peer,
//! NAKs, ACKs), reliable QPs (answers awaited, RNR NAKs and the retries they cause, counted
//! down), pipes (the receive side a PIPE owns, its buffers and chunks), counters, data memory
//! and the statistics counters.
//!
//! ## What it does not model
//!
//! - **Time.** There are no cycles, beats or handshakes. A host command, an arriving message and
//!   a WQE each happen in one indivisible step; the transmit side always accepts a message.
//! - **When work runs.** The send queues only advance inside [`NicGolden::run`], which runs them
//!   to quiescence; the hardware runs them all the time. A scenario whose outcome depends on
//!   how far the queues got between two host commands or deliveries is racy at cycle level and
//!   cannot be compared with the golden.
//! - **Interleaving between queues.** `run` visits the send queues round robin, one WQE per
//!   queue per round, and repeats rounds until one makes no progress. Where queues share a CQ,
//!   the order of their CQEs *between* queues (and the order of messages between source QPs)
//!   is therefore one possible order, not the hardware's; the order *within* a queue is exact.
//! - **`CqStall` counts.** The specification counts one stall per attempt, which depends on
//!   how often the hardware looks at the stalled queue. The golden counts one per WQE that was
//!   found stalled (a queue's head WQE blocked by a full CQ, counted once until it starts). The
//!   value of this statistic is *not* compared with the golden; every other statistic is.
//! - Reset timing and the clearing of the context memories (the golden starts cleared).
//!
//! ## Readings of the specification
//!
//! Where the [module docs](super) leave a choice, the golden takes these readings:
//!
//! 1. A CQ WAIT (`mode` 0) is converted when it is **posted to either queue** (the spec says
//!    "when the WAIT is posted"): if its CQ exists and the post is accepted, the WQE stores
//!    `wait_index + count` in `w1[63:32]` and the CQ's `wait_count` and `wait_index` move as
//!    the spec says (`more` is `w0[9]`). A refused post (`FULL`, `BAD_INDEX`, `REFUSED`) or a
//!    WAIT naming a CQ out of range converts nothing (the latter then fails with `BAD_INDEX`
//!    when it runs).
//! 2. `CONFIG_QP` sets `ei = ci` for each queue whose managed bit it sets, whether or not the
//!    queue was managed before (the enable index of an unmanaged queue is never observable,
//!    so this equals "every CONFIG_QP sets `ei = ci`").
//! 3. A send queue starts no WQE, signaled or not, while its CQ is full.
//! 4. `ErrorCqe` counts every CQE written with a status other than OK: failed WQEs, `LEN_ERR`,
//!    the `BAD_INDEX` of an accepted message naming a counter out of range, and the
//!    `REMOTE_DISCARD` notification of an arriving NAK (which also counts `NakReceived`).
//!    Every non-OK status is a failure, so such a CQE is written even for an unsignaled WQE.
//! 5. `RxDiscard` counts every data message discarded with a NAK, including those whose head
//!    receive WQE completed with `BAD_OPCODE` / `BAD_ADDR` (those also count `ErrorCqe`).
//! 6. NAK reason (the data word of the NAK): `BAD_INDEX` for a QP out of range; `NOT_READY`
//!    for no posted WQE, a disabled WQE or a full CQ; the receive WQE's error status
//!    (`BAD_OPCODE`, `BAD_ADDR`) when it failed.
//! 7. An accepted message increments its counter also when it completes with `LEN_ERR`; a
//!    counter out of range gives `BAD_INDEX`, which takes precedence over `LEN_ERR`.
//! 8. CALC checks the ALU operation first (`BAD_ARG`), then every element address and the
//!    result buffer (`BAD_ADDR`) before touching memory. `count = 0` reads and writes nothing
//!    (no address check) and, to a peer, sends one empty message. Elements are processed one
//!    after another: the result of element `i` is written before element `i + 1` is read.
//! 9. A host command that answers nothing, and every refused one, answers data 0. Polling an
//!    empty CQ (`EMPTY`) counts no statistic.
//! 10. A post to a full queue of a plain QP answers `FULL` (the ring is checked first, as
//!     libmlx5 checks for overflow before it looks at the request). The opcode that makes a
//!     post cross-channel work is the raw `w0[3:0]`, on either queue (an RQ never runs a WAIT,
//!     but a plain QP does not take one), whatever else the WQE holds.
//! 11. A mode 2 enable's post checks, in order: the posting queue full (`FULL`), the posting
//!     QP plain (`REFUSED`), the target queue unmanaged, then beyond what it has posted (both
//!     `REFUSED`). The target's `pi` is read before this post, so an enable naming the queue it
//!     is posted to does not count itself. The enable head moves only with an accepted post.
//!     `CONFIG_QP` resets the head of a queue it makes managed to `(ci, 0)` (the spec says so
//!     with `ei = ci`); an unmanaged queue's head is left as it is.
//! 12. Reliable QPs: the answer's reason is the low 4 bits of a NAK's data word (0, `OK`, for
//!     a NAK given without data). A retry is due at once here (`rnr_delay` is time, which the
//!     golden does not model): a send queue whose head awaits a retry sends the message again
//!     in the next `run`, reading the buffer as it is then. A head awaiting its answer makes no
//!     progress in `run`; an answered one completes like any WQE (after room in its CQ).
//!     `RnrRetry` counts each message sent again.
//! 13. Pipes: a visit of a PIPE that owns its receive side sends the oldest chunk held and
//!     frees its buffer in one step (this side always accepts a message), and completes the
//!     PIPE in the same step if that was the last chunk. In the hardware a buffer is free only
//!     once its chunk has been sent, so a scenario that delivers a chunk before the one
//!     `nbuf` chunks earlier has had time to go is racy.
//! 14. Receive channels: a PIPE owning the receive side comes first, then the channel, then
//!     the RQ (the specification lists them in that order). A channel's message is never
//!     refused (its buffer was checked when it was armed), so it counts no `RxDiscard`.
//! 15. Shapes: a CALC reads its shape when it runs (here: atomically), so a `SET_SHAPE` racing
//!     a CALC that names the shape is racy. The bounds are those of the last element, as the
//!     strides are never negative. A retried CALC sends the span of its shape as it is at the
//!     retry; a shape changed since the CALC ran may make that span leave data memory, whose
//!     addresses are then taken modulo its size (as the hardware's address bits do).

use super::{
    reserved_bits, Cqe, HostOp, HostStatus, NicParams, Opcode, Stat, Status, Wqe, CQ_DEPTH, SHAPES,
    STATS, WQ_DEPTH,
};
use crate::net::Message;
use crate::reduce_alu::{golden::golden, AluOp, Dtype};
use std::collections::VecDeque;

/// A send or receive queue.
#[derive(Clone, Debug)]
struct WorkQueue {
    /// The WQE words, slot `i mod WQ_DEPTH` for WQE index `i`.
    ring: Vec<(u64, u64)>,
    pi: u16,
    ci: u16,
    ei: u16,
    managed: bool,
    /// The enable head: where the next mode 2 enable of this queue counts from, and the
    /// largest count posted since the head last moved.
    head_index: u16,
    head_count: u16,
    /// The CQ its completions go to.
    cq: usize,
    /// The index of the head WQE for which a `CqStall` was counted.
    stall_counted: Option<u16>,
}

impl WorkQueue {
    fn new() -> WorkQueue {
        WorkQueue {
            ring: vec![(0, 0); WQ_DEPTH],
            pi: 0,
            ci: 0,
            ei: 0,
            managed: false,
            head_index: 0,
            head_count: 0,
            cq: 0,
            stall_counted: None,
        }
    }

    fn is_full(&self) -> bool {
        self.pi.wrapping_sub(self.ci) as usize == WQ_DEPTH
    }

    /// The head WQE, if one is posted and (for a managed queue) enabled.
    fn runnable_head(&self) -> Option<(u64, u64)> {
        let posted = self.ci != self.pi;
        let enabled = !self.managed || (self.ei.wrapping_sub(self.ci) as i16) > 0;
        if posted && enabled {
            Some(self.ring[self.ci as usize % WQ_DEPTH])
        } else {
            None
        }
    }
}

/// A completion queue.
#[derive(Clone, Debug, Default)]
struct CompletionQueue {
    /// CQEs written and not yet popped, oldest first.
    entries: VecDeque<u64>,
    produced: u32,
    consumed: u32,
    wait_index: u32,
    /// The largest count of the CQ WAITs posted since `wait_index` last moved.
    wait_count: u32,
}

impl CompletionQueue {
    fn is_full(&self) -> bool {
        self.entries.len() == CQ_DEPTH
    }
}

/// What the head WQE of a reliable QP's send queue waits for (see "Reliable QPs").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Answer {
    /// Nothing: the head has not sent its message.
    #[default]
    None,
    /// The message has been sent; `left` retries remain.
    Awaiting { left: u8 },
    /// An RNR NAK came back: send the message again.
    Retry { left: u8 },
    /// The answer came: complete with this status.
    Answered(Status),
}

/// The receive side of the PIPE that owns a QP's receive queue (see "Pipes").
#[derive(Clone, Debug)]
struct Pipe {
    /// The QP whose SQ runs the PIPE.
    owner: usize,
    base: u64,
    blen: u64,
    nbuf: u64,
    /// Chunks still to receive.
    rleft: u64,
    /// The chunks received and not yet sent, oldest first: their buffer and the words their
    /// message carries.
    held: VecDeque<(u64, u64)>,
    /// The buffer the next chunk fills.
    wr_addr: u64,
    /// The first status other than OK among the chunks.
    status: Status,
}

/// What one visit of a PIPE did.
enum PipeStep {
    /// Nothing (no chunk to send, or another PIPE owns the receive side).
    Wait,
    /// Took the receive side or sent a chunk.
    Progress,
    /// Completes with this status.
    Done(Status),
}

/// One queue pair.
#[derive(Clone, Debug)]
struct QueuePair {
    sq: WorkQueue,
    rq: WorkQueue,
    /// Not cross-channel: refuses WAIT, SEND_EN, RECV_EN and CALC posts.
    plain: bool,
    /// Reliable: its messages ask for answers, its RQ answers RNR NAK when not ready.
    rc: bool,
    /// Retries after RNR NAKs per WQE (7: for ever).
    rnr_retry: u8,
    /// The answer the SQ's head awaits.
    answer: Answer,
    /// The PIPE that owns the receive queue, if one does.
    pipe: Option<Pipe>,
}

/// The golden NIC. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct NicGolden {
    p: NicParams,
    qps: Vec<QueuePair>,
    cqs: Vec<CompletionQueue>,
    counters: Vec<u32>,
    /// Each counter's receive channel (see "Receive channels"), `None` while disarmed.
    channels: Vec<Option<Channel>>,
    /// Each CALC shape's outer dimensions (see "Multi-dimensional arguments"), 1 and 2.
    shapes: [[Dim; 2]; SHAPES],
    dmem: Vec<u64>,
    stats: [u32; STATS],
    sent: Vec<Message>,
}

/// One outer dimension of a CALC shape: its element count (at least 1) and the strides of
/// `a`, `b` and the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dim {
    n: u64,
    sa: u64,
    sb: u64,
    sd: u64,
}

impl Dim {
    /// The absent dimension (a shape never set).
    const NONE: Dim = Dim {
        n: 1,
        sa: 0,
        sb: 0,
        sd: 0,
    };

    /// `SET_SHAPE`'s word: count `[15:0]` (0 is absent, as 1), then the strides of `a`, `b`
    /// and the result, 16 bits each.
    fn from_word(w: u64) -> Dim {
        Dim {
            n: (w & M16).max(1),
            sa: (w >> 16) & M16,
            sb: (w >> 32) & M16,
            sd: (w >> 48) & M16,
        }
    }
}

/// An armed receive channel: the QP whose next message it takes, and its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Channel {
    qp: usize,
    addr: usize,
    len: usize,
}

const M16: u64 = 0xFFFF;
const M32: u64 = 0xFFFF_FFFF;

impl NicGolden {
    /// The NIC after reset: every queue empty, unmanaged and reporting to CQ 0, every counter,
    /// statistic and memory word zero.
    pub fn new(p: NicParams) -> NicGolden {
        NicGolden {
            p,
            qps: (0..p.qps)
                .map(|_| QueuePair {
                    sq: WorkQueue::new(),
                    rq: WorkQueue::new(),
                    plain: false,
                    rc: false,
                    rnr_retry: 0,
                    answer: Answer::None,
                    pipe: None,
                })
                .collect(),
            cqs: vec![CompletionQueue::default(); p.cqs],
            counters: vec![0; p.counters],
            channels: vec![None; p.counters],
            shapes: [[Dim::NONE; 2]; SHAPES],
            dmem: vec![0; p.dmem_words],
            stats: [0; STATS],
            sent: vec![],
        }
    }

    pub fn params(&self) -> &NicParams {
        &self.p
    }

    /// Data-memory word `addr` (0 outside memory).
    pub fn mem(&self, addr: usize) -> u64 {
        self.dmem.get(addr).copied().unwrap_or(0)
    }

    /// Counter `i` (0 outside range).
    pub fn counter(&self, i: usize) -> u64 {
        self.counters.get(i).map_or(0, |&c| c as u64)
    }

    /// Statistics counter `s`.
    pub fn stat(&self, s: Stat) -> u64 {
        self.stats[s as usize] as u64
    }

    /// CQ `cq`'s `(produced, consumed, wait_index)`.
    pub fn cq_counts(&self, cq: usize) -> (u64, u64, u64) {
        let c = &self.cqs[cq];
        (c.produced as u64, c.consumed as u64, c.wait_index as u64)
    }

    /// CQ `cq`'s `wait_count` (see WAIT).
    pub fn cq_wait_count(&self, cq: usize) -> u64 {
        self.cqs[cq].wait_count as u64
    }

    /// `(pi, ci, ei)` of QP `qp`'s send queue (`recv == false`) or receive queue.
    pub fn wq_indices(&self, qp: usize, recv: bool) -> (u64, u64, u64) {
        let q = &self.qps[qp];
        let w = if recv { &q.rq } else { &q.sq };
        (w.pi as u64, w.ci as u64, w.ei as u64)
    }

    /// The messages sent since the last call, in the order they were sent.
    pub fn take_sent(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.sent)
    }

    fn count(&mut self, s: Stat) {
        let c = &mut self.stats[s as usize];
        *c = c.wrapping_add(1);
    }

    /// Writes a CQE to CQ `cq`; `ErrorCqe` counts every CQE whose status is not OK.
    /// Callers have checked that the CQ has room.
    fn write_cqe(&mut self, cq: usize, cqe: Cqe) {
        let q = &mut self.cqs[cq];
        if q.is_full() {
            // Unreachable: every caller checks first. Dropping beats panicking on a bug.
            self.count(Stat::CqOverrun);
            return;
        }
        q.entries.push_back(cqe.encode());
        q.produced = q.produced.wrapping_add(1);
        if cqe.status != Status::Ok as u64 {
            self.count(Stat::ErrorCqe);
        }
    }

    /// Completes the head WQE of QP `qp`'s SQ or RQ: advances `ci` and writes a CQE if the WQE
    /// is signaled or failed.
    fn complete(&mut self, qp: usize, recv: bool, w0: u64, status: Status, len: u64) {
        let q = &mut self.qps[qp];
        let wq = if recv { &mut q.rq } else { &mut q.sq };
        let index = wq.ci as u64;
        let cq = wq.cq;
        wq.ci = wq.ci.wrapping_add(1);
        wq.stall_counted = None;
        let signaled = (w0 >> 4) & 1 == 1;
        if signaled || status != Status::Ok {
            self.write_cqe(
                cq,
                Cqe {
                    status: status as u64,
                    opcode: w0 & 15,
                    qp: qp as u64,
                    is_recv: recv,
                    index,
                    len,
                },
            );
        }
    }

    // ---------------------------------------------------------------------------------------
    // Host commands
    // ---------------------------------------------------------------------------------------

    /// Applies one host command (`op` cut to 4 bits, `arg` to 16) and returns its response:
    /// the [`HostStatus`] code and the data (0 when the command answers nothing).
    pub fn host(&mut self, op: u64, arg: u64, w0: u64, w1: u64) -> (u64, u64) {
        let (status, data) = self.host_command(op & 15, (arg & M16) as usize, w0, w1);
        match status {
            HostStatus::BadOp => self.count(Stat::HostBadOp),
            HostStatus::BadIndex => self.count(Stat::HostBadIndex),
            HostStatus::Full => self.count(Stat::WqFull),
            HostStatus::Refused => self.count(Stat::HostRefused),
            HostStatus::Ok | HostStatus::Empty => {}
        }
        (status as u64, data)
    }

    fn host_command(&mut self, op: u64, arg: usize, w0: u64, w1: u64) -> (HostStatus, u64) {
        use HostStatus::{BadIndex, BadOp, Empty, Full, Ok, Refused};
        let p = self.p;
        let Some(op) = HostOp::from_code(op) else {
            return (BadOp, 0);
        };
        match op {
            HostOp::Nop => (Ok, 0),
            HostOp::PostSq | HostOp::PostRq => {
                if arg >= p.qps {
                    return (BadIndex, 0);
                }
                let recv = op == HostOp::PostRq;
                let full = {
                    let q = &self.qps[arg];
                    if recv {
                        q.rq.is_full()
                    } else {
                        q.sq.is_full()
                    }
                };
                if full {
                    return (Full, 0);
                }
                let (mut w0, mut w1) = (w0, w1);
                let wqe = Wqe::decode(w0, w1);
                // A plain QP takes no cross-channel work.
                if Opcode::is_cross_channel(wqe.opcode) && self.qps[arg].plain {
                    return (Refused, 0);
                }
                // An enable counted from its queue's enable head (mode 2) becomes an enable up
                // to an absolute index (mode 3), or is refused.
                let enable =
                    wqe.opcode == Opcode::SendEn as u64 || wqe.opcode == Opcode::RecvEn as u64;
                if enable && wqe.mode == 2 && (wqe.qp as usize) < p.qps {
                    let q = &mut self.qps[wqe.qp as usize];
                    let t = if wqe.opcode == Opcode::RecvEn as u64 {
                        &mut q.rq
                    } else {
                        &mut q.sq
                    };
                    if !t.managed {
                        return (Refused, 0);
                    }
                    let n = wqe.value as u16;
                    let (index, count) = if n != 0 {
                        let index = t.head_index.wrapping_add(n);
                        if (t.pi.wrapping_sub(index) as i16) < 0 {
                            return (Refused, 0);
                        }
                        (index, t.head_count.max(n))
                    } else {
                        (t.pi, t.pi.wrapping_sub(t.head_index))
                    };
                    t.head_count = count;
                    if !wqe.more {
                        t.head_index = t.head_index.wrapping_add(count);
                        t.head_count = 0;
                    }
                    // Only the mode (`w0[17:16]`) and the value (`w1[47:32]`) change; every
                    // other bit stays as posted.
                    w0 |= 3 << 16;
                    w1 = (w1 & !(0xFFFF << 32)) | (index as u64) << 32;
                }
                // A CQ WAIT (on either queue) waits for `count` completions beyond the CQ's
                // wait index and stores that absolute target in place of the count; the last
                // WAIT of a group moves the index on by the group's largest count.
                if wqe.opcode == Opcode::Wait as u64
                    && wqe.mode == 0
                    && (wqe.index as usize) < p.cqs
                {
                    let cq = &mut self.cqs[wqe.index as usize];
                    let count = wqe.value as u32;
                    let target = cq.wait_index.wrapping_add(count);
                    cq.wait_count = cq.wait_count.max(count);
                    if !wqe.more {
                        cq.wait_index = cq.wait_index.wrapping_add(cq.wait_count);
                        cq.wait_count = 0;
                    }
                    w1 = (w1 & M32) | (target as u64) << 32;
                }
                let q = &mut self.qps[arg];
                let wq = if recv { &mut q.rq } else { &mut q.sq };
                let index = wq.pi;
                wq.ring[index as usize % WQ_DEPTH] = (w0, w1);
                wq.pi = wq.pi.wrapping_add(1);
                (Ok, index as u64)
            }
            HostOp::PollCq => {
                if arg >= p.cqs {
                    return (BadIndex, 0);
                }
                let cq = &mut self.cqs[arg];
                match cq.entries.pop_front() {
                    Some(cqe) => {
                        cq.consumed = cq.consumed.wrapping_add(1);
                        (Ok, cqe)
                    }
                    None => (Empty, 0),
                }
            }
            HostOp::WriteMem => {
                if arg >= p.dmem_words {
                    return (BadIndex, 0);
                }
                self.dmem[arg] = w0;
                (Ok, 0)
            }
            HostOp::ReadMem => {
                if arg >= p.dmem_words {
                    return (BadIndex, 0);
                }
                (Ok, self.dmem[arg])
            }
            HostOp::WriteCnt => {
                if arg >= p.counters {
                    return (BadIndex, 0);
                }
                self.counters[arg] = w0 as u32;
                (Ok, 0)
            }
            HostOp::ReadCnt => {
                if arg >= p.counters {
                    return (BadIndex, 0);
                }
                (Ok, self.counters[arg] as u64)
            }
            HostOp::ConfigQp => {
                let sq_cq = (w0 & 0xFF) as usize;
                let rq_cq = ((w0 >> 8) & 0xFF) as usize;
                if arg >= p.qps || sq_cq >= p.cqs || rq_cq >= p.cqs {
                    return (BadIndex, 0);
                }
                let q = &mut self.qps[arg];
                q.plain = (w0 >> 18) & 1 == 1;
                q.rc = (w0 >> 19) & 1 == 1;
                q.rnr_retry = ((w0 >> 20) & 7) as u8;
                // An awaited answer is forgotten: the head runs again from its start.
                q.answer = Answer::None;
                for (wq, cq, managed) in [
                    (&mut q.sq, sq_cq, (w0 >> 16) & 1 == 1),
                    (&mut q.rq, rq_cq, (w0 >> 17) & 1 == 1),
                ] {
                    wq.cq = cq;
                    wq.managed = managed;
                    if managed {
                        // Nothing is enabled until a SEND_EN / RECV_EN says so, and the enable
                        // head starts at the queue's consumer index.
                        wq.ei = wq.ci;
                        wq.head_index = wq.ci;
                        wq.head_count = 0;
                    }
                }
                (Ok, 0)
            }
            HostOp::ReadStat => {
                if arg >= STATS {
                    return (BadIndex, 0);
                }
                (Ok, self.stats[arg] as u64)
            }
            HostOp::SetChannel => {
                let (addr, len) = ((w0 & M16) as usize, ((w0 >> 16) & M16) as usize);
                let (qp, armed) = (((w0 >> 32) & 0xFF) as usize, (w0 >> 40) & 1 == 1);
                if arg >= p.counters || (armed && (qp >= p.qps || addr + len > p.dmem_words)) {
                    return (BadIndex, 0);
                }
                self.channels[arg] = armed.then_some(Channel { qp, addr, len });
                (Ok, 0)
            }
            HostOp::SetShape => {
                // Shape 0 is the one-dimensional CALC, fixed.
                if arg == 0 || arg >= SHAPES {
                    return (BadIndex, 0);
                }
                self.shapes[arg] = [Dim::from_word(w0), Dim::from_word(w1)];
                (Ok, 0)
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Arriving messages
    // ---------------------------------------------------------------------------------------

    /// Processes one whole arriving message (header fields cut to their port widths).
    pub fn deliver(&mut self, m: &Message) {
        let qp = (m.qp & 0xFF) as usize;
        if m.kind_nak {
            let reason = m.data.first().map_or(0, |d| d & 15);
            self.deliver_nak(qp, m.tag & M16, reason);
            return;
        }
        // Why the message is discarded, if it is, and whether a receive WQE completed with it.
        let reason = self.receive(qp, m);
        if reason.is_some() {
            self.count(Stat::RxDiscard);
        }
        if reason.is_some() || m.ack {
            // The NAK, or the ACK a stored message that asked for an answer gets.
            self.sent.push(Message {
                kind_nak: true,
                node: m.node & 0xFF,
                src_qp: qp as u64,
                qp: m.src_qp & 0xFF,
                cnt: None,
                tag: m.tag & M16,
                ack: false,
                data: vec![reason.unwrap_or(Status::Ok) as u64],
            });
        }
    }

    /// An arriving NAK (or ACK) for the SQ WQE `tag` of QP `qp`: the answer its head awaits,
    /// else a `RemoteDiscard` CQE (an ACK is dropped).
    fn deliver_nak(&mut self, qp: usize, tag: u64, reason: u64) {
        if qp >= self.p.qps {
            self.count(Stat::CqOverrun);
            return;
        }
        let q = &mut self.qps[qp];
        if let Answer::Awaiting { left } = q.answer {
            if q.sq.ci as u64 == tag {
                q.answer = if reason == Status::Ok as u64 {
                    Answer::Answered(Status::Ok)
                } else if reason == Status::RnrNak as u64 {
                    if q.rnr_retry == 7 {
                        Answer::Retry { left }
                    } else if left > 0 {
                        Answer::Retry { left: left - 1 }
                    } else {
                        Answer::Answered(Status::RnrRetryExc)
                    }
                } else {
                    Answer::Answered(Status::RemoteDiscard)
                };
                if q.answer == Answer::Answered(Status::RemoteDiscard) {
                    self.count(Stat::NakReceived);
                }
                return;
            }
        }
        if reason == Status::Ok as u64 && self.qps[qp].rc {
            self.count(Stat::StrayAck);
            return;
        }
        let cq = self.qps[qp].sq.cq;
        if self.cqs[cq].is_full() {
            self.count(Stat::CqOverrun);
            return;
        }
        self.count(Stat::NakReceived);
        self.write_cqe(
            cq,
            Cqe {
                status: Status::RemoteDiscard as u64,
                opcode: Opcode::Send as u64,
                qp: qp as u64,
                is_recv: false,
                index: tag,
                len: 0,
            },
        );
    }

    /// Offers a data message to QP `qp`'s RQ. Returns the NAK reason if it is discarded.
    fn receive(&mut self, qp: usize, m: &Message) -> Option<Status> {
        if qp >= self.p.qps {
            return Some(Status::BadIndex);
        }
        if self.qps[qp].pipe.is_some() {
            return self.receive_chunk(qp, m);
        }
        // A counter whose channel is armed for this QP takes the message, once, whatever the
        // receive queue holds.
        let counter = m.cnt.map(|c| (c & 0xFF) as usize);
        if let Some((c, Some(ch))) = counter.and_then(|c| Some((c, *self.channels.get(c)?))) {
            if ch.qp == qp {
                self.channels[c] = None;
                let stored = m.data.len().min(ch.len);
                self.dmem[ch.addr..ch.addr + stored].copy_from_slice(&m.data[..stored]);
                if m.data.len() > stored {
                    self.count(Stat::ChanOverrun);
                }
                self.counters[c] = self.counters[c].wrapping_add(1);
                return None;
            }
        }
        let rq = &self.qps[qp].rq;
        let Some((w0, w1)) = rq.runnable_head() else {
            // No WQE posted, or the head not enabled in a managed RQ: a reliable QP makes a
            // sender that awaits the answer retry.
            if m.ack && self.qps[qp].rc {
                return Some(Status::RnrNak);
            }
            return Some(Status::NotReady);
        };
        if self.cqs[rq.cq].is_full() {
            return Some(Status::NotReady);
        }
        let wqe = Wqe::decode(w0, w1);
        // Rule: a WQE with a reserved bit set fails like an unknown opcode.
        if wqe.opcode != Opcode::Recv as u64 || reserved_bits(w0, w1) {
            self.complete(qp, true, w0, Status::BadOpcode, 0);
            return Some(Status::BadOpcode);
        }
        if wqe.addr + wqe.len > self.p.dmem_words as u64 {
            self.complete(qp, true, w0, Status::BadAddr, 0);
            return Some(Status::BadAddr);
        }
        let stored = m.data.len().min(wqe.len as usize);
        let base = wqe.addr as usize;
        self.dmem[base..base + stored].copy_from_slice(&m.data[..stored]);
        let status = if !self.count_arrival(m) {
            // The data is still delivered; the CQE reports the bad counter.
            Status::BadIndex
        } else if m.data.len() > stored {
            Status::LenErr
        } else {
            Status::Ok
        };
        self.complete(qp, true, w0, status, stored as u64);
        None
    }

    /// Increments the counter an accepted message names, if any; false if it names one out
    /// of range.
    fn count_arrival(&mut self, m: &Message) -> bool {
        let Some(c) = m.cnt else {
            return true;
        };
        match self.counters.get_mut((c & 0xFF) as usize) {
            Some(v) => {
                *v = v.wrapping_add(1);
                true
            }
            None => false,
        }
    }

    /// Offers a data message to the PIPE that owns QP `qp`'s receive side. Returns the NAK
    /// reason if it is discarded.
    fn receive_chunk(&mut self, qp: usize, m: &Message) -> Option<Status> {
        let rc = self.qps[qp].rc;
        let p = self.qps[qp].pipe.as_ref()?;
        if p.rleft == 0 || p.held.len() as u64 >= p.nbuf {
            // No chunk expected or no buffer free: as for a receive WQE not enabled.
            return Some(if m.ack && rc {
                Status::RnrNak
            } else {
                Status::NotReady
            });
        }
        let counter_ok = self.count_arrival(m);
        let p = self.qps[qp].pipe.as_mut()?;
        let stored = m.data.len().min(p.blen as usize);
        let base = p.wr_addr as usize;
        self.dmem[base..base + stored].copy_from_slice(&m.data[..stored]);
        let last = p.rleft == 1;
        let status = if !counter_ok {
            Status::BadIndex
        } else if m.data.len() > stored || (!last && (stored as u64) < p.blen) {
            Status::LenErr
        } else {
            Status::Ok
        };
        p.held
            .push_back((p.wr_addr, if last { stored as u64 } else { p.blen }));
        p.wr_addr += p.blen;
        if p.wr_addr == p.base + p.nbuf * p.blen {
            p.wr_addr = p.base;
        }
        p.rleft -= 1;
        if p.status == Status::Ok {
            p.status = status;
        }
        None
    }

    // ---------------------------------------------------------------------------------------
    // Send queues
    // ---------------------------------------------------------------------------------------

    /// Runs the send queues until none can make progress: rounds over the QPs in index order,
    /// each running at most one WQE, until a round completes nothing.
    pub fn run(&mut self) {
        loop {
            let mut progress = false;
            for qp in 0..self.p.qps {
                progress |= self.run_one(qp);
            }
            if !progress {
                break;
            }
        }
    }

    /// Runs the head WQE of QP `qp`'s SQ if it can; returns whether it made progress
    /// (completed, or sent a reliable QP's message).
    fn run_one(&mut self, qp: usize) -> bool {
        let answer = self.qps[qp].answer;
        if matches!(answer, Answer::Awaiting { .. }) {
            return false;
        }
        let sq = &self.qps[qp].sq;
        let Some((w0, w1)) = sq.runnable_head() else {
            return false;
        };
        if self.cqs[sq.cq].is_full() {
            let ci = sq.ci;
            if sq.stall_counted != Some(ci) {
                self.qps[qp].sq.stall_counted = Some(ci);
                self.count(Stat::CqStall);
            }
            return false;
        }
        let index = sq.ci as u64;
        let wqe = Wqe::decode(w0, w1);
        match answer {
            Answer::Answered(status) => {
                self.qps[qp].answer = Answer::None;
                self.complete(qp, false, w0, status, 0);
                return true;
            }
            Answer::Retry { left } => {
                self.count(Stat::RnrRetry);
                self.resend(qp, index, &wqe);
                self.qps[qp].answer = Answer::Awaiting { left };
                return true;
            }
            Answer::None | Answer::Awaiting { .. } => {}
        }
        let sent_before = self.sent.len();
        let opcode = if reserved_bits(w0, w1) {
            // A reserved bit set fails the WQE like an unknown opcode, whatever its opcode.
            None
        } else {
            Opcode::from_code(wqe.opcode)
        };
        let status = match opcode {
            Some(Opcode::Nop) => Status::Ok,
            Some(Opcode::Send) => self.send(qp, index, &wqe),
            Some(Opcode::Wait) => match self.wait_satisfied(&wqe) {
                None => Status::BadIndex,
                Some(true) => Status::Ok,
                Some(false) => return false,
            },
            Some(Opcode::SendEn) => self.enable(false, &wqe),
            Some(Opcode::RecvEn) => self.enable(true, &wqe),
            Some(Opcode::Calc) => self.calc(qp, index, &wqe),
            // A PIPE's chunks ask for no answer, whatever the QP: it completes here.
            Some(Opcode::Pipe) => match self.pipe(qp, index, &wqe) {
                PipeStep::Wait => return false,
                PipeStep::Progress => return true,
                PipeStep::Done(status) => {
                    self.complete(qp, false, w0, status, 0);
                    return true;
                }
            },
            // RECV on a send queue, or an unknown opcode.
            Some(Opcode::Recv) | None => Status::BadOpcode,
        };
        let q = &mut self.qps[qp];
        if q.rc && self.sent.len() > sent_before {
            // A reliable QP's message: the WQE completes when its answer comes.
            q.answer = Answer::Awaiting { left: q.rnr_retry };
            return true;
        }
        self.complete(qp, false, w0, status, 0);
        true
    }

    /// Sends the message of the head WQE `w` (index `index`) of QP `qp`'s SQ again: a SEND's
    /// buffer, a CALC's result buffer (not computed again), as data memory holds them now.
    fn resend(&mut self, qp: usize, index: u64, w: &Wqe) {
        let (addr, len) = if w.opcode == Opcode::Send as u64 {
            (w.addr, w.len)
        } else {
            let loc = AluOp::from_code(w.alu_op).is_some_and(|op| op.is_loc());
            let [d1, d2] = self.shape(w);
            let span = (w.len << loc as u64) + (d1.n - 1) * d1.sd + (d2.n - 1) * d2.sd;
            (w.dst_addr, if w.len == 0 { 0 } else { span & M16 })
        };
        // Addresses modulo the memory: only a shape changed since the CALC ran (reading 15)
        // makes a span leave it.
        let words = self.p.dmem_words as u64;
        let data = (addr..addr + len)
            .map(|a| self.dmem[(a % words) as usize])
            .collect();
        self.send_message(qp, index, w, data, false);
    }

    fn send(&mut self, qp: usize, index: u64, w: &Wqe) -> Status {
        if w.addr + w.len > self.p.dmem_words as u64 {
            return Status::BadAddr;
        }
        let data = self.dmem[w.addr as usize..(w.addr + w.len) as usize].to_vec();
        self.send_message(qp, index, w, data, false);
        Status::Ok
    }

    /// Sends `data` to `w.dst` / `w.qp` with the WQE's counter; the tag is the WQE index. It
    /// asks for an answer if QP `qp` is reliable, but for a PIPE's chunk (`chunk`).
    fn send_message(&mut self, qp: usize, index: u64, w: &Wqe, data: Vec<u64>, chunk: bool) {
        let ack = self.qps[qp].rc && !chunk;
        self.sent.push(Message {
            kind_nak: false,
            node: w.dst,
            src_qp: qp as u64,
            qp: w.qp,
            cnt: w.cnt_en.then_some(w.cnt),
            tag: index,
            ack,
            data,
        });
    }

    /// One visit of the PIPE `w` (index `index`) at the head of QP `qp`'s SQ. A chunk held is
    /// sent at once (this side always accepts a message), so its buffer is free again.
    fn pipe(&mut self, qp: usize, index: u64, w: &Wqe) -> PipeStep {
        let rq = w.index as usize;
        if rq >= self.p.qps {
            return PipeStep::Done(Status::BadIndex);
        }
        let (base, blen, nbuf, count) = (w.addr, w.len, w.sa, w.value);
        if blen == 0 || nbuf == 0 {
            return PipeStep::Done(Status::BadArg);
        }
        if count == 0 {
            return PipeStep::Done(Status::Ok);
        }
        let Some(p) = &mut self.qps[rq].pipe else {
            if base + nbuf * blen > self.p.dmem_words as u64 {
                return PipeStep::Done(Status::BadAddr);
            }
            self.qps[rq].pipe = Some(Pipe {
                owner: qp,
                base,
                blen,
                nbuf,
                rleft: count,
                held: VecDeque::new(),
                wr_addr: base,
                status: Status::Ok,
            });
            return PipeStep::Progress;
        };
        if p.owner != qp {
            return PipeStep::Wait;
        }
        let Some((addr, len)) = p.held.pop_front() else {
            return PipeStep::Wait;
        };
        let done = (p.rleft == 0 && p.held.is_empty()).then_some(p.status);
        let data = self.dmem[addr as usize..(addr + len) as usize].to_vec();
        self.send_message(qp, index, w, data, true);
        match done {
            Some(status) => {
                self.qps[rq].pipe = None;
                PipeStep::Done(status)
            }
            None => PipeStep::Progress,
        }
    }

    /// `None` if the WAIT names a CQ / counter out of range, else whether it may complete.
    fn wait_satisfied(&self, w: &Wqe) -> Option<bool> {
        let i = w.index as usize;
        if w.mode == 0 {
            // `value` holds the absolute target set when the WAIT was posted.
            let cq = self.cqs.get(i)?;
            let target = w.value as u32;
            Some(cq.produced.wrapping_sub(target) as i32 >= 0)
        } else {
            let c = *self.counters.get(i)?;
            Some(c as u64 >= w.value)
        }
    }

    /// SEND_EN (`recv == false`) / RECV_EN: moves the enable index of QP `w.qp`'s queue.
    fn enable(&mut self, recv: bool, w: &Wqe) -> Status {
        let Some(q) = self.qps.get_mut(w.qp as usize) else {
            return Status::BadIndex;
        };
        let wq = if recv { &mut q.rq } else { &mut q.sq };
        let v = w.value as u16;
        if w.mode == 0 {
            wq.ei = wq.ei.wrapping_add(v);
        } else {
            // Up to index `v` (mode 1), or up to but not including it (modes 3 and 2, which
            // only a QP out of range leaves unconverted): never backwards.
            let new_ei = if w.mode == 1 { v.wrapping_add(1) } else { v };
            if new_ei.wrapping_sub(wq.ei) as i16 >= 0 {
                wq.ei = new_ei;
            }
        }
        Status::Ok
    }

    fn calc(&mut self, qp: usize, index: u64, w: &Wqe) -> Status {
        let (Some(op), Some(dtype)) = (AluOp::from_code(w.alu_op), Dtype::from_code(w.dtype))
        else {
            return Status::BadArg;
        };
        // A floating-point type the NIC is built without, or an operation it does not define.
        if !self.p.alu().builds(dtype) || !dtype.defines(op) {
            return Status::BadArg;
        }
        // Words per element: MAXLOC / MINLOC elements are (value, index) pairs.
        let width: u64 = if op.is_loc() { 2 } else { 1 };
        let n0 = w.len;
        let [d1, d2] = self.shape(w);
        let words = self.p.dmem_words as u64;
        // The result's span: its words from `dst_addr`, gaps between rows included.
        let span = n0 * width + (d1.n - 1) * d1.sd + (d2.n - 1) * d2.sd;
        if n0 > 0 {
            // The last element has the highest addresses (no stride is negative).
            let a_last = w.addr + (n0 - 1) * w.sa + (d1.n - 1) * d1.sa + (d2.n - 1) * d2.sa;
            let b_last = w.b + (n0 - 1) * w.sb + (d1.n - 1) * d1.sb + (d2.n - 1) * d2.sb;
            if a_last + width > words || b_last + width > words || w.dst_addr + span > words {
                return Status::BadAddr;
            }
        }
        for i2 in 0..d2.n {
            for i1 in 0..d1.n {
                for i0 in 0..n0 {
                    let a = (w.addr + i0 * w.sa + i1 * d1.sa + i2 * d2.sa) as usize;
                    let b = (w.b + i0 * w.sb + i1 * d1.sb + i2 * d2.sb) as usize;
                    let d = (w.dst_addr + i0 * width + i1 * d1.sd + i2 * d2.sd) as usize;
                    // An element is read before it is written (arguments may overlap the
                    // result).
                    let (ai, bi) = if op.is_loc() {
                        (self.dmem[a + 1], self.dmem[b + 1])
                    } else {
                        (0, 0)
                    };
                    let (value, idx) =
                        golden(op, dtype, self.dmem[a], ai, self.dmem[b], bi).unwrap_or((0, 0));
                    self.dmem[d] = value;
                    if op.is_loc() {
                        self.dmem[d + 1] = idx;
                    }
                }
            }
        }
        if w.mode == 1 {
            // With `count = 0` nothing was checked or written (reading 8): the message is
            // empty, whatever `dst_addr` says.
            let data = if n0 == 0 {
                vec![]
            } else {
                let d = w.dst_addr as usize;
                self.dmem[d..d + span as usize].to_vec()
            };
            self.send_message(qp, index, w, data, false);
        }
        Status::Ok
    }

    /// The outer dimensions of the shape a CALC names (shape 0: none).
    fn shape(&self, w: &Wqe) -> [Dim; 2] {
        self.shapes[w.index as usize % SHAPES]
    }
}

#[cfg(test)]
mod tests {
    //! Directed tests, one group per work request. Every expected CQE, memory word and message
    //! is written out by hand from the specification, never computed by the code under test.

    use super::*;
    use crate::nic::WqeWords;

    // Codes written out so that the expectations read as numbers from the spec.
    const OK: u64 = 0;
    const BAD_OPCODE: u64 = 1;
    const BAD_INDEX: u64 = 2;
    const BAD_ADDR: u64 = 3;
    const LEN_ERR: u64 = 4;
    const REMOTE_DISCARD: u64 = 5;
    const BAD_ARG: u64 = 6;
    const NOT_READY: u64 = 7;
    const NOP: u64 = 0;
    const SEND: u64 = 1;
    const RECV: u64 = 2;
    const WAIT: u64 = 3;
    const SEND_EN: u64 = 4;
    const RECV_EN: u64 = 5;
    const CALC: u64 = 6;

    fn nic() -> NicGolden {
        NicGolden::new(NicParams::SMALL)
    }

    fn cqe(status: u64, opcode: u64, qp: u64, is_recv: bool, index: u64, len: u64) -> Cqe {
        Cqe {
            status,
            opcode,
            qp,
            is_recv,
            index,
            len,
        }
    }

    /// Posts and checks the answer is OK with the expected WQE index.
    fn post(n: &mut NicGolden, recv: bool, qp: u64, w: Wqe, index: u64) {
        let (w0, w1) = w.encode();
        let op = if recv { 2 } else { 1 };
        assert_eq!(n.host(op, qp, w0, w1), (0, index), "post {w:?}");
    }

    fn post_raw(n: &mut NicGolden, qp: u64, w0: u64, w1: u64) -> (u64, u64) {
        n.host(1, qp, w0, w1)
    }

    /// Posts to the SQ of `qp` and answers `(HostStatus code, data)`.
    fn post_raw_wqe(n: &mut NicGolden, qp: u64, w: Wqe) -> (u64, u64) {
        let (w0, w1) = w.encode();
        n.host(1, qp, w0, w1)
    }

    fn poll(n: &mut NicGolden, cq: u64) -> Vec<Cqe> {
        let mut v = vec![];
        loop {
            match n.host(3, cq, 0, 0) {
                (0, w) => v.push(Cqe::decode(w)),
                (4, 0) => return v,
                r => panic!("poll answered {r:?}"),
            }
        }
    }

    fn write(n: &mut NicGolden, addr: u64, words: &[u64]) {
        for (i, &w) in words.iter().enumerate() {
            assert_eq!(n.host(4, addr + i as u64, w, 0), (0, 0));
        }
    }

    fn mem(n: &NicGolden, addr: usize, len: usize) -> Vec<u64> {
        (addr..addr + len).map(|a| n.mem(a)).collect()
    }

    fn config(n: &mut NicGolden, qp: u64, sq_cq: u64, rq_cq: u64, sqm: bool, rqm: bool) {
        let w0 = sq_cq | rq_cq << 8 | (sqm as u64) << 16 | (rqm as u64) << 17;
        assert_eq!(n.host(8, qp, w0, 0), (0, 0));
    }

    fn data_msg(
        qp: u64,
        src: u64,
        src_qp: u64,
        cnt: Option<u64>,
        tag: u64,
        data: &[u64],
    ) -> Message {
        Message {
            kind_nak: false,
            node: src,
            src_qp,
            qp,
            cnt,
            tag,
            ack: false,
            data: data.to_vec(),
        }
    }

    fn nak(dst: u64, dst_qp: u64, src_qp: u64, tag: u64, reason: u64) -> Message {
        Message {
            kind_nak: true,
            node: dst,
            src_qp,
            qp: dst_qp,
            cnt: None,
            tag,
            ack: false,
            data: vec![reason],
        }
    }

    #[test]
    fn nop_completes_in_order_and_only_signaled_or_failed_write_cqes() {
        let mut n = nic();
        post(&mut n, false, 0, Wqe::nop(true), 0);
        post(&mut n, false, 0, Wqe::nop(false), 1);
        post(&mut n, false, 0, Wqe::nop(true), 2);
        // Nothing runs before `run`.
        assert_eq!(poll(&mut n, 0), vec![]);
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(OK, NOP, 0, false, 0, 0), cqe(OK, NOP, 0, false, 2, 0)]
        );
        assert_eq!(n.wq_indices(0, false), (3, 3, 0));
        assert_eq!(n.cq_counts(0), (2, 2, 0));
        // A failed WQE completes too and the queue goes on: unknown opcode 9, unsignaled.
        assert_eq!(post_raw(&mut n, 0, 9, 0), (0, 3));
        post(&mut n, false, 0, Wqe::nop(true), 4);
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![
                cqe(BAD_OPCODE, 9, 0, false, 3, 0),
                cqe(OK, NOP, 0, false, 4, 0)
            ]
        );
        // RECV on a send queue is a bad opcode as well.
        post(&mut n, false, 0, Wqe::recv(0, 1, false), 5);
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(BAD_OPCODE, RECV, 0, false, 5, 0)]);
        assert_eq!(n.stat(Stat::ErrorCqe), 2);
        assert!(n.take_sent().is_empty());
    }

    #[test]
    fn send_sends_memory_with_counter_and_tag() {
        let mut n = nic();
        write(&mut n, 16, &[7, 8, 9]);
        config(&mut n, 1, 2, 0, false, false); // QP 1's SQ reports to CQ 2
        post(&mut n, false, 0, Wqe::send(16, 3, 5, 2, Some(3), true), 0);
        post(&mut n, false, 1, Wqe::nop(false), 0);
        post(&mut n, false, 1, Wqe::send(17, 0, 6, 1, None, true), 1);
        n.run();
        assert_eq!(
            n.take_sent(),
            vec![
                Message {
                    kind_nak: false,
                    node: 5,
                    src_qp: 0,
                    qp: 2,
                    cnt: Some(3),
                    tag: 0,
                    ack: false,
                    data: vec![7, 8, 9],
                },
                Message {
                    kind_nak: false,
                    node: 6,
                    src_qp: 1,
                    qp: 1,
                    cnt: None,
                    tag: 1,
                    ack: false,
                    data: vec![],
                },
            ]
        );
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, SEND, 0, false, 0, 0)]);
        assert_eq!(poll(&mut n, 2), vec![cqe(OK, SEND, 1, false, 1, 0)]);
        // A buffer outside memory fails (reported although unsignaled) and sends nothing;
        // the last word is fine.
        post(&mut n, false, 0, Wqe::send(1020, 5, 5, 2, None, false), 1);
        post(&mut n, false, 0, Wqe::send(1023, 1, 5, 2, None, false), 2);
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(BAD_ADDR, SEND, 0, false, 1, 0)]);
        let sent = n.take_sent();
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].tag, sent[0].data.clone()), (2, vec![0]));
        assert_eq!(n.stat(Stat::ErrorCqe), 1);
        // The peer NAKs the first SEND: a REMOTE_DISCARD CQE for WQE 0 on the SQ's CQ.
        n.deliver(&nak(5, 0, 2, 0, NOT_READY));
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(REMOTE_DISCARD, SEND, 0, false, 0, 0)]
        );
        assert_eq!(n.stat(Stat::NakReceived), 1);
        // A NAK to a QP that does not exist is dropped and counted.
        n.deliver(&nak(5, 9, 2, 0, NOT_READY));
        assert_eq!(n.stat(Stat::CqOverrun), 1);
        assert!(n.take_sent().is_empty());
    }

    #[test]
    fn recv_stores_counts_and_reports_length() {
        let mut n = nic();
        config(&mut n, 1, 0, 1, false, false); // QP 1's RQ reports to CQ 1
        post(&mut n, true, 1, Wqe::recv(100, 4, true), 0);
        post(&mut n, true, 1, Wqe::recv(200, 2, false), 1);
        n.deliver(&data_msg(1, 3, 0, Some(2), 40, &[10, 20, 30]));
        assert_eq!(poll(&mut n, 1), vec![cqe(OK, RECV, 1, true, 0, 3)]);
        assert_eq!(mem(&n, 100, 4), vec![10, 20, 30, 0]);
        assert_eq!(n.counter(2), 1);
        // Longer than the buffer: the first words are kept, LEN_ERR although unsignaled.
        n.deliver(&data_msg(1, 3, 0, Some(2), 41, &[1, 2, 3, 4, 5]));
        assert_eq!(poll(&mut n, 1), vec![cqe(LEN_ERR, RECV, 1, true, 1, 2)]);
        assert_eq!(mem(&n, 199, 4), vec![0, 1, 2, 0]);
        assert_eq!(n.counter(2), 2);
        // No receive WQE left: discarded, NAKed back to the sender's QP with the tag.
        n.deliver(&data_msg(1, 3, 0, None, 42, &[9]));
        assert_eq!(n.take_sent(), vec![nak(3, 0, 1, 42, NOT_READY)]);
        assert_eq!(n.stat(Stat::RxDiscard), 1);
        // A QP that does not exist: NAK with BAD_INDEX.
        n.deliver(&data_msg(4, 3, 7, None, 43, &[9]));
        assert_eq!(n.take_sent(), vec![nak(3, 7, 4, 43, BAD_INDEX)]);
        // An empty message; a counter out of range (the data is still delivered).
        post(&mut n, true, 1, Wqe::recv(300, 0, true), 2);
        post(&mut n, true, 1, Wqe::recv(301, 1, true), 3);
        n.deliver(&data_msg(1, 3, 0, None, 44, &[]));
        n.deliver(&data_msg(1, 3, 0, Some(8), 45, &[77]));
        assert_eq!(
            poll(&mut n, 1),
            vec![
                cqe(OK, RECV, 1, true, 2, 0),
                cqe(BAD_INDEX, RECV, 1, true, 3, 1)
            ]
        );
        assert_eq!(n.mem(301), 77);
        assert_eq!(n.stat(Stat::ErrorCqe), 2);
        assert_eq!(n.stat(Stat::RxDiscard), 2);
        assert!(n.take_sent().is_empty());
        assert_eq!(poll(&mut n, 0), vec![]);
    }

    #[test]
    fn recv_wqe_errors_complete_and_nak() {
        let mut n = nic();
        post(&mut n, true, 0, Wqe::nop(false), 0);
        post(&mut n, true, 0, Wqe::recv(1000, 30, false), 1);
        post(&mut n, true, 0, Wqe::recv(1000, 24, false), 2);
        n.deliver(&data_msg(0, 9, 3, Some(1), 5, &[1]));
        n.deliver(&data_msg(0, 9, 3, Some(1), 6, &[2]));
        n.deliver(&data_msg(0, 9, 3, Some(1), 7, &[3]));
        assert_eq!(
            poll(&mut n, 0),
            vec![
                cqe(BAD_OPCODE, NOP, 0, true, 0, 0),
                cqe(BAD_ADDR, RECV, 0, true, 1, 0),
            ]
        );
        assert_eq!(
            n.take_sent(),
            vec![nak(9, 3, 0, 5, BAD_OPCODE), nak(9, 3, 0, 6, BAD_ADDR)]
        );
        assert_eq!(n.mem(1000), 3);
        // Only the accepted message counted.
        assert_eq!(n.counter(1), 1);
        assert_eq!(n.stat(Stat::ErrorCqe), 2);
        assert_eq!(n.stat(Stat::RxDiscard), 2);
    }

    #[test]
    fn wait_cq_counts_beyond_earlier_waits() {
        let mut n = nic();
        config(&mut n, 1, 0, 1, false, false);
        post(&mut n, false, 0, Wqe::wait_cq(1, 2, true), 0);
        post(&mut n, false, 0, Wqe::nop(true), 1);
        assert_eq!(n.cq_counts(1), (0, 0, 2));
        for i in 0..3 {
            post(&mut n, true, 1, Wqe::recv(10 + i, 1, true), i);
        }
        n.run();
        assert_eq!(poll(&mut n, 0), vec![]);
        n.deliver(&data_msg(1, 2, 0, None, 0, &[1]));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![]);
        // Popping does not change `produced`.
        assert_eq!(poll(&mut n, 1), vec![cqe(OK, RECV, 1, true, 0, 1)]);
        n.deliver(&data_msg(1, 2, 0, None, 1, &[2]));
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(OK, WAIT, 0, false, 0, 0), cqe(OK, NOP, 0, false, 1, 0)]
        );
        // The next WAIT claims one completion beyond the first WAIT's two: target 3.
        post(&mut n, false, 0, Wqe::wait_cq(1, 1, true), 2);
        assert_eq!(n.cq_counts(1), (2, 1, 3));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![]);
        n.deliver(&data_msg(1, 2, 0, None, 2, &[3]));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, WAIT, 0, false, 2, 0)]);
        // count 0: completes at once. A CQ out of range: BAD_INDEX, no wait index touched.
        post(&mut n, false, 0, Wqe::wait_cq(1, 0, false), 3);
        post(&mut n, false, 0, Wqe::wait_cq(4, 1, false), 4);
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(BAD_INDEX, WAIT, 0, false, 4, 0)]);
        assert_eq!(n.cq_counts(1), (3, 1, 3));
        // A WAIT posted to an RQ also claims its count (the conversion is done on posting).
        post(&mut n, true, 2, Wqe::wait_cq(1, 5, false), 0);
        assert_eq!(n.cq_counts(1), (3, 1, 8));
    }

    /// libmlx5's `IBV_EXP_WR_CQE_WAIT`: WAITs posted with `more` count from the same index,
    /// the last of the group moves it by the group's largest count (values worked by hand).
    #[test]
    fn grouped_cq_waits_share_their_index() {
        let mut n = nic();
        config(&mut n, 1, 0, 1, false, false);
        // Two queues wait for the same completions: counts 2 and 3 from index 0, then a last
        // WAIT of count 1, also from index 0; the group moves the index by max(2, 3, 1) = 3.
        let target = |n: &mut NicGolden, qp: u64, w: Wqe, index: u64| {
            let (w0, w1) = w.encode();
            assert_eq!(n.host(1, qp, w0, w1), (0, index));
            n.qps[qp as usize].sq.ring[index as usize % WQ_DEPTH].1 >> 32
        };
        assert_eq!(
            target(&mut n, 0, Wqe::wait_cq(1, 2, true).with_more(), 0),
            2
        );
        assert_eq!((n.cq_counts(1).2, n.cq_wait_count(1)), (0, 2));
        assert_eq!(
            target(&mut n, 2, Wqe::wait_cq(1, 3, true).with_more(), 0),
            3
        );
        assert_eq!((n.cq_counts(1).2, n.cq_wait_count(1)), (0, 3));
        assert_eq!(target(&mut n, 3, Wqe::wait_cq(1, 1, true), 0), 1);
        assert_eq!((n.cq_counts(1).2, n.cq_wait_count(1)), (3, 0));
        // The next group counts beyond 3: a last WAIT of count 2 waits for the 5th completion.
        assert_eq!(target(&mut n, 0, Wqe::wait_cq(1, 2, true), 1), 5);
        assert_eq!((n.cq_counts(1).2, n.cq_wait_count(1)), (5, 0));
        for i in 0..5 {
            post(&mut n, true, 1, Wqe::recv(10 + i, 1, true), i);
        }
        let wait_done = |n: &mut NicGolden, cq| {
            poll(n, cq)
                .iter()
                .filter(|c| c.opcode == WAIT)
                .map(|c| c.qp)
                .collect::<Vec<_>>()
        };
        n.deliver(&data_msg(1, 2, 0, None, 0, &[1]));
        n.run();
        assert_eq!(wait_done(&mut n, 0), vec![3], "count 1 from 0");
        n.deliver(&data_msg(1, 2, 0, None, 1, &[2]));
        n.run();
        assert_eq!(wait_done(&mut n, 0), vec![0], "count 2 from 0");
        n.deliver(&data_msg(1, 2, 0, None, 2, &[3]));
        n.run();
        assert_eq!(wait_done(&mut n, 0), vec![2], "count 3 from 0");
        n.deliver(&data_msg(1, 2, 0, None, 3, &[4]));
        n.run();
        assert_eq!(
            wait_done(&mut n, 0),
            vec![],
            "the 5th completion is not there yet"
        );
        n.deliver(&data_msg(1, 2, 0, None, 4, &[5]));
        n.run();
        assert_eq!(wait_done(&mut n, 0), vec![0], "count 2 from 3");
        // A group left open keeps its largest count: a `more` WAIT of 4, then a smaller last.
        assert_eq!(
            target(&mut n, 0, Wqe::wait_cq(1, 4, false).with_more(), 2),
            9
        );
        assert_eq!(target(&mut n, 0, Wqe::wait_cq(1, 0, false), 3), 5);
        assert_eq!((n.cq_counts(1).2, n.cq_wait_count(1)), (9, 0));
    }

    /// A plain QP refuses WAIT, SEND_EN, RECV_EN and CALC on either queue, counts each, and
    /// changes nothing; other work and the default (cross-channel) QPs are unaffected.
    #[test]
    fn a_plain_qp_refuses_cross_channel_work() {
        let mut n = nic();
        let plain = 1 << 18;
        assert_eq!(n.host(8, 1, plain, 0), (0, 0));
        let refused = [
            Wqe::wait_cq(0, 1, true),
            Wqe::wait_counter(0, 1, true),
            Wqe::enable(false, 0, false, 1, true),
            Wqe::enable(true, 0, true, 1, true),
            Wqe {
                opcode: CALC,
                ..Default::default()
            },
        ];
        for (k, w) in refused.iter().enumerate() {
            let (w0, w1) = w.encode();
            assert_eq!(n.host(1, 1, w0, w1), (5, 0), "SQ {w:?}");
            assert_eq!(n.host(2, 1, w0, w1), (5, 0), "RQ {w:?}");
            assert_eq!(n.stat(Stat::HostRefused), 2 * (k as u64 + 1));
        }
        assert_eq!(n.wq_indices(1, false), (0, 0, 0));
        assert_eq!(n.wq_indices(1, true), (0, 0, 0));
        assert_eq!(n.cq_counts(0), (0, 0, 0), "a refused WAIT claims nothing");
        // Plain work still posts and runs; another QP takes the WAIT.
        post(&mut n, false, 1, Wqe::nop(true), 0);
        post(&mut n, false, 0, Wqe::wait_cq(0, 1, true), 0);
        assert_eq!(n.cq_counts(0), (0, 0, 1));
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(OK, NOP, 1, false, 0, 0), cqe(OK, WAIT, 0, false, 0, 0)]
        );
        // A full queue answers FULL before REFUSED; CONFIG_QP without the bit makes it
        // cross-channel again.
        for i in 1..=WQ_DEPTH as u64 {
            post(&mut n, false, 1, Wqe::nop(false), i);
        }
        let (w0, w1) = Wqe::wait_cq(0, 1, true).encode();
        assert_eq!(n.host(1, 1, w0, w1), (3, 0));
        assert_eq!(n.host(8, 1, 0, 0), (0, 0));
        assert_eq!(n.host(2, 1, w0, w1), (0, 0));
        assert_eq!(n.stat(Stat::HostRefused), 10);
    }

    #[test]
    fn wait_counter_threshold() {
        let mut n = nic();
        post(&mut n, false, 0, Wqe::wait_counter(2, 3, true), 0);
        post(&mut n, false, 0, Wqe::nop(false), 1);
        assert_eq!(n.host(6, 2, 2, 0), (0, 0));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![]);
        // Only the low 32 bits of w0 are written.
        assert_eq!(n.host(6, 2, 0xffff_ffff_0000_0003, 0), (0, 0));
        assert_eq!(n.host(7, 2, 0, 0), (0, 3));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, WAIT, 0, false, 0, 0)]);
        // Counter out of range; a threshold already passed (unsigned compare).
        post(&mut n, false, 0, Wqe::wait_counter(8, 0, false), 2);
        post(&mut n, false, 0, Wqe::wait_counter(2, 0, true), 3);
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![
                cqe(BAD_INDEX, WAIT, 0, false, 2, 0),
                cqe(OK, WAIT, 0, false, 3, 0)
            ]
        );
        // Arriving messages move the counter.
        post(&mut n, false, 0, Wqe::wait_counter(5, 2, true), 4);
        post(&mut n, true, 1, Wqe::recv(0, 1, false), 0);
        post(&mut n, true, 1, Wqe::recv(0, 1, false), 1);
        n.deliver(&data_msg(1, 0, 0, Some(5), 0, &[1]));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![]);
        n.deliver(&data_msg(1, 0, 0, Some(5), 1, &[1]));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, WAIT, 0, false, 4, 0)]);
    }

    #[test]
    fn send_en_moves_the_enable_index() {
        let mut n = nic();
        config(&mut n, 1, 1, 0, true, false); // QP 1: managed SQ reporting to CQ 1
        for i in 0..3 {
            post(&mut n, false, 1, Wqe::nop(true), i);
        }
        n.run();
        assert_eq!(poll(&mut n, 1), vec![]);
        // By 1: WQE 0 only.
        post(&mut n, false, 0, Wqe::enable(false, 1, false, 1, true), 0);
        n.run();
        assert_eq!(poll(&mut n, 1), vec![cqe(OK, NOP, 1, false, 0, 0)]);
        assert_eq!(n.wq_indices(1, false), (3, 1, 1));
        // Up to index 2: WQEs 1 and 2.
        post(&mut n, false, 0, Wqe::enable(false, 1, true, 2, false), 1);
        n.run();
        assert_eq!(
            poll(&mut n, 1),
            vec![cqe(OK, NOP, 1, false, 1, 0), cqe(OK, NOP, 1, false, 2, 0)]
        );
        // Up to index 0 would move ei backwards: unchanged.
        post(&mut n, false, 0, Wqe::enable(false, 1, true, 0, false), 2);
        n.run();
        assert_eq!(n.wq_indices(1, false), (3, 3, 3));
        // Enabling ahead of posting: the WQE posted later runs at once.
        post(&mut n, false, 0, Wqe::enable(false, 1, false, 2, false), 3);
        n.run();
        assert_eq!(n.wq_indices(1, false), (3, 3, 5));
        post(&mut n, false, 1, Wqe::nop(true), 3);
        n.run();
        assert_eq!(poll(&mut n, 1), vec![cqe(OK, NOP, 1, false, 3, 0)]);
        // Target QP out of range.
        post(&mut n, false, 0, Wqe::enable(false, 4, false, 1, false), 4);
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![
                cqe(OK, SEND_EN, 0, false, 0, 0),
                cqe(BAD_INDEX, SEND_EN, 0, false, 4, 0)
            ]
        );
        // Re-configuring a managed queue disables what was enabled ahead: ei = ci.
        config(&mut n, 1, 1, 0, true, false);
        assert_eq!(n.wq_indices(1, false), (4, 4, 4));
    }

    /// libmlx5's enables (mode 2): counted from the target queue's enable head, refused for an
    /// unmanaged queue or beyond what is posted, 0 = everything posted, grouped by `more`.
    /// Indices worked out by hand from the rules in the module docs of `super`.
    #[test]
    fn enables_count_from_the_enable_head() {
        let mut n = nic();
        let en = |count| Wqe::enable_posted(false, 1, count, false);
        // QP 1's SQ is not managed yet: refused, counted, nothing posted.
        assert_eq!(post_raw_wqe(&mut n, 0, en(1)), (5, 0));
        assert_eq!(n.stat(Stat::HostRefused), 1);
        config(&mut n, 1, 1, 0, true, false);
        for i in 0..4 {
            post(&mut n, false, 1, Wqe::nop(true), i);
        }
        // 2 from head 0: up to index 2; the head moves to 2. Posted as mode 3, index 2.
        post(&mut n, false, 0, en(2), 0);
        let (w0, w1) = n.qps[0].sq.ring[0];
        let f = WqeWords::unpack(w0, w1);
        assert_eq!((f.en_mode, f.en_value, f.en_qp), (3, 2, 1));
        assert!(!Wqe::decode(w0, w1).signaled);
        n.run();
        assert_eq!(n.wq_indices(1, false), (4, 2, 2));
        assert_eq!(poll(&mut n, 1).len(), 2);
        // 3 more would reach index 5, beyond the 4 posted: refused, the head stays at 2.
        assert_eq!(post_raw_wqe(&mut n, 0, en(3)), (5, 0));
        assert_eq!(n.stat(Stat::HostRefused), 2);
        // A group: 1 (more) and 2 (last) both count from 2; the head then moves by 2, to 4.
        post(&mut n, false, 0, en(1).with_more(), 1);
        post(&mut n, false, 0, en(2), 2);
        assert_eq!(
            WqeWords::unpack(n.qps[0].sq.ring[1].0, n.qps[0].sq.ring[1].1).en_value,
            3
        );
        assert_eq!(
            WqeWords::unpack(n.qps[0].sq.ring[2].0, n.qps[0].sq.ring[2].1).en_value,
            4
        );
        n.run();
        assert_eq!(n.wq_indices(1, false), (4, 4, 4));
        // Count 0: everything posted (two more NOPs: up to 6), the head moves to 6.
        post(&mut n, false, 1, Wqe::nop(true), 4);
        post(&mut n, false, 1, Wqe::nop(true), 5);
        post(&mut n, false, 0, en(0), 3);
        n.run();
        assert_eq!(n.wq_indices(1, false), (6, 6, 6));
        assert_eq!(poll(&mut n, 1).len(), 4);
        // Nothing posted beyond the head: 1 is refused, 0 enables nothing.
        assert_eq!(post_raw_wqe(&mut n, 0, en(1)), (5, 0));
        post(&mut n, false, 0, en(0), 4);
        // A target out of range is posted as it is and fails when it runs.
        post(&mut n, false, 0, Wqe::enable_posted(false, 4, 1, false), 5);
        assert_eq!(
            n.qps[0].sq.ring[5],
            Wqe::enable_posted(false, 4, 1, false).encode()
        );
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(BAD_INDEX, SEND_EN, 0, false, 5, 0)]
        );
        // A plain QP refuses before the target is looked at (the head does not move).
        let plain = 1 << 18;
        assert_eq!(n.host(8, 2, plain, 0), (0, 0));
        post(&mut n, false, 1, Wqe::nop(false), 6);
        assert_eq!(post_raw_wqe(&mut n, 2, en(1)), (5, 0));
        assert_eq!(n.qps[1].sq.head_index, 6);
        // CONFIG_QP making the queue managed again resets the head to ci.
        post(&mut n, false, 0, en(1).with_more(), 6);
        assert_eq!(n.qps[1].sq.head_count, 1);
        n.run();
        config(&mut n, 1, 1, 0, true, false);
        assert_eq!((n.qps[1].sq.head_index, n.qps[1].sq.head_count), (7, 0));
        // RECV_EN counts from the RQ's own head.
        config(&mut n, 3, 0, 2, false, true);
        post(&mut n, true, 3, Wqe::recv(100, 1, true), 0);
        post(&mut n, false, 0, Wqe::enable_posted(true, 3, 0, false), 7);
        n.run();
        assert_eq!(n.wq_indices(3, true), (1, 0, 1));
        assert_eq!(n.qps[3].sq.head_index, 0);
    }

    #[test]
    fn recv_en_enables_receive_wqes() {
        let mut n = nic();
        config(&mut n, 1, 0, 1, false, true); // QP 1: managed RQ reporting to CQ 1
        post(&mut n, true, 1, Wqe::recv(50, 2, true), 0);
        post(&mut n, true, 1, Wqe::recv(60, 2, true), 1);
        // Not enabled: discarded and NAKed; the WQE is not consumed.
        n.deliver(&data_msg(1, 4, 2, None, 7, &[1, 2]));
        assert_eq!(n.take_sent(), vec![nak(4, 2, 1, 7, NOT_READY)]);
        assert_eq!(n.wq_indices(1, true), (2, 0, 0));
        post(&mut n, false, 0, Wqe::enable(true, 1, false, 1, true), 0);
        n.run();
        n.deliver(&data_msg(1, 4, 2, None, 8, &[3, 4]));
        // Only one was enabled.
        n.deliver(&data_msg(1, 4, 2, None, 9, &[5, 6]));
        assert_eq!(n.take_sent(), vec![nak(4, 2, 1, 9, NOT_READY)]);
        assert_eq!(poll(&mut n, 1), vec![cqe(OK, RECV, 1, true, 0, 2)]);
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, RECV_EN, 0, false, 0, 0)]);
        assert_eq!(mem(&n, 50, 2), vec![3, 4]);
        assert_eq!(mem(&n, 60, 2), vec![0, 0]);
        assert_eq!(n.stat(Stat::RxDiscard), 2);
    }

    #[allow(clippy::too_many_arguments)]
    fn calc(op: u64, dtype: u64, count: u64, a: u64, sa: u64, b: u64, sb: u64, dst: u64) -> Wqe {
        Wqe::calc(op, dtype, count, (a, sa), (b, sb), dst)
    }

    #[test]
    fn calc_to_memory_and_to_a_peer() {
        let mut n = nic();
        // SUM int64, `a` strided by 2 (junk words in between), `b` contiguous.
        write(&mut n, 16, &[1, 100, 2, 100, 3, 100]);
        write(&mut n, 32, &[10, 20, 30]);
        post(&mut n, false, 0, calc(4, 2, 3, 16, 2, 32, 1, 48), 0);
        // SUM int32 wraps and ignores the upper 32 bits.
        write(&mut n, 56, &[0xdead_beef_7fff_ffff, 1]);
        post(&mut n, false, 0, calc(4, 0, 1, 56, 1, 57, 1, 58), 1);
        // MAXLOC int32 on (value, index) pairs, to node 9 QP 3 with counter 4:
        // max(-5, -3) = -3 at index 1; a tie at 7 takes the lower index 0.
        write(&mut n, 64, &[-5i64 as u64, 0, 7, 0]);
        write(&mut n, 72, &[-3i64 as u64, 1, 7, 1]);
        post(
            &mut n,
            false,
            0,
            Wqe {
                mode: 1,
                dst: 9,
                qp: 3,
                cnt_en: true,
                cnt: 4,
                ..calc(2, 0, 2, 64, 2, 72, 2, 80)
            },
            2,
        );
        // BXOR uint64 with `sb = 0` (one `b` element for all).
        write(&mut n, 96, &[0xFFFF_0000_FFFF_0000, 0x0F0F_0F0F_0F0F_0F0F]);
        write(&mut n, 100, &[u64::MAX]);
        post(&mut n, false, 0, calc(11, 3, 2, 96, 1, 100, 0, 104), 3);
        // In place, `sa = 0`: element 0 overwrites the `a` the next elements read.
        write(&mut n, 120, &[5]);
        write(&mut n, 130, &[1, 1, 1]);
        post(&mut n, false, 0, calc(4, 3, 3, 120, 0, 130, 1, 120), 4);
        n.run();
        assert_eq!(mem(&n, 48, 4), vec![11, 22, 33, 0]);
        assert_eq!(n.mem(58), 0x8000_0000);
        assert_eq!(mem(&n, 80, 4), vec![0xFFFF_FFFD, 1, 7, 0]);
        assert_eq!(
            mem(&n, 104, 2),
            vec![0x0000_FFFF_0000_FFFF, 0xF0F0_F0F0_F0F0_F0F0]
        );
        assert_eq!(mem(&n, 120, 3), vec![6, 7, 7]);
        assert_eq!(
            n.take_sent(),
            vec![Message {
                kind_nak: false,
                node: 9,
                src_qp: 0,
                qp: 3,
                cnt: Some(4),
                tag: 2,
                ack: false,
                data: vec![0xFFFF_FFFD, 1, 7, 0],
            }]
        );
        assert_eq!(
            poll(&mut n, 0),
            (0..5)
                .map(|i| cqe(OK, CALC, 0, false, i, 0))
                .collect::<Vec<_>>()
        );
    }

    /// `SET_SHAPE`'s word for one dimension: count, then the strides of `a`, `b`, the result.
    fn dim(count: u64, sa: u64, sb: u64, sd: u64) -> u64 {
        count | sa << 16 | sb << 32 | sd << 48
    }

    #[test]
    fn calc_with_shapes() {
        let mut n = nic();
        // Shape 1: rows of a 2 x 3 block of a 4-column matrix `a`, `b` and the result
        // contiguous 2 x 3 (row strides 4, 3, 3).
        assert_eq!(n.host(11, 1, dim(2, 4, 3, 3), 0), (OK, 0));
        write(&mut n, 200, &[1, 2, 3, 100, 5, 6, 7, 100]);
        write(&mut n, 300, &[10, 20, 30, 40, 50, 60]);
        post(
            &mut n,
            false,
            0,
            Wqe {
                index: 1,
                ..calc(4, 2, 3, 200, 1, 300, 1, 400)
            },
            0,
        );
        // Shape 2 (reading 2): the rows of `b` folded into `dst`, which is also `a`.
        assert_eq!(n.host(11, 2, dim(3, 0, 2, 0), 0), (OK, 0));
        write(&mut n, 500, &[1, 1]);
        write(&mut n, 510, &[1, 2, 10, 20, 100, 200]);
        post(
            &mut n,
            false,
            0,
            Wqe {
                index: 2,
                ..calc(4, 2, 2, 500, 1, 510, 1, 500)
            },
            1,
        );
        // Shape 3, three dimensions of MINLOC pairs (`count` 1, 2 x 2 outer): `a` and `b`
        // contiguous pairs, the result with gaps (row stride 3, plane stride 7), sent to node 9
        // QP 3 with counter 4: the message is the span, gaps included.
        assert_eq!(n.host(11, 3, dim(2, 2, 2, 3), dim(2, 4, 4, 7)), (OK, 0));
        write(&mut n, 600, &[5, 0, 3, 1, 8, 2, -1i64 as u64, 3]);
        write(&mut n, 700, &[4, 9, 3, 0, 9, 9, -1i64 as u64, 1]);
        write(&mut n, 800, &[0xEE; 12]);
        let to_peer = Wqe {
            index: 3,
            mode: 1,
            dst: 9,
            qp: 3,
            cnt_en: true,
            cnt: 4,
            ..calc(3, 2, 1, 600, 2, 700, 2, 800)
        };
        post(&mut n, false, 0, to_peer, 2);
        // Shape 6 was never set: one-dimensional.
        write(&mut n, 900, &[1, 2]);
        post(
            &mut n,
            false,
            0,
            Wqe {
                index: 6,
                ..calc(4, 2, 2, 900, 1, 900, 1, 902)
            },
            3,
        );
        n.run();
        assert_eq!(mem(&n, 400, 7), vec![11, 22, 33, 45, 56, 67, 0]);
        assert_eq!(mem(&n, 500, 2), vec![112, 223]);
        let m1 = -1i64 as u64;
        let span = vec![4, 9, 0xEE, 3, 0, 0xEE, 0xEE, 8, 2, 0xEE, m1, 1];
        assert_eq!(mem(&n, 800, 13), [span.clone(), vec![0]].concat());
        assert_eq!(mem(&n, 902, 3), vec![2, 4, 0]);
        assert_eq!(
            n.take_sent(),
            vec![Message {
                kind_nak: false,
                node: 9,
                src_qp: 0,
                qp: 3,
                cnt: Some(4),
                tag: 2,
                ack: false,
                data: span,
            }]
        );
        assert_eq!(
            poll(&mut n, 0),
            (0..4)
                .map(|i| cqe(OK, CALC, 0, false, i, 0))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn calc_shape_bounds_and_set_shape_errors() {
        let mut n = nic();
        // Shape 0 is fixed and shape 8 does not exist.
        assert_eq!(n.host(11, 0, dim(2, 1, 1, 1), 0), (BAD_INDEX, 0));
        assert_eq!(n.host(11, 8, dim(2, 1, 1, 1), 0), (BAD_INDEX, 0));
        // `a`'s last element at 100 + 1000 (1024 words): outside; the same for `b` through
        // dimension 2; the result's end 100 + 1 + 923 = 1024 fits, 1025 does not.
        assert_eq!(n.host(11, 1, dim(2, 1000, 0, 0), 0), (OK, 0));
        assert_eq!(n.host(11, 2, 0, dim(3, 0, 462, 0)), (OK, 0));
        assert_eq!(n.host(11, 3, dim(2, 0, 0, 923), 0), (OK, 0));
        assert_eq!(n.host(11, 4, dim(2, 0, 0, 924), 0), (OK, 0));
        write(&mut n, 100, &[7]);
        let shaped = |shape, dst| Wqe {
            index: shape,
            ..calc(4, 2, 1, 100, 1, 100, 1, dst)
        };
        for (i, (shape, dst)) in [(1, 200), (2, 201), (3, 100), (4, 300)]
            .into_iter()
            .enumerate()
        {
            post(&mut n, false, 0, shaped(shape, dst), i as u64);
        }
        n.run();
        let status = [BAD_ADDR, BAD_ADDR, OK, BAD_ADDR];
        let cqes: Vec<_> = (0..4)
            .map(|i| cqe(status[i], CALC, 0, false, i as u64, 0))
            .collect();
        assert_eq!(poll(&mut n, 0), cqes);
        // Only shape 3's CALC wrote: its first element 7 + 7 at 100; its second reads `a` and
        // `b` at 100 again (strides 0), after the first wrote there, and writes 1023.
        assert_eq!(
            (n.mem(100), n.mem(1023), n.mem(200), n.mem(300)),
            (14, 28, 0, 0)
        );
    }

    #[test]
    fn calc_errors_and_empty() {
        let mut n = nic();
        let unsignaled = |w: Wqe| Wqe {
            signaled: false,
            ..w
        };
        // Reserved ALU operation 12.
        post(
            &mut n,
            false,
            0,
            unsignaled(calc(12, 0, 1, 0, 1, 0, 1, 0)),
            0,
        );
        // `a`'s last element at 1020 + 2 * 2 = 1024: outside.
        post(
            &mut n,
            false,
            0,
            unsignaled(calc(4, 2, 3, 1020, 2, 0, 1, 0)),
            1,
        );
        // Result 1023 .. 1024: outside; 1022 .. 1023: fine.
        post(
            &mut n,
            false,
            0,
            unsignaled(calc(4, 2, 2, 0, 1, 0, 1, 1023)),
            2,
        );
        post(
            &mut n,
            false,
            0,
            unsignaled(calc(4, 2, 2, 0, 1, 0, 1, 1022)),
            3,
        );
        // MINLOC at 1023: its index word 1024 is outside.
        post(
            &mut n,
            false,
            0,
            unsignaled(calc(3, 2, 1, 1023, 1, 0, 1, 0)),
            4,
        );
        // count 0 to a peer: an empty message; to memory: nothing.
        post(
            &mut n,
            false,
            0,
            Wqe {
                mode: 1,
                dst: 1,
                qp: 2,
                ..calc(4, 2, 0, 1023, 1, 1023, 1, 1023)
            },
            5,
        );
        post(&mut n, false, 0, calc(4, 2, 0, 5000, 1, 0, 1, 0), 6);
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![
                cqe(BAD_ARG, CALC, 0, false, 0, 0),
                cqe(BAD_ADDR, CALC, 0, false, 1, 0),
                cqe(BAD_ADDR, CALC, 0, false, 2, 0),
                cqe(BAD_ADDR, CALC, 0, false, 4, 0),
                cqe(OK, CALC, 0, false, 5, 0),
                cqe(OK, CALC, 0, false, 6, 0),
            ]
        );
        assert_eq!(
            n.take_sent(),
            vec![Message {
                kind_nak: false,
                node: 1,
                src_qp: 0,
                qp: 2,
                cnt: None,
                tag: 5,
                ack: false,
                data: vec![],
            }]
        );
        assert_eq!(n.stat(Stat::ErrorCqe), 4);
    }

    #[test]
    fn host_command_errors() {
        let mut n = nic();
        assert_eq!(n.host(0, 0, 0, 0), (0, 0));
        // 11 is SET_SHAPE, whose shape 0 is fixed; 12 is unknown.
        assert_eq!(n.host(11, 0, 0, 0), (2, 0));
        assert_eq!(n.host(11, 8, 0, 0), (2, 0));
        assert_eq!(n.host(12, 0, 0, 0), (1, 0));
        assert_eq!(n.host(15, 0, 0, 0), (1, 0));
        // Out of range: QP 4, CQ 4, address 1024, counter 8, stat 12, CONFIG_QP with CQ 4.
        let (w0, w1) = Wqe::nop(true).encode();
        assert_eq!(n.host(1, 4, w0, w1), (2, 0));
        assert_eq!(n.host(2, 4, w0, w1), (2, 0));
        assert_eq!(n.host(3, 4, 0, 0), (2, 0));
        assert_eq!(n.host(4, 1024, 1, 0), (2, 0));
        assert_eq!(n.host(5, 1024, 0, 0), (2, 0));
        assert_eq!(n.host(6, 8, 1, 0), (2, 0));
        assert_eq!(n.host(7, 8, 0, 0), (2, 0));
        assert_eq!(n.host(8, 0, 0x0004, 0), (2, 0));
        assert_eq!(n.host(8, 0, 0x0400, 0), (2, 0));
        assert_eq!(n.host(9, 12, 0, 0), (2, 0));
        // `arg` is 16 bits: 0x1_0001 is QP 1.
        assert_eq!(n.host(1, 0x1_0001, w0, w1), (0, 0));
        // Full WQ: 16 WQEs posted to an RQ nothing consumes.
        for i in 1..16 {
            assert_eq!(n.host(2, 3, w0, w1), (0, i - 1));
        }
        assert_eq!(n.host(2, 3, w0, w1), (0, 15));
        assert_eq!(n.host(2, 3, w0, w1), (3, 0));
        // Poll of an empty CQ.
        assert_eq!(n.host(3, 0, 0, 0), (4, 0));
        assert_eq!(n.host(9, 0, 0, 0), (0, 2)); // HostBadOp
        assert_eq!(n.host(9, 1, 0, 0), (0, 12)); // HostBadIndex (2 of them SET_SHAPE's)
        assert_eq!(n.host(9, 2, 0, 0), (0, 1)); // WqFull
        for s in 3..8 {
            assert_eq!(n.host(9, s, 0, 0), (0, 0));
        }
        // Reading the stat does not count; memory and counters read back.
        assert_eq!(n.host(4, 1023, u64::MAX, 0), (0, 0));
        assert_eq!(n.host(5, 1023, 0, 0), (0, u64::MAX));
        assert_eq!(n.host(6, 7, 0x1_2345_6789, 0), (0, 0));
        assert_eq!(n.host(7, 7, 0, 0), (0, 0x2345_6789));
        assert_eq!(n.host(9, 1, 0, 0), (0, 12));
    }

    #[test]
    fn full_cq_stalls_the_sq_and_discards_messages() {
        let mut n = nic();
        config(&mut n, 1, 0, 0, false, false);
        for i in 0..16 {
            post(&mut n, false, 0, Wqe::nop(true), i);
        }
        n.run();
        for i in 0..16 {
            post(&mut n, false, 0, Wqe::nop(true), 16 + i);
        }
        n.run();
        assert_eq!(n.cq_counts(0), (32, 0, 0));
        // The CQ is full: the next WQE waits (unsignaled too), counted once.
        post(&mut n, false, 0, Wqe::nop(false), 32);
        n.run();
        n.run();
        assert_eq!(n.wq_indices(0, false), (33, 32, 0));
        assert_eq!(n.stat(Stat::CqStall), 1);
        // A message whose RQ's CQ is full: NAK; a NAK notification: dropped.
        post(&mut n, true, 1, Wqe::recv(0, 1, true), 0);
        n.deliver(&data_msg(1, 2, 3, None, 4, &[1]));
        assert_eq!(n.take_sent(), vec![nak(2, 3, 1, 4, NOT_READY)]);
        n.deliver(&nak(2, 0, 3, 0, NOT_READY));
        assert_eq!(n.stat(Stat::CqOverrun), 1);
        assert_eq!(n.stat(Stat::RxDiscard), 1);
        // Popping one lets the stalled WQE run.
        assert_eq!(
            Cqe::decode(n.host(3, 0, 0, 0).1),
            cqe(OK, NOP, 0, false, 0, 0)
        );
        n.run();
        assert_eq!(n.wq_indices(0, false), (33, 33, 0));
        assert_eq!(n.cq_counts(0), (32, 1, 0));
        assert_eq!(n.stat(Stat::CqStall), 1);
    }

    /// Found by fuzzing: a CALC to a peer with `count = 0` and a result address beyond the data
    /// memory panicked; it sends one empty message, as the hardware does (reading 8).
    #[test]
    fn empty_calc_to_a_peer_with_any_address_sends_an_empty_message() {
        let mut g = NicGolden::new(NicParams::SMALL);
        let mut w = calc(4, 3, 0, 0, 1, 0, 1, 2000);
        w.mode = 1;
        w.dst = 5;
        w.qp = 2;
        let (w0, w1) = w.encode();
        assert_eq!(g.host(HostOp::PostSq as u64, 0, w0, w1).0, 0);
        g.run();
        let sent = g.take_sent();
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].node, sent[0].qp, sent[0].data.len()), (5, 2, 0));
    }

    /// A WQE with a reserved bit set fails with BAD_OPCODE (on the SQ when it runs, on the RQ
    /// when a message consumes it), as the cycle model and the RTL do.
    #[test]
    fn reserved_bits_fail_the_wqe() {
        let mut g = NicGolden::new(NicParams::SMALL);
        let (w0, w1) = Wqe::nop(true).encode();
        assert_eq!(g.host(HostOp::PostSq as u64, 0, w0, w1 | 1 << 17).0, 0);
        g.run();
        let (status, cqe) = g.host(HostOp::PollCq as u64, 0, 0, 0);
        assert_eq!(status, 0);
        assert_eq!(Cqe::decode(cqe).status, BAD_OPCODE);
        let (w0, w1) = Wqe::recv(16, 4, true).encode();
        assert_eq!(g.host(HostOp::PostRq as u64, 1, w0 | 1 << 6, w1).0, 0);
        g.deliver(&Message {
            kind_nak: false,
            node: 3,
            src_qp: 0,
            qp: 1,
            cnt: None,
            tag: 0,
            ack: false,
            data: vec![1],
        });
        let sent = g.take_sent();
        assert_eq!(sent.len(), 1, "the message is NAKed");
        assert!(sent[0].kind_nak);
        assert_eq!(sent[0].data, vec![BAD_OPCODE]);
    }

    // Codes of "Reliable QPs", written out.
    const RNR_NAK: u64 = 8;
    const RNR_RETRY_EXC: u64 = 9;

    /// CONFIG_QP of QP `qp`: CQ 0 for both queues, reliable with `retry` and `delay`.
    fn config_rc(n: &mut NicGolden, qp: u64, retry: u64, delay: u64) {
        let w0 = 1 << 19 | retry << 20 | delay << 32;
        assert_eq!(n.host(8, qp, w0, 0), (0, 0));
    }

    /// The data message QP 0 of this NIC sends to QP 1 of node 3, asking for an answer.
    fn rc_send(tag: u64, data: &[u64]) -> Message {
        Message {
            kind_nak: false,
            node: 3,
            src_qp: 0,
            qp: 1,
            cnt: None,
            tag,
            ack: true,
            data: data.to_vec(),
        }
    }

    #[test]
    fn a_reliable_send_awaits_its_answer() {
        let mut n = nic();
        config_rc(&mut n, 0, 2, 100);
        write(&mut n, 10, &[7, 8]);
        post(&mut n, false, 0, Wqe::send(10, 2, 3, 1, None, true), 0);
        post(&mut n, false, 0, Wqe::nop(true), 1);
        n.run();
        assert_eq!(n.take_sent(), vec![rc_send(0, &[7, 8])]);
        // Sent, not completed: the NOP behind it waits too.
        assert_eq!(poll(&mut n, 0), vec![]);
        n.run();
        assert_eq!(n.take_sent(), vec![], "nothing is sent twice");
        // The ACK: the SEND completes, then the NOP.
        n.deliver(&nak(3, 0, 1, 0, OK));
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(OK, SEND, 0, false, 0, 0), cqe(OK, NOP, 0, false, 1, 0)]
        );
        // An ACK nothing awaits, on a reliable QP: dropped and counted.
        n.deliver(&nak(3, 0, 1, 0, OK));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![]);
        assert_eq!(n.stat(Stat::StrayAck), 1);
        // On a QP that is not reliable, a NAK with reason OK is the notification, as before.
        n.deliver(&nak(3, 2, 1, 5, OK));
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(REMOTE_DISCARD, SEND, 2, false, 5, 0)]
        );
        assert_eq!(n.stat(Stat::StrayAck), 1);
    }

    #[test]
    fn rnr_naks_make_the_sender_retry_until_its_retries_run_out() {
        let mut n = nic();
        config_rc(&mut n, 0, 1, 100);
        write(&mut n, 10, &[7, 8]);
        post(&mut n, false, 0, Wqe::send(10, 2, 3, 1, None, false), 0);
        n.run();
        assert_eq!(n.take_sent(), vec![rc_send(0, &[7, 8])]);
        // RNR NAK: sent again, the buffer as it is now.
        n.deliver(&nak(3, 0, 1, 0, RNR_NAK));
        write(&mut n, 10, &[9]);
        n.run();
        assert_eq!(n.take_sent(), vec![rc_send(0, &[9, 8])]);
        assert_eq!(n.stat(Stat::RnrRetry), 1);
        assert_eq!(poll(&mut n, 0), vec![]);
        // Another: its one retry is spent, the (unsignaled) SEND fails.
        n.deliver(&nak(3, 0, 1, 0, RNR_NAK));
        n.run();
        assert_eq!(n.take_sent(), vec![]);
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(RNR_RETRY_EXC, SEND, 0, false, 0, 0)]
        );
        assert_eq!(n.stat(Stat::ErrorCqe), 1);
        // Any other NAK reason fails it with REMOTE_DISCARD.
        post(&mut n, false, 0, Wqe::send(10, 1, 3, 1, None, false), 1);
        n.run();
        assert_eq!(n.take_sent(), vec![rc_send(1, &[9])]);
        n.deliver(&nak(3, 0, 1, 1, NOT_READY));
        n.run();
        assert_eq!(
            poll(&mut n, 0),
            vec![cqe(REMOTE_DISCARD, SEND, 0, false, 1, 0)]
        );
        assert_eq!(n.stat(Stat::NakReceived), 1);
    }

    #[test]
    fn rnr_retry_7_retries_for_ever_and_a_calc_is_not_computed_again() {
        let mut n = nic();
        config_rc(&mut n, 0, 7, 0);
        write(&mut n, 20, &[5, 6]);
        let calc = Wqe {
            opcode: CALC,
            signaled: true,
            alu_op: AluOp::Sum as u64,
            dtype: Dtype::U64 as u64,
            mode: 1,
            len: 1,
            addr: 20,
            b: 21,
            sa: 1,
            sb: 1,
            dst_addr: 22,
            dst: 3,
            qp: 1,
            ..Default::default()
        };
        post(&mut n, false, 0, calc, 0);
        n.run();
        assert_eq!(n.take_sent(), vec![rc_send(0, &[11])]);
        write(&mut n, 20, &[100]);
        for _ in 0..10 {
            n.deliver(&nak(3, 0, 1, 0, RNR_NAK));
            n.run();
            assert_eq!(n.take_sent(), vec![rc_send(0, &[11])]);
        }
        assert_eq!(n.stat(Stat::RnrRetry), 10);
        n.deliver(&nak(3, 0, 1, 0, OK));
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, CALC, 0, false, 0, 0)]);
        assert_eq!(mem(&n, 20, 3), vec![100, 6, 11]);
    }

    #[test]
    fn a_reliable_receiver_answers_ack_or_rnr_nak() {
        let mut n = nic();
        config_rc(&mut n, 1, 0, 0);
        let msg = |ack: bool| Message {
            ack,
            ..data_msg(1, 4, 2, None, 7, &[42])
        };
        // No receive WQE: RNR NAK for a message that asks for an answer, NOT_READY otherwise.
        n.deliver(&msg(true));
        assert_eq!(n.take_sent(), vec![nak(4, 2, 1, 7, RNR_NAK)]);
        n.deliver(&msg(false));
        assert_eq!(n.take_sent(), vec![nak(4, 2, 1, 7, NOT_READY)]);
        assert_eq!(n.stat(Stat::RxDiscard), 2);
        // With one: stored, then the ACK.
        post(&mut n, true, 1, Wqe::recv(50, 4, true), 0);
        n.deliver(&msg(true));
        assert_eq!(n.take_sent(), vec![nak(4, 2, 1, 7, OK)]);
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, RECV, 1, true, 0, 1)]);
        assert_eq!(mem(&n, 50, 1), vec![42]);
        // A QP that is not reliable: NOT_READY whether the message asks or not.
        n.deliver(&Message { qp: 2, ..msg(true) });
        assert_eq!(n.take_sent(), vec![nak(4, 2, 2, 7, NOT_READY)]);
    }

    const PIPE: u64 = 7;

    /// `SET_CHANNEL` (10) of counter `c`: armed for QP `qp`, buffer `addr`, `len` (host status
    /// `BAD_INDEX` is 2 as well).
    fn arm(n: &mut NicGolden, c: u64, qp: u64, addr: u64, len: u64) -> (u64, u64) {
        n.host(10, c, addr | len << 16 | qp << 32 | 1 << 40, 0)
    }

    #[test]
    fn receive_channels_take_messages_by_counter_in_any_order() {
        let mut n = nic();
        config_rc(&mut n, 1, 7, 10);
        // Counters 2 and 5 armed for QP 1, 3 for QP 2: buffers at 100, 200, 300.
        assert_eq!(arm(&mut n, 2, 1, 100, 2), (0, 0));
        assert_eq!(arm(&mut n, 5, 1, 200, 3), (0, 0));
        assert_eq!(arm(&mut n, 3, 2, 300, 1), (0, 0));
        // Step 5's message arrives first, then step 2's: each in its own buffer.
        n.deliver(&data_msg(1, 7, 0, Some(5), 1, &[50, 51, 52]));
        n.deliver(&data_msg(1, 6, 0, Some(2), 0, &[20, 21]));
        assert_eq!(mem(&n, 100, 2), vec![20, 21]);
        assert_eq!(mem(&n, 200, 3), vec![50, 51, 52]);
        assert_eq!((n.counter(2), n.counter(5)), (1, 1));
        // No receive WQE consumed, no CQE, nothing discarded.
        assert_eq!(n.wq_indices(1, true), (0, 0, 0));
        assert_eq!(poll(&mut n, 0), vec![]);
        assert_eq!(n.take_sent(), vec![]);
        // Counter 3's channel is for QP 2: a message to QP 1 with it goes to QP 1's RQ,
        // which has nothing posted: NOT_READY, and on a reliable QP, asked, RNR NAK.
        n.deliver(&data_msg(1, 6, 4, Some(3), 9, &[1]));
        let mut asked = data_msg(1, 6, 4, Some(2), 8, &[1]);
        asked.ack = true;
        // Counter 2's channel took its message and is disarmed: the sender must retry.
        n.deliver(&asked);
        assert_eq!(
            n.take_sent(),
            vec![nak(6, 4, 1, 9, NOT_READY), nak(6, 4, 1, 8, RNR_NAK)]
        );
        assert_eq!((n.counter(2), n.counter(3)), (1, 0));
        assert_eq!(n.stat(Stat::RxDiscard), 2);
        // Armed again, with a shorter buffer: the retry fills it and is answered; the rest
        // is counted as an overrun.
        assert_eq!(arm(&mut n, 2, 1, 110, 1), (0, 0));
        let mut retry = data_msg(1, 6, 4, Some(2), 8, &[30, 31]);
        retry.ack = true;
        n.deliver(&retry);
        assert_eq!(n.take_sent(), vec![nak(6, 4, 1, 8, OK)]);
        assert_eq!((mem(&n, 110, 2), n.counter(2)), (vec![30, 0], 2));
        assert_eq!(n.stat(Stat::ChanOverrun), 1);
        // A message without a counter goes to the RQ as always.
        post(&mut n, true, 2, Wqe::recv(400, 1, true), 0);
        n.deliver(&data_msg(2, 6, 4, None, 3, &[44]));
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, RECV, 2, true, 0, 1)]);
        // Disarming (armed clear) is written unchecked; the next message goes to the RQ.
        assert_eq!(n.host(10, 3, 0xFFFF_FFFF, 0), (0, 0));
        n.deliver(&data_msg(2, 6, 4, Some(3), 4, &[1]));
        assert_eq!(n.take_sent(), vec![nak(6, 4, 2, 4, NOT_READY)]);
        // Refused arms change nothing: counter, QP or buffer out of range.
        for (c, qp, addr, len) in [(8, 1, 0, 1), (2, 4, 0, 1), (2, 1, 1020, 5)] {
            assert_eq!(arm(&mut n, c, qp, addr, len), (BAD_INDEX, 0));
        }
        assert_eq!(n.stat(Stat::HostBadIndex), 3);
        n.deliver(&data_msg(1, 6, 4, Some(2), 5, &[1]));
        assert_eq!(n.take_sent(), vec![nak(6, 4, 1, 5, NOT_READY)]);
    }

    #[test]
    fn a_pipe_forwards_chunks_through_its_ring_of_buffers() {
        let mut n = nic();
        // QP 2's PIPE forwards 3 chunks arriving at QP 1 to QP 6 of node 5 (counter 4),
        // through 2 buffers of 2 words at 0x10, 0x12.
        let pipe = Wqe::pipe(1, (0x10, 2, 2), 3, 5, 6, Some(4));
        // Before the PIPE runs, a message for QP 1 goes to its RQ (nothing posted).
        n.deliver(&data_msg(1, 9, 3, None, 7, &[1]));
        assert_eq!(n.take_sent(), vec![nak(9, 3, 1, 7, NOT_READY)]);
        post(&mut n, false, 2, pipe, 0);
        n.run();
        assert_eq!(n.take_sent(), vec![]);
        // Two chunks fill both buffers; with no `run` in between nothing is sent, so a third
        // finds no free buffer: NOT_READY, or RNR_NAK on a reliable QP for a message that
        // asks for an answer.
        n.deliver(&data_msg(1, 9, 3, Some(0), 0, &[10, 11]));
        n.deliver(&data_msg(1, 9, 3, Some(0), 1, &[12, 13, 99]));
        n.deliver(&data_msg(1, 9, 3, None, 2, &[14]));
        config_rc(&mut n, 1, 0, 0);
        let mut asking = data_msg(1, 9, 3, None, 3, &[15]);
        asking.ack = true;
        n.deliver(&asking);
        assert_eq!(
            n.take_sent(),
            vec![nak(9, 3, 1, 2, NOT_READY), nak(9, 3, 1, 3, RNR_NAK)]
        );
        assert_eq!(n.counter(0), 2);
        assert_eq!(
            (n.mem(0x10), n.mem(0x11), n.mem(0x12), n.mem(0x13)),
            (10, 11, 12, 13)
        );
        // `run` sends both, oldest first, from the PIPE's QP with its index as the tag;
        // the second was cut to its buffer.
        n.run();
        let chunk = |data: &[u64]| Message {
            kind_nak: false,
            node: 5,
            src_qp: 2,
            qp: 6,
            cnt: Some(4),
            tag: 0,
            ack: false,
            data: data.to_vec(),
        };
        assert_eq!(n.take_sent(), vec![chunk(&[10, 11]), chunk(&[12, 13])]);
        assert_eq!(poll(&mut n, 0), vec![]);
        // The last chunk is 1 word (not short: it is the last) and goes with 1 word, from
        // the first buffer again; it asks for an answer and gets its ACK.
        let mut last = data_msg(1, 9, 3, None, 4, &[16]);
        last.ack = true;
        n.deliver(&last);
        assert_eq!(n.take_sent(), vec![nak(9, 3, 1, 4, OK)]);
        n.run();
        assert_eq!(n.take_sent(), vec![chunk(&[16])]);
        assert_eq!(n.mem(0x10), 16);
        // LEN_ERR: the second chunk was longer than its buffer.
        assert_eq!(poll(&mut n, 0), vec![cqe(LEN_ERR, PIPE, 2, false, 0, 0)]);
        // The receive side is released: QP 1's RQ takes messages again.
        n.deliver(&data_msg(1, 9, 3, None, 5, &[17]));
        assert_eq!(n.take_sent(), vec![nak(9, 3, 1, 5, NOT_READY)]);
    }

    #[test]
    fn a_reliable_qps_pipe_asks_for_no_answer() {
        // QP 0 is reliable: its SENDs await answers, its PIPE's chunks do not, and the PIPE
        // completes with its last chunk.
        let mut n = nic();
        config_rc(&mut n, 0, 0, 0);
        post(&mut n, false, 0, Wqe::pipe(1, (0, 2, 1), 1, 5, 6, None), 0);
        n.run();
        n.deliver(&data_msg(1, 9, 3, None, 0, &[31, 32]));
        n.run();
        let sent = n.take_sent();
        assert_eq!(sent.len(), 1);
        assert!(!sent[0].ack && sent[0].data == [31, 32]);
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, PIPE, 0, false, 0, 0)]);
        post(&mut n, false, 0, Wqe::nop(true), 1);
        n.run();
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, NOP, 0, false, 1, 0)]);
    }

    #[test]
    fn a_pipe_checks_its_request_and_waits_for_its_receive_queue() {
        let mut n = nic();
        // QP 0's PIPE owns QP 1's receive side; QP 3's, naming it too, waits.
        post(&mut n, false, 0, Wqe::pipe(1, (0, 1, 1), 1, 5, 6, None), 0);
        n.run();
        post(&mut n, false, 3, Wqe::pipe(1, (8, 1, 1), 1, 5, 7, None), 0);
        n.run();
        n.deliver(&data_msg(1, 9, 3, None, 0, &[21]));
        n.run();
        assert_eq!(n.take_sent().len(), 1);
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, PIPE, 0, false, 0, 0)]);
        assert_eq!(poll(&mut n, 0), vec![]);
        // Now QP 3's has it: its chunk goes to QP 7 from its buffer at 8.
        n.deliver(&data_msg(1, 9, 3, None, 1, &[22]));
        n.run();
        let sent = n.take_sent();
        assert_eq!(
            (sent.len(), sent[0].qp, sent[0].data.clone()),
            (1, 7, vec![22])
        );
        assert_eq!(n.mem(8), 22);
        assert_eq!(poll(&mut n, 0), vec![cqe(OK, PIPE, 3, false, 0, 0)]);
        // The checks: receive QP out of range, no buffers, empty buffers, buffers past the
        // end of data memory (1024 words: 1020 + 2 × 3 = 1026), no messages.
        for (i, (w, status)) in [
            (Wqe::pipe(4, (0, 1, 1), 1, 5, 6, None), BAD_INDEX),
            (Wqe::pipe(1, (0, 1, 0), 1, 5, 6, None), BAD_ARG),
            (Wqe::pipe(1, (0, 0, 1), 1, 5, 6, None), BAD_ARG),
            (Wqe::pipe(1, (1020, 3, 2), 1, 5, 6, None), BAD_ADDR),
            (Wqe::pipe(1, (1018, 3, 2), 0, 5, 6, None), OK),
        ]
        .into_iter()
        .enumerate()
        {
            post(&mut n, false, 0, w, 1 + i as u64);
            n.run();
            assert_eq!(
                poll(&mut n, 0),
                vec![cqe(status, PIPE, 0, false, 1 + i as u64, 0)]
            );
        }
        assert_eq!(n.take_sent(), vec![]);
    }
}
