#!/usr/bin/env bash
# Runs test binaries again and again with both CPUs busy, to find the tests
# that fail only sometimes: a race shows up under load long before it shows
# up in CI.
#
# Usage: tools/stress-tests.sh [-n RUNS] [-C BUILD_DIR] [--no-load] [--fresh] [NAME...]
#
#   NAME       meson test names (`meson test -C BUILD_DIR --list`); all when none
#   -n RUNS    runs of each test (default 20)
#   -C DIR     build directory (default build-tests, set up as tools/test.sh does)
#   --no-load  do not start `stress-ng --cpu 2` beside the tests
#   --fresh    forget the runs recorded before and start again
#
# Every run is recorded as it ends, one line a run, in BUILD_DIR/stress/runs.tsv
# (test, run, ok or fail, seconds, date); the log of each failed run is kept
# beside it as NAME-RUN.log. Started again with the same arguments, it skips
# the runs already recorded, so a long series can be collected over several
# sittings. At the end it prints each test's counts and a "N passed, N failed"
# line over the runs recorded for the tests asked for.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20
dir=build-tests
load=1
fresh=0
names=()
while [ $# -gt 0 ]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    -C) dir=$2; shift 2 ;;
    --no-load) load=0; shift ;;
    --fresh) fresh=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "stress-tests.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done

case $runs in
  ''|*[!0-9]*|0) echo "stress-tests.sh: -n takes a number of runs above 0, not '$runs'" >&2; exit 2 ;;
esac

# The window's tests need a display: run the whole series under one Xvfb.
if [ -z "${DISPLAY:-}" ] && [ -z "${ZOT_STRESS_IN_XVFB:-}" ]; then
  bash tools/deps.sh
  command -v stress-ng >/dev/null || { [ $load -eq 0 ] || apt-get install -y -qq stress-ng >/dev/null; }
  export ZOT_STRESS_IN_XVFB=1
  exec xvfb-run -a -s "-screen 0 1400x900x24" bash "$0" -n "$runs" -C "$dir" \
    $([ $load -eq 1 ] || echo --no-load) $([ $fresh -eq 0 ] || echo --fresh) "${names[@]}"
fi

[ -d "$dir" ] || meson setup "$dir" --buildtype=debug -Dwerror=true >/dev/null
meson compile -C "$dir" >/dev/null

state="$dir/stress"
record="$state/runs.tsv"
mkdir -p "$state"
if [ $fresh -eq 1 ]; then
  rm -f "$record" "$state"/*.log
fi
touch "$record"

if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(meson test -C "$dir" --no-rebuild --list 2>/dev/null | sed -n 's/^[^ ]* \/ //p')
fi
known=" $(meson test -C "$dir" --no-rebuild --list 2>/dev/null | sed -n 's/^[^ ]* \/ //p' | tr '\n' ' ') "
for name in "${names[@]}"; do
  case $known in
    *" $name "*) ;;
    *) echo "stress-tests.sh: no test called '$name' in $dir (see meson test -C $dir --list)" >&2; exit 2 ;;
  esac
done

stress_pid=
stop_load() {
  if [ -n "$stress_pid" ]; then
    kill "$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
  fi
}
trap stop_load EXIT
if [ $load -eq 1 ]; then
  stress-ng --cpu 2 >/dev/null 2>&1 &
  stress_pid=$!
fi

done_already() {
  grep -q "^$1	$2	" "$record"
}

for run in $(seq 1 "$runs"); do
  for name in "${names[@]}"; do
    done_already "$name" "$run" && continue
    begun=$SECONDS
    if meson test -C "$dir" --no-rebuild --print-errorlogs "$name" >"$state/current.log" 2>&1; then
      result=ok
    else
      result=fail
      cp "$dir/meson-logs/testlog.txt" "$state/$name-$run.log"
      echo "$name run $run failed: $state/$name-$run.log"
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$run" "$result" "$((SECONDS - begun))" \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$record"
  done
done

passed=0
failed=0
printf '%-28s %5s %5s\n' test ok fail
for name in "${names[@]}"; do
  ok=$(grep -c "^$name	[0-9]*	ok	" "$record" || true)
  bad=$(grep -c "^$name	[0-9]*	fail	" "$record" || true)
  printf '%-28s %5s %5s\n' "$name" "$ok" "$bad"
  passed=$((passed + ok))
  failed=$((failed + bad))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
