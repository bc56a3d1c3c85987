/* fake-extension.c — a scripted zot extension for the test suite.
 *
 * Its behaviour is chosen on the command line so that one binary can play
 * every well-behaved and hostile extension the tests need: slow to start,
 * dead before hello, never ready, garbage between frames, invalid UTF-8, a
 * frame past the 4 MiB cap, a writer that floods stdout and never reads,
 * one that ignores shutdown and SIGTERM, and so on.
 *
 * Once the handshake is done it reads stdin line by line with poll(2) and
 * read(2). A command_invoked frame's args are a directive that says how to
 * answer; see handle_command() for the list. A tool_call frame's args say
 * how to answer it; see handle_tool_call(). An event_intercept frame is
 * answered from --intercept-reply; see handle_intercept().
 *
 * Frames are built with json-glib. The only hand-written lines are the
 * deliberately broken ones (--garbage, --invalid-utf8, --intercept-reply
 * EVENT=garbage) and those given on the command line (--register-json and
 * the --send-* options, which place a frame in a given phase).
 */
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif

#define G_LOG_DOMAIN "zot-fake-extension"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#define READ_CHUNK_SIZE (64 * 1024)
#define HUGE_FRAME_SIZE (5 * 1024 * 1024)
#define MAX_TOOL_TEXT_SIZE (8 * 1024 * 1024)

/* Something to send once deadline has passed: a whole frame (frame), a raw
 * line (raw), or else a command_response display of text for id. */
typedef struct
{
  gint64    deadline;
  char     *id;
  char     *text;
  JsonNode *frame;
  char     *raw;
} LateAnswer;

/* Command-line options */
static char      *opt_name = NULL;
static char      *opt_version = NULL;
static char      *opt_capabilities = NULL;
static int        opt_exit_before_hello = -1;
static gboolean   opt_never_hello = FALSE;
static int        opt_hello_delay_ms = 0;
static char     **opt_commands = NULL;
static gboolean   opt_no_ready = FALSE;
static int        opt_ready_delay_ms = 0;
static char     **opt_register_after_ready = NULL;
static gboolean   opt_garbage = FALSE;
static gboolean   opt_invalid_utf8 = FALSE;
static gboolean   opt_huge_frame = FALSE;
static gboolean   opt_flood = FALSE;
static char      *opt_record = NULL;
static gboolean   opt_ignore_shutdown = FALSE;
static gboolean   opt_ignore_sigterm = FALSE;
static char     **opt_notify_on_start = NULL;
static char     **opt_register_json = NULL;
static char     **opt_send_before_hello = NULL;
static char     **opt_send_after_ready = NULL;
static char     **opt_send_on_shutdown = NULL;
static char     **opt_intercept_replies = NULL;
static int        opt_intercept_delay_ms = 0;
static char     **opt_block_tools = NULL;
static int        opt_exit_after_notes = -1;
static char      *opt_spawn_sleeper = NULL;
static gboolean   opt_sleeper_escapes = FALSE;
static int        opt_many_commands = 0;
static char      *opt_env_file = NULL;
static char      *opt_starts_file = NULL;
static int        opt_crash_after_ready = 0;

static const GOptionEntry entries[] = {
  { "name", 0, 0, G_OPTION_ARG_STRING, &opt_name,
    "Name sent in hello (default \"fake\")", "NAME" },
  { "version", 0, 0, G_OPTION_ARG_STRING, &opt_version,
    "Version sent in hello (default \"1.0.0\")", "V" },
  { "capabilities", 0, 0, G_OPTION_ARG_STRING, &opt_capabilities,
    "Comma-separated hello capabilities (default none)", "a,b,c" },
  { "exit-before-hello", 0, 0, G_OPTION_ARG_INT, &opt_exit_before_hello,
    "Exit with status N before sending hello", "N" },
  { "never-hello", 0, 0, G_OPTION_ARG_NONE, &opt_never_hello,
    "Never send anything; read stdin until EOF", NULL },
  { "hello-delay-ms", 0, 0, G_OPTION_ARG_INT, &opt_hello_delay_ms,
    "Sleep N ms before hello", "N" },
  { "command", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_commands,
    "Register a slash command (repeatable)", "NAME" },
  { "no-ready", 0, 0, G_OPTION_ARG_NONE, &opt_no_ready,
    "Never send ready", NULL },
  { "ready-delay-ms", 0, 0, G_OPTION_ARG_INT, &opt_ready_delay_ms,
    "Wait N ms after registrations before ready", "N" },
  { "register-after-ready", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_register_after_ready,
    "Register a command after ready (repeatable)", "NAME" },
  { "garbage", 0, 0, G_OPTION_ARG_NONE, &opt_garbage,
    "Print garbage lines before and after each frame", NULL },
  { "invalid-utf8", 0, 0, G_OPTION_ARG_NONE, &opt_invalid_utf8,
    "Print a notify line with invalid UTF-8 after hello", NULL },
  { "huge-frame-after-hello", 0, 0, G_OPTION_ARG_NONE, &opt_huge_frame,
    "Print one 5 MiB notify frame after ready", NULL },
  { "flood", 0, 0, G_OPTION_ARG_NONE, &opt_flood,
    "After ready, write notify frames forever and never read stdin", NULL },
  { "record", 0, 0, G_OPTION_ARG_FILENAME, &opt_record,
    "Append every line received on stdin to FILE", "FILE" },
  { "ignore-shutdown", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_shutdown,
    "Ignore shutdown frames and stdin EOF", NULL },
  { "ignore-sigterm", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_sigterm,
    "Ignore SIGTERM", NULL },
  { "notify-on-start", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_notify_on_start,
    "Send a notify frame after ready (repeatable)", "LEVEL:MESSAGE" },
  { "register-json", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_register_json,
    "Write JSON verbatim as one line after the commands, before ready (repeatable)", "JSON" },
  { "send-before-hello", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_send_before_hello,
    "Write JSON verbatim as one line before hello (repeatable)", "JSON" },
  { "send-after-ready", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_send_after_ready,
    "Write JSON verbatim as one line after ready, before reading stdin (repeatable)", "JSON" },
  { "send-on-shutdown", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_send_on_shutdown,
    "Write JSON verbatim as one line when shutdown arrives, before shutdown_ack (repeatable)",
    "JSON" },
  { "intercept-reply", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_intercept_replies,
    "Answer event_intercept for EVENT with these members; JSON may also be "
    "hang, crash or garbage (repeatable, the last one for an event wins)", "EVENT=JSON" },
  { "intercept-delay-ms", 0, 0, G_OPTION_ARG_INT, &opt_intercept_delay_ms,
    "Wait N ms (still reading stdin) before any intercept reply", "N" },
  { "exit-after-notes", 0, 0, G_OPTION_ARG_INT, &opt_exit_after_notes,
    "After ready, send N notify frames in one write and exit at once", "N" },
  { "spawn-sleeper", 0, 0, G_OPTION_ARG_FILENAME, &opt_spawn_sleeper,
    "Before hello, start a child that sleeps a long time (holding stdout) and write its pid to FILE",
    "FILE" },
  { "env-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_env_file,
    "Before hello, write the environment to FILE, one NAME=VALUE a line", "FILE" },
  { "many-commands", 0, 0, G_OPTION_ARG_INT, &opt_many_commands,
    "Register N commands c0, c1, … before ready", "N" },
  { "sleeper-escapes", 0, 0, G_OPTION_ARG_NONE, &opt_sleeper_escapes,
    "The --spawn-sleeper child leaves the process group (setsid)", NULL },
  { "block-tool", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_block_tools,
    "Answer a tool_call interception of NAME with a block, whatever --intercept-reply says "
    "(repeatable)", "NAME" },
  { "starts-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_starts_file,
    "After ready, append a line to FILE: its lines count the starts that got ready", "FILE" },
  { "crash-after-ready", 0, 0, G_OPTION_ARG_INT, &opt_crash_after_ready,
    "Right after ready, exit (3) on each of the first N starts --starts-file counts (every start "
    "without it)", "N" },
  { NULL }
};

