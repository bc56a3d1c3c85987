#!/bin/sh
# Without its settings schema the window refuses to start with one line
# that says how to fix it, where GSettings alone would abort the process.
set -eu

empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT

status=0
err=$(env -u GSETTINGS_SCHEMA_DIR XDG_DATA_DIRS="$empty" XDG_DATA_HOME="$empty" \
      ZOT_HOME="$empty" "$ZOT_BIN" --provider demo --no-session 2>&1 >/dev/null) || status=$?

if [ "$status" -ne 1 ]; then
  echo "zot exited with status $status, expected 1; it said: $err"
  exit 1
fi
if ! printf '%s\n' "$err" | grep -q '^zot: the settings schema .* is not installed; install zot with meson install'; then
  echo "zot did not name the missing schema and the fix; it said: $err"
  exit 1
fi
echo "ok: $err"
