//! Every saved fuzz input (`fuzz/regressions/<target>/`) replayed through its
//! harness, plus random inputs for each harness, on every test run.

use std::path::Path;

use agon_core::fuzzing;
use proptest::prelude::*;

fn sweep(target: &str, harness: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        harness(&std::fs::read(&path).unwrap());
        n += 1;
    }
    n
}

#[test]
fn every_saved_crash_stays_fixed() {
    assert!(sweep("spec", fuzzing::spec) > 0);
    assert!(sweep("replies", fuzzing::replies) > 0);
    assert!(sweep("session", fuzzing::session) > 0);
    assert!(sweep("documents", fuzzing::document) > 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_sessions_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        fuzzing::session(&data);
    }

    #[test]
    fn random_documents_never_panic_nor_pass_their_bound(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        fuzzing::document(&data);
    }

    #[test]
    fn random_replies_never_panic(text in ".{0,300}") {
        fuzzing::replies(text.as_bytes());
    }

    #[test]
    fn random_specs_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        fuzzing::spec(&data);
    }
}