static FILE      *record_file = NULL;
static GPtrArray *late_answers = NULL;
/* event name -> JsonNode (an object), or NULL for the special replies,
 * which are kept in intercept_specials as the strings hang/crash/garbage. */
static GHashTable *intercept_replies = NULL;
static GHashTable *intercept_specials = NULL;
static guint      n_tool_calls = 0;

/* call_tool requests out: request id -> the Waiter that answers once all of
 * its requests have their tool_result. */
typedef struct
{
  char       *answer_id;
  gboolean    command;
  char       *default_parent;
  GHashTable *waiting;
  JsonArray  *results;
  JsonArray  *queued;       /* sequential: the calls not sent yet */
  guint       n_sent;
  guint       pause_before;
  char       *pause_file;
} Waiter;

static GHashTable *waiters = NULL;
static char       *last_tool_call_id = NULL;

static const char * const garbage_lines[] = {
  "not json",
  "{broken",
  "[1,2]",
  "{\"no_type\":1}",
  "",
};

static void
sleep_forever (void)
{
  /* SIGTERM (unless ignored) or SIGKILL is the only way out. */
  for (;;)
    pause ();
}

static void
late_answer_free (gpointer data)
{
  LateAnswer *late = data;

  g_free (late->id);
  g_free (late->text);
  g_clear_pointer (&late->frame, json_node_unref);
  g_free (late->raw);
  g_free (late);
}

static void
sleep_ms (int ms)
{
  if (ms > 0)
    g_usleep ((gulong) ms * G_TIME_SPAN_MILLISECOND);
}

static void
write_all (const char *data,
           gsize       len)
{
  while (len > 0)
    {
      ssize_t n = write (STDOUT_FILENO, data, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;

          if (errno == EAGAIN)
            {
              struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

              poll (&pfd, 1, -1);
              continue;
            }

          /* The host closed our stdout: it has disconnected us. */
          fprintf (stderr, "fake-extension: write failed: %s\n", g_strerror (errno));
          if (opt_ignore_shutdown)
            sleep_forever ();
          exit (0);
        }

      data += n;
      len -= (gsize) n;
    }
}

/* While set, lines gather here to go out in one write (send_calls). */
static GString *held_lines;

static void
write_line (const char *data,
            gsize       len)
{
  g_autofree char *buf = NULL;

  if (held_lines != NULL)
    {
      g_string_append_len (held_lines, data, len);
      g_string_append_c (held_lines, '\n');
      return;
    }

  /* One write per line where possible, so a line never interleaves. */
  buf = g_malloc (len + 1);

  memcpy (buf, data, len);
  buf[len] = '\n';
  write_all (buf, len + 1);
}

static void
write_garbage (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (garbage_lines); i++)
    write_line (garbage_lines[i], strlen (garbage_lines[i]));
}

static JsonBuilder *
begin_frame (const char *type)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, type);

  return builder;
}

static void
add_string (JsonBuilder *builder,
            const char  *member,
            const char  *value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_string_value (builder, value);
}

/* Writes one frame line, surrounded by garbage with --garbage. */
static void
send_line (const char *text,
           gsize       len)
{
  if (opt_garbage)
    write_garbage ();
  write_line (text, len);
  if (opt_garbage)
    write_garbage ();
}

/* Each of @lines (NULL-terminated, or NULL) verbatim, one line apiece. */
static void
send_lines (char **lines)
{
  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    send_line (lines[i], strlen (lines[i]));
}

static void
send_node (JsonNode *root)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  gsize len = 0;

  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, &len);
  send_line (text, len);
}

/* Ends the object begun by begin_frame() and writes it as one line. */
static void
send_frame (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = NULL;

  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  send_node (root);
}

static void
send_simple (const char *type)
{
  g_autoptr(JsonBuilder) builder = begin_frame (type);

  send_frame (builder);
}

static void
send_hello (void)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("hello");
  g_auto(GStrv) caps = NULL;

  add_string (builder, "name", opt_name ? opt_name : "fake");
  add_string (builder, "version", opt_version ? opt_version : "1.0.0");

  json_builder_set_member_name (builder, "capabilities");
  json_builder_begin_array (builder);
  if (opt_capabilities != NULL && opt_capabilities[0] != '\0')
    {
      caps = g_strsplit (opt_capabilities, ",", -1);
      for (guint i = 0; caps[i] != NULL; i++)
        {
          g_strstrip (caps[i]);
          if (caps[i][0] != '\0')
            json_builder_add_string_value (builder, caps[i]);
        }
    }
  json_builder_end_array (builder);

  send_frame (builder);
}

static void
send_register_command (const char *name)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("register_command");
  g_autofree char *description = g_strdup_printf ("fake command %s", name);

  add_string (builder, "name", name);
  add_string (builder, "description", description);
  send_frame (builder);
}

static void
send_notify (const char *level,
             const char *message)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("notify");

  add_string (builder, "level", level);
  add_string (builder, "message", message);
  send_frame (builder);
}

static void
send_call_tool (const char *tool,
                const char *args_json)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("call_tool");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *id = g_strdup_printf ("request-%u", ++n_tool_calls);
  JsonNode *args = NULL;

  if (args_json[0] != '\0' && json_parser_load_from_data (parser, args_json, -1, NULL))
    args = json_parser_get_root (parser);

  add_string (builder, "id", id);
  add_string (builder, "name", tool);
  json_builder_set_member_name (builder, "args");
  if (args != NULL && JSON_NODE_HOLDS_OBJECT (args))
    {
      json_builder_add_value (builder, json_node_copy (args));
    }
  else
    {
      json_builder_begin_object (builder);
      json_builder_end_object (builder);
    }
  send_frame (builder);
}

/* action is "display", "insert", "prompt", "noop" or anything else; for
 * the first three, text goes into the member of the same name. */
static void
send_response (const char *id,
               const char *action,
               const char *text,
               const char *error)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("command_response");

  add_string (builder, "id", id);
  add_string (builder, "action", action);
  if (text != NULL)
    add_string (builder, action, text);
  if (error != NULL)
    add_string (builder, "error", error);
  send_frame (builder);
}

