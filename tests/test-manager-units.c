/* test-manager-units.c — the extension manager's decisions, one unit at a
 * time and without a process: load order, command routes, the folds of
 * the interception chains, event lines and the approval policy. The
 * same decisions against real processes are in test-manager.c. */
#include "config.h"

#include <string.h>

#include "zot-error.h"
#include "zot-extension-manager-private.h"
#include "zot-limits.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv           env;
  ZotExtensionManager *manager;
  /* The frames of ::lifecycle-event, in order. */
  GPtrArray           *events;
} Fixture;

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    Fixture             *f)
{
  g_ptr_array_add (f->events, json_object_ref (frame));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->manager = zot_extension_manager_new ();
  zot_extension_manager_set_cwd (f->manager, f->env.cwd);
  g_signal_connect (f->manager, "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_finalize_object (g_steal_pointer (&f->manager));
  g_ptr_array_unref (f->events);
  zot_test_env_teardown (&f->env);
}

/* An extension that is never started: what the manager knows of one
 * before its process says anything. */
static ZotExtension *
unstarted_extension (Fixture    *f,
                     const char *name,
                     const char *extra_members)
{
  g_autofree char *json = g_strdup_printf ("{\"name\": \"%s\", \"exec\": \"./run\"%s}",
                                           name, extra_members ? extra_members : "");
  g_autofree char *dir = g_build_filename (f->env.root, name, NULL);
  g_autoptr(JsonObject) ack = json_object_new ();
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = zot_manifest_new_from_data (dir, json, -1, &error);
  g_assert_no_error (error);
  json_object_set_string_member (ack, "type", "hello_ack");
  return zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_EXPLICIT, ack);
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_assert_true (zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

static void
load (Fixture            *f,
      const char * const *paths)
{
  gboolean done = FALSE;

  zot_extension_manager_set_explicit_paths (f->manager, paths);
  zot_extension_manager_load_async (f->manager, NULL, load_cb, &done);
  zot_test_wait_for (&done, 10000);
}

/* "name|scope" of every extension, in the manager's order. */
static char *
describe_order (ZotExtensionManager *manager)
{
  GListModel *model = G_LIST_MODEL (manager);
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (model, i);

      g_string_append_printf (text, "%s%s|%d", i > 0 ? " " : "",
                              zot_extension_get_name (extension),
                              zot_extension_get_scope (extension));
    }

  return g_strdup (text->str);
}

/* A disabled extension @name in @parent/@dirname: listed, never started. */
static char *
disabled (const char *parent,
          const char *dirname,
          const char *name)
{
  g_autofree char *json = g_strdup_printf ("{\"name\":\"%s\",\"exec\":\"x\","
                                           "\"enabled\":false}", name);

  return zot_test_make_manifest (parent, dirname, json);
}

/* Load order: explicit paths as given, then the project's extensions, then
 * the user's, each folder sorted by name; the first of a name wins. Every
 * extension here is disabled, so nothing is started. */
static void
test_load_order (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *project = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_autofree char *user = g_build_filename (f->env.home, "extensions", NULL);
  g_autofree char *zeta = disabled (f->env.root, "zeta", "zeta");
  g_autofree char *alpha = disabled (f->env.root, "alpha", "alpha");
  g_autofree char *order = NULL;
  g_autofree char *expected = NULL;

  g_free (disabled (project, "b-second", "beta"));
  g_free (disabled (project, "a-first", "gamma"));
  g_free (disabled (project, "c-again", "alpha"));
  g_free (disabled (user, "a-again", "beta"));
  g_free (disabled (user, "b-user", "delta"));

  load (f, (const char * const []) { zeta, alpha, NULL });

  order = describe_order (f->manager);
  expected = g_strdup_printf ("zeta|%d alpha|%d gamma|%d beta|%d delta|%d",
                              ZOT_EXTENSION_SCOPE_EXPLICIT, ZOT_EXTENSION_SCOPE_EXPLICIT,
                              ZOT_EXTENSION_SCOPE_PROJECT, ZOT_EXTENSION_SCOPE_PROJECT,
                              ZOT_EXTENSION_SCOPE_USER);
  g_assert_cmpstr (order, ==, expected);

  /* --no-ext keeps the explicit paths alone. */
  zot_extension_manager_set_no_ext (f->manager, TRUE);
  load (f, (const char * const []) { alpha, NULL });
  g_clear_pointer (&order, g_free);
  order = describe_order (f->manager);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("alpha|%d", ZOT_EXTENSION_SCOPE_EXPLICIT);
  g_assert_cmpstr (order, ==, expected);
}

/* An extension whose manifest could not be read is listed as failed, and
 * judges nothing: it cannot have declared "intercept_failure". */
static void
test_no_manifest_judges_nothing (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *broken = zot_test_make_manifest (f->env.root, "broken", "{\"name\": ");
  g_autofree char *guard = zot_test_make_manifest (f->env.root, "guard",
                                                   "{\"name\":\"guard\",\"exec\":\"x\","
                                                   "\"enabled\":false,"
                                                   "\"intercept_failure\":\"block\"}");

  load (f, (const char * const []) { broken, guard, NULL });
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->manager)), ==, 2);

  g_assert_false (zot_extension_manager_has_interceptors (f->manager, "tool_call"));
  g_assert_false (zot_extension_manager_has_interceptors (f->manager, "turn_start"));
}

/* Commands are claimed in load order: built-ins first, then the first
 * extension to claim a name in any case. */
