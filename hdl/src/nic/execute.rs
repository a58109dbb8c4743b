//! # WQE decode and dispatch (module `nic_execute`)
//!
//! What a visit of a send queue does in `SqContext`, `SqWqe`, `SqDecode`, `WaitCheck` and
//! `EnableWrite` (see "Work requests" in `netcoll_models::nic` and the state
//! table of its `model`). In `SqDecode` it decides on the head WQE latched in `SqWqe` — its
//! checks, its opcode, the queue's reliability word and the transmit engine — and either
//! completes it at once (NOP, or an error status) or starts its work: a transmission, a WAIT's
//! check, an enable's write, a PIPE's step, the CALC loop (whose addresses the CALC unit
//! checks in `CalcReadA`, from registered spans).
//!
//! ## Checks made when a WQE is posted
//! A WQE's checks depend on its words and on the NIC's parameters only — reserved bits, an
//! index out of range, a buffer outside data memory, an argument refused, nothing to do — so
//! they are made once, when the WQE is posted: this unit computes them from the current
//! words (`checks_now`, a host command's while it runs), the queues store them beside the WQE
//! (memory `wqe_chk`) and latch them with it (`checks`), and `SqDecode` / `RxCheck` decide on
//! those registers ([`WqeChecks`](unpack::WqeChecks) says what each means). The decode's
//! decision, whose result every unit loads, no longer waits for a 17-bit sum and the
//! comparisons behind it. Which check decides, and with which status, is unchanged: the
//! opcode still chooses, in `SqDecode`, as `netcoll_models::nic::model` does.
//!
//! ## A WAIT's compare a cycle early
//! `SqWqe` reads a WAIT's CQ counts (the queues) and counter (here: `cnt_rd_addr`) at the
//! `wait_index` of the WQE being latched, whatever the WQE; `SqDecode` compares them with its
//! target and registers the result (`wait_met`), on which `WaitCheck` decides. Nothing writes
//! the counts or the counters from `SqWqe` to `WaitCheck` (no host command, no message runs in
//! between), so the result is the one the model computes in `WaitCheck`; the compare's two
//! 32-bit carry chains no longer stand in front of the next state.
//!
//! # Inputs
//! - `clock`, `reset`; `state`; `runnable` (the queues: the context just read), `cq_full` (the latched counts);
//! - the current WQE's fields (from the WQE unpack): `opcode`, `rsvd0`, `rsvd1`, `rsvd2`,
//!   `buf_addr`, `buf_len`, `wait_kind`, `wait_index`, `wait_count`, `en_qp`, `calc_op`,
//!   `calc_count`, `calc_dst`, `calc_to_peer`, `pipe_rq`, `pipe_blen`, `pipe_nbuf`,
//!   `pipe_count`; `calc_ext_d`, the result's outer span of the CALC's shape (calc unit);
//!   `calc_fp_refused` (calc unit);
//! - `checks`: the latched WQE's checks;
//! - `head_wait_index`: the `wait_index` of the WQE being latched (`SqWqe`);
//! - `cq_produced` (the counts of a CQ WAIT's CQ), `cnt_data` (a counter WAIT's counter):
//!   read in `SqWqe`;
//! - the transmit engine: `tx_free` (it can take a data message), `tx_busy_here` (it is
//!   sending the served SQ's message: the visit is over), `tx_sent_here` (it has sent it: the
//!   WQE completes);
//! - `reliable`: the served queue's QP is reliable;
//! - the queues' reliability word: `awaits` (just read: the head awaits its answer), and
//!   latched `rc_state`, `rc_status`, `rc_due` (see "Reliable QPs" in `netcoll_models::nic`:
//!   an answered head completes with the answer's status, a due retry sends its message again,
//!   a retry not yet due ends the visit).
//!
//! # Outputs
//! - `next_state`: the next state in the states above;
//! - `advance_visit`: the visit is over without running the WQE;
//! - `complete_status`: the status of a WQE that completes (`next` is `Complete`; the
//!   completion unit loads its fields in these states whatever they decide, so it needs no
//!   word of whether the WQE completes);
//! - `send`, `send_go`, `send_addr`, `send_len`: hand a message over to the transmit engine
//!   (SEND, a retry: `send_go`, and the visit is over; a CALC to a peer: held until its
//!   result is computed, but for an empty CALC); `sent_taken`: the sent message's WQE
//!   completes; `await_answer`: a reliable QP's message may go, its SQ awaits the answer;
//! - `pipe_read`: a PIPE's step, the pipe unit reads its receive QP's context (`PipeCheck`
//!   is the pipe unit's, [`super::pipe`]); the CALC unit loads its loop in every `SqDecode`
//!   by itself ([`super::calc`]);
//! - `cnt_rd_addr`: the counter a WAIT would read, in every `SqWqe` (zero otherwise; the
//!   queues likewise read a CQ WAIT's counts, and an enable's target context in `SqDecode`,
//!   whatever the WQE: see [`super::queues`]);
//! - `reserved`, `buf_outside`: the latched WQE sets a reserved bit; its buffer does not fit
//!   in data memory (the receive unit's checks of a RECV);
//! - `checks_now`: the checks of the current words;
//! - `stat_hits`: `CqStall`, `RnrRetry`.

