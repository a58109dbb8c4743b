//! # The NIC's bit layouts as blocks (modules `nic_*_fields`, `nic_*_word`)
//!
//! Generated from the one declaration, `netcoll_models::nic_layouts!` (the WQE, the CQE, the
//! queue contexts, `CONFIG_QP`'s word), by [`rtl_unpack!`](crate::rtl_unpack) (words in,
//! fields out) and [`rtl_pack!`](crate::rtl_pack) (fields in, words out): no field position
//! is written in the RTL. The NIC instantiates the ones it uses:
//!
//! | block | module | what |
//! |---|---|---|
//! | [`unpack::WqeWords`] | `nic_wqe_fields` | the current WQE (or host command) |
//! | [`unpack::WqContext`] | `nic_wq_context_fields` | the work-queue context read |
//! | [`unpack::CqContext`] | `nic_cq_counts_fields` | the CQ counts read |
//! | [`unpack::QpConfig`] | `nic_qp_config_fields` | `CONFIG_QP`'s `w0` |
//! | [`pack::WqContext`] | `nic_wq_context_word` | the work-queue context written |
//! | [`pack::CqContext`] | `nic_cq_counts_word` | the CQ counts written |
//! | [`unpack::CqWait`], [`pack::CqWait`] | `nic_cq_wait_fields`, `nic_cq_wait_word` | a CQ's wait state, read and written (the host unit) |
//! | [`unpack::WqEnable`], [`pack::WqEnable`] | `nic_wq_enable_fields`, `nic_wq_enable_word` | a work queue's enable head, read and written (the host unit) |
//! | [`pack::CqeWord`] | `nic_cqe_word` | the CQE written |
//! | [`unpack::RcContext`], [`pack::RcContext`] | `nic_rc_context_fields`, `nic_rc_context_word` | a work queue's reliability word, read and written (the queues) |
//! | [`unpack::ShapeDim`] | `nic_shape_dim_fields` | a CALC shape's dimension, as `SET_SHAPE` takes it (the host unit) and as the shape memories hold it (the calc unit) |
//! | [`unpack::ShapeExtent`], [`pack::ShapeExtent`] | `nic_shape_extent_fields`, `nic_shape_extent_word` | a shape's outer spans, read (the calc unit) and written (the host unit) |

/// Words in, one output per field.
pub mod unpack {
    use crate::rtl_unpack;
    use rust_hdl::prelude::*;
    netcoll_models::nic_layouts!(rtl_unpack! {});
}

/// One input per field, words out.
pub mod pack {
    use crate::rtl_pack;
    use rust_hdl::prelude::*;
    netcoll_models::nic_layouts!(rtl_pack! {});
}

#[cfg(test)]
mod tests {
    use super::{pack, unpack};
    use netcoll_models::nic::{
        CqContext, CqWait, CqeWord, QpConfig, RcContext, WqContext, WqEnable, WqeWords,
    };
    use rust_hdl::prelude::*;

    /// A little xorshift: random words, fixed seed.
    struct Words(u64);
    impl Words {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn settle<B: Block>(b: &mut B) {
        assert!(simulate(b, 100), "settles");
    }

    fn bits<const N: usize>(v: u64) -> Bits<N> {
        Bits::<N>::from(v & netcoll_models::kit::ports::mask(N))
    }

