/* zot-accessible.c — accessible names where GTK 4.8 cannot give them.
 *
 * GTK 4.8's drop-down takes the keyboard focus in an inner toggle button
 * that has no name of its own, so a screen reader announces "button" on
 * Tab however the drop-down is labelled; the name goes on both. (A menu
 * button's inner toggle is labelled by the menu button: naming the menu
 * button is enough.)
 *
 * GTK 4.8 also joins every name it is given: a widget's label property
 * and then the names of the widgets that label it. A button made with a
 * mnemonic gets both, the first with its underscore, and a screen reader
 * says "Re_start Restart"; a control named here and labelled by a
 * visible label says its name twice. The functions below give one name,
 * without the underscore.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include <adwaita.h>

#include "zot-accessible.h"

/**
 * zot_accessible_label_drop_down:
 * @label: (nullable): the name; %NULL takes it away
 */
void
zot_accessible_label_drop_down (GtkDropDown *drop_down,
                                const char  *label)
{
  GtkWidget *targets[2];

  g_return_if_fail (GTK_IS_DROP_DOWN (drop_down));

  targets[0] = GTK_WIDGET (drop_down);
  targets[1] = gtk_widget_get_first_child (GTK_WIDGET (drop_down));
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      if (targets[i] == NULL)
        continue;
      if (label != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (targets[i]), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      else
        gtk_accessible_reset_property (GTK_ACCESSIBLE (targets[i]), GTK_ACCESSIBLE_PROPERTY_LABEL);
    }
}

/**
 * zot_accessible_strip_mnemonics:
 * @text: (nullable): a label that may mark a mnemonic
 *
 * Returns: (transfer full) (nullable): @text as shown: "Re_start" is
 *   "Restart", "a__b" is "a_b"
 */
char *
zot_accessible_strip_mnemonics (const char *text)
{
  GString *shown;

  if (text == NULL)
    return NULL;

  shown = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_' && p[1] != '\0')
        p++;
      g_string_append_c (shown, *p);
    }
  return g_string_free (shown, FALSE);
}

/**
 * zot_accessible_set_label:
 * @label: (nullable): the name, as it is (an underscore stays); %NULL
 *   takes it away
 *
 * Names @widget with @label alone: the labels that label it no longer add
 * their text to it.
 */
void
zot_accessible_set_label (GtkWidget  *widget,
                          const char *label)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (label != NULL)
    {
      gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      gtk_accessible_reset_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
    }
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

static void
fix_button (GtkWidget *widget)
{
  g_autofree char *label = NULL;
  gboolean use_underline = FALSE;

  g_object_get (widget, "label", &label, "use-underline", &use_underline, NULL);
  if (use_underline && label != NULL)
    {
      g_autofree char *shown = zot_accessible_strip_mnemonics (label);

      zot_accessible_set_label (widget, shown);
    }
}

static void
on_button_label_notify_cb (GtkWidget  *widget,
                           GParamSpec *pspec,
                           gpointer    user_data)
{
  fix_button (widget);
}

/**
 * zot_accessible_fix_mnemonics:
 * @root: a widget tree, built
 *
 * Names every button, check button and menu button in @root that shows a
 * mnemonic by its label as shown, now and whenever its label changes.
 */
void
zot_accessible_fix_mnemonics (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));

  if (GTK_IS_BUTTON (root) || GTK_IS_CHECK_BUTTON (root) || GTK_IS_MENU_BUTTON (root))
    {
      if (g_object_get_data (G_OBJECT (root), "zot-mnemonic-fixed") == NULL)
        {
          g_object_set_data (G_OBJECT (root), "zot-mnemonic-fixed", GINT_TO_POINTER (TRUE));
          g_signal_connect (root, "notify::label", G_CALLBACK (on_button_label_notify_cb), NULL);
          g_signal_connect (root, "notify::use-underline", G_CALLBACK (on_button_label_notify_cb), NULL);
        }
      fix_button (root);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    zot_accessible_fix_mnemonics (child);
}

