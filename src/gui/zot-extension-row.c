/* zot-extension-row.c — one extension on the extensions page.
 *
 * An expander row bound to its ZotExtension: the header shows the name,
 * version, scope and description, the state as a badge and the enabled
 * switch; unfolded, the folder, the problems, the commands and tools,
 * the tail of the log, and Restart and Remove. It follows its
 * extension's state itself; the page tells it when registrations change
 * (a conflict with another extension changes this one's rows too).
 *
 * What changes files goes through the core's installer (the enabled
 * switch rewrites the manifest); what needs the manager (restart,
 * remove) is asked of the page with ::restart and ::remove.
 */
#define G_LOG_DOMAIN "zot-extensions-page"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-extension-meter-view.h"
#include "zot-extension-row-secrets.h"
#include "zot-extension-row-grants.h"
#include "zot-extension-row.h"
#include "zot-tooltip.h"
#include "zot-wrap-safe.h"
#include "zot-extension-row-private.h"
#include "zot-extension-tool.h"
#include "zot-installer.h"
#include "zot-wrap-safe-gtk.h"

/* The tail read from the end of a log, and how much of it is shown. */
#define LOG_TAIL_BYTES (16 * 1024)
#define LOG_TAIL_LINES 12

struct _ZotExtensionRow
{
  AdwExpanderRow  parent_instance;

  ZotExtension   *extension;
  GCancellable   *cancellable;
  GPtrArray      *details;      /* the rows between the header and the log */
  ZotExtensionMeterView *meter;
  const char     *state_class;
  guint           log_serial;   /* the latest log read; older answers are dropped */
  gboolean        restarting;
  gboolean        watched;
  char           *gave_up_note; /* the supervisor stopped restarting it */

  /* Template widgets */
  GtkLabel       *state_label;
  GtkSwitch      *enable_switch;
  GtkSwitch      *watch_switch;
  GtkWidget      *log_row;
  GtkLabel       *log_label;
  GtkWidget      *open_log_button;
  GtkWidget      *refresh_button;
  GtkWidget      *actions_row;
  GtkWidget      *restart_button;
  GtkWidget      *remove_button;
  GtkWidget      *gave_up_button;
};

enum {
  PROP_0,
  PROP_EXTENSION,
  PROP_WATCHED,
  N_PROPS
};

enum {
  RESTART,
  REMOVE,
  TOAST,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotExtensionRow, zot_extension_row, ADW_TYPE_EXPANDER_ROW)

static void on_enable_switch_active_cb (ZotExtensionRow *self,
                                        GParamSpec      *pspec,
                                        GtkSwitch       *enable_switch);

/* One read of the end of a log file. The row may go while it runs: its
 * dispose cancels the read. */
typedef struct
{
  GWeakRef      row;
  guint         serial;
  GInputStream *stream;
  gboolean      seeked;
  guint8       *buffer;
} LogRead;

static void
log_read_free (LogRead *read)
{
  g_weak_ref_clear (&read->row);
  g_clear_object (&read->stream);
  g_free (read->buffer);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LogRead, log_read_free)

static GWeakRef *
weak_ref_new (gpointer object)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (ref, object);
  return ref;
}

static void
weak_ref_free (GWeakRef *ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GWeakRef, weak_ref_free)

static void
toast (ZotExtensionRow *self,
       const char      *text)
{
  g_signal_emit (self, signals [TOAST], 0, text);
}

