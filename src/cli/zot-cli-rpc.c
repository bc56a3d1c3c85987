/* zot-cli-rpc.c — `zot rpc`: one JSON command per line on stdin, answered
 * by one response each on stdout, with the `--json` events in between, on
 * the upstream schema (HOST.md, "RPC wire schema"; docs/rpc.md).
 *
 * Work that takes a while (a prompt, a compaction, a slash command) is a
 * job; one job runs at a time and the others wait in order, so that every
 * prompt and compaction ends with its own `turn_end` and `done`. Commands
 * that only look or change settings are answered at once; those that
 * change the conversation refuse while a job runs. Commands are read with
 * the same capped line reader the extensions use (ZOT_FRAME_MAX_BYTES a
 * line, ZOT_JSON_MAX_DEPTH deep). When stdin closes, the jobs already
 * accepted finish, then zot exits.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n.h>
#include <glib-unix.h>
#include <signal.h>
#include <string.h>

#include "zot-cli-private.h"
#include "zot-error.h"
#include "zot-extension-meter.h"
#include "zot-frame-channel.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-provider-table.h"
#include "zot-unknown-types.h"

typedef enum
{
  JOB_PROMPT,
  JOB_COMPACT,
  JOB_COMMAND,
  /* An extension's submit_slash: no client asked, so no response and no
   * `done` (PROTOCOL.md §5a). Until it is freed, the extension's next
   * submit_slash is refused. */
  JOB_EXTENSION_COMMAND,
} JobKind;

typedef struct _Rpc Rpc;

typedef struct
{
  Rpc          *rpc;
  JobKind       kind;
  char         *id;
  char         *command;
  char         *text;
  /* The extension whose submit_slash this is. */
  char         *extension_name;
  JsonArray    *images;
  GCancellable *cancellable;
  gboolean      aborted;
  /* A turn_end went out for this job: its `done` may follow. */
  gboolean      turn_ended;
} Job;

struct _Rpc
{
  ZotHost         *host;
  ZotCliEvents    *events;
  ZotFrameChannel *channel;
  GMainLoop       *loop;
  char            *token;
  GQueue           jobs;
  Job             *current;
  gboolean         authenticated;
  gboolean         refused;
  gboolean         input_closed;
  gboolean         shutting_down;
  /* Unknown command types already logged. */
  ZotUnknownTypes  unknown;
  int              status;
};

static void maybe_exit     (Rpc *rpc);
static void start_next_job (Rpc *rpc);

static void
job_free (Job *job)
{
  /* Run to its end, dropped or never started: the extension may submit
   * again. */
  if (job->extension_name != NULL)
    zot_extension_manager_submit_done (zot_host_get_manager (job->rpc->host), job->extension_name);
  g_free (job->extension_name);
  g_free (job->id);
  g_free (job->command);
  g_free (job->text);
  g_clear_pointer (&job->images, json_array_unref);
  g_clear_object (&job->cancellable);
  g_free (job);
}

static void
respond (Rpc        *rpc,
         const char *id,
         const char *command,
         gboolean    success,
         JsonObject *data,
         const char *error)
{
  g_autoptr(JsonObject) response = json_object_new ();

  json_object_set_string_member (response, "type", "response");
  if (id != NULL)
    json_object_set_string_member (response, "id", id);
  else
    json_object_set_null_member (response, "id");
  if (command != NULL)
    json_object_set_string_member (response, "command", command);
  else
    json_object_set_null_member (response, "command");
  json_object_set_boolean_member (response, "success", success);
  if (data != NULL)
    json_object_set_object_member (response, "data", json_object_ref (data));
  else
    json_object_set_null_member (response, "data");
  if (error != NULL)
    json_object_set_string_member (response, "error", error);

  zot_cli_events_write (rpc->events, response);
}

/* What the client sees of the agent */

static gboolean
is_busy (Rpc *rpc)
{
  ZotAgent *agent = zot_host_get_agent (rpc->host);

  return rpc->current != NULL || zot_agent_is_running (agent) || zot_agent_is_compacting (agent);
}

