#define G_LOG_DOMAIN "zot-skills"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-paths.h"
#include "zot-skills.h"

/* Discovery only needs the front matter and the first paragraph: reading
 * this much of each SKILL.md keeps it cheap whatever the file's size. */
#define SKILL_HEADER_MAX_BYTES ((gsize) 16 * 1024)
/* One line per skill goes into every system prompt; keep each short. */
#define SKILL_DESCRIPTION_MAX_BYTES 400

typedef struct
{
  const char *key;
  const char *text;
} BuiltinSkill;

/* Built-in skills, compiled in so they exist wherever the binary runs.
 * Keep "zot-extensions" in step with spec/PROTOCOL.md, with `zot ext new`'s
 * skeletons (data/ext-new/) and with the SDKs' READMEs: test-ext-new runs
 * its steps. */
static const BuiltinSkill builtin_skills[] = {
  {
    "zot-extensions",
    "---\n"
    "name: zot-extensions\n"
    "description: How to write a zot extension (a program speaking JSON lines on stdin/stdout) "
    "that adds slash commands, tools and status notes: start with `zot ext new` in Go, Python, "
    "Node, TypeScript, C or sh, write it on that language's SDK, and test it with `zot ext check`\n"
    "---\n"
    "# Writing a zot extension\n"
    "\n"
    "An extension is any program zot starts as a subprocess. They talk in JSON, one object\n"
    "per line, UTF-8, each line ended by a single \"\\n\": zot writes frames to the\n"
    "extension's stdin, the extension writes frames to its stdout and flushes after each.\n"
    "stdout carries frames only; stderr is free text that zot appends to\n"
    "$ZOT_HOME/logs/ext-<name>.log. Every frame has a string \"type\". Ignore frame types\n"
    "and fields you do not know. A frame may be at most 4 MiB. zot's SDKs do all of this\n"
    "for you; start from one.\n"
    "\n"
    "## Steps\n"
    "\n"
    "Ask which language the user wants (`go`, `python`, `node`, `ts`, `c` or `sh`; `python`\n"
    "when they do not mind), pick a NAME (letters, digits, dashes) and a folder DIR (`.`\n"
    "unless they say), then run these with the `bash` tool, one after the other:\n"
    "\n"
    "```sh\n"
    "zot ext new NAME --lang LANG --dir DIR\n"
    "cd DIR/NAME && sh test.sh\n"
    "```\n"
    "\n"
    "`zot ext new` writes DIR/NAME: `extension.json`, a program with one tool and one slash\n"
    "command on the language's SDK (copied in, so the folder stands alone), a README and\n"
    "`test.sh`, which builds the extension if the language needs it and runs `zot ext\n"
    "check .` on it. `zot ext check` plays the host without a model: the handshake, every\n"
    "tool and command, cancels, an event and the shutdown, and names each protocol rule\n"
    "broken (`violation: …`). Its last line says `clean` and it exits 0 only when nothing\n"
    "is wrong. Then change the program into what the user asked for, keeping the\n"
    "structure, and run `sh test.sh` again until it is clean. Last, tell the user to run\n"
    "`zot --ext DIR/NAME` (or `zot ext install DIR/NAME`); `zot --ext DIR/NAME --watch`\n"
    "restarts it on every change. Never leave an extension that `zot ext check` fails.\n"
    "\n"
    "## The SDKs\n"
    "\n"
    "Each skeleton's `main.*` shows its SDK in use. The whole API: `sdk/README.md` in the\n"
    "Go skeleton, the docstrings of `zotext.py`, the types in `zotext.d.ts`, the headers\n"
    "`sdk/zot-ext-*.h` in C. The same tool and command in each:\n"
    "\n"
    "Python (`zotext.py`, standard library only, `exec` `python3`, `args` `[\"main.py\"]`):\n"
    "\n"
    "```python\n"
    "import zotext\n"
    "ext = zotext.Extension(\"counter\", \"0.1.0\")\n"
    "\n"
    "@ext.tool(\"count_words\", \"Count the words of a text\",\n"
    "          {\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}}, \"required\": [\"text\"]})\n"
    "def count_words(args):\n"
    "    return zotext.text_result(\"%d words\" % len(args.get(\"text\", \"\").split()))\n"
    "\n"
    "@ext.command(\"count\", \"Count the words of a text: /count TEXT\")\n"
    "def count(args):\n"
    "    return zotext.display(\"%d words\" % len(args.split()))\n"
    "\n"
    "ext.run()\n"
    "```\n"
    "\n"
    "Go (`zot.dev/sdk/go/ext`; `go.mod` has `replace zot.dev/sdk/go/ext => ./sdk`; the\n"
    "manifest's `build` is `[\"go\", \"build\", \"-o\", \"NAME\", \".\"]` and `exec` is `./NAME`):\n"
    "\n"
    "```go\n"
    "e := ext.New(\"counter\", \"0.1.0\")\n"
    "e.Tool(\"count_words\", \"Count the words of a text\",\n"
    "\tjson.RawMessage(`{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}`),\n"
    "\tfunc(args json.RawMessage) ext.ToolResult {\n"
    "\t\tvar in struct{ Text string `json:\"text\"` }\n"
    "\t\tjson.Unmarshal(args, &in)\n"
    "\t\treturn ext.TextResult(fmt.Sprintf(\"%d words\", len(strings.Fields(in.Text))))\n"
    "\t})\n"
    "e.Command(\"count\", \"Count the words of a text: /count TEXT\", func(args string) ext.Response {\n"
    "\treturn ext.Display(fmt.Sprintf(\"%d words\", len(strings.Fields(args))))\n"
    "})\n"
    "e.Run()\n"
    "```\n"
    "\n"
    "Node (`zotext.mjs`, no dependencies, `exec` `node`, `args` `[\"main.mjs\"]`); for\n"
    "TypeScript edit `main.mts` with the same calls and compile it with `tsc -p .` (Node\n"
    "runs the compiled `main.mjs`):\n"
    "\n"
    "```js\n"
    "import { Extension, display, textResult } from './zotext.mjs';\n"
    "const ext = new Extension('counter', '0.1.0');\n"
    "ext.tool('count_words', 'Count the words of a text',\n"
    "  { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },\n"
    "  async ({ text }) => textResult(`${String(text).split(/\\s+/).filter(Boolean).length} words`));\n"
    "ext.command('count', 'Count the words of a text: /count TEXT',\n"
    "  async (args) => display(`${args.split(/\\s+/).filter(Boolean).length} words`));\n"
    "ext.run();\n"
    "```\n"
    "\n"
    "C (libzot-ext's sources in `sdk/`, built by `sh build.sh`, the manifest's `build`):\n"
    "`zot_ext_extension_add_tool (ext, \"count_words\", \"…\", schema_json, ZOT_EXT_TOOL_NONE,\n"
    "NULL)`, `zot_ext_extension_add_command (ext, \"count\", \"…\", NULL)`, then handlers on the\n"
    "signals `tool-call::count_words` (answer with `zot_ext_invocation_return_text`) and\n"
    "`command::count` (`zot_ext_command_invocation_return_display`), and\n"
    "`return zot_ext_extension_run (ext);`.\n"
    "\n"
    "sh has no SDK: `main.sh` speaks the frames below itself with `printf` and `sed`.\n"
    "\n"
    "Tool results are for the model; slash command answers are for the user. A handler\n"
    "that fails returns an error result (`text_error_result`, `ext.TextErrorResult`,\n"
    "`textErrorResult`) rather than crashing: the host reports a crash as a failed call.\n"
    "\n"
    "## The protocol, for reference\n"
    "\n"
    "### Layout\n"
    "\n"
    "One directory per extension, holding `extension.json`:\n"
    "\n"
    "```json\n"
    "{\n"
    "  \"name\": \"hello\",\n"
    "  \"exec\": \"python3\",\n"
    "  \"args\": [\"main.py\"],\n"
    "  \"version\": \"1.0.0\",\n"
    "  \"description\": \"Says hello\",\n"
    "  \"language\": \"python\"\n"
    "}\n"
    "```\n"
    "\n"
    "- `name` and `exec` are required; `enabled: false` keeps it listed but not started.\n"
    "- `exec`: an absolute path is used as is; a path containing `/` is relative to the\n"
    "  extension directory; a bare name (`python3`, `node`) is looked up in `$PATH`.\n"
    "- The process runs with the extension directory as its working directory; keep any\n"
    "  state there.\n"
    "\n"
    "Try it with `zot --ext ./hello`; install it with `zot ext install ./hello` (into\n"
    "`$ZOT_HOME/extensions/hello/`, or `<cwd>/.zot/extensions/` with `--project`). Follow\n"
    "its stderr with `zot ext logs hello -f` and reload after edits with `/reload-ext`.\n"
    "\n"
    "### Handshake\n"
    "\n"
    "1. Within 10 s of starting, send `hello` as the first frame:\n"
    "   `{\"type\":\"hello\",\"name\":\"hello\",\"version\":\"1.0.0\",\"capabilities\":[\"commands\"]}`\n"
    "   (capabilities are exact strings: `commands`, `tools`, `panels`, `tool_cancel`,\n"
    "   `call_tool`).\n"
    "2. zot answers `{\"type\":\"hello_ack\",\"protocol_version\":1,\"zot_version\":…,\n"
    "   \"provider\":…,\"model\":…,\"cwd\":…,\"extension_dir\":…,\"data_dir\":…,\"capabilities\":[…]}`.\n"
    "3. Register what you offer (`register_command`, `register_tool`, `subscribe`), then\n"
    "   send `{\"type\":\"ready\"}`. Without `ready`, zot waits for 250 ms without a frame,\n"
    "   at most 3 s.\n"
    "\n"
    "### Slash commands\n"
    "\n"
    "Register: `{\"type\":\"register_command\",\"name\":\"hello\",\"description\":\"Say hello\"}`\n"
    "\n"
    "When the user types `/hello world`, zot sends\n"
    "`{\"type\":\"command_invoked\",\"id\":\"c1\",\"name\":\"hello\",\"args\":\"world\"}`\n"
    "(`args` is everything after the name, trimmed; `name` is the spelling you registered,\n"
    "matching is case-insensitive). Answer within 30 s with the same `id`:\n"
    "`{\"type\":\"command_response\",\"id\":\"c1\",\"action\":\"display\",\"display\":\"Hello, world!\"}`\n"
    "\n"
    "| action | effect |\n"
    "|---|---|\n"
    "| `display` | show the `display` text as a note; no model call, not in the transcript |\n"
    "| `insert` | put the `insert` text into the prompt editor without sending it |\n"
    "| `prompt` | send the `prompt` text as a user message; the agent runs a turn |\n"
    "| `noop` | nothing (the extension did its own thing) |\n"
    "| `open_panel` | open a panel: `open_panel: {id, title, lines, footer}` (window only) |\n"
    "\n"
    "A non-empty `error` field is shown as an error line whatever the action. Built-in\n"
    "commands win name conflicts, then the extension earlier in load order.\n"
    "\n"
    "### Notes\n"
    "\n"
    "`{\"type\":\"notify\",\"level\":\"info\",\"message\":\"Indexed 42 files\"}` shows a status note\n"
    "attributed to the extension (`level`: `info`, `success`, `warn`, `error`). Notes are\n"
    "never sent to the model. `{\"type\":\"clear_notes\"}` removes the extension's notes.\n"
    "\n"
    "### Tools (optional)\n"
    "\n"
    "Add `tools` to the capabilities and register\n"
    "`{\"type\":\"register_tool\",\"name\":\"weather\",\"description\":\"…\",\"schema\":{\"type\":\"object\"}}`\n"
    "(`schema` must be a JSON object). Calls arrive as\n"
    "`{\"type\":\"tool_call\",\"id\":\"invocation-1\",\"name\":\"weather\",\"args\":{…}}`; answer within\n"
    "60 s with `{\"type\":\"tool_result\",\"id\":\"invocation-1\",\"content\":[{\"type\":\"text\",\"text\":\"…\"}],\n"
    "\"is_error\":false}`. Built-in tools (`read`, `write`, `edit`, `bash`, `skill`) win\n"
    "name conflicts.\n"
    "\n"
    "### Shutdown\n"
    "\n"
    "On `{\"type\":\"shutdown\"}` answer `{\"type\":\"shutdown_ack\"}` and exit; zot sends SIGTERM\n"
    "after 2 s and SIGKILL 1 s later. Also exit when stdin reaches end of file.\n"
  },
};

