/* zot-manager-calls.c — the tool calls extensions ask the host for
 * (`call_tool`, PROTOCOL.md §5).
 *
 * The manager checks what the protocol rules (the capability, the id, the
 * parent, the chain) and hands the call to a ZotToolRunner: the agent that
 * made the parent call, or for a call without a parent the conversation's
 * own agent. The runner resolves the tool in its registry and runs it the
 * way a model call runs. Every request the manager takes gets exactly one
 * `tool_result` frame back, refusals included, with its content under the
 * observation limit; a cancelled one says so. While a request is out, the
 * manager keeps it here, by extension and id.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-extension-manager-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-observation.h"
#include "zot-source.h"

typedef struct
{
  ZotExtensionManager *manager;      /* NULL once the manager is gone */
  ZotExtension        *extension;
  char                *id;
  char                *name;
  GCancellable        *cancellable;
  GSource             *parent_link;   /* the parent's cancellation ends this call */
} CallRequest;

static guint
call_request_hash (gconstpointer key)
{
  const CallRequest *request = key;

  return g_direct_hash (request->extension) ^ g_str_hash (request->id);
}

static gboolean
call_request_equal (gconstpointer a,
                    gconstpointer b)
{
  const CallRequest *x = a;
  const CallRequest *y = b;

  return x->extension == y->extension && g_str_equal (x->id, y->id);
}

static void
call_request_free (CallRequest *request)
{
  zot_clear_source (&request->parent_link);
  g_clear_object (&request->cancellable);
  g_clear_object (&request->extension);
  g_free (request->id);
  g_free (request->name);
  g_free (request);
}

static CallRequest *
lookup_request (ZotExtensionManager *self,
                ZotExtension        *extension,
                const char          *id)
{
  CallRequest key = { .extension = extension, .id = (char *) id };

  return g_hash_table_lookup (self->calls, &key);
}

static void
send_result (ZotExtension  *extension,
             const char    *id,
             const char    *name,
             ZotToolResult *result)
{
  g_autoptr(JsonObject) reply = json_object_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *observed = zot_observation_result (result->content, result->is_error);

  json_object_set_string_member (reply, "type", "tool_result");
  json_object_set_string_member (reply, "id", id);
  json_object_set_string_member (reply, "name", name);
  json_object_set_member (reply, "content", json_object_dup_member (observed, "content"));
  json_object_set_boolean_member (reply, "is_error", result->is_error);
  json_object_set_boolean_member (reply, "truncated",
                                  zot_json_get_boolean_or (observed, "truncated", FALSE));
  json_object_unref (observed);

  if (!zot_extension_notify (extension, reply, &error))
    zot_extension_log (extension, "call_tool %s: the result could not be sent: %s", id, error->message);
}

/* Every refused request still gets its one terminal result. */
static void
refuse (ZotExtension *extension,
        const char   *id,
        const char   *name,
        const char   *format,
        ...) G_GNUC_PRINTF (4, 5);

static void
refuse (ZotExtension *extension,
        const char   *id,
        const char   *name,
        const char   *format,
        ...)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  zot_extension_log (extension, "call_tool %s (%s) refused: %s", id, name, message);
  result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED, "%s", message);
  send_result (extension, id, name, result);
}


/* The chain a call_tool naming @parent joins. The frame does not say
 * which of this extension's running calls sent it: any of them below
 * @parent may have, naming an ancestor instead of itself. So the chain
 * is counted from the deepest of them, and @name must be in none of
 * theirs, or a call could nest under itself without end. */
