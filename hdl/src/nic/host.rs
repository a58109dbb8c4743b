//! # The host command unit (module `nic_host`)
//!
//! Latches a host command when the sequencer takes it (`Idle`), runs it in `HostDecode`,
//! `HostAccess` and `HostFinish` (see "Host commands" in `netcoll_models::nic` and the state
//! table of its `model`) and answers in the response registers. It owns the CQs' wait memory
//! (`cq_waits`, a `CqWait` word per CQ: only posting a CQ WAIT uses it) and the work queues'
//! enable heads (`wq_enables`, a `WqEnable` word per queue: posting a mode 2 enable reads the
//! target's context first, in `HostDecode`, latches its `pi` and managed bit in `HostAccess`
//! and posts, or refuses, in `HostFinish`; `CONFIG_QP` resets the head of a queue it makes
//! managed), and refuses cross-channel work posted to a plain QP; the queue memories are reached
//! through [`super::queues`] (`read_wq`, `post`, `pop`, …), the counter and data memories through
//! request ports the parent merges with the other units' (zero when idle).
//!
//! # Inputs
//! - `clock`, `reset`; `state` (the sequencer's), `sweep_at` (the reset sweep's index: this
//!   unit clears the wait and enable memories and the counters in `Init`);
//! - the host port (`host_*` of the NIC): `valid`, `op`, `arg`, `w0`, `w1`;
//! - the command's WQE fields (`opcode`, `wait_kind`, `wait_more`, `wait_index`,
//!   `wait_count`, `en_qp` (its low `QB` bits), `en_more`, `en_value`, from the WQE unpack: the
//!   queues latch the command's words as the WQE when it is taken; a post's opcode, enable mode
//!   and target are also decoded from the port as it is taken, see `first_wq`); `CONFIG_QP`'s
//!   fields come from this unit's `QpConfig` unpack (`qp_config`) of the command's `w0`;
//! - what the memories returned: the work queue's `wq_pi`, `wq_ci`, `wq_managed`, `wq_plain`,
//!   the CQ's `cq_produced`, `cq_consumed`, `cqe_data`, `dmem_data`, `cnt_data`, and the
//!   statistic `stat_value`.
//!
//! # Outputs
//! - the response (`host_rsp_*` of the NIC): `rsp_valid`, `rsp_status`, `rsp_data` (registers);
//! - `next_state`: the next state in the host states;
//! - `command_w0`: the latched command's first word (a posted WQE's; a mode 2 enable's with
//!   mode 3);
//! - to the queues: `wq_sel`, `cq_sel` (the queue / CQ the command names), `read_wq`, `read_cq`,
//!   `post` (with the WQE `command_w0`, `post_w1`), `pop`, `configure` (with `cfg_cq`,
//!   `cfg_managed`, `cfg_plain`, and the reliability settings `cfg_rc`, `cfg_rnr_retry`,
//!   `cfg_rnr_delay`);
//! - requests: `cnt_rd_addr`, `cnt_wr_en`, `cnt_wr_addr`, `cnt_wr_data`, `dmem_rd_addr`,
//!   `dmem_wr_en`, `dmem_wr_addr`, `dmem_wr_data`;
//! - `stat_hits` (one-hot, see [`super::stats`]), `stat_sel` (the statistic `READ_STAT` reads);
//! - `chan_set`, `chan_set_index`, `chan_set_word`: `SET_CHANNEL`'s write of a receive
//!   channel (the memory is [`super::receive`]'s), its word cut to the `RxChannel` fields;
//! - `shape_set`, `shape_set_index`, `shape_set_dim1`, `shape_set_dim2`: `SET_SHAPE`'s
//!   write of a CALC shape's two dimensions (the memories are [`super::calc`]'s), in
//!   `HostDecode`; `shape_ext_set`, `shape_ext_index`, `shape_set_ext`: the write of their
//!   outer spans (a `ShapeExtent`), so that a CALC needs no multiplier for them, two cycles
//!   later (see "SET_SHAPE's outer spans" below).
//!
//! # SET_SHAPE's outer spans
//! `(n - 1) × s` for the two dimensions and the three strides are six [`Mul16`]s, DSP blocks
//! with their own operand and product registers, fed from the command words at the port: the
//! products of the words taken in cycle 0 (`Idle`) show in cycle 2 (`Background`, after the
//! answer in `HostDecode`), where they are summed and capped at `EXT_MAX` into a register,
//! which is written into the shape memory in cycle 3. The shape memories are first read in
//! `SqWqe`, which comes at the earliest in cycle 4 (`Background`, then `SqContext`, then
//! `SqWqe`), so every CALC sees the spans of the last `SET_SHAPE`, as in the cycle model,
//! which writes all of a shape in `HostDecode`. (A multiplier and a 33-bit sum between the
//! port and a register were the NIC's longest path: 51.9 MHz on ECP5 -6.)

use super::calc::{SHAPE_BITS, SHAPE_EXT_BITS};
use super::layouts::{pack, unpack, unpack::QpConfig, unpack::RxChannel};
use super::sequencer::SeqState;
use super::stats::{hit, STAT_BITS};
use super::{k, EN_MODE, EN_QP, EN_VALUE, OPCODE, WAIT_COUNT};
use crate::dff_setup;
use crate::prim::{Mem, Mul16, Reg};
use netcoll_models::nic::{HostOp, HostStatus, Opcode, Stat, SHAPES, STATS, WQ_DEPTH};
use rust_hdl::prelude::*;

const OP_BITS: usize = HostOp::BITS;
const STATUS_BITS: usize = HostStatus::BITS;
const OPCODE_BITS: usize = Opcode::BITS;
const WAIT_BITS: usize = WAIT_COUNT.width;
const STAT_SEL_BITS: usize = Stat::BITS;
/// Bits of a receive channel's word (the `chan` memory's width, in the receive unit).
pub(crate) const CHAN_BITS: usize = netcoll_models::nic::RxChannel::WORDS[0].1;

/// The bits of a receive channel's word its fields cover (`SET_CHANNEL` stores only those).
fn rx_channel_mask() -> u64 {
    netcoll_models::nic::RxChannel::FIELDS
        .iter()
        .fold(0, |m, f| m | f.put(0, u64::MAX))
}

