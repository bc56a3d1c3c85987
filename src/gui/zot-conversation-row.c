/* zot-conversation-row.c — one stored conversation in the sidebar.
 *
 * Its title, and when it was last written and its size, bound to the
 * conversation's properties; what its model turns cost (tokens only when
 * a price was unknown), read from its file in a thread whenever the file
 * changes; its menu's Rename and Move to Trash ask the
 * sidebar ("sidebar.rename", "sidebar.trash") with the conversation's
 * path, so that one row serves whichever conversation the list gives it.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-conversation-cost.h"
#include "zot-conversation-row.h"
#include "zot-tooltip.h"
#include "zot-usage-label.h"

struct _ZotConversationRow
{
  GtkWidget        parent_instance;

  /* template */
  GtkLabel        *title_label;
  GtkLabel        *caption_label;
  GtkLabel        *cost_label;
  GtkMenuButton   *menu_button;

  ZotConversation *conversation;
  GBindingGroup   *bindings;
  GCancellable    *cost_cancellable;
  GtkWidget       *branch_mark;   /* before a branch listed under its origin */
};

enum {
  PROP_0,
  PROP_CONVERSATION,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotConversationRow, zot_conversation_row, GTK_TYPE_WIDGET)

/**
 * zot_conversation_format_time:
 * @modified: microseconds since the epoch
 *
 * Returns: (transfer full): the time today, else the date, short
 */
char *
zot_conversation_format_time (gint64 modified)
{
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (modified / G_USEC_PER_SEC);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  if (when == NULL)
    return g_strdup ("");
  if (g_date_time_get_year (when) == g_date_time_get_year (now) &&
      g_date_time_get_day_of_year (when) == g_date_time_get_day_of_year (now))
    return g_date_time_format (when, "%H:%M");
  if (g_date_time_get_year (when) == g_date_time_get_year (now))
    /* Translators: a date in this year, as strftime(); e.g. "3 Mar" */
    return g_date_time_format (when, _("%-d %b"));
  /* Translators: a date in another year, as strftime(); e.g. "3 Mar 2023" */
  return g_date_time_format (when, _("%-d %b %Y"));
}

static gboolean
title_to_label (GBinding     *binding,
                const GValue *from,
                GValue       *to,
                gpointer      user_data)
{
  const char *title = g_value_get_string (from);

  g_value_set_string (to, title != NULL ? title : _("Untitled conversation"));
  return TRUE;
}

/* The caption is made of two properties: when, then the size. */
static gboolean
modified_to_caption (GBinding     *binding,
                     const GValue *from,
                     GValue       *to,
                     gpointer      user_data)
{
  g_autoptr(GObject) conversation = g_binding_dup_source (binding);
  g_autofree char *when = zot_conversation_format_time (g_value_get_int64 (from));
  g_autofree char *size = NULL;

  if (conversation == NULL)
    return FALSE;

  size = g_format_size (zot_conversation_get_size (ZOT_CONVERSATION (conversation)));
  g_value_take_string (to, g_strdup_printf ("%s · %s", when, size));
  return TRUE;
}

static void
cost_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(ZotConversationRow) self = user_data;
  ZotConversationCost cost;
  g_autofree char *text = NULL;

  if (!zot_conversation_cost_read_finish (result, &cost, NULL) || cost.turns == 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->cost_label), FALSE);
      return;
    }

  if (cost.cost_known)
    text = zot_usage_format_cost (cost.cost_usd);
  else
    {
      g_autofree char *count = zot_usage_format_count (cost.input_tokens + cost.output_tokens +
                                                       cost.cache_read_tokens + cost.cache_write_tokens);

      /* Translators: a conversation's tokens, when its cost is unknown; e.g. "12.3k tokens" */
      text = g_strdup_printf (_("%s tokens"), count);
    }
  gtk_label_set_text (self->cost_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->cost_label), TRUE);
}

static void
update_cost (ZotConversationRow *self)
{
  g_cancellable_cancel (self->cost_cancellable);
  g_clear_object (&self->cost_cancellable);
  if (self->conversation == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->cost_label), FALSE);
      return;
    }

  self->cost_cancellable = g_cancellable_new ();
  zot_conversation_cost_read_async (zot_conversation_get_path (self->conversation), self->cost_cancellable,
                                    cost_read_cb, g_object_ref (self));
}

/**
 * zot_conversation_row_get_cost_text:
 *
 * Returns: (nullable): what the row says the conversation cost, %NULL
 *   while it says nothing
 */
const char *
zot_conversation_row_get_cost_text (ZotConversationRow *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_ROW (self), NULL);

  return gtk_widget_get_visible (GTK_WIDGET (self->cost_label)) ? gtk_label_get_text (self->cost_label) : NULL;
}

