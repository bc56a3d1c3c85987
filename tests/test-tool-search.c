/* test-tool-search.c — tool_search, the discovery tool: ranking, what it
 * lists, activation, the limit, and its weak hold on the registry. */
#include "config.h"

#include <string.h>

#include "zot-message.h"
#include "zot-tool-registry.h"
#include "zot-tool-search.h"
#include "zot-test-util.h"

/* A safety net for each call; the tests never wait for it to pass. */
#define CALL_DEADLINE_MS 10000

/* ---------------------------------------------------------------------- */
/* A trivial tool                                                          */
/* ---------------------------------------------------------------------- */

#define TEST_TYPE_TOOL (test_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestTool, test_tool, TEST, TOOL, ZotTool)

struct _TestTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (TestTool, test_tool, ZOT_TYPE_TOOL)

static void
test_tool_execute_async (ZotTool              *tool,
                         JsonObject           *args,
                         const ZotToolContext *context,
                         GCancellable         *cancellable,
                         GAsyncReadyCallback   callback,
                         gpointer              user_data)
{
  g_autoptr(GTask) task = g_task_new (tool, cancellable, callback, user_data);

  g_task_set_source_tag (task, test_tool_execute_async);
  g_task_return_pointer (task,
                         zot_tool_result_new_text ("fixed", FALSE, ZOT_TOOL_OUTCOME_COMPLETED),
                         (GDestroyNotify) zot_tool_result_free);
}

static ZotToolResult *
test_tool_execute_finish (ZotTool       *tool,
                          GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_tool_class_init (TestToolClass *klass)
{
  ZOT_TOOL_CLASS (klass)->execute_async = test_tool_execute_async;
  ZOT_TOOL_CLASS (klass)->execute_finish = test_tool_execute_finish;
}

static void
test_tool_init (TestTool *self)
{
}

static ZotTool *
test_tool_new (const char      *name,
               const char      *origin,
               ZotToolExposure  exposure,
               const char      *ns,
               const char      *description,
               const char      *ns_description,
               const char      *ns_instructions)
{
  g_autoptr(JsonObject) schema = NULL;
  g_autofree char *schema_json = NULL;

  schema_json = g_strdup_printf ("{\"type\":\"object\",\"properties\":{\"%s_arg\":{\"type\":\"string\"}}}",
                                 name);
  schema = zot_json_object_from_string (schema_json, NULL);
  return g_object_new (TEST_TYPE_TOOL,
                       "name", name,
                       "origin", origin,
                       "exposure", exposure,
                       "namespace", ns,
                       "description", description,
                       "namespace-description", ns_description,
                       "namespace-instructions", ns_instructions,
                       "schema", schema,
                       NULL);
}

/* ---------------------------------------------------------------------- */
/* Fixture and helpers                                                     */
/* ---------------------------------------------------------------------- */

typedef struct
{
  ZotToolRegistry *registry;
  ZotTool         *search;
} Fixture;

typedef struct
{
  gboolean       done;
  ZotToolResult *result;
  GError        *error;
} Call;

static void
add_tool (Fixture *f,
          ZotTool *tool)
{
  g_autoptr(ZotTool) owned = tool;
  g_autoptr(GError) error = NULL;

  zot_tool_registry_add (f->registry, owned, &error);
  g_assert_no_error (error);
}

/*
 * Scores for the query "weather" (see zot-tool-search.h):
 *   weather         name 1000 + namespace 40 + namespace description 3 = 1043
 *   weather_alerts  name contains 100 + namespace 40 + description 10 = 150
 *   forecast        namespace 40 + namespace description 3 = 43
 *   calc_eval       description 10
 *   tide            namespace instructions 1
 *   read_file       built-in: never listed
 *   secret_weather  not allowed: never listed
 *   zip_lookup      0
 */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  const char *allowed[] = {
    "read_file", "weather", "weather_alerts", "forecast", "calc_eval", "tide", "zip_lookup",
    ZOT_TOOL_SEARCH_NAME, NULL
  };

  f->registry = zot_tool_registry_new ();

  add_tool (f, test_tool_new ("read_file", NULL, ZOT_TOOL_EXPOSURE_DIRECT, NULL,
                              "Read a weather file", NULL, NULL));
  add_tool (f, test_tool_new ("weather", "wx", ZOT_TOOL_EXPOSURE_DIRECT, "weather",
                              "Current conditions at a place",
                              "Weather observations", "Temperatures are in Celsius"));
  add_tool (f, test_tool_new ("weather_alerts", "wx", ZOT_TOOL_EXPOSURE_DEFERRED, "weather",
                              "Severe weather alerts for a region", NULL, NULL));
  add_tool (f, test_tool_new ("forecast", "wx", ZOT_TOOL_EXPOSURE_CODEMODE, "weather",
                              "Seven day outlook", "Weather observations", NULL));
  add_tool (f, test_tool_new ("calc_eval", "calc", ZOT_TOOL_EXPOSURE_MODEL_ONLY, "math",
                              "Evaluate an expression, weather units included", NULL, NULL));
  add_tool (f, test_tool_new ("tide", "sea", ZOT_TOOL_EXPOSURE_DIRECT, "ocean",
                              "Tide tables for geographic ports", NULL,
                              "Mention the weather caveat; cite observations"));
  add_tool (f, test_tool_new ("zip_lookup", "geo", ZOT_TOOL_EXPOSURE_DEFERRED, "geo",
                              "Look up a postal code", "Places", NULL));
  add_tool (f, test_tool_new ("secret_weather", "wx", ZOT_TOOL_EXPOSURE_DEFERRED, "weather",
                              "Weather nobody may see", NULL, NULL));

  f->search = zot_tool_search_new (f->registry);
  add_tool (f, g_object_ref (f->search));
  zot_tool_registry_set_allowed (f->registry, allowed);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  /* The registry owns the search tool and nothing owns the registry back. */
  g_clear_object (&f->search);
  g_assert_finalize_object (f->registry);
}

