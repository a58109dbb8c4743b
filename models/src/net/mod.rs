//! # Network vocabulary
//!
//! What travels between blocks, shared by the blocks' ports, the testbench drivers and (next)
//! the fabric simulator:
//!
//! - [`header`]: the collective packet header the switch engine processes;
//! - [`message`]: a whole NIC message (data or NAK), as a host program sees it;
//! - [`beat`]: one beat (flit) of a message on a NIC port, and the [`beat::Reassembler`] that
//!   turns a stream of beats back into messages;
//! - [`link`]: a point-to-point link with latency, a bounded buffer and valid/ready
//!   back-pressure.

pub mod beat;
pub mod header;
pub mod link;
pub mod message;

pub use beat::{Beat, Reassembler};
pub use header::{Opcode, Packet};
pub use link::Link;
pub use message::Message;
