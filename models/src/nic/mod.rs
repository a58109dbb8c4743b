//! # NIC cross-channel controller
//!
//! The NIC side of seed `004_…`: work queues whose advance depends on the completion status of
//! other queues, so that a collective schedule (wait for the children, reduce, send to the
//! parent, re-arm the buffers) runs with no host CPU involved.
//!
//! This module is the specification every level implements, and holds its vocabulary, each
//! item declared once: the parameters ([`NicParams`]), the codes ([`Opcode`], [`Status`],
//! [`HostOp`], [`HostStatus`], [`Stat`]), the bit layouts of work requests, completions and
//! queue contexts ([`nic_layouts!`](crate::nic_layouts): [`WqeWords`], [`CqeWord`],
//! [`WqContext`], [`CqContext`], [`QpConfig`]) and the ports
//! ([`nic_ports!`](crate::nic_ports): [`NicIn`], [`NicOut`]). The golden reference is
//! [`golden`], the cycle model [`model`] (whose sequencer states are shared with the RTL); the
//! RTL is `netcoll-hdl`'s `nic`. CALC uses the reduction ALU of [`crate::reduce_alu`];
//! messages are [`crate::net::Message`]s.
//!
//! ## Resources
//!
//! - `qps` queue pairs. QP `q` has a send queue (SQ) and a receive queue (RQ), each a ring of
//!   [`WQ_DEPTH`] work-queue entries (WQEs). Every WQ has a producer index `pi` (WQEs posted),
//!   a consumer index `ci` (WQEs completed) and an enable index `ei`, 16 bits each, counting
//!   modulo 2^16; the WQE with index `i` lives in slot `i mod WQ_DEPTH`.
//! - `cqs` completion queues, rings of [`CQ_DEPTH`] 64-bit CQEs, each with a 32-bit `produced`
//!   count (CQEs ever written), a 32-bit `consumed` count (CQEs popped by the host), and a 32-bit
//!   `wait_index` and `wait_count` (see WAIT). Every WQ also has an enable head (see mode 2
//!   enables).
//! - `counters` 32-bit counters, incremented by arriving messages that name them.
//! - `dmem_words` 64-bit words of data memory: message buffers, CALC arguments and results. It
//!   stands for the host memory the NIC reaches by DMA; the host reads and writes it with
//!   host commands.
//! - [`STATS`] 32-bit statistics counters of refused or failed work ([`Stat`]), wrapping.
//!
//! Each QP has a context set by `CONFIG_QP`: the CQ of its SQ, the CQ of its RQ, whether each
//! queue is *managed*, whether the QP is *plain* (not cross-channel) and whether it is
//! *reliable* (`rc`, with its `rnr_retry` and `rnr_delay`; see "Reliable QPs"). All zero after
//! reset (both queues report to CQ 0, unmanaged, cross-channel, not reliable).
//!
//! ## Cross-channel QPs
//!
//! Only a cross-channel QP takes cross-channel work, as mlx5 requires
//! `IBV_EXP_QP_CREATE_CROSS_CHANNEL` at QP creation: a WAIT, SEND_EN, RECV_EN or CALC posted
//! to either queue of a plain QP is **refused** — the post answers `REFUSED`, nothing is posted
//! and nothing else changes (a CQ's wait counts included), counted in `HostRefused`. A QP is
//! cross-channel unless `CONFIG_QP` sets `plain`, so a NIC configured without it behaves as
//! before the bit existed.
//!
//! ## Managed queues and enabling
//!
//! An unmanaged queue may run every posted WQE. A managed queue may only run WQE `i` once it is
//! enabled, i.e. while `ei - ci` (16-bit, taken as signed) is positive: WQEs `ci .. ei` are
//! enabled. `CONFIG_QP` sets `ei = ci` for a queue it makes managed, so nothing is enabled.
//! SEND_EN (for an SQ) and RECV_EN (for an RQ) move `ei` forward:
//! - by `n` (mode 0): `ei += n`;
//! - up to index `i` (mode 1): WQE `i` and everything before it is enabled, `ei = i + 1`, unless
//!   that would move `ei` backwards (`(i + 1 - ei)` as signed 16-bit is negative), in which case
//!   `ei` is unchanged;
//! - up to, not including, index `i` (mode 3): `ei = i`, unless that would move `ei` backwards;
//! - `n` from the queue's *enable head* (mode 2), as libmlx5 posts `IBV_EXP_WR_SEND_ENABLE` /
//!   `IBV_EXP_WR_RECV_ENABLE`: converted when the enable is **posted** into mode 3 with an
//!   absolute index, stored in the WQE in place of the mode and value (below).
//!
//! Enabling in modes 0, 1 and 3 may run ahead of posting: WQEs posted later are then already
//! enabled. The enable index of an unmanaged queue is still updated but not consulted.
//!
//! ### Enables counted from the enable head (mode 2)
//!
//! Each work queue keeps an enable head, `head_index` and `head_count` (16 bits each, 0 after
//! reset), beside its indices; only posting a mode 2 enable that names the queue reads or moves
//! it. Posting a SEND_EN / RECV_EN in mode 2 with count `n` to target queue `t` (QP `qp`'s SQ /
//! RQ), `qp` in range:
//! - `t` not managed → the post is **refused** (`REFUSED`, counted in `HostRefused`);
//! - `n ≠ 0`: the index is `head_index + n` and `head_count` becomes `max(head_count, n)`; an
//!   index beyond what `t` has posted (`pi - index` as signed 16-bit negative) → **refused**;
//! - `n = 0` ("everything posted"): the index is `t`'s `pi`, and `head_count` becomes
//!   `pi - head_index`;
//! - the **last** enable of a group (`more` clear, the default) then moves the head on,
//!   `head_index += head_count`, and clears `head_count`; an enable with `more` set leaves it.
//!
//! The WQE is posted with mode 3 and that index; a refused post changes nothing (the head
//! included). With every enable last, each enables `n` WQEs beyond those the enables posted
//! before it released, whichever queue posted them, and never more than is posted; enables
//! posted with `more` and closed by a last one all count from the same head. A mode 2 enable
//! naming a QP out of range is posted as it is and completes with `BadIndex`, as in the other
//! modes. `CONFIG_QP` sets a queue's head to `(ci, 0)` when it makes the queue managed, with
//! `ei = ci`.
//!
//! ## Work requests
//!
//! A WQE is 128 bits, two 64-bit words `w0`, `w1` ([`Wqe::encode`]). `w0[3:0]` is the
//! [`Opcode`], `w0[4]` *signaled*. The SQ runs WQEs in order, one at a time; the RQ's WQEs are
//! consumed by arriving messages. A WQE *completes* when its work is done; completing advances
//! the queue's `ci` and writes a CQE to the queue's CQ if the WQE is signaled **or failed**
//! (errors are always reported). A failed WQE still completes: the queue goes on with the next
//! WQE (there is no QP error state), so valid work after a bad request still runs.
//!
//! - **NOP**: completes.
//! - **SEND** `addr, len, dst, dst_qp, cnt_en, cnt`: sends `len` words of data memory starting
//!   at `addr` as one message to QP `dst_qp` of node `dst`; if `cnt_en` the receiver increments
//!   its counter `cnt` when the message has arrived. `len = 0` sends one empty beat. Completes
//!   when the last beat has been sent (on a reliable QP: when the answer comes, see "Reliable
//!   QPs"). The message's `tag` is the WQE index, so a NAK can name it.
//! - **RECV** `addr, len` (RQ only): a buffer of `len` words at `addr` for the next message
//!   arriving at this QP. Completes when the message's last beat has arrived; the CQE's `len` is
//!   the number of words stored. A longer message fills the buffer, the rest is dropped and the
//!   CQE has status `LenErr`.
//! - **WAIT** `kind, index, count`: holds the SQ until a condition holds, then completes.
//!   - kind 0, CQ `index`, `count` completions, as libmlx5 posts `IBV_EXP_WR_CQE_WAIT`. The
//!     count is relative to the CQ's *wait index*: when the WAIT is **posted**, its absolute
//!     target is `wait_index + count`, stored in the WQE in place of the count, and the CQ's
//!     `wait_count` becomes `max(wait_count, count)`. A WAIT that is the **last** of its group
//!     (`more` clear, the default: mlx5's `IBV_EXP_SEND_WAIT_EN_LAST` set) then moves the wait
//!     index on, `wait_index += wait_count`, and clears `wait_count`; a WAIT with `more` set
//!     leaves the index where it is. So WAITs posted with `more` and closed by a last one all
//!     count from the same index (several queues waiting for the same completions), and the
//!     next group counts beyond the largest count of this one; when every WAIT is last, each
//!     waits for `count` completions beyond those claimed by the WAITs posted on that CQ before
//!     it, from any queue. The WAIT completes once the CQ's `produced` count has reached the
//!     target (`produced - target` as signed 32-bit ≥ 0). Popping CQEs does not change
//!     `produced`. `wait_index` and `wait_count` start at 0 and count from reset, as
//!     `produced` does.
//!   - kind 1, counter `index`, threshold `count`: completes once counter ≥ `count` (unsigned).
//! - **SEND_EN** / **RECV_EN** `qp, mode, more, value`: move the enable index of QP `qp`'s
//!   SQ / RQ (see above; mode 2 has become mode 3 when posted), then complete. An RQ's newly enabled WQEs accept messages from then on; a
//!   message that arrived earlier for a disabled WQE was discarded (below) and is not replayed.
//! - **CALC** `op, dtype, count, a, sa, b, sb, dst, target, dst node, dst_qp, cnt_en, cnt,
//!   shape`: for `i in 0..count`, `dst[i] = a[i*sa] op b[i*sb]` through the reduction ALU
//!   ([`crate::reduce_alu`]). For MAXLOC / MINLOC an element is a (value, index) pair in two
//!   consecutive words, value first, at `a + i*sa` and `a + i*sa + 1` (likewise for `b`), and
//!   the result pair goes to `dst + 2i`, `dst + 2i + 1`; for the other operations the result
//!   goes to `dst + i`. Strides are in words (`sa = 1` is contiguous; `sa = 0` repeats one
//!   element). Target 0 is host memory (the result stays in data memory for the host to read);
//!   target 1 is a peer: after computing, the result buffer is sent like a SEND of its words to
//!   `dst_qp` of node `dst node` (with the counter, tag = WQE index). Arguments may overlap the
//!   result: the elements are computed one after the other, element `i` reading its
//!   arguments after elements `0 .. i` wrote their results (so a result one word after `a`
//!   gives a running sum) and before it writes its own. `dtype` is a 3-bit
//!   [`crate::reduce_alu::Dtype`] code, `{calc_fp, calc_dtype}`: the floating-point types (4..7)
//!   need a NIC built with them ([`NicParams::fp`]); without them, or with LAND … BXOR on
//!   them, the CALC completes with `BadArg` and computes nothing, as for a reserved `op`.
//!   `shape` 0 is this one-dimensional CALC; shapes 1..7 add two outer dimensions, each with
//!   a stride for `a`, `b` and the result (see "Multi-dimensional arguments").
//!
//! - **PIPE** `rq, base, blen, nbuf, count, dst, dst_qp, cnt_en, cnt` (SQ only): the seed's
//!   `PIPE(receive QP, send QP, intermediate buffer list, number of messages)`, the send QP
//!   being the one it is posted on. It forwards `count` messages arriving at QP `rq` to QP
//!   `dst_qp` of node `dst`, through a ring of `nbuf` buffers of `blen` words at `base`,
//!   `base + blen`, …, so that a large message cut into `count` chunks passes through a small
//!   staging area with one WQE (see "Pipes").
//!
//! An SQ WQE with opcode RECV or an unknown opcode (8..15) completes with `BadOpcode`, as does an
//! RQ WQE that is not a RECV when a message consumes it, and any WQE with a reserved bit set
//! (`w0[7:5]`, `w1[23:20]`, and `w1[19:17]` except in a CALC: [`reserved_bits`]). A WQE never starts while its queue's
//! CQ is full (see Errors).
//!
//! ## Messages
//!
//! A message is one or more beats on the `rx_*` / `tx_*` ports, valid/ready handshaked, one 64-bit
//! data word per beat, the header fields repeated on every beat and `last` on the final one. An
//! `empty` message is one beat that carries no data. `kind` 0 is data, 1 is a NAK.
//!
//! The NIC is full duplex: it takes arriving messages while it sends one, whatever the network
//! does with what it sends, so two NICs sending to each other never wait for each other
//! through links of any size. It sends one message at a time. A data message's WQE completes
//! after its last beat has been taken (at a later visit of its SQ); a NAK or ACK owed to an
//! arriving message goes out before the next data message starts.
//!
//! An arriving data message goes to the RQ of QP `rx_qp`:
//! - `rx_qp` out of range, no WQE posted (`ci == pi`), or the head WQE not enabled in a managed
//!   RQ, or the RQ's CQ full → the whole message is *discarded* (all beats consumed) and a NAK is
//!   sent back: `kind = 1`, `dst = rx_src`, `qp = rx_src_qp`, `src_qp = rx_qp`, `tag = rx_tag`,
//!   `empty`, `data` = the [`Status`] that says why (`NotReady`, `BadIndex`). Counted in
//!   `RxDiscard`. The receive WQE, if any, is not consumed.
//! - head WQE not a RECV → it completes with `BadOpcode`; the message is discarded and NAKed.
//! - buffer outside data memory (`addr + len > dmem_words`) → it completes with `BadAddr`, the
//!   message is discarded and NAKed.
//! - otherwise the beats fill the buffer and the WQE completes as above; if `rx_cnt_en`, counter
//!   `rx_cnt` is incremented (an out-of-range counter makes the CQE status `BadIndex` instead;
//!   the data is still delivered).
//!
//! An arriving NAK names the SQ of QP `rx_qp` and the WQE `rx_tag` that sent the message: it
//! writes a CQE with status `RemoteDiscard` (opcode SEND, `index = rx_tag`) to that SQ's CQ,
//! counted in `NakReceived`. If the QP is out of range or the CQ is full, the notification is
//! dropped and counted in `CqOverrun`.
//!
//! ## Pipes
//!
//! A PIPE holds its SQ like a WAIT: every visit of the SQ does one step of it, and the queue
//! runs nothing else until it completes. Each QP has a *pipe context* (memories `pipc0`,
//! `pipc1`: [`PipeContext`]), the receive side of the PIPE that owns the QP's receive queue,
//! if one does.
//!
//! 1. **Checks**, at every visit, in order: `rq` out of range → `BAD_INDEX`; `blen = 0` or
//!    `nbuf = 0` → `BAD_ARG`; `count = 0` → completes `OK` (nothing received or sent).
//! 2. **Start**: if no PIPE owns QP `rq`'s receive side, the buffers are checked (`base + nbuf ×
//!    blen > dmem_words` → `BAD_ADDR`) and the PIPE takes it: `count` chunks expected, none
//!    held, the first buffer next. That is the visit's step. If another SQ's PIPE owns it, the
//!    visit ends and the PIPE waits.
//! 3. **Receiving**: while a PIPE owns QP `rq`'s receive side, every data message arriving at
//!    `rq` goes to it, not to the RQ's WQEs. It is taken if a chunk is still expected and a
//!    buffer is free (fewer than `nbuf` chunks held); otherwise it is discarded and NAKed as
//!    when no receive WQE is enabled (`NOT_READY`; `RNR_NAK` on a reliable QP for a message
//!    that asks for an answer, so a reliable sender retries). A taken message fills the next
//!    buffer (at most `blen` words; the rest is dropped), increments its counter, is answered
//!    (ACK) if it asks, and writes no CQE. Its status is `BAD_INDEX` for a counter out of
//!    range, else `LEN_ERR` if it was longer than `blen`, or shorter and not the last chunk,
//!    else `OK`; the pipe keeps the first status that is not `OK`.
//! 4. **Forwarding**: a visit of the owning PIPE's SQ, in order: frees the chunk whose message
//!    the transmit engine has sent (its buffer takes a chunk again); else, if the engine holds
//!    no message, hands it the oldest chunk held: `blen` words from its buffer — the last
//!    chunk (the `count`-th) with the words stored — to `dst_qp` of `dst` with the counter,
//!    tagged with the PIPE's index, without `ack` whatever the QP (a chunk the receiver
//!    discards comes back as a NAK, a `REMOTE_DISCARD` CQE, as for a SEND of a QP that is not
//!    reliable). Chunks are sent in the order they arrived.
//! 5. **Completion**: once every chunk has been received and sent, the visit that frees the last
//!    one releases the receive side and completes the PIPE with the pipe's status.
//!
//! `CONFIG_QP` leaves pipe contexts as they are. A short chunk before the last is forwarded
//! with `blen` words, whatever its buffer held before.
//!
//! ## Receive channels: one QP for many peers (DCT-like)
//!
//! The seed's "extreme case" of dynamically connected transport: one QP, its SQ and RQ and one
//! CQ, carry every transport channel of a node's collectives, and "the only resource that
//! scales ... is the number of counters". Sending already works that way: every SEND and
//! CALC to a peer names its destination node and QP in the WQE, so one SQ serves any number of
//! peers, one message after the other (as a DC initiator). Receiving needs the buffer chosen by
//! the message, not by the order messages arrive in (an RQ's WQEs are taken in arrival
//! order, and messages from different peers race): each counter `c` has a *receive channel*
//! (memory `chan`, an [`RxChannel`] word: a buffer `addr`, `len`, a QP, `armed`), all
//! disarmed after reset.
//!
//! - `SET_CHANNEL` (host command 10) writes counter `arg`'s channel from `w0`. `arg` out of
//!   range, or an armed channel whose QP is out of range or whose buffer does not fit in data
//!   memory (`addr + len > dmem_words`) → `BAD_INDEX`, nothing changes. A disarmed channel
//!   (`armed` clear) is written as given, unchecked.
//! - An arriving data message that no PIPE takes (see "Pipes") and that names counter `c`
//!   (`rx_cnt_en`, `c < counters`) whose channel is armed for its QP (`qp = rx_qp`) goes to
//!   the channel instead of the RQ: it disarms the channel, fills its buffer (at most `len`
//!   words; the rest is dropped and counted in `ChanOverrun`), increments counter `c` and is
//!   answered (ACK) if it asks; it consumes no receive WQE and writes no CQE (the counter is
//!   its completion, as the WAIT on it that a schedule posts).
//! - Any other data message goes to the RQ as before: so a message for a disarmed channel
//!   whose QP has no receive WQE posted is refused — on a reliable QP with `RNR_NAK`, and the
//!   sender retries until the host has armed the channel again (flow control per channel).
//! - `CONFIG_QP` leaves the channels as they are; a NAK (an answer) never goes to one.
//!
//! So a schedule whose step `s` sends with counter `c_s` to QP `q` of its peer, the peer
//! having armed channel `c_s` for `q`, needs one QP and one CQ whatever the number of steps
//! or of concurrent collectives; messages of different steps may arrive in any order.
//!
//! ## Reliable QPs: answers and receiver-not-ready retry
//!
//! What a message for a missing or disabled receive WQE does is a choice per QP, set by
//! `CONFIG_QP`'s `rc` bit: the seed's (discard it and notify the sender, above) for a QP
//! without it, InfiniBand's reliable connection (RC, as mlx5 runs it) for a QP with it, where
//! every message is answered and a receiver that is not ready makes the sender retry:
//!
//! 1. A data message sent by the SQ of a reliable QP (SEND; CALC to a peer) has `ack` set
//!    (`tx_ack`), and its WQE does not complete when the last beat has been sent: the SQ
//!    *awaits the answer* and runs nothing else meanwhile (the WQE stays its head).
//! 2. A message with `ack` set is answered exactly once, by a NAK-kind message to the sender's
//!    QP naming its tag: data `OK` (an ACK) once the message has been stored, whatever the
//!    status of the receive CQE (queued for sending after the last beat, before that CQE is
//!    written); or, if it is discarded, the NAK it gets without `ack` — except that when the RQ's QP is
//!    reliable and its head receive WQE is missing or not enabled, the reason is `RNR_NAK`
//!    (receiver not ready) instead of `NOT_READY`. A full CQ stays `NOT_READY`. A message
//!    without `ack` is handled as above, whatever its QP.
//! 3. An answer naming the SQ of QP `q` whose head WQE awaits it (`tag` = its index):
//!    - `OK`: the WQE completes with `OK`;
//!    - `RNR_NAK` with retries left (`CONFIG_QP`'s `rnr_retry`, 0 to 6 retries per WQE; 7
//!      retries for ever, as InfiniBand's): the SQ retries. Once `rnr_delay` cycles have
//!      passed since the answer was taken, the next visit of the SQ sends the message again
//!      (a SEND from its buffer, a CALC its result buffer, not computed again), counted in
//!      `RnrRetry`, and the SQ awaits the answer again. Without retries left, the WQE
//!      completes with `RNR_RETRY_EXC`;
//!    - any other reason: the WQE completes with `REMOTE_DISCARD`, counted in `NakReceived`.
//!
//!    The completion is made by the next visit of the SQ, so it waits for room in the CQ as
//!    any WQE does. (InfiniBand's requester waits for the responder's `min_rnr_timer`, carried
//!    in the RNR NAK; here the sender's QP holds the delay.)
//! 4. An answer that names no awaiting WQE: on a reliable QP an ACK is dropped, counted in
//!    `StrayAck`; anything else (a NAK, or any answer on a QP that is not reliable, as before
//!    reliable QPs existed) is the `REMOTE_DISCARD` notification of "Messages".
//! 5. `CONFIG_QP` sets the QP's `rc`, `rnr_retry` and `rnr_delay` and forgets an awaited
//!    answer: a WQE that awaited one runs again from its start.
//!
//! The NIC counts cycles since reset (`now`, 32 bits); a retry is due when `now - at`, taken
//! as signed 32-bit, is not negative, `at` being `now + rnr_delay` when the RNR NAK was taken.
//! Each work queue has a reliability word (memory `rcc`, [`RcContext`]): the QP's settings in
//! both, the answer state in the SQ's.
//!
//! ## Multi-dimensional arguments (shapes)
//!
//! The seed's CALC takes "a vector that is contiguously organized in memory, a vector that is
//! non contiguously organized in memory and a multidimensional vector", and "V(N) and R(N) may
//! be of any dimension". A CALC's `count`, `sa` and `sb` describe one dimension; a *shape*
//! adds two outer ones, as an mlx5 strided memory key describes a layout once for many work
//! requests. The NIC holds [`SHAPES`] shapes (memory `shape`); shape 0 is the one-dimensional
//! CALC and cannot be set, shapes `1 .. SHAPES` are all zero after reset.
//!
//! - `SET_SHAPE` (host command 11) writes shape `arg` from `w0` (its dimension 1) and `w1`
//!   (dimension 2), each a [`ShapeDim`]: `count`, and the strides `sa`, `sb`, `sd` (16 bits
//!   each, in words) of `a`, `b` and the result. `arg` = 0 or ≥ [`SHAPES`] → `BAD_INDEX`,
//!   nothing changes. A dimension whose `count` is 0 is absent (as `count` 1), so a shape never
//!   set is one-dimensional.
//! - A CALC with `shape = s` (`w1[19:17]`, `calc_shape`), `s`'s dimensions `(n1, sa1, sb1, sd1)`
//!   and `(n2, sa2, sb2, sd2)` (counts 0 read as 1), `n0 = count` and `e` the words of an
//!   element (2 for MAXLOC / MINLOC pairs, else 1), computes `n0 × n1 × n2` elements, `i2` the
//!   outermost index and `i0` the innermost: element `(i2, i1, i0)` is
//!   `dst + i0·e + i1·sd1 + i2·sd2  ←  a + i0·sa + i1·sa1 + i2·sa2  op  b + i0·sb + i1·sb1 +
//!   i2·sb2`, one after the other in that order, each reading its arguments after the earlier
//!   elements wrote their results (as in one dimension). Addresses are exact sums: the last
//!   element's words must lie in data memory (`a + (n0-1)·sa + (n1-1)·sa1 + (n2-1)·sa2 + e - 1 <
//!   dmem_words`, likewise `b`, and the result's end `dst + n0·e + (n1-1)·sd1 + (n2-1)·sd2 ≤
//!   dmem_words`), else `BAD_ADDR` before anything is written; `count = 0` computes nothing
//!   and checks nothing.
//! - To a peer, the message is the result's span, `dst .. dst + n0·e + (n1-1)·sd1 +
//!   (n2-1)·sd2` as data memory holds it after the CALC, gaps included (`sd1 = n0·e`, `sd2 =
//!   n1·sd1` make the result contiguous); empty for `count = 0`.
//!
//! Readings of the specification:
//! 1. The shape is read when the CALC starts: a `SET_SHAPE` while it runs does not change it.
//!    A reliable QP's retry of a CALC sends the span of the shape as it is at the retry (as a
//!    SEND's retry sends its buffer as it is then), its addresses modulo the data memory's
//!    size; so a `SET_SHAPE` of a shape that a posted CALC names, before the CALC completes,
//!    races it.
//! 2. A stride of 0 repeats: `sd1 = 0` with `a = dst`, `sa1 = 0` folds the rows of `b` into
//!    one row (`dst[i0] = dst[i0] op b[i1][i0]`), since each element reads what the previous
//!    row wrote.
//! 3. The result is not bounded by the message length: a span beyond data memory is
//!    `BAD_ADDR`, so a message is never longer than `dmem_words`.
//!
//! ## Errors
//!
//! | refused or failed work | what happens | counted in |
//! |---|---|---|
//! | unknown host command | response `BadOp` | `HostBadOp` |
//! | QP / CQ / counter / stat / address index out of range in a host command (an armed channel's QP or buffer included) | response `BadIndex`, nothing changes | `HostBadIndex` |
//! | post to a full WQ | response `Full`, nothing changes | `WqFull` |
//! | WAIT, SEND_EN, RECV_EN or CALC posted to a plain QP (not full); a mode 2 enable of an unmanaged queue or beyond what it has posted | response `Refused`, nothing changes | `HostRefused` |
//! | WQE would complete into a full CQ | the SQ waits (back-pressure) until the host pops | `CqStall` (once per attempt) |
//! | unknown opcode, index out of range, buffer outside memory, bad CALC op | error CQE, queue goes on | `ErrorCqe` |
//! | message to a missing / disabled receive WQE or a full CQ, or to a pipe with no free buffer | message discarded, NAK (or RNR NAK) sent | `RxDiscard` |
//! | message longer than the receive channel that takes it | its first words stored | `ChanOverrun` |
//! | an ACK naming no awaiting WQE, on a reliable QP | dropped | `StrayAck` |
//!
//! ## Host commands
//!
//! One command at a time on `host_*` ([`HostOp`]): the NIC takes it in a cycle where
//! `host_valid && host_ready` and answers once with `host_rsp_valid` high for one cycle, a
//! [`HostStatus`] and a 64-bit `host_rsp_data`. `host_ready` is low until then (and for one
//! more cycle, so that arriving messages and the queues always make progress).
//!
//! ## Timing
//!
//! Synchronous active-high `reset`; after it the NIC clears its context memories, one entry per
//! cycle, with every `ready` low. All outputs are registered (they depend on state only). The
//! cycle-level behaviour is defined by the cycle model [`model`], which the RTL matches in
//! lockstep.

