//! # Waveforms
//!
//! Cycle-level runs written as Value Change Dump files that GTKWave (or any VCD reader)
//! opens. A [`Tracer`] taps designs ([`Tracer::tap`]): each tapped design records its ports
//! every cycle into a [`Recording`] with a scope path such as `model / switch_engine /
//! root_barrier`; [`Tracer::write`] then writes every recording into one file, all starting
//! at time 0, so that the same run at different levels lines up cycle for cycle.
//!
//! Signals keep the names of the emitted Verilog: inside its scope a design has `clock` and
//! every port, named as in the module. Scopes nest under a top scope `netcoll`.
//!
//! Time: `$timescale 1 ns`, one clock cycle every 10 ns. In cycle `c` the inputs and the
//! settled outputs change at `10 c` with `clock` low; the rising edge is at `10 c + 5`. So a
//! value seen at an edge is the one sampled in that cycle, as in a Verilog testbench.
//!
//! Recordings keep changes only, so long runs with little activity stay small. The files are
//! written with the `vcd` crate and read back, in the tests, by an independent reader
//! (`wellen`, the parser of the Surfer waveform viewer).

use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::kit::ports::{mask, PortSpec, PortValues};
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use std::rc::Rc;
use vcd::{IdCode, TimescaleUnit, Value};

/// Nanoseconds per clock cycle in the files.
pub const CYCLE_NS: u64 = 10;

/// One design's run: its scope path, its ports and the changes of their values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recording {
    /// Scope names below `netcoll`, outermost first (each a legal identifier).
    pub path: Vec<String>,
    /// Inputs then outputs.
    pub ports: Vec<PortSpec>,
    /// Cycles recorded.
    pub cycles: u64,
    /// (cycle, port index, new value), in cycle order.
    pub changes: Vec<(u64, u32, u64)>,
    last: Vec<Option<u64>>,
}

impl Recording {
    pub fn new(path: Vec<String>, ports: Vec<PortSpec>) -> Recording {
        Recording {
            last: vec![None; ports.len()],
            path,
            ports,
            ..Default::default()
        }
    }

    /// Records one cycle's port values (in `ports` order).
    pub fn push(&mut self, values: &[u64]) {
        for (k, (&v, p)) in values.iter().zip(&self.ports).enumerate() {
            let v = v & mask(p.width);
            if self.last[k] != Some(v) {
                self.last[k] = Some(v);
                self.changes.push((self.cycles, k as u32, v));
            }
        }
        self.cycles += 1;
    }

    /// The value of port `name` in `cycle` (for tests and reports).
    pub fn value(&self, name: &str, cycle: u64) -> Option<u64> {
        let k = self.ports.iter().position(|p| p.name == name)? as u32;
        self.changes
            .iter()
            .rev()
            .find(|(c, p, _)| *p == k && *c <= cycle)
            .map(|(_, _, v)| *v)
    }
}

/// A collection of recordings, shared by the designs it taps (cheap to clone).
#[derive(Clone, Debug, Default)]
pub struct Tracer {
    recordings: Rc<RefCell<Vec<Recording>>>,
}

/// `s` as a VCD scope name: letters, digits and `_` only.
pub fn scope_name(s: &str) -> String {
    let n: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if n.is_empty() {
        "_".into()
    } else {
        n
    }
}

impl Tracer {
    pub fn new() -> Tracer {
        Tracer::default()
    }

    /// `sim` recording every cycle into a new recording at `path` (names are made legal).
    pub fn tap<S>(&self, sim: S, params: <S::In as PortValues>::Params, path: &[&str]) -> Tap<S>
    where
        S: CycleSim,
        S::Out: PortValues<Params = <S::In as PortValues>::Params>,
    {
        let mut ports = S::In::specs(&params);
        let n_in = ports.len();
        ports.extend(S::Out::specs(&params));
        let width = ports.len();
        let mut recs = self.recordings.borrow_mut();
        recs.push(Recording::new(
            path.iter().map(|s| scope_name(s)).collect(),
            ports,
        ));
        Tap {
            sim,
            params,
            tracer: self.clone(),
            index: recs.len() - 1,
            n_in,
            values: vec![0; width],
        }
    }

    /// A copy of every recording so far.
    pub fn recordings(&self) -> Vec<Recording> {
        self.recordings.borrow().clone()
    }

    /// Writes every recording into `path` (see the [module docs](self)).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        write(path, &self.recordings.borrow())
    }
}

/// A tapped design (see [`Tracer::tap`]).
pub struct Tap<S: CycleSim> {
    sim: S,
    params: <S::In as PortValues>::Params,
    tracer: Tracer,
    index: usize,
    n_in: usize,
    values: Vec<u64>,
}

