/* zot-extensions-page.c — the extensions of the host, one expander row each.
 *
 * The list box is bound to the manager's GListModel, so a reload or a
 * restart (which replaces an extension object in place) rebuilds the rows
 * of what changed. A state change refreshes the row in place. Everything
 * done to an extension goes through the core: the installer rewrites or
 * deletes files, the manager restarts and reloads.
 */
#define G_LOG_DOMAIN "zot-extensions-page"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-extension-tool.h"
#include "zot-extensions-page.h"
#include "zot-extensions-page-private.h"
#include "zot-installer.h"

/* The tail read from the end of a log, and how much of it is shown. */
#define LOG_TAIL_BYTES (16 * 1024)
#define LOG_TAIL_LINES 12

#define ROW_DATA_KEY "zot-extensions-page-row"
#define DIALOG_EXTENSION_KEY "zot-extensions-page-extension"

struct _ZotExtensionsPage
{
  AdwBin               parent_instance;

  GtkButton           *reload_button;
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

G_DEFINE_FINAL_TYPE (ZotExtensionsPage, zot_extensions_page, ADW_TYPE_BIN)

/* What one row shows. The row owns it; the page outlives its rows. */
typedef struct
{
  ZotExtensionsPage *page;
  ZotExtension      *extension;
  AdwExpanderRow    *row;
  GtkLabel          *state_label;
  const char        *state_class;
  GtkSwitch         *enable_switch;
  GtkWidget         *log_row;        /* owned: moved to the end on every rebuild */
  GtkWidget         *actions_row;    /* owned */
  GtkLabel          *log_label;
  GtkWidget         *refresh_button;
  GtkWidget         *open_log_button;
  GtkWidget         *restart_button;
  GtkWidget         *remove_button;
  GPtrArray         *details;        /* owned rows between the header and the log */
  guint              log_serial;     /* the latest log read; older answers are dropped */
} RowData;

/* One asynchronous action on one extension, for the message afterwards. */
typedef struct
{
  ZotExtensionsPage *page;
  char              *name;
  gboolean           enabling;
} Operation;

/* One read of the end of a log file. */
typedef struct
{
  GtkWidget    *row;
  guint         serial;
  GInputStream *stream;
  gboolean      seeked;
  guint8       *buffer;
} LogRead;

static void row_data_update (RowData *data);
static void row_data_load_log (RowData *data);

static void
row_data_free (RowData *data)
{
  g_clear_object (&data->extension);
  g_clear_object (&data->log_row);
  g_clear_object (&data->actions_row);
  g_clear_pointer (&data->details, g_ptr_array_unref);
  g_free (data);
}

static RowData *
row_get_data (GtkWidget *row)
{
  return g_object_get_data (G_OBJECT (row), ROW_DATA_KEY);
}

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

static void
log_read_free (LogRead *read)
{
  g_clear_object (&read->row);
  g_clear_object (&read->stream);
  g_free (read->buffer);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LogRead, log_read_free)

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

static const char *
state_label (ZotExtensionState state)
{
  switch (state)
    {
    case ZOT_EXTENSION_STATE_DISABLED:    return _("disabled");
    case ZOT_EXTENSION_STATE_STARTING:    return _("starting");
    case ZOT_EXTENSION_STATE_REGISTERING: return _("starting");
    case ZOT_EXTENSION_STATE_READY:       return _("ready");
    case ZOT_EXTENSION_STATE_STOPPING:    return _("stopping");
    case ZOT_EXTENSION_STATE_EXITED:      return _("exited");
    case ZOT_EXTENSION_STATE_FAILED:      return _("failed");
    default:                              return _("unknown");
    }
}

static const char *
state_css_class (ZotExtensionState state)
{
  switch (state)
    {
    case ZOT_EXTENSION_STATE_DISABLED:    return "ext-state-disabled";
    case ZOT_EXTENSION_STATE_STARTING:
    case ZOT_EXTENSION_STATE_REGISTERING:
    case ZOT_EXTENSION_STATE_STOPPING:    return "ext-state-busy";
    case ZOT_EXTENSION_STATE_READY:       return "ext-state-ready";
    case ZOT_EXTENSION_STATE_FAILED:      return "ext-state-failed";
    case ZOT_EXTENSION_STATE_EXITED:
    default:                              return "ext-state-exited";
    }
}

static const char *
scope_label (ZotExtensionScope scope)
{
  switch (scope)
    {
    case ZOT_EXTENSION_SCOPE_PROJECT:  return _("this project");
    case ZOT_EXTENSION_SCOPE_USER:     return _("all projects");
    case ZOT_EXTENSION_SCOPE_EXPLICIT:
    default:                           return _("from --ext");
    }
}

static gboolean
scope_is_installed (ZotExtensionScope scope)
{
  /* An --ext directory is the user's own checkout: never delete it. */
  return scope == ZOT_EXTENSION_SCOPE_PROJECT || scope == ZOT_EXTENSION_SCOPE_USER;
}

/* Log tail */

static char *
tail_lines (const char *buffer,
            gsize       length,
            gboolean    partial_first)
{
  g_autofree char *text = g_utf8_make_valid (buffer, (gssize) length);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GString) tail = g_string_new (NULL);
  guint n = g_strv_length (lines);
  guint first = 0;
  guint end = n;

