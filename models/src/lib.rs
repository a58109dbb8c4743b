//! netcoll models: the plain-Rust views of every block — its specification (module docs with
//! numbered rules), its shared vocabulary (ports, codes, layouts, parameters, declared once
//! with the [`kit`]), its golden reference (untimed, written for clarity) and its cycle model
//! (one `step` per clock, the same ports as the RTL) — plus the network vocabulary ([`net`]),
//! the parameter file ([`config`]) and the registry of blocks ([`kit::block::blocks`]).
//!
//! This crate deliberately does not depend on rust-hdl. The RTL (`netcoll-hdl`) depends on
//! it and takes its vocabulary from here: the port, layout and state declarations are macros
//! that generate the model's types in this crate and the RTL's signals in `netcoll-hdl`.
//!
//! A block lives at the same path in every crate: `models/src/<block>/` here
//! (`mod.rs` spec and vocabulary, `golden.rs`, `model.rs`), `hdl/src/<block>/`,
//! `testbench/src/<block>/`.

pub mod config;
pub mod kit;
pub mod net;
pub mod nic;
pub mod reduce_alu;
pub mod switch_engine;
