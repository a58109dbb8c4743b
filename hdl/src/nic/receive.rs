//! # Arriving messages (module `nic_receive`)
//!
//! A background slot that takes a message latches the header of its first beat here and looks
//! at its queue: a data message goes to the RQ of `rx_qp` — its head WQE, if enabled, a RECV
//! and its buffer in data memory, receives the beats (`RxData`), else the message is dropped
//! (`RxDrop`) and a NAK with the reason sent back (posted to [`super::transmit`]'s answer
//! register, or from `AnsWait` once it is free); a stored
//! message that asks for an answer (`rx_ack`) gets an ACK, and one a reliable QP is not ready
//! for an RNR NAK. A message for a QP whose receive side a PIPE owns goes to the pipe's next
//! buffer instead (or is NAKed when none is free), and writes no CQE; else one that names a
//! counter whose receive channel (memory `chan`, owned here: an `RxChannel` word per
//! counter) is armed for its QP goes to that channel's buffer, disarms it, and writes no
//! CQE either. A NAK goes to the SQ of `rx_qp`: the answer its head awaits (the queues
//! record it), a stray ACK (dropped), or a `REMOTE_DISCARD` completion (`NakContext`,
//! `NakCq`). See "Messages" and "Reliable QPs" in `netcoll_models::nic` and the state table
//! of its `model`.
//!
//! # Inputs
//! - `clock`, `reset`; `state`, `take_rx` (this cycle's slot takes the message);
//! - the port: `rx_valid`, `rx_kind`, `rx_src`, `rx_src_qp`, `rx_qp`, `rx_cnt_en`, `rx_cnt`,
//!   `rx_tag`, `rx_ack`, `rx_empty`, `rx_last`, `rx_data`;
//! - the queues' reliability word: `rc_read` (the RQ's QP is reliable, just read),
//!   `answered`, `answer_discard` (`NakContext`: the NAK is the awaited answer; it fails the
//!   WQE remotely);
//! - the queue: `runnable`, `cq_full` (the counts latched with the WQE, for `RxCheck`),
//!   `read_cq_full` (the counts just read, for `NakCq`); the receive WQE's `opcode`,
//!   `buf_addr`, `buf_len` and checks `reserved`, `buf_outside` (from [`super::execute`]);
//! - `cnt_data`: the counter read; `pending`: a completion waits for the message's end;
//! - `ans_full`: the transmit engine's answer register is taken;
//! - the pipe context latched in `RxContext` ([`super::pipe`]): `pipe_on` (a PIPE owns the
//!   receive side: the message goes to it), `pipe_room` (it has a free buffer), the buffer
//!   `pipe_wr_addr` and its length `pipe_blen`; `pipe_last` (the chunk is the last);
//! - the channel memory's writes: `sweep_at` (the reset sweep clears it in `Init`),
//!   `chan_set`, `chan_set_index`, `chan_set_word` (`SET_CHANNEL`, from [`super::host`]).
//!
//! # Outputs
//! - `next_state`: the next state when a slot takes a message and in the receive states;
//! - `complete`, `complete_status`, `complete_len`, `hold`: the receive WQE completes (`hold`:
//!   once the message is consumed); `chunk`: instead, a pipe's chunk has arrived, with that
//!   status and length;
//! - `notify`: an arriving NAK's notification, for `msg_qp` and `msg_tag`;
//! - `nak_send` and the NAK's header: `msg_src`, `msg_src_qp`, `msg_qp`, `msg_tag`,
//!   `nak_reason` (registers);
//! - `dmem_wr_en`, `dmem_wr_addr`, `dmem_wr_data`, `cnt_rd_addr`, `cnt_wr_en`, `cnt_wr_addr`,
//!   `cnt_wr_data`: memory requests (zero outside the receive states);
//! - `stat_hits`: `RxDiscard`, `NakReceived`, `CqOverrun`, `StrayAck`, `ChanOverrun`.

