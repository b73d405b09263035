//! Rankings: the `FINAL RANKING:` list each seat closes with.

/// The labels a ranker ordered, best first: from the `FINAL RANKING:` list,
/// else every label mentioned in order. Only known labels, each once.
pub fn final_ranking(text: &str, labels: &[String]) -> Vec<String> {
    let section = text.rfind("FINAL RANKING").map(|i| &text[i..]).unwrap_or(text);
    let mut order = Vec::new();
    for line in section.lines() {
        push_labels(line, labels, &mut order);
    }
    if order.is_empty() {
        push_labels(text, labels, &mut order);
    }
    order
}

/// Append the labels mentioned in `s`, in order of appearance, skipping repeats.
fn push_labels(s: &str, labels: &[String], order: &mut Vec<String>) {
    let mut found: Vec<(usize, &String)> =
        labels.iter().filter_map(|l| s.find(l.as_str()).map(|pos| (pos, l))).collect();
    found.sort_unstable();
    for (_, l) in found {
        if !order.contains(l) {
            order.push(l.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rankings_read_the_final_list_then_fall_back() {
        let labels: Vec<String> = ["Response A", "Response B", "Response C"].iter().map(|s| s.to_string()).collect();
        let text = "Response A is thin.\nFINAL RANKING:\n1. Response C\n2. Response A\n3. Response B";
        assert_eq!(final_ranking(text, &labels), ["Response C", "Response A", "Response B"]);
        assert_eq!(final_ranking("I prefer Response B over Response A.", &labels), ["Response B", "Response A"]);
    }
}
