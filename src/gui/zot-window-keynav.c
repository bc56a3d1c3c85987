/* zot-window-keynav.c — moving about the window with the keyboard.
 *
 * GTK's Tab follows the widget tree: header bar, conversation list,
 * conversation, prompt, side pane. From the prompt, where the keyboard
 * mostly is, that made the conversation the last place Tab reached, and
 * only F6 (GtkPaned's) went there directly. Tab here goes round the
 * window's regions in the order a reader wants them from the prompt:
 * prompt, find bar and conversation, side pane, conversation list, then
 * the header bar and the banners under it, and back to the prompt;
 * Shift+Tab the other way. Inside a region Tab still visits every
 * control in turn, so nothing the tree order reached is lost.
 *
 * From the prompt, Page Up/Down and Ctrl+Home/End scroll the
 * conversation, so that reading back does not take the focus away from
 * what is being typed.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <string.h>

#include "zot-prompt-editor-private.h"
#include "zot-transcript-private.h"
#include "zot-window-private.h"

#define N_STOPS 9

/* The regions in Tab order; the ones not on screen are passed over. */
static void
get_stops (ZotWindow *self,
           GtkWidget *stops[N_STOPS])
{
  GtkWidget *all[N_STOPS] = {
    /* The prompt's box, not the prompt: GTK's focus handler gives a
     * widget that takes the focus itself (the prompt passes it to its
     * text) the focus back on Shift+Tab from inside it, so Shift+Tab
     * never left the prompt. */
    gtk_widget_get_first_child (GTK_WIDGET (self->prompt_editor)),
    GTK_WIDGET (self->find_bar),
    GTK_WIDGET (self->transcript),
    GTK_WIDGET (self->side_pane),
    GTK_WIDGET (self->sidebar),
    GTK_WIDGET (self->header_bar),
    GTK_WIDGET (self->demo_banner),
    GTK_WIDGET (self->trust_banner),
    GTK_WIDGET (self->resume_bar),
  };

  memcpy (stops, all, sizeof all);
}

static int
stop_of (GtkWidget *stops[N_STOPS],
         GtkWidget *focus)
{
  for (int i = 0; focus != NULL && i < N_STOPS; i++)
    if (focus == stops[i] || gtk_widget_is_ancestor (focus, stops[i]))
      return i;
  return -1;
}

/**
 * _zot_window_keynav_focus:
 *
 * The window's #GtkWidgetClass.focus: Tab and Shift+Tab go round the
 * regions (see above); other directions are GTK's.
 */
gboolean
_zot_window_keynav_focus (GtkWidget        *widget,
                          GtkDirectionType  direction)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  GtkWidgetClass *parent_class = GTK_WIDGET_CLASS (g_type_class_peek (ADW_TYPE_APPLICATION_WINDOW));
  GtkWidget *stops[N_STOPS];
  int step = direction == GTK_DIR_TAB_BACKWARD ? -1 : 1;
  int current;

  if (direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
    return parent_class->focus (widget, direction);

  get_stops (self, stops);
  current = stop_of (stops, gtk_root_get_focus (GTK_ROOT (self)));
  /* Nothing focused, or a widget outside the regions: GTK's order. */
  if (current < 0)
    return parent_class->focus (widget, direction);

  if (gtk_widget_child_focus (stops[current], direction))
    return TRUE;

  /* Off the end of the region: into the next one that takes the focus. */
  for (int k = 1; k < N_STOPS; k++)
    {
      GtkWidget *next = stops[(current + k * step + N_STOPS) % N_STOPS];

      if (gtk_widget_is_drawable (next) && gtk_widget_child_focus (next, direction))
        return TRUE;
    }
  return FALSE;
}

/**
 * _zot_window_keynav_handle_prompt_key:
 *
 * What a key typed in the prompt does for the window: Page Up/Down and
 * Ctrl+Home/End scroll the conversation.
 *
 * Returns: %TRUE when the key was handled
 */
gboolean
_zot_window_keynav_handle_prompt_key (ZotWindow       *self,
                                      guint            keyval,
                                      GdkModifierType  state)
{
  GdkModifierType modifiers = state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK |
                                       GDK_SUPER_MASK | GDK_META_MASK);
  GtkAdjustment *adjustment;
  double page;

  g_return_val_if_fail (ZOT_IS_WINDOW (self), FALSE);

  adjustment = _zot_transcript_get_vadjustment (self->transcript);
  /* A page less a little, so that a line of the last page stays in view. */
  page = gtk_adjustment_get_page_size (adjustment) * 0.9;

  switch (keyval)
    {
    case GDK_KEY_Page_Up:
    case GDK_KEY_KP_Page_Up:
      if (modifiers != 0)
        return FALSE;
      gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) - page);
      return TRUE;

    case GDK_KEY_Page_Down:
    case GDK_KEY_KP_Page_Down:
      if (modifiers != 0)
        return FALSE;
      gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + page);
      return TRUE;

    case GDK_KEY_Home:
    case GDK_KEY_KP_Home:
      if (modifiers != GDK_CONTROL_MASK)
        return FALSE;
      gtk_adjustment_set_value (adjustment, gtk_adjustment_get_lower (adjustment));
      return TRUE;

    case GDK_KEY_End:
    case GDK_KEY_KP_End:
      if (modifiers != GDK_CONTROL_MASK)
        return FALSE;
      zot_transcript_view_scroll_to_end (self->transcript->view);
      return TRUE;

    default:
      return FALSE;
    }
}

static gboolean
on_prompt_key_pressed_cb (GtkEventControllerKey *controller,
                          guint                  keyval,
                          guint                  keycode,
                          GdkModifierType        state,
                          ZotWindow             *self)
{
  return _zot_window_keynav_handle_prompt_key (self, keyval, state);
}

/**
 * _zot_window_keynav_init:
 *
 * Gives the prompt the window's keys. The prompt's own keys come first:
 * its controller was added with its template, before this one.
 */
void
_zot_window_keynav_init (ZotWindow *self)
{
  GtkEventController *controller = gtk_event_controller_key_new ();

  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect_object (controller, "key-pressed", G_CALLBACK (on_prompt_key_pressed_cb), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (_zot_prompt_editor_get_text_view (self->prompt_editor)), controller);
}
