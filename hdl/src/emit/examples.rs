//! Small blocks, one per feature of the back end: how to write a `for` loop over an array, a
//! `match`, an enum state register… so that `hdl_gen` accepts it and the back end emits it.
//! Each is emitted, linted, synthesised and run under Verilator in lockstep with rust-hdl by
//! `testbench/tests/emit_features.rs`; their emitted text is snapshotted by
//! `hdl/tests/emit_features.rs`.
//!
//! Patterns worth copying (the `hdl_gen` limitations they work around are in brackets):
//!
//! 1. A register array is wired element by element inside the loop:
//!    `self.acc[i].clock.next = self.clock.val()` [`dff_setup!` takes no loop variable].
//! 2. A combinational output that a loop may or may not drive gets a default value before the
//!    loop [otherwise rust-hdl keeps its old value and Verilog infers a latch].
//! 3. A loop variable is a `usize`; to compare it with a signal, compare the signal's `index()`:
//!    `self.sel.val().index() == i` [`as` casts do not translate].
//! 4. `for` ranges are exclusive, `a..b` [`hdl_gen` drops the `=` of `a..=b`].
//! 5. A `match` on a `Bits` value matches its `index()` against integer literals and needs `_`;
//!    a `match` on a `bool` or an enum may list every value instead.

// `hdl_gen` translates `for i in a..b` with indexing only; iterators do not translate.
#![allow(clippy::needless_range_loop)]

use super::{emit, emit_with_children, EmitError, Module};
use crate::prim::{DataReg, KeptReg, Mem, Mul16, Reg};
use rust_hdl::prelude::*;

/// Four 8-bit accumulators in a register array, updated by one loop.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset (all accumulators to zero).
/// - `din`: the value added to every enabled accumulator.
/// - `en`: bit `i` enables accumulator `i` for this edge.
/// - `sel`: which accumulator `pick` shows.
///
/// # Outputs
/// - `pick`: accumulator `sel`.
/// - `total`: the sum of the four accumulators, 10 bits wide (never overflows).
#[derive(LogicBlock, Default)]
pub struct RegArrayLoop {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub din: Signal<In, Bits<8>>,
    pub en: Signal<In, Bits<4>>,
    pub sel: Signal<In, Bits<2>>,
    pub pick: Signal<Out, Bits<8>>,
    pub total: Signal<Out, Bits<10>>,
    acc: [Reg<Bits<8>>; 4],
}

impl Logic for RegArrayLoop {
    #[hdl_gen]
    fn update(&mut self) {
        self.pick.next = 0.into();
        for i in 0..4 {
            self.acc[i].clock.next = self.clock.val();
            self.acc[i].reset.next = self.reset.val();
            self.acc[i].d.next = self.acc[i].q.val();
            if self.en.val().get_bit(i) {
                self.acc[i].d.next = self.acc[i].q.val() + self.din.val();
            }
            if self.sel.val().index() == i {
                self.pick.next = self.acc[i].q.val();
            }
        }
        self.total.next = bit_cast::<10, 8>(self.acc[0].q.val())
            + bit_cast::<10, 8>(self.acc[1].q.val())
            + bit_cast::<10, 8>(self.acc[2].q.val())
            + bit_cast::<10, 8>(self.acc[3].q.val());
    }
}

/// A 2 × 3 grid of 4-bit registers (row `i`, column `j` is element `3 i + j` of one array)
/// updated by nested loops: on `shift`, each row shifts right, mixing in the other row.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset (all cells to zero).
/// - `din`: enters column 0 of both rows (XOR-ed with the other row's last cell).
/// - `shift`: shift this edge; otherwise every cell holds.
/// - `row`: which row's last cell `out` shows.
///
/// # Outputs
/// - `out`: the last cell of row `row`.
/// - `mix`: cell (0, 0) XOR cell (1, 1).
#[derive(LogicBlock, Default)]
pub struct NestedLoops {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub din: Signal<In, Bits<4>>,
    pub shift: Signal<In, bool>,
    pub row: Signal<In, Bits<1>>,
    pub out: Signal<Out, Bits<4>>,
    pub mix: Signal<Out, Bits<4>>,
    cell: [Reg<Bits<4>>; 6],
}

