//! The symbol table: every name the `update` code can refer to, with its Verilog name, its width
//! and what it is; and the naming rules that produce those Verilog names.
//!
//! Naming rules (each checked, never worked around):
//!
//! 1. A signal of the block keeps its field name; a pin `p` of sub-block `s` is `s_p`.
//! 2. Element `k` of array field `f` is `f_k` (rust-hdl calls it `f$k`): `stat_3_q` for the `q`
//!    pin of element 3 of a register array `stat`, `part_2` for element 2 of a signal array.
//! 3. Every Verilog identifier is legal ([`super::is_legal_name`]) and used once; besides, the
//!    prefixes the fields produce (`stat_3` for `stat[3]`, `acc` for `acc`) are distinct, so a
//!    field `stat_3` next to an array `stat` of 4 or more elements is refused even where their
//!    full names would not meet.
//! 4. Variant `V` of enum `T` is the `localparam` `T_V` in SCREAMING_SNAKE_CASE; its value is
//!    the variant's position and its width the enum's.
//! 5. An array index in the Rust code is evaluated when the name is resolved: it may use loop
//!    variables, integer literals, `+`, `-`, `*` and parentheses, and must be inside the array.
//! 6. A block whose sub-blocks take a clock (registers, memories, instances with a `clock`
//!    input) has a 1-bit `clock` input, and likewise `reset` (registers, instances with a
//!    `reset` input); a purely combinational block needs neither.

