/* zot-options.h — the host's command-line options, for every view.
 *
 * `zot -p`, `zot --json`, `zot rpc` and the window take the same flags
 * (HOST.md, "Flags shared by all modes"). They are declared and turned
 * into ZotHostOptions here, once, so that the views cannot drift apart.
 */
#pragma once

#include <gio/gio.h>

#include "zot-host.h"

G_BEGIN_DECLS

typedef struct
{
  char      *provider;
  char      *model;
  char      *base_url;
  char      *api_key;
  char      *api_key_file;
  char      *cwd;
  char     **ext_paths;
  gboolean   no_ext;
  gboolean   watch;
  char      *system_prompt;
  char     **append_system_prompt;
  int        max_steps;
  int        max_retries;
  gboolean   no_tools;
  char      *tools;
  gboolean   continue_session;
  char      *session;
  gboolean   no_session;
  gboolean   continuous;
  char      *codemode;
  gboolean   codemode_only;
  char      *reasoning;
  char      *auto_compact;
  gboolean   yolo;
  gboolean   no_yolo;
} ZotOptions;

void      zot_options_init        (ZotOptions          *self);
void      zot_options_clear       (ZotOptions          *self);
void      zot_options_add_entries (ZotOptions          *self,
                                   GOptionContext      *context);
gboolean  zot_options_parse       (GOptionContext      *context,
                                   GStrv               *argv,
                                   GError             **error);
gboolean  zot_options_check       (ZotOptions          *self,
                                   GError             **error);
void      zot_options_to_host     (const ZotOptions    *self,
                                   const char          *invocation_cwd,
                                   gboolean             interactive,
                                   ZotHostOptions      *out);
GStrv     zot_options_split_list  (const char          *list);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotOptions, zot_options_clear)

G_END_DECLS
