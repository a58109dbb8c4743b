//! The rust-hdl [`Probe`] that gathers what a block is made of: its own signals (atoms), its
//! primitives ([`crate::prim::Reg`], [`crate::prim::Mem`]) and its child instances, each child
//! instance already emitted as a module of its own.
//!
//! rust-hdl visits a block as: `visit_start_scope` for the block, `visit_atom` for each of its
//! signals, the same recursively for each sub-block, then `visit_end_scope`. An array field is
//! not a scope of its own: element `k` of field `f` is visited as `f$k` (a scope for a block, an
//! atom for a signal), so arrays need nothing special here beyond matching `f$k` against an
//! instance declared as `f`.

use super::{Dir, Emitter, Module, Port};
use crate::prim::PRIMITIVE_MARK;
use rust_hdl::core::ast::Verilog;
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::core::block::Block;
use rust_hdl::core::probe::Probe;
use rust_hdl::core::type_descriptor::TypeKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prim {
    Reg,
    /// A register without reset ([`crate::prim::DataReg`]).
    DataReg,
    Mem,
    /// A netcoll block emitted as its own module and instantiated (see
    /// [`super::emit_with_children`]).
    Inst,
}

/// A `#[derive(LogicState)]` enum: its type name and its variants (`Type::Variant`), in code
/// order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct EnumType {
    pub name: String,
    pub variants: Vec<String>,
}

#[derive(Clone, Debug)]
pub(super) struct AtomInfo {
    /// rust-hdl's name: the field name, `f$k` for element `k` of an array field.
    pub name: String,
    pub kind: AtomKind,
    pub width: usize,
    pub literal: String,
    pub enum_type: Option<EnumType>,
}

#[derive(Clone, Debug)]
pub(super) struct Child {
    /// rust-hdl's name: the field name, `f$k` for element `k` of an array field.
    pub name: String,
    pub prim: Prim,
    pub atoms: Vec<AtomInfo>,
    /// For [`Prim::Inst`]: the child's own module.
    pub module: Option<Module>,
    /// The Verilog attribute it gets, if any: `ram_style = "distributed"` for a [`Prim::Mem`]'s
    /// words, `keep` for a [`Prim::DataReg`] that is a [`crate::prim::KeptReg`] (on its
    /// `always` block), a one-hot `fsm_encoding` for a [`Prim::Reg`] that is a
    /// [`crate::prim::StateReg`] (on its declaration).
    pub attribute: Option<&'static str>,
}

pub(super) struct Collect {
    /// Field name → module name of the sub-blocks to instantiate.
    instances: Vec<(String, String)>,
    depth: usize,
    pub top: Vec<AtomInfo>,
    pub code: Option<Verilog>,
    pub children: Vec<Child>,
    pub errors: Vec<String>,
}

