//! netcoll's conformance harness: one suite per block, run unchanged at every level (golden
//! reference, cycle model, rust-hdl RTL, emitted Verilog under Verilator), lockstep comparison,
//! stimulus, and wrappers around the external tools.

pub mod alu;
pub mod check;
pub mod nic;
pub mod switch;
pub mod tools;
pub mod verilator;
