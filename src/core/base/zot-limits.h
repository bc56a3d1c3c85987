/* zot-limits.h — every number of the extension protocol, in one place.
 *
 * The values come from spec/PROTOCOL.md. Deadlines are read through
 * zot_timeout_get_ms() so that tests can shorten them instead of sleeping;
 * the constants themselves never change at run time.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ZOT_PROTOCOL_VERSION               1

/* §0 framing */
#define ZOT_FRAME_MAX_BYTES                ((gsize) 4 * 1024 * 1024)
#define ZOT_QUEUE_MAX_FRAMES               256
#define ZOT_QUEUE_MAX_BYTES                ((gsize) 16 * 1024 * 1024)

/* §0 deadlines, in milliseconds */
#define ZOT_WRITE_TIMEOUT_MS               5000
#define ZOT_HELLO_TIMEOUT_MS               10000
#define ZOT_REGISTRATION_IDLE_MS           250
#define ZOT_REGISTRATION_MAX_MS            3000
#define ZOT_COMMAND_TIMEOUT_MS             30000
#define ZOT_TOOL_TIMEOUT_MS                60000
#define ZOT_INTERCEPT_TIMEOUT_MS           5000
#define ZOT_BEFORE_AGENT_START_TIMEOUT_MS  5000
#define ZOT_CALL_TOOL_TIMEOUT_MS           60000
#define ZOT_SHUTDOWN_GRACE_MS              2000
#define ZOT_SIGTERM_GRACE_MS               1000
#define ZOT_SUBAGENT_SHUTDOWN_WAIT_MS      2000  /* §6: shutdown waits for swarm runners */
/* After an extension exits, what it wrote before is still read, until the
 * end of its output or this long (a child of its own may hold the pipe). */
#define ZOT_EXIT_DRAIN_MS                  1000
/* A turn stopped so that another conversation can start has this long to
 * end (its tools get the cancel first) before the switch gives up. */
#define ZOT_STOP_TURN_TIMEOUT_MS           10000

/* §0 sizes beyond framing */
#define ZOT_SYSTEM_PROMPT_MAX_BYTES        ((gsize) 1024 * 1024)
#define ZOT_OBSERVATION_MAX_BYTES          ((gsize) 256 * 1024)
#define ZOT_OBSERVATION_MAX_BLOCKS         128
#define ZOT_TOOL_CHAIN_MAX_CALLS           4
#define ZOT_DURABLE_KEY_MAX_BYTES          128

/* JSON from outside (frames, model streams, RPC, files) nests at most this
 * deep: json-glib's parser recurses per level, and a line of brackets far
 * under the frame limit would overflow the stack. A session record wraps
 * what was accepted (a message around tool arguments) and may nest a few
 * levels deeper. */
#define ZOT_JSON_MAX_DEPTH                 256
#define ZOT_SESSION_JSON_MAX_DEPTH         (ZOT_JSON_MAX_DEPTH + 16)
/* extension.json is read whole: a link to /dev/zero must not be. */
#define ZOT_MANIFEST_MAX_BYTES             ((gsize) 256 * 1024)
/* The host's record of an extension's last start, read back by ext list. */
#define ZOT_STATE_FILE_MAX_BYTES           ((gsize) 1024 * 1024)
/* --api-key-file: a key is a line; a link to /dev/zero must not be read
 * whole. */
#define ZOT_API_KEY_FILE_MAX_BYTES         ((gsize) 64 * 1024)
/* `zot ext secret set` reads at most this many bytes of value from stdin. */
#define ZOT_EXTENSION_SECRET_MAX_BYTES     ((gsize) 64 * 1024)

/* Names and registrations (zot-names.c): every provider accepts these
 * tool names; a flood of registrations is cut off with a clear error. */
#define ZOT_TOOL_NAME_MAX_CHARS            64
#define ZOT_COMMAND_NAME_MAX_CHARS         64
#define ZOT_EXTENSION_NAME_MAX_CHARS       128
#define ZOT_MAX_COMMANDS_PER_EXTENSION     1024
#define ZOT_MAX_TOOLS_PER_EXTENSION        1024
/* Names one tool_result's `activate_tools` may list; past that one log
 * line says so and the rest are ignored. */
