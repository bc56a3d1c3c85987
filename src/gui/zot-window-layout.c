/* zot-window-layout.c — the sidebar, the conversation and the side pane at
 * the width the window has.
 *
 * libadwaita 1.2's AdwFlap folds by the size of its children, which would
 * tie the two folds to each other and to whatever the panes hold; the
 * window decides instead, from its own width: below
 * ZOT_LAYOUT_SIDE_PANE_FOLD_WIDTH the side pane folds over the
 * conversation, below ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH the sidebar does too.
 * A folded pane is an overlay that Escape or a click beside it closes
 * (AdwFlap:modal).
 *
 * Each pane sits in a bin whose layout asks for the pane's width: the one
 * the user dragged its edge to (remembered), or a share of the window's.
 * The conversation takes the rest.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include "zot-limits.h"
#include "zot-window-layout-private.h"
#include "zot-window-private.h"

/* The bin's layout: as wide as asked beside the conversation; over it,
 * as narrow as the pane can be, so that the window can shrink. */
#define ZOT_TYPE_PANE_LAYOUT (zot_pane_layout_get_type ())
G_DECLARE_FINAL_TYPE (ZotPaneLayout, zot_pane_layout, ZOT, PANE_LAYOUT, GtkLayoutManager)

struct _ZotPaneLayout
{
  GtkLayoutManager parent_instance;

  int              width;
  gboolean         overlay;
};

G_DEFINE_FINAL_TYPE (ZotPaneLayout, zot_pane_layout, GTK_TYPE_LAYOUT_MANAGER)

static void
zot_pane_layout_measure (GtkLayoutManager *manager,
                         GtkWidget        *widget,
                         GtkOrientation    orientation,
                         int               for_size,
                         int              *minimum,
                         int              *natural,
                         int              *minimum_baseline,
                         int              *natural_baseline)
{
  ZotPaneLayout *self = ZOT_PANE_LAYOUT (manager);
  GtkWidget *child = gtk_widget_get_first_child (widget);
  int child_min = 0;
  int child_nat = 0;

  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_measure (child, orientation, for_size, &child_min, &child_nat, NULL, NULL);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = self->overlay ? child_min : MAX (child_min, self->width);
      *natural = MAX (child_min, self->width);
    }
  else
    {
      *minimum = child_min;
      *natural = child_nat;
    }
  *minimum_baseline = -1;
  *natural_baseline = -1;
}

static void
zot_pane_layout_allocate (GtkLayoutManager *manager,
                          GtkWidget        *widget,
                          int               width,
                          int               height,
                          int               baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_allocate (child, width, height, baseline, NULL);
}

static void
zot_pane_layout_class_init (ZotPaneLayoutClass *klass)
{
  GtkLayoutManagerClass *manager_class = GTK_LAYOUT_MANAGER_CLASS (klass);

  manager_class->measure = zot_pane_layout_measure;
  manager_class->allocate = zot_pane_layout_allocate;
}

static void
zot_pane_layout_init (ZotPaneLayout *self)
{
}

static void
pane_layout_set (ZotPaneLayout *self,
                 int            width,
                 gboolean       overlay)
{
  if (self->width == width && self->overlay == overlay)
    return;

  self->width = width;
  self->overlay = overlay;
  gtk_layout_manager_layout_changed (GTK_LAYOUT_MANAGER (self));
}

/* The window's layout */

typedef struct
{
  ZotPaneLayout *layout;
  const char    *key;          /* remembered width; 0 for the default */
  int            width;        /* as remembered */
  int            share;
  int            min;
  int            max;
  int            drag_start;
} Pane;

struct _ZotWindowLayout
{
  Pane sidebar;
  Pane side_pane;
  int  window_width;
};

gboolean
_zot_window_layout_folds_sidebar (int window_width)
{
  return window_width < ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH;
}

gboolean
_zot_window_layout_folds_side_pane (int window_width)
{
  return window_width < ZOT_LAYOUT_SIDE_PANE_FOLD_WIDTH;
}

int
_zot_window_layout_default_width (int window_width,
                                  int share,
                                  int min,
                                  int max)
{
  return CLAMP (window_width * share / 100, min, max);
}

static int
pane_width (ZotWindowLayout *layout,
            Pane            *pane)
{
  if (pane->width > 0)
    return CLAMP (pane->width, pane->min, pane->max);
  return _zot_window_layout_default_width (layout->window_width, pane->share, pane->min, pane->max);
}

