/* zot-manager-intercept.c — the interception chains (PROTOCOL.md §7).
 *
 * tool_call, turn_start and assistant_message interceptors, then the
 * before_agent_start hook, each run serially in load order: the first
 * block wins, rewrites chain, and an interceptor that is gone is skipped
 * with a warning, or refuses the call when its manifest says so.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-error.h"
#include "zot-extension-manager-private.h"
#include "zot-extension-meter-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"

/* Set on an interceptor that failed once the user was told. */
GQuark
_zot_manager_warned_quark (void)
{
  return g_quark_from_static_string ("zot-interceptor-failure-warned");
}

void
zot_interception_free (ZotInterception *interception)
{
  if (interception == NULL)
    return;

  g_free (interception->reason);
  g_free (interception->blocked_by);
  g_clear_pointer (&interception->payload, json_object_unref);
  g_free (interception);
}

typedef struct
{
  char            *event;
  GPtrArray       *chain;
  guint            index;
  ZotInterception *result;
  ZotExtension    *current;
  gint64           sent_at;
} InterceptData;

static void
intercept_data_free (InterceptData *data)
{
  g_free (data->event);
  g_clear_pointer (&data->chain, g_ptr_array_unref);
  zot_interception_free (data->result);
  g_clear_object (&data->current);
  g_free (data);
}

/* PROTOCOL.md §7: an extension whose manifest says
 * "intercept_failure":"block" refuses every tool call while it is not
 * running, whether it crashed, was disconnected or is still (re)starting:
 * a guard must not be knocked out by making it fail. Stopped by the host
 * (shutdown, disabled by the user) it judges nothing. Before its first
 * `subscribe` nobody knows what it would judge, so the declaration
 * itself says: tool calls. */
static gboolean
guard_blocks (ZotExtension *extension,
              const char   *event)
{
  ZotExtensionState state = zot_extension_get_state (extension);
  ZotManifest *manifest = zot_extension_get_manifest (extension);

  /* A manifest that could not be read declared nothing. */
  if (!g_str_equal (event, "tool_call") || manifest == NULL ||
      !zot_manifest_get_intercept_failure_blocks (manifest))
    return FALSE;

  return state == ZOT_EXTENSION_STATE_STARTING || state == ZOT_EXTENSION_STATE_REGISTERING ||
         state == ZOT_EXTENSION_STATE_STOPPING || state == ZOT_EXTENSION_STATE_FAILED ||
         state == ZOT_EXTENSION_STATE_NEEDS_APPROVAL;
}

/* In the chain: running interceptors, and those that failed (each is
 * skipped with a warning, or refuses the call). */
static gboolean
in_chain (ZotExtension *extension,
          const char   *event)
{
  ZotExtensionState state = zot_extension_get_state (extension);

  if (state == ZOT_EXTENSION_STATE_READY || state == ZOT_EXTENSION_STATE_FAILED)
    return zot_extension_intercepts (extension, event) || guard_blocks (extension, event);

  return guard_blocks (extension, event);
}

static GPtrArray *
interceptors_for (ZotExtensionManager *self,
                  const char          *event)
{
  GPtrArray *chain = g_ptr_array_new_with_free_func (g_object_unref);

  /* Load order: explicit --ext paths first, then discovery. */
  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);

      if (in_chain (extension, event))
        g_ptr_array_add (chain, g_object_ref (extension));
    }

  return chain;
}

static char *
failure_text (ZotExtension *extension,
              const GError *error)
{
  const char *why = error != NULL ? error->message : zot_extension_get_last_error (extension);

  switch (zot_extension_get_state (extension))
    {
    case ZOT_EXTENSION_STATE_STARTING:
    case ZOT_EXTENSION_STATE_REGISTERING:
      return g_strdup (_("it is still starting"));
    case ZOT_EXTENSION_STATE_STOPPING:
      return g_strdup (_("it is stopping"));
    default:
      if (why != NULL && *why != '\0')
        /* Translators: part of a longer message ("… and it stopped: REASON"), about an extension */
        return g_strdup_printf (_("it stopped: %s"), why);
      return g_strdup (_("it stopped"));
    }
}

/* An interceptor that is gone is skipped, and the user told once per
 * failure: every call of a batch would otherwise repeat it. */
