#define G_LOG_DOMAIN "zot-codemode"

#include "config.h"

#include <string.h>

#include "zot-codemode-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-source.h"
#include "zot-message.h"

/* The runtime checks images against half a frame: the same number. */
G_STATIC_ASSERT (ZOT_CODEMODE_IMAGE_MAX_BYTES == ZOT_FRAME_MAX_BYTES / 2);

/* Bytes of an image's head the host decodes: a PNG's IHDR ends there. */
#define IMAGE_HEAD_BYTES 24

typedef ZotCodemodeScript Script;

/* Output, head and tail kept */

/* The longest prefix of @text of at most @max bytes that ends on a
 * character boundary. */
static gsize
utf8_prefix (const char *text,
             gsize       length,
             gsize       max)
{
  const char *end;

  if (length <= max)
    return length;
  end = text + max;
  while (end > text && (((guchar) *end) & 0xC0) == 0x80)
    end--;
  return end - text;
}

void
zot_codemode_script_append_output (Script     *script,
                                   const char *text,
                                   gsize       length)
{
  gsize half = script->output_max / 2;
  gsize take = 0;

  script->output_total += length;
  if (!script->spill_cut)
    {
      gsize keep = utf8_prefix (text, length, ZOT_CODEMODE_SPILL_MAX_BYTES - script->spill->len);

      g_string_append_len (script->spill, text, keep);
      script->spill_cut = keep < length;
    }
  if (script->head->len < half)
    {
      take = utf8_prefix (text, length, half - script->head->len);
      g_string_append_len (script->head, text, take);
    }
  if (take == length)
    return;

  g_string_append_len (script->tail, text + take, length - take);
  /* Trimmed now and then, to the last half: cheap for a flood. */
  if (script->tail->len > script->output_max + half)
    {
      gsize cut = script->tail->len - half;

      while (cut < script->tail->len && (((guchar) script->tail->str[cut]) & 0xC0) == 0x80)
        cut++;
      g_string_erase (script->tail, 0, cut);
    }
}

static char *
format_output (Script *script)
{
  gsize kept = script->head->len + script->tail->len;
  GString *text = g_string_new (script->head->str);
  gsize start;
  gsize half = script->output_max / 2;

  if (script->output_total <= script->output_max && kept == script->output_total)
    {
      g_string_append_len (text, script->tail->str, script->tail->len);
      return g_string_free (text, FALSE);
    }

  start = script->tail->len > half ? script->tail->len - half : 0;
  while (start < script->tail->len && (((guchar) script->tail->str[start]) & 0xC0) == 0x80)
    start++;
  g_string_append_printf (text, "\n… [%" G_GSIZE_FORMAT " bytes of output omitted] …\n",
                          script->output_total - script->head->len - (script->tail->len - start));
  g_string_append_len (text, script->tail->str + start, script->tail->len - start);
  return g_string_free (text, FALSE);
}

/**
 * zot_codemode_script_result_text:
 * @spill_path: (nullable): the file that holds the whole output
 *
 * Returns: (transfer full): the result's text: the summary line, then a
 *   blank line and the output, head and tail kept, then where the whole
 *   output is
 */
char *
zot_codemode_script_result_text (Script     *script,
                                 const char *spill_path)
{
  g_autofree char *output = format_output (script);
  GString *text = g_string_new (script->summary);

  if (*output != '\0')
    {
      g_string_append (text, "\n\n");
      g_string_append (text, output);
      while (text->len > 0 && text->str[text->len - 1] == '\n')
        g_string_truncate (text, text->len - 1);
    }
  if (spill_path != NULL && !script->spill_cut)
    g_string_append_printf (text, "\n[The whole output, %" G_GSIZE_FORMAT " bytes, is in %s]",
                            script->output_total, spill_path);
  else if (spill_path != NULL)
    g_string_append_printf (text, "\n[The first %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                            " bytes of output are in %s]", script->spill->len, script->output_total, spill_path);
  return g_string_free (text, FALSE);
}

typedef struct
{
  Script             *script;
  ZotCodemodeSpilled  done;
  char               *path;
  GCancellable       *cancellable;
  GSource            *deadline;
} Spill;

static gboolean
spill_deadline_cb (gpointer user_data)
{
  Spill *spill = user_data;

  g_clear_pointer (&spill->deadline, g_source_unref);
  g_cancellable_cancel (spill->cancellable);
  return G_SOURCE_REMOVE;
}

static void
spill_written_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Spill *spill = user_data;
  g_autoptr(GError) error = NULL;
  gboolean written = g_file_replace_contents_finish (G_FILE (object), result, NULL, &error);

  if (!written)
    g_debug ("the script's output was not kept in %s: %s", spill->path, error->message);
  zot_clear_source (&spill->deadline);
  spill->done (spill->script, written ? spill->path : NULL);
  g_clear_object (&spill->cancellable);
  g_free (spill->path);
  g_free (spill);
}

/**
 * zot_codemode_script_spill:
 * @done: called once with the file's path, or %NULL when it could not be
 *   written (within the write deadline)
 *
 * Writes the output kept so far to a new file in a new directory of the
 * temporary directory, both readable by this user only. The files stay,
 * as upstream's do: the model may read them later.
 */
