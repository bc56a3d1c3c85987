/* zot-host-private.h — what the host's own files share.
 *
 * ZotHost is one object written in several files, one job each: sessions,
 * commands, the model, the tools, loading and the turn. This header holds
 * the instance struct, the signal and property ids, and the few functions
 * one of them offers another. Outside src/core/host only the host's unit
 * tests include it.
 */
#pragma once

#include "zot-host.h"

G_BEGIN_DECLS

struct _ZotHost
{
  GObject              parent_instance;

  ZotHostOptions       options;
  ZotExtensionManager *manager;
  ZotToolRegistry     *registry;
  ZotAgent            *agent;
  GCancellable        *cancellable;

  gboolean             session_started;
  /* Extension name → the GTask of its `submit` (borrowed), until the
   * prompt's message is in the conversation or the task is over. */
  GHashTable          *extension_prompts;
  /* What ZotHost:model last said, "provider\nmodel", so that a rebuilt
   * provider with the same model does not notify. */
  char                *model_key;
  char                *continuous_warning;
};

enum {
  ZOT_HOST_INFO,
  ZOT_HOST_COMMAND_REPLIED,
  ZOT_HOST_WARNING,
  ZOT_HOST_ACTIVATE_ACTION,
  ZOT_HOST_N_SIGNALS
};

extern guint _zot_host_signals [ZOT_HOST_N_SIGNALS];

enum {
  ZOT_HOST_PROP_0,
  ZOT_HOST_PROP_MODEL,
  ZOT_HOST_PROP_CWD,
  ZOT_HOST_PROP_SESSION,
  ZOT_HOST_PROP_MANAGER,
  ZOT_HOST_PROP_AGENT,
  ZOT_HOST_N_PROPS
};

extern GParamSpec *_zot_host_properties [ZOT_HOST_N_PROPS];

/* zot-host-sessions.c */
ZotSession *_zot_host_open_session          (ZotHostOptions  *options,
                                             const char      *cwd,
                                             GError         **error);
void        _zot_host_choose_continuous     (ZotHost         *self,
                                             ZotSession      *session);
void        _zot_host_emit_session_warnings (ZotHost         *self);
void        _zot_host_emit_session_event    (ZotHost         *self,
                                             const char      *name,
                                             const char      *reason);

/* zot-host-commands.c */
void        _zot_host_emit_info             (ZotHost         *self,
                                             const char      *text);
void        _zot_host_on_user_message       (ZotHost         *self,
                                             JsonObject      *message,
                                             ZotAgent        *agent);
void        _zot_host_reloaded_cb           (GObject         *object,
                                             GAsyncResult    *result,
                                             gpointer         user_data);

/* zot-host-tools.c */
void        _zot_host_add_tools             (ZotHost         *self);
void        _zot_host_on_tools_changed      (ZotExtensionManager *manager,
                                             ZotHost             *self);

G_END_DECLS
