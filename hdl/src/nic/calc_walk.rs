//! # A CALC argument's walk (module `nic_calc_walk`)
//!
//! The address of one CALC argument (`a`, `b` or the result) over the elements of a CALC
//! of up to three dimensions, in the order of "Multi-dimensional arguments" in
//! `netcoll_models::nic`: the innermost index first. It keeps the elements still to go in
//! each dimension (the current one included) and the starts of the current row (dimension 1)
//! and plane (dimension 2), so that a step is an add and no address is multiplied (the
//! model's `Walk`). A one-dimensional CALC has `n1 = n2 = 1`. It steps a group of `g`
//! elements at a time ("Lanes": `g` = 1, or the NIC's lanes), a group never leaving its row.
//!
//! # Inputs
//! - `clock`, `reset`;
//! - `load`: start at the first element, from `base`, with `n0 × n1 × n2` elements (`n1`,
//!   `n2` at least 1);
//! - `step`: to the next group (the last stays where it is); `s0g`: the group's elements `g`
//!   times the innermost stride, `s1`, `s2`: the strides of dimensions 1 and 2, `n0`, `n1`:
//!   the counts a row and a plane restart from.
//!
//! # Outputs
//! - `addr`: the current element's address (computed in 16 bits, wrapping, and cut to `DB`);
//! - `last`: the current group is the last (no dimension has more than it);
//! - `left`: elements of the row still to go, the current one included (the group is the
//!   first `min(g, left)` of them).

use crate::dff_setup;
use crate::prim::Reg;
use rust_hdl::prelude::*;

crate::sub_block! {
    /// One argument's walk over a CALC's elements, its address cut to the `DB` bits of a data
    /// memory of `2^DB` words.
    pub struct NicCalcWalk<const DB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub load: Signal<In, bool>,
        pub step: Signal<In, bool>,
        pub base: Signal<In, Bits<16>>,
        pub s1: Signal<In, Bits<16>>,
        pub s2: Signal<In, Bits<16>>,
        pub n0: Signal<In, Bits<16>>,
        pub n1: Signal<In, Bits<16>>,
        pub n2: Signal<In, Bits<16>>,
        pub g: Signal<In, Bits<16>>,
        pub s0g: Signal<In, Bits<16>>,
        pub addr: Signal<Out, Bits<DB>>,
        pub last: Signal<Out, bool>,
        pub left: Signal<Out, Bits<16>>,
        /// Elements still to go in dimensions 0, 1 and 2, the current one included.
        left0: Reg<Bits<16>>,
        left1: Reg<Bits<16>>,
        left2: Reg<Bits<16>>,
        /// The current address, and the starts of the current row and plane.
        cur: Reg<Bits<16>>,
        row: Reg<Bits<16>>,
        plane: Reg<Bits<16>>,
        /// Dimension `k` has elements after the current group (dimension 0) or element.
        more0: Signal<Local, bool>,
        more1: Signal<Local, bool>,
        more2: Signal<Local, bool>,
        one: Constant<Bits<16>> = super::k(1),
    }
}

