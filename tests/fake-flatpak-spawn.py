#!/usr/bin/env python3
"""A stand-in for `flatpak-spawn --host` in the tests.

It accepts the options zot passes (--host or --sandbox, --no-network,
--watch-bus, --clear-env, --directory=, --env=, --unset-env=,
--forward-fd=, then "--" and the command), appends one JSON line
describing the call to $ZOT_FAKE_FLATPAK_SPAWN_LOG, and runs the command
the way Flatpak's session helper does: in a session and process group of
its own, in the given directory, with the given variables set or unset,
and with only the descriptors it was told to forward beyond stdin, stdout
and stderr.
Like the real one it passes its stdin, stdout and stderr on, forwards
SIGHUP, SIGQUIT, SIGTERM, SIGUSR1 and SIGUSR2 to the command and SIGINT to
its whole process group, and exits with the command's status, or 128 + N
when signal N killed it. With --sandbox the command runs here, unconfined:
only the options are checked, and --clear-env is honoured. With
$ZOT_FAKE_FLATPAK_SPAWN_FAIL set it fails as without the portal. With --watch-bus, a watcher sends SIGINT to the
command's process group when this process dies, however it dies (as the
session helper does when its caller drops off the bus).
"""

import json
import os
import signal
import sys

FORWARDED = [signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2]


def fail(message):
    sys.stderr.write("flatpak-spawn: %s\n" % message)
    sys.exit(1)


def parse(argv):
    options = {"host": False, "sandbox": False, "watch_bus": False, "clear_env": False,
               "directory": None, "env": {}, "unset": [], "fds": []}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        i += 1
        if arg == "--":
            break
        if arg == "--host":
            options["host"] = True
        elif arg == "--sandbox":
            options["sandbox"] = True
        elif arg == "--no-network":
            pass
        elif arg == "--clear-env":
            options["clear_env"] = True
        elif arg == "--watch-bus":
            options["watch_bus"] = True
        elif arg.startswith("--directory="):
            options["directory"] = arg[len("--directory="):]
        elif arg.startswith("--env="):
            name, eq, value = arg[len("--env="):].partition("=")
            if not name or not eq:
                fail("Invalid env format %s" % arg)
            options["env"][name] = value
        elif arg.startswith("--forward-fd="):
            fd = int(arg[len("--forward-fd="):])
            try:
                os.fstat(fd)
            except OSError:
                fail("Invalid fd %d" % fd)
            options["fds"].append(fd)
        elif arg.startswith("--unset-env="):
            options["unset"].append(arg[len("--unset-env="):])
        else:
            fail("unknown option %s" % arg)
    if options["host"] == options["sandbox"]:
        fail("give one of --host and --sandbox")
    if i >= len(argv):
        fail("No command specified")
    return options, argv[i:]


def watch(child_pid):
    """Forks a watcher that outlives us and ends the command if we die
    while it runs."""
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        os.close(write_end)
        os.setsid()
        # End of file without a word: whoever held the write end is gone.
        if os.read(read_end, 1) == b"":
            try:
                os.killpg(child_pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        os._exit(0)
    os.close(read_end)
    return write_end


def main():
    options, command = parse(sys.argv[1:])
    # As when the portal is not running on the host.
    if os.environ.get("ZOT_FAKE_FLATPAK_SPAWN_FAIL"):
        fail("Failed to connect to the Flatpak portal")

    env = {} if options["clear_env"] else dict(os.environ)
    for name in options["unset"]:
        env.pop(name, None)
    env.update(options["env"])

    started = {}
    pending = []

    def forward(signum, frame):
        if "child" not in started:
            pending.append(signum)
            return
        try:
            if signum == signal.SIGINT:
                os.killpg(started["child"], signum)
            else:
                os.kill(started["child"], signum)
        except ProcessLookupError:
            pass

    # Caught, not blocked: the command must not inherit a blocked mask.
    for signum in FORWARDED + [signal.SIGINT]:
        signal.signal(signum, forward)

    # The command waits at a gate until the call is in the log, so that
    # whoever reads the log after hearing from the command finds it there.
    gate_read, gate_write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(gate_write)
        os.setsid()
        os.read(gate_read, 1)
        try:
            if options["directory"] is not None:
                os.chdir(options["directory"])
            for name in os.listdir("/proc/self/fd"):
                if int(name) > 2 and int(name) not in options["fds"]:
                    try:
                        os.close(int(name))
                    except OSError:
                        pass
            for fd in options["fds"]:
                os.set_inheritable(fd, True)
            os.execvpe(command[0], command, env)
        except OSError as error:
            sys.stderr.write("flatpak-spawn: Portal call failed: %s\n" % error)
        os._exit(127)
    os.close(gate_read)
    started["child"] = child

    log = os.environ.get("ZOT_FAKE_FLATPAK_SPAWN_LOG")
    if log:
        with open(log, "a") as out:
            out.write(json.dumps({"argv": sys.argv[1:], "directory": options["directory"],
                                  "host_pid": child}) + "\n")
    os.write(gate_write, b"x")
    os.close(gate_write)

    watcher = watch(child) if options["watch_bus"] else None

    for signum in pending:
        forward(signum, None)

    _, wait_status = os.waitpid(child, 0)
    # The real flatpak-spawn keeps its handlers until it has exited, so a
    # signal that comes while it exits is caught. Python puts the default
    # dispositions back while it shuts down, and a SIGTERM sent right
    # behind a SIGINT would then kill us and hide the host's status: block
    # them and leave without the interpreter's shutdown.
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED + [signal.SIGINT])
    status = os.waitstatus_to_exitcode(wait_status)
    if watcher is not None:
        os.write(watcher, b"x")
        os.close(watcher)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