static JsonObject *
build_state (Rpc *rpc)
{
  ZotAgent *agent = zot_host_get_agent (rpc->host);
  ZotProvider *provider = zot_agent_get_provider (agent);
  ZotSession *session = zot_agent_get_session (agent);
  ZotExtensionManager *manager = zot_host_get_manager (rpc->host);
  JsonObject *state = json_object_new ();
  g_autoptr(JsonArray) extensions = json_array_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (manager));

  json_object_set_string_member (state, "provider", zot_provider_get_name (provider));
  json_object_set_string_member (state, "model", zot_provider_get_model (provider));
  json_object_set_string_member (state, "cwd", zot_agent_get_cwd (agent));
  json_object_set_int_member (state, "message_count", zot_agent_get_messages (agent)->len);
  json_object_set_boolean_member (state, "busy", is_busy (rpc));
  json_object_set_object_member (state, "usage", zot_cli_usage_totals (zot_agent_get_usage (agent)));

  /* This host's additions. */
  json_object_set_string_member (state, "reasoning",
                                 zot_reasoning_to_string (zot_provider_get_reasoning (provider)));
  json_object_set_int_member (state, "queued", rpc->jobs.length);
  json_object_set_string_member (state, "session_id", zot_session_get_id (session));
  if (zot_session_is_persistent (session))
    json_object_set_string_member (state, "session_path", zot_session_get_path (session));
  else
    json_object_set_null_member (state, "session_path");

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      g_autoptr(ZotExtensionStats) stats = zot_extension_dup_stats (extension);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "name", zot_extension_get_name (extension));
      json_object_set_string_member (entry, "state",
                                     zot_extension_state_to_string (zot_extension_get_state (extension)));
      if (zot_extension_get_last_error (extension) != NULL)
        json_object_set_string_member (entry, "error", zot_extension_get_last_error (extension));
      json_object_set_object_member (entry, "stats", zot_extension_stats_to_json (stats));
      json_array_add_object_element (extensions, entry);
    }
  json_object_set_array_member (state, "extensions", g_steal_pointer (&extensions));

  return state;
}

static JsonObject *
build_messages (Rpc *rpc)
{
  GPtrArray *messages = zot_agent_get_messages (zot_host_get_agent (rpc->host));
  JsonObject *data = json_object_new ();
  g_autoptr(JsonArray) array = json_array_new ();

  for (guint i = 0; i < messages->len; i++)
    json_array_add_object_element (array, zot_cli_message_to_wire (g_ptr_array_index (messages, i)));
  json_object_set_array_member (data, "messages", g_steal_pointer (&array));
  return data;
}

/* The models known for the provider in use; then its default model and
 * the one in use when no facts name them (a preset such as Groq has none
 * shipped), with 0 for the unknown window and output. */
static JsonObject *
build_models (Rpc *rpc)
{
  ZotProvider *provider = zot_agent_get_provider (zot_host_get_agent (rpc->host));
  const char *name = zot_provider_get_name (provider);
  g_autoptr(GPtrArray) known = zot_model_facts_list (name);
  const ZotProviderInfo *info = zot_provider_table_lookup (name);
  const ZotModelInfo unknown[] = {
    { .provider = name, .id = info != NULL ? info->default_model : NULL },
    { .provider = name, .id = zot_provider_get_model (provider) },
  };
  JsonObject *data = json_object_new ();
  g_autoptr(JsonArray) models = json_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    if (unknown[i].id != NULL && zot_model_info_lookup (name, unknown[i].id) == NULL &&
        (i == 0 || g_strcmp0 (unknown[i].id, unknown[0].id) != 0))
      g_ptr_array_add (known, (gpointer) &unknown[i]);

  for (guint i = 0; i < known->len; i++)
    {
      const ZotModelInfo *model = g_ptr_array_index (known, i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "id", model->id);
      json_object_set_string_member (entry, "provider", model->provider);
      json_object_set_int_member (entry, "context_window", model->context_window);
      json_object_set_int_member (entry, "max_output", model->max_output);
      json_object_set_boolean_member (entry, "reasoning", model->reasoning);
      json_array_add_object_element (models, entry);
    }
  json_object_set_array_member (data, "models", g_steal_pointer (&models));
  return data;
}

static JsonObject *
build_model (Rpc *rpc)
{
  ZotProvider *provider = zot_agent_get_provider (zot_host_get_agent (rpc->host));
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "provider", zot_provider_get_name (provider));
  json_object_set_string_member (data, "model", zot_provider_get_model (provider));
  return data;
}

/* Jobs */

