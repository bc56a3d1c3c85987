/* test-panel-widgets.c — the validator of native panel widgets: every
 * widget type read with its fields, every bad field turned into an error
 * node with a problem line, and the caps at their edges. */
#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-panel-widgets.h"

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

/* Parses @text; the problems land in @problems. */
static ZotPanelNode *
parse (const char *text,
       GPtrArray  *problems)
{
  g_autoptr(JsonNode) json = parse_json (text);

  return zot_panel_widgets_parse (json, problems);
}

static ZotPanelNode *
child (ZotPanelNode *node,
       guint         index)
{
  g_assert_nonnull (node->children);
  g_assert_cmpuint (index, <, node->children->len);
  return g_ptr_array_index (node->children, index);
}

static const char *all_widgets =
  "[{\"id\":\"box\",\"type\":\"box\",\"orientation\":\"horizontal\",\"spacing\":12,"
  "  \"label\":\"Toolbar\",\"children\":["
  "    {\"id\":\"ok\",\"type\":\"button\",\"label\":\"OK\",\"style\":\"suggested\","
  "     \"icon\":\"emblem-ok-symbolic\",\"description\":\"Accept\"},"
  "    {\"id\":\"spin\",\"type\":\"spinner\",\"text\":\"Working\"}]},"
  " {\"id\":\"t\",\"type\":\"text\",\"text\":\"Hello\",\"style\":\"dim\"},"
  " {\"id\":\"h\",\"type\":\"heading\",\"text\":\"Title\",\"level\":1},"
  " {\"id\":\"e\",\"type\":\"entry\",\"label\":\"Name\",\"placeholder\":\"Your name\","
  "  \"value\":\"\",\"submit_label\":\"Add\",\"secret\":true},"
  " {\"id\":\"ta\",\"type\":\"textarea\",\"label\":\"Notes\",\"max_height\":100},"
  " {\"id\":\"sw\",\"type\":\"switch\",\"label\":\"Wi-Fi\",\"value\":true},"
  " {\"id\":\"ck\",\"type\":\"check\",\"label\":\"Agree\"},"
  " {\"id\":\"dd\",\"type\":\"dropdown\",\"label\":\"Colour\",\"value\":\"g\","
  "  \"options\":[\"r\",{\"value\":\"g\",\"label\":\"Green\"}]},"
  " {\"id\":\"l\",\"type\":\"list\",\"label\":\"Items\",\"max_height\":200,\"rows\":["
  "    {\"id\":\"r1\",\"title\":\"One\",\"subtitle\":\"first\",\"icon\":\"folder-symbolic\","
  "     \"checked\":false,\"buttons\":[{\"id\":\"del\",\"label\":\"Delete\",\"icon\":\"user-trash-symbolic\","
  "     \"style\":\"destructive\"}]},"
  "    {\"id\":\"r2\",\"title\":\"Two\",\"activatable\":false}]},"
  " {\"id\":\"p\",\"type\":\"progress\",\"fraction\":0.5,\"text\":\"Half\"},"
  " {\"id\":\"p2\",\"type\":\"progress\"},"
  " {\"id\":\"sep\",\"type\":\"separator\"},"
  " {\"id\":\"c\",\"type\":\"code\",\"text\":\"\\u001b[31mred\\u001b[0m\"},"
  " {\"id\":\"img\",\"type\":\"image\",\"label\":\"A dot\",\"height\":32,"
  "  \"data\":\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\"},"
  " {\"id\":\"future\",\"type\":\"text\",\"text\":\"x\",\"some_new_field\":[1,2]}]";

