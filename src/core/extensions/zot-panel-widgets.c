/* zot-panel-widgets.c — reading a panel's widget tree, field by field.
 *
 * Every node is an object with a string `id` and `type`; the members each
 * type reads are in the table of docs/protocol.md. Members a type does not
 * read are ignored (the protocol's rule for unknown fields); a member it
 * reads must have the documented type and range, or the node becomes an
 * error node naming the member and the fix. Caps are counted on the way
 * and checked once at the end, so that a tree past one is refused whole.
 */
#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-panel-widgets.h"

typedef struct
{
  GPtrArray  *problems;
  GHashTable *ids;
  guint       nodes;
  guint       rows;
  guint       depth;
  char       *error;   /* the current node's first problem */
  char       *capped;  /* the first cap passed: the tree is refused */
} Context;

static const struct {
  const char       *name;
  ZotPanelNodeType  type;
} node_types[] = {
  { "error",     ZOT_PANEL_NODE_ERROR },
  { "box",       ZOT_PANEL_NODE_BOX },
  { "text",      ZOT_PANEL_NODE_TEXT },
  { "heading",   ZOT_PANEL_NODE_HEADING },
  { "button",    ZOT_PANEL_NODE_BUTTON },
  { "entry",     ZOT_PANEL_NODE_ENTRY },
  { "textarea",  ZOT_PANEL_NODE_TEXTAREA },
  { "switch",    ZOT_PANEL_NODE_SWITCH },
  { "check",     ZOT_PANEL_NODE_CHECK },
  { "dropdown",  ZOT_PANEL_NODE_DROPDOWN },
  { "list",      ZOT_PANEL_NODE_LIST },
  { "progress",  ZOT_PANEL_NODE_PROGRESS },
  { "spinner",   ZOT_PANEL_NODE_SPINNER },
  { "separator", ZOT_PANEL_NODE_SEPARATOR },
  { "code",      ZOT_PANEL_NODE_CODE },
  { "image",     ZOT_PANEL_NODE_IMAGE },
};

static const char * const style_names[] = {
  [ZOT_PANEL_STYLE_PLAIN] = "plain",
  [ZOT_PANEL_STYLE_DIM] = "dim",
  [ZOT_PANEL_STYLE_BOLD] = "bold",
  [ZOT_PANEL_STYLE_ITALIC] = "italic",
  [ZOT_PANEL_STYLE_CAPTION] = "caption",
  [ZOT_PANEL_STYLE_SUCCESS] = "success",
  [ZOT_PANEL_STYLE_WARNING] = "warning",
  [ZOT_PANEL_STYLE_ERROR] = "error",
  [ZOT_PANEL_STYLE_SUGGESTED] = "suggested",
  [ZOT_PANEL_STYLE_DESTRUCTIVE] = "destructive",
  [ZOT_PANEL_STYLE_FLAT] = "flat",
};

#define TEXT_STYLES   "plain, dim, bold, italic, caption, success, warning or error"
#define BUTTON_STYLES "plain, suggested, destructive or flat"

const char *
zot_panel_node_type_to_string (ZotPanelNodeType type)
{
  for (guint i = 0; i < G_N_ELEMENTS (node_types); i++)
    if (node_types[i].type == type)
      return node_types[i].name;
  return "error";
}

static void
row_button_free (ZotPanelRowButton *button)
{
  g_free (button->id);
  g_free (button->label);
  g_free (button->icon);
  g_free (button);
}

static void
option_free (ZotPanelOption *option)
{
  g_free (option->value);
  g_free (option->label);
  g_free (option);
}

ZotPanelRow *
zot_panel_row_ref (ZotPanelRow *row)
{
  g_return_val_if_fail (row != NULL, NULL);
  g_atomic_ref_count_inc (&row->ref_count);
  return row;
}

void
zot_panel_row_unref (ZotPanelRow *row)
{
  g_return_if_fail (row != NULL);

  if (!g_atomic_ref_count_dec (&row->ref_count))
    return;

  g_free (row->id);
  g_free (row->title);
  g_free (row->subtitle);
  g_free (row->icon);
  g_clear_pointer (&row->buttons, g_ptr_array_unref);
  g_free (row);
}

/**
 * zot_panel_row_equal:
 *
 * Whether two rows show the same: a re-render leaves such a row alone.
 */
