/* zot-find-bar.c — find in the conversation (Ctrl+F).
 *
 * Looks through the transcript's items, not its rows: the view makes rows
 * only for what is in view. A match is each place where what was typed
 * is, in any case, in a message, a note, or a tool call's name, arguments
 * and result (its row opens to show it), so "3 of 12" counts places, not
 * messages. Enter and Ctrl+G go to the next match, Shift with them to the
 * one before, from message to message; the transcript scrolls the
 * current one's message into view and marks the text of every match,
 * the current one in its own colour.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-find-bar.h"
#include "zot-find-text.h"
#include "zot-tooltip.h"
#include "zot-transcript-private.h"

struct _ZotFindBar
{
  GtkWidget       parent_instance;

  GtkSearchBar   *search_bar;
  GtkSearchEntry *entry;
  GtkLabel       *count_label;

  ZotTranscript  *transcript;   /* weak: the bar is the transcript's sibling */
  GArray         *matches;      /* Match */
  guint           current;
  char           *query;        /* what the matches are of */
  char           *needle;       /* the same, case folded */
};

typedef struct
{
  ZotTranscriptItem *item;      /* owned */
  guint              index;     /* which of the item's matches */
} Match;

G_DEFINE_FINAL_TYPE (ZotFindBar, zot_find_bar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRANSCRIPT,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/* The places in @item where @needle is, in the order its row shows them. */
static guint
item_count (ZotTranscriptItem *item,
            const char        *needle)
{
  guint n = zot_find_text_count (zot_transcript_item_get_text (item), needle);

  if (zot_transcript_item_get_kind (item) == ZOT_TRANSCRIPT_ITEM_TOOL)
    n += zot_find_text_count (zot_transcript_item_get_tool_name (item), needle) +
         zot_find_text_count (zot_transcript_item_get_args_pretty (item), needle) +
         zot_find_text_count (zot_transcript_item_get_result (item), needle);

  return n;
}

static void
clear_match (gpointer data)
{
  Match *match = data;

  g_clear_object (&match->item);
}

static void
update_count (ZotFindBar *self)
{
  g_autofree char *text = NULL;
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->entry));

  if (*query == '\0')
    text = g_strdup ("");
  else if (self->matches->len == 0)
    text = g_strdup (_("No matches"));
  else
    /* Translators: the match shown, of how many, as in "2 of 7" */
    text = g_strdup_printf (_("%u of %u"), self->current + 1, self->matches->len);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->count_label), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);

  gtk_label_set_text (self->count_label, text);
}

static void
show_current (ZotFindBar *self)
{
  Match *match = NULL;

  if (self->matches->len > 0)
    {
      match = &g_array_index (self->matches, Match, self->current);
      if (zot_transcript_item_get_kind (match->item) == ZOT_TRANSCRIPT_ITEM_TOOL)
        zot_transcript_item_set_expanded (match->item, TRUE);
    }

  if (self->transcript != NULL)
    _zot_transcript_show_find (self->transcript, self->needle, match ? match->item : NULL,
                               match ? match->index : 0);
  update_count (self);
}

static void
find (ZotFindBar *self)
{
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->entry));
  GListModel *items;
  guint n_items;

  g_array_set_size (self->matches, 0);
  self->current = 0;
  g_free (self->query);
  self->query = g_strdup (query);
  g_free (self->needle);
  self->needle = g_utf8_casefold (query, -1);

  if (*self->needle != '\0' && self->transcript != NULL)
    {
      items = _zot_transcript_get_items (self->transcript);
      n_items = g_list_model_get_n_items (items);
      for (guint i = 0; i < n_items; i++)
        {
          g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (items, i);
          guint n = item_count (item, self->needle);

          for (guint k = 0; k < n; k++)
            {
              Match match = { g_object_ref (item), k };

              g_array_append_val (self->matches, match);
            }
        }
    }

  show_current (self);
}

static void
on_entry_search_changed_cb (GtkSearchEntry *entry,
                            ZotFindBar     *self)
{
  /* The entry says so a moment after the text changed, also when it was
   * set (and found) at once: keep the place among the same matches. */
  if (g_strcmp0 (self->query, gtk_editable_get_text (GTK_EDITABLE (entry))) == 0)
    return;
  find (self);
}

static void
on_entry_activate_cb (GtkSearchEntry *entry,
                      ZotFindBar     *self)
{
  zot_find_bar_next (self);
}

