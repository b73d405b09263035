//! A provider's automatic prompt cache, emulated: how many of a prompt's
//! tokens a prefix cache could serve.
//!
//! The rule is OpenAI's, as its prompt-caching guide states it, and a fair
//! model of the others' (Anthropic's cache breakpoints, Gemini's implicit
//! cache, llama.cpp's and vLLM's prefix reuse): a prompt is served from the
//! cache up to the longest prefix it shares with an earlier prompt *to the
//! same model*, when that prefix is at least 1,024 tokens, counted in steps
//! of 128 tokens. Tokens are estimated as characters / 4, as the rest of agon
//! estimates them; the cache never forgets (a debate runs within the
//! providers' minutes-long lifetimes).
//!
//! It is sans-IO like the engine: feed prompts in the order they were sent,
//! read what each would have been billed.

use std::collections::BTreeMap;

/// The shortest prefix a cache serves, in tokens.
pub const MIN_CACHED_TOKENS: u64 = 1_024;
/// A cached prefix is counted in steps of this many tokens.
pub const CACHE_STEP_TOKENS: u64 = 128;

/// One prompt as a prefix cache would bill it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Served {
    /// Every prompt token (characters / 4, rounded up).
    pub prompt_tokens: u64,
    /// Of them, the ones the cache served.
    pub cached_tokens: u64,
}

/// Every prompt sent so far, by model, and what the cache served in total.
#[derive(Debug, Clone, Default)]
pub struct PrefixCache {
    seen: BTreeMap<String, Vec<Vec<char>>>,
    total: Served,
}

impl PrefixCache {
    pub fn new() -> PrefixCache {
        PrefixCache::default()
    }

    /// Send `prompt` to `model`: what the cache serves of it. Later prompts
    /// may then reuse this one's prefix.
    pub fn serve(&mut self, model: &str, prompt: &str) -> Served {
        let chars: Vec<char> = prompt.chars().collect();
        let earlier = self.seen.entry(model.to_string()).or_default();
        let shared = earlier.iter().map(|e| common_prefix(e, &chars)).max().unwrap_or(0) as u64;
        let shared_tokens = shared / 4;
        let cached =
            if shared_tokens >= MIN_CACHED_TOKENS { shared_tokens / CACHE_STEP_TOKENS * CACHE_STEP_TOKENS } else { 0 };
        let served = Served { prompt_tokens: (chars.len() as u64).div_ceil(4), cached_tokens: cached };
        earlier.push(chars);
        self.total.prompt_tokens += served.prompt_tokens;
        self.total.cached_tokens += served.cached_tokens;
        served
    }

    /// Everything served so far.
    pub fn total(&self) -> Served {
        self.total
    }
}

impl Served {
    /// The fraction of prompt tokens the cache served (0 for no prompt).
    pub fn fraction(&self) -> f64 {
        if self.prompt_tokens == 0 { 0.0 } else { self.cached_tokens as f64 / self.prompt_tokens as f64 }
    }
}

/// A chat request's messages as one text, as a provider's cache sees them:
/// each message's role and content, in order.
pub fn prompt_text<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::new();
    for (role, content) in messages {
        out.push_str(role);
        out.push('\n');
        out.push_str(content);
        out.push('\n');
    }
    out
}

fn common_prefix(a: &[char], b: &[char]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_long_enough_prefix_to_the_same_model_is_served_in_steps() {
        let mut cache = PrefixCache::new();
        let head = "h".repeat(4 * 1_100); // 1,100 tokens
        let first = cache.serve("m", &format!("{head}one"));
        assert_eq!(first, Served { prompt_tokens: 1_101, cached_tokens: 0 }, "nothing earlier");
        // 1,100 shared tokens: served as 1,024 (8 steps of 128).
        assert_eq!(cache.serve("m", &format!("{head}two")).cached_tokens, 1_024);
        assert_eq!(cache.serve("other", &format!("{head}two")).cached_tokens, 0, "another model's cache");
        // 1,000 shared tokens: under the minimum.
        let short = "s".repeat(4 * 1_000);
        cache.serve("m", &format!("{short}a"));
        assert_eq!(cache.serve("m", &format!("{short}b")).cached_tokens, 0);
        assert_eq!(cache.total().cached_tokens, 1_024);
        assert_eq!(prompt_text([("system", "S"), ("user", "U")]), "system\nS\nuser\nU\n");
    }
}
