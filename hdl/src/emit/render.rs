//! The module text, in a fixed order: header comment, port list, `localparam`s (constants by
//! name, then enum codes by type and code, only those used), registers, memories, instances,
//! combinational signals, the register `always` block, one `always` block per memory, the
//! continuous assignments (see `hoist`) and the one `always @(*)` holding the rest of the
//! unrolled `update` code (left out when nothing is left).

use super::collect::{AtomInfo, Child, Prim};
use super::expr::literal;
use super::symbols::{verilog_name, SymKind};
use super::{Dir, EmitError, Emitter, Module, Port};
use rust_hdl::core::atom::AtomKind;
use std::fmt::Write;

fn decl(kind: &str, width: usize, name: &str) -> String {
    if width == 1 {
        format!("{kind} {name}")
    } else {
        format!("{kind} [{}:0] {name}", width - 1)
    }
}

/// Width of the pin `p` of a primitive.
fn pin(c: &Child, p: &str) -> usize {
    c.atoms
        .iter()
        .find(|a| a.name == p)
        .map(|a| a.width)
        .unwrap_or(1)
}

fn is_port(a: &AtomInfo) -> bool {
    matches!(a.kind, AtomKind::InputParameter | AtomKind::OutputParameter)
}

impl Emitter {
    pub(super) fn render(self, header: &[String]) -> Result<Module, EmitError> {
        let split = self.split_assigns(self.unrolled()?)?;
        let mut body = String::new();
        self.block(&split.procedural, 2, &mut body)?;
        let mut assigns = String::new();
        for (name, width, e) in &split.assigns {
            let _ = writeln!(assigns, "    assign {name} = {};", self.expr(e, *width)?);
        }
        let wires = &split.wires;
        let kind = |name: &str| if wires.contains(name) { "wire" } else { "reg" };

        let mut t = String::new();
        self.render_ports(header, &kind, &mut t);
        self.render_localparams(&mut t);
        let of =
            |p: Prim| -> Vec<&Child> { self.children.iter().filter(|c| c.prim == p).collect() };
        let (regs, mems) = (of(Prim::Reg), of(Prim::Mem));
        let (kept_regs, data_regs): (Vec<&Child>, Vec<&Child>) = of(Prim::DataReg)
            .into_iter()
            .partition(|c| c.attribute == Some(KEEP));
        let reg_groups = [
            RegGroup {
                regs: &regs,
                heading: "Reset to zero:",
                always: "always @(posedge clock) begin\n        if (reset) begin\n",
            },
            RegGroup {
                regs: &data_regs,
                heading: "Without reset (a datapath; a flag that resets tells when they count):",
                always: "always @(posedge clock) begin\n",
            },
            RegGroup {
                regs: &kept_regs,
                heading: "Without reset, one per instance (`keep`: synthesis must not merge them \
                          across instances):",
                always: "(* keep *) always @(posedge clock) begin\n",
            },
        ];
        render_registers(&reg_groups, &kind, &mut t);
        render_memories(&mems, &kind, &mut t);
        self.render_instances(&kind, &mut t);
        if !self.syms.locals.is_empty() {
            t.push_str("\n    // Combinational signals.\n");
            for (name, w) in &self.syms.locals {
                let _ = writeln!(t, "    {};", decl(kind(name), *w, name));
            }
        }
        render_sequential(&reg_groups, &mems, &mut t);
        if !assigns.is_empty() {
            t.push('\n');
            t.push_str(&assigns);
        }
        if !body.trim().is_empty() {
            t.push_str("\n    always @(*) begin\n");
            t.push_str(&body);
            t.push_str("    end\n");
        }
        t.push_str("\nendmodule\n\n`default_nettype wire\n");

        Ok(Module {
            name: self.block.clone(),
            ports: self
                .syms
                .ports
                .iter()
                .map(|(n, d, w)| Port {
                    name: n.clone(),
                    dir: *d,
                    width: *w,
                })
                .collect(),
            text: t,
            children: self.child_modules()?,
        })
    }