pub mod golden;
pub mod model;
pub mod schedule;

use crate::kit::block::BlockSpec;
pub use crate::net::Message;
use crate::{model_layout, model_ports};

/// Ring size of every send and receive queue.
pub const WQ_DEPTH: usize = 16;
/// Ring size of every completion queue.
pub const CQ_DEPTH: usize = 32;
/// Number of CALC shapes (`SET_SHAPE`'s `arg`; shape 0 is the one-dimensional CALC, see
/// "Multi-dimensional arguments").
pub const SHAPES: usize = 8;
/// Number of statistics counters.
pub const STATS: usize = Stat::ALL.len();

crate::param_table! {
    /// Parameters of one NIC: the `[nic]` table of `netcoll.toml`.
    pub struct NicParams in "nic" {
        /// Queue pairs (a send and a receive queue each, 16 WQEs deep).
        qps: 16 in [4, 16],
        /// Completion queues (32 CQEs deep).
        cqs: 16 in [4, 16],
        /// 32-bit counters incremented by arriving messages.
        counters: 32 in [8, 32],
        /// 64-bit words of data memory.
        dmem_words: 4096 in [1024, 4096],
        /// 1: CALC's ALU has the floating-point types (f16, bf16, f32, f64) built in; 0: a
        /// CALC on them completes with `BadArg`.
        fp: 0 in [0, 1],
        /// With `fp = 1`, which floating-point types CALC's ALU has (a CALC on one left out
        /// completes with `BadArg`); see `[alu] fp_types`.
        fp_types: 15 in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
            names ["f16", "bf16", "f32", "f64"],
        /// Lanes of CALC's ALU and banks of data memory: a streaming CALC whose `a` and `b`
        /// strides are odd or 0 computes `lanes` elements a cycle (see "Lanes" in
        /// [`model`]); results are the same for every value.
        lanes: 1 in [1, 2, 4],
    }
}

