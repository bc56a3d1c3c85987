#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "zot-builtin-tools.h"
#include "zot-flatpak.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-test-util.h"

gboolean
zot_test_remove_tree (const char *path)
{
  g_autoptr(GError) error = NULL;

  if (zot_remove_tree (path, &error))
    return TRUE;

  g_test_message ("Leaving %s behind: %s", path, error->message);
  return FALSE;
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
    zot_test_remove_tree (env->root);
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

static void manifest_set (const char *dir,
                          const char *member,
                          JsonNode   *value);

/* Adds or replaces one string member of @dir's extension.json. */
void
zot_test_manifest_set_string (const char *dir,
                              const char *member,
                              const char *value)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (node, value);
  manifest_set (dir, member, node);
}

/* Adds or replaces one member of @dir's extension.json: an array of
 * @values (NULL-terminated). */
void
zot_test_manifest_set_strings (const char  *dir,
                               const char  *member,
                               const char **values)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; values[i] != NULL; i++)
    json_array_add_string_element (array, values[i]);
  manifest_set (dir, member, json_node_init_array (json_node_alloc (), array));
  json_array_unref (array);
}

static void
manifest_set (const char *dir,
              const char *member,
              JsonNode   *value)
{
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonObject) manifest = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  manifest = zot_json_object_from_string (contents, &error);
  g_assert_no_error (error);
  json_object_set_member (manifest, member, value);
  root = json_node_init_object (json_node_alloc (), manifest);
  json = json_to_string (root, TRUE);
  g_file_set_contents (path, json, -1, &error);
  g_assert_no_error (error);
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
  else if (g_async_result_is_tagged (result, zot_extension_stop_async))
    g_assert_true (zot_extension_stop_finish (ZOT_EXTENSION (object), result, NULL));
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

void
zot_test_stop_extension (ZotExtension *extension)
{
  gboolean done = FALSE;

  zot_extension_stop_async (extension, NULL, flag_cb, &done);
  zot_test_wait_for (&done, 20000);
}

typedef struct
{
  gboolean         done;
  ZotCommandReply *reply;
  GError          *error;
} CommandWait;

static void
command_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  CommandWait *wait = user_data;

  wait->reply = zot_extension_manager_run_command_finish (ZOT_EXTENSION_MANAGER (object), result,
                                                          &wait->error);
  wait->done = TRUE;
}

ZotCommandReply *
zot_test_run_command_reply (ZotExtensionManager  *manager,
                            const char           *name,
                            const char           *args,
                            GError              **error)
{
  CommandWait wait = { 0 };

  zot_extension_manager_run_command_async (manager, name, args, NULL, command_cb, &wait);
  zot_test_wait_for (&wait.done, 60000);

  g_assert_true ((wait.reply == NULL) != (wait.error == NULL));
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.reply;
}

gboolean
zot_test_run_command (ZotExtensionManager  *manager,
                      const char           *name,
                      const char           *args,
                      GError              **error)
{
  g_autoptr(ZotCommandReply) reply = zot_test_run_command_reply (manager, name, args, error);

  if (reply != NULL && zot_command_reply_get_error (reply) != NULL)
    g_propagate_error (error, g_error_copy (zot_command_reply_get_error (reply)));
  return reply != NULL && zot_command_reply_get_error (reply) == NULL;
}

guint
zot_test_count (const char *text,
                const char *needle)
{
  guint n = 0;

  g_assert (*needle != '\0');
  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + strlen (needle), needle))
    n++;
  return n;
}

char *
zot_test_read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  return contents;
}

static char *saved_path;