impl Logic for NestedLoops {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..2 {
            for j in 0..3 {
                self.cell[i * 3 + j].clock.next = self.clock.val();
                self.cell[i * 3 + j].reset.next = self.reset.val();
                self.cell[i * 3 + j].d.next = self.cell[i * 3 + j].q.val();
            }
        }
        if self.shift.val() {
            for i in 0..2 {
                for j in 0..3 {
                    // Constant once `j` is known: only the branch taken is emitted, so
                    // `j - 1` is never evaluated for `j == 0`.
                    if j == 0 {
                        self.cell[i * 3].d.next =
                            self.din.val() ^ self.cell[(1 - i) * 3 + 2].q.val();
                    } else {
                        self.cell[i * 3 + j].d.next =
                            self.cell[i * 3 + j - 1].q.val() + self.cell[(1 - i) * 3 + j].q.val();
                    }
                }
            }
        }
        self.out.next = 0.into();
        for i in 0..2 {
            if self.row.val().index() == i {
                self.out.next = self.cell[i * 3 + 2].q.val();
            }
        }
        self.mix.next = self.cell[0].q.val() ^ self.cell[4].q.val();
    }
}

/// A chain of combinational signals in an array: `part[0] = a`,
/// `part[i] = (part[i - 1] << 1) ^ b`, the last one registered.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset of the register.
/// - `a`, `b`: the operands.
///
/// # Outputs
/// - `last`: `part[3]` of the previous edge (registered, cleared by reset).
/// - `odd`: bit 0 of `part[1]` OR bit 0 of `part[2]` (combinational).
/// - `kept`: `part[2]` of the previous edge, in a register without reset ([`DataReg`]): a
///   reset leaves it alone.
#[derive(LogicBlock, Default)]
pub struct LocalArray {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub last: Signal<Out, Bits<8>>,
    pub odd: Signal<Out, bool>,
    pub kept: Signal<Out, Bits<8>>,
    part: [Signal<Local, Bits<8>>; 4],
    held: Reg<Bits<8>>,
    staged: DataReg<Bits<8>>,
}

impl Logic for LocalArray {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, staged);
        self.held.reset.next = self.reset.val();
        self.part[0].next = self.a.val();
        for i in 1..4 {
            self.part[i].next = (self.part[i - 1].val() << 1) ^ self.b.val();
        }
        self.held.d.next = self.part[3].val();
        self.last.next = self.held.q.val();
        self.staged.d.next = self.part[2].val();
        self.kept.next = self.staged.q.val();
        self.odd.next = self.part[1].val().get_bit(0) | self.part[2].val().get_bit(0);
    }
}

/// An 8-bit accumulator with an enable: the block [`ChildArray`] instantiates three times.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset (to zero).
/// - `en`: add `x` at this edge.
/// - `x`: the addend.
///
/// # Outputs
/// - `q`: the accumulator.
#[derive(LogicBlock, Default)]
pub struct AccUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub en: Signal<In, bool>,
    pub x: Signal<In, Bits<8>>,
    pub q: Signal<Out, Bits<8>>,
    acc: Reg<Bits<8>>,
}

impl Logic for AccUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc);
        self.acc.reset.next = self.reset.val();
        if self.en.val() {
            self.acc.d.next = self.acc.q.val() + self.x.val();
        }
        self.q.next = self.acc.q.val();
    }
}

/// An array of three [`AccUnit`] instances, one enabled at a time, with an array of outputs.
/// Emit it with `emit_with_children(&b, "child_array", header, &[("accs", "acc_unit")])`.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset of every instance.
/// - `x`: the addend of every instance.
/// - `sel`: the instance that adds `x` at this edge (3: none).
///
/// # Outputs
/// - `q[i]` (`q_0`, `q_1`, `q_2` in Verilog): instance `i`'s accumulator.
#[derive(LogicBlock, Default)]
pub struct ChildArray {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub x: Signal<In, Bits<8>>,
    pub sel: Signal<In, Bits<2>>,
    pub q: [Signal<Out, Bits<8>>; 3],
    accs: [AccUnit; 3],
}

