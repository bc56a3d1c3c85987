/* zot-panel-view.c — one extension panel
 *
 * The body is one monospace label holding every line, with the attributes
 * that zot-ansi.c reads from the SGR escapes. The widget is focusable: while
 * it is the focus widget, a key controller forwards the keys the protocol
 * knows (PROTOCOL.md §10) to the panel and consumes them; shortcuts with
 * Control, Alt or Super, and Shift+Tab to leave, pass through. After each
 * allocation the body's size in character cells is measured with the font
 * metrics; a change goes to the panel, which tells the extension.
 */
#define G_LOG_DOMAIN "zot-panel-view"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-ansi.h"
#include "zot-panel-view.h"
#include "zot-panel-view-private.h"
#include "zot-panel-widgets-view.h"

struct _ZotPanelView
{
  GtkWidget          parent_instance;

  ZotPanel          *panel;
  gulong             updated_id;
  gulong             closed_id;
  guint              resize_source;
  guint              columns;
  guint              rows;

  /* Template widgets */
  GtkBox            *box;
  GtkLabel          *title_label;
  GtkLabel          *extension_label;
  GtkLabel          *reloaded_label;
  GtkButton         *close_button;
  GtkScrolledWindow *scroller;
  GtkLabel          *body;
  GtkScrolledWindow *widgets_scroller;
  ZotPanelWidgetsView *widgets;
  GtkLabel          *reason_label;
  GtkLabel          *footer_label;
};

enum {
  PROP_0,
  PROP_PANEL,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotPanelView, zot_panel_view, GTK_TYPE_WIDGET)

static guint32
rgba_to_rgb (const GdkRGBA *rgba)
{
  return ((guint32) CLAMP (rgba->red * 255.0 + 0.5, 0, 255) << 16) |
         ((guint32) CLAMP (rgba->green * 255.0 + 0.5, 0, 255) << 8) |
         (guint32) CLAMP (rgba->blue * 255.0 + 0.5, 0, 255);
}

/* The theme's colours, which reverse video swaps in where a line set none. */
static void
get_default_colors (ZotPanelView *self,
                    guint32      *foreground,
                    guint32      *background)
{
  GtkStyleContext *context = gtk_widget_get_style_context (GTK_WIDGET (self->body));
  GdkRGBA fg;
  GdkRGBA bg;

  gtk_style_context_get_color (context, &fg);
  if (!gtk_style_context_lookup_color (context, "view_bg_color", &bg))
    {
      gboolean dark_text = fg.red + fg.green + fg.blue < 1.5;

      bg = dark_text ? (GdkRGBA) { 1, 1, 1, 1 } : (GdkRGBA) { 0.12, 0.12, 0.12, 1 };
    }

  *foreground = rgba_to_rgb (&fg);
  *background = rgba_to_rgb (&bg);
}

static void
set_ansi_label (ZotPanelView *self,
                GtkLabel     *label,
                const char   *line)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = NULL;
  guint32 fg;
  guint32 bg;

  get_default_colors (self, &fg, &bg);
  text = zot_ansi_to_pango_with_defaults (line, fg, bg, &attrs);
  gtk_label_set_text (label, text);
  gtk_label_set_attributes (label, attrs);
}

/* The widget form: the extension's native widgets take the keyboard, so the
 * view itself is no focus stop and forwards no keys. */
static gboolean
render_widgets (ZotPanelView *self)
{
  ZotPanelNode *root = zot_panel_get_widgets (self->panel);
  gboolean native = root != NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->scroller), !native);
  gtk_widget_set_visible (GTK_WIDGET (self->widgets_scroller), native);
  gtk_widget_set_focusable (GTK_WIDGET (self), !native);
  if (native)
    gtk_widget_add_css_class (GTK_WIDGET (self), "native-widgets");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "native-widgets");
  if (!native)
    return FALSE;

  if (self->widgets == NULL)
    {
      self->widgets = ZOT_PANEL_WIDGETS_VIEW (zot_panel_widgets_view_new (self->panel));
      gtk_widget_set_margin_start (GTK_WIDGET (self->widgets), 12);
      gtk_widget_set_margin_end (GTK_WIDGET (self->widgets), 12);
      gtk_widget_set_margin_top (GTK_WIDGET (self->widgets), 12);
      gtk_widget_set_margin_bottom (GTK_WIDGET (self->widgets), 12);
      gtk_scrolled_window_set_child (self->widgets_scroller, GTK_WIDGET (self->widgets));
    }
  zot_panel_widgets_view_render (self->widgets, root);
  return TRUE;
}

