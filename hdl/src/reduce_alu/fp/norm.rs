//! # Normalise a word (module `reduce_alu_fp_norm`)
//!
//! `n = w << lz`, `lz` the leading zeros of `w`: the word's leading one moved to bit 63, in
//! three register stages of two shift steps each. The floating-point datapath uses one per
//! PROD operand (a subnormal significand brought to a normal one's position) and one for
//! SUM's result (the leading one after a cancellation).
//!
//! # Inputs
//! - `clock` (no register resets: the datapath's flags, outside, tell when `n`, `lz` count);
//! - `w` (64 bits): the word;
//! - `q` (3 bits): `q[k - 1]` set when the 16-bit quarter `k` of `w` (bits `16k .. 16k + 15`)
//!   is not zero, for `k` = 1, 2, 3 (the lowest quarter is never tested), offered with `w`. A user whose `w` comes from a register can register these
//!   flags beside it, a stage early, which takes the OR trees off stage 1's path; the result is
//!   only right if `q` agrees with `w`.
//!
//! # Outputs
//! - `n` (64 bits): `w` shifted left by `lz`; its bit 63 is set unless `w` is zero;
//! - `lz` (6 bits): the number of leading zeros of `w`, or 63 for a zero `w` (then `n` is 0).
//!
//! Both are registers, three cycles after `w` (offered at edge `t`, out after edge `t + 2`).
//!
//! # Structure
//! The count by halves: stage 1 shifts by 32 and by 16, stage 2 by 8 and 4, stage 3 by 2 and 1.
//! Within a stage the second step's test is made on both candidates of the first step's
//! shift at once, so that it does not wait for the first shift: stages 2 and 3 are an OR
//! tree, a choice and a four-way multiplexer deep, stage 1 (its tests from `q`) a choice and
//! the multiplexer. Stage 1 was the floating-point datapath's longest path with its OR trees
//! (six LUT levels, 8.2 ns placed, 121.7 MHz in the 1-lane ALU).

use netcoll_models::reduce_alu::WORD_BITS;
use rust_hdl::prelude::*;

use crate::prim::DataReg;

const W: usize = WORD_BITS;

/// The emitted module's name.
pub const MODULE: &str = "reduce_alu_fp_norm";

crate::sub_block! {
    /// The three-stage normaliser.
    pub struct ReduceAluFpNorm {
        pub clock: Signal<In, Clock>,
        pub w: Signal<In, Bits<W>>,
        pub q: Signal<In, Bits<3>>,
        pub n: Signal<Out, Bits<W>>,
        pub lz: Signal<Out, Bits<6>>,
        /// The word after each stage's two steps, and the count's bits found so far.
        s1_n: DataReg<Bits<W>>,
        s1_lz: DataReg<Bits<6>>,
        s2_n: DataReg<Bits<W>>,
        s2_lz: DataReg<Bits<6>>,
        s3_n: DataReg<Bits<W>>,
        s3_lz: DataReg<Bits<6>>,
        /// Step `k` shifts by `2^k` (the count's bit `k`).
        z5: Signal<Local, Bits<1>>,
        z4: Signal<Local, Bits<1>>,
        z3: Signal<Local, Bits<1>>,
        z2: Signal<Local, Bits<1>>,
        z1: Signal<Local, Bits<1>>,
        z0: Signal<Local, Bits<1>>,
        /// The word after each stage's first step.
        n5: Signal<Local, Bits<W>>,
        n3: Signal<Local, Bits<W>>,
        n1: Signal<Local, Bits<W>>,
    }
}

