/* test-gui-mcp-attach.c — "Attach resource…" beside the prompt
 * (src/gui/zot-resource-picker.c, docs/mcp.md): shown while an MCP
 * server offers resources, it lists them through the bridge, its search
 * filters them, and the chosen one's text is attached to the next
 * message, which the demo model then reads; a text over
 * ZOT_MCP_ATTACH_MAX_BYTES is cut. With the fake MCP server
 * (tests/fake-mcp-server.py, mode shifting). */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "zot-gui-test-util.h"
#include "zot-limits.h"
#include "zot-mcp-test-util.h"
#include "zot-prompt-editor-private.h"
#include "zot-resource-picker.h"

typedef struct
{
  Fixture            host;
  GtkWidget         *window;
  ZotPromptEditor   *editor;
  ZotResourcePicker *picker;
} GuiFixture;

static gboolean
widget_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
picker_shown (gpointer data)
{
  return gtk_widget_get_visible (data);
}

static gboolean
picker_idle (gpointer data)
{
  return !_zot_resource_picker_is_busy (data);
}

static void
gui_setup (GuiFixture    *f,
           gconstpointer  data)
{
  const char *modes[] = { "shifting", NULL };

  fixture_setup (&f->host, data);
  g_setenv ("FAKE_MCP_RESOURCES", "3", TRUE);
  if (data != NULL)
    {
      g_autofree char *bytes = g_strdup_printf ("%" G_GSIZE_FORMAT, GPOINTER_TO_SIZE (data));

      g_setenv ("FAKE_MCP_READ_BYTES", bytes, TRUE);
    }
  configure_fakes (&f->host, modes);
  start_bridge (&f->host);
  wait_for_status (&f->host, "shifting (stdio): ready, 1 tools, 3 resources");

  f->editor = ZOT_PROMPT_EDITOR (zot_prompt_editor_new ());
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 600, 200);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->editor));
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (widget_mapped, f->window, 10000);
  f->picker = ZOT_RESOURCE_PICKER (gtk_widget_get_first_child (GTK_WIDGET (f->editor->box)));
  g_assert_true (ZOT_IS_RESOURCE_PICKER (f->picker));
}

static void
gui_teardown (GuiFixture    *f,
              gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  fixture_teardown (&f->host, data);
  g_unsetenv ("FAKE_MCP_RESOURCES");
  g_unsetenv ("FAKE_MCP_READ_BYTES");
}

/* The rows the search leaves, as their titles. */
static char *
visible_titles (ZotResourcePicker *picker)
{
  g_autoptr(GString) titles = g_string_new (NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (_zot_resource_picker_get_list (picker)));
       row != NULL; row = gtk_widget_get_next_sibling (row))
    if (gtk_widget_get_child_visible (row))
      g_string_append_printf (titles, "%s%s", titles->len > 0 ? " " : "",
                              adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  return g_string_free (g_steal_pointer (&titles), FALSE);
}

static GtkListBoxRow *
row_titled (ZotResourcePicker *picker,
            const char        *title)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (_zot_resource_picker_get_list (picker)));
       row != NULL; row = gtk_widget_get_next_sibling (row))
    if (g_str_equal (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), title))
      return GTK_LIST_BOX_ROW (row);
  return NULL;
}