static void
set_folded (AdwFlap  *flap,
            gboolean  folded)
{
  AdwFlapFoldPolicy policy = folded ? ADW_FLAP_FOLD_POLICY_ALWAYS : ADW_FLAP_FOLD_POLICY_NEVER;

  if (adw_flap_get_fold_policy (flap) != policy)
    adw_flap_set_fold_policy (flap, policy);
}

static void
apply (ZotWindow *self,
       int        window_width)
{
  ZotWindowLayout *layout = self->layout;
  gboolean fold_sidebar = _zot_window_layout_folds_sidebar (window_width);
  gboolean fold_side_pane = _zot_window_layout_folds_side_pane (window_width);
  int overlay_max = MAX (window_width - ZOT_LAYOUT_OVERLAY_MARGIN, 0);
  int sidebar_width;
  int side_pane_width;
  gboolean was_folded;

  if (window_width <= 0 || layout == NULL)
    return;

  layout->window_width = window_width;
  sidebar_width = pane_width (layout, &layout->sidebar);
  side_pane_width = pane_width (layout, &layout->side_pane);
  pane_layout_set (layout->sidebar.layout, fold_sidebar ? MIN (sidebar_width, overlay_max) : sidebar_width,
                   fold_sidebar);
  pane_layout_set (layout->side_pane.layout,
                   fold_side_pane ? MIN (MAX (side_pane_width, ZOT_LAYOUT_SIDE_PANE_OVERLAY_WIDTH), overlay_max)
                                  : side_pane_width,
                   fold_side_pane);
  gtk_widget_set_visible (GTK_WIDGET (self->sidebar_handle), !fold_sidebar);
  gtk_widget_set_visible (GTK_WIDGET (self->side_handle), !fold_side_pane);
  /* The model, the usage and the New button take room a narrow header
   * does not have; the model is in Preferences too, New in the menu. */
  gtk_widget_set_visible (self->header_extras, window_width >= ZOT_LAYOUT_HEADER_FULL_WIDTH);
  gtk_widget_set_visible (self->new_button, window_width >= ZOT_LAYOUT_HEADER_FULL_WIDTH);

  set_folded (self->flap, fold_sidebar);
  was_folded = adw_flap_get_folded (self->side_flap);
  set_folded (self->side_flap, fold_side_pane);
  /* The side pane is locked, as it shows only when there is something to
   * show: folding puts it away, unfolding brings the panels back. */
  if (was_folded != fold_side_pane)
    adw_flap_set_reveal_flap (self->side_flap,
                              !fold_side_pane && zot_panel_pane_get_n_panels (self->panel_pane) > 0);
}

/* Before the window is first laid out, its default size is how the panes
 * fold in time for its first size; from then on, its allocation (which
 * leaves out a frame it draws itself) says. */
static void
on_default_width_notify (ZotWindow  *self,
                         GParamSpec *pspec,
                         gpointer    user_data)
{
  int width, height;

  if (gtk_widget_get_realized (GTK_WIDGET (self)))
    return;

  /* GTK 4.8 takes no NULL for the height. */
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  apply (self, width);
}

static void
zot_window_layout_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  GtkWidgetClass *parent_class = g_type_class_peek (ADW_TYPE_APPLICATION_WINDOW);

  apply (ZOT_WINDOW (widget), width);
  parent_class->size_allocate (widget, width, height, baseline);
}

/* The last panel closed while the pane showed the panels: nothing left
 * to show there. */
static void
on_n_panels_notify (ZotWindow  *self,
                    GParamSpec *pspec,
                    gpointer    user_data)
{
  if (zot_panel_pane_get_n_panels (self->panel_pane) == 0 &&
      g_strcmp0 (adw_view_stack_get_visible_child_name (self->side_stack), "panels") == 0)
    adw_flap_set_reveal_flap (self->side_flap, FALSE);
}

/* Dragging a pane's edge */

static Pane *
handle_pane (ZotWindow *self,
             GtkWidget *handle)
{
  return handle == GTK_WIDGET (self->sidebar_handle) ? &self->layout->sidebar : &self->layout->side_pane;
}

