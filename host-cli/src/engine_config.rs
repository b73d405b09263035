//! The wasmtime settings the component is compiled with (in build.rs) and
//! loaded with (in engine.rs). wasmtime refuses an artifact whose settings
//! differ from the loading engine's, so both include this one file.

/// Apply the settings both sides share.
pub fn shared(config: &mut wasmtime::Config) {
    // Memory is initialized by copying the component's data, not from a
    // memfd image: that would be a file write, which a file-size limit
    // (`ulimit -f`) or a sandbox can refuse. The data is about 120 KB.
    config.memory_init_cow(false);
    // No map from machine code back to wasm offsets: it only adds offsets to
    // a trap's backtrace, and it was a quarter of a megabyte in each of the
    // two compiled forms the binary carries.
    config.generate_address_map(false);
    // No `.eh_frame` for the compiled code (86 KB): it only lets a native
    // unwinder walk through wasm frames, and nothing ever unwinds through
    // one: the component imports nothing, so no host code runs beneath a
    // wasm frame. wasmtime's own trap backtraces do not use it.
    config.native_unwind_info(false);
}
