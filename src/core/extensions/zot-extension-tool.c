#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-error.h"
#include "zot-extension-meter-private.h"
#include "zot-extension-private.h"
#include "zot-extension-tool.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-names.h"
#include "zot-message.h"

struct _ZotExtensionTool
{
  ZotTool  parent_instance;

  GWeakRef extension;
  /* The registration's annotations: hints, from the extension. */
  gboolean read_only;
  gboolean destructive;
};

G_DEFINE_FINAL_TYPE (ZotExtensionTool, zot_extension_tool, ZOT_TYPE_TOOL)

typedef struct
{
  ZotExtension      *extension;
  char              *request_id;
  guint              timeout_ms;
  ZotToolInvocation *invocation;
  guint              hold_id;
  gint64             sent_at;
} CallData;

/* The call has ended: the extension can no longer name it as a parent. */
static void
call_data_untrack (CallData *data)
{
  if (data->invocation == NULL)
    return;

  if (data->hold_id != 0)
    zot_tool_invocation_remove_hold_func (data->invocation, data->hold_id);
  data->hold_id = 0;
  zot_extension_untrack_invocation (data->extension, data->request_id, data->invocation);
  g_clear_pointer (&data->invocation, zot_tool_invocation_unref);
}

static void
call_data_free (CallData *data)
{
  call_data_untrack (data);
  g_clear_object (&data->extension);
  g_free (data->request_id);
  g_free (data);
}

/* A child of this call waits for the user: the reply deadline stops. */
static void
call_data_hold (gboolean held,
                gpointer user_data)
{
  CallData *data = user_data;

  zot_extension_hold_request (data->extension, data->request_id, held);
}

const char *
zot_tool_exposure_to_string (ZotToolExposure exposure)
{
  switch (exposure)
    {
    case ZOT_TOOL_EXPOSURE_DIRECT:     return "direct";
    case ZOT_TOOL_EXPOSURE_CODEMODE:   return "codemode";
    case ZOT_TOOL_EXPOSURE_DEFERRED:   return "deferred";
    case ZOT_TOOL_EXPOSURE_MODEL_ONLY: return "model-only";
    default:                           g_return_val_if_reached ("direct");
    }
}

static void
send_tool_cancel (CallData *data)
{
  g_autoptr(JsonObject) frame = NULL;

  /* Only to extensions that asked for it, by that exact string. */
  if (data->request_id == NULL || !zot_extension_has_capability (data->extension, "tool_cancel"))
    return;

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_cancel");
  json_object_set_string_member (frame, "id", data->request_id);
  if (!zot_extension_notify (data->extension, frame, NULL))
    zot_extension_log (data->extension, "tool_cancel for %s could not be sent", data->request_id);
}

/* The reply's content as the model will see it: an array of blocks. */
static JsonArray *
reply_content (JsonObject *reply)
{
  JsonNode *node = json_object_get_member (reply, "content");

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    return json_array_ref (json_node_get_array (node));

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return zot_content_new_text (json_node_get_string (node));

  return json_array_new ();
}

/* The reply's content and is_error as a result. */
static ZotToolResult *
reply_result (JsonObject *reply)
{
  g_autoptr(JsonArray) content = reply_content (reply);
  gboolean is_error = zot_json_get_boolean_or (reply, "is_error", FALSE);

  return zot_tool_result_new (content, is_error,
                              is_error ? ZOT_TOOL_OUTCOME_FAILED : ZOT_TOOL_OUTCOME_COMPLETED);
}

/* `activate_tools` (PROTOCOL.md §5a): the names, for the agent to apply;
 * a malformed list is logged and what can be read is kept. */
