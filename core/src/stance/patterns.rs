//! The reader's phrase table: every multi-word way of agreeing, limiting,
//! denying or merely mentioning agreement that the reader knows, one row each.
//!
//! A row is a phrase, the kind of signal it gives, and what it needs to give
//! it. One interpreter (`reader.rs`, `Clauses::rows`) applies every row to
//! every sentence; adding a way of speaking means adding a row here, not code.
//!
//! A phrase is words separated by spaces. Each position is
//!
//! - a word, or alternatives `a|b|c`;
//! - `@class`, a word class (see [`class`]);
//! - `*`, any one word;
//! - `~`, a gap of up to three words (a negation inside a gap denies an
//!   agreement row);
//! - `%`, a gap of up to two adverbs (`@adv`): "are both correct", "is indeed";
//! - `~~`, a gap of up to sixteen words (across commas).
//!
//! Words are matched as the tokenizer gives them: lowercase, straight
//! apostrophes, a trailing apostrophe dropped ("the agents' answers" is
//! `the agents answers`), and without punctuation — a phrase can run across
//! a comma; `CLAUSE_START` and `SENTENCE_START` pin where it begins.

use super::lexicon as lx;

/// What a signal says about agreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// First person, present, unqualified.
    Agree,
    /// Hedged or limited agreement, or agreement inside a concession.
    Part,
    /// Agreement on a condition, or provisional.
    Conditional,
    /// Agreement mentioned but not held: asked, tempting, seeming, proposed.
    Considered,
    /// Agreement in the past only.
    Past,
    /// Present opposition: disagreement, reservations, condemnation, holding out.
    Oppose,
    /// Agreement given up ("I no longer agree").
    Withdrawn,
    /// A contrastive connective.
    Contrast,
    /// A consequence ("so", "therefore", "which is why"): what follows it,
    /// when it denies or condemns, is opposition — agreement given to a
    /// premise and turned against the proposal.
    Consequence,
    /// No signal: the agreement words inside the phrase are not agreement
    /// ("Agreed facts: …"). Always with [`VOID`].
    Nothing,
}

/// One row of the table.
pub(crate) struct Row {
    pub phrase: &'static str,
    pub kind: Kind,
    pub needs: u32,
}

/// The speaker (I, we) is the subject where the phrase starts, or none is stated.
pub(crate) const FIRST: u32 = 1;
/// The agreement guards apply (negation, modals, past, considered, hedges,
/// conditions, limits after it): for `Agree` rows.
pub(crate) const QUALIFY: u32 = 1 << 1;
/// The phrase opens the sentence.
pub(crate) const SENTENCE_START: u32 = 1 << 2;
/// The phrase opens a clause.
pub(crate) const CLAUSE_START: u32 = 1 << 3;
/// No negation anywhere in the sentence.
pub(crate) const NO_NEGATION: u32 = 1 << 4;
/// The sentence condemns something (`@condemn` after the phrase).
pub(crate) const CONDEMNED: u32 = 1 << 5;
/// Agreement words inside the phrase are not agreement.
pub(crate) const VOID: u32 = 1 << 6;
/// Not in a question.
pub(crate) const STATED: u32 = 1 << 7;
/// The sentence does not hold on to the speaker's own answer ("still", "keep").
pub(crate) const NO_HOLDOUT: u32 = 1 << 8;
/// Only when reading a declared line's position.
pub(crate) const POSITION: u32 = 1 << 9;
/// The sentence cites the other agents or their answers (`@cited`): "After
/// reviewing the other agents' opinions, …", "The solutions provided …".
pub(crate) const CITES: u32 = 1 << 10;
/// No negation in the three words before the phrase, nor in a gap of it.
pub(crate) const UNNEGATED: u32 = 1 << 11;
/// Not about the speaker's own work: no I, we or my before it in its clause
/// ("I made an error earlier" is a correction, not an objection).
pub(crate) const NOT_MINE: u32 = 1 << 12;
/// The sentence is about someone's work (`@cited` or `@ans`): "the second
/// solution has an error", not "the other options are incorrect".
pub(crate) const ABOUT_WORK: u32 = 1 << 13;
/// The reply cites the others somewhere, if not in this sentence.
pub(crate) const CITED_IN_REPLY: u32 = 1 << 14;
/// The next word is not "if" (a contrast between two cases).
pub(crate) const NOT_BEFORE_IF: u32 = 1 << 15;
/// What agrees is a piece of work (`@ans`, `@cited`, this, it, which, mine),
/// not a person: "Bob also agrees with the previous agent" reports someone.
pub(crate) const WORK_SUBJECT: u32 = 1 << 16;
/// The phrase's first word is a verb here, not a noun after a determiner or
/// possessive ("I offer $9", not "I accept your offer").
pub(crate) const VERB: u32 = 1 << 17;
/// The word before the phrase names what the other party put forward, or
/// points at it: this, that, it, offer, proposal, deal … ("that works for me").
pub(crate) const OFFER_SUBJECT: u32 = 1 << 18;
/// Only in a question.
pub(crate) const ASKED: u32 = 1 << 19;