use super::host::CHAN_BITS;
use super::k;
use super::layouts::unpack::RxChannel;
use super::sequencer::SeqState;
use super::stats::hit;
use crate::dff_setup;
use crate::prim::{Mem, Reg};
use netcoll_models::kit::layout::LayoutField;
use netcoll_models::nic::{Opcode, Stat, Status, STATS};
use rust_hdl::prelude::*;

const STATUS_BITS: usize = Status::BITS;
const OPCODE_BITS: usize = Opcode::BITS;
/// A receive channel's `armed` bit, cleared when the channel takes a message.
const ARMED: LayoutField =
    crate::kit::layout::field_named(netcoll_models::nic::RxChannel::FIELDS, "armed");

crate::sub_block! {
    /// Arriving messages (widths as in [`super::Nic`]).
    pub struct NicReceive<const QB: usize, const KB: usize, const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub take_rx: Signal<In, bool>,
        pub rx_valid: Signal<In, bool>,
        pub rx_kind: Signal<In, bool>,
        pub rx_src: Signal<In, Bits<8>>,
        pub rx_src_qp: Signal<In, Bits<8>>,
        pub rx_qp: Signal<In, Bits<8>>,
        pub rx_cnt_en: Signal<In, bool>,
        pub rx_cnt: Signal<In, Bits<8>>,
        pub rx_tag: Signal<In, Bits<16>>,
        pub rx_ack: Signal<In, bool>,
        pub rx_empty: Signal<In, bool>,
        pub rx_last: Signal<In, bool>,
        pub rx_data: Signal<In, Bits<64>>,
        pub runnable: Signal<In, bool>,
        pub cq_full: Signal<In, bool>,
        pub read_cq_full: Signal<In, bool>,
        pub opcode: Signal<In, Bits<OPCODE_BITS>>,
        pub buf_addr: Signal<In, Bits<16>>,
        pub buf_len: Signal<In, Bits<16>>,
        pub reserved: Signal<In, bool>,
        pub buf_outside: Signal<In, bool>,
        pub cnt_data: Signal<In, Bits<32>>,
        pub pending: Signal<In, bool>,
        pub ans_full: Signal<In, bool>,
        pub rc_read: Signal<In, bool>,
        pub answered: Signal<In, bool>,
        pub answer_discard: Signal<In, bool>,
        pub pipe_on: Signal<In, bool>,
        pub pipe_room: Signal<In, bool>,
        pub pipe_wr_addr: Signal<In, Bits<16>>,
        pub pipe_blen: Signal<In, Bits<16>>,
        pub pipe_last: Signal<In, bool>,
        pub sweep_at: Signal<In, Bits<KB>>,
        pub chan_set: Signal<In, bool>,
        pub chan_set_index: Signal<In, Bits<KB>>,
        pub chan_set_word: Signal<In, Bits<CHAN_BITS>>,
        pub next_state: Signal<Out, SeqState>,
        pub complete: Signal<Out, bool>,
        pub complete_status: Signal<Out, Bits<STATUS_BITS>>,
        pub complete_len: Signal<Out, Bits<16>>,
        pub hold: Signal<Out, bool>,
        pub chunk: Signal<Out, bool>,
        pub notify: Signal<Out, bool>,
        pub nak_send: Signal<Out, bool>,
        pub msg_src: Signal<Out, Bits<8>>,
        pub msg_src_qp: Signal<Out, Bits<8>>,
        pub msg_qp: Signal<Out, Bits<8>>,
        pub msg_tag: Signal<Out, Bits<16>>,
        pub nak_reason: Signal<Out, Bits<STATUS_BITS>>,
        pub dmem_wr_en: Signal<Out, bool>,
        pub dmem_wr_addr: Signal<Out, Bits<DB>>,
        pub dmem_wr_data: Signal<Out, Bits<64>>,
        pub cnt_rd_addr: Signal<Out, Bits<KB>>,
        pub cnt_wr_en: Signal<Out, bool>,
        pub cnt_wr_addr: Signal<Out, Bits<KB>>,
        pub cnt_wr_data: Signal<Out, Bits<32>>,
        pub stat_hits: Signal<Out, Bits<STATS>>,
        // The header of the message's first beat.
        src: Reg<Bits<8>>,
        src_qp: Reg<Bits<8>>,
        qp: Reg<Bits<8>>,
        cnt_en: Reg<bool>,
        cnt: Reg<Bits<8>>,
        tag: Reg<Bits<16>>,
        /// The message asks for an answer.
        ack: Reg<bool>,
        /// A NAK is sent once the dropped message has been consumed, with data `reason`.
        nak: Reg<bool>,
        reason: Reg<Bits<STATUS_BITS>>,
        /// The message had more words than the buffer.
        overflow: Reg<bool>,
        /// The store pointer, the words stored, the buffer's length.
        addr: Reg<Bits<16>>,
        stored: Reg<Bits<16>>,
        cap: Reg<Bits<16>>,
        /// The message goes to the pipe that owns its QP's receive side.
        piped: Reg<bool>,
        /// The message goes to the receive channel of its counter.
        channeled: Reg<bool>,
        /// Per counter, its receive channel (an `RxChannel` word; module
        /// `nic_rx_channel_fields` splits the one read). LUT RAM: `RxContext` decides on
        /// the word read, which a block RAM would deliver late in the cycle.
        chan: Mem<Bits<CHAN_BITS>, KB> = Mem::distributed(),
        rx_channel: RxChannel,
        /// The channel just read takes the message.
        chan_hit: Signal<Local, bool>,
        /// The message writes no CQE (a pipe's or a channel's).
        no_cqe: Signal<Local, bool>,
        chan_disarm: Constant<Bits<CHAN_BITS>> = k(!ARMED.put(0, u64::MAX)),
        /// The words stored with this beat's.
        stored_now: Signal<Local, Bits<16>>,
        store: Signal<Local, bool>,
        overflows: Signal<Local, bool>,
        counter_ok: Signal<Local, bool>,
        refuse: Signal<Local, bool>,
        refuse_reason: Signal<Local, Bits<STATUS_BITS>>,
        qps: Constant<Bits<8>> = k(1 << QB),
        counters: Constant<Bits<8>> = k(1 << KB),
        op_recv: Constant<Bits<OPCODE_BITS>> = k(Opcode::Recv.code()),
        ok: Constant<Bits<STATUS_BITS>> = k(Status::Ok.code()),
        bad_opcode: Constant<Bits<STATUS_BITS>> = k(Status::BadOpcode.code()),
        bad_index: Constant<Bits<STATUS_BITS>> = k(Status::BadIndex.code()),
        bad_addr: Constant<Bits<STATUS_BITS>> = k(Status::BadAddr.code()),
        len_err: Constant<Bits<STATUS_BITS>> = k(Status::LenErr.code()),
        not_ready: Constant<Bits<STATUS_BITS>> = k(Status::NotReady.code()),
        rnr_nak: Constant<Bits<STATUS_BITS>> = k(Status::RnrNak.code()),
        hit_stray_ack: Constant<Bits<STATS>> = hit(Stat::StrayAck),
        hit_rx_discard: Constant<Bits<STATS>> = hit(Stat::RxDiscard),
        hit_nak_received: Constant<Bits<STATS>> = hit(Stat::NakReceived),
        hit_cq_overrun: Constant<Bits<STATS>> = hit(Stat::CqOverrun),
        hit_chan_overrun: Constant<Bits<STATS>> = hit(Stat::ChanOverrun),
    }
}

