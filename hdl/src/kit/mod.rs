//! # The RTL side of the kit
//!
//! Generators that turn the declarations of `netcoll_models::kit` into rust-hdl:
//!
//! - [`rtl_block!`](crate::rtl_block): a block's struct with the declared ports (same names,
//!   same docs, `clock` first) and its internal fields with their initial values, its
//!   `Default`, and its [`PortIo`] (drive / sample from value vectors in declaration order);
//! - [`rtl_states!`](crate::rtl_states): a sequencer's state list as a rust-hdl `LogicState`
//!   enum (the Verilog back end emits its variants as `localparam`s);
//! - [`rtl_unpack!`](crate::rtl_unpack) / [`rtl_pack!`](crate::rtl_pack): a fixed bit layout
//!   as blocks that split words into fields and assemble them ([`layout`]);
//!
//! and [`RtlSim`], which simulates any such block under rust-hdl's `simulate()` with the one
//! clock convention of `netcoll_models::kit::cycle`.

pub mod layout;
pub mod ports;
pub mod sim;

pub use ports::{PortBits, PortIo};
pub use sim::RtlSim;