use super::k;
use super::sequencer::SeqState;
use super::stats::hit;
use crate::dff_setup;
use crate::prim::Reg;
use netcoll_models::nic::{Opcode, RcState, Stat, Status, STATS};
use netcoll_models::reduce_alu::{AluOp, FIRST_RESERVED_OP};
use rust_hdl::prelude::*;

const STATUS_BITS: usize = Status::BITS;
const OPCODE_BITS: usize = Opcode::BITS;
const ALU_OP_BITS: usize = AluOp::BITS;

/// Bits of a WQE's checks ([`WqeChecks`](unpack::WqeChecks)): one a field below.
pub const CHECK_BITS: usize = 5;

/// The checks of a WQE made when it is posted (see the module docs), as a layout declaration
/// (RTL only: the model checks the WQE in `SqDecode`).
macro_rules! wqe_checks_layout {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            /// A WQE's checks, made when it is posted; each means something for some opcodes
            /// only (and is 0 for the others).
            layout WqeChecks (checks: CHECK_BITS) {
                /// The WQE sets a reserved bit (`netcoll_models::nic::reserved_bits`): any opcode.
                reserved: checks[0, 1],
                /// SEND, RECV: `buf_addr + buf_len` is beyond data memory.
                buf_outside: checks[1, 1],
                /// WAIT: its CQ or counter does not exist; SEND_EN, RECV_EN: its QP does not;
                /// PIPE: its receive QP does not (`BAD_INDEX`).
                index_bad: checks[2, 1],
                /// CALC: a reserved operation, or a floating-point type or operation not built;
                /// PIPE: `blen = 0` or `nbuf = 0` (`BAD_ARG`).
                arg_bad: checks[3, 1],
                /// CALC: `count = 0`; PIPE: no messages.
                empty: checks[4, 1],
            }
        }
    };
}

/// The checks' word in, one output per check (module `nic_wqe_checks_fields`).
pub mod unpack {
    use super::CHECK_BITS;
    use crate::rtl_unpack;
    use rust_hdl::prelude::*;
    wqe_checks_layout!(rtl_unpack! {});
}

/// One input per check, the word out (module `nic_wqe_checks_word`).
pub mod pack {
    use super::CHECK_BITS;
    use crate::rtl_pack;
    use rust_hdl::prelude::*;
    wqe_checks_layout!(rtl_pack! {});
}

