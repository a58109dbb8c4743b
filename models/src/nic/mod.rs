//! # NIC cross-channel controller
//!
//! The NIC side of seed `004_…`: work queues whose advance depends on the completion status of
//! other queues, so that a collective schedule (wait for the children, reduce, send to the
//! parent, re-arm the buffers) runs with no host CPU involved.
//!
//! This module is the specification every level implements: the parameters ([`NicParams`]),
//! the work-request and completion formats ([`Wqe`], [`Cqe`]), the host-command and network
//! ports ([`NicIn`], [`NicOut`]) and their codes. The golden reference is [`golden`], the cycle
//! model [`model`]; the RTL is `netcoll-hdl`'s `nic::controller`. CALC uses the reduction ALU of
//! [`crate::alu`].
//!
//! ## Resources
//!
//! - `qps` queue pairs. QP `q` has a send queue (SQ) and a receive queue (RQ), each a ring of
//!   [`WQ_DEPTH`] work-queue entries (WQEs). Every WQ has a producer index `pi` (WQEs posted),
//!   a consumer index `ci` (WQEs completed) and an enable index `ei`, 16 bits each, counting
//!   modulo 2^16; the WQE with index `i` lives in slot `i mod WQ_DEPTH`.
//! - `cqs` completion queues, rings of [`CQ_DEPTH`] 64-bit CQEs, each with a 32-bit `produced`
//!   count (CQEs ever written), a 32-bit `consumed` count (CQEs popped by the host) and a 32-bit
//!   `wait_index` (see WAIT).
//! - `counters` 32-bit counters, incremented by arriving messages that name them.
//! - `dmem_words` 64-bit words of data memory: message buffers, CALC arguments and results. It
//!   stands for the host memory the NIC reaches by DMA; the host reads and writes it with
//!   host commands.
//! - [`STATS`] 32-bit statistics counters of refused or failed work ([`Stat`]), wrapping.
//!
//! Each QP has a context set by `CONFIG_QP`: the CQ of its SQ, the CQ of its RQ, and whether
//! each queue is *managed*. All zero after reset (both queues report to CQ 0, unmanaged).
//!
//! ## Managed queues and enabling
//!
//! An unmanaged queue may run every posted WQE. A managed queue may only run WQE `i` once it is
//! enabled, i.e. while `ei - ci` (16-bit, taken as signed) is positive: WQEs `ci .. ei` are
//! enabled. `CONFIG_QP` sets `ei = ci` for a queue it makes managed, so nothing is enabled.
//! SEND_EN (for an SQ) and RECV_EN (for an RQ) move `ei` forward:
//! - by `n` (mode 0): `ei += n`;
//! - up to index `i` (mode 1): WQE `i` and everything before it is enabled, `ei = i + 1`, unless
//!   that would move `ei` backwards (`(i + 1 - ei)` as signed 16-bit is negative), in which case
//!   `ei` is unchanged.
//!
//! Enabling may run ahead of posting: WQEs posted later are then already enabled. The enable
//! index of an unmanaged queue is still updated but not consulted.
//!
//! ## Work requests
//!
//! A WQE is 128 bits, two 64-bit words `w0`, `w1` ([`Wqe::encode`]). `w0[3:0]` is the
//! [`Opcode`], `w0[4]` *signaled*. The SQ runs WQEs in order, one at a time; the RQ's WQEs are
//! consumed by arriving messages. A WQE *completes* when its work is done; completing advances
//! the queue's `ci` and writes a CQE to the queue's CQ if the WQE is signaled **or failed**
//! (errors are always reported). A failed WQE still completes: the queue goes on with the next
//! WQE (there is no QP error state), so valid work after a bad request still runs.
//!
//! - **NOP**: completes.
//! - **SEND** `addr, len, dst, dst_qp, cnt_en, cnt`: sends `len` words of data memory starting
//!   at `addr` as one message to QP `dst_qp` of node `dst`; if `cnt_en` the receiver increments
//!   its counter `cnt` when the message has arrived. `len = 0` sends one empty beat. Completes
//!   when the last beat has been sent. The message's `tag` is the WQE index, so a NAK can name it.
//! - **RECV** `addr, len` (RQ only): a buffer of `len` words at `addr` for the next message
//!   arriving at this QP. Completes when the message's last beat has arrived; the CQE's `len` is
//!   the number of words stored. A longer message fills the buffer, the rest is dropped and the
//!   CQE has status `LenErr`.
//! - **WAIT** `kind, index, count`: holds the SQ until a condition holds, then completes.
//!   - kind 0, CQ `index`, `count` completions. The count is relative to the CQ's *wait index*:
//!     when the WAIT is **posted**, the NIC adds `count` to the CQ's `wait_index` and stores the
//!     sum as the WAIT's absolute target; the WAIT completes once the CQ's `produced` count has
//!     reached the target (`produced - target` as signed 32-bit ≥ 0). So a WAIT waits for
//!     `count` completions beyond those claimed by all WAITs posted on that CQ before it, from
//!     any queue — the semantics of `IBV_WR_CQE_WAIT` in mlx5's cross-channel verbs, where the
//!     driver keeps the same per-CQ wait index. Popping CQEs does not change `produced`. The
//!     `wait_index` starts at 0 and counts from reset, as `produced` does.
//!   - kind 1, counter `index`, threshold `count`: completes once counter ≥ `count` (unsigned).
//! - **SEND_EN** / **RECV_EN** `qp, mode, value`: move the enable index of QP `qp`'s SQ / RQ
//!   (see above), then complete. An RQ's newly enabled WQEs accept messages from then on; a
//!   message that arrived earlier for a disabled WQE was discarded (below) and is not replayed.
//! - **CALC** `op, dtype, count, a, sa, b, sb, dst, target, dst node, dst_qp, cnt_en, cnt`:
//!   for `i in 0..count`, `dst[i] = a[i*sa] op b[i*sb]` through the reduction ALU
//!   ([`crate::alu`]). For MAXLOC / MINLOC an element is a (value, index) pair in two
//!   consecutive words, value first, at `a + i*sa` and `a + i*sa + 1` (likewise for `b`), and
//!   the result pair goes to `dst + 2i`, `dst + 2i + 1`; for the other operations the result
//!   goes to `dst + i`. Strides are in words (`sa = 1` is contiguous; `sa = 0` repeats one
//!   element). Target 0 is host memory (the result stays in data memory for the host to read);
//!   target 1 is a peer: after computing, the result buffer is sent like a SEND of its words to
//!   `dst_qp` of node `dst node` (with the counter, tag = WQE index). Arguments may overlap the
//!   result (each element is read before it is written).
//!
//! An SQ WQE with opcode RECV or an unknown opcode (7..15) completes with `BadOpcode`, as does an
//! RQ WQE that is not a RECV when a message consumes it, and any WQE with a reserved bit set
//! (`w0[7:5]`, `w1[23:17]`: [`reserved_bits`]). A WQE never starts while its queue's
//! CQ is full (see Errors).
//!
//! ## Messages
//!
//! A message is one or more beats on the `rx_*` / `tx_*` ports, valid/ready handshaked, one 64-bit
//! data word per beat, the header fields repeated on every beat and `last` on the final one. An
//! `empty` message is one beat that carries no data. `kind` 0 is data, 1 is a NAK.
//!
//! An arriving data message goes to the RQ of QP `rx_qp`:
//! - `rx_qp` out of range, no WQE posted (`ci == pi`), or the head WQE not enabled in a managed
//!   RQ, or the RQ's CQ full → the whole message is *discarded* (all beats consumed) and a NAK is
//!   sent back: `kind = 1`, `dst = rx_src`, `qp = rx_src_qp`, `src_qp = rx_qp`, `tag = rx_tag`,
//!   `empty`, `data` = the [`Status`] that says why (`NotReady`, `BadIndex`). Counted in
//!   `RxDiscard`. The receive WQE, if any, is not consumed.
//! - head WQE not a RECV → it completes with `BadOpcode`; the message is discarded and NAKed.
//! - buffer outside data memory (`addr + len > dmem_words`) → it completes with `BadAddr`, the
//!   message is discarded and NAKed.
//! - otherwise the beats fill the buffer and the WQE completes as above; if `rx_cnt_en`, counter
//!   `rx_cnt` is incremented (an out-of-range counter makes the CQE status `BadIndex` instead;
//!   the data is still delivered).
//!
//! An arriving NAK names the SQ of QP `rx_qp` and the WQE `rx_tag` that sent the message: it
//! writes a CQE with status `RemoteDiscard` (opcode SEND, `index = rx_tag`) to that SQ's CQ,
//! counted in `NakReceived`. If the QP is out of range or the CQ is full, the notification is
//! dropped and counted in `CqOverrun`.
//!
//! ## Errors
//!
//! | refused or failed work | what happens | counted in |
//! |---|---|---|
//! | unknown host command | response `BadOp` | `HostBadOp` |
//! | QP / CQ / counter / stat / address index out of range in a host command | response `BadIndex`, nothing changes | `HostBadIndex` |
//! | post to a full WQ | response `Full`, nothing changes | `WqFull` |
//! | WQE would complete into a full CQ | the SQ waits (back-pressure) until the host pops | `CqStall` (once per attempt) |
//! | unknown opcode, index out of range, buffer outside memory, bad CALC op | error CQE, queue goes on | `ErrorCqe` |
//! | message to a missing / disabled receive WQE or a full CQ | message discarded, NAK sent | `RxDiscard` |
//!
//! ## Host commands
//!
//! One command at a time on `host_*` ([`HostOp`]): the NIC takes it in a cycle where
//! `host_valid && host_ready` and answers once with `host_rsp_valid` high for one cycle, a
//! [`HostStatus`] and a 64-bit `host_rsp_data`. `host_ready` is low until then (and for one
//! more cycle, so that arriving messages and the queues always make progress).
//!
//! ## Timing
//!
//! Synchronous active-high `reset`; after it the NIC clears its context memories, one entry per
//! cycle, with every `ready` low. All outputs are registered (they depend on state only). The
//! cycle-level behaviour is defined by the cycle model [`model`], which the RTL matches in
//! lockstep.

