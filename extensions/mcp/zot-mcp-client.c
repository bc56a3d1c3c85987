#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "zot-flatpak.h"
#include "zot-limits.h"
#include "zot-mcp-client-private.h"

/* Reads come in pieces of this size; a line is at most
 * ZOT_MCP_LINE_MAX_BYTES. */
#define READ_CHUNK_BYTES  65536
/* Of a line too long to keep, the ends are kept to find its id. */
#define SKIPPED_END_BYTES 256

G_DEFINE_FINAL_TYPE (ZotMcpClient, zot_mcp_client, G_TYPE_OBJECT)

enum { CLOSED, NOTIFICATION, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
request_free (Request *request)
{
  if (request->timeout != NULL)
    {
      g_source_destroy (request->timeout);
      g_source_unref (request->timeout);
    }
  if (request->cancelled != NULL)
    {
      g_source_destroy (request->cancelled);
      g_source_unref (request->cancelled);
    }
  g_clear_object (&request->task);
  g_free (request->method);
  g_free (request);
}

/* Takes @request out of the pending table; the caller answers its task. */
static GTask *
take_request (ZotMcpClient *self,
              Request      *request)
{
  GTask *task = g_steal_pointer (&request->task);

  self->last_activity = g_get_monotonic_time ();
  g_hash_table_remove (self->pending, &request->id);
  return task;
}

static void
fail_request (ZotMcpClient *self,
              Request      *request,
              GError       *error)
{
  g_autoptr(GTask) task = take_request (self, request);

  g_task_return_error (task, error);
}

void
_zot_mcp_client_fail_id (ZotMcpClient *self,
                         gint64        id,
                         GError       *error)
{
  Request *request = g_hash_table_lookup (self->pending, &id);

  if (request != NULL)
    fail_request (self, request, error);
  else
    g_error_free (error);
}

static gboolean
is_running (ZotMcpClient *self)
{
  return self->failure == NULL && (self->input != NULL || self->http != NULL);
}

/* Writing */

static void write_next (ZotMcpClient *self);

static void
fail_all (ZotMcpClient *self,
          const char   *why)
{
  GHashTableIter iter;
  Request *request;
  g_autoptr(GPtrArray) requests = g_ptr_array_new ();

  if (self->failure == NULL)
    self->failure = g_strdup (why);
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &request))
    g_ptr_array_add (requests, request);
  for (guint i = 0; i < requests->len; i++)
    fail_request (self, g_ptr_array_index (requests, i),
                  g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, self->failure));
}

static void
written_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(ZotMcpClient) self = user_data;
  g_autoptr(GError) error = NULL;

  self->writing = FALSE;
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *why = g_strdup_printf (_("MCP server %s: writing to it failed: %s"),
                                                  self->name, error->message);
          fail_all (self, why);
        }
      return;
    }
  write_next (self);
}

static void
write_next (ZotMcpClient *self)
{
  GBytes *bytes;

  if (self->writing || self->input == NULL || (bytes = g_queue_peek_head (&self->writes)) == NULL)
    return;
  self->writing = TRUE;
  g_output_stream_write_all_async (self->input, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, self->cancellable, written_cb, g_object_ref (self));
  /* write_all_async keeps reading from the buffer: it is freed only when
   * the next write starts, or with the client. */
  g_queue_pop_head (&self->writes);
  g_object_set_data_full (G_OBJECT (self), "zot-mcp-writing", bytes, (GDestroyNotify) g_bytes_unref);
}

static void
send_message (ZotMcpClient *self,
              JsonObject   *message)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  GString *line;
  gint64 id = json_object_has_member (message, "method") && json_object_has_member (message, "id")
              ? json_object_get_int_member (message, "id") : 0;

  json_object_set_string_member (message, "jsonrpc", "2.0");
  json_node_take_object (node, message);
  text = json_to_string (node, FALSE);
  if (self->http != NULL)
    {
      _zot_mcp_http_post (self, id, text);
      return;
    }
  line = g_string_new (text);
  g_string_append_c (line, '\n');
  g_queue_push_tail (&self->writes, g_string_free_to_bytes (line));
  write_next (self);
}

