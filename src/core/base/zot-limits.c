#define G_LOG_DOMAIN "zot-limits"

#include "zot-limits-private.h"

#include <stdlib.h>

static const struct {
  const char *name;
  guint       default_ms;
} timeouts[ZOT_N_TIMEOUTS] = {
  [ZOT_TIMEOUT_WRITE]              = { "write",              ZOT_WRITE_TIMEOUT_MS },
  [ZOT_TIMEOUT_HELLO]              = { "hello",              ZOT_HELLO_TIMEOUT_MS },
  [ZOT_TIMEOUT_REGISTRATION_IDLE]  = { "registration-idle",  ZOT_REGISTRATION_IDLE_MS },
  [ZOT_TIMEOUT_REGISTRATION_MAX]   = { "registration-max",   ZOT_REGISTRATION_MAX_MS },
  [ZOT_TIMEOUT_COMMAND]            = { "command",            ZOT_COMMAND_TIMEOUT_MS },
  [ZOT_TIMEOUT_TOOL]               = { "tool",               ZOT_TOOL_TIMEOUT_MS },
  [ZOT_TIMEOUT_INTERCEPT]          = { "intercept",          ZOT_INTERCEPT_TIMEOUT_MS },
  [ZOT_TIMEOUT_BEFORE_AGENT_START] = { "before-agent-start", ZOT_BEFORE_AGENT_START_TIMEOUT_MS },
  [ZOT_TIMEOUT_CALL_TOOL]          = { "call-tool",          ZOT_CALL_TOOL_TIMEOUT_MS },
  [ZOT_TIMEOUT_SHUTDOWN_GRACE]     = { "shutdown-grace",     ZOT_SHUTDOWN_GRACE_MS },
  [ZOT_TIMEOUT_SIGTERM_GRACE]      = { "sigterm-grace",      ZOT_SIGTERM_GRACE_MS },
  [ZOT_TIMEOUT_PROVIDER_RETRY]     = { "provider-retry",     ZOT_PROVIDER_RETRY_MS },
  [ZOT_TIMEOUT_PROVIDER_RETRY_MAX] = { "provider-retry-max", ZOT_PROVIDER_RETRY_MAX_MS },
  [ZOT_TIMEOUT_PROVIDER_IDLE]      = { "provider-idle",      ZOT_PROVIDER_IDLE_MS },
  [ZOT_TIMEOUT_PROVIDER_TOTAL]     = { "provider-total",     ZOT_PROVIDER_TOTAL_MS },
  [ZOT_TIMEOUT_KEYRING]            = { "keyring",            ZOT_KEYRING_WAIT_MS },
  [ZOT_TIMEOUT_BASH]               = { "bash",               ZOT_BASH_TIMEOUT_MS },
  [ZOT_TIMEOUT_SUBAGENT_SHUTDOWN]  = { "subagent-shutdown",  ZOT_SUBAGENT_SHUTDOWN_WAIT_MS },
  [ZOT_TIMEOUT_EXIT_DRAIN]         = { "exit-drain",         ZOT_EXIT_DRAIN_MS },
  [ZOT_TIMEOUT_UNKNOWN_FRAME_WINDOW] = { "unknown-frame-window", ZOT_UNKNOWN_FRAME_WINDOW_MS },
  [ZOT_TIMEOUT_CODEMODE]           = { "codemode",           ZOT_CODEMODE_TIMEOUT_MS },
  [ZOT_TIMEOUT_CODEMODE_MAX]       = { "codemode-max",       ZOT_CODEMODE_TIMEOUT_MAX_MS },
  [ZOT_TIMEOUT_CODEMODE_START]     = { "codemode-start",     ZOT_CODEMODE_START_TIMEOUT_MS },
  [ZOT_TIMEOUT_STOP_TURN]          = { "stop-turn",          ZOT_STOP_TURN_TIMEOUT_MS },
  [ZOT_TIMEOUT_WATCH_DEBOUNCE]     = { "watch-debounce",     ZOT_WATCH_DEBOUNCE_MS },
  [ZOT_TIMEOUT_BUILD]              = { "build",              ZOT_BUILD_TIMEOUT_MS },
  [ZOT_TIMEOUT_INSTALL_BUILD]      = { "install-build",      ZOT_INSTALL_BUILD_TIMEOUT_MS },
  [ZOT_TIMEOUT_RESTART_BACKOFF]    = { "restart-backoff",    ZOT_RESTART_BACKOFF_MS },
  [ZOT_TIMEOUT_RESTART_BACKOFF_MAX] = { "restart-backoff-max", ZOT_RESTART_BACKOFF_MAX_MS },
  [ZOT_TIMEOUT_RESTART_WINDOW]     = { "restart-window",     ZOT_RESTART_WINDOW_MS },
  [ZOT_TIMEOUT_MODEL_LIST]         = { "model-list",         ZOT_MODEL_LIST_TIMEOUT_MS },
  [ZOT_TIMEOUT_PROVIDER_RETRY_BUDGET] = { "provider-retry-budget", ZOT_PROVIDER_RETRY_BUDGET_MS },
  [ZOT_TIMEOUT_MCP_CONNECT]        = { "mcp-connect",        ZOT_MCP_CONNECT_TIMEOUT_MS },
  [ZOT_TIMEOUT_MCP_REQUEST]        = { "mcp-request",        ZOT_MCP_REQUEST_TIMEOUT_MS },
  [ZOT_TIMEOUT_MCP_IDLE]           = { "mcp-idle",           ZOT_MCP_IDLE_TIMEOUT_MS },
};

static guint overrides[ZOT_N_TIMEOUTS];
static gsize env_loaded;

static void
load_env_overrides (void)
{
  const char *spec = g_getenv ("ZOT_TEST_TIMEOUTS");
  g_auto(GStrv) items = NULL;

  if (spec == NULL || *spec == '\0')
    return;

  items = g_strsplit (spec, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (items[i], "=", 2);
      guint64 ms;

      if (kv[0] == NULL || kv[1] == NULL)
        continue;
      if (!g_ascii_string_to_unsigned (kv[1], 10, 1, G_MAXUINT, &ms, NULL))
        continue;

      for (guint t = 0; t < ZOT_N_TIMEOUTS; t++)
        if (g_str_equal (g_strstrip (kv[0]), timeouts[t].name) && overrides[t] == 0)
          overrides[t] = (guint) ms;
    }
}

guint
zot_timeout_get_ms (ZotTimeout timeout)
{
  g_return_val_if_fail (timeout < ZOT_N_TIMEOUTS, 0);

  if (g_once_init_enter (&env_loaded))
    {
      load_env_overrides ();
      g_once_init_leave (&env_loaded, 1);
    }

  return overrides[timeout] != 0 ? overrides[timeout] : timeouts[timeout].default_ms;
}

guint
zot_timeout_get_default (ZotTimeout timeout)
{
  g_return_val_if_fail (timeout < ZOT_N_TIMEOUTS, 0);

  return timeouts[timeout].default_ms;
}

const char *
zot_timeout_get_name (ZotTimeout timeout)
{
  g_return_val_if_fail (timeout < ZOT_N_TIMEOUTS, NULL);

  return timeouts[timeout].name;
}

void
_zot_timeout_override_for_testing (ZotTimeout timeout,
                                   guint      ms)
{
  g_return_if_fail (timeout < ZOT_N_TIMEOUTS);

  (void) zot_timeout_get_ms (timeout);
  overrides[timeout] = ms;
}
