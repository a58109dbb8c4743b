//! # Sending messages (module `nic_transmit`)
//!
//! The `tx_*` output registers and the beat loop: a SEND (or a CALC's result to a peer) sends
//! words of data memory as one message, its header from the WQE's peer fields; a dropped
//! message's NAK is one empty beat, its header from the message. One beat is shown at a time
//! and held until `tx_ready`; a data message's WQE completes after its last beat. `TxStart`,
//! `TxBeat`, `TxHold` in the state table of `netcoll_models::nic::model`.
//!
//! # Inputs
//! - `clock`, `reset`; `state`; `tx_ready`;
//! - `send`, `send_addr`, `send_len`: start a data message of `send_len` words at `send_addr`,
//!   for the current WQE's `peer_node`, `peer_qp`, `peer_cnt_en`, `peer_cnt`, from the served
//!   queue's QP `served_qp` (the source) and its head WQE `ctx_ci` (the tag);
//! - `nak_send`: show a NAK to `nak_dst`, `nak_qp` from `nak_src_qp`, tag `nak_tag`, data
//!   `nak_reason`;
//! - `dmem_data`: what data memory returned; `pending`: a completion waits for the NAK;
//! - `reliable`: the served queue's QP is reliable (its messages ask for an answer, and its
//!   WQE awaits it instead of completing).
//!
//! # Outputs
//! - `tx_valid`, `tx_kind`, `tx_dst`, `tx_src_qp`, `tx_qp`, `tx_cnt_en`, `tx_cnt`, `tx_tag`,
//!   `tx_ack`, `tx_empty`, `tx_last`, `tx_data`: the port (registers);
//! - `next_state`: the next state in the transmit states; `complete`: the data message's WQE
//!   completes; `await_answer` (with `advance_visit`): instead, a reliable QP's SQ awaits the
//!   answer;
//! - `dmem_rd_addr`: the word of the next beat (zero outside the transmit states).

use super::sequencer::SeqState;
use crate::dff_setup;
use crate::prim::Reg;
use netcoll_models::nic::Status;
use rust_hdl::prelude::*;

const STATUS_BITS: usize = Status::BITS;

crate::sub_block! {
    /// Sending messages (widths as in [`super::Nic`]).
    pub struct NicTransmit<const QB: usize, const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub tx_ready: Signal<In, bool>,
        pub send: Signal<In, bool>,
        pub send_addr: Signal<In, Bits<16>>,
        pub send_len: Signal<In, Bits<16>>,
        pub peer_node: Signal<In, Bits<8>>,
        pub peer_qp: Signal<In, Bits<8>>,
        pub peer_cnt_en: Signal<In, bool>,
        pub peer_cnt: Signal<In, Bits<8>>,
        pub served_qp: Signal<In, Bits<QB>>,
        pub ctx_ci: Signal<In, Bits<16>>,
        pub nak_send: Signal<In, bool>,
        pub nak_dst: Signal<In, Bits<8>>,
        pub nak_qp: Signal<In, Bits<8>>,
        pub nak_src_qp: Signal<In, Bits<8>>,
        pub nak_tag: Signal<In, Bits<16>>,
        pub nak_reason: Signal<In, Bits<STATUS_BITS>>,
        pub dmem_data: Signal<In, Bits<64>>,
        pub pending: Signal<In, bool>,
        pub reliable: Signal<In, bool>,
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
        pub next_state: Signal<Out, SeqState>,
        pub complete: Signal<Out, bool>,
        pub await_answer: Signal<Out, bool>,
        pub advance_visit: Signal<Out, bool>,
        pub dmem_rd_addr: Signal<Out, Bits<DB>>,
        /// The message is a NAK (no completion after it).
        nak: Reg<bool>,
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
        /// Beats still to send, the one shown included; the word of the next beat.
        left: Reg<Bits<16>>,
        addr: Reg<Bits<16>>,
    }
}

