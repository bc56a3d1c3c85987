/* The environment the tests run in. A deprecated property or signal in use
 * must fail a test (G_ENABLE_DIAGNOSTIC with fatal warnings), so that it is
 * replaced when it comes in rather than when the library drops it. The
 * same program runs in the core tests' environment and in the GUI tests'. */
#include "config.h"

#include <gio/gio.h>

static void
test_deprecated_property_fails (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GApplication) app = g_application_new ("dev.zot.Zot.Test",
                                                       G_APPLICATION_DEFAULT_FLAGS);

      /* Deprecated since GLib 2.32. */
      g_object_set (app, "action-group", NULL, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*action-group*deprecated*");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/environment/deprecated-property-fails", test_deprecated_property_fails);

  return g_test_run ();
}