static void
test_every_type (void)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotPanelNode) root = parse (all_widgets, problems);
  ZotPanelNode *node;
  ZotPanelRow *row;
  ZotPanelRowButton *button;
  ZotPanelOption *option;

  for (guint i = 0; i < problems->len; i++)
    g_test_message ("%s", (char *) g_ptr_array_index (problems, i));
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_cmpuint (zot_panel_node_count_errors (root), ==, 0);
  g_assert_cmpint (root->type, ==, ZOT_PANEL_NODE_BOX);
  g_assert_cmpstr (root->id, ==, "");
  g_assert_false (root->horizontal);
  g_assert_cmpuint (root->children->len, ==, 15);

  node = child (root, 0);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_BOX);
  g_assert_true (node->horizontal);
  g_assert_cmpuint (node->spacing, ==, 12);
  g_assert_cmpstr (node->label, ==, "Toolbar");
  g_assert_cmpint (child (node, 0)->type, ==, ZOT_PANEL_NODE_BUTTON);
  g_assert_cmpstr (child (node, 0)->label, ==, "OK");
  g_assert_cmpstr (child (node, 0)->icon, ==, "emblem-ok-symbolic");
  g_assert_cmpstr (child (node, 0)->description, ==, "Accept");
  g_assert_cmpint (child (node, 0)->style, ==, ZOT_PANEL_STYLE_SUGGESTED);
  g_assert_cmpint (child (node, 1)->type, ==, ZOT_PANEL_NODE_SPINNER);
  g_assert_cmpstr (child (node, 1)->text, ==, "Working");
  g_assert_true (zot_panel_node_find (root, "spin") == child (node, 1));
  g_assert_null (zot_panel_node_find (root, "nothing"));

  node = child (root, 1);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_TEXT);
  g_assert_cmpstr (node->text, ==, "Hello");
  g_assert_cmpint (node->style, ==, ZOT_PANEL_STYLE_DIM);
  g_assert_true (node->sensitive);

  node = child (root, 2);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_HEADING);
  g_assert_cmpuint (node->level, ==, 1);

  node = child (root, 3);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_ENTRY);
  g_assert_cmpstr (node->label, ==, "Name");
  g_assert_cmpstr (node->placeholder, ==, "Your name");
  g_assert_cmpstr (node->value, ==, "");
  g_assert_cmpstr (node->submit_label, ==, "Add");
  g_assert_true (node->secret);

  node = child (root, 4);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_TEXTAREA);
  g_assert_null (node->value);   /* absent: the window keeps what was typed */
  g_assert_cmpuint (node->max_height, ==, 100);

  node = child (root, 5);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_SWITCH);
  g_assert_cmpint (node->active, ==, 1);
  node = child (root, 6);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_CHECK);
  g_assert_cmpint (node->active, ==, -1);

  node = child (root, 7);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_DROPDOWN);
  g_assert_cmpuint (node->options->len, ==, 2);
  option = g_ptr_array_index (node->options, 0);
  g_assert_cmpstr (option->value, ==, "r");
  g_assert_cmpstr (option->label, ==, "r");
  option = g_ptr_array_index (node->options, 1);
  g_assert_cmpstr (option->label, ==, "Green");
  g_assert_cmpstr (node->value, ==, "g");

  node = child (root, 8);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_LIST);
  g_assert_cmpuint (node->max_height, ==, 200);
  g_assert_cmpuint (node->rows->len, ==, 2);
  row = g_ptr_array_index (node->rows, 0);
  g_assert_cmpstr (row->title, ==, "One");
  g_assert_cmpstr (row->subtitle, ==, "first");
  g_assert_cmpstr (row->icon, ==, "folder-symbolic");
  g_assert_cmpint (row->checked, ==, 0);
  g_assert_true (row->activatable);
  g_assert_cmpuint (row->buttons->len, ==, 1);
  button = g_ptr_array_index (row->buttons, 0);
  g_assert_cmpstr (button->id, ==, "del");
  g_assert_cmpint (button->style, ==, ZOT_PANEL_STYLE_DESTRUCTIVE);
  row = g_ptr_array_index (node->rows, 1);
  g_assert_cmpint (row->checked, ==, -1);
  g_assert_false (row->activatable);
  g_assert_false (zot_panel_row_equal (g_ptr_array_index (node->rows, 0), row));
  g_assert_true (zot_panel_row_equal (row, row));

  g_assert_cmpfloat (child (root, 9)->fraction, ==, 0.5);
  g_assert_cmpstr (child (root, 9)->text, ==, "Half");
  g_assert_cmpfloat (child (root, 10)->fraction, <, 0);
  g_assert_cmpint (child (root, 11)->type, ==, ZOT_PANEL_NODE_SEPARATOR);
  g_assert_cmpint (child (root, 12)->type, ==, ZOT_PANEL_NODE_CODE);
  g_assert_true (g_str_has_prefix (child (root, 12)->text, "\033[31m"));

  node = child (root, 13);
  g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_IMAGE);
  g_assert_nonnull (node->image);
  g_assert_cmpuint (g_bytes_get_size (node->image), ==, 70);
  g_assert_cmpuint (node->max_height, ==, 32);

  /* Fields a type does not know are ignored, as the protocol says. */
  g_assert_cmpint (child (root, 14)->type, ==, ZOT_PANEL_NODE_TEXT);

  for (ZotPanelNodeType t = ZOT_PANEL_NODE_ERROR; t <= ZOT_PANEL_NODE_IMAGE; t++)
    g_assert_nonnull (zot_panel_node_type_to_string (t));
  g_assert_cmpstr (zot_panel_node_type_to_string (ZOT_PANEL_NODE_DROPDOWN), ==, "dropdown");
}