impl<const QB: usize, const DB: usize> Logic for NicTransmit<QB, DB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, nak, valid, kind, dst, src_qp, qp, cnt_en, cnt, tag, ack, empty, last,
            data, left, addr
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

        // A data message: the header from the WQE and the served queue.
        if self.send.val() {
            self.nak.d.next = false;
            self.kind.d.next = false;
            self.dst.d.next = self.peer_node.val();
            self.qp.d.next = self.peer_qp.val();
            self.src_qp.d.next = bit_cast::<8, QB>(self.served_qp.val());
            self.cnt_en.d.next = self.peer_cnt_en.val();
            self.cnt.d.next = self.peer_cnt.val();
            self.tag.d.next = self.ctx_ci.val();
            self.ack.d.next = self.reliable.val();
            self.left.d.next = self.send_len.val();
            self.addr.d.next = self.send_addr.val();
        }
        // A NAK: one empty beat, shown at once.
        if self.nak_send.val() {
            self.nak.d.next = true;
            self.kind.d.next = true;
            self.dst.d.next = self.nak_dst.val();
            self.qp.d.next = self.nak_qp.val();
            self.src_qp.d.next = self.nak_src_qp.val();
            self.cnt_en.d.next = false;
            self.cnt.d.next = 0.into();
            self.tag.d.next = self.nak_tag.val();
            self.ack.d.next = false;
            self.valid.d.next = true;
            self.empty.d.next = true;
            self.last.d.next = true;
            self.data.d.next = bit_cast::<64, STATUS_BITS>(self.nak_reason.val());
        }

        self.next_state.next = self.state.val();
        self.complete.next = false;
        self.await_answer.next = false;
        self.advance_visit.next = false;
        self.dmem_rd_addr.next = 0.into();
        match self.state.val() {
            SeqState::TxStart => {
                if self.left.q.val() == 0 {
                    // The empty message: one beat without data.
                    self.valid.d.next = true;
                    self.empty.d.next = true;
                    self.last.d.next = true;
                    self.data.d.next = 0.into();
                    self.next_state.next = SeqState::TxHold;
                } else {
                    self.dmem_rd_addr.next = self.addr.q.val().get_bits::<DB>(0);
                    self.next_state.next = SeqState::TxBeat;
                }
            }
            SeqState::TxBeat => {
                self.valid.d.next = true;
                self.empty.d.next = false;
                self.last.d.next = self.left.q.val() == 1;
                self.data.d.next = self.dmem_data.val();
                self.next_state.next = SeqState::TxHold;
            }
            SeqState::TxHold => {
                if self.tx_ready.val() {
                    self.valid.d.next = false;
                    if !self.last.q.val() {
                        self.left.d.next = self.left.q.val() - 1;
                        self.addr.d.next = self.addr.q.val() + 1;
                        self.dmem_rd_addr.next = self.addr.q.val().get_bits::<DB>(0) + 1;
                        self.next_state.next = SeqState::TxBeat;
                    } else if !self.nak.q.val() & self.reliable.val() {
                        // A reliable QP's message: the SQ awaits the answer.
                        self.await_answer.next = true;
                        self.advance_visit.next = true;
                        self.next_state.next = SeqState::Idle;
                    } else if !self.nak.q.val() {
                        self.complete.next = true;
                        self.next_state.next = SeqState::Complete;
                    } else if self.pending.val() {
                        self.next_state.next = SeqState::Complete;
                    } else {
                        self.next_state.next = SeqState::Idle;
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

    /// Plays the sequencer and data memory around the unit: one cycle, then the edge. Returns
    /// the beat shown during the cycle, if taken (`tx_ready`), and whether the unit completed.
    fn cycle_full(
        t: &mut Tx,
        mem: &[u64],
        ready: bool,
        read: &mut u64,
    ) -> (Option<(u64, bool, bool)>, bool) {
        t.tx_ready.next = ready;
        t.dmem_data.next = mem[*read as usize].into();
        t.clock.next = Clock { clk: false };
        assert!(simulate(t, 1000));
        let beat = (t.tx_valid.val() && ready)
            .then(|| (t.tx_data.val().to_u64(), t.tx_empty.val(), t.tx_last.val()));
        *read = t.dmem_rd_addr.val().to_u64();
        let next = t.next_state.val();
        let complete = t.complete.val();
        t.clock.next = Clock { clk: true };
        assert!(simulate(t, 1000));
        // The sequencer's state changes after the edge, never with it.
        t.state.next = next;
        t.send.next = false;
        t.nak_send.next = false;
        (beat, complete)
    }

    fn cycle(t: &mut Tx, mem: &[u64], ready: bool, read: &mut u64) -> Option<(u64, bool, bool)> {
        cycle_full(t, mem, ready, read).0
    }

    #[test]
    fn a_message_is_sent_beat_by_beat_under_back_pressure() {
        let mut t = Tx::default();
        t.connect_all();
        let mem: Vec<u64> = (0..1024).map(|k| 1000 + k).collect();
        let mut read = 0;
        t.state.next = SeqState::SqDecode;
        t.send.next = true;
        t.send_addr.next = 10.into();
        t.send_len.next = 3.into();
        t.peer_node.next = 4.into();
        t.peer_qp.next = 5.into();
        t.peer_cnt_en.next = true;
        t.peer_cnt.next = 6.into();
        t.served_qp.next = 3.into();
        t.ctx_ci.next = 77.into();
        cycle(&mut t, &mem, true, &mut read);
        t.state.next = SeqState::TxStart;
        let mut beats = vec![];
        for k in 0..40 {
            if let Some(b) = cycle(&mut t, &mem, k % 3 == 0, &mut read) {
                beats.push(b);
            }
            if t.state.next == SeqState::Complete {
                break;
            }
        }
        assert_eq!(
            beats,
            vec![
                (1010, false, false),
                (1011, false, false),
                (1012, false, true)
            ]
        );
        assert_eq!(t.state.next, SeqState::Complete);
        assert_eq!(
            (
                t.tx_dst.val().to_u64(),
                t.tx_qp.val().to_u64(),
                t.tx_src_qp.val().to_u64()
            ),
            (4, 5, 3)
        );
        assert!(t.tx_cnt_en.val() && !t.tx_kind.val());
        assert_eq!((t.tx_cnt.val().to_u64(), t.tx_tag.val().to_u64()), (6, 77));
    }

    #[test]
    fn empty_messages_and_naks_are_one_empty_beat() {
        let mut t = Tx::default();
        t.connect_all();
        let mem = vec![0u64; 1024];
        let mut read = 0;
        t.state.next = SeqState::SqDecode;
        t.send.next = true;
        t.send_len.next = 0.into();
        cycle(&mut t, &mem, true, &mut read);
        t.state.next = SeqState::TxStart;
        cycle(&mut t, &mem, true, &mut read);
        assert_eq!(cycle(&mut t, &mem, true, &mut read), Some((0, true, true)));
        assert_eq!(t.state.next, SeqState::Complete);
        // A NAK: shown at once, no completion unless one is pending.
        t.state.next = SeqState::RxDrop;
        t.nak_send.next = true;
        t.nak_dst.next = 9.into();
        t.nak_qp.next = 8.into();
        t.nak_src_qp.next = 1.into();
        t.nak_tag.next = 0x42.into();
        t.nak_reason.next = Status::NotReady.code().into();
        cycle(&mut t, &mem, true, &mut read);
        t.state.next = SeqState::TxHold;
        assert!(t.tx_kind.val() && t.tx_valid.val());
        assert_eq!(t.tx_tag.val().to_u64(), 0x42);
        let (nak, complete) = cycle_full(&mut t, &mem, true, &mut read);
        assert_eq!(nak, Some((Status::NotReady.code(), true, true)));
        assert_eq!(t.state.next, SeqState::Idle);
        assert!(!complete, "a NAK completes nothing");
    }
}