    fn render_ports(&self, header: &[String], kind: &dyn Fn(&str) -> &'static str, t: &mut String) {
        for h in header {
            let _ = writeln!(t, "// {h}");
        }
        t.push_str("`default_nettype none\n\n");
        let _ = writeln!(t, "module {} (", self.block);
        let n = self.syms.ports.len();
        for (i, (name, dir, w)) in self.syms.ports.iter().enumerate() {
            let kind = match dir {
                Dir::Input => "input  wire",
                Dir::Output if kind(name) == "wire" => "output wire",
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
    }

    fn render_localparams(&self, t: &mut String) {
        let used = self.used_consts.borrow();
        if used.is_empty() {
            return;
        }
        t.push('\n');
        for s in self.syms.iter() {
            if let SymKind::Const(v) = s.kind {
                if used.contains(&s.verilog) {
                    let d = decl("localparam", s.width, &s.verilog);
                    let _ = writeln!(t, "    {d} = {};", literal(s.width, v));
                }
            }
        }
        for (name, width, code) in self.syms.enum_consts() {
            if used.contains(name) {
                let d = decl("localparam", width, name);
                let _ = writeln!(t, "    {d} = {};", literal(width, code));
            }
        }
    }

    fn render_instances(&self, kind: &dyn Fn(&str) -> &'static str, t: &mut String) {
        for c in self.children.iter().filter(|c| c.prim == Prim::Inst) {
            let inst = verilog_name(&c.name);
            let _ = writeln!(t, "\n    // Instance `{inst}`.");
            let pins: Vec<&AtomInfo> = c.atoms.iter().filter(|a| is_port(a)).collect();
            for a in &pins {
                let name = format!("{inst}_{}", verilog_name(&a.name));
                let net = match a.kind {
                    AtomKind::OutputParameter => "wire",
                    _ if a.name == "clock" || a.name == "reset" => continue,
                    _ => kind(&name),
                };
                let _ = writeln!(t, "    {};", decl(net, a.width, &name));
            }
            let module = c.module.as_ref().map(|m| m.name.as_str()).unwrap_or("");
            let _ = writeln!(t, "    {module} {inst} (");
            let n = pins.len();
            for (i, a) in pins.iter().enumerate() {
                let sep = if i + 1 == n { "" } else { "," };
                let port = verilog_name(&a.name);
                let wire = if a.name == "clock" || a.name == "reset" {
                    a.name.clone()
                } else {
                    format!("{inst}_{port}")
                };
                let _ = writeln!(t, "        .{port}({wire}){sep}");
            }
            t.push_str("    );\n");
        }
    }

    /// The modules of the instances, each once: the elements of an array of instances share
    /// theirs, and two instances may share a module name only if they share its text (but for
    /// the header comment naming the instance; the first instance's is kept).
    fn child_modules(&self) -> Result<Vec<Module>, EmitError> {
        /// The text after the leading comment lines.
        fn body(text: &str) -> &str {
            let mut rest = text;
            while rest.starts_with("//") {
                rest = rest.split_once('\n').map_or("", |(_, r)| r);
            }
            rest
        }
        let mut out: Vec<Module> = vec![];
        for m in self.children.iter().filter_map(|c| c.module.as_ref()) {
            match out.iter().find(|o| o.name == m.name) {
                Some(o) if body(&o.text) != body(&m.text) => {
                    return Err(self.unsupported(format!(
                        "two different blocks are instantiated as module `{}`",
                        m.name
                    )))
                }
                Some(_) => {}
                None => out.push(m.clone()),
            }
        }
        Ok(out)
    }
}

/// The attribute of a [`crate::prim::KeptReg`]; Yosys's `opt_merge` leaves a cell alone when
/// it and its twin both have it, and `proc` gives an `always` block's attributes to the
/// flip-flops it infers (on the declaration it would only keep the wire, not its driver).
pub(super) const KEEP: &str = "keep";

/// The attribute of a [`crate::prim::StateReg`]: Yosys's `fsm` pass reads a state register's
/// encoding from its wire, so it goes on the declaration.
pub(super) const ONE_HOT: &str = "fsm_encoding = \"one-hot\"";

/// Registers declared together and written by one `always` block of their own.
struct RegGroup<'a> {
    regs: &'a [&'a Child],
    /// The comment over their declarations when the module has more than one group (always
    /// for kept registers, whose comment says why).
    heading: &'static str,
    /// The start of their `always` block; the reset group's opens its reset branch.
    always: &'static str,
}