use super::collect::{is_index, AtomInfo, Child, Collect, EnumType, Prim};
use super::expr::{parse_int_literal, parse_literal};
use super::keywords::is_legal_name;
use super::{Dir, EmitError};
use rust_hdl::core::atom::AtomKind;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SymKind {
    Input,
    Output,
    Local,
    Const(u128),
    /// A variant of a `LogicState` enum, with its code.
    EnumConst(u128),
    /// An output of an instantiated child block (a `wire`).
    ChildOutput,
    /// A primitive's pin that the back end drives itself (clock, reset).
    Implicit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Sym {
    pub verilog: String,
    pub width: usize,
    pub kind: SymKind,
}

/// Loop variables in scope, innermost last.
pub(super) type Env = [(String, u128)];

#[derive(Default)]
pub(super) struct Symbols {
    block: String,
    /// rust-hdl path (`stat$3$q`, `din`, `Phase$Idle`) → symbol.
    map: BTreeMap<String, Sym>,
    /// Ports in declaration order: Verilog name, direction, width.
    pub ports: Vec<(String, Dir, usize)>,
    /// Combinational signals in declaration order: Verilog name, width.
    pub locals: Vec<(String, usize)>,
    /// rust-hdl path of every array → its length (`stat` → 4, `grid$1` → 3).
    arrays: BTreeMap<String, usize>,
    /// Verilog identifier → what uses it (for the collision message).
    names: BTreeMap<String, String>,
    /// Field prefixes (rule 3) → what uses them.
    prefixes: BTreeMap<String, String>,
    enums: BTreeMap<String, EnumType>,
}

/// Whether a sub-block of `c` takes the block's `clock` / `reset` (rule 6): registers take
/// both, memories the clock, instances the ones among their inputs. A block without any needs
/// neither (a purely combinational child module).
fn uses_pin(c: &Collect, pin: &str) -> bool {
    c.children.iter().any(|ch| match ch.prim {
        Prim::Reg => true,
        Prim::DataReg | Prim::Mem => pin == "clock",
        Prim::Inst => ch
            .atoms
            .iter()
            .any(|a| a.name == pin && a.kind == AtomKind::InputParameter),
    })
}

/// The Verilog form of a rust-hdl name: `stat$3` → `stat_3` (rule 2). Only array indices are
/// mapped: any other `$` stays, and the name is then refused as illegal.
pub(super) fn verilog_name(rust: &str) -> String {
    let mut segs = rust.split('$');
    let mut out = segs.next().unwrap_or("").to_string();
    for seg in segs {
        out.push(if is_index(seg) { '_' } else { '$' });
        out.push_str(seg);
    }
    out
}

/// A rust-hdl path as the Rust code spells it, for messages: `stat$3$q` → `stat[3].q`.
pub(super) fn display_path(rust: &str) -> String {
    let mut out = String::new();
    for (i, seg) in rust.split('$').enumerate() {
        if is_index(seg) {
            out.push_str(&format!("[{seg}]"));
        } else {
            if i > 0 {
                out.push('.');
            }
            out.push_str(seg);
        }
    }
    out
}

/// `CalcReadA` → `CALC_READ_A`, `IOState` → `IO_STATE`, `Stage2Done` → `STAGE2_DONE`.
pub(super) fn screaming_snake(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// The `localparam` of variant `Type::Variant` (rule 4).
pub(super) fn enum_const_name(variant_path: &str) -> String {
    let (ty, variant) = variant_path.rsplit_once("::").unwrap_or(("", variant_path));
    let ty = ty.rsplit("::").next().unwrap_or(ty);
    format!("{}_{}", screaming_snake(ty), screaming_snake(variant))
}

impl Symbols {
    pub fn build(block: &str, c: &Collect) -> Result<Self, EmitError> {
        let mut s = Symbols {
            block: block.to_string(),
            ..Default::default()
        };
        for a in &c.top {
            s.add_top_atom(a)?;
        }
        for ch in &c.children {
            s.add_child(ch)?;
        }
        s.add_enums()?;
        for required in ["clock", "reset"] {
            if uses_pin(c, required)
                && !s
                    .ports
                    .iter()
                    .any(|p| p.0 == required && p.1 == Dir::Input && p.2 == 1)
            {
                return Err(s.unsupported(format!("needs a 1-bit `{required}` input")));
            }
        }
        Ok(s)
    }

    fn unsupported(&self, what: String) -> EmitError {
        EmitError::Unsupported {
            block: self.block.clone(),
            what,
        }
    }

    fn bad_name(&self, name: &str, why: String) -> EmitError {
        EmitError::BadName {
            block: self.block.clone(),
            name: name.to_string(),
            why,
        }
    }

    /// Reserves the Verilog identifier `name` for `what`.
    fn claim_name(&mut self, name: &str, what: String) -> Result<(), EmitError> {
        if !is_legal_name(name) {
            return Err(self.bad_name(
                name,
                "is not a legal Verilog identifier (or is a keyword)".into(),
            ));
        }
        if let Some(first) = self.names.get(name) {
            return Err(self.bad_name(name, format!("is used twice: by {first} and by {what}")));
        }
        self.names.insert(name.to_string(), what);
        Ok(())
    }

    /// Reserves the field prefix `prefix` (rule 3).
    fn claim_prefix(&mut self, prefix: &str, rust: &str) -> Result<(), EmitError> {
        let what = format!("`{}`", display_path(rust));
        if let Some(first) = self.prefixes.get(prefix) {
            return Err(self.bad_name(prefix, format!("is used twice: by {first} and by {what}")));
        }
        self.prefixes.insert(prefix.to_string(), what);
        Ok(())
    }

    fn note_arrays(&mut self, rust: &str) {
        let segs: Vec<&str> = rust.split('$').collect();
        for (p, seg) in segs.iter().enumerate().skip(1) {
            if let Ok(k) = seg.parse::<usize>() {
                if is_index(seg) {
                    let len = self.arrays.entry(segs[..p].join("$")).or_insert(0);
                    *len = (*len).max(k + 1);
                }
            }
        }
    }

    fn note_enum(&mut self, a: &AtomInfo) -> Result<(), EmitError> {
        if a.width == 0 {
            return Err(self.unsupported(format!(
                "signal `{}` has no bits (an enum with one variant?)",
                display_path(&a.name)
            )));
        }
        if let Some(e) = &a.enum_type {
            match self.enums.get(&e.name) {
                Some(known) if known != e => {
                    return Err(self
                        .unsupported(format!("two different enum types are named `{}`", e.name)))
                }
                Some(_) => {}
                None => {
                    self.enums.insert(e.name.clone(), e.clone());
                }
            }
        }
        Ok(())
    }

    /// Adds `sym` under the rust-hdl path `rust`, claiming its Verilog name.
    fn add(&mut self, rust: &str, sym: Sym) -> Result<(), EmitError> {
        self.claim_name(&sym.verilog, format!("`{}`", display_path(rust)))?;
        self.note_arrays(rust);
        self.map.insert(rust.to_string(), sym);
        Ok(())
    }

    fn add_top_atom(&mut self, a: &AtomInfo) -> Result<(), EmitError> {
        self.note_enum(a)?;
        let verilog = verilog_name(&a.name);
        let kind = match a.kind {
            AtomKind::InputParameter => {
                self.ports.push((verilog.clone(), Dir::Input, a.width));
                SymKind::Input
            }
            AtomKind::OutputParameter => {
                self.ports.push((verilog.clone(), Dir::Output, a.width));
                SymKind::Output
            }
            AtomKind::LocalSignal => {
                self.locals.push((verilog.clone(), a.width));
                SymKind::Local
            }
            AtomKind::Constant => {
                let (_, v) = parse_literal(&a.literal).ok_or_else(|| {
                    self.unsupported(format!("constant `{}` = {}", a.name, a.literal))
                })?;
                SymKind::Const(v)
            }
            k => return Err(self.unsupported(format!("signal `{}` of kind {k:?}", a.name))),
        };
        self.claim_prefix(&verilog, &a.name)?;
        let sym = Sym {
            verilog,
            width: a.width,
            kind,
        };
        self.add(&a.name, sym)
    }

    fn add_child(&mut self, ch: &Child) -> Result<(), EmitError> {
        let prefix = verilog_name(&ch.name);
        self.claim_prefix(&prefix, &ch.name)?;
        self.note_arrays(&ch.name);
        if ch.prim == Prim::Inst {
            // The instance name is an identifier of this module too.
            let what = format!("instance `{}`", display_path(&ch.name));
            self.claim_name(&prefix, what)?;
        }
        for a in &ch.atoms {
            let is_port = matches!(a.kind, AtomKind::InputParameter | AtomKind::OutputParameter);
            if ch.prim == Prim::Inst && !is_port {
                continue;
            }
            self.note_enum(a)?;
            let rust = format!("{}${}", ch.name, a.name);
            let implicit = matches!(
                (ch.prim, a.name.as_str()),
                (_, "clock") | (Prim::Reg, "reset") | (Prim::Inst, "reset")
            );
            let (verilog, kind) = if implicit {
                (String::new(), SymKind::Implicit)
            } else {
                let kind = match (ch.prim, a.kind) {
                    // A child's output is driven by the child: the parent may only read it.
                    (Prim::Inst, AtomKind::OutputParameter) => SymKind::ChildOutput,
                    _ => SymKind::Local,
                };
                (format!("{prefix}_{}", verilog_name(&a.name)), kind)
            };
            let sym = Sym {
                verilog,
                width: if implicit { 1 } else { a.width },
                kind,
            };
            if implicit {
                self.note_arrays(&rust);
                self.map.insert(rust, sym);
            } else {
                self.add(&rust, sym)?;
            }
        }
        if ch.prim == Prim::Mem {
            let sym = Sym {
                verilog: format!("{prefix}_words"),
                width: 0,
                kind: SymKind::Local,
            };
            self.add(&format!("{}$words", ch.name), sym)?;
        }
        Ok(())
    }

    /// Declares every variant of every enum type the block's signals use (rule 4). All are
    /// checked for collisions, used or not, so that whether a design emits does not depend on
    /// which variants its code happens to name.
    fn add_enums(&mut self) -> Result<(), EmitError> {
        let enums: Vec<EnumType> = self.enums.values().cloned().collect();
        for e in enums {
            let width = rust_hdl::core::bits::clog2(e.variants.len());
            for (code, variant) in e.variants.iter().enumerate() {
                let sym = Sym {
                    verilog: enum_const_name(variant),
                    width,
                    kind: SymKind::EnumConst(code as u128),
                };
                self.add(&variant.replace("::", "$"), sym)?;
            }
        }
        Ok(())
    }

    /// The enum codes in declaration order (by type name, then code): Verilog name, width,
    /// code.
    pub fn enum_consts(&self) -> Vec<(&str, usize, u128)> {
        let mut v = vec![];
        for e in self.enums.values() {
            for variant in &e.variants {
                if let Some(s) = self.map.get(&variant.replace("::", "$")) {
                    if let SymKind::EnumConst(code) = s.kind {
                        v.push((s.verilog.as_str(), s.width, code));
                    }
                }
            }
        }
        v
    }

    #[cfg(test)]
    pub fn for_test(map: BTreeMap<String, Sym>) -> Self {
        let mut s = Symbols {
            block: "t".into(),
            map,
            ..Default::default()
        };
        let keys: Vec<String> = s.map.keys().cloned().collect();
        for k in keys {
            s.note_arrays(&k);
        }
        s
    }

    /// The symbols in rust-hdl path order.
    pub fn iter(&self) -> impl Iterator<Item = &Sym> {
        self.map.values()
    }

    /// Whether `name` is a signal of the block (so it cannot be a loop variable).
    pub fn is_signal(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// The symbol a (resolved, see [`Self::resolve_indices`]) name from `hdl_gen` refers to.
    pub fn get(&self, raw: &str) -> Option<&Sym> {
        let mut name = raw
            .trim_start_matches('.')
            .replace('.', "$")
            .replace("::", "$");
        if let Some(stripped) = name.strip_suffix("$next") {
            name = stripped.to_string();
        }
        if let Some(s) = self.map.get(&name) {
            return Some(s);
        }
        // rust-hdl keeps a qualified enum path whole (`states$Phase$Idle`).
        let mut segs = name.rsplitn(3, '$');
        let (variant, ty) = (segs.next()?, segs.next()?);
        segs.next()?;
        self.map
            .get(&format!("{ty}${variant}"))
            .filter(|s| matches!(s.kind, SymKind::EnumConst(_)))
    }

    /// `stat[i + 1]$q` with `i = 2` → `stat$3$q` (rule 5); the name unchanged if it has no
    /// index.
    pub fn resolve_indices(&self, name: &str, env: &Env) -> Result<String, String> {
        if !name.contains('[') {
            return Ok(name.to_string());
        }
        let mut out = String::new();
        let mut rest = name;
        while let Some(open) = rest.find('[') {
            out.push_str(&rest[..open]);
            let mut depth = 0;
            let close = rest[open..]
                .char_indices()
                .find_map(|(i, c)| {
                    match c {
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then_some(open + i)
                })
                .ok_or_else(|| format!("unbalanced `[` in `{name}`"))?;
            let k = eval_index(&rest[open + 1..close], env)
                .map_err(|e| format!("index of `{name}`: {e}"))?;
            let array = out.trim_start_matches('.').replace('.', "$");
            match self.arrays.get(&array) {
                Some(&len) if k < len as u128 => {}
                Some(&len) => {
                    return Err(format!(
                        "index {k} is out of range of `{}` ({len} elements)",
                        display_path(&array)
                    ))
                }
                None => return Err(format!("`{}` is not an array", display_path(&array))),
            }
            out.push('$');
            out.push_str(&k.to_string());
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

const CONSTANT_INDEX: &str =
    "indices must be constant (loop variables, integer literals, + - * and parentheses)";

/// Evaluates an array index as `hdl_gen` spells it (spaces removed): loop variables, integer
/// literals (with a type suffix or not), `+`, `-`, `*`, parentheses.
pub(super) fn eval_index(text: &str, env: &Env) -> Result<u128, String> {
    let mut p = IndexParser {
        s: text.as_bytes(),
        pos: 0,
        env,
    };
    let v = p.sum()?;
    if p.pos != p.s.len() {
        return Err(format!("`{text}`: {CONSTANT_INDEX}"));
    }
    u128::try_from(v).map_err(|_| format!("`{text}` is negative ({v})"))
}

struct IndexParser<'a> {
    s: &'a [u8],
    pos: usize,
    env: &'a Env,
}

impl IndexParser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn sum(&mut self) -> Result<i128, String> {
        let mut v = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.product()?;
            let next = if op == b'+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            };
            v = next.ok_or("index arithmetic overflows")?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i128, String> {
        let mut v = self.atom()?;
        while self.peek() == Some(b'*') {
            self.pos += 1;
            let r = self.atom()?;
            v = v.checked_mul(r).ok_or("index arithmetic overflows")?;
        }
        Ok(v)
    }

    fn word(&mut self) -> &str {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("")
    }

    fn atom(&mut self) -> Result<i128, String> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.sum()?;
                if self.peek() != Some(b')') {
                    return Err("missing `)`".into());
                }
                self.pos += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let w = self.word().to_string();
                let v = parse_int_literal(&w).ok_or_else(|| format!("bad literal `{w}`"))?;
                i128::try_from(v).map_err(|_| format!("literal `{w}` is too large"))
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let w = self.word().to_string();
                let env = self.env;
                let (_, v) = env
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == w)
                    .ok_or_else(|| format!("`{w}` is not a loop variable: {CONSTANT_INDEX}"))?;
                i128::try_from(*v).map_err(|_| format!("`{w}` is too large"))
            }
            _ => Err(format!(
                "unexpected `{}`",
                String::from_utf8_lossy(&self.s[self.pos..])
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, u128)]) -> Vec<(String, u128)> {
        vars.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    fn atom(name: &str, kind: AtomKind, width: usize) -> AtomInfo {
        AtomInfo {
            name: name.into(),
            kind,
            width,
            literal: String::new(),
            enum_type: None,
        }
    }

    fn collect(top: Vec<AtomInfo>, children: Vec<Child>) -> Collect {
        let mut c = Collect::new(&[]);
        c.top = top;
        c.children = children;
        c
    }

    fn clock_reset() -> Vec<AtomInfo> {
        vec![
            atom("clock", AtomKind::InputParameter, 1),
            atom("reset", AtomKind::InputParameter, 1),
        ]
    }

    fn reg(name: &str, width: usize) -> Child {
        Child {
            name: name.into(),
            prim: Prim::Reg,
            atoms: vec![
                atom("clock", AtomKind::InputParameter, 1),
                atom("reset", AtomKind::InputParameter, 1),
                atom("d", AtomKind::InputParameter, width),
                atom("q", AtomKind::OutputParameter, width),
            ],
            module: None,
            attribute: None,
        }
    }

    #[test]
    fn loop_indices_evaluate() {
        let e = env(&[("i", 2), ("j", 1), ("i", 3)]);
        assert_eq!(eval_index("i", &e), Ok(3), "the innermost binding wins");
        assert_eq!(eval_index("i*3+j", &e), Ok(10));
        assert_eq!(eval_index("(i+1)*2-j", &e), Ok(7));
        assert_eq!(eval_index("2usize", &e), Ok(2));
        assert_eq!(eval_index("1_0u64", &e), Ok(10));
        assert_eq!(eval_index("0x10", &e), Ok(16));
        assert!(eval_index("j-2", &e).unwrap_err().contains("negative"));
        assert!(eval_index("k", &e)
            .unwrap_err()
            .contains("not a loop variable"));
        assert!(eval_index("sel$val()$index()", &e).is_err());
        assert!(eval_index("i/2", &e).is_err());
        assert!(eval_index("(i", &e).is_err());
        assert!(eval_index("", &e).is_err());
    }

    #[test]
    fn array_elements_are_named_f_k() {
        assert_eq!(verilog_name("stat$3"), "stat_3");
        assert_eq!(verilog_name("grid$1$2"), "grid_1_2");
        assert_eq!(display_path("stat$3$q"), "stat[3].q");
        assert_eq!(display_path("grid$1$2"), "grid[1][2]");
        let c = collect(
            clock_reset(),
            (0..4).map(|k| reg(&format!("stat${k}"), 8)).collect(),
        );
        let s = Symbols::build("b", &c).expect("symbols");
        assert_eq!(
            s.get("stat$3$q").map(|s| s.verilog.as_str()),
            Some("stat_3_q")
        );
        assert_eq!(
            s.get("stat$0$d$next").map(|s| s.verilog.as_str()),
            Some("stat_0_d")
        );
        assert_eq!(
            s.get("stat$2$clock").map(|s| &s.kind),
            Some(&SymKind::Implicit)
        );
        let e = env(&[("i", 1)]);
        assert_eq!(s.resolve_indices("stat[i+2]$q", &e), Ok("stat$3$q".into()));
        assert_eq!(s.resolve_indices("din", &e), Ok("din".into()));
        let err = s.resolve_indices("stat[i*4]$q", &e).unwrap_err();
        assert!(
            err.contains("out of range") && err.contains("4 elements"),
            "{err}"
        );
        let err = s.resolve_indices("din[0]", &e).unwrap_err();
        assert!(err.contains("not an array"), "{err}");
    }

    #[test]
    fn array_mapping_collisions_are_bad_names() {
        // A field `stat_3` next to element 3 of an array `stat`.
        let mut top = clock_reset();
        top.push(atom("stat_3", AtomKind::LocalSignal, 8));
        let c = collect(top, (0..4).map(|k| reg(&format!("stat${k}"), 8)).collect());
        match Symbols::build("b", &c).err() {
            Some(EmitError::BadName { name, why, .. }) => {
                assert_eq!(name, "stat_3");
                assert!(why.contains("stat[3]") && why.contains("stat_3"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        // With only three elements there is no `stat_3`.
        let mut top = clock_reset();
        top.push(atom("stat_3", AtomKind::LocalSignal, 8));
        let c = collect(top, (0..3).map(|k| reg(&format!("stat${k}"), 8)).collect());
        assert!(Symbols::build("b", &c).is_ok());
        // An array of signals `x` against a register `x_1`: `x_1` twice.
        let mut top = clock_reset();
        top.push(atom("x$0", AtomKind::LocalSignal, 1));
        top.push(atom("x$1", AtomKind::LocalSignal, 1));
        let c = collect(top, vec![reg("x_1", 1)]);
        assert!(matches!(
            Symbols::build("b", &c),
            Err(EmitError::BadName { name, .. }) if name == "x_1"
        ));
    }

    #[test]
    fn keywords_dollars_and_full_name_collisions_are_rejected() {
        // `$` is mapped for array indices only; any other `$` is refused, not renamed.
        assert_eq!(verilog_name("a$b$2"), "a$b_2");
        for (bad, name) in [("table", "table"), ("a$b", "a$b"), ("x$1$y", "x_1$y")] {
            let mut top = clock_reset();
            top.push(atom(bad, AtomKind::LocalSignal, 1));
            let r = Symbols::build("b", &collect(top, vec![]));
            assert!(
                matches!(&r, Err(EmitError::BadName { name: n, why, .. }) if n == name && why.contains("not a legal")),
                "{bad}: {:?}",
                r.err()
            );
        }
        // A signal `acc_q` next to a register `acc`.
        let mut top = clock_reset();
        top.push(atom("acc_q", AtomKind::LocalSignal, 4));
        let r = Symbols::build("b", &collect(top, vec![reg("acc", 4)]));
        assert!(
            matches!(&r, Err(EmitError::BadName { name, why, .. }) if name == "acc_q" && why.contains("used twice")),
            "{:?}",
            r.err()
        );
    }

    #[test]
    fn enum_variants_become_screaming_localparams() {
        assert_eq!(screaming_snake("NicState"), "NIC_STATE");
        assert_eq!(screaming_snake("CalcReadA"), "CALC_READ_A");
        assert_eq!(screaming_snake("IOState"), "IO_STATE");
        assert_eq!(screaming_snake("Stage2Done"), "STAGE2_DONE");
        assert_eq!(
            enum_const_name("NicState::CalcReadA"),
            "NIC_STATE_CALC_READ_A"
        );
        assert_eq!(enum_const_name("m::Phase::Idle"), "PHASE_IDLE");
        let mut top = clock_reset();
        let mut st = atom("st", AtomKind::LocalSignal, 2);
        st.enum_type = Some(EnumType {
            name: "Phase".into(),
            variants: vec![
                "Phase::Idle".into(),
                "Phase::Run".into(),
                "Phase::Done".into(),
            ],
        });
        top.push(st);
        let s = Symbols::build("b", &collect(top, vec![])).expect("symbols");
        let run = s.get("Phase$Run").expect("variant");
        assert_eq!(
            (run.verilog.as_str(), run.width, &run.kind),
            ("PHASE_RUN", 2, &SymKind::EnumConst(1))
        );
        assert_eq!(
            s.get("states$Phase$Done").map(|s| s.verilog.as_str()),
            Some("PHASE_DONE")
        );
        assert_eq!(
            s.enum_consts(),
            vec![
                ("PHASE_IDLE", 2, 0),
                ("PHASE_RUN", 2, 1),
                ("PHASE_DONE", 2, 2)
            ]
        );
        // A signal with the name of a variant's localparam collides.
        let mut top = clock_reset();
        let mut st = atom("st", AtomKind::LocalSignal, 1);
        st.enum_type = Some(EnumType {
            name: "Ab".into(),
            variants: vec!["Ab::A".into(), "Ab::B".into()],
        });
        top.push(st);
        top.push(atom("AB_A", AtomKind::LocalSignal, 1));
        assert!(matches!(
            Symbols::build("b", &collect(top, vec![])),
            Err(EmitError::BadName { name, .. }) if name == "AB_A"
        ));
    }

    #[test]
    fn zero_width_signals_and_missing_clock_are_unsupported() {
        let mut top = clock_reset();
        top.push(atom("one", AtomKind::LocalSignal, 0));
        assert!(matches!(
            Symbols::build("b", &collect(top, vec![])),
            Err(EmitError::Unsupported { what, .. }) if what.contains("no bits")
        ));
        // A register needs the block's reset; a combinational block needs no clock or reset.
        let top = vec![atom("clock", AtomKind::InputParameter, 1)];
        assert!(matches!(
            Symbols::build("b", &collect(top, vec![reg("r", 1)])),
            Err(EmitError::Unsupported { what, .. }) if what.contains("`reset`")
        ));
        let top = vec![atom("a", AtomKind::InputParameter, 1)];
        assert!(Symbols::build("b", &collect(top, vec![])).is_ok());
        let mut child = reg("u", 1);
        child.prim = Prim::Inst;
        let top = vec![atom("reset", AtomKind::InputParameter, 1)];
        assert!(matches!(
            Symbols::build("b", &collect(top, vec![child])),
            Err(EmitError::Unsupported { what, .. }) if what.contains("`clock`")
        ));
    }
}
