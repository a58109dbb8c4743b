//! # Cycle model of the NIC cross-channel controller
//!
//! [`NicModel::step`] is one clock cycle of the RTL (`netcoll-hdl`'s `nic::controller`): it returns what
//! the output ports show during the cycle (all registered, so they do not depend on this cycle's
//! inputs), then applies the rising edge. The testbench compares it with the RTL every port every
//! cycle, and its observable results with the [golden reference](super::golden).
//!
//! ## Micro-architecture (what the RTL implements, register for register)
//!
//! One control sequencer owns every memory; it does one thing at a time, which keeps the memories
//! single-ported and the behaviour easy to state. Its *slots*:
//!
//! - **Host command** (taken in `IDLE`, where `host_ready` is high): 2–4 cycles, then one response
//!   cycle; then one *background slot* before `host_ready` rises again, so that arriving messages
//!   and the send queues progress even under a continuous stream of host commands.
//! - **Background slot**: an arriving message (if `rx_valid` and the previous background slot was
//!   not a message) or a visit of send queue `sq_ptr` (round robin). A visit runs the queue's head
//!   WQE if it is runnable and its CQ has room, otherwise it moves on. A blocked WAIT re-checks its
//!   condition on every visit. `sq_ptr` advances after every visit.
//! - The first beat of a message is only looked at when the slot starts; beats are consumed in
//!   `RX_DATA` / `DROP` where `rx_ready` is high.
//!
//! Per work request (cycles after the visit starts): context read (1), WQE + CQ-context read (1),
//! decode (1), then: NOP → completion (1); SEND → 2 cycles per beat plus waiting for `tx_ready`;
//! WAIT → condition read (1); SEND_EN / RECV_EN → target context read (1); CALC → 5 cycles per
//! element (7 for MAXLOC / MINLOC) and the optional send. The completion cycle writes the CQE and
//! the queue context. While a message is transmitted the sequencer does nothing else, so the
//! network must accept a message it has started (the testbench links buffer them).
//!
//! The ALU is the registered reduction ALU ([`crate::alu`]): its inputs come from registers, its
//! result is read one cycle later.
//!
//! ## Memories
//!
//! All have one registered read port and one write port (read-before-write), as `netcoll-hdl`'s
//! `Mem`: a value read in cycle `t` is used in cycle `t + 1`.
//!
//! | memory | words | word |
//! |---|---|---|
//! | `wqc` | `2 qps` (SQ of QP q at `2q`, RQ at `2q + 1`) | `pi [15:0]`, `ci [31:16]`, `ei [47:32]`, managed `[48]`, CQ `[63:56]` |
//! | `wqe0`, `wqe1` | `2 qps × WQ_DEPTH` at `{wq, index[3:0]}` | the WQE words |
//! | `cqp` | `cqs` | produced `[31:0]`, consumed `[63:32]` |
//! | `cqw` | `cqs` | wait index (32 bits) |
//! | `cqe` | `cqs × CQ_DEPTH` at `{cq, produced[4:0]}` | CQE |
//! | `cnt` | `counters` | 32 bits |
//! | `dmem` | `dmem_words` | 64 bits |
//!
//! After reset the sequencer writes zero to `wqc`, `cqp`, `cqw` and `cnt` at index `sw` for
//! `sw = 0 .. 2^SWB - 1` (each memory at `sw` modulo its size), `SWB` the widest of their index
//! widths; the WQE, CQE and data memories are not cleared (nothing reads them before writing).

use super::{
    log2, reserved_bits, HostOp, HostStatus, NicIn, NicOut, NicParams, Opcode, Stat, Status,
    CQ_DEPTH, STATS, WQ_DEPTH,
};
use crate::alu::{golden::golden, AluOp, Dtype};

/// Sequencer states (5 bits in the RTL; the codes are the RTL's).
pub mod state {
    pub const INIT: u64 = 0;
    pub const IDLE: u64 = 1;
    pub const BG: u64 = 2;
    pub const H1: u64 = 3;
    pub const H2: u64 = 4;
    pub const H3: u64 = 5;
    pub const SQ1: u64 = 6;
    pub const SQ2: u64 = 7;
    pub const WT: u64 = 8;
    pub const EN: u64 = 9;
    pub const CPL: u64 = 10;
    pub const TX1: u64 = 11;
    pub const TX2: u64 = 12;
    pub const RX1: u64 = 13;
    pub const RX2: u64 = 14;
    pub const RX_DATA: u64 = 15;
    pub const RX_CNT: u64 = 16;
    pub const DROP: u64 = 17;
    pub const NK1: u64 = 18;
    pub const NK2: u64 = 19;
    pub const CA: u64 = 20;
    pub const CB: u64 = 21;
    pub const CAI: u64 = 22;
    pub const CBI: u64 = 23;
    pub const CX: u64 = 24;
    pub const CC: u64 = 25;
    pub const CW: u64 = 26;
    pub const CWI: u64 = 27;
    pub const TX0: u64 = 28;
}
use state::*;