static GStrv
reply_activate_tools (ZotExtension *extension,
                      JsonObject   *reply)
{
  g_autoptr(GStrvBuilder) names = NULL;
  JsonNode *node = json_object_get_member (reply, "activate_tools");
  JsonArray *array;
  guint n = 0;
  guint n_bad = 0;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      zot_extension_log (extension, "tool_result: \"activate_tools\" is not an array of tool names, ignored");
      return NULL;
    }

  names = g_strv_builder_new ();
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array) && n < ZOT_ACTIVATE_TOOLS_MAX_NAMES; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        n_bad++;
      else
        {
          g_strv_builder_add (names, json_node_get_string (element));
          n++;
        }
    }

  if (n_bad > 0)
    zot_extension_log (extension, "tool_result: %u elements of \"activate_tools\" are not strings, ignored",
                       n_bad);
  if (n + n_bad < json_array_get_length (array))
    zot_extension_log (extension, "tool_result: \"activate_tools\" names more than %u tools; "
                       "the rest are ignored", ZOT_ACTIVATE_TOOLS_MAX_NAMES);

  return n > 0 ? g_strv_builder_end (names) : NULL;
}

static void
replied_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotTool *tool = g_task_get_source_object (task);
  CallData *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  ZotToolResult *tool_result;
  JsonNode *structured;

  reply = zot_extension_request_finish (ZOT_EXTENSION (object), result, &error);
  call_data_untrack (data);
  _zot_extension_untrack_progress (data->extension, data->request_id);
  if (reply == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          send_tool_cancel (data);
          g_task_return_error (task, g_steal_pointer (&error));
        }
      else if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT))
        {
          send_tool_cancel (data);
          g_task_return_pointer (task,
                                 zot_tool_result_new_error (ZOT_TOOL_OUTCOME_TIMED_OUT,
                                                            _("%s (%s) did not answer within %u s."),
                                                            zot_tool_get_name (tool),
                                                            zot_extension_get_name (data->extension),
                                                            (data->timeout_ms + 999) / 1000),
                                 (GDestroyNotify) zot_tool_result_free);
        }
      else
        g_task_return_pointer (task,
                               zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED, "%s: %s",
                                                          zot_tool_get_name (tool), error->message),
                               (GDestroyNotify) zot_tool_result_free);
      return;
    }

  /* A call that waited for the user measures the user, not the extension. */
  if (data->timeout_ms != 0)
    _zot_extension_meter_add_latency (data->extension, g_get_monotonic_time () - data->sent_at);
  tool_result = reply_result (reply);

  structured = json_object_get_member (reply, "structured_content");
  if (structured != NULL && !JSON_NODE_HOLDS_NULL (structured))
    tool_result->structured_content = json_node_copy (structured);
  tool_result->activate_tools = reply_activate_tools (data->extension, reply);

  g_task_return_pointer (task, tool_result, (GDestroyNotify) zot_tool_result_free);
}

static void
zot_extension_tool_execute_async (ZotTool              *tool,
                                  JsonObject           *args,
                                  const ZotToolContext *context,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  ZotExtensionTool *self = ZOT_EXTENSION_TOOL (tool);
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) frame = NULL;
  CallData *data;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_tool_execute_async);

  data = g_new0 (CallData, 1);
  data->extension = g_weak_ref_get (&self->extension);
  g_task_set_task_data (task, data, (GDestroyNotify) call_data_free);

  if (data->extension == NULL || zot_extension_get_state (data->extension) != ZOT_EXTENSION_STATE_READY)
    {
      g_task_return_pointer (task,
                             zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                        _("%s is not available: its extension is not running."),
                                                        zot_tool_get_name (tool)),
                             (GDestroyNotify) zot_tool_result_free);
      return;
    }

  /* Interactive tools wait for the user for as long as it takes, where
   * there is a user; cancellation and a crash still end the wait. */
  if (zot_tool_get_interactive (tool) && context->interactive)
    data->timeout_ms = 0;
  else
    data->timeout_ms = zot_timeout_get_ms (ZOT_TIMEOUT_TOOL);

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", zot_tool_get_name (tool));
  json_object_set_object_member (frame, "args", json_object_ref (args));
  /* The same key when the call is replayed (idempotent) or asked about
   * (reconcile): the extension's promise. */
  if (context->operation_key != NULL &&
      (zot_tool_get_replay (tool) == ZOT_TOOL_REPLAY_IDEMPOTENT ||
       zot_tool_get_replay (tool) == ZOT_TOOL_REPLAY_RECONCILE))
    json_object_set_string_member (frame, "operation_key", context->operation_key);

  data->sent_at = g_get_monotonic_time ();
  zot_extension_request_async (data->extension, frame, data->timeout_ms, cancellable,
                               replied_cb, g_object_ref (task));
  data->request_id = g_strdup (zot_json_get_string_or (frame, "id", NULL));
  if (context->progress != NULL && data->request_id != NULL)
    _zot_extension_track_progress (data->extension, data->request_id, context->progress);

  /* The request is pending until its callback runs, at the earliest on
   * the next turn of the main loop. */
  if (context->invocation != NULL && data->request_id != NULL)
    {
      data->invocation = zot_tool_invocation_ref (context->invocation);
      zot_extension_track_invocation (data->extension, data->request_id, data->invocation);
      data->hold_id = zot_tool_invocation_add_hold_func (data->invocation, call_data_hold, data);
    }
}

