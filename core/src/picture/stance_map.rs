//! The stance map: seats down, consensus checks across, each cell the
//! seat's verdict in that check, in a colour and a letter. The seat left
//! out as challenger is hatched; the check that reached consensus is
//! outlined (dashed when the judge overruled the reader).

use std::fmt::Write;

use super::svg;
use crate::stance::Verdict;
use crate::{ConsensusCheck, Transcript};

/// Fill, ink and letter for each verdict: the letter says it without colour.
pub(crate) fn look(v: Verdict) -> (&'static str, &'static str, &'static str) {
    match v {
        Verdict::Agrees => ("#1a7f37", "#ffffff", "A"),
        Verdict::AgreesInPart => ("#a6d96a", "#111111", "P"),
        Verdict::Conditional => ("#fdd835", "#111111", "C"),
        Verdict::Disagrees => ("#c62828", "#ffffff", "D"),
        Verdict::Silent => ("#e0e0e0", "#111111", "S"),
        Verdict::Unclear => ("#ffffff", "#111111", "?"),
    }
}

const VERDICTS: [Verdict; 6] = [
    Verdict::Agrees,
    Verdict::AgreesInPart,
    Verdict::Conditional,
    Verdict::Disagrees,
    Verdict::Silent,
    Verdict::Unclear,
];

const LABEL_W: u32 = 120;
const CELL_W: u32 = 56;
const CELL_H: u32 = 30;
const TOP: u32 = 34;
const LEGEND_H: u32 = 106;
/// Wide enough for the legend's rows.
const MIN_W: u32 = 500;

/// The stance map of `t`, or `None` when the protocol ran no consensus check
/// (there are no verdicts to draw).
pub fn stance_map(t: &Transcript) -> Option<String> {
    if t.consensus.is_empty() {
        return None;
    }
    let seats = seats(t);
    let cols = t.consensus.len() as u32;
    let width = (LABEL_W + cols * CELL_W + 12).max(MIN_W);
    let grid_bottom = TOP + seats.len() as u32 * CELL_H;
    let height = grid_bottom + 12 + LEGEND_H;

    let mut out = String::new();
    let title = format!("Stance map: {} seats over {} consensus checks", seats.len(), cols);
    let heading = svg::Heading { title: &title, question: &t.question };
    svg::open_headed(&mut out, "agon-stance", width, height, &heading, &describe(t));
    svg::hatch(&mut out, "agon-stance-hatch", "#9e9e9e");

    for (i, check) in t.consensus.iter().enumerate() {
        let x = LABEL_W + i as u32 * CELL_W;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-weight=\"bold\">R{}</text>",
            x + CELL_W / 2,
            check.round
        );
        for (row, seat) in seats.iter().enumerate() {
            cell(&mut out, check, seat, x, TOP + row as u32 * CELL_H);
        }
        if check.reached || check.overruled() {
            let dash = if check.overruled() { " stroke-dasharray=\"6 4\"" } else { "" };
            let kind = if check.reached { "consensus" } else { "overruled" };
            let _ = writeln!(
                out,
                "<rect class=\"{kind}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#111111\" stroke-width=\"3\"{dash}/>",
                x + 1,
                TOP - 3,
                CELL_W - 2,
                grid_bottom - TOP + 6
            );
        }
    }
    for (row, seat) in seats.iter().enumerate() {
        let _ = writeln!(out, "<text x=\"8\" y=\"{}\">{}</text>", TOP + row as u32 * CELL_H + 20, svg::text(seat, 15));
    }
    legend(&mut out, grid_bottom + 12);
    svg::close_headed(&mut out);
    Some(out)
}

/// The panel in order, then any seat a check names that the panel does not.
fn seats(t: &Transcript) -> Vec<String> {
    let mut seats: Vec<String> = t.participants.iter().map(|p| p.id.clone()).collect();
    for check in &t.consensus {
        for name in check.seats.iter().map(|s| &s.seat).chain(check.excluded.iter()) {
            if !seats.contains(name) {
                seats.push(name.clone());
            }
        }
    }
    seats
}

fn cell(out: &mut String, check: &ConsensusCheck, seat: &str, x: u32, y: u32) {
    let (w, h) = (CELL_W - 6, CELL_H - 6);
    let (cx, cy) = (x + CELL_W / 2, y + CELL_H / 2 + 5);
    if check.excluded.as_deref() == Some(seat) {
        let _ = writeln!(
            out,
            "<rect class=\"challenger\" x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" fill=\"url(#agon-stance-hatch)\" stroke=\"#555555\"/>\
<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" font-weight=\"bold\">ch</text>",
            x + 3,
            y + 3
        );
    } else if let Some(stance) = check.seats.iter().find(|s| s.seat == seat) {
        let (fill, ink, letter) = look(stance.verdict);
        // Answer mode: the cell shows the seat's answer itself (model text: escaped, clipped).
        let letter = stance.answer.as_deref().map_or_else(|| letter.to_string(), |a| svg::text(a, 6));
        let _ = writeln!(
            out,
            "<rect class=\"verdict {}\" x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" fill=\"{fill}\" stroke=\"#555555\"/>\
<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" fill=\"{ink}\" font-weight=\"bold\">{letter}</text>",
            class(stance.verdict),
            x + 3,
            y + 3
        );
    } else {
        // Not counted in this check (it failed, or was not on the panel yet).
        let _ = writeln!(out, "<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" fill=\"#9e9e9e\">–</text>");
    }
}

