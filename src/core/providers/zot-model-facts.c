/* zot-model-facts.c — the known models, shipped and the user's own.
 *
 * THE SHIPPED MODELS ARE A TABLE TO UPDATE: data/models/models.json holds
 * the context windows, output limits and prices Anthropic, OpenAI and
 * Google published (standard tier, no batch discounts, prompts within the
 * base context window), each with the month they were taken. Vendors
 * change them; when they do, change that file and nothing else.
 *
 * $ZOT_HOME/models.json has the same shape. Its entries add models or
 * change shipped ones field by field (a user who only corrects a price
 * writes only the price). A bad entry is skipped with one line naming the
 * file, the line and the field; the others still load. A model in neither
 * file still works: it has no limits and no price, so its calls cost an
 * unknown amount, not 0.
 */
#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "zot-limits.h"
#include "zot-model-facts.h"
#include "zot-paths.h"
#include "zot-provider.h"

#define SHIPPED_RESOURCE "/dev/zot/Zot/models/models.json"

GResource *zot_models_get_resource (void);

typedef struct
{
  GPtrArray  *models;    /* of ZotModelInfo, owned, in file order */
  GHashTable *by_key;    /* "provider\nid" → ZotModelInfo */
  GStringChunk *strings;
  GPtrArray  *warnings;  /* NULL-terminated */
} Facts;

/* Where each member's value was in the file being read: json-glib keeps
 * no positions, so they are taken as the parser passes. */
typedef struct
{
  const char *file;
  GHashTable *lines;     /* JsonNode → line */
  Facts      *facts;
  gboolean    user;
} Reader;

G_LOCK_DEFINE_STATIC (facts);
static Facts *current;

static void
facts_free (Facts *facts)
{
  g_ptr_array_unref (facts->models);
  g_hash_table_unref (facts->by_key);
  g_string_chunk_free (facts->strings);
  g_ptr_array_unref (facts->warnings);
  g_free (facts);
}

static Facts *
facts_new (void)
{
  Facts *facts = g_new0 (Facts, 1);

  facts->models = g_ptr_array_new_with_free_func (g_free);
  facts->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  facts->strings = g_string_chunk_new (4096);
  facts->warnings = g_ptr_array_new_with_free_func (g_free);
  return facts;
}

static void
on_object_member (JsonParser *parser,
                  JsonObject *object,
                  const char *member,
                  Reader     *reader)
{
  g_hash_table_insert (reader->lines, json_object_get_member (object, member),
                       GUINT_TO_POINTER (json_parser_get_current_line (parser)));
}

static guint
line_of (Reader   *reader,
         JsonNode *node)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (reader->lines, node));
}

static void G_GNUC_PRINTF (4, 5)
warn (Reader     *reader,
      guint       line,
      const char *field,
      const char *format,
      ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  /* Translators: a problem in a models.json file: "FILE:LINE: field "FIELD": what is wrong" */
  g_ptr_array_add (reader->facts->warnings,
                   g_strdup_printf (_("%s:%u: field \"%s\": %s; this model is skipped"),
                                    reader->file, line, field, what));
}

static void
warn_file (Facts      *facts,
           const char *file,
           const char *what)
{
  /* Translators: a models.json file that is not read at all: "FILE: why" */
  g_ptr_array_add (facts->warnings, g_strdup_printf (_("%s: %s; its models are not read"), file, what));
}

static gboolean
read_count (Reader     *reader,
            JsonNode   *node,
            const char *field,
            guint      *out)
{
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < 0 || json_node_get_int (node) > G_MAXINT32)
    {
      warn (reader, line_of (reader, node), field, _("must be a whole number of tokens, 0 or more"));
      return FALSE;
    }
  *out = json_node_get_int (node);
  return TRUE;
}

