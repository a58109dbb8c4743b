//! # Data memory (module `nic_dmem`)
//!
//! The NIC's data memory of `2^DB` 64-bit words in `L` banks ("Lanes" in
//! `netcoll_models::nic::model`): word `w` is in bank `w mod L`, at row `w / L`. It is kept in
//! three copies, each banked alike and all written alike: `bank_a` (read by the sequencer's
//! units: the host, element-by-element CALC, a streaming CALC's `a`), `bank_b` (a streaming
//! CALC's `b`) and `bank_tx` (the transmit engine), so that the three read in the same cycle.
//!
//! Each port has `L` lanes. A lane asks for one word; a bank serves the lane whose address
//! falls in it (with several, the highest-numbered: a streaming CALC asks for several words in
//! one bank only when they are one word, a stride 0), and a lane's data comes from the bank
//! its address fell in, a cycle later. Lane 0 is always on (a unit that reads nothing reads
//! word 0); lanes 1 .. are a streaming CALC's. The writes are lanes too: lane 0 the single
//! word of the host, the receive side or a CALC element, lanes 1 .. the other results of a
//! CALC's lane group, never two in one bank.
//!
//! With `L = 1` this is the three copies of one memory.
//!
//! # Inputs
//! - `clock`, `reset`;
//! - `a_addr`, `a_on`: the `bank_a` read of each lane (lane 0 always on);
//! - `b_addr`, `b_on`: likewise `bank_b`;
//! - `tx_addr`: the transmit engine's read (one word: every bank of `bank_tx` reads its row,
//!   the word's bank is chosen a cycle later);
//! - `wr_en`, `wr_addr`, `wr_data`: each lane's write, to all three copies.
//!
//! # Outputs
//! - `a_data`, `b_data`: each lane's word, read at the previous edge (before that edge's
//!   write: read-before-write, as `Mem`);
//! - `tx_data`: the transmit engine's word.

use super::k;
use crate::dff_setup;
use crate::prim::{Mem, Reg};
use rust_hdl::prelude::*;