impl Logic for ChildArray {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..3 {
            self.accs[i].clock.next = self.clock.val();
            self.accs[i].reset.next = self.reset.val();
            self.accs[i].en.next = self.sel.val().index() == i;
            self.accs[i].x.next = self.x.val();
            self.q[i].next = self.accs[i].q.val();
        }
    }
}

/// One register of each kind without reset, both loaded from `x`: the block [`KeptCopies`]
/// instantiates twice with the same input.
///
/// # Inputs
/// - `clock`: rising-edge clock.
/// - `x`: the value both registers load.
///
/// # Outputs
/// - `q`: the previous edge's `x` ([`KeptReg`] `own`) XOR the previous edge's `x + 1`
///   ([`DataReg`] `plain`).
#[derive(LogicBlock, Default)]
pub struct KeptUnit {
    pub clock: Signal<In, Clock>,
    pub x: Signal<In, Bits<8>>,
    pub q: Signal<Out, Bits<8>>,
    own: KeptReg<Bits<8>>,
    plain: DataReg<Bits<8>>,
}

impl Logic for KeptUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, own, plain);
        self.own.d.next = self.x.val();
        self.plain.d.next = self.x.val() + 1;
        self.q.next = self.own.q.val() ^ self.plain.q.val();
    }
}

/// Two [`KeptUnit`] instances fed the same `x`. Synthesis merges their `plain` registers into
/// one and keeps both `own`s: 24 flip-flops, where plain registers alone would give 16. Emit
/// it with `emit_with_children(&b, "kept_copies", header, &[("units", "kept_unit")])`.
///
/// # Inputs
/// - `clock`: rising-edge clock.
/// - `x`: the input of both instances.
///
/// # Outputs
/// - `q[i]` (`q_0`, `q_1`): instance `i`'s output.
#[derive(LogicBlock, Default)]
pub struct KeptCopies {
    pub clock: Signal<In, Clock>,
    pub x: Signal<In, Bits<8>>,
    pub q: [Signal<Out, Bits<8>>; 2],
    units: [KeptUnit; 2],
}

impl Logic for KeptCopies {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..2 {
            self.units[i].clock.next = self.clock.val();
            self.units[i].x.next = self.x.val();
            self.q[i].next = self.units[i].q.val();
        }
    }
}

/// Two memories in an array, one write port each, read at the same address; a valid bit per
/// word (in registers, cleared by reset) hides words not written since reset, as memories have
/// no reset.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset of the valid bits.
/// - `we`, `bank`, `waddr`, `wdata`: write `wdata` at `waddr` of memory `bank` when `we`.
/// - `raddr`: the address both memories read (registered read, read before write).
///
/// # Outputs
/// - `rd0`, `rd1`: the word of memory 0 / 1 at the previous edge's `raddr`, zero if not written
///   since reset before that edge.
#[derive(LogicBlock, Default)]
pub struct MemArray {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub we: Signal<In, bool>,
    pub bank: Signal<In, Bits<1>>,
    pub waddr: Signal<In, Bits<3>>,
    pub wdata: Signal<In, Bits<8>>,
    pub raddr: Signal<In, Bits<3>>,
    pub rd0: Signal<Out, Bits<8>>,
    pub rd1: Signal<Out, Bits<8>>,
    ram: [Mem<Bits<8>, 3>; 2],
    valid: [Reg<Bits<8>>; 2],
    rvalid: [Reg<bool>; 2],
}

impl Logic for MemArray {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..2 {
            self.ram[k].clock.next = self.clock.val();
            self.ram[k].rd_addr.next = self.raddr.val();
            self.ram[k].wr_addr.next = self.waddr.val();
            self.ram[k].wr_data.next = self.wdata.val();
            self.ram[k].wr_en.next = self.we.val() & (self.bank.val().index() == k);
            self.valid[k].clock.next = self.clock.val();
            self.valid[k].reset.next = self.reset.val();
            self.valid[k].d.next = self.valid[k].q.val();
            if self.we.val() & (self.bank.val().index() == k) {
                self.valid[k].d.next = self.valid[k]
                    .q
                    .val()
                    .replace_bit(self.waddr.val().index(), true);
            }
            self.rvalid[k].clock.next = self.clock.val();
            self.rvalid[k].reset.next = self.reset.val();
            self.rvalid[k].d.next = self.valid[k].q.val().get_bit(self.raddr.val().index());
        }
        self.rd0.next = 0.into();
        if self.rvalid[0].q.val() {
            self.rd0.next = self.ram[0].rd_data.val();
        }
        self.rd1.next = 0.into();
        if self.rvalid[1].q.val() {
            self.rd1.next = self.ram[1].rd_data.val();
        }
    }
}