  /* Reading from the middle of the file cuts the first line. */
  if (partial_first && n > 1)
    first = 1;

  while (end > first && g_strstrip (lines[end - 1])[0] == '\0')
    end--;

  if (end - first > LOG_TAIL_LINES)
    first = end - LOG_TAIL_LINES;

  for (guint i = first; i < end; i++)
    {
      if (tail->len > 0)
        g_string_append_c (tail, '\n');
      g_string_append (tail, lines[i]);
    }

  return g_string_free (g_steal_pointer (&tail), FALSE);
}

static RowData *
log_read_get_row_data (LogRead *read)
{
  RowData *data = row_get_data (read->row);

  /* A newer read (Refresh) answers instead. */
  if (data == NULL || data->log_serial != read->serial)
    return NULL;
  return data;
}

static void
log_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LogRead) read = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  RowData *data;
  gsize n_read = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &n_read, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  g_input_stream_close_async (read->stream, G_PRIORITY_LOW, NULL, NULL, NULL);

  if ((data = log_read_get_row_data (read)) == NULL)
    return;

  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The log cannot be read: %s"), error->message);

      gtk_label_set_text (data->log_label, message);
      return;
    }

  text = tail_lines ((const char *) read->buffer, n_read, read->seeked);
  gtk_label_set_text (data->log_label, *text != '\0' ? text : _("Nothing logged yet."));
}

static void
log_info_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LogRead) read = user_data;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  RowData *data;

  info = g_file_input_stream_query_info_finish (G_FILE_INPUT_STREAM (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if ((data = log_read_get_row_data (read)) == NULL)
    return;

  if (info != NULL && g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_STANDARD_SIZE))
    {
      goffset size = g_file_info_get_size (info);

      /* A local seek does not wait on anything. */
      if (size > LOG_TAIL_BYTES &&
          g_seekable_seek (G_SEEKABLE (read->stream), size - LOG_TAIL_BYTES, G_SEEK_SET, NULL, NULL))
        read->seeked = TRUE;
    }

  read->buffer = g_malloc (LOG_TAIL_BYTES);
  g_input_stream_read_all_async (read->stream, read->buffer, LOG_TAIL_BYTES, G_PRIORITY_DEFAULT,
                                 data->page->cancellable, log_read_cb, read);
  read = NULL;
}

static void
log_opened_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(LogRead) read = user_data;
  g_autoptr(GError) error = NULL;
  RowData *data;

  read->stream = G_INPUT_STREAM (g_file_read_finish (G_FILE (object), result, &error));
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if ((data = log_read_get_row_data (read)) == NULL)
    return;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      gtk_label_set_text (data->log_label, _("Nothing logged yet."));
      return;
    }
  else if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The log cannot be read: %s"), error->message);

      gtk_label_set_text (data->log_label, message);
      return;
    }

  g_file_input_stream_query_info_async (G_FILE_INPUT_STREAM (read->stream),
                                        G_FILE_ATTRIBUTE_STANDARD_SIZE, G_PRIORITY_DEFAULT,
                                        data->page->cancellable, log_info_cb, read);
  read = NULL;
}