char *
zot_test_fake_sandbox_begin (const char *root)
{
  g_autofree char *bin = g_build_filename (root, "fake-bin", NULL);
  g_autofree char *link = g_build_filename (bin, "flatpak-spawn", NULL);
  g_autofree char *marker = g_build_filename (root, "flatpak-info", NULL);
  g_autofree char *path = NULL;
  const char *script = g_test_get_filename (G_TEST_DIST, "fake-flatpak-spawn.py", NULL);
  char *log = g_build_filename (root, "flatpak-spawn.log", NULL);

  g_assert_null (saved_path);
  g_assert_cmpint (g_mkdir_with_parents (bin, 0700), ==, 0);
  g_assert_cmpint (symlink (script, link), ==, 0);
  g_assert_true (g_file_set_contents (marker, "[Application]\nname=dev.zot.Zot\n", -1, NULL));
  _zot_flatpak_set_info_path_for_testing (marker);

  saved_path = g_strdup (g_getenv ("PATH"));
  path = g_strconcat (bin, ":", saved_path, NULL);
  g_setenv ("PATH", path, TRUE);
  g_setenv ("ZOT_FAKE_FLATPAK_SPAWN_LOG", log, TRUE);
  return log;
}

void
zot_test_fake_sandbox_end (void)
{
  _zot_flatpak_set_info_path_for_testing (NULL);
  g_setenv ("PATH", saved_path, TRUE);
  g_clear_pointer (&saved_path, g_free);
  g_unsetenv ("ZOT_FAKE_FLATPAK_SPAWN_LOG");
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

static void
record_event (ZotExtensionManager *manager,
              const char          *name,
              JsonObject          *frame,
              GPtrArray           *events)
{
  g_ptr_array_add (events, json_object_ref (frame));
}

void
zot_test_record_events (ZotExtensionManager *manager,
                        GPtrArray           *events)
{
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (record_event), events);
}

static void
record_note (ZotExtensionManager *manager,
             ZotExtension        *extension,
             const char          *level,
             const char          *message,
             GPtrArray           *notes)
{
  g_ptr_array_add (notes, g_strdup_printf ("%s: %s", level, message));
}

void
zot_test_record_notes (ZotExtensionManager *manager,
                       GPtrArray           *notes)
{
  g_signal_connect (manager, "note-added", G_CALLBACK (record_note), notes);
}

JsonObject *
zot_test_find_event (GPtrArray  *events,
                     const char *name,
                     const char *tool_id)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (g_str_equal (json_object_get_string_member_with_default (event, "event", ""), name) &&
          (tool_id == NULL ||
           g_strcmp0 (json_object_get_string_member_with_default (event, "tool_id", ""), tool_id) == 0))
        return event;
    }
  return NULL;
}

const char *
zot_test_model_call_id (GPtrArray  *events,
                        const char *tool)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (g_str_equal (json_object_get_string_member_with_default (event, "event", ""), "tool_call") &&
          g_str_equal (json_object_get_string_member_with_default (event, "tool_name", ""), tool) &&
          !json_object_has_member (event, "origin_extension"))
        return json_object_get_string_member (event, "tool_id");
    }
  g_error ("no model call of %s", tool);
}

/* ------------------------------------------------------------------ */
/* JSON by path                                                        */
/* ------------------------------------------------------------------ */

JsonNode *
zot_test_json_node_at (JsonObject *root,
                       const char *path)
{
  g_auto(GStrv) steps = NULL;
  g_autoptr(JsonNode) top = NULL;
  JsonNode *node;

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  steps = g_strsplit (path, "/", -1);
  top = json_node_init_object (json_node_alloc (), root);
  node = top;

  for (guint i = 0; steps[i] != NULL && node != NULL; i++)
    {
      if (JSON_NODE_HOLDS_OBJECT (node))
        node = json_object_get_member (json_node_get_object (node), steps[i]);
      else if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *array = json_node_get_array (node);
          guint64 index;

          if (!g_ascii_string_to_unsigned (steps[i], 10, 0, G_MAXUINT, &index, NULL) ||
              index >= json_array_get_length (array))
            return NULL;
          node = json_array_get_element (array, index);
        }
      else
        return NULL;
    }

  /* Borrowed from @root: the wrapper node only refs it. */
  return node == top ? NULL : node;
}

