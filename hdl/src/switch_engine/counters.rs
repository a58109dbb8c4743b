//! # The counter bank (module `switch_engine_counters`)
//!
//! The engine's twelve `C`-bit saturating counters (see "Counters" in
//! `netcoll_models::switch_engine`): counter 0 counts every accepted packet, counter `v`
//! (1..=11) the events with verdict `v`. One register array and one loop, instead of a
//! register and an `if` per counter.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous, clears every counter);
//! - `count`: a packet is accounted this cycle (counter 0);
//! - `tally`: an event with verdict `verdict` (4 bits) is accounted this cycle (a packet's,
//!   or an acting tick's, which is not a packet);
//! - `clear`: zero every counter (`ClearCounters`);
//! - `sel` (4 bits): the counter shown on `value` (0 for 12..15).
//!
//! # Outputs
//! - `value`: counter `sel` (as it is before this cycle's edge).

use crate::prim::Reg;
use netcoll_models::switch_engine::{Verdict, COUNTERS, COUNTER_INDEX_BITS};
use rust_hdl::prelude::*;

/// The counter bank with `C`-bit counters.
#[derive(LogicBlock)]
pub struct SwitchEngineCounters<const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub count: Signal<In, bool>,
    pub tally: Signal<In, bool>,
    pub verdict: Signal<In, Bits<{ Verdict::BITS }>>,
    pub clear: Signal<In, bool>,
    pub sel: Signal<In, Bits<COUNTER_INDEX_BITS>>,
    pub value: Signal<Out, Bits<C>>,

    counters: [Reg<Bits<C>>; COUNTERS],
    /// One bit per counter that counts this cycle: counter 0 for a packet and the verdict's
    /// for an event (for OK, code 0, just counter 0).
    hit: Signal<Local, Bits<COUNTERS>>,
    /// The verdict's bit.
    v_hot: Signal<Local, Bits<COUNTERS>>,
    /// One bit for the selected counter.
    sel_hot: Signal<Local, Bits<COUNTERS>>,
    one: Constant<Bits<COUNTERS>>,
    max: Constant<Bits<C>>,
}

impl<const C: usize> Default for SwitchEngineCounters<C> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            count: Default::default(),
            tally: Default::default(),
            verdict: Default::default(),
            clear: Default::default(),
            sel: Default::default(),
            value: Default::default(),
            counters: Default::default(),
            hit: Default::default(),
            v_hot: Default::default(),
            sel_hot: Default::default(),
            one: Constant::new(1.into()),
            max: Constant::new(netcoll_models::kit::ports::mask(C).into()),
        }
    }
}

impl<const C: usize> Logic for SwitchEngineCounters<C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.v_hot.next = self.one.val() << self.verdict.val();
        self.hit.next = 0.into();
        if self.tally.val() & self.count.val() {
            self.hit.next = self.v_hot.val() | self.one.val();
        } else if self.tally.val() {
            self.hit.next = self.v_hot.val();
        } else if self.count.val() {
            self.hit.next = self.one.val();
        }
        self.sel_hot.next = self.one.val() << self.sel.val();
        self.value.next = 0.into();
        for k in 0..COUNTERS {
            self.counters[k].clock.next = self.clock.val();
            self.counters[k].reset.next = self.reset.val();
            self.counters[k].d.next = self.counters[k].q.val();
            if self.clear.val() {
                self.counters[k].d.next = 0.into();
            } else if self.hit.val().get_bit(k) & (self.counters[k].q.val() != self.max.val()) {
                self.counters[k].d.next = self.counters[k].q.val() + 1;
            }
            if self.sel_hot.val().get_bit(k) {
                self.value.next = self.counters[k].q.val();
            }
        }
    }
}
