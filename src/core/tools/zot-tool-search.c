#define G_LOG_DOMAIN "zot-tool"

#include "config.h"

#include <string.h>

#include "zot-message.h"
#include "zot-tool-search.h"

/* Score weights; see zot-tool-search.h. */
#define SCORE_NAME_EXACT         1000
#define SCORE_NAME_CONTAINS       100
#define SCORE_NAMESPACE_EXACT      40
#define SCORE_NAMESPACE_CONTAINS   30
#define SCORE_DESCRIPTION          10
#define SCORE_NS_DESCRIPTION        3
#define SCORE_NS_INSTRUCTIONS       1

/* Everything below is read by the model, so it stays untranslated. */
#define TOOL_SEARCH_DESCRIPTION \
  "Search the extension tools that are not listed directly: tools that scripts can call " \
  "(codemode) and deferred tools, along with the directly listed ones. Give a few keywords " \
  "in `query`; each result shows the tool's namespace, its exposure, whether you can call it " \
  "now, its description and its input schema, plus the namespace's description and " \
  "instructions. Name tools in `activate` to activate deferred ones to call them: they join " \
  "your tool list for the rest of the run. An empty query lists every extension tool, up to " \
  "`limit`."

#define TOOL_SEARCH_SCHEMA \
  "{\"type\":\"object\",\"properties\":{" \
    "\"query\":{\"type\":\"string\",\"description\":" \
      "\"Keywords to look for in tool names, namespaces and descriptions; " \
      "empty to list every tool.\"}," \
    "\"activate\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":" \
      "\"Names of deferred tools to activate, so that you can call them directly.\"}," \
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":10," \
      "\"description\":\"The most tools to list (default 10, at most 50).\"}}," \
  "\"required\":[\"query\"]}"

struct _ZotToolSearch
{
  ZotTool  parent_instance;

  /* The registry owns this tool: a strong reference would be a cycle. */
  GWeakRef registry;
};

G_DEFINE_FINAL_TYPE (ZotToolSearch, zot_tool_search, ZOT_TYPE_TOOL)

typedef struct
{
  ZotTool *tool;
  char    *name;
  char    *ns;
  char    *description;
  char    *ns_description;
  char    *ns_instructions;
  guint    score;
} Candidate;

static void
candidate_free (Candidate *candidate)
{
  g_clear_object (&candidate->tool);
  g_free (candidate->name);
  g_free (candidate->ns);
  g_free (candidate->description);
  g_free (candidate->ns_description);
  g_free (candidate->ns_instructions);
  g_free (candidate);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Candidate, candidate_free)

static char *
lower (const char *text)
{
  return g_utf8_strdown (text != NULL ? text : "", -1);
}

/* Namespace defaults to the extension name (PROTOCOL.md §4). */

/**
 * zot_tool_search_namespace_of:
 *
 * Returns: (nullable): @tool's namespace, or its extension's name when it
 *   declared none; %NULL for a built-in tool
 */
const char *
zot_tool_search_namespace_of (ZotTool *tool)
{
  const char *ns = zot_tool_get_namespace (tool);

  return ns != NULL && ns[0] != '\0' ? ns : zot_tool_get_origin (tool);
}

static const char *
exposure_to_string (ZotToolExposure exposure)
{
  switch (exposure)
    {
    case ZOT_TOOL_EXPOSURE_DIRECT:     return "direct";
    case ZOT_TOOL_EXPOSURE_CODEMODE:   return "codemode";
    case ZOT_TOOL_EXPOSURE_DEFERRED:   return "deferred";
    case ZOT_TOOL_EXPOSURE_MODEL_ONLY: return "model-only";
    default:                           return "unknown";
    }
}

static void
add_word (GPtrArray *words,
          GString   *word)
{
  const char *start = word->str;
  const char *end = word->str + word->len;

  /* "-" between words is punctuation, not part of either. */
  while (start < end && *start == '-')
    start++;
  while (end > start && end[-1] == '-')
    end--;

  if (end > start)
    {
      g_autofree char *text = g_strndup (start, end - start);

      if (!g_ptr_array_find_with_equal_func (words, text, g_str_equal, NULL))
        g_ptr_array_add (words, g_steal_pointer (&text));
    }
  g_string_truncate (word, 0);
}

