//! The evaluation's pictures: accuracy by arm, accuracy against cost, and
//! accuracy by round. Each is drawn only from what the report's tables say,
//! with the same intervals, so a picture never claims more than the numbers.

use std::fmt::Write;

use super::arm_score::{ArmScore, fixed, percent};
use crate::picture::svg as s;

/// One picture and the file name hosts write it to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub file: &'static str,
    pub svg: String,
}

/// Colours for arms drawn as points and lines, told apart by their labels too.
const INKS: [&str; 6] = ["#4a7ebb", "#c0504d", "#6b8e23", "#8064a2", "#d08a00", "#2c8c99"];

/// Every picture the arms give: by round only when some arm debated over rounds.
pub(crate) fn all(arms: &[ArmScore]) -> Vec<Picture> {
    let mut out = vec![
        Picture { file: "accuracy.svg", svg: accuracy(arms) },
        Picture { file: "cost.svg", svg: against_cost(arms) },
    ];
    if arms.iter().any(|a| a.by_round().len() > 1) {
        out.push(Picture { file: "rounds.svg", svg: by_round(arms) });
    }
    out
}

fn interval(a: &ArmScore) -> (f64, f64) {
    a.interval()
}

/// Accuracy per arm with its interval, as bars with whiskers.
fn accuracy(arms: &[ArmScore]) -> String {
    let (label_w, bar_h, gap, plot_w) = (170u32, 22u32, 10u32, 420u32);
    let height = 50 + arms.len() as u32 * (bar_h + gap) + 30;
    let width = label_w + plot_w + 60;
    let mut out = String::new();
    let desc: Vec<String> = arms
        .iter()
        .map(|a| {
            let (lo, hi) = interval(a);
            let (k, n) = (a.count(|s| s.correct), a.items.len());
            let n = if a.repeats() > 1 { format!("{n} samples") } else { n.to_string() };
            format!("{}: {k} of {n} right (95 % interval {} to {})", s::clip(a.name, 40), percent(lo), percent(hi))
        })
        .collect();
    s::open(&mut out, "agon-eval", width, height, "Accuracy by arm, with 95 % Wilson intervals", &desc.join("; "));
    for (i, a) in arms.iter().enumerate() {
        let (lo, hi) = interval(a);
        let acc = a.accuracy();
        let y = 40 + i as u32 * (bar_h + gap);
        let x = |v: f64| label_w + (v * f64::from(plot_w)).round() as u32;
        let _ = writeln!(
            out,
            "<text x=\"8\" y=\"{}\">{}</text><rect x=\"{label_w}\" y=\"{y}\" width=\"{}\" height=\"{bar_h}\" fill=\"#4a7ebb\"/>\
<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#111111\" stroke-width=\"2\"/>\
<text x=\"{}\" y=\"{}\">{}</text>",
            y + 16,
            s::text(a.name, 22),
            x(acc) - label_w,
            x(lo),
            y + bar_h / 2,
            x(hi),
            y + bar_h / 2,
            x(hi) + 6,
            y + 16,
            percent(acc)
        );
    }
    let axis = 40 + arms.len() as u32 * (bar_h + gap);
    let _ = writeln!(
        out,
        "<line x1=\"{label_w}\" y1=\"{axis}\" x2=\"{}\" y2=\"{axis}\" stroke=\"#555555\"/>\
<text x=\"{label_w}\" y=\"{}\">0 %</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">100 %</text>",
        label_w + plot_w,
        axis + 16,
        label_w + plot_w,
        axis + 16
    );
    s::close(&mut out);
    out
}

/// The frame of a plot with accuracy (0 to 100 %) upwards: gridlines every
/// 25 %, and the x axis's name. Returns the y of an accuracy.
const PLOT: (u32, u32, u32, u32) = (70, 40, 460, 260); // left, top, width, height

fn y_of(accuracy: f64) -> f64 {
    f64::from(PLOT.1 + PLOT.3) - accuracy.clamp(0.0, 1.0) * f64::from(PLOT.3)
}