#define ZOT_ACTIVATE_TOOLS_MAX_NAMES       256

/* Native panel widgets (PROTOCOL.md §10, docs/protocol.md "Panel
 * widgets"): a tree an extension sends is refused whole past these, with
 * one error row saying which cap it passed. The frame cap bounds the
 * `widgets` value as JSON (compact), well under a frame's 4 MiB so that a
 * list of 10,000 rows fits and a runaway one does not reach the window. */
#define ZOT_PANEL_WIDGETS_MAX_DEPTH        16
#define ZOT_PANEL_WIDGETS_MAX_NODES        2000
#define ZOT_PANEL_WIDGETS_MAX_BYTES        ((gsize) 2 * 1024 * 1024)
#define ZOT_PANEL_LIST_MAX_ROWS            20000
#define ZOT_PANEL_ROW_MAX_BUTTONS          4
#define ZOT_PANEL_DROPDOWN_MAX_OPTIONS     500
#define ZOT_PANEL_WIDGET_ID_MAX_BYTES      128
/* An image is a PNG of at most this many bytes, decoded. */
#define ZOT_PANEL_IMAGE_MAX_BYTES          ((gsize) 512 * 1024)
/* Any image the window shows (a panel's, the transcript's, a tool
 * result's) has at most this many pixels, read from its header before it
 * is decoded (4 bytes each: 64 MiB); a larger one is refused with a note. */
#define ZOT_IMAGE_MAX_PIXELS               ((guint64) 4096 * 4096)
/* A panel's text shows at most this many characters, the rest behind
 * "Show all"; a run of more than ZOT_TEXT_UNBROKEN_MAX_CHARS without white
 * space is wrapped by character. Pango's word-and-character wrapping of a
 * long unbroken run grows far faster than its length (50 KiB froze the
 * window for minutes). */
#define ZOT_PANEL_TEXT_SHOWN_MAX_CHARS     2048
#define ZOT_TEXT_UNBROKEN_MAX_CHARS        256
/* A tool call in the transcript (zot-tool-call-view.c) shows its first
 * ZOT_TOOL_VIEW_PREVIEW_LINES lines until "Show all"; all of it is at most
 * this many lines and bytes, each line cut at this many characters, so
 * that a call with a 5 MiB argument opens at once. An edit is diffed when
 * the lines left of its old and new text, once their common first and
 * last lines are set aside, are at most ZOT_DIFF_MAX_LINES together (the
 * diff keeps up to the square of that in 4-byte cells: 16 MiB); past that
 * it is "too large to diff". */
#define ZOT_TOOL_VIEW_PREVIEW_LINES        12
#define ZOT_TOOL_VIEW_MAX_LINES            2000
#define ZOT_TOOL_VIEW_MAX_BYTES            ((gsize) 256 * 1024)
#define ZOT_TOOL_VIEW_LINE_MAX_CHARS       1000
#define ZOT_DIFF_MAX_LINES                 2000
/* An entry's typing reaches the extension once it pauses this long. */
#define ZOT_PANEL_ENTRY_DEBOUNCE_MS        300
/* Problems of one tree written to the extension's log; the rest are counted. */
#define ZOT_PANEL_PROBLEMS_LOGGED          10

/* Watch mode (`--watch`, "Reload on change"): a burst of saves within
 * this long is one reload; at most this many directories of one
 * extension are watched (the rest are not, and a note says so); its
 * manifest's `build` must end within this long or is killed. */
#define ZOT_WATCH_DEBOUNCE_MS              150
#define ZOT_WATCH_MAX_DIRECTORIES          256
#define ZOT_BUILD_TIMEOUT_MS               120000
/* `zot ext install --build`: the manifest's `build` in the new copy must
 * end within this long (a first build compiles more than a rebuild does),
 * or is killed and nothing is installed. */
#define ZOT_INSTALL_BUILD_TIMEOUT_MS       600000

/* The supervisor (zot-manager-supervisor.c): an extension that stops
 * unexpectedly is started again after ZOT_RESTART_BACKOFF_MS, doubled for
 * each restart in a row, at most ZOT_RESTART_BACKOFF_MAX_MS; after
 * ZOT_RESTART_MAX_FAILURES crashes within ZOT_RESTART_WINDOW_MS it stays
 * down until the user restarts it. A run of restarts ends once it stayed
 * up for the window. */
