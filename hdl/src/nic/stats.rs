//! # The statistics bank (module `nic_stats`)
//!
//! One 32-bit wrapping counter per [`Stat`] code of `netcoll_models::nic`: a register array and
//! one loop. Every unit that counts something raises the bit of its statistic in a one-hot
//! vector; the parent ORs the vectors (at most one statistic is counted per cycle, but the bank
//! would count several). The vector is registered and counted at the next edge, so that the
//! decisions that count end at one register, not at the enables of every counter; `READ_STAT`
//! cannot tell: it reads in `HostDecode`, at least two cycles after any state but `Idle` (a
//! host command is taken from `Idle` only, and no unit counts while one is taken).
//!
//! # Inputs
//! - `clock`, `reset` (synchronous, clears every counter);
//! - `hits` ([`STATS`] bits): bit `Stat::X.code()` increments counter `X` at the next edge;
//! - `sel` (3 bits): the counter shown on `value` (`READ_STAT`'s index).
//!
//! # Outputs
//! - `value` (32 bits): counter `sel`, as before this cycle's edge.

use super::k;
use crate::prim::Reg;
use netcoll_models::nic::{Stat, STATS};
use rust_hdl::prelude::*;

/// Width of a statistics counter (see "Resources" in `netcoll_models::nic`).
pub const STAT_BITS: usize = 32;
/// Width of a statistic's index.
const SEL_BITS: usize = Stat::BITS;

/// The one-hot vector that counts `s`.
pub fn hit(s: Stat) -> Constant<Bits<STATS>> {
    k(1 << s.code())
}

crate::sub_block! {
    /// The statistics bank.
    pub struct NicStats {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub hits: Signal<In, Bits<STATS>>,
        pub sel: Signal<In, Bits<SEL_BITS>>,
        pub value: Signal<Out, Bits<STAT_BITS>>,
        counters: [Reg<Bits<STAT_BITS>>; STATS],
        /// This cycle's `hits`, counted at the next edge.
        pending: Reg<Bits<STATS>>,
        /// One bit for the selected counter.
        sel_hot: Signal<Local, Bits<STATS>>,
        one: Constant<Bits<STATS>> = k(1),
    }
}

impl Logic for NicStats {
    #[hdl_gen]
    fn update(&mut self) {
        self.pending.clock.next = self.clock.val();
        self.pending.reset.next = self.reset.val();
        self.pending.d.next = self.hits.val();
        self.sel_hot.next = self.one.val() << self.sel.val();
        self.value.next = self.counters[0].q.val();
        for s in 0..STATS {
            self.counters[s].clock.next = self.clock.val();
            self.counters[s].reset.next = self.reset.val();
            self.counters[s].d.next = self.counters[s].q.val();
            if self.pending.q.val().get_bit(s) {
                self.counters[s].d.next = self.counters[s].q.val() + 1;
            }
            if self.sel_hot.val().get_bit(s) {
                self.value.next = self.counters[s].q.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle(b: &mut NicStats, hits: u64, sel: u64, reset: bool) -> u64 {
        b.hits.next = hits.into();
        b.sel.next = sel.into();
        b.reset.next = reset;
        b.clock.next = Clock { clk: false };
        assert!(simulate(b, 100));
        let v = b.value.val().to_u64();
        b.clock.next = Clock { clk: true };
        assert!(simulate(b, 100));
        v
    }

    #[test]
    fn each_statistic_counts_its_own_hits() {
        let mut b = NicStats::default();
        b.connect_all();
        cycle(&mut b, 0, 0, true);
        let mut want = [0u64; STATS];
        // The hit of the cycle before, counted at this cycle's edge.
        let mut late: Option<usize> = None;
        let mut x = 12345u64;
        for _ in 0..500 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let s = Stat::ALL[(x >> 40) as usize % STATS];
            let counts = (x >> 20) & 1 == 1;
            let sel = (x >> 50) % STATS as u64;
            let hits = if counts { 1 << s.code() } else { 0 };
            assert_eq!(cycle(&mut b, hits, sel, false), want[sel as usize]);
            if let Some(l) = late {
                want[l] += 1;
            }
            late = counts.then_some(s as usize);
        }
        if let Some(l) = late {
            cycle(&mut b, 0, 0, false);
            want[l] += 1;
        }
        assert!(want.iter().all(|&w| w > 0));
        for (s, w) in want.iter().enumerate() {
            assert_eq!(cycle(&mut b, 0, s as u64, false), *w);
        }
        cycle(&mut b, 0, 0, true);
        assert_eq!(cycle(&mut b, 0, 3, false), 0, "reset clears");
        assert_eq!(hit(Stat::CqStall).val().to_u64(), 1 << Stat::CqStall.code());
    }
}
