//! # Reduction ALU (RTL)
//!
//! The rust-hdl description of the block specified in `netcoll_models::reduce_alu` (read its
//! module docs for the operations, element types and timing; the cycle model there is compared
//! with this block every output every cycle). Its ports come from the one declaration,
//! `netcoll_models::reduce_alu_ports!`: lane `k`'s ports are `a_k`, `ai_k`, `b_k`, `bi_k`,
//! `r_k`, `ri_k`. The block for `L` lanes is emitted as module `reduce_alu_l<L>`.
//!
//! # Structure
//! The six register stages of the specification ("Micro-architecture"): the control part here
//! — `in_valid`, `op`, `dtype` as offered (`s1_*`), then the valid bit, `err`, `op` (one-hot in
//! stage 2) and the element width carried on (`s2_*` … `s5_*`, `o_*`), each decoded at the
//! stage that uses it — and `L` instances of [`ReduceAluLane`] (module `reduce_alu_lane`) with
//! the operands' stages. With the floating-point types built in (`F = L`, configuration
//! `[alu] fp = 1`, module `reduce_alu_l<L>_fp`), `L` instances of [`ReduceAluFp`] (module
//! `reduce_alu_fp`) beside them, fed the same operands, with `FP_LATENCY` stages; the flag
//! "`dtype` is a floating-point type" travels with the control (`s2_fp` … `o_fp`) and selects
//! their results at the outputs — or zero, without them (`F = 0`), where such a `dtype` is
//! answered with `err`. Latency 6 without them; with them, [`FP_TAIL`] more stages (the
//! tail, `t_*`, after stage 6: `X`, none while `FP_LATENCY = LATENCY`) on every output — the
//! control and the select `o_fp` in registers, the integer results in a
//! [`ReduceAluDelayLine`] per lane (module `reduce_alu_delay_line`, two 16-word LUT RAMs: 32
//! `TRELLIS_DPR16X4`s on an ECP5 instead of 1,280 flip-flops per lane) — so that every
//! operation of the block answers after `FP_LATENCY` cycles, where the floating-point
//! datapaths' results come out.
//! A block that contains the ALU (the NIC, the switch's payload path) instantiates
//! `ReduceAlu<L, F, X>` as a child and drives its ports like any others. The switch's payload
//! path feeds its odd lanes the high halves of 64-bit words and reads their results only for
//! types of 32 bits or fewer, so it builds their datapaths without fp64
//! ([`ReduceAlu::set_fp_types_odd32`], module `reduce_alu_l<L>_fp_odd32`: on an ECP5 the
//! floating-point switch then has 12 % fewer LUT4s and 66 multipliers instead of 90).

pub mod delay_line;
pub mod fp;
pub mod lane;

pub use delay_line::ReduceAluDelayLine;
pub use fp::ReduceAluFp;
pub use lane::ReduceAluLane;

use crate::dff_setup;
use crate::emit::{emit_with_children, EmitError, Module};
use crate::prim::Reg;
use crate::rtl_block;
use netcoll_models::kit::cycle::ValueSim;
use netcoll_models::reduce_alu::fp::FpType;
use netcoll_models::reduce_alu::{
    AluOp, Dtype, ReduceAluParams, ALL_FP_TYPES, FIRST_RESERVED_OP, FP_LATENCY, LATENCY, WORD_BITS,
};
use rust_hdl::prelude::*;

const W: usize = WORD_BITS;
const OPB: usize = AluOp::BITS;
/// Bits of the one-hot `op`: one per code that is not reserved.
const OP_HOT: usize = FIRST_RESERVED_OP as usize;
const DTB: usize = Dtype::BITS;
/// The tail stages (`X`) of a block with the floating-point types: `FP_LATENCY - LATENCY`.
pub const FP_TAIL: usize = FP_LATENCY - LATENCY;
const _: () = assert!(FP_TAIL >= 2 && FP_TAIL <= delay_line::MAX_DELAY);

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

