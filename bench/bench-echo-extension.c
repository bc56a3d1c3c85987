/* bench-echo-extension.c — the fast fixture extension of the benchmarks.
 *
 * A benchmark measures the host, so this side has to cost as little as
 * possible: plain read(2)/write(2) on fds 0 and 1 with a big buffer, every
 * reply of one read coalesced into one write, and a hand scan instead of a
 * JSON parse. The host writes "type" first and the request "id" last
 * (json-glib keeps insertion order), so a frame that starts with
 * {"type":" and ends with "id":"…"} is answered without parsing; anything
 * else falls back to json-glib.
 *
 * Modes:
 *   (default)     hello, register_tool "echo", [subscribe], ready; answers
 *                 tool_call, event_intercept and shutdown; counts events
 *   --line-echo   writes every complete line it reads back (bare GIO baseline)
 *   --hello-only  one hello line, then idle until stdin EOF (startup baseline)
 *   --hold        registers "hold" instead of "echo" and never answers a
 *                 tool_call: it sends notify "held <count>" for each, so that
 *                 a benchmark knows its calls arrived (chaos)
 *   --call-tool   advertises call_tool and registers the command
 *                 "bench-call": "/bench-call N K TOOL ARGS" sends N call_tool
 *                 requests for TOOL with the JSON object ARGS, K in flight,
 *                 and answers with display "<µs> <reply bytes>": the time
 *                 from its first request to its last result (round trip)
 */
#define G_LOG_DOMAIN "zot-bench-echo"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#define INITIAL_BUFFER_SIZE (1024 * 1024)
#define FIELD_MAX           128

typedef struct
{
  char  *data;
  gsize  len;
  gsize  cap;
} Buffer;

static char     *opt_name = NULL;
static gboolean  opt_subscribe = FALSE;
static gboolean  opt_no_intercept = FALSE;
static int       opt_ack_every = 0;
static int       opt_pad = -1;
static gboolean  opt_line_echo = FALSE;
static gboolean  opt_hello_only = FALSE;
static gboolean  opt_hold = FALSE;
static gboolean  opt_call_tool = FALSE;

static const GOptionEntry entries[] = {
  { "name", 0, 0, G_OPTION_ARG_STRING, &opt_name,
    "Name sent in hello (default \"bench-echo\")", "NAME" },
  { "subscribe", 0, 0, G_OPTION_ARG_NONE, &opt_subscribe,
    "Subscribe to every event and intercept tool_call", NULL },
  { "no-intercept", 0, 0, G_OPTION_ARG_NONE, &opt_no_intercept,
    "With --subscribe, subscribe to events but intercept nothing", NULL },
  { "ack-every", 0, 0, G_OPTION_ARG_INT, &opt_ack_every,
    "Send notify \"ack <count>\" after every N events", "N" },
  { "pad", 0, 0, G_OPTION_ARG_INT, &opt_pad,
    "Bytes of text in a tool_result (default: a ~150-byte frame)", "N" },
  { "line-echo", 0, 0, G_OPTION_ARG_NONE, &opt_line_echo,
    "Echo every line back, nothing else", NULL },
  { "hello-only", 0, 0, G_OPTION_ARG_NONE, &opt_hello_only,
    "Print one hello line, then wait for stdin EOF", NULL },
  { "hold", 0, 0, G_OPTION_ARG_NONE, &opt_hold,
    "Register \"hold\" and never answer its calls", NULL },
  { "call-tool", 0, 0, G_OPTION_ARG_NONE, &opt_call_tool,
    "Register the command \"bench-call\" that sends call_tool requests", NULL },
  { NULL }
};

static const char * const all_events[] = {
  "session_start", "session_end", "user_prompt_submit", "turn_start", "turn_end",
  "tool_call", "tool_confirmation_requested", "permission_decision", "tool_result",
  "assistant_message", "pre_compact", "post_compact", "subagent_start", "subagent_stop",
};

/* A /bench-call run. Its requests have the ids b<base>…b<base + n - 1>,
 * so a reply to anything else is caught. */
typedef struct
{
  char    *command_id;   /* NULL while no run goes on */
  char    *tail;         /* ","name":TOOL,"args":ARGS}\n, after the id */
  guint8  *outstanding;  /* by id - base */
  guint64  base;
  guint64  n;
  guint64  in_flight;
  guint64  sent;
  guint64  received;
  gint64   start;
  gsize    reply_bytes;
  char    *error;        /* the first failed result, or a stray reply */
} CallRun;

