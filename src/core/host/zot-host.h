/* zot-host.h — what every mode shares: the extensions, the agent, and
 * what a line of user input means.
 *
 * A line that starts with "/" and names a command (built-in or extension,
 * in any case) runs the command; anything else is a prompt for the agent.
 * Views (print, JSON, RPC, the window) connect to the signals of the host,
 * its agent and its extension manager, and show what they say.
 */
#pragma once

#include <gio/gio.h>

#include "zot-agent.h"
#include "zot-extension-manager.h"
#include "zot-names.h"

G_BEGIN_DECLS

/**
 * ZotHostOptions:
 * @cwd: (nullable): the working directory, %NULL for the current one
 * @ext_paths: (nullable): `--ext` paths, in order
 * @no_ext: skip discovery
 * @watch: `--watch`: an edit of an `--ext` path's files rebuilds and
 *   reloads that extension
 * @provider: the provider configuration, resolved by the host
 * @max_steps: the step budget of one run
 * @system_prompt: (nullable): `--system-prompt`
 * @append_system_prompt: (nullable): `--append-system-prompt`, in order
 * @tools: (nullable): `--tools`, or %NULL for every tool
 * @no_tools: `--no-tools`
 * @continue_session: `--continue`
 * @session_path: (nullable): `--session FILE`
 * @no_session: `--no-session`
 * @continuous: `--continuous`: a new conversation journals its tool calls
 *   (a resumed one keeps the mode it was started in)
 * @read_only_if_locked: open a session that another process writes
 *   read-only instead of failing (the window does)
 * @interactive: the window; headless modes leave it %FALSE
 * @codemode: `--codemode`, parsed: %ZOT_CODEMODE_ON (the default), off or only
 * @reasoning: `--reasoning`: the provider's reasoning level, kept across
 *   model switches
 * @auto_compact: `--auto-compact`: the share of the context window in
 *   percent past which a run compacts (zot_agent_set_auto_compact()); 0
 *   for the default, -1 for never
 */
typedef struct
{
  char              *cwd;
  GStrv              ext_paths;
  gboolean           no_ext;
  gboolean           watch;
  ZotProviderConfig  provider;
  guint              max_steps;
  guint              max_retries;
  gboolean           max_retries_set;
  char              *system_prompt;
  GStrv              append_system_prompt;
  GStrv              tools;
  gboolean           no_tools;
  gboolean           continue_session;
  char              *session_path;
  gboolean           no_session;
  gboolean           continuous;
  gboolean           read_only_if_locked;
  gboolean           interactive;
  ZotCodemode        codemode;
  ZotReasoning       reasoning;
  int                auto_compact;
} ZotHostOptions;

#define ZOT_TYPE_HOST_OPTIONS (zot_host_options_get_type ())

GType           zot_host_options_get_type  (void) G_GNUC_CONST;
ZotHostOptions *zot_host_options_copy      (const ZotHostOptions *options);
void            zot_host_options_copy_into (ZotHostOptions       *to,
                                            const ZotHostOptions *from);
void            zot_host_options_free      (ZotHostOptions       *options);
void            zot_host_options_clear     (ZotHostOptions       *options);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotHostOptions, zot_host_options_clear)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotHostOptions, zot_host_options_free)

#define ZOT_HOST_ERROR (zot_host_error_quark ())

/**
 * ZotHostError:
 * @ZOT_HOST_ERROR_UNKNOWN_COMMAND: a "/name" that no command has
 * @ZOT_HOST_ERROR_NOT_HERE: a command that belongs to another mode
 * @ZOT_HOST_ERROR_USAGE: a command used wrongly
 * @ZOT_HOST_ERROR_BUSY: a turn runs, and what was asked would take its
 *   conversation from under it (see zot_host_stop_turn_async())
 */
typedef enum
{
  ZOT_HOST_ERROR_UNKNOWN_COMMAND,
  ZOT_HOST_ERROR_NOT_HERE,
  ZOT_HOST_ERROR_USAGE,
  ZOT_HOST_ERROR_BUSY,
} ZotHostError;

GQuark zot_host_error_quark (void);

#define ZOT_TYPE_HOST (zot_host_get_type ())
G_DECLARE_FINAL_TYPE (ZotHost, zot_host, ZOT, HOST, GObject)

ZotHost             *zot_host_new               (ZotHostOptions       *options,
                                                 GError              **error);
ZotAgent            *zot_host_get_agent         (ZotHost              *self);
ZotExtensionManager *zot_host_get_manager       (ZotHost              *self);

void                 zot_host_load_async        (ZotHost              *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean             zot_host_load_finish       (ZotHost              *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);
gboolean             zot_host_is_command        (ZotHost              *self,
                                                 const char           *text);
const char          *zot_host_get_command_action (const char          *name);
void                 zot_host_submit_async      (ZotHost              *self,
                                                 const char           *text,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
void                 zot_host_submit_with_images_async (ZotHost              *self,
                                                        const char           *text,
                                                        JsonArray            *images,
                                                        GCancellable         *cancellable,
                                                        GAsyncReadyCallback   callback,
                                                        gpointer              user_data);
void                 zot_host_submit_for_extension_async (ZotHost              *self,
                                                          ZotExtension         *extension,
                                                          const char           *text,
                                                          GCancellable         *cancellable,
                                                          GAsyncReadyCallback   callback,
                                                          gpointer              user_data);
gboolean             zot_host_submit_finish     (ZotHost              *self,
                                                 GAsyncResult         *result,
                                                 char               **final_text,
                                                 GError              **error);
gboolean             zot_host_set_model         (ZotHost              *self,
                                                 const char           *provider,
                                                 const char           *model,
                                                 GError              **error);
gboolean             zot_host_set_base_url      (ZotHost              *self,
                                                 const char           *base_url,
                                                 GError              **error);
gboolean             zot_host_set_api_key       (ZotHost              *self,
                                                 const char           *provider,
                                                 const char           *api_key,
                                                 GError              **error);
void                 zot_host_start_conversation_async  (ZotHost              *self,
                                                         gboolean              continuous,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
gboolean             zot_host_start_conversation_finish (ZotHost              *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);
void                 zot_host_resume_async      (ZotHost              *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
char                *zot_host_resume_finish     (ZotHost              *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);
gboolean             zot_host_new_session       (ZotHost              *self,
                                                 GError              **error);
void                 zot_host_open_session_async  (ZotHost              *self,
                                                   const char           *path,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean             zot_host_open_session_finish (ZotHost              *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
void                 zot_host_begin_session     (ZotHost              *self);
gboolean             zot_host_is_busy           (ZotHost              *self);
gboolean             zot_host_check_idle        (ZotHost              *self,
                                                 GError              **error);
void                 zot_host_stop_turn_async   (ZotHost              *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean             zot_host_stop_turn_finish  (ZotHost              *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);
void                 zot_host_clear             (ZotHost              *self);
void                 zot_host_shutdown_async    (ZotHost              *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean             zot_host_shutdown_finish   (ZotHost              *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);

G_END_DECLS