const char *
zot_test_json_string_at (JsonObject *root,
                         const char *path)
{
  JsonNode *node = zot_test_json_node_at (root, path);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_test_message ("no string at %s", path);
      return NULL;
    }
  return json_node_get_string (node);
}

gint64
zot_test_json_int_at (JsonObject *root,
                      const char *path)
{
  JsonNode *node = zot_test_json_node_at (root, path);

  g_assert_nonnull (node);
  return json_node_get_int (node);
}

guint
zot_test_json_length_at (JsonObject *root,
                         const char *path)
{
  JsonNode *node = zot_test_json_node_at (root, path);

  g_assert_nonnull (node);
  if (JSON_NODE_HOLDS_ARRAY (node))
    return json_array_get_length (json_node_get_array (node));
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_get_size (json_node_get_object (node));
}

JsonObject *
zot_test_json_object_from (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonObject *object = zot_json_object_from_string (json, &error);

  g_assert_no_error (error);
  return object;
}

void
zot_test_truncate_events (GStrv events,
                          guint keep)
{
  g_assert_cmpuint (keep, <, g_strv_length (events));
  for (guint i = keep; events[i] != NULL; i++)
    g_clear_pointer (&events[i], g_free);
}

/* ------------------------------------------------------------------ */
/* A provider against the fake server                                  */
/* ------------------------------------------------------------------ */

/* How long a request may take before the test fails: a safety net, never
 * what a test waits for. */
#define PROVIDER_SAFETY_MS 10000

static void
provider_text_delta_cb (ZotProvider     *provider,
                        const char      *delta,
                        ZotTestProvider *self)
{
  g_ptr_array_add (self->text_deltas, g_strdup (delta));
  if (self->cancel_on_delta && self->cancelled_at == 0)
    {
      self->cancelled_at = g_get_monotonic_time ();
      g_cancellable_cancel (self->cancellable);
    }
}

static void
provider_tool_call_delta_cb (ZotProvider     *provider,
                             guint            index,
                             const char      *id,
                             const char      *name,
                             const char      *arguments,
                             ZotTestProvider *self)
{
  g_ptr_array_add (self->tool_deltas,
                   g_strdup_printf ("%u|%s|%s|%s", index, id ? id : "", name ? name : "",
                                    arguments ? arguments : ""));
}

static void
provider_stream_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ZotTestProvider *self = user_data;

  self->reply = zot_provider_stream_finish (ZOT_PROVIDER (object), result, &self->error);
  g_assert_true ((self->reply == NULL) != (self->error == NULL));
  if (self->error != NULL)
    g_test_message ("error: %s", self->error->message);
  self->done = TRUE;
}

ZotProvider *
zot_test_provider_make (ZotTestProvider *self,
                        const char      *base_url,
                        const char      *key,
                        const char      *key_source)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  ZotProvider *provider;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (self->provider_new != NULL, NULL);

  config.name = g_strdup (self->name);
  config.base_url = g_strdup (base_url);
  config.api_key = g_strdup (key);
  config.api_key_source = g_strdup (key_source);
  provider = self->provider_new (&config, &error);
  g_assert_no_error (error);
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (provider, self->provider_type));

  g_signal_connect (provider, "text-delta", G_CALLBACK (provider_text_delta_cb), self);
  g_signal_connect (provider, "tool-call-delta", G_CALLBACK (provider_tool_call_delta_cb), self);
  return provider;
}

void
zot_test_provider_setup (ZotTestProvider    *self,
                         const char         *name,
                         GType               provider_type,
                         ZotTestProviderNew  provider_new,
                         const char         *api_key)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (provider_new != NULL);

  self->name = name;
  self->provider_type = provider_type;
  self->provider_new = provider_new;

  self->server = zot_fake_server_new ();
  self->cancellable = g_cancellable_new ();
  self->text_deltas = g_ptr_array_new_with_free_func (g_free);
  self->tool_deltas = g_ptr_array_new_with_free_func (g_free);
  self->provider = zot_test_provider_make (self, zot_fake_server_get_url (self->server),
                                           api_key, "--api-key");
}