impl NicParams {
    /// The smallest supported NIC, used by the fast tests.
    pub const SMALL: NicParams = NicParams {
        qps: 4,
        cqs: 4,
        counters: 8,
        dmem_words: 1024,
        fp: 0,
        fp_types: crate::reduce_alu::ALL_FP_TYPES,
        lanes: 1,
    };

    /// Every supported parameter set, the floating-point types all four or none (a subset
    /// changes only constants in the ALU's datapath, not the NIC's structure).
    pub fn all_supported() -> Vec<NicParams> {
        let k = NicParams::KEYS;
        let mut v = vec![];
        for &qps in k[0].allowed {
            for &cqs in k[1].allowed {
                for &counters in k[2].allowed {
                    for &dmem_words in k[3].allowed {
                        for &fp in k[4].allowed {
                            for &lanes in k[6].allowed {
                                v.push(NicParams {
                                    qps,
                                    cqs,
                                    counters,
                                    dmem_words,
                                    fp,
                                    fp_types: crate::reduce_alu::ALL_FP_TYPES,
                                    lanes,
                                });
                            }
                        }
                    }
                }
            }
        }
        v
    }

    /// Whether every parameter is one of its supported values.
    pub fn is_supported(&self) -> bool {
        crate::kit::params::ParamTable::is_supported(self)
    }