static void
emit_turn_end (Rpc        *rpc,
               const char *stop,
               const char *error)
{
  g_autoptr(JsonObject) event = json_object_new ();

  json_object_set_string_member (event, "type", "turn_end");
  json_object_set_string_member (event, "stop", stop);
  if (error != NULL)
    json_object_set_string_member (event, "error", error);
  zot_cli_events_write (rpc->events, event);
}

/* Every prompt and compaction ends with turn_end (made up when it ended
 * before any model turn: a command, a refusal), then done; a command
 * that ran a turn ends with done too, then its response. */
static void
finish_job (Job          *job,
            JsonObject   *data,
            const GError *error)
{
  Rpc *rpc = job->rpc;
  gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_assert (rpc->current == job);

  if (error != NULL && !cancelled && job->kind != JOB_COMMAND)
    zot_cli_events_emit_error (rpc->events, error->message);

  switch (job->kind)
    {
    case JOB_PROMPT:
    case JOB_COMPACT:
      if (!job->turn_ended)
        emit_turn_end (rpc, job->aborted || cancelled ? "aborted" : error != NULL ? "error" : "end_turn",
                       error != NULL && !cancelled ? error->message : NULL);
      zot_cli_events_emit_simple (rpc->events, "done");
      break;

    case JOB_COMMAND:
      if (job->turn_ended)
        zot_cli_events_emit_simple (rpc->events, "done");
      respond (rpc, job->id, job->command, error == NULL, data, error != NULL ? error->message : NULL);
      break;

    case JOB_EXTENSION_COMMAND:
    default:
      break;
    }

  rpc->current = NULL;
  job_free (job);

  start_next_job (rpc);
  maybe_exit (rpc);
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Job *job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) data = NULL;
  g_autofree char *final_text = NULL;

  zot_host_submit_finish (ZOT_HOST (object), result, &final_text, &error);
  if (job->kind == JOB_COMMAND && error == NULL)
    {
      data = json_object_new ();
      if (final_text != NULL)
        json_object_set_string_member (data, "final_text", final_text);
    }
  finish_job (job, data, error);
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Job *job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotCompaction) compaction = NULL;

  compaction = zot_agent_compact_finish (ZOT_AGENT (object), result, &error);
  finish_job (job, NULL, error);
}

static void
start_job (Job *job)
{
  Rpc *rpc = job->rpc;

  rpc->current = job;
  switch (job->kind)
    {
    case JOB_PROMPT:
      zot_host_submit_with_images_async (rpc->host, job->text, job->images, job->cancellable,
                                         submitted_cb, job);
      break;

    case JOB_COMPACT:
      zot_agent_compact_async (zot_host_get_agent (rpc->host), job->cancellable, compacted_cb, job);
      break;

    case JOB_COMMAND:
    case JOB_EXTENSION_COMMAND:
    default:
      zot_host_submit_async (rpc->host, job->text, job->cancellable, submitted_cb, job);
      break;
    }
}

static void
start_next_job (Rpc *rpc)
{
  Job *job;

  if (rpc->current != NULL || rpc->shutting_down)
    return;

  job = g_queue_pop_head (&rpc->jobs);
  if (job != NULL)
    start_job (job);
}

static Job *
job_new (Rpc        *rpc,
         JobKind     kind,
         const char *id,
         const char *command,
         const char *text,
         JsonArray  *images)
{
  Job *job = g_new0 (Job, 1);

  job->rpc = rpc;
  job->kind = kind;
  job->id = g_strdup (id);
  job->command = g_strdup (command);
  job->text = g_strdup (text);
  job->images = images != NULL ? json_array_ref (images) : NULL;
  job->cancellable = g_cancellable_new ();
  return job;
}

static void
push_job (Rpc *rpc,
          Job *job)
{
  g_queue_push_tail (&rpc->jobs, job);
  start_next_job (rpc);
}

static void
queue_job (Rpc        *rpc,
           JobKind     kind,
           const char *id,
           const char *command,
           const char *text,
           JsonArray  *images)
{
  push_job (rpc, job_new (rpc, kind, id, command, text, images));
}

static void
on_turn_end (ZotAgent   *agent,
             const char *stop,
             const char *error,
             Rpc        *rpc)
{
  if (rpc->current != NULL)
    rpc->current->turn_ended = TRUE;
}

static void
on_compaction_end (ZotAgent   *agent,
                   const char *stop,
                   const char *error,
                   const char *summary,
                   Rpc        *rpc)
{
  on_turn_end (agent, stop, error, rpc);
}