fn frame(out: &mut String, x_name: &str) {
    let (left, top, width, height) = PLOT;
    for q in 0..=4 {
        let y = y_of(f64::from(q) / 4.0);
        let _ = writeln!(
            out,
            "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#dddddd\"/>\
<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} %</text>",
            s::Fixed(y, 1),
            left + width,
            s::Fixed(y, 1),
            left - 6,
            s::Fixed(y + 4.0, 1),
            q * 25
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555555\"/>\
<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        top + height,
        left + width,
        top + height,
        left + width / 2,
        top + height + 34,
        s::escape(x_name)
    );
}

/// Accuracy (with its interval) against what an item cost: US dollars when
/// every call of every arm was priced, tokens otherwise.
fn against_cost(arms: &[ArmScore]) -> String {
    // A cost that leaves out unpriced calls is not drawn as one: tokens instead.
    let priced: Option<Vec<f64>> = arms.iter().map(|a| a.cost_per_item().filter(|_| !a.cost_partial())).collect();
    let (values, unit): (Vec<f64>, &str) = match priced {
        Some(micro) => (micro.iter().map(|m| m / 1e6).collect(), "cost per item (US dollars)"),
        None => (arms.iter().map(ArmScore::tokens_per_item).collect(), "tokens per item (not every arm was priced)"),
    };
    let (left, top, width, height) = PLOT;
    let most = values.iter().copied().fold(0.0f64, f64::max);
    let span = if most > 0.0 { most * 1.1 } else { 1.0 };
    let x_of = |v: f64| f64::from(left) + v / span * f64::from(width);
    let label = |v: f64| if priced_unit(unit) { format!("${}", fixed(v, 4)) } else { fixed(v, 0) };
    let mut out = String::new();
    let desc: Vec<String> = arms
        .iter()
        .zip(&values)
        .map(|(a, v)| {
            let (lo, hi) = interval(a);
            format!(
                "{}: {} at {} ({} to {})",
                s::clip(a.name, 40),
                percent(a.accuracy()),
                label(*v),
                percent(lo),
                percent(hi)
            )
        })
        .collect();
    let (w, h) = (left + width + 170, top + height + 50);
    s::open(
        &mut out,
        "agon-eval-cost",
        w,
        h,
        "Accuracy against cost per item, with 95 % Wilson intervals",
        &desc.join("; "),
    );
    frame(&mut out, unit);
    let _ = writeln!(
        out,
        "<text x=\"{left}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        top + height + 16,
        left + width,
        top + height + 16,
        label(span)
    );
    for (i, (a, v)) in arms.iter().zip(&values).enumerate() {
        let ink = INKS[i % INKS.len()];
        let (lo, hi) = interval(a);
        let x = x_of(*v);
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"{ink}\" stroke-width=\"2\"/>\
<circle cx=\"{x}\" cy=\"{}\" r=\"5\" fill=\"{ink}\"/>\
<text x=\"{}\" y=\"{}\" fill=\"{ink}\">{}</text>",
            s::Fixed(y_of(lo), 1),
            s::Fixed(y_of(hi), 1),
            s::Fixed(y_of(a.accuracy()), 1),
            s::Fixed(x + 8.0, 1),
            s::Fixed(y_of(a.accuracy()) + 4.0, 1),
            s::text(a.name, 22),
            x = s::Fixed(x, 1),
        );
    }
    s::close(&mut out);
    out
}

fn priced_unit(unit: &str) -> bool {
    unit.starts_with("cost")
}

