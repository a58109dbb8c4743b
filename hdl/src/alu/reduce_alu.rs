//! # Reduction ALU (RTL)
//!
//! The rust-hdl description of the block specified in `netcoll_models::alu` (read its module
//! docs for the operations, element types, ports and timing; the cycle model there is compared
//! with this block every output every cycle).
//!
//! # Inputs
//! - `clock`, `reset` (synchronous, active high), `in_valid`, `op` (4), `dtype` (2);
//! - per lane `k`: `l{k}_a`, `l{k}_ai`, `l{k}_b`, `l{k}_bi` (64 each).
//!
//! # Outputs (all registered, latency 1)
//! - `out_valid`, `err`;
//! - per lane `k`: `l{k}_r`, `l{k}_ri` (64 each).
//!
//! # Structure
//! One stage of combinational logic per lane in front of the output registers:
//! - shared decode: `wmask` (the element's bits) and `sflip` (the sign bit to flip, or 0);
//! - per lane: operands at width (`av`, `bv`), compare keys with the sign bit flipped (`ak`,
//!   `bk`) and their unsigned comparison (`a_gt`, `a_lt`), truth values (`at`, `bt`), the
//!   smaller index (`imin`), the sum, the ten 16 × 16 partial products `p{i}{j}` (`i + j <= 3`)
//!   and their shifted sum `prod`; then an if/else chain on `op` picks the next result value and
//!   index (`nr`, `nri`), loaded into the output registers every cycle.
//!
//! # Why a macro
//! The Verilog back end takes flat blocks only (no arrays of signals, no sub-blocks but the
//! primitives, no loops), so a lane is a set of fields and statements. `reduce_alu!` writes
//! the block once and repeats the per-lane fields and statements for each lane's names; the
//! names come from `lane_names!` because `macro_rules!` cannot build identifiers itself.
//! `#[hdl_gen]` sees the expanded code, so the emitted Verilog has one set of signals per lane.

use crate::alu::AluRtl;
use crate::emit::{emit, EmitError, Module};
use crate::prim::Reg;
use netcoll_models::alu::{AluIn, AluLaneOut, AluOut};
use rust_hdl::prelude::*;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

fn mask_to<const N: usize>(v: u64) -> Bits<N> {
    let v = if N >= 64 { v } else { v & ((1u64 << N) - 1) };
    Bits::<N>::from(v)
}

/// Hands lane `n`'s signal names to a macro: `lane_names!(n, m!(args))` expands to
/// `m!(args { k: n, a: l{n}_a, ... })`. One arm per lane, so each name is written once.
macro_rules! lane_names {
    (0, $m:ident!($($args:tt)*)) => {
        $m!($($args)* {
            k: 0, a: l0_a, ai: l0_ai, b: l0_b, bi: l0_bi, r: l0_r, ri: l0_ri,
            o_r: o_l0_r, o_ri: o_l0_ri,
            av: l0_av, bv: l0_bv, ak: l0_ak, bk: l0_bk, a_gt: l0_a_gt, a_lt: l0_a_lt,
            at: l0_at, bt: l0_bt, imin: l0_imin, sum: l0_sum,
            p00: l0_p00, p01: l0_p01, p02: l0_p02, p03: l0_p03, p10: l0_p10, p11: l0_p11,
            p12: l0_p12, p20: l0_p20, p21: l0_p21, p30: l0_p30, prod: l0_prod,
            nr: l0_nr, nri: l0_nri
        });
    };
    (1, $m:ident!($($args:tt)*)) => {
        $m!($($args)* {
            k: 1, a: l1_a, ai: l1_ai, b: l1_b, bi: l1_bi, r: l1_r, ri: l1_ri,
            o_r: o_l1_r, o_ri: o_l1_ri,
            av: l1_av, bv: l1_bv, ak: l1_ak, bk: l1_bk, a_gt: l1_a_gt, a_lt: l1_a_lt,
            at: l1_at, bt: l1_bt, imin: l1_imin, sum: l1_sum,
            p00: l1_p00, p01: l1_p01, p02: l1_p02, p03: l1_p03, p10: l1_p10, p11: l1_p11,
            p12: l1_p12, p20: l1_p20, p21: l1_p21, p30: l1_p30, prod: l1_prod,
            nr: l1_nr, nri: l1_nri
        });
    };
    (2, $m:ident!($($args:tt)*)) => {
        $m!($($args)* {
            k: 2, a: l2_a, ai: l2_ai, b: l2_b, bi: l2_bi, r: l2_r, ri: l2_ri,
            o_r: o_l2_r, o_ri: o_l2_ri,
            av: l2_av, bv: l2_bv, ak: l2_ak, bk: l2_bk, a_gt: l2_a_gt, a_lt: l2_a_lt,
            at: l2_at, bt: l2_bt, imin: l2_imin, sum: l2_sum,
            p00: l2_p00, p01: l2_p01, p02: l2_p02, p03: l2_p03, p10: l2_p10, p11: l2_p11,
            p12: l2_p12, p20: l2_p20, p21: l2_p21, p30: l2_p30, prod: l2_prod,
            nr: l2_nr, nri: l2_nri
        });
    };
    (3, $m:ident!($($args:tt)*)) => {
        $m!($($args)* {
            k: 3, a: l3_a, ai: l3_ai, b: l3_b, bi: l3_bi, r: l3_r, ri: l3_ri,
            o_r: o_l3_r, o_ri: o_l3_ri,
            av: l3_av, bv: l3_bv, ak: l3_ak, bk: l3_bk, a_gt: l3_a_gt, a_lt: l3_a_lt,
            at: l3_at, bt: l3_bt, imin: l3_imin, sum: l3_sum,
            p00: l3_p00, p01: l3_p01, p02: l3_p02, p03: l3_p03, p10: l3_p10, p11: l3_p11,
            p12: l3_p12, p20: l3_p20, p21: l3_p21, p30: l3_p30, prod: l3_prod,
            nr: l3_nr, nri: l3_nri
        });
    };
}

