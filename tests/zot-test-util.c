#include "config.h"

#include <glib/gstdio.h>

#include "zot-test-util.h"

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
        }
    }
  g_rmdir (path);
}

void
zot_test_env_setup (ZotTestEnv *env)
{
  env->root = g_dir_make_tmp ("zot-test-XXXXXX", NULL);
  g_assert_nonnull (env->root);
  env->home = g_build_filename (env->root, "home", NULL);
  env->cwd = g_build_filename (env->root, "project", NULL);
  g_mkdir_with_parents (env->home, 0700);
  g_mkdir_with_parents (env->cwd, 0700);
  g_setenv ("ZOT_HOME", env->home, TRUE);
}

void
zot_test_env_teardown (ZotTestEnv *env)
{
  for (guint t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);

  if (env->root != NULL)
    remove_tree (env->root);
  g_clear_pointer (&env->root, g_free);
  g_clear_pointer (&env->home, g_free);
  g_clear_pointer (&env->cwd, g_free);
}

char *
zot_test_make_manifest (const char *parent,
                        const char *dirname,
                        const char *json)
{
  g_autofree char *dir = g_build_filename (parent, dirname, NULL);
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autoptr(GError) error = NULL;

  g_mkdir_with_parents (dir, 0700);
  g_file_set_contents (path, json, -1, &error);
  g_assert_no_error (error);

  return g_steal_pointer (&dir);
}

char *
zot_test_make_fake (const char         *parent,
                    const char         *name,
                    const char * const *args)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  const char *fake = g_getenv ("ZOT_FAKE_EXTENSION");

  g_assert_nonnull (fake);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "exec");
  json_builder_add_string_value (builder, fake);
  json_builder_set_member_name (builder, "version");
  json_builder_add_string_value (builder, "1.0.0");
  json_builder_set_member_name (builder, "language");
  json_builder_add_string_value (builder, "c");
  json_builder_set_member_name (builder, "args");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "--name");
  json_builder_add_string_value (builder, name);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    json_builder_add_string_value (builder, args[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json = json_generator_to_data (generator, NULL);

  return zot_test_make_manifest (parent, name, json);
}

char *
zot_test_make_fake_args (const char *parent,
                         const char *name,
                         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  va_start (ap, name);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  return zot_test_make_fake (parent, name, (const char * const *) args->pdata);
}

char *
zot_test_fixture_dir (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "extensions", name, NULL);
}

static gboolean
deadline_cb (gpointer data)
{
  gboolean *expired = data;
  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

void
zot_test_wait_for (gboolean *flag,
                   guint     timeout_ms)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add (timeout_ms, deadline_cb, &expired);

  while (!*flag && !expired)
    g_main_context_iteration (NULL, TRUE);

  if (!expired)
    g_source_remove (id);
  if (!*flag)
    g_error ("condition not met within %u ms", timeout_ms);
}

void
zot_test_wait_until (gboolean (*check) (gpointer),
                     gpointer   data,
                     guint      timeout_ms)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add (timeout_ms, deadline_cb, &expired);

  while (!check (data) && !expired)
    g_main_context_iteration (NULL, TRUE);

  if (!expired)
    g_source_remove (id);
  if (!check (data))
    g_error ("condition not met within %u ms", timeout_ms);
}

static void
flag_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  if (g_async_result_is_tagged (result, zot_extension_manager_load_async))
    zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  else
    zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  *done = TRUE;
}

ZotExtensionManager *
zot_test_load_manager (ZotTestEnv         *env,
                       const char * const *paths)
{
  ZotExtensionManager *manager = zot_extension_manager_new ();
  gboolean done = FALSE;

  zot_extension_manager_set_cwd (manager, env->cwd);
  zot_extension_manager_set_explicit_paths (manager, paths);
  zot_extension_manager_load_async (manager, NULL, flag_cb, &done);
  zot_test_wait_for (&done, 30000);

  return manager;
}

void
zot_test_shutdown_manager (ZotExtensionManager *manager)
{
  gboolean done = FALSE;

  zot_extension_manager_shutdown_async (manager, NULL, flag_cb, &done);
  zot_test_wait_for (&done, 30000);
  g_assert_finalize_object (manager);
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} CommandWait;

static void
command_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  CommandWait *wait = user_data;

  wait->ok = zot_extension_manager_run_command_finish (ZOT_EXTENSION_MANAGER (object), result, &wait->error);
  wait->done = TRUE;
}

gboolean
zot_test_run_command (ZotExtensionManager  *manager,
                      const char           *name,
                      const char           *args,
                      GError              **error)
{
  CommandWait wait = { 0 };

  zot_extension_manager_run_command_async (manager, name, args, NULL, command_cb, &wait);
  zot_test_wait_for (&wait.done, 60000);

  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.ok;
}

char *
zot_test_read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  return contents;
}

GPtrArray *
zot_test_read_frames (const char *path)
{
  g_autofree char *contents = zot_test_read_file (path);
  g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (*lines[i] == '\0')
        continue;
      if (json_parser_load_from_data (parser, lines[i], -1, NULL) &&
          JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        g_ptr_array_add (frames, json_object_ref (json_node_get_object (json_parser_get_root (parser))));
    }

  return frames;
}

JsonObject *
zot_test_find_frame (GPtrArray  *frames,
                     const char *type)
{
  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (frame, "type", ""), type) == 0)
        return frame;
    }
  return NULL;
}
