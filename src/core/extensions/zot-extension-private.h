#pragma once

#include "zot-extension.h"
#include "zot-frame-channel.h"
#include "zot-limits.h"

G_BEGIN_DECLS

void _zot_extension_set_command_conflict (ZotExtension *self,
                                          guint         index,
                                          const char   *conflict);

void _zot_extension_add_problem          (ZotExtension *self,
                                          const char   *problem);

/* The channel to send event @event_id (zot_lifecycle_event_id(), or 0 with
 * @event) to, or NULL when the extension's state sends no events or it is
 * not subscribed: the manager's per-delivery test, without a type check
 * per call. */
ZotFrameChannel *_zot_extension_event_channel (ZotExtension *self,
                                               guint         event_id,
                                               const char   *event);

/* What follows is shared by zot-extension.c (the object, requests, state
 * file), zot-extension-frames.c (registration and the frames) and
 * zot-extension-process.c (start, exit, shutdown). Only the tests look
 * in as well, at the tables of frames by state. */

struct _ZotExtension
{
  GObject              parent_instance;

  ZotManifest         *manifest;
  char                *name;
  char                *directory;
  ZotExtensionScope    scope;
  ZotExtensionState    state;
  char                *last_error;
  char                *log_path;
  int                  log_fd;

  JsonObject          *hello_ack;
  char                *hello_version;
  GStrv                capabilities;
  GPtrArray           *commands;
  GPtrArray           *tools;
  GHashTable          *command_keys;   /* lower-cased name → command, for conflicts */
  GHashTable          *tool_names;     /* name → tool */
  guint                n_command_frames;
  guint                n_tool_frames;
  GPtrArray           *problems;
  GHashTable          *events;
  guint32              event_ids;
  GQueue               deadlines;      /* pending requests with a deadline, earliest first */
  GSource             *deadline_source;
  GHashTable          *intercepts;
  struct _ZotExtensionMeter *meter;    /* zot-extension-meter.c; made when first used */

  GSubprocess         *subprocess;
  ZotFrameChannel     *channel;
  GCancellable        *cancellable;

  GTask               *init_task;
  GSource             *hello_timeout;
  GSource             *idle_timeout;
  GSource             *cap_timeout;
  GSource             *eof_timeout;
  GSource             *drain_timeout;  /* exited: what it wrote is still read */
  /* Unknown frame types: logged up to a burst per window, then counted. */
  GSource             *unknown_window;
  guint                n_unknown_logged;
  guint                n_unknown_suppressed;
  guint                save_id;

  GHashTable          *pending;
  guint64              next_request;
  GHashTable          *invocations;    /* tool_call id → ZotToolInvocation, while it runs */
  GHashTable          *progress;       /* tool_call id → its progress (zot-extension-dynamic.c) */
  guint                n_stray_progress;

  GSource             *ladder_timeout;
  GQueue               stop_waiters;
  int                  ladder_step;

  char                *exit_description;
  guint                exited : 1;
  guint                got_hello : 1;
  guint                channel_closed : 1;
  guint                draining : 1;
  GPid                 group;           /* its process group: the process's pid */
  guint                stopping : 1;
  guint                trace : 1;
};

enum {
  ZOT_EXTENSION_SIGNAL_NOTIFY_RECEIVED,
  ZOT_EXTENSION_SIGNAL_NOTES_CLEARED,
  ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED,
  ZOT_EXTENSION_SIGNAL_CRASHED,
  ZOT_EXTENSION_SIGNAL_UNHANDLED_FRAME,
  ZOT_EXTENSION_SIGNAL_TRAFFIC,
  ZOT_EXTENSION_N_SIGNALS
};

extern guint _zot_extension_signals [ZOT_EXTENSION_N_SIGNALS];

/* zot-extension.c */
GSource *_zot_extension_add_timeout              (ZotTimeout           timeout,
                                                  GSourceFunc          func,
                                                  gpointer             data,
                                                  const char          *name);
void     _zot_extension_set_state                (ZotExtension        *self,
                                                  ZotExtensionState    state);
void     _zot_extension_set_last_error           (ZotExtension        *self,
                                                  const char          *message);
void     _zot_extension_save_state               (ZotExtension        *self);
void     _zot_extension_record_problem           (ZotExtension        *self,
                                                  const char          *problem);
void     _zot_extension_fail_all_requests        (ZotExtension        *self,
                                                  const GError        *error);
void     _zot_extension_complete_request         (ZotExtension        *self,
                                                  JsonObject          *frame);

/* zot-extension-frames.c */
void     _zot_extension_read_frames              (ZotExtension        *self);
void     _zot_extension_finish_init              (ZotExtension        *self,
                                                  GError              *error);
gboolean _zot_extension_send                     (ZotExtension        *self,
                                                  JsonObject          *frame,
                                                  GError             **error);
void     _zot_extension_end_unknown_window       (ZotExtension        *self);

/* The tables of frames by state (zot-extension-frames.c): each row names
 * a frame type and the ZotExtensionState bits it is allowed in. */
#define ZOT_EXTENSION_STATE_BIT(state) (1u << (state))

typedef struct
{
  const char  *type;
  guint        states;
  void       (*handle) (ZotExtension *self,
                        JsonObject   *frame);
} ZotExtensionIncomingFrame;

typedef struct
{
  const char    *type;
  guint          states;
  ZotFrameFlags  flags;
  /* The incoming type that answers it with the same "id"; NULL when
   * nothing does. */
  const char    *answer;
} ZotExtensionOutgoingFrame;

const ZotExtensionIncomingFrame *_zot_extension_incoming_frames (guint *n_frames);
const ZotExtensionOutgoingFrame *_zot_extension_outgoing_frames (guint *n_frames);

/* zot-extension-dynamic.c */
void     _zot_extension_handle_unregister_tool    (ZotExtension        *self,
                                                  JsonObject          *frame);
void     _zot_extension_handle_unregister_command (ZotExtension        *self,
                                                  JsonObject          *frame);
void     _zot_extension_handle_tool_progress     (ZotExtension        *self,
                                                  JsonObject          *frame);
void     _zot_extension_track_progress           (ZotExtension        *self,
                                                  const char          *request_id,
                                                  ZotToolProgress     *progress);
void     _zot_extension_untrack_progress         (ZotExtension        *self,
                                                  const char          *request_id);

/* zot-extension-process.c */
void     _zot_extension_async_initable_iface_init (GAsyncInitableIface *iface);
void     _zot_extension_terminate_process        (ZotExtension        *self,
                                                  gboolean             polite);
void     _zot_extension_kill_process             (ZotExtension        *self);

G_END_DECLS
