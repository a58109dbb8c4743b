//! Statements: the unrolling of `for` loops, then assignments, `if` chains and `case`.
//!
//! Rules:
//!
//! 1. Before anything is printed, every `for` loop is unrolled (nested loops too) and every
//!    array index is resolved ([`Emitter::unrolled`]): a loop variable in an index selects the
//!    element, a loop variable used as a value becomes a literal (sized to its context later,
//!    like any literal). Inside a loop, an `if` whose test is constant keeps only the branch
//!    taken, so a branch that would index out of range for some iterations costs nothing where
//!    it is not taken. At most [`MAX_UNROLLED`] iterations in all.
//! 2. A loop variable may not share its name with a signal of the block: `hdl_gen` writes both
//!    as the same bare name.
//! 3. Assignments are blocking (`=`) inside the one `always @(*)`; clock and reset of the
//!    primitives are wired by the back end, so assigning them anything but the block's own
//!    `clock` / `reset` is refused.
//! 4. `match` is a `case` on the test at its natural width; each label is printed at that
//!    width (a label that does not fit is refused, an enum label must have the test's width),
//!    a repeated label or an arm after `_` is dropped (Rust never reaches it either), and a
//!    `default` branch is always printed, empty when the Rust code has no `_` arm.

use super::expr::{literal, parse_int_literal, parse_literal};
use super::symbols::SymKind;
use super::{EmitError, Emitter};
use rust_hdl::core::ast::{
    VerilogBlock, VerilogBlockOrConditional, VerilogCase, VerilogConditional, VerilogExpression,
    VerilogLiteral, VerilogLoop, VerilogMatch, VerilogOp, VerilogOpUnary, VerilogStatement,
};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The most loop iterations one block may unroll to, all loops together.
pub(super) const MAX_UNROLLED: usize = 1 << 16;

type Env = Vec<(String, u128)>;

