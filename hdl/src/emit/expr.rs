//! Expressions: their widths, how they are sized to a context and how they are parenthesised.
//!
//! Rules:
//!
//! 1. The natural width of a signal is its declared width; of a comparison or a logical
//!    operator 1; of `+ - & | ^` the wider operand's; of a shift its left operand's; of `*` the
//!    sum of both (rust-hdl's only multiply is 16 × 16 → 32); a bare literal has none and takes
//!    its context's.
//! 2. [`Emitter::expr`] prints an expression at exactly the width asked: a literal is printed at
//!    that width (and must fit), a narrower value is zero-extended with a concatenation, a wider
//!    one is cut with a part-select — of a plain name only; narrowing a computed value is refused
//!    rather than silently truncated.
//! 3. Every operand that is not atomic in Verilog (a name, a literal, a bit or part select, a
//!    concatenation) is parenthesised, so Verilog's precedence never has to agree with Rust's.

use super::symbols::{Sym, SymKind};
use super::{EmitError, Emitter};
use rust_hdl::core::ast::{VerilogExpression, VerilogOp, VerilogOpUnary};

/// `(bits, value)` of a literal as rust-hdl prints it (`32'h1f`, `3'b101`).
pub(super) fn parse_literal(text: &str) -> Option<(usize, u128)> {
    let (bits, rest) = text.split_once('\'')?;
    let bits = bits.trim().parse().ok()?;
    let (radix, digits) = match rest.chars().next()? {
        'h' => (16, &rest[1..]),
        'b' => (2, &rest[1..]),
        'd' => (10, &rest[1..]),
        _ => return None,
    };
    let value = u128::from_str_radix(&digits.replace('_', ""), radix).ok()?;
    Some((bits, value))
}

const SUFFIXES: &[&str] = &[
    "usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8",
];

/// A Rust integer literal as `hdl_gen` stringifies it (`3`, `3_u64`, `3u8`, `0x1f`, `0b1010`,
/// `1_000`).
pub(super) fn parse_int_literal(text: &str) -> Option<u128> {
    let mut t = text;
    if let Some(s) = SUFFIXES.iter().find_map(|s| t.strip_suffix(s)) {
        t = s;
    }
    let t = t.replace('_', "");
    let (radix, digits) = match t.get(..2) {
        Some("0x") => (16, &t[2..]),
        Some("0o") => (8, &t[2..]),
        Some("0b") => (2, &t[2..]),
        _ => (10, t.as_str()),
    };
    if digits.is_empty() {
        return None;
    }
    u128::from_str_radix(digits, radix).ok()
}

/// `value` as a Verilog literal of `width` bits.
pub(super) fn literal(width: usize, value: u128) -> String {
    if width == 1 {
        format!("1'b{value}")
    } else if value < 10 {
        format!("{width}'d{value}")
    } else {
        format!("{width}'h{value:x}")
    }
}

fn op_text(op: &VerilogOp) -> &'static str {
    match op {
        VerilogOp::Add => "+",
        VerilogOp::Sub => "-",
        VerilogOp::Mul => "*",
        VerilogOp::LogicalAnd => "&&",
        VerilogOp::LogicalOr => "||",
        VerilogOp::BitXor => "^",
        VerilogOp::BitAnd => "&",
        VerilogOp::BitOr => "|",
        VerilogOp::Shl => "<<",
        VerilogOp::Shr => ">>",
        VerilogOp::Eq => "==",
        VerilogOp::Lt => "<",
        VerilogOp::Le => "<=",
        VerilogOp::Ne => "!=",
        VerilogOp::Ge => ">=",
        VerilogOp::Gt => ">",
    }
}

fn is_comparison(op: &VerilogOp) -> bool {
    matches!(
        op,
        VerilogOp::Eq
            | VerilogOp::Ne
            | VerilogOp::Lt
            | VerilogOp::Le
            | VerilogOp::Gt
            | VerilogOp::Ge
    )
}

impl Emitter {
    pub(super) fn sym(&self, raw: &str) -> Result<&Sym, EmitError> {
        self.syms
            .get(raw)
            .ok_or_else(|| self.unsupported(format!("unknown signal `{raw}`")))
    }

