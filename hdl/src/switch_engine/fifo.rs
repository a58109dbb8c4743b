//! # A show-ahead FIFO of `L`-word entries (modules `switch_engine_ipf`, `switch_engine_cmdq`, `switch_engine_opf`)
//!
//! The three queues of the payload path ([`super::SwitchEnginePayload`]): the input payload
//! FIFO, the command FIFO and the output payload FIFO. They behave as the cycle model's
//! `VecDeque`s: an entry pushed at an edge is the head from the next cycle on if the queue
//! held nothing else, and popping the head at an edge shows the next entry in the next cycle.
//!
//! The entries live in `L` memories of `2^N` 64-bit words (a RAM with a registered read, one
//! per word of an entry, so that every signal stays 64 bits wide), held twice: one copy is
//! read at the head's index and the other at the next one, so that the read address does not
//! wait for this edge's `pop` (which comes late in the cycle); after the edge the head is the
//! first copy's word, or the second's if the head was popped. The one entry neither can hold
//! is one written at the same edge (the RAMs read before they write), which is the head only
//! when the queue is otherwise empty after the pop: that entry goes to a bypass register
//! instead.
//!
//! A queue built with [`SwitchEngineFifo::in_lut_ram`] marks its memories for LUT RAM
//! ([`Mem::distributed`]): the payload path decides from the heads of the input and command
//! FIFOs, and a deep engine's queue in a block RAM would put that RAM's unregistered read (about
//! 5.6 ns on an ECP5 -6) in front of the decision. The output FIFO's head only leaves the
//! engine, so a flow may put it where it likes.
//!
//! The memories are written at the tail's index at every edge the queue is not full, pushed
//! or not: a word written without a push sits where no entry is and is overwritten by the next
//! push. So the write enable is a register (`full`), not `push`, which comes late and would
//! otherwise fan out to every RAM cell's write enable; `push` only moves the tail and the count.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; empties the queue, the memories keep their words);
//! - `push`, `push_data` (`L` words): an entry joins at the edge (never when full: the owner
//!   bounds the occupancy);
//! - `pop`: the head leaves at the edge (only while `count` is not zero).
//!
//! # Outputs
//! - `head` (`L` words): the oldest entry (meaningless while `count` is zero);
//! - `count` (12 bits; `C` = 1, only the input FIFO's is read, else none): entries held;
//! - `nonempty`: `count` is not zero, from a register of its own (it gates what the payload
//!   path issues and shows, late in the cycle).

use crate::dff_setup;
use crate::prim::{Mem, Reg};
use rust_hdl::prelude::*;

/// Width of `count`: room for the deepest queue a supported engine builds.
pub const COUNT_BITS: usize = 12;

/// The FIFO of `2^N` entries of `L` words (`C` = 1: with a `count` output).
#[derive(LogicBlock)]
pub struct SwitchEngineFifo<const L: usize, const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub push: Signal<In, bool>,
    pub push_data: [Signal<In, Bits<64>>; L],
    pub pop: Signal<In, bool>,
    pub head: [Signal<Out, Bits<64>>; L],
    pub count: [Signal<Out, Bits<COUNT_BITS>>; C],
    pub nonempty: Signal<Out, bool>,

    words: [Mem<Bits<64>, N>; L],
    words_next: [Mem<Bits<64>, N>; L],
    rd_ptr: Reg<Bits<N>>,
    wr_ptr: Reg<Bits<N>>,
    held: Reg<Bits<COUNT_BITS>>,
    held_any: Reg<bool>,
    /// All `2^N` entries are held (the tail's word is the head's: not to be written).
    full: Reg<bool>,
    /// The head is the bypass register (it was written at the last edge into an empty queue).
    use_byp: Reg<bool>,
    /// The head was popped at the last edge (the head is `words_next`'s read).
    popped: Reg<bool>,
    byp: [Reg<Bits<64>>; L],

    /// The head's index after this edge's pop; the count plus and minus one, and whether
    /// it is zero or one (worked out on the register, before `push` and `pop` choose).
    next_rd: Signal<Local, Bits<N>>,
    rd_inc: Signal<Local, Bits<N>>,
    held_inc: Signal<Local, Bits<COUNT_BITS>>,
    held_dec: Signal<Local, Bits<COUNT_BITS>>,
    held_0: Signal<Local, bool>,
    held_1: Signal<Local, bool>,
    held_top: Signal<Local, bool>,
    one_n: Constant<Bits<N>>,
    one_count: Constant<Bits<COUNT_BITS>>,
    zero_count: Constant<Bits<COUNT_BITS>>,
    /// `2^N - 1`: a push with no pop fills the queue.
    top_count: Constant<Bits<COUNT_BITS>>,
}

impl<const L: usize, const N: usize, const C: usize> Default for SwitchEngineFifo<L, N, C> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: core::array::from_fn(|_| Default::default()),
            pop: Default::default(),
            head: core::array::from_fn(|_| Default::default()),
            count: core::array::from_fn(|_| Default::default()),
            nonempty: Default::default(),
            words: core::array::from_fn(|_| Default::default()),
            words_next: core::array::from_fn(|_| Default::default()),
            rd_ptr: Default::default(),
            wr_ptr: Default::default(),
            held: Default::default(),
            held_any: Default::default(),
            full: Default::default(),
            use_byp: Default::default(),
            popped: Default::default(),
            byp: core::array::from_fn(|_| Default::default()),
            next_rd: Default::default(),
            rd_inc: Default::default(),
            held_inc: Default::default(),
            held_dec: Default::default(),
            held_0: Default::default(),
            held_1: Default::default(),
            held_top: Default::default(),
            one_n: Constant::new(1.into()),
            one_count: Constant::new(1.into()),
            zero_count: Constant::new(0.into()),
            top_count: Constant::new(((1u64 << N) - 1).into()),
        }
    }
}

