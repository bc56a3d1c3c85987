/* zot-panel-pane.c — one page per open extension panel
 *
 * Pages come and go with the manager's panels: added on ::panel-opened,
 * retitled on ::panel-updated, removed when the panel closes, from either
 * side. The panel's own ::closed signal carries the reason when the
 * extension's end went away (a crash, a stop); the pane then shows
 * "TITLE closed: REASON" and emits ::panel-closed-note for a toast.
 */
#define G_LOG_DOMAIN "zot-panel-pane"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-ansi.h"
#include "zot-panel-pane.h"
#include "zot-panel-pane-private.h"
#include "zot-panel-view.h"
#include "zot-wrap-safe-gtk.h"

typedef struct
{
  ZotPanel  *panel;
  GtkWidget *view;    /* owned by the stack */
  gulong     closed_id;
} Page;

struct _ZotPanelPane
{
  GtkWidget            parent_instance;

  ZotExtensionManager *manager;
  GSignalGroup        *manager_signals;
  GHashTable          *pages;    /* ZotPanel → Page */
  guint                sweep_source;

  /* Template widgets */
  GtkBox              *box;
  GtkBox              *status_box;
  GtkLabel            *status_label;
  GtkStack            *outer;
  GtkStack            *stack;
};

enum {
  PROP_0,
  PROP_MANAGER,
  PROP_N_PANELS,
  N_PROPS
};

enum {
  PANEL_ADDED,
  PANEL_CLOSED_NOTE,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotPanelPane, zot_panel_pane, GTK_TYPE_WIDGET)

static void
page_free (Page *page)
{
  g_clear_signal_handler (&page->closed_id, page->panel);
  g_clear_object (&page->panel);
  g_free (page);
}

static char *
plain_title (ZotPanel *panel)
{
  return zot_ansi_to_pango (zot_panel_get_title (panel), NULL);
}

static void
update_empty_state (ZotPanelPane *self)
{
  gtk_stack_set_visible_child_name (self->outer,
                                    g_hash_table_size (self->pages) > 0 ? "panels" : "empty");
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_N_PANELS]);
}

static void
remove_panel (ZotPanelPane *self,
              ZotPanel     *panel)
{
  Page *page = g_hash_table_lookup (self->pages, panel);

  if (page == NULL)
    return;

  gtk_stack_remove (self->stack, page->view);
  g_hash_table_remove (self->pages, panel);
  update_empty_state (self);
}

static void
show_status (ZotPanelPane *self,
             const char   *text)
{
  zot_wrap_safe_label_set_text (self->status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->status_box), TRUE);
}

static void
on_status_dismiss_clicked_cb (ZotPanelPane *self,
                              GtkButton    *button)
{
  gtk_widget_set_visible (GTK_WIDGET (self->status_box), FALSE);
}

/* The panel closed, from either side; @reason when its extension went away. */
static void
on_panel_closed_cb (ZotPanel     *panel,
                    const char   *reason,
                    ZotPanelPane *self)
{
  g_autoptr(ZotPanel) hold = g_object_ref (panel);

  remove_panel (self, panel);

  if (reason != NULL && *reason != '\0')
    {
      g_autofree char *title = plain_title (panel);
      /* Translators: a note: %s is a panel's title, then why the extension closed it */
      g_autofree char *note = g_strdup_printf (_("%s closed: %s"), title, reason);

      show_status (self, note);
      g_signal_emit (self, signals [PANEL_CLOSED_NOTE], 0, note);
    }
}

static void
add_panel (ZotPanelPane *self,
           ZotPanel     *panel)
{
  g_autofree char *title = NULL;
  Page *page;

  if (g_hash_table_contains (self->pages, panel) || !zot_panel_is_open (panel))
    return;

  title = plain_title (panel);

  page = g_new0 (Page, 1);
  page->panel = g_object_ref (panel);
  page->view = zot_panel_view_new (panel);
  page->closed_id = g_signal_connect (panel, "closed", G_CALLBACK (on_panel_closed_cb), self);
  g_hash_table_insert (self->pages, panel, page);

  gtk_stack_add_titled (self->stack, page->view, NULL, title);
  gtk_stack_set_visible_child (self->stack, page->view);
  update_empty_state (self);

  g_signal_emit (self, signals [PANEL_ADDED], 0, panel);
}