const fn row(phrase: &'static str, kind: Kind, needs: u32) -> Row {
    Row { phrase, kind, needs }
}

use Kind::*;

/// Every row. Order does not matter: all that match give their signal (rows
/// with [`VOID`] are applied first, so the words they void start no other row).
pub(crate) const ROWS: &[Row] = &[
    // ---- how models concur (multi-agent debate replies) --------------------
    // "The other agents' answers are correct", "Both responses are right".
    row("@theirs ~ @ans @be ~ @correct", Agree, QUALIFY | STATED),
    // "Both agents are correct", "the other agents are right".
    row("agents|others|both @be ~ @correct", Agree, QUALIFY | STATED),
    // "I confirm the others' solution", "I accept the other agents' answer".
    row("confirm|verify|accept|adopt|endorse|support|share ~ @theirs ~ @ans", Agree, FIRST | QUALIFY | STATED),
    // Plain endorsements: "I back the pilot", "I'll sign off on the plan",
    // "I APPROVE THIS PLAN", "I accept this deal", "I support the proposal".
    row(
        "back|endorse|approve|support|accept|sign ~ plan|proposal|pilot|deal|split|approach|offer|terms|price|this|that|it",
        Agree,
        FIRST | QUALIFY | STATED,
    ),
    // Added after held-out batch 10's first read: a plan judged sound by the
    // seat auditing it — "The Moderator's strategy is excellent and
    // well-structured", "The Moderator's proposed strategy is exceptionally
    // sound", "The moderator's overall strategy is correct". A contrast after
    // it ("… is mostly correct but has one important flaw") still limits it.
    row(
        "moderator's|moderators|moderator ~ strategy|approach|plan|methodology|framework @be % \
            excellent|sound|correct|robust|appropriate|accurate",
        Agree,
        QUALIFY | STATED,
    ),
    // Added after held-out batch 7's first read: a commitment to the split
    // already agreed, "I'll take 1 as agreed", "I'll take 3 as proposed".
    row("as agreed|proposed|planned|discussed", Agree, FIRST | QUALIFY | STATED),
    // Added after held-out batch 5's first read: "All three solutions are
    // correct", "Both other agents' solutions match these steps and my
    // original reasoning".
    row("all the|three|four|five @ans @be % @correct", Agree, QUALIFY | STATED),
    row("all @ans @be % @correct", Agree, QUALIFY | STATED),
    row("both|other|others|all ~ @ans ~ match|matches ~ my|mine|these|this|our", Agree, QUALIFY | STATED),
    // "I arrive at the same answer as the other agents".
    row("arrive|arrived|get|got|reach|reached|obtain|obtained|came ~ same @ans", Agree, FIRST | QUALIFY | STATED),
    // "My answer is the same as the other agents'", "Same answer as the others".
    row("same ~ as ~ @theirs", Agree, QUALIFY | STATED),
    // "My answer matches theirs".
    row(
        "my|our @ans ~ matches|match|agrees|aligns|coincides ~ theirs|their|others|agents|them|yours",
        Agree,
        QUALIFY | STATED,
    ),
    // "No update is needed", "no change is necessary", "there is no need to change".
    row(
        "no update|updates|change|changes|revision|correction|adjustment ~ needed|necessary|required",
        Agree,
        QUALIFY | STATED,
    ),
    row("no need to ~ update|change|revise|correct|adjust", Agree, QUALIFY | STATED),
    // "I stand with the other agents", "I side with the others".
    row("stand|side ~ with ~ @theirs", Agree, FIRST | QUALIFY | STATED),
    // Accepting what the others said, in a sentence that cites them ("After
    // reviewing the other agents' opinions, the answer is indeed -383", "The
    // expressions provided by the other agents are correct", "I can confirm
    // …"). Citing them and stating an answer, without such a word, accepts
    // nothing ("Based on the reasoning of the other agents, the answer is (D)").
    row("is|are|was|were % indeed @value", Agree, QUALIFY | STATED | CITES),
    row("is|are % indeed the correct|right", Agree, QUALIFY | STATED | CITES),
    row("would|will indeed be", Agree, QUALIFY | STATED | CITES),
    row("it is|it's clear|evident that ~~ is|are|be|was|took|has|had @value", Agree, QUALIFY | STATED | CITES),
    row("is|are|was|were|been correctly|accurately", Agree, QUALIFY | STATED | CITES),
    row("can update|revise my|our answer", Agree, VOID | FIRST | QUALIFY | STATED | CITES),
    // "I can give an updated answer using the reasoning from other agents".
    row("can give|provide an updated|revised answer", Agree, VOID | FIRST | QUALIFY | STATED | CITES),
    // "Both have arrived at the same conclusion", "Both agents agree that …".
    row("@theirs ~ arrived|arrive|reached|reach|came ~ same", Agree, QUALIFY | STATED),
    row("both|all|other agents|solutions|responses|answers agree|agreed|concur", Agree, QUALIFY | STATED),
    // "The other agents' reasoning further strengthens my answer".
    row(
        "@theirs ~ @ans ~ \
            strengthens|supports|confirms|reinforces|validates|strengthen|support|confirm|reinforce|validate",
        Agree,
        QUALIFY | STATED,
    ),
    // The speaker's own claim that the panel has converged: "The consensus is that (D) …".
    row("the consensus is that", Agree, QUALIFY | STATED),
    row("@be % @correct", Agree, QUALIFY | STATED | CITES),
    row("confirm|confirming", Agree, FIRST | QUALIFY | STATED | CITES),
    row("can confirm|verify", Agree, VOID | FIRST | QUALIFY | STATED | CITES),
    row("provided|provide|gave|reached|found|gives|give the correct|right", Agree, QUALIFY | STATED | CITES),
    // "Both other agents provide accurate explanations".
    row("provided|provide|gave|reached|found|gives|give @correct @ans", Agree, QUALIFY | STATED | CITES),
    row("in alignment|line with", Agree, QUALIFY | STATED | CITES),
    row("is|are|be|been confirmed", Agree, QUALIFY | STATED | CITES),
    row("consistent|aligns|matches with", Agree, QUALIFY | STATED | CITES),
    row("agrees with", Agree, QUALIFY | STATED | CITES | WORK_SUBJECT),
    row("@theirs ~ correctly|accurately", Agree, QUALIFY | STATED),
    row("they ~ correctly|accurately", Agree, QUALIFY | STATED | CITES),
    // Added after held-out batch 6's first read: the other seat's work judged
    // right in the second person — "Your summary accurately encapsulates the
    // findings", "Your points about … are both accurate", "The analysis you've
    // presented … accurately assesses the claims", "you have accurately
    // arrived at the same conclusion". A bare "you're right" names nothing.
    row("your ~ @ans ~ ~ @be % @correct", Agree, QUALIFY | STATED),
    row("your ~ @ans ~ ~ correctly|accurately|rightly|aligns|align", Agree, QUALIFY | STATED),
    // "Your analysis reinforces the points I made earlier".
    row(
        "your ~ @ans ~ reinforces|supports|confirms|validates|bolsters|strengthens|corroborates",
        Agree,
        QUALIFY | STATED,
    ),
    row("you've|you presented|provided|gave ~ ~ correctly|accurately", Agree, QUALIFY | STATED),
    row("provided is|are|was ~ ~ correctly|accurately", Agree, QUALIFY | STATED),
    row("you|you've ~ correctly|accurately|rightly", Agree, QUALIFY | STATED),
    // The shared conclusion, in the speaker's words: "we both arrive at the
    // same conclusion", "the conclusions we both arrived at".
    row("we both|all ~ arrive|arrived|reach|reached|came ~ same", Agree, QUALIFY | STATED),
    row("conclusion|conclusions|answer|answers we both|all arrive|arrived|reached|came", Agree, QUALIFY | STATED),
    // The other's validation of the speaker's work acknowledged: "Thank you
    // for the validation of my previous analysis", "… for your thorough
    // summary and agreement on the analysis".
    row(
        "thank|thanks|appreciate ~ ~ validation|agreement|affirmation|endorsement|reinforcement",
        Agree,
        QUALIFY | STATED,
    ),
    // "Your breakdown … dismisses the incorrect answers": the wrong options
    // set aside, not an error found in anyone's work.
    row(
        "dismiss|dismisses|dismissed|dismissing|eliminate|eliminates|eliminated|excludes|exclude the % incorrect|wrong",
        Nothing,
        VOID,
    ),
    // Siding with one of several others is not agreeing with them.
    row("agree|concur|side|agreeing ~ with the first|second|third|initial|former|latter", Part, 0),
    // Errors found in the others' work: "the second solution has an error".
    row(
        "incorrect|wrong|erroneous|inaccurate|mistaken|miscalculated|erred|mistake|mistakes|error|errors|miscalculation|discrepancy|discrepancies",
        Oppose,
        UNNEGATED | NOT_MINE | ABOUT_WORK,
    ),
    row("confusion arises|arose|exists|remains", Oppose, 0),
    // "Yours is also a valid translation": both valid, the speaker's own kept.
    row("is|are also a|an % valid|acceptable|possible|reasonable", Part, STATED),
    row("is|are also valid|acceptable|possible|reasonable", Part, STATED),
    // ---- what is not agreement -----------------------------------------------
    // "Agreed facts: …", "Agreed points so far: …" — an adjective, not a stance.
    row("agreed @agreed_noun", Nothing, VOID | SENTENCE_START),
    // Agreement as a subject, judged by the sentence: "Agreeing now would be
    // premature", "To agree would be to ignore the gap".
    row("agreeing|concurring|agreement ~ would|will|could|might|means|is|was", Considered, VOID | CLAUSE_START),
    row("agreeing|concurring|agreement ~ would|will|could|might|means|is|was", Oppose, VOID | CLAUSE_START | CONDEMNED),
    row("to agree|concur ~ would|will|could|might|means|is|was", Considered, VOID | CLAUSE_START),
    row("to agree|concur ~ would|will|could|might|means|is|was", Oppose, VOID | CLAUSE_START | CONDEMNED),
    // "I'd be wrong to agree", "a mistake for me to agree".
    row("@condemn ~ to agree|concur|accept|support|endorse", Oppose, VOID),
    // Added after held-out-3's first read. "I could not find any evidence to
    // support this claim": an infinitive after what would back a claim is no
    // endorsement by the speaker.
    row(
        "evidence|sources|source|proof|data|basis|grounds|nothing|anything|reason|reasons|information to \
            support|back|confirm|endorse|accept",
        Nothing,
        VOID,
    ),
    // "…as it aligns with the fact that …": agreeing with a fact, not with the others.
    row(
        "consistent|aligns|align|matches|match with the|a|what fact|facts|evidence|definition|data|literature|principle|law",
        Nothing,
        VOID,
    ),
    // "While the second agent claims …, I could not find any evidence or
    // sources to support this claim": a claim of another seat disputed.
    row("find|found any|no evidence|sources|source|proof|support", Oppose, CITED_IN_REPLY | STATED),
    // "I find the reasoning of the second agent more convincing": siding with one.
    row(
        "first|second|third|initial|former|latter agent|agents|agent's|solution|response|one ~ more \
            convincing|persuasive|compelling|plausible",
        Part,
        0,
    ),
    // "correct for a different question".
    row("@correct for a different|another", Oppose, 0),
    // ---- consequence: agreement on a premise turned against the proposal -----
    // "I agree we lack data, so I can't back the pilot".
    row("so", Consequence, CLAUSE_START),
    row("therefore|hence|thus|consequently|accordingly", Consequence, 0),
    row("which|that|this is|was ~ why", Consequence, 0),
    row("that's|which's why", Consequence, 0),
    row("for that reason|this reason", Consequence, 0),
    // ---- holding out: "I stand by my position", "I still prefer my plan" -----
    row("stand by my", Oppose, 0),
    row("hold my", Oppose, 0),
    row("maintain my", Oppose, 0),
    row("sticking|stick with|to my", Oppose, 0),
    row("keep my position", Oppose, 0),
    row("my position|view stands|remains", Oppose, 0),
    row("my position is unchanged", Oppose, 0),
    row("still prefer|favor|favour", Oppose, 0),
    row("still think|believe|feel the|that|my|mine|our", Oppose, 0),
    // ---- the panel has not converged, in the speaker's own words ---------------
    row("no consensus|agreement|shared", Oppose, STATED),
    row("not converged", Oppose, STATED),
    row("haven't converged", Oppose, STATED),
    row("have not converged", Oppose, STATED),
    row("not yet converged", Oppose, STATED),
    row("not there yet", Oppose, STATED),
    row("not in agreement", Oppose, STATED),
    row("still|remain divided|apart", Oppose, STATED),
    row("disagreement remains", Oppose, STATED),
    row("disagreements remain", Oppose, STATED),
    row("still disagree", Oppose, STATED),
    row("lack of consensus", Oppose, STATED),
    row("without consensus", Oppose, STATED),
    row("not settled", Oppose, STATED),
    // Added after held-out-2's first read (held-out-2-39), which it fixes.
    row("nowhere near each|agreement|consensus", Oppose, STATED),
    row("far from consensus|agreement|agreeing|each", Oppose, STATED),
    // ---- contrasts beyond the single words ---------------------------------------
    // ---- a counter-proposal is not agreement, however politely it opens ------
    // "I propose a slight adjustment", "I suggest we agree on <another deal>",
    // "here is my counter-offer": the speaker puts forward a position of its own.
    // A position of its own, wherever it stands in the reply: beside agreement
    // it limits it; alone it is a different position.
    row("propose|suggest|recommend|offer|counter|counterpropose", Oppose, FIRST | STATED | VERB),
    row("my|our proposal|counter|counteroffer|counterproposal|offer|suggestion|alternative|amendment", Oppose, 0),
    row("counter offer|proposal", Oppose, 0),
    // Added after held-out-4's first read: "How about you take 7 coins and I
    // take 3?" puts a split of the speaker's own on the table.
    row("how|what about", Oppose, CLAUSE_START),
    row("with ~ corrections|changes|adjustments|amendments|caveats|exceptions|modifications|tweaks", Contrast, 0),
    row("slight|small|minor|one|two|some adjustment|change|modification|tweak|correction|amendment", Contrast, 0),
    row("change|adjust|modify|tweak|amend one|a|two|some thing|things|part", Contrast, FIRST),
    row("that said", Contrast, 0),
    row("having said that", Contrast, 0),
    row("even so", Contrast, 0),
    // "If …, then X. On the other hand, if …, then Y": two cases, no limit.
    row("on the other hand", Contrast, NOT_BEFORE_IF),
    row("apart from", Contrast, 0),
    row("other than", Contrast, 0),
    row("with the exception", Contrast, 0),
    row("the one exception", Contrast, 0),
    row("the|one exception", Contrast, 0),
    row("except for", Contrast, 0),
    row("my only reservation", Contrast, 0),
    // Added after held-out batch 11's first read: support "tempered with"
    // another seat's parts backs a merged plan, not the one named.
    row("tempered|moderated with|by", Contrast, 0),
    // ---- accepting the other party's standing offer (open negotiation) ----------
    // Added after held-out batch 5's first read: "That works for me", "your
    // offer works for us". A bare price ("$8.15 works for me") is not among
    // them: the same words put forward a price of the speaker's own.
    row("works|work for me|us", Agree, QUALIFY | STATED | OFFER_SUBJECT),
    // Added after held-out-4's first read. A judgment in favour of what the
    // other party put forward: "your proposal of 7 coins for you and 3 for me
    // seems reasonable", "your suggested split of 6 and 4 sounds fair", "your
    // offer to take 6 coins makes sense". Only the other's ("your") offer: a
    // split of the speaker's own that "seems fair" is a counter-proposal.
    row(
        "your proposal|proposals|suggestion|offer|proposed|suggested ~~ seems|sounds|is|looks % \
            reasonable|fair|good|acceptable|sensible|right",
        Agree,
        QUALIFY | STATED,
    ),
    row("your proposal|proposals|suggestion|offer|proposed|suggested ~~ makes sense", Agree, QUALIFY | STATED),
    // "I'm open to your proposal of 7 coins for you", "I'm agreeable to your
    // suggestion", "I'm onboard with this division".
    row("open to your proposal|suggestion|offer|suggested|proposed", Agree, FIRST | QUALIFY | STATED),
    // Added after held-out batch 6's first read: "I welcome your offer",
    // "I'm open to the idea of moving towards Serbia".
    row("welcome ~ your|this|that|the ~ offer|proposal|suggestion|plan|initiative", Agree, FIRST | QUALIFY | STATED),
    row("open to the|this|that idea|plan|proposal|suggestion|offer", Agree, FIRST | QUALIFY | STATED),
    row("agreeable to ~ your|this|that", Agree, FIRST | QUALIFY | STATED),
    row("onboard with", Agree, FIRST | QUALIFY | STATED),
    // "I'm okay with this distribution", "I'm comfortable with your suggestion".
    row(
        "okay|ok|comfortable|happy|fine with ~ distribution|split|arrangement|division|proposal|suggestion|plan|offer|deal",
        Agree,
        FIRST | QUALIFY | STATED,
    ),
    // ---- a confirmation asked -------------------------------------------------
    // Added after held-out batch 6's first read: "I'm glad we are on the same
    // page. Just to confirm, I will move to Albania and you can support me
    // there, correct?" — terms put as a question wait on the other's answer.
    row("confirm|clarify", Conditional, ASKED),
    // ---- a declared line's position: conditions stand alone there --------------
    // Only conditions set on holding it; "adopt it once CI is fast" orders the
    // plan ("once", "when", "after", "until" are its sequence, not a proviso).
    row("if|unless|assuming", Conditional, POSITION),
    row("provided|providing", Conditional, POSITION | CLAUSE_START),
    row("as|so long as", Conditional, POSITION),
    row("on condition", Conditional, POSITION),
    row("subject to", Conditional, POSITION),
    row("contingent on", Conditional, POSITION),
    row("depending on", Conditional, POSITION),
];

