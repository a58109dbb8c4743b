//! A 16 × 16 → 32-bit unsigned multiplier with registered operands and a registered product
//! (module `reduce_alu_mul16`): the shape of an FPGA DSP block with its input and output
//! registers switched on.
//!
//! # Inputs
//! - `clock`: rising-edge clock; `reset`: synchronous, clears the three registers.
//! - `a`, `b` (16 bits each): the operands, registered at the edge.
//!
//! # Outputs
//! - `p` (32 bits): the product of the operands offered two edges earlier (a register).
//!
//! # Why a primitive
//! Written as `p <= a_q * b_q` in plain Verilog, Yosys maps the multiply onto an ECP5
//! `MULT18X18D` but leaves both registers in the fabric: every product then pays the routing into
//! and out of the DSP column on top of the multiplier itself (about 9.5 ns of a 10 ns path on
//! LFE5U-85F -6), and `synth_ecp5` has no pass that packs them. So the emitted module has two
//! bodies: the portable one, which every simulator and `synth_ice40` (whose DSP pass does pack
//! registers) read, and, when the macro `NETCOLL_ECP5` is defined, one `MULT18X18D` with
//! `REG_INPUTA`, `REG_INPUTB` and `REG_OUTPUT` on `CLK0`, synchronous reset on `RST0`, which
//! is the same function by Lattice's definition of the primitive (FPGA-TN-02205, sysDSP):
//! unsigned operands (`SIGNEDA` = `SIGNEDB` = 0) zero-extended to 18 bits, `P[31:0]` the product.
//! `netcoll synth --fpga ecp5` defines the macro; anyone else running Yosys for ECP5 on
//! `verilog/` passes `-DNETCOLL_ECP5` to `read_verilog` (see the README).
//!
//! The rust-hdl model below is the portable body, cycle for cycle; the back end
//! ([`crate::emit`]) instantiates the module rather than inlining it.

use super::PRIMITIVE_MARK;
use rust_hdl::prelude::*;

/// Module name of the emitted multiplier.
pub const MUL16_MODULE: &str = "reduce_alu_mul16";

/// The ECP5 macro that selects the `MULT18X18D` body.
pub const ECP5_MACRO: &str = "NETCOLL_ECP5";

#[derive(Clone, Debug, LogicBlock, Default)]
pub struct Mul16 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<16>>,
    pub p: Signal<Out, Bits<32>>,
    _a: Bits<16>,
    _b: Bits<16>,
}

impl Logic for Mul16 {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.p.next = 0.into();
                self._a = 0.into();
                self._b = 0.into();
            } else {
                self.p.next = (self._a.to_u64() * self._b.to_u64()).into();
                self._a = self.a.val();
                self._b = self.b.val();
            }
        }
    }
    fn connect(&mut self) {
        self.p.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{PRIMITIVE_MARK}module {MUL16_MODULE}\n{}",
            module_text()
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "mul16".into(),
            clock: "clock".into(),
            inputs: vec!["a".into(), "b".into(), "reset".into()],
            outputs: vec!["p".into()],
        }]
    }
}

/// `.X0(v[0]), .X1(v[1]), …` for `n` pins of a `MULT18X18D` port bus.
fn pins(port: char, v: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!(".{port}{i}({v}[{i}])"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The module, headed by the one-line comment the generator replaces with the block header.
fn module_text() -> String {
    let regs: String = ["INPUTA", "INPUTB", "OUTPUT"]
        .iter()
        .map(|r| {
            format!(
                "        .REG_{r}_CLK(\"CLK0\"), .REG_{r}_CE(\"CE0\"), .REG_{r}_RST(\"RST0\"),\n"
            )
        })
        .collect();
    let zeros = (0..18)
        .map(|i| format!(".C{i}(1'b0)"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "// {MUL16_MODULE}: 16 x 16 multiplier, operands and product registered.
`default_nettype none

module {MUL16_MODULE} (
    input  wire         clock,
    input  wire         reset,
    input  wire [15:0]  a,
    input  wire [15:0]  b,
    output wire [31:0]  p
);

    // p is the product of the a and b offered two edges earlier; every register resets to zero.
`ifdef {ECP5_MACRO}
    // Lattice ECP5: one MULT18X18D with its input and output registers (Yosys maps a plain
    // multiply to one but never packs registers into it), unsigned, synchronous reset.
    wire [17:0] dsp_a;
    wire [17:0] dsp_b;
    wire [35:0] dsp_p;
    assign dsp_a = {{2'b00, a}};
    assign dsp_b = {{2'b00, b}};
    MULT18X18D #(
{regs}        .RESETMODE(\"SYNC\"),
        .GSR(\"DISABLED\")
    ) dsp (
        {a_pins},
        {b_pins},
        {zeros},
        .SIGNEDA(1'b0), .SIGNEDB(1'b0), .SOURCEA(1'b0), .SOURCEB(1'b0),
        .CLK0(clock), .CE0(1'b1), .RST0(reset),
        {p_pins}
    );
    assign p = dsp_p[31:0];
`else
    reg [15:0] a_q;
    reg [15:0] b_q;
    reg [31:0] p_q;
    always @(posedge clock) begin
        if (reset) begin
            a_q <= 16'd0;
            b_q <= 16'd0;
            p_q <= 32'd0;
        end else begin
            a_q <= a;
            b_q <= b;
            p_q <= {{16'd0, a_q}} * {{16'd0, b_q}};
        end
    end
    assign p = p_q;
`endif

endmodule

`default_nettype wire
",
        a_pins = pins('A', "dsp_a", 18),
        b_pins = pins('B', "dsp_b", 18),
        p_pins = pins('P', "dsp_p", 36),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(m: &mut Mul16, a: u64, b: u64, reset: bool) -> u64 {
        m.a.next = a.into();
        m.b.next = b.into();
        m.reset.next = reset;
        m.clock.next = Clock { clk: false };
        simulate(m, 10);
        m.clock.next = Clock { clk: true };
        simulate(m, 10);
        m.p.val().to_u64()
    }

    #[test]
    fn the_product_comes_two_edges_after_its_operands() {
        let mut m = Mul16::default();
        m.connect_all();
        assert_eq!(edge(&mut m, 0xffff, 0xffff, false), 0);
        assert_eq!(edge(&mut m, 3, 5, false), 0xfffe_0001);
        assert_eq!(edge(&mut m, 7, 9, false), 15);
        // The reset edge clears p and both operand registers: 7 × 9 never comes out.
        assert_eq!(edge(&mut m, 2, 2, true), 0);
        assert_eq!(edge(&mut m, 0, 0, false), 0);
        assert_eq!(edge(&mut m, 0, 0, false), 0);
    }

    #[test]
    fn the_ecp5_body_is_behind_the_macro_and_registers_every_port() {
        let t = module_text();
        let (portable, ecp5) = (
            t.split("`else").nth(1).unwrap_or(""),
            t.split("`else").next().unwrap_or(""),
        );
        assert!(ecp5.contains(&format!("`ifdef {ECP5_MACRO}")));
        assert!(ecp5.contains("MULT18X18D"));
        for r in ["INPUTA", "INPUTB", "OUTPUT"] {
            assert!(ecp5.contains(&format!(".REG_{r}_CLK(\"CLK0\")")), "{r}");
        }
        assert!(ecp5.contains(".A17(dsp_a[17])") && ecp5.contains(".P35(dsp_p[35])"));
        assert!(!portable.contains("MULT18X18D"));
    }
}
