//! # Driver knobs: idle gaps and back-pressure
//!
//! Every driver offers transactions with random idle cycles between them and holds every
//! `ready` input it drives (an output's consumer side: the NIC's `tx_ready`) randomly low, so
//! that the valid/ready paths of a block run at every level. [`Knobs::OFF`] is a driver that
//! never idles and is always ready — what `nic run` and `switch run` use unless told
//! otherwise, so their output is a function of the scenario alone.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How a driver disturbs its traffic (fixed seed: a run reproduces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knobs {
    /// Percent chance of idle cycles before a transaction.
    pub gap_percent: u32,
    /// The most idle cycles inserted at once (1 ..= this).
    pub max_gap: u32,
    /// Percent of cycles in which a `ready` the driver controls is low.
    pub backpressure_percent: u32,
    pub seed: u64,
}

impl Knobs {
    /// No gaps, always ready.
    pub const OFF: Knobs = Knobs {
        gap_percent: 0,
        max_gap: 0,
        backpressure_percent: 0,
        seed: 0,
    };

    /// Gaps before a fifth of the transactions and `ready` low a third of the time: what the
    /// lockstep tests use.
    pub fn busy(seed: u64) -> Knobs {
        Knobs {
            gap_percent: 20,
            max_gap: 4,
            backpressure_percent: 33,
            seed,
        }
    }

    pub fn is_off(&self) -> bool {
        self.gap_percent == 0 && self.backpressure_percent == 0
    }

    /// The random source of a driver using these knobs.
    pub fn dice(&self) -> Dice {
        Dice {
            k: *self,
            rng: ChaCha8Rng::seed_from_u64(self.seed),
        }
    }
}

/// The knobs' random choices.
pub struct Dice {
    k: Knobs,
    rng: ChaCha8Rng,
}

impl Dice {
    /// Idle cycles to insert before the next transaction.
    pub fn gap(&mut self) -> u32 {
        if self.k.gap_percent == 0 || self.k.max_gap == 0 {
            return 0;
        }
        if self.rng.gen_range(0..100) < self.k.gap_percent {
            self.rng.gen_range(1..=self.k.max_gap)
        } else {
            0
        }
    }

    /// Whether a driven `ready` is high this cycle.
    pub fn ready(&mut self) -> bool {
        self.k.backpressure_percent == 0
            || self.rng.gen_range(0..100) >= self.k.backpressure_percent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_never_disturbs_and_busy_does_reproducibly() {
        let mut d = Knobs::OFF.dice();
        assert!((0..1000).all(|_| d.gap() == 0 && d.ready()));
        let run = |seed| {
            let mut d = Knobs::busy(seed).dice();
            (0..1000).map(|_| (d.gap(), d.ready())).collect::<Vec<_>>()
        };
        let a = run(7);
        assert_eq!(a, run(7));
        let low = a.iter().filter(|(_, r)| !r).count();
        let gaps = a.iter().filter(|(g, _)| *g > 0).count();
        assert!((250..420).contains(&low), "{low}");
        assert!((120..280).contains(&gaps), "{gaps}");
        assert!(a.iter().all(|(g, _)| *g <= 4));
    }
}