/// A tiny ALU register: `match` on integer literals with a `_` arm, and on a `bool` without.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset of the register.
/// - `op`: 0 loads `a + b`, 1 loads `a - b`, 2 loads `a & b`, 3 holds.
/// - `a`, `b`: the operands.
/// - `flag`: selects what `z` shows.
///
/// # Outputs
/// - `y`: the register.
/// - `z`: `a ^ y` when `flag`, else `b` (combinational).
#[derive(LogicBlock, Default)]
pub struct MatchLiterals {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub op: Signal<In, Bits<2>>,
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub flag: Signal<In, bool>,
    pub y: Signal<Out, Bits<8>>,
    pub z: Signal<Out, Bits<8>>,
    r: Reg<Bits<8>>,
}

impl Logic for MatchLiterals {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.r.reset.next = self.reset.val();
        self.y.next = self.r.q.val();
        match self.op.val().index() {
            0 => self.r.d.next = self.a.val() + self.b.val(),
            1_usize => self.r.d.next = self.a.val() - self.b.val(),
            2 => {
                self.r.d.next = self.a.val() & self.b.val();
            }
            _ => {}
        }
        match self.flag.val() {
            true => self.z.next = self.a.val() ^ self.r.q.val(),
            false => self.z.next = self.b.val(),
        }
    }
}

/// The states of [`StateMachine`]: five, so three bits, codes 5 to 7 unused.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum Phase {
    Idle,
    Load,
    CalcReadA,
    Drain,
    Done,
}

/// A state machine on a [`Phase`] register: on `start` it loads `din`, adds `din` three more
/// times, waits for `start` to drop, and returns to idle.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset (to `Idle`, sum zero).
/// - `start`: leaves `Idle`; `Drain` waits for it to be low.
/// - `din`: the value loaded and added.
///
/// # Outputs
/// - `phase`: the state, as its 3-bit code.
/// - `busy`: the state is neither `Idle` nor `Done`.
/// - `sum`: the running sum (inverted while in `Drain`).
#[derive(LogicBlock, Default)]
pub struct StateMachine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub start: Signal<In, bool>,
    pub din: Signal<In, Bits<8>>,
    pub phase: Signal<Out, Phase>,
    pub busy: Signal<Out, bool>,
    pub sum: Signal<Out, Bits<8>>,
    state: Reg<Phase>,
    acc: Reg<Bits<8>>,
    count: Reg<Bits<2>>,
}

impl Logic for StateMachine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, acc, count);
        self.state.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.count.reset.next = self.reset.val();
        self.phase.next = self.state.q.val();
        self.sum.next = self.acc.q.val();
        self.busy.next = self.state.q.val() != Phase::Idle;
        match self.state.q.val() {
            Phase::Idle => {
                if self.start.val() {
                    self.state.d.next = Phase::Load;
                }
            }
            Phase::Load => {
                self.acc.d.next = self.din.val();
                self.count.d.next = 0.into();
                self.state.d.next = Phase::CalcReadA;
            }
            Phase::CalcReadA => {
                self.acc.d.next = self.acc.q.val() + self.din.val();
                self.count.d.next = self.count.q.val() + 1;
                if self.count.q.val() == 2 {
                    self.state.d.next = Phase::Drain;
                }
            }
            Phase::Drain => {
                if !self.start.val() {
                    self.state.d.next = Phase::Done;
                }
            }
            Phase::Done => self.state.d.next = Phase::Idle,
        }
        match self.state.q.val() {
            Phase::Done => self.busy.next = false,
            Phase::Drain => self.sum.next = !self.acc.q.val(),
            _ => {}
        }
    }
}

