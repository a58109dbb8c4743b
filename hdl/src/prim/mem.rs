//! A single-port-read, single-port-write memory of `2^N` words with a registered read.
//!
//! # Inputs
//! - `clock`: rising-edge clock of both ports.
//! - `rd_addr`: read address, sampled at the edge.
//! - `wr_en`, `wr_addr`, `wr_data`: write port; the write happens at the edge.
//!
//! # Outputs
//! - `rd_data`: the word at the `rd_addr` of the previous edge, as it was *before* that edge's
//!   write (read-before-write): a block that reads what it just wrote must bypass.
//!
//! There is no reset: memories the size of a forwarding table are cleared by the block that owns
//! them (one word per cycle after reset), as a real table RAM would be.
//!
//! [`Mem::distributed`] builds one that FPGA flows are told to put in LUT RAM (the Verilog
//! attribute `ram_style = "distributed"`, which Yosys honours): a small queue that an FPGA tool
//! would otherwise put in a block RAM, whose read without an output register costs about half
//! of an 8 ns cycle on an ECP5.

use super::PRIMITIVE_MARK;
use rust_hdl::prelude::*;

#[derive(Clone, Debug, LogicBlock)]
pub struct Mem<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rd_addr: Signal<In, Bits<N>>,
    pub rd_data: Signal<Out, D>,
    pub wr_en: Signal<In, bool>,
    pub wr_addr: Signal<In, Bits<N>>,
    pub wr_data: Signal<In, D>,
    _words: Vec<D>,
    /// Meant for LUT RAM (see [`Mem::distributed`]).
    _distributed: bool,
}

impl<D: Synth, const N: usize> Default for Mem<D, N> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            _words: vec![D::default(); 1 << N],
            _distributed: false,
        }
    }
}

impl<D: Synth, const N: usize> Mem<D, N> {
    /// The same memory, marked for LUT (distributed) RAM in the emitted Verilog.
    pub fn distributed() -> Self {
        Self {
            _distributed: true,
            ..Self::default()
        }
    }
}

impl<D: Synth, const N: usize> Logic for Mem<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.rd_data.next = self._words[self.rd_addr.val().index()];
            if self.wr_en.val() {
                self._words[self.wr_addr.val().index()] = self.wr_data.val();
            }
        }
    }
    fn connect(&mut self) {
        self.rd_data.connect();
    }
    fn hdl(&self) -> Verilog {
        let style = if self._distributed {
            " distributed"
        } else {
            ""
        };
        Verilog::Custom(format!(
            "{PRIMITIVE_MARK}mem{style}\nreg [{dw}:0] words [0:{last}];\nalways @(posedge clock) begin\n    rd_data <= words[rd_addr];\n    if (wr_en) words[wr_addr] <= wr_data;\nend\n",
            dw = D::BITS - 1,
            last = (1usize << N) - 1
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "mem".into(),
            clock: "clock".into(),
            inputs: vec![
                "rd_addr".into(),
                "wr_en".into(),
                "wr_addr".into(),
                "wr_data".into(),
            ],
            outputs: vec!["rd_data".into()],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_reads_before_write() {
        let mut m = Mem::<Bits<8>, 2>::default();
        m.connect_all();
        let edge = |m: &mut Mem<Bits<8>, 2>, rd: u64, we: bool, wa: u64, wd: u64| {
            m.rd_addr.next = rd.into();
            m.wr_en.next = we;
            m.wr_addr.next = wa.into();
            m.wr_data.next = wd.into();
            m.clock.next = Clock { clk: false };
            simulate(m, 10);
            m.clock.next = Clock { clk: true };
            simulate(m, 10);
            m.rd_data.val().to_u64()
        };
        assert_eq!(
            edge(&mut m, 1, true, 1, 0x42),
            0,
            "same-edge read sees the old word"
        );
        assert_eq!(edge(&mut m, 1, false, 0, 0), 0x42);
        assert_eq!(edge(&mut m, 3, true, 3, 7), 0);
        assert_eq!(edge(&mut m, 3, false, 0, 0), 7);
    }
}