G_DEFINE_BOXED_TYPE (ZotSkill, zot_skill, zot_skill_copy, zot_skill_free)

static ZotSkill *
skill_new (const char *name,
           const char *description,
           const char *path,
           const char *directory,
           const char *source)
{
  ZotSkill *skill = g_new0 (ZotSkill, 1);

  skill->name = g_strdup (name);
  skill->description = g_strdup (description != NULL ? description : "");
  skill->path = g_strdup (path);
  skill->directory = g_strdup (directory);
  skill->source = g_strdup (source);
  return skill;
}

/* Removes one pair of matching quotes, YAML style. */
static char *
unquote (const char *value)
{
  gsize len = strlen (value);

  if (len >= 2 && value[0] == '"' && value[len - 1] == '"')
    {
      g_autofree char *inner = g_strndup (value + 1, len - 2);
      return g_strcompress (inner);
    }

  if (len >= 2 && value[0] == '\'' && value[len - 1] == '\'')
    {
      g_autofree char *inner = g_strndup (value + 1, len - 2);
      g_auto(GStrv) parts = g_strsplit (inner, "''", -1);
      return g_strjoinv ("'", parts);
    }

  return g_strdup (value);
}

static gboolean
is_block_indicator (const char *value)
{
  return value[0] == '\0' ||
         ((value[0] == '>' || value[0] == '|') &&
          (value[1] == '\0' || ((value[1] == '-' || value[1] == '+') && value[2] == '\0')));
}