pub mod golden;
pub mod model;
pub mod scenario;

use crate::switch::PortSpec;

/// Ring size of every send and receive queue.
pub const WQ_DEPTH: usize = 16;
/// Ring size of every completion queue.
pub const CQ_DEPTH: usize = 32;
/// Number of statistics counters.
pub const STATS: usize = 8;
/// Supported values of `[nic] qps`.
pub const QPS_VALUES: [usize; 2] = [4, 16];
/// Supported values of `[nic] cqs`.
pub const CQS_VALUES: [usize; 2] = [4, 16];
/// Supported values of `[nic] counters`.
pub const COUNTERS_VALUES: [usize; 2] = [8, 32];
/// Supported values of `[nic] dmem_words`.
pub const DMEM_VALUES: [usize; 2] = [1024, 4096];

/// Parameters of one NIC (the `[nic]` table of `netcoll.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NicParams {
    /// Queue pairs ([`QPS_VALUES`]).
    pub qps: usize,
    /// Completion queues ([`CQS_VALUES`]).
    pub cqs: usize,
    /// Counters ([`COUNTERS_VALUES`]).
    pub counters: usize,
    /// 64-bit words of data memory ([`DMEM_VALUES`]).
    pub dmem_words: usize,
}

impl Default for NicParams {
    fn default() -> Self {
        Self {
            qps: 16,
            cqs: 16,
            counters: 32,
            dmem_words: 4096,
        }
    }
}