static void
test_command_claims (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(ZotExtension) first = unstarted_extension (f, "first", NULL);
  g_autoptr(ZotExtension) second = unstarted_extension (f, "second", NULL);
  g_autofree char *why = NULL;
  const char *canonical = NULL;

  g_assert_null (_zot_manager_claim_command (f->manager, first, "Todo"));

  why = _zot_manager_claim_command (f->manager, second, "TODO");
  g_assert_cmpstr (why, ==, "/Todo of first, earlier in the load order, wins");
  g_clear_pointer (&why, g_free);

  why = _zot_manager_claim_command (f->manager, second, "Help");
  g_assert_cmpstr (why, ==, "the built-in /help wins");
  g_clear_pointer (&why, g_free);

  g_assert_null (_zot_manager_claim_command (f->manager, second, "other"));

  g_assert_true (zot_extension_manager_lookup_command (f->manager, "/tOdO", &canonical) == first);
  g_assert_cmpstr (canonical, ==, "Todo");
  g_assert_true (zot_extension_manager_lookup_command (f->manager, "OTHER", NULL) == second);
  g_assert_null (zot_extension_manager_lookup_command (f->manager, "help", NULL));
  g_assert_true (zot_extension_manager_is_builtin_command ("/Reload-Ext"));
  g_assert_false (zot_extension_manager_is_builtin_command ("todo"));
}

static void
on_panel_signal (ZotExtensionManager *manager,
                 ZotExtension        *extension,
                 ZotPanel            *panel,
                 GString             *seen)
{
  g_string_append_printf (seen, "%s:%s ",
                          zot_extension_get_name (extension), zot_panel_get_title (panel));
}

static gboolean
handle (Fixture      *f,
        ZotExtension *extension,
        const char   *frame)
{
  g_autoptr(JsonObject) object = zot_test_json_object_from (frame);

  return _zot_manager_handle_frame (f->manager, extension, object);
}

/* The frames the manager takes from an extension, by type; any other
 * type is left to the extension object. */
static void
test_frame_table (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(ZotExtension) owner = unstarted_extension (f, "owner", NULL);
  g_autoptr(ZotExtension) other = unstarted_extension (f, "other", NULL);
  g_autoptr(JsonObject) description = zot_test_json_object_from ("{\"id\":\"p\",\"title\":\"One\","
                                                                 "\"lines\":[\"a\"]}");
  g_autoptr(GString) seen = g_string_new (NULL);

  g_signal_connect (f->manager, "panel-opened", G_CALLBACK (on_panel_signal), seen);
  g_signal_connect (f->manager, "panel-updated", G_CALLBACK (on_panel_signal), seen);
  g_signal_connect (f->manager, "panel-closed", G_CALLBACK (on_panel_signal), seen);

  g_assert_false (handle (f, owner, "{\"type\":\"some_later_frame\",\"text\":\"hi\"}"));
  /* submit and submit_slash are the manager's; with no view to take them
   * they are logged and ignored. */
  g_assert_true (handle (f, owner, "{\"type\":\"submit\",\"text\":\"hi\"}"));
  g_assert_true (handle (f, owner, "{\"type\":\"submit_slash\",\"text\":\"/hi\"}"));
  g_assert_false (handle (f, owner, "{\"type\":\"Panel_Render\",\"panel_id\":\"p\"}"));

  /* Unknown panels, someone else's included, are the manager's to ignore. */
  g_assert_true (handle (f, owner, "{\"type\":\"panel_render\",\"panel_id\":\"p\","
                                   "\"title\":\"X\"}"));
  g_assert_true (handle (f, owner, "{\"type\":\"panel_close\"}"));
  g_assert_cmpstr (seen->str, ==, "");

  _zot_manager_open_panel (f->manager, owner, description);
  g_assert_true (handle (f, other, "{\"type\":\"panel_render\",\"panel_id\":\"p\","
                                   "\"title\":\"X\"}"));
  g_assert_true (handle (f, other, "{\"type\":\"panel_close\",\"panel_id\":\"p\"}"));
  g_assert_true (handle (f, owner, "{\"type\":\"panel_render\",\"panel_id\":\"p\","
                                   "\"title\":\"Two\"}"));
  g_assert_cmpuint (zot_extension_manager_list_panels (f->manager)->len, ==, 1);
  g_assert_true (handle (f, owner, "{\"type\":\"panel_close\",\"panel_id\":\"p\"}"));
  g_assert_cmpstr (seen->str, ==, "owner:One owner:Two owner:Two ");
  g_assert_cmpuint (zot_extension_manager_list_panels (f->manager)->len, ==, 0);

  /* call_tool is refused, even without an id to answer. */
  g_assert_true (handle (f, owner, "{\"type\":\"call_tool\",\"id\":\"r1\",\"name\":\"read\"}"));
  g_assert_true (handle (f, owner, "{\"type\":\"call_tool\"}"));

  g_signal_handlers_disconnect_by_data (f->manager, seen);
}

static ZotCommandReply *
read_reply (Fixture      *f,
            ZotExtension *extension,
            const char   *frame)
{
  g_autoptr(JsonObject) object = zot_test_json_object_from (frame);

  return _zot_manager_read_command_reply (f->manager, extension, "todo", object);
}

/* A command's reply, typed, for every action an interactive host takes;
 * 0 for no error, else a ZotProtocolError code. */