static gboolean
read_price (Reader     *reader,
            JsonNode   *node,
            const char *field,
            double     *out)
{
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  double value;

  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    {
      warn (reader, line_of (reader, node), field, _("must be US dollars per million tokens, a number"));
      return FALSE;
    }
  value = json_node_get_double (node);
  if (!(value >= 0.0 && value < 1e6))
    {
      warn (reader, line_of (reader, node), field, _("must be 0 or more, in US dollars per million tokens"));
      return FALSE;
    }
  *out = value;
  return TRUE;
}

static gboolean
is_date (const char *text)
{
  g_autoptr(GRegex) regex = g_regex_new ("^[0-9]{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?$", 0, 0, NULL);

  return g_regex_match (regex, text, 0, NULL);
}

static const char *
read_string (Reader     *reader,
             JsonNode   *node,
             const char *field)
{
  const char *text = JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
                     ? json_node_get_string (node) : NULL;

  if (text == NULL || *text == '\0' || strlen (text) > 256 || strchr (text, '\n') != NULL)
    {
      warn (reader, line_of (reader, node), field, _("must be a non-empty string of one line"));
      return NULL;
    }
  return text;
}

static gboolean
read_prices (Reader       *reader,
             JsonNode     *node,
             ZotModelInfo *model)
{
  JsonObject *prices = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  g_autoptr(GList) members = NULL;
  gboolean has_cache_read = FALSE;
  gboolean has_cache_write = FALSE;
  gboolean has_date = FALSE;

  if (prices == NULL)
    {
      warn (reader, line_of (reader, node), "prices",
            _("must be an object with \"input\" and \"output\" prices"));
      return FALSE;
    }

  for (const char *required[] = { "input", "output" }, **r = required; r < required + 2; r++)
    if (!json_object_has_member (prices, *r))
      {
        g_autofree char *field = g_strconcat ("prices.", *r, NULL);

        warn (reader, line_of (reader, node), field, _("is missing"));
        return FALSE;
      }

  members = json_object_get_members (prices);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (prices, name);
      g_autofree char *field = g_strconcat ("prices.", name, NULL);
      gboolean ok;

      if (g_str_equal (name, "input"))
        ok = read_price (reader, value, field, &model->input_price);
      else if (g_str_equal (name, "output"))
        ok = read_price (reader, value, field, &model->output_price);
      else if (g_str_equal (name, "cache_read"))
        ok = has_cache_read = read_price (reader, value, field, &model->cache_read_price);
      else if (g_str_equal (name, "cache_write"))
        ok = has_cache_write = read_price (reader, value, field, &model->cache_write_price);
      else if (g_str_equal (name, "date"))
        {
          const char *date = read_string (reader, value, field);

          ok = has_date = date != NULL && is_date (date);
          if (date != NULL && !ok)
            warn (reader, line_of (reader, value), field, _("must be a date, YYYY-MM or YYYY-MM-DD"));
          if (ok)
            model->prices_date = g_string_chunk_insert_const (reader->facts->strings, date);
        }
      else
        {
          warn (reader, line_of (reader, value), field, _("is not a field of prices"));
          ok = FALSE;
        }
      if (!ok)
        return FALSE;
    }

  /* Cached tokens without a price of their own cost what input does: an
   * upper bound, not a guess below it. */
  if (!has_cache_read)
    model->cache_read_price = model->input_price;
  if (!has_cache_write)
    model->cache_write_price = model->input_price;
  if (!has_date)
    model->prices_date = NULL;
  model->priced = TRUE;
  return TRUE;
}

static char *
key_for (const char *provider,
         const char *id)
{
  return g_strconcat (provider, "\n", id, NULL);
}

static gboolean
read_field (Reader       *reader,
            const char   *name,
            JsonNode     *value,
            ZotModelInfo *model)
{
  if (g_str_equal (name, "provider") || g_str_equal (name, "id"))
    return TRUE;
  if (g_str_equal (name, "context_window"))
    return read_count (reader, value, name, &model->context_window);
  if (g_str_equal (name, "max_output"))
    return read_count (reader, value, name, &model->max_output);
  if (g_str_equal (name, "prices"))
    return read_prices (reader, value, model);
  if (g_str_equal (name, "reasoning"))
    {
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
        {
          model->reasoning = json_node_get_boolean (value);
          return TRUE;
        }
      warn (reader, line_of (reader, value), name, _("must be true or false"));
      return FALSE;
    }

  warn (reader, line_of (reader, value), name,
        _("is not a field of a model (provider, id, context_window, max_output, reasoning, prices)"));
  return FALSE;
}

