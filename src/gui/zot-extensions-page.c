/* zot-extensions-page.c — the extensions of the host, one row each.
 *
 * The list box is bound to the manager's GListModel, so a reload or a
 * restart (which replaces an extension object in place) rebuilds the rows
 * of what changed. Each row (ZotExtensionRow) follows its own extension's
 * state; the page tells the rows when registrations change, remembers
 * which rows are open across a rebuild, and does what needs the manager:
 * restart, reload, and remove once the user confirms. Everything done to
 * an extension goes through the core: the installer rewrites or deletes
 * files, the manager restarts and reloads.
 */
#define G_LOG_DOMAIN "zot-extensions-page"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-extension-row.h"
#include "zot-extensions-page.h"
#include "zot-extensions-page-private.h"
#include "zot-installer.h"
#include "zot-new-extension-dialog.h"
#include "zot-window.h"

#define DIALOG_EXTENSION_KEY "zot-extensions-page-extension"

struct _ZotExtensionsPage
{
  AdwBin               parent_instance;

  GtkButton           *reload_button;
  GtkButton           *new_button;
  GtkListBox          *list_box;

  ZotHost             *host;
  ZotExtensionManager *manager;
  GCancellable        *cancellable;
  GHashTable          *expanded;       /* names of the extensions whose row is open */
  AdwMessageDialog    *remove_dialog;  /* weak */
};

enum {
  TOAST,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

enum {
  PROP_0,
  PROP_HOST,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotExtensionsPage, zot_extensions_page, ADW_TYPE_BIN)

/* One asynchronous action on one extension, for the message afterwards. */
typedef struct
{
  ZotExtensionsPage *page;
  char              *name;
} Operation;

static Operation *
operation_new (ZotExtensionsPage *self,
               const char        *name)
{
  Operation *op = g_new0 (Operation, 1);

  op->page = self;
  op->name = g_strdup (name);
  return op;
}

static void
operation_free (Operation *op)
{
  g_free (op->name);
  g_free (op);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Operation, operation_free)

/* Toasts go to whoever listens to ::toast (the window), else to the nearest
 * toast overlay or preferences window above the page. */
static void
show_toast (ZotExtensionsPage *self,
            const char        *text)
{
  GtkWidget *overlay;
  GtkRoot *root;
  g_autofree char *markup = NULL;

  g_assert (ZOT_IS_EXTENSIONS_PAGE (self));

  if (g_signal_has_handler_pending (self, signals [TOAST], 0, FALSE))
    {
      g_signal_emit (self, signals [TOAST], 0, text);
      return;
    }

  /* An AdwToast title is markup. */
  markup = g_markup_escape_text (text, -1);

  overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);
  if (overlay != NULL)
    {
      adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (markup));
      return;
    }

  root = gtk_widget_get_root (GTK_WIDGET (self));
  if (ADW_IS_PREFERENCES_WINDOW (root))
    {
      adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (root), adw_toast_new (markup));
      return;
    }

  g_debug ("Nowhere to show “%s”", text);
}

static gboolean
scope_is_installed (ZotExtensionScope scope)
{
  /* An --ext directory is the user's own checkout: never delete it. */
  return scope == ZOT_EXTENSION_SCOPE_PROJECT || scope == ZOT_EXTENSION_SCOPE_USER;
}

/* What the rows ask for */

static void
restarted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Operation) op = user_data;
  g_autoptr(GError) error = NULL;

  if (zot_extension_manager_restart_finish (ZOT_EXTENSION_MANAGER (object), result, &error))
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  {
    /* Translators: a toast: %s is the extension's name, then why it could not start */
    g_autofree char *text = g_strdup_printf (_("%s did not start: %s"), op->name, error->message);

    show_toast (op->page, text);
  }
}

static void
on_row_restart_cb (ZotExtensionsPage *self,
                   ZotExtensionRow   *row)
{
  ZotExtension *extension = zot_extension_row_get_extension (row);

  if (self->manager == NULL)
    return;

  /* The row is replaced when the new process is in place. */
  zot_extension_manager_restart_async (self->manager, extension, self->cancellable, restarted_cb,
                                       operation_new (self, zot_extension_get_name (extension)));
}

static void
on_row_toast_cb (ZotExtensionsPage *self,
                 const char        *text,
                 ZotExtensionRow   *row)
{
  show_toast (self, text);
}

static void
reloaded_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ZotExtensionsPage *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_extension_manager_reload_finish (ZOT_EXTENSION_MANAGER (object), result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  gtk_widget_set_sensitive (GTK_WIDGET (self->reload_button), TRUE);

  if (error != NULL)
    show_toast (self, error->message);
}