/// The plurality's accuracy after each set of turns, one line per arm that debated.
fn by_round(arms: &[ArmScore]) -> String {
    let (left, top, width, height) = PLOT;
    let series: Vec<(usize, &ArmScore, Vec<f64>)> =
        arms.iter().enumerate().map(|(i, a)| (i, a, a.by_round())).filter(|(_, _, r)| r.len() > 1).collect();
    let rounds = series.iter().map(|(_, _, r)| r.len()).max().unwrap_or(1);
    let x_of = |r: usize| f64::from(left) + (r as f64 + 0.5) / rounds as f64 * f64::from(width);
    let mut out = String::new();
    let desc: Vec<String> = series
        .iter()
        .map(|(_, a, r)| {
            let steps: Vec<String> = r.iter().map(|x| percent(*x)).collect();
            format!("{}: {}", s::clip(a.name, 40), steps.join(", "))
        })
        .collect();
    let (w, h) = (left + width + 170, top + height + 50);
    s::open(
        &mut out,
        "agon-eval-rounds",
        w,
        h,
        "Accuracy of the plurality answer after each set of turns",
        &desc.join("; "),
    );
    frame(&mut out, "after set of turns");
    for r in 0..rounds {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            s::Fixed(x_of(r), 1),
            top + height + 16,
            r + 1
        );
    }
    for (i, a, r) in &series {
        let ink = INKS[i % INKS.len()];
        let points: Vec<String> =
            r.iter().enumerate().map(|(k, v)| format!("{},{}", s::Fixed(x_of(k), 1), s::Fixed(y_of(*v), 1))).collect();
        let last = r.last().copied().unwrap_or(0.0);
        let _ = writeln!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{ink}\" stroke-width=\"2\"/>\
<text x=\"{}\" y=\"{}\" fill=\"{ink}\">{}</text>",
            points.join(" "),
            s::Fixed(x_of(r.len() - 1) + 10.0, 1),
            s::Fixed(y_of(last) + 4.0, 1),
            s::text(a.name, 22)
        );
        for p in &points {
            let (x, y) = p.split_once(',').unwrap_or_default();
            let _ = writeln!(out, "<circle cx=\"{x}\" cy=\"{y}\" r=\"3.5\" fill=\"{ink}\"/>");
        }
    }
    s::close(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::score::Scored;

    fn scored(correct: bool, cost: Option<u64>, by_round: Vec<bool>) -> Scored {
        Scored {
            answer: correct.then(|| "1".into()),
            correct,
            ran: true,
            failed: false,
            stale: false,
            cut: 0,
            any_right: correct,
            cost_partial: false,
            rounds: by_round.len() as u32,
            calls: 3,
            tokens: 900,
            cost_micro_usd: cost,
            by_round,
            turn_sets: Vec::new(),
        }
    }

    #[test]
    fn cost_is_in_dollars_only_when_every_arm_was_priced() {
        let priced = ArmScore::single("a", vec![scored(true, Some(2_000), vec![]), scored(false, Some(4_000), vec![])]);
        let unpriced = ArmScore::single("b", vec![scored(true, None, vec![])]);
        let both = against_cost(&[priced, unpriced]);
        assert!(both.contains("tokens per item"), "{both}");
        let priced = ArmScore::single("a", vec![scored(true, Some(2_000), vec![]), scored(false, Some(4_000), vec![])]);
        let alone = against_cost(&[priced]);
        assert!(alone.contains("cost per item (US dollars)"), "{alone}");
        // Mean $0.003, at 50 % with its Wilson interval described.
        assert!(alone.contains("a: 50.0 % at $0.0030"), "{alone}");
    }

    #[test]
    fn rounds_are_drawn_only_for_arms_that_debated() {
        let single = ArmScore::single("single", vec![scored(true, None, vec![true])]);
        assert_eq!(all(&[single]).iter().map(|p| p.file).collect::<Vec<_>>(), ["accuracy.svg", "cost.svg"]);
        let single = ArmScore::single("single", vec![scored(true, None, vec![true])]);
        let debate = ArmScore::single(
            "<debate>",
            vec![scored(true, None, vec![false, true]), scored(false, None, vec![true, false])],
        );
        let pictures = all(&[single, debate]);
        let rounds = &pictures.last().unwrap();
        assert_eq!(rounds.file, "rounds.svg");
        // 1 of 2 right after each set; the arm's name escaped, the single arm not drawn.
        assert!(rounds.svg.contains("&lt;debate&gt;: 50.0 %, 50.0 %"), "{}", rounds.svg);
        assert!(!rounds.svg.contains(">single<"), "{}", rounds.svg);
    }
}