static void
send_invalid_utf8 (void)
{
  static const char line[] =
    "{\"type\":\"notify\",\"level\":\"info\",\"message\":\"\xff\xfe\"}";

  write_line (line, sizeof line - 1);
}

static void
send_huge_frame (void)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("notify");
  g_autofree char *message = g_malloc (HUGE_FRAME_SIZE + 1);

  memset (message, 'x', HUGE_FRAME_SIZE);
  message[HUGE_FRAME_SIZE] = '\0';

  add_string (builder, "level", "info");
  add_string (builder, "message", message);
  send_frame (builder);
}

static G_GNUC_NORETURN void
flood (void)
{
  for (guint64 i = 0; ; i++)
    {
      g_autofree char *message = g_strdup_printf ("flood %" G_GUINT64_FORMAT, i);

      send_notify ("info", message);
    }
}

static void
record_line (const char *line,
             gsize       len)
{
  if (record_file == NULL)
    return;

  fwrite (line, 1, len, record_file);
  fputc ('\n', record_file);
  fflush (record_file);
}

/* Splits "word rest" at the first space; rest is everything after it. */
static char *
split_word (const char  *text,
            const char **rest)
{
  const char *space = strchr (text, ' ');

  if (space == NULL)
    {
      *rest = text + strlen (text);
      return g_strdup (text);
    }

  *rest = space + 1;
  return g_strndup (text, space - text);
}

static const char *get_string_member (JsonObject *object,
                                      const char *member);
static gboolean    get_true_member   (JsonObject *object,
                                      const char *member);
static gboolean    get_int_member    (JsonObject *object,
                                      const char *member,
                                      gint64     *value);

static void
waiter_unref (Waiter *waiter)
{
  g_free (waiter->answer_id);
  g_free (waiter->default_parent);
  g_free (waiter->pause_file);
  g_hash_table_unref (waiter->waiting);
  json_array_unref (waiter->results);
  g_clear_pointer (&waiter->queued, json_array_unref);
  g_free (waiter);
}

/* Answers @answer_id, a tool_call or (@command) a command_invoked, with
 * @text as its one text block or display. */
static void
answer_with_text (const char *answer_id,
                  gboolean    command,
                  const char *text)
{
  g_autoptr(JsonBuilder) builder = NULL;

  if (command)
    {
      send_response (answer_id, "display", text, NULL);
      return;
    }

  builder = begin_frame ("tool_result");
  add_string (builder, "id", answer_id);
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  add_string (builder, "type", "text");
  add_string (builder, "text", text);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "is_error");
  json_builder_add_boolean_value (builder, FALSE);
  send_frame (builder);
}

/* Sends one call object of a spec (see send_calls) for @waiter. */
static void
send_one_call (Waiter   *waiter,
               JsonNode *node)
{
  g_autoptr(JsonNode) frame_node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *call;
  JsonObject *frame = json_object_new ();
  JsonNode *parent;
  g_autofree char *id = NULL;
  GList *members;

  json_node_take_object (frame_node, frame);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  call = json_node_get_object (node);

  id = g_strdup (get_string_member (call, "id"));
  if (id == NULL)
    id = g_strdup_printf ("call-%u", ++n_tool_calls);

  json_object_set_string_member (frame, "type", "call_tool");
  members = json_object_get_members (call);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "parent"))
      json_object_set_member (frame, l->data, json_node_copy (json_object_get_member (call, l->data)));
  g_list_free (members);
  json_object_set_string_member (frame, "id", id);
  if (!json_object_has_member (frame, "args"))
    json_object_set_object_member (frame, "args", json_object_new ());

  parent = json_object_get_member (call, "parent");
  if (parent == NULL)
    {
      if (waiter->default_parent != NULL)
        json_object_set_string_member (frame, "parent_id", waiter->default_parent);
    }
  else if (JSON_NODE_HOLDS_VALUE (parent) && json_node_get_value_type (parent) == G_TYPE_STRING)
    {
      const char *value = json_node_get_string (parent);

      json_object_set_string_member (frame, "parent_id",
                                     g_str_equal (value, "@last") && last_tool_call_id != NULL ?
                                     last_tool_call_id : value);
    }

  if (!g_hash_table_contains (waiters, id))
    {
      g_hash_table_add (waiter->waiting, g_strdup (id));
      g_hash_table_insert (waiters, g_strdup (id), waiter);
    }
  send_node (frame_node);
}

static void
waiter_answer (Waiter *waiter)
{
  g_autofree char *text = NULL;

  if (json_array_get_length (waiter->results) == 1)
    text = json_to_string (json_array_get_element (waiter->results, 0), FALSE);
  else
    {
      g_autoptr(JsonNode) array = json_node_new (JSON_NODE_ARRAY);

      json_node_set_array (array, waiter->results);
      text = json_to_string (array, FALSE);
    }
  answer_with_text (waiter->answer_id, waiter->command, text);
  waiter_unref (waiter);
}

/* A sequential waiter sends its next call; before the one numbered
 * pause_before, while pause_file exists, it writes pause_file.paused and
 * waits for ever (the host is to be killed there). Returns whether it sent. */
static gboolean
waiter_send_next (Waiter *waiter)
{
  if (waiter->queued == NULL || json_array_get_length (waiter->queued) == 0)
    return FALSE;

  if (waiter->pause_file != NULL && waiter->n_sent == waiter->pause_before &&
      g_file_test (waiter->pause_file, G_FILE_TEST_EXISTS))
    {
      g_autofree char *marker = g_strdup_printf ("%s.paused", waiter->pause_file);

      g_file_set_contents (marker, "paused\n", -1, NULL);
      return TRUE;
    }

  {
    g_autoptr(JsonNode) node = json_array_dup_element (waiter->queued, 0);

    json_array_remove_element (waiter->queued, 0);
    waiter->n_sent++;
    send_one_call (waiter, node);
  }
  return TRUE;
}

/*
 * Sends the call_tool requests of @spec (one call object or an array of
 * them) and answers @answer_id once each distinct request id has its
 * tool_result: with the JSON of that frame, or of an array of them in the
 * order they came for several. A call object:
 *   "name": TOOL, "args": OBJECT      what to call (args: {} when absent)
 *   "id": ID                          the request id (default "call-N")
 *   "parent": ID | "@last" | false    the parent_id; "@last" is the last
 *                                     tool_call this extension answered;
 *                                     false sends none; by default the
 *                                     tool_call being answered (none for a
 *                                     command)
 *   "key": KEY                        sent as is
 *   any other member                  copied into the frame as is
 * Without "sequential" the requests go out in one write.
 * @options (may be NULL): "sequential": true sends each call once the one
 * before has its result; "pause_before": N with "pause_file": PATH stops
 * before the call numbered N (from 0) while PATH exists (waiter_send_next).
 */
