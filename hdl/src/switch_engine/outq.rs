//! # The output queue (module `switch_engine_outq`)
//!
//! The packets the engine sends wait here for `out_ready` (see "Timing" in
//! `netcoll_models::switch_engine`). First-word-fall-through: with the queue empty, the packet
//! in the engine's stage-4 output register is shown as it arrives and, if taken, never enters
//! the queue, so with `out_ready` high the engine's timing is what it was without a queue.
//! A packet with payload always enters the queue: its beats are still in the payload path
//! when it arrives, so it cannot leave in that cycle, and the enqueue does not wait for the
//! payload path's last-beat decision.
//! Eight slots in registers, a tail pointer, the slot after the head's (one-hot, `n_hot`) and a
//! count; the engine's `room` keeps the count from overflowing, so a push never finds the queue
//! full. The head's fields are also kept in registers of their own (`h_*`), loaded as the slots
//! are, so that what is shown does not come through an 8-way mux late in the cycle; so are
//! whether the slots hold a packet (`busy`) and whether the head has payload (`h_nz`), which
//! decide what is shown. The next head is picked by `n_hot` straight from its register, and
//! whether it has payload from a flag per slot (`q_nz`) rather than from its length: on the
//! floating-point engine, whose datapaths spread the block over the chip, the head pointer's
//! increment, its decode, the 8-way mux of the lengths and their OR were six LUTs deep (110.6
//! MHz on seed 1). For the same reason a held head's payload fitting in one beat is a flag too
//! (`h_single`, `q_single`), and the held head leaves on `ready`, `busy` and `gate` alone,
//! `gate` itself a function of registers: a packet with payload is never shown before it is
//! held (the payload path has none of its beats before it arrives here, and its beats leave
//! with it), so the packet shown from the output register leaves on `ready` if it has no
//! payload, and the decision no longer runs through what is shown (`head_nz`, the payload
//! path's `show`: `busy` → six LUTs → `h_meta`, 112.4 MHz on seed 2).
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; empties the queue);
//! - `push`: the stage-4 output register holds a packet, with fields `in_ports` (R),
//!   `in_cgid` (G), `in_tid` (2), `in_op` (3), `in_meta` (15: its payload's length, operation
//!   and type);
//! - `in_nz` (`N` = 1 on a reducing engine, else none): `in_meta`'s length is not zero (from
//!   a register of its own);
//! - `ready`: the consumer takes the packet shown (the engine's `out_ready`);
//! - `gate` (`N` = 1 on a reducing engine, else none): the held head (`busy`) may leave, for it
//!   has no payload or its last beat is shown (the payload path's `leave_gate`, from registers).
//!
//! # Outputs
//! - `out_valid`, `out_ports`, `out_cgid`, `out_tid`, `out_op`, `out_meta`: the head (all zero when
//!   `out_valid` is low);
//! - `head_nz` (`N` = 1 on a reducing engine): the head has payload (`out_valid` and its length not zero; from registers but
//!   for the output register's length);
//! - `count` (4): packets held in the slots (not counting the one in the output register);
//! - `taken`: the packet shown leaves this cycle (from a slot, or the output register's packet
//!   shown as it arrives), so `count` next cycle is `count + push - taken`;
//! - `held_plen` (8, `N` = 1 on a reducing engine): the payload length of the oldest packet in
//!   the slots, from its register (meaningless while `count` is zero); a packet with payload
//!   is shown with its beats only from there;
//! - `head_held` (`N` = 1): the slots hold a packet (`busy`), and `head_held_nz`,
//!   `head_held_single`: the oldest has payload, and it fits in one beat (registers;
//!   meaningless while `head_held` is low).
//!
//! # Parameters
//! `R` the radix, `G` the CGID's bits, `N` 1 on a reducing engine (else 0); and, set by the
//! engine's builder on a reducing engine ([`SwitchEngineOutq::set_lanes`]), its lanes (words a
//! beat, a power of two), which decide `head_held_single`.

use crate::dff_setup;
use crate::prim::{DataReg, Reg};
use netcoll_models::switch_engine::{OP_BITS, OUT_QUEUE, TID_BITS};
use rust_hdl::prelude::*;

/// Bits of a slot index.
const SLOT_BITS: usize = 3;
/// Slot 1, one-hot: the slot after the head's when the queue is reset.
const SLOT_1_HOT: u64 = 0b10;
/// Bits of the count (0..=8).
const COUNT_BITS: usize = 4;

