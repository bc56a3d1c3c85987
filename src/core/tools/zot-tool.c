#define G_LOG_DOMAIN "zot-tool"

#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-tool.h"

typedef struct
{
  char            *name;
  char            *description;
  JsonObject      *schema;
  ZotToolExposure  exposure;
  gboolean         interactive;
  gboolean         concurrent;
  char            *origin;
  char            *ns;
  char            *ns_description;
  char            *ns_instructions;
  JsonObject      *output_schema;
  gboolean         requires_approval;
  ZotToolReplay    replay;
} ZotToolPrivate;

enum {
  PROP_0,
  PROP_NAME,
  PROP_DESCRIPTION,
  PROP_SCHEMA,
  PROP_EXPOSURE,
  PROP_INTERACTIVE,
  PROP_CONCURRENT,
  PROP_ORIGIN,
  PROP_NAMESPACE,
  PROP_NAMESPACE_DESCRIPTION,
  PROP_NAMESPACE_INSTRUCTIONS,
  PROP_OUTPUT_SCHEMA,
  PROP_REQUIRES_APPROVAL,
  PROP_REPLAY,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (ZotTool, zot_tool, G_TYPE_OBJECT)
G_DEFINE_BOXED_TYPE (ZotToolResult, zot_tool_result, zot_tool_result_copy, zot_tool_result_free)

const char *
zot_tool_outcome_to_string (ZotToolOutcome outcome)
{
  switch (outcome)
    {
    case ZOT_TOOL_OUTCOME_COMPLETED: return "completed";
    case ZOT_TOOL_OUTCOME_FAILED:    return "failed";
    case ZOT_TOOL_OUTCOME_BLOCKED:   return "blocked";
    case ZOT_TOOL_OUTCOME_CANCELLED: return "cancelled";
    case ZOT_TOOL_OUTCOME_TIMED_OUT: return "timed_out";
    default:                         g_return_val_if_reached ("failed");
    }
}

ZotToolResult *
zot_tool_result_new (JsonArray      *content,
                     gboolean        is_error,
                     ZotToolOutcome  outcome)
{
  ZotToolResult *result = g_new0 (ZotToolResult, 1);

  result->content = content != NULL ? json_array_ref (content) : json_array_new ();
  result->is_error = !!is_error;
  result->outcome = outcome;
  return result;
}

ZotToolResult *
zot_tool_result_new_text (const char     *text,
                          gboolean        is_error,
                          ZotToolOutcome  outcome)
{
  g_autoptr(JsonArray) content = zot_content_new_text (text);

  return zot_tool_result_new (content, is_error, outcome);
}

ZotToolResult *
zot_tool_result_new_error (ZotToolOutcome  outcome,
                           const char     *format,
                           ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  return zot_tool_result_new_text (text, TRUE, outcome);
}

ZotToolResult *
zot_tool_result_copy (const ZotToolResult *result)
{
  ZotToolResult *copy;

  g_return_val_if_fail (result != NULL, NULL);

  copy = zot_tool_result_new (result->content, result->is_error, result->outcome);
  if (result->structured_content != NULL)
    copy->structured_content = json_node_copy (result->structured_content);
  copy->activate_tools = g_strdupv (result->activate_tools);
  return copy;
}

void
zot_tool_result_free (ZotToolResult *result)
{
  if (result == NULL)
    return;

  g_clear_pointer (&result->content, json_array_unref);
  g_clear_pointer (&result->structured_content, json_node_unref);
  g_clear_pointer (&result->activate_tools, g_strfreev);
  g_free (result);
}

static void
zot_tool_finalize (GObject *object)
{
  ZotTool *self = (ZotTool *)object;
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);

  g_clear_pointer (&priv->name, g_free);
  g_clear_pointer (&priv->description, g_free);
  g_clear_pointer (&priv->schema, json_object_unref);
  g_clear_pointer (&priv->origin, g_free);
  g_clear_pointer (&priv->ns, g_free);
  g_clear_pointer (&priv->ns_description, g_free);
  g_clear_pointer (&priv->ns_instructions, g_free);
  g_clear_pointer (&priv->output_schema, json_object_unref);