static void
send_calls (JsonNode   *spec,
            const char *answer_id,
            gboolean    command,
            const char *default_parent,
            JsonObject *options)
{
  Waiter *waiter = g_new0 (Waiter, 1);
  g_autoptr(JsonArray) specs = NULL;
  gint64 pause_before = -1;

  waiter->answer_id = g_strdup (answer_id);
  waiter->command = command;
  waiter->default_parent = g_strdup (default_parent);
  waiter->waiting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  waiter->results = json_array_new ();

  if (JSON_NODE_HOLDS_ARRAY (spec))
    specs = json_array_ref (json_node_get_array (spec));
  else
    {
      specs = json_array_new ();
      json_array_add_element (specs, json_node_copy (spec));
    }

  if (options != NULL && get_true_member (options, "sequential"))
    {
      waiter->queued = json_array_ref (specs);
      waiter->pause_file = g_strdup (get_string_member (options, "pause_file"));
      waiter->pause_before = get_int_member (options, "pause_before", &pause_before) ? (guint) pause_before
                                                                                 : G_MAXUINT;
      if (!waiter_send_next (waiter))
        {
          answer_with_text (answer_id, command, "[]");
          waiter_unref (waiter);
        }
      return;
    }

  /* All in one write: the host reads them together, so none of their
   * results can come back before the last is sent. */
  held_lines = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (specs); i++)
    send_one_call (waiter, json_array_get_element (specs, i));
  write_all (held_lines->str, held_lines->len);
  g_string_free (g_steal_pointer (&held_lines), TRUE);

  if (g_hash_table_size (waiter->waiting) == 0)
    {
      answer_with_text (answer_id, command, "[]");
      waiter_unref (waiter);
    }
}

/* A call_tool reply: the last one a waiter needs answers its call. */
static void
handle_call_result (JsonObject *object,
                    JsonNode   *root)
{
  const char *id = get_string_member (object, "id");
  Waiter *waiter;

  if (id == NULL || (waiter = g_hash_table_lookup (waiters, id)) == NULL)
    return;

  g_hash_table_remove (waiters, id);
  g_hash_table_remove (waiter->waiting, id);
  json_array_add_element (waiter->results, json_node_copy (root));
  if (g_hash_table_size (waiter->waiting) > 0)
    return;

  if (waiter_send_next (waiter))
    return;

  waiter_answer (waiter);
}

/*
 * Directives (the command's args):
 *   display TEXT | insert TEXT | prompt TEXT   answer that action with TEXT
 *   noop                                        answer noop
 *   error TEXT                                  answer noop with "error":TEXT
 *   badaction                                   answer action "frobnicate"
 *   hang                                        never answer
 *   crash N                                     exit (N) without answering
 *   late MS TEXT                                answer display TEXT after MS ms
 *   notify LEVEL TEXT                           send notify, then answer noop
 *   clear                                       send clear_notes, then answer noop
 *   name                                        display the command name received
 *   call JSON                                   send the call_tool requests JSON says
 *                                               (see send_calls) and display the JSON
 *                                               of their results once all came
 *   cancel ID                                   send call_tool_cancel for ID, answer noop
 *   send JSON                                   write JSON verbatim as one line, then
 *                                               answer noop
 *   repeat N JSON                               write JSON verbatim N times in one write,
 *                                               then answer noop
 *   calltool TOOL [JSON]                        send call_tool "request-N" for TOOL with
 *                                               args JSON (an object, default {}), then
 *                                               answer noop; the tool_result is only
 *                                               recorded (--record)
 *   send JSON                                   write JSON verbatim as one line (a frame
 *                                               of the test's choosing, such as an
 *                                               open_panel), then answer noop
 *   anything else, or empty                     display "NAME: ARGS"
 */
static void
handle_command (const char *id,
                const char *name,
                const char *args)
{
  g_autofree char *word = NULL;
  const char *rest = NULL;

  word = split_word (args, &rest);

  if (g_str_equal (word, "display") ||
      g_str_equal (word, "insert") ||
      g_str_equal (word, "prompt"))
    {
      send_response (id, word, rest, NULL);
    }
  else if (g_str_equal (word, "noop"))
    {
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "send"))
    {
      send_line (rest, strlen (rest));
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "error"))
    {
      send_response (id, "noop", NULL, rest);
    }
  else if (g_str_equal (word, "badaction"))
    {
      send_response (id, "frobnicate", NULL, NULL);
    }
  else if (g_str_equal (word, "hang"))
    {
      /* Never answer. */
    }
  else if (g_str_equal (word, "crash"))
    {
      int status = rest[0] != '\0' ? atoi (rest) : 1;

      fprintf (stderr, "fake-extension: crashing with status %d\n", status);
      exit (status);
    }
  else if (g_str_equal (word, "late"))
    {
      LateAnswer *late = g_new0 (LateAnswer, 1);
      g_autofree char *ms = split_word (rest, &rest);

      late->deadline = g_get_monotonic_time () +
                       g_ascii_strtoll (ms, NULL, 10) * G_TIME_SPAN_MILLISECOND;
      late->id = g_strdup (id);
      late->text = g_strdup (rest);
      g_ptr_array_add (late_answers, late);
    }
  else if (g_str_equal (word, "notify"))
    {
      g_autofree char *level = split_word (rest, &rest);

      send_notify (level, rest);
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "clear"))
    {
      send_simple ("clear_notes");
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "name"))
    {
      send_response (id, "display", name, NULL);
    }
  else if (g_str_equal (word, "call"))
    {
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (json_parser_load_from_data (parser, rest, -1, NULL) && json_parser_get_root (parser) != NULL)
        send_calls (json_parser_get_root (parser), id, TRUE, NULL, NULL);
      else
        send_response (id, "noop", NULL, "call: not JSON");
    }
  else if (g_str_equal (word, "cancel"))
    {
      g_autoptr(JsonBuilder) builder = begin_frame ("call_tool_cancel");

      add_string (builder, "id", rest);
      send_frame (builder);
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "send"))
    {
      send_line (rest, strlen (rest));
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "repeat"))
    {
      g_autofree char *count = split_word (rest, &rest);
      gint64 n = g_ascii_strtoll (count, NULL, 10);
      GString *lines = g_string_new (NULL);

      /* One write: a batch short enough (PIPE_BUF) arrives whole. */
      for (gint64 i = 0; i < n; i++)
        g_string_append_printf (lines, "%s\n", rest);
      if (lines->len > 0)
        write_all (lines->str, lines->len);
      g_string_free (lines, TRUE);
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "calltool"))
    {
      g_autofree char *tool = split_word (rest, &rest);

      send_call_tool (tool, rest);
      send_response (id, "noop", NULL, NULL);
    }
  else if (g_str_equal (word, "toolprompt"))
    {
      /* toolprompt TOOL JSON-ARGS: answer tool_prompt with prompt "and push" */
      g_autofree char *tool = split_word (rest, &rest);
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonNode) reply = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "type", "command_response");
      json_object_set_string_member (object, "id", id);
      json_object_set_string_member (object, "action", "tool_prompt");
      json_object_set_string_member (object, "prompt", "and push");
      json_object_set_string_member (object, "tool_name", tool);
      if (json_parser_load_from_data (parser, rest, -1, NULL) && json_parser_get_root (parser) != NULL)
        json_object_set_member (object, "tool_args", json_node_copy (json_parser_get_root (parser)));
      else
        json_object_set_string_member (object, "tool_args", rest);
      json_node_take_object (reply, object);
      send_node (reply);
    }
  else
    {
      g_autofree char *text = g_strdup_printf ("%s: %s", name, args);

      send_response (id, "display", text, NULL);
    }
}