void
zot_codemode_script_spill (Script             *script,
                           ZotCodemodeSpilled  done)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("zot-codemode-XXXXXX", &error);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GBytes) bytes = NULL;
  Spill *spill;

  if (dir == NULL)
    {
      g_debug ("the script's output was not kept: %s", error->message);
      done (script, NULL);
      return;
    }

  spill = g_new0 (Spill, 1);
  spill->script = script;
  spill->done = done;
  spill->path = g_build_filename (dir, "output.txt", NULL);
  spill->cancellable = g_cancellable_new ();
  spill->deadline = g_timeout_source_new (zot_timeout_get_ms (ZOT_TIMEOUT_WRITE));
  g_source_set_callback (spill->deadline, spill_deadline_cb, spill, NULL);
  g_source_set_static_name (spill->deadline, "[zot] codemode output file");
  g_source_attach (spill->deadline, g_main_context_get_thread_default ());

  file = g_file_new_for_path (spill->path);
  bytes = g_bytes_new (script->spill->str, script->spill->len);
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_PRIVATE,
                                       spill->cancellable, spill_written_cb, spill);
}

/* Images, checked again here: the runtime's checks are the script's
 * own side of the pipe and prove nothing about what arrives. */

static gboolean
is_base64 (const char *data,
           gsize       length)
{
  gsize padding = 0;

  if (length == 0 || length % 4 != 0)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (c == '=')
        {
          /* Only as the last one or two characters. */
          if (i < length - 2)
            return FALSE;
          padding++;
        }
      else if (padding > 0 || !(g_ascii_isalnum (c) || c == '+' || c == '/'))
        return FALSE;
    }
  return TRUE;
}

static guint32
read_be32 (const guint8 *bytes)
{
  return ((guint32) bytes[0] << 24) | ((guint32) bytes[1] << 16) | ((guint32) bytes[2] << 8) | bytes[3];
}

/**
 * zot_codemode_check_image:
 * @mime_type: (nullable): the frame's "mime_type"
 * @data: (nullable): the frame's "data", base64
 *
 * Checks an image frame from the runtime: a type providers take, at most
 * %ZOT_CODEMODE_IMAGE_MAX_BYTES of strict base64, and a head that is an
 * image of that type (for a PNG, a header with its size in pixels).
 *
 * Returns: (transfer full) (nullable): %NULL when it may be shown, else
 *   why not, for the model
 */
char *
zot_codemode_check_image (const char *mime_type,
                          const char *data)
{
  const char *types[] = { "image/png", "image/jpeg", "image/gif", "image/webp", NULL };
  char head_text[(IMAGE_HEAD_BYTES / 3) * 4 + 1];
  guint8 head[IMAGE_HEAD_BYTES + 3];
  gsize length;
  gsize decoded;
  gint state = 0;
  guint save = 0;
  const char *sniffed;

  if (mime_type == NULL || data == NULL)
    return g_strdup ("an image needs a mime_type and base64 data");
  if (!g_strv_contains (types, mime_type))
    return g_strdup_printf ("%.64s is not PNG, JPEG, GIF or WebP", mime_type);
  length = strlen (data);
  if (length > ZOT_CODEMODE_IMAGE_MAX_BYTES)
    return g_strdup_printf ("the image is %" G_GSIZE_FORMAT " bytes of base64; at most %" G_GSIZE_FORMAT
                            " are shown", length, ZOT_CODEMODE_IMAGE_MAX_BYTES);
  if (!is_base64 (data, length))
    return g_strdup ("the image's data is not valid base64 (A-Z, a-z, 0-9, + and /, padded with = "
                     "to a multiple of 4 characters)");

  g_strlcpy (head_text, data, sizeof head_text);
  decoded = g_base64_decode_step (head_text, strlen (head_text), head, &state, &save);
  sniffed = zot_image_sniff_mime_type (head, decoded);
  if (g_strcmp0 (sniffed, mime_type) != 0)
    return g_strdup_printf ("the image's data is not %s%s%s", mime_type,
                            sniffed != NULL ? "; it is " : "", sniffed != NULL ? sniffed : "");
  if (g_str_equal (mime_type, "image/png") &&
      (decoded < IMAGE_HEAD_BYTES || memcmp (head + 12, "IHDR", 4) != 0 ||
       read_be32 (head + 16) == 0 || read_be32 (head + 20) == 0))
    return g_strdup ("the PNG image has no valid header (IHDR with its width and height)");
  return NULL;
}

/* Kept for the result, or left out with a note saying why. */
void
zot_codemode_script_add_image (Script     *script,
                               JsonObject *frame)
{
  const char *mime_type = zot_json_get_string (frame, "mime_type");
  const char *data = zot_json_get_string (frame, "data");
  g_autofree char *problem = zot_codemode_check_image (mime_type, data);
  JsonObject *block;

  if (problem != NULL)
    {
      g_autofree char *note = g_strdup_printf ("[image left out: %s]\n", problem);

      zot_codemode_script_append_output (script, note, strlen (note));
      return;
    }
  if (json_array_get_length (script->images) >= ZOT_CODEMODE_MAX_IMAGES)
    {
      script->dropped_images++;
      return;
    }

  block = json_object_new ();
  json_object_set_string_member (block, "type", "image");
  json_object_set_string_member (block, "mime_type", mime_type);
  json_object_set_string_member (block, "data", data);
  json_array_add_object_element (script->images, block);
}
