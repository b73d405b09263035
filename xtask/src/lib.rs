//! Builds the `agon:debate` component, for the SDKs and the size check
//! (`cargo run -p xtask -- component`): the same code host-cli's build script
//! runs, from `host-cli/build/component.rs`, where a packed agon-cli carries
//! it too.

use std::path::{Path, PathBuf};

// What only host-cli's build uses (the bundle of a packed crate) is tested here, not used.
#[allow(dead_code)]
#[path = "../../host-cli/build/component.rs"]
mod component;

pub use component::{SOURCES, build_component};

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