static const char *
state_label (ZotExtensionState state)
{
  switch (state)
    {
    /* Translators: an extension's state, shown in a small badge in the list of extensions */
    case ZOT_EXTENSION_STATE_DISABLED:    return _("disabled");
    /* Translators: an extension's state: it is being started */
    case ZOT_EXTENSION_STATE_STARTING:    return _("starting");
    /* Translators: an extension's state: it is being started */
    case ZOT_EXTENSION_STATE_REGISTERING: return _("starting");
    /* Translators: an extension's state: it runs and answers */
    case ZOT_EXTENSION_STATE_READY:       return _("ready");
    /* Translators: an extension's state: it is being shut down */
    case ZOT_EXTENSION_STATE_STOPPING:    return _("stopping");
    /* Translators: an extension's state: its program has ended */
    case ZOT_EXTENSION_STATE_EXITED:      return _("exited");
    /* Translators: an extension's state: it could not be started, or it crashed */
    case ZOT_EXTENSION_STATE_FAILED:      return _("failed");
    /* Translators: an extension's state: a project's extension not started until the user trusts it */
    case ZOT_EXTENSION_STATE_NEEDS_APPROVAL: return _("needs approval");
    /* Translators: an extension's state, when it is none of the known ones */
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
    case ZOT_EXTENSION_STATE_NEEDS_APPROVAL: return "ext-state-disabled";
    case ZOT_EXTENSION_STATE_EXITED:
    default:                              return "ext-state-exited";
    }
}

static const char *
scope_label (ZotExtensionScope scope)
{
  switch (scope)
    {
    /* Translators: where an extension is installed: in the current project only */
    case ZOT_EXTENSION_SCOPE_PROJECT:  return _("this project");
    /* Translators: where an extension is installed: for every project of this user */
    case ZOT_EXTENSION_SCOPE_USER:     return _("all projects");
    /* Translators: where an extension comes from: it ships with the app */
    case ZOT_EXTENSION_SCOPE_BUILTIN:  return _("built in");
    case ZOT_EXTENSION_SCOPE_EXPLICIT:
    /* Translators: where an extension comes from: the --ext option of the command line; keep
     * "--ext" as it is */
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

/* The row, if @read is still the one to answer for it: a newer read
 * (Refresh) answers instead. */
static ZotExtensionRow *
log_read_get_row (LogRead *read)
{
  ZotExtensionRow *row = g_weak_ref_get (&read->row);

  if (row != NULL && row->log_serial != read->serial)
    g_clear_object (&row);
  return row;
}

static void
show_log_error (ZotExtensionRow *self,
                const GError    *error)
{
  /* Translators: %s is the system's error message */
  g_autofree char *message = g_strdup_printf (_("The log cannot be read: %s"), error->message);

  zot_wrap_safe_label_set_text (self->log_label, message);
}

static void
log_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LogRead) read = user_data;
  g_autoptr(ZotExtensionRow) self = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize n_read = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &n_read, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  g_input_stream_close_async (read->stream, G_PRIORITY_LOW, NULL, NULL, NULL);

  if ((self = log_read_get_row (read)) == NULL)
    return;

  if (error != NULL)
    {
      show_log_error (self, error);
      return;
    }

  text = tail_lines ((const char *) read->buffer, n_read, read->seeked);
  zot_wrap_safe_label_set_text (self->log_label, *text != '\0' ? text : _("Nothing logged yet."));
}

static void
log_info_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LogRead) read = user_data;
  g_autoptr(ZotExtensionRow) self = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  info = g_file_input_stream_query_info_finish (G_FILE_INPUT_STREAM (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if ((self = log_read_get_row (read)) == NULL)
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
                                 self->cancellable, log_read_cb, read);
  read = NULL;
}

static void
log_opened_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(LogRead) read = user_data;
  g_autoptr(ZotExtensionRow) self = NULL;
  g_autoptr(GError) error = NULL;

  read->stream = G_INPUT_STREAM (g_file_read_finish (G_FILE (object), result, &error));
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if ((self = log_read_get_row (read)) == NULL)
    return;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      gtk_label_set_text (self->log_label, _("Nothing logged yet."));
      return;
    }
  else if (error != NULL)
    {
      show_log_error (self, error);
      return;
    }

  g_file_input_stream_query_info_async (G_FILE_INPUT_STREAM (read->stream),
                                        G_FILE_ATTRIBUTE_STANDARD_SIZE, G_PRIORITY_DEFAULT,
                                        self->cancellable, log_info_cb, read);
  read = NULL;
}

static void
load_log (ZotExtensionRow *self)
{
  const char *path = zot_extension_get_log_path (self->extension);
  g_autoptr(GFile) file = NULL;
  LogRead *read;

  if (path == NULL)
    {
      gtk_label_set_text (self->log_label, _("This extension has no log: it never started."));
      return;
    }

  read = g_new0 (LogRead, 1);
  g_weak_ref_init (&read->row, self);
  read->serial = ++self->log_serial;

  file = g_file_new_for_path (path);
  g_file_read_async (file, G_PRIORITY_DEFAULT, self->cancellable, log_opened_cb, read);
}

