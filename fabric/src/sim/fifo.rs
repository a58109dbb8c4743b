//! A first-in first-out queue of packets whose first few places are held inline, in the cache
//! lines of the port or node that owns it: a hop then touches no heap buffer of its own, and
//! the queues of a fabric's thousands of ports stay out of each other's way. Packets beyond
//! the inline places go to the heap (a buffer deeper than usual, a burst).

use super::Pkt;
use std::collections::VecDeque;

pub(crate) struct Fifo<const N: usize> {
    /// The oldest packets: `ring[head]` first, `len` of them …
    ring: [Pkt; N],
    head: u8,
    len: u8,
    /// … then these (only while the ring is full).
    #[expect(
        clippy::box_collection,
        reason = "8 bytes in the owner's cache lines instead of a VecDeque's 32"
    )]
    spill: Option<Box<VecDeque<Pkt>>>,
}

impl<const N: usize> Default for Fifo<N> {
    fn default() -> Self {
        const { assert!(N > 0 && N < 256) };
        Fifo {
            ring: std::array::from_fn(|_| Pkt::default()),
            head: 0,
            len: 0,
            spill: None,
        }
    }
}

impl<const N: usize> Fifo<N> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize + self.spill.as_ref().map_or(0, |s| s.len())
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn front(&self) -> Option<&Pkt> {
        (self.len > 0).then(|| &self.ring[self.head as usize])
    }

    #[inline]
    pub fn push_back(&mut self, p: Pkt) {
        if (self.len as usize) < N {
            self.ring[(self.head as usize + self.len as usize) % N] = p;
            self.len += 1;
        } else {
            self.spill.get_or_insert_with(Default::default).push_back(p);
        }
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<Pkt> {
        if self.len == 0 {
            return None;
        }
        let p = std::mem::take(&mut self.ring[self.head as usize]);
        self.head = ((self.head as usize + 1) % N) as u8;
        self.len -= 1;
        // The ring takes the oldest spilled packet (so that it always holds the oldest).
        if let Some(next) = self.spill.as_mut().and_then(|s| s.pop_front()) {
            self.push_back(next);
        }
        Some(p)
    }

    pub fn clear(&mut self) {
        // (Dropping the packets frees their payloads.)
        while self.len > 0 {
            self.ring[self.head as usize] = Pkt::default();
            self.head = ((self.head as usize + 1) % N) as u8;
            self.len -= 1;
        }
        self.head = 0;
        if let Some(s) = self.spill.as_mut() {
            s.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg32;

    /// Random pushes, pops and clears against a `VecDeque` (the naive reference), with
    /// stretches long enough to spill.
    fn against_vecdeque<const N: usize>(seed: u64) {
        let mut rng = Pcg32::seed_from_u64(seed);
        let mut fifo = Fifo::<N>::default();
        let mut naive = VecDeque::new();
        for i in 0..50_000u64 {
            // Phases that grow the queue past the ring and phases that drain it.
            let grow = (i / 200) % 2 == 0;
            match rng.gen_range(0..100) {
                0 => {
                    fifo.clear();
                    naive.clear();
                }
                r if (r < 60) == grow => {
                    let p = Pkt {
                        cgid: rng.gen_range(0..4096),
                        tid: rng.gen_range(0..4),
                        op: rng.gen_range(0..8),
                        extra: rng.gen(),
                        birth: i,
                        payload: rng.gen_bool(0.3).then(|| {
                            std::sync::Arc::new(crate::sim::Payload {
                                rop: 4,
                                dtype: 2,
                                words: vec![i; rng.gen_range(1..4)],
                            })
                        }),
                    };
                    fifo.push_back(p.clone());
                    naive.push_back(p);
                }
                _ => assert_eq!(fifo.pop_front(), naive.pop_front(), "seed {seed}, step {i}"),
            }
            assert_eq!(fifo.len(), naive.len(), "seed {seed}, step {i}");
            assert_eq!(fifo.is_empty(), naive.is_empty(), "seed {seed}, step {i}");
            assert_eq!(fifo.front(), naive.front(), "seed {seed}, step {i}");
        }
    }

    #[test]
    fn the_fifo_behaves_as_a_vecdeque() {
        for seed in [1, 2, 3] {
            against_vecdeque::<1>(seed);
            against_vecdeque::<2>(seed);
            against_vecdeque::<4>(seed);
        }
    }
}
