//! # NIC cross-channel controller (RTL)
//!
//! The rust-hdl description of the NIC specified in `netcoll_models::nic` (read its module docs
//! for the work requests, completions, messages, host commands and errors). The cycle model
//! `netcoll_models::nic::model` documents the micro-architecture this block implements register
//! for register — one sequencer owning single-ported memories, a transmit engine beside it
//! with its own copy of data memory, the state table, the registers of each sub-block — and
//! is compared with it every output every cycle. The ports are
//! generated from the one declaration, `netcoll_models::nic_ports!`.
//!
//! # Structure
//! The top block [`Nic`] (module `nic`) only connects sub-blocks, each a module of its own:
//!
//! | sub-block | module | what it does |
//! |---|---|---|
//! | [`sequencer`] | `nic_sequencer` | the state register ([`SeqState`]), slot arbitration, reset sweep, send-queue round robin |
//! | [`host`] | `nic_host` | host commands and their responses; the CQ wait indices |
//! | [`queues`] | `nic_queues` | the WQ and CQ memories, the served queue's context, counts and WQE |
//! | [`execute`] | `nic_execute` | WQE decode and dispatch: checks (made when a WQE is posted, kept beside it), NOP, SEND, WAIT, SEND_EN / RECV_EN, CALC start |
//! | [`calc`] | `nic_calc` | the CALC address check, the streaming pipeline (in lane groups) and the element loop, around the reduction ALU (`reduce_alu_l<lanes>`); the shape memories |
//! | [`calc_walk`] | `nic_calc_walk` | one CALC argument's address over up to three dimensions (`a`, `b`, the result) |
//! | [`dmem`] | `nic_dmem` | data memory: three copies (the sequencer's, a streaming CALC's `b`, the transmit engine's) in `lanes` banks |
//! | [`receive`] | `nic_receive` | arriving messages and NAKs; the receive channels (memory `chan`) |
//! | [`pipe`] | `nic_pipe` | the pipe contexts and the steps of a PIPE |
//! | [`transmit`] | `nic_transmit` | the transmit engine: the `tx_*` registers, the beat loop, the held data message and the answer register |
//! | [`completion`] | `nic_completion` | the pending completion (the CQE's fields) |
//! | [`stats`] | `nic_stats` | the statistics counters |
//! | [`layouts`] | `nic_*_fields`, `nic_*_word` | the WQE, context, count, config and CQE words split and assembled, generated from `nic_layouts!` |
//!
//! The units that use the counter and data memories (here) drive their requests to zero
//! outside their states; the top ORs them (the sequencer runs one unit at a time; the transmit
//! engine reads its own copy of data memory, and a streaming CALC reads `b` from another;
//! `nic_dmem` holds the copies, in banks). Every output
//! comes from a register or from the state alone, so a NIC can be wired to another (or to a
//! link model) without combinational paths between them.
//!
//! Generic widths (stable Rust cannot derive them, so [`build`] passes them): `QB` =
//! log2(qps), `WB` = QB + 1 (work-queue index), `WEB` = WB + 4 (WQE slot), `CB` = log2(cqs),
//! `CEB` = CB + 5 (CQE slot), `KB` = log2(counters), `DB` = log2(dmem_words), `SWB` =
//! max(WB, CB, KB) (reset sweep), `L` = lanes, `LB` = log2(lanes), `RB` = DB - LB (a data
//! memory bank's rows).

use crate::emit::{emit_with_children, EmitError, Module};
use crate::prim::Mem;
use crate::rtl_block;
use netcoll_models::kit::cycle::ValueSim;
use netcoll_models::kit::layout::LayoutField;
use netcoll_models::nic::{NicParams, WqeWords};
use rust_hdl::prelude::*;

pub mod calc;
pub mod calc_walk;
pub mod completion;
pub mod dmem;
pub mod execute;
pub mod host;
pub mod layouts;
pub mod pipe;
pub mod queues;
pub mod receive;
pub mod sequencer;
pub mod stats;
pub mod transmit;

pub use sequencer::SeqState;

/// Name of the emitted top module.
pub const TOP: &str = "nic";

/// Bits of a `Status` code (an answer's reason, the low bits of a NAK's data).
const STATUS_BITS: usize = netcoll_models::nic::Status::BITS;

/// The WQE field a posted CQ WAIT's absolute target replaces (its count).
pub(crate) const WAIT_COUNT: LayoutField =
    crate::kit::layout::field_named(WqeWords::FIELDS, "wait_count");
/// The WQE field of a WAIT's CQ or counter (the queues read it from the WQE memory).
pub(crate) const WAIT_INDEX: LayoutField =
    crate::kit::layout::field_named(WqeWords::FIELDS, "wait_index");
/// The WQE field of a CALC's shape (the shape memories read it from the WQE memory).
pub(crate) const CALC_SHAPE: LayoutField =
    crate::kit::layout::field_named(WqeWords::FIELDS, "calc_shape");