void
zot_test_provider_teardown (ZotTestProvider *self)
{
  g_return_if_fail (self != NULL);

  for (guint t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);

  g_assert_finalize_object (self->provider);
  g_clear_pointer (&self->reply, zot_provider_reply_free);
  g_clear_error (&self->error);
  g_clear_object (&self->cancellable);
  g_ptr_array_unref (self->text_deltas);
  g_ptr_array_unref (self->tool_deltas);
  zot_fake_server_free (self->server);

  /* Let libsoup finish closing connections before the next test. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

ZotProviderRequest *
zot_test_provider_request_new (const char *text)
{
  ZotProviderRequest *request = zot_provider_request_new ();

  request->messages = json_array_new ();
  json_array_add_object_element (request->messages, zot_message_new_user_text (text));
  return request;
}

void
zot_test_provider_start (ZotTestProvider    *self,
                         ZotProviderRequest *request)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (request != NULL);

  self->done = FALSE;
  zot_provider_stream_async (self->provider, request, self->cancellable,
                             provider_stream_cb, self);
}

void
zot_test_provider_run_request (ZotTestProvider    *self,
                               ZotProviderRequest *request)
{
  zot_test_provider_start (self, request);
  zot_test_wait_for (&self->done, PROVIDER_SAFETY_MS);
}

void
zot_test_provider_run (ZotTestProvider *self)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("hi");

  zot_test_provider_run_request (self, request);
}

void
zot_test_provider_push_events (ZotTestProvider *self,
                               GStrv            events,
                               gboolean         cut)
{
  g_return_if_fail (self != NULL);

  zot_fake_server_push_sse (self->server, (const char * const *) events, cut);
  g_strfreev (events);
}

char *
zot_test_provider_joined_text (ZotTestProvider *self)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < self->text_deltas->len; i++)
    g_string_append (text, g_ptr_array_index (self->text_deltas, i));
  return g_string_free (text, FALSE);
}

char *
zot_test_provider_joined_tool_arguments (ZotTestProvider *self,
                                         guint            index)
{
  GString *text = g_string_new (NULL);
  g_autofree char *prefix = g_strdup_printf ("%u|", index);

  for (guint i = 0; i < self->tool_deltas->len; i++)
    {
      const char *delta = g_ptr_array_index (self->tool_deltas, i);

      if (g_str_has_prefix (delta, prefix))
        g_string_append (text, strrchr (delta, '|') + 1);
    }
  return g_string_free (text, FALSE);
}

JsonObject *
zot_test_provider_reply_block (ZotTestProvider *self,
                               guint            index)
{
  JsonArray *content;

  g_assert_nonnull (self->reply);
  content = json_object_get_array_member (self->reply->message, "content");
  g_assert_cmpuint (index, <, json_array_get_length (content));
  return json_array_get_object_element (content, index);
}

static void
authorize_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ZotTestAuthorize *out = user_data;

  out->decision = zot_extension_manager_authorize_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  out->done = TRUE;
}

void
zot_test_authorize (ZotExtensionManager *manager,
                    const char          *tool,
                    const char          *command,
                    const ZotCallOrigin *origin,
                    GCancellable        *cancellable,
                    ZotTestAuthorize    *out)
{
  zot_test_authorize_full (manager, tool, command, TRUE, origin, cancellable, out);
}

void
zot_test_authorize_full (ZotExtensionManager *manager,
                         const char          *tool,
                         const char          *command,
                         gboolean             requires_approval,
                         const ZotCallOrigin *origin,
                         GCancellable        *cancellable,
                         ZotTestAuthorize    *out)
{
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_string_member (args, "command", command);
  zot_extension_manager_authorize_async (manager, tool, tool, args, requires_approval, origin,
                                         cancellable, authorize_cb, out);
}

static void
demo_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_assert_true (zot_host_load_finish (ZOT_HOST (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

ZotHost *
zot_test_demo_host (ZotTestEnv *env)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;
  ZotHost *host;

  options.cwd = g_strdup (env->cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.no_ext = TRUE;
  options.interactive = TRUE;

  host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_load_async (host, NULL, demo_loaded_cb, &done);
  zot_test_wait_for (&done, 30000);
  zot_host_begin_session (host);
  zot_extension_manager_set_policy (zot_host_get_manager (host), ZOT_APPROVAL_POLICY_ASK);
  return host;
}

/**
 * zot_test_nested_json:
 * @depth: how many arrays to open inside @prefix
 *
 * @prefix, @depth nested arrays around a 1, then @suffix: for the nesting
 * bound. "{\"type\":\"x\",\"v\":" with depth 255 nests 256 deep.
 */
char *
zot_test_nested_json (const char *prefix,
                      guint       depth,
                      const char *suffix)
{
  GString *text = g_string_new (prefix);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  g_string_append_c (text, '1');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, ']');
  g_string_append (text, suffix);

  return g_string_free (text, FALSE);
}