static void
row_data_load_log (RowData *data)
{
  const char *path = zot_extension_get_log_path (data->extension);
  g_autoptr(GFile) file = NULL;
  LogRead *read;

  if (path == NULL)
    {
      gtk_label_set_text (data->log_label, _("This extension has no log: it never started."));
      return;
    }

  read = g_new0 (LogRead, 1);
  read->row = g_object_ref (GTK_WIDGET (data->row));
  read->serial = ++data->log_serial;

  file = g_file_new_for_path (path);
  g_file_read_async (file, G_PRIORITY_DEFAULT, data->page->cancellable, log_opened_cb, read);
}

/* Actions */

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
    g_autofree char *text = g_strdup_printf (_("%s did not start: %s"), op->name, error->message);

    show_toast (op->page, text);
  }
}

static void
restart_extension (RowData *data)
{
  ZotExtensionsPage *self = data->page;

  g_assert (self->manager != NULL);

  /* The row is replaced when the new process is in place. */
  gtk_widget_set_sensitive (data->restart_button, FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (data->enable_switch), FALSE);

  zot_extension_manager_restart_async (self->manager, data->extension, self->cancellable,
                                       restarted_cb,
                                       operation_new (self, zot_extension_get_name (data->extension)));
}

static void
on_enable_switch_active_cb (GtkSwitch  *enable_switch,
                            GParamSpec *pspec,
                            RowData    *data)
{
  gboolean enabled = gtk_switch_get_active (enable_switch);
  g_autoptr(GError) error = NULL;

  if (data->page->manager == NULL)
    return;

  if (!zot_installer_set_enabled (zot_extension_get_directory (data->extension), enabled, &error))
    {
      show_toast (data->page, error->message);
      g_signal_handlers_block_by_func (enable_switch, on_enable_switch_active_cb, data);
      gtk_switch_set_active (enable_switch, !enabled);
      g_signal_handlers_unblock_by_func (enable_switch, on_enable_switch_active_cb, data);
      return;
    }

  /* The manifest changed on disk; a restart reads it again. */
  restart_extension (data);
}

static void
on_restart_button_clicked_cb (GtkButton *button,
                              RowData   *data)
{
  if (data->page->manager != NULL)
    restart_extension (data);
}

static void
on_refresh_button_clicked_cb (GtkButton *button,
                              RowData   *data)
{
  row_data_load_log (data);
}

static void
open_log_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(Operation) op = user_data;
  g_autoptr(GError) error = NULL;

  if (g_app_info_launch_default_for_uri_finish (result, &error))
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  {
    g_autofree char *text = g_strdup_printf (_("The log of %s cannot be opened: %s"),
                                             op->name, error->message);

    show_toast (op->page, text);
  }
}

static void
on_open_log_button_clicked_cb (GtkButton *button,
                               RowData   *data)
{
  ZotExtensionsPage *self = data->page;
  const char *path = zot_extension_get_log_path (data->extension);
  g_autoptr(GdkAppLaunchContext) context = NULL;
  g_autofree char *uri = NULL;

  if (path == NULL)
    return;

  uri = g_filename_to_uri (path, NULL, NULL);
  if (uri == NULL)
    return;

  context = gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (self)));
  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           open_log_cb,
                                           operation_new (self, zot_extension_get_name (data->extension)));
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
on_remove_button_clicked_cb (GtkButton *button,
                             RowData   *data)
{
  ZotExtensionsPage *self = data->page;
  const char *name = zot_extension_get_name (data->extension);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, NULL, NULL);
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Remove %s?"), name);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("Its folder %s will be deleted. This cannot be undone."),
                                  zot_extension_get_directory (data->extension));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "remove", _("_Remove"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  g_object_set_data_full (G_OBJECT (dialog), DIALOG_EXTENSION_KEY,
                          g_object_ref (data->extension), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_remove_dialog_response_cb), self, 0);
  g_set_weak_pointer (&self->remove_dialog, ADW_MESSAGE_DIALOG (dialog));

  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_row_expanded_cb (AdwExpanderRow *row,
                    GParamSpec     *pspec,
                    RowData        *data)
{
  const char *name = zot_extension_get_name (data->extension);

  /* Kept by name: a restart puts a new object, and a new row, in place. */
  if (adw_expander_row_get_expanded (row))
    {
      g_hash_table_add (data->page->expanded, g_strdup (name));
      row_data_load_log (data);
    }
  else
    {
      g_hash_table_remove (data->page->expanded, name);
    }
}

