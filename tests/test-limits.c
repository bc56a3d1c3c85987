/* test-limits.c — the protocol's numbers and the deadline override. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "zot-approval.h"
#include "zot-limits-private.h"
#include "zot-provider-secrets.h"
#include "zot-unknown-types.h"

static void
test_spec_values (void)
{
  /* PROTOCOL.md §0, verbatim: a change here is a change of the contract. */
  g_assert_cmpuint (ZOT_PROTOCOL_VERSION, ==, 1);
  g_assert_cmpuint (ZOT_FRAME_MAX_BYTES, ==, 4194304);
  g_assert_cmpuint (ZOT_QUEUE_MAX_FRAMES, ==, 256);
  g_assert_cmpuint (ZOT_QUEUE_MAX_BYTES, ==, 16777216);
  g_assert_cmpuint (ZOT_WRITE_TIMEOUT_MS, ==, 5000);
  g_assert_cmpuint (ZOT_HELLO_TIMEOUT_MS, ==, 10000);
  g_assert_cmpuint (ZOT_REGISTRATION_IDLE_MS, ==, 250);
  g_assert_cmpuint (ZOT_REGISTRATION_MAX_MS, ==, 3000);
  g_assert_cmpuint (ZOT_COMMAND_TIMEOUT_MS, ==, 30000);
  g_assert_cmpuint (ZOT_TOOL_TIMEOUT_MS, ==, 60000);
  g_assert_cmpuint (ZOT_INTERCEPT_TIMEOUT_MS, ==, 5000);
  g_assert_cmpuint (ZOT_BEFORE_AGENT_START_TIMEOUT_MS, ==, 5000);
  g_assert_cmpuint (ZOT_CALL_TOOL_TIMEOUT_MS, ==, 60000);
  g_assert_cmpuint (ZOT_SHUTDOWN_GRACE_MS, ==, 2000);
  g_assert_cmpuint (ZOT_SIGTERM_GRACE_MS, ==, 1000);
  g_assert_cmpuint (ZOT_SYSTEM_PROMPT_MAX_BYTES, ==, 1048576);
  g_assert_cmpuint (ZOT_OBSERVATION_MAX_BYTES, ==, 262144);
  g_assert_cmpuint (ZOT_OBSERVATION_MAX_BLOCKS, ==, 128);
  g_assert_cmpuint (ZOT_TOOL_CHAIN_MAX_CALLS, ==, 4);
  g_assert_cmpuint (ZOT_DURABLE_KEY_MAX_BYTES, ==, 128);
}

/* The host's check of a script's images and the runtime's (half a frame,
 * the room it leaves a value) use one number; test-codemode tries it at
 * its edge. */
static void
test_codemode (void)
{
  g_assert_cmpuint (ZOT_CODEMODE_IMAGE_MAX_BYTES, ==, ZOT_FRAME_MAX_BYTES / 2);
  g_assert_cmpuint (ZOT_CODEMODE_IMAGE_MAX_BYTES % 4, ==, 0);
  /* The box's caps, as docs/protocol.md states them (test-codemode tries
   * them at their edges, lowered through the test-only override); the
   * spill file holds far more than the model is shown. */
  g_assert_cmpuint (ZOT_CODEMODE_MAX_PROCESSES, ==, 16);
  g_assert_cmpuint (ZOT_CODEMODE_MEMORY_MAX_BYTES, ==, 256 * 1024 * 1024);
  g_assert_cmpuint (ZOT_CODEMODE_SPILL_MAX_BYTES, >, ZOT_CODEMODE_OUTPUT_CAP_BYTES);
}

static void
test_defaults_and_names (void)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint t = 0; t < ZOT_N_TIMEOUTS; t++)
    {
      const char *name = zot_timeout_get_name (t);

      g_assert_nonnull (name);
      g_assert_false (g_hash_table_contains (names, name));
      g_hash_table_add (names, (gpointer) name);
      g_assert_cmpuint (zot_timeout_get_default (t), >, 0);
    }

  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_COMMAND), ==, ZOT_COMMAND_TIMEOUT_MS);
  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_SIGTERM_GRACE), ==, ZOT_SIGTERM_GRACE_MS);
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_TOOL), ==, ZOT_TOOL_TIMEOUT_MS);
  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_STOP_TURN), ==, ZOT_STOP_TURN_TIMEOUT_MS);
  g_assert_cmpstr (zot_timeout_get_name (ZOT_TIMEOUT_STOP_TURN), ==, "stop-turn");
  /* Watch mode: docs/protocol.md states these. */
  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_WATCH_DEBOUNCE), ==, 150);
  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_BUILD), ==, 120000);
  /* docs/reference.md states it for zot ext install --build. */
  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_INSTALL_BUILD), ==, 600000);
  g_assert_cmpstr (zot_timeout_get_name (ZOT_TIMEOUT_INSTALL_BUILD), ==, "install-build");
  g_assert_cmpuint (ZOT_WATCH_MAX_DIRECTORIES, ==, 256);
}