static void
call_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Call *call = user_data;

  call->result = zot_tool_execute_finish (ZOT_TOOL (object), result, &call->error);
  call->done = TRUE;
}

static ZotToolResult *
run_tool (ZotTool      *tool,
          const char   *args_json,
          GCancellable *cancellable,
          GError      **error)
{
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(GError) parse_error = NULL;
  ZotToolContext context = { "/", "call-1" };
  Call call = { 0 };

  args = zot_json_object_from_string (args_json, &parse_error);
  g_assert_no_error (parse_error);
  zot_tool_execute_async (tool, args, &context, cancellable, call_cb, &call);
  /* Never completes in the caller's stack. */
  g_assert_false (call.done);
  zot_test_wait_for (&call.done, CALL_DEADLINE_MS);

  if (call.error != NULL)
    g_propagate_error (error, call.error);
  return call.result;
}

static ZotToolResult *
search (Fixture    *f,
        const char *args_json)
{
  g_autoptr(GError) error = NULL;
  ZotToolResult *result = run_tool (f->search, args_json, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

static JsonObject *
structured (ZotToolResult *result)
{
  g_assert_nonnull (result->structured_content);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (result->structured_content));
  return json_node_get_object (result->structured_content);
}

/* The listed names, comma-separated, in order. */
static char *
listed_names (ZotToolResult *result)
{
  JsonObject *object = structured (result);
  JsonArray *tools;
  g_autoptr(GString) names = g_string_new (NULL);

  if (!json_object_has_member (object, "tools"))
    return g_strdup ("-");

  tools = json_object_get_array_member (object, "tools");
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      if (i > 0)
        g_string_append_c (names, ',');
      g_string_append (names, json_object_get_string_member (tool, "name"));
    }
  return g_string_free (g_steal_pointer (&names), FALSE);
}

static char *
search_names (Fixture    *f,
              const char *args_json)
{
  g_autoptr(ZotToolResult) result = search (f, args_json);

  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  return listed_names (result);
}

static JsonObject *
find_listed (ZotToolResult *result,
             const char    *name)
{
  JsonArray *tools = json_object_get_array_member (structured (result), "tools");

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      if (g_str_equal (json_object_get_string_member (tool, "name"), name))
        return tool;
    }
  return NULL;
}

static const char *
activation_status (ZotToolResult *result,
                   const char    *name)
{
  JsonArray *report = json_object_get_array_member (structured (result), "activation");

  for (guint i = 0; i < json_array_get_length (report); i++)
    {
      JsonObject *entry = json_array_get_object_element (report, i);

      if (g_str_equal (json_object_get_string_member (entry, "name"), name))
        return json_object_get_string_member (entry, "status");
    }
  return NULL;
}

static gboolean
model_sees (Fixture    *f,
            const char *name)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list_for_model (f->registry);

  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (zot_tool_get_name (g_ptr_array_index (tools, i)), name))
      return TRUE;
  return FALSE;
}

