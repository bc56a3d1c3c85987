/* fuzz-manifest.c — extension.json, as an installed extension may have
 * written it: the whole input is the file. */
#include "config.h"

#include "zot-fuzz-util.h"
#include "zot-manifest.h"

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *args;

  manifest = zot_manifest_new_from_data ("/nonexistent/extensions/fuzz", (const char *) data,
                                         (gssize) size, &error);
  if (manifest == NULL)
    {
      /* Shown on the extensions page and by `zot ext list`. */
      g_assert_nonnull (error);
      zot_fuzz_assert_utf8 ("a manifest error", error->message, -1);
      return 0;
    }

  g_assert_no_error (error);

  /* What the manager and the extensions page read from every manifest. */
  g_assert_true (zot_manifest_name_is_valid (zot_manifest_get_name (manifest)));
  g_assert_nonnull (zot_manifest_get_exec (manifest));
  args = zot_manifest_get_args (manifest);
  g_assert_nonnull (args);
  for (guint i = 0; args[i] != NULL; i++)
    g_assert_nonnull (args[i]);
  (void) zot_manifest_get_version (manifest);
  (void) zot_manifest_get_description (manifest);
  (void) zot_manifest_get_language (manifest);
  (void) zot_manifest_get_enabled (manifest);
  (void) zot_manifest_get_intercept_failure_blocks (manifest);

  return 0;
}