static Buffer   out;
static char    *padding;
static guint64  events_seen;
static guint64  calls_held;
static CallRun  run;
static guint64  next_call_id = 1;

static void
buffer_reserve (Buffer *buffer,
                gsize   extra)
{
  if (buffer->len + extra <= buffer->cap)
    return;

  while (buffer->len + extra > buffer->cap)
    buffer->cap = buffer->cap ? buffer->cap * 2 : INITIAL_BUFFER_SIZE;
  buffer->data = g_realloc (buffer->data, buffer->cap);
}

static void
buffer_append (Buffer     *buffer,
               const char *data,
               gsize       len)
{
  buffer_reserve (buffer, len);
  memcpy (buffer->data + buffer->len, data, len);
  buffer->len += len;
}

static void
buffer_append_str (Buffer     *buffer,
                   const char *str)
{
  buffer_append (buffer, str, strlen (str));
}

/* The host went away: nothing left to do. */
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
          exit (0);
        }
      data += n;
      len -= (gsize) n;
    }
}

static void
flush_out (void)
{
  if (out.len > 0)
    write_all (out.data, out.len);
  out.len = 0;
}

static void
append_node_line (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *line = NULL;
  gsize length = 0;

  json_generator_set_root (generator, node);
  line = json_generator_to_data (generator, &length);
  buffer_append (&out, line, length);
  buffer_append (&out, "\n", 1);
}

static void
append_hello (void)
{
  buffer_append_str (&out, "{\"type\":\"hello\",\"name\":\"");
  buffer_append_str (&out, opt_name);
  if (opt_call_tool)
    buffer_append_str (&out, "\",\"version\":\"1.0.0\",\"capabilities\":[\"commands\",\"call_tool\"]}\n");
  else
    buffer_append_str (&out, "\",\"version\":\"1.0.0\",\"capabilities\":[\"tools\"]}\n");
}

static void
append_registration (void)
{
  append_hello ();
  if (opt_call_tool)
    buffer_append_str (&out,
                       "{\"type\":\"register_command\",\"name\":\"bench-call\","
                       "\"description\":\"N K TOOL ARGS: N call_tool requests, K in flight\"}\n");
  else if (opt_hold)
    buffer_append_str (&out,
                       "{\"type\":\"register_tool\",\"name\":\"hold\","
                       "\"description\":\"Never answers\","
                       "\"schema\":{\"type\":\"object\"}}\n");
  else
    buffer_append_str (&out,
                       "{\"type\":\"register_tool\",\"name\":\"echo\","
                       "\"description\":\"Answers with a fixed text\","
                       "\"schema\":{\"type\":\"object\"}}\n");

  if (opt_subscribe)
    {
      buffer_append_str (&out, "{\"type\":\"subscribe\",\"events\":[");
      for (guint i = 0; i < G_N_ELEMENTS (all_events); i++)
        {
          if (i > 0)
            buffer_append_str (&out, ",");
          buffer_append_str (&out, "\"");
          buffer_append_str (&out, all_events[i]);
          buffer_append_str (&out, "\"");
        }
      buffer_append_str (&out, opt_no_intercept ? "]}\n" : "],\"intercept\":[\"tool_call\"]}\n");
    }

  buffer_append_str (&out, "{\"type\":\"ready\"}\n");
}

/* The raw (still escaped) text of the top-level "type", when the frame
 * starts with it, as every frame of the host does. */
static gboolean
scan_type (const char  *line,
           gsize        len,
           const char **type,
           gsize       *type_len)
{
  static const char prefix[] = "{\"type\":\"";
  const gsize prefix_len = sizeof prefix - 1;
  const char *end;

  if (len <= prefix_len || memcmp (line, prefix, prefix_len) != 0)
    return FALSE;

  end = memchr (line + prefix_len, '"', len - prefix_len);
  if (end == NULL)
    return FALSE;

  *type = line + prefix_len;
  *type_len = (gsize) (end - *type);
  return TRUE;
}

/* The raw text of a final "id":"…"} member, which is how the host ends its
 * requests. */
