//! # netcoll's Verilog back end
//!
//! Turns a rust-hdl block into one flat, self-contained Verilog module that passes
//! `verilator --lint-only -Wall` without waivers. rust-hdl's own `generate_verilog` emits one
//! module per register instance, names with `$`, 32-bit literals in narrower contexts and
//! operator precedence that differs from Rust's; none of that survives `-Wall`. So this back end
//! reads what rust-hdl knows — the block's signals (through its `Probe` visitor) and the AST that
//! `#[hdl_gen]` produced for `update` — and prints Verilog itself.
//!
//! ## What the back end guarantees
//!
//! 1. **One flat module per block**, deterministic bytes: the same block gives the same text.
//!    Sub-blocks are the primitives [`crate::prim::Reg`], [`crate::prim::DataReg`] (and
//!    [`crate::prim::KeptReg`]) and [`crate::prim::Mem`], inlined,
//!    or netcoll blocks named in [`emit_with_children`], instantiated.
//! 2. **Names.** The block's own signals keep their Rust names; register `x` becomes
//!    `x_q`/`x_d` with all registers in one `always @(posedge clock)` with synchronous reset;
//!    memory `m` becomes `m_words` plus `m_rd_addr`, `m_rd_data`, `m_wr_en`, `m_wr_addr`,
//!    `m_wr_data`; child instance `c` has its ports as `c_<port>`.
//! 3. **Arrays.** Element `k` of an array field `f` (`[Reg<T>; N]`, `[Signal<_, T>; N]`,
//!    `[Mem<..>; N]`, `[Child; N]`, nested arrays too) is named `f_k` (`stat_3_q`, `stat_3_d`
//!    for a register array). Indices in the Rust code must be constant once loops are unrolled
//!    (loop variables, integer literals, `+`, `-`, `*`, parentheses); an index past the end is an
//!    error naming the block.
//! 4. **No silent renames.** A name that is not a legal identifier (contains `$`, is a Verilog
//!    or SystemVerilog keyword…) or that two things would share — including a collision the array
//!    mapping creates, such as a field `stat_3` next to element 3 of an array `stat` — is an
//!    [`EmitError::BadName`].
//! 5. **Widths.** Every literal is sized to its context, every width change is an explicit
//!    zero-extension (`{{n{1'b0}}, x}`) or part-select (`x[w-1:0]`), and every nested operator
//!    is parenthesised, so Verilog's precedence and sizing rules never have to agree with Rust's.
//! 6. **Constants.** Only constants that are used are declared, as `localparam`s.
//! 7. **`for` loops** with constant bounds (`for i in a..b`) are unrolled at emit time, nested
//!    loops too. A loop variable inside an array index selects the element; used as a value it
//!    becomes a literal sized to its context. An `if` whose test is constant once the loop
//!    variables are known keeps only the branch taken (so `if i > 0 { x[i - 1] }` is fine).
//! 8. **`match`** becomes a `case` whose labels are sized to the tested expression's width and
//!    which always has a `default` branch (empty when the Rust code has no `_` arm), so `-Wall`
//!    sees no incomplete case. Patterns: integer literals (with or without a type suffix),
//!    `true` / `false`, `_`, and enum paths `Type::Variant`. Arms Rust would never reach (a
//!    repeated label, anything after `_`) are dropped.
//! 9. **Enums** (`#[derive(LogicState)]`): a signal of enum type is as wide as rust-hdl makes it
//!    (`clog2` of the variant count), each variant's code is its position, and every variant the
//!    code uses is declared as a `localparam` named `<TYPE>_<VARIANT>` in SCREAMING_SNAKE_CASE
//!    (`NicState::CalcReadA` → `NIC_STATE_CALC_READ_A`).
//! 10. **Clock and reset.** All [`crate::prim::Reg`]s share one `always @(posedge clock)` with a
//!     synchronous `reset` to zero; the [`crate::prim::DataReg`]s (no reset) share a second
//!     one, declared after the others under their own comment; the [`crate::prim::KeptReg`]s
//!     a third, `(* keep *) always @(posedge clock)`: Yosys gives the block's attributes to
//!     the flip-flops it infers and never merges two kept cells, so each instance keeps its
//!     own copy (an attribute on the declaration keeps only the wire). A
//!     [`crate::prim::StateReg`] is a `Reg` declared under `(* fsm_encoding = "one-hot" *)`.
//!     A block needs 1-bit `clock` / `reset` inputs only if something in it uses them, so a
//!     purely combinational child module has neither, and one whose registers are all
//!     `DataReg`s has no `reset`.
//! 11. **Continuous assignments.** An unconditional assignment to a whole signal that nothing
//!     else writes, reading only signals already settled, is printed as `assign` (the signal is
//!     a `wire`); the rest of `update` stays in one `always @(*)`. This keeps Verilator from
//!     seeing false combinational loops between sub-blocks (rules in `hoist`).
//! 12. **What is refused** is an [`EmitError`], never a panic and never Verilog that would fail
//!     the lint: interfaces, unknown sub-blocks, dynamic array indices, unsupported patterns.
//!
//! The result is checked by simulation, not trust: the conformance suite runs the emitted text
//! under Verilator in lockstep with the cycle model, and `testbench/tests/emit_features.rs` runs
//! every example of [`examples`] under Verilator in lockstep with rust-hdl.
//!
//! ## Layout
//!
//! [`collect`] gathers what rust-hdl's probe shows; `symbols` names everything; `stmt` unrolls
//! loops and prints statements; `hoist` picks the continuous assignments; `expr` prints expressions at exact widths; `render` assembles
//! the module text; `keywords` holds the identifier rule.