static gboolean
on_extension_submit_slash (ZotExtensionManager *manager,
                           ZotExtension        *extension,
                           const char          *command,
                           Rpc                 *rpc)
{
  Job *job;

  if (rpc->shutting_down)
    return FALSE;

  job = job_new (rpc, JOB_EXTENSION_COMMAND, NULL, NULL, command, NULL);
  job->extension_name = g_strdup (zot_extension_get_name (extension));
  push_job (rpc, job);
  return TRUE;
}

/* Commands */

/* `images:[{mime_type,data}]` as image blocks, each checked like a file
 * the read tool would show. */
static JsonArray *
parse_images (JsonObject  *frame,
              GError     **error)
{
  JsonNode *node = json_object_get_member (frame, "images");
  g_autoptr(JsonArray) blocks = json_array_new ();
  JsonArray *images;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_steal_pointer (&blocks);

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("\"images\" must be an array of {\"mime_type\",\"data\"}"));
      return NULL;
    }

  images = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (images); i++)
    {
      JsonObject *image = zot_json_array_get_object (images, i);
      const char *data = zot_json_get_string (image, "data");
      const char *mime_type = zot_json_get_string (image, "mime_type");
      /* Translators: how an image of an RPC request is named in error messages; %u is its
       * position, counting from 1 */
      g_autofree char *name = g_strdup_printf (_("image %u"), i + 1);
      g_autoptr(GBytes) bytes = NULL;
      JsonObject *block;
      guchar *decoded;
      gsize length = 0;

      if (data == NULL || *data == '\0')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       /* Translators: %s is "image 1", "image 2", …; "data" is a JSON field
                        * name, keep it */
                       _("%s has no base64 \"data\""), name);
          return NULL;
        }

      decoded = g_base64_decode (data, &length);
      bytes = g_bytes_new_take (decoded, length);
      block = zot_image_block_new (bytes, name, error);
      if (block == NULL)
        return NULL;

      if (mime_type != NULL && g_strcmp0 (mime_type, zot_json_get_string (block, "mime_type")) != 0)
        {
          /* Translators: the image's name ("image 1", …), then its detected MIME type, then the
           * one the request gave */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s is a %s image, not %s"),
                       name, zot_json_get_string (block, "mime_type"), mime_type);
          json_object_unref (block);
          return NULL;
        }
      json_array_add_object_element (blocks, block);
    }

  return g_steal_pointer (&blocks);
}

static void
answer_started (Rpc        *rpc,
                const char *id,
                const char *type,
                gboolean    waits)
{
  g_autoptr(JsonObject) data = json_object_new ();

  json_object_set_boolean_member (data, "started", !waits);
  if (waits)
    json_object_set_boolean_member (data, "queued", TRUE);
  respond (rpc, id, type, TRUE, data, NULL);
}

static void
command_prompt (Rpc        *rpc,
                JsonObject *frame,
                const char *id,
                const char *type)
{
  const char *message = zot_json_get_string (frame, "message");
  g_autoptr(JsonArray) images = NULL;
  g_autoptr(GError) error = NULL;
  gboolean waits;

  images = parse_images (frame, &error);
  if (images == NULL)
    {
      respond (rpc, id, type, FALSE, NULL, error->message);
      return;
    }

  if ((message == NULL || *message == '\0') && json_array_get_length (images) == 0)
    {
      respond (rpc, id, type, FALSE, NULL, _("prompt needs a non-empty string \"message\" or \"images\""));
      return;
    }

  /* The answer goes out before the job's first event. */
  waits = rpc->current != NULL || rpc->jobs.length > 0;
  answer_started (rpc, id, type, waits);
  queue_job (rpc, JOB_PROMPT, id, type, message != NULL ? message : "", images);
}

static void
command_command (Rpc        *rpc,
                 JsonObject *frame,
                 const char *id,
                 const char *type)
{
  const char *name = zot_json_get_string (frame, "name");
  const char *args = zot_json_get_string (frame, "args");
  g_autofree char *line = NULL;

  if (name == NULL || *name == '\0')
    {
      respond (rpc, id, type, FALSE, NULL, _("command needs a string \"name\""));
      return;
    }

  while (*name == '/')
    name++;
  line = g_strdup_printf ("/%s %s", name, args ? args : "");
  if (!zot_host_is_command (rpc->host, line))
    {
      respond (rpc, id, type, FALSE, NULL, _("that is not a command name"));
      return;
    }
  /* Like clear, not queued: the prompt before it would end in another
   * conversation than the one it started in. */
  if (g_ascii_strcasecmp (name, "new") == 0 && is_busy (rpc))
    {
      respond (rpc, id, type, FALSE, NULL, "agent is busy");
      return;
    }
  queue_job (rpc, JOB_COMMAND, id, type, line, NULL);
}

