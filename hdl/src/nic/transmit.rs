//! # The transmit engine (module `nic_transmit`)
//!
//! Sends messages beside the sequencer, so that the NIC receives while it transmits (see
//! "The transmit engine" in `netcoll_models::nic::model`, whose phases [`TxPhase`] are the
//! ones here). It holds one handed-over data message — a SEND's buffer, a CALC's result
//! (held until the result is computed), a retry — and one answer to an arriving message (a
//! NAK or an ACK: one empty beat). Between messages the answer goes first, also one posted in
//! the cycle the data message could start. Each beat is
//! read from the engine's own copy of data memory, shown, and held until `tx_ready`. After
//! the last beat of a message without `ack`, the message is *sent*: its SQ's next visit
//! completes its WQE; a reliable QP's SQ awaits its answer instead, from the hand-over on.
//!
//! # Inputs
//! - `clock`, `reset`; `tx_ready`;
//! - `send`, `send_go`, `send_addr`, `send_len`: hand over a data message of `send_len` words
//!   at `send_addr` (`send_go`: it may start at once), for the current WQE's `peer_node`,
//!   `peer_qp`, `peer_cnt_en`, `peer_cnt`, from the served queue's QP `served_qp` (the
//!   source) and its head WQE `ctx_ci` (the tag), asking for an answer if `reliable`; only
//!   when `free`;
//! - `go`: the held message may start (its CALC is done); `cancel`: drop it (its CALC
//!   failed); `sent_taken`: the sent message's WQE completes;
//! - `nak_send`: post an answer to `nak_dst`, `nak_qp` from `nak_src_qp`, tag `nak_tag`, data
//!   `nak_reason`; only when not `ans_full`;
//! - `dmem_data`: what the engine's copy of data memory returned.
//!
//! # Outputs
//! - `tx_valid`, `tx_kind`, `tx_dst`, `tx_src_qp`, `tx_qp`, `tx_cnt_en`, `tx_cnt`, `tx_tag`,
//!   `tx_ack`, `tx_empty`, `tx_last`, `tx_data`: the port (registers);
//! - `free`: no data message is held (handed over and not all sent, or sent and its WQE not
//!   completed); `busy_here`, `sent_here`: the message held is `served_qp`'s, not all sent /
//!   sent; `ans_full`: an answer waits;
//! - `dmem_rd_addr`: the word of the next beat (zero when none is read).

use super::sequencer::TxPhase;
use crate::dff_setup;
use crate::prim::Reg;
use netcoll_models::nic::Status;
use rust_hdl::prelude::*;

const STATUS_BITS: usize = Status::BITS;

crate::sub_block! {
    /// The transmit engine (widths as in [`super::Nic`]).
    pub struct NicTransmit<const QB: usize, const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub tx_ready: Signal<In, bool>,
        pub send: Signal<In, bool>,
        pub send_go: Signal<In, bool>,
        pub send_addr: Signal<In, Bits<16>>,
        pub send_len: Signal<In, Bits<16>>,
        pub peer_node: Signal<In, Bits<8>>,
        pub peer_qp: Signal<In, Bits<8>>,
        pub peer_cnt_en: Signal<In, bool>,
        pub peer_cnt: Signal<In, Bits<8>>,
        pub served_qp: Signal<In, Bits<QB>>,
        pub ctx_ci: Signal<In, Bits<16>>,
        pub reliable: Signal<In, bool>,
        pub go: Signal<In, bool>,
        pub cancel: Signal<In, bool>,
        pub sent_taken: Signal<In, bool>,
        pub nak_send: Signal<In, bool>,
        pub nak_dst: Signal<In, Bits<8>>,
        pub nak_qp: Signal<In, Bits<8>>,
        pub nak_src_qp: Signal<In, Bits<8>>,
        pub nak_tag: Signal<In, Bits<16>>,
        pub nak_reason: Signal<In, Bits<STATUS_BITS>>,
        pub dmem_data: Signal<In, Bits<64>>,
        pub tx_valid: Signal<Out, bool>,
        pub tx_kind: Signal<Out, bool>,
        pub tx_dst: Signal<Out, Bits<8>>,
        pub tx_src_qp: Signal<Out, Bits<8>>,
        pub tx_qp: Signal<Out, Bits<8>>,
        pub tx_cnt_en: Signal<Out, bool>,
        pub tx_cnt: Signal<Out, Bits<8>>,
        pub tx_tag: Signal<Out, Bits<16>>,
        pub tx_ack: Signal<Out, bool>,
        pub tx_empty: Signal<Out, bool>,
        pub tx_last: Signal<Out, bool>,
        pub tx_data: Signal<Out, Bits<64>>,
        pub free: Signal<Out, bool>,
        pub busy_here: Signal<Out, bool>,
        pub sent_here: Signal<Out, bool>,
        pub ans_full: Signal<Out, bool>,
        pub dmem_rd_addr: Signal<Out, Bits<DB>>,
        phase: Reg<TxPhase>,
        // The port's registers.
        valid: Reg<bool>,
        kind: Reg<bool>,
        dst: Reg<Bits<8>>,
        src_qp: Reg<Bits<8>>,
        qp: Reg<Bits<8>>,
        cnt_en: Reg<bool>,
        cnt: Reg<Bits<8>>,
        tag: Reg<Bits<16>>,
        ack: Reg<bool>,
        empty: Reg<bool>,
        last: Reg<bool>,
        data: Reg<Bits<64>>,
        /// A data message is held, not all sent; it may start (`may_go`).
        pend: Reg<bool>,
        may_go: Reg<bool>,
        /// A data message without `ack` has been sent; its WQE is still to complete.
        sent: Reg<bool>,
        /// The QP whose SQ handed the message over.
        sq: Reg<Bits<QB>>,
        // The held message's header.
        m_dst: Reg<Bits<8>>,
        m_qp: Reg<Bits<8>>,
        m_cnt_en: Reg<bool>,
        m_cnt: Reg<Bits<8>>,
        m_tag: Reg<Bits<16>>,
        m_ack: Reg<bool>,
        /// Beats still to send, the one shown included; the word of the next beat.
        left: Reg<Bits<16>>,
        addr: Reg<Bits<16>>,
        /// An answer waits: its header and reason.
        ans: Reg<bool>,
        a_dst: Reg<Bits<8>>,
        a_qp: Reg<Bits<8>>,
        a_src_qp: Reg<Bits<8>>,
        a_tag: Reg<Bits<16>>,
        a_reason: Reg<Bits<STATUS_BITS>>,
    }
}