static ZotToolResult *
zot_extension_tool_execute_finish (ZotTool       *tool,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, tool), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_extension_tool_finalize (GObject *object)
{
  ZotExtensionTool *self = (ZotExtensionTool *)object;

  g_weak_ref_clear (&self->extension);

  G_OBJECT_CLASS (zot_extension_tool_parent_class)->finalize (object);
}

static void
zot_extension_tool_class_init (ZotExtensionToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  object_class->finalize = zot_extension_tool_finalize;
  tool_class->execute_async = zot_extension_tool_execute_async;
  tool_class->execute_finish = zot_extension_tool_execute_finish;
}

static void
zot_extension_tool_init (ZotExtensionTool *self)
{
  g_weak_ref_init (&self->extension, NULL);
}

static gboolean
frame_boolean (JsonObject *frame,
               const char *member)
{
  JsonNode *node = json_object_get_member (frame, member);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

/* What a `register_tool` frame says, once it passed the checks. */
typedef struct
{
  const char      *name;
  JsonObject      *schema;
  JsonObject      *output_schema;
  const char      *ns;
  ZotToolExposure  exposure;
  ZotToolReplay    replay;
  gboolean         output_schema_ignored;
  gboolean         read_only;
  gboolean         destructive;
} ToolFrame;

/* `annotations` (docs/protocol.md): hints whose only check is their type. */
static gboolean
read_annotations (JsonObject  *frame,
                  const char  *name,
                  ToolFrame   *out,
                  GError     **error)
{
  static const char * const hints[] = { "read_only", "destructive" };
  gboolean *values[] = { &out->read_only, &out->destructive };
  JsonNode *node = json_object_get_member (frame, "annotations");

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                   _("tool \"%s\" rejected: \"annotations\" must be a JSON object"), name);
      return FALSE;
    }

  for (guint i = 0; i < G_N_ELEMENTS (hints); i++)
    {
      JsonNode *hint = json_object_get_member (json_node_get_object (node), hints[i]);

      if (hint == NULL || JSON_NODE_HOLDS_NULL (hint))
        continue;
      if (!JSON_NODE_HOLDS_VALUE (hint) || json_node_get_value_type (hint) != G_TYPE_BOOLEAN)
        {
          g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                       _("tool \"%s\" rejected: \"annotations.%s\" must be true or false"),
                       name, hints[i]);
          return FALSE;
        }
      *values[i] = json_node_get_boolean (hint);
    }
  return TRUE;
}

