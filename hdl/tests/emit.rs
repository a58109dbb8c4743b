//! The Verilog back end on small blocks: the errors it gives instead of bad Verilog, and its
//! width rules. (The registered blocks' emitted text is snapshot-tested in `blocks.rs`.)

use netcoll_hdl::emit::{emit, EmitError};
use netcoll_hdl::prim::Reg;
use rust_hdl::prelude::*;

/// rust-hdl accepts `table` as a field name, but it is a Verilog keyword.
#[derive(LogicBlock, Default)]
struct KeywordNamed {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub din: Signal<In, Bits<4>>,
    pub dout: Signal<Out, Bits<4>>,
    held: Reg<Bits<4>>,
    table: Signal<Local, Bits<4>>,
}

impl Logic for KeywordNamed {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held);
        self.held.reset.next = self.reset.val();
        self.table.next = self.din.val();
        self.held.d.next = self.table.val();
        self.dout.next = self.held.q.val();
    }
}

/// A register whose output is widened and narrowed, and a literal in a narrow context.
#[derive(LogicBlock)]
struct Widths {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub din: Signal<In, Bits<4>>,
    pub wide: Signal<Out, Bits<12>>,
    pub sum: Signal<Out, Bits<4>>,
    acc: Reg<Bits<4>>,
    three: Constant<Bits<4>>,
}

impl Default for Widths {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            din: Default::default(),
            wide: Default::default(),
            sum: Default::default(),
            acc: Default::default(),
            three: Constant::new(3.into()),
        }
    }
}

impl Logic for Widths {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc);
        self.acc.reset.next = self.reset.val();
        self.acc.d.next = self.acc.q.val() + self.din.val() + 1;
        self.wide.next = bit_cast::<12, 4>(self.acc.q.val()) << 4;
        self.sum.next = self.acc.q.val() & self.three.val();
    }
}

#[test]
fn keyword_names_are_rejected_not_emitted() {
    let mut b = KeywordNamed::default();
    b.connect_all();
    let err = emit(&b, "kw", &[]).expect_err("`table` must be rejected");
    assert!(
        matches!(&err, EmitError::BadName { name, .. } if name == "table"),
        "{err}"
    );
}

#[test]
fn widths_are_explicit() {
    let mut b = Widths::default();
    b.connect_all();
    let m = emit(&b, "widths", &["widths".into()]).expect("emit");
    assert!(
        m.text.contains("acc_d = (acc_q + din) + 4'd1;"),
        "{}",
        m.text
    );
    assert!(
        m.text.contains("wide = {{8{1'b0}}, acc_q} << 3'd4;"),
        "{}",
        m.text
    );
    assert!(m.text.contains("if (reset) begin"), "{}", m.text);
    assert!(
        m.text.contains("localparam [3:0] three = 4'd3;"),
        "{}",
        m.text
    );
}