static void
command_abort (Rpc        *rpc,
               JsonObject *frame,
               const char *id,
               const char *type)
{
  /* Only the job in progress: each queued one still gets its own run. */
  if (rpc->current != NULL)
    {
      rpc->current->aborted = TRUE;
      g_cancellable_cancel (rpc->current->cancellable);
    }
  zot_agent_abort (zot_host_get_agent (rpc->host));
  respond (rpc, id, type, TRUE, NULL, NULL);
}

static void
command_set_model (Rpc        *rpc,
                   JsonObject *frame,
                   const char *id,
                   const char *type)
{
  const char *provider = zot_json_get_string (frame, "provider");
  const char *model = zot_json_get_string (frame, "model");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) data = NULL;

  if ((model == NULL || *model == '\0') && provider == NULL)
    respond (rpc, id, type, FALSE, NULL, _("set_model needs a string \"model\""));
  else if (!zot_host_set_model (rpc->host, provider, model, &error))
    respond (rpc, id, type, FALSE, NULL, error->message);
  else
    {
      data = build_model (rpc);
      respond (rpc, id, type, TRUE, data, NULL);
    }
}

static void
command_set_reasoning (Rpc        *rpc,
                       JsonObject *frame,
                       const char *id,
                       const char *type)
{
  const char *name = zot_json_get_string (frame, "reasoning");
  ZotProvider *provider = zot_agent_get_provider (zot_host_get_agent (rpc->host));
  g_autoptr(JsonObject) data = NULL;
  ZotReasoning level;

  if (name == NULL || g_ascii_strcasecmp (name, "default") == 0 || !zot_reasoning_from_string (name, &level))
    {
      respond (rpc, id, type, FALSE, NULL,
               _("set_reasoning needs \"reasoning\": off, minimum, low, medium, high, xhigh or max"));
      return;
    }

  zot_provider_set_reasoning (provider, level);
  data = json_object_new ();
  json_object_set_string_member (data, "reasoning", zot_reasoning_to_string (level));
  respond (rpc, id, type, TRUE, data, NULL);
}

/* The comparison takes as long whatever the client sent. */
static gboolean
token_matches (const char *expected,
               const char *given)
{
  gsize expected_len = strlen (expected);
  gsize given_len = given != NULL ? strlen (given) : 0;
  guint8 diff = expected_len != given_len;

  for (gsize i = 0; i < expected_len; i++)
    diff |= (guint8) expected[i] ^ (guint8) (i < given_len ? given[i] : 0);
  return diff == 0;
}

/* A client without the token gets one answer, then zot exits. */
static void
refuse (Rpc        *rpc,
        const char *id,
        const char *type,
        const char *message)
{
  respond (rpc, id, type, FALSE, NULL, message);
  rpc->refused = TRUE;
  rpc->status = 1;
  rpc->input_closed = TRUE;
  zot_frame_channel_close (rpc->channel);
  maybe_exit (rpc);
}

static void
command_hello (Rpc        *rpc,
               JsonObject *frame,
               const char *id,
               const char *type)
{
  g_autoptr(JsonObject) data = NULL;
  ZotProvider *provider = zot_agent_get_provider (zot_host_get_agent (rpc->host));

  if (rpc->token != NULL && !token_matches (rpc->token, zot_json_get_string (frame, "token")))
    {
      refuse (rpc, id, type, _("the token does not match ZOTCORE_RPC_TOKEN; zot rpc exits"));
      return;
    }

  rpc->authenticated = TRUE;
  data = json_object_new ();
  json_object_set_int_member (data, "protocol_version", ZOT_RPC_PROTOCOL_VERSION);
  json_object_set_string_member (data, "version", PACKAGE_VERSION);
  json_object_set_string_member (data, "provider", zot_provider_get_name (provider));
  json_object_set_string_member (data, "model", zot_provider_get_model (provider));
  respond (rpc, id, type, TRUE, data, NULL);
}

