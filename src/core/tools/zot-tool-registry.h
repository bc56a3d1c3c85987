/* zot-tool-registry.h — the tools one agent can run, by name.
 *
 * Built-ins are added first and win every name conflict; extension tools
 * follow in load order. The registry knows each tool's exposure so that
 * the model's list, the discovery tool and (later) the script runtime can
 * each ask for what they may see.
 */
#pragma once

#include "zot-tool.h"

G_BEGIN_DECLS

/**
 * ZotCodemode:
 * @ZOT_CODEMODE_ON: the default: codemode tools are for scripts
 * @ZOT_CODEMODE_OFF: no script runtime: codemode tools behave like deferred ones
 * @ZOT_CODEMODE_ONLY: direct definitions of extension tools are hidden;
 *   model-only tools stay, deferred ones stay activatable
 */
typedef enum
{
  ZOT_CODEMODE_ON,
  ZOT_CODEMODE_OFF,
  ZOT_CODEMODE_ONLY,
} ZotCodemode;

/**
 * ZotToolActivation:
 * @ZOT_TOOL_ACTIVATION_ACTIVATED: the tool joins the model's list from now on
 * @ZOT_TOOL_ACTIVATION_ALREADY_ACTIVE: it is in the model's list already
 * @ZOT_TOOL_ACTIVATION_UNKNOWN: no tool of that name that the model may use
 * @ZOT_TOOL_ACTIVATION_NOT_DEFERRED: the tool is not one to activate
 *
 * What zot_tool_registry_try_activate() did.
 */
typedef enum
{
  ZOT_TOOL_ACTIVATION_ACTIVATED,
  ZOT_TOOL_ACTIVATION_ALREADY_ACTIVE,
  ZOT_TOOL_ACTIVATION_UNKNOWN,
  ZOT_TOOL_ACTIVATION_NOT_DEFERRED,
} ZotToolActivation;

#define ZOT_TYPE_TOOL_REGISTRY (zot_tool_registry_get_type ())
G_DECLARE_FINAL_TYPE (ZotToolRegistry, zot_tool_registry, ZOT, TOOL_REGISTRY, GObject)

ZotToolRegistry *zot_tool_registry_new              (void);
gboolean         zot_tool_registry_add              (ZotToolRegistry     *self,
                                                     ZotTool             *tool,
                                                     GError             **error);
gboolean         zot_tool_registry_remove           (ZotToolRegistry     *self,
                                                     const char          *name);
void             zot_tool_registry_remove_origin    (ZotToolRegistry     *self,
                                                     const char          *origin);
ZotTool         *zot_tool_registry_lookup           (ZotToolRegistry     *self,
                                                     const char          *name);
GPtrArray       *zot_tool_registry_list             (ZotToolRegistry     *self);
void             zot_tool_registry_set_allowed      (ZotToolRegistry     *self,
                                                     const char * const  *names);
gboolean         zot_tool_registry_is_allowed       (ZotToolRegistry     *self,
                                                     const char          *name);
void             zot_tool_registry_activate         (ZotToolRegistry     *self,
                                                     const char          *name);
void             zot_tool_registry_reset_activations (ZotToolRegistry    *self);
ZotToolActivation zot_tool_registry_try_activate    (ZotToolRegistry     *self,
                                                     const char          *name);
GStrv            zot_tool_registry_dup_activations  (ZotToolRegistry     *self);
void             zot_tool_registry_set_activations  (ZotToolRegistry     *self,
                                                     const char * const  *names);
GPtrArray       *zot_tool_registry_list_for_model   (ZotToolRegistry     *self);
void             zot_tool_registry_set_codemode     (ZotToolRegistry     *self,
                                                     ZotCodemode          codemode);
ZotCodemode      zot_tool_registry_get_codemode     (ZotToolRegistry     *self);
gboolean         zot_tool_registry_is_activatable   (ZotToolRegistry     *self,
                                                     ZotTool             *tool);
JsonArray       *zot_tool_registry_definitions      (ZotToolRegistry     *self);

G_END_DECLS
