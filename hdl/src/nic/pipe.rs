//! # Pipes (module `nic_pipe`)
//!
//! The pipe contexts (memories `pipc0`, `pipc1`, one `PipeContext` of `netcoll_models::nic` per QP) and the steps of
//! a PIPE (see "Pipes" in `netcoll_models::nic` and `PipeCheck` in the state table of its
//! `model`):
//!
//! | state | reads | decides / writes |
//! |---|---|---|
//! | `Init` | | both memories at `sweep_qp`: zero |
//! | `Background` (a message) | the context of `rx_qp` | |
//! | `RxContext` | | latches it; tells the receive unit whether the pipe takes the message (`on`, `room`) and where (`wr_addr`, `blen`) |
//! | `RxData`, at the last beat (`chunk`) | | the latched context with the chunk taken: held + 1, the next buffer (or, after the last chunk, its length `chunk_len`), the first status that is not OK |
//! | `SqDecode` (`pipe_read`) | the context of `pipe_rq` | registers `nbuf × blen` (`size`), the words from `base` to the end of data memory (`space`, `base_past`) |
//! | `PipeCheck` | | takes the receive side (or `BAD_ADDR`); frees the chunk sent (completes after the last); hands the oldest chunk held to the transmit engine |
//!
//! # Inputs
//! - `clock`, `reset`; `state`, `sweep_qp` (the reset sweep's index), `take_rx` (this cycle's slot takes the message
//!   on `rx_qp`);
//! - from the decode: `pipe_read` (a PIPE reads its receive QP's context); the WQE's
//!   `pipe_rq`, `pipe_base`, `pipe_blen`, `pipe_nbuf`, `pipe_count`; `served_qp` (whose SQ
//!   runs it);
//! - the transmit engine: `tx_free` (it holds no message), `tx_sent_here` (it has sent the
//!   served SQ's);
//! - the receive unit: `chunk` (the last beat of a chunk), `chunk_status`, `chunk_len` (the
//!   words it stored), `msg_qp` (its QP).
//!
//! # Outputs
//! - `on`, `room`, `wr_addr`, `blen`: the context just read, for `RxContext`: a PIPE owns the
//!   receive side; it takes a chunk (one is expected and a buffer is free); the buffer and its
//!   length; `last`: the chunk being received is the last (the context latched in
//!   `RxContext`);
//! - `next_state`, `advance_visit`, `complete_status`: `PipeCheck`'s decision (the WQE
//!   completes when `next_state` is `Complete`);
//! - `send`, `send_addr`, `send_len`: a chunk handed to the transmit engine (it goes at once,
//!   without `ack`); `sent_taken`: the sent chunk is freed.

use super::k;
use super::layouts::{pack, unpack};
use super::sequencer::SeqState;
use crate::dff_setup;
use crate::prim::{Mem, Reg};
use netcoll_models::nic::Status;
use rust_hdl::prelude::*;

const STATUS_BITS: usize = Status::BITS;

