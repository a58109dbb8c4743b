//! # Switch collective engine (RTL)
//!
//! The rust-hdl description of the engine specified in `netcoll_models::switch_engine` (read
//! its module docs for the packet rules, counters, configuration port and timing; the cycle
//! model there is compared with this block every output every cycle). Its ports are generated
//! from the one declaration, `netcoll_models::switch_engine_ports!`.
//!
//! # Micro-architecture
//! Four stages (the cycle model's module docs describe them register for register). Stage 0
//! accepts one operation (configuration first) and presents its CGID to the table and state
//! memories, whose read is registered. Stage 1 registers the read data again (the RAM output
//! register) and compares the CGID with the writes the read missed, registering the entry
//! bypass and the older state bypass selects ([`bypass`], module `switch_engine_bypass`).
//! Stage 2 takes the bypassed entry (a mux with a registered select), lets [`classify`]
//! (module `switch_engine_classify`) apply rules 1–5 to it and registers both, with the state
//! as every write but the newest left it. Stage 3 takes the state (a 2:1 mux, the newest
//! write or the registered one), lets the CSM decision ([`csm`], module `switch_engine_csm`)
//! apply rules 6–7, writes the state (and a `Write`'s entry) back and loads the output
//! registers, the verdict and the counter command. Stage 4 shows the outputs while the
//! counters ([`counters`], module `switch_engine_counters`) count the registered verdict or
//! clear, and a `ReadCounter` reads them; the output packet goes through the output queue
//! ([`outq`], module `switch_engine_outq`), shown at once when it is empty. So outputs appear
//! four cycles after acceptance and the engine takes one operation per cycle, stalling only
//! packets, and only while the queue could fill (`room`, a register worked out a cycle ahead). With the
//! retry timer, a cycle with nothing offered sends a tick of the scanned group down the same
//! pipeline. After reset a sweep writes every table and state word to zero, one per cycle,
//! with the ready outputs low.
//!
//! The memory words follow the shared layouts `SwitchEngineParams::entry_layout` and
//! `state_layout`; their field positions are this block's constants.

pub mod bypass;
pub mod classify;
pub mod counters;
pub mod csm;
pub mod fifo;
pub mod meta;
pub mod outq;
pub mod payload;

pub use bypass::SwitchEngineBypass;
pub use classify::SwitchEngineClassify;
pub use counters::SwitchEngineCounters;
pub use csm::SwitchEngineCsm;
pub use fifo::SwitchEngineFifo;
pub use meta::SwitchEngineMeta;
pub use outq::SwitchEngineOutq;
pub use payload::SwitchEnginePayload;

use outq::META_BITS;

use crate::dff_setup;
use crate::emit::{emit_with_children, EmitError, Module};
use crate::prim::{Mem, Reg};
use crate::rtl_block;
use netcoll_models::kit::cycle::ValueSim;
use netcoll_models::kit::params::ParamTable;
use netcoll_models::kit::ports::mask;
use netcoll_models::switch_engine::{
    CfgOp, CsmState, SwitchEngineParams, Verdict, COUNTER_INDEX_BITS, EPOCH_BITS, NOW_BITS,
    OP_BITS, OUT_QUEUE, TID_BITS,
};
use rust_hdl::prelude::*;

/// Width of a CSM state code (a plain constant: `get_bits::<{ CsmState::BITS }>` would make
/// `#[hdl_gen]`'s output warn about braces).
const CSM_BITS: usize = CsmState::BITS;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The position of a field of a parameter-dependent memory word layout.
fn at(l: &netcoll_models::kit::layout::Layout, field: &str) -> Constant<Bits<8>> {
    k(l.lsb(field) as u64)
}

/// The parameters of the monomorphisation (`R` radix, `P` = log2 `R`, `G` CGID bits).
fn params<const R: usize, const P: usize, const G: usize, const C: usize>() -> SwitchEngineParams {
    SwitchEngineParams::sized(R, 1 << G, C)
}