crate::sub_block! {
    /// Data memory of `2^DB` words in `L = 2^LB` banks of `2^RB` rows (`RB = DB - LB`).
    pub struct NicDmem<const DB: usize, const L: usize, const LB: usize, const RB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub a_addr: [Signal<In, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        pub a_on: [Signal<In, bool>; L] = core::array::from_fn(|_| Default::default()),
        pub b_addr: [Signal<In, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        pub b_on: [Signal<In, bool>; L] = core::array::from_fn(|_| Default::default()),
        pub tx_addr: Signal<In, Bits<DB>>,
        pub wr_en: [Signal<In, bool>; L] = core::array::from_fn(|_| Default::default()),
        pub wr_addr: [Signal<In, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        pub wr_data: [Signal<In, Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        pub a_data: [Signal<Out, Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        pub b_data: [Signal<Out, Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        pub tx_data: Signal<Out, Bits<64>>,
        /// The three copies, `L` banks each.
        bank_a: [Mem<Bits<64>, RB>; L] = core::array::from_fn(|_| Default::default()),
        bank_b: [Mem<Bits<64>, RB>; L] = core::array::from_fn(|_| Default::default()),
        bank_tx: [Mem<Bits<64>, RB>; L] = core::array::from_fn(|_| Default::default()),
        /// Each lane's bank and row (reads of `a` and `b`, writes).
        a_bank: [Signal<Local, Bits<2>>; L] = core::array::from_fn(|_| Default::default()),
        a_row: [Signal<Local, Bits<RB>>; L] = core::array::from_fn(|_| Default::default()),
        b_bank: [Signal<Local, Bits<2>>; L] = core::array::from_fn(|_| Default::default()),
        b_row: [Signal<Local, Bits<RB>>; L] = core::array::from_fn(|_| Default::default()),
        w_bank: [Signal<Local, Bits<2>>; L] = core::array::from_fn(|_| Default::default()),
        w_row: [Signal<Local, Bits<RB>>; L] = core::array::from_fn(|_| Default::default()),
        tx_row: Signal<Local, Bits<RB>>,

        /// The bank each lane's word comes from, registered with the read.
        a_sel: [Reg<Bits<2>>; L] = core::array::from_fn(|_| Default::default()),
        b_sel: [Reg<Bits<2>>; L] = core::array::from_fn(|_| Default::default()),
        tx_sel: Reg<Bits<2>>,
        /// `L - 1`: the bank bits of an address.
        bank_mask: Constant<Bits<2>> = k((L - 1) as u64),
    }
}

impl<const DB: usize, const L: usize, const LB: usize, const RB: usize> Logic
    for NicDmem<DB, L, LB, RB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tx_sel);
        // A row is an address's bits above the bank's (the loop makes `LB` a literal).
        for lb in LB..(LB + 1usize) {
            self.tx_row.next = self.tx_addr.val().get_bits::<RB>(lb);
        }
        self.tx_sel.d.next = self.tx_addr.val().get_bits::<2>(0) & self.bank_mask.val();
        self.tx_data.next = 0.into();
        for j in 0..L {
            self.a_sel[j].clock.next = self.clock.val();
            self.a_sel[j].reset.next = self.reset.val();
            self.b_sel[j].clock.next = self.clock.val();
            self.b_sel[j].reset.next = self.reset.val();
            self.a_bank[j].next = self.a_addr[j].val().get_bits::<2>(0) & self.bank_mask.val();
            self.b_bank[j].next = self.b_addr[j].val().get_bits::<2>(0) & self.bank_mask.val();
            self.w_bank[j].next = self.wr_addr[j].val().get_bits::<2>(0) & self.bank_mask.val();
            for lb in LB..(LB + 1usize) {
                self.a_row[j].next = self.a_addr[j].val().get_bits::<RB>(lb);
                self.b_row[j].next = self.b_addr[j].val().get_bits::<RB>(lb);
                self.w_row[j].next = self.wr_addr[j].val().get_bits::<RB>(lb);
            }
            self.a_sel[j].d.next = self.a_bank[j].val();
            self.b_sel[j].d.next = self.b_bank[j].val();
        }
        // Each bank: the read of the lane whose address falls in it, the write likewise.
        for m in 0..L {
            self.bank_a[m].clock.next = self.clock.val();
            self.bank_b[m].clock.next = self.clock.val();
            self.bank_tx[m].clock.next = self.clock.val();
            self.bank_a[m].rd_addr.next = 0.into();
            self.bank_b[m].rd_addr.next = 0.into();
            self.bank_tx[m].rd_addr.next = self.tx_row.val();
            self.bank_a[m].wr_en.next = false;
            self.bank_a[m].wr_addr.next = 0.into();
            self.bank_a[m].wr_data.next = 0.into();
            for j in 0..L {
                if self.a_on[j].val() & (self.a_bank[j].val().index() == m) {
                    self.bank_a[m].rd_addr.next = self.a_row[j].val();
                }
                if self.b_on[j].val() & (self.b_bank[j].val().index() == m) {
                    self.bank_b[m].rd_addr.next = self.b_row[j].val();
                }
                if self.wr_en[j].val() & (self.w_bank[j].val().index() == m) {
                    self.bank_a[m].wr_en.next = true;
                    self.bank_a[m].wr_addr.next = self.w_row[j].val();
                    self.bank_a[m].wr_data.next = self.wr_data[j].val();
                }
            }
            self.bank_b[m].wr_en.next = self.bank_a[m].wr_en.val();
            self.bank_b[m].wr_addr.next = self.bank_a[m].wr_addr.val();
            self.bank_b[m].wr_data.next = self.bank_a[m].wr_data.val();
            self.bank_tx[m].wr_en.next = self.bank_a[m].wr_en.val();
            self.bank_tx[m].wr_addr.next = self.bank_a[m].wr_addr.val();
            self.bank_tx[m].wr_data.next = self.bank_a[m].wr_data.val();
            if self.tx_sel.q.val().index() == m {
                self.tx_data.next = self.bank_tx[m].rd_data.val();
            }
        }
        // Each lane's word: from the bank its address fell in.
        for j in 0..L {
            self.a_data[j].next = 0.into();
            self.b_data[j].next = 0.into();
            for m in 0..L {
                if self.a_sel[j].q.val().index() == m {
                    self.a_data[j].next = self.bank_a[m].rd_data.val();
                }
                if self.b_sel[j].q.val().index() == m {
                    self.b_data[j].next = self.bank_b[m].rd_data.val();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64 words in 4 banks.
    type Dmem = NicDmem<6, 4, 2, 4>;

    fn cycle(d: &mut Dmem) {
        d.clock.next = false.into();
        assert!(simulate(d, 50));
        d.clock.next = true.into();
        assert!(simulate(d, 50));
    }

    /// Words written one lane at a time and four at a time read back at their addresses on
    /// every port, strides 1, 3 and 0 across the banks (a flat array as the reference).
    #[test]
    fn banks_hold_words_at_their_addresses() {
        let mut d = Dmem::default();
        d.connect_all();
        let mut flat = [0u64; 64];
        d.reset.next = true;
        cycle(&mut d);
        d.reset.next = false;
        // Lane 0 writes words 0..32 one a cycle, then lanes 0..4 write four consecutive words
        // a cycle (one in each bank), from 33 on and around to 32.
        for w in 0..32u64 {
            d.wr_en[0].next = true;
            d.wr_addr[0].next = w.into();
            d.wr_data[0].next = (1000 + w).into();
            flat[w as usize] = 1000 + w;
            cycle(&mut d);
        }
        d.wr_en[0].next = false;
        for base in (33..65u64).step_by(4) {
            for j in 0..4u64 {
                let w = (base + j) % 64;
                d.wr_en[j as usize].next = true;
                d.wr_addr[j as usize].next = w.into();
                d.wr_data[j as usize].next = (5000 + w).into();
                flat[w as usize] = 5000 + w;
            }
            cycle(&mut d);
        }
        for j in 0..4 {
            d.wr_en[j].next = false;
        }
        for (start, stride) in [(0u64, 1u64), (5, 3), (9, 0), (62, 1)] {
            for j in 0..4u64 {
                let a = (start + j * stride) % 64;
                let b = (start + 7 + j * stride) % 64;
                d.a_on[j as usize].next = true;
                d.b_on[j as usize].next = true;
                d.a_addr[j as usize].next = a.into();
                d.b_addr[j as usize].next = b.into();
            }
            d.tx_addr.next = ((start + 11) % 64).into();
            cycle(&mut d);
            for j in 0..4u64 {
                let a = (start + j * stride) % 64;
                let b = (start + 7 + j * stride) % 64;
                let case = format!("start {start} stride {stride} lane {j}");
                assert_eq!(
                    d.a_data[j as usize].val().to_u64(),
                    flat[a as usize],
                    "{case}"
                );
                assert_eq!(
                    d.b_data[j as usize].val().to_u64(),
                    flat[b as usize],
                    "{case}"
                );
            }
            assert_eq!(d.tx_data.val().to_u64(), flat[(start as usize + 11) % 64]);
        }
    }

    #[test]
    fn data_memory_synthesizes() {
        let mut d = Dmem::default();
        d.connect_all();
        let m = crate::emit::emit_with_children(&d, "nic_dmem", &[], &[]).expect("emits");
        // Twelve memories: three copies of four banks of 16 rows.
        assert_eq!(m.text.matches("_words [0:15];").count(), 12, "{}", m.text);
    }
}
