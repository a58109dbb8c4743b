//! # The sequencer (module `nic_sequencer`)
//!
//! The NIC's one state register ([`SeqState`], the states of `netcoll_models::nic::model`,
//! whose module docs hold the state table) and who decides the next state: the unit running
//! the current state proposes it (`host_next`, `execute_next`, …), the sequencer takes it.
//! It also arbitrates the slots — a host command in `Idle`, else a *background slot*: an
//! arriving message if the last slot was not one, else a visit of the next send queue — runs
//! the reset sweep and keeps the round-robin pointer of the send-queue visits.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous: `Init`, sweep 0, pointer 0);
//! - `host_valid`, `rx_valid`: a host command, a beat are offered;
//! - `host_next`, `execute_next`, `calc_next`, `receive_next`, `pipe_next`: the next state
//!   the unit that runs the current state proposes (`receive_next` also when a slot takes a
//!   message);
//! - `advance_visit`: the visit of the current send queue is over (`visit_qp + 1`).
//!
//! # Outputs
//! - `current`: the state;
//! - `sweep_at` (`SWB` bits): the index the reset sweep clears in `Init`;
//! - `take_rx`, `take_visit`: this cycle's background slot takes a message, starts a
//!   send-queue visit; `take_host`: this cycle takes a host command;
//! - `visit_qp` (`QB` bits): the QP whose send queue the next visit looks at;
//! - `host_ready`, `rx_ready`: the ports (functions of the state only);
//! - `now` (32 bits): cycles since reset (the time of an RNR retry).

use super::k;
use crate::dff_setup;
use crate::prim::{Reg, StateReg};
use crate::rtl_states;
use rust_hdl::prelude::*;

netcoll_models::nic_seq_states!(rtl_states! {});
netcoll_models::nic_tx_phases!(rtl_states! {});

crate::sub_block! {
    /// The sequencer for `2^QB` queue pairs and a reset sweep of `2^SWB` indices.
    pub struct NicSequencer<const QB: usize, const SWB: usize> {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub host_valid: Signal<In, bool>,
        pub rx_valid: Signal<In, bool>,
        pub host_next: Signal<In, SeqState>,
        pub execute_next: Signal<In, SeqState>,
        pub calc_next: Signal<In, SeqState>,
        pub receive_next: Signal<In, SeqState>,
        pub pipe_next: Signal<In, SeqState>,
        pub advance_visit: Signal<In, bool>,
        pub current: Signal<Out, SeqState>,
        pub sweep_at: Signal<Out, Bits<SWB>>,
        pub take_rx: Signal<Out, bool>,
        pub take_visit: Signal<Out, bool>,
        pub take_host: Signal<Out, bool>,
        pub visit_qp: Signal<Out, Bits<QB>>,
        pub host_ready: Signal<Out, bool>,
        pub rx_ready: Signal<Out, bool>,
        pub now: Signal<Out, Bits<32>>,
        /// One-hot on an FPGA: 32 states, decoded by every unit (see [`StateReg`]).
        state: StateReg<SeqState>,
        /// The index the reset sweep clears next.
        sweep: Reg<Bits<SWB>>,
        /// The last background slot took a message (so this one visits a send queue).
        last_slot_rx: Reg<bool>,
        /// The send queue the next visit looks at.
        next_visit: Reg<Bits<QB>>,
        /// Cycles since reset.
        time: Reg<Bits<32>>,
        /// This cycle starts a background slot.
        background: Signal<Local, bool>,
        sweep_last: Constant<Bits<SWB>> = k((1 << SWB) - 1),
    }
}

