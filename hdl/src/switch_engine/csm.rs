//! # The CSM decision (module `switch_engine_csm`)
//!
//! Combinational: given a packet and its group's table entry and state, rules 1–7 of
//! `netcoll_models::switch_engine` — the verdict, the group's next state and the packet to
//! send. Stage 1 of [`super::SwitchEngine`] feeds it and registers what it decides.
//!
//! # Inputs
//! - the packet: `port` (P bits), `port_hot` (R, `1 << port`, decoded a stage earlier), `tid`
//!   (2), `op` (3);
//! - the entry: `e_valid`, `e_is_root`, `e_parent` (P), `e_children` (R);
//! - the group state: `g_csm` (2), `g_fail`, `g_tid` (2), `g_rep` (R).
//!
//! # Outputs
//! - `verdict` (3, a `Verdict` code) and `reads_group` (the verdict is one of 4–7 or OK, i.e.
//!   the group state was consulted and is written back);
//! - the next group state: `n_csm`, `n_fail`, `n_tid`, `n_rep`;
//! - the packet to send: `send`, `send_ports` (R), `send_op` (3, an `Opcode` code).

use netcoll_models::net::Opcode;
use netcoll_models::switch_engine::{CsmState, Verdict, OP_BITS, TID_BITS};
use rust_hdl::prelude::*;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The CSM decision for radix `R` (`P` = log2 `R`).
#[derive(LogicBlock)]
pub struct SwitchEngineCsm<const R: usize, const P: usize> {
    pub port: Signal<In, Bits<P>>,
    pub port_hot: Signal<In, Bits<R>>,
    pub tid: Signal<In, Bits<TID_BITS>>,
    pub op: Signal<In, Bits<OP_BITS>>,
    pub e_valid: Signal<In, bool>,
    pub e_is_root: Signal<In, bool>,
    pub e_parent: Signal<In, Bits<P>>,
    pub e_children: Signal<In, Bits<R>>,
    pub g_csm: Signal<In, Bits<{ CsmState::BITS }>>,
    pub g_fail: Signal<In, bool>,
    pub g_tid: Signal<In, Bits<TID_BITS>>,
    pub g_rep: Signal<In, Bits<R>>,

    pub verdict: Signal<Out, Bits<{ Verdict::BITS }>>,
    pub reads_group: Signal<Out, bool>,
    pub n_csm: Signal<Out, Bits<{ CsmState::BITS }>>,
    pub n_fail: Signal<Out, bool>,
    pub n_tid: Signal<Out, Bits<TID_BITS>>,
    pub n_rep: Signal<Out, Bits<R>>,
    pub send: Signal<Out, bool>,
    pub send_ports: Signal<Out, Bits<R>>,
    pub send_op: Signal<Out, Bits<OP_BITS>>,

    tid_diff: Signal<Local, Bits<TID_BITS>>,
    from_parent: Signal<Local, bool>,
    from_child: Signal<Local, bool>,
    child_op: Signal<Local, bool>,
    parent_op: Signal<Local, bool>,
    rep_now: Signal<Local, Bits<R>>,
    /// Every child has reported once this packet's report is counted.
    all_now: Signal<Local, bool>,

    one_r: Constant<Bits<R>>,
    zero_r: Constant<Bits<R>>,
    /// One step of the ratchet, and of the TID.
    step: Constant<Bits<2>>,
    /// `tid - group tid` of a packet of the current transaction, and of the previous one.
    tid_same: Constant<Bits<TID_BITS>>,
    tid_behind: Constant<Bits<TID_BITS>>,
    csm_idle: Constant<Bits<{ CsmState::BITS }>>,
    csm_filling: Constant<Bits<{ CsmState::BITS }>>,
    csm_full: Constant<Bits<{ CsmState::BITS }>>,
    op_full: Constant<Bits<OP_BITS>>,
    op_exit: Constant<Bits<OP_BITS>>,
    op_status_req: Constant<Bits<OP_BITS>>,
    op_status_rsp: Constant<Bits<OP_BITS>>,
    v_ok: Constant<Bits<{ Verdict::BITS }>>,
    v_unknown_cgid: Constant<Bits<{ Verdict::BITS }>>,
    v_not_in_tree: Constant<Bits<{ Verdict::BITS }>>,
    v_bad_opcode: Constant<Bits<{ Verdict::BITS }>>,
    v_group_failed: Constant<Bits<{ Verdict::BITS }>>,
    v_stale: Constant<Bits<{ Verdict::BITS }>>,
    v_lag: Constant<Bits<{ Verdict::BITS }>>,
    v_tid_fail: Constant<Bits<{ Verdict::BITS }>>,
}

