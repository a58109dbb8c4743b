//! # The CALC loop (module `nic_calc`)
//!
//! Runs CALC's elements through the reduction ALU (its instance `alu`, module `reduce_alu_l1`):
//! per element, read `a` (and `b`, and for MAXLOC / MINLOC both indices) from data memory
//! into the operand registers, let the ALU compute (its pipeline answers `LATENCY` cycles
//! later: `CalcAlu`, then `CalcWait` counting down `alu_wait`), write the result (and its
//! index). After the last element the result goes to a peer (a transmission of the
//! result buffer) or the WQE completes. `CalcReadA` … `CalcWriteIndex` and `CalcWait` in the state table of
//! `netcoll_models::nic::model`.
//!
//! # Inputs
//! - `clock`, `reset`; `state`;
//! - `start`: load the loop from the WQE (`SqDecode`);
//! - the current WQE's `calc_op`, `calc_dtype`, `calc_count`, `calc_a`, `calc_b`, `calc_sa`,
//!   `calc_sb`, `calc_dst`, `calc_to_peer`;
//! - `dmem_data`: what data memory returned.
//!
//! # Outputs
//! - `next_state`: the next state in the CALC states;
//! - `dmem_rd_addr`, `dmem_wr_en`, `dmem_wr_addr`, `dmem_wr_data`: data memory requests (zero
//!   outside the CALC states);
//! - `send`, `send_addr`, `send_len`: send the result buffer; `complete`: the WQE completes.

use super::k;
use super::sequencer::SeqState;
use crate::dff_setup;
use crate::prim::Reg;
use crate::reduce_alu::ReduceAlu;
use netcoll_models::nic::model::{ALU_WAIT, ALU_WAIT_BITS};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use rust_hdl::prelude::*;

const ALU_OP_BITS: usize = AluOp::BITS;
const DTYPE_BITS: usize = Dtype::BITS;

crate::sub_block! {
    /// The CALC loop over a data memory of `2^DB` words.
    pub struct NicCalc<const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub start: Signal<In, bool>,
        pub calc_op: Signal<In, Bits<ALU_OP_BITS>>,
        pub calc_dtype: Signal<In, Bits<DTYPE_BITS>>,
        pub calc_count: Signal<In, Bits<16>>,
        pub calc_a: Signal<In, Bits<16>>,
        pub calc_b: Signal<In, Bits<16>>,
        pub calc_sa: Signal<In, Bits<8>>,
        pub calc_sb: Signal<In, Bits<8>>,
        pub calc_dst: Signal<In, Bits<16>>,
        pub calc_to_peer: Signal<In, bool>,
        pub dmem_data: Signal<In, Bits<64>>,
        pub next_state: Signal<Out, SeqState>,
        pub dmem_rd_addr: Signal<Out, Bits<DB>>,
        pub dmem_wr_en: Signal<Out, bool>,
        pub dmem_wr_addr: Signal<Out, Bits<DB>>,
        pub dmem_wr_data: Signal<Out, Bits<64>>,
        pub send: Signal<Out, bool>,
        pub send_addr: Signal<Out, Bits<16>>,
        pub send_len: Signal<Out, Bits<16>>,
        pub complete: Signal<Out, bool>,
        /// Elements still to compute, the current one included.
        left: Reg<Bits<16>>,
        addr_a: Reg<Bits<16>>,
        addr_b: Reg<Bits<16>>,
        addr_dst: Reg<Bits<16>>,
        a: Reg<Bits<64>>,
        a_index: Reg<Bits<64>>,
        b: Reg<Bits<64>>,
        b_index: Reg<Bits<64>>,
        /// `CalcWait` cycles still to go after this one.
        alu_wait: Reg<Bits<ALU_WAIT_BITS>>,
        /// The reduction ALU (one lane): its inputs are the operand registers, its result is
        /// registered.
        alu: ReduceAlu<1>,
        /// MAXLOC / MINLOC: elements are (value, index) pairs.
        is_loc: Signal<Local, bool>,
        /// The element just written was the last one.
        element_done: Signal<Local, bool>,
        alu_max_loc: Constant<Bits<ALU_OP_BITS>> = k(AluOp::MaxLoc.code()),
        alu_min_loc: Constant<Bits<ALU_OP_BITS>> = k(AluOp::MinLoc.code()),
        alu_wait_start: Constant<Bits<ALU_WAIT_BITS>> = k(ALU_WAIT),
    }
}