static void
reload_all (ZotExtensionsPage *self)
{
  g_assert (self->manager != NULL);

  gtk_widget_set_sensitive (GTK_WIDGET (self->reload_button), FALSE);
  zot_extension_manager_reload_async (self->manager, self->cancellable, reloaded_cb, self);
}

/* The new extension runs as a `--ext` extension of this window's project,
 * as `zot --ext DIR` would start it. */
static void
on_extension_created_cb (ZotExtensionsPage *self,
                         const char        *directory)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  const char * const paths[] = { directory, NULL };
  g_autofree char *text = NULL;

  if (ZOT_IS_WINDOW (root))
    zot_window_add_extensions (ZOT_WINDOW (root), paths);
  /* Translators: %s is the new extension's folder */
  text = g_strdup_printf (_("Wrote %s; it runs in this project until the window closes"), directory);
  show_toast (self, text);
}

static void
on_new_button_clicked_cb (ZotExtensionsPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  const char *cwd = self->manager != NULL ? zot_extension_manager_get_cwd (self->manager) : NULL;
  GtkWidget *dialog = zot_new_extension_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, cwd);

  g_signal_connect_object (dialog, "created", G_CALLBACK (on_extension_created_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_reload_button_clicked_cb (ZotExtensionsPage *self)
{
  if (self->manager != NULL)
    reload_all (self);
}

static void
on_remove_dialog_response_cb (AdwMessageDialog  *dialog,
                              const char        *response,
                              ZotExtensionsPage *self)
{
  ZotExtension *extension = g_object_get_data (G_OBJECT (dialog), DIALOG_EXTENSION_KEY);

  _zot_extensions_page_remove_response (self, extension, response);
}

static void
on_row_remove_cb (ZotExtensionsPage *self,
                  ZotExtensionRow   *row)
{
  ZotExtension *extension = zot_extension_row_get_extension (row);
  const char *name = zot_extension_get_name (extension);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, NULL, NULL);
  /* Translators: dialog heading; %s is the extension's name */
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Remove %s?"), name);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  /* Translators: %s is the extension's folder on disk */
                                  _("Its folder %s will be deleted. This cannot be undone."),
                                  zot_extension_get_directory (extension));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "remove", _("_Remove"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  /* The response handler's user data is the page (so that the handler
   * goes with it); the extension to remove rides on the one-off dialog
   * and is released with it, whatever the answer. */
  g_object_set_data_full (G_OBJECT (dialog), DIALOG_EXTENSION_KEY,
                          g_object_ref (extension), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_remove_dialog_response_cb), self, 0);
  g_set_weak_pointer (&self->remove_dialog, ADW_MESSAGE_DIALOG (dialog));

  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_row_expanded_cb (ZotExtensionsPage *self,
                    GParamSpec        *pspec,
                    ZotExtensionRow   *row)
{
  const char *name = zot_extension_get_name (zot_extension_row_get_extension (row));

  /* Kept by name: a restart puts a new object, and a new row, in place. */
  if (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (row)))
    g_hash_table_add (self->expanded, g_strdup (name));
  else
    g_hash_table_remove (self->expanded, name);
}

/* Rows */

static void
on_extension_gave_up_cb (ZotExtensionsPage   *self,
                         ZotExtension        *extension,
                         const char          *note,
                         ZotExtensionManager *manager)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (manager));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) item = g_list_model_get_item (G_LIST_MODEL (manager), i);
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->list_box, (int) i);

      if (item == extension && ZOT_IS_EXTENSION_ROW (row))
        zot_extension_row_set_gave_up_note (ZOT_EXTENSION_ROW (row), note);
    }
}

static void
on_row_watched_cb (ZotExtensionsPage *self,
                   GParamSpec        *pspec,
                   ZotExtensionRow   *row)
{
  gboolean watched;

  g_object_get (row, "watched", &watched, NULL);
  zot_extension_manager_set_watched (self->manager, zot_extension_row_get_extension (row), watched);
}