static gboolean
read_tool_frame (JsonObject  *frame,
                 ToolFrame   *out,
                 GError     **error)
{
  const char *name = zot_json_get_string (frame, "name");
  const char *exposure_name = NULL;
  const char *ns;
  JsonNode *schema;
  JsonNode *output_schema;
  JsonNode *node;

  memset (out, 0, sizeof *out);
  out->exposure = ZOT_TOOL_EXPOSURE_DIRECT;
  out->replay = ZOT_TOOL_REPLAY_NEVER;

  if (name == NULL || *name == '\0')
    {
      g_set_error_literal (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                           _("register_tool without a \"name\""));
      return FALSE;
    }

  /* A name a provider refuses would make every request of the run fail. */
  if (!zot_name_is_tool_name (name))
    {
      g_autofree char *shown = zot_name_excerpt (name);

      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                   _("tool \"%s\" rejected: a tool name is 1 to %u letters, digits, \"_\" or \"-\", "
                     "starting with a letter or \"_\""),
                   shown, ZOT_TOOL_NAME_MAX_CHARS);
      return FALSE;
    }

  schema = json_object_get_member (frame, "schema");
  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                   _("tool \"%s\" rejected: \"schema\" must be a JSON object"), name);
      return FALSE;
    }

  node = json_object_get_member (frame, "exposure");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      exposure_name = zot_json_get_string (frame, "exposure");
      if (g_strcmp0 (exposure_name, "direct") == 0)
        out->exposure = ZOT_TOOL_EXPOSURE_DIRECT;
      else if (g_strcmp0 (exposure_name, "codemode") == 0)
        out->exposure = ZOT_TOOL_EXPOSURE_CODEMODE;
      else if (g_strcmp0 (exposure_name, "deferred") == 0)
        out->exposure = ZOT_TOOL_EXPOSURE_DEFERRED;
      else if (g_strcmp0 (exposure_name, "model-only") == 0)
        out->exposure = ZOT_TOOL_EXPOSURE_MODEL_ONLY;
      else
        {
          g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                       _("tool \"%s\" rejected: unknown exposure; use direct, codemode, deferred or model-only"),
                       name);
          return FALSE;
        }
    }
  else if (frame_boolean (frame, "deferred"))
    {
      /* The legacy flag, when no explicit exposure says otherwise. */
      out->exposure = ZOT_TOOL_EXPOSURE_DEFERRED;
    }

  node = json_object_get_member (frame, "replay");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      const char *replay_name = zot_json_get_string (frame, "replay");

      if (g_strcmp0 (replay_name, "never") == 0)
        out->replay = ZOT_TOOL_REPLAY_NEVER;
      else if (g_strcmp0 (replay_name, "safe") == 0)
        out->replay = ZOT_TOOL_REPLAY_SAFE;
      else if (g_strcmp0 (replay_name, "idempotent") == 0)
        out->replay = ZOT_TOOL_REPLAY_IDEMPOTENT;
      else if (g_strcmp0 (replay_name, "reconcile") == 0)
        out->replay = ZOT_TOOL_REPLAY_RECONCILE;
      else
        {
          g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                       _("tool \"%s\" rejected: unknown replay; use never, safe, idempotent or reconcile"),
                       name);
          return FALSE;
        }
    }

  output_schema = json_object_get_member (frame, "output_schema");
  if (output_schema != NULL && !JSON_NODE_HOLDS_OBJECT (output_schema))
    {
      out->output_schema_ignored = !JSON_NODE_HOLDS_NULL (output_schema);
      output_schema = NULL;
    }

  ns = zot_json_get_string (frame, "namespace");
  if (ns != NULL && *ns != '\0' && !zot_name_is_tool_name (ns))
    {
      g_autofree char *shown = zot_name_excerpt (ns);

      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                   _("tool \"%s\" rejected: namespace \"%s\" must follow the rule of tool names"),
                   name, shown);
      return FALSE;
    }

  if (!read_annotations (frame, name, out, error))
    return FALSE;

  out->name = name;
  out->schema = json_node_get_object (schema);
  out->output_schema = output_schema != NULL ? json_node_get_object (output_schema) : NULL;
  out->ns = ns != NULL && *ns != '\0' ? ns : NULL;
  return TRUE;
}