/**
 * zot_accessible_message_name:
 *
 * Who wrote a message of the conversation, said before its text: the rows
 * look alike to a screen reader otherwise.
 *
 * Returns: (transfer full) (nullable): the name of @item's row, %NULL for
 *   notes, whose text says what they are
 */
char *
zot_accessible_message_name (ZotTranscriptItem *item)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (item), NULL);

  switch (zot_transcript_item_get_kind (item))
    {
    case ZOT_TRANSCRIPT_ITEM_USER:
      /* Translators: the name screen readers give a message the user wrote */
      return g_strdup (_("You"));
    case ZOT_TRANSCRIPT_ITEM_ASSISTANT:
      /* Translators: the name screen readers give a message the model wrote */
      return g_strdup (_("Assistant"));
    case ZOT_TRANSCRIPT_ITEM_TOOL:
      /* Translators: the name screen readers give a tool call in the conversation; %s is the
       * tool's name */
      return g_strdup_printf (_("Tool call: %s"), zot_transcript_item_get_tool_name (item));
    default:
      return NULL;
    }
}

/**
 * zot_accessible_code_block_name:
 * @language: (nullable): the language its fence names
 *
 * Returns: (transfer full): the name of a code block
 */
char *
zot_accessible_code_block_name (const char *language)
{
  if (language == NULL || *language == '\0')
    /* Translators: the name screen readers give a block of code whose language is not known */
    return g_strdup (_("Code block"));
  /* Translators: the name screen readers give a block of code; %s is its language, as in
   * "Code block, python" */
  return g_strdup_printf (_("Code block, %s"), language);
}

/* libadwaita shows the search results as a group without a title; every
 * group of ours has one. */
static gboolean
in_untitled_group (GtkWidget *widget)
{
  GtkWidget *group = gtk_widget_get_ancestor (widget, ADW_TYPE_PREFERENCES_GROUP);
  const char *title = group != NULL ? adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)) : NULL;

  return group != NULL && (title == NULL || *title == '\0');
}

static void
name_buttons_in (GtkWidget  *root,
                 const char *label)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_BUTTON (child))
        gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      name_buttons_in (child, label);
    }
}

/**
 * zot_accessible_fix_preferences:
 * @root: an #AdwPreferencesWindow, or a part of one
 *
 * Names what libadwaita 1.2 leaves without a name: the window's search
 * entry and its list of results, the button that opens a combo row or a
 * drop-down in a row (by the row's title) and the one that shows a
 * password row's text.
 */
void
zot_accessible_fix_preferences (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));

  if (GTK_IS_SEARCH_ENTRY (root))
    gtk_accessible_update_property (GTK_ACCESSIBLE (root), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    /* Translators: the name screen readers give the search
                                     * entry of the preferences */
                                    _("Search the preferences"), -1);
  else if (GTK_IS_LIST_BOX (root) && in_untitled_group (root))
    gtk_accessible_update_property (GTK_ACCESSIBLE (root), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    /* Translators: the name screen readers give the list of
                                     * what a search of the preferences found */
                                    _("Search results"), -1);
  else if (ADW_IS_COMBO_ROW (root))
    name_buttons_in (root, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)));
  else if (GTK_IS_DROP_DOWN (root) && gtk_widget_get_ancestor (root, ADW_TYPE_PREFERENCES_ROW) != NULL)
    {
      GtkWidget *row = gtk_widget_get_ancestor (root, ADW_TYPE_PREFERENCES_ROW);
      g_autofree char *title = zot_accessible_strip_mnemonics (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));

      zot_accessible_label_drop_down (GTK_DROP_DOWN (root), title);
    }
  else if (ADW_IS_PASSWORD_ENTRY_ROW (root))
    /* Translators: the name screen readers give the button that shows the text of a password field */
    name_buttons_in (root, _("Show the text"));

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    zot_accessible_fix_preferences (child);
}
