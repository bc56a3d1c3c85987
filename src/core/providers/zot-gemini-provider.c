/* zot-gemini-provider.c — Google's Gemini API, streamed.
 *
 * The request goes to `models/<model>:streamGenerateContent?alt=sse`: the
 * zot-message.h conversation becomes "contents" of "user" and "model"
 * turns (tool calls as functionCall parts, their results as
 * functionResponse parts, images as inlineData), the system prompt the
 * "systemInstruction", the tools "functionDeclarations" whose JSON
 * schemas are cut down to the OpenAPI subset Gemini takes. The answer is
 * a series of GenerateContentResponse objects, one per event: text parts
 * to stream, whole function calls, a finishReason, and usageMetadata
 * with the running counts. Thought signatures: see zot-gemini-provider.h.
 */
#define G_LOG_DOMAIN "zot-gemini"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-gemini-provider.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-sse.h"

/* A function call past this many in one answer is a broken stream. */
#define MAX_TOOL_CALLS    1024
/* Tool schemas nest deeper than this only by mistake or recursion
 * ($ref to itself); below it they are cut off. */
#define MAX_SCHEMA_DEPTH  32
#define API_VERSION       "v1beta"

struct _ZotGeminiProvider
{
  ZotHttpProvider  parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotGeminiProvider, zot_gemini_provider, ZOT_TYPE_HTTP_PROVIDER)

typedef struct
{
  char *id;
  char *name;
  char *arguments;
  char *signature;
} Call;

typedef struct
{
  ZotProvider *provider;
  GString     *text;
  GString     *reasoning;
  gsize        reasoning_bytes;
  char        *text_signature;
  GPtrArray   *calls;
  char        *finish_reason;
  char        *id_prefix;
  gboolean     has_usage;
  gint64       prompt_tokens;
  gint64       cached_tokens;
  gint64       candidates_tokens;
  gint64       thoughts_tokens;
} Stream;

static void
call_free (gpointer user_data)
{
  Call *call = user_data;

  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_free (call->signature);
  g_free (call);
}

static void
stream_free (gpointer user_data)
{
  Stream *stream = user_data;

  g_string_free (stream->text, TRUE);
  g_string_free (stream->reasoning, TRUE);
  g_free (stream->text_signature);
  g_ptr_array_unref (stream->calls);
  g_free (stream->finish_reason);
  g_free (stream->id_prefix);
  g_free (stream);
}

/* ------------------------------------------------------------------ */
/* Tool schemas                                                        */
/* ------------------------------------------------------------------ */

static JsonObject *convert_schema (JsonObject *schema,
                                   JsonObject *root,
                                   guint       depth);

static gboolean
is_gemini_type (const char *type)
{
  static const char * const types[] = {
    "string", "number", "integer", "boolean", "array", "object", NULL
  };

  return type != NULL && g_strv_contains (types, type);
}

/* The formats Gemini takes for each type; others are refused with a 400. */
static gboolean
is_gemini_format (const char *type,
                  const char *format)
{
  if (g_strcmp0 (type, "string") == 0)
    return g_strcmp0 (format, "enum") == 0 || g_strcmp0 (format, "date-time") == 0;
  if (g_strcmp0 (type, "number") == 0)
    return g_strcmp0 (format, "float") == 0 || g_strcmp0 (format, "double") == 0;
  if (g_strcmp0 (type, "integer") == 0)
    return g_strcmp0 (format, "int32") == 0 || g_strcmp0 (format, "int64") == 0;
  return FALSE;
}

/* "#/$defs/name" or "#/definitions/name" in @root. */
static JsonObject *
resolve_ref (JsonObject *root,
             const char *ref)
{
  static const char * const prefixes[] = { "#/$defs/", "#/definitions/" };

  for (guint i = 0; ref != NULL && i < G_N_ELEMENTS (prefixes); i++)
    if (g_str_has_prefix (ref, prefixes[i]))
      {
        const char *member = prefixes[i] + strlen ("#/");
        g_autofree char *container = g_strndup (member, strchr (member, '/') - member);

        return zot_json_get_object (zot_json_get_object (root, container),
                                    ref + strlen (prefixes[i]));
      }

  return NULL;
}

/* JSON Schema's "type", which may be a list with "null" in it. */
static const char *
read_type (JsonObject *schema,
           gboolean   *nullable)
{
  JsonNode *node = json_object_get_member (schema, "type");

  *nullable = FALSE;
  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *types = json_node_get_array (node);
      const char *first = NULL;

      /* Gemini has one type per schema: the first that is not "null". */
      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *element = json_array_get_element (types, i);
          const char *type;

          if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
            continue;
          type = json_node_get_string (element);
          if (g_str_equal (type, "null"))
            *nullable = TRUE;
          else if (first == NULL)
            first = type;
        }
      return first;
    }
  return NULL;
}

