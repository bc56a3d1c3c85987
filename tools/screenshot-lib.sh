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
   GSETTINGS_SCHEMA_DIR="$shot_top/$shot_build/data" GSETTINGS_BACKEND=${GSETTINGS_BACKEND:-memory} \
   GSK_RENDERER=cairo GDK_BACKEND=x11 ADW_DEBUG_COLOR_SCHEME=${SHOT_SCHEME:-prefer-light} \
   ZOT_HOME=${ZOT_HOME:-$shot_work/home} \
   ZOT_BUILTIN_EXTENSIONS_DIR="$shot_top/$shot_build/extensions" \
   exec "$shot_top/$shot_build/src/zot" "$@") &
  shot_pid=$!
  shot_window=$(shot_find_window 'Zot')
  xdotool windowsize "$shot_window" "${SHOT_WIDTH:-1280}" "${SHOT_HEIGHT:-800}"
}

# shot_find_window NAME: the first visible window whose name matches NAME.
shot_find_window () {
  # --sync waits for the window; timeout bounds the wait.
  timeout 15 xdotool search --sync --onlyvisible --name "$1" | head -n1 | grep . ||
    { echo "no window named $1" >&2; exit 1; }
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

# shot_take FILE [WINDOW]: saves the window (or WINDOW), trimmed, as FILE
# under docs/screenshots/ (or as FILE itself when it has a slash).
shot_take () {
  local file=$1
  case $file in */*) ;; *) file="$shot_top/docs/screenshots/$file" ;; esac
  import -window "${2:-$shot_window}" "$shot_work/raw.png"
  convert "$shot_work/raw.png" -trim +repage "$file"
}

# shot_popover FILE HEIGHT X Y: clicks at X,Y in the window and saves the
# popover that opens, with the window's width and HEIGHT from its top.
# The popover is a window of its own and Xvfb has no compositor, so its
# shadow margin is black: those pixels are taken from the screen before.
shot_popover () {
  local WIDTH X Y HEIGHT SCREEN WINDOW
  eval "$(xdotool getwindowgeometry --shell "$shot_window")"
  import -window root "$shot_work/before.png"
  # The pointer leaves at once, so that no tooltip covers the popover.
  xdotool mousemove --window "$shot_window" "$3" "$4" click 1
  xdotool mousemove --window "$shot_window" 300 600
  sleep 2
  import -window root "$shot_work/after.png"
  convert "$shot_work/after.png" "$shot_work/before.png" -fx "(u.r+u.g+u.b)==0 ? v : u" "$shot_work/raw.png"
  convert "$shot_work/raw.png" -crop "${WIDTH}x$2+${X}+${Y}" +repage "$shot_top/docs/screenshots/$1"
}
