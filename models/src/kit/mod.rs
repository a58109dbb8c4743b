//! # The kit: what every block is made of
//!
//! The shared vocabulary of netcoll's views, declared once and used by every level:
//!
//! - [`ports`]: port declarations and the port structs / value vectors generated from them;
//! - [`params`]: parameter tables (`netcoll.toml`);
//! - [`codes`]: enums of codes and state encodings;
//! - [`layout`]: bit layouts of words that cross levels;
//! - [`cycle`]: the one clock convention of every cycle-level view;
//! - [`toml_text`]: one-line, escaped messages about the TOML files users write;
//! - [`block`]: the [`block::BlockSpec`] trait and the registry of blocks.
//!
//! Only vocabulary is shared. Behaviour is not: the golden reference and the cycle model of a
//! block stay independent implementations of its rules, and layouts stay pinned by
//! hand-written values in tests.

pub mod block;
pub mod codes;
pub mod cycle;
pub mod layout;
pub mod params;
pub mod ports;
pub mod toml_text;
