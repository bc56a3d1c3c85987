/* zot-key-grants.h — which extension the user let have which provider key.
 *
 * Provider keys are kept out of every child's environment. An extension
 * whose manifest asks for one by name ("env": ["OPENAI_API_KEY"]) gets it
 * only once the user granted it (zot ext allow-key NAME VARIABLE); the
 * grants live in $ZOT_HOME/key-grants.json.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GStrv    zot_key_grants_for (const char  *extension);
gboolean zot_key_grants_set (const char  *extension,
                             const char  *variable,
                             gboolean     granted,
                             GError     **error);

G_END_DECLS