static const char *
get_string_member (JsonObject *object,
                   const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

static gboolean
get_true_member (JsonObject *object,
                 const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN &&
         json_node_get_boolean (node);
}

/* TRUE if member is a number; *value is it, truncated to an integer. */
static gboolean
get_int_member (JsonObject *object,
                const char *member,
                gint64     *value)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *value = json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *value = (gint64) json_node_get_double (node);
  else
    return FALSE;

  return TRUE;
}

static void
send_late (LateAnswer *late)
{
  if (late->raw != NULL)
    write_line (late->raw, strlen (late->raw));
  else if (late->frame != NULL)
    send_node (late->frame);
  else
    send_response (late->id, "display", late->text, NULL);
}

/* Sends late now (delay_ms <= 0) or queues it for the read loop, which
 * keeps reading stdin meanwhile. Takes ownership of late. */
static void
deliver (LateAnswer *late,
         gint64      delay_ms)
{
  if (delay_ms <= 0)
    {
      send_late (late);
      late_answer_free (late);
      return;
    }

  late->deadline = g_get_monotonic_time () + delay_ms * G_TIME_SPAN_MILLISECOND;
  g_ptr_array_add (late_answers, late);
}

static void
add_text_block (JsonBuilder *builder,
                const char  *text)
{
  json_builder_begin_object (builder);
  add_string (builder, "type", "text");
  add_string (builder, "text", text);
  json_builder_end_object (builder);
}

/* A tool_call with "reconcile": true asks whether an interrupted call ran
 * (replay "reconcile"): the call's "reconcile" argument says what to
 * answer. "not_started" and "completed" (with "reconcile_reply" as the
 * result's text) and "unknown" as upstream's structured_content.state;
 * "garbage" a text block and no state; "hang" no answer at all. Nothing
 * runs, so "append_to" is not written. */
static void
answer_reconcile (const char *id,
                  JsonObject *args)
{
  const char *answer = args != NULL ? get_string_member (args, "reconcile") : NULL;
  g_autoptr(JsonBuilder) builder = NULL;

  if (g_strcmp0 (answer, "hang") == 0)
    return;

  builder = begin_frame ("tool_result");
  add_string (builder, "id", id);
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);
  if (g_strcmp0 (answer, "completed") == 0)
    add_text_block (builder, args != NULL && get_string_member (args, "reconcile_reply") != NULL
                             ? get_string_member (args, "reconcile_reply") : "done before");
  else if (g_strcmp0 (answer, "garbage") == 0)
    add_text_block (builder, "no idea");
  json_builder_end_array (builder);
  if (answer != NULL && g_strcmp0 (answer, "garbage") != 0)
    {
      json_builder_set_member_name (builder, "structured_content");
      json_builder_begin_object (builder);
      add_string (builder, "state", answer);
      json_builder_end_object (builder);
    }
  send_frame (builder);
}

/* A tool call's "wait_path" with "wait_lines" or "wait_text": answer once
 * PATH has that many lines, or holds that text, checking every 10 ms for at
 * most 30 s. */
static void
wait_for_lines (JsonObject *args)
{
  const char *path = get_string_member (args, "wait_path");
  const char *want = get_string_member (args, "wait_text");
  gint64 lines = 0;

  if (path == NULL || (want == NULL && !get_int_member (args, "wait_lines", &lines)))
    return;

  for (int i = 0; i < 3000; i++)
    {
      g_autofree char *text = NULL;
      gint64 n = 0;

      if (g_file_get_contents (path, &text, NULL, NULL))
        {
          if (want != NULL && strstr (text, want) != NULL)
            return;
          for (const char *c = text; *c != '\0'; c++)
            n += *c == '\n';
        }
      if (want == NULL && n >= lines)
        return;
      poll (NULL, 0, 10);
    }
}

/*
 * A tool_call's args (an object) say how to answer; members combine:
 *   "crash": N        exit (N) at once (1 if N is not a number)
 *   "hang": true      never answer (a later tool_cancel is only recorded)
 *   "reply": TEXT     a text block TEXT
 *   "size": N         a text block of N bytes of 'a' (at most 8 MiB)
 *   "error": TEXT     a text block TEXT and "is_error":true
 *   "refuse": TEXT    the same as error
 *   "structured": V   "structured_content": V
 *   "image": true     an image block after the text blocks
 *   "images": N       N image blocks after the text blocks
 *   "call": SPEC      send the call_tool requests of SPEC (see send_calls),
 *                     children of this call, and answer with their results;
 *                     "sequential", "pause_before", "pause_file" as there
 *   "append_to": PATH append the reply (or "ran") and a newline to PATH
 *                     before answering: a count of real executions
 *   "operation_key"   (of the frame) is recorded like everything else
 *   "late_ms": N      answer after N ms, reading stdin meanwhile
 *   "burn_ms": N      first spin until this process has used N ms more CPU
 *   "activate_tools": V  "activate_tools": V in the result
 *   "send": TEXT      write TEXT verbatim as one line before the result (or,
 *                     with "hang", instead of it)
 *   "wait_path": PATH, "wait_lines": N   answer once PATH has N lines
 *   "wait_path": PATH, "wait_text": TEXT  answer once PATH holds TEXT
 * Without reply, size, error or refuse (or when args is not an object) the
 * only text block is "NAME called with ARGS", ARGS being compact JSON.
 * Text blocks come in the order reply, size, error, refuse.
 */
/* A known amount of CPU time, for the meter's test. */
static void
burn_cpu (gint64 ms)
{
  struct timespec start, now;
  volatile guint64 spin = 0;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &start);
  do
    {
      for (guint i = 0; i < 100000; i++)
        spin += i;
      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &now);
    }
  while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static void
send_one_progress (const char *id,
                   const char *text)
{
  g_autoptr(JsonBuilder) builder = begin_frame ("tool_progress");

  add_string (builder, "id", id);
  add_string (builder, "text", text);
  send_frame (builder);
}

/* tool_progress frames before the answer: "progress" N of them ("step 1"
 * to "step N"), then "progress_text" as one, for the call or for the id
 * "progress_id" names. */
static void
send_progress (const char *id,
               JsonObject *args)
{
  gint64 n = 0;

  if (get_string_member (args, "progress_id") != NULL)
    id = get_string_member (args, "progress_id");
  get_int_member (args, "progress", &n);

  for (gint64 i = 1; i <= n; i++)
    {
      g_autofree char *step = g_strdup_printf ("step %" G_GINT64_FORMAT, i);

      send_one_progress (id, step);
    }
  if (get_string_member (args, "progress_text") != NULL)
    send_one_progress (id, get_string_member (args, "progress_text"));
}

