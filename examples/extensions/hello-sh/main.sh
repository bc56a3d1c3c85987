#!/bin/sh
# hello-sh: a zot extension in POSIX shell (sh and sed only).
#
#   /hello        -> Hello, world!
#   /hello Ada    -> Hello, Ada!
#
# Frames are newline-delimited JSON: one object per line on stdin (from
# zot) and stdout (to zot). stdout carries frames only; anything for a
# human goes to stderr, which zot appends to the extension's log.

# While parsing, an escaped backslash (\\) and an escaped quote (\") are
# swapped for two control characters that a JSON line never contains raw.
# That way "[^"]*" finds the real end of a string value.
BSL=$(printf '\001')
QUO=$(printf '\002')
TAB=$(printf '\t')
CR=$(printf '\r')

send () {
  printf '%s\n' "$1"
}

# Escape text for use inside a JSON string: backslash first, then the
# double quote, then the control characters a single line can still hold.
json_escape () {
  printf '%s\n' "$1" | sed \
    -e 's/\\/\\\\/g' \
    -e 's/"/\\"/g' \
    -e "s/$TAB/\\\\t/g" \
    -e "s/$CR/\\\\r/g"
}

normalize () {
  printf '%s\n' "$1" | sed -e 's/\\\\/'"$BSL"'/g' -e 's/\\"/'"$QUO"'/g'
}

# string_member NORMALIZED_LINE KEY: the value of "KEY":"..." with \", \\
# and \/ decoded. Other escapes (\n, \t, \u00e9) are kept as written, which
# is good enough for a one-line greeting.
string_member () {
  printf '%s\n' "$1" \
    | sed -n 's/.*"'"$2"'"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' \
    | sed -e 's/\\\//\//g' -e "s/$QUO/\"/g" -e "s/$BSL/\\\\/g"
}

# The frame's own "type": hosts write it first. Failing that, any "type".
frame_type () {
  t=$(printf '%s\n' "$1" \
    | sed -n 's/^[[:space:]]*{[[:space:]]*"type"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
  if [ -z "$t" ]; then
    t=$(string_member "$1" type)
  fi
  printf '%s\n' "$t"
}

send '{"type":"hello","name":"hello-sh","version":"1.0.0","capabilities":["commands"]}'
send '{"type":"register_command","name":"hello","description":"Say hello: /hello [NAME]"}'
send '{"type":"ready"}'

while IFS= read -r line; do
  norm=$(normalize "$line")
  case $(frame_type "$norm") in
    command_invoked)
      id=$(string_member "$norm" id)
      who=$(string_member "$norm" args)
      [ -n "$who" ] || who=world
      send '{"type":"notify","level":"info","message":"said hello"}'
      send "{\"type\":\"command_response\",\"id\":\"$(json_escape "$id")\",\"action\":\"display\",\"display\":\"Hello, $(json_escape "$who")!\"}"
      ;;
    shutdown)
      send '{"type":"shutdown_ack"}'
      exit 0
      ;;
    *)
      # hello_ack and anything this script does not know: ignore.
      ;;
  esac
done

# stdin closed: zot is gone.
exit 0