static void
copy_member (JsonObject *out,
             JsonObject *schema,
             const char *member,
             GType       value_type)
{
  JsonNode *node = json_object_get_member (schema, member);

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      (json_node_get_value_type (node) == value_type ||
       (value_type == G_TYPE_DOUBLE && json_node_get_value_type (node) == G_TYPE_INT64)))
    json_object_set_member (out, member, json_node_copy (node));
}

/* A list of strings only: Gemini's enums are of strings. */
static JsonArray *
string_enum (JsonObject *schema)
{
  JsonNode *constant = json_object_get_member (schema, "const");
  JsonArray *values = zot_json_get_array (schema, "enum");
  JsonArray *out;

  if (constant != NULL && JSON_NODE_HOLDS_VALUE (constant) &&
      json_node_get_value_type (constant) == G_TYPE_STRING)
    {
      out = json_array_new ();
      json_array_add_string_element (out, json_node_get_string (constant));
      return out;
    }

  if (values == NULL || json_array_get_length (values) == 0)
    return NULL;

  for (guint i = 0; i < json_array_get_length (values); i++)
    {
      JsonNode *value = json_array_get_element (values, i);

      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        return NULL;
    }

  return json_array_ref (values);
}

static void
convert_properties (JsonObject *out,
                    JsonObject *schema,
                    JsonObject *root,
                    guint       depth)
{
  JsonObject *properties = zot_json_get_object (schema, "properties");
  JsonArray *required = zot_json_get_array (schema, "required");
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;
  JsonObject *into;
  JsonArray *names;

  if (properties == NULL)
    return;

  into = zot_json_get_object (out, "properties");
  if (into == NULL)
    {
      into = json_object_new ();
      json_object_set_object_member (out, "properties", into);
    }

  json_object_iter_init (&iter, properties);
  while (json_object_iter_next (&iter, &name, &value))
    if (JSON_NODE_HOLDS_OBJECT (value))
      json_object_set_object_member (into, name,
                                     convert_schema (json_node_get_object (value), root, depth + 1));

  /* A required name without its property is refused. */
  names = zot_json_get_array (out, "required");
  for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
    {
      JsonNode *element = json_array_get_element (required, i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        continue;
      name = json_node_get_string (element);
      if (!json_object_has_member (into, name))
        continue;
      if (names == NULL)
        {
          names = json_array_new ();
          json_object_set_array_member (out, "required", names);
        }
      json_array_add_string_element (names, name);
    }
}

/* @schema in the OpenAPI 3.0 subset Gemini takes: the members it knows
 * and nothing else (an unknown member is a 400), $ref resolved, oneOf as
 * anyOf, allOf merged, const and string enums as enums, a type on every
 * schema that has no anyOf. */
static JsonObject *
convert_schema (JsonObject *schema,
                JsonObject *root,
                guint       depth)
{
  JsonObject *out = json_object_new ();
  JsonObject *target;
  JsonArray *alternatives;
  JsonArray *all_of;
  JsonArray *values;
  JsonNode *items;
  const char *type;
  gboolean nullable;

  if (depth >= MAX_SCHEMA_DEPTH)
    {
      json_object_set_string_member (out, "type", "string");
      return out;
    }

  target = resolve_ref (root, zot_json_get_string (schema, "$ref"));
  if (target != NULL)
    {
      json_object_unref (out);
      out = convert_schema (target, root, depth + 1);
      copy_member (out, schema, "description", G_TYPE_STRING);
      return out;
    }

  copy_member (out, schema, "description", G_TYPE_STRING);

  alternatives = zot_json_get_array (schema, "anyOf");
  if (alternatives == NULL)
    alternatives = zot_json_get_array (schema, "oneOf");
  if (alternatives != NULL && json_array_get_length (alternatives) > 0)
    {
      JsonArray *any_of = json_array_new ();

      for (guint i = 0; i < json_array_get_length (alternatives); i++)
        {
          JsonObject *alternative = zot_json_array_get_object (alternatives, i);

          /* {"type":"null"} is Gemini's "nullable". */
          if (alternative == NULL)
            continue;
          if (g_strcmp0 (zot_json_get_string (alternative, "type"), "null") == 0)
            json_object_set_boolean_member (out, "nullable", TRUE);
          else
            json_array_add_object_element (any_of, convert_schema (alternative, root, depth + 1));
        }

      if (json_array_get_length (any_of) == 1)
        {
          JsonObject *only = json_array_get_object_element (any_of, 0);
          JsonObjectIter iter;
          const char *name;
          JsonNode *value;

          json_object_iter_init (&iter, only);
          while (json_object_iter_next (&iter, &name, &value))
            if (!json_object_has_member (out, name))
              json_object_set_member (out, name, json_node_copy (value));
          json_array_unref (any_of);
        }
      else if (json_array_get_length (any_of) > 1)
        {
          json_object_set_array_member (out, "anyOf", any_of);
          return out;
        }
      else
        json_array_unref (any_of);
    }

  type = read_type (schema, &nullable);
  if (nullable)
    json_object_set_boolean_member (out, "nullable", TRUE);
  copy_member (out, schema, "nullable", G_TYPE_BOOLEAN);

  all_of = zot_json_get_array (schema, "allOf");
  for (guint i = 0; all_of != NULL && i < json_array_get_length (all_of); i++)
    {
      JsonObject *part = zot_json_array_get_object (all_of, i);

      if (part == NULL)
        continue;
      if (resolve_ref (root, zot_json_get_string (part, "$ref")) != NULL)
        part = resolve_ref (root, zot_json_get_string (part, "$ref"));
      if (type == NULL)
        type = read_type (part, &nullable);
      convert_properties (out, part, root, depth);
    }

  values = string_enum (schema);
  if (g_strcmp0 (type, "null") == 0)
    json_object_set_boolean_member (out, "nullable", TRUE);
  if (type == NULL && (json_object_has_member (schema, "properties") ||
                       json_object_has_member (out, "properties")))
    type = "object";
  else if (type == NULL && json_object_has_member (schema, "items"))
    type = "array";

  /* Gemini wants a type: one it does not know, or none (JSON Schema's
   * "anything"), is taken as a string, the most a model can write. */
  if (is_gemini_type (type))
    json_object_set_string_member (out, "type", type);
  else if (zot_json_get_string (out, "type") == NULL)
    json_object_set_string_member (out, "type", "string");
  type = zot_json_get_string (out, "type");

  if (values != NULL && g_strcmp0 (type, "string") == 0)
    json_object_set_array_member (out, "enum", values);
  else if (values != NULL)
    json_array_unref (values);

  if (is_gemini_format (type, zot_json_get_string (schema, "format")))
    copy_member (out, schema, "format", G_TYPE_STRING);

  if (g_strcmp0 (type, "string") == 0)
    {
      copy_member (out, schema, "minLength", G_TYPE_INT64);
      copy_member (out, schema, "maxLength", G_TYPE_INT64);
      copy_member (out, schema, "pattern", G_TYPE_STRING);
    }
  else if (g_strcmp0 (type, "number") == 0 || g_strcmp0 (type, "integer") == 0)
    {
      copy_member (out, schema, "minimum", G_TYPE_DOUBLE);
      copy_member (out, schema, "maximum", G_TYPE_DOUBLE);
    }
  else if (g_strcmp0 (type, "array") == 0)
    {
      items = json_object_get_member (schema, "items");
      /* A tuple's items are a list: its first stands for all. */
      if (items != NULL && JSON_NODE_HOLDS_ARRAY (items) &&
          json_array_get_length (json_node_get_array (items)) > 0)
        items = json_array_get_element (json_node_get_array (items), 0);
      if (items != NULL && JSON_NODE_HOLDS_OBJECT (items))
        json_object_set_object_member (out, "items",
                                       convert_schema (json_node_get_object (items), root, depth + 1));
      else
        {
          JsonObject *any = json_object_new ();

          json_object_set_string_member (any, "type", "string");
          json_object_set_object_member (out, "items", any);
        }
      copy_member (out, schema, "minItems", G_TYPE_INT64);
      copy_member (out, schema, "maxItems", G_TYPE_INT64);
    }
  else if (g_strcmp0 (type, "object") == 0)
    convert_properties (out, schema, root, depth);

  return out;
}

/* ------------------------------------------------------------------ */
/* The request                                                         */
/* ------------------------------------------------------------------ */

static JsonObject *
text_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "text", text);
  return part;
}