static void
warn_skipped_interceptor (ZotExtensionManager *self,
                          ZotExtension        *extension,
                          const char          *event,
                          const GError        *error)
{
  g_autofree char *why = NULL;
  g_autofree char *message = NULL;

  if (g_object_get_qdata (G_OBJECT (extension), _zot_manager_warned_quark ()) != NULL)
    return;
  g_object_set_qdata (G_OBJECT (extension), _zot_manager_warned_quark (), GINT_TO_POINTER (TRUE));

  why = failure_text (extension, error);
  /* Translators: the extension's name, the kind of events (tool_call or tool_result), then why,
   * such as "it stopped"; /reload-ext is a command, keep it */
  message = g_strdup_printf (_("%s no longer checks %s events (%s); they go on without it until "
                               "it is loaded again (/reload-ext)"),
                             zot_extension_get_name (extension), event, why);
  zot_extension_log (extension, "%s", message);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_WARNING], 0, extension, message);
}

static void
block_for_failed_guard (ZotInterception *result,
                        ZotExtension    *extension,
                        const GError    *error)
{
  g_autofree char *why = failure_text (extension, error);

  /* The reason is what the model reads as the tool's error. */
  result->blocked = TRUE;
  result->blocked_by = g_strdup (zot_extension_get_name (extension));
  /* Translators: the model reads this as the tool's error: the extension's name, then why, such
   * as "it stopped"; keep "intercept_failure": "block" as it is */
  result->reason = g_strdup_printf (_("Refused: the extension %s must check every tool call "
                                      "(\"intercept_failure\": \"block\"), and %s. Reload it "
                                      "(/reload-ext) to go on."),
                                    zot_extension_get_name (extension), why);
  zot_extension_log (extension, "tool call refused while the extension is not running (%s)", why);
}

/**
 * _zot_interception_apply_reply:
 * @result: the chain's outcome so far; its payload is what the next
 *   interceptor is shown
 * @event: the event intercepted
 * @extension: the interceptor that replied
 * @reply: its `event_intercept_response`
 *
 * Folds one reply into @result: a block ends the chain; a rewrite that
 * @event allows replaces the payload member it names, so that the next
 * interceptor sees it; a rewrite of the wrong type is logged and ignored.
 *
 * Returns: %TRUE when @reply blocked and the chain ends
 */
gboolean
_zot_interception_apply_reply (ZotInterception *result,
                               const char      *event,
                               ZotExtension    *extension,
                               JsonObject      *reply)
{
  JsonNode *node;

  node = json_object_get_member (reply, "block");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node))
    {
      const char *reason = zot_json_get_string_or (reply, "reason", NULL);

      result->blocked = TRUE;
      result->blocked_by = g_strdup (zot_extension_get_name (extension));
      result->reason = g_strdup (reason != NULL && *reason != '\0'
                                 ? reason
                                 : _("blocked by an extension"));
      return TRUE;
    }

  if (g_str_equal (event, "tool_call"))
    {
      node = json_object_get_member (reply, "modified_args");
      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        {
          json_object_set_member (result->payload, "tool_args", json_node_copy (node));
          result->rewritten = TRUE;
        }
      else if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
        zot_extension_log (extension, "modified_args must be a JSON object; ignored");
    }
  else if (g_str_equal (event, "assistant_message"))
    {
      node = json_object_get_member (reply, "replace_text");
      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        {
          json_object_set_string_member (result->payload, "text", json_node_get_string (node));
          result->rewritten = TRUE;
        }
      else if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
        zot_extension_log (extension, "replace_text must be a string; ignored");
    }

  return FALSE;
}

static void intercept_next (GTask *task);

static void
intercept_replied_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InterceptData *data = g_task_get_task_data (task);
  ZotExtension *extension = ZOT_EXTENSION (object);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_extension_request_finish (extension, result, &error);
  _zot_extension_meter_add_intercept (extension, g_get_monotonic_time () - data->sent_at);

  if (g_task_return_error_if_cancelled (task))
    return;

  if (reply == NULL && (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT) ||
                        g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY)))
    {
      /* Silence or a malformed exchange: the operation goes on. */
      zot_extension_log (extension, "%s interception: %s; allowed", data->event, error->message);
      intercept_next (task);
      return;
    }

  if (reply == NULL)
    {
      /* It crashed or was disconnected while it judged. */
      if (guard_blocks (extension, data->event) ||
          (g_str_equal (data->event, "tool_call") &&
           zot_manifest_get_intercept_failure_blocks (zot_extension_get_manifest (extension))))
        {
          block_for_failed_guard (data->result, extension, error);
          g_task_return_pointer (task, g_steal_pointer (&data->result), (GDestroyNotify) zot_interception_free);
          return;
        }
      if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_STOPPING ||
          zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_EXITED)
        zot_extension_log (extension, "%s interception: %s; allowed", data->event, error->message);
      else
        warn_skipped_interceptor (g_task_get_source_object (task), extension, data->event, error);
      intercept_next (task);
      return;
    }

  if (_zot_interception_apply_reply (data->result, data->event, extension, reply))
    {
      g_task_return_pointer (task, g_steal_pointer (&data->result), (GDestroyNotify) zot_interception_free);
      return;
    }

  intercept_next (task);
}