/* Lower-cased words: runs of letters, digits, '_' and '-', each once. */
static GPtrArray *
tokenize (const char *query)
{
  g_autofree char *valid = g_utf8_make_valid (query, -1);
  g_autofree char *text = g_utf8_strdown (valid, -1);
  g_autoptr(GString) word = g_string_new (NULL);
  GPtrArray *words = g_ptr_array_new_with_free_func (g_free);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isalnum (c) || c == '_' || c == '-')
        g_string_append_unichar (word, c);
      else
        add_word (words, word);
    }
  add_word (words, word);

  return words;
}

static guint
score_word (Candidate  *candidate,
            const char *word)
{
  guint score = 0;

  if (g_str_equal (candidate->name, word))
    score += SCORE_NAME_EXACT;
  else if (strstr (candidate->name, word) != NULL)
    score += SCORE_NAME_CONTAINS;

  if (g_str_equal (candidate->ns, word))
    score += SCORE_NAMESPACE_EXACT;
  else if (strstr (candidate->ns, word) != NULL)
    score += SCORE_NAMESPACE_CONTAINS;

  if (strstr (candidate->description, word) != NULL)
    score += SCORE_DESCRIPTION;
  if (strstr (candidate->ns_description, word) != NULL)
    score += SCORE_NS_DESCRIPTION;
  if (strstr (candidate->ns_instructions, word) != NULL)
    score += SCORE_NS_INSTRUCTIONS;

  return score;
}

static int
compare_candidates (gconstpointer a,
                    gconstpointer b)
{
  const Candidate *ca = *(Candidate * const *) a;
  const Candidate *cb = *(Candidate * const *) b;

  if (ca->score != cb->score)
    return ca->score > cb->score ? -1 : 1;
  return strcmp (zot_tool_get_name (ca->tool), zot_tool_get_name (cb->tool));
}

static gboolean
allowed_extension_tool (ZotTool  *tool,
                        gpointer  user_data)
{
  return zot_tool_get_origin (tool) != NULL &&
         zot_tool_registry_is_allowed (user_data, zot_tool_get_name (tool));
}

/* The tools @filter lets through that match @words, best first. */
static GPtrArray *
search (ZotToolRegistry     *registry,
        GPtrArray           *words,
        ZotToolSearchFilter  filter,
        gpointer             user_data)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list (registry);
  GPtrArray *matches = g_ptr_array_new_with_free_func ((GDestroyNotify) candidate_free);

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      g_autoptr(Candidate) candidate = NULL;

      if (!filter (tool, user_data))
        continue;

      candidate = g_new0 (Candidate, 1);
      candidate->tool = g_object_ref (tool);
      candidate->name = lower (zot_tool_get_name (tool));
      candidate->ns = lower (zot_tool_search_namespace_of (tool));
      candidate->description = lower (zot_tool_get_description (tool));
      candidate->ns_description = lower (zot_tool_get_namespace_description (tool));
      candidate->ns_instructions = lower (zot_tool_get_namespace_instructions (tool));

      for (guint w = 0; w < words->len; w++)
        candidate->score += score_word (candidate, g_ptr_array_index (words, w));

      if (words->len > 0 && candidate->score == 0)
        continue;

      g_ptr_array_add (matches, g_steal_pointer (&candidate));
    }

  g_ptr_array_sort (matches, compare_candidates);
  return matches;
}

static GHashTable *
callable_names (ZotToolRegistry *registry)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list_for_model (registry);
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < tools->len; i++)
    g_hash_table_add (names, g_strdup (zot_tool_get_name (g_ptr_array_index (tools, i))));
  return names;
}

static void
report_activation (GString    *text,
                   JsonArray  *report,
                   const char *name,
                   const char *status,
                   const char *message)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "name", name);
  json_object_set_string_member (entry, "status", status);
  json_object_set_string_member (entry, "message", message);
  json_array_add_object_element (report, entry);

  g_string_append_printf (text, "%s: %s\n", name, message);
}

/* Activates the deferred tools in @names, through the registry's one
 * rule (zot_tool_registry_try_activate()); anything else is reported, not
 * a failure of the call. A name asked for twice in one call is reported
 * once as activated, then as already active. */
