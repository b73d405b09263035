//! Plays the standard workload (`agon_core::workload::five_by_five`) N times
//! and exits: `scripts/check-instructions.sh` runs it under callgrind with two
//! values of N, so that the difference is one debate's instructions and the
//! start-up cancels out.
//!
//!     cargo run --release -p agon-core --features testing --example workload -- 11

use agon_core::Session;
use agon_core::script::play;
use agon_core::workload::five_by_five;

fn main() {
    let n: usize = std::env::args().nth(1).map_or(1, |n| n.parse().expect("N is a count of debates"));
    let (spec, script) = five_by_five();
    for _ in 0..n {
        play(Session::new(spec.clone()).expect("the workload's spec is valid"), &script)
            .expect("the script answers every call");
    }
}