    /// The parameters of CALC's ALU: `lanes` lanes, with the floating-point types if `fp = 1`
    /// (its latency is the CALC wait's, see `model::alu_wait`).
    pub fn alu(&self) -> crate::reduce_alu::ReduceAluParams {
        crate::reduce_alu::ReduceAluParams {
            lanes: self.lanes,
            fp: self.fp,
            fp_types: self.fp_types,
        }
    }
}

/// log2 of a power of two.
pub fn log2(n: usize) -> usize {
    n.trailing_zeros() as usize
}

crate::codes! {
    /// Work-request opcodes (`w0[3:0]`); 8..15 are unknown.
    pub enum Opcode: 4 {
        Nop = 0 => "NOP",
        Send = 1 => "SEND",
        Recv = 2 => "RECV",
        Wait = 3 => "WAIT",
        SendEn = 4 => "SEND_EN",
        RecvEn = 5 => "RECV_EN",
        Calc = 6 => "CALC",
        Pipe = 7 => "PIPE",
    }
}

impl Opcode {
    /// Work only a cross-channel QP takes (a plain QP refuses it when posted).
    pub fn is_cross_channel(code: u64) -> bool {
        [Opcode::Wait, Opcode::SendEn, Opcode::RecvEn, Opcode::Calc]
            .iter()
            .any(|o| code == o.code())
    }
}

crate::codes! {
    /// Completion status (`Cqe::status`, 4 bits) and NAK reasons.
    pub enum Status: 4 {
        Ok = 0 => "OK",
        /// Unknown opcode, or a WQE on the wrong kind of queue.
        BadOpcode = 1 => "BAD_OPCODE",
        /// A QP, CQ or counter index out of range.
        BadIndex = 2 => "BAD_INDEX",
        /// A buffer that does not fit in data memory.
        BadAddr = 3 => "BAD_ADDR",
        /// The message was longer than the receive buffer (the buffer holds its first words).
        LenErr = 4 => "LEN_ERR",
        /// The peer discarded the message this SEND / CALC sent (a NAK came back).
        RemoteDiscard = 5 => "REMOTE_DISCARD",
        /// CALC with a reserved ALU operation.
        BadArg = 6 => "BAD_ARG",
        /// NAK reason: no enabled receive WQE, or its CQ was full.
        NotReady = 7 => "NOT_READY",
        /// NAK reason: no enabled receive WQE in a reliable QP, for a message that asked for
        /// an answer (the sender retries).
        RnrNak = 8 => "RNR_NAK",
        /// The peer answered RNR NAK once more than the QP's `rnr_retry` allows.
        RnrRetryExc = 9 => "RNR_RETRY_EXC",
    }
}

crate::codes! {
    /// The answer state of an SQ's reliability word ([`RcContext`]`::state`, 2 bits), see
    /// "Reliable QPs".
    pub enum RcState: 2 {
        /// Nothing awaited.
        Idle = 0 => "IDLE",
        /// The head WQE's message has been handed to the transmit engine (being sent, or
        /// sent); its answer is awaited.
        Await = 1 => "AWAIT",
        /// An RNR NAK came: the message goes again at `at`.
        Retry = 2 => "RETRY",
        /// The answer came: the head completes with `status` at the next visit.
        Answered = 3 => "ANSWERED",
    }
}