fn render_registers(groups: &[RegGroup], kind: &dyn Fn(&str) -> &'static str, t: &mut String) {
    let used = groups.iter().filter(|g| !g.regs.is_empty()).count();
    if used == 0 {
        return;
    }
    t.push_str("\n    // Registers: `x_q` holds, `x_d` is its next value.\n");
    for g in groups.iter().filter(|g| !g.regs.is_empty()) {
        if used > 1 || g.always.starts_with("(*") {
            let _ = writeln!(t, "    // {}", g.heading);
        }
        for c in g.regs {
            let (w, p) = (pin(c, "q"), verilog_name(&c.name));
            // (A kept register's attribute goes on its `always` block instead.)
            if let Some(attribute) = c.attribute.filter(|a| *a == ONE_HOT) {
                let _ = writeln!(t, "    (* {attribute} *)");
            }
            let _ = writeln!(t, "    {};", decl("reg", w, &format!("{p}_q")));
            let d = format!("{p}_d");
            let _ = writeln!(t, "    {};", decl(kind(&d), w, &d));
        }
    }
}

fn render_memories(mems: &[&Child], kind: &dyn Fn(&str) -> &'static str, t: &mut String) {
    for c in mems {
        let (dw, aw, p) = (pin(c, "rd_data"), pin(c, "rd_addr"), verilog_name(&c.name));
        let _ = writeln!(
            t,
            "\n    // Memory `{p}`: {} words, registered read.",
            1usize << aw
        );
        if let Some(attribute) = c.attribute {
            let _ = writeln!(t, "    (* {attribute} *)");
        }
        let words = decl("reg", dw, &format!("{p}_words"));
        let _ = writeln!(t, "    {words} [0:{}];", (1usize << aw) - 1);
        for (port, w) in [
            ("rd_addr", aw),
            ("rd_data", dw),
            ("wr_en", 1),
            ("wr_addr", aw),
            ("wr_data", dw),
        ] {
            let name = format!("{p}_{port}");
            let _ = writeln!(t, "    {};", decl(kind(&name), w, &name));
        }
    }
}