/**
 * zot_extension_tool_check_frame:
 * @frame: a `register_tool` frame
 *
 * The checks zot_extension_tool_new_from_frame() makes, without an
 * extension to register the tool with: `zot ext check` holds an extension
 * to the very rules the host applies.
 *
 * Returns: whether the host would accept the registration
 */
gboolean
zot_extension_tool_check_frame (JsonObject  *frame,
                                GError     **error)
{
  ToolFrame parsed;

  g_return_val_if_fail (frame != NULL, FALSE);

  return read_tool_frame (frame, &parsed, error);
}

/**
 * zot_extension_tool_new_from_frame:
 * @frame: a `register_tool` frame
 *
 * Validates the registration (PROTOCOL.md §4): a name, a schema that is a
 * JSON object, a known exposure.
 *
 * Returns: (transfer full): the tool, or %NULL with a message saying why
 */
ZotTool *
zot_extension_tool_new_from_frame (ZotExtension  *extension,
                                   JsonObject    *frame,
                                   GError       **error)
{
  ZotExtensionTool *self;
  ToolFrame parsed;
  const char *name;
  const char *ns;

  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);
  g_return_val_if_fail (frame != NULL, NULL);

  if (!read_tool_frame (frame, &parsed, error))
    return NULL;

  name = parsed.name;
  if (parsed.output_schema_ignored)
    zot_extension_log (extension, "tool \"%s\": \"output_schema\" is not an object, ignored", name);
  ns = parsed.ns != NULL ? parsed.ns : zot_extension_get_name (extension);

  self = g_object_new (ZOT_TYPE_EXTENSION_TOOL,
                       "name", name,
                       "description", zot_json_get_string (frame, "description"),
                       "schema", parsed.schema,
                       "output-schema", parsed.output_schema,
                       "exposure", parsed.exposure,
                       "interactive", frame_boolean (frame, "interactive"),
                       "concurrent", TRUE,
                       "requires-approval", TRUE,
                       "replay", parsed.replay,
                       "origin", zot_extension_get_name (extension),
                       "namespace", ns,
                       "namespace-description",
                       zot_json_get_string (frame, "namespace_description"),
                       "namespace-instructions",
                       zot_json_get_string (frame, "namespace_instructions"),
                       NULL);
  g_weak_ref_set (&self->extension, extension);
  self->read_only = parsed.read_only;
  self->destructive = parsed.destructive;

  return ZOT_TOOL (self);
}

/**
 * zot_extension_tool_get_read_only:
 *
 * The registration's `annotations.read_only`: the extension says the tool
 * changes nothing. No approval policy of this host trusts it yet.
 *
 * Returns: the hint, %FALSE when absent
 */
gboolean
zot_extension_tool_get_read_only (ZotExtensionTool *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_TOOL (self), FALSE);
  return self->read_only;
}

/**
 * zot_extension_tool_get_destructive:
 *
 * The registration's `annotations.destructive`: no remembered approval
 * covers a call of the tool.
 *
 * Returns: the hint, %FALSE when absent
 */
gboolean
zot_extension_tool_get_destructive (ZotExtensionTool *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_TOOL (self), FALSE);
  return self->destructive;
}

/* Reconciling an interrupted call (PROTOCOL.md §5, replay "reconcile") */

