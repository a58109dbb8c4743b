//! # Lockstep
//!
//! [`Lockstep`] runs a reference design and a design under test on the same inputs and compares
//! every output every cycle. It is itself a [`CycleSim`] that answers with the reference's
//! outputs, so any driver — a block's transactor, a scenario runner, random stimulus — runs a
//! lockstep pair exactly as it runs one design.
//!
//! On the first difference it keeps a [`Mismatch`]: the cycle, the first differing signal (in
//! port order), the expected and actual values, the last [`Lockstep::HISTORY`] cycles of
//! inputs and both designs' outputs, and — when given a directory — a VCD of those cycles
//! with scopes `reference` and `dut` side by side.

use super::vcd::Recording;
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::kit::ports::{PortSpec, PortValues};
use std::collections::VecDeque;
use std::fmt;
use std::path::PathBuf;

/// One recorded cycle: the inputs and both designs' outputs, as port values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleRecord {
    pub cycle: u64,
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
    pub actual: Vec<u64>,
}

/// The first difference between two designs run in lockstep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// `reference vs dut` names.
    pub designs: String,
    pub cycle: u64,
    pub signal: String,
    pub expected: u64,
    pub actual: u64,
    pub input_ports: Vec<PortSpec>,
    pub output_ports: Vec<PortSpec>,
    /// The last cycles up to and including the mismatch, oldest first.
    pub history: Vec<CycleRecord>,
    /// The VCD of `history`, if one was written.
    pub vcd: Option<PathBuf>,
}

/// `name=value` for every nonzero value, `!` before outputs that differ.
fn fields(ports: &[PortSpec], v: &[u64], other: Option<&[u64]>) -> String {
    let mut s = String::new();
    for (k, (p, x)) in ports.iter().zip(v).enumerate() {
        let differs = other.is_some_and(|o| o.get(k) != Some(x));
        if *x != 0 || differs {
            if !s.is_empty() {
                s.push(' ');
            }
            let bang = if differs { "!" } else { "" };
            s.push_str(&format!("{bang}{}={x:#x}", p.name));
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: cycle {}: signal {} expected {:#x}, actual {:#x}",
            self.designs, self.cycle, self.signal, self.expected, self.actual
        )?;
        writeln!(
            f,
            "\n  last {} cycles (nonzero values; ! = differs):",
            self.history.len()
        )?;
        for r in &self.history {
            writeln!(f, "  cycle {}:", r.cycle)?;
            writeln!(
                f,
                "    in:        {}",
                fields(&self.input_ports, &r.inputs, None)
            )?;
            writeln!(
                f,
                "    reference: {}",
                fields(&self.output_ports, &r.expected, None)
            )?;
            writeln!(
                f,
                "    dut:       {}",
                fields(&self.output_ports, &r.actual, Some(&r.expected))
            )?;
        }
        match &self.vcd {
            Some(p) => write!(f, "  waveform of these cycles: {}", p.display()),
            None => write!(f, "  (no waveform written)"),
        }
    }
}

/// Two designs in lockstep (see the [module docs](self)).
pub struct Lockstep<I: PortValues, O: PortValues<Params = I::Params>> {
    params: I::Params,
    reference: Box<dyn CycleSim<In = I, Out = O>>,
    dut: Box<dyn CycleSim<In = I, Out = O>>,
    designs: String,
    input_ports: Vec<PortSpec>,
    output_ports: Vec<PortSpec>,
    cycle: u64,
    history: VecDeque<CycleRecord>,
    first: Option<Mismatch>,
    /// Where the VCD of a mismatch goes (a file name is chosen inside).
    vcd_dir: Option<PathBuf>,
}

impl<I: PortValues, O: PortValues<Params = I::Params>> Lockstep<I, O>
where
    I::Params: Clone,
{
    /// Cycles kept for a mismatch report.
    pub const HISTORY: usize = 12;

    /// `reference` and `dut` (called `designs`, e.g. `cycle model vs verilator`) in lockstep.
    pub fn new(
        params: I::Params,
        reference: Box<dyn CycleSim<In = I, Out = O>>,
        dut: Box<dyn CycleSim<In = I, Out = O>>,
        designs: impl Into<String>,
    ) -> Self {
        Lockstep {
            input_ports: I::specs(&params),
            output_ports: O::specs(&params),
            params,
            reference,
            dut,
            designs: designs.into(),
            cycle: 0,
            history: VecDeque::with_capacity(Self::HISTORY),
            first: None,
            vcd_dir: None,
        }
    }

    /// On a mismatch, also write the VCD of the last cycles into `dir` (created if missing).
    pub fn with_vcd_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.vcd_dir = Some(dir.into());
        self
    }

    /// Cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// The first mismatch so far.
    pub fn mismatch(&self) -> Option<&Mismatch> {
        self.first.as_ref()
    }

    /// The cycles run, or the first mismatch.
    pub fn finish(self) -> Result<u64, Box<Mismatch>> {
        match self.first {
            Some(m) => Err(Box::new(m)),
            None => Ok(self.cycle),
        }
    }

    fn record_mismatch(&mut self) {
        let Some(last) = self.history.back() else {
            return;
        };
        let k = (0..last.expected.len())
            .find(|&k| last.expected[k] != last.actual[k])
            .unwrap_or(0);
        let mut m = Mismatch {
            designs: self.designs.clone(),
            cycle: last.cycle,
            signal: self
                .output_ports
                .get(k)
                .map_or(String::new(), |p| p.name.clone()),
            expected: last.expected[k],
            actual: last.actual[k],
            input_ports: self.input_ports.clone(),
            output_ports: self.output_ports.clone(),
            history: self.history.iter().cloned().collect(),
            vcd: None,
        };
        if let Some(dir) = &self.vcd_dir {
            let file = dir.join(format!(
                "mismatch-{}-cycle{}.vcd",
                self.designs
                    .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
                m.cycle
            ));
            m.vcd = write_window(&file, &m).ok();
        }
        self.first = Some(m);
    }
}

