//! Anthropic's prompt cache, emulated from the request bodies themselves:
//! what each request would be billed as cache reads, cache writes and plain
//! input.
//!
//! The rules, as Anthropic's prompt-caching guide states them:
//! - a prefix is written only at a block marked `cache_control` (a
//!   breakpoint), at most four a request, and only when it is at least the
//!   model's minimum length ([`MIN_TOKENS`] for Sonnet and Opus 4.x);
//! - a prefix is read only where an earlier request wrote it, and only at a
//!   block boundary at or before a breakpoint, looking back at most
//!   [`LOOKBACK_BLOCKS`] blocks from it; the longest such prefix is read;
//! - the prefix runs over the system prompt, then the messages, block by
//!   block: a block is its role and its text, so the same text in another
//!   role, or cut at another place, is another prefix.
//!
//! Tokens are estimated as characters / 4, as the rest of agon estimates
//! them; the cache never forgets (a debate runs within the 5-minute
//! lifetime, which every read renews). Reads bill at 0.1× the input price,
//! writes at 1.25×.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The shortest prefix written, in tokens (Claude Sonnet and Opus 4.x).
pub const MIN_TOKENS: u64 = 1_024;
/// How many block boundaries before a breakpoint a read looks at.
pub const LOOKBACK_BLOCKS: usize = 20;
/// Anthropic refuses more breakpoints than this in a request.
pub const MAX_BREAKPOINTS: usize = 4;

/// One request as Anthropic would bill its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Billed {
    /// Every prompt token.
    pub prompt_tokens: u64,
    /// Of them, read from the cache.
    pub cache_read: u64,
    /// Of them, written to the cache.
    pub cache_write: u64,
}

impl Billed {
    /// The prompt's cost in input-price units: plain 1×, reads 0.1×, writes 1.25×.
    pub fn input_units(&self) -> f64 {
        let plain = self.prompt_tokens - self.cache_read - self.cache_write;
        plain as f64 + 0.1 * self.cache_read as f64 + 1.25 * self.cache_write as f64
    }

    fn add(&mut self, other: Billed) {
        self.prompt_tokens += other.prompt_tokens;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }
}

/// Every prefix written so far, by model, and what was billed in total.
#[derive(Debug, Clone, Default)]
pub struct AnthropicCache {
    written: BTreeMap<String, BTreeSet<String>>,
    total: Billed,
    min_tokens: u64,
}

impl AnthropicCache {
    pub fn new() -> AnthropicCache {
        AnthropicCache { min_tokens: MIN_TOKENS, ..AnthropicCache::default() }
    }

    /// A cache whose models write no prefix shorter than `tokens`.
    pub fn with_min_tokens(tokens: u64) -> AnthropicCache {
        AnthropicCache { min_tokens: tokens, ..AnthropicCache::default() }
    }

    /// Send one Messages API request body (its `model`, `system` and
    /// `messages`): what it is billed. Panics on more than four breakpoints,
    /// which Anthropic refuses.
    pub fn serve(&mut self, body: &Value) -> Billed {
        let model = body["model"].as_str().unwrap_or_default().to_string();
        let blocks = blocks(body);
        let breakpoints: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].breakpoint).collect();
        assert!(breakpoints.len() <= MAX_BREAKPOINTS, "{} breakpoints: Anthropic answers 400", breakpoints.len());
        // The prefix up to and including each block (roles and all), and the
        // tokens of its text.
        let mut prefixes = Vec::with_capacity(blocks.len());
        let mut chars = Vec::with_capacity(blocks.len());
        let (mut key, mut count) = (String::new(), 0u64);
        for block in &blocks {
            key.push_str(&block.key);
            key.push('\u{0}');
            count += block.chars;
            prefixes.push(key.clone());
            chars.push(count);
        }
        let tokens = |i: usize| chars[i] / 4;
        let written = self.written.entry(model).or_default();
        let read = breakpoints
            .iter()
            .flat_map(|&b| (b.saturating_sub(LOOKBACK_BLOCKS)..=b).rev())
            .filter(|&j| written.contains(&prefixes[j]))
            .map(tokens)
            .max()
            .unwrap_or(0);
        let mut furthest = read;
        for &b in &breakpoints {
            if tokens(b) >= self.min_tokens && tokens(b) > read {
                written.insert(prefixes[b].clone());
                furthest = furthest.max(tokens(b));
            }
        }
        let billed = Billed { prompt_tokens: count.div_ceil(4), cache_read: read, cache_write: furthest - read };
        self.total.add(billed);
        billed
    }

    /// Everything billed so far.
    pub fn total(&self) -> Billed {
        self.total
    }
}

