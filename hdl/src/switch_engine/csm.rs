//! # The CSM decision (module `switch_engine_csm`)
//!
//! Combinational: given a packet (or a tick), what [`super::SwitchEngineClassify`] made of
//! its group's entry a stage earlier (rules 1–5), the entry and the group's state, rules 6–8
//! of `netcoll_models::switch_engine` — the verdict, the group's next state and the packet to
//! send. Stage 3 of [`super::SwitchEngine`] feeds it and registers what it decides.
//!
//! Every output is a shallow function of a few conditions (`report`, `restart`, `set_fail`,
//! …) rather than the rules' priority chain: the path from a group's state through the
//! decision and back into the state, one packet to the same group every cycle, is the
//! engine's longest.
//!
//! # Inputs
//! - the operation: `port_hot` (R, `1 << port`), `status_req` (its opcode is STATUS_REQ),
//!   `epoch` (2, the epoch it was accepted in);
//! - rules 1–5: `p_path`, `c_path`, `v_entry` (4, the verdict off both paths), and `k_path`
//!   (a tick of a valid non-root entry: rule 8 may act);
//! - the entry: `e_is_root`, `e_children` (R), `parent_hot` (R, `1 << parent`);
//! - the group state: `g_csm` (2), `g_fail`, `g_tid` (2), `g_sent` (2), `g_rep` (R), and facts
//!   about it and the operation that the engine works out a cycle early: `g_full` (`g_csm` is
//!   Full), `t_same` / `t_behind` (the packet's TID is the group's / one behind it, modulo
//!   4), `rep_bit` (`g_rep[port]`, the port has reported in this transaction), `all_now`
//!   (`g_rep | port_hot` is the child mask: every child has reported once this packet's
//!   report is counted), `sent_now` (`g_sent` is `epoch`: something went upward in this
//!   epoch) and `sent_quiet` (`epoch - g_sent` is 2 or 3: nothing went upward for a whole
//!   epoch);
//! - `differs` (`N` = 1 on a reducing engine, else none): the packet's payload shape is not the
//!   group's accumulator's (module `switch_engine_meta`), and `g_first` (`N` likewise): `g_rep`
//!   is zero, worked out a cycle early like the other facts.
//!
//! # Outputs
//! - `verdict` (4, a `Verdict` code) and `reads_group` (the packet is on a path, i.e. the
//!   group state was consulted and is written back); `retry`: a tick acts (rule 8);
//! - the next group state: `n_csm`, `n_fail`, `n_tid`, `n_sent`, `n_rep`;
//! - the packet to send: `send`, `send_ports` (R), `send_op` (3, an `Opcode` code);
//! - `report` (a child's first report: `n_rep` is `g_rep | port_hot`), `restart` (the
//!   transaction ends: `n_rep` is zero) and `stamp` (`n_sent` is `epoch`), from which the
//!   engine works out the facts of the next operation to the group.