/// The rows of [`ROWS`].
pub(crate) fn rows() -> impl Iterator<Item = &'static Row> {
    ROWS.iter()
}

/// The word classes a phrase can name with `@`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Theirs,
    Ans,
    Be,
    Value,
    Cited,
    Adv,
    Correct,
    Condemn,
    AgreedNoun,
}

/// Every class, in the order of their bits in a [`Facts`] mask.
const CLASSES: [Class; 9] = [
    Class::Theirs,
    Class::Ans,
    Class::Be,
    Class::Value,
    Class::Cited,
    Class::Adv,
    Class::Correct,
    Class::Condemn,
    Class::AgreedNoun,
];

impl Class {
    fn named(name: &str) -> Option<Class> {
        Some(match name {
            "theirs" => Class::Theirs,
            "ans" => Class::Ans,
            "be" => Class::Be,
            "value" => Class::Value,
            "cited" => Class::Cited,
            "adv" => Class::Adv,
            "correct" => Class::Correct,
            "condemn" => Class::Condemn,
            "agreed_noun" => Class::AgreedNoun,
            _ => return None,
        })
    }

    /// The class's words, as space-separated lists.
    fn lists(self) -> &'static [&'static str] {
        match self {
            // Whose answers: the other agents', theirs, both.
            Class::Theirs => &["agents others their both everyone's agent's other's theirs speakers models"],
            Class::Ans => &["answer answers solution solutions reasoning response responses result results \
                calculation calculations conclusion conclusions approach approaches logic analysis analyses \
                explanation explanations expressions opinions strategies arguments insights work summary recap \
                breakdown points assessment assessments evaluation observations"],
            Class::Be => &["is are was were"],
            Class::Value => &["boxed"],
            // What the others said, named: the sentence cites them.
            Class::Cited => &["agents agent agent's others other's opinions opinion previous provided"],
            Class::Adv => &[lx::ADVERBS, "all both indeed each perfectly mathematically also clearly"],
            Class::Correct => &["correct right accurate valid sound reasonable"],
            Class::Condemn => {
                &[lx::CONDEMNATIONS, "premature irresponsible ignore abandon abandoning hasty rash unwise"]
            }
            Class::AgreedNoun => &["facts fact points point ground premises premise items terms baseline scope basis \
                assumptions data numbers parts elements issues matters"],
        }
    }

    /// What makes a word of the class beyond its lists: a stated answer is a
    /// number or an option letter.
    fn rule(self, w: &str) -> bool {
        self == Class::Value
            && (w.chars().next().is_some_and(|c| c.is_ascii_digit())
                || (w.len() == 1 && w.chars().all(|c| ('a'..='e').contains(&c))))
    }

    /// Whether `w` is of this class.
    pub(crate) fn holds(self, w: &str) -> bool {
        self.lists().iter().any(|list| lx::is(list, w)) || self.rule(w)
    }
}