static JsonObject *
inline_data_part (JsonObject *image)
{
  JsonObject *part = json_object_new ();
  JsonObject *data = json_object_new ();
  const char *mime = zot_json_get_string (image, "mime_type");

  json_object_set_string_member (data, "mimeType", mime != NULL ? mime : "image/png");
  json_object_set_string_member (data, "data", zot_json_get_string_or (image, "data", ""));
  json_object_set_object_member (part, "inlineData", data);
  return part;
}

/* A functionResponse part for @result, answering a call of @name; its
 * images go to @images, as Gemini's function responses hold no media. */
static JsonObject *
function_response_part (JsonObject *result,
                        const char *name,
                        JsonArray  *images)
{
  JsonObject *part = json_object_new ();
  JsonObject *response = json_object_new ();
  JsonObject *wrapper = json_object_new ();
  JsonNode *content = json_object_get_member (result, "content");
  g_autoptr(GString) text = g_string_new (NULL);

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *blocks = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (blocks); i++)
        {
          JsonObject *block = zot_json_array_get_object (blocks, i);
          const char *type = zot_json_get_string (block, "type");

          if (g_strcmp0 (type, "text") == 0)
            {
              if (text->len > 0)
                g_string_append_c (text, '\n');
              g_string_append (text, zot_json_get_string_or (block, "text", ""));
            }
          else if (g_strcmp0 (type, "image") == 0)
            json_array_add_object_element (images, inline_data_part (block));
        }
    }

  /* Google's convention: "output" for a result, "error" for a failure. */
  json_object_set_string_member (response,
                                 zot_json_get_boolean_or (result, "is_error", FALSE) ? "error" : "output",
                                 text->str);
  json_object_set_string_member (wrapper, "name", name);
  json_object_set_object_member (wrapper, "response", response);
  json_object_set_object_member (part, "functionResponse", wrapper);
  return part;
}