#define ZOT_RESTART_BACKOFF_MS             1000
#define ZOT_RESTART_BACKOFF_MAX_MS         60000
#define ZOT_RESTART_MAX_FAILURES           5
#define ZOT_RESTART_WINDOW_MS              300000

/* The host's own numbers, beyond the protocol */
/* tool_confirmation_requested's tool_preview holds at most this many
 * characters of the command; a cut one says it is shortened and how long
 * the whole is. The desktop notification's body is cut at the same. */
#define ZOT_APPROVAL_PREVIEW_MAX_CHARS     200
/* A busy provider (408, 409, 429, 500, 502, 503, 504, 529, or a connection
 * reset or refused before any output) is asked again at most
 * ZOT_PROVIDER_MAX_RETRIES times (`--max-retries`, the "max-retries"
 * setting), all within ZOT_PROVIDER_RETRY_BUDGET_MS of the first try. The
 * waits double from ZOT_PROVIDER_RETRY_MS, up to ZOT_PROVIDER_RETRY_MAX_MS,
 * each stretched by up to ZOT_PROVIDER_RETRY_JITTER_PERCENT at random so
 * that clients do not come back in step; a Retry-After the server sends
 * replaces the computed wait, and one past the budget ends the turn. */
#define ZOT_PROVIDER_MAX_RETRIES           4
#define ZOT_PROVIDER_MAX_RETRIES_LIMIT     10
#define ZOT_PROVIDER_RETRY_MS              1000
#define ZOT_PROVIDER_RETRY_MAX_MS          60000
#define ZOT_PROVIDER_RETRY_BUDGET_MS       120000
#define ZOT_PROVIDER_RETRY_JITTER_PERCENT  25
#define ZOT_PROVIDER_IDLE_MS               120000
/* One model response: at most this long and this large, or the turn ends
 * with an error instead of a run (and a session line) that never ends. */
#define ZOT_PROVIDER_TOTAL_MS              900000
#define ZOT_PROVIDER_RESPONSE_MAX_BYTES    ((gsize) 16 * 1024 * 1024)
/* The reasoning (thinking) text of one model response, all its blocks
 * together: more ends the turn like an oversized response, since a
 * shortened Anthropic thinking block could not be sent back. */
#define ZOT_PROVIDER_REASONING_MAX_BYTES   ((gsize) 2 * 1024 * 1024)
/* The largest single server-sent event (its data lines together). */
#define ZOT_SSE_MAX_EVENT_BYTES            ((gsize) 8 * 1024 * 1024)
/* `zot models` and the model picker: the list endpoint answers within
 * this long and this large; a list longer than the cap is cut there and
 * says so. A provider's list is kept this many seconds before it is
 * asked for again. */
#define ZOT_MODEL_LIST_TIMEOUT_MS          15000
#define ZOT_MODEL_LIST_MAX_BYTES           ((gsize) 8 * 1024 * 1024)
#define ZOT_MODEL_LIST_MAX_MODELS          5000
#define ZOT_MODEL_LIST_CACHE_SECONDS       (24 * 60 * 60)
/* $ZOT_HOME/models.json: a larger file is not read, and at most this many
 * of its models are (the rest are named in one warning). */
#define ZOT_MODELS_FILE_MAX_BYTES          ((gsize) 1024 * 1024)
#define ZOT_MODELS_MAX_ENTRIES             2000
/* Automatic compaction's default: before a model call whose last input
 * passed this share of the model's context window, in percent. */
#define ZOT_AUTO_COMPACT_DEFAULT_PERCENT   85
/* The window waits this long for the keyring before it starts without. */
#define ZOT_KEYRING_WAIT_MS                3000
#define ZOT_BASH_TIMEOUT_MS                120000
#define ZOT_BASH_OUTPUT_MAX_BYTES          ((gsize) 256 * 1024)
#define ZOT_READ_MAX_BYTES                 ((gsize) 256 * 1024)
#define ZOT_READ_IMAGE_MAX_BYTES           ((gsize) 5 * 1024 * 1024)
/* The glob tool reads at most this many folder entries, this many
 * folders below the one searched, and lists at most this many files (the
 * newest); a note says which bound cut the answer short. */
