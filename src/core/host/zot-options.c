/* zot-options.c — one declaration of the shared flags. */
#define G_LOG_DOMAIN "zot-options"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-limits.h"
#include "zot-options.h"
#include "zot-provider-secrets.h"
#include "zot-provider-table.h"

void
zot_options_init (ZotOptions *self)
{
  g_return_if_fail (self != NULL);

  memset (self, 0, sizeof *self);
  self->max_steps = ZOT_DEFAULT_MAX_STEPS;
  self->max_retries = -1;
}

void
zot_options_clear (ZotOptions *self)
{
  g_clear_pointer (&self->provider, g_free);
  g_clear_pointer (&self->model, g_free);
  g_clear_pointer (&self->base_url, g_free);
  g_clear_pointer (&self->api_key, g_free);
  g_clear_pointer (&self->api_key_file, g_free);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_pointer (&self->ext_paths, g_strfreev);
  g_clear_pointer (&self->system_prompt, g_free);
  g_clear_pointer (&self->append_system_prompt, g_strfreev);
  g_clear_pointer (&self->tools, g_free);
  g_clear_pointer (&self->session, g_free);
  g_clear_pointer (&self->codemode, g_free);
  g_clear_pointer (&self->reasoning, g_free);
  g_clear_pointer (&self->auto_compact, g_free);
}

/* "Model provider: anthropic, openai or demo", from the table; made once
 * and kept, as GOption holds on to it. */
static const char *
provider_description (void)
{
  static const char *description;

  if (g_once_init_enter (&description))
    {
      g_autofree char *names = zot_provider_table_describe_names ();

      /* Translators: %s lists the provider names the option takes, such as "anthropic, openai or
       * demo"; they stay untranslated */
      g_once_init_leave (&description, g_strdup_printf (_("Model provider: %s"), names));
    }

  return description;
}

/**
 * zot_options_add_entries:
 * @context: where the view parses its command line
 *
 * Adds the shared flags, bound to @self, to @context's main group. The
 * view adds its own (-p, --json, the prompt) beside them.
 */
void
zot_options_add_entries (ZotOptions     *self,
                         GOptionContext *context)
{
  const GOptionEntry entries[] = {
    /* Translators: the names of options' arguments in --help (NAME, ID, URL, KEY, DIR, PATH,
     * TEXT, N, FILE, MODE, LEVEL) are written in capitals by convention */
    { "provider", 0, 0, G_OPTION_ARG_STRING, &self->provider, provider_description (), N_("NAME") },
    { "model", 0, 0, G_OPTION_ARG_STRING, &self->model, N_("Model id (the provider's default when left out)"), N_("ID") },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &self->base_url, N_("API base URL of an OpenAI-compatible server"), N_("URL") },
    { "api-key", 0, 0, G_OPTION_ARG_STRING, &self->api_key, N_("API key"), N_("KEY") },
    { "api-key-file", 0, 0, G_OPTION_ARG_FILENAME, &self->api_key_file, N_("Read the API key from the first line of FILE"), N_("FILE") },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &self->cwd, N_("Working directory"), N_("DIR") },
    { "ext", 'e', 0, G_OPTION_ARG_FILENAME_ARRAY, &self->ext_paths, N_("Load the extension in PATH (repeatable)"), N_("PATH") },
    { "no-ext", 0, 0, G_OPTION_ARG_NONE, &self->no_ext, N_("Skip extension discovery (explicit --ext paths still load)"), NULL },
    { "watch", 0, 0, G_OPTION_ARG_NONE, &self->watch, N_("Rebuild and reload an --ext extension when its files change"), NULL },
    { "system-prompt", 0, 0, G_OPTION_ARG_STRING, &self->system_prompt, N_("Replace the system prompt"), N_("TEXT") },
    { "append-system-prompt", 0, 0, G_OPTION_ARG_STRING_ARRAY, &self->append_system_prompt, N_("Append to the system prompt (repeatable)"), N_("TEXT") },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &self->max_steps, N_("Stop after N model steps (default 50)"), N_("N") },
    { "max-retries", 0, 0, G_OPTION_ARG_INT, &self->max_retries, N_("Ask a busy provider again at most N times (default 4, 0 never)"), N_("N") },
    { "no-tools", 0, 0, G_OPTION_ARG_NONE, &self->no_tools, N_("Give the model no tools"), NULL },
    { "tools", 0, 0, G_OPTION_ARG_STRING, &self->tools, N_("Give the model only these tools"), N_("a,b") },
    { "continue", 0, 0, G_OPTION_ARG_NONE, &self->continue_session, N_("Resume the newest session of this directory"), NULL },
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &self->session, N_("Use this session file"), N_("FILE") },
    { "no-session", 0, 0, G_OPTION_ARG_NONE, &self->no_session, N_("Do not save the session"), NULL },
    { "continuous", 0, 0, G_OPTION_ARG_NONE, &self->continuous, N_("Journal tool calls as durable tasks"), NULL },
    { "codemode", 0, 0, G_OPTION_ARG_STRING, &self->codemode, N_("Script runtime: off, on or only (default on; --codemode alone: on)"), N_("MODE") },
    { "codemode-only", 0, 0, G_OPTION_ARG_NONE, &self->codemode_only, N_("Same as --codemode=only"), NULL },
    { "reasoning", 0, 0, G_OPTION_ARG_STRING, &self->reasoning, N_("How much the model reasons: off, minimum, low, medium, high, xhigh or max"), N_("LEVEL") },
    { "auto-compact", 0, 0, G_OPTION_ARG_STRING, &self->auto_compact, N_("Compact past PERCENT of the model's context window (default 85; off: never)"), N_("PERCENT") },
    { "yolo", 0, 0, G_OPTION_ARG_NONE, &self->yolo, N_("Approve every tool call without asking (window)"), NULL },
    { "no-yolo", 0, 0, G_OPTION_ARG_NONE, &self->no_yolo, N_("Ask before tool calls (window)"), NULL },
    { NULL }
  };

  g_return_if_fail (self != NULL);
  g_return_if_fail (context != NULL);

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