impl<const QB: usize, const SWB: usize> Logic for NicSequencer<QB, SWB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, sweep, last_slot_rx, next_visit, time);
        self.current.next = self.state.q.val();
        self.now.next = self.time.q.val();
        self.time.d.next = self.time.q.val() + 1;
        self.sweep_at.next = self.sweep.q.val();
        self.visit_qp.next = self.next_visit.q.val();
        self.host_ready.next = self.state.q.val() == SeqState::Idle;
        self.take_host.next = (self.state.q.val() == SeqState::Idle) & self.host_valid.val();
        self.rx_ready.next =
            (self.state.q.val() == SeqState::RxData) | (self.state.q.val() == SeqState::RxDrop);

        // Slots: a host command in Idle; else a message, unless the last slot was one; else a
        // send-queue visit.
        self.background.next = ((self.state.q.val() == SeqState::Idle) & !self.host_valid.val())
            | (self.state.q.val() == SeqState::Background);
        self.take_rx.next =
            self.background.val() & self.rx_valid.val() & !self.last_slot_rx.q.val();
        self.take_visit.next = self.background.val() & !self.take_rx.val();

        match self.state.q.val() {
            SeqState::Init => {
                self.sweep.d.next = self.sweep.q.val() + 1;
                if self.sweep.q.val() == self.sweep_last.val() {
                    self.state.d.next = SeqState::Idle;
                }
            }
            SeqState::Idle => {
                if self.host_valid.val() {
                    self.state.d.next = SeqState::HostDecode;
                }
            }
            SeqState::HostDecode => self.state.d.next = self.host_next.val(),
            SeqState::HostAccess => self.state.d.next = self.host_next.val(),
            SeqState::HostFinish => self.state.d.next = self.host_next.val(),
            SeqState::SqContext => self.state.d.next = self.execute_next.val(),
            SeqState::SqWqe => self.state.d.next = self.execute_next.val(),
            SeqState::SqDecode => self.state.d.next = self.execute_next.val(),
            SeqState::WaitCheck => self.state.d.next = self.execute_next.val(),
            SeqState::EnableWrite => self.state.d.next = self.execute_next.val(),
            SeqState::Complete => self.state.d.next = SeqState::Idle,
            SeqState::AnsWait => self.state.d.next = self.receive_next.val(),
            SeqState::RxContext => self.state.d.next = self.receive_next.val(),
            SeqState::RxWqe => self.state.d.next = self.receive_next.val(),
            SeqState::RxCheck => self.state.d.next = self.receive_next.val(),
            SeqState::RxData => self.state.d.next = self.receive_next.val(),
            SeqState::RxCounter => self.state.d.next = self.receive_next.val(),
            SeqState::RxDrop => self.state.d.next = self.receive_next.val(),
            SeqState::NakContext => self.state.d.next = self.receive_next.val(),
            SeqState::NakCq => self.state.d.next = self.receive_next.val(),
            SeqState::CalcReadA => self.state.d.next = self.calc_next.val(),
            SeqState::CalcReadB => self.state.d.next = self.calc_next.val(),
            SeqState::CalcReadAIndex => self.state.d.next = self.calc_next.val(),
            SeqState::CalcReadBIndex => self.state.d.next = self.calc_next.val(),
            SeqState::CalcOperands => self.state.d.next = self.calc_next.val(),
            SeqState::CalcAlu => self.state.d.next = self.calc_next.val(),
            SeqState::CalcWait => self.state.d.next = self.calc_next.val(),
            SeqState::CalcWrite => self.state.d.next = self.calc_next.val(),
            SeqState::CalcWriteIndex => self.state.d.next = self.calc_next.val(),
            SeqState::CalcStream => self.state.d.next = self.calc_next.val(),
            SeqState::PipeCheck => self.state.d.next = self.pipe_next.val(),
            _ => {}
        }
        if self.take_rx.val() {
            self.last_slot_rx.d.next = true;
            self.state.d.next = self.receive_next.val();
        }
        if self.take_visit.val() {
            self.last_slot_rx.d.next = false;
            self.state.d.next = SeqState::SqContext;
        }
        if self.advance_visit.val() {
            self.next_visit.d.next = self.next_visit.q.val() + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Seq = NicSequencer<2, 3>;

    /// One cycle: the inputs, the outputs during the cycle, then the edge.
    fn cycle(s: &mut Seq) {
        s.clock.next = Clock { clk: false };
        assert!(simulate(s, 1000));
    }
    fn edge(s: &mut Seq) {
        s.clock.next = Clock { clk: true };
        assert!(simulate(s, 1000));
    }

    fn reset(s: &mut Seq) {
        s.reset.next = true;
        cycle(s);
        edge(s);
        s.reset.next = false;
    }

    #[test]
    fn the_sweep_then_idle_then_the_slots() {
        let mut s = Seq::default();
        s.connect_all();
        reset(&mut s);
        // Every unit proposes Idle unless told otherwise.
        for p in [
            &mut s.host_next,
            &mut s.execute_next,
            &mut s.calc_next,
            &mut s.receive_next,
            &mut s.pipe_next,
        ] {
            p.next = SeqState::Idle;
        }
        for k in 0..8u64 {
            cycle(&mut s);
            assert_eq!(s.current.val(), SeqState::Init);
            assert_eq!(s.sweep_at.val().to_u64(), k);
            assert!(!s.host_ready.val() && !s.rx_ready.val());
            edge(&mut s);
        }
        cycle(&mut s);
        assert_eq!(s.current.val(), SeqState::Idle);
        assert!(s.host_ready.val());
        // A beat is always offered: the slots alternate, message and visit.
        s.rx_valid.next = true;
        s.receive_next.next = SeqState::RxDrop;
        cycle(&mut s);
        assert!(s.take_rx.val() && !s.take_visit.val());
        edge(&mut s);
        cycle(&mut s);
        assert_eq!(
            s.current.val(),
            SeqState::RxDrop,
            "the receive unit's proposal"
        );
        assert!(s.rx_ready.val());
        s.receive_next.next = SeqState::Idle;
        edge(&mut s);
        cycle(&mut s);
        assert!(
            !s.take_rx.val() && s.take_visit.val(),
            "the last slot was a message"
        );
        edge(&mut s);
        cycle(&mut s);
        assert_eq!(s.current.val(), SeqState::SqContext);
        // The visit ends: the next SQ, round robin over 4 QPs.
        s.execute_next.next = SeqState::Idle;
        for k in 0..5u64 {
            assert_eq!(s.visit_qp.val().to_u64(), k % 4);
            s.advance_visit.next = true;
            edge(&mut s);
            s.advance_visit.next = false;
            cycle(&mut s);
        }
        // A host command is taken in Idle, before any background slot.
        s.rx_valid.next = false;
        while s.current.val() != SeqState::Idle {
            edge(&mut s);
            cycle(&mut s);
        }
        s.host_valid.next = true;
        cycle(&mut s);
        assert!(!s.take_rx.val() && !s.take_visit.val());
        edge(&mut s);
        cycle(&mut s);
        assert_eq!(s.current.val(), SeqState::HostDecode);
        s.host_next.next = SeqState::Background;
        edge(&mut s);
        cycle(&mut s);
        assert_eq!(s.current.val(), SeqState::Background);
        assert!(
            !s.host_ready.val() && s.take_visit.val(),
            "Background never takes the host"
        );
    }
}