static JsonObject *
build_pong (Rpc *rpc)
{
  JsonObject *data = json_object_new ();

  json_object_set_boolean_member (data, "pong", TRUE);
  return data;
}

static void
command_compact (Rpc        *rpc,
                 JsonObject *frame,
                 const char *id,
                 const char *type)
{
  answer_started (rpc, id, type, rpc->current != NULL || rpc->jobs.length > 0);
  queue_job (rpc, JOB_COMPACT, id, type, NULL, NULL);
}

static void
command_clear (Rpc        *rpc,
               JsonObject *frame,
               const char *id,
               const char *type)
{
  zot_host_clear (rpc->host);
  respond (rpc, id, type, TRUE, NULL, NULL);
}

typedef enum
{
  /* Answered before hello: it is what authenticates the client. */
  COMMAND_BEFORE_HELLO = 1 << 0,
  /* Refused while a job runs, not queued: it would change what a running
   * prompt works on. */
  COMMAND_WHEN_IDLE    = 1 << 1,
} CommandFlags;

typedef void (*CommandHandler) (Rpc        *rpc,
                                JsonObject *frame,
                                const char *id,
                                const char *type);

/* The commands of the RPC wire schema (HOST.md), by "type": each has a
 * handler, or only looks, and is answered at once with what @build makes. */
static const struct {
  const char     *type;
  CommandHandler  handle;
  JsonObject   *(*build) (Rpc *rpc);
  CommandFlags    flags;
} commands[] = {
  { "hello",         command_hello,         NULL,           COMMAND_BEFORE_HELLO },
  { "ping",          NULL,                  build_pong,     0 },
  { "prompt",        command_prompt,        NULL,           0 },
  { "compact",       command_compact,       NULL,           0 },
  { "command",       command_command,       NULL,           0 },
  { "abort",         command_abort,         NULL,           0 },
  { "get_state",     NULL,                  build_state,    0 },
  { "get_messages",  NULL,                  build_messages, 0 },
  { "get_models",    NULL,                  build_models,   0 },
  { "clear",         command_clear,         NULL,           COMMAND_WHEN_IDLE },
  { "set_model",     command_set_model,     NULL,           COMMAND_WHEN_IDLE },
  { "set_reasoning", command_set_reasoning, NULL,           COMMAND_WHEN_IDLE },
};

static void
on_frame (ZotFrameChannel *channel,
          JsonObject      *frame,
          Rpc             *rpc)
{
  const char *type = json_object_get_string_member (frame, "type");
  const char *id = zot_json_get_string (frame, "id");
  guint i;

  if (rpc->refused)
    return;

  for (i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (type, commands[i].type))
      break;

  if (i < G_N_ELEMENTS (commands) && (commands[i].flags & COMMAND_BEFORE_HELLO) != 0)
    {
      commands[i].handle (rpc, frame, id, type);
      return;
    }

  if (!rpc->authenticated)
    {
      refuse (rpc, id, type,
              _("ZOTCORE_RPC_TOKEN is set: the first command must be {\"type\":\"hello\",\"token\":…}; "
                "zot rpc exits"));
      return;
    }

  if (i == G_N_ELEMENTS (commands))
    {
      /* Translators: %s is the "type" of an RPC request that zot rpc does not know */
      g_autofree char *message = g_strdup_printf (_("unknown command \"%s\""), type);

      if (zot_unknown_types_note (&rpc->unknown, type))
        g_message ("zot rpc: unknown command \"%s\" (answered with an error; "
                   "later ones of this type are not logged)", type);
      respond (rpc, id, type, FALSE, NULL, message);
      return;
    }

  if ((commands[i].flags & COMMAND_WHEN_IDLE) != 0 && is_busy (rpc))
    respond (rpc, id, type, FALSE, NULL, "agent is busy");
  else if (commands[i].build != NULL)
    {
      g_autoptr(JsonObject) data = commands[i].build (rpc);

      respond (rpc, id, type, TRUE, data, NULL);
    }
  else
    commands[i].handle (rpc, frame, id, type);
}

static void
on_bad_line (ZotFrameChannel *channel,
             const char      *message,
             Rpc             *rpc)
{
  if (rpc->refused)
    return;

  /* No id could be read: the client learns which line by order. */
  respond (rpc, NULL, NULL, FALSE, NULL, message);
}

/* Lifetime */

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Rpc *rpc = user_data;

  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  g_main_loop_quit (rpc->loop);
}