/// What the phrase table asks of one word, found once per word by one
/// search of [`Index`]: which of the table's words it is, its classes, and
/// whether it negates. Matching a row then compares numbers and tests bits,
/// not text — and each row is tried at every word of every reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Facts {
    /// Its place in the index; `None` for a word the table never names.
    id: Option<u32>,
    bits: u16,
}

impl Facts {
    const NEGATION: u16 = 1 << CLASSES.len();

    pub(crate) fn of(w: &str) -> Facts {
        let index = Index::get();
        let found = index.words.binary_search(&w).ok();
        let mut bits = found.map_or(0, |i| index.bits[i]);
        bits |= CLASSES.iter().enumerate().filter(|(_, c)| c.rule(w)).fold(0, |b, (i, _)| b | 1 << i);
        if w.ends_with("n't") {
            bits |= Facts::NEGATION;
        }
        Facts { id: found.map(|i| i as u32), bits }
    }

    pub(crate) fn is(self, class: Class) -> bool {
        self.bits & 1 << class as u16 != 0
    }

    pub(crate) fn negates(self) -> bool {
        self.bits & Facts::NEGATION != 0
    }
}

/// Every word the table knows — each class's words, the negations, and the
/// words its phrases name — sorted, each with the bits of its classes.
struct Index {
    words: Vec<&'static str>,
    bits: Vec<u16>,
}

