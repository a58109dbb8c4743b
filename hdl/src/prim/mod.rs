//! Storage primitives every netcoll block is built from.
//!
//! rust-hdl describes combinational logic with `#[hdl_gen]`; state lives in sub-blocks. netcoll
//! uses three kinds of state so that the Verilog back end ([`crate::emit`]) can inline them
//! into a single flat module per block: [`Reg`] (a register with synchronous reset to zero;
//! [`StateReg`] is one that holds a large state machine's state),
//! [`DataReg`] (a register without reset, for datapaths whose contents a resetting flag guards;
//! [`KeptReg`] is one that synthesis may not merge with a sibling instance's) and [`Mem`] (a synchronous-read memory without reset). One more primitive is a module of its own,
//! instantiated rather than inlined because FPGA flows need a vendor body for it: [`Mul16`], a
//! multiplier with registered operands and product. All mark their custom Verilog with
//! [`PRIMITIVE_MARK`] so the back end recognises them.

pub mod mem;
pub mod mul;
pub mod reg;

pub use mem::Mem;
pub use mul::Mul16;
pub use reg::{DataReg, KeptReg, Reg, StateReg};

/// First line of the custom Verilog of every primitive; followed by the primitive's kind.
pub const PRIMITIVE_MARK: &str = "// netcoll-primitive: ";
