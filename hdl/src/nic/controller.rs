//! # NIC cross-channel controller (RTL)
//!
//! The rust-hdl description of the NIC specified in `netcoll_models::nic` (read its module docs
//! for the work requests, completions, messages, host commands and errors). The cycle model
//! `netcoll_models::nic::model` documents the micro-architecture this block implements register
//! for register — one sequencer owning single-ported memories — and is compared with it every
//! output every cycle.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous, active high);
//! - host commands: `host_valid`, `host_op` (4), `host_arg` (16), `host_w0`, `host_w1` (64);
//! - network in: `rx_valid`, `rx_kind`, `rx_src`, `rx_src_qp`, `rx_qp` (8), `rx_cnt_en`,
//!   `rx_cnt` (8), `rx_tag` (16), `rx_empty`, `rx_last`, `rx_data` (64);
//! - `tx_ready`.
//!
//! # Outputs
//! - `host_ready`, `host_rsp_valid`, `host_rsp_status` (3), `host_rsp_data` (64);
//! - `rx_ready`;
//! - network out: `tx_valid`, `tx_kind`, `tx_dst`, `tx_src_qp`, `tx_qp` (8), `tx_cnt_en`,
//!   `tx_cnt` (8), `tx_tag` (16), `tx_empty`, `tx_last`, `tx_data` (64).
//!
//! Every output comes from a register or from the sequencer state alone, so a NIC can be wired
//! to another (or to a link model) without combinational paths between them.
//!
//! Generic widths (stable Rust cannot derive them, so [`crate::nic::build`] passes them): `QB` =
//! log2(qps), `WB` = QB + 1 (work-queue index), `WEB` = WB + 4 (WQE slot), `CB` = log2(cqs),
//! `CEB` = CB + 5 (CQE slot), `KB` = log2(counters), `DB` = log2(dmem_words), `SWB` =
//! max(WB, CB, KB) (reset sweep).

use crate::alu::ReduceAlu1;
use crate::prim::{Mem, Reg};
use rust_hdl::prelude::*;

