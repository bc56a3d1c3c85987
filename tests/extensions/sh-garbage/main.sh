#!/bin/sh
# Test fixture: prints lines that are not frames between the good ones. The
# host must log and skip them, and everything valid must still work.

send () {
  printf '%s\n' "$1"
}

garbage () {
  printf '%s\n' 'hello world' '{oops' '42'
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

frame_id () {
  printf '%s\n' "$1" | sed -n 's/.*"id"[[:space:]]*:[[:space:]]*"\([^"\\]*\)".*/\1/p'
}

garbage
send '{"type":"hello","name":"sh-garbage","version":"1.0.0","capabilities":["commands"]}'
garbage
send '{"type":"register_command","name":"garb","description":"Answers despite the garbage"}'
garbage
send '{"type":"ready"}'
garbage

while IFS= read -r line; do
  case $(frame_type "$line") in
    command_invoked)
      id=$(frame_id "$line")
      garbage
      send "{\"type\":\"command_response\",\"id\":\"$id\",\"action\":\"display\",\"display\":\"garbage survived\"}"
      garbage
      ;;
    shutdown)
      garbage
      send '{"type":"shutdown_ack"}'
      exit 0
      ;;
  esac
done
exit 0
