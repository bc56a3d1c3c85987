/* zot-trust-banner.c — the window's offer to run a project's own extensions.
 *
 * Extensions found in a project's .zot/extensions/ start only once trusted
 * in that project. The banner names the ones the last load left unstarted
 * with what each asks for; *Trust and run* records the trust (off the main
 * loop: it writes grant files) and restarts each in its place, *Not now*
 * hides the offer for the rest of this window. It follows the manager's
 * list: a /reload-ext, or trust given in a terminal (the manager watches
 * the grants), changes what it offers.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-grants.h"
#include "zot-trust-banner.h"

struct _ZotTrustBanner
{
  GtkWidget            parent_instance;

  GtkRevealer         *revealer;
  GtkLabel            *label;
  GtkWidget           *trust_button;
  GtkWidget           *dismiss_button;
  ZotExtensionManager *manager;
  GPtrArray           *pending;      /* ZotDiscovered copies being trusted */
  GCancellable        *cancellable;
  gboolean             dismissed;
};

G_DEFINE_FINAL_TYPE (ZotTrustBanner, zot_trust_banner, GTK_TYPE_WIDGET)

static void
trust_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  GPtrArray *entries = task_data;

  for (guint i = 0; i < entries->len; i++)
    {
      ZotDiscovered *entry = g_ptr_array_index (entries, i);
      g_autoptr(GError) error = NULL;

      if (!zot_grants_trust_project (entry->directory, entry->manifest, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  g_task_return_boolean (task, TRUE);
}

static void
trusted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ZotTrustBanner *self = ZOT_TRUST_BANNER (object);
  g_autoptr(GError) error = NULL;

  /* Cancelled means disposed: the widgets are gone. */
  if (!g_task_propagate_boolean (G_TASK (result), &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  gtk_widget_set_sensitive (self->trust_button, TRUE);
  if (error != NULL)
    {
      gtk_label_set_text (self->label, error->message);
      return;
    }

  gtk_revealer_set_reveal_child (self->revealer, FALSE);
  if (self->manager != NULL)
    zot_extension_manager_start_trusted (self->manager);
}

static void
on_trust_clicked (GtkButton      *button,
                  ZotTrustBanner *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->pending == NULL || self->pending->len == 0)
    return;

  gtk_widget_set_sensitive (self->trust_button, FALSE);
  task = g_task_new (self, self->cancellable, trusted_cb, NULL);
  g_task_set_source_tag (task, on_trust_clicked);
  g_task_set_task_data (task, g_ptr_array_ref (self->pending), (GDestroyNotify) g_ptr_array_unref);
  g_task_run_in_thread (task, trust_thread);
}

static void
on_dismiss_clicked (GtkButton      *button,
                    ZotTrustBanner *self)
{
  self->dismissed = TRUE;
  gtk_revealer_set_reveal_child (self->revealer, FALSE);
}

static void
on_items_changed (ZotTrustBanner *self)
{
  zot_trust_banner_update (self, self->manager);
}

/**
 * zot_trust_banner_update:
 *
 * Offers the project extensions @manager's last load left unstarted, or
 * hides the banner when there are none or *Not now* was chosen.
 */
void
zot_trust_banner_update (ZotTrustBanner      *self,
                         ZotExtensionManager *manager)
{
  GPtrArray *untrusted;
  g_autoptr(GString) list = g_string_new (NULL);
  g_autofree char *text = NULL;

  g_return_if_fail (ZOT_IS_TRUST_BANNER (self));
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (manager));

  if (self->manager != manager)
    {
      if (self->manager != NULL)
        g_signal_handlers_disconnect_by_data (self->manager, self);
      g_set_object (&self->manager, manager);
      g_signal_connect_object (manager, "items-changed", G_CALLBACK (on_items_changed), self, G_CONNECT_SWAPPED);
    }
  untrusted = zot_extension_manager_get_untrusted (manager);
  g_clear_pointer (&self->pending, g_ptr_array_unref);
  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_discovered_free);

  for (guint i = 0; i < untrusted->len; i++)
    {
      ZotDiscovered *entry = g_ptr_array_index (untrusted, i);
      g_autofree char *asks = zot_permissions_describe_words (zot_manifest_get_permissions (entry->manifest));

      g_ptr_array_add (self->pending, zot_discovered_copy (entry));
      if (list->len > 0)
        g_string_append (list, ", ");
      /* Translators: an extension's name, then what it asks for ("confined: …" or "unconfined") */
      g_string_append_printf (list, _("%s (asks for: %s)"), zot_manifest_get_name (entry->manifest), asks);
    }

  if (self->pending->len == 0 || self->dismissed)
    {
      gtk_revealer_set_reveal_child (self->revealer, FALSE);
      return;
    }

  /* Translators: the count, then the list of "name (asks for: …)" */
  text = g_strdup_printf (ngettext ("This project has %u extension that has not run here before: %s",
                                    "This project has %u extensions that have not run here before: %s",
                                    self->pending->len),
                          self->pending->len, list->str);
  gtk_label_set_text (self->label, text);
  gtk_revealer_set_reveal_child (self->revealer, TRUE);
}

