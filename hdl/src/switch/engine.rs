//! # Switch collective engine (RTL)
//!
//! The rust-hdl description of the engine specified in `netcoll_models::switch` (read its module
//! docs for the packet semantics, counters, configuration port and timing; the cycle model there
//! is compared with this block every output every cycle).
//!
//! # Inputs
//! - `clock`, `reset` (synchronous, active high);
//! - packet port: `pkt_valid`, `pkt_port` (P bits), `pkt_cgid` (G bits), `pkt_tid` (2),
//!   `pkt_op` (3);
//! - configuration port: `cfg_valid`, `cfg_op` (2), `cfg_cgid`, `cfg_entry_valid`, `cfg_parent`,
//!   `cfg_children` (R bits), `cfg_is_root`, `cfg_counter` (3).
//!
//! # Outputs
//! - `pkt_ready`, `cfg_ready`;
//! - packet out: `out_valid`, `out_ports` (R-bit mask), `out_cgid`, `out_tid`, `out_op`;
//! - event per accepted packet: `ev_valid`, `ev_cgid`, `ev_verdict`, `ev_state`, `ev_tid`,
//!   `ev_fail`;
//! - configuration response: `rsp_valid`, `rsp_entry_valid`, `rsp_parent`, `rsp_children`,
//!   `rsp_is_root`, `rsp_state`, `rsp_tid`, `rsp_fail`, `rsp_reported`, `rsp_counter`.
//!
//! # Micro-architecture
//! Two stages. Stage 0 accepts one operation (configuration first) and presents its CGID to the
//! table and state memories, whose read is registered. Stage 1 gets the entry and state —
//! through a one-deep bypass when stage 1 wrote the same CGID in the previous cycle, because the
//! memories read before they write — decides, writes the state back, bumps counters and loads
//! the output registers. So outputs appear two cycles after acceptance and the engine takes one
//! operation per cycle with no stall. After reset a sweep writes every table and state word to
//! zero, one per cycle, with the ready outputs low.
//!
//! Memory words: entry = `{children[R], parent[P], is_root, valid}`,
//! state = `{reported[R], tid[2], fail, csm[2]}` (LSB on the right).

use crate::prim::{Mem, Reg};
use rust_hdl::prelude::*;

