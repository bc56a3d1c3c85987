#!/usr/bin/env python3
"""Run `go test -json` and print its results as TAP for meson.

Usage: go-test-tap.py GO [PACKAGES...], GO being the go command to run.

Each test and subtest becomes one TAP line; its output is kept as TAP
comments when it fails, and a failure outside any test (a build error)
becomes a failing line of its own, so the exit status is never the only
trace of a failure.
"""

import json
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: go-test-tap.py GO [PACKAGES...]")
    cmd = [sys.argv[1], "test", "-json", "-count=1"] + (sys.argv[2:] or ["./..."])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    count = 0
    failed = False
    output = {}
    stray = []
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            stray.append(line.rstrip("\n"))
            continue
        name = ev.get("Test")
        key = (ev.get("Package", ""), name)
        action = ev.get("Action")
        if action == "output":
            if name:
                output.setdefault(key, []).append(ev.get("Output", "").rstrip("\n"))
            else:
                stray.append(ev.get("Output", "").rstrip("\n"))
        elif action in ("pass", "fail", "skip") and name:
            count += 1
            status = "ok" if action != "fail" else "not ok"
            skip = " # SKIP" if action == "skip" else ""
            print(f"{status} {count} - {key[0]} {name}{skip}", flush=True)
            if action == "fail":
                failed = True
                for out in output.get(key, []):
                    print("# " + out)
            output.pop(key, None)
    code = proc.wait()
    if code != 0 and not failed:
        count += 1
        print(f"not ok {count} - go test exited with status {code}")
        for out in stray:
            print("# " + out)
    print(f"1..{count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