static guint
chain_depth_under (ZotExtension      *extension,
                   ZotToolInvocation *parent,
                   const char        *name,
                   gboolean          *repeats)
{
  g_auto(GStrv) ids = zot_extension_dup_invocation_ids (extension);
  guint depth = zot_tool_invocation_get_depth (parent);

  *repeats = zot_tool_invocation_chain_has (parent, name);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      ZotToolInvocation *running = zot_extension_lookup_invocation (extension, ids[i]);
      ZotToolInvocation *node = running;

      while (node != NULL && node != parent)
        node = zot_tool_invocation_get_parent (node);
      if (node == NULL)
        continue;

      depth = MAX (depth, zot_tool_invocation_get_depth (running));
      *repeats = *repeats || zot_tool_invocation_chain_has (running, name);
    }
  return depth;
}

static void
call_done_cb (GObject      *object,
              GAsyncResult *async_result,
              gpointer      user_data)
{
  CallRequest *request = user_data;
  g_autoptr(ZotToolResult) result = NULL;

  result = zot_tool_runner_call_finish (ZOT_TOOL_RUNNER (object), async_result);

  if (request->manager != NULL)
    g_hash_table_steal (request->manager->calls, request);

  if (zot_extension_is_running (request->extension))
    send_result (request->extension, request->id, request->name, result);

  call_request_free (request);
}

static const char *
string_member (JsonObject *frame,
               const char *member,
               gboolean   *bad)
{
  JsonNode *node = json_object_get_member (frame, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      *bad = TRUE;
      return NULL;
    }
  return json_node_get_string (node);
}

/* A durable key: at most ZOT_DURABLE_KEY_MAX_BYTES, no "/" (it would
 * read as nesting), not empty. (json-glib ends a string at an escaped
 * NUL, so a NUL cannot reach here.) */
static gboolean
check_key (JsonObject  *frame,
           const char **key,
           char       **problem)
{
  gboolean bad = FALSE;

  *key = string_member (frame, "key", &bad);
  if (bad)
    *problem = g_strdup (_("\"key\" must be a string"));
  else if (*key == NULL)
    return TRUE;
  else if (**key == '\0')
    *problem = g_strdup (_("\"key\" must not be empty"));
  else if (strlen (*key) > ZOT_DURABLE_KEY_MAX_BYTES)
    *problem = g_strdup_printf (_("\"key\" is longer than %u bytes"), ZOT_DURABLE_KEY_MAX_BYTES);
  else if (strchr (*key, '/') != NULL)
    *problem = g_strdup (_("\"key\" must not contain \"/\""));
  else
    return TRUE;

  return FALSE;
}