static void
handle_tool_call (JsonObject *object)
{
  const char *id = get_string_member (object, "id");
  const char *name = get_string_member (object, "name");
  JsonNode *args_node = json_object_get_member (object, "args");
  JsonObject *args = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  LateAnswer *late;
  const char *reply = NULL;
  const char *error = NULL;
  const char *refuse = NULL;
  JsonNode *structured = NULL;
  JsonNode *activate = NULL;
  const char *send = NULL;
  gint64 size = -1;
  gint64 late_ms = 0;
  gint64 burn_ms = 0;
  gint64 status;
  gboolean any_text;

  if (id == NULL)
    return;

  if (args_node != NULL && JSON_NODE_HOLDS_OBJECT (args_node))
    args = json_node_get_object (args_node);

  if (get_true_member (object, "reconcile"))
    {
      answer_reconcile (id, args);
      return;
    }

  if (args != NULL && json_object_has_member (args, "crash"))
    {
      if (!get_int_member (args, "crash", &status))
        status = 1;
      fprintf (stderr, "fake-extension: crashing with status %d in tool call\n", (int) status);
      exit ((int) status);
    }

  if (args != NULL)
    wait_for_lines (args);

  /* Counts real executions: one line per call that ran. */
  if (args != NULL && get_string_member (args, "append_to") != NULL)
    {
      FILE *file = fopen (get_string_member (args, "append_to"), "a");

      if (file != NULL)
        {
          fprintf (file, "%s\n", get_string_member (args, "reply") ? get_string_member (args, "reply") : "ran");
          fclose (file);
        }
    }

  if (args != NULL)
    send_progress (id, args);

  if (args != NULL && get_true_member (args, "hang"))
    {
      /* A waiting call may still say something first (open a panel). */
      if (get_string_member (args, "send") != NULL)
        send_line (get_string_member (args, "send"), strlen (get_string_member (args, "send")));
      return;
    }

  if (args != NULL && json_object_get_member (args, "call") != NULL)
    {
      send_calls (json_object_get_member (args, "call"), id, FALSE, id, args);
      return;
    }

  if (args != NULL)
    {
      reply = get_string_member (args, "reply");
      error = get_string_member (args, "error");
      refuse = get_string_member (args, "refuse");
      structured = json_object_get_member (args, "structured");
      activate = json_object_get_member (args, "activate_tools");
      send = get_string_member (args, "send");
      if (!get_int_member (args, "size", &size))
        size = -1;
      if (!get_int_member (args, "late_ms", &late_ms))
        late_ms = 0;
      if (get_int_member (args, "burn_ms", &burn_ms))
        burn_cpu (burn_ms);
    }

  any_text = reply != NULL || size >= 0 || error != NULL || refuse != NULL;

  builder = begin_frame ("tool_result");
  add_string (builder, "id", id);

  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);
  if (reply != NULL)
    add_text_block (builder, reply);
  if (size >= 0)
    {
      gsize n = (gsize) MIN (size, MAX_TOOL_TEXT_SIZE);
      g_autofree char *text = g_malloc (n + 1);

      memset (text, 'a', n);
      text[n] = '\0';
      add_text_block (builder, text);
    }
  if (error != NULL)
    add_text_block (builder, error);
  if (refuse != NULL)
    add_text_block (builder, refuse);
  if (!any_text)
    {
      g_autofree char *args_json = args_node != NULL ? json_to_string (args_node, FALSE)
                                                     : g_strdup ("{}");
      g_autofree char *text = g_strdup_printf ("%s called with %s",
                                               name != NULL ? name : "", args_json);

      add_text_block (builder, text);
    }
  if (args != NULL && get_int_member (args, "images", &status))
    for (gint64 i = 0; i < status; i++)
      {
        json_builder_begin_object (builder);
        add_string (builder, "type", "image");
        add_string (builder, "mime_type", "image/png");
        add_string (builder, "data", "iVBORw0KGgo=");
        json_builder_end_object (builder);
      }
  if (args != NULL && get_true_member (args, "image"))
    {
      json_builder_begin_object (builder);
      add_string (builder, "type", "image");
      add_string (builder, "mime_type", "image/png");
      add_string (builder, "data", "iVBORw0KGgo=");
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  if (structured != NULL)
    {
      json_builder_set_member_name (builder, "structured_content");
      json_builder_add_value (builder, json_node_copy (structured));
    }

  if (activate != NULL)
    {
      json_builder_set_member_name (builder, "activate_tools");
      json_builder_add_value (builder, json_node_copy (activate));
    }

  if (send != NULL)
    send_line (send, strlen (send));

  json_builder_set_member_name (builder, "is_error");
  json_builder_add_boolean_value (builder, error != NULL || refuse != NULL);

  json_builder_end_object (builder);

  g_free (last_tool_call_id);
  last_tool_call_id = g_strdup (id);

  late = g_new0 (LateAnswer, 1);
  late->frame = json_builder_get_root (builder);
  deliver (late, late_ms);
}

static const char * const placeholders[] = { "system_prompt", "text", "tool_name" };

/* Copies text with every {{system_prompt}}, {{text}} and {{tool_name}}
 * replaced, in one pass, by that string member of frame ("" if none). */
static char *
substitute_string (const char *text,
                   JsonObject *frame)
{
  GString *out = g_string_new (NULL);

  while (*text != '\0')
    {
      gboolean replaced = FALSE;

      if (text[0] == '{' && text[1] == '{')
        {
          for (guint i = 0; i < G_N_ELEMENTS (placeholders); i++)
            {
              gsize len = strlen (placeholders[i]);

              if (strncmp (text + 2, placeholders[i], len) == 0 &&
                  strncmp (text + 2 + len, "}}", 2) == 0)
                {
                  const char *value = get_string_member (frame, placeholders[i]);

                  g_string_append (out, value != NULL ? value : "");
                  text += 2 + len + 2;
                  replaced = TRUE;
                  break;
                }
            }
        }

      if (!replaced)
        g_string_append_c (out, *text++);
    }

  return g_string_free (out, FALSE);
}

/* Substitutes placeholders in every string value of node, in place. */
static void
substitute_node (JsonNode   *node,
                 JsonObject *frame)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        substitute_node (json_object_get_member (object, l->data), frame);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        substitute_node (json_array_get_element (array, i), frame);
    }
  else if (JSON_NODE_HOLDS_VALUE (node) &&
           json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_autofree char *value = substitute_string (json_node_get_string (node), frame);

      json_node_set_string (node, value);
    }
}

/*
 * Answers {"type":"event_intercept","id":ID,"event":EVENT,...} with
 * {"type":"event_intercept_response","id":ID} plus the members given by
 * --intercept-reply EVENT=JSON (placeholders substituted; a member named
 * type or id replaces that one), after --intercept-delay-ms. The special
 * replies: hang (never answer), crash (exit 9 at once), garbage (a line
 * that is not JSON). No reply given for EVENT: allow / keep.
 */