netcoll_models::switch_engine_ports!(rtl_block! {
    /// The engine, monomorphised per supported parameter set: `R` radix, `P` = log2(R), `G`
    /// CGID bits, `C` counter bits, `EW` = 2 + P + R entry-word bits, `SW` = 7 + R state-word
    /// bits (stable Rust cannot compute the last two from the first, so [`build`] does), `L`
    /// payload words a beat (0: a barrier-only engine). A reducing engine has `N` = 1 payload
    /// path and shape block, with `PB` bits of a stored length and the payload path's
    /// parameters `AL`, `B`, `S`, `A`, `F`, `CQ`, `O` (see [`SwitchEnginePayload`]); a
    /// barrier-only engine has `N` = 0 and placeholders. The retry parameters are the constants
    /// `timer_on` and `epoch_at`, which [`build`] sets.
    pub struct SwitchEngine<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
        const L: usize,
        const N: usize,
        const PB: usize,
        const AL: usize,
        const B: usize,
        const S: usize,
        const A: usize,
        const F: usize,
        const CQ: usize,
        const O: usize,
        const DB: usize,
        const FL: usize,
        const AX: usize,
    > {
        /// Low until the reset sweep has cleared the last group.
        init_done: Reg<bool> = Default::default(),
        /// The group the sweep clears next.
        init_ptr: Reg<Bits<G>> = Default::default(),
        /// Cycles since the sweep ended (`now`); the epoch is two of its bits.
        now: Reg<Bits<NOW_BITS>> = Default::default(),
        /// The group of the next tick (rule 8).
        scan_ptr: Reg<Bits<G>> = Default::default(),
        // Stage 1: the accepted operation.
        s1_valid: Reg<bool> = Default::default(),
        s1_is_cfg: Reg<bool> = Default::default(),
        s1_port: Reg<Bits<P>> = Default::default(),
        s1_cgid: Reg<Bits<G>> = Default::default(),
        s1_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s1_op: Reg<Bits<OP_BITS>> = Default::default(),
        s1_cfg_op: Reg<Bits<{ CfgOp::BITS }>> = Default::default(),
        s1_cfg_entry: Reg<Bits<EW>> = Default::default(),
        s1_cfg_counter: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),
        s1_cfg_tid: Reg<Bits<TID_BITS>> = Default::default(),
        /// A tick (rule 8) of the group `s1_cgid`, and the epoch the operation was taken in.
        s1_tick: Reg<bool> = Default::default(),
        s1_epoch: Reg<Bits<EPOCH_BITS>> = Default::default(),
        /// The packet's header has reduction fields (rule 2b: a barrier-only engine takes
        /// none).
        s1_bad: Reg<bool> = Default::default(),
        /// It is a `Write` (it will write the table unless rejected) / it will write the table (a `Write`) / the state (a packet or a `Write`) in stage 3.
        s1_wr_tbl: Reg<bool> = Default::default(),
        s1_wr_st: Reg<bool> = Default::default(),
        // Stage 2: the same, a cycle later.
        s2_valid: Reg<bool> = Default::default(),
        s2_is_cfg: Reg<bool> = Default::default(),
        s2_port: Reg<Bits<P>> = Default::default(),
        /// `1 << s2_port`, decoded in stage 1.
        s2_port_hot: Reg<Bits<R>> = Default::default(),
        s2_cgid: Reg<Bits<G>> = Default::default(),
        s2_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s2_op: Reg<Bits<OP_BITS>> = Default::default(),
        s2_cfg_op: Reg<Bits<{ CfgOp::BITS }>> = Default::default(),
        s2_cfg_entry: Reg<Bits<EW>> = Default::default(),
        s2_cfg_counter: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),
        s2_cfg_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s2_tick: Reg<bool> = Default::default(),
        s2_epoch: Reg<Bits<EPOCH_BITS>> = Default::default(),
        /// A rejected `Write` (decided in stage 1): it writes nothing and answers as a read.
        s2_reject: Reg<bool> = Default::default(),
        s2_bad: Reg<bool> = Default::default(),
        s2_wr_tbl: Reg<bool> = Default::default(),
        s2_wr_st: Reg<bool> = Default::default(),
        // Stage 3: the same, a cycle later …
        s3_valid: Reg<bool> = Default::default(),
        s3_is_cfg: Reg<bool> = Default::default(),
        s3_port: Reg<Bits<P>> = Default::default(),
        s3_port_hot: Reg<Bits<R>> = Default::default(),
        s3_cgid: Reg<Bits<G>> = Default::default(),
        s3_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s3_cfg_op: Reg<Bits<{ CfgOp::BITS }>> = Default::default(),
        s3_cfg_entry: Reg<Bits<EW>> = Default::default(),
        s3_cfg_counter: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),
        s3_cfg_tid: Reg<Bits<TID_BITS>> = Default::default(),
        s3_tick: Reg<bool> = Default::default(),
        s3_epoch: Reg<Bits<EPOCH_BITS>> = Default::default(),
        s3_reject: Reg<bool> = Default::default(),
        s3_wr_tbl: Reg<bool> = Default::default(),
        s3_wr_st: Reg<bool> = Default::default(),
        // … with the entry, resolved in stage 2, and what `classify` made of it.
        s3_entry: Reg<Bits<EW>> = Default::default(),
        s3_p_path: Reg<bool> = Default::default(),
        s3_c_path: Reg<bool> = Default::default(),
        /// A tick of a valid non-root entry (rule 8 may act).
        s3_k_path: Reg<bool> = Default::default(),
        s3_v_entry: Reg<Bits<{ Verdict::BITS }>> = Default::default(),
        s3_status_req: Reg<bool> = Default::default(),
        s3_parent_hot: Reg<Bits<R>> = Default::default(),
        /// `g_fail`, `g_full`, `t_same`, `t_behind`, `rep_bit`, `all_now`, `sent_now` and
        /// `sent_quiet` of the operation in
        /// stage 3 (see [`csm`]) for its state as `st_pre` holds it (`pre_*`, worked out in
        /// stage 2) and as the last edge's decision wrote it (`fwd_*`, worked out with that
        /// decision): the decision of one packet to a group feeds the next one's through a 2:1
        /// mux rather than TID compares, a port mux and a mask compare.
        pre_fail: Reg<bool> = Default::default(),
        pre_full: Reg<bool> = Default::default(),
        pre_t_same: Reg<bool> = Default::default(),
        pre_t_behind: Reg<bool> = Default::default(),
        pre_rep_bit: Reg<bool> = Default::default(),
        pre_all_now: Reg<bool> = Default::default(),
        pre_sent_now: Reg<bool> = Default::default(),
        pre_sent_quiet: Reg<bool> = Default::default(),
        fwd_fail: Reg<bool> = Default::default(),
        fwd_full: Reg<bool> = Default::default(),
        fwd_t_same: Reg<bool> = Default::default(),
        fwd_t_behind: Reg<bool> = Default::default(),
        fwd_rep_bit: Reg<bool> = Default::default(),
        fwd_all_now: Reg<bool> = Default::default(),
        fwd_sent_now: Reg<bool> = Default::default(),
        fwd_sent_quiet: Reg<bool> = Default::default(),
        /// The state stage 3 wrote at the last edge (for the bypass).
        byp1_st: Reg<Bits<SW>> = Default::default(),
        /// The collective forwarding table.
        tbl: Mem<Bits<EW>, G> = Default::default(),
        /// The per-group CSM state.
        st: Mem<Bits<SW>, G> = Default::default(),
        /// The memories' output registers and the write bypass (module `switch_engine_bypass`).
        bypass: SwitchEngineBypass<G, EW, SW> = Default::default(),
        /// Rules 1–5, in stage 2 (module `switch_engine_classify`).
        classify: SwitchEngineClassify<R, P> = Default::default(),
        /// The decision of rules 6–7, in stage 3 (module `switch_engine_csm`).
        csm: SwitchEngineCsm<R, N> = Default::default(),
        /// The drop / event counters (module `switch_engine_counters`).
        counters: SwitchEngineCounters<C> = Default::default(),
        /// The output queue behind `out_ready` (module `switch_engine_outq`).
        outq: SwitchEngineOutq<R, G, N> = Default::default(),
        /// A reducing engine's payload path (module `switch_engine_payload`) and shape logic
        /// (module `switch_engine_meta`); none on a barrier-only engine.
        pay: [SwitchEnginePayload<L, AL, B, S, A, F, CQ, O, FL, AX>; N] = core::array::from_fn(|_| Default::default()),
        meta: [SwitchEngineMeta<SW, PB, DB>; N] = core::array::from_fn(|_| Default::default()),
        /// A reducing engine's packet shape through stages 1–3: length (8), operation (4),
        /// type (3), and whether its beats are stored (bit 15).
        s1_pm: [Reg<Bits<16>>; N] = core::array::from_fn(|_| Default::default()),
        s2_pm: [Reg<Bits<16>>; N] = core::array::from_fn(|_| Default::default()),
        s3_pm: [Reg<Bits<16>>; N] = core::array::from_fn(|_| Default::default()),
        /// A reducing engine's buffer shapes (length, operation at bit 8, type at bit 12) of
        /// stage 3's group, as for the CSM's facts: as the older writes left them (`pre_*`,
        /// from stage 2) and as the last decision wrote them (`fwd_*`).
        pre_acc: [Reg<Bits<15>>; N] = core::array::from_fn(|_| Default::default()),
        pre_ret: [Reg<Bits<15>>; N] = core::array::from_fn(|_| Default::default()),
        fwd_acc: [Reg<Bits<15>>; N] = core::array::from_fn(|_| Default::default()),
        fwd_ret: [Reg<Bits<15>>; N] = core::array::from_fn(|_| Default::default()),
        /// The packet's shape is not the accumulator's, for the same two states.
        pre_differs: [Reg<bool>; N] = core::array::from_fn(|_| Default::default()),
        /// No child has reported in the group's transaction (`rep` is zero), as the older
        /// writes left it and as the last decision did, and the one chosen (a reducing
        /// engine: the decision's shape check needs it early).
        pre_first: [Reg<bool>; N] = core::array::from_fn(|_| Default::default()),
        fwd_first: [Reg<bool>; N] = core::array::from_fn(|_| Default::default()),
        g_first: [Signal<Local, bool>; N] = core::array::from_fn(|_| Default::default()),
        fwd_differs: [Reg<bool>; N] = core::array::from_fn(|_| Default::default()),
        /// Stage 2's group's accumulator shape as the older writes left it.
        older_acc: [Signal<Local, Bits<15>>; N] = core::array::from_fn(|_| Default::default()),
        /// Stage 2's packet's shape against each accumulator shape stage 3's decision may
        /// leave (the packet's own, the forwarded one, the older one), compared before it
        /// chooses.
        dif_p: [Signal<Local, bool>; N] = core::array::from_fn(|_| Default::default()),
        dif_fwd: [Signal<Local, bool>; N] = core::array::from_fn(|_| Default::default()),
        dif_pre: [Signal<Local, bool>; N] = core::array::from_fn(|_| Default::default()),
        /// The output packet's payload shape (zero on a barrier-only engine).
        o_out_meta: Reg<Bits<META_BITS>> = Default::default(),
        /// Its length is not zero (a reducing engine).
        o_out_nz: [Reg<bool>; N] = core::array::from_fn(|_| Default::default()),
        // Stage 4: output registers …
        o_out_valid: Reg<bool> = Default::default(),
        o_out_ports: Reg<Bits<R>> = Default::default(),
        o_out_cgid: Reg<Bits<G>> = Default::default(),
        o_out_tid: Reg<Bits<TID_BITS>> = Default::default(),
        o_out_op: Reg<Bits<OP_BITS>> = Default::default(),
        o_ev_valid: Reg<bool> = Default::default(),
        o_ev_cgid: Reg<Bits<G>> = Default::default(),
        o_ev_verdict: Reg<Bits<{ Verdict::BITS }>> = Default::default(),
        o_ev_state: Reg<Bits<{ CsmState::BITS }>> = Default::default(),
        o_ev_tid: Reg<Bits<TID_BITS>> = Default::default(),
        o_ev_fail: Reg<bool> = Default::default(),
        o_rsp_valid: Reg<bool> = Default::default(),
        o_rsp_rejected: Reg<bool> = Default::default(),
        o_rsp_entry: Reg<Bits<EW>> = Default::default(),
        o_rsp_st: Reg<Bits<SW>> = Default::default(),
        // … and the counter command: count a packet (`s4_count`) and an event's verdict
        // (`s4_tally`), clear, or read counter `s4_sel`.
        s4_count: Reg<bool> = Default::default(),
        s4_tally: Reg<bool> = Default::default(),
        s4_verdict: Reg<Bits<{ Verdict::BITS }>> = Default::default(),
        s4_clear: Reg<bool> = Default::default(),
        s4_read: Reg<bool> = Default::default(),
        s4_sel: Reg<Bits<COUNTER_INDEX_BITS>> = Default::default(),

        /// 1 for a packet or a tick in stage 1 / 2, and for the stage-4 output packet: counted
        /// against the output queue's room (see `no_room`; stage 3's is the decision's `send`).
        s1_sends: Reg<Bits<4>> = Default::default(),
        s2_sends: Reg<Bits<4>> = Default::default(),
        o_sends: Reg<Bits<4>> = Default::default(),
        // Stage 0.
        /// A packet's header could be taken but for the payload path.
        pkt_base: Signal<Local, bool> = Default::default(),
        acc_cfg: Signal<Local, bool> = Default::default(),
        acc_pkt: Signal<Local, bool> = Default::default(),
        /// Nothing offered and room: a tick of `scan_ptr` (with the timer on).
        tick: Signal<Local, bool> = Default::default(),
        /// Whether the queue has room for one more: its count and the packets and ticks in
        /// stages 1–3 and the stage-4 output packet, which may all still join it, fewer than
        /// its depth. A register worked out a cycle ahead (`no_room`), as the sum of the terms
        /// that carry over (`carried`: the count, the output packet, stages 1 and 2, which
        /// will be the count or stages 2 and 3) and the late ones chosen last: stage 1's and
        /// the output register's new occupants (`s1_next`, `o_next`) and the packet leaving
        /// the queue (`outq.taken`).
        no_room: Reg<bool> = Default::default(),
        room: Signal<Local, bool> = Default::default(),
        carried: Signal<Local, Bits<4>> = Default::default(),
        s1_next: Signal<Local, bool> = Default::default(),
        o_next: Signal<Local, bool> = Default::default(),
        // Stage 1: a `Write` of an entry the port rejects.
        s1_rejected: Signal<Local, bool> = Default::default(),
        s1_children: Signal<Local, Bits<R>> = Default::default(),
        cfg_word: Signal<Local, Bits<EW>> = Default::default(),
        // Stage 2: the entry's child mask and the older state's fields, for `pre_*`.
        s2_children: Signal<Local, Bits<R>> = Default::default(),
        older_rep: Signal<Local, Bits<R>> = Default::default(),
        older_tid: Signal<Local, Bits<TID_BITS>> = Default::default(),
        older_sent: Signal<Local, Bits<EPOCH_BITS>> = Default::default(),
        /// Stage 2's epoch less the `sent` of its group as the older writes left it (`pre`),
        /// and as stage 3's decision leaves it: kept, stamped or zeroed by a `Write`.
        pre_sdiff: Signal<Local, Bits<EPOCH_BITS>> = Default::default(),
        fwd_sdiff_kept: Signal<Local, Bits<EPOCH_BITS>> = Default::default(),
        fwd_sdiff_stamp: Signal<Local, Bits<EPOCH_BITS>> = Default::default(),
        fwd_sdiff: Signal<Local, Bits<EPOCH_BITS>> = Default::default(),
        /// `s2_tid` less the TID of stage 3's group after this decision, in each case.
        fwd_diff_kept: Signal<Local, Bits<TID_BITS>> = Default::default(),
        fwd_diff_next: Signal<Local, Bits<TID_BITS>> = Default::default(),
        fwd_diff: Signal<Local, Bits<TID_BITS>> = Default::default(),
        fwd_diff_cfg: Signal<Local, Bits<TID_BITS>> = Default::default(),
        pre_diff: Signal<Local, Bits<TID_BITS>> = Default::default(),
        // Stage 3.
        pkt_s3: Signal<Local, bool> = Default::default(),
        /// A packet or a tick: may send.
        sends_s3: Signal<Local, bool> = Default::default(),
        /// An event: a packet, or a tick that acts.
        ev_s3: Signal<Local, bool> = Default::default(),
        /// The state an accepted `Write` writes: Idle at TID `cfg_tid`.
        cfg_st_word: Signal<Local, Bits<SW>> = Default::default(),
        /// Stage 3's decision leaves stage 2's group with nothing reported.
        fwd_zero: Signal<Local, bool> = Default::default(),
        /// Stage 2's port reported in stage 3's group after this decision but for it …
        fwd_kept_bit: Signal<Local, bool> = Default::default(),
        /// … and `all_now` of stage 2's packet for a state reported as `g_rep` (`fwd_all_kept`)
        /// or `g_rep | port_hot` (`fwd_all_rep`) with stage 3's port.
        fwd_all_kept: Signal<Local, bool> = Default::default(),
        fwd_all_rep: Signal<Local, bool> = Default::default(),
        cfg_s3: Signal<Local, bool> = Default::default(),
        n_st_word: Signal<Local, Bits<SW>> = Default::default(),
        /// The state stage 3 writes: the packet's new state, zero for a `Write`.
        wr_st_word: Signal<Local, Bits<SW>> = Default::default(),

        // Field positions of the memory words, from the shared layouts.
        e_valid_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "valid"),
        e_root_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "is_root"),
        e_parent_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "parent"),
        e_children_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().entry_layout(), "children"),
        s_csm_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "csm"),
        s_fail_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "fail"),
        s_tid_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "tid"),
        s_sent_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "sent"),
        /// A reducing engine's shape fields in the state word (set by [`build`]).
        s_acc_plen_at: Constant<Bits<8>> = k(0),
        s_acc_rop_at: Constant<Bits<8>> = k(0),
        s_acc_dtype_at: Constant<Bits<8>> = k(0),
        s_ret_plen_at: Constant<Bits<8>> = k(0),
        s_ret_rop_at: Constant<Bits<8>> = k(0),
        s_ret_dtype_at: Constant<Bits<8>> = k(0),
        /// The retry timer is on (parameter `retry_timer`; set by [`build`]).
        timer_on: Constant<bool> = Constant::new(false),
        /// `log2(epoch_cycles)`: the epoch is `now[epoch_at + 1 : epoch_at]` (set by [`build`]).
        epoch_at: Constant<Bits<8>> = k(10),
        one_now: Constant<Bits<NOW_BITS>> = k(1),
        one_4: Constant<Bits<4>> = k(1),
        zero_4: Constant<Bits<4>> = k(0),
        queue_depth: Constant<Bits<4>> = k(OUT_QUEUE as u64),
        queue_depth_m2: Constant<Bits<4>> = k(OUT_QUEUE as u64 - 2),
        queue_depth_m1: Constant<Bits<4>> = k(OUT_QUEUE as u64 - 1),
        queue_depth_p1: Constant<Bits<4>> = k(OUT_QUEUE as u64 + 1),
        zero_r: Constant<Bits<R>> = k(0),
        zero_epoch: Constant<Bits<EPOCH_BITS>> = k(0),
        s_rep_at: Constant<Bits<8>> = at(&params::<R, P, G, C>().state_layout(), "reported"),
        one_g: Constant<Bits<G>> = k(1),
        /// `tid - group tid` of a packet of the group's transaction, of the one before, and
        /// one step of the TID.
        tid_same: Constant<Bits<TID_BITS>> = k(0),
        tid_behind: Constant<Bits<TID_BITS>> = k(3),
        tid_step: Constant<Bits<TID_BITS>> = k(1),
        csm_full: Constant<Bits<CSM_BITS>> = k(CsmState::Full.code()),
        last_g: Constant<Bits<G>> = k(mask(G)),
        zero_ew: Constant<Bits<EW>> = k(0),
        zero_sw: Constant<Bits<SW>> = k(0),
        one_r: Constant<Bits<R>> = k(1),
        cfg_write: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::Write.code()),
        cfg_read_entry: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::ReadEntry.code()),
        cfg_read_counter: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::ReadCounter.code()),
        cfg_clear: Constant<Bits<{ CfgOp::BITS }>> = k(CfgOp::ClearCounters.code()),
    }
});

