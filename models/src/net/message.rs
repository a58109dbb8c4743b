//! # NIC messages
//!
//! A message is what a SEND (or a CALC to a peer) transmits and a RECV receives: a header
//! and zero or more 64-bit data words, carried as [`Beat`]s. A NAK is a message too: one empty
//! beat whose data word is the reason (a NIC completion status code).

use super::beat::Beat;
use serde::Serialize;

/// One whole message on the network, as received or sent.
///
/// A data message with no words (`data` empty) is one `empty` beat. A NAK is always one
/// `empty` beat whose data word carries the reason; here `data` is `[reason]` for a NAK (a NAK
/// given with `data` empty has reason 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Message {
    /// `kind`: false = data, true = NAK.
    pub kind_nak: bool,
    /// Received: the source node. Sent: the destination node.
    pub node: u64,
    /// The QP at the sending end.
    pub src_qp: u64,
    /// The QP at the receiving end.
    pub qp: u64,
    /// The counter the receiver increments (`cnt_en`, `cnt`).
    pub cnt: Option<u64>,
    /// The sender's WQE index (`tag`).
    pub tag: u64,
    /// A data message that asks for an answer (see the NIC's "Reliable QPs"); left out of
    /// the JSON when false, as before the field existed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ack: bool,
    /// The data words; empty for an empty message; `[reason]` for a NAK.
    pub data: Vec<u64>,
}

impl Message {
    /// The message as beats; each beat carries the whole header, `last` is set on the final
    /// one, and a NAK or a message without data is one `empty` beat.
    pub fn beats(&self) -> Vec<Beat> {
        let base = Beat {
            kind_nak: self.kind_nak,
            node: self.node,
            src_qp: self.src_qp,
            qp: self.qp,
            cnt_en: self.cnt.is_some(),
            cnt: self.cnt.unwrap_or(0),
            tag: self.tag,
            ack: self.ack,
            ..Default::default()
        };
        if self.kind_nak || self.data.is_empty() {
            return vec![Beat {
                empty: true,
                last: true,
                data: self.data.first().copied().unwrap_or(0),
                ..base
            }];
        }
        let n = self.data.len();
        self.data
            .iter()
            .enumerate()
            .map(|(k, &d)| Beat {
                last: k + 1 == n,
                data: d,
                ..base
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Reassembler;

    #[test]
    fn beats_and_back() {
        let m = Message {
            kind_nak: false,
            node: 3,
            src_qp: 1,
            qp: 2,
            cnt: Some(7),
            tag: 9,
            ack: true,
            data: vec![10, 20, 30],
        };
        let beats = m.beats();
        assert_eq!(beats.len(), 3);
        assert!(beats[2].last && !beats[1].last && !beats[0].empty);
        let mut r = Reassembler::default();
        assert_eq!(r.push(&beats[0]), Ok(None));
        assert_eq!(r.push(&beats[1]), Ok(None));
        assert_eq!(r.push(&beats[2]), Ok(Some(m.clone())));
        // An empty data message and a NAK are one empty beat each.
        let e = Message {
            data: vec![],
            ..m.clone()
        };
        assert_eq!(e.beats().len(), 1);
        assert_eq!(r.push(&e.beats()[0]), Ok(Some(e)));
        let nak = Message {
            kind_nak: true,
            cnt: None,
            ack: false,
            data: vec![7],
            ..m
        };
        assert_eq!(nak.beats()[0].data, 7);
        assert_eq!(r.push(&nak.beats()[0]), Ok(Some(nak)));
    }
}
