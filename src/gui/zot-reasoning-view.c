/* zot-reasoning-view.c — a reply's reasoning, folded above its text.
 *
 * Transcript rows are recycled, so the view follows whichever
 * ZotReasoningText it is given and keeps nothing of its own but the
 * widgets. The unfolded text is a text view that streamed pieces are
 * appended to (a label would lay all of it out again for each); while
 * folded, nothing is laid out at all, which matters for the long
 * reasoning of a high reasoning level.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-reasoning-view.h"

struct _ZotReasoningView
{
  GtkWidget         parent_instance;

  GtkWidget        *header;
  GtkWidget        *spinner;
  GtkWidget        *label;
  GtkWidget        *arrow;
  GtkWidget        *revealer;
  GtkWidget        *body;

  ZotReasoningText *text;
  gulong            notify_handler;
  gsize             shown;         /* bytes of the text in the body */
};

G_DEFINE_FINAL_TYPE (ZotReasoningView, zot_reasoning_view, GTK_TYPE_WIDGET)

static void
update_header (ZotReasoningView *self)
{
  gboolean streaming = zot_reasoning_text_get_streaming (self->text);
  gboolean expanded = zot_reasoning_text_get_expanded (self->text);
  gint64 duration_ms = zot_reasoning_text_get_duration_ms (self->text);
  g_autofree char *label = NULL;

  if (streaming)
    label = g_strdup (_("Thinking…"));
  else if (duration_ms >= 0)
    {
      /* A second at least: "0 seconds" reads as if nothing happened. */
      guint seconds = (guint) MAX ((duration_ms + 500) / 1000, 1);

      label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Thought for %u second",
                                            "Thought for %u seconds", seconds),
                               seconds);
    }
  else
    /* Translators: the folded reasoning of a reply loaded from a saved conversation */
    label = g_strdup (_("Reasoning"));

  gtk_label_set_label (GTK_LABEL (self->label), label);
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), streaming);
  gtk_widget_set_visible (self->spinner, streaming);
  gtk_image_set_from_icon_name (GTK_IMAGE (self->arrow),
                                expanded ? "pan-down-symbolic" : "pan-end-symbolic");
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->header), GTK_ACCESSIBLE_STATE_EXPANDED,
                               expanded, -1);
}

/* Fills the body while it is unfolded: streamed pieces are appended, a
 * text replaced when the reply ended is set again. */
static void
update_body (ZotReasoningView *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->body));
  const char *text = zot_reasoning_text_get_text (self->text);
  gsize length = zot_reasoning_text_get_length (self->text);
  gboolean expanded = zot_reasoning_text_get_expanded (self->text);
  GtkTextIter end;

  gtk_revealer_set_reveal_child (GTK_REVEALER (self->revealer), expanded);
  if (!expanded)
    return;

  if (length < self->shown || !zot_reasoning_text_get_streaming (self->text))
    {
      gtk_text_buffer_set_text (buffer, text, (int) length);
      self->shown = length;
      return;
    }

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, text + self->shown, (int) (length - self->shown));
  self->shown = length;
}

static void
update_all (ZotReasoningView *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self),
                          self->text != NULL &&
                          (zot_reasoning_text_get_length (self->text) > 0 ||
                           zot_reasoning_text_get_streaming (self->text)));
  if (self->text == NULL)
    return;

  update_header (self);
  update_body (self);
}

static void
on_text_notify_cb (ZotReasoningText *text,
                   GParamSpec       *pspec,
                   ZotReasoningView *self)
{
  /* A streamed piece while folded changes nothing that shows. */
  if (pspec->name == g_intern_static_string ("text") && !zot_reasoning_text_get_expanded (text) &&
      gtk_widget_get_visible (GTK_WIDGET (self)) && zot_reasoning_text_get_length (text) > 0)
    return;

  update_all (self);
}

static void
on_header_clicked_cb (GtkButton        *button,
                      ZotReasoningView *self)
{
  if (self->text == NULL)
    return;

  /* Folded, the body kept what it had: unfolding adds the rest. */
  zot_reasoning_text_set_expanded (self->text, !zot_reasoning_text_get_expanded (self->text));
}

static void
zot_reasoning_view_dispose (GObject *object)
{
  ZotReasoningView *self = ZOT_REASONING_VIEW (object);
  if (self->text != NULL)
    g_clear_signal_handler (&self->notify_handler, self->text);
  g_clear_object (&self->text);
  g_clear_pointer (&self->header, gtk_widget_unparent);
  g_clear_pointer (&self->revealer, gtk_widget_unparent);

  G_OBJECT_CLASS (zot_reasoning_view_parent_class)->dispose (object);
}

static void
zot_reasoning_view_class_init (ZotReasoningViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_reasoning_view_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "reasoning");
}

static void
zot_reasoning_view_init (ZotReasoningView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_widget_add_css_class (GTK_WIDGET (self), "reasoning");

  self->spinner = gtk_spinner_new ();
  gtk_box_append (GTK_BOX (box), self->spinner);
  self->label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->label, "dim-label");
  gtk_box_append (GTK_BOX (box), self->label);
  self->arrow = gtk_image_new_from_icon_name ("pan-end-symbolic");
  gtk_widget_add_css_class (self->arrow, "dim-label");
  gtk_box_append (GTK_BOX (box), self->arrow);

  self->header = gtk_button_new ();
  gtk_button_set_child (GTK_BUTTON (self->header), box);
  gtk_widget_set_halign (self->header, GTK_ALIGN_START);
  gtk_widget_add_css_class (self->header, "flat");
  gtk_widget_add_css_class (self->header, "reasoning-header");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->header),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Shows or hides the model's reasoning"), -1);
  gtk_widget_set_parent (self->header, GTK_WIDGET (self));
  g_signal_connect (self->header, "clicked", G_CALLBACK (on_header_clicked_cb), self);

  self->body = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->body), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (self->body), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->body), GTK_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (self->body, "reasoning-text");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->body), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Reasoning"), -1);

  self->revealer = gtk_revealer_new ();
  gtk_revealer_set_transition_type (GTK_REVEALER (self->revealer),
                                    GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
  gtk_revealer_set_child (GTK_REVEALER (self->revealer), self->body);
  gtk_widget_set_parent (self->revealer, GTK_WIDGET (self));

  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

/**
 * zot_reasoning_view_new:
 *
 * Returns: (transfer floating): a view of no reasoning, hidden
 */
GtkWidget *
zot_reasoning_view_new (void)
{
  return g_object_new (ZOT_TYPE_REASONING_VIEW, NULL);
}

/**
 * zot_reasoning_view_set_text:
 * @self: a #ZotReasoningView
 * @text: (nullable): what to show, and follow
 */
void
zot_reasoning_view_set_text (ZotReasoningView *self,
                             ZotReasoningText *text)
{
  g_return_if_fail (ZOT_IS_REASONING_VIEW (self));
  g_return_if_fail (text == NULL || ZOT_IS_REASONING_TEXT (text));

  if (self->text != NULL)
    g_clear_signal_handler (&self->notify_handler, self->text);
  g_set_object (&self->text, text);

  self->shown = 0;
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->body)), "", 0);
  /* A recycled row does not slide open or shut. */
  gtk_revealer_set_transition_duration (GTK_REVEALER (self->revealer), 0);
  update_all (self);
  gtk_revealer_set_transition_duration (GTK_REVEALER (self->revealer), 250);

  if (self->text != NULL)
    self->notify_handler = g_signal_connect (self->text, "notify",
                                             G_CALLBACK (on_text_notify_cb), self);
}
