//! The back end's loops, arrays, `match` and enums, on the example blocks of
//! `netcoll_hdl::emit::examples`: golden-text snapshots (reviewed by hand; a change shows up as
//! a snapshot diff), the excerpts each feature must produce, and the errors it gives instead of
//! bad Verilog. `testbench/tests/emit_features.rs` lints, synthesises and simulates the same
//! blocks.

use netcoll_hdl::emit::examples::{
    AccUnit, ChildArray, Example, KeptCopies, LocalArray, MatchLiterals, MemArray, MulPair,
    NestedLoops, RegArrayLoop, StateMachine,
};
use netcoll_hdl::emit::{emit, emit_with_children, EmitError, Module};
use netcoll_hdl::prim::Reg;
use rust_hdl::prelude::*;

fn emitted<E: Example>() -> Module {
    E::connected()
        .verilog()
        .unwrap_or_else(|e| panic!("{}: {e}", E::NAME))
}

fn child_array() -> Module {
    emitted::<ChildArray>()
}

fn has(m: &Module, excerpt: &str) {
    assert!(
        m.text.contains(excerpt),
        "{}: no\n{excerpt}\nin\n{}",
        m.name,
        m.text
    );
}

#[test]
fn reg_array_loop() {
    let m = emitted::<RegArrayLoop>();
    insta::assert_snapshot!("reg_array_loop", m.text);
    has(&m, "    reg [7:0] acc_3_q;\n    reg [7:0] acc_3_d;\n");
    has(&m, "            acc_3_q <= acc_3_d;\n");
    // The loop variable as a bit index and as a value sized to `sel`.
    has(
        &m,
        "        if (en[2]) begin\n            acc_2_d = acc_2_q + din;\n",
    );
    has(
        &m,
        "        if (sel == 2'd3) begin\n            pick = acc_3_q;\n",
    );
    assert!(!m.text.contains("for ("), "unrolled");
}

#[test]
fn nested_loops() {
    let m = emitted::<NestedLoops>();
    insta::assert_snapshot!("nested_loops", m.text);
    // Row 1, column 2 mixes row 0, column 2; row 0, column 0 takes the last cell of row 1.
    has(&m, "cell_5_d = cell_4_q + cell_2_q;");
    has(&m, "cell_0_d = din ^ cell_5_q;");
    // The `j == 0` test was decided at emit time.
    assert!(!m.text.contains("32'd"), "{}", m.text);
}

#[test]
fn local_array() {
    let m = emitted::<LocalArray>();
    insta::assert_snapshot!("local_array", m.text);
    has(&m, "    wire [7:0] part_0;\n    wire [7:0] part_1;\n");
    has(&m, "part_3 = (part_2 << 1'b1) ^ b;");
    has(&m, "odd = part_1[0] | part_2[0];");
}

#[test]
fn mem_array() {
    let m = emitted::<MemArray>();
    insta::assert_snapshot!("mem_array", m.text);
    has(&m, "    reg [7:0] ram_1_words [0:7];\n");
    has(&m, "        ram_1_rd_data <= ram_1_words[ram_1_rd_addr];\n");
    has(&m, "    assign ram_0_wr_en = we & (bank == 1'b0);\n");
}

#[test]
fn child_array_instances_share_one_module() {
    let m = child_array();
    insta::assert_snapshot!("child_array", m.text);
    assert_eq!(m.children.len(), 1, "three instances, one module");
    insta::assert_snapshot!("child_array_acc_unit", m.children[0].text);
    for k in 0..3 {
        has(&m, &format!("    acc_unit accs_{k} (\n"));
        has(&m, &format!("    assign q_{k} = accs_{k}_q;\n"));
    }
    let ports: Vec<&str> = m.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(ports, ["clock", "reset", "x", "sel", "q_0", "q_1", "q_2"]);
    assert!(m.full_text().contains("module acc_unit ("));
}

#[test]
fn kept_registers_have_an_always_block_marked_keep() {
    let m = emitted::<KeptCopies>();
    insta::assert_snapshot!("kept_copies", m.text);
    assert_eq!(m.children.len(), 1, "two instances, one module");
    let unit = &m.children[0];
    insta::assert_snapshot!("kept_copies_kept_unit", unit.text);
    // `own` alone in the kept block; `plain` in the other one.
    has(
        unit,
        "    (* keep *) always @(posedge clock) begin\n        own_q <= own_d;\n    end\n",
    );
    has(
        unit,
        "    always @(posedge clock) begin\n        plain_q <= plain_d;\n    end\n",
    );
    // Neither register resets, so the module has no `reset`.
    let ports: Vec<&str> = unit.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(ports, ["clock", "x", "q"]);
}

