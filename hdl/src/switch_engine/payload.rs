//! # The payload path (module `switch_engine_payload`)
//!
//! A reducing engine's data: the beats that follow a packet's header, the groups' two data
//! buffers and the combining, as "The payload path" in `netcoll_models::switch_engine::model`
//! specifies them (the cycle model there is compared with the engine every output every
//! cycle). The header pipeline of [`super::SwitchEngine`] decides; this block moves the data.
//!
//! - **Input.** Rule 2b on a header offered in stage 0 (`h_bad`, from the header alone), and
//!   the packet's beats. A header is taken (`h_take`) when the engine could take it (`h_base`)
//!   and the input FIFO (`ipf`, module `switch_engine_ipf`) has room for a whole packet more;
//!   it starts a packet of `beats(plen)` beats, whose later beats are taken whenever offered
//!   (`h_ready` is the engine's `pkt_ready`); the beats of a packet with `0 < plen <=
//!   max_plen` (`h_store`) go into `ipf`.
//! - **Commands.** Stage 3's decision (`c_*`: its outcome, the packet's and the group's
//!   shapes) is registered as it is (`cq_*`: the decision is late in its cycle); in the next
//!   cycle the command is made of it (the words of buffer work, where they come from and go
//!   to: "The payload path" of the cycle model), packed into one word with its lengths turned
//!   into beat counts, and joins the command FIFO (`cmdq`, module `switch_engine_cmdq`) at the
//!   edge, if there is work or beats to drop.
//! - **Engine.** One beat a cycle, in command order, from a register holding the current
//!   command (`cur`, with its next beat `cur_j` and whether that beat is its last, takes an
//!   input beat, does buffer work, all worked out a cycle ahead); the FIFO's head is loaded
//!   at the edge where the command before issues its last beat. A beat `j` issues when the
//!   beat it takes from `ipf` has arrived and no beat in flight writes the buffer word it
//!   reads after this cycle's edge (a compare with all but the last of the pipeline's stages,
//!   eight, or `8 + X` with the floating-point types: the last writes at this edge, and its
//!   result is forwarded, `hit_*` / `fwd`, because the
//!   RAMs read before they write; the compare is made a cycle ahead for each beat that can be
//!   current then, `cur_blocked`); the issue reads word `j` of the slot from both buffers
//!   (`acc`, `ret`: RAMs, one per lane, their read registered) and carries the input beat
//!   along; the ALU's operands are chosen among them as they are registered again (`op_a`,
//!   `op_b`); two cycles after the issue the reduction ALU (`alu`, module `reduce_alu_l<2L>`,
//!   six cycles, or `FP_LATENCY` = `6 + X` with the floating-point types:
//!   `reduce_alu_l<2L>_fp_odd32`)
//!   combines them, or passes one through as BOR with zero; eight cycles after the issue (`8 +
//!   X`) the result is written to the buffers and pushed into the output FIFO (`opf`, module
//!   `switch_engine_opf`).
//! - **Output.** The output queue's head (`head_valid`; `head_nz`, it has payload, from
//!   registers) is shown (`show`) while its next beat is in `opf` (at once if it has no
//!   payload), with the beat on `data`; the packet leaves with its last beat (`leave_gate`:
//!   the output queue pops it if `out_ready`). A packet with payload is shown only once the
//!   queue holds it (`head_held`; its beats come here after it arrives there), so the beat
//!   shown, the pop and the beat count are functions of the queue's registers for the held
//!   head (`head_held_nz`, `head_held_single`), `opf`'s and `out_ready`, and none runs
//!   through `show`.
//!
//! ## The ALU's lanes
//! A beat's word `k` is ALU lanes `2k` (its low half, or the whole word for a 64-bit type) and
//! `2k + 1` (its high half): a 32-bit type packs two elements to a word. For MAXLOC / MINLOC the
//! words pair up (value word `k`, index word `k + 1`, `k` even): lanes `2k`, `2k + 1` take the
//! index halves from word `k + 1`, and word `k + 1` of the result is their index outputs. The
//! index outputs are zero for every other operation, so the other words are value | index.
//! The odd lanes' results are read only for a type of 32 bits or fewer, so with the
//! floating-point types their datapaths are built without fp64 (module
//! `reduce_alu_l<2L>_fp_odd32`, see `ReduceAlu::set_fp_types_odd32`).
//!
//! # Parameters
//! `L` lanes (words a beat), `AL` = `2 L` ALU lanes, `B` = log2(max beats a packet), `S` slot
//! bits, `A` = `S + B` buffer address bits, `F` / `CQ` / `O` address bits of `ipf` /
//! `cmdq` / `opf`, `FL` the ALU's floating-point datapaths (`AL` or 0) and `X` its tail stages
//! (`FP_LATENCY - LATENCY` with them, else 0; the pipeline's `px_*`); the constants
//! (`max_plen`, `slots`, …) are set by the engine's builder.

use super::fifo::{SwitchEngineFifo, COUNT_BITS};
use crate::dff_setup;
use crate::prim::{KeptReg, Mem, Reg};
use crate::reduce_alu::ReduceAlu;
use netcoll_models::net::Opcode;
use netcoll_models::reduce_alu::{AluOp, Dtype, ALL_FP_TYPES, FIRST_RESERVED_OP};
use netcoll_models::switch_engine::{SwitchEngineParams, OP_BITS};
use rust_hdl::prelude::*;

/// The stages `p_*` of the pipeline: the cycles from a beat's issue to the edge that writes
/// its result with an ALU of latency `LATENCY` (the code names the last stage, 7, as a
/// literal: an index must be one for the back end). An ALU with the floating-point types has
/// `X` tail stages more, and the pipeline has them too (`px_*`, between stages 1 and 2):
/// `payload_pipe` = `PIPE + X` stages in all.
pub const PIPE: usize = 2 + netcoll_models::reduce_alu::LATENCY;
const _: () = assert!(PIPE == 8);
/// The stages of `p_*` whose writes a read can miss: all but the last, whose write is
/// forwarded (and every one of the tail's).
const HAZARD_STAGES: usize = PIPE - 1;
/// Those of them now that will be among them in the next cycle (the hazard is worked out a
/// cycle ahead; the tail's stages are all among them).
const STAGES_AHEAD: usize = HAZARD_STAGES - 1;