gboolean
zot_trust_banner_get_revealed (ZotTrustBanner *self)
{
  g_return_val_if_fail (ZOT_IS_TRUST_BANNER (self), FALSE);

  return gtk_revealer_get_reveal_child (self->revealer);
}

const char *
zot_trust_banner_get_text (ZotTrustBanner *self)
{
  g_return_val_if_fail (ZOT_IS_TRUST_BANNER (self), NULL);

  return gtk_label_get_text (self->label);
}

GtkWidget *
_zot_trust_banner_get_trust_button (ZotTrustBanner *self)
{
  return self->trust_button;
}

GtkWidget *
_zot_trust_banner_get_dismiss_button (ZotTrustBanner *self)
{
  return self->dismiss_button;
}

static void
zot_trust_banner_dispose (GObject *object)
{
  ZotTrustBanner *self = ZOT_TRUST_BANNER (object);

  g_cancellable_cancel (self->cancellable);
  if (self->revealer != NULL)
    gtk_widget_unparent (GTK_WIDGET (self->revealer));
  self->revealer = NULL;
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  g_clear_pointer (&self->pending, g_ptr_array_unref);

  G_OBJECT_CLASS (zot_trust_banner_parent_class)->dispose (object);
}

static void
zot_trust_banner_finalize (GObject *object)
{
  ZotTrustBanner *self = ZOT_TRUST_BANNER (object);

  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (zot_trust_banner_parent_class)->finalize (object);
}

static void
zot_trust_banner_class_init (ZotTrustBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_trust_banner_dispose;
  object_class->finalize = zot_trust_banner_finalize;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
zot_trust_banner_init (ZotTrustBanner *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);

  self->cancellable = g_cancellable_new ();

  self->revealer = GTK_REVEALER (gtk_revealer_new ());
  gtk_revealer_set_transition_type (self->revealer, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
  gtk_widget_set_parent (GTK_WIDGET (self->revealer), GTK_WIDGET (self));
  gtk_widget_add_css_class (box, "demo-banner");
  gtk_revealer_set_child (self->revealer, box);

  self->label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->label, TRUE);
  gtk_label_set_xalign (self->label, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (self->label), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->label));

  self->dismiss_button = gtk_button_new_with_mnemonic (_("_Not now"));
  gtk_widget_set_valign (self->dismiss_button, GTK_ALIGN_CENTER);
  g_signal_connect (self->dismiss_button, "clicked", G_CALLBACK (on_dismiss_clicked), self);
  gtk_box_append (GTK_BOX (box), self->dismiss_button);

  self->trust_button = gtk_button_new_with_mnemonic (_("_Trust and run"));
  gtk_widget_set_valign (self->trust_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->trust_button, "suggested-action");
  g_signal_connect (self->trust_button, "clicked", G_CALLBACK (on_trust_clicked), self);
  gtk_box_append (GTK_BOX (box), self->trust_button);
}

GtkWidget *
zot_trust_banner_new (void)
{
  return g_object_new (ZOT_TYPE_TRUST_BANNER, NULL);
}