static gboolean
has_signed_call (JsonArray *content)
{
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);

      if (g_strcmp0 (zot_json_get_string (block, "type"), "tool_use") == 0 &&
          *zot_json_get_string_or (block, "thought_signature", "") != '\0')
        return TRUE;
    }
  return FALSE;
}

/* The parts of one message. @names maps the ids of the calls seen so far
 * to their tool names, which a functionResponse must repeat. */
static JsonArray *
translate_content (JsonArray  *content,
                   gboolean    from_model,
                   GHashTable *names)
{
  JsonArray *parts = json_array_new ();
  g_autoptr(JsonArray) images = json_array_new ();
  gboolean signed_calls = from_model && has_signed_call (content);

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);
      const char *type = zot_json_get_string (block, "type");
      const char *signature = zot_json_get_string (block, "thought_signature");
      JsonObject *part = NULL;

      if (type == NULL)
        continue;

      if (g_str_equal (type, "text"))
        {
          if (*zot_json_get_string_or (block, "text", "") != '\0')
            part = text_part (zot_json_get_string (block, "text"));
        }
      else if (g_str_equal (type, "image"))
        part = inline_data_part (block);
      else if (g_str_equal (type, "tool_use") && from_model)
        {
          JsonObject *call = json_object_new ();
          JsonObject *input = zot_json_get_object (block, "input");
          const char *name = zot_json_get_string_or (block, "name", "");

          json_object_set_string_member (call, "name", name);
          json_object_set_object_member (call, "args",
                                         input != NULL ? json_object_ref (input) : json_object_new ());
          part = json_object_new ();
          json_object_set_object_member (part, "functionCall", call);
          if (zot_json_get_string (block, "id") != NULL)
            g_hash_table_replace (names, g_strdup (zot_json_get_string (block, "id")), g_strdup (name));

          /* A call the model made keeps what it came with (only the first
           * of parallel calls is signed); a message without any signed
           * call was not the model's, and vouches for its calls with the
           * placeholder. */
          if (signature == NULL && !signed_calls)
            signature = ZOT_GEMINI_SIGNATURE_PLACEHOLDER;
        }
      else if (g_str_equal (type, "tool_result"))
        {
          const char *id = zot_json_get_string_or (block, "tool_use_id", "");
          const char *name = g_hash_table_lookup (names, id);

          part = function_response_part (block, name != NULL ? name : id, images);
        }

      if (part == NULL)
        continue;
      if (from_model && signature != NULL && *signature != '\0')
        json_object_set_string_member (part, "thoughtSignature", signature);
      json_array_add_object_element (parts, part);
    }

  for (guint i = 0; i < json_array_get_length (images); i++)
    json_array_add_element (parts, json_node_copy (json_array_get_element (images, i)));

  return parts;
}

static JsonArray *
translate_messages (JsonArray *messages)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  JsonArray *contents = json_array_new ();

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = zot_json_array_get_object (messages, i);
      JsonArray *content = zot_json_get_array (message, "content");
      g_autoptr(JsonArray) parts = NULL;
      gboolean from_model;

      if (message == NULL)
        continue;

      from_model = g_strcmp0 (zot_json_get_string (message, "role"), "assistant") == 0;
      if (content != NULL)
        parts = translate_content (content, from_model, names);
      else
        {
          /* Be lenient with a plain string content. */
          parts = json_array_new ();
          if (*zot_json_get_string_or (message, "content", "") != '\0')
            json_array_add_object_element (parts, text_part (zot_json_get_string (message, "content")));
        }

      zot_http_provider_add_turn (contents, from_model ? "model" : "user", "parts", parts);
    }

  return contents;
}