const M16: u64 = 0xFFFF;
const M32: u64 = 0xFFFF_FFFF;

/// A memory with a registered read port, as `netcoll-hdl`'s `Mem`.
#[derive(Clone, Debug)]
struct Ram {
    words: Vec<u64>,
    rd_addr: usize,
    rd_data: u64,
    wr: Option<(usize, u64)>,
}

impl Ram {
    fn new(n: usize) -> Ram {
        Ram {
            words: vec![0; n],
            rd_addr: 0,
            rd_data: 0,
            wr: None,
        }
    }
    fn read(&mut self, a: u64) {
        self.rd_addr = a as usize % self.words.len();
    }
    fn write(&mut self, a: u64, d: u64) {
        self.wr = Some((a as usize % self.words.len(), d));
    }
    fn edge(&mut self) {
        self.rd_data = self.words[self.rd_addr];
        if let Some((a, d)) = self.wr.take() {
            self.words[a] = d;
        }
        self.rd_addr = 0;
    }
}

/// Every register of the RTL (all reset to zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Regs {
    st: u64,
    sw: u64,
    /// The last background slot took a message.
    bg_rx: bool,
    sq_ptr: u64,
    // Latched host command.
    h_op: u64,
    h_arg: u64,
    h_w0: u64,
    h_w1: u64,
    // Response registers (outputs).
    rsp_valid: bool,
    rsp_status: u64,
    rsp_data: u64,
    // Current work queue and its context.
    wq: u64,
    c_pi: u64,
    c_ci: u64,
    c_ei: u64,
    c_man: bool,
    c_cq: u64,
    // The current CQ's produced / consumed counts.
    q_prod: u64,
    q_cons: u64,
    // The current WQE.
    w0: u64,
    w1: u64,
    // Pending completion: status, length, whether it updates a WQ, whether it came from an SQ.
    k_status: u64,
    k_len: u64,
    k_op: u64,
    k_qp: u64,
    k_recv: bool,
    k_index: u64,
    k_want: bool,
    k_wq: bool,
    k_pend: bool,
    // Message being received (header of its first beat).
    r_src: u64,
    r_src_qp: u64,
    r_qp: u64,
    r_cnt_en: bool,
    r_cnt: u64,
    r_tag: u64,
    /// A NAK is to be sent when the dropped message has been consumed.
    r_nak: bool,
    r_ovf: bool,
    // Loop state: element / beat count, limit, addresses.
    i: u64,
    n: u64,
    pa: u64,
    pb: u64,
    pd: u64,
    cap: u64,
    // CALC operands.
    va: u64,
    ia: u64,
    vb: u64,
    ib: u64,
    /// The transmission in progress is a NAK (no completion after it).
    t_nak: bool,
    // Transmit registers (outputs).
    tx_valid: bool,
    tx_kind: bool,
    tx_dst: u64,
    tx_src_qp: u64,
    tx_qp: u64,
    tx_cnt_en: bool,
    tx_cnt: u64,
    tx_tag: u64,
    tx_empty: bool,
    tx_last: bool,
    tx_data: u64,
    // The ALU's output registers.
    alu_r: u64,
    alu_ri: u64,
    stats: [u64; STATS],
}

/// The cycle model. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct NicModel {
    p: NicParams,
    qb: u32,
    swb: u32,
    r: Regs,
    wqc: Ram,
    wqe0: Ram,
    wqe1: Ram,
    cqp: Ram,
    cqw: Ram,
    cqe: Ram,
    cnt: Ram,
    dmem: Ram,
}

fn sx16_pos(v: u64) -> bool {
    // (v as signed 16-bit) > 0
    let v = v & M16;
    v != 0 && v < 0x8000
}