/* A Markdown rule or heading underline: "---", "===", "* * *". */
static gboolean
is_rule (const char *line)
{
  guint marks = 0;

  for (const char *p = line; *p != '\0'; p++)
    {
      if (*p == '-' || *p == '=' || *p == '*' || *p == '_')
        marks++;
      else if (!g_ascii_isspace (*p))
        return FALSE;
    }

  return marks >= 3;
}

/* One line, whitespace runs collapsed, valid UTF-8, not too long. */
static char *
clean_description (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean space = FALSE;

  for (const char *p = valid; *p != '\0'; p++)
    {
      if (g_ascii_isspace (*p))
        {
          space = out->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_c (out, *p);
    }

  if (out->len > SKILL_DESCRIPTION_MAX_BYTES)
    {
      const char *end = out->str + SKILL_DESCRIPTION_MAX_BYTES;

      while (end > out->str && ((guchar) *end & 0xC0) == 0x80)
        end--;
      g_string_truncate (out, end - out->str);
      g_string_append (out, "…");
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Parses the simple front matter zot understands: `name:` and
 * `description:` at the top level, plain, quoted, or as a `>`/`|` block of
 * indented lines. Anything else in it is ignored. Without a description,
 * the first paragraph line of the body that is not a heading stands in. */
static void
parse_skill_text (const char  *text,
                  char       **out_name,
                  char       **out_description)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_auto(GStrv) lines = NULL;
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  guint body = 0;
  guint n_lines;

  lines = g_strsplit (valid, "\n", -1);
  n_lines = g_strv_length (lines);
  for (guint i = 0; i < n_lines; i++)
    g_strchomp (lines[i]);

  if (n_lines > 0 && g_str_equal (lines[0], "---"))
    {
      guint end = 0;

      for (guint i = 1; i < n_lines; i++)
        if (g_str_equal (lines[i], "---") || g_str_equal (lines[i], "..."))
          {
            end = i;
            break;
          }

      for (guint i = 1; i < end; i++)
        {
          const char *line = lines[i];
          const char *colon = strchr (line, ':');
          g_autofree char *key = NULL;
          g_autofree char *value = NULL;
          char **slot;

          if (colon == NULL || g_ascii_isspace (line[0]) || line[0] == '#')
            continue;

          key = g_strstrip (g_strndup (line, colon - line));
          if (g_str_equal (key, "name"))
            slot = &name;
          else if (g_str_equal (key, "description"))
            slot = &description;
          else
            continue;

          value = g_strstrip (g_strdup (colon + 1));
          g_clear_pointer (slot, g_free);
          if (is_block_indicator (value))
            {
              g_autoptr(GString) block = g_string_new (NULL);

              while (i + 1 < end && (lines[i + 1][0] == '\0' || g_ascii_isspace (lines[i + 1][0])))
                {
                  i++;
                  if (block->len > 0)
                    g_string_append_c (block, ' ');
                  g_string_append (block, lines[i]);
                }
              *slot = g_string_free (g_steal_pointer (&block), FALSE);
            }
          else
            *slot = unquote (value);
        }

      /* Without a closing line it was no front matter: all of it is body. */
      if (end > 0)
        body = end + 1;
    }

  if (description == NULL || *g_strstrip (description) == '\0')
    {
      gboolean in_code = FALSE;

      g_clear_pointer (&description, g_free);
      for (guint i = body; i < n_lines && description == NULL; i++)
        {
          const char *line = lines[i];

          while (g_ascii_isspace (*line))
            line++;
          if (g_str_has_prefix (line, "```"))
            {
              in_code = !in_code;
              continue;
            }
          if (in_code || *line == '\0' || *line == '#' || g_str_has_prefix (line, "<!--") ||
              is_rule (line))
            continue;
          description = g_strdup (line);
        }
    }

  if (name != NULL)
    g_strstrip (name);
  *out_name = (name != NULL && *name != '\0') ? g_steal_pointer (&name) : NULL;
  *out_description = clean_description (description != NULL ? description : "");
}

/* Reads at most @max_bytes of @path; *@more tells whether the file is longer. */
static char *
read_head (const char  *path,
           gsize        max_bytes,
           gboolean    *more,
           GError     **error)
{
  g_autofree char *buffer = NULL;
  struct stat st;
  gsize len = 0;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not open %s: %s"), path, g_strerror (errsv));
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("%s is not a regular file"), path);
      close (fd);
      return NULL;
    }

  buffer = g_malloc (max_bytes + 2);
  while (len < max_bytes + 1)
    {
      gssize n = read (fd, buffer + len, max_bytes + 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not read %s: %s"), path, g_strerror (errsv));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      len += n;
    }
  close (fd);

  if (more != NULL)
    *more = len > max_bytes;
  len = MIN (len, max_bytes);
  buffer[len] = '\0';
  return g_steal_pointer (&buffer);
}

static ZotSkill *
skill_from_text (const char *text,
                 const char *fallback_name,
                 const char *path,
                 const char *directory,
                 const char *source)
{
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;

  parse_skill_text (text, &name, &description);
  return skill_new (name != NULL ? name : fallback_name, description, path, directory, source);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Adds @skill to @skills: a later source replaces an earlier skill of the
 * same name in place; within one source (@seen) the first one wins. */
static void
add_skill (GPtrArray  *skills,
           GHashTable *seen,
           ZotSkill   *skill)
{
  if (g_hash_table_contains (seen, skill->name))
    {
      g_debug ("Skill %s at %s ignored: an earlier one of this source has that name",
               skill->name, skill->path != NULL ? skill->path : "(built in)");
      zot_skill_free (skill);
      return;
    }
  g_hash_table_add (seen, g_strdup (skill->name));

  for (guint i = 0; i < skills->len; i++)
    {
      ZotSkill *existing = g_ptr_array_index (skills, i);

      if (g_str_equal (existing->name, skill->name))
        {
          g_debug ("Skill %s from %s overrides the one from %s",
                   skill->name, skill->source, existing->source);
          zot_skill_free (existing);
          skills->pdata[i] = skill;
          return;
        }
    }

  g_ptr_array_add (skills, skill);
}

static void
discover_dir (GPtrArray  *skills,
              const char *root,
              const char *source)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = NULL;
  const char *entry;

  dir = g_dir_open (root, 0, NULL);
  if (dir == NULL)
    return;

  while ((entry = g_dir_read_name (dir)) != NULL)
    if (entry[0] != '.')
      g_ptr_array_add (names, g_strdup (entry));
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      const char *dirname = g_ptr_array_index (names, i);
      g_autofree char *directory = g_build_filename (root, dirname, NULL);
      g_autofree char *path = g_build_filename (directory, "SKILL.md", NULL);
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;

      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;

      text = read_head (path, SKILL_HEADER_MAX_BYTES, NULL, &error);
      if (text == NULL)
        {
          g_debug ("Skipping skill %s: %s", path, error->message);
          continue;
        }

      add_skill (skills, seen, skill_from_text (text, dirname, path, directory, source));
    }
}