mod collect;
pub mod examples;
mod expr;
mod hoist;
mod keywords;
mod render;
mod stmt;
mod symbols;

use collect::{Child, Collect};
use rust_hdl::core::ast::{Verilog, VerilogBlock};
use rust_hdl::core::block::Block;
use std::cell::RefCell;
use std::collections::BTreeSet;
use symbols::Symbols;
use thiserror::Error;

pub use keywords::is_legal_name;

/// Why a block could not be emitted.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum EmitError {
    #[error("block `{block}`: {what}")]
    Unsupported { block: String, what: String },
    #[error("block `{block}`: name `{name}` {why}")]
    BadName {
        block: String,
        name: String,
        why: String,
    },
}

/// Direction of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Input,
    Output,
}

/// A port of an emitted module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: usize,
}

/// An emitted module.
#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    pub ports: Vec<Port>,
    /// This module alone (one module per file keeps `-Wall`'s DECLFILENAME quiet).
    pub text: String,
    /// The modules this one instantiates (see [`emit_with_children`]), each emitted by itself
    /// and listed once however many instances use it.
    pub children: Vec<Module>,
}

impl Module {
    /// This module's text followed by its children's: everything a simulator needs.
    pub fn full_text(&self) -> String {
        let mut t = self.text.clone();
        for c in &self.children {
            t.push('\n');
            t.push_str(&c.full_text());
        }
        t
    }
}

/// Emits `uut` (already `connect_all`ed) as a module called `name`; `header` lines become the
/// leading comment.
pub fn emit<B: Block>(uut: &B, name: &str, header: &[String]) -> Result<Module, EmitError> {
    emit_with_children(uut, name, header, &[])
}

/// Like [`emit`], but the sub-blocks named in `instances` (field name, module name) — netcoll
/// blocks with their own `#[hdl_gen]` update — are emitted as modules of their own and
/// instantiated, instead of being rejected. A field that is an array of blocks gives one
/// instance per element (`f_0`, `f_1`…) of one module. The declarations hold at every depth:
/// a declared child's own sub-blocks are matched against the same list. The returned text
/// holds this module only ([`Module::full_text`] appends the children); each child's ports are
/// `reg`s the parent drives (inputs) or `wire`s it reads (outputs), named `<instance>_<port>`,
/// and its `clock` / `reset` are the parent's.
pub fn emit_with_children<B: Block>(
    uut: &B,
    name: &str,
    header: &[String],
    instances: &[(&str, &str)],
) -> Result<Module, EmitError> {
    let mut c = Collect::new(instances);
    uut.accept("top", &mut c);
    Emitter::new(name, c)?.render(header)
}

/// Everything needed to print one module: its symbols, its sub-blocks and its `update` code.
struct Emitter {
    block: String,
    syms: Symbols,
    children: Vec<Child>,
    code: VerilogBlock,
    /// Verilog names of the constants (and enum codes) the printed code refers to: only those
    /// are declared.
    used_consts: RefCell<BTreeSet<String>>,
}

impl Emitter {
    fn unsupported(&self, what: impl Into<String>) -> EmitError {
        EmitError::Unsupported {
            block: self.block.clone(),
            what: what.into(),
        }
    }

    fn new(block: &str, c: Collect) -> Result<Self, EmitError> {
        let bad = |what: String| EmitError::Unsupported {
            block: block.to_string(),
            what,
        };
        if let Some(e) = c.errors.first() {
            return Err(bad(e.clone()));
        }
        let code = match &c.code {
            Some(Verilog::Combinatorial(b)) => b.clone(),
            _ => return Err(bad("the top block has no #[hdl_gen] update".into())),
        };
        let syms = Symbols::build(block, &c)?;
        Ok(Self {
            block: block.to_string(),
            syms,
            children: c.children,
            code,
            used_consts: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(name: &str, children: Vec<Module>) -> Module {
        Module {
            name: name.into(),
            ports: vec![],
            text: format!("module {name};\n"),
            children,
        }
    }

    #[test]
    fn full_text_is_the_module_then_its_children_depth_first() {
        let m = module(
            "top",
            vec![module("a", vec![module("a1", vec![])]), module("b", vec![])],
        );
        assert_eq!(
            m.full_text(),
            "module top;\n\nmodule a;\n\nmodule a1;\n\nmodule b;\n"
        );
    }

    #[test]
    fn a_block_without_hdl_gen_code_is_refused() {
        let c = Collect::new(&[]);
        match Emitter::new("b", c) {
            Err(EmitError::Unsupported { block, what }) => {
                assert_eq!(block, "b");
                assert!(what.contains("#[hdl_gen]"), "{what}");
            }
            other => panic!("{:?}", other.err()),
        }
    }
}
