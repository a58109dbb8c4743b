//! # A delay line in LUT RAM (module `reduce_alu_delay_line`)
//!
//! A result word and its index delayed `lag + 1` cycles (2 to 16), as that many registers in
//! series would, but held in two 16-word memories marked for LUT RAM: on an ECP5 a word costs
//! 16 of the 4-bit-wide RAMs whatever the delay, where registers cost 64 flip-flops a cycle.
//! The floating-point datapath carries MIN / MAX's value and index from stage 5 to its output
//! in one, and the ALU's tail keeps each integer lane's results in one until the
//! floating-point lanes' are ready.
//!
//! # Inputs
//! - `clock` (no reset: the words are not cleared, so the block using a line must keep what
//!   it reads in the first `lag + 1` cycles after a reset off its outputs);
//! - `lag` (4 bits, 1 to 15): the words the read trails the write, the delay less one (a delay
//!   of 2 to 16 cycles); the user drives it with a constant;
//! - `d`, `di` (64 bits each): the words entering the line.
//!
//! # Outputs
//! - `q`, `qi`: what `d`, `di` were `lag + 1` edges earlier (offered at edge `t`, out after
//!   edge `t + lag`, like the last of `lag + 1` registers).
//!
//! # Structure
//! The memories are written at every edge at `wr`, a free-running count, and read at `rd`,
//! which is loaded with `wr`'s next value less `lag`: so `rd` trails `wr` by `lag` words from
//! the first edge on, whatever either held before (neither needs a reset). The memories' read
//! is registered, which makes the last cycle.

use netcoll_models::reduce_alu::WORD_BITS;
use rust_hdl::prelude::*;

use crate::prim::{DataReg, Mem};

const W: usize = WORD_BITS;

/// The emitted module's name.
pub const MODULE: &str = "reduce_alu_delay_line";

/// The longest delay a line holds: its memories' words.
pub const MAX_DELAY: usize = 16;

crate::sub_block! {
    /// The delay line.
    pub struct ReduceAluDelayLine {
        pub clock: Signal<In, Clock>,
        pub lag: Signal<In, Bits<4>>,
        pub d: Signal<In, Bits<W>>,
        pub di: Signal<In, Bits<W>>,
        pub q: Signal<Out, Bits<W>>,
        pub qi: Signal<Out, Bits<W>>,
        words: Mem<Bits<W>, 4> = Mem::distributed(),
        index_words: Mem<Bits<W>, 4> = Mem::distributed(),
        /// The write address, and the read address `lag` words behind it.
        wr: DataReg<Bits<4>>,
        rd: DataReg<Bits<4>>,
    }
}

impl Logic for ReduceAluDelayLine {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, wr, rd, words, index_words);
        self.wr.d.next = self.wr.q.val() + 1;
        self.rd.d.next = self.wr.q.val() + 1 - self.lag.val();
        self.words.wr_en.next = true;
        self.words.wr_addr.next = self.wr.q.val();
        self.words.wr_data.next = self.d.val();
        self.words.rd_addr.next = self.rd.q.val();
        self.index_words.wr_en.next = true;
        self.index_words.wr_addr.next = self.wr.q.val();
        self.index_words.wr_data.next = self.di.val();
        self.index_words.rd_addr.next = self.rd.q.val();
        self.q.next = self.words.rd_data.val();
        self.qi.next = self.index_words.rd_data.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::VecDeque;

    /// Every delay the line holds, against that many registers in series (the naive reference),
    /// on seeded random words, from power-up and across the address's wrap.
    #[test]
    fn delay_line_is_registers_in_series() {
        for delay in 2..=MAX_DELAY {
            let seed = 0xde1a_0000 + delay as u64;
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut uut = ReduceAluDelayLine::default();
            uut.connect_all();
            uut.lag.next = (delay as u64 - 1).into();
            // The registers' contents, newest first; zero at power-up, like the memories.
            let mut regs: VecDeque<(u64, u64)> = (1..delay).map(|_| (0, 0)).collect();
            for cycle in 0..100 {
                let (d, di) = (rng.gen::<u64>(), rng.gen::<u64>());
                uut.d.next = d.into();
                uut.di.next = di.into();
                uut.clock.next = Clock { clk: false };
                simulate(&mut uut, 20);
                uut.clock.next = Clock { clk: true };
                simulate(&mut uut, 20);
                regs.push_front((d, di));
                let (q, qi) = regs.pop_back().expect("one word per register");
                // The memory's words are zero at power-up in simulation only; what is read in
                // the first `lag + 1` cycles is not promised.
                if cycle >= delay {
                    assert_eq!(
                        (uut.q.val().to_u64(), uut.qi.val().to_u64()),
                        (q, qi),
                        "delay {delay}, cycle {cycle} (seed {seed:#x})"
                    );
                }
            }
        }
    }
}
