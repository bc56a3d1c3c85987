# A PyGObject extension on libzot-ext through GObject Introspection,
# the same as gjs-echo.js. Run by test-zot-ext (/sdk-c/pygobject/echo).
import json
import sys

import gi

gi.require_version('ZotExt', '1')
from gi.repository import GLib, ZotExt  # noqa: E402

SCHEMA = json.dumps({'type': 'object', 'properties': {'text': {'type': 'string'}}})

ext = ZotExt.Extension.new('pygobject-echo', '1.0.0')
ext.add_tool('echo', 'Echo text', SCHEMA, ZotExt.ToolFlags.NONE)
ext.add_tool('later', 'Echo text on the next idle', SCHEMA, ZotExt.ToolFlags.NONE)
ext.add_tool('throws', 'Always raises', '{"type":"object"}', ZotExt.ToolFlags.NONE)


def on_echo(_ext, invocation):
    print('stray output')  # run() points stdout at stderr
    invocation.return_text(json.loads(invocation.get_args_json())['text'])
    return True


def on_later(_ext, invocation):
    def answer():
        invocation.return_structured('later', json.dumps({'ok': True}))
        return GLib.SOURCE_REMOVE
    GLib.idle_add(answer)
    return True


def on_throws(_ext, invocation):
    raise RuntimeError('boom')


ext.connect('tool-call::echo', on_echo)
ext.connect('tool-call::later', on_later)
ext.connect('tool-call::throws', on_throws)
sys.exit(ext.run())
