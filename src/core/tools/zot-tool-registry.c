#define G_LOG_DOMAIN "zot-tool"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "zot-error.h"
#include "zot-tool-registry.h"

struct _ZotToolRegistry
{
  GObject     parent_instance;

  GPtrArray  *tools;
  GHashTable *by_name;
  GHashTable *allowed;
  GHashTable *activated;
  ZotCodemode codemode;
};

enum {
  CHANGED,
  ACTIVATIONS_CHANGED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotToolRegistry, zot_tool_registry, G_TYPE_OBJECT)

static void
zot_tool_registry_finalize (GObject *object)
{
  ZotToolRegistry *self = (ZotToolRegistry *)object;

  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->allowed, g_hash_table_unref);
  g_clear_pointer (&self->activated, g_hash_table_unref);

  G_OBJECT_CLASS (zot_tool_registry_parent_class)->finalize (object);
}

static void
zot_tool_registry_class_init (ZotToolRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_tool_registry_finalize;

  signals [CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotToolRegistry::activations-changed:
   *
   * The set of activated tools changed (zot_tool_registry_activate(),
   * zot_tool_registry_set_activations()), for whoever saves it with the
   * conversation.
   */
  signals [ACTIVATIONS_CHANGED] =
    g_signal_new ("activations-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
zot_tool_registry_init (ZotToolRegistry *self)
{
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->activated = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

ZotToolRegistry *
zot_tool_registry_new (void)
{
  return g_object_new (ZOT_TYPE_TOOL_REGISTRY, NULL);
}

/**
 * zot_tool_registry_add:
 *
 * Adds @tool unless a tool of that name is there already (the first one
 * wins: built-ins are added before extension tools).
 */
gboolean
zot_tool_registry_add (ZotToolRegistry  *self,
                       ZotTool          *tool,
                       GError          **error)
{
  const char *name;
  ZotTool *existing;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), FALSE);
  g_return_val_if_fail (ZOT_IS_TOOL (tool), FALSE);

  name = zot_tool_get_name (tool);
  existing = g_hash_table_lookup (self->by_name, name);
  if (existing != NULL)
    {
      const char *origin = zot_tool_get_origin (existing);

      if (origin != NULL)
        g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                     /* Translators: the tool's name, then the extension that registered it first */
                     _("tool \"%s\" is taken by %s, earlier in the load order"), name, origin);
      else
        g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                     _("tool \"%s\" is a built-in tool, which wins"), name);
      return FALSE;
    }

  g_ptr_array_add (self->tools, g_object_ref (tool));
  g_hash_table_insert (self->by_name, (gpointer) name, tool);
  g_signal_emit (self, signals [CHANGED], 0);
  return TRUE;
}

gboolean
zot_tool_registry_remove (ZotToolRegistry *self,
                          const char      *name)
{
  ZotTool *tool;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), FALSE);

  tool = g_hash_table_lookup (self->by_name, name);
  if (tool == NULL)
    return FALSE;

  g_hash_table_remove (self->by_name, name);
  g_ptr_array_remove (self->tools, tool);
  g_signal_emit (self, signals [CHANGED], 0);
  return TRUE;
}

void
zot_tool_registry_remove_origin (ZotToolRegistry *self,
                                 const char      *origin)
{
  gboolean changed = FALSE;

  g_return_if_fail (ZOT_IS_TOOL_REGISTRY (self));

  for (guint i = self->tools->len; i > 0; i--)
    {
      ZotTool *tool = g_ptr_array_index (self->tools, i - 1);

      if (g_strcmp0 (zot_tool_get_origin (tool), origin) == 0)
        {
          g_hash_table_remove (self->by_name, zot_tool_get_name (tool));
          g_ptr_array_remove_index (self->tools, i - 1);
          changed = TRUE;
        }
    }

  if (changed)
    g_signal_emit (self, signals [CHANGED], 0);
}

/**
 * zot_tool_registry_lookup:
 *
 * Returns: (transfer none) (nullable): the tool of that name
 */
ZotTool *
zot_tool_registry_lookup (ZotToolRegistry *self,
                          const char      *name)
{
  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (self->by_name, name);
}

