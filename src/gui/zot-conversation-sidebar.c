/* zot-conversation-sidebar.c — the project's stored conversations.
 *
 * A list of the conversations a ZotConversationIndex finds for the
 * window's folder: title, when it was last written and its size, newest
 * first. Clicking one asks the window to open it (::open-requested); each
 * row's menu renames it or moves it to the trash; the search entry keeps
 * the conversations whose titles or messages have the text (the index
 * reads the files on a worker thread). The list follows the folder, so
 * conversations other zot processes write come and grow by themselves.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "zot-conversation-row.h"
#include "zot-conversation-sidebar.h"
#include "zot-tooltip.h"

struct _ZotConversationSidebar
{
  GtkWidget             parent_instance;

  GtkSearchEntry       *search_entry;
  GtkListView          *list_view;
  GtkSingleSelection   *selection;
  GtkFilterListModel   *filtered;
  GtkCustomFilter      *filter;
  GtkLabel             *empty_label;
  GtkToggleButton      *sort_button;

  ZotConversationIndex *index;
  char                 *current_path;
  GHashTable           *found;          /* paths, while a search is shown */
  GCancellable         *search_cancellable;
  GCancellable         *cancellable;
};

enum {
  PROP_0,
  PROP_SEARCHING,
  N_PROPS
};

enum {
  OPEN_REQUESTED,
  TOAST,
  TRASHED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotConversationSidebar, zot_conversation_sidebar, GTK_TYPE_WIDGET)

/* Rows */

static void
on_factory_setup_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *list_item,
                     ZotConversationSidebar   *self)
{
  GtkWidget *row = zot_conversation_row_new ();

  g_object_bind_property (list_item, "item", row, "conversation", G_BINDING_SYNC_CREATE);
  gtk_list_item_set_child (list_item, row);
}

/* Selection follows the open conversation, wherever it is in the list. */
static void
select_current (ZotConversationSidebar *self)
{
  GListModel *model = G_LIST_MODEL (self->filtered);
  guint n_items = g_list_model_get_n_items (model);

  for (guint i = 0; i < n_items && self->current_path != NULL; i++)
    {
      g_autoptr(ZotConversation) conversation = g_list_model_get_item (model, i);

      if (g_str_equal (zot_conversation_get_path (conversation), self->current_path))
        {
          gtk_single_selection_set_selected (self->selection, i);
          return;
        }
    }

  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
}

static void
update_empty (ZotConversationSidebar *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) == 0;

  gtk_label_set_text (self->empty_label,
                      self->found != NULL ? _("No conversation has this text") : _("No stored conversations yet"));
  gtk_widget_set_visible (GTK_WIDGET (self->empty_label), empty);
}

static void
on_filtered_items_changed_cb (GListModel             *model,
                              guint                   position,
                              guint                   removed,
                              guint                   added,
                              ZotConversationSidebar *self)
{
  select_current (self);
  update_empty (self);
}

static void
on_list_view_activate_cb (GtkListView            *list_view,
                          guint                   position,
                          ZotConversationSidebar *self)
{
  g_autoptr(ZotConversation) conversation = g_list_model_get_item (G_LIST_MODEL (self->filtered), position);

  if (conversation != NULL)
    g_signal_emit (self, signals [OPEN_REQUESTED], 0, zot_conversation_get_path (conversation));
}

/* Search */

static gboolean
filter_func (gpointer item,
             gpointer user_data)
{
  ZotConversationSidebar *self = user_data;

  return self->found == NULL || g_hash_table_contains (self->found, zot_conversation_get_path (item));
}

static void
set_found (ZotConversationSidebar *self,
           GHashTable             *found)
{
  g_clear_pointer (&self->found, g_hash_table_unref);
  self->found = found;
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  select_current (self);
  update_empty (self);
}

static void
searched_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(ZotConversationSidebar) self = user_data;
  g_autoptr(GError) error = NULL;
  GHashTable *found = zot_conversation_index_search_finish (ZOT_CONVERSATION_INDEX (object), result, &error);

  if (found == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_signal_emit (self, signals [TOAST], 0, error->message);
      return;
    }

  g_clear_object (&self->search_cancellable);
  set_found (self, found);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SEARCHING]);
}

