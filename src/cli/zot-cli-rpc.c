/* zot-cli-rpc.c — `zot rpc`: one JSON command per line on stdin, answered
 * by one response each on stdout, with the `--json` events in between.
 *
 * Commands are read with the same capped line reader the extensions use.
 * When stdin closes, the work already accepted finishes, then zot exits.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n.h>
#include <glib-unix.h>
#include <signal.h>

#include "zot-cli-private.h"
#include "zot-error.h"
#include "zot-frame-channel.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-provider-table.h"

typedef struct
{
  ZotHost         *host;
  ZotCliEvents    *events;
  ZotFrameChannel *channel;
  GMainLoop       *loop;
  char            *token;
  guint            outstanding;
  gboolean         authenticated;
  gboolean         input_closed;
  gboolean         shutting_down;
} Rpc;

typedef struct
{
  Rpc  *rpc;
  char *id;
  char *command;
} Pending;

static void maybe_exit (Rpc *rpc);

static Pending *
pending_new (Rpc        *rpc,
             JsonObject *frame)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->rpc = rpc;
  pending->id = g_strdup (zot_json_get_string_or (frame, "id", NULL));
  pending->command = g_strdup (json_object_get_string_member (frame, "type"));
  rpc->outstanding++;
  return pending;
}

static void
pending_free (Pending *pending)
{
  Rpc *rpc = pending->rpc;

  g_free (pending->id);
  g_free (pending->command);
  g_free (pending);

  rpc->outstanding--;
  maybe_exit (rpc);
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

static void
respond_pending (Pending      *pending,
                 JsonObject   *data,
                 const GError *error)
{
  respond (pending->rpc, pending->id, pending->command, error == NULL, data,
           error ? error->message : NULL);
}

/* State */

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
  json_object_set_string_member (state, "session_id", zot_session_get_id (session));
  if (zot_session_is_persistent (session))
    json_object_set_string_member (state, "session_path", zot_session_get_path (session));
  else
    json_object_set_null_member (state, "session_path");
  json_object_set_boolean_member (state, "running", zot_agent_is_running (agent));
  json_object_set_int_member (state, "queued", zot_agent_get_queue_length (agent));
  json_object_set_int_member (state, "message_count", zot_agent_get_messages (agent)->len);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "name", zot_extension_get_name (extension));
      json_object_set_string_member (entry, "state",
                                     zot_extension_state_to_string (zot_extension_get_state (extension)));
      if (zot_extension_get_last_error (extension) != NULL)
        json_object_set_string_member (entry, "error", zot_extension_get_last_error (extension));
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
    json_array_add_object_element (array, json_object_ref (g_ptr_array_index (messages, i)));
  json_object_set_array_member (data, "messages", g_steal_pointer (&array));
  return data;
}

static JsonObject *
model_entry (const ZotProviderInfo *info,
             const ZotModelInfo    *model)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "id", model->id);
  json_object_set_string_member (entry, "provider", info->name);
  json_object_set_int_member (entry, "context_window", model->context_window);
  json_object_set_int_member (entry, "max_output", model->max_output);
  json_object_set_boolean_member (entry, "reasoning", model->reasoning);
  json_object_set_double_member (entry, "input_price", model->input_price);
  json_object_set_double_member (entry, "output_price", model->output_price);
  return entry;
}

/* The model in use, each provider with its default model, and every
 * model of the table. */
static JsonObject *
build_models (Rpc *rpc)
{
  ZotProvider *provider = zot_agent_get_provider (zot_host_get_agent (rpc->host));
  JsonObject *data = json_object_new ();
  JsonObject *current = json_object_new ();
  g_autoptr(JsonArray) providers = json_array_new ();
  g_autoptr(JsonArray) models = json_array_new ();

  json_object_set_string_member (current, "provider", zot_provider_get_name (provider));
  json_object_set_string_member (current, "model", zot_provider_get_model (provider));
  json_object_set_object_member (data, "current", current);

  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "provider", info->name);
      json_object_set_string_member (entry, "default_model", info->default_model);
      json_array_add_object_element (providers, entry);

      for (guint j = 0; j < info->n_models; j++)
        json_array_add_object_element (models, model_entry (info, &info->models[j]));
    }
  json_object_set_array_member (data, "providers", g_steal_pointer (&providers));
  json_object_set_array_member (data, "models", g_steal_pointer (&models));
  return data;
}

/* Commands that finish later */

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *final_text = NULL;

  if (!zot_host_submit_finish (ZOT_HOST (object), result, &final_text, &error))
    zot_cli_events_emit_error (pending->rpc->events, error->message);

  pending_free (pending);
}

static void
command_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) data = json_object_new ();
  g_autofree char *final_text = NULL;

  zot_host_submit_finish (ZOT_HOST (object), result, &final_text, &error);
  if (final_text != NULL)
    json_object_set_string_member (data, "final_text", final_text);
  respond_pending (pending, data, error);
  pending_free (pending);
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotCompaction) compaction = NULL;
  g_autoptr(JsonObject) data = NULL;

  compaction = zot_agent_compact_finish (ZOT_AGENT (object), result, &error);
  if (compaction != NULL)
    {
      data = json_object_new ();
      json_object_set_string_member (data, "compaction_id", compaction->id);
      json_object_set_int_member (data, "message_count", compaction->message_count);
      json_object_set_int_member (data, "token_estimate", (gint64) compaction->token_estimate);
      json_object_set_int_member (data, "after_message_count", compaction->after_count);
      json_object_set_int_member (data, "after_token_estimate", (gint64) compaction->after_token_estimate);
    }
  respond_pending (pending, data, error);
  pending_free (pending);
}