#define ZOT_GLOB_MAX_ENTRIES               20000
#define ZOT_GLOB_MAX_DEPTH                 32
#define ZOT_GLOB_MAX_RESULTS               200
#define ZOT_DEFAULT_MAX_STEPS              50
/* A tool's progress line (RPC's tool_progress) is cut to this many bytes,
 * and one call reports at most this many lines, then one saying the rest
 * are left out: a command that prints without end cannot flood a client. */
#define ZOT_TOOL_PROGRESS_LINE_MAX_BYTES   ((gsize) 4096)
#define ZOT_TOOL_PROGRESS_MAX_LINES        1000
/* An extension's `tool_progress` frames for one call reach the window and
 * the event stream at most once per this many ms; the ones between are
 * coalesced to the latest, so a flood costs the extension, not the host. */
#define ZOT_TOOL_PROGRESS_INTERVAL_MS      100
/* `tool_progress` frames for calls that are unknown or over are logged this
 * many times per extension, then only counted. */
#define ZOT_TOOL_PROGRESS_STRAY_LOG_MAX    8
/* `zot rpc`: the longest command line is ZOT_FRAME_MAX_BYTES and the
 * deepest ZOT_JSON_MAX_DEPTH, as for frames; the version of the schema a
 * client reads in hello's protocol_version. */
#define ZOT_RPC_PROTOCOL_VERSION           1
/* Line numbers the one warning about a session's skipped lines names; the
 * rest are only counted. */
#define ZOT_SESSION_SKIPPED_LINES_NAMED    5
/* The conversation list reads this much of each session file for its
 * header and its title (the first prompt); a first prompt that starts
 * later leaves the conversation untitled. */
#define ZOT_CONVERSATION_HEAD_BYTES        ((gsize) 64 * 1024)
/* A conversation's title is at most this many characters, first prompt
 * or renamed. */
#define ZOT_CONVERSATION_TITLE_MAX_CHARS   80
/* The largest title file (<id>.title) read back. */
#define ZOT_CONVERSATION_TITLE_FILE_MAX_BYTES ((gsize) 4 * 1024)
/* Search reads at most this much of each session file. */
#define ZOT_CONVERSATION_SEARCH_MAX_BYTES  ((gsize) 32 * 1024 * 1024)
/* The conversations list sums the cost of a conversation from at most
 * this much of its session file. */
#define ZOT_CONVERSATION_COST_MAX_BYTES    ((gsize) 16 * 1024 * 1024)
/* A session's "remove" entry names at most this many messages; a longer
 * list is a damaged line. */
#define ZOT_SESSION_REMOVE_MAX_MESSAGES    65536
/* A fork's header names its origin by file name, at most this long (a
 * file name on Linux), and the message it replaces by an index at most
 * this large. */
#define ZOT_SESSION_FORK_FILE_MAX_BYTES    255
#define ZOT_SESSION_FORK_MAX_ENTRY         G_MAXINT32
/* At most this many conversations of one directory are listed (newest). */
#define ZOT_CONVERSATION_MAX_FILES         5000
/* File changes in the sessions directory are gathered this long before
 * the list is read again, so a session being written costs one read. */
#define ZOT_CONVERSATION_RESCAN_DELAY_MS   250
/* Frames an extension's channel handles per main loop turn; the rest of a
 * read waits for the next turn, so a flood cannot hold the window. */
#define ZOT_FRAMES_PER_TURN                64
/* A frame type nobody here knows is written to its extension's log, at
 * most this many times per window; the rest are counted, and the count
 * is logged when the window ends (or the extension goes), so a flood of
 * them cannot fill the disk. */
#define ZOT_UNKNOWN_FRAME_LOG_BURST        8
#define ZOT_UNKNOWN_FRAME_WINDOW_MS        60000
/* A codemode runtime's frame type or a `zot rpc` command that is not in
 * its dispatch table is logged the first time it comes, for at most this
 * many distinct types per runtime or client (zot-unknown-types.h); the
 * rest go unlogged. */
