//! # Shift right, keeping a sticky bit (module `reduce_alu_fp_shr`)
//!
//! `r = w >> d` and `lost`, whether any one bit was shifted out, in two register stages. The
//! floating-point datapath uses one to align SUM's smaller operand and one to bring a
//! subnormal result to its position before rounding.
//!
//! # Inputs
//! - `clock` (no register resets: the datapath's flags, outside, tell when `r`, `lost` count);
//! - `w` (64 bits): the word;
//! - `d` (7 bits): the distance; 64 or more shifts everything out.
//!
//! # Outputs
//! - `r` (64 bits): `w >> d` (0 for `d >= 64`);
//! - `lost`: a one bit of `w` is below bit `d` (for `d >= 64`: `w` is not zero).
//!
//! Both are registers, two cycles after `w` and `d` (offered at edge `t`, out after edge
//! `t + 1`).
//!
//! # Structure
//! Stage 1 shifts by whole bytes (`d`'s bits 6 to 3) and ORs the bytes that fall out; stage 2
//! shifts by the rest (bits 2 to 0) and ORs the bits that fall out.

use netcoll_models::reduce_alu::WORD_BITS;
use rust_hdl::prelude::*;

use crate::prim::DataReg;

const W: usize = WORD_BITS;

/// The emitted module's name.
pub const MODULE: &str = "reduce_alu_fp_shr";

crate::sub_block! {
    /// The two-stage shifter.
    pub struct ReduceAluFpShr {
        pub clock: Signal<In, Clock>,
        pub w: Signal<In, Bits<W>>,
        pub d: Signal<In, Bits<7>>,
        pub r: Signal<Out, Bits<W>>,
        pub lost: Signal<Out, bool>,
        /// Stage 1: shifted by whole bytes; what fell out; the distance left.
        s1_r: DataReg<Bits<W>>,
        s1_lost: DataReg<bool>,
        s1_d: DataReg<Bits<3>>,
        s2_r: DataReg<Bits<W>>,
        s2_lost: DataReg<bool>,
        bytes: Signal<Local, Bits<7>>,
        byte_mask: Constant<Bits<7>> = Constant::new(Bits::<7>::from(0x78u64)),
        ones: Constant<Bits<W>> = Constant::new(Bits::<W>::from(u64::MAX)),
    }
}

impl Logic for ReduceAluFpShr {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, s1_r, s1_lost, s1_d, s2_r, s2_lost);
        self.bytes.next = self.d.val() & self.byte_mask.val();
        self.s1_r.d.next = self.w.val() >> self.bytes.val();
        self.s1_lost.d.next = (self.w.val() & !(self.ones.val() << self.bytes.val())).any();
        self.s1_d.d.next = self.d.val().get_bits::<3>(0);
        self.s2_r.d.next = self.s1_r.q.val() >> self.s1_d.q.val();
        self.s2_lost.d.next = self.s1_lost.q.val()
            | (self.s1_r.q.val() & !(self.ones.val() << self.s1_d.q.val())).any();
        self.r.next = self.s2_r.q.val();
        self.lost.next = self.s2_lost.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive reference, bit by bit.
    fn reference(w: u64, d: u64) -> (u64, bool) {
        let r = if d >= 64 { 0 } else { w >> d };
        let lost = (0..d.min(64)).any(|k| w >> k & 1 == 1);
        (r, lost)
    }

    #[test]
    fn shifts_by_every_distance_and_keeps_what_falls_out_two_cycles_later() {
        let mut uut = ReduceAluFpShr::default();
        uut.connect_all();
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        let mut offers = vec![];
        for d in 0..128u64 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // A random word, one with a single low one bit (lost or not by one place), zero.
            offers.extend([(s, d), (1u64 << (d % 64), d), (0, d), (u64::MAX, d)]);
        }
        let mut offered = std::collections::VecDeque::new();
        for &(w, d) in offers.iter().chain([(0, 0); 2].iter()) {
            uut.w.next = w.into();
            uut.d.next = d.into();
            uut.clock.next = Clock { clk: false };
            assert!(simulate(&mut uut, 20));
            uut.clock.next = Clock { clk: true };
            assert!(simulate(&mut uut, 20));
            offered.push_back((w, d));
            if offered.len() == 2 {
                let (w, d) = offered.pop_front().expect("two in flight");
                let got = (uut.r.val().to_u64(), uut.lost.val());
                assert_eq!(got, reference(w, d), "w, d = {w:#x}, {d}");
            }
        }
    }
}