netcoll_models::reduce_alu_ports!(rtl_block! {
    /// The reduction ALU with `L` lanes, `F` floating-point datapaths (`L` or 0) and `X`
    /// tail stages (`FP_LATENCY - LATENCY` with the floating-point datapaths, else 0).
    pub struct ReduceAlu<const L: usize, const F: usize, const X: usize> {
        // Stage 1: the control inputs as offered.
        s1_valid: Reg<bool> = Default::default(),
        s1_op: Reg<Bits<OPB>> = Default::default(),
        s1_dtype: Reg<Bits<DTB>> = Default::default(),
        // Stage 2: `err` decided, `op` decoded one-hot for the lanes' selects, the width
        // decoded.
        s2_valid: Reg<bool> = Default::default(),
        s2_err: Reg<bool> = Default::default(),
        /// Bit `k`: `op` is the `AluOp` code `k` (none for a reserved code).
        s2_op_hot: Reg<Bits<OP_HOT>> = Default::default(),
        s2_is32: Reg<bool> = Default::default(),
        // Stages 3 to 5: PROD decoded for the final select; stage 3's `op` for stage 4's.
        s3_valid: Reg<bool> = Default::default(),
        s3_err: Reg<bool> = Default::default(),
        s3_is_prod: Reg<bool> = Default::default(),
        s3_is32: Reg<bool> = Default::default(),
        s4_valid: Reg<bool> = Default::default(),
        s4_err: Reg<bool> = Default::default(),
        s4_is_prod: Reg<bool> = Default::default(),
        s4_is32: Reg<bool> = Default::default(),
        s5_valid: Reg<bool> = Default::default(),
        s5_err: Reg<bool> = Default::default(),
        s5_is_prod: Reg<bool> = Default::default(),
        s5_is32: Reg<bool> = Default::default(),
        o_valid: Reg<bool> = Default::default(),
        o_err: Reg<bool> = Default::default(),
        /// `dtype` is a floating-point type: the outputs take the floating-point datapaths'
        /// results (zero without them).
        s2_fp: Reg<bool> = Default::default(),
        s3_fp: Reg<bool> = Default::default(),
        s4_fp: Reg<bool> = Default::default(),
        s5_fp: Reg<bool> = Default::default(),
        o_fp: Reg<bool> = Default::default(),
        /// The lanes (module `reduce_alu_lane`), with the operands' stages.
        lane: [ReduceAluLane; L] = core::array::from_fn(|_| Default::default()),
        /// The floating-point datapaths (module `reduce_alu_fp`), one per lane, or none.
        fpu: [ReduceAluFp; F] = core::array::from_fn(|_| Default::default()),
        /// The tail: `X` more registers after stage 6 on `out_valid`, `err`, the select
        /// `o_fp` and "the integer result goes out" (`!o_fp`, cleared by a reset: the
        /// delay lines' words are not) (element `m` is stage `7 + m`); none when `X = 0`.
        /// The last of them drives the outputs.
        t_valid: [Reg<bool>; X] = core::array::from_fn(|_| Default::default()),
        t_err: [Reg<bool>; X] = core::array::from_fn(|_| Default::default()),
        t_fp: [Reg<bool>; X] = core::array::from_fn(|_| Default::default()),
        t_int: [Reg<bool>; X] = core::array::from_fn(|_| Default::default()),
        /// The lanes' integer results delayed `X` cycles in LUT RAM rather than `X`
        /// registers each (module `reduce_alu_delay_line`).
        line: [ReduceAluDelayLine; F] = core::array::from_fn(|_| Default::default()),
        lag_words: Constant<Bits<4>> = k(last(X) as u64),
        /// The floating-point types built in, bit `t` for `FpType::ALL[t]` (`fp_types`;
        /// all four by default when `F > 0`, none when `F = 0`): see
        /// [`ReduceAlu::set_fp_types`].
        fp_types: Constant<Bits<4>> = k(if F > 0 { ALL_FP_TYPES as u64 } else { 0 }),
        /// Bit `dtype[1:0]` of `fp_types`: the floating-point type is built in.
        s1_fp_built: Signal<Local, bool> = Default::default(),
        /// `op` is one the floating-point types do not define, or reserved (`> PROD`).
        s1_fp_undefined: Signal<Local, bool> = Default::default(),
        // The decode of `dtype`: `dtype[1] = 0` is a 32-bit type, `dtype[0] = 0` a signed one.
        in_wmask: Signal<Local, Bits<W>> = Default::default(),
        s1_is32: Signal<Local, bool> = Default::default(),
        in_sflip: Signal<Local, Bits<W>> = Default::default(),
        s5_wmask: Signal<Local, Bits<W>> = Default::default(),
        hot2: Signal<Local, Bits<OP_HOT>> = Default::default(),
        /// Stage 2's `op` keeps the larger value (MAX, MAXLOC), the smaller (MIN, MINLOC).
        s2_takes_larger: Signal<Local, bool> = Default::default(),
        s2_takes_smaller: Signal<Local, bool> = Default::default(),
        first_reserved: Constant<Bits<OPB>> = k(FIRST_RESERVED_OP),
        op_prod: Constant<Bits<OPB>> = k(AluOp::Prod.code()),
        op_max: Constant<Bits<OPB>> = k(AluOp::Max.code()),
        op_min: Constant<Bits<OPB>> = k(AluOp::Min.code()),
        op_maxloc: Constant<Bits<OPB>> = k(AluOp::MaxLoc.code()),
        op_minloc: Constant<Bits<OPB>> = k(AluOp::MinLoc.code()),
        op_sum: Constant<Bits<OPB>> = k(AluOp::Sum.code()),
        op_land: Constant<Bits<OPB>> = k(AluOp::LAnd.code()),
        op_lor: Constant<Bits<OPB>> = k(AluOp::LOr.code()),
        op_lxor: Constant<Bits<OPB>> = k(AluOp::LXor.code()),
        op_band: Constant<Bits<OPB>> = k(AluOp::BAnd.code()),
        op_bor: Constant<Bits<OPB>> = k(AluOp::BOr.code()),
        op_bxor: Constant<Bits<OPB>> = k(AluOp::BXor.code()),
        one_hot: Constant<Bits<OP_HOT>> = k(1),
        mask32: Constant<Bits<W>> = k(0xFFFF_FFFF),
        mask64: Constant<Bits<W>> = k(u64::MAX),
        sign32: Constant<Bits<W>> = k(1 << 31),
        sign64: Constant<Bits<W>> = k(1 << 63),
        zero: Constant<Bits<W>> = k(0),
    }
});