impl NicParams {
    /// The smallest supported NIC, used by the fast tests.
    pub const SMALL: NicParams = NicParams {
        qps: 4,
        cqs: 4,
        counters: 8,
        dmem_words: 1024,
    };

    /// Whether every parameter is one of its supported values.
    pub fn is_supported(&self) -> bool {
        QPS_VALUES.contains(&self.qps)
            && CQS_VALUES.contains(&self.cqs)
            && COUNTERS_VALUES.contains(&self.counters)
            && DMEM_VALUES.contains(&self.dmem_words)
    }

    /// Every supported parameter set.
    pub fn all_supported() -> Vec<NicParams> {
        let mut v = vec![];
        for qps in QPS_VALUES {
            for cqs in CQS_VALUES {
                for counters in COUNTERS_VALUES {
                    for dmem_words in DMEM_VALUES {
                        v.push(NicParams {
                            qps,
                            cqs,
                            counters,
                            dmem_words,
                        });
                    }
                }
            }
        }
        v
    }
}

/// log2 of a power of two.
pub fn log2(n: usize) -> usize {
    n.trailing_zeros() as usize
}

/// Work-request opcodes (`w0[3:0]`); 7..15 are unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    Nop = 0,
    Send = 1,
    Recv = 2,
    Wait = 3,
    SendEn = 4,
    RecvEn = 5,
    Calc = 6,
}

