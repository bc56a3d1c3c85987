/* zot-empty-state.c — what a new conversation shows before its first
 * message, instead of a blank pane.
 *
 * A line on what to type; the slash commands the loaded extensions offer,
 * each a button that puts it in the prompt; and the project's most recent
 * conversations, each a row that opens it (::open-requested, as the
 * sidebar asks). It shows while the transcript has no message, tool call
 * or summary, and goes as soon as one comes; notes and warnings of the
 * host do not count. The commands follow the extension manager, the
 * conversations the index, so both are current whenever it shows.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-conversation-row.h"
#include "zot-conversation.h"
#include "zot-empty-state.h"
#include "zot-host.h"
#include "zot-limits.h"
#include "zot-tooltip.h"
#include "zot-transcript-private.h"

struct _ZotEmptyState
{
  GtkWidget        parent_instance;

  GtkWidget       *clamp;
  GtkWidget       *commands_heading;
  GtkFlowBox      *commands;
  GtkWidget       *recent_heading;
  GtkListBox      *recent;

  ZotTranscript   *transcript;      /* weak: siblings in the window */
  ZotPromptEditor *prompt_editor;   /* weak */
  GListModel      *conversations;
  GListModel      *items;
  GSignalGroup    *manager_signals;
  GPtrArray       *command_buttons;
  GPtrArray       *conversation_rows;
};

G_DEFINE_FINAL_TYPE (ZotEmptyState, zot_empty_state, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRANSCRIPT,
  PROP_PROMPT_EDITOR,
  N_PROPS
};

enum {
  OPEN_REQUESTED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static gboolean
is_conversation (ZotTranscriptItem *item)
{
  switch (zot_transcript_item_get_kind (item))
    {
    case ZOT_TRANSCRIPT_ITEM_USER:
    case ZOT_TRANSCRIPT_ITEM_ASSISTANT:
    case ZOT_TRANSCRIPT_ITEM_TOOL:
    case ZOT_TRANSCRIPT_ITEM_SUMMARY:
      return TRUE;

    default:
      return FALSE;
    }
}

static void
update_visible (ZotEmptyState *self)
{
  guint n_items = self->items != NULL ? g_list_model_get_n_items (self->items) : 0;
  gboolean empty = TRUE;

  for (guint i = 0; i < n_items && empty; i++)
    {
      g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (self->items, i);

      empty = !is_conversation (item);
    }

  gtk_widget_set_visible (GTK_WIDGET (self), empty && self->transcript != NULL);
}

static void
on_command_clicked_cb (GtkButton     *button,
                       ZotEmptyState *self)
{
  const char *name = g_object_get_data (G_OBJECT (button), "zot-command");
  g_autofree char *text = g_strdup_printf ("/%s ", name);

  if (self->prompt_editor == NULL)
    return;
  zot_prompt_editor_set_text (self->prompt_editor, text);
  gtk_widget_grab_focus (GTK_WIDGET (self->prompt_editor));
}

static void
update_commands (ZotEmptyState *self)
{
  ZotExtensionManager *manager = g_signal_group_dup_target (self->manager_signals);
  g_autoptr(GPtrArray) commands = NULL;
  GtkWidget *child;

  if (manager != NULL)
    {
      commands = zot_extension_manager_list_commands (manager);
      g_object_unref (manager);
    }

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->commands))) != NULL)
    gtk_flow_box_remove (self->commands, child);
  g_ptr_array_set_size (self->command_buttons, 0);
  for (guint i = 0; commands != NULL && i < commands->len; i++)
    {
      ZotCommandInfo *info = g_ptr_array_index (commands, i);
      g_autofree char *label = NULL;
      GtkWidget *button;

      /* The host's own (/help, /model…) are in /help: these are what the
       * extensions brought. */
      if (info->extension == NULL)
        continue;

      label = g_strdup_printf ("/%s", info->name);
      button = gtk_button_new_with_label (label);
      g_object_set_data_full (G_OBJECT (button), "zot-command", g_strdup (info->name), g_free);
      if (info->description != NULL && *info->description != '\0')
        zot_tooltip_set (button, info->description);
      g_signal_connect (button, "clicked", G_CALLBACK (on_command_clicked_cb), self);
      gtk_flow_box_append (self->commands, button);
      g_ptr_array_add (self->command_buttons, button);
    }

  gtk_widget_set_visible (self->commands_heading, self->command_buttons->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->commands), self->command_buttons->len > 0);
}