static void
handle_intercept (JsonObject *object)
{
  const char *id = get_string_member (object, "id");
  const char *event = get_string_member (object, "event");
  const char *special = NULL;
  JsonNode *reply = NULL;
  JsonObject *response;
  LateAnswer *late;

  if (id == NULL)
    return;

  if (event != NULL)
    {
      special = g_hash_table_lookup (intercept_specials, event);
      reply = g_hash_table_lookup (intercept_replies, event);
    }

  if (g_strcmp0 (event, "tool_call") == 0 && opt_block_tools != NULL &&
      g_strv_contains ((const char * const *) opt_block_tools,
                       get_string_member (object, "tool_name") ? get_string_member (object, "tool_name") : ""))
    {
      response = json_object_new ();
      json_object_set_string_member (response, "type", "event_intercept_response");
      json_object_set_string_member (response, "id", id);
      json_object_set_boolean_member (response, "block", TRUE);
      json_object_set_string_member (response, "reason", "blocked by the fake guard");
      late = g_new0 (LateAnswer, 1);
      late->frame = json_node_init_object (json_node_alloc (), response);
      json_object_unref (response);
      deliver (late, opt_intercept_delay_ms);
      return;
    }

  if (g_strcmp0 (special, "hang") == 0)
    return;

  if (g_strcmp0 (special, "crash") == 0)
    {
      fprintf (stderr, "fake-extension: crashing with status 9 in %s interception\n", event);
      exit (9);
    }

  late = g_new0 (LateAnswer, 1);

  if (g_strcmp0 (special, "garbage") == 0)
    {
      late->raw = g_strdup ("this is not json {{{");
      deliver (late, opt_intercept_delay_ms);
      return;
    }

  response = json_object_new ();
  json_object_set_string_member (response, "type", "event_intercept_response");
  json_object_set_string_member (response, "id", id);

  if (reply != NULL)
    {
      /* json_node_copy() shares the object: reparse for a deep copy. */
      g_autofree char *template = json_to_string (reply, FALSE);
      g_autoptr(JsonNode) copy = json_from_string (template, NULL);
      JsonObject *members = json_node_get_object (copy);
      g_autoptr(GList) names = NULL;

      substitute_node (copy, object);
      names = json_object_get_members (members);
      for (GList *l = names; l != NULL; l = l->next)
        json_object_set_member (response, l->data,
                                json_node_copy (json_object_get_member (members, l->data)));
    }

  late->frame = json_node_init_object (json_node_alloc (), response);
  json_object_unref (response);
  deliver (late, opt_intercept_delay_ms);
}

/* Fills intercept_replies and intercept_specials from --intercept-reply. */
static gboolean
parse_intercept_replies (GError **error)
{
  intercept_replies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) json_node_unref);
  intercept_specials = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; opt_intercept_replies != NULL && opt_intercept_replies[i] != NULL; i++)
    {
      const char *spec = opt_intercept_replies[i];
      const char *equals = strchr (spec, '=');
      g_autofree char *event = NULL;
      const char *value;

      if (equals == NULL || equals == spec)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--intercept-reply %s: expected EVENT=JSON", spec);
          return FALSE;
        }

      event = g_strndup (spec, equals - spec);
      value = equals + 1;

      if (g_str_equal (value, "hang") || g_str_equal (value, "crash") ||
          g_str_equal (value, "garbage"))
        {
          g_hash_table_remove (intercept_replies, event);
          g_hash_table_replace (intercept_specials, g_strdup (event), g_strdup (value));
        }
      else
        {
          g_autoptr(JsonParser) parser = json_parser_new ();
          g_autoptr(GError) local_error = NULL;
          g_autofree char *contents = NULL;
          JsonNode *root;

          /* @PATH reads the JSON from a file: replies too big for argv. */
          if (value[0] == '@')
            {
              if (!g_file_get_contents (value + 1, &contents, NULL, &local_error))
                {
                  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                               "--intercept-reply %s: %s", spec, local_error->message);
                  return FALSE;
                }
              value = contents;
            }

          if (!json_parser_load_from_data (parser, value, -1, &local_error))
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--intercept-reply %s: %s", spec, local_error->message);
              return FALSE;
            }

          root = json_parser_get_root (parser);
          if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--intercept-reply %s: not a JSON object", spec);
              return FALSE;
            }

          g_hash_table_remove (intercept_specials, event);
          g_hash_table_replace (intercept_replies, g_strdup (event), json_node_copy (root));
        }
    }

  return TRUE;
}

