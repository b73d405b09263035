//! Labels the seed draws over a phase's speakers ("Response A", "Response B",
//! …), so later prompts can show turns anonymously in an order no seat
//! controls, and the transcript records who was which.

use serde::{Deserialize, Serialize};

use crate::prompt_kit;
use crate::rng::Rng;

/// Letter labels drawn by the seed over the phase's speakers, recorded as a choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Draw {
    /// The word before each letter ("Response" gives "Response A").
    pub prefix: String,
    /// What the transcript's record of the draw is called ("response labels").
    pub choice: String,
}

/// The drawn labels: seats in label order, each with its label.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Drawn(pub Vec<(usize, String)>);

impl Drawn {
    /// Shuffle `seats` with the seed (salted, so other draws of the same seed
    /// do not repeat it) and label them A, B, … in the shuffled order.
    pub fn draw(draw: &Draw, seats: &[usize], seed: u64, salt: &str) -> Drawn {
        let mut order = seats.to_vec();
        let mut rng = Rng::new(seed, salt);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        Drawn(
            order
                .into_iter()
                .enumerate()
                .map(|(k, s)| (s, format!("{} {}", draw.prefix, prompt_kit::letter(k))))
                .collect(),
        )
    }

    pub fn label(&self, seat: usize) -> Option<&str> {
        self.0.iter().find(|(s, _)| *s == seat).map(|(_, l)| l.as_str())
    }

    /// Where the seat's label stands in label order (unlabelled seats last).
    pub fn position(&self, seat: usize) -> usize {
        self.0.iter().position(|(s, _)| *s == seat).unwrap_or(usize::MAX)
    }

    /// The labels other than `seat`'s, in label order.
    pub fn offered_to(&self, seat: usize) -> Vec<String> {
        self.0.iter().filter(|(s, _)| *s != seat).map(|(_, l)| l.clone()).collect()
    }

    /// The seat a label stands for.
    pub fn seat_of(&self, label: &str) -> Option<usize> {
        self.0.iter().find(|(_, l)| l == label).map(|(s, _)| *s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response() -> Draw {
        Draw { prefix: "Response".into(), choice: "response labels".into() }
    }

    #[test]
    fn a_draw_labels_every_seat_once_and_depends_on_the_seed_alone() {
        let a = Drawn::draw(&response(), &[0, 1, 2, 4], 5, "x-labels");
        assert_eq!(a, Drawn::draw(&response(), &[0, 1, 2, 4], 5, "x-labels"));
        let mut seats: Vec<usize> = a.0.iter().map(|(s, _)| *s).collect();
        seats.sort_unstable();
        assert_eq!(seats, [0, 1, 2, 4]);
        let labels: Vec<&str> = a.0.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["Response A", "Response B", "Response C", "Response D"]);
        assert_eq!(a.label(3), None);
        assert_eq!(a.seat_of(a.label(4).unwrap()), Some(4));
        assert!(!a.offered_to(4).iter().any(|l| Some(l.as_str()) == a.label(4)));
        // Some seed orders the seats differently: the draw is not the panel order.
        assert!((0..20).any(|seed| Drawn::draw(&response(), &[0, 1, 2, 4], seed, "x-labels") != a));
    }
}
