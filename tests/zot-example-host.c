/* zot-example-host.c — an example extension under the host, for tests. */
#include "config.h"

#include <string.h>

#include "zot-example-host.h"

/* How long a panel_render may take to arrive on a loaded machine. */
#define PANEL_DEADLINE_MS 30000
/* `zot ext check` of one example ends by its own deadlines; this one only
 * guards the test. */
#define CHECK_DEADLINE_MS 240000

void
zot_example_setup (ZotExampleHost *f)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->notes = g_ptr_array_new_with_free_func (g_free);
}

void
zot_example_teardown (ZotExampleHost *f)
{
  if (f->host != NULL)
    {
      ZotExtensionManager *manager = zot_host_get_manager (f->host);

      g_signal_handlers_disconnect_by_data (manager, f);
      g_signal_handlers_disconnect_by_data (manager, f->events);
      g_signal_handlers_disconnect_by_data (manager, f->notes);
      zot_test_finalize_host (&f->host);
    }
  g_clear_pointer (&f->notes, g_ptr_array_unref);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

static void
on_panel (ZotExtensionManager *manager,
          ZotExtension        *extension,
          ZotPanel            *panel,
          ZotExampleHost      *f)
{
  f->panel_updates++;
}

char *
zot_example_source (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "examples", "extensions", name, NULL);

  return g_canonicalize_filename (path, NULL);
}

char *
zot_example_copy (ZotExampleHost *f,
                  const char     *name)
{
  g_autofree char *source = zot_example_source (name);
  g_autofree char *copy = g_build_filename (f->env.root, name, NULL);
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char *[]) { (char *) "cp", (char *) "-R", source, copy, NULL }, NULL,
                G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&copy);
}

gboolean
zot_example_missing (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  g_autofree char *why = NULL;

  if (path != NULL)
    return FALSE;
  why = g_strdup_printf ("%s is not installed", program);
  g_test_skip (why);
  return TRUE;
}

void
zot_example_start (ZotExampleHost *f,
                   const char     *dir,
                   const char     *name,
                   gboolean        interactive)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *notes = g_build_filename (f->env.cwd, "notes.md", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;

  g_assert_true (g_file_set_contents (notes, ZOT_EXAMPLE_NOTES_TEXT, -1, NULL));
  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.no_ext = TRUE;
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = interactive;
  if (f->codemode)
    options.codemode = ZOT_CODEMODE_ON;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  manager = zot_host_get_manager (f->host);
  zot_test_record_events (manager, f->events);
  zot_test_record_notes (manager, f->notes);
  g_signal_connect (manager, "panel-updated", G_CALLBACK (on_panel), f);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
  /* Nested reads and bash run without asking, as in the examples' READMEs. */
  zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_YOLO);
  g_assert_true (zot_extension_get_state (zot_extension_manager_find (manager, name)) ==
                 ZOT_EXTENSION_STATE_READY);
}

JsonObject *
zot_example_model_calls (ZotExampleHost *f,
                         const char     *tool,
                         const char     *args)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *prompt = g_strdup_printf ("tool: %s %s", tool, args);
  JsonObject *result;

  g_ptr_array_set_size (f->events, 0);
  zot_test_submit (f->host, prompt, &s);
  g_assert_no_error (s.error);
  result = zot_test_find_event (f->events, "tool_result", zot_test_model_call_id (f->events, tool));
  g_assert_nonnull (result);
  return result;
}

void
zot_example_expect_result (ZotExampleHost *f,
                           const char     *tool,
                           const char     *args,
                           gboolean        is_error,
                           const char     *text)
{
  JsonObject *result = zot_example_model_calls (f, tool, args);
  const char *got = zot_test_json_string_at (result, "result/content/0/text");
  gboolean got_error = json_node_get_boolean (zot_test_json_node_at (result, "result/is_error"));

  if (got_error != is_error || (is_error ? strstr (got, text) == NULL : !g_str_equal (got, text)))
    g_error ("%s %s answered \"%s\" (is_error %d), not \"%s\" (is_error %d)",
             tool, args, got, got_error, text, is_error);
}