crate::codes! {
    /// Host commands (`host_op`, 4 bits); 12..15 are unknown (`BadOp`).
    pub enum HostOp: 4 {
        /// Does nothing, answers `Ok`.
        Nop = 0 => "NOP",
        /// Post WQE `w0, w1` to the SQ of QP `arg`; answers the WQE index.
        PostSq = 1 => "POST_SQ",
        /// Post WQE `w0, w1` to the RQ of QP `arg`; answers the WQE index.
        PostRq = 2 => "POST_RQ",
        /// Pop the oldest CQE of CQ `arg`; answers it, or `Empty`.
        PollCq = 3 => "POLL_CQ",
        /// Write `w0` to data-memory word `arg`.
        WriteMem = 4 => "WRITE_MEM",
        /// Answer data-memory word `arg`.
        ReadMem = 5 => "READ_MEM",
        /// Write `w0[31:0]` to counter `arg`.
        WriteCnt = 6 => "WRITE_CNT",
        /// Answer counter `arg`.
        ReadCnt = 7 => "READ_CNT",
        /// QP `arg`: `w0` is a [`QpConfig`] (each queue's CQ, whether it is managed, whether the
        /// QP is plain, whether it is reliable and its RNR retry count and delay).
        ConfigQp = 8 => "CONFIG_QP",
        /// Answer statistics counter `arg` ([`Stat`]).
        ReadStat = 9 => "READ_STAT",
        /// Counter `arg`'s receive channel: `w0` is an [`RxChannel`] (its buffer, its QP,
        /// armed or not), see "Receive channels".
        SetChannel = 10 => "SET_CHANNEL",
        /// CALC shape `arg` (1 .. [`SHAPES`]): `w0` and `w1` are its dimensions 1 and 2, each a
        /// [`ShapeDim`], see "Multi-dimensional arguments".
        SetShape = 11 => "SET_SHAPE",
    }
}

crate::codes! {
    /// Host-command response status (`host_rsp_status`, 3 bits).
    pub enum HostStatus: 3 {
        Ok = 0 => "OK",
        BadOp = 1 => "BAD_OP",
        BadIndex = 2 => "BAD_INDEX",
        /// The WQ is full (post).
        Full = 3 => "FULL",
        /// The CQ is empty (poll).
        Empty = 4 => "EMPTY",
        /// The QP is plain: it takes no cross-channel work; or a mode 2 enable names an
        /// unmanaged queue, or more than it has posted (post).
        Refused = 5 => "REFUSED",
    }
}

crate::codes! {
    /// Statistics counters (`ReadStat` index), 32 bits each, wrapping.
    pub enum Stat: 4 {
        HostBadOp = 0 => "HOST_BAD_OP",
        HostBadIndex = 1 => "HOST_BAD_INDEX",
        WqFull = 2 => "WQ_FULL",
        CqStall = 3 => "CQ_STALL",
        ErrorCqe = 4 => "ERROR_CQE",
        RxDiscard = 5 => "RX_DISCARD",
        NakReceived = 6 => "NAK_RECEIVED",
        CqOverrun = 7 => "CQ_OVERRUN",
        HostRefused = 8 => "HOST_REFUSED",
        /// A message sent again after an RNR NAK.
        RnrRetry = 9 => "RNR_RETRY",
        /// An ACK that named no WQE awaiting an answer, dropped.
        StrayAck = 10 => "STRAY_ACK",
        /// A message longer than the receive channel's buffer that took it (the buffer holds
        /// its first words).
        ChanOverrun = 11 => "CHAN_OVERRUN",
    }
}

/// The NIC's bit layouts, declared once (see [`crate::kit::layout`]): the model's field
/// structs below and the RTL's pack / unpack sub-blocks are generated from this table.
#[macro_export]
macro_rules! nic_layouts {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            /// The two words of a work-queue entry. Fields are meaningful per opcode (they
            /// overlap): `buf_*` for SEND / RECV, `peer_*` for SEND and CALC to a peer,
            /// `wait_*` for WAIT, `en_*` for SEND_EN / RECV_EN, `calc_*` for CALC.
            layout WqeWords (w0: 64, w1: 64) {
                /// `Opcode` code (any 4-bit value may be posted).
                opcode: w0[0, 4],
                /// Write a CQE on success too.
                signaled: w0[4, 1],
                /// Reserved, must be 0.
                rsvd0: w0[5, 3],
                /// SEND / RECV: buffer address.
                buf_addr: w0[8, 16],
                /// SEND / RECV: buffer length in words.
                buf_len: w0[24, 16],
                /// SEND, CALC to a peer: destination node.
                peer_node: w1[0, 8],
                /// SEND, CALC to a peer: destination QP.
                peer_qp: w1[8, 8],
                /// SEND, CALC to a peer: the receiver increments counter `peer_cnt`.
                peer_cnt_en: w1[16, 1],
                /// Reserved except in a CALC (its `calc_shape`), must be 0.
                rsvd2: w1[17, 3],
                /// Reserved, must be 0.
                rsvd1: w1[20, 4],
                /// SEND, CALC to a peer: counter id.
                peer_cnt: w1[24, 8],
                /// WAIT: 0 = on a CQ, 1 = on a counter.
                wait_kind: w0[8, 1],
                /// WAIT on a CQ: 1 = more WAITs of this group follow, the wait index stays
                /// (mlx5's `IBV_EXP_SEND_WAIT_EN_LAST` clear); 0 = the last one.
                wait_more: w0[9, 1],
                /// WAIT: CQ or counter index.
                wait_index: w0[16, 8],
                /// WAIT: count (a CQ WAIT's absolute target once posted) or threshold.
                wait_count: w1[32, 32],
                /// SEND_EN / RECV_EN: target QP.
                en_qp: w0[8, 8],
                /// SEND_EN / RECV_EN: 0 = by n, 1 = up to index, 2 = `n` from the queue's
                /// enable head (libmlx5's; 0: everything posted), 3 = up to, not including,
                /// index (what a mode 2 enable becomes when posted).
                en_mode: w0[16, 2],
                /// SEND_EN / RECV_EN in mode 2: 1 = more enables of this group follow, the
                /// enable head stays (mlx5's `IBV_EXP_SEND_WAIT_EN_LAST` clear); 0 = the last.
                en_more: w0[18, 1],
                /// SEND_EN / RECV_EN: n or index.
                en_value: w1[32, 16],
                /// CALC: ALU operation.
                calc_op: w0[8, 4],
                /// CALC: element type, the low two bits of its `Dtype` code.
                calc_dtype: w0[12, 2],
                /// CALC: the element type is floating point (`Dtype` code `4 + calc_dtype`).
                calc_fp: w0[15, 1],
                /// CALC: 0 = result to host memory, 1 = also sent to a peer.
                calc_to_peer: w0[14, 1],
                /// CALC: element count.
                calc_count: w0[16, 16],
                /// CALC: argument `a`.
                calc_a: w0[32, 16],
                /// CALC: argument `b`.
                calc_b: w0[48, 16],
                /// CALC: stride of `a` in words.
                calc_sa: w1[32, 8],
                /// CALC: stride of `b` in words.
                calc_sb: w1[40, 8],
                /// CALC: result address.
                calc_dst: w1[48, 16],
                /// CALC: its shape, 0 = one-dimensional (see "Multi-dimensional arguments").
                calc_shape: w1[17, 3],
                /// PIPE: the receive QP.
                pipe_rq: w0[8, 8],
                /// PIPE: words per buffer (chunk).
                pipe_blen: w0[16, 16],
                /// PIPE: the first buffer's address.
                pipe_base: w0[32, 16],
                /// PIPE: number of buffers.
                pipe_nbuf: w1[32, 8],
                /// PIPE: number of messages (chunks) to forward.
                pipe_count: w1[48, 16],
            }
        }
        $cb! { $args
            /// A QP's pipe context (memories `pipc0`, `pipc1`, see "Pipes"): the receive side
            /// of the PIPE that owns the QP's receive queue.
            layout PipeContext (p0: 64, p1: 64) {
                /// The first buffer.
                base: p0[0, 16],
                /// Words per buffer.
                blen: p0[16, 16],
                /// The address after the last buffer (`base + nbuf × blen`).
                bound: p0[32, 16],
                /// The buffer the next chunk fills; once every chunk has arrived, the number of
                /// words the last one stored.
                wr_addr: p0[48, 16],
                /// A PIPE owns the receive side.
                piped: p1[0, 1],
                /// The first status that is not `OK` among the chunks (`Status` code).
                status: p1[4, 4],
                /// The QP whose SQ runs the owning PIPE.
                owner: p1[8, 8],
                /// Chunks received and not yet sent (freed).
                held: p1[16, 8],
                /// Number of buffers.
                nbuf: p1[24, 8],
                /// Chunks still to receive.
                rleft: p1[32, 16],
                /// The buffer of the oldest chunk held (the next to send).
                rd_addr: p1[48, 16],
            }
        }
        $cb! { $args
            /// A 64-bit completion-queue entry.
            layout CqeWord (cqe: 64) {
                /// `Status` code.
                status: cqe[0, 4],
                /// The WQE's raw 4-bit opcode (also when unknown).
                opcode: cqe[4, 4],
                qp: cqe[8, 8],
                /// The WQE was on the receive queue.
                is_recv: cqe[16, 1],
                /// WQE index.
                index: cqe[32, 16],
                /// RECV: words stored; otherwise 0.
                len: cqe[48, 16],
            }
        }
        $cb! { $args
            /// A work queue's context word (memory `wqc`).
            layout WqContext (ctx: 64) {
                /// Producer index: WQEs posted.
                pi: ctx[0, 16],
                /// Consumer index: WQEs completed.
                ci: ctx[16, 16],
                /// Enable index.
                ei: ctx[32, 16],
                /// The queue is managed.
                managed: ctx[48, 1],
                /// The QP is plain (not cross-channel); in both of its queues' contexts.
                plain: ctx[49, 1],
                /// The CQ its completions go to.
                cq: ctx[56, 8],
            }
        }
        $cb! { $args
            /// A completion queue's counts (memory `cqp`).
            layout CqContext (counts: 64) {
                /// CQEs ever written.
                produced: counts[0, 32],
                /// CQEs popped by the host.
                consumed: counts[32, 32],
            }
        }
        $cb! { $args
            /// A CQ's wait state (memory `cqw`), see WAIT.
            layout CqWait (cqw: 64) {
                /// The index the next WAIT posted on the CQ counts from.
                index: cqw[0, 32],
                /// The largest count of the WAITs posted since the last one that moved `index`.
                count: cqw[32, 32],
            }
        }
        $cb! { $args
            /// A work queue's enable head (memory `wqen`), see SEND_EN / RECV_EN.
            layout WqEnable (wqen: 32) {
                /// The index the next mode 2 enable of the queue counts from.
                index: wqen[0, 16],
                /// The largest count of the enables posted since the last one that moved
                /// `index`.
                count: wqen[16, 16],
            }
        }
        $cb! { $args
            /// A work queue's reliability word (memory `rcc`), see "Reliable QPs": its QP's
            /// settings, and in an SQ's the answer its head WQE awaits.
            layout RcContext (rcc: 64) {
                /// The QP is reliable.
                rc: rcc[0, 1],
                /// `CONFIG_QP`'s `rnr_retry`.
                retry: rcc[1, 3],
                /// SQ: 0 = nothing awaited, 1 = awaiting the answer, 2 = retry at `at`,
                /// 3 = answered with `status` (the head WQE completes at the next visit).
                state: rcc[4, 2],
                /// SQ: retries left for the head WQE (unused with `retry` 7).
                left: rcc[8, 3],
                /// SQ: the completion status of an answered WQE.
                status: rcc[12, 4],
                /// `CONFIG_QP`'s `rnr_delay`.
                delay: rcc[16, 16],
                /// SQ: when the retry is due (`now` + `delay` when the RNR NAK was taken).
                at: rcc[32, 32],
            }
        }
        $cb! { $args
            /// One outer dimension of a CALC shape (`SET_SHAPE`'s `w0` and `w1`, memories
            /// `shape_dim1`, `shape_dim2`), see "Multi-dimensional arguments".
            layout ShapeDim (dim: 64) {
                /// Elements along the dimension (0: absent, as 1).
                count: dim[0, 16],
                /// Stride of `a` in words.
                sa: dim[16, 16],
                /// Stride of `b` in words.
                sb: dim[32, 16],
                /// Stride of the result in words.
                sd: dim[48, 16],
            }
        }
        $cb! { $args
            /// What `SET_SHAPE` derives from a shape's dimensions (memory `shape_ext`): the
            /// outer span `(n1 - 1)·s1 + (n2 - 1)·s2` of `a`, `b` and the result, each capped at
            /// `2^17 - 1` (already beyond any data memory), so that a CALC's address check and
            /// its message length need no multiplier for them.
            layout ShapeExtent (ext: 51) {
                /// `a`'s outer span.
                a: ext[0, 17],
                /// `b`'s outer span.
                b: ext[17, 17],
                /// The result's outer span.
                d: ext[34, 17],
            }
        }
        $cb! { $args
            /// A counter's receive channel (memory `chan`, `SET_CHANNEL`'s `w0`), see
            /// "Receive channels".
            layout RxChannel (chan: 48) {
                /// The buffer's address.
                addr: chan[0, 16],
                /// The buffer's length in words.
                len: chan[16, 16],
                /// The QP whose messages it takes.
                qp: chan[32, 8],
                /// The channel takes the next message (cleared when it does).
                armed: chan[40, 1],
            }
        }
        $cb! { $args
            /// `CONFIG_QP`'s `w0`.
            layout QpConfig (w0: 64) {
                sq_cq: w0[0, 8],
                rq_cq: w0[8, 8],
                sq_managed: w0[16, 1],
                rq_managed: w0[17, 1],
                /// 1: the QP is plain, not cross-channel (see "Cross-channel QPs").
                plain: w0[18, 1],
                /// 1: the QP is reliable (see "Reliable QPs").
                rc: w0[19, 1],
                /// Retries after RNR NAKs per WQE; 7: for ever.
                rnr_retry: w0[20, 3],
                /// Cycles between an RNR NAK and the retry.
                rnr_delay: w0[32, 16],
            }
        }
    };
}
crate::nic_layouts!(model_layout! {});

