#pragma once

#include <adwaita.h>

#include "zot-application.h"
#include "zot-approval.h"
#include "zot-host.h"

G_BEGIN_DECLS

#define ZOT_TYPE_WINDOW (zot_window_get_type ())
G_DECLARE_FINAL_TYPE (ZotWindow, zot_window, ZOT, WINDOW, AdwApplicationWindow)

GtkWidget *zot_window_new              (ZotApplication     *application,
                                        ZotHostOptions     *options,
                                        int                 yolo);
ZotHost   *zot_window_get_host         (ZotWindow          *self);
const char *zot_window_get_cwd         (ZotWindow          *self);
gboolean   zot_window_open_files       (ZotWindow          *self,
                                        GSList             *files);
void       zot_window_set_prompt       (ZotWindow          *self,
                                        const char         *prompt);
void       zot_window_add_extensions   (ZotWindow          *self,
                                        const char * const *paths);
void       zot_window_resolve_approval (ZotWindow          *self,
                                        const char         *id,
                                        ZotApprovalChoice   choice);
void       zot_window_show_toast       (ZotWindow          *self,
                                        const char         *text);
gboolean   zot_window_install_file     (ZotWindow          *self,
                                        GFile              *file);

G_END_DECLS