static void
remove_all (ZotPanelPane *self)
{
  g_autoptr(GList) panels = g_hash_table_get_keys (self->pages);

  for (GList *l = panels; l != NULL; l = l->next)
    remove_panel (self, l->data);
}

static void
on_manager_panel_opened_cb (ZotPanelPane *self,
                            ZotExtension *extension,
                            ZotPanel     *panel)
{
  add_panel (self, panel);
}

static void
on_manager_panel_updated_cb (ZotPanelPane *self,
                             ZotExtension *extension,
                             ZotPanel     *panel)
{
  Page *page = g_hash_table_lookup (self->pages, panel);
  g_autofree char *title = NULL;

  if (page == NULL)
    {
      add_panel (self, panel);
      return;
    }

  /* The view redraws itself; the page's title is ours. */
  title = plain_title (panel);
  gtk_stack_page_set_title (gtk_stack_get_page (self->stack, page->view), title);
}

static gboolean
sweep_closed_cb (gpointer data)
{
  ZotPanelPane *self = data;
  g_autoptr(GList) panels = g_hash_table_get_keys (self->pages);

  self->sweep_source = 0;

  for (GList *l = panels; l != NULL; l = l->next)
    if (!zot_panel_is_open (l->data))
      remove_panel (self, l->data);

  return G_SOURCE_REMOVE;
}

/* The manager announces this from inside the panel's ::closed emission,
 * before our own handler on the panel has run: that handler, which knows
 * the reason, removes the page. A sweep afterwards catches anything else. */
static void
on_manager_panel_closed_cb (ZotPanelPane *self,
                            ZotExtension *extension,
                            ZotPanel     *panel)
{
  if (self->sweep_source == 0)
    self->sweep_source = g_idle_add (sweep_closed_cb, self);
}

static void
zot_panel_pane_dispose (GObject *object)
{
  ZotPanelPane *self = (ZotPanelPane *)object;

  g_clear_handle_id (&self->sweep_source, g_source_remove);
  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->manager_signals);
  g_clear_object (&self->manager);
  if (self->pages != NULL)
    g_hash_table_remove_all (self->pages);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_PANEL_PANE);

  G_OBJECT_CLASS (zot_panel_pane_parent_class)->dispose (object);
}

static void
zot_panel_pane_finalize (GObject *object)
{
  ZotPanelPane *self = (ZotPanelPane *)object;

  g_clear_pointer (&self->pages, g_hash_table_unref);

  G_OBJECT_CLASS (zot_panel_pane_parent_class)->finalize (object);
}