/// Width of a packet's payload shape: length (8), operation (4) at bit 8, type (3) at bit 12.
pub const META_BITS: usize = 15;

/// The output queue for radix `R` and `G`-bit CGIDs (`N`: a reducing engine's).
#[derive(LogicBlock)]
pub struct SwitchEngineOutq<const R: usize, const G: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub push: Signal<In, bool>,
    pub in_ports: Signal<In, Bits<R>>,
    pub in_cgid: Signal<In, Bits<G>>,
    pub in_tid: Signal<In, Bits<TID_BITS>>,
    pub in_op: Signal<In, Bits<OP_BITS>>,
    pub in_meta: Signal<In, Bits<META_BITS>>,
    pub in_nz: [Signal<In, bool>; N],
    pub ready: Signal<In, bool>,
    pub gate: [Signal<In, bool>; N],
    pub out_valid: Signal<Out, bool>,
    pub out_ports: Signal<Out, Bits<R>>,
    pub out_cgid: Signal<Out, Bits<G>>,
    pub out_tid: Signal<Out, Bits<TID_BITS>>,
    pub out_op: Signal<Out, Bits<OP_BITS>>,
    pub out_meta: Signal<Out, Bits<META_BITS>>,
    pub head_nz: [Signal<Out, bool>; N],
    pub count: Signal<Out, Bits<COUNT_BITS>>,
    pub taken: Signal<Out, bool>,
    pub held_plen: [Signal<Out, Bits<8>>; N],
    pub head_held: [Signal<Out, bool>; N],
    pub head_held_nz: [Signal<Out, bool>; N],
    pub head_held_single: [Signal<Out, bool>; N],

    q_ports: [Reg<Bits<R>>; OUT_QUEUE],
    q_cgid: [Reg<Bits<G>>; OUT_QUEUE],
    q_tid: [Reg<Bits<TID_BITS>>; OUT_QUEUE],
    q_op: [Reg<Bits<OP_BITS>>; OUT_QUEUE],
    q_meta: [Reg<Bits<META_BITS>>; OUT_QUEUE],
    h_ports: Reg<Bits<R>>,
    h_cgid: Reg<Bits<G>>,
    h_tid: Reg<Bits<TID_BITS>>,
    h_op: Reg<Bits<OP_BITS>>,
    h_meta: Reg<Bits<META_BITS>>,
    h_nz: [Reg<bool>; N],
    /// Per slot, whether its packet has payload (bit `k` for slot `k`) …
    q_nz: [Reg<Bits<OUT_QUEUE>>; N],
    /// … and whether that payload fits in one beat; the head's, `h_single`.
    q_single: [Reg<Bits<OUT_QUEUE>>; N],
    h_single: [Reg<bool>; N],
    /// The slot after the head's, one-hot (slot 1's after `reset`; a pop rotates it one slot on).
    n_hot: DataReg<Bits<OUT_QUEUE>>,
    tail: Reg<Bits<SLOT_BITS>>,
    held: Reg<Bits<COUNT_BITS>>,
    /// The slots hold a packet: the head is shown rather than the output register.
    busy: Reg<bool>,

    /// The consumer takes the packet shown and (a reducing engine) it is its last beat …
    go: Signal<Local, bool>,
    /// … from a slot;
    pop: Signal<Local, bool>,
    /// the output register's packet goes into a slot.
    enq: Signal<Local, bool>,
    /// The output register's packet has payload; it fits in one beat.
    push_nz: Signal<Local, bool>,
    push_single: [Signal<Local, bool>; N],
    /// The count and pointers moved on, worked out before `enq` and `pop` choose.
    held_inc: Signal<Local, Bits<COUNT_BITS>>,
    held_dec: Signal<Local, Bits<COUNT_BITS>>,
    tail_inc: Signal<Local, Bits<SLOT_BITS>>,
    /// The slot after the head's: its fields, and whether it holds a packet.
    n_ports: Signal<Local, Bits<R>>,
    n_cgid: Signal<Local, Bits<G>>,
    n_tid: Signal<Local, Bits<TID_BITS>>,
    n_op: Signal<Local, Bits<OP_BITS>>,
    n_meta: Signal<Local, Bits<META_BITS>>,
    two_held: Signal<Local, bool>,
    /// One bit for the tail's slot.
    tail_hot: Signal<Local, Bits<OUT_QUEUE>>,
    one_slot: Constant<Bits<SLOT_BITS>>,
    one_count: Constant<Bits<COUNT_BITS>>,
    one_hot: Constant<Bits<OUT_QUEUE>>,
    slot_1_hot: Constant<Bits<OUT_QUEUE>>,
    last_slot: Constant<Bits<SLOT_BITS>>,
    /// A length's bits above `2 lanes - 1`, the bit `lanes` and the bits below it.
    above_two_lanes: Constant<Bits<8>>,
    lanes_8: Constant<Bits<8>>,
    below_lanes: Constant<Bits<8>>,
}