static void
activate (ZotToolRegistry *registry,
          GStrv            names,
          GString         *text,
          JsonArray       *report)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *name = names[i];

      switch (zot_tool_registry_try_activate (registry, name))
        {
        case ZOT_TOOL_ACTIVATION_ACTIVATED:
          report_activation (text, report, name, "activated",
                             "activated: it is in your tool list for the rest of the run.");
          break;

        case ZOT_TOOL_ACTIVATION_ALREADY_ACTIVE:
          report_activation (text, report, name, "already_active",
                             "already active: it is in your tool list.");
          break;

        case ZOT_TOOL_ACTIVATION_UNKNOWN:
          report_activation (text, report, name, "unknown",
                             "not activated: there is no such tool.");
          break;

        case ZOT_TOOL_ACTIVATION_NOT_DEFERRED:
        default:
          if (zot_tool_get_exposure (zot_tool_registry_lookup (registry, name)) == ZOT_TOOL_EXPOSURE_CODEMODE)
            report_activation (text, report, name, "not_deferred",
                               "not activated: it is a codemode tool, callable from scripts, "
                               "not a deferred one.");
          else
            report_activation (text, report, name, "not_deferred",
                               "not activated: it is not a deferred tool; it is already in your "
                               "tool list.");
          break;
        }
    }

  if (names[0] != NULL)
    g_string_append_c (text, '\n');
}

static const char *
callable_hint (ZotTool  *tool,
               gboolean  callable)
{
  if (callable)
    return "callable now";
  if (zot_tool_get_exposure (tool) == ZOT_TOOL_EXPOSURE_DEFERRED)
    return "activate it to call it";
  return "callable from scripts only";
}

/* One entry per namespace of the results, in order of first appearance,
 * with the first description and instructions its tools carry. */
static void
describe_namespace (GString    *text,
                    JsonArray  *namespaces,
                    GHashTable *seen,
                    GPtrArray  *shown,
                    guint       first)
{
  Candidate *candidate = g_ptr_array_index (shown, first);
  const char *ns = zot_tool_search_namespace_of (candidate->tool);
  const char *description = NULL;
  const char *instructions = NULL;
  JsonObject *entry;

  if (g_hash_table_contains (seen, ns))
    return;
  g_hash_table_add (seen, (gpointer) ns);

  for (guint i = first; i < shown->len; i++)
    {
      ZotTool *tool = ((Candidate *) g_ptr_array_index (shown, i))->tool;

      if (!g_str_equal (zot_tool_search_namespace_of (tool), ns))
        continue;
      if (description == NULL)
        description = zot_tool_get_namespace_description (tool);
      if (instructions == NULL)
        instructions = zot_tool_get_namespace_instructions (tool);
    }

  entry = json_object_new ();
  json_object_set_string_member (entry, "name", ns);
  if (description != NULL)
    json_object_set_string_member (entry, "description", description);
  if (instructions != NULL)
    json_object_set_string_member (entry, "instructions", instructions);
  json_array_add_object_element (namespaces, entry);

  if (description != NULL || instructions != NULL)
    {
      g_string_append_printf (text, "Namespace %s", ns);
      if (description != NULL)
        g_string_append_printf (text, ": %s", description);
      g_string_append_c (text, '\n');
      if (instructions != NULL)
        g_string_append_printf (text, "  Instructions: %s\n", instructions);
      g_string_append_c (text, '\n');
    }
}

static JsonObject *
input_schema (ZotTool *tool)
{
  JsonObject *schema = zot_tool_get_schema (tool);
  JsonObject *copy;

  /* A deep copy: whoever reads the structured result may change it. */
  copy = schema != NULL ? zot_json_object_copy (schema) : NULL;
  if (copy == NULL)
    {
      copy = json_object_new ();
      json_object_set_string_member (copy, "type", "object");
    }
  return copy;
}

