# Shared by the tools/screenshot-*.sh scripts: source it after `cd` to the
# top of the tree. It starts the app under Xvfb, finds and sizes its
# window, types into it and saves it, and ends the app on exit.
#
#   SHOT_BUILD   build directory, relative to the top (default: build)
#   SHOT_SCHEME  prefer-light or prefer-dark (default: prefer-light)
#   SHOT_WIDTH, SHOT_HEIGHT   the window's size (default: 1280×800)
#
# Needs xdotool and ImageMagick's import and convert.

shot_build=${SHOT_BUILD:-${BUILD:-build}}
shot_top=$PWD
shot_work=$(mktemp -d)
shot_pid=""
shot_window=""
trap 'shot_stop; rm -rf "$shot_work"' EXIT

# shot_start DIR ARGS…: runs zot ARGS in DIR with ZOT_HOME=$shot_work/home
# (or the caller's ZOT_HOME) and waits for its window.
shot_start () {
  local dir=$1
  shift
  (cd "$dir" &&
   GSETTINGS_SCHEMA_DIR="$shot_top/$shot_build/data" GSETTINGS_BACKEND=memory \
   GSK_RENDERER=cairo GDK_BACKEND=x11 ADW_DEBUG_COLOR_SCHEME=${SHOT_SCHEME:-prefer-light} \
   ZOT_HOME=${ZOT_HOME:-$shot_work/home} \
   ZOT_BUILTIN_EXTENSIONS_DIR="$shot_top/$shot_build/extensions" \
   exec "$shot_top/$shot_build/src/zot" "$@") &
  shot_pid=$!
  # --sync waits for the window; timeout bounds the wait.
  shot_window=$(timeout 15 xdotool search --sync --onlyvisible --name 'Zot' | head -n1) ||
    { echo "no window" >&2; exit 1; }
  xdotool windowsize "$shot_window" "${SHOT_WIDTH:-1280}" "${SHOT_HEIGHT:-800}"
}

shot_stop () {
  if [ -n "$shot_pid" ]; then
    kill "$shot_pid" 2>/dev/null || true
    wait "$shot_pid" 2>/dev/null || true
  fi
  shot_pid=""
}

# shot_say TEXT: types TEXT in the prompt and sends it.
shot_say () {
  xdotool type --window "$shot_window" --delay 5 "$1"
  sleep 0.5
  # A slash command's first Return may only close the completions.
  xdotool key --window "$shot_window" Escape Return
}

# shot_take FILE: saves the window, trimmed, as docs/screenshots/FILE.
shot_take () {
  import -window "$shot_window" "$shot_work/raw.png"
  convert "$shot_work/raw.png" -trim +repage "$shot_top/docs/screenshots/$1"
}