/* One bad widget each: it becomes an error node (keeping a usable id), and
 * one problem line names the widget and the fix. */
static const struct {
  const char *widget;
  const char *id;
  const char *problem;
} bad_widgets[] = {
  { "42", "", "must be a JSON object" },
  { "{\"id\":\"x\"}", "x", "\"type\" is missing" },
  { "{\"id\":\"x\",\"type\":7}", "x", "\"type\" is missing" },
  { "{\"id\":\"x\",\"type\":\"marquee\"}", "x", "unknown widget type \"marquee\"" },
  { "{\"id\":\"x\",\"type\":\"error\"}", "x", "unknown widget type \"error\"" },
  { "{\"type\":\"text\",\"text\":\"a\"}", "", "\"id\" must be a non-empty string" },
  { "{\"id\":\"\",\"type\":\"text\",\"text\":\"a\"}", "", "\"id\" must be a non-empty string" },
  { "{\"id\":3,\"type\":\"text\",\"text\":\"a\"}", "", "\"id\" must be a non-empty string" },
  { "{\"id\":\"x\",\"type\":\"text\",\"label\":1,\"text\":\"a\"}", "x", "\"label\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"text\",\"description\":[],\"text\":\"a\"}", "x", "\"description\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"text\",\"sensitive\":\"no\",\"text\":\"a\"}", "x", "\"sensitive\" must be true or false" },
  { "{\"id\":\"x\",\"type\":\"box\",\"orientation\":\"diagonal\"}", "x", "\"orientation\" must be" },
  { "{\"id\":\"x\",\"type\":\"box\",\"spacing\":49}", "x", "\"spacing\" must be a number from 0 to 48" },
  { "{\"id\":\"x\",\"type\":\"box\",\"spacing\":1.5}", "x", "\"spacing\" must be a whole number" },
  { "{\"id\":\"x\",\"type\":\"box\",\"children\":{}}", "x", "\"children\" must be an array" },
  { "{\"id\":\"x\",\"type\":\"text\"}", "x", "\"text\" is missing" },
  { "{\"id\":\"x\",\"type\":\"text\",\"text\":5}", "x", "\"text\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"text\",\"text\":\"a\",\"style\":\"blink\"}", "x", "\"style\" \"blink\" is not one of" },
  { "{\"id\":\"x\",\"type\":\"text\",\"text\":\"a\",\"style\":\"suggested\"}", "x", "\"style\" \"suggested\" is not one of" },
  { "{\"id\":\"x\",\"type\":\"heading\",\"text\":\"a\",\"level\":4}", "x", "\"level\" must be a number from 1 to 3" },
  { "{\"id\":\"x\",\"type\":\"heading\",\"text\":\"a\",\"level\":\"1\"}", "x", "\"level\" must be a number" },
  { "{\"id\":\"x\",\"type\":\"button\"}", "x", "\"label\" is missing" },
  { "{\"id\":\"x\",\"type\":\"button\",\"label\":\"a\",\"style\":\"bold\"}", "x", "\"style\" \"bold\" is not one of" },
  { "{\"id\":\"x\",\"type\":\"button\",\"label\":\"a\",\"icon\":\"/etc/passwd\"}", "x", "\"icon\" must be an icon name" },
  { "{\"id\":\"x\",\"type\":\"button\",\"label\":\"a\",\"icon\":\"\"}", "x", "\"icon\" must be an icon name" },
  { "{\"id\":\"x\",\"type\":\"entry\"}", "x", "\"label\" is missing" },
  { "{\"id\":\"x\",\"type\":\"entry\",\"label\":\"a\",\"value\":1}", "x", "\"value\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"entry\",\"label\":\"a\",\"placeholder\":false}", "x", "\"placeholder\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"entry\",\"label\":\"a\",\"submit_label\":2}", "x", "\"submit_label\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"entry\",\"label\":\"a\",\"secret\":1}", "x", "\"secret\" must be true or false" },
  { "{\"id\":\"x\",\"type\":\"textarea\",\"label\":\"a\",\"max_height\":10}", "x", "\"max_height\" must be a number from 40" },
  { "{\"id\":\"x\",\"type\":\"switch\",\"label\":\"a\",\"value\":\"on\"}", "x", "\"value\" must be true or false" },
  { "{\"id\":\"x\",\"type\":\"check\",\"value\":true}", "x", "\"label\" is missing" },
  { "{\"id\":\"x\",\"type\":\"dropdown\",\"label\":\"a\"}", "x", "\"options\" must be an array" },
  { "{\"id\":\"x\",\"type\":\"dropdown\",\"label\":\"a\",\"options\":[]}", "x", "\"options\" has 0 entries" },
  { "{\"id\":\"x\",\"type\":\"dropdown\",\"label\":\"a\",\"options\":[1]}", "x", "option 0 must be a string" },
  { "{\"id\":\"x\",\"type\":\"dropdown\",\"label\":\"a\",\"options\":[{\"label\":\"b\"}]}", "x", "\"value\" is missing" },
  { "{\"id\":\"x\",\"type\":\"dropdown\",\"label\":\"a\",\"options\":[\"b\"],\"value\":\"c\"}", "x", "\"value\" \"c\" is not the value of any option" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":{}}", "x", "\"rows\" must be an array" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[3]}", "x", "row 0 is not an object" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"title\":\"a\"}]}", "x", "row 0: \"id\" must be" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\"}]}", "x", "\"title\" is missing" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"checked\":\"yes\"}]}", "x", "\"checked\" must be true or false" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"activatable\":0}]}", "x", "\"activatable\" must be true or false" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"subtitle\":0}]}", "x", "\"subtitle\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"icon\":\"A B\"}]}", "x", "\"icon\" must be an icon name" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\"},{\"id\":\"r\",\"title\":\"b\"}]}", "x", "two rows have the id \"r\"" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":{}}]}", "x", "\"buttons\" must be an array" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":[1]}]}", "x", "button 0 is not an object" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":[{\"label\":\"b\"}]}]}", "x", "\"id\" is missing" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":[{\"id\":\"b\"}]}]}", "x", "\"label\" is missing" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":[{\"id\":\"\",\"label\":\"b\"}]}]}", "x", "button 0: \"id\" must be" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":[{\"id\":\"b\",\"label\":\"b\"},{\"id\":\"b\",\"label\":\"c\"}]}]}", "x", "two buttons have the id \"b\"" },
  { "{\"id\":\"x\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"a\",\"buttons\":[{\"id\":\"b\",\"label\":\"b\",\"style\":\"dim\"}]}]}", "x", "\"style\" \"dim\" is not one of" },
  { "{\"id\":\"x\",\"type\":\"list\",\"max_height\":59}", "x", "\"max_height\" must be a number from 60" },
  { "{\"id\":\"x\",\"type\":\"progress\",\"fraction\":1.5}", "x", "\"fraction\" must be a number from 0 to 1, not 1.5" },
  { "{\"id\":\"x\",\"type\":\"progress\",\"fraction\":\"half\"}", "x", "\"fraction\" must be a number" },
  { "{\"id\":\"x\",\"type\":\"spinner\",\"text\":true}", "x", "\"text\" must be a string" },
  { "{\"id\":\"x\",\"type\":\"code\"}", "x", "\"text\" is missing" },
  { "{\"id\":\"x\",\"type\":\"image\",\"data\":\"iVBORw0KGgo=\"}", "x", "\"label\" is missing" },
  { "{\"id\":\"x\",\"type\":\"image\",\"label\":\"a\"}", "x", "\"data\" is missing" },
  { "{\"id\":\"x\",\"type\":\"image\",\"label\":\"a\",\"data\":\"R0lGODlhAQABAAAAACw=\"}", "x", "\"data\" must be a PNG file in base64" },
  { "{\"id\":\"x\",\"type\":\"image\",\"label\":\"a\",\"data\":\"iVBORw0KGgo=\",\"height\":0}", "x", "\"height\" must be a number from 1" },
};

