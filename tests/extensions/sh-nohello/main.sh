#!/bin/sh
# Test fixture: never writes a byte. It stays alive until stdin closes, so the
# host has to give up on the hello deadline and stop it.
#
# stdout must stay open meanwhile: `exec cat >/dev/null` would close the
# host's read end at once, which looks like an exit rather than silence.
# This shell keeps its stdout and just drains stdin.
while IFS= read -r _line; do
  :
done
exit 0