crate::sub_block! {
    /// The host command unit (widths as in [`super::Nic`]).
    pub struct NicHost<
        const QB: usize,
        const WB: usize,
        const CB: usize,
        const KB: usize,
        const DB: usize,
        const SWB: usize,
    > {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub sweep_at: Signal<In, Bits<SWB>>,
        pub valid: Signal<In, bool>,
        pub op: Signal<In, Bits<OP_BITS>>,
        pub arg: Signal<In, Bits<16>>,
        pub w0: Signal<In, Bits<64>>,
        pub w1: Signal<In, Bits<64>>,
        pub opcode: Signal<In, Bits<OPCODE_BITS>>,
        pub wait_kind: Signal<In, bool>,
        pub wait_more: Signal<In, bool>,
        pub wait_index: Signal<In, Bits<8>>,
        pub wait_count: Signal<In, Bits<WAIT_BITS>>,
        pub en_qp: Signal<In, Bits<QB>>,
        pub en_more: Signal<In, bool>,
        pub en_value: Signal<In, Bits<16>>,
        pub wq_pi: Signal<In, Bits<16>>,
        pub wq_ci: Signal<In, Bits<16>>,
        pub wq_managed: Signal<In, bool>,
        pub wq_plain: Signal<In, bool>,
        pub cq_produced: Signal<In, Bits<32>>,
        pub cq_consumed: Signal<In, Bits<32>>,
        pub cqe_data: Signal<In, Bits<64>>,
        pub dmem_data: Signal<In, Bits<64>>,
        pub cnt_data: Signal<In, Bits<32>>,
        pub stat_value: Signal<In, Bits<STAT_BITS>>,
        pub rsp_valid: Signal<Out, bool>,
        pub rsp_status: Signal<Out, Bits<STATUS_BITS>>,
        pub rsp_data: Signal<Out, Bits<64>>,
        pub next_state: Signal<Out, SeqState>,
        pub command_w0: Signal<Out, Bits<64>>,
        pub wq_sel: Signal<Out, Bits<WB>>,
        pub cq_sel: Signal<Out, Bits<CB>>,
        pub read_wq: Signal<Out, bool>,
        pub read_cq: Signal<Out, bool>,
        pub post: Signal<Out, bool>,
        pub post_w1: Signal<Out, Bits<64>>,
        pub pop: Signal<Out, bool>,
        pub configure: Signal<Out, bool>,
        pub cfg_cq: Signal<Out, Bits<8>>,
        pub cfg_managed: Signal<Out, bool>,
        pub cfg_plain: Signal<Out, bool>,
        pub cfg_rc: Signal<Out, bool>,
        pub cfg_rnr_retry: Signal<Out, Bits<3>>,
        pub cfg_rnr_delay: Signal<Out, Bits<16>>,
        pub cnt_rd_addr: Signal<Out, Bits<KB>>,
        pub cnt_wr_en: Signal<Out, bool>,
        pub cnt_wr_addr: Signal<Out, Bits<KB>>,
        pub cnt_wr_data: Signal<Out, Bits<32>>,
        pub dmem_rd_addr: Signal<Out, Bits<DB>>,
        pub dmem_wr_en: Signal<Out, bool>,
        pub dmem_wr_addr: Signal<Out, Bits<DB>>,
        pub dmem_wr_data: Signal<Out, Bits<64>>,
        pub stat_hits: Signal<Out, Bits<STATS>>,
        pub stat_sel: Signal<Out, Bits<STAT_SEL_BITS>>,
        pub chan_set: Signal<Out, bool>,
        pub chan_set_index: Signal<Out, Bits<KB>>,
        pub chan_set_word: Signal<Out, Bits<CHAN_BITS>>,
        pub shape_set: Signal<Out, bool>,
        pub shape_set_index: Signal<Out, Bits<SHAPE_BITS>>,
        pub shape_set_dim1: Signal<Out, Bits<64>>,
        pub shape_set_dim2: Signal<Out, Bits<64>>,
        pub shape_ext_set: Signal<Out, bool>,
        pub shape_ext_index: Signal<Out, Bits<SHAPE_BITS>>,
        pub shape_set_ext: Signal<Out, Bits<SHAPE_EXT_BITS>>,
        // The command and the response.
        cmd_op: Reg<Bits<OP_BITS>>,
        cmd_arg: Reg<Bits<16>>,
        cmd_w0: Reg<Bits<64>>,
        cmd_w1: Reg<Bits<64>>,
        response_valid: Reg<bool>,
        response_status: Reg<Bits<STATUS_BITS>>,
        response_data: Reg<Bits<64>>,
        /// Per CQ, the wait index and count (see WAIT in the spec); its word read, and
        /// written (modules `nic_cq_wait_fields`, `nic_cq_wait_word`).
        cq_waits: Mem<Bits<64>, CB>,
        cq_wait_now: unpack::CqWait,
        cq_wait_word: pack::CqWait,
        /// Per work queue, the enable head (see mode 2 enables in the spec); its word read,
        /// and written (modules `nic_wq_enable_fields`, `nic_wq_enable_word`).
        wq_enables: Mem<Bits<32>, WB>,
        en_head_now: unpack::WqEnable,
        en_head_word: pack::WqEnable,
        /// A mode 2 enable's target queue, latched in `HostAccess`: its `pi`, managed.
        en_pi: Reg<Bits<16>>,
        en_managed: Reg<bool>,
        /// `CONFIG_QP`'s word, split (module `nic_qp_config_fields`).
        qp_config: QpConfig,
        /// `SET_CHANNEL`'s word as it is taken, split (module `nic_rx_channel_fields`).
        rx_channel: RxChannel,
        /// `SET_CHANNEL`'s buffer ends beyond data memory.
        chan_outside: Signal<Local, bool>,
        /// The command's word, taken as `SET_CHANNEL`'s, arms a channel whose QP or buffer
        /// does not exist: decided as the command is taken, so that `HostDecode` reads a
        /// register, not a 17-bit sum.
        chan_bad: Reg<bool>,
        /// Decided from the port as a command is taken, so that `HostDecode`'s read of a
        /// queue's context waits for no decode: the command reads a queue's context first
        /// (a post, `CONFIG_QP`), which queue (a mode 2 enable's target, else the one it
        /// names), and whether it posts a mode 2 enable (`en_post`).
        reads_first: Reg<bool>,
        first_wq: Reg<Bits<WB>>,
        posts_enable: Reg<bool>,
        /// The port's words as a WQE: its opcode, a SEND_EN / RECV_EN's target and mode.
        port_opcode: Signal<Local, Bits<OPCODE_BITS>>,
        port_en_qp: Signal<Local, Bits<8>>,
        port_en_mode: Signal<Local, Bits<2>>,
        port_post: Signal<Local, bool>,
        port_en_post: Signal<Local, bool>,
        /// `SET_SHAPE`'s words as they are taken, split (module `nic_shape_dim_fields`).
        dim_taken: [unpack::ShapeDim; 2] = core::array::from_fn(|_| Default::default()),
        /// Their counts less one (0 for an absent dimension).
        n1_less: Signal<Local, Bits<16>>,
        n2_less: Signal<Local, Bits<16>>,
        /// The six products `(n - 1) × s`, of `a`, `b` and the result (`d`), dimension 1
        /// then 2: the words at the port two cycles earlier.
        mul_a1: Mul16,
        mul_a2: Mul16,
        mul_b1: Mul16,
        mul_b2: Mul16,
        mul_d1: Mul16,
        mul_d2: Mul16,
        /// The sums of each pair's low 17 bits, and the sums capped at `EXT_MAX` (`2^17 -
        /// 1`): capped when either product has a bit above the 17th or the low sum carries,
        /// so that no 33-bit add and compare follows the DSP blocks.
        low_a: Signal<Local, Bits<18>>,
        low_b: Signal<Local, Bits<18>>,
        low_d: Signal<Local, Bits<18>>,
        span_a: Signal<Local, Bits<17>>,
        span_b: Signal<Local, Bits<17>>,
        span_d: Signal<Local, Bits<17>>,
        /// The outer spans as a `ShapeExtent` word (module `nic_shape_extent_word`),
        /// registered in cycle 2 and held until the next `SET_SHAPE`'s.
        ext_taken: pack::ShapeExtent,
        shape_ext: Reg<Bits<SHAPE_EXT_BITS>>,
        /// Cycle 2 of a `SET_SHAPE` that was not refused; cycle 3, its spans are written.
        ext_pending: Reg<bool>,
        ext_write: Reg<bool>,
        /// The shape its spans are written to.
        ext_index: Reg<Bits<SHAPE_BITS>>,
        ext_max: Constant<Bits<17>> = k((1 << 17) - 1),
        shapes: Constant<Bits<16>> = k(SHAPES as u64),
        op_set_channel: Constant<Bits<OP_BITS>> = k(HostOp::SetChannel.code()),
        // Decisions of this cycle, carried out once.
        running: Signal<Local, bool>,
        first: Signal<Local, bool>,
        answer: Signal<Local, bool>,
        answer_status: Signal<Local, Bits<STATUS_BITS>>,
        answer_data: Signal<Local, Bits<64>>,
        refuse_index: Signal<Local, bool>,
        /// A post of a CQ WAIT writes the CQ's new wait index.
        wait_write: Signal<Local, bool>,
        /// The command's queue is the RQ (a post to it, or the second half of `CONFIG_QP`).
        to_rq: Signal<Local, bool>,
        wq_used: Signal<Local, Bits<16>>,
        /// Posting a WAIT on an existing CQ: its count becomes an absolute target.
        cq_wait: Signal<Local, bool>,
        wait_target: Signal<Local, Bits<WAIT_BITS>>,
        /// The CQ's wait count with this WAIT's count.
        wait_max: Signal<Local, Bits<WAIT_BITS>>,
        /// The command posts cross-channel work (WAIT, SEND_EN, RECV_EN, CALC).
        cross_channel: Signal<Local, bool>,
        /// Posting a mode 2 enable naming a QP in range: its target queue, the absolute
        /// index it becomes, the head's new count, and whether the post is refused.
        en_post: Signal<Local, bool>,
        en_target: Signal<Local, Bits<WB>>,
        en_index: Signal<Local, Bits<16>>,
        en_count: Signal<Local, Bits<16>>,
        en_refuse: Signal<Local, bool>,
        en_write: Signal<Local, bool>,
        qps: Constant<Bits<16>> = k(1 << QB),
        qps8: Constant<Bits<8>> = k(1 << QB),
        cqs: Constant<Bits<16>> = k(1 << CB),
        cqs8: Constant<Bits<8>> = k(1 << CB),
        counters: Constant<Bits<16>> = k(1 << KB),
        dmem_words: Constant<Bits<16>> = k(1 << DB),
        dmem_words17: Constant<Bits<17>> = k(1 << DB),
        chan_fields: Constant<Bits<CHAN_BITS>> = k(rx_channel_mask()),
        stats: Constant<Bits<16>> = k(STATS as u64),
        wq_depth: Constant<Bits<16>> = k(WQ_DEPTH as u64),
        wait_count_at: Constant<Bits<8>> = k(WAIT_COUNT.lsb as u64),
        wait_count_keep: Constant<Bits<64>> = k(!WAIT_COUNT.put(0, u64::MAX)),
        en_value_at: Constant<Bits<8>> = k(EN_VALUE.lsb as u64),
        opcode_at: Constant<Bits<8>> = k(OPCODE.lsb as u64),
        en_qp_at: Constant<Bits<8>> = k(EN_QP.lsb as u64),
        en_mode_at: Constant<Bits<8>> = k(EN_MODE.lsb as u64),
        en_value_keep: Constant<Bits<64>> = k(!EN_VALUE.put(0, u64::MAX)),
        en_mode_three: Constant<Bits<64>> = k(EN_MODE.put(0, 3)),
        half: Constant<Bits<16>> = k(0x8000),
        last_op: Constant<Bits<OP_BITS>> = k(HostOp::SetShape.code()),
        op_nop: Constant<Bits<OP_BITS>> = k(HostOp::Nop.code()),
        op_post_sq: Constant<Bits<OP_BITS>> = k(HostOp::PostSq.code()),
        op_post_rq: Constant<Bits<OP_BITS>> = k(HostOp::PostRq.code()),
        op_poll_cq: Constant<Bits<OP_BITS>> = k(HostOp::PollCq.code()),
        op_write_mem: Constant<Bits<OP_BITS>> = k(HostOp::WriteMem.code()),
        op_read_mem: Constant<Bits<OP_BITS>> = k(HostOp::ReadMem.code()),
        op_write_cnt: Constant<Bits<OP_BITS>> = k(HostOp::WriteCnt.code()),
        op_read_cnt: Constant<Bits<OP_BITS>> = k(HostOp::ReadCnt.code()),
        op_config_qp: Constant<Bits<OP_BITS>> = k(HostOp::ConfigQp.code()),
        op_read_stat: Constant<Bits<OP_BITS>> = k(HostOp::ReadStat.code()),
        wqe_wait: Constant<Bits<OPCODE_BITS>> = k(Opcode::Wait.code()),
        wqe_send_en: Constant<Bits<OPCODE_BITS>> = k(Opcode::SendEn.code()),
        wqe_recv_en: Constant<Bits<OPCODE_BITS>> = k(Opcode::RecvEn.code()),
        wqe_calc: Constant<Bits<OPCODE_BITS>> = k(Opcode::Calc.code()),
        ok: Constant<Bits<STATUS_BITS>> = k(HostStatus::Ok.code()),
        bad_op: Constant<Bits<STATUS_BITS>> = k(HostStatus::BadOp.code()),
        bad_index: Constant<Bits<STATUS_BITS>> = k(HostStatus::BadIndex.code()),
        full: Constant<Bits<STATUS_BITS>> = k(HostStatus::Full.code()),
        empty: Constant<Bits<STATUS_BITS>> = k(HostStatus::Empty.code()),
        refused: Constant<Bits<STATUS_BITS>> = k(HostStatus::Refused.code()),
        hit_bad_op: Constant<Bits<STATS>> = hit(Stat::HostBadOp),
        hit_bad_index: Constant<Bits<STATS>> = hit(Stat::HostBadIndex),
        hit_wq_full: Constant<Bits<STATS>> = hit(Stat::WqFull),
        hit_refused: Constant<Bits<STATS>> = hit(Stat::HostRefused),
    }
}

