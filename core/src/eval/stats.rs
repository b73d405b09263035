//! The statistics an evaluation reports: a proportion's 95 % Wilson
//! interval, standard errors clustered by item (for repeats), the paired
//! difference of two arms with its interval, a seeded bootstrap where no
//! closed form applies, and the exact McNemar test for two arms answering
//! the same items once each.

/// The two-sided 95 % normal quantile.
const Z: f64 = 1.959_963_984_540_054;

/// The 95 % Wilson score interval of `k` successes in `n` trials, as
/// `(low, high)`; `(0, 1)` when `n` is 0. Unlike `p ± z·se` it stays inside
/// [0, 1] and is honest at 0 and at n.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The exact two-sided McNemar p-value for `b` items only the first arm got
/// right and `c` only the second did: under "the arms are as good", each
/// discordant item is a fair coin, so p = P(|X − n/2| ≥ |b − n/2|), X ~
/// Binomial(b + c, ½). 1 when there is no discordant item.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // Σ_{i ≤ k} C(n, i) / 2ⁿ, in logs so a large n does not underflow term by term.
    let mut ln_term = -(n as f64) * core::f64::consts::LN_2;
    let mut tail = 0.0;
    for i in 0..=k {
        tail += ln_term.exp();
        ln_term += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    (2.0 * tail).min(1.0)
}

/// The mean of `means` (one per item) and its standard error clustered by
/// item: √(Σ(mᵢ − m̄)² / (n(n − 1))). With one sample per item it is the
/// usual standard error of a proportion (with n − 1); with repeats, samples
/// of one item are not counted as independent. 0 for fewer than two items.
pub fn clustered(means: &[f64]) -> (f64, f64) {
    let n = means.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = means.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let ss: f64 = means.iter().map(|m| (m - mean) * (m - mean)).sum();
    (mean, (ss / (n as f64 * (n as f64 - 1.0))).sqrt())
}

/// `mean ± z·se`, the normal 95 % interval, kept inside `[lo, hi]`.
pub fn normal(mean: f64, se: f64, lo: f64, hi: f64) -> (f64, f64) {
    ((mean - Z * se).max(lo), (mean + Z * se).min(hi))
}

/// A 95 % percentile bootstrap interval of the mean of `values` (items
/// resampled with replacement `draws` times), from a fixed seed: the same
/// interval in every host, every time. For what has no closed form.
pub fn bootstrap_mean(values: &[f64], draws: usize, seed: u64) -> (f64, f64) {
    let n = values.len();
    if n == 0 || draws == 0 {
        return (0.0, 0.0);
    }
    let mut state = seed;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut means: Vec<f64> =
        (0..draws).map(|_| (0..n).map(|_| values[(next() % n as u64) as usize]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * draws as f64).floor() as usize).min(draws - 1)];
    (at(0.025), at(0.975))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Reference values computed by hand from the closed forms (and the
    /// binomial tables) — not by calling the code under test.
    #[test]
    fn wilson_matches_its_closed_form_at_known_points() {
        // 8/10: centre (0.8 + 0.19208)/1.38415 = 0.71674; half 1.41599·√(0.016 + 0.0096)= 0.22654.
        let (lo, hi) = wilson(8, 10);
        assert!(close(lo, 0.4902, 5e-4) && close(hi, 0.9433, 5e-4), "{lo} {hi}");
        // 0/10: [0, 0.2775]; 10/10: [0.7225, 1].
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && close(hi, 0.2775, 5e-4), "{hi}");
        let (lo, hi) = wilson(10, 10);
        assert!(close(lo, 0.7225, 5e-4) && close(hi, 1.0, 1e-12), "{lo}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn clustered_errors_match_their_closed_form() {
        // Means 1, 0, 0.5, 0.5: m̄ = 0.5, Σ = 0.25 + 0.25 = 0.5, se = √(0.5 / 12) = 0.204124.
        let (m, se) = clustered(&[1.0, 0.0, 0.5, 0.5]);
        assert!(close(m, 0.5, 1e-12) && close(se, 0.204_124_145, 1e-9), "{m} {se}");
        // 0/1 outcomes, 3 of 4 right: √(0.75 / 12) = 0.25.
        assert!(close(clustered(&[1.0, 1.0, 1.0, 0.0]).1, 0.25, 1e-12));
        assert_eq!(clustered(&[1.0]), (1.0, 0.0));
        let (lo, hi) = normal(0.9, 0.1, 0.0, 1.0);
        assert!(close(lo, 0.704_003_6, 1e-6) && hi == 1.0, "{lo} {hi}");
    }

    #[test]
    fn the_bootstrap_is_fixed_by_its_seed_and_brackets_the_mean() {
        let values: Vec<f64> = (0..40).map(|i| if i % 4 == 0 { 1.0 } else { 0.0 }).collect();
        let (lo, hi) = bootstrap_mean(&values, 2000, 7);
        assert_eq!((lo, hi), bootstrap_mean(&values, 2000, 7));
        // Mean 0.25, se √(0.25·0.75/40) = 0.0685: the interval is about 0.12 to 0.38.
        assert!(lo < 0.25 && hi > 0.25 && (0.09..0.16).contains(&lo) && (0.34..0.41).contains(&hi), "{lo} {hi}");
        // A constant has no spread.
        assert_eq!(bootstrap_mean(&[0.5; 10], 100, 1), (0.5, 0.5));
    }

    #[test]
    fn mcnemar_matches_the_binomial_tables() {
        // b = 1, c = 9: 2·(1 + 10)/1024 = 0.021484375.
        assert!(close(mcnemar_exact(1, 9), 0.021_484_375, 1e-12));
        assert!(close(mcnemar_exact(9, 1), 0.021_484_375, 1e-12));
        // b = 0, c = 5: 2/32.
        assert!(close(mcnemar_exact(0, 5), 0.0625, 1e-12));
        // Balanced tables are no evidence either way.
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // b = 3, c = 12: 2·(1 + 15 + 105 + 455)/32768 = 0.03515625.
        assert!(close(mcnemar_exact(3, 12), 0.035_156_25, 1e-12));
        // A large table stays finite: b = 400, c = 600.
        let p = mcnemar_exact(400, 600);
        assert!(p > 0.0 && p < 1e-9, "{p}");
    }
}
