#define G_LOG_DOMAIN "zot-codemode"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-codemode-private.h"
#include "zot-codemode-runtime.h"
#include "zot-codemode-tool.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-observation.h"
#include "zot-session.h"
#include "zot-source.h"
#include "zot-tool-invocation.h"
#include "zot-tool-registry.h"
#include "zot-tool-search.h"
#include "zot-unknown-types.h"

#define OPTIONS_PREFIX "// @options:"
#define SEARCH_MAX_LIMIT 50

/* Read by the model: untranslated. */
#define CODEMODE_DESCRIPTION \
  "Run JavaScript that calls tools. `code` is the body of an async function (top-level await " \
  "and return). In scope: `await tools.name(args)` (also tools[\"odd-name\"], " \
  "tools.<namespace>.<name>; `\"name\" in tools` tests availability) resolves to the tool's " \
  "structured result when it declares one, else its text; a failed call rejects with an Error. " \
  "`await tools.bash({command})` resolves to {output, truncated, exit_code, wall_time_seconds}, " \
  "a non-zero exit included. " \
  "ALL_TOOLS lists {name, description}; `await searchTools(query, {limit, namespace})`, " \
  "`await describeTool(name)`, `await describeNamespace(name)` find tools, including ones you " \
  "do not see directly. Output: text(value), console.log(...), image(dataUrl), and the value you " \
  "return; exit() ends at once. store(key, value) and load(key) keep JSON between scripts of " \
  "this conversation (kept only when the script succeeds). Each script runs in a fresh sandbox " \
  "without files, network or process access. An optional first line " \
  "`// @options: {\"timeout_ms\": N, \"max_output_tokens\": N}` adjusts its limits."

#define CODEMODE_SCHEMA \
  "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\",\"description\":" \
  "\"JavaScript: the body of an async function.\"}},\"required\":[\"code\"]}"

struct _ZotCodemodeTool
{
  ZotTool             parent_instance;

  GCancellable       *cancellable;
  ZotCodemodeRuntime *spare;
  GSource            *spare_soon;
  gboolean            spare_wanted;
  gboolean            spare_starting;
  /* What the runtimes sent that is not in the tables, logged once. */
  ZotUnknownTypes     unknown;
};

G_DEFINE_FINAL_TYPE (ZotCodemodeTool, zot_codemode_tool, ZOT_TYPE_TOOL)

typedef ZotCodemodeScript Script;


static Script *
script_ref (Script *script)
{
  g_atomic_ref_count_inc (&script->ref_count);
  return script;
}

static void
script_unref (Script *script)
{
  if (!g_atomic_ref_count_dec (&script->ref_count))
    return;

  g_assert (script->finished);
  g_clear_object (&script->tool);
  g_clear_object (&script->agent);
  g_clear_object (&script->registry);
  g_clear_pointer (&script->invocation, zot_tool_invocation_unref);
  g_clear_object (&script->calls);
  g_clear_object (&script->runtime);
  g_free (script->code);
  g_string_free (script->head, TRUE);
  g_string_free (script->tail, TRUE);
  g_string_free (script->spill, TRUE);
  g_free (script->summary);
  g_clear_pointer (&script->images, json_array_unref);
  g_free (script);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Script, script_unref)

/* Spare runtimes */

static void spare_started_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data);

static void
start_spare (ZotCodemodeTool *self)
{
  if (!self->spare_wanted || self->spare != NULL || self->spare_starting)
    return;

  self->spare_starting = TRUE;
  zot_codemode_runtime_start_async (self->cancellable, spare_started_cb, g_object_ref (self));
}

static gboolean
start_spare_cb (gpointer user_data)
{
  ZotCodemodeTool *self = user_data;

  g_clear_pointer (&self->spare_soon, g_source_unref);
  start_spare (self);
  return G_SOURCE_REMOVE;
}

/* Once the main loop has nothing more pressing: spawning the runtime
 * forks this process, which should not hold up the script's result. */
static void
start_spare_soon (ZotCodemodeTool *self)
{
  if (self->spare_soon != NULL)
    return;
  self->spare_soon = g_idle_source_new ();
  g_source_set_priority (self->spare_soon, G_PRIORITY_LOW);
  g_source_set_callback (self->spare_soon, start_spare_cb, self, NULL);
  g_source_set_static_name (self->spare_soon, "[zot] codemode spare");
  g_source_attach (self->spare_soon, g_main_context_get_thread_default ());
}

static void
spare_ended (ZotCodemodeRuntime *runtime,
             const GError       *error,
             ZotCodemodeTool    *self)
{
  /* A spare that died is not replaced at once: it may die again. */
  if (self->spare == runtime)
    g_clear_object (&self->spare);
}