impl Opcode {
    pub const ALL: [Opcode; 7] = [
        Opcode::Nop,
        Opcode::Send,
        Opcode::Recv,
        Opcode::Wait,
        Opcode::SendEn,
        Opcode::RecvEn,
        Opcode::Calc,
    ];
    pub fn from_code(c: u64) -> Option<Opcode> {
        Self::ALL.get(c as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            Opcode::Nop => "NOP",
            Opcode::Send => "SEND",
            Opcode::Recv => "RECV",
            Opcode::Wait => "WAIT",
            Opcode::SendEn => "SEND_EN",
            Opcode::RecvEn => "RECV_EN",
            Opcode::Calc => "CALC",
        }
    }
}

/// Completion status (`Cqe::status`, 4 bits) and NAK reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ok = 0,
    /// Unknown opcode, or a WQE on the wrong kind of queue.
    BadOpcode = 1,
    /// A QP, CQ or counter index out of range.
    BadIndex = 2,
    /// A buffer that does not fit in data memory.
    BadAddr = 3,
    /// The message was longer than the receive buffer (the buffer holds its first words).
    LenErr = 4,
    /// The peer discarded the message this SEND / CALC sent (a NAK came back).
    RemoteDiscard = 5,
    /// CALC with a reserved ALU operation.
    BadArg = 6,
    /// NAK reason: no enabled receive WQE, or its CQ was full.
    NotReady = 7,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Ok,
        Status::BadOpcode,
        Status::BadIndex,
        Status::BadAddr,
        Status::LenErr,
        Status::RemoteDiscard,
        Status::BadArg,
        Status::NotReady,
    ];
    pub fn from_code(c: u64) -> Option<Status> {
        Self::ALL.get(c as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::BadOpcode => "BAD_OPCODE",
            Status::BadIndex => "BAD_INDEX",
            Status::BadAddr => "BAD_ADDR",
            Status::LenErr => "LEN_ERR",
            Status::RemoteDiscard => "REMOTE_DISCARD",
            Status::BadArg => "BAD_ARG",
            Status::NotReady => "NOT_READY",
        }
    }
}

/// Host commands (`host_op`, 4 bits); 10..15 are unknown (`BadOp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostOp {
    /// Does nothing, answers `Ok`.
    Nop = 0,
    /// Post WQE `w0, w1` to the SQ of QP `arg`; answers the WQE index.
    PostSq = 1,
    /// Post WQE `w0, w1` to the RQ of QP `arg`; answers the WQE index.
    PostRq = 2,
    /// Pop the oldest CQE of CQ `arg`; answers it, or `Empty`.
    PollCq = 3,
    /// Write `w0` to data-memory word `arg`.
    WriteMem = 4,
    /// Answer data-memory word `arg`.
    ReadMem = 5,
    /// Write `w0[31:0]` to counter `arg`.
    WriteCnt = 6,
    /// Answer counter `arg`.
    ReadCnt = 7,
    /// QP `arg`: `w0[7:0]` SQ's CQ, `w0[15:8]` RQ's CQ, `w0[16]` SQ managed, `w0[17]` RQ managed.
    ConfigQp = 8,
    /// Answer statistics counter `arg` ([`Stat`]).
    ReadStat = 9,
}

impl HostOp {
    pub const ALL: [HostOp; 10] = [
        HostOp::Nop,
        HostOp::PostSq,
        HostOp::PostRq,
        HostOp::PollCq,
        HostOp::WriteMem,
        HostOp::ReadMem,
        HostOp::WriteCnt,
        HostOp::ReadCnt,
        HostOp::ConfigQp,
        HostOp::ReadStat,
    ];
    pub fn from_code(c: u64) -> Option<HostOp> {
        Self::ALL.get(c as usize).copied()
    }
}

/// Host-command response status (`host_rsp_status`, 3 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostStatus {
    Ok = 0,
    BadOp = 1,
    BadIndex = 2,
    /// The WQ is full (post).
    Full = 3,
    /// The CQ is empty (poll).
    Empty = 4,
}

impl HostStatus {
    pub const ALL: [HostStatus; 5] = [
        HostStatus::Ok,
        HostStatus::BadOp,
        HostStatus::BadIndex,
        HostStatus::Full,
        HostStatus::Empty,
    ];
    pub fn from_code(c: u64) -> Option<HostStatus> {
        Self::ALL.get(c as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            HostStatus::Ok => "OK",
            HostStatus::BadOp => "BAD_OP",
            HostStatus::BadIndex => "BAD_INDEX",
            HostStatus::Full => "FULL",
            HostStatus::Empty => "EMPTY",
        }
    }
}