/// The WQE fields the host unit decodes from its port as it takes a post (see `first_wq` in
/// [`host`]).
pub(crate) const OPCODE: LayoutField = crate::kit::layout::field_named(WqeWords::FIELDS, "opcode");
pub(crate) const EN_QP: LayoutField = crate::kit::layout::field_named(WqeWords::FIELDS, "en_qp");
/// The WQE fields a posted mode 2 enable's mode and absolute index replace.
pub(crate) const EN_MODE: LayoutField =
    crate::kit::layout::field_named(WqeWords::FIELDS, "en_mode");
pub(crate) const EN_VALUE: LayoutField =
    crate::kit::layout::field_named(WqeWords::FIELDS, "en_value");

/// A constant of `N` bits.
pub(crate) fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The sub-blocks (field, module), as `emit_with_children` takes them (at every depth), but
/// for the ALU's, which depend on its floating-point types ([`sub_modules`]).
const SUB_MODULES: &[(&str, &str)] = &[
    ("sequencer", "nic_sequencer"),
    ("host_cmd", "nic_host"),
    ("queues", "nic_queues"),
    ("execute", "nic_execute"),
    ("calc", "nic_calc"),
    ("walk", "nic_calc_walk"),
    ("dmem", "nic_dmem"),
    ("dim_read", "nic_shape_dim_fields"),
    ("ext_read", "nic_shape_extent_fields"),
    ("dim_taken", "nic_shape_dim_fields"),
    ("ext_taken", "nic_shape_extent_word"),
    ("receive", "nic_receive"),
    ("pipe", "nic_pipe"),
    ("pipe_context", "nic_pipe_context_fields"),
    ("pipe_context_word", "nic_pipe_context_word"),
    ("pipe_read_ctx", "nic_pipe_context_fields"),
    ("transmit", "nic_transmit"),
    ("completion", "nic_completion"),
    ("stats", "nic_stats"),
    ("lane", "reduce_alu_lane"),
    ("wqe", "nic_wqe_fields"),
    ("wq_context", "nic_wq_context_fields"),
    ("cq_counts", "nic_cq_counts_fields"),
    ("qp_config", "nic_qp_config_fields"),
    ("rx_channel", "nic_rx_channel_fields"),
    ("wq_context_word", "nic_wq_context_word"),
    ("cq_counts_word", "nic_cq_counts_word"),
    ("rc_context", "nic_rc_context_fields"),
    ("rc_context_word", "nic_rc_context_word"),
    ("cq_wait_now", "nic_cq_wait_fields"),
    ("cq_wait_word", "nic_cq_wait_word"),
    ("en_head_now", "nic_wq_enable_fields"),
    ("en_head_word", "nic_wq_enable_word"),
    ("cqe_word", "nic_cqe_word"),
    ("checks_now_word", "nic_wqe_checks_word"),
    ("checks_latched", "nic_wqe_checks_fields"),
];

/// Every sub-block (field, module): [`SUB_MODULES`] and the `lanes`-lane ALU for the
/// floating-point types `fp_mask` (`reduce_alu_l<lanes>` without them, `reduce_alu_l<lanes>_fp`
/// with all four), with its datapath's modules.
fn sub_modules(lanes: usize, fp_mask: usize) -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = SUB_MODULES
        .iter()
        .map(|&(f, m)| (f, m.to_string()))
        .collect();
    v.push(("alu", crate::reduce_alu::module_name(lanes, fp_mask)));
    v.extend(crate::reduce_alu::fp_children(fp_mask));
    v
}

netcoll_models::nic_ports!(rtl_block! {
    /// The NIC, monomorphised per supported parameter set (see the module docs for the widths).
    pub struct Nic<
        const QB: usize,
        const WB: usize,
        const WEB: usize,
        const CB: usize,
        const CEB: usize,
        const KB: usize,
        const DB: usize,
        const SWB: usize,
        const FP: usize,
        const AX: usize,
        const AWB: usize,
        const L: usize,
        const LB: usize,
        const RB: usize,
    > {
        sequencer: sequencer::NicSequencer<QB, SWB> = Default::default(),
        host_cmd: host::NicHost<QB, WB, CB, KB, DB, SWB> = Default::default(),
        queues: queues::NicQueues<QB, WB, WEB, CB, CEB, SWB, KB> = Default::default(),
        execute: execute::NicExecute<QB, CB, KB, DB> = Default::default(),
        calc: calc::NicCalc<DB, L, LB, FP, AX, AWB> = Default::default(),
        receive: receive::NicReceive<QB, KB, DB> = Default::default(),
        pipe: pipe::NicPipe<QB, DB> = Default::default(),
        transmit: transmit::NicTransmit<QB, DB> = Default::default(),
        completion: completion::NicCompletion<QB, WB> = Default::default(),
        stats: stats::NicStats = Default::default(),
        /// The current WQE (or host command), split into its fields.
        wqe: layouts::unpack::WqeWords = Default::default(),
        /// The counters incremented by arriving messages.
        cnt: Mem<Bits<32>, KB> = Default::default(),
        /// Data memory, its three copies in `L` banks: the sequencer's units read lane 0 of
        /// port `a` (a streaming CALC every lane of `a` and `b`), the transmit engine its own
        /// copy, so that it sends while the sequencer reads.
        dmem: dmem::NicDmem<DB, L, LB, RB> = Default::default(),
    }
});

