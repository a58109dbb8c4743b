//! # The queues (module `nic_queues`)
//!
//! The work-queue and completion-queue memories — contexts `wqc`, reliability words `rcc`,
//! WQEs `wqe0` / `wqe1` and their checks `wqe_chk` (made when posted, see
//! [`super::execute`]; RTL only), CQ counts `cqp`, CQEs `cqe` (see the memory table of
//! `netcoll_models::nic::model`) — and the work queue being served: its index `wq`, the
//! context, its reliability word, its CQ's counts and its head WQE, latched when read. `rcc`
//! is read with `wqc`, at the same address; it holds the answer a reliable QP's SQ awaits
//! (see "Reliable QPs" in `netcoll_models::nic`), which this unit also updates. The writes of
//! `wqc` and `rcc` reach the RAM a cycle after the decision that makes them (`wqc_pend`,
//! `rcc_pend`), and a read at that edge of the word being written returns it (`wqc_fwd`,
//! `rcc_fwd`). Every access to these memories is
//! made here, on the state and on the requests of the other units; their words are split and
//! assembled by layout blocks ([`super::layouts`]): `wq_context` / `cq_counts` (the fields of
//! what `wqc` / `cqp` returned) and `wq_context_word` / `cq_counts_word` (the words written).
//!
//! | state | reads | writes, latches |
//! |---|---|---|
//! | `Init` | | `wqc`, `rcc`, `cqp` at `sweep_at`: zero |
//! | background slot | `wqc[wq]`, `rcc[wq]` (the message's queue or the visited SQ) | `wq` |
//! | host command | `wqc[wq_sel]` (`read_wq`; `+ 1` while `configure`), `cqp[cq_sel]` (`read_cq`), `cqe` (`pop`) | `post`: WQE, its checks (`post_checks` of the cycle before) and `pi + 1`; `pop`: `consumed + 1`; `configure`: `ei = ci`, CQ, managed, plain; `rcc`: the reliability settings, nothing awaited |
//! | `SqContext`, `RxContext` | the head WQE and `cqp[cq]` (runnable or not: used in `SqWqe` / `RxWqe` only) | context, reliability word |
//! | `SqWqe` | `cqp` of a CQ WAIT, at the WQE being latched (whatever the WQE: used in `SqDecode`'s WAIT compare only) | `due`: `now - at` not negative |
//! | `SqDecode`, `CalcWrite`, `CalcWriteIndex` (`await_answer`) | | `rcc`: awaiting, the retries left |
//! | `Idle` taking a host command | | its words as the WQE |
//! | `SqWqe`, `RxWqe` | | WQE, its checks, counts |
//! | `SqDecode` | `wqc` of an enable's target (whatever the WQE: used in `EnableWrite` only) | |
//! | `NakContext` / `NakCq` | `cqp[cq]` | CQ, reliability word / counts; `NakContext`: `rcc` of an awaited answer |
//! | `EnableWrite` | | the target's `ei` (also the latched one if it is the served queue) |
//! | `Complete` | | the CQE and `produced + 1` (`write_cqe`); `ci + 1` (`retire`), and for an SQ nothing awaited in `rcc` |
//!
//! # Inputs
//! - `clock`, `reset`; `state`, `sweep_at`, `take_rx`, `take_visit`, `take_host`, `visit_qp`
//!   (sequencer); `host_w0`, `host_w1` (the host command's words, at the port);
//!   `rx_qp`, `rx_kind` (the arriving message; the QP's low `QB` bits);
//! - `cqe_word`: the pending completion's CQE;
//! - `post_checks`: the checks of the current words (the execute unit's `checks_now`);
//! - from the host unit: `cmd_w0`, `post_w1`, `wq_sel`, `cq_sel`, `read_wq`,
//!   `read_cq`, `post`, `pop`, `configure`, `cfg_cq`, `cfg_managed`, `cfg_plain`;
//! - from the execute unit: the current WQE's `opcode`,
//!   `en_qp`, `en_mode`, `en_value` (index fields cut to their memory's width);
//! - from the completion unit: `write_cqe`, `retire`;
//! - `now` (the sequencer's time), `cfg_rc`, `cfg_rnr_retry`, `cfg_rnr_delay` (host, with
//!   `configure`), `await_answer` (execute, calc: a reliable QP's message may go to the transmit engine),
//!   `msg_tag` (the arriving NAK's tag), `answer_reason` (its data's low bits).
//!
//! # Outputs
//! - `wq_pi`, `wq_ci`, `wq_managed`, `wq_plain`: the work-queue context just read; `cq_produced`, `cq_consumed`: the CQ
//!   counts just read; `cqe_data`: the CQE just read;
//! - `cur_w0`, `cur_w1`: the latched WQE, or the host's command while one runs (latched on
//!   `take_host` into the same registers, so no mux stands between them and the decoders; never
//!   the memory's output, which comes late in the cycle); `checks`: the latched WQE's checks;
//! - `head_shape`: the `calc_shape` of the WQE being read (the calc unit's shape memories
//!   read it in `SqWqe`, so that the shape is there in `SqDecode`); `head_wait_index`: its
//!   `wait_index`, `KB` bits (the counter a WAIT compares, read in `SqWqe` by the execute
//!   unit's request);
//! - the served queue: `wq`, `ctx_ci`; `runnable` (the context just read has a WQE that may
//!   run), `cq_full` (registered when the counts were latched with the WQE: `SqDecode`,
//!   `RxCheck`), `read_cq_full` (the counts just read: `NakCq`);
//! - `advance_visit`: a send queue's WQE has retired;
//! - `awaits` (the reliability word just read awaits an answer), `rc_read` (its QP is
//!   reliable); the latched word's `reliable`, `rc_state`, `rc_status`, and `rc_due`;
//! - `answered` (`NakContext`: the NAK is the answer the SQ's head awaits), `answer_discard`
//!   (that answer makes it complete with `REMOTE_DISCARD`).

use super::calc::SHAPE_BITS;
use super::execute::CHECK_BITS;
use super::k;
use super::layouts::{pack, unpack};
use super::sequencer::SeqState;
use crate::dff_setup;
use crate::prim::{DataReg, Mem, Reg};
use netcoll_models::nic::{Opcode, RcState, Status, CQ_DEPTH, WQ_DEPTH};
use rust_hdl::prelude::*;