static void
test_bad_fields (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_widgets); i++)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *text = g_strdup_printf ("[{\"id\":\"before\",\"type\":\"separator\"},%s,"
                                               "{\"id\":\"after\",\"type\":\"separator\"}]",
                                               bad_widgets[i].widget);
      g_autoptr(ZotPanelNode) root = parse (text, problems);
      ZotPanelNode *node;

      g_test_message ("%s", bad_widgets[i].widget);
      g_assert_cmpuint (root->children->len, ==, 3);
      g_assert_cmpint (child (root, 0)->type, ==, ZOT_PANEL_NODE_SEPARATOR);
      g_assert_cmpint (child (root, 2)->type, ==, ZOT_PANEL_NODE_SEPARATOR);
      node = child (root, 1);
      g_assert_cmpint (node->type, ==, ZOT_PANEL_NODE_ERROR);
      g_assert_cmpstr (node->id, ==, bad_widgets[i].id);
      g_assert_nonnull (strstr (node->text, bad_widgets[i].problem));
      g_assert_cmpuint (problems->len, ==, 1);
      g_assert_nonnull (strstr (g_ptr_array_index (problems, 0), bad_widgets[i].problem));
      g_assert_cmpuint (zot_panel_node_count_errors (root), ==, 1);
    }
}