/// The engine, monomorphised per supported parameter set: `R` radix, `P` = log2(R), `G` CGID
/// bits, `C` counter bits, `EW` = 2 + P + R entry-word bits, `SW` = 5 + R state-word bits
/// (stable Rust cannot compute the last two from the first, so [`crate::switch::build`] does).
#[derive(LogicBlock)]
pub struct SwitchEngine<
    const R: usize,
    const P: usize,
    const G: usize,
    const C: usize,
    const EW: usize,
    const SW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub pkt_valid: Signal<In, bool>,
    pub pkt_port: Signal<In, Bits<P>>,
    pub pkt_cgid: Signal<In, Bits<G>>,
    pub pkt_tid: Signal<In, Bits<2>>,
    pub pkt_op: Signal<In, Bits<3>>,
    pub cfg_valid: Signal<In, bool>,
    pub cfg_op: Signal<In, Bits<2>>,
    pub cfg_cgid: Signal<In, Bits<G>>,
    pub cfg_entry_valid: Signal<In, bool>,
    pub cfg_parent: Signal<In, Bits<P>>,
    pub cfg_children: Signal<In, Bits<R>>,
    pub cfg_is_root: Signal<In, bool>,
    pub cfg_counter: Signal<In, Bits<3>>,

    pub pkt_ready: Signal<Out, bool>,
    pub cfg_ready: Signal<Out, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_ports: Signal<Out, Bits<R>>,
    pub out_cgid: Signal<Out, Bits<G>>,
    pub out_tid: Signal<Out, Bits<2>>,
    pub out_op: Signal<Out, Bits<3>>,
    pub ev_valid: Signal<Out, bool>,
    pub ev_cgid: Signal<Out, Bits<G>>,
    pub ev_verdict: Signal<Out, Bits<3>>,
    pub ev_state: Signal<Out, Bits<2>>,
    pub ev_tid: Signal<Out, Bits<2>>,
    pub ev_fail: Signal<Out, bool>,
    pub rsp_valid: Signal<Out, bool>,
    pub rsp_entry_valid: Signal<Out, bool>,
    pub rsp_parent: Signal<Out, Bits<P>>,
    pub rsp_children: Signal<Out, Bits<R>>,
    pub rsp_is_root: Signal<Out, bool>,
    pub rsp_state: Signal<Out, Bits<2>>,
    pub rsp_tid: Signal<Out, Bits<2>>,
    pub rsp_fail: Signal<Out, bool>,
    pub rsp_reported: Signal<Out, Bits<R>>,
    pub rsp_counter: Signal<Out, Bits<C>>,

    // Table clearing after reset.
    init_done: Reg<bool>,
    init_ptr: Reg<Bits<G>>,
    // Stage 1: the accepted operation.
    s1_valid: Reg<bool>,
    s1_is_cfg: Reg<bool>,
    s1_port: Reg<Bits<P>>,
    s1_cgid: Reg<Bits<G>>,
    s1_tid: Reg<Bits<2>>,
    s1_op: Reg<Bits<3>>,
    s1_cfg_op: Reg<Bits<2>>,
    s1_cfg_entry: Reg<Bits<EW>>,
    s1_cfg_counter: Reg<Bits<3>>,
    // What stage 1 wrote in the previous cycle (read-before-write bypass).
    byp_tbl_valid: Reg<bool>,
    byp_st_valid: Reg<bool>,
    byp_cgid: Reg<Bits<G>>,
    byp_tbl: Reg<Bits<EW>>,
    byp_st: Reg<Bits<SW>>,
    // Forwarding table and per-group state.
    tbl: Mem<Bits<EW>, G>,
    st: Mem<Bits<SW>, G>,
    // Counters: accepted packets, then one per drop / event verdict (index = verdict code).
    cnt_accepted: Reg<Bits<C>>,
    cnt_unknown_cgid: Reg<Bits<C>>,
    cnt_not_in_tree: Reg<Bits<C>>,
    cnt_bad_opcode: Reg<Bits<C>>,
    cnt_group_failed: Reg<Bits<C>>,
    cnt_stale: Reg<Bits<C>>,
    cnt_lag: Reg<Bits<C>>,
    cnt_tid_fail: Reg<Bits<C>>,
    // Output registers.
    o_out_valid: Reg<bool>,
    o_out_ports: Reg<Bits<R>>,
    o_out_cgid: Reg<Bits<G>>,
    o_out_tid: Reg<Bits<2>>,
    o_out_op: Reg<Bits<3>>,
    o_ev_valid: Reg<bool>,
    o_ev_cgid: Reg<Bits<G>>,
    o_ev_verdict: Reg<Bits<3>>,
    o_ev_state: Reg<Bits<2>>,
    o_ev_tid: Reg<Bits<2>>,
    o_ev_fail: Reg<bool>,
    o_rsp_valid: Reg<bool>,
    o_rsp_entry: Reg<Bits<EW>>,
    o_rsp_st: Reg<Bits<SW>>,
    o_rsp_counter: Reg<Bits<C>>,

    // Stage 0 decisions.
    acc_cfg: Signal<Local, bool>,
    acc_pkt: Signal<Local, bool>,
    cfg_word: Signal<Local, Bits<EW>>,
    // Stage 1: entry and state after the bypass, unpacked.
    tbl_word: Signal<Local, Bits<EW>>,
    st_word: Signal<Local, Bits<SW>>,
    e_valid: Signal<Local, bool>,
    e_is_root: Signal<Local, bool>,
    e_parent: Signal<Local, Bits<P>>,
    e_children: Signal<Local, Bits<R>>,
    g_csm: Signal<Local, Bits<2>>,
    g_fail: Signal<Local, bool>,
    g_tid: Signal<Local, Bits<2>>,
    g_rep: Signal<Local, Bits<R>>,
    // Stage 1: decision.
    port_bit: Signal<Local, Bits<R>>,
    tid_diff: Signal<Local, Bits<2>>,
    from_parent: Signal<Local, bool>,
    from_child: Signal<Local, bool>,
    child_op: Signal<Local, bool>,
    parent_op: Signal<Local, bool>,
    rep_now: Signal<Local, Bits<R>>,
    walk_first: Signal<Local, Bits<2>>,
    walk: Signal<Local, Bits<2>>,
    verdict: Signal<Local, Bits<3>>,
    reads_group: Signal<Local, bool>,
    n_csm: Signal<Local, Bits<2>>,
    n_fail: Signal<Local, bool>,
    n_tid: Signal<Local, Bits<2>>,
    n_rep: Signal<Local, Bits<R>>,
    n_st_word: Signal<Local, Bits<SW>>,
    send: Signal<Local, bool>,
    send_ports: Signal<Local, Bits<R>>,
    send_op: Signal<Local, Bits<3>>,
    pkt_s1: Signal<Local, bool>,
    cfg_s1: Signal<Local, bool>,
    clear: Signal<Local, bool>,
    sel_counter: Signal<Local, Bits<C>>,

    off_children: Constant<Bits<8>>,
    one_r: Constant<Bits<R>>,
    one_g: Constant<Bits<G>>,
    last_g: Constant<Bits<G>>,
    one_c: Constant<Bits<C>>,
    max_c: Constant<Bits<C>>,
    zero_r: Constant<Bits<R>>,
    zero_ew: Constant<Bits<EW>>,
    zero_sw: Constant<Bits<SW>>,
    csm_idle: Constant<Bits<2>>,
    csm_filling: Constant<Bits<2>>,
    csm_full: Constant<Bits<2>>,
    step: Constant<Bits<2>>,
    op_full: Constant<Bits<3>>,
    op_exit: Constant<Bits<3>>,
    op_status_req: Constant<Bits<3>>,
    op_status_rsp: Constant<Bits<3>>,
    v_ok: Constant<Bits<3>>,
    v_unknown_cgid: Constant<Bits<3>>,
    v_not_in_tree: Constant<Bits<3>>,
    v_bad_opcode: Constant<Bits<3>>,
    v_group_failed: Constant<Bits<3>>,
    v_stale: Constant<Bits<3>>,
    v_lag: Constant<Bits<3>>,
    v_tid_fail: Constant<Bits<3>>,
    cfg_write: Constant<Bits<2>>,
    cfg_read_entry: Constant<Bits<2>>,
    cfg_read_counter: Constant<Bits<2>>,
    cfg_clear: Constant<Bits<2>>,
    tid_same: Constant<Bits<2>>,
    tid_behind: Constant<Bits<2>>,
    c_unknown_cgid: Constant<Bits<3>>,
    c_not_in_tree: Constant<Bits<3>>,
    c_bad_opcode: Constant<Bits<3>>,
    c_group_failed: Constant<Bits<3>>,
    c_stale: Constant<Bits<3>>,
    c_lag: Constant<Bits<3>>,
    c_tid_fail: Constant<Bits<3>>,
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