impl<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
        const L: usize,
        const N: usize,
        const PB: usize,
        const AL: usize,
        const B: usize,
        const S: usize,
        const A: usize,
        const F: usize,
        const CQ: usize,
        const O: usize,
        const DB: usize,
        const FL: usize,
        const AX: usize,
    > Logic for SwitchEngine<R, P, G, C, EW, SW, L, N, PB, AL, B, S, A, F, CQ, O, DB, FL, AX>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            init_done,
            init_ptr,
            now,
            scan_ptr,
            s1_sends,
            s2_sends,
            o_sends,
            no_room,
            s1_valid,
            s1_is_cfg,
            s1_port,
            s1_cgid,
            s1_tid,
            s1_op,
            s1_cfg_op,
            s1_cfg_entry,
            s1_cfg_counter,
            s1_cfg_tid,
            s1_tick,
            s1_epoch,
            s1_bad,
            s1_wr_tbl,
            s1_wr_st,
            s2_valid,
            s2_is_cfg,
            s2_port,
            s2_port_hot,
            s2_cgid,
            s2_tid,
            s2_op,
            s2_cfg_op,
            s2_cfg_entry,
            s2_cfg_counter,
            s2_cfg_tid,
            s2_tick,
            s2_epoch,
            s2_reject,
            s2_bad,
            s2_wr_tbl,
            s2_wr_st,
            s3_valid,
            s3_is_cfg,
            s3_port,
            s3_port_hot,
            s3_cgid,
            s3_tid,
            s3_cfg_op,
            s3_cfg_entry,
            s3_cfg_counter,
            s3_cfg_tid,
            s3_tick,
            s3_epoch,
            s3_reject,
            s3_wr_tbl,
            s3_wr_st,
            s3_entry,
            s3_p_path,
            s3_c_path,
            s3_k_path,
            s3_v_entry,
            s3_status_req,
            s3_parent_hot,
            pre_fail,
            pre_full,
            pre_t_same,
            pre_t_behind,
            pre_rep_bit,
            pre_all_now,
            pre_sent_now,
            pre_sent_quiet,
            fwd_fail,
            fwd_full,
            fwd_t_same,
            fwd_t_behind,
            fwd_rep_bit,
            fwd_all_now,
            fwd_sent_now,
            fwd_sent_quiet,
            byp1_st,
            o_out_valid,
            o_out_ports,
            o_out_cgid,
            o_out_tid,
            o_out_op,
            o_out_meta,
            o_ev_valid,
            o_ev_cgid,
            o_ev_verdict,
            o_ev_state,
            o_ev_tid,
            o_ev_fail,
            o_rsp_valid,
            o_rsp_rejected,
            o_rsp_entry,
            o_rsp_st,
            s4_count,
            s4_tally,
            s4_verdict,
            s4_clear,
            s4_read,
            s4_sel
        );
        self.tbl.clock.next = self.clock.val();
        self.st.clock.next = self.clock.val();
        self.bypass.clock.next = self.clock.val();
        self.bypass.reset.next = self.reset.val();
        self.counters.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.outq.clock.next = self.clock.val();
        self.outq.reset.next = self.reset.val();

        // ---- Stage 0: accept one operation; configuration has priority over packets, and
        // a packet needs room in the output queue for whatever it may send: the queue's
        // count and every packet or tick that may still join it (at most 8 + 4, 4 bits)
        // fewer than its depth.
        self.room.next = !self.no_room.q.val();
        self.acc_cfg.next = self.init_done.q.val() & self.cfg_valid.val();
        self.pkt_base.next = self.init_done.q.val() & !self.cfg_valid.val() & self.room.val();
        // A reducing engine takes the beats after a header whenever offered, and a header
        // only with room for its beats (the payload path decides).
        for n in 0..N {
            self.pay[n].clock.next = self.clock.val();
            self.pay[n].reset.next = self.reset.val();
            self.pay[n].h_base.next = self.pkt_base.val();
            self.pay[n].pkt_valid.next = self.pkt_valid.val();
            for m in 0..L {
                self.pay[n].pkt_data[m].next = self.pkt_data[m].val();
            }
            self.pay[n].h_plen.next = self.pkt_plen.val();
            self.pay[n].h_rop.next = self.pkt_rop.val();
            self.pay[n].h_dtype.next = self.pkt_dtype.val();
            self.pay[n].h_op.next = self.pkt_op.val();
            self.pay[n].h_cgid.next = bit_cast::<16, G>(self.pkt_cgid.val());
        }
        self.acc_pkt.next = self.pkt_base.val() & self.pkt_valid.val();
        self.pkt_ready.next = self.pkt_base.val();
        for n in 0..N {
            self.acc_pkt.next = self.pay[n].h_take.val();
            self.pkt_ready.next = self.pay[n].h_ready.val();
        }
        // Rule 8: a cycle with nothing offered (and room) is the scanned group's tick.
        self.tick.next = self.timer_on.val()
            & self.init_done.q.val()
            & !self.cfg_valid.val()
            & !self.pkt_valid.val()
            & self.room.val();
        self.cfg_ready.next = self.init_done.q.val();
        if self.init_done.q.val() {
            self.now.d.next = self.now.q.val() + self.one_now.val();
        }
        if self.tick.val() {
            self.scan_ptr.d.next = self.scan_ptr.q.val() + self.one_g.val();
        }
        self.cfg_word.next = ((bit_cast::<EW, R>(self.cfg_children.val())
            << self.e_children_at.val())
            | (bit_cast::<EW, P>(self.cfg_parent.val()) << self.e_parent_at.val()))
        .replace_bit(self.e_root_at.val().index(), self.cfg_is_root.val())
        .replace_bit(self.e_valid_at.val().index(), self.cfg_entry_valid.val());
        self.s1_valid.d.next = self.acc_cfg.val() | self.acc_pkt.val() | self.tick.val();
        self.s1_sends.d.next = self.zero_4.val();
        if self.acc_pkt.val() | self.tick.val() {
            self.s1_sends.d.next = self.one_4.val();
        }
        self.s2_sends.d.next = self.s1_sends.q.val();
        self.s1_is_cfg.d.next = self.acc_cfg.val();
        self.s1_tick.d.next = self.tick.val();
        self.s1_epoch.d.next = self
            .now
            .q
            .val()
            .get_bits::<EPOCH_BITS>(self.epoch_at.val().index());
        self.s1_cfg_tid.d.next = self.cfg_tid.val();
        self.s1_port.d.next = self.pkt_port.val();
        self.s1_tid.d.next = self.pkt_tid.val();
        self.s1_op.d.next = self.pkt_op.val();
        // Rule 2b: a barrier-only engine takes no payload; a reducing one's path checks it.
        self.s1_bad.d.next =
            self.pkt_plen.val().any() | self.pkt_rop.val().any() | self.pkt_dtype.val().any();
        for n in 0..N {
            self.s1_bad.d.next = self.pay[n].h_bad.val();
            self.s1_pm[n].clock.next = self.clock.val();
            self.s2_pm[n].clock.next = self.clock.val();
            self.s3_pm[n].clock.next = self.clock.val();
            self.s1_pm[n].reset.next = self.reset.val();
            self.s2_pm[n].reset.next = self.reset.val();
            self.s3_pm[n].reset.next = self.reset.val();
            self.s1_pm[n].d.next = (bit_cast::<16, 8>(self.pkt_plen.val())
                | (bit_cast::<16, 4>(self.pkt_rop.val()) << 8)
                | (bit_cast::<16, 3>(self.pkt_dtype.val()) << 12))
                .replace_bit(15, self.acc_pkt.val() & self.pay[n].h_store.val());
            self.s2_pm[n].d.next = self.s1_pm[n].q.val();
            self.s3_pm[n].d.next = self.s2_pm[n].q.val();
        }
        self.s1_cfg_op.d.next = self.cfg_op.val();
        self.s1_cfg_entry.d.next = self.cfg_word.val();
        self.s1_cfg_counter.d.next = self.cfg_counter.val();
        self.s1_wr_tbl.d.next = self.acc_cfg.val() & (self.cfg_op.val() == self.cfg_write.val());
        self.s1_wr_st.d.next = self.acc_pkt.val()
            | self.tick.val()
            | (self.acc_cfg.val() & (self.cfg_op.val() == self.cfg_write.val()));
        if self.cfg_valid.val() {
            self.s1_cgid.d.next = self.cfg_cgid.val();
            self.tbl.rd_addr.next = self.cfg_cgid.val();
            self.st.rd_addr.next = self.cfg_cgid.val();
        } else if self.pkt_valid.val() {
            self.s1_cgid.d.next = self.pkt_cgid.val();
            self.tbl.rd_addr.next = self.pkt_cgid.val();
            self.st.rd_addr.next = self.pkt_cgid.val();
        } else {
            self.s1_cgid.d.next = self.scan_ptr.q.val();
            self.tbl.rd_addr.next = self.scan_ptr.q.val();
            self.st.rd_addr.next = self.scan_ptr.q.val();
        }

        // ---- Stage 1: the read data is registered and the bypass compared (in `bypass`).
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_is_cfg.d.next = self.s1_is_cfg.q.val();
        self.s2_port.d.next = self.s1_port.q.val();
        self.s2_port_hot.d.next = self.one_r.val() << self.s1_port.q.val();
        self.s2_cgid.d.next = self.s1_cgid.q.val();
        self.s2_tid.d.next = self.s1_tid.q.val();
        self.s2_op.d.next = self.s1_op.q.val();
        self.s2_cfg_op.d.next = self.s1_cfg_op.q.val();
        self.s2_cfg_entry.d.next = self.s1_cfg_entry.q.val();
        self.s2_cfg_counter.d.next = self.s1_cfg_counter.q.val();
        self.s2_cfg_tid.d.next = self.s1_cfg_tid.q.val();
        self.s2_tick.d.next = self.s1_tick.q.val();
        self.s2_epoch.d.next = self.s1_epoch.q.val();
        self.s2_bad.d.next = self.s1_bad.q.val();
        // A `Write` of a valid entry with no child, or of a non-root whose parent is a child,
        // is rejected: it writes nothing.
        self.s1_children.next = self
            .s1_cfg_entry
            .q
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.s1_rejected.next = self
            .s1_cfg_entry
            .q
            .val()
            .get_bit(self.e_valid_at.val().index())
            & ((self.s1_children.val() == self.zero_r.val())
                | (!self
                    .s1_cfg_entry
                    .q
                    .val()
                    .get_bit(self.e_root_at.val().index())
                    & self.s1_children.val().get_bit(
                        self.s1_cfg_entry
                            .q
                            .val()
                            .get_bits::<P>(self.e_parent_at.val().index())
                            .index(),
                    )));
        self.s2_reject.d.next = self.s1_wr_tbl.q.val() & self.s1_rejected.val();
        self.s2_wr_tbl.d.next = self.s1_wr_tbl.q.val() & !self.s1_rejected.val();
        self.s2_wr_st.d.next =
            self.s1_wr_st.q.val() & !(self.s1_wr_tbl.q.val() & self.s1_rejected.val());
        self.bypass.tbl_rd.next = self.tbl.rd_data.val();
        self.bypass.st_rd.next = self.st.rd_data.val();
        self.bypass.s1_cgid.next = self.s1_cgid.q.val();
        self.bypass.s2_cgid.next = self.s2_cgid.q.val();
        self.bypass.s2_wr_tbl.next = self.s2_wr_tbl.q.val();
        self.bypass.s2_entry.next = self.s2_cfg_entry.q.val();
        self.bypass.s3_cgid.next = self.s3_cgid.q.val();
        self.bypass.s3_wr_tbl.next = self.s3_wr_tbl.q.val();
        self.bypass.s3_wr_st.next = self.s3_wr_st.q.val();
        self.bypass.s3_entry.next = self.s3_cfg_entry.q.val();
        self.bypass.byp1_st.next = self.byp1_st.q.val();

        // ---- Stage 2: the entry is resolved (in `bypass`) and classified (rules 1–5).
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_is_cfg.d.next = self.s2_is_cfg.q.val();
        self.s3_port.d.next = self.s2_port.q.val();
        self.s3_port_hot.d.next = self.s2_port_hot.q.val();
        self.s3_cgid.d.next = self.s2_cgid.q.val();
        self.s3_tid.d.next = self.s2_tid.q.val();
        self.s3_cfg_op.d.next = self.s2_cfg_op.q.val();
        self.s3_cfg_entry.d.next = self.s2_cfg_entry.q.val();
        self.s3_cfg_counter.d.next = self.s2_cfg_counter.q.val();
        self.s3_cfg_tid.d.next = self.s2_cfg_tid.q.val();
        self.s3_tick.d.next = self.s2_tick.q.val();
        self.s3_epoch.d.next = self.s2_epoch.q.val();
        self.s3_reject.d.next = self.s2_reject.q.val();
        self.s3_wr_tbl.d.next = self.s2_wr_tbl.q.val();
        self.s3_wr_st.d.next = self.s2_wr_st.q.val();
        self.s3_entry.d.next = self.bypass.tbl_word.val();
        self.classify.port.next = self.s2_port.q.val();
        self.classify.op.next = self.s2_op.q.val();
        self.classify.bad_payload.next = self.s2_bad.q.val();
        self.classify.e_valid.next = self
            .bypass
            .tbl_word
            .val()
            .get_bit(self.e_valid_at.val().index());
        self.classify.e_is_root.next = self
            .bypass
            .tbl_word
            .val()
            .get_bit(self.e_root_at.val().index());
        self.classify.e_parent.next = self
            .bypass
            .tbl_word
            .val()
            .get_bits::<P>(self.e_parent_at.val().index());
        self.classify.e_children.next = self
            .bypass
            .tbl_word
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        // A tick's port and opcode are whatever the inputs held: no packet path for it.
        self.s3_p_path.d.next = self.classify.p_path.val() & !self.s2_tick.q.val();
        self.s3_c_path.d.next = self.classify.c_path.val() & !self.s2_tick.q.val();
        self.s3_k_path.d.next = self.s2_tick.q.val()
            & self
                .bypass
                .tbl_word
                .val()
                .get_bit(self.e_valid_at.val().index())
            & !self
                .bypass
                .tbl_word
                .val()
                .get_bit(self.e_root_at.val().index());
        self.s3_v_entry.d.next = self.classify.v_entry.val();
        self.s3_status_req.d.next = self.classify.status_req.val();
        self.s3_parent_hot.d.next = self.classify.parent_hot.val();
        self.s2_children.next = self
            .bypass
            .tbl_word
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.older_rep.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<R>(self.s_rep_at.val().index());
        self.older_tid.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<TID_BITS>(self.s_tid_at.val().index());
        self.pre_fail.d.next = self
            .bypass
            .st_older
            .val()
            .get_bit(self.s_fail_at.val().index());
        self.pre_full.d.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<CSM_BITS>(self.s_csm_at.val().index())
            == self.csm_full.val();
        self.older_sent.next = self
            .bypass
            .st_older
            .val()
            .get_bits::<EPOCH_BITS>(self.s_sent_at.val().index());
        self.pre_sdiff.next = self.s2_epoch.q.val() - self.older_sent.val();
        self.pre_sent_now.d.next = self.pre_sdiff.val() == self.zero_epoch.val();
        self.pre_sent_quiet.d.next = self.pre_sdiff.val().get_bit(1);
        self.pre_diff.next = self.s2_tid.q.val() - self.older_tid.val();
        self.pre_t_same.d.next = self.pre_diff.val() == self.tid_same.val();
        self.pre_t_behind.d.next = self.pre_diff.val() == self.tid_behind.val();
        self.pre_rep_bit.d.next = self.older_rep.val().get_bit(self.s2_port.q.val().index());
        self.pre_all_now.d.next =
            (self.older_rep.val() | self.s2_port_hot.q.val()) == self.s2_children.val();
        for n in 0..N {
            self.pre_acc[n].clock.next = self.clock.val();
            self.pre_ret[n].clock.next = self.clock.val();
            self.fwd_acc[n].clock.next = self.clock.val();
            self.fwd_ret[n].clock.next = self.clock.val();
            self.pre_acc[n].reset.next = self.reset.val();
            self.pre_ret[n].reset.next = self.reset.val();
            self.fwd_acc[n].reset.next = self.reset.val();
            self.fwd_ret[n].reset.next = self.reset.val();
            self.pre_differs[n].clock.next = self.clock.val();
            self.fwd_differs[n].clock.next = self.clock.val();
            self.pre_differs[n].reset.next = self.reset.val();
            self.fwd_differs[n].reset.next = self.reset.val();
            self.pre_first[n].clock.next = self.clock.val();
            self.fwd_first[n].clock.next = self.clock.val();
            self.pre_first[n].reset.next = self.reset.val();
            self.fwd_first[n].reset.next = self.reset.val();
            self.pre_first[n].d.next = self.older_rep.val() == self.zero_r.val();
            self.older_acc[n].next = bit_cast::<15, PB>(
                self.bypass
                    .st_older
                    .val()
                    .get_bits::<PB>(self.s_acc_plen_at.val().index()),
            ) | (bit_cast::<15, 4>(
                self.bypass
                    .st_older
                    .val()
                    .get_bits::<4>(self.s_acc_rop_at.val().index()),
            ) << 8)
                | (bit_cast::<15, DB>(
                    self.bypass
                        .st_older
                        .val()
                        .get_bits::<DB>(self.s_acc_dtype_at.val().index()),
                ) << 12);
            self.pre_acc[n].d.next = self.older_acc[n].val();
            self.pre_differs[n].d.next =
                self.older_acc[n].val() != self.s2_pm[n].q.val().get_bits::<15>(0);
            self.pre_ret[n].d.next = bit_cast::<15, PB>(
                self.bypass
                    .st_older
                    .val()
                    .get_bits::<PB>(self.s_ret_plen_at.val().index()),
            ) | (bit_cast::<15, 4>(
                self.bypass
                    .st_older
                    .val()
                    .get_bits::<4>(self.s_ret_rop_at.val().index()),
            ) << 8)
                | (bit_cast::<15, DB>(
                    self.bypass
                        .st_older
                        .val()
                        .get_bits::<DB>(self.s_ret_dtype_at.val().index()),
                ) << 12);
        }

        // ---- Stage 3: decide on the entry and the bypassed state (rules 6–7).
        self.sends_s3.next = self.s3_valid.q.val() & !self.s3_is_cfg.q.val();
        self.pkt_s3.next = self.sends_s3.val() & !self.s3_tick.q.val();
        self.cfg_s3.next = self.s3_valid.q.val() & self.s3_is_cfg.q.val();
        self.csm.epoch.next = self.s3_epoch.q.val();
        self.csm.k_path.next = self.s3_k_path.q.val();
        self.csm.port_hot.next = self.s3_port_hot.q.val();
        self.csm.status_req.next = self.s3_status_req.q.val();
        self.csm.p_path.next = self.s3_p_path.q.val();
        self.csm.c_path.next = self.s3_c_path.q.val();
        self.csm.v_entry.next = self.s3_v_entry.q.val();
        self.csm.parent_hot.next = self.s3_parent_hot.q.val();
        self.csm.e_is_root.next = self.s3_entry.q.val().get_bit(self.e_root_at.val().index());
        self.csm.e_children.next = self
            .s3_entry
            .q
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.csm.g_csm.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<CSM_BITS>(self.s_csm_at.val().index());
        self.csm.g_tid.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<TID_BITS>(self.s_tid_at.val().index());
        self.csm.g_rep.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<R>(self.s_rep_at.val().index());
        self.csm.g_sent.next = self
            .bypass
            .st_word
            .val()
            .get_bits::<EPOCH_BITS>(self.s_sent_at.val().index());
        // (Each written once, unconditionally, so that the Verilog assigns them continuously
        // and the decision's outputs, read below, are not in a block that also drives them.)
        self.csm.g_fail.next = (self.bypass.st_newest.val() & self.fwd_fail.q.val())
            | (!self.bypass.st_newest.val() & self.pre_fail.q.val());
        self.csm.g_full.next = (self.bypass.st_newest.val() & self.fwd_full.q.val())
            | (!self.bypass.st_newest.val() & self.pre_full.q.val());
        self.csm.t_same.next = (self.bypass.st_newest.val() & self.fwd_t_same.q.val())
            | (!self.bypass.st_newest.val() & self.pre_t_same.q.val());
        self.csm.t_behind.next = (self.bypass.st_newest.val() & self.fwd_t_behind.q.val())
            | (!self.bypass.st_newest.val() & self.pre_t_behind.q.val());
        self.csm.rep_bit.next = (self.bypass.st_newest.val() & self.fwd_rep_bit.q.val())
            | (!self.bypass.st_newest.val() & self.pre_rep_bit.q.val());
        self.csm.all_now.next = (self.bypass.st_newest.val() & self.fwd_all_now.q.val())
            | (!self.bypass.st_newest.val() & self.pre_all_now.q.val());
        self.csm.sent_now.next = (self.bypass.st_newest.val() & self.fwd_sent_now.q.val())
            | (!self.bypass.st_newest.val() & self.pre_sent_now.q.val());
        self.csm.sent_quiet.next = (self.bypass.st_newest.val() & self.fwd_sent_quiet.q.val())
            | (!self.bypass.st_newest.val() & self.pre_sent_quiet.q.val());
        self.ev_s3.next = self.pkt_s3.val() | self.csm.retry.val();
        // A reducing engine: the shapes of the group's buffers, and the payload command.
        for n in 0..N {
            self.g_first[n].next = (self.bypass.st_newest.val() & self.fwd_first[n].q.val())
                | (!self.bypass.st_newest.val() & self.pre_first[n].q.val());
            self.meta[n].newest.next = self.bypass.st_newest.val();
            self.meta[n].pre_acc.next = self.pre_acc[n].q.val();
            self.meta[n].pre_ret.next = self.pre_ret[n].q.val();
            self.meta[n].fwd_acc.next = self.fwd_acc[n].q.val();
            self.meta[n].fwd_ret.next = self.fwd_ret[n].q.val();
            // What this decision writes, for the next operation should it be the same
            // group's (a `Write` clears both shapes).
            self.fwd_acc[n].d.next = self.meta[n].n_acc.val();
            self.fwd_ret[n].d.next = self.meta[n].n_ret.val();
            // `n_acc` is the packet's shape after a first report, else the group's.
            self.dif_p[n].next =
                self.s3_pm[n].q.val().get_bits::<15>(0) != self.s2_pm[n].q.val().get_bits::<15>(0);
            self.dif_fwd[n].next =
                self.fwd_acc[n].q.val() != self.s2_pm[n].q.val().get_bits::<15>(0);
            self.dif_pre[n].next =
                self.pre_acc[n].q.val() != self.s2_pm[n].q.val().get_bits::<15>(0);
            self.fwd_differs[n].d.next = (self.bypass.st_newest.val() & self.dif_fwd[n].val())
                | (!self.bypass.st_newest.val() & self.dif_pre[n].val());
            self.fwd_first[n].d.next = self.s3_is_cfg.q.val()
                | self.csm.restart.val()
                | (!self.csm.report.val() & self.g_first[n].val());
            if self.csm.report.val() & self.g_first[n].val() {
                self.fwd_differs[n].d.next = self.dif_p[n].val();
            }
            if self.s3_is_cfg.q.val() {
                self.fwd_acc[n].d.next = 0.into();
                self.fwd_ret[n].d.next = 0.into();
                self.fwd_differs[n].d.next = self.s2_pm[n].q.val().get_bits::<15>(0).any();
            }
            self.meta[n].p_plen.next = self.s3_pm[n].q.val().get_bits::<8>(0);
            self.meta[n].p_rop.next = self.s3_pm[n].q.val().get_bits::<4>(8);
            self.meta[n].p_dtype.next = self.s3_pm[n].q.val().get_bits::<3>(12);
            self.csm.differs[n].next = (self.bypass.st_newest.val() & self.fwd_differs[n].q.val())
                | (!self.bypass.st_newest.val() & self.pre_differs[n].q.val());
            self.csm.g_first[n].next = self.g_first[n].val();
            self.meta[n].report.next = self.csm.report.val();
            self.meta[n].first.next = self.g_first[n].val();
            self.meta[n].restart.next = self.csm.restart.val();
            self.meta[n].lag.next = self.csm.sends_lag[n].val();
            self.meta[n].fwd_req.next = self.csm.sends_req[n].val();
            self.pay[n].c_sends.next = self.sends_s3.val();
            self.pay[n].c_slot.next = self.s3_cgid.q.val().get_bits::<S>(0);
            self.pay[n].c_take.next = self.s3_pm[n].q.val().get_bit(15);
            self.pay[n].c_take_plen.next = self.s3_pm[n].q.val().get_bits::<8>(0);
            self.pay[n].c_report.next = self.csm.report.val();
            self.pay[n].c_first.next = self.g_first[n].val();
            self.pay[n].c_restart.next = self.csm.restart.val();
            self.pay[n].c_send.next = self.csm.send.val();
            self.pay[n].c_lag.next = self.csm.sends_lag[n].val();
            self.pay[n].c_resend.next = self.csm.sends_retry[n].val();
            self.pay[n].c_acc_plen.next = self.meta[n].acc_len.val();
            self.pay[n].c_ret_plen.next = self.meta[n].ret_len.val();
            self.pay[n].c_acc_nz.next = self.meta[n].acc_len_nz.val();
            self.pay[n].c_ret_nz.next = self.meta[n].ret_len_nz.val();
            self.pay[n].c_rop.next = self.s3_pm[n].q.val().get_bits::<4>(8);
            self.pay[n].c_dtype.next = self.s3_pm[n].q.val().get_bits::<3>(12);
        }
        // The same for stage 2's packet, should its group be this one: this decision's
        // state, seen from stage 2's port and entry (a `Write` resets the state).
        self.fwd_zero.next = self.s3_is_cfg.q.val() | self.csm.restart.val();
        self.fwd_kept_bit.next = self.csm.g_rep.val().get_bit(self.s2_port.q.val().index());
        self.fwd_all_kept.next =
            (self.csm.g_rep.val() | self.s2_port_hot.q.val()) == self.s2_children.val();
        self.fwd_all_rep.next =
            (self.csm.g_rep.val() | self.s3_port_hot.q.val() | self.s2_port_hot.q.val())
                == self.s2_children.val();
        // The TID is kept, advanced by a restart, or `cfg_tid` after a `Write`.
        self.fwd_diff_kept.next = self.s2_tid.q.val() - self.csm.g_tid.val();
        self.fwd_diff_next.next = self.fwd_diff_kept.val() - self.tid_step.val();
        self.fwd_diff_cfg.next = self.s2_tid.q.val() - self.s3_cfg_tid.q.val();
        self.fwd_diff.next = self.fwd_diff_kept.val();
        if self.s3_is_cfg.q.val() {
            self.fwd_diff.next = self.fwd_diff_cfg.val();
        } else if self.csm.restart.val() {
            self.fwd_diff.next = self.fwd_diff_next.val();
        }
        // `sent` is kept, stamped with stage 3's epoch, or zero after a `Write`; the
        // differences are taken before the decision chooses.
        self.fwd_sdiff_kept.next = self.s2_epoch.q.val() - self.csm.g_sent.val();
        self.fwd_sdiff_stamp.next = self.s2_epoch.q.val() - self.s3_epoch.q.val();
        self.fwd_sdiff.next = self.fwd_sdiff_kept.val();
        if self.s3_is_cfg.q.val() {
            self.fwd_sdiff.next = self.s2_epoch.q.val();
        } else if self.csm.stamp.val() {
            self.fwd_sdiff.next = self.fwd_sdiff_stamp.val();
        }
        self.fwd_sent_now.d.next = self.fwd_sdiff.val() == self.zero_epoch.val();
        self.fwd_sent_quiet.d.next = self.fwd_sdiff.val().get_bit(1);
        self.fwd_t_same.d.next = self.fwd_diff.val() == self.tid_same.val();
        self.fwd_t_behind.d.next = self.fwd_diff.val() == self.tid_behind.val();
        self.fwd_fail.d.next = !self.s3_is_cfg.q.val() & self.csm.n_fail.val();
        // Full after a last report, or if it was and neither reported nor restarted.
        self.fwd_full.d.next = self.csm.g_full.val();
        if self.fwd_zero.val() {
            self.fwd_full.d.next = false;
        } else if self.csm.report.val() {
            self.fwd_full.d.next = self.csm.all_now.val();
        }
        self.fwd_rep_bit.d.next = !self.fwd_zero.val()
            & (self.fwd_kept_bit.val()
                | (self.csm.report.val() & (self.s3_port.q.val() == self.s2_port.q.val())));
        self.fwd_all_now.d.next = self.fwd_all_kept.val();
        if self.fwd_zero.val() {
            self.fwd_all_now.d.next = self.s2_port_hot.q.val() == self.s2_children.val();
        } else if self.csm.report.val() {
            self.fwd_all_now.d.next = self.fwd_all_rep.val();
        }
        self.n_st_word.next = ((bit_cast::<SW, R>(self.csm.n_rep.val()) << self.s_rep_at.val())
            | (bit_cast::<SW, EPOCH_BITS>(self.csm.n_sent.val()) << self.s_sent_at.val())
            | (bit_cast::<SW, TID_BITS>(self.csm.n_tid.val()) << self.s_tid_at.val())
            | (bit_cast::<SW, CSM_BITS>(self.csm.n_csm.val()) << self.s_csm_at.val()))
        .replace_bit(self.s_fail_at.val().index(), self.csm.n_fail.val());
        // Every packet and tick writes its group's state back (unchanged for the drops 1–3
        // and the invisible ticks); an accepted `Write` resets it to Idle at `cfg_tid`.
        self.cfg_st_word.next =
            bit_cast::<SW, TID_BITS>(self.s3_cfg_tid.q.val()) << self.s_tid_at.val();
        self.wr_st_word.next = self.n_st_word.val();
        for n in 0..N {
            self.wr_st_word.next = self.n_st_word.val() | self.meta[n].meta_word.val();
        }
        if self.s3_is_cfg.q.val() {
            self.wr_st_word.next = self.cfg_st_word.val();
        }
        self.byp1_st.d.next = self.wr_st_word.val();

        // ---- Memory writes: the init sweep, or stage 3's.
        self.tbl.wr_en.next = self.s3_wr_tbl.q.val();
        self.tbl.wr_addr.next = self.s3_cgid.q.val();
        self.tbl.wr_data.next = self.s3_cfg_entry.q.val();
        // (The state a cycle later, from `byp1_st`: see the bypass.)
        self.st.wr_en.next = self.bypass.st_wr_en.val();
        self.st.wr_addr.next = self.bypass.st_wr_addr.val();
        self.st.wr_data.next = self.byp1_st.q.val();
        if !self.init_done.q.val() {
            self.tbl.wr_en.next = true;
            self.tbl.wr_addr.next = self.init_ptr.q.val();
            self.tbl.wr_data.next = self.zero_ew.val();
            self.st.wr_en.next = true;
            self.st.wr_addr.next = self.init_ptr.q.val();
            self.st.wr_data.next = self.zero_sw.val();
            self.init_ptr.d.next = self.init_ptr.q.val() + self.one_g.val();
            if self.init_ptr.q.val() == self.last_g.val() {
                self.init_done.d.next = true;
            }
        }

        // ---- Stage 4's registers: outputs (zero unless loaded; the output packet's fields
        // are loaded every cycle and zeroed at the ports instead, so that they do not wait for
        // the decision to send) and the counter command.
        self.o_out_valid.d.next = self.sends_s3.val() & self.csm.send.val();
        self.o_sends.d.next = self.zero_4.val();
        if self.sends_s3.val() & self.csm.send.val() {
            self.o_sends.d.next = self.one_4.val();
        }
        // The room of the next cycle (see `no_room`): what is in flight then is `carried`
        // (the count moves by the output packet less the packet taken) plus stage 1's and the
        // output register's new occupants, less the packet taken.
        self.carried.next = self.outq.count.val()
            + self.o_sends.q.val()
            + self.s1_sends.q.val()
            + self.s2_sends.q.val();
        self.s1_next.next = self.acc_pkt.val() | self.tick.val();
        self.o_next.next = self.sends_s3.val() & self.csm.send.val();
        self.no_room.d.next = self.carried.val() >= self.queue_depth.val();
        if self.s1_next.val() & self.o_next.val() {
            self.no_room.d.next = self.carried.val() >= self.queue_depth_m2.val();
            if self.outq.taken.val() {
                self.no_room.d.next = self.carried.val() >= self.queue_depth_m1.val();
            }
        } else if self.s1_next.val() | self.o_next.val() {
            self.no_room.d.next = self.carried.val() >= self.queue_depth_m1.val();
            if self.outq.taken.val() {
                self.no_room.d.next = self.carried.val() >= self.queue_depth.val();
            }
        } else if self.outq.taken.val() {
            self.no_room.d.next = self.carried.val() >= self.queue_depth_p1.val();
        }
        self.o_out_ports.d.next = self.csm.send_ports.val();
        self.o_out_cgid.d.next = self.s3_cgid.q.val();
        // A packet's answer carries its TID; a tick's FULL the group's.
        self.o_out_tid.d.next = self.s3_tid.q.val();
        if self.s3_tick.q.val() {
            self.o_out_tid.d.next = self.csm.g_tid.val();
        }
        self.o_out_op.d.next = self.csm.send_op.val();
        self.o_out_meta.d.next = 0.into();
        for n in 0..N {
            self.o_out_meta.d.next = self.meta[n].out_meta.val();
            self.o_out_nz[n].clock.next = self.clock.val();
            self.o_out_nz[n].reset.next = self.reset.val();
            self.o_out_nz[n].d.next = self.meta[n].out_nz.val();
        }
        self.o_ev_valid.d.next = self.ev_s3.val();
        self.o_ev_cgid.d.next = 0.into();
        self.o_ev_verdict.d.next = 0.into();
        self.o_ev_state.d.next = 0.into();
        self.o_ev_tid.d.next = 0.into();
        self.o_ev_fail.d.next = false;
        if self.ev_s3.val() {
            self.o_ev_cgid.d.next = self.s3_cgid.q.val();
            self.o_ev_verdict.d.next = self.csm.verdict.val();
            if self.csm.reads_group.val() | self.s3_tick.q.val() {
                self.o_ev_state.d.next = self.csm.n_csm.val();
                self.o_ev_tid.d.next = self.csm.n_tid.val();
                self.o_ev_fail.d.next = self.csm.n_fail.val();
            }
        }
        self.o_rsp_valid.d.next = self.cfg_s3.val();
        self.o_rsp_rejected.d.next = self.cfg_s3.val() & self.s3_reject.q.val();
        self.o_rsp_entry.d.next = self.zero_ew.val();
        self.o_rsp_st.d.next = self.zero_sw.val();
        if self.cfg_s3.val() {
            // A rejected `Write` answers as `ReadEntry` would.
            if self.s3_reject.q.val() | (self.s3_cfg_op.q.val() == self.cfg_read_entry.val()) {
                self.o_rsp_entry.d.next = self.s3_entry.q.val();
                self.o_rsp_st.d.next = self.bypass.st_word.val();
            } else if self.s3_cfg_op.q.val() == self.cfg_write.val() {
                self.o_rsp_entry.d.next = self.s3_cfg_entry.q.val();
                self.o_rsp_st.d.next = self.cfg_st_word.val();
            }
        }
        self.s4_count.d.next = self.pkt_s3.val();
        self.s4_tally.d.next = self.ev_s3.val();
        self.s4_verdict.d.next = self.csm.verdict.val();
        self.s4_clear.d.next = self.cfg_s3.val() & (self.s3_cfg_op.q.val() == self.cfg_clear.val());
        self.s4_read.d.next =
            self.cfg_s3.val() & (self.s3_cfg_op.q.val() == self.cfg_read_counter.val());
        self.s4_sel.d.next = self.s3_cfg_counter.q.val();

        // ---- Stage 4: the counters count, clear or are read, in operation order.
        self.counters.count.next = self.s4_count.q.val();
        self.counters.tally.next = self.s4_tally.q.val();
        self.counters.verdict.next = self.s4_verdict.q.val();
        self.counters.clear.next = self.s4_clear.q.val();
        self.counters.sel.next = self.s4_sel.q.val();
        self.rsp_counter.next = 0.into();
        if self.s4_read.q.val() {
            self.rsp_counter.next = self.counters.value.val();
        }

        // ---- Stage 4's output packet goes through the queue (shown at once if it is empty).
        self.outq.push.next = self.o_out_valid.q.val();
        self.outq.in_ports.next = self.o_out_ports.q.val();
        self.outq.in_cgid.next = self.o_out_cgid.q.val();
        self.outq.in_tid.next = self.o_out_tid.q.val();
        self.outq.in_op.next = self.o_out_op.q.val();
        self.outq.in_meta.next = self.o_out_meta.q.val();
        for n in 0..N {
            self.outq.in_nz[n].next = self.o_out_nz[n].q.val();
        }
        self.outq.ready.next = self.out_ready.val();
        // A reducing engine shows a packet with payload beat by beat, as the beats arrive.
        for n in 0..N {
            self.pay[n].head_valid.next = self.outq.out_valid.val();
            self.pay[n].head_nz.next = self.outq.head_nz[n].val();
            self.pay[n].queued_plen.next = self.outq.held_plen[n].val();
            self.pay[n].head_held.next = self.outq.head_held[n].val();
            self.pay[n].head_held_nz.next = self.outq.head_held_nz[n].val();
            self.pay[n].head_held_single.next = self.outq.head_held_single[n].val();
            self.pay[n].out_ready.next = self.out_ready.val();
            self.outq.gate[n].next = self.pay[n].leave_gate.val();
        }

        // ---- Ports: registers, but for the two readies, `rsp_counter` and the queue's head.
        self.out_valid.next = self.outq.out_valid.val();
        for n in 0..N {
            self.out_valid.next = self.pay[n].show.val();
            for m in 0..L {
                self.out_data[m].next = self.pay[n].data[m].val();
            }
        }
        self.out_plen.next = self.outq.out_meta.val().get_bits::<8>(0);
        self.out_rop.next = self.outq.out_meta.val().get_bits::<4>(8);
        self.out_dtype.next = self.outq.out_meta.val().get_bits::<3>(12);
        self.out_ports.next = self.outq.out_ports.val();
        self.out_cgid.next = self.outq.out_cgid.val();
        self.out_tid.next = self.outq.out_tid.val();
        self.out_op.next = self.outq.out_op.val();
        // (A packet waiting for its first beat is not shown: its fields are zero.)
        for n in 0..N {
            if !self.pay[n].show.val() {
                self.out_ports.next = 0.into();
                self.out_cgid.next = 0.into();
                self.out_tid.next = 0.into();
                self.out_op.next = 0.into();
                self.out_plen.next = 0.into();
                self.out_rop.next = 0.into();
                self.out_dtype.next = 0.into();
            }
        }
        self.ev_valid.next = self.o_ev_valid.q.val();
        self.ev_cgid.next = self.o_ev_cgid.q.val();
        self.ev_verdict.next = self.o_ev_verdict.q.val();
        self.ev_state.next = self.o_ev_state.q.val();
        self.ev_tid.next = self.o_ev_tid.q.val();
        self.ev_fail.next = self.o_ev_fail.q.val();
        self.rsp_valid.next = self.o_rsp_valid.q.val();
        self.rsp_rejected.next = self.o_rsp_rejected.q.val();
        self.rsp_entry_valid.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bit(self.e_valid_at.val().index());
        self.rsp_is_root.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bit(self.e_root_at.val().index());
        self.rsp_parent.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bits::<P>(self.e_parent_at.val().index());
        self.rsp_children.next = self
            .o_rsp_entry
            .q
            .val()
            .get_bits::<R>(self.e_children_at.val().index());
        self.rsp_state.next = self
            .o_rsp_st
            .q
            .val()
            .get_bits::<CSM_BITS>(self.s_csm_at.val().index());
        self.rsp_fail.next = self.o_rsp_st.q.val().get_bit(self.s_fail_at.val().index());
        self.rsp_tid.next = self
            .o_rsp_st
            .q
            .val()
            .get_bits::<TID_BITS>(self.s_tid_at.val().index());
        self.rsp_reported.next = self
            .o_rsp_st
            .q
            .val()
            .get_bits::<R>(self.s_rep_at.val().index());
    }
}

