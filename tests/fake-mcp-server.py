#!/usr/bin/env python3
"""A fake MCP server over stdio for tests/test-mcp.c.

Usage: fake-mcp-server.py MODE. Every mode answers initialize and lists
its tools (two pages) except "silent"; they differ in how tools/call goes:
  normal   answers: echo repeats "text", fail is an error, picture an image
  hangs    never answers a call
  crash    writes to stderr and exits with status 3 in the middle of a call
  big      answers a call with a 10 MiB line
  invalid  answers a call with a line that is not JSON, then JSON-RPC 1.0
  silent   never answers initialize
  dies     writes to stderr and exits with status 4 before reading anything
  notools  offers no tools (and fails tools/list, as such servers may)
  sized-N  answers a call with a line of N bytes: "edge", padded with spaces
  loud     like crash, after more than 2 KiB of stderr
  many     lists $FAKE_MCP_TOOLS tools on one page, t1 to tN
  endless  lists one tool a page, tN on page N, with a next page always
  changing lists echo, fail, picture and change on one page; calling change
           drops fail, adds added, gives echo a description naming the
           listing, and says its tools changed "times" times
  annotated  lists tools with MCP's annotations (readOnlyHint, destructiveHint)
  progress slow sends notifications/progress for each of "steps" (the
           call's progressToken unless a step names its "token")
  shifting offers resources (fake://one), a template (fake://notes/{id}) and
           prompts (greet, bye); calling shift swaps fake://one for
           fake://two and fake://three, drops bye, adds welcome, renames greet's
           argument who to name, and says its resources and prompts changed
           "times" times each ($FAKE_MCP_RESOURCES resources when set; a
           read answers $FAKE_MCP_READ_BYTES bytes of text when set)

Echo of "$NAME" answers that variable's value, of "<PATH" that file's text.
Each request it gets is appended to $FAKE_MCP_LOG when set.
"""
import json
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else 'normal'
LONG = 'a_tool_whose_name_is_much_too_long_for_the_host_' + 'x' * 30

TOOLS = [
    {'name': 'echo', 'description': 'Repeats text',
     'inputSchema': {'type': 'object', 'properties': {'text': {'type': 'string'}}, 'required': ['text']},
     'outputSchema': {'type': 'object', 'properties': {'echoed': {'type': 'string'}}}},
    {'name': 'fail', 'description': 'Always fails', 'inputSchema': {'type': 'object'}},
    {'name': 'picture', 'description': 'A one-pixel image', 'inputSchema': {'type': 'object'}},
    {'name': 'dotted.name', 'description': 'A name the host must sanitize', 'inputSchema': {'type': 'object'}},
    {'name': LONG, 'description': 'A name the host must cut', 'inputSchema': {'type': 'object'}},
    {'name': 'dotted_name', 'description': 'Named as dotted.name is once sanitized', 'inputSchema': {'type': 'object'}},
]


ANNOTATED = [
    {'name': 'look', 'annotations': {'readOnlyHint': True}},
    {'name': 'add', 'annotations': {'readOnlyHint': False, 'destructiveHint': False}},
    {'name': 'wipe'},
    {'name': 'erase', 'annotations': {'destructiveHint': True, 'title': 'Erase'}},
    {'name': 'odd', 'annotations': {'readOnlyHint': True, 'destructiveHint': True}},
]
STATE = {'changed': False, 'lists': 0}


def changing_tools():
    tools = [{'name': 'echo', 'description': 'Repeats text', 'inputSchema': {'type': 'object'}},
             {'name': 'picture', 'description': 'A one-pixel image', 'inputSchema': {'type': 'object'}},
             {'name': 'change', 'description': 'Changes the tools', 'inputSchema': {'type': 'object'}}]
    if STATE['changed']:
        tools[0]['description'] = 'Repeats text, listing %d' % STATE['lists']
        tools.append({'name': 'added', 'description': 'Came later', 'inputSchema': {'type': 'object'}})
    else:
        tools.append({'name': 'fail', 'description': 'Always fails', 'inputSchema': {'type': 'object'}})
    return tools


