#!/usr/bin/env bash
# Takes the README's screenshot of the start view (open a folder, or a
# recent project) under Xvfb: run it as
#   xvfb-run -a -s "-screen 0 1400x900x24" tools/screenshot-projects.sh
# The app starts in a home folder of its own, so it shows the start view,
# with recent projects set in a settings file of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/screenshot-lib.sh

export HOME="$shot_work/home" XDG_CONFIG_HOME="$shot_work/config"
export GSETTINGS_SCHEMA_DIR="$PWD/$shot_build/data" GSETTINGS_BACKEND=keyfile
mkdir -p "$HOME/src/zot-desktop" "$HOME/src/website" "$HOME/notes" "$XDG_CONFIG_HOME"
gsettings set dev.zot.Zot recent-projects \
  "['$HOME/src/zot-desktop', '$HOME/src/website', '$HOME/notes']"

SHOT_WIDTH=760 SHOT_HEIGHT=720 ZOT_HOME="$shot_work/zot" shot_start "$HOME"
sleep 2
shot_take projects.png
