//! # Switch collective engine (RTL)
//!
//! The rust-hdl description of the engine specified in `netcoll_models::switch_engine` (read
//! its module docs for the packet rules, counters, configuration port and timing; the cycle
//! model there is compared with this block every output every cycle). Its ports are generated
//! from the one declaration, `netcoll_models::switch_engine_ports!`.
//!
//! # Micro-architecture
//! Four stages (the cycle model's module docs describe them register for register). Stage 0
//! accepts one operation (configuration first) and presents its CGID to the table and state
//! memories, whose read is registered. Stage 1 registers the read data again (the RAM output
//! register) and compares the CGID with the writes the read missed, registering the entry
//! bypass and the older state bypass selects ([`bypass`], module `switch_engine_bypass`).
//! Stage 2 takes the bypassed entry (a mux with a registered select), lets [`classify`]
//! (module `switch_engine_classify`) apply rules 1–5 to it and registers both, with the state
//! as every write but the newest left it. Stage 3 takes the state (a 2:1 mux, the newest
//! write or the registered one), lets the CSM decision ([`csm`], module `switch_engine_csm`)
//! apply rules 6–7, writes the state (and a `Write`'s entry) back and loads the output
//! registers, the verdict and the counter command. Stage 4 shows the outputs while the
//! counters ([`counters`], module `switch_engine_counters`) count the registered verdict or
//! clear, and a `ReadCounter` reads them. So outputs appear four cycles after acceptance and
//! the engine takes one operation per cycle with no stall. After reset a sweep writes every
//! table and state word to zero, one per cycle, with the ready outputs low.
//!
//! The memory words follow the shared layouts `SwitchEngineParams::entry_layout` and
//! `state_layout`; their field positions are this block's constants.

pub mod bypass;
pub mod classify;
pub mod counters;
pub mod csm;

pub use bypass::SwitchEngineBypass;
pub use classify::SwitchEngineClassify;
pub use counters::SwitchEngineCounters;
pub use csm::SwitchEngineCsm;

use crate::dff_setup;
use crate::emit::{emit_with_children, EmitError, Module};
use crate::prim::{Mem, Reg};
use crate::rtl_block;
use netcoll_models::kit::cycle::ValueSim;
use netcoll_models::kit::ports::mask;
use netcoll_models::switch_engine::{
    CfgOp, CsmState, SwitchEngineParams, Verdict, COUNTER_INDEX_BITS, OP_BITS, TID_BITS,
};
use rust_hdl::prelude::*;

/// Width of a CSM state code (a plain constant: `get_bits::<{ CsmState::BITS }>` would make
/// `#[hdl_gen]`'s output warn about braces).
const CSM_BITS: usize = CsmState::BITS;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The position of a field of a parameter-dependent memory word layout.
fn at(l: &netcoll_models::kit::layout::Layout, field: &str) -> Constant<Bits<8>> {
    k(l.lsb(field) as u64)
}

/// The parameters of the monomorphisation (`R` radix, `P` = log2 `R`, `G` CGID bits).
fn params<const R: usize, const P: usize, const G: usize, const C: usize>() -> SwitchEngineParams {
    SwitchEngineParams {
        radix: R,
        groups: 1 << G,
        counter_bits: C,
    }
}