static const BuiltinSkill *
find_builtin (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (builtin_skills); i++)
    {
      g_autofree char *builtin_name = NULL;
      g_autofree char *description = NULL;

      parse_skill_text (builtin_skills[i].text, &builtin_name, &description);
      if (g_strcmp0 (builtin_name != NULL ? builtin_name : builtin_skills[i].key, name) == 0)
        return &builtin_skills[i];
    }

  return NULL;
}

ZotSkill *
zot_skill_copy (const ZotSkill *skill)
{
  g_return_val_if_fail (skill != NULL, NULL);

  return skill_new (skill->name, skill->description, skill->path, skill->directory, skill->source);
}

void
zot_skill_free (ZotSkill *skill)
{
  if (skill == NULL)
    return;

  g_free (skill->name);
  g_free (skill->description);
  g_free (skill->path);
  g_free (skill->directory);
  g_free (skill->source);
  g_free (skill);
}

/**
 * zot_skill_load:
 * @skill: a skill from zot_skills_discover()
 * @max_bytes: the most to return; a longer file is cut at a UTF-8 boundary
 * @truncated: (out) (optional): set to whether the text was cut
 * @error: the file could not be read
 *
 * Reads the whole SKILL.md (front matter included). Blocking file I/O:
 * call it from a worker thread.
 *
 * Returns: (transfer full): valid UTF-8 text, or %NULL with @error set
 */