fn class(v: Verdict) -> &'static str {
    match v {
        Verdict::Agrees => "agrees",
        Verdict::AgreesInPart => "agrees-in-part",
        Verdict::Conditional => "conditional",
        Verdict::Disagrees => "disagrees",
        Verdict::Silent => "silent",
        Verdict::Unclear => "unclear",
    }
}

fn legend(out: &mut String, y: u32) {
    // Three a row: the words are estimated at 7 px a character, so rows stay short.
    let mut x = 8;
    for (i, v) in VERDICTS.iter().enumerate() {
        if i % 3 == 0 {
            x = 8;
        }
        let (fill, ink, letter) = look(*v);
        x = svg::legend_entry(out, x, y + 24 * (i as u32 / 3), fill, ink, letter, v.as_str());
    }
    let x = svg::legend_entry(out, 8, y + 48, "url(#agon-stance-hatch)", "#111111", "ch", "challenger, not counted");
    let _ = writeln!(
        out,
        "<rect x=\"{x}\" y=\"{}\" width=\"18\" height=\"18\" fill=\"none\" stroke=\"#111111\" stroke-width=\"3\"/>\
<text x=\"{}\" y=\"{}\">consensus reached</text>",
        y + 48,
        x + 23,
        y + 61
    );
    let _ = writeln!(
        out,
        "<rect x=\"8\" y=\"{}\" width=\"18\" height=\"18\" fill=\"none\" stroke=\"#111111\" stroke-width=\"3\" stroke-dasharray=\"6 4\"/>\
<text x=\"31\" y=\"{}\">dashed: the judge overruled the reader</text>",
        y + 72,
        y + 85
    );
}

