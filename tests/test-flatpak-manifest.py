#!/usr/bin/env python3
"""Checks flatpak/dev.zot.Zot.json against the tree it builds.

No runtime can be downloaded where the tests run, so the manifest is read
instead of built: valid JSON; the application id and command the meson
build makes; the finish-args the sandboxed host needs (and none it must
not have); every source pinned (a git source by tag and commit, an archive
or file by sha256, a directory inside the checkout); the app built with
meson and its tests run; and every library the meson build asks for either
in the GNOME runtime or built by a module.

Usage: test-flatpak-manifest.py SOURCE_ROOT
"""

import json
import os
import re
import sys

# What org.gnome.Platform ships, by pkg-config name.
IN_RUNTIME = {
    "glib-2.0", "gio-2.0", "gio-unix-2.0", "json-glib-1.0", "libsoup-3.0", "gtk4",
    "libadwaita-1", "gtksourceview-5", "libsecret-1", "libarchive",
}
# What the manifest's own modules build, by pkg-config name: any of the
# modules will do (meson.build falls back to plain cmark only when
# cmark-gfm is missing).
FROM_MODULE = {"libcmark-gfm": ("cmark-gfm",), "libcmark": ("cmark-gfm", "cmark")}

REQUIRED_ARGS = {
    # flatpak-spawn --host: extensions, bash and git run on the host.
    "--talk-name=org.freedesktop.Flatpak",
    # Model providers.
    "--share=network",
    # Projects anywhere, at the same paths inside and out (host programs
    # get --directory with the sandbox's path).
    "--filesystem=host",
    # $ZOT_HOME, shared with the command-line zot.
    "--filesystem=~/.local/state/zot:create",
    "--socket=wayland",
    "--socket=fallback-x11",
    "--share=ipc",
}
FORBIDDEN_ARGS = {"--socket=x11", "--device=all", "--talk-name=org.freedesktop.DBus",
                  "--socket=session-bus", "--socket=system-bus"}

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def meson_app_id(root):
    text = open(os.path.join(root, "meson.build")).read()
    match = re.search(r"app_id = get_option\('devel'\) \? '[^']*' : '([^']*)'", text)
    return match.group(1) if match else None


def meson_executable(root):
    text = open(os.path.join(root, "src", "meson.build")).read()
    match = re.search(r"executable\('([^']+)'", text)
    return match.group(1) if match else None


def meson_dependencies(root):
    text = open(os.path.join(root, "meson.build")).read()
    return set(re.findall(r"dependency\('([^']+)'", text))


def check_source(module, source, manifest_dir):
    kind = source.get("type")
    where = "module %s, %s source" % (module, kind)
    if kind == "git":
        check("tag" in source, where + ": no tag")
        check(re.fullmatch(r"[0-9a-f]{40}", source.get("commit", "")) is not None,
              where + ": commit is not a 40-digit hash")
        check("branch" not in source, where + ": pinned by tag and commit, not a branch")
    elif kind in ("archive", "file"):
        check(re.fullmatch(r"[0-9a-f]{64}", source.get("sha256", "")) is not None,
              where + ": no sha256")
    elif kind in ("dir", "patch"):
        path = os.path.normpath(os.path.join(manifest_dir, source.get("path", "")))
        check(os.path.exists(path), where + ": %s does not exist" % path)
    else:
        failures.append(where + ": cannot be pinned; use git, archive, file, dir or patch")


def walk_modules(modules, manifest_dir, names):
    for module in modules:
        check(isinstance(module, dict), "a module is given by file name; inline it")
        if not isinstance(module, dict):
            continue
        name = module.get("name", "?")
        names.append(name)
        check(module.get("sources"), "module %s has no sources" % name)
        for source in module.get("sources", []):
            check_source(name, source, manifest_dir)
        walk_modules(module.get("modules", []), manifest_dir, names)


def main():
    root = sys.argv[1]
    manifest_dir = os.path.join(root, "flatpak")
    path = os.path.join(manifest_dir, "dev.zot.Zot.json")

    try:
        manifest = json.load(open(path))
    except ValueError as error:
        print("not ok - %s is not valid JSON: %s" % (path, error))
        return 1

    check(manifest.get("id") == meson_app_id(root),
          "id %r is not meson's app id %r" % (manifest.get("id"), meson_app_id(root)))
    check(manifest.get("command") == meson_executable(root),
          "command %r is not the executable %r" % (manifest.get("command"), meson_executable(root)))
    check(manifest.get("runtime") == "org.gnome.Platform", "runtime is not org.gnome.Platform")
    check(manifest.get("sdk") == "org.gnome.Sdk", "sdk is not org.gnome.Sdk")
    check(re.fullmatch(r"\d+", str(manifest.get("runtime-version", ""))) is not None,
          "runtime-version is not a GNOME release number")

    args = manifest.get("finish-args", [])
    for arg in sorted(REQUIRED_ARGS - set(args)):
        failures.append("finish-args lacks %s" % arg)
    for arg in sorted(FORBIDDEN_ARGS & set(args)):
        failures.append("finish-args has %s" % arg)
    check(len(args) == len(set(args)), "finish-args repeats an entry")

    names = []
    walk_modules(manifest.get("modules", []), manifest_dir, names)

    app = manifest.get("modules", [{}])[-1]
    check(app.get("name") == "zot", "the last module is not zot")
    check(app.get("buildsystem") == "meson", "zot is not built with meson")
    check(app.get("run-tests") is True, "zot's tests do not run in the build")
    check({"type": "dir", "path": ".."} in app.get("sources", []),
          "zot is not built from this checkout (a dir source with path \"..\")")
    check(any("--no-suite gui" in command for command in app.get("test-commands", [])),
          "the build's tests do not leave out the GUI suite, which needs a display")

    for dependency in sorted(meson_dependencies(root)):
        if dependency in IN_RUNTIME:
            check(not set(FROM_MODULE.get(dependency, ())) & set(names),
                  "%s is in the runtime; drop its module" % dependency)
        elif dependency in FROM_MODULE:
            check(set(FROM_MODULE[dependency]) & set(names),
                  "%s needs the module %s" % (dependency, FROM_MODULE[dependency][0]))
        else:
            failures.append("meson.build needs %s: say whether the runtime has it or add a module"
                            % dependency)

    for failure in failures:
        print("not ok - %s" % failure)
    if not failures:
        print("ok - %s: %d modules, all sources pinned" % (path, len(names)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
