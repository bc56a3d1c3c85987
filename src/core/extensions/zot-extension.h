#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-discovery.h"
#include "zot-frame-channel.h"
#include "zot-manifest.h"
#include "zot-tool-invocation.h"

G_BEGIN_DECLS

/**
 * ZotExtensionState:
 * @ZOT_EXTENSION_STATE_DISABLED: the manifest says `enabled: false`; never started
 * @ZOT_EXTENSION_STATE_STARTING: spawned, waiting for `hello`
 * @ZOT_EXTENSION_STATE_REGISTERING: `hello` answered, taking registrations until `ready`
 * @ZOT_EXTENSION_STATE_READY: running; its commands are routed to it
 * @ZOT_EXTENSION_STATE_STOPPING: the shutdown ladder is running
 * @ZOT_EXTENSION_STATE_EXITED: stopped by the host
 * @ZOT_EXTENSION_STATE_FAILED: could not start, or crashed; see #ZotExtension:last-error
 * @ZOT_EXTENSION_STATE_NEEDS_APPROVAL: a project's extension not trusted in
 *   that project (or asking for more than was granted); not started until
 *   it is. #ZotExtension:last-error says what it asks for
 */
typedef enum
{
  ZOT_EXTENSION_STATE_DISABLED,
  ZOT_EXTENSION_STATE_STARTING,
  ZOT_EXTENSION_STATE_REGISTERING,
  ZOT_EXTENSION_STATE_READY,
  ZOT_EXTENSION_STATE_STOPPING,
  ZOT_EXTENSION_STATE_EXITED,
  ZOT_EXTENSION_STATE_FAILED,
  ZOT_EXTENSION_STATE_NEEDS_APPROVAL,
} ZotExtensionState;

/**
 * ZotExtensionCommand:
 * @name: the spelling the extension registered
 * @description: (nullable): what it does
 * @conflict: (nullable): why it is not routed, when another command wins
 */
typedef struct
{
  char *name;
  char *description;
  char *conflict;
} ZotExtensionCommand;

#define ZOT_TYPE_EXTENSION (zot_extension_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtension, zot_extension, ZOT, EXTENSION, GObject)

ZotExtension      *zot_extension_new                 (ZotManifest          *manifest,
                                                      ZotExtensionScope     scope,
                                                      JsonObject           *hello_ack);
ZotExtension      *zot_extension_new_failed          (const char           *directory,
                                                      ZotExtensionScope     scope,
                                                      const GError         *error);
ZotManifest       *zot_extension_get_manifest        (ZotExtension         *self);
const char        *zot_extension_get_name            (ZotExtension         *self);
const char        *zot_extension_get_directory       (ZotExtension         *self);
ZotExtensionScope  zot_extension_get_scope           (ZotExtension         *self);
ZotExtensionState  zot_extension_get_state           (ZotExtension         *self);
const char        *zot_extension_get_last_error      (ZotExtension         *self);
const char        *zot_extension_get_log_path        (ZotExtension         *self);
const char        *zot_extension_get_hello_version   (ZotExtension         *self);
gboolean           zot_extension_has_capability      (ZotExtension         *self,
                                                      const char           *capability);
GPtrArray         *zot_extension_get_commands        (ZotExtension         *self);
gboolean           zot_extension_is_running          (ZotExtension         *self);

void               zot_extension_request_async       (ZotExtension         *self,
                                                      JsonObject           *frame,
                                                      guint                 timeout_ms,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
JsonObject        *zot_extension_request_finish      (ZotExtension         *self,
                                                      GAsyncResult         *result,
                                                      GError              **error);
void               zot_extension_hold_request        (ZotExtension         *self,
                                                      const char           *id,
                                                      gboolean              held);
gboolean           zot_extension_request_is_held     (ZotExtension         *self,
                                                      const char           *id);
void               zot_extension_track_invocation    (ZotExtension         *self,
                                                      const char           *request_id,
                                                      ZotToolInvocation    *invocation);
void               zot_extension_untrack_invocation  (ZotExtension         *self,
                                                      const char           *request_id,
                                                      ZotToolInvocation    *invocation);
ZotToolInvocation *zot_extension_lookup_invocation   (ZotExtension         *self,
                                                      const char           *request_id);
gboolean           zot_extension_has_invocations     (ZotExtension         *self);
GStrv              zot_extension_dup_invocation_ids  (ZotExtension         *self);
gboolean           zot_extension_notify              (ZotExtension         *self,
                                                      JsonObject           *frame,
                                                      GError              **error);

void               zot_extension_stop_async          (ZotExtension         *self,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
gboolean           zot_extension_stop_finish         (ZotExtension         *self,
                                                      GAsyncResult         *result,
                                                      GError              **error);

void               zot_extension_log                 (ZotExtension         *self,
                                                      const char           *format,
                                                      ...) G_GNUC_PRINTF (2, 3);
void               zot_extension_set_trace           (ZotExtension         *self,
                                                      gboolean              trace);

const char        *zot_extension_state_to_string     (ZotExtensionState     state);
guint              zot_lifecycle_event_id            (const char           *name);
const char * const *zot_extension_get_request_types  (void);
gboolean           zot_extension_check_command_name  (const char           *name,
                                                      GError              **error);

GPtrArray         *zot_extension_get_tools           (ZotExtension         *self);
GPtrArray         *zot_extension_get_problems        (ZotExtension         *self);
gboolean           zot_extension_is_subscribed       (ZotExtension         *self,
                                                      const char           *event);
gboolean           zot_extension_intercepts          (ZotExtension         *self,
                                                      const char           *event);
void               zot_extension_flush_async         (ZotExtension         *self,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);

G_END_DECLS
