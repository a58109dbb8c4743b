//! # The memory read path and write bypass (module `switch_engine_bypass`)
//!
//! The table and state memories read before they write and their read is registered, so the
//! word stage 0 asks for misses the writes stage 3 makes at the three following edges. This
//! block registers the memories' read data once more (the RAM output register) and
//! substitutes the missed writes, with the CGID compares made a stage or two before the words
//! are used (see the cycle model's micro-architecture in
//! `netcoll_models::switch_engine::model`).
//!
//! - The **table** is written only by a configuration `Write`, whose entry is in a register
//!   from stage 1 on, so its bypass is resolved completely in stage 1: the newest entry written
//!   to the CGID by the operations now in stages 2 and 3 or by the one before (`byp1`) is
//!   registered (`e_byp`, `e_use_byp`), and in stage 2 the entry is a 2:1 mux with a
//!   registered select.
//! - The **state** written by a packet is decided in stage 3, late, and the next operation
//!   needs it at once. The decision goes into a register (`byp1_st`) and the memory is
//!   written from there at the next edge (`st_wr_*`), so that the decision's loop ends in
//!   flip-flops, not at a RAM's write port; a read so misses four writes. Stage 1 compares
//!   with the three older: the two oldest are in registers then (`byp1`, `byp2`), and the
//!   newer of them to hit is registered (`old_st`, with `pre_old`; not the read data, which
//!   comes late from a block RAM), the next is stage 3's (`pre_byp1`); stage 2 registers the
//!   state as they and the memory left it (`st_pre`) and compares with the operation in
//!   stage 3 (`sel1`), and in stage 3 the state is a 2:1 mux whose one input on the loop from
//!   one packet's decision to the next is `byp1_st`.
//!
//! # Inputs
//! - `clock`, `reset` (synchronous; clears the valid bits and selects);
//! - `tbl_rd` (EW), `st_rd` (SW): the memories' read data (the words of stage 1's CGID);
//! - `s1_cgid` (G), `s2_cgid` (G): the CGIDs of the operations in stages 1 and 2;
//! - `s2_wr_tbl`, `s2_entry` (EW): stage 2's operation will write the table, with this entry;
//! - `s3_cgid` (G), `s3_wr_tbl`, `s3_wr_st`, `s3_entry` (EW): stage 3's operation, and whether
//!   it writes the table / the state at the end of this cycle;
//! - `byp1_st` (SW): the state stage 3 wrote at the last edge (the parent's register
//!   `byp1_st`: the state is decided in stage 3, so it is registered beside the decision).
//!
//! # Outputs
//! - `st_wr_en`, `st_wr_addr` (G): write `byp1_st` to the state memory at this edge (what stage 3
//!   wrote to `byp1_st` at the last);
//! - `tbl_word` (EW): the entry of stage 2's CGID, as every earlier operation left it;
//! - `st_older` (SW): the state of stage 2's CGID as every write but the one stage 3 makes at
//!   the end of this cycle left it (what `st_pre` registers);
//! - `st_newest`: stage 3's state is the newest write, `byp1_st`, not `st_pre`;
//! - `st_word` (SW): the state of stage 3's CGID, as every earlier operation left it.

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
    pub s2_entry: Signal<In, Bits<EW>>,
    pub s3_cgid: Signal<In, Bits<G>>,
    pub s3_wr_tbl: Signal<In, bool>,
    pub s3_wr_st: Signal<In, bool>,
    pub s3_entry: Signal<In, Bits<EW>>,
    pub byp1_st: Signal<In, Bits<SW>>,
    pub tbl_word: Signal<Out, Bits<EW>>,
    pub st_older: Signal<Out, Bits<SW>>,
    pub st_newest: Signal<Out, bool>,
    pub st_word: Signal<Out, Bits<SW>>,
    pub st_wr_en: Signal<Out, bool>,
    pub st_wr_addr: Signal<Out, Bits<G>>,

    /// The memories' output registers.
    tbl_q: Reg<Bits<EW>>,
    st_q: Reg<Bits<SW>>,
    /// The table bypass, resolved in stage 1.
    e_use_byp: Reg<bool>,
    e_byp: Reg<Bits<EW>>,
    /// Stage 2's state is `byp1_st` / `old_st` rather than `st_q` (compared in stage 1), and
    /// `old_st` is the newer of the writes in `byp1` and `byp2` during stage 1 to hit.
    pre_byp1: Reg<bool>,
    pre_old: Reg<bool>,
    old_st: Reg<Bits<SW>>,
    /// Stage 3's state as every write but the newest left it …
    st_pre: Reg<Bits<SW>>,
    /// … and whether the newest, the one stage 3 made at the last edge, replaces it.
    sel1: Reg<bool>,
    /// What stage 3 wrote at the last edge (the state is the input `byp1_st`) …
    byp1_cgid: Reg<Bits<G>>,
    byp1_tbl_valid: Reg<bool>,
    byp1_st_valid: Reg<bool>,
    byp1_tbl: Reg<Bits<EW>>,
    /// … and the state it wrote at the edge before, which the memory takes at this edge.
    byp2_cgid: Reg<Bits<G>>,
    byp2_st_valid: Reg<bool>,
    byp2_st: Reg<Bits<SW>>,

    /// Stage 1's CGID equals stage 2's / stage 3's / `byp1`'s, and that operation writes the
    /// table.
    hit2_tbl: Signal<Local, bool>,
    hit3_tbl: Signal<Local, bool>,
    hit3: Signal<Local, bool>,
    hit_byp1: Signal<Local, bool>,
    hit_byp2: Signal<Local, bool>,
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
            pre_byp1,
            pre_old,
            old_st,
            st_pre,
            sel1,
            byp1_cgid,
            byp1_tbl_valid,
            byp1_st_valid,
            byp1_tbl,
            byp2_cgid,
            byp2_st_valid,
            byp2_st
        );
        // Stage 1: register the read data and compare the CGIDs.
        self.tbl_q.d.next = self.tbl_rd.val();
        self.hit2_tbl.next = (self.s1_cgid.val() == self.s2_cgid.val()) & self.s2_wr_tbl.val();
        self.hit3.next = self.s1_cgid.val() == self.s3_cgid.val();
        self.hit3_tbl.next = self.hit3.val() & self.s3_wr_tbl.val();
        self.hit_byp1.next = self.s1_cgid.val() == self.byp1_cgid.q.val();
        self.e_use_byp.d.next = self.hit2_tbl.val()
            | self.hit3_tbl.val()
            | (self.hit_byp1.val() & self.byp1_tbl_valid.q.val());
        self.e_byp.d.next = self.byp1_tbl.q.val();
        if self.hit2_tbl.val() {
            self.e_byp.d.next = self.s2_entry.val();
        } else if self.hit3_tbl.val() {
            self.e_byp.d.next = self.s3_entry.val();
        }
        self.pre_byp1.d.next = self.hit3.val() & self.s3_wr_st.val();
        // The two oldest writes the read missed, newest first.
        self.hit_byp2.next = self.s1_cgid.val() == self.byp2_cgid.q.val();
        self.st_q.d.next = self.st_rd.val();
        self.pre_old.d.next = (self.hit_byp1.val() & self.byp1_st_valid.q.val())
            | (self.hit_byp2.val() & self.byp2_st_valid.q.val());
        self.old_st.d.next = self.byp2_st.q.val();
        if self.hit_byp1.val() & self.byp1_st_valid.q.val() {
            self.old_st.d.next = self.byp1_st.val();
        }

        // Stage 2: the entry; the state but for stage 3's write, and whether that replaces it.
        self.tbl_word.next = self.tbl_q.q.val();
        if self.e_use_byp.q.val() {
            self.tbl_word.next = self.e_byp.q.val();
        }
        self.st_older.next = self.st_q.q.val();
        if self.pre_byp1.q.val() {
            self.st_older.next = self.byp1_st.val();
        } else if self.pre_old.q.val() {
            self.st_older.next = self.old_st.q.val();
        }
        self.st_pre.d.next = self.st_older.val();
        self.sel1.d.next = (self.s2_cgid.val() == self.s3_cgid.val()) & self.s3_wr_st.val();

        // Stage 3: the state, newest write first.
        self.st_newest.next = self.sel1.q.val();
        self.st_word.next = self.st_pre.q.val();
        if self.sel1.q.val() {
            self.st_word.next = self.byp1_st.val();
        }

        // Stage 3's writes, kept for the next operations.
        self.byp1_cgid.d.next = self.s3_cgid.val();
        self.byp1_tbl_valid.d.next = self.s3_wr_tbl.val();
        self.byp1_st_valid.d.next = self.s3_wr_st.val();
        self.byp1_tbl.d.next = self.s3_entry.val();
        self.byp2_cgid.d.next = self.byp1_cgid.q.val();
        self.byp2_st_valid.d.next = self.byp1_st_valid.q.val();
        self.byp2_st.d.next = self.byp1_st.val();
        self.st_wr_en.next = self.byp1_st_valid.q.val();
        self.st_wr_addr.next = self.byp1_cgid.q.val();
    }
}
