//! # The compute node's CSM (software "local root")
//!
//! The seed's tree has two kinds of member: switches, whose CSM is the hardware engine, and
//! compute nodes, the *local roots*, whose CSM is software. A node's children are its local
//! processes; its parent is the switch port it is attached to. Per group:
//!
//! 1. Idle → Filling when the first local process enters barrier `k`; Filling → Full when the
//!    last one has; then (after the node's software overhead) FULL(`tid`) goes to the parent.
//! 2. In Full, an EXIT(`T`) or STATUS_RSP(`T`) with `T == tid` completes the barrier: Full →
//!    Exiting → Idle, the processes leave (after the overhead), `tid` advances mod 4 and `k`
//!    by one.
//! 3. Anything else from the parent is stale news (an old transaction, or a duplicate) and is
//!    ignored: a node can never be told about a transaction ahead of its own, because the root
//!    completes a transaction only after every member's FULL.
//! 4. In Full, after `retry_timeout` cycles without completion, FULL(`tid`) is sent again, and
//!    again every `retry_timeout` until the barrier completes. FULL is the retry because it is
//!    idempotent (the switch counts each child once per transaction, by its `reported` bit)
//!    and answers both failures: a lost FULL is counted when the retry arrives, a lost Exit is
//!    answered by the switch, which has moved on (Lag: STATUS_RSP(`T`)).
//! 5. The node never sends STATUS_REQ: under the engine's rules a STATUS_REQ from a child
//!    that has not reported is not counted, so it could not recover a lost FULL.
//!
//! Timing (when processes enter, the overhead, the timer) is the simulator's; this module is
//! the state machine.
//!
//! ## Reductions
//!
//! In a reduction group ([`crate::collective`]) the processes enter an operation as they enter
//! a barrier (rule 1), and the node then streams the operation's chunks through the group's
//! pool of CGIDs, each of which has a [`ChunkSlot`] (the rules above, per CGID, with the data):
//!
//! 6. A slot carries one chunk at a time: FULL(`tid`) with the node's contribution to it.
//!    The first `window` chunks go out at once, chunk `c` on slot `c mod window`; when a slot's
//!    chunk completes, the slot takes the chunk `window` further on, if there is one.
//! 7. An EXIT(`T`) or STATUS_RSP(`T`) with `T` the slot's `tid` completes its chunk (its data
//!    is the chunk's result); anything else is stale (rule 3). The slot keeps the result
//!    (with `T`) until its next chunk completes: the subnet manager hands it to a member that
//!    missed it when a rebuilt tree can no longer answer (see [`crate::sim`]).
//! 8. The retry (rule 4) is per slot and re-sends FULL(`tid`) with the same contribution.
//! 9. The operation completes (the processes are released, after the overhead) when every
//!    chunk has completed.

use netcoll_models::net::header::Opcode;

/// A node's CSM state in one group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    Idle,
    Filling,
    Full,
    /// Every barrier of the run is done.
    Done,
    /// The node has left the group (or lost its link for good).
    Left,
}

/// One node's CSM for one group.
#[derive(Clone, Debug)]
pub struct NodeCsm {
    pub state: NodeState,
    /// Transaction id of the current barrier (2 bits).
    pub tid: u64,
    /// Index of the current barrier (0-based).
    pub k: u64,
    /// Local processes that have entered barrier `k`.
    pub entered: u64,
    procs: u64,
    barriers: u64,
}

/// What a packet from the parent did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reaction {
    /// Barrier `k` completed here: release the processes.
    Release { k: u64 },
    /// Stale news, ignored (rule 3).
    Ignored,
}

impl NodeCsm {
    /// A node with `procs` local processes that will run `barriers` barriers, starting at
    /// `tid` (0 for a new group).
    pub fn new(procs: u64, barriers: u64, tid: u64) -> NodeCsm {
        NodeCsm {
            state: if barriers == 0 {
                NodeState::Done
            } else {
                NodeState::Idle
            },
            tid: tid & 3,
            k: 0,
            entered: 0,
            procs: procs.max(1),
            barriers,
        }
    }

    /// A local process enters the current barrier (rule 1). Returns true when it was the last
    /// one: the node is Full and must send FULL(`tid`).
    pub fn enter(&mut self) -> bool {
        if !matches!(self.state, NodeState::Idle | NodeState::Filling) {
            return false;
        }
        self.entered += 1;
        self.state = NodeState::Filling;
        if self.entered >= self.procs {
            self.state = NodeState::Full;
            true
        } else {
            false
        }
    }