#define ZOT_UNKNOWN_TYPES_LOGGED           8
/* Folders the recent projects list keeps; opening one more drops the
 * oldest. */
#define ZOT_RECENT_PROJECTS_MAX            20
/* An extension archive (zot-archive.c) unpacks within these: its entries,
 * one entry's bytes and all of them together. Past any, nothing of it is
 * installed; a size the entry's header declares is refused before a byte
 * is written, and an undeclared one is counted as it is written. */
#define ZOT_ARCHIVE_MAX_ENTRIES            20000
#define ZOT_ARCHIVE_MAX_ENTRY_BYTES        ((guint64) 100 * 1024 * 1024)
#define ZOT_ARCHIVE_MAX_TOTAL_BYTES        ((guint64) 256 * 1024 * 1024)
/* Inside Flatpak a host program is stopped by signalling flatpak-spawn,
 * which forwards SIGTERM and SIGINT but cannot forward SIGKILL: the
 * forwarded signals get this long before flatpak-spawn itself is killed
 * (and the session helper then sends SIGINT to the host's process group). */
#define ZOT_FLATPAK_FORWARD_GRACE_MS       500

/* Codemode scripts (PROTOCOL.md §4a). Memory: the resident size of the
 * script's box, the runtime's peak and what it started included; past it,
 * or past the number of processes, the whole box is killed, whatever the
 * script caught. Both are looked at every ZOT_CODEMODE_MEMORY_POLL_MS and
 * when the script ends. The data-segment limit (RLIMIT_DATA) stops each
 * process growing far past the cap between two looks. */
#define ZOT_CODEMODE_MEMORY_MAX_BYTES      ((gsize) 256 * 1024 * 1024)
#define ZOT_CODEMODE_MAX_PROCESSES         16
#define ZOT_CODEMODE_DATA_LIMIT_BYTES      (ZOT_CODEMODE_MEMORY_MAX_BYTES + (gsize) 128 * 1024 * 1024)
#define ZOT_CODEMODE_MEMORY_POLL_MS        20
/* What a script emits (text, console.*, its return value) reaches the
 * model up to this size, head and tail kept; `max_output_tokens` changes
 * it within the cap, counting this many bytes a token. */
#define ZOT_CODEMODE_OUTPUT_MAX_BYTES      ((gsize) 64 * 1024)
#define ZOT_CODEMODE_OUTPUT_CAP_BYTES      ((gsize) 256 * 1024)
#define ZOT_CODEMODE_BYTES_PER_TOKEN       4
/* Output past its cap goes whole to a private temporary file the result
 * names, up to this size (the file then says where it was cut). */
#define ZOT_CODEMODE_SPILL_MAX_BYTES       ((gsize) 16 * 1024 * 1024)
#define ZOT_CODEMODE_MAX_IMAGES            16
/* An image a script shows, as base64 text: half a frame, the room the
 * runtime leaves a value (the host checks it again). */
#define ZOT_CODEMODE_IMAGE_MAX_BYTES       ((gsize) 2 * 1024 * 1024)
/* Tool calls one script makes, and has running at once (more wait). */
#define ZOT_CODEMODE_MAX_CALLS             500
#define ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT   16
/* A script runs this long unless `timeout_ms` says otherwise, at most
 * the cap; its runtime has this long to start. */
#define ZOT_CODEMODE_TIMEOUT_MS            60000
#define ZOT_CODEMODE_TIMEOUT_MAX_MS        600000
#define ZOT_CODEMODE_START_TIMEOUT_MS      10000
/* store()/load() state of one conversation, as compact JSON. */
#define ZOT_CODEMODE_STATE_MAX_BYTES       ((gsize) 256 * 1024)
/* A structured result handed to a script, as compact JSON. */
#define ZOT_CODEMODE_VALUE_MAX_BYTES       ((gsize) 1024 * 1024)
#define ZOT_CODEMODE_SEARCH_DEFAULT_LIMIT  8
/* How often gjs runs a piece of a script's code before it compiles it, a
 * tier at a time (SpiderMonkey's defaults are 10, 100 and 1,000). Each
 * runtime serves one script of at most ZOT_CODEMODE_MAX_CALLS calls, and
 * compiling the code those calls run costs more than it saves: each
 * compilation writes code behind mprotect(2), which stalls a call for
 * hundreds of microseconds on a small VM. A loop that computes still
 * reaches the compilers within a millisecond. */