static void
host_shut_down_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

/**
 * zot_test_finalize_host:
 * @host: (inout): a host; %NULL afterwards
 *
 * Shuts the host down gracefully (its extensions, its subagents), then
 * checks that dropping the test's reference finalizes it: nothing else
 * may hold it. Signal handlers the test connected must be gone first.
 */
void
zot_test_finalize_host (ZotHost **host)
{
  gboolean done = FALSE;

  if (*host == NULL)
    return;

  zot_host_shutdown_async (*host, NULL, host_shut_down_cb, &done);
  zot_test_wait_for (&done, 30000);
  g_assert_finalize_object (g_steal_pointer (host));
}

char *
zot_test_record_path (ZotTestEnv *env,
                      const char *name)
{
  g_autofree char *base = g_strdup_printf ("%s.jsonl", name);
  return g_build_filename (env->root, base, NULL);
}

char *
zot_test_make_recording_fake (ZotTestEnv *env,
                              const char *name,
                              ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *record = zot_test_record_path (env, name);
  const char *arg;
  va_list ap;

  g_ptr_array_add (args, (gpointer) "--record");
  g_ptr_array_add (args, record);
  va_start (ap, name);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  return zot_test_make_fake (env->root, name, (const char * const *) args->pdata);
}

void
zot_test_submit_clear (ZotTestSubmit *submit)
{
  submit->done = FALSE;
  submit->ok = FALSE;
  g_clear_pointer (&submit->text, g_free);
  g_clear_error (&submit->error);
}

void
zot_test_submit_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ZotTestSubmit *submit = user_data;

  submit->ok = zot_host_submit_finish (ZOT_HOST (object), result, &submit->text, &submit->error);
  submit->done = TRUE;
}

void
zot_test_submit_start (ZotHost       *host,
                       const char    *text,
                       ZotTestSubmit *out)
{
  zot_test_submit_clear (out);
  zot_host_submit_async (host, text, NULL, zot_test_submit_cb, out);
}

void
zot_test_submit (ZotHost       *host,
                 const char    *text,
                 ZotTestSubmit *out)
{
  zot_test_submit_start (host, text, out);
  zot_test_wait_for (&out->done, 60000);
}

static void
host_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

void
zot_test_load_host (ZotHost *host)
{
  gboolean done = FALSE;

  zot_host_load_async (host, NULL, host_loaded_cb, &done);
  zot_test_wait_for (&done, 30000);
}

guint
zot_test_count_entries (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint count = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    count++;
  return count;
}

void
zot_test_run_clear (ZotTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

static void
run_communicated_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  ZotTestRun *run = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run->done = TRUE;
}

