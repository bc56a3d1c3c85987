#!/bin/sh
# Test fixture: dies before the handshake. The host must report exit status 3
# and the path of the log that holds this stderr line.
echo "dying before hello" >&2
exit 3
