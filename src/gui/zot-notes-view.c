/* zot-notes-view.c — the extensions' status notes (PROTOCOL.md §8)
 *
 * One group per extension, in the order their first notes came: a heading
 * with the extension's name, then its notes, newest last, each styled by
 * its level (note-info, note-success, note-warn, note-error in style.css).
 * ::notes-cleared removes the extension's group. A group keeps its last
 * MAX_NOTES notes, so a chatty extension cannot grow the window forever.
 */
#define G_LOG_DOMAIN "zot-notes-view"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-notes-view.h"
#include "zot-tooltip.h"
#include "zot-wrap-safe-gtk.h"

#define MAX_NOTES 200

typedef struct
{
  GtkWidget *group;   /* owned by groups_box */
  GtkWidget *list;
  guint      n_notes;
} Group;

struct _ZotNotesView
{
  GtkWidget            parent_instance;

  ZotExtensionManager *manager;
  GSignalGroup        *manager_signals;
  GHashTable          *groups;    /* extension name → Group */
  guint                n_notes;

  /* Template widgets */
  GtkStack            *stack;
  GtkScrolledWindow   *scroller;
  GtkBox              *groups_box;
};

enum {
  PROP_0,
  PROP_MANAGER,
  PROP_N_NOTES,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotNotesView, zot_notes_view, GTK_TYPE_WIDGET)

static const struct {
  const char *level;
  const char *css_class;
  const char *icon_name;
} levels[] = {
  { "info", "note-info", "dialog-information-symbolic" },
  { "success", "note-success", "emblem-ok-symbolic" },
  { "warn", "note-warn", "dialog-warning-symbolic" },
  { "warning", "note-warn", "dialog-warning-symbolic" },
  { "error", "note-error", "dialog-error-symbolic" },
};

static guint
level_index (const char *level)
{
  for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
    if (g_strcmp0 (level, levels[i].level) == 0)
      return i;
  return 0;
}

static void
set_n_notes (ZotNotesView *self,
             guint         n_notes)
{
  if (self->n_notes == n_notes)
    return;

  self->n_notes = n_notes;
  gtk_stack_set_visible_child_name (self->stack, n_notes > 0 ? "notes" : "empty");
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_N_NOTES]);
}

static void
group_free (Group *group)
{
  g_free (group);
}

static Group *
ensure_group (ZotNotesView *self,
              const char   *name)
{
  Group *group = g_hash_table_lookup (self->groups, name);
  GtkWidget *heading;

  if (group != NULL)
    return group;

  group = g_new0 (Group, 1);
  group->group = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (group->group, "note-group");

  heading = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_label_set_ellipsize (GTK_LABEL (heading), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (heading, "heading");
  gtk_widget_add_css_class (heading, "note-heading");
  gtk_box_append (GTK_BOX (group->group), heading);

  group->list = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_box_append (GTK_BOX (group->group), group->list);

  gtk_box_append (self->groups_box, group->group);
  g_hash_table_insert (self->groups, g_strdup (name), group);

  return group;
}

static GtkWidget *
note_row_new (const char *level,
              const char *message)
{
  guint index = level_index (level);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *time = g_date_time_format (now, "%H:%M:%S");
  GtkWidget *row = gtk_grid_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name (levels[index].icon_name);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *stamp = gtk_label_new (time);

  /* A grid, not a horizontal box, for the reason in zot-markdown.c's
   * add_item(): a note can hold a tab. */
  gtk_grid_set_column_spacing (GTK_GRID (row), 8);
  gtk_widget_add_css_class (row, "note-row");
  gtk_widget_add_css_class (row, levels[index].css_class);

  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  zot_tooltip_set (icon, levels[index].level);
  gtk_grid_attach (GTK_GRID (row), icon, 0, 0, 1, 1);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  zot_wrap_safe_label_set_text (GTK_LABEL (label), message);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  /* Selectable with the pointer, but never the focus: a focused label that
   * clear_notes removes upsets GTK 4.8, and notes are not worth a Tab stop. */
  gtk_widget_set_focusable (label, FALSE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (label, "note-message");
  gtk_grid_attach (GTK_GRID (row), label, 1, 0, 1, 1);

  gtk_widget_set_valign (stamp, GTK_ALIGN_START);
  gtk_widget_add_css_class (stamp, "caption");
  gtk_widget_add_css_class (stamp, "dim-label");
  gtk_widget_add_css_class (stamp, "numeric");
  gtk_grid_attach (GTK_GRID (row), stamp, 2, 0, 1, 1);

  return row;
}

static gboolean
at_bottom (ZotNotesView *self)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 1;
}

static void
on_upper_changed_cb (GtkAdjustment *adjustment,
                     GParamSpec    *pspec,
                     ZotNotesView  *self)
{
  g_signal_handlers_disconnect_by_func (adjustment, on_upper_changed_cb, self);
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
}

static void
on_note_added_cb (ZotNotesView *self,
                  ZotExtension *extension,
                  const char   *level,
                  const char   *message)
{
  Group *group = ensure_group (self, zot_extension_get_name (extension));
  gboolean follow = self->n_notes > 0 && at_bottom (self);
  guint n_notes = self->n_notes;

  gtk_box_append (GTK_BOX (group->list), note_row_new (level, message ? message : ""));
  group->n_notes++;
  n_notes++;

  while (group->n_notes > MAX_NOTES)
    {
      gtk_box_remove (GTK_BOX (group->list), gtk_widget_get_first_child (group->list));
      group->n_notes--;
      n_notes--;
    }

  /* A reader at the bottom keeps seeing the newest note. */
  if (follow)
    g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "notify::upper",
                             G_CALLBACK (on_upper_changed_cb), self, 0);

  set_n_notes (self, n_notes);
}