static void
start_search (ZotConversationSidebar *self,
              const char             *text)
{
  gboolean was_searching = self->search_cancellable != NULL;

  if (self->search_cancellable != NULL)
    g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);

  if (text == NULL || *text == '\0' || self->index == NULL)
    {
      set_found (self, NULL);
      if (was_searching)
        g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SEARCHING]);
      return;
    }

  self->search_cancellable = g_cancellable_new ();
  zot_conversation_index_search_async (self->index, text, self->search_cancellable, searched_cb,
                                       g_object_ref (self));
  if (!was_searching)
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SEARCHING]);
}

static void
on_search_entry_search_changed_cb (GtkSearchEntry         *entry,
                                   ZotConversationSidebar *self)
{
  start_search (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* Newest first, or (toggled) largest first. */
static void
on_sort_button_toggled_cb (GtkToggleButton        *button,
                           ZotConversationSidebar *self)
{
  if (self->index != NULL)
    zot_conversation_index_set_sort (self->index, gtk_toggle_button_get_active (button) ?
                                                  ZOT_CONVERSATION_SORT_SIZE : ZOT_CONVERSATION_SORT_MODIFIED);
}

/* Rename and trash */

static void
renamed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(ZotConversationSidebar) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_conversation_index_rename_finish (ZOT_CONVERSATION_INDEX (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_signal_emit (self, signals [TOAST], 0, error->message);
}

typedef struct
{
  ZotConversationSidebar *self;
  char                   *path;
} Trashing;

static void
trashed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Trashing *trashing = user_data;
  g_autoptr(ZotConversationSidebar) self = trashing->self;
  g_autofree char *path = trashing->path;
  g_autoptr(GError) error = NULL;

  g_free (trashing);
  if (!zot_conversation_index_trash_finish (ZOT_CONVERSATION_INDEX (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_signal_emit (self, signals [TOAST], 0, error->message);
      return;
    }

  g_signal_emit (self, signals [TOAST], 0, _("Moved the conversation to the trash"));
  g_signal_emit (self, signals [TRASHED], 0, path);
}

/* What the rename dialog's answer needs: its entry, the file it names. */
typedef struct
{
  ZotConversationSidebar *self;
  GtkEditable            *entry;
  char                   *path;
} Renaming;

static void
renaming_free (gpointer  data,
               GClosure *closure)
{
  Renaming *renaming = data;

  g_clear_object (&renaming->self);
  g_free (renaming->path);
  g_free (renaming);
}

static void
on_rename_response_cb (AdwMessageDialog *dialog,
                       const char       *response,
                       Renaming         *renaming)
{
  if (g_strcmp0 (response, "rename") == 0)
    zot_conversation_sidebar_rename (renaming->self, renaming->path, gtk_editable_get_text (renaming->entry));
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotConversationSidebar *self = ZOT_CONVERSATION_SIDEBAR (widget);
  const char *path = g_variant_get_string (parameter, NULL);
  ZotConversation *conversation = self->index ? zot_conversation_index_lookup (self->index, path) : NULL;
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *dialog;
  GtkWidget *entry;
  Renaming *renaming;

  if (conversation == NULL)
    return;

  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Rename Conversation"),
                                   _("An empty name gives the conversation its first prompt as its name again."));
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), zot_conversation_get_title (conversation) ?: "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "rename", _("_Rename"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  renaming = g_new0 (Renaming, 1);
  renaming->self = g_object_ref (self);
  renaming->entry = GTK_EDITABLE (entry);
  renaming->path = g_strdup (path);
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_rename_response_cb), renaming, renaming_free, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
trash_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  zot_conversation_sidebar_trash (ZOT_CONVERSATION_SIDEBAR (widget), g_variant_get_string (parameter, NULL));
}

/* GObject */

static void
zot_conversation_sidebar_dispose (GObject *object)
{
  ZotConversationSidebar *self = ZOT_CONVERSATION_SIDEBAR (object);
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  if (self->search_cancellable != NULL)
    g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->selection);
  g_clear_object (&self->index);
  g_clear_pointer (&self->found, g_hash_table_unref);

  G_OBJECT_CLASS (zot_conversation_sidebar_parent_class)->dispose (object);
}