/* An entry's line, for a problem with no field of its own: where its
 * first member is. */
static guint
first_line (Reader   *reader,
            JsonNode *entry,
            guint     fallback)
{
  g_autoptr(GList) members = NULL;
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (entry))
    return fallback;

  object = json_node_get_object (entry);
  members = json_object_get_members (object);
  return members != NULL ? line_of (reader, json_object_get_member (object, members->data)) : fallback;
}

/* One entry: it replaces, field by field, the model of the same provider
 * and id read before. */
static void
read_entry (Reader   *reader,
            JsonNode *node,
            guint     line)
{
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  g_autoptr(GList) members = NULL;
  const char *provider;
  const char *id;
  g_autofree char *key = NULL;
  ZotModelInfo *known;
  ZotModelInfo model = { 0 };

  if (object == NULL)
    {
      warn (reader, line, "models", _("each model must be an object"));
      return;
    }

  for (const char *required[] = { "provider", "id" }, **r = required; r < required + 2; r++)
    if (!json_object_has_member (object, *r))
      {
        warn (reader, line, *r, _("is missing"));
        return;
      }

  provider = read_string (reader, json_object_get_member (object, "provider"), "provider");
  id = provider != NULL ? read_string (reader, json_object_get_member (object, "id"), "id") : NULL;
  if (id == NULL)
    return;

  key = key_for (provider, id);
  known = g_hash_table_lookup (reader->facts->by_key, key);
  if (known != NULL)
    model = *known;

  members = json_object_get_members (object);
  for (GList *l = members; l != NULL; l = l->next)
    if (!read_field (reader, l->data, json_object_get_member (object, l->data), &model))
      return;

  model.user = reader->user;
  if (known != NULL)
    {
      *known = model;
      return;
    }

  model.provider = g_string_chunk_insert_const (reader->facts->strings, provider);
  model.id = g_string_chunk_insert_const (reader->facts->strings, id);
  known = g_memdup2 (&model, sizeof model);
  g_ptr_array_add (reader->facts->models, known);
  g_hash_table_insert (reader->facts->by_key, g_steal_pointer (&key), known);
}

static void
read_document (Facts      *facts,
               const char *file,
               const char *text,
               gsize       length,
               gboolean    user)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GHashTable) lines = g_hash_table_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  Reader reader = { file, lines, facts, user };
  JsonNode *root;
  JsonNode *models;
  JsonArray *array;
  guint n;

  g_signal_connect (parser, "object-member", G_CALLBACK (on_object_member), &reader);
  if (!json_parser_load_from_data (parser, text, length, &error))
    {
      warn_file (facts, file, error->message);
      return;
    }

  root = json_parser_get_root (parser);
  models = root != NULL && JSON_NODE_HOLDS_OBJECT (root)
           ? json_object_get_member (json_node_get_object (root), "models") : NULL;
  if (models == NULL || !JSON_NODE_HOLDS_ARRAY (models))
    {
      warn_file (facts, file, _("it must be an object with a \"models\" array"));
      return;
    }

  array = json_node_get_array (models);
  n = json_array_get_length (array);
  if (n > ZOT_MODELS_MAX_ENTRIES)
    /* Translators: a models.json with too many models: "FILE: only the first 2000 of 2500 models are read" */
    g_ptr_array_add (facts->warnings,
                     g_strdup_printf (_("%s: only the first %u of %u models are read"),
                                      file, (guint) ZOT_MODELS_MAX_ENTRIES, n));

  for (guint i = 0; i < MIN (n, ZOT_MODELS_MAX_ENTRIES); i++)
    {
      JsonNode *entry = json_array_get_element (array, i);

      read_entry (&reader, entry, first_line (&reader, entry, line_of (&reader, models)));
    }
}