fn sx16_nonneg(v: u64) -> bool {
    v & M16 < 0x8000
}

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
            qb,
            swb,
            r: Regs::default(),
            wqc: Ram::new(2 * p.qps),
            wqe0: Ram::new(2 * p.qps * WQ_DEPTH),
            wqe1: Ram::new(2 * p.qps * WQ_DEPTH),
            cqp: Ram::new(p.cqs),
            cqw: Ram::new(p.cqs),
            cqe: Ram::new(p.cqs * CQ_DEPTH),
            cnt: Ram::new(p.counters),
            dmem: Ram::new(p.dmem_words),
        }
    }

    pub fn params(&self) -> &NicParams {
        &self.p
    }

    /// The outputs during the current cycle (a function of the registers only).
    pub fn outputs(&self) -> NicOut {
        let r = &self.r;
        NicOut {
            host_ready: r.st == IDLE,
            host_rsp_valid: r.rsp_valid,
            host_rsp_status: r.rsp_status,
            host_rsp_data: r.rsp_data,
            rx_ready: r.st == RX_DATA || r.st == DROP,
            tx_valid: r.tx_valid,
            tx_kind: r.tx_kind,
            tx_dst: r.tx_dst,
            tx_src_qp: r.tx_src_qp,
            tx_qp: r.tx_qp,
            tx_cnt_en: r.tx_cnt_en,
            tx_cnt: r.tx_cnt,
            tx_tag: r.tx_tag,
            tx_empty: r.tx_empty,
            tx_last: r.tx_last,
            tx_data: r.tx_data,
        }
    }

    /// One clock cycle: the outputs during the cycle, then the rising edge with inputs `i`.
    pub fn step(&mut self, i: &NicIn) -> NicOut {
        let o = self.outputs();
        if i.reset {
            self.r = Regs::default();
            for m in [
                &mut self.wqc,
                &mut self.wqe0,
                &mut self.wqe1,
                &mut self.cqp,
                &mut self.cqw,
                &mut self.cqe,
                &mut self.cnt,
                &mut self.dmem,
            ] {
                m.wr = None;
                m.edge();
            }
            return o;
        }
        let cur = self.r;
        let mut n = cur;
        n.rsp_valid = false;
        let mut stat: Option<Stat> = None;
        self.cycle(i, &cur, &mut n, &mut stat);
        if let Some(s) = stat {
            n.stats[s as usize] = (n.stats[s as usize] + 1) & M32;
        }
        // The ALU registers its inputs' result every cycle.
        let (ar, ari) = alu_eval(cur.w0, cur.va, cur.ia, cur.vb, cur.ib);
        n.alu_r = ar;
        n.alu_ri = ari;
        self.r = n;
        for m in [
            &mut self.wqc,
            &mut self.wqe0,
            &mut self.wqe1,
            &mut self.cqp,
            &mut self.cqw,
            &mut self.cqe,
            &mut self.cnt,
            &mut self.dmem,
        ] {
            m.edge();
        }
        o
    }

    fn wq_ctx(pi: u64, ci: u64, ei: u64, man: bool, cq: u64) -> u64 {
        (pi & M16) | (ci & M16) << 16 | (ei & M16) << 32 | (man as u64) << 48 | (cq & 0xFF) << 56
    }

    /// Starts a background slot (from IDLE without a host command, or from BG).
    fn background(&mut self, i: &NicIn, cur: &Regs, n: &mut Regs, stat: &mut Option<Stat>) {
        let qps = self.p.qps as u64;
        if i.rx_valid && !cur.bg_rx {
            n.bg_rx = true;
            n.r_src = i.rx_src & 0xFF;
            n.r_src_qp = i.rx_src_qp & 0xFF;
            n.r_qp = i.rx_qp & 0xFF;
            n.r_cnt_en = i.rx_cnt_en;
            n.r_cnt = i.rx_cnt & 0xFF;
            n.r_tag = i.rx_tag & M16;
            n.r_nak = false;
            n.r_ovf = false;
            n.k_pend = false;
            let qp = i.rx_qp & 0xFF;
            if qp >= qps {
                if i.rx_kind {
                    // A NAK for a QP that does not exist: drop the notification.
                    *stat = Some(Stat::CqOverrun);
                    n.st = DROP;
                    return;
                }
                n.st = DROP;
                n.r_nak = true;
                n.k_status = Status::BadIndex as u64;
                return;
            }
            self.wqc.read(2 * qp + (!i.rx_kind) as u64);
            n.wq = 2 * qp + (!i.rx_kind) as u64;
            n.st = if i.rx_kind { NK1 } else { RX1 };
        } else {
            n.bg_rx = false;
            self.wqc.read(2 * cur.sq_ptr);
            n.wq = 2 * cur.sq_ptr;
            n.st = SQ1;
        }
    }

    /// Latches the work-queue context just read (`wqc`) into `c_*`; when its head WQE may run
    /// (posted and, in a managed queue, enabled) also reads that WQE and the queue's CQ
    /// context, and says so.
    fn latch_ctx(&mut self, cur: &Regs, n: &mut Regs) -> bool {
        let c = self.wqc.rd_data;
        n.c_pi = c & M16;
        n.c_ci = (c >> 16) & M16;
        n.c_ei = (c >> 32) & M16;
        n.c_man = (c >> 48) & 1 == 1;
        n.c_cq = (c >> 56) & 0xFF;
        let ready = n.c_ci != n.c_pi && (!n.c_man || sx16_pos(n.c_ei.wrapping_sub(n.c_ci)));
        if ready {
            let slot = cur.wq * WQ_DEPTH as u64 + (n.c_ci & (WQ_DEPTH as u64 - 1));
            self.wqe0.read(slot);
            self.wqe1.read(slot);
            self.cqp.read(n.c_cq);
        }
        ready
    }

    /// Latches the CQ context just read (`cqp`) into `q_*`; whether that CQ is full.
    fn latch_cq(&self, n: &mut Regs) -> bool {
        let q = self.cqp.rd_data;
        n.q_prod = q & M32;
        n.q_cons = (q >> 32) & M32;
        n.q_prod.wrapping_sub(n.q_cons) & M32 == CQ_DEPTH as u64
    }

    fn next_sq(&self, cur: &Regs, n: &mut Regs) {
        n.sq_ptr = (cur.sq_ptr + 1) & ((1 << self.qb) - 1);
    }

    /// Sets up a completion of the current WQE with `status`.
    fn complete(cur: &Regs, n: &mut Regs, status: Status) {
        n.k_status = status as u64;
        n.k_len = 0;
        n.k_op = cur.w0 & 15;
        n.k_qp = cur.wq >> 1;
        n.k_recv = cur.wq & 1 == 1;
        n.k_index = cur.c_ci;
        n.k_want = (cur.w0 >> 4) & 1 == 1 || status != Status::Ok;
        n.k_wq = true;
        n.st = CPL;
    }

    fn cycle(&mut self, i: &NicIn, cur: &Regs, n: &mut Regs, stat: &mut Option<Stat>) {
        let (cnts, dmw) = (self.p.counters as u64, self.p.dmem_words as u64);
        match cur.st {
            INIT => {
                self.wqc.write(cur.sw, 0);
                self.cqp.write(cur.sw, 0);
                self.cqw.write(cur.sw, 0);
                self.cnt.write(cur.sw, 0);
                let last = (1u64 << self.swb) - 1;
                n.sw = (cur.sw + 1) & last;
                if cur.sw == last {
                    n.st = IDLE;
                }
            }
            IDLE | BG => {
                if cur.st == IDLE && i.host_valid {
                    n.h_op = i.host_op & 15;
                    n.h_arg = i.host_arg & M16;
                    n.h_w0 = i.host_w0;
                    n.h_w1 = i.host_w1;
                    n.st = H1;
                } else {
                    self.background(i, cur, n, stat);
                }
            }
            H1 | H2 | H3 => self.host(cur, n, stat),
            SQ1 => {
                if self.latch_ctx(cur, n) {
                    n.st = SQ2;
                } else {
                    self.next_sq(cur, n);
                    n.st = IDLE;
                }
            }
            SQ2 => {
                n.w0 = self.wqe0.rd_data;
                n.w1 = self.wqe1.rd_data;
                if self.latch_cq(n) {
                    *stat = Some(Stat::CqStall);
                    self.next_sq(cur, n);
                    n.st = IDLE;
                    return;
                }
                let cur2 = Regs {
                    w0: n.w0,
                    w1: n.w1,
                    ..*cur
                };
                self.decode(&cur2, n);
            }
            WT => {
                let ok = if (cur.w0 >> 8) & 1 == 0 {
                    let prod = self.cqp.rd_data & M32;
                    let target = cur.w1 >> 32;
                    prod.wrapping_sub(target) & M32 < 0x8000_0000
                } else {
                    self.cnt.rd_data & M32 >= cur.w1 >> 32
                };
                if ok {
                    Self::complete(cur, n, Status::Ok);
                } else {
                    self.next_sq(cur, n);
                    n.st = IDLE;
                }
            }
            EN => {
                let c = self.wqc.rd_data;
                let ei = (c >> 32) & M16;
                let value = (cur.w1 >> 32) & M16;
                let new_ei = if (cur.w0 >> 16) & 1 == 0 {
                    (ei + value) & M16
                } else {
                    let cand = (value + 1) & M16;
                    if sx16_nonneg(cand.wrapping_sub(ei)) {
                        cand
                    } else {
                        ei
                    }
                };
                let target =
                    2 * ((cur.w0 >> 8) & 0xFF) + (cur.w0 & 15 == Opcode::RecvEn as u64) as u64;
                self.wqc.write(target, (c & !(M16 << 32)) | (new_ei << 32));
                if target == cur.wq {
                    n.c_ei = new_ei;
                }
                Self::complete(cur, n, Status::Ok);
            }
            CPL => {
                if cur.k_want {
                    let slot = cur.q_prod & (CQ_DEPTH as u64 - 1);
                    let cqe = cur.k_status
                        | (cur.k_op & 15) << 4
                        | (cur.k_qp & 0xFF) << 8
                        | (cur.k_recv as u64) << 16
                        | (cur.k_index & M16) << 32
                        | (cur.k_len & M16) << 48;
                    self.cqe.write(cur.c_cq * CQ_DEPTH as u64 + slot, cqe);
                    self.cqp.write(
                        cur.c_cq,
                        ((cur.q_prod + 1) & M32) | (cur.q_cons & M32) << 32,
                    );
                    if cur.k_status != Status::Ok as u64 {
                        *stat = Some(Stat::ErrorCqe);
                    }
                }
                if cur.k_wq {
                    self.wqc.write(
                        cur.wq,
                        Self::wq_ctx(cur.c_pi, cur.c_ci + 1, cur.c_ei, cur.c_man, cur.c_cq),
                    );
                    if cur.wq & 1 == 0 {
                        self.next_sq(cur, n);
                    }
                }
                n.k_pend = false;
                n.st = IDLE;
            }
            TX0 => {
                // Read the next beat's word (or send the empty beat).
                if cur.n == 0 {
                    n.tx_valid = true;
                    n.tx_empty = true;
                    n.tx_last = true;
                    n.tx_data = 0;
                    n.st = TX2;
                } else {
                    self.dmem.read(cur.pd);
                    n.st = TX1;
                }
            }
            TX1 => {
                n.tx_valid = true;
                n.tx_empty = false;
                n.tx_last = cur.i + 1 == cur.n;
                n.tx_data = self.dmem.rd_data;
                n.st = TX2;
            }
            TX2 => {
                if i.tx_ready {
                    n.tx_valid = false;
                    if cur.tx_last {
                        if cur.t_nak {
                            n.st = if cur.k_pend { CPL } else { IDLE };
                        } else {
                            Self::complete(cur, n, Status::Ok);
                        }
                    } else {
                        n.i = (cur.i + 1) & M16;
                        n.pd = (cur.pd + 1) & M16;
                        self.dmem.read(n.pd);
                        n.st = TX1;
                    }
                }
            }
            RX1 => {
                if self.latch_ctx(cur, n) {
                    n.st = RX2;
                } else {
                    n.r_nak = true;
                    n.k_status = Status::NotReady as u64;
                    n.st = DROP;
                }
            }
            RX2 => {
                n.w0 = self.wqe0.rd_data;
                n.w1 = self.wqe1.rd_data;
                let cq_full = self.latch_cq(n);
                let addr = (n.w0 >> 8) & M16;
                let len = (n.w0 >> 24) & M16;
                let cur2 = Regs {
                    w0: n.w0,
                    w1: n.w1,
                    ..*cur
                };
                if cq_full {
                    n.r_nak = true;
                    n.k_status = Status::NotReady as u64;
                    n.st = DROP;
                } else if n.w0 & 15 != Opcode::Recv as u64 || reserved_bits(n.w0, n.w1) {
                    Self::complete(&cur2, n, Status::BadOpcode);
                    n.k_pend = true;
                    n.r_nak = true;
                    n.st = DROP;
                } else if addr + len > dmw {
                    Self::complete(&cur2, n, Status::BadAddr);
                    n.k_pend = true;
                    n.r_nak = true;
                    n.st = DROP;
                } else {
                    n.i = 0;
                    n.pd = addr;
                    n.cap = len;
                    n.r_ovf = false;
                    n.st = RX_DATA;
                }
            }
            RX_DATA => {
                if i.rx_valid {
                    let store = !i.rx_empty && cur.i < cur.cap;
                    let ovf = cur.r_ovf || (!i.rx_empty && cur.i >= cur.cap);
                    if store {
                        self.dmem.write(cur.pd, i.rx_data);
                        n.i = (cur.i + 1) & M16;
                        n.pd = (cur.pd + 1) & M16;
                    }
                    n.r_ovf = ovf;
                    if i.rx_last {
                        let status = if cur.r_cnt_en && cur.r_cnt >= cnts {
                            Status::BadIndex
                        } else if ovf {
                            Status::LenErr
                        } else {
                            Status::Ok
                        };
                        Self::complete(cur, n, status);
                        n.k_len = n.i;
                        if cur.r_cnt_en && cur.r_cnt < cnts {
                            self.cnt.read(cur.r_cnt);
                            n.st = RX_CNT;
                        }
                    }
                }
            }
            RX_CNT => {
                self.cnt.write(cur.r_cnt, (self.cnt.rd_data + 1) & M32);
                n.st = CPL;
            }
            DROP => {
                if i.rx_valid && i.rx_last {
                    if cur.r_nak {
                        *stat = Some(Stat::RxDiscard);
                        n.t_nak = true;
                        n.tx_kind = true;
                        n.tx_dst = cur.r_src;
                        n.tx_qp = cur.r_src_qp;
                        n.tx_src_qp = cur.r_qp;
                        n.tx_cnt_en = false;
                        n.tx_cnt = 0;
                        n.tx_tag = cur.r_tag;
                        n.tx_valid = true;
                        n.tx_empty = true;
                        n.tx_last = true;
                        // The NAK reason: the pending completion's status, or why no WQE took it.
                        n.tx_data = cur.k_status;
                        n.st = TX2;
                    } else if cur.k_pend {
                        n.st = CPL;
                    } else {
                        n.st = IDLE;
                    }
                }
            }
            NK1 => {
                let c = self.wqc.rd_data;
                n.c_cq = (c >> 56) & 0xFF;
                self.cqp.read(n.c_cq);
                n.st = NK2;
            }
            NK2 => {
                if self.latch_cq(n) {
                    *stat = Some(Stat::CqOverrun);
                } else {
                    *stat = Some(Stat::NakReceived);
                    n.k_status = Status::RemoteDiscard as u64;
                    n.k_len = 0;
                    n.k_op = Opcode::Send as u64;
                    n.k_qp = cur.r_qp;
                    n.k_recv = false;
                    n.k_index = cur.r_tag;
                    n.k_want = true;
                    n.k_wq = false;
                    n.k_pend = true;
                }
                n.r_nak = false;
                n.st = DROP;
            }
            CA => {
                self.dmem.read(cur.pa);
                n.st = CB;
            }
            CB => {
                n.va = self.dmem.rd_data;
                self.dmem.read(cur.pb);
                n.st = if is_loc(cur.w0) { CAI } else { CX };
            }
            CAI => {
                n.vb = self.dmem.rd_data;
                self.dmem.read((cur.pa + 1) & M16);
                n.st = CBI;
            }
            CBI => {
                n.ia = self.dmem.rd_data;
                self.dmem.read((cur.pb + 1) & M16);
                n.st = CX;
            }
            CX => {
                if is_loc(cur.w0) {
                    n.ib = self.dmem.rd_data;
                } else {
                    n.vb = self.dmem.rd_data;
                    n.ia = 0;
                    n.ib = 0;
                }
                n.st = CC;
            }
            CC => n.st = CW,
            CW => {
                self.dmem.write(cur.pd, cur.alu_r);
                if is_loc(cur.w0) {
                    n.st = CWI;
                } else {
                    self.calc_next(cur, n);
                }
            }
            CWI => {
                self.dmem.write((cur.pd + 1) & M16, cur.alu_ri);
                self.calc_next(cur, n);
            }
            _ => n.st = IDLE,
        }
    }

    /// After one CALC element: the next one, or the send of the result, or the completion.
    fn calc_next(&mut self, cur: &Regs, n: &mut Regs) {
        let loc = is_loc(cur.w0);
        n.i = (cur.i + 1) & M16;
        n.pa = (cur.pa + ((cur.w1 >> 32) & 0xFF)) & M16;
        n.pb = (cur.pb + ((cur.w1 >> 40) & 0xFF)) & M16;
        n.pd = (cur.pd + if loc { 2 } else { 1 }) & M16;
        if n.i == cur.n {
            Self::calc_done(cur, n);
        } else {
            n.st = CA;
        }
    }

    /// The CALC loop is over: send the result to the peer, or complete.
    fn calc_done(cur: &Regs, n: &mut Regs) {
        if (cur.w0 >> 14) & 1 == 1 {
            let words = if is_loc(cur.w0) { 2 * cur.n } else { cur.n };
            Self::start_send(cur, n, cur.w1 >> 48, words);
        } else {
            Self::complete(cur, n, Status::Ok);
        }
    }

    /// Starts transmitting `len` words from `addr` with the header of the current WQE (SEND and
    /// CALC share the `w1[31:0]` layout).
    fn start_send(cur: &Regs, n: &mut Regs, addr: u64, len: u64) {
        n.t_nak = false;
        n.tx_kind = false;
        n.tx_dst = cur.w1 & 0xFF;
        n.tx_qp = (cur.w1 >> 8) & 0xFF;
        n.tx_src_qp = cur.wq >> 1;
        n.tx_cnt_en = (cur.w1 >> 16) & 1 == 1;
        n.tx_cnt = (cur.w1 >> 24) & 0xFF;
        n.tx_tag = cur.c_ci;
        n.i = 0;
        n.n = len & M16;
        n.pd = addr & M16;
        n.st = TX0;
    }

    /// Decodes the WQE just read (`cur.w0`, `cur.w1`) of a runnable SQ whose CQ has room.
    fn decode(&mut self, cur: &Regs, n: &mut Regs) {
        let p = self.p;
        let (qps, cqs, cnts, dmw) = (
            p.qps as u64,
            p.cqs as u64,
            p.counters as u64,
            p.dmem_words as u64,
        );
        let w0 = cur.w0;
        let w1 = cur.w1;
        if reserved_bits(w0, w1) {
            Self::complete(cur, n, Status::BadOpcode);
            return;
        }
        match Opcode::from_code(w0 & 15) {
            Some(Opcode::Nop) => Self::complete(cur, n, Status::Ok),
            Some(Opcode::Send) => {
                let addr = (w0 >> 8) & M16;
                let len = (w0 >> 24) & M16;
                if addr + len > dmw {
                    Self::complete(cur, n, Status::BadAddr);
                } else {
                    Self::start_send(cur, n, addr, len);
                }
            }
            Some(Opcode::Wait) => {
                let idx = (w0 >> 16) & 0xFF;
                if (w0 >> 8) & 1 == 0 {
                    if idx >= cqs {
                        Self::complete(cur, n, Status::BadIndex);
                    } else {
                        self.cqp.read(idx);
                        n.st = WT;
                    }
                } else if idx >= cnts {
                    Self::complete(cur, n, Status::BadIndex);
                } else {
                    self.cnt.read(idx);
                    n.st = WT;
                }
            }
            Some(Opcode::SendEn) | Some(Opcode::RecvEn) => {
                let qp = (w0 >> 8) & 0xFF;
                if qp >= qps {
                    Self::complete(cur, n, Status::BadIndex);
                } else {
                    let recv = (w0 & 15 == Opcode::RecvEn as u64) as u64;
                    self.wqc.read(2 * qp + recv);
                    n.st = EN;
                }
            }
            Some(Opcode::Calc) => {
                let op = (w0 >> 8) & 15;
                let count = (w0 >> 16) & M16;
                let a = (w0 >> 32) & M16;
                let b = (w0 >> 48) & M16;
                let sa = (w1 >> 32) & 0xFF;
                let sb = (w1 >> 40) & 0xFF;
                let dst = (w1 >> 48) & M16;
                let loc = is_loc(w0) as u64;
                let last = count.wrapping_sub(1) & M16;
                let a_end = a + last * sa + loc;
                let b_end = b + last * sb + loc;
                let d_end = dst + (count << loc);
                if op >= 12 {
                    Self::complete(cur, n, Status::BadArg);
                } else if count != 0 && (a_end >= dmw || b_end >= dmw || d_end > dmw) {
                    Self::complete(cur, n, Status::BadAddr);
                } else {
                    n.i = 0;
                    n.n = count;
                    n.pa = a;
                    n.pb = b;
                    n.pd = dst;
                    if count == 0 {
                        Self::calc_done(&Regs { n: 0, ..*cur }, n);
                    } else {
                        n.st = CA;
                    }
                }
            }
            // RECV on a send queue, or an unknown opcode.
            _ => Self::complete(cur, n, Status::BadOpcode),
        }
    }

    fn host(&mut self, cur: &Regs, n: &mut Regs, stat: &mut Option<Stat>) {
        let p = self.p;
        let (qps, cqs, cnts, dmw) = (
            p.qps as u64,
            p.cqs as u64,
            p.counters as u64,
            p.dmem_words as u64,
        );
        let mut respond = |n: &mut Regs, s: HostStatus, data: u64| {
            n.rsp_valid = true;
            n.rsp_status = s as u64;
            n.rsp_data = data;
            n.st = BG;
        };
        let arg = cur.h_arg;
        let op = HostOp::from_code(cur.h_op);
        let bad_index =
            |n: &mut Regs,
             stat: &mut Option<Stat>,
             respond: &mut dyn FnMut(&mut Regs, HostStatus, u64)| {
                *stat = Some(Stat::HostBadIndex);
                respond(n, HostStatus::BadIndex, 0);
            };
        match (cur.st, op) {
            (_, None) => {
                *stat = Some(Stat::HostBadOp);
                respond(n, HostStatus::BadOp, 0);
            }
            (_, Some(HostOp::Nop)) => respond(n, HostStatus::Ok, 0),
            (H1, Some(HostOp::PostSq)) | (H1, Some(HostOp::PostRq)) => {
                if arg >= qps {
                    bad_index(n, stat, &mut respond);
                } else {
                    let wq = 2 * arg + (cur.h_op == HostOp::PostRq as u64) as u64;
                    n.wq = wq;
                    self.wqc.read(wq);
                    self.cqw.read((cur.h_w0 >> 16) & 0xFF);
                    n.st = H2;
                }
            }
            (_, Some(HostOp::PostSq)) | (_, Some(HostOp::PostRq)) => {
                let c = self.wqc.rd_data;
                let pi = c & M16;
                let ci = (c >> 16) & M16;
                if pi.wrapping_sub(ci) & M16 == WQ_DEPTH as u64 {
                    *stat = Some(Stat::WqFull);
                    respond(n, HostStatus::Full, 0);
                } else {
                    let slot = cur.wq * WQ_DEPTH as u64 + (pi & (WQ_DEPTH as u64 - 1));
                    let cq = (cur.h_w0 >> 16) & 0xFF;
                    let cq_wait = cur.h_w0 & 15 == Opcode::Wait as u64
                        && (cur.h_w0 >> 8) & 1 == 0
                        && cq < cqs;
                    let mut w1 = cur.h_w1;
                    if cq_wait {
                        let target = (self.cqw.rd_data + (cur.h_w1 >> 32)) & M32;
                        self.cqw.write(cq, target);
                        w1 = (w1 & M32) | target << 32;
                    }
                    self.wqe0.write(slot, cur.h_w0);
                    self.wqe1.write(slot, w1);
                    self.wqc.write(cur.wq, (c & !M16) | ((pi + 1) & M16));
                    respond(n, HostStatus::Ok, pi);
                }
            }
            (H1, Some(HostOp::PollCq)) => {
                if arg >= cqs {
                    bad_index(n, stat, &mut respond);
                } else {
                    self.cqp.read(arg);
                    n.st = H2;
                }
            }
            (H2, Some(HostOp::PollCq)) => {
                let q = self.cqp.rd_data;
                let prod = q & M32;
                let cons = (q >> 32) & M32;
                if prod == cons {
                    respond(n, HostStatus::Empty, 0);
                } else {
                    self.cqe
                        .read(arg * CQ_DEPTH as u64 + (cons & (CQ_DEPTH as u64 - 1)));
                    self.cqp.write(arg, prod | ((cons + 1) & M32) << 32);
                    n.st = H3;
                }
            }
            (_, Some(HostOp::PollCq)) => respond(n, HostStatus::Ok, self.cqe.rd_data),
            (_, Some(HostOp::WriteMem)) => {
                if arg >= dmw {
                    bad_index(n, stat, &mut respond);
                } else {
                    self.dmem.write(arg, cur.h_w0);
                    respond(n, HostStatus::Ok, 0);
                }
            }
            (H1, Some(HostOp::ReadMem)) => {
                if arg >= dmw {
                    bad_index(n, stat, &mut respond);
                } else {
                    self.dmem.read(arg);
                    n.st = H2;
                }
            }
            (_, Some(HostOp::ReadMem)) => respond(n, HostStatus::Ok, self.dmem.rd_data),
            (_, Some(HostOp::WriteCnt)) => {
                if arg >= cnts {
                    bad_index(n, stat, &mut respond);
                } else {
                    self.cnt.write(arg, cur.h_w0 & M32);
                    respond(n, HostStatus::Ok, 0);
                }
            }
            (H1, Some(HostOp::ReadCnt)) => {
                if arg >= cnts {
                    bad_index(n, stat, &mut respond);
                } else {
                    self.cnt.read(arg);
                    n.st = H2;
                }
            }
            (_, Some(HostOp::ReadCnt)) => respond(n, HostStatus::Ok, self.cnt.rd_data),
            (H1, Some(HostOp::ConfigQp)) => {
                if arg >= qps || cur.h_w0 & 0xFF >= cqs || (cur.h_w0 >> 8) & 0xFF >= cqs {
                    bad_index(n, stat, &mut respond);
                } else {
                    self.wqc.read(2 * arg);
                    n.st = H2;
                }
            }
            (H2, Some(HostOp::ConfigQp)) => {
                let c = self.wqc.rd_data;
                let ci = (c >> 16) & M16;
                self.wqc.write(
                    2 * arg,
                    Self::wq_ctx(c, ci, ci, (cur.h_w0 >> 16) & 1 == 1, cur.h_w0 & 0xFF),
                );
                self.wqc.read(2 * arg + 1);
                n.st = H3;
            }
            (_, Some(HostOp::ConfigQp)) => {
                let c = self.wqc.rd_data;
                let ci = (c >> 16) & M16;
                self.wqc.write(
                    2 * arg + 1,
                    Self::wq_ctx(c, ci, ci, (cur.h_w0 >> 17) & 1 == 1, (cur.h_w0 >> 8) & 0xFF),
                );
                respond(n, HostStatus::Ok, 0);
            }
            (_, Some(HostOp::ReadStat)) => {
                if arg >= STATS as u64 {
                    bad_index(n, stat, &mut respond);
                } else {
                    respond(n, HostStatus::Ok, cur.stats[arg as usize]);
                }
            }
        }
    }
}

fn is_loc(w0: u64) -> bool {
    let op = (w0 >> 8) & 15;
    op == AluOp::MaxLoc as u64 || op == AluOp::MinLoc as u64
}

/// The ALU's combinational function on the CALC operand registers (its reserved operations
/// give zero; CALC never reaches it with one).
fn alu_eval(w0: u64, va: u64, ia: u64, vb: u64, ib: u64) -> (u64, u64) {
    match (
        AluOp::from_code((w0 >> 8) & 15),
        Dtype::from_code((w0 >> 12) & 3),
    ) {
        (Some(op), Some(dt)) => golden(op, dt, va, ia, vb, ib),
        _ => (0, 0),
    }
}

/// The scenario driver's convention: the outputs after the edge (those of the next cycle).
impl super::scenario::NicDut for NicModel {
    fn step(&mut self, i: &NicIn) -> NicOut {
        NicModel::step(self, i);
        self.outputs()
    }
    fn name(&self) -> &str {
        "cycle model"
    }
}
