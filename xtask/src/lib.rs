//! Builds the `agon:debate` components, the engine and the report, for the
//! SDKs and the size check (`cargo run -p xtask -- component [--report]`): the same code host-cli's build script
//! runs, from `host-cli/build/component.rs`, where a packed agon-cli carries
//! it too.

use std::path::{Path, PathBuf};

// What only host-cli's build uses (the bundle of a packed crate) is tested here, not used.
#[allow(dead_code)]
#[path = "../../host-cli/build/component.rs"]
mod component;

pub use component::{Part, SOURCES, build_component, build_part};

/// The workspace root, from this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rebuild_triggers_exist_and_cover_the_root_manifest() {
        let root = workspace_root();
        for path in SOURCES {
            assert!(root.join(path).exists(), "{path} is watched but not there");
        }
        for shaping in ["Cargo.toml", "Cargo.lock"] {
            assert!(SOURCES.contains(&shaping), "a change to {shaping} must rebuild the component");
        }
    }

    /// A rustup toolchain without the wasm target: the build says the line to run.
    #[test]
    #[cfg(unix)]
    fn a_missing_wasm_target_is_named_with_the_line_to_run() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("agon-xtask-sysroot-{}", std::process::id()));
        let rustlib = dir.join("sysroot/lib/rustlib");
        std::fs::create_dir_all(rustlib.join("x86_64-unknown-linux-gnu")).unwrap();
        std::fs::write(rustlib.join("multirust-channel-manifest.toml"), "").unwrap();
        let rustc = dir.join("rustc");
        std::fs::write(&rustc, format!("#!/bin/sh\necho {}\n", dir.join("sysroot").display())).unwrap();
        std::fs::set_permissions(&rustc, std::fs::Permissions::from_mode(0o755)).unwrap();

        let e = component::require_wasm_target(rustc.as_os_str()).unwrap_err().to_string();
        assert!(e.contains("\n    rustup target add wasm32-unknown-unknown\n"), "{e}");
        std::fs::create_dir_all(rustlib.join("wasm32-unknown-unknown")).unwrap();
        assert!(component::require_wasm_target(rustc.as_os_str()).is_ok());
        // Not a rustup toolchain: cargo's own error stands.
        std::fs::remove_file(rustlib.join("multirust-channel-manifest.toml")).unwrap();
        std::fs::remove_dir(rustlib.join("wasm32-unknown-unknown")).unwrap();
        assert!(component::require_wasm_target(rustc.as_os_str()).is_ok());
        let _ = std::fs::remove_dir_all(dir);
    }

    /// host-cli in the workspace builds from the sources; a packed crate,
    /// whose folder has no workspace around it, takes what it carries.
    #[test]
    fn the_component_comes_from_the_workspace_or_the_bundle() {
        let root = workspace_root();
        assert_eq!(component::Source::of(&root.join("host-cli")), component::Source::Workspace(root.clone()));
        let packed = std::env::temp_dir().join("agon-cli-0.1.0");
        let source = component::Source::of(&packed);
        assert_eq!(source, component::Source::Bundled(packed.join("bundled")));
        assert_eq!(source.catalog(), packed.join("bundled/models.json"));
        assert_eq!(component::Source::Workspace(root.clone()).catalog(), root.join("catalog/models.json"));
    }
}
