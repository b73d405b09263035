//! Command-line arguments.

use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, Args, Parser, Subcommand, ValueEnum};

pub mod review;

use crate::options::{Options, PanelChoice, PerSeat, ProtocolChoice};
use crate::request::{DEFAULT_MAX_TOKENS, DEFAULT_PROTOCOL, DEFAULT_TEMPERATURE, DebateRequest, Judge};
use agon_core::Effort;

#[derive(Debug, Parser)]
#[command(
    name = "agon",
    version,
    long_version = version_text(),
    about = "Run LLM councils: several models debate, a judge synthesizes.",
    after_help = TOP_EXAMPLES
)]
pub struct Cli {
    /// The configuration file (default: ./agon.toml, then ~/.config/agon/agon.toml).
    #[arg(long, global = true, env = "AGON_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a debate.
    // A flag given again replaces the earlier one (`scripts/demo.sh "Q" --rounds 2`
    // overrides the script's own `--rounds 1`), as in most command-line tools.
    #[command(args_override_self = true, after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Print the DebateSpec JSON that `run` would use with the same flags.
    #[command(args_override_self = true)]
    Spec(SpecCmd),
    /// Continue an interrupted session: only what was never answered is called, and
    /// calls that failed on the way to the model (transport failures) are asked again.
    Resume {
        /// The session id (or a prefix of it, or `last`).
        id: String,
        /// Ask again every failed call, whatever its failure (timeouts, rate limits, HTTP errors too).
        #[arg(long)]
        retry_failed: bool,
        #[command(flatten)]
        drive: DriveArgs,
    },
    /// Ask a follow-up on a finished session: a new debate whose speakers read the earlier one's
    /// question, synthesis and last words. The parent's panel, judge, protocol, context and files
    /// unless flags choose others.
    #[command(args_override_self = true)]
    Continue(ContinueArgs),
    /// Many debates with one panel and protocol: a question per line in, a result per line out.
    #[command(args_override_self = true, after_help = BATCH_EXAMPLES)]
    Batch(BatchArgs),
    /// Does the council beat one model? Run arms side by side on a dataset and score them.
    ///
    /// --max-cost bounds the whole evaluation: its worst case, over every arm and item still
    /// to run, is printed before any call, and a worst case above it is refused.
    #[command(args_override_self = true, after_help = EVAL_EXAMPLES)]
    Eval(EvalArgs),
    /// List the sessions kept so far, newest first.
    Sessions {
        /// One JSON object per line instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show a session's transcript.
    #[command(after_help = SHOW_EXAMPLES)]
    Show {
        /// The session id (or a prefix of it, or `last`).
        id: String,
        /// The form of the transcript (`md` is `markdown`).
        #[arg(long, short, value_enum, default_value_t = Format::Markdown)]
        format: Format,
        /// Instead of the transcript, when each model call ran: text bars from the session's timings.
        #[arg(long)]
        timeline: bool,
    },
    /// Export a session as Markdown, JSON, a self-contained HTML page, or an Architecture Decision Record (adr).
    #[command(after_help = SHOW_EXAMPLES)]
    Export {
        /// The session id (or a prefix of it, or `last`).
        id: String,
        /// The form of the export (`md` is `markdown`).
        #[arg(long, short, value_enum, default_value_t = ExportFormat::Html)]
        format: ExportFormat,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// After a competitive review (adversarial or priority-vote run with --compete): how much of
    /// it you kept. Compares your final text with the review's synthesis, prints a
    /// `[compete-eval: …]` line, and records it with the run in the compete history.
    CompeteEval {
        /// The session id (or a prefix of it, or `last`).
        id: String,
        /// The text you kept (a file, or - for standard input); without it, the review was
        /// kept as written.
        #[arg(long = "final", value_name = "FILE")]
        kept: Option<PathBuf>,
    },
    /// Review a change with a council: findings on lines, a verdict decided by a policy;
    /// exit 0 pass, 1 fail, 2 error (never a pass on an error).
    #[command(after_help = REVIEW_EXAMPLES)]
    Review(review::ReviewArgs),
    /// Render a debate from its journal, without calling any model.
    #[command(after_help = "Examples:\n  agon replay last\n  agon replay debate.ndjson --format json")]
    Replay(ReplayArgs),
    /// Serve the council to MCP clients (Claude Code, Claude Desktop, Cursor, …): stdio, or --http.
    Mcp(McpArgs),
    /// Check every configured model with a tiny live call; `run` leaves out seats found dead for a day
    /// (a refused key is never kept: fix it and run again).
    #[command(
        after_help = "Examples:\n  agon doctor\n  agon doctor openai/gpt-5-mini anthropic/claude-haiku-4-5\n  agon doctor --discover"
    )]
    Doctor {
        /// More models to check (provider/model), beside those agon.toml names.
        models: Vec<String>,
        /// Seconds each probe may take.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
        timeout: u64,
        /// Also list what this machine offers without configuration: the coding agents' CLIs on
        /// PATH, providers whose keys are set, local servers that answer (the default when
        /// there is nothing to check).
        #[arg(long)]
        discover: bool,
        /// One JSON object per line instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Let this folder's agon.toml run its commands and use its providers and prices (until it changes).
    Trust {
        /// The file to trust (default: ./agon.toml).
        file: Option<PathBuf>,
        /// List the trusted files and whether each is still as it was trusted.
        #[arg(long, conflicts_with_all = ["revoke", "file"])]
        list: bool,
        /// Stop trusting the file.
        #[arg(long)]
        revoke: bool,
    },
    /// List every protocol, one line each: the built-ins, then agon.toml's `[protocols]`.
    Protocols {
        /// Print this protocol's document (a built-in's or your own), a starting point for one of
        /// your own; or a document file's (a path), checked, as `--format` asks: TOML or YAML to JSON.
        #[arg(long, value_name = "NAME|FILE")]
        show: Option<String>,
        /// The form `--show` prints the document in.
        #[arg(long, value_enum, default_value_t = DocumentFormat::Json, requires = "show")]
        format: DocumentFormat,
    },
    /// The configuration agon uses here: your own agon.toml, then this folder's over it, each
    /// setting with the file it came from (and what a folder's file that is not trusted was
    /// not allowed to change).
    Config {
        /// Print the merged configuration (what `agon config` does; the flag says so in scripts).
        #[arg(long)]
        show: bool,
    },
    /// The models agon knows (models.dev's catalog, with agon.toml's `[models]` and `[prices]`): whether
    /// each reasons and takes a temperature, its context and output limits, its price.
    Models {
        /// Only the models whose reference contains this (e.g. `anthropic/` or `gpt-5`).
        filter: Option<String>,
        /// One JSON object per line instead of a table.
        #[arg(long)]
        json: bool,
        /// Fetch models.dev's newest catalog (`https://models.dev/api.json`, or `AGON_MODELS_URL`), check
        /// it and keep it in agon's data folder for every later run; the shipped snapshot stays the
        /// fallback.
        #[arg(long)]
        update: bool,
    },
    /// Write the embedded agon:debate WebAssembly component to a file.
    Component {
        /// Where to write it.
        #[arg(long, short)]
        output: PathBuf,
    },
    /// Print a shell's completion script for agon.
    #[command(after_help = COMPLETION_EXAMPLES)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print agon's manual page (roff), or one command's page.
    #[command(after_help = MAN_EXAMPLES)]
    Man {
        /// A command (`run`, `show`, …): its own page, agon-COMMAND(1).
        command: Option<String>,
    },
}

/// `agon --version` (`-V` is the first line): the CLI, the engine it embeds and the
/// model catalog it carries.
fn version_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{}\nengine: agon-core {} (journal format {}, event format {})\ncatalog: {}",
            env!("CARGO_PKG_VERSION"),
            agon_core::journal::ENGINE_VERSION,
            agon_core::journal::JOURNAL_VERSION,
            agon_core::EVENT_VERSION,
            env!("AGON_CATALOG_SNAPSHOT"),
        )
    })
}

