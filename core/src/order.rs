//! Sorting, once for the whole engine.
//!
//! The standard library's sorts are generic over the comparison, so every
//! call site instantiates its own quicksort, heapsort and small-sort: 2–4 KB of
//! wasm each, 61 KB for fifteen call sites. Here one merge sort, compiled
//! once, orders indices through a `dyn` comparison; each call site adds only
//! its closure and a short in-place permutation. Stable, O(n log n) (a
//! megabyte reply's spans sort as fast as three seats do), and deterministic.
//! JSON objects are put in order here too ([`canonical`]).

use std::cmp::Ordering;

use serde_json::Value;

/// Sort `items` stably by `compare`.
pub(crate) fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sort `items` stably by the key `key` gives each.
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sort `items` into their natural order.
pub(crate) fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The order of `0..n` sorted by `compare`, equal indices kept in index
/// order: a bottom-up merge sort, the one sort in the engine.
fn stable_order(n: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut merged = vec![0; n];
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let middle = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut left, mut right) = (start, middle);
            for slot in &mut merged[start..end] {
                // Take from the right run only when it is strictly smaller: stable.
                if right < end && (left == middle || compare(order[right], order[left]).is_lt()) {
                    *slot = order[right];
                    right += 1;
                } else {
                    *slot = order[left];
                    left += 1;
                }
            }
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Rearrange `items` so that position `i` holds what was at `order[i]`,
/// following each cycle of the permutation once.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != start && order[at] != at {
            let from = order[at];
            items.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// The value with every object's keys inserted in sorted order, so it
/// serializes identically whether or not some other crate in the build turned
/// on serde_json's `preserve_order` (feature unification must not change bytes).
pub(crate) fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            // Inserted one by one: collecting would sort, and each sort is
            // another monomorphized merge sort in the component.
            let mut sorted = std::collections::BTreeMap::new();
            for (k, v) in map {
                sorted.insert(k, canonical(v));
            }
            Value::Object(crate::json_read::object(sorted))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn sorts_as_the_standard_stable_sort_does(items in prop::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut ours = items.clone();
            sort_by_key(&mut ours, |(key, _)| *key);
            let mut theirs = items;
            theirs.sort_by_key(|(key, _)| *key);
            prop_assert_eq!(ours, theirs);
        }

        #[test]
        fn a_full_order_sorts_as_sort_unstable_does(items in prop::collection::vec(any::<i32>(), 0..200)) {
            let mut ours = items.clone();
            sort(&mut ours);
            let mut theirs = items;
            theirs.sort_unstable();
            prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn reversed_and_sorted_inputs_and_cycles() {
        let mut v: Vec<u32> = (0..1000).rev().collect();
        sort(&mut v);
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        sort(&mut v);
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        let mut words = vec!["d", "a", "c", "b", "a"];
        sort_by(&mut words, |a, b| b.cmp(a));
        assert_eq!(words, ["d", "c", "b", "a", "a"]);
    }
}