    /// Every field of the unpack block equals the model's `unpack`, and the pack block fed
    /// with them gives the model's `pack`, for random words.
    #[test]
    fn wqe_words_follow_the_declaration() {
        let mut u = unpack::WqeWords::default();
        let mut p = pack::WqeWords::default();
        u.connect_all();
        p.connect_all();
        let mut r = Words(0x1234_5678_9ABC_DEF1);
        for _ in 0..300 {
            let (w0, w1) = (r.next(), r.next());
            let f = WqeWords::unpack(w0, w1);
            u.w0.next = w0.into();
            u.w1.next = w1.into();
            settle(&mut u);
            macro_rules! check {
                ($($f:ident),*) => {
                    $(assert_eq!(u.$f.val().to_u64(), f.$f, stringify!($f));
                      p.$f.next = bits(f.$f);)*
                };
            }
            macro_rules! check_bool {
                ($($f:ident),*) => {
                    $(assert_eq!(u.$f.val(), f.$f == 1, stringify!($f));
                      p.$f.next = f.$f == 1;)*
                };
            }
            check!(
                opcode, rsvd0, buf_addr, buf_len, peer_node, peer_qp, rsvd1, rsvd2, peer_cnt,
                wait_index, wait_count, en_qp, en_mode, en_value, calc_op, calc_dtype, calc_count,
                calc_a, calc_b, calc_sa, calc_sb, calc_dst, calc_shape
            );
            check_bool!(
                signaled,
                peer_cnt_en,
                wait_kind,
                wait_more,
                en_more,
                calc_to_peer
            );
            settle(&mut p);
            assert_eq!([p.w0.val().to_u64(), p.w1.val().to_u64()], f.pack());
            // Overlapping fields all came from the same words: packing gives them back.
            assert_eq!(f.pack(), [w0, w1]);
        }
    }