impl<S> CycleSim for Tap<S>
where
    S: CycleSim,
    S::Out: PortValues<Params = <S::In as PortValues>::Params>,
{
    type In = S::In;
    type Out = S::Out;
    fn step(&mut self, i: &S::In) -> S::Out {
        let o = self.sim.step(i);
        let (a, b) = self.values.split_at_mut(self.n_in);
        i.write_values(&self.params, a);
        o.write_values(&self.params, b);
        if let Some(r) = self.tracer.recordings.borrow_mut().get_mut(self.index) {
            r.push(&self.values);
        }
        o
    }
    fn peek(&mut self) -> S::Out {
        self.sim.peek()
    }
}

fn bits(v: u64, width: usize) -> impl Iterator<Item = Value> {
    (0..width).rev().map(move |b| {
        if (v >> b) & 1 == 1 {
            Value::V1
        } else {
            Value::V0
        }
    })
}

/// Declares the scopes of `recs` (a tree below `netcoll`); returns each recording's clock and
/// port ids.
fn declare(
    w: &mut vcd::Writer<BufWriter<File>>,
    recs: &[Recording],
) -> io::Result<Vec<(IdCode, Vec<IdCode>)>> {
    let mut ids = vec![None; recs.len()];
    // Recordings sorted by path, so that shared prefixes are opened once.
    let mut order: Vec<usize> = (0..recs.len()).collect();
    order.sort_by(|&a, &b| recs[a].path.cmp(&recs[b].path));
    let mut open: Vec<String> = vec![];
    for &r in &order {
        let path = &recs[r].path;
        let common = open.iter().zip(path).take_while(|(a, b)| a == b).count();
        // A recording's own scope is never shared: close it even if the next has the same
        // path (a duplicate path gets a second scope of the same name).
        let keep = common.min(path.len().saturating_sub(1));
        for _ in keep..open.len() {
            w.upscope()?;
        }
        open.truncate(keep);
        for name in &path[keep..] {
            w.add_module(name)?;
            open.push(name.clone());
        }
        let clock = w.add_wire(1, "clock")?;
        let mut ports = vec![];
        for p in &recs[r].ports {
            ports.push(w.add_wire(p.width as u32, &p.name)?);
        }
        ids[r] = Some((clock, ports));
    }
    for _ in 0..open.len() {
        w.upscope()?;
    }
    Ok(ids.into_iter().flatten().collect())
}

/// Writes `recs` into the VCD file `path`, every recording starting at time 0.
pub fn write(path: &Path, recs: &[Recording]) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut w = vcd::Writer::new(BufWriter::new(File::create(path)?));
    w.version("netcoll")?;
    w.timescale(1, TimescaleUnit::NS)?;
    w.add_module("netcoll")?;
    let ids = declare(&mut w, recs)?;
    w.upscope()?;
    w.enddefinitions()?;
    let end = recs.iter().map(|r| r.cycles).max().unwrap_or(0);
    let mut next = vec![0usize; recs.len()];
    for t in 0..end {
        w.timestamp(t * CYCLE_NS)?;
        for (k, r) in recs.iter().enumerate() {
            if t >= r.cycles {
                continue;
            }
            let (clock, ports) = &ids[k];
            w.change_scalar(*clock, Value::V0)?;
            while let Some(&(c, p, v)) = r.changes.get(next[k]) {
                if c != t {
                    break;
                }
                let width = r.ports[p as usize].width;
                let id = ports[p as usize];
                if width == 1 {
                    w.change_scalar(id, if v == 1 { Value::V1 } else { Value::V0 })?;
                } else {
                    w.change_vector(id, bits(v, width))?;
                }
                next[k] += 1;
            }
        }
        w.timestamp(t * CYCLE_NS + CYCLE_NS / 2)?;
        for (k, r) in recs.iter().enumerate() {
            if t < r.cycles {
                w.change_scalar(ids[k].0, Value::V1)?;
            }
        }
    }
    w.timestamp(end * CYCLE_NS)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_keep_changes_only() {
        let mut r = Recording::new(
            vec!["x".into()],
            vec![PortSpec::new("a", 1), PortSpec::new("b", 4)],
        );
        r.push(&[1, 3]);
        r.push(&[1, 3]);
        r.push(&[0, 0x13]);
        assert_eq!(r.cycles, 3);
        // 0x13 is 3 at 4 bits: no change.
        assert_eq!(r.changes, vec![(0, 0, 1), (0, 1, 3), (2, 0, 0)]);
        assert_eq!(r.value("b", 1), Some(3));
        assert_eq!(r.value("a", 2), Some(0));
        assert_eq!(scope_name("cycle model"), "cycle_model");
    }
}