impl<
        const QB: usize,
        const WB: usize,
        const WEB: usize,
        const CB: usize,
        const CEB: usize,
        const KB: usize,
        const DB: usize,
        const SWB: usize,
        const FP: usize,
        const AX: usize,
        const AWB: usize,
        const L: usize,
        const LB: usize,
        const RB: usize,
    > Logic for Nic<QB, WB, WEB, CB, CEB, KB, DB, SWB, FP, AX, AWB, L, LB, RB>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.sequencer.clock.next = self.clock.val();
        self.sequencer.reset.next = self.reset.val();
        self.host_cmd.clock.next = self.clock.val();
        self.host_cmd.reset.next = self.reset.val();
        self.queues.clock.next = self.clock.val();
        self.queues.reset.next = self.reset.val();
        self.calc.clock.next = self.clock.val();
        self.calc.reset.next = self.reset.val();
        self.receive.clock.next = self.clock.val();
        self.receive.reset.next = self.reset.val();
        self.pipe.clock.next = self.clock.val();
        self.pipe.reset.next = self.reset.val();
        self.transmit.clock.next = self.clock.val();
        self.transmit.reset.next = self.reset.val();
        self.completion.clock.next = self.clock.val();
        self.completion.reset.next = self.reset.val();
        self.stats.clock.next = self.clock.val();
        self.stats.reset.next = self.reset.val();
        self.cnt.clock.next = self.clock.val();
        self.dmem.clock.next = self.clock.val();
        self.dmem.reset.next = self.reset.val();

        // The sequencer: the next state from the unit running the current one.
        self.sequencer.host_valid.next = self.host_valid.val();
        self.sequencer.rx_valid.next = self.rx_valid.val();
        self.sequencer.host_next.next = self.host_cmd.next_state.val();
        self.sequencer.execute_next.next = self.execute.next_state.val();
        self.sequencer.calc_next.next = self.calc.next_state.val();
        self.sequencer.receive_next.next = self.receive.next_state.val();
        self.sequencer.pipe_next.next = self.pipe.next_state.val();
        self.sequencer.advance_visit.next = self.execute.advance_visit.val()
            | self.queues.advance_visit.val()
            | self.calc.advance_visit.val()
            | self.pipe.advance_visit.val();
        self.host_ready.next = self.sequencer.host_ready.val();
        self.rx_ready.next = self.sequencer.rx_ready.val();

        // Host commands.
        self.host_cmd.state.next = self.sequencer.current.val();
        self.host_cmd.sweep_at.next = self.sequencer.sweep_at.val();
        self.host_cmd.valid.next = self.host_valid.val();
        self.host_cmd.op.next = self.host_op.val();
        self.host_cmd.arg.next = self.host_arg.val();
        self.host_cmd.w0.next = self.host_w0.val();
        self.host_cmd.w1.next = self.host_w1.val();
        self.host_cmd.opcode.next = self.wqe.opcode.val();
        self.host_cmd.wait_kind.next = self.wqe.wait_kind.val();
        self.host_cmd.wait_more.next = self.wqe.wait_more.val();
        self.host_cmd.wait_index.next = self.wqe.wait_index.val();
        self.host_cmd.wait_count.next = self.wqe.wait_count.val();
        self.host_cmd.en_qp.next = self.wqe.en_qp.val().get_bits::<QB>(0);
        self.host_cmd.en_more.next = self.wqe.en_more.val();
        self.host_cmd.en_value.next = self.wqe.en_value.val();
        self.host_cmd.wq_pi.next = self.queues.wq_pi.val();
        self.host_cmd.wq_ci.next = self.queues.wq_ci.val();
        self.host_cmd.wq_plain.next = self.queues.wq_plain.val();
        self.host_cmd.wq_managed.next = self.queues.wq_managed.val();
        self.host_cmd.cq_produced.next = self.queues.cq_produced.val();
        self.host_cmd.cq_consumed.next = self.queues.cq_consumed.val();
        self.host_cmd.cqe_data.next = self.queues.cqe_data.val();
        self.host_cmd.dmem_data.next = self.dmem.a_data[0].val();
        self.host_cmd.cnt_data.next = self.cnt.rd_data.val();
        self.host_cmd.stat_value.next = self.stats.value.val();
        self.stats.sel.next = self.host_cmd.stat_sel.val();
        self.host_rsp_valid.next = self.host_cmd.rsp_valid.val();
        self.host_rsp_status.next = self.host_cmd.rsp_status.val();
        self.host_rsp_data.next = self.host_cmd.rsp_data.val();

        // The queues and their words.
        self.queues.state.next = self.sequencer.current.val();
        self.queues.sweep_at.next = self.sequencer.sweep_at.val();
        self.queues.take_rx.next = self.sequencer.take_rx.val();
        self.queues.take_visit.next = self.sequencer.take_visit.val();
        self.queues.take_host.next = self.sequencer.take_host.val();
        self.queues.host_w0.next = self.host_w0.val();
        self.queues.host_w1.next = self.host_w1.val();
        self.queues.visit_qp.next = self.sequencer.visit_qp.val();
        self.queues.rx_qp.next = self.rx_qp.val().get_bits::<QB>(0);
        self.queues.rx_kind.next = self.rx_kind.val();
        self.queues.cqe_word.next = self.completion.cqe.val();
        self.queues.cmd_w0.next = self.host_cmd.command_w0.val();
        self.queues.post_w1.next = self.host_cmd.post_w1.val();
        self.queues.post_checks.next = self.execute.checks_now.val();
        self.queues.wq_sel.next = self.host_cmd.wq_sel.val();
        self.queues.cq_sel.next = self.host_cmd.cq_sel.val();
        self.queues.read_wq.next = self.host_cmd.read_wq.val();
        self.queues.read_cq.next = self.host_cmd.read_cq.val();
        self.queues.post.next = self.host_cmd.post.val();
        self.queues.pop.next = self.host_cmd.pop.val();
        self.queues.configure.next = self.host_cmd.configure.val();
        self.queues.cfg_cq.next = self.host_cmd.cfg_cq.val();
        self.queues.cfg_managed.next = self.host_cmd.cfg_managed.val();
        self.queues.cfg_plain.next = self.host_cmd.cfg_plain.val();
        self.queues.cfg_rc.next = self.host_cmd.cfg_rc.val();
        self.queues.cfg_rnr_retry.next = self.host_cmd.cfg_rnr_retry.val();
        self.queues.cfg_rnr_delay.next = self.host_cmd.cfg_rnr_delay.val();
        self.queues.now.next = self.sequencer.now.val();
        self.queues.await_answer.next =
            self.execute.await_answer.val() | self.calc.await_answer.val();
        self.queues.msg_tag.next = self.receive.msg_tag.val();
        self.queues.answer_reason.next = self.rx_data.val().get_bits::<STATUS_BITS>(0);
        self.queues.opcode.next = self.wqe.opcode.val();
        self.queues.en_qp.next = self.wqe.en_qp.val().get_bits::<QB>(0);
        self.queues.en_mode.next = self.wqe.en_mode.val();
        self.queues.en_value.next = self.wqe.en_value.val();
        self.queues.write_cqe.next = self.completion.write_cqe.val();
        self.queues.retire.next = self.completion.retire.val();
        self.wqe.w0.next = self.queues.cur_w0.val();
        self.wqe.w1.next = self.queues.cur_w1.val();

        // WQE decode and dispatch.
        self.execute.clock.next = self.clock.val();
        self.execute.reset.next = self.reset.val();
        self.execute.state.next = self.sequencer.current.val();
        self.execute.head_wait_index.next = self.queues.head_wait_index.val();
        self.execute.runnable.next = self.queues.runnable.val();
        self.execute.cq_full.next = self.queues.cq_full.val();
        self.execute.opcode.next = self.wqe.opcode.val();
        self.execute.rsvd0.next = self.wqe.rsvd0.val();
        self.execute.rsvd1.next = self.wqe.rsvd1.val();
        self.execute.rsvd2.next = self.wqe.rsvd2.val();
        self.execute.calc_ext_d.next = self.calc.shape_ext_d.val();
        self.execute.buf_addr.next = self.wqe.buf_addr.val();
        self.execute.buf_len.next = self.wqe.buf_len.val();
        self.execute.wait_kind.next = self.wqe.wait_kind.val();
        self.execute.wait_index.next = self.wqe.wait_index.val();
        self.execute.wait_count.next = self.wqe.wait_count.val();
        self.execute.en_qp.next = self.wqe.en_qp.val();
        self.execute.calc_op.next = self.wqe.calc_op.val();
        self.execute.calc_count.next = self.wqe.calc_count.val();
        self.execute.calc_dst.next = self.wqe.calc_dst.val();
        self.execute.calc_to_peer.next = self.wqe.calc_to_peer.val();
        self.execute.pipe_rq.next = self.wqe.pipe_rq.val();
        self.execute.pipe_blen.next = self.wqe.pipe_blen.val();
        self.execute.pipe_nbuf.next = self.wqe.pipe_nbuf.val();
        self.execute.pipe_count.next = self.wqe.pipe_count.val();
        self.execute.checks.next = self.queues.checks.val();
        self.execute.cq_produced.next = self.queues.cq_produced.val();
        self.execute.cnt_data.next = self.cnt.rd_data.val();
        self.execute.tx_free.next = self.transmit.free.val();
        self.execute.tx_busy_here.next = self.transmit.busy_here.val();
        self.execute.tx_sent_here.next = self.transmit.sent_here.val();
        self.execute.reliable.next = self.queues.reliable.val();
        self.execute.awaits.next = self.queues.awaits.val();
        self.execute.rc_state.next = self.queues.rc_state.val();
        self.execute.rc_status.next = self.queues.rc_status.val();
        self.execute.rc_due.next = self.queues.rc_due.val();

        // The CALC loop.
        self.calc.state.next = self.sequencer.current.val();
        self.calc.calc_op.next = self.wqe.calc_op.val();
        self.calc.calc_dtype.next = self.wqe.calc_dtype.val();
        self.calc.calc_fp.next = self.wqe.calc_fp.val();
        self.execute.calc_fp_refused.next = self.calc.fp_refused.val();
        self.calc.calc_count.next = self.wqe.calc_count.val();
        self.calc.calc_a.next = self.wqe.calc_a.val();
        self.calc.calc_b.next = self.wqe.calc_b.val();
        self.calc.calc_sa.next = self.wqe.calc_sa.val();
        self.calc.calc_sb.next = self.wqe.calc_sb.val();
        self.calc.calc_dst.next = self.wqe.calc_dst.val();
        self.calc.calc_to_peer.next = self.wqe.calc_to_peer.val();
        self.calc.calc_shape.next = self.wqe.calc_shape.val();
        self.calc.shape_rd.next = self.queues.head_shape.val();
        self.calc.shape_set.next = self.host_cmd.shape_set.val();
        self.calc.shape_set_index.next = self.host_cmd.shape_set_index.val();
        self.calc.shape_set_dim1.next = self.host_cmd.shape_set_dim1.val();
        self.calc.shape_set_dim2.next = self.host_cmd.shape_set_dim2.val();
        self.calc.shape_set_ext.next = self.host_cmd.shape_set_ext.val();
        self.calc.shape_ext_set.next = self.host_cmd.shape_ext_set.val();
        self.calc.shape_ext_index.next = self.host_cmd.shape_ext_index.val();
        self.calc.sweep_at.next = self.sequencer.sweep_at.val().get_bits::<3>(0);
        for j in 0..L {
            self.calc.dmem_data[j].next = self.dmem.a_data[j].val();
            self.calc.dmem_b_data[j].next = self.dmem.b_data[j].val();
        }
        self.calc.reliable.next = self.queues.reliable.val();

        // Arriving messages.
        self.receive.state.next = self.sequencer.current.val();
        self.receive.take_rx.next = self.sequencer.take_rx.val();
        self.receive.rx_valid.next = self.rx_valid.val();
        self.receive.rx_kind.next = self.rx_kind.val();
        self.receive.rx_src.next = self.rx_src.val();
        self.receive.rx_src_qp.next = self.rx_src_qp.val();
        self.receive.rx_qp.next = self.rx_qp.val();
        self.receive.rx_cnt_en.next = self.rx_cnt_en.val();
        self.receive.rx_cnt.next = self.rx_cnt.val();
        self.receive.rx_tag.next = self.rx_tag.val();
        self.receive.rx_ack.next = self.rx_ack.val();
        self.receive.rc_read.next = self.queues.rc_read.val();
        self.receive.answered.next = self.queues.answered.val();
        self.receive.answer_discard.next = self.queues.answer_discard.val();
        self.receive.rx_empty.next = self.rx_empty.val();
        self.receive.rx_last.next = self.rx_last.val();
        self.receive.rx_data.next = self.rx_data.val();
        self.receive.runnable.next = self.queues.runnable.val();
        self.receive.cq_full.next = self.queues.cq_full.val();
        self.receive.read_cq_full.next = self.queues.read_cq_full.val();
        self.receive.opcode.next = self.wqe.opcode.val();
        self.receive.buf_addr.next = self.wqe.buf_addr.val();
        self.receive.buf_len.next = self.wqe.buf_len.val();
        self.receive.reserved.next = self.execute.reserved.val();
        self.receive.buf_outside.next = self.execute.buf_outside.val();
        self.receive.cnt_data.next = self.cnt.rd_data.val();
        self.receive.pending.next = self.completion.pending.val();
        self.receive.ans_full.next = self.transmit.ans_full.val();
        self.receive.pipe_on.next = self.pipe.on.val();
        self.receive.pipe_room.next = self.pipe.room.val();
        self.receive.pipe_wr_addr.next = self.pipe.wr_addr.val();
        self.receive.pipe_blen.next = self.pipe.blen.val();
        self.receive.pipe_last.next = self.pipe.last.val();
        self.receive.sweep_at.next = self.sequencer.sweep_at.val().get_bits::<KB>(0);
        self.receive.chan_set.next = self.host_cmd.chan_set.val();
        self.receive.chan_set_index.next = self.host_cmd.chan_set_index.val();
        self.receive.chan_set_word.next = self.host_cmd.chan_set_word.val();

        // Pipes.
        self.pipe.state.next = self.sequencer.current.val();
        self.pipe.sweep_qp.next = self.sequencer.sweep_at.val().get_bits::<QB>(0);
        self.pipe.take_rx.next = self.sequencer.take_rx.val();
        self.pipe.rx_qp.next = self.rx_qp.val().get_bits::<QB>(0);
        self.pipe.pipe_read.next = self.execute.pipe_read.val();
        self.pipe.pipe_rq.next = self.wqe.pipe_rq.val().get_bits::<QB>(0);
        self.pipe.pipe_base.next = self.wqe.pipe_base.val();
        self.pipe.pipe_blen.next = self.wqe.pipe_blen.val();
        self.pipe.pipe_nbuf.next = self.wqe.pipe_nbuf.val();
        self.pipe.pipe_count.next = self.wqe.pipe_count.val();
        self.pipe.served_qp.next = self.queues.wq.val().get_bits::<QB>(1);
        self.pipe.tx_free.next = self.transmit.free.val();
        self.pipe.tx_sent_here.next = self.transmit.sent_here.val();
        self.pipe.chunk.next = self.receive.chunk.val();
        self.pipe.chunk_status.next = self.receive.complete_status.val();
        self.pipe.chunk_len.next = self.receive.complete_len.val();
        self.pipe.msg_qp.next = self.receive.msg_qp.val().get_bits::<QB>(0);

        // Sending messages.
        self.transmit.tx_ready.next = self.tx_ready.val();
        self.transmit.send.next = self.execute.send.val() | self.pipe.send.val();
        self.transmit.send_go.next = self.execute.send_go.val();
        self.transmit.send_addr.next = self.execute.send_addr.val() | self.pipe.send_addr.val();
        self.transmit.send_len.next = self.execute.send_len.val() | self.pipe.send_len.val();
        self.transmit.go.next = self.calc.go.val();
        self.transmit.cancel.next = self.calc.cancel.val();
        self.transmit.sent_taken.next = self.execute.sent_taken.val() | self.pipe.sent_taken.val();
        self.transmit.peer_node.next = self.wqe.peer_node.val();
        self.transmit.peer_qp.next = self.wqe.peer_qp.val();
        self.transmit.peer_cnt_en.next = self.wqe.peer_cnt_en.val();
        self.transmit.peer_cnt.next = self.wqe.peer_cnt.val();
        self.transmit.served_qp.next = self.queues.wq.val().get_bits::<QB>(1);
        self.transmit.ctx_ci.next = self.queues.ctx_ci.val();
        self.transmit.nak_send.next = self.receive.nak_send.val();
        self.transmit.nak_dst.next = self.receive.msg_src.val();
        self.transmit.nak_qp.next = self.receive.msg_src_qp.val();
        self.transmit.nak_src_qp.next = self.receive.msg_qp.val();
        self.transmit.nak_tag.next = self.receive.msg_tag.val();
        self.transmit.nak_reason.next = self.receive.nak_reason.val();
        self.transmit.dmem_data.next = self.dmem.tx_data.val();
        // A pipe's chunks ask for no answer, whatever the QP.
        self.transmit.reliable.next = self.queues.reliable.val() & !self.pipe.send.val();
        self.tx_valid.next = self.transmit.tx_valid.val();
        self.tx_kind.next = self.transmit.tx_kind.val();
        self.tx_dst.next = self.transmit.tx_dst.val();
        self.tx_src_qp.next = self.transmit.tx_src_qp.val();
        self.tx_qp.next = self.transmit.tx_qp.val();
        self.tx_cnt_en.next = self.transmit.tx_cnt_en.val();
        self.tx_cnt.next = self.transmit.tx_cnt.val();
        self.tx_tag.next = self.transmit.tx_tag.val();
        self.tx_ack.next = self.transmit.tx_ack.val();
        self.tx_empty.next = self.transmit.tx_empty.val();
        self.tx_last.next = self.transmit.tx_last.val();
        self.tx_data.next = self.transmit.tx_data.val();

        // The pending completion.
        self.completion.state.next = self.sequencer.current.val();
        // The other units complete only in states that load the completion anyway: their
        // decisions stay out of its registers' enables (see `nic_completion`).
        self.completion.complete.next = self.receive.complete.val();
        self.completion.complete_status.next = self.execute.complete_status.val()
            | self.calc.complete_status.val()
            | self.receive.complete_status.val()
            | self.pipe.complete_status.val();
        self.completion.complete_len.next = self.receive.complete_len.val();
        self.completion.opcode.next = self.wqe.opcode.val();
        self.completion.signaled.next = self.wqe.signaled.val();
        self.completion.wq.next = self.queues.wq.val();
        self.completion.ctx_ci.next = self.queues.ctx_ci.val();
        self.completion.hold.next = self.receive.hold.val();
        self.completion.notify.next = self.receive.notify.val();
        self.completion.notify_qp.next = self.receive.msg_qp.val();
        self.completion.notify_tag.next = self.receive.msg_tag.val();

        // Statistics, and the counter and data memories (requests are zero when idle).
        self.stats.hits.next = self.host_cmd.stat_hits.val()
            | self.execute.stat_hits.val()
            | self.receive.stat_hits.val()
            | self.completion.stat_hits.val();
        self.cnt.rd_addr.next = self.host_cmd.cnt_rd_addr.val()
            | self.execute.cnt_rd_addr.val()
            | self.receive.cnt_rd_addr.val();
        self.cnt.wr_en.next =
            (self.host_cmd.cnt_wr_en.val() | self.receive.cnt_wr_en.val()) & !self.reset.val();
        self.cnt.wr_addr.next = self.host_cmd.cnt_wr_addr.val() | self.receive.cnt_wr_addr.val();
        self.cnt.wr_data.next = self.host_cmd.cnt_wr_data.val() | self.receive.cnt_wr_data.val();
        // Data memory: lane 0 is every unit's, lanes 1 .. a streaming CALC's alone.
        self.dmem.tx_addr.next = self.transmit.dmem_rd_addr.val();
        for j in 0..L {
            self.dmem.a_on[j].next = self.calc.lane_on[j].val();
            self.dmem.b_on[j].next = self.calc.lane_on[j].val();
            self.dmem.b_addr[j].next = self.calc.dmem_b_rd_addr[j].val();
            if j == 0 {
                self.dmem.a_addr[0].next =
                    self.host_cmd.dmem_rd_addr.val() | self.calc.dmem_rd_addr[0].val();
                self.dmem.wr_en[0].next = (self.host_cmd.dmem_wr_en.val()
                    | self.calc.dmem_wr_en[0].val()
                    | self.receive.dmem_wr_en.val())
                    & !self.reset.val();
                self.dmem.wr_addr[0].next = self.host_cmd.dmem_wr_addr.val()
                    | self.calc.dmem_wr_addr[0].val()
                    | self.receive.dmem_wr_addr.val();
                self.dmem.wr_data[0].next = self.host_cmd.dmem_wr_data.val()
                    | self.calc.dmem_wr_data[0].val()
                    | self.receive.dmem_wr_data.val();
            } else {
                self.dmem.a_addr[j].next = self.calc.dmem_rd_addr[j].val();
                self.dmem.wr_en[j].next = self.calc.dmem_wr_en[j].val() & !self.reset.val();
                self.dmem.wr_addr[j].next = self.calc.dmem_wr_addr[j].val();
                self.dmem.wr_data[j].next = self.calc.dmem_wr_data[j].val();
            }
        }
    }
}