gboolean
zot_panel_row_equal (const ZotPanelRow *a,
                     const ZotPanelRow *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (g_strcmp0 (a->id, b->id) != 0 || g_strcmp0 (a->title, b->title) != 0 ||
      g_strcmp0 (a->subtitle, b->subtitle) != 0 || g_strcmp0 (a->icon, b->icon) != 0 ||
      a->checked != b->checked || a->activatable != b->activatable ||
      a->buttons->len != b->buttons->len)
    return FALSE;

  for (guint i = 0; i < a->buttons->len; i++)
    {
      ZotPanelRowButton *x = g_ptr_array_index (a->buttons, i);
      ZotPanelRowButton *y = g_ptr_array_index (b->buttons, i);

      if (g_strcmp0 (x->id, y->id) != 0 || g_strcmp0 (x->label, y->label) != 0 ||
          g_strcmp0 (x->icon, y->icon) != 0 || x->style != y->style)
        return FALSE;
    }
  return TRUE;
}

static ZotPanelNode *
node_new (ZotPanelNodeType  type,
          const char       *id)
{
  ZotPanelNode *node = g_new0 (ZotPanelNode, 1);

  node->type = type;
  node->id = g_strdup (id != NULL ? id : "");
  node->active = -1;
  node->fraction = -1;
  node->sensitive = TRUE;
  return node;
}

void
zot_panel_node_free (ZotPanelNode *node)
{
  if (node == NULL)
    return;

  g_free (node->id);
  g_free (node->text);
  g_free (node->label);
  g_free (node->description);
  g_free (node->placeholder);
  g_free (node->value);
  g_free (node->icon);
  g_free (node->submit_label);
  g_clear_pointer (&node->children, g_ptr_array_unref);
  g_clear_pointer (&node->rows, g_ptr_array_unref);
  g_clear_pointer (&node->options, g_ptr_array_unref);
  g_clear_pointer (&node->image, g_bytes_unref);
  g_free (node);
}

static ZotPanelNode *
error_node (const char *id,
            const char *message)
{
  ZotPanelNode *node = node_new (ZOT_PANEL_NODE_ERROR, id);

  node->text = g_strdup (message);
  return node;
}

/* Field readers. Each returns FALSE after noting the node's first problem
 * in the context; an absent member is never a problem unless @required. */

static gboolean
fail (Context    *ctx,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (Context    *ctx,
      const char *format,
      ...)
{
  va_list args;

  if (ctx->error == NULL)
    {
      va_start (args, format);
      ctx->error = g_strdup_vprintf (format, args);
      va_end (args);
    }
  return FALSE;
}

static gboolean
is_present (JsonObject *object,
            const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node);
}

static gboolean
read_string (Context     *ctx,
             JsonObject  *object,
             const char  *member,
             gboolean     required,
             char       **out)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        return fail (ctx, "\"%s\" is missing; it must be a string", member);
      return TRUE;
    }

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fail (ctx, "\"%s\" must be a string", member);

  g_free (*out);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
read_boolean (Context    *ctx,
              JsonObject *object,
              const char *member,
              gboolean   *out)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fail (ctx, "\"%s\" must be true or false", member);

  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
read_number (Context    *ctx,
             JsonObject *object,
             const char *member,
             double      min,
             double      max,
             double     *out)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type;
  double value;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return fail (ctx, "\"%s\" must be a number from %g to %g", member, min, max);

  value = json_node_get_double (node);
  if (!(value >= min && value <= max))
    return fail (ctx, "\"%s\" must be a number from %g to %g, not %g", member, min, max, value);

  *out = value;
  return TRUE;
}

static gboolean
read_uint (Context    *ctx,
           JsonObject *object,
           const char *member,
           guint       min,
           guint       max,
           guint      *out)
{
  double value = *out;

  if (!read_number (ctx, object, member, min, max, &value))
    return FALSE;
  if (value != (double) (guint) value)
    return fail (ctx, "\"%s\" must be a whole number from %u to %u", member, min, max);

  *out = (guint) value;
  return TRUE;
}