    pub(super) fn const_value(&self, e: &VerilogExpression) -> Option<u128> {
        match e {
            VerilogExpression::Literal(l) => parse_literal(&l.to_string()).map(|x| x.1),
            VerilogExpression::Signal(s) => match self.syms.get(s)?.kind {
                SymKind::Const(v) | SymKind::EnumConst(v) => Some(v),
                _ => None,
            },
            VerilogExpression::Paren(x) => self.const_value(x),
            _ => None,
        }
    }

    /// Natural width of an expression; `None` for a bare literal, which takes its context's.
    pub(super) fn width(&self, e: &VerilogExpression) -> Result<Option<usize>, EmitError> {
        use VerilogExpression as E;
        Ok(match e {
            E::Signal(s) => Some(self.sym(s)?.width),
            E::Literal(_) => None,
            E::Cast(_, bits) => Some(*bits),
            E::Signed(x) | E::Unsigned(x) | E::Paren(x) => self.width(x)?,
            E::Binary(l, op, r) => match op {
                _ if is_comparison(op) => Some(1),
                VerilogOp::LogicalAnd | VerilogOp::LogicalOr => Some(1),
                VerilogOp::Shl | VerilogOp::Shr => self.width(l)?,
                // rust-hdl's only multiply is 16 x 16 -> 32: the product is as wide as both.
                VerilogOp::Mul => match (self.width(l)?, self.width(r)?) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                },
                _ => match (self.width(l)?, self.width(r)?) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                },
            },
            E::Unary(op, x) => match op {
                VerilogOpUnary::Not | VerilogOpUnary::Neg => self.width(x)?,
                _ => Some(1),
            },
            E::Index(..) => Some(1),
            E::Slice(_, w, _) => Some(*w),
            E::IndexReplace(x, _, _) => self.width(x)?,
        })
    }

    fn is_simple(e: &VerilogExpression) -> bool {
        matches!(e, VerilogExpression::Signal(_))
    }

    /// Prints `e` at exactly `want` bits.
    pub(super) fn expr(&self, e: &VerilogExpression, want: usize) -> Result<String, EmitError> {
        use VerilogExpression as E;
        if let E::Literal(l) = e {
            let (_, v) = parse_literal(&l.to_string())
                .ok_or_else(|| self.unsupported(format!("literal {l}")))?;
            if want < 128 && v >> want != 0 {
                return Err(self.unsupported(format!("literal {v} does not fit in {want} bits")));
            }
            return Ok(literal(want, v));
        }
        if let E::Cast(x, bits) = e {
            if let E::Literal(_) = x.as_ref() {
                let inner = self.expr(x, *bits)?;
                return self.fit(inner, *bits, want, true);
            }
        }
        let natural = self.width(e)?.unwrap_or(want);
        let (text, simple) = match e {
            E::Signal(s) => {
                let sym = self.sym(s)?;
                if let SymKind::Const(_) | SymKind::EnumConst(_) = sym.kind {
                    self.used_consts.borrow_mut().insert(sym.verilog.clone());
                }
                (sym.verilog.clone(), true)
            }
            E::Cast(x, bits) => {
                let w = self.width(x)?.unwrap_or(*bits);
                let inner = self.expr(x, w)?;
                (self.fit(inner, w, *bits, Self::is_simple(x))?, false)
            }
            E::Paren(x) => (self.expr(x, natural)?, false),
            E::Signed(x) => (format!("$signed({})", self.expr(x, natural)?), false),
            E::Unsigned(x) => (format!("$unsigned({})", self.expr(x, natural)?), false),
            E::Binary(l, op, r) => (self.binary(l, op, r, natural)?, false),
            E::Unary(op, x) => {
                let (sym, w) = match op {
                    VerilogOpUnary::Not => ("~", natural),
                    VerilogOpUnary::Neg => ("-", natural),
                    VerilogOpUnary::All => ("&", self.width(x)?.unwrap_or(1)),
                    VerilogOpUnary::Any => ("|", self.width(x)?.unwrap_or(1)),
                    VerilogOpUnary::Xor => ("^", self.width(x)?.unwrap_or(1)),
                };
                (format!("{sym}{}", self.operand(x, w)?), false)
            }
            E::Index(x, i) => (self.index(x, i)?, false),
            E::Slice(x, w, off) => (self.slice(x, *w, off)?, false),
            E::IndexReplace(x, i, v) => (self.index_replace(x, i, v, natural)?, false),
            E::Literal(_) => return Err(self.unsupported("literal handled twice")),
        };
        self.fit(text, natural, want, simple)
    }

    /// `x[i]`: one bit of a name.
    fn index(&self, x: &VerilogExpression, i: &VerilogExpression) -> Result<String, EmitError> {
        let xw = self.width(x)?.unwrap_or(1);
        let base = self.operand_simple(x, xw)?;
        Ok(match self.const_value(i) {
            Some(v) => format!("{base}[{v}]"),
            None => {
                let iw = self.width(i)?.unwrap_or(32);
                format!("{base}[{}]", self.expr(i, iw)?)
            }
        })
    }

    /// `x[lo +: w]`, as `x[hi:lo]` when `lo` is constant.
    fn slice(
        &self,
        x: &VerilogExpression,
        w: usize,
        off: &VerilogExpression,
    ) -> Result<String, EmitError> {
        let xw = self.width(x)?.unwrap_or(w);
        let base = self.operand_simple(x, xw)?;
        Ok(match self.const_value(off) {
            Some(v) => {
                let lo = v as usize;
                if lo + w > xw {
                    return Err(self
                        .unsupported(format!("slice [{}:{lo}] of a {xw}-bit value", lo + w - 1)));
                }
                if w == 1 {
                    format!("{base}[{lo}]")
                } else {
                    format!("{base}[{}:{lo}]", lo + w - 1)
                }
            }
            None => {
                let ow = self.width(off)?.unwrap_or(32);
                format!("{base}[{} +: {w}]", self.expr(off, ow)?)
            }
        })
    }

    /// `x` with bit `i` replaced by `v`, as masks and shifts (an expression, not a statement).
    fn index_replace(
        &self,
        x: &VerilogExpression,
        i: &VerilogExpression,
        v: &VerilogExpression,
        w: usize,
    ) -> Result<String, EmitError> {
        let base = self.operand(x, w)?;
        let val = self.fit(self.operand(v, 1)?, 1, w, false)?;
        Ok(match self.const_value(i) {
            Some(idx) => {
                let keep = ((1u128 << w) - 1) & !(1u128 << idx);
                let shifted = if idx == 0 {
                    val
                } else {
                    format!("({val} << {idx})")
                };
                format!("(({base} & {}) | {shifted})", literal(w, keep))
            }
            None => {
                let iw = self.width(i)?.unwrap_or(32);
                let idx = self.expr(i, iw)?;
                let one = literal(w, 1);
                format!("(({base} & ~({one} << {idx})) | ({val} << {idx}))")
            }
        })
    }

    /// `e` printed at `w` bits, parenthesised unless it is atomic in Verilog (a name, a
    /// literal, a bit/part select, a concatenation): every nested operator gets parentheses, so
    /// Verilog's precedence never has to agree with Rust's.
    pub(super) fn operand(&self, e: &VerilogExpression, w: usize) -> Result<String, EmitError> {
        let t = self.expr(e, w)?;
        let mut inner = e;
        while let VerilogExpression::Paren(x) = inner {
            inner = x;
        }
        let atomic = match inner {
            VerilogExpression::Signal(_)
            | VerilogExpression::Literal(_)
            | VerilogExpression::Index(..)
            | VerilogExpression::Slice(..)
            | VerilogExpression::IndexReplace(..) => true,
            // A cast that changes the width is a concatenation or a part-select.
            VerilogExpression::Cast(x, bits) => {
                matches!(x.as_ref(), VerilogExpression::Literal(_)) || self.width(x)? != Some(*bits)
            }
            // A widened expression is a concatenation; a narrowed one a part-select.
            _ => self.width(inner)? != Some(w) && (t.starts_with('{') || t.ends_with(']')),
        };
        Ok(if atomic { t } else { format!("({t})") })
    }

    /// Like [`Self::operand`] but the result can be indexed (a plain name).
    fn operand_simple(&self, e: &VerilogExpression, w: usize) -> Result<String, EmitError> {
        if Self::is_simple(e) {
            self.expr(e, w)
        } else {
            Err(self.unsupported("indexing or slicing something other than a signal"))
        }
    }

    /// `text` (`from` bits) at `to` bits: zero-extended, or cut if it is a plain name.
    pub(super) fn fit(
        &self,
        text: String,
        from: usize,
        to: usize,
        simple: bool,
    ) -> Result<String, EmitError> {
        Ok(if from == to {
            text
        } else if from < to {
            let pad = to - from;
            if pad == 1 {
                format!("{{1'b0, {text}}}")
            } else {
                format!("{{{{{pad}{{1'b0}}}}, {text}}}")
            }
        } else if simple {
            if to == 1 {
                format!("{text}[0]")
            } else {
                format!("{text}[{}:0]", to - 1)
            }
        } else {
            return Err(self.unsupported(format!(
                "narrowing a {from}-bit expression to {to} bits: `{text}`"
            )));
        })
    }

    fn binary(
        &self,
        l: &VerilogExpression,
        op: &VerilogOp,
        r: &VerilogExpression,
        natural: usize,
    ) -> Result<String, EmitError> {
        let (lw, rw) = match op {
            VerilogOp::LogicalAnd | VerilogOp::LogicalOr => (1, 1),
            VerilogOp::Shl | VerilogOp::Shr => {
                let rw = match self.width(r)? {
                    Some(w) => w,
                    None => {
                        let v = self.const_value(r).unwrap_or(0);
                        (128 - v.leading_zeros() as usize).max(1)
                    }
                };
                (natural, rw)
            }
            _ if is_comparison(op) => {
                let w = match (self.width(l)?, self.width(r)?) {
                    (Some(a), Some(b)) => a.max(b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => 32,
                };
                (w, w)
            }
            // For `*` too: the operands are zero-extended to the product's width, so Verilog
            // computes the full product, as rust-hdl does.
            _ => (natural, natural),
        };
        Ok(format!(
            "{} {} {}",
            self.operand(l, lw)?,
            op_text(op),
            self.operand(r, rw)?
        ))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::emit::symbols::Symbols;
    use rust_hdl::core::ast::VerilogLiteral;
    use std::collections::BTreeMap;

    /// An emitter over hand-made symbols: `(rust name, width, kind)`.
    pub(in crate::emit) fn emitter(syms: &[(&str, usize, SymKind)]) -> Emitter {
        let map: BTreeMap<String, Sym> = syms
            .iter()
            .map(|(n, w, k)| {
                let verilog = crate::emit::symbols::enum_const_name(n);
                let verilog = if matches!(k, SymKind::EnumConst(_)) {
                    verilog
                } else {
                    n.to_string()
                };
                (
                    n.replace("::", "$"),
                    Sym {
                        verilog,
                        width: *w,
                        kind: k.clone(),
                    },
                )
            })
            .collect();
        Emitter {
            block: "t".into(),
            syms: Symbols::for_test(map),
            children: vec![],
            code: vec![],
            used_consts: Default::default(),
        }
    }

    pub(in crate::emit) fn sig(n: &str) -> VerilogExpression {
        VerilogExpression::Signal(n.into())
    }

    pub(in crate::emit) fn lit(v: u32) -> VerilogExpression {
        VerilogExpression::Literal(VerilogLiteral::from(v))
    }

    pub(in crate::emit) fn bin(
        l: VerilogExpression,
        op: VerilogOp,
        r: VerilogExpression,
    ) -> VerilogExpression {
        VerilogExpression::Binary(Box::new(l), op, Box::new(r))
    }

    fn basic() -> Emitter {
        emitter(&[
            ("a", 4, SymKind::Local),
            ("b", 8, SymKind::Local),
            ("c", 1, SymKind::Local),
            ("k", 4, SymKind::Const(3)),
        ])
    }

    #[test]
    fn literals_parse_and_print_at_their_width() {
        assert_eq!(parse_literal("32'h1f"), Some((32, 31)));
        assert_eq!(parse_literal("3'b101"), Some((3, 5)));
        assert_eq!(literal(1, 1), "1'b1");
        assert_eq!(literal(8, 3), "8'd3");
        assert_eq!(literal(16, 255), "16'hff");
        for (t, v) in [
            ("3", 3),
            ("3_u64", 3),
            ("3u8", 3),
            ("0x1f", 31),
            ("0b101usize", 5),
        ] {
            assert_eq!(parse_int_literal(t), Some(v), "{t}");
        }
        assert_eq!(parse_int_literal("1_000"), Some(1000));
        assert_eq!(parse_int_literal("x"), None);
        assert_eq!(parse_int_literal("0x"), None);
        assert_eq!(parse_int_literal("-1"), None);
    }

    #[test]
    fn literals_take_their_context_width_and_must_fit() {
        let e = basic();
        assert_eq!(e.expr(&lit(3), 4).as_deref(), Ok("4'd3"));
        assert_eq!(e.expr(&lit(200), 8).as_deref(), Ok("8'hc8"));
        assert_eq!(e.expr(&lit(1), 1).as_deref(), Ok("1'b1"));
        assert!(e.expr(&lit(16), 4).is_err(), "16 does not fit in 4 bits");
        // In a sum, the literal takes the signal's width.
        let sum = bin(sig("a"), VerilogOp::Add, lit(1));
        assert_eq!(e.expr(&sum, 4).as_deref(), Ok("a + 4'd1"));
        // In a comparison, the wider side's.
        let cmp = bin(sig("b"), VerilogOp::Eq, lit(7));
        assert_eq!(e.expr(&cmp, 1).as_deref(), Ok("b == 8'd7"));
    }

    #[test]
    fn narrower_values_are_zero_extended() {
        let e = basic();
        assert_eq!(e.expr(&sig("a"), 8).as_deref(), Ok("{{4{1'b0}}, a}"));
        assert_eq!(e.expr(&sig("a"), 5).as_deref(), Ok("{1'b0, a}"));
        let mixed = bin(sig("a"), VerilogOp::Add, sig("b"));
        assert_eq!(e.expr(&mixed, 8).as_deref(), Ok("{{4{1'b0}}, a} + b"));
    }

    #[test]
    fn only_names_are_narrowed() {
        let e = basic();
        assert_eq!(e.expr(&sig("b"), 4).as_deref(), Ok("b[3:0]"));
        assert_eq!(e.expr(&sig("b"), 1).as_deref(), Ok("b[0]"));
        let sum = bin(sig("b"), VerilogOp::Add, sig("b"));
        let err = e.expr(&sum, 4).unwrap_err();
        assert!(err.to_string().contains("narrowing"), "{err}");
    }

    #[test]
    fn nested_operators_are_parenthesised() {
        let e = basic();
        let inner = bin(sig("a"), VerilogOp::Add, sig("k"));
        let outer = bin(inner.clone(), VerilogOp::BitAnd, sig("a"));
        assert_eq!(e.expr(&outer, 4).as_deref(), Ok("(a + k) & a"));
        let l = bin(sig("a"), VerilogOp::Eq, lit(1));
        let r = bin(sig("c"), VerilogOp::BitOr, sig("c"));
        let both = bin(l, VerilogOp::LogicalAnd, r);
        assert_eq!(e.expr(&both, 1).as_deref(), Ok("(a == 4'd1) && (c | c)"));
        assert!(
            e.used_consts.borrow().contains("k"),
            "constants are declared when used"
        );
    }

    #[test]
    fn enum_codes_are_constants_of_the_enum_width() {
        let e = emitter(&[
            ("st", 3, SymKind::Local),
            ("Phase::Run", 3, SymKind::EnumConst(2)),
        ]);
        let cmp = bin(sig("st"), VerilogOp::Eq, sig("Phase$Run"));
        assert_eq!(e.expr(&cmp, 1).as_deref(), Ok("st == PHASE_RUN"));
        assert_eq!(e.width(&sig("Phase$Run")), Ok(Some(3)));
        assert!(e.used_consts.borrow().contains("PHASE_RUN"));
    }
}