/// `reduce_alu!(Name, lanes: 0, 1, ...)` defines the block `Name` with those lanes: it collects
/// each lane's names through `lane_names!`, then hands them all to `@block`.
macro_rules! reduce_alu {
    ($name:ident, $lanes:literal: $($lane:tt),+) => {
        reduce_alu!(@collect $name $lanes [] [$($lane)+]);
    };
    (@collect $name:ident $lanes:literal [$($done:tt)*] []) => {
        reduce_alu!(@block $name $lanes $($done)*);
    };
    // A lane's names have arrived (appended by `lane_names!`).
    (@collect $name:ident $lanes:literal [$($done:tt)*] [$($rest:tt)*] $new:tt) => {
        reduce_alu!(@collect $name $lanes [$($done)* $new] [$($rest)*]);
    };
    (@collect $name:ident $lanes:literal [$($done:tt)*] [$next:tt $($rest:tt)*]) => {
        lane_names!($next, reduce_alu!(@collect $name $lanes [$($done)*] [$($rest)*]));
    };
    (@block $name:ident $lanes:literal $({
        k: $k:literal, a: $a:ident, ai: $ai:ident, b: $b:ident, bi: $bi:ident,
        r: $r:ident, ri: $ri:ident, o_r: $o_r:ident, o_ri: $o_ri:ident,
        av: $av:ident, bv: $bv:ident, ak: $ak:ident, bk: $bk:ident,
        a_gt: $a_gt:ident, a_lt: $a_lt:ident, at: $at:ident, bt: $bt:ident,
        imin: $imin:ident, sum: $sum:ident,
        p00: $p00:ident, p01: $p01:ident, p02: $p02:ident, p03: $p03:ident,
        p10: $p10:ident, p11: $p11:ident, p12: $p12:ident, p20: $p20:ident,
        p21: $p21:ident, p30: $p30:ident, prod: $prod:ident,
        nr: $nr:ident, nri: $nri:ident
    })+) => {
        #[doc = concat!("The reduction ALU with ", stringify!($lanes), " lane(s).")]
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, bool>,
            pub in_valid: Signal<In, bool>,
            pub op: Signal<In, Bits<4>>,
            pub dtype: Signal<In, Bits<2>>,
            $(
                pub $a: Signal<In, Bits<64>>,
                pub $ai: Signal<In, Bits<64>>,
                pub $b: Signal<In, Bits<64>>,
                pub $bi: Signal<In, Bits<64>>,
            )+

            pub out_valid: Signal<Out, bool>,
            pub err: Signal<Out, bool>,
            $(
                pub $r: Signal<Out, Bits<64>>,
                pub $ri: Signal<Out, Bits<64>>,
            )+

            // Output registers.
            o_valid: Reg<bool>,
            o_err: Reg<bool>,
            $(
                $o_r: Reg<Bits<64>>,
                $o_ri: Reg<Bits<64>>,
            )+

            // Shared decode.
            is32: Signal<Local, bool>,
            is_signed: Signal<Local, bool>,
            wmask: Signal<Local, Bits<64>>,
            sflip: Signal<Local, Bits<64>>,
            reserved: Signal<Local, bool>,
            // Per lane.
            $(
                $av: Signal<Local, Bits<64>>,
                $bv: Signal<Local, Bits<64>>,
                $ak: Signal<Local, Bits<64>>,
                $bk: Signal<Local, Bits<64>>,
                $a_gt: Signal<Local, bool>,
                $a_lt: Signal<Local, bool>,
                $at: Signal<Local, bool>,
                $bt: Signal<Local, bool>,
                $imin: Signal<Local, Bits<64>>,
                $sum: Signal<Local, Bits<64>>,
                $p00: Signal<Local, Bits<32>>,
                $p01: Signal<Local, Bits<32>>,
                $p02: Signal<Local, Bits<32>>,
                $p03: Signal<Local, Bits<32>>,
                $p10: Signal<Local, Bits<32>>,
                $p11: Signal<Local, Bits<32>>,
                $p12: Signal<Local, Bits<32>>,
                $p20: Signal<Local, Bits<32>>,
                $p21: Signal<Local, Bits<32>>,
                $p30: Signal<Local, Bits<32>>,
                $prod: Signal<Local, Bits<64>>,
                $nr: Signal<Local, Bits<64>>,
                $nri: Signal<Local, Bits<64>>,
            )+

            op_max: Constant<Bits<4>>,
            op_min: Constant<Bits<4>>,
            op_maxloc: Constant<Bits<4>>,
            op_minloc: Constant<Bits<4>>,
            op_sum: Constant<Bits<4>>,
            op_prod: Constant<Bits<4>>,
            op_land: Constant<Bits<4>>,
            op_lor: Constant<Bits<4>>,
            op_lxor: Constant<Bits<4>>,
            op_band: Constant<Bits<4>>,
            op_bor: Constant<Bits<4>>,
            op_bxor: Constant<Bits<4>>,
            op_first_reserved: Constant<Bits<4>>,
            mask32: Constant<Bits<64>>,
            mask64: Constant<Bits<64>>,
            sign32: Constant<Bits<64>>,
            sign64: Constant<Bits<64>>,
            zero: Constant<Bits<64>>,
            one: Constant<Bits<64>>,
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    in_valid: Default::default(),
                    op: Default::default(),
                    dtype: Default::default(),
                    $(
                        $a: Default::default(),
                        $ai: Default::default(),
                        $b: Default::default(),
                        $bi: Default::default(),
                    )+
                    out_valid: Default::default(),
                    err: Default::default(),
                    $(
                        $r: Default::default(),
                        $ri: Default::default(),
                    )+
                    o_valid: Default::default(),
                    o_err: Default::default(),
                    $(
                        $o_r: Default::default(),
                        $o_ri: Default::default(),
                    )+
                    is32: Default::default(),
                    is_signed: Default::default(),
                    wmask: Default::default(),
                    sflip: Default::default(),
                    reserved: Default::default(),
                    $(
                        $av: Default::default(),
                        $bv: Default::default(),
                        $ak: Default::default(),
                        $bk: Default::default(),
                        $a_gt: Default::default(),
                        $a_lt: Default::default(),
                        $at: Default::default(),
                        $bt: Default::default(),
                        $imin: Default::default(),
                        $sum: Default::default(),
                        $p00: Default::default(),
                        $p01: Default::default(),
                        $p02: Default::default(),
                        $p03: Default::default(),
                        $p10: Default::default(),
                        $p11: Default::default(),
                        $p12: Default::default(),
                        $p20: Default::default(),
                        $p21: Default::default(),
                        $p30: Default::default(),
                        $prod: Default::default(),
                        $nr: Default::default(),
                        $nri: Default::default(),
                    )+
                    op_max: k(0),
                    op_min: k(1),
                    op_maxloc: k(2),
                    op_minloc: k(3),
                    op_sum: k(4),
                    op_prod: k(5),
                    op_land: k(6),
                    op_lor: k(7),
                    op_lxor: k(8),
                    op_band: k(9),
                    op_bor: k(10),
                    op_bxor: k(11),
                    op_first_reserved: k(12),
                    mask32: k(0xFFFF_FFFF),
                    mask64: k(u64::MAX),
                    sign32: k(1 << 31),
                    sign64: k(1 << 63),
                    zero: k(0),
                    one: k(1),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, o_valid, o_err $(, $o_r, $o_ri)+);
                // Synchronous reset of every register (rust-hdl has no reset net: it is wired
                // by hand).
                self.o_valid.reset.next = self.reset.val();
                self.o_err.reset.next = self.reset.val();
                $(
                    self.$o_r.reset.next = self.reset.val();
                    self.$o_ri.reset.next = self.reset.val();
                )+

                // ---- Shared decode: dtype[1] = 0 is a 32-bit type, dtype[0] = 0 a signed one.
                self.is32.next = !self.dtype.val().get_bit(1);
                self.is_signed.next = !self.dtype.val().get_bit(0);
                self.wmask.next = self.mask64.val();
                if self.is32.val() {
                    self.wmask.next = self.mask32.val();
                }
                self.sflip.next = self.zero.val();
                if self.is_signed.val() {
                    if self.is32.val() {
                        self.sflip.next = self.sign32.val();
                    } else {
                        self.sflip.next = self.sign64.val();
                    }
                }
                self.reserved.next = self.op.val() >= self.op_first_reserved.val();
                self.o_valid.d.next = self.in_valid.val();
                self.o_err.d.next = self.in_valid.val() & self.reserved.val();

                $(
                    // ---- A lane. Operands at the element width, zero-extended.
                    self.$av.next = self.$a.val() & self.wmask.val();
                    self.$bv.next = self.$b.val() & self.wmask.val();
                    // Flipping the sign bit maps two's complement order onto unsigned order.
                    self.$ak.next = self.$av.val() ^ self.sflip.val();
                    self.$bk.next = self.$bv.val() ^ self.sflip.val();
                    self.$a_gt.next = self.$ak.val() > self.$bk.val();
                    self.$a_lt.next = self.$ak.val() < self.$bk.val();
                    self.$at.next = self.$av.val().any();
                    self.$bt.next = self.$bv.val().any();
                    self.$imin.next = self.$ai.val();
                    if self.$bi.val() < self.$ai.val() {
                        self.$imin.next = self.$bi.val();
                    }
                    self.$sum.next = self.$av.val() + self.$bv.val();
                    // Low 64 bits of av * bv from 16-bit digits: the partial products whose
                    // weight 2^(16 (i + j)) is below 2^64.
                    self.$p00.next = self.$av.val().get_bits::<16>(0) * self.$bv.val().get_bits::<16>(0);
                    self.$p01.next = self.$av.val().get_bits::<16>(0) * self.$bv.val().get_bits::<16>(16);
                    self.$p02.next = self.$av.val().get_bits::<16>(0) * self.$bv.val().get_bits::<16>(32);
                    self.$p03.next = self.$av.val().get_bits::<16>(0) * self.$bv.val().get_bits::<16>(48);
                    self.$p10.next = self.$av.val().get_bits::<16>(16) * self.$bv.val().get_bits::<16>(0);
                    self.$p11.next = self.$av.val().get_bits::<16>(16) * self.$bv.val().get_bits::<16>(16);
                    self.$p12.next = self.$av.val().get_bits::<16>(16) * self.$bv.val().get_bits::<16>(32);
                    self.$p20.next = self.$av.val().get_bits::<16>(32) * self.$bv.val().get_bits::<16>(0);
                    self.$p21.next = self.$av.val().get_bits::<16>(32) * self.$bv.val().get_bits::<16>(16);
                    self.$p30.next = self.$av.val().get_bits::<16>(48) * self.$bv.val().get_bits::<16>(0);
                    self.$prod.next = bit_cast::<64, 32>(self.$p00.val())
                        + (bit_cast::<64, 32>(self.$p01.val()) << 16)
                        + (bit_cast::<64, 32>(self.$p10.val()) << 16)
                        + (bit_cast::<64, 32>(self.$p02.val()) << 32)
                        + (bit_cast::<64, 32>(self.$p11.val()) << 32)
                        + (bit_cast::<64, 32>(self.$p20.val()) << 32)
                        + (bit_cast::<64, 32>(self.$p03.val()) << 48)
                        + (bit_cast::<64, 32>(self.$p12.val()) << 48)
                        + (bit_cast::<64, 32>(self.$p21.val()) << 48)
                        + (bit_cast::<64, 32>(self.$p30.val()) << 48);

                    // The result; reserved codes fall through to zero.
                    self.$nr.next = self.zero.val();
                    self.$nri.next = self.zero.val();
                    if self.op.val() == self.op_max.val() {
                        self.$nr.next = self.$av.val();
                        if self.$a_lt.val() {
                            self.$nr.next = self.$bv.val();
                        }
                    } else if self.op.val() == self.op_min.val() {
                        self.$nr.next = self.$av.val();
                        if self.$a_gt.val() {
                            self.$nr.next = self.$bv.val();
                        }
                    } else if self.op.val() == self.op_maxloc.val() {
                        if self.$a_gt.val() {
                            self.$nr.next = self.$av.val();
                            self.$nri.next = self.$ai.val();
                        } else if self.$a_lt.val() {
                            self.$nr.next = self.$bv.val();
                            self.$nri.next = self.$bi.val();
                        } else {
                            self.$nr.next = self.$av.val();
                            self.$nri.next = self.$imin.val();
                        }
                    } else if self.op.val() == self.op_minloc.val() {
                        if self.$a_lt.val() {
                            self.$nr.next = self.$av.val();
                            self.$nri.next = self.$ai.val();
                        } else if self.$a_gt.val() {
                            self.$nr.next = self.$bv.val();
                            self.$nri.next = self.$bi.val();
                        } else {
                            self.$nr.next = self.$av.val();
                            self.$nri.next = self.$imin.val();
                        }
                    } else if self.op.val() == self.op_sum.val() {
                        self.$nr.next = self.$sum.val();
                    } else if self.op.val() == self.op_prod.val() {
                        self.$nr.next = self.$prod.val();
                    } else if self.op.val() == self.op_land.val() {
                        if self.$at.val() & self.$bt.val() {
                            self.$nr.next = self.one.val();
                        }
                    } else if self.op.val() == self.op_lor.val() {
                        if self.$at.val() | self.$bt.val() {
                            self.$nr.next = self.one.val();
                        }
                    } else if self.op.val() == self.op_lxor.val() {
                        if self.$at.val() ^ self.$bt.val() {
                            self.$nr.next = self.one.val();
                        }
                    } else if self.op.val() == self.op_band.val() {
                        self.$nr.next = self.$av.val() & self.$bv.val();
                    } else if self.op.val() == self.op_bor.val() {
                        self.$nr.next = self.$av.val() | self.$bv.val();
                    } else if self.op.val() == self.op_bxor.val() {
                        self.$nr.next = self.$av.val() ^ self.$bv.val();
                    }
                    // Loaded every cycle, valid or not (no enable on the wide registers). SUM
                    // and PROD carry past bit 31: the mask keeps a 32-bit result zero-extended.
                    self.$o_r.d.next = self.$nr.val() & self.wmask.val();
                    self.$o_ri.d.next = self.$nri.val();
                )+

                // ---- Ports: registers only.
                self.out_valid.next = self.o_valid.q.val();
                self.err.next = self.o_err.q.val();
                $(
                    self.$r.next = self.$o_r.q.val();
                    self.$ri.next = self.$o_ri.q.val();
                )+
            }
        }

        impl AluRtl for $name {
            fn lanes(&self) -> usize {
                $lanes
            }

            fn step(&mut self, i: &AluIn) -> AluOut {
                self.reset.next = i.reset;
                self.in_valid.next = i.in_valid;
                self.op.next = mask_to(i.op);
                self.dtype.next = mask_to(i.dtype);
                $(
                    self.$a.next = i.lanes[$k].a.into();
                    self.$ai.next = i.lanes[$k].ai.into();
                    self.$b.next = i.lanes[$k].b.into();
                    self.$bi.next = i.lanes[$k].bi.into();
                )+
                self.clock.next = Clock { clk: false };
                let settled = simulate(self, 1000);
                assert!(settled, "{}: the logic did not settle", stringify!($name));
                let mut o = AluOut {
                    out_valid: self.out_valid.val(),
                    err: self.err.val(),
                    ..Default::default()
                };
                $(
                    o.lanes[$k] = AluLaneOut {
                        r: self.$r.val().to_u64(),
                        ri: self.$ri.val().to_u64(),
                    };
                )+
                self.clock.next = Clock { clk: true };
                let settled = simulate(self, 1000);
                assert!(settled, "{}: the logic did not settle", stringify!($name));
                o
            }

            fn verilog(&self, header: &[String]) -> Result<Module, EmitError> {
                emit(self, &crate::alu::module_name($lanes), header)
            }
        }
    };
}

reduce_alu!(ReduceAlu1, 1: 0);
reduce_alu!(ReduceAlu2, 2: 0, 1);
reduce_alu!(ReduceAlu4, 4: 0, 1, 2, 3);
