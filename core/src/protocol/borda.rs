//! A Borda count over rankings: in a ranking of k candidates, first place
//! earns k−1 points and last earns 0. Rankings may leave candidates out (a
//! seat does not rank its own answer), so each candidate also keeps how many
//! rankings placed it and the sum of its places, for its average place.
//!
//! Apart from any protocol so that a protocol document's aggregator can use
//! it as ranked does; integer arithmetic only, so every host gets the same
//! order and digits.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One candidate's count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub points: u32,
    /// How many rankings placed it.
    pub rankings: u32,
    /// The sum of its 1-based places.
    pub places: u32,
}

impl Tally {
    /// The average place with two decimals, or `None` when no ranking placed it.
    pub fn average_place(&self) -> Option<String> {
        (self.rankings > 0).then(|| two_decimals(self.places, self.rankings))
    }
}

/// Count `rankings` (each best first) over `candidates`; a candidate no
/// ranking names still stands, with nothing. Names that are not candidates
/// are a caller's mistake: they are counted all the same.
pub(crate) fn count<K: Ord + Copy>(candidates: impl IntoIterator<Item = K>, rankings: &[Vec<K>]) -> BTreeMap<K, Tally> {
    // Filled by insertion: `collect` would instantiate a sort.
    let mut tallies = BTreeMap::new();
    for candidate in candidates {
        tallies.insert(candidate, Tally::default());
    }
    for ranking in rankings {
        let k = ranking.len() as u32;
        for (place, candidate) in ranking.iter().enumerate() {
            let t = tallies.entry(*candidate).or_default();
            t.points += k - 1 - place as u32;
            t.rankings += 1;
            t.places += place as u32 + 1;
        }
    }
    tallies
}

/// The standings: most points first, then the better average place, then
/// `tie` (which must tell any two candidates apart, so the order is total).
pub(crate) fn standings<K>(tallies: BTreeMap<K, Tally>, tie: impl Fn(&K, &K) -> Ordering) -> Vec<(K, Tally)> {
    let mut rows: Vec<(K, Tally)> = tallies.into_iter().collect();
    // Average places compared as fractions without floats: a/b < c/d ⇔ a·d < c·b.
    crate::order::sort_by(&mut rows, |(ka, a), (kb, b)| {
        b.points
            .cmp(&a.points)
            .then((a.places as u64 * b.rankings.max(1) as u64).cmp(&(b.places as u64 * a.rankings.max(1) as u64)))
            .then_with(|| tie(ka, kb))
    });
    rows
}

/// `numerator / denominator` with two decimals, rounded half to even on the
/// exact fraction. Integer arithmetic: the same digits on every host, and no
/// float formatting code in the component.
fn two_decimals(numerator: u32, denominator: u32) -> String {
    let (scaled, d) = (numerator as u64 * 100, denominator.max(1) as u64);
    let (mut hundredths, rest) = (scaled / d, scaled % d);
    if 2 * rest > d || (2 * rest == d && hundredths % 2 == 1) {
        hundredths += 1;
    }
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_place_of_k_earns_k_minus_one_and_last_earns_nothing() {
        let tallies = count(['a', 'b', 'c'], &[vec!['a', 'b', 'c'], vec!['b', 'a']]);
        assert_eq!(tallies[&'a'], Tally { points: 2, rankings: 2, places: 1 + 2 });
        assert_eq!(tallies[&'b'], Tally { points: 1 + 1, rankings: 2, places: 2 + 1 });
        assert_eq!(tallies[&'c'], Tally { points: 0, rankings: 1, places: 3 });
    }

    #[test]
    fn a_candidate_no_ranking_names_stands_with_nothing_and_no_average() {
        let tallies = count(['a', 'z'], &[vec!['a']]);
        assert_eq!(tallies[&'z'], Tally::default());
        assert_eq!(tallies[&'z'].average_place(), None);
        assert_eq!(tallies[&'a'].average_place().as_deref(), Some("1.00"));
    }

    #[test]
    fn standings_break_ties_by_average_place_then_by_the_callers_order() {
        // a and b both earn 2 points; a's one place (1st) beats b's average (1.5).
        let tallies = count(['a', 'b', 'c'], &[vec!['a', 'b', 'c'], vec!['b', 'c']]);
        assert_eq!([tallies[&'a'].points, tallies[&'b'].points, tallies[&'c'].points], [2, 2, 0]);
        let order: Vec<char> = standings(tallies, |x, y| y.cmp(x)).into_iter().map(|(k, _)| k).collect();
        assert_eq!(order, ['a', 'b', 'c']);
        // A full tie falls to the caller's order, reversed here.
        let tie = count(['x', 'y'], &[vec!['x', 'y'], vec!['y', 'x']]);
        let order: Vec<char> = standings(tie, |x, y| y.cmp(x)).into_iter().map(|(k, _)| k).collect();
        assert_eq!(order, ['y', 'x']);
    }

    #[test]
    fn two_decimals_rounds_the_exact_fraction_half_to_even() {
        assert_eq!(two_decimals(3, 2), "1.50");
        assert_eq!(two_decimals(2, 3), "0.67");
        assert_eq!(two_decimals(1, 3), "0.33");
        assert_eq!(two_decimals(1, 8), "0.12"); // 0.125: the tie goes to the even digit
        assert_eq!(two_decimals(3, 8), "0.38"); // 0.375
        assert_eq!(two_decimals(7, 1), "7.00");
    }
}