static int
compare_modified (gconstpointer a,
                  gconstpointer b)
{
  gint64 ma = zot_conversation_get_modified (*(ZotConversation **) a);
  gint64 mb = zot_conversation_get_modified (*(ZotConversation **) b);

  return ma < mb ? 1 : ma > mb ? -1 : 0;
}

static GtkWidget *
conversation_row_new (ZotConversation *conversation)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *title = gtk_label_new (zot_conversation_get_title (conversation));
  g_autofree char *when = zot_conversation_format_time (zot_conversation_get_modified (conversation));
  GtkWidget *time = gtk_label_new (when);

  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_add_css_class (time, "dim-label");
  gtk_widget_add_css_class (time, "numeric");
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), time);
  gtk_widget_set_margin_top (box, 9);
  gtk_widget_set_margin_bottom (box, 9);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  zot_conversation_get_title (conversation), -1);
  g_object_set_data_full (G_OBJECT (row), "zot-path", g_strdup (zot_conversation_get_path (conversation)),
                          g_free);
  return row;
}

static void
update_recent (ZotEmptyState *self)
{
  guint n_items = self->conversations != NULL ? g_list_model_get_n_items (self->conversations) : 0;
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
  GtkWidget *child;

  /* Not while hidden: the index grows a row at a time as it reads. */
  if (!gtk_widget_get_visible (GTK_WIDGET (self)) && self->conversation_rows->len > 0)
    return;

  for (guint i = 0; i < n_items; i++)
    g_ptr_array_add (all, g_list_model_get_item (self->conversations, i));
  g_ptr_array_sort (all, compare_modified);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent))) != NULL)
    gtk_list_box_remove (self->recent, child);
  g_ptr_array_set_size (self->conversation_rows, 0);
  for (guint i = 0; i < all->len && i < ZOT_EMPTY_STATE_RECENT_MAX; i++)
    {
      GtkWidget *row = conversation_row_new (g_ptr_array_index (all, i));

      gtk_list_box_append (self->recent, row);
      g_ptr_array_add (self->conversation_rows, row);
    }

  gtk_widget_set_visible (self->recent_heading, self->conversation_rows->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->recent), self->conversation_rows->len > 0);
}

static void
on_recent_row_activated_cb (GtkListBox    *list,
                            GtkListBoxRow *row,
                            ZotEmptyState *self)
{
  const char *path = g_object_get_data (G_OBJECT (row), "zot-path");

  if (path != NULL)
    g_signal_emit (self, signals [OPEN_REQUESTED], 0, path);
}

static void
on_transcript_host_notify_cb (ZotTranscript *transcript,
                              GParamSpec    *pspec,
                              ZotEmptyState *self)
{
  g_autoptr(ZotHost) host = NULL;

  g_object_get (transcript, "host", &host, NULL);
  g_signal_group_set_target (self->manager_signals, host != NULL ? zot_host_get_manager (host) : NULL);
  update_commands (self);
}

static void
on_items_changed_cb (GListModel    *items,
                     guint          position,
                     guint          removed,
                     guint          added,
                     ZotEmptyState *self)
{
  gboolean was_visible = gtk_widget_get_visible (GTK_WIDGET (self));

  update_visible (self);
  /* Shown again for a new conversation: the list may have grown since. */
  if (!was_visible && gtk_widget_get_visible (GTK_WIDGET (self)))
    update_recent (self);
}

static void
on_conversations_changed_cb (GListModel    *conversations,
                             guint          position,
                             guint          removed,
                             guint          added,
                             ZotEmptyState *self)
{
  update_recent (self);
}

