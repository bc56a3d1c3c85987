/* zot-project-chooser.h — the start view: open a folder, or a recent one. */
#pragma once

#include <adwaita.h>

#include "zot-application.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PROJECT_CHOOSER (zot_project_chooser_get_type ())
G_DECLARE_FINAL_TYPE (ZotProjectChooser, zot_project_chooser, ZOT, PROJECT_CHOOSER, AdwApplicationWindow)

GtkWidget *zot_project_chooser_new (ZotApplication *application);

G_END_DECLS
