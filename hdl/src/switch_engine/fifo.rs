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
    one_n: Constant<Bits<N>>,
    one_count: Constant<Bits<COUNT_BITS>>,
    zero_count: Constant<Bits<COUNT_BITS>>,
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
            use_byp: Default::default(),
            popped: Default::default(),
            byp: core::array::from_fn(|_| Default::default()),
            next_rd: Default::default(),
            rd_inc: Default::default(),
            held_inc: Default::default(),
            held_dec: Default::default(),
            held_0: Default::default(),
            held_1: Default::default(),
            one_n: Constant::new(1.into()),
            one_count: Constant::new(1.into()),
            zero_count: Constant::new(0.into()),
        }
    }
}

impl<const L: usize, const N: usize, const C: usize> Logic for SwitchEngineFifo<L, N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_ptr, wr_ptr, held, held_any, use_byp, popped);
        for n in 0..C {
            self.count[n].next = self.held.q.val();
        }
        self.nonempty.next = self.held_any.q.val();
        self.held_inc.next = self.held.q.val() + self.one_count.val();
        self.held_dec.next = self.held.q.val() - self.one_count.val();
        self.held_0.next = self.held.q.val() == self.zero_count.val();
        self.held_1.next = self.held.q.val() == self.one_count.val();
        self.rd_inc.next = self.rd_ptr.q.val() + self.one_n.val();
        self.next_rd.next = self.rd_ptr.q.val();
        if self.pop.val() {
            self.next_rd.next = self.rd_inc.val();
        }
        self.popped.d.next = self.pop.val();
        self.rd_ptr.d.next = self.next_rd.val();
        if self.push.val() & !self.pop.val() {
            self.held.d.next = self.held_inc.val();
        } else if self.pop.val() & !self.push.val() {
            self.held.d.next = self.held_dec.val();
            self.held_any.d.next = !self.held_1.val();
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
            self.words[n].wr_en.next = self.push.val();
            self.words[n].wr_addr.next = self.wr_ptr.q.val();
            self.words[n].wr_data.next = self.push_data[n].val();
            self.words_next[n].clock.next = self.clock.val();
            self.words_next[n].rd_addr.next = self.rd_inc.val();
            self.words_next[n].wr_en.next = self.push.val();
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