    /// A packet from the parent (rules 2 and 3).
    pub fn on_packet(&mut self, op: u64, tid: u64) -> Reaction {
        if self.state == NodeState::Full && completes(op) && tid == self.tid {
            self.tid = (self.tid + 1) & 3;
            self.complete()
        } else {
            Reaction::Ignored
        }
    }

    /// The current operation completes (rule 2 for a barrier, rule 9 for a reduction): the
    /// processes are released and the node moves to the next operation.
    pub fn complete(&mut self) -> Reaction {
        if self.state != NodeState::Full {
            return Reaction::Ignored;
        }
        let k = self.k;
        self.k += 1;
        self.entered = 0;
        self.state = if self.k >= self.barriers {
            NodeState::Done
        } else {
            NodeState::Idle
        };
        Reaction::Release { k }
    }

    /// Whether the retry timer should send FULL again (rule 4).
    pub fn wants_retry(&self) -> bool {
        self.state == NodeState::Full
    }

    /// The node leaves the group.
    pub fn leave(&mut self) {
        self.state = NodeState::Left;
    }
}

/// Whether `op` from the parent completes a transaction (EXIT or STATUS_RSP).
fn completes(op: u64) -> bool {
    op == Opcode::Exit.code() || op == Opcode::StatusRsp.code()
}

/// One CGID of a reduction group's pool at a node (rules 6 to 8).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkSlot {
    /// The slot's transaction id (2 bits).
    pub tid: u64,
    /// The chunk in flight, `(operation, chunk)`, while the slot is Full.
    pub busy: Option<(u64, u64)>,
}

impl ChunkSlot {
    /// The slot sends chunk `c` of operation `k` (rule 6).
    pub fn send(&mut self, k: u64, c: u64) {
        self.busy = Some((k, c));
    }

    /// A packet from the parent (rule 7): the chunk it completes, if it does.
    pub fn on_packet(&mut self, op: u64, tid: u64) -> Option<(u64, u64)> {
        if self.busy.is_some() && completes(op) && tid == self.tid {
            self.tid = (self.tid + 1) & 3;
            self.busy.take()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_after_the_last_process_and_released_by_exit_of_its_tid_only() {
        let mut n = NodeCsm::new(2, 2, 3);
        assert!(!n.enter());
        assert_eq!(n.state, NodeState::Filling);
        assert!(n.enter());
        assert_eq!(n.state, NodeState::Full);
        // An EXIT of the previous transaction (2) or a FULL is ignored.
        assert_eq!(n.on_packet(Opcode::Exit.code(), 2), Reaction::Ignored);
        assert_eq!(n.on_packet(Opcode::Full.code(), 3), Reaction::Ignored);
        assert_eq!(
            n.on_packet(Opcode::StatusRsp.code(), 3),
            Reaction::Release { k: 0 }
        );
        assert_eq!((n.state, n.tid, n.k), (NodeState::Idle, 0, 1));
        // A duplicate of that EXIT arrives later: stale.
        assert_eq!(n.on_packet(Opcode::Exit.code(), 3), Reaction::Ignored);
        assert!(!n.enter() && n.enter());
        assert_eq!(
            n.on_packet(Opcode::Exit.code(), 0),
            Reaction::Release { k: 1 }
        );
        assert_eq!(n.state, NodeState::Done);
        assert!(!n.enter() && !n.wants_retry());
    }

    #[test]
    fn a_slot_completes_its_chunk_on_its_tid_only() {
        let mut s = ChunkSlot { tid: 3, busy: None };
        // Nothing in flight: an answer is stale.
        assert_eq!(s.on_packet(Opcode::Exit.code(), 3), None);
        s.send(5, 2);
        assert_eq!(s.on_packet(Opcode::Exit.code(), 2), None);
        assert_eq!(s.on_packet(Opcode::Full.code(), 3), None);
        assert_eq!(s.on_packet(Opcode::StatusRsp.code(), 3), Some((5, 2)));
        assert_eq!((s.tid, s.busy), (0, None));
        assert_eq!(s.on_packet(Opcode::Exit.code(), 3), None);
    }

    #[test]
    fn complete_releases_a_full_node_only() {
        let mut n = NodeCsm::new(1, 1, 0);
        assert_eq!(n.complete(), Reaction::Ignored);
        assert!(n.enter());
        assert_eq!(n.complete(), Reaction::Release { k: 0 });
        assert_eq!((n.state, n.tid), (NodeState::Done, 0));
    }
}