/// The value of an expression made of literals only, as Rust's `usize` arithmetic would
/// compute it; `None` when it is not one or Rust would not compute it (underflow, overflow).
fn fold(e: &VerilogExpression) -> Option<u128> {
    use VerilogExpression as E;
    match e {
        E::Literal(l) => parse_literal(&l.to_string()).map(|x| x.1),
        E::Paren(x) => fold(x),
        E::Unary(VerilogOpUnary::Not, x) if is_boolean(x) => fold(x).map(|v| 1 - v),
        E::Binary(l, op, r) => {
            let (a, b) = (fold(l)?, fold(r)?);
            let bool = |c: bool| Some(u128::from(c));
            match op {
                VerilogOp::Eq => bool(a == b),
                VerilogOp::Ne => bool(a != b),
                VerilogOp::Lt => bool(a < b),
                VerilogOp::Le => bool(a <= b),
                VerilogOp::Gt => bool(a > b),
                VerilogOp::Ge => bool(a >= b),
                VerilogOp::LogicalAnd => bool(a != 0 && b != 0),
                VerilogOp::LogicalOr => bool(a != 0 || b != 0),
                VerilogOp::Add => a.checked_add(b),
                VerilogOp::Sub => a.checked_sub(b),
                VerilogOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `e` is a comparison or a logical operator (whose value is 0 or 1).
fn is_boolean(e: &VerilogExpression) -> bool {
    match e {
        VerilogExpression::Paren(x) => is_boolean(x),
        VerilogExpression::Binary(_, op, _) => matches!(
            op,
            VerilogOp::Eq
                | VerilogOp::Ne
                | VerilogOp::Lt
                | VerilogOp::Le
                | VerilogOp::Gt
                | VerilogOp::Ge
                | VerilogOp::LogicalAnd
                | VerilogOp::LogicalOr
        ),
        _ => false,
    }
}

impl Emitter {
    /// The `update` code with every loop unrolled and every array index resolved (rule 1).
    pub(super) fn unrolled(&self) -> Result<VerilogBlock, EmitError> {
        let mut out = vec![];
        let mut budget = MAX_UNROLLED;
        self.unroll_block(&self.code, &mut vec![], &mut budget, &mut out)?;
        Ok(out)
    }

    fn unroll_block(
        &self,
        b: &VerilogBlock,
        env: &mut Env,
        budget: &mut usize,
        out: &mut VerilogBlock,
    ) -> Result<(), EmitError> {
        for s in b {
            self.unroll_stmt(s, env, budget, out)?;
        }
        Ok(())
    }

    fn unroll_stmt(
        &self,
        s: &VerilogStatement,
        env: &mut Env,
        budget: &mut usize,
        out: &mut VerilogBlock,
    ) -> Result<(), EmitError> {
        use VerilogStatement as S;
        match s {
            S::Assignment(l, r) => {
                out.push(S::Assignment(self.subst(l, env)?, self.subst(r, env)?))
            }
            S::SliceAssignment {
                base,
                width,
                offset,
                replacement,
            } => out.push(S::SliceAssignment {
                base: self.subst(base, env)?,
                width: *width,
                offset: self.subst(offset, env)?,
                replacement: self.subst(replacement, env)?,
            }),
            S::If(c) => self.unroll_if(c, env, budget, out)?,
            S::Match(m) => {
                let mut cases = vec![];
                for c in &m.cases {
                    let mut block = vec![];
                    self.unroll_block(&c.block, env, budget, &mut block)?;
                    cases.push(VerilogCase {
                        condition: c.condition.clone(),
                        block,
                    });
                }
                let test = self.subst(&m.test, env)?;
                out.push(S::Match(VerilogMatch { test, cases }));
            }
            S::Loop(l) => self.unroll_loop(l, env, budget, out)?,
            S::Macro(b) => {
                let mut inner = vec![];
                self.unroll_block(b, env, budget, &mut inner)?;
                out.push(S::Macro(inner));
            }
            S::Comment(_) | S::Link(_) => out.push(s.clone()),
        }
        Ok(())
    }

    fn unroll_if(
        &self,
        c: &VerilogConditional,
        env: &mut Env,
        budget: &mut usize,
        out: &mut VerilogBlock,
    ) -> Result<(), EmitError> {
        let test = self.subst(&c.test, env)?;
        // Only inside loops, so that code without loops is printed exactly as written.
        if let Some(v) = fold(&test).filter(|_| !env.is_empty()) {
            return match (v != 0, &c.otherwise) {
                (true, _) => self.unroll_block(&c.then, env, budget, out),
                (false, VerilogBlockOrConditional::None) => Ok(()),
                (false, VerilogBlockOrConditional::Block(b)) => {
                    self.unroll_block(b, env, budget, out)
                }
                (false, VerilogBlockOrConditional::Conditional(st)) => {
                    self.unroll_stmt(st, env, budget, out)
                }
            };
        }
        let mut then = vec![];
        self.unroll_block(&c.then, env, budget, &mut then)?;
        let otherwise = match &c.otherwise {
            VerilogBlockOrConditional::None => VerilogBlockOrConditional::None,
            VerilogBlockOrConditional::Block(b) => {
                let mut v = vec![];
                self.unroll_block(b, env, budget, &mut v)?;
                VerilogBlockOrConditional::Block(v)
            }
            VerilogBlockOrConditional::Conditional(st) => {
                let mut v = vec![];
                self.unroll_stmt(st, env, budget, &mut v)?;
                match v.len() {
                    0 => VerilogBlockOrConditional::None,
                    1 if matches!(v[0], VerilogStatement::If(_)) => {
                        VerilogBlockOrConditional::Conditional(Box::new(v.remove(0)))
                    }
                    _ => VerilogBlockOrConditional::Block(v),
                }
            }
        };
        out.push(VerilogStatement::If(VerilogConditional {
            test,
            then,
            otherwise,
        }));
        Ok(())
    }

    fn unroll_loop(
        &self,
        l: &VerilogLoop,
        env: &mut Env,
        budget: &mut usize,
        out: &mut VerilogBlock,
    ) -> Result<(), EmitError> {
        let bound = |x: &VerilogLiteral| {
            parse_literal(&x.to_string())
                .map(|p| p.1)
                .ok_or_else(|| self.unsupported(format!("loop bound {x} of `{}`", l.index)))
        };
        let (from, to) = (bound(&l.from)?, bound(&l.to)?);
        if self.syms.is_signal(&l.index) {
            return Err(self.unsupported(format!(
                "loop variable `{}` has the name of a signal of the block; rename one",
                l.index
            )));
        }
        for v in from..to {
            *budget = budget.checked_sub(1).ok_or_else(|| {
                self.unsupported(format!(
                    "loops unroll to more than {MAX_UNROLLED} iterations"
                ))
            })?;
            env.push((l.index.clone(), v));
            let r = self.unroll_block(&l.block, env, budget, out);
            env.pop();
            r?;
        }
        Ok(())
    }

    /// `e` with loop variables replaced by literals and array indices resolved.
    fn subst(&self, e: &VerilogExpression, env: &Env) -> Result<VerilogExpression, EmitError> {
        use VerilogExpression as E;
        let b = |x: &VerilogExpression| -> Result<Box<E>, EmitError> {
            Ok(Box::new(self.subst(x, env)?))
        };
        Ok(match e {
            E::Signal(name) => match env.iter().rev().find(|(n, _)| n == name) {
                Some((_, v)) => E::Literal(VerilogLiteral::from(*v)),
                None => E::Signal(
                    self.syms
                        .resolve_indices(name, env)
                        .map_err(|m| self.unsupported(m))?,
                ),
            },
            E::Literal(_) => e.clone(),
            E::Cast(x, w) => E::Cast(b(x)?, *w),
            E::Signed(x) => E::Signed(b(x)?),
            E::Unsigned(x) => E::Unsigned(b(x)?),
            E::Paren(x) => E::Paren(b(x)?),
            E::Binary(l, op, r) => E::Binary(b(l)?, op.clone(), b(r)?),
            E::Unary(op, x) => E::Unary(op.clone(), b(x)?),
            E::Index(x, i) => E::Index(b(x)?, b(i)?),
            E::Slice(x, w, o) => E::Slice(b(x)?, *w, b(o)?),
            E::IndexReplace(x, i, v) => E::IndexReplace(b(x)?, b(i)?, b(v)?),
        })
    }

    pub(super) fn block(
        &self,
        b: &VerilogBlock,
        ind: usize,
        out: &mut String,
    ) -> Result<(), EmitError> {
        for s in b {
            self.statement(s, ind, out)?;
        }
        Ok(())
    }

    pub(super) fn target(
        &self,
        e: &VerilogExpression,
    ) -> Result<Option<(String, usize)>, EmitError> {
        match e {
            VerilogExpression::Signal(s) => {
                let sym = self.sym(s)?;
                match sym.kind {
                    SymKind::Implicit => Ok(None),
                    SymKind::Input
                    | SymKind::Const(_)
                    | SymKind::EnumConst(_)
                    | SymKind::ChildOutput => Err(self.unsupported(format!(
                        "assignment to an input, a constant or a child's output `{s}`"
                    ))),
                    _ => Ok(Some((sym.verilog.clone(), sym.width))),
                }
            }
            _ => Err(self.unsupported("assignment to something other than a signal")),
        }
    }

    fn statement(
        &self,
        s: &VerilogStatement,
        ind: usize,
        out: &mut String,
    ) -> Result<(), EmitError> {
        let pad = "    ".repeat(ind);
        match s {
            VerilogStatement::Assignment(l, r) => {
                if let Some((name, w)) = self.target(l)? {
                    let _ = writeln!(out, "{pad}{name} = {};", self.expr(r, w)?);
                } else if !matches!(r, VerilogExpression::Signal(n) if n == "clock" || n == "reset")
                {
                    return Err(self.unsupported(
                        "a primitive's clock/reset driven by other than the block's",
                    ));
                }
            }
            VerilogStatement::SliceAssignment {
                base,
                width,
                offset,
                replacement,
            } => self.slice_assignment(base, *width, offset, replacement, &pad, out)?,
            VerilogStatement::If(c) => self.if_chain(c, ind, out)?,
            VerilogStatement::Macro(b) => self.block(b, ind, out)?,
            VerilogStatement::Comment(c) => {
                let _ = writeln!(out, "{pad}// {c}");
            }
            VerilogStatement::Link(_) => {}
            VerilogStatement::Match(m) => self.case(m, ind, out)?,
            VerilogStatement::Loop(l) => {
                return Err(self.unsupported(format!("loop over `{}` left unrolled", l.index)))
            }
        }
        Ok(())
    }

    fn slice_assignment(
        &self,
        base: &VerilogExpression,
        width: usize,
        offset: &VerilogExpression,
        replacement: &VerilogExpression,
        pad: &str,
        out: &mut String,
    ) -> Result<(), EmitError> {
        let (name, bw) = self
            .target(base)?
            .ok_or_else(|| self.unsupported("slice assignment to a primitive pin"))?;
        let v = self.expr(replacement, width)?;
        match self.const_value(offset) {
            Some(lo) => {
                let lo = lo as usize;
                if lo + width > bw {
                    return Err(self.unsupported(format!("slice assignment out of `{name}`")));
                }
                if width == 1 {
                    let _ = writeln!(out, "{pad}{name}[{lo}] = {v};");
                } else {
                    let _ = writeln!(out, "{pad}{name}[{}:{lo}] = {v};", lo + width - 1);
                }
            }
            None => {
                let ow = self.width(offset)?.unwrap_or(32);
                let _ = writeln!(
                    out,
                    "{pad}{name}[{} +: {width}] = {v};",
                    self.expr(offset, ow)?
                );
            }
        }
        Ok(())
    }

    fn if_chain(
        &self,
        c: &VerilogConditional,
        ind: usize,
        out: &mut String,
    ) -> Result<(), EmitError> {
        let pad = "    ".repeat(ind);
        let _ = writeln!(out, "{pad}if ({}) begin", self.expr(&c.test, 1)?);
        self.block(&c.then, ind + 1, out)?;
        let mut otherwise = &c.otherwise;
        loop {
            match otherwise {
                VerilogBlockOrConditional::None => {
                    let _ = writeln!(out, "{pad}end");
                    break;
                }
                VerilogBlockOrConditional::Block(b) => {
                    let _ = writeln!(out, "{pad}end else begin");
                    self.block(b, ind + 1, out)?;
                    let _ = writeln!(out, "{pad}end");
                    break;
                }
                VerilogBlockOrConditional::Conditional(st) => match st.as_ref() {
                    VerilogStatement::If(c2) => {
                        let _ =
                            writeln!(out, "{pad}end else if ({}) begin", self.expr(&c2.test, 1)?);
                        self.block(&c2.then, ind + 1, out)?;
                        otherwise = &c2.otherwise;
                    }
                    other => {
                        let _ = writeln!(out, "{pad}end else begin");
                        self.statement(other, ind + 1, out)?;
                        let _ = writeln!(out, "{pad}end");
                        break;
                    }
                },
            }
        }
        Ok(())
    }

    /// The Verilog label of the pattern `cond` for a `w`-bit test, and its value.
    fn case_label(&self, cond: &str, w: usize) -> Result<(String, u128), EmitError> {
        let value = match cond {
            "true" => Some(1),
            "false" => Some(0),
            _ => parse_int_literal(cond),
        };
        if let Some(v) = value {
            if w < 128 && v >> w != 0 {
                return Err(self.unsupported(format!(
                    "case label `{cond}` does not fit the {w}-bit `match` test"
                )));
            }
            return Ok((literal(w, v), v));
        }
        match self.syms.get(cond) {
            Some(s) => match s.kind {
                SymKind::EnumConst(v) if s.width == w => {
                    self.used_consts.borrow_mut().insert(s.verilog.clone());
                    Ok((s.verilog.clone(), v))
                }
                SymKind::EnumConst(_) => Err(self.unsupported(format!(
                    "case label `{cond}` is {} bits wide but the `match` test is {w}",
                    s.width
                ))),
                _ => Err(self.unsupported(format!("case label `{cond}` is not a constant"))),
            },
            None => Err(self.unsupported(format!(
                "match pattern `{cond}` (use integer literals, `true` / `false`, `_` or \
                 `Type::Variant`)"
            ))),
        }
    }

    /// `match` as a `case` with a `default` branch always present (rule 4).
    fn case(&self, m: &VerilogMatch, ind: usize, out: &mut String) -> Result<(), EmitError> {
        let pad = "    ".repeat(ind);
        let w = self
            .width(&m.test)?
            .ok_or_else(|| self.unsupported("`match` on a bare literal"))?;
        let _ = writeln!(out, "{pad}case ({})", self.expr(&m.test, w)?);
        let mut seen = BTreeSet::new();
        let mut default = None;
        for c in &m.cases {
            if c.condition == "default" {
                default = Some(&c.block);
                break;
            }
            let (label, value) = self.case_label(&c.condition, w)?;
            if !seen.insert(value) {
                continue;
            }
            let _ = writeln!(out, "{pad}    {label}: begin");
            self.block(&c.block, ind + 2, out)?;
            let _ = writeln!(out, "{pad}    end");
        }
        let _ = writeln!(out, "{pad}    default: begin");
        if let Some(b) = default {
            self.block(b, ind + 2, out)?;
        }
        let _ = writeln!(out, "{pad}    end");
        let _ = writeln!(out, "{pad}endcase");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::expr::tests::{bin, emitter, lit, sig};

    fn assign(l: &str, r: VerilogExpression) -> VerilogStatement {
        VerilogStatement::Assignment(sig(l), r)
    }

    fn for_loop(i: &str, from: u32, to: u32, block: VerilogBlock) -> VerilogStatement {
        VerilogStatement::Loop(VerilogLoop {
            index: i.into(),
            from: from.into(),
            to: to.into(),
            block,
        })
    }

    fn print(e: &mut Emitter, code: VerilogBlock) -> Result<String, EmitError> {
        e.code = code;
        let mut out = String::new();
        e.block(&e.unrolled()?, 0, &mut out)?;
        Ok(out)
    }

    fn regs() -> Emitter {
        let mut owned = vec![
            ("sel".to_string(), 2, SymKind::Input),
            ("y".to_string(), 4, SymKind::Local),
        ];
        for k in 0..3 {
            owned.push((format!("x${k}$d"), 4, SymKind::Local));
            owned.push((format!("x${k}$q"), 4, SymKind::Local));
        }
        let syms: Vec<(&str, usize, SymKind)> = owned
            .iter()
            .map(|(n, w, k)| (n.as_str(), *w, k.clone()))
            .collect();
        emitter(&syms)
    }

    #[test]
    fn loops_unroll_with_indices_resolved() {
        let mut e = regs();
        let body = vec![assign("x[i]$d$next", sig("x[i]$q"))];
        let t = print(&mut e, vec![for_loop("i", 0, 3, body)]).expect("emit");
        assert_eq!(t, "x$0$d = x$0$q;\nx$1$d = x$1$q;\nx$2$d = x$2$q;\n");
        // Nested, with arithmetic in the index.
        let body = vec![assign("x[i*2+j]$d$next", sig("x[2-j]$q"))];
        let inner = for_loop("j", 0, 2, body);
        let t = print(&mut e, vec![for_loop("i", 0, 1, vec![inner])]).expect("emit");
        assert_eq!(t, "x$0$d = x$2$q;\nx$1$d = x$1$q;\n");
    }

    #[test]
    fn loop_variables_as_values_are_sized_literals() {
        let mut e = regs();
        let body = vec![assign(
            "x[i]$d$next",
            bin(sig("y"), VerilogOp::Add, sig("i")),
        )];
        let t = print(&mut e, vec![for_loop("i", 1, 3, body)]).expect("emit");
        assert_eq!(t, "x$1$d = y + 4'd1;\nx$2$d = y + 4'd2;\n");
    }

    #[test]
    fn out_of_range_indices_and_bad_loops_are_errors() {
        let mut e = regs();
        let body = vec![assign("x[i]$d$next", sig("y"))];
        let err = print(&mut e, vec![for_loop("i", 0, 4, body)]).unwrap_err();
        assert!(
            matches!(&err, EmitError::Unsupported { block, what } if block == "t" && what.contains("out of range")),
            "{err}"
        );
        let body = vec![assign("y", sig("sel"))];
        let err = print(&mut e, vec![for_loop("sel", 0, 2, body)]).unwrap_err();
        assert!(err.to_string().contains("name of a signal"), "{err}");
        let err = print(&mut e, vec![for_loop("i", 0, 1 << 17, vec![])]).unwrap_err();
        assert!(err.to_string().contains("more than"), "{err}");
    }

    #[test]
    fn constant_ifs_in_loops_keep_the_branch_taken() {
        let mut e = regs();
        // for i in 0..3 { if i == 0 { x[i].d = y } else { x[i].d = x[i - 1].q } }
        let body = vec![VerilogStatement::If(VerilogConditional {
            test: bin(sig("i"), VerilogOp::Eq, lit(0)),
            then: vec![assign("x[i]$d$next", sig("y"))],
            otherwise: VerilogBlockOrConditional::Block(vec![assign(
                "x[i]$d$next",
                sig("x[i-1]$q"),
            )]),
        })];
        let t = print(&mut e, vec![for_loop("i", 0, 3, body)]).expect("emit");
        assert_eq!(t, "x$0$d = y;\nx$1$d = x$0$q;\nx$2$d = x$1$q;\n");
        assert_eq!(
            fold(&bin(lit(1), VerilogOp::Sub, lit(2))),
            None,
            "usize underflow"
        );
        assert_eq!(fold(&bin(lit(2), VerilogOp::Mul, lit(3))), Some(6));
        assert_eq!(fold(&bin(sig("y"), VerilogOp::Eq, lit(3))), None);
    }

    fn case(test: VerilogExpression, arms: &[(&str, u32)]) -> VerilogStatement {
        VerilogStatement::Match(VerilogMatch {
            test,
            cases: arms
                .iter()
                .map(|(c, v)| VerilogCase {
                    condition: c.to_string(),
                    block: vec![assign("y", lit(*v))],
                })
                .collect(),
        })
    }

    #[test]
    fn case_labels_take_the_test_width_and_default_is_always_there() {
        let mut e = regs();
        let t = print(
            &mut e,
            vec![case(sig("sel"), &[("0", 1), ("3_u64", 2), ("default", 3)])],
        )
        .expect("emit");
        let want = "case (sel)\n    2'd0: begin\n        y = 4'd1;\n    end\n    2'd3: begin\n        y = 4'd2;\n    end\n    default: begin\n        y = 4'd3;\n    end\nendcase\n";
        assert_eq!(t, want);
        // No `_` arm: an empty default.
        let t = print(&mut e, vec![case(sig("sel"), &[("1u8", 1)])]).expect("emit");
        assert!(t.ends_with("    default: begin\n    end\nendcase\n"), "{t}");
        // Unreachable arms are dropped: a repeated label, anything after `_`.
        let t = print(
            &mut e,
            vec![case(
                sig("sel"),
                &[("1", 1), ("1usize", 2), ("default", 3), ("2", 4)],
            )],
        );
        let t = t.expect("emit");
        assert_eq!(t.matches("2'd1").count(), 1, "{t}");
        assert!(
            !t.contains("2'd2") && !t.contains("4'd2") && !t.contains("4'd4"),
            "{t}"
        );
        // A label wider than the test, a binding pattern.
        let err = print(&mut e, vec![case(sig("sel"), &[("4", 1)])]).unwrap_err();
        assert!(err.to_string().contains("does not fit the 2-bit"), "{err}");
        let err = print(&mut e, vec![case(sig("sel"), &[("x", 1)])]).unwrap_err();
        assert!(err.to_string().contains("match pattern `x`"), "{err}");
    }

    #[test]
    fn enum_and_bool_labels() {
        let mut e = emitter(&[
            ("st", 2, SymKind::Local),
            ("c", 1, SymKind::Local),
            ("y", 4, SymKind::Local),
            ("Phase::Idle", 2, SymKind::EnumConst(0)),
            ("Phase::Run", 2, SymKind::EnumConst(1)),
            ("Two::A", 1, SymKind::EnumConst(0)),
        ]);
        let t = print(
            &mut e,
            vec![case(sig("st"), &[("Phase$Run", 1), ("Phase$Idle", 2)])],
        );
        let t = t.expect("emit");
        assert!(
            t.contains("    PHASE_RUN: begin\n") && t.contains("    PHASE_IDLE: begin\n"),
            "{t}"
        );
        assert!(
            e.used_consts.borrow().contains("PHASE_RUN"),
            "declared when used as a label"
        );
        let t = print(&mut e, vec![case(sig("c"), &[("true", 1), ("false", 2)])]).expect("emit");
        assert!(
            t.contains("    1'b1: begin\n") && t.contains("    1'b0: begin\n"),
            "{t}"
        );
        let err = print(&mut e, vec![case(sig("st"), &[("Two$A", 1)])]).unwrap_err();
        assert!(err.to_string().contains("1 bits wide"), "{err}");
    }
}