static void
render (ZotPanelView *self)
{
  const char * const *lines = zot_panel_get_lines (self->panel);
  const char *footer = zot_panel_get_footer (self->panel);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PangoAttrList) all = pango_attr_list_new ();
  g_autofree char *title = zot_ansi_to_pango (zot_panel_get_title (self->panel), NULL);
  guint32 fg;
  guint32 bg;

  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->extension_label, zot_panel_get_extension_name (self->panel));

  if (render_widgets (self))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->footer_label), footer != NULL && *footer != '\0');
      set_ansi_label (self, self->footer_label, footer ? footer : "");
      return;
    }

  get_default_colors (self, &fg, &bg);
  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    {
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *line = zot_ansi_to_pango_with_defaults (lines[i], fg, bg, &attrs);
      GSList *list = pango_attr_list_get_attributes (attrs);
      gsize offset;

      if (i > 0)
        g_string_append_c (text, '\n');
      offset = text->len;
      g_string_append (text, line);

      /* The list holds copies: move them to the line's place in the body. */
      for (GSList *l = list; l != NULL; l = l->next)
        {
          PangoAttribute *attr = l->data;

          attr->start_index += offset;
          attr->end_index += offset;
          pango_attr_list_insert (all, attr);
        }
      g_slist_free (list);
    }

  gtk_label_set_text (self->body, text->str);
  gtk_label_set_attributes (self->body, all);

  gtk_widget_set_visible (GTK_WIDGET (self->footer_label), footer != NULL && *footer != '\0');
  set_ansi_label (self, self->footer_label, footer ? footer : "");
}

static void
on_panel_updated_cb (ZotPanelView *self,
                     ZotPanel     *panel)
{
  render (self);
}

static void
on_panel_closed_cb (ZotPanelView *self,
                    const char   *reason,
                    ZotPanel     *panel)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->close_button), FALSE);

  if (reason != NULL && *reason != '\0')
    {
      /* Translators: shown in a panel the extension closed; %s is why */
      g_autofree char *text = g_strdup_printf (_("Closed: %s"), reason);

      gtk_label_set_text (self->reason_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->reason_label), TRUE);
    }
}

static void
on_close_button_clicked_cb (ZotPanelView *self,
                            GtkButton    *button)
{
  g_autoptr(ZotPanelView) hold = g_object_ref (self);

  /* The pane may remove this page while the panel says it closed. */
  zot_panel_close (self->panel);
}

static void
on_dark_changed_cb (ZotPanelView *self)
{
  render (self);
}

static const char *
key_name (guint keyval)
{
  switch (keyval)
    {
    case GDK_KEY_Up: case GDK_KEY_KP_Up: return "up";
    case GDK_KEY_Down: case GDK_KEY_KP_Down: return "down";
    case GDK_KEY_Left: case GDK_KEY_KP_Left: return "left";
    case GDK_KEY_Right: case GDK_KEY_KP_Right: return "right";
    case GDK_KEY_Return: case GDK_KEY_KP_Enter: case GDK_KEY_ISO_Enter: return "enter";
    case GDK_KEY_Escape: return "esc";
    case GDK_KEY_Tab: case GDK_KEY_KP_Tab: return "tab";
    case GDK_KEY_Page_Up: case GDK_KEY_KP_Page_Up: return "pageup";
    case GDK_KEY_Page_Down: case GDK_KEY_KP_Page_Down: return "pagedown";
    case GDK_KEY_Home: case GDK_KEY_KP_Home: return "home";
    case GDK_KEY_End: case GDK_KEY_KP_End: return "end";
    case GDK_KEY_BackSpace: return "backspace";
    case GDK_KEY_Delete: case GDK_KEY_KP_Delete: return "delete";
    default: return NULL;
    }
}

static gboolean
on_key_pressed_cb (GtkEventControllerKey *controller,
                   guint                  keyval,
                   guint                  keycode,
                   GdkModifierType        state,
                   ZotPanelView          *self)
{
  /* Keys go to the panel only while the view itself has the focus, not
   * its close button. */
  if (!gtk_widget_is_focus (GTK_WIDGET (self)))
    return FALSE;

  return _zot_panel_view_handle_key (self, keyval, state);
}

