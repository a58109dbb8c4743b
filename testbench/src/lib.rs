//! netcoll's conformance harness: one harness for every block ([`harness`]: levels, lockstep,
//! waveforms, Verilator, driver knobs), and per block — in a module named after it — a
//! transactor, a conformance suite that runs unchanged at every level, and random stimulus.
//! [`registry`] lists every block's harness views; [`check`] and [`bench`] loop over it;
//! [`tools`] wraps the external HDL tools.

pub mod bench;
pub mod check;
pub mod fpga;
pub mod harness;
pub mod nic;
pub mod reduce_alu;
pub mod registry;
pub mod switch_engine;
pub mod synth;
pub mod tools;