#[test]
fn match_literals() {
    let m = emitted::<MatchLiterals>();
    insta::assert_snapshot!("match_literals", m.text);
    // `1_usize` is a 2-bit label; `_` is the default; a bool match gets an empty default.
    has(&m, "        case (op)\n            2'd0: begin\n");
    has(
        &m,
        "            2'd1: begin\n                r_d = a - b;\n",
    );
    has(
        &m,
        "            default: begin\n            end\n        endcase\n",
    );
    has(&m, "        case (flag)\n            1'b1: begin\n");
}

#[test]
fn state_machine() {
    let m = emitted::<StateMachine>();
    insta::assert_snapshot!("state_machine", m.text);
    has(&m, "    localparam [2:0] PHASE_CALC_READ_A = 3'd2;\n");
    has(&m, "    reg [2:0] state_q;\n");
    has(&m, "        busy = state_q != PHASE_IDLE;\n");
    has(
        &m,
        "            PHASE_DONE: begin\n                state_d = PHASE_IDLE;\n",
    );
    has(&m, "    output wire [2:0]   phase,\n");
}

#[test]
fn emission_is_deterministic() {
    for _ in 0..2 {
        assert_eq!(
            emitted::<StateMachine>().text,
            emitted::<StateMachine>().text
        );
        assert_eq!(child_array().full_text(), child_array().full_text());
    }
}

/// A loop one element past the end of a register array.
#[derive(LogicBlock, Default)]
struct PastTheEnd {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub dout: Signal<Out, Bits<4>>,
    stat: [Reg<Bits<4>>; 4],
}

impl Logic for PastTheEnd {
    #[hdl_gen]
    #[allow(clippy::needless_range_loop)]
    fn update(&mut self) {
        for i in 0..5 {
            self.stat[i].clock.next = self.clock.val();
            self.stat[i].reset.next = self.reset.val();
            self.stat[i].d.next = self.stat[i].q.val();
        }
        self.dout.next = self.stat[0].q.val();
    }
}