/* An extension's submit_slash runs its command as `command` does; its
 * outcome is reported as events, with no response: nobody asked. */
static void
extension_command_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_host_submit_finish (ZOT_HOST (object), result, NULL, &error))
    zot_cli_events_emit_error (pending->rpc->events, error->message);
  pending_free (pending);
}

static gboolean
on_extension_submit_slash (ZotExtensionManager *manager,
                           ZotExtension        *extension,
                           const char          *command,
                           Rpc                 *rpc)
{
  Pending *pending;

  if (rpc->shutting_down)
    return FALSE;

  pending = g_new0 (Pending, 1);
  pending->rpc = rpc;
  rpc->outstanding++;
  zot_host_submit_async (rpc->host, command, NULL, extension_command_cb, pending);
  return TRUE;
}

/* Dispatch */

static void
on_frame (ZotFrameChannel *channel,
          JsonObject      *frame,
          Rpc             *rpc)
{
  const char *type = json_object_get_string_member (frame, "type");
  const char *id = zot_json_get_string (frame, "id");
  ZotAgent *agent = zot_host_get_agent (rpc->host);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) data = NULL;

  if (g_str_equal (type, "hello"))
    {
      const char *token = zot_json_get_string (frame, "token");

      if (rpc->token != NULL && g_strcmp0 (token, rpc->token) != 0)
        {
          respond (rpc, id, type, FALSE, NULL,
                   _("the token does not match ZOTCORE_RPC_TOKEN; send hello with the right token"));
          return;
        }

      rpc->authenticated = TRUE;
      data = json_object_new ();
      json_object_set_int_member (data, "protocol_version", 1);
      json_object_set_string_member (data, "zot_version", PACKAGE_VERSION);
      respond (rpc, id, type, TRUE, data, NULL);
      return;
    }

  if (!rpc->authenticated)
    {
      respond (rpc, id, type, FALSE, NULL,
               _("ZOTCORE_RPC_TOKEN is set: send {\"type\":\"hello\",\"token\":…} first"));
      return;
    }

  if (g_str_equal (type, "ping"))
    respond (rpc, id, type, TRUE, NULL, NULL);
  else if (g_str_equal (type, "prompt"))
    {
      const char *message = zot_json_get_string (frame, "message");

      if (message == NULL || *message == '\0')
        {
          respond (rpc, id, type, FALSE, NULL, _("prompt needs a non-empty string \"message\""));
          return;
        }

      data = json_object_new ();
      json_object_set_boolean_member (data, "queued", zot_agent_is_running (agent));
      respond (rpc, id, type, TRUE, data, NULL);
      zot_host_submit_async (rpc->host, message, NULL, submitted_cb, pending_new (rpc, frame));
    }
  else if (g_str_equal (type, "command"))
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
      zot_host_submit_async (rpc->host, line, NULL, command_cb, pending_new (rpc, frame));
    }
  else if (g_str_equal (type, "abort"))
    {
      zot_agent_abort (agent);
      respond (rpc, id, type, TRUE, NULL, NULL);
    }
  else if (g_str_equal (type, "compact"))
    zot_agent_compact_async (agent, NULL, compacted_cb, pending_new (rpc, frame));
  else if (g_str_equal (type, "get_state"))
    {
      data = build_state (rpc);
      respond (rpc, id, type, TRUE, data, NULL);
    }
  else if (g_str_equal (type, "get_messages"))
    {
      data = build_messages (rpc);
      respond (rpc, id, type, TRUE, data, NULL);
    }
  else if (g_str_equal (type, "clear"))
    {
      zot_host_clear (rpc->host);
      respond (rpc, id, type, TRUE, NULL, NULL);
    }
  else if (g_str_equal (type, "set_model"))
    {
      const char *provider = zot_json_get_string (frame, "provider");
      const char *model = zot_json_get_string (frame, "model");

      if (model == NULL && provider == NULL)
        respond (rpc, id, type, FALSE, NULL, _("set_model needs \"model\" and/or \"provider\""));
      else if (!zot_host_set_model (rpc->host, provider, model, &error))
        respond (rpc, id, type, FALSE, NULL, error->message);
      else
        {
          data = build_models (rpc);
          respond (rpc, id, type, TRUE, json_object_get_object_member (data, "current"), NULL);
        }
    }
  else if (g_str_equal (type, "get_models"))
    {
      data = build_models (rpc);
      respond (rpc, id, type, TRUE, data, NULL);
    }
  else
    {
      g_autofree char *message = g_strdup_printf (_("unknown command \"%s\""), type);
      respond (rpc, id, type, FALSE, NULL, message);
    }
}

static void
on_bad_line (ZotFrameChannel *channel,
             const char      *message,
             Rpc             *rpc)
{
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
  if (!rpc->input_closed || rpc->outstanding > 0 || rpc->shutting_down)
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
  Rpc rpc = { 0 };
  guint sigint_id;

  rpc.host = host;
  rpc.token = (token != NULL && *token != '\0') ? g_strdup (token) : NULL;
  rpc.authenticated = rpc.token == NULL;
  rpc.loop = g_main_loop_new (NULL, FALSE);
  rpc.events = zot_cli_events_new (host, stdout);
  zot_cli_events_set_rpc (rpc.events, TRUE);

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
  zot_cli_events_free (rpc.events);
  g_main_loop_unref (rpc.loop);
  g_free (rpc.token);

  return 0;
}
