//! # Collective packet format
//!
//! A collective packet is one 64-bit header word, optionally followed by `plen` 64-bit payload
//! words. The header is packed LSB first; with `G = log2(groups)` ([`SwitchEngineParams::cgid_bits`])
//! and `P = log2(radix)` ([`SwitchEngineParams::port_bits`]):
//!
//! | bits                    | field   | width | meaning                                              |
//! |-------------------------|---------|-------|------------------------------------------------------|
//! | `[2:0]`                 | `op`    | 3     | [`Opcode`] code; 4..7 are reserved                   |
//! | `[4:3]`                 | `tid`   | 2     | transaction id ([`TID_BITS`])                        |
//! | `[12:5]`                | `plen`  | 8     | payload length in 64-bit words (0: a barrier packet) |
//! | `[16:13]`               | `rop`   | 4     | reduction operation ([`AluOp`] code; 0 without payload) |
//! | `[19:17]`               | `dtype` | 3     | element type ([`Dtype`](crate::reduce_alu::Dtype) code; 0 without payload) |
//! | `[20+G-1:20]`           | `cgid`  | `G`   | collective group id                                  |
//! | `[20+G+P-1:20+G]`       | `port`  | `P`   | ingress port (filled in by the switch's MAC side)    |
//! | `[63:20+G+P]`           | —       | rest  | must be zero                                         |
//!
//! The header is therefore [`header_bits`]`(p) = 20 + G + P` bits: 26 bits for
//! [`SwitchEngineParams::SMALL`] (`G = 4`, `P = 2`), 32 bits for the default (`G = 8`, `P = 4`) and at
//! most 37 bits (`G = 12`, `P = 5`), so it always fits one word. What a payload means, and
//! which headers the switch engine refuses (a `plen` above its `max_plen`, reduction fields
//! on a packet without payload, …), is the engine's business: see "Reductions" in
//! [`crate::switch_engine`].
//!
//! Why these choices:
//! - `op` and `tid` sit at fixed low positions, and so do the reduction fields, so that a
//!   decoder can classify a packet without knowing the parameters; the parameter-dependent
//!   fields come last.
//! - `plen` counts words up to 255: an engine carries at most `max_plen` (128 words, a
//!   kilobyte, so that the 8-byte header costs under 1 % of a link's rate).
//! - Bits above the header must be zero so that a header built for a larger configuration (more
//!   groups or ports) is caught instead of being silently truncated to a different group.
//! - `port` is the *ingress* port; it is part of the word because the engine receives the packet
//!   together with the port it arrived on (`pkt_port`), and the testbench streams whole words.
//!
//! **Changed in issue 11 (floating point in the switch):** `dtype` was 2 bits (the integer
//! types); it is 3, so `cgid` and `port` start at bit 20 (they started at bit 19). A header word
//! written for the old layout decodes differently.
//!
//! **Changed in issue 10:** `plen` was 4 bits and had to be 0 (a packet with a payload was
//! rejected by [`Packet::decode`]); it is 8 bits, followed by `rop` and `dtype`, so `cgid` and
//! `port` start at bit 19 (they started at bit 9). A header word written for the old layout
//! decodes differently.

use crate::kit::layout::Layout;
use crate::kit::ports::mask;
use crate::reduce_alu::AluOp;
use crate::switch_engine::{SwitchEngineParams, OP_BITS, TID_BITS};
use thiserror::Error;

/// Width of the `plen` field.
pub const PLEN_BITS: usize = 8;
/// Width of the `rop` field (an [`AluOp`] code).
pub const ROP_BITS: usize = AluOp::BITS;
/// Width of the `dtype` field (a [`Dtype`](crate::reduce_alu::Dtype) code).
pub const DTYPE_BITS: usize = crate::reduce_alu::Dtype::BITS;

/// The header's layout for parameters `p`: `op`, `tid`, `plen`, `rop`, `dtype`, `cgid`, `port`,
/// LSB first.
pub fn layout(p: &SwitchEngineParams) -> Layout {
    Layout::packed(&[
        ("op", OP_BITS),
        ("tid", TID_BITS),
        ("plen", PLEN_BITS),
        ("rop", ROP_BITS),
        ("dtype", DTYPE_BITS),
        ("cgid", p.cgid_bits()),
        ("port", p.port_bits()),
    ])
}

/// Total header width in bits for parameters `p` (`20 + G + P`).
pub fn header_bits(p: &SwitchEngineParams) -> usize {
    layout(p).width()
}

crate::codes! {
    /// Collective opcodes (`pkt_op` / `out_op`). Codes 4..7 are reserved: they can appear in a
    /// [`Packet`] (whose `op` is a raw code) and the engine drops them with
    /// [`crate::switch_engine::Verdict::BadOpcode`].
    pub enum Opcode: 3 {
        /// Child → parent: "my subtree has reached Full in transaction `tid`".
        Full = 0 => "FULL",
        /// Parent → children: "transaction `tid` completed, exit".
        Exit = 1 => "EXIT",
        /// Child → parent: "what became of transaction `tid`?" (sent by a child that is Full and
        /// suspects a lost Exit).
        StatusReq = 2 => "STATUS_REQ",
        /// Parent → one child: "transaction `tid` completed" (the answer to a lagging child).
        StatusRsp = 3 => "STATUS_RSP",
    }
}