static void
resize_pane (ZotWindow *self,
             Pane      *pane,
             int        width)
{
  ZotWindowLayout *layout = self->layout;
  Pane *other = pane == &layout->sidebar ? &layout->side_pane : &layout->sidebar;
  AdwFlap *other_flap = pane == &layout->sidebar ? self->side_flap : self->flap;
  int room = layout->window_width - ZOT_LAYOUT_CONVERSATION_MIN_WIDTH;

  if (!adw_flap_get_folded (other_flap) && adw_flap_get_reveal_flap (other_flap))
    room -= pane_width (layout, other);
  pane->width = CLAMP (width, pane->min, MAX (pane->min, MIN (pane->max, room)));
  apply (self, layout->window_width);
}

static void
on_drag_begin (GtkGestureDrag *drag,
               double          x,
               double          y,
               ZotWindow      *self)
{
  Pane *pane = handle_pane (self, gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (drag)));

  pane->drag_start = pane_width (self->layout, pane);
}

static void
on_drag_update (GtkGestureDrag *drag,
                double          dx,
                double          dy,
                ZotWindow      *self)
{
  GtkWidget *handle = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (drag));
  Pane *pane = handle_pane (self, handle);

  if (gtk_widget_get_direction (handle) == GTK_TEXT_DIR_RTL)
    dx = -dx;
  resize_pane (self, pane, pane->drag_start + (int) (pane == &self->layout->sidebar ? dx : -dx));
}

static void
on_drag_end (GtkGestureDrag *drag,
             double          dx,
             double          dy,
             ZotWindow      *self)
{
  Pane *pane = handle_pane (self, gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (drag)));

  g_settings_set_int (self->settings, pane->key, pane->width);
}

void
_zot_window_layout_resize_side_pane (ZotWindow *self,
                                     int        width)
{
  g_return_if_fail (ZOT_IS_WINDOW (self));

  resize_pane (self, &self->layout->side_pane, width);
  g_settings_set_int (self->settings, self->layout->side_pane.key, self->layout->side_pane.width);
}

int
_zot_window_layout_get_sidebar_width (ZotWindow *self)
{
  return pane_width (self->layout, &self->layout->sidebar);
}

int
_zot_window_layout_get_side_pane_width (ZotWindow *self)
{
  return pane_width (self->layout, &self->layout->side_pane);
}

static void
init_pane (ZotWindow  *self,
           Pane       *pane,
           AdwBin     *bin,
           GtkWidget  *handle,
           const char *key)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  pane->layout = g_object_new (ZOT_TYPE_PANE_LAYOUT, NULL);
  gtk_widget_set_layout_manager (GTK_WIDGET (bin), GTK_LAYOUT_MANAGER (pane->layout));
  pane->key = key;
  pane->width = g_settings_get_int (self->settings, key);

  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (handle, GTK_EVENT_CONTROLLER (drag));
  gtk_widget_set_cursor_from_name (handle, "col-resize");
}

void
_zot_window_layout_init (ZotWindow *self)
{
  ZotWindowLayout *layout = g_new0 (ZotWindowLayout, 1);
  int width, height;

  self->layout = layout;
  layout->sidebar = (Pane) { .share = ZOT_LAYOUT_SIDEBAR_SHARE, .min = ZOT_LAYOUT_SIDEBAR_MIN_WIDTH,
                             .max = ZOT_LAYOUT_SIDEBAR_MAX_WIDTH };
  layout->side_pane = (Pane) { .share = ZOT_LAYOUT_SIDE_PANE_SHARE, .min = ZOT_LAYOUT_SIDE_PANE_MIN_WIDTH,
                               .max = ZOT_LAYOUT_SIDE_PANE_MAX_WIDTH };
  init_pane (self, &layout->sidebar, self->sidebar_bin, GTK_WIDGET (self->sidebar_handle), "sidebar-width");
  init_pane (self, &layout->side_pane, self->side_bin, GTK_WIDGET (self->side_handle), "side-pane-width");

  gtk_widget_set_size_request (GTK_WIDGET (self), ZOT_LAYOUT_MIN_WINDOW_WIDTH, -1);
  g_signal_connect (self, "notify::default-width", G_CALLBACK (on_default_width_notify), NULL);
  g_signal_connect_swapped (self->panel_pane, "notify::n-panels", G_CALLBACK (on_n_panels_notify), self);

  /* GTK 4.8 takes no NULL for the height. */
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  apply (self, width);
}

void
_zot_window_layout_free (ZotWindow *self)
{
  g_clear_pointer (&self->layout, g_free);
}

void
_zot_window_class_layout_init (ZotWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->size_allocate = zot_window_layout_size_allocate;
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, side_flap);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, sidebar_bin);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, side_bin);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, sidebar_handle);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, side_handle);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, header_extras);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, new_button);
}