static JsonArray *
translate_tools (JsonArray *tools)
{
  JsonArray *out = json_array_new ();
  JsonObject *entry = json_object_new ();
  JsonArray *declarations = json_array_new ();

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = zot_json_array_get_object (tools, i);
      JsonObject *schema = zot_json_get_object (tool, "input_schema");
      JsonObject *declaration;

      if (tool == NULL || zot_json_get_string (tool, "name") == NULL)
        continue;

      declaration = json_object_new ();
      json_object_set_string_member (declaration, "name", zot_json_get_string (tool, "name"));
      if (zot_json_get_string (tool, "description") != NULL)
        json_object_set_string_member (declaration, "description",
                                       zot_json_get_string (tool, "description"));

      /* A function without arguments has no parameters at all: an object
       * without properties is refused. */
      if (schema != NULL)
        {
          JsonObject *parameters = convert_schema (schema, schema, 0);

          JsonObject *properties = zot_json_get_object (parameters, "properties");

          if (g_strcmp0 (zot_json_get_string (parameters, "type"), "object") == 0 &&
              properties != NULL && json_object_get_size (properties) > 0)
            json_object_set_object_member (declaration, "parameters", parameters);
          else
            json_object_unref (parameters);
        }

      json_array_add_object_element (declarations, declaration);
    }

  json_object_set_array_member (entry, "functionDeclarations", declarations);
  json_array_add_object_element (out, entry);
  return out;
}

/* What each reasoning level means to each family of models: Gemini 3
 * takes a thinking level (its Pro models only "low" and "high"), 2.5 a
 * budget of tokens (Pro cannot stop thinking, 128 at least), older models
 * none. Indexed by ZotReasoning; the default sends nothing. */
static const struct
{
  const char *pro_level;
  const char *flash_level;
  gint64      budget;
  gint64      pro_budget;
} reasoning_levels[] = {
  [ZOT_REASONING_OFF]     = { "low",  "minimal",     0,   128 },
  [ZOT_REASONING_MINIMUM] = { "low",  "minimal",  1024,  1024 },
  [ZOT_REASONING_LOW]     = { "low",  "low",      2048,  2048 },
  [ZOT_REASONING_MEDIUM]  = { "high", "medium",   8192,  8192 },
  [ZOT_REASONING_HIGH]    = { "high", "high",    24576, 32768 },
  [ZOT_REASONING_XHIGH]   = { "high", "high",    24576, 32768 },
  [ZOT_REASONING_MAX]     = { "high", "high",    24576, 32768 },
};

static JsonObject *
thinking_config (ZotReasoning  level,
                 const char   *model)
{
  gboolean pro = strstr (model, "-pro") != NULL;
  JsonObject *config;

  if (level == ZOT_REASONING_DEFAULT || (guint) level >= G_N_ELEMENTS (reasoning_levels))
    return NULL;

  if (g_str_has_prefix (model, "gemini-3"))
    {
      config = json_object_new ();
      json_object_set_string_member (config, "thinkingLevel",
                                     pro ? reasoning_levels[level].pro_level
                                         : reasoning_levels[level].flash_level);
      return config;
    }

  if (g_str_has_prefix (model, "gemini-2.5"))
    {
      config = json_object_new ();
      json_object_set_int_member (config, "thinkingBudget",
                                  pro ? reasoning_levels[level].pro_budget
                                      : reasoning_levels[level].budget);
      return config;
    }

  return NULL;
}

static const char *
model_name (ZotHttpProvider    *self,
            ZotProviderRequest *request)
{
  const char *model = zot_http_provider_request_model (self, request);

  /* The API's own listing names them "models/gemini-…". */
  if (g_str_has_prefix (model, "models/"))
    model += strlen ("models/");
  return model;
}

