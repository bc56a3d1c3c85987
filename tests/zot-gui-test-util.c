/* zot-gui-test-util.c — what the window's tests share: finding widgets,
 * measuring them. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-extension-manager.h"
#include "zot-extension.h"
#include "zot-gui-test-util.h"
#include "zot-host.h"
#include "zot-test-util.h"

static gboolean
matches (GtkWidget  *widget,
         GType       type,
         const char *css_class)
{
  return (type == G_TYPE_NONE || G_TYPE_CHECK_INSTANCE_TYPE (widget, type)) &&
         (css_class == NULL || gtk_widget_has_css_class (widget, css_class));
}

static void
collect_widgets (GtkWidget  *widget,
                 GType       type,
                 const char *css_class,
                 GPtrArray  *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (matches (child, type, css_class))
        g_ptr_array_add (out, child);
      collect_widgets (child, type, css_class, out);
    }
}

GPtrArray *
zot_test_find_widgets (GtkWidget  *root,
                       GType       type,
                       const char *css_class)
{
  GPtrArray *out = g_ptr_array_new ();

  collect_widgets (root, type, css_class, out);
  return out;
}

GtkWidget *
zot_test_find_widget (GtkWidget  *root,
                      GType       type,
                      const char *css_class)
{
  if (matches (root, type, css_class))
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = zot_test_find_widget (child, type, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

void
zot_test_measure_narrowest (GtkWidget *widget)
{
  int min_width;
  int min_height;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, min_width, &min_height, NULL, NULL, NULL);
  g_assert_cmpint (min_height, >=, 0);
}

/* GTK 4.8 warns "Trying to snapshot <widget> without a current allocation"
 * when a widget is invalidated between a frame's layout and its paint (a
 * child whose content or visibility changed in that window); it skips that
 * widget and lays it out again on the next frame. Busy test machines widen
 * the window between the two phases, and the window's tests run with
 * fatal warnings, so this one GTK warning, and only this one, is printed
 * rather than made fatal. */
static gboolean
is_relayout_warning (const char *domain,
                     const char *message)
{
  return g_strcmp0 (domain, "Gtk") == 0 &&
         message != NULL &&
         g_str_has_prefix (message, "Trying to snapshot ") &&
         g_str_has_suffix (message, " without a current allocation");
}

static GLogWriterOutput
tolerant_writer (GLogLevelFlags   level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         user_data)
{
  const char *domain = NULL;
  const char *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
        domain = fields[i].value;
      else if (g_str_equal (fields[i].key, "MESSAGE"))
        message = fields[i].value;
    }

  if ((level & G_LOG_LEVEL_WARNING) && is_relayout_warning (domain, message))
    return g_log_writer_standard_streams (level, fields, n_fields, user_data);
  return g_log_writer_default (level, fields, n_fields, user_data);
}

void
zot_test_gui_tolerate_relayout_warning (void)
{
  /* GTK logs with the structured API, which reaches the writer. */
  g_log_set_writer_func (tolerant_writer, NULL, NULL);
}

static void
append_text (GtkWidget *widget,
             GString   *text)
{
  if (GTK_IS_LABEL (widget))
    {
      g_string_append (text, gtk_label_get_text (GTK_LABEL (widget)));
      g_string_append_c (text, '\n');
    }
  else if (GTK_IS_TEXT_VIEW (widget))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
      g_autofree char *contents = NULL;
      GtkTextIter start, end;

      gtk_text_buffer_get_bounds (buffer, &start, &end);
      contents = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
      g_string_append (text, contents);
      g_string_append_c (text, '\n');
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    append_text (child, text);
}

GtkWindow *
zot_test_find_window (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return GTK_WINDOW (window);
    }
  return NULL;
}

char *
zot_test_widget_text (GtkWidget *widget)
{
  GString *text = g_string_new (NULL);

  append_text (widget, text);
  return g_string_free (text, FALSE);
}

static guint32
png_crc (const guchar *data,
         gsize         len,
         guint32       crc)
{
  crc = ~crc;
  for (gsize i = 0; i < len; i++)
    {
      crc ^= data[i];
      for (guint k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
  return ~crc;
}

static void
png_chunk (GByteArray   *png,
           const char   *type,
           const guchar *data,
           gsize         len)
{
  guint32 be = GUINT32_TO_BE ((guint32) len);
  guint32 crc;

  g_byte_array_append (png, (const guchar *) &be, 4);
  g_byte_array_append (png, (const guchar *) type, 4);
  g_byte_array_append (png, data, len);
  crc = png_crc ((const guchar *) type, 4, 0);
  crc = png_crc (data, len, crc);
  be = GUINT32_TO_BE (crc);
  g_byte_array_append (png, (const guchar *) &be, 4);
}

/* A real, black, one-bit PNG of any size, a few kilobytes however large:
 * the 16000×16000 is 31 KB. */
GBytes *
zot_test_black_png (guint32 width,
           guint32 height)
{
  static const guchar signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autoptr(GByteArray) png = g_byte_array_new ();
  g_autoptr(GZlibCompressor) zlib = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_ZLIB, 9);
  g_autoptr(GBytes) raw = NULL;
  g_autoptr(GBytes) packed = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) converter = NULL;
  gsize row = 1 + (width + 7) / 8;
  guchar ihdr[13];
  guint32 be;

  raw = g_bytes_new_take (g_malloc0 (row * height), row * height);
  converter = g_converter_output_stream_new (out, G_CONVERTER (zlib));
  g_assert_true (g_output_stream_write_all (converter, g_bytes_get_data (raw, NULL),
                                            g_bytes_get_size (raw), NULL, NULL, NULL));
  g_assert_true (g_output_stream_close (converter, NULL, NULL));
  packed = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));

  be = GUINT32_TO_BE (width);
  memcpy (ihdr, &be, 4);
  be = GUINT32_TO_BE (height);
  memcpy (ihdr + 4, &be, 4);
  ihdr[8] = 1;   /* bit depth */
  ihdr[9] = 0;   /* grey */
  ihdr[10] = ihdr[11] = ihdr[12] = 0;

  g_byte_array_append (png, signature, sizeof signature);
  png_chunk (png, "IHDR", ihdr, sizeof ihdr);
  png_chunk (png, "IDAT", g_bytes_get_data (packed, NULL), g_bytes_get_size (packed));
  png_chunk (png, "IEND", NULL, 0);
  return g_byte_array_free_to_bytes (g_steal_pointer (&png));
}


