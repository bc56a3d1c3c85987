/* zot-host.c — the host object: its options, its signals and properties,
 * and zot_host_new(), which wires provider, tools, session, agent and
 * extensions together. What it does is in zot-host-*.c, one job a file.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-host-private.h"
#include "zot-limits.h"

GParamSpec *_zot_host_properties [ZOT_HOST_N_PROPS];

guint _zot_host_signals [ZOT_HOST_N_SIGNALS];

G_DEFINE_QUARK (zot-host-error-quark, zot_host_error)
G_DEFINE_FINAL_TYPE (ZotHost, zot_host, G_TYPE_OBJECT)
G_DEFINE_BOXED_TYPE (ZotHostOptions, zot_host_options, zot_host_options_copy, zot_host_options_free)

/**
 * zot_host_options_copy_into:
 * @to: (out caller-allocates): filled with a deep copy; what it held is
 *   not freed
 * @from: the options to copy
 *
 * The one copy of the options: the host, the window and the app's
 * template of the next project all copy through here, so that a field
 * added to #ZotHostOptions reaches every one of them.
 */
void
zot_host_options_copy_into (ZotHostOptions       *to,
                            const ZotHostOptions *from)
{
  g_return_if_fail (to != NULL);
  g_return_if_fail (from != NULL);

  /* Every value field at once; the strings are then made the copy's own. */
  *to = *from;
  to->cwd = g_strdup (from->cwd);
  to->ext_paths = g_strdupv (from->ext_paths);
  to->provider.name = g_strdup (from->provider.name);
  to->provider.model = g_strdup (from->provider.model);
  to->provider.base_url = g_strdup (from->provider.base_url);
  to->provider.api_key = g_strdup (from->provider.api_key);
  to->provider.api_key_source = g_strdup (from->provider.api_key_source);
  to->system_prompt = g_strdup (from->system_prompt);
  to->append_system_prompt = g_strdupv (from->append_system_prompt);
  to->tools = g_strdupv (from->tools);
  to->session_path = g_strdup (from->session_path);
}

/**
 * zot_host_options_copy:
 *
 * Returns: (transfer full): a deep copy of @options
 */
ZotHostOptions *
zot_host_options_copy (const ZotHostOptions *options)
{
  ZotHostOptions *copy;

  g_return_val_if_fail (options != NULL, NULL);

  copy = g_new0 (ZotHostOptions, 1);
  zot_host_options_copy_into (copy, options);
  return copy;
}

void
zot_host_options_free (ZotHostOptions *options)
{
  if (options == NULL)
    return;

  zot_host_options_clear (options);
  g_free (options);
}

void
zot_host_options_clear (ZotHostOptions *options)
{
  g_clear_pointer (&options->cwd, g_free);
  g_clear_pointer (&options->ext_paths, g_strfreev);
  zot_provider_config_clear (&options->provider);
  g_clear_pointer (&options->system_prompt, g_free);
  g_clear_pointer (&options->append_system_prompt, g_strfreev);
  g_clear_pointer (&options->tools, g_strfreev);
  g_clear_pointer (&options->session_path, g_free);
}

/* GObject */

static void
zot_host_dispose (GObject *object)
{
  ZotHost *self = (ZotHost *)object;

  g_cancellable_cancel (self->cancellable);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);

  G_OBJECT_CLASS (zot_host_parent_class)->dispose (object);
}

static void
zot_host_finalize (GObject *object)
{
  ZotHost *self = (ZotHost *)object;

  g_clear_object (&self->agent);
  g_clear_object (&self->registry);
  g_clear_object (&self->manager);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->extension_prompts, g_hash_table_unref);
  zot_host_options_clear (&self->options);
  g_free (self->model_key);
  g_free (self->continuous_warning);

  G_OBJECT_CLASS (zot_host_parent_class)->finalize (object);
}