static guint
count_occurrences (const char *haystack,
                   const char *needle)
{
  guint count = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    count++;
  return count;
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                   */
/* ---------------------------------------------------------------------- */

static void
test_new_destroy (void)
{
  g_autoptr(ZotToolRegistry) registry = zot_tool_registry_new ();
  ZotTool *tool = zot_tool_search_new (registry);
  JsonObject *schema;
  JsonArray *required;

  g_assert_true (ZOT_IS_TOOL_SEARCH (tool));
  g_assert_cmpstr (zot_tool_get_name (tool), ==, "tool_search");
  g_assert_cmpint (zot_tool_get_exposure (tool), ==, ZOT_TOOL_EXPOSURE_MODEL_ONLY);
  g_assert_true (zot_tool_get_concurrent (tool));
  g_assert_false (zot_tool_get_requires_approval (tool));
  g_assert_false (zot_tool_is_script_callable (tool));
  g_assert_null (zot_tool_get_origin (tool));
  g_assert_nonnull (strstr (zot_tool_get_description (tool), "activate deferred ones"));

  schema = zot_tool_get_schema (tool);
  g_assert_nonnull (schema);
  g_assert_true (json_object_has_member (json_object_get_object_member (schema, "properties"),
                                         "activate"));
  g_assert_true (json_object_has_member (json_object_get_object_member (schema, "properties"),
                                         "limit"));
  required = json_object_get_array_member (schema, "required");
  g_assert_cmpuint (json_array_get_length (required), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (required, 0), ==, "query");

  g_assert_finalize_object (tool);
}

static void
test_ranking (Fixture       *f,
              gconstpointer  data)
{
  struct {
    const char *args;
    const char *names;
  } cases[] = {
    /* exact name ≫ name contains > namespace > description > ns instructions */
    { "{\"query\":\"weather\"}", "weather,weather_alerts,forecast,calc_eval,tide" },
    /* case and punctuation do not matter */
    { "{\"query\":\"  WEATHER!! \"}", "weather,weather_alerts,forecast,calc_eval,tide" },
    /* namespace (40) > description (10) */
    { "{\"query\":\"geo\"}", "zip_lookup,tide" },
    /* namespace description (3) > namespace instructions (1), ties by name */
    { "{\"query\":\"observations\"}", "forecast,weather,tide" },
    /* 1043 each: the tie is broken by name */
    { "{\"query\":\"weather forecast\"}", "forecast,weather,weather_alerts,calc_eval,tide" },
    /* words add up; a repeated word counts once */
    { "{\"query\":\"alerts region alerts\"}", "weather_alerts" },
    /* a word inside a name */
    { "{\"query\":\"lookup\"}", "zip_lookup" },
    /* an exact name, underscores kept in the word */
    { "{\"query\":\"zip_lookup\"}", "zip_lookup" },
    /* namespace contains the word */
    { "{\"query\":\"ocea\"}", "tide" },
    /* an empty query lists everything by name */
    { "{\"query\":\"\"}", "calc_eval,forecast,tide,weather,weather_alerts,zip_lookup" },
    { "{\"query\":\" -- \"}", "calc_eval,forecast,tide,weather,weather_alerts,zip_lookup" },
    { "{}", "calc_eval,forecast,tide,weather,weather_alerts,zip_lookup" },
    { "{\"query\":\"nothing-like-it\"}", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *names = search_names (f, cases[i].args);

      g_test_message ("%s", cases[i].args);
      g_assert_cmpstr (names, ==, cases[i].names);
    }
}

static void
test_listing (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = search (f, "{\"query\":\"weather\"}");
  g_autofree char *text = zot_content_get_text (result->content);
  JsonObject *object = structured (result);
  JsonArray *namespaces;
  JsonObject *ns;
  JsonObject *tool;

  g_assert_cmpint (json_object_get_int_member (object, "total"), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (object, "query"), ==, "weather");
  g_assert_false (json_object_has_member (object, "activation"));

  tool = find_listed (result, "weather");
  g_assert_cmpstr (json_object_get_string_member (tool, "namespace"), ==, "weather");
  g_assert_cmpstr (json_object_get_string_member (tool, "exposure"), ==, "direct");
  g_assert_true (json_object_get_boolean_member (tool, "callable"));
  g_assert_cmpstr (json_object_get_string_member (tool, "description"), ==,
                   "Current conditions at a place");
  g_assert_true (json_object_has_member (
    json_object_get_object_member (json_object_get_object_member (tool, "input_schema"),
                                   "properties"),
    "weather_arg"));

  tool = find_listed (result, "weather_alerts");
  g_assert_cmpstr (json_object_get_string_member (tool, "exposure"), ==, "deferred");
  g_assert_false (json_object_get_boolean_member (tool, "callable"));
  tool = find_listed (result, "forecast");
  g_assert_cmpstr (json_object_get_string_member (tool, "exposure"), ==, "codemode");
  g_assert_false (json_object_get_boolean_member (tool, "callable"));
  tool = find_listed (result, "calc_eval");
  g_assert_cmpstr (json_object_get_string_member (tool, "exposure"), ==, "model-only");
  g_assert_true (json_object_get_boolean_member (tool, "callable"));

  /* Namespaces once each, in order of first appearance. */
  namespaces = json_object_get_array_member (object, "namespaces");
  g_assert_cmpuint (json_array_get_length (namespaces), ==, 3);
  ns = json_array_get_object_element (namespaces, 0);
  g_assert_cmpstr (json_object_get_string_member (ns, "name"), ==, "weather");
  g_assert_cmpstr (json_object_get_string_member (ns, "description"), ==, "Weather observations");
  g_assert_cmpstr (json_object_get_string_member (ns, "instructions"), ==,
                   "Temperatures are in Celsius");
  ns = json_array_get_object_element (namespaces, 1);
  g_assert_cmpstr (json_object_get_string_member (ns, "name"), ==, "math");
  g_assert_false (json_object_has_member (ns, "description"));
  ns = json_array_get_object_element (namespaces, 2);
  g_assert_cmpstr (json_object_get_string_member (ns, "name"), ==, "ocean");
  g_assert_cmpstr (json_object_get_string_member (ns, "instructions"), ==,
                   "Mention the weather caveat; cite observations");

  /* The readable text says the same. */
  g_assert_false (result->is_error);
  g_assert_cmpuint (count_occurrences (text, "Weather observations"), ==, 1);
  g_assert_cmpuint (count_occurrences (text, "Temperatures are in Celsius"), ==, 1);
  g_assert_nonnull (strstr (text, "weather_alerts (namespace weather, deferred"));
  g_assert_nonnull (strstr (text, "Severe weather alerts for a region"));
  g_assert_nonnull (strstr (text, "\"weather_alerts_arg\""));
  g_assert_null (strstr (text, "read_file"));
  g_assert_null (strstr (text, "secret_weather"));
}

static void
test_builtins_hidden (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *names = search_names (f, "{\"query\":\"read_file\"}");
  g_autofree char *search_self = search_names (f, "{\"query\":\"tool_search\"}");
  g_autoptr(ZotToolResult) result = search (f, "{\"query\":\"read_file\"}");
  g_autofree char *text = zot_content_get_text (result->content);

  g_assert_cmpstr (names, ==, "");
  g_assert_cmpstr (search_self, ==, "");
  g_assert_cmpint (json_object_get_int_member (structured (result), "total"), ==, 0);
  g_assert_nonnull (strstr (text, "No extension tools match"));
}

static void
test_disallowed_hidden (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *names = search_names (f, "{\"query\":\"secret_weather\"}");
  g_autofree char *nobody = search_names (f, "{\"query\":\"nobody\"}");
  g_autoptr(ZotToolResult) result = NULL;

  g_assert_cmpstr (names, ==, "");
  g_assert_cmpstr (nobody, ==, "");

  /* Nor can it be activated. */
  result = search (f, "{\"query\":\"\",\"activate\":[\"secret_weather\"]}");
  g_assert_false (result->is_error);
  g_assert_cmpstr (activation_status (result, "secret_weather"), ==, "unknown");
  g_assert_false (model_sees (f, "secret_weather"));
}

static void
test_activate (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) again = NULL;
  g_autoptr(ZotToolResult) listed = NULL;
  g_autofree char *text = NULL;

  g_assert_false (model_sees (f, "weather_alerts"));
  g_assert_false (model_sees (f, "forecast"));

  result = search (f, "{\"query\":\"\",\"activate\":[\"weather_alerts\",\"forecast\","
                      "\"no_such_tool\",\"weather\"]}");
  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpstr (activation_status (result, "weather_alerts"), ==, "activated");
  g_assert_cmpstr (activation_status (result, "forecast"), ==, "not_deferred");
  g_assert_cmpstr (activation_status (result, "no_such_tool"), ==, "unknown");
  g_assert_cmpstr (activation_status (result, "weather"), ==, "not_deferred");
  /* An empty query with activation lists nothing more. */
  g_assert_false (json_object_has_member (structured (result), "tools"));

  text = zot_content_get_text (result->content);
  g_assert_nonnull (strstr (text, "weather_alerts: activated"));
  g_assert_nonnull (strstr (text, "forecast: not activated"));
  g_assert_nonnull (strstr (text, "no_such_tool: not activated"));
  g_assert_nonnull (strstr (text, "weather: not activated"));

  g_assert_true (model_sees (f, "weather_alerts"));
  g_assert_false (model_sees (f, "forecast"));

  /* A second time it is already active; a lone string is a list of one. */
  again = search (f, "{\"query\":\"alerts\",\"activate\":\"weather_alerts\"}");
  g_assert_cmpstr (activation_status (again, "weather_alerts"), ==, "already_active");
  g_assert_true (json_object_get_boolean_member (find_listed (again, "weather_alerts"),
                                                 "callable"));

  listed = search (f, "{\"query\":\"region\"}");
  g_assert_true (json_object_get_boolean_member (find_listed (listed, "weather_alerts"),
                                                 "callable"));
}

static void
test_limit (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *two = search_names (f, "{\"query\":\"\",\"limit\":2}");
  g_autofree char *one = search_names (f, "{\"query\":\"weather\",\"limit\":1.0}");
  g_autofree char *three = search_names (f, "{\"query\":\"weather\",\"limit\":\"3\"}");
  g_autofree char *capped = search_names (f, "{\"query\":\"\",\"limit\":1000}");
  g_autoptr(ZotToolResult) result = search (f, "{\"query\":\"\",\"limit\":2}");
  g_autofree char *text = zot_content_get_text (result->content);
  const char *bad[] = {
    "{\"query\":\"\",\"limit\":0}",
    "{\"query\":\"\",\"limit\":-4}",
    "{\"query\":\"\",\"limit\":2.5}",
    "{\"query\":\"\",\"limit\":\"many\"}",
    "{\"query\":\"\",\"limit\":[1]}",
    "{\"query\":7}",
    "{\"query\":\"\",\"activate\":[\"weather\",3]}",
    "{\"query\":\"\",\"activate\":{\"name\":\"weather\"}}",
  };

  g_assert_cmpstr (two, ==, "calc_eval,forecast");
  g_assert_cmpstr (one, ==, "weather");
  g_assert_cmpstr (three, ==, "weather,weather_alerts,forecast");
  g_assert_cmpstr (capped, ==, "calc_eval,forecast,tide,weather,weather_alerts,zip_lookup");
  g_assert_cmpint (json_object_get_int_member (structured (result), "total"), ==, 6);
  g_assert_nonnull (strstr (text, "showing the first 2"));

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(ZotToolResult) refused = search (f, bad[i]);

      g_test_message ("%s", bad[i]);
      g_assert_true (refused->is_error);
      g_assert_cmpint (refused->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
    }
}

static void
test_cancelled (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  ZotToolResult *result;

  g_cancellable_cancel (cancellable);
  result = run_tool (f->search, "{\"query\":\"weather\",\"activate\":[\"weather_alerts\"]}",
                     cancellable, &error);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (model_sees (f, "weather_alerts"));
}

static void
test_weak_registry (void)
{
  ZotToolRegistry *registry = zot_tool_registry_new ();
  ZotTool *tool = zot_tool_search_new (registry);
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_tool_registry_add (registry, tool, NULL));

  /* The tool, held elsewhere, does not keep its registry alive. */
  g_assert_finalize_object (registry);

  result = run_tool (tool, "{\"query\":\"weather\"}", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_true (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);

  g_assert_finalize_object (tool);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/tool-search/new-destroy", test_new_destroy);
  g_test_add ("/zot/tool-search/ranking", Fixture, NULL,
              fixture_setup, test_ranking, fixture_teardown);
  g_test_add ("/zot/tool-search/listing", Fixture, NULL,
              fixture_setup, test_listing, fixture_teardown);
  g_test_add ("/zot/tool-search/builtins-hidden", Fixture, NULL,
              fixture_setup, test_builtins_hidden, fixture_teardown);
  g_test_add ("/zot/tool-search/disallowed-hidden", Fixture, NULL,
              fixture_setup, test_disallowed_hidden, fixture_teardown);
  g_test_add ("/zot/tool-search/activate", Fixture, NULL,
              fixture_setup, test_activate, fixture_teardown);
  g_test_add ("/zot/tool-search/limit", Fixture, NULL,
              fixture_setup, test_limit, fixture_teardown);
  g_test_add ("/zot/tool-search/cancelled", Fixture, NULL,
              fixture_setup, test_cancelled, fixture_teardown);
  g_test_add_func ("/zot/tool-search/weak-registry", test_weak_registry);

  return g_test_run ();
}