/**
 * zot_tool_registry_list:
 *
 * Returns: (transfer container) (element-type ZotTool): every tool, in order
 */
GPtrArray *
zot_tool_registry_list (ZotToolRegistry *self)
{
  GPtrArray *list;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), NULL);

  list = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->tools->len; i++)
    g_ptr_array_add (list, g_object_ref (g_ptr_array_index (self->tools, i)));
  return list;
}

/**
 * zot_tool_registry_set_allowed:
 * @names: (nullable): the only tools the model may use (`--tools`), an
 *   empty list for none (`--no-tools`), or %NULL for all
 */
void
zot_tool_registry_set_allowed (ZotToolRegistry    *self,
                               const char * const *names)
{
  g_return_if_fail (ZOT_IS_TOOL_REGISTRY (self));

  g_clear_pointer (&self->allowed, g_hash_table_unref);
  if (names != NULL)
    {
      self->allowed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; names[i] != NULL; i++)
        g_hash_table_add (self->allowed, g_strdup (names[i]));
    }
  g_signal_emit (self, signals [CHANGED], 0);
}

gboolean
zot_tool_registry_is_allowed (ZotToolRegistry *self,
                              const char      *name)
{
  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), FALSE);

  return self->allowed == NULL || g_hash_table_contains (self->allowed, name);
}

/* Deferred tools join the model's list once activated, for the rest of
 * the conversation. */
void
zot_tool_registry_activate (ZotToolRegistry *self,
                            const char      *name)
{
  g_return_if_fail (ZOT_IS_TOOL_REGISTRY (self));
  g_return_if_fail (name != NULL);

  if (!g_hash_table_contains (self->activated, name))
    {
      g_hash_table_add (self->activated, g_strdup (name));
      g_signal_emit (self, signals [CHANGED], 0);
      g_signal_emit (self, signals [ACTIVATIONS_CHANGED], 0);
    }
}

void
zot_tool_registry_reset_activations (ZotToolRegistry *self)
{
  g_return_if_fail (ZOT_IS_TOOL_REGISTRY (self));

  zot_tool_registry_set_activations (self, NULL);
}

static int
compare_names (const void *a,
               const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/**
 * zot_tool_registry_dup_activations:
 *
 * Returns: (transfer full): the names of the activated tools, sorted
 */
GStrv
zot_tool_registry_dup_activations (ZotToolRegistry *self)
{
  g_autofree const char **names = NULL;
  guint n = 0;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), NULL);

  names = (const char **) g_hash_table_get_keys_as_array (self->activated, &n);
  qsort (names, n, sizeof (char *), compare_names);
  return g_strdupv ((char **) names);
}

/**
 * zot_tool_registry_set_activations:
 * @names: (nullable): the activated tools from now on, %NULL for none
 *
 * Replaces the set of activated tools, as a conversation that is resumed,
 * cleared or replaced needs. Names need not be registered (yet): an
 * extension's tools join after the conversation is opened.
 */