/* Details */

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

  g_autofree char *safe_title = zot_wrap_safe_text (title, -1);

  /* libadwaita's rows wrap by word and character too (zot-wrap-safe.h). */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), safe_title);
  if (subtitle != NULL && *subtitle != '\0')
    {
      g_autofree char *safe_subtitle = zot_wrap_safe_text (subtitle, -1);

      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), safe_subtitle);
    }

  if (icon_name != NULL)
    {
      GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);

      if (icon_class != NULL)
        gtk_widget_add_css_class (icon, icon_class);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
    }

  return row;
}

/* A small label after a detail row's text, such as "conflict". */
static GtkWidget *
badge_new (const char *text,
           const char *tooltip,
           const char *state_class)
{
  GtkWidget *badge = gtk_label_new (text);

  gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
  zot_tooltip_set (badge, tooltip);
  gtk_widget_add_css_class (badge, "ext-state");
  gtk_widget_add_css_class (badge, state_class);
  return badge;
}

static void
add_detail (ZotExtensionRow *self,
            GtkWidget       *detail)
{
  g_ptr_array_add (self->details, g_object_ref_sink (detail));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (self), detail);
}

static void
add_commands (ZotExtensionRow *self)
{
  GPtrArray *commands = zot_extension_get_commands (self->extension);

  if (commands == NULL || commands->len == 0)
    return;

  /* Translators: heading of the list of slash commands (such as /review) that an extension adds */
  add_detail (self, heading_row_new (_("Commands")));

  for (guint i = 0; i < commands->len; i++)
    {
      ZotExtensionCommand *command = g_ptr_array_index (commands, i);
      g_autofree char *title = g_strconcat ("/", command->name, NULL);
      g_autofree char *subtitle = NULL;
      GtkWidget *row;

      if (command->conflict != NULL)
        /* Translators: subtitle of a command in an extension's details: its description, a line
         * break, then why another command of the same name is used instead */
        subtitle = g_strdup_printf (_("%s\nNot routed: %s"),
                                    command->description != NULL ? command->description : "",
                                    command->conflict);
      else
        subtitle = g_strdup (command->description);

      row = detail_row_new (title, g_strstrip (subtitle), NULL, NULL);
      if (command->conflict != NULL)
        adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                                   /* Translators: badge on a command whose name another
                                    * extension or the app already uses */
                                   badge_new (_("conflict"), command->conflict, "ext-state-failed"));
      add_detail (self, row);
    }
}

static void
add_tools (ZotExtensionRow *self)
{
  GPtrArray *tools = zot_extension_get_tools (self->extension);

  if (tools == NULL || tools->len == 0)
    return;

  /* Translators: heading of the list of tools an extension gives the model */
  add_detail (self, heading_row_new (_("Tools")));

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      const char *description = zot_tool_get_description (tool);
      g_autofree char *first_line = NULL;
      GtkWidget *row;

      /* Tool descriptions are written for the model and run long. */
      if (description != NULL)
        {
          const char *newline = strchr (description, '\n');

          first_line = newline != NULL ? g_strndup (description, (gsize) (newline - description))
                                       : g_strdup (description);
        }

      row = detail_row_new (zot_tool_get_name (tool), first_line, NULL, NULL);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                                 badge_new (zot_tool_exposure_to_string (zot_tool_get_exposure (tool)),
                                            _("How the model sees this tool"), "ext-state-exited"));
      add_detail (self, row);
    }
}