#define ZOT_CODEMODE_JIT_BASELINE_INTERPRETER_AFTER 1000
#define ZOT_CODEMODE_JIT_BASELINE_AFTER    2000
#define ZOT_CODEMODE_JIT_OPTIMISED_AFTER   5000
/* Before it says it is ready a runtime makes this many calls that the
 * host answers at once, so that a script's first calls find its code
 * loaded; the host answers no more. */
#define ZOT_CODEMODE_WARM_UP_CALLS         30
/* The extension meter's p50/p95 are over this many last tool calls. */
#define ZOT_METER_LATENCY_SAMPLES          256
/* The extensions page reads each meter this often while it is shown. */
#define ZOT_METER_REFRESH_MS               2000

/* The header's context gauge takes the warning colour once the
 * conversation fills this share of the model's context window. */
#define ZOT_CONTEXT_WARNING_PERCENT        80
/* A new conversation's empty pane offers this many recent ones. */
#define ZOT_EMPTY_STATE_RECENT_MAX         5

/* A confined extension's "limits" (PROTOCOL.md §12): its box's resident
 * memory and process count are looked at this often, and the box is
 * killed past either. */
#define ZOT_BOX_WATCH_MS                   250
/* Inside the Flatpak a box's variables reach bwrap through a memfd (its
 * --args) at this descriptor, never on a command line; a few secrets at
 * ZOT_EXTENSION_SECRET_MAX_BYTES and the rest of the environment fit. */
#define ZOT_BOX_ENV_FD                     3
#define ZOT_BOX_ENV_MAX_BYTES              ((gsize) 256 * 1024)

/* MCP servers (docs/mcp.md). A configuration file is read up to this
 * size, with at most this many servers and arguments or variables per
 * server; a server offers at most this many tools, listed in at most
 * this many pages (all servers' tools together stay within the host's
 * ZOT_MAX_TOOLS_PER_EXTENSION, as the bridge is one extension). A line from a server over the size is skipped (its
 * request fails saying so); its stderr's tail of this many bytes is
 * kept for the note when it fails. A server has the connect deadline
 * to answer `initialize` and list its tools, each call the request
 * deadline (under the host's tool deadline, so the bridge says why). */
#define ZOT_MCP_CONFIG_MAX_BYTES           ((gsize) 1024 * 1024)
#define ZOT_MCP_SERVERS_MAX                64
#define ZOT_MCP_SERVER_ARGS_MAX            256
#define ZOT_MCP_TOOLS_MAX                  256
#define ZOT_MCP_LIST_PAGES_MAX             64
#define ZOT_MCP_LINE_MAX_BYTES             ((gsize) 4 * 1024 * 1024)
#define ZOT_MCP_STDERR_TAIL_BYTES          2048
#define ZOT_MCP_CONNECT_TIMEOUT_MS         30000
#define ZOT_MCP_REQUEST_TIMEOUT_MS         55000
/* A server no request has waited on for this long is stopped; the next
 * call starts it again (its tools stay registered meanwhile). */
#define ZOT_MCP_IDLE_TIMEOUT_MS            (10 * 60 * 1000)
/* A tool name cut to the host's 64 characters ends in this many hex
 * characters of a hash of the whole name. */
#define ZOT_MCP_NAME_HASH_CHARS            8
/* When the servers together offer more tools than this, all of them are
 * registered deferred, behind the host's tool search, so that a large
 * installation does not weigh on every request. */
#define ZOT_MCP_DIRECT_TOOLS_MAX           40
/* A server's resources, and its resource templates, kept by the bridge
 * (mcp_resources answers from them): at most this many of each. */
#define ZOT_MCP_RESOURCES_MAX              1024
/* A resource attached from the prompt's "Attach resource…" is cut to
 * this many bytes of text (at a character's end), saying so. */
#define ZOT_MCP_ATTACH_MAX_BYTES           ((gsize) 256 * 1024)

/* The window's layout, in pixels of window width: below the first the
 * side pane folds over the conversation, below the second the
 * conversations sidebar does too; the window works down to the third. */