    #[test]
    fn context_and_cqe_words_follow_the_declaration() {
        let mut r = Words(0xDEAD_BEEF_0BAD_F00D);
        let (mut uw, mut pw) = (unpack::WqContext::default(), pack::WqContext::default());
        let (mut uc, mut pc) = (unpack::CqContext::default(), pack::CqContext::default());
        let (mut uq, mut pq) = (unpack::QpConfig::default(), pack::QpConfig::default());
        let (mut ut, mut pt) = (unpack::CqWait::default(), pack::CqWait::default());
        ut.connect_all();
        pt.connect_all();
        let (mut un, mut pn) = (unpack::WqEnable::default(), pack::WqEnable::default());
        un.connect_all();
        pn.connect_all();
        let (mut ue, mut pe) = (unpack::CqeWord::default(), pack::CqeWord::default());
        let (mut ur, mut pr) = (unpack::RcContext::default(), pack::RcContext::default());
        ur.connect_all();
        pr.connect_all();
        uw.connect_all();
        pw.connect_all();
        uc.connect_all();
        pc.connect_all();
        uq.connect_all();
        pq.connect_all();
        ue.connect_all();
        pe.connect_all();
        for _ in 0..300 {
            let w = r.next();
            let f = WqContext::unpack(w);
            uw.ctx.next = w.into();
            settle(&mut uw);
            assert_eq!(
                (
                    uw.pi.val().to_u64(),
                    uw.ci.val().to_u64(),
                    uw.ei.val().to_u64()
                ),
                (f.pi, f.ci, f.ei)
            );
            assert_eq!(
                (uw.managed.val(), uw.plain.val(), uw.cq.val().to_u64()),
                (f.managed == 1, f.plain == 1, f.cq)
            );
            pw.pi.next = bits(f.pi);
            pw.ci.next = bits(f.ci);
            pw.ei.next = bits(f.ei);
            pw.managed.next = f.managed == 1;
            pw.plain.next = f.plain == 1;
            pw.cq.next = bits(f.cq);
            settle(&mut pw);
            assert_eq!(pw.ctx.val().to_u64(), f.pack()[0]);

            let f = CqContext::unpack(w);
            uc.counts.next = w.into();
            settle(&mut uc);
            assert_eq!(uc.produced.val().to_u64(), f.produced);
            assert_eq!(uc.consumed.val().to_u64(), f.consumed);
            pc.produced.next = bits(f.produced);
            pc.consumed.next = bits(f.consumed);
            settle(&mut pc);
            assert_eq!(pc.counts.val().to_u64(), f.pack()[0]);

            let f = CqWait::unpack(w);
            ut.cqw.next = w.into();
            settle(&mut ut);
            assert_eq!(
                (ut.index.val().to_u64(), ut.count.val().to_u64()),
                (f.index, f.count)
            );
            pt.index.next = bits(f.index);
            pt.count.next = bits(f.count);
            settle(&mut pt);
            assert_eq!(pt.cqw.val().to_u64(), f.pack()[0]);

            let w32 = w & 0xFFFF_FFFF;
            let f = WqEnable::unpack(w32);
            un.wqen.next = w32.into();
            settle(&mut un);
            assert_eq!(
                (un.index.val().to_u64(), un.count.val().to_u64()),
                (f.index, f.count)
            );
            pn.index.next = bits(f.index);
            pn.count.next = bits(f.count);
            settle(&mut pn);
            assert_eq!(pn.wqen.val().to_u64(), f.pack()[0]);
            assert_eq!(f.pack()[0], w32);

            let f = QpConfig::unpack(w);
            uq.w0.next = w.into();
            settle(&mut uq);
            assert_eq!(
                (uq.sq_cq.val().to_u64(), uq.rq_cq.val().to_u64()),
                (f.sq_cq, f.rq_cq)
            );
            assert_eq!(
                (uq.sq_managed.val(), uq.rq_managed.val(), uq.plain.val()),
                (f.sq_managed == 1, f.rq_managed == 1, f.plain == 1)
            );
            pq.sq_cq.next = bits(f.sq_cq);
            pq.rq_cq.next = bits(f.rq_cq);
            pq.sq_managed.next = f.sq_managed == 1;
            pq.rq_managed.next = f.rq_managed == 1;
            pq.plain.next = f.plain == 1;
            pq.rc.next = f.rc == 1;
            pq.rnr_retry.next = bits(f.rnr_retry);
            pq.rnr_delay.next = bits(f.rnr_delay);
            assert_eq!(
                (
                    uq.rc.val(),
                    uq.rnr_retry.val().to_u64(),
                    uq.rnr_delay.val().to_u64()
                ),
                (f.rc == 1, f.rnr_retry, f.rnr_delay)
            );
            settle(&mut pq);
            assert_eq!(pq.w0.val().to_u64(), f.pack()[0]);

            let f = RcContext::unpack(w);
            ur.rcc.next = w.into();
            settle(&mut ur);
            assert_eq!(
                (
                    ur.rc.val(),
                    ur.retry.val().to_u64(),
                    ur.state.val().to_u64(),
                    ur.left.val().to_u64(),
                    ur.status.val().to_u64(),
                    ur.delay.val().to_u64(),
                    ur.at.val().to_u64()
                ),
                (f.rc == 1, f.retry, f.state, f.left, f.status, f.delay, f.at)
            );
            pr.rc.next = f.rc == 1;
            pr.retry.next = bits(f.retry);
            pr.state.next = bits(f.state);
            pr.left.next = bits(f.left);
            pr.status.next = bits(f.status);
            pr.delay.next = bits(f.delay);
            pr.at.next = bits(f.at);
            settle(&mut pr);
            assert_eq!(pr.rcc.val().to_u64(), f.pack()[0]);

            let f = CqeWord::unpack(w);
            ue.cqe.next = w.into();
            settle(&mut ue);
            assert_eq!(
                (
                    ue.status.val().to_u64(),
                    ue.opcode.val().to_u64(),
                    ue.qp.val().to_u64()
                ),
                (f.status, f.opcode, f.qp)
            );
            assert_eq!(ue.is_recv.val(), f.is_recv == 1);
            assert_eq!(
                (ue.index.val().to_u64(), ue.len.val().to_u64()),
                (f.index, f.len)
            );
            pe.status.next = bits(f.status);
            pe.opcode.next = bits(f.opcode);
            pe.qp.next = bits(f.qp);
            pe.is_recv.next = f.is_recv == 1;
            pe.index.next = bits(f.index);
            pe.len.next = bits(f.len);
            settle(&mut pe);
            assert_eq!(pe.cqe.val().to_u64(), f.pack()[0]);
        }
    }

    /// A word pinned by hand (from the field table of `netcoll_models::nic`), through the RTL.
    #[test]
    fn a_cqe_packs_at_the_documented_positions() {
        let mut pe = pack::CqeWord::default();
        pe.connect_all();
        pe.status.next = bits(5);
        pe.opcode.next = bits(1);
        pe.qp.next = bits(0xab);
        pe.is_recv.next = true;
        pe.index.next = bits(0x1234);
        pe.len.next = bits(0xffff);
        settle(&mut pe);
        assert_eq!(pe.cqe.val().to_u64(), 0xffff_1234_0001_ab15);
    }
}