impl<const DB: usize> Logic for NicCalcWalk<DB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, left0, left1, left2, cur, row, plane);
        self.more0.next = self.left0.q.val() > self.g.val();
        self.more1.next = self.left1.q.val() > self.one.val();
        self.more2.next = self.left2.q.val() > self.one.val();
        self.addr.next = self.cur.q.val().get_bits::<DB>(0);
        self.last.next = !self.more0.val() & !self.more1.val() & !self.more2.val();
        self.left.next = self.left0.q.val();
        if self.load.val() {
            self.left0.d.next = self.n0.val();
            self.left1.d.next = self.n1.val();
            self.left2.d.next = self.n2.val();
            self.cur.d.next = self.base.val();
            self.row.d.next = self.base.val();
            self.plane.d.next = self.base.val();
        } else if self.step.val() {
            if self.more0.val() {
                self.left0.d.next = self.left0.q.val() - self.g.val();
                self.cur.d.next = self.cur.q.val() + self.s0g.val();
            } else if self.more1.val() {
                self.left0.d.next = self.n0.val();
                self.left1.d.next = self.left1.q.val() - 1;
                self.row.d.next = self.row.q.val() + self.s1.val();
                self.cur.d.next = self.row.q.val() + self.s1.val();
            } else if self.more2.val() {
                self.left0.d.next = self.n0.val();
                self.left1.d.next = self.n1.val();
                self.left2.d.next = self.left2.q.val() - 1;
                self.plane.d.next = self.plane.q.val() + self.s2.val();
                self.row.d.next = self.plane.q.val() + self.s2.val();
                self.cur.d.next = self.plane.q.val() + self.s2.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The addresses of `n0 × n1 × n2` elements from `base`, written as the nested loops of the
    /// specification (a naive reference, independent of the walk's counters).
    fn reference(base: u64, s: [u64; 3], n: [u64; 3]) -> Vec<u64> {
        let mut v = vec![];
        for i2 in 0..n[2] {
            for i1 in 0..n[1] {
                for i0 in 0..n[0] {
                    v.push((base + i0 * s[0] + i1 * s[1] + i2 * s[2]) & 0xFFF);
                }
            }
        }
        v
    }

    /// A data memory of 4096 words.
    type Walk = NicCalcWalk<12>;

    fn cycle(w: &mut Walk) {
        w.clock.next = false.into();
        assert!(simulate(w, 50));
        w.clock.next = true.into();
        assert!(simulate(w, 50));
    }

    /// Walks every element (stepping with idle cycles in between, as a stalled stream does)
    /// and compares the addresses and `last` with the nested loops.
    fn walk(base: u64, s: [u64; 3], n: [u64; 3]) {
        walk_groups(base, s, n, 1);
    }

    /// As [`walk`], a group of `g` elements a step: the group's first element is the walk's
    /// address, its size `min(g, left)`, and the groups cover the nested loops' order.
    fn walk_groups(base: u64, s: [u64; 3], n: [u64; 3], g: u64) {
        let mut w = Walk::default();
        w.connect_all();
        w.g.next = g.into();
        w.s0g.next = (g * s[0]).into();
        w.base.next = base.into();
        for (port, v) in [(&mut w.s1, s[1]), (&mut w.s2, s[2])] {
            port.next = v.into();
        }
        for (port, v) in [(&mut w.n0, n[0]), (&mut w.n1, n[1]), (&mut w.n2, n[2])] {
            port.next = v.into();
        }
        w.load.next = true;
        cycle(&mut w);
        w.load.next = false;
        let all = reference(base, s, n);
        // The groups: each row of `n0` cut into runs of `g`.
        let mut want = vec![];
        for row in all.chunks(n[0] as usize) {
            for group in row.chunks(g as usize) {
                want.push((group[0], group.len() as u64));
            }
        }
        for (i, &(addr, size)) in want.iter().enumerate() {
            let case = format!("base {base} strides {s:?} counts {n:?} group {g}, group {i}");
            assert_eq!(w.addr.val().to_u64(), addr, "{case}");
            assert_eq!(w.left.val().to_u64().min(g), size, "{case}");
            assert_eq!(w.last.val(), i + 1 == want.len(), "{case}");
            w.step.next = i % 3 != 1;
            cycle(&mut w);
            if i % 3 == 1 {
                // An idle cycle changes nothing; then the step.
                assert_eq!(w.addr.val().to_u64(), addr, "{case} (idle)");
                w.step.next = true;
                cycle(&mut w);
            }
            w.step.next = false;
        }
        // The last group stays where it is.
        assert_eq!(w.addr.val().to_u64(), want.last().unwrap().0);
        assert!(w.last.val());
    }

    #[test]
    fn walks_follow_the_nested_loops() {
        walk(100, [1, 0, 0], [5, 1, 1]);
        walk(7, [2, 9, 100], [3, 4, 2]);
        // Strides 0 repeat a row or a plane; a row of one element.
        walk(40, [1, 0, 3], [3, 2, 3]);
        walk(40, [5, 1, 0], [1, 4, 2]);
        // Addresses wrap at 16 bits, then are cut to the memory's 12.
        walk(0xFFF0, [4, 0x100, 0], [6, 2, 1]);
        walk(0x0FF0, [4, 0x100, 0], [6, 2, 1]);
    }

    #[test]
    fn groups_never_leave_their_row() {
        walk_groups(100, [1, 0, 0], [10, 1, 1], 4);
        walk_groups(7, [3, 50, 1000], [5, 3, 2], 4);
        walk_groups(7, [1, 9, 100], [4, 2, 2], 4);
        walk_groups(40, [0, 0, 3], [3, 2, 3], 2);
        walk_groups(0xFFF0, [5, 0x100, 0], [7, 2, 1], 2);
    }
}