static void
spare_started_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(ZotCodemodeTool) self = user_data;
  g_autoptr(ZotCodemodeRuntime) runtime = NULL;
  g_autoptr(GError) error = NULL;

  runtime = zot_codemode_runtime_start_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->spare_starting = FALSE;
  if (runtime == NULL)
    {
      g_debug ("no spare runtime: %s", error->message);
      return;
    }
  if (!self->spare_wanted)
    {
      zot_codemode_runtime_stop (runtime);
      return;
    }
  g_signal_connect_object (runtime, "ended", G_CALLBACK (spare_ended), self, 0);
  self->spare = g_steal_pointer (&runtime);
}

static ZotCodemodeRuntime *
take_spare (ZotCodemodeTool *self)
{
  ZotCodemodeRuntime *runtime = g_steal_pointer (&self->spare);

  if (runtime != NULL)
    {
      g_signal_handlers_disconnect_by_data (runtime, self);
      if (!zot_codemode_runtime_is_alive (runtime))
        g_clear_object (&runtime);
    }
  return runtime;
}

static char *
format_elapsed (gint64 microseconds)
{
  if (microseconds < G_USEC_PER_SEC)
    return g_strdup_printf ("%u ms", (guint) (microseconds / 1000));
  return g_strdup_printf ("%.2f s", microseconds / (double) G_USEC_PER_SEC);
}

/* Ending a script */

static void
detach (Script *script)
{
  script->finished = TRUE;
  zot_clear_source (&script->deadline);
  zot_clear_source (&script->cancel_source);
  if (script->hold_id != 0)
    {
      zot_tool_invocation_remove_hold_func (script->invocation, script->hold_id);
      script->hold_id = 0;
    }
  if (script->runtime != NULL)
    {
      g_signal_handlers_disconnect_by_data (script->runtime, script);
      zot_codemode_runtime_stop (script->runtime);
    }
  /* Calls the script did not wait for end with it. */
  g_cancellable_cancel (script->calls);
  /* The next spare starts only now: gjs takes about a tenth of a second
   * of CPU to start, which on a small machine would have slowed every
   * call the script made while it ran beside it. */
  start_spare_soon (script->tool);
}

static void
complete (Script     *script,
          const char *spill_path)
{
  g_autoptr(JsonArray) content = json_array_new ();
  g_autofree char *text = zot_codemode_script_result_text (script, spill_path);
  GTask *task;

  zot_content_add_text (content, text);
  for (guint i = 0; i < json_array_get_length (script->images); i++)
    json_array_add_element (content, json_node_copy (json_array_get_element (script->images, i)));

  task = g_steal_pointer (&script->task);
  g_task_return_pointer (task, zot_tool_result_new (content, !script->ok,
                                                    script->ok ? ZOT_TOOL_OUTCOME_COMPLETED : ZOT_TOOL_OUTCOME_FAILED),
                         (GDestroyNotify) zot_tool_result_free);
  g_object_unref (task);
  script_unref (script);
}

static void
finish (Script     *script,
        gboolean    ok,
        const char *reason)
{
  g_autofree char *elapsed = format_elapsed (g_get_monotonic_time () - script->started);

  if (script->finished)
    return;
  detach (script);

  script->ok = ok;
  if (ok)
    script->summary = g_strdup_printf ("Script completed in %s.", elapsed);
  else
    script->summary = g_strdup_printf ("Script failed after %s: %s", elapsed, reason);
  if (script->dropped_images > 0)
    {
      g_autofree char *note = g_strdup_printf ("[%u images left out: a script shows at most %u]\n",
                                               script->dropped_images, ZOT_CODEMODE_MAX_IMAGES);
      zot_codemode_script_append_output (script, note, strlen (note));
    }

  /* What the model does not see in full is kept whole in a file. */
  if (script->output_total > script->output_max)
    zot_codemode_script_spill (script, complete);
  else
    complete (script, NULL);
}

static void
finish_cancelled (Script *script)
{
  GTask *task;

  if (script->finished)
    return;
  detach (script);
  task = g_steal_pointer (&script->task);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The script was cancelled."));
  g_object_unref (task);
  script_unref (script);
}

static gboolean
cancelled_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  Script *script = user_data;

  g_clear_pointer (&script->cancel_source, g_source_unref);
  finish_cancelled (script);
  return G_SOURCE_REMOVE;
}