/// One block of a request, as the cache tells blocks apart.
struct Block {
    /// Its role and text: the same text in another role is another prefix.
    key: String,
    /// Characters of its text.
    chars: u64,
    breakpoint: bool,
}

/// The request's blocks in cache order: the system prompt's, then each message's.
fn blocks(body: &Value) -> Vec<Block> {
    let mut out = Vec::new();
    let mut push = |role: &str, text: &str, breakpoint: bool| {
        out.push(Block { key: format!("{role}:{text}"), chars: text.chars().count() as u64, breakpoint })
    };
    let mut content = |role: &str, content: &Value| match content {
        Value::String(text) => push(role, text, false),
        Value::Array(parts) => {
            for part in parts {
                push(role, part["text"].as_str().unwrap_or_default(), part["cache_control"].is_object());
            }
        }
        _ => {}
    };
    if !body["system"].is_null() {
        content("system", &body["system"]);
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        content(m["role"].as_str().unwrap_or_default(), &m["content"]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(c: char, tokens: usize) -> String {
        c.to_string().repeat(tokens * 4)
    }

    fn block(text: &str, marked: bool) -> Value {
        if marked {
            json!({"type": "text", "text": text, "cache_control": {"type": "ephemeral"}})
        } else {
            json!({"type": "text", "text": text})
        }
    }

    fn request(blocks: Vec<Value>) -> Value {
        json!({"model": "m", "system": "s", "messages": [{"role": "user", "content": blocks}]})
    }

    #[test]
    fn a_write_is_read_only_at_a_block_boundary_before_a_breakpoint() {
        let (a, b, c) = (text('a', 1_200), text('b', 300), text('c', 300));
        let mut cache = AnthropicCache::new();
        // One growing block: written each time, never read.
        let first = cache.serve(&request(vec![block(&a, true)]));
        assert_eq!((first.cache_read, first.cache_write), (0, 1_200));
        let grown = cache.serve(&request(vec![block(&format!("{a}{b}"), true)]));
        assert_eq!((grown.cache_read, grown.cache_write), (0, 1_500), "no boundary where the first write ended");
        // A block per turn: the earlier write is read at its boundary.
        let turns = cache.serve(&request(vec![block(&a, false), block(&b, false), block(&c, true)]));
        assert_eq!((turns.cache_read, turns.cache_write), (1_200, 600));
        assert_eq!(turns.prompt_tokens, 1_801, "the system prompt's token too");
    }

    #[test]
    fn only_a_long_enough_prefix_within_the_lookback_of_the_same_model() {
        let mut cache = AnthropicCache::new();
        let short = text('s', 500);
        assert_eq!(cache.serve(&request(vec![block(&short, true)])).cache_write, 0, "below the minimum");
        let head = text('h', 1_100);
        cache.serve(&request(vec![block(&head, true)]));
        // 21 blocks after the written one: out of the breakpoint's sight.
        let mut far = vec![block(&head, false)];
        far.extend((0..21).map(|i| block(&format!("{i:03}"), false)));
        far.push(block("end", true));
        assert_eq!(cache.serve(&request(far.clone())).cache_read, 0);
        far.truncate(20);
        far.push(block("end", true));
        assert_eq!(cache.serve(&request(far)).cache_read, 1_100, "20 blocks back is seen");
        let mut other = request(vec![block(&head, true)]);
        other["model"] = json!("other");
        assert_eq!(cache.serve(&other).cache_read, 0, "another model's cache");
    }

    #[test]
    #[should_panic(expected = "5 breakpoints")]
    fn more_than_four_breakpoints_are_refused() {
        AnthropicCache::new().serve(&request((0..5).map(|_| block("x", true)).collect()));
    }

    #[test]
    fn units_price_reads_and_writes() {
        let billed = Billed { prompt_tokens: 100, cache_read: 50, cache_write: 40 };
        assert!((billed.input_units() - (10.0 + 5.0 + 50.0)).abs() < 1e-9);
    }
}