/* The window tests' application: GApplication registers once per
 * program, so one serves every case. */
ZotApplication *
zot_test_application_new (void)
{
  ZotApplication *application = zot_application_new ();

  g_application_set_flags (G_APPLICATION (application),
                           G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (application), NULL, NULL));
  return application;
}

static gboolean
window_ready (gpointer data)
{
  ZotWindow *window = data;

  return zot_window_get_host (window) != NULL && gtk_widget_get_mapped (GTK_WIDGET (window));
}

ZotWindow *
zot_test_open_window (ZotApplication       *application,
                      ZotHostOptions       *options,
                      int                   width,
                      int                   height)
{
  ZotWindow *window = ZOT_WINDOW (zot_window_new (application, options, TRUE));

  if (width > 0)
    gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  zot_test_wait_until (window_ready, window, 20000);
  return window;
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

void
zot_test_close_window (ZotWindow **window)
{
  gpointer weak = *window;

  if (weak == NULL)
    return;
  g_object_add_weak_pointer (weak, &weak);
  gtk_window_close (GTK_WINDOW (*window));
  zot_test_wait_until (window_gone, &weak, 20000);
  *window = NULL;
}

gboolean
zot_test_extensions_ready (gpointer data)
{
  ZotHost *host = zot_window_get_host (data);
  ZotExtensionManager *manager;
  guint n;

  if (host == NULL)
    return FALSE;
  manager = zot_host_get_manager (host);
  n = g_list_model_get_n_items (G_LIST_MODEL (manager));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        return FALSE;
    }
  return n > 0;
}

ZotTranscript *
zot_test_show_transcript (ZotHost    *host,
                          GtkWidget **window)
{
  ZotTranscript *transcript = ZOT_TRANSCRIPT (zot_transcript_new ());

  zot_transcript_set_host (transcript, host);
  *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (*window), 720, 480);
  gtk_window_set_child (GTK_WINDOW (*window), GTK_WIDGET (transcript));
  gtk_window_present (GTK_WINDOW (*window));
  zot_test_load_host (host);
  zot_host_begin_session (host);
  return transcript;
}

void
zot_test_close_transcript (GtkWidget **window,
                           ZotHost   **host)
{
  g_clear_pointer ((GtkWindow **) window, gtk_window_destroy);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  zot_test_finalize_host (host);
}

typedef struct
{
  char     *text;
  gboolean  done;
} ClipboardRead;

static void
clipboard_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ClipboardRead *read = user_data;

  read->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (object), result, NULL);
  read->done = TRUE;
}

char *
zot_test_clipboard_text (GtkWidget *widget)
{
  ClipboardRead read = { NULL, FALSE };

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (widget), NULL, clipboard_read_cb, &read);
  zot_test_wait_for (&read.done, 20000);
  return read.text;
}

ZotApplication *
zot_test_gui_init (int    *argc,
                   char ***argv)
{
  gtk_test_init (argc, argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  return zot_test_application_new ();
}

void
zot_test_gui_env_setup (ZotTestEnv *env)
{
  zot_test_env_setup (env);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("GEMINI_API_KEY");
}

GtkShortcutAction *
zot_test_find_shortcut (GtkWidget  *widget,
                        const char *accelerator)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  guint keyval = 0;
  GdkModifierType modifiers = 0;

  g_assert_true (gtk_accelerator_parse (accelerator, &keyval, &modifiers));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          g_autofree char *trigger = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));
          g_auto(GStrv) alternatives = g_strsplit (trigger, "|", -1);

          for (guint k = 0; alternatives[k] != NULL; k++)
            {
              guint key = 0;
              GdkModifierType mods = 0;

              /* The controller keeps the shortcut, and so its action. */
              if (gtk_accelerator_parse (alternatives[k], &key, &mods) && key == keyval && mods == modifiers)
                return gtk_shortcut_get_action (shortcut);
            }
        }
    }
  return NULL;
}
