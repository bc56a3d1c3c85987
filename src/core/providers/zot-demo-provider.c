/* zot-demo-provider.c — the offline model.
 *
 * Deterministic, no network, no key: it answers so that every feature of
 * the host can be tried and tested without a real model. The mini-syntax
 * (docs/demo-model.md):
 *
 *   tool: NAME {json arguments}     one line per call; several lines make
 *                                   one message with several calls
 *   think: TEXT                     reasoning streamed before the answer,
 *                                   one line of it per line
 *
 * Any other user message is echoed. After tool results it summarises
 * them. Asked to summarise the conversation (/compact), it lists the user
 * messages. It streams its answer in small pieces, like a real model.
 */
#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-demo-provider.h"
#include "zot-message.h"
#include "zot-provider-table.h"

#define DEMO_NAME  "demo"
#define DEMO_CHUNK 24
#define DEMO_PREFIX "[demo model, offline] "

struct _ZotDemoProvider
{
  ZotProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotDemoProvider, zot_demo_provider, ZOT_TYPE_PROVIDER)

typedef struct
{
  ZotProviderReply *reply;
  char             *reasoning;
  gsize             reasoning_offset;
  char             *text;
  gsize             offset;
  guint             tool_index;
} StreamData;

static void
stream_data_free (StreamData *data)
{
  g_clear_pointer (&data->reply, zot_provider_reply_free);
  g_free (data->reasoning);
  g_free (data->text);
  g_free (data);
}

static const char *
zot_demo_provider_get_name (ZotProvider *provider)
{
  return DEMO_NAME;
}

static const char *
zot_demo_provider_get_default_model (ZotProvider *provider)
{
  return zot_provider_table_lookup (DEMO_NAME)->default_model;
}

static JsonObject *
last_message (ZotProviderRequest *request)
{
  guint n = request->messages ? json_array_get_length (request->messages) : 0;

  if (n == 0)
    return NULL;
  return json_array_get_object_element (request->messages, n - 1);
}

/* "tool: NAME {json}" lines of the last user message */
static JsonArray *
parse_tool_lines (const char  *text,
                  GString     *errors)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  JsonArray *calls = json_array_new ();

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *name = NULL;
      const char *line = g_strstrip (lines[i]);
      const char *rest;
      const char *end;
      JsonObject *call;

      if (!g_str_has_prefix (line, "tool:"))
        continue;

      rest = line + strlen ("tool:");
      while (g_ascii_isspace (*rest))
        rest++;
      end = rest;
      while (*end != '\0' && !g_ascii_isspace (*end) && *end != '{')
        end++;
      if (end == rest)
        continue;

      name = g_strndup (rest, (gsize) (end - rest));
      while (g_ascii_isspace (*end))
        end++;

      call = json_object_new ();
      json_object_set_string_member (call, "name", name);
      if (*end == '\0')
        json_object_set_object_member (call, "input", json_object_new ());
      else
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(JsonObject) args = zot_json_object_from_string (end, &error);

          if (args != NULL)
            json_object_set_object_member (call, "input", g_steal_pointer (&args));
          else
            {
              /* Passed on as the model would: malformed arguments. */
              json_object_set_object_member (call, "input", json_object_new ());
              json_object_set_string_member (call, "input_raw", end);
              g_string_append_printf (errors, "(the arguments for %s are not a JSON object) ", name);
            }
        }
      json_array_add_object_element (calls, call);
    }

  return calls;
}

static char *
summarise_results (JsonObject *message,
                   JsonArray  *history)
{
  GString *text = g_string_new (DEMO_PREFIX);
  JsonArray *content = json_object_get_array_member (message, "content");
  guint n = json_array_get_length (content);

  g_string_append_printf (text, "%u tool call%s finished.", n, n == 1 ? "" : "s");
  for (guint i = 0; i < n; i++)
    {
      JsonObject *block = json_array_get_object_element (content, i);
      JsonArray *inner = json_object_has_member (block, "content")
                         ? json_object_get_array_member (block, "content") : NULL;
      g_autofree char *result = zot_content_get_text (inner);
      gboolean is_error = json_object_get_boolean_member_with_default (block, "is_error", FALSE);

      if (g_utf8_strlen (result, -1) > 400)
        {
          char *cut = g_utf8_substring (result, 0, 400);
          g_free (result);
          result = g_strconcat (cut, "…", NULL);
          g_free (cut);
        }

      g_string_append_printf (text, "\n- %s %s: %s",
                              json_object_get_string_member_with_default (block, "tool_use_id", "?"),
                              is_error ? "failed" : "returned",
                              result);
    }

  return g_string_free (text, FALSE);
}

