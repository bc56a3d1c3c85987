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

/* The built-in tools, codemode's mode and the --tools filter. */
void
_zot_host_add_tools (ZotHost *self)
{
  g_autoptr(GPtrArray) builtins = NULL;

  self->registry = zot_tool_registry_new ();
  builtins = zot_builtin_tools_new ();
  for (guint i = 0; i < builtins->len; i++)
    zot_tool_registry_add (self->registry, g_ptr_array_index (builtins, i), NULL);
  {
    g_autoptr(ZotTool) subagent = zot_subagent_tool_new (&self->options.provider, self->registry,
                                                         self->manager, self->options.cwd);
    zot_tool_registry_add (self->registry, subagent, NULL);
  }
  {
    g_autoptr(ZotTool) search = zot_tool_search_new (self->registry);
    zot_tool_registry_add (self->registry, search, NULL);
  }

  /* No script runtime when codemode is off (PROTOCOL.md §4). */
  if (g_strcmp0 (self->options.codemode, "off") != 0)
    {
      g_autoptr(ZotTool) codemode = zot_codemode_tool_new ();
      zot_tool_registry_add (self->registry, codemode, NULL);
    }

  if (g_strcmp0 (self->options.codemode, "off") == 0)
    zot_tool_registry_set_codemode (self->registry, ZOT_CODEMODE_OFF);
  else if (g_strcmp0 (self->options.codemode, "only") == 0)
    zot_tool_registry_set_codemode (self->registry, ZOT_CODEMODE_ONLY);

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
