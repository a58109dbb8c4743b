//! # A reducing group's payload shapes (module `switch_engine_meta`)
//!
//! Combinational, in stage 3 of a reducing [`super::SwitchEngine`]: the shapes (length,
//! operation, type) of a group's two buffers, the accumulator and the retained result, held
//! in its state word, against the packet's. Like the CSM's facts, the shapes come from
//! registers: as the older writes left them (`pre_*`, from stage 2) and as the last decision
//! wrote them (`fwd_*`), chosen by `newest`. It tells the CSM decision whether the packet's
//! shape differs from the transaction's (`differs`: a second contribution or the parent's
//! EXIT of another shape is BAD_PAYLOAD, rules 6 and 7), and from the decision's outcome it
//! makes the buffers' next shapes and the shape of the packet sent (see
//! `netcoll_models::switch_engine::model`, "The payload path"). The payload engine's command
//! is made from the decision a cycle later, in [`super::payload`], from the group's lengths
//! given here.
//!
//! # Inputs
//! - `pre_acc`, `pre_ret`, `fwd_acc`, `fwd_ret` (15 each: length, operation at bit 8, type at
//!   bit 12) and `newest` (the `fwd_*` are the group's); `p_plen` (8), `p_rop` (4), `p_dtype`
//!   (3): the packet's shape;
//! - the decision ([`super::SwitchEngineCsm`]): `report`, `first` (no child had reported),
//!   `restart`, and what is sent: `lag` (STATUS_RSP, a Lag answer), `fwd_req` (a forwarded
//!   STATUS_REQ).
//!
//! # Outputs
//! - `meta_word` (SW): the next state's shape fields (every other bit zero), and the same
//!   shapes packed, `n_acc` and `n_ret` (15 each); the state keeps a type in `DB` bits (2
//!   without the floating-point types: the type's third bit is then always clear);
//! - `out_meta` (15): the shape of the packet sent, packed as the output queue holds it, and
//!   `out_nz`: its length is not zero;
//! - `acc_len`, `ret_len` (8): the group's accumulator's and retained result's lengths, and
//!   `acc_len_nz`, `ret_len_nz`: they are not zero (for the payload command).

use rust_hdl::prelude::*;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The shape logic for `SW`-bit state words with `PB`-bit lengths and `DB`-bit types.
#[derive(LogicBlock)]
pub struct SwitchEngineMeta<const SW: usize, const PB: usize, const DB: usize> {
    pub newest: Signal<In, bool>,
    pub pre_acc: Signal<In, Bits<15>>,
    pub pre_ret: Signal<In, Bits<15>>,
    pub fwd_acc: Signal<In, Bits<15>>,
    pub fwd_ret: Signal<In, Bits<15>>,
    pub p_plen: Signal<In, Bits<8>>,
    pub p_rop: Signal<In, Bits<4>>,
    pub p_dtype: Signal<In, Bits<3>>,
    pub report: Signal<In, bool>,
    pub first: Signal<In, bool>,
    pub restart: Signal<In, bool>,
    pub lag: Signal<In, bool>,
    pub fwd_req: Signal<In, bool>,

    pub meta_word: Signal<Out, Bits<SW>>,
    pub n_acc: Signal<Out, Bits<15>>,
    pub n_ret: Signal<Out, Bits<15>>,
    /// The three packed: length, operation at bit 8, type at bit 12.
    pub out_meta: Signal<Out, Bits<15>>,
    pub out_nz: Signal<Out, bool>,
    pub acc_len: Signal<Out, Bits<8>>,
    pub ret_len: Signal<Out, Bits<8>>,
    pub acc_len_nz: Signal<Out, bool>,
    pub ret_len_nz: Signal<Out, bool>,