static void
list_matches (ZotToolRegistry *registry,
              GPtrArray       *matches,
              const char      *query,
              gboolean         empty_query,
              guint            limit,
              GString         *text,
              JsonObject      *structured)
{
  g_autoptr(GHashTable) callable = callable_names (registry);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();
  JsonArray *tools = json_array_new ();
  JsonArray *namespaces = json_array_new ();

  for (guint i = 0; i < matches->len && i < limit; i++)
    g_ptr_array_add (shown, g_ptr_array_index (matches, i));

  if (matches->len == 0)
    {
      if (empty_query)
        g_string_append (text, "There are no extension tools to search.\n");
      else
        g_string_append_printf (text, "No extension tools match \"%s\".\n", query);
    }
  else
    {
      if (empty_query)
        g_string_append_printf (text, "%u extension tool%s", matches->len,
                                matches->len == 1 ? "" : "s");
      else
        g_string_append_printf (text, "%u extension tool%s match%s \"%s\"", matches->len,
                                matches->len == 1 ? "" : "s", matches->len == 1 ? "es" : "",
                                query);
      if (shown->len < matches->len)
        g_string_append_printf (text, " (showing the first %u)", shown->len);
      g_string_append (text, ":\n\n");
    }

  for (guint i = 0; i < shown->len; i++)
    {
      Candidate *candidate = g_ptr_array_index (shown, i);
      ZotTool *tool = candidate->tool;
      const char *name = zot_tool_get_name (tool);
      gboolean is_callable = g_hash_table_contains (callable, name);
      JsonObject *schema = input_schema (tool);
      g_autofree char *schema_text = zot_json_object_to_string (schema);
      JsonObject *entry = json_object_new ();

      describe_namespace (text, namespaces, seen, shown, i);

      g_string_append_printf (text, "%s (namespace %s, %s, %s)\n", name, zot_tool_search_namespace_of (tool),
                              exposure_to_string (zot_tool_get_exposure (tool)),
                              callable_hint (tool, is_callable));
      if (zot_tool_get_description (tool)[0] != '\0')
        g_string_append_printf (text, "  %s\n", zot_tool_get_description (tool));
      g_string_append_printf (text, "  Input schema: %s\n\n", schema_text);

      json_object_set_string_member (entry, "name", name);
      json_object_set_string_member (entry, "namespace", zot_tool_search_namespace_of (tool));
      json_object_set_string_member (entry, "exposure",
                                     exposure_to_string (zot_tool_get_exposure (tool)));
      json_object_set_boolean_member (entry, "callable", is_callable);
      json_object_set_string_member (entry, "description", zot_tool_get_description (tool));
      json_object_set_object_member (entry, "input_schema", schema);
      json_array_add_object_element (tools, entry);
    }

  json_object_set_int_member (structured, "total", matches->len);
  json_object_set_array_member (structured, "tools", tools);
  json_object_set_array_member (structured, "namespaces", namespaces);
}

/* Models send integers as JSON numbers, sometimes as 10.0 or "10". */
static gboolean
args_get_limit (JsonObject *args,
                gint64     *value)
{
  JsonNode *node = json_object_get_member (args, "limit");

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      *value = ZOT_TOOL_SEARCH_DEFAULT_LIMIT;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      *value = json_node_get_int (node);
      return TRUE;

    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        if (!(d > -9.0e15 && d < 9.0e15) || d != (double) (gint64) d)
          return FALSE;
        *value = (gint64) d;
        return TRUE;
      }

    case G_TYPE_STRING:
      {
        g_autofree char *text = g_strstrip (g_strdup (json_node_get_string (node)));

        return g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, value, NULL);
      }

    default:
      return FALSE;
    }
}

/* A single name is taken as a list of one. */
static gboolean
args_get_names (JsonObject  *args,
                GStrv       *names)
{
  JsonNode *node = json_object_get_member (args, "activate");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      *names = g_strv_builder_end (builder);
      return TRUE;
    }

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_strv_builder_add (builder, json_node_get_string (node));
      *names = g_strv_builder_end (builder);
      return TRUE;
    }

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;

  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (node), i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        return FALSE;
      g_strv_builder_add (builder, json_node_get_string (element));
    }

  *names = g_strv_builder_end (builder);
  return TRUE;
}

static ZotToolResult *
run_search (ZotToolSearch *self,
            JsonObject    *args)
{
  g_autoptr(ZotToolRegistry) registry = g_weak_ref_get (&self->registry);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GPtrArray) words = NULL;
  g_auto(GStrv) names = NULL;
  JsonNode *query_node;
  const char *query = "";
  gint64 limit;
  JsonObject *structured;
  ZotToolResult *result;

  if (registry == NULL)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      "Tool search is not available: the tool registry is gone.");

  /* Required by the schema, but a call that only activates is clear
   * enough without it. */
  query_node = json_object_get_member (args, "query");
  if (query_node != NULL && !JSON_NODE_HOLDS_NULL (query_node))
    {
      if (!JSON_NODE_HOLDS_VALUE (query_node) ||
          json_node_get_value_type (query_node) != G_TYPE_STRING)
        return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                          "The argument \"query\" must be a string.");
      query = json_node_get_string (query_node);
    }

  if (!args_get_names (args, &names))
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      "The argument \"activate\" must be an array of tool names.");

  if (!args_get_limit (args, &limit) || limit < 1)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      "The argument \"limit\" must be an integer from 1 to %d.",
                                      ZOT_TOOL_SEARCH_MAX_LIMIT);
  limit = MIN (limit, ZOT_TOOL_SEARCH_MAX_LIMIT);

  structured = json_object_new ();
  json_object_set_string_member (structured, "query", query);

  /* Activation first, so that the listing shows what is callable now. */
  if (names[0] != NULL)
    {
      JsonArray *report = json_array_new ();

      activate (registry, names, text, report);
      json_object_set_array_member (structured, "activation", report);
    }

  words = tokenize (query);
  if (words->len > 0 || names[0] == NULL)
    {
      g_autoptr(GPtrArray) matches = search (registry, words, allowed_extension_tool, registry);

      list_matches (registry, matches, query, words->len == 0, (guint) limit, text, structured);
    }

  /* The listing ends with a blank line; the model needs none. */
  while (text->len > 0 && text->str[text->len - 1] == '\n')
    g_string_truncate (text, text->len - 1);

  result = zot_tool_result_new_text (text->str, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
  result->structured_content = json_node_init_object (json_node_alloc (), structured);
  json_object_unref (structured);
  return result;
}

