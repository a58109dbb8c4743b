//! What the fabric's end-to-end tests share.

/// The fault campaign of the three-level fat tree of radix 8 (edge0, core1): loss, delayed
/// duplicates, a burst of lost EXITs, a tree link flapping and a core dying (a member
/// leaving is added by each test, for its own group).
#[macro_export]
macro_rules! campaign_faults {
    () => {
        "
[[fault]]
kind = 'loss'
rate = 0.02
[[fault]]
kind = 'duplicate'
rate = 0.03
delay = [1, 200]
[[fault]]
kind = 'loss'
rate = 0.2
op = 'EXIT'
from = 20000
until = 40000
[[fault]]
kind = 'link_down'
link = 'edge0:4'
at = 15000
up = 35000
[[fault]]
kind = 'switch_down'
switch = 'core1'
at = 50000
"
    };
}
