//! Packed relative relocations (`DT_RELR`) for the `agon` binary, where the
//! C library it is built against can load them.
//!
//! A position-independent executable carries one 24-byte entry for every
//! pointer the loader must shift at start-up: about 14,500 of them in agon,
//! 0.35 MB of the file. Packed, they take 4 KB, and a launch with a cold
//! page cache is faster (BENCHMARKS.md, "Start-up and size").
//! glibc loads them from 2.36 on, and refuses (by name) a binary that uses
//! them on anything older. A binary linked against glibc 2.34 or newer
//! already needs 2.34 (for `__libc_start_main`), so they are used only when
//! the glibc of this build is 2.36 or newer: the floor moves from 2.34 to
//! 2.36 for a build on a new system, and not at all for a build on an older
//! one.
//! `AGON_PACK_RELOCATIONS=0` turns them off, for a binary meant for older
//! systems than the one building it.

use std::process::Command;

/// The first glibc whose loader reads `DT_RELR`.
const SINCE: (u32, u32) = (2, 36);

/// Ask the linker to pack relative relocations, if this build can.
pub fn request() {
    println!("cargo:rerun-if-env-changed=AGON_PACK_RELOCATIONS");
    if std::env::var_os("AGON_PACK_RELOCATIONS").is_some_and(|v| v == "0") {
        return;
    }
    let is = |key: &str, value: &str| std::env::var(key).is_ok_and(|v| v == value);
    // Only for a native glibc build: the glibc asked about below must be the
    // one the binary will be loaded by.
    let native_glibc = is("CARGO_CFG_TARGET_OS", "linux")
        && is("CARGO_CFG_TARGET_ENV", "gnu")
        && std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    if native_glibc && glibc_version().is_some_and(|version| version >= SINCE) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// This machine's glibc, as `getconf` reports it ("glibc 2.36").
fn glibc_version() -> Option<(u32, u32)> {
    let out = Command::new("getconf").arg("GNU_LIBC_VERSION").output().ok()?;
    parse(std::str::from_utf8(&out.stdout).ok()?)
}

fn parse(reported: &str) -> Option<(u32, u32)> {
    let version = reported.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_what_getconf_prints() {
        assert_eq!(parse("glibc 2.36\n"), Some((2, 36)));
        assert_eq!(parse("glibc 2.35"), Some((2, 35)));
        assert_eq!(parse("glibc 2.39.9000"), Some((2, 39)));
        assert_eq!(parse("glibc 2.40-devel"), Some((2, 40)));
        assert_eq!(parse("musl 1.2"), None);
        assert_eq!(parse(""), None);
    }
}