static gboolean
read_style (Context       *ctx,
            JsonObject    *object,
            ZotPanelStyle  first,
            ZotPanelStyle  last,
            const char    *allowed,
            ZotPanelStyle *out)
{
  g_autofree char *name = NULL;

  if (!read_string (ctx, object, "style", FALSE, &name))
    return FALSE;
  if (name == NULL)
    return TRUE;

  if (g_str_equal (name, "plain"))
    {
      *out = ZOT_PANEL_STYLE_PLAIN;
      return TRUE;
    }
  for (guint i = first; i <= last; i++)
    if (g_str_equal (name, style_names[i]))
      {
        *out = i;
        return TRUE;
      }

  return fail (ctx, "\"style\" \"%s\" is not one of %s", name, allowed);
}

/* Icon names come from the icon theme: a plain name, never a path. */
static gboolean
read_icon (Context     *ctx,
           JsonObject  *object,
           char       **out)
{
  if (!read_string (ctx, object, "icon", FALSE, out))
    return FALSE;
  if (*out == NULL)
    return TRUE;

  if (**out == '\0' || strlen (*out) > 64 ||
      strspn (*out, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen (*out))
    {
      g_clear_pointer (out, g_free);
      return fail (ctx, "\"icon\" must be an icon name of at most 64 characters "
                        "(a-z, 0-9, \"-\", \"_\", \".\"), such as \"document-open-symbolic\"");
    }
  return TRUE;
}

static gboolean
id_is_usable (const char *id)
{
  return id != NULL && *id != '\0' && strlen (id) <= ZOT_PANEL_WIDGET_ID_MAX_BYTES;
}

static const char *
id_problem (void)
{
  return "\"id\" must be a non-empty string of at most "
         G_STRINGIFY (ZOT_PANEL_WIDGET_ID_MAX_BYTES) " bytes";
}

static ZotPanelNode *parse_node (Context  *ctx,
                                 JsonNode *json,
                                 guint     index);

static gboolean
read_children (Context      *ctx,
               JsonObject   *object,
               ZotPanelNode *node)
{
  JsonNode *member = json_object_get_member (object, "children");
  JsonArray *array;

  node->children = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_panel_node_free);

  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (member))
    return fail (ctx, "\"children\" must be an array of widgets");

  /* Children are read after this node's own fields, with its error (if
   * any) set aside: a bad child must not turn its parent into an error. */
  array = json_node_get_array (member);
  ctx->depth++;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      ZotPanelNode *child = parse_node (ctx, json_array_get_element (array, i), i);

      if (child == NULL)
        break;
      g_ptr_array_add (node->children, child);
    }
  ctx->depth--;
  return TRUE;
}

static gboolean
read_row_buttons (Context     *ctx,
                  JsonObject  *object,
                  ZotPanelRow *row)
{
  JsonNode *member = json_object_get_member (object, "buttons");
  g_autoptr(GHashTable) ids = NULL;
  JsonArray *array;

  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (member))
    return fail (ctx, "row \"%s\": \"buttons\" must be an array", row->id);

  array = json_node_get_array (member);
  if (json_array_get_length (array) > ZOT_PANEL_ROW_MAX_BUTTONS)
    return fail (ctx, "row \"%s\" has %u buttons; at most %u are allowed", row->id,
                 json_array_get_length (array), ZOT_PANEL_ROW_MAX_BUTTONS);

  ids = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      ZotPanelRowButton *button;
      JsonObject *spec;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return fail (ctx, "row \"%s\": button %u is not an object", row->id, i);
      spec = json_node_get_object (element);

      button = g_new0 (ZotPanelRowButton, 1);
      g_ptr_array_add (row->buttons, button);
      if (!read_string (ctx, spec, "id", TRUE, &button->id) ||
          !read_string (ctx, spec, "label", TRUE, &button->label) ||
          !read_icon (ctx, spec, &button->icon) ||
          !read_style (ctx, spec, ZOT_PANEL_STYLE_SUGGESTED, ZOT_PANEL_STYLE_FLAT, BUTTON_STYLES,
                       &button->style))
        return FALSE;
      if (!id_is_usable (button->id))
        return fail (ctx, "row \"%s\": button %u: %s", row->id, i, id_problem ());
      if (!g_hash_table_add (ids, button->id))
        return fail (ctx, "row \"%s\": two buttons have the id \"%s\"; button ids must differ",
                     row->id, button->id);
    }
  return TRUE;
}

