/* zot-ext-new.h — the skeleton of a new extension (`zot ext new`, the
 * window's New Extension…): a manifest, a program on the SDK of one
 * language with the SDK copied in, a README and a test script. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

const char * const *zot_ext_new_languages      (void);
const char         *zot_ext_new_language_title (const char  *language);
char               *zot_ext_new_languages_text (void);

char               *zot_ext_new_write          (const char  *parent,
                                                const char  *name,
                                                const char  *language,
                                                GError     **error);
void                zot_ext_new_write_async    (const char          *parent,
                                                const char          *name,
                                                const char          *language,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
char               *zot_ext_new_write_finish   (GAsyncResult        *result,
                                                GError             **error);

GStrv               zot_ext_new_next_steps     (const char  *directory,
                                                const char  *language);

G_END_DECLS