    /// The packet's, the accumulator's and the retained result's lengths are not zero (from
    /// registers, before the decision: `out_nz` chooses among them as the lengths are
    /// chosen, rather than testing the chosen length).
    p_nz: Signal<Local, bool>,
    acc_nz: Signal<Local, bool>,
    ret_nz: Signal<Local, bool>,
    out_plen: Signal<Local, Bits<8>>,
    out_rop: Signal<Local, Bits<4>>,
    out_dtype: Signal<Local, Bits<3>>,
    g_acc: Signal<Local, Bits<15>>,
    g_ret: Signal<Local, Bits<15>>,
    acc_plen: Signal<Local, Bits<8>>,
    acc_rop: Signal<Local, Bits<4>>,
    acc_dtype: Signal<Local, Bits<3>>,
    ret_plen: Signal<Local, Bits<8>>,
    ret_rop: Signal<Local, Bits<4>>,
    ret_dtype: Signal<Local, Bits<3>>,
    n_acc_plen: Signal<Local, Bits<8>>,
    n_acc_rop: Signal<Local, Bits<4>>,
    n_acc_dtype: Signal<Local, Bits<3>>,
    n_ret_plen: Signal<Local, Bits<8>>,
    n_ret_rop: Signal<Local, Bits<4>>,
    n_ret_dtype: Signal<Local, Bits<3>>,

    /// The fields' positions in the state word (set by the engine's builder).
    acc_plen_at: Constant<Bits<8>>,
    acc_rop_at: Constant<Bits<8>>,
    acc_dtype_at: Constant<Bits<8>>,
    ret_plen_at: Constant<Bits<8>>,
    ret_rop_at: Constant<Bits<8>>,
    ret_dtype_at: Constant<Bits<8>>,
}

impl<const SW: usize, const PB: usize, const DB: usize> SwitchEngineMeta<SW, PB, DB> {
    /// The block for state words laid out as `layout` says.
    pub fn new(layout: &netcoll_models::kit::layout::Layout) -> Self {
        assert_eq!(layout.width(), SW);
        assert_eq!(layout.field("acc_plen").1, PB);
        assert_eq!(layout.field("acc_dtype").1, DB);
        let at = |f: &str| k(layout.lsb(f) as u64);
        Self {
            acc_plen_at: at("acc_plen"),
            acc_rop_at: at("acc_rop"),
            acc_dtype_at: at("acc_dtype"),
            ret_plen_at: at("ret_plen"),
            ret_rop_at: at("ret_rop"),
            ret_dtype_at: at("ret_dtype"),
            ..Default::default()
        }
    }
}

impl<const SW: usize, const PB: usize, const DB: usize> Default for SwitchEngineMeta<SW, PB, DB> {
    /// Unconfigured (the engine's builder replaces it with [`Self::new`]).
    fn default() -> Self {
        Self {
            newest: Default::default(),
            pre_acc: Default::default(),
            pre_ret: Default::default(),
            fwd_acc: Default::default(),
            fwd_ret: Default::default(),
            p_plen: Default::default(),
            p_rop: Default::default(),
            p_dtype: Default::default(),
            report: Default::default(),
            first: Default::default(),
            restart: Default::default(),
            lag: Default::default(),
            fwd_req: Default::default(),
            meta_word: Default::default(),
            n_acc: Default::default(),
            n_ret: Default::default(),
            g_acc: Default::default(),
            g_ret: Default::default(),
            out_plen: Default::default(),
            out_rop: Default::default(),
            out_dtype: Default::default(),
            out_meta: Default::default(),
            acc_len: Default::default(),
            ret_len: Default::default(),
            acc_len_nz: Default::default(),
            ret_len_nz: Default::default(),
            out_nz: Default::default(),
            p_nz: Default::default(),
            acc_nz: Default::default(),
            ret_nz: Default::default(),
            acc_plen: Default::default(),
            acc_rop: Default::default(),
            acc_dtype: Default::default(),
            ret_plen: Default::default(),
            ret_rop: Default::default(),
            ret_dtype: Default::default(),
            n_acc_plen: Default::default(),
            n_acc_rop: Default::default(),
            n_acc_dtype: Default::default(),
            n_ret_plen: Default::default(),
            n_ret_rop: Default::default(),
            n_ret_dtype: Default::default(),
            acc_plen_at: k(0),
            acc_rop_at: k(0),
            acc_dtype_at: k(0),
            ret_plen_at: k(0),
            ret_rop_at: k(0),
            ret_dtype_at: k(0),
        }
    }
}