/* Answering the server's own requests: only ping is known. */
static void
answer_server_request (ZotMcpClient *self,
                       JsonObject   *message)
{
  JsonObject *reply = json_object_new ();
  const char *method = json_object_get_string_member_with_default (message, "method", "");

  json_object_set_member (reply, "id", json_node_copy (json_object_get_member (message, "id")));
  if (g_str_equal (method, "ping"))
    json_object_set_object_member (reply, "result", json_object_new ());
  else
    {
      JsonObject *error = json_object_new ();

      json_object_set_int_member (error, "code", -32601);
      json_object_set_string_member (error, "message", "Method not found");
      json_object_set_object_member (reply, "error", error);
    }
  send_message (self, reply);
}

/* Reading */

static Request *
lookup (ZotMcpClient *self,
        JsonNode     *id)
{
  gint64 value;

  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64)
    return NULL;
  value = json_node_get_int (id);
  return g_hash_table_lookup (self->pending, &value);
}

static void
handle_response (ZotMcpClient *self,
                 Request      *request,
                 JsonObject   *message)
{
  JsonNode *result = json_object_get_member (message, "result");
  JsonNode *error = json_object_get_member (message, "error");
  g_autofree char *method = g_strdup (request->method);
  g_autoptr(GTask) task = NULL;

  if (g_strcmp0 (json_object_get_string_member_with_default (message, "jsonrpc", NULL), "2.0") != 0 ||
      (error == NULL && (result == NULL || !JSON_NODE_HOLDS_OBJECT (result))))
    {
      fail_request (self, request,
                    g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                 _("MCP server %s answered %s with something that is not JSON-RPC 2.0"),
                                 self->name, request->method));
      return;
    }
  task = take_request (self, request);
  if (error != NULL)
    {
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (error) ? json_node_get_object (error) : NULL;
      const char *text = object != NULL ? json_object_get_string_member_with_default (object, "message", "") : "";
      gint64 code = object != NULL ? json_object_get_int_member_with_default (object, "code", 0) : 0;

      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("MCP server %s: %s failed: %s (code %d)"),
                               self->name, method, text, (int) code);
      return;
    }
  g_task_return_pointer (task, json_object_ref (json_node_get_object (result)),
                         (GDestroyNotify) json_object_unref);
}

void
_zot_mcp_client_handle_line (ZotMcpClient *self,
                             const char   *text,
                             gsize         length)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *message;
  JsonNode *root;
  Request *request;

  if (length == 0)
    return;
  if (!json_parser_load_from_data (parser, text, (gssize) length, NULL) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_printerr ("[%s] a line that is not a JSON object, ignored: %.80s\n", self->name, text);
      return;
    }
  message = json_node_get_object (root);
  if (json_object_has_member (message, "method"))
    {
      JsonNode *params = json_object_get_member (message, "params");

      if (json_object_has_member (message, "id"))
        answer_server_request (self, message);
      else
        g_signal_emit (self, signals[NOTIFICATION], 0,
                       json_object_get_string_member_with_default (message, "method", ""),
                       params != NULL && JSON_NODE_HOLDS_OBJECT (params) ? json_node_get_object (params) : NULL);
      return;
    }
  request = lookup (self, json_object_get_member (message, "id"));
  if (request == NULL)
    {
      g_printerr ("[%s] an answer to no waiting request, ignored\n", self->name);
      return;
    }
  handle_response (self, request, message);
}

/* A line too long to keep: its id is found at either end if it is there,
 * and its request fails saying why. */
static void
end_skipped_line (ZotMcpClient *self)
{
  g_autoptr(GRegex) regex = g_regex_new ("\"id\"\\s*:\\s*([0-9]+)", 0, 0, NULL);
  const char *ends[] = { self->skipped_tail->str, self->skipped_head->str };

  self->skipping = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ends); i++)
    {
      g_autoptr(GMatchInfo) match = NULL;

      if (g_regex_match (regex, ends[i], 0, &match))
        {
          g_autofree char *digits = g_match_info_fetch (match, 1);
          gint64 id = g_ascii_strtoll (digits, NULL, 10);
          Request *request = g_hash_table_lookup (self->pending, &id);

          if (request != NULL)
            {
              fail_request (self, request,
                            g_error_new (G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                                         _("MCP server %s answered %s with more than %u MiB; the answer was dropped"),
                                         self->name, request->method,
                                         (guint) (ZOT_MCP_LINE_MAX_BYTES / (1024 * 1024))));
              return;
            }
        }
    }
  g_printerr ("[%s] a line over %" G_GSIZE_FORMAT " bytes, skipped\n", self->name, ZOT_MCP_LINE_MAX_BYTES);
}