char *
zot_skill_load (const ZotSkill  *skill,
                gsize            max_bytes,
                gboolean        *truncated,
                GError         **error)
{
  g_autofree char *text = NULL;
  const char *end;
  gboolean more = FALSE;

  g_return_val_if_fail (skill != NULL, NULL);
  g_return_val_if_fail (max_bytes > 0, NULL);

  if (skill->path == NULL)
    {
      const BuiltinSkill *builtin = find_builtin (skill->name);

      if (builtin == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("There is no built-in skill named %s"), skill->name);
          return NULL;
        }
      text = g_strndup (builtin->text, max_bytes);
      more = strlen (builtin->text) > max_bytes;
    }
  else
    {
      text = read_head (skill->path, max_bytes, &more, error);
      if (text == NULL)
        return NULL;
    }

  if (more)
    {
      /* Step back over a character the cut split in two. */
      g_utf8_validate (text, -1, &end);
      if (*end != '\0' && strlen (end) < 4)
        text[end - text] = '\0';
    }

  if (truncated != NULL)
    *truncated = more;
  return g_utf8_make_valid (text, -1);
}

/**
 * zot_skills_discover:
 * @cwd: (nullable): the project directory; %NULL for the current directory
 *
 * Finds every skill, built-ins first, then $ZOT_HOME/skills, then
 * <cwd>/.zot/skills; a later skill replaces an earlier one of the same name
 * at its position. Reads only the head of each SKILL.md.
 *
 * Returns: (transfer full) (element-type ZotSkill): the skills
 */