/// Statistics counters (`ReadStat` index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stat {
    HostBadOp = 0,
    HostBadIndex = 1,
    WqFull = 2,
    CqStall = 3,
    ErrorCqe = 4,
    RxDiscard = 5,
    NakReceived = 6,
    CqOverrun = 7,
}

impl Stat {
    pub const ALL: [Stat; STATS] = [
        Stat::HostBadOp,
        Stat::HostBadIndex,
        Stat::WqFull,
        Stat::CqStall,
        Stat::ErrorCqe,
        Stat::RxDiscard,
        Stat::NakReceived,
        Stat::CqOverrun,
    ];
}

/// Whether a WQE sets a bit that is reserved in every WQE: `w0[7:5]` or `w1[23:17]`. Such a
/// WQE completes with [`Status::BadOpcode`] (on an RQ, when a message consumes it).
pub fn reserved_bits(w0: u64, w1: u64) -> bool {
    (w0 >> 5) & 7 != 0 || (w1 >> 17) & 0x7F != 0
}

/// A decoded work-queue entry. Field positions (`w0` / `w1` bit ranges) are listed per field;
/// fields an opcode does not use are zero when encoded and ignored when decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wqe {
    /// `w0[3:0]`: [`Opcode`] code (any 4-bit value may be posted).
    pub opcode: u64,
    /// `w0[4]`.
    pub signaled: bool,
    /// SEND / RECV: buffer address `w0[23:8]`; CALC: argument `a` `w0[47:32]`.
    pub addr: u64,
    /// SEND / RECV: length in words `w0[39:24]`; CALC: element count `w0[31:16]`.
    pub len: u64,
    /// SEND, CALC to a peer: destination node `w1[7:0]`.
    pub dst: u64,
    /// SEND, CALC to a peer: destination QP `w1[15:8]`; SEND_EN / RECV_EN: target QP `w0[15:8]`.
    pub qp: u64,
    /// SEND, CALC: `w1[16]`.
    pub cnt_en: bool,
    /// SEND, CALC: counter id `w1[31:24]`.
    pub cnt: u64,
    /// WAIT: 0 = CQ, 1 = counter (`w0[8]`); SEND_EN / RECV_EN: 0 = by n, 1 = up to index
    /// (`w0[16]`); CALC: target 0 = host memory, 1 = peer (`w0[14]`).
    pub mode: u64,
    /// WAIT: CQ or counter index `w0[23:16]`.
    pub index: u64,
    /// WAIT: count or threshold `w1[63:32]` (for a CQ WAIT, the NIC replaces it by the absolute
    /// target when posted); SEND_EN / RECV_EN: n or index `w1[47:32]`.
    pub value: u64,
    /// CALC: ALU operation `w0[11:8]` ([`crate::alu::AluOp`] code).
    pub alu_op: u64,
    /// CALC: [`crate::alu::Dtype`] code `w0[13:12]`.
    pub dtype: u64,
    /// CALC: argument `b` `w0[63:48]`.
    pub b: u64,
    /// CALC: result address `w1[63:48]`.
    pub dst_addr: u64,
    /// CALC: stride of `a` in words `w1[39:32]`.
    pub sa: u64,
    /// CALC: stride of `b` in words `w1[47:40]`.
    pub sb: u64,
}

fn field(w: u64, lo: u32, bits: u32) -> u64 {
    (w >> lo) & ((1u64 << bits) - 1)
}

fn put(w: &mut u64, lo: u32, bits: u32, v: u64) {
    *w |= (v & ((1u64 << bits) - 1)) << lo;
}

