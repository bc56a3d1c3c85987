#!/usr/bin/env bash
# Takes the README's screenshot of the start view (open a folder, or a
# recent project) under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-projects.sh
# It needs xdotool and ImageMagick's import and convert. The app starts in
# a home folder of its own, so it shows the start view, with recent
# projects set in a settings file of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/screenshots
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

export HOME="$work/home" XDG_CONFIG_HOME="$work/config"
export GSETTINGS_SCHEMA_DIR="$PWD/build/data" GSETTINGS_BACKEND=keyfile GSK_RENDERER=cairo
export ZOT_HOME="$work/zot" GDK_BACKEND=x11
mkdir -p "$HOME/src/zot-desktop" "$HOME/src/website" "$HOME/notes" "$XDG_CONFIG_HOME"
gsettings set dev.zot.Zot recent-projects \
  "['$HOME/src/zot-desktop', '$HOME/src/website', '$HOME/notes']"

(cd "$HOME" && exec "$OLDPWD/build/src/zot") &
pid=$!

window=""
for _ in $(seq 50); do
  window=$(xdotool search --onlyvisible --name 'Zot' 2>/dev/null | head -n1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "no window" >&2; exit 1; }
xdotool windowsize "$window" 760 720
sleep 2
import -window "$window" "$work/raw.png"
convert "$work/raw.png" -trim +repage "$out/projects.png"
