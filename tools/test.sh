#!/usr/bin/env bash
# Builds zot and runs the whole test suite (the window's tests under Xvfb),
# then the suite again under AddressSanitizer and UndefinedBehaviorSanitizer:
# with leak checking for everything but the window, whose tests run without
# it (fontconfig, Pango and Mesa keep caches for the life of the process,
# and telling them from our leaks needs a slow unwinder on every
# allocation). Last, each parser's fuzz target runs for a short while
# (tools/fuzz.sh; ZOT_FUZZ_SECONDS, default 10), each counting as one test.
# Prints how long each pass took and "N passed, N failed" at the end. The
# sanitizer build leaves out the benchmarks, which the first build compiles.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/deps.sh

count() {
  python3 - "$1" <<'PY'
import json, sys
passed = failed = 0
for line in open(sys.argv[1]):
    entry = json.loads(line)
    for out in (entry.get("stdout") or "").splitlines():
        if out.startswith("ok "):
            passed += 1
        elif out.startswith("not ok "):
            failed += 1
    if entry.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL") and failed == 0:
        failed += 1
print(passed, failed)
PY
}

status=0
total_passed=0
total_failed=0

started=$SECONDS
phase() {
  echo "== $1: $((SECONDS - started)) s so far"
}

run_suite() {
  local dir=$1; shift
  local test_args=$1; shift
  [ -d "$dir" ] || meson setup "$dir" "$@" >/dev/null
  meson compile -C "$dir" >/dev/null
  # shellcheck disable=SC2086
  if ! xvfb-run -a -s "-screen 0 1400x900x24" meson test -C "$dir" --print-errorlogs $test_args; then status=1; fi
  read -r p f < <(count "$dir/meson-logs/testlog.json")
  total_passed=$((total_passed + p))
  total_failed=$((total_failed + f))
  phase "$dir $test_args"
}

run_suite build-tests "" --buildtype=debug -Dwerror=true

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The Go, Node and Python SDKs' own tests have no C in them: once is enough.
run_suite build-asan "--no-suite gui --no-suite sdk-go --no-suite sdk-node --no-suite sdk-python" --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbenchmarks=false

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
run_suite build-asan "--suite gui" --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbenchmarks=false

# Two targets at a time: each is one process on one CPU.
fuzz_log=$(mktemp)
fuzz_status=0
ZOT_FUZZ_JOBS=2 bash tools/fuzz.sh "${ZOT_FUZZ_SECONDS:-10}" | tee "$fuzz_log" || fuzz_status=1
p=$(grep -c '^ok ' "$fuzz_log" || true)
f=$(grep -c '^not ok ' "$fuzz_log" || true)
# A build that failed ran no target at all.
if [ "$fuzz_status" -ne 0 ]; then
  status=1
  [ "$f" -gt 0 ] || f=1
fi
rm -f "$fuzz_log"
total_passed=$((total_passed + p))
total_failed=$((total_failed + f))

phase fuzzing
echo "$total_passed passed, $total_failed failed"
exit $status
