//! # netcoll's Verilog back end
//!
//! Turns a rust-hdl block into one flat, self-contained Verilog module that passes
//! `verilator --lint-only -Wall` without waivers. rust-hdl's own `generate_verilog` emits one
//! module per register instance, names with `$`, 32-bit literals in narrower contexts and
//! operator precedence that differs from Rust's; none of that survives `-Wall`. So this back end
//! reads what rust-hdl knows — the block's signals (through its `Probe` visitor) and the AST that
//! `#[hdl_gen]` produced for `update` — and prints Verilog itself:
//!
//! - the block's own signals keep their Rust names; [`crate::prim::Reg`] `x` becomes
//!   `x_q`/`x_d` with all registers in one `always @(posedge clock)` with synchronous reset;
//!   [`crate::prim::Mem`] `m` becomes `m_words` plus `m_rd_addr`… ;
//! - every literal is sized to its context, every width change is an explicit zero-extension or
//!   part-select, and every nested operator is parenthesised;
//! - only constants that are used are declared (as `localparam`);
//! - a name that collides, contains `$` or is a Verilog keyword is an error, not a rename.
//!
//! The result is checked by simulation, not trust: the conformance suite runs the emitted text
//! under Verilator in lockstep with the cycle model.

use crate::prim::PRIMITIVE_MARK;
use rust_hdl::core::ast::{
    Verilog, VerilogBlock, VerilogBlockOrConditional, VerilogExpression, VerilogOp, VerilogOpUnary,
    VerilogStatement,
};
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::core::block::Block;
use rust_hdl::core::probe::Probe;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use thiserror::Error;

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
    /// The modules this one instantiates (see [`emit_with_children`]), each emitted by itself.
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prim {
    Reg,
    Mem,
    /// A netcoll block emitted as its own module and instantiated (see [`emit_with_children`]).
    Inst,
}

#[derive(Clone, Debug)]
struct AtomInfo {
    name: String,
    kind: AtomKind,
    width: usize,
    literal: String,
}

#[derive(Clone, Debug)]
struct Child {
    name: String,
    prim: Prim,
    atoms: Vec<AtomInfo>,
    /// For [`Prim::Inst`]: the child's own module.
    module: Option<Module>,
}

#[derive(Default)]
struct Collect {
    /// Field name → module name of the sub-blocks to instantiate.
    instances: Vec<(String, String)>,
    depth: usize,
    top: Vec<AtomInfo>,
    code: Option<Verilog>,
    children: Vec<Child>,
    errors: Vec<String>,
}

