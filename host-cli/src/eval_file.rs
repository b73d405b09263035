//! An evaluation file (`agon eval --arms-file`): the arms, each with its own
//! protocol, panel, rounds, judge, consensus and scoring. TOML, YAML or JSON,
//! by extension, checked like a spec: an error names the field.

use std::path::{Path, PathBuf};

use agon_core::ConsensusMode;
use serde::Deserialize;

use crate::options::{Judge, Options, PanelChoice};
use agon_core::eval::Scoring as EvalScoring;

/// The arms named when there is no evaluation file and no `--arm`.
pub const DEFAULT_ARMS: [&str; 3] = ["single", "vote", "rotating-challenger"];

/// One arm of an evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmPlan {
    /// Its name in the report and its results file's (`NAME.jsonl`).
    pub name: String,
    /// `single`, `vote`, `self-correct`, a protocol's name, or a protocol document's path
    /// (relative to the evaluation file). Default: the name.
    #[serde(default)]
    pub protocol: Option<String>,
    /// Its models; default: the flags' or agon.toml's panel.
    #[serde(default)]
    pub panel: Vec<String>,
    /// The vote or self-correct arm's seats when its panel is one model.
    #[serde(default)]
    pub votes: Option<usize>,
    #[serde(default)]
    pub rounds: Option<u32>,
    #[serde(default)]
    pub judge: Option<String>,
    #[serde(default)]
    pub consensus: Option<ConsensusMode>,
    /// Stop a debate after a round that changed no seat's answer (the protocol's `stop_when_unchanged`).
    #[serde(default)]
    pub stop_when_unchanged: Option<bool>,
    /// Whose answer counts: the seats' vote, the judge's synthesis, or both (two rows).
    #[serde(default)]
    pub score: ScoreBy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreBy {
    #[default]
    Vote,
    Judge,
    Both,
}

impl ArmPlan {
    /// An arm named on the command line: its protocol is its name.
    pub fn named(arm: &str) -> ArmPlan {
        ArmPlan {
            name: arm.to_string(),
            protocol: None,
            panel: Vec::new(),
            votes: None,
            rounds: None,
            judge: None,
            consensus: None,
            stop_when_unchanged: None,
            score: ScoreBy::Vote,
        }
    }

    /// The arm's own settings as a layer over the flags' and agon.toml's:
    /// its panel, judge (`none`: no judge) and rounds, where it gives them.
    pub fn layer(&self) -> Options {
        Options {
            panel: (!self.panel.is_empty()).then(|| PanelChoice::Models(self.panel.clone())),
            judge: self.judge.as_deref().map(|judge| match judge {
                "none" => Judge::Without,
                model => Judge::Model(model.to_string()),
            }),
            rounds: self.rounds,
            ..Options::default()
        }
    }

    pub fn protocol(&self) -> &str {
        self.protocol.as_deref().unwrap_or(&self.name)
    }

    /// The single and vote arms: blind answers, no judge, no rounds.
    pub fn is_blind(&self) -> bool {
        matches!(self.protocol(), "single" | "vote")
    }

    /// The report's rows for this arm: its name and whose answer each scores.
    pub fn rows(&self) -> Vec<(String, EvalScoring)> {
        use EvalScoring as Scoring;
        match self.score {
            ScoreBy::Vote => vec![(self.name.clone(), Scoring::Vote)],
            ScoreBy::Judge => vec![(self.name.clone(), Scoring::Judge)],
            ScoreBy::Both => {
                vec![
                    (format!("{} (vote)", self.name), Scoring::Vote),
                    (format!("{} (judge)", self.name), Scoring::Judge),
                ]
            }
        }
    }