static void
on_entry_next_match_cb (GtkSearchEntry *entry,
                        ZotFindBar     *self)
{
  zot_find_bar_next (self);
}

static void
on_entry_previous_match_cb (GtkSearchEntry *entry,
                            ZotFindBar     *self)
{
  zot_find_bar_previous (self);
}

static void
on_entry_stop_search_cb (GtkSearchEntry *entry,
                         ZotFindBar     *self)
{
  zot_find_bar_close (self);
}

static void
on_search_mode_notify_cb (GtkSearchBar *search_bar,
                          GParamSpec   *pspec,
                          ZotFindBar   *self)
{
  /* A closed bar leaves no mark behind. */
  if (!gtk_search_bar_get_search_mode (search_bar) && self->transcript != NULL)
    _zot_transcript_show_find (self->transcript, NULL, NULL, 0);
}

static gboolean
previous_shortcut_cb (GtkWidget *widget,
                      GVariant  *args,
                      gpointer   user_data)
{
  zot_find_bar_previous (user_data);
  return TRUE;
}

static void
zot_find_bar_dispose (GObject *object)
{
  ZotFindBar *self = ZOT_FIND_BAR (object);

  g_clear_weak_pointer (&self->transcript);
  g_clear_pointer (&self->matches, g_array_unref);
  g_clear_pointer (&self->query, g_free);
  g_clear_pointer (&self->needle, g_free);
  if (self->search_bar != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&self->search_bar)));

  G_OBJECT_CLASS (zot_find_bar_parent_class)->dispose (object);
}

static void
zot_find_bar_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  ZotFindBar *self = ZOT_FIND_BAR (object);

  switch (prop_id)
    {
    case PROP_TRANSCRIPT:
      g_value_set_object (value, self->transcript);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_find_bar_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  ZotFindBar *self = ZOT_FIND_BAR (object);

  switch (prop_id)
    {
    case PROP_TRANSCRIPT:
      g_set_weak_pointer (&self->transcript, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_find_bar_class_init (ZotFindBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_find_bar_dispose;
  object_class->get_property = zot_find_bar_get_property;
  object_class->set_property = zot_find_bar_set_property;

  /**
   * ZotFindBar:transcript:
   *
   * The conversation to look through; the bar holds it weakly, as its
   * sibling in the window.
   */
  properties [PROP_TRANSCRIPT] =
    g_param_spec_object ("transcript", NULL, NULL, ZOT_TYPE_TRANSCRIPT,
                         (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "findbar");
}

/* GTK 4.8's search bar gives its close button an icon and no name. */
static void
label_close_button (GtkWidget *widget,
                    GtkWidget *ours)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (child == ours)
        continue;
      if (GTK_IS_BUTTON (child))
        gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        _("Close the Find Bar"), -1);
      else
        label_close_button (child, ours);
    }
}

static void
zot_find_bar_init (ZotFindBar *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *previous = gtk_button_new_from_icon_name ("go-up-symbolic");
  GtkWidget *next = gtk_button_new_from_icon_name ("go-down-symbolic");

  self->matches = g_array_new (FALSE, FALSE, sizeof (Match));
  g_array_set_clear_func (self->matches, clear_match);

  self->entry = GTK_SEARCH_ENTRY (gtk_search_entry_new ());
  gtk_search_entry_set_search_delay (self->entry, 150);
  /* A search bar is as wide as its child even when closed: it must not
   * make the conversation's column wider than it is without it. */
  gtk_editable_set_width_chars (GTK_EDITABLE (self->entry), 8);
  gtk_widget_set_hexpand (GTK_WIDGET (self->entry), TRUE);
  g_object_set (self->entry, "placeholder-text", _("Find in the conversation"), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Find in the conversation"), -1);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->entry));

  self->count_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_width_chars (self->count_label, 8);
  gtk_widget_add_css_class (GTK_WIDGET (self->count_label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->count_label), "numeric");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->count_label));

  zot_tooltip_set (previous, _("Previous Match"));
  zot_tooltip_set (next, _("Next Match"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (previous), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Previous Match"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (next), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Next Match"), -1);
  g_signal_connect_swapped (previous, "clicked", G_CALLBACK (zot_find_bar_previous), self);
  g_signal_connect_swapped (next, "clicked", G_CALLBACK (zot_find_bar_next), self);
  gtk_box_append (GTK_BOX (box), previous);
  gtk_box_append (GTK_BOX (box), next);

  self->search_bar = GTK_SEARCH_BAR (gtk_search_bar_new ());
  gtk_search_bar_set_child (self->search_bar, box);
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->entry));
  gtk_search_bar_set_show_close_button (self->search_bar, TRUE);
  label_close_button (GTK_WIDGET (self->search_bar), box);
  gtk_widget_set_parent (GTK_WIDGET (self->search_bar), GTK_WIDGET (self));

  g_signal_connect (self->entry, "search-changed", G_CALLBACK (on_entry_search_changed_cb), self);
  g_signal_connect (self->entry, "activate", G_CALLBACK (on_entry_activate_cb), self);
  g_signal_connect (self->entry, "next-match", G_CALLBACK (on_entry_next_match_cb), self);
  g_signal_connect (self->entry, "previous-match", G_CALLBACK (on_entry_previous_match_cb), self);
  g_signal_connect (self->entry, "stop-search", G_CALLBACK (on_entry_stop_search_cb), self);
  g_signal_connect (self->search_bar, "notify::search-mode-enabled", G_CALLBACK (on_search_mode_notify_cb), self);

  /* Shift+Enter, as in other finders. */
  {
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();

    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Return, GDK_SHIFT_MASK),
                                                            gtk_callback_action_new (previous_shortcut_cb, self, NULL)));
    gtk_widget_add_controller (GTK_WIDGET (self->entry), shortcuts);
  }
}