/// The first index of the tail's last element: `X - 1` (the range `last(X)..X` is empty when
/// there is no tail).
const fn last(x: usize) -> usize {
    x.saturating_sub(1)
}

impl<const L: usize, const F: usize, const X: usize> Logic for ReduceAlu<L, F, X> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_op, s1_dtype, s2_valid, s2_err, s2_op_hot, s2_is32, s3_valid,
            s3_err, s3_is_prod, s3_is32, s4_valid, s4_err, s4_is_prod, s4_is32, s5_valid, s5_err,
            s5_is_prod, s5_is32, o_valid, o_err, s2_fp, s3_fp, s4_fp, s5_fp, o_fp
        );
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_op.d.next = self.op.val();
        self.s1_dtype.d.next = self.dtype.val();

        self.in_wmask.next = self.mask64.val();
        if !self.dtype.val().get_bit(1) {
            self.in_wmask.next = self.mask32.val();
        }
        self.in_sflip.next = self.zero.val();
        if !self.dtype.val().get_bit(0) {
            self.in_sflip.next = self.sign64.val();
            if !self.dtype.val().get_bit(1) {
                self.in_sflip.next = self.sign32.val();
            }
        }
        self.s1_is32.next = !self.s1_dtype.q.val().get_bit(1);
        self.s2_valid.d.next = self.s1_valid.q.val();
        // `err`: a reserved code, or a floating-point `dtype` with an operation the block does
        // not compute on it (any, without the datapaths; the logical and bitwise ones, with).
        self.s1_fp_undefined.next = self.s1_op.q.val() > self.op_prod.val();
        // Only read with `dtype[2]` set (a floating-point type).
        match self.s1_dtype.q.val().index() {
            4 => {
                self.s1_fp_built.next = self.fp_types.val().get_bit(0);
            }
            5 => {
                self.s1_fp_built.next = self.fp_types.val().get_bit(1);
            }
            6 => {
                self.s1_fp_built.next = self.fp_types.val().get_bit(2);
            }
            7 => {
                self.s1_fp_built.next = self.fp_types.val().get_bit(3);
            }
            _ => {
                self.s1_fp_built.next = false;
            }
        }
        self.s2_err.d.next = self.s1_valid.q.val()
            & ((self.s1_op.q.val() >= self.first_reserved.val())
                | (self.s1_dtype.q.val().get_bit(2)
                    & (!self.s1_fp_built.val() | self.s1_fp_undefined.val())));
        self.s2_fp.d.next = self.s1_dtype.q.val().get_bit(2);
        self.s3_fp.d.next = self.s2_fp.q.val();
        self.s4_fp.d.next = self.s3_fp.q.val();
        self.s5_fp.d.next = self.s4_fp.q.val();
        self.o_fp.d.next = self.s5_fp.q.val();
        self.s2_op_hot.d.next = self.one_hot.val() << self.s1_op.q.val();
        self.hot2.next = self.s2_op_hot.q.val();
        self.s2_is32.d.next = self.s1_is32.val();

        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_err.d.next = self.s2_err.q.val();
        self.s3_is_prod.d.next = self.hot2.val().get_bit(self.op_prod.val().index());
        self.s3_is32.d.next = self.s2_is32.q.val();
        self.s2_takes_larger.next = self.hot2.val().get_bit(self.op_max.val().index())
            | self.hot2.val().get_bit(self.op_maxloc.val().index());
        self.s2_takes_smaller.next = self.hot2.val().get_bit(self.op_min.val().index())
            | self.hot2.val().get_bit(self.op_minloc.val().index());

        self.s4_valid.d.next = self.s3_valid.q.val();
        self.s4_err.d.next = self.s3_err.q.val();
        self.s4_is_prod.d.next = self.s3_is_prod.q.val();
        self.s4_is32.d.next = self.s3_is32.q.val();
        self.s5_valid.d.next = self.s4_valid.q.val();
        self.s5_err.d.next = self.s4_err.q.val();
        self.s5_is_prod.d.next = self.s4_is_prod.q.val();
        self.s5_is32.d.next = self.s4_is32.q.val();
        self.s5_wmask.next = self.mask64.val();
        if self.s5_is32.q.val() {
            self.s5_wmask.next = self.mask32.val();
        }

        self.o_valid.d.next = self.s5_valid.q.val();
        self.o_err.d.next = self.s5_err.q.val();
        self.out_valid.next = self.o_valid.q.val();
        self.err.next = self.o_err.q.val();
        for n in 0..L {
            self.lane[n].clock.next = self.clock.val();
            self.lane[n].reset.next = self.reset.val();
            self.lane[n].a.next = self.a[n].val();
            self.lane[n].ai.next = self.ai[n].val();
            self.lane[n].b.next = self.b[n].val();
            self.lane[n].bi.next = self.bi[n].val();
            self.lane[n].in_wmask.next = self.in_wmask.val();
            self.lane[n].in_sflip.next = self.in_sflip.val();
            self.lane[n].s2_is_sum.next = self.hot2.val().get_bit(self.op_sum.val().index());
            self.lane[n].s2_is_land.next = self.hot2.val().get_bit(self.op_land.val().index());
            self.lane[n].s2_is_lor.next = self.hot2.val().get_bit(self.op_lor.val().index());
            self.lane[n].s2_is_lxor.next = self.hot2.val().get_bit(self.op_lxor.val().index());
            self.lane[n].s2_is_band.next = self.hot2.val().get_bit(self.op_band.val().index());
            self.lane[n].s2_is_bor.next = self.hot2.val().get_bit(self.op_bor.val().index());
            self.lane[n].s2_is_bxor.next = self.hot2.val().get_bit(self.op_bxor.val().index());
            self.lane[n].s2_takes_larger.next = self.s2_takes_larger.val();
            self.lane[n].s2_takes_smaller.next = self.s2_takes_smaller.val();
            self.lane[n].s2_is_maxloc.next = self.hot2.val().get_bit(self.op_maxloc.val().index());
            self.lane[n].s2_is_minloc.next = self.hot2.val().get_bit(self.op_minloc.val().index());
            self.lane[n].s5_is_prod.next = self.s5_is_prod.q.val();
            self.lane[n].s5_wmask.next = self.s5_wmask.val();
            self.r[n].next = self.lane[n].r.val();
            self.ri[n].next = self.lane[n].ri.val();
            if self.o_fp.q.val() {
                self.r[n].next = self.zero.val();
                self.ri[n].next = self.zero.val();
            }
        }
        for n in 0..F {
            self.fpu[n].clock.next = self.clock.val();
            self.fpu[n].reset.next = self.reset.val();
            self.fpu[n].a.next = self.a[n].val();
            self.fpu[n].ai.next = self.ai[n].val();
            self.fpu[n].b.next = self.b[n].val();
            self.fpu[n].bi.next = self.bi[n].val();
            self.fpu[n].fmt.next = self.dtype.val().get_bits::<2>(0);
            self.fpu[n].op.next = self.op.val();
            if self.o_fp.q.val() {
                self.r[n].next = self.fpu[n].r.val();
                self.ri[n].next = self.fpu[n].ri.val();
            }
            // The tail (X > 0): the integer results wait X cycles in the delay lines, and
            // they, or the floating-point datapath's result (X stages deeper itself), or zero
            // (X cycles after a reset, when what the lines hold is stale: `t_int`), go out.
            self.line[n].clock.next = self.clock.val();
            self.line[n].lag.next = self.lag_words.val();
            self.line[n].d.next = self.lane[n].r.val();
            self.line[n].di.next = self.lane[n].ri.val();
            for m in last(X)..X {
                self.r[n].next = self.zero.val();
                self.ri[n].next = self.zero.val();
                if self.t_int[m].q.val() {
                    self.r[n].next = self.line[n].q.val();
                    self.ri[n].next = self.line[n].qi.val();
                }
                if self.t_fp[m].q.val() {
                    self.r[n].next = self.fpu[n].r.val();
                    self.ri[n].next = self.fpu[n].ri.val();
                }
            }
        }
        for m in 0..X {
            self.t_valid[m].clock.next = self.clock.val();
            self.t_valid[m].reset.next = self.reset.val();
            self.t_err[m].clock.next = self.clock.val();
            self.t_err[m].reset.next = self.reset.val();
            self.t_fp[m].clock.next = self.clock.val();
            self.t_fp[m].reset.next = self.reset.val();
            self.t_int[m].clock.next = self.clock.val();
            self.t_int[m].reset.next = self.reset.val();
            if m == 0 {
                self.t_valid[m].d.next = self.o_valid.q.val();
                self.t_err[m].d.next = self.o_err.q.val();
                self.t_fp[m].d.next = self.o_fp.q.val();
                self.t_int[m].d.next = !self.o_fp.q.val();
            } else {
                self.t_valid[m].d.next = self.t_valid[m - 1].q.val();
                self.t_err[m].d.next = self.t_err[m - 1].q.val();
                self.t_fp[m].d.next = self.t_fp[m - 1].q.val();
                self.t_int[m].d.next = self.t_int[m - 1].q.val();
            }
        }
        for m in last(X)..X {
            self.out_valid.next = self.t_valid[m].q.val();
            self.err.next = self.t_err[m].q.val();
        }
    }
}

