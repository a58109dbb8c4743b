//! netcoll RTL: the rust-hdl descriptions of netcoll's blocks and the Verilog back end that
//! turns them into lint-clean, flat, deterministic Verilog.
//!
//! - [`kit`]: the RTL generators of the shared declarations (`rtl_block!`, `rtl_states!`)
//!   and the rust-hdl simulation wrapper;
//! - [`prim`]: the storage primitives blocks are built from (and netcoll's `dff_setup!`);
//! - [`emit`]: the Verilog back end;
//! - one module per block, named after it: [`switch_engine`], [`nic`], [`reduce_alu`];
//! - [`registry`]: every block's RTL views; [`generate`]: the files `netcoll gen` writes.

// `#[hdl_gen]` code cannot use match guards (rust-hdl's AST has none), so an `if` inside a
// match arm is how a state machine says "in this state, when…".
#![allow(clippy::collapsible_match)]

pub mod emit;
pub mod generate;
pub mod kit;
pub mod nic;
pub mod prim;
pub mod reduce_alu;
pub mod registry;
pub mod switch_engine;
