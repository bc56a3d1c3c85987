/* zot-ext-new.c — writes the skeleton of a new extension from the
 * templates compiled in (data/ext-new/).
 *
 * A skeleton is written into a hidden folder beside its target and moved
 * into place in one rename, so that a failure (a full disk, a folder that
 * cannot be written) leaves nothing behind and a reader never sees half
 * of one. Files whose names end in ".in" are templates with @KEY@
 * placeholders; the others, the SDKs among them, are copied byte for byte.
 */
#define G_LOG_DOMAIN "zot-ext-new"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "zot-ext-new.h"
#include "zot-ext-new-resources.h"
#include "zot-json.h"
#include "zot-names.h"

#define RESOURCE_ROOT "/dev/zot/Zot/ext-new"
#define TEMPLATE_SUFFIX ".in"
/* Commands and binaries are named after the extension: short enough to
 * type, and the tool name built on it stays within the tool name limit. */
#define SLUG_MAX_CHARS 32

typedef struct
{
  const char *id;
  const char *title;     /* translatable */
  const char *sdk;       /* the README's paragraph on the SDK */
  const char *files;     /* the README's list of files */
  gboolean    builds;    /* the manifest has a "build" */
} Language;

static const Language languages[] = {
  { "go", N_("Go"),
    "It is written on zot's Go SDK (`zot.dev/sdk/go/ext`), copied into `sdk/`\n"
    "so that it builds offline: `go.mod` points at it with a `replace`.\n"
    "`sdk/README.md` documents the SDK.",
    "- `extension.json`: the manifest (`build` is what `--watch` runs)\n"
    "- `main.go`, `go.mod`: the program\n"
    "- `sdk/`: the SDK\n"
    "- `test.sh`: builds it and runs `zot ext check` on it",
    TRUE },
  { "python", N_("Python"),
    "It is written on zot's Python SDK, `zotext.py`, copied beside `main.py`\n"
    "(one file, standard library only).",
    "- `extension.json`: the manifest\n"
    "- `main.py`: the program\n"
    "- `zotext.py`: the SDK\n"
    "- `test.sh`: runs `zot ext check` on it",
    FALSE },
  { "node", N_("JavaScript (Node)"),
    "It is written on zot's Node SDK, `zotext.mjs`, copied beside `main.mjs`\n"
    "(one ES module, no dependencies).",
    "- `extension.json`: the manifest\n"
    "- `main.mjs`: the program\n"
    "- `zotext.mjs`: the SDK\n"
    "- `test.sh`: runs `zot ext check` on it",
    FALSE },
  { "ts", N_("TypeScript (Node)"),
    "It is written in TypeScript on zot's Node SDK, `zotext.mjs` (with its\n"
    "types, `zotext.d.ts` and `zotext.d.mts`), copied beside `main.mts`. Node\n"
    "runs the compiled `main.mjs`, which ships already compiled; after an edit,\n"
    "`tsc -p .` compiles it again (Debian: `apt install node-typescript`).",
    "- `extension.json`: the manifest (`build` is what `--watch` runs)\n"
    "- `main.mts`: the program; `main.mjs`: what `tsc -p .` makes of it\n"
    "- `tsconfig.json`, `node.d.ts`: for `tsc`\n"
    "- `zotext.mjs`, `zotext.d.ts`, `zotext.d.mts`: the SDK\n"
    "- `test.sh`: compiles it and runs `zot ext check` on it",
    TRUE },
  { "c", N_("C"),
    "It is written on zot's C SDK, libzot-ext, whose sources are copied into\n"
    "`sdk/` and built in by `build.sh`: it needs only a C compiler and the\n"
    "development files of GLib and json-glib.",
    "- `extension.json`: the manifest (`build` is what `--watch` runs)\n"
    "- `main.c`: the program; `build.sh` builds it\n"
    "- `sdk/`: the SDK\n"
    "- `test.sh`: builds it and runs `zot ext check` on it",
    TRUE },
  { "sh", N_("POSIX shell"),
    "It speaks the protocol itself, without an SDK: newline-delimited JSON on\n"
    "stdin and stdout, parsed with `sed` (zot's `docs/protocol.md`).",
    "- `extension.json`: the manifest\n"
    "- `main.sh`: the program\n"
    "- `test.sh`: runs `zot ext check` on it",
    FALSE },
};

static const char * const language_ids[] = { "go", "python", "node", "ts", "c", "sh", NULL };

G_STATIC_ASSERT (G_N_ELEMENTS (language_ids) == G_N_ELEMENTS (languages) + 1);