def shifting_resources():
    if 'FAKE_MCP_RESOURCES' in os.environ:
        return [{'uri': 'fake://r%d' % n, 'name': 'r%d' % n} for n in range(1, int(os.environ['FAKE_MCP_RESOURCES']) + 1)]
    if STATE['changed']:
        return [{'uri': 'fake://two', 'name': 'two', 'mimeType': 'text/plain'},
                {'uri': 'fake://three', 'name': 'three', 'mimeType': 'text/plain'}]
    return [{'uri': 'fake://one', 'name': 'one', 'mimeType': 'text/plain', 'description': 'The first'}]


def shifting_prompts():
    who = [{'name': 'who', 'required': True}]
    if STATE['changed']:
        return [{'name': 'greet', 'description': 'Greets by name', 'arguments': [{'name': 'name', 'required': True}]},
                {'name': 'welcome', 'description': 'Welcomes'}]
    return [{'name': 'greet', 'description': 'Greets', 'arguments': who},
            {'name': 'bye', 'description': 'Says goodbye'}]


def shifting(request):
    method = request.get('method')
    params = request.get('params', {})
    if method == 'resources/list':
        return {'resources': shifting_resources()}
    if method == 'resources/templates/list':
        return {'resourceTemplates': [{'uriTemplate': 'fake://notes/{id}', 'name': 'note', 'description': 'A note by id'}]}
    if method == 'resources/read':
        uri = params.get('uri', '')
        text = 'note ' + uri[len('fake://notes/'):] if uri.startswith('fake://notes/') else 'contents of ' + uri
        if 'FAKE_MCP_READ_BYTES' in os.environ:
            text = 'x' * int(os.environ['FAKE_MCP_READ_BYTES'])
        return {'contents': [{'uri': uri, 'mimeType': 'text/plain', 'text': text}]}
    if method == 'prompts/list':
        return {'prompts': shifting_prompts()}
    if method == 'prompts/get':
        args = params.get('arguments', {})
        return {'messages': [{'role': 'user', 'content': {'type': 'text', 'text': '%s %s' % (params.get('name'), args.get('who', args.get('name', '')))}}]}
    return None


def send(message):
    sys.stdout.write(json.dumps(message) + '\n')
    sys.stdout.flush()


def log(message):
    path = os.environ.get('FAKE_MCP_LOG')
    if path:
        with open(path, 'a') as f:
            f.write(json.dumps(message) + '\n')


def call(request):
    params = request.get('params', {})
    name = params.get('name')
    args = params.get('arguments', {})
    if MODE == 'hangs':
        return None
    if MODE == 'loud':
        sys.stderr.write('a' * 3000 + '\n' + 'b' * 100 + '\nfinal words\n')
        sys.stderr.flush()
        os._exit(3)
    if MODE.startswith('sized-'):
        head = json.dumps({'jsonrpc': '2.0', 'id': request['id'],
                           'result': {'content': [{'type': 'text', 'text': 'edge'}]}})
        sys.stdout.write(head[:-1] + ' ' * (int(MODE[6:]) - len(head)) + '}\n')
        sys.stdout.flush()
        return None
    if MODE == 'crash':
        sys.stderr.write('fake-mcp-server: crashing in the middle of a call\n')
        sys.stderr.flush()
        os._exit(3)
    if MODE == 'big':
        return {'content': [{'type': 'text', 'text': 'x' * (10 * 1024 * 1024)}]}
    if MODE == 'invalid':
        sys.stdout.write('this is not json\n')
        send({'jsonrpc': '1.0', 'id': request['id'], 'result': 'not an object'})
        return None
    if MODE == 'shifting' and name == 'shift':
        STATE['changed'] = True
        for _ in range(args.get('times', 1)):
            send({'jsonrpc': '2.0', 'method': 'notifications/resources/list_changed'})
            send({'jsonrpc': '2.0', 'method': 'notifications/prompts/list_changed'})
        return {'content': [{'type': 'text', 'text': 'shifted'}]}
    if MODE == 'changing' and name == 'change':
        STATE['changed'] = True
        for _ in range(args.get('times', 1)):
            send({'jsonrpc': '2.0', 'method': 'notifications/tools/list_changed'})
        return {'content': [{'type': 'text', 'text': 'changed'}]}
    if MODE == 'progress':
        token = params.get('_meta', {}).get('progressToken')
        for step in args.get('steps', []):
            step = dict(step)
            step.setdefault('token', token)
            step['progressToken'] = step.pop('token')
            send({'jsonrpc': '2.0', 'method': 'notifications/progress', 'params': step})
        return {'content': [{'type': 'text', 'text': 'done'}]}
    if name == 'echo':
        text = args.get('text', '')
        if text.startswith('$'):
            text = os.environ.get(text[1:], '(unset)')
        elif text.startswith('<'):
            try:
                with open(text[1:]) as f:
                    text = f.read()
            except OSError as e:
                text = 'cannot read: ' + e.strerror
        return {'content': [{'type': 'text', 'text': text}, {'type': 'text', 'text': '(echoed)'}],
                'structuredContent': {'echoed': text}}
    if name == 'fail':
        return {'content': [{'type': 'text', 'text': 'it failed on purpose'}], 'isError': True}
    if name == 'picture':
        return {'content': [{'type': 'image', 'mimeType': 'image/png', 'data': 'iVBORw0KGgo='}]}
    return {'content': [{'type': 'text', 'text': 'called ' + name}]}