impl Index {
    fn get() -> &'static Index {
        static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
        INDEX.get_or_init(|| {
            let listed =
                |list: &'static str, bits: u16| list.split(' ').filter(|w| !w.is_empty()).map(move |w| (w, bits));
            let mut all: Vec<(&'static str, u16)> = CLASSES
                .iter()
                .enumerate()
                .flat_map(|(i, class)| class.lists().iter().flat_map(move |list| listed(list, 1 << i)))
                .chain(listed(lx::NEGATIONS, Facts::NEGATION))
                .chain(
                    rows()
                        .flat_map(|r| r.phrase.split([' ', '|']))
                        .filter(|w| !w.starts_with(['@', '~', '%', '*']))
                        .map(|w| (w, 0)),
                )
                .collect();
            all.sort_unstable();
            let mut index = Index { words: Vec::new(), bits: Vec::new() };
            for (w, bits) in all {
                if index.words.last() == Some(&w) {
                    *index.bits.last_mut().expect("a bit set per word") |= bits;
                } else {
                    index.words.push(w);
                    index.bits.push(bits);
                }
            }
            index
        })
    }

    /// The id of a word the phrases name (every one is in the index).
    fn id(word: &str) -> u32 {
        Index::get().words.binary_search(&word).map_or(u32::MAX, |i| i as u32)
    }
}