/* Rows */

static GtkWidget *
heading_row_new (const char *text)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *label = gtk_label_new (text);

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_margin_top (label, 10);
  gtk_widget_set_margin_bottom (label, 4);
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);

  return row;
}

static GtkWidget *
detail_row_new (const char *title,
                const char *subtitle,
                const char *icon_name,
                const char *icon_class)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL && *subtitle != '\0')
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);

  if (icon_name != NULL)
    {
      GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);

      if (icon_class != NULL)
        gtk_widget_add_css_class (icon, icon_class);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
    }

  return row;
}

static void
row_data_add_detail (RowData   *data,
                     GtkWidget *detail)
{
  g_ptr_array_add (data->details, g_object_ref_sink (detail));
  adw_expander_row_add_row (data->row, detail);
}

static void
row_data_add_commands (RowData *data)
{
  GPtrArray *commands = zot_extension_get_commands (data->extension);

  if (commands == NULL || commands->len == 0)
    return;

  row_data_add_detail (data, heading_row_new (_("Commands")));

  for (guint i = 0; i < commands->len; i++)
    {
      ZotExtensionCommand *command = g_ptr_array_index (commands, i);
      g_autofree char *title = g_strconcat ("/", command->name, NULL);
      g_autofree char *subtitle = NULL;
      GtkWidget *row;

      if (command->conflict != NULL)
        subtitle = g_strdup_printf (_("%s\nNot routed: %s"),
                                    command->description != NULL ? command->description : "",
                                    command->conflict);
      else
        subtitle = g_strdup (command->description);

      row = detail_row_new (title, g_strstrip (subtitle), NULL, NULL);
      if (command->conflict != NULL)
        {
          GtkWidget *badge = gtk_label_new (_("conflict"));

          gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
          gtk_widget_set_tooltip_text (badge, command->conflict);
          gtk_widget_add_css_class (badge, "ext-state");
          gtk_widget_add_css_class (badge, "ext-state-failed");
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), badge);
        }
      row_data_add_detail (data, row);
    }
}

static void
row_data_add_tools (RowData *data)
{
  GPtrArray *tools = zot_extension_get_tools (data->extension);

  if (tools == NULL || tools->len == 0)
    return;

  row_data_add_detail (data, heading_row_new (_("Tools")));

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      const char *description = zot_tool_get_description (tool);
      g_autofree char *first_line = NULL;
      GtkWidget *exposure;
      GtkWidget *row;

      /* Tool descriptions are written for the model and run long. */
      if (description != NULL)
        {
          const char *newline = strchr (description, '\n');

          first_line = newline != NULL ? g_strndup (description, (gsize) (newline - description))
                                       : g_strdup (description);
        }

      row = detail_row_new (zot_tool_get_name (tool), first_line, NULL, NULL);
      exposure = gtk_label_new (zot_tool_exposure_to_string (zot_tool_get_exposure (tool)));
      gtk_widget_set_valign (exposure, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (exposure, _("How the model sees this tool"));
      gtk_widget_add_css_class (exposure, "ext-state");
      gtk_widget_add_css_class (exposure, "ext-state-exited");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), exposure);
      row_data_add_detail (data, row);
    }
}

static void
row_data_add_problems (RowData *data)
{
  GPtrArray *problems = zot_extension_get_problems (data->extension);
  const char *last_error = zot_extension_get_last_error (data->extension);

  if ((problems == NULL || problems->len == 0) && (last_error == NULL || *last_error == '\0'))
    return;

  row_data_add_detail (data, heading_row_new (_("Problems")));

  if (last_error != NULL && *last_error != '\0')
    row_data_add_detail (data, detail_row_new (_("Last error"), last_error,
                                               "dialog-error-symbolic", "error"));

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    row_data_add_detail (data, detail_row_new (g_ptr_array_index (problems, i), NULL,
                                               "dialog-warning-symbolic", "warning"));
}