static void
skip_bytes (ZotMcpClient *self,
            const guint8 *data,
            gsize         length)
{
  if (self->skipped_head->len < SKIPPED_END_BYTES)
    g_string_append_len (self->skipped_head, (const char *) data,
                         MIN (length, SKIPPED_END_BYTES - self->skipped_head->len));
  g_string_append_len (self->skipped_tail, (const char *) data, MIN (length, SKIPPED_END_BYTES));
  if (length > SKIPPED_END_BYTES)
    {
      g_string_truncate (self->skipped_tail, 0);
      g_string_append_len (self->skipped_tail, (const char *) data + length - SKIPPED_END_BYTES, SKIPPED_END_BYTES);
    }
  else if (self->skipped_tail->len > SKIPPED_END_BYTES)
    g_string_erase (self->skipped_tail, 0, (gssize) (self->skipped_tail->len - SKIPPED_END_BYTES));
}

static void
take_bytes (ZotMcpClient *self,
            const guint8 *data,
            gsize         length)
{
  while (length > 0)
    {
      const guint8 *newline = memchr (data, '\n', length);
      gsize piece = newline != NULL ? (gsize) (newline - data) : length;

      if (self->skipping)
        skip_bytes (self, data, piece);
      else if (self->line->len + piece > ZOT_MCP_LINE_MAX_BYTES)
        {
          self->skipping = TRUE;
          g_string_truncate (self->skipped_head, 0);
          g_string_truncate (self->skipped_tail, 0);
          skip_bytes (self, self->line->data, self->line->len);
          skip_bytes (self, data, piece);
          g_byte_array_set_size (self->line, 0);
        }
      else
        g_byte_array_append (self->line, data, (guint) piece);

      if (newline == NULL)
        return;
      if (self->skipping)
        end_skipped_line (self);
      else
        {
          g_byte_array_append (self->line, (const guint8 *) "", 1);
          _zot_mcp_client_handle_line (self, (const char *) self->line->data, self->line->len - 1);
          g_byte_array_set_size (self->line, 0);
        }
      data += piece + 1;
      length -= piece + 1;
    }
}

static void maybe_closed (ZotMcpClient *self);

static void
stdout_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(ZotMcpClient) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* The process is ending: its status comes with the wait. */
      return;
    }
  take_bytes (self, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_input_stream_read_bytes_async (G_INPUT_STREAM (object), READ_CHUNK_BYTES, G_PRIORITY_DEFAULT,
                                   self->cancellable, stdout_read_cb, g_object_ref (self));
}

static void
stderr_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(ZotMcpClient) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  gsize length;
  const char *data;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (error == NULL || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          self->stderr_done = TRUE;
          maybe_closed (self);
        }
      return;
    }
  data = g_bytes_get_data (bytes, &length);
  /* Its stderr goes to the bridge's, which is the extension's log. */
  g_printerr ("[%s] %.*s", self->name, (int) length, data);
  g_string_append_len (self->stderr_tail, data, (gssize) length);
  if (self->stderr_tail->len > ZOT_MCP_STDERR_TAIL_BYTES)
    g_string_erase (self->stderr_tail, 0, (gssize) (self->stderr_tail->len - ZOT_MCP_STDERR_TAIL_BYTES));
  g_input_stream_read_bytes_async (G_INPUT_STREAM (object), READ_CHUNK_BYTES, G_PRIORITY_DEFAULT,
                                   self->cancellable, stderr_read_cb, g_object_ref (self));
}