static void
test_bad_child_and_duplicates (void)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotPanelNode) root =
    parse ("[{\"id\":\"box\",\"type\":\"box\",\"children\":["
           "   {\"id\":\"a\",\"type\":\"text\",\"text\":\"ok\"},"
           "   {\"id\":\"b\",\"type\":\"slider\"}]},"
           " {\"id\":\"a\",\"type\":\"button\",\"label\":\"again\"},"
           " {\"id\":\"b\",\"type\":\"text\",\"text\":\"b again\"}]", problems);
  ZotPanelNode *box = child (root, 0);

  /* A bad child does not spoil its box. */
  g_assert_cmpint (box->type, ==, ZOT_PANEL_NODE_BOX);
  g_assert_cmpint (child (box, 0)->type, ==, ZOT_PANEL_NODE_TEXT);
  g_assert_cmpint (child (box, 1)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_cmpstr (child (box, 1)->id, ==, "b");

  /* The second "a" is refused and has no id; "b" was taken by the error row. */
  g_assert_cmpint (child (root, 1)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_cmpstr (child (root, 1)->id, ==, "");
  g_assert_nonnull (strstr (child (root, 1)->text, "the id \"a\" is used twice"));
  g_assert_cmpint (child (root, 2)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_cmpuint (problems->len, ==, 3);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (problems, 0), "widget \"b\" (slider): unknown"));
  g_assert_cmpuint (zot_panel_node_count_errors (root), ==, 3);
}

static void
test_not_an_array (void)
{
  const char *trees[] = { "{}", "\"text\"", "null", "3" };

  for (guint i = 0; i < G_N_ELEMENTS (trees); i++)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(ZotPanelNode) root = parse (trees[i], problems);

      g_assert_cmpuint (root->children->len, ==, 1);
      g_assert_cmpint (child (root, 0)->type, ==, ZOT_PANEL_NODE_ERROR);
      g_assert_cmpuint (problems->len, ==, 1);
      g_assert_nonnull (strstr (g_ptr_array_index (problems, 0), "must be an array"));
    }
}

/* Whether @text parses without any problem, or is refused whole with one
 * problem containing @cap_problem. */
static gboolean
accepted (const char *text,
          const char *cap_problem)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotPanelNode) root = parse (text, problems);

  if (problems->len == 0)
    return TRUE;

  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (problems, 0), cap_problem));
  g_assert_cmpuint (root->children->len, ==, 1);
  g_assert_cmpint (child (root, 0)->type, ==, ZOT_PANEL_NODE_ERROR);
  return FALSE;
}

