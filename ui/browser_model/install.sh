#!/usr/bin/env bash
# The in-browser model's runtime, served by the app itself: onnxruntime-web from npm (the version
# pinned in package.json), the three files a page loads (its WebAssembly CPU path) copied into
# static/ort/, which Streamlit serves at /app/static/ort/ (.streamlit/config.toml,
# enableStaticServing), and their sha256 checked against runtime.sha256 (a changed file fails
# here, before any page loads it). No CDN, no network at run time. scripts/app and scripts/test run it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="$here/../../static/ort"
files=$(awk '{print $2}' "$here/runtime.sha256")
# our own modules (tokenizer.js, model.js), served beside it at /app/static/browser_model/
mkdir -p "$here/../../static/browser_model"
cp "$here"/*.js "$here/../../static/browser_model/"
if ! (cd "$dest" 2>/dev/null && sha256sum --quiet --strict -c "$here/runtime.sha256") >/dev/null 2>&1; then
  if [ ! -f "$here/node_modules/onnxruntime-web/package.json" ]; then
    command -v npm >/dev/null 2>&1 || { echo "ui/browser_model/install.sh needs npm (apt-get install npm)" >&2; exit 1; }
    npm install --prefix "$here" --no-audit --no-fund --silent
  fi
  mkdir -p "$dest"
  for f in $files; do cp "$here/node_modules/onnxruntime-web/dist/$f" "$dest/$f"; done
  (cd "$dest" && sha256sum --quiet --strict -c "$here/runtime.sha256") || {
    echo "onnxruntime-web's files in static/ort/ do not have the hashes in ui/browser_model/runtime.sha256" >&2
    exit 1
  }
fi
# the runtime's .wasm gzipped beside it, once (3.7 MB of its 14 MB): the browser fetches the copy and
# unpacks it (model.js, fetchBytes), so the server never compresses it per request
wasm="$dest/ort-wasm-simd-threaded.wasm"
if [ ! -f "$wasm.gz" ] || ! gzip -dc "$wasm.gz" 2>/dev/null | cmp -s - "$wasm"; then
  gzip -9 -n -c "$wasm" > "$wasm.gz.tmp" && mv "$wasm.gz.tmp" "$wasm.gz"
fi
