//! netcoll models: golden references (untimed, written for clarity) and cycle-accurate models
//! (one `step` per clock, same ports as the RTL) of every netcoll block, plus the parameter file.
//!
//! This crate deliberately does not depend on rust-hdl: the RTL (`netcoll-hdl`) depends on it,
//! so the port structs defined here are the single definition both levels share.

pub mod alu;
pub mod config;
pub mod nic;
pub mod switch;