void
zot_test_run_argv (ZotTestRun           *run,
                   const char           *cwd,
                   const char * const   *env,
                   GSpawnChildSetupFunc  setup,
                   guint                 timeout_ms,
                   const char * const   *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C", TRUE);
  for (guint i = 0; env != NULL && env[i] != NULL; i += 2)
    {
      if (env[i + 1] != NULL)
        g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, env[i]);
    }
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  if (setup != NULL)
    g_subprocess_launcher_set_child_setup (launcher, setup, NULL, NULL);

  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);

  zot_test_run_clear (run);
  run->done = FALSE;
  g_subprocess_communicate_utf8_async (process, NULL, NULL, run_communicated_cb, run);
  zot_test_wait_for (&run->done, timeout_ms);
  g_subprocess_wait (process, NULL, NULL);
  g_assert_true (g_subprocess_get_if_exited (process));
  run->status = g_subprocess_get_exit_status (process);
}

/* An agent of the fake server */

ZotProvider *
zot_test_agent_provider (ZotTestAgent *self,
                         const char   *provider,
                         const char   *model)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  ZotProvider *made;

  config.name = g_strdup (provider);
  config.base_url = g_strdup (zot_fake_server_get_url (self->server));
  config.api_key = g_strdup ("key-test");
  config.model = g_strdup (model);
  made = zot_provider_new_for_config (&config, &error);
  g_assert_no_error (error);
  return made;
}

void
zot_test_agent_setup (ZotTestAgent *self,
                      const char   *provider,
                      const char   *model)
{
  g_autoptr(GPtrArray) builtins = zot_builtin_tools_new ();
  g_autofree char *hello = NULL;

  zot_test_env_setup (&self->env);
  self->server = zot_fake_server_new ();
  self->provider = zot_test_agent_provider (self, provider, model);

  self->registry = zot_tool_registry_new ();
  for (guint i = 0; i < builtins->len; i++)
    g_assert_true (zot_tool_registry_add (self->registry, g_ptr_array_index (builtins, i), NULL));

  hello = g_build_filename (self->env.cwd, "hello.txt", NULL);
  g_assert_true (g_file_set_contents (hello, "hi from disk", -1, NULL));
}

void
zot_test_agent_close (ZotTestAgent *self)
{
  if (self->agent != NULL)
    g_assert_finalize_object (g_steal_pointer (&self->agent));
  if (self->session != NULL)
    g_assert_finalize_object (g_steal_pointer (&self->session));
}

/* The agent and its provider go before the server, so that their
 * requests are over when it stops. */
void
zot_test_agent_teardown (ZotTestAgent *self)
{
  zot_test_agent_close (self);
  g_assert_finalize_object (g_steal_pointer (&self->provider));
  g_clear_object (&self->registry);
  zot_fake_server_free (self->server);
  g_clear_pointer (&self->final_text, g_free);
  g_clear_error (&self->error);
  zot_test_env_teardown (&self->env);
}

void
zot_test_agent_open (ZotTestAgent *self,
                     ZotSession   *session)
{
  self->session = session;
  self->agent = zot_agent_new (self->provider, self->registry, self->session);
}

void
zot_test_agent_prompt_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  ZotTestAgent *self = user_data;

  self->final_text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &self->error);
  self->done = TRUE;
}

void
zot_test_agent_wait (ZotTestAgent *self)
{
  zot_test_wait_for (&self->done, 30000);
  g_assert_no_error (self->error);
  self->done = FALSE;
}

void
zot_test_agent_prompt (ZotTestAgent *self,
                       const char   *text)
{
  g_clear_pointer (&self->final_text, g_free);
  zot_agent_prompt_async (self->agent, text, NULL, zot_test_agent_prompt_cb, self);
  zot_test_agent_wait (self);
}

char *
zot_test_describe_session (ZotSession *session)
{
  GPtrArray *messages = zot_session_get_messages (session);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < messages->len; i++)
    {
      g_autofree char *text = zot_message_get_text (g_ptr_array_index (messages, i));

      g_string_append_printf (out, "%s%s:%s", i > 0 ? " " : "",
                              zot_message_get_role (g_ptr_array_index (messages, i)), text);
    }
  return g_strdup (out->str);
}

char *
zot_test_describe_session_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotSession) session = zot_session_open_read_only (path, &error);

  g_assert_no_error (error);
  return zot_test_describe_session (session);
}