static void
zot_conversation_sidebar_finalize (GObject *object)
{
  ZotConversationSidebar *self = ZOT_CONVERSATION_SIDEBAR (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->current_path, g_free);

  G_OBJECT_CLASS (zot_conversation_sidebar_parent_class)->finalize (object);
}

static void
zot_conversation_sidebar_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  ZotConversationSidebar *self = ZOT_CONVERSATION_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_SEARCHING:
      g_value_set_boolean (value, zot_conversation_sidebar_get_searching (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_conversation_sidebar_class_init (ZotConversationSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_conversation_sidebar_dispose;
  object_class->finalize = zot_conversation_sidebar_finalize;
  object_class->get_property = zot_conversation_sidebar_get_property;

  /**
   * ZotConversationSidebar:searching:
   *
   * Whether a search of the files is running.
   */
  properties [PROP_SEARCHING] =
    g_param_spec_boolean ("searching", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotConversationSidebar::open-requested:
   * @path: the session file
   *
   * The user picked a conversation to go on with.
   */
  signals [OPEN_REQUESTED] =
    g_signal_new ("open-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  signals [TOAST] =
    g_signal_new ("toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * ZotConversationSidebar::trashed:
   * @path: the session file that went to the trash
   */
  signals [TRASHED] =
    g_signal_new ("trashed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "sidebar.rename", "s", rename_action);
  gtk_widget_class_install_action (widget_class, "sidebar.trash", "s", trash_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "conversationsidebar");
}

static void
zot_conversation_sidebar_init (ZotConversationSidebar *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *overlay = gtk_overlay_new ();

  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  gtk_widget_add_css_class (GTK_WIDGET (self), "background");
  self->cancellable = g_cancellable_new ();

  self->search_entry = GTK_SEARCH_ENTRY (gtk_search_entry_new ());
  g_object_set (self->search_entry, "placeholder-text", _("Search conversations"), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search_entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Search conversations"), -1);
  gtk_widget_set_hexpand (GTK_WIDGET (self->search_entry), TRUE);
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (on_search_entry_search_changed_cb), self);
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->search_entry));

  self->sort_button = GTK_TOGGLE_BUTTON (gtk_toggle_button_new ());
  gtk_button_set_icon_name (GTK_BUTTON (self->sort_button), "view-sort-descending-symbolic");
  zot_tooltip_set (GTK_WIDGET (self->sort_button), _("Largest First"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->sort_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Largest First"), -1);
  gtk_widget_add_css_class (GTK_WIDGET (self->sort_button), "flat");
  g_signal_connect (self->sort_button, "toggled", G_CALLBACK (on_sort_button_toggled_cb), self);
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->sort_button));

  /* A new conversation is the header bar's button: it stays when the
   * sidebar is hidden. */

  gtk_widget_set_margin_start (header, 6);
  gtk_widget_set_margin_end (header, 6);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_widget_set_parent (header, GTK_WIDGET (self));

  self->filter = gtk_custom_filter_new (filter_func, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (self->filtered));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect (self->filtered, "items-changed", G_CALLBACK (on_filtered_items_changed_cb), self);

  g_signal_connect (factory, "setup", G_CALLBACK (on_factory_setup_cb), self);
  self->list_view = GTK_LIST_VIEW (gtk_list_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)),
                                                      g_steal_pointer (&factory)));
  gtk_list_view_set_single_click_activate (self->list_view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list_view), "navigation-sidebar");
  g_signal_connect (self->list_view, "activate", G_CALLBACK (on_list_view_activate_cb), self);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list_view));
  /* An empty list has no text inside to name it by. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Conversations"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (scrolled), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Conversations"), -1);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), scrolled);

  self->empty_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->empty_label, TRUE);
  gtk_label_set_justify (self->empty_label, GTK_JUSTIFY_CENTER);
  gtk_widget_set_valign (GTK_WIDGET (self->empty_label), GTK_ALIGN_CENTER);
  gtk_widget_set_margin_start (GTK_WIDGET (self->empty_label), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self->empty_label), 12);
  gtk_widget_add_css_class (GTK_WIDGET (self->empty_label), "dim-label");
  gtk_widget_set_can_target (GTK_WIDGET (self->empty_label), FALSE);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), GTK_WIDGET (self->empty_label));

  gtk_widget_set_vexpand (overlay, TRUE);
  gtk_widget_set_parent (overlay, GTK_WIDGET (self));
  update_empty (self);
}

/* API */