static gboolean
deadline_cb (gpointer user_data)
{
  Script *script = user_data;
  g_autofree char *reason = NULL;

  g_clear_pointer (&script->deadline, g_source_unref);
  reason = g_strdup_printf ("the script ran past its time limit of %u ms (a first line "
                            "// @options: {\"timeout_ms\": N} sets it, up to %u ms)",
                            script->timeout_ms, zot_timeout_get_ms (ZOT_TIMEOUT_CODEMODE_MAX));
  finish (script, FALSE, reason);
  return G_SOURCE_REMOVE;
}

static void
arm_deadline (Script *script,
              gint64  remaining)
{
  script->due = g_get_monotonic_time () + remaining;
  script->deadline = g_timeout_source_new ((guint) MAX ((remaining + 999) / 1000, 0));
  g_source_set_callback (script->deadline, deadline_cb, script, NULL);
  g_source_set_static_name (script->deadline, "[zot] codemode deadline");
  g_source_attach (script->deadline, g_main_context_get_thread_default ());
}

/* A call of the script waits for the user: the script's clock stops. */
static void
on_hold (gboolean held,
         gpointer user_data)
{
  Script *script = user_data;

  if (script->finished || script->runtime == NULL)
    return;

  if (held && script->deadline != NULL)
    {
      script->remaining = MAX (script->due - g_get_monotonic_time (), 0);
      zot_clear_source (&script->deadline);
    }
  else if (!held && script->deadline == NULL)
    arm_deadline (script, script->remaining);
}

/* The catalog */

static gboolean
callable (ZotTool  *tool,
          gpointer  user_data)
{
  Script *script = user_data;

  return zot_tool_is_script_callable (tool) &&
         !ZOT_IS_CODEMODE_TOOL (tool) &&
         zot_tool_registry_is_allowed (script->registry, zot_tool_get_name (tool));
}

static JsonArray *
build_catalog (Script *script)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list (script->registry);
  JsonArray *catalog = json_array_new ();

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      JsonObject *entry;

      if (!callable (tool, script))
        continue;
      entry = json_object_new ();
      json_object_set_string_member (entry, "name", zot_tool_get_name (tool));
      json_object_set_string_member (entry, "description", zot_tool_get_description (tool));
      if (zot_tool_search_namespace_of (tool) != NULL)
        json_object_set_string_member (entry, "namespace", zot_tool_search_namespace_of (tool));
      json_array_add_object_element (catalog, entry);
    }
  return catalog;
}

static JsonObject *
describe_tool (ZotTool *tool)
{
  JsonObject *entry = json_object_new ();
  JsonObject *schema = zot_tool_get_schema (tool);
  JsonObject *output_schema = zot_tool_get_output_schema (tool);

  json_object_set_string_member (entry, "name", zot_tool_get_name (tool));
  if (zot_tool_search_namespace_of (tool) != NULL)
    json_object_set_string_member (entry, "namespace", zot_tool_search_namespace_of (tool));
  json_object_set_string_member (entry, "description", zot_tool_get_description (tool));
  if (schema != NULL)
    json_object_set_object_member (entry, "input_schema", zot_json_object_copy (schema));
  if (output_schema != NULL)
    json_object_set_object_member (entry, "output_schema", zot_json_object_copy (output_schema));
  return entry;
}

typedef struct
{
  Script     *script;
  const char *ns;
} SearchFilter;

static gboolean
search_filter (ZotTool  *tool,
               gpointer  user_data)
{
  SearchFilter *filter = user_data;

  return callable (tool, filter->script) &&
         (filter->ns == NULL || g_strcmp0 (zot_tool_search_namespace_of (tool), filter->ns) == 0);
}

static JsonNode *
answer_search (Script     *script,
               JsonObject *frame)
{
  SearchFilter filter = { script, zot_json_get_string (frame, "namespace") };
  g_autoptr(GPtrArray) tools = NULL;
  gint64 limit = zot_json_get_int_or (frame, "limit", ZOT_CODEMODE_SEARCH_DEFAULT_LIMIT);
  JsonArray *found = json_array_new ();

  limit = CLAMP (limit, 1, SEARCH_MAX_LIMIT);
  tools = zot_tool_search_rank (script->registry, zot_json_get_string_or (frame, "query", ""),
                                search_filter, &filter);
  for (guint i = 0; i < tools->len && i < (guint) limit; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "name", zot_tool_get_name (tool));
      if (zot_tool_search_namespace_of (tool) != NULL)
        json_object_set_string_member (entry, "namespace", zot_tool_search_namespace_of (tool));
      json_object_set_string_member (entry, "description", zot_tool_get_description (tool));
      json_array_add_object_element (found, entry);
    }
  return json_node_init_array (json_node_alloc (), found);
}