static char *
nested_boxes (guint depth)
{
  g_autoptr(GString) text = g_string_new ("[");

  for (guint i = 0; i < depth; i++)
    g_string_append_printf (text, "%s{\"id\":\"b%u\",\"type\":\"box\",\"children\":[",
                            i > 0 ? "" : "", i);
  for (guint i = 0; i < depth; i++)
    g_string_append (text, "]}");
  g_string_append (text, "]");
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
test_cap_depth (void)
{
  g_autofree char *at = nested_boxes (ZOT_PANEL_WIDGETS_MAX_DEPTH);
  g_autofree char *past = nested_boxes (ZOT_PANEL_WIDGETS_MAX_DEPTH + 1);

  g_assert_true (accepted (at, NULL));
  g_assert_false (accepted (past, "nested more than 16 deep"));
}

static char *
separators (guint n)
{
  g_autoptr(GString) text = g_string_new ("[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s{\"id\":\"s%u\",\"type\":\"separator\"}", i ? "," : "", i);
  g_string_append (text, "]");
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
test_cap_nodes (void)
{
  g_autofree char *at = separators (ZOT_PANEL_WIDGETS_MAX_NODES);
  g_autofree char *past = separators (ZOT_PANEL_WIDGETS_MAX_NODES + 1);

  g_assert_true (accepted (at, NULL));
  g_assert_false (accepted (past, "more than 2000 widgets"));
}

static char *
list_rows (guint n)
{
  g_autoptr(GString) text = g_string_new ("[{\"id\":\"l\",\"type\":\"list\",\"rows\":[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s{\"id\":\"%u\",\"title\":\"r\"}", i ? "," : "", i);
  g_string_append (text, "]}]");
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
test_cap_rows (void)
{
  g_autofree char *at = list_rows (ZOT_PANEL_LIST_MAX_ROWS);
  g_autofree char *past = list_rows (ZOT_PANEL_LIST_MAX_ROWS + 1);

  g_assert_true (accepted (at, NULL));
  g_assert_false (accepted (past, "more than 20000 rows"));
}

/* A one-text tree whose compact JSON is exactly @size bytes. */
static char *
tree_of_size (gsize size)
{
  const char *head = "[{\"id\":\"t\",\"type\":\"text\",\"text\":\"";
  const char *tail = "\"}]";
  gsize fill = size - strlen (head) - strlen (tail);
  char *text = g_malloc (size + 1);

  memcpy (text, head, strlen (head));
  memset (text + strlen (head), 'a', fill);
  memcpy (text + strlen (head) + fill, tail, strlen (tail) + 1);
  g_assert_cmpuint (strlen (text), ==, size);
  return text;
}

static void
test_cap_bytes (void)
{
  g_autofree char *at = tree_of_size (ZOT_PANEL_WIDGETS_MAX_BYTES);
  g_autofree char *past = tree_of_size (ZOT_PANEL_WIDGETS_MAX_BYTES + 1);

  g_assert_true (accepted (at, NULL));
  g_assert_false (accepted (past, "bytes of JSON; at most 2097152"));
}

static char *
image_of_size (gsize size)
{
  g_autofree guchar *png = g_malloc0 (size);
  g_autofree char *data = NULL;

  memcpy (png, "\x89PNG\r\n\x1a\n", 8);
  data = g_base64_encode (png, size);
  return g_strdup_printf ("[{\"id\":\"i\",\"type\":\"image\",\"label\":\"big\",\"data\":\"%s\"}]", data);
}

static void
test_cap_image (void)
{
  g_autofree char *at = image_of_size (ZOT_PANEL_IMAGE_MAX_BYTES);
  g_autofree char *past = image_of_size (ZOT_PANEL_IMAGE_MAX_BYTES + 1);
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotPanelNode) root = NULL;

  g_assert_true (accepted (at, NULL));

  /* Past it, the image alone is an error row. */
  root = parse (past, problems);
  g_assert_cmpint (child (root, 0)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_cmpstr (child (root, 0)->id, ==, "i");
  g_assert_nonnull (strstr (child (root, 0)->text, "larger than 524288 bytes"));
}

static void
test_cap_options_and_buttons (void)
{
  g_autoptr(GString) options = g_string_new ("[");
  g_autoptr(GString) buttons = g_string_new ("[");
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotPanelNode) root = NULL;

  for (guint i = 0; i < ZOT_PANEL_DROPDOWN_MAX_OPTIONS; i++)
    g_string_append_printf (options, "%s\"o%u\"", i ? "," : "", i);
  for (guint i = 0; i < ZOT_PANEL_ROW_MAX_BUTTONS; i++)
    g_string_append_printf (buttons, "%s{\"id\":\"b%u\",\"label\":\"B\"}", i ? "," : "", i);

  /* At the caps, then one past each. */
  text = g_strdup_printf ("[{\"id\":\"d\",\"type\":\"dropdown\",\"label\":\"D\",\"options\":%s]},"
                          "{\"id\":\"l\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"R\","
                          "\"buttons\":%s]}]},"
                          "{\"id\":\"d2\",\"type\":\"dropdown\",\"label\":\"D\",\"options\":%s,\"x\"]},"
                          "{\"id\":\"l2\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"R\","
                          "\"buttons\":%s,{\"id\":\"x\",\"label\":\"X\"}]}]}]",
                          options->str, buttons->str, options->str, buttons->str);
  root = parse (text, problems);
  g_assert_cmpint (child (root, 0)->type, ==, ZOT_PANEL_NODE_DROPDOWN);
  g_assert_cmpuint (child (root, 0)->options->len, ==, ZOT_PANEL_DROPDOWN_MAX_OPTIONS);
  g_assert_cmpint (child (root, 1)->type, ==, ZOT_PANEL_NODE_LIST);
  g_assert_cmpint (child (root, 2)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_nonnull (strstr (child (root, 2)->text, "\"options\" has 501 entries"));
  g_assert_cmpint (child (root, 3)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_nonnull (strstr (child (root, 3)->text, "has 5 buttons; at most 4"));
  g_assert_cmpuint (problems->len, ==, 2);
}

static void
test_id_length (void)
{
  g_autofree char *at_id = g_strnfill (ZOT_PANEL_WIDGET_ID_MAX_BYTES, 'i');
  g_autofree char *past_id = g_strnfill (ZOT_PANEL_WIDGET_ID_MAX_BYTES + 1, 'j');
  g_autofree char *text = g_strdup_printf ("[{\"id\":\"%s\",\"type\":\"separator\"},"
                                           "{\"id\":\"%s\",\"type\":\"separator\"}]", at_id, past_id);
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotPanelNode) root = parse (text, problems);

  g_assert_cmpint (child (root, 0)->type, ==, ZOT_PANEL_NODE_SEPARATOR);
  g_assert_cmpint (child (root, 1)->type, ==, ZOT_PANEL_NODE_ERROR);
  g_assert_cmpuint (problems->len, ==, 1);
}

static void
test_row_ref (void)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  ZotPanelNode *root = parse ("[{\"id\":\"l\",\"type\":\"list\",\"rows\":[{\"id\":\"r\",\"title\":\"R\"}]}]",
                              problems);
  ZotPanelRow *row = zot_panel_row_ref (g_ptr_array_index (child (root, 0)->rows, 0));

  /* A row outlives its tree while the window's list model holds it. */
  zot_panel_node_free (root);
  g_assert_cmpstr (row->title, ==, "R");
  zot_panel_row_unref (row);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/panel-widgets/every-type", test_every_type);
  g_test_add_func ("/zot/panel-widgets/bad-fields", test_bad_fields);
  g_test_add_func ("/zot/panel-widgets/bad-child-and-duplicates", test_bad_child_and_duplicates);
  g_test_add_func ("/zot/panel-widgets/not-an-array", test_not_an_array);
  g_test_add_func ("/zot/panel-widgets/cap-depth", test_cap_depth);
  g_test_add_func ("/zot/panel-widgets/cap-nodes", test_cap_nodes);
  g_test_add_func ("/zot/panel-widgets/cap-rows", test_cap_rows);
  g_test_add_func ("/zot/panel-widgets/cap-bytes", test_cap_bytes);
  g_test_add_func ("/zot/panel-widgets/cap-image", test_cap_image);
  g_test_add_func ("/zot/panel-widgets/cap-options-and-buttons", test_cap_options_and_buttons);
  g_test_add_func ("/zot/panel-widgets/id-length", test_id_length);
  g_test_add_func ("/zot/panel-widgets/row-ref", test_row_ref);

  return g_test_run ();
}