impl<const L: usize, const F: usize, const X: usize> ReduceAlu<L, F, X> {
    /// Builds in only the floating-point types of `fp_mask` (bit `t` for `FpType::ALL[t]`,
    /// the configuration's `fp_types`), here and in every datapath; before `connect_all`. A
    /// type left out is answered with `err` like an integer-only block answers them all, and
    /// its datapath logic is constant, which synthesis removes. No effect when `F = 0`.
    pub fn set_fp_types(&mut self, fp_mask: usize) {
        if F > 0 {
            self.fp_types = k((fp_mask & ALL_FP_TYPES) as u64);
            for f in &mut self.fpu {
                f.set_types(fp_mask);
            }
        }
    }

    /// [`ReduceAlu::set_fp_types`], then the odd lanes' datapaths built with
    /// [`odd32_fp_mask`]`(fp_mask)` only: for a block whose odd lanes carry the high halves of
    /// 64-bit words (the switch's payload path), which reads their results for types of 32 bits
    /// or fewer only. Their answers to an fp64 operation (zero) differ from the ALU's
    /// definition, so such an ALU is named apart ([`odd32_module_name`]).
    pub fn set_fp_types_odd32(&mut self, fp_mask: usize) {
        self.set_fp_types(fp_mask);
        for f in self.fpu.iter_mut().skip(1).step_by(2) {
            f.set_types(odd32_fp_mask(fp_mask));
        }
    }
}

