#!/usr/bin/env python3
"""Every option `zot --help` lists, and every provider it names, is in the
man page and in the bash, zsh and fish completions: a new option or
provider cannot ship without them."""
import os
import re
import subprocess
import sys

source = sys.argv[1]
zot = os.environ["ZOT_BIN"]
out = subprocess.run([zot, "--help"], capture_output=True, text=True, check=True,
                     env=dict(os.environ, LANGUAGE="C", LANG="C.UTF-8")).stdout

options = sorted(set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z-]*)", out, re.M)) - {"help"})
providers = re.search(r"--provider=NAME\s+Model provider: (.*)", out).group(1)
providers = re.findall(r"[a-z]+", providers.replace(" or ", ", "))

def read(*parts):
    with open(os.path.join(source, *parts), encoding="utf-8") as f:
        return f.read()

files = {
    "data/zot.1": (read("data", "zot.1"), lambda o: "\\-\\-" + o.replace("-", "\\-")),
    "data/completions/zot.bash": (read("data", "completions", "zot.bash"), lambda o: "--" + o),
    "data/completions/_zot": (read("data", "completions", "_zot"), lambda o: "--" + o),
    "data/completions/zot.fish": (read("data", "completions", "zot.fish"), lambda o: "-l " + o),
}

missing = []
for name, (text, form) in files.items():
    for option in options:
        if not re.search(re.escape(form(option)) + r"(?![a-z-])", text):
            missing.append(f"{name}: --{option}")
    for provider in providers:
        if not re.search(r"(?<![a-z])" + provider + r"(?![a-z])", text):
            missing.append(f"{name}: provider {provider}")

if not options or not providers:
    sys.exit("could not read the options or providers from zot --help")
if missing:
    print("not documented (add them to the man page and completions):")
    for m in missing:
        print("  " + m)
    sys.exit(1)
print(f"ok: {len(options)} options and {len(providers)} providers in {len(files)} files")
