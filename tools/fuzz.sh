#!/usr/bin/env bash
# Fuzzes the host's parsers with libFuzzer: builds fuzz/ with clang,
# AddressSanitizer and UBSan in build-fuzz/, then runs each target for
# SECONDS (default 60) over a copy of its seed corpus in fuzz/corpus/ (what
# it finds stays out of the tree). Prints a line per target with its
# executions, and fails naming the saved input of any crash, leak or hang.
#
#   bash tools/fuzz.sh [SECONDS] [TARGET...]
#
# ZOT_FUZZ_JOBS=N runs N targets at a time (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(frame-channel manifest sse json session ansi markdown)

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
jobs=${ZOT_FUZZ_JOBS:-1}

if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: bash tools/fuzz.sh [SECONDS] [TARGET...]" >&2
  exit 2
fi
for t in "${targets[@]}"; do
  if [ ! -d "fuzz/corpus/$t" ]; then
    echo "fuzz.sh: no target \"$t\"; the targets are: ${all_targets[*]}" >&2
    exit 2
  fi
done

# clang and its libFuzzer runtime come with the rest (tools/deps.sh).
bash tools/deps.sh
if ! clang -print-file-name=libclang_rt.fuzzer-x86_64.a | grep -q /; then
  echo "fuzz.sh: clang has no libFuzzer runtime (Debian: libclang-rt-14-dev)" >&2
  exit 1
fi

build=build-fuzz
if [ ! -d "$build" ]; then
  CC=clang meson setup "$build" --buildtype=debugoptimized -Dfuzzing=true -Dtests=false \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
meson compile -C "$build" "${targets[@]/#/fuzz-}" >/dev/null

# In memory where there is a tmpfs; the targets' own files go here too.
work=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
export TMPDIR="$work/tmp"

export ASAN_OPTIONS="detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Tokens that mutations splice in (fuzz/dict/).
dict_of() {
  case $1 in
    frame-channel|manifest|json|session) echo fuzz/dict/json.dict ;;
    *) echo "fuzz/dict/$1.dict" ;;
  esac
}

# Runs one target; its log and findings go to $work/<target>.log and
# $build/fuzz-findings/<target>/, which outlive this script.
run_target() {
  local t=$1
  local findings="$PWD/$build/fuzz-findings/$t"

  rm -rf "$findings" "$work/corpus-$t"
  mkdir -p "$findings"
  cp -r "fuzz/corpus/$t" "$work/corpus-$t"

  # -timeout: a single input that takes 10 s is a hang, and a finding.
  "$build/fuzz/fuzz-$t" "$work/corpus-$t" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -dict="$(dict_of "$t")" -print_final_stats=1 -artifact_prefix="$findings/" \
    >"$work/$t.log" 2>&1
}

stat_of() {
  sed -n "s/^stat::$2: *//p" "$work/$1.log" | tail -n 1
}

failed=0
index=0
report() {
  local t=$1 rc=$2
  local findings="$build/fuzz-findings/$t"
  local execs rate artifacts

  index=$((index + 1))
  execs=$(stat_of "$t" number_of_executed_units)
  rate=$(stat_of "$t" average_exec_per_sec)
  artifacts=$(find "$findings" -type f 2>/dev/null | sort)

  if [ "$rc" -eq 0 ] && [ -z "$artifacts" ] && [ -n "$execs" ]; then
    echo "ok $index - $t: ${execs} executions in ${seconds} s (${rate}/s)"
    rmdir "$findings" 2>/dev/null || true
    return
  fi

  failed=1
  echo "not ok $index - $t: exit status $rc after ${execs:-0} executions"
  # The report, from the sanitizer's or libFuzzer's first line on.
  sed -n '/^==[0-9]*==\|^(process:[0-9]*)\|^[a-zA-Z ]*is not valid UTF-8\|^the walk made\|^zot_json_check_depth/,$p' \
    "$work/$t.log" | head -n 60 | sed 's/^/#   /'
  if [ -n "$artifacts" ]; then
    for a in $artifacts; do
      echo "#   input: $a"
      echo "#   replay: $build/fuzz/fuzz-$t $a"
    done
  else
    tail -n 20 "$work/$t.log" | sed 's/^/#   /'
  fi
}

echo "1..${#targets[@]}"
i=0
while [ $i -lt ${#targets[@]} ]; do
  batch=("${targets[@]:$i:$jobs}")
  pids=()
  for t in "${batch[@]}"; do
    run_target "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    rc=0
    wait "${pids[$k]}" || rc=$?
    report "${batch[$k]}" "$rc"
  done
  i=$((i + jobs))
done

exit $failed