static gboolean
read_rows (Context      *ctx,
           JsonObject   *object,
           ZotPanelNode *node)
{
  JsonNode *member = json_object_get_member (object, "rows");
  g_autoptr(GHashTable) ids = NULL;
  JsonArray *array;
  guint n;

  node->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_panel_row_unref);

  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (member))
    return fail (ctx, "\"rows\" must be an array of rows");

  array = json_node_get_array (member);
  n = json_array_get_length (array);
  ctx->rows += n;
  if (ctx->rows > ZOT_PANEL_LIST_MAX_ROWS)
    {
      if (ctx->capped == NULL)
        ctx->capped = g_strdup_printf ("the panel's lists have more than %u rows; send fewer "
                                       "(page them, or filter with an entry)",
                                       ZOT_PANEL_LIST_MAX_ROWS);
      return TRUE;
    }

  ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_set_size (node->rows, 0);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      ZotPanelRow *row;
      JsonObject *spec;
      gboolean checked = FALSE;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return fail (ctx, "row %u is not an object", i);
      spec = json_node_get_object (element);

      row = g_new0 (ZotPanelRow, 1);
      g_atomic_ref_count_init (&row->ref_count);
      row->checked = -1;
      row->activatable = TRUE;
      row->buttons = g_ptr_array_new_with_free_func ((GDestroyNotify) row_button_free);
      g_ptr_array_add (node->rows, row);

      if (!read_string (ctx, spec, "id", FALSE, &row->id))
        return FALSE;
      if (!id_is_usable (row->id))
        return fail (ctx, "row %u: %s", i, id_problem ());
      if (!read_string (ctx, spec, "title", TRUE, &row->title) ||
          !read_string (ctx, spec, "subtitle", FALSE, &row->subtitle) ||
          !read_icon (ctx, spec, &row->icon) ||
          !read_boolean (ctx, spec, "activatable", &row->activatable))
        return FALSE;
      if (is_present (spec, "checked"))
        {
          if (!read_boolean (ctx, spec, "checked", &checked))
            return FALSE;
          row->checked = checked ? 1 : 0;
        }
      if (!read_row_buttons (ctx, spec, row))
        return FALSE;
      if (!g_hash_table_add (ids, row->id))
        return fail (ctx, "two rows have the id \"%s\"; row ids must differ", row->id);
    }
  return TRUE;
}

static gboolean
read_options (Context      *ctx,
              JsonObject   *object,
              ZotPanelNode *node)
{
  JsonNode *member = json_object_get_member (object, "options");
  JsonArray *array;
  guint n;

  node->options = g_ptr_array_new_with_free_func ((GDestroyNotify) option_free);

  if (member == NULL || !JSON_NODE_HOLDS_ARRAY (member))
    return fail (ctx, "\"options\" must be an array of strings or {\"value\", \"label\"} objects");

  array = json_node_get_array (member);
  n = json_array_get_length (array);
  if (n == 0 || n > ZOT_PANEL_DROPDOWN_MAX_OPTIONS)
    return fail (ctx, "\"options\" has %u entries; it needs 1 to %u", n,
                 ZOT_PANEL_DROPDOWN_MAX_OPTIONS);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      ZotPanelOption *option = g_new0 (ZotPanelOption, 1);

      g_ptr_array_add (node->options, option);
      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        {
          option->value = g_strdup (json_node_get_string (element));
          option->label = g_strdup (option->value);
        }
      else if (JSON_NODE_HOLDS_OBJECT (element))
        {
          JsonObject *spec = json_node_get_object (element);

          if (!read_string (ctx, spec, "value", TRUE, &option->value) ||
              !read_string (ctx, spec, "label", FALSE, &option->label))
            return FALSE;
          if (option->label == NULL)
            option->label = g_strdup (option->value);
        }
      else
        return fail (ctx, "option %u must be a string or a {\"value\", \"label\"} object", i);
    }

  if (node->value != NULL)
    {
      for (guint i = 0; i < n; i++)
        if (g_str_equal (((ZotPanelOption *) g_ptr_array_index (node->options, i))->value,
                         node->value))
          return TRUE;
      return fail (ctx, "\"value\" \"%s\" is not the value of any option", node->value);
    }
  return TRUE;
}

