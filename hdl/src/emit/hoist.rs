//! Continuous assignments: which statements of the unrolled `update` leave the `always @(*)`
//! block and become `assign`s.
//!
//! Why: Verilator sees an `always @(*)` block as one unit — every signal it writes depends on
//! every signal it reads. A block whose sub-blocks pass signals to each other (the NIC's
//! sequencer reads the receive unit's proposal and writes `take_rx`, which the receive unit's
//! inputs depend on) then shows a combinational loop that is not there (`UNOPTFLAT`), and the
//! simulator settles it by iteration. An unconditional assignment that nothing else writes is a
//! plain function of what it reads, so it is printed as `assign` and carries only its own
//! dependencies.
//!
//! Rule: a top-level statement `x = e` (inside a top-level macro too) is hoisted when
//! 1. `x` is a whole signal (not a slice) written nowhere else in the code, and
//! 2. every signal `e` reads is written nowhere in the code, or by an earlier hoisted statement
//!    (so the value an `assign` sees is the value the statement saw in the block).
//!
//! A hoisted signal is declared `wire` (`output wire` for a port); the rest stay `reg`s written
//! by the `always @(*)` block, which is left out when nothing remains in it.

use super::symbols::SymKind;
use super::{EmitError, Emitter};
use rust_hdl::core::ast::{
    VerilogBlock, VerilogBlockOrConditional, VerilogExpression, VerilogStatement,
};
use std::collections::{BTreeMap, BTreeSet};

/// The update code split in two.
pub(super) struct Split {
    /// `assign`s in code order: Verilog name, width, the expression.
    pub assigns: Vec<(String, usize, VerilogExpression)>,
    /// What stays in the `always @(*)` block.
    pub procedural: VerilogBlock,
    /// Verilog names of the hoisted signals (declared `wire`).
    pub wires: BTreeSet<String>,
}

impl Emitter {
    pub(super) fn split_assigns(&self, code: VerilogBlock) -> Result<Split, EmitError> {
        let mut writes = BTreeMap::new();
        self.count_writes(&code, &mut writes)?;
        let mut split = Split {
            assigns: vec![],
            procedural: vec![],
            wires: BTreeSet::new(),
        };
        for s in flatten_top_macros(code) {
            match self.hoistable(&s, &writes, &split.wires)? {
                Some((name, width, e)) => {
                    split.wires.insert(name.clone());
                    split.assigns.push((name, width, e));
                }
                None => split.procedural.push(s),
            }
        }
        Ok(split)
    }

    fn hoistable(
        &self,
        s: &VerilogStatement,
        writes: &BTreeMap<String, usize>,
        hoisted: &BTreeSet<String>,
    ) -> Result<Option<(String, usize, VerilogExpression)>, EmitError> {
        let VerilogStatement::Assignment(l, r) = s else {
            return Ok(None);
        };
        let Some((name, width)) = self.target(l)? else {
            return Ok(None);
        };
        if writes.get(&name) != Some(&1) {
            return Ok(None);
        }
        let mut reads = BTreeSet::new();
        self.reads(r, &mut reads)?;
        let settled = reads
            .iter()
            .all(|n| !writes.contains_key(n) || hoisted.contains(n));
        Ok(settled.then(|| (name, width, r.clone())))
    }

    /// How many statements write each Verilog name (slices count as writes).
    fn count_writes(
        &self,
        b: &VerilogBlock,
        out: &mut BTreeMap<String, usize>,
    ) -> Result<(), EmitError> {
        for s in b {
            match s {
                VerilogStatement::Assignment(l, _) => {
                    if let Some((name, _)) = self.target(l)? {
                        *out.entry(name).or_default() += 1;
                    }
                }
                VerilogStatement::SliceAssignment { base, .. } => {
                    if let Some((name, _)) = self.target(base)? {
                        *out.entry(name).or_default() += 1;
                    }
                }
                VerilogStatement::If(c) => {
                    self.count_writes(&c.then, out)?;
                    let mut otherwise = &c.otherwise;
                    loop {
                        match otherwise {
                            VerilogBlockOrConditional::None => break,
                            VerilogBlockOrConditional::Block(b) => {
                                self.count_writes(b, out)?;
                                break;
                            }
                            VerilogBlockOrConditional::Conditional(st) => {
                                if let VerilogStatement::If(c2) = st.as_ref() {
                                    self.count_writes(&c2.then, out)?;
                                    otherwise = &c2.otherwise;
                                } else {
                                    self.count_writes(&vec![st.as_ref().clone()], out)?;
                                    break;
                                }
                            }
                        }
                    }
                }
                VerilogStatement::Match(m) => {
                    for c in &m.cases {
                        self.count_writes(&c.block, out)?;
                    }
                }
                VerilogStatement::Macro(b) => self.count_writes(b, out)?,
                VerilogStatement::Loop(l) => self.count_writes(&l.block, out)?,
                VerilogStatement::Comment(_) | VerilogStatement::Link(_) => {}
            }
        }
        Ok(())
    }

