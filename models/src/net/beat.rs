//! # Beats
//!
//! A beat is one transfer on a NIC network port (`rx_*` / `tx_*`): one 64-bit data word and
//! the message header, repeated on every beat of a message. [`super::Message::beats`] splits a
//! message into beats; a [`Reassembler`] collects a beat stream back into messages and checks
//! that it is well formed.

use super::message::Message;

/// One beat on a NIC network port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Beat {
    /// false = data, true = NAK.
    pub kind_nak: bool,
    /// Received: the source node. Sent: the destination node.
    pub node: u64,
    pub src_qp: u64,
    pub qp: u64,
    pub cnt_en: bool,
    pub cnt: u64,
    pub tag: u64,
    /// A data message that asks for an answer (see the NIC's "Reliable QPs").
    pub ack: bool,
    /// The beat carries no data word (an empty message, or a NAK whose data is its reason).
    pub empty: bool,
    /// The final beat of its message.
    pub last: bool,
    pub data: u64,
}

impl Beat {
    /// The header fields, which must not change within a message.
    fn header(&self) -> (bool, u64, u64, u64, bool, u64, u64, bool) {
        (
            self.kind_nak,
            self.node,
            self.src_qp,
            self.qp,
            self.cnt_en,
            self.cnt,
            self.tag,
            self.ack,
        )
    }
}

/// Collects beats into messages.
#[derive(Clone, Debug, Default)]
pub struct Reassembler {
    partial: Option<(Beat, Vec<u64>)>,
}

impl Reassembler {
    /// Takes one beat; returns the message it completes, or an error if the stream is not well
    /// formed (the header changed within a message, or an empty beat inside a longer message).
    pub fn push(&mut self, b: &Beat) -> Result<Option<Message>, String> {
        let (first, data) = self.partial.get_or_insert_with(|| (*b, vec![]));
        if first.header() != b.header() {
            return Err(format!(
                "the header changed within a message (first beat {first:?}, now {b:?})"
            ));
        }
        if b.empty {
            if !b.last || !data.is_empty() {
                return Err(format!(
                    "an empty beat that is not a whole message (last = {}, {} beats before)",
                    b.last,
                    data.len()
                ));
            }
            if b.kind_nak {
                data.push(b.data); // a NAK's reason
            }
        } else {
            data.push(b.data);
        }
        if !b.last {
            return Ok(None);
        }
        let Some((h, data)) = self.partial.take() else {
            return Ok(None);
        };
        Ok(Some(Message {
            kind_nak: h.kind_nak,
            node: h.node,
            src_qp: h.src_qp,
            qp: h.qp,
            cnt: h.cnt_en.then_some(h.cnt),
            tag: h.tag,
            ack: h.ack,
            data,
        }))
    }

    /// Beats of a message not yet complete.
    pub fn pending(&self) -> usize {
        self.partial.as_ref().map_or(0, |(_, d)| d.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_streams_are_errors() {
        let mut r = Reassembler::default();
        let b = Beat {
            data: 1,
            ..Default::default()
        };
        assert_eq!(r.push(&b), Ok(None));
        assert_eq!(r.pending(), 1);
        let changed = Beat {
            tag: 4,
            last: true,
            ..b
        };
        assert!(r.push(&changed).unwrap_err().contains("header changed"));
        let mut r = Reassembler::default();
        let empty_not_last = Beat {
            empty: true,
            ..Default::default()
        };
        assert!(r.push(&empty_not_last).unwrap_err().contains("empty beat"));
    }
}
