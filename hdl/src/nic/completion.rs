//! # The pending completion (module `nic_completion`)
//!
//! The completion of the current WQE, written once: a unit that finishes a WQE raises
//! `complete` with its status (the receive unit also the length stored) and the sequencer goes
//! to `Complete` (at once, or after a counter update or a discarded message), where the queues
//! write this unit's CQE — its fields packed by the `CqeWord` layout block (`cqe_word`) — if
//! `write_cqe`, and retire the WQE if `retire`. A completion is written when the WQE is
//! signaled or failed (any status but OK). The states in which a WQE may complete and go to
//! `Complete` at once (`SqDecode`, `WaitCheck`, `EnableWrite`, the CALC's `CalcReadA`,
//! `CalcStream`, `CalcWrite`, `CalcWriteIndex`, and `PipeCheck`) load the fields whether or not
//! their WQE completes, so that the decision is not in front of the registers' enables: only
//! `Complete` reads them, and it follows only a cycle that completed (or raised `notify`),
//! which loaded them. So `complete` is the receive unit's alone, whose completions may wait
//! for a message's end or a counter's update (the others' statuses still come in
//! `complete_status`). An
//! arriving NAK sets up a `REMOTE_DISCARD` notification instead (`notify`): a CQE for the
//! SQ's CQ, no WQE retired.
//!
//! # Inputs
//! - `clock`, `reset`; `state`;
//! - `complete`: the receive unit completes the current WQE; `complete_status` (a `Status`
//!   code, of whichever unit completes), `complete_len`;
//! - the current WQE's `opcode`, `signaled`; the served queue `wq` and its `ctx_ci` (the index
//!   of its head WQE);
//! - `hold`: the completion waits for a discarded message (`pending`);
//! - `notify`, `notify_qp`, `notify_tag`: an arriving NAK for the SEND `notify_tag` of QP
//!   `notify_qp`.
//!
//! # Outputs
//! - `cqe`: the CQE (its fields are registers);
//! - `write_cqe`, `retire`, `pending` (registers);
//! - `stat_hits`: `ErrorCqe` when a CQE with a status other than OK is written.

use super::k;
use super::layouts::pack::CqeWord;
use super::sequencer::SeqState;
use super::stats::hit;
use crate::dff_setup;
use crate::prim::Reg;
use netcoll_models::nic::{Opcode, Stat, Status, STATS};
use rust_hdl::prelude::*;

const STATUS_BITS: usize = Status::BITS;
const OPCODE_BITS: usize = Opcode::BITS;

crate::sub_block! {
    /// The pending completion for `2^QB` queue pairs (`WB` = `QB + 1`).
    pub struct NicCompletion<const QB: usize, const WB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub complete: Signal<In, bool>,
        pub complete_status: Signal<In, Bits<STATUS_BITS>>,
        pub complete_len: Signal<In, Bits<16>>,
        pub opcode: Signal<In, Bits<OPCODE_BITS>>,
        pub signaled: Signal<In, bool>,
        pub wq: Signal<In, Bits<WB>>,
        pub ctx_ci: Signal<In, Bits<16>>,
        pub hold: Signal<In, bool>,
        pub notify: Signal<In, bool>,
        pub notify_qp: Signal<In, Bits<8>>,
        pub notify_tag: Signal<In, Bits<16>>,
        pub cqe: Signal<Out, Bits<64>>,
        pub write_cqe: Signal<Out, bool>,
        pub retire: Signal<Out, bool>,
        pub pending: Signal<Out, bool>,
        pub stat_hits: Signal<Out, Bits<STATS>>,
        status: Reg<Bits<STATUS_BITS>>,
        opcode_of: Reg<Bits<OPCODE_BITS>>,
        qp: Reg<Bits<8>>,
        is_recv: Reg<bool>,
        index: Reg<Bits<16>>,
        len: Reg<Bits<16>>,
        writes: Reg<bool>,
        retires: Reg<bool>,
        waits: Reg<bool>,
        /// The fields are loaded: a completion, or a state of a send-queue visit that may
        /// complete (whatever it decides: see the module docs).
        load: Signal<Local, bool>,
        /// The CQE's fields, packed (module `nic_cqe_word`).
        cqe_word: CqeWord,
        ok: Constant<Bits<STATUS_BITS>> = k(Status::Ok.code()),
        remote_discard: Constant<Bits<STATUS_BITS>> = k(Status::RemoteDiscard.code()),
        send: Constant<Bits<OPCODE_BITS>> = k(Opcode::Send.code()),
        hit_error_cqe: Constant<Bits<STATS>> = hit(Stat::ErrorCqe),
    }
}