crate::sub_block! {
    /// Pipes (widths as in [`super::Nic`]).
    pub struct NicPipe<const QB: usize, const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub sweep_qp: Signal<In, Bits<QB>>,
        pub take_rx: Signal<In, bool>,
        pub rx_qp: Signal<In, Bits<QB>>,
        pub pipe_read: Signal<In, bool>,
        pub pipe_rq: Signal<In, Bits<QB>>,
        pub pipe_base: Signal<In, Bits<16>>,
        pub pipe_blen: Signal<In, Bits<16>>,
        pub pipe_nbuf: Signal<In, Bits<8>>,
        pub pipe_count: Signal<In, Bits<16>>,
        pub served_qp: Signal<In, Bits<QB>>,
        pub tx_free: Signal<In, bool>,
        pub tx_sent_here: Signal<In, bool>,
        pub chunk: Signal<In, bool>,
        pub chunk_status: Signal<In, Bits<STATUS_BITS>>,
        pub chunk_len: Signal<In, Bits<16>>,
        pub msg_qp: Signal<In, Bits<QB>>,
        pub on: Signal<Out, bool>,
        pub room: Signal<Out, bool>,
        pub wr_addr: Signal<Out, Bits<16>>,
        pub blen: Signal<Out, Bits<16>>,
        pub last: Signal<Out, bool>,
        pub next_state: Signal<Out, SeqState>,
        pub advance_visit: Signal<Out, bool>,
        pub complete_status: Signal<Out, Bits<STATUS_BITS>>,
        pub send: Signal<Out, bool>,
        pub send_addr: Signal<Out, Bits<16>>,
        pub send_len: Signal<Out, Bits<16>>,
        pub sent_taken: Signal<Out, bool>,
        pipc0: Mem<Bits<64>, QB>,
        pipc1: Mem<Bits<64>, QB>,
        // A context: the one just read, or in `RxData` the one latched (modules
        // `nic_pipe_context_fields`, `nic_pipe_context_word`): what is written back.
        pipe_context: unpack::PipeContext,
        /// The context just read, without that choice in front of the decisions made on it
        /// (`RxContext`, `PipeCheck`).
        pipe_read_ctx: unpack::PipeContext,
        pipe_context_word: pack::PipeContext,
        /// The context of the message being received, latched in `RxContext`.
        ctx0: Reg<Bits<64>>,
        ctx1: Reg<Bits<64>>,
        /// `nbuf × blen`, registered in `SqDecode`.
        size: Reg<Bits<32>>,
        /// Registered in `SqDecode` beside `size`: the words from `base` to the end of data
        /// memory, and whether `base` is past it, so that `PipeCheck` decides whether the
        /// buffers fit on one compare (`size > space`) instead of a sum and a compare.
        space: Reg<Bits<32>>,
        base_past: Reg<bool>,
        /// The PIPE completes (`next_state` is `Complete`; `PipeCheck` loads the completion
        /// whatever it decides).
        complete: Signal<Local, bool>,
        /// The buffers' end (`base + size`, when they fit): the bound written to the context.
        buf_end: Signal<Local, Bits<16>>,
        /// The buffers do not fit in data memory (`buf_end` beyond it).
        outside: Signal<Local, bool>,
        /// The buffer after `wr_addr`, after `rd_addr` (wrapping at `end`).
        wr_next: Signal<Local, Bits<16>>,
        rd_next: Signal<Local, Bits<16>>,
        /// The oldest chunk held is the last.
        last_held: Signal<Local, bool>,
        write: Signal<Local, bool>,
        wr_qp: Signal<Local, Bits<QB>>,
        dmem_words: Constant<Bits<32>> = k(1 << DB),
        ok: Constant<Bits<STATUS_BITS>> = k(Status::Ok.code()),
        bad_addr: Constant<Bits<STATUS_BITS>> = k(Status::BadAddr.code()),
    }
}