crate::sub_block! {
    /// WQE decode and dispatch (widths as in [`super::Nic`]).
    pub struct NicExecute<const QB: usize, const CB: usize, const KB: usize, const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub runnable: Signal<In, bool>,
        pub cq_full: Signal<In, bool>,
        pub opcode: Signal<In, Bits<OPCODE_BITS>>,
        pub rsvd0: Signal<In, Bits<3>>,
        pub rsvd1: Signal<In, Bits<4>>,
        /// Reserved but in a CALC (its `calc_shape`).
        pub rsvd2: Signal<In, Bits<3>>,
        /// The result's outer span of the WQE's shape, low 16 bits (the calc unit's
        /// `shape_ext_d`).
        pub calc_ext_d: Signal<In, Bits<16>>,
        pub buf_addr: Signal<In, Bits<16>>,
        pub buf_len: Signal<In, Bits<16>>,
        pub wait_kind: Signal<In, bool>,
        pub wait_index: Signal<In, Bits<8>>,
        pub wait_count: Signal<In, Bits<32>>,
        pub en_qp: Signal<In, Bits<8>>,
        pub calc_op: Signal<In, Bits<ALU_OP_BITS>>,
        /// The CALC's floating-point type is refused (`nic_calc`'s `fp_refused`).
        pub calc_fp_refused: Signal<In, bool>,
        pub calc_count: Signal<In, Bits<16>>,
        pub calc_dst: Signal<In, Bits<16>>,
        pub calc_to_peer: Signal<In, bool>,
        pub pipe_rq: Signal<In, Bits<8>>,
        pub pipe_blen: Signal<In, Bits<16>>,
        pub pipe_nbuf: Signal<In, Bits<8>>,
        pub pipe_count: Signal<In, Bits<16>>,
        /// The latched WQE's checks ([`WqeChecks`](unpack::WqeChecks)), made when it was
        /// posted (the queues keep them beside the WQE).
        pub checks: Signal<In, Bits<CHECK_BITS>>,
        pub head_wait_index: Signal<In, Bits<KB>>,
        pub cq_produced: Signal<In, Bits<32>>,
        pub cnt_data: Signal<In, Bits<32>>,
        pub tx_free: Signal<In, bool>,
        pub tx_busy_here: Signal<In, bool>,
        pub tx_sent_here: Signal<In, bool>,
        pub reliable: Signal<In, bool>,
        pub awaits: Signal<In, bool>,
        pub rc_state: Signal<In, Bits<2>>,
        pub rc_status: Signal<In, Bits<STATUS_BITS>>,
        pub rc_due: Signal<In, bool>,
        pub next_state: Signal<Out, SeqState>,
        pub advance_visit: Signal<Out, bool>,
        pub complete_status: Signal<Out, Bits<STATUS_BITS>>,
        pub send: Signal<Out, bool>,
        pub send_go: Signal<Out, bool>,
        pub send_addr: Signal<Out, Bits<16>>,
        pub send_len: Signal<Out, Bits<16>>,
        pub sent_taken: Signal<Out, bool>,
        pub await_answer: Signal<Out, bool>,
        pub pipe_read: Signal<Out, bool>,
        pub cnt_rd_addr: Signal<Out, Bits<KB>>,
        pub reserved: Signal<Out, bool>,
        pub buf_outside: Signal<Out, bool>,
        /// The checks of the current words (a host command's while it runs: what a post
        /// stores beside the WQE).
        pub checks_now: Signal<Out, Bits<CHECK_BITS>>,
        pub stat_hits: Signal<Out, Bits<STATS>>,
        /// The WQE completes (`next_state` is `Complete`).
        complete: Signal<Local, bool>,
        buf_end: Signal<Local, Bits<17>>,
        /// A WAIT's index is outside its CQs or counters.
        wait_index_bad: Signal<Local, bool>,
        /// The checks of the current words, before they are packed.
        now_reserved: Signal<Local, bool>,
        now_buf_outside: Signal<Local, bool>,
        now_index_bad: Signal<Local, bool>,
        now_arg_bad: Signal<Local, bool>,
        now_empty: Signal<Local, bool>,
        /// The checks of the current words, packed (module `nic_wqe_checks_word`).
        checks_now_word: pack::WqeChecks,
        /// The latched WQE's checks, unpacked (module `nic_wqe_checks_fields`).
        checks_latched: unpack::WqeChecks,
        /// `produced - target` of a CQ WAIT, taken as signed.
        wait_lead: Signal<Local, Bits<32>>,
        /// The WAIT's target is met by the counts or counter just read (`SqDecode`).
        wait_met_now: Signal<Local, bool>,
        /// `wait_met_now`, registered in `SqDecode`: `WaitCheck` decides on it.
        wait_met: Reg<bool>,
        fail: Signal<Local, bool>,
        fail_status: Signal<Local, Bits<STATUS_BITS>>,
        /// The CALC's operation is MAXLOC / MINLOC (two words an element).
        calc_loc: Signal<Local, bool>,
        /// The words a CALC sends: its result's span (0 for `count = 0`).
        calc_len: Signal<Local, Bits<16>>,
        /// The head WQE is a PIPE (its sent chunks are freed in `PipeCheck`).
        pipe_head: Signal<Local, bool>,
        op_pipe: Constant<Bits<OPCODE_BITS>> = k(Opcode::Pipe.code()),
        st_retry: Constant<Bits<2>> = k(RcState::Retry.code()),
        st_answered: Constant<Bits<2>> = k(RcState::Answered.code()),
        alu_max_loc: Constant<Bits<ALU_OP_BITS>> = k(AluOp::MaxLoc.code()),
        alu_min_loc: Constant<Bits<ALU_OP_BITS>> = k(AluOp::MinLoc.code()),
        hit_rnr_retry: Constant<Bits<STATS>> = hit(Stat::RnrRetry),
        qps: Constant<Bits<8>> = k(1 << QB),
        cqs: Constant<Bits<8>> = k(1 << CB),
        counters: Constant<Bits<8>> = k(1 << KB),
        dmem_words17: Constant<Bits<17>> = k(1 << DB),
        half32: Constant<Bits<32>> = k(1 << 31),
        op_nop: Constant<Bits<OPCODE_BITS>> = k(Opcode::Nop.code()),
        op_send: Constant<Bits<OPCODE_BITS>> = k(Opcode::Send.code()),
        op_wait: Constant<Bits<OPCODE_BITS>> = k(Opcode::Wait.code()),
        op_send_en: Constant<Bits<OPCODE_BITS>> = k(Opcode::SendEn.code()),
        op_recv_en: Constant<Bits<OPCODE_BITS>> = k(Opcode::RecvEn.code()),
        op_calc: Constant<Bits<OPCODE_BITS>> = k(Opcode::Calc.code()),
        alu_reserved: Constant<Bits<ALU_OP_BITS>> = k(FIRST_RESERVED_OP),
        ok: Constant<Bits<STATUS_BITS>> = k(Status::Ok.code()),
        bad_opcode: Constant<Bits<STATUS_BITS>> = k(Status::BadOpcode.code()),
        bad_index: Constant<Bits<STATUS_BITS>> = k(Status::BadIndex.code()),
        bad_addr: Constant<Bits<STATUS_BITS>> = k(Status::BadAddr.code()),
        bad_arg: Constant<Bits<STATUS_BITS>> = k(Status::BadArg.code()),
        hit_cq_stall: Constant<Bits<STATS>> = hit(Stat::CqStall),
    }
}