use netcoll_models::net::Opcode;
use netcoll_models::switch_engine::{CsmState, Verdict, EPOCH_BITS, OP_BITS, TID_BITS};
use rust_hdl::prelude::*;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The CSM decision for radix `R` (`N`: a reducing engine's).
#[derive(LogicBlock)]
pub struct SwitchEngineCsm<const R: usize, const N: usize> {
    pub port_hot: Signal<In, Bits<R>>,
    pub status_req: Signal<In, bool>,
    pub epoch: Signal<In, Bits<EPOCH_BITS>>,
    pub p_path: Signal<In, bool>,
    pub c_path: Signal<In, bool>,
    pub k_path: Signal<In, bool>,
    pub v_entry: Signal<In, Bits<{ Verdict::BITS }>>,
    pub e_is_root: Signal<In, bool>,
    pub e_children: Signal<In, Bits<R>>,
    pub parent_hot: Signal<In, Bits<R>>,
    pub g_csm: Signal<In, Bits<{ CsmState::BITS }>>,
    pub g_fail: Signal<In, bool>,
    pub g_tid: Signal<In, Bits<TID_BITS>>,
    pub g_sent: Signal<In, Bits<EPOCH_BITS>>,
    pub g_rep: Signal<In, Bits<R>>,
    pub g_full: Signal<In, bool>,
    pub t_same: Signal<In, bool>,
    pub t_behind: Signal<In, bool>,
    pub rep_bit: Signal<In, bool>,
    pub all_now: Signal<In, bool>,
    pub sent_now: Signal<In, bool>,
    pub sent_quiet: Signal<In, bool>,
    pub differs: [Signal<In, bool>; N],
    pub g_first: [Signal<In, bool>; N],

    pub verdict: Signal<Out, Bits<{ Verdict::BITS }>>,
    pub reads_group: Signal<Out, bool>,
    pub retry: Signal<Out, bool>,
    pub n_csm: Signal<Out, Bits<{ CsmState::BITS }>>,
    pub n_fail: Signal<Out, bool>,
    pub n_tid: Signal<Out, Bits<TID_BITS>>,
    pub n_sent: Signal<Out, Bits<EPOCH_BITS>>,
    pub n_rep: Signal<Out, Bits<R>>,
    pub send: Signal<Out, bool>,
    pub send_ports: Signal<Out, Bits<R>>,
    pub send_op: Signal<Out, Bits<OP_BITS>>,
    /// A child's first report (its FULL) in this transaction.
    pub report: Signal<Out, bool>,

    /// The transaction ends here: on EXIT, or at the root when the last child reports.
    pub restart: Signal<Out, bool>,
    /// Something goes to the parent: `n_sent` is `epoch`.
    pub stamp: Signal<Out, bool>,
    /// What is sent, for the payload shapes (`N` = 1 on a reducing engine, else none): a Lag
    /// answer (STATUS_RSP), a forwarded STATUS_REQ, a FULL that is not a report (a retry,
    /// forwarded or a tick's). Each is a condition of its own, not a decode of `send_op`.
    pub sends_lag: [Signal<Out, bool>; N],
    pub sends_req: [Signal<Out, bool>; N],
    pub sends_retry: [Signal<Out, bool>; N],

    live: Signal<Local, bool>,
    rep_now: Signal<Local, Bits<R>>,
    /// The parent's EXIT of this transaction at a Full group.
    exit_now: Signal<Local, bool>,
    /// The last child's report.
    complete: Signal<Local, bool>,
    set_fail: Signal<Local, bool>,
    /// The child missed EXIT: the transaction it asks about has completed.
    lag: Signal<Local, bool>,
    /// A child's FULL that would report, and the parent's EXIT that would end the
    /// transaction, before the payload shape is checked …
    may_report: Signal<Local, bool>,
    /// No child has reported yet.
    first: Signal<Local, bool>,
    may_exit: Signal<Local, bool>,
    /// … and refused for it (rule 2b's BAD_PAYLOAD, decided on the group's state).
    bad_shape: Signal<Local, bool>,
    shape_differs: Signal<Local, bool>,
    /// A STATUS_REQ of this transaction from a child that has not reported.
    unreported: Signal<Local, bool>,
    /// A repeated FULL or STATUS_REQ at a Full group: a retry for the parent …
    retry_in: Signal<Local, bool>,
    /// … forwarded, the first of its epoch.
    ask_up: Signal<Local, bool>,
    stale: Signal<Local, bool>,

    zero_r: Constant<Bits<R>>,
    /// One step of the TID.
    step: Constant<Bits<2>>,
    csm_idle: Constant<Bits<{ CsmState::BITS }>>,
    csm_filling: Constant<Bits<{ CsmState::BITS }>>,
    csm_full: Constant<Bits<{ CsmState::BITS }>>,
    op_full: Constant<Bits<OP_BITS>>,
    op_exit: Constant<Bits<OP_BITS>>,
    op_status_req: Constant<Bits<OP_BITS>>,
    op_status_rsp: Constant<Bits<OP_BITS>>,
    v_ok: Constant<Bits<{ Verdict::BITS }>>,
    v_group_failed: Constant<Bits<{ Verdict::BITS }>>,
    v_stale: Constant<Bits<{ Verdict::BITS }>>,
    v_lag: Constant<Bits<{ Verdict::BITS }>>,
    v_tid_fail: Constant<Bits<{ Verdict::BITS }>>,
    v_unreported: Constant<Bits<{ Verdict::BITS }>>,
    v_coalesced: Constant<Bits<{ Verdict::BITS }>>,
    v_retry: Constant<Bits<{ Verdict::BITS }>>,
    v_bad_payload: Constant<Bits<{ Verdict::BITS }>>,
}

impl<const R: usize, const N: usize> Default for SwitchEngineCsm<R, N> {
    fn default() -> Self {
        Self {
            port_hot: Default::default(),
            status_req: Default::default(),
            epoch: Default::default(),
            p_path: Default::default(),
            c_path: Default::default(),
            k_path: Default::default(),
            v_entry: Default::default(),
            e_is_root: Default::default(),
            e_children: Default::default(),
            parent_hot: Default::default(),
            g_csm: Default::default(),
            g_fail: Default::default(),
            g_tid: Default::default(),
            g_sent: Default::default(),
            g_rep: Default::default(),
            g_full: Default::default(),
            t_same: Default::default(),
            t_behind: Default::default(),
            rep_bit: Default::default(),
            all_now: Default::default(),
            sent_now: Default::default(),
            sent_quiet: Default::default(),
            differs: core::array::from_fn(|_| Default::default()),
            sends_lag: core::array::from_fn(|_| Default::default()),
            sends_req: core::array::from_fn(|_| Default::default()),
            sends_retry: core::array::from_fn(|_| Default::default()),
            g_first: core::array::from_fn(|_| Default::default()),
            shape_differs: Default::default(),
            verdict: Default::default(),
            reads_group: Default::default(),
            retry: Default::default(),
            n_csm: Default::default(),
            n_fail: Default::default(),
            n_tid: Default::default(),
            n_sent: Default::default(),
            n_rep: Default::default(),
            send: Default::default(),
            send_ports: Default::default(),
            send_op: Default::default(),
            live: Default::default(),
            rep_now: Default::default(),
            exit_now: Default::default(),
            report: Default::default(),
            first: Default::default(),
            may_report: Default::default(),
            may_exit: Default::default(),
            bad_shape: Default::default(),
            complete: Default::default(),
            restart: Default::default(),
            stamp: Default::default(),
            set_fail: Default::default(),
            lag: Default::default(),
            unreported: Default::default(),
            retry_in: Default::default(),
            ask_up: Default::default(),
            stale: Default::default(),
            zero_r: k(0),
            step: k(1),
            csm_idle: k(CsmState::Idle.code()),
            csm_filling: k(CsmState::Filling.code()),
            csm_full: k(CsmState::Full.code()),
            op_full: k(Opcode::Full.code()),
            op_exit: k(Opcode::Exit.code()),
            op_status_req: k(Opcode::StatusReq.code()),
            op_status_rsp: k(Opcode::StatusRsp.code()),
            v_ok: k(Verdict::Ok.code()),
            v_group_failed: k(Verdict::GroupFailed.code()),
            v_stale: k(Verdict::Stale.code()),
            v_lag: k(Verdict::Lag.code()),
            v_tid_fail: k(Verdict::TidFail.code()),
            v_unreported: k(Verdict::Unreported.code()),
            v_coalesced: k(Verdict::Coalesced.code()),
            v_retry: k(Verdict::Retry.code()),
            v_bad_payload: k(Verdict::BadPayload.code()),
        }
    }
}

impl<const R: usize, const N: usize> Logic for SwitchEngineCsm<R, N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.live.next = !self.g_fail.val();
        self.rep_now.next = self.g_rep.val() | self.port_hot.val();

        // Rule 7: Full -> Exiting -> Idle on the parent's EXIT of this transaction.
        self.may_exit.next =
            self.p_path.val() & self.live.val() & self.t_same.val() & self.g_full.val();
        // Rule 6: Filling until every child has reported FULL, then Full (at the root on
        // through Exiting to Idle). A STATUS_REQ is never a report.
        self.may_report.next = self.c_path.val()
            & self.live.val()
            & self.t_same.val()
            & !self.rep_bit.val()
            & !self.status_req.val();
        // A reducing engine's contributions after the first, and the parent's EXIT, must have
        // the accumulator's shape.
        self.first.next = false;
        self.shape_differs.next = false;
        for n in 0..N {
            self.first.next = self.g_first[n].val();
            self.shape_differs.next = self.differs[n].val();
        }
        // (The two `may_*` exclude each other: a parent's EXIT is on `p_path`, a child's FULL
        // on `c_path`; the outcomes test the shape each on its own, not through `bad_shape`.)
        self.bad_shape.next = self.shape_differs.val()
            & (self.may_exit.val() | (self.may_report.val() & !self.first.val()));
        self.exit_now.next = self.may_exit.val() & !self.shape_differs.val();
        self.report.next = self.may_report.val() & !(self.shape_differs.val() & !self.first.val());
        self.unreported.next = self.c_path.val()
            & self.live.val()
            & self.t_same.val()
            & !self.rep_bit.val()
            & self.status_req.val();
        self.complete.next = self.report.val() & self.all_now.val();
        self.restart.next = self.exit_now.val() | (self.complete.val() & self.e_is_root.val());
        // A TID neither of this transaction nor of the one before, or EXIT at a group that is
        // not Full.
        self.set_fail.next = self.live.val()
            & !self.t_behind.val()
            & ((self.p_path.val() & !(self.t_same.val() & self.g_full.val()))
                | (self.c_path.val() & !self.t_same.val()));
        self.lag.next = self.c_path.val() & self.live.val() & self.t_behind.val();
        // Only a non-root rests in Full, so a repeat there goes up, once per epoch.
        self.retry_in.next = self.c_path.val()
            & self.live.val()
            & self.t_same.val()
            & self.rep_bit.val()
            & self.g_full.val();
        self.ask_up.next = self.retry_in.val() & !self.sent_now.val();
        // Rule 8: a tick re-sends FULL after a quiet epoch.
        self.retry.next =
            self.k_path.val() & self.live.val() & self.g_full.val() & self.sent_quiet.val();
        self.stale.next = (self.p_path.val() & self.t_behind.val())
            | (self.c_path.val()
                & self.t_same.val()
                & self.rep_bit.val()
                & !self.status_req.val()
                & !self.g_full.val());
        self.stamp.next =
            (self.complete.val() & !self.e_is_root.val()) | self.ask_up.val() | self.retry.val();

        self.reads_group.next = self.p_path.val() | self.c_path.val();
        self.verdict.next = self.v_entry.val();
        if self.reads_group.val() {
            self.verdict.next = self.v_ok.val();
            if self.g_fail.val() {
                self.verdict.next = self.v_group_failed.val();
            } else if self.set_fail.val() {
                self.verdict.next = self.v_tid_fail.val();
            } else if self.bad_shape.val() {
                self.verdict.next = self.v_bad_payload.val();
            } else if self.lag.val() {
                self.verdict.next = self.v_lag.val();
            } else if self.stale.val() {
                self.verdict.next = self.v_stale.val();
            } else if self.unreported.val() {
                self.verdict.next = self.v_unreported.val();
            } else if self.retry_in.val() & self.sent_now.val() {
                self.verdict.next = self.v_coalesced.val();
            }
        } else if self.k_path.val() {
            self.verdict.next = self.v_retry.val();
        }

        self.n_fail.next = self.g_fail.val() | self.set_fail.val();
        self.n_tid.next = self.g_tid.val();
        self.n_rep.next = self.g_rep.val();
        self.n_csm.next = self.g_csm.val();
        if self.restart.val() {
            self.n_tid.next = self.g_tid.val() + self.step.val();
            self.n_rep.next = self.zero_r.val();
            self.n_csm.next = self.csm_idle.val();
        } else if self.report.val() {
            self.n_rep.next = self.rep_now.val();
            self.n_csm.next = self.csm_filling.val();
            if self.all_now.val() {
                self.n_csm.next = self.csm_full.val();
            }
        }
        self.n_sent.next = self.g_sent.val();
        if self.stamp.val() {
            self.n_sent.next = self.epoch.val();
        }

        // (The conditions of `send` exclude each other: `restart` needs `p_path` or a first
        // report, `lag` a TID one behind, `ask_up` a repeated report, `retry` a tick.)
        for n in 0..N {
            self.sends_lag[n].next = self.lag.val();
            self.sends_req[n].next = self.ask_up.val() & self.status_req.val();
            self.sends_retry[n].next =
                (self.ask_up.val() & !self.status_req.val()) | self.retry.val();
        }
        self.send.next = self.restart.val()
            | self.complete.val()
            | self.lag.val()
            | self.ask_up.val()
            | self.retry.val();
        // Upward (a completing FULL, a retry, a tick's FULL) unless one of the others.
        self.send_ports.next = self.parent_hot.val();
        self.send_op.next = self.op_full.val();
        if self.restart.val() {
            self.send_ports.next = self.e_children.val();
            self.send_op.next = self.op_exit.val();
        } else if self.lag.val() {
            self.send_ports.next = self.port_hot.val();
            self.send_op.next = self.op_status_rsp.val();
        } else if self.ask_up.val() & self.status_req.val() {
            self.send_op.next = self.op_status_req.val();
        }
    }
}