/// Whether a WQE sets a reserved bit (`rsvd0`, `rsvd1`, and `rsvd2` unless it is a CALC, whose
/// `calc_shape` it is). Such a WQE completes with [`Status::BadOpcode`] (on an RQ, when a
/// message consumes it).
pub fn reserved_bits(w0: u64, w1: u64) -> bool {
    let f = WqeWords::unpack(w0, w1);
    f.rsvd0 != 0 || f.rsvd1 != 0 || (f.rsvd2 != 0 && f.opcode != Opcode::Calc.code())
}

/// A shape's outer spans as `SET_SHAPE` stores them ([`ShapeExtent`]), from its dimensions.
pub fn shape_extent(d1: &ShapeDim, d2: &ShapeDim) -> ShapeExtent {
    let span = |s1: u64, s2: u64| {
        let sum = d1.count.saturating_sub(1) * s1 + d2.count.saturating_sub(1) * s2;
        sum.min((1 << 17) - 1)
    };
    ShapeExtent {
        a: span(d1.sa, d2.sa),
        b: span(d1.sb, d2.sb),
        d: span(d1.sd, d2.sd),
    }
}

/// A decoded work-queue entry. Field positions (`w0` / `w1` bit ranges) are listed per field;
/// fields an opcode does not use are zero when encoded and ignored when decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wqe {
    /// `w0[3:0]`: [`Opcode`] code (any 4-bit value may be posted).
    pub opcode: u64,
    /// `w0[4]`.
    pub signaled: bool,
    /// SEND / RECV: buffer address `w0[23:8]`; CALC: argument `a`, PIPE: the first buffer,
    /// `w0[47:32]`.
    pub addr: u64,
    /// SEND / RECV: length in words `w0[39:24]`; CALC: element count, PIPE: words per buffer,
    /// `w0[31:16]`.
    pub len: u64,
    /// SEND, CALC to a peer, PIPE: destination node `w1[7:0]`.
    pub dst: u64,
    /// SEND, CALC to a peer, PIPE: destination QP `w1[15:8]`; SEND_EN / RECV_EN: target QP
    /// `w0[15:8]`.
    pub qp: u64,
    /// SEND, CALC, PIPE: `w1[16]`.
    pub cnt_en: bool,
    /// SEND, CALC, PIPE: counter id `w1[31:24]`.
    pub cnt: u64,
    /// WAIT: 0 = CQ, 1 = counter (`w0[8]`); SEND_EN / RECV_EN: 0 = by n, 1 = up to index,
    /// 2 = from the enable head, 3 = up to, not including, index (`w0[17:16]`); CALC: target
    /// 0 = host memory, 1 = peer (`w0[14]`).
    pub mode: u64,
    /// WAIT: CQ or counter index `w0[23:16]`; PIPE: the receive QP `w0[15:8]`; CALC: its shape
    /// `w1[19:17]` (0: one-dimensional).
    pub index: u64,
    /// WAIT on a CQ: more WAITs of its group follow `w0[9]` (see WAIT); SEND_EN / RECV_EN
    /// in mode 2: more enables of its group follow `w0[18]`.
    pub more: bool,
    /// WAIT: count or threshold `w1[63:32]` (for a CQ WAIT, the NIC replaces it by the absolute
    /// target when posted); SEND_EN / RECV_EN: n or index `w1[47:32]` (in mode 2 replaced by
    /// the absolute index when posted); PIPE: number of messages `w1[63:48]`.
    pub value: u64,
    /// CALC: ALU operation `w0[11:8]` ([`crate::reduce_alu::AluOp`] code).
    pub alu_op: u64,
    /// CALC: [`crate::reduce_alu::Dtype`] code, `{w0[15], w0[13:12]}` (3 bits: 4..7 are the
    /// floating-point types).
    pub dtype: u64,
    /// CALC: argument `b` `w0[63:48]`.
    pub b: u64,
    /// CALC: result address `w1[63:48]`.
    pub dst_addr: u64,
    /// CALC: stride of `a` in words; PIPE: number of buffers; `w1[39:32]`.
    pub sa: u64,
    /// CALC: stride of `b` in words `w1[47:40]`.
    pub sb: u64,
}