static void
maybe_closed (ZotMcpClient *self)
{
  g_autofree char *why = NULL;
  g_autofree char *tail = NULL;

  if (!self->exited || !self->stderr_done || self->failure != NULL)
    return;
  tail = zot_mcp_client_dup_stderr_tail (self);
  if (tail != NULL && *tail != '\0')
    /* Translators: the first %s says how a server ended, the second is the end of its error output */
    why = g_strdup_printf (_("%s; its last words: %s"), self->exit_status, tail);
  else
    why = g_strdup (self->exit_status);
  fail_all (self, why);
  g_signal_emit (self, signals[CLOSED], 0);
}

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(ZotMcpClient) self = user_data;
  GSubprocess *process = G_SUBPROCESS (object);
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_finish (process, result, &error))
    return;
  self->exited = TRUE;
  if (g_subprocess_get_if_signaled (process))
    self->exit_status = g_strdup_printf (_("MCP server %s was killed by signal %d"), self->name,
                                         g_subprocess_get_term_sig (process));
  else
    self->exit_status = g_strdup_printf (_("MCP server %s exited with status %d"), self->name,
                                         g_subprocess_get_exit_status (process));
  /* What it started goes with it, and their hold on stderr. */
  if (self->pid > 0)
    killpg (self->pid, SIGKILL);
  maybe_closed (self);
}

/* Requests */

static gboolean
request_timeout_cb (gpointer user_data)
{
  Request *request = user_data;
  ZotMcpClient *self = request->client;

  fail_request (self, request,
                g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                             _("MCP server %s did not answer %s within %u s"),
                             self->name, request->method, (request->timeout_ms + 999) / 1000));
  return G_SOURCE_REMOVE;
}

static gboolean
request_cancelled_cb (GCancellable *cancellable,
                      gpointer      user_data)
{
  Request *request = user_data;
  ZotMcpClient *self = request->client;
  JsonObject *params = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (params, "requestId", request->id);
  json_object_set_string_member (params, "reason", "cancelled by the user");
  json_node_take_object (node, params);
  zot_mcp_client_notify (self, "notifications/cancelled", g_steal_pointer (&node));
  fail_request (self, request, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Cancelled")));
  return G_SOURCE_REMOVE;
}

/**
 * zot_mcp_client_request:
 * @params: (transfer full) (nullable): the params object
 *
 * Sends a request; it fails after @timeout_ms, when @cancellable is
 * cancelled (the server is told) or when the server goes.
 */
void
zot_mcp_client_request (ZotMcpClient        *self,
                        const char          *method,
                        JsonNode            *params,
                        guint                timeout_ms,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(JsonNode) owned = params;
  JsonObject *message;
  Request *request;

  request = g_new0 (Request, 1);
  request->client = self;
  request->task = g_task_new (self, NULL, callback, user_data);
  request->method = g_strdup (method);
  request->timeout_ms = timeout_ms;
  if (!is_running (self))
    {
      g_task_return_new_error (request->task, G_IO_ERROR, G_IO_ERROR_CLOSED, "%s",
                               self->failure != NULL ? self->failure : _("the MCP server is not running"));
      request_free (request);
      return;
    }
  request->id = ++self->next_id;
  self->last_activity = g_get_monotonic_time ();
  g_hash_table_insert (self->pending, &request->id, request);

  request->timeout = g_timeout_source_new (timeout_ms);
  g_source_set_callback (request->timeout, request_timeout_cb, request, NULL);
  g_source_attach (request->timeout, g_main_context_get_thread_default ());
  if (cancellable != NULL)
    {
      request->cancelled = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancelled, G_SOURCE_FUNC (request_cancelled_cb), request, NULL);
      g_source_attach (request->cancelled, g_main_context_get_thread_default ());
    }

  message = json_object_new ();
  json_object_set_int_member (message, "id", request->id);
  json_object_set_string_member (message, "method", method);
  if (owned != NULL)
    json_object_set_member (message, "params", g_steal_pointer (&owned));
  send_message (self, message);
}

/**
 * zot_mcp_client_request_finish:
 *
 * Returns: (transfer full): the `result` object
 */
