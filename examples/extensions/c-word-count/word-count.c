/* word-count.c — a zot extension in C on libzot-ext-1: one tool,
 * word_count, that counts the words, lines and characters of a `text`
 * argument, or of a file `path` that the host reads for it (its built-in
 * `read` tool, called as a nested call of the model's call).
 *
 * Build by hand:
 *   cc -o word-count word-count.c $(pkg-config --cflags --libs zot-ext-1)
 */
#include <string.h>

#include <zot-ext.h>

#define SCHEMA \
  "{\"type\":\"object\",\"properties\":{" \
  "\"text\":{\"type\":\"string\",\"description\":\"The text to count\"}," \
  "\"path\":{\"type\":\"string\",\"description\":\"A file to count instead, read by the host\"}}}"

#define OUTPUT_SCHEMA \
  "{\"type\":\"object\",\"properties\":{" \
  "\"words\":{\"type\":\"integer\"},\"lines\":{\"type\":\"integer\"}," \
  "\"characters\":{\"type\":\"integer\"},\"complete\":{\"type\":\"boolean\"}}}"

/* What `read` puts after a partial window of a file; the counts are then
 * of the lines it returned. */
#define READ_NOTE_PREFIX "\n\n[Showing lines "
#define READ_LINE_NOTE_PREFIX "\n\n[Line "

typedef struct
{
  gint64 words;
  gint64 lines;
  gint64 characters;
} Counts;

/* Words are runs of anything but white space; a last line without a
 * newline counts, as an editor would show it. */
static void
count_text (const char *text,
            Counts     *counts)
{
  gboolean in_word = FALSE;
  const char *p;

  memset (counts, 0, sizeof *counts);
  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      counts->characters++;
      if (c == '\n')
        counts->lines++;
      if (g_unichar_isspace (c))
        in_word = FALSE;
      else if (!in_word)
        {
          in_word = TRUE;
          counts->words++;
        }
    }
  if (p != text && p[-1] != '\n')
    counts->lines++;
}

static const char *
plural (gint64 n)
{
  return n == 1 ? "" : "s";
}

static void
return_counts (ZotExtInvocation *inv,
               const char       *what,
               const char       *text,
               gboolean          complete)
{
  g_autofree char *summary = NULL;
  g_autofree char *structured = NULL;
  Counts counts;

  count_text (text, &counts);
  summary = g_strdup_printf ("%s: %" G_GINT64_FORMAT " word%s, %" G_GINT64_FORMAT " line%s, %"
                             G_GINT64_FORMAT " character%s%s",
                             what, counts.words, plural (counts.words), counts.lines, plural (counts.lines),
                             counts.characters, plural (counts.characters),
                             complete ? "" : " (in the part of the file that read returned)");
  structured = g_strdup_printf ("{\"words\":%" G_GINT64_FORMAT ",\"lines\":%" G_GINT64_FORMAT
                                ",\"characters\":%" G_GINT64_FORMAT ",\"complete\":%s}",
                                counts.words, counts.lines, counts.characters,
                                complete ? "true" : "false");
  zot_ext_invocation_return_structured (inv, summary, structured);
}

/* `read` answers "[PATH is empty.]" for an empty file, and ends a partial
 * window with a note: neither is the file's text. */
static void
read_done (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  ZotExtInvocation *inv = ZOT_EXT_INVOCATION (source);
  g_autofree char *path = data;
  g_autoptr(ZotExtToolResult) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean complete = TRUE;
  char *note;

  reply = zot_ext_invocation_call_tool_finish (inv, result, &error);
  if (reply == NULL)
    {
      /* Cancelled with the model's call: nothing may be answered. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        zot_ext_invocation_return_error_printf (inv, "cannot count %s: %s", path, error->message);
      return;
    }
  text = zot_ext_tool_result_get_text (reply);
  if (zot_ext_tool_result_get_is_error (reply))
    {
      zot_ext_invocation_return_error_printf (inv, "cannot count %s: %s", path, text);
      return;
    }
  if (g_str_has_prefix (text, "[") && g_str_has_suffix (text, " is empty.]") && strchr (text, '\n') == NULL)
    text[0] = '\0';
  note = g_strrstr (text, READ_NOTE_PREFIX);
  if (note == NULL)
    note = g_strrstr (text, READ_LINE_NOTE_PREFIX);
  if (note != NULL && g_str_has_suffix (note, "]"))
    {
      note[1] = '\0';  /* keep the newline that ended the last line */
      complete = FALSE;
    }
  if (zot_ext_tool_result_get_truncated (reply))
    complete = FALSE;
  return_counts (inv, path, text, complete);
}

static gboolean
on_word_count (ZotExtExtension  *ext,
               ZotExtInvocation *inv,
               gpointer          data)
{
  const char *text = zot_ext_invocation_get_string_arg (inv, "text");
  const char *path = zot_ext_invocation_get_string_arg (inv, "path");
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) args = NULL;
  g_autofree char *args_json = NULL;

  if ((text == NULL) == (path == NULL || *path == '\0'))
    {
      zot_ext_invocation_return_error (inv, "word_count needs either a \"text\" string or a "
                                            "non-empty \"path\" string, not both");
      return TRUE;
    }
  if (text != NULL)
    {
      return_counts (inv, "text", text, TRUE);
      return TRUE;
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, path);
  json_builder_end_object (builder);
  args = json_builder_get_root (builder);
  args_json = json_to_string (args, FALSE);
  /* A nested call: the host puts it through the same approval as the model's own,
   * and cancels it with the model's call. */
  zot_ext_invocation_call_tool_async (inv, "read", args_json, NULL, NULL, read_done, g_strdup (path));
  return TRUE;
}

int
main (void)
{
  g_autoptr(ZotExtExtension) ext = zot_ext_extension_new ("c-word-count", "1.0.0");
  g_autoptr(GError) error = NULL;

  if (!zot_ext_extension_add_tool_full (ext, "word_count",
                                        "Count the words, lines and characters of a text, or of a "
                                        "file (read with the host's read tool)",
                                        SCHEMA, OUTPUT_SCHEMA, NULL, NULL, NULL,
                                        ZOT_EXT_EXPOSURE_DEFAULT, ZOT_EXT_TOOL_NONE, &error))
    {
      g_printerr ("c-word-count: %s\n", error->message);
      return 1;
    }
  g_signal_connect (ext, "tool-call::word_count", G_CALLBACK (on_word_count), NULL);
  return zot_ext_extension_run (ext);
}