static JsonNode *
answer_namespace (Script     *script,
                  const char *name)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list (script->registry);
  g_autoptr(JsonArray) names = json_array_new ();
  const char *description = NULL;
  const char *instructions = NULL;
  JsonObject *entry;

  for (guint i = 0; name != NULL && i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);

      if (!callable (tool, script) || g_strcmp0 (zot_tool_search_namespace_of (tool), name) != 0)
        continue;
      json_array_add_string_element (names, zot_tool_get_name (tool));
      if (description == NULL)
        description = zot_tool_get_namespace_description (tool);
      if (instructions == NULL)
        instructions = zot_tool_get_namespace_instructions (tool);
    }

  if (json_array_get_length (names) == 0)
    return json_node_new (JSON_NODE_NULL);

  entry = json_object_new ();
  json_object_set_string_member (entry, "name", name);
  json_object_set_string_member (entry, "description", description != NULL ? description : "");
  json_object_set_string_member (entry, "instructions", instructions != NULL ? instructions : "");
  json_object_set_array_member (entry, "tools", g_steal_pointer (&names));
  return json_node_init_object (json_node_alloc (), entry);
}

static void
send_frame (Script     *script,
            JsonObject *frame)
{
  g_autoptr(GError) error = NULL;

  if (script->finished)
    return;
  if (!zot_codemode_runtime_send (script->runtime, frame, &error))
    {
      g_autofree char *reason = g_strdup_printf ("the script runtime could not be reached: %s", error->message);
      finish (script, FALSE, reason);
    }
}

static JsonNode *
answer_describe_namespace (Script     *script,
                           JsonObject *frame)
{
  return answer_namespace (script, zot_json_get_string (frame, "name"));
}

static JsonNode *
answer_describe_tool (Script     *script,
                      JsonObject *frame)
{
  const char *name = zot_json_get_string (frame, "name");
  ZotTool *tool = name != NULL ? zot_tool_registry_lookup (script->registry, name) : NULL;

  if (tool != NULL && callable (tool, script))
    return json_node_init_object (json_node_alloc (), describe_tool (tool));
  return json_node_new (JSON_NODE_NULL);
}

/* What a script may ask the host, by the ask frame's "what"; each answer
 * is the reply's value. */
static const struct {
  const char *what;
  JsonNode   *(*answer) (Script     *script,
                         JsonObject *frame);
} asks[] = {
  { "search",             answer_search },
  { "describe_namespace", answer_describe_namespace },
  { "describe_tool",      answer_describe_tool },
};

/* Says once per type (zot-unknown-types.h) that the runtime sent what
 * this host does not know: a runtime and a host out of step. */
static void
log_unknown (Script     *script,
             const char *kind,
             const char *type)
{
  g_autofree char *key = g_strconcat (kind, "\n", type, NULL);

  if (zot_unknown_types_note (&script->tool->unknown, key))
    g_message ("the script runtime sent an unknown %s \"%s\"; it is ignored, "
               "and later ones are not logged", kind, type);
}

static void
handle_ask (Script     *script,
            JsonObject *frame)
{
  g_autoptr(JsonObject) reply = json_object_new ();
  const char *what = zot_json_get_string_or (frame, "what", "");
  JsonNode *value = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (asks) && value == NULL; i++)
    if (g_str_equal (what, asks[i].what))
      value = asks[i].answer (script, frame);

  /* The script's promise still settles, with null. */
  if (value == NULL)
    {
      log_unknown (script, "ask", what);
      value = json_node_new (JSON_NODE_NULL);
    }

  json_object_set_string_member (reply, "type", "reply");
  json_object_set_int_member (reply, "id", zot_json_get_int_or (frame, "id", 0));
  json_object_set_member (reply, "value", value);
  send_frame (script, reply);
}

/* The script's tool calls */

typedef struct
{
  Script *script;
  gint64  id;
  char   *name;
} ScriptCall;

static void
script_call_free (ScriptCall *call)
{
  script_unref (call->script);
  g_free (call->name);
  g_free (call);
}

static void
send_result (Script     *script,
             gint64      id,
             gboolean    ok,
             JsonNode   *value,
             const char *error)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_string_member (frame, "type", "result");
  json_object_set_int_member (frame, "id", id);
  json_object_set_boolean_member (frame, "ok", ok);
  if (ok)
    json_object_set_member (frame, "value", value);
  else
    json_object_set_string_member (frame, "error", error);
  send_frame (script, frame);
}

/* structured_content when the tool declares an output schema and the
 * result has it (failures too, as data); else the text, and a failure
 * rejects. The text is what an observer of the call sees: capped. */
