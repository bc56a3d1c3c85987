#!/bin/bash
# Test fixture for tests/test-ext-secrets.c: writes its whole environment,
# values and all, to ./results (its own folder), then speaks the protocol
# as the extension named by $1.
env > ./results
printf '{"type":"hello","name":"%s","version":"1.0.0","capabilities":[]}\n' "$1"
printf '%s\n' '{"type":"ready"}'
while IFS= read -r line; do
  case $line in
    *'"shutdown"'*)
      printf '%s\n' '{"type":"shutdown_ack"}'
      exit 0 ;;
  esac
done
exit 0