static gboolean
read_image (Context      *ctx,
            JsonObject   *object,
            ZotPanelNode *node)
{
  static const guint8 png_signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autofree char *data = NULL;
  g_autofree guchar *bytes = NULL;
  gsize length = 0;

  if (!read_string (ctx, object, "data", TRUE, &data))
    return FALSE;

  /* Decoded, base64 takes three bytes for every four characters. */
  if (strlen (data) / 4 * 3 > ZOT_PANEL_IMAGE_MAX_BYTES + 2)
    return fail (ctx, "\"data\" is larger than %" G_GSIZE_FORMAT " bytes once decoded; "
                      "send a smaller PNG", ZOT_PANEL_IMAGE_MAX_BYTES);

  bytes = g_base64_decode (data, &length);
  if (length > ZOT_PANEL_IMAGE_MAX_BYTES)
    return fail (ctx, "\"data\" is larger than %" G_GSIZE_FORMAT " bytes once decoded; "
                      "send a smaller PNG", ZOT_PANEL_IMAGE_MAX_BYTES);
  if (length < sizeof png_signature || memcmp (bytes, png_signature, sizeof png_signature) != 0)
    return fail (ctx, "\"data\" must be a PNG file in base64");

  node->image = g_bytes_new_take (g_steal_pointer (&bytes), length);
  return read_uint (ctx, object, "height", 1, 2048, &node->max_height);
}

/* The members of each type; FALSE with the context's error set when one
 * is wrong. */
static gboolean
read_fields (Context      *ctx,
             JsonObject   *object,
             ZotPanelNode *node)
{
  g_autofree char *orientation = NULL;

  if (!read_string (ctx, object, "label", FALSE, &node->label) ||
      !read_string (ctx, object, "description", FALSE, &node->description) ||
      !read_boolean (ctx, object, "sensitive", &node->sensitive))
    return FALSE;

  switch (node->type)
    {
    case ZOT_PANEL_NODE_BOX:
      node->spacing = 6;
      if (!read_string (ctx, object, "orientation", FALSE, &orientation) ||
          !read_uint (ctx, object, "spacing", 0, 48, &node->spacing))
        return FALSE;
      if (orientation != NULL && !g_str_equal (orientation, "vertical") &&
          !g_str_equal (orientation, "horizontal"))
        return fail (ctx, "\"orientation\" must be \"vertical\" or \"horizontal\"");
      node->horizontal = g_strcmp0 (orientation, "horizontal") == 0;
      return read_children (ctx, object, node);

    case ZOT_PANEL_NODE_TEXT:
      return read_string (ctx, object, "text", TRUE, &node->text) &&
             read_style (ctx, object, ZOT_PANEL_STYLE_DIM, ZOT_PANEL_STYLE_ERROR, TEXT_STYLES,
                         &node->style);

    case ZOT_PANEL_NODE_HEADING:
      node->level = 2;
      return read_string (ctx, object, "text", TRUE, &node->text) &&
             read_uint (ctx, object, "level", 1, 3, &node->level);

    case ZOT_PANEL_NODE_BUTTON:
      return read_string (ctx, object, "label", TRUE, &node->label) &&
             read_icon (ctx, object, &node->icon) &&
             read_style (ctx, object, ZOT_PANEL_STYLE_SUGGESTED, ZOT_PANEL_STYLE_FLAT,
                         BUTTON_STYLES, &node->style);

    case ZOT_PANEL_NODE_ENTRY:
      if (!read_string (ctx, object, "submit_label", FALSE, &node->submit_label) ||
          !read_boolean (ctx, object, "secret", &node->secret))
        return FALSE;
      G_GNUC_FALLTHROUGH;
    case ZOT_PANEL_NODE_TEXTAREA:
      node->max_height = 160;
      return read_string (ctx, object, "label", TRUE, &node->label) &&
             read_string (ctx, object, "placeholder", FALSE, &node->placeholder) &&
             read_string (ctx, object, "value", FALSE, &node->value) &&
             read_uint (ctx, object, "max_height", 40, 4000, &node->max_height);

    case ZOT_PANEL_NODE_SWITCH:
    case ZOT_PANEL_NODE_CHECK:
      {
        gboolean value = FALSE;

        if (!read_string (ctx, object, "label", TRUE, &node->label) ||
            !read_boolean (ctx, object, "value", &value))
          return FALSE;
        node->active = is_present (object, "value") ? value : -1;
        return TRUE;
      }

    case ZOT_PANEL_NODE_DROPDOWN:
      return read_string (ctx, object, "label", TRUE, &node->label) &&
             read_string (ctx, object, "value", FALSE, &node->value) &&
             read_options (ctx, object, node);

    case ZOT_PANEL_NODE_LIST:
      node->max_height = 320;
      return read_uint (ctx, object, "max_height", 60, 4000, &node->max_height) &&
             read_string (ctx, object, "placeholder", FALSE, &node->placeholder) &&
             read_rows (ctx, object, node);

    case ZOT_PANEL_NODE_PROGRESS:
      return read_number (ctx, object, "fraction", 0, 1, &node->fraction) &&
             read_string (ctx, object, "text", FALSE, &node->text);

    case ZOT_PANEL_NODE_SPINNER:
      return read_string (ctx, object, "text", FALSE, &node->text);

    case ZOT_PANEL_NODE_SEPARATOR:
      return TRUE;

    case ZOT_PANEL_NODE_CODE:
      node->max_height = 240;
      return read_string (ctx, object, "text", TRUE, &node->text) &&
             read_uint (ctx, object, "max_height", 40, 4000, &node->max_height);

    case ZOT_PANEL_NODE_IMAGE:
      return read_string (ctx, object, "label", TRUE, &node->label) &&
             read_image (ctx, object, node);

    case ZOT_PANEL_NODE_ERROR:
    default:
      return fail (ctx, "\"type\" \"error\" is the host's own; choose another type");
    }
}