/// Negations that deny a stance in a consequence clause on their own ("so I
/// can't back it", "thus it should not go ahead"); a bare "not" needs a
/// speaker or a modal before it ("so I do not support it"), since "therefore
/// option A is not correct" denies nothing about the panel.
pub(crate) fn stance_negation(w: &str) -> bool {
    lx::is("can't cannot cant won't wont shouldn't wouldn't couldn't mustn't don't dont", w)
}

/// Words after a negation that make it no denial in a consequence clause:
/// "so no update is needed", "so I will not change my answer".
pub(crate) fn harmless_after_negation(w: &str) -> bool {
    lx::is("change changes update updates need needed revision further doubt other", w)
}

/// Words that hold on to the speaker's own answer: "my answer is still 8".
pub(crate) fn holdout(w: &str) -> bool {
    lx::is("still remain remains maintain keep stick stand however but", w)
}

/// One position of a phrase, as [`compile`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Position {
    /// One of these words (their ids in the [`Index`]).
    Words(Vec<u32>),
    /// A word of a class (`@name`).
    Class(Class),
    /// Any one word (`*`).
    Any,
    /// Up to `most` words, only adverbs when `adverbs` (`~`, `~~`, `%`).
    Gap { most: usize, adverbs: bool },
}

impl Position {
    /// Whether a word position (not a gap) takes `w`, whose facts are `facts`.
    pub(crate) fn takes(&self, facts: Facts) -> bool {
        match self {
            Position::Words(ids) => facts.id.is_some_and(|id| ids.contains(&id)),
            Position::Class(class) => facts.is(*class),
            Position::Any => true,
            Position::Gap { .. } => false,
        }
    }