static JsonObject *
build_body (ZotHttpProvider    *self,
            ZotProviderRequest *request)
{
  JsonObject *body = json_object_new ();
  JsonObject *generation = json_object_new ();
  JsonObject *thinking = thinking_config (request->reasoning, model_name (self, request));

  json_object_set_array_member (body, "contents", translate_messages (request->messages));

  if (request->system_prompt != NULL && *request->system_prompt != '\0')
    {
      JsonObject *instruction = json_object_new ();
      JsonArray *parts = json_array_new ();

      json_array_add_object_element (parts, text_part (request->system_prompt));
      json_object_set_array_member (instruction, "parts", parts);
      json_object_set_object_member (body, "systemInstruction", instruction);
    }

  if (request->tools != NULL && json_array_get_length (request->tools) > 0)
    json_object_set_array_member (body, "tools", translate_tools (request->tools));

  if (request->max_tokens > 0)
    json_object_set_int_member (generation, "maxOutputTokens", request->max_tokens);
  if (thinking != NULL)
    {
      /* Without it the thinking is billed but its summary never shown. */
      json_object_set_boolean_member (thinking, "includeThoughts", TRUE);
      json_object_set_object_member (generation, "thinkingConfig", thinking);
    }
  if (json_object_get_size (generation) > 0)
    json_object_set_object_member (body, "generationConfig", generation);
  else
    json_object_unref (generation);

  return body;
}

/* ------------------------------------------------------------------ */
/* The stream                                                          */
/* ------------------------------------------------------------------ */

/* A busy server's error before any text or call is retried like the HTTP
 * status it carries; after, the turn ends. */
static gboolean
handle_error_object (Stream      *stream,
                     JsonObject  *error_object,
                     const char  *data,
                     GError     **error)
{
  const char *status = zot_json_get_string (error_object, "status");
  const char *message = zot_json_get_string (error_object, "message");
  guint http = zot_sse_stream_error_status (NULL, zot_json_get_int_or (error_object, "code", 0));
  GQuark domain = ZOT_PROVIDER_ERROR;
  gint code = ZOT_PROVIDER_ERROR_BAD_STREAM;

  if (g_strcmp0 (status, "RESOURCE_EXHAUSTED") == 0)
    {
      code = ZOT_PROVIDER_ERROR_RATE_LIMITED;
      http = http != 0 ? http : 429;
    }
  else if (g_strcmp0 (status, "UNAVAILABLE") == 0 || g_strcmp0 (status, "INTERNAL") == 0)
    {
      code = ZOT_PROVIDER_ERROR_SERVER;
      http = http != 0 ? http : g_str_equal (status, "UNAVAILABLE") ? 503 : 500;
    }
  if (http != 0 && stream->text->len == 0 && stream->calls->len == 0)
    {
      domain = ZOT_SSE_RETRYABLE_ERROR;
      code = (gint) http;
    }

  g_set_error (error, domain, code,
               _("the server reported an error in the stream: %s (%s)"),
               message != NULL ? message : data, status != NULL ? status : "error");
  return FALSE;
}

static gboolean
handle_function_call (Stream      *stream,
                      JsonObject  *part,
                      JsonObject  *function_call,
                      GError     **error)
{
  JsonNode *args = json_object_get_member (function_call, "args");
  const char *name = zot_json_get_string (function_call, "name");
  const char *id = zot_json_get_string (function_call, "id");
  const char *signature = zot_json_get_string (part, "thoughtSignature");
  Call *call;

  if (name == NULL || *name == '\0')
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                           _("the stream sent a function call without a name"));
      return FALSE;
    }
  if (args != NULL && !JSON_NODE_HOLDS_OBJECT (args) && !JSON_NODE_HOLDS_NULL (args))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent a call of “%s” whose arguments are not an object"), name);
      return FALSE;
    }
  if (stream->calls->len >= MAX_TOOL_CALLS)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent more than %u function calls"), MAX_TOOL_CALLS);
      return FALSE;
    }

  call = g_new0 (Call, 1);
  call->name = g_strdup (name);
  call->arguments = args != NULL && JSON_NODE_HOLDS_OBJECT (args) ? zot_json_to_string (args)
                                                                   : g_strdup ("{}");
  call->signature = signature != NULL && *signature != '\0' ? g_strdup (signature) : NULL;

  /* The API gives ids only sometimes; the host's must be unique within
   * the conversation, as sessions and the task journal key on them. */
  if (id != NULL && *id != '\0')
    call->id = g_strdup (id);
  else
    call->id = g_strdup_printf ("%s_%u", stream->id_prefix, stream->calls->len + 1);

  g_ptr_array_add (stream->calls, call);
  zot_provider_emit_tool_call_delta (stream->provider, stream->calls->len - 1, call->id, call->name,
                                     call->arguments);
  return TRUE;
}