    /// The arm's results file in `folder`: its name as a file name.
    pub fn results_in(&self, folder: &Path) -> PathBuf {
        let stem = Path::new(&self.name).file_stem().map_or(self.name.clone(), |s| s.to_string_lossy().into_owned());
        let safe: String =
            stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        folder.join(format!("{safe}.jsonl"))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EvalFile {
    #[serde(alias = "arms")]
    arm: Vec<ArmPlan>,
}

/// The arms of the evaluation file at `path`; a document path in an arm is
/// made relative to the file's folder.
pub fn read(path: &Path) -> Result<Vec<ArmPlan>, String> {
    let value = crate::protocol_file::read(path)?;
    let file: EvalFile = serde_path_to_error::deserialize(value).map_err(|e| {
        let at = e.path().to_string();
        let at = if at == "." { String::new() } else { format!(" at `{at}`") };
        format!("{}{at}: {}", path.display(), e.inner())
    })?;
    let folder = path.parent().unwrap_or(Path::new(""));
    let mut arms = file.arm;
    for arm in &mut arms {
        if let Some(p) = &arm.protocol
            && Path::new(p).extension().is_some()
        {
            arm.protocol = Some(folder.join(p).to_string_lossy().into_owned());
        }
    }
    check(&arms).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(arms)
}

/// What no arm list may hold: no arm, a name twice (their results would
/// share a file), a judge's score for an arm without a judge, votes outside the vote arm.
pub fn check(arms: &[ArmPlan]) -> Result<(), String> {
    if arms.is_empty() {
        return Err("no arm: give at least one `[[arm]]`".into());
    }
    for (i, arm) in arms.iter().enumerate() {
        let at = format!("`arm[{i}]`");
        if arm.name.trim().is_empty() {
            return Err(format!("{at}: `name` is empty"));
        }
        let file = arm.results_in(Path::new(""));
        if let Some(other) = arms[..i].iter().find(|a| a.results_in(Path::new("")) == file) {
            return Err(format!(
                "{at}: `name` '{}' would share the results file {} with '{}'; give each arm its own name",
                arm.name,
                file.display(),
                other.name
            ));
        }
        if arm.is_blind() && arm.score != ScoreBy::Vote {
            return Err(format!("{at}.score: the {} arm has no judge; score it by `vote`", arm.protocol()));
        }
        if arm.is_blind()
            && (arm.rounds.is_some()
                || arm.judge.is_some()
                || arm.consensus.is_some()
                || arm.stop_when_unchanged.is_some())
        {
            return Err(format!(
                "{at}: the {} arm answers once, blind: it takes no `rounds`, `judge`, `consensus` or `stop_when_unchanged`",
                arm.protocol()
            ));
        }
        if arm.protocol() == "self-correct"
            && (arm.judge.is_some() || arm.consensus.is_some() || arm.score != ScoreBy::Vote)
        {
            return Err(format!(
                "{at}: the self-correct arm's seats revise alone, with no judge: it takes no `judge` or `consensus`, \
                 and is scored by `vote`"
            ));
        }
        if arm.votes.is_some() && !matches!(arm.protocol(), "vote" | "self-correct") {
            return Err(format!("{at}.votes: only the vote and self-correct arms take `votes`"));
        }
        if arm.votes == Some(0) {
            return Err(format!("{at}.votes: at least 1"));
        }
        if arm.score != ScoreBy::Vote && arm.judge.as_deref() == Some("none") {
            return Err(format!("{at}.score: the arm has `judge = \"none\"`, so no judge's answer to score"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn reads_toml_and_yaml_arms_with_their_own_panels() {
        let dir = tempfile::tempdir().unwrap();
        let toml = write(
            &dir,
            "eval.toml",
            r#"
[[arm]]
name = "one"
protocol = "single"
panel = ["openai/a"]

[[arm]]
name = "du"
protocol = "mine.toml"
panel = ["openai/a", "openai/b", "openai/c"]
rounds = 2
score = "both"
"#,
        );
        let arms = read(&toml).unwrap();
        assert_eq!(arms[0].protocol(), "single");
        assert_eq!(arms[1].rounds, Some(2));
        assert_eq!(Path::new(arms[1].protocol()), dir.path().join("mine.toml"));
        let rows: Vec<String> = arms[1].rows().into_iter().map(|r| r.0).collect();
        assert_eq!(rows, ["du (vote)", "du (judge)"]);
        let yaml = write(&dir, "eval.yaml", "arms:\n  - name: vote\n    votes: 5\n");
        assert_eq!(read(&yaml).unwrap()[0].votes, Some(5));
    }

    #[test]
    fn an_arm_is_a_layer_of_settings_where_it_gives_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(
            &dir,
            "eval.toml",
            "[[arm]]\nname = \"bare\"\n\n[[arm]]\nname = \"rr\"\nprotocol = \"round-robin\"\npanel = [\"openai/a\", \"openai/b\"]\nrounds = 3\njudge = \"none\"\n\n[[arm]]\nname = \"judged\"\nprotocol = \"round-robin\"\njudge = \"openai/j\"\n",
        );
        let arms = read(&file).unwrap();
        assert_eq!(arms[0].layer(), Options::default(), "an arm that gives nothing leaves every setting to the flags");
        let rr = arms[1].layer();
        assert_eq!(rr.panel, Some(PanelChoice::Models(vec!["openai/a".into(), "openai/b".into()])));
        assert_eq!((rr.rounds, rr.judge), (Some(3), Some(Judge::Without)));
        assert_eq!(arms[2].layer().judge, Some(Judge::Model("openai/j".into())));
    }

    #[test]
    fn a_bad_file_names_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("[[arm]]\nname = \"a\"\nrounds = \"two\"\n", "arm[0].rounds"),
            ("[[arm]]\nname = \"a\"\npanle = [\"x\"]\n", "panle"),
            ("[[arm]]\nname = \"single\"\nscore = \"judge\"\n", "arm[0]`.score"),
            ("[[arm]]\nname = \"x\"\nprotocol = \"round-robin\"\nvotes = 3\n", "arm[0]`.votes"),
            ("[[arm]]\nname = \"a b\"\n[[arm]]\nname = \"a_b\"\n", "share the results file"),
            ("arm = []\n", "no arm"),
        ];
        for (text, expected) in cases {
            let path = write(&dir, "bad.toml", text);
            let err = read(&path).unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
            assert!(err.starts_with(&path.display().to_string()), "{err}");
        }
    }
}