/// The NIC's RTL at one parameter set, behind the interfaces the registry needs.
pub trait NicRtl {
    /// The block as Verilog (the `nic` module and every module it instantiates).
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
    /// The block under rust-hdl's `simulate()`, as a value-vector design.
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim>;
}

impl<
        const QB: usize,
        const WB: usize,
        const WEB: usize,
        const CB: usize,
        const CEB: usize,
        const KB: usize,
        const DB: usize,
        const SWB: usize,
        const FP: usize,
        const AX: usize,
        const AWB: usize,
        const L: usize,
        const LB: usize,
        const RB: usize,
    > NicRtl for Nic<QB, WB, WEB, CB, CEB, KB, DB, SWB, FP, AX, AWB, L, LB, RB>
{
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        let owned = sub_modules(L, self.calc.fp_mask());
        let children: Vec<(&str, &str)> = owned.iter().map(|(f, m)| (*f, m.as_str())).collect();
        emit_with_children(self, TOP, header, &children)
    }
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim> {
        Box::new(crate::kit::RtlSim::new(*self))
    }
}

fn boxed<
    const QB: usize,
    const WB: usize,
    const WEB: usize,
    const CB: usize,
    const CEB: usize,
    const KB: usize,
    const DB: usize,
    const SWB: usize,
    const FP: usize,
    const AX: usize,
    const AWB: usize,
    const L: usize,
    const LB: usize,
    const RB: usize,