/// The index of the tail's last stage: `X - 1` (the range `last(X)..X` is empty without a
/// tail).
const fn last(x: usize) -> usize {
    x.saturating_sub(1)
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The payload path of an engine with `L` lanes (see the module docs for the parameters).
#[derive(LogicBlock)]
pub struct SwitchEnginePayload<
    const L: usize,
    const AL: usize,
    const B: usize,
    const S: usize,
    const A: usize,
    const F: usize,
    const CQ: usize,
    const O: usize,
    const FL: usize,
    const X: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // Input: the header offered in stage 0 and the beats.
    pub pkt_valid: Signal<In, bool>,
    pub pkt_data: [Signal<In, Bits<64>>; L],
    /// The engine could take a packet's header but for the payload path (initialised, no
    /// configuration offered, room in the output queue).
    pub h_base: Signal<In, bool>,
    pub h_plen: Signal<In, Bits<8>>,
    pub h_rop: Signal<In, Bits<4>>,
    /// The header's `dtype` (3 bits; `dtype[2]`: a floating-point type, malformed on a path
    /// built without them (`FL` = 0) and with LAND … BXOR).
    pub h_dtype: Signal<In, Bits<3>>,
    pub h_op: Signal<In, Bits<OP_BITS>>,
    pub h_cgid: Signal<In, Bits<16>>,
    pub h_bad: Signal<Out, bool>,
    pub h_store: Signal<Out, bool>,
    /// The engine's `pkt_ready`, and a header is taken.
    pub h_ready: Signal<Out, bool>,
    pub h_take: Signal<Out, bool>,
    // Commands from stage 3.
    /// Stage 3 holds a packet or a tick; its CGID's slot; the packet's beats are in `ipf`,
    /// its length.
    pub c_sends: Signal<In, bool>,
    pub c_slot: Signal<In, Bits<S>>,
    pub c_take: Signal<In, bool>,
    pub c_take_plen: Signal<In, Bits<8>>,
    /// The decision: a report (with no child reported before: `c_first`), a restart, a packet
    /// sent, a Lag answer, a FULL sent without a report (a retry).
    pub c_report: Signal<In, bool>,
    pub c_first: Signal<In, bool>,
    pub c_restart: Signal<In, bool>,
    pub c_send: Signal<In, bool>,
    pub c_lag: Signal<In, bool>,
    pub c_resend: Signal<In, bool>,
    /// The group's accumulator's and retained result's lengths, and whether they are not zero.
    pub c_acc_plen: Signal<In, Bits<8>>,
    pub c_ret_plen: Signal<In, Bits<8>>,
    pub c_acc_nz: Signal<In, bool>,
    pub c_ret_nz: Signal<In, bool>,
    pub c_rop: Signal<In, Bits<4>>,
    pub c_dtype: Signal<In, Bits<3>>,
    // Output: the output queue's head.
    pub head_valid: Signal<In, bool>,
    /// The head has payload.
    pub head_nz: Signal<In, bool>,
    /// The queued head's length, from a register: a packet shown with a beat is queued.
    pub queued_plen: Signal<In, Bits<8>>,
    /// The queue holds a packet; the oldest has payload; it fits in one beat (registers).
    pub head_held: Signal<In, bool>,
    pub head_held_nz: Signal<In, bool>,
    pub head_held_single: Signal<In, bool>,
    pub out_ready: Signal<In, bool>,
    pub show: Signal<Out, bool>,
    pub leave_gate: Signal<Out, bool>,
    pub data: [Signal<Out, Bits<64>>; L],

    ipf: SwitchEngineFifo<L, F, 1>,
    cmdq: SwitchEngineFifo<1, CQ, 0>,
    opf: SwitchEngineFifo<L, O, 0>,
    acc: [Mem<Bits<64>, A>; L],
    ret: [Mem<Bits<64>, A>; L],
    alu: ReduceAlu<AL, FL, X>,
    /// Beats still to come of the packet being received, and whether they are stored.
    in_left: Reg<Bits<9>>,
    in_store: Reg<bool>,
    /// Beats are still to come (`in_left != 0`, a register: it decides whether a header can
    /// be taken, late in the cycle).
    in_busy: Reg<bool>,
    /// Stage 3's decision of the last edge, on its way into `cmdq`: `cq_word` holds the slot,
    /// the words taken from `ipf` (at bit 8), the operation and type (bits 36, 40).
    cq_sends: Reg<bool>,
    cq_word: Reg<Bits<64>>,
    cq_stored: Reg<bool>,
    cq_report: Reg<bool>,
    cq_first: Reg<bool>,
    cq_restart: Reg<bool>,
    cq_send: Reg<bool>,
    cq_lag: Reg<bool>,
    cq_resend: Reg<bool>,
    cq_p_plen: Reg<Bits<8>>,
    cq_acc_plen: Reg<Bits<8>>,
    cq_ret_plen: Reg<Bits<8>>,
    cq_p_nz: Reg<bool>,
    cq_acc_nz: Reg<bool>,
    cq_ret_nz: Reg<bool>,
    /// The command being issued (packed as in `cmdq`), its next beat, and whether that beat
    /// is its last.
    cur_valid: Reg<bool>,
    cur: Reg<Bits<64>>,
    cur_j: Reg<Bits<9>>,
    /// The beat after it, as a word index in the slot (`cur_j + 1` in `B` bits): the hazard
    /// compares of the command's next beat read it from a register, not through an adder.
    cur_jb_next: Reg<Bits<B>>,
    /// The current beat's buffer word (slot and `cur_j`), a copy for the RAMs' read ports:
    /// their many address loads stay off `cur` and `cur_j`, which the hazard compares read.
    cur_rd_addr: KeptReg<Bits<A>>,
    cur_last: Reg<bool>,
    /// That beat takes an input beat / does buffer work (`j < take`, `j < work`).
    cur_takes: Reg<bool>,
    cur_works: Reg<bool>,
    /// That beat does buffer work and a beat in flight writes the word it reads after this
    /// cycle's edge (the read-after-write hazard, worked out a cycle ahead).
    cur_blocked: Reg<bool>,
    /// The command's beats from the current one on, that take an input beat / do buffer work
    /// / in all (`take - j`, `work - j` as far as positive, `span - j`): the next beat's flags
    /// are compares of these with small constants, not of `j + 1` with the counts.
    rem_take: Reg<Bits<9>>,
    rem_work: Reg<Bits<9>>,
    rem_span: Reg<Bits<9>>,
    /// The pipeline: element `k` holds the beat issued `k + 1` cycles ago.
    p_valid: [Reg<bool>; PIPE],
    p_slot: [Reg<Bits<S>>; PIPE],
    p_j: [Reg<Bits<B>>; PIPE],
    p_wr_acc: [Reg<bool>; PIPE],
    p_wr_ret: [Reg<bool>; PIPE],
    p_emit: [Reg<bool>; PIPE],
    /// The ALU combines 32-bit elements / MAXLOC or MINLOC pairs.
    p_narrow: [Reg<bool>; PIPE],
    p_loc: [Reg<bool>; PIPE],
    /// The pipeline's tail: `X` more stages (the ALU's tail, none without the floating-point
    /// types) between `p_*[1]` and `p_*[2]`, so that the last stage stays `p_*[7]`: element
    /// `m` holds the beat issued `m + 3` cycles ago, and `p_*[k]` for `k >= 2` the beat issued
    /// `k + 1 + X` cycles ago.
    px_valid: [Reg<bool>; X],
    px_slot: [Reg<Bits<S>>; X],
    px_j: [Reg<Bits<B>>; X],
    px_wr_acc: [Reg<bool>; X],
    px_wr_ret: [Reg<bool>; X],
    px_emit: [Reg<bool>; X],
    px_narrow: [Reg<bool>; X],
    px_loc: [Reg<bool>; X],
    /// What the first two stages need to feed the ALU: the buffer read, the input beat, how
    /// they are combined.
    s1_src_acc: Reg<bool>,
    s1_src_ret: Reg<bool>,
    s1_use_in: Reg<bool>,
    s1_combine: Reg<bool>,
    s1_rop: Reg<Bits<4>>,
    s1_dtype: Reg<Bits<3>>,
    s2_combine: Reg<bool>,
    s2_rop: Reg<Bits<4>>,
    s2_dtype: Reg<Bits<3>>,
    /// Stage 2's type is one of 32 bits or fewer: a word is two elements.
    s2_narrow: Signal<Local, bool>,
    /// The issued command's type is one of 32 bits or fewer.
    f_narrow: Signal<Local, bool>,
    b1: [Reg<Bits<64>>; L],
    /// The ALU's operands: the buffer word read and the input beat, or one of them and 0
    /// (chosen as they are registered, so that the ALU's inputs come straight from
    /// registers).
    op_a: [Reg<Bits<64>>; L],
    op_b: [Reg<Bits<64>>; L],
    /// The result written at the edge that ended the read's cycle, to the word read: the
    /// RAMs read before they write, so it is forwarded.
    hit_acc: Reg<bool>,
    hit_ret: Reg<bool>,
    fwd: [Reg<Bits<64>>; L],
    /// Words of the output queue's head sent once its next beat is: `(beats taken + 1) ×
    /// lanes`, held XOR `lanes` so that it is zero at reset (one compare with the head's
    /// length finds the last beat, with no adder before it).
    out_words: Reg<Bits<12>>,
    /// The head has had a beat taken, and then whether its next beat is its last (worked out
    /// as the beat before was taken; before any, the head's length alone decides:
    /// `head_held_single`, so that `last` is a function of registers without a carry chain).
    out_mid: Reg<bool>,
    out_mid_last: Reg<bool>,
    /// `ipf` has no room for a whole packet more (its count is above `room_max`; a register,
    /// worked out on the count before this edge's push and pop choose).
    ipf_full: Reg<bool>,

    h_nz: Signal<Local, bool>,
    ipf_room: Signal<Local, bool>,
    h_loc: Signal<Local, bool>,
    /// Bit `dtype[1:0]` of `fp_types`: the floating-point type is built in.
    h_fp_built: Signal<Local, bool>,
    /// The header's length is at most `max_plen` (a power of two: no high bit set, or exactly
    /// it; compares with a constant written as such map to LUTs, not to a carry chain).
    plen_fits: Signal<Local, bool>,
    h_left: Signal<Local, Bits<9>>,
    beat_in: Signal<Local, bool>,
    c_word: Signal<Local, Bits<64>>,
    take_plen: Signal<Local, Bits<8>>,
    /// The command: words of buffer work (0 for none) and whether there are any; whether it
    /// joins `cmdq` (work, or beats to drop).
    work_plen: Signal<Local, Bits<8>>,
    work_nz: Signal<Local, bool>,
    cmd_flags: Signal<Local, Bits<64>>,
    take_beats: Signal<Local, Bits<9>>,
    work_beats: Signal<Local, Bits<9>>,
    j: Signal<Local, Bits<9>>,
    j_next: Signal<Local, Bits<9>>,
    jb: Signal<Local, Bits<B>>,
    free: Signal<Local, bool>,
    head_last: Signal<Local, bool>,
    same_addr: Signal<Local, bool>,
    /// The FIFO head's beat counts.
    head_take: Signal<Local, Bits<9>>,
    head_work: Signal<Local, Bits<9>>,
    head_span: Signal<Local, Bits<9>>,
    f_slot: Signal<Local, Bits<S>>,
    f_src_acc: Signal<Local, bool>,
    f_src_ret: Signal<Local, bool>,
    f_rop: Signal<Local, Bits<4>>,
    f_dtype: Signal<Local, Bits<3>>,
    takes: Signal<Local, bool>,
    works: Signal<Local, bool>,
    /// The hazard of the beat current in the next cycle: the same beat (no issue), the
    /// command's next beat (an issue) or the FIFO head's first beat (a command loaded), each
    /// against the beats in flight then (six of them in stages now, and the one issuing).
    hz_stay: Signal<Local, bool>,
    hz_next: Signal<Local, bool>,
    hz_new: Signal<Local, bool>,
    jb_next: Signal<Local, Bits<B>>,
    h_slot: Signal<Local, Bits<S>>,
    h_src_acc: Signal<Local, bool>,
    h_src_ret: Signal<Local, bool>,
    next_takes: Signal<Local, bool>,
    next_works: Signal<Local, bool>,
    issue: Signal<Local, bool>,
    rd_addr: Signal<Local, Bits<A>>,
    wr_addr: Signal<Local, Bits<A>>,
    /// The buffer word read (the RAMs' output, or the result forwarded).
    rd_word: [Signal<Local, Bits<64>>; L],
    opa: [Signal<Local, Bits<64>>; L],
    opb: [Signal<Local, Bits<64>>; L],
    rv: [Signal<Local, Bits<64>>; L],
    iv: [Signal<Local, Bits<64>>; L],
    word: [Signal<Local, Bits<64>>; L],
    wv: Signal<Local, bool>,
    o_nz: Signal<Local, bool>,
    words_next: Signal<Local, Bits<12>>,
    beat_out: Signal<Local, bool>,
    last: Signal<Local, bool>,
    /// The held head has payload and its next beat is in `opf`.
    beat_shown: Signal<Local, bool>,
    leave: Signal<Local, bool>,

    /// Set by the engine's builder: `max_plen`, `slots`, `lanes == 1`, `lanes - 1`,
    /// `log2(lanes)`, the most beats `ipf` may hold and still take a packet, `B`, and which
    /// words of a beat are odd.
    max_plen: Constant<Bits<8>>,
    /// The bits of a length at or above `max_plen` / of a CGID at or above `slots` (both powers of two).
    plen_high: Constant<Bits<8>>,
    slots_high: Constant<Bits<16>>,
    one_lane: Constant<bool>,
    lane_round: Constant<Bits<9>>,
    lane_shift: Constant<Bits<8>>,
    room_max: Constant<Bits<COUNT_BITS>>,
    room_max_inc: Constant<Bits<COUNT_BITS>>,
    b_shift: Constant<Bits<8>>,
    odd_words: Constant<Bits<8>>,
    first_reserved: Constant<Bits<4>>,
    /// The floating-point types the path reduces, bit `t` for `FpType::ALL[t]` (none when
    /// `FL = 0`): the configuration's `fp_types`.
    fp_types: Constant<Bits<4>>,
    /// LAND, the first operation the floating-point types do not define.
    op_land: Constant<Bits<4>>,
    op_maxloc: Constant<Bits<4>>,
    op_minloc: Constant<Bits<4>>,
    op_bor: Constant<Bits<4>>,
    dt_u64: Constant<Bits<3>>,
    op_status_req: Constant<Bits<OP_BITS>>,
    zero_count: Constant<Bits<COUNT_BITS>>,
    /// `lanes`.
    lanes_12: Constant<Bits<12>>,
    /// Every bit of a count but its lowest.
    above_one_9: Constant<Bits<9>>,
    one_9: Constant<Bits<9>>,
    one_b: Constant<Bits<B>>,
    two_9: Constant<Bits<9>>,
    half: Constant<Bits<8>>,
    low_half: Constant<Bits<64>>,
    /// Every bit of a command but its two lengths.
    lengths_out: Constant<Bits<64>>,
    zero_64: Constant<Bits<64>>,
}