static void
answer_call (Script        *script,
             gint64         id,
             const char    *name,
             ZotToolResult *result)
{
  ZotTool *tool = zot_tool_registry_lookup (script->registry, name);
  g_autoptr(JsonObject) observed = NULL;
  g_autofree char *text = NULL;

  if (tool != NULL && zot_tool_get_output_schema (tool) != NULL && result->structured_content != NULL)
    {
      g_autofree char *json = zot_json_to_string (result->structured_content);

      if (strlen (json) <= ZOT_CODEMODE_VALUE_MAX_BYTES)
        {
          send_result (script, id, TRUE, json_node_copy (result->structured_content), NULL);
          return;
        }
      text = g_strdup_printf ("the structured result of %s is larger than %" G_GSIZE_FORMAT " bytes",
                              name, ZOT_CODEMODE_VALUE_MAX_BYTES);
      send_result (script, id, FALSE, NULL, text);
      return;
    }

  observed = zot_observation_result (result->content, result->is_error);
  text = zot_content_get_text (zot_json_get_array (observed, "content"));
  if (result->is_error)
    send_result (script, id, FALSE, NULL, *text != '\0' ? text : "the call failed");
  else
    send_result (script, id, TRUE, json_node_init_string (json_node_alloc (), text), NULL);
}

static void
call_done_cb (GObject      *object,
              GAsyncResult *async_result,
              gpointer      user_data)
{
  ScriptCall *call = user_data;
  g_autoptr(ZotToolResult) result = zot_tool_runner_call_finish (ZOT_TOOL_RUNNER (object), async_result);
  Script *script = call->script;

  script->in_flight--;
  if (!script->finished && result != NULL)
    answer_call (script, call->id, call->name, result);
  script_call_free (call);
}

static void
refuse_call (Script     *script,
             gint64      id,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

static void
refuse_call (Script     *script,
             gint64      id,
             const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  send_result (script, id, FALSE, NULL, message);
}

static void
handle_call (Script     *script,
             JsonObject *frame)
{
  g_autoptr(ZotToolRunner) runner = zot_tool_invocation_dup_runner (script->invocation);
  const char *name = zot_json_get_string (frame, "name");
  JsonObject *args = zot_json_get_object (frame, "args");
  gint64 id = zot_json_get_int_or (frame, "id", 0);
  ZotToolRequest request = { 0 };
  ZotTool *tool;
  ScriptCall *call;

  if (name == NULL || args == NULL)
    {
      refuse_call (script, id, "a tool call needs a tool name and an object of arguments");
      return;
    }

  /* The runtime keeps to these; a script that reached past it does not. */
  if (script->n_calls >= ZOT_CODEMODE_MAX_CALLS)
    {
      refuse_call (script, id, "a script makes at most %u tool calls", ZOT_CODEMODE_MAX_CALLS);
      return;
    }
  if (script->in_flight >= ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT)
    {
      refuse_call (script, id, "a script has at most %u tool calls running at once",
                   ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT);
      return;
    }
  script->n_calls++;

  tool = zot_tool_registry_lookup (script->registry, name);
  if ((tool != NULL && ZOT_IS_CODEMODE_TOOL (tool)) || g_str_equal (name, ZOT_CODEMODE_TOOL_NAME))
    {
      refuse_call (script, id, "a script cannot run codemode");
      return;
    }
  if (tool != NULL && !zot_tool_is_script_callable (tool))
    {
      refuse_call (script, id, "%s is model-only: scripts cannot call it", name);
      return;
    }
  if (zot_tool_invocation_get_depth (script->invocation) >= ZOT_TOOL_CHAIN_MAX_CALLS)
    {
      refuse_call (script, id, "a chain of tool calls holds at most %u calls, the original included",
                   ZOT_TOOL_CHAIN_MAX_CALLS);
      return;
    }
  if (zot_tool_invocation_chain_has (script->invocation, name))
    {
      refuse_call (script, id, "%s is already a call of this chain; a chain never repeats a tool", name);
      return;
    }
  if (runner == NULL)
    {
      refuse_call (script, id, "no agent is there to run tools");
      return;
    }

  call = g_new0 (ScriptCall, 1);
  call->script = script_ref (script);
  call->id = id;
  call->name = g_strdup (name);
  script->in_flight++;

  request.name = name;
  request.args = args;
  request.origin_extension = ZOT_CODEMODE_TOOL_NAME;
  request.parent = script->invocation;
  request.script = TRUE;
  zot_tool_runner_call_async (runner, &request, script->calls, call_done_cb, call);
}

static void
handle_done (Script     *script,
             JsonObject *frame)
{
  JsonObject *state = zot_json_get_object (frame, "state");

  /* The cap holds whatever the script caught: this look may end it. */
  zot_codemode_runtime_get_peak_memory (script->runtime);
  if (script->finished)
    return;

  if (!zot_json_get_boolean_or (frame, "ok", FALSE))
    {
      finish (script, FALSE, zot_json_get_string_or (frame, "error", "the script failed"));
      return;
    }

  if (state != NULL)
    {
      g_autofree char *json = zot_json_object_to_string (state);

      if (strlen (json) > ZOT_CODEMODE_STATE_MAX_BYTES)
        {
          g_autofree char *reason = g_strdup_printf ("RangeError: stored state is limited to %"
                                                     G_GSIZE_FORMAT " bytes", ZOT_CODEMODE_STATE_MAX_BYTES);
          finish (script, FALSE, reason);
          return;
        }
      zot_session_set_script_state (zot_agent_get_session (script->agent), state);
    }

  finish (script, TRUE, NULL);
}

static void
handle_output (Script     *script,
               JsonObject *frame)
{
  const char *text = zot_json_get_string_or (frame, "text", "");

  zot_codemode_script_append_output (script, text, strlen (text));
}

/* The frames a runtime sends while a script runs, by "type". */
static const struct {
  const char *type;
  void      (*handle) (Script     *script,
                       JsonObject *frame);
} runtime_frames[] = {
  { "output", handle_output },
  { "call",   handle_call },
  { "ask",    handle_ask },
  { "image",  zot_codemode_script_add_image },
  { "done",   handle_done },
};

static void
on_runtime_frame (ZotCodemodeRuntime *runtime,
                  JsonObject         *frame,
                  Script             *script)
{
  const char *type = zot_json_get_string_or (frame, "type", "");
  g_autoptr(Script) keep = script_ref (script);

  if (script->finished)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (runtime_frames); i++)
    {
      if (g_str_equal (type, runtime_frames[i].type))
        {
          runtime_frames[i].handle (script, frame);
          return;
        }
    }

  log_unknown (script, "frame type", type);
}