impl<const QB: usize, const KB: usize, const DB: usize> Logic for NicReceive<QB, KB, DB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, src, src_qp, qp, cnt_en, cnt, tag, ack, nak, reason, overflow, addr,
            stored, cap, piped, channeled
        );
        // The channel memory: read at the arriving counter when a slot takes a message;
        // written by the reset sweep, `SET_CHANNEL`, and the message a channel takes.
        self.chan.clock.next = self.clock.val();
        self.chan.rd_addr.next = 0.into();
        if self.take_rx.val() {
            self.chan.rd_addr.next = self.rx_cnt.val().get_bits::<KB>(0);
        }
        self.rx_channel.chan.next = self.chan.rd_data.val();
        self.chan.wr_en.next = self.chan_set.val() | (self.state.val() == SeqState::Init);
        self.chan.wr_addr.next = self.chan_set_index.val();
        self.chan.wr_data.next = self.chan_set_word.val();
        if self.state.val() == SeqState::Init {
            self.chan.wr_addr.next = self.sweep_at.val();
            self.chan.wr_data.next = 0.into();
        }
        self.no_cqe.next = self.piped.q.val() | self.channeled.q.val();
        self.msg_src.next = self.src.q.val();
        self.msg_src_qp.next = self.src_qp.q.val();
        self.msg_qp.next = self.qp.q.val();
        self.msg_tag.next = self.tag.q.val();
        self.nak_reason.next = self.reason.q.val();
        self.store.next = !self.rx_empty.val() & (self.stored.q.val() < self.cap.q.val());
        self.overflows.next = self.overflow.q.val()
            | (!self.rx_empty.val() & (self.stored.q.val() >= self.cap.q.val()));
        self.counter_ok.next = self.cnt.q.val() < self.counters.val();
        self.chan_hit.next = self.cnt_en.q.val()
            & self.counter_ok.val()
            & self.rx_channel.armed.val()
            & (self.rx_channel.qp.val() == self.qp.q.val());
        self.stored_now.next = self.stored.q.val();
        if self.store.val() {
            self.stored_now.next = self.stored.q.val() + 1;
        }

        self.next_state.next = self.state.val();
        self.complete.next = false;
        self.complete_status.next = self.ok.val();
        self.complete_len.next = 0.into();
        self.hold.next = false;
        self.chunk.next = false;
        self.notify.next = false;
        self.nak_send.next = false;
        self.refuse.next = false;
        self.refuse_reason.next = self.not_ready.val();
        self.dmem_wr_en.next = false;
        self.dmem_wr_addr.next = 0.into();
        self.dmem_wr_data.next = 0.into();
        self.cnt_rd_addr.next = 0.into();
        self.cnt_wr_en.next = false;
        self.cnt_wr_addr.next = 0.into();
        self.cnt_wr_data.next = 0.into();
        self.stat_hits.next = 0.into();

        // A slot takes the message: its header, and where it goes.
        if self.take_rx.val() {
            self.src.d.next = self.rx_src.val();
            self.src_qp.d.next = self.rx_src_qp.val();
            self.qp.d.next = self.rx_qp.val();
            self.cnt_en.d.next = self.rx_cnt_en.val();
            self.cnt.d.next = self.rx_cnt.val();
            self.tag.d.next = self.rx_tag.val();
            self.ack.d.next = self.rx_ack.val();
            // The reason of an ACK, unless the message is refused.
            self.reason.d.next = self.ok.val();
            self.nak.d.next = false;
            self.overflow.d.next = false;
            self.piped.d.next = false;
            self.channeled.d.next = false;
            if self.rx_qp.val() >= self.qps.val() {
                // No such QP: a data message is NAKed, a NAK's notification dropped.
                self.next_state.next = SeqState::RxDrop;
                if self.rx_kind.val() {
                    self.stat_hits.next = self.hit_cq_overrun.val();
                } else {
                    self.nak.d.next = true;
                    self.reason.d.next = self.bad_index.val();
                }
            } else if self.rx_kind.val() {
                self.next_state.next = SeqState::NakContext;
            } else {
                self.next_state.next = SeqState::RxContext;
            }
        }

        match self.state.val() {
            SeqState::RxContext => {
                self.refuse.next = !self.runnable.val();
                if self.ack.q.val() & self.rc_read.val() {
                    // A reliable QP makes the sender retry.
                    self.refuse_reason.next = self.rnr_nak.val();
                }
                self.next_state.next = SeqState::RxWqe;
                if self.pipe_on.val() {
                    // The pipe takes it into its next buffer, if it has one free.
                    self.refuse.next = !self.pipe_room.val();
                    self.piped.d.next = self.pipe_room.val();
                    self.stored.d.next = 0.into();
                    self.addr.d.next = self.pipe_wr_addr.val();
                    self.cap.d.next = self.pipe_blen.val();
                    self.overflow.d.next = false;
                    self.next_state.next = SeqState::RxData;
                } else if self.chan_hit.val() {
                    // The counter's channel takes it, once.
                    self.refuse.next = false;
                    self.channeled.d.next = true;
                    self.stored.d.next = 0.into();
                    self.addr.d.next = self.rx_channel.addr.val();
                    self.cap.d.next = self.rx_channel.len.val();
                    self.overflow.d.next = false;
                    self.next_state.next = SeqState::RxData;
                    self.chan.wr_en.next = true;
                    self.chan.wr_addr.next = self.cnt.q.val().get_bits::<KB>(0);
                    self.chan.wr_data.next = self.chan.rd_data.val() & self.chan_disarm.val();
                }
            }
            SeqState::RxWqe => self.next_state.next = SeqState::RxCheck,
            SeqState::RxCheck => {
                if self.cq_full.val() {
                    self.refuse.next = true;
                } else if (self.opcode.val() != self.op_recv.val()) | self.reserved.val() {
                    self.refuse.next = true;
                    self.refuse_reason.next = self.bad_opcode.val();
                } else if self.buf_outside.val() {
                    self.refuse.next = true;
                    self.refuse_reason.next = self.bad_addr.val();
                } else {
                    self.stored.d.next = 0.into();
                    self.addr.d.next = self.buf_addr.val();
                    self.cap.d.next = self.buf_len.val();
                    self.overflow.d.next = false;
                    self.next_state.next = SeqState::RxData;
                }
                // A failed receive WQE completes once the message is consumed.
                self.complete.next = self.refuse.val() & !self.cq_full.val();
                self.complete_status.next = self.refuse_reason.val();
                self.hold.next = self.refuse.val() & !self.cq_full.val();
            }
            SeqState::RxData => {
                if self.rx_valid.val() {
                    if self.store.val() {
                        self.dmem_wr_en.next = true;
                        self.dmem_wr_addr.next = self.addr.q.val().get_bits::<DB>(0);
                        self.dmem_wr_data.next = self.rx_data.val();
                        self.stored.d.next = self.stored.q.val() + 1;
                        self.addr.d.next = self.addr.q.val() + 1;
                    }
                    self.overflow.d.next = self.overflows.val();
                    if self.rx_last.val() {
                        // The receive WQE completes; a pipe's chunk or a channel's message
                        // writes no CQE.
                        self.complete.next = !self.no_cqe.val();
                        self.chunk.next = self.piped.q.val();
                        if self.channeled.q.val() & self.overflows.val() {
                            self.stat_hits.next = self.hit_chan_overrun.val();
                        }
                        if self.cnt_en.q.val() & !self.counter_ok.val() {
                            self.complete_status.next = self.bad_index.val();
                        } else if self.overflows.val() {
                            self.complete_status.next = self.len_err.val();
                        } else if self.piped.q.val()
                            & !self.pipe_last.val()
                            & (self.stored_now.val() < self.cap.q.val())
                        {
                            // A short chunk before the last.
                            self.complete_status.next = self.len_err.val();
                        }
                        self.complete_len.next = self.stored_now.val();
                        self.next_state.next = SeqState::Complete;
                        if self.no_cqe.val() {
                            self.next_state.next = SeqState::Idle;
                        }
                        if self.cnt_en.q.val() & self.counter_ok.val() {
                            self.cnt_rd_addr.next = self.cnt.q.val().get_bits::<KB>(0);
                            self.next_state.next = SeqState::RxCounter;
                        } else if self.ack.q.val() {
                            // The ACK (reason OK), then the completion.
                            self.nak_send.next = !self.ans_full.val();
                            self.hold.next = !self.no_cqe.val();
                            if self.ans_full.val() {
                                self.next_state.next = SeqState::AnsWait;
                            }
                        }
                    }
                }
            }
            SeqState::RxCounter => {
                self.cnt_wr_en.next = true;
                self.cnt_wr_addr.next = self.cnt.q.val().get_bits::<KB>(0);
                self.cnt_wr_data.next = self.cnt_data.val() + 1;
                self.next_state.next = SeqState::Complete;
                if self.no_cqe.val() {
                    self.next_state.next = SeqState::Idle;
                }
                if self.ack.q.val() {
                    self.nak_send.next = !self.ans_full.val();
                    self.hold.next = !self.no_cqe.val();
                    if self.ans_full.val() {
                        self.next_state.next = SeqState::AnsWait;
                    }
                }
            }
            SeqState::RxDrop => {
                if self.rx_valid.val() & self.rx_last.val() {
                    // The whole message is consumed: NAK it, or complete, or done.
                    self.nak_send.next = self.nak.q.val() & !self.ans_full.val();
                    self.next_state.next = SeqState::Idle;
                    if self.pending.val() {
                        self.next_state.next = SeqState::Complete;
                    }
                    if self.nak.q.val() {
                        self.stat_hits.next = self.hit_rx_discard.val();
                        if self.ans_full.val() {
                            self.next_state.next = SeqState::AnsWait;
                        }
                    }
                }
            }
            SeqState::AnsWait => {
                // The answer register is free again: post, then as after the message.
                if !self.ans_full.val() {
                    self.nak_send.next = true;
                    self.next_state.next = SeqState::Idle;
                    if self.pending.val() {
                        self.next_state.next = SeqState::Complete;
                    }
                }
            }
            SeqState::NakContext => {
                self.next_state.next = SeqState::NakCq;
                if self.answered.val() {
                    // The awaited answer (the queues record it).
                    self.next_state.next = SeqState::RxDrop;
                    if self.answer_discard.val() {
                        self.stat_hits.next = self.hit_nak_received.val();
                    }
                } else if (self.rx_data.val().get_bits::<STATUS_BITS>(0) == self.ok.val())
                    & self.rc_read.val()
                {
                    // An ACK that nothing awaits, on a reliable QP.
                    self.stat_hits.next = self.hit_stray_ack.val();
                    self.next_state.next = SeqState::RxDrop;
                }
            }
            SeqState::NakCq => {
                self.stat_hits.next = self.hit_cq_overrun.val();
                if !self.read_cq_full.val() {
                    self.stat_hits.next = self.hit_nak_received.val();
                    self.notify.next = true;
                }
                self.nak.d.next = false;
                self.next_state.next = SeqState::RxDrop;
            }
            _ => {}
        }
        // A refused message is dropped; once it is consumed a NAK says why.
        if self.refuse.val() {
            self.nak.d.next = true;
            self.reason.d.next = self.refuse_reason.val();
            self.next_state.next = SeqState::RxDrop;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::{Wqe, WqeWords};

    /// 4 QPs, 8 counters, 1024 words.
    type Rx = NicReceive<2, 3, 10>;

    /// What the unit did over one message.
    #[derive(Debug, Default, PartialEq)]
    struct Seen {
        stored: Vec<(u64, u64)>,
        completed: Option<(Status, u64)>,
        nak: Option<Status>,
        stats: u64,
        states: Vec<SeqState>,
    }

    /// Delivers `beats` (`(data, empty)`, the last one last) to QP `qp` whose head receive
    /// WQE is `wqe` (`runnable` says whether there is one), as the sequencer would, until the
    /// unit leaves the receive states.
    fn deliver(r: &mut Rx, qp: u64, runnable: bool, wqe: &Wqe, beats: &[(u64, bool)]) -> Seen {
        let f = {
            let (w0, w1) = wqe.encode();
            WqeWords::unpack(w0, w1)
        };
        let mut seen = Seen::default();
        let mut beat = 0;
        r.state.next = SeqState::Idle;
        r.take_rx.next = true;
        r.runnable.next = runnable;
        r.opcode.next = f.opcode.into();
        r.buf_addr.next = f.buf_addr.into();
        r.buf_len.next = f.buf_len.into();
        r.buf_outside.next = f.buf_addr + f.buf_len > 1024;
        r.rx_qp.next = qp.into();
        r.rx_src.next = 7.into();
        r.rx_tag.next = 0x99.into();
        for _ in 0..100 {
            let (data, empty) = beats[beat.min(beats.len() - 1)];
            r.rx_valid.next = true;
            r.rx_data.next = data.into();
            r.rx_empty.next = empty;
            r.rx_last.next = beat + 1 >= beats.len();
            r.clock.next = Clock { clk: false };
            assert!(simulate(r, 1000));
            let state = r.state.val();
            if r.dmem_wr_en.val() {
                seen.stored
                    .push((r.dmem_wr_addr.val().to_u64(), r.dmem_wr_data.val().to_u64()));
            }
            if r.complete.val() {
                let s = Status::from_code(r.complete_status.val().to_u64()).unwrap();
                seen.completed = Some((s, r.complete_len.val().to_u64()));
            }
            if r.nak_send.val() {
                seen.nak = Some(Status::from_code(r.nak_reason.val().to_u64()).unwrap());
            }
            seen.stats |= r.stat_hits.val().to_u64();
            let next = r.next_state.val();
            r.clock.next = Clock { clk: true };
            assert!(simulate(r, 1000));
            r.take_rx.next = false;
            if state == SeqState::RxData || state == SeqState::RxDrop {
                beat += 1; // rx_ready: the beat was taken
            }
            seen.states.push(next);
            r.state.next = next;
            if !matches!(
                next,
                SeqState::RxContext
                    | SeqState::RxWqe
                    | SeqState::RxCheck
                    | SeqState::RxData
                    | SeqState::RxDrop
            ) {
                return seen;
            }
        }
        panic!("the message never ended");
    }

    fn new_rx() -> Rx {
        let mut r = Rx::default();
        r.connect_all();
        r
    }

    #[test]
    fn a_message_fills_its_buffer() {
        let mut r = new_rx();
        let recv = Wqe::recv(100, 4, true);
        let seen = deliver(
            &mut r,
            1,
            true,
            &recv,
            &[(10, false), (11, false), (12, false)],
        );
        assert_eq!(seen.stored, vec![(100, 10), (101, 11), (102, 12)]);
        assert_eq!(seen.completed, Some((Status::Ok, 3)));
        assert_eq!(seen.nak, None);
        assert_eq!(seen.states.last(), Some(&SeqState::Complete));
        // Longer than the buffer: the first words, LEN_ERR.
        let short = Wqe::recv(200, 2, true);
        let seen = deliver(
            &mut r,
            1,
            true,
            &short,
            &[(1, false), (2, false), (3, false)],
        );
        assert_eq!(seen.stored, vec![(200, 1), (201, 2)]);
        assert_eq!(seen.completed, Some((Status::LenErr, 2)));
        // An empty message stores nothing.
        let seen = deliver(&mut r, 1, true, &recv, &[(0, true)]);
        assert_eq!(
            (seen.stored.len(), seen.completed),
            (0, Some((Status::Ok, 0)))
        );
    }

    /// One clock edge with `SET_CHANNEL`'s write of counter `c`'s channel.
    fn set_channel(r: &mut Rx, c: u64, word: u64) {
        r.state.next = SeqState::HostDecode;
        r.chan_set.next = true;
        r.chan_set_index.next = c.into();
        r.chan_set_word.next = word.into();
        r.clock.next = Clock { clk: false };
        assert!(simulate(r, 1000));
        r.clock.next = Clock { clk: true };
        assert!(simulate(r, 1000));
        r.chan_set.next = false;
    }

    #[test]
    fn an_armed_channel_takes_its_counters_message_once() {
        let mut r = new_rx();
        // Counter 5's channel: buffer 300, 2 words, armed for QP 1 (`RxChannel`, written out).
        set_channel(&mut r, 5, 300 | 2 << 16 | 1 << 32 | 1 << 40);
        r.rx_cnt_en.next = true;
        r.rx_cnt.next = 5.into();
        let recv = Wqe::recv(100, 4, true);
        let beats = [(1, false), (2, false), (3, false)];
        // No receive WQE runnable: the channel takes it all the same, and writes no CQE; the
        // third word does not fit.
        let seen = deliver(&mut r, 1, false, &recv, &beats);
        assert_eq!(seen.stored, vec![(300, 1), (301, 2)]);
        assert_eq!((seen.completed, seen.nak), (None, None));
        assert_eq!(seen.stats, 1 << Stat::ChanOverrun.code());
        assert_eq!(seen.states.last(), Some(&SeqState::RxCounter));
        // It is disarmed now: the next message goes to the RQ, which is not ready.
        let seen = deliver(&mut r, 1, false, &recv, &beats);
        assert_eq!((seen.stored.len(), seen.nak), (0, Some(Status::NotReady)));
        // Armed for QP 1, a message to QP 2 with the same counter goes to QP 2's RQ.
        set_channel(&mut r, 5, 300 | 2 << 16 | 1 << 32 | 1 << 40);
        let seen = deliver(&mut r, 2, true, &recv, &beats[..1]);
        assert_eq!(seen.stored, vec![(100, 1)]);
        assert_eq!(seen.completed, Some((Status::Ok, 1)));
        // Without `cnt_en` the counter names no channel either.
        r.rx_cnt_en.next = false;
        let seen = deliver(&mut r, 1, true, &recv, &beats[..1]);
        assert_eq!(seen.stored, vec![(100, 1)]);
        // With it, QP 1: the channel (still armed) takes it.
        r.rx_cnt_en.next = true;
        let seen = deliver(&mut r, 1, true, &recv, &beats[..1]);
        assert_eq!((seen.stored, seen.completed), (vec![(300, 1)], None));
    }

    #[test]
    fn refused_messages_are_dropped_and_naked() {
        let mut r = new_rx();
        let recv = Wqe::recv(100, 4, true);
        let beats = [(1, false), (2, false)];
        let discard = 1 << Stat::RxDiscard.code();
        // No enabled WQE.
        let seen = deliver(&mut r, 1, false, &recv, &beats);
        assert_eq!((seen.nak, seen.completed), (Some(Status::NotReady), None));
        assert_eq!((seen.stored.len(), seen.stats), (0, discard));
        assert_eq!(seen.states.last(), Some(&SeqState::Idle));
        // The answer register still taken: the NAK waits in `AnsWait`, posted once it is free.
        r.ans_full.next = true;
        let seen = deliver(&mut r, 1, false, &recv, &beats);
        assert_eq!((seen.nak, seen.stats), (None, discard));
        assert_eq!(seen.states.last(), Some(&SeqState::AnsWait));
        assert!(simulate(&mut r, 1000));
        assert!(!r.nak_send.val() && r.next_state.val() == SeqState::AnsWait);
        r.ans_full.next = false;
        assert!(simulate(&mut r, 1000));
        assert!(r.nak_send.val() && r.next_state.val() == SeqState::Idle);
        assert_eq!(r.nak_reason.val().to_u64(), Status::NotReady.code());
        // A QP out of range.
        let seen = deliver(&mut r, 4, true, &recv, &beats);
        assert_eq!((seen.nak, seen.completed), (Some(Status::BadIndex), None));
        // The head WQE is not a RECV, or its buffer is outside data memory: it fails too.
        let seen = deliver(&mut r, 1, true, &Wqe::nop(false), &beats);
        assert_eq!(seen.nak, Some(Status::BadOpcode));
        assert_eq!(seen.completed, Some((Status::BadOpcode, 0)));
        let seen = deliver(&mut r, 1, true, &Wqe::recv(1022, 4, true), &beats);
        assert_eq!(seen.nak, Some(Status::BadAddr));
        assert_eq!(seen.completed, Some((Status::BadAddr, 0)));
    }
}