/// The floating-point types an odd lane of [`ReduceAlu::set_fp_types_odd32`] builds: those of
/// `fp_mask` without fp64 — or all of `fp_mask` when fp64 is its only type, for a datapath
/// with none would have no module name of its own (the odd lanes then cost what the even ones
/// do).
pub fn odd32_fp_mask(fp_mask: usize) -> usize {
    let narrow = fp_mask & ALL_FP_TYPES & !(1 << FpType::F64.index());
    if narrow == 0 {
        fp_mask
    } else {
        narrow
    }
}

/// The module name of [`ReduceAlu::set_fp_types_odd32`]'s block: [`module_name`] with `_odd32`
/// appended, or [`module_name`] itself when the odd lanes are no different.
pub fn odd32_module_name(lanes: usize, fp_mask: usize) -> String {
    let name = module_name(lanes, fp_mask);
    if odd32_differs(fp_mask) {
        format!("{name}_odd32")
    } else {
        name
    }
}

/// Whether [`ReduceAlu::set_fp_types_odd32`] builds the odd lanes with fewer types.
fn odd32_differs(fp_mask: usize) -> bool {
    fp_mask != 0 && odd32_fp_mask(fp_mask) != fp_mask & ALL_FP_TYPES
}

/// [`fp_children`] for [`ReduceAlu::set_fp_types_odd32`]'s block of `lanes` lanes: the odd
/// datapaths (`fpu$1`, `fpu$3`…) declared on their own when their types differ.
pub fn odd32_fp_children(lanes: usize, fp_mask: usize) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = fp_children(fp_mask)
        .into_iter()
        .map(|(f, m)| (f.to_string(), m))
        .collect();
    if odd32_differs(fp_mask) {
        for n in (1..lanes).step_by(2) {
            v.push((format!("fpu${n}"), fp::module_name(odd32_fp_mask(fp_mask))));
        }
    }
    v
}