JsonObject *
zot_mcp_client_request_finish (ZotMcpClient  *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
zot_mcp_client_notify (ZotMcpClient *self,
                       const char   *method,
                       JsonNode     *params)
{
  g_autoptr(JsonNode) owned = params;
  JsonObject *message;

  if (!is_running (self))
    return;
  message = json_object_new ();
  json_object_set_string_member (message, "method", method);
  if (owned != NULL)
    json_object_set_member (message, "params", g_steal_pointer (&owned));
  send_message (self, message);
}

/* The process */

static void
setup_child (gpointer user_data)
{
  /* Its own group, so that what it starts ends with it; and it ends
   * with the bridge, even when the bridge is killed. */
  setpgid (0, 0);
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
}

static gboolean spawn (ZotMcpClient *self, GSubprocessLauncher *launcher, const char * const *argv, GError **error);

gboolean
zot_mcp_client_start (ZotMcpClient  *self,
                      GError       **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

  if (self->url != NULL)
    return _zot_mcp_http_start (self, error);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, self->cwd);
  g_subprocess_launcher_set_child_setup (launcher, setup_child, NULL, NULL);
  if (self->permissions != NULL)
    {
      g_auto(GStrv) boxed = _zot_mcp_box_wrap (self, launcher, error);

      if (boxed == NULL)
        {
          self->failure = g_strdup ((*error)->message);
          return FALSE;
        }
      return spawn (self, launcher, (const char * const *) boxed, error);
    }
  for (guint i = 0; self->env != NULL && self->env[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (self->env[i], strcspn (self->env[i], "="));

      g_subprocess_launcher_setenv (launcher, name, self->env[i] + strlen (name) + 1, TRUE);
      g_strv_builder_add (names, name);
    }
  g_ptr_array_add (argv, self->command);
  for (guint i = 0; self->args != NULL && self->args[i] != NULL; i++)
    g_ptr_array_add (argv, self->args[i]);
  g_ptr_array_add (argv, NULL);
  /* Inside the Flatpak the server runs on the host, with the session's
   * environment and the entry's variables. */
  if (zot_flatpak_is_sandboxed ())
    {
      g_auto(GStrv) env_names = g_strv_builder_end (names);
      g_auto(GStrv) host = zot_flatpak_build_host_argv (launcher, self->cwd, (const char * const *) env_names,
                                                        (const char * const *) argv->pdata);

      return spawn (self, launcher, (const char * const *) host, error);
    }
  return spawn (self, launcher, (const char * const *) argv->pdata, error);
}

void
zot_mcp_client_set_permissions (ZotMcpClient         *self,
                                const ZotPermissions *permissions)
{
  self->permissions = permissions;
}

static gboolean
spawn (ZotMcpClient        *self,
       GSubprocessLauncher *launcher,
       const char * const  *argv,
       GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *identifier;

  self->process = g_subprocess_launcher_spawnv (launcher, argv, &local_error);
  if (self->process == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("MCP server %s: could not start %s: %s"),
                   self->name, self->command, local_error->message);
      self->failure = g_strdup ((*error)->message);
      return FALSE;
    }
  identifier = g_subprocess_get_identifier (self->process);
  self->pid = identifier != NULL ? (GPid) atoi (identifier) : 0;
  self->input = g_object_ref (g_subprocess_get_stdin_pipe (self->process));
  g_input_stream_read_bytes_async (g_subprocess_get_stdout_pipe (self->process), READ_CHUNK_BYTES,
                                   G_PRIORITY_DEFAULT, self->cancellable, stdout_read_cb, g_object_ref (self));
  g_input_stream_read_bytes_async (g_subprocess_get_stderr_pipe (self->process), READ_CHUNK_BYTES,
                                   G_PRIORITY_DEFAULT, self->cancellable, stderr_read_cb, g_object_ref (self));
  g_subprocess_wait_async (self->process, self->cancellable, waited_cb, g_object_ref (self));
  return TRUE;
}

/**
 * zot_mcp_client_stop:
 *
 * Ends the server and all it started; its waiting requests fail.
 */
void
zot_mcp_client_stop (ZotMcpClient *self)
{
  g_autofree char *why = g_strdup_printf (_("MCP server %s was stopped"), self->name);

  /* Inside the Flatpak SIGKILL would end flatpak-spawn alone: the host
   * server's group gets SIGINT and SIGTERM first. */
  if (self->process != NULL && !self->exited && self->pid > 0)
    zot_flatpak_kill (self->process, self->pid);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->input);
  g_clear_object (&self->http);
  fail_all (self, why);
}

/**
 * zot_mcp_client_is_idle_for:
 * @remaining_ms: (out): when it is not, how long until it may be
 *
 * Whether no request has waited on the server for @ms.
 */