static void
on_runtime_ended (ZotCodemodeRuntime *runtime,
                  const GError       *error,
                  Script             *script)
{
  finish (script, FALSE, error != NULL ? error->message : "the script runtime ended");
}

static void
run_in (Script             *script,
        ZotCodemodeRuntime *runtime)
{
  g_autoptr(JsonObject) start = json_object_new ();
  JsonObject *limits = json_object_new ();
  ZotSession *session = zot_agent_get_session (script->agent);

  script->runtime = runtime;
  g_signal_connect (runtime, "frame", G_CALLBACK (on_runtime_frame), script);
  g_signal_connect (runtime, "ended", G_CALLBACK (on_runtime_ended), script);

  json_object_set_int_member (limits, "calls", ZOT_CODEMODE_MAX_CALLS);
  json_object_set_int_member (limits, "in_flight", ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT);
  json_object_set_int_member (limits, "state_bytes", ZOT_CODEMODE_STATE_MAX_BYTES);
  /* Room for the frame around a value. */
  json_object_set_int_member (limits, "frame_bytes", ZOT_FRAME_MAX_BYTES / 2);

  json_object_set_string_member (start, "type", "start");
  json_object_set_string_member (start, "code", script->code);
  json_object_set_array_member (start, "catalog", build_catalog (script));
  json_object_set_object_member (start, "state", zot_json_object_copy (zot_session_get_script_state (session)));
  json_object_set_object_member (start, "limits", limits);

  arm_deadline (script, (gint64) script->timeout_ms * 1000);
  script->hold_id = zot_tool_invocation_add_hold_func (script->invocation, on_hold, script);
  send_frame (script, start);
}

static void
runtime_started_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(Script) script = user_data;
  g_autoptr(GError) error = NULL;
  ZotCodemodeRuntime *runtime = zot_codemode_runtime_start_finish (result, &error);

  if (script->finished)
    {
      if (runtime != NULL)
        zot_codemode_runtime_stop (runtime);
      g_clear_object (&runtime);
      return;
    }
  if (runtime == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        finish_cancelled (script);
      else
        finish (script, FALSE, error->message);
      return;
    }
  run_in (script, runtime);
}

/* Arguments */