netcoll_models::switch_engine_ports!(rtl_block! {
    /// The engine, monomorphised per supported parameter set: `R` radix, `P` = log2(R), `G`
    /// CGID bits, `C` counter bits, `EW` = 2 + P + R entry-word bits, `SW` = 5 + R state-word
    /// bits (stable Rust cannot compute the last two from the first, so [`build`] does).
    pub struct SwitchEngine<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
    > {
        /// Low until the reset sweep has cleared the last group.
        init_done: Reg<bool> = Default::default(),
        /// The group the sweep clears next.
        init_ptr: Reg<Bits<G>> = Default::default(),
        // Stage 1: the accepted operation.
        s1_valid: Reg<bool> = Default::default(),
        s1_is_cfg: Reg<bool> = Default::default(),
        s1_port: Reg<Bits<P>> = Default::default(),
        s1_cgid: Reg<Bits<G>> = Default::default(),
        s1_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s1_op: Reg<Bits<OP_BITS>> = Default::default(),
        s1_cfg_op: Reg<Bits<{ CfgOp::BITS }>> = Default::default(),
        s1_cfg_entry: Reg<Bits<EW>> = Default::default(),
        s1_cfg_counter: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),
        /// It will write the table (a `Write`) / the state (a packet or a `Write`) in stage 3.
        s1_wr_tbl: Reg<bool> = Default::default(),
        s1_wr_st: Reg<bool> = Default::default(),
        // Stage 2: the same, a cycle later.
        s2_valid: Reg<bool> = Default::default(),
        s2_is_cfg: Reg<bool> = Default::default(),
        s2_port: Reg<Bits<P>> = Default::default(),
        /// `1 << s2_port`, decoded in stage 1.
        s2_port_hot: Reg<Bits<R>> = Default::default(),
        s2_cgid: Reg<Bits<G>> = Default::default(),
        s2_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s2_op: Reg<Bits<OP_BITS>> = Default::default(),
        s2_cfg_op: Reg<Bits<{ CfgOp::BITS }>> = Default::default(),
        s2_cfg_entry: Reg<Bits<EW>> = Default::default(),
        s2_cfg_counter: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),
        s2_wr_tbl: Reg<bool> = Default::default(),
        s2_wr_st: Reg<bool> = Default::default(),
        // Stage 3: the same, a cycle later …
        s3_valid: Reg<bool> = Default::default(),
        s3_is_cfg: Reg<bool> = Default::default(),
        s3_port: Reg<Bits<P>> = Default::default(),
        s3_port_hot: Reg<Bits<R>> = Default::default(),
        s3_cgid: Reg<Bits<G>> = Default::default(),
        s3_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s3_cfg_op: Reg<Bits<{ CfgOp::BITS }>> = Default::default(),
        s3_cfg_entry: Reg<Bits<EW>> = Default::default(),
        s3_cfg_counter: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),
        s3_wr_tbl: Reg<bool> = Default::default(),
        s3_wr_st: Reg<bool> = Default::default(),
        // … with the entry, resolved in stage 2, and what `classify` made of it.
        s3_entry: Reg<Bits<EW>> = Default::default(),
        s3_p_path: Reg<bool> = Default::default(),
        s3_c_path: Reg<bool> = Default::default(),
        s3_v_entry: Reg<Bits<{ Verdict::BITS }>> = Default::default(),
        s3_status_req: Reg<bool> = Default::default(),
        s3_parent_hot: Reg<Bits<R>> = Default::default(),
        /// `g_fail`, `g_full`, `t_same`, `t_behind`, `rep_bit` and `all_now` of the operation in
        /// stage 3 (see [`csm`]) for its state as `st_pre` holds it (`pre_*`, worked out in
        /// stage 2) and as the last edge's decision wrote it (`fwd_*`, worked out with that
        /// decision): the decision of one packet to a group feeds the next one's through a 2:1
        /// mux rather than TID compares, a port mux and a mask compare.
        pre_fail: Reg<bool> = Default::default(),
        pre_full: Reg<bool> = Default::default(),
        pre_t_same: Reg<bool> = Default::default(),
        pre_t_behind: Reg<bool> = Default::default(),
        pre_rep_bit: Reg<bool> = Default::default(),
        pre_all_now: Reg<bool> = Default::default(),
        fwd_fail: Reg<bool> = Default::default(),
        fwd_full: Reg<bool> = Default::default(),
        fwd_t_same: Reg<bool> = Default::default(),
        fwd_t_behind: Reg<bool> = Default::default(),
        fwd_rep_bit: Reg<bool> = Default::default(),
        fwd_all_now: Reg<bool> = Default::default(),
        /// The state stage 3 wrote at the last edge (for the bypass).
        byp1_st: Reg<Bits<SW>> = Default::default(),
        /// The collective forwarding table.
        tbl: Mem<Bits<EW>, G> = Default::default(),
        /// The per-group CSM state.
        st: Mem<Bits<SW>, G> = Default::default(),
        /// The memories' output registers and the write bypass (module `switch_engine_bypass`).
        bypass: SwitchEngineBypass<G, EW, SW> = Default::default(),
        /// Rules 1–5, in stage 2 (module `switch_engine_classify`).
        classify: SwitchEngineClassify<R, P> = Default::default(),
        /// The decision of rules 6–7, in stage 3 (module `switch_engine_csm`).
        csm: SwitchEngineCsm<R> = Default::default(),
        /// The drop / event counters (module `switch_engine_counters`).
        counters: SwitchEngineCounters<C> = Default::default(),
        // Stage 4: output registers …
        o_out_valid: Reg<bool> = Default::default(),
        o_out_ports: Reg<Bits<R>> = Default::default(),
        o_out_cgid: Reg<Bits<G>> = Default::default(),
        o_out_tid: Reg<Bits<TID_BITS>> = Default::default(),
        o_out_op: Reg<Bits<OP_BITS>> = Default::default(),
        o_ev_valid: Reg<bool> = Default::default(),
        o_ev_cgid: Reg<Bits<G>> = Default::default(),
        o_ev_verdict: Reg<Bits<{ Verdict::BITS }>> = Default::default(),
        o_ev_state: Reg<Bits<{ CsmState::BITS }>> = Default::default(),
        o_ev_tid: Reg<Bits<TID_BITS>> = Default::default(),
        o_ev_fail: Reg<bool> = Default::default(),
        o_rsp_valid: Reg<bool> = Default::default(),
        o_rsp_entry: Reg<Bits<EW>> = Default::default(),
        o_rsp_st: Reg<Bits<SW>> = Default::default(),
        // … and the counter command: count the verdict, clear, or read counter `s4_sel`.
        s4_count: Reg<bool> = Default::default(),
        s4_verdict: Reg<Bits<{ Verdict::BITS }>> = Default::default(),
        s4_clear: Reg<bool> = Default::default(),
        s4_read: Reg<bool> = Default::default(),
        s4_sel: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),

        // Stage 0.
        acc_cfg: Signal<Local, bool> = Default::default(),
        acc_pkt: Signal<Local, bool> = Default::default(),
        cfg_word: Signal<Local, Bits<EW>> = Default::default(),
        // Stage 2: the entry's child mask and the older state's fields, for `pre_*`.
        s2_children: Signal<Local, Bits<R>> = Default::default(),
        older_rep: Signal<Local, Bits<R>> = Default::default(),
        older_tid: Signal<Local, Bits<TID_BITS>> = Default::default(),
        /// `s2_tid` less the TID of stage 3's group after this decision, in each case.
        fwd_diff_kept: Signal<Local, Bits<TID_BITS>> = Default::default(),
        fwd_diff_next: Signal<Local, Bits<TID_BITS>> = Default::default(),
        fwd_diff: Signal<Local, Bits<TID_BITS>> = Default::default(),
        pre_diff: Signal<Local, Bits<TID_BITS>> = Default::default(),
        // Stage 3.
        pkt_s3: Signal<Local, bool> = Default::default(),
        /// Stage 3's decision leaves stage 2's group with nothing reported.
        fwd_zero: Signal<Local, bool> = Default::default(),
        /// Stage 2's port reported in stage 3's group after this decision but for it …
        fwd_kept_bit: Signal<Local, bool> = Default::default(),
        /// … and `all_now` of stage 2's packet for a state reported as `g_rep` (`fwd_all_kept`)
        /// or `g_rep | port_hot` (`fwd_all_rep`) with stage 3's port.
        fwd_all_kept: Signal<Local, bool> = Default::default(),
        fwd_all_rep: Signal<Local, bool> = Default::default(),
        cfg_s3: Signal<Local, bool> = Default::default(),
        n_st_word: Signal<Local, Bits<SW>> = Default::default(),
        /// The state stage 3 writes: the packet's new state, zero for a `Write`.
        wr_st_word: Signal<Local, Bits<SW>> = Default::default(),

        // Field positions of the memory words, from the shared layouts.
        e_valid_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "valid"),
        e_root_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "is_root"),
        e_parent_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "parent"),
        e_children_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "children"),
        s_csm_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "csm"),
        s_fail_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "fail"),
        s_tid_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "tid"),
        s_rep_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "reported"),
        one_g: Constant<Bits<G>> = k(1),
        /// `tid - group tid` of a packet of the group's transaction, of the one before, and
        /// one step of the TID.
        tid_same: Constant<Bits<TID_BITS>> = k(0),
        tid_behind: Constant<Bits<TID_BITS>> = k(3),
        tid_step: Constant<Bits<TID_BITS>> = k(1),
        csm_full: Constant<Bits<CSM_BITS>> = k(CsmState::Full.code()),
        last_g: Constant<Bits<G>> = k(mask(G)),
        zero_ew: Constant<Bits<EW>> = k(0),
        zero_sw: Constant<Bits<SW>> = k(0),
        one_r: Constant<Bits<R>> = k(1),
        cfg_write: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::Write.code()),
        cfg_read_entry: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::ReadEntry.code()),
        cfg_read_counter: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::ReadCounter.code()),
        cfg_clear: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::ClearCounters.code()),
    }
});