static void
zot_empty_state_dispose (GObject *object)
{
  ZotEmptyState *self = ZOT_EMPTY_STATE (object);

  zot_empty_state_set_transcript (self, NULL);
  zot_empty_state_set_conversations (self, NULL);
  g_clear_weak_pointer (&self->prompt_editor);
  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->manager_signals);
  g_clear_pointer (&self->command_buttons, g_ptr_array_unref);
  g_clear_pointer (&self->conversation_rows, g_ptr_array_unref);
  if (self->clamp != NULL)
    gtk_widget_unparent (g_steal_pointer (&self->clamp));

  G_OBJECT_CLASS (zot_empty_state_parent_class)->dispose (object);
}

static void
zot_empty_state_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  ZotEmptyState *self = ZOT_EMPTY_STATE (object);

  switch (prop_id)
    {
    case PROP_TRANSCRIPT:
      g_value_set_object (value, self->transcript);
      break;

    case PROP_PROMPT_EDITOR:
      g_value_set_object (value, self->prompt_editor);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_empty_state_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  ZotEmptyState *self = ZOT_EMPTY_STATE (object);

  switch (prop_id)
    {
    case PROP_TRANSCRIPT:
      zot_empty_state_set_transcript (self, g_value_get_object (value));
      break;

    case PROP_PROMPT_EDITOR:
      zot_empty_state_set_prompt_editor (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_empty_state_class_init (ZotEmptyStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_empty_state_dispose;
  object_class->get_property = zot_empty_state_get_property;
  object_class->set_property = zot_empty_state_set_property;

  /**
   * ZotEmptyState:transcript:
   *
   * The conversation whose emptiness it shows in; held weakly.
   */
  properties [PROP_TRANSCRIPT] =
    g_param_spec_object ("transcript", NULL, NULL, ZOT_TYPE_TRANSCRIPT,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /**
   * ZotEmptyState:prompt-editor:
   *
   * Where a command's button puts the command; held weakly.
   */
  properties [PROP_PROMPT_EDITOR] =
    g_param_spec_object ("prompt-editor", NULL, NULL, ZOT_TYPE_PROMPT_EDITOR,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotEmptyState::open-requested:
   * @path: the session file
   *
   * The user picked a recent conversation to go on with.
   */
  signals [OPEN_REQUESTED] =
    g_signal_new ("open-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "zot-empty-state");
}

static GtkWidget *
heading_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_top (label, 12);
  return label;
}

static void
zot_empty_state_init (ZotEmptyState *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *title = gtk_label_new (_("New Conversation"));
  GtkWidget *hint = gtk_label_new (_("Ask a question or describe a task: the model can read and change "
                                     "the files of this project, asking first where it should. "
                                     "Type / for commands, drop images or files to attach them."));

  self->command_buttons = g_ptr_array_new ();
  self->conversation_rows = g_ptr_array_new ();
  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect_swapped (self->manager_signals, "commands-changed", G_CALLBACK (update_commands), self);

  gtk_widget_add_css_class (title, "title-2");
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_box_append (GTK_BOX (box), title);
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_justify (GTK_LABEL (hint), GTK_JUSTIFY_CENTER);
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_box_append (GTK_BOX (box), hint);

  /* Translators: the heading of the slash commands a new conversation offers */
  self->commands_heading = heading_new (_("Commands"));
  gtk_box_append (GTK_BOX (box), self->commands_heading);
  self->commands = GTK_FLOW_BOX (gtk_flow_box_new ());
  gtk_flow_box_set_selection_mode (self->commands, GTK_SELECTION_NONE);
  gtk_flow_box_set_column_spacing (self->commands, 6);
  gtk_flow_box_set_row_spacing (self->commands, 6);
  gtk_flow_box_set_max_children_per_line (self->commands, 8);
  gtk_flow_box_set_homogeneous (self->commands, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->commands), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Commands"), -1);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->commands));

  self->recent_heading = heading_new (_("Recent Conversations"));
  gtk_box_append (GTK_BOX (box), self->recent_heading);
  self->recent = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->recent, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->recent), "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->recent), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Recent Conversations"), -1);
  g_signal_connect (self->recent, "row-activated", G_CALLBACK (on_recent_row_activated_cb), self);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->recent));

  gtk_widget_set_margin_top (box, 24);
  gtk_widget_set_margin_bottom (box, 24);
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  self->clamp = adw_clamp_new ();
  adw_clamp_set_maximum_size (ADW_CLAMP (self->clamp), 520);
  adw_clamp_set_child (ADW_CLAMP (self->clamp), box);
  gtk_widget_set_parent (self->clamp, GTK_WIDGET (self));
  /* Over the transcript, only as large as what it shows: the rows that
   * may be there (a warning, a failed extension) keep their clicks. */
  gtk_widget_set_valign (GTK_WIDGET (self), GTK_ALIGN_CENTER);

  update_commands (self);
  update_recent (self);
  update_visible (self);
}