    /// The Verilog names of the signals `e` reads (constants and enum codes are not signals).
    fn reads(&self, e: &VerilogExpression, out: &mut BTreeSet<String>) -> Result<(), EmitError> {
        use VerilogExpression as E;
        match e {
            E::Signal(s) => {
                let sym = self.sym(s)?;
                if !matches!(
                    sym.kind,
                    SymKind::Const(_) | SymKind::EnumConst(_) | SymKind::Implicit
                ) {
                    out.insert(sym.verilog.clone());
                }
            }
            E::Literal(_) => {}
            E::Cast(x, _) | E::Signed(x) | E::Unsigned(x) | E::Paren(x) | E::Unary(_, x) => {
                self.reads(x, out)?
            }
            E::Binary(a, _, b) | E::Index(a, b) | E::Slice(a, _, b) => {
                self.reads(a, out)?;
                self.reads(b, out)?;
            }
            E::IndexReplace(a, b, c) => {
                self.reads(a, out)?;
                self.reads(b, out)?;
                self.reads(c, out)?;
            }
        }
        Ok(())
    }
}

/// The code with each top-level macro (`dff_setup!` and the like: unconditional) replaced by
/// its statements, so that they are top-level too.
fn flatten_top_macros(code: VerilogBlock) -> VerilogBlock {
    let mut out = vec![];
    for s in code {
        match s {
            VerilogStatement::Macro(b) => out.extend(flatten_top_macros(b)),
            s => out.push(s),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::emit::expr::tests::{bin, emitter, sig};
    use crate::emit::symbols::SymKind;
    use rust_hdl::core::ast::{
        VerilogBlockOrConditional, VerilogConditional, VerilogOp, VerilogStatement,
    };

    fn assign(l: &str, r: &str) -> VerilogStatement {
        VerilogStatement::Assignment(sig(l), sig(r))
    }

    fn hoisted(code: Vec<VerilogStatement>) -> (Vec<String>, usize) {
        let e = emitter(&[
            ("a", 1, SymKind::Input),
            ("b", 1, SymKind::Input),
            ("x", 1, SymKind::Output),
            ("y", 1, SymKind::Local),
            ("z", 1, SymKind::Output),
            ("r_d", 1, SymKind::Local),
            ("r_q", 1, SymKind::Local),
        ]);
        let split = e.split_assigns(code).unwrap();
        let names = split.assigns.iter().map(|a| a.0.clone()).collect();
        (names, split.procedural.len())
    }

    #[test]
    fn single_unconditional_writes_of_settled_values_become_assigns() {
        let code = vec![
            VerilogStatement::Macro(vec![assign("r_d", "r_q")]),
            VerilogStatement::Assignment(sig("y"), bin(sig("a"), VerilogOp::BitAnd, sig("b"))),
            assign("x", "y"),
        ];
        let (names, rest) = hoisted(code);
        assert_eq!(names, ["r_d", "y", "x"]);
        assert_eq!(rest, 0);
    }

    #[test]
    fn signals_written_twice_or_conditionally_stay_in_the_block() {
        let code = vec![
            assign("r_d", "r_q"),
            VerilogStatement::If(VerilogConditional {
                test: sig("a"),
                then: vec![assign("r_d", "b"), assign("z", "a")],
                otherwise: VerilogBlockOrConditional::None,
            }),
            // Reads a signal the block still writes: stays, so it sees the block's value.
            assign("x", "r_d"),
            // Written once, reads only inputs: hoisted even after the block's statements.
            assign("y", "b"),
        ];
        let (names, rest) = hoisted(code);
        assert_eq!(names, ["y"]);
        assert_eq!(rest, 3);
    }
}