impl<const QB: usize, const CB: usize, const KB: usize, const DB: usize> Logic
    for NicExecute<QB, CB, KB, DB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wait_met);
        // The checks of the current words (a host command's, when it posts them).
        self.now_reserved.next = (self.rsvd0.val() != 0)
            | (self.rsvd1.val() != 0)
            | ((self.rsvd2.val() != 0) & (self.opcode.val() != self.op_calc.val()));
        self.buf_end.next =
            bit_cast::<17, 16>(self.buf_addr.val()) + bit_cast::<17, 16>(self.buf_len.val());
        self.now_buf_outside.next = self.buf_end.val() > self.dmem_words17.val();
        self.wait_index_bad.next = self.wait_index.val() >= self.cqs.val();
        if self.wait_kind.val() {
            self.wait_index_bad.next = self.wait_index.val() >= self.counters.val();
        }
        self.now_index_bad.next = false;
        self.now_arg_bad.next = false;
        self.now_empty.next = false;
        if self.opcode.val() == self.op_wait.val() {
            self.now_index_bad.next = self.wait_index_bad.val();
        }
        if (self.opcode.val() == self.op_send_en.val())
            | (self.opcode.val() == self.op_recv_en.val())
        {
            self.now_index_bad.next = self.en_qp.val() >= self.qps.val();
        }
        if self.opcode.val() == self.op_calc.val() {
            self.now_arg_bad.next =
                (self.calc_op.val() >= self.alu_reserved.val()) | self.calc_fp_refused.val();
            self.now_empty.next = self.calc_count.val() == 0;
        }
        if self.opcode.val() == self.op_pipe.val() {
            self.now_index_bad.next = self.pipe_rq.val() >= self.qps.val();
            self.now_arg_bad.next = (self.pipe_blen.val() == 0) | (self.pipe_nbuf.val() == 0);
            self.now_empty.next = self.pipe_count.val() == 0;
        }
        self.checks_now_word.reserved.next = self.now_reserved.val();
        self.checks_now_word.buf_outside.next = self.now_buf_outside.val();
        self.checks_now_word.index_bad.next = self.now_index_bad.val();
        self.checks_now_word.arg_bad.next = self.now_arg_bad.val();
        self.checks_now_word.empty.next = self.now_empty.val();
        self.checks_now.next = self.checks_now_word.checks.val();

        // The latched WQE's checks, made when it was posted.
        self.checks_latched.checks.next = self.checks.val();
        self.reserved.next = self.checks_latched.reserved.val();
        self.buf_outside.next = self.checks_latched.buf_outside.val();
        self.wait_lead.next = self.cq_produced.val() - self.wait_count.val();
        self.wait_met_now.next = self.wait_lead.val() < self.half32.val();
        self.calc_loc.next = (self.calc_op.val() == self.alu_max_loc.val())
            | (self.calc_op.val() == self.alu_min_loc.val());
        if self.wait_kind.val() {
            self.wait_met_now.next = self.cnt_data.val() >= self.wait_count.val();
        }
        self.calc_len.next = self.calc_count.val() + self.calc_ext_d.val();
        if self.calc_loc.val() {
            self.calc_len.next =
                self.calc_count.val() + self.calc_count.val() + self.calc_ext_d.val();
        }
        if self.checks_latched.empty.val() {
            self.calc_len.next = 0.into();
        }

        self.pipe_head.next =
            (self.opcode.val() == self.op_pipe.val()) & !self.checks_latched.reserved.val();

        // Defaults: nothing started.
        self.next_state.next = self.state.val();
        self.advance_visit.next = false;
        self.fail.next = false;
        self.fail_status.next = self.ok.val();
        self.complete.next = false;
        self.send.next = false;
        self.send_go.next = true;
        self.send_addr.next = 0.into();
        self.send_len.next = 0.into();
        self.sent_taken.next = false;
        self.await_answer.next = false;
        self.pipe_read.next = false;
        self.cnt_rd_addr.next = 0.into();
        self.stat_hits.next = 0.into();
        match self.state.val() {
            SeqState::SqContext => {
                self.next_state.next = SeqState::SqWqe;
                if !self.runnable.val() | self.awaits.val() | self.tx_busy_here.val() {
                    self.advance_visit.next = true;
                    self.next_state.next = SeqState::Idle;
                }
            }
            SeqState::SqWqe => {
                // A counter WAIT's counter is read whatever the WQE (only the compare in
                // `SqDecode` uses it, and no other unit reads the counters here).
                self.cnt_rd_addr.next = self.head_wait_index.val();
                self.next_state.next = SeqState::SqDecode;
            }
            SeqState::SqDecode => {
                self.wait_met.d.next = self.wait_met_now.val();
                if (self.rc_state.val() == self.st_retry.val()) & !self.rc_due.val() {
                    // The retry is not due yet: the next SQ.
                    self.advance_visit.next = true;
                    self.next_state.next = SeqState::Idle;
                } else if self.cq_full.val() {
                    // Back-pressure: the WQE does not start while its CQ is full.
                    self.stat_hits.next = self.hit_cq_stall.val();
                    self.advance_visit.next = true;
                    self.next_state.next = SeqState::Idle;
                } else if self.tx_sent_here.val() & !self.pipe_head.val() {
                    // Its message has been sent.
                    self.sent_taken.next = true;
                    self.complete.next = true;
                } else if self.rc_state.val() == self.st_answered.val() {
                    // The answer came: complete with its status.
                    self.fail.next = true;
                    self.fail_status.next = self.rc_status.val();
                } else if self.rc_state.val() == self.st_retry.val() {
                    // After an RNR NAK: the message again (a CALC's result, not recomputed).
                    self.stat_hits.next = self.hit_rnr_retry.val();
                    if !self.tx_free.val() {
                        self.stat_hits.next = 0.into();
                    }
                    self.send.next = true;
                    self.send_addr.next = self.buf_addr.val();
                    self.send_len.next = self.buf_len.val();
                    if self.opcode.val() != self.op_send.val() {
                        self.send_addr.next = self.calc_dst.val();
                        self.send_len.next = self.calc_len.val();
                    }
                } else if self.checks_latched.reserved.val() {
                    self.fail.next = true;
                    self.fail_status.next = self.bad_opcode.val();
                } else if self.opcode.val() == self.op_nop.val() {
                    self.complete.next = true;
                } else if self.opcode.val() == self.op_send.val() {
                    self.fail.next = self.checks_latched.buf_outside.val();
                    self.fail_status.next = self.bad_addr.val();
                    self.send.next = !self.checks_latched.buf_outside.val();
                    self.send_addr.next = self.buf_addr.val();
                    self.send_len.next = self.buf_len.val();
                } else if self.opcode.val() == self.op_wait.val() {
                    self.fail.next = self.checks_latched.index_bad.val();
                    self.fail_status.next = self.bad_index.val();
                    self.next_state.next = SeqState::WaitCheck;
                } else if (self.opcode.val() == self.op_send_en.val())
                    | (self.opcode.val() == self.op_recv_en.val())
                {
                    self.fail.next = self.checks_latched.index_bad.val();
                    self.fail_status.next = self.bad_index.val();
                    self.next_state.next = SeqState::EnableWrite;
                } else if self.opcode.val() == self.op_calc.val() {
                    self.fail.next = self.checks_latched.arg_bad.val();
                    self.fail_status.next = self.bad_arg.val();
                    if self.calc_to_peer.val() {
                        // The engine holds the result's message until it is computed (an
                        // empty one may go at once).
                        self.send.next = true;
                        self.send_go.next = self.checks_latched.empty.val();
                        self.send_addr.next = self.calc_dst.val();
                        self.send_len.next = self.calc_len.val();
                    }
                    if !self.checks_latched.empty.val() {
                        self.next_state.next = SeqState::CalcReadA;
                    } else if !self.calc_to_peer.val() {
                        self.complete.next = true;
                    }
                } else if self.pipe_head.val() {
                    // The pipe unit takes the step, from the receive QP's context.
                    self.pipe_read.next = true;
                    self.next_state.next = SeqState::PipeCheck;
                    if self.checks_latched.index_bad.val() {
                        self.fail.next = true;
                        self.fail_status.next = self.bad_index.val();
                    } else if self.checks_latched.arg_bad.val() {
                        self.fail.next = true;
                        self.fail_status.next = self.bad_arg.val();
                    } else if self.checks_latched.empty.val() {
                        self.pipe_read.next = false;
                        self.complete.next = true;
                    }
                } else {
                    // RECV on a send queue, or an unknown opcode.
                    self.fail.next = true;
                    self.fail_status.next = self.bad_opcode.val();
                }
            }
            SeqState::WaitCheck => {
                self.complete.next = self.wait_met.q.val();
                if !self.wait_met.q.val() {
                    self.advance_visit.next = true;
                    self.next_state.next = SeqState::Idle;
                }
            }
            SeqState::EnableWrite => self.complete.next = true,
            _ => {}
        }
        // A failed check completes the WQE with its status and starts nothing.
        if self.fail.val() {
            self.complete.next = true;
            self.send.next = false;
            self.sent_taken.next = false;
            self.pipe_read.next = false;
        }
        self.complete_status.next = self.ok.val();
        if self.fail.val() {
            self.complete_status.next = self.fail_status.val();
        }
        // A message for a busy engine: the visit is over, the WQE runs at a later one.
        if self.send.val() & !self.tx_free.val() {
            self.send.next = false;
            self.advance_visit.next = true;
            self.next_state.next = SeqState::Idle;
        }
        if self.send.val() & self.send_go.val() {
            self.await_answer.next = self.reliable.val();
            self.advance_visit.next = true;
            self.next_state.next = SeqState::Idle;
        }
        if self.complete.val() {
            self.next_state.next = SeqState::Complete;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::{Wqe, WqeWords};
    use netcoll_models::reduce_alu::Dtype;

    /// 4 QPs, 4 CQs, 8 counters, 1024 words.
    type Exec = NicExecute<2, 2, 3, 10>;

    fn show(e: &mut Exec, state: SeqState, (w0, w1): (u64, u64)) {
        let f = WqeWords::unpack(w0, w1);
        e.state.next = state;
        e.opcode.next = f.opcode.into();
        e.rsvd0.next = f.rsvd0.into();
        e.rsvd1.next = f.rsvd1.into();
        e.rsvd2.next = f.rsvd2.into();
        e.buf_addr.next = f.buf_addr.into();
        e.buf_len.next = f.buf_len.into();
        e.wait_kind.next = f.wait_kind == 1;
        e.wait_index.next = f.wait_index.into();
        e.wait_count.next = f.wait_count.into();
        e.en_qp.next = f.en_qp.into();
        e.calc_op.next = f.calc_op.into();
        e.calc_count.next = f.calc_count.into();
        e.calc_dst.next = f.calc_dst.into();
        e.calc_to_peer.next = f.calc_to_peer == 1;
        e.pipe_rq.next = f.pipe_rq.into();
        e.pipe_blen.next = f.pipe_blen.into();
        e.pipe_nbuf.next = f.pipe_nbuf.into();
        e.pipe_count.next = f.pipe_count.into();
        assert!(simulate(e, 1000));
        // The words are posted (their checks stored), then latched with their checks.
        e.checks.next = e.checks_now.val();
        assert!(simulate(e, 1000));
    }

    /// What `SqDecode` does with a WQE: `(next state, completion status if any)`.
    fn decode(e: &mut Exec, w: (u64, u64)) -> (SeqState, Option<Status>) {
        show(e, SeqState::SqDecode, w);
        let status = e
            .complete
            .val()
            .then(|| Status::from_code(e.complete_status.val().to_u64()).expect("a status code"));
        (e.next_state.val(), status)
    }

    fn calc(op: AluOp, count: u64, a: u64, sa: u64, dst: u64, to_peer: bool) -> (u64, u64) {
        Wqe {
            opcode: Opcode::Calc.code(),
            alu_op: op.code(),
            dtype: Dtype::U64.code(),
            mode: to_peer as u64,
            len: count,
            addr: a,
            b: 0,
            sa,
            sb: 1,
            dst_addr: dst,
            ..Default::default()
        }
        .encode()
    }

    #[test]
    fn a_pipe_is_checked_then_handed_to_the_pipe_unit() {
        let mut e = Exec::default();
        e.connect_all();
        e.tx_free.next = true;
        let pipe = |rq, blen, nbuf, count| Wqe::pipe(rq, (0x40, blen, nbuf), count, 1, 2, None);
        assert_eq!(
            decode(&mut e, pipe(3, 4, 2, 9).encode()),
            (SeqState::PipeCheck, None)
        );
        assert!(e.pipe_read.val() && !e.send.val() && !e.advance_visit.val());
        // 4 QPs: receive QP 4 does not exist.
        assert_eq!(
            decode(&mut e, pipe(4, 4, 2, 9).encode()),
            (SeqState::Complete, Some(Status::BadIndex))
        );
        assert!(!e.pipe_read.val());
        for (blen, nbuf) in [(0, 2), (4, 0)] {
            assert_eq!(
                decode(&mut e, pipe(3, blen, nbuf, 9).encode()),
                (SeqState::Complete, Some(Status::BadArg))
            );
        }
        assert_eq!(
            decode(&mut e, pipe(3, 4, 2, 0).encode()),
            (SeqState::Complete, Some(Status::Ok)),
            "no messages"
        );
        assert!(!e.pipe_read.val());
        // A PIPE's chunk the engine has sent is freed by the pipe unit, not completed here.
        e.tx_sent_here.next = true;
        assert_eq!(
            decode(&mut e, pipe(3, 4, 2, 9).encode()),
            (SeqState::PipeCheck, None)
        );
        assert!(!e.sent_taken.val());
    }

    #[test]
    fn each_work_request_is_checked_then_started() {
        let mut e = Exec::default();
        e.connect_all();
        e.tx_free.next = true;
        use SeqState::*;
        let done = |s| (Complete, Some(s));
        assert_eq!(decode(&mut e, Wqe::nop(false).encode()), done(Status::Ok));
        // SEND: handed over to the transmit engine, which may start it; the visit is over.
        let send = Wqe::send(1000, 24, 3, 1, None, true).encode();
        assert_eq!(decode(&mut e, send), (Idle, None));
        assert!(e.send.val() && e.send_go.val() && e.advance_visit.val());
        assert!(!e.await_answer.val(), "not a reliable QP");
        assert_eq!(
            (e.send_addr.val().to_u64(), e.send_len.val().to_u64()),
            (1000, 24)
        );
        e.reliable.next = true;
        assert_eq!(decode(&mut e, send), (Idle, None));
        assert!(e.await_answer.val(), "a reliable QP's SQ awaits the answer");
        e.reliable.next = false;
        // A busy engine: the SEND waits for a later visit.
        e.tx_free.next = false;
        assert_eq!(decode(&mut e, send), (Idle, None));
        assert!(!e.send.val() && e.advance_visit.val());
        e.tx_free.next = true;
        let too_long = Wqe::send(1000, 25, 3, 1, None, true).encode();
        assert_eq!(decode(&mut e, too_long), done(Status::BadAddr));
        assert!(!e.send.val());
        assert_eq!(
            decode(&mut e, Wqe::recv(0, 1, true).encode()),
            done(Status::BadOpcode)
        );
        let reserved = (Wqe::nop(true).encode().0 | 1 << 5, 0);
        assert_eq!(decode(&mut e, reserved), done(Status::BadOpcode));
        assert_eq!(
            decode(&mut e, (12, 0)),
            done(Status::BadOpcode),
            "unknown opcode"
        );
        // WAIT: the CQ or the counter is read, if it exists.
        assert_eq!(
            decode(&mut e, Wqe::wait_cq(3, 1, true).encode()),
            (WaitCheck, None)
        );
        assert_eq!(
            decode(&mut e, Wqe::wait_cq(4, 1, true).encode()),
            done(Status::BadIndex)
        );
        let wait_cnt = Wqe::wait_counter(7, 1, true).encode();
        assert_eq!(decode(&mut e, wait_cnt), (WaitCheck, None));
        assert_eq!(
            e.cnt_rd_addr.val().to_u64(),
            0,
            "the counter is read in SqWqe"
        );
        // `SqWqe` reads the counter of the WQE being latched, whatever it is.
        e.head_wait_index.next = 7.into();
        show(&mut e, SqWqe, (0, 0));
        assert_eq!(e.cnt_rd_addr.val().to_u64(), 7);
        e.head_wait_index.next = 0.into();
        let wait_cnt = Wqe::wait_counter(8, 1, true).encode();
        assert_eq!(decode(&mut e, wait_cnt), done(Status::BadIndex));
        // SEND_EN / RECV_EN, if the QP exists.
        let en = Wqe::enable(true, 3, false, 1, false).encode();
        assert_eq!(decode(&mut e, en), (EnableWrite, None));
        let en = Wqe::enable(false, 4, false, 1, false).encode();
        assert_eq!(decode(&mut e, en), done(Status::BadIndex));
        // CALC: the operation (the addresses are the CALC unit's, in `CalcReadA`).
        assert_eq!(
            decode(&mut e, calc(AluOp::Sum, 4, 0, 2, 8, false)),
            (CalcReadA, None)
        );
        let bad_arg = Wqe {
            alu_op: 12,
            ..Wqe::decode(calc(AluOp::Sum, 4, 0, 2, 8, false).0, 0)
        };
        assert_eq!(decode(&mut e, bad_arg.encode()), done(Status::BadArg));
        let outside = calc(AluOp::Sum, 4, 1018, 2, 8, false);
        assert_eq!(decode(&mut e, outside), (CalcReadA, None));
        // To a peer: the engine holds the result's message (pairs for a LOC op) until the
        // loop is done; a busy engine makes the CALC wait for a later visit.
        assert_eq!(
            decode(&mut e, calc(AluOp::MaxLoc, 3, 0, 2, 200, true)),
            (CalcReadA, None)
        );
        assert!(e.send.val() && !e.send_go.val());
        assert_eq!(
            (e.send_addr.val().to_u64(), e.send_len.val().to_u64()),
            (200, 6)
        );
        e.tx_free.next = false;
        assert_eq!(
            decode(&mut e, calc(AluOp::Sum, 3, 0, 2, 200, true)),
            (Idle, None)
        );
        assert!(!e.send.val() && e.advance_visit.val());
        assert_eq!(
            decode(&mut e, calc(AluOp::Sum, 3, 0, 2, 200, false)),
            (CalcReadA, None),
            "a CALC to memory does not need the engine"
        );
        e.tx_free.next = true;
        // Nothing to compute: complete, or send the empty result at once.
        assert_eq!(
            decode(&mut e, calc(AluOp::Sum, 0, 0, 1, 5, false)),
            done(Status::Ok)
        );
        assert_eq!(
            decode(&mut e, calc(AluOp::Sum, 0, 0, 1, 5, true)),
            (Idle, None)
        );
        assert!(e.send.val() && e.send_go.val());
        assert_eq!(
            (e.send_addr.val().to_u64(), e.send_len.val().to_u64()),
            (5, 0)
        );
        // A sent message's WQE completes at its SQ's visit.
        e.tx_sent_here.next = true;
        assert_eq!(decode(&mut e, send), done(Status::Ok));
        assert!(e.sent_taken.val() && !e.send.val());
        e.tx_sent_here.next = false;
        // A full CQ stalls the queue.
        e.cq_full.next = true;
        assert_eq!(decode(&mut e, Wqe::nop(true).encode()), (Idle, None));
        assert!(e.advance_visit.val());
        assert_eq!(e.stat_hits.val().to_u64(), 1 << Stat::CqStall.code());
    }

    #[test]
    fn visits_and_waits() {
        let mut e = Exec::default();
        e.connect_all();
        show(&mut e, SeqState::SqContext, (0, 0));
        assert!(e.advance_visit.val() && e.next_state.val() == SeqState::Idle);
        e.runnable.next = true;
        show(&mut e, SeqState::SqContext, (0, 0));
        assert!(!e.advance_visit.val() && e.next_state.val() == SeqState::SqWqe);
        show(&mut e, SeqState::SqWqe, (0, 0));
        assert!(!e.advance_visit.val() && e.next_state.val() == SeqState::SqDecode);
        // A WAIT: `SqDecode` compares what `SqWqe` read, `WaitCheck` decides on the result.
        // The counts and the counter change after the compare: the decision does not.
        let wait = |e: &mut Exec, wqe: (u64, u64), produced: u64, counter: u64| {
            e.cq_produced.next = produced.into();
            e.cnt_data.next = counter.into();
            show(e, SeqState::SqDecode, wqe);
            e.clock.next = Clock { clk: true };
            assert!(simulate(e, 1000));
            e.clock.next = Clock { clk: false };
            e.cq_produced.next = (!produced & 0xffff_ffff).into();
            e.cnt_data.next = (!counter & 0xffff_ffff).into();
            show(e, SeqState::WaitCheck, wqe);
            assert_eq!(e.advance_visit.val(), !e.complete.val());
            e.complete.val()
        };
        // A CQ WAIT: `produced - target` taken as signed, not negative.
        for (produced, target, met) in [
            (5u64, 5u64, true),
            (4, 5, false),
            (0, 0xffff_fff0, true),
            (0x8000_0005, 5, false),
        ] {
            let wqe = Wqe::wait_cq(1, target, true).encode();
            assert_eq!(
                wait(&mut e, wqe, produced, 0),
                met,
                "{produced:#x} vs {target:#x}"
            );
        }
        // A counter WAIT: unsigned.
        assert!(wait(&mut e, Wqe::wait_counter(1, 9, true).encode(), 0, 9));
        assert!(!wait(&mut e, Wqe::wait_counter(1, 10, true).encode(), 0, 9));
    }
}