impl<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
    > Logic for SwitchEngine<R, P, G, C, EW, SW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            init_done,
            init_ptr,
            s1_valid,
            s1_is_cfg,
            s1_port,
            s1_cgid,
            s1_tid,
            s1_op,
            s1_cfg_op,
            s1_cfg_entry,
            s1_cfg_counter,
            s1_wr_tbl,
            s1_wr_st,
            s2_valid,
            s2_is_cfg,
            s2_port,
            s2_port_hot,
            s2_cgid,
            s2_tid,
            s2_op,
            s2_cfg_op,
            s2_cfg_entry,
            s2_cfg_counter,
            s2_wr_tbl,
            s2_wr_st,
            s3_valid,
            s3_is_cfg,
            s3_port,
            s3_port_hot,
            s3_cgid,
            s3_tid,
            s3_cfg_op,
            s3_cfg_entry,
            s3_cfg_counter,
            s3_wr_tbl,
            s3_wr_st,
            s3_entry,
            s3_p_path,
            s3_c_path,
            s3_v_entry,
            s3_status_req,
            s3_parent_hot,
            pre_fail,
            pre_full,
            pre_t_same,
            pre_t_behind,
            pre_rep_bit,
            pre_all_now,
            fwd_fail,
            fwd_full,
            fwd_t_same,
            fwd_t_behind,
            fwd_rep_bit,
            fwd_all_now,
            byp1_st,
            o_out_valid,
            o_out_ports,
            o_out_cgid,
            o_out_tid,
            o_out_op,
            o_ev_valid,
            o_ev_cgid,
            o_ev_verdict,
            o_ev_state,
            o_ev_tid,
            o_ev_fail,
            o_rsp_valid,
            o_rsp_entry,
            o_rsp_st,
            s4_count,
            s4_verdict,
            s4_clear,
            s4_read,
            s4_sel
        );
        self.tbl.clock.next = self.clock.val();
        self.st.clock.next = self.clock.val();
        self.bypass.clock.next = self.clock.val();
        self.bypass.reset.next = self.reset.val();
        self.counters.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();

        // ---- Stage 0: accept one operation; configuration has priority over packets.
        self.acc_cfg.next = self.init_done.q.val() & self.cfg_valid.val();
        self.acc_pkt.next = self.init_done.q.val() & !self.cfg_valid.val() & self.pkt_valid.val();
        self.pkt_ready.next = self.init_done.q.val() & !self.cfg_valid.val();
        self.cfg_ready.next = self.init_done.q.val();
        self.cfg_word.next = ((bit_cast::<EW, R>(self.cfg_children.val())
            << self.e_children_at.val())
            | (bit_cast::<EW, P>(self.cfg_parent.val()) << self.e_parent_at.val()))
        .replace_bit(self.e_root_at.val().index(), self.cfg_is_root.val())
        .replace_bit(self.e_valid_at.val().index(), self.cfg_entry_valid.val());
        self.s1_valid.d.next = self.acc_cfg.val() | self.acc_pkt.val();
        self.s1_is_cfg.d.next = self.acc_cfg.val();
        self.s1_port.d.next = self.pkt_port.val();
        self.s1_tid.d.next = self.pkt_tid.val();
        self.s1_op.d.next = self.pkt_op.val();
        self.s1_cfg_op.d.next = self.cfg_op.val();
        self.s1_cfg_entry.d.next = self.cfg_word.val();
        self.s1_cfg_counter.d.next = self.cfg_counter.val();
        self.s1_wr_tbl.d.next = self.acc_cfg.val() & (self.cfg_op.val() == self.cfg_write.val());
        self.s1_wr_st.d.next =
            self.acc_pkt.val() | (self.acc_cfg.val() & (self.cfg_op.val() == self.cfg_write.val()));
        if self.cfg_valid.val() {
            self.s1_cgid.d.next = self.cfg_cgid.val();
            self.tbl.rd_addr.next = self.cfg_cgid.val();
            self.st.rd_addr.next = self.cfg_cgid.val();
        } else {
            self.s1_cgid.d.next = self.pkt_cgid.val();
            self.tbl.rd_addr.next = self.pkt_cgid.val();
            self.st.rd_addr.next = self.pkt_cgid.val();
        }

        // ---- Stage 1: the read data is registered and the bypass compared (in `bypass`).
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_is_cfg.d.next = self.s1_is_cfg.q.val();
        self.s2_port.d.next = self.s1_port.q.val();
        self.s2_port_hot.d.next = self.one_r.val() << self.s1_port.q.val();
        self.s2_cgid.d.next = self.s1_cgid.q.val();
        self.s2_tid.d.next = self.s1_tid.q.val();
        self.s2_op.d.next = self.s1_op.q.val();
        self.s2_cfg_op.d.next = self.s1_cfg_op.q.val();
        self.s2_cfg_entry.d.next = self.s1_cfg_entry.q.val();
        self.s2_cfg_counter.d.next = self.s1_cfg_counter.q.val();
        self.s2_wr_tbl.d.next = self.s1_wr_tbl.q.val();
        self.s2_wr_st.d.next = self.s1_wr_st.q.val();
        self.bypass.tbl_rd.next = self.tbl.rd_data.val();
        self.bypass.st_rd.next = self.st.rd_data.val();
        self.bypass.s1_cgid.next = self.s1_cgid.q.val();
        self.bypass.s2_cgid.next = self.s2_cgid.q.val();
        self.bypass.s2_wr_tbl.next = self.s2_wr_tbl.q.val();
        self.bypass.s2_entry.next = self.s2_cfg_entry.q.val();
        self.bypass.s3_cgid.next = self.s3_cgid.q.val();
        self.bypass.s3_wr_tbl.next = self.s3_wr_tbl.q.val();
        self.bypass.s3_wr_st.next = self.s3_wr_st.q.val();
        self.bypass.s3_entry.next = self.s3_cfg_entry.q.val();
        self.bypass.byp1_st.next = self.byp1_st.q.val();

        // ---- Stage 2: the entry is resolved (in `bypass`) and classified (rules 1–5).
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_is_cfg.d.next = self.s2_is_cfg.q.val();
        self.s3_port.d.next = self.s2_port.q.val();
        self.s3_port_hot.d.next = self.s2_port_hot.q.val();
        self.s3_cgid.d.next = self.s2_cgid.q.val();
        self.s3_tid.d.next = self.s2_tid.q.val();
        self.s3_cfg_op.d.next = self.s2_cfg_op.q.val();
        self.s3_cfg_entry.d.next = self.s2_cfg_entry.q.val();
        self.s3_cfg_counter.d.next = self.s2_cfg_counter.q.val();
        self.s3_wr_tbl.d.next = self.s2_wr_tbl.q.val();
        self.s3_wr_st.d.next = self.s2_wr_st.q.val();
        self.s3_entry.d.next = self.bypass.tbl_word.val();
        self.classify.port.next = self.s2_port.q.val();
        self.classify.op.next = self.s2_op.q.val();
        self.classify.e_valid.next = self
            .bypass
            .tbl_word
            .val()
            .get_bit(self.e_valid_at.val().index());
        self.classify.e_is_root.next = self
            .bypass
            .tbl_word
            .val()
            .get_bit(self.e_root_at.val().index());
        self.classify.e_parent.next = self
            .bypass
            .tbl_word
            .val()
            .get_bits::<P>(self.e_parent_at.val().index());
        self.classify.e_children.next = self
            .bypass
            .tbl_word
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.s3_p_path.d.next = self.classify.p_path.val();
        self.s3_c_path.d.next = self.classify.c_path.val();
        self.s3_v_entry.d.next = self.classify.v_entry.val();
        self.s3_status_req.d.next = self.classify.status_req.val();
        self.s3_parent_hot.d.next = self.classify.parent_hot.val();
        self.s2_children.next = self
            .bypass
            .tbl_word
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.older_rep.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<R>(self.s_rep_at.val().index());
        self.older_tid.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<TID_BITS>(self.s_tid_at.val().index());
        self.pre_fail.d.next = self
            .bypass
            .st_older
            .val()
            .get_bit(self.s_fail_at.val().index());
        self.pre_full.d.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<CSM_BITS>(self.s_csm_at.val().index())
            == self.csm_full.val();
        self.pre_diff.next = self.s2_tid.q.val() - self.older_tid.val();
        self.pre_t_same.d.next = self.pre_diff.val() == self.tid_same.val();
        self.pre_t_behind.d.next = self.pre_diff.val() == self.tid_behind.val();
        self.pre_rep_bit.d.next = self.older_rep.val().get_bit(self.s2_port.q.val().index());
        self.pre_all_now.d.next =
            (self.older_rep.val() | self.s2_port_hot.q.val()) == self.s2_children.val();

        // ---- Stage 3: decide on the entry and the bypassed state (rules 6–7).
        self.pkt_s3.next = self.s3_valid.q.val() & !self.s3_is_cfg.q.val();
        self.cfg_s3.next = self.s3_valid.q.val() & self.s3_is_cfg.q.val();
        self.csm.port_hot.next = self.s3_port_hot.q.val();
        self.csm.status_req.next = self.s3_status_req.q.val();
        self.csm.p_path.next = self.s3_p_path.q.val();
        self.csm.c_path.next = self.s3_c_path.q.val();
        self.csm.v_entry.next = self.s3_v_entry.q.val();
        self.csm.parent_hot.next = self.s3_parent_hot.q.val();
        self.csm.e_is_root.next = self.s3_entry.q.val().get_bit(self.e_root_at.val().index());
        self.csm.e_children.next = self
            .s3_entry
            .q
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.csm.g_csm.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<CSM_BITS>(self.s_csm_at.val().index());
        self.csm.g_tid.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<TID_BITS>(self.s_tid_at.val().index());
        self.csm.g_rep.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<R>(self.s_rep_at.val().index());
        // (Each written once, unconditionally, so that the Verilog assigns them continuously
        // and the decision's outputs, read below, are not in a block that also drives them.)
        self.csm.g_fail.next = (self.bypass.st_newest.val() & self.fwd_fail.q.val())
            | (!self.bypass.st_newest.val() & self.pre_fail.q.val());
        self.csm.g_full.next = (self.bypass.st_newest.val() & self.fwd_full.q.val())
            | (!self.bypass.st_newest.val() & self.pre_full.q.val());
        self.csm.t_same.next = (self.bypass.st_newest.val() & self.fwd_t_same.q.val())
            | (!self.bypass.st_newest.val() & self.pre_t_same.q.val());
        self.csm.t_behind.next = (self.bypass.st_newest.val() & self.fwd_t_behind.q.val())
            | (!self.bypass.st_newest.val() & self.pre_t_behind.q.val());
        self.csm.rep_bit.next = (self.bypass.st_newest.val() & self.fwd_rep_bit.q.val())
            | (!self.bypass.st_newest.val() & self.pre_rep_bit.q.val());
        self.csm.all_now.next = (self.bypass.st_newest.val() & self.fwd_all_now.q.val())
            | (!self.bypass.st_newest.val() & self.pre_all_now.q.val());
        // The same for stage 2's packet, should its group be this one: this decision's
        // state, seen from stage 2's port and entry (a `Write` resets the state).
        self.fwd_zero.next = self.s3_is_cfg.q.val() | self.csm.restart.val();
        self.fwd_kept_bit.next = self.csm.g_rep.val().get_bit(self.s2_port.q.val().index());
        self.fwd_all_kept.next =
            (self.csm.g_rep.val() | self.s2_port_hot.q.val()) == self.s2_children.val();
        self.fwd_all_rep.next =
            (self.csm.g_rep.val() | self.s3_port_hot.q.val() | self.s2_port_hot.q.val())
                == self.s2_children.val();
        // The TID is kept, advanced by a restart, or zero after a `Write`.
        self.fwd_diff_kept.next = self.s2_tid.q.val() - self.csm.g_tid.val();
        self.fwd_diff_next.next = self.fwd_diff_kept.val() - self.tid_step.val();
        self.fwd_diff.next = self.fwd_diff_kept.val();
        if self.s3_is_cfg.q.val() {
            self.fwd_diff.next = self.s2_tid.q.val();
        } else if self.csm.restart.val() {
            self.fwd_diff.next = self.fwd_diff_next.val();
        }
        self.fwd_t_same.d.next = self.fwd_diff.val() == self.tid_same.val();
        self.fwd_t_behind.d.next = self.fwd_diff.val() == self.tid_behind.val();
        self.fwd_fail.d.next = !self.s3_is_cfg.q.val() & self.csm.n_fail.val();
        // Full after a last report, or if it was and neither reported nor restarted.
        self.fwd_full.d.next = self.csm.g_full.val();
        if self.fwd_zero.val() {
            self.fwd_full.d.next = false;
        } else if self.csm.report.val() {
            self.fwd_full.d.next = self.csm.all_now.val();
        }
        self.fwd_rep_bit.d.next = !self.fwd_zero.val()
            & (self.fwd_kept_bit.val()
                | (self.csm.report.val() & (self.s3_port.q.val() == self.s2_port.q.val())));
        self.fwd_all_now.d.next = self.fwd_all_kept.val();
        if self.fwd_zero.val() {
            self.fwd_all_now.d.next = self.s2_port_hot.q.val() == self.s2_children.val();
        } else if self.csm.report.val() {
            self.fwd_all_now.d.next = self.fwd_all_rep.val();
        }
        self.n_st_word.next = ((bit_cast::<SW, R>(self.csm.n_rep.val()) << self.s_rep_at.val())
            | (bit_cast::<SW, TID_BITS>(self.csm.n_tid.val()) << self.s_tid_at.val())
            | (bit_cast::<SW, CSM_BITS>(self.csm.n_csm.val()) << self.s_csm_at.val()))
        .replace_bit(self.s_fail_at.val().index(), self.csm.n_fail.val());
        // Every packet writes its group's state back (unchanged for the drops 1–3); a `Write`
        // resets it.
        self.wr_st_word.next = self.n_st_word.val();
        if self.s3_is_cfg.q.val() {
            self.wr_st_word.next = self.zero_sw.val();
        }
        self.byp1_st.d.next = self.wr_st_word.val();

        // ---- Memory writes: the init sweep, or stage 3's.
        self.tbl.wr_en.next = self.s3_wr_tbl.q.val();
        self.tbl.wr_addr.next = self.s3_cgid.q.val();
        self.tbl.wr_data.next = self.s3_cfg_entry.q.val();
        self.st.wr_en.next = self.s3_wr_st.q.val();
        self.st.wr_addr.next = self.s3_cgid.q.val();
        self.st.wr_data.next = self.wr_st_word.val();
        if !self.init_done.q.val() {
            self.tbl.wr_en.next = true;
            self.tbl.wr_addr.next = self.init_ptr.q.val();
            self.tbl.wr_data.next = self.zero_ew.val();
            self.st.wr_en.next = true;
            self.st.wr_addr.next = self.init_ptr.q.val();
            self.st.wr_data.next = self.zero_sw.val();
            self.init_ptr.d.next = self.init_ptr.q.val() + self.one_g.val();
            if self.init_ptr.q.val() == self.last_g.val() {
                self.init_done.d.next = true;
            }
        }

        // ---- Stage 4's registers: outputs (zero unless loaded; the output packet's fields
        // are loaded every cycle and zeroed at the ports instead, so that they do not wait for
        // the decision to send) and the counter command.
        self.o_out_valid.d.next = self.pkt_s3.val() & self.csm.send.val();
        self.o_out_ports.d.next = self.csm.send_ports.val();
        self.o_out_cgid.d.next = self.s3_cgid.q.val();
        self.o_out_tid.d.next = self.s3_tid.q.val();
        self.o_out_op.d.next = self.csm.send_op.val();
        self.o_ev_valid.d.next = self.pkt_s3.val();
        self.o_ev_cgid.d.next = 0.into();
        self.o_ev_verdict.d.next = 0.into();
        self.o_ev_state.d.next = 0.into();
        self.o_ev_tid.d.next = 0.into();
        self.o_ev_fail.d.next = false;
        if self.pkt_s3.val() {
            self.o_ev_cgid.d.next = self.s3_cgid.q.val();
            self.o_ev_verdict.d.next = self.csm.verdict.val();
            if self.csm.reads_group.val() {
                self.o_ev_state.d.next = self.csm.n_csm.val();
                self.o_ev_tid.d.next = self.csm.n_tid.val();
                self.o_ev_fail.d.next = self.csm.n_fail.val();
            }
        }
        self.o_rsp_valid.d.next = self.cfg_s3.val();
        self.o_rsp_entry.d.next = self.zero_ew.val();
        self.o_rsp_st.d.next = self.zero_sw.val();
        if self.cfg_s3.val() {
            if self.s3_cfg_op.q.val() == self.cfg_write.val() {
                self.o_rsp_entry.d.next = self.s3_cfg_entry.q.val();
            }
            if self.s3_cfg_op.q.val() == self.cfg_read_entry.val() {
                self.o_rsp_entry.d.next = self.s3_entry.q.val();
                self.o_rsp_st.d.next = self.bypass.st_word.val();
            }
        }
        self.s4_count.d.next = self.pkt_s3.val();
        self.s4_verdict.d.next = self.csm.verdict.val();
        self.s4_clear.d.next = self.cfg_s3.val() & (self.s3_cfg_op.q.val() == self.cfg_clear.val());
        self.s4_read.d.next =
            self.cfg_s3.val() & (self.s3_cfg_op.q.val() == self.cfg_read_counter.val());
        self.s4_sel.d.next = self.s3_cfg_counter.q.val();

        // ---- Stage 4: the counters count, clear or are read, in operation order.
        self.counters.count.next = self.s4_count.q.val();
        self.counters.verdict.next = self.s4_verdict.q.val();
        self.counters.clear.next = self.s4_clear.q.val();
        self.counters.sel.next = self.s4_sel.q.val();
        self.rsp_counter.next = 0.into();
        if self.s4_read.q.val() {
            self.rsp_counter.next = self.counters.value.val();
        }

        // ---- Ports: registers, but for the two readies, `rsp_counter` and the zeroing of
        // `out_*` when no packet is sent.
        self.out_valid.next = self.o_out_valid.q.val();
        self.out_ports.next = 0.into();
        self.out_cgid.next = 0.into();
        self.out_tid.next = 0.into();
        self.out_op.next = 0.into();
        if self.o_out_valid.q.val() {
            self.out_ports.next = self.o_out_ports.q.val();
            self.out_cgid.next = self.o_out_cgid.q.val();
            self.out_tid.next = self.o_out_tid.q.val();
            self.out_op.next = self.o_out_op.q.val();
        }
        self.ev_valid.next = self.o_ev_valid.q.val();
        self.ev_cgid.next = self.o_ev_cgid.q.val();
        self.ev_verdict.next = self.o_ev_verdict.q.val();
        self.ev_state.next = self.o_ev_state.q.val();
        self.ev_tid.next = self.o_ev_tid.q.val();
        self.ev_fail.next = self.o_ev_fail.q.val();
        self.rsp_valid.next = self.o_rsp_valid.q.val();
        self.rsp_entry_valid.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bit(self.e_valid_at.val().index());
        self.rsp_is_root.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bit(self.e_root_at.val().index());
        self.rsp_parent.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bits::<P>(self.e_parent_at.val().index());
        self.rsp_children.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.rsp_state.next = self
            .o_rsp_st
            .q
            .val()
            .get_bits::<CSM_BITS>(self.s_csm_at.val().index());
        self.rsp_fail.next = self.o_rsp_st.q.val().get_bit(self.s_fail_at.val().index());
        self.rsp_tid.next = self
            .o_rsp_st
            .q
            .val()
            .get_bits::<TID_BITS>(self.s_tid_at.val().index());
        self.rsp_reported.next = self
            .o_rsp_st
            .q
            .val()
            .get_bits::<R>(self.s_rep_at.val().index());
    }
}

