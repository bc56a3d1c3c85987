"""A fake host for the tests: it speaks the protocol over OS pipes with an
Extension running in a thread, or with an extension subprocess.

Every wait has a deadline; nothing sleeps to synchronise.
"""

import json
import os
import queue
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(HERE)
sys.path.insert(0, SDK)

import zotext  # noqa: E402

# Generous: the machine is shared and loaded; a passing test never waits it out.
DEADLINE = 20.0


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class LogSink:
    """A stderr stand-in whose lines a test can wait for."""

    def __init__(self):
        self._cv = threading.Condition()
        self._text = ""

    def write(self, s):
        with self._cv:
            self._text += s
            self._cv.notify_all()

    def flush(self):
        pass

    @property
    def text(self):
        with self._cv:
            return self._text

    def wait_for(self, needle, timeout=DEADLINE):
        with self._cv:
            if not self._cv.wait_for(lambda: needle in self._text, timeout):
                raise AssertionError("log never said %r; it has:\n%s" % (needle, self._text))


class Host:
    """The host's end of the two pipes."""

    def __init__(self, to_ext, from_ext):
        self.to_ext = to_ext
        self.from_ext = from_ext
        self.frames = queue.Queue()
        self.seen = []  # every frame received, in order
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self.from_ext, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.frames.put(None)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.frames.put(json.loads(line))

    def send(self, frame):
        write_all(self.to_ext, json.dumps(frame).encode() + b"\n")

    def send_raw(self, data):
        write_all(self.to_ext, data)

    def close_input(self):
        if self.to_ext is not None:
            os.close(self.to_ext)
            self.to_ext = None

    def recv(self, timeout=DEADLINE):
        try:
            f = self.frames.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no frame within %g s; seen: %r" % (timeout, self.seen[-10:]))
        if f is None:
            self.frames.put(None)  # stays at end of output
            raise AssertionError("the extension closed its output; seen: %r" % (self.seen[-10:],))
        self.seen.append(f)
        return f

    def expect(self, type_, **match):
        """The next frame of ``type_`` whose fields equal ``match``; frames
        before it are kept in ``seen``."""
        while True:
            f = self.recv()
            if f.get("type") == type_ and all(f.get(k) == v for k, v in match.items()):
                return f

    def expect_eof(self):
        while True:
            try:
                f = self.frames.get(timeout=DEADLINE)
            except queue.Empty:
                raise AssertionError("the extension did not close its output")
            if f is None:
                self.frames.put(None)
                return
            self.seen.append(f)

    def handshake(self, caps=("call_tool",), **ack):
        hello = self.recv()
        assert hello["type"] == "hello", hello
        frame = {"type": "hello_ack", "protocol_version": 1, "zot_version": "test",
                 "cwd": "/tmp", "capabilities": list(caps)}
        frame.update(ack)
        self.send(frame)
        regs = []
        while True:
            f = self.recv()
            if f["type"] == "ready":
                self.seen = []  # the tests look at what follows
                return hello, regs
            regs.append(f)

    def ping(self, n=[0]):
        """A round trip through the extension's read loop and a worker:
        answered after every frame sent before it was read. Needs the
        extension to have the tool ``ping``."""
        n[0] += 1
        cid = "ping-%d" % n[0]
        self.send({"type": "tool_call", "id": cid, "name": "ping", "args": {}})
        return self.expect("tool_result", id=cid)

    def frames_for(self, id_):
        return [f for f in self.seen if f.get("id") == id_]


class ThreadHost(Host):
    """An Extension's run() in a thread of this process."""

    def __init__(self, ext):
        h_to_e_r, h_to_e_w = os.pipe()
        e_to_h_r, e_to_h_w = os.pipe()
        self.ext = ext
        self.status = None
        self._ext_fds = (h_to_e_r, e_to_h_w)
        self._thread = threading.Thread(target=self._run, daemon=True)
        super().__init__(h_to_e_w, e_to_h_r)
        self._thread.start()

    def _run(self):
        r, w = self._ext_fds
        try:
            self.status = self.ext.run(r, w)
        finally:
            os.close(w)
            os.close(r)

    def wait_exit(self):
        self._thread.join(DEADLINE)
        if self._thread.is_alive():
            raise AssertionError("run() did not return")
        return self.status

    def close(self):
        self.close_input()
        self._thread.join(DEADLINE)
        # The reader must be done before its descriptor is closed: a new
        # pipe may get the same number and the old reader would steal it.
        self._reader.join(DEADLINE)
        if not self._reader.is_alive():
            os.close(self.from_ext)


class ProcessHost(Host):
    """An extension subprocess, as the host runs it."""

    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        self.log = LogSink()
        self._err = threading.Thread(target=self._drain, daemon=True)
        self._err.start()
        super().__init__(self.proc.stdin.fileno(), self.proc.stdout.fileno())

    def _drain(self):
        for line in self.proc.stderr:
            self.log.write(line.decode("utf-8", "replace"))

    def close_input(self):
        if self.to_ext is not None:
            self.proc.stdin.close()
            self.to_ext = None

    def wait_exit(self):
        try:
            return self.proc.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the extension did not exit")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.close_input()
        self._reader.join(DEADLINE)
        self._err.join(DEADLINE)
        self.proc.stdout.close()
        self.proc.stderr.close()