/// The VCD of a mismatch's cycles: scopes `reference` and `dut`, each with the inputs and its
/// outputs.
fn write_window(path: &std::path::Path, m: &Mismatch) -> std::io::Result<PathBuf> {
    let mut ports = m.input_ports.clone();
    ports.extend(m.output_ports.iter().cloned());
    let mut a = Recording::new(vec!["reference".into()], ports.clone());
    let mut b = Recording::new(vec!["dut".into()], ports);
    for r in &m.history {
        let x: Vec<u64> = r.inputs.iter().chain(&r.expected).copied().collect();
        let y: Vec<u64> = r.inputs.iter().chain(&r.actual).copied().collect();
        a.push(&x);
        b.push(&y);
    }
    super::vcd::write(path, &[a, b])?;
    Ok(path.to_path_buf())
}

impl<I: PortValues, O: PortValues<Params = I::Params>> CycleSim for Lockstep<I, O>
where
    I::Params: Clone,
{
    type In = I;
    type Out = O;
    fn step(&mut self, i: &I) -> O {
        let a = self.reference.step(i);
        let b = self.dut.step(i);
        if self.first.is_none() {
            // Reuse the oldest record's vectors: this runs every cycle of long runs.
            let mut r = if self.history.len() == Self::HISTORY {
                self.history.pop_front()
            } else {
                None
            }
            .unwrap_or_else(|| CycleRecord {
                cycle: 0,
                inputs: vec![0; self.input_ports.len()],
                expected: vec![0; self.output_ports.len()],
                actual: vec![0; self.output_ports.len()],
            });
            r.cycle = self.cycle;
            i.write_values(&self.params, &mut r.inputs);
            a.write_values(&self.params, &mut r.expected);
            b.write_values(&self.params, &mut r.actual);
            self.history.push_back(r);
            if a != b {
                self.record_mismatch();
            }
        }
        self.cycle += 1;
        a
    }
    fn peek(&mut self) -> O {
        self.reference.peek()
    }
}