impl Wqe {
    pub fn nop(signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Nop as u64,
            signaled,
            ..Default::default()
        }
    }
    #[allow(clippy::too_many_arguments)]
    pub fn send(addr: u64, len: u64, dst: u64, qp: u64, cnt: Option<u64>, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Send as u64,
            signaled,
            addr,
            len,
            dst,
            qp,
            cnt_en: cnt.is_some(),
            cnt: cnt.unwrap_or(0),
            ..Default::default()
        }
    }
    pub fn recv(addr: u64, len: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Recv as u64,
            signaled,
            addr,
            len,
            ..Default::default()
        }
    }
    /// WAIT for `count` new completions on CQ `cq`.
    pub fn wait_cq(cq: u64, count: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Wait as u64,
            signaled,
            mode: 0,
            index: cq,
            value: count,
            ..Default::default()
        }
    }
    /// WAIT until counter `counter` ≥ `threshold`.
    pub fn wait_counter(counter: u64, threshold: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Wait as u64,
            signaled,
            mode: 1,
            index: counter,
            value: threshold,
            ..Default::default()
        }
    }
    /// SEND_EN (`recv == false`) or RECV_EN: `up_to` selects mode 1.
    pub fn enable(recv: bool, qp: u64, up_to: bool, value: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: if recv {
                Opcode::RecvEn as u64
            } else {
                Opcode::SendEn as u64
            },
            signaled,
            qp,
            mode: up_to as u64,
            value,
            ..Default::default()
        }
    }

    /// The two 64-bit words.
    pub fn encode(&self) -> (u64, u64) {
        let (mut w0, mut w1) = (0u64, 0u64);
        put(&mut w0, 0, 4, self.opcode);
        put(&mut w0, 4, 1, self.signaled as u64);
        match Opcode::from_code(self.opcode & 15) {
            Some(Opcode::Send) | Some(Opcode::Recv) => {
                put(&mut w0, 8, 16, self.addr);
                put(&mut w0, 24, 16, self.len);
                if self.opcode == Opcode::Send as u64 {
                    put(&mut w1, 0, 8, self.dst);
                    put(&mut w1, 8, 8, self.qp);
                    put(&mut w1, 16, 1, self.cnt_en as u64);
                    put(&mut w1, 24, 8, self.cnt);
                }
            }
            Some(Opcode::Wait) => {
                put(&mut w0, 8, 1, self.mode);
                put(&mut w0, 16, 8, self.index);
                put(&mut w1, 32, 32, self.value);
            }
            Some(Opcode::SendEn) | Some(Opcode::RecvEn) => {
                put(&mut w0, 8, 8, self.qp);
                put(&mut w0, 16, 1, self.mode);
                put(&mut w1, 32, 16, self.value);
            }
            Some(Opcode::Calc) => {
                put(&mut w0, 8, 4, self.alu_op);
                put(&mut w0, 12, 2, self.dtype);
                put(&mut w0, 14, 1, self.mode);
                put(&mut w0, 16, 16, self.len);
                put(&mut w0, 32, 16, self.addr);
                put(&mut w0, 48, 16, self.b);
                put(&mut w1, 0, 8, self.dst);
                put(&mut w1, 8, 8, self.qp);
                put(&mut w1, 16, 1, self.cnt_en as u64);
                put(&mut w1, 24, 8, self.cnt);
                put(&mut w1, 32, 8, self.sa);
                put(&mut w1, 40, 8, self.sb);
                put(&mut w1, 48, 16, self.dst_addr);
            }
            _ => {}
        }
        (w0, w1)
    }

    /// Decodes the fields the opcode uses (the inverse of [`Wqe::encode`] for encoded WQEs).
    pub fn decode(w0: u64, w1: u64) -> Wqe {
        let mut q = Wqe {
            opcode: field(w0, 0, 4),
            signaled: field(w0, 4, 1) != 0,
            ..Default::default()
        };
        match Opcode::from_code(q.opcode) {
            Some(Opcode::Send) | Some(Opcode::Recv) => {
                q.addr = field(w0, 8, 16);
                q.len = field(w0, 24, 16);
                if q.opcode == Opcode::Send as u64 {
                    q.dst = field(w1, 0, 8);
                    q.qp = field(w1, 8, 8);
                    q.cnt_en = field(w1, 16, 1) != 0;
                    q.cnt = field(w1, 24, 8);
                }
            }
            Some(Opcode::Wait) => {
                q.mode = field(w0, 8, 1);
                q.index = field(w0, 16, 8);
                q.value = field(w1, 32, 32);
            }
            Some(Opcode::SendEn) | Some(Opcode::RecvEn) => {
                q.qp = field(w0, 8, 8);
                q.mode = field(w0, 16, 1);
                q.value = field(w1, 32, 16);
            }
            Some(Opcode::Calc) => {
                q.alu_op = field(w0, 8, 4);
                q.dtype = field(w0, 12, 2);
                q.mode = field(w0, 14, 1);
                q.len = field(w0, 16, 16);
                q.addr = field(w0, 32, 16);
                q.b = field(w0, 48, 16);
                q.dst = field(w1, 0, 8);
                q.qp = field(w1, 8, 8);
                q.cnt_en = field(w1, 16, 1) != 0;
                q.cnt = field(w1, 24, 8);
                q.sa = field(w1, 32, 8);
                q.sb = field(w1, 40, 8);
                q.dst_addr = field(w1, 48, 16);
            }
            _ => {}
        }
        q
    }
}