impl Probe for Collect {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        self.depth += 1;
        match self.depth {
            1 => self.code = Some(node.hdl()),
            2 => {
                let prim = match node.hdl() {
                    Verilog::Custom(t) if t.starts_with(&format!("{PRIMITIVE_MARK}reg")) => {
                        Some(Prim::Reg)
                    }
                    Verilog::Custom(t) if t.starts_with(&format!("{PRIMITIVE_MARK}mem")) => {
                        Some(Prim::Mem)
                    }
                    _ => None,
                };
                let instance = self
                    .instances
                    .iter()
                    .find(|(field, _)| field == name)
                    .map(|(_, module)| module.clone());
                match (prim, instance) {
                    (Some(prim), _) => self.children.push(Child {
                        name: name.to_string(),
                        prim,
                        atoms: vec![],
                        module: None,
                    }),
                    (None, Some(module)) => {
                        let mut sub = Collect::default();
                        node.accept(name, &mut sub);
                        match Emitter::new(&module, sub)
                            .and_then(|e| e.render(&[format!("{module}: instance `{name}`")]))
                        {
                            Ok(m) => self.children.push(Child {
                                name: name.to_string(),
                                prim: Prim::Inst,
                                atoms: vec![],
                                module: Some(m),
                            }),
                            Err(e) => self.errors.push(format!("sub-block `{name}`: {e}")),
                        }
                    }
                    (None, None) => self.errors.push(format!(
                        "sub-block `{name}` is not a netcoll primitive (Reg or Mem) nor a \
                         declared instance"
                    )),
                }
            }
            _ => {}
        }
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.errors
            .push(format!("interface `{name}` is not supported"));
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let info = AtomInfo {
            name: name.to_string(),
            kind: signal.kind(),
            width: signal.bits(),
            literal: signal.verilog().to_string(),
        };
        match self.depth {
            1 => self.top.push(info),
            2 => {
                if let Some(c) = self.children.last_mut() {
                    c.atoms.push(info)
                }
            }
            _ => {}
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

#[derive(Clone, Debug)]
enum SymKind {
    Input,
    Output,
    Local,
    Const(u128),
    /// An output of an instantiated child block (a `wire`).
    ChildOutput,
    /// A primitive's pin that the back end drives itself (clock, reset).
    Implicit,
}

#[derive(Clone, Debug)]
struct Sym {
    verilog: String,
    width: usize,
    kind: SymKind,
}

/// Verilog and SystemVerilog keywords that must not be used as names.
const KEYWORDS: &[&str] = &[
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "bit",
    "buf",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "class",
    "cmos",
    "config",
    "const",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endprimitive",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "highz0",
    "highz1",
    "if",
    "ifnone",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "instance",
    "int",
    "integer",
    "interface",
    "join",
    "large",
    "liblist",
    "library",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "medium",
    "module",
    "nand",
    "negedge",
    "nmos",
    "nor",
    "not",
    "noshowcancelled",
    "notif0",
    "notif1",
    "or",
    "output",
    "package",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "program",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "rcmos",
    "real",
    "realtime",
    "reg",
    "release",
    "repeat",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "scalared",
    "shortint",
    "showcancelled",
    "signed",
    "small",
    "specify",
    "specparam",
    "static",
    "string",
    "strong0",
    "strong1",
    "struct",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unsigned",
    "use",
    "uwire",
    "vectored",
    "void",
    "wait",
    "wand",
    "weak0",
    "weak1",
    "while",
    "wire",
    "wor",
    "xnor",
    "xor",
];

/// Whether `name` may be used as a Verilog identifier in emitted text.
pub fn is_legal_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    first_ok
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

fn parse_literal(text: &str) -> Option<(usize, u128)> {
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

fn literal(width: usize, value: u128) -> String {
    if width == 1 {
        format!("1'b{value}")
    } else if value < 10 {
        format!("{width}'d{value}")
    } else {
        format!("{width}'h{value:x}")
    }
}

/// Emits `uut` (already `connect_all`ed) as a module called `name`; `header` lines become the
/// leading comment.
pub fn emit<B: Block>(uut: &B, name: &str, header: &[String]) -> Result<Module, EmitError> {
    emit_with_children(uut, name, header, &[])
}

/// Like [`emit`], but the sub-blocks named in `instances` (field name, module name) — netcoll
/// blocks with their own `#[hdl_gen]` update — are emitted as modules of their own and
/// instantiated, instead of being rejected. The returned text holds the child modules first;
/// each child's ports are `reg`s the parent drives (inputs) or `wire`s it reads (outputs), named
/// `<field>_<port>`, and its `clock` / `reset` are the parent's.
pub fn emit_with_children<B: Block>(
    uut: &B,
    name: &str,
    header: &[String],
    instances: &[(&str, &str)],
) -> Result<Module, EmitError> {
    let mut c = Collect {
        instances: instances
            .iter()
            .map(|(f, m)| (f.to_string(), m.to_string()))
            .collect(),
        ..Default::default()
    };
    uut.accept("top", &mut c);
    let e = Emitter::new(name, c)?;
    e.render(header)
}

struct Emitter {
    block: String,
    syms: BTreeMap<String, Sym>,
    ports: Vec<(String, Dir, usize)>,
    locals: Vec<(String, usize)>,
    children: Vec<Child>,
    code: VerilogBlock,
    used_consts: std::cell::RefCell<BTreeSet<String>>,
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
        let code = match c.code {
            Some(Verilog::Combinatorial(b)) => b,
            _ => return Err(bad("the top block has no #[hdl_gen] update".into())),
        };
        let mut syms = BTreeMap::new();
        let mut ports = vec![];
        let mut locals = vec![];
        let mut verilog_names = BTreeSet::new();
        let mut add = |rust: String, sym: Sym| -> Result<(String, Sym), EmitError> {
            if !is_legal_name(&sym.verilog) {
                return Err(EmitError::BadName {
                    block: block.to_string(),
                    name: sym.verilog.clone(),
                    why: "is not a legal Verilog identifier (or is a keyword)".into(),
                });
            }
            if !verilog_names.insert(sym.verilog.clone()) {
                return Err(EmitError::BadName {
                    block: block.to_string(),
                    name: sym.verilog.clone(),
                    why: "is used twice".into(),
                });
            }
            Ok((rust, sym))
        };
        for a in &c.top {
            let kind = match a.kind {
                AtomKind::InputParameter => {
                    ports.push((a.name.clone(), Dir::Input, a.width));
                    SymKind::Input
                }
                AtomKind::OutputParameter => {
                    ports.push((a.name.clone(), Dir::Output, a.width));
                    SymKind::Output
                }
                AtomKind::LocalSignal => {
                    locals.push((a.name.clone(), a.width));
                    SymKind::Local
                }
                AtomKind::Constant => {
                    let (_, v) = parse_literal(&a.literal)
                        .ok_or_else(|| bad(format!("constant `{}` = {}", a.name, a.literal)))?;
                    SymKind::Const(v)
                }
                k => return Err(bad(format!("signal `{}` of kind {k:?}", a.name))),
            };
            let (k, v) = add(
                a.name.clone(),
                Sym {
                    verilog: a.name.clone(),
                    width: a.width,
                    kind,
                },
            )?;
            syms.insert(k, v);
        }
        for ch in &c.children {
            for a in &ch.atoms {
                if ch.prim == Prim::Inst
                    && !matches!(a.kind, AtomKind::InputParameter | AtomKind::OutputParameter)
                {
                    continue;
                }
                let rust = format!("{}${}", ch.name, a.name);
                let pin = match (ch.prim, a.name.as_str()) {
                    (_, "clock") | (Prim::Reg, "reset") | (Prim::Inst, "reset") => {
                        syms.insert(
                            rust,
                            Sym {
                                verilog: String::new(),
                                width: 1,
                                kind: SymKind::Implicit,
                            },
                        );
                        continue;
                    }
                    (_, p) => p.to_string(),
                };
                let kind = match (ch.prim, a.kind) {
                    // A child's output is driven by the child: the parent may only read it.
                    (Prim::Inst, AtomKind::OutputParameter) => SymKind::ChildOutput,
                    _ => SymKind::Local,
                };
                let (k, v) = add(
                    rust,
                    Sym {
                        verilog: format!("{}_{}", ch.name, pin),
                        width: a.width,
                        kind,
                    },
                )?;
                syms.insert(k, v);
            }
            if ch.prim == Prim::Mem {
                let (k, v) = add(
                    format!("{}$words", ch.name),
                    Sym {
                        verilog: format!("{}_words", ch.name),
                        width: 0,
                        kind: SymKind::Local,
                    },
                )?;
                syms.insert(k, v);
            }
        }
        for required in ["clock", "reset"] {
            if !ports
                .iter()
                .any(|p| p.0 == required && p.1 == Dir::Input && p.2 == 1)
            {
                return Err(bad(format!("needs a 1-bit `{required}` input")));
            }
        }
        Ok(Self {
            block: block.to_string(),
            syms,
            ports,
            locals,
            children: c.children,
            code,
            used_consts: Default::default(),
        })
    }

    fn sym(&self, raw: &str) -> Result<&Sym, EmitError> {
        let mut name = raw
            .trim_start_matches('.')
            .replace('.', "$")
            .replace("::", "$");
        if let Some(stripped) = name.strip_suffix("$next") {
            name = stripped.to_string();
        }
        self.syms
            .get(&name)
            .ok_or_else(|| self.unsupported(format!("unknown signal `{raw}`")))
    }

    fn const_value(&self, e: &VerilogExpression) -> Option<u128> {
        match e {
            VerilogExpression::Literal(l) => parse_literal(&l.to_string()).map(|x| x.1),
            VerilogExpression::Signal(s) => match self.sym(s).ok()?.kind {
                SymKind::Const(v) => Some(v),
                _ => None,
            },
            VerilogExpression::Paren(x) => self.const_value(x),
            _ => None,
        }
    }

    /// Natural width of an expression; `None` for a bare literal, which takes its context's.
    fn width(&self, e: &VerilogExpression) -> Result<Option<usize>, EmitError> {
        use VerilogExpression as E;
        Ok(match e {
            E::Signal(s) => Some(self.sym(s)?.width),
            E::Literal(_) => None,
            E::Cast(_, bits) => Some(*bits),
            E::Signed(x) | E::Unsigned(x) | E::Paren(x) => self.width(x)?,
            E::Binary(l, op, r) => match op {
                VerilogOp::Eq
                | VerilogOp::Ne
                | VerilogOp::Lt
                | VerilogOp::Le
                | VerilogOp::Gt
                | VerilogOp::Ge
                | VerilogOp::LogicalAnd
                | VerilogOp::LogicalOr => Some(1),
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
    fn expr(&self, e: &VerilogExpression, want: usize) -> Result<String, EmitError> {
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
                if let SymKind::Const(_) = sym.kind {
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
            E::Index(x, i) => {
                let xw = self.width(x)?.unwrap_or(1);
                let base = self.operand_simple(x, xw)?;
                match self.const_value(i) {
                    Some(v) => (format!("{base}[{v}]"), false),
                    None => {
                        let iw = self.width(i)?.unwrap_or(32);
                        (format!("{base}[{}]", self.expr(i, iw)?), false)
                    }
                }
            }
            E::Slice(x, w, off) => {
                let xw = self.width(x)?.unwrap_or(*w);
                let base = self.operand_simple(x, xw)?;
                match self.const_value(off) {
                    Some(v) => {
                        let lo = v as usize;
                        if lo + w > xw {
                            return Err(self.unsupported(format!(
                                "slice [{}:{lo}] of a {xw}-bit value",
                                lo + w - 1
                            )));
                        }
                        if *w == 1 {
                            (format!("{base}[{lo}]"), false)
                        } else {
                            (format!("{base}[{}:{lo}]", lo + w - 1), false)
                        }
                    }
                    None => {
                        let ow = self.width(off)?.unwrap_or(32);
                        (format!("{base}[{} +: {w}]", self.expr(off, ow)?), false)
                    }
                }
            }
            E::IndexReplace(x, i, v) => {
                let w = natural;
                let base = self.operand(x, w)?;
                let val = self.fit(self.operand(v, 1)?, 1, w, false)?;
                match self.const_value(i) {
                    Some(idx) => {
                        let keep = ((1u128 << w) - 1) & !(1u128 << idx);
                        let shifted = if idx == 0 {
                            val
                        } else {
                            format!("({val} << {idx})")
                        };
                        (
                            format!("(({base} & {}) | {shifted})", literal(w, keep)),
                            false,
                        )
                    }
                    None => {
                        let iw = self.width(i)?.unwrap_or(32);
                        let idx = self.expr(i, iw)?;
                        let one = literal(w, 1);
                        (
                            format!("(({base} & ~({one} << {idx})) | ({val} << {idx}))"),
                            false,
                        )
                    }
                }
            }
            E::Literal(_) => unreachable!("handled above"),
        };
        self.fit(text, natural, want, simple)
    }

    /// `e` printed at `w` bits, parenthesised unless it is atomic in Verilog (a name, a
    /// literal, a bit/part select, a concatenation): every nested operator gets parentheses, so
    /// Verilog's precedence never has to agree with Rust's.
    fn operand(&self, e: &VerilogExpression, w: usize) -> Result<String, EmitError> {
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

    fn fit(&self, text: String, from: usize, to: usize, simple: bool) -> Result<String, EmitError> {
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
        let sym = match op {
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
        };
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
            VerilogOp::Eq
            | VerilogOp::Ne
            | VerilogOp::Lt
            | VerilogOp::Le
            | VerilogOp::Gt
            | VerilogOp::Ge => {
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
            "{} {sym} {}",
            self.operand(l, lw)?,
            self.operand(r, rw)?
        ))
    }

    fn block(&self, b: &VerilogBlock, ind: usize, out: &mut String) -> Result<(), EmitError> {
        for s in b {
            self.statement(s, ind, out)?;
        }
        Ok(())
    }

    fn target(&self, e: &VerilogExpression) -> Result<Option<(String, usize)>, EmitError> {
        match e {
            VerilogExpression::Signal(s) => {
                let sym = self.sym(s)?;
                match sym.kind {
                    SymKind::Implicit => Ok(None),
                    SymKind::Input | SymKind::Const(_) | SymKind::ChildOutput => Err(self
                        .unsupported(format!(
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
            } => {
                let (name, bw) = self
                    .target(base)?
                    .ok_or_else(|| self.unsupported("slice assignment to a primitive pin"))?;
                let v = self.expr(replacement, *width)?;
                match self.const_value(offset) {
                    Some(lo) => {
                        let lo = lo as usize;
                        if lo + width > bw {
                            return Err(
                                self.unsupported(format!("slice assignment out of `{name}`"))
                            );
                        }
                        if *width == 1 {
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
            }
            VerilogStatement::If(c) => {
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
                                let _ = writeln!(
                                    out,
                                    "{pad}end else if ({}) begin",
                                    self.expr(&c2.test, 1)?
                                );
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
            }
            VerilogStatement::Macro(b) => self.block(b, ind, out)?,
            VerilogStatement::Comment(c) => {
                let _ = writeln!(out, "{pad}// {c}");
            }
            VerilogStatement::Link(_) => {}
            VerilogStatement::Match(_) => {
                return Err(self.unsupported("`match` (write an if/else chain)"));
            }
            VerilogStatement::Loop(_) => return Err(self.unsupported("`for` loops")),
        }
        Ok(())
    }

    fn decl(kind: &str, width: usize, name: &str) -> String {
        if width == 1 {
            format!("{kind} {name}")
        } else {
            format!("{kind} [{}:0] {name}", width - 1)
        }
    }

    fn render(self, header: &[String]) -> Result<Module, EmitError> {
        let mut body = String::new();
        self.block(&self.code, 2, &mut body)?;

        let mut t = String::new();
        for h in header {
            let _ = writeln!(t, "// {h}");
        }
        t.push_str("`default_nettype none\n\n");
        let _ = writeln!(t, "module {} (", self.block);
        let n = self.ports.len();
        for (i, (name, dir, w)) in self.ports.iter().enumerate() {
            let kind = match dir {
                Dir::Input => "input  wire",
                Dir::Output => "output reg ",
            };
            let range = if *w == 1 {
                String::new()
            } else {
                format!("[{}:0]", w - 1)
            };
            let sep = if i + 1 == n { "" } else { "," };
            let _ = writeln!(t, "    {kind} {range:<7} {name}{sep}");
        }
        t.push_str(");\n");

        let used = self.used_consts.borrow().clone();
        if !used.is_empty() {
            t.push('\n');
            for s in self.syms.values() {
                if let SymKind::Const(v) = s.kind {
                    if used.contains(&s.verilog) {
                        let _ = writeln!(
                            t,
                            "    {} = {};",
                            Self::decl("localparam", s.width, &s.verilog),
                            literal(s.width, v)
                        );
                    }
                }
            }
        }

        let regs: Vec<&Child> = self
            .children
            .iter()
            .filter(|c| c.prim == Prim::Reg)
            .collect();
        let mems: Vec<&Child> = self
            .children
            .iter()
            .filter(|c| c.prim == Prim::Mem)
            .collect();
        let pin = |c: &Child, p: &str| -> usize {
            c.atoms
                .iter()
                .find(|a| a.name == p)
                .map(|a| a.width)
                .unwrap_or(1)
        };
        if !regs.is_empty() {
            t.push_str("\n    // Registers: `x_q` holds, `x_d` is its next value.\n");
            for c in &regs {
                let w = pin(c, "q");
                let _ = writeln!(t, "    {};", Self::decl("reg", w, &format!("{}_q", c.name)));
                let _ = writeln!(t, "    {};", Self::decl("reg", w, &format!("{}_d", c.name)));
            }
        }
        for c in &mems {
            let dw = pin(c, "rd_data");
            let aw = pin(c, "rd_addr");
            let _ = writeln!(
                t,
                "\n    // Memory `{}`: {} words, registered read.",
                c.name,
                1usize << aw
            );
            let _ = writeln!(
                t,
                "    {} [0:{}];",
                Self::decl("reg", dw, &format!("{}_words", c.name)),
                (1usize << aw) - 1
            );
            for (p, w) in [
                ("rd_addr", aw),
                ("rd_data", dw),
                ("wr_en", 1),
                ("wr_addr", aw),
                ("wr_data", dw),
            ] {
                let _ = writeln!(
                    t,
                    "    {};",
                    Self::decl("reg", w, &format!("{}_{p}", c.name))
                );
            }
        }
        for c in self.children.iter().filter(|c| c.prim == Prim::Inst) {
            let _ = writeln!(t, "\n    // Instance `{}`.", c.name);
            let pins: Vec<&AtomInfo> = c
                .atoms
                .iter()
                .filter(|a| matches!(a.kind, AtomKind::InputParameter | AtomKind::OutputParameter))
                .collect();
            for a in &pins {
                let kind = match a.kind {
                    AtomKind::OutputParameter => "wire",
                    _ if a.name == "clock" || a.name == "reset" => continue,
                    _ => "reg",
                };
                let _ = writeln!(
                    t,
                    "    {};",
                    Self::decl(kind, a.width, &format!("{}_{}", c.name, a.name))
                );
            }
            let module = c.module.as_ref().map(|m| m.name.as_str()).unwrap_or("");
            let _ = writeln!(t, "    {module} {} (", c.name);
            let n = pins.len();
            for (i, a) in pins.iter().enumerate() {
                let sep = if i + 1 == n { "" } else { "," };
                let wire = if a.name == "clock" || a.name == "reset" {
                    a.name.clone()
                } else {
                    format!("{}_{}", c.name, a.name)
                };
                let _ = writeln!(t, "        .{}({wire}){sep}", a.name);
            }
            t.push_str("    );\n");
        }
        if !self.locals.is_empty() {
            t.push_str("\n    // Combinational signals.\n");
            for (name, w) in &self.locals {
                let _ = writeln!(t, "    {};", Self::decl("reg", *w, name));
            }
        }
        if !regs.is_empty() {
            t.push_str("\n    always @(posedge clock) begin\n        if (reset) begin\n");
            for c in &regs {
                let w = pin(c, "q");
                let _ = writeln!(t, "            {}_q <= {};", c.name, literal(w, 0));
            }
            t.push_str("        end else begin\n");
            for c in &regs {
                let _ = writeln!(t, "            {0}_q <= {0}_d;", c.name);
            }
            t.push_str("        end\n    end\n");
        }
        for c in &mems {
            let _ = writeln!(
                t,
                "\n    always @(posedge clock) begin\n        {0}_rd_data <= {0}_words[{0}_rd_addr];\n        if ({0}_wr_en) begin\n            {0}_words[{0}_wr_addr] <= {0}_wr_data;\n        end\n    end",
                c.name
            );
        }
        t.push_str("\n    always @(*) begin\n");
        t.push_str(&body);
        t.push_str("    end\n\nendmodule\n\n`default_nettype wire\n");

        Ok(Module {
            name: self.block.clone(),
            ports: self
                .ports
                .iter()
                .map(|(n, d, w)| Port {
                    name: n.clone(),
                    dir: *d,
                    width: *w,
                })
                .collect(),
            text: t,
            children: self
                .children
                .iter()
                .filter_map(|c| c.module.clone())
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_parse_and_print_at_their_width() {
        assert_eq!(parse_literal("32'h1f"), Some((32, 31)));
        assert_eq!(parse_literal("3'b101"), Some((3, 5)));
        assert_eq!(literal(1, 1), "1'b1");
        assert_eq!(literal(8, 3), "8'd3");
        assert_eq!(literal(16, 255), "16'hff");
    }

    #[test]
    fn names_are_checked() {
        assert!(is_legal_name("pkt_valid"));
        assert!(!is_legal_name("table"));
        assert!(!is_legal_name("reg"));
        assert!(!is_legal_name("a$b"));
        assert!(!is_legal_name("1abc"));
    }
}