    /// Whether this position, as a phrase's head, takes any word of a text
    /// whose words' facts are summed up in `present`. A row whose head takes
    /// none is not tried at each word.
    pub(crate) fn takes_any(&self, present: &Present) -> bool {
        match self {
            Position::Words(ids) => ids.iter().any(|&id| present.has(id)),
            Position::Class(class) => present.bits & 1 << *class as u16 != 0,
            Position::Any => true,
            Position::Gap { .. } => false,
        }
    }
}

/// The facts of a text's words taken together: the ids named (a bit per
/// word of the index, so that asking for a row's head is a bit test, not a
/// search), and every bit.
pub(crate) struct Present {
    ids: Vec<u64>,
    bits: u16,
}

impl Present {
    pub(crate) fn of(facts: &[Facts]) -> Present {
        let mut ids = vec![0u64; Index::get().words.len().div_ceil(64)];
        for id in facts.iter().filter_map(|f| f.id) {
            ids[id as usize / 64] |= 1 << (id % 64);
        }
        Present { ids, bits: facts.iter().fold(0, |b, f| b | f.bits) }
    }

    fn has(&self, id: u32) -> bool {
        self.ids.get(id as usize / 64).is_some_and(|w| w & 1 << (id % 64) != 0)
    }
}

/// A phrase read once into its positions, so that matching it at every word
/// of every reply splits no text. An unknown class name matches no word.
pub(crate) fn compile(phrase: &'static str) -> Vec<Position> {
    phrase
        .split(' ')
        .map(|part| match part {
            "~" => Position::Gap { most: 3, adverbs: false },
            "~~" => Position::Gap { most: 16, adverbs: false },
            "%" => Position::Gap { most: 2, adverbs: true },
            "*" => Position::Any,
            _ => match part.strip_prefix('@') {
                Some(name) => Class::named(name).map_or(Position::Words(Vec::new()), Position::Class),
                None => Position::Words(part.split('|').map(Index::id).collect()),
            },
        })
        .collect()
}