impl<const QB: usize, const WB: usize> Logic for NicCompletion<QB, WB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, status, opcode_of, qp, is_recv, index, len, writes, retires, waits);
        self.cqe_word.status.next = self.status.q.val();
        self.cqe_word.opcode.next = self.opcode_of.q.val();
        self.cqe_word.qp.next = self.qp.q.val();
        self.cqe_word.is_recv.next = self.is_recv.q.val();
        self.cqe_word.index.next = self.index.q.val();
        self.cqe_word.len.next = self.len.q.val();
        self.cqe.next = self.cqe_word.cqe.val();
        self.write_cqe.next = self.writes.q.val();
        self.retire.next = self.retires.q.val();
        self.pending.next = self.waits.q.val();

        // The current WQE completes: a CQE if it is signaled or failed.
        self.load.next = self.complete.val()
            | (self.state.val() == SeqState::SqDecode)
            | (self.state.val() == SeqState::WaitCheck)
            | (self.state.val() == SeqState::EnableWrite)
            | (self.state.val() == SeqState::CalcReadA)
            | (self.state.val() == SeqState::CalcStream)
            | (self.state.val() == SeqState::CalcWrite)
            | (self.state.val() == SeqState::CalcWriteIndex)
            | (self.state.val() == SeqState::PipeCheck);
        if self.load.val() {
            self.status.d.next = self.complete_status.val();
            self.opcode_of.d.next = self.opcode.val();
            self.qp.d.next = bit_cast::<8, QB>(self.wq.val().get_bits::<QB>(1));
            self.is_recv.d.next = self.wq.val().get_bit(0);
            self.index.d.next = self.ctx_ci.val();
            self.len.d.next = self.complete_len.val();
            self.writes.d.next =
                self.signaled.val() | (self.complete_status.val() != self.ok.val());
            self.retires.d.next = true;
        }
        if self.hold.val() {
            self.waits.d.next = true;
        }
        // An arriving NAK: the SEND it names failed remotely.
        if self.notify.val() {
            self.status.d.next = self.remote_discard.val();
            self.opcode_of.d.next = self.send.val();
            self.qp.d.next = self.notify_qp.val();
            self.is_recv.d.next = false;
            self.index.d.next = self.notify_tag.val();
            self.len.d.next = 0.into();
            self.writes.d.next = true;
            self.retires.d.next = false;
            self.waits.d.next = true;
        }
        self.stat_hits.next = 0.into();
        if self.state.val() == SeqState::Complete {
            self.waits.d.next = false;
            if self.writes.q.val() & (self.status.q.val() != self.ok.val()) {
                self.stat_hits.next = self.hit_error_cqe.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::CqeWord;

    type Cpl = NicCompletion<2, 3>;

    fn cycle(c: &mut Cpl) {
        c.clock.next = Clock { clk: false };
        assert!(simulate(c, 1000));
        c.clock.next = Clock { clk: true };
        assert!(simulate(c, 1000));
        c.clock.next = Clock { clk: false };
        assert!(simulate(c, 1000));
    }

    #[test]
    fn a_completion_is_written_when_signaled_or_failed() {
        let mut c = Cpl::default();
        c.connect_all();
        c.state.next = SeqState::SqDecode;
        c.opcode.next = Opcode::Wait.code().into();
        c.wq.next = 7.into(); // the RQ of QP 3
        c.ctx_ci.next = 0x1234.into();
        c.complete_len.next = 9.into();
        for (signaled, status) in [
            (true, Status::Ok),
            (false, Status::Ok),
            (false, Status::LenErr),
        ] {
            c.complete.next = true;
            c.complete_status.next = status.code().into();
            c.signaled.next = signaled;
            cycle(&mut c);
            c.complete.next = false;
            let want = CqeWord {
                status: status.code(),
                opcode: Opcode::Wait.code(),
                qp: 3,
                is_recv: 1,
                index: 0x1234,
                len: 9,
            };
            assert_eq!(c.cqe.val().to_u64(), want.pack()[0]);
            assert_eq!(c.write_cqe.val(), signaled || status != Status::Ok);
            assert!(c.retire.val() && !c.pending.val());
            // The Complete state counts the failures it writes.
            c.state.next = SeqState::Complete;
            cycle(&mut c);
            c.state.next = SeqState::SqDecode;
        }
        c.state.next = SeqState::Complete;
        c.clock.next = Clock { clk: false };
        assert!(simulate(&mut c, 1000));
        assert_eq!(c.stat_hits.val().to_u64(), 1 << Stat::ErrorCqe.code());
    }

    #[test]
    fn an_arriving_nak_notifies_its_send() {
        let mut c = Cpl::default();
        c.connect_all();
        c.state.next = SeqState::NakCq;
        c.notify.next = true;
        c.notify_qp.next = 2.into();
        c.notify_tag.next = 0x55.into();
        cycle(&mut c);
        c.notify.next = false;
        let want = CqeWord {
            status: Status::RemoteDiscard.code(),
            opcode: Opcode::Send.code(),
            qp: 2,
            is_recv: 0,
            index: 0x55,
            len: 0,
        };
        assert_eq!(c.cqe.val().to_u64(), want.pack()[0]);
        assert!(c.write_cqe.val() && !c.retire.val() && c.pending.val());
        c.state.next = SeqState::Complete;
        cycle(&mut c);
        assert!(!c.pending.val(), "Complete clears it");
    }
}
