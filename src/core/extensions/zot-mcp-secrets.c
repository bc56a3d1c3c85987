/* zot-mcp-secrets.c — `${secret:NAME}` in an MCP server's env or
 * headers. The value is the bridge's own per-extension secret
 * mcp/SERVER/NAME (`zot ext secret set mcp mcp/SERVER/NAME`), so a
 * server gets only its own; it is put in when the server starts, in the
 * bridge's memory only, never in the file or a log line. */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-mcp-secrets.h"

#define OPENING "${secret:"

/* Calls @each with every NAME of `${secret:NAME}` in @value. */
static void
scan (const char *value,
      void      (*each) (const char *name, gsize length, gpointer data),
      gpointer    data)
{
  for (const char *at = value != NULL ? strstr (value, OPENING) : NULL; at != NULL; at = strstr (at, OPENING))
    {
      const char *name = at + strlen (OPENING);
      const char *end = strchr (name, '}');

      if (end == NULL)
        return;
      each (name, (gsize) (end - name), data);
      at = end + 1;
    }
}

typedef struct
{
  const char *server;
  GPtrArray  *keys;
} Collect;

static void
collect (const char *name,
         gsize       length,
         gpointer    data)
{
  Collect *collect_ = data;
  g_autofree char *key = g_strdup_printf ("mcp/%s/%.*s", collect_->server, (int) length, name);

  if (!g_ptr_array_find_with_equal_func (collect_->keys, key, g_str_equal, NULL))
    g_ptr_array_add (collect_->keys, g_steal_pointer (&key));
}

/**
 * zot_mcp_secret_keys:
 * @servers: (element-type ZotMcpServer)
 *
 * Returns: every secret the servers' env and headers name, as keys
 *   mcp/SERVER/NAME
 */
GStrv
zot_mcp_secret_keys (GPtrArray *servers)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; servers != NULL && i < servers->len; i++)
    {
      ZotMcpServer *server = g_ptr_array_index (servers, i);
      Collect collect_ = { server->name, keys };

      for (guint j = 0; server->env != NULL && server->env[j] != NULL; j++)
        scan (server->env[j], collect, &collect_);
      for (guint j = 0; server->headers != NULL && server->headers[j] != NULL; j++)
        scan (server->headers[j], collect, &collect_);
    }
  g_ptr_array_add (keys, NULL);
  return (GStrv) g_ptr_array_steal (keys, NULL);
}

/* The keys the configuration @cwd sees names: what `zot ext secret`
 * takes for the bridge. */
GStrv
zot_mcp_secret_keys_configured (const char *cwd)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) servers = zot_mcp_config_load (cwd, notes);

  return zot_mcp_secret_keys (servers);
}

static char *
expand (const char  *server,
        const char  *value,
        GHashTable  *secrets,
        GError     **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *rest = value;
  const char *at;

  while ((at = strstr (rest, OPENING)) != NULL && strchr (at, '}') != NULL)
    {
      const char *name = at + strlen (OPENING);
      const char *end = strchr (name, '}');
      g_autofree char *key = g_strdup_printf ("mcp/%s/%.*s", server, (int) (end - name), name);
      const char *secret = secrets != NULL ? g_hash_table_lookup (secrets, key) : NULL;

      if (secret == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       /* Translators: a server's name, then the secret's key twice */
                       _("MCP server %s: the secret %s is not set; set it with: zot ext secret set mcp %s"),
                       server, key, key);
          return NULL;
        }
      g_string_append_len (out, rest, at - rest);
      g_string_append (out, secret);
      rest = end + 1;
    }
  g_string_append (out, rest);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static GStrv
expand_all (const char  *server,
            GStrv        values,
            GHashTable  *secrets,
            GError     **error)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    {
      g_autofree char *value = expand (server, values[i], secrets, error);

      if (value == NULL)
        return NULL;
      g_strv_builder_add (builder, value);
    }
  return values != NULL ? g_strv_builder_end (builder) : NULL;
}

/**
 * zot_mcp_server_with_secrets:
 *
 * The copy has no permissions: they are @server's, read where it is.
 * @secrets: key → value, as the keyring gave them
 *
 * Returns: (transfer full): a copy of @server with its env and headers'
 *   `${secret:NAME}` replaced, or %NULL when a secret is not set
 */
ZotMcpServer *
zot_mcp_server_with_secrets (const ZotMcpServer  *server,
                             GHashTable          *secrets,
                             GError             **error)
{
  g_autoptr(ZotMcpServer) copy = g_new0 (ZotMcpServer, 1);

  copy->name = g_strdup (server->name);
  copy->transport = server->transport;
  copy->command = g_strdup (server->command);
  copy->args = g_strdupv (server->args);
  copy->url = g_strdup (server->url);
  copy->origin = g_strdup (server->origin);
  copy->env = expand_all (server->name, server->env, secrets, error);
  if (server->env != NULL && copy->env == NULL)
    return NULL;
  copy->headers = expand_all (server->name, server->headers, secrets, error);
  if (server->headers != NULL && copy->headers == NULL)
    return NULL;
  return g_steal_pointer (&copy);
}