/// The modules a block containing the ALU with the floating-point types `fp_mask` declares
/// for them (field, module): the datapath, named per type set ([`fp::module_name`]), and its
/// children; none without them.
pub fn fp_children(fp_mask: usize) -> Vec<(&'static str, String)> {
    if fp_mask == 0 {
        return vec![];
    }
    let mut v = vec![("fpu", fp::module_name(fp_mask))];
    v.extend(fp::FP_CHILDREN.iter().map(|&(f, m)| (f, m.to_string())));
    v
}

/// The ALU's RTL at one lane count, behind the interfaces the registry needs.
pub trait ReduceAluRtl {
    /// The block as Verilog (module `reduce_alu_l<lanes>` and its lane module).
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError>;
    /// The block under rust-hdl's `simulate()`, as a value-vector design.
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim>;
}

impl<const L: usize, const F: usize, const X: usize> ReduceAluRtl for ReduceAlu<L, F, X> {
    fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
        let mask = self.fp_types.val().index();
        let mut owned = vec![("lane", "reduce_alu_lane".to_string())];
        owned.extend(fp_children(mask));
        let children: Vec<(&str, &str)> = owned.iter().map(|(f, m)| (*f, m.as_str())).collect();
        emit_with_children(self, &module_name(L, mask), header, &children)
    }
    fn into_sim(self: Box<Self>) -> Box<dyn ValueSim> {
        Box::new(crate::kit::RtlSim::new(*self))
    }
}