impl<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
    > Default for SwitchEngine<R, P, G, C, EW, SW>
{
    fn default() -> Self {
        assert_eq!(1 << P, R, "P must be log2(R)");
        assert_eq!(EW, 2 + P + R, "EW must be 2 + P + R");
        assert_eq!(SW, 5 + R, "SW must be 5 + R");
        let all_ones = |n: usize| if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pkt_valid: Default::default(),
            pkt_port: Default::default(),
            pkt_cgid: Default::default(),
            pkt_tid: Default::default(),
            pkt_op: Default::default(),
            cfg_valid: Default::default(),
            cfg_op: Default::default(),
            cfg_cgid: Default::default(),
            cfg_entry_valid: Default::default(),
            cfg_parent: Default::default(),
            cfg_children: Default::default(),
            cfg_is_root: Default::default(),
            cfg_counter: Default::default(),
            pkt_ready: Default::default(),
            cfg_ready: Default::default(),
            out_valid: Default::default(),
            out_ports: Default::default(),
            out_cgid: Default::default(),
            out_tid: Default::default(),
            out_op: Default::default(),
            ev_valid: Default::default(),
            ev_cgid: Default::default(),
            ev_verdict: Default::default(),
            ev_state: Default::default(),
            ev_tid: Default::default(),
            ev_fail: Default::default(),
            rsp_valid: Default::default(),
            rsp_entry_valid: Default::default(),
            rsp_parent: Default::default(),
            rsp_children: Default::default(),
            rsp_is_root: Default::default(),
            rsp_state: Default::default(),
            rsp_tid: Default::default(),
            rsp_fail: Default::default(),
            rsp_reported: Default::default(),
            rsp_counter: Default::default(),
            init_done: Default::default(),
            init_ptr: Default::default(),
            s1_valid: Default::default(),
            s1_is_cfg: Default::default(),
            s1_port: Default::default(),
            s1_cgid: Default::default(),
            s1_tid: Default::default(),
            s1_op: Default::default(),
            s1_cfg_op: Default::default(),
            s1_cfg_entry: Default::default(),
            s1_cfg_counter: Default::default(),
            byp_tbl_valid: Default::default(),
            byp_st_valid: Default::default(),
            byp_cgid: Default::default(),
            byp_tbl: Default::default(),
            byp_st: Default::default(),
            tbl: Default::default(),
            st: Default::default(),
            cnt_accepted: Default::default(),
            cnt_unknown_cgid: Default::default(),
            cnt_not_in_tree: Default::default(),
            cnt_bad_opcode: Default::default(),
            cnt_group_failed: Default::default(),
            cnt_stale: Default::default(),
            cnt_lag: Default::default(),
            cnt_tid_fail: Default::default(),
            o_out_valid: Default::default(),
            o_out_ports: Default::default(),
            o_out_cgid: Default::default(),
            o_out_tid: Default::default(),
            o_out_op: Default::default(),
            o_ev_valid: Default::default(),
            o_ev_cgid: Default::default(),
            o_ev_verdict: Default::default(),
            o_ev_state: Default::default(),
            o_ev_tid: Default::default(),
            o_ev_fail: Default::default(),
            o_rsp_valid: Default::default(),
            o_rsp_entry: Default::default(),
            o_rsp_st: Default::default(),
            o_rsp_counter: Default::default(),
            acc_cfg: Default::default(),
            acc_pkt: Default::default(),
            cfg_word: Default::default(),
            tbl_word: Default::default(),
            st_word: Default::default(),
            e_valid: Default::default(),
            e_is_root: Default::default(),
            e_parent: Default::default(),
            e_children: Default::default(),
            g_csm: Default::default(),
            g_fail: Default::default(),
            g_tid: Default::default(),
            g_rep: Default::default(),
            port_bit: Default::default(),
            tid_diff: Default::default(),
            from_parent: Default::default(),
            from_child: Default::default(),
            child_op: Default::default(),
            parent_op: Default::default(),
            rep_now: Default::default(),
            walk_first: Default::default(),
            walk: Default::default(),
            verdict: Default::default(),
            reads_group: Default::default(),
            n_csm: Default::default(),
            n_fail: Default::default(),
            n_tid: Default::default(),
            n_rep: Default::default(),
            n_st_word: Default::default(),
            send: Default::default(),
            send_ports: Default::default(),
            send_op: Default::default(),
            pkt_s1: Default::default(),
            cfg_s1: Default::default(),
            clear: Default::default(),
            sel_counter: Default::default(),
            off_children: k(P as u64 + 2),
            one_r: k(1),
            one_g: k(1),
            last_g: k(all_ones(G)),
            one_c: k(1),
            max_c: k(all_ones(C)),
            zero_r: k(0),
            zero_ew: k(0),
            zero_sw: k(0),
            csm_idle: k(0),
            csm_filling: k(1),
            csm_full: k(2),
            step: k(1),
            op_full: k(0),
            op_exit: k(1),
            op_status_req: k(2),
            op_status_rsp: k(3),
            v_ok: k(0),
            v_unknown_cgid: k(1),
            v_not_in_tree: k(2),
            v_bad_opcode: k(3),
            v_group_failed: k(4),
            v_stale: k(5),
            v_lag: k(6),
            v_tid_fail: k(7),
            cfg_write: k(0),
            cfg_read_entry: k(1),
            cfg_read_counter: k(2),
            cfg_clear: k(3),
            tid_same: k(0),
            tid_behind: k(3),
            c_unknown_cgid: k(1),
            c_not_in_tree: k(2),
            c_bad_opcode: k(3),
            c_group_failed: k(4),
            c_stale: k(5),
            c_lag: k(6),
            c_tid_fail: k(7),
        }
    }
}

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
            byp_tbl_valid,
            byp_st_valid,
            byp_cgid,
            byp_tbl,
            byp_st,
            cnt_accepted,
            cnt_unknown_cgid,
            cnt_not_in_tree,
            cnt_bad_opcode,
            cnt_group_failed,
            cnt_stale,
            cnt_lag,
            cnt_tid_fail,
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
            o_rsp_counter
        );
        // Synchronous reset of every register (rust-hdl has no reset net: it is wired by hand).
        self.init_done.reset.next = self.reset.val();
        self.init_ptr.reset.next = self.reset.val();
        self.s1_valid.reset.next = self.reset.val();
        self.s1_is_cfg.reset.next = self.reset.val();
        self.s1_port.reset.next = self.reset.val();
        self.s1_cgid.reset.next = self.reset.val();
        self.s1_tid.reset.next = self.reset.val();
        self.s1_op.reset.next = self.reset.val();
        self.s1_cfg_op.reset.next = self.reset.val();
        self.s1_cfg_entry.reset.next = self.reset.val();
        self.s1_cfg_counter.reset.next = self.reset.val();
        self.byp_tbl_valid.reset.next = self.reset.val();
        self.byp_st_valid.reset.next = self.reset.val();
        self.byp_cgid.reset.next = self.reset.val();
        self.byp_tbl.reset.next = self.reset.val();
        self.byp_st.reset.next = self.reset.val();
        self.cnt_accepted.reset.next = self.reset.val();
        self.cnt_unknown_cgid.reset.next = self.reset.val();
        self.cnt_not_in_tree.reset.next = self.reset.val();
        self.cnt_bad_opcode.reset.next = self.reset.val();
        self.cnt_group_failed.reset.next = self.reset.val();
        self.cnt_stale.reset.next = self.reset.val();
        self.cnt_lag.reset.next = self.reset.val();
        self.cnt_tid_fail.reset.next = self.reset.val();
        self.o_out_valid.reset.next = self.reset.val();
        self.o_out_ports.reset.next = self.reset.val();
        self.o_out_cgid.reset.next = self.reset.val();
        self.o_out_tid.reset.next = self.reset.val();
        self.o_out_op.reset.next = self.reset.val();
        self.o_ev_valid.reset.next = self.reset.val();
        self.o_ev_cgid.reset.next = self.reset.val();
        self.o_ev_verdict.reset.next = self.reset.val();
        self.o_ev_state.reset.next = self.reset.val();
        self.o_ev_tid.reset.next = self.reset.val();
        self.o_ev_fail.reset.next = self.reset.val();
        self.o_rsp_valid.reset.next = self.reset.val();
        self.o_rsp_entry.reset.next = self.reset.val();
        self.o_rsp_st.reset.next = self.reset.val();
        self.o_rsp_counter.reset.next = self.reset.val();
        self.tbl.clock.next = self.clock.val();
        self.st.clock.next = self.clock.val();

        // ---- Stage 0: accept one operation; configuration has priority over packets.
        self.acc_cfg.next = self.init_done.q.val() & self.cfg_valid.val();
        self.acc_pkt.next = self.init_done.q.val() & !self.cfg_valid.val() & self.pkt_valid.val();
        self.pkt_ready.next = self.init_done.q.val() & !self.cfg_valid.val();
        self.cfg_ready.next = self.init_done.q.val();
        self.cfg_word.next = ((bit_cast::<EW, R>(self.cfg_children.val())
            << self.off_children.val())
            | (bit_cast::<EW, P>(self.cfg_parent.val()) << 2))
            .replace_bit(1, self.cfg_is_root.val())
            .replace_bit(0, self.cfg_entry_valid.val());
        self.s1_valid.d.next = self.acc_cfg.val() | self.acc_pkt.val();
        self.s1_is_cfg.d.next = self.acc_cfg.val();
        self.s1_port.d.next = self.pkt_port.val();
        self.s1_tid.d.next = self.pkt_tid.val();
        self.s1_op.d.next = self.pkt_op.val();
        self.s1_cfg_op.d.next = self.cfg_op.val();
        self.s1_cfg_entry.d.next = self.cfg_word.val();
        self.s1_cfg_counter.d.next = self.cfg_counter.val();
        if self.cfg_valid.val() {
            self.s1_cgid.d.next = self.cfg_cgid.val();
            self.tbl.rd_addr.next = self.cfg_cgid.val();
            self.st.rd_addr.next = self.cfg_cgid.val();
        } else {
            self.s1_cgid.d.next = self.pkt_cgid.val();
            self.tbl.rd_addr.next = self.pkt_cgid.val();
            self.st.rd_addr.next = self.pkt_cgid.val();
        }

        // ---- Stage 1: entry and state, bypassing last cycle's write to the same group.
        self.tbl_word.next = self.tbl.rd_data.val();
        if self.byp_tbl_valid.q.val() & (self.byp_cgid.q.val() == self.s1_cgid.q.val()) {
            self.tbl_word.next = self.byp_tbl.q.val();
        }
        self.st_word.next = self.st.rd_data.val();
        if self.byp_st_valid.q.val() & (self.byp_cgid.q.val() == self.s1_cgid.q.val()) {
            self.st_word.next = self.byp_st.q.val();
        }
        self.e_valid.next = self.tbl_word.val().get_bit(0);
        self.e_is_root.next = self.tbl_word.val().get_bit(1);
        self.e_parent.next = self.tbl_word.val().get_bits::<P>(2);
        self.e_children.next = self
            .tbl_word
            .val()
            .get_bits::<R>(self.off_children.val().index());
        self.g_csm.next = self.st_word.val().get_bits::<2>(0);
        self.g_fail.next = self.st_word.val().get_bit(2);
        self.g_tid.next = self.st_word.val().get_bits::<2>(3);
        self.g_rep.next = self.st_word.val().get_bits::<R>(5);

        self.pkt_s1.next = self.s1_valid.q.val() & !self.s1_is_cfg.q.val();
        self.cfg_s1.next = self.s1_valid.q.val() & self.s1_is_cfg.q.val();
        self.port_bit.next = self.one_r.val() << self.s1_port.q.val();
        self.tid_diff.next = self.s1_tid.q.val() - self.g_tid.val();
        self.from_parent.next =
            !self.e_is_root.val() & (self.e_parent.val() == self.s1_port.q.val());
        self.from_child.next = self.e_children.val().get_bit(self.s1_port.q.val().index());
        self.child_op.next = (self.s1_op.q.val() == self.op_full.val())
            | (self.s1_op.q.val() == self.op_status_req.val());
        self.parent_op.next = (self.s1_op.q.val() == self.op_exit.val())
            | (self.s1_op.q.val() == self.op_status_rsp.val());
        self.rep_now.next = self.g_rep.val() | self.port_bit.val();

        // The ratchet walk for a child's first report this transaction: Idle -> Filling, then
        // Filling -> Full once every child has reported. One step at a time, never skipping.
        self.walk_first.next = self.g_csm.val();
        if self.g_csm.val() == self.csm_idle.val() {
            self.walk_first.next = self.g_csm.val() + self.step.val();
        }
        self.walk.next = self.walk_first.val();
        if (self.walk_first.val() == self.csm_filling.val())
            & (self.rep_now.val() == self.e_children.val())
        {
            self.walk.next = self.walk_first.val() + self.step.val();
        }

        self.verdict.next = self.v_ok.val();
        self.reads_group.next = false;
        self.n_csm.next = self.g_csm.val();
        self.n_fail.next = self.g_fail.val();
        self.n_tid.next = self.g_tid.val();
        self.n_rep.next = self.g_rep.val();
        self.send.next = false;
        self.send_ports.next = self.zero_r.val();
        self.send_op.next = self.op_full.val();
        if !self.e_valid.val() {
            self.verdict.next = self.v_unknown_cgid.val();
        } else if self.s1_op.q.val().get_bit(2) {
            self.verdict.next = self.v_bad_opcode.val();
        } else if self.from_parent.val() {
            if !self.parent_op.val() {
                self.verdict.next = self.v_bad_opcode.val();
            } else {
                self.reads_group.next = true;
                if self.g_fail.val() {
                    self.verdict.next = self.v_group_failed.val();
                } else if self.tid_diff.val() == self.tid_same.val() {
                    if self.g_csm.val() == self.csm_full.val() {
                        // Full -> Exiting -> Idle: tell every child, advance the TID.
                        self.n_csm.next = self.g_csm.val() + self.step.val() + self.step.val();
                        self.n_tid.next = self.g_tid.val() + self.step.val();
                        self.n_rep.next = self.zero_r.val();
                        self.send.next = true;
                        self.send_ports.next = self.e_children.val();
                        self.send_op.next = self.op_exit.val();
                    } else {
                        self.verdict.next = self.v_tid_fail.val();
                        self.n_fail.next = true;
                    }
                } else if self.tid_diff.val() == self.tid_behind.val() {
                    self.verdict.next = self.v_stale.val();
                } else {
                    self.verdict.next = self.v_tid_fail.val();
                    self.n_fail.next = true;
                }
            }
        } else if self.from_child.val() {
            if !self.child_op.val() {
                self.verdict.next = self.v_bad_opcode.val();
            } else {
                self.reads_group.next = true;
                if self.g_fail.val() {
                    self.verdict.next = self.v_group_failed.val();
                } else if self.tid_diff.val() == self.tid_behind.val() {
                    // The child missed Exit: the transaction it asks about has completed.
                    self.verdict.next = self.v_lag.val();
                    self.send.next = true;
                    self.send_ports.next = self.port_bit.val();
                    self.send_op.next = self.op_status_rsp.val();
                } else if self.tid_diff.val() != self.tid_same.val() {
                    self.verdict.next = self.v_tid_fail.val();
                    self.n_fail.next = true;
                } else if (self.g_rep.val() & self.port_bit.val()) == self.zero_r.val() {
                    self.n_rep.next = self.rep_now.val();
                    self.n_csm.next = self.walk.val();
                    if self.walk.val() == self.csm_full.val() {
                        self.send.next = true;
                        if self.e_is_root.val() {
                            // Full -> Exiting -> Idle at the root.
                            self.n_csm.next = self.walk.val() + self.step.val() + self.step.val();
                            self.n_tid.next = self.g_tid.val() + self.step.val();
                            self.n_rep.next = self.zero_r.val();
                            self.send_ports.next = self.e_children.val();
                            self.send_op.next = self.op_exit.val();
                        } else {
                            self.send_ports.next = self.one_r.val() << self.e_parent.val();
                            self.send_op.next = self.op_full.val();
                        }
                    }
                } else if self.s1_op.q.val() == self.op_status_req.val() {
                    if (self.g_csm.val() == self.csm_full.val()) & !self.e_is_root.val() {
                        // We may have missed Exit ourselves: ask upward.
                        self.send.next = true;
                        self.send_ports.next = self.one_r.val() << self.e_parent.val();
                        self.send_op.next = self.op_status_req.val();
                    }
                } else {
                    self.verdict.next = self.v_stale.val();
                }
            }
        } else {
            self.verdict.next = self.v_not_in_tree.val();
        }
        self.n_st_word.next = ((bit_cast::<SW, R>(self.n_rep.val()) << 5)
            | (bit_cast::<SW, 2>(self.n_tid.val()) << 3)
            | bit_cast::<SW, 2>(self.n_csm.val()))
        .replace_bit(2, self.n_fail.val());

        // ---- Memory writes: the init sweep, a configuration write, or a packet's new state.
        self.tbl.wr_en.next = false;
        self.tbl.wr_addr.next = self.s1_cgid.q.val();
        self.tbl.wr_data.next = self.s1_cfg_entry.q.val();
        self.st.wr_en.next = false;
        self.st.wr_addr.next = self.s1_cgid.q.val();
        self.st.wr_data.next = self.n_st_word.val();
        self.byp_cgid.d.next = self.s1_cgid.q.val();
        self.byp_tbl.d.next = self.s1_cfg_entry.q.val();
        self.byp_st.d.next = self.n_st_word.val();
        self.byp_tbl_valid.d.next = false;
        self.byp_st_valid.d.next = false;
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
        } else if self.cfg_s1.val() & (self.s1_cfg_op.q.val() == self.cfg_write.val()) {
            self.tbl.wr_en.next = true;
            self.st.wr_en.next = true;
            self.st.wr_data.next = self.zero_sw.val();
            self.byp_st.d.next = self.zero_sw.val();
            self.byp_tbl_valid.d.next = true;
            self.byp_st_valid.d.next = true;
        } else if self.pkt_s1.val() & self.reads_group.val() {
            self.st.wr_en.next = true;
            self.byp_st_valid.d.next = true;
        }

        // ---- Counters (saturating), read and cleared through the configuration port.
        self.clear.next = self.cfg_s1.val() & (self.s1_cfg_op.q.val() == self.cfg_clear.val());
        if self.clear.val() {
            self.cnt_accepted.d.next = 0.into();
            self.cnt_unknown_cgid.d.next = 0.into();
            self.cnt_not_in_tree.d.next = 0.into();
            self.cnt_bad_opcode.d.next = 0.into();
            self.cnt_group_failed.d.next = 0.into();
            self.cnt_stale.d.next = 0.into();
            self.cnt_lag.d.next = 0.into();
            self.cnt_tid_fail.d.next = 0.into();
        }
        if self.pkt_s1.val() {
            if self.cnt_accepted.q.val() != self.max_c.val() {
                self.cnt_accepted.d.next = self.cnt_accepted.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_unknown_cgid.val())
                & (self.cnt_unknown_cgid.q.val() != self.max_c.val())
            {
                self.cnt_unknown_cgid.d.next = self.cnt_unknown_cgid.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_not_in_tree.val())
                & (self.cnt_not_in_tree.q.val() != self.max_c.val())
            {
                self.cnt_not_in_tree.d.next = self.cnt_not_in_tree.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_bad_opcode.val())
                & (self.cnt_bad_opcode.q.val() != self.max_c.val())
            {
                self.cnt_bad_opcode.d.next = self.cnt_bad_opcode.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_group_failed.val())
                & (self.cnt_group_failed.q.val() != self.max_c.val())
            {
                self.cnt_group_failed.d.next = self.cnt_group_failed.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_stale.val())
                & (self.cnt_stale.q.val() != self.max_c.val())
            {
                self.cnt_stale.d.next = self.cnt_stale.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_lag.val()) & (self.cnt_lag.q.val() != self.max_c.val())
            {
                self.cnt_lag.d.next = self.cnt_lag.q.val() + self.one_c.val();
            }
            if (self.verdict.val() == self.v_tid_fail.val())
                & (self.cnt_tid_fail.q.val() != self.max_c.val())
            {
                self.cnt_tid_fail.d.next = self.cnt_tid_fail.q.val() + self.one_c.val();
            }
        }
        self.sel_counter.next = self.cnt_accepted.q.val();
        if self.s1_cfg_counter.q.val() == self.c_unknown_cgid.val() {
            self.sel_counter.next = self.cnt_unknown_cgid.q.val();
        }
        if self.s1_cfg_counter.q.val() == self.c_not_in_tree.val() {
            self.sel_counter.next = self.cnt_not_in_tree.q.val();
        }
        if self.s1_cfg_counter.q.val() == self.c_bad_opcode.val() {
            self.sel_counter.next = self.cnt_bad_opcode.q.val();
        }
        if self.s1_cfg_counter.q.val() == self.c_group_failed.val() {
            self.sel_counter.next = self.cnt_group_failed.q.val();
        }
        if self.s1_cfg_counter.q.val() == self.c_stale.val() {
            self.sel_counter.next = self.cnt_stale.q.val();
        }
        if self.s1_cfg_counter.q.val() == self.c_lag.val() {
            self.sel_counter.next = self.cnt_lag.q.val();
        }
        if self.s1_cfg_counter.q.val() == self.c_tid_fail.val() {
            self.sel_counter.next = self.cnt_tid_fail.q.val();
        }

        // ---- Output registers: zero unless loaded.
        self.o_out_valid.d.next = self.pkt_s1.val() & self.send.val();
        self.o_out_ports.d.next = self.zero_r.val();
        self.o_out_cgid.d.next = 0.into();
        self.o_out_tid.d.next = 0.into();
        self.o_out_op.d.next = 0.into();
        if self.pkt_s1.val() & self.send.val() {
            self.o_out_ports.d.next = self.send_ports.val();
            self.o_out_cgid.d.next = self.s1_cgid.q.val();
            self.o_out_tid.d.next = self.s1_tid.q.val();
            self.o_out_op.d.next = self.send_op.val();
        }
        self.o_ev_valid.d.next = self.pkt_s1.val();
        self.o_ev_cgid.d.next = 0.into();
        self.o_ev_verdict.d.next = 0.into();
        self.o_ev_state.d.next = 0.into();
        self.o_ev_tid.d.next = 0.into();
        self.o_ev_fail.d.next = false;
        if self.pkt_s1.val() {
            self.o_ev_cgid.d.next = self.s1_cgid.q.val();
            self.o_ev_verdict.d.next = self.verdict.val();
            if self.reads_group.val() {
                self.o_ev_state.d.next = self.n_csm.val();
                self.o_ev_tid.d.next = self.n_tid.val();
                self.o_ev_fail.d.next = self.n_fail.val();
            }
        }
        self.o_rsp_valid.d.next = self.cfg_s1.val();
        self.o_rsp_entry.d.next = self.zero_ew.val();
        self.o_rsp_st.d.next = self.zero_sw.val();
        self.o_rsp_counter.d.next = 0.into();
        if self.cfg_s1.val() {
            if self.s1_cfg_op.q.val() == self.cfg_write.val() {
                self.o_rsp_entry.d.next = self.s1_cfg_entry.q.val();
            }
            if self.s1_cfg_op.q.val() == self.cfg_read_entry.val() {
                self.o_rsp_entry.d.next = self.tbl_word.val();
                self.o_rsp_st.d.next = self.st_word.val();
            }
            if self.s1_cfg_op.q.val() == self.cfg_read_counter.val() {
                self.o_rsp_counter.d.next = self.sel_counter.val();
            }
        }

        // ---- Ports.
        self.out_valid.next = self.o_out_valid.q.val();
        self.out_ports.next = self.o_out_ports.q.val();
        self.out_cgid.next = self.o_out_cgid.q.val();
        self.out_tid.next = self.o_out_tid.q.val();
        self.out_op.next = self.o_out_op.q.val();
        self.ev_valid.next = self.o_ev_valid.q.val();
        self.ev_cgid.next = self.o_ev_cgid.q.val();
        self.ev_verdict.next = self.o_ev_verdict.q.val();
        self.ev_state.next = self.o_ev_state.q.val();
        self.ev_tid.next = self.o_ev_tid.q.val();
        self.ev_fail.next = self.o_ev_fail.q.val();
        self.rsp_valid.next = self.o_rsp_valid.q.val();
        self.rsp_entry_valid.next = self.o_rsp_entry.q.val().get_bit(0);
        self.rsp_is_root.next = self.o_rsp_entry.q.val().get_bit(1);
        self.rsp_parent.next = self.o_rsp_entry.q.val().get_bits::<P>(2);
        self.rsp_children.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bits::<R>(self.off_children.val().index());
        self.rsp_state.next = self.o_rsp_st.q.val().get_bits::<2>(0);
        self.rsp_fail.next = self.o_rsp_st.q.val().get_bit(2);
        self.rsp_tid.next = self.o_rsp_st.q.val().get_bits::<2>(3);
        self.rsp_reported.next = self.o_rsp_st.q.val().get_bits::<R>(5);
        self.rsp_counter.next = self.o_rsp_counter.q.val();
    }
}