/// A decoded collective packet header.
///
/// `op`, `rop` and `dtype` are raw codes rather than enums so that packets with reserved codes
/// can be represented (the engine must see them in order to drop and count them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Packet {
    /// Ingress port (`P` bits).
    pub port: u64,
    /// Collective group id (`G` bits).
    pub cgid: u64,
    /// Transaction id (2 bits).
    pub tid: u64,
    /// Raw opcode (3 bits); see [`Opcode`].
    pub op: u64,
    /// Payload words that follow the header (7 bits).
    pub plen: u64,
    /// Raw reduction operation (4 bits); see [`AluOp`].
    pub rop: u64,
    /// Raw element type (3 bits); see [`Dtype`](crate::reduce_alu::Dtype).
    pub dtype: u64,
}

/// Why a header word is not a valid packet for the given parameters.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
pub enum PacketError {
    /// Bits above the header are set: typically a header built for a larger configuration.
    #[error(
        "packet header word {word:#x} has bits set above the {width}-bit header \
         (field `reserved` = {extra:#x})"
    )]
    BitsAboveHeader { word: u64, width: usize, extra: u64 },
    /// A field of a [`Packet`] does not fit its width (only from [`Packet::check`]).
    #[error("packet field `{field}` = {value} does not fit in {width} bits")]
    FieldTooWide {
        field: &'static str,
        value: u64,
        width: usize,
    },
}

impl Packet {
    /// The defined opcode, or `None` if `op` is reserved.
    pub fn opcode(&self) -> Option<Opcode> {
        Opcode::from_code(self.op)
    }

    /// Checks that every field fits its width for `p` (the precondition of [`Packet::encode`]).
    pub fn check(&self, p: &SwitchEngineParams) -> Result<(), PacketError> {
        let fields = [
            ("op", self.op, OP_BITS),
            ("tid", self.tid, TID_BITS),
            ("plen", self.plen, PLEN_BITS),
            ("rop", self.rop, ROP_BITS),
            ("dtype", self.dtype, DTYPE_BITS),
            ("cgid", self.cgid, p.cgid_bits()),
            ("port", self.port, p.port_bits()),
        ];
        for (field, value, width) in fields {
            if value > mask(width) {
                return Err(PacketError::FieldTooWide {
                    field,
                    value,
                    width,
                });
            }
        }
        Ok(())
    }

    /// Encodes the header as one word.
    ///
    /// # Panics
    /// If a field does not fit its width: silently truncating would turn the packet into one of
    /// a different group or port. Use [`Packet::check`] first on values that are not known to fit.
    pub fn encode(&self, p: &SwitchEngineParams) -> u64 {
        if let Err(e) = self.check(p) {
            panic!("Packet::encode: {e}");
        }
        let l = layout(p);
        [
            ("op", self.op),
            ("tid", self.tid),
            ("plen", self.plen),
            ("rop", self.rop),
            ("dtype", self.dtype),
            ("cgid", self.cgid),
            ("port", self.port),
        ]
        .into_iter()
        .fold(0, |w, (field, v)| l.put(w, field, v))
    }

