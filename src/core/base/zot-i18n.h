#pragma once

#include <glib.h>

G_BEGIN_DECLS

void        zot_i18n_init           (void);
const char *zot_i18n_get_locale_dir (void);

G_END_DECLS
