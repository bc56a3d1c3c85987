/* zot-recent-projects.h — the project folders opened last. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

char **zot_recent_projects_push   (const char * const *list,
                                   const char         *folder);
char **zot_recent_projects_remove (const char * const *list,
                                   const char         *folder);
void   zot_recent_projects_add    (GSettings          *settings,
                                   const char         *folder);
void   zot_recent_projects_forget (GSettings          *settings,
                                   const char         *folder);
char  *zot_recent_projects_display_path (const char   *folder);

G_END_DECLS