static char *
summarise_conversation (JsonArray *history)
{
  GString *text = g_string_new (NULL);
  guint n = json_array_get_length (history);
  guint users = 0;

  for (guint i = 0; i + 1 < n; i++)
    {
      JsonObject *message = json_array_get_object_element (history, i);
      g_autofree char *said = NULL;

      if (g_strcmp0 (zot_message_get_role (message), "user") != 0)
        continue;
      said = zot_message_get_text (message);
      if (*said == '\0')
        continue;
      users++;
      g_string_append_printf (text, "\n- %s", said);
    }

  g_string_prepend (text, users > 0 ? "The user said:" : "Nothing was said yet.");
  return g_string_free (text, FALSE);
}

/* "think:" lines of the last user message, as the model's reasoning */
static char *
parse_think_lines (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *reasoning = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strstrip (lines[i]);

      if (!g_str_has_prefix (line, "think:"))
        continue;
      line += strlen ("think:");
      while (g_ascii_isspace (*line))
        line++;
      g_string_append_printf (reasoning, "%s%s", reasoning->len > 0 ? "\n" : "", line);
    }

  return g_string_free (reasoning, reasoning->len == 0);
}

/* The next piece of @text from *@offset, cut on a character boundary, or
 * %NULL at its end. */
static char *
next_chunk (const char *text,
            gsize      *offset)
{
  const char *start = text != NULL ? text + *offset : NULL;
  const char *end = start;

  if (start == NULL || *start == '\0')
    return NULL;

  while (*end != '\0' && (gsize) (end - start) < DEMO_CHUNK)
    end = g_utf8_next_char (end);
  *offset += (gsize) (end - start);
  return g_strndup (start, (gsize) (end - start));
}

static gboolean
emit_next_chunk (gpointer user_data)
{
  GTask *task = user_data;
  StreamData *data = g_task_get_task_data (task);
  ZotProvider *self = g_task_get_source_object (task);
  g_autofree char *chunk = NULL;

  if (g_task_return_error_if_cancelled (task))
    return G_SOURCE_REMOVE;

  chunk = next_chunk (data->reasoning, &data->reasoning_offset);
  if (chunk != NULL)
    {
      zot_provider_emit_reasoning_delta (self, chunk);
      return G_SOURCE_CONTINUE;
    }

  chunk = next_chunk (data->text, &data->offset);
  if (chunk != NULL)
    {
      zot_provider_emit_text_delta (self, chunk);
      return G_SOURCE_CONTINUE;
    }

  g_task_return_pointer (task, g_steal_pointer (&data->reply), (GDestroyNotify) zot_provider_reply_free);
  return G_SOURCE_REMOVE;
}

static gsize
request_bytes (ZotProviderRequest *request)
{
  gsize bytes = request->system_prompt ? strlen (request->system_prompt) : 0;

  for (guint i = 0; request->messages && i < json_array_get_length (request->messages); i++)
    bytes += zot_message_estimate_bytes (json_array_get_object_element (request->messages, i));
  return bytes;
}

/* The image blocks of a user message, to show that they arrived. */
static guint
count_images (JsonObject *message)
{
  JsonArray *content;
  guint n = 0;

  if (message == NULL || !json_object_has_member (message, "content") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (message, "content")))
    return 0;

  content = json_object_get_array_member (message, "content");
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);

      if (JSON_NODE_HOLDS_OBJECT (node) &&
          g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (node), "type", ""),
                     "image") == 0)
        n++;
    }
  return n;
}