impl<const R: usize, const G: usize, const N: usize> Default for SwitchEngineOutq<R, G, N> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            in_ports: Default::default(),
            in_cgid: Default::default(),
            in_tid: Default::default(),
            in_op: Default::default(),
            in_meta: Default::default(),
            in_nz: core::array::from_fn(|_| Default::default()),
            ready: Default::default(),
            gate: core::array::from_fn(|_| Default::default()),
            out_valid: Default::default(),
            out_ports: Default::default(),
            out_cgid: Default::default(),
            out_tid: Default::default(),
            out_op: Default::default(),
            out_meta: Default::default(),
            head_nz: core::array::from_fn(|_| Default::default()),
            count: Default::default(),
            taken: Default::default(),
            held_plen: core::array::from_fn(|_| Default::default()),
            head_held: core::array::from_fn(|_| Default::default()),
            head_held_nz: core::array::from_fn(|_| Default::default()),
            head_held_single: core::array::from_fn(|_| Default::default()),
            q_ports: Default::default(),
            q_cgid: Default::default(),
            q_tid: Default::default(),
            q_op: Default::default(),
            q_meta: Default::default(),
            h_ports: Default::default(),
            h_cgid: Default::default(),
            h_tid: Default::default(),
            h_op: Default::default(),
            h_meta: Default::default(),
            h_nz: core::array::from_fn(|_| Default::default()),
            q_nz: core::array::from_fn(|_| Default::default()),
            q_single: core::array::from_fn(|_| Default::default()),
            h_single: core::array::from_fn(|_| Default::default()),
            n_hot: Default::default(),
            tail: Default::default(),
            held: Default::default(),
            busy: Default::default(),
            go: Default::default(),
            pop: Default::default(),
            enq: Default::default(),
            push_nz: Default::default(),
            push_single: core::array::from_fn(|_| Default::default()),
            held_inc: Default::default(),
            held_dec: Default::default(),
            tail_inc: Default::default(),
            n_ports: Default::default(),
            n_cgid: Default::default(),
            n_tid: Default::default(),
            n_op: Default::default(),
            n_meta: Default::default(),
            two_held: Default::default(),
            tail_hot: Default::default(),
            one_slot: Constant::new(1.into()),
            one_count: Constant::new(1.into()),
            one_hot: Constant::new(1.into()),
            slot_1_hot: Constant::new(SLOT_1_HOT.into()),
            last_slot: Constant::new(((OUT_QUEUE - 1) as u64).into()),
            above_two_lanes: Constant::new(0xfe.into()),
            lanes_8: Constant::new(1.into()),
            below_lanes: Constant::new(0.into()),
        }
    }
}

impl<const R: usize, const G: usize, const N: usize> SwitchEngineOutq<R, G, N> {
    /// A reducing engine's lanes (words a beat, a power of two; 1 by default), which decide
    /// whether a payload fits in one beat; before `connect_all`.
    pub fn set_lanes(&mut self, lanes: usize) {
        let l = lanes as u64;
        self.above_two_lanes = Constant::new((!(2 * l - 1) & 0xff).into());
        self.lanes_8 = Constant::new(l.into());
        self.below_lanes = Constant::new((l - 1).into());
    }
}

