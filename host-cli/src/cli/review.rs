//! `agon review`'s flags.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::SpecArgs;

/// Review a change: the working tree against HEAD, a revision range, or a diff.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// A revision range (`origin/main...HEAD`, `HEAD~1..HEAD`), or `-` for a diff on standard
    /// input; without one, the working tree against HEAD.
    #[arg(value_name = "REV-RANGE|-")]
    pub target: Option<String>,
    /// Review the unified diff in this file instead of asking git.
    #[arg(long, value_name = "FILE", conflicts_with = "target")]
    pub diff: Option<PathBuf>,
    /// The report: a PR comment (markdown), SARIF 2.1.0 for code scanning, GitHub Actions
    /// annotations, or JSON.
    #[arg(long, short, value_enum, default_value_t = ReviewFormat::Markdown)]
    pub format: ReviewFormat,
    /// Write the report here instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Also write the SARIF 2.1.0 report here (for code scanning), from the same run.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Also write the Markdown report here (for a pull request comment), from the same run.
    #[arg(long, value_name = "FILE")]
    pub comment: Option<PathBuf>,
    /// Fail on a finding this severe or worse (default: agon.toml's `[review] fail_at`, else the
    /// review protocol's: high).
    #[arg(long, value_name = "SEVERITY", value_parser = ["info", "low", "medium", "high", "critical"])]
    pub fail_at: Option<String>,
    /// ... upheld by at least this many seats (default: agon.toml's `[review] confirmed_by`, else 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub confirmed_by: Option<u32>,
    /// The most diff bytes one review session reads; a bigger diff is reviewed in parts, split by
    /// file, and the report says so.
    #[arg(long, value_name = "BYTES", default_value_t = crate::review::diff::DEFAULT_BUDGET)]
    pub max_diff_bytes: usize,
    /// A URL the Markdown report links each finding's file and line under
    /// (`https://github.com/OWNER/REPO/blob/SHA/`); in GitHub Actions, the run's commit by default.
    #[arg(long, value_name = "URL")]
    pub links: Option<String>,
    /// Seconds each model call may take.
    #[arg(long, default_value_t = crate::request::DEFAULT_TIMEOUT_S, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// No progress lines, only the report and errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also append every input to this journal (check it later with `agon replay --verify`).
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Do not keep this review in the sessions folder.
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub spec: SpecArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReviewFormat {
    Markdown,
    Sarif,
    Annotations,
    Json,
}
