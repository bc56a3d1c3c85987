#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ZOT_TYPE_APPLICATION (zot_application_get_type ())
G_DECLARE_FINAL_TYPE (ZotApplication, zot_application, ZOT, APPLICATION, AdwApplication)

typedef struct _ZotWindow ZotWindow;

ZotApplication *zot_application_new                       (void);
ZotWindow      *zot_application_open_project              (ZotApplication  *self,
                                                           const char      *folder);
ZotWindow      *zot_application_find_project              (ZotApplication  *self,
                                                           const char      *folder);
ZotWindow      *zot_application_get_recent_project_window (ZotApplication  *self);
void            zot_application_show_projects             (ZotApplication  *self);
void            zot_application_open_files                (ZotApplication  *self,
                                                           GFile          **files,
                                                           guint            n_files);
gboolean        zot_application_file_is_project           (GFile           *file);

G_END_DECLS