GPtrArray *
zot_skills_discover (const char *cwd)
{
  g_autoptr(GPtrArray) skills = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_skill_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *current = NULL;
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *user_dir = g_build_filename (home, "skills", NULL);
  g_autofree char *project_dir = NULL;

  if (cwd == NULL)
    cwd = current = g_get_current_dir ();
  project_dir = g_build_filename (cwd, ".zot", "skills", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (builtin_skills); i++)
    add_skill (skills, seen,
               skill_from_text (builtin_skills[i].text, builtin_skills[i].key,
                                NULL, NULL, "builtin"));

  discover_dir (skills, user_dir, "user");
  discover_dir (skills, project_dir, "project");

  return g_steal_pointer (&skills);
}

/**
 * zot_skills_find:
 * @skills: (element-type ZotSkill): from zot_skills_discover()
 * @name: a skill name; an exact match wins over one that differs in case
 *
 * Returns: (transfer none) (nullable): the skill
 */
ZotSkill *
zot_skills_find (GPtrArray  *skills,
                 const char *name)
{
  g_return_val_if_fail (skills != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < skills->len; i++)
    {
      ZotSkill *skill = g_ptr_array_index (skills, i);

      if (g_str_equal (skill->name, name))
        return skill;
    }

  for (guint i = 0; i < skills->len; i++)
    {
      ZotSkill *skill = g_ptr_array_index (skills, i);

      if (g_ascii_strcasecmp (skill->name, name) == 0)
        return skill;
    }

  return NULL;
}

/**
 * zot_skills_format_list:
 * @skills: (element-type ZotSkill): from zot_skills_discover()
 *
 * Returns: (transfer full): one "- name: description" line per skill, for
 *   the system prompt; "" when there are none
 */
char *
zot_skills_format_list (GPtrArray *skills)
{
  GString *out;

  g_return_val_if_fail (skills != NULL, NULL);

  out = g_string_new (NULL);
  for (guint i = 0; i < skills->len; i++)
    {
      ZotSkill *skill = g_ptr_array_index (skills, i);

      if (skill->description != NULL && skill->description[0] != '\0')
        g_string_append_printf (out, "- %s: %s\n", skill->name, skill->description);
      else
        g_string_append_printf (out, "- %s\n", skill->name);
    }

  return g_string_free (out, FALSE);
}
