/* zot-mcp-extras.c — MCP servers' prompts and the /mcp command. Each
 * prompt is the slash command /mcp:SERVER:PROMPT, whose answer is the
 * server's messages as the prompt to send; the commands follow
 * notifications/prompts/list_changed. Resources are in
 * zot-mcp-resources.c. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-bridge.h"

typedef struct
{
  Server *server;
  char   *name;
  GStrv   arguments;  /* the names it takes, in order */
  GStrv   required;
  char       *command;
  JsonObject *json;     /* as listed: a change in it registers the command again */
  gulong      handler;
} Prompt;

void
_zot_mcp_prompt_free (gpointer data)
{
  Prompt *prompt = data;

  g_free (prompt->name);
  g_strfreev (prompt->arguments);
  g_strfreev (prompt->required);
  g_free (prompt->command);
  g_clear_pointer (&prompt->json, json_object_unref);
  g_free (prompt);
}


/* Prompts as slash commands */

/* ARGS is NAME=VALUE words when every word is one with a name the prompt
 * takes; otherwise all of it is the first argument. */
static JsonObject *
prompt_arguments (Prompt     *prompt,
                  const char *args)
{
  JsonObject *arguments = json_object_new ();
  g_auto(GStrv) words = NULL;
  gboolean named = TRUE;

  if (args == NULL || *args == '\0' || prompt->arguments[0] == NULL)
    return arguments;
  words = g_strsplit_set (args, " \t", -1);
  for (guint i = 0; words[i] != NULL && named; i++)
    {
      g_autofree char *key = g_strndup (words[i], strcspn (words[i], "="));

      named = *words[i] == '\0' || (strchr (words[i], '=') != NULL &&
                                     g_strv_contains ((const char * const *) prompt->arguments, key));
    }
  if (!named)
    {
      json_object_set_string_member (arguments, prompt->arguments[0], args);
      return arguments;
    }
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0')
      {
        g_autofree char *key = g_strndup (words[i], strcspn (words[i], "="));

        json_object_set_string_member (arguments, key, words[i] + strlen (key) + 1);
      }
  return arguments;
}

static void
prompt_got_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(ZotExtCommandInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  g_autoptr(GString) text = g_string_new (NULL);
  JsonArray *messages;

  if (answer == NULL)
    {
      zot_ext_command_invocation_return_error (invocation, error->message);
      return;
    }
  messages = _zot_mcp_array_member (answer, "messages");
  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonObject *message = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *content = message != NULL ? json_object_get_member (message, "content") : NULL;
      JsonObject *part = content != NULL && JSON_NODE_HOLDS_OBJECT (content) ? json_node_get_object (content) : NULL;
      const char *body = part != NULL ? json_object_get_string_member_with_default (part, "text", NULL) : NULL;

      if (body != NULL)
        g_string_append_printf (text, "%s%s", text->len > 0 ? "\n\n" : "", body);
    }
  if (text->len == 0)
    {
      zot_ext_command_invocation_return_error (invocation, _("the MCP prompt has no text"));
      return;
    }
  zot_ext_command_invocation_return_prompt (invocation, text->str);
}

static gboolean
prompt_command_cb (ZotExtExtension         *ext,
                   ZotExtCommandInvocation *invocation,
                   Bridge                  *bridge)
{
  Prompt *prompt = g_hash_table_lookup (bridge->prompts, zot_ext_command_invocation_get_name (invocation));
  JsonObject *arguments;
  JsonObject *params;
  g_autoptr(GString) missing = g_string_new (NULL);

  if (prompt == NULL)
    return FALSE;
  if (!_zot_mcp_server_usable (prompt->server))
    {
      zot_ext_command_invocation_return_error (invocation, prompt->server->failure);
      return TRUE;
    }
  arguments = prompt_arguments (prompt, zot_ext_command_invocation_get_args (invocation));
  for (guint i = 0; prompt->required[i] != NULL; i++)
    if (!json_object_has_member (arguments, prompt->required[i]))
      g_string_append_printf (missing, " %s=…", prompt->required[i]);
  if (missing->len > 0)
    {
      /* Translators: a command, then the arguments it lacks, each as " NAME=…" */
      g_autofree char *why = g_strdup_printf (_("/%s needs%s"), zot_ext_command_invocation_get_name (invocation),
                                              missing->str);

      json_object_unref (arguments);
      zot_ext_command_invocation_return_error (invocation, why);
      return TRUE;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "name", prompt->name);
  json_object_set_object_member (params, "arguments", arguments);
  _zot_mcp_server_request (prompt->server, "prompts/get", _zot_mcp_object_node (params),
                          NULL, prompt_got_cb, g_object_ref (invocation));
  return TRUE;
}