/* `code` may come as a JSON string of the source. */
static char *
read_code (JsonObject *args)
{
  const char *code = zot_json_get_string (args, "code");
  g_autoptr(JsonNode) decoded = NULL;
  const char *start;

  if (code == NULL)
    return NULL;
  start = code;
  while (g_ascii_isspace (*start))
    start++;
  if (*start == '"')
    {
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (json_parser_load_from_data (parser, start, -1, NULL) &&
          JSON_NODE_HOLDS_VALUE (json_parser_get_root (parser)) &&
          json_node_get_value_type (json_parser_get_root (parser)) == G_TYPE_STRING)
        return g_strdup (json_node_get_string (json_parser_get_root (parser)));
    }
  return g_strdup (code);
}

static gboolean
read_number (JsonObject *options,
             const char *member,
             gint64     *value)
{
  JsonNode *node = json_object_get_member (options, member);
  double d;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    *value = json_node_get_int (node);
  else if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      d = json_node_get_double (node);
      if (!(d >= 1 && d < 1e12))
        return FALSE;
      *value = (gint64) d;
    }
  else
    return FALSE;
  return *value >= 1;
}

/* The optional first line `// @options: {…}`, within the caps. */
static gboolean
read_options (Script  *script,
              char   **problem)
{
  const char *line = script->code;
  const char *end;
  g_autofree char *json = NULL;
  g_autoptr(JsonObject) options = NULL;
  gint64 value;

  while (*line == ' ' || *line == '\t')
    line++;
  if (!g_str_has_prefix (line, OPTIONS_PREFIX))
    return TRUE;

  end = strchr (line, '\n');
  json = g_strndup (line + strlen (OPTIONS_PREFIX),
                    end != NULL ? (gsize) (end - line) - strlen (OPTIONS_PREFIX) : strlen (line) - strlen (OPTIONS_PREFIX));
  options = zot_json_object_from_string (g_strstrip (json), NULL);
  if (options == NULL)
    {
      *problem = g_strdup ("the // @options line must hold a JSON object, such as "
                           "{\"timeout_ms\": 5000, \"max_output_tokens\": 2000}");
      return FALSE;
    }

  if (read_number (options, "timeout_ms", &value))
    script->timeout_ms = (guint) MIN (value, (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_CODEMODE_MAX));
  if (read_number (options, "max_output_tokens", &value))
    script->output_max = (gsize) MIN (value, (gint64) (ZOT_CODEMODE_OUTPUT_CAP_BYTES / ZOT_CODEMODE_BYTES_PER_TOKEN)) *
                         ZOT_CODEMODE_BYTES_PER_TOKEN;
  return TRUE;
}

/* ZotTool */

static void
zot_codemode_tool_execute_async (ZotTool              *tool,
                                 JsonObject           *args,
                                 const ZotToolContext *context,
                                 GCancellable         *cancellable,
                                 GAsyncReadyCallback   callback,
                                 gpointer              user_data)
{
  ZotCodemodeTool *self = ZOT_CODEMODE_TOOL (tool);
  g_autoptr(ZotToolRunner) runner = NULL;
  g_autofree char *problem = NULL;
  ZotCodemodeRuntime *runtime;
  Script *script;
  GTask *task;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_codemode_tool_execute_async);

  if (context->invocation != NULL)
    runner = zot_tool_invocation_dup_runner (context->invocation);
  if (runner == NULL || !ZOT_IS_AGENT (runner))
    {
      g_task_return_pointer (task, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                              "Script failed: codemode runs only for an agent."),
                             (GDestroyNotify) zot_tool_result_free);
      g_object_unref (task);
      return;
    }

  script = g_new0 (Script, 1);
  g_atomic_ref_count_init (&script->ref_count);
  script->tool = g_object_ref (self);
  script->task = task;
  script->agent = ZOT_AGENT (g_object_ref (runner));
  script->registry = g_object_ref (zot_agent_get_registry (script->agent));
  script->invocation = zot_tool_invocation_ref (context->invocation);
  script->calls = g_cancellable_new ();
  script->code = read_code (args);
  script->timeout_ms = zot_timeout_get_ms (ZOT_TIMEOUT_CODEMODE);
  script->output_max = ZOT_CODEMODE_OUTPUT_MAX_BYTES;
  script->started = g_get_monotonic_time ();
  script->head = g_string_new (NULL);
  script->tail = g_string_new (NULL);
  script->spill = g_string_new (NULL);
  script->images = json_array_new ();

  if (zot_tool_registry_get_codemode (script->registry) == ZOT_CODEMODE_OFF)
    {
      finish (script, FALSE, "codemode is off in this host (--codemode off)");
      return;
    }
  if (script->code == NULL)
    {
      finish (script, FALSE, "the argument \"code\" must be a string of JavaScript");
      return;
    }
  if (!read_options (script, &problem))
    {
      finish (script, FALSE, problem);
      return;
    }

  if (cancellable != NULL)
    {
      script->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (script->cancel_source, G_SOURCE_FUNC (cancelled_cb), script, NULL);
      g_source_attach (script->cancel_source, g_main_context_get_thread_default ());
    }

  /* A fresh runtime each time: the spare, if one is ready. The next
   * spare starts when this script ends. */
  runtime = take_spare (self);
  if (runtime != NULL)
    {
      run_in (script, runtime);
      return;
    }
  zot_codemode_runtime_start_async (script->calls, runtime_started_cb, script_ref (script));
}