impl<const QB: usize, const DB: usize> Logic for NicTransmit<QB, DB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, valid, kind, dst, src_qp, qp, cnt_en, cnt, tag, ack, empty, last,
            data, pend, may_go, sent, sq, m_dst, m_qp, m_cnt_en, m_cnt, m_tag, m_ack, left, addr,
            ans, a_dst, a_qp, a_src_qp, a_tag, a_reason
        );
        self.tx_valid.next = self.valid.q.val();
        self.tx_kind.next = self.kind.q.val();
        self.tx_dst.next = self.dst.q.val();
        self.tx_src_qp.next = self.src_qp.q.val();
        self.tx_qp.next = self.qp.q.val();
        self.tx_cnt_en.next = self.cnt_en.q.val();
        self.tx_cnt.next = self.cnt.q.val();
        self.tx_tag.next = self.tag.q.val();
        self.tx_ack.next = self.ack.q.val();
        self.tx_empty.next = self.empty.q.val();
        self.tx_last.next = self.last.q.val();
        self.tx_data.next = self.data.q.val();
        self.free.next = !self.pend.q.val() & !self.sent.q.val();
        self.busy_here.next = self.pend.q.val() & (self.sq.q.val() == self.served_qp.val());
        self.sent_here.next = self.sent.q.val() & (self.sq.q.val() == self.served_qp.val());
        self.ans_full.next = self.ans.q.val();

        // What the sequencer hands over (each only when the engine can take it).
        if self.send.val() {
            self.pend.d.next = true;
            self.may_go.d.next = self.send_go.val();
            self.sq.d.next = self.served_qp.val();
            self.m_dst.d.next = self.peer_node.val();
            self.m_qp.d.next = self.peer_qp.val();
            self.m_cnt_en.d.next = self.peer_cnt_en.val();
            self.m_cnt.d.next = self.peer_cnt.val();
            self.m_tag.d.next = self.ctx_ci.val();
            self.m_ack.d.next = self.reliable.val();
            self.left.d.next = self.send_len.val();
            self.addr.d.next = self.send_addr.val();
        }
        if self.go.val() {
            self.may_go.d.next = true;
        }
        if self.cancel.val() {
            self.pend.d.next = false;
        }
        if self.sent_taken.val() {
            self.sent.d.next = false;
        }
        if self.nak_send.val() {
            self.ans.d.next = true;
            self.a_dst.d.next = self.nak_dst.val();
            self.a_qp.d.next = self.nak_qp.val();
            self.a_src_qp.d.next = self.nak_src_qp.val();
            self.a_tag.d.next = self.nak_tag.val();
            self.a_reason.d.next = self.nak_reason.val();
        }

        self.dmem_rd_addr.next = 0.into();
        match self.phase.q.val() {
            TxPhase::Idle => {
                if self.ans.q.val() {
                    // The answer first: one empty beat.
                    self.ans.d.next = false;
                    self.kind.d.next = true;
                    self.dst.d.next = self.a_dst.q.val();
                    self.qp.d.next = self.a_qp.q.val();
                    self.src_qp.d.next = self.a_src_qp.q.val();
                    self.cnt_en.d.next = false;
                    self.cnt.d.next = 0.into();
                    self.tag.d.next = self.a_tag.q.val();
                    self.ack.d.next = false;
                    self.valid.d.next = true;
                    self.empty.d.next = true;
                    self.last.d.next = true;
                    self.data.d.next = bit_cast::<64, STATUS_BITS>(self.a_reason.q.val());
                    self.phase.d.next = TxPhase::Hold;
                } else if self.pend.q.val() & self.may_go.q.val() & !self.nak_send.val() {
                    // Not in the cycle an answer is posted: that one goes first.
                    self.kind.d.next = false;
                    self.dst.d.next = self.m_dst.q.val();
                    self.qp.d.next = self.m_qp.q.val();
                    self.src_qp.d.next = bit_cast::<8, QB>(self.sq.q.val());
                    self.cnt_en.d.next = self.m_cnt_en.q.val();
                    self.cnt.d.next = self.m_cnt.q.val();
                    self.tag.d.next = self.m_tag.q.val();
                    self.ack.d.next = self.m_ack.q.val();
                    if self.left.q.val() == 0 {
                        // The empty message: one beat without data.
                        self.valid.d.next = true;
                        self.empty.d.next = true;
                        self.last.d.next = true;
                        self.data.d.next = 0.into();
                        self.phase.d.next = TxPhase::Hold;
                    } else {
                        self.dmem_rd_addr.next = self.addr.q.val().get_bits::<DB>(0);
                        self.phase.d.next = TxPhase::Beat;
                    }
                }
            }
            TxPhase::Beat => {
                self.valid.d.next = true;
                self.empty.d.next = false;
                self.last.d.next = self.left.q.val() == 1;
                self.data.d.next = self.dmem_data.val();
                self.phase.d.next = TxPhase::Hold;
            }
            TxPhase::Hold => {
                if self.tx_ready.val() {
                    self.valid.d.next = false;
                    if !self.last.q.val() {
                        self.left.d.next = self.left.q.val() - 1;
                        self.addr.d.next = self.addr.q.val() + 1;
                        self.dmem_rd_addr.next = self.addr.q.val().get_bits::<DB>(0) + 1;
                        self.phase.d.next = TxPhase::Beat;
                    } else {
                        self.phase.d.next = TxPhase::Idle;
                        if !self.kind.q.val() {
                            // The data message is out.
                            self.pend.d.next = false;
                            self.sent.d.next = !self.ack.q.val();
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Tx = NicTransmit<2, 10>;

    /// Plays the sequencer and the data memory around the engine: one cycle, then the edge.
    /// Returns the beat shown during the cycle if taken (`tx_ready`): `(data, kind, empty,
    /// last)`.
    fn cycle(
        t: &mut Tx,
        mem: &[u64],
        ready: bool,
        read: &mut u64,
    ) -> Option<(u64, bool, bool, bool)> {
        t.tx_ready.next = ready;
        t.dmem_data.next = mem[*read as usize].into();
        t.clock.next = Clock { clk: false };
        assert!(simulate(t, 1000));
        let beat = (t.tx_valid.val() && ready).then(|| {
            (
                t.tx_data.val().to_u64(),
                t.tx_kind.val(),
                t.tx_empty.val(),
                t.tx_last.val(),
            )
        });
        *read = t.dmem_rd_addr.val().to_u64();
        t.clock.next = Clock { clk: true };
        assert!(simulate(t, 1000));
        // What the sequencer asks holds for one cycle.
        t.send.next = false;
        t.go.next = false;
        t.cancel.next = false;
        t.sent_taken.next = false;
        t.nak_send.next = false;
        beat
    }

    /// The beats taken over `cycles` cycles, `tx_ready` always high.
    fn beats_over(
        t: &mut Tx,
        mem: &[u64],
        read: &mut u64,
        cycles: usize,
    ) -> Vec<(u64, bool, bool, bool)> {
        (0..cycles)
            .filter_map(|_| cycle(t, mem, true, read))
            .collect()
    }

    fn hand_over(t: &mut Tx, addr: u64, len: u64, go: bool) {
        t.send.next = true;
        t.send_go.next = go;
        t.send_addr.next = addr.into();
        t.send_len.next = len.into();
        t.peer_node.next = 4.into();
        t.peer_qp.next = 5.into();
        t.peer_cnt_en.next = true;
        t.peer_cnt.next = 6.into();
        t.served_qp.next = 3.into();
        t.ctx_ci.next = 77.into();
    }

    fn post_answer(t: &mut Tx, reason: Status) {
        t.nak_send.next = true;
        t.nak_dst.next = 9.into();
        t.nak_qp.next = 8.into();
        t.nak_src_qp.next = 1.into();
        t.nak_tag.next = 0x42.into();
        t.nak_reason.next = reason.code().into();
    }

    #[test]
    fn a_message_is_sent_beat_by_beat_under_back_pressure_then_waits_for_its_completion() {
        let mut t = Tx::default();
        t.connect_all();
        let mem: Vec<u64> = (0..1024).map(|k| 1000 + k).collect();
        let mut read = 0;
        hand_over(&mut t, 10, 3, true);
        cycle(&mut t, &mem, true, &mut read);
        assert!(!t.free.val() && t.busy_here.val() && !t.sent_here.val());
        let mut beats = vec![];
        for k in 0..40 {
            if let Some(b) = cycle(&mut t, &mem, k % 3 == 0, &mut read) {
                beats.push(b);
            }
        }
        assert_eq!(
            beats,
            vec![
                (1010, false, false, false),
                (1011, false, false, false),
                (1012, false, false, true)
            ]
        );
        assert_eq!(
            (
                t.tx_dst.val().to_u64(),
                t.tx_qp.val().to_u64(),
                t.tx_src_qp.val().to_u64()
            ),
            (4, 5, 3)
        );
        assert!(t.tx_cnt_en.val() && !t.tx_ack.val());
        assert_eq!((t.tx_cnt.val().to_u64(), t.tx_tag.val().to_u64()), (6, 77));
        // Sent: the engine stays taken until the SQ's visit completes the WQE.
        assert!(!t.free.val() && t.sent_here.val() && !t.busy_here.val());
        t.served_qp.next = 2.into();
        cycle(&mut t, &mem, true, &mut read);
        assert!(!t.sent_here.val(), "another QP's visit");
        t.sent_taken.next = true;
        cycle(&mut t, &mem, true, &mut read);
        assert!(t.free.val());
    }

    #[test]
    fn a_held_message_waits_for_go_and_answers_go_first() {
        let mut t = Tx::default();
        t.connect_all();
        let mem: Vec<u64> = (0..1024).map(|k| 1000 + k).collect();
        let mut read = 0;
        // A CALC's result, held; nothing is sent until `go`.
        hand_over(&mut t, 20, 1, false);
        t.reliable.next = true;
        cycle(&mut t, &mem, true, &mut read);
        t.reliable.next = false;
        for _ in 0..5 {
            assert_eq!(cycle(&mut t, &mem, true, &mut read), None);
        }
        // An answer posted with `go` in the same cycle goes first.
        post_answer(&mut t, Status::NotReady);
        t.go.next = true;
        cycle(&mut t, &mem, true, &mut read);
        assert!(t.ans_full.val());
        let beats = beats_over(&mut t, &mem, &mut read, 10);
        assert_eq!(
            beats,
            vec![
                (Status::NotReady.code(), true, true, true),
                (1020, false, false, true)
            ]
        );
        // A reliable message is never "sent": its answer completes it.
        assert!(t.free.val() && !t.ans_full.val());
        // A message that could start in the cycle an answer is posted lets the answer go
        // first, so it never starts with the answer register taken.
        hand_over(&mut t, 30, 1, true);
        cycle(&mut t, &mem, true, &mut read);
        post_answer(&mut t, Status::BadAddr);
        let beats = beats_over(&mut t, &mem, &mut read, 10);
        assert_eq!(
            beats,
            vec![
                (Status::BadAddr.code(), true, true, true),
                (1030, false, false, true)
            ]
        );
    }

    #[test]
    fn empty_messages_are_one_empty_beat_and_a_cancelled_one_none() {
        let mut t = Tx::default();
        t.connect_all();
        let mem = vec![0u64; 1024];
        let mut read = 0;
        hand_over(&mut t, 0, 0, true);
        cycle(&mut t, &mem, true, &mut read);
        assert_eq!(cycle(&mut t, &mem, true, &mut read), None);
        assert_eq!(
            cycle(&mut t, &mem, true, &mut read),
            Some((0, false, true, true))
        );
        t.sent_taken.next = true;
        cycle(&mut t, &mem, true, &mut read);
        hand_over(&mut t, 0, 5, false);
        cycle(&mut t, &mem, true, &mut read);
        assert!(!t.free.val());
        t.cancel.next = true;
        cycle(&mut t, &mem, true, &mut read);
        assert!(t.free.val());
        for _ in 0..5 {
            assert_eq!(cycle(&mut t, &mem, true, &mut read), None);
        }
    }
}