impl<const QB: usize, const DB: usize> Logic for NicPipe<QB, DB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ctx0, ctx1, size, space, base_past);
        self.pipc0.clock.next = self.clock.val();
        self.pipc1.clock.next = self.clock.val();

        // Reads: the message's QP, or the PIPE's receive QP.
        self.pipc0.rd_addr.next = 0.into();
        if self.take_rx.val() {
            self.pipc0.rd_addr.next = self.rx_qp.val();
        }
        if self.pipe_read.val() {
            self.pipc0.rd_addr.next = self.pipe_rq.val();
        }
        self.pipc1.rd_addr.next = self.pipc0.rd_addr.val();
        if self.state.val() == SeqState::RxContext {
            self.ctx0.d.next = self.pipc0.rd_data.val();
            self.ctx1.d.next = self.pipc1.rd_data.val();
        }
        self.pipe_read_ctx.p0.next = self.pipc0.rd_data.val();
        self.pipe_read_ctx.p1.next = self.pipc1.rd_data.val();
        self.pipe_context.p0.next = self.pipc0.rd_data.val();
        self.pipe_context.p1.next = self.pipc1.rd_data.val();
        if self.state.val() == SeqState::RxData {
            self.pipe_context.p0.next = self.ctx0.q.val();
            self.pipe_context.p1.next = self.ctx1.q.val();
        }
        if self.state.val() == SeqState::SqDecode {
            self.size.d.next = self.pipe_blen.val() * bit_cast::<16, 8>(self.pipe_nbuf.val());
            self.space.d.next = self.dmem_words.val() - bit_cast::<32, 16>(self.pipe_base.val());
            self.base_past.d.next =
                bit_cast::<32, 16>(self.pipe_base.val()) > self.dmem_words.val();
        }

        // To the receive unit.
        self.on.next = self.pipe_read_ctx.piped.val();
        self.room.next = (self.pipe_read_ctx.rleft.val() != 0)
            & (self.pipe_read_ctx.held.val() < self.pipe_read_ctx.nbuf.val());
        self.wr_addr.next = self.pipe_read_ctx.wr_addr.val();
        self.blen.next = self.pipe_read_ctx.blen.val();
        self.last.next = self.pipe_context.rleft.val() == 1;

        self.buf_end.next = self.pipe_base.val() + self.size.q.val().get_bits::<16>(0);
        self.outside.next = self.base_past.q.val() | (self.size.q.val() > self.space.q.val());
        self.wr_next.next = self.pipe_context.wr_addr.val() + self.pipe_context.blen.val();
        if self.wr_next.val() == self.pipe_context.bound.val() {
            self.wr_next.next = self.pipe_context.base.val();
        }
        self.rd_next.next = self.pipe_read_ctx.rd_addr.val() + self.pipe_read_ctx.blen.val();
        if self.rd_next.val() == self.pipe_read_ctx.bound.val() {
            self.rd_next.next = self.pipe_read_ctx.base.val();
        }
        self.last_held.next =
            (self.pipe_read_ctx.rleft.val() == 0) & (self.pipe_read_ctx.held.val() == 1);

        // The context written: as read, but for what changes.
        self.pipe_context_word.base.next = self.pipe_context.base.val();
        self.pipe_context_word.blen.next = self.pipe_context.blen.val();
        self.pipe_context_word.bound.next = self.pipe_context.bound.val();
        self.pipe_context_word.wr_addr.next = self.pipe_context.wr_addr.val();
        self.pipe_context_word.piped.next = self.pipe_context.piped.val();
        self.pipe_context_word.status.next = self.pipe_context.status.val();
        self.pipe_context_word.owner.next = self.pipe_context.owner.val();
        self.pipe_context_word.held.next = self.pipe_context.held.val();
        self.pipe_context_word.nbuf.next = self.pipe_context.nbuf.val();
        self.pipe_context_word.rleft.next = self.pipe_context.rleft.val();
        self.pipe_context_word.rd_addr.next = self.pipe_context.rd_addr.val();
        self.write.next = false;
        self.wr_qp.next = self.pipe_rq.val();

        self.next_state.next = self.state.val();
        self.advance_visit.next = false;
        self.complete.next = false;
        self.complete_status.next = self.ok.val();
        self.send.next = false;
        self.send_addr.next = 0.into();
        self.send_len.next = 0.into();
        self.sent_taken.next = false;
        if self.state.val() == SeqState::PipeCheck {
            self.advance_visit.next = true;
            self.next_state.next = SeqState::Idle;
            if !self.pipe_read_ctx.piped.val() {
                // Take the receive side, if the buffers fit.
                if self.outside.val() {
                    self.complete.next = true;
                    self.complete_status.next = self.bad_addr.val();
                } else {
                    self.write.next = true;
                    self.pipe_context_word.base.next = self.pipe_base.val();
                    self.pipe_context_word.blen.next = self.pipe_blen.val();
                    self.pipe_context_word.bound.next = self.buf_end.val();
                    self.pipe_context_word.wr_addr.next = self.pipe_base.val();
                    self.pipe_context_word.piped.next = true;
                    self.pipe_context_word.status.next = self.ok.val();
                    self.pipe_context_word.owner.next = bit_cast::<8, QB>(self.served_qp.val());
                    self.pipe_context_word.held.next = 0.into();
                    self.pipe_context_word.nbuf.next = self.pipe_nbuf.val();
                    self.pipe_context_word.rleft.next = self.pipe_count.val();
                    self.pipe_context_word.rd_addr.next = self.pipe_base.val();
                }
            } else if self.pipe_read_ctx.owner.val() != bit_cast::<8, QB>(self.served_qp.val()) {
                // Another SQ's PIPE owns it: wait.
            } else if self.tx_sent_here.val() {
                // The chunk has been sent: its buffer is free; after the last, done.
                self.sent_taken.next = true;
                self.write.next = true;
                self.pipe_context_word.held.next = self.pipe_read_ctx.held.val() - 1;
                self.pipe_context_word.rd_addr.next = self.rd_next.val();
                self.pipe_context_word.piped.next = !self.last_held.val();
                if self.last_held.val() {
                    self.complete.next = true;
                    self.complete_status.next = self.pipe_read_ctx.status.val();
                }
            } else if self.tx_free.val() & (self.pipe_read_ctx.held.val() != 0) {
                // The oldest chunk: the last one with the words it stored.
                self.send.next = true;
                self.send_addr.next = self.pipe_read_ctx.rd_addr.val();
                self.send_len.next = self.pipe_read_ctx.blen.val();
                if self.last_held.val() {
                    self.send_len.next = self.pipe_read_ctx.wr_addr.val();
                }
            }
        }
        if self.complete.val() {
            self.advance_visit.next = false;
            self.next_state.next = SeqState::Complete;
        }

        // A chunk's last beat: the latched context takes it.
        if self.chunk.val() {
            self.write.next = true;
            self.wr_qp.next = self.msg_qp.val();
            self.pipe_context_word.wr_addr.next = self.wr_next.val();
            if self.pipe_context.rleft.val() == 1 {
                self.pipe_context_word.wr_addr.next = self.chunk_len.val();
            }
            if self.pipe_context.status.val() == self.ok.val() {
                self.pipe_context_word.status.next = self.chunk_status.val();
            }
            self.pipe_context_word.held.next = self.pipe_context.held.val() + 1;
            self.pipe_context_word.rleft.next = self.pipe_context.rleft.val() - 1;
        }

        if self.state.val() == SeqState::Init {
            self.write.next = true;
            self.wr_qp.next = self.sweep_qp.val();
        }
        self.pipc0.wr_addr.next = self.wr_qp.val();
        self.pipc1.wr_addr.next = self.wr_qp.val();
        self.pipc0.wr_data.next = self.pipe_context_word.p0.val();
        self.pipc1.wr_data.next = self.pipe_context_word.p1.val();
        if self.state.val() == SeqState::Init {
            self.pipc0.wr_data.next = 0.into();
            self.pipc1.wr_data.next = 0.into();
        }
        // Nothing is written in a reset cycle.
        self.pipc0.wr_en.next = self.write.val() & !self.reset.val();
        self.pipc1.wr_en.next = self.write.val() & !self.reset.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4 QPs, 1024 words of data memory.
    type Pipe = NicPipe<2, 10>;

    fn settle(p: &mut Pipe) {
        p.clock.next = Clock { clk: false };
        assert!(simulate(p, 1000));
    }
    fn edge(p: &mut Pipe) {
        p.clock.next = Clock { clk: true };
        assert!(simulate(p, 1000));
        p.clock.next = Clock { clk: false };
        assert!(simulate(p, 1000));
    }

    /// Shows `state` (and nothing else started), settles.
    fn show(p: &mut Pipe, state: SeqState) {
        p.state.next = state;
        p.take_rx.next = false;
        p.pipe_read.next = false;
        p.chunk.next = false;
        settle(p);
    }

    /// The decode reads receive QP `rq`'s context for a PIPE of `nbuf` buffers of `blen`
    /// words from `base`, then `PipeCheck` shows its step.
    fn visit(p: &mut Pipe, rq: u64, (base, blen, nbuf): (u64, u64, u64)) {
        show(p, SeqState::SqDecode);
        p.pipe_read.next = true;
        p.pipe_rq.next = rq.into();
        p.pipe_base.next = base.into();
        p.pipe_blen.next = blen.into();
        p.pipe_nbuf.next = nbuf.into();
        settle(p);
        edge(p);
        show(p, SeqState::PipeCheck);
    }

    /// A message for QP `qp` is taken: its context is read, then shown in `RxContext`.
    fn arrive(p: &mut Pipe, qp: u64) {
        show(p, SeqState::Idle);
        p.take_rx.next = true;
        p.rx_qp.next = qp.into();
        settle(p);
        edge(p);
        show(p, SeqState::RxContext);
    }

    /// The chunk's last beat, with `len` words stored and `status`.
    fn chunk(p: &mut Pipe, qp: u64, len: u64, status: Status) {
        edge(p);
        show(p, SeqState::RxData);
        p.chunk.next = true;
        p.chunk_len.next = len.into();
        p.chunk_status.next = status.code().into();
        p.msg_qp.next = qp.into();
        settle(p);
        edge(p);
    }

    /// A pipe unit after its reset and the reset sweep of its contexts.
    fn swept() -> Pipe {
        let mut p = Pipe::default();
        p.connect_all();
        p.reset.next = true;
        edge(&mut p);
        p.reset.next = false;
        for q in 0..4u64 {
            show(&mut p, SeqState::Init);
            p.sweep_qp.next = q.into();
            settle(&mut p);
            edge(&mut p);
        }
        p
    }

    #[test]
    fn a_pipe_s_buffers_fit_in_data_memory_up_to_its_last_word() {
        // (base, blen, nbuf, outside) over 1024 words: the end exactly at 1024 fits; one word
        // more, a base at the end or past it (the registered `space` would wrap) do not.
        for (base, blen, nbuf, outside) in [
            (1016u64, 4u64, 2u64, false),
            (0, 1024, 1, false),
            (1017, 4, 2, true),
            (1024, 1, 1, true),
            (0xfff0, 1, 1, true),
            (0, 0x1000, 0xff, true),
        ] {
            let mut p = swept();
            visit(&mut p, 1, (base, blen, nbuf));
            let case = format!("base {base}, {nbuf} buffers of {blen}");
            assert_eq!(p.complete.val(), outside, "{case}");
            if outside {
                assert_eq!(
                    p.complete_status.val().to_u64(),
                    Status::BadAddr.code(),
                    "{case}"
                );
            }
        }
    }

    #[test]
    fn a_pipe_takes_its_receive_side_then_forwards_and_frees_its_chunks() {
        let mut p = swept();
        p.served_qp.next = 2.into();
        p.pipe_count.next = 2.into();
        p.tx_free.next = true;
        p.tx_sent_here.next = false;
        // Nobody owns QP 1's receive side: a message there goes to its RQ.
        arrive(&mut p, 1);
        assert!(!p.on.val());
        // QP 2's PIPE takes it: 2 buffers of 4 words at 0x40.
        visit(&mut p, 1, (0x40, 4, 2));
        assert!(!p.complete.val() && p.advance_visit.val() && !p.send.val());
        assert_eq!(p.next_state.val(), SeqState::Idle);
        edge(&mut p);
        // Nothing held: the next visit hands nothing over.
        visit(&mut p, 1, (0x40, 4, 2));
        assert!(!p.send.val() && !p.complete.val());
        edge(&mut p);
        // A chunk: room, into the first buffer, 4 words.
        arrive(&mut p, 1);
        assert!(p.on.val() && p.room.val() && !p.last.val());
        assert_eq!((p.wr_addr.val().to_u64(), p.blen.val().to_u64()), (0x40, 4));
        chunk(&mut p, 1, 4, Status::Ok);
        // The visit hands it over from 0x40, 4 words.
        visit(&mut p, 1, (0x40, 4, 2));
        assert!(p.send.val() && !p.sent_taken.val() && p.advance_visit.val());
        assert_eq!(
            (p.send_addr.val().to_u64(), p.send_len.val().to_u64()),
            (0x40, 4)
        );
        edge(&mut p);
        // The last chunk, 3 words, into the second buffer; its status is kept.
        arrive(&mut p, 1);
        assert!(p.room.val() && p.last.val());
        assert_eq!(p.wr_addr.val().to_u64(), 0x44);
        chunk(&mut p, 1, 3, Status::LenErr);
        // No chunk expected any more: a message finds no room.
        arrive(&mut p, 1);
        assert!(p.on.val() && !p.room.val());
        // The engine has sent the first: freed, not done.
        p.tx_sent_here.next = true;
        visit(&mut p, 1, (0x40, 4, 2));
        assert!(p.sent_taken.val() && !p.complete.val() && !p.send.val());
        edge(&mut p);
        // The last goes with its 3 words from 0x44.
        p.tx_sent_here.next = false;
        visit(&mut p, 1, (0x40, 4, 2));
        assert!(p.send.val());
        assert_eq!(
            (p.send_addr.val().to_u64(), p.send_len.val().to_u64()),
            (0x44, 3)
        );
        edge(&mut p);
        // Freed: the PIPE completes with the kept status, and the receive side is released.
        p.tx_sent_here.next = true;
        visit(&mut p, 1, (0x40, 4, 2));
        assert!(p.sent_taken.val() && p.complete.val());
        assert_eq!(p.complete_status.val().to_u64(), Status::LenErr.code());
        assert_eq!(p.next_state.val(), SeqState::Complete);
        edge(&mut p);
        arrive(&mut p, 1);
        assert!(!p.on.val());
        // Buffers past data memory: 1020 + 2 × 4 > 1024.
        p.tx_sent_here.next = false;
        visit(&mut p, 3, (1020, 4, 2));
        assert!(p.complete.val());
        assert_eq!(p.complete_status.val().to_u64(), Status::BadAddr.code());
        // Another SQ's PIPE owns QP 1: QP 3's waits.
        edge(&mut p);
        visit(&mut p, 1, (0x40, 4, 2));
        edge(&mut p);
        p.served_qp.next = 3.into();
        visit(&mut p, 1, (0x80, 4, 2));
        assert!(!p.complete.val() && !p.send.val() && p.advance_visit.val());
    }
}