static void
handle_line (const char *line,
             gsize       len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  JsonObject *object;
  const char *type;

  record_line (line, len);

  if (opt_never_hello)
    return;

  if (!json_parser_load_from_data (parser, line, (gssize) len, &error))
    {
      fprintf (stderr, "fake-extension: bad line: %s\n", error->message);
      return;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;

  object = json_node_get_object (root);
  type = get_string_member (object, "type");
  if (type == NULL)
    return;

  if (g_str_equal (type, "command_invoked"))
    {
      const char *id = get_string_member (object, "id");
      const char *name = get_string_member (object, "name");
      const char *args = get_string_member (object, "args");

      if (id == NULL)
        return;

      handle_command (id, name ? name : "", args ? args : "");
    }
  else if (g_str_equal (type, "tool_call"))
    {
      handle_tool_call (object);
    }
  else if (g_str_equal (type, "event_intercept"))
    {
      handle_intercept (object);
    }
  else if (g_str_equal (type, "tool_result"))
    {
      handle_call_result (object, root);
    }
  else if (g_str_equal (type, "shutdown"))
    {
      send_lines (opt_send_on_shutdown);
      if (opt_ignore_shutdown)
        return;

      send_simple ("shutdown_ack");
      exit (0);
    }

  /* hello_ack, tool_cancel and everything else: recorded above, nothing more. */
}

/* Sends every due answer, earliest deadline first (ties in queue order). */
static void
send_due_late_answers (void)
{
  gint64 now = g_get_monotonic_time ();

  for (;;)
    {
      LateAnswer *first = NULL;
      guint first_index = 0;

      for (guint i = 0; i < late_answers->len; i++)
        {
          LateAnswer *late = g_ptr_array_index (late_answers, i);

          if (late->deadline <= now && (first == NULL || late->deadline < first->deadline))
            {
              first = late;
              first_index = i;
            }
        }

      if (first == NULL)
        break;

      send_late (first);
      g_ptr_array_remove_index (late_answers, first_index);
    }
}

/* Milliseconds until the next late answer is due, or -1 for none. */
static int
next_timeout (void)
{
  gint64 now = g_get_monotonic_time ();
  gint64 first = G_MAXINT64;

  for (guint i = 0; i < late_answers->len; i++)
    {
      LateAnswer *late = g_ptr_array_index (late_answers, i);

      first = MIN (first, late->deadline);
    }

  if (first == G_MAXINT64)
    return -1;
  if (first <= now)
    return 0;

  return (int) MIN ((first - now + 999) / 1000, G_MAXINT);
}

static G_GNUC_NORETURN void
handle_eof (void)
{
  if (!opt_ignore_shutdown)
    exit (0);

  /* Keep answering late commands, then sleep until killed. */
  for (;;)
    {
      int timeout = next_timeout ();

      if (timeout < 0)
        sleep_forever ();

      poll (NULL, 0, timeout);
      send_due_late_answers ();
    }
}

static G_GNUC_NORETURN void
read_loop (void)
{
  g_autoptr(GByteArray) partial = g_byte_array_new ();
  g_autofree guint8 *chunk = g_malloc (READ_CHUNK_SIZE);

  for (;;)
    {
      struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
      gsize start = 0;
      ssize_t n;
      int ret;

      ret = poll (&pfd, 1, next_timeout ());
      if (ret < 0 && errno != EINTR)
        {
          fprintf (stderr, "fake-extension: poll failed: %s\n", g_strerror (errno));
          exit (1);
        }

      send_due_late_answers ();

      if (ret <= 0)
        continue;

      n = read (STDIN_FILENO, chunk, READ_CHUNK_SIZE);
      if (n < 0)
        {
          if (errno == EINTR || errno == EAGAIN)
            continue;
          fprintf (stderr, "fake-extension: read failed: %s\n", g_strerror (errno));
          n = 0;
        }

      if (n == 0)
        {
          /* A last line without its newline still counts. */
          if (partial->len > 0)
            {
              g_byte_array_append (partial, (const guint8 *) "", 1);
              handle_line ((const char *) partial->data, partial->len - 1);
              g_byte_array_set_size (partial, 0);
            }
          handle_eof ();
        }

      g_byte_array_append (partial, chunk, (guint) n);

      for (gsize i = 0; i < partial->len; i++)
        {
          if (partial->data[i] != '\n')
            continue;

          /* NUL-terminate in place for the parser; the '\n' is not needed. */
          partial->data[i] = '\0';
          handle_line ((const char *) partial->data + start, i - start);
          start = i + 1;
        }

      if (start > 0)
        g_byte_array_remove_range (partial, 0, (guint) start);
    }
}

/* --starts-file and --crash-after-ready: a crash loop, or crashes of the
 * first starts only, for the supervisor's tests. */
static void
count_start_and_maybe_crash (void)
{
  guint starts = 0;

  if (opt_starts_file != NULL)
    {
      g_autofree char *text = NULL;
      FILE *file = fopen (opt_starts_file, "a");

      if (file != NULL)
        {
          fputs ("ready\n", file);
          fclose (file);
        }
      if (g_file_get_contents (opt_starts_file, &text, NULL, NULL))
        for (const char *c = text; *c != '\0'; c++)
          starts += *c == '\n';
    }

  if (opt_crash_after_ready > 0 && (opt_starts_file == NULL || starts <= (guint) opt_crash_after_ready))
    {
      fprintf (stderr, "fake-extension: crashing with status 3 after ready (start %u)\n", starts);
      exit (3);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;

  context = g_option_context_new ("- scripted zot extension for tests");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "fake-extension: %s\n", error->message);
      return 2;
    }

  /* A closed stdout must be an error we can see, not a silent death. */
  signal (SIGPIPE, SIG_IGN);
  if (opt_ignore_sigterm)
    signal (SIGTERM, SIG_IGN);

  late_answers = g_ptr_array_new_with_free_func (late_answer_free);
  waiters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (!parse_intercept_replies (&error))
    {
      fprintf (stderr, "fake-extension: %s\n", error->message);
      return 2;
    }

  if (opt_record != NULL)
    {
      record_file = fopen (opt_record, "a");
      if (record_file == NULL)
        {
          fprintf (stderr, "fake-extension: cannot open %s: %s\n",
                   opt_record, g_strerror (errno));
          return 2;
        }
    }

  if (opt_env_file != NULL)
    {
      g_auto(GStrv) environment = g_get_environ ();
      g_autofree char *joined = g_strjoinv ("\n", environment);

      g_file_set_contents (opt_env_file, joined, -1, NULL);
    }

  if (opt_spawn_sleeper != NULL)
    {
      g_autofree char *text = NULL;
      int ready[2];
      char byte;
      pid_t pid;

      /* The child says when it has left the group: a stop that came first
       * would end it with the group, and the test would see no escaper. */
      if (pipe (ready) != 0)
        return 1;
      pid = fork ();
      if (pid == 0)
        {
          close (ready[0]);
          if (opt_sleeper_escapes)
            setsid ();
          if (write (ready[1], "", 1) != 1)
            _exit (127);
          close (ready[1]);
          execlp ("sleep", "sleep", "300", NULL);
          _exit (127);
        }
      close (ready[1]);
      while (read (ready[0], &byte, 1) < 0 && errno == EINTR)
        ;
      close (ready[0]);
      text = g_strdup_printf ("%d", (int) pid);
      g_file_set_contents (opt_spawn_sleeper, text, -1, NULL);
    }

  if (opt_exit_before_hello >= 0)
    {
      fprintf (stderr, "fake-extension: exiting with status %d before hello\n",
               opt_exit_before_hello);
      return opt_exit_before_hello;
    }

  if (opt_never_hello)
    read_loop ();

  send_lines (opt_send_before_hello);
  sleep_ms (opt_hello_delay_ms);
  send_hello ();

  if (opt_invalid_utf8)
    send_invalid_utf8 ();

  for (guint i = 0; opt_commands != NULL && opt_commands[i] != NULL; i++)
    send_register_command (opt_commands[i]);

  for (int i = 0; i < opt_many_commands; i++)
    {
      g_autofree char *name = g_strdup_printf ("c%d", i);
      send_register_command (name);
    }

  send_lines (opt_register_json);

  sleep_ms (opt_ready_delay_ms);
  if (!opt_no_ready)
    send_simple ("ready");

  for (guint i = 0; opt_register_after_ready != NULL && opt_register_after_ready[i] != NULL; i++)
    send_register_command (opt_register_after_ready[i]);

  send_lines (opt_send_after_ready);
  count_start_and_maybe_crash ();

  for (guint i = 0; opt_notify_on_start != NULL && opt_notify_on_start[i] != NULL; i++)
    {
      const char *spec = opt_notify_on_start[i];
      const char *colon = strchr (spec, ':');
      g_autofree char *level = NULL;

      if (colon != NULL)
        {
          level = g_strndup (spec, colon - spec);
          send_notify (level, colon + 1);
        }
      else
        {
          send_notify ("info", spec);
        }
    }

  if (opt_exit_after_notes >= 0)
    {
      GString *notes = g_string_new (NULL);

      /* One write, then gone: the host sees the exit before it has read
       * most of these. */
      for (int i = 0; i < opt_exit_after_notes; i++)
        {
          g_autoptr(JsonObject) note = json_object_new ();
          g_autoptr(JsonNode) root = NULL;
          g_autofree char *message = g_strdup_printf ("last words %d", i);
          g_autofree char *text = NULL;

          json_object_set_string_member (note, "type", "notify");
          json_object_set_string_member (note, "level", "info");
          json_object_set_string_member (note, "message", message);
          root = json_node_init_object (json_node_alloc (), note);
          text = json_to_string (root, FALSE);
          g_string_append_printf (notes, "%s\n", text);
        }
      send_line (notes->str, notes->len - 1);
      g_string_free (notes, TRUE);
      exit (0);
    }

  if (opt_huge_frame)
    send_huge_frame ();

  if (opt_flood)
    flood ();

  read_loop ();
}