static gboolean
scan_id (const char  *line,
         gsize        len,
         const char **id,
         gsize       *id_len)
{
  static const char key[] = "\"id\":\"";
  const gsize key_len = sizeof key - 1;
  const char *close;

  if (len < key_len + 3 || line[len - 1] != '}' || line[len - 2] != '"')
    return FALSE;

  close = line + len - 2;
  for (const char *p = close - 1; p >= line + key_len - 1; p--)
    {
      if (*p == '"' || *p == '\\')
        {
          if (*p == '\\' || (gsize) (p - line) + 1 < key_len)
            return FALSE;
          if (memcmp (p + 1 - key_len, key, key_len) != 0)
            return FALSE;
          *id = p + 1;
          *id_len = (gsize) (close - *id);
          return TRUE;
        }
    }

  return FALSE;
}

static gboolean
type_is (const char *type,
         gsize       type_len,
         const char *name)
{
  return strlen (name) == type_len && memcmp (type, name, type_len) == 0;
}

/* notify "<word> <count>": how a benchmark learns what got here. */
static void
append_count_note (const char *word,
                   guint64     count)
{
  char note[96];
  int n = g_snprintf (note, sizeof note,
                      "{\"type\":\"notify\",\"level\":\"info\",\"message\":\"%s %" G_GUINT64_FORMAT "\"}\n",
                      word, count);

  buffer_append (&out, note, (gsize) n);
}

static void
on_event (void)
{
  events_seen++;
  if (opt_ack_every > 0 && events_seen % (guint64) opt_ack_every == 0)
    append_count_note ("ack", events_seen);
}

static void
on_call_held (void)
{
  append_count_note ("held", ++calls_held);
}

static void
on_shutdown (void)
{
  buffer_append_str (&out, "{\"type\":\"shutdown_ack\"}\n");
  flush_out ();
  exit (0);
}

static void
append_tool_result_raw (const char *id,
                        gsize       id_len)
{
  buffer_append_str (&out, "{\"type\":\"tool_result\",\"id\":\"");
  buffer_append (&out, id, id_len);
  buffer_append_str (&out, "\",\"content\":[{\"type\":\"text\",\"text\":\"");
  buffer_append_str (&out, padding);
  buffer_append_str (&out, "\"}],\"is_error\":false}\n");
}

static void
append_intercept_reply_raw (const char *id,
                            gsize       id_len)
{
  buffer_append_str (&out, "{\"type\":\"event_intercept_response\",\"id\":\"");
  buffer_append (&out, id, id_len);
  buffer_append_str (&out, "\"}\n");
}

/* call_tool */

static void
append_command_response (const char *id,
                         const char *display,
                         const char *error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) reply = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "command_response");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, id);
  json_builder_set_member_name (builder, "action");
  json_builder_add_string_value (builder, "display");
  json_builder_set_member_name (builder, "display");
  json_builder_add_string_value (builder, display != NULL ? display : "");
  if (error != NULL)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, error);
    }
  json_builder_end_object (builder);

  reply = json_builder_get_root (builder);
  append_node_line (reply);
}

static char *
node_to_json (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

static void
append_call (void)
{
  char head[64];
  guint64 id = run.base + run.sent;
  int n = g_snprintf (head, sizeof head, "{\"type\":\"call_tool\",\"id\":\"b%" G_GUINT64_FORMAT, id);

  buffer_append (&out, head, (gsize) n);
  buffer_append_str (&out, run.tail);
  run.outstanding[run.sent] = 1;
  run.sent++;
}

static void
finish_run (void)
{
  g_autofree char *display = NULL;

  display = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GSIZE_FORMAT,
                             g_get_monotonic_time () - run.start, run.reply_bytes);
  append_command_response (run.command_id, display, run.error);

  g_clear_pointer (&run.command_id, g_free);
  g_clear_pointer (&run.tail, g_free);
  g_clear_pointer (&run.outstanding, g_free);
  g_clear_pointer (&run.error, g_free);
}

static void
run_failed (const char *format,
            ...) G_GNUC_PRINTF (1, 2);

static void
run_failed (const char *format,
            ...)
{
  va_list args;

  if (run.error != NULL)
    return;

  va_start (args, format);
  run.error = g_strdup_vprintf (format, args);
  va_end (args);
}