ZotCommandReply *
zot_example_command (ZotExampleHost     *f,
                     const char         *name,
                     const char         *args,
                     ZotCommandReplyKind kind)
{
  g_autoptr(GError) error = NULL;
  ZotCommandReply *reply;

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), name, args, &error);
  g_assert_no_error (error);
  if (zot_command_reply_get_error (reply) != NULL)
    g_error ("/%s %s: %s", name, args, zot_command_reply_get_error (reply)->message);
  g_assert_cmpint (zot_command_reply_get_kind (reply), ==, kind);
  return reply;
}

void
zot_example_command_fails (ZotExampleHost *f,
                           const char     *name,
                           const char     *args,
                           const char     *part)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), name, args, &error);
  g_assert_no_error (error);
  g_assert_nonnull (zot_command_reply_get_error (reply));
  if (strstr (zot_command_reply_get_error (reply)->message, part) == NULL)
    g_error ("/%s %s: \"%s\" lacks \"%s\"", name, args, zot_command_reply_get_error (reply)->message, part);
}

static gboolean
panel_updated (gpointer data)
{
  return ((ZotExampleHost *) data)->panel_updates > 0;
}

void
zot_example_panel_event (ZotExampleHost *f,
                         ZotPanel       *panel,
                         const char     *widget_id,
                         const char     *event,
                         const char     *value_json)
{
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;

  if (value_json != NULL)
    {
      value = json_from_string (value_json, &error);
      g_assert_no_error (error);
    }
  f->panel_updates = 0;
  g_assert_true (zot_panel_send_event (panel, widget_id, event, value));
  zot_test_wait_until (panel_updated, f, PANEL_DEADLINE_MS);
}

ZotPanelNode *
zot_example_widget (ZotPanel   *panel,
                    const char *id)
{
  ZotPanelNode *node = zot_panel_node_find (zot_panel_get_widgets (panel), id);

  g_assert_nonnull (node);
  return node;
}

const char *
zot_example_row_title (ZotPanel *panel,
                       guint     i)
{
  return ((ZotPanelRow *) g_ptr_array_index (zot_example_widget (panel, "items")->rows, i))->title;
}

ZotPanel *
zot_example_open_panel (ZotExampleHost *f,
                        const char     *id)
{
  g_autoptr(ZotCommandReply) opened = zot_example_command (f, id, "", ZOT_COMMAND_REPLY_PANEL);
  GPtrArray *panels = zot_extension_manager_list_panels (zot_host_get_manager (f->host));
  ZotPanel *panel;

  g_assert_cmpuint (panels->len, ==, 1);
  panel = g_ptr_array_index (panels, 0);
  g_assert_cmpstr (zot_panel_get_id (panel), ==, id);
  g_assert_nonnull (zot_panel_get_widgets (panel));
  g_assert_cmpuint (zot_panel_node_count_errors (zot_panel_get_widgets (panel)), ==, 0);
  return panel;
}

typedef struct
{
  gboolean  done;
  char     *out;
} Check;

static void
check_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  Check *check = data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &check->out, NULL, &error);
  g_assert_no_error (error);
  check->done = TRUE;
}

void
zot_example_ext_check (const char *dir)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  Check check = { 0 };

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  process = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("ZOT_BIN"), "ext", "check", dir, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, check_done_cb, &check);
  zot_test_wait_for (&check.done, CHECK_DEADLINE_MS);
  g_subprocess_wait (process, NULL, NULL);
  if (!g_subprocess_get_if_exited (process) || g_subprocess_get_exit_status (process) != 0)
    g_error ("zot ext check %s failed:\n%s", dir, check.out);
  g_assert_nonnull (strstr (check.out, " 0 failed, "));
  g_assert_nonnull (strstr (check.out, " 0 violations"));
  g_free (check.out);
}
