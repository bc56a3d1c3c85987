#!/bin/sh
# Test fixture: a well-behaved zot extension in POSIX shell.
# Command "shhello" answers display "hello from shell".

send () {
  printf '%s\n' "$1"
}

# The frame's own "type". Hosts write it as the first member, which keeps a
# nested object's "type" (a content block, an event payload) from matching;
# failing that, take any "type" member.
frame_type () {
  t=$(printf '%s\n' "$1" | sed -n 's/^[[:space:]]*{[[:space:]]*"type"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
  if [ -z "$t" ]; then
    t=$(printf '%s\n' "$1" | sed -n 's/.*"type"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
  fi
  printf '%s\n' "$t"
}

# The id of a frame, e.g. "c1" from {"type":"command_invoked","id":"c1",...}.
# Ids are host-chosen plain strings; one with an escaped quote is not expected.
frame_id () {
  printf '%s\n' "$1" | sed -n 's/.*"id"[[:space:]]*:[[:space:]]*"\([^"\\]*\)".*/\1/p'
}

send '{"type":"hello","name":"sh-hello","version":"1.0.0","capabilities":["commands"]}'
send '{"type":"register_command","name":"shhello","description":"Say hello from a shell script"}'
send '{"type":"ready"}'

while IFS= read -r line; do
  case $(frame_type "$line") in
    command_invoked)
      id=$(frame_id "$line")
      send "{\"type\":\"command_response\",\"id\":\"$id\",\"action\":\"display\",\"display\":\"hello from shell\"}"
      ;;
    shutdown)
      send '{"type":"shutdown_ack"}'
      exit 0
      ;;
    *)
      # hello_ack, events and anything unknown: ignore.
      ;;
  esac
done
exit 0
