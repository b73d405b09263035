//! Link flags for a component's core module (the engine's and the report's).

fn main() {
    // wasm-ld leaves every relocated index as a padded five-byte LEB128 unless
    // asked to compress them; compressing takes about 7% off the component.
    // It needs the DWARF gone (the std rlibs carry some), so optimized builds
    // only; the name section stays for whoever profiles the module.
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32");
    let optimized = std::env::var("PROFILE").as_deref() == Ok("release");
    if wasm && optimized {
        println!("cargo:rustc-cdylib-link-arg=--strip-debug");
        println!("cargo:rustc-cdylib-link-arg=--compress-relocations");
    }
}
