//! Newline-delimited JSON (Ollama's stream), split from whatever chunks the
//! network delivers, with a bound on one line.

/// Bytes of the line not yet ended, and the limit on a line.
#[derive(Debug, Clone)]
pub(crate) struct Lines {
    pending: Vec<u8>,
    max: usize,
}

impl Lines {
    pub fn new(max: usize) -> Lines {
        Lines { pending: Vec::new(), max }
    }

    /// Every whole line `bytes` completes (without its line end), or the
    /// length of a line that passed the limit.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<String>, usize> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                out.push(self.take());
            } else {
                self.pending.push(b);
                if self.pending.len() > self.max {
                    return Err(self.max);
                }
            }
        }
        Ok(out)
    }

    /// The last line, when the body ended without a line end.
    pub fn finish(&mut self) -> Option<String> {
        (!self.pending.is_empty()).then(|| self.take())
    }

    fn take(&mut self) -> String {
        let line = String::from_utf8_lossy(&self.pending).trim_end_matches('\r').to_string();
        self.pending.clear();
        line
    }
}