/* Every row under the header is removed and added again, so that the log
 * and the actions stay last. The expander keeps its state. */
static void
row_data_rebuild_details (RowData *data)
{
  ZotManifest *manifest = zot_extension_get_manifest (data->extension);
  g_autofree char *source = NULL;

  for (guint i = 0; i < data->details->len; i++)
    adw_expander_row_remove (data->row, g_ptr_array_index (data->details, i));
  g_ptr_array_set_size (data->details, 0);
  if (gtk_widget_get_parent (data->log_row) != NULL)
    adw_expander_row_remove (data->row, data->log_row);
  if (gtk_widget_get_parent (data->actions_row) != NULL)
    adw_expander_row_remove (data->row, data->actions_row);

  if (manifest != NULL && zot_manifest_get_language (manifest) != NULL)
    source = g_strdup_printf (_("%s — %s"), zot_extension_get_directory (data->extension),
                              zot_manifest_get_language (manifest));
  else
    source = g_strdup (zot_extension_get_directory (data->extension));
  row_data_add_detail (data, detail_row_new (_("Folder"), source, NULL, NULL));

  row_data_add_problems (data);
  row_data_add_commands (data);
  row_data_add_tools (data);

  adw_expander_row_add_row (data->row, data->log_row);
  adw_expander_row_add_row (data->row, data->actions_row);
}

static void
row_data_update (RowData *data)
{
  ZotExtension *extension = data->extension;
  ZotManifest *manifest = zot_extension_get_manifest (extension);
  ZotExtensionState state = zot_extension_get_state (extension);
  g_autoptr(GString) subtitle = g_string_new (NULL);
  const char *state_class = state_css_class (state);

  if (manifest != NULL && zot_manifest_get_version (manifest) != NULL)
    g_string_append_printf (subtitle, "%s · ", zot_manifest_get_version (manifest));
  g_string_append (subtitle, scope_label (zot_extension_get_scope (extension)));
  if (manifest != NULL && zot_manifest_get_description (manifest) != NULL)
    g_string_append_printf (subtitle, " — %s", zot_manifest_get_description (manifest));
  adw_expander_row_set_subtitle (data->row, subtitle->str);

  gtk_label_set_text (data->state_label, state_label (state));
  if (data->state_class != NULL)
    gtk_widget_remove_css_class (GTK_WIDGET (data->state_label), data->state_class);
  gtk_widget_add_css_class (GTK_WIDGET (data->state_label), state_class);
  data->state_class = state_class;

  g_signal_handlers_block_by_func (data->enable_switch, on_enable_switch_active_cb, data);
  gtk_switch_set_active (data->enable_switch,
                         manifest != NULL ? zot_manifest_get_enabled (manifest) : FALSE);
  g_signal_handlers_unblock_by_func (data->enable_switch, on_enable_switch_active_cb, data);

  /* A manifest that does not parse cannot be rewritten. */
  gtk_widget_set_sensitive (GTK_WIDGET (data->enable_switch),
                            manifest != NULL && state != ZOT_EXTENSION_STATE_STOPPING);
  gtk_widget_set_sensitive (data->restart_button, state != ZOT_EXTENSION_STATE_STOPPING);
  gtk_widget_set_visible (data->remove_button, scope_is_installed (zot_extension_get_scope (extension)));
  gtk_widget_set_sensitive (data->open_log_button, zot_extension_get_log_path (extension) != NULL);

  row_data_rebuild_details (data);

  if (adw_expander_row_get_expanded (data->row))
    row_data_load_log (data);
}