/// The engine's RTL at one parameter set, behind the interfaces the registry needs.
pub trait SwitchEngineRtl {
    /// The block as Verilog (with its two sub-modules), `header` as its leading comment.
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
    /// The block under rust-hdl's `simulate()`, as a value-vector design.
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim>;
}

impl<
        const R: usize,
        const P: usize,
        const G: usize,
        const C: usize,
        const EW: usize,
        const SW: usize,
        const L: usize,
        const N: usize,
        const PB: usize,
        const AL: usize,
        const B: usize,
        const S: usize,
        const A: usize,
        const F: usize,
        const CQ: usize,
        const O: usize,
        const DB: usize,
        const FL: usize,
        const AX: usize,
    > SwitchEngineRtl
    for SwitchEngine<R, P, G, C, EW, SW, L, N, PB, AL, B, S, A, F, CQ, O, DB, FL, AX>
{
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        let mask = self.pay.first().map_or(0, |p| p.fp_mask());
        let alu = crate::reduce_alu::odd32_module_name(AL, mask);
        let fp = crate::reduce_alu::odd32_fp_children(AL, mask);
        let mut children = vec![
            ("bypass", "switch_engine_bypass"),
            ("classify", "switch_engine_classify"),
            ("csm", "switch_engine_csm"),
            ("counters", "switch_engine_counters"),
            ("outq", "switch_engine_outq"),
            ("pay", "switch_engine_payload"),
            ("meta", "switch_engine_meta"),
            ("ipf", "switch_engine_ipf"),
            ("cmdq", "switch_engine_cmdq"),
            ("opf", "switch_engine_opf"),
            ("alu", alu.as_str()),
            ("lane", "reduce_alu_lane"),
        ];
        children.extend(fp.iter().map(|(f, m)| (f.as_str(), m.as_str())));
        emit_with_children(self, "switch_engine", header, &children)
    }
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim> {
        Box::new(crate::kit::RtlSim::from_box(self))
    }
}