/* One tool_result: @id is the raw text of its id. */
static void
on_call_result (const char *id,
                gsize       id_len,
                gboolean    is_error,
                const char *line,
                gsize       len)
{
  guint64 number = 0;
  gsize i;

  if (run.command_id == NULL)
    return;

  for (i = 1; i < id_len && i < 20 && g_ascii_isdigit (id[i]); i++)
    number = number * 10 + (guint64) (id[i] - '0');
  if (id_len < 2 || id[0] != 'b' || i != id_len ||
      number < run.base || number - run.base >= run.sent || !run.outstanding[number - run.base])
    {
      run_failed ("a result with an id that no request of this run has: %.*s", (int) MIN (id_len, 64), id);
      return;
    }

  run.outstanding[number - run.base] = 0;
  run.reply_bytes = len + 1;
  if (is_error)
    run_failed ("call %.*s failed: %.*s", (int) id_len, id, (int) MIN (len, 400), line);

  run.received++;
  if (run.sent < run.n)
    append_call ();
  else if (run.received == run.n)
    finish_run ();
}

/* The host writes {"type":"tool_result","id":"…", then the rest, and ends
 * with "is_error":…,"truncated":…}. */
static gboolean
scan_call_result (const char  *line,
                  gsize        len,
                  const char  *after_type,
                  const char **id,
                  gsize       *id_len,
                  gboolean    *is_error)
{
  static const char key[] = "\",\"id\":\"";
  static const char ok[] = "\"is_error\":false,";
  const gsize key_len = sizeof key - 1;
  const char *end = line + len;
  const char *close;
  gsize tail;

  if ((gsize) (end - after_type) < key_len || memcmp (after_type, key, key_len) != 0)
    return FALSE;

  *id = after_type + key_len;
  close = memchr (*id, '"', (gsize) (end - *id));
  if (close == NULL)
    return FALSE;
  *id_len = (gsize) (close - *id);

  tail = MIN (len, (gsize) 48);
  *is_error = memmem (end - tail, tail, ok, sizeof ok - 1) == NULL;
  return TRUE;
}

static void
on_command_invoked (JsonObject *frame)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) words = NULL;
  const char *id = json_object_get_string_member_with_default (frame, "id", NULL);
  const char *args = json_object_get_string_member_with_default (frame, "args", "");
  g_autoptr(JsonNode) tool = NULL;
  g_autofree char *tool_json = NULL;
  g_autofree char *args_json = NULL;
  guint64 n = 0;
  guint64 in_flight = 0;

  if (id == NULL)
    return;

  words = g_strsplit (args, " ", 4);
  if (g_strv_length (words) != 4 ||
      !g_ascii_string_to_unsigned (words[0], 10, 1, G_MAXUINT32, &n, NULL) ||
      !g_ascii_string_to_unsigned (words[1], 10, 1, G_MAXUINT32, &in_flight, NULL) ||
      !json_parser_load_from_data (parser, words[3], -1, &error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      append_command_response (id, NULL, "usage: /bench-call N K TOOL {ARGS}");
      return;
    }

  if (run.command_id != NULL)
    {
      append_command_response (id, NULL, "a run is going on");
      return;
    }

  tool = json_node_init_string (json_node_alloc (), words[2]);
  tool_json = node_to_json (tool);
  args_json = node_to_json (json_parser_get_root (parser));
  run.tail = g_strdup_printf ("\",\"name\":%s,\"args\":%s}\n", tool_json, args_json);

  run.command_id = g_strdup (id);
  run.outstanding = g_malloc0 (n);
  run.base = next_call_id;
  next_call_id += n;
  run.n = n;
  run.in_flight = in_flight;
  run.sent = 0;
  run.received = 0;
  run.reply_bytes = 0;
  run.start = g_get_monotonic_time ();

  while (run.sent < run.in_flight && run.sent < run.n)
    append_call ();
}

/* Frames that do not follow the host's member order. */
static void
handle_line_slowly (const char *line,
                    gsize       len)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) reply = NULL;
  JsonObject *frame;
  JsonNode *root;
  const char *type;
  const char *id;

  if (!json_parser_load_from_data (parser, line, (gssize) len, NULL))
    return;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;

  frame = json_node_get_object (root);
  type = json_object_get_string_member_with_default (frame, "type", "");
  id = json_object_get_string_member_with_default (frame, "id", NULL);

  if (g_str_equal (type, "event"))
    {
      on_event ();
      return;
    }
  if (g_str_equal (type, "shutdown"))
    on_shutdown ();
  if (id == NULL)
    return;

  if (opt_call_tool)
    {
      if (g_str_equal (type, "command_invoked"))
        on_command_invoked (frame);
      else if (g_str_equal (type, "tool_result"))
        on_call_result (id, strlen (id), json_object_get_boolean_member_with_default (frame, "is_error", TRUE),
                        line, len);
      return;
    }

  if (opt_hold && g_str_equal (type, "tool_call"))
    {
      on_call_held ();
      return;
    }

  json_builder_begin_object (builder);
  if (g_str_equal (type, "tool_call"))
    {
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "tool_result");
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, id);
      json_builder_set_member_name (builder, "content");
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "text");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, padding);
      json_builder_end_object (builder);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "is_error");
      json_builder_add_boolean_value (builder, FALSE);
    }
  else if (g_str_equal (type, "event_intercept"))
    {
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "event_intercept_response");
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, id);
    }
  else
    return;
  json_builder_end_object (builder);

  reply = json_builder_get_root (builder);
  append_node_line (reply);
}

