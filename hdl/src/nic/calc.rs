//! # The CALC loop (module `nic_calc`)
//!
//! Runs CALC's elements through the reduction ALU (its instance `alu`, module
//! `reduce_alu_l<L>`, `L` the NIC's lanes),
//! one of two ways ("CALC" in `netcoll_models::nic::model`, whose state table has
//! `CalcReadA` … `CalcWriteIndex`, `CalcWait` and `CalcStream`):
//!
//! - **streaming** (`CalcStream`), when no element reads what an earlier one wrote: every cycle
//!   reads the next element's `a` from data memory and `b` from its copy `dmem_b` (MAXLOC /
//!   MINLOC: the pairs' values, then their indices, `half`), registers the words that arrived
//!   (`rd_valid`; a pair's index words when `half` is clear again), feeds the ALU from those
//!   registers after an element's last word (`op_valid`), and writes whatever result the ALU shows (`out_valid`) to the next result
//!   word (a pair's index in the next cycle, from `ri_hold`) — one element a cycle, a pair
//!   every 2 cycles; or, in lane groups (`wide`: `L > 1`, not MAXLOC / MINLOC, the strides of
//!   `a` and `b` odd or 0; "Lanes" in the model), `L` elements of a row a cycle, lane `j`
//!   reading `a` and `b` at the walks' addresses plus `j` strides (`off_a`, `off_b`) and
//!   writing its result at the result's address plus `j`;
//! - **element by element**: read `a` (and `b`, and for MAXLOC / MINLOC both indices) into the
//!   operand registers, let the ALU compute (`LATENCY` cycles, or `FP_LATENCY` with the
//!   floating-point types: `CalcAlu`, then `CalcWait` counting down `alu_wait` from
//!   `alu_wait_count(FP > 0)`), write the result (and its index).
//!
//! After the last result the result goes to a peer (a transmission of the result buffer) or the
//! WQE completes.
//!
//! The addresses come from three walks (`walk`: `a`, `b`, the result; module
//! `nic_calc_walk`) over the CALC's up to three dimensions ("Multi-dimensional arguments"):
//! `a`'s and `b`'s step as their element is read, the result's as it is written. The unit owns
//! the shape memories (`shape_dim1`, `shape_dim2`, `shape_ext`, LUT RAM, written by
//! `SET_SHAPE` and the reset sweep), read at the head WQE's shape in `SqWqe`; `SqDecode` latches
//! the shape's dimensions (`n1` … `sd2`) so that a `SET_SHAPE` does not change a running CALC.
//!
//! `SqDecode` loads the loop (the walks, the shape, the spans) from the head WQE whatever the
//! decode decides — whether it is a CALC, whether it fails, whether it waits for the transmit
//! engine: nothing else uses these registers, a CALC runs from `CalcReadA` to its end without
//! leaving its states, and every CALC passes through `SqDecode` first. So the decode's
//! decision, the longest logic of the NIC, is not in front of the loads' enables.
//!
//! The unit also checks the CALC's addresses: `SqDecode` registers the products `count ×
//! stride` and, beside them, the base plus the shape's outer span (which `SET_SHAPE` computed)
//! minus the stride, so that the multiplier has the cycle to itself; `CalcReadA` adds the two
//! to get `a`'s and `b`'s last address, and compares the last element of `a`, `b` and the result
//! with the data memory's size (outside, the WQE completes with `BAD_ADDR` before anything is
//! written) and with each other (`hazard_a`, `hazard_b`: whether the CALC streams; with a
//! shape, any overlap is a hazard).
//!
//! # Inputs
//! - `clock`, `reset`; `state`;
//! - the current WQE's `calc_op`, `calc_dtype`, `calc_count`, `calc_a`, `calc_b`, `calc_sa`,
//!   `calc_sb`, `calc_dst`, `calc_to_peer`, `calc_shape`;
//! - `shape_rd`: the shape of the WQE being latched (`SqWqe`), where the shape memories read;
//! - `shape_set`, `shape_set_index`, `shape_set_dim1`, `shape_set_dim2`: `SET_SHAPE`'s write
//!   of the dimensions (from the host unit); `shape_ext_set`, `shape_ext_index`,
//!   `shape_set_ext`: its write of their outer spans, two cycles later (see
//!   [`super::host`]); `sweep_at`: the reset sweep's index (`Init`);
//! - `dmem_data`: what data memory returned, a word a lane (lane 0 the element-by-element
//!   reads); `dmem_b_data`: what its copy for `b` returned.
//!
//! # Outputs
//! - `next_state`: the next state in the CALC states;
//! - `dmem_rd_addr`, `dmem_wr_en`, `dmem_wr_addr`, `dmem_wr_data`: data memory requests, a
//!   lane each (zero outside the CALC states); `dmem_b_rd_addr`: the read addresses of the copy
//!   for `b` (zero outside `CalcStream`); `lane_on`: the lanes that read (lane 0 always, lanes
//!   1 .. while a lane group is read);
//! - `go`: the result buffer is computed, the message the transmit engine holds for it may go
//!   (`advance_visit`: the visit is over; `await_answer`: a reliable QP's SQ awaits the
//!   answer); `cancel`: the engine drops it (`BAD_ADDR`); `complete_status`: the status of a
//!   WQE that completes, `next_state` `Complete` (`BAD_ADDR`, or `OK` = 0);
//! - `shape_ext_d`: the result's outer span of the shape read, its low 16 bits (`SqDecode`:
//!   the message's length is `count` elements plus it).

use super::calc_walk::NicCalcWalk;
use super::k;
use super::layouts::unpack;
use super::sequencer::SeqState;
use crate::dff_setup;
use crate::prim::{Mem, Reg};
use crate::reduce_alu::ReduceAlu;
use netcoll_models::nic::model::alu_wait_count;
use netcoll_models::nic::Status;
use netcoll_models::reduce_alu::{AluOp, ALL_FP_TYPES};
use rust_hdl::prelude::*;

const ALU_OP_BITS: usize = AluOp::BITS;
const DTYPE_BITS: usize = netcoll_models::reduce_alu::INT_DTYPE_BITS;
const STATUS_BITS: usize = Status::BITS;
/// Bits of a product `count × stride`: the product of rust-hdl's 16 × 16 multiplier (a 16-bit
/// element count times an 8-bit stride needs 24 of them).
const SPAN_BITS: usize = 32;
/// Bits of the last address of `a` or `b`: 16-bit base, a product, an outer span and one more
/// for a pair.
const END_BITS: usize = SPAN_BITS + 1;
/// Bits of a shape's outer span (`ShapeExtent`'s fields).
const EXT_BITS: usize = 17;
/// Bits of the shape memories' `ShapeExtent` word.
pub const SHAPE_EXT_BITS: usize = 3 * EXT_BITS;
/// Bits of a shape index (`calc_shape`).
pub const SHAPE_BITS: usize = 3;
/// Bits of the result's span: `count` pairs and an outer span.
const SPAN_D_BITS: usize = 19;
/// Bits of the result's end: a 16-bit base and its span.
const END_D_BITS: usize = 20;

