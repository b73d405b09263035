//! However the network cuts a stream into chunks, the decoder finds the same events.

use agon_wire::{SseDecoder, SseEvent};
use proptest::prelude::*;

/// Pieces that exercise every rule: line ends of each kind, fields, comments,
/// multi-byte characters, the end marker; and arbitrary bytes.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let fixed = prop::sample::select(vec![
        "data: ",
        "data:",
        "data",
        "event: e",
        ": c",
        "id: 1",
        "\n",
        "\r",
        "\r\n",
        "\n\n",
        "é",
        "日本",
        "🦀",
        "[DONE]",
        "{\"a\":1}",
        "x",
        " ",
        "\u{feff}",
    ])
    .prop_map(|s| s.as_bytes().to_vec());
    prop_oneof![4 => fixed, 1 => prop::collection::vec(any::<u8>(), 0..4)]
}

fn decode(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new(1 << 20);
    let mut events: Vec<SseEvent> = chunks.iter().flat_map(|c| decoder.feed(c).unwrap()).collect();
    events.extend(decoder.finish());
    events
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(
        pieces in prop::collection::vec(piece(), 0..40),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let bytes = pieces.concat();
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        at.push(0);
        at.push(bytes.len());
        at.sort_unstable();
        let chunks: Vec<&[u8]> = at.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
        prop_assert_eq!(decode(&chunks), decode(&[&bytes]));
        let one_byte_at_a_time: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(decode(&one_byte_at_a_time), decode(&[&bytes]));
    }
}