static void
maybe_exit (Rpc *rpc)
{
  if (!rpc->input_closed || rpc->shutting_down)
    return;

  /* A refused client's jobs never started; anyone else's finish. */
  if (!rpc->refused && (rpc->current != NULL || rpc->jobs.length > 0))
    return;

  rpc->shutting_down = TRUE;
  zot_host_shutdown_async (rpc->host, NULL, shutdown_cb, rpc);
}

static void
on_closed (ZotFrameChannel *channel,
           const GError    *error,
           Rpc             *rpc)
{
  if (error != NULL && !g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED))
    zot_cli_events_emit_error (rpc->events, error->message);

  rpc->input_closed = TRUE;
  maybe_exit (rpc);
}

static gboolean
on_sigint (gpointer user_data)
{
  Rpc *rpc = user_data;
  Job *job;

  while ((job = g_queue_pop_head (&rpc->jobs)) != NULL)
    job_free (job);
  if (rpc->current != NULL)
    g_cancellable_cancel (rpc->current->cancellable);
  zot_agent_abort (zot_host_get_agent (rpc->host));
  zot_frame_channel_close (rpc->channel);
  return G_SOURCE_CONTINUE;
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Rpc *rpc = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  /* An RPC session starts when it is initialised. */
  zot_host_begin_session (rpc->host);
  zot_frame_channel_start (rpc->channel);
}

int
zot_cli_rpc_run (ZotHost *host)
{
  g_autoptr(GInputStream) input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  g_autoptr(GOutputStream) output = g_unix_output_stream_new (STDOUT_FILENO, FALSE);
  const char *token = g_getenv ("ZOTCORE_RPC_TOKEN");
  ZotAgent *agent = zot_host_get_agent (host);
  Rpc rpc = { 0 };
  guint sigint_id;

  rpc.host = host;
  rpc.token = (token != NULL && *token != '\0') ? g_strdup (token) : NULL;
  rpc.authenticated = rpc.token == NULL;
  rpc.loop = g_main_loop_new (NULL, FALSE);
  g_queue_init (&rpc.jobs);
  rpc.events = zot_cli_events_new (host, stdout);
  zot_cli_events_set_rpc (rpc.events, TRUE);

  /* After the events' handlers: a job learns of its turn_end once the
   * event is out. */
  g_signal_connect (agent, "turn-end", G_CALLBACK (on_turn_end), &rpc);
  g_signal_connect (agent, "compaction-end", G_CALLBACK (on_compaction_end), &rpc);

  /* Responses and events go through stdio; the channel only reads. */
  rpc.channel = zot_frame_channel_new (input, output);
  g_signal_connect (rpc.channel, "frame-received", G_CALLBACK (on_frame), &rpc);
  zot_frame_channel_set_skip_oversized (rpc.channel, TRUE);
  g_signal_connect (rpc.channel, "bad-line", G_CALLBACK (on_bad_line), &rpc);
  g_signal_connect (rpc.channel, "closed", G_CALLBACK (on_closed), &rpc);

  sigint_id = g_unix_signal_add (SIGINT, on_sigint, &rpc);
  /* `submit` is not taken: a client's `done` ends only its own prompts. */
  g_signal_connect (zot_host_get_manager (host), "submit-slash-requested",
                    G_CALLBACK (on_extension_submit_slash), &rpc);

  zot_host_load_async (host, NULL, loaded_cb, &rpc);
  g_main_loop_run (rpc.loop);

  g_source_remove (sigint_id);
  g_signal_handlers_disconnect_by_data (zot_host_get_manager (host), &rpc);
  g_signal_handlers_disconnect_by_data (agent, &rpc);
  g_signal_handlers_disconnect_by_data (rpc.channel, &rpc);
  zot_frame_channel_close (rpc.channel);
  {
    /* A cancelled read still holds the channel until its callback runs. */
    gpointer weak = rpc.channel;

    g_object_add_weak_pointer (weak, &weak);
    g_clear_object (&rpc.channel);
    while (weak != NULL)
      g_main_context_iteration (NULL, TRUE);
  }
  g_queue_clear_full (&rpc.jobs, (GDestroyNotify) job_free);
  zot_cli_events_free (rpc.events);
  g_main_loop_unref (rpc.loop);
  g_free (rpc.token);
  zot_unknown_types_clear (&rpc.unknown);

  return rpc.status;
}