static void
intercept_next (GTask *task)
{
  InterceptData *data = g_task_get_task_data (task);

  while (data->index < data->chain->len)
    {
      ZotExtension *extension = g_ptr_array_index (data->chain, data->index++);
      g_autoptr(JsonObject) frame = NULL;

      if (guard_blocks (extension, data->event))
        {
          block_for_failed_guard (data->result, extension, NULL);
          g_task_return_pointer (task, g_steal_pointer (&data->result), (GDestroyNotify) zot_interception_free);
          return;
        }

      if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_FAILED &&
          zot_extension_intercepts (extension, data->event))
        {
          warn_skipped_interceptor (g_task_get_source_object (task), extension, data->event, NULL);
          continue;
        }

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        continue;

      frame = json_object_new ();
      json_object_set_string_member (frame, "type", "event_intercept");
      json_object_set_string_member (frame, "event", data->event);
      json_object_foreach_member (data->result->payload, _zot_manager_copy_member_into, frame);

      data->sent_at = g_get_monotonic_time ();
      zot_extension_request_async (extension, frame, zot_timeout_get_ms (ZOT_TIMEOUT_INTERCEPT),
                                   g_task_get_cancellable (task),
                                   intercept_replied_cb, g_object_ref (task));
      return;
    }

  g_task_return_pointer (task, g_steal_pointer (&data->result), (GDestroyNotify) zot_interception_free);
}

/**
 * zot_extension_manager_intercept_async:
 * @event: "tool_call", "turn_start" or "assistant_message"
 * @payload: the event's members; copied
 *
 * Runs the interceptors of @event serially in load order. The first block
 * wins; rewrites chain, each interceptor seeing the previous output. No
 * answer within 5 s, a crash or a malformed reply count as allow.
 */
void
zot_extension_manager_intercept_async (ZotExtensionManager *self,
                                       const char          *event,
                                       JsonObject          *payload,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  InterceptData *data;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (event != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_intercept_async);

  data = g_new0 (InterceptData, 1);
  data->event = g_strdup (event);
  data->chain = interceptors_for (self, event);
  data->result = g_new0 (ZotInterception, 1);
  data->result->payload = payload ? zot_json_object_copy (payload) : json_object_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) intercept_data_free);

  intercept_next (task);
}

/**
 * zot_extension_manager_intercept_finish:
 *
 * Returns: (transfer full): the outcome of the chain
 */
ZotInterception *
zot_extension_manager_intercept_finish (ZotExtensionManager  *self,
                                        GAsyncResult         *result,
                                        GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
zot_extension_manager_has_interceptors (ZotExtensionManager *self,
                                        const char          *event)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), FALSE);

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);

      if (in_chain (extension, event))
        return TRUE;
    }
  return FALSE;
}

/* before_agent_start */

typedef struct
{
  JsonObject *context;
  char       *prompt;
  GPtrArray  *chain;
  guint       index;
  gint64      sent_at;
} PromptData;

static void
prompt_data_free (PromptData *data)
{
  g_clear_pointer (&data->context, json_object_unref);
  g_free (data->prompt);
  g_clear_pointer (&data->chain, g_ptr_array_unref);
  g_free (data);
}

static void
warn (ZotExtensionManager *self,
      ZotExtension        *extension,
      const char          *message)
{
  zot_extension_log (extension, "%s", message);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_WARNING], 0, extension, message);
}

/**
 * _zot_before_agent_start_apply_reply:
 * @extension: the extension that replied
 * @reply: its `event_intercept_response`
 * @prompt: (inout): the system prompt so far
 *
 * Folds one before_agent_start reply into @prompt: a string is used
 * exactly ("" removes the prompt), an omitted one keeps it, and anything
 * else keeps it too, with a warning.
 *
 * Returns: (transfer full) (nullable): the warning for the user
 */