/// The engine's RTL at one parameter set, behind the interfaces the registry needs.
pub trait SwitchEngineRtl {
    /// The block as Verilog (with its two sub-modules), `header` as its leading comment.
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
    /// The block under rust-hdl's `simulate()`, as a value-vector design.
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim>;
}

impl<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
    > SwitchEngineRtl for SwitchEngine<R, P, G, C, EW, SW>
{
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        emit_with_children(
            self,
            "switch_engine",
            header,
            &[
                ("bypass", "switch_engine_bypass"),
                ("classify", "switch_engine_classify"),
                ("csm", "switch_engine_csm"),
                ("counters", "switch_engine_counters"),
            ],
        )
    }
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim> {
        Box::new(crate::kit::RtlSim::new(*self))
    }
}

fn boxed<
    const R: usize,
    const P: usize,
    const G: usize,
    const C: usize,
    const EW: usize,
    const SW: usize,
>() -> Box<dyn SwitchEngineRtl> {
    let mut e = SwitchEngine::<R, P, G, C, EW, SW>::default();
    e.connect_all();
    Box::new(e)
}

/// The engine RTL for `p`, or `None` when `p` is not a supported parameter set (the
/// configuration loader rejects those first, naming the allowed values).
pub fn build(p: &SwitchEngineParams) -> Option<Box<dyn SwitchEngineRtl>> {
    macro_rules! pick {
        ($(($r:literal, $pb:literal, $ew:literal, $sw:literal)),*; $(($gn:literal, $gb:literal)),*) => {
            pick!(@r [$(($r, $pb, $ew, $sw)),*] [$(($gn, $gb)),*])
        };
        (@r [$(($r:literal, $pb:literal, $ew:literal, $sw:literal)),*] $gs:tt) => {
            $( if p.radix == $r { return pick!(@g $r, $pb, $ew, $sw, $gs); } )*
        };
        (@g $r:literal, $pb:literal, $ew:literal, $sw:literal, [$(($gn:literal, $gb:literal)),*]) => {{
            $( if p.groups == $gn {
                return match p.counter_bits {
                    16 => Some(boxed::<$r, $pb, $gb, 16, $ew, $sw>()),
                    32 => Some(boxed::<$r, $pb, $gb, 32, $ew, $sw>()),
                    _ => None,
                };
            } )*
            None
        }};
    }
    pick!((4, 2, 8, 9), (8, 3, 13, 13), (16, 4, 22, 21), (32, 5, 39, 37);
          (16, 4), (256, 8), (1024, 10), (4096, 12));
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::kit::params::ParamTable;

    #[test]
    fn every_supported_parameter_set_builds_with_its_word_widths() {
        for &radix in SwitchEngineParams::KEYS[0].allowed {
            for &groups in SwitchEngineParams::KEYS[1].allowed {
                for &counter_bits in SwitchEngineParams::KEYS[2].allowed {
                    let p = SwitchEngineParams {
                        radix,
                        groups,
                        counter_bits,
                    };
                    assert!(p.is_supported());
                    assert!(build(&p).is_some(), "{p:?}");
                }
            }
        }
        // The EW / SW of the monomorphisations are the shared layouts' widths.
        for (radix, ew, sw) in [(4, 8, 9), (8, 13, 13), (16, 22, 21), (32, 39, 37)] {
            let p = SwitchEngineParams {
                radix,
                ..Default::default()
            };
            assert_eq!(
                (p.entry_layout().width(), p.state_layout().width()),
                (ew, sw)
            );
        }
        assert!(build(&SwitchEngineParams {
            radix: 6,
            groups: 16,
            counter_bits: 16
        })
        .is_none());
    }
}