fn boxed<
    const R: usize,
    const P: usize,
    const G: usize,
    const C: usize,
    const EW: usize,
    const SW: usize,
>(
    p: &SwitchEngineParams,
) -> Box<dyn SwitchEngineRtl> {
    // The retry parameters are constants of the one monomorphisation; a barrier-only engine
    // has no data lanes and no payload path (its parameters are placeholders).
    let mut e = SwitchEngine::<R, P, G, C, EW, SW, 0, 0, 1, 0, 1, 1, 2, 1, 1, 1, 2, 0, 0> {
        timer_on: Constant::new(p.retry_timer_on()),
        epoch_at: k(p.epoch_shift() as u64),
        ..Default::default()
    };
    e.connect_all();
    Box::new(e)
}

fn boxed_reducing<
    const R: usize,
    const P: usize,
    const G: usize,
    const C: usize,
    const EW: usize,
    const SW: usize,
    const L: usize,
    const PB: usize,
    const AL: usize,
    const B: usize,
    const S: usize,
    const A: usize,
    const F: usize,
    const CQ: usize,
    const O: usize,
    const DB: usize,
    const FL: usize,
    const AX: usize,
>(
    p: &SwitchEngineParams,
) -> Box<dyn SwitchEngineRtl> {
    // Built in place: the block is a quarter of a megabyte.
    let mut e =
        Box::<SwitchEngine<R, P, G, C, EW, SW, L, 1, PB, AL, B, S, A, F, CQ, O, DB, FL, AX>>::default();
    e.timer_on = Constant::new(p.retry_timer_on());
    e.epoch_at = k(p.epoch_shift() as u64);
    e.pay = [SwitchEnginePayload::new(p)];
    e.outq.set_lanes(p.lanes);
    let l = p.state_layout();
    e.meta = [SwitchEngineMeta::new(&l)];
    e.s_acc_plen_at = at(&l, "acc_plen");
    e.s_acc_rop_at = at(&l, "acc_rop");
    e.s_acc_dtype_at = at(&l, "acc_dtype");
    e.s_ret_plen_at = at(&l, "ret_plen");
    e.s_ret_rop_at = at(&l, "ret_rop");
    e.s_ret_dtype_at = at(&l, "ret_dtype");
    e.connect_all();
    e
}