  G_OBJECT_CLASS (zot_tool_parent_class)->finalize (object);
}

static void
zot_tool_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  ZotTool *self = ZOT_TOOL (object);
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:        g_value_set_string (value, priv->name); break;
    case PROP_DESCRIPTION: g_value_set_string (value, priv->description); break;
    case PROP_SCHEMA:      g_value_set_boxed (value, priv->schema); break;
    case PROP_EXPOSURE:    g_value_set_int (value, priv->exposure); break;
    case PROP_INTERACTIVE: g_value_set_boolean (value, priv->interactive); break;
    case PROP_CONCURRENT:  g_value_set_boolean (value, priv->concurrent); break;
    case PROP_ORIGIN:      g_value_set_string (value, priv->origin); break;
    case PROP_NAMESPACE:   g_value_set_string (value, priv->ns); break;
    case PROP_NAMESPACE_DESCRIPTION:  g_value_set_string (value, priv->ns_description); break;
    case PROP_NAMESPACE_INSTRUCTIONS: g_value_set_string (value, priv->ns_instructions); break;
    case PROP_OUTPUT_SCHEMA:          g_value_set_boxed (value, priv->output_schema); break;
    case PROP_REQUIRES_APPROVAL:      g_value_set_boolean (value, priv->requires_approval); break;
    case PROP_REPLAY:                 g_value_set_int (value, priv->replay); break;
    default:               G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_tool_set_property (GObject      *object,
                       guint         prop_id,
                       const GValue *value,
                       GParamSpec   *pspec)
{
  ZotTool *self = ZOT_TOOL (object);
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_free (priv->name);
      priv->name = g_value_dup_string (value);
      break;

    case PROP_DESCRIPTION:
      g_free (priv->description);
      priv->description = g_value_dup_string (value);
      break;

    case PROP_SCHEMA:
      g_clear_pointer (&priv->schema, json_object_unref);
      priv->schema = g_value_dup_boxed (value);
      break;

    case PROP_EXPOSURE:
      priv->exposure = g_value_get_int (value);
      break;

    case PROP_INTERACTIVE:
      priv->interactive = g_value_get_boolean (value);
      break;

    case PROP_CONCURRENT:
      priv->concurrent = g_value_get_boolean (value);
      break;

    case PROP_ORIGIN:
      g_free (priv->origin);
      priv->origin = g_value_dup_string (value);
      break;

    case PROP_NAMESPACE:
      g_free (priv->ns);
      priv->ns = g_value_dup_string (value);
      break;

    case PROP_NAMESPACE_DESCRIPTION:
      g_free (priv->ns_description);
      priv->ns_description = g_value_dup_string (value);
      break;

    case PROP_NAMESPACE_INSTRUCTIONS:
      g_free (priv->ns_instructions);
      priv->ns_instructions = g_value_dup_string (value);
      break;

    case PROP_OUTPUT_SCHEMA:
      g_clear_pointer (&priv->output_schema, json_object_unref);
      priv->output_schema = g_value_dup_boxed (value);
      break;

    case PROP_REQUIRES_APPROVAL:
      priv->requires_approval = g_value_get_boolean (value);
      break;

    case PROP_REPLAY:
      priv->replay = g_value_get_int (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_tool_class_init (ZotToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = zot_tool_finalize;
  object_class->get_property = zot_tool_get_property;
  object_class->set_property = zot_tool_set_property;

  properties [PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_SCHEMA] =
    g_param_spec_boxed ("schema", NULL, NULL, JSON_TYPE_OBJECT,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_EXPOSURE] =
    g_param_spec_int ("exposure", NULL, NULL,
                      ZOT_TOOL_EXPOSURE_DIRECT, ZOT_TOOL_EXPOSURE_MODEL_ONLY, ZOT_TOOL_EXPOSURE_DIRECT,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_INTERACTIVE] =
    g_param_spec_boolean ("interactive", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Whether calls of this tool may run at the same time as others of the
   * same batch. Tools that change files say no. */
  properties [PROP_CONCURRENT] =
    g_param_spec_boolean ("concurrent", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_ORIGIN] =
    g_param_spec_string ("origin", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /* Namespace metadata feeds discovery ranking; it defaults to the
   * extension name for extension tools and is empty for built-ins. */
  properties [PROP_NAMESPACE] =
    g_param_spec_string ("namespace", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_NAMESPACE_DESCRIPTION] =
    g_param_spec_string ("namespace-description", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties [PROP_NAMESPACE_INSTRUCTIONS] =
    g_param_spec_string ("namespace-instructions", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Describes structured_content for scripts; never validated. */
  properties [PROP_OUTPUT_SCHEMA] =
    g_param_spec_boxed ("output-schema", NULL, NULL, JSON_TYPE_OBJECT,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Whether an interactive host asks the user before running it. */
  properties [PROP_REQUIRES_APPROVAL] =
    g_param_spec_boolean ("requires-approval", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* A #ZotToolReplay: what a resumed continuous conversation does with an
   * unfinished call. */
  properties [PROP_REPLAY] =
    g_param_spec_int ("replay", NULL, NULL,
                      ZOT_TOOL_REPLAY_NEVER, ZOT_TOOL_REPLAY_RECONCILE, ZOT_TOOL_REPLAY_NEVER,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
zot_tool_init (ZotTool *self)
{
}

const char *
zot_tool_get_name (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->name;
}

const char *
zot_tool_get_description (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->description ? priv->description : "";
}

/**
 * zot_tool_get_schema:
 *
 * Returns: (transfer none): the JSON schema of the arguments
 */
JsonObject *
zot_tool_get_schema (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->schema;
}

ZotToolExposure
zot_tool_get_exposure (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), ZOT_TOOL_EXPOSURE_DIRECT);
  return priv->exposure;
}

gboolean
zot_tool_get_interactive (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), FALSE);
  return priv->interactive;
}

gboolean
zot_tool_get_concurrent (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), FALSE);
  return priv->concurrent;
}

/**
 * zot_tool_get_origin:
 *
 * Returns: (nullable): the extension that provides the tool, %NULL for a built-in
 */
const char *
zot_tool_get_origin (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->origin;
}

const char *
zot_tool_get_namespace (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->ns;
}

const char *
zot_tool_get_namespace_description (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->ns_description;
}

const char *
zot_tool_get_namespace_instructions (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->ns_instructions;
}

/**
 * zot_tool_get_output_schema:
 *
 * Returns: (transfer none) (nullable): the schema of structured_content
 */
JsonObject *
zot_tool_get_output_schema (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);
  return priv->output_schema;
}

gboolean
zot_tool_get_requires_approval (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  g_return_val_if_fail (ZOT_IS_TOOL (self), FALSE);
  return priv->requires_approval;
}

gboolean
zot_tool_is_script_callable (ZotTool *self)
{
  g_return_val_if_fail (ZOT_IS_TOOL (self), FALSE);
  return zot_tool_get_exposure (self) != ZOT_TOOL_EXPOSURE_MODEL_ONLY;
}

/**
 * zot_tool_to_definition:
 *
 * Returns: (transfer full): `{"name","description","input_schema"}` for a provider
 */
JsonObject *
zot_tool_to_definition (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);
  JsonObject *definition;

  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);

  definition = json_object_new ();
  json_object_set_string_member (definition, "name", priv->name);
  json_object_set_string_member (definition, "description", zot_tool_get_description (self));
  if (priv->schema != NULL)
    json_object_set_object_member (definition, "input_schema", json_object_ref (priv->schema));
  else
    {
      JsonObject *empty = json_object_new ();
      json_object_set_string_member (empty, "type", "object");
      json_object_set_object_member (definition, "input_schema", empty);
    }
  return definition;
}

void
zot_tool_execute_async (ZotTool               *self,
                        JsonObject            *args,
                        const ZotToolContext  *context,
                        GCancellable          *cancellable,
                        GAsyncReadyCallback    callback,
                        gpointer               user_data)
{
  g_return_if_fail (ZOT_IS_TOOL (self));
  g_return_if_fail (args != NULL);
  g_return_if_fail (context != NULL);

  ZOT_TOOL_GET_CLASS (self)->execute_async (self, args, context, cancellable, callback, user_data);
}

/**
 * zot_tool_execute_finish:
 *
 * Returns: (transfer full): the result; %NULL only when cancelled
 */
ZotToolResult *
zot_tool_execute_finish (ZotTool       *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (ZOT_IS_TOOL (self), NULL);

  return ZOT_TOOL_GET_CLASS (self)->execute_finish (self, result, error);
}

char *
zot_tool_resolve_path (const ZotToolContext *context,
                       const char           *path)
{
  g_return_val_if_fail (context != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (path[0] == '~' && (path[1] == '/' || path[1] == '\0'))
    return g_build_filename (g_get_home_dir (), path + 1, NULL);

  return g_canonicalize_filename (path, context->cwd);
}

const char *
zot_tool_args_get_string (JsonObject *args,
                          const char *member)
{
  g_return_val_if_fail (args != NULL, NULL);

  return zot_json_get_string (args, member);
}

ZotToolReplay
zot_tool_get_replay (ZotTool *self)
{
  ZotToolPrivate *priv = zot_tool_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_TOOL (self), ZOT_TOOL_REPLAY_NEVER);

  return priv->replay;
}

struct _ZotToolProgress
{
  gatomicrefcount      ref_count;
  ZotToolProgressFunc  func;
  gpointer             user_data;
  guint                n_lines;
};

/**
 * zot_tool_progress_new:
 * @func: called with each line until zot_tool_progress_close()
 *
 * Returns: (transfer full): a progress sink for one call
 */
ZotToolProgress *
zot_tool_progress_new (ZotToolProgressFunc func,
                       gpointer            user_data)
{
  ZotToolProgress *progress = g_new0 (ZotToolProgress, 1);

  g_return_val_if_fail (func != NULL, NULL);

  g_atomic_ref_count_init (&progress->ref_count);
  progress->func = func;
  progress->user_data = user_data;
  return progress;
}

ZotToolProgress *
zot_tool_progress_ref (ZotToolProgress *progress)
{
  g_return_val_if_fail (progress != NULL, NULL);

  g_atomic_ref_count_inc (&progress->ref_count);
  return progress;
}

void
zot_tool_progress_unref (ZotToolProgress *progress)
{
  g_return_if_fail (progress != NULL);

  if (g_atomic_ref_count_dec (&progress->ref_count))
    g_free (progress);
}

/**
 * zot_tool_progress_close:
 *
 * The call is over: later reports are dropped.
 */
void
zot_tool_progress_close (ZotToolProgress *progress)
{
  g_return_if_fail (progress != NULL);

  progress->func = NULL;
}

/**
 * zot_tool_progress_report:
 * @progress: (nullable): the call's sink; %NULL reports nowhere
 * @text: a line, without its newline, in any encoding
 * @length: its length in bytes, or -1 when nul-terminated
 *
 * Reports one line: made valid UTF-8, cut at
 * %ZOT_TOOL_PROGRESS_LINE_MAX_BYTES; after %ZOT_TOOL_PROGRESS_MAX_LINES
 * lines one more says the rest are left out, and later ones are dropped.
 */
void
zot_tool_progress_report (ZotToolProgress *progress,
                          const char      *text,
                          gssize           length)
{
  g_autofree char *line = NULL;
  gsize len;

  g_return_if_fail (text != NULL);

  if (progress == NULL || progress->func == NULL || progress->n_lines > ZOT_TOOL_PROGRESS_MAX_LINES)
    return;

  if (progress->n_lines++ == ZOT_TOOL_PROGRESS_MAX_LINES)
    {
      progress->func (_("(more output; it is no longer reported as progress)"), progress->user_data);
      return;
    }

  len = length < 0 ? strlen (text) : (gsize) length;
  line = g_utf8_make_valid (text, MIN (len, ZOT_TOOL_PROGRESS_LINE_MAX_BYTES));
  /* A character cut in two at the limit became a replacement character:
   * drop it. */
  if (len > ZOT_TOOL_PROGRESS_LINE_MAX_BYTES)
    {
      gsize n = strlen (line);

      while (n > ZOT_TOOL_PROGRESS_LINE_MAX_BYTES)
        n = g_utf8_prev_char (line + n) - line;
      line[n] = '\0';
    }
  progress->func (line, progress->user_data);
}
