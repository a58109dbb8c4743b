//! # The RTL registry
//!
//! Every block's RTL views under the block's name (the names of
//! `netcoll_models::kit::block::blocks`, in the same order): its Verilog for a configuration,
//! its rust-hdl simulation, how `netcoll synth` checks it and which `constraints/` files
//! belong to it. `netcoll gen`, the manifest, `synth`, the benches and the snapshot tests loop
//! over [`blocks`]; a test fails when a block of the models registry is missing here.

use crate::emit::{EmitError, Module};
use netcoll_models::config::Config;
use netcoll_models::kit::cycle::ValueSim;
use netcoll_models::kit::params::ParamTable;
use thiserror::Error;

/// Why a block's RTL could not be made.
#[derive(Debug, Error)]
pub enum GenError {
    /// The configuration is outside what the RTL is monomorphised for (the loader rejects
    /// those first, so this is a bug or a hand-built configuration).
    #[error("block `{block}` has no RTL for {params}{why}")]
    Unsupported {
        block: &'static str,
        params: String,
        /// Why, when it is known (else empty).
        why: &'static str,
    },
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// Two blocks instantiate different modules under one name.
    #[error("module `{0}` would be emitted twice with different text")]
    Conflict(String),
}

/// How `netcoll synth` checks a block with Yosys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthMode {
    /// Full `synth` with the memories flattened: every cell counted, latches looked for.
    Flat,
    /// `synth -run begin:fine`: memories kept as memories (flattening a data memory of
    /// thousands of words takes Yosys many minutes); latches looked for the same way.
    Coarse,
}

/// One block's RTL views.
#[derive(Clone, Copy)]
pub struct RtlEntry {
    /// The block's name, as in the models registry.
    pub name: &'static str,
    /// The block's Verilog in a configuration (with the modules it instantiates), headed by
    /// `header`.
    pub verilog: fn(&Config, &[String]) -> Result<Module, GenError>,
    /// The block under rust-hdl's `simulate()`.
    pub sim: fn(&Config) -> Result<Box<dyn ValueSim>, GenError>,
    pub synth: SynthMode,
    /// The clock (MHz) the block must close at on an FPGA (ECP5, speed grade 6, every port
    /// registered): `netcoll synth --fpga` writes its constraint from this.
    pub fpga_mhz: f64,
    /// Derived parameters the manifest lists besides the table's keys.
    pub derived: fn(&Config) -> Vec<(&'static str, usize)>,
}

impl std::fmt::Debug for RtlEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RtlEntry")
            .field("name", &self.name)
            .finish()
    }
}

fn unsupported(block: &'static str, t: &dyn ParamTable) -> GenError {
    let reduces = t.get("max_plen").is_some_and(|v| v > 0) && block == "switch_engine";
    GenError::Unsupported {
        block,
        params: t.describe(),
        why: if reduces {
            " (the RTL builds the reducing engines of netcoll_hdl::switch_engine::REDUCING_SHAPES \
             only; this one exists as the golden reference and the cycle model)"
        } else {
            ""
        },
    }
}

/// Every block's FPGA target: 125 MHz on an LFE5U-85F at speed grade 6 (the timing issue's
/// bar; NIC shells run their user logic at 250–322 MHz on UltraScale+, about twice as fast).
const FPGA_MHZ: f64 = 125.0;

/// Every block's RTL, in registry order.
pub fn blocks() -> Vec<RtlEntry> {
    vec![
        RtlEntry {
            name: "switch_engine",
            verilog: |c, h| {
                let rtl = crate::switch_engine::build(&c.switch)
                    .ok_or_else(|| unsupported("switch_engine", &c.switch))?;
                Ok(rtl.verilog(h)?)
            },
            sim: |c| {
                let rtl = crate::switch_engine::build(&c.switch)
                    .ok_or_else(|| unsupported("switch_engine", &c.switch))?;
                Ok(rtl.into_sim())
            },
            synth: SynthMode::Flat,
            fpga_mhz: FPGA_MHZ,
            derived: |c| {
                vec![
                    ("port_bits", c.switch.port_bits()),
                    ("cgid_bits", c.switch.cgid_bits()),
                    ("latency", netcoll_models::switch_engine::LATENCY),
                ]
            },
        },
        RtlEntry {
            name: "nic",
            verilog: |c, h| {
                let rtl = crate::nic::build(&c.nic).ok_or_else(|| unsupported("nic", &c.nic))?;
                Ok(rtl.verilog(h)?)
            },
            sim: |c| {
                let rtl = crate::nic::build(&c.nic).ok_or_else(|| unsupported("nic", &c.nic))?;
                Ok(rtl.into_sim())
            },
            synth: SynthMode::Coarse,
            fpga_mhz: FPGA_MHZ,
            derived: |_| {
                vec![
                    ("wq_depth", netcoll_models::nic::WQ_DEPTH),
                    ("cq_depth", netcoll_models::nic::CQ_DEPTH),
                ]
            },
        },
        RtlEntry {
            name: "reduce_alu",
            verilog: |c, h| {
                let rtl = crate::reduce_alu::build(&c.alu)
                    .ok_or_else(|| unsupported("reduce_alu", &c.alu))?;
                Ok(rtl.verilog(h)?)
            },
            sim: |c| {
                let rtl = crate::reduce_alu::build(&c.alu)
                    .ok_or_else(|| unsupported("reduce_alu", &c.alu))?;
                Ok(rtl.into_sim())
            },
            synth: SynthMode::Flat,
            fpga_mhz: FPGA_MHZ,
            derived: |c| vec![("latency", c.alu.latency())],
        },
    ]
}

/// The entry called `name`.
pub fn block(name: &str) -> Option<RtlEntry> {
    blocks().into_iter().find(|b| b.name == name)
}