void
_zot_manager_call_tool_frame (ZotExtensionManager *self,
                              ZotExtension        *extension,
                              JsonObject          *frame)
{
  g_autoptr(ZotToolRunner) runner = NULL;
  g_autoptr(JsonObject) args = NULL;
  g_autofree char *task_id = NULL;
  g_autofree char *key_problem = NULL;
  const char *key = NULL;
  ZotToolInvocation *parent = NULL;
  ZotToolRequest call = { 0 };
  CallRequest *request;
  gboolean bad_id = FALSE;
  gboolean bad_name = FALSE;
  gboolean bad_parent = FALSE;
  const char *id = string_member (frame, "id", &bad_id);
  const char *name = string_member (frame, "name", &bad_name);
  const char *parent_id = string_member (frame, "parent_id", &bad_parent);
  gboolean repeats = FALSE;
  guint depth = 0;
  JsonNode *args_node;

  if (id == NULL || *id == '\0')
    {
      zot_extension_log (extension, "call_tool without a string \"id\", ignored");
      return;
    }

  /* The outstanding request's reply stands. */
  if (lookup_request (self, extension, id) != NULL)
    {
      zot_extension_log (extension, "call_tool %s: that id is already outstanding; the request was ignored", id);
      return;
    }

  if (name == NULL)
    name = "";

  if (!zot_extension_has_capability (extension, "call_tool"))
    {
      refuse (extension, id, name,
              _("call_tool is refused: add \"call_tool\" to the capabilities of your hello frame"));
      return;
    }

  if (*name == '\0')
    {
      refuse (extension, id, name, _("call_tool needs the \"name\" of a tool"));
      return;
    }

  args_node = json_object_get_member (frame, "args");
  if (args_node == NULL || JSON_NODE_HOLDS_NULL (args_node))
    args = json_object_new ();
  else if (JSON_NODE_HOLDS_OBJECT (args_node))
    args = json_object_ref (json_node_get_object (args_node));
  else
    {
      refuse (extension, id, name, _("the \"args\" of call_tool must be a JSON object"));
      return;
    }

  if (bad_parent)
    {
      refuse (extension, id, name, _("\"parent_id\" must be the string id of a tool_call"));
      return;
    }

  /* A durable call belongs to a call the conversation journals. */
  if (self->continuous && parent_id == NULL)
    {
      refuse (extension, id, name,
              _("in continuous mode every call_tool needs the parent_id of a running tool call "
                "(calls from commands or timers cannot be replayed)"));
      return;
    }

  if (self->continuous && !check_key (frame, &key, &key_problem))
    {
      refuse (extension, id, name, "%s", key_problem);
      return;
    }

  if (parent_id != NULL)
    {
      parent = zot_extension_lookup_invocation (extension, parent_id);
      if (parent == NULL)
        {
          refuse (extension, id, name,
                  /* Translators: the parent_id given (an id, keep "parent_id"), then the
                   * extension's name */
                  _("parent_id \"%s\" names no tool call running in %s (unknown or finished)"),
                  parent_id, zot_extension_get_name (extension));
          return;
        }

      depth = chain_depth_under (extension, parent, name, &repeats);
      if (depth >= ZOT_TOOL_CHAIN_MAX_CALLS)
        {
          refuse (extension, id, name,
                  _("a chain of tool calls holds at most %u calls, the original included"),
                  ZOT_TOOL_CHAIN_MAX_CALLS);
          return;
        }

      if (repeats)
        {
          refuse (extension, id, name, _("%s is already a call of this chain; a chain never repeats a tool"),
                  name);
          return;
        }

      runner = zot_tool_invocation_dup_runner (parent);

      if (self->continuous && zot_tool_invocation_get_task_id (parent) != NULL)
        {
          if (key != NULL)
            task_id = g_strdup_printf ("%s/k=%s", zot_tool_invocation_get_task_id (parent), key);
          else
            task_id = g_strdup_printf ("%s/n=%u", zot_tool_invocation_get_task_id (parent),
                                       zot_tool_invocation_next_ordinal (parent));
        }
    }
  else
    {
      /* Its running tool must pass its own id, so the call is tied to it. */
      if (zot_extension_has_invocations (extension))
        {
          refuse (extension, id, name,
                  _("call_tool without a parent_id is refused while a tool call of %s is running; "
                    "pass that call's id as parent_id"),
                  zot_extension_get_name (extension));
          return;
        }

      runner = g_weak_ref_get (&self->runner);
    }

  if (runner == NULL)
    {
      refuse (extension, id, name, _("no agent is there to run tools"));
      return;
    }

  request = g_new0 (CallRequest, 1);
  request->manager = self;
  request->extension = g_object_ref (extension);
  request->id = g_strdup (id);
  request->name = g_strdup (name);
  request->cancellable = g_cancellable_new ();
  g_hash_table_add (self->calls, request);

  /* A child ends with its parent. */
  if (parent != NULL && zot_tool_invocation_get_cancellable (parent) != NULL)
    request->parent_link = zot_cancellable_follow (request->cancellable,
                                                   zot_tool_invocation_get_cancellable (parent));

  call.name = name;
  call.args = args;
  call.origin_extension = zot_extension_get_name (extension);
  call.parent = parent;
  call.depth = depth > 0 ? depth + 1 : 0;
  call.task_id = task_id;
  zot_tool_runner_call_async (runner, &call, request->cancellable, call_done_cb, request);
}

