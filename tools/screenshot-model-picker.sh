#!/usr/bin/env bash
# Takes docs' screenshot of the header's model picker, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/screenshot-model-picker.sh
# It needs python3. A local
# stand-in for Ollama answers /v1/models; $ZOT_HOME is temporary, so the
# tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh
work=$shot_work
server=""
trap 'shot_stop; [ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/models.py" <<'PY'
import http.server, json, sys
MODELS = ["deepseek-r1:8b", "gemma3:12b", "llama3.1:8b", "llama3.2", "mistral-nemo", "phi4",
          "qwen2.5-coder:7b", "qwen3:14b"]
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"object": "list",
                           "data": [{"id": m, "object": "model"} for m in MODELS]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/models.py" > "$work/port" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

mkdir -p "$work/project"
SHOT_WIDTH=1100 SHOT_HEIGHT=640 shot_start "$work/project" --provider ollama \
  --base-url "http://127.0.0.1:$port/v1" --model qwen3:14b --no-ext
sleep 4   # the keyring wait
# The model button sits at the right of the header bar, left of the side
# pane's toggle.
shot_popover model-picker.png 480 830 27