const OPCODE_BITS: usize = Opcode::BITS;
const STATUS_BITS: usize = Status::BITS;
/// Bits of a WQE's index within its ring.
const WQ_SLOT_BITS: usize = WQ_DEPTH.trailing_zeros() as usize;
/// Bits of a CQE's index within its ring.
const CQ_SLOT_BITS: usize = CQ_DEPTH.trailing_zeros() as usize;

crate::sub_block! {
    /// The queues (widths as in [`super::Nic`]).
    pub struct NicQueues<
        const QB: usize,
        const WB: usize,
        const WEB: usize,
        const CB: usize,
        const CEB: usize,
        const SWB: usize,
        const KB: usize,
    > {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub sweep_at: Signal<In, Bits<SWB>>,
        pub take_rx: Signal<In, bool>,
        pub take_visit: Signal<In, bool>,
        pub take_host: Signal<In, bool>,
        pub host_w0: Signal<In, Bits<64>>,
        pub host_w1: Signal<In, Bits<64>>,
        pub visit_qp: Signal<In, Bits<QB>>,
        pub rx_qp: Signal<In, Bits<QB>>,
        pub rx_kind: Signal<In, bool>,
        pub cqe_word: Signal<In, Bits<64>>,
        pub cmd_w0: Signal<In, Bits<64>>,
        pub post_w1: Signal<In, Bits<64>>,
        pub post_checks: Signal<In, Bits<CHECK_BITS>>,
        pub wq_sel: Signal<In, Bits<WB>>,
        pub cq_sel: Signal<In, Bits<CB>>,
        pub read_wq: Signal<In, bool>,
        pub read_cq: Signal<In, bool>,
        pub post: Signal<In, bool>,
        pub pop: Signal<In, bool>,
        pub configure: Signal<In, bool>,
        pub cfg_cq: Signal<In, Bits<8>>,
        pub cfg_managed: Signal<In, bool>,
        pub cfg_plain: Signal<In, bool>,
        pub opcode: Signal<In, Bits<OPCODE_BITS>>,
        pub en_qp: Signal<In, Bits<QB>>,
        pub en_mode: Signal<In, Bits<2>>,
        pub en_value: Signal<In, Bits<16>>,
        pub write_cqe: Signal<In, bool>,
        pub retire: Signal<In, bool>,
        pub now: Signal<In, Bits<32>>,
        pub cfg_rc: Signal<In, bool>,
        pub cfg_rnr_retry: Signal<In, Bits<3>>,
        pub cfg_rnr_delay: Signal<In, Bits<16>>,
        pub await_answer: Signal<In, bool>,
        pub msg_tag: Signal<In, Bits<16>>,
        pub answer_reason: Signal<In, Bits<STATUS_BITS>>,
        pub wq_pi: Signal<Out, Bits<16>>,
        pub wq_ci: Signal<Out, Bits<16>>,
        pub wq_managed: Signal<Out, bool>,
        pub wq_plain: Signal<Out, bool>,
        pub cq_produced: Signal<Out, Bits<32>>,
        pub cq_consumed: Signal<Out, Bits<32>>,
        pub cqe_data: Signal<Out, Bits<64>>,
        pub cur_w0: Signal<Out, Bits<64>>,
        pub cur_w1: Signal<Out, Bits<64>>,
        pub checks: Signal<Out, Bits<CHECK_BITS>>,
        pub head_shape: Signal<Out, Bits<SHAPE_BITS>>,
        pub head_wait_index: Signal<Out, Bits<KB>>,
        pub wq: Signal<Out, Bits<WB>>,
        pub ctx_ci: Signal<Out, Bits<16>>,
        pub runnable: Signal<Out, bool>,
        pub cq_full: Signal<Out, bool>,
        pub read_cq_full: Signal<Out, bool>,
        pub advance_visit: Signal<Out, bool>,
        pub awaits: Signal<Out, bool>,
        pub rc_read: Signal<Out, bool>,
        pub reliable: Signal<Out, bool>,
        pub rc_state: Signal<Out, Bits<2>>,
        pub rc_status: Signal<Out, Bits<STATUS_BITS>>,
        pub rc_due: Signal<Out, bool>,
        pub answered: Signal<Out, bool>,
        pub answer_discard: Signal<Out, bool>,
        wqc: Mem<Bits<64>, WB>,
        rcc: Mem<Bits<64>, WB>,
        wqe0: Mem<Bits<64>, WEB>,
        wqe1: Mem<Bits<64>, WEB>,
        /// The WQEs' checks, made when they were posted (see [`super::execute`]).
        wqe_chk: Mem<Bits<CHECK_BITS>, WEB>,
        cqp: Mem<Bits<64>, CB>,
        cqe: Mem<Bits<64>, CEB>,
        // The words of `wqc` and `cqp`: read, and written (modules `nic_wq_context_fields`,
        // `nic_cq_counts_fields`, `nic_wq_context_word`, `nic_cq_counts_word`).
        wq_context: unpack::WqContext,
        cq_counts: unpack::CqContext,
        wq_context_word: pack::WqContext,
        cq_counts_word: pack::CqContext,
        // The words of `rcc`, read and written (modules `nic_rc_context_fields`,
        // `nic_rc_context_word`).
        rc_context: unpack::RcContext,
        rc_context_word: pack::RcContext,
        // The served queue.
        served: Reg<Bits<WB>>,
        pi: Reg<Bits<16>>,
        ci: Reg<Bits<16>>,
        ei: Reg<Bits<16>>,
        managed: Reg<bool>,
        plain: Reg<bool>,
        cq: Reg<Bits<8>>,
        produced: Reg<Bits<32>>,
        consumed: Reg<Bits<32>>,
        /// The CQ was full when its counts were latched with the WQE.
        full: Reg<bool>,
        w0: Reg<Bits<64>>,
        w1: Reg<Bits<64>>,
        /// The latched WQE's checks.
        chk: Reg<Bits<CHECK_BITS>>,
        /// `post_checks` a cycle later: a post writes it (the host's words are latched two
        /// cycles before its first post, in `Idle`, so it is theirs), so that the checks' logic
        /// and the memory's write have a cycle each.
        chk_post: Reg<Bits<CHECK_BITS>>,
        /// The served queue's reliability word, latched with its context.
        rc_on: Reg<bool>,
        rc_retry: Reg<Bits<3>>,
        rc_st: Reg<Bits<2>>,
        rc_left: Reg<Bits<3>>,
        rc_stat: Reg<Bits<STATUS_BITS>>,
        rc_delay: Reg<Bits<16>>,
        rc_at: Reg<Bits<32>>,
        /// An RNR retry is due (`SqWqe`).
        due: Reg<bool>,
        /// The queue a background slot serves: the message's (its RQ, or its SQ for a NAK),
        /// or the visited SQ.
        slot_wq: Signal<Local, Bits<WB>>,
        /// `ei - ci` of the context just read: WQEs enabled.
        enabled: Signal<Local, Bits<16>>,
        /// The queue SEND_EN / RECV_EN names, and its new enable index.
        enable_target: Signal<Local, Bits<WB>>,
        up_to: Signal<Local, Bits<16>>,
        new_ei: Signal<Local, Bits<16>>,
        latch_context: Signal<Local, bool>,
        latch_wqe: Signal<Local, bool>,
        wqc_write: Signal<Local, bool>,
        wqc_write_at: Signal<Local, Bits<WB>>,
        cqp_write: Signal<Local, bool>,
        cqe_write: Signal<Local, bool>,
        rcc_write: Signal<Local, bool>,
        rcc_write_at: Signal<Local, Bits<WB>>,
        /// `rcc`'s write, a cycle late: the decisions that write it (a message handed over, an
        /// answer, a completion) end at these registers, and the RAM's write enable, address
        /// and data come from them.
        rcc_pend: Reg<bool>,
        rcc_pend_addr: DataReg<Bits<WB>>,
        rcc_pend_data: DataReg<Bits<64>>,
        /// The late write was to the word read at the same edge: the read returns its data
        /// (`rcc` reads before it writes).
        rcc_fwd: Reg<bool>,
        rcc_fwd_data: DataReg<Bits<64>>,
        /// `wqc`'s write, a cycle late, and its forward, as `rcc`'s: the decisions that write
        /// it (a post, an enable, a retirement) end at these registers, not at the write
        /// ports of every slice of the RAM.
        wqc_pend: Reg<bool>,
        wqc_pend_addr: DataReg<Bits<WB>>,
        wqc_pend_data: DataReg<Bits<64>>,
        wqc_fwd: Reg<bool>,
        wqc_fwd_data: DataReg<Bits<64>>,
        /// `NakContext`: the answer's new state for the awaiting SQ, and its retry time.
        retry_at: Signal<Local, Bits<32>>,
        half: Constant<Bits<16>> = k(0x8000),
        calc_shape_at: Constant<Bits<8>> = k(super::CALC_SHAPE.lsb as u64),
        wait_index_at: Constant<Bits<8>> = k(super::WAIT_INDEX.lsb as u64),
        half32: Constant<Bits<32>> = k(1 << 31),
        st_await: Constant<Bits<2>> = k(RcState::Await.code()),
        st_retry: Constant<Bits<2>> = k(RcState::Retry.code()),
        st_answered: Constant<Bits<2>> = k(RcState::Answered.code()),
        retry_always: Constant<Bits<3>> = k(7),
        ok: Constant<Bits<STATUS_BITS>> = k(Status::Ok.code()),
        rnr_nak: Constant<Bits<STATUS_BITS>> = k(Status::RnrNak.code()),
        remote_discard: Constant<Bits<STATUS_BITS>> = k(Status::RemoteDiscard.code()),
        rnr_retry_exc: Constant<Bits<STATUS_BITS>> = k(Status::RnrRetryExc.code()),
        wq_slot_bits: Constant<Bits<8>> = k(WQ_SLOT_BITS as u64),
        cq_slot_bits: Constant<Bits<8>> = k(CQ_SLOT_BITS as u64),
        cq_depth: Constant<Bits<32>> = k(CQ_DEPTH as u64),
        recv_en: Constant<Bits<OPCODE_BITS>> = k(Opcode::RecvEn.code()),
    }
}