static void
add_problems (ZotExtensionRow *self)
{
  GPtrArray *problems = zot_extension_get_problems (self->extension);
  const char *last_error = zot_extension_get_last_error (self->extension);

  if ((problems == NULL || problems->len == 0) && (last_error == NULL || *last_error == '\0') &&
      self->gave_up_note == NULL)
    return;

  /* Translators: heading of the list of errors and warnings about an extension */
  add_detail (self, heading_row_new (_("Problems")));

  if (self->gave_up_note != NULL)
    /* Translators: title of the row saying that zot stopped restarting an extension that kept
     * crashing */
    add_detail (self, detail_row_new (_("Not restarted again"), self->gave_up_note,
                                      "dialog-error-symbolic", "error"));

  if (zot_extension_get_state (self->extension) == ZOT_EXTENSION_STATE_NEEDS_APPROVAL)
    /* Translators: title of the row saying what an untrusted project extension asks for */
    add_detail (self, detail_row_new (_("Needs approval"), last_error, "dialog-warning-symbolic", "warning"));
  else if (last_error != NULL && *last_error != '\0')
    /* Translators: title of the row showing the error an extension last reported */
    add_detail (self, detail_row_new (_("Last error"), last_error, "dialog-error-symbolic", "error"));

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    add_detail (self, detail_row_new (g_ptr_array_index (problems, i), NULL,
                                      "dialog-warning-symbolic", "warning"));
}

static void
add_secret_row (gpointer   self,
                GtkWidget *row)
{
  add_detail (self, row);
}

static void
toast_secret (gpointer    self,
              const char *text)
{
  toast (self, text);
}

static void request_restart (ZotExtensionRow *self);

/* A right taken back: the box is made at start. */
static void
grant_changed (gpointer self)
{
  request_restart (self);
}

/**
 * zot_extension_row_rebuild_details:
 * @self: a #ZotExtensionRow
 *
 * Makes the rows under the header (folder, problems, commands, tools)
 * again from the extension. Every one is removed and added again, so that
 * the log and the actions stay last; the expander keeps its state.
 */
void
zot_extension_row_rebuild_details (ZotExtensionRow *self)
{
  AdwExpanderRow *expander = ADW_EXPANDER_ROW (self);
  ZotManifest *manifest;
  g_autofree char *source = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_ROW (self));

  for (guint i = 0; i < self->details->len; i++)
    adw_expander_row_remove (expander, g_ptr_array_index (self->details, i));
  g_ptr_array_set_size (self->details, 0);
  /* Template children: the template keeps them while they are out. */
  if (gtk_widget_get_parent (self->log_row) != NULL)
    adw_expander_row_remove (expander, self->log_row);
  if (gtk_widget_get_parent (self->actions_row) != NULL)
    adw_expander_row_remove (expander, self->actions_row);

  manifest = zot_extension_get_manifest (self->extension);
  if (manifest != NULL && zot_manifest_get_language (manifest) != NULL)
    /* Translators: the extension's folder, then the programming language it is written in */
    source = g_strdup_printf (_("%s — %s"), zot_extension_get_directory (self->extension),
                              zot_manifest_get_language (manifest));
  else
    source = g_strdup (zot_extension_get_directory (self->extension));
  /* Translators: title of the row showing the extension's folder on disk */
  add_detail (self, detail_row_new (_("Folder"), source, NULL, NULL));

  add_problems (self);
  add_detail (self, zot_extension_meter_view_get_details_row (self->meter));
  add_commands (self);
  add_tools (self);
  if (manifest != NULL && zot_manifest_get_permissions (manifest) != NULL)
    zot_extension_secret_rows_add (self, zot_extension_get_name (self->extension),
                                   (const char * const *) zot_manifest_get_permissions (manifest)->secrets,
                                   add_secret_row, toast_secret);
  zot_extension_grant_rows_add (self, self->extension, add_secret_row, toast_secret, grant_changed);

  adw_expander_row_add_row (expander, self->log_row);
  adw_expander_row_add_row (expander, self->actions_row);
}

/* The header, the actions, and the details, from the extension. */

static void
update_actions (ZotExtensionRow *self)
{
  ZotExtensionState state = zot_extension_get_state (self->extension);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "extension.restart",
                                 !self->restarting && state != ZOT_EXTENSION_STATE_STOPPING);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "extension.open-log",
                                 zot_extension_get_log_path (self->extension) != NULL);
}