fn render_sequential(groups: &[RegGroup], mems: &[&Child], t: &mut String) {
    for (k, g) in groups
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.regs.is_empty())
    {
        let _ = write!(t, "\n    {}", g.always);
        if k == 0 {
            for c in g.regs {
                let w = pin(c, "q");
                let _ = writeln!(
                    t,
                    "            {}_q <= {};",
                    verilog_name(&c.name),
                    literal(w, 0)
                );
            }
            t.push_str("        end else begin\n");
            for c in g.regs {
                let _ = writeln!(t, "            {0}_q <= {0}_d;", verilog_name(&c.name));
            }
            t.push_str("        end\n");
        } else {
            for c in g.regs {
                let _ = writeln!(t, "        {0}_q <= {0}_d;", verilog_name(&c.name));
            }
        }
        t.push_str("    end\n");
    }
    for c in mems {
        let _ = writeln!(
            t,
            "\n    always @(posedge clock) begin\n        {0}_rd_data <= {0}_words[{0}_rd_addr];\n        if ({0}_wr_en) begin\n            {0}_words[{0}_wr_addr] <= {0}_wr_data;\n        end\n    end",
            verilog_name(&c.name)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::collect::{Collect, EnumType};
    use rust_hdl::core::ast::{Verilog, VerilogExpression, VerilogStatement};

    fn atom(name: &str, kind: AtomKind, width: usize) -> AtomInfo {
        AtomInfo {
            name: name.into(),
            kind,
            width,
            literal: String::new(),
            enum_type: None,
        }
    }

    fn assign(l: &str, r: &str) -> VerilogStatement {
        VerilogStatement::Assignment(
            VerilogExpression::Signal(l.into()),
            VerilogExpression::Signal(r.into()),
        )
    }

    /// clock, reset, a 2-bit enum signal `st`, a 4-bit local `y`, two constants.
    fn collect(code: Vec<VerilogStatement>) -> Collect {
        let mut c = Collect::new(&[]);
        c.top = vec![
            atom("clock", AtomKind::InputParameter, 1),
            atom("reset", AtomKind::InputParameter, 1),
            atom("y", AtomKind::OutputParameter, 4),
            atom("st", AtomKind::LocalSignal, 2),
        ];
        c.top[3].enum_type = Some(EnumType {
            name: "Mode".into(),
            variants: vec!["Mode::Off".into(), "Mode::On".into(), "Mode::Hold".into()],
        });
        for (name, lit) in [("k_used", "4'h5"), ("k_unused", "4'h6")] {
            let mut k = atom(name, AtomKind::Constant, 4);
            k.literal = lit.into();
            c.top.push(k);
        }
        c.code = Some(Verilog::Combinatorial(code));
        c
    }

    #[test]
    fn declarations_print_their_width() {
        assert_eq!(decl("reg", 1, "x"), "reg x");
        assert_eq!(decl("localparam", 3, "P"), "localparam [2:0] P");
    }

    #[test]
    fn only_used_constants_are_declared_constants_before_enum_codes() {
        let code = vec![assign("st", "Mode$Hold"), assign("y", "k_used")];
        let m = Emitter::new("b", collect(code))
            .and_then(|e| e.render(&[]))
            .expect("render");
        let k = m
            .text
            .find("    localparam [3:0] k_used = 4'd5;\n")
            .expect(&m.text);
        let hold = m
            .text
            .find("    localparam [1:0] MODE_HOLD = 2'd2;\n")
            .expect(&m.text);
        assert!(k < hold, "{}", m.text);
        assert!(
            !m.text.contains("k_unused") && !m.text.contains("MODE_OFF"),
            "{}",
            m.text
        );
        assert!(
            m.text.contains("    assign st = MODE_HOLD;\n"),
            "{}",
            m.text
        );
    }

    fn instance(name: &str, module: &str, text: &str) -> Child {
        Child {
            name: name.into(),
            prim: Prim::Inst,
            atoms: vec![],
            module: Some(Module {
                name: module.into(),
                ports: vec![],
                text: text.into(),
                children: vec![],
            }),
            attribute: None,
        }
    }

    #[test]
    fn instances_of_one_module_list_it_once_and_must_agree() {
        let mut c = collect(vec![]);
        c.children = vec![
            instance("u$0", "m", "module m"),
            instance("u$1", "m", "module m"),
            instance("v", "n", "module n"),
        ];
        let m = Emitter::new("b", c)
            .and_then(|e| e.render(&[]))
            .expect("render");
        let names: Vec<&str> = m.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["m", "n"]);
        assert!(m.text.contains("    m u_1 (\n"), "{}", m.text);
        let mut c = collect(vec![]);
        c.children = vec![instance("u", "m", "module m"), instance("v", "m", "other")];
        let err = Emitter::new("b", c)
            .and_then(|e| e.render(&[]))
            .unwrap_err();
        assert!(err.to_string().contains("module `m`"), "{err}");
    }
}