static void
iterate (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
choose (GuiFixture *f,
        const char *title)
{
  GtkListBoxRow *row = row_titled (f->picker, title);

  if (row == NULL)
    g_error ("no row %s; the picker says “%s”", title, _zot_resource_picker_get_status (f->picker));
  g_signal_emit_by_name (_zot_resource_picker_get_list (f->picker), "row-activated", row);
  zot_test_wait_until (picker_idle, f->picker, 20000);
}

/* Hidden without a host, shown once the bridge registered its resource
 * tools; the list, the search, and the chosen resource sent with the
 * next message. */
static void
test_attach (GuiFixture    *f,
             gconstpointer  data)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autoptr(JsonArray) attached = NULL;
  g_autofree char *titles = NULL;
  GtkWidget *chip;

  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f->picker)));
  wait_for_tool (&f->host, "mcp_resources");
  zot_prompt_editor_set_host (f->editor, f->host.host);
  zot_test_wait_until (picker_shown, f->picker, 10000);

  zot_resource_picker_popup (f->picker);
  zot_test_wait_until (picker_idle, f->picker, 20000);
  g_assert_cmpstr (_zot_resource_picker_get_status (f->picker), ==, "");
  titles = visible_titles (f->picker);
  g_assert_cmpstr (titles, ==, "r1 r2 r3");

  gtk_editable_set_text (_zot_resource_picker_get_search (f->picker), "FAKE://R2");
  gtk_list_box_invalidate_filter (_zot_resource_picker_get_list (f->picker));
  iterate ();
  g_clear_pointer (&titles, g_free);
  titles = visible_titles (f->picker);
  g_assert_cmpstr (titles, ==, "r2");

  choose (f, "r2");
  g_assert_cmpstr (_zot_resource_picker_get_status (f->picker), ==, "");
  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 1);
  chip = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (gtk_widget_get_first_child (GTK_WIDGET (f->editor->attachments))));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->editor->attachments)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_widget_get_next_sibling (gtk_widget_get_first_child (chip)))),
                   ==, "fake://r2");

  /* The window sends the attachments with the message, as it does images. */
  attached = zot_prompt_editor_take_images (f->editor);
  zot_host_submit_with_images_async (f->host.host, "read this", attached, NULL, zot_test_submit_cb, &s);
  zot_test_wait_for (&s.done, 60000);
  g_assert_no_error (s.error);
  g_assert_nonnull (strstr (s.text, "You said: read this\nAttached fake://r2:\n\ncontents of fake://r2"));
}

/* A resource's text over ZOT_MCP_ATTACH_MAX_BYTES is cut, saying so; one
 * at the limit is whole. */
static void
test_attach_max (GuiFixture    *f,
                 gconstpointer  data)
{
  gsize size = GPOINTER_TO_SIZE (data);
  g_autoptr(JsonArray) attached = NULL;
  g_autofree char *title = NULL;
  g_autofree char *mark = g_strdup_printf ("\n[cut at %u KiB]", (guint) (ZOT_MCP_ATTACH_MAX_BYTES / 1024));
  const char *text;

  wait_for_tool (&f->host, "mcp_resources");
  zot_prompt_editor_set_host (f->editor, f->host.host);
  zot_resource_picker_popup (f->picker);
  zot_test_wait_until (picker_idle, f->picker, 20000);
  /* The fake server answers with $FAKE_MCP_READ_BYTES bytes of text. */
  choose (f, "r1");
  attached = zot_prompt_editor_take_images (f->editor);
  g_assert_nonnull (attached);
  text = json_object_get_string_member (json_array_get_object_element (attached, 0), "text");
  title = g_strdup_printf ("Attached fake://r1:\n\n");
  g_assert_true (g_str_has_prefix (text, title));
  if (size <= ZOT_MCP_ATTACH_MAX_BYTES)
    g_assert_cmpuint (strlen (text), ==, strlen (title) + size);
  else
    {
      g_assert_true (g_str_has_suffix (text, mark));
      g_assert_cmpuint (strlen (text), ==, strlen (title) + ZOT_MCP_ATTACH_MAX_BYTES + strlen (mark));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add ("/zot/gui/mcp-attach/attach", GuiFixture, NULL, gui_setup, test_attach, gui_teardown);
  g_test_add ("/zot/gui/mcp-attach/at-edge", GuiFixture, GSIZE_TO_POINTER (ZOT_MCP_ATTACH_MAX_BYTES),
              gui_setup, test_attach_max, gui_teardown);
  g_test_add ("/zot/gui/mcp-attach/over-edge", GuiFixture, GSIZE_TO_POINTER (ZOT_MCP_ATTACH_MAX_BYTES + 1),
              gui_setup, test_attach_max, gui_teardown);
  return g_test_run ();
}