static ZotToolResult *
zot_codemode_tool_execute_finish (ZotTool       *tool,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, tool), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_codemode_tool_dispose (GObject *object)
{
  ZotCodemodeTool *self = (ZotCodemodeTool *)object;

  g_cancellable_cancel (self->cancellable);
  zot_clear_source (&self->spare_soon);
  if (self->spare != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->spare, self);
      zot_codemode_runtime_stop (self->spare);
      g_clear_object (&self->spare);
    }

  G_OBJECT_CLASS (zot_codemode_tool_parent_class)->dispose (object);
}

static void
zot_codemode_tool_finalize (GObject *object)
{
  ZotCodemodeTool *self = (ZotCodemodeTool *)object;

  g_clear_object (&self->cancellable);
  zot_unknown_types_clear (&self->unknown);

  G_OBJECT_CLASS (zot_codemode_tool_parent_class)->finalize (object);
}

static void
zot_codemode_tool_class_init (ZotCodemodeToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  object_class->dispose = zot_codemode_tool_dispose;
  object_class->finalize = zot_codemode_tool_finalize;

  tool_class->execute_async = zot_codemode_tool_execute_async;
  tool_class->execute_finish = zot_codemode_tool_execute_finish;
}

static void
zot_codemode_tool_init (ZotCodemodeTool *self)
{
  self->cancellable = g_cancellable_new ();
  self->spare_wanted = TRUE;
}

/**
 * zot_codemode_tool_new:
 *
 * Returns: (transfer full): the codemode tool
 */
ZotTool *
zot_codemode_tool_new (void)
{
  g_autoptr(JsonObject) schema = zot_json_object_from_string (CODEMODE_SCHEMA, NULL);

  g_assert (schema != NULL);
  return g_object_new (ZOT_TYPE_CODEMODE_TOOL,
                       "name", ZOT_CODEMODE_TOOL_NAME,
                       "description", CODEMODE_DESCRIPTION,
                       "schema", schema,
                       "exposure", ZOT_TOOL_EXPOSURE_MODEL_ONLY,
                       "concurrent", FALSE,
                       "requires-approval", FALSE,
                       "replay", ZOT_TOOL_REPLAY_NEVER,
                       NULL);
}

/**
 * zot_codemode_tool_set_spare:
 * @spare: whether to keep a runtime started for the next script
 *
 * On by default, from the first script on.
 */
void
zot_codemode_tool_set_spare (ZotCodemodeTool *self,
                             gboolean         spare)
{
  g_return_if_fail (ZOT_IS_CODEMODE_TOOL (self));

  self->spare_wanted = spare;
  if (!spare && self->spare != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->spare, self);
      zot_codemode_runtime_stop (self->spare);
      g_clear_object (&self->spare);
    }
}

gboolean
zot_codemode_tool_has_spare (ZotCodemodeTool *self)
{
  g_return_val_if_fail (ZOT_IS_CODEMODE_TOOL (self), FALSE);
  return self->spare != NULL && zot_codemode_runtime_is_alive (self->spare);
}

ZotCodemodeSpareState
_zot_codemode_tool_get_spare_state_for_testing (ZotCodemodeTool *self)
{
  g_return_val_if_fail (ZOT_IS_CODEMODE_TOOL (self), ZOT_CODEMODE_SPARE_NONE);

  if (zot_codemode_tool_has_spare (self))
    return ZOT_CODEMODE_SPARE_READY;
  if (self->spare_starting)
    return ZOT_CODEMODE_SPARE_STARTING;
  if (self->spare_soon != NULL)
    return ZOT_CODEMODE_SPARE_SOON;
  return ZOT_CODEMODE_SPARE_NONE;
}

/* Starts a spare now, before the first script. */
void
zot_codemode_tool_prestart (ZotCodemodeTool *self)
{
  g_return_if_fail (ZOT_IS_CODEMODE_TOOL (self));

  self->spare_wanted = TRUE;
  start_spare (self);
}