static gboolean
handle_candidate (Stream      *stream,
                  JsonObject  *candidate,
                  GError     **error)
{
  JsonArray *parts = zot_json_get_array (zot_json_get_object (candidate, "content"), "parts");
  const char *finish_reason = zot_json_get_string (candidate, "finishReason");

  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonObject *part = zot_json_array_get_object (parts, i);
      JsonObject *function_call = zot_json_get_object (part, "functionCall");
      const char *text = zot_json_get_string (part, "text");
      const char *signature = zot_json_get_string (part, "thoughtSignature");

      if (part == NULL)
        continue;

      if (function_call != NULL)
        {
          if (!handle_function_call (stream, part, function_call, error))
            return FALSE;
          continue;
        }

      /* A signature elsewhere belongs to the text of the turn. */
      if (signature != NULL && *signature != '\0')
        {
          g_free (stream->text_signature);
          stream->text_signature = g_strdup (signature);
        }

      /* Thought summaries are the model's notes to itself, not its answer. */
      if (zot_json_get_boolean_or (part, "thought", FALSE))
        {
          if (!zot_provider_add_reasoning (stream->provider, stream->reasoning,
                                           &stream->reasoning_bytes, text, error))
            return FALSE;
        }
      else if (text != NULL && *text != '\0')
        {
          g_string_append (stream->text, text);
          zot_provider_emit_text_delta (stream->provider, text);
        }
    }

  if (finish_reason != NULL)
    {
      g_free (stream->finish_reason);
      stream->finish_reason = g_strdup (finish_reason);
    }

  return TRUE;
}

/* Counts the API leaves out are zero; every event repeats the totals so
 * far, so the last one counts. */
static void
handle_usage (Stream     *stream,
              JsonObject *usage)
{
  stream->has_usage = TRUE;
  stream->prompt_tokens = zot_json_get_int_or (usage, "promptTokenCount", 0);
  stream->cached_tokens = zot_json_get_int_or (usage, "cachedContentTokenCount", 0);
  stream->candidates_tokens = zot_json_get_int_or (usage, "candidatesTokenCount", 0);
  stream->thoughts_tokens = zot_json_get_int_or (usage, "thoughtsTokenCount", 0);
}

static gboolean
on_event (const char  *event,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  Stream *stream = user_data;
  g_autoptr(JsonObject) chunk = NULL;
  JsonObject *error_object;
  JsonObject *feedback;
  JsonObject *usage;
  JsonArray *candidates;
  const char *block_reason;

  chunk = zot_http_provider_parse_event (NULL, data, error);
  if (chunk == NULL)
    return FALSE;

  error_object = zot_json_get_object (chunk, "error");
  if (error_object != NULL || g_strcmp0 (event, "error") == 0)
    return handle_error_object (stream, error_object, data, error);

  /* The prompt itself was blocked: no candidate comes. */
  feedback = zot_json_get_object (chunk, "promptFeedback");
  block_reason = zot_json_get_string (feedback, "blockReason");
  if (block_reason != NULL && !g_str_equal (block_reason, "BLOCK_REASON_UNSPECIFIED"))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_REFUSED,
                   _("Gemini refused the prompt (%s); rephrase it"), block_reason);
      return FALSE;
    }

  usage = zot_json_get_object (chunk, "usageMetadata");
  if (usage != NULL)
    handle_usage (stream, usage);

  /* We ask for one candidate; ignore any other. */
  candidates = zot_json_get_array (chunk, "candidates");
  for (guint i = 0; candidates != NULL && i < json_array_get_length (candidates); i++)
    {
      JsonObject *candidate = zot_json_array_get_object (candidates, i);

      if (candidate != NULL && zot_json_get_int_or (candidate, "index", 0) == 0 &&
          !handle_candidate (stream, candidate, error))
        return FALSE;
    }

  return TRUE;
}

/* A finishReason other than STOP and MAX_TOKENS: the answer was withheld
 * or went wrong, said in one line with what to do. */
static void
set_finish_error (const char  *reason,
                  GError     **error)
{
  static const char * const withheld[] = {
    "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_PROHIBITED_CONTENT", "MODEL_ARMOR", NULL
  };

  if (g_str_equal (reason, "SAFETY") || g_str_equal (reason, "IMAGE_SAFETY"))
    g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_REFUSED,
                 _("Gemini's safety filters blocked the answer (%s); rephrase the request"), reason);
  else if (g_str_equal (reason, "RECITATION") || g_str_equal (reason, "IMAGE_RECITATION"))
    g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_REFUSED,
                 _("Gemini withheld an answer that recited protected material (%s); "
                   "rephrase the request"), reason);
  else if (g_strv_contains (withheld, reason))
    g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_REFUSED,
                 _("Gemini withheld the answer as prohibited content (%s); rephrase the request"),
                 reason);
  else if (g_str_equal (reason, "MALFORMED_FUNCTION_CALL"))
    g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                 _("Gemini wrote a function call it could not complete (%s); try again"), reason);
  else
    g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                 _("Gemini stopped the answer early (%s)"), reason);
}