impl Wqe {
    pub fn nop(signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Nop as u64,
            signaled,
            ..Default::default()
        }
    }
    #[allow(clippy::too_many_arguments)]
    pub fn send(addr: u64, len: u64, dst: u64, qp: u64, cnt: Option<u64>, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Send as u64,
            signaled,
            addr,
            len,
            dst,
            qp,
            cnt_en: cnt.is_some(),
            cnt: cnt.unwrap_or(0),
            ..Default::default()
        }
    }
    pub fn recv(addr: u64, len: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Recv as u64,
            signaled,
            addr,
            len,
            ..Default::default()
        }
    }
    /// A signaled CALC to host memory: `count` elements of `dtype` (a [`Dtype`] code),
    /// `dst[i] = a[i * sa] op b[i * sb]`, arguments given as (address, stride).
    ///
    /// [`Dtype`]: crate::reduce_alu::Dtype
    pub fn calc(op: u64, dtype: u64, count: u64, a: (u64, u64), b: (u64, u64), dst: u64) -> Wqe {
        Wqe {
            opcode: Opcode::Calc as u64,
            signaled: true,
            alu_op: op,
            dtype,
            len: count,
            addr: a.0,
            sa: a.1,
            b: b.0,
            sb: b.1,
            dst_addr: dst,
            ..Default::default()
        }
    }
    /// A signaled PIPE: `count` messages arriving at QP `rq` forwarded to QP `dst_qp` of node
    /// `dst` (with counter `cnt`) through `nbuf` buffers of `blen` words from `base`.
    #[allow(clippy::too_many_arguments)]
    pub fn pipe(
        rq: u64,
        (base, blen, nbuf): (u64, u64, u64),
        count: u64,
        dst: u64,
        dst_qp: u64,
        cnt: Option<u64>,
    ) -> Wqe {
        Wqe {
            opcode: Opcode::Pipe as u64,
            signaled: true,
            index: rq,
            addr: base,
            len: blen,
            sa: nbuf,
            value: count,
            dst,
            qp: dst_qp,
            cnt_en: cnt.is_some(),
            cnt: cnt.unwrap_or(0),
            ..Default::default()
        }
    }
    /// WAIT for `count` new completions on CQ `cq`.
    pub fn wait_cq(cq: u64, count: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Wait as u64,
            signaled,
            mode: 0,
            index: cq,
            value: count,
            ..Default::default()
        }
    }
    /// The same WAIT (or mode 2 enable) with `more` set: not the last of its group.
    pub fn with_more(self) -> Wqe {
        Wqe { more: true, ..self }
    }
    /// WAIT until counter `counter` ≥ `threshold`.
    pub fn wait_counter(counter: u64, threshold: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: Opcode::Wait as u64,
            signaled,
            mode: 1,
            index: counter,
            value: threshold,
            ..Default::default()
        }
    }
    /// SEND_EN (`recv == false`) or RECV_EN of `count` WQEs from the queue's enable head,
    /// libmlx5's (mode 2; 0 = everything posted); [`Wqe::with_more`] for one that is not the
    /// last of its group.
    pub fn enable_posted(recv: bool, qp: u64, count: u64, signaled: bool) -> Wqe {
        Wqe {
            mode: 2,
            ..Wqe::enable(recv, qp, false, count, signaled)
        }
    }
    /// SEND_EN (`recv == false`) or RECV_EN: `up_to` selects mode 1.
    pub fn enable(recv: bool, qp: u64, up_to: bool, value: u64, signaled: bool) -> Wqe {
        Wqe {
            opcode: if recv {
                Opcode::RecvEn as u64
            } else {
                Opcode::SendEn as u64
            },
            signaled,
            qp,
            mode: up_to as u64,
            value,
            ..Default::default()
        }
    }

    /// The two 64-bit words.
    pub fn encode(&self) -> (u64, u64) {
        let mut f = WqeWords {
            opcode: self.opcode,
            signaled: self.signaled as u64,
            ..Default::default()
        };
        match Opcode::from_code(self.opcode & 15) {
            Some(Opcode::Send) | Some(Opcode::Recv) => {
                f.buf_addr = self.addr;
                f.buf_len = self.len;
                if self.opcode == Opcode::Send.code() {
                    self.put_peer(&mut f);
                }
            }
            Some(Opcode::Wait) => {
                f.wait_kind = self.mode;
                f.wait_more = self.more as u64;
                f.wait_index = self.index;
                f.wait_count = self.value;
            }
            Some(Opcode::SendEn) | Some(Opcode::RecvEn) => {
                f.en_qp = self.qp;
                f.en_mode = self.mode;
                f.en_more = self.more as u64;
                f.en_value = self.value;
            }
            Some(Opcode::Calc) => {
                f.calc_op = self.alu_op;
                f.calc_dtype = self.dtype & 3;
                f.calc_fp = (self.dtype >> 2) & 1;
                f.calc_to_peer = self.mode;
                f.calc_count = self.len;
                f.calc_a = self.addr;
                f.calc_b = self.b;
                f.calc_sa = self.sa;
                f.calc_sb = self.sb;
                f.calc_dst = self.dst_addr;
                f.calc_shape = self.index;
                self.put_peer(&mut f);
            }
            Some(Opcode::Pipe) => {
                f.pipe_rq = self.index;
                f.pipe_base = self.addr;
                f.pipe_blen = self.len;
                f.pipe_nbuf = self.sa;
                f.pipe_count = self.value;
                self.put_peer(&mut f);
            }
            _ => {}
        }
        let [w0, w1] = f.pack();
        (w0, w1)
    }

    fn put_peer(&self, f: &mut WqeWords) {
        f.peer_node = self.dst;
        f.peer_qp = self.qp;
        f.peer_cnt_en = self.cnt_en as u64;
        f.peer_cnt = self.cnt;
    }

    /// Decodes the fields the opcode uses (the inverse of [`Wqe::encode`] for encoded WQEs).
    pub fn decode(w0: u64, w1: u64) -> Wqe {
        let f = WqeWords::unpack(w0, w1);
        let mut q = Wqe {
            opcode: f.opcode,
            signaled: f.signaled != 0,
            ..Default::default()
        };
        let peer = |q: &mut Wqe| {
            q.dst = f.peer_node;
            q.qp = f.peer_qp;
            q.cnt_en = f.peer_cnt_en != 0;
            q.cnt = f.peer_cnt;
        };
        match Opcode::from_code(q.opcode) {
            Some(Opcode::Send) | Some(Opcode::Recv) => {
                q.addr = f.buf_addr;
                q.len = f.buf_len;
                if q.opcode == Opcode::Send.code() {
                    peer(&mut q);
                }
            }
            Some(Opcode::Wait) => {
                q.mode = f.wait_kind;
                q.more = f.wait_more != 0;
                q.index = f.wait_index;
                q.value = f.wait_count;
            }
            Some(Opcode::SendEn) | Some(Opcode::RecvEn) => {
                q.qp = f.en_qp;
                q.mode = f.en_mode;
                q.more = f.en_more != 0;
                q.value = f.en_value;
            }
            Some(Opcode::Calc) => {
                q.alu_op = f.calc_op;
                q.dtype = f.calc_fp << 2 | f.calc_dtype;
                q.mode = f.calc_to_peer;
                q.len = f.calc_count;
                q.addr = f.calc_a;
                q.b = f.calc_b;
                q.sa = f.calc_sa;
                q.sb = f.calc_sb;
                q.dst_addr = f.calc_dst;
                q.index = f.calc_shape;
                peer(&mut q);
            }
            Some(Opcode::Pipe) => {
                q.index = f.pipe_rq;
                q.addr = f.pipe_base;
                q.len = f.pipe_blen;
                q.sa = f.pipe_nbuf;
                q.value = f.pipe_count;
                peer(&mut q);
            }
            _ => {}
        }
        q
    }
}

/// A decoded 64-bit completion-queue entry (fields as in [`CqeWord`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cqe {
    pub status: u64,
    pub opcode: u64,
    pub qp: u64,
    pub is_recv: bool,
    pub index: u64,
    pub len: u64,
}

impl Cqe {
    pub fn encode(&self) -> u64 {
        CqeWord {
            status: self.status,
            opcode: self.opcode,
            qp: self.qp,
            is_recv: self.is_recv as u64,
            index: self.index,
            len: self.len,
        }
        .pack()[0]
    }
    pub fn decode(w: u64) -> Cqe {
        let f = CqeWord::unpack(w);
        Cqe {
            status: f.status,
            opcode: f.opcode,
            qp: f.qp,
            is_recv: f.is_recv != 0,
            index: f.index,
            len: f.len,
        }
    }
}