static void
zot_demo_provider_stream_async (ZotProvider         *provider,
                                ZotProviderRequest  *request,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(GString) errors = g_string_new (NULL);
  StreamData *data;
  JsonObject *last;
  const char *role;
  GSource *source;

  task = g_task_new (provider, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_demo_provider_stream_async);

  data = g_new0 (StreamData, 1);
  data->reply = zot_provider_reply_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) stream_data_free);

  last = last_message (request);
  role = last ? zot_message_get_role (last) : "";

  if (g_str_equal (role, "tool"))
    data->text = summarise_results (last, request->messages);
  else
    {
      g_autofree char *said = last ? zot_message_get_text (last) : g_strdup ("");

      if (g_str_equal (said, ZOT_COMPACT_PROMPT))
        data->text = summarise_conversation (request->messages);
      else
        {
          g_autoptr(JsonArray) calls = parse_tool_lines (said, errors);
          guint n_calls = json_array_get_length (calls);

          data->reasoning = parse_think_lines (said);

          if (n_calls > 0)
            {
              data->text = g_strdup_printf (DEMO_PREFIX "Calling %u tool%s. %s",
                                            n_calls, n_calls == 1 ? "" : "s", errors->str);
              for (guint i = 0; i < n_calls; i++)
                {
                  JsonObject *call = json_array_get_object_element (calls, i);
                  JsonObject *block = json_object_new ();
                  g_autofree char *id = g_strdup_printf ("demo_%u_%u",
                                                         json_array_get_length (request->messages), i + 1);
                  g_autofree char *args = zot_json_object_to_string (json_object_get_object_member (call, "input"));

                  json_object_set_string_member (block, "type", "tool_use");
                  json_object_set_string_member (block, "id", id);
                  json_object_set_string_member (block, "name", json_object_get_string_member (call, "name"));
                  json_object_set_object_member (block, "input",
                                                 json_object_ref (json_object_get_object_member (call, "input")));
                  if (json_object_has_member (call, "input_raw"))
                    json_object_set_string_member (block, "input_raw",
                                                   json_object_get_string_member (call, "input_raw"));
                  json_array_add_object_element (content, block);
                  zot_provider_emit_tool_call_delta (provider, i, id,
                                                     json_object_get_string_member (call, "name"), args);
                }
              data->reply->stop_reason = g_strdup ("tool_use");
            }
          else
            {
              guint n_images = count_images (last);
              g_autofree char *images = n_images == 0 ? g_strdup ("")
                : g_strdup_printf (" (and %u image%s, which it cannot see)", n_images, n_images == 1 ? "" : "s");

              data->text = g_strdup_printf (DEMO_PREFIX "You said: %s%s\n\n"
                                            "This is the built-in demo model: it needs no network "
                                            "and no API key. To make it call a tool, write a line "
                                            "like: tool: bash {\"command\": \"ls\"}",
                                            said, images);
            }
        }
    }

  if (data->reply->stop_reason == NULL)
    data->reply->stop_reason = g_strdup ("end_turn");

  {
    g_autoptr(JsonArray) blocks = json_array_new ();
    JsonObject *message = json_object_new ();

    if (data->reasoning != NULL)
      json_array_add_object_element (blocks, zot_provider_new_thinking_block (data->reasoning));
    zot_content_add_text (blocks, data->text);
    for (guint i = 0; i < json_array_get_length (content); i++)
      json_array_add_element (blocks, json_node_copy (json_array_get_element (content, i)));
    json_object_set_string_member (message, "role", "assistant");
    json_object_set_array_member (message, "content", g_steal_pointer (&blocks));
    data->reply->message = message;
  }

  data->reply->input_tokens = (gint64) (request_bytes (request) / 4);
  data->reply->output_tokens = (gint64) (zot_message_estimate_bytes (data->reply->message) / 4);

  source = g_idle_source_new ();
  g_source_set_static_name (source, "[zot] demo stream");
  g_source_set_callback (source, emit_next_chunk, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_main_context_get_thread_default ());
  g_source_unref (source);
}

static ZotProviderReply *
zot_demo_provider_stream_finish (ZotProvider   *provider,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_demo_provider_class_init (ZotDemoProviderClass *klass)
{
  ZotProviderClass *provider_class = ZOT_PROVIDER_CLASS (klass);

  provider_class->get_name = zot_demo_provider_get_name;
  provider_class->get_default_model = zot_demo_provider_get_default_model;
  provider_class->stream_async = zot_demo_provider_stream_async;
  provider_class->stream_finish = zot_demo_provider_stream_finish;
}

static void
zot_demo_provider_init (ZotDemoProvider *self)
{
}

ZotProvider *
zot_demo_provider_new (void)
{
  return g_object_new (ZOT_TYPE_DEMO_PROVIDER, NULL);
}