static ZotProviderReply *
stream_end (gpointer   user_data,
            GError   **error)
{
  Stream *stream = user_data;
  JsonArray *content;
  g_autoptr(ZotProviderReply) reply = NULL;
  gboolean hit_limit;

  if (stream->finish_reason == NULL)
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                           _("the stream ended early"));
      return NULL;
    }

  hit_limit = g_str_equal (stream->finish_reason, "MAX_TOKENS");
  if (!hit_limit && !g_str_equal (stream->finish_reason, "STOP"))
    {
      set_finish_error (stream->finish_reason, error);
      return NULL;
    }

  reply = zot_http_provider_new_reply (&content);

  if (stream->reasoning->len > 0)
    json_array_add_object_element (content,
                                   zot_provider_new_thinking_block (stream->reasoning->str));

  if (stream->text->len > 0)
    {
      JsonObject *block = json_object_new ();

      json_object_set_string_member (block, "type", "text");
      json_object_set_string_member (block, "text", stream->text->str);
      if (stream->text_signature != NULL)
        json_object_set_string_member (block, "thought_signature", stream->text_signature);
      json_array_add_object_element (content, block);
    }

  for (guint i = 0; i < stream->calls->len; i++)
    {
      Call *call = g_ptr_array_index (stream->calls, i);
      JsonObject *block = zot_http_provider_new_tool_use (call->id, call->name, call->arguments);

      if (call->signature != NULL)
        json_object_set_string_member (block, "thought_signature", call->signature);
      json_array_add_object_element (content, block);
    }

  zot_http_provider_set_stop_reason (reply, hit_limit, stream->calls->len);

  /* The host's input excludes what the cache served, and its output
   * includes the thinking, which is billed as output. */
  if (stream->has_usage)
    {
      reply->input_tokens = MAX (stream->prompt_tokens - stream->cached_tokens, 0);
      reply->output_tokens = stream->candidates_tokens + stream->thoughts_tokens;
      reply->reasoning_tokens = stream->thoughts_tokens;
      reply->cache_read_tokens = stream->cached_tokens;
    }

  return g_steal_pointer (&reply);
}

/* ------------------------------------------------------------------ */
/* ZotHttpProvider                                                     */
/* ------------------------------------------------------------------ */

/* The API root: a base that already names a version keeps it. */
static char *
build_url (ZotHttpProvider *self,
           const char      *base)
{
  if (g_str_has_suffix (base, "/v1beta") || g_str_has_suffix (base, "/v1") ||
      g_str_has_suffix (base, "/v1alpha"))
    return g_strdup (base);
  return g_strconcat (base, "/" API_VERSION, NULL);
}

static char *
request_url (ZotHttpProvider    *self,
             const char         *url,
             ZotProviderRequest *request)
{
  g_autofree char *model = g_uri_escape_string (model_name (self, request), NULL, TRUE);

  return g_strdup_printf ("%s/models/%s:streamGenerateContent?alt=sse", url, model);
}

/* In a header rather than the query, so that no URL in an error or a log
 * carries it. */
static void
add_headers (ZotHttpProvider *self,
             GStrvBuilder    *headers)
{
  g_strv_builder_add_many (headers, "x-goog-api-key", zot_http_provider_get_api_key (self), NULL);
}

static gpointer
stream_new (ZotHttpProvider *self)
{
  Stream *stream = g_new0 (Stream, 1);
  g_autofree char *uuid = g_uuid_string_random ();

  stream->provider = ZOT_PROVIDER (self);
  stream->text = g_string_new (NULL);
  stream->reasoning = g_string_new (NULL);
  stream->calls = g_ptr_array_new_with_free_func (call_free);
  stream->id_prefix = g_strdup_printf ("call_%.8s", uuid);
  return stream;
}

static void
zot_gemini_provider_class_init (ZotGeminiProviderClass *klass)
{
  ZotHttpProviderClass *http_class = ZOT_HTTP_PROVIDER_CLASS (klass);

  http_class->info = zot_provider_table_lookup ("gemini");
  http_class->build_url = build_url;
  http_class->request_url = request_url;
  http_class->add_headers = add_headers;
  http_class->build_body = build_body;
  http_class->stream_new = stream_new;
  http_class->stream_free = stream_free;
  http_class->stream_event = on_event;
  http_class->stream_end = stream_end;
}

static void
zot_gemini_provider_init (ZotGeminiProvider *self)
{
}

/**
 * zot_gemini_provider_new:
 * @config: the configuration; a key is required
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   ZOT_PROVIDER_ERROR_CONFIG
 */
ZotProvider *
zot_gemini_provider_new (const ZotProviderConfig  *config,
                         GError                  **error)
{
  return zot_http_provider_new (ZOT_TYPE_GEMINI_PROVIDER, config, error);
}
