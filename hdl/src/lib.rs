//! netcoll RTL: the rust-hdl descriptions of netcoll's blocks and the Verilog back end that
//! turns them into lint-clean, flat, deterministic Verilog.
//!
//! - [`prim`]: the two storage primitives blocks are built from;
//! - [`emit`]: the Verilog back end;
//! - [`switch`]: the switch collective engine.

pub mod alu;
pub mod emit;
pub mod generate;
pub mod nic;
pub mod prim;
pub mod switch;