>(
    fp_mask: usize,
) -> Box<dyn NicRtl> {
    let mut n = Nic::<QB, WB, WEB, CB, CEB, KB, DB, SWB, FP, AX, AWB, L, LB, RB>::default();
    n.calc.set_fp_types(fp_mask);
    n.connect_all();
    Box::new(n)
}

/// The NIC RTL for `p`, or `None` when `p` is not a supported parameter set (the configuration
/// loader rejects those first, naming the allowed values).
pub fn build(p: &NicParams) -> Option<Box<dyn NicRtl>> {
    // The ALU's tail stages and the CALC wait counter's bits, without and with the
    // floating-point types (the ALU's latency is the build's).
    use crate::reduce_alu::FP_TAIL as TAIL;
    use netcoll_models::nic::model::alu_wait_bits;
    const AWB0: usize = alu_wait_bits(false);
    const AWB1: usize = alu_wait_bits(true);
    if !netcoll_models::kit::params::ParamTable::is_supported(p) {
        return None;
    }
    let m = p.alu().fp_mask();
    // One build: the queues' widths `q` (QB, WB, WEB, CB, CEB, KB, SWB), then DB, FP, AX, AWB,
    // L, LB, RB.
    macro_rules! at {
        (($qb:literal, $wb:literal, $web:literal, $cb:literal, $ceb:literal, $kb:literal, $swb:literal),
         $db:literal, $fp:literal, $ax:expr, $awb:expr, $l:literal, $lb:literal, $rb:literal) => {
            Some(boxed::<
                $qb,
                $wb,
                $web,
                $cb,
                $ceb,
                $kb,
                $db,
                $swb,
                $fp,
                { $ax },
                { $awb },
                $l,
                $lb,
                $rb,
            >(m))
        };
    }
    // The data memory's sizes and the ALU's: (dmem_words, fp, lanes) → the rest.
    macro_rules! memory {
        ($q:tt) => {
            match (p.dmem_words, p.fp, p.lanes) {
                (1024, 0, 1) => at!($q, 10, 0, 0, AWB0, 1, 0, 10),
                (1024, 0, 2) => at!($q, 10, 0, 0, AWB0, 2, 1, 9),
                (1024, 0, 4) => at!($q, 10, 0, 0, AWB0, 4, 2, 8),
                (1024, 1, 1) => at!($q, 10, 1, TAIL, AWB1, 1, 0, 10),
                (1024, 1, 2) => at!($q, 10, 1, TAIL, AWB1, 2, 1, 9),
                (1024, 1, 4) => at!($q, 10, 1, TAIL, AWB1, 4, 2, 8),
                (4096, 0, 1) => at!($q, 12, 0, 0, AWB0, 1, 0, 12),
                (4096, 0, 2) => at!($q, 12, 0, 0, AWB0, 2, 1, 11),
                (4096, 0, 4) => at!($q, 12, 0, 0, AWB0, 4, 2, 10),
                (4096, 1, 1) => at!($q, 12, 1, TAIL, AWB1, 1, 0, 12),
                (4096, 1, 2) => at!($q, 12, 1, TAIL, AWB1, 2, 1, 11),
                (4096, 1, 4) => at!($q, 12, 1, TAIL, AWB1, 4, 2, 10),
                _ => None,
            }
        };
    }
    macro_rules! pick {
        ($(($q:literal, $c:literal, $k:literal, $qb:literal, $wb:literal, $web:literal, $cb:literal, $ceb:literal, $kb:literal, $swb:literal)),*) => {
            $( if (p.qps, p.cqs, p.counters) == ($q, $c, $k) {
                return memory!(($qb, $wb, $web, $cb, $ceb, $kb, $swb));
            } )*
        };
    }
    pick!(
        (4, 4, 8, 2, 3, 7, 2, 7, 3, 3),
        (4, 4, 32, 2, 3, 7, 2, 7, 5, 5),
        (4, 16, 8, 2, 3, 7, 4, 9, 3, 4),
        (4, 16, 32, 2, 3, 7, 4, 9, 5, 5),
        (16, 4, 8, 4, 5, 9, 2, 7, 3, 5),
        (16, 4, 32, 4, 5, 9, 2, 7, 5, 5),
        (16, 16, 8, 4, 5, 9, 4, 9, 3, 5),
        (16, 16, 32, 4, 5, 9, 4, 9, 5, 5)
    );
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_parameter_set_builds() {
        for p in NicParams::all_supported() {
            assert!(build(&p).is_some(), "{p:?}");
        }
        let bad = NicParams {
            qps: 8,
            ..NicParams::SMALL
        };
        assert!(build(&bad).is_none());
    }

    #[test]
    fn the_rtl_states_are_the_model_states() {
        use netcoll_models::nic::model::SeqState as M;
        let rtl = [
            SeqState::Init,
            SeqState::Idle,
            SeqState::Background,
            SeqState::HostDecode,
            SeqState::AnsWait,
            SeqState::CalcWait,
            SeqState::SqWqe,
            SeqState::RxCheck,
        ];
        let model = [
            M::Init,
            M::Idle,
            M::Background,
            M::HostDecode,
            M::AnsWait,
            M::CalcWait,
            M::SqWqe,
            M::RxCheck,
        ];
        for (r, m) in rtl.iter().zip(model) {
            assert_eq!(*r as u64, m.code(), "{r:?}");
        }
        // Same number of states, so the same width, and the last has the same code.
        assert_eq!(<SeqState as Synth>::BITS, M::BITS);
        assert_eq!(SeqState::PipeCheck as usize, M::ALL.len() - 1);
        assert_eq!(M::PipeCheck.code(), M::ALL.len() as u64 - 1);
        use netcoll_models::nic::model::TxPhase as P;
        use sequencer::TxPhase;
        for (r, m) in [TxPhase::Idle, TxPhase::Beat, TxPhase::Hold]
            .iter()
            .zip(P::ALL)
        {
            assert_eq!(*r as u64, m.code(), "{r:?}");
        }
        assert_eq!(<TxPhase as Synth>::BITS, P::BITS);
    }
}