/// The NIC's ports: the one declaration every view uses (see [`crate::kit::ports`]).
#[macro_export]
macro_rules! nic_ports {
    ($cb:ident ! $args:tt) => {
        $cb! { $args
            params $crate::nic::NicParams;
            /// Inputs of the NIC for one clock cycle.
            inputs NicIn {
                /// Synchronous reset, active high.
                reset: 1,
                /// A host command is offered.
                host_valid: 1,
                /// `HostOp` code.
                host_op: {$crate::nic::HostOp::BITS},
                /// QP, CQ, counter, statistic or word address.
                host_arg: 16,
                host_w0: 64,
                host_w1: 64,
                /// A network beat is offered.
                rx_valid: 1,
                /// 0 data, 1 NAK.
                rx_kind: 1,
                /// The sending node.
                rx_src: 8,
                /// The sending QP.
                rx_src_qp: 8,
                /// The QP addressed here.
                rx_qp: 8,
                /// Increment counter `rx_cnt` when the message has arrived.
                rx_cnt_en: 1,
                rx_cnt: 8,
                /// The sender's WQE index.
                rx_tag: 16,
                /// A data message that asks for an answer (its sender's QP is reliable).
                rx_ack: 1,
                /// The beat carries no data.
                rx_empty: 1,
                /// The final beat of the message.
                rx_last: 1,
                rx_data: 64,
                /// The network accepts the beat shown on `tx_*` this cycle.
                tx_ready: 1,
            }
            /// Outputs of the NIC in one clock cycle (registered: they depend on state only).
            outputs NicOut {
                /// A host command offered this cycle is taken.
                host_ready: 1,
                /// The response to the last host command (one cycle).
                host_rsp_valid: 1,
                /// `HostStatus` code.
                host_rsp_status: {$crate::nic::HostStatus::BITS},
                host_rsp_data: 64,
                /// The beat offered on `rx_*` this cycle is taken.
                rx_ready: 1,
                /// A beat is offered to the network.
                tx_valid: 1,
                tx_kind: 1,
                /// Destination node.
                tx_dst: 8,
                /// The sending QP here.
                tx_src_qp: 8,
                /// Destination QP.
                tx_qp: 8,
                tx_cnt_en: 1,
                tx_cnt: 8,
                tx_tag: 16,
                /// A data message that asks for an answer.
                tx_ack: 1,
                tx_empty: 1,
                tx_last: 1,
                tx_data: 64,
            }
        }
    };
}
crate::nic_ports!(model_ports! {});

impl NicIn {
    /// These inputs with `b` offered on the receive port (`rx_valid` set).
    pub fn with_rx(self, b: &crate::net::Beat) -> NicIn {
        NicIn {
            rx_valid: true,
            rx_kind: b.kind_nak,
            rx_src: b.node,
            rx_src_qp: b.src_qp,
            rx_qp: b.qp,
            rx_cnt_en: b.cnt_en,
            rx_cnt: b.cnt,
            rx_tag: b.tag,
            rx_ack: b.ack,
            rx_empty: b.empty,
            rx_last: b.last,
            rx_data: b.data,
            ..self
        }
    }
}

impl NicOut {
    /// The beat offered on the transmit port, if any (`node` is the destination).
    pub fn tx_beat(&self) -> Option<crate::net::Beat> {
        self.tx_valid.then_some(crate::net::Beat {
            kind_nak: self.tx_kind,
            node: self.tx_dst,
            src_qp: self.tx_src_qp,
            qp: self.tx_qp,
            cnt_en: self.tx_cnt_en,
            cnt: self.tx_cnt,
            tag: self.tx_tag,
            ack: self.tx_ack,
            empty: self.tx_empty,
            last: self.tx_last,
            data: self.tx_data,
        })
    }
}

/// The NIC cross-channel controller as a block (see [`crate::kit::block`]).
pub struct Nic;

impl BlockSpec for Nic {
    const NAME: &'static str = "nic";
    const DESCRIPTION: &'static str =
        "NIC cross-channel controller: QPs, CQs, counters, WAIT / SEND_EN / RECV_EN / CALC";
    const REGISTERED_OUTPUTS: bool = true;
    type Params = NicParams;
    type In = NicIn;
    type Out = NicOut;
    type Model = model::NicModel;
    type Golden = golden::NicGolden;
    fn params(cfg: &crate::config::Config) -> NicParams {
        cfg.nic
    }
    fn model(p: &NicParams) -> Self::Model {
        model::NicModel::new(*p)
    }
    fn golden(p: &NicParams) -> Self::Golden {
        golden::NicGolden::new(*p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wqe_fields_roundtrip_per_opcode() {
        let wqes = [
            Wqe::nop(true),
            Wqe::send(0x1234, 0x55, 7, 3, Some(9), false),
            Wqe::recv(0xfff0, 2, true),
            Wqe::wait_cq(5, 0xdead_beef, true),
            Wqe::wait_counter(31, 2, false),
            Wqe::enable(false, 15, true, 0xabcd, true),
            Wqe::enable(true, 2, false, 4, false),
            Wqe::pipe(3, (0x100, 8, 4), 0x1234, 9, 2, Some(5)),
            Wqe {
                opcode: Opcode::Calc as u64,
                signaled: true,
                alu_op: 11,
                dtype: 3,
                mode: 1,
                len: 0x100,
                addr: 0x200,
                b: 0x300,
                dst: 4,
                qp: 5,
                cnt_en: true,
                cnt: 6,
                sa: 2,
                sb: 0,
                dst_addr: 0x400,
                ..Default::default()
            },
        ];
        for q in wqes {
            let (w0, w1) = q.encode();
            assert_eq!(Wqe::decode(w0, w1), q, "{q:?}");
        }
        // Positions checked against the documented bit ranges, not against encode itself.
        let (w0, w1) = Wqe::send(0x1234, 0x55, 7, 3, Some(9), true).encode();
        assert_eq!(w0, 0x0000_5512_3411);
        assert_eq!(w1, 0x0901_0307);
        let (w0, w1) = Wqe::pipe(3, (0x100, 8, 4), 0x1234, 9, 2, Some(5)).encode();
        assert_eq!(w0, 0x0100_0008_0317);
        assert_eq!(w1, 0x1234_0004_0501_0209);
    }

    #[test]
    fn cqe_roundtrip_and_layout() {
        let c = Cqe {
            status: 5,
            opcode: 1,
            qp: 0xab,
            is_recv: true,
            index: 0x1234,
            len: 0xffff,
        };
        assert_eq!(c.encode(), 0xffff_1234_0001_ab15);
        assert_eq!(Cqe::decode(c.encode()), c);
    }

    #[test]
    fn ports_are_narrow_enough_for_the_cosimulation() {
        use crate::kit::ports::PortValues;
        let p = NicParams::default();
        for s in NicIn::specs(&p).iter().chain(NicOut::specs(&p).iter()) {
            assert!(s.width >= 1 && s.width <= 64, "{s:?}");
        }
        assert_eq!(NicIn::specs(&p).len(), 19);
        assert_eq!(NicOut::specs(&p).len(), 17);
        assert_eq!(NicIn::default().to_values(&p).len(), 19);
    }

    #[test]
    fn context_layouts_are_pinned() {
        // Written out by hand from the module docs of `model`.
        let c = WqContext {
            pi: 0x1234,
            ci: 0x5678,
            ei: 0x9abc,
            managed: 1,
            plain: 1,
            cq: 0xef,
        };
        assert_eq!(c.pack()[0], 0xef03_9abc_5678_1234);
        let w = CqWait {
            index: 0x8000_0001,
            count: 3,
        };
        assert_eq!(w.pack()[0], 0x3_8000_0001);
        let q = CqContext {
            produced: 7,
            consumed: 0xffff_ffff,
        };
        assert_eq!(q.pack()[0], 0xffff_ffff_0000_0007);
        let qc = QpConfig {
            sq_cq: 3,
            rq_cq: 5,
            sq_managed: 0,
            rq_managed: 1,
            plain: 1,
            rc: 1,
            rnr_retry: 5,
            rnr_delay: 0x1234,
        };
        assert_eq!(qc.pack()[0], 0x1234_005E_0503);
        let rc = RcContext {
            rc: 1,
            retry: 7,
            state: 2,
            left: 5,
            status: 9,
            delay: 0xabcd,
            at: 0x8765_4321,
        };
        assert_eq!(rc.pack()[0], 0x8765_4321_ABCD_952F);
        assert!(
            WqeWords::unpack(1 << 9, 0).wait_more == 1
                && reserved_bits(1 << 5, 0)
                && reserved_bits(0, 1 << 23)
                && !reserved_bits(!0xE0 & 0xFF, !(0x7F << 17))
        );
    }
}
