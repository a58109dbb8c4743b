//! # The memory read path and write bypass (module `switch_engine_bypass`)
//!
//! The table and state memories read before they write and their read is registered, so the
//! word stage 0 asks for misses the writes stage 2 makes in the two following edges. This
//! block registers the memories' read data once more (the RAM output register) and
//! substitutes the missed writes, with the CGID compares made in stage 1, a cycle before the
//! words are used: in stage 2 the entry is a 2:1 mux and the state a 3:1 mux, both with
//! registered selects (see the cycle model's micro-architecture in
//! `netcoll_models::switch_engine::model`).
//!
//! - The **table** is written only by a configuration `Write`, whose entry is in a register
//!   from stage 0 on, so its bypass is resolved completely in stage 1: the newest entry written
//!   to the CGID by the operation now in stage 2 or by the one before (`byp1`) is registered
//!   (`e_byp`, `e_use_byp`).
//! - The **state** written by a packet is decided in stage 2, late; so stage 1 only registers
//!   which of the two writes to use (`sel1`: the one stage 2 makes at this edge, which will be
//!   in `byp1_st`; `sel2`: the one `byp1` holds now, which will be in `byp2_st`).
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; clears the valid bits and selects);
//! - `tbl_rd` (EW), `st_rd` (SW): the memories' read data (the words of stage 1's CGID);
//! - `s1_cgid` (G): the CGID of the operation in stage 1;
//! - `s2_cgid` (G), `s2_wr_tbl`, `s2_wr_st`: stage 2's operation, and whether it writes the
//!   table / the state at the end of this cycle;
//! - `s2_entry` (EW): the entry it writes;
//! - `byp1_st` (SW): the state stage 2 wrote at the last edge (the parent's register `byp1_st`:
//!   the state is decided in stage 2, so it is registered beside the decision, and this block
//!   takes no combinational input from it).
//!
//! # Outputs
//! - `tbl_word` (EW), `st_word` (SW): the entry and state of stage 2's CGID, as every earlier
//!   operation left them.

use crate::dff_setup;
use crate::prim::Reg;
use rust_hdl::prelude::*;

/// The read path and write bypass for `G`-bit CGIDs, `EW`-bit entries and `SW`-bit states.
#[derive(LogicBlock, Default)]
pub struct SwitchEngineBypass<const G: usize, const EW: usize, const SW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub tbl_rd: Signal<In, Bits<EW>>,
    pub st_rd: Signal<In, Bits<SW>>,
    pub s1_cgid: Signal<In, Bits<G>>,
    pub s2_cgid: Signal<In, Bits<G>>,
    pub s2_wr_tbl: Signal<In, bool>,
    pub s2_wr_st: Signal<In, bool>,
    pub s2_entry: Signal<In, Bits<EW>>,
    pub byp1_st: Signal<In, Bits<SW>>,
    pub tbl_word: Signal<Out, Bits<EW>>,
    pub st_word: Signal<Out, Bits<SW>>,

    /// The memories' output registers.
    tbl_q: Reg<Bits<EW>>,
    st_q: Reg<Bits<SW>>,
    /// The table bypass, resolved in stage 1.
    e_use_byp: Reg<bool>,
    e_byp: Reg<Bits<EW>>,
    /// The state bypass selects, compared in stage 1.
    sel1: Reg<bool>,
    sel2: Reg<bool>,
    /// What stage 2 wrote at the last edge (the state is the input `byp1_st`) …
    byp1_cgid: Reg<Bits<G>>,
    byp1_tbl_valid: Reg<bool>,
    byp1_st_valid: Reg<bool>,
    byp1_tbl: Reg<Bits<EW>>,
    /// … and the state it wrote at the edge before.
    byp2_st: Reg<Bits<SW>>,

    /// Stage 1's CGID equals stage 2's / `byp1`'s.
    hit1: Signal<Local, bool>,
    hit2: Signal<Local, bool>,
    hit1_tbl: Signal<Local, bool>,
}

impl<const G: usize, const EW: usize, const SW: usize> Logic for SwitchEngineBypass<G, EW, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tbl_q,
            st_q,
            e_use_byp,
            e_byp,
            sel1,
            sel2,
            byp1_cgid,
            byp1_tbl_valid,
            byp1_st_valid,
            byp1_tbl,
            byp2_st
        );
        // Stage 1: register the read data and compare the CGIDs.
        self.tbl_q.d.next = self.tbl_rd.val();
        self.st_q.d.next = self.st_rd.val();
        self.hit1.next = self.s1_cgid.val() == self.s2_cgid.val();
        self.hit2.next = self.s1_cgid.val() == self.byp1_cgid.q.val();
        self.hit1_tbl.next = self.hit1.val() & self.s2_wr_tbl.val();
        self.e_use_byp.d.next =
            self.hit1_tbl.val() | (self.hit2.val() & self.byp1_tbl_valid.q.val());
        self.e_byp.d.next = self.byp1_tbl.q.val();
        if self.hit1_tbl.val() {
            self.e_byp.d.next = self.s2_entry.val();
        }
        self.sel1.d.next = self.hit1.val() & self.s2_wr_st.val();
        self.sel2.d.next = self.hit2.val() & self.byp1_st_valid.q.val();

        // Stage 2: the words, newest write first.
        self.tbl_word.next = self.tbl_q.q.val();
        if self.e_use_byp.q.val() {
            self.tbl_word.next = self.e_byp.q.val();
        }
        self.st_word.next = self.st_q.q.val();
        if self.sel1.q.val() {
            self.st_word.next = self.byp1_st.val();
        } else if self.sel2.q.val() {
            self.st_word.next = self.byp2_st.q.val();
        }

        // Stage 2's writes, kept for the next two operations.
        self.byp1_cgid.d.next = self.s2_cgid.val();
        self.byp1_tbl_valid.d.next = self.s2_wr_tbl.val();
        self.byp1_st_valid.d.next = self.s2_wr_st.val();
        self.byp1_tbl.d.next = self.s2_entry.val();
        self.byp2_st.d.next = self.byp1_st.val();
    }
}