/// The NIC, monomorphised per supported parameter set (see the module docs for the widths).
#[derive(LogicBlock)]
pub struct Nic<
    const QB: usize,
    const WB: usize,
    const WEB: usize,
    const CB: usize,
    const CEB: usize,
    const KB: usize,
    const DB: usize,
    const SWB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub host_valid: Signal<In, bool>,
    pub host_op: Signal<In, Bits<4>>,
    pub host_arg: Signal<In, Bits<16>>,
    pub host_w0: Signal<In, Bits<64>>,
    pub host_w1: Signal<In, Bits<64>>,
    pub rx_valid: Signal<In, bool>,
    pub rx_kind: Signal<In, bool>,
    pub rx_src: Signal<In, Bits<8>>,
    pub rx_src_qp: Signal<In, Bits<8>>,
    pub rx_qp: Signal<In, Bits<8>>,
    pub rx_cnt_en: Signal<In, bool>,
    pub rx_cnt: Signal<In, Bits<8>>,
    pub rx_tag: Signal<In, Bits<16>>,
    pub rx_empty: Signal<In, bool>,
    pub rx_last: Signal<In, bool>,
    pub rx_data: Signal<In, Bits<64>>,
    pub tx_ready: Signal<In, bool>,
    pub host_ready: Signal<Out, bool>,
    pub host_rsp_valid: Signal<Out, bool>,
    pub host_rsp_status: Signal<Out, Bits<3>>,
    pub host_rsp_data: Signal<Out, Bits<64>>,
    pub rx_ready: Signal<Out, bool>,
    pub tx_valid: Signal<Out, bool>,
    pub tx_kind: Signal<Out, bool>,
    pub tx_dst: Signal<Out, Bits<8>>,
    pub tx_src_qp: Signal<Out, Bits<8>>,
    pub tx_qp: Signal<Out, Bits<8>>,
    pub tx_cnt_en: Signal<Out, bool>,
    pub tx_cnt: Signal<Out, Bits<8>>,
    pub tx_tag: Signal<Out, Bits<16>>,
    pub tx_empty: Signal<Out, bool>,
    pub tx_last: Signal<Out, bool>,
    pub tx_data: Signal<Out, Bits<64>>,
    // Registers.
    st: Reg<Bits<5>>,
    sw: Reg<Bits<8>>,
    bg_rx: Reg<bool>,
    sq_ptr: Reg<Bits<8>>,
    h_op: Reg<Bits<4>>,
    h_arg: Reg<Bits<16>>,
    h_w0: Reg<Bits<64>>,
    h_w1: Reg<Bits<64>>,
    rsp_valid: Reg<bool>,
    rsp_status: Reg<Bits<3>>,
    rsp_data: Reg<Bits<64>>,
    wq: Reg<Bits<8>>,
    c_pi: Reg<Bits<16>>,
    c_ci: Reg<Bits<16>>,
    c_ei: Reg<Bits<16>>,
    c_man: Reg<bool>,
    c_cq: Reg<Bits<8>>,
    q_prod: Reg<Bits<32>>,
    q_cons: Reg<Bits<32>>,
    w0: Reg<Bits<64>>,
    w1: Reg<Bits<64>>,
    k_status: Reg<Bits<4>>,
    k_len: Reg<Bits<16>>,
    k_op: Reg<Bits<4>>,
    k_qp: Reg<Bits<8>>,
    k_recv: Reg<bool>,
    k_index: Reg<Bits<16>>,
    k_want: Reg<bool>,
    k_wq: Reg<bool>,
    k_pend: Reg<bool>,
    r_src: Reg<Bits<8>>,
    r_src_qp: Reg<Bits<8>>,
    r_qp: Reg<Bits<8>>,
    r_cnt_en: Reg<bool>,
    r_cnt: Reg<Bits<8>>,
    r_tag: Reg<Bits<16>>,
    r_nak: Reg<bool>,
    r_ovf: Reg<bool>,
    ix: Reg<Bits<16>>,
    nx: Reg<Bits<16>>,
    pa: Reg<Bits<16>>,
    pb: Reg<Bits<16>>,
    pd: Reg<Bits<16>>,
    cap: Reg<Bits<16>>,
    va: Reg<Bits<64>>,
    ia: Reg<Bits<64>>,
    vb: Reg<Bits<64>>,
    ib: Reg<Bits<64>>,
    t_nak: Reg<bool>,
    t_valid: Reg<bool>,
    t_kind: Reg<bool>,
    t_dst: Reg<Bits<8>>,
    t_src_qp: Reg<Bits<8>>,
    t_qp: Reg<Bits<8>>,
    t_cnt_en: Reg<bool>,
    t_cnt: Reg<Bits<8>>,
    t_tag: Reg<Bits<16>>,
    t_empty: Reg<bool>,
    t_last: Reg<bool>,
    t_data: Reg<Bits<64>>,
    stat0: Reg<Bits<32>>,
    stat1: Reg<Bits<32>>,
    stat2: Reg<Bits<32>>,
    stat3: Reg<Bits<32>>,
    stat4: Reg<Bits<32>>,
    stat5: Reg<Bits<32>>,
    stat6: Reg<Bits<32>>,
    stat7: Reg<Bits<32>>,
    // Memories (see the cycle model's docs for their words).
    wqc: Mem<Bits<64>, WB>,
    wqe0: Mem<Bits<64>, WEB>,
    wqe1: Mem<Bits<64>, WEB>,
    cqp: Mem<Bits<64>, CB>,
    cqw: Mem<Bits<32>, CB>,
    cqe: Mem<Bits<64>, CEB>,
    cnt: Mem<Bits<32>, KB>,
    dmem: Mem<Bits<64>, DB>,
    /// The reduction ALU (one lane), instantiated as module `reduce_alu_l1`.
    alu: ReduceAlu1,
    // Combinational signals.
    x_pi: Signal<Local, Bits<16>>,
    x_ci: Signal<Local, Bits<16>>,
    x_ei: Signal<Local, Bits<16>>,
    x_man: Signal<Local, bool>,
    x_cq: Signal<Local, Bits<8>>,
    x_gap: Signal<Local, Bits<16>>,
    x_used: Signal<Local, Bits<16>>,
    x_run: Signal<Local, bool>,
    x_slot: Signal<Local, Bits<WEB>>,
    x_pslot: Signal<Local, Bits<WEB>>,
    y_prod: Signal<Local, Bits<32>>,
    y_cons: Signal<Local, Bits<32>>,
    y_used: Signal<Local, Bits<32>>,
    y_full: Signal<Local, bool>,
    cur_w0: Signal<Local, Bits<64>>,
    cur_w1: Signal<Local, Bits<64>>,
    d_opc: Signal<Local, Bits<4>>,
    d_sig: Signal<Local, bool>,
    d_addr: Signal<Local, Bits<16>>,
    d_len: Signal<Local, Bits<16>>,
    d_wmode: Signal<Local, bool>,
    d_widx: Signal<Local, Bits<8>>,
    d_eqp: Signal<Local, Bits<8>>,
    d_emode: Signal<Local, bool>,
    d_aop: Signal<Local, Bits<4>>,
    d_peer: Signal<Local, bool>,
    d_cnt: Signal<Local, Bits<16>>,
    d_a: Signal<Local, Bits<16>>,
    d_b: Signal<Local, Bits<16>>,
    d_sa: Signal<Local, Bits<8>>,
    d_sb: Signal<Local, Bits<8>>,
    d_dst: Signal<Local, Bits<16>>,
    d_loc: Signal<Local, bool>,
    d_buf_end: Signal<Local, Bits<17>>,
    d_buf_bad: Signal<Local, bool>,
    d_last: Signal<Local, Bits<16>>,
    d_offa: Signal<Local, Bits<32>>,
    d_offb: Signal<Local, Bits<32>>,
    d_loc34: Signal<Local, Bits<34>>,
    d_span: Signal<Local, Bits<34>>,
    d_aend: Signal<Local, Bits<34>>,
    d_bend: Signal<Local, Bits<34>>,
    d_dend: Signal<Local, Bits<34>>,
    d_calc_bad: Signal<Local, bool>,
    h_wq: Signal<Local, Bits<8>>,
    h_cq: Signal<Local, Bits<8>>,
    h_cqwait: Signal<Local, bool>,
    h_target: Signal<Local, Bits<32>>,
    h_w1x: Signal<Local, Bits<64>>,
    cfg_cq: Signal<Local, Bits<8>>,
    cfg_man: Signal<Local, bool>,
    cfg_ctx: Signal<Local, Bits<64>>,
    stat_sel: Signal<Local, Bits<32>>,
    wt_diff: Signal<Local, Bits<32>>,
    wt_ok: Signal<Local, bool>,
    en_val: Signal<Local, Bits<16>>,
    en_cand: Signal<Local, Bits<16>>,
    en_gap: Signal<Local, Bits<16>>,
    en_new: Signal<Local, Bits<16>>,
    en_tgt: Signal<Local, Bits<8>>,
    cqe_word: Signal<Local, Bits<64>>,
    ctx_done: Signal<Local, Bits<64>>,
    rx_store: Signal<Local, bool>,
    rx_ovf: Signal<Local, bool>,
    cpl_go: Signal<Local, bool>,
    cpl_status: Signal<Local, Bits<4>>,
    cpl_st: Signal<Local, Bits<5>>,
    cpl_len: Signal<Local, Bits<16>>,
    snd_go: Signal<Local, bool>,
    snd_addr: Signal<Local, Bits<16>>,
    snd_len: Signal<Local, Bits<16>>,
    rsp_go: Signal<Local, bool>,
    rsp_st: Signal<Local, Bits<3>>,
    rsp_dat: Signal<Local, Bits<64>>,
    st_inc: Signal<Local, bool>,
    st_id: Signal<Local, Bits<3>>,
    adv_sq: Signal<Local, bool>,
    cn_go: Signal<Local, bool>,
    pa1: Signal<Local, Bits<DB>>,
    pb1: Signal<Local, Bits<DB>>,
    pd1: Signal<Local, Bits<DB>>,
    rx_wq: Signal<Local, Bits<8>>,
    sq_wq: Signal<Local, Bits<8>>,
    h_wq1: Signal<Local, Bits<WB>>,
    d_rsvd: Signal<Local, bool>,
    // Constants: state codes, opcodes, statuses, parameter-derived limits.
    s_init: Constant<Bits<5>>,
    s_idle: Constant<Bits<5>>,
    s_bg: Constant<Bits<5>>,
    s_h1: Constant<Bits<5>>,
    s_h2: Constant<Bits<5>>,
    s_h3: Constant<Bits<5>>,
    s_sq1: Constant<Bits<5>>,
    s_sq2: Constant<Bits<5>>,
    s_wt: Constant<Bits<5>>,
    s_en: Constant<Bits<5>>,
    s_cpl: Constant<Bits<5>>,
    s_tx1: Constant<Bits<5>>,
    s_tx2: Constant<Bits<5>>,
    s_rx1: Constant<Bits<5>>,
    s_rx2: Constant<Bits<5>>,
    s_rx_data: Constant<Bits<5>>,
    s_rx_cnt: Constant<Bits<5>>,
    s_drop: Constant<Bits<5>>,
    s_nk1: Constant<Bits<5>>,
    s_nk2: Constant<Bits<5>>,
    s_ca: Constant<Bits<5>>,
    s_cb: Constant<Bits<5>>,
    s_cai: Constant<Bits<5>>,
    s_cbi: Constant<Bits<5>>,
    s_cx: Constant<Bits<5>>,
    s_cc: Constant<Bits<5>>,
    s_cw: Constant<Bits<5>>,
    s_cwi: Constant<Bits<5>>,
    s_tx0: Constant<Bits<5>>,
    op_nop: Constant<Bits<4>>,
    op_send: Constant<Bits<4>>,
    op_recv: Constant<Bits<4>>,
    op_wait: Constant<Bits<4>>,
    op_send_en: Constant<Bits<4>>,
    op_recv_en: Constant<Bits<4>>,
    op_calc: Constant<Bits<4>>,
    cs_ok: Constant<Bits<4>>,
    cs_bad_opcode: Constant<Bits<4>>,
    cs_bad_index: Constant<Bits<4>>,
    cs_bad_addr: Constant<Bits<4>>,
    cs_len_err: Constant<Bits<4>>,
    cs_remote_discard: Constant<Bits<4>>,
    cs_bad_arg: Constant<Bits<4>>,
    cs_not_ready: Constant<Bits<4>>,
    ho_nop: Constant<Bits<4>>,
    ho_post_sq: Constant<Bits<4>>,
    ho_post_rq: Constant<Bits<4>>,
    ho_poll_cq: Constant<Bits<4>>,
    ho_write_mem: Constant<Bits<4>>,
    ho_read_mem: Constant<Bits<4>>,
    ho_write_cnt: Constant<Bits<4>>,
    ho_read_cnt: Constant<Bits<4>>,
    ho_config_qp: Constant<Bits<4>>,
    hs_ok: Constant<Bits<3>>,
    hs_bad_op: Constant<Bits<3>>,
    hs_bad_index: Constant<Bits<3>>,
    hs_full: Constant<Bits<3>>,
    hs_empty: Constant<Bits<3>>,
    sid_host_bad_op: Constant<Bits<3>>,
    sid_host_bad_index: Constant<Bits<3>>,
    sid_wq_full: Constant<Bits<3>>,
    sid_cq_stall: Constant<Bits<3>>,
    sid_error_cqe: Constant<Bits<3>>,
    sid_rx_discard: Constant<Bits<3>>,
    sid_nak_received: Constant<Bits<3>>,
    sid_cq_overrun: Constant<Bits<3>>,
    k_qps8: Constant<Bits<8>>,
    k_qps16: Constant<Bits<16>>,
    k_cqs8: Constant<Bits<8>>,
    k_cqs16: Constant<Bits<16>>,
    k_cnts8: Constant<Bits<8>>,
    k_cnts16: Constant<Bits<16>>,
    k_dmw16: Constant<Bits<16>>,
    k_dmw17: Constant<Bits<17>>,
    k_dmw34: Constant<Bits<34>>,
    k_qmask: Constant<Bits<8>>,
    k_swlast: Constant<Bits<8>>,
    k_hi48: Constant<Bits<64>>,
    k_ei_clear: Constant<Bits<64>>,
    k_lo32: Constant<Bits<64>>,
    k_half32: Constant<Bits<32>>,
    k_half16: Constant<Bits<16>>,
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
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
    > Nic<QB, WB, WEB, CB, CEB, KB, DB, SWB>
{
    /// A NIC with `qps` queue pairs, `cqs` completion queues, `cnts` counters and `dmw` words
    /// of data memory. Panics when the generic widths do not match those counts (the
    /// monomorphisations in [`crate::nic::build`] are the only callers).
    pub fn new(qps: u64, cqs: u64, cnts: u64, dmw: u64) -> Self {
        assert_eq!(1u64 << QB, qps, "QB must be log2(qps)");
        assert_eq!(WB, QB + 1, "WB must be QB + 1");
        assert_eq!(WEB, WB + 4, "WEB must be WB + log2(WQ_DEPTH)");
        assert_eq!(1u64 << CB, cqs, "CB must be log2(cqs)");
        assert_eq!(CEB, CB + 5, "CEB must be CB + log2(CQ_DEPTH)");
        assert_eq!(1u64 << KB, cnts, "KB must be log2(counters)");
        assert_eq!(1u64 << DB, dmw, "DB must be log2(dmem_words)");
        assert_eq!(
            SWB,
            WB.max(CB).max(KB),
            "SWB must be the widest context index"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            host_valid: Default::default(),
            host_op: Default::default(),
            host_arg: Default::default(),
            host_w0: Default::default(),
            host_w1: Default::default(),
            rx_valid: Default::default(),
            rx_kind: Default::default(),
            rx_src: Default::default(),
            rx_src_qp: Default::default(),
            rx_qp: Default::default(),
            rx_cnt_en: Default::default(),
            rx_cnt: Default::default(),
            rx_tag: Default::default(),
            rx_empty: Default::default(),
            rx_last: Default::default(),
            rx_data: Default::default(),
            tx_ready: Default::default(),
            host_ready: Default::default(),
            host_rsp_valid: Default::default(),
            host_rsp_status: Default::default(),
            host_rsp_data: Default::default(),
            rx_ready: Default::default(),
            tx_valid: Default::default(),
            tx_kind: Default::default(),
            tx_dst: Default::default(),
            tx_src_qp: Default::default(),
            tx_qp: Default::default(),
            tx_cnt_en: Default::default(),
            tx_cnt: Default::default(),
            tx_tag: Default::default(),
            tx_empty: Default::default(),
            tx_last: Default::default(),
            tx_data: Default::default(),
            st: Default::default(),
            sw: Default::default(),
            bg_rx: Default::default(),
            sq_ptr: Default::default(),
            h_op: Default::default(),
            h_arg: Default::default(),
            h_w0: Default::default(),
            h_w1: Default::default(),
            rsp_valid: Default::default(),
            rsp_status: Default::default(),
            rsp_data: Default::default(),
            wq: Default::default(),
            c_pi: Default::default(),
            c_ci: Default::default(),
            c_ei: Default::default(),
            c_man: Default::default(),
            c_cq: Default::default(),
            q_prod: Default::default(),
            q_cons: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            k_status: Default::default(),
            k_len: Default::default(),
            k_op: Default::default(),
            k_qp: Default::default(),
            k_recv: Default::default(),
            k_index: Default::default(),
            k_want: Default::default(),
            k_wq: Default::default(),
            k_pend: Default::default(),
            r_src: Default::default(),
            r_src_qp: Default::default(),
            r_qp: Default::default(),
            r_cnt_en: Default::default(),
            r_cnt: Default::default(),
            r_tag: Default::default(),
            r_nak: Default::default(),
            r_ovf: Default::default(),
            ix: Default::default(),
            nx: Default::default(),
            pa: Default::default(),
            pb: Default::default(),
            pd: Default::default(),
            cap: Default::default(),
            va: Default::default(),
            ia: Default::default(),
            vb: Default::default(),
            ib: Default::default(),
            t_nak: Default::default(),
            t_valid: Default::default(),
            t_kind: Default::default(),
            t_dst: Default::default(),
            t_src_qp: Default::default(),
            t_qp: Default::default(),
            t_cnt_en: Default::default(),
            t_cnt: Default::default(),
            t_tag: Default::default(),
            t_empty: Default::default(),
            t_last: Default::default(),
            t_data: Default::default(),
            stat0: Default::default(),
            stat1: Default::default(),
            stat2: Default::default(),
            stat3: Default::default(),
            stat4: Default::default(),
            stat5: Default::default(),
            stat6: Default::default(),
            stat7: Default::default(),
            wqc: Default::default(),
            wqe0: Default::default(),
            wqe1: Default::default(),
            cqp: Default::default(),
            cqw: Default::default(),
            cqe: Default::default(),
            cnt: Default::default(),
            dmem: Default::default(),
            alu: Default::default(),
            x_pi: Default::default(),
            x_ci: Default::default(),
            x_ei: Default::default(),
            x_man: Default::default(),
            x_cq: Default::default(),
            x_gap: Default::default(),
            x_used: Default::default(),
            x_run: Default::default(),
            x_slot: Default::default(),
            x_pslot: Default::default(),
            y_prod: Default::default(),
            y_cons: Default::default(),
            y_used: Default::default(),
            y_full: Default::default(),
            cur_w0: Default::default(),
            cur_w1: Default::default(),
            d_opc: Default::default(),
            d_sig: Default::default(),
            d_addr: Default::default(),
            d_len: Default::default(),
            d_wmode: Default::default(),
            d_widx: Default::default(),
            d_eqp: Default::default(),
            d_emode: Default::default(),
            d_aop: Default::default(),
            d_peer: Default::default(),
            d_cnt: Default::default(),
            d_a: Default::default(),
            d_b: Default::default(),
            d_sa: Default::default(),
            d_sb: Default::default(),
            d_dst: Default::default(),
            d_loc: Default::default(),
            d_buf_end: Default::default(),
            d_buf_bad: Default::default(),
            d_last: Default::default(),
            d_offa: Default::default(),
            d_offb: Default::default(),
            d_loc34: Default::default(),
            d_span: Default::default(),
            d_aend: Default::default(),
            d_bend: Default::default(),
            d_dend: Default::default(),
            d_calc_bad: Default::default(),
            h_wq: Default::default(),
            h_cq: Default::default(),
            h_cqwait: Default::default(),
            h_target: Default::default(),
            h_w1x: Default::default(),
            cfg_cq: Default::default(),
            cfg_man: Default::default(),
            cfg_ctx: Default::default(),
            stat_sel: Default::default(),
            wt_diff: Default::default(),
            wt_ok: Default::default(),
            en_val: Default::default(),
            en_cand: Default::default(),
            en_gap: Default::default(),
            en_new: Default::default(),
            en_tgt: Default::default(),
            cqe_word: Default::default(),
            ctx_done: Default::default(),
            rx_store: Default::default(),
            rx_ovf: Default::default(),
            cpl_go: Default::default(),
            cpl_status: Default::default(),
            cpl_st: Default::default(),
            cpl_len: Default::default(),
            snd_go: Default::default(),
            snd_addr: Default::default(),
            snd_len: Default::default(),
            rsp_go: Default::default(),
            rsp_st: Default::default(),
            rsp_dat: Default::default(),
            st_inc: Default::default(),
            st_id: Default::default(),
            adv_sq: Default::default(),
            cn_go: Default::default(),
            pa1: Default::default(),
            pb1: Default::default(),
            pd1: Default::default(),
            rx_wq: Default::default(),
            sq_wq: Default::default(),
            h_wq1: Default::default(),
            d_rsvd: Default::default(),
            s_init: k(0),
            s_idle: k(1),
            s_bg: k(2),
            s_h1: k(3),
            s_h2: k(4),
            s_h3: k(5),
            s_sq1: k(6),
            s_sq2: k(7),
            s_wt: k(8),
            s_en: k(9),
            s_cpl: k(10),
            s_tx1: k(11),
            s_tx2: k(12),
            s_rx1: k(13),
            s_rx2: k(14),
            s_rx_data: k(15),
            s_rx_cnt: k(16),
            s_drop: k(17),
            s_nk1: k(18),
            s_nk2: k(19),
            s_ca: k(20),
            s_cb: k(21),
            s_cai: k(22),
            s_cbi: k(23),
            s_cx: k(24),
            s_cc: k(25),
            s_cw: k(26),
            s_cwi: k(27),
            s_tx0: k(28),
            op_nop: k(0),
            op_send: k(1),
            op_recv: k(2),
            op_wait: k(3),
            op_send_en: k(4),
            op_recv_en: k(5),
            op_calc: k(6),
            cs_ok: k(0),
            cs_bad_opcode: k(1),
            cs_bad_index: k(2),
            cs_bad_addr: k(3),
            cs_len_err: k(4),
            cs_remote_discard: k(5),
            cs_bad_arg: k(6),
            cs_not_ready: k(7),
            ho_nop: k(0),
            ho_post_sq: k(1),
            ho_post_rq: k(2),
            ho_poll_cq: k(3),
            ho_write_mem: k(4),
            ho_read_mem: k(5),
            ho_write_cnt: k(6),
            ho_read_cnt: k(7),
            ho_config_qp: k(8),
            hs_ok: k(0),
            hs_bad_op: k(1),
            hs_bad_index: k(2),
            hs_full: k(3),
            hs_empty: k(4),
            sid_host_bad_op: k(0),
            sid_host_bad_index: k(1),
            sid_wq_full: k(2),
            sid_cq_stall: k(3),
            sid_error_cqe: k(4),
            sid_rx_discard: k(5),
            sid_nak_received: k(6),
            sid_cq_overrun: k(7),
            k_qps8: k(qps),
            k_qps16: k(qps),
            k_cqs8: k(cqs),
            k_cqs16: k(cqs),
            k_cnts8: k(cnts),
            k_cnts16: k(cnts),
            k_dmw16: k(dmw),
            k_dmw17: k(dmw),
            k_dmw34: k(dmw),
            k_qmask: k(qps - 1),
            k_swlast: k((1 << SWB) - 1),
            k_hi48: k(!0xFFFF),
            k_ei_clear: k(!(0xFFFF << 32)),
            k_lo32: k(0xFFFF_FFFF),
            k_half32: k(0x8000_0000),
            k_half16: k(0x8000),
        }
    }
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
    > Logic for Nic<QB, WB, WEB, CB, CEB, KB, DB, SWB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, sw, bg_rx, sq_ptr, h_op, h_arg, h_w0, h_w1, rsp_valid, rsp_status,
            rsp_data, wq, c_pi, c_ci, c_ei, c_man, c_cq, q_prod, q_cons, w0, w1, k_status, k_len,
            k_op, k_qp, k_recv, k_index, k_want, k_wq, k_pend, r_src, r_src_qp, r_qp, r_cnt_en,
            r_cnt, r_tag, r_nak, r_ovf, ix, nx, pa, pb, pd, cap, va, ia, vb, ib, t_nak, t_valid,
            t_kind, t_dst, t_src_qp, t_qp, t_cnt_en, t_cnt, t_tag, t_empty, t_last, t_data, stat0,
            stat1, stat2, stat3, stat4, stat5, stat6, stat7
        );
        // Synchronous reset of every register (rust-hdl has no reset net: it is wired by hand).
        self.st.reset.next = self.reset.val();
        self.sw.reset.next = self.reset.val();
        self.bg_rx.reset.next = self.reset.val();
        self.sq_ptr.reset.next = self.reset.val();
        self.h_op.reset.next = self.reset.val();
        self.h_arg.reset.next = self.reset.val();
        self.h_w0.reset.next = self.reset.val();
        self.h_w1.reset.next = self.reset.val();
        self.rsp_valid.reset.next = self.reset.val();
        self.rsp_status.reset.next = self.reset.val();
        self.rsp_data.reset.next = self.reset.val();
        self.wq.reset.next = self.reset.val();
        self.c_pi.reset.next = self.reset.val();
        self.c_ci.reset.next = self.reset.val();
        self.c_ei.reset.next = self.reset.val();
        self.c_man.reset.next = self.reset.val();
        self.c_cq.reset.next = self.reset.val();
        self.q_prod.reset.next = self.reset.val();
        self.q_cons.reset.next = self.reset.val();
        self.w0.reset.next = self.reset.val();
        self.w1.reset.next = self.reset.val();
        self.k_status.reset.next = self.reset.val();
        self.k_len.reset.next = self.reset.val();
        self.k_op.reset.next = self.reset.val();
        self.k_qp.reset.next = self.reset.val();
        self.k_recv.reset.next = self.reset.val();
        self.k_index.reset.next = self.reset.val();
        self.k_want.reset.next = self.reset.val();
        self.k_wq.reset.next = self.reset.val();
        self.k_pend.reset.next = self.reset.val();
        self.r_src.reset.next = self.reset.val();
        self.r_src_qp.reset.next = self.reset.val();
        self.r_qp.reset.next = self.reset.val();
        self.r_cnt_en.reset.next = self.reset.val();
        self.r_cnt.reset.next = self.reset.val();
        self.r_tag.reset.next = self.reset.val();
        self.r_nak.reset.next = self.reset.val();
        self.r_ovf.reset.next = self.reset.val();
        self.ix.reset.next = self.reset.val();
        self.nx.reset.next = self.reset.val();
        self.pa.reset.next = self.reset.val();
        self.pb.reset.next = self.reset.val();
        self.pd.reset.next = self.reset.val();
        self.cap.reset.next = self.reset.val();
        self.va.reset.next = self.reset.val();
        self.ia.reset.next = self.reset.val();
        self.vb.reset.next = self.reset.val();
        self.ib.reset.next = self.reset.val();
        self.t_nak.reset.next = self.reset.val();
        self.t_valid.reset.next = self.reset.val();
        self.t_kind.reset.next = self.reset.val();
        self.t_dst.reset.next = self.reset.val();
        self.t_src_qp.reset.next = self.reset.val();
        self.t_qp.reset.next = self.reset.val();
        self.t_cnt_en.reset.next = self.reset.val();
        self.t_cnt.reset.next = self.reset.val();
        self.t_tag.reset.next = self.reset.val();
        self.t_empty.reset.next = self.reset.val();
        self.t_last.reset.next = self.reset.val();
        self.t_data.reset.next = self.reset.val();
        self.stat0.reset.next = self.reset.val();
        self.stat1.reset.next = self.reset.val();
        self.stat2.reset.next = self.reset.val();
        self.stat3.reset.next = self.reset.val();
        self.stat4.reset.next = self.reset.val();
        self.stat5.reset.next = self.reset.val();
        self.stat6.reset.next = self.reset.val();
        self.stat7.reset.next = self.reset.val();

        // ---- Memories and ALU: clocks and idle defaults (no read of interest, no write).
        self.wqc.clock.next = self.clock.val();
        self.wqc.rd_addr.next = 0.into();
        self.wqc.wr_en.next = false;
        self.wqc.wr_addr.next = 0.into();
        self.wqc.wr_data.next = 0.into();
        self.wqe0.clock.next = self.clock.val();
        self.wqe0.rd_addr.next = 0.into();
        self.wqe0.wr_en.next = false;
        self.wqe0.wr_addr.next = 0.into();
        self.wqe0.wr_data.next = 0.into();
        self.wqe1.clock.next = self.clock.val();
        self.wqe1.rd_addr.next = 0.into();
        self.wqe1.wr_en.next = false;
        self.wqe1.wr_addr.next = 0.into();
        self.wqe1.wr_data.next = 0.into();
        self.cqp.clock.next = self.clock.val();
        self.cqp.rd_addr.next = 0.into();
        self.cqp.wr_en.next = false;
        self.cqp.wr_addr.next = 0.into();
        self.cqp.wr_data.next = 0.into();
        self.cqw.clock.next = self.clock.val();
        self.cqw.rd_addr.next = 0.into();
        self.cqw.wr_en.next = false;
        self.cqw.wr_addr.next = 0.into();
        self.cqw.wr_data.next = 0.into();
        self.cqe.clock.next = self.clock.val();
        self.cqe.rd_addr.next = 0.into();
        self.cqe.wr_en.next = false;
        self.cqe.wr_addr.next = 0.into();
        self.cqe.wr_data.next = 0.into();
        self.cnt.clock.next = self.clock.val();
        self.cnt.rd_addr.next = 0.into();
        self.cnt.wr_en.next = false;
        self.cnt.wr_addr.next = 0.into();
        self.cnt.wr_data.next = 0.into();
        self.dmem.clock.next = self.clock.val();
        self.dmem.rd_addr.next = 0.into();
        self.dmem.wr_en.next = false;
        self.dmem.wr_addr.next = 0.into();
        self.dmem.wr_data.next = 0.into();
        // The ALU computes on the CALC operand registers every cycle; its result is registered.
        self.alu.clock.next = self.clock.val();
        self.alu.reset.next = self.reset.val();
        self.alu.in_valid.next = self.st.q.val() == self.s_cc.val();
        self.alu.op.next = self.w0.q.val().get_bits::<4>(8);
        self.alu.dtype.next = self.w0.q.val().get_bits::<2>(12);
        self.alu.l0_a.next = self.va.q.val();
        self.alu.l0_ai.next = self.ia.q.val();
        self.alu.l0_b.next = self.vb.q.val();
        self.alu.l0_bi.next = self.ib.q.val();
        self.rsp_valid.d.next = false;

        // ---- Views of what the memories returned (each assigned once, read by the states).
        // Work-queue context word.
        self.x_pi.next = self.wqc.rd_data.val().get_bits::<16>(0);
        self.x_ci.next = self.wqc.rd_data.val().get_bits::<16>(16);
        self.x_ei.next = self.wqc.rd_data.val().get_bits::<16>(32);
        self.x_man.next = self.wqc.rd_data.val().get_bit(48);
        self.x_cq.next = self.wqc.rd_data.val().get_bits::<8>(56);
        self.x_gap.next = self.x_ei.val() - self.x_ci.val();
        self.x_used.next = self.x_pi.val() - self.x_ci.val();
        // Runnable (SQ) / enabled (RQ): a WQE is posted and, in a managed queue, enabled.
        self.x_run.next = (self.x_ci.val() != self.x_pi.val())
            & (!self.x_man.val() | ((self.x_gap.val() != 0) & !self.x_gap.val().get_bit(15)));
        self.x_slot.next = (bit_cast::<WEB, WB>(self.wq.q.val().get_bits::<WB>(0)) << 4)
            | bit_cast::<WEB, 4>(self.x_ci.val().get_bits::<4>(0));
        self.x_pslot.next = (bit_cast::<WEB, WB>(self.wq.q.val().get_bits::<WB>(0)) << 4)
            | bit_cast::<WEB, 4>(self.x_pi.val().get_bits::<4>(0));
        // Completion-queue produced / consumed counts.
        self.y_prod.next = self.cqp.rd_data.val().get_bits::<32>(0);
        self.y_cons.next = self.cqp.rd_data.val().get_bits::<32>(32);
        self.y_used.next = self.y_prod.val() - self.y_cons.val();
        self.y_full.next = self.y_used.val() == 32;

        // ---- The WQE being decoded: fresh from the WQE memory in SQ2 / RX2, else latched.
        self.cur_w0.next = self.w0.q.val();
        self.cur_w1.next = self.w1.q.val();
        if (self.st.q.val() == self.s_sq2.val()) | (self.st.q.val() == self.s_rx2.val()) {
            self.cur_w0.next = self.wqe0.rd_data.val();
        }
        if (self.st.q.val() == self.s_sq2.val()) | (self.st.q.val() == self.s_rx2.val()) {
            self.cur_w1.next = self.wqe1.rd_data.val();
        }
        self.d_opc.next = self.cur_w0.val().get_bits::<4>(0);
        self.d_sig.next = self.cur_w0.val().get_bit(4);
        self.d_addr.next = self.cur_w0.val().get_bits::<16>(8);
        self.d_len.next = self.cur_w0.val().get_bits::<16>(24);
        self.d_wmode.next = self.cur_w0.val().get_bit(8);
        self.d_widx.next = self.cur_w0.val().get_bits::<8>(16);
        self.d_eqp.next = self.cur_w0.val().get_bits::<8>(8);
        self.d_emode.next = self.cur_w0.val().get_bit(16);
        self.d_aop.next = self.cur_w0.val().get_bits::<4>(8);
        self.d_peer.next = self.cur_w0.val().get_bit(14);
        self.d_cnt.next = self.cur_w0.val().get_bits::<16>(16);
        self.d_a.next = self.cur_w0.val().get_bits::<16>(32);
        self.d_b.next = self.cur_w0.val().get_bits::<16>(48);
        self.d_sa.next = self.cur_w1.val().get_bits::<8>(32);
        self.d_sb.next = self.cur_w1.val().get_bits::<8>(40);
        self.d_dst.next = self.cur_w1.val().get_bits::<16>(48);
        self.d_loc.next = (self.d_aop.val() == 2) | (self.d_aop.val() == 3);
        // Reserved in every WQE; must be zero.
        self.d_rsvd.next =
            (self.cur_w0.val().get_bits::<3>(5) != 0) | (self.cur_w1.val().get_bits::<7>(17) != 0);
        // Buffer bounds (SEND / RECV: addr + len; CALC: last element of each argument, result).
        self.d_buf_end.next =
            bit_cast::<17, 16>(self.d_addr.val()) + bit_cast::<17, 16>(self.d_len.val());
        self.d_buf_bad.next = self.d_buf_end.val() > self.k_dmw17.val();
        self.d_last.next = self.d_cnt.val() - 1;
        // rust-hdl multiplies only 16 x 16: strides are widened to 16 bits.
        self.d_offa.next = self.d_last.val() * bit_cast::<16, 8>(self.d_sa.val());
        self.d_offb.next = self.d_last.val() * bit_cast::<16, 8>(self.d_sb.val());
        self.d_loc34.next = 0.into();
        self.d_span.next = bit_cast::<34, 16>(self.d_cnt.val());
        if self.d_loc.val() {
            self.d_loc34.next = 1.into();
            self.d_span.next = bit_cast::<34, 16>(self.d_cnt.val()) << 1;
        }
        self.d_aend.next = bit_cast::<34, 16>(self.d_a.val())
            + bit_cast::<34, 32>(self.d_offa.val())
            + self.d_loc34.val();
        self.d_bend.next = bit_cast::<34, 16>(self.d_b.val())
            + bit_cast::<34, 32>(self.d_offb.val())
            + self.d_loc34.val();
        self.d_dend.next = bit_cast::<34, 16>(self.d_dst.val()) + self.d_span.val();
        self.d_calc_bad.next = (self.d_cnt.val() != 0)
            & ((self.d_aend.val() >= self.k_dmw34.val())
                | (self.d_bend.val() >= self.k_dmw34.val())
                | (self.d_dend.val() > self.k_dmw34.val()));

        // ---- Host-command helpers.
        self.h_wq.next = self.h_arg.q.val().get_bits::<8>(0) << 1;
        if self.h_op.q.val() == self.ho_post_rq.val() {
            self.h_wq.next = (self.h_arg.q.val().get_bits::<8>(0) << 1) | 1;
        }
        self.h_cq.next = self.h_w0.q.val().get_bits::<8>(16);
        self.h_cqwait.next = (self.h_w0.q.val().get_bits::<4>(0) == self.op_wait.val())
            & !self.h_w0.q.val().get_bit(8)
            & (self.h_cq.val() < self.k_cqs8.val());
        self.h_target.next = self.cqw.rd_data.val() + self.h_w1.q.val().get_bits::<32>(32);
        self.h_w1x.next = self.h_w1.q.val();
        if self.h_cqwait.val() {
            self.h_w1x.next = (self.h_w1.q.val() & self.k_lo32.val())
                | (bit_cast::<64, 32>(self.h_target.val()) << 32);
        }
        self.cfg_cq.next = self.h_w0.q.val().get_bits::<8>(0);
        self.cfg_man.next = self.h_w0.q.val().get_bit(16);
        if self.st.q.val() == self.s_h3.val() {
            self.cfg_cq.next = self.h_w0.q.val().get_bits::<8>(8);
            self.cfg_man.next = self.h_w0.q.val().get_bit(17);
        }
        self.cfg_ctx.next = (bit_cast::<64, 16>(self.x_pi.val())
            | (bit_cast::<64, 16>(self.x_ci.val()) << 16)
            | (bit_cast::<64, 16>(self.x_ci.val()) << 32)
            | (bit_cast::<64, 8>(self.cfg_cq.val()) << 56))
            .replace_bit(48, self.cfg_man.val());
        self.stat_sel.next = self.stat0.q.val();
        if self.h_arg.q.val().get_bits::<3>(0) == 1 {
            self.stat_sel.next = self.stat1.q.val();
        }
        if self.h_arg.q.val().get_bits::<3>(0) == 2 {
            self.stat_sel.next = self.stat2.q.val();
        }
        if self.h_arg.q.val().get_bits::<3>(0) == 3 {
            self.stat_sel.next = self.stat3.q.val();
        }
        if self.h_arg.q.val().get_bits::<3>(0) == 4 {
            self.stat_sel.next = self.stat4.q.val();
        }
        if self.h_arg.q.val().get_bits::<3>(0) == 5 {
            self.stat_sel.next = self.stat5.q.val();
        }
        if self.h_arg.q.val().get_bits::<3>(0) == 6 {
            self.stat_sel.next = self.stat6.q.val();
        }
        if self.h_arg.q.val().get_bits::<3>(0) == 7 {
            self.stat_sel.next = self.stat7.q.val();
        }

        // ---- Other per-state helpers.
        // `produced - target` taken as signed is not negative.
        self.wt_diff.next = self.y_prod.val() - self.w1.q.val().get_bits::<32>(32);
        self.wt_ok.next = self.wt_diff.val() < self.k_half32.val();
        if self.d_wmode.val() {
            self.wt_ok.next = self.cnt.rd_data.val() >= self.w1.q.val().get_bits::<32>(32);
        }
        self.en_val.next = self.w1.q.val().get_bits::<16>(32);
        self.en_cand.next = self.en_val.val() + 1;
        self.en_gap.next = self.en_cand.val() - self.x_ei.val();
        self.en_new.next = self.x_ei.val() + self.en_val.val();
        if self.d_emode.val() {
            self.en_new.next = self.x_ei.val();
            if self.en_gap.val() < self.k_half16.val() {
                self.en_new.next = self.en_cand.val();
            }
        }
        self.en_tgt.next = self.d_eqp.val() << 1;
        if self.d_opc.val() == self.op_recv_en.val() {
            self.en_tgt.next = (self.d_eqp.val() << 1) | 1;
        }
        self.cqe_word.next = bit_cast::<64, 4>(self.k_status.q.val())
            | (bit_cast::<64, 4>(self.k_op.q.val()) << 4)
            | (bit_cast::<64, 8>(self.k_qp.q.val()) << 8)
            | (bit_cast::<64, 16>(self.k_index.q.val()) << 32)
            | (bit_cast::<64, 16>(self.k_len.q.val()) << 48);
        if self.k_recv.q.val() {
            self.cqe_word.next = (bit_cast::<64, 4>(self.k_status.q.val())
                | (bit_cast::<64, 4>(self.k_op.q.val()) << 4)
                | (bit_cast::<64, 8>(self.k_qp.q.val()) << 8)
                | (bit_cast::<64, 16>(self.k_index.q.val()) << 32)
                | (bit_cast::<64, 16>(self.k_len.q.val()) << 48))
                .replace_bit(16, true);
        }
        self.ctx_done.next = (bit_cast::<64, 16>(self.c_pi.q.val())
            | (bit_cast::<64, 16>(self.c_ci.q.val() + 1) << 16)
            | (bit_cast::<64, 16>(self.c_ei.q.val()) << 32)
            | (bit_cast::<64, 8>(self.c_cq.q.val()) << 56))
            .replace_bit(48, self.c_man.q.val());
        self.rx_store.next = !self.rx_empty.val() & (self.ix.q.val() < self.cap.q.val());
        self.rx_ovf.next =
            self.r_ovf.q.val() | (!self.rx_empty.val() & (self.ix.q.val() >= self.cap.q.val()));

        // Addresses one past the loop pointers; work-queue indexes of a message and a visit.
        self.pa1.next = self.pa.q.val().get_bits::<DB>(0) + 1;
        self.pb1.next = self.pb.q.val().get_bits::<DB>(0) + 1;
        self.pd1.next = self.pd.q.val().get_bits::<DB>(0) + 1;
        self.rx_wq.next = (self.rx_qp.val() << 1).replace_bit(0, !self.rx_kind.val());
        self.sq_wq.next = self.sq_ptr.q.val() << 1;
        self.h_wq1.next = self.h_wq.val().get_bits::<WB>(0) | 1;

        // ---- Actions the states request; carried out after the state machine.
        self.cpl_go.next = false;
        self.cpl_status.next = self.cs_ok.val();
        self.cpl_st.next = self.s_cpl.val();
        self.cpl_len.next = 0.into();
        self.snd_go.next = false;
        self.snd_addr.next = 0.into();
        self.snd_len.next = 0.into();
        self.rsp_go.next = false;
        self.rsp_st.next = self.hs_ok.val();
        self.rsp_dat.next = 0.into();
        self.st_inc.next = false;
        self.st_id.next = 0.into();
        self.adv_sq.next = false;
        self.cn_go.next = false;

        // ---- The sequencer.
        if self.st.q.val() == self.s_init.val() {
            // Reset sweep: clear the context memories, one index per cycle.
            self.wqc.wr_en.next = true;
            self.wqc.wr_addr.next = self.sw.q.val().get_bits::<WB>(0);
            self.cqp.wr_en.next = true;
            self.cqp.wr_addr.next = self.sw.q.val().get_bits::<CB>(0);
            self.cqw.wr_en.next = true;
            self.cqw.wr_addr.next = self.sw.q.val().get_bits::<CB>(0);
            self.cnt.wr_en.next = true;
            self.cnt.wr_addr.next = self.sw.q.val().get_bits::<KB>(0);
            self.sw.d.next = (self.sw.q.val() + 1) & self.k_swlast.val();
            if self.sw.q.val() == self.k_swlast.val() {
                self.st.d.next = self.s_idle.val();
            }
        } else if (self.st.q.val() == self.s_idle.val()) | (self.st.q.val() == self.s_bg.val()) {
            if (self.st.q.val() == self.s_idle.val()) & self.host_valid.val() {
                self.h_op.d.next = self.host_op.val();
                self.h_arg.d.next = self.host_arg.val();
                self.h_w0.d.next = self.host_w0.val();
                self.h_w1.d.next = self.host_w1.val();
                self.st.d.next = self.s_h1.val();
            } else if self.rx_valid.val() & !self.bg_rx.q.val() {
                // A message: latch its header (repeated on every beat), do not consume yet.
                self.bg_rx.d.next = true;
                self.r_src.d.next = self.rx_src.val();
                self.r_src_qp.d.next = self.rx_src_qp.val();
                self.r_qp.d.next = self.rx_qp.val();
                self.r_cnt_en.d.next = self.rx_cnt_en.val();
                self.r_cnt.d.next = self.rx_cnt.val();
                self.r_tag.d.next = self.rx_tag.val();
                self.r_nak.d.next = false;
                self.r_ovf.d.next = false;
                self.k_pend.d.next = false;
                if self.rx_qp.val() >= self.k_qps8.val() {
                    self.st.d.next = self.s_drop.val();
                    if self.rx_kind.val() {
                        self.st_inc.next = true;
                        self.st_id.next = self.sid_cq_overrun.val();
                    } else {
                        self.r_nak.d.next = true;
                        self.k_status.d.next = self.cs_bad_index.val();
                    }
                } else {
                    self.wqc.rd_addr.next = self.rx_wq.val().get_bits::<WB>(0);
                    self.wq.d.next = self.rx_wq.val();
                    self.st.d.next = self.s_rx1.val();
                    if self.rx_kind.val() {
                        self.st.d.next = self.s_nk1.val();
                    }
                }
            } else {
                // Visit send queue `sq_ptr`.
                self.bg_rx.d.next = false;
                self.wqc.rd_addr.next = self.sq_wq.val().get_bits::<WB>(0);
                self.wq.d.next = self.sq_wq.val();
                self.st.d.next = self.s_sq1.val();
            }
        } else if (self.st.q.val() == self.s_h1.val())
            | (self.st.q.val() == self.s_h2.val())
            | (self.st.q.val() == self.s_h3.val())
        {
            if self.h_op.q.val() > 9 {
                self.st_inc.next = true;
                self.st_id.next = self.sid_host_bad_op.val();
                self.rsp_go.next = true;
                self.rsp_st.next = self.hs_bad_op.val();
            } else if self.h_op.q.val() == self.ho_nop.val() {
                self.rsp_go.next = true;
            } else if (self.h_op.q.val() == self.ho_post_sq.val())
                | (self.h_op.q.val() == self.ho_post_rq.val())
            {
                if self.st.q.val() == self.s_h1.val() {
                    if self.h_arg.q.val() >= self.k_qps16.val() {
                        self.st_inc.next = true;
                        self.st_id.next = self.sid_host_bad_index.val();
                        self.rsp_go.next = true;
                        self.rsp_st.next = self.hs_bad_index.val();
                    } else {
                        self.wq.d.next = self.h_wq.val();
                        self.wqc.rd_addr.next = self.h_wq.val().get_bits::<WB>(0);
                        self.cqw.rd_addr.next = self.h_cq.val().get_bits::<CB>(0);
                        self.st.d.next = self.s_h2.val();
                    }
                } else if self.x_used.val() == 16 {
                    self.st_inc.next = true;
                    self.st_id.next = self.sid_wq_full.val();
                    self.rsp_go.next = true;
                    self.rsp_st.next = self.hs_full.val();
                } else {
                    self.wqe0.wr_en.next = true;
                    self.wqe0.wr_addr.next = self.x_pslot.val();
                    self.wqe0.wr_data.next = self.h_w0.q.val();
                    self.wqe1.wr_en.next = true;
                    self.wqe1.wr_addr.next = self.x_pslot.val();
                    self.wqe1.wr_data.next = self.h_w1x.val();
                    if self.h_cqwait.val() {
                        self.cqw.wr_en.next = true;
                        self.cqw.wr_addr.next = self.h_cq.val().get_bits::<CB>(0);
                        self.cqw.wr_data.next = self.h_target.val();
                    }
                    self.wqc.wr_en.next = true;
                    self.wqc.wr_addr.next = self.wq.q.val().get_bits::<WB>(0);
                    self.wqc.wr_data.next = (self.wqc.rd_data.val() & self.k_hi48.val())
                        | bit_cast::<64, 16>(self.x_pi.val() + 1);
                    self.rsp_go.next = true;
                    self.rsp_dat.next = bit_cast::<64, 16>(self.x_pi.val());
                }
            } else if self.h_op.q.val() == self.ho_poll_cq.val() {
                if self.st.q.val() == self.s_h1.val() {
                    if self.h_arg.q.val() >= self.k_cqs16.val() {
                        self.st_inc.next = true;
                        self.st_id.next = self.sid_host_bad_index.val();
                        self.rsp_go.next = true;
                        self.rsp_st.next = self.hs_bad_index.val();
                    } else {
                        self.cqp.rd_addr.next = self.h_arg.q.val().get_bits::<CB>(0);
                        self.st.d.next = self.s_h2.val();
                    }
                } else if self.st.q.val() == self.s_h2.val() {
                    if self.y_prod.val() == self.y_cons.val() {
                        self.rsp_go.next = true;
                        self.rsp_st.next = self.hs_empty.val();
                    } else {
                        self.cqe.rd_addr.next =
                            (bit_cast::<CEB, CB>(self.h_arg.q.val().get_bits::<CB>(0)) << 5)
                                | bit_cast::<CEB, 5>(self.y_cons.val().get_bits::<5>(0));
                        self.cqp.wr_en.next = true;
                        self.cqp.wr_addr.next = self.h_arg.q.val().get_bits::<CB>(0);
                        self.cqp.wr_data.next = bit_cast::<64, 32>(self.y_prod.val())
                            | (bit_cast::<64, 32>(self.y_cons.val() + 1) << 32);
                        self.st.d.next = self.s_h3.val();
                    }
                } else {
                    self.rsp_go.next = true;
                    self.rsp_dat.next = self.cqe.rd_data.val();
                }
            } else if self.h_op.q.val() == self.ho_write_mem.val() {
                if self.h_arg.q.val() >= self.k_dmw16.val() {
                    self.st_inc.next = true;
                    self.st_id.next = self.sid_host_bad_index.val();
                    self.rsp_go.next = true;
                    self.rsp_st.next = self.hs_bad_index.val();
                } else {
                    self.dmem.wr_en.next = true;
                    self.dmem.wr_addr.next = self.h_arg.q.val().get_bits::<DB>(0);
                    self.dmem.wr_data.next = self.h_w0.q.val();
                    self.rsp_go.next = true;
                }
            } else if self.h_op.q.val() == self.ho_read_mem.val() {
                if self.st.q.val() == self.s_h1.val() {
                    if self.h_arg.q.val() >= self.k_dmw16.val() {
                        self.st_inc.next = true;
                        self.st_id.next = self.sid_host_bad_index.val();
                        self.rsp_go.next = true;
                        self.rsp_st.next = self.hs_bad_index.val();
                    } else {
                        self.dmem.rd_addr.next = self.h_arg.q.val().get_bits::<DB>(0);
                        self.st.d.next = self.s_h2.val();
                    }
                } else {
                    self.rsp_go.next = true;
                    self.rsp_dat.next = self.dmem.rd_data.val();
                }
            } else if self.h_op.q.val() == self.ho_write_cnt.val() {
                if self.h_arg.q.val() >= self.k_cnts16.val() {
                    self.st_inc.next = true;
                    self.st_id.next = self.sid_host_bad_index.val();
                    self.rsp_go.next = true;
                    self.rsp_st.next = self.hs_bad_index.val();
                } else {
                    self.cnt.wr_en.next = true;
                    self.cnt.wr_addr.next = self.h_arg.q.val().get_bits::<KB>(0);
                    self.cnt.wr_data.next = self.h_w0.q.val().get_bits::<32>(0);
                    self.rsp_go.next = true;
                }
            } else if self.h_op.q.val() == self.ho_read_cnt.val() {
                if self.st.q.val() == self.s_h1.val() {
                    if self.h_arg.q.val() >= self.k_cnts16.val() {
                        self.st_inc.next = true;
                        self.st_id.next = self.sid_host_bad_index.val();
                        self.rsp_go.next = true;
                        self.rsp_st.next = self.hs_bad_index.val();
                    } else {
                        self.cnt.rd_addr.next = self.h_arg.q.val().get_bits::<KB>(0);
                        self.st.d.next = self.s_h2.val();
                    }
                } else {
                    self.rsp_go.next = true;
                    self.rsp_dat.next = bit_cast::<64, 32>(self.cnt.rd_data.val());
                }
            } else if self.h_op.q.val() == self.ho_config_qp.val() {
                if self.st.q.val() == self.s_h1.val() {
                    if (self.h_arg.q.val() >= self.k_qps16.val())
                        | (self.h_w0.q.val().get_bits::<8>(0) >= self.k_cqs8.val())
                        | (self.h_w0.q.val().get_bits::<8>(8) >= self.k_cqs8.val())
                    {
                        self.st_inc.next = true;
                        self.st_id.next = self.sid_host_bad_index.val();
                        self.rsp_go.next = true;
                        self.rsp_st.next = self.hs_bad_index.val();
                    } else {
                        self.wqc.rd_addr.next = self.h_wq.val().get_bits::<WB>(0);
                        self.st.d.next = self.s_h2.val();
                    }
                } else if self.st.q.val() == self.s_h2.val() {
                    self.wqc.wr_en.next = true;
                    self.wqc.wr_addr.next = self.h_wq.val().get_bits::<WB>(0);
                    self.wqc.wr_data.next = self.cfg_ctx.val();
                    self.wqc.rd_addr.next = self.h_wq1.val();
                    self.st.d.next = self.s_h3.val();
                } else {
                    self.wqc.wr_en.next = true;
                    self.wqc.wr_addr.next = self.h_wq1.val();
                    self.wqc.wr_data.next = self.cfg_ctx.val();
                    self.rsp_go.next = true;
                }
            } else if self.h_arg.q.val() >= 8 {
                // ReadStat of a counter that does not exist.
                self.st_inc.next = true;
                self.st_id.next = self.sid_host_bad_index.val();
                self.rsp_go.next = true;
                self.rsp_st.next = self.hs_bad_index.val();
            } else {
                self.rsp_go.next = true;
                self.rsp_dat.next = bit_cast::<64, 32>(self.stat_sel.val());
            }
        } else if self.st.q.val() == self.s_sq1.val() {
            self.c_pi.d.next = self.x_pi.val();
            self.c_ci.d.next = self.x_ci.val();
            self.c_ei.d.next = self.x_ei.val();
            self.c_man.d.next = self.x_man.val();
            self.c_cq.d.next = self.x_cq.val();
            if self.x_run.val() {
                self.wqe0.rd_addr.next = self.x_slot.val();
                self.wqe1.rd_addr.next = self.x_slot.val();
                self.cqp.rd_addr.next = self.x_cq.val().get_bits::<CB>(0);
                self.st.d.next = self.s_sq2.val();
            } else {
                self.adv_sq.next = true;
                self.st.d.next = self.s_idle.val();
            }
        } else if self.st.q.val() == self.s_sq2.val() {
            self.w0.d.next = self.wqe0.rd_data.val();
            self.w1.d.next = self.wqe1.rd_data.val();
            self.q_prod.d.next = self.y_prod.val();
            self.q_cons.d.next = self.y_cons.val();
            if self.y_full.val() {
                // Back-pressure: the WQE does not start while its CQ is full.
                self.st_inc.next = true;
                self.st_id.next = self.sid_cq_stall.val();
                self.adv_sq.next = true;
                self.st.d.next = self.s_idle.val();
            } else if self.d_rsvd.val() {
                self.cpl_go.next = true;
                self.cpl_status.next = self.cs_bad_opcode.val();
            } else if self.d_opc.val() == self.op_nop.val() {
                self.cpl_go.next = true;
            } else if self.d_opc.val() == self.op_send.val() {
                if self.d_buf_bad.val() {
                    self.cpl_go.next = true;
                    self.cpl_status.next = self.cs_bad_addr.val();
                } else {
                    self.snd_go.next = true;
                    self.snd_addr.next = self.d_addr.val();
                    self.snd_len.next = self.d_len.val();
                }
            } else if self.d_opc.val() == self.op_wait.val() {
                if !self.d_wmode.val() {
                    if self.d_widx.val() >= self.k_cqs8.val() {
                        self.cpl_go.next = true;
                        self.cpl_status.next = self.cs_bad_index.val();
                    } else {
                        self.cqp.rd_addr.next = self.d_widx.val().get_bits::<CB>(0);
                        self.st.d.next = self.s_wt.val();
                    }
                } else if self.d_widx.val() >= self.k_cnts8.val() {
                    self.cpl_go.next = true;
                    self.cpl_status.next = self.cs_bad_index.val();
                } else {
                    self.cnt.rd_addr.next = self.d_widx.val().get_bits::<KB>(0);
                    self.st.d.next = self.s_wt.val();
                }
            } else if (self.d_opc.val() == self.op_send_en.val())
                | (self.d_opc.val() == self.op_recv_en.val())
            {
                if self.d_eqp.val() >= self.k_qps8.val() {
                    self.cpl_go.next = true;
                    self.cpl_status.next = self.cs_bad_index.val();
                } else {
                    self.wqc.rd_addr.next = self.en_tgt.val().get_bits::<WB>(0);
                    self.st.d.next = self.s_en.val();
                }
            } else if self.d_opc.val() == self.op_calc.val() {
                if self.d_aop.val() >= 12 {
                    self.cpl_go.next = true;
                    self.cpl_status.next = self.cs_bad_arg.val();
                } else if self.d_calc_bad.val() {
                    self.cpl_go.next = true;
                    self.cpl_status.next = self.cs_bad_addr.val();
                } else {
                    self.ix.d.next = 0.into();
                    self.nx.d.next = self.d_cnt.val();
                    self.pa.d.next = self.d_a.val();
                    self.pb.d.next = self.d_b.val();
                    self.pd.d.next = self.d_dst.val();
                    if self.d_cnt.val() != 0 {
                        self.st.d.next = self.s_ca.val();
                    } else if self.d_peer.val() {
                        self.snd_go.next = true;
                        self.snd_addr.next = self.d_dst.val();
                    } else {
                        self.cpl_go.next = true;
                    }
                }
            } else {
                // RECV on a send queue, or an unknown opcode.
                self.cpl_go.next = true;
                self.cpl_status.next = self.cs_bad_opcode.val();
            }
        } else if self.st.q.val() == self.s_wt.val() {
            if self.wt_ok.val() {
                self.cpl_go.next = true;
            } else {
                self.adv_sq.next = true;
                self.st.d.next = self.s_idle.val();
            }
        } else if self.st.q.val() == self.s_en.val() {
            self.wqc.wr_en.next = true;
            self.wqc.wr_addr.next = self.en_tgt.val().get_bits::<WB>(0);
            self.wqc.wr_data.next = (self.wqc.rd_data.val() & self.k_ei_clear.val())
                | (bit_cast::<64, 16>(self.en_new.val()) << 32);
            if self.en_tgt.val() == self.wq.q.val() {
                self.c_ei.d.next = self.en_new.val();
            }
            self.cpl_go.next = true;
        } else if self.st.q.val() == self.s_cpl.val() {
            if self.k_want.q.val() {
                self.cqe.wr_en.next = true;
                self.cqe.wr_addr.next = (bit_cast::<CEB, CB>(self.c_cq.q.val().get_bits::<CB>(0))
                    << 5)
                    | bit_cast::<CEB, 5>(self.q_prod.q.val().get_bits::<5>(0));
                self.cqe.wr_data.next = self.cqe_word.val();
                self.cqp.wr_en.next = true;
                self.cqp.wr_addr.next = self.c_cq.q.val().get_bits::<CB>(0);
                self.cqp.wr_data.next = bit_cast::<64, 32>(self.q_prod.q.val() + 1)
                    | (bit_cast::<64, 32>(self.q_cons.q.val()) << 32);
                if self.k_status.q.val() != self.cs_ok.val() {
                    self.st_inc.next = true;
                    self.st_id.next = self.sid_error_cqe.val();
                }
            }
            if self.k_wq.q.val() {
                self.wqc.wr_en.next = true;
                self.wqc.wr_addr.next = self.wq.q.val().get_bits::<WB>(0);
                self.wqc.wr_data.next = self.ctx_done.val();
                if !self.wq.q.val().get_bit(0) {
                    self.adv_sq.next = true;
                }
            }
            self.k_pend.d.next = false;
            self.st.d.next = self.s_idle.val();
        } else if self.st.q.val() == self.s_tx0.val() {
            if self.nx.q.val() == 0 {
                self.t_valid.d.next = true;
                self.t_empty.d.next = true;
                self.t_last.d.next = true;
                self.t_data.d.next = 0.into();
                self.st.d.next = self.s_tx2.val();
            } else {
                self.dmem.rd_addr.next = self.pd.q.val().get_bits::<DB>(0);
                self.st.d.next = self.s_tx1.val();
            }
        } else if self.st.q.val() == self.s_tx1.val() {
            self.t_valid.d.next = true;
            self.t_empty.d.next = false;
            self.t_last.d.next = (self.ix.q.val() + 1) == self.nx.q.val();
            self.t_data.d.next = self.dmem.rd_data.val();
            self.st.d.next = self.s_tx2.val();
        } else if self.st.q.val() == self.s_tx2.val() {
            if self.tx_ready.val() {
                self.t_valid.d.next = false;
                if self.t_last.q.val() {
                    if self.t_nak.q.val() {
                        self.st.d.next = self.s_idle.val();
                        if self.k_pend.q.val() {
                            self.st.d.next = self.s_cpl.val();
                        }
                    } else {
                        self.cpl_go.next = true;
                    }
                } else {
                    self.ix.d.next = self.ix.q.val() + 1;
                    self.pd.d.next = self.pd.q.val() + 1;
                    self.dmem.rd_addr.next = self.pd1.val();
                    self.st.d.next = self.s_tx1.val();
                }
            }
        } else if self.st.q.val() == self.s_rx1.val() {
            self.c_pi.d.next = self.x_pi.val();
            self.c_ci.d.next = self.x_ci.val();
            self.c_ei.d.next = self.x_ei.val();
            self.c_man.d.next = self.x_man.val();
            self.c_cq.d.next = self.x_cq.val();
            if self.x_run.val() {
                self.wqe0.rd_addr.next = self.x_slot.val();
                self.wqe1.rd_addr.next = self.x_slot.val();
                self.cqp.rd_addr.next = self.x_cq.val().get_bits::<CB>(0);
                self.st.d.next = self.s_rx2.val();
            } else {
                self.r_nak.d.next = true;
                self.k_status.d.next = self.cs_not_ready.val();
                self.st.d.next = self.s_drop.val();
            }
        } else if self.st.q.val() == self.s_rx2.val() {
            self.w0.d.next = self.wqe0.rd_data.val();
            self.w1.d.next = self.wqe1.rd_data.val();
            self.q_prod.d.next = self.y_prod.val();
            self.q_cons.d.next = self.y_cons.val();
            if self.y_full.val() {
                self.r_nak.d.next = true;
                self.k_status.d.next = self.cs_not_ready.val();
                self.st.d.next = self.s_drop.val();
            } else if (self.d_opc.val() != self.op_recv.val()) | self.d_rsvd.val() {
                self.cpl_go.next = true;
                self.cpl_status.next = self.cs_bad_opcode.val();
                self.cpl_st.next = self.s_drop.val();
                self.k_pend.d.next = true;
                self.r_nak.d.next = true;
            } else if self.d_buf_bad.val() {
                self.cpl_go.next = true;
                self.cpl_status.next = self.cs_bad_addr.val();
                self.cpl_st.next = self.s_drop.val();
                self.k_pend.d.next = true;
                self.r_nak.d.next = true;
            } else {
                self.ix.d.next = 0.into();
                self.pd.d.next = self.d_addr.val();
                self.cap.d.next = self.d_len.val();
                self.r_ovf.d.next = false;
                self.st.d.next = self.s_rx_data.val();
            }
        } else if self.st.q.val() == self.s_rx_data.val() {
            if self.rx_valid.val() {
                if self.rx_store.val() {
                    self.dmem.wr_en.next = true;
                    self.dmem.wr_addr.next = self.pd.q.val().get_bits::<DB>(0);
                    self.dmem.wr_data.next = self.rx_data.val();
                    self.ix.d.next = self.ix.q.val() + 1;
                    self.pd.d.next = self.pd.q.val() + 1;
                }
                self.r_ovf.d.next = self.rx_ovf.val();
                if self.rx_last.val() {
                    self.cpl_go.next = true;
                    if self.r_cnt_en.q.val() & (self.r_cnt.q.val() >= self.k_cnts8.val()) {
                        self.cpl_status.next = self.cs_bad_index.val();
                    } else if self.rx_ovf.val() {
                        self.cpl_status.next = self.cs_len_err.val();
                    }
                    self.cpl_len.next = self.ix.q.val();
                    if self.rx_store.val() {
                        self.cpl_len.next = self.ix.q.val() + 1;
                    }
                    if self.r_cnt_en.q.val() & (self.r_cnt.q.val() < self.k_cnts8.val()) {
                        self.cnt.rd_addr.next = self.r_cnt.q.val().get_bits::<KB>(0);
                        self.cpl_st.next = self.s_rx_cnt.val();
                    }
                }
            }
        } else if self.st.q.val() == self.s_rx_cnt.val() {
            self.cnt.wr_en.next = true;
            self.cnt.wr_addr.next = self.r_cnt.q.val().get_bits::<KB>(0);
            self.cnt.wr_data.next = self.cnt.rd_data.val() + 1;
            self.st.d.next = self.s_cpl.val();
        } else if self.st.q.val() == self.s_drop.val() {
            if self.rx_valid.val() & self.rx_last.val() {
                if self.r_nak.q.val() {
                    // Tell the sender: a NAK naming its QP and WQE, with the reason.
                    self.st_inc.next = true;
                    self.st_id.next = self.sid_rx_discard.val();
                    self.t_nak.d.next = true;
                    self.t_kind.d.next = true;
                    self.t_dst.d.next = self.r_src.q.val();
                    self.t_qp.d.next = self.r_src_qp.q.val();
                    self.t_src_qp.d.next = self.r_qp.q.val();
                    self.t_cnt_en.d.next = false;
                    self.t_cnt.d.next = 0.into();
                    self.t_tag.d.next = self.r_tag.q.val();
                    self.t_valid.d.next = true;
                    self.t_empty.d.next = true;
                    self.t_last.d.next = true;
                    self.t_data.d.next = bit_cast::<64, 4>(self.k_status.q.val());
                    self.st.d.next = self.s_tx2.val();
                } else if self.k_pend.q.val() {
                    self.st.d.next = self.s_cpl.val();
                } else {
                    self.st.d.next = self.s_idle.val();
                }
            }
        } else if self.st.q.val() == self.s_nk1.val() {
            self.c_cq.d.next = self.x_cq.val();
            self.cqp.rd_addr.next = self.x_cq.val().get_bits::<CB>(0);
            self.st.d.next = self.s_nk2.val();
        } else if self.st.q.val() == self.s_nk2.val() {
            self.q_prod.d.next = self.y_prod.val();
            self.q_cons.d.next = self.y_cons.val();
            self.st_inc.next = true;
            if self.y_full.val() {
                self.st_id.next = self.sid_cq_overrun.val();
            } else {
                self.st_id.next = self.sid_nak_received.val();
                self.k_status.d.next = self.cs_remote_discard.val();
                self.k_len.d.next = 0.into();
                self.k_op.d.next = self.op_send.val();
                self.k_qp.d.next = self.r_qp.q.val();
                self.k_recv.d.next = false;
                self.k_index.d.next = self.r_tag.q.val();
                self.k_want.d.next = true;
                self.k_wq.d.next = false;
                self.k_pend.d.next = true;
            }
            self.r_nak.d.next = false;
            self.st.d.next = self.s_drop.val();
        } else if self.st.q.val() == self.s_ca.val() {
            self.dmem.rd_addr.next = self.pa.q.val().get_bits::<DB>(0);
            self.st.d.next = self.s_cb.val();
        } else if self.st.q.val() == self.s_cb.val() {
            self.va.d.next = self.dmem.rd_data.val();
            self.dmem.rd_addr.next = self.pb.q.val().get_bits::<DB>(0);
            self.st.d.next = self.s_cx.val();
            if self.d_loc.val() {
                self.st.d.next = self.s_cai.val();
            }
        } else if self.st.q.val() == self.s_cai.val() {
            self.vb.d.next = self.dmem.rd_data.val();
            self.dmem.rd_addr.next = self.pa1.val();
            self.st.d.next = self.s_cbi.val();
        } else if self.st.q.val() == self.s_cbi.val() {
            self.ia.d.next = self.dmem.rd_data.val();
            self.dmem.rd_addr.next = self.pb1.val();
            self.st.d.next = self.s_cx.val();
        } else if self.st.q.val() == self.s_cx.val() {
            if self.d_loc.val() {
                self.ib.d.next = self.dmem.rd_data.val();
            } else {
                self.vb.d.next = self.dmem.rd_data.val();
                self.ia.d.next = 0.into();
                self.ib.d.next = 0.into();
            }
            self.st.d.next = self.s_cc.val();
        } else if self.st.q.val() == self.s_cc.val() {
            self.st.d.next = self.s_cw.val();
        } else if self.st.q.val() == self.s_cw.val() {
            self.dmem.wr_en.next = true;
            self.dmem.wr_addr.next = self.pd.q.val().get_bits::<DB>(0);
            self.dmem.wr_data.next = self.alu.l0_r.val();
            // The ALU answered the operands given in CC (CALC never passes a reserved op).
            self.dmem.wr_en.next = self.alu.out_valid.val() & !self.alu.err.val();
            if self.d_loc.val() {
                self.st.d.next = self.s_cwi.val();
            } else {
                self.cn_go.next = true;
            }
        } else if self.st.q.val() == self.s_cwi.val() {
            self.dmem.wr_en.next = true;
            self.dmem.wr_addr.next = self.pd1.val();
            self.dmem.wr_data.next = self.alu.l0_ri.val();
            self.cn_go.next = true;
        } else {
            self.st.d.next = self.s_idle.val();
        }

        // ---- After a CALC element: the next one, the send of the result, or the completion.
        if self.cn_go.val() {
            self.ix.d.next = self.ix.q.val() + 1;
            self.pa.d.next = self.pa.q.val() + bit_cast::<16, 8>(self.w1.q.val().get_bits::<8>(32));
            self.pb.d.next = self.pb.q.val() + bit_cast::<16, 8>(self.w1.q.val().get_bits::<8>(40));
            self.pd.d.next = self.pd.q.val() + 1;
            if self.d_loc.val() {
                self.pd.d.next = self.pd.q.val() + 2;
            }
            if (self.ix.q.val() + 1) == self.nx.q.val() {
                if self.w0.q.val().get_bit(14) {
                    self.snd_go.next = true;
                    self.snd_addr.next = self.w1.q.val().get_bits::<16>(48);
                    self.snd_len.next = self.nx.q.val();
                    if self.d_loc.val() {
                        self.snd_len.next = self.nx.q.val() << 1;
                    }
                } else {
                    self.cpl_go.next = true;
                }
            } else {
                self.st.d.next = self.s_ca.val();
            }
        }

        // ---- Completion of the current WQE (the CPL state writes the CQE and the context).
        if self.cpl_go.val() {
            self.k_status.d.next = self.cpl_status.val();
            self.k_len.d.next = self.cpl_len.val();
            self.k_op.d.next = self.d_opc.val();
            self.k_qp.d.next = self.wq.q.val() >> 1;
            self.k_recv.d.next = self.wq.q.val().get_bit(0);
            self.k_index.d.next = self.c_ci.q.val();
            self.k_want.d.next = self.d_sig.val() | (self.cpl_status.val() != self.cs_ok.val());
            self.k_wq.d.next = true;
            self.st.d.next = self.cpl_st.val();
        }

        // ---- Start of a transmission (SEND, or CALC to a peer): header from the WQE.
        if self.snd_go.val() {
            self.t_nak.d.next = false;
            self.t_kind.d.next = false;
            self.t_dst.d.next = self.cur_w1.val().get_bits::<8>(0);
            self.t_qp.d.next = self.cur_w1.val().get_bits::<8>(8);
            self.t_src_qp.d.next = self.wq.q.val() >> 1;
            self.t_cnt_en.d.next = self.cur_w1.val().get_bit(16);
            self.t_cnt.d.next = self.cur_w1.val().get_bits::<8>(24);
            self.t_tag.d.next = self.c_ci.q.val();
            self.ix.d.next = 0.into();
            self.nx.d.next = self.snd_len.val();
            self.pd.d.next = self.snd_addr.val();
            self.st.d.next = self.s_tx0.val();
        }

        // ---- Host response.
        if self.rsp_go.val() {
            self.rsp_valid.d.next = true;
            self.rsp_status.d.next = self.rsp_st.val();
            self.rsp_data.d.next = self.rsp_dat.val();
            self.st.d.next = self.s_bg.val();
        }

        // ---- Statistics (at most one event per cycle).
        if self.st_inc.val() & (self.st_id.val() == 0) {
            self.stat0.d.next = self.stat0.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 1) {
            self.stat1.d.next = self.stat1.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 2) {
            self.stat2.d.next = self.stat2.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 3) {
            self.stat3.d.next = self.stat3.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 4) {
            self.stat4.d.next = self.stat4.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 5) {
            self.stat5.d.next = self.stat5.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 6) {
            self.stat6.d.next = self.stat6.q.val() + 1;
        }
        if self.st_inc.val() & (self.st_id.val() == 7) {
            self.stat7.d.next = self.stat7.q.val() + 1;
        }
        if self.adv_sq.val() {
            self.sq_ptr.d.next = (self.sq_ptr.q.val() + 1) & self.k_qmask.val();
        }

        // ---- In a reset cycle the memories neither write nor read anything of interest.
        if self.reset.val() {
            self.wqc.rd_addr.next = 0.into();
            self.wqc.wr_en.next = false;
            self.wqe0.rd_addr.next = 0.into();
            self.wqe0.wr_en.next = false;
            self.wqe1.rd_addr.next = 0.into();
            self.wqe1.wr_en.next = false;
            self.cqp.rd_addr.next = 0.into();
            self.cqp.wr_en.next = false;
            self.cqw.rd_addr.next = 0.into();
            self.cqw.wr_en.next = false;
            self.cqe.rd_addr.next = 0.into();
            self.cqe.wr_en.next = false;
            self.cnt.rd_addr.next = 0.into();
            self.cnt.wr_en.next = false;
            self.dmem.rd_addr.next = 0.into();
            self.dmem.wr_en.next = false;
        }

        // ---- Ports: every output comes from a register (or the state alone).
        self.host_ready.next = self.st.q.val() == self.s_idle.val();
        self.host_rsp_valid.next = self.rsp_valid.q.val();
        self.host_rsp_status.next = self.rsp_status.q.val();
        self.host_rsp_data.next = self.rsp_data.q.val();
        self.rx_ready.next =
            (self.st.q.val() == self.s_rx_data.val()) | (self.st.q.val() == self.s_drop.val());
        self.tx_valid.next = self.t_valid.q.val();
        self.tx_kind.next = self.t_kind.q.val();
        self.tx_dst.next = self.t_dst.q.val();
        self.tx_src_qp.next = self.t_src_qp.q.val();
        self.tx_qp.next = self.t_qp.q.val();
        self.tx_cnt_en.next = self.t_cnt_en.q.val();
        self.tx_cnt.next = self.t_cnt.q.val();
        self.tx_tag.next = self.t_tag.q.val();
        self.tx_empty.next = self.t_empty.q.val();
        self.tx_last.next = self.t_last.q.val();
        self.tx_data.next = self.t_data.q.val();
    }
}