/// Whether `s` is a non-empty run of ASCII digits: an array index in a rust-hdl name.
pub(super) fn is_index(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A primitive that is a module of its own ([`crate::prim::Mul16`]): its custom Verilog is the
/// marker, `module <name>`, a newline and the module's text.
fn module_primitive(node: &dyn Block) -> Option<Module> {
    let Verilog::Custom(t) = node.hdl() else {
        return None;
    };
    let rest = t.strip_prefix(PRIMITIVE_MARK)?.strip_prefix("module ")?;
    let (name, text) = rest.split_once('\n')?;
    Some(Module {
        name: name.to_string(),
        ports: vec![],
        text: text.to_string(),
        children: vec![],
    })
}

/// The primitive `node` is, and the attribute it asks for.
fn primitive(node: &dyn Block) -> Option<(Prim, Option<&'static str>)> {
    let Verilog::Custom(t) = node.hdl() else {
        return None;
    };
    let kind = t.strip_prefix(PRIMITIVE_MARK)?.lines().next()?;
    match kind {
        "reg" => Some((Prim::Reg, None)),
        "reg onehot" => Some((Prim::Reg, Some(super::render::ONE_HOT))),
        "reg noreset" => Some((Prim::DataReg, None)),
        "reg noreset keep" => Some((Prim::DataReg, Some(super::render::KEEP))),
        "mem" => Some((Prim::Mem, None)),
        "mem distributed" => Some((Prim::Mem, Some("ram_style = \"distributed\""))),
        _ => None,
    }
}

impl Collect {
    pub fn new(instances: &[(&str, &str)]) -> Self {
        Collect {
            instances: instances
                .iter()
                .map(|(f, m)| (f.to_string(), m.to_string()))
                .collect(),
            depth: 0,
            top: vec![],
            code: None,
            children: vec![],
            errors: vec![],
        }
    }

    /// The module to instantiate for the sub-block `name`, and the field it was declared as
    /// when `name` is an element of an array field (`f$k`, `f$k$j`…). An element may be
    /// declared on its own (`f$1`), which takes precedence over its field's declaration, so
    /// that the elements of one array can be different modules.
    fn instance_of(&self, name: &str) -> Option<(String, Option<String>)> {
        let element = self.instances.iter().find(|(field, _)| field == name);
        if let Some((field, module)) = element {
            let array = field.split_once('$').map(|(f, _)| f.to_string());
            return Some((module.clone(), array));
        }
        self.instances.iter().find_map(|(field, module)| {
            let rest = name.strip_prefix(field.as_str())?.strip_prefix('$')?;
            rest.split('$')
                .all(is_index)
                .then(|| (module.clone(), Some(field.clone())))
        })
    }

    fn instantiate(&mut self, name: &str, node: &dyn Block, module: &str, array: Option<&str>) {
        // Declarations hold at every depth, so a child's own instances can be declared too.
        let mut sub = Collect {
            instances: self.instances.clone(),
            ..Collect::new(&[])
        };
        node.accept(name, &mut sub);
        // Every element of an array shares one module, so its header must not name an element.
        let header = match array {
            None => format!("{module}: instance `{name}`"),
            Some(field) => format!("{module}: instances `{field}[..]`"),
        };
        match Emitter::new(module, sub).and_then(|e| e.render(&[header])) {
            Ok(m) => self.children.push(Child {
                name: name.to_string(),
                prim: Prim::Inst,
                atoms: vec![],
                module: Some(m),
                attribute: None,
            }),
            Err(e) => self.errors.push(format!("sub-block `{name}`: {e}")),
        }
    }
}

impl Probe for Collect {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        self.depth += 1;
        match self.depth {
            1 => self.code = Some(node.hdl()),
            2 => match (
                module_primitive(node),
                primitive(node),
                self.instance_of(name),
            ) {
                (Some(module), _, _) => self.children.push(Child {
                    name: name.to_string(),
                    prim: Prim::Inst,
                    atoms: vec![],
                    module: Some(module),
                    attribute: None,
                }),
                (None, Some((prim, attribute)), _) => self.children.push(Child {
                    name: name.to_string(),
                    prim,
                    atoms: vec![],
                    module: None,
                    attribute,
                }),
                (None, None, Some((module, array))) => {
                    self.instantiate(name, node, &module, array.as_deref())
                }
                (None, None, None) => self.errors.push(format!(
                    "sub-block `{name}` is not a netcoll primitive (Reg, Mem or Mul16) nor a \
                     declared instance"
                )),
            },
            _ => {}
        }
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.errors
            .push(format!("interface `{name}` is not supported"));
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let d = signal.descriptor();
        let enum_type = match d.kind {
            TypeKind::Enum(variants) => Some(EnumType {
                name: d.name,
                variants,
            }),
            _ => None,
        };
        let info = AtomInfo {
            name: name.to_string(),
            kind: signal.kind(),
            width: signal.bits(),
            literal: signal.verilog().to_string(),
            enum_type,
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
        // A module primitive's ports are known once its atoms have been visited (an instantiated
        // block's module comes with its ports from `instantiate`, never empty).
        if self.depth == 2 {
            if let Some(c) = self.children.last_mut() {
                if let Some(m) = c.module.as_mut().filter(|m| m.ports.is_empty()) {
                    m.ports = c
                        .atoms
                        .iter()
                        .filter_map(|a| match a.kind {
                            AtomKind::InputParameter => Some((a, Dir::Input)),
                            AtomKind::OutputParameter => Some((a, Dir::Output)),
                            _ => None,
                        })
                        .map(|(a, dir)| Port {
                            name: a.name.clone(),
                            dir,
                            width: a.width,
                        })
                        .collect();
                }
            }
        }
        self.depth -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_elements_of_a_declared_instance_are_instances() {
        let c = Collect::new(&[("accs", "acc_unit"), ("alu", "reduce_alu_l1")]);
        assert_eq!(c.instance_of("alu"), Some(("reduce_alu_l1".into(), None)));
        assert_eq!(
            c.instance_of("accs$2"),
            Some(("acc_unit".into(), Some("accs".into())))
        );
        assert_eq!(
            c.instance_of("accs$1$0"),
            Some(("acc_unit".into(), Some("accs".into())))
        );
        assert_eq!(c.instance_of("accs_2"), None);
        assert_eq!(c.instance_of("accsx$2"), None, "a longer field name");
        assert_eq!(c.instance_of("accs$q"), None, "not an index");
        assert_eq!(c.instance_of("alu$"), None);
    }

    #[test]
    fn an_element_declared_alone_is_its_own_module() {
        // Declared after its field, so that order in the list is not what decides.
        let c = Collect::new(&[("fpu", "wide"), ("fpu$1", "narrow"), ("fpu$3", "narrow")]);
        let at = |name: &str| c.instance_of(name);
        assert_eq!(at("fpu$0"), Some(("wide".into(), Some("fpu".into()))));
        assert_eq!(at("fpu$1"), Some(("narrow".into(), Some("fpu".into()))));
        assert_eq!(at("fpu$2"), Some(("wide".into(), Some("fpu".into()))));
        assert_eq!(at("fpu$3"), Some(("narrow".into(), Some("fpu".into()))));
        assert_eq!(at("fpu$13"), Some(("wide".into(), Some("fpu".into()))));
    }

    #[test]
    fn indices_are_digit_runs() {
        assert!(is_index("0"));
        assert!(is_index("12"));
        assert!(!is_index(""));
        assert!(!is_index("1a"));
        assert!(!is_index("q"));
    }
}