impl Logic for ReduceAluFpNorm {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, s1_n, s1_lz, s2_n, s2_lz, s3_n, s3_lz);
        // Stage 1: by 32, then by 16 (tested on the top quarter of either candidate).
        self.z5.next = (!self.q.val().get_bits::<2>(1).any()).into();
        self.z4.next = (!self.q.val().get_bit(2)).into();
        self.n5.next = self.w.val();
        if self.z5.val().any() {
            self.z4.next = (!self.q.val().get_bit(0)).into();
            self.n5.next = self.w.val() << 32;
        }
        self.s1_n.d.next = self.n5.val();
        if self.z4.val().any() {
            self.s1_n.d.next = self.n5.val() << 16;
        }
        self.s1_lz.d.next =
            (bit_cast::<6, 1>(self.z5.val()) << 5) | (bit_cast::<6, 1>(self.z4.val()) << 4);
        // Stage 2: by 8, then by 4.
        self.z3.next = (!self.s1_n.q.val().get_bits::<8>(56).any()).into();
        self.z2.next = (!self.s1_n.q.val().get_bits::<4>(60).any()).into();
        self.n3.next = self.s1_n.q.val();
        if self.z3.val().any() {
            self.z2.next = (!self.s1_n.q.val().get_bits::<4>(52).any()).into();
            self.n3.next = self.s1_n.q.val() << 8;
        }
        self.s2_n.d.next = self.n3.val();
        if self.z2.val().any() {
            self.s2_n.d.next = self.n3.val() << 4;
        }
        self.s2_lz.d.next = self.s1_lz.q.val()
            | (bit_cast::<6, 1>(self.z3.val()) << 3)
            | (bit_cast::<6, 1>(self.z2.val()) << 2);
        // Stage 3: by 2, then by 1.
        self.z1.next = (!self.s2_n.q.val().get_bits::<2>(62).any()).into();
        self.z0.next = (!self.s2_n.q.val().get_bit(63)).into();
        self.n1.next = self.s2_n.q.val();
        if self.z1.val().any() {
            self.z0.next = (!self.s2_n.q.val().get_bit(61)).into();
            self.n1.next = self.s2_n.q.val() << 2;
        }
        self.s3_n.d.next = self.n1.val();
        if self.z0.val().any() {
            self.s3_n.d.next = self.n1.val() << 1;
        }
        self.s3_lz.d.next = self.s2_lz.q.val()
            | (bit_cast::<6, 1>(self.z1.val()) << 1)
            | bit_cast::<6, 1>(self.z0.val());
        self.n.next = self.s3_n.q.val();
        self.lz.next = self.s3_lz.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive reference: the leading zeros counted one bit at a time.
    fn reference(w: u64) -> (u64, u64) {
        let mut lz = 0;
        while lz < 63 && w >> (63 - lz) & 1 == 0 {
            lz += 1;
        }
        (w << lz, lz)
    }

    /// `q` for `w`, one quarter at a time.
    fn quarters(w: u64) -> u64 {
        (1..4)
            .filter(|k| w >> (16 * k) & 0xFFFF != 0)
            .map(|k| 1 << (k - 1))
            .sum()
    }

    #[test]
    fn normalises_every_leading_one_position_and_zero_three_cycles_later() {
        let mut uut = ReduceAluFpNorm::default();
        uut.connect_all();
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        // Every position of the leading one, with random bits below it, then zero.
        let words: Vec<u64> = (0..64)
            .map(|k| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (1u64 << k) | (s & ((1u64 << k) - 1))
            })
            .chain([0, u64::MAX])
            .collect();
        let mut offered = std::collections::VecDeque::new();
        for &w in words.iter().chain([0u64; 3].iter()) {
            uut.w.next = w.into();
            uut.q.next = quarters(w).into();
            uut.clock.next = Clock { clk: false };
            assert!(simulate(&mut uut, 20));
            uut.clock.next = Clock { clk: true };
            assert!(simulate(&mut uut, 20));
            offered.push_back(w);
            if offered.len() == 3 {
                let w = offered.pop_front().expect("three in flight");
                let got = (uut.n.val().to_u64(), uut.lz.val().to_u64());
                assert_eq!(got, reference(w), "word {w:#x}");
            }
        }
    }
}