crate::sub_block! {
    /// The CALC loop over a data memory of `2^DB` words in `L = 2^LB` banks, with `L` ALU
    /// lanes, with (`FP = 1`) or without the floating-point types in its ALU, whose tail has
    /// `AX` stages (`FP_TAIL` or 0); the wait counter has `AWB` bits (`alu_wait_bits(FP > 0)`).
    pub struct NicCalc<
        const DB: usize,
        const L: usize,
        const LB: usize,
        const FP: usize,
        const AX: usize,
        const AWB: usize,
    > {
        pub clock: Signal<In, Clock>,
        pub reset: Signal<In, bool>,
        pub state: Signal<In, SeqState>,
        pub calc_op: Signal<In, Bits<ALU_OP_BITS>>,
        pub calc_dtype: Signal<In, Bits<DTYPE_BITS>>,
        pub calc_fp: Signal<In, bool>,
        pub calc_count: Signal<In, Bits<16>>,
        pub calc_a: Signal<In, Bits<16>>,
        pub calc_b: Signal<In, Bits<16>>,
        pub calc_sa: Signal<In, Bits<8>>,
        pub calc_sb: Signal<In, Bits<8>>,
        pub calc_dst: Signal<In, Bits<16>>,
        pub calc_to_peer: Signal<In, bool>,
        pub calc_shape: Signal<In, Bits<SHAPE_BITS>>,
        pub shape_rd: Signal<In, Bits<SHAPE_BITS>>,
        pub shape_set: Signal<In, bool>,
        pub shape_set_index: Signal<In, Bits<SHAPE_BITS>>,
        pub shape_set_dim1: Signal<In, Bits<64>>,
        pub shape_set_dim2: Signal<In, Bits<64>>,
        pub shape_ext_set: Signal<In, bool>,
        pub shape_ext_index: Signal<In, Bits<SHAPE_BITS>>,
        pub shape_set_ext: Signal<In, Bits<SHAPE_EXT_BITS>>,
        pub sweep_at: Signal<In, Bits<SHAPE_BITS>>,
        pub shape_ext_d: Signal<Out, Bits<16>>,
        pub dmem_data: [Signal<In, Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        /// What the copy for `b` returned (a streaming CALC's `b`).
        pub dmem_b_data: [Signal<In, Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        pub next_state: Signal<Out, SeqState>,
        pub dmem_rd_addr: [Signal<Out, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        /// The read addresses of the copy for `b` (zero outside `CalcStream`).
        pub dmem_b_rd_addr: [Signal<Out, Bits<DB>>; L] =
            core::array::from_fn(|_| Default::default()),
        pub lane_on: [Signal<Out, bool>; L] = core::array::from_fn(|_| Default::default()),
        pub dmem_wr_en: [Signal<Out, bool>; L] = core::array::from_fn(|_| Default::default()),
        pub dmem_wr_addr: [Signal<Out, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        pub dmem_wr_data: [Signal<Out, Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        pub reliable: Signal<In, bool>,
        pub go: Signal<Out, bool>,
        pub cancel: Signal<Out, bool>,
        pub advance_visit: Signal<Out, bool>,
        pub await_answer: Signal<Out, bool>,
        pub complete_status: Signal<Out, Bits<STATUS_BITS>>,
        /// The WQE names a floating-point type this NIC is built without, or an operation the
        /// floating-point types do not define: the sequencer completes it with `BadArg`.
        pub fp_refused: Signal<Out, bool>,
        /// Streaming: elements still to read.
        rd_more: Reg<bool>,
        /// The walks of `a`, `b` and the result, 0, 1, 2 (`a`'s ends with the last element read, or
        /// computed element by element; the result's with the last written).
        walk: [NicCalcWalk<DB>; 3] = core::array::from_fn(|_| Default::default()),
        /// The walks of `a` and `b` are at their last element (they count alike).
        args_last: Signal<Local, bool>,
        /// `SqDecode`: the loop is loaded from the WQE, whatever the decode decides (see the
        /// module docs).
        start: Signal<Local, bool>,
        /// The shapes (see "Multi-dimensional arguments"): dimensions 1 and 2 and the outer
        /// spans, read at `shape_rd`, split by `dim_read` and `ext_read`.
        shape_dim1: Mem<Bits<64>, SHAPE_BITS> = Mem::distributed(),
        shape_dim2: Mem<Bits<64>, SHAPE_BITS> = Mem::distributed(),
        shape_ext: Mem<Bits<SHAPE_EXT_BITS>, SHAPE_BITS> = Mem::distributed(),
        dim_read: [unpack::ShapeDim; 2] = core::array::from_fn(|_| Default::default()),
        ext_read: unpack::ShapeExtent,
        /// The shape read, its counts 0 taken as 1.
        n1_read: Signal<Local, Bits<16>>,
        n2_read: Signal<Local, Bits<16>>,
        /// The running CALC's shape, latched at `start`.
        n1: Reg<Bits<16>>,
        n2: Reg<Bits<16>>,
        sa1: Reg<Bits<16>>,
        sb1: Reg<Bits<16>>,
        sd1: Reg<Bits<16>>,
        sa2: Reg<Bits<16>>,
        sb2: Reg<Bits<16>>,
        sd2: Reg<Bits<16>>,
        /// The walks' dimension 1 and 2 counts: the shape read at `start`, else the latched.
        n1_now: Signal<Local, Bits<16>>,
        n2_now: Signal<Local, Bits<16>>,
        /// The result's inner stride: an element's words.
        elem_words: Signal<Local, Bits<16>>,
        /// The CALC has a shape: an argument's walk may fall behind the result's.
        shaped: Signal<Local, bool>,
        /// Streaming: `a` and `b` were read in the previous cycle (they arrive now).
        rd_valid: Reg<bool>,
        /// Streaming MAXLOC / MINLOC: the pairs' index words are read next.
        half: Reg<bool>,
        /// Streaming: the operand registers hold an element (it enters the ALU now).
        op_valid: Reg<bool>,
        /// Streaming MAXLOC / MINLOC: write `ri_hold`, the index of the value written in the
        /// previous cycle.
        wr_index: Reg<bool>,
        ri_hold: Reg<Bits<64>>,
        /// The operands, a lane each (element by element: lane 0).
        a: [Reg<Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        a_index: Reg<Bits<64>>,
        b: [Reg<Bits<64>>; L] = core::array::from_fn(|_| Default::default()),
        b_index: Reg<Bits<64>>,
        /// The CALC goes in lane groups of `L` (see the module docs); `group`: its elements.
        wide: Signal<Local, bool>,
        group: Signal<Local, Bits<16>>,
        /// The strides of `a` and `b` odd or 0.
        spread_a: Signal<Local, bool>,
        spread_b: Signal<Local, bool>,
        /// The inner strides of `a`, `b` and the result, times the group's elements.
        sa_group: Signal<Local, Bits<16>>,
        sb_group: Signal<Local, Bits<16>>,
        sd_group: Signal<Local, Bits<16>>,
        /// Lane `j`'s offsets from the walks' addresses: `j` strides of `a` and `b`.
        off_a: [Signal<Local, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        off_b: [Signal<Local, Bits<DB>>; L] = core::array::from_fn(|_| Default::default()),
        /// Lane `j` has an element of the group being read, or of the one being written.
        rd_lane: [Signal<Local, bool>; L] = core::array::from_fn(|_| Default::default()),
        wr_lane: [Signal<Local, bool>; L] = core::array::from_fn(|_| Default::default()),
        /// `j` for lane `j`, as the walks count and as an address offset.
        lane_count: [Constant<Bits<16>>; L] = core::array::from_fn(|j| k(j as u64)),
        lane_word: [Constant<Bits<DB>>; L] = core::array::from_fn(|j| k(j as u64)),
        lanes: Constant<Bits<16>> = k(L as u64),
        multi_lane: Constant<bool> = Constant::new(L > 1),
        lane_shift: Constant<Bits<4>> = k(LB as u64),
        zero64: Constant<Bits<64>> = k(0),
        /// `CalcWait` cycles still to go after this one.
        alu_wait: Reg<Bits<AWB>>,
        /// `count × calc_sa` and `× calc_sb`, registered at `start`: the multiplier has the
        /// cycle to itself (the spans `(count - 1) × stride` would put a subtraction before it
        /// and an addition after it).
        prod_a: Reg<Bits<SPAN_BITS>>,
        prod_b: Reg<Bits<SPAN_BITS>>,
        /// The rest of `a`'s and `b`'s last address, registered at `start` beside the
        /// products: base plus the shape's outer span minus the stride (modulo `2^END_BITS`;
        /// the sum with the product is the address, which fits).
        reach_a: Reg<Bits<END_BITS>>,
        reach_b: Reg<Bits<END_BITS>>,
        /// The result's span, registered at `start`.
        span_d: Reg<Bits<SPAN_D_BITS>>,
        /// The reduction ALU (`L` lanes): its inputs are the operand registers, its result is
        /// registered.
        alu: ReduceAlu<L, FP, AX>,
        /// The element type as the ALU takes it, `{calc_fp, calc_dtype}`.
        dtype3: Signal<Local, Bits<3>>,
        /// The floating-point types CALC's ALU has, bit `t` for `FpType::ALL[t]` (none when
        /// `FP = 0`; see [`NicCalc::set_fp_types`]).
        fp_types: Constant<Bits<4>> = k(if FP > 0 { ALL_FP_TYPES as u64 } else { 0 }),
        /// Bit `calc_dtype` of `fp_types`: the floating-point type is built in.
        type_built: Signal<Local, bool>,
        dtype_fp: Constant<Bits<3>> = k(4),
        alu_prod: Constant<Bits<ALU_OP_BITS>> = k(AluOp::Prod.code()),
        /// MAXLOC / MINLOC: elements are (value, index) pairs.
        is_loc: Signal<Local, bool>,
        /// An element was written (element by element).
        element_done: Signal<Local, bool>,
        /// Streaming: an element's `a` and `b` are read this cycle.
        issue: Signal<Local, bool>,
        /// Streaming: an element's result is written this cycle (for a pair, its index).
        stream_written: Signal<Local, bool>,
        /// Streaming: the read issued this cycle is an element's last (not a pair's values).
        issue_last: Signal<Local, bool>,
        /// The last result is written this cycle.
        finish: Signal<Local, bool>,
        /// The CALC streams (no element reads what an earlier one wrote; see
        /// `stream_hazard` in the model).
        stream: Signal<Local, bool>,
        hazard_a: Signal<Local, bool>,
        hazard_b: Signal<Local, bool>,
        /// The stride is too short to pass the result in place: 0, or 1 for pairs.
        short_a: Signal<Local, bool>,
        short_b: Signal<Local, bool>,
        /// `calc_dst`, `calc_a` and `calc_b` as wide as the ends they are compared with.
        dst_wide: Signal<Local, Bits<END_BITS>>,
        a_wide: Signal<Local, Bits<END_D_BITS>>,
        b_wide: Signal<Local, Bits<END_D_BITS>>,
        // The bounds check: the last words of `a`, `b` and the result.
        pair: Signal<Local, Bits<END_BITS>>,
        end_a: Signal<Local, Bits<END_BITS>>,
        end_b: Signal<Local, Bits<END_BITS>>,
        /// The result's end (one past its last word): 16-bit base plus its span.
        end_dst: Signal<Local, Bits<END_D_BITS>>,
        outside: Signal<Local, bool>,
        dmem_words_end: Constant<Bits<END_BITS>> = k(1 << DB),
        dmem_words_dst: Constant<Bits<END_D_BITS>> = k(1 << DB),
        one16: Constant<Bits<16>> = k(1),
        ok: Constant<Bits<STATUS_BITS>> = k(Status::Ok.code()),
        bad_addr: Constant<Bits<STATUS_BITS>> = k(Status::BadAddr.code()),
        alu_max_loc: Constant<Bits<ALU_OP_BITS>> = k(AluOp::MaxLoc.code()),
        alu_min_loc: Constant<Bits<ALU_OP_BITS>> = k(AluOp::MinLoc.code()),
        alu_wait_start: Constant<Bits<AWB>> = k(alu_wait_count(FP > 0)),
    }
}

impl<
        const DB: usize,
        const L: usize,
        const LB: usize,
        const FP: usize,
        const AX: usize,
        const AWB: usize,
    > NicCalc<DB, L, LB, FP, AX, AWB>
{
    /// Builds in only the floating-point types of `fp_mask` (the configuration's
    /// `nic.fp_types`), here and in the ALU; before `connect_all`. No effect when `FP = 0`.
    pub fn set_fp_types(&mut self, fp_mask: usize) {
        if FP > 0 {
            self.fp_types = k((fp_mask & ALL_FP_TYPES) as u64);
            self.alu.set_fp_types(fp_mask);
        }
    }

    /// The floating-point types built in (0: none).
    pub fn fp_mask(&self) -> usize {
        self.fp_types.val().index()
    }
}

impl<
        const DB: usize,
        const L: usize,
        const LB: usize,
        const FP: usize,
        const AX: usize,
        const AWB: usize,
    > Logic for NicCalc<DB, L, LB, FP, AX, AWB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rd_more, rd_valid, half, op_valid, wr_index, ri_hold, a_index, b_index,
            alu_wait, prod_a, prod_b, reach_a, reach_b, span_d, n1, n2, sa1, sb1, sd1, sa2, sb2,
            sd2
        );
        self.start.next = self.state.val() == SeqState::SqDecode;
        for j in 0..L {
            self.a[j].clock.next = self.clock.val();
            self.a[j].reset.next = self.reset.val();
            self.b[j].clock.next = self.clock.val();
            self.b[j].reset.next = self.reset.val();
            self.a[j].d.next = self.a[j].q.val();
            self.b[j].d.next = self.b[j].q.val();
        }
        // The shapes: written by `SET_SHAPE` and the reset sweep, read at the WQE being
        // latched.
        self.shape_dim1.clock.next = self.clock.val();
        self.shape_dim2.clock.next = self.clock.val();
        self.shape_ext.clock.next = self.clock.val();
        self.shape_dim1.rd_addr.next = self.shape_rd.val();
        self.shape_dim2.rd_addr.next = self.shape_rd.val();
        self.shape_ext.rd_addr.next = self.shape_rd.val();
        self.shape_dim1.wr_en.next = self.shape_set.val() | (self.state.val() == SeqState::Init);
        self.shape_dim2.wr_en.next = self.shape_set.val() | (self.state.val() == SeqState::Init);
        self.shape_ext.wr_en.next = self.shape_ext_set.val() | (self.state.val() == SeqState::Init);
        self.shape_dim1.wr_addr.next = self.shape_set_index.val();
        self.shape_dim2.wr_addr.next = self.shape_set_index.val();
        self.shape_ext.wr_addr.next = self.shape_ext_index.val();
        self.shape_dim1.wr_data.next = self.shape_set_dim1.val();
        self.shape_dim2.wr_data.next = self.shape_set_dim2.val();
        self.shape_ext.wr_data.next = self.shape_set_ext.val();
        if self.state.val() == SeqState::Init {
            self.shape_dim1.wr_addr.next = self.sweep_at.val();
            self.shape_dim2.wr_addr.next = self.sweep_at.val();
            self.shape_ext.wr_addr.next = self.sweep_at.val();
            self.shape_dim1.wr_data.next = 0.into();
            self.shape_dim2.wr_data.next = 0.into();
            self.shape_ext.wr_data.next = 0.into();
        }
        self.dim_read[0].dim.next = self.shape_dim1.rd_data.val();
        self.dim_read[1].dim.next = self.shape_dim2.rd_data.val();
        self.ext_read.ext.next = self.shape_ext.rd_data.val();
        self.shape_ext_d.next = self.ext_read.d.val().get_bits::<16>(0);
        self.n1_read.next = self.dim_read[0].count.val();
        if !self.dim_read[0].count.val().any() {
            self.n1_read.next = self.one16.val();
        }
        self.n2_read.next = self.dim_read[1].count.val();
        if !self.dim_read[1].count.val().any() {
            self.n2_read.next = self.one16.val();
        }
        self.n1_now.next = self.n1.q.val();
        self.n2_now.next = self.n2.q.val();
        if self.start.val() {
            self.n1_now.next = self.n1_read.val();
            self.n2_now.next = self.n2_read.val();
            self.n1.d.next = self.n1_read.val();
            self.n2.d.next = self.n2_read.val();
            self.sa1.d.next = self.dim_read[0].sa.val();
            self.sb1.d.next = self.dim_read[0].sb.val();
            self.sd1.d.next = self.dim_read[0].sd.val();
            self.sa2.d.next = self.dim_read[1].sa.val();
            self.sb2.d.next = self.dim_read[1].sb.val();
            self.sd2.d.next = self.dim_read[1].sd.val();
        }
        self.shaped.next = self.calc_shape.val().any();
        self.is_loc.next = (self.calc_op.val() == self.alu_max_loc.val())
            | (self.calc_op.val() == self.alu_min_loc.val());
        self.alu.clock.next = self.clock.val();
        self.alu.reset.next = self.reset.val();
        self.alu.in_valid.next = (self.state.val() == SeqState::CalcAlu) | self.op_valid.q.val();
        self.alu.op.next = self.calc_op.val();
        self.dtype3.next = bit_cast::<3, 2>(self.calc_dtype.val());
        if self.calc_fp.val() {
            self.dtype3.next = bit_cast::<3, 2>(self.calc_dtype.val()) | self.dtype_fp.val();
        }
        self.alu.dtype.next = self.dtype3.val();
        match self.calc_dtype.val().index() {
            0 => {
                self.type_built.next = self.fp_types.val().get_bit(0);
            }
            1 => {
                self.type_built.next = self.fp_types.val().get_bit(1);
            }
            2 => {
                self.type_built.next = self.fp_types.val().get_bit(2);
            }
            _ => {
                self.type_built.next = self.fp_types.val().get_bit(3);
            }
        }
        self.fp_refused.next = self.calc_fp.val()
            & (!self.type_built.val() | (self.calc_op.val() > self.alu_prod.val()));
        for j in 0..L {
            self.alu.a[j].next = self.a[j].q.val();
            self.alu.b[j].next = self.b[j].q.val();
            if j == 0 {
                self.alu.ai[0].next = self.a_index.q.val();
                self.alu.bi[0].next = self.b_index.q.val();
            } else {
                self.alu.ai[j].next = self.zero64.val();
                self.alu.bi[j].next = self.zero64.val();
            }
        }
        self.pair.next = 0.into();
        self.elem_words.next = 1.into();
        if self.is_loc.val() {
            self.pair.next = 1.into();
            self.elem_words.next = 2.into();
        }
        self.end_dst.next = bit_cast::<END_D_BITS, 16>(self.calc_dst.val())
            + bit_cast::<END_D_BITS, SPAN_D_BITS>(self.span_d.q.val());
        self.end_a.next = self.reach_a.q.val()
            + bit_cast::<END_BITS, SPAN_BITS>(self.prod_a.q.val())
            + self.pair.val();
        self.end_b.next = self.reach_b.q.val()
            + bit_cast::<END_BITS, SPAN_BITS>(self.prod_b.q.val())
            + self.pair.val();
        self.outside.next = (self.end_a.val() >= self.dmem_words_end.val())
            | (self.end_b.val() >= self.dmem_words_end.val())
            | (self.end_dst.val() > self.dmem_words_dst.val());
        self.dst_wide.next = bit_cast::<END_BITS, 16>(self.calc_dst.val());
        self.a_wide.next = bit_cast::<END_D_BITS, 16>(self.calc_a.val());
        self.b_wide.next = bit_cast::<END_D_BITS, 16>(self.calc_b.val());
        self.short_a.next = !self.calc_sa.val().any()
            | (self.is_loc.val() & (self.calc_sa.val() == 1))
            | self.shaped.val();
        self.short_b.next = !self.calc_sb.val().any()
            | (self.is_loc.val() & (self.calc_sb.val() == 1))
            | self.shaped.val();
        self.hazard_a.next = ((self.calc_dst.val() > self.calc_a.val())
            & (self.dst_wide.val() <= self.end_a.val()))
            | (self.short_a.val()
                & (self.calc_dst.val() <= self.calc_a.val())
                & (self.a_wide.val() < self.end_dst.val()));
        self.hazard_b.next = ((self.calc_dst.val() > self.calc_b.val())
            & (self.dst_wide.val() <= self.end_b.val()))
            | (self.short_b.val()
                & (self.calc_dst.val() <= self.calc_b.val())
                & (self.b_wide.val() < self.end_dst.val()));
        self.stream.next = !self.hazard_a.val() & !self.hazard_b.val();
        if self.start.val() {
            // rust-hdl multiplies only 16 x 16: the strides are widened to 16 bits.
            self.prod_a.d.next = self.calc_count.val() * bit_cast::<16, 8>(self.calc_sa.val());
            self.prod_b.d.next = self.calc_count.val() * bit_cast::<16, 8>(self.calc_sb.val());
            self.reach_a.d.next = bit_cast::<END_BITS, 16>(self.calc_a.val())
                + bit_cast::<END_BITS, EXT_BITS>(self.ext_read.a.val())
                - bit_cast::<END_BITS, 8>(self.calc_sa.val());
            self.reach_b.d.next = bit_cast::<END_BITS, 16>(self.calc_b.val())
                + bit_cast::<END_BITS, EXT_BITS>(self.ext_read.b.val())
                - bit_cast::<END_BITS, 8>(self.calc_sb.val());
            self.span_d.d.next = bit_cast::<SPAN_D_BITS, 16>(self.calc_count.val())
                + bit_cast::<SPAN_D_BITS, EXT_BITS>(self.ext_read.d.val());
            if self.is_loc.val() {
                self.span_d.d.next = (bit_cast::<SPAN_D_BITS, 16>(self.calc_count.val()) << 1)
                    + bit_cast::<SPAN_D_BITS, EXT_BITS>(self.ext_read.d.val());
            }
            self.rd_more.d.next = self.calc_count.val().any();
        }
        // The walks: loaded at `start`; `a` and `b` step below, as does the result.
        self.walk[0].clock.next = self.clock.val();
        self.walk[1].clock.next = self.clock.val();
        self.walk[2].clock.next = self.clock.val();
        self.walk[0].reset.next = self.reset.val();
        self.walk[1].reset.next = self.reset.val();
        self.walk[2].reset.next = self.reset.val();
        self.walk[0].load.next = self.start.val();
        self.walk[1].load.next = self.start.val();
        self.walk[2].load.next = self.start.val();
        self.walk[0].base.next = self.calc_a.val();
        self.walk[1].base.next = self.calc_b.val();
        self.walk[2].base.next = self.calc_dst.val();
        // Lane groups: `L` elements a step where the banks allow it (see the module docs).
        self.spread_a.next = !self.calc_sa.val().any() | self.calc_sa.val().get_bit(0);
        self.spread_b.next = !self.calc_sb.val().any() | self.calc_sb.val().get_bit(0);
        // (Element by element, lane 0 alone.)
        self.wide.next = self.multi_lane.val()
            & self.stream.val()
            & !self.is_loc.val()
            & self.spread_a.val()
            & self.spread_b.val();
        self.group.next = self.one16.val();
        self.sa_group.next = bit_cast::<16, 8>(self.calc_sa.val());
        self.sb_group.next = bit_cast::<16, 8>(self.calc_sb.val());
        self.sd_group.next = self.elem_words.val();
        if self.wide.val() {
            self.group.next = self.lanes.val();
            self.sa_group.next = bit_cast::<16, 8>(self.calc_sa.val()) << self.lane_shift.val();
            self.sb_group.next = bit_cast::<16, 8>(self.calc_sb.val()) << self.lane_shift.val();
            self.sd_group.next = self.lanes.val();
        }
        self.walk[0].g.next = self.group.val();
        self.walk[1].g.next = self.group.val();
        self.walk[2].g.next = self.group.val();
        self.walk[0].s0g.next = self.sa_group.val();
        self.walk[1].s0g.next = self.sb_group.val();
        self.walk[2].s0g.next = self.sd_group.val();
        for j in 0..L {
            // Lane 0 has an element while the walks have one (always, in `CalcStream`).
            if j == 0 {
                self.off_a[0].next = 0.into();
                self.off_b[0].next = 0.into();
                self.rd_lane[0].next = (self.walk[0].left.val() > self.lane_count[0].val())
                    & (self.walk[1].left.val() > self.lane_count[0].val());
                self.wr_lane[0].next = self.walk[2].left.val() > self.lane_count[0].val();
            } else {
                self.off_a[j].next =
                    self.off_a[j - 1].val() + bit_cast::<DB, 8>(self.calc_sa.val());
                self.off_b[j].next =
                    self.off_b[j - 1].val() + bit_cast::<DB, 8>(self.calc_sb.val());
                self.rd_lane[j].next = self.wide.val()
                    & (self.walk[0].left.val() > self.lane_count[j].val())
                    & (self.walk[1].left.val() > self.lane_count[j].val());
                self.wr_lane[j].next =
                    self.wide.val() & (self.walk[2].left.val() > self.lane_count[j].val());
            }
        }
        self.walk[0].s1.next = self.sa1.q.val();
        self.walk[1].s1.next = self.sb1.q.val();
        self.walk[2].s1.next = self.sd1.q.val();
        self.walk[0].s2.next = self.sa2.q.val();
        self.walk[1].s2.next = self.sb2.q.val();
        self.walk[2].s2.next = self.sd2.q.val();
        self.walk[0].n0.next = self.calc_count.val();
        self.walk[1].n0.next = self.calc_count.val();
        self.walk[2].n0.next = self.calc_count.val();
        self.walk[0].n1.next = self.n1_now.val();
        self.walk[1].n1.next = self.n1_now.val();
        self.walk[2].n1.next = self.n1_now.val();
        self.walk[0].n2.next = self.n2_now.val();
        self.walk[1].n2.next = self.n2_now.val();
        self.walk[2].n2.next = self.n2_now.val();
        self.args_last.next = self.walk[0].last.val() & self.walk[1].last.val();
        self.walk[0].step.next = false;
        self.walk[1].step.next = false;
        self.walk[2].step.next = false;

        self.next_state.next = self.state.val();
        for j in 0..L {
            self.dmem_rd_addr[j].next = 0.into();
            self.dmem_b_rd_addr[j].next = 0.into();
            // Lane 0 always reads (the host's reads share it); lanes 1 .. in a lane group.
            self.lane_on[j].next = j == 0;
            self.dmem_wr_en[j].next = false;
            self.dmem_wr_addr[j].next = 0.into();
            self.dmem_wr_data[j].next = 0.into();
        }
        self.element_done.next = false;
        self.issue.next = false;
        self.stream_written.next = false;
        self.wr_index.d.next = false;
        match self.state.val() {
            SeqState::CalcReadA => {
                self.dmem_rd_addr[0].next = self.walk[0].addr.val();
                self.next_state.next = SeqState::CalcReadB;
                if self.stream.val() {
                    self.next_state.next = SeqState::CalcStream;
                }
            }
            SeqState::CalcStream => {
                // Reads: an element's words (for a pair, its values, then its indices).
                if self.rd_more.q.val() {
                    self.issue.next = true;
                    for j in 0..L {
                        if self.rd_lane[j].val() {
                            self.lane_on[j].next = true;
                            self.dmem_rd_addr[j].next =
                                self.walk[0].addr.val() + self.off_a[j].val();
                            self.dmem_b_rd_addr[j].next =
                                self.walk[1].addr.val() + self.off_b[j].val();
                        }
                    }
                    if self.half.q.val() {
                        self.dmem_rd_addr[0].next = self.walk[0].addr.val() + 1;
                        self.dmem_b_rd_addr[0].next = self.walk[1].addr.val() + 1;
                    }
                }
                // Writes: the result the ALU shows (for a pair, its value, then its index).
                if self.wr_index.q.val() {
                    self.stream_written.next = true;
                    self.dmem_wr_en[0].next = true;
                    self.dmem_wr_addr[0].next = self.walk[2].addr.val() + 1;
                    self.dmem_wr_data[0].next = self.ri_hold.q.val();
                } else {
                    if self.alu.out_valid.val() {
                        self.stream_written.next = !self.is_loc.val();
                        self.wr_index.d.next = self.is_loc.val();
                        self.ri_hold.d.next = self.alu.ri[0].val();
                        for j in 0..L {
                            if self.wr_lane[j].val() {
                                self.dmem_wr_en[j].next = true;
                                self.dmem_wr_addr[j].next =
                                    self.walk[2].addr.val() + self.lane_word[j].val();
                                self.dmem_wr_data[j].next = self.alu.r[j].val();
                                if j > 0 {
                                    // Lanes 1 .. compute no index (their CALC is never
                                    // MAXLOC / MINLOC, so it is 0): OR-ed in, it changes no
                                    // word and synthesis removes it with the constant.
                                    self.dmem_wr_data[j].next =
                                        self.alu.r[j].val() | self.alu.ri[j].val();
                                }
                            }
                        }
                    }
                }
            }
            SeqState::CalcReadB => {
                self.a[0].d.next = self.dmem_data[0].val();
                self.dmem_rd_addr[0].next = self.walk[1].addr.val();
                self.next_state.next = SeqState::CalcOperands;
                if self.is_loc.val() {
                    self.next_state.next = SeqState::CalcReadAIndex;
                }
            }
            SeqState::CalcReadAIndex => {
                self.b[0].d.next = self.dmem_data[0].val();
                self.dmem_rd_addr[0].next = self.walk[0].addr.val() + 1;
                self.next_state.next = SeqState::CalcReadBIndex;
            }
            SeqState::CalcReadBIndex => {
                self.a_index.d.next = self.dmem_data[0].val();
                self.dmem_rd_addr[0].next = self.walk[1].addr.val() + 1;
                self.next_state.next = SeqState::CalcOperands;
            }
            SeqState::CalcOperands => {
                if self.is_loc.val() {
                    self.b_index.d.next = self.dmem_data[0].val();
                } else {
                    self.b[0].d.next = self.dmem_data[0].val();
                    self.a_index.d.next = 0.into();
                    self.b_index.d.next = 0.into();
                }
                self.next_state.next = SeqState::CalcAlu;
            }
            SeqState::CalcAlu => {
                self.alu_wait.d.next = self.alu_wait_start.val();
                self.next_state.next = SeqState::CalcWait;
            }
            SeqState::CalcWait => {
                if self.alu_wait.q.val().any() {
                    self.alu_wait.d.next = self.alu_wait.q.val() - 1;
                } else {
                    self.next_state.next = SeqState::CalcWrite;
                }
            }
            SeqState::CalcWrite => {
                // The ALU answers the operands of CalcAlu (CALC never passes a reserved op).
                self.dmem_wr_en[0].next = self.alu.out_valid.val() & !self.alu.err.val();
                self.dmem_wr_addr[0].next = self.walk[2].addr.val();
                self.dmem_wr_data[0].next = self.alu.r[0].val();
                self.element_done.next = !self.is_loc.val();
                self.next_state.next = SeqState::CalcWriteIndex;
            }
            SeqState::CalcWriteIndex => {
                self.dmem_wr_en[0].next = true;
                self.dmem_wr_addr[0].next = self.walk[2].addr.val() + 1;
                self.dmem_wr_data[0].next = self.alu.ri[0].val();
                self.element_done.next = true;
            }
            _ => {}
        }

        // After an element: the next one, or the result to the peer, or the completion.
        self.go.next = false;
        self.cancel.next = false;
        self.advance_visit.next = false;
        self.await_answer.next = false;
        self.complete_status.next = self.ok.val();
        if (self.state.val() == SeqState::CalcReadA) & self.outside.val() {
            self.cancel.next = self.calc_to_peer.val();
            self.complete_status.next = self.bad_addr.val();
            self.next_state.next = SeqState::Complete;
        }
        // Streaming: the reads arrive, then (an element's last word) enter the ALU.
        self.rd_valid.d.next = self.issue.val();
        self.op_valid.d.next = false;
        if self.rd_valid.q.val() {
            // A pair's index words were read the cycle `half` went back to the values.
            if self.is_loc.val() & !self.half.q.val() {
                self.a_index.d.next = self.dmem_data[0].val();
                self.b_index.d.next = self.dmem_b_data[0].val();
                self.op_valid.d.next = true;
            } else {
                for j in 0..L {
                    self.a[j].d.next = self.dmem_data[j].val();
                    self.b[j].d.next = self.dmem_b_data[j].val();
                }
                self.op_valid.d.next = !self.is_loc.val();
            }
        }
        self.issue_last.next = !self.is_loc.val() | self.half.q.val();
        if self.issue.val() {
            self.half.d.next = !self.issue_last.val();
            if self.issue_last.val() {
                self.rd_more.d.next = !self.args_last.val();
                self.walk[0].step.next = true;
                self.walk[1].step.next = true;
            }
        }
        self.finish.next = false;
        if self.stream_written.val() {
            self.walk[2].step.next = true;
            self.finish.next = self.walk[2].last.val();
        }
        if self.element_done.val() {
            self.walk[0].step.next = true;
            self.walk[1].step.next = true;
            self.walk[2].step.next = true;
            self.next_state.next = SeqState::CalcReadA;
            self.finish.next = self.args_last.val();
        }
        if self.finish.val() {
            self.next_state.next = SeqState::Complete;
            if self.calc_to_peer.val() {
                self.go.next = true;
                self.await_answer.next = self.reliable.val();
                self.advance_visit.next = true;
                self.next_state.next = SeqState::Idle;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::{Opcode, Wqe, WqeWords};
    use netcoll_models::reduce_alu::golden::golden_int as golden;
    use netcoll_models::reduce_alu::Dtype;

    const AWB: usize = netcoll_models::nic::model::alu_wait_bits(false);
    /// The unit over 1024 words, `L` lanes (`2^LB`).
    type Lanes<const L: usize, const LB: usize> = NicCalc<10, L, LB, 0, 0, AWB>;
    type Calc = Lanes<1, 0>;

    /// Shows the CALC WQE `(w0, w1)` to the unit as `SqDecode` starting it.
    fn start<const L: usize, const LB: usize>(c: &mut Lanes<L, LB>, (w0, w1): (u64, u64)) {
        let f = WqeWords::unpack(w0, w1);
        c.calc_op.next = f.calc_op.into();
        c.calc_dtype.next = f.calc_dtype.into();
        c.calc_count.next = f.calc_count.into();
        c.calc_a.next = f.calc_a.into();
        c.calc_b.next = f.calc_b.into();
        c.calc_sa.next = f.calc_sa.into();
        c.calc_sb.next = f.calc_sb.into();
        c.calc_dst.next = f.calc_dst.into();
        c.calc_to_peer.next = f.calc_to_peer == 1;
        c.state.next = SeqState::SqDecode;
    }

    /// How a CALC ran: the state it ended in, whether it let the result's message go (else it
    /// completed), whether it streamed, and its cycles from `CalcReadA` to the last.
    #[derive(Debug, PartialEq)]
    struct Ran {
        end: SeqState,
        go: bool,
        streamed: bool,
        cycles: usize,
    }

    /// Runs a CALC from `SqDecode` to its end with `mem` as data memory (the unit plays its
    /// part, this test the sequencer's and the memory's, both of its copies).
    fn run<const L: usize, const LB: usize>(
        c: &mut Lanes<L, LB>,
        mem: &mut [u64],
        wqe: &Wqe,
    ) -> Ran {
        start(c, wqe.encode());
        let (mut read, mut read_b) = ([0usize; L], [0usize; L]);
        let (mut streamed, mut cycles) = (false, 0);
        for _ in 0..200 {
            for j in 0..L {
                c.dmem_data[j].next = mem[read[j]].into();
                c.dmem_b_data[j].next = mem[read_b[j]].into();
            }
            c.clock.next = Clock { clk: false };
            assert!(simulate(c, 1000));
            streamed |= c.state.val() == SeqState::CalcStream;
            if c.state.val() != SeqState::SqDecode {
                cycles += 1;
            }
            // The banks: lanes that read get their words; no two lanes write one word.
            let mut writes = vec![];
            for j in 0..L {
                read[j] = c.dmem_rd_addr[j].val().index();
                read_b[j] = c.dmem_b_rd_addr[j].val().index();
                assert!(
                    c.lane_on[j].val() || (read[j], read_b[j]) == (0, 0),
                    "lane {j}"
                );
                if c.dmem_wr_en[j].val() {
                    writes.push((
                        c.dmem_wr_addr[j].val().index(),
                        c.dmem_wr_data[j].val().to_u64(),
                    ));
                }
            }
            let banks: std::collections::BTreeSet<usize> = writes.iter().map(|w| w.0 % L).collect();
            assert_eq!(
                banks.len(),
                writes.len(),
                "two writes in one bank: {writes:?}"
            );
            let next = c.next_state.val();
            let (go, complete) = (c.go.val(), next == SeqState::Complete);
            assert_eq!(c.advance_visit.val(), go);
            c.clock.next = Clock { clk: true };
            assert!(simulate(c, 1000));
            for (a, d) in writes {
                mem[a] = d;
            }
            c.state.next = if c.state.val() == SeqState::SqDecode {
                SeqState::CalcReadA
            } else {
                next
            };
            if go || complete {
                assert!(!(go && complete));
                return Ran {
                    end: next,
                    go,
                    streamed,
                    cycles,
                };
            }
        }
        panic!("the loop did not end");
    }

    /// What `CalcReadA` does with the CALC `wqe` loaded in `SqDecode`: `Some(BAD_ADDR)` if it
    /// fails the WQE, `None` if it reads `a`.
    fn first_read<const L: usize, const LB: usize>(
        c: &mut Lanes<L, LB>,
        wqe: (u64, u64),
    ) -> Option<Status> {
        start(c, wqe);
        c.clock.next = Clock { clk: false };
        assert!(simulate(c, 1000));
        c.clock.next = Clock { clk: true };
        assert!(simulate(c, 1000));
        c.state.next = SeqState::CalcReadA;
        c.clock.next = Clock { clk: false };
        assert!(simulate(c, 1000));
        if c.next_state.val() == SeqState::Complete {
            Some(Status::from_code(c.complete_status.val().to_u64()).expect("a status"))
        } else {
            let next = c.next_state.val();
            assert!(
                [SeqState::CalcReadB, SeqState::CalcStream].contains(&next),
                "{next:?}"
            );
            assert_eq!(c.complete_status.val().to_u64(), Status::Ok.code());
            None
        }
    }

    fn calc(op: AluOp, count: u64, a: u64, sa: u64, b: u64, dst: u64) -> (u64, u64) {
        Wqe::calc(op.code(), Dtype::U64.code(), count, (a, sa), (b, 3), dst).encode()
    }

    /// Data memory of 1024 words; hand-computed last words.
    #[test]
    fn addresses_are_checked_before_the_first_read() {
        let mut c = Calc::default();
        c.connect_all();
        let bad = Some(Status::BadAddr);
        // a: 1017 + 3 × 2 = 1023 is the last word; 1018 + 6 = 1024 is not.
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 4, 1017, 2, 0, 8)), None);
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 4, 1018, 2, 0, 8)), bad);
        // b: 1014 + 3 × 3 = 1023 fits; 1015 + 9 does not.
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 4, 0, 1, 1014, 8)), None);
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 4, 0, 1, 1015, 8)), bad);
        // LOC ops take pairs: the index word after the last value must fit too.
        assert_eq!(
            first_read(&mut c, calc(AluOp::MaxLoc, 4, 1017, 2, 0, 8)),
            bad
        );
        assert_eq!(
            first_read(&mut c, calc(AluOp::MaxLoc, 4, 1016, 2, 0, 8)),
            None
        );
        // The result: 4 words from 1020 fit, 4 pairs do not.
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 4, 0, 1, 0, 1020)), None);
        assert_eq!(
            first_read(&mut c, calc(AluOp::MinLoc, 4, 0, 1, 0, 1020)),
            bad
        );
        // The widest stride: 3 + 4 × 255 = 1023 fits, 4 + 1020 does not.
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 5, 3, 255, 0, 0)), None);
        assert_eq!(first_read(&mut c, calc(AluOp::Sum, 5, 4, 255, 0, 0)), bad);
    }

    #[test]
    fn sum_and_maxloc_over_strided_vectors() {
        let mut c = Calc::default();
        c.connect_all();
        let mut mem = vec![0u64; 1024];
        for (k, w) in mem.iter_mut().enumerate().take(64) {
            *w = (k as u64 * 0x9E37_79B9) ^ (k as u64) << 40;
        }
        let expect = mem.clone();
        let sum = Wqe {
            opcode: Opcode::Calc.code(),
            alu_op: AluOp::Sum.code(),
            dtype: Dtype::U64.code(),
            len: 5,
            addr: 0,
            sa: 2,
            b: 20,
            sb: 1,
            dst_addr: 100,
            ..Default::default()
        };
        let ran = run(&mut c, &mut mem, &sum);
        assert_eq!(
            (ran.end, ran.go, ran.streamed),
            (SeqState::Complete, false, true)
        );
        // `CalcReadA`, 5 reads, then the last element's arrival, operands and the ALU.
        assert_eq!(ran.cycles, 1 + 5 + 2 + netcoll_models::reduce_alu::LATENCY);
        for i in 0..5 {
            let (r, _) = golden(AluOp::Sum, Dtype::U64, expect[2 * i], 0, expect[20 + i], 0);
            assert_eq!(mem[100 + i], r, "element {i}");
        }
        // MAXLOC over (value, index) pairs, the result sent to a peer.
        let maxloc = Wqe {
            alu_op: AluOp::MaxLoc.code(),
            dtype: Dtype::I64.code(),
            len: 3,
            addr: 30,
            sa: 2,
            b: 40,
            sb: 2,
            dst_addr: 200,
            mode: 1,
            ..sum
        };
        let ran = run(&mut c, &mut mem, &maxloc);
        assert_eq!(
            (ran.end, ran.go, ran.streamed),
            (SeqState::Idle, true, true)
        );
        // `CalcReadA`, 2 reads a pair, the last indices' arrival, operands, the ALU, and the
        // last index's write.
        assert_eq!(
            ran.cycles,
            1 + 2 * 3 + 2 + netcoll_models::reduce_alu::LATENCY + 1
        );
        for i in 0..3 {
            let (a, b) = (30 + 2 * i, 40 + 2 * i);
            let want = golden(
                AluOp::MaxLoc,
                Dtype::I64,
                expect[a],
                expect[a + 1],
                expect[b],
                expect[b + 1],
            );
            assert_eq!((mem[200 + 2 * i], mem[201 + 2 * i]), want, "pair {i}");
        }
    }

    /// Whether a SUM over the given arguments streams (else it goes element by element).
    fn streams(c: &mut Calc, count: u64, a: u64, sa: u64, b: u64, sb: u64, dst: u64) -> bool {
        streams_op(c, AluOp::Sum, count, (a, sa), (b, sb), dst)
    }

    /// Whether `op` over the given arguments streams.
    fn streams_op(c: &mut Calc, op: AluOp, n: u64, a: (u64, u64), b: (u64, u64), dst: u64) -> bool {
        let wqe = Wqe::calc(op.code(), Dtype::U64.code(), n, a, b, dst);
        assert_eq!(first_read(c, wqe.encode()), None);
        c.next_state.val() == SeqState::CalcStream
    }

    /// Hand-worked overlaps of the result `dst .. dst + count` with `a` and `b`.
    #[test]
    fn a_calc_streams_unless_an_element_reads_an_earlier_result() {
        let mut c = Calc::default();
        c.connect_all();
        // Apart: a = 0..8, b = 100..108, dst = 200..208.
        assert!(streams(&mut c, 8, 0, 1, 100, 1, 200));
        // In place (dst = a), and the result just before `a`, overlapping it.
        assert!(streams(&mut c, 8, 10, 1, 100, 1, 10));
        assert!(streams(&mut c, 8, 10, 1, 100, 1, 7));
        // The result one word after `a`: element 1 reads what element 0 wrote.
        assert!(!streams(&mut c, 8, 10, 1, 100, 1, 11));
        // ... after `b`, inside its strided span (100 + 7 × 3 = 121).
        assert!(!streams(&mut c, 8, 0, 1, 100, 3, 121));
        assert!(streams(&mut c, 8, 0, 1, 100, 3, 122));
        // A repeated `a` (stride 0) inside the result: read again after it is written.
        assert!(!streams(&mut c, 8, 13, 0, 100, 1, 10));
        assert!(streams(&mut c, 8, 18, 0, 100, 1, 10));
        assert!(streams(&mut c, 8, 9, 0, 100, 1, 10));
        // MAXLOC / MINLOC: pairs (value, index). Apart, and in place with stride 2, stream.
        let max = AluOp::MaxLoc;
        assert!(streams_op(&mut c, max, 4, (0, 2), (100, 2), 200));
        assert!(streams_op(&mut c, max, 4, (40, 2), (100, 2), 40));
        // Stride 1 over the result (pairs overlapping): element 1 reads element 0's index.
        assert!(!streams_op(&mut c, max, 4, (40, 1), (100, 2), 40));
        // A result pair inside `b`'s span: 100 + 3 × 2 + 1 = 107 is its last word.
        assert!(!streams_op(&mut c, max, 4, (0, 2), (100, 2), 107));
        assert!(streams_op(&mut c, max, 4, (0, 2), (100, 2), 108));
    }

    /// A CALC in place, which streams: every element is read before its result is written.
    #[test]
    fn an_in_place_calc_streams_one_element_a_cycle() {
        let mut c = Calc::default();
        c.connect_all();
        let mut mem: Vec<u64> = (0..1024u64).map(|k| k * 0x1_0001 + 7).collect();
        let expect = mem.clone();
        let n = 40;
        let sum = Wqe {
            opcode: Opcode::Calc.code(),
            alu_op: AluOp::Sum.code(),
            dtype: Dtype::U32.code(),
            len: n,
            addr: 300,
            sa: 1,
            b: 500,
            sb: 2,
            dst_addr: 300,
            ..Default::default()
        };
        let ran = run(&mut c, &mut mem, &sum);
        assert!(ran.streamed);
        assert_eq!(
            ran.cycles,
            1 + n as usize + 2 + netcoll_models::reduce_alu::LATENCY
        );
        for i in 0..n as usize {
            let (r, _) = golden(
                AluOp::Sum,
                Dtype::U32,
                expect[300 + i],
                0,
                expect[500 + 2 * i],
                0,
            );
            assert_eq!(mem[300 + i], r, "element {i}");
        }
        assert_eq!(mem[300 + n as usize], expect[300 + n as usize]);
    }

    /// With 4 lanes: a SUM in place with an odd stride of `b` goes in groups of 4 (the last
    /// one short), the results those of the one-lane order; MAXLOC, and an even stride, go
    /// one element a cycle as with one lane.
    #[test]
    fn four_lanes_stream_four_elements_a_cycle() {
        let mut c = Lanes::<4, 2>::default();
        c.connect_all();
        let start: Vec<u64> = (0..1024u64).map(|k| k * 0x1_0003 + 11).collect();
        let n = 42;
        let sum = Wqe {
            opcode: Opcode::Calc.code(),
            alu_op: AluOp::Sum.code(),
            dtype: Dtype::U64.code(),
            len: n,
            addr: 301,
            sa: 1,
            b: 500,
            sb: 3,
            dst_addr: 301,
            ..Default::default()
        };
        // Runs `wqe` (a SUM, `a` = 301 stride 1, `b` = 500) on a fresh memory: its cycles, and
        // every result word against the golden ALU on the words as they were before.
        let mut sum_cycles = |wqe: &Wqe| {
            let mut mem = start.clone();
            let ran = run(&mut c, &mut mem, wqe);
            assert!(ran.streamed, "{wqe:?}");
            for i in 0..n as usize {
                let b = start[500 + i * wqe.sb as usize];
                let (r, _) = golden(AluOp::Sum, Dtype::U64, start[301 + i], 0, b, 0);
                assert_eq!(mem[wqe.dst_addr as usize + i], r, "{wqe:?} element {i}");
            }
            (ran.cycles, mem)
        };
        let tail = 2 + netcoll_models::reduce_alu::LATENCY;
        // In place: `CalcReadA`, ⌈42 / 4⌉ = 11 groups, the last one's arrival, operands and
        // the ALU; the words around the result untouched.
        let (cycles, mem) = sum_cycles(&sum);
        assert_eq!(cycles, 1 + 11 + tail);
        assert_eq!(mem[301 + n as usize], start[301 + n as usize]);
        assert_eq!(mem[300], start[300]);
        // Stride 0 for `b`: one word for every lane.
        let repeat = Wqe {
            sb: 0,
            dst_addr: 700,
            ..sum
        };
        assert_eq!(sum_cycles(&repeat).0, 1 + 11 + tail);
        // An even stride: one element a cycle.
        let even = Wqe {
            sb: 2,
            dst_addr: 700,
            ..sum
        };
        assert_eq!(sum_cycles(&even).0, 1 + n as usize + tail);
    }
}