/**
 * zot_conversation_sidebar_new:
 *
 * Returns: (transfer floating): an empty sidebar, until it has an index
 */
GtkWidget *
zot_conversation_sidebar_new (void)
{
  return g_object_new (ZOT_TYPE_CONVERSATION_SIDEBAR, NULL);
}

void
zot_conversation_sidebar_set_index (ZotConversationSidebar *self,
                                    ZotConversationIndex   *index)
{
  g_return_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self));
  g_return_if_fail (index == NULL || ZOT_IS_CONVERSATION_INDEX (index));

  if (!g_set_object (&self->index, index))
    return;

  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (index));
  on_sort_button_toggled_cb (self->sort_button, self);
  start_search (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

/**
 * zot_conversation_sidebar_get_index:
 *
 * Returns: (transfer none) (nullable): what the sidebar lists
 */
ZotConversationIndex *
zot_conversation_sidebar_get_index (ZotConversationSidebar *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self), NULL);
  return self->index;
}

/**
 * zot_conversation_sidebar_set_current_path:
 * @path: (nullable): the session file the window shows
 *
 * Marks the open conversation in the list, once it is listed.
 */
void
zot_conversation_sidebar_set_current_path (ZotConversationSidebar *self,
                                           const char             *path)
{
  g_return_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self));

  g_free (self->current_path);
  self->current_path = g_strdup (path);
  select_current (self);
}

/**
 * zot_conversation_sidebar_set_search:
 * @text: (nullable): what to look for; %NULL or empty for every conversation
 *
 * Searches at once, as typing @text does after a moment.
 */
void
zot_conversation_sidebar_set_search (ZotConversationSidebar *self,
                                     const char             *text)
{
  g_return_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self));

  g_signal_handlers_block_by_func (self->search_entry, on_search_entry_search_changed_cb, self);
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text ? text : "");
  g_signal_handlers_unblock_by_func (self->search_entry, on_search_entry_search_changed_cb, self);
  start_search (self, text);
}

/**
 * zot_conversation_sidebar_get_shown:
 *
 * Returns: (transfer none): the conversations listed: a #GListModel of
 *   #ZotConversation, after the search
 */
GListModel *
zot_conversation_sidebar_get_shown (ZotConversationSidebar *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self), NULL);
  return G_LIST_MODEL (self->filtered);
}

gboolean
zot_conversation_sidebar_get_searching (ZotConversationSidebar *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self), FALSE);
  return self->search_cancellable != NULL;
}

/**
 * zot_conversation_sidebar_rename:
 * @path: a listed session file
 * @title: its new name; blank for its first prompt
 *
 * Renames the conversation, as its menu's Rename does.
 */
void
zot_conversation_sidebar_rename (ZotConversationSidebar *self,
                                 const char             *path,
                                 const char             *title)
{
  ZotConversation *conversation;

  g_return_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self));
  g_return_if_fail (path != NULL);

  conversation = self->index ? zot_conversation_index_lookup (self->index, path) : NULL;
  if (conversation == NULL)
    return;

  zot_conversation_index_rename_async (self->index, conversation, title, self->cancellable, renamed_cb,
                                       g_object_ref (self));
}

/**
 * zot_conversation_sidebar_trash:
 * @path: a listed session file
 *
 * Moves the conversation to the trash, as its menu's Move to Trash does,
 * then emits ::trashed.
 */
void
zot_conversation_sidebar_trash (ZotConversationSidebar *self,
                                const char             *path)
{
  ZotConversation *conversation;
  Trashing *trashing;

  g_return_if_fail (ZOT_IS_CONVERSATION_SIDEBAR (self));
  g_return_if_fail (path != NULL);

  conversation = self->index ? zot_conversation_index_lookup (self->index, path) : NULL;
  if (conversation == NULL)
    return;

  trashing = g_new0 (Trashing, 1);
  trashing->self = g_object_ref (self);
  trashing->path = g_strdup (path);
  zot_conversation_index_trash_async (self->index, conversation, self->cancellable, trashed_cb, trashing);
}
