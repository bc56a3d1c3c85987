#!/usr/bin/env python3
"""Provider keys stay out of /proc/PID/environ and /proc/PID/cmdline.

Started as a user other than root (setpriv), as a tool's shell or an
extension would run, zot's environ must not be readable and its cmdline
must not show --api-key's value. The keys must still reach the provider
(from the environment, from --api-key and from --api-key-file) and an
extension the user granted one to.
"""

import http.server
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading

ZOT = os.environ["ZOT_BIN"]
ENV_KEY = "sk-secret-env"
ARGV_KEY = "sk-secret-argv"
FILE_KEY = "sk-secret-file"
failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)


def as_user(argv):
    """argv run as nobody when this test is root: as root every /proc
    file is readable and the test could not fail."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + argv


def environment(home, **extra):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(ZOT_HOME=home, HOME=home, LC_ALL="C")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.update(extra)
    return env


def read_as_user(path):
    """What the other user gets from @path: its bytes, or the error."""
    probe = ("import sys\n"
             "try:\n"
             "    sys.stdout.buffer.write(open(sys.argv[1], 'rb').read())\n"
             "except OSError as e:\n"
             "    print('ERROR', e.errno)\n")
    return subprocess.run(as_user([sys.executable, "-c", probe, path]),
                          capture_output=True, timeout=30).stdout


def test_proc_files(home):
    proc = subprocess.Popen(
        as_user([ZOT, "--api-key", ARGV_KEY, "--no-session", "rpc"]),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=environment(home, OPENAI_API_KEY=ENV_KEY), cwd=home)
    try:
        # An answer means main() is long past taking the keys.
        proc.stdin.write(b'{"type":"get_state","id":"1"}\n')
        proc.stdin.flush()
        line = proc.stdout.readline()
        check(b'"response"' in line, "zot rpc answers get_state: %r" % line[:80])

        pid = proc.pid
        cmdline = read_as_user("/proc/%d/cmdline" % pid)
        check(b"--api-key" in cmdline, "cmdline is readable and has --api-key")
        check(ARGV_KEY.encode() not in cmdline, "cmdline does not show --api-key's value")

        environ = read_as_user("/proc/%d/environ" % pid)
        check(ENV_KEY.encode() not in environ,
              "environ does not show the key to the same user: %r" % environ[:40])
        check(environ.startswith(b"ERROR"), "environ is not readable by the same user (undumpable)")

        if os.geteuid() == 0:
            # Root still reads it: the bytes themselves are gone.
            with open("/proc/%d/environ" % pid, "rb") as f:
                check(ENV_KEY.encode() not in f.read(), "environ's bytes no longer hold the key")
    finally:
        proc.stdin.close()
        status = proc.wait(timeout=60)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    check(status == 0, "zot rpc exits 0 when stdin closes: %d %r" % (status, err[-300:]))


class Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Recorder.seen.append(self.headers.get("Authorization"))
        body = json.dumps({"error": {"message": "recorded"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_key_reaches_provider(home):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/v1" % server.server_address[1]
    key_file = os.path.join(home, "key")
    with open(key_file, "w") as f:
        f.write(FILE_KEY + "\n")
    os.chmod(key_file, 0o600)
    if os.geteuid() == 0:
        shutil.chown(key_file, "nobody")

    def run(extra, **env):
        Recorder.seen.clear()
        result = subprocess.run(
            as_user([ZOT, "--provider", "openai", "--base-url", url, "--no-session"] + extra + ["-p", "hi"]),
            capture_output=True, env=environment(home, **env), cwd=home, timeout=60)
        return result, list(Recorder.seen)

    _, seen = run([], OPENAI_API_KEY=ENV_KEY)
    check(seen[:1] == ["Bearer " + ENV_KEY], "the environment's key reaches the provider: %r" % seen)
    _, seen = run(["--api-key", ARGV_KEY])
    check(seen[:1] == ["Bearer " + ARGV_KEY], "--api-key reaches the provider: %r" % seen)
    _, seen = run(["--api-key-file", key_file], OPENAI_API_KEY=ENV_KEY)
    check(seen[:1] == ["Bearer " + FILE_KEY], "--api-key-file reaches the provider: %r" % seen)
    _, seen = run(["--api-key-file=key"])
    check(seen[:1] == ["Bearer " + FILE_KEY], "--api-key-file=RELATIVE reaches the provider: %r" % seen)

    result, seen = run(["--api-key-file", os.path.join(home, "missing")])
    err = result.stderr.decode()
    check(result.returncode == 2 and not seen, "a missing key file is a usage error: %d" % result.returncode)
    check(err.startswith("zot: --api-key-file ") and "missing" in err and err.count("\n") == 1,
          "one line naming the file: %r" % err)
    with open(key_file, "w") as f:
        f.write("\n")
    result, seen = run(["--api-key-file", key_file])
    check(result.returncode == 2 and "empty" in result.stderr.decode(), "an empty key file is refused")
    server.shutdown()
    server.server_close()


def test_granted_key(home):
    """A key granted to an extension still reaches it, from the copy
    zot took of its environment; an ungranted one does not."""
    ext = os.path.join(home, "needy")
    env_file = os.path.join(home, "env.txt")
    os.mkdir(ext)
    with open(os.path.join(ext, "extension.json"), "w") as f:
        json.dump({"name": "needy", "exec": os.environ["ZOT_FAKE_EXTENSION"],
                   "args": ["--name", "needy", "--env-file", env_file],
                   "env": ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]}, f)
    if os.geteuid() == 0:
        shutil.chown(ext, "nobody")
    env = environment(home, OPENAI_API_KEY=ENV_KEY, ANTHROPIC_API_KEY="sk-ungranted")
    subprocess.run(as_user([ZOT, "ext", "allow-key", "needy", "OPENAI_API_KEY"]),
                   env=env, cwd=home, check=True, capture_output=True, timeout=60)
    result = subprocess.run(as_user([ZOT, "--provider", "demo", "--no-session", "--ext", ext, "-p", "/help"]),
                            env=env, cwd=home, capture_output=True, timeout=60)
    check(result.returncode == 0, "zot -p /help with the extension: %r" % result.stderr[-200:])
    with open(env_file) as f:
        lines = f.read().splitlines()
    check("OPENAI_API_KEY=" + ENV_KEY in lines, "the granted key reaches the extension")
    check(not any("sk-ungranted" in line for line in lines), "the ungranted key does not")


def main():
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        print("SKIP: setpriv (util-linux) is missing: cannot run zot as another user")
        return 77
    home = tempfile.mkdtemp(prefix="zot-secrets-")
    try:
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(home, nobody.pw_uid, nobody.pw_gid)
        test_proc_files(home)
        test_key_reaches_provider(home)
        test_granted_key(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
