#!/bin/bash
# Test fixture for tests/test-box.c: tries what its arguments say, writes
# each outcome to ./results (its own folder), then speaks the protocol.
#   read:PATH   write:PATH   connect:PORT   env   child:NAME   spawn:N
#   eat:MIB (holds that much memory)   open:N (opens N files at once)
#   exit:N (exits with status N instead of saying hello)

results=./results
: > "$results"

for probe in "$@"; do
  kind=${probe%%:*}
  arg=${probe#*:}
  case $kind in
    read)
      if cat -- "$arg" > /dev/null 2>&1; then echo "read $arg ok"; else echo "read $arg refused"; fi ;;
    write)
      if echo written 2> /dev/null >> "$arg"; then echo "write $arg ok"; else echo "write $arg refused"; fi ;;
    connect)
      if (exec 3<> "/dev/tcp/127.0.0.1/$arg") 2> /dev/null; then echo "connect $arg ok"; else echo "connect $arg refused"; fi ;;
    env)
      for name in $(compgen -e); do echo "env $name"; done ;;
    child)
      # A child that outlives nothing: named, so the host finds it in /proc.
      (exec -a "$arg" sleep 600) &
      echo "child $!" ;;
    spawn)
      for ((i = 0; i < arg; i++)); do sleep 600 & done
      echo "spawned $arg" ;;
    eat)
      held=$(head -c "$((arg * 1024 * 1024))" /dev/zero | tr '\0' x)
      echo "ate ${#held}" ;;
    open)
      opened=0
      for ((i = 0; i < arg; i++)); do
        exec {fd}< /dev/null 2> /dev/null || break
        opened=$((opened + 1))
      done
      if [ "$opened" -eq "$arg" ]; then echo "open $arg ok"; else echo "open $arg refused"; fi ;;
    exit)
      echo "exit $arg" >> "$results"
      echo "exiting with $arg" >&2
      exit "$arg" ;;
  esac >> "$results"
done
echo done >> "$results"

printf '%s\n' '{"type":"hello","name":"box-probe","version":"1.0.0","capabilities":[]}'
printf '%s\n' '{"type":"ready"}'
while IFS= read -r line; do
  case $line in
    *'"shutdown"'*)
      printf '%s\n' '{"type":"shutdown_ack"}'
      exit 0 ;;
  esac
done
exit 0