impl<const L: usize, const N: usize, const C: usize> SwitchEngineFifo<L, N, C> {
    /// The queue with its memories marked for LUT RAM.
    pub fn in_lut_ram() -> Self {
        Self {
            words: core::array::from_fn(|_| Mem::distributed()),
            words_next: core::array::from_fn(|_| Mem::distributed()),
            ..Self::default()
        }
    }
}

impl<const L: usize, const N: usize, const C: usize> Logic for SwitchEngineFifo<L, N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_ptr, wr_ptr, held, held_any, full, use_byp, popped);
        for n in 0..C {
            self.count[n].next = self.held.q.val();
        }
        self.nonempty.next = self.held_any.q.val();
        self.held_inc.next = self.held.q.val() + self.one_count.val();
        self.held_dec.next = self.held.q.val() - self.one_count.val();
        self.held_0.next = self.held.q.val() == self.zero_count.val();
        self.held_1.next = self.held.q.val() == self.one_count.val();
        self.held_top.next = self.held.q.val() == self.top_count.val();
        self.rd_inc.next = self.rd_ptr.q.val() + self.one_n.val();
        self.next_rd.next = self.rd_ptr.q.val();
        if self.pop.val() {
            self.next_rd.next = self.rd_inc.val();
        }
        self.popped.d.next = self.pop.val();
        self.rd_ptr.d.next = self.next_rd.val();
        if self.push.val() & !self.pop.val() {
            self.held.d.next = self.held_inc.val();
            self.full.d.next = self.held_top.val();
        } else if self.pop.val() & !self.push.val() {
            self.held.d.next = self.held_dec.val();
            self.held_any.d.next = !self.held_1.val();
            self.full.d.next = false;
        }
        if self.push.val() {
            self.held_any.d.next = true;
        }
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + self.one_n.val();
        }
        // Empty after this edge's pop.
        self.use_byp.d.next = self.push.val()
            & ((!self.pop.val() & self.held_0.val()) | (self.pop.val() & self.held_1.val()));
        for n in 0..L {
            self.words[n].clock.next = self.clock.val();
            self.words[n].rd_addr.next = self.rd_ptr.q.val();
            self.words[n].wr_en.next = !self.full.q.val();
            self.words[n].wr_addr.next = self.wr_ptr.q.val();
            self.words[n].wr_data.next = self.push_data[n].val();
            self.words_next[n].clock.next = self.clock.val();
            self.words_next[n].rd_addr.next = self.rd_inc.val();
            self.words_next[n].wr_en.next = !self.full.q.val();
            self.words_next[n].wr_addr.next = self.wr_ptr.q.val();
            self.words_next[n].wr_data.next = self.push_data[n].val();
            self.byp[n].clock.next = self.clock.val();
            self.byp[n].reset.next = self.reset.val();
            self.byp[n].d.next = self.push_data[n].val();
            self.head[n].next = self.words[n].rd_data.val();
            if self.popped.q.val() {
                self.head[n].next = self.words_next[n].rd_data.val();
            }
            if self.use_byp.q.val() {
                self.head[n].next = self.byp[n].q.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A four-entry queue driven by random pushes and pops (never a push when full, never a
    /// pop when empty, as its owners drive it), compared every cycle with a `VecDeque`: the
    /// head, the count and `nonempty`. It fills and drains many times, so a write at the tail
    /// while full (which would overwrite the head) is caught.
    #[test]
    fn fifo_follows_a_deque_through_full_and_empty() {
        const SEED: u64 = 0x5eed_f1f0;
        let mut fifo = SwitchEngineFifo::<1, 2, 1>::default();
        fifo.connect_all();
        let mut deque: VecDeque<u64> = VecDeque::new();
        let mut rng = SEED;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let edge = |fifo: &mut SwitchEngineFifo<1, 2, 1>| {
            fifo.clock.next = Clock { clk: false };
            simulate(fifo, 20);
            fifo.clock.next = Clock { clk: true };
            simulate(fifo, 20);
        };
        fifo.reset.next = true;
        edge(&mut fifo);
        fifo.reset.next = false;
        let (mut fulls, mut empties) = (0, 0);
        for cycle in 0..4000 {
            let r = next();
            // Phases of mostly pushing and mostly popping, so that both ends are reached.
            let filling = (cycle / 40) % 2 == 0;
            let push_odds = if filling { 3 } else { 1 };
            let push = deque.len() < 4 && r % 4 < push_odds;
            let pop = !deque.is_empty() && (r >> 8) % 4 < 4 - push_odds;
            let data = next();
            fifo.push.next = push;
            fifo.push_data[0].next = data.into();
            fifo.pop.next = pop;
            fifo.clock.next = Clock { clk: false };
            simulate(&mut fifo, 20);
            let ctx = format!("seed {SEED:#x}, cycle {cycle}");
            assert_eq!(fifo.count[0].val().to_u64(), deque.len() as u64, "{ctx}");
            assert_eq!(fifo.nonempty.val(), !deque.is_empty(), "{ctx}");
            if let Some(&head) = deque.front() {
                assert_eq!(fifo.head[0].val().to_u64(), head, "{ctx}");
            }
            fulls += usize::from(deque.len() == 4);
            empties += usize::from(deque.is_empty());
            edge(&mut fifo);
            if pop {
                deque.pop_front();
            }
            if push {
                deque.push_back(data);
            }
        }
        assert!(
            fulls > 100 && empties > 100,
            "full {fulls}, empty {empties} cycles"
        );
    }
}