const TOP_EXAMPLES: &str = "\
Examples:
  agon run \"Should we adopt a four-day week?\"       a debate, with the default council
  agon sessions                                      every kept run
  agon show last                                     the last run's transcript
  agon export last --format html -o debate.html      one page to share
  agon doctor                                        check the configured models

Set a key first (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …): the book's \"Quick start with your keys\".";

const RUN_EXAMPLES: &str = "\
Examples:
  agon run \"Should we adopt a four-day week?\"
  agon run \"Is this safe to merge?\" --file change.diff --protocol challenge
  git diff | agon run \"Review this change\" --file - --protocol challenge
  agon run \"Q\" --panel openai/gpt-5,anthropic/claude-sonnet-4-5 --judge gemini/gemini-2.5-pro --max-cost 0.50
  agon run \"Q\" --format json -o result.json -q

A flag given twice replaces the first (--rounds 1 --rounds 2 runs two rounds, --panel A --panel B seats B);
--file, --option, --model, --trigger, --effort, --thinking, --domain and --choice collect every value.";

const REVIEW_EXAMPLES: &str = "\
Examples:
  agon review                                        the working tree against HEAD
  agon review origin/main...HEAD --format sarif -o review.sarif
  git diff --cached | agon review - --fail-at critical --confirmed-by 1
  agon review --diff change.patch --format annotations --max-cost 0.50";

const BATCH_EXAMPLES: &str = "\
Examples:
  agon batch questions.jsonl -o results.jsonl --panel openai/gpt-5-mini,anthropic/claude-haiku-4-5
  agon batch questions.txt -o results.jsonl --concurrency 8 --rate openai=60/min";

const EVAL_EXAMPLES: &str = "\
Examples:
  agon eval examples/eval/arithmetic-50.jsonl -o eval-out --panel openai/gpt-5-mini --votes 3
  agon eval data.jsonl -o eval-out --arm single --arm vote --arm rotating-challenger --limit 20";

const SHOW_EXAMPLES: &str = "\
Examples:
  agon show last
  agon show 20261122-1320 --format json
  agon export last --format html -o debate.html
  agon export last --format md -o debate.md";

const MAN_EXAMPLES: &str = "\
Examples:
  agon man | man -l -
  agon man run | man -l -
  agon man > ~/.local/share/man/man1/agon.1 && agon man run > ~/.local/share/man/man1/agon-run.1";

const COMPLETION_EXAMPLES: &str = "\
Examples:
  agon completions bash > ~/.local/share/bash-completion/completions/agon
  agon completions zsh > ~/.zfunc/_agon            (with fpath+=~/.zfunc before compinit)
  agon completions fish > ~/.config/fish/completions/agon.fish";

#[derive(Debug, Args)]
pub struct SpecCmd {
    /// The question to debate.
    pub question: String,
    #[command(flatten)]
    pub spec: SpecArgs,
}