/**
 * zot_tool_search_rank:
 * @query: words, scored as tool_search scores them
 * @filter: which tools of @registry to consider
 *
 * Returns: (transfer container) (element-type ZotTool): the tools that
 *   match, best first (every tool @filter keeps when @query has no words)
 */
GPtrArray *
zot_tool_search_rank (ZotToolRegistry     *registry,
                      const char          *query,
                      ZotToolSearchFilter  filter,
                      gpointer             user_data)
{
  g_autoptr(GPtrArray) words = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  GPtrArray *tools;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (registry), NULL);
  g_return_val_if_fail (filter != NULL, NULL);

  words = tokenize (query != NULL ? query : "");
  matches = search (registry, words, filter, user_data);
  tools = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < matches->len; i++)
    g_ptr_array_add (tools, g_object_ref (((Candidate *) g_ptr_array_index (matches, i))->tool));
  return tools;
}

static void
zot_tool_search_execute_async (ZotTool              *tool,
                               JsonObject           *args,
                               const ZotToolContext *context,
                               GCancellable         *cancellable,
                               GAsyncReadyCallback   callback,
                               gpointer              user_data)
{
  ZotToolSearch *self = ZOT_TOOL_SEARCH (tool);
  g_autoptr(GTask) task = NULL;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_tool_search_execute_async);

  if (g_task_return_error_if_cancelled (task))
    return;

  /* Quick and in memory: no thread. GTask still completes in an idle. */
  g_task_return_pointer (task, run_search (self, args), (GDestroyNotify) zot_tool_result_free);
}

static ZotToolResult *
zot_tool_search_execute_finish (ZotTool       *tool,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, tool), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_tool_search_finalize (GObject *object)
{
  ZotToolSearch *self = (ZotToolSearch *)object;

  g_weak_ref_clear (&self->registry);

  G_OBJECT_CLASS (zot_tool_search_parent_class)->finalize (object);
}

static void
zot_tool_search_class_init (ZotToolSearchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  object_class->finalize = zot_tool_search_finalize;

  tool_class->execute_async = zot_tool_search_execute_async;
  tool_class->execute_finish = zot_tool_search_execute_finish;
}

static void
zot_tool_search_init (ZotToolSearch *self)
{
  g_weak_ref_init (&self->registry, NULL);
}

/**
 * zot_tool_search_new:
 * @registry: the registry to search; held weakly
 *
 * Returns: (transfer full): the tool_search tool, for @registry to own
 */
ZotTool *
zot_tool_search_new (ZotToolRegistry *registry)
{
  g_autoptr(JsonObject) schema = NULL;
  ZotToolSearch *self;

  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (registry), NULL);

  schema = zot_json_object_from_string (TOOL_SEARCH_SCHEMA, NULL);
  g_assert (schema != NULL);

  self = g_object_new (ZOT_TYPE_TOOL_SEARCH,
                       "name", ZOT_TOOL_SEARCH_NAME,
                       "description", TOOL_SEARCH_DESCRIPTION,
                       "schema", schema,
                       "exposure", ZOT_TOOL_EXPOSURE_MODEL_ONLY,
                       "concurrent", TRUE,
                       "requires-approval", FALSE,
                       "replay", ZOT_TOOL_REPLAY_SAFE,
                       NULL);
  g_weak_ref_set (&self->registry, registry);

  return ZOT_TOOL (self);
}