static void
remove_group (ZotNotesView *self,
              const char   *name)
{
  Group *group = g_hash_table_lookup (self->groups, name);
  guint n_notes;

  if (group == NULL)
    return;

  n_notes = self->n_notes - group->n_notes;
  gtk_box_remove (self->groups_box, group->group);
  g_hash_table_remove (self->groups, name);
  set_n_notes (self, n_notes);
}

static void
on_notes_cleared_cb (ZotNotesView *self,
                     ZotExtension *extension)
{
  remove_group (self, zot_extension_get_name (extension));
}

static void
remove_all (ZotNotesView *self)
{
  g_autoptr(GList) names = g_hash_table_get_keys (self->groups);

  for (GList *l = names; l != NULL; l = l->next)
    {
      Group *group = g_hash_table_lookup (self->groups, l->data);
      gtk_box_remove (self->groups_box, group->group);
    }
  g_hash_table_remove_all (self->groups);
  set_n_notes (self, 0);
}

static void
zot_notes_view_dispose (GObject *object)
{
  ZotNotesView *self = (ZotNotesView *)object;

  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->manager_signals);
  g_clear_object (&self->manager);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_NOTES_VIEW);

  G_OBJECT_CLASS (zot_notes_view_parent_class)->dispose (object);
}

static void
zot_notes_view_finalize (GObject *object)
{
  ZotNotesView *self = (ZotNotesView *)object;

  g_clear_pointer (&self->groups, g_hash_table_unref);

  G_OBJECT_CLASS (zot_notes_view_parent_class)->finalize (object);
}

static void
zot_notes_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  ZotNotesView *self = ZOT_NOTES_VIEW (object);

  switch (prop_id)
    {
    case PROP_MANAGER:
      g_value_set_object (value, self->manager);
      break;

    case PROP_N_NOTES:
      g_value_set_uint (value, self->n_notes);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_notes_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  ZotNotesView *self = ZOT_NOTES_VIEW (object);

  switch (prop_id)
    {
    case PROP_MANAGER:
      zot_notes_view_set_manager (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_notes_view_class_init (ZotNotesViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_notes_view_dispose;
  object_class->finalize = zot_notes_view_finalize;
  object_class->get_property = zot_notes_view_get_property;
  object_class->set_property = zot_notes_view_set_property;

  properties [PROP_MANAGER] =
    g_param_spec_object ("manager", NULL, NULL,
                         ZOT_TYPE_EXTENSION_MANAGER,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotNotesView:n-notes:
   *
   * How many notes show, for a badge.
   */
  properties [PROP_N_NOTES] =
    g_param_spec_uint ("n-notes", NULL, NULL,
                       0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-notes-view.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotNotesView, stack);
  gtk_widget_class_bind_template_child (widget_class, ZotNotesView, scroller);
  gtk_widget_class_bind_template_child (widget_class, ZotNotesView, groups_box);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "notesview");
}

static void
zot_notes_view_init (ZotNotesView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->groups = g_hash_table_new_full (g_str_hash, g_str_equal,
                                        g_free, (GDestroyNotify) group_free);

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect_object (self->manager_signals, "note-added",
                                 G_CALLBACK (on_note_added_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "notes-cleared",
                                 G_CALLBACK (on_notes_cleared_cb), self, G_CONNECT_SWAPPED);

  gtk_stack_set_visible_child_name (self->stack, "empty");
}

GtkWidget *
zot_notes_view_new (void)
{
  return g_object_new (ZOT_TYPE_NOTES_VIEW, NULL);
}

/**
 * zot_notes_view_set_manager:
 * @manager: (nullable): whose notes to show
 *
 * Shows the notes that arrive from now on; a new manager starts empty.
 */
void
zot_notes_view_set_manager (ZotNotesView        *self,
                            ZotExtensionManager *manager)
{
  g_return_if_fail (ZOT_IS_NOTES_VIEW (self));
  g_return_if_fail (manager == NULL || ZOT_IS_EXTENSION_MANAGER (manager));

  if (self->manager == manager)
    return;

  remove_all (self);
  g_set_object (&self->manager, manager);
  g_signal_group_set_target (self->manager_signals, manager);

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MANAGER]);
}

ZotExtensionManager *
zot_notes_view_get_manager (ZotNotesView *self)
{
  g_return_val_if_fail (ZOT_IS_NOTES_VIEW (self), NULL);
  return self->manager;
}

guint
zot_notes_view_get_n_notes (ZotNotesView *self)
{
  g_return_val_if_fail (ZOT_IS_NOTES_VIEW (self), 0);
  return self->n_notes;
}