impl<
        const L: usize,
        const AL: usize,
        const B: usize,
        const S: usize,
        const A: usize,
        const F: usize,
        const CQ: usize,
        const O: usize,
        const FL: usize,
        const X: usize,
    > SwitchEnginePayload<L, AL, B, S, A, F, CQ, O, FL, X>
{
    /// The block for the reducing engine `p` (whose lanes, beats and slots are `L`, `2^B`,
    /// `2^S`).
    pub fn new(p: &SwitchEngineParams) -> Self {
        assert!(
            p.lanes == L
                && AL == 2 * L
                && A == S + B
                && p.max_beats() == 1 << B
                && p.slots == 1 << S
                && p.max_plen.is_power_of_two()
                && FL == if p.reduces_fp() { AL } else { 0 }
                && PIPE + X == netcoll_models::switch_engine::model::payload_pipe(p)
        );
        let ipf_depth = netcoll_models::switch_engine::model::ipf_depth(p);
        let mut s = Self::with(p.max_plen, p.slots, ipf_depth - p.max_beats());
        if FL > 0 {
            let mask = p.alu().fp_mask();
            s.fp_types = k(mask as u64);
            // The odd lanes only ever reduce a word's high half, a type of 32 bits or fewer.
            s.alu.set_fp_types_odd32(mask);
        }
        s
    }

    /// The floating-point types the path reduces (0: none).
    pub fn fp_mask(&self) -> usize {
        self.fp_types.val().index()
    }

    fn with(max_plen: usize, slots: usize, room_max: usize) -> Self {
        let odd = (0..L).filter(|w| w % 2 == 1).fold(0, |m, w| m | 1 << w);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pkt_valid: Default::default(),
            pkt_data: core::array::from_fn(|_| Default::default()),
            h_base: Default::default(),
            h_plen: Default::default(),
            h_rop: Default::default(),
            h_dtype: Default::default(),
            h_op: Default::default(),
            h_cgid: Default::default(),
            h_bad: Default::default(),
            h_store: Default::default(),
            h_ready: Default::default(),
            h_take: Default::default(),
            c_sends: Default::default(),
            c_slot: Default::default(),
            c_take: Default::default(),
            c_take_plen: Default::default(),
            c_report: Default::default(),
            c_first: Default::default(),
            c_restart: Default::default(),
            c_send: Default::default(),
            c_lag: Default::default(),
            c_resend: Default::default(),
            c_acc_plen: Default::default(),
            c_ret_plen: Default::default(),
            c_acc_nz: Default::default(),
            c_ret_nz: Default::default(),
            c_rop: Default::default(),
            c_dtype: Default::default(),
            head_valid: Default::default(),
            head_nz: Default::default(),
            queued_plen: Default::default(),
            head_held: Default::default(),
            head_held_nz: Default::default(),
            head_held_single: Default::default(),
            out_ready: Default::default(),
            show: Default::default(),
            leave_gate: Default::default(),
            leave: Default::default(),
            data: core::array::from_fn(|_| Default::default()),
            ipf: SwitchEngineFifo::in_lut_ram(),
            cmdq: SwitchEngineFifo::in_lut_ram(),
            opf: Default::default(),
            acc: core::array::from_fn(|_| Default::default()),
            ret: core::array::from_fn(|_| Default::default()),
            alu: Default::default(),
            in_left: Default::default(),
            in_busy: Default::default(),
            in_store: Default::default(),
            cq_sends: Default::default(),
            cq_word: Default::default(),
            cq_stored: Default::default(),
            cq_report: Default::default(),
            cq_first: Default::default(),
            cq_restart: Default::default(),
            cq_send: Default::default(),
            cq_lag: Default::default(),
            cq_resend: Default::default(),
            cq_p_plen: Default::default(),
            cq_acc_plen: Default::default(),
            cq_ret_plen: Default::default(),
            cq_p_nz: Default::default(),
            cq_acc_nz: Default::default(),
            cq_ret_nz: Default::default(),
            cur_valid: Default::default(),
            cur: Default::default(),
            cur_j: Default::default(),
            cur_jb_next: Default::default(),
            cur_rd_addr: Default::default(),
            cur_last: Default::default(),
            cur_takes: Default::default(),
            cur_works: Default::default(),
            cur_blocked: Default::default(),
            rem_take: Default::default(),
            rem_work: Default::default(),
            rem_span: Default::default(),
            p_valid: Default::default(),
            p_slot: Default::default(),
            p_j: Default::default(),
            p_wr_acc: Default::default(),
            p_wr_ret: Default::default(),
            p_emit: Default::default(),
            p_narrow: Default::default(),
            p_loc: Default::default(),
            px_valid: core::array::from_fn(|_| Default::default()),
            px_slot: core::array::from_fn(|_| Default::default()),
            px_j: core::array::from_fn(|_| Default::default()),
            px_wr_acc: core::array::from_fn(|_| Default::default()),
            px_wr_ret: core::array::from_fn(|_| Default::default()),
            px_emit: core::array::from_fn(|_| Default::default()),
            px_narrow: core::array::from_fn(|_| Default::default()),
            px_loc: core::array::from_fn(|_| Default::default()),
            s1_src_acc: Default::default(),
            s1_src_ret: Default::default(),
            s1_use_in: Default::default(),
            s1_combine: Default::default(),
            s1_rop: Default::default(),
            s1_dtype: Default::default(),
            s2_combine: Default::default(),
            s2_rop: Default::default(),
            s2_dtype: Default::default(),
            s2_narrow: Default::default(),
            f_narrow: Default::default(),
            b1: core::array::from_fn(|_| Default::default()),
            op_a: core::array::from_fn(|_| Default::default()),
            op_b: core::array::from_fn(|_| Default::default()),
            hit_acc: Default::default(),
            hit_ret: Default::default(),
            fwd: core::array::from_fn(|_| Default::default()),
            out_words: Default::default(),
            out_mid: Default::default(),
            out_mid_last: Default::default(),
            h_nz: Default::default(),
            ipf_room: Default::default(),
            ipf_full: Default::default(),
            h_loc: Default::default(),
            h_fp_built: Default::default(),
            plen_fits: Default::default(),
            h_left: Default::default(),
            beat_in: Default::default(),
            c_word: Default::default(),
            take_plen: Default::default(),
            work_plen: Default::default(),
            work_nz: Default::default(),
            cmd_flags: Default::default(),
            take_beats: Default::default(),
            work_beats: Default::default(),
            j: Default::default(),
            j_next: Default::default(),
            jb: Default::default(),
            free: Default::default(),
            head_last: Default::default(),
            same_addr: Default::default(),
            head_take: Default::default(),
            head_work: Default::default(),
            head_span: Default::default(),
            f_slot: Default::default(),
            f_src_acc: Default::default(),
            f_src_ret: Default::default(),
            f_rop: Default::default(),
            f_dtype: Default::default(),
            takes: Default::default(),
            works: Default::default(),
            hz_stay: Default::default(),
            hz_next: Default::default(),
            hz_new: Default::default(),
            jb_next: Default::default(),
            h_slot: Default::default(),
            h_src_acc: Default::default(),
            h_src_ret: Default::default(),
            next_takes: Default::default(),
            next_works: Default::default(),
            issue: Default::default(),
            rd_addr: Default::default(),
            wr_addr: Default::default(),
            rd_word: core::array::from_fn(|_| Default::default()),
            opa: core::array::from_fn(|_| Default::default()),
            opb: core::array::from_fn(|_| Default::default()),
            rv: core::array::from_fn(|_| Default::default()),
            iv: core::array::from_fn(|_| Default::default()),
            word: core::array::from_fn(|_| Default::default()),
            wv: Default::default(),
            o_nz: Default::default(),
            words_next: Default::default(),
            beat_shown: Default::default(),
            beat_out: Default::default(),
            last: Default::default(),
            max_plen: k(max_plen as u64),
            plen_high: k(!(max_plen as u64).saturating_sub(1) & 0xff),
            slots_high: k(!(slots as u64).saturating_sub(1) & 0xffff),
            one_lane: Constant::new(L == 1),
            lane_round: k((L as u64).saturating_sub(1)),
            lane_shift: k(L.trailing_zeros() as u64),
            room_max: k(room_max as u64),
            room_max_inc: k(room_max as u64 + 1),
            b_shift: k(B as u64),
            odd_words: k(odd),
            first_reserved: k(FIRST_RESERVED_OP),
            fp_types: k(if FL > 0 { ALL_FP_TYPES as u64 } else { 0 }),
            op_land: k(AluOp::LAnd.code()),
            op_maxloc: k(AluOp::MaxLoc.code()),
            op_minloc: k(AluOp::MinLoc.code()),
            op_bor: k(AluOp::BOr.code()),
            dt_u64: k(Dtype::U64.code()),
            op_status_req: k(Opcode::StatusReq.code()),
            zero_count: k(0),
            lanes_12: k(L as u64),
            above_one_9: k(0x1fe),
            one_9: k(1),
            one_b: k(1),
            two_9: k(2),
            half: k(32),
            low_half: k(0xFFFF_FFFF),
            lengths_out: k(!(0x3_FFFF << 8)),
            zero_64: k(0),
        }
    }
}

