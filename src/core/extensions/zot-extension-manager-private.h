/* zot-extension-manager-private.h — what the manager's own files share.
 *
 * ZotExtensionManager is one object written in several files, one job
 * each; this header holds the instance struct and the signal ids they all
 * use, and the few functions one of them offers another. Outside
 * src/core/extensions only the manager's unit tests include it.
 */
#pragma once

#include "zot-extension-manager.h"

G_BEGIN_DECLS

struct _ZotExtensionManager
{
  GObject       parent_instance;

  GPtrArray    *extensions;
  GHashTable   *routes;
  GCancellable *cancellable;

  char         *cwd;
  GStrv         explicit_paths;
  char         *provider;
  char         *model;
  char         *session_id;
  guint64       sequence;
  char         *event_common;
  JsonGenerator *event_generator;

  GPtrArray    *panels;
  GHashTable   *pending_submits;  /* names of extensions whose `submit` a view took */
  GHashTable   *watches;        /* directory -> watch entry (zot-manager-watch.c) */
  GHashTable   *supervised;     /* directory -> restart state (zot-manager-supervisor.c) */

  GHashTable   *calls;          /* call_tool requests out, by extension and id */
  GWeakRef      runner;

  ZotApprovalPolicy policy;
  GHashTable   *remembered_tools;
  GPtrArray    *untrusted;      /* ZotDiscovered: project extensions left unstarted */
  gboolean      remember_all;

  guint         continuous : 1;
  guint         no_ext : 1;
  guint         interactive : 1;
  guint         routes_dirty : 1;
  guint         trace : 1;
  guint         watch_explicit : 1;
  guint         supervisor_off : 1;
};

enum {
  ZOT_MANAGER_NOTE_ADDED,
  ZOT_MANAGER_NOTES_CLEARED,
  ZOT_MANAGER_EXTENSION_STATE_CHANGED,
  ZOT_MANAGER_EXTENSION_CRASHED,
  ZOT_MANAGER_LOAD_FAILED,
  ZOT_MANAGER_COMMANDS_CHANGED,
  ZOT_MANAGER_FRAME_TRAFFIC,
  ZOT_MANAGER_LIFECYCLE_EVENT,
  ZOT_MANAGER_PANEL_OPENED,
  ZOT_MANAGER_PANEL_UPDATED,
  ZOT_MANAGER_PANEL_CLOSED,
  ZOT_MANAGER_PANEL_WAITING,
  ZOT_MANAGER_TOOLS_CHANGED,
  ZOT_MANAGER_WARNING,
  ZOT_MANAGER_APPROVAL_REQUESTED,
  ZOT_MANAGER_SUBMIT_REQUESTED,
  ZOT_MANAGER_SUBMIT_SLASH_REQUESTED,
  ZOT_MANAGER_EXTENSION_RELOADED,
  ZOT_MANAGER_EXTENSION_RESTARTED,
  ZOT_MANAGER_EXTENSION_GAVE_UP,
  ZOT_MANAGER_N_SIGNALS
};

extern guint _zot_manager_signals [ZOT_MANAGER_N_SIGNALS];

enum {
  ZOT_MANAGER_PROP_0,
  ZOT_MANAGER_PROP_POLICY,
  ZOT_MANAGER_N_PROPS
};

extern GParamSpec *_zot_manager_properties [ZOT_MANAGER_N_PROPS];

/* One type of frame from an extension, handled by the manager. */
typedef void (*ZotManagerFrameHandler) (ZotExtensionManager *self,
                                        ZotExtension        *extension,
                                        JsonObject          *frame);

/* zot-extension-manager.c */
void      _zot_manager_connect_extension (ZotExtensionManager *self,
                                          ZotExtension        *extension);

/* zot-manager-grants.c */
void      _zot_manager_refresh_untrusted (ZotExtensionManager *self);
void      _zot_manager_watch_grants      (ZotExtensionManager *self);

/* zot-manager-calls.c */
GHashTable *_zot_manager_calls_new          (void);
void      _zot_manager_call_tool_frame      (ZotExtensionManager *self,
                                             ZotExtension        *extension,
                                             JsonObject          *frame);