static GtkWidget *
create_row_cb (gpointer item,
               gpointer user_data)
{
  ZotExtensionsPage *self = user_data;
  ZotExtension *extension = item;
  GtkWidget *row = zot_extension_row_new (extension);

  g_signal_connect_object (row, "restart", G_CALLBACK (on_row_restart_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "remove", G_CALLBACK (on_row_remove_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "toast", G_CALLBACK (on_row_toast_cb), self, G_CONNECT_SWAPPED);
  /* Watching is the manager's, by folder: a reloaded row finds it on. */
  g_object_set (row, "watched", zot_extension_manager_get_watched (self->manager, extension), NULL);
  zot_extension_row_set_gave_up_note (ZOT_EXTENSION_ROW (row),
                                      zot_extension_manager_get_gave_up_note (self->manager, extension));
  g_signal_connect_object (row, "notify::watched", G_CALLBACK (on_row_watched_cb), self, G_CONNECT_SWAPPED);

  /* Open, its log read, if the row it replaces was. */
  if (g_hash_table_contains (self->expanded, zot_extension_get_name (extension)))
    adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  g_signal_connect_object (row, "notify::expanded", G_CALLBACK (on_row_expanded_cb), self, G_CONNECT_SWAPPED);

  return row;
}

static ZotExtensionRow *
find_row (ZotExtensionsPage *self,
          ZotExtension      *extension)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ZOT_IS_EXTENSION_ROW (child) &&
          zot_extension_row_get_extension (ZOT_EXTENSION_ROW (child)) == extension)
        return ZOT_EXTENSION_ROW (child);
    }

  return NULL;
}

/* Commands and tools arrive after the state says ready, and conflicts
 * between extensions change other rows than the one that registered. */
static void
on_registrations_changed_cb (ZotExtensionsPage *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ZOT_IS_EXTENSION_ROW (child))
        zot_extension_row_rebuild_details (ZOT_EXTENSION_ROW (child));
    }
}

static void
zot_extensions_page_clear_host (ZotExtensionsPage *self)
{
  if (self->manager != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->manager, self);
      gtk_list_box_bind_model (self->list_box, NULL, NULL, NULL, NULL);
    }

  g_clear_object (&self->manager);
  g_clear_object (&self->host);
}

static void
zot_extensions_page_dispose (GObject *object)
{
  ZotExtensionsPage *self = ZOT_EXTENSIONS_PAGE (object);

  g_cancellable_cancel (self->cancellable);

  if (self->remove_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->remove_dialog));
  g_clear_weak_pointer (&self->remove_dialog);

  zot_extensions_page_clear_host (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_EXTENSIONS_PAGE);

  G_OBJECT_CLASS (zot_extensions_page_parent_class)->dispose (object);
}

static void
zot_extensions_page_finalize (GObject *object)
{
  ZotExtensionsPage *self = ZOT_EXTENSIONS_PAGE (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->expanded, g_hash_table_unref);

  G_OBJECT_CLASS (zot_extensions_page_parent_class)->finalize (object);
}

static void
zot_extensions_page_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  ZotExtensionsPage *self = ZOT_EXTENSIONS_PAGE (object);

  switch (prop_id)
    {
    case PROP_HOST:
      g_value_set_object (value, self->host);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extensions_page_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  ZotExtensionsPage *self = ZOT_EXTENSIONS_PAGE (object);

  switch (prop_id)
    {
    case PROP_HOST:
      zot_extensions_page_set_host (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extensions_page_class_init (ZotExtensionsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_extensions_page_dispose;
  object_class->finalize = zot_extensions_page_finalize;
  object_class->get_property = zot_extensions_page_get_property;
  object_class->set_property = zot_extensions_page_set_property;

  /**
   * ZotExtensionsPage:host:
   *
   * The host whose extensions the page lists.
   */
  properties [PROP_HOST] =
    g_param_spec_object ("host", NULL, NULL, ZOT_TYPE_HOST,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotExtensionsPage::toast:
   * @text: what happened, as plain text (not markup)
   *
   * Something to tell the user briefly, such as an action that failed.
   * Without a handler, the page adds the toast to the nearest
   * #AdwToastOverlay above it.
   */
  signals [TOAST] =
    g_signal_new ("toast",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-extensions-page.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionsPage, reload_button);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionsPage, list_box);
  gtk_widget_class_bind_template_callback (widget_class, on_reload_button_clicked_cb);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionsPage, new_button);
  gtk_widget_class_bind_template_callback (widget_class, on_new_button_clicked_cb);
}

static void
zot_extensions_page_init (ZotExtensionsPage *self)
{
  GtkWidget *placeholder;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  placeholder = gtk_label_new (_("No extensions are loaded."));
  gtk_widget_set_margin_top (placeholder, 24);
  gtk_widget_set_margin_bottom (placeholder, 24);
  gtk_widget_add_css_class (placeholder, "dim-label");
  gtk_list_box_set_placeholder (self->list_box, placeholder);

  gtk_widget_set_sensitive (GTK_WIDGET (self->reload_button), FALSE);
}

/**
 * zot_extensions_page_new:
 *
 * Returns: (transfer floating): a page that lists nothing until
 *   zot_extensions_page_set_host()
 */
GtkWidget *
zot_extensions_page_new (void)
{
  return g_object_new (ZOT_TYPE_EXTENSIONS_PAGE, NULL);
}

/**
 * zot_extensions_page_set_host:
 * @self: a #ZotExtensionsPage
 * @host: (nullable): the host whose extensions to show
 *
 * Lists the extensions of @host's manager and follows its changes.
 */
void
zot_extensions_page_set_host (ZotExtensionsPage *self,
                              ZotHost           *host)
{
  g_return_if_fail (ZOT_IS_EXTENSIONS_PAGE (self));
  g_return_if_fail (host == NULL || ZOT_IS_HOST (host));

  if (self->host == host)
    return;

  zot_extensions_page_clear_host (self);

  gtk_widget_set_sensitive (GTK_WIDGET (self->reload_button), host != NULL);
  if (host == NULL)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HOST]);
      return;
    }

  self->host = g_object_ref (host);
  self->manager = g_object_ref (zot_host_get_manager (host));

  g_signal_connect_object (self->manager, "commands-changed",
                           G_CALLBACK (on_registrations_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->manager, "tools-changed",
                           G_CALLBACK (on_registrations_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->manager, "extension-gave-up",
                           G_CALLBACK (on_extension_gave_up_cb), self, G_CONNECT_SWAPPED);

  gtk_list_box_bind_model (self->list_box, G_LIST_MODEL (self->manager), create_row_cb, self, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HOST]);
}