impl<
        const QB: usize,
        const WB: usize,
        const CB: usize,
        const KB: usize,
        const DB: usize,
        const SWB: usize,
    > Logic for NicHost<QB, WB, CB, KB, DB, SWB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cmd_op,
            cmd_arg,
            cmd_w0,
            cmd_w1,
            response_valid,
            response_status,
            response_data,
            en_pi,
            en_managed,
            chan_bad,
            reads_first,
            first_wq,
            posts_enable,
            shape_ext,
            ext_pending,
            ext_write,
            ext_index
        );
        self.cq_waits.clock.next = self.clock.val();
        self.cq_wait_now.cqw.next = self.cq_waits.rd_data.val();
        self.wq_enables.clock.next = self.clock.val();
        self.en_head_now.wqen.next = self.wq_enables.rd_data.val();
        self.rsp_valid.next = self.response_valid.q.val();
        self.rsp_status.next = self.response_status.q.val();
        self.rsp_data.next = self.response_data.q.val();
        self.command_w0.next = self.cmd_w0.q.val();
        if self.en_post.val() {
            self.command_w0.next = self.cmd_w0.q.val() | self.en_mode_three.val();
        }
        self.qp_config.w0.next = self.cmd_w0.q.val();
        self.rx_channel.chan.next = self.w0.val().get_bits::<CHAN_BITS>(0);
        self.chan_outside.next = (bit_cast::<17, 16>(self.rx_channel.addr.val())
            + bit_cast::<17, 16>(self.rx_channel.len.val()))
            > self.dmem_words17.val();
        self.chan_set_index.next = self.cmd_arg.q.val().get_bits::<KB>(0);
        self.chan_set_word.next =
            self.cmd_w0.q.val().get_bits::<CHAN_BITS>(0) & self.chan_fields.val();
        self.stat_sel.next = self.cmd_arg.q.val().get_bits::<STAT_SEL_BITS>(0);
        // SET_SHAPE's outer spans, from the words at the port.
        self.dim_taken[0].dim.next = self.w0.val();
        self.dim_taken[1].dim.next = self.w1.val();
        self.n1_less.next = 0.into();
        if self.dim_taken[0].count.val().any() {
            self.n1_less.next = self.dim_taken[0].count.val() - 1;
        }
        self.n2_less.next = 0.into();
        if self.dim_taken[1].count.val().any() {
            self.n2_less.next = self.dim_taken[1].count.val() - 1;
        }
        // The products of the words taken two cycles ago, summed and capped.
        self.mul_a1.clock.next = self.clock.val();
        self.mul_a1.reset.next = self.reset.val();
        self.mul_a1.a.next = self.n1_less.val();
        self.mul_a1.b.next = self.dim_taken[0].sa.val();
        self.mul_a2.clock.next = self.clock.val();
        self.mul_a2.reset.next = self.reset.val();
        self.mul_a2.a.next = self.n2_less.val();
        self.mul_a2.b.next = self.dim_taken[1].sa.val();
        self.low_a.next = bit_cast::<18, 17>(self.mul_a1.p.val().get_bits::<17>(0))
            + bit_cast::<18, 17>(self.mul_a2.p.val().get_bits::<17>(0));
        self.span_a.next = self.low_a.val().get_bits::<17>(0);
        if self.mul_a1.p.val().get_bits::<15>(17).any()
            | self.mul_a2.p.val().get_bits::<15>(17).any()
            | self.low_a.val().get_bit(17)
        {
            self.span_a.next = self.ext_max.val();
        }
        self.mul_b1.clock.next = self.clock.val();
        self.mul_b1.reset.next = self.reset.val();
        self.mul_b1.a.next = self.n1_less.val();
        self.mul_b1.b.next = self.dim_taken[0].sb.val();
        self.mul_b2.clock.next = self.clock.val();
        self.mul_b2.reset.next = self.reset.val();
        self.mul_b2.a.next = self.n2_less.val();
        self.mul_b2.b.next = self.dim_taken[1].sb.val();
        self.low_b.next = bit_cast::<18, 17>(self.mul_b1.p.val().get_bits::<17>(0))
            + bit_cast::<18, 17>(self.mul_b2.p.val().get_bits::<17>(0));
        self.span_b.next = self.low_b.val().get_bits::<17>(0);
        if self.mul_b1.p.val().get_bits::<15>(17).any()
            | self.mul_b2.p.val().get_bits::<15>(17).any()
            | self.low_b.val().get_bit(17)
        {
            self.span_b.next = self.ext_max.val();
        }
        self.mul_d1.clock.next = self.clock.val();
        self.mul_d1.reset.next = self.reset.val();
        self.mul_d1.a.next = self.n1_less.val();
        self.mul_d1.b.next = self.dim_taken[0].sd.val();
        self.mul_d2.clock.next = self.clock.val();
        self.mul_d2.reset.next = self.reset.val();
        self.mul_d2.a.next = self.n2_less.val();
        self.mul_d2.b.next = self.dim_taken[1].sd.val();
        self.low_d.next = bit_cast::<18, 17>(self.mul_d1.p.val().get_bits::<17>(0))
            + bit_cast::<18, 17>(self.mul_d2.p.val().get_bits::<17>(0));
        self.span_d.next = self.low_d.val().get_bits::<17>(0);
        if self.mul_d1.p.val().get_bits::<15>(17).any()
            | self.mul_d2.p.val().get_bits::<15>(17).any()
            | self.low_d.val().get_bit(17)
        {
            self.span_d.next = self.ext_max.val();
        }
        self.ext_taken.a.next = self.span_a.val();
        self.ext_taken.b.next = self.span_b.val();
        self.ext_taken.d.next = self.span_d.val();
        if self.ext_pending.q.val() {
            self.shape_ext.d.next = self.ext_taken.ext.val();
        }
        self.ext_write.d.next = self.ext_pending.q.val();
        self.shape_ext_set.next = self.ext_write.q.val();
        self.shape_ext_index.next = self.ext_index.q.val();
        self.shape_set_index.next = self.cmd_arg.q.val().get_bits::<SHAPE_BITS>(0);
        self.shape_set_dim1.next = self.cmd_w0.q.val();
        self.shape_set_dim2.next = self.cmd_w1.q.val();
        self.shape_set_ext.next = self.shape_ext.q.val();
        self.response_valid.d.next = false;
        self.port_opcode.next = self
            .w0
            .val()
            .get_bits::<OPCODE_BITS>(self.opcode_at.val().index());
        self.port_en_qp.next = self.w0.val().get_bits::<8>(self.en_qp_at.val().index());
        self.port_en_mode.next = self.w0.val().get_bits::<2>(self.en_mode_at.val().index());
        self.port_post.next =
            (self.op.val() == self.op_post_sq.val()) | (self.op.val() == self.op_post_rq.val());
        self.port_en_post.next = self.port_post.val()
            & ((self.port_opcode.val() == self.wqe_send_en.val())
                | (self.port_opcode.val() == self.wqe_recv_en.val()))
            & (self.port_en_mode.val() == 2)
            & (self.port_en_qp.val() < self.qps8.val());
        if (self.state.val() == SeqState::Idle) & self.valid.val() {
            self.reads_first.d.next =
                self.port_post.val() | (self.op.val() == self.op_config_qp.val());
            self.posts_enable.d.next = self.port_en_post.val();
            self.first_wq.d.next = (bit_cast::<WB, QB>(self.arg.val().get_bits::<QB>(0)) << 1)
                | bit_cast::<WB, 1>((self.op.val() == self.op_post_rq.val()).into());
            if self.port_en_post.val() {
                self.first_wq.d.next =
                    (bit_cast::<WB, QB>(self.port_en_qp.val().get_bits::<QB>(0)) << 1)
                        | bit_cast::<WB, 1>(
                            (self.port_opcode.val() == self.wqe_recv_en.val()).into(),
                        );
            }
            self.cmd_op.d.next = self.op.val();
            self.cmd_arg.d.next = self.arg.val();
            self.cmd_w0.d.next = self.w0.val();
            self.cmd_w1.d.next = self.w1.val();
            self.chan_bad.d.next = self.rx_channel.armed.val()
                & ((self.rx_channel.qp.val() >= self.qps8.val()) | self.chan_outside.val());
        }

        // What the command names, and the WQE a post writes.
        self.to_rq.next = (self.cmd_op.q.val() == self.op_post_rq.val())
            | ((self.cmd_op.q.val() == self.op_config_qp.val())
                & (self.state.val() == SeqState::HostFinish));
        // Only a post: another command's words (a CONFIG_QP's, say) may look like an enable.
        self.en_post.next = self.posts_enable.q.val();
        self.en_target.next = (bit_cast::<WB, QB>(self.en_qp.val()) << 1)
            | bit_cast::<WB, 1>((self.opcode.val() == self.wqe_recv_en.val()).into());
        self.wq_sel.next = (bit_cast::<WB, QB>(self.cmd_arg.q.val().get_bits::<QB>(0)) << 1)
            | bit_cast::<WB, 1>(self.to_rq.val().into());
        if self.state.val() == SeqState::HostDecode {
            // A mode 2 enable's target is read first.
            self.wq_sel.next = self.first_wq.q.val();
        }
        self.cq_sel.next = self.cmd_arg.q.val().get_bits::<CB>(0);
        self.wq_used.next = self.wq_pi.val() - self.wq_ci.val();
        self.cq_wait.next = (self.opcode.val() == self.wqe_wait.val())
            & !self.wait_kind.val()
            & (self.wait_index.val() < self.cqs8.val());
        self.wait_target.next = self.cq_wait_now.index.val() + self.wait_count.val();
        self.wait_max.next = self.cq_wait_now.count.val();
        if self.wait_count.val() > self.cq_wait_now.count.val() {
            self.wait_max.next = self.wait_count.val();
        }
        self.cross_channel.next = (self.opcode.val() == self.wqe_wait.val())
            | (self.opcode.val() == self.wqe_send_en.val())
            | (self.opcode.val() == self.wqe_recv_en.val())
            | (self.opcode.val() == self.wqe_calc.val());
        // A mode 2 enable: `n` from the head, or (`n = 0`) everything the target has posted.
        self.en_index.next = self.en_pi.q.val();
        self.en_count.next = self.en_pi.q.val() - self.en_head_now.index.val();
        if self.en_value.val() != 0 {
            self.en_index.next = self.en_head_now.index.val() + self.en_value.val();
            self.en_count.next = self.en_head_now.count.val();
            if self.en_value.val() > self.en_head_now.count.val() {
                self.en_count.next = self.en_value.val();
            }
        }
        self.en_refuse.next = !self.en_managed.q.val()
            | ((self.en_pi.q.val() - self.en_index.val()) >= self.half.val());
        self.post_w1.next = self.cmd_w1.q.val();
        if self.en_post.val() {
            self.post_w1.next = (self.cmd_w1.q.val() & self.en_value_keep.val())
                | (bit_cast::<64, 16>(self.en_index.val()) << self.en_value_at.val());
        }
        if self.cq_wait.val() {
            self.post_w1.next = (self.cmd_w1.q.val() & self.wait_count_keep.val())
                | (bit_cast::<64, WAIT_BITS>(self.wait_target.val()) << self.wait_count_at.val());
        }
        self.cfg_cq.next = self.qp_config.sq_cq.val();
        self.cfg_managed.next = self.qp_config.sq_managed.val();
        self.cfg_plain.next = self.qp_config.plain.val();
        self.cfg_rc.next = self.qp_config.rc.val();
        self.cfg_rnr_retry.next = self.qp_config.rnr_retry.val();
        self.cfg_rnr_delay.next = self.qp_config.rnr_delay.val();
        if self.state.val() == SeqState::HostFinish {
            self.cfg_cq.next = self.qp_config.rq_cq.val();
            self.cfg_managed.next = self.qp_config.rq_managed.val();
        }

        // Defaults: nothing requested (the counter and data requests are zero when idle).
        self.next_state.next = self.state.val();
        self.read_wq.next = false;
        self.read_cq.next = false;
        self.post.next = false;
        self.pop.next = false;
        self.configure.next = false;
        self.cnt_rd_addr.next = 0.into();
        self.cnt_wr_en.next = false;
        self.cnt_wr_addr.next = 0.into();
        self.cnt_wr_data.next = 0.into();
        self.dmem_rd_addr.next = 0.into();
        self.dmem_wr_en.next = false;
        self.dmem_wr_addr.next = 0.into();
        self.dmem_wr_data.next = 0.into();
        self.stat_hits.next = 0.into();
        self.chan_set.next = false;
        self.shape_set.next = false;
        self.wait_write.next = false;
        self.en_write.next = false;
        self.answer.next = false;
        self.answer_status.next = self.ok.val();
        self.answer_data.next = 0.into();
        self.refuse_index.next = false;

        // The reset sweep clears the counters (and the wait indices, below).
        if self.state.val() == SeqState::Init {
            self.cnt_wr_en.next = true;
            self.cnt_wr_addr.next = self.sweep_at.val().get_bits::<KB>(0);
        }

        self.running.next = (self.state.val() == SeqState::HostDecode)
            | (self.state.val() == SeqState::HostAccess)
            | (self.state.val() == SeqState::HostFinish);
        self.first.next = self.state.val() == SeqState::HostDecode;
        if self.running.val() {
            self.cnt_rd_addr.next = self.cmd_arg.q.val().get_bits::<KB>(0);
            self.cnt_wr_addr.next = self.cmd_arg.q.val().get_bits::<KB>(0);
            self.cnt_wr_data.next = self.cmd_w0.q.val().get_bits::<32>(0);
            self.dmem_rd_addr.next = self.cmd_arg.q.val().get_bits::<DB>(0);
            self.dmem_wr_addr.next = self.cmd_arg.q.val().get_bits::<DB>(0);
            self.dmem_wr_data.next = self.cmd_w0.q.val();
        }
        if !self.running.val() {
            // Not a host command cycle.
        } else if self.cmd_op.q.val() > self.last_op.val() {
            self.stat_hits.next = self.hit_bad_op.val();
            self.answer.next = true;
            self.answer_status.next = self.bad_op.val();
        } else if self.cmd_op.q.val() == self.op_nop.val() {
            self.answer.next = true;
        } else if (self.cmd_op.q.val() == self.op_post_sq.val())
            | (self.cmd_op.q.val() == self.op_post_rq.val())
        {
            if self.first.val() {
                self.refuse_index.next = self.cmd_arg.q.val() >= self.qps.val();
                self.read_wq.next = true;
                self.next_state.next = SeqState::HostAccess;
            } else if self.en_post.val() & (self.state.val() == SeqState::HostAccess) {
                // The enable's target was read: latch it, read the posting queue.
                self.en_pi.d.next = self.wq_pi.val();
                self.en_managed.d.next = self.wq_managed.val();
                self.read_wq.next = true;
                self.next_state.next = SeqState::HostFinish;
            } else if self.wq_used.val() == self.wq_depth.val() {
                self.stat_hits.next = self.hit_wq_full.val();
                self.answer.next = true;
                self.answer_status.next = self.full.val();
            } else if (self.wq_plain.val() & self.cross_channel.val())
                | (self.en_post.val() & self.en_refuse.val())
            {
                self.stat_hits.next = self.hit_refused.val();
                self.answer.next = true;
                self.answer_status.next = self.refused.val();
            } else {
                self.post.next = true;
                self.wait_write.next = self.cq_wait.val();
                self.en_write.next = self.en_post.val();
                self.answer.next = true;
                self.answer_data.next = bit_cast::<64, 16>(self.wq_pi.val());
            }
        } else if self.cmd_op.q.val() == self.op_poll_cq.val() {
            if self.first.val() {
                self.refuse_index.next = self.cmd_arg.q.val() >= self.cqs.val();
                self.read_cq.next = true;
                self.next_state.next = SeqState::HostAccess;
            } else if self.state.val() == SeqState::HostAccess {
                self.answer.next = self.cq_produced.val() == self.cq_consumed.val();
                self.answer_status.next = self.empty.val();
                self.pop.next = self.cq_produced.val() != self.cq_consumed.val();
                self.next_state.next = SeqState::HostFinish;
            } else {
                self.answer.next = true;
                self.answer_data.next = self.cqe_data.val();
            }
        } else if self.cmd_op.q.val() == self.op_write_mem.val() {
            self.refuse_index.next = self.cmd_arg.q.val() >= self.dmem_words.val();
            self.dmem_wr_en.next = true;
            self.answer.next = true;
        } else if self.cmd_op.q.val() == self.op_read_mem.val() {
            if self.first.val() {
                self.refuse_index.next = self.cmd_arg.q.val() >= self.dmem_words.val();
                self.next_state.next = SeqState::HostAccess;
            } else {
                self.answer.next = true;
                self.answer_data.next = self.dmem_data.val();
            }
        } else if self.cmd_op.q.val() == self.op_write_cnt.val() {
            self.refuse_index.next = self.cmd_arg.q.val() >= self.counters.val();
            self.cnt_wr_en.next = true;
            self.answer.next = true;
        } else if self.cmd_op.q.val() == self.op_read_cnt.val() {
            if self.first.val() {
                self.refuse_index.next = self.cmd_arg.q.val() >= self.counters.val();
                self.next_state.next = SeqState::HostAccess;
            } else {
                self.answer.next = true;
                self.answer_data.next = bit_cast::<64, 32>(self.cnt_data.val());
            }
        } else if self.cmd_op.q.val() == self.op_config_qp.val() {
            if self.first.val() {
                self.refuse_index.next = (self.cmd_arg.q.val() >= self.qps.val())
                    | (self.qp_config.sq_cq.val() >= self.cqs8.val())
                    | (self.qp_config.rq_cq.val() >= self.cqs8.val());
                self.read_wq.next = true;
                self.next_state.next = SeqState::HostAccess;
            } else {
                // HostAccess: the SQ's context (and read the RQ's); HostFinish: the RQ's.
                self.configure.next = true;
                self.en_write.next = self.qp_config.sq_managed.val();
                if self.state.val() == SeqState::HostFinish {
                    self.en_write.next = self.qp_config.rq_managed.val();
                }
                self.read_wq.next = self.state.val() == SeqState::HostAccess;
                self.answer.next = self.state.val() == SeqState::HostFinish;
                self.next_state.next = SeqState::HostFinish;
            }
        } else if self.cmd_op.q.val() == self.op_read_stat.val() {
            self.refuse_index.next = self.cmd_arg.q.val() >= self.stats.val();
            self.answer.next = true;
            self.answer_data.next = bit_cast::<64, STAT_BITS>(self.stat_value.val());
        } else if self.cmd_op.q.val() == self.op_set_channel.val() {
            // An armed channel's QP and buffer must exist.
            self.refuse_index.next =
                (self.cmd_arg.q.val() >= self.counters.val()) | self.chan_bad.q.val();
            self.chan_set.next = true;
            self.answer.next = true;
        } else {
            // SetShape: shape 0 is the one-dimensional CALC, fixed.
            self.refuse_index.next =
                !self.cmd_arg.q.val().any() | (self.cmd_arg.q.val() >= self.shapes.val());
            self.shape_set.next = true;
            self.answer.next = true;
        }

        // A refused index changes nothing; every answer ends the command.
        if self.refuse_index.val() {
            self.read_wq.next = false;
            self.read_cq.next = false;
            self.cnt_wr_en.next = false;
            self.dmem_wr_en.next = false;
            self.chan_set.next = false;
            self.shape_set.next = false;
            self.stat_hits.next = self.hit_bad_index.val();
            self.answer.next = true;
            self.answer_status.next = self.bad_index.val();
            self.answer_data.next = 0.into();
        }
        if self.first.val() {
            // The first read waits for no decode (see `first_wq`); a refused command's is
            // harmless: its answer ends it, and nothing uses what the read returns.
            self.read_wq.next = self.reads_first.q.val();
        }
        if self.answer.val() {
            self.response_valid.d.next = true;
            self.response_status.d.next = self.answer_status.val();
            self.response_data.d.next = self.answer_data.val();
            self.next_state.next = SeqState::Background;
        }
        // A `SET_SHAPE` taken: its outer spans are written two cycles later.
        self.ext_pending.d.next = self.shape_set.val();
        if self.shape_set.val() {
            self.ext_index.d.next = self.shape_set_index.val();
        }

        // The wait memory: cleared by the sweep, written by a post of a CQ WAIT (the last of
        // a group moves the index by the group's largest count).
        self.cq_waits.rd_addr.next = self.wait_index.val().get_bits::<CB>(0);
        self.cq_waits.wr_en.next =
            (self.wait_write.val() | (self.state.val() == SeqState::Init)) & !self.reset.val();
        self.cq_waits.wr_addr.next = self.wait_index.val().get_bits::<CB>(0);
        self.cq_wait_word.index.next = self.cq_wait_now.index.val() + self.wait_max.val();
        self.cq_wait_word.count.next = 0.into();
        if self.wait_more.val() {
            self.cq_wait_word.index.next = self.cq_wait_now.index.val();
            self.cq_wait_word.count.next = self.wait_max.val();
        }
        if self.state.val() == SeqState::Init {
            self.cq_waits.wr_addr.next = self.sweep_at.val().get_bits::<CB>(0);
            self.cq_wait_word.index.next = 0.into();
            self.cq_wait_word.count.next = 0.into();
        }
        self.cq_waits.wr_data.next = self.cq_wait_word.cqw.val();

        // The enable heads: cleared by the sweep, written by a post of a mode 2 enable (the
        // last of a group moves the index by the group's largest count) and by `CONFIG_QP`
        // making a queue managed (the head starts at `ci`).
        self.wq_enables.rd_addr.next = self.en_target.val();
        self.wq_enables.wr_en.next = ((self.en_write.val() & !self.refuse_index.val())
            | (self.state.val() == SeqState::Init))
            & !self.reset.val();
        self.wq_enables.wr_addr.next = self.en_target.val();
        self.en_head_word.index.next = self.en_head_now.index.val() + self.en_count.val();
        self.en_head_word.count.next = 0.into();
        if self.en_more.val() {
            self.en_head_word.index.next = self.en_head_now.index.val();
            self.en_head_word.count.next = self.en_count.val();
        }
        if self.configure.val() {
            self.wq_enables.wr_addr.next = self.wq_sel.val();
            self.en_head_word.index.next = self.wq_ci.val();
            self.en_head_word.count.next = 0.into();
        }
        if self.state.val() == SeqState::Init {
            self.wq_enables.wr_addr.next = self.sweep_at.val().get_bits::<WB>(0);
            self.en_head_word.index.next = 0.into();
            self.en_head_word.count.next = 0.into();
        }
        self.wq_enables.wr_data.next = self.en_head_word.wqen.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::{Wqe, WqeWords};

    /// 4 QPs, 4 CQs, 8 counters, 1024 words.
    type Host = NicHost<2, 3, 2, 3, 10, 3>;

    fn low(h: &mut Host) {
        h.clock.next = Clock { clk: false };
        assert!(simulate(h, 1000));
    }
    fn high(h: &mut Host) {
        h.clock.next = Clock { clk: true };
        assert!(simulate(h, 1000));
    }

    /// Runs the reset sweep (clearing the wait indices), then latches a command in Idle.
    fn take(h: &mut Host, op: HostOp, arg: u64, w0: u64, w1: u64) {
        h.state.next = SeqState::Idle;
        h.valid.next = true;
        h.op.next = op.code().into();
        h.arg.next = arg.into();
        h.w0.next = w0.into();
        h.w1.next = w1.into();
        low(h);
        high(h);
        h.valid.next = false;
    }

    /// The WQE fields the parent's unpack shows during a host command.
    fn show_wqe(h: &mut Host, w0: u64, w1: u64) {
        let f = WqeWords::unpack(w0, w1);
        h.opcode.next = f.opcode.into();
        h.wait_kind.next = f.wait_kind == 1;
        h.wait_more.next = f.wait_more == 1;
        h.wait_index.next = f.wait_index.into();
        h.wait_count.next = f.wait_count.into();
        h.en_qp.next = (f.en_qp & 3).into();
        h.en_more.next = f.en_more == 1;
        h.en_value.next = f.en_value.into();
    }

    fn new_host() -> Host {
        let mut h = Host::default();
        h.connect_all();
        h.reset.next = true;
        low(&mut h);
        high(&mut h);
        h.reset.next = false;
        for k in 0..8u64 {
            h.state.next = SeqState::Init;
            h.sweep_at.next = k.into();
            low(&mut h);
            assert!(h.cnt_wr_en.val(), "the sweep clears the counters");
            high(&mut h);
        }
        h
    }

    /// Posts `(w0, w1)` to the SQ of QP `qp` whose context shows `pi`, `ci`: the requests of
    /// `HostDecode` and `HostAccess`, and the posted `w1`.
    fn post(h: &mut Host, qp: u64, (w0, w1): (u64, u64), pi: u64, ci: u64) -> u64 {
        take(h, HostOp::PostSq, qp, w0, w1);
        show_wqe(h, w0, w1);
        h.state.next = SeqState::HostDecode;
        low(h);
        assert!(h.read_wq.val());
        assert_eq!(h.wq_sel.val().to_u64(), 2 * qp);
        assert_eq!(h.next_state.val(), SeqState::HostAccess);
        high(h);
        h.state.next = SeqState::HostAccess;
        h.wq_pi.next = pi.into();
        h.wq_ci.next = ci.into();
        low(h);
        assert!(h.post.val());
        assert_eq!(h.next_state.val(), SeqState::Background);
        let posted = h.post_w1.val().to_u64();
        high(h);
        low(h);
        assert!(h.rsp_valid.val());
        assert_eq!(h.rsp_status.val().to_u64(), HostStatus::Ok.code());
        assert_eq!(h.rsp_data.val().to_u64(), pi);
        posted
    }

    #[test]
    fn a_cq_wait_is_posted_with_its_absolute_target() {
        let mut h = new_host();
        // Not a WAIT: the WQE is posted as is.
        let send = Wqe::send(3, 2, 1, 0, None, true).encode();
        assert_eq!(post(&mut h, 1, send, 5, 5), send.1);
        // Two WAITs on CQ 2: their counts add up (the module docs of `netcoll_models::nic`).
        let wait = Wqe::wait_cq(2, 3, true).encode();
        let want = |target| {
            let mut f = WqeWords::unpack(wait.0, wait.1);
            f.wait_count = target;
            f.pack()[1]
        };
        assert_eq!(post(&mut h, 0, wait, 0, 0), want(3));
        let wait4 = Wqe::wait_cq(2, 4, false).encode();
        let mut f = WqeWords::unpack(wait4.0, wait4.1);
        f.wait_count = 7;
        assert_eq!(post(&mut h, 0, wait4, 1, 0), f.pack()[1]);
        // A counter WAIT keeps its threshold.
        let wait_cnt = Wqe::wait_counter(2, 9, false).encode();
        assert_eq!(post(&mut h, 0, wait_cnt, 2, 0), wait_cnt.1);
    }

    /// libmlx5's grouping: `more` WAITs count from the same index, the last of the group moves
    /// it by the group's largest count (targets worked out by hand).
    #[test]
    fn grouped_cq_waits_count_from_one_index() {
        let mut h = new_host();
        let target = |h: &mut Host, w: Wqe, pi| {
            let posted = post(h, 0, w.encode(), pi, 0);
            WqeWords::unpack(0, posted).wait_count
        };
        assert_eq!(target(&mut h, Wqe::wait_cq(1, 2, true).with_more(), 0), 2);
        assert_eq!(target(&mut h, Wqe::wait_cq(1, 5, true).with_more(), 1), 5);
        assert_eq!(target(&mut h, Wqe::wait_cq(1, 1, true), 2), 1);
        // The group's largest count was 5: the next WAIT counts from 5.
        assert_eq!(target(&mut h, Wqe::wait_cq(1, 2, true), 3), 7);
        // Another CQ keeps its own index.
        assert_eq!(target(&mut h, Wqe::wait_cq(3, 4, true), 4), 4);
        assert_eq!(target(&mut h, Wqe::wait_cq(1, 0, true), 5), 7);
    }

    /// A post of cross-channel work to a plain QP answers `REFUSED`, counts `HostRefused`,
    /// and neither posts nor touches a CQ's wait state; other work is posted.
    #[test]
    fn a_plain_qp_refuses_cross_channel_work() {
        let mut h = new_host();
        let calc = Wqe {
            opcode: Opcode::Calc.code(),
            ..Default::default()
        };
        for w in [
            Wqe::wait_cq(2, 3, true),
            Wqe::enable(false, 1, false, 1, true),
            Wqe::enable(true, 1, true, 1, true),
            calc,
        ] {
            let (w0, w1) = w.encode();
            take(&mut h, HostOp::PostSq, 1, w0, w1);
            show_wqe(&mut h, w0, w1);
            h.state.next = SeqState::HostDecode;
            low(&mut h);
            high(&mut h);
            h.state.next = SeqState::HostAccess;
            h.wq_pi.next = 0.into();
            h.wq_ci.next = 0.into();
            h.wq_plain.next = true;
            low(&mut h);
            assert!(!h.post.val(), "{w:?}");
            let refused = (
                HostStatus::Refused.code(),
                0,
                1u64 << Stat::HostRefused.code(),
            );
            assert_eq!(answer(&mut h), refused, "{w:?}");
        }
        // The refused WAIT claimed nothing: a WAIT on a cross-channel QP counts from 0; a NOP
        // posts on the plain one.
        h.wq_plain.next = false;
        assert_eq!(
            WqeWords::unpack(0, post(&mut h, 0, Wqe::wait_cq(2, 3, true).encode(), 0, 0))
                .wait_count,
            3
        );
        h.wq_plain.next = true;
        let nop = Wqe::nop(true).encode();
        assert_eq!(post(&mut h, 1, nop, 0, 0), nop.1);
    }

    /// Posts a mode 2 enable `w` to the SQ of QP 0, its target queue showing `target_pi` and
    /// `managed`, the posting queue `pi` (not full): the three states' requests, then the
    /// answer's status and, if posted, the WQE's words.
    fn post_enable(
        h: &mut Host,
        w: Wqe,
        target_pi: u64,
        managed: bool,
        pi: u64,
    ) -> (u64, u64, u64) {
        let (w0, w1) = w.encode();
        take(h, HostOp::PostSq, 0, w0, w1);
        show_wqe(h, w0, w1);
        h.state.next = SeqState::HostDecode;
        low(h);
        assert!(h.read_wq.val());
        let target = 2 * w.qp + (w.opcode == Opcode::RecvEn.code()) as u64;
        assert_eq!(h.wq_sel.val().to_u64(), target, "the target is read first");
        high(h);
        h.state.next = SeqState::HostAccess;
        h.wq_pi.next = target_pi.into();
        h.wq_ci.next = 0.into();
        h.wq_managed.next = managed;
        low(h);
        assert!(h.read_wq.val() && !h.post.val() && !h.rsp_valid.val());
        assert_eq!(h.wq_sel.val().to_u64(), 0, "then the posting queue");
        assert_eq!(h.next_state.val(), SeqState::HostFinish);
        high(h);
        h.state.next = SeqState::HostFinish;
        h.wq_pi.next = pi.into();
        h.wq_ci.next = pi.into();
        h.wq_managed.next = false;
        low(h);
        let posted = (h.command_w0.val().to_u64(), h.post_w1.val().to_u64());
        let post = h.post.val();
        let (status, data, _) = answer(h);
        if post {
            assert_eq!((status, data), (HostStatus::Ok.code(), pi));
            (status, posted.0, posted.1)
        } else {
            (status, 0, 0)
        }
    }

    /// Mode 2 enables (libmlx5's): converted when posted into mode 3 with an absolute index,
    /// counted from the target's enable head, refused for an unmanaged target or beyond what
    /// it has posted (indices worked out by hand from the spec).
    #[test]
    fn enables_are_posted_with_their_absolute_index() {
        let mut h = new_host();
        let refused = (HostStatus::Refused.code(), 0, 0);
        let en = |count| Wqe::enable_posted(false, 1, count, true);
        let posted = |w: Wqe, index: u64| {
            let (w0, w1) = w.encode();
            let mut f = WqeWords::unpack(w0, w1);
            f.en_mode = 3;
            let w0 = f.pack()[0];
            (
                HostStatus::Ok.code(),
                w0,
                (w1 & !(0xFFFF << 32)) | index << 32,
            )
        };
        assert_eq!(
            post_enable(&mut h, en(1), 4, false, 0),
            refused,
            "not managed"
        );
        assert_eq!(post_enable(&mut h, en(2), 4, true, 0), posted(en(2), 2));
        assert_eq!(
            post_enable(&mut h, en(3), 4, true, 1),
            refused,
            "5 > 4 posted"
        );
        let first = en(1).with_more();
        assert_eq!(post_enable(&mut h, first, 4, true, 1), posted(first, 3));
        assert_eq!(post_enable(&mut h, en(2), 4, true, 2), posted(en(2), 4));
        assert_eq!(post_enable(&mut h, en(0), 6, true, 3), posted(en(0), 6));
        assert_eq!(
            post_enable(&mut h, en(1), 6, true, 4),
            refused,
            "nothing beyond 6"
        );
        // The RQ of QP 1 has its own head.
        let recv = Wqe::enable_posted(true, 1, 0, true);
        assert_eq!(post_enable(&mut h, recv, 1, true, 4), posted(recv, 1));
        let recv1 = Wqe::enable_posted(true, 1, 1, true);
        assert_eq!(post_enable(&mut h, recv1, 2, true, 5), posted(recv1, 2));
        // A CONFIG_QP whose word looks like a mode 2 RECV_EN of QP 6 still reads its own SQ.
        take(&mut h, HostOp::ConfigQp, 1, 0x2_0605, 0);
        show_wqe(&mut h, 0x2_0605, 0);
        h.state.next = SeqState::HostDecode;
        low(&mut h);
        assert_eq!(h.wq_sel.val().to_u64(), 2);
        assert_eq!(h.command_w0.val().to_u64(), 0x2_0605);
    }

    fn answer(h: &mut Host) -> (u64, u64, u64) {
        let s = h.stat_hits.val().to_u64();
        high(h);
        low(h);
        assert!(h.rsp_valid.val());
        (h.rsp_status.val().to_u64(), h.rsp_data.val().to_u64(), s)
    }

    /// `SET_CHANNEL`: an armed channel's QP and buffer are checked (4 QPs, 1024 words), a
    /// disarmed one is written as given; only the `RxChannel` fields are written.
    #[test]
    fn set_channel_checks_an_armed_channel() {
        let mut h = new_host();
        let armed = 1u64 << 40;
        for (w0, ok) in [
            (1000 | 24 << 16 | 3 << 32 | armed, true), // ends at 1024
            (1000 | 25 << 16 | 3 << 32 | armed, false),
            (4 << 32 | armed, false),
            (1000 | 25 << 16 | 9 << 32, true),
            (!armed, true),
        ] {
            take(&mut h, HostOp::SetChannel, 7, w0, 0);
            h.state.next = SeqState::HostDecode;
            low(&mut h);
            assert_eq!(h.chan_set.val(), ok, "{w0:#x}");
            if ok {
                assert_eq!(h.chan_set_index.val().to_u64(), 7);
                assert_eq!(h.chan_set_word.val().to_u64(), w0 & ((1 << 41) - 1));
            }
            let status = if ok {
                HostStatus::Ok
            } else {
                HostStatus::BadIndex
            };
            assert_eq!(answer(&mut h).0, status.code(), "{w0:#x}");
        }
    }

    #[test]
    fn refused_commands_answer_and_count() {
        let mut h = new_host();
        let hit = |s: Stat| 1u64 << s.code();
        // A full send queue.
        take(&mut h, HostOp::PostRq, 3, 0, 0);
        h.state.next = SeqState::HostDecode;
        low(&mut h);
        assert_eq!(h.wq_sel.val().to_u64(), 7, "the RQ of QP 3");
        high(&mut h);
        h.state.next = SeqState::HostAccess;
        h.wq_pi.next = 0x0012.into();
        h.wq_ci.next = 0x0002.into();
        low(&mut h);
        assert!(!h.post.val());
        let full = (HostStatus::Full.code(), 0, hit(Stat::WqFull));
        assert_eq!(answer(&mut h), full);
        // A QP out of range, an unknown command, a statistic out of range, a channel of a
        // counter out of range (8 counters).
        for (op, arg) in [
            (HostOp::PostSq.code(), 4),
            (12, 0),
            (HostOp::ReadStat.code(), 12),
            (HostOp::SetChannel.code(), 8),
        ] {
            h.state.next = SeqState::Idle;
            h.valid.next = true;
            h.op.next = op.into();
            h.arg.next = arg.into();
            low(&mut h);
            high(&mut h);
            h.valid.next = false;
            h.state.next = SeqState::HostDecode;
            low(&mut h);
            // A post out of range still reads (`first_wq`), harmlessly: nothing is written.
            assert!(!h.post.val() && !h.configure.val() && !h.chan_set.val());
            assert_eq!(h.read_wq.val(), op == HostOp::PostSq.code());
            let want = if op == 12 {
                (HostStatus::BadOp.code(), 0, hit(Stat::HostBadOp))
            } else {
                (HostStatus::BadIndex.code(), 0, hit(Stat::HostBadIndex))
            };
            assert_eq!(answer(&mut h), want, "op {op} arg {arg}");
        }
        // READ_STAT answers the bank's value; WRITE_MEM writes at once.
        take(&mut h, HostOp::ReadStat, 5, 0, 0);
        h.state.next = SeqState::HostDecode;
        h.stat_value.next = 0x1234.into();
        low(&mut h);
        assert_eq!(h.stat_sel.val().to_u64(), 5);
        assert_eq!(answer(&mut h), (HostStatus::Ok.code(), 0x1234, 0));
        take(&mut h, HostOp::WriteMem, 1023, 0xfeed, 0);
        h.state.next = SeqState::HostDecode;
        low(&mut h);
        assert!(h.dmem_wr_en.val());
        assert_eq!(h.dmem_wr_addr.val().to_u64(), 1023);
        assert_eq!(h.dmem_wr_data.val().to_u64(), 0xfeed);
        answer(&mut h);
        // Outside a host command nothing is requested.
        h.state.next = SeqState::RxData;
        low(&mut h);
        assert!(!h.dmem_wr_en.val() && h.dmem_wr_addr.val().to_u64() == 0);
    }

    #[test]
    fn config_qp_writes_the_sq_then_the_rq() {
        let mut h = new_host();
        let cfg = netcoll_models::nic::QpConfig {
            sq_cq: 1,
            rq_cq: 3,
            sq_managed: 0,
            rq_managed: 1,
            plain: 1,
            rc: 1,
            rnr_retry: 6,
            rnr_delay: 0xbeef,
        };
        take(&mut h, HostOp::ConfigQp, 2, cfg.pack()[0], 0);
        h.state.next = SeqState::HostDecode;
        low(&mut h);
        assert!(h.read_wq.val() && !h.configure.val());
        assert_eq!(h.wq_sel.val().to_u64(), 4);
        high(&mut h);
        h.state.next = SeqState::HostAccess;
        low(&mut h);
        assert!(
            h.configure.val() && h.read_wq.val(),
            "writes the SQ, reads the RQ"
        );
        assert_eq!(h.wq_sel.val().to_u64(), 4);
        assert_eq!((h.cfg_cq.val().to_u64(), h.cfg_managed.val()), (1, false));
        assert!(
            h.cfg_plain.val(),
            "both queues' contexts get the QP's plain bit"
        );
        assert_eq!(h.next_state.val(), SeqState::HostFinish);
        high(&mut h);
        h.state.next = SeqState::HostFinish;
        low(&mut h);
        assert!(h.configure.val() && !h.read_wq.val());
        assert_eq!(h.wq_sel.val().to_u64(), 5);
        assert_eq!((h.cfg_cq.val().to_u64(), h.cfg_managed.val()), (3, true));
        assert!(h.cfg_plain.val());
        assert!(h.cfg_rc.val(), "and its reliability settings");
        assert_eq!(
            (
                h.cfg_rnr_retry.val().to_u64(),
                h.cfg_rnr_delay.val().to_u64()
            ),
            (6, 0xbeef)
        );
        assert_eq!(answer(&mut h), (HostStatus::Ok.code(), 0, 0));
        // A CQ out of range is refused at once.
        let bad = netcoll_models::nic::QpConfig { rq_cq: 4, ..cfg };
        take(&mut h, HostOp::ConfigQp, 2, bad.pack()[0], 0);
        h.state.next = SeqState::HostDecode;
        low(&mut h);
        assert!(!h.configure.val() && h.next_state.val() == SeqState::Background);
        assert_eq!(answer(&mut h).0, HostStatus::BadIndex.code());
    }
}