static GtkWidget *
log_row_new (RowData *data)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (_("Log"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (row), FALSE);

  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 10);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_add_css_class (title, "heading");
  gtk_widget_add_css_class (title, "dim-label");
  gtk_box_append (GTK_BOX (header), title);

  data->refresh_button = gtk_button_new_with_mnemonic (_("Re_fresh"));
  gtk_widget_set_tooltip_text (data->refresh_button, _("Read the end of the log again"));
  gtk_widget_add_css_class (data->refresh_button, "flat");
  g_signal_connect (data->refresh_button, "clicked", G_CALLBACK (on_refresh_button_clicked_cb), data);
  gtk_box_append (GTK_BOX (header), data->refresh_button);

  data->open_log_button = gtk_button_new_with_mnemonic (_("_Open Log"));
  gtk_widget_set_tooltip_text (data->open_log_button, _("Open the whole log in another application"));
  gtk_widget_add_css_class (data->open_log_button, "flat");
  g_signal_connect (data->open_log_button, "clicked", G_CALLBACK (on_open_log_button_clicked_cb), data);
  gtk_box_append (GTK_BOX (header), data->open_log_button);

  gtk_box_append (GTK_BOX (box), header);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "ext-log");
  data->log_label = GTK_LABEL (label);
  gtk_box_append (GTK_BOX (box), label);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  return g_object_ref_sink (row);
}

static GtkWidget *
actions_row_new (RowData *data)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (row), FALSE);

  gtk_widget_set_halign (box, GTK_ALIGN_END);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);

  data->restart_button = gtk_button_new_with_mnemonic (_("Re_start"));
  gtk_widget_set_tooltip_text (data->restart_button, _("Stop this extension and start it again"));
  g_signal_connect (data->restart_button, "clicked", G_CALLBACK (on_restart_button_clicked_cb), data);
  gtk_box_append (GTK_BOX (box), data->restart_button);

  data->remove_button = gtk_button_new_with_mnemonic (_("_Remove…"));
  gtk_widget_set_tooltip_text (data->remove_button, _("Delete this extension's folder"));
  gtk_widget_add_css_class (data->remove_button, "destructive-action");
  g_signal_connect (data->remove_button, "clicked", G_CALLBACK (on_remove_button_clicked_cb), data);
  gtk_box_append (GTK_BOX (box), data->remove_button);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  return g_object_ref_sink (row);
}

static GtkWidget *
create_row_cb (gpointer item,
               gpointer user_data)
{
  ZotExtensionsPage *self = user_data;
  ZotExtension *extension = item;
  RowData *data = g_new0 (RowData, 1);
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *state;
  GtkWidget *enable_switch;

  data->page = self;
  data->extension = g_object_ref (extension);
  data->row = ADW_EXPANDER_ROW (row);
  data->details = g_ptr_array_new_with_free_func (g_object_unref);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), zot_extension_get_name (extension));

  /* Actions are packed from the end: the switch goes in first to sit last. */
  enable_switch = gtk_switch_new ();
  gtk_widget_set_valign (enable_switch, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (enable_switch, _("Enable or disable this extension"));
  data->enable_switch = GTK_SWITCH (enable_switch);
  g_signal_connect (enable_switch, "notify::active", G_CALLBACK (on_enable_switch_active_cb), data);
  adw_expander_row_add_action (data->row, enable_switch);

  state = gtk_label_new (NULL);
  gtk_widget_set_valign (state, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (state, "ext-state");
  data->state_label = GTK_LABEL (state);
  adw_expander_row_add_action (data->row, state);

  data->log_row = log_row_new (data);
  data->actions_row = actions_row_new (data);

  g_object_set_data_full (G_OBJECT (row), ROW_DATA_KEY, data, (GDestroyNotify) row_data_free);

  row_data_update (data);

  if (g_hash_table_contains (self->expanded, zot_extension_get_name (extension)))
    {
      adw_expander_row_set_expanded (data->row, TRUE);
      row_data_load_log (data);
    }
  g_signal_connect (row, "notify::expanded", G_CALLBACK (on_row_expanded_cb), data);

  return row;
}

static GtkWidget *
find_row (ZotExtensionsPage *self,
          ZotExtension      *extension)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      RowData *data = row_get_data (child);

      if (data != NULL && data->extension == extension)
        return child;
    }

  return NULL;
}