/// The reducing engines the RTL builds: (radix, groups, counter_bits, max_plen, lanes,
/// slots, fp). Each is a monomorphisation of its own (the payload path's memories and queues
/// are sized by const parameters, its ALU has the floating-point datapaths or not), so the RTL
/// has the shapes the suite, the examples and the fabric's example engine use; the cycle model
/// runs any.
pub const REDUCING_SHAPES: [(usize, usize, usize, usize, usize, usize, usize); 3] = [
    (4, 16, 16, 8, 2, 4, 0),
    (16, 256, 32, 32, 4, 16, 0),
    (4, 16, 16, 8, 2, 4, 1),
];

/// The engine RTL for `p`, or `None` when `p` is not a supported parameter set (the
/// configuration loader rejects those first, naming the allowed values).
pub fn build(p: &SwitchEngineParams) -> Option<Box<dyn SwitchEngineRtl>> {
    macro_rules! pick {
        ($(($r:literal, $pb:literal, $ew:literal, $sw:literal)),*; $(($gn:literal, $gb:literal)),*) => {
            pick!(@r [$(($r, $pb, $ew, $sw)),*] [$(($gn, $gb)),*])
        };
        (@r [$(($r:literal, $pb:literal, $ew:literal, $sw:literal)),*] $gs:tt) => {
            $( if p.radix == $r { return pick!(@g $r, $pb, $ew, $sw, $gs); } )*
        };
        (@g $r:literal, $pb:literal, $ew:literal, $sw:literal, [$(($gn:literal, $gb:literal)),*]) => {{
            $( if p.groups == $gn {
                return match p.counter_bits {
                    16 => Some(boxed::<$r, $pb, $gb, 16, $ew, $sw>(p)),
                    32 => Some(boxed::<$r, $pb, $gb, 32, $ew, $sw>(p)),
                    _ => None,
                };
            } )*
            None
        }};
    }
    if !p.is_supported() {
        return None;
    }
    if p.reduces() {
        let shape = (
            p.radix,
            p.groups,
            p.counter_bits,
            p.max_plen,
            p.lanes,
            p.slots,
            p.fp,
        );
        return match REDUCING_SHAPES.iter().position(|&s| s == shape) {
            // R, P, G, C, EW, SW, L, PB, AL, B, S, A, F, CQ, O, DB, FL, AX (the ALU's tail)
            Some(0) => Some(boxed_reducing::<
                4,
                2,
                4,
                16,
                8,
                31,
                2,
                4,
                4,
                2,
                2,
                4,
                4,
                5,
                5,
                2,
                0,
                0,
            >(p)),
            Some(2) => Some(boxed_reducing::<
                4,
                2,
                4,
                16,
                8,
                33,
                2,
                4,
                4,
                2,
                2,
                4,
                4,
                5,
                5,
                3,
                4,
                { crate::reduce_alu::FP_TAIL },
            >(p)),
            Some(1) => Some(boxed_reducing::<
                16,
                4,
                8,
                32,
                22,
                47,
                4,
                6,
                8,
                3,
                4,
                7,
                5,
                6,
                6,
                2,
                0,
                0,
            >(p)),
            _ => None,
        };
    }
    pick!((4, 2, 8, 11), (8, 3, 13, 15), (16, 4, 22, 23), (32, 5, 39, 39);
          (16, 4), (256, 8), (1024, 10), (4096, 12));
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::kit::params::ParamTable;

    #[test]
    fn every_supported_parameter_set_builds_with_its_word_widths() {
        for &radix in SwitchEngineParams::KEYS[0].allowed {
            for &groups in SwitchEngineParams::KEYS[1].allowed {
                for &counter_bits in SwitchEngineParams::KEYS[2].allowed {
                    let p = SwitchEngineParams::sized(radix, groups, counter_bits);
                    assert!(p.is_supported());
                    assert!(build(&p).is_some(), "{p:?}");
                }
            }
        }
        // The EW / SW of the monomorphisations are the shared layouts' widths.
        for (radix, ew, sw) in [(4, 8, 11), (8, 13, 15), (16, 22, 23), (32, 39, 39)] {
            let p = SwitchEngineParams {
                radix,
                ..Default::default()
            };
            assert_eq!(
                (p.entry_layout().width(), p.state_layout().width()),
                (ew, sw)
            );
        }
        assert!(build(&SwitchEngineParams::sized(6, 16, 16)).is_none());
        assert!(build(&SwitchEngineParams {
            epoch_cycles: 1000,
            ..SwitchEngineParams::SMALL
        })
        .is_none());
    }
}