/// `agon batch`: many questions, one panel and protocol.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Questions, one per line: {"id", "question", "context"} objects, JSON strings, or plain text.
    pub questions: PathBuf,
    /// One JSON line per finished debate is appended here; a rerun skips the ids already in it
    /// (and asks again those that ended in an `error` line, moved to OUTPUT.errors).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Where each running debate keeps its journal (default: OUTPUT.journals/): a rerun resumes
    /// an interrupted debate call by call; a journal is removed once its result line is written.
    #[arg(long, value_name = "DIR")]
    pub journals: Option<PathBuf>,
    /// On a rerun, keep `error` lines as they are instead of asking those debates again.
    #[arg(long)]
    pub keep_errors: bool,
    #[command(flatten)]
    pub pool: PoolArgs,
    #[command(flatten)]
    pub spec: SpecArgs,
}

/// How hard a run of many debates (`batch`, `eval`) may press the providers.
#[derive(Debug, Args)]
pub struct PoolArgs {
    /// Debates at once.
    #[arg(help_heading = POOL, long, default_value_t = 4, value_parser = at_least_one)]
    pub concurrency: usize,
    /// Model requests in flight at once, over every debate.
    #[arg(help_heading = POOL, long, default_value_t = 8, value_parser = at_least_one)]
    pub max_in_flight: usize,
    /// At most N requests a minute to a provider, e.g. --rate groq=30/min (repeatable).
    #[arg(help_heading = POOL, long = "rate", value_name = "PROVIDER=N/min")]
    pub rates: Vec<String>,
    #[command(flatten)]
    pub calls: CallArgs,
}

/// How each model call is made: `run` and `resume`, `batch` and `eval`, and `mcp` share these.
#[derive(Debug, Args, Clone)]
pub struct CallArgs {
    /// Per-call timeout in seconds.
    #[arg(help_heading = CALLS, long, default_value_t = crate::request::DEFAULT_TIMEOUT_S, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Tries again after a failed call (429, 5xx, dropped connection), after the wait the provider
    /// asks for (Retry-After, RetryInfo), else with backoff; never when it says not to.
    #[arg(help_heading = CALLS, long, default_value_t = 2)]
    pub retries: u32,
    /// The longest wait before trying again, in seconds, whatever the provider asks (default 60;
    /// agon.toml's max_retry_wait). A longer wait asked for is not taken: the call fails, saying so.
    #[arg(help_heading = CALLS, long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_retry_wait: Option<u64>,
    /// The largest reply accepted (e.g. 4M, 512K; at most 32M); a larger one fails that call. Default 4M.
    #[arg(help_heading = CALLS, long, value_name = "SIZE", value_parser = crate::config::parse_reply_size)]
    pub max_reply: Option<usize>,
}

impl CallArgs {
    /// The providers these flags call, over agon.toml's retry settings.
    pub fn environment(&self, config: &crate::config::Config) -> crate::provider::Environment {
        let mut env = crate::provider::Environment::new(config);
        env.retry.rule.attempts = self.retries + 1;
        if let Some(seconds) = self.max_retry_wait {
            env.retry.rule.max_wait_ms = seconds.saturating_mul(1000);
        }
        env
    }