void
_zot_manager_call_tool_cancel_frame (ZotExtensionManager *self,
                                     ZotExtension        *extension,
                                     JsonObject          *frame)
{
  gboolean bad = FALSE;
  const char *id = string_member (frame, "id", &bad);
  CallRequest *request;

  if (id == NULL)
    {
      zot_extension_log (extension, "call_tool_cancel without a string \"id\", ignored");
      return;
    }

  request = lookup_request (self, extension, id);
  if (request == NULL)
    {
      zot_extension_log (extension, "call_tool_cancel %s: no such call is running, ignored", id);
      return;
    }

  zot_extension_log (extension, "call_tool %s (%s) cancelled by the extension", id, request->name);
  g_cancellable_cancel (request->cancellable);
}

/* The requests of @extension (or all), with a reference to their
 * cancellables: cancelling may finish a request at once, which takes it
 * out of the table, so nothing iterates the table while cancelling. */
static GPtrArray *
cancellables_of (ZotExtensionManager *self,
                 ZotExtension        *extension)
{
  GPtrArray *cancellables = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  CallRequest *request;

  g_hash_table_iter_init (&iter, self->calls);
  while (g_hash_table_iter_next (&iter, (gpointer *) &request, NULL))
    if (extension == NULL || request->extension == extension)
      g_ptr_array_add (cancellables, g_object_ref (request->cancellable));
  return cancellables;
}

/* An extension that stops cannot take results any more: its calls end. */
void
_zot_manager_cancel_calls_of (ZotExtensionManager *self,
                              ZotExtension        *extension)
{
  g_autoptr(GPtrArray) cancellables = NULL;

  if (self->calls == NULL)
    return;

  cancellables = cancellables_of (self, extension);
  for (guint i = 0; i < cancellables->len; i++)
    g_cancellable_cancel (g_ptr_array_index (cancellables, i));
}

/* The requests still out finish on their own, without the manager. */
void
_zot_manager_orphan_calls (ZotExtensionManager *self)
{
  g_autoptr(GPtrArray) cancellables = NULL;
  GHashTableIter iter;
  CallRequest *request;

  if (self->calls == NULL)
    return;

  cancellables = cancellables_of (self, NULL);
  g_hash_table_iter_init (&iter, self->calls);
  while (g_hash_table_iter_next (&iter, (gpointer *) &request, NULL))
    {
      request->manager = NULL;
      g_hash_table_iter_steal (&iter);
    }
  for (guint i = 0; i < cancellables->len; i++)
    g_cancellable_cancel (g_ptr_array_index (cancellables, i));
}

GHashTable *
_zot_manager_calls_new (void)
{
  return g_hash_table_new (call_request_hash, call_request_equal);
}

/**
 * zot_extension_manager_set_tool_runner:
 * @runner: (nullable): runs the calls extensions make outside any tool
 *   call (from a command, a timer); held weakly
 *
 * Calls made from within a running tool call go to the runner of that
 * call's agent instead.
 */
void
zot_extension_manager_set_tool_runner (ZotExtensionManager *self,
                                       ZotToolRunner       *runner)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (runner == NULL || ZOT_IS_TOOL_RUNNER (runner));

  g_weak_ref_set (&self->runner, runner);
}

/**
 * zot_extension_manager_get_n_calls:
 *
 * Returns: how many call_tool requests are running
 */
guint
zot_extension_manager_get_n_calls (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), 0);
  return g_hash_table_size (self->calls);
}

/**
 * zot_extension_manager_set_continuous:
 *
 * Continuous mode: `hello_ack` offers `call_tool_durable` to the
 * extensions started from now on, every call_tool needs a parent, and a
 * call's `key` names it in the journal. Restart the extensions to tell
 * running ones.
 */
void
zot_extension_manager_set_continuous (ZotExtensionManager *self,
                                      gboolean             continuous)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  self->continuous = !!continuous;
}

gboolean
zot_extension_manager_get_continuous (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), FALSE);
  return self->continuous;
}