/* --auto-compact's value: 1 to 100, -1 for off, 0 when it is neither. */
static int
parse_auto_compact (const char *value)
{
  guint64 percent;

  if (g_str_equal (value, "off"))
    return -1;
  if (!g_ascii_string_to_unsigned (value, 10, 1, 100, &percent, NULL))
    return 0;
  return (int) percent;
}

static gboolean
is_codemode_value (const char *word)
{
  return word != NULL &&
         (g_str_equal (word, "off") || g_str_equal (word, "on") || g_str_equal (word, "only"));
}

/* GOption would take the word after a bare --codemode as its value
 * whatever it is (`zot --codemode fix the tests` lost "fix"): the word
 * is the value only when it is one, else --codemode alone means on. */
static void
prepare_argv (GStrv *argv)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  GStrv args = *argv;
  gboolean options = TRUE;

  for (guint i = 0; args[i] != NULL; i++)
    {
      if (g_str_equal (args[i], "--"))
        options = FALSE;
      if (!options || !g_str_equal (args[i], "--codemode"))
        g_strv_builder_add (builder, args[i]);
      else if (is_codemode_value (args[i + 1]))
        {
          g_autofree char *flag = g_strconcat ("--codemode=", args[++i], NULL);

          g_strv_builder_add (builder, flag);
        }
      else
        g_strv_builder_add (builder, "--codemode=on");
    }
  g_strfreev (*argv);
  *argv = g_strv_builder_end (builder);
}

/**
 * zot_options_parse:
 * @context: the view's context, with zot_options_add_entries() done
 * @argv: (inout): the arguments, program name first; what is left after
 *   parsing
 *
 * g_option_context_parse_strv(), reading `--codemode` as the shared flags
 * mean it (HOST.md): `--codemode=MODE`, `--codemode MODE` when MODE is off,
 * on or only, and `--codemode` alone for on.
 */
gboolean
zot_options_parse (GOptionContext  *context,
                   GStrv           *argv,
                   GError         **error)
{
  g_return_val_if_fail (context != NULL, FALSE);
  g_return_val_if_fail (argv != NULL && *argv != NULL, FALSE);

  prepare_argv (argv);
  return g_option_context_parse_strv (context, argv, error);
}

/**
 * zot_options_check:
 *
 * The usage errors every view reports the same way (exit status 2).
 * Reads --api-key-file into the key, when zot_provider_capture_secrets()
 * has not already made it --api-key.
 */