static void
read_user_file (Facts *facts)
{
  g_autofree char *path = zot_model_facts_get_user_file ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_malloc (ZOT_MODELS_FILE_MAX_BYTES + 1);
  gsize length = 0;

  stream = g_file_read (file, NULL, &error);
  if (stream == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        warn_file (facts, path, error->message);
      return;
    }

  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), text, ZOT_MODELS_FILE_MAX_BYTES + 1,
                                &length, NULL, &error))
    {
      warn_file (facts, path, error->message);
      return;
    }

  if (length > ZOT_MODELS_FILE_MAX_BYTES)
    {
      g_autofree char *size = g_format_size (ZOT_MODELS_FILE_MAX_BYTES);
      /* Translators: %s is a size, "1.0 MB" */
      g_autofree char *what = g_strdup_printf (_("it is larger than %s"), size);

      warn_file (facts, path, what);
      return;
    }

  read_document (facts, path, text, length, TRUE);
}

static Facts *
load (void)
{
  Facts *facts = facts_new ();
  g_autoptr(GBytes) shipped = g_resource_lookup_data (zot_models_get_resource (), SHIPPED_RESOURCE,
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  gsize length;
  const char *text = g_bytes_get_data (shipped, &length);

  read_document (facts, SHIPPED_RESOURCE, text, length, FALSE);
  /* The shipped file is tested to read cleanly; its problems are bugs. */
  for (guint i = 0; i < facts->warnings->len; i++)
    g_critical ("%s", (const char *) g_ptr_array_index (facts->warnings, i));
  g_ptr_array_set_size (facts->warnings, 0);

  read_user_file (facts);
  g_ptr_array_add (facts->warnings, NULL);
  return facts;
}

static Facts *
get_facts (void)
{
  Facts *facts;

  G_LOCK (facts);
  if (current == NULL)
    current = load ();
  facts = current;
  G_UNLOCK (facts);
  return facts;
}

/* A dated snapshot of @id: "claude-sonnet-4-5-20250929",
 * "gpt-4o-mini-2024-07-18". */
static gboolean
is_snapshot_of (const char *model,
                const char *id)
{
  gsize len = strlen (id);

  return strncmp (model, id, len) == 0 && model[len] == '-' && g_ascii_isdigit (model[len + 1]);
}

/**
 * zot_model_info_lookup:
 * @provider: (nullable): a provider name
 * @model: (nullable): a model id
 *
 * Finds @model of @provider, or the model it is a dated snapshot of (the
 * longest such id).
 *
 * Returns: (transfer none) (nullable): the model's facts, valid until
 *   zot_model_facts_reload(), or %NULL when unknown
 */
const ZotModelInfo *
zot_model_info_lookup (const char *provider,
                       const char *model)
{
  Facts *facts;
  g_autofree char *key = NULL;
  const ZotModelInfo *best = NULL;

  if (provider == NULL || model == NULL)
    return NULL;

  facts = get_facts ();
  key = key_for (provider, model);
  best = g_hash_table_lookup (facts->by_key, key);
  if (best != NULL)
    return best;

  for (guint i = 0; i < facts->models->len; i++)
    {
      const ZotModelInfo *info = g_ptr_array_index (facts->models, i);

      if (g_str_equal (info->provider, provider) && is_snapshot_of (model, info->id) &&
          (best == NULL || strlen (info->id) > strlen (best->id)))
        best = info;
    }
  return best;
}

/**
 * zot_model_info_get_price:
 * @model: (nullable): a model's facts, %NULL for an unknown model
 * @counts: the tokens of one call
 * @cost_usd: (out): what the call cost in US dollars, cache reads and
 *   writes at their prices; 0 when unknown
 *
 * Returns: whether the cost is known: the model is known and priced
 */
gboolean
zot_model_info_get_price (const ZotModelInfo   *model,
                          const ZotTokenCounts *counts,
                          double               *cost_usd)
{
  g_return_val_if_fail (counts != NULL, FALSE);
  g_return_val_if_fail (cost_usd != NULL, FALSE);

  *cost_usd = 0.0;
  if (model == NULL || !model->priced)
    return FALSE;

  *cost_usd = (MAX (counts->input, 0) * model->input_price +
               MAX (counts->output, 0) * model->output_price +
               MAX (counts->cache_read, 0) * model->cache_read_price +
               MAX (counts->cache_write, 0) * model->cache_write_price) / 1e6;
  return TRUE;
}

/**
 * zot_model_facts_list:
 * @provider: (nullable): a provider name, or %NULL for all
 *
 * Returns: (transfer container) (element-type ZotModelInfo): the known
 *   models, shipped ones in file order, then the user's additions
 */
GPtrArray *
zot_model_facts_list (const char *provider)
{
  Facts *facts = get_facts ();
  GPtrArray *list = g_ptr_array_new ();

  for (guint i = 0; i < facts->models->len; i++)
    {
      ZotModelInfo *info = g_ptr_array_index (facts->models, i);

      if (provider == NULL || g_str_equal (provider, info->provider))
        g_ptr_array_add (list, info);
    }
  return list;
}

/**
 * zot_model_facts_get_warnings:
 *
 * Returns: (transfer none) (array zero-terminated=1): what was wrong with
 *   the user's models.json, one line each, naming the file, the line and
 *   the field
 */
const char * const *
zot_model_facts_get_warnings (void)
{
  return (const char * const *) get_facts ()->warnings->pdata;
}

/**
 * zot_model_facts_get_user_file:
 *
 * Returns: (transfer full): $ZOT_HOME/models.json
 */
char *
zot_model_facts_get_user_file (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, "models.json", NULL);
}