static const Language *
find_language (const char *id)
{
  for (guint i = 0; id != NULL && i < G_N_ELEMENTS (languages); i++)
    if (g_str_equal (languages[i].id, id))
      return &languages[i];
  return NULL;
}

/**
 * zot_ext_new_languages:
 *
 * Returns: (transfer none): the languages' ids, in the order they are offered
 */
const char * const *
zot_ext_new_languages (void)
{
  return language_ids;
}

/**
 * zot_ext_new_language_title:
 *
 * Returns: (nullable): the language's name for people, translated
 */
const char *
zot_ext_new_language_title (const char *language)
{
  const Language *found = find_language (language);

  return found != NULL ? _(found->title) : NULL;
}

/**
 * zot_ext_new_languages_text:
 *
 * Returns: (transfer full): "go, python, …, c or sh", for error messages
 */
char *
zot_ext_new_languages_text (void)
{
  g_autofree char *head = g_strjoinv (", ", (GStrv) (language_ids + 0));
  char *last = strrchr (head, ',');

  g_assert (last != NULL);
  *last = '\0';
  /* Translators: a list of choices: "go, python, node, ts, c" and "sh" */
  return g_strdup_printf (_("%s or %s"), head, last + 2);
}

/* The command and binary name: the extension name in lower-case ASCII
 * letters, digits and dashes, so that it is one word in every language's
 * source and on every file system. */
static char *
make_slug (const char *name)
{
  GString *slug = g_string_new (NULL);

  for (const char *p = name; *p != '\0' && slug->len < SLUG_MAX_CHARS; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (slug, g_ascii_tolower (*p));
      else if (slug->len > 0 && slug->str[slug->len - 1] != '-')
        g_string_append_c (slug, '-');
    }
  while (slug->len > 0 && slug->str[slug->len - 1] == '-')
    g_string_truncate (slug, slug->len - 1);
  if (slug->len == 0 || !g_ascii_isalpha (slug->str[0]))
    g_string_prepend (slug, "ext-");
  return g_string_free (slug, FALSE);
}

static char *
escape_string (const char *text,
               gboolean    shell)
{
  GString *escaped = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (escaped, '\\');
      /* Inside the single quotes of a shell word */
      if (shell && *p == '\'')
        {
          g_string_append (escaped, "'\\''");
          continue;
        }
      g_string_append_c (escaped, *p);
    }
  return g_string_free (escaped, FALSE);
}

static GHashTable *
make_substitutions (const char     *name,
                    const Language *language)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autofree char *slug = make_slug (name);
  g_autofree char *tool = g_strdup_printf ("%s_count", slug);
  const char *build_line = "";
  const char *test_build = NULL;
  const char *test_what = "Runs zot ext check on this extension";

  g_strdelimit (tool, "-", '_');
  if (g_str_equal (language->id, "go"))
    build_line = "go build -o @COMMAND@ .\n";
  else if (g_str_equal (language->id, "ts"))
    {
      build_line = "tsc -p .\n";
      /* main.mjs ships compiled: without tsc the test checks that one */
      test_build = "if command -v tsc >/dev/null; then tsc -p .; fi\n";
    }
  else if (g_str_equal (language->id, "c"))
    build_line = "sh build.sh\n";
  if (language->builds)
    test_what = "Builds this extension, then runs zot ext check on it";

  g_hash_table_insert (table, (gpointer) "NAME", g_strdup (name));
  g_hash_table_insert (table, (gpointer) "NAME_JSON", escape_string (name, FALSE));
  g_hash_table_insert (table, (gpointer) "NAME_SH", escape_string (name, TRUE));
  /* Substituted again after BUILD_LINE, which names it */
  g_hash_table_insert (table, (gpointer) "BUILD_LINE", g_strdup (build_line));
  g_hash_table_insert (table, (gpointer) "TEST_BUILD", g_strdup (test_build != NULL ? test_build : build_line));
  g_hash_table_insert (table, (gpointer) "COMMAND", g_steal_pointer (&slug));
  g_hash_table_insert (table, (gpointer) "TOOL", g_steal_pointer (&tool));
  g_hash_table_insert (table, (gpointer) "LANGUAGE", g_strdup (language->title));
  g_hash_table_insert (table, (gpointer) "SDK", g_strdup (language->sdk));
  g_hash_table_insert (table, (gpointer) "FILES", g_strdup (language->files));
  g_hash_table_insert (table, (gpointer) "TEST_WHAT", g_strdup (test_what));
  g_hash_table_insert (table, (gpointer) "WATCH_BUILD", g_strdup (language->builds ? ", rebuilt first," : ""));
  return table;
}

