//! One arm's scored samples and what the report reads from them
//! (accuracy, its interval, cost, accuracy by round), and numbers as the
//! report prints them. The report, its rounds table and its pictures all
//! read an arm here.

use serde_json::Value;

use super::Scoring;
use super::score::Scored;
use super::stats::{clustered, normal, wilson};

/// One arm's scored samples, in dataset order.
pub(crate) struct ArmScore<'a> {
    pub name: &'a str,
    /// Every sample; an item never run is one sample that did not run.
    pub items: Vec<Scored>,
    /// The dataset item (its index) each sample is of.
    pub item: Vec<usize>,
    /// The settings its results file records (`eval_settings`), when it does.
    pub settings: Option<Value>,
    pub scoring: Scoring,
}

impl<'a> ArmScore<'a> {
    /// One sample per item, in order (tests and simple callers).
    #[cfg(test)]
    pub(crate) fn single(name: &'a str, items: Vec<Scored>) -> ArmScore<'a> {
        let item = (0..items.len()).collect();
        ArmScore { name, items, item, settings: None, scoring: Scoring::Vote }
    }

    pub(crate) fn count(&self, f: impl Fn(&Scored) -> bool) -> u64 {
        self.items.iter().filter(|s| f(s)).count() as u64
    }

    /// How many dataset items (not samples).
    pub(crate) fn n(&self) -> usize {
        self.item.iter().max().map_or(0, |m| m + 1)
    }

    /// Each item's share of right samples.
    pub(crate) fn item_means(&self) -> Vec<f64> {
        let mut right = vec![0.0; self.n()];
        let mut samples = vec![0.0; self.n()];
        for (s, &i) in self.items.iter().zip(&self.item) {
            samples[i] += 1.0;
            right[i] += f64::from(u8::from(s.correct));
        }
        right.iter().zip(&samples).map(|(r, n)| if *n > 0.0 { r / n } else { 0.0 }).collect()
    }

    /// The most samples any item has.
    pub(crate) fn repeats(&self) -> usize {
        let mut per = vec![0usize; self.n()];
        for &i in &self.item {
            per[i] += 1;
        }
        per.into_iter().max().unwrap_or(0)
    }

    /// The mean over items of each item's share of right samples.
    pub(crate) fn accuracy(&self) -> f64 {
        clustered(&self.item_means()).0
    }

    /// The 95 % interval: Wilson's with one sample per item; with repeats,
    /// the normal interval on the standard error clustered by item.
    pub(crate) fn interval(&self) -> (f64, f64) {
        if self.repeats() <= 1 {
            return wilson(self.count(|s| s.correct), self.n() as u64);
        }
        let (mean, se) = clustered(&self.item_means());
        normal(mean, se, 0.0, 1.0)
    }

    /// The mean cost of a debate that ran, when every one that ran was priced
    /// (in part or whole: [`ArmScore::cost_partial`] says which).
    pub(crate) fn cost_per_item(&self) -> Option<f64> {
        let ran: Vec<&Scored> = self.items.iter().filter(|s| s.ran).collect();
        let costs: Option<Vec<u64>> = ran.iter().map(|s| s.cost_micro_usd).collect();
        costs.filter(|c| !c.is_empty()).map(|c| c.iter().sum::<u64>() as f64 / c.len() as f64)
    }

    /// Some call had no price: the cost counts only the priced ones.
    pub(crate) fn cost_partial(&self) -> bool {
        self.items.iter().any(|s| s.cost_partial || (s.ran && s.cost_micro_usd.is_none()))
    }

    /// The mean tokens of a debate that ran.
    pub(crate) fn tokens_per_item(&self) -> f64 {
        let ran = self.count(|s| s.ran).max(1);
        self.items.iter().map(|s| s.tokens).sum::<u64>() as f64 / ran as f64
    }

    /// The accuracy of the plurality after each set of turns (an item whose
    /// debate stopped earlier keeps its last answer); empty when no item has rounds.
    pub(crate) fn by_round(&self) -> Vec<f64> {
        let rounds = self.items.iter().map(|s| s.by_round.len()).max().unwrap_or(0);
        (0..rounds)
            .map(|r| {
                let right = self.items.iter().filter(|s| s.by_round.get(r).or(s.by_round.last()) == Some(&true));
                right.count() as f64 / self.items.len().max(1) as f64
            })
            .collect()
    }
}

/// `x` with `places` decimals, rounded half away from zero. Integer
/// arithmetic: float formatting would add 5 KB to the component.
pub(crate) fn fixed(x: f64, places: u32) -> String {
    let scale = 10i64.pow(places);
    let n = (x * scale as f64).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (whole, frac) = (n.unsigned_abs() / scale as u64, n.unsigned_abs() % scale as u64);
    match places {
        0 => format!("{sign}{whole}"),
        _ => format!("{sign}{whole}.{frac:0width$}", width = places as usize),
    }
}

pub(crate) fn percent(x: f64) -> String {
    format!("{} %", fixed(x * 100.0, 1))
}

pub(crate) fn usd(micro: u64) -> String {
    format!("${}", fixed(micro as f64 / 1e6, 4))
}