static void
on_click_pressed_cb (GtkGestureClick *gesture,
                     int              n_press,
                     double           x,
                     double           y,
                     ZotPanelView    *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

/* The body's size in cells, from the monospace font's metrics. */
static void
compute_cells (ZotPanelView *self,
               guint        *columns,
               guint        *rows)
{
  GtkWidget *body = GTK_WIDGET (self->body);
  PangoContext *context = gtk_widget_get_pango_context (body);
  PangoFontMetrics *metrics = pango_context_get_metrics (context, NULL, NULL);
  int char_width = pango_font_metrics_get_approximate_char_width (metrics);
  int line_height = pango_font_metrics_get_height (metrics);
  int width;
  int height;

  if (line_height <= 0)
    line_height = pango_font_metrics_get_ascent (metrics) +
                  pango_font_metrics_get_descent (metrics);
  pango_font_metrics_unref (metrics);

  width = gtk_widget_get_width (GTK_WIDGET (self->scroller)) -
          gtk_widget_get_margin_start (body) - gtk_widget_get_margin_end (body);
  height = gtk_widget_get_height (GTK_WIDGET (self->scroller)) -
           gtk_widget_get_margin_top (body) - gtk_widget_get_margin_bottom (body);

  *columns = width > 0 && char_width > 0 ? (guint) ((gint64) width * PANGO_SCALE / char_width) : 0;
  *rows = height > 0 && line_height > 0 ? (guint) ((gint64) height * PANGO_SCALE / line_height) : 0;
}

static gboolean
send_resize_cb (gpointer data)
{
  ZotPanelView *self = data;

  self->resize_source = 0;
  if (zot_panel_is_open (self->panel))
    zot_panel_resize (self->panel, self->columns, self->rows);

  return G_SOURCE_REMOVE;
}

static void
check_cells (ZotPanelView *self)
{
  guint columns;
  guint rows;

  compute_cells (self, &columns, &rows);
  if (columns == 0 || rows == 0 || (columns == self->columns && rows == self->rows))
    return;

  self->columns = columns;
  self->rows = rows;

  /* Not from inside the allocation: sending may make other widgets (the
   * inspector's trace) change. */
  if (self->resize_source == 0)
    self->resize_source = g_idle_add_full (G_PRIORITY_DEFAULT, send_resize_cb, self, NULL);
}

static GtkSizeRequestMode
zot_panel_view_get_request_mode (GtkWidget *widget)
{
  ZotPanelView *self = ZOT_PANEL_VIEW (widget);

  return gtk_widget_get_request_mode (GTK_WIDGET (self->box));
}

static void
zot_panel_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  ZotPanelView *self = ZOT_PANEL_VIEW (widget);

  gtk_widget_measure (GTK_WIDGET (self->box), orientation, for_size,
                      minimum, natural, minimum_baseline, natural_baseline);
}

static void
zot_panel_view_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  ZotPanelView *self = ZOT_PANEL_VIEW (widget);

  gtk_widget_allocate (GTK_WIDGET (self->box), width, height, baseline, NULL);
  check_cells (self);
}

static void
zot_panel_view_root (GtkWidget *widget)
{
  ZotPanelView *self = ZOT_PANEL_VIEW (widget);

  GTK_WIDGET_CLASS (zot_panel_view_parent_class)->root (widget);

  /* The theme's colours are known now. */
  render (self);
}

static void
zot_panel_view_constructed (GObject *object)
{
  ZotPanelView *self = (ZotPanelView *)object;

  G_OBJECT_CLASS (zot_panel_view_parent_class)->constructed (object);

  g_assert (ZOT_IS_PANEL (self->panel));

  self->updated_id = g_signal_connect_object (self->panel, "updated",
                                              G_CALLBACK (on_panel_updated_cb), self,
                                              G_CONNECT_SWAPPED);
  self->closed_id = g_signal_connect_object (self->panel, "closed",
                                             G_CALLBACK (on_panel_closed_cb), self,
                                             G_CONNECT_SWAPPED);
  /* Watch mode: the old process's content, until the new one takes over. */
  g_object_bind_property (self->panel, "reloaded", self->reloaded_label, "visible", G_BINDING_SYNC_CREATE);
  render (self);

  if (!zot_panel_is_open (self->panel))
    gtk_widget_set_sensitive (GTK_WIDGET (self->close_button), FALSE);
}

static void
zot_panel_view_dispose (GObject *object)
{
  ZotPanelView *self = (ZotPanelView *)object;

  g_clear_handle_id (&self->resize_source, g_source_remove);
  if (self->panel != NULL)
    {
      g_clear_signal_handler (&self->updated_id, self->panel);
      g_clear_signal_handler (&self->closed_id, self->panel);
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_PANEL_VIEW);

  g_clear_object (&self->panel);

  G_OBJECT_CLASS (zot_panel_view_parent_class)->dispose (object);
}

