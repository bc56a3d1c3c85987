/* zot-host-tools.c — the tools the agent may call: the built-ins and
 * those the extensions register.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-host-private.h"
#include "zot-builtin-tools.h"
#include "zot-codemode-tool.h"
#include "zot-extension-private.h"
#include "zot-subagent-tool.h"
#include "zot-tool-search.h"

/* The built-in tools, one row each (or a family that its layer makes
 * together), in the order the registry lists them: the model sees them
 * in that order. A row appends what this host should have, which may be
 * nothing; a new built-in tool is a row here and a file of its own. */
typedef struct
{
  const char *name;
  void      (*add) (ZotHost   *self,
                    GPtrArray *tools);
} BuiltinTool;

static void
add_file_tools (ZotHost   *self,
                GPtrArray *tools)
{
  g_autoptr(GPtrArray) builtins = zot_builtin_tools_new ();

  for (guint i = 0; i < builtins->len; i++)
    g_ptr_array_add (tools, g_object_ref (g_ptr_array_index (builtins, i)));
}

/* Its runners are built from the host's provider options and see the
 * registry and extensions of this host. */
static void
add_subagent (ZotHost   *self,
              GPtrArray *tools)
{
  g_ptr_array_add (tools, zot_subagent_tool_new (&self->options.provider, self->registry,
                                                 self->manager, self->options.cwd));
}

static void
add_tool_search (ZotHost   *self,
                 GPtrArray *tools)
{
  g_ptr_array_add (tools, zot_tool_search_new (self->registry));
}

/* No script runtime when codemode is off (PROTOCOL.md §4). */
static void
add_codemode (ZotHost   *self,
              GPtrArray *tools)
{
  if (self->options.codemode != ZOT_CODEMODE_OFF)
    g_ptr_array_add (tools, zot_codemode_tool_new ());
}

static const BuiltinTool builtin_tools[] = {
  { "read, write, edit, bash, skill", add_file_tools },
  { ZOT_SUBAGENT_TOOL_NAME,            add_subagent },
  { ZOT_TOOL_SEARCH_NAME,              add_tool_search },
  { ZOT_CODEMODE_TOOL_NAME,            add_codemode },
};

/* The built-in tools, codemode's mode and the --tools filter. */
void
_zot_host_add_tools (ZotHost *self)
{
  self->registry = zot_tool_registry_new ();
  /* Row by row: a later row's tool (the subagent, tool_search) may look
   * at the registry as the earlier rows left it. */
  for (guint i = 0; i < G_N_ELEMENTS (builtin_tools); i++)
    {
      g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func (g_object_unref);

      builtin_tools[i].add (self, tools);
      for (guint j = 0; j < tools->len; j++)
        zot_tool_registry_add (self->registry, g_ptr_array_index (tools, j), NULL);
    }

  zot_tool_registry_set_codemode (self->registry, self->options.codemode);

  if (self->options.no_tools)
    {
      const char *none[] = { NULL };
      zot_tool_registry_set_allowed (self->registry, none);
    }
  else if (self->options.tools != NULL)
    zot_tool_registry_set_allowed (self->registry, (const char * const *) self->options.tools);
}

/* Extension tools join the registry in load order, after the built-ins,
 * which win every name. */
static void
sync_extension_tools (ZotHost *self)
{
  g_autoptr(GPtrArray) registered = zot_tool_registry_list (self->registry);
  g_autoptr(GPtrArray) tools = zot_extension_manager_list_tools (self->manager);
  g_autoptr(GPtrArray) before = g_ptr_array_new ();
  gboolean changed;

  for (guint i = 0; i < registered->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (registered, i);

      if (zot_tool_get_origin (tool) != NULL)
        {
          g_ptr_array_add (before, tool);
          zot_tool_registry_remove (self->registry, zot_tool_get_name (tool));
        }
    }

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      g_autoptr(GError) error = NULL;

      if (!zot_tool_registry_add (self->registry, tool, &error))
        {
          ZotExtension *extension = zot_extension_manager_find (self->manager, zot_tool_get_origin (tool));

          if (extension != NULL)
            _zot_extension_add_problem (extension, error->message);
        }
    }

  /* The prompt names the tools: rebuild it only when they changed. */
  changed = before->len != tools->len;
  for (guint i = 0; !changed && i < before->len; i++)
    changed = g_ptr_array_index (before, i) != g_ptr_array_index (tools, i);
  if (changed)
    zot_agent_reset_system_prompt (self->agent);
}

void
_zot_host_on_tools_changed (ZotExtensionManager *manager,
                            ZotHost             *self)
{
  sync_extension_tools (self);
}
