//! # Links
//!
//! A [`Link`] is a one-way, point-to-point channel between two ports, modelled cycle by cycle:
//! an item pushed in cycle `t` reaches the receiver in cycle `t + latency`; at most
//! `capacity` items are in flight or waiting at the receiver (its buffer, i.e. the sender's
//! credits), and the sender sees `ready` low ([`Link::can_push`]) while the link is full. The
//! receiver takes the oldest arrived item when it is ready. Items stay in order.
//!
//! The owner calls [`Link::tick`] once at the end of every cycle.

use std::collections::VecDeque;

/// A one-way link with latency and a bounded buffer (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Link<T> {
    latency: u64,
    capacity: usize,
    now: u64,
    /// (first cycle the receiver sees it, item), oldest first.
    items: VecDeque<(u64, T)>,
}

impl<T> Link<T> {
    /// A link with `latency` cycles and room for `capacity` items (at least 1).
    pub fn new(latency: u64, capacity: usize) -> Link<T> {
        Link {
            latency,
            capacity: capacity.max(1),
            now: 0,
            items: VecDeque::new(),
        }
    }

    /// A link that never back-pressures.
    pub fn unbounded(latency: u64) -> Link<T> {
        Link::new(latency, usize::MAX)
    }

    /// `ready` toward the sender: a push this cycle is accepted.
    pub fn can_push(&self) -> bool {
        self.items.len() < self.capacity
    }

    /// Sends `item` this cycle; gives it back if the link is full.
    pub fn push(&mut self, item: T) -> Result<(), T> {
        if !self.can_push() {
            return Err(item);
        }
        self.items.push_back((self.now + self.latency, item));
        Ok(())
    }

    /// `valid` toward the receiver: the oldest item, once it has arrived.
    pub fn front(&self) -> Option<&T> {
        self.items
            .front()
            .filter(|(at, _)| *at <= self.now)
            .map(|(_, t)| t)
    }

    /// The receiver takes the oldest arrived item.
    pub fn pop(&mut self) -> Option<T> {
        self.front()?;
        self.items.pop_front().map(|(_, t)| t)
    }

    /// Ends the cycle.
    pub fn tick(&mut self) {
        self.now += 1;
    }

    /// Items in flight or waiting.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_order_and_back_pressure() {
        let mut l = Link::new(2, 2);
        assert!(l.push(1).is_ok());
        assert!(l.front().is_none(), "not arrived in the cycle it was sent");
        l.tick();
        assert!(l.push(2).is_ok());
        assert!(!l.can_push());
        assert_eq!(l.push(3), Err(3), "full: the sender is back-pressured");
        assert!(l.front().is_none());
        l.tick();
        assert_eq!(l.pop(), Some(1), "arrives two cycles after it was sent");
        assert!(
            l.front().is_none(),
            "the second item was sent a cycle later"
        );
        assert!(l.can_push());
        l.tick();
        assert_eq!(l.pop(), Some(2));
        assert!(l.is_empty());
        let mut z: Link<u8> = Link::unbounded(0);
        assert!(z.push(5).is_ok());
        assert_eq!(z.pop(), Some(5), "latency 0 arrives in the same cycle");
    }
}