static void
note_problem (Context    *ctx,
              const char *id,
              const char *type,
              guint       index,
              const char *message)
{
  if (id_is_usable (id))
    g_ptr_array_add (ctx->problems,
                     g_strdup_printf ("widget \"%s\" (%s): %s", id, type ? type : "?", message));
  else
    g_ptr_array_add (ctx->problems,
                     g_strdup_printf ("widget %u of its box (%s): %s", index, type ? type : "?", message));
}

/* Returns NULL only when a cap was passed: the caller stops reading. */
static ZotPanelNode *
parse_node (Context  *ctx,
            JsonNode *json,
            guint     index)
{
  ZotPanelNode *node;
  JsonObject *object;
  const char *id = NULL;
  const char *type_name = NULL;
  ZotPanelNodeType type = ZOT_PANEL_NODE_ERROR;
  gboolean known = FALSE;
  JsonNode *member;
  char *error;

  if (ctx->capped == NULL && ++ctx->nodes > ZOT_PANEL_WIDGETS_MAX_NODES)
    ctx->capped = g_strdup_printf ("the panel has more than %u widgets; send fewer (a list's rows "
                                   "do not count)", ZOT_PANEL_WIDGETS_MAX_NODES);
  if (ctx->capped == NULL && ctx->depth > ZOT_PANEL_WIDGETS_MAX_DEPTH)
    ctx->capped = g_strdup_printf ("boxes are nested more than %u deep; flatten the tree",
                                   ZOT_PANEL_WIDGETS_MAX_DEPTH);
  if (ctx->capped != NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_OBJECT (json))
    {
      note_problem (ctx, NULL, NULL, index, "a widget must be a JSON object");
      return error_node (NULL, "a widget must be a JSON object");
    }
  object = json_node_get_object (json);

  member = json_object_get_member (object, "id");
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
      json_node_get_value_type (member) == G_TYPE_STRING)
    id = json_node_get_string (member);
  member = json_object_get_member (object, "type");
  if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
      json_node_get_value_type (member) == G_TYPE_STRING)
    type_name = json_node_get_string (member);

  for (guint i = 1; type_name != NULL && i < G_N_ELEMENTS (node_types); i++)
    if (g_str_equal (type_name, node_types[i].name))
      {
        type = node_types[i].type;
        known = TRUE;
      }

  if (type_name == NULL)
    fail (ctx, "\"type\" is missing; it must be a string such as \"text\" or \"button\"");
  else if (!known)
    fail (ctx, "unknown widget type \"%s\"; see \"Panel widgets\" in the protocol docs", type_name);
  else if (!id_is_usable (id))
    fail (ctx, "%s", id_problem ());
  else if (g_hash_table_contains (ctx->ids, id))
    fail (ctx, "the id \"%s\" is used twice; every widget of a panel needs its own", id);

  if (ctx->error != NULL)
    {
      g_autofree char *message = g_steal_pointer (&ctx->error);

      note_problem (ctx, id, type_name, index, message);
      /* The row keeps a usable id, so that a later render can replace it. */
      if (id_is_usable (id) && g_hash_table_add (ctx->ids, g_strdup (id)))
        return error_node (id, message);
      return error_node (NULL, message);
    }

  g_hash_table_add (ctx->ids, g_strdup (id));
  node = node_new (type, id);
  if (read_fields (ctx, object, node))
    return node;

  /* A child read before the failing field may have passed a cap. */
  error = g_steal_pointer (&ctx->error);
  note_problem (ctx, id, type_name, index, error);
  zot_panel_node_free (node);
  node = error_node (id, error);
  g_free (error);
  return node;
}