static void
handle_line (const char *line,
             gsize       len)
{
  const char *type;
  const char *id;
  gsize type_len;
  gsize id_len;

  if (len > 0 && line[len - 1] == '\r')
    len--;
  if (len == 0)
    return;

  if (!scan_type (line, len, &type, &type_len))
    {
      handle_line_slowly (line, len);
      return;
    }

  if (type_is (type, type_len, "event"))
    on_event ();
  else if (type_is (type, type_len, "tool_result") && opt_call_tool)
    {
      gboolean is_error;

      if (scan_call_result (line, len, type + type_len, &id, &id_len, &is_error))
        on_call_result (id, id_len, is_error, line, len);
      else
        handle_line_slowly (line, len);
    }
  else if (type_is (type, type_len, "command_invoked"))
    handle_line_slowly (line, len);
  else if (type_is (type, type_len, "tool_call") && opt_hold)
    on_call_held ();
  else if (type_is (type, type_len, "tool_call"))
    {
      if (scan_id (line, len, &id, &id_len))
        append_tool_result_raw (id, id_len);
      else
        handle_line_slowly (line, len);
    }
  else if (type_is (type, type_len, "event_intercept"))
    {
      if (scan_id (line, len, &id, &id_len))
        append_intercept_reply_raw (id, id_len);
      else
        handle_line_slowly (line, len);
    }
  else if (type_is (type, type_len, "shutdown"))
    on_shutdown ();
  /* hello_ack, tool_cancel and anything new: nothing to answer. */
}

/* Reads stdin until EOF, handing complete lines to @handle (or echoing
 * them when @handle is NULL). */
static void
read_loop (void (*handle) (const char *line,
                           gsize       len))
{
  Buffer in = { 0 };

  buffer_reserve (&in, INITIAL_BUFFER_SIZE);

  for (;;)
    {
      gsize start = 0;
      ssize_t n;

      if (in.len == in.cap)
        buffer_reserve (&in, in.cap);

      n = read (STDIN_FILENO, in.data + in.len, in.cap - in.len);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (n == 0)
        break;
      in.len += (gsize) n;

      if (handle == NULL)
        {
          const char *last = memrchr (in.data, '\n', in.len);

          if (last != NULL)
            start = (gsize) (last - in.data) + 1;
          write_all (in.data, start);
        }
      else
        {
          const char *newline;

          while ((newline = memchr (in.data + start, '\n', in.len - start)) != NULL)
            {
              gsize end = (gsize) (newline - in.data);

              handle (in.data + start, end - start);
              start = end + 1;
            }
          flush_out ();
        }

      if (start > 0)
        {
          memmove (in.data, in.data + start, in.len - start);
          in.len -= start;
        }
    }

  flush_out ();
  g_free (in.data);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gsize pad;

  signal (SIGPIPE, SIG_IGN);

  context = g_option_context_new ("- the benchmarks' echo extension");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-echo-extension: %s\n", error->message);
      return 2;
    }

  if (opt_name == NULL)
    opt_name = g_strdup ("bench-echo");

  /* {"type":"tool_result","id":"t1234","content":[{"type":"text","text":"…"}],"is_error":false}
   * is 91 bytes with an empty text, so 59 bytes of text make ~150 bytes. */
  pad = opt_pad >= 0 ? (gsize) opt_pad : 59;
  padding = g_malloc (pad + 1);
  for (gsize i = 0; i < pad; i++)
    padding[i] = (char) ('a' + (i % 26));
  padding[pad] = '\0';

  if (opt_line_echo)
    {
      read_loop (NULL);
      return 0;
    }

  if (opt_hello_only)
    {
      append_hello ();
      flush_out ();
      read_loop (handle_line);
      return 0;
    }

  append_registration ();
  flush_out ();
  read_loop (handle_line);

  return 0;
}
