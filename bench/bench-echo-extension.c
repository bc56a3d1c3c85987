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
  { NULL }
};

static const char * const all_events[] = {
  "session_start", "session_end", "user_prompt_submit", "turn_start", "turn_end",
  "tool_call", "tool_confirmation_requested", "permission_decision", "tool_result",
  "assistant_message", "pre_compact", "post_compact", "subagent_start", "subagent_stop",
};

static Buffer   out;
static char    *padding;
static guint64  events_seen;
static guint64  calls_held;

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
  buffer_append_str (&out, "\",\"version\":\"1.0.0\",\"capabilities\":[\"tools\"]}\n");
}

static void
append_registration (void)
{
  append_hello ();
  if (opt_hold)
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
