//! Properties of the stance reader: a first-person opposing clause never
//! counts as agreement, whatever agreement surrounds it — before, after, in
//! a declared SAME line — and no reading ever panics or points outside the reply.

use agon_core::stance::{self, Verdict};
use proptest::prelude::*;

const AGREEMENT: &[&str] = &[
    "I agree with Speaker 2.",
    "We have converged on the phased plan.",
    "I'm persuaded by the cost argument.",
    "I support the consensus position.",
    "Agreed.",
    "I fully agree with everyone here.",
    "I concur with Speaker 1.",
    "I've changed my mind and agree with Speaker 3.",
    "Count me in.",
    "I couldn't agree more.",
];

const OPPOSITION: &[&str] = &[
    "I still oppose the plan as written.",
    "I disagree with the timeline.",
    "I object to the budget.",
    "I reject the remedy.",
    "I remain unconvinced.",
    "I have serious concerns about the cost.",
    "I am against the rollout date.",
    "I can't support this.",
    "My objection stands.",
    "I don't agree with Speaker 4.",
    "I no longer agree with the plan.",
];

const JOINERS: &[&str] = &[" ", "\n", "\n\n", " But ", " However, ", " Still, ", " And "];

fn reply() -> impl Strategy<Value = (String, bool)> {
    (
        proptest::collection::vec(0..AGREEMENT.len(), 0..3),
        0..OPPOSITION.len(),
        proptest::collection::vec(0..AGREEMENT.len(), 0..3),
        proptest::collection::vec(0..JOINERS.len(), 6),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(before, opposing, after, joiners, vote, declared)| {
            let mut parts: Vec<String> = before.iter().map(|&i| AGREEMENT[i].to_string()).collect();
            parts.push(OPPOSITION[opposing].to_string());
            parts.extend(after.iter().map(|&i| AGREEMENT[i].to_string()));
            let mut text = String::new();
            for (k, part) in parts.iter().enumerate() {
                if k > 0 {
                    let joiner = JOINERS[joiners[k % joiners.len()]];
                    // A joiner that starts a sentence takes the next one in lower case.
                    text.push_str(joiner);
                    if joiner.ends_with(' ') && joiner.trim().len() > 1 {
                        let mut chars = part.chars();
                        let first = chars.next().unwrap();
                        let first = if part.starts_with("I ") || part.starts_with("I'") {
                            first
                        } else {
                            first.to_ascii_lowercase()
                        };
                        text.push(first);
                        text.push_str(chars.as_str());
                        continue;
                    }
                }
                text.push_str(part);
            }
            if vote {
                text.push_str("\nVOTE: SAME — the phased plan.");
            }
            (text, declared)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn a_first_person_opposing_clause_never_counts((text, declared) in reply()) {
        let r = stance::read(&text, declared);
        prop_assert_ne!(r.verdict, Verdict::Agrees, "{:?} was read as agreeing ({:?})", text, r.evidence);
    }

    #[test]
    fn any_text_reads_without_panicking_and_evidence_points_into_it(text in ".{0,400}", declared in any::<bool>()) {
        let r = stance::read(&text, declared);
        if let Some(e) = r.evidence
            && let (Some(start), Some(end)) = (e.start, e.end)
        {
            prop_assert!(start <= end && text.get(start as usize..end as usize).is_some());
        }
    }
}
