#!/usr/bin/env bash
# Two replicas of the app behind nginx with deploy/nginx.conf, and a check that sessions stick
# (bench/replicas_check.py), or, given a command, that command with the proxy's URL appended
# (bench/replicas.sh .venv/bin/python -m bench.load --students 120 --url). Everything runs on
# free local ports under a temporary folder and is stopped at the end. Needs nginx (installed
# with apt-get when missing and we are root).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
if ! command -v nginx >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null
  else echo "bench/replicas.sh needs nginx: sudo apt-get install -y nginx-light" >&2; exit 1; fi
fi
NGINX=$(command -v nginx)
TMP=$(mktemp -d /tmp/attn-replicas.XXXXXX)
read -r PA PB PP < <($PY -c 'import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
ENVS=(OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}")   # one torch thread per replica (docs/hosting.md)
for m in translator gpt gpt-rope gpt-alibi; do
  [ -f "model/weights/$m.safetensors" ] || ENVS+=(ATTN_RANDOM_WEIGHTS=1)
done
PIDS=()
cleanup() {
  "$NGINX" -p "$TMP" -c "$TMP/nginx.conf" -s quit 2>/dev/null || true
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
for port in "$PA" "$PB"; do
  env "${ENVS[@]}" $PY -m streamlit run app.py --server.port "$port" --server.address 127.0.0.1 \
      --server.headless true >"$TMP/replica-$port.log" 2>&1 &
  PIDS+=($!)
done
# deploy/nginx.conf with this run's ports and paths, and a header naming the replica that answered
sed -e "s#127.0.0.1:8501#127.0.0.1:$PA#; s#127.0.0.1:8502#127.0.0.1:$PB#" \
    -e "s#listen 80;#listen 127.0.0.1:$PP;#" \
    -e "s#^pid .*#pid $TMP/nginx.pid;#" \
    -e "s#worker_processes auto;#worker_processes 1;#" \
    -e "s#/var/log/nginx/attention-explorer#$TMP/nginx#g" \
    -e "s%# DEBUG-HEADERS.*%add_header X-Replica \$upstream_addr always;%" \
    -e "s#^http {#http {\n    client_body_temp_path $TMP/body; proxy_temp_path $TMP/proxy;\n    fastcgi_temp_path $TMP/fastcgi; uwsgi_temp_path $TMP/uwsgi; scgi_temp_path $TMP/scgi;#" \
    deploy/nginx.conf > "$TMP/nginx.conf"
"$NGINX" -t -p "$TMP" -c "$TMP/nginx.conf" 2>&1 | tail -1
"$NGINX" -p "$TMP" -c "$TMP/nginx.conf"
$PY - "$PA" "$PB" "$PP" <<'PYEOF'
import sys, time, urllib.request
for port in sys.argv[1:]:
    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2); break
        except OSError:
            time.sleep(0.5)
    else:
        sys.exit(f"nothing answers on port {port}")
PYEOF
echo "replicas on :$PA and :$PB, nginx on :$PP"
if [ $# -gt 0 ]; then "$@" "http://127.0.0.1:$PP"      # e.g. bench/replicas.sh .venv/bin/python -m bench.load --students 120 --url
else $PY bench/replicas_check.py "http://127.0.0.1:$PP"; fi