static ZotPanelNode *
refuse_tree (GPtrArray  *problems,
             const char *message)
{
  ZotPanelNode *root = node_new (ZOT_PANEL_NODE_BOX, "");

  root->spacing = 12;
  root->children = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_panel_node_free);
  g_ptr_array_add (root->children, error_node (NULL, message));
  g_ptr_array_add (problems, g_strdup (message));
  return root;
}

/**
 * zot_panel_widgets_parse:
 * @widgets: the `widgets` member of `open_panel` or `panel_render`
 * @problems: (element-type utf8): where each problem goes, one line each,
 *   saying what is wrong and how to fix it
 *
 * Returns: (transfer full): a vertical box holding the top-level widgets,
 *   with error nodes where something was wrong
 */
ZotPanelNode *
zot_panel_widgets_parse (JsonNode  *widgets,
                         GPtrArray *problems)
{
  g_autoptr(ZotPanelNode) root = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(GHashTable) ids = NULL;
  g_autofree char *compact = NULL;
  Context ctx = { 0 };
  gsize size = 0;
  JsonArray *array;

  g_return_val_if_fail (widgets != NULL, NULL);
  g_return_val_if_fail (problems != NULL, NULL);

  if (!JSON_NODE_HOLDS_ARRAY (widgets))
    return refuse_tree (problems, "\"widgets\" must be an array of widgets");

  generator = json_generator_new ();
  json_generator_set_root (generator, widgets);
  compact = json_generator_to_data (generator, &size);
  if (size > ZOT_PANEL_WIDGETS_MAX_BYTES)
    {
      g_autofree char *message =
        g_strdup_printf ("the widget tree is %" G_GSIZE_FORMAT " bytes of JSON; at most %"
                         G_GSIZE_FORMAT " are shown. Send fewer rows or shorter text",
                         size, ZOT_PANEL_WIDGETS_MAX_BYTES);
      return refuse_tree (problems, message);
    }

  ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ctx.problems = g_ptr_array_new_with_free_func (g_free);
  ctx.ids = ids;
  ctx.depth = 1;

  root = node_new (ZOT_PANEL_NODE_BOX, "");
  root->spacing = 12;
  root->children = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_panel_node_free);
  array = json_node_get_array (widgets);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      ZotPanelNode *child = parse_node (&ctx, json_array_get_element (array, i), i);

      if (child == NULL)
        break;
      g_ptr_array_add (root->children, child);
    }
  g_clear_pointer (&ctx.error, g_free);

  if (ctx.capped != NULL)
    {
      g_autofree char *message = g_steal_pointer (&ctx.capped);

      g_ptr_array_unref (ctx.problems);
      return refuse_tree (problems, message);
    }

  for (guint i = 0; i < ctx.problems->len; i++)
    g_ptr_array_add (problems, g_strdup (g_ptr_array_index (ctx.problems, i)));
  g_ptr_array_unref (ctx.problems);
  return g_steal_pointer (&root);
}

/**
 * zot_panel_node_find:
 *
 * Returns: (transfer none) (nullable): the node with @id under @root
 */
ZotPanelNode *
zot_panel_node_find (ZotPanelNode *root,
                     const char   *id)
{
  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (*root->id != '\0' && g_str_equal (root->id, id))
    return root;

  for (guint i = 0; root->children != NULL && i < root->children->len; i++)
    {
      ZotPanelNode *found = zot_panel_node_find (g_ptr_array_index (root->children, i), id);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/**
 * zot_panel_node_count_errors:
 *
 * Returns: how many error nodes @root holds
 */
guint
zot_panel_node_count_errors (ZotPanelNode *root)
{
  guint n;

  g_return_val_if_fail (root != NULL, 0);

  n = root->type == ZOT_PANEL_NODE_ERROR ? 1 : 0;
  for (guint i = 0; root->children != NULL && i < root->children->len; i++)
    n += zot_panel_node_count_errors (g_ptr_array_index (root->children, i));
  return n;
}