def main():
    if MODE == 'dies':
        sys.stderr.write('fake-mcp-server: cannot start: no such database\n')
        sys.exit(4)
    for line in sys.stdin:
        request = json.loads(line)
        log(request)
        method = request.get('method')
        if 'id' not in request:
            continue
        if method == 'initialize':
            if MODE == 'silent':
                continue
            capabilities = {} if MODE == 'notools' else {'tools': {'listChanged': MODE == 'changing'}}
            if MODE == 'shifting':
                capabilities['resources'] = {'listChanged': True}
                capabilities['prompts'] = {'listChanged': True}
            send({'jsonrpc': '2.0', 'id': request['id'], 'result': {
                'protocolVersion': request['params']['protocolVersion'],
                'capabilities': capabilities,
                'serverInfo': {'name': 'fake', 'version': '1'},
                'instructions': 'Fake server instructions.'}})
        elif method == 'tools/list' and MODE != 'notools':
            cursor = request.get('params', {}).get('cursor')
            if MODE == 'changing':
                STATE['lists'] += 1
                page = {'tools': changing_tools()}
            elif MODE == 'annotated':
                page = {'tools': [dict(t, inputSchema={'type': 'object'}) for t in ANNOTATED]}
            elif MODE == 'progress':
                page = {'tools': [{'name': 'slow', 'inputSchema': {'type': 'object'}}]}
            elif MODE == 'shifting':
                page = {'tools': [{'name': 'shift', 'inputSchema': {'type': 'object'}}]}
            elif MODE == 'many':
                page = {'tools': [{'name': 't%d' % n, 'inputSchema': {'type': 'object'}} for n in range(1, int(os.environ['FAKE_MCP_TOOLS']) + 1)]}
            elif MODE == 'endless':
                n = 1 if cursor is None else int(cursor.split('-')[1])
                page = {'tools': [{'name': 't%d' % n, 'inputSchema': {'type': 'object'}}],
                        'nextCursor': 'page-%d' % (n + 1)}
            elif cursor is None:
                page = {'tools': TOOLS[:2], 'nextCursor': 'page-2'}
            else:
                page = {'tools': TOOLS[2:]}
            send({'jsonrpc': '2.0', 'id': request['id'], 'result': page})
        elif MODE == 'shifting' and shifting(request) is not None:
            send({'jsonrpc': '2.0', 'id': request['id'], 'result': shifting(request)})
        elif method == 'tools/call':
            result = call(request)
            if result is not None:
                send({'jsonrpc': '2.0', 'id': request['id'], 'result': result})
        else:
            send({'jsonrpc': '2.0', 'id': request['id'], 'error': {'code': -32601, 'message': 'no ' + method}})


if __name__ == '__main__':
    main()
