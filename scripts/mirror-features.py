#!/usr/bin/env python3
"""Writes the manifest of a crate that asks for the registry packages the
workspace's build resolves, each with the features it resolves them to, on
the same side (a normal dependency, or a build-dependency for what builds
and runs on the host: build scripts, proc-macros and what they use).

scripts/package-cli.sh builds the packed agon-cli beside it. Alone, the
packed crate resolves fewer features of some packages than the workspace
does (the tests add wasmtime's compiler, other members add features of
indexmap, semver, wasm-encoder and so on), so cargo would compile wasmtime
and everything above it again, 2-3 CPU-minutes on a fresh clone. Beside
this crate it resolves what the workspace did, and reuses that build.

    mirror-features.py WORKSPACE_DIR PACKED_WORKSPACE_DIR PACKAGE

lists only the packages that PACKAGE's graph in PACKED_WORKSPACE_DIR uses.
Read from `cargo tree`, whose tree marks build-dependencies and
proc-macros, on stable cargo.
"""

import re
import subprocess
import sys

LINE = re.compile(r"^(?P<indent>(?:[│ ] {3}|[├└]── )*)(?P<rest>.*)$")
NODE = re.compile(r"^(?P<name>[A-Za-z0-9_-]+) v(?P<version>\S+)(?P<path> \([^)]*\))?(?P<macro> \(proc-macro\))?\|(?P<features>[^ ]*)")


def resolved(args):
    """{(name, version, side): features} for the registry packages of a `cargo tree`."""
    out = subprocess.run(
        ["cargo", "tree", "--offline", "-e", "normal,build,dev", "-f", "{p}|{f}", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = {}
    host_below = None  # lines this deep or deeper are on the host
    for line in out.splitlines():
        if not line.strip():
            host_below = None
            continue
        match = LINE.match(line)
        depth = len(match.group("indent")) // 4
        rest = match.group("rest")
        if host_below is not None and depth < host_below:
            host_below = None
        if rest.startswith("["):
            # A section of the node above, at its children's depth: its
            # build-dependencies run on the host, its other sections do not
            # (unless the node itself is on the host).
            if host_below == depth:
                host_below = None
            if rest == "[build-dependencies]" and host_below is None:
                host_below = depth
            continue
        node = NODE.match(rest)
        if not node:
            raise SystemExit(f"mirror-features: cannot read this line of cargo tree: {line}")
        on_host = host_below is not None or bool(node.group("macro"))
        if node.group("macro") and host_below is None:
            host_below = depth + 1  # what a proc-macro uses builds for the host
        if node.group("path"):
            continue  # a workspace member or a packed crate, not a registry package
        features = set(filter(None, node.group("features").split(",")))
        key = (node.group("name"), node.group("version"), "host" if on_host else "target")
        found[key] = found.get(key, set()) | features
    return found


def main():
    workspace, packed, package = sys.argv[1:4]
    everything = resolved(["--manifest-path", f"{workspace}/Cargo.toml", "--workspace"])
    used = {(n, v) for (n, v, _) in resolved(["--manifest-path", f"{packed}/Cargo.toml", "-p", package])}
    print('[package]\nname = "unify"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n')
    for section, side in (("dependencies", "target"), ("build-dependencies", "host")):
        print(f"[{section}]")
        for (name, version, on), features in sorted(everything.items()):
            if on != side or (name, version) not in used:
                continue
            listed = ", ".join(f'"{f}"' for f in sorted(features))
            key = f"{name}-{version.replace('.', '-').replace('+', '-')}"
            print(f'{key} = {{ package = "{name}", version = "={version}", default-features = false, features = [{listed}] }}')
        print()


if __name__ == "__main__":
    main()