void      _zot_manager_call_tool_cancel_frame (ZotExtensionManager *self,
                                               ZotExtension        *extension,
                                               JsonObject          *frame);
void      _zot_manager_cancel_calls_of      (ZotExtensionManager *self,
                                             ZotExtension        *extension);
void      _zot_manager_orphan_calls         (ZotExtensionManager *self);

/* zot-manager-commands.c */
void      _zot_manager_invalidate_routes (ZotExtensionManager *self);
char     *_zot_manager_claim_command     (ZotExtensionManager *self,
                                          ZotExtension        *extension,
                                          const char          *name);
ZotCommandReply *_zot_manager_read_command_reply (ZotExtensionManager *self,
                                                  ZotExtension        *extension,
                                                  const char          *command,
                                                  JsonObject          *frame);

/* zot-manager-events.c */
void      _zot_manager_copy_member_into (JsonObject *object,
                                         const char *member,
                                         JsonNode   *node,
                                         gpointer    user_data);
GBytes   *_zot_manager_event_bytes      (ZotExtensionManager *self,
                                         const char          *name,
                                         guint64              sequence,
                                         JsonObject          *payload);

/* zot-manager-frames.c */
gboolean  _zot_manager_handle_frame    (ZotExtensionManager *self,
                                        ZotExtension        *extension,
                                        JsonObject          *frame);

/* zot-manager-intercept.c */
GQuark    _zot_manager_warned_quark    (void);
gboolean  _zot_interception_apply_reply (ZotInterception *result,
                                         const char      *event,
                                         ZotExtension    *extension,
                                         JsonObject      *reply);
char     *_zot_before_agent_start_apply_reply (ZotExtension  *extension,
                                               JsonObject    *reply,
                                               char         **prompt);

/* zot-manager-watch.c */
GHashTable *_zot_manager_watches_new       (void);
gboolean  _zot_manager_is_reloading        (ZotExtension        *extension);
void      _zot_manager_watch_loaded        (ZotExtensionManager *self);

/* zot-manager-supervisor.c */
GHashTable *_zot_manager_supervised_new     (void);
void      _zot_manager_supervisor_class_init (GObjectClass       *klass);
guint     _zot_manager_restart_backoff_ms   (guint                attempt);
void      _zot_manager_supervise_crash      (ZotExtensionManager *self,
                                             ZotExtension        *extension,
                                             const char          *message);
void      _zot_manager_supervisor_forget    (ZotExtensionManager *self,
                                             ZotExtension        *extension);
void      _zot_manager_supervisor_stop      (ZotExtensionManager *self,
                                             gboolean             for_good);
gboolean  _zot_manager_supervisor_is_pending (ZotExtensionManager *self,
                                              ZotExtension        *extension);

/* zot-manager-submit.c */
void      _zot_manager_submit_frame       (ZotExtensionManager *self,
                                           ZotExtension        *extension,
                                           JsonObject          *frame);
void      _zot_manager_submit_slash_frame (ZotExtensionManager *self,
                                           ZotExtension        *extension,
                                           JsonObject          *frame);

/* zot-manager-panels.c */
ZotPanel *_zot_manager_find_panel      (ZotExtensionManager *self,
                                        ZotExtension        *extension,
                                        const char          *id);
ZotPanel *_zot_manager_open_panel      (ZotExtensionManager *self,
                                        ZotExtension        *extension,
                                        JsonObject          *description);
void      _zot_manager_close_panels_of (ZotExtensionManager *self,
                                        ZotExtension        *extension,
                                        const char          *reason);
void      _zot_manager_mark_panels_reloaded (ZotExtensionManager *self,
                                             ZotExtension        *extension);
void      _zot_manager_panel_render_frame (ZotExtensionManager *self,
                                           ZotExtension        *extension,
                                           JsonObject          *frame);
void      _zot_manager_panel_close_frame  (ZotExtensionManager *self,
                                           ZotExtension        *extension,
                                           JsonObject          *frame);
void      _zot_manager_open_panel_frame   (ZotExtensionManager *self,
                                           ZotExtension        *extension,
                                           JsonObject          *frame);

G_END_DECLS
