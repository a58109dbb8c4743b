//! # netcoll's fabric
//!
//! Barriers and reductions ([`collective`]) end to end across many switches, under faults: a
//! topology read from a fabric file ([`topology`], [`spec`]), a subnet manager that builds and
//! rebuilds a spanning tree per group ([`sm`]), compute nodes running the CSM in software
//! ([`node`]), and a cycle-level, activity-driven simulator ([`sim`]) in which every switch's
//! collective engine is the cycle model, the rust-hdl RTL or the emitted Verilog under
//! Verilator. A safety checker runs in every run: no member leaves barrier `k` before every
//! member has entered it, every barrier completes within `run.completion_bound` cycles of its
//! last entry or the last fault, and every reduction result a member receives equals the
//! checker's own fold; a run that does not finish by `run.max_cycles` is a hang. [`report`] is
//! what it prints. [`offload`] runs the same collectives by the members' NICs or by host
//! software instead, the switches forwarding the NICs' unicast messages.

pub mod collective;
pub mod node;
pub mod offload;
pub mod report;
pub mod sim;
pub mod sm;
pub mod spec;
pub mod sweep;
pub mod topology;

pub use offload::{Algo, OffloadOptions};
pub use report::{Record, Report, Summary};
pub use sim::{Fabric, RunOptions};
pub use spec::FabricFile;

/// What can go wrong before a run starts.
#[derive(Debug, thiserror::Error)]
pub enum FabricError {
    /// A value that is not allowed.
    #[error("{key} = {value}: {why}")]
    Invalid {
        key: String,
        value: String,
        why: String,
    },
    /// The text is not a fabric file.
    #[error("{0}")]
    Syntax(String),
    /// The engine parameters are wrong.
    #[error("{0}")]
    Config(String),
    /// A switch could not be made at the level asked for.
    #[error("{0}")]
    Level(String),
}

/// Reads a fabric file's text.
pub fn parse(text: &str) -> Result<FabricFile, FabricError> {
    toml::from_str(text)
        .map_err(|e: toml::de::Error| FabricError::Syntax(e.message().trim().replace('\n', " ")))
}