static void
activate_with_path (ZotConversationRow *self,
                    const char         *action_name)
{
  if (self->conversation != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), action_name, "s",
                                zot_conversation_get_path (self->conversation));
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  activate_with_path (ZOT_CONVERSATION_ROW (widget), "sidebar.rename");
}

static void
trash_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  activate_with_path (ZOT_CONVERSATION_ROW (widget), "sidebar.trash");
}

static void
zot_conversation_row_dispose (GObject *object)
{
  ZotConversationRow *self = ZOT_CONVERSATION_ROW (object);
  GtkWidget *child;

  if (self->bindings != NULL)
    g_binding_group_set_source (self->bindings, NULL);
  g_clear_object (&self->bindings);
  g_cancellable_cancel (self->cost_cancellable);
  g_clear_object (&self->cost_cancellable);
  g_clear_object (&self->conversation);
  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_CONVERSATION_ROW);
  /* The template's unnamed box too: a plain GtkWidget keeps its children. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (zot_conversation_row_parent_class)->dispose (object);
}

static void
zot_conversation_row_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  ZotConversationRow *self = ZOT_CONVERSATION_ROW (object);

  switch (prop_id)
    {
    case PROP_CONVERSATION:
      g_value_set_object (value, self->conversation);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_conversation_row_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  ZotConversationRow *self = ZOT_CONVERSATION_ROW (object);

  switch (prop_id)
    {
    case PROP_CONVERSATION:
      zot_conversation_row_set_conversation (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_conversation_row_class_init (ZotConversationRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_conversation_row_dispose;
  object_class->get_property = zot_conversation_row_get_property;
  object_class->set_property = zot_conversation_row_set_property;

  /**
   * ZotConversationRow:conversation:
   *
   * The conversation the row shows.
   */
  properties [PROP_CONVERSATION] =
    g_param_spec_object ("conversation", NULL, NULL, ZOT_TYPE_CONVERSATION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "row.rename", NULL, rename_action);
  gtk_widget_class_install_action (widget_class, "row.trash", NULL, trash_action);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-conversation-row.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotConversationRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, ZotConversationRow, caption_label);
  gtk_widget_class_bind_template_child (widget_class, ZotConversationRow, cost_label);
  gtk_widget_class_bind_template_child (widget_class, ZotConversationRow, menu_button);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
}

static void
zot_conversation_row_init (ZotConversationRow *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 6);
  gtk_widget_init_template (GTK_WIDGET (self));
  zot_tooltip_set (GTK_WIDGET (self->menu_button), _("Conversation Menu"));
  self->branch_mark = gtk_label_new ("↳");
  gtk_widget_add_css_class (self->branch_mark, "dim-label");
  gtk_widget_set_visible (self->branch_mark, FALSE);
  zot_tooltip_set (self->branch_mark, _("A branch: an edited prompt sent again"));
  gtk_widget_insert_after (self->branch_mark, GTK_WIDGET (self), NULL);

  self->bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->bindings, "title", self->title_label, "label",
                             G_BINDING_SYNC_CREATE, title_to_label, NULL, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "modified", self->caption_label, "label",
                             G_BINDING_SYNC_CREATE, modified_to_caption, NULL, NULL, NULL);
}

GtkWidget *
zot_conversation_row_new (void)
{
  return g_object_new (ZOT_TYPE_CONVERSATION_ROW, NULL);
}

/**
 * zot_conversation_row_get_conversation:
 *
 * Returns: (transfer none) (nullable): the conversation shown
 */
ZotConversation *
zot_conversation_row_get_conversation (ZotConversationRow *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_ROW (self), NULL);
  return self->conversation;
}

void
zot_conversation_row_set_conversation (ZotConversationRow *self,
                                       ZotConversation    *conversation)
{
  g_return_if_fail (ZOT_IS_CONVERSATION_ROW (self));
  g_return_if_fail (conversation == NULL || ZOT_IS_CONVERSATION (conversation));

  if (!g_set_object (&self->conversation, conversation))
    return;

  /* A changed file is a new conversation object in the list. */
  update_cost (self);
  gtk_widget_set_visible (self->branch_mark,
                          conversation != NULL && zot_conversation_get_branch_depth (conversation) > 0);
  gtk_widget_set_margin_start (self->branch_mark, conversation != NULL ?
                               12 * (int) MAX (zot_conversation_get_branch_depth (conversation), 1) - 12 : 0);

  g_binding_group_set_source (self->bindings, conversation);
  /* A tooltip is not a property to bind: it is given when GTK asks. */
  zot_tooltip_set (GTK_WIDGET (self), conversation != NULL ? zot_conversation_get_title (conversation) : NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CONVERSATION]);
}