static void
zot_panel_pane_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  ZotPanelPane *self = ZOT_PANEL_PANE (object);

  switch (prop_id)
    {
    case PROP_MANAGER:
      g_value_set_object (value, self->manager);
      break;

    case PROP_N_PANELS:
      g_value_set_uint (value, g_hash_table_size (self->pages));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_pane_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  ZotPanelPane *self = ZOT_PANEL_PANE (object);

  switch (prop_id)
    {
    case PROP_MANAGER:
      zot_panel_pane_set_manager (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_pane_class_init (ZotPanelPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_panel_pane_dispose;
  object_class->finalize = zot_panel_pane_finalize;
  object_class->get_property = zot_panel_pane_get_property;
  object_class->set_property = zot_panel_pane_set_property;

  properties [PROP_MANAGER] =
    g_param_spec_object ("manager", NULL, NULL,
                         ZOT_TYPE_EXTENSION_MANAGER,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotPanelPane:n-panels:
   *
   * How many panels are open: the window hides the side pane when the
   * last one closes.
   */
  properties [PROP_N_PANELS] =
    g_param_spec_uint ("n-panels", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotPanelPane::panel-added:
   * @panel: the panel that got a page
   *
   * The window reveals the side pane.
   */
  signals [PANEL_ADDED] =
    g_signal_new ("panel-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_PANEL);

  /**
   * ZotPanelPane::panel-closed-note:
   * @text: "TITLE closed: REASON", for the user
   *
   * A panel closed because its extension went away. The pane shows @text
   * too; the window may make a toast of it.
   */
  signals [PANEL_CLOSED_NOTE] =
    g_signal_new ("panel-closed-note",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-panel-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotPanelPane, box);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelPane, status_box);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelPane, status_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelPane, outer);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelPane, stack);
  gtk_widget_class_bind_template_callback (widget_class, on_status_dismiss_clicked_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "panelpane");
}

static void
zot_panel_pane_init (ZotPanelPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->pages = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) page_free);

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect_object (self->manager_signals, "panel-opened",
                                 G_CALLBACK (on_manager_panel_opened_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "panel-updated",
                                 G_CALLBACK (on_manager_panel_updated_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "panel-closed",
                                 G_CALLBACK (on_manager_panel_closed_cb), self, G_CONNECT_SWAPPED);

  update_empty_state (self);
}

GtkWidget *
zot_panel_pane_new (void)
{
  return g_object_new (ZOT_TYPE_PANEL_PANE, NULL);
}

/**
 * zot_panel_pane_set_manager:
 * @manager: (nullable): whose panels to show
 *
 * Shows the panels open now and follows the ones opened later.
 */
void
zot_panel_pane_set_manager (ZotPanelPane        *self,
                            ZotExtensionManager *manager)
{
  g_return_if_fail (ZOT_IS_PANEL_PANE (self));
  g_return_if_fail (manager == NULL || ZOT_IS_EXTENSION_MANAGER (manager));

  if (self->manager == manager)
    return;

  remove_all (self);
  g_set_object (&self->manager, manager);
  g_signal_group_set_target (self->manager_signals, manager);

  if (manager != NULL)
    {
      GPtrArray *panels = zot_extension_manager_list_panels (manager);

      for (guint i = 0; panels != NULL && i < panels->len; i++)
        add_panel (self, g_ptr_array_index (panels, i));
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MANAGER]);
}

ZotExtensionManager *
zot_panel_pane_get_manager (ZotPanelPane *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_PANE (self), NULL);
  return self->manager;
}

guint
zot_panel_pane_get_n_panels (ZotPanelPane *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_PANE (self), 0);
  return g_hash_table_size (self->pages);
}

/**
 * zot_panel_pane_show_panel:
 * @key: "EXTENSION/ID", as zot_panel_get_key() gives it
 *
 * Brings the panel's page to the front and puts the keyboard into it.
 *
 * Returns: whether a panel by that key is open
 */
gboolean
zot_panel_pane_show_panel (ZotPanelPane *self,
                           const char   *key)
{
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (ZOT_IS_PANEL_PANE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  g_hash_table_iter_init (&iter, self->pages);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Page *page = value;

      if (g_strcmp0 (zot_panel_get_key (page->panel), key) == 0)
        {
          gtk_stack_set_visible_child (self->stack, page->view);
          if (!gtk_widget_grab_focus (page->view))
            gtk_widget_child_focus (page->view, GTK_DIR_TAB_FORWARD);
          return TRUE;
        }
    }
  return FALSE;
}

ZotPanelView *
_zot_panel_pane_get_view (ZotPanelPane *self,
                          ZotPanel     *panel)
{
  Page *page;

  g_return_val_if_fail (ZOT_IS_PANEL_PANE (self), NULL);

  page = g_hash_table_lookup (self->pages, panel);
  return page ? ZOT_PANEL_VIEW (page->view) : NULL;
}

/**
 * _zot_panel_pane_get_status:
 *
 * Returns: (nullable): the status line, when it shows
 */
const char *
_zot_panel_pane_get_status (ZotPanelPane *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_PANE (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->status_box)))
    return NULL;
  return gtk_label_get_text (self->status_label);
}