static void
register_prompt (Server     *server,
                 JsonObject *object)
{
  Bridge *bridge = server->bridge;
  const char *name = json_object_get_string_member_with_default (object, "name", NULL);
  g_autoptr(GStrvBuilder) arguments = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) required = g_strv_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *command = NULL;
  g_autofree char *signal = NULL;
  JsonArray *list;
  Prompt *prompt;

  if (name == NULL)
    return;
  command = g_strdelimit (g_strdup_printf ("mcp:%s:%s", server->name, name), " \t\r\n/", '_');
  if (g_utf8_strlen (command, -1) > ZOT_COMMAND_NAME_MAX_CHARS || g_hash_table_contains (bridge->prompts, command))
    {
      g_printerr ("MCP server %s: prompt %s left out: /%s is too long or taken\n", server->name, name, command);
      return;
    }
  list = _zot_mcp_array_member (object, "arguments");
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      JsonObject *argument = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *argument_name = argument != NULL ? json_object_get_string_member_with_default (argument, "name", NULL) : NULL;

      if (argument_name == NULL)
        continue;
      g_strv_builder_add (arguments, argument_name);
      if (json_object_get_boolean_member_with_default (argument, "required", FALSE))
        g_strv_builder_add (required, argument_name);
    }
  if (!zot_ext_extension_add_command (bridge->ext, command,
                                      json_object_get_string_member_with_default (object, "description", ""), &error))
    {
      g_printerr ("MCP server %s: prompt %s left out: %s\n", server->name, name, error->message);
      return;
    }
  prompt = g_new0 (Prompt, 1);
  prompt->server = server;
  prompt->name = g_strdup (name);
  prompt->arguments = g_strv_builder_end (arguments);
  prompt->required = g_strv_builder_end (required);
  prompt->command = g_strdup (command);
  prompt->json = json_object_ref (object);
  g_hash_table_insert (bridge->prompts, g_strdup (command), prompt);
  signal = g_strconcat ("command::", command, NULL);
  prompt->handler = g_signal_connect (bridge->ext, signal, G_CALLBACK (prompt_command_cb), bridge);
}

static void list_prompts (Server *server);

static void
collect_prompt (Server     *server,
                JsonObject *object)
{
  g_ptr_array_add (server->prompt_listing, json_object_ref (object));
}

/* The difference applied, as for tools: a prompt gone or changed loses
 * its command, a new or changed one gets one, an unchanged one keeps
 * its own. */
static void
prompts_listed (Server   *server,
                gboolean  whole)
{
  Bridge *bridge = server->bridge;
  g_autoptr(GPtrArray) items = g_steal_pointer (&server->prompt_listing);
  g_autoptr(GHashTable) offered = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) kept = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  Prompt *prompt;

  for (guint i = 0; whole && i < items->len; i++)
    {
      const char *name = json_object_get_string_member_with_default (g_ptr_array_index (items, i), "name", NULL);

      if (name != NULL && !g_hash_table_contains (offered, name))
        g_hash_table_insert (offered, (gpointer) name, g_ptr_array_index (items, i));
    }
  g_hash_table_iter_init (&iter, bridge->prompts);
  while (whole && g_hash_table_iter_next (&iter, NULL, (gpointer *) &prompt))
    {
      JsonObject *now = g_hash_table_lookup (offered, prompt->name);
      g_autoptr(GError) error = NULL;

      if (prompt->server != server)
        continue;
      if (now != NULL && _zot_mcp_same_json (now, prompt->json))
        {
          g_hash_table_add (kept, prompt->name);
          continue;
        }
      if (!zot_ext_extension_unregister_command (bridge->ext, prompt->command, &error))
        g_printerr ("MCP server %s: /%s stays registered: %s\n", server->name, prompt->command, error->message);
      g_signal_handler_disconnect (bridge->ext, prompt->handler);
      g_hash_table_iter_remove (&iter);
    }
  for (guint i = 0; whole && i < items->len; i++)
    {
      JsonObject *object = g_ptr_array_index (items, i);
      const char *name = json_object_get_string_member_with_default (object, "name", NULL);

      if (name != NULL && !g_hash_table_contains (kept, name))
        register_prompt (server, object);
    }
  if (server->prompts_again)
    {
      server->prompts_again = FALSE;
      list_prompts (server);
    }
}

/* At most one listing runs for a server and at most one waits. */
static void
list_prompts (Server *server)
{
  if (server->prompt_listing != NULL)
    {
      server->prompts_again = TRUE;
      return;
    }
  server->prompt_listing = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  _zot_mcp_list_all_then (server, "prompts/list", "prompts", collect_prompt, FALSE, prompts_listed);
}

void
_zot_mcp_prompts_changed (Server *server)
{
  if (server->prompts)
    list_prompts (server);
}

guint
_zot_mcp_count_prompts (Server *server)
{
  GHashTableIter iter;
  Prompt *prompt;
  guint prompts = 0;

  g_hash_table_iter_init (&iter, server->bridge->prompts);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &prompt))
    prompts += prompt->server == server;
  return prompts;
}

/* /mcp: the panel in the window, else each server's state in words */

static gboolean
status_cb (ZotExtExtension         *ext,
           ZotExtCommandInvocation *invocation,
           Bridge                  *bridge)
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (zot_ext_extension_has_host_capability (ext, "panel_widgets"))
    return _zot_mcp_panel_open (bridge, invocation);
  if (bridge->servers->len == 0)
    g_string_append (text, _("No MCP servers are configured (zot mcp add, or mcp.json: docs/mcp.md)"));
  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);
      g_autofree char *state = _zot_mcp_server_describe (server);

      g_string_append_printf (text, "%s%s (%s): %s", i > 0 ? "\n" : "", server->name,
                              zot_mcp_transport_to_string (server->transport), state);
    }
  zot_ext_command_invocation_return_display (invocation, text->str);
  return TRUE;
}

void
_zot_mcp_add_status_command (Bridge *bridge)
{
  g_autoptr(GError) error = NULL;

  if (!zot_ext_extension_add_command (bridge->ext, "mcp", "Show the MCP servers and their state", &error))
    g_error ("/mcp: %s", error->message);
  g_signal_connect (bridge->ext, "command::mcp", G_CALLBACK (status_cb), bridge);
}

/**
 * _zot_mcp_extras_server_ready:
 *
 * Registers the resource tools when @server is the first with
 * resources, and lists its prompts as commands.
 */
void
_zot_mcp_extras_server_ready (Server     *server,
                              JsonObject *capabilities)
{
  if (json_object_has_member (capabilities, "resources"))
    _zot_mcp_resources_server_ready (server);
  server->prompts = json_object_has_member (capabilities, "prompts");
  if (server->prompts)
    list_prompts (server);
}
