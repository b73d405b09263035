//! How the engine sizes text: a documented estimate, not a tokenizer, and
//! the figures every bound on a prompt shares. Plain arithmetic on text, so
//! the spec's own checks, the protocols' bounds and the cost estimate all
//! count alike.

/// The documented token estimate used for budgets when no tokenizer is
/// configured: one token per four characters (Unicode scalars), rounded up.
pub fn estimate_tokens(text: &str) -> u32 {
    text.chars().count().div_ceil(4) as u32
}

/// Text every prompt may carry besides the question, the context, the
/// protocol's options and the history: system prompts, instructions, headings.
/// The longest built-in template is under 450 tokens (a test holds every
/// protocol to it); the rest is margin. A document of one's own adds what
/// its own templates hold beyond it.
pub const TEMPLATE_TOKENS: u64 = 500;

/// What one earlier turn adds to a prompt besides its text: the round's
/// heading, the speaker's label, blank lines.
pub const ENTRY_TOKENS: u64 = 16;

/// The most one prompt may hold: more than any model reads (the largest
/// windows are 2 M tokens), far less than would strain the engine. A spec
/// whose prompts would pass it is refused, priced or not.
pub const MAX_PROMPT_TOKENS: u64 = 4_000_000;