gboolean
zot_mcp_client_is_idle_for (ZotMcpClient *self,
                            guint         ms,
                            guint        *remaining_ms)
{
  gint64 quiet_ms = (g_get_monotonic_time () - self->last_activity) / 1000;

  *remaining_ms = ms;
  if (g_hash_table_size (self->pending) > 0)
    return FALSE;
  if (quiet_ms >= ms)
    return TRUE;
  *remaining_ms = ms - (guint) quiet_ms;
  return FALSE;
}

char *
zot_mcp_client_dup_stderr_tail (ZotMcpClient *self)
{
  const char *text = self->stderr_tail->str;
  const char *start = text;
  g_autofree char *copy = NULL;

  /* Whole lines only, where a line starts within the tail. */
  if (self->stderr_tail->len >= ZOT_MCP_STDERR_TAIL_BYTES)
    {
      const char *newline = strchr (text, '\n');

      if (newline != NULL && newline[1] != '\0')
        start = newline + 1;
    }
  copy = g_strstrip (g_strdup (start));
  return g_utf8_make_valid (copy, -1);
}

const char *
zot_mcp_client_get_failure (ZotMcpClient *self)
{
  return self->failure;
}

/* Sent with every HTTP request after the handshake, as the protocol asks. */
void
zot_mcp_client_set_protocol_version (ZotMcpClient *self,
                                     const char   *version)
{
  g_free (self->protocol_version);
  self->protocol_version = g_strdup (version);
}

const char *
zot_mcp_client_get_name (ZotMcpClient *self)
{
  return self->name;
}

static void
zot_mcp_client_dispose (GObject *object)
{
  ZotMcpClient *self = ZOT_MCP_CLIENT (object);

  if (self->cancellable != NULL)
    zot_mcp_client_stop (self);
  g_clear_object (&self->process);
  g_clear_object (&self->input);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (zot_mcp_client_parent_class)->dispose (object);
}

static void
zot_mcp_client_finalize (GObject *object)
{
  ZotMcpClient *self = ZOT_MCP_CLIENT (object);

  g_hash_table_unref (self->pending);
  g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
  g_byte_array_unref (self->line);
  g_string_free (self->skipped_head, TRUE);
  g_string_free (self->skipped_tail, TRUE);
  g_string_free (self->stderr_tail, TRUE);
  g_free (self->name);
  g_free (self->command);
  g_strfreev (self->args);
  g_strfreev (self->env);
  g_free (self->cwd);
  g_free (self->exit_status);
  g_free (self->failure);
  g_free (self->url);
  g_strfreev (self->headers);
  g_free (self->session_id);
  g_free (self->protocol_version);
  G_OBJECT_CLASS (zot_mcp_client_parent_class)->finalize (object);
}

static void
zot_mcp_client_class_init (ZotMcpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_mcp_client_dispose;
  object_class->finalize = zot_mcp_client_finalize;

  /* The process ended; zot_mcp_client_get_failure() says how. */
  signals[CLOSED] = g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* A notification from the server: its method and its params, or %NULL. */
  signals[NOTIFICATION] = g_signal_new ("notification", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                        G_TYPE_STRING, JSON_TYPE_OBJECT);
}

static void
zot_mcp_client_init (ZotMcpClient *self)
{
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, (GDestroyNotify) request_free);
  g_queue_init (&self->writes);
  self->line = g_byte_array_new ();
  self->skipped_head = g_string_new (NULL);
  self->skipped_tail = g_string_new (NULL);
  self->stderr_tail = g_string_new (NULL);
  self->cancellable = g_cancellable_new ();
}

ZotMcpClient *
zot_mcp_client_new (const ZotMcpServer *server,
                    const char         *cwd)
{
  ZotMcpClient *self = g_object_new (ZOT_TYPE_MCP_CLIENT, NULL);

  self->name = g_strdup (server->name);
  self->command = g_strdup (server->command);
  self->args = g_strdupv (server->args);
  self->env = g_strdupv (server->env);
  self->cwd = g_strdup (cwd);
  if (server->transport == ZOT_MCP_TRANSPORT_HTTP)
    {
      self->url = g_strdup (server->url);
      self->headers = g_strdupv (server->headers);
    }
  return self;
}