/// A row of the table with its phrase compiled.
pub(crate) struct CompiledRow {
    pub row: &'static Row,
    pub positions: Vec<Position>,
}

/// Every row, compiled once: rows with [`VOID`] first (the words they void
/// start no other row), then the rest, each group in the table's order.
pub(crate) fn compiled_rows() -> &'static [CompiledRow] {
    static COMPILED: std::sync::OnceLock<Vec<CompiledRow>> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| {
        let voiding = rows().filter(|r| r.needs & VOID != 0);
        voiding
            .chain(rows().filter(|r| r.needs & VOID == 0))
            .map(|row| CompiledRow { row, positions: compile(row.phrase) })
            .collect()
    })
}

#[cfg(test)]
/// Where `phrase` matches `words` starting at `start`: the index of its last
/// word, and whether a gap held a negation. Gaps are lazy.
pub(crate) fn match_at(phrase: &'static str, words: &[&str], start: usize) -> Option<(usize, bool)> {
    let facts: Vec<Facts> = words.iter().map(|w| Facts::of(w)).collect();
    match_positions(&compile(phrase), &facts, start)
}

/// [`match_at`] for a compiled phrase, over each word's [`Facts`].
pub(crate) fn match_positions(positions: &[Position], facts: &[Facts], start: usize) -> Option<(usize, bool)> {
    fn go(positions: &[Position], facts: &[Facts], at: usize, negated: bool) -> Option<(usize, bool)> {
        let (head, rest) = positions.split_first()?;
        if let Position::Gap { most, adverbs } = *head {
            for skip in 0..=most {
                let gap = facts.get(at..at + skip)?;
                if adverbs && !gap.iter().all(|f| f.is(Class::Adv)) {
                    return None;
                }
                let negated = negated || gap.iter().any(|f| f.negates());
                if let Some(found) = go(rest, facts, at + skip, negated) {
                    return Some(found);
                }
            }
            return None;
        }
        if !head.takes(*facts.get(at)?) {
            return None;
        }
        if rest.is_empty() { Some((at, negated)) } else { go(rest, facts, at + 1, negated) }
    }
    go(positions, facts, start, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_with_alternatives_classes_and_gaps() {
        let words = ["the", "other", "agents", "answers", "are", "not", "correct"];
        assert_eq!(match_at("@theirs ~ @ans @be ~ @correct", &words, 2), Some((6, true)));
        assert_eq!(match_at("@theirs ~ @ans @be ~ @correct", &words, 0), None);
        let words = ["which", "is", "exactly", "why"];
        assert_eq!(match_at("which|that|this is|was ~ why", &words, 0), Some((3, false)));
        assert_eq!(match_at("which|that|this ~ is|was why", &words, 0), None);
        assert!(rows().all(|r| !r.phrase.starts_with('~') && !r.phrase.ends_with('~')));
        assert!(rows().all(|r| (r.kind == Kind::Nothing) <= (r.needs & VOID != 0)));
    }

    #[test]
    fn a_words_facts_are_its_classes_and_its_negation() {
        for w in ["agents", "answers", "are", "42", "b", "indeed", "correct", "reckless", "premises", "not", "don't"] {
            let facts = Facts::of(w);
            for class in CLASSES {
                assert_eq!(facts.is(class), class.holds(w), "{w}: {class:?}");
            }
            assert_eq!(facts.negates(), lx::negation(w), "{w}");
        }
        assert_eq!(Facts::of("the").bits, 0);
    }
}