static void
update (ZotExtensionRow *self)
{
  ZotExtension *extension = self->extension;
  ZotManifest *manifest = zot_extension_get_manifest (extension);
  ZotExtensionState state = zot_extension_get_state (extension);
  g_autoptr(GString) subtitle = g_string_new (NULL);
  const char *state_class = state_css_class (state);

  if (manifest != NULL && zot_manifest_get_version (manifest) != NULL)
    g_string_append_printf (subtitle, "%s · ", zot_manifest_get_version (manifest));
  g_string_append (subtitle, scope_label (zot_extension_get_scope (extension)));
  if (manifest != NULL)
    {
      g_autofree char *box = zot_permissions_describe_words (zot_manifest_get_permissions (manifest));
      g_string_append_printf (subtitle, " · %s", box);
    }
  if (manifest != NULL && zot_manifest_get_description (manifest) != NULL)
    g_string_append_printf (subtitle, " — %s", zot_manifest_get_description (manifest));
  {
    g_autofree char *safe = zot_wrap_safe_text (subtitle->str, -1);

    adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (self), safe);
  }

  /* Down for good until the user restarts it: said in the header, with
   * the button beside it. */
  if (self->gave_up_note != NULL && state == ZOT_EXTENSION_STATE_FAILED)
    /* Translators: the state of an extension that crashed too often to be restarted again */
    gtk_label_set_text (self->state_label, _("gave up"));
  else
    gtk_label_set_text (self->state_label, state_label (state));
  gtk_widget_set_visible (self->gave_up_button,
                          self->gave_up_note != NULL && state == ZOT_EXTENSION_STATE_FAILED);
  gtk_widget_set_tooltip_text (self->gave_up_button, self->gave_up_note);
  if (self->state_class != NULL)
    gtk_widget_remove_css_class (GTK_WIDGET (self->state_label), self->state_class);
  gtk_widget_add_css_class (GTK_WIDGET (self->state_label), state_class);
  self->state_class = state_class;

  g_signal_handlers_block_by_func (self->enable_switch, on_enable_switch_active_cb, self);
  gtk_switch_set_active (self->enable_switch, manifest != NULL ? zot_manifest_get_enabled (manifest) : FALSE);
  g_signal_handlers_unblock_by_func (self->enable_switch, on_enable_switch_active_cb, self);

  /* A manifest that does not parse cannot be rewritten. A restart asked
   * for ends with this row replaced, or with a new state. */
  self->restarting = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->enable_switch),
                            manifest != NULL && state != ZOT_EXTENSION_STATE_STOPPING);
  /* A built-in's folder is the app's: it runs while its configuration
   * exists (the MCP bridge: docs/mcp.md). */
  gtk_widget_set_visible (GTK_WIDGET (self->enable_switch),
                          zot_extension_get_scope (extension) != ZOT_EXTENSION_SCOPE_BUILTIN);
  gtk_widget_set_visible (self->remove_button, scope_is_installed (zot_extension_get_scope (extension)));
  update_actions (self);

  zot_extension_row_rebuild_details (self);

  if (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (self)))
    load_log (self);
}

static void
on_extension_state_cb (ZotExtensionRow *self,
                       GParamSpec      *pspec,
                       ZotExtension    *extension)
{
  update (self);
}

static void
on_expanded_cb (ZotExtensionRow *self,
                GParamSpec      *pspec,
                gpointer         user_data)
{
  if (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (self)))
    load_log (self);
}

/* What the user does */

static void
request_restart (ZotExtensionRow *self)
{
  /* Until the new process is in place. */
  self->restarting = TRUE;
  update_actions (self);
  gtk_widget_set_sensitive (GTK_WIDGET (self->enable_switch), FALSE);

  g_signal_emit (self, signals [RESTART], 0);
}

static void
on_enable_switch_active_cb (ZotExtensionRow *self,
                            GParamSpec      *pspec,
                            GtkSwitch       *enable_switch)
{
  gboolean enabled = gtk_switch_get_active (enable_switch);
  g_autoptr(GError) error = NULL;

  if (!zot_installer_set_enabled (zot_extension_get_directory (self->extension), enabled, &error))
    {
      toast (self, error->message);
      g_signal_handlers_block_by_func (enable_switch, on_enable_switch_active_cb, self);
      gtk_switch_set_active (enable_switch, !enabled);
      g_signal_handlers_unblock_by_func (enable_switch, on_enable_switch_active_cb, self);
      return;
    }

  /* The manifest changed on disk; a restart reads it again. */
  request_restart (self);
}