gboolean
zot_options_check (ZotOptions  *self,
                   GError     **error)
{
  ZotReasoning level;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->api_key_file != NULL)
    {
      char *key = zot_provider_read_key_file (self->api_key_file, error);

      if (key == NULL)
        return FALSE;
      g_free (self->api_key);
      self->api_key = key;
    }

  if (self->watch && (self->ext_paths == NULL || self->ext_paths[0] == NULL))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           /* Translators: keep the option names */
                           _("--watch watches the extensions given with --ext; add --ext DIR"));
      return FALSE;
    }

  if (self->max_steps < 1)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("--max-steps must be at least 1"));
      return FALSE;
    }

  if (self->max_retries != -1 &&
      (self->max_retries < 0 || self->max_retries > ZOT_PROVIDER_MAX_RETRIES_LIMIT))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   /* Translators: keep the option name; %d is the largest value */
                   _("--max-retries takes 0 (never retry) to %d"), ZOT_PROVIDER_MAX_RETRIES_LIMIT);
      return FALSE;
    }

  if (self->codemode != NULL &&
      !g_str_equal (self->codemode, "off") &&
      !g_str_equal (self->codemode, "on") &&
      !g_str_equal (self->codemode, "only"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   /* Translators: %s is the value given; off, on and only are the option's
                    * values: keep them */
                   _("--codemode takes off, on or only, not \"%s\""), self->codemode);
      return FALSE;
    }

  if (self->codemode_only && self->codemode != NULL && !g_str_equal (self->codemode, "only"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   /* Translators: %s is the value given to --codemode */
                   _("--codemode-only and --codemode=%s cannot both be given"), self->codemode);
      return FALSE;
    }

  if (self->reasoning != NULL && !zot_reasoning_from_string (self->reasoning, &level))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   /* Translators: %s is the value given; the words in the list are the option's
                    * values: keep them */
                   _("--reasoning takes off, minimum, low, medium, high, xhigh or max, not \"%s\""),
                   self->reasoning);
      return FALSE;
    }

  if (self->auto_compact != NULL && parse_auto_compact (self->auto_compact) == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   /* Translators: %s is the value given; keep "off" */
                   _("--auto-compact takes a percentage from 1 to 100 or off, not \"%s\""),
                   self->auto_compact);
      return FALSE;
    }

  /* The journal lives in the session file. */
  if (self->continuous && self->no_session)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("--continuous needs a saved conversation to journal tool calls in; "
                             "drop --no-session"));
      return FALSE;
    }

  if (self->yolo && self->no_yolo)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("--yolo and --no-yolo cannot both be given"));
      return FALSE;
    }

  return TRUE;
}

/**
 * zot_options_split_list:
 * @list: "a, b,,c"
 *
 * Returns: (transfer full): the names, trimmed, empty ones left out
 */
GStrv
zot_options_split_list (const char *list)
{
  g_auto(GStrv) names = g_strsplit (list, ",", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; names[i] != NULL; i++)
    if (*g_strstrip (names[i]) != '\0')
      g_strv_builder_add (builder, names[i]);

  return g_strv_builder_end (builder);
}

/**
 * zot_options_to_host:
 * @invocation_cwd: (nullable): the directory `zot` was started in, against
 *   which relative paths are read (a second `zot` hands its own to the
 *   window already open); %NULL for this process's
 * @interactive: %TRUE for the window
 * @out: (out caller-allocates): cleared, then filled
 */
void
zot_options_to_host (const ZotOptions *self,
                     const char       *invocation_cwd,
                     gboolean          interactive,
                     ZotHostOptions   *out)
{
  g_autofree char *here = NULL;
  guint n_paths;

  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);

  if (invocation_cwd == NULL)
    invocation_cwd = here = g_get_current_dir ();

  memset (out, 0, sizeof *out);
  out->cwd = g_canonicalize_filename (self->cwd != NULL ? self->cwd : invocation_cwd, invocation_cwd);
  n_paths = self->ext_paths != NULL ? g_strv_length (self->ext_paths) : 0;
  out->ext_paths = g_new0 (char *, n_paths + 1);
  for (guint i = 0; i < n_paths; i++)
    out->ext_paths[i] = g_canonicalize_filename (self->ext_paths[i], invocation_cwd);
  out->no_ext = self->no_ext;
  out->watch = self->watch;
  out->provider.name = g_strdup (self->provider);
  out->provider.model = g_strdup (self->model);
  out->provider.base_url = g_strdup (self->base_url);
  out->provider.api_key = g_strdup (self->api_key);
  /* What an error about the key names: the file it was read from. */
  if (self->api_key_file != NULL)
    out->provider.api_key_source = g_strdup ("--api-key-file");
  out->max_steps = self->max_steps > 0 ? (guint) self->max_steps : ZOT_DEFAULT_MAX_STEPS;
  out->max_retries_set = self->max_retries >= 0;
  out->max_retries = MAX (self->max_retries, 0);
  out->system_prompt = g_strdup (self->system_prompt);
  out->append_system_prompt = g_strdupv (self->append_system_prompt);
  out->no_tools = self->no_tools;
  if (self->tools != NULL)
    out->tools = zot_options_split_list (self->tools);
  out->continue_session = self->continue_session;
  out->session_path = self->session != NULL ? g_canonicalize_filename (self->session, invocation_cwd) : NULL;
  out->no_session = self->no_session;
  if (self->reasoning != NULL)
    zot_reasoning_from_string (self->reasoning, &out->reasoning);
  out->continuous = self->continuous;
  if (self->auto_compact != NULL)
    out->auto_compact = parse_auto_compact (self->auto_compact);
  out->interactive = interactive;
  if (self->codemode_only || g_strcmp0 (self->codemode, "only") == 0)
    out->codemode = ZOT_CODEMODE_ONLY;
  else if (g_strcmp0 (self->codemode, "off") == 0)
    out->codemode = ZOT_CODEMODE_OFF;
  else
    out->codemode = ZOT_CODEMODE_ON;
}