static void
zot_panel_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  ZotPanelView *self = ZOT_PANEL_VIEW (object);

  switch (prop_id)
    {
    case PROP_PANEL:
      g_value_set_object (value, self->panel);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  ZotPanelView *self = ZOT_PANEL_VIEW (object);

  switch (prop_id)
    {
    case PROP_PANEL:
      self->panel = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_view_class_init (ZotPanelViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = zot_panel_view_constructed;
  object_class->dispose = zot_panel_view_dispose;
  object_class->get_property = zot_panel_view_get_property;
  object_class->set_property = zot_panel_view_set_property;

  widget_class->get_request_mode = zot_panel_view_get_request_mode;
  widget_class->measure = zot_panel_view_measure;
  widget_class->size_allocate = zot_panel_view_size_allocate;
  widget_class->root = zot_panel_view_root;

  properties [PROP_PANEL] =
    g_param_spec_object ("panel", NULL, NULL,
                         ZOT_TYPE_PANEL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-panel-view.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, box);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, title_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, extension_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, close_button);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, scroller);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, body);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, widgets_scroller);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, reason_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, footer_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelView, reloaded_label);
  gtk_widget_class_bind_template_callback (widget_class, on_close_button_clicked_cb);

  gtk_widget_class_set_css_name (widget_class, "panelview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
zot_panel_view_init (ZotPanelView *self)
{
  GtkEventController *keys;
  GtkGesture *click;

  gtk_widget_init_template (GTK_WIDGET (self));

  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  /* A click into the body gives the panel the keyboard. */
  click = gtk_gesture_click_new ();
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect (click, "pressed", G_CALLBACK (on_click_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed_cb), self, G_CONNECT_SWAPPED);
}

/**
 * zot_panel_view_new:
 * @panel: the panel to show
 *
 * Returns: (transfer floating): a view of @panel
 */
GtkWidget *
zot_panel_view_new (ZotPanel *panel)
{
  g_return_val_if_fail (ZOT_IS_PANEL (panel), NULL);

  return g_object_new (ZOT_TYPE_PANEL_VIEW, "panel", panel, NULL);
}

ZotPanel *
zot_panel_view_get_panel (ZotPanelView *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_VIEW (self), NULL);
  return self->panel;
}

/**
 * _zot_panel_view_handle_key:
 * @keyval: a GDK key value
 * @state: the modifiers
 *
 * Forwards a key the protocol knows to the panel: the named keys, and any
 * printable character as "rune" with its text.
 *
 * Returns: %TRUE when the key was the panel's (and is consumed)
 */
gboolean
_zot_panel_view_handle_key (ZotPanelView    *self,
                            guint            keyval,
                            GdkModifierType  state)
{
  const char *name;
  gunichar ch;

  g_return_val_if_fail (ZOT_IS_PANEL_VIEW (self), FALSE);

  if (!zot_panel_is_open (self->panel))
    return FALSE;

  /* Shortcuts belong to the window. */
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK | GDK_META_MASK | GDK_HYPER_MASK))
    return FALSE;

  name = key_name (keyval);
  if (name != NULL)
    {
      zot_panel_send_key (self->panel, name, NULL);
      return TRUE;
    }

  ch = gdk_keyval_to_unicode (keyval);
  if (ch != 0 && g_unichar_isprint (ch))
    {
      char text[8] = { 0 };

      g_unichar_to_utf8 (ch, text);
      zot_panel_send_key (self->panel, "rune", text);
      return TRUE;
    }

  return FALSE;
}

/**
 * _zot_panel_view_get_widgets:
 *
 * Returns: (transfer none) (nullable): the native widgets, once shown
 */
ZotPanelWidgetsView *
_zot_panel_view_get_widgets (ZotPanelView *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_VIEW (self), NULL);
  return self->widgets;
}

GtkLabel *
_zot_panel_view_get_body (ZotPanelView *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_VIEW (self), NULL);
  return self->body;
}

GtkWidget *
_zot_panel_view_get_close_button (ZotPanelView *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_VIEW (self), NULL);
  return GTK_WIDGET (self->close_button);
}

/**
 * _zot_panel_view_get_cells:
 *
 * The size last measured, in character cells; 0 before the first allocation.
 */
void
_zot_panel_view_get_cells (ZotPanelView *self,
                           guint        *columns,
                           guint        *rows)
{
  g_return_if_fail (ZOT_IS_PANEL_VIEW (self));

  if (columns != NULL)
    *columns = self->columns;
  if (rows != NULL)
    *rows = self->rows;
}
