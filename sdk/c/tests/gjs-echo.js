// A gjs extension on libzot-ext through GObject Introspection.
// Run by test-zot-ext (/sdk-c/gjs/echo) with GI_TYPELIB_PATH and
// LD_LIBRARY_PATH pointing into the build directory.
imports.gi.versions.ZotExt = '1';
const {GLib, ZotExt} = imports.gi;
const System = imports.system;

const ext = ZotExt.Extension.new('gjs-echo', '1.0.0');
const schema = JSON.stringify({type: 'object', properties: {text: {type: 'string'}}});

ext.add_tool('echo', 'Echo text', schema, ZotExt.ToolFlags.NONE);
ext.connect('tool-call::echo', (_ext, invocation) => {
    // run() points stdout at stderr: a stray print cannot reach the wire,
    // where the test host would fail on a line that is not JSON.
    print('stray output');
    const args = JSON.parse(invocation.get_args_json());
    invocation.return_text(args.text);
    return true;
});

// Answered later, from the main loop: the invocation outlives the handler.
ext.add_tool('later', 'Echo text on the next idle', schema, ZotExt.ToolFlags.NONE);
ext.connect('tool-call::later', (_ext, invocation) => {
    GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
        invocation.return_structured('later', JSON.stringify({ok: true}));
        return GLib.SOURCE_REMOVE;
    });
    return true;
});

// An exception becomes an error result naming the tool.
ext.add_tool('throws', 'Always throws', '{"type":"object"}', ZotExt.ToolFlags.NONE);
ext.connect('tool-call::throws', () => {
    throw new Error('boom');
});

try {
    ext.add_tool('bad name', '', '{}', ZotExt.ToolFlags.NONE);
} catch (e) {
    printerr(`registration refused: ${e.message}`);
}

System.exit(ext.run());