impl<
        const L: usize,
        const AL: usize,
        const B: usize,
        const S: usize,
        const A: usize,
        const F: usize,
        const CQ: usize,
        const O: usize,
        const FL: usize,
        const X: usize,
    > Default for SwitchEnginePayload<L, AL, B, S, A, F, CQ, O, FL, X>
{
    /// Unconfigured (the engine's builder replaces it with [`Self::new`]).
    fn default() -> Self {
        Self::with(0, 0, 0)
    }
}

impl<
        const L: usize,
        const AL: usize,
        const B: usize,
        const S: usize,
        const A: usize,
        const F: usize,
        const CQ: usize,
        const O: usize,
        const FL: usize,
        const X: usize,
    > Logic for SwitchEnginePayload<L, AL, B, S, A, F, CQ, O, FL, X>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_left,
            in_store,
            in_busy,
            cq_sends,
            cq_word,
            cq_stored,
            cq_report,
            cq_first,
            cq_restart,
            cq_send,
            cq_lag,
            cq_resend,
            cq_p_plen,
            cq_acc_plen,
            cq_ret_plen,
            cq_p_nz,
            cq_acc_nz,
            cq_ret_nz,
            cur_valid,
            cur,
            cur_j,
            cur_jb_next,
            cur_rd_addr,
            cur_last,
            cur_takes,
            cur_works,
            cur_blocked,
            rem_take,
            rem_work,
            rem_span,
            s1_src_acc,
            s1_src_ret,
            s1_use_in,
            s1_combine,
            s1_rop,
            s1_dtype,
            s2_combine,
            s2_rop,
            s2_dtype,
            hit_acc,
            hit_ret,
            out_words,
            out_mid,
            out_mid_last,
            ipf_full
        );
        self.ipf.clock.next = self.clock.val();
        self.ipf.reset.next = self.reset.val();
        self.cmdq.clock.next = self.clock.val();
        self.cmdq.reset.next = self.reset.val();
        self.opf.clock.next = self.clock.val();
        self.opf.reset.next = self.reset.val();
        self.alu.clock.next = self.clock.val();
        self.alu.reset.next = self.reset.val();

        // ---- Input: rule 2b on the offered header, and the beats into `ipf`.
        self.h_nz.next = self.h_plen.val().any();
        self.plen_fits.next = !(self.h_plen.val() & self.plen_high.val()).any()
            | (self.h_plen.val() == self.max_plen.val());
        self.h_loc.next =
            (self.h_rop.val() == self.op_maxloc.val()) | (self.h_rop.val() == self.op_minloc.val());
        // Only read with `dtype[2]` set (a floating-point type).
        match self.h_dtype.val().index() {
            4 => {
                self.h_fp_built.next = self.fp_types.val().get_bit(0);
            }
            5 => {
                self.h_fp_built.next = self.fp_types.val().get_bit(1);
            }
            6 => {
                self.h_fp_built.next = self.fp_types.val().get_bit(2);
            }
            7 => {
                self.h_fp_built.next = self.fp_types.val().get_bit(3);
            }
            _ => {
                self.h_fp_built.next = false;
            }
        }
        self.h_bad.next = self.h_rop.val().any() | self.h_dtype.val().any();
        if self.h_nz.val() {
            self.h_bad.next = !self.plen_fits.val()
                | (self.h_cgid.val() & self.slots_high.val()).any()
                | (self.h_rop.val() >= self.first_reserved.val())
                | (self.h_loc.val() & (self.h_plen.val().get_bit(0) | self.one_lane.val()))
                | (self.h_op.val() == self.op_status_req.val())
                | (self.h_dtype.val().get_bit(2)
                    & (!self.h_fp_built.val() | (self.h_rop.val() >= self.op_land.val())));
        }
        self.h_store.next = self.h_nz.val() & self.plen_fits.val();
        // Beats after the header's first: `beats(plen) - 1 = (plen - 1) / lanes` (plen > 0).
        self.h_left.next =
            (bit_cast::<9, 8>(self.h_plen.val()) - self.one_9.val()) >> self.lane_shift.val();
        self.ipf_room.next = !self.ipf_full.q.val();
        self.h_ready.next = self.in_busy.q.val() | (self.h_base.val() & self.ipf_room.val());
        self.h_take.next =
            !self.in_busy.q.val() & self.h_base.val() & self.pkt_valid.val() & self.ipf_room.val();
        self.beat_in.next = self.in_busy.q.val() & self.pkt_valid.val();
        self.ipf.push.next =
            (self.beat_in.val() & self.in_store.q.val()) | (self.h_take.val() & self.h_store.val());
        for n in 0..L {
            self.ipf.push_data[n].next = self.pkt_data[n].val();
        }
        if self.beat_in.val() {
            self.in_left.d.next = self.in_left.q.val() - self.one_9.val();
            self.in_busy.d.next = (self.in_left.q.val() & self.above_one_9.val()).any();
        }
        if self.h_take.val() {
            self.in_store.d.next = self.h_store.val();
            self.in_left.d.next = 0.into();
            self.in_busy.d.next = false;
            if self.h_nz.val() {
                self.in_left.d.next = self.h_left.val();
                self.in_busy.d.next = self.h_left.val().any();
            }
        }

        // ---- Commands: stage 3's decision registered as it is (it is late in its cycle),
        // then the command made of it, packed with its lengths turned into beat counts.
        self.take_plen.next = 0.into();
        if self.c_take.val() {
            self.take_plen.next = self.c_take_plen.val();
        }
        self.c_word.next = bit_cast::<64, S>(self.c_slot.val())
            | (bit_cast::<64, 8>(self.take_plen.val()) << 8)
            | (bit_cast::<64, 4>(self.c_rop.val()) << 36)
            | (bit_cast::<64, 3>(self.c_dtype.val()) << 40);
        self.cq_sends.d.next = self.c_sends.val();
        self.cq_word.d.next = self.c_word.val();
        self.cq_stored.d.next = self.c_take.val();
        self.cq_report.d.next = self.c_report.val();
        self.cq_first.d.next = self.c_first.val();
        self.cq_restart.d.next = self.c_restart.val();
        self.cq_send.d.next = self.c_send.val();
        self.cq_lag.d.next = self.c_lag.val();
        self.cq_resend.d.next = self.c_resend.val();
        self.cq_p_plen.d.next = self.c_take_plen.val();
        self.cq_acc_plen.d.next = self.c_acc_plen.val();
        self.cq_ret_plen.d.next = self.c_ret_plen.val();
        self.cq_p_nz.d.next = self.c_take_plen.val().any();
        self.cq_acc_nz.d.next = self.c_acc_nz.val();
        self.cq_ret_nz.d.next = self.c_ret_nz.val();
        // A counted contribution (combined unless it is the first) and the parent's EXIT take
        // the packet's beats; a retry up sends the accumulator, a Lag answer the retained
        // result.
        self.work_plen.next = 0.into();
        self.work_nz.next = false;
        if self.cq_report.q.val() | self.cq_restart.q.val() {
            self.work_plen.next = self.cq_p_plen.q.val();
            self.work_nz.next = self.cq_p_nz.q.val();
        } else if self.cq_lag.q.val() {
            self.work_plen.next = self.cq_ret_plen.q.val();
            self.work_nz.next = self.cq_ret_nz.q.val();
        } else if self.cq_resend.q.val() {
            self.work_plen.next = self.cq_acc_plen.q.val();
            self.work_nz.next = self.cq_acc_nz.q.val();
        }
        self.cmd_flags.next = self
            .zero_64
            .val()
            .replace_bit(
                26,
                (self.cq_report.q.val() & !self.cq_first.q.val()) | self.cq_resend.q.val(),
            )
            .replace_bit(27, self.cq_lag.q.val())
            .replace_bit(28, self.cq_report.q.val() | self.cq_restart.q.val())
            .replace_bit(29, self.cq_report.q.val() & !self.cq_first.q.val())
            .replace_bit(30, self.cq_report.q.val())
            .replace_bit(31, self.cq_restart.q.val())
            .replace_bit(32, self.cq_send.q.val());
        self.cmdq.push.next = self.cq_sends.q.val() & (self.cq_stored.q.val() | self.work_nz.val());
        self.take_beats.next = (self.cq_word.q.val().get_bits::<9>(8) + self.lane_round.val())
            >> self.lane_shift.val();
        self.work_beats.next = (bit_cast::<9, 8>(self.work_plen.val()) + self.lane_round.val())
            >> self.lane_shift.val();
        self.cmdq.push_data[0].next = (self.cq_word.q.val() & self.lengths_out.val())
            | self.cmd_flags.val()
            | (bit_cast::<64, 9>(self.take_beats.val()) << 8)
            | (bit_cast::<64, 9>(self.work_beats.val()) << 17);

        // ---- Engine: the current command, a register loaded from the FIFO's head.
        self.j.next = self.cur_j.q.val();
        self.jb.next = self.cur_j.q.val().get_bits::<B>(0);
        self.f_slot.next = self.cur.q.val().get_bits::<S>(0);
        self.f_src_acc.next = self.cur.q.val().get_bit(26);
        self.f_src_ret.next = self.cur.q.val().get_bit(27);
        self.f_rop.next = self.cur.q.val().get_bits::<4>(36);
        self.f_dtype.next = self.cur.q.val().get_bits::<3>(40);
        // I32, U32, F16, BF16, F32: codes 0, 1, 4, 5, 6.
        self.f_narrow.next = !self.f_dtype.val().get_bit(1)
            | (self.f_dtype.val().get_bit(2) & !self.f_dtype.val().get_bit(0));
        self.takes.next = self.cur_takes.q.val();
        self.works.next = self.cur_works.q.val();
        self.issue.next = self.cur_valid.q.val()
            & (!self.takes.val() | self.ipf.nonempty.val())
            & !self.cur_blocked.q.val();
        self.ipf.pop.next = self.issue.val() & self.takes.val();
        self.ipf_full.d.next = self.ipf.count[0].val() > self.room_max.val();
        if self.ipf.push.val() & !self.ipf.pop.val() {
            self.ipf_full.d.next = self.ipf.count[0].val() >= self.room_max.val();
        } else if self.ipf.pop.val() & !self.ipf.push.val() {
            self.ipf_full.d.next = self.ipf.count[0].val() > self.room_max_inc.val();
        }
        self.j_next.next = self.j.val() + self.one_9.val();
        // The hazard (a beat in flight writes the word a beat reads after this cycle's edge: its
        // write would be missed; the one at the edge is forwarded) for the next cycle's beat,
        // against what stages 1 to 6 will hold then: stages 0 to 5 now, and the beat issuing
        // now. That beat is of the same command as the next (another word) unless a command is
        // loaded, and it issues whenever one is loaded with one current.
        self.jb_next.next = self.cur_jb_next.q.val();
        self.h_slot.next = self.cmdq.head[0].val().get_bits::<S>(0);
        self.h_src_acc.next = self.cmdq.head[0].val().get_bit(26);
        self.h_src_ret.next = self.cmdq.head[0].val().get_bit(27);
        self.next_takes.next = self.rem_take.q.val() > self.one_9.val();
        self.next_works.next = self.rem_work.q.val() > self.one_9.val();
        self.hz_stay.next = false;
        self.hz_next.next = false;
        self.hz_new.next = self.cur_valid.q.val()
            & self.works.val()
            & (self.f_slot.val() == self.h_slot.val())
            & !self.jb.val().any()
            & ((self.h_src_acc.val() & self.cur.q.val().get_bit(30))
                | (self.h_src_ret.val() & self.cur.q.val().get_bit(31)));
        for n in 0..STAGES_AHEAD {
            if self.p_valid[n].q.val()
                & (self.p_slot[n].q.val() == self.f_slot.val())
                & ((self.f_src_acc.val() & self.p_wr_acc[n].q.val())
                    | (self.f_src_ret.val() & self.p_wr_ret[n].q.val()))
            {
                if self.p_j[n].q.val() == self.jb.val() {
                    self.hz_stay.next = true;
                }
                if self.p_j[n].q.val() == self.jb_next.val() {
                    self.hz_next.next = true;
                }
            }
            if self.p_valid[n].q.val()
                & (self.p_slot[n].q.val() == self.h_slot.val())
                & !self.p_j[n].q.val().any()
                & ((self.h_src_acc.val() & self.p_wr_acc[n].q.val())
                    | (self.h_src_ret.val() & self.p_wr_ret[n].q.val()))
            {
                self.hz_new.next = true;
            }
        }
        // The tail's stages (X > 0) are all among the stages a read can miss.
        for m in 0..X {
            if self.px_valid[m].q.val()
                & (self.px_slot[m].q.val() == self.f_slot.val())
                & ((self.f_src_acc.val() & self.px_wr_acc[m].q.val())
                    | (self.f_src_ret.val() & self.px_wr_ret[m].q.val()))
            {
                if self.px_j[m].q.val() == self.jb.val() {
                    self.hz_stay.next = true;
                }
                if self.px_j[m].q.val() == self.jb_next.val() {
                    self.hz_next.next = true;
                }
            }
            if self.px_valid[m].q.val()
                & (self.px_slot[m].q.val() == self.h_slot.val())
                & !self.px_j[m].q.val().any()
                & ((self.h_src_acc.val() & self.px_wr_acc[m].q.val())
                    | (self.h_src_ret.val() & self.px_wr_ret[m].q.val()))
            {
                self.hz_new.next = true;
            }
        }
        self.head_take.next = self.cmdq.head[0].val().get_bits::<9>(8);
        self.head_work.next = self.cmdq.head[0].val().get_bits::<9>(17);
        self.head_span.next = self.head_work.val();
        if self.head_take.val() > self.head_work.val() {
            self.head_span.next = self.head_take.val();
        }
        // The head's first beat is its last: neither count exceeds one.
        self.head_last.next = !(self.cmdq.head[0].val().get_bits::<8>(9).any()
            | self.cmdq.head[0].val().get_bits::<8>(18).any());
        // Done with the command (or none): load the next at this edge.
        self.free.next = !self.cur_valid.q.val() | (self.issue.val() & self.cur_last.q.val());
        self.cmdq.pop.next = self.free.val() & self.cmdq.nonempty.val();
        if self.free.val() {
            self.cur.d.next = self.cmdq.head[0].val();
            self.cur_valid.d.next = self.cmdq.nonempty.val();
            self.cur_j.d.next = 0.into();
            self.cur_jb_next.d.next = self.one_b.val();
            self.cur_rd_addr.d.next = bit_cast::<A, S>(self.h_slot.val()) << self.b_shift.val();
            self.cur_last.d.next = self.head_last.val();
            self.cur_takes.d.next = self.head_take.val().any();
            self.cur_works.d.next = self.head_work.val().any();
            self.cur_blocked.d.next = self.head_work.val().any() & self.hz_new.val();
            self.rem_take.d.next = self.head_take.val();
            self.rem_work.d.next = self.head_work.val();
            self.rem_span.d.next = self.head_span.val();
        } else if self.issue.val() {
            self.cur_j.d.next = self.j_next.val();
            self.cur_jb_next.d.next = self.cur_jb_next.q.val() + self.one_b.val();
            self.cur_rd_addr.d.next = (bit_cast::<A, S>(self.f_slot.val()) << self.b_shift.val())
                | bit_cast::<A, B>(self.jb_next.val());
            // (Not the last beat, so at least two were left.)
            self.cur_last.d.next = self.rem_span.q.val() <= self.two_9.val();
            self.cur_takes.d.next = self.next_takes.val();
            self.cur_works.d.next = self.next_works.val();
            self.rem_span.d.next = self.rem_span.q.val() - self.one_9.val();
            if self.takes.val() {
                self.rem_take.d.next = self.rem_take.q.val() - self.one_9.val();
            }
            if self.works.val() {
                self.rem_work.d.next = self.rem_work.q.val() - self.one_9.val();
            }
            self.cur_blocked.d.next = self.next_works.val() & self.hz_next.val();
        } else {
            self.cur_blocked.d.next = self.works.val() & self.hz_stay.val();
        }
        self.rd_addr.next = self.cur_rd_addr.q.val();

        // ---- The pipeline: stage 0 is the issue.
        for n in 0..PIPE {
            self.p_valid[n].clock.next = self.clock.val();
            self.p_slot[n].clock.next = self.clock.val();
            self.p_j[n].clock.next = self.clock.val();
            self.p_wr_acc[n].clock.next = self.clock.val();
            self.p_wr_ret[n].clock.next = self.clock.val();
            self.p_emit[n].clock.next = self.clock.val();
            self.p_narrow[n].clock.next = self.clock.val();
            self.p_loc[n].clock.next = self.clock.val();
            self.p_valid[n].reset.next = self.reset.val();
            self.p_slot[n].reset.next = self.reset.val();
            self.p_j[n].reset.next = self.reset.val();
            self.p_wr_acc[n].reset.next = self.reset.val();
            self.p_wr_ret[n].reset.next = self.reset.val();
            self.p_emit[n].reset.next = self.reset.val();
            self.p_narrow[n].reset.next = self.reset.val();
            self.p_loc[n].reset.next = self.reset.val();
        }
        self.p_valid[0].d.next = self.issue.val() & self.works.val();
        self.p_slot[0].d.next = self.f_slot.val();
        self.p_j[0].d.next = self.jb.val();
        self.p_wr_acc[0].d.next = self.cur.q.val().get_bit(30);
        self.p_wr_ret[0].d.next = self.cur.q.val().get_bit(31);
        self.p_emit[0].d.next = self.cur.q.val().get_bit(32);
        self.p_narrow[0].d.next = self.cur.q.val().get_bit(29) & self.f_narrow.val();
        self.p_loc[0].d.next = self.cur.q.val().get_bit(29)
            & ((self.f_rop.val() == self.op_maxloc.val())
                | (self.f_rop.val() == self.op_minloc.val()));
        for n in 1..PIPE {
            self.p_valid[n].d.next = self.p_valid[n - 1].q.val();
            self.p_slot[n].d.next = self.p_slot[n - 1].q.val();
            self.p_j[n].d.next = self.p_j[n - 1].q.val();
            self.p_wr_acc[n].d.next = self.p_wr_acc[n - 1].q.val();
            self.p_wr_ret[n].d.next = self.p_wr_ret[n - 1].q.val();
            self.p_emit[n].d.next = self.p_emit[n - 1].q.val();
            self.p_narrow[n].d.next = self.p_narrow[n - 1].q.val();
            self.p_loc[n].d.next = self.p_loc[n - 1].q.val();
        }
        // The tail (X > 0): after stage 1, before stage 2.
        for m in 0..X {
            self.px_valid[m].clock.next = self.clock.val();
            self.px_slot[m].clock.next = self.clock.val();
            self.px_j[m].clock.next = self.clock.val();
            self.px_wr_acc[m].clock.next = self.clock.val();
            self.px_wr_ret[m].clock.next = self.clock.val();
            self.px_emit[m].clock.next = self.clock.val();
            self.px_narrow[m].clock.next = self.clock.val();
            self.px_loc[m].clock.next = self.clock.val();
            self.px_valid[m].reset.next = self.reset.val();
            self.px_slot[m].reset.next = self.reset.val();
            self.px_j[m].reset.next = self.reset.val();
            self.px_wr_acc[m].reset.next = self.reset.val();
            self.px_wr_ret[m].reset.next = self.reset.val();
            self.px_emit[m].reset.next = self.reset.val();
            self.px_narrow[m].reset.next = self.reset.val();
            self.px_loc[m].reset.next = self.reset.val();
            if m == 0 {
                self.px_valid[m].d.next = self.p_valid[1].q.val();
                self.px_slot[m].d.next = self.p_slot[1].q.val();
                self.px_j[m].d.next = self.p_j[1].q.val();
                self.px_wr_acc[m].d.next = self.p_wr_acc[1].q.val();
                self.px_wr_ret[m].d.next = self.p_wr_ret[1].q.val();
                self.px_emit[m].d.next = self.p_emit[1].q.val();
                self.px_narrow[m].d.next = self.p_narrow[1].q.val();
                self.px_loc[m].d.next = self.p_loc[1].q.val();
            } else {
                self.px_valid[m].d.next = self.px_valid[m - 1].q.val();
                self.px_slot[m].d.next = self.px_slot[m - 1].q.val();
                self.px_j[m].d.next = self.px_j[m - 1].q.val();
                self.px_wr_acc[m].d.next = self.px_wr_acc[m - 1].q.val();
                self.px_wr_ret[m].d.next = self.px_wr_ret[m - 1].q.val();
                self.px_emit[m].d.next = self.px_emit[m - 1].q.val();
                self.px_narrow[m].d.next = self.px_narrow[m - 1].q.val();
                self.px_loc[m].d.next = self.px_loc[m - 1].q.val();
            }
        }
        for m in last(X)..X {
            self.p_valid[2].d.next = self.px_valid[m].q.val();
            self.p_slot[2].d.next = self.px_slot[m].q.val();
            self.p_j[2].d.next = self.px_j[m].q.val();
            self.p_wr_acc[2].d.next = self.px_wr_acc[m].q.val();
            self.p_wr_ret[2].d.next = self.px_wr_ret[m].q.val();
            self.p_emit[2].d.next = self.px_emit[m].q.val();
            self.p_narrow[2].d.next = self.px_narrow[m].q.val();
            self.p_loc[2].d.next = self.px_loc[m].q.val();
        }
        self.s1_src_acc.d.next = self.f_src_acc.val();
        self.s1_src_ret.d.next = self.f_src_ret.val();
        self.s1_use_in.d.next = self.cur.q.val().get_bit(28);
        self.s1_combine.d.next = self.cur.q.val().get_bit(29);
        self.s1_rop.d.next = self.f_rop.val();
        self.s1_dtype.d.next = self.f_dtype.val();
        self.s2_combine.d.next = self.s1_combine.q.val();
        self.s2_rop.d.next = self.s1_rop.q.val();
        self.s2_dtype.d.next = self.s1_dtype.q.val();
        self.wr_addr.next = (bit_cast::<A, S>(self.p_slot[7].q.val()) << self.b_shift.val())
            | bit_cast::<A, B>(self.p_j[7].q.val());
        self.wv.next = self.p_valid[7].q.val() & self.alu.out_valid.val();
        self.same_addr.next = self.wr_addr.val() == self.rd_addr.val();
        self.hit_acc.d.next = self.wv.val() & self.p_wr_acc[7].q.val() & self.same_addr.val();
        self.hit_ret.d.next = self.wv.val() & self.p_wr_ret[7].q.val() & self.same_addr.val();
        for n in 0..L {
            self.b1[n].clock.next = self.clock.val();
            self.op_a[n].clock.next = self.clock.val();
            self.op_b[n].clock.next = self.clock.val();
            self.b1[n].reset.next = self.reset.val();
            self.op_a[n].reset.next = self.reset.val();
            self.op_b[n].reset.next = self.reset.val();
            self.b1[n].d.next = 0.into();
            if self.takes.val() {
                self.b1[n].d.next = self.ipf.head[n].val();
            }
            self.acc[n].clock.next = self.clock.val();
            self.ret[n].clock.next = self.clock.val();
            self.acc[n].rd_addr.next = self.rd_addr.val();
            self.ret[n].rd_addr.next = self.rd_addr.val();
            self.rd_word[n].next = 0.into();
            if self.s1_src_acc.q.val() {
                self.rd_word[n].next = self.acc[n].rd_data.val();
                if self.hit_acc.q.val() {
                    self.rd_word[n].next = self.fwd[n].q.val();
                }
            } else if self.s1_src_ret.q.val() {
                self.rd_word[n].next = self.ret[n].rd_data.val();
                if self.hit_ret.q.val() {
                    self.rd_word[n].next = self.fwd[n].q.val();
                }
            }
            self.op_a[n].d.next = self.rd_word[n].val();
            self.op_b[n].d.next = 0.into();
            if self.s1_combine.q.val() {
                self.op_b[n].d.next = self.b1[n].q.val();
            } else if self.s1_use_in.q.val() {
                self.op_a[n].d.next = self.b1[n].q.val();
            }
            self.opa[n].next = self.op_a[n].q.val();
            self.opb[n].next = self.op_b[n].q.val();
            self.alu.a[2 * n].next = self.opa[n].val();
            self.alu.b[2 * n].next = self.opb[n].val();
            self.alu.a[2 * n + 1].next = self.opa[n].val() >> self.half.val();
            self.alu.b[2 * n + 1].next = self.opb[n].val() >> self.half.val();
            self.alu.ai[2 * n].next = 0.into();
            self.alu.bi[2 * n].next = 0.into();
            self.alu.ai[2 * n + 1].next = 0.into();
            self.alu.bi[2 * n + 1].next = 0.into();
        }
        self.s2_narrow.next = !self.s2_dtype.q.val().get_bit(1)
            | (self.s2_dtype.q.val().get_bit(2) & !self.s2_dtype.q.val().get_bit(0));
        // MAXLOC / MINLOC: a pair's index halves come from the word after its value.
        for n in 1..L {
            self.alu.ai[2 * n - 2].next = self.opa[n].val();
            self.alu.bi[2 * n - 2].next = self.opb[n].val();
            if self.s2_narrow.val() {
                self.alu.ai[2 * n - 2].next = self.opa[n].val() & self.low_half.val();
                self.alu.bi[2 * n - 2].next = self.opb[n].val() & self.low_half.val();
            }
            self.alu.ai[2 * n - 1].next = self.opa[n].val() >> self.half.val();
            self.alu.bi[2 * n - 1].next = self.opb[n].val() >> self.half.val();
        }
        self.alu.in_valid.next = self.p_valid[1].q.val();
        self.alu.op.next = self.op_bor.val();
        self.alu.dtype.next = self.dt_u64.val();
        if self.s2_combine.q.val() {
            self.alu.op.next = self.s2_rop.q.val();
            self.alu.dtype.next = self.s2_dtype.q.val();
        }

        // ---- Eight cycles after the issue (`8 + X`): the result, written and sent on.
        for n in 0..L {
            self.rv[n].next = self.alu.r[2 * n].val();
            self.iv[n].next = self.alu.ri[2 * n].val();
            if self.p_narrow[7].q.val() {
                self.rv[n].next =
                    self.alu.r[2 * n].val() | (self.alu.r[2 * n + 1].val() << self.half.val());
                self.iv[n].next =
                    self.alu.ri[2 * n].val() | (self.alu.ri[2 * n + 1].val() << self.half.val());
            }
            self.word[n].next = self.rv[n].val() | self.iv[n].val();
            if self.p_loc[7].q.val() {
                self.word[n].next = self.rv[n].val();
            }
            if self.alu.err.val() {
                self.word[n].next = 0.into();
            }
        }
        for n in 1..L {
            if self.p_loc[7].q.val() & self.odd_words.val().get_bit(n) & !self.alu.err.val() {
                self.word[n].next = self.iv[n - 1].val();
            }
        }
        for n in 0..L {
            self.acc[n].wr_en.next = self.wv.val() & self.p_wr_acc[7].q.val();
            self.ret[n].wr_en.next = self.wv.val() & self.p_wr_ret[7].q.val();
            self.acc[n].wr_addr.next = self.wr_addr.val();
            self.ret[n].wr_addr.next = self.wr_addr.val();
            self.acc[n].wr_data.next = self.word[n].val();
            self.ret[n].wr_data.next = self.word[n].val();
            self.opf.push_data[n].next = self.word[n].val();
            self.fwd[n].clock.next = self.clock.val();
            self.fwd[n].reset.next = self.reset.val();
            self.fwd[n].d.next = self.word[n].val();
        }
        self.opf.push.next = self.wv.val() & self.p_emit[7].q.val();

        // ---- Output: the head is shown while its next beat is in `opf`.
        self.o_nz.next = self.head_nz.val();
        self.show.next = self.head_valid.val() & (!self.o_nz.val() | self.opf.nonempty.val());
        // (`show && o_nz`: a beat is shown only for a held head.)
        self.beat_shown.next =
            self.head_held.val() & self.head_held_nz.val() & self.opf.nonempty.val();
        self.beat_out.next = self.beat_shown.val() & self.out_ready.val();
        self.opf.pop.next = self.beat_out.val();
        self.words_next.next = self.out_words.q.val() ^ self.lanes_12.val();
        // The last beat: `sent + 1 == beats(plen)`, as `(sent + 1) * lanes >= plen`.
        self.last.next = self.head_held_single.val();
        if self.out_mid.q.val() {
            self.last.next = self.out_mid_last.q.val();
        }
        self.leave_gate.next =
            !self.head_held_nz.val() | (self.opf.nonempty.val() & self.last.val());
        self.leave.next = self.head_held.val() & self.leave_gate.val() & self.out_ready.val();
        if self.beat_out.val() {
            self.out_words.d.next =
                (self.words_next.val() + self.lanes_12.val()) ^ self.lanes_12.val();
            self.out_mid.d.next = true;
            self.out_mid_last.d.next = (self.words_next.val() + self.lanes_12.val())
                >= bit_cast::<12, 8>(self.queued_plen.val());
        }
        if self.leave.val() {
            self.out_words.d.next = 0.into();
            self.out_mid.d.next = false;
        }
        for n in 0..L {
            self.data[n].next = 0.into();
            if self.beat_shown.val() {
                self.data[n].next = self.opf.head[n].val();
            }
        }
    }
}
