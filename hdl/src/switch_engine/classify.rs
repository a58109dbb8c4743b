//! # What a packet makes of its group's entry (module `switch_engine_classify`)
//!
//! Combinational: rules 1–5 of `netcoll_models::switch_engine`, which need the table entry
//! and the packet but not the group's state — whether the packet is dropped before its group
//! is consulted (and why), or which of the two paths of rules 6 (from a child) and 7 (from
//! the parent) it takes. Stage 2 of [`super::SwitchEngine`] feeds it the resolved entry and
//! registers what it finds, so that the decision of stage 3 ([`super::SwitchEngineCsm`])
//! starts from registers rather than from a 16:1 mux of the child mask.
//!
//! # Inputs
//! - the packet: `port` (P bits), `op` (3), `bad_payload` (its payload is malformed, rule
//!   2b, worked out from its header in stage 0);
//! - the entry: `e_valid`, `e_is_root`, `e_parent` (P), `e_children` (R).
//!
//! # Outputs
//! - `p_path` / `c_path`: the packet is a parent's EXIT or STATUS_RSP (rule 7) / a child's
//!   FULL or STATUS_REQ (rule 6) of a valid entry, so its group's state decides;
//! - `v_entry` (4, a `Verdict` code): the verdict when neither path is taken (UNKNOWN_CGID,
//!   BAD_OPCODE, BAD_PAYLOAD or NOT_IN_TREE; meaningless on a path);
//! - `status_req`: the opcode is STATUS_REQ;
//! - `parent_hot` (R): `1 << e_parent`, the port mask of a packet sent up.

use netcoll_models::net::Opcode;
use netcoll_models::switch_engine::{Verdict, OP_BITS};
use rust_hdl::prelude::*;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// Rules 1–5 for radix `R` (`P` = log2 `R`).
#[derive(LogicBlock)]
pub struct SwitchEngineClassify<const R: usize, const P: usize> {
    pub port: Signal<In, Bits<P>>,
    pub op: Signal<In, Bits<OP_BITS>>,
    pub bad_payload: Signal<In, bool>,
    pub e_valid: Signal<In, bool>,
    pub e_is_root: Signal<In, bool>,
    pub e_parent: Signal<In, Bits<P>>,
    pub e_children: Signal<In, Bits<R>>,

    pub p_path: Signal<Out, bool>,
    pub c_path: Signal<Out, bool>,
    pub v_entry: Signal<Out, Bits<{ Verdict::BITS }>>,
    pub status_req: Signal<Out, bool>,
    pub parent_hot: Signal<Out, Bits<R>>,

    from_parent: Signal<Local, bool>,
    from_child: Signal<Local, bool>,
    child_op: Signal<Local, bool>,
    parent_op: Signal<Local, bool>,
    /// A valid entry and a defined opcode (rules 1 and 2 pass).
    in_use: Signal<Local, bool>,

    one_r: Constant<Bits<R>>,
    op_full: Constant<Bits<OP_BITS>>,
    op_exit: Constant<Bits<OP_BITS>>,
    op_status_req: Constant<Bits<OP_BITS>>,
    op_status_rsp: Constant<Bits<OP_BITS>>,
    v_unknown_cgid: Constant<Bits<{ Verdict::BITS }>>,
    v_not_in_tree: Constant<Bits<{ Verdict::BITS }>>,
    v_bad_opcode: Constant<Bits<{ Verdict::BITS }>>,
    v_bad_payload: Constant<Bits<{ Verdict::BITS }>>,
}

impl<const R: usize, const P: usize> Default for SwitchEngineClassify<R, P> {
    fn default() -> Self {
        Self {
            port: Default::default(),
            op: Default::default(),
            bad_payload: Default::default(),
            e_valid: Default::default(),
            e_is_root: Default::default(),
            e_parent: Default::default(),
            e_children: Default::default(),
            p_path: Default::default(),
            c_path: Default::default(),
            v_entry: Default::default(),
            status_req: Default::default(),
            parent_hot: Default::default(),
            from_parent: Default::default(),
            from_child: Default::default(),
            child_op: Default::default(),
            parent_op: Default::default(),
            in_use: Default::default(),
            one_r: k(1),
            op_full: k(Opcode::Full.code()),
            op_exit: k(Opcode::Exit.code()),
            op_status_req: k(Opcode::StatusReq.code()),
            op_status_rsp: k(Opcode::StatusRsp.code()),
            v_unknown_cgid: k(Verdict::UnknownCgid.code()),
            v_not_in_tree: k(Verdict::NotInTree.code()),
            v_bad_opcode: k(Verdict::BadOpcode.code()),
            v_bad_payload: k(Verdict::BadPayload.code()),
        }
    }
}

impl<const R: usize, const P: usize> Logic for SwitchEngineClassify<R, P> {
    #[hdl_gen]
    fn update(&mut self) {
        // Rule 3: the parent wins if its port is also in the child mask.
        self.from_parent.next = !self.e_is_root.val() & (self.e_parent.val() == self.port.val());
        self.from_child.next = self.e_children.val().get_bit(self.port.val().index());
        // Rule 4: FULL and STATUS_REQ travel up, EXIT and STATUS_RSP down.
        self.child_op.next =
            (self.op.val() == self.op_full.val()) | (self.op.val() == self.op_status_req.val());
        self.parent_op.next =
            (self.op.val() == self.op_exit.val()) | (self.op.val() == self.op_status_rsp.val());
        self.in_use.next = self.e_valid.val() & !self.op.val().get_bit(2) & !self.bad_payload.val();
        self.p_path.next = self.in_use.val() & self.from_parent.val() & self.parent_op.val();
        self.c_path.next = self.in_use.val()
            & !self.from_parent.val()
            & self.from_child.val()
            & self.child_op.val();
        self.status_req.next = self.op.val() == self.op_status_req.val();
        self.parent_hot.next = self.one_r.val() << self.e_parent.val();
        // Rule 1: an invalid entry; rule 2: a reserved opcode (4..7); rule 2b: a malformed
        // payload; rule 4: an opcode going the wrong way; rule 3: a port neither parent nor
        // child.
        self.v_entry.next = self.v_not_in_tree.val();
        if !self.e_valid.val() {
            self.v_entry.next = self.v_unknown_cgid.val();
        } else if self.op.val().get_bit(2) {
            self.v_entry.next = self.v_bad_opcode.val();
        } else if self.bad_payload.val() {
            self.v_entry.next = self.v_bad_payload.val();
        } else if (self.from_parent.val() & !self.parent_op.val())
            | (!self.from_parent.val() & self.from_child.val() & !self.child_op.val())
        {
            self.v_entry.next = self.v_bad_opcode.val();
        }
    }
}