static void
test_command_reply_kinds (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(ZotExtension) todo = unstarted_extension (f, "todo", NULL);
  static const struct {
    const char          *frame;
    ZotCommandReplyKind  kind;
    const char          *text;
    int                  error;
  } cases[] = {
    { "{}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    { "{\"action\":\"noop\"}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    { "{\"action\":7,\"display\":\"x\"}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    { "{\"action\":\"display\",\"display\":\"shown\"}", ZOT_COMMAND_REPLY_DISPLAY, "shown", 0 },
    { "{\"action\":\"display\",\"display\":\"\"}", ZOT_COMMAND_REPLY_DISPLAY, "", 0 },
    { "{\"action\":\"display\",\"display\":[\"x\"]}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    { "{\"action\":\"insert\",\"insert\":\"typed\"}", ZOT_COMMAND_REPLY_INSERT, "typed", 0 },
    { "{\"action\":\"prompt\",\"prompt\":\"a poem\"}", ZOT_COMMAND_REPLY_PROMPT, "a poem", 0 },
    { "{\"action\":\"prompt\",\"prompt\":\"\"}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    { "{\"action\":\"prompt\"}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    /* The error line comes with the action, or alone. */
    { "{\"action\":\"display\",\"display\":\"half\",\"error\":\"disk on fire\"}",
      ZOT_COMMAND_REPLY_DISPLAY, "half", ZOT_PROTOCOL_ERROR_COMMAND_FAILED },
    { "{\"action\":\"prompt\",\"prompt\":\"go\",\"error\":\"disk on fire\"}",
      ZOT_COMMAND_REPLY_PROMPT, "go", ZOT_PROTOCOL_ERROR_COMMAND_FAILED },
    { "{\"action\":\"noop\",\"error\":\"disk on fire\"}",
      ZOT_COMMAND_REPLY_ERROR, NULL, ZOT_PROTOCOL_ERROR_COMMAND_FAILED },
    { "{\"error\":\"disk on fire\"}",
      ZOT_COMMAND_REPLY_ERROR, NULL, ZOT_PROTOCOL_ERROR_COMMAND_FAILED },
    { "{\"action\":\"noop\",\"error\":\"\"}", ZOT_COMMAND_REPLY_NOOP, NULL, 0 },
    /* What cannot be done is an error, whatever else the reply says. */
    { "{\"action\":\"frobnicate\",\"error\":\"x\"}",
      ZOT_COMMAND_REPLY_ERROR, NULL, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION },
    { "{\"action\":\"open_panel\",\"open_panel\":\"p\"}",
      ZOT_COMMAND_REPLY_ERROR, NULL, ZOT_PROTOCOL_ERROR_BAD_REPLY },
    { "{\"action\":\"tool_prompt\",\"prompt\":\"p\",\"tool_name\":\"bash\",\"tool_args\":[]}",
      ZOT_COMMAND_REPLY_ERROR, NULL, ZOT_PROTOCOL_ERROR_BAD_REPLY },
    { "{\"action\":\"tool_prompt\",\"prompt\":\"\",\"tool_name\":\"bash\",\"tool_args\":{}}",
      ZOT_COMMAND_REPLY_ERROR, NULL, ZOT_PROTOCOL_ERROR_BAD_REPLY },
  };

  zot_extension_manager_set_interactive (f->manager, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(ZotCommandReply) reply = read_reply (f, todo, cases[i].frame);

      g_test_message ("%s", cases[i].frame);
      g_assert_cmpint (zot_command_reply_get_kind (reply), ==, cases[i].kind);
      g_assert_cmpstr (zot_command_reply_get_text (reply), ==, cases[i].text);
      g_assert_true (zot_command_reply_get_extension (reply) == todo);
      g_assert_cmpstr (zot_command_reply_get_command (reply), ==, "todo");
      g_assert_null (zot_command_reply_get_panel (reply));
      if (cases[i].error == 0)
        g_assert_no_error (zot_command_reply_get_error (reply));
      else
        g_assert_error (zot_command_reply_get_error (reply), ZOT_PROTOCOL_ERROR, cases[i].error);
    }
}

static void
test_command_reply_tool_prompt (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(ZotExtension) git = unstarted_extension (f, "git", NULL);
  g_autoptr(ZotCommandReply) reply = NULL;

  zot_extension_manager_set_interactive (f->manager, TRUE);
  reply = read_reply (f, git, "{\"action\":\"tool_prompt\",\"prompt\":\"and push\","
                              "\"tool_name\":\"bash\",\"tool_args\":{\"command\":\"git push\"},"
                              "\"error\":\"late\"}");

  g_assert_cmpint (zot_command_reply_get_kind (reply), ==, ZOT_COMMAND_REPLY_TOOL_PROMPT);
  g_assert_cmpstr (zot_command_reply_get_text (reply), ==, "and push");
  g_assert_cmpstr (zot_command_reply_get_tool_name (reply), ==, "bash");
  g_assert_cmpstr (zot_test_json_string_at (zot_command_reply_get_tool_args (reply), "command"), ==,
                   "git push");
  g_assert_error (zot_command_reply_get_error (reply), ZOT_PROTOCOL_ERROR,
                  ZOT_PROTOCOL_ERROR_COMMAND_FAILED);
  g_assert_cmpstr (zot_command_reply_get_error (reply)->message, ==, "/todo: late");
}

/* The manager opens the panel itself; the reply says which. */
static void
test_command_reply_panel (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(ZotExtension) todo = unstarted_extension (f, "todo", NULL);
  g_autoptr(ZotCommandReply) first = NULL;
  g_autoptr(ZotCommandReply) again = NULL;
  g_autoptr(GString) seen = g_string_new (NULL);

  g_signal_connect (f->manager, "panel-opened", G_CALLBACK (on_panel_signal), seen);
  g_signal_connect (f->manager, "panel-updated", G_CALLBACK (on_panel_signal), seen);
  zot_extension_manager_set_interactive (f->manager, TRUE);

  first = read_reply (f, todo, "{\"action\":\"open_panel\",\"open_panel\":"
                               "{\"id\":\"list\",\"title\":\"Todo\",\"lines\":[\"a\"]}}");
  g_assert_cmpint (zot_command_reply_get_kind (first), ==, ZOT_COMMAND_REPLY_PANEL);
  g_assert_cmpstr (zot_panel_get_title (zot_command_reply_get_panel (first)), ==, "Todo");
  g_assert_no_error (zot_command_reply_get_error (first));

  again = read_reply (f, todo, "{\"action\":\"open_panel\",\"open_panel\":"
                               "{\"id\":\"list\",\"title\":\"Todo 2\",\"lines\":[]}}");
  g_assert_true (zot_command_reply_get_panel (again) == zot_command_reply_get_panel (first));
  g_assert_cmpuint (zot_extension_manager_list_panels (f->manager)->len, ==, 1);
  g_assert_cmpstr (seen->str, ==, "todo:Todo todo:Todo 2 ");

  g_signal_handlers_disconnect_by_data (f->manager, seen);
}

/* Headless hosts have no panels and run no tool prompts. */
static void
test_command_reply_headless (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(ZotExtension) todo = unstarted_extension (f, "todo", NULL);
  static const char * const frames[] = {
    "{\"action\":\"open_panel\",\"open_panel\":{\"id\":\"p\",\"title\":\"T\",\"lines\":[]}}",
    "{\"action\":\"tool_prompt\",\"prompt\":\"p\",\"tool_name\":\"bash\",\"tool_args\":{}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      g_autoptr(ZotCommandReply) reply = read_reply (f, todo, frames[i]);

      g_assert_cmpint (zot_command_reply_get_kind (reply), ==, ZOT_COMMAND_REPLY_ERROR);
      g_assert_error (zot_command_reply_get_error (reply), ZOT_PROTOCOL_ERROR,
                      ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION);
      g_assert_nonnull (strstr (zot_command_reply_get_error (reply)->message, "needs the window"));
      g_assert_null (zot_command_reply_get_panel (reply));
      g_assert_null (zot_command_reply_get_tool_name (reply));
    }

  g_assert_cmpuint (zot_extension_manager_list_panels (f->manager)->len, ==, 0);
}

/* A reply is a boxed type that views may keep past the signal. */
static void
test_command_reply_boxed (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(ZotExtension) todo = unstarted_extension (f, "todo", NULL);
  ZotCommandReply *reply = read_reply (f, todo, "{\"action\":\"insert\",\"insert\":\"kept\"}");
  GValue value = G_VALUE_INIT;

  g_assert_true (G_TYPE_IS_BOXED (ZOT_TYPE_COMMAND_REPLY));
  g_value_init (&value, ZOT_TYPE_COMMAND_REPLY);
  g_value_set_boxed (&value, reply);
  zot_command_reply_unref (reply);

  reply = g_value_dup_boxed (&value);
  g_value_unset (&value);
  g_assert_cmpstr (zot_command_reply_get_text (reply), ==, "kept");
  zot_command_reply_unref (reply);
}

static ZotInterception *
interception_new (const char *payload)
{
  ZotInterception *result = g_new0 (ZotInterception, 1);

  result->payload = zot_test_json_object_from (payload);
  return result;
}

static gboolean
apply (ZotInterception *result,
       const char      *event,
       ZotExtension    *extension,
       const char      *reply)
{
  g_autoptr(JsonObject) object = zot_test_json_object_from (reply);

  return _zot_interception_apply_reply (result, event, extension, object);
}

/* tool_call: rewrites chain, so each interceptor sees the previous one's
 * arguments; a rewrite of the wrong type, and a block that is not the
 * boolean true, change nothing. */
static void
test_intercept_tool_call (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(ZotExtension) guard = unstarted_extension (f, "guard", NULL);
  g_autoptr(ZotInterception) result = interception_new ("{\"tool_name\":\"bash\","
                                                          "\"tool_args\":{\"command\":\"ls\"}}");

  g_assert_false (apply (result, "tool_call", guard, "{}"));
  g_assert_false (result->rewritten);

  g_assert_false (apply (result, "tool_call", guard,
                        "{\"modified_args\":{\"command\":\"ls -a\"}}"));
  g_assert_true (result->rewritten);
  g_assert_cmpstr (zot_test_json_string_at (result->payload, "tool_args/command"), ==, "ls -a");

  g_assert_false (apply (result, "tool_call", guard, "{\"modified_args\":\"rm -rf /\"}"));
  g_assert_false (apply (result, "tool_call", guard,
                        "{\"modified_args\":null,\"block\":\"true\"}"));
  g_assert_false (apply (result, "tool_call", guard, "{\"block\":1,\"reason\":\"no\"}"));
  g_assert_false (apply (result, "tool_call", guard, "{\"block\":false,\"reason\":\"no\"}"));
  g_assert_cmpstr (zot_test_json_string_at (result->payload, "tool_args/command"), ==, "ls -a");
  g_assert_cmpstr (zot_test_json_string_at (result->payload, "tool_name"), ==, "bash");
  g_assert_false (result->blocked);

  g_assert_false (apply (result, "tool_call", guard,
                        "{\"modified_args\":{\"command\":\"ls -l\"}}"));
  g_assert_cmpstr (zot_test_json_string_at (result->payload, "tool_args/command"), ==, "ls -l");
  g_assert_cmpuint (zot_test_json_length_at (result->payload, "tool_args"), ==, 1);

  /* A block ends the chain. */
  g_assert_true (apply (result, "tool_call", guard, "{\"block\":true,\"modified_args\":{}}"));
  g_assert_true (result->blocked);
  g_assert_cmpstr (zot_test_json_string_at (result->payload, "tool_args/command"), ==, "ls -l");
}

/* A block's reason is what the model reads; without a usable one, it is
 * still told why. */
static void
test_intercept_block_reason (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(ZotExtension) guard = unstarted_extension (f, "guard", NULL);
  static const struct {
    const char *reply;
    const char *reason;
  } cases[] = {
    { "{\"block\":true,\"reason\":\"not today\"}", "not today" },
    { "{\"block\":true}", "blocked by an extension" },
    { "{\"block\":true,\"reason\":\"\"}", "blocked by an extension" },
    { "{\"block\":true,\"reason\":[\"a\"]}", "blocked by an extension" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(ZotInterception) result = interception_new ("{\"step\":1}");

      g_assert_true (apply (result, "turn_start", guard, cases[i].reply));
      g_assert_true (result->blocked);
      g_assert_cmpstr (result->reason, ==, cases[i].reason);
      g_assert_cmpstr (result->blocked_by, ==, "guard");
    }
}

/* assistant_message takes replace_text; turn_start rewrites nothing. */
static void
test_intercept_rewrites_by_event (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(ZotExtension) editor = unstarted_extension (f, "editor", NULL);
  g_autoptr(ZotInterception) message = interception_new ("{\"text\":\"hello\"}");
  g_autoptr(ZotInterception) turn = interception_new ("{\"step\":2,\"tool_args\":{}}");

  g_assert_false (apply (message, "assistant_message", editor, "{\"replace_text\":7}"));
  g_assert_false (message->rewritten);
  g_assert_false (apply (message, "assistant_message", editor, "{\"replace_text\":\"hi\"}"));
  g_assert_false (apply (message, "assistant_message", editor, "{\"modified_args\":{\"x\":1}}"));
  g_assert_true (message->rewritten);
  g_assert_cmpstr (zot_test_json_string_at (message->payload, "text"), ==, "hi");
  g_assert_null (json_object_get_member (message->payload, "tool_args"));

  g_assert_false (apply (turn, "turn_start", editor, "{\"modified_args\":{\"x\":1},"
                                                     "\"replace_text\":\"no\"}"));
  g_assert_false (turn->rewritten);
  g_assert_cmpuint (zot_test_json_length_at (turn->payload, "tool_args"), ==, 0);
  g_assert_null (json_object_get_member (turn->payload, "text"));
}

static char *
prompt_fold (ZotExtension  *extension,
             const char    *reply,
             char         **prompt)
{
  g_autoptr(JsonObject) object = zot_test_json_object_from (reply);

  return _zot_before_agent_start_apply_reply (extension, object, prompt);
}

/* before_agent_start: a string is used exactly, "" included; an omitted
 * one keeps the prompt; anything else keeps it with a warning. */
static void
test_before_agent_start_fold (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(ZotExtension) hook = unstarted_extension (f, "hook", NULL);
  g_autofree char *prompt = g_strdup ("base");
  g_autofree char *warning = NULL;
  g_autoptr(JsonObject) reply = json_object_new ();
  g_autofree char *big = NULL;

  g_assert_null (prompt_fold (hook, "{\"block\":true}", &prompt));
  g_assert_cmpstr (prompt, ==, "base");

  g_assert_null (prompt_fold (hook, "{\"system_prompt\":\"  spaced \\n\"}", &prompt));
  g_assert_cmpstr (prompt, ==, "  spaced \n");

  warning = prompt_fold (hook, "{\"system_prompt\":{\"text\":\"x\"}}", &prompt);
  g_assert_cmpstr (warning, ==, "hook: before_agent_start answered a system_prompt that is not a "
                                "string; the system prompt was kept");
  g_assert_cmpstr (prompt, ==, "  spaced \n");
  g_clear_pointer (&warning, g_free);

  warning = prompt_fold (hook, "{\"system_prompt\":null}", &prompt);
  g_assert_nonnull (warning);
  g_clear_pointer (&warning, g_free);

  g_assert_null (prompt_fold (hook, "{\"system_prompt\":\"\"}", &prompt));
  g_assert_cmpstr (prompt, ==, "");

  /* The limit counts the encoded string, quotes included. */
  big = g_strnfill (ZOT_SYSTEM_PROMPT_MAX_BYTES - 2, 'a');
  json_object_set_string_member (reply, "system_prompt", big);
  g_assert_null (_zot_before_agent_start_apply_reply (hook, reply, &prompt));
  g_assert_cmpuint (strlen (prompt), ==, ZOT_SYSTEM_PROMPT_MAX_BYTES - 2);

  g_clear_pointer (&big, g_free);
  big = g_strnfill (ZOT_SYSTEM_PROMPT_MAX_BYTES - 1, 'b');
  json_object_set_string_member (reply, "system_prompt", big);
  warning = _zot_before_agent_start_apply_reply (hook, reply, &prompt);
  g_assert_nonnull (strstr (warning, "over the 1 MiB limit"));
  g_assert_cmpint (prompt[0], ==, 'a');
}

static JsonObject *
event_line_object (Fixture    *f,
                   const char *name,
                   guint64     sequence,
                   const char *payload)
{
  g_autoptr(JsonObject) members = payload ? zot_test_json_object_from (payload) : NULL;
  g_autoptr(GBytes) bytes = _zot_manager_event_bytes (f->manager, name, sequence, members);
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);
  g_autofree char *line = NULL;

  /* One line, ending the frame. */
  g_assert_cmpuint (size, >, 1);
  g_assert_cmpint (data[size - 1], ==, '\n');
  g_assert_null (memchr (data, '\n', size - 1));
  line = g_strndup (data, size - 1);
  return zot_test_json_object_from (line);
}

/* Event lines, quick or not, read back as the frame the protocol
 * describes, whatever the names and texts hold. */
static void
test_event_lines (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(JsonObject) plain = NULL;
  g_autoptr(JsonObject) empty = NULL;
  g_autoptr(JsonObject) bare = NULL;
  g_autoptr(JsonObject) override = NULL;

  zot_extension_manager_set_session_id (f->manager, "s\"1\\\n");
  zot_extension_manager_set_cwd (f->manager, "/tmp/a \"quoted\" dir");

  plain = event_line_object (f, "turn_start", 7, "{\"step\":2,\"text\":\"é\\u0001\"}");
  g_assert_cmpstr (zot_test_json_string_at (plain, "type"), ==, "event");
  g_assert_cmpstr (zot_test_json_string_at (plain, "event"), ==, "turn_start");
  g_assert_cmpstr (zot_test_json_string_at (plain, "session_id"), ==, "s\"1\\\n");
  g_assert_cmpstr (zot_test_json_string_at (plain, "cwd"), ==, "/tmp/a \"quoted\" dir");
  g_assert_cmpint (zot_test_json_int_at (plain, "sequence"), ==, 7);
  g_assert_cmpint (zot_test_json_int_at (plain, "step"), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (plain, "text"), ==, "é\001");
  g_assert_cmpuint (json_object_get_size (plain), ==, 7);

  empty = event_line_object (f, "odd \"name\"", G_MAXUINT64, "{}");
  g_assert_cmpstr (zot_test_json_string_at (empty, "event"), ==, "odd \"name\"");
  g_assert_cmpuint (json_object_get_size (empty), ==, 5);

  /* A subagent's events carry the conversation they started in. */
  override = event_line_object (f, "subagent_start", 1,
                                "{\"session_id\":\"parent\",\"agent_id\":\"a\"}");
  g_assert_cmpstr (zot_test_json_string_at (override, "session_id"), ==, "parent");
  g_assert_cmpstr (zot_test_json_string_at (override, "agent_id"), ==, "a");
  g_assert_cmpint (zot_test_json_int_at (override, "sequence"), ==, 1);

  bare = event_line_object (f, "session_start", 3, NULL);
  g_assert_cmpuint (json_object_get_size (bare), ==, 5);

  /* Numbered from 1 for this manager, whether or not anyone listens. */
  g_assert_cmpuint (zot_extension_manager_emit_event (f->manager, "session_start", NULL), ==, 1);
  g_assert_cmpuint (zot_extension_manager_emit_event (f->manager, "turn_start", NULL), ==, 2);
  g_assert_cmpuint (f->events->len, ==, 2);
  g_assert_cmpint (zot_test_json_int_at (g_ptr_array_index (f->events, 1), "sequence"), ==, 2);
}

typedef struct
{
  gboolean          taken;
  gboolean          resolve;
  ZotApprovalChoice choice;
  guint             n_asked;
  ZotApproval      *pending;
} Asker;

static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Asker               *asker)
{
  asker->n_asked++;
  if (!asker->taken)
    return FALSE;

  if (asker->resolve)
    zot_approval_resolve (approval, asker->choice);
  else
    g_set_object (&asker->pending, approval);
  return TRUE;
}

/* Authorizes a call of @tool and returns "decision|source", and "|reason"
 * when there is one. */
static char *
authorize (Fixture    *f,
           const char *tool,
           gboolean    requires_approval)
{
  ZotTestAuthorize out = { 0 };
  char *text;

  zot_test_authorize_full (f->manager, tool, "ls", requires_approval, NULL, NULL, &out);
  zot_test_wait_for (&out.done, 10000);
  g_assert_nonnull (out.decision);
  text = g_strdup_printf ("%s|%s%s%s", out.decision->decision, out.decision->source,
                          out.decision->reason ? "|" : "",
                          out.decision->reason ? out.decision->reason : "");
  zot_decision_free (out.decision);
  return text;
}

static void
assert_authorize (Fixture    *f,
                  const char *tool,
                  const char *expected)
{
  g_autofree char *decision = authorize (f, tool, TRUE);

  g_assert_cmpstr (decision, ==, expected);
}

/* What the policy decides before anyone is asked, and what is asked. */
static void
test_policy (Fixture       *f,
             gconstpointer  data)
{
  static const struct {
    ZotApprovalChoice  choice;     /* the answer, if the user is asked */
    const char        *tool;
    const char        *expected;
    guint              n_asked;    /* questions asked so far */
  } answers[] = {
    { ZOT_APPROVAL_ALLOW, "bash", "approved|user", 2 },
    { ZOT_APPROVAL_DENY, "bash", "denied|user|the user denied the call", 3 },
    { ZOT_APPROVAL_ALLOW_TOOL, "write", "approved|user", 4 },
    { ZOT_APPROVAL_DENY, "write", "approved|remembered", 4 },
    { ZOT_APPROVAL_DENY, "edit", "denied|user|the user denied the call", 5 },
    { ZOT_APPROVAL_ALLOW_ALL, "edit", "approved|user", 6 },
    { ZOT_APPROVAL_DENY, "anything", "approved|remembered", 6 },
  };
  Asker asker = { 0 };
  JsonObject *event;

  /* Headless hosts never ask. */
  assert_authorize (f, "bash", "approved|yolo");

  zot_extension_manager_set_interactive (f->manager, TRUE);
  g_signal_connect (f->manager, "approval-requested", G_CALLBACK (on_approval_requested), &asker);

  /* Asking, with no view that takes the question. */
  assert_authorize (f, "bash", "denied|policy|no one is there to confirm the call");
  g_assert_cmpuint (asker.n_asked, ==, 1);

  /* The user's answer, and what of it is remembered for the session. */
  asker.taken = asker.resolve = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (answers); i++)
    {
      asker.choice = answers[i].choice;
      assert_authorize (f, answers[i].tool, answers[i].expected);
      g_assert_cmpuint (asker.n_asked, ==, answers[i].n_asked);
    }

  asker.choice = ZOT_APPROVAL_DENY;
  zot_extension_manager_forget_approvals (f->manager);
  assert_authorize (f, "write", "denied|user|the user denied the call");
  g_assert_cmpuint (asker.n_asked, ==, 7);

  /* The yolo policy and tools that need no approval skip the question. */
  zot_extension_manager_set_policy (f->manager, ZOT_APPROVAL_POLICY_YOLO);
  g_assert_cmpint (zot_extension_manager_get_policy (f->manager), ==, ZOT_APPROVAL_POLICY_YOLO);
  assert_authorize (f, "bash", "approved|yolo");
  zot_extension_manager_set_policy (f->manager, ZOT_APPROVAL_POLICY_ASK);
  {
    g_autofree char *decision = authorize (f, "read", FALSE);
    g_assert_cmpstr (decision, ==, "approved|policy");
  }
  g_assert_cmpuint (asker.n_asked, ==, 7);

  /* Every decision is an event, and a question is announced first. */
  event = g_ptr_array_index (f->events, f->events->len - 1);
  g_assert_cmpstr (zot_test_json_string_at (event, "event"), ==, "permission_decision");
  g_assert_cmpstr (zot_test_json_string_at (event, "decision"), ==, "approved");
  g_assert_cmpstr (zot_test_json_string_at (event, "source"), ==, "policy");
  g_assert_cmpstr (zot_test_json_string_at (event, "stage"), ==, "pre_execution");
  g_assert_cmpstr (zot_test_json_string_at (event, "tool_name"), ==, "read");

  g_signal_handlers_disconnect_by_data (f->manager, &asker);
}

static void
count_notify (guint *count)
{
  (*count)++;
}

/* ZotExtensionManager:policy notifies once per real change, and the
 * property and the setter agree. */
static void
test_policy_property (Fixture       *f,
                      gconstpointer  data)
{
  ZotApprovalPolicy policy;
  guint notified = 0;

  g_signal_connect_swapped (f->manager, "notify::policy", G_CALLBACK (count_notify), &notified);

  zot_extension_manager_set_policy (f->manager, ZOT_APPROVAL_POLICY_ASK);
  g_assert_cmpuint (notified, ==, 0);

  zot_extension_manager_set_policy (f->manager, ZOT_APPROVAL_POLICY_YOLO);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (f->manager, "policy", &policy, NULL);
  g_assert_cmpint (policy, ==, ZOT_APPROVAL_POLICY_YOLO);

  g_object_set (f->manager, "policy", ZOT_APPROVAL_POLICY_YOLO, NULL);
  g_assert_cmpuint (notified, ==, 1);
  g_object_set (f->manager, "policy", ZOT_APPROVAL_POLICY_ASK, NULL);
  g_assert_cmpuint (notified, ==, 2);
  g_assert_cmpint (zot_extension_manager_get_policy (f->manager), ==, ZOT_APPROVAL_POLICY_ASK);

  g_signal_handlers_disconnect_by_data (f->manager, &notified);
}

static guint
count_events (Fixture    *f,
              const char *name)
{
  guint count = 0;

  for (guint i = 0; i < f->events->len; i++)
    if (g_str_equal (zot_test_json_string_at (g_ptr_array_index (f->events, i), "event"), name))
      count++;

  return count;
}

/* A question that is cancelled before the user answers is a decision too. */
static void
test_policy_cancelled (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Asker asker = { .taken = TRUE };
  ZotTestAuthorize out = { 0 };
  JsonObject *event;

  zot_extension_manager_set_interactive (f->manager, TRUE);
  g_signal_connect (f->manager, "approval-requested", G_CALLBACK (on_approval_requested), &asker);

  zot_test_authorize (f->manager, "bash", "make", &(ZotCallOrigin) { .extension = "helper" },
                      cancellable, &out);
  g_assert_nonnull (asker.pending);
  g_assert_false (out.done);
  g_assert_cmpuint (count_events (f, "tool_confirmation_requested"), ==, 1);

  /* The caller learns that it cancelled; the extensions, the decision. */
  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&out.done, 10000);
  g_assert_null (out.decision);

  g_assert_cmpuint (count_events (f, "permission_decision"), ==, 1);
  event = g_ptr_array_index (f->events, f->events->len - 1);
  g_assert_cmpstr (zot_test_json_string_at (event, "decision"), ==, "cancelled");
  g_assert_cmpstr (zot_test_json_string_at (event, "source"), ==, "user");
  g_assert_cmpstr (zot_test_json_string_at (event, "origin_extension"), ==, "helper");

  /* A late answer changes nothing. */
  zot_approval_resolve (asker.pending, ZOT_APPROVAL_ALLOW);
  g_assert_cmpuint (count_events (f, "permission_decision"), ==, 1);

  g_signal_handlers_disconnect_by_data (f->manager, &asker);
  g_clear_object (&asker.pending);
}

/* The command: "echo hello", 300 spaces, 60 line breaks, then
 * the part that matters. */
static char *
hidden_tail_command (void)
{
  GString *command = g_string_new ("echo hello");

  for (guint i = 0; i < 300; i++)
    g_string_append_c (command, ' ');
  for (guint i = 0; i < 60; i++)
    g_string_append_c (command, '\n');
  g_string_append (command, "touch ~/pwned");
  return g_string_free (command, FALSE);
}

static guint
count_of (const char *haystack,
          const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* An approval shows the whole command, its line breaks and control
 * characters visible; a shortened preview says so. */
static void
test_approval_escape (void)
{
  g_autofree char *command = hidden_tail_command ();
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(ZotApproval) approval = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *line = NULL;
  g_autofree char *odd = NULL;
  g_autofree char *odd_line = NULL;
  const char *preview;
  gboolean cut = TRUE;
  guint chars;
  guint lines;

  json_object_set_string_member (args, "command", command);
  approval = zot_approval_new ("t1", "bash", args, NULL, NULL);
  g_assert_cmpstr (zot_approval_get_detail (approval), ==, command);

  /* The event's preview: cut, and it says so and how long the whole is. */
  preview = zot_approval_get_preview (approval);
  g_assert_true (g_str_has_prefix (preview, "bash: echo hello "));
  g_assert_true (g_str_has_suffix (preview, "… (shortened; 383 characters in all)"));
  g_assert_null (strstr (preview, "\n"));

  /* The dialog's text: whole, every line break marked and kept. */
  whole = zot_approval_escape_text (command, TRUE, 0, &cut);
  g_assert_false (cut);
  g_assert_true (g_str_has_suffix (whole, "touch ~/pwned"));
  g_assert_cmpuint (count_of (whole, "\u21B5\n"), ==, 60);
  zot_approval_count_text (command, &chars, &lines);
  g_assert_cmpuint (chars, ==, 383);
  g_assert_cmpuint (lines, ==, 61);

  /* One line (the notification): the breaks are only marks. */
  line = zot_approval_escape_text (command, FALSE, 0, &cut);
  g_assert_null (strchr (line, '\n'));
  g_assert_cmpuint (count_of (line, "\u21B5"), ==, 60);
  g_assert_true (g_str_has_suffix (line, "\u21B5touch ~/pwned"));

  /* Tabs, escapes, a carriage return, bidirectional overrides, C1 controls,
   * separators and bytes that are not UTF-8 all read as something. */
  odd = zot_approval_escape_text ("a\tb\033[2Jc\rd\u202Ee\u200Bf\xc2\x85g\u2028h\x7f\xffi", TRUE, 0, NULL);
  g_assert_cmpstr (odd, ==,
                   "a\u2192\tb\\x1b[2Jc\\rd\\u202ee\\u200bf\\u0085g\\u2028h\\x7f\\xffi");
  odd_line = zot_approval_escape_text ("a\tb\nc", FALSE, 0, NULL);
  g_assert_cmpstr (odd_line, ==, "a\u2192b\u21B5c");

  /* A cut never splits an escape: "\x1b" needs four characters. */
  g_clear_pointer (&odd, g_free);
  odd = zot_approval_escape_text ("ab\033", FALSE, 5, &cut);
  g_assert_cmpstr (odd, ==, "ab");
  g_assert_true (cut);
  g_clear_pointer (&odd, g_free);
  odd = zot_approval_escape_text ("ab\033", FALSE, 6, &cut);
  g_assert_cmpstr (odd, ==, "ab\\x1b");
  g_assert_false (cut);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/manager-units/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("load-order", test_load_order);
  ADD ("no-manifest-judges-nothing", test_no_manifest_judges_nothing);
  ADD ("command-claims", test_command_claims);
  ADD ("frame-table", test_frame_table);
  ADD ("command-reply-kinds", test_command_reply_kinds);
  ADD ("command-reply-tool-prompt", test_command_reply_tool_prompt);
  ADD ("command-reply-panel", test_command_reply_panel);
  ADD ("command-reply-headless", test_command_reply_headless);
  ADD ("command-reply-boxed", test_command_reply_boxed);
  ADD ("intercept-tool-call", test_intercept_tool_call);
  ADD ("intercept-block-reason", test_intercept_block_reason);
  ADD ("intercept-rewrites-by-event", test_intercept_rewrites_by_event);
  ADD ("before-agent-start-fold", test_before_agent_start_fold);
  ADD ("event-lines", test_event_lines);
  ADD ("policy", test_policy);
  ADD ("policy-property", test_policy_property);
  ADD ("policy-cancelled", test_policy_cancelled);
  g_test_add_func ("/zot/manager-units/approval-escape", test_approval_escape);

  return g_test_run ();
}
