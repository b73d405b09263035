#!/usr/bin/env bash
# Builds the browser extension (web-demo/extension/) from the browser demo's
# build: the same wasm, the same Rust host loop and the same app.js, with the
# extension's manifest, service worker and host.js (chrome.storage, run-time
# host permissions). Writes target/extension/unpacked/ (load it unpacked) and
# target/extension/agon-extension.zip (for the Chrome Web Store), and prints
# their sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
web=target/web-demo
out=target/extension

scripts/build-web.sh
rm -rf "$out" && mkdir -p "$out/unpacked"
cp "$web/agon_web_demo.js" "$web/agon_web_demo_bg.wasm" "$web/app.js" "$web/style.css" "$out/unpacked/"
cp "$web/index.html" "$out/unpacked/sidepanel.html"
cp web-demo/extension/manifest.json web-demo/extension/background.js web-demo/extension/host.js "$out/unpacked/"
python3 web-demo/extension/icons.py "$out/unpacked"

# A reproducible zip: sorted names, fixed times, manifest.json at the root.
python3 - "$out/unpacked" "$out/agon-extension.zip" <<'PY'
import sys, zipfile
from pathlib import Path
folder, target = Path(sys.argv[1]), sys.argv[2]
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        info = zipfile.ZipInfo(file.relative_to(folder).as_posix(), date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        z.writestr(info, file.read_bytes(), zipfile.ZIP_DEFLATED)
PY

for file in "$out"/unpacked/*; do
  printf '[build-extension] %8s bytes  %s\n' "$(wc -c <"$file")" "${file#"$out"/}" >&2
done
printf '[build-extension] %8s bytes  %s (unpacked total)\n' "$(cat "$out"/unpacked/* | wc -c)" "$out/unpacked" >&2
printf '[build-extension] %8s bytes  %s\n' "$(wc -c <"$out/agon-extension.zip")" "$out/agon-extension.zip" >&2