static void
test_override (void)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 17);
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_TOOL), ==, 17);
  g_assert_cmpuint (zot_timeout_get_default (ZOT_TIMEOUT_TOOL), ==, ZOT_TOOL_TIMEOUT_MS);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 0);
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_TOOL), ==, ZOT_TOOL_TIMEOUT_MS);
}

static void
test_environment (void)
{
  /* main() set ZOT_TEST_TIMEOUTS before the first read. */
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_HELLO), ==, 123);
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_IDLE), ==, 45);
  /* Malformed entries are ignored, never half-applied. */
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND), ==, ZOT_COMMAND_TIMEOUT_MS);
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_WRITE), ==, ZOT_WRITE_TIMEOUT_MS);
}

/* tool_preview keeps a command of ZOT_APPROVAL_PREVIEW_MAX_CHARS whole
 * and shortens one character more, saying so. */
static void
test_approval_preview_edge (void)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *at = g_strnfill (ZOT_APPROVAL_PREVIEW_MAX_CHARS, 'x');
  g_autofree char *past = g_strnfill (ZOT_APPROVAL_PREVIEW_MAX_CHARS + 1, 'x');
  g_autofree char *whole = NULL;
  g_autofree char *cut = NULL;
  g_autofree char *expected = NULL;

  json_object_set_string_member (args, "command", at);
  whole = zot_approval_build_preview ("bash", args);
  expected = g_strdup_printf ("bash: %s", at);
  g_assert_cmpstr (whole, ==, expected);

  json_object_set_string_member (args, "command", past);
  cut = zot_approval_build_preview ("bash", args);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("bash: %s… (shortened; %u characters in all)",
                              at, ZOT_APPROVAL_PREVIEW_MAX_CHARS + 1);
  g_assert_cmpstr (cut, ==, expected);
}

/* --api-key-file reads a file of ZOT_API_KEY_FILE_MAX_BYTES, not one byte
 * more. */
static void
test_api_key_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("zot-limits-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "key", NULL);
  g_autofree char *contents = g_malloc (ZOT_API_KEY_FILE_MAX_BYTES + 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  g_assert_cmpuint (ZOT_API_KEY_FILE_MAX_BYTES, ==, 64 * 1024);

  /* A key filling the file but for its newline. */
  memset (contents, 'k', ZOT_API_KEY_FILE_MAX_BYTES + 1);
  contents[ZOT_API_KEY_FILE_MAX_BYTES - 1] = '\n';
  g_assert_true (g_file_set_contents (path, contents, ZOT_API_KEY_FILE_MAX_BYTES, NULL));
  key = zot_provider_read_key_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (key), ==, ZOT_API_KEY_FILE_MAX_BYTES - 1);

  g_assert_true (g_file_set_contents (path, contents, ZOT_API_KEY_FILE_MAX_BYTES + 1, NULL));
  g_clear_pointer (&key, g_free);
  key = zot_provider_read_key_file (path, &error);
  g_assert_null (key);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_nonnull (strstr (error->message, path));

  g_unlink (path);
  g_rmdir (dir);
}

/* Each unknown type is logged once, and at most ZOT_UNKNOWN_TYPES_LOGGED
 * of them: the last one that fits is logged, the next one is not. */
static void
test_unknown_types_edge (void)
{
  g_auto(ZotUnknownTypes) unknown = { 0 };

  for (guint i = 0; i < ZOT_UNKNOWN_TYPES_LOGGED; i++)
    {
      g_autofree char *type = g_strdup_printf ("mystery-%u", i);

      g_assert_true (zot_unknown_types_note (&unknown, type));
      g_assert_false (zot_unknown_types_note (&unknown, type));
    }
  g_assert_false (zot_unknown_types_note (&unknown, "one-too-many"));
  g_assert_false (zot_unknown_types_note (&unknown, "mystery-0"));

  zot_unknown_types_clear (&unknown);
  g_assert_true (zot_unknown_types_note (&unknown, "one-too-many"));
  g_assert_true (zot_unknown_types_note (&unknown, NULL));
  g_assert_false (zot_unknown_types_note (&unknown, ""));
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("ZOT_TEST_TIMEOUTS", "hello=123, registration-idle=45,command=abc,write=0,bogus=9,=", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/limits/spec-values", test_spec_values);
  g_test_add_func ("/zot/limits/codemode", test_codemode);
  g_test_add_func ("/zot/limits/defaults-and-names", test_defaults_and_names);
  g_test_add_func ("/zot/limits/override", test_override);
  g_test_add_func ("/zot/limits/environment", test_environment);
  g_test_add_func ("/zot/limits/approval-preview-edge", test_approval_preview_edge);
  g_test_add_func ("/zot/limits/api-key-file", test_api_key_file);
  g_test_add_func ("/zot/limits/unknown-types-edge", test_unknown_types_edge);

  return g_test_run ();
}