/// Two [`Mul16`] primitives, a module of their own each (not inlined), and the sum of their
/// products: the multipliers' generic Verilog body against their rust-hdl model.
///
/// # Inputs
/// - `clock`, `reset`: rising-edge clock, synchronous reset (of the multipliers too).
/// - `a`, `b`, `c`: 16-bit operands.
///
/// # Outputs
/// - `ab`: `a × b` of two edges earlier (the first multiplier's product register).
/// - `sum`: `a × b + a × c` of two edges earlier, modulo 2^32, registered once more.
#[derive(LogicBlock, Default)]
pub struct MulPair {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<16>>,
    pub c: Signal<In, Bits<16>>,
    pub ab: Signal<Out, Bits<32>>,
    pub sum: Signal<Out, Bits<32>>,
    mul_ab: Mul16,
    mul_ac: Mul16,
    total: Reg<Bits<32>>,
}

impl Logic for MulPair {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, total);
        self.total.reset.next = self.reset.val();
        self.mul_ab.clock.next = self.clock.val();
        self.mul_ab.reset.next = self.reset.val();
        self.mul_ab.a.next = self.a.val();
        self.mul_ab.b.next = self.b.val();
        self.mul_ac.clock.next = self.clock.val();
        self.mul_ac.reset.next = self.reset.val();
        self.mul_ac.a.next = self.a.val();
        self.mul_ac.b.next = self.c.val();
        self.total.d.next = self.mul_ab.p.val() + self.mul_ac.p.val();
        self.ab.next = self.mul_ab.p.val();
        self.sum.next = self.total.q.val();
    }
}

/// An example as a test harness drives it, with plain integers: inputs and outputs in the
/// order of the emitted module's ports, `clock` excluded, each value as wide as its port.
pub trait Example: Sized {
    /// The emitted module's name.
    const NAME: &'static str;
    /// Input ports, `clock` excluded, in port order.
    const INPUTS: &'static [&'static str];
    /// Output ports, in port order.
    const OUTPUTS: &'static [&'static str];
    /// The block, connected.
    fn connected() -> Self;
    /// The block as Verilog (children included, see [`Module::full_text`]).
    fn verilog(&self) -> Result<Module, EmitError>;
    /// One clock cycle under rust-hdl's `simulate()`: apply `inputs` (masked to their
    /// widths), settle with the clock low, sample the outputs, raise the clock and settle.
    /// `None` if rust-hdl does not settle (a combinational loop).
    fn cycle(&mut self, inputs: &[u64]) -> Option<Vec<u64>>;
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    Bits::<N>::from(if N >= 64 { v } else { v & ((1 << N) - 1) })
}

/// The clock-low / sample / clock-high sequence of [`Example::cycle`].
fn cycle<B: Block>(
    uut: &mut B,
    clock: fn(&mut B) -> &mut Signal<In, Clock>,
    sample: fn(&B) -> Vec<u64>,
) -> Option<Vec<u64>> {
    clock(uut).next = Clock { clk: false };
    let low = simulate(uut, 1000);
    let out = sample(uut);
    clock(uut).next = Clock { clk: true };
    (simulate(uut, 1000) && low).then_some(out)
}

fn connected<B: Block + Default>() -> B {
    let mut uut = B::default();
    uut.connect_all();
    uut
}

fn header(name: &str) -> Vec<String> {
    vec![format!("{name}: an example of netcoll_hdl::emit")]
}

impl Example for RegArrayLoop {
    const NAME: &'static str = "reg_array_loop";
    const INPUTS: &'static [&'static str] = &["reset", "din", "en", "sel"];
    const OUTPUTS: &'static [&'static str] = &["pick", "total"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.din.next = b(v[1]);
        self.en.next = b(v[2]);
        self.sel.next = b(v[3]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| vec![s.pick.val().to_u64(), s.total.val().to_u64()],
        )
    }
}

impl Example for NestedLoops {
    const NAME: &'static str = "nested_loops";
    const INPUTS: &'static [&'static str] = &["reset", "din", "shift", "row"];
    const OUTPUTS: &'static [&'static str] = &["out", "mix"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.din.next = b(v[1]);
        self.shift.next = v[2] & 1 != 0;
        self.row.next = b(v[3]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| vec![s.out.val().to_u64(), s.mix.val().to_u64()],
        )
    }
}