/// Each check in words: "Round 2: 3 of 4 seats agree; s3 disagrees; consensus reached."
pub(crate) fn describe(t: &Transcript) -> String {
    let mut parts = Vec::new();
    for c in &t.consensus {
        let agree = c.seats.iter().filter(|s| s.verdict.counts()).count();
        let mut s = format!("Round {}: {} of {} counted seats agree", c.round, agree, c.seats.len());
        for v in VERDICTS.iter().skip(1) {
            let who: Vec<String> = c.seats.iter().filter(|s| s.verdict == *v).map(|s| svg::clip(&s.seat, 24)).collect();
            if !who.is_empty() {
                let _ = write!(s, "; {} {}", who.join(", "), v.as_str());
            }
        }
        let answers: Vec<String> = c
            .seats
            .iter()
            .filter_map(|s| s.answer.as_ref().map(|a| format!("{} {}", svg::clip(&s.seat, 24), svg::clip(a, 24))))
            .collect();
        if !answers.is_empty() {
            let _ = write!(s, "; answers: {}", answers.join(", "));
        }
        if let Some(ex) = &c.excluded {
            let _ = write!(s, "; {} is the challenger, not counted", svg::clip(ex, 24));
        }
        if c.reached {
            s.push_str("; consensus reached");
        } else if c.overruled() {
            s.push_str("; the judge did not confirm the agreement");
        }
        s.push('.');
        parts.push(s);
    }
    parts.join(" ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stance::Source;
    use crate::{ConsensusMode, JudgeReview, SeatInfo, SeatStance};

    fn stance(seat: &str, verdict: Verdict) -> SeatStance {
        SeatStance {
            seat: seat.into(),
            verdict,
            source: Source::Read,
            declared: None,
            position: None,
            evidence: None,
            answer: None,
            not_counted: None,
        }
    }

    fn check(round: u32, reached: bool, excluded: Option<&str>, seats: Vec<SeatStance>) -> ConsensusCheck {
        ConsensusCheck {
            round,
            reached,
            reason: String::new(),
            mode: ConsensusMode::Read,
            rule: String::new(),
            agreeing: vec![],
            seats,
            excluded: excluded.map(str::to_string),
            judge: None,
            conflicts: vec![],
        }
    }

    pub(crate) fn transcript(ids: &[&str], consensus: Vec<ConsensusCheck>) -> Transcript {
        let mut t: Transcript = serde_json::from_value(serde_json::json!({
            "version": 1, "protocol": "rotating-challenger", "question": "q", "seed": 0,
            "participants": [], "judge": null, "turns": [], "synthesis": null, "outcome": null
        }))
        .unwrap();
        t.participants =
            ids.iter().map(|id| SeatInfo { id: id.to_string(), name: id.to_string(), model: "m".into() }).collect();
        t.consensus = consensus;
        t
    }

    fn sample() -> Transcript {
        use Verdict::*;
        transcript(
            &["a", "b", "c", "d"],
            vec![
                check(
                    1,
                    false,
                    Some("a"),
                    vec![stance("b", AgreesInPart), stance("c", Conditional), stance("d", Disagrees)],
                ),
                check(2, false, Some("b"), vec![stance("a", Silent), stance("c", Unclear), stance("d", Agrees)]),
                check(3, true, Some("c"), vec![stance("a", Agrees), stance("b", Agrees), stance("d", Agrees)]),
            ],
        )
    }

    #[test]
    fn no_checks_no_map() {
        assert_eq!(stance_map(&transcript(&["a", "b"], vec![])), None);
    }

    #[test]
    fn one_cell_per_seat_and_check_coloured_by_verdict() {
        let svg = stance_map(&sample()).unwrap();
        assert_eq!(svg.matches("class=\"verdict ").count(), 9, "3 counted seats × 3 checks");
        assert_eq!(svg.matches("class=\"challenger\"").count(), 3, "one challenger a check");
        assert_eq!(svg.matches("class=\"verdict agrees\"").count(), 4);
        assert!(
            svg.contains("class=\"verdict disagrees\" x=\"123\" y=\"127\" width=\"50\" height=\"24\" fill=\"#c62828\"")
        );
        assert!(svg.contains(
            "class=\"verdict agrees-in-part\" x=\"123\" y=\"67\" width=\"50\" height=\"24\" fill=\"#a6d96a\""
        ));
        for v in VERDICTS {
            let (fill, _, letter) = look(v);
            assert!(svg.contains(&format!("fill=\"{fill}\"")), "{v:?} has its colour");
            assert!(svg.contains(&format!("font-weight=\"bold\">{letter}</text>")), "{v:?} has its letter");
        }
    }

    #[test]
    fn the_consensus_check_is_outlined_only_when_reached() {
        let svg = stance_map(&sample()).unwrap();
        assert_eq!(svg.matches("class=\"consensus\"").count(), 1);
        assert!(svg.contains("<rect class=\"consensus\" x=\"233\""), "round 3's column: {svg}");
        let mut t = sample();
        t.consensus[2].reached = false;
        assert!(!stance_map(&t).unwrap().contains("class=\"consensus\""));
        t.consensus[2].judge = Some(JudgeReview { confirmed: false, position: None, holdouts: vec![], readable: true });
        assert!(stance_map(&t).unwrap().contains("class=\"overruled\""));
    }

    #[test]
    fn the_legend_explains_both_outlines_inside_the_picture() {
        let svg = stance_map(&sample()).unwrap();
        assert!(svg.contains(">consensus reached</text>"));
        assert!(svg.contains("stroke-dasharray=\"6 4\"/><text x=\"31\""), "a dashed legend entry: {svg}");
        assert!(svg.contains(">dashed: the judge overruled the reader</text>"));
        let height: u32 = svg.split("viewBox=\"0 0 500 ").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        let last_text_y: u32 =
            svg.rsplit("<text x=\"31\" y=\"").next().unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(last_text_y < height, "the last legend row ({last_text_y}) is inside the picture ({height})");
    }

    #[test]
    fn says_in_words_what_it_shows() {
        let svg = stance_map(&sample()).unwrap();
        assert!(svg.contains("role=\"img\"") && svg.contains("viewBox=\"0 0 500 "), "{svg}");
        assert!(svg.contains("<title id=\"agon-stance-title\">Stance map: 4 seats over 3 consensus checks</title>"));
        assert!(svg.contains(
            "Round 1: 0 of 3 counted seats agree; b agrees in part; c agrees on a condition; d disagrees; \
a is the challenger, not counted."
        ));
        assert!(
            svg.contains("Round 3: 3 of 3 counted seats agree; c is the challenger, not counted; consensus reached.")
        );
    }

    #[test]
    fn stands_alone_with_its_title_and_question_in_view() {
        let mut t = sample();
        t.question = "Should we ship on Friday?".into();
        let svg = stance_map(&t).unwrap();
        assert!(svg.contains("font-weight=\"bold\">Stance map: 4 seats over 3 consensus checks</text>"), "{svg}");
        assert!(
            svg.contains("<text class=\"question\" x=\"8\" y=\"38\" fill=\"#333333\">Should we ship on Friday?</text>")
        );
        assert!(svg.contains("<desc id=\"agon-stance-desc\">Question: Should we ship on Friday? Round 1:"), "{svg}");
    }

    #[test]
    fn hostile_seat_ids_stay_text() {
        let evil = format!("<script>alert(1)</script></svg>\"'\u{1b}[31m{}", "x".repeat(1 << 20));
        let t = transcript(
            &[&evil, "b"],
            vec![check(1, true, None, vec![stance(&evil, Verdict::Agrees), stance("b", Verdict::Agrees)])],
        );
        let svg = stance_map(&t).unwrap();
        assert!(!svg.contains("<script") && !svg.contains('\u{1b}'));
        assert_eq!(svg.matches("</svg>").count(), 1);
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.len() < 20_000, "a megabyte id is clipped: {} bytes", svg.len());
    }
}
