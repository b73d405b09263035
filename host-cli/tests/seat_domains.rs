//! `--domain` and `--blind` (and agon.toml's `[seats.ID] domain`,
//! `[defaults] blind`) reach the spec; what means nothing is refused by name.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use serde_json::Value;

fn agon(env: &Sandbox, args: &[&str]) -> Output {
    env.command(env!("CARGO_BIN_EXE_agon")).args(args).output().unwrap()
}

fn spec(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn domains_and_blind_come_from_flags_and_agon_toml() {
    let env = Sandbox::new("seat-domains", "flags");
    let s = spec(&agon(&env, &["spec", "Q?", "--panel", "openai/a,openai/b", "--domain", "security", "--blind"]));
    assert_eq!(s["panel"][0]["domain"], "security", "{s}");
    assert_eq!(s["panel"][1]["domain"], "security", "{s}");
    assert_eq!(s["blind"], true);
    assert!(s["judge"].get("domain").is_none(), "the judge takes none: {s}");
    let s = spec(&agon(&env, &["spec", "Q?", "--panel", "openai/a,openai/b", "--domain", "b=EU privacy law"]));
    assert!(s["panel"][0].get("domain").is_none(), "{s}");
    assert_eq!(s["panel"][1]["domain"], "EU privacy law");
    assert!(s.get("blind").is_none(), "not blind unless asked: {s}");

    let config = env.root.join("agon.toml");
    std::fs::write(&config, "[defaults]\nblind = true\n[seats.a]\ndomain = \"finance\"\n").unwrap();
    let with_config = |extra: &[&str]| {
        let mut args = vec!["--config", config.to_str().unwrap(), "spec", "Q?", "--panel", "openai/a,openai/b"];
        args.extend(extra);
        spec(&agon(&env, &args))
    };
    let s = with_config(&[]);
    assert_eq!((s["panel"][0]["domain"].as_str(), s["blind"].as_bool()), (Some("finance"), Some(true)), "{s}");
    // The flag for the same seat wins over the file.
    let s = with_config(&["--domain", "a=tax law"]);
    assert_eq!(s["panel"][0]["domain"], "tax law", "{s}");
}

#[test]
fn a_domain_or_blind_that_means_nothing_is_refused_by_name() {
    let env = Sandbox::new("seat-domains", "refused");
    for (args, naming) in [
        (vec!["--domain", "judge=law"], "seat_domains.judge"),
        (vec!["--domain", "c=law"], "seat_domains.c: no such seat (seats: a, b)"),
        (vec!["--domain", "a=line one\nline two"], "panel[0].domain"),
        (vec!["--protocol", "challenge", "--blind"], "blind: challenge has nothing to hide"),
        // Read where the flag is: clap names the flag and says what it takes.
        (vec!["--domain", "=law"], "'--domain <[SEAT=]AREA>': name the seat before '='"),
        (vec!["--domain", "a= "], "'--domain <[SEAT=]AREA>': give a field of expertise"),
    ] {
        let out = agon(&env, &[&["spec", "Q?", "--panel", "openai/a,openai/b"][..], &args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(naming), "{args:?} should name {naming}: {err}");
    }
}