impl<const R: usize, const P: usize> Default for SwitchEngineCsm<R, P> {
    fn default() -> Self {
        Self {
            port: Default::default(),
            port_hot: Default::default(),
            tid: Default::default(),
            op: Default::default(),
            e_valid: Default::default(),
            e_is_root: Default::default(),
            e_parent: Default::default(),
            e_children: Default::default(),
            g_csm: Default::default(),
            g_fail: Default::default(),
            g_tid: Default::default(),
            g_rep: Default::default(),
            verdict: Default::default(),
            reads_group: Default::default(),
            n_csm: Default::default(),
            n_fail: Default::default(),
            n_tid: Default::default(),
            n_rep: Default::default(),
            send: Default::default(),
            send_ports: Default::default(),
            send_op: Default::default(),
            tid_diff: Default::default(),
            from_parent: Default::default(),
            from_child: Default::default(),
            child_op: Default::default(),
            parent_op: Default::default(),
            rep_now: Default::default(),
            all_now: Default::default(),
            one_r: k(1),
            zero_r: k(0),
            step: k(1),
            tid_same: k(0),
            tid_behind: k(3),
            csm_idle: k(CsmState::Idle.code()),
            csm_filling: k(CsmState::Filling.code()),
            csm_full: k(CsmState::Full.code()),
            op_full: k(Opcode::Full.code()),
            op_exit: k(Opcode::Exit.code()),
            op_status_req: k(Opcode::StatusReq.code()),
            op_status_rsp: k(Opcode::StatusRsp.code()),
            v_ok: k(Verdict::Ok.code()),
            v_unknown_cgid: k(Verdict::UnknownCgid.code()),
            v_not_in_tree: k(Verdict::NotInTree.code()),
            v_bad_opcode: k(Verdict::BadOpcode.code()),
            v_group_failed: k(Verdict::GroupFailed.code()),
            v_stale: k(Verdict::Stale.code()),
            v_lag: k(Verdict::Lag.code()),
            v_tid_fail: k(Verdict::TidFail.code()),
        }
    }
}

impl<const R: usize, const P: usize> Logic for SwitchEngineCsm<R, P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.tid_diff.next = self.tid.val() - self.g_tid.val();
        // Rule 3: the parent wins if its port is also in the child mask.
        self.from_parent.next = !self.e_is_root.val() & (self.e_parent.val() == self.port.val());
        self.from_child.next = self.e_children.val().get_bit(self.port.val().index());
        // Rule 4: FULL and STATUS_REQ travel up, EXIT and STATUS_RSP down.
        self.child_op.next =
            (self.op.val() == self.op_full.val()) | (self.op.val() == self.op_status_req.val());
        self.parent_op.next =
            (self.op.val() == self.op_exit.val()) | (self.op.val() == self.op_status_rsp.val());
        self.rep_now.next = self.g_rep.val() | self.port_hot.val();
        self.all_now.next = self.rep_now.val() == self.e_children.val();

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
        } else if self.op.val().get_bit(2) {
            // Rule 2: a reserved opcode (4..7).
            self.verdict.next = self.v_bad_opcode.val();
        } else if self.from_parent.val() {
            if !self.parent_op.val() {
                self.verdict.next = self.v_bad_opcode.val();
            } else {
                // Rule 7.
                self.reads_group.next = true;
                if self.g_fail.val() {
                    self.verdict.next = self.v_group_failed.val();
                } else if self.tid_diff.val() == self.tid_same.val() {
                    if self.g_csm.val() == self.csm_full.val() {
                        // Full -> Exiting -> Idle: tell every child, advance the TID.
                        self.n_csm.next = self.csm_idle.val();
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
                // Rule 6.
                self.reads_group.next = true;
                if self.g_fail.val() {
                    self.verdict.next = self.v_group_failed.val();
                } else if self.tid_diff.val() == self.tid_behind.val() {
                    // The child missed Exit: the transaction it asks about has completed.
                    self.verdict.next = self.v_lag.val();
                    self.send.next = true;
                    self.send_ports.next = self.port_hot.val();
                    self.send_op.next = self.op_status_rsp.val();
                } else if self.tid_diff.val() != self.tid_same.val() {
                    self.verdict.next = self.v_tid_fail.val();
                    self.n_fail.next = true;
                } else if (self.g_rep.val() & self.port_hot.val()) == self.zero_r.val() {
                    // The ratchet for a child's first report (a group between packets is Idle
                    // or Filling here): Filling until every child has reported, then Full —
                    // and at the root on through Exiting to Idle.
                    self.n_rep.next = self.rep_now.val();
                    self.n_csm.next = self.csm_filling.val();
                    if self.all_now.val() {
                        self.send.next = true;
                        if self.e_is_root.val() {
                            self.n_csm.next = self.csm_idle.val();
                            self.n_tid.next = self.g_tid.val() + self.step.val();
                            self.n_rep.next = self.zero_r.val();
                            self.send_ports.next = self.e_children.val();
                            self.send_op.next = self.op_exit.val();
                        } else {
                            self.n_csm.next = self.csm_full.val();
                            self.send_ports.next = self.one_r.val() << self.e_parent.val();
                            self.send_op.next = self.op_full.val();
                        }
                    }
                } else if self.op.val() == self.op_status_req.val() {
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
    }
}