static void
zot_host_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  ZotHost *self = ZOT_HOST (object);

  switch (prop_id)
    {
    case ZOT_HOST_PROP_MODEL:
      g_value_set_string (value, self->agent != NULL
                                   ? zot_provider_get_model (zot_agent_get_provider (self->agent))
                                   : NULL);
      break;

    case ZOT_HOST_PROP_CWD:
      g_value_set_string (value, self->options.cwd);
      break;

    case ZOT_HOST_PROP_SESSION:
      g_value_set_object (value, self->agent != NULL ? zot_agent_get_session (self->agent) : NULL);
      break;

    case ZOT_HOST_PROP_MANAGER:
      g_value_set_object (value, self->manager);
      break;

    case ZOT_HOST_PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_host_class_init (ZotHostClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_host_dispose;
  object_class->finalize = zot_host_finalize;
  object_class->get_property = zot_host_get_property;

  /**
   * ZotHost:model:
   *
   * The model in use. It notifies when the model or the provider serving
   * it changes (zot_host_set_model(), /model, a provider chosen in
   * Preferences), not when the same provider is rebuilt for a new key or
   * base URL.
   */
  _zot_host_properties [ZOT_HOST_PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * ZotHost:cwd:
   *
   * The working directory the tools, extensions and sessions use.
   */
  _zot_host_properties [ZOT_HOST_PROP_CWD] =
    g_param_spec_string ("cwd", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * ZotHost:session:
   *
   * The session the conversation is written to; /new replaces it.
   */
  _zot_host_properties [ZOT_HOST_PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, ZOT_TYPE_SESSION,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * ZotHost:manager:
   *
   * The extension manager, the same for the host's life: views that show
   * extensions bind to it (zot_host_get_manager()).
   */
  _zot_host_properties [ZOT_HOST_PROP_MANAGER] =
    g_param_spec_object ("manager", NULL, NULL, ZOT_TYPE_EXTENSION_MANAGER,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * ZotHost:agent:
   *
   * The agent, the same for the host's life (zot_host_get_agent()).
   */
  _zot_host_properties [ZOT_HOST_PROP_AGENT] =
    g_param_spec_object ("agent", NULL, NULL, ZOT_TYPE_AGENT,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, ZOT_HOST_N_PROPS, _zot_host_properties);

  /**
   * ZotHost::info:
   * @text: what a built-in command has to say (/help, /model, /compact…)
   *
   * Emitted when a built-in command run by the host, or a new
   * conversation started with zot_host_start_conversation_async(), has
   * a line for the user; the views show it as a note.
   */
  _zot_host_signals [ZOT_HOST_INFO] =
    g_signal_new ("info", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotHost::command-replied:
   * @reply: what an extension's command answered
   *
   * Emitted when an extension command submitted to the host answers,
   * before any turn it asks for: the views show a `display`, put an
   * `insert` into the editor, or leave the rest to the host. Its error,
   * if any, comes with the submission's result.
   */
  _zot_host_signals [ZOT_HOST_COMMAND_REPLIED] =
    g_signal_new ("command-replied", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_COMMAND_REPLY | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotHost::warning:
   * @message: one line for the user, such as what loading the session
   *   had to mend, or that it is open read-only
   *
   * Emitted by zot_host_load_async(), once the views are connected.
   */
  _zot_host_signals [ZOT_HOST_WARNING] =
    g_signal_new ("warning", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotHost::activate-action:
   * @action: the detailed name of a window action, such as
   *   "win.preferences" (see zot_host_get_command_action())
   * @parameter: (nullable): its parameter
   *
   * Emitted in interactive hosts only, when a built-in command that the
   * window runs is submitted (/settings, /yolo, /quit): the window
   * activates @action, as its menu and shortcuts do.
   */
  _zot_host_signals [ZOT_HOST_ACTIVATE_ACTION] =
    g_signal_new ("activate-action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_VARIANT);

}

static void
zot_host_init (ZotHost *self)
{
  self->cancellable = g_cancellable_new ();
  self->extension_prompts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* What the run does on its own is said like a command's information. */
static void
on_auto_compaction (ZotAgent   *agent,
                    const char *message,
                    ZotHost    *self)
{
  g_signal_emit (self, _zot_host_signals [ZOT_HOST_INFO], 0, message);
}

static void
copy_options (ZotHostOptions       *to,
              const ZotHostOptions *from)
{
  zot_host_options_copy_into (to, from);
  g_free (to->cwd);
  to->cwd = from->cwd ? g_canonicalize_filename (from->cwd, NULL) : g_get_current_dir ();
  if (to->max_steps == 0)
    to->max_steps = ZOT_DEFAULT_MAX_STEPS;
}

/**
 * zot_host_new:
 *
 * Builds the provider, the tools, the session and the agent. Fails with a
 * message for the user when one of them cannot be had (no session to
 * continue, an unknown provider, a missing key).
 */
ZotHost *
zot_host_new (ZotHostOptions  *options,
              GError         **error)
{
  g_autoptr(ZotHost) self = NULL;
  g_autoptr(ZotProvider) provider = NULL;
  g_autoptr(ZotSession) session = NULL;

  g_return_val_if_fail (options != NULL, NULL);

  self = g_object_new (ZOT_TYPE_HOST, NULL);
  copy_options (&self->options, options);
  zot_provider_resolve_config (&self->options.provider);

  provider = zot_provider_new_for_config (&self->options.provider, error);
  if (provider == NULL)
    return NULL;
  zot_provider_set_reasoning (provider, self->options.reasoning);
  if (self->options.max_retries_set)
    zot_provider_set_max_retries (provider, self->options.max_retries);

  session = _zot_host_open_session (&self->options, self->options.cwd, error);
  if (session == NULL)
    return NULL;
  _zot_host_choose_continuous (self, session);

  /* Made here: the subagent tool emits through it. */
  self->manager = zot_extension_manager_new ();

  _zot_host_add_tools (self);

  self->agent = zot_agent_new (provider, self->registry, session);
  zot_agent_set_cwd (self->agent, self->options.cwd);
  zot_agent_set_max_steps (self->agent, self->options.max_steps);
  if (self->options.auto_compact != 0)
    zot_agent_set_auto_compact (self->agent, MAX (self->options.auto_compact, 0));
  zot_agent_set_interactive (self->agent, self->options.interactive);
  zot_agent_set_system_prompt_override (self->agent, self->options.system_prompt,
                                        (const char * const *) self->options.append_system_prompt);

  zot_extension_manager_set_cwd (self->manager, self->options.cwd);
  zot_extension_manager_set_explicit_paths (self->manager, (const char * const *) self->options.ext_paths);
  zot_extension_manager_set_no_ext (self->manager, self->options.no_ext);
  zot_extension_manager_set_watch_explicit (self->manager, self->options.watch);
  zot_extension_manager_set_interactive (self->manager, self->options.interactive);
  zot_extension_manager_set_continuous (self->manager, zot_session_get_continuous (session));
  self->model_key = g_strdup_printf ("%s\n%s", zot_provider_get_name (provider),
                                     zot_provider_get_model (provider));
  zot_extension_manager_set_model (self->manager, zot_provider_get_name (provider),
                                   zot_provider_get_model (provider));
  g_signal_connect (self->manager, "tools-changed", G_CALLBACK (_zot_host_on_tools_changed), self);
  /* A reload in watch mode is a reload: `before_agent_start` runs again. */
  g_signal_connect_object (self->manager, "extension-reloaded",
                           G_CALLBACK (zot_agent_reset_system_prompt), self->agent, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->manager, "extension-restarted",
                           G_CALLBACK (zot_agent_reset_system_prompt), self->agent, G_CONNECT_SWAPPED);
  zot_extension_manager_set_session_id (self->manager, zot_session_get_id (session));
  zot_agent_set_extension_manager (self->agent, self->manager);
  /* A call an extension makes outside any tool call is the conversation's. */
  zot_extension_manager_set_tool_runner (self->manager, ZOT_TOOL_RUNNER (self->agent));
  g_signal_connect_object (self->agent, "user-message", G_CALLBACK (_zot_host_on_user_message), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->agent, "auto-compaction", G_CALLBACK (on_auto_compaction), self, 0);

  return g_steal_pointer (&self);
}

ZotAgent *
zot_host_get_agent (ZotHost *self)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), NULL);
  return self->agent;
}

ZotExtensionManager *
zot_host_get_manager (ZotHost *self)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), NULL);
  return self->manager;
}