#define ZOT_LAYOUT_SIDE_PANE_FOLD_WIDTH    1000
#define ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH      800
#define ZOT_LAYOUT_MIN_WINDOW_WIDTH        360
/* Unless the user resized them, the sidebar and the side pane take these
 * shares of the window's width (percent), within their bounds below, so
 * that the conversation keeps the rest: at least 60 % at the default
 * window width (1,180 px) and wider. */
#define ZOT_LAYOUT_SIDEBAR_SHARE           15
#define ZOT_LAYOUT_SIDE_PANE_SHARE         23
#define ZOT_LAYOUT_SIDEBAR_MIN_WIDTH       200
#define ZOT_LAYOUT_SIDEBAR_MAX_WIDTH       480
#define ZOT_LAYOUT_SIDE_PANE_MIN_WIDTH     240
#define ZOT_LAYOUT_SIDE_PANE_MAX_WIDTH     720
/* Dragging a pane's edge leaves the conversation at least this wide. */
#define ZOT_LAYOUT_CONVERSATION_MIN_WIDTH  360
/* A folded pane over the conversation leaves this much of it uncovered,
 * to click on to close the pane. */
#define ZOT_LAYOUT_OVERLAY_MARGIN          48
/* Folded over the conversation, the side pane is at least this wide (as
 * the window allows): its panels need more room than a column beside
 * the conversation gives them by default. */
#define ZOT_LAYOUT_SIDE_PANE_OVERLAY_WIDTH 360
/* Narrower than this, the header leaves out the model, the usage and the
 * New Conversation button. */
#define ZOT_LAYOUT_HEADER_FULL_WIDTH       720

typedef enum
{
  ZOT_TIMEOUT_WRITE,
  ZOT_TIMEOUT_HELLO,
  ZOT_TIMEOUT_REGISTRATION_IDLE,
  ZOT_TIMEOUT_REGISTRATION_MAX,
  ZOT_TIMEOUT_COMMAND,
  ZOT_TIMEOUT_TOOL,
  ZOT_TIMEOUT_INTERCEPT,
  ZOT_TIMEOUT_BEFORE_AGENT_START,
  ZOT_TIMEOUT_CALL_TOOL,
  ZOT_TIMEOUT_SHUTDOWN_GRACE,
  ZOT_TIMEOUT_SIGTERM_GRACE,
  ZOT_TIMEOUT_PROVIDER_RETRY,
  ZOT_TIMEOUT_PROVIDER_RETRY_MAX,
  ZOT_TIMEOUT_PROVIDER_IDLE,
  ZOT_TIMEOUT_PROVIDER_TOTAL,
  ZOT_TIMEOUT_KEYRING,
  ZOT_TIMEOUT_BASH,
  ZOT_TIMEOUT_SUBAGENT_SHUTDOWN,
  ZOT_TIMEOUT_EXIT_DRAIN,
  ZOT_TIMEOUT_UNKNOWN_FRAME_WINDOW,
  ZOT_TIMEOUT_CODEMODE,
  ZOT_TIMEOUT_CODEMODE_MAX,
  ZOT_TIMEOUT_CODEMODE_START,
  ZOT_TIMEOUT_STOP_TURN,
  ZOT_TIMEOUT_WATCH_DEBOUNCE,
  ZOT_TIMEOUT_BUILD,
  ZOT_TIMEOUT_INSTALL_BUILD,
  ZOT_TIMEOUT_RESTART_BACKOFF,
  ZOT_TIMEOUT_RESTART_BACKOFF_MAX,
  ZOT_TIMEOUT_RESTART_WINDOW,
  ZOT_TIMEOUT_MODEL_LIST,
  ZOT_TIMEOUT_PROVIDER_RETRY_BUDGET,
  ZOT_TIMEOUT_MCP_CONNECT,
  ZOT_TIMEOUT_MCP_REQUEST,
  ZOT_TIMEOUT_MCP_IDLE,
  ZOT_N_TIMEOUTS
} ZotTimeout;

guint        zot_timeout_get_ms      (ZotTimeout  timeout);
const char  *zot_timeout_get_name    (ZotTimeout  timeout);
guint        zot_timeout_get_default (ZotTimeout  timeout);

G_END_DECLS