/* For the tests */

ZotExtensionRow *
_zot_extensions_page_get_row (ZotExtensionsPage *self,
                              ZotExtension      *extension)
{
  g_return_val_if_fail (ZOT_IS_EXTENSIONS_PAGE (self), NULL);
  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);

  return find_row (self, extension);
}

GtkWidget *
_zot_extensions_page_get_reload_button (ZotExtensionsPage *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSIONS_PAGE (self), NULL);

  return GTK_WIDGET (self->reload_button);
}

GtkWidget *
_zot_extensions_page_get_new_button (ZotExtensionsPage *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSIONS_PAGE (self), NULL);

  return GTK_WIDGET (self->new_button);
}

AdwMessageDialog *
_zot_extensions_page_get_remove_dialog (ZotExtensionsPage *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSIONS_PAGE (self), NULL);

  return self->remove_dialog;
}

typedef struct
{
  GWeakRef  page;
  char     *name;
} RemoveData;

static RemoveData *
remove_data_new (ZotExtensionsPage *self,
                 const char        *name)
{
  RemoveData *data = g_new0 (RemoveData, 1);

  g_weak_ref_init (&data->page, self);
  data->name = g_strdup (name);
  return data;
}

static void
removed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  RemoveData *data = user_data;
  g_autoptr(ZotExtensionsPage) self = g_weak_ref_get (&data->page);
  g_autoptr(GError) error = NULL;
  gboolean ok = zot_installer_remove_finish (result, &error);

  if (self != NULL)
    {
      if (!ok)
        show_toast (self, error->message);
      else
        {
          /* Translators: a toast after an extension was removed; %s is its name */
          g_autofree char *text = g_strdup_printf (_("Removed %s"), data->name);

          show_toast (self, text);
          reload_all (self);
        }
    }

  g_weak_ref_clear (&data->page);
  g_free (data->name);
  g_free (data);
}

/**
 * _zot_extensions_page_remove_response:
 * @self: a #ZotExtensionsPage
 * @extension: the extension the dialog asked about
 * @response: "remove" to delete it; anything else keeps it
 *
 * The remove confirmation's answer: deletes the extension's folder with
 * the installer on a worker thread, then reloads every extension.
 */
void
_zot_extensions_page_remove_response (ZotExtensionsPage *self,
                                      ZotExtension      *extension,
                                      const char        *response)
{
  g_autofree char *parent = NULL;
  g_autofree char *basename = NULL;
  const char *directory;

  g_return_if_fail (ZOT_IS_EXTENSIONS_PAGE (self));
  g_return_if_fail (ZOT_IS_EXTENSION (extension));

  if (g_strcmp0 (response, "remove") != 0 || self->manager == NULL)
    return;

  if (!scope_is_installed (zot_extension_get_scope (extension)))
    return;

  directory = zot_extension_get_directory (extension);
  parent = g_path_get_dirname (directory);
  basename = g_path_get_basename (directory);

  zot_installer_remove_async (parent, basename, NULL, removed_cb,
                              remove_data_new (self, zot_extension_get_name (extension)));
}
