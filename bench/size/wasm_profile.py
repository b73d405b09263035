#!/usr/bin/env python3
"""Where a wasm module's bytes go: code per function, grouped by crate, and the
data segments, read from the module's name section. Build the module with
names kept (scripts/size-profile.sh does), since the shipped one is stripped.

    python3 bench/size/wasm_profile.py MODULE.wasm [--top N]
"""
import argparse
import re
import sys
from collections import Counter


def leb(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def sections(buf: bytes):
    if buf[:4] != b"\0asm":
        sys.exit("not a core wasm module (a component? profile the core module inside it)")
    pos = 8
    while pos < len(buf):
        kind = buf[pos]
        size, body = leb(buf, pos + 1)
        yield kind, buf[body:body + size]
        pos = body + size


def function_names(custom: bytes) -> dict[int, str]:
    names = {}
    pos = 0
    while pos < len(custom):
        sub = custom[pos]
        size, pos = leb(custom, pos + 1)
        if sub == 1:
            count, p = leb(custom, pos)
            for _ in range(count):
                index, p = leb(custom, p)
                length, p = leb(custom, p)
                names[index] = custom[p:p + length].decode("utf-8", "replace")
                p += length
        pos += size
    return names


def crate_of(name: str) -> str:
    """The crate a symbol belongs to: for `<T as Trait>::f`, the crate of T."""
    if ":" in name and not name.startswith("_"):
        return "(component glue)"
    first = name
    legacy = re.match(r"_ZN(\d+)", name)
    if legacy:  # _ZN9agon_core6stance…: length-prefixed path segments
        start = legacy.end()
        first = name[start:start + int(legacy.group(1))]
    plain = re.sub(r"\$LT\$|\$GT\$|\$u20\$|\$RF\$|\$BP\$|\.\.|^_", " ", first)
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", plain) if w not in ("impl", "mut", "dyn", "const")]
    return words[0] if words else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    buf = open(args.module, "rb").read()
    imported = 0
    bodies: list[int] = []
    names: dict[int, str] = {}
    by_section: Counter = Counter()
    for kind, body in sections(buf):
        label = {1: "type", 2: "import", 3: "function", 5: "memory", 6: "global", 7: "export",
                 10: "code", 11: "data", 0: "custom"}.get(kind, f"section {kind}")
        if kind == 0:
            length, p = leb(body, 0)
            custom = body[p:p + length].decode()
            label = f"custom {custom}"
            if custom == "name":
                names = function_names(body[p + length:])
        by_section[label] += len(body)
        if kind == 2:
            count, p = leb(body, 0)
            for _ in range(count):
                for _ in range(2):
                    length, p = leb(body, p)
                    p += length
                desc = body[p]
                p += 1
                if desc == 0:
                    imported += 1
                    _, p = leb(body, p)
                else:
                    sys.exit("imports other than functions are not handled")
        if kind == 10:
            count, p = leb(body, 0)
            for _ in range(count):
                size, start = leb(body, p)
                bodies.append(size)
                p = start + size
    total = len(buf)
    print(f"{args.module}: {total} bytes")
    for label, size in by_section.most_common():
        print(f"  {size:>9}  {100 * size / total:5.1f}%  {label}")
    if not names:
        print("(no name section: build with names kept to see functions)")
        return
    functions = [(size, names.get(imported + i, f"#{imported + i}")) for i, size in enumerate(bodies)]
    crates: Counter = Counter()
    for size, name in functions:
        crates[crate_of(name)] += size
    print("\ncode by crate")
    for crate, size in crates.most_common(args.top):
        print(f"  {size:>9}  {crate}")
    print(f"\nlargest {args.top} functions")
    for size, name in sorted(functions, reverse=True)[:args.top]:
        print(f"  {size:>9}  {name[:150]}")


if __name__ == "__main__":
    main()