static void
restart_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  request_restart (ZOT_EXTENSION_ROW (widget));
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  g_signal_emit (widget, signals [REMOVE], 0);
}

static void
refresh_log_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  load_log (ZOT_EXTENSION_ROW (widget));
}

static void
open_log_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GWeakRef) ref = user_data;
  g_autoptr(ZotExtensionRow) self = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (g_app_info_launch_default_for_uri_finish (result, &error) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      (self = g_weak_ref_get (ref)) == NULL)
    return;

  /* Translators: %s is the extension's name, then the system's error message */
  text = g_strdup_printf (_("The log of %s cannot be opened: %s"),
                          zot_extension_get_name (self->extension), error->message);
  toast (self, text);
}

static void
open_log_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  ZotExtensionRow *self = ZOT_EXTENSION_ROW (widget);
  const char *path = zot_extension_get_log_path (self->extension);
  g_autoptr(GdkAppLaunchContext) context = NULL;
  g_autofree char *uri = NULL;

  if (path == NULL || (uri = g_filename_to_uri (path, NULL, NULL)) == NULL)
    return;

  context = gdk_display_get_app_launch_context (gtk_widget_get_display (widget));
  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           open_log_cb, weak_ref_new (self));
}

/* GObject */

static void
zot_extension_row_constructed (GObject *object)
{
  ZotExtensionRow *self = ZOT_EXTENSION_ROW (object);

  G_OBJECT_CLASS (zot_extension_row_parent_class)->constructed (object);

  g_assert (ZOT_IS_EXTENSION (self->extension));

  {
    g_autofree char *safe = zot_wrap_safe_text (zot_extension_get_name (self->extension), -1);

    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), safe);
  }
  g_signal_connect_object (self->extension, "notify::state", G_CALLBACK (on_extension_state_cb), self,
                           G_CONNECT_SWAPPED);
  self->meter = zot_extension_meter_view_new (self->extension, GTK_WIDGET (self));
  adw_expander_row_add_action (ADW_EXPANDER_ROW (self), zot_extension_meter_view_get_label (self->meter));
  update (self);
}

static void
zot_extension_row_dispose (GObject *object)
{
  ZotExtensionRow *self = ZOT_EXTENSION_ROW (object);

  g_cancellable_cancel (self->cancellable);
  if (self->extension != NULL)
    g_signal_handlers_disconnect_by_data (self->extension, self);
  g_clear_pointer (&self->details, g_ptr_array_unref);
  g_clear_object (&self->meter);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_EXTENSION_ROW);

  G_OBJECT_CLASS (zot_extension_row_parent_class)->dispose (object);
}

static void
zot_extension_row_finalize (GObject *object)
{
  ZotExtensionRow *self = ZOT_EXTENSION_ROW (object);

  g_clear_object (&self->extension);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->gave_up_note, g_free);

  G_OBJECT_CLASS (zot_extension_row_parent_class)->finalize (object);
}