impl<const DB: usize> Logic for NicCalc<DB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, left, addr_a, addr_b, addr_dst, a, a_index, b, b_index, alu_wait);
        self.is_loc.next = (self.calc_op.val() == self.alu_max_loc.val())
            | (self.calc_op.val() == self.alu_min_loc.val());
        self.alu.clock.next = self.clock.val();
        self.alu.reset.next = self.reset.val();
        self.alu.in_valid.next = self.state.val() == SeqState::CalcAlu;
        self.alu.op.next = self.calc_op.val();
        self.alu.dtype.next = self.calc_dtype.val();
        self.alu.a[0].next = self.a.q.val();
        self.alu.ai[0].next = self.a_index.q.val();
        self.alu.b[0].next = self.b.q.val();
        self.alu.bi[0].next = self.b_index.q.val();
        if self.start.val() {
            self.left.d.next = self.calc_count.val();
            self.addr_a.d.next = self.calc_a.val();
            self.addr_b.d.next = self.calc_b.val();
            self.addr_dst.d.next = self.calc_dst.val();
        }

        self.next_state.next = self.state.val();
        self.dmem_rd_addr.next = 0.into();
        self.dmem_wr_en.next = false;
        self.dmem_wr_addr.next = 0.into();
        self.dmem_wr_data.next = 0.into();
        self.element_done.next = false;
        match self.state.val() {
            SeqState::CalcReadA => {
                self.dmem_rd_addr.next = self.addr_a.q.val().get_bits::<DB>(0);
                self.next_state.next = SeqState::CalcReadB;
            }
            SeqState::CalcReadB => {
                self.a.d.next = self.dmem_data.val();
                self.dmem_rd_addr.next = self.addr_b.q.val().get_bits::<DB>(0);
                self.next_state.next = SeqState::CalcOperands;
                if self.is_loc.val() {
                    self.next_state.next = SeqState::CalcReadAIndex;
                }
            }
            SeqState::CalcReadAIndex => {
                self.b.d.next = self.dmem_data.val();
                self.dmem_rd_addr.next = self.addr_a.q.val().get_bits::<DB>(0) + 1;
                self.next_state.next = SeqState::CalcReadBIndex;
            }
            SeqState::CalcReadBIndex => {
                self.a_index.d.next = self.dmem_data.val();
                self.dmem_rd_addr.next = self.addr_b.q.val().get_bits::<DB>(0) + 1;
                self.next_state.next = SeqState::CalcOperands;
            }
            SeqState::CalcOperands => {
                if self.is_loc.val() {
                    self.b_index.d.next = self.dmem_data.val();
                } else {
                    self.b.d.next = self.dmem_data.val();
                    self.a_index.d.next = 0.into();
                    self.b_index.d.next = 0.into();
                }
                self.next_state.next = SeqState::CalcAlu;
            }
            SeqState::CalcAlu => {
                self.alu_wait.d.next = self.alu_wait_start.val();
                self.next_state.next = SeqState::CalcWait;
            }
            SeqState::CalcWait => {
                if self.alu_wait.q.val().any() {
                    self.alu_wait.d.next = self.alu_wait.q.val() - 1;
                } else {
                    self.next_state.next = SeqState::CalcWrite;
                }
            }
            SeqState::CalcWrite => {
                // The ALU answers the operands of CalcAlu (CALC never passes a reserved op).
                self.dmem_wr_en.next = self.alu.out_valid.val() & !self.alu.err.val();
                self.dmem_wr_addr.next = self.addr_dst.q.val().get_bits::<DB>(0);
                self.dmem_wr_data.next = self.alu.r[0].val();
                self.element_done.next = !self.is_loc.val();
                self.next_state.next = SeqState::CalcWriteIndex;
            }
            SeqState::CalcWriteIndex => {
                self.dmem_wr_en.next = true;
                self.dmem_wr_addr.next = self.addr_dst.q.val().get_bits::<DB>(0) + 1;
                self.dmem_wr_data.next = self.alu.ri[0].val();
                self.element_done.next = true;
            }
            _ => {}
        }

        // After an element: the next one, or the result to the peer, or the completion.
        self.send.next = false;
        self.send_addr.next = 0.into();
        self.send_len.next = 0.into();
        self.complete.next = false;
        if self.element_done.val() {
            self.left.d.next = self.left.q.val() - 1;
            self.addr_a.d.next = self.addr_a.q.val() + bit_cast::<16, 8>(self.calc_sa.val());
            self.addr_b.d.next = self.addr_b.q.val() + bit_cast::<16, 8>(self.calc_sb.val());
            self.addr_dst.d.next = self.addr_dst.q.val() + 1;
            if self.is_loc.val() {
                self.addr_dst.d.next = self.addr_dst.q.val() + 2;
            }
            self.next_state.next = SeqState::CalcReadA;
            if self.left.q.val() == 1 {
                self.send.next = self.calc_to_peer.val();
                self.complete.next = !self.calc_to_peer.val();
                self.next_state.next = SeqState::Complete;
                if self.calc_to_peer.val() {
                    self.send_addr.next = self.calc_dst.val();
                    self.send_len.next = self.calc_count.val();
                    if self.is_loc.val() {
                        self.send_len.next = self.calc_count.val() << 1;
                    }
                    self.next_state.next = SeqState::TxStart;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::{Opcode, Wqe, WqeWords};
    use netcoll_models::reduce_alu::golden::golden;

    type Calc = NicCalc<10>;

    /// Runs a CALC from `SqDecode` to its end with `mem` as data memory (the unit plays its
    /// part, this test the sequencer's and the memory's): the state it ends in and whether it
    /// sent (with the address and length) or completed.
    fn run(c: &mut Calc, mem: &mut [u64], wqe: &Wqe) -> (SeqState, Option<(u64, u64)>) {
        let (w0, w1) = wqe.encode();
        let f = WqeWords::unpack(w0, w1);
        c.calc_op.next = f.calc_op.into();
        c.calc_dtype.next = f.calc_dtype.into();
        c.calc_count.next = f.calc_count.into();
        c.calc_a.next = f.calc_a.into();
        c.calc_b.next = f.calc_b.into();
        c.calc_sa.next = f.calc_sa.into();
        c.calc_sb.next = f.calc_sb.into();
        c.calc_dst.next = f.calc_dst.into();
        c.calc_to_peer.next = f.calc_to_peer == 1;
        c.state.next = SeqState::SqDecode;
        c.start.next = true;
        let mut read = 0usize;
        for _ in 0..200 {
            c.dmem_data.next = mem[read].into();
            c.clock.next = Clock { clk: false };
            assert!(simulate(c, 1000));
            read = c.dmem_rd_addr.val().index();
            let write = c
                .dmem_wr_en
                .val()
                .then(|| (c.dmem_wr_addr.val().index(), c.dmem_wr_data.val().to_u64()));
            let (send, complete, next) = (c.send.val(), c.complete.val(), c.next_state.val());
            let sent = (c.send_addr.val().to_u64(), c.send_len.val().to_u64());
            c.clock.next = Clock { clk: true };
            assert!(simulate(c, 1000));
            if let Some((a, d)) = write {
                mem[a] = d;
            }
            c.start.next = false;
            c.state.next = if c.state.val() == SeqState::SqDecode {
                SeqState::CalcReadA
            } else {
                next
            };
            if send || complete {
                assert!(!(send && complete));
                return (next, send.then_some(sent));
            }
        }
        panic!("the loop did not end");
    }

    #[test]
    fn sum_and_maxloc_over_strided_vectors() {
        let mut c = Calc::default();
        c.connect_all();
        let mut mem = vec![0u64; 1024];
        for (k, w) in mem.iter_mut().enumerate().take(64) {
            *w = (k as u64 * 0x9E37_79B9) ^ (k as u64) << 40;
        }
        let expect = mem.clone();
        let sum = Wqe {
            opcode: Opcode::Calc.code(),
            alu_op: AluOp::Sum.code(),
            dtype: Dtype::U64.code(),
            len: 5,
            addr: 0,
            sa: 2,
            b: 20,
            sb: 1,
            dst_addr: 100,
            ..Default::default()
        };
        assert_eq!(run(&mut c, &mut mem, &sum), (SeqState::Complete, None));
        for i in 0..5 {
            let (r, _) = golden(AluOp::Sum, Dtype::U64, expect[2 * i], 0, expect[20 + i], 0);
            assert_eq!(mem[100 + i], r, "element {i}");
        }
        // MAXLOC over (value, index) pairs, the result sent to a peer.
        let maxloc = Wqe {
            alu_op: AluOp::MaxLoc.code(),
            dtype: Dtype::I64.code(),
            len: 3,
            addr: 30,
            sa: 2,
            b: 40,
            sb: 2,
            dst_addr: 200,
            mode: 1,
            ..sum
        };
        assert_eq!(
            run(&mut c, &mut mem, &maxloc),
            (SeqState::TxStart, Some((200, 6)))
        );
        for i in 0..3 {
            let (a, b) = (30 + 2 * i, 40 + 2 * i);
            let want = golden(
                AluOp::MaxLoc,
                Dtype::I64,
                expect[a],
                expect[a + 1],
                expect[b],
                expect[b + 1],
            );
            assert_eq!((mem[200 + 2 * i], mem[201 + 2 * i]), want, "pair {i}");
        }
    }
}