/// The module name of the `lanes`-lane block with the floating-point types `fp_mask` (0:
/// none): `reduce_alu_l<lanes>`, `reduce_alu_l<lanes>_fp` with all four, or with some, e.g.
/// `reduce_alu_l<lanes>_fp_f16_bf16_f32`.
pub fn module_name(lanes: usize, fp_mask: usize) -> String {
    let p = ReduceAluParams {
        lanes,
        fp: (fp_mask != 0) as usize,
        fp_types: if fp_mask != 0 { fp_mask } else { ALL_FP_TYPES },
    };
    <netcoll_models::reduce_alu::ReduceAlu as netcoll_models::kit::block::BlockSpec>::module_name(
        &p,
    )
}

/// The ALU RTL for `p`, connected; `None` for unsupported parameters.
pub fn build(p: &ReduceAluParams) -> Option<Box<dyn ReduceAluRtl>> {
    fn boxed<const L: usize, const F: usize, const X: usize>(
        fp_mask: usize,
    ) -> Box<dyn ReduceAluRtl> {
        let mut b = ReduceAlu::<L, F, X>::default();
        b.set_fp_types(fp_mask);
        b.connect_all();
        Box::new(b)
    }
    if !netcoll_models::kit::params::ParamTable::is_supported(p) {
        return None;
    }
    let m = p.fp_mask();
    match (p.lanes, p.fp) {
        (1, 0) => Some(boxed::<1, 0, 0>(m)),
        (2, 0) => Some(boxed::<2, 0, 0>(m)),
        (4, 0) => Some(boxed::<4, 0, 0>(m)),
        (1, 1) => Some(boxed::<1, 1, FP_TAIL>(m)),
        (2, 1) => Some(boxed::<2, 2, FP_TAIL>(m)),
        (4, 1) => Some(boxed::<4, 4, FP_TAIL>(m)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Masks by hand: bit 0 f16, 1 bf16, 2 f32, 3 f64.
    #[test]
    fn odd_lanes_leave_out_fp64_only() {
        assert_eq!(odd32_fp_mask(0b1111), 0b0111);
        assert_eq!(odd32_fp_mask(0b1100), 0b0100);
        assert_eq!(
            odd32_fp_mask(0b0101),
            0b0101,
            "no fp64: nothing to leave out"
        );
        assert_eq!(odd32_fp_mask(0b1000), 0b1000, "fp64 alone stays");
        assert_eq!(odd32_module_name(4, 0b1111), "reduce_alu_l4_fp_odd32");
        assert_eq!(
            odd32_module_name(4, 0b1100),
            "reduce_alu_l4_fp_f32_f64_odd32"
        );
        assert_eq!(
            odd32_module_name(4, 0b0111),
            "reduce_alu_l4_fp_f16_bf16_f32"
        );
        assert_eq!(odd32_module_name(4, 0b1000), "reduce_alu_l4_fp_f64");
        assert_eq!(odd32_module_name(4, 0), "reduce_alu_l4");
        let odd: Vec<(String, String)> = odd32_fp_children(4, 0b1111)
            .into_iter()
            .filter(|(f, _)| f.starts_with("fpu"))
            .collect();
        let pair = |f: &str, m: &str| (f.to_string(), m.to_string());
        assert_eq!(
            odd,
            [
                pair("fpu", "reduce_alu_fp"),
                pair("fpu$1", "reduce_alu_fp_f16_bf16_f32"),
                pair("fpu$3", "reduce_alu_fp_f16_bf16_f32"),
            ]
        );
        assert!(odd32_fp_children(4, 0b0111)
            .iter()
            .all(|(f, _)| !f.contains('$')));
    }
}
