#!/usr/bin/env bash
# The benchmarks, in one command: bench/run.sh [--quick] [--only views,bertviz,moves,capture,
#   interactions,first,cpu,memory,load,replicas,class,real]; the last table lists every target of issue 15
#   (and issue 35's moves, issue 49's real models' cached start) with met / not met. `.venv/bin/python -m bench.moves` alone finds BertViz in
#   bench/.venv too, once this script has made it.
# Makes bench/.venv (BertViz 1.4.1 and IPython, pinned in bench/requirements-bertviz.txt, without
# BertViz's CUDA-pulling dependencies; everything else, torch
# included, comes from the app's .venv through a .pth file) and bench/node_modules (the d3,
# jQuery and require.js that BertViz's HTML loads from a CDN), then runs `python -m bench`.
# Never part of the tests. Writes bench/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || { python3 -m venv .venv; .venv/bin/python -m pip install -q -r requirements-dev.txt; }
if [ ! -x bench/.venv/bin/python ]; then
  python3 -m venv bench/.venv
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  bsite=$(bench/.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$site" > "$bsite/main_venv.pth"
  bench/.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r bench/requirements-bertviz.txt
fi
[ -f bench/node_modules/d3/dist/d3.min.js ] || (cd bench && npm install --no-audit --no-fund --silent)
command -v chromium >/dev/null || { echo "bench needs Debian's chromium: apt-get install -y chromium" >&2; exit 1; }
exec bench/.venv/bin/python -m bench "$@"
