//! # One clock convention
//!
//! Every cycle-level view of a block — the cycle model, the rust-hdl RTL, the Verilog under
//! Verilator — is driven the same way, one call per clock cycle:
//!
//! 1. the harness applies this cycle's inputs `i`;
//! 2. the outputs settle (an output may depend combinationally on `i`, e.g. a `ready` that is
//!    low while a higher-priority port is valid) and are sampled;
//! 3. the rising clock edge happens: registers and memories take their next values.
//!
//! [`CycleSim::step`] does all three and returns the sampled outputs: "the outputs during the
//! cycle in which `i` was applied". A transfer on a valid/ready pair happens in a cycle where
//! both are high in the same `step`.
//!
//! A driver that must see the outputs of a cycle before it chooses that cycle's inputs (a
//! host model reacting to a registered `ready`) calls [`CycleSim::peek`] first. For a block
//! whose outputs depend on registers only ([`BlockSpec::REGISTERED_OUTPUTS`]), `peek` returns
//! exactly what the following `step` will return, whatever its inputs.
//!
//! [`BlockSpec::REGISTERED_OUTPUTS`]: crate::kit::block::BlockSpec::REGISTERED_OUTPUTS

use super::ports::PortValues;

/// A design simulated one clock cycle at a time (see the [module docs](self)).
pub trait CycleSim {
    type In: PortValues;
    type Out: PortValues;
    /// One clock cycle: applies `i`, returns the settled outputs, then applies the rising edge.
    fn step(&mut self, i: &Self::In) -> Self::Out;
    /// The outputs as they are after the last edge, with the last cycle's inputs still applied.
    /// For a block with registered outputs these are the next cycle's outputs.
    fn peek(&mut self) -> Self::Out;
}

impl<T: CycleSim + ?Sized> CycleSim for Box<T> {
    type In = T::In;
    type Out = T::Out;
    fn step(&mut self, i: &Self::In) -> Self::Out {
        (**self).step(i)
    }
    fn peek(&mut self) -> Self::Out {
        (**self).peek()
    }
}

/// The same convention on value vectors (ports in [`PortValues::specs`] order), for levels that
/// are not plain Rust: the rust-hdl RTL and the Verilog under Verilator.
pub trait ValueSim {
    /// One clock cycle: `inputs` applied, outputs settled and written to `outputs`, rising edge.
    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]);
    /// The outputs after the last edge (see [`CycleSim::peek`]).
    fn peek_values(&mut self, outputs: &mut [u64]);
}

impl<T: ValueSim + ?Sized> ValueSim for Box<T> {
    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        (**self).step_values(inputs, outputs)
    }
    fn peek_values(&mut self, outputs: &mut [u64]) {
        (**self).peek_values(outputs)
    }
}

/// A [`ValueSim`] seen through a block's port structs.
pub struct Typed<I: PortValues, O: PortValues<Params = I::Params>, S: ValueSim> {
    params: I::Params,
    sim: S,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    _o: std::marker::PhantomData<O>,
}

impl<I: PortValues, O: PortValues<Params = I::Params>, S: ValueSim> Typed<I, O, S> {
    pub fn new(params: I::Params, sim: S) -> Self {
        let inputs = vec![0; I::specs(&params).len()];
        let outputs = vec![0; O::specs(&params).len()];
        Typed {
            params,
            sim,
            inputs,
            outputs,
            _o: std::marker::PhantomData,
        }
    }
    pub fn inner(&mut self) -> &mut S {
        &mut self.sim
    }
}

impl<I: PortValues, O: PortValues<Params = I::Params>, S: ValueSim> CycleSim for Typed<I, O, S> {
    type In = I;
    type Out = O;
    fn step(&mut self, i: &I) -> O {
        i.write_values(&self.params, &mut self.inputs);
        self.sim.step_values(&self.inputs, &mut self.outputs);
        O::from_values(&self.params, &self.outputs)
    }
    fn peek(&mut self) -> O {
        self.sim.peek_values(&mut self.outputs);
        O::from_values(&self.params, &self.outputs)
    }
}