impl Example for LocalArray {
    const NAME: &'static str = "local_array";
    const INPUTS: &'static [&'static str] = &["reset", "a", "b"];
    const OUTPUTS: &'static [&'static str] = &["last", "odd", "kept"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.a.next = b(v[1]);
        self.b.next = b(v[2]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| {
                vec![
                    s.last.val().to_u64(),
                    u64::from(s.odd.val()),
                    s.kept.val().to_u64(),
                ]
            },
        )
    }
}

impl Example for ChildArray {
    const NAME: &'static str = "child_array";
    const INPUTS: &'static [&'static str] = &["reset", "x", "sel"];
    const OUTPUTS: &'static [&'static str] = &["q_0", "q_1", "q_2"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit_with_children(
            self,
            Self::NAME,
            &header(Self::NAME),
            &[("accs", "acc_unit")],
        )
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.x.next = b(v[1]);
        self.sel.next = b(v[2]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| s.q.iter().map(|q| q.val().to_u64()).collect(),
        )
    }
}

impl Example for KeptCopies {
    const NAME: &'static str = "kept_copies";
    const INPUTS: &'static [&'static str] = &["x"];
    const OUTPUTS: &'static [&'static str] = &["q_0", "q_1"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit_with_children(
            self,
            Self::NAME,
            &header(Self::NAME),
            &[("units", "kept_unit")],
        )
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.x.next = b(v[0]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| s.q.iter().map(|q| q.val().to_u64()).collect(),
        )
    }
}

impl Example for MemArray {
    const NAME: &'static str = "mem_array";
    const INPUTS: &'static [&'static str] = &["reset", "we", "bank", "waddr", "wdata", "raddr"];
    const OUTPUTS: &'static [&'static str] = &["rd0", "rd1"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.we.next = v[1] & 1 != 0;
        self.bank.next = b(v[2]);
        self.waddr.next = b(v[3]);
        self.wdata.next = b(v[4]);
        self.raddr.next = b(v[5]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| vec![s.rd0.val().to_u64(), s.rd1.val().to_u64()],
        )
    }
}

impl Example for MatchLiterals {
    const NAME: &'static str = "match_literals";
    const INPUTS: &'static [&'static str] = &["reset", "op", "a", "b", "flag"];
    const OUTPUTS: &'static [&'static str] = &["y", "z"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.op.next = b(v[1]);
        self.a.next = b(v[2]);
        self.b.next = b(v[3]);
        self.flag.next = v[4] & 1 != 0;
        cycle(
            self,
            |s| &mut s.clock,
            |s| vec![s.y.val().to_u64(), s.z.val().to_u64()],
        )
    }
}

impl Example for StateMachine {
    const NAME: &'static str = "state_machine";
    const INPUTS: &'static [&'static str] = &["reset", "start", "din"];
    const OUTPUTS: &'static [&'static str] = &["phase", "busy", "sum"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.start.next = v[1] & 1 != 0;
        self.din.next = b(v[2]);
        // A fieldless enum's code is its position, as the emitted localparams say.
        cycle(
            self,
            |s| &mut s.clock,
            |s| {
                vec![
                    s.phase.val() as u64,
                    u64::from(s.busy.val()),
                    s.sum.val().to_u64(),
                ]
            },
        )
    }
}

impl Example for MulPair {
    const NAME: &'static str = "mul_pair";
    const INPUTS: &'static [&'static str] = &["reset", "a", "b", "c"];
    const OUTPUTS: &'static [&'static str] = &["ab", "sum"];
    fn connected() -> Self {
        connected()
    }
    fn verilog(&self) -> Result<Module, EmitError> {
        emit(self, Self::NAME, &header(Self::NAME))
    }
    fn cycle(&mut self, v: &[u64]) -> Option<Vec<u64>> {
        self.reset.next = v[0] & 1 != 0;
        self.a.next = b(v[1]);
        self.b.next = b(v[2]);
        self.c.next = b(v[3]);
        cycle(
            self,
            |s| &mut s.clock,
            |s| vec![s.ab.val().to_u64(), s.sum.val().to_u64()],
        )
    }
}
