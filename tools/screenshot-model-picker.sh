#!/usr/bin/env bash
# Takes docs' screenshot of the header's model picker, under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1600x1000x24" tools/screenshot-model-picker.sh [BUILD_DIR]
# It needs python3, xdotool and ImageMagick's import and convert. A local
# stand-in for Ollama answers /v1/models; $ZOT_HOME is temporary, so the
# tree stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=docs/screenshots
work=$(mktemp -d)
pid=""; server=""
trap 'kill $pid $server 2>/dev/null || true; rm -rf "$work"' EXIT

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
export GSETTINGS_SCHEMA_DIR="$PWD/$build/data" GSETTINGS_BACKEND=memory GSK_RENDERER=cairo
export ZOT_HOME="$work/home" GDK_BACKEND=x11
"$build/src/zot" --provider ollama --base-url "http://127.0.0.1:$port/v1" --model qwen3:14b \
  --no-ext --cwd "$work/project" &
pid=$!

window=""
for _ in $(seq 50); do
  window=$(xdotool search --onlyvisible --name 'Zot' 2>/dev/null | head -n1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "no window" >&2; exit 1; }
xdotool windowsize "$window" 1100 640
sleep 4   # the keyring wait
eval "$(xdotool getwindowgeometry --shell "$window")"
import -window root "$work/before.png"
# The model button sits at the right of the header bar, left of the side
# pane's toggle; the pointer leaves at once so that its tooltip does not
# cover the search entry.
xdotool mousemove --window "$window" 830 27 click 1
xdotool mousemove --window "$window" 1000 600
sleep 2
import -window root "$work/after.png"
# The popover is a window of its own; Xvfb has no compositor, so its
# shadow margin is black: those pixels are taken from the screen before.
convert "$work/after.png" "$work/before.png" -fx "(u.r+u.g+u.b)==0 ? v : u" "$work/raw.png"
convert "$work/raw.png" -crop "${WIDTH}x480+${X}+${Y}" +repage "$out/model-picker.png"
[ -z "${KEEP:-}" ] || cp "$work"/*.png "$KEEP"