char *
_zot_before_agent_start_apply_reply (ZotExtension  *extension,
                                     JsonObject    *reply,
                                     char         **prompt)
{
  JsonNode *node = json_object_get_member (reply, "system_prompt");
  g_autofree char *encoded = NULL;

  /* Omitted: a normal no-op. */
  if (node == NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return g_strdup_printf (_("%s: before_agent_start answered a system_prompt that is not a "
                              "string; the system prompt was kept"),
                            zot_extension_get_name (extension));

  encoded = zot_json_to_string (node);
  if (strlen (encoded) > ZOT_SYSTEM_PROMPT_MAX_BYTES)
    return g_strdup_printf (_("%s: before_agent_start answered a %zu-byte system_prompt, over "
                              "the 1 MiB limit; the system prompt was kept"),
                            zot_extension_get_name (extension), strlen (encoded));

  /* Used exactly: no trimming, no merging. */
  g_free (*prompt);
  *prompt = g_strdup (json_node_get_string (node));
  return NULL;
}

static void prompt_next (GTask *task);

static void
prompt_replied_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotExtensionManager *self = g_task_get_source_object (task);
  PromptData *data = g_task_get_task_data (task);
  ZotExtension *extension = ZOT_EXTENSION (object);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  reply = zot_extension_request_finish (extension, result, &error);
  _zot_extension_meter_add_intercept (extension, g_get_monotonic_time () - data->sent_at);

  if (g_task_return_error_if_cancelled (task))
    return;

  if (reply == NULL)
    {
      message = g_strdup_printf (_("%s: before_agent_start failed (%s); the system prompt was "
                                   "kept"),
                                 zot_extension_get_name (extension), error->message);
      warn (self, extension, message);
      prompt_next (task);
      return;
    }

  message = _zot_before_agent_start_apply_reply (extension, reply, &data->prompt);
  if (message != NULL)
    warn (self, extension, message);

  prompt_next (task);
}

static void
prompt_next (GTask *task)
{
  PromptData *data = g_task_get_task_data (task);

  while (data->index < data->chain->len)
    {
      ZotExtension *extension = g_ptr_array_index (data->chain, data->index++);
      g_autoptr(JsonObject) frame = NULL;

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        continue;

      frame = json_object_new ();
      json_object_set_string_member (frame, "type", "event_intercept");
      json_object_set_string_member (frame, "event", "before_agent_start");
      json_object_foreach_member (data->context, _zot_manager_copy_member_into, frame);
      json_object_set_string_member (frame, "system_prompt", data->prompt);

      /* The deadline counts from the queueing of the request: it covers
       * the write as well. */
      data->sent_at = g_get_monotonic_time ();
      zot_extension_request_async (extension, frame,
                                   zot_timeout_get_ms (ZOT_TIMEOUT_BEFORE_AGENT_START),
                                   g_task_get_cancellable (task),
                                   prompt_replied_cb, g_object_ref (task));
      return;
    }

  g_task_return_pointer (task, g_steal_pointer (&data->prompt), g_free);
}

/**
 * zot_extension_manager_before_agent_start_async:
 * @context: session_id, agent_run_id, cwd, provider, model
 * @system_prompt: the assembled prompt
 *
 * Runs the `before_agent_start` chain in load order; each extension sees
 * the previous one's result. Failures keep the current prompt and warn.
 */
void
zot_extension_manager_before_agent_start_async (ZotExtensionManager *self,
                                                JsonObject          *context,
                                                const char          *system_prompt,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  PromptData *data;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (context != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_before_agent_start_async);

  data = g_new0 (PromptData, 1);
  data->context = json_object_ref (context);
  data->prompt = g_strdup (system_prompt ? system_prompt : "");
  data->chain = interceptors_for (self, "before_agent_start");
  g_task_set_task_data (task, data, (GDestroyNotify) prompt_data_free);

  prompt_next (task);
}

/**
 * zot_extension_manager_before_agent_start_finish:
 *
 * Returns: (transfer full): the system prompt to use
 */
char *
zot_extension_manager_before_agent_start_finish (ZotExtensionManager  *self,
                                                 GAsyncResult         *result,
                                                 GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