/**
 * zot_model_facts_reload:
 *
 * Reads the shipped models and the user's file again, for a changed
 * $ZOT_HOME or file. Facts looked up before are no longer valid.
 */
void
zot_model_facts_reload (void)
{
  G_LOCK (facts);
  g_clear_pointer (&current, facts_free);
  G_UNLOCK (facts);
}

/* How each API says that a request does not fit the model's context
 * window, as zot_http_error_summary() and the stream readers pass the
 * message on. Lower case. */
static const char * const overflow_phrases[] = {
  /* Anthropic: "prompt is too long: 210000 tokens > 200000 maximum" */
  "prompt is too long",
  /* OpenAI and most compatible servers (vLLM, OpenRouter, Groq, Mistral):
   * "This model's maximum context length is 128000 tokens…", the
   * error code context_length_exceeded */
  "maximum context length",
  "context_length_exceeded",
  "context length exceeded",
  /* llama.cpp's server: "the request exceeds the available context size" */
  "exceeds the available context size",
  /* Gemini: "The input token count (1200000) exceeds the maximum number
   * of tokens allowed (1048576)." */
  "exceeds the maximum number of tokens",
  /* Ollama and others: "input length exceeds the context length" */
  "exceeds the context length",
  "exceeds the context window",
};

/**
 * zot_model_error_is_context_overflow:
 * @error: a provider's error
 *
 * Returns: whether @error is the API saying the conversation does not fit
 *   the model's context window (Anthropic, OpenAI-compatible, Gemini)
 */
gboolean
zot_model_error_is_context_overflow (const GError *error)
{
  g_autofree char *lower = NULL;

  if (error == NULL || error->domain != ZOT_PROVIDER_ERROR ||
      (error->code != ZOT_PROVIDER_ERROR_HTTP && error->code != ZOT_PROVIDER_ERROR_BAD_STREAM))
    return FALSE;

  lower = g_utf8_strdown (error->message, -1);
  for (guint i = 0; i < G_N_ELEMENTS (overflow_phrases); i++)
    if (strstr (lower, overflow_phrases[i]) != NULL)
      return TRUE;
  return FALSE;
}