/**
 * zot_find_bar_new:
 * @transcript: the conversation to look through
 *
 * Returns: (transfer floating): a closed find bar
 */
GtkWidget *
zot_find_bar_new (ZotTranscript *transcript)
{
  ZotFindBar *self;

  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (transcript), NULL);

  self = g_object_new (ZOT_TYPE_FIND_BAR, "transcript", transcript, NULL);
  return GTK_WIDGET (self);
}

/**
 * zot_find_bar_open:
 *
 * Shows the bar with its entry focused, and finds what it holds again:
 * the conversation may have changed.
 */
void
zot_find_bar_open (ZotFindBar *self)
{
  g_return_if_fail (ZOT_IS_FIND_BAR (self));

  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->entry));
  find (self);
}

void
zot_find_bar_close (ZotFindBar *self)
{
  g_return_if_fail (ZOT_IS_FIND_BAR (self));

  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

/**
 * zot_find_bar_set_text:
 *
 * Looks for @text at once, as typing it does after a moment.
 */
void
zot_find_bar_set_text (ZotFindBar *self,
                       const char *text)
{
  g_return_if_fail (ZOT_IS_FIND_BAR (self));

  gtk_editable_set_text (GTK_EDITABLE (self->entry), text ? text : "");
  find (self);
}

void
zot_find_bar_next (ZotFindBar *self)
{
  g_return_if_fail (ZOT_IS_FIND_BAR (self));

  if (self->matches->len == 0)
    return;
  self->current = (self->current + 1) % self->matches->len;
  show_current (self);
}

void
zot_find_bar_previous (ZotFindBar *self)
{
  g_return_if_fail (ZOT_IS_FIND_BAR (self));

  if (self->matches->len == 0)
    return;
  self->current = (self->current + self->matches->len - 1) % self->matches->len;
  show_current (self);
}

/**
 * zot_find_bar_get_n_matches:
 *
 * Returns: the places found, several in one message as they come
 */
guint
zot_find_bar_get_n_matches (ZotFindBar *self)
{
  g_return_val_if_fail (ZOT_IS_FIND_BAR (self), 0);
  return self->matches->len;
}

/**
 * zot_find_bar_get_current:
 *
 * Returns: the match shown, counted from 0
 */
guint
zot_find_bar_get_current (ZotFindBar *self)
{
  g_return_val_if_fail (ZOT_IS_FIND_BAR (self), 0);
  return self->current;
}

/**
 * zot_find_bar_get_count_text:
 *
 * Returns: what the bar says of the matches: "2 of 7", "No matches"
 */
const char *
zot_find_bar_get_count_text (ZotFindBar *self)
{
  g_return_val_if_fail (ZOT_IS_FIND_BAR (self), NULL);
  return gtk_label_get_text (self->count_label);
}