impl<const SW: usize, const PB: usize, const DB: usize> Logic for SwitchEngineMeta<SW, PB, DB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.g_acc.next = self.pre_acc.val();
        self.g_ret.next = self.pre_ret.val();
        if self.newest.val() {
            self.g_acc.next = self.fwd_acc.val();
            self.g_ret.next = self.fwd_ret.val();
        }
        self.acc_plen.next = self.g_acc.val().get_bits::<8>(0);
        self.acc_rop.next = self.g_acc.val().get_bits::<4>(8);
        self.acc_dtype.next = self.g_acc.val().get_bits::<3>(12);
        self.ret_plen.next = self.g_ret.val().get_bits::<8>(0);
        self.ret_rop.next = self.g_ret.val().get_bits::<4>(8);
        self.ret_dtype.next = self.g_ret.val().get_bits::<3>(12);
        self.p_nz.next = self.p_plen.val().any();
        self.acc_nz.next = self.acc_plen.val().any();
        self.ret_nz.next = self.ret_plen.val().any();

        // The first contribution sets the accumulator's shape; a completed transaction's is
        // retained.
        self.n_acc_plen.next = self.acc_plen.val();
        self.n_acc_rop.next = self.acc_rop.val();
        self.n_acc_dtype.next = self.acc_dtype.val();
        if self.report.val() & self.first.val() {
            self.n_acc_plen.next = self.p_plen.val();
            self.n_acc_rop.next = self.p_rop.val();
            self.n_acc_dtype.next = self.p_dtype.val();
        }
        self.n_ret_plen.next = self.ret_plen.val();
        self.n_ret_rop.next = self.ret_rop.val();
        self.n_ret_dtype.next = self.ret_dtype.val();
        if self.restart.val() {
            self.n_ret_plen.next = self.n_acc_plen.val();
            self.n_ret_rop.next = self.n_acc_rop.val();
            self.n_ret_dtype.next = self.n_acc_dtype.val();
        }
        self.meta_word.next = (bit_cast::<SW, PB>(self.n_acc_plen.val().get_bits::<PB>(0))
            << self.acc_plen_at.val())
            | (bit_cast::<SW, 4>(self.n_acc_rop.val()) << self.acc_rop_at.val())
            | (bit_cast::<SW, DB>(self.n_acc_dtype.val().get_bits::<DB>(0))
                << self.acc_dtype_at.val())
            | (bit_cast::<SW, PB>(self.n_ret_plen.val().get_bits::<PB>(0))
                << self.ret_plen_at.val())
            | (bit_cast::<SW, 4>(self.n_ret_rop.val()) << self.ret_rop_at.val())
            | (bit_cast::<SW, DB>(self.n_ret_dtype.val().get_bits::<DB>(0))
                << self.ret_dtype_at.val());
        self.n_acc.next = bit_cast::<15, 8>(self.n_acc_plen.val())
            | (bit_cast::<15, 4>(self.n_acc_rop.val()) << 8)
            | (bit_cast::<15, 3>(self.n_acc_dtype.val()) << 12);
        self.n_ret.next = bit_cast::<15, 8>(self.n_ret_plen.val())
            | (bit_cast::<15, 4>(self.n_ret_rop.val()) << 8)
            | (bit_cast::<15, 3>(self.n_ret_dtype.val()) << 12);

        // The packet sent: a Lag answer carries the retained result, a forwarded STATUS_REQ
        // nothing, everything else the accumulator.
        self.out_plen.next = self.n_acc_plen.val();
        self.out_rop.next = self.n_acc_rop.val();
        self.out_dtype.next = self.n_acc_dtype.val();
        self.out_nz.next = self.acc_nz.val();
        if self.report.val() & self.first.val() {
            self.out_nz.next = self.p_nz.val();
        }
        if self.lag.val() {
            self.out_plen.next = self.ret_plen.val();
            self.out_rop.next = self.ret_rop.val();
            self.out_dtype.next = self.ret_dtype.val();
            self.out_nz.next = self.ret_nz.val();
        } else if self.fwd_req.val() {
            self.out_plen.next = 0.into();
            self.out_rop.next = 0.into();
            self.out_dtype.next = 0.into();
            self.out_nz.next = false;
        }

        self.out_meta.next = bit_cast::<15, 8>(self.out_plen.val())
            | (bit_cast::<15, 4>(self.out_rop.val()) << 8)
            | (bit_cast::<15, 3>(self.out_dtype.val()) << 12);

        self.acc_len.next = self.acc_plen.val();
        self.ret_len.next = self.ret_plen.val();
        self.acc_len_nz.next = self.acc_nz.val();
        self.ret_len_nz.next = self.ret_nz.val();
    }
}
