#!/usr/bin/env python3
"""The README's whole extension works as shown.

Takes the Python block of the README's "Writing one" paragraph and the
extension.json it gives, puts them in a folder beside a copy of the SDK,
and runs `zot ext check` on it: a README whose example rotted fails
here. Prints TAP.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

source, zot = sys.argv[1], os.environ['ZOT_BIN']
readme = open(os.path.join(source, 'README.md'), encoding='utf-8').read()
section = readme[readme.index('**Writing one.**'):]
program = re.search(r'```python\n(.*?)```', section, re.S).group(1)
manifest = json.loads(re.search(r'With `(\{.*?\})` as its', section, re.S).group(1))

print('1..1')
with tempfile.TemporaryDirectory() as folder:
    shutil.copy(os.path.join(source, 'sdk', 'python', 'zotext.py'), folder)
    with open(os.path.join(folder, manifest['args'][0]), 'w', encoding='utf-8') as f:
        f.write(program)
    with open(os.path.join(folder, 'extension.json'), 'w', encoding='utf-8') as f:
        json.dump(manifest, f)
    done = subprocess.run([zot, 'ext', 'check', folder], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, ZOT_HOME=os.path.join(folder, 'home')))
    good = done.returncode == 0 and 'tool greet: Hello, world!' in done.stdout
    print(f'{"ok" if good else "not ok"} 1 - the README\'s extension passes zot ext check')
    if not good:
        for line in (done.stdout + done.stderr).splitlines():
            print(f'# {line}')
sys.exit(0 if good else 1)