GtkWidget *
zot_empty_state_new (void)
{
  return g_object_new (ZOT_TYPE_EMPTY_STATE, NULL);
}

void
zot_empty_state_set_transcript (ZotEmptyState *self,
                                ZotTranscript *transcript)
{
  g_return_if_fail (ZOT_IS_EMPTY_STATE (self));
  g_return_if_fail (transcript == NULL || ZOT_IS_TRANSCRIPT (transcript));

  if (self->transcript == transcript)
    return;

  if (self->transcript != NULL)
    g_signal_handlers_disconnect_by_data (self->transcript, self);
  if (self->items != NULL)
    g_signal_handlers_disconnect_by_data (self->items, self);
  g_clear_object (&self->items);
  g_set_weak_pointer (&self->transcript, transcript);
  if (transcript != NULL)
    {
      self->items = g_object_ref (_zot_transcript_get_items (transcript));
      g_signal_connect (self->items, "items-changed", G_CALLBACK (on_items_changed_cb), self);
      g_signal_connect (transcript, "notify::host", G_CALLBACK (on_transcript_host_notify_cb), self);
      on_transcript_host_notify_cb (transcript, NULL, self);
    }
  update_visible (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TRANSCRIPT]);
}

void
zot_empty_state_set_prompt_editor (ZotEmptyState   *self,
                                   ZotPromptEditor *editor)
{
  g_return_if_fail (ZOT_IS_EMPTY_STATE (self));
  g_return_if_fail (editor == NULL || ZOT_IS_PROMPT_EDITOR (editor));

  if (g_set_weak_pointer (&self->prompt_editor, editor))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PROMPT_EDITOR]);
}

/**
 * zot_empty_state_set_conversations:
 * @conversations: (nullable): a list of #ZotConversation, the project's
 *
 * Offers the most recently changed of @conversations.
 */
void
zot_empty_state_set_conversations (ZotEmptyState *self,
                                   GListModel    *conversations)
{
  g_return_if_fail (ZOT_IS_EMPTY_STATE (self));
  g_return_if_fail (conversations == NULL || G_IS_LIST_MODEL (conversations));

  if (self->conversations == conversations)
    return;

  if (self->conversations != NULL)
    g_signal_handlers_disconnect_by_data (self->conversations, self);
  g_set_object (&self->conversations, conversations);
  if (conversations != NULL)
    g_signal_connect (conversations, "items-changed", G_CALLBACK (on_conversations_changed_cb), self);
  if (self->conversation_rows != NULL)
    update_recent (self);
}

/**
 * _zot_empty_state_get_command_buttons:
 *
 * Returns: (transfer none) (element-type GtkButton): the commands' buttons
 */
GPtrArray *
_zot_empty_state_get_command_buttons (ZotEmptyState *self)
{
  g_return_val_if_fail (ZOT_IS_EMPTY_STATE (self), NULL);
  return self->command_buttons;
}

/**
 * _zot_empty_state_get_conversation_rows:
 *
 * Returns: (transfer none) (element-type GtkListBoxRow): the recent
 *   conversations' rows, newest first
 */
GPtrArray *
_zot_empty_state_get_conversation_rows (ZotEmptyState *self)
{
  g_return_val_if_fail (ZOT_IS_EMPTY_STATE (self), NULL);
  return self->conversation_rows;
}