#[test]
fn an_index_past_the_end_is_an_error_naming_the_block() {
    // Not connected: rust-hdl's `connect` would index past the end itself.
    let b = PastTheEnd::default();
    match emit(&b, "past_the_end", &[]) {
        Err(EmitError::Unsupported { block, what }) => {
            assert_eq!(block, "past_the_end");
            assert!(
                what.contains("index 4 is out of range of `stat` (4 elements)"),
                "{what}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// A field `stat_3` next to an array `stat`: element 3 would be named `stat_3` too.
#[derive(LogicBlock, Default)]
struct Collides {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub dout: Signal<Out, Bits<4>>,
    stat: [Reg<Bits<4>>; 4],
    stat_3: Signal<Local, Bits<4>>,
}

impl Logic for Collides {
    #[hdl_gen]
    #[allow(clippy::needless_range_loop)]
    fn update(&mut self) {
        for i in 0..4 {
            self.stat[i].clock.next = self.clock.val();
            self.stat[i].reset.next = self.reset.val();
            self.stat[i].d.next = self.stat[i].q.val();
        }
        self.stat_3.next = self.stat[3].q.val();
        self.dout.next = self.stat_3.val();
    }
}

#[test]
fn a_collision_from_array_naming_is_a_bad_name() {
    let mut b = Collides::default();
    b.connect_all();
    match emit(&b, "collides", &[]) {
        Err(EmitError::BadName { block, name, why }) => {
            assert_eq!((block.as_str(), name.as_str()), ("collides", "stat_3"));
            assert!(
                why.contains("`stat[3]`") && why.contains("`stat_3`"),
                "{why}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// An index that depends on a signal: not something a flat module can name.
#[derive(LogicBlock, Default)]
struct DynamicIndex {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub sel: Signal<In, Bits<1>>,
    pub dout: Signal<Out, Bits<4>>,
    x: [Signal<Local, Bits<4>>; 2],
}

impl Logic for DynamicIndex {
    #[hdl_gen]
    fn update(&mut self) {
        self.x[0].next = 1.into();
        self.x[1].next = 2.into();
        self.dout.next = self.x[self.sel.val().index()].val();
    }
}

#[test]
fn a_dynamic_index_is_an_error() {
    let mut b = DynamicIndex::default();
    b.connect_all();
    let err = emit(&b, "dynamic_index", &[]).expect_err("dynamic index");
    assert!(
        err.to_string().contains("indices must be constant"),
        "{err}"
    );
}

/// A `match` arm that binds a name: Rust's catch-all, which `hdl_gen` passes on as a label.
#[derive(LogicBlock, Default)]
struct BindingArm {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub sel: Signal<In, Bits<2>>,
    pub dout: Signal<Out, Bits<4>>,
}

impl Logic for BindingArm {
    #[hdl_gen]
    fn update(&mut self) {
        self.dout.next = 0.into();
        match self.sel.val().index() {
            1 => self.dout.next = 5.into(),
            _other => self.dout.next = 6.into(),
        }
    }
}

#[test]
fn a_binding_pattern_is_an_error() {
    let mut b = BindingArm::default();
    b.connect_all();
    let err = emit(&b, "binding_arm", &[]).expect_err("binding");
    assert!(err.to_string().contains("match pattern `_other`"), "{err}");
}

/// Two different blocks declared as instances of one module name.
#[derive(LogicBlock, Default)]
struct TwoModulesOneName {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub dout: Signal<Out, Bits<8>>,
    a: AccUnit,
    b: RegArrayLoop,
}

impl Logic for TwoModulesOneName {
    #[hdl_gen]
    fn update(&mut self) {
        self.a.clock.next = self.clock.val();
        self.a.reset.next = self.reset.val();
        self.a.en.next = true;
        self.a.x.next = 1.into();
        self.b.clock.next = self.clock.val();
        self.b.reset.next = self.reset.val();
        self.b.din.next = 1.into();
        self.b.en.next = 1.into();
        self.b.sel.next = 0.into();
        self.dout.next = self.a.q.val() ^ self.b.pick.val();
    }
}

#[test]
fn one_module_name_for_two_blocks_is_an_error() {
    let mut b = TwoModulesOneName::default();
    b.connect_all();
    let err = emit_with_children(&b, "two", &[], &[("a", "m"), ("b", "m")]).expect_err("clash");
    assert!(err.to_string().contains("module `m`"), "{err}");
    // Under two names both are emitted.
    let m = emit_with_children(&b, "two", &[], &[("a", "m1"), ("b", "m2")]).expect("emit");
    assert_eq!(m.children.len(), 2);
}

/// A block holding a [`ChildArray`], which holds three `AccUnit`s: instances two deep.
#[derive(LogicBlock, Default)]
struct Outer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub x: Signal<In, Bits<8>>,
    pub dout: Signal<Out, Bits<8>>,
    inner: ChildArray,
}

impl Logic for Outer {
    #[hdl_gen]
    fn update(&mut self) {
        self.inner.clock.next = self.clock.val();
        self.inner.reset.next = self.reset.val();
        self.inner.x.next = self.x.val();
        self.inner.sel.next = 1.into();
        self.dout.next = self.inner.q[1].val();
    }
}

#[test]
fn declared_instances_hold_at_every_depth() {
    let mut b = Outer::default();
    b.connect_all();
    let m = emit_with_children(
        &b,
        "outer",
        &[],
        &[("inner", "child_array"), ("accs", "acc_unit")],
    )
    .expect("emit");
    assert_eq!(m.children.len(), 1);
    assert_eq!(m.children[0].name, "child_array");
    assert_eq!(m.children[0].children[0].name, "acc_unit");
    has(&m, "    assign dout = inner_q_1;\n");
    let full = m.full_text();
    for module in ["outer", "child_array", "acc_unit"] {
        assert_eq!(
            full.matches(&format!("module {module} (")).count(),
            1,
            "{full}"
        );
    }
    // Without the inner declaration the child's instances are refused, naming them.
    let err = emit_with_children(&b, "outer", &[], &[("inner", "child_array")]).unwrap_err();
    assert!(err.to_string().contains("sub-block `accs$0`"), "{err}");
}

/// A module primitive is instantiated, never inlined, and its module comes with the parent's,
/// once however many instances use it, with the ports its atoms declare.
#[test]
fn mul_pair() {
    let m = emitted::<MulPair>();
    insta::assert_snapshot!("mul_pair", m.text);
    has(&m, "    reduce_alu_mul16 mul_ab (\n");
    has(&m, "    reduce_alu_mul16 mul_ac (\n");
    has(&m, "        .b(mul_ac_b),\n");
    assert_eq!(m.children.len(), 1, "one module for both instances");
    let mul = &m.children[0];
    assert_eq!(mul.name, "reduce_alu_mul16");
    let ports: Vec<_> = mul
        .ports
        .iter()
        .map(|p| (p.name.as_str(), p.width))
        .collect();
    assert_eq!(
        ports,
        [("clock", 1), ("reset", 1), ("a", 16), ("b", 16), ("p", 32)]
    );
    assert!(mul.text.contains("`ifdef NETCOLL_ECP5"));
    assert!(
        !m.text.contains("MULT18X18D"),
        "the vendor body stays in the child"
    );
}