void
zot_tool_registry_set_activations (ZotToolRegistry    *self,
                                   const char * const *names)
{
  g_autoptr(GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean changed;

  g_return_if_fail (ZOT_IS_TOOL_REGISTRY (self));

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    g_hash_table_add (next, g_strdup (names[i]));

  changed = g_hash_table_size (next) != g_hash_table_size (self->activated);
  if (!changed)
    {
      GHashTableIter iter;
      gpointer name;

      g_hash_table_iter_init (&iter, next);
      while (!changed && g_hash_table_iter_next (&iter, &name, NULL))
        changed = !g_hash_table_contains (self->activated, name);
    }
  if (!changed)
    return;

  g_hash_table_unref (self->activated);
  self->activated = g_steal_pointer (&next);
  g_signal_emit (self, signals [CHANGED], 0);
  g_signal_emit (self, signals [ACTIVATIONS_CHANGED], 0);
}

/* Whether the model's list holds @tool (list_for_model's rule). */
static gboolean
listed_for_model (ZotToolRegistry *self,
                  ZotTool         *tool)
{
  const char *name = zot_tool_get_name (tool);

  if (!zot_tool_registry_is_allowed (self, name))
    return FALSE;

  switch (zot_tool_get_exposure (tool))
    {
    case ZOT_TOOL_EXPOSURE_DIRECT:
      /* In "only" mode the model reaches extension tools through scripts. */
      return self->codemode != ZOT_CODEMODE_ONLY || zot_tool_get_origin (tool) == NULL ||
             g_hash_table_contains (self->activated, name);

    case ZOT_TOOL_EXPOSURE_MODEL_ONLY:
      return TRUE;

    case ZOT_TOOL_EXPOSURE_DEFERRED:
    case ZOT_TOOL_EXPOSURE_CODEMODE:
      return g_hash_table_contains (self->activated, name);

    default:
      return FALSE;
    }
}

/**
 * zot_tool_registry_try_activate:
 * @name: a tool name, from the model or an extension
 *
 * Activates @name if it is a tool the model may use that is activatable
 * (zot_tool_registry_is_activatable()) and not in the model's list yet.
 *
 * Returns: what happened
 */
ZotToolActivation
zot_tool_registry_try_activate (ZotToolRegistry *self,
                                const char      *name)
{
  ZotTool *tool;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), ZOT_TOOL_ACTIVATION_UNKNOWN);
  g_return_val_if_fail (name != NULL, ZOT_TOOL_ACTIVATION_UNKNOWN);

  /* A tool the model may not use is as good as absent. */
  tool = g_hash_table_lookup (self->by_name, name);
  if (tool == NULL || !zot_tool_registry_is_allowed (self, name))
    return ZOT_TOOL_ACTIVATION_UNKNOWN;

  if (!zot_tool_registry_is_activatable (self, tool))
    return ZOT_TOOL_ACTIVATION_NOT_DEFERRED;

  if (listed_for_model (self, tool))
    return ZOT_TOOL_ACTIVATION_ALREADY_ACTIVE;

  zot_tool_registry_activate (self, name);
  return ZOT_TOOL_ACTIVATION_ACTIVATED;
}

/**
 * zot_tool_registry_list_for_model:
 *
 * Returns: (transfer container) (element-type ZotTool): the tools defined
 *   to the model: allowed, and direct, model-only or activated deferred
 */
GPtrArray *
zot_tool_registry_list_for_model (ZotToolRegistry *self)
{
  GPtrArray *list;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), NULL);

  list = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (self->tools, i);

      if (listed_for_model (self, tool))
        g_ptr_array_add (list, g_object_ref (tool));
    }

  return list;
}

JsonArray *
zot_tool_registry_definitions (ZotToolRegistry *self)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list_for_model (self);
  JsonArray *definitions = json_array_new ();

  for (guint i = 0; i < tools->len; i++)
    json_array_add_object_element (definitions, zot_tool_to_definition (g_ptr_array_index (tools, i)));
  return definitions;
}

void
zot_tool_registry_set_codemode (ZotToolRegistry *self,
                                ZotCodemode      codemode)
{
  g_return_if_fail (ZOT_IS_TOOL_REGISTRY (self));

  if (self->codemode == codemode)
    return;
  self->codemode = codemode;
  g_signal_emit (self, signals [CHANGED], 0);
}

ZotCodemode
zot_tool_registry_get_codemode (ZotToolRegistry *self)
{
  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), ZOT_CODEMODE_ON);
  return self->codemode;
}

/**
 * zot_tool_registry_is_activatable:
 *
 * Returns: whether the discovery tool may add @tool to the model's list:
 *   deferred tools, and codemode tools when there is no script runtime
 */
gboolean
zot_tool_registry_is_activatable (ZotToolRegistry *self,
                                  ZotTool         *tool)
{
  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (self), FALSE);
  g_return_val_if_fail (ZOT_IS_TOOL (tool), FALSE);

  switch (zot_tool_get_exposure (tool))
    {
    case ZOT_TOOL_EXPOSURE_DEFERRED:
      return TRUE;
    case ZOT_TOOL_EXPOSURE_CODEMODE:
      return self->codemode == ZOT_CODEMODE_OFF;
    case ZOT_TOOL_EXPOSURE_DIRECT:
      return self->codemode == ZOT_CODEMODE_ONLY && zot_tool_get_origin (tool) != NULL;
    case ZOT_TOOL_EXPOSURE_MODEL_ONLY:
    default:
      return FALSE;
    }
}