/// A 64-bit completion-queue entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cqe {
    /// `[3:0]` [`Status`] code.
    pub status: u64,
    /// `[7:4]` opcode of the WQE (its raw 4-bit code, also when unknown).
    pub opcode: u64,
    /// `[15:8]` QP.
    pub qp: u64,
    /// `[16]` the WQE was on the receive queue.
    pub is_recv: bool,
    /// `[47:32]` WQE index.
    pub index: u64,
    /// `[63:48]` RECV: words stored; otherwise 0.
    pub len: u64,
}

impl Cqe {
    pub fn encode(&self) -> u64 {
        let mut w = 0;
        put(&mut w, 0, 4, self.status);
        put(&mut w, 4, 4, self.opcode);
        put(&mut w, 8, 8, self.qp);
        put(&mut w, 16, 1, self.is_recv as u64);
        put(&mut w, 32, 16, self.index);
        put(&mut w, 48, 16, self.len);
        w
    }
    pub fn decode(w: u64) -> Cqe {
        Cqe {
            status: field(w, 0, 4),
            opcode: field(w, 4, 4),
            qp: field(w, 8, 8),
            is_recv: field(w, 16, 1) != 0,
            index: field(w, 32, 16),
            len: field(w, 48, 16),
        }
    }
}

/// Inputs of the NIC for one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NicIn {
    pub reset: bool,
    pub host_valid: bool,
    /// 4 bits, [`HostOp`].
    pub host_op: u64,
    /// 16 bits: QP, CQ, counter, stat or word address.
    pub host_arg: u64,
    pub host_w0: u64,
    pub host_w1: u64,
    pub rx_valid: bool,
    /// 0 data, 1 NAK.
    pub rx_kind: bool,
    /// 8 bits: the sending node.
    pub rx_src: u64,
    /// 8 bits: the sending QP.
    pub rx_src_qp: u64,
    /// 8 bits: the QP addressed here.
    pub rx_qp: u64,
    pub rx_cnt_en: bool,
    /// 8 bits.
    pub rx_cnt: u64,
    /// 16 bits: the sender's WQE index.
    pub rx_tag: u64,
    pub rx_empty: bool,
    pub rx_last: bool,
    pub rx_data: u64,
    pub tx_ready: bool,
}

/// Outputs of the NIC in one clock cycle (registered: they depend on state only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NicOut {
    pub host_ready: bool,
    pub host_rsp_valid: bool,
    /// 3 bits, [`HostStatus`].
    pub host_rsp_status: u64,
    pub host_rsp_data: u64,
    pub rx_ready: bool,
    pub tx_valid: bool,
    pub tx_kind: bool,
    /// 8 bits: destination node.
    pub tx_dst: u64,
    /// 8 bits: the sending QP here.
    pub tx_src_qp: u64,
    /// 8 bits: destination QP.
    pub tx_qp: u64,
    pub tx_cnt_en: bool,
    pub tx_cnt: u64,
    pub tx_tag: u64,
    pub tx_empty: bool,
    pub tx_last: bool,
    pub tx_data: u64,
}

/// Port names and widths, in [`NicIn::to_values`] order.
pub fn input_ports() -> Vec<PortSpec> {
    [
        ("reset", 1),
        ("host_valid", 1),
        ("host_op", 4),
        ("host_arg", 16),
        ("host_w0", 64),
        ("host_w1", 64),
        ("rx_valid", 1),
        ("rx_kind", 1),
        ("rx_src", 8),
        ("rx_src_qp", 8),
        ("rx_qp", 8),
        ("rx_cnt_en", 1),
        ("rx_cnt", 8),
        ("rx_tag", 16),
        ("rx_empty", 1),
        ("rx_last", 1),
        ("rx_data", 64),
        ("tx_ready", 1),
    ]
    .into_iter()
    .map(|(name, width)| PortSpec { name, width })
    .collect()
}

/// Port names and widths, in [`NicOut::to_values`] order.
pub fn output_ports() -> Vec<PortSpec> {
    [
        ("host_ready", 1),
        ("host_rsp_valid", 1),
        ("host_rsp_status", 3),
        ("host_rsp_data", 64),
        ("rx_ready", 1),
        ("tx_valid", 1),
        ("tx_kind", 1),
        ("tx_dst", 8),
        ("tx_src_qp", 8),
        ("tx_qp", 8),
        ("tx_cnt_en", 1),
        ("tx_cnt", 8),
        ("tx_tag", 16),
        ("tx_empty", 1),
        ("tx_last", 1),
        ("tx_data", 64),
    ]
    .into_iter()
    .map(|(name, width)| PortSpec { name, width })
    .collect()
}