    /// Each call's options: `timeout` as decided, the reply limit from the flag, then agon.toml, then the default.
    pub fn call_options(
        &self,
        config: &crate::config::Config,
        timeout: u64,
        stream: bool,
    ) -> crate::provider::CallOptions {
        let from_file = config.defaults.max_reply.as_ref().and_then(|s| s.bytes().ok());
        crate::provider::CallOptions {
            timeout: std::time::Duration::from_secs(timeout),
            stream,
            max_reply: self.max_reply.or(from_file).unwrap_or(crate::provider::DEFAULT_MAX_REPLY),
        }
    }
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The dataset: JSONL, one item a line: {"id", "question", "answer", "kind", "choices"?,
    /// "context"?, any field of yours}; kind is number, choice, yes-no, exact or regex. CSV and
    /// other tools' exports with --field and --kind. A bad line is named and skipped.
    pub dataset: PathBuf,
    /// An arm (repeatable, in report order): single (the first panel model, once), vote (blind
    /// answers from every panel model, or --votes samples of one; the plurality wins),
    /// self-correct (the same seats, each revising its own answer alone for --rounds rounds), or any
    /// protocol whose turns are prose (its vote is scored). Default: single, vote, rotating-challenger.
    #[arg(long = "arm", value_name = "ARM")]
    pub arms: Vec<String>,
    /// An evaluation file (TOML, YAML or JSON) of `[[arm]]`s, each with its own name, protocol,
    /// panel, votes, rounds, judge, consensus and score (vote, judge or both).
    #[arg(long, value_name = "FILE", conflicts_with = "arms")]
    pub arms_file: Option<PathBuf>,
    /// Samples in the vote arm, and seats in the self-correct arm, when the panel is one model.
    #[arg(long, default_value_t = 3, value_parser = at_least_one)]
    pub votes: usize,
    /// The folder for report.md, items.jsonl, accuracy.svg and each arm's results (ARM.jsonl);
    /// a rerun continues where it stopped, without paying again for what finished.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Score again from the results already in the folder: no call is made.
    #[arg(long)]
    pub rescore: bool,
    /// Only the first N items of the dataset.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Ask every item N times (each arm; the report clusters its standard errors by item).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = at_least_one)]
    pub repeats: usize,
    /// Break accuracy down by this dataset field (repeatable): `subject`, `kind`, a column of yours.
    #[arg(long = "by", value_name = "FIELD")]
    pub by: Vec<String>,
    /// Read the dataset as CSV with a header row (the default for a `.csv` file).
    #[arg(long)]
    pub csv: bool,
    /// Where one of agon's fields is in the dataset (repeatable): `question=problem`,
    /// `choices=A,B,C,D` (columns in letter order), `id=`, `answer=`, `kind=`, `context=`.
    #[arg(long = "field", value_name = "FIELD=NAME")]
    pub fields: Vec<String>,
    /// The kind of every item whose line does not say (a Hugging Face export's): number,
    /// choice, yes-no, exact or regex.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Exit 0 even when some debate had a failed call (they are reported apart either way).
    #[arg(long)]
    pub allow_failures: bool,
    #[command(flatten)]
    pub pool: PoolArgs,
    #[command(flatten)]
    pub spec: SpecArgs,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve Streamable HTTP at this address (e.g. 127.0.0.1:8765) instead of stdio. Every
    /// request must carry `Authorization: Bearer TOKEN`: AGON_MCP_TOKEN (32 bytes or more), or
    /// one generated at start and printed on stderr.
    #[arg(long, value_name = "ADDRESS")]
    pub http: Option<std::net::SocketAddr>,
    /// Let tool calls seat `cmd/` models, which start programs on this machine (panel, judge,
    /// role models, a protocol document, or agon.toml's defaults). Off, such a call is refused.
    #[arg(long)]
    pub allow_programs: bool,
    /// The most a debate's result may hold, in estimated tokens (characters / 4), text and data
    /// together: beyond it the seats' last words, then the protocol's results, then the
    /// synthesis are cut, saying so; the whole transcript stays readable as a resource.
    #[arg(long, env = "AGON_MCP_MAX_TOKENS", default_value_t = 8000, value_parser = clap::value_parser!(u64).range(1000..))]
    pub max_result_tokens: u64,
    /// HTTP: sessions open at once, over every client; an `initialize` beyond it is refused (503).
    #[arg(long, default_value_t = 64, value_parser = at_least_one, requires = "http")]
    pub max_sessions: usize,
    /// HTTP: sessions open at once from one client address (the peer's IP).
    #[arg(long, default_value_t = 16, value_parser = at_least_one, requires = "http")]
    pub max_sessions_per_client: usize,
    /// HTTP: seconds a session may stay idle (no request in flight, none arriving) before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..), requires = "http")]
    pub idle_timeout: u64,
    /// HTTP: a browser origin allowed besides this server's own (`http://127.0.0.1:PORT`,
    /// `http://localhost:PORT`, `http://[::1]:PORT`), e.g. `https://app.example.com`; repeatable.
    /// A request with any other `Origin` header is refused (403).
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// HTTP on a loopback address only: serve without a token. Unsafe: any local user or
    /// program can then spend your API keys and read every kept transcript.
    #[arg(long, requires = "http")]
    pub no_auth: bool,
    /// Debates at once, over every client; more wait their turn.
    #[arg(long, default_value_t = 4, value_parser = at_least_one)]
    pub concurrency: usize,
    /// Model requests in flight at once, over every debate (as `agon batch`).
    #[arg(long, default_value_t = 8, value_parser = at_least_one)]
    pub max_in_flight: usize,
    // Each call's timeout, retries and reply limit (agon.toml's `timeout` wins over `--timeout` here).
    #[command(flatten)]
    pub calls: CallArgs,
    /// A folder whose files a `debate` call's `files` may name (repeatable; default: the working
    /// folder, unless that is / or the home folder: then no file is read). Relative paths and
    /// globs resolve in the first; `..`, absolute paths elsewhere, symlinks leading out, dotfiles
    /// and private keys (unless the root itself names them) are refused.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<std::path::PathBuf>,
}

// The headings of `--help`, in the order flags are met.
const COUNCIL: &str = "Council";
const MATERIAL: &str = "What the council reads";
const REPLIES: &str = "Replies and reasoning";
const AGREEMENT: &str = "Agreement and answers";
const COST: &str = "Cost";
const PROTOCOL: &str = "Protocol options";
const OUTPUT: &str = "Output";
const CALLS: &str = "Calls";
const POOL: &str = "Many debates at once";

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The flags that make a spec.
#[derive(Debug, Args, Clone)]
pub struct SpecArgs {
    /// Protocol: see `agon protocols` (agon.toml's `[protocols.NAME]` too); `devils-advocate:SEAT` names the adversary.
    #[arg(help_heading = COUNCIL, long, short, default_value = DEFAULT_PROTOCOL)]
    pub protocol: String,
    /// A protocol document of your own (JSON, TOML or YAML) instead of --protocol.
    #[arg(help_heading = COUNCIL, long, value_name = "FILE", conflicts_with = "protocol")]
    pub protocol_file: Option<PathBuf>,
    /// Comma-separated model references, one per seat: provider/model. (role-council: optional,
    /// models assigned to the roles in turn.)
    #[arg(help_heading = COUNCIL, long, value_delimiter = ',', action = ArgAction::Set)]
    pub panel: Vec<String>,
    /// The judge's model (default: the first panel model).
    #[arg(help_heading = COUNCIL, long)]
    pub judge: Option<String>,
    /// End without a synthesis.
    #[arg(help_heading = COUNCIL, long, conflicts_with = "judge")]
    pub no_judge: bool,
    /// Debate rounds (default: the protocol's own, see docs/src/protocols.md).
    #[arg(help_heading = COUNCIL, long, short)]
    pub rounds: Option<u32>,
    /// The seat that challenges first: its id, its 1-based number, or the start of its id or model
    /// (`gemini`); rotating-challenger only.
    #[arg(help_heading = COUNCIL, long)]
    pub challenger: Option<String>,
    /// Deprecated: use --challenger.
    #[arg(help_heading = COUNCIL, long, hide = true)]
    pub advocate: Option<u32>,
    /// How agreement is read before an early stop (rotating-challenger, consensus-check):
    /// read (free text only), declared (each seat's VOTE line; the default), judge (the line,
    /// then the judge's model confirms before stopping: one extra call per apparent consensus),
    /// answer (each seat's ANSWER line; the same normalised answer is agreement, and the
    /// transcript keeps the vote over the seats' last answers).
    #[arg(help_heading = AGREEMENT, long, value_enum)]
    pub consensus: Option<ConsensusArg>,
    /// The question has a checkable answer of this kind: every counted turn closes with an
    /// ANSWER line, and the transcript keeps the vote over the seats' last answers
    /// (protocols whose turns are prose: round-robin, consensus-check, rotating-challenger, …).
    #[arg(help_heading = AGREEMENT, long, value_enum, value_name = "KIND")]
    pub answer: Option<AnswerArg>,
    /// With --answer choice: a choice's text, in letter order (give each once; A first).
    #[arg(help_heading = AGREEMENT, long = "choice", value_name = "TEXT", requires = "answer")]
    pub choices: Vec<String>,
    /// The seed for every random choice the protocol makes.
    #[arg(help_heading = COUNCIL, long, default_value_t = 0)]
    pub seed: u64,
    /// Background every speaker receives with the question.
    #[arg(help_heading = MATERIAL, long)]
    pub context: Option<String>,
    /// A file every speaker reads with the question, quoted under its path: a path, a glob
    /// relative to the working folder (`'src/**/*.rs'`), or - for standard input
    /// (`git diff | agon run "Review this change" --file -`). Repeatable; text only.
    #[arg(help_heading = MATERIAL, long = "file", value_name = "PATH|GLOB|-")]
    pub files: Vec<String>,
    /// Ceiling on each turn's reply, in tokens.
    #[arg(help_heading = REPLIES, long, default_value_t = DEFAULT_MAX_TOKENS)]
    pub max_tokens: u32,
    /// Ceiling on the judge's reply, in tokens (default: twice --max-tokens).
    #[arg(help_heading = REPLIES, long)]
    pub judge_max_tokens: Option<u32>,
    /// Sampling temperature.
    #[arg(help_heading = REPLIES, long, default_value_t = DEFAULT_TEMPERATURE)]
    pub temperature: f64,
    /// Reasoning models: how hard to think, low, medium or high; SEAT=LEVEL for one seat (repeatable).
    #[arg(help_heading = REPLIES, long, value_name = "[SEAT=]LEVEL", value_parser = crate::options::effort_entry)]
    pub effort: Vec<PerSeat<Effort>>,
    /// Reasoning models: thinking tokens beyond the reply; SEAT=TOKENS for one seat (repeatable).
    #[arg(help_heading = REPLIES, long, value_name = "[SEAT=]TOKENS", value_parser = crate::options::thinking_entry)]
    pub thinking: Vec<PerSeat<u32>>,
    /// Cap every prompt at N tokens (estimated as characters / 4); older rounds get summarized.
    #[arg(help_heading = REPLIES, long, value_name = "N")]
    pub context_budget: Option<u32>,
    /// A field of expertise, shown in the seat's prompt beside its persona; SEAT=AREA for one seat (repeatable).
    #[arg(help_heading = PROTOCOL, long, value_name = "[SEAT=]AREA", value_parser = crate::options::domain_entry)]
    pub domain: Vec<PerSeat<String>>,
    /// Blind first answers: in round 1 no seat sees another's answer before giving its own.
    #[arg(help_heading = PROTOCOL, long)]
    pub blind: bool,
    /// Go on while at least N seats still answer (default 2, or 1 for a panel of one); fewer ends the debate as no quorum.
    #[arg(help_heading = PROTOCOL, long, value_name = "N")]
    pub quorum: Option<u32>,
    /// What to do with an adversarial turn that pulls its punches.
    #[arg(help_heading = PROTOCOL, long, value_enum, default_value_t = QualityGateArg::Regenerate)]
    pub quality_gate: QualityGateArg,
    /// Refuse a run whose worst-case cost is above this many US dollars, and stop one whose spending would pass it.
    #[arg(help_heading = COST, long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// comparative: an option to compare (give two or more).
    #[arg(help_heading = PROTOCOL, long = "option", value_name = "TEXT")]
    pub options: Vec<String>,
    /// priority-vote: a file with one item per line.
    #[arg(help_heading = PROTOCOL, long, value_name = "FILE")]
    pub items: Option<PathBuf>,
    /// role-council: a folder of role files (markdown with YAML frontmatter) instead of the built-in roles.
    #[arg(help_heading = PROTOCOL, long, value_name = "DIR")]
    pub roles: Option<PathBuf>,
    /// role-council: override a role's model, e.g. --model cfo=openai/gpt-4o (juge or judge: the judging role).
    #[arg(help_heading = PROTOCOL, long = "model", value_name = "ROLE=MODEL")]
    pub role_models: Vec<String>,
    /// adversarial, priority-vote: always compete (both sides, both lenses).
    #[arg(help_heading = PROTOCOL, long, conflicts_with = "single")]
    pub compete: bool,
    /// adversarial, priority-vote: one agent answers; comparative: the judge scores the options alone.
    #[arg(help_heading = PROTOCOL, long)]
    pub single: bool,
    /// adversarial: an auto-trigger, NAME=word,a phrase,…: compete when the question or context
    /// mentions one (repeatable; replaces agon.toml's `[[triggers]]`).
    #[arg(help_heading = PROTOCOL, long = "trigger", value_name = "NAME=WORDS")]
    pub triggers: Vec<String>,
    /// Refuse a panel whose every seat runs one model where the protocol's worth is in independent
    /// views (otherwise a warning; challenge refuses one already; see docs/src/protocols.md).
    #[arg(help_heading = AGREEMENT, long, conflicts_with = "allow_one_model")]
    pub strict_diversity: bool,
    /// Run such a panel without a word, challenge too (which otherwise refuses a model debating itself).
    #[arg(help_heading = AGREEMENT, long)]
    pub allow_one_model: bool,
    /// adversarial: what this run reviews, e.g. rfc (default: the protocol's name). It names
    /// the compete result's skill and the history the run counts in; five runs in a row
    /// without disagreement under one label raise compete_flag.
    #[arg(help_heading = PROTOCOL, long, value_name = "NAME")]
    pub label: Option<String>,
    /// priority-vote: ask you at the terminal (a third seat, human/you) for a final priority on each
    /// item the lenses put two or more levels apart; without a terminal they are listed to confirm.
    #[arg(help_heading = PROTOCOL, long, conflicts_with = "confirm_by")]
    pub confirm: bool,
    /// priority-vote: the model seated third to confirm flagged items (human/NAME: a person).
    #[arg(help_heading = PROTOCOL, long, value_name = "MODEL")]
    pub confirm_by: Option<String>,
}

impl SpecArgs {
    /// The debate these flags ask for. `warn` hears about deprecated flags.
    pub fn into_request(self, question: String, warn: &mut dyn FnMut(&str)) -> DebateRequest {
        let mut challenger = self.challenger;
        if let Some(n) = self.advocate {
            warn("warning: --advocate is deprecated; use --challenger instead");
            if challenger.is_none() {
                warn(&format!("  mapping --advocate {n} to --challenger {n}"));
                challenger = Some(n.to_string());
            }
        }
        let judge = match (self.judge, self.no_judge) {
            (_, true) => Judge::Without,
            (Some(model), false) => Judge::Model(model),
            (None, false) => Judge::Default,
        };
        let confirm_by = match (self.confirm, self.confirm_by) {
            (_, Some(model)) => Some(model),
            (true, None) if std::io::IsTerminal::is_terminal(&std::io::stdin()) => Some("human/you".to_string()),
            (true, None) => {
                warn("warning: --confirm needs a terminal to ask you; the flagged items are listed to confirm instead");
                None
            }
            (false, None) => None,
        };
        let compete = match (self.compete, self.single) {
            (true, _) => agon_core::CompeteMode::Compete,
            (false, true) => agon_core::CompeteMode::Single,
            (false, false) => agon_core::CompeteMode::Auto,
        };
        DebateRequest {
            question,
            context: self.context,
            file_scope: crate::context_files::FileScope::WorkingFolder,
            // The settings that layer over agon.toml come from `options`, merged by the configuration.
            settings: Options::default(),
            files_from_config: false,
            protocol: self.protocol,
            protocol_file: self.protocol_file,
            document: None,
            panel: self.panel,
            judge,
            rounds: self.rounds,
            challenger,
            consensus: self.consensus.map(Into::into),
            answer: self
                .answer
                .map(|kind| agon_core::answer::AnswerSpec { kind: kind.into(), choices: self.choices.clone() }),
            seed: self.seed,
            domain: self.domain,
            compared: self.options,
            items: self.items,
            role_models: self.role_models,
            compete,
            triggers: self.triggers,
            label: self.label,
            confirm_by,
            options: serde_json::Map::new(),
            follows: None,
        }
    }
}

impl SpecArgs {
    /// The settings these flags set, as a layer over agon.toml: only those
    /// given on the command line, not clap's defaults. `matches` are the
    /// subcommand's.
    pub fn options(&self, matches: &ArgMatches) -> Options {
        // A flag with a default counts only when typed; one without is `Some` or non-empty only when given.
        let given = |id: &str| {
            matches!(matches.try_get_raw(id), Ok(Some(_)))
                && matches!(matches.value_source(id), Some(ValueSource::CommandLine | ValueSource::EnvVariable))
        };
        macro_rules! typed {
            ($field:ident) => {
                given(stringify!($field)).then(|| self.$field.clone())
            };
        }
        let listed = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
        Options {
            protocol: match &self.protocol_file {
                Some(file) => Some(ProtocolChoice::File(file.clone())),
                None => typed!(protocol).map(ProtocolChoice::Named),
            },
            panel: listed(&self.panel).map(PanelChoice::of),
            judge: match (&self.judge, self.no_judge) {
                (_, true) => Some(Judge::Without),
                (Some(model), false) => Some(Judge::Model(model.clone())),
                (None, false) => None,
            },
            rounds: self.rounds,
            max_tokens: typed!(max_tokens),
            judge_max_tokens: self.judge_max_tokens,
            temperature: typed!(temperature),
            context_budget: self.context_budget,
            quality_gate: typed!(quality_gate).map(Into::into),
            roles: self.roles.clone(),
            files: listed(&self.files),
            max_cost: self.max_cost,
            effort: (!self.effort.is_empty()).then(|| self.effort.clone()),
            thinking: (!self.thinking.is_empty()).then(|| self.thinking.clone()),
            blind: self.blind.then_some(true),
            quorum: self.quorum,
            diversity: match (self.strict_diversity, self.allow_one_model) {
                (true, _) => Some(agon_core::Diversity::Strict),
                (false, true) => Some(agon_core::Diversity::Off),
                (false, false) => None,
            },
            timeout: given("timeout").then(|| matches.get_one::<u64>("timeout").copied()).flatten(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnswerArg {
    /// Numbers, letters, yes or no and words, each recognised as it comes.
    Any,
    Number,
    Choice,
    YesNo,
}

impl From<AnswerArg> for Option<agon_core::answer::Kind> {
    fn from(arg: AnswerArg) -> Self {
        use agon_core::answer::Kind;
        match arg {
            AnswerArg::Any => None,
            AnswerArg::Number => Some(Kind::Number),
            AnswerArg::Choice => Some(Kind::Choice),
            AnswerArg::YesNo => Some(Kind::YesNo),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsensusArg {
    Read,
    Declared,
    Judge,
    Answer,
}

impl From<ConsensusArg> for agon_core::ConsensusMode {
    fn from(arg: ConsensusArg) -> Self {
        match arg {
            ConsensusArg::Read => agon_core::ConsensusMode::Read,
            ConsensusArg::Declared => agon_core::ConsensusMode::Declared,
            ConsensusArg::Judge => agon_core::ConsensusMode::Judge,
            ConsensusArg::Answer => agon_core::ConsensusMode::Answer,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QualityGateArg {
    Off,
    Warn,
    Regenerate,
}

impl From<QualityGateArg> for agon_core::QualityGate {
    fn from(arg: QualityGateArg) -> Self {
        match arg {
            QualityGateArg::Off => agon_core::QualityGate::Off,
            QualityGateArg::Warn => agon_core::QualityGate::Warn,
            QualityGateArg::Regenerate => agon_core::QualityGate::Regenerate,
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The question to debate.
    pub question: String,
    #[command(flatten)]
    pub spec: SpecArgs,
    #[command(flatten)]
    pub drive: DriveArgs,
    /// Also append every input to this journal as it arrives (replay it with `agon replay`).
    #[arg(help_heading = OUTPUT, long)]
    pub journal: Option<PathBuf>,
    /// Do not keep this run in the sessions folder.
    #[arg(help_heading = OUTPUT, long)]
    pub no_save: bool,
}

#[derive(Debug, Args)]
pub struct ContinueArgs {
    /// The finished session to follow up (its id, a prefix of it, or `last`).
    pub session: String,
    /// The follow-up question, and every flag `run` takes.
    #[command(flatten)]
    pub run: RunArgs,
}

/// How a debate is driven and shown: shared by `run` and `resume`.
#[derive(Debug, Args)]
pub struct DriveArgs {
    /// The form of the result.
    #[arg(help_heading = OUTPUT, long, short, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Write the result here instead of stdout.
    #[arg(help_heading = OUTPUT, long, short)]
    pub output: Option<PathBuf>,
    /// Write NDJSON events to this file, or `-` for stdout (then nothing else goes there).
    #[arg(help_heading = OUTPUT, long)]
    pub events: Option<String>,
    #[command(flatten)]
    pub calls: CallArgs,
    /// Ask providers for whole replies instead of streams.
    #[arg(help_heading = CALLS, long)]
    pub no_stream: bool,
    /// No progress output.
    #[arg(help_heading = OUTPUT, long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A journal file (as a run writes with --journal), or a kept session: its id, a prefix of
    /// it, or `last`. A path that names a file is that file.
    #[arg(value_name = "JOURNAL|ID|last")]
    pub journal: String,
    /// The form of the transcript (`md` is `markdown`).
    #[arg(long, short, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Write here instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Re-derive the review's findings and verdict from the journal alone and check them
    /// against this report of `agon review` (its SARIF or JSON): exit 0 when they match, 1 when not.
    #[arg(long, value_name = "REPORT")]
    pub verify: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocumentFormat {
    Json,
    Toml,
    Yaml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Markdown (`md` or `markdown`).
    #[value(name = "markdown", alias = "md")]
    Md,
    Json,
    Html,
    /// An Architecture Decision Record: status, context, decision, options, consequences, dissent.
    Adr,
    /// The debate's main picture: the stance map, else its first result chart, else the call timeline.
    Svg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown (`md` or `markdown`).
    #[value(alias = "md")]
    Markdown,
    Json,
    /// The JSON transcript as YAML.
    Yaml,
}

impl From<Format> for crate::output::Kind {
    fn from(format: Format) -> Self {
        match format {
            Format::Markdown => crate::output::Kind::Markdown,
            Format::Json => crate::output::Kind::Json,
            Format::Yaml => crate::output::Kind::Yaml,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(argv: &[&str]) -> (RunArgs, ArgMatches) {
        use clap::{CommandFactory, FromArgMatches};
        let mut all = vec!["agon", "run", "Q?"];
        all.extend_from_slice(argv);
        let matches = Cli::command().try_get_matches_from(all).unwrap();
        let Command::Run(args) = Cli::from_arg_matches(&matches).unwrap().command else { panic!("not run") };
        (args, matches.subcommand_matches("run").unwrap().clone())
    }

    #[test]
    fn effort_and_thinking_are_typed_at_the_flag_and_a_bad_value_is_refused_there() {
        let (args, matches) = run(&["--effort", "high", "--effort", "o3=low", "--thinking", "claude=2048"]);
        let options = args.spec.options(&matches);
        assert_eq!(
            options.effort,
            Some(vec![
                PerSeat { seat: None, value: Effort::High },
                PerSeat { seat: Some("o3".into()), value: Effort::Low }
            ])
        );
        assert_eq!(options.thinking, Some(vec![PerSeat { seat: Some("claude".into()), value: 2048 }]));
        use clap::CommandFactory;
        let refused = Cli::command().try_get_matches_from(["agon", "run", "Q?", "--effort", "o3=extreme"]).unwrap_err();
        let shown = refused.to_string();
        assert!(shown.contains("--effort") && shown.contains("the level is low, medium or high"), "{shown}");
    }

    /// No flag is the request every other door starts from (MCP, a batch):
    /// the flags' defaults and the request's are one set.
    #[test]
    fn no_flags_ask_for_the_default_request() {
        let (args, _) = run(&[]);
        let request = args.spec.into_request("Q?".into(), &mut |w| panic!("no warning expected: {w}"));
        assert_eq!(request, DebateRequest::new("Q?"));
    }

    #[test]
    fn flags_become_the_request() {
        let (args, matches) = run(&[
            "--no-judge",
            "--single",
            "--consensus",
            "judge",
            "--quality-gate",
            "off",
            "--option",
            "A",
            "--option",
            "B",
            "--panel",
            "openai/a,openai/b",
        ]);
        let r = args.spec.clone().into_request("Q?".into(), &mut |_| {});
        assert_eq!(args.spec.options(&matches).quality_gate, Some(agon_core::QualityGate::Off));
        assert_eq!(r.judge, Judge::Without);
        assert_eq!(r.compete, agon_core::CompeteMode::Single);
        assert_eq!(r.consensus, Some(agon_core::ConsensusMode::Judge));
        assert_eq!(
            (r.compared, r.panel),
            (vec!["A".to_string(), "B".into()], vec!["openai/a".into(), "openai/b".into()])
        );
        let (args, matches) = run(&["--judge", "openai/j", "--compete", "--strict-diversity"]);
        assert_eq!(args.spec.options(&matches).diversity, Some(agon_core::Diversity::Strict));
        let r = args.spec.into_request("Q?".into(), &mut |_| {});
        assert_eq!((r.judge, r.compete), (Judge::Model("openai/j".into()), agon_core::CompeteMode::Compete));
        let (args, matches) = run(&["--allow-one-model"]);
        assert_eq!(args.spec.options(&matches).diversity, Some(agon_core::Diversity::Off));
    }

    #[test]
    fn advocate_maps_to_challenger_with_a_warning() {
        let (args, _) = run(&["--advocate", "2"]);
        let mut warnings = Vec::new();
        let request = args.spec.into_request("Q?".into(), &mut |w| warnings.push(w.to_string()));
        assert_eq!(request.challenger.as_deref(), Some("2"));
        assert!(warnings[0].contains("deprecated"), "{warnings:?}");
        let (args, _) = run(&["--advocate", "2", "--challenger", "3"]);
        assert_eq!(args.spec.into_request("Q?".into(), &mut |_| {}).challenger.as_deref(), Some("3"));
    }

    /// A flag typed at its default value is given: agon.toml must not replace
    /// it; one left at its default is not.
    #[test]
    fn only_flags_on_the_command_line_are_a_layer() {
        let (args, matches) = run(&["--max-tokens", &DEFAULT_MAX_TOKENS.to_string(), "--timeout", "120"]);
        let asked = args.spec.options(&matches);
        assert_eq!((asked.max_tokens, asked.timeout), (Some(512), Some(120)));
        assert_eq!((asked.rounds, asked.temperature, asked.protocol, asked.quality_gate), (None, None, None, None));
        let (args, matches) = run(&[]);
        assert_eq!(args.spec.options(&matches), Options::default(), "no flag, no setting");
        let (args, matches) = run(&["--panel", "trio", "--no-judge", "--blind", "--protocol-file", "p.toml"]);
        let asked = args.spec.options(&matches);
        assert_eq!(asked.panel, Some(PanelChoice::Named("trio".into())));
        assert_eq!((asked.judge, asked.blind), (Some(Judge::Without), Some(true)));
        assert_eq!(asked.protocol, Some(ProtocolChoice::File("p.toml".into())));
    }

    /// A flag left at clap's default does not count as given: agon.toml's value stands.
    #[test]
    fn a_flag_at_its_default_leaves_the_file_s_value() {
        let config =
            crate::config::Config::parse("[defaults]\nmax_tokens = 300\n", std::path::Path::new("agon.toml")).unwrap();
        let asked = |argv: &[&str]| {
            let (args, matches) = run(argv);
            let asked = args.spec.options(&matches);
            let mut request = args.spec.into_request("Q?".into(), &mut |_| {});
            config.apply_to_request(&mut request, &asked).unwrap();
            request.settings.max_tokens
        };
        assert_eq!(asked(&[]), Some(300));
        assert_eq!(asked(&["--max-tokens", "512"]), Some(512), "typed at the default, it is given");
    }
}