static void
reconciled_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotTool *tool = g_task_get_source_object (task);
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  ZotToolResult *tool_result;
  JsonNode *structured;
  const char *state = NULL;

  reply = zot_extension_request_finish (ZOT_EXTENSION (object), result, &error);
  if (reply == NULL)
    {
      zot_extension_log (ZOT_EXTENSION (object), "reconcile of %s: %s", zot_tool_get_name (tool),
                         error->message);
      g_task_return_int (task, ZOT_RECONCILE_UNKNOWN);
      return;
    }

  /* Upstream's shape: the answer's state in structured_content. */
  structured = json_object_get_member (reply, "structured_content");
  if (structured != NULL && JSON_NODE_HOLDS_OBJECT (structured))
    state = zot_json_get_string (json_node_get_object (structured), "state");

  if (g_strcmp0 (state, "not_started") == 0)
    {
      g_task_return_int (task, ZOT_RECONCILE_NOT_STARTED);
      return;
    }
  if (g_strcmp0 (state, "completed") != 0)
    {
      g_autofree char *shown = state != NULL ? zot_name_excerpt (state) : NULL;

      zot_extension_log (ZOT_EXTENSION (object), "reconcile of %s: state %s; the outcome is unknown",
                         zot_tool_get_name (tool), shown != NULL ? shown : "missing");
      g_task_return_int (task, ZOT_RECONCILE_UNKNOWN);
      return;
    }

  tool_result = reply_result (reply);
  g_object_set_data_full (G_OBJECT (task), "result", tool_result, (GDestroyNotify) zot_tool_result_free);
  g_task_return_int (task, ZOT_RECONCILE_COMPLETED);
}

/**
 * zot_extension_tool_reconcile_async:
 * @args: the call's arguments, as journaled
 * @operation_key: the key the interrupted call was given
 *
 * Asks the extension whether an interrupted call ran: a `tool_call` with
 * `reconcile: true` and @operation_key, answered by a `tool_result`
 * whose `structured_content.state` is "not_started" or "completed" (the
 * result then in `content`). No answer within the tool deadline, a
 * stopped extension, or any other answer is %ZOT_RECONCILE_UNKNOWN.
 */
void
zot_extension_tool_reconcile_async (ZotExtensionTool    *self,
                                    JsonObject          *args,
                                    const char          *operation_key,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(ZotExtension) extension = NULL;
  g_autoptr(JsonObject) frame = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_TOOL (self));
  g_return_if_fail (args != NULL);
  g_return_if_fail (operation_key != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_tool_reconcile_async);

  extension = g_weak_ref_get (&self->extension);
  if (extension == NULL || zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
    {
      g_task_return_int (task, ZOT_RECONCILE_UNKNOWN);
      return;
    }

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", zot_tool_get_name (ZOT_TOOL (self)));
  json_object_set_object_member (frame, "args", json_object_ref (args));
  json_object_set_boolean_member (frame, "reconcile", TRUE);
  json_object_set_string_member (frame, "operation_key", operation_key);

  zot_extension_request_async (extension, frame, zot_timeout_get_ms (ZOT_TIMEOUT_TOOL), cancellable,
                               reconciled_cb, g_object_ref (task));
}

/**
 * zot_extension_tool_reconcile_finish:
 * @out_result: (out) (optional) (transfer full): for
 *   %ZOT_RECONCILE_COMPLETED, the call's result
 *
 * Returns: what the extension answered
 */
ZotReconcileOutcome
zot_extension_tool_reconcile_finish (ZotExtensionTool  *self,
                                     GAsyncResult      *result,
                                     ZotToolResult    **out_result)
{
  ZotReconcileOutcome outcome;

  g_return_val_if_fail (g_task_is_valid (result, self), ZOT_RECONCILE_UNKNOWN);

  outcome = g_task_propagate_int (G_TASK (result), NULL);
  if (outcome < 0)
    outcome = ZOT_RECONCILE_UNKNOWN;
  if (out_result != NULL)
    *out_result = outcome == ZOT_RECONCILE_COMPLETED
                  ? g_object_steal_data (G_OBJECT (result), "result") : NULL;
  return outcome;
}

/**
 * zot_extension_tool_dup_extension:
 *
 * Returns: (transfer full) (nullable): the extension, while it exists
 */
ZotExtension *
zot_extension_tool_dup_extension (ZotExtensionTool *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_TOOL (self), NULL);
  return g_weak_ref_get (&self->extension);
}