impl NicIn {
    /// Writes the values in [`input_ports`] order into `out` (at least 18 long).
    pub fn write_values(&self, out: &mut [u64]) {
        let v = [
            self.reset as u64,
            self.host_valid as u64,
            self.host_op,
            self.host_arg,
            self.host_w0,
            self.host_w1,
            self.rx_valid as u64,
            self.rx_kind as u64,
            self.rx_src,
            self.rx_src_qp,
            self.rx_qp,
            self.rx_cnt_en as u64,
            self.rx_cnt,
            self.rx_tag,
            self.rx_empty as u64,
            self.rx_last as u64,
            self.rx_data,
            self.tx_ready as u64,
        ];
        out[..v.len()].copy_from_slice(&v);
    }
    pub fn to_values(&self) -> Vec<u64> {
        let mut v = vec![0; 18];
        self.write_values(&mut v);
        v
    }
}

impl NicOut {
    pub fn to_values(&self) -> Vec<u64> {
        vec![
            self.host_ready as u64,
            self.host_rsp_valid as u64,
            self.host_rsp_status,
            self.host_rsp_data,
            self.rx_ready as u64,
            self.tx_valid as u64,
            self.tx_kind as u64,
            self.tx_dst,
            self.tx_src_qp,
            self.tx_qp,
            self.tx_cnt_en as u64,
            self.tx_cnt,
            self.tx_tag,
            self.tx_empty as u64,
            self.tx_last as u64,
            self.tx_data,
        ]
    }
    pub fn from_values(v: &[u64]) -> NicOut {
        NicOut {
            host_ready: v[0] != 0,
            host_rsp_valid: v[1] != 0,
            host_rsp_status: v[2],
            host_rsp_data: v[3],
            rx_ready: v[4] != 0,
            tx_valid: v[5] != 0,
            tx_kind: v[6] != 0,
            tx_dst: v[7],
            tx_src_qp: v[8],
            tx_qp: v[9],
            tx_cnt_en: v[10] != 0,
            tx_cnt: v[11],
            tx_tag: v[12],
            tx_empty: v[13] != 0,
            tx_last: v[14] != 0,
            tx_data: v[15],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wqe_fields_roundtrip_per_opcode() {
        let wqes = [
            Wqe::nop(true),
            Wqe::send(0x1234, 0x55, 7, 3, Some(9), false),
            Wqe::recv(0xfff0, 2, true),
            Wqe::wait_cq(5, 0xdead_beef, true),
            Wqe::wait_counter(31, 2, false),
            Wqe::enable(false, 15, true, 0xabcd, true),
            Wqe::enable(true, 2, false, 4, false),
            Wqe {
                opcode: Opcode::Calc as u64,
                signaled: true,
                alu_op: 11,
                dtype: 3,
                mode: 1,
                len: 0x100,
                addr: 0x200,
                b: 0x300,
                dst: 4,
                qp: 5,
                cnt_en: true,
                cnt: 6,
                sa: 2,
                sb: 0,
                dst_addr: 0x400,
                ..Default::default()
            },
        ];
        for q in wqes {
            let (w0, w1) = q.encode();
            assert_eq!(Wqe::decode(w0, w1), q, "{q:?}");
        }
        // Positions checked against the documented bit ranges, not against encode itself.
        let (w0, w1) = Wqe::send(0x1234, 0x55, 7, 3, Some(9), true).encode();
        assert_eq!(w0, 0x0000_5512_3411);
        assert_eq!(w1, 0x0901_0307);
    }

    #[test]
    fn cqe_roundtrip_and_layout() {
        let c = Cqe {
            status: 5,
            opcode: 1,
            qp: 0xab,
            is_recv: true,
            index: 0x1234,
            len: 0xffff,
        };
        assert_eq!(c.encode(), 0xffff_1234_0001_ab15);
        assert_eq!(Cqe::decode(c.encode()), c);
    }

    #[test]
    fn ports_are_narrow_enough_for_the_cosimulation() {
        for p in input_ports().iter().chain(output_ports().iter()) {
            assert!(p.width >= 1 && p.width <= 64, "{p:?}");
        }
        assert_eq!(input_ports().len(), NicIn::default().to_values().len());
        assert_eq!(output_ports().len(), NicOut::default().to_values().len());
    }
}