/* One pass over @text; a value may name a key again (BUILD_LINE names
 * COMMAND), so the caller runs two. An "@" that starts no known key is
 * text. */
static char *
substitute (const char *text,
            GHashTable *table)
{
  GString *out = g_string_new (NULL);
  const char *p = text;

  while (*p != '\0')
    {
      const char *at = strchr (p, '@');
      const char *end = at != NULL ? strchr (at + 1, '@') : NULL;
      g_autofree char *key = NULL;
      const char *value;

      if (end == NULL)
        {
          g_string_append (out, p);
          break;
        }
      key = g_strndup (at + 1, end - at - 1);
      value = g_hash_table_lookup (table, key);
      g_string_append_len (out, p, at - p);
      if (value == NULL)
        {
          g_string_append_c (out, '@');
          p = at + 1;
          continue;
        }
      g_string_append (out, value);
      p = end + 1;
    }
  return g_string_free (out, FALSE);
}

static gboolean
write_file (const char  *path,
            const char  *contents,
            gsize        length,
            GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!g_file_set_contents_full (path, contents, length, G_FILE_SET_CONTENTS_CONSISTENT,
                                 g_str_has_suffix (path, ".sh") ? 0755 : 0644, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   /* Translators: %s is why a file could not be written (from the system) */
                   _("cannot write the new extension: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Writes the resource folder @resource_dir (ending in "/") into @dir. */
static gboolean
write_tree (const char  *resource_dir,
            const char  *dir,
            GHashTable  *table,
            GError     **error)
{
  g_auto(GStrv) children = g_resource_enumerate_children (zot_ext_new_get_resource (), resource_dir,
                                                          G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    {
      const char *child = children[i];
      g_autofree char *resource = g_strconcat (resource_dir, child, NULL);
      g_autoptr(GBytes) bytes = NULL;
      g_autofree char *path = NULL;

      if (g_str_has_suffix (child, "/"))
        {
          g_autofree char *sub = g_strndup (child, strlen (child) - 1);

          path = g_build_filename (dir, sub, NULL);
          if (g_mkdir (path, 0755) != 0)
            {
              int saved = errno;

              g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                           _("cannot write the new extension: %s: %s"), path, g_strerror (saved));
              return FALSE;
            }
          if (!write_tree (resource, path, table, error))
            return FALSE;
          continue;
        }

      bytes = g_resource_lookup_data (zot_ext_new_get_resource (), resource, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
      if (bytes == NULL)
        return FALSE;
      if (g_str_has_suffix (child, TEMPLATE_SUFFIX))
        {
          g_autofree char *target = g_strndup (child, strlen (child) - strlen (TEMPLATE_SUFFIX));
          g_autofree char *once = substitute (g_bytes_get_data (bytes, NULL), table);
          g_autofree char *twice = substitute (once, table);

          path = g_build_filename (dir, target, NULL);
          if (!write_file (path, twice, strlen (twice), error))
            return FALSE;
        }
      else
        {
          gsize length;
          const char *data = g_bytes_get_data (bytes, &length);

          path = g_build_filename (dir, child, NULL);
          if (!write_file (path, data, length, error))
            return FALSE;
        }
    }
  return TRUE;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *entry;

  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, entry, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static gboolean
is_empty_directory (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);

  return dir != NULL && g_dir_read_name (dir) == NULL;
}

static gboolean
check_arguments (const char      *parent,
                 const char      *name,
                 const char      *language,
                 const Language **out_language,
                 char           **out_target,
                 GError         **error)
{
  g_autofree char *target = NULL;

  *out_language = find_language (language);
  if (*out_language == NULL)
    {
      g_autofree char *choices = zot_ext_new_languages_text ();

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is the language asked for, then the list of languages */
                   _("unknown language \"%s\"; use %s"), language, choices);
      return FALSE;
    }
  if (!zot_name_is_extension_name (name))
    {
      g_autofree char *shown = zot_name_excerpt (name);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is the name given */
                   _("\"%s\" is not an extension name; use one word or a few (letters, digits, "
                     "dashes), without / or \\ and not starting with -"), shown);
      return FALSE;
    }
  if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   /* Translators: %s is a folder */
                   _("%s is not a folder; create it first or choose another"), parent);
      return FALSE;
    }
  target = g_build_filename (parent, name, NULL);
  if (g_file_test (target, G_FILE_TEST_EXISTS) && !is_empty_directory (target))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   /* Translators: %s is a folder */
                   _("%s already exists and is not empty; choose another name or folder"), target);
      return FALSE;
    }
  *out_target = g_steal_pointer (&target);
  return TRUE;
}

