//! # Blocks and the registry
//!
//! A *block* is a piece of hardware with every view (see `ARCHITECTURE.md`). In this crate a
//! block is a type implementing [`BlockSpec`]: its name, its parameter table, its ports, its
//! golden reference and its cycle model. [`blocks`] lists every block; the other crates keep
//! registries of their own views under the same names (`netcoll_hdl::registry`,
//! `netcoll_testbench::registry`), and a test fails when a name is missing from one of them.

use super::cycle::CycleSim;
use super::params::ParamTable;
use super::ports::{PortSpec, PortValues};
use crate::config::Config;
use std::fmt::Debug;
use std::hash::Hash;

/// Everything the models crate knows of a block.
pub trait BlockSpec {
    /// The block's name: its Verilog top module (a block emitted in several variants, like the
    /// reduction ALU's lane counts, names them `<NAME>_<variant>`), its folder in every crate
    /// and its row in every table.
    const NAME: &'static str;
    /// One line: what the block is (file headers, the manifest, `check`).
    const DESCRIPTION: &'static str;
    /// Whether every output comes from a register (then [`CycleSim::peek`] is exact).
    const REGISTERED_OUTPUTS: bool;
    type Params: ParamTable + Copy + Default + Eq + Hash + Debug + 'static;
    type In: PortValues<Params = Self::Params>;
    type Out: PortValues<Params = Self::Params>;
    /// The cycle model.
    type Model: CycleSim<In = Self::In, Out = Self::Out>;
    /// The golden reference (its interface is the block's own: operations, not cycles).
    type Golden;
    /// The block's parameters in a configuration.
    fn params(cfg: &Config) -> Self::Params;
    /// The Verilog module name for `p`.
    fn module_name(_p: &Self::Params) -> String {
        Self::NAME.to_string()
    }
    fn model(p: &Self::Params) -> Self::Model;
    fn golden(p: &Self::Params) -> Self::Golden;
}

/// A block of the models registry, with its types erased.
#[derive(Clone, Copy)]
pub struct BlockInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub registered_outputs: bool,
    /// The Verilog module name in a configuration.
    pub module_name: fn(&Config) -> String,
    /// The input ports in a configuration (besides `clock`).
    pub inputs: fn(&Config) -> Vec<PortSpec>,
    /// The output ports in a configuration.
    pub outputs: fn(&Config) -> Vec<PortSpec>,
    /// The block's parameters in a configuration, `key=value` separated by spaces.
    pub describe: fn(&Config) -> String,
}

impl BlockInfo {
    /// The registry entry of `B`.
    pub fn of<B: BlockSpec>() -> BlockInfo {
        BlockInfo {
            name: B::NAME,
            description: B::DESCRIPTION,
            registered_outputs: B::REGISTERED_OUTPUTS,
            module_name: |c| B::module_name(&B::params(c)),
            inputs: |c| B::In::specs(&B::params(c)),
            outputs: |c| B::Out::specs(&B::params(c)),
            describe: |c| B::params(c).describe(),
        }
    }
}

impl Debug for BlockInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockInfo")
            .field("name", &self.name)
            .finish()
    }
}

/// Every block, in the order of every table and of `netcoll gen`'s output.
pub fn blocks() -> Vec<BlockInfo> {
    vec![
        BlockInfo::of::<crate::switch_engine::SwitchEngine>(),
        BlockInfo::of::<crate::nic::Nic>(),
        BlockInfo::of::<crate::reduce_alu::ReduceAlu>(),
    ]
}

/// The registry entry called `name`.
pub fn block(name: &str) -> Option<BlockInfo> {
    blocks().into_iter().find(|b| b.name == name)
}