impl<const R: usize, const G: usize, const N: usize> Logic for SwitchEngineOutq<R, G, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tail, held, busy, h_ports, h_cgid, h_tid, h_op, h_meta);
        self.n_hot.clock.next = self.clock.val();
        self.count.next = self.held.q.val();
        self.held_inc.next = self.held.q.val() + self.one_count.val();
        self.held_dec.next = self.held.q.val() - self.one_count.val();
        self.tail_inc.next = self.tail.q.val() + self.one_slot.val();
        self.two_held.next = self.held.q.val() > self.one_count.val();
        self.tail_hot.next = self.one_hot.val() << self.tail.q.val();
        self.out_valid.next = self.busy.q.val() | self.push.val();
        self.push_nz.next = false;
        for n in 0..N {
            self.push_nz.next = self.in_nz[n].val();
        }
        for n in 0..N {
            // `plen <= lanes`: below `2 lanes`, and not `lanes` plus something below it.
            self.push_single[n].next =
                !(self.in_meta.val().get_bits::<8>(0) & self.above_two_lanes.val()).any()
                    & !((self.in_meta.val().get_bits::<8>(0) & self.lanes_8.val()).any()
                        & (self.in_meta.val().get_bits::<8>(0) & self.below_lanes.val()).any());
        }
        for n in 0..N {
            self.h_nz[n].clock.next = self.clock.val();
            self.h_nz[n].reset.next = self.reset.val();
            self.h_nz[n].d.next = self.h_nz[n].q.val();
            self.q_nz[n].clock.next = self.clock.val();
            self.q_nz[n].reset.next = self.reset.val();
            self.h_single[n].clock.next = self.clock.val();
            self.h_single[n].reset.next = self.reset.val();
            self.h_single[n].d.next = self.h_single[n].q.val();
            self.q_single[n].clock.next = self.clock.val();
            self.q_single[n].reset.next = self.reset.val();
            self.head_held[n].next = self.busy.q.val();
            self.head_held_nz[n].next = self.h_nz[n].q.val();
            self.head_held_single[n].next = self.h_single[n].q.val();
            // (One assignment from inputs and registers: a continuous `assign`, outside the
            // `always` block that reads `gate`, which depends on it.)
            self.head_nz[n].next = (self.busy.q.val() & self.h_nz[n].q.val())
                | (!self.busy.q.val() & self.push.val() & self.in_nz[n].val());
        }
        self.out_ports.next = 0.into();
        self.out_cgid.next = 0.into();
        self.out_tid.next = 0.into();
        self.out_op.next = 0.into();
        self.out_meta.next = 0.into();
        if self.busy.q.val() {
            self.out_meta.next = self.h_meta.q.val();
            self.out_ports.next = self.h_ports.q.val();
            self.out_cgid.next = self.h_cgid.q.val();
            self.out_tid.next = self.h_tid.q.val();
            self.out_op.next = self.h_op.q.val();
        } else if self.push.val() {
            self.out_meta.next = self.in_meta.val();
            self.out_ports.next = self.in_ports.val();
            self.out_cgid.next = self.in_cgid.val();
            self.out_tid.next = self.in_tid.val();
            self.out_op.next = self.in_op.val();
        }
        // The held head leaves on `ready` and `gate`; the output register's packet, shown
        // when nothing is held, on `ready` if it has no payload.
        self.go.next = self.ready.val();
        for n in 0..N {
            self.go.next = self.ready.val() & self.gate[n].val();
        }
        self.pop.next = self.busy.q.val() & self.go.val();
        self.taken.next = self.pop.val()
            | (!self.busy.q.val() & self.push.val() & self.ready.val() & !self.push_nz.val());
        // Behind a waiting head, or shown and not taken; a packet with payload always (its
        // beats are still in the payload path, so it cannot leave in the cycle it arrives,
        // and the enqueue need not wait for the decision that says so).
        self.enq.next =
            self.push.val() & (self.busy.q.val() | !self.ready.val() | self.push_nz.val());
        self.n_ports.next = 0.into();
        self.n_cgid.next = 0.into();
        self.n_tid.next = 0.into();
        self.n_op.next = 0.into();
        self.n_meta.next = 0.into();
        for k in 0..OUT_QUEUE {
            self.q_ports[k].clock.next = self.clock.val();
            self.q_cgid[k].clock.next = self.clock.val();
            self.q_tid[k].clock.next = self.clock.val();
            self.q_op[k].clock.next = self.clock.val();
            self.q_meta[k].clock.next = self.clock.val();
            self.q_meta[k].reset.next = self.reset.val();
            self.q_meta[k].d.next = self.q_meta[k].q.val();
            self.q_ports[k].reset.next = self.reset.val();
            self.q_cgid[k].reset.next = self.reset.val();
            self.q_tid[k].reset.next = self.reset.val();
            self.q_op[k].reset.next = self.reset.val();
            self.q_ports[k].d.next = self.q_ports[k].q.val();
            self.q_cgid[k].d.next = self.q_cgid[k].q.val();
            self.q_tid[k].d.next = self.q_tid[k].q.val();
            self.q_op[k].d.next = self.q_op[k].q.val();
            if self.enq.val() & self.tail_hot.val().get_bit(k) {
                self.q_ports[k].d.next = self.in_ports.val();
                self.q_cgid[k].d.next = self.in_cgid.val();
                self.q_tid[k].d.next = self.in_tid.val();
                self.q_op[k].d.next = self.in_op.val();
                self.q_meta[k].d.next = self.in_meta.val();
            }
            if self.n_hot.q.val().get_bit(k) {
                self.n_ports.next = self.q_ports[k].q.val();
                self.n_cgid.next = self.q_cgid[k].q.val();
                self.n_tid.next = self.q_tid[k].q.val();
                self.n_op.next = self.q_op[k].q.val();
                self.n_meta.next = self.q_meta[k].q.val();
            }
        }
        // The next head: after a pop the slot behind it, or the output register's packet if
        // the queue is empty after the pop and it is enqueued; without a pop, that packet if
        // it is enqueued into an empty queue (`pop` comes late: it chooses last).
        if self.pop.val() {
            if self.two_held.val() {
                self.h_ports.d.next = self.n_ports.val();
                self.h_cgid.d.next = self.n_cgid.val();
                self.h_tid.d.next = self.n_tid.val();
                self.h_op.d.next = self.n_op.val();
                self.h_meta.d.next = self.n_meta.val();
                for n in 0..N {
                    self.h_nz[n].d.next = (self.q_nz[n].q.val() & self.n_hot.q.val()).any();
                    self.h_single[n].d.next = (self.q_single[n].q.val() & self.n_hot.q.val()).any();
                }
            } else if self.enq.val() {
                self.h_ports.d.next = self.in_ports.val();
                self.h_cgid.d.next = self.in_cgid.val();
                self.h_tid.d.next = self.in_tid.val();
                self.h_op.d.next = self.in_op.val();
                self.h_meta.d.next = self.in_meta.val();
                for n in 0..N {
                    self.h_nz[n].d.next = self.push_nz.val();
                    self.h_single[n].d.next = self.push_single[n].val();
                }
            }
        } else if !self.busy.q.val() & self.enq.val() {
            self.h_ports.d.next = self.in_ports.val();
            self.h_cgid.d.next = self.in_cgid.val();
            self.h_tid.d.next = self.in_tid.val();
            self.h_op.d.next = self.in_op.val();
            self.h_meta.d.next = self.in_meta.val();
            for n in 0..N {
                self.h_nz[n].d.next = self.push_nz.val();
                self.h_single[n].d.next = self.push_single[n].val();
            }
        }
        for n in 0..N {
            self.held_plen[n].next = self.h_meta.q.val().get_bits::<8>(0);
            // (After `enq` is worked out: read before it, `enq` would close a loop.)
            self.q_nz[n].d.next = self.q_nz[n].q.val();
            self.q_single[n].d.next = self.q_single[n].q.val();
            if self.enq.val() {
                self.q_nz[n].d.next = self.q_nz[n].q.val() & !self.tail_hot.val();
                if self.in_nz[n].val() {
                    self.q_nz[n].d.next = self.q_nz[n].q.val() | self.tail_hot.val();
                }
                self.q_single[n].d.next = self.q_single[n].q.val() & !self.tail_hot.val();
                if self.push_single[n].val() {
                    self.q_single[n].d.next = self.q_single[n].q.val() | self.tail_hot.val();
                }
            }
        }
        self.n_hot.d.next = self.n_hot.q.val();
        if self.pop.val() {
            self.n_hot.d.next =
                (self.n_hot.q.val() << 1) | (self.n_hot.q.val() >> self.last_slot.val());
        }
        if self.reset.val() {
            self.n_hot.d.next = self.slot_1_hot.val();
        }
        self.tail.d.next = self.tail.q.val();
        if self.enq.val() {
            self.tail.d.next = self.tail_inc.val();
        }
        self.held.d.next = self.held.q.val();
        if self.enq.val() & !self.pop.val() {
            self.held.d.next = self.held_inc.val();
            self.busy.d.next = true;
        } else if self.pop.val() & !self.enq.val() {
            self.held.d.next = self.held_dec.val();
            self.busy.d.next = self.two_held.val();
        }
    }
}