    /// Decodes a header word for parameters `p`, rejecting any bit set above the header.
    /// Reserved codes and payload fields the engine refuses are *not* an error here (the
    /// engine drops and counts them).
    pub fn decode(word: u64, p: &SwitchEngineParams) -> Result<Packet, PacketError> {
        let width = header_bits(p);
        let extra = word >> width;
        if extra != 0 {
            return Err(PacketError::BitsAboveHeader { word, width, extra });
        }
        let l = layout(p);
        Ok(Packet {
            op: l.get(word, "op"),
            tid: l.get(word, "tid"),
            plen: l.get(word, "plen"),
            rop: l.get(word, "rop"),
            dtype: l.get(word, "dtype"),
            cgid: l.get(word, "cgid"),
            port: l.get(word, "port"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_widths() {
        assert_eq!(header_bits(&SwitchEngineParams::SMALL), 20 + 4 + 2);
        assert_eq!(header_bits(&SwitchEngineParams::default()), 20 + 8 + 4);
        let biggest = SwitchEngineParams::sized(32, 4096, 32);
        assert_eq!(header_bits(&biggest), 20 + 12 + 5);
    }

    #[test]
    fn hand_encoded_word() {
        // default params: op at 0, tid at 3, plen at 5, rop at 13, dtype at 17 (3 bits), cgid
        // at 20 (8 bits), port at 28 (4 bits)
        let p = SwitchEngineParams::default();
        let pkt = Packet {
            port: 0xA,
            cgid: 0x5C,
            tid: 2,
            op: 3,
            ..Default::default()
        };
        let word = 3 | (2 << 3) | (0x5C << 20) | (0xA << 28);
        assert_eq!(pkt.encode(&p), word);
        assert_eq!(Packet::decode(word, &p), Ok(pkt));
        // A reduction: 32 words of SUM (4) over I64 (2).
        let red = Packet {
            plen: 32,
            rop: 4,
            dtype: 2,
            ..pkt
        };
        let word = word | (32 << 5) | (4 << 13) | (2 << 17);
        assert_eq!(red.encode(&p), word);
        assert_eq!(Packet::decode(word, &p), Ok(red));
        // SMALL: cgid at 20 (4 bits), port at 24 (2 bits); F64 is dtype 7
        let s = SwitchEngineParams::SMALL;
        let pkt = Packet {
            port: 3,
            cgid: 0xF,
            tid: 1,
            op: 7,
            plen: 255,
            rop: 15,
            dtype: 7,
        };
        assert_eq!(
            pkt.encode(&s),
            7 | (1 << 3) | (255 << 5) | (15 << 13) | (7 << 17) | (0xF << 20) | (3 << 24)
        );
    }

    fn roundtrip_all(p: SwitchEngineParams) {
        for port in 0..p.radix as u64 {
            for cgid in 0..p.groups as u64 {
                for tid in 0..4 {
                    for op in 0..8 {
                        // The reduction fields at a few values each, varied with the others.
                        let k = port + cgid + tid + op;
                        let pkt = Packet {
                            port,
                            cgid,
                            tid,
                            op,
                            plen: [0, 1, 128, 255][(k % 4) as usize],
                            rop: k % 16,
                            dtype: (k / 4) % 4,
                        };
                        let w = pkt.encode(&p);
                        assert!(w >> header_bits(&p) == 0);
                        assert_eq!(Packet::decode(w, &p), Ok(pkt), "{pkt:?} word {w:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn roundtrip_small() {
        roundtrip_all(SwitchEngineParams::SMALL);
    }

    #[test]
    fn roundtrip_default() {
        roundtrip_all(SwitchEngineParams::default());
    }

    #[test]
    fn opcode_codes() {
        assert_eq!(Opcode::from_code(0), Some(Opcode::Full));
        assert_eq!(Opcode::from_code(1), Some(Opcode::Exit));
        assert_eq!(Opcode::from_code(2), Some(Opcode::StatusReq));
        assert_eq!(Opcode::from_code(3), Some(Opcode::StatusRsp));
        for c in 4..8 {
            assert_eq!(Opcode::from_code(c), None);
        }
        assert_eq!(Opcode::from_code(u64::MAX), None);
        assert_eq!(
            Packet {
                op: 5,
                ..Default::default()
            }
            .opcode(),
            None
        );
    }

    #[test]
    fn bits_above_header_rejected() {
        let s = SwitchEngineParams::SMALL; // 26-bit header
        let word = 1u64 << 26;
        let err = Packet::decode(word, &s).unwrap_err();
        assert_eq!(
            err,
            PacketError::BitsAboveHeader {
                word,
                width: 26,
                extra: 1
            }
        );
        let msg = err.to_string();
        assert!(msg.contains("0x4000000") && msg.contains("26-bit"), "{msg}");
        // A default-params header with a high CGID is not a SMALL header.
        let d = SwitchEngineParams::default();
        let big = Packet {
            cgid: 0x80,
            ..Default::default()
        }
        .encode(&d);
        assert!(matches!(
            Packet::decode(big, &s),
            Err(PacketError::BitsAboveHeader { .. })
        ));
        assert!(Packet::decode(u64::MAX, &d).is_err());
    }

    #[test]
    #[should_panic(expected = "`cgid` = 16 does not fit in 4 bits")]
    fn encode_panics_on_wide_field() {
        Packet {
            cgid: 16,
            ..Default::default()
        }
        .encode(&SwitchEngineParams::SMALL);
    }

    #[test]
    fn check_rejects_wide_fields() {
        let s = SwitchEngineParams::SMALL;
        let pkt = Packet {
            port: 4,
            ..Default::default()
        };
        let err = pkt.check(&s).unwrap_err();
        assert_eq!(
            err,
            PacketError::FieldTooWide {
                field: "port",
                value: 4,
                width: 2
            }
        );
        assert!(err.to_string().contains("`port` = 4"));
        let bad_tid = Packet {
            tid: 4,
            ..Default::default()
        };
        assert!(matches!(
            bad_tid.check(&s),
            Err(PacketError::FieldTooWide { field: "tid", .. })
        ));
        let long = Packet {
            plen: 256,
            ..Default::default()
        };
        assert!(matches!(
            long.check(&s),
            Err(PacketError::FieldTooWide { field: "plen", .. })
        ));
    }
}