impl<
        const QB: usize,
        const WB: usize,
        const WEB: usize,
        const CB: usize,
        const CEB: usize,
        const SWB: usize,
        const KB: usize,
    > Logic for NicQueues<QB, WB, WEB, CB, CEB, SWB, KB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            served,
            pi,
            ci,
            ei,
            managed,
            plain,
            cq,
            produced,
            consumed,
            full,
            w0,
            w1,
            chk,
            chk_post,
            rc_on,
            rc_retry,
            rc_st,
            rc_left,
            rc_stat,
            rc_delay,
            rc_at,
            due,
            rcc_pend,
            rcc_pend_addr,
            rcc_pend_data,
            rcc_fwd,
            rcc_fwd_data,
            wqc_pend,
            wqc_pend_addr,
            wqc_pend_data,
            wqc_fwd,
            wqc_fwd_data
        );
        self.wqc.clock.next = self.clock.val();
        self.rcc.clock.next = self.clock.val();
        self.rc_context.rcc.next = self.rcc.rd_data.val();
        if self.rcc_fwd.q.val() {
            self.rc_context.rcc.next = self.rcc_fwd_data.q.val();
        }
        self.awaits.next = self.rc_context.state.val() == self.st_await.val();
        self.rc_read.next = self.rc_context.rc.val();
        self.reliable.next = self.rc_on.q.val();
        self.rc_state.next = self.rc_st.q.val();
        self.rc_status.next = self.rc_stat.q.val();
        self.rc_due.next = self.due.q.val();
        self.wqe0.clock.next = self.clock.val();
        self.wqe1.clock.next = self.clock.val();
        self.wqe_chk.clock.next = self.clock.val();
        self.cqp.clock.next = self.clock.val();
        self.cqe.clock.next = self.clock.val();
        self.wq_context.ctx.next = self.wqc.rd_data.val();
        if self.wqc_fwd.q.val() {
            self.wq_context.ctx.next = self.wqc_fwd_data.q.val();
        }
        self.cq_counts.counts.next = self.cqp.rd_data.val();
        self.wq_pi.next = self.wq_context.pi.val();
        self.wq_ci.next = self.wq_context.ci.val();
        self.wq_managed.next = self.wq_context.managed.val();
        self.wq_plain.next = self.wq_context.plain.val();
        self.cq_produced.next = self.cq_counts.produced.val();
        self.cq_consumed.next = self.cq_counts.consumed.val();
        self.cqe_data.next = self.cqe.rd_data.val();
        self.wq.next = self.served.q.val();
        self.ctx_ci.next = self.ci.q.val();

        // The context and counts just read.
        self.enabled.next = self.wq_context.ei.val() - self.wq_context.ci.val();
        self.runnable.next = (self.wq_context.ci.val() != self.wq_context.pi.val())
            & (!self.wq_context.managed.val()
                | ((self.enabled.val() != 0) & (self.enabled.val() < self.half.val())));
        self.read_cq_full.next =
            (self.cq_counts.produced.val() - self.cq_counts.consumed.val()) == self.cq_depth.val();
        self.cq_full.next = self.full.q.val();
        self.cur_w0.next = self.w0.q.val();
        self.cur_w1.next = self.w1.q.val();
        self.checks.next = self.chk.q.val();
        self.chk_post.d.next = self.post_checks.val();
        self.head_shape.next = self
            .wqe1
            .rd_data
            .val()
            .get_bits::<SHAPE_BITS>(self.calc_shape_at.val().index());
        self.head_wait_index.next = self
            .wqe0
            .rd_data
            .val()
            .get_bits::<KB>(self.wait_index_at.val().index());
        self.latch_wqe.next =
            (self.state.val() == SeqState::SqWqe) | (self.state.val() == SeqState::RxWqe);
        if self.take_host.val() {
            self.w0.d.next = self.host_w0.val();
            self.w1.d.next = self.host_w1.val();
        }
        if self.latch_wqe.val() {
            self.w0.d.next = self.wqe0.rd_data.val();
            self.w1.d.next = self.wqe1.rd_data.val();
            self.chk.d.next = self.wqe_chk.rd_data.val();
            self.produced.d.next = self.cq_counts.produced.val();
            self.consumed.d.next = self.cq_counts.consumed.val();
            self.full.d.next = self.read_cq_full.val();
        }
        if self.state.val() == SeqState::SqWqe {
            self.due.d.next = (self.now.val() - self.rc_at.q.val()) < self.half32.val();
        }
        self.enable_target.next = (bit_cast::<WB, QB>(self.en_qp.val()) << 1)
            | bit_cast::<WB, 1>((self.opcode.val() == self.recv_en.val()).into());
        // Mode 1 enables index `en_value` itself, mode 3 (and 2) stop before it.
        self.up_to.next = self.en_value.val() + bit_cast::<16, 1>((self.en_mode.val() == 1).into());
        self.new_ei.next = self.wq_context.ei.val() + self.en_value.val();
        if self.en_mode.val() != 0 {
            // Up to an index: never backwards.
            self.new_ei.next = self.wq_context.ei.val();
            if (self.up_to.val() - self.wq_context.ei.val()) < self.half.val() {
                self.new_ei.next = self.up_to.val();
            }
        }
        self.slot_wq.next = bit_cast::<WB, QB>(self.visit_qp.val()) << 1;
        if self.take_rx.val() {
            self.slot_wq.next = (bit_cast::<WB, QB>(self.rx_qp.val()) << 1)
                | bit_cast::<WB, 1>((!self.rx_kind.val()).into());
        }

        // Reads: a background slot's queue, the host's, a head WQE and its CQ, a NAK's CQ, an
        // enable's target, a CQ WAIT's CQ, a popped CQE.
        self.wqc.rd_addr.next = 0.into();
        self.wqe0.rd_addr.next = 0.into();
        self.wqe1.rd_addr.next = 0.into();
        self.wqe_chk.rd_addr.next = 0.into();
        self.cqp.rd_addr.next = 0.into();
        self.cqe.rd_addr.next = (bit_cast::<CEB, CB>(self.cq_sel.val()) << self.cq_slot_bits.val())
            | bit_cast::<CEB, CQ_SLOT_BITS>(
                self.cq_counts.consumed.val().get_bits::<CQ_SLOT_BITS>(0),
            );
        self.rcc.rd_addr.next = 0.into();
        if self.take_rx.val() | self.take_visit.val() {
            self.served.d.next = self.slot_wq.val();
            self.wqc.rd_addr.next = self.slot_wq.val();
            self.rcc.rd_addr.next = self.slot_wq.val();
        }
        if self.read_wq.val() {
            self.wqc.rd_addr.next =
                self.wq_sel.val() | bit_cast::<WB, 1>(self.configure.val().into());
        }
        if self.read_cq.val() {
            self.cqp.rd_addr.next = self.cq_sel.val();
        }
        self.latch_context.next =
            (self.state.val() == SeqState::SqContext) | (self.state.val() == SeqState::RxContext);
        if self.latch_context.val() | (self.state.val() == SeqState::NakContext) {
            self.rc_on.d.next = self.rc_context.rc.val();
            self.rc_retry.d.next = self.rc_context.retry.val();
            self.rc_st.d.next = self.rc_context.state.val();
            self.rc_left.d.next = self.rc_context.left.val();
            self.rc_stat.d.next = self.rc_context.status.val();
            self.rc_delay.d.next = self.rc_context.delay.val();
            self.rc_at.d.next = self.rc_context.at.val();
        }
        if self.latch_context.val() {
            self.pi.d.next = self.wq_context.pi.val();
            self.ci.d.next = self.wq_context.ci.val();
            self.ei.d.next = self.wq_context.ei.val();
            self.managed.d.next = self.wq_context.managed.val();
            self.plain.d.next = self.wq_context.plain.val();
            self.cq.d.next = self.wq_context.cq.val();
            // Read whether or not the queue is runnable: nothing else reads these memories
            // here, and what they return is used only where it is (`SqWqe`, `RxWqe`), so the
            // addresses wait for no decision.
            self.wqe0.rd_addr.next = (bit_cast::<WEB, WB>(self.served.q.val())
                << self.wq_slot_bits.val())
                | bit_cast::<WEB, WQ_SLOT_BITS>(
                    self.wq_context.ci.val().get_bits::<WQ_SLOT_BITS>(0),
                );
            self.wqe1.rd_addr.next = (bit_cast::<WEB, WB>(self.served.q.val())
                << self.wq_slot_bits.val())
                | bit_cast::<WEB, WQ_SLOT_BITS>(
                    self.wq_context.ci.val().get_bits::<WQ_SLOT_BITS>(0),
                );
            self.wqe_chk.rd_addr.next = (bit_cast::<WEB, WB>(self.served.q.val())
                << self.wq_slot_bits.val())
                | bit_cast::<WEB, WQ_SLOT_BITS>(
                    self.wq_context.ci.val().get_bits::<WQ_SLOT_BITS>(0),
                );
            self.cqp.rd_addr.next = self.wq_context.cq.val().get_bits::<CB>(0);
        }
        // `SqWqe` reads a CQ WAIT's counts at the WQE being latched, and `SqDecode` an
        // enable's target context, whatever the WQE turns out to be (the decode's checks would
        // otherwise sit in front of the memories' addresses): only the WAIT's compare in
        // `SqDecode` and `EnableWrite` use what they return.
        if self.state.val() == SeqState::SqWqe {
            self.cqp.rd_addr.next = self
                .wqe0
                .rd_data
                .val()
                .get_bits::<CB>(self.wait_index_at.val().index());
        }
        if self.state.val() == SeqState::SqDecode {
            self.wqc.rd_addr.next = self.enable_target.val();
        }
        if self.state.val() == SeqState::NakContext {
            self.cq.d.next = self.wq_context.cq.val();
            self.cqp.rd_addr.next = self.wq_context.cq.val().get_bits::<CB>(0);
        }
        if self.state.val() == SeqState::NakCq {
            self.produced.d.next = self.cq_counts.produced.val();
            self.consumed.d.next = self.cq_counts.consumed.val();
        }

        // Writes. The written fields default to those just read (a read-modify-write).
        self.wq_context_word.pi.next = self.wq_context.pi.val();
        self.wq_context_word.ci.next = self.wq_context.ci.val();
        self.wq_context_word.ei.next = self.wq_context.ei.val();
        self.wq_context_word.managed.next = self.wq_context.managed.val();
        self.wq_context_word.plain.next = self.wq_context.plain.val();
        self.wq_context_word.cq.next = self.wq_context.cq.val();
        self.cq_counts_word.produced.next = self.cq_counts.produced.val();
        self.cq_counts_word.consumed.next = self.cq_counts.consumed.val();
        // The reliability word written: the latched one unless a case below says otherwise.
        self.rc_context_word.rc.next = self.rc_on.q.val();
        self.rc_context_word.retry.next = self.rc_retry.q.val();
        self.rc_context_word.state.next = self.rc_st.q.val();
        self.rc_context_word.left.next = self.rc_left.q.val();
        self.rc_context_word.status.next = self.rc_stat.q.val();
        self.rc_context_word.delay.next = self.rc_delay.q.val();
        self.rc_context_word.at.next = self.rc_at.q.val();
        self.rcc_write.next = false;
        self.rcc_write_at.next = self.served.q.val();
        // An arriving NAK or ACK: the answer the SQ's head awaits (its tag is the head's).
        self.answered.next = (self.rc_context.state.val() == self.st_await.val())
            & (self.msg_tag.val() == self.wq_context.ci.val());
        self.answer_discard.next = self.answered.val()
            & (self.answer_reason.val() != self.ok.val())
            & (self.answer_reason.val() != self.rnr_nak.val());
        self.retry_at.next = self.now.val() + bit_cast::<32, 16>(self.rc_context.delay.val());
        self.wqc_write.next = false;
        self.wqc_write_at.next = self.wq_sel.val();
        self.cqp_write.next = false;
        self.cqp.wr_addr.next = self.cq_sel.val();
        self.cqe_write.next = false;
        self.cqe.wr_addr.next = (bit_cast::<CEB, CB>(self.cq.q.val().get_bits::<CB>(0))
            << self.cq_slot_bits.val())
            | bit_cast::<CEB, CQ_SLOT_BITS>(self.produced.q.val().get_bits::<CQ_SLOT_BITS>(0));
        self.advance_visit.next = false;
        if self.post.val() {
            self.wqc_write.next = true;
            self.wq_context_word.pi.next = self.wq_context.pi.val() + 1;
        }
        if self.configure.val() {
            self.rcc_write.next = true;
            self.rcc_write_at.next = self.wq_sel.val();
            self.rc_context_word.rc.next = self.cfg_rc.val();
            self.rc_context_word.retry.next = self.cfg_rnr_retry.val();
            self.rc_context_word.state.next = 0.into();
            self.rc_context_word.left.next = 0.into();
            self.rc_context_word.status.next = 0.into();
            self.rc_context_word.delay.next = self.cfg_rnr_delay.val();
            self.rc_context_word.at.next = 0.into();
            self.wqc_write.next = true;
            self.wq_context_word.ei.next = self.wq_context.ci.val();
            self.wq_context_word.managed.next = self.cfg_managed.val();
            self.wq_context_word.plain.next = self.cfg_plain.val();
            self.wq_context_word.cq.next = self.cfg_cq.val();
        }
        if self.pop.val() {
            self.cqp_write.next = true;
            self.cq_counts_word.consumed.next = self.cq_counts.consumed.val() + 1;
        }
        if self.state.val() == SeqState::EnableWrite {
            self.wqc_write.next = true;
            self.wqc_write_at.next = self.enable_target.val();
            self.wq_context_word.ei.next = self.new_ei.val();
            if self.enable_target.val() == self.served.q.val() {
                self.ei.d.next = self.new_ei.val();
            }
        }
        if self.state.val() == SeqState::Complete {
            self.cqe_write.next = self.write_cqe.val();
            self.cqp_write.next = self.write_cqe.val();
            self.cqp.wr_addr.next = self.cq.q.val().get_bits::<CB>(0);
            self.cq_counts_word.produced.next = self.produced.q.val() + 1;
            self.cq_counts_word.consumed.next = self.consumed.q.val();
            self.wqc_write.next = self.retire.val();
            self.wqc_write_at.next = self.served.q.val();
            self.wq_context_word.pi.next = self.pi.q.val();
            self.wq_context_word.ci.next = self.ci.q.val() + 1;
            self.wq_context_word.ei.next = self.ei.q.val();
            self.wq_context_word.managed.next = self.managed.q.val();
            self.wq_context_word.plain.next = self.plain.q.val();
            self.wq_context_word.cq.next = self.cq.q.val();
            self.advance_visit.next = self.retire.val() & !self.served.q.val().get_bit(0);
            // The head leaves its SQ: nothing is awaited any more.
            self.rcc_write.next = self.retire.val() & !self.served.q.val().get_bit(0);
            self.rc_context_word.state.next = 0.into();
        }
        if self.await_answer.val() {
            // A reliable QP's message has been sent: await the answer.
            self.rcc_write.next = true;
            self.rc_context_word.state.next = self.st_await.val();
            self.rc_context_word.left.next = self.rc_retry.q.val();
            if self.rc_st.q.val() == self.st_retry.val() {
                self.rc_context_word.left.next = self.rc_left.q.val();
            }
        }
        if (self.state.val() == SeqState::NakContext) & self.answered.val() {
            // Read, modify, write: the answer's state.
            self.rcc_write.next = true;
            self.rc_context_word.rc.next = self.rc_context.rc.val();
            self.rc_context_word.retry.next = self.rc_context.retry.val();
            self.rc_context_word.left.next = self.rc_context.left.val();
            self.rc_context_word.status.next = self.rc_context.status.val();
            self.rc_context_word.delay.next = self.rc_context.delay.val();
            self.rc_context_word.at.next = self.rc_context.at.val();
            if self.answer_reason.val() == self.ok.val() {
                self.rc_context_word.state.next = self.st_answered.val();
                self.rc_context_word.status.next = self.ok.val();
            } else if self.answer_reason.val() != self.rnr_nak.val() {
                self.rc_context_word.state.next = self.st_answered.val();
                self.rc_context_word.status.next = self.remote_discard.val();
            } else if self.rc_context.retry.val() == self.retry_always.val() {
                self.rc_context_word.state.next = self.st_retry.val();
                self.rc_context_word.at.next = self.retry_at.val();
            } else if self.rc_context.left.val() != 0 {
                self.rc_context_word.state.next = self.st_retry.val();
                self.rc_context_word.left.next = self.rc_context.left.val() - 1;
                self.rc_context_word.at.next = self.retry_at.val();
            } else {
                self.rc_context_word.state.next = self.st_answered.val();
                self.rc_context_word.status.next = self.rnr_retry_exc.val();
            }
        }
        if self.state.val() == SeqState::Init {
            self.wqc_write.next = true;
            self.wqc_write_at.next = self.sweep_at.val().get_bits::<WB>(0);
            self.cqp_write.next = true;
            self.cqp.wr_addr.next = self.sweep_at.val().get_bits::<CB>(0);
            self.wq_context_word.pi.next = 0.into();
            self.wq_context_word.ci.next = 0.into();
            self.wq_context_word.ei.next = 0.into();
            self.wq_context_word.managed.next = false;
            self.wq_context_word.plain.next = false;
            self.wq_context_word.cq.next = 0.into();
            self.cq_counts_word.produced.next = 0.into();
            self.cq_counts_word.consumed.next = 0.into();
            self.rcc_write.next = true;
            self.rcc_write_at.next = self.sweep_at.val().get_bits::<WB>(0);
            self.rc_context_word.rc.next = false;
            self.rc_context_word.retry.next = 0.into();
            self.rc_context_word.state.next = 0.into();
            self.rc_context_word.left.next = 0.into();
            self.rc_context_word.status.next = 0.into();
            self.rc_context_word.delay.next = 0.into();
            self.rc_context_word.at.next = 0.into();
        }
        // A post writes the WQE at the producer index.
        self.wqe0.wr_addr.next = (bit_cast::<WEB, WB>(self.wq_sel.val())
            << self.wq_slot_bits.val())
            | bit_cast::<WEB, WQ_SLOT_BITS>(self.wq_context.pi.val().get_bits::<WQ_SLOT_BITS>(0));
        self.wqe1.wr_addr.next = (bit_cast::<WEB, WB>(self.wq_sel.val())
            << self.wq_slot_bits.val())
            | bit_cast::<WEB, WQ_SLOT_BITS>(self.wq_context.pi.val().get_bits::<WQ_SLOT_BITS>(0));
        self.wqe_chk.wr_addr.next = (bit_cast::<WEB, WB>(self.wq_sel.val())
            << self.wq_slot_bits.val())
            | bit_cast::<WEB, WQ_SLOT_BITS>(self.wq_context.pi.val().get_bits::<WQ_SLOT_BITS>(0));
        self.wqe0.wr_data.next = self.cmd_w0.val();
        self.wqe1.wr_data.next = self.post_w1.val();
        self.wqe_chk.wr_data.next = self.chk_post.q.val();
        self.wqc_pend.d.next = self.wqc_write.val() & !self.reset.val();
        self.wqc_pend_addr.d.next = self.wqc_write_at.val();
        self.wqc_pend_data.d.next = self.wq_context_word.ctx.val();
        self.wqc.wr_addr.next = self.wqc_pend_addr.q.val();
        self.wqc.wr_data.next = self.wqc_pend_data.q.val();
        self.wqc_fwd.d.next =
            self.wqc_pend.q.val() & (self.wqc_pend_addr.q.val() == self.wqc.rd_addr.val());
        self.wqc_fwd_data.d.next = self.wqc_pend_data.q.val();
        // `rcc`'s write goes to the RAM a cycle later (see `rcc_pend`), and a read at that
        // edge of the word it writes is forwarded.
        self.rcc_pend.d.next = self.rcc_write.val() & !self.reset.val();
        self.rcc_pend_addr.d.next = self.rcc_write_at.val();
        self.rcc_pend_data.d.next = self.rc_context_word.rcc.val();
        self.rcc.wr_addr.next = self.rcc_pend_addr.q.val();
        self.rcc.wr_data.next = self.rcc_pend_data.q.val();
        self.rcc_fwd.d.next =
            self.rcc_pend.q.val() & (self.rcc_pend_addr.q.val() == self.rcc.rd_addr.val());
        self.rcc_fwd_data.d.next = self.rcc_pend_data.q.val();
        self.cqp.wr_data.next = self.cq_counts_word.counts.val();
        self.cqe.wr_data.next = self.cqe_word.val();
        // Nothing is written in a reset cycle.
        self.wqe0.wr_en.next = self.post.val() & !self.reset.val();
        self.wqe1.wr_en.next = self.post.val() & !self.reset.val();
        self.wqe_chk.wr_en.next = self.post.val() & !self.reset.val();
        self.wqc.wr_en.next = self.wqc_pend.q.val() & !self.reset.val();
        self.rcc.wr_en.next = self.rcc_pend.q.val() & !self.reset.val();
        self.cqp.wr_en.next = self.cqp_write.val() & !self.reset.val();
        self.cqe.wr_en.next = self.cqe_write.val() & !self.reset.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::{CqContext, CqeWord, WqContext, Wqe};

    /// 4 QPs, 4 CQs.
    type Queues = NicQueues<2, 3, 7, 2, 7, 3, 3>;

    /// One cycle in `state` (the inputs set by `set` first, cleared after), then the edge.
    fn cycle(q: &mut Queues, state: SeqState, set: impl FnOnce(&mut Queues)) {
        q.state.next = state;
        set(q);
        q.clock.next = Clock { clk: false };
        assert!(simulate(q, 1000));
        q.clock.next = Clock { clk: true };
        assert!(simulate(q, 1000));
        q.clock.next = Clock { clk: false };
        for s in [
            &mut q.take_rx,
            &mut q.take_visit,
            &mut q.read_wq,
            &mut q.read_cq,
            &mut q.post,
            &mut q.pop,
            &mut q.configure,
            &mut q.write_cqe,
            &mut q.retire,
        ] {
            s.next = false;
        }
        assert!(simulate(q, 1000));
    }

    fn context(q: &Queues) -> WqContext {
        WqContext {
            pi: q.wq_pi.val().to_u64(),
            ci: q.wq_ci.val().to_u64(),
            ..Default::default()
        }
    }

    #[test]
    fn post_visit_complete_poll() {
        let mut q = Queues::default();
        q.connect_all();
        for k in 0..8u64 {
            cycle(&mut q, SeqState::Init, |q| q.sweep_at.next = k.into());
        }
        // The host posts a NOP to the SQ of QP 1 (HostDecode reads, HostAccess writes).
        let (w0, w1) = Wqe::nop(true).encode();
        cycle(&mut q, SeqState::HostDecode, |q| {
            q.wq_sel.next = 2.into();
            q.read_wq.next = true;
        });
        assert_eq!(context(&q), WqContext::default());
        cycle(&mut q, SeqState::HostAccess, |q| {
            q.post.next = true;
            q.cmd_w0.next = w0.into();
            q.post_w1.next = w1.into();
        });
        // A visit of SQ 1: its context, then the WQE.
        cycle(&mut q, SeqState::Idle, |q| {
            q.take_visit.next = true;
            q.visit_qp.next = 1.into();
        });
        assert_eq!((q.wq_pi.val().to_u64(), q.wq_ci.val().to_u64()), (1, 0));
        assert!(q.runnable.val());
        cycle(&mut q, SeqState::SqContext, |_| {});
        // SqWqe latches the WQE just read; SqDecode sees it from the registers.
        q.state.next = SeqState::SqWqe;
        assert!(simulate(&mut q, 1000));
        assert_eq!(
            (q.cur_w0.val().to_u64(), q.cur_w1.val().to_u64()),
            (0, 0),
            "not the memory's output"
        );
        cycle(&mut q, SeqState::SqWqe, |_| {});
        q.state.next = SeqState::SqDecode;
        assert!(simulate(&mut q, 1000));
        assert_eq!((q.cur_w0.val().to_u64(), q.cur_w1.val().to_u64()), (w0, w1));
        assert!(!q.cq_full.val());
        cycle(&mut q, SeqState::SqDecode, |_| {});
        // It completes: a CQE to CQ 0 and `ci + 1`, the visit moves on.
        let cqe = CqeWord {
            opcode: 0,
            qp: 1,
            index: 0,
            ..Default::default()
        };
        q.state.next = SeqState::Complete;
        q.write_cqe.next = true;
        q.retire.next = true;
        q.cqe_word.next = cqe.pack()[0].into();
        assert!(simulate(&mut q, 1000));
        assert!(q.advance_visit.val());
        cycle(&mut q, SeqState::Complete, |_| {});
        cycle(&mut q, SeqState::Idle, |q| {
            q.take_visit.next = true;
            q.visit_qp.next = 1.into();
        });
        assert_eq!((q.wq_pi.val().to_u64(), q.wq_ci.val().to_u64()), (1, 1));
        assert!(!q.runnable.val(), "nothing left to run");
        // The host polls CQ 0: one CQE, then empty.
        cycle(&mut q, SeqState::HostDecode, |q| {
            q.cq_sel.next = 0.into();
            q.read_cq.next = true;
        });
        let counts = CqContext {
            produced: q.cq_produced.val().to_u64(),
            consumed: q.cq_consumed.val().to_u64(),
        };
        assert_eq!(
            counts,
            CqContext {
                produced: 1,
                consumed: 0
            }
        );
        cycle(&mut q, SeqState::HostAccess, |q| q.pop.next = true);
        assert_eq!(q.cqe_data.val().to_u64(), cqe.pack()[0]);
        cycle(&mut q, SeqState::HostDecode, |q| q.read_cq.next = true);
        assert_eq!(q.cq_consumed.val().to_u64(), 1);
    }

    /// `SqWqe` reads a CQ WAIT's counts at the WQE being latched: in `SqDecode` they are the
    /// named CQ's, as the completions before it left them (the counts read in `SqContext`,
    /// those of the queue's own CQ, are latched with the WQE and do not take their place).
    #[test]
    fn a_cq_waits_counts_are_the_named_cqs() {
        let mut q = Queues::default();
        q.connect_all();
        for k in 0..8u64 {
            cycle(&mut q, SeqState::Init, |q| q.sweep_at.next = k.into());
        }
        let post = |q: &mut Queues, wqe: Wqe| {
            let (w0, w1) = wqe.encode();
            cycle(q, SeqState::HostDecode, |q| {
                q.wq_sel.next = 2.into();
                q.read_wq.next = true;
            });
            cycle(q, SeqState::HostAccess, |q| {
                q.post.next = true;
                q.cmd_w0.next = w0.into();
                q.post_w1.next = w1.into();
            });
        };
        // SQ 1's head runs to `SqDecode`: the produced count its WAIT compare sees.
        let visit = |q: &mut Queues| {
            cycle(q, SeqState::Idle, |q| {
                q.take_visit.next = true;
                q.visit_qp.next = 1.into();
            });
            cycle(q, SeqState::SqContext, |_| {});
            cycle(q, SeqState::SqWqe, |_| {});
            q.state.next = SeqState::SqDecode;
            assert!(simulate(q, 1000));
            q.cq_produced.val().to_u64()
        };
        let complete = |q: &mut Queues| {
            q.state.next = SeqState::Complete;
            q.write_cqe.next = true;
            q.retire.next = true;
            assert!(simulate(q, 1000));
            cycle(q, SeqState::Complete, |_| {});
        };
        // Two NOPs complete to CQ 0 (SQ 1's CQ after the sweep).
        for _ in 0..2 {
            post(&mut q, Wqe::nop(true));
            visit(&mut q);
            complete(&mut q);
        }
        post(&mut q, Wqe::wait_cq(0, 5, true));
        assert_eq!(visit(&mut q), 2, "CQ 0 produced two");
        complete(&mut q);
        post(&mut q, Wqe::wait_cq(3, 5, true));
        assert_eq!(visit(&mut q), 0, "CQ 3 produced none");
        complete(&mut q);
        post(&mut q, Wqe::wait_cq(0, 5, true));
        assert_eq!(visit(&mut q), 4, "the two WAITs' completions count too");
    }

    #[test]
    fn managed_queues_run_what_is_enabled() {
        let mut q = Queues::default();
        q.connect_all();
        // CONFIG_QP makes the SQ of QP 0 managed (ei = ci); a WQE is posted.
        cycle(&mut q, SeqState::HostDecode, |q| q.read_wq.next = true);
        cycle(&mut q, SeqState::HostAccess, |q| {
            q.configure.next = true;
            q.read_wq.next = true;
            q.cfg_managed.next = true;
            q.cfg_cq.next = 2.into();
        });
        cycle(&mut q, SeqState::HostDecode, |q| q.read_wq.next = true);
        cycle(&mut q, SeqState::HostAccess, |q| q.post.next = true);
        cycle(&mut q, SeqState::Idle, |q| q.take_visit.next = true);
        assert!(!q.runnable.val(), "posted but not enabled");
        // SEND_EN of QP 0 by 1 (decoded from another queue's WQE): now it may run.
        let (w0, w1) = Wqe::enable(false, 0, false, 1, false).encode();
        let f = netcoll_models::nic::WqeWords::unpack(w0, w1);
        let show = |q: &mut Queues| {
            q.opcode.next = f.opcode.into();
            q.en_qp.next = f.en_qp.into();
            q.en_mode.next = f.en_mode.into();
            q.en_value.next = f.en_value.into();
        };
        cycle(&mut q, SeqState::SqDecode, show);
        cycle(&mut q, SeqState::EnableWrite, show);
        cycle(&mut q, SeqState::Idle, |q| q.take_visit.next = true);
        assert!(q.runnable.val());
    }

    /// `wqc` and `rcc` are written a cycle after the decision; a read of the word at that edge
    /// returns what is being written, a read a cycle later the memory's word.
    #[test]
    fn a_word_read_as_its_late_write_lands_is_the_written_one() {
        let mut q = Queues::default();
        q.connect_all();
        for k in 0..8u64 {
            cycle(&mut q, SeqState::Init, |q| q.sweep_at.next = k.into());
        }
        // CONFIG_QP of QP 1: its SQ managed, on CQ 2, reliable; then at once a visit of it.
        cycle(&mut q, SeqState::HostAccess, |q| {
            q.wq_sel.next = 2.into();
            q.configure.next = true;
            q.cfg_managed.next = true;
            q.cfg_cq.next = 2.into();
            q.cfg_rc.next = true;
        });
        cycle(&mut q, SeqState::Idle, |q| {
            q.take_visit.next = true;
            q.visit_qp.next = 1.into();
        });
        assert!(q.wq_managed.val(), "wqc: the word being written");
        assert!(q.rc_read.val(), "rcc: the word being written");
        // Read again a cycle later: from the memories.
        cycle(&mut q, SeqState::Idle, |q| {
            q.take_visit.next = true;
            q.visit_qp.next = 1.into();
        });
        assert!(q.wq_managed.val() && q.rc_read.val());
        // Another queue's word read at that edge is its own.
        cycle(&mut q, SeqState::HostAccess, |q| {
            q.wq_sel.next = 2.into();
            q.configure.next = true;
            q.cfg_managed.next = false;
            q.cfg_rc.next = false;
        });
        cycle(&mut q, SeqState::Idle, |q| {
            q.take_visit.next = true;
            q.visit_qp.next = 0.into();
        });
        assert!(
            !q.wq_managed.val() && !q.rc_read.val(),
            "QP 0 was never configured"
        );
        cycle(&mut q, SeqState::Idle, |q| {
            q.take_visit.next = true;
            q.visit_qp.next = 1.into();
        });
        assert!(!q.wq_managed.val() && !q.rc_read.val(), "QP 1 reconfigured");
    }
}