static void
on_extension_state_changed_cb (ZotExtensionsPage   *self,
                               ZotExtension        *extension,
                               ZotExtensionManager *manager)
{
  GtkWidget *row = find_row (self, extension);

  if (row != NULL)
    row_data_update (row_get_data (row));
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
      RowData *data = row_get_data (child);

      if (data != NULL)
        row_data_rebuild_details (data);
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
zot_extensions_page_class_init (ZotExtensionsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_extensions_page_dispose;
  object_class->finalize = zot_extensions_page_finalize;

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
    return;

  self->host = g_object_ref (host);
  self->manager = g_object_ref (zot_host_get_manager (host));

  g_signal_connect_object (self->manager, "extension-state-changed",
                           G_CALLBACK (on_extension_state_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->manager, "commands-changed",
                           G_CALLBACK (on_registrations_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->manager, "tools-changed",
                           G_CALLBACK (on_registrations_changed_cb), self, G_CONNECT_SWAPPED);

  gtk_list_box_bind_model (self->list_box, G_LIST_MODEL (self->manager), create_row_cb, self, NULL);
}

/* For the tests */

GtkWidget *
_zot_extensions_page_get_row (ZotExtensionsPage *self,
                              ZotExtension      *extension)
{
  g_return_val_if_fail (ZOT_IS_EXTENSIONS_PAGE (self), NULL);
  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);

  return find_row (self, extension);
}

ZotExtension *
_zot_extensions_page_row_get_extension (GtkWidget *row)
{
  RowData *data;

  g_return_val_if_fail (GTK_IS_WIDGET (row), NULL);

  data = row_get_data (row);
  return data != NULL ? data->extension : NULL;
}

const char *
_zot_extensions_page_row_get_state (GtkWidget *row)
{
  RowData *data;

  g_return_val_if_fail (GTK_IS_WIDGET (row), NULL);

  data = row_get_data (row);
  return data != NULL ? gtk_label_get_text (data->state_label) : NULL;
}

/**
 * _zot_extensions_page_row_get_widget:
 * @row: a row of the page
 * @name: "state", "enable-switch", "restart", "remove", "refresh-log",
 *   "open-log" or "log"
 *
 * Returns: (transfer none) (nullable): that widget of the row
 */
GtkWidget *
_zot_extensions_page_row_get_widget (GtkWidget  *row,
                                     const char *name)
{
  RowData *data;

  g_return_val_if_fail (GTK_IS_WIDGET (row), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if ((data = row_get_data (row)) == NULL)
    return NULL;

  if (g_str_equal (name, "state"))
    return GTK_WIDGET (data->state_label);
  if (g_str_equal (name, "enable-switch"))
    return GTK_WIDGET (data->enable_switch);
  if (g_str_equal (name, "restart"))
    return data->restart_button;
  if (g_str_equal (name, "remove"))
    return data->remove_button;
  if (g_str_equal (name, "refresh-log"))
    return data->refresh_button;
  if (g_str_equal (name, "open-log"))
    return data->open_log_button;
  if (g_str_equal (name, "log"))
    return GTK_WIDGET (data->log_label);

  return NULL;
}

/**
 * _zot_extensions_page_row_get_details:
 * @row: a row of the page
 *
 * Returns: (transfer full): the titles and subtitles of the rows under the
 *   header (folder, problems, commands, tools), one per line
 */
char *
_zot_extensions_page_row_get_details (GtkWidget *row)
{
  g_autoptr(GString) text = g_string_new (NULL);
  RowData *data;

  g_return_val_if_fail (GTK_IS_WIDGET (row), NULL);

  if ((data = row_get_data (row)) == NULL)
    return g_strdup ("");

  for (guint i = 0; i < data->details->len; i++)
    {
      GtkWidget *detail = g_ptr_array_index (data->details, i);

      if (ADW_IS_ACTION_ROW (detail))
        {
          const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (detail));

          g_string_append_printf (text, "%s%s%s\n",
                                  adw_preferences_row_get_title (ADW_PREFERENCES_ROW (detail)),
                                  subtitle != NULL ? " | " : "",
                                  subtitle != NULL ? subtitle : "");
        }
      else
        {
          GtkWidget *label = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (detail));

          if (GTK_IS_LABEL (label))
            g_string_append_printf (text, "# %s\n", gtk_label_get_text (GTK_LABEL (label)));
        }
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

GtkWidget *
_zot_extensions_page_get_reload_button (ZotExtensionsPage *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSIONS_PAGE (self), NULL);

  return GTK_WIDGET (self->reload_button);
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