/**
 * zot_ext_new_write:
 * @parent: the folder to write into
 * @name: the extension's name, and its folder's
 * @language: one of zot_ext_new_languages()
 *
 * Writes a new extension into @parent/@name, which must not exist or be
 * an empty folder. On an error nothing is left behind.
 *
 * Returns: (transfer full) (nullable): the new extension's folder
 */
char *
zot_ext_new_write (const char  *parent,
                   const char  *name,
                   const char  *language,
                   GError     **error)
{
  const Language *found = NULL;
  g_autofree char *target = NULL;
  g_autofree char *template = NULL;
  g_autofree char *staging = NULL;
  g_autofree char *resource_dir = NULL;
  g_autoptr(GHashTable) table = NULL;

  g_return_val_if_fail (parent != NULL && name != NULL && language != NULL, NULL);

  if (!check_arguments (parent, name, language, &found, &target, error))
    return NULL;

  template = g_strdup_printf (".%s.new-XXXXXX", name);
  staging = g_build_filename (parent, template, NULL);
  if (g_mkdtemp_full (staging, 0755) == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   /* Translators: %s is a folder, then why (from the system) */
                   _("cannot write the new extension into %s: %s"), parent, g_strerror (saved));
      return NULL;
    }

  table = make_substitutions (name, found);
  resource_dir = g_strdup_printf (RESOURCE_ROOT "/%s/", found->id);
  if (!write_tree (RESOURCE_ROOT "/common/", staging, table, error) ||
      !write_tree (resource_dir, staging, table, error))
    {
      remove_tree (staging);
      return NULL;
    }

  /* rename(2) replaces an empty folder, and refuses a full one that
   * appeared meanwhile. */
  if (g_rename (staging, target) != 0)
    {
      int saved = errno;

      remove_tree (staging);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("cannot write the new extension into %s: %s"), target, g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&target);
}

typedef struct
{
  char *parent;
  char *name;
  char *language;
} WriteData;

static void
write_data_free (WriteData *data)
{
  g_free (data->parent);
  g_free (data->name);
  g_free (data->language);
  g_free (data);
}

static void
write_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  WriteData *data = task_data;
  GError *error = NULL;
  char *target;

  if (g_task_return_error_if_cancelled (task))
    return;
  target = zot_ext_new_write (data->parent, data->name, data->language, &error);
  if (target == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, target, g_free);
}

/**
 * zot_ext_new_write_async:
 *
 * zot_ext_new_write() in a worker thread, for the window.
 */
void
zot_ext_new_write_async (const char          *parent,
                         const char          *name,
                         const char          *language,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  WriteData *data = g_new0 (WriteData, 1);

  data->parent = g_strdup (parent);
  data->name = g_strdup (name);
  data->language = g_strdup (language);
  g_task_set_source_tag (task, zot_ext_new_write_async);
  g_task_set_task_data (task, data, (GDestroyNotify) write_data_free);
  g_task_run_in_thread (task, write_thread);
}

char *
zot_ext_new_write_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static char *
quote_word (const char *word)
{
  for (const char *p = word; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("-_./=:+,", *p) == NULL)
      return g_shell_quote (word);
  return g_strdup (word);
}

/**
 * zot_ext_new_next_steps:
 * @directory: a folder zot_ext_new_write() wrote
 *
 * Returns: (transfer full): the commands to type next: into the folder,
 *   its manifest's build if it has one, then the checks and the run
 */
GStrv
zot_ext_new_next_steps (const char *directory,
                        const char *language)
{
  g_autoptr(GStrvBuilder) steps = g_strv_builder_new ();
  g_autofree char *manifest = g_build_filename (directory, "extension.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *quoted = quote_word (directory);
  g_autofree char *cd = g_strdup_printf ("cd %s", quoted);
  JsonArray *build = NULL;

  g_strv_builder_add (steps, cd);
  if (json_parser_load_from_file (parser, manifest, NULL) && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    build = zot_json_get_array (json_node_get_object (json_parser_get_root (parser)), "build");
  /* A TypeScript skeleton ships compiled: its build is for edits */
  if (build != NULL && g_strcmp0 (language, "ts") != 0)
    {
      g_autoptr(GString) line = g_string_new (NULL);

      for (guint i = 0; i < json_array_get_length (build); i++)
        {
          g_autofree char *word = quote_word (json_array_get_string_element (build, i));

          g_string_append_printf (line, "%s%s", i > 0 ? " " : "", word);
        }
      g_strv_builder_add (steps, line->str);
    }
  g_strv_builder_add (steps, "zot ext check .");
  g_strv_builder_add (steps, "zot --ext .");
  return g_strv_builder_end (steps);
}