static void
zot_extension_row_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  ZotExtensionRow *self = ZOT_EXTENSION_ROW (object);

  switch (prop_id)
    {
    case PROP_EXTENSION:
      g_value_set_object (value, self->extension);
      break;

    case PROP_WATCHED:
      g_value_set_boolean (value, self->watched);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extension_row_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  ZotExtensionRow *self = ZOT_EXTENSION_ROW (object);

  switch (prop_id)
    {
    case PROP_EXTENSION:
      self->extension = g_value_dup_object (value);
      break;

    case PROP_WATCHED:
      if (self->watched != g_value_get_boolean (value))
        {
          self->watched = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extension_row_class_init (ZotExtensionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = zot_extension_row_constructed;
  object_class->dispose = zot_extension_row_dispose;
  object_class->finalize = zot_extension_row_finalize;
  object_class->get_property = zot_extension_row_get_property;
  object_class->set_property = zot_extension_row_set_property;

  /**
   * ZotExtensionRow:extension:
   *
   * The extension the row shows.
   */
  properties [PROP_EXTENSION] =
    g_param_spec_object ("extension", NULL, NULL,
                         ZOT_TYPE_EXTENSION,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotExtensionRow:watched:
   *
   * The "Reload on change" switch: whether an edit of the extension's
   * files rebuilds and restarts it. The page keeps it and the manager's
   * zot_extension_manager_set_watched() in step.
   */
  properties [PROP_WATCHED] =
    g_param_spec_boolean ("watched", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotExtensionRow::restart:
   *
   * The user asked for the extension to be stopped and started again,
   * with Restart or by switching it on or off (its manifest is already
   * rewritten). The manager's restart puts a new row in place.
   */
  signals [RESTART] =
    g_signal_new ("restart",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtensionRow::remove:
   *
   * The user asked for the extension's folder to be deleted; nothing is
   * deleted before they confirm.
   */
  signals [REMOVE] =
    g_signal_new ("remove",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtensionRow::toast:
   * @text: what happened, as plain text (not markup)
   *
   * Something to tell the user briefly, such as an action that failed.
   */
  signals [TOAST] =
    g_signal_new ("toast",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-extension-row.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, state_label);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, enable_switch);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, watch_switch);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, log_row);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, log_label);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, open_log_button);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, actions_row);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, restart_button);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, remove_button);
  gtk_widget_class_bind_template_child (widget_class, ZotExtensionRow, gave_up_button);
  gtk_widget_class_bind_template_callback (widget_class, on_enable_switch_active_cb);

  gtk_widget_class_install_action (widget_class, "extension.restart", NULL, restart_action);
  gtk_widget_class_install_action (widget_class, "extension.remove", NULL, remove_action);
  gtk_widget_class_install_action (widget_class, "extension.refresh-log", NULL, refresh_log_action);
  gtk_widget_class_install_action (widget_class, "extension.open-log", NULL, open_log_action);
}

static void
zot_extension_row_init (ZotExtensionRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  zot_accessible_fix_mnemonics (GTK_WIDGET (self));
  g_object_bind_property (self, "watched", self->watch_switch, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

  self->cancellable = g_cancellable_new ();
  self->details = g_ptr_array_new_with_free_func (g_object_unref);

  g_signal_connect (self, "notify::expanded", G_CALLBACK (on_expanded_cb), NULL);
}

/**
 * zot_extension_row_new:
 * @extension: the extension to show
 *
 * Returns: (transfer floating): a row that follows @extension's state
 */
GtkWidget *
zot_extension_row_new (ZotExtension *extension)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);

  return g_object_new (ZOT_TYPE_EXTENSION_ROW, "extension", extension, NULL);
}

ZotExtension *
zot_extension_row_get_extension (ZotExtensionRow *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_ROW (self), NULL);

  return self->extension;
}

/**
 * _zot_extension_row_dup_details:
 * @self: a #ZotExtensionRow
 *
 * Returns: (transfer full): the titles and subtitles of the rows under the
 *   header (folder, problems, commands, tools), one per line; a heading
 *   as "# Heading"
 */
char *
_zot_extension_row_dup_details (ZotExtensionRow *self)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_return_val_if_fail (ZOT_IS_EXTENSION_ROW (self), NULL);

  for (guint i = 0; i < self->details->len; i++)
    {
      GtkWidget *detail = g_ptr_array_index (self->details, i);

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

/**
 * zot_extension_row_set_gave_up_note:
 * @note: (nullable): the supervisor's note once it stopped restarting the
 *   extension (zot_extension_manager_get_gave_up_note()), or %NULL
 *
 * Shows the row as given up: the note among its problems and a Restart
 * button in its header.
 */
void
zot_extension_row_set_gave_up_note (ZotExtensionRow *self,
                                    const char      *note)
{
  g_return_if_fail (ZOT_IS_EXTENSION_ROW (self));

  if (g_strcmp0 (self->gave_up_note, note) == 0)
    return;
  g_free (self->gave_up_note);
  self->gave_up_note = g_strdup (note);
  update (self);
}
