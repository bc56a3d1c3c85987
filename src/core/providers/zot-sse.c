/* zot-sse.c — reading Server-Sent Events.
 *
 * The reader (SseRead) loops on g_input_stream_read_async() with a timer
 * per read that cancels a private cancellable when the server goes silent,
 * and feeds what arrives to the event parser. The HTTP side, posting and
 * retrying, is in zot-sse-post.c.
 */
#define G_LOG_DOMAIN "zot-sse"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-limits.h"
#include "zot-provider.h"
#include "zot-source.h"
#include "zot-sse.h"
#include "zot-sse-private.h"

#define SSE_READ_SIZE          16384

/* ------------------------------------------------------------------ */
/* The event parser                                                    */
/* ------------------------------------------------------------------ */

typedef enum
{
  SSE_CONTINUE,
  SSE_STOP,
  SSE_FAILED,
} SseStatus;

typedef struct
{
  GString  *line;
  GString  *data;
  char     *event;
  gboolean  has_data;
  gboolean  skip_lf;
} SseParser;

static void
sse_parser_init (SseParser *parser)
{
  parser->line = g_string_new (NULL);
  parser->data = g_string_new (NULL);
  parser->event = NULL;
  parser->has_data = FALSE;
  parser->skip_lf = FALSE;
}

static void
sse_parser_clear (SseParser *parser)
{
  if (parser->line != NULL)
    g_string_free (g_steal_pointer (&parser->line), TRUE);
  if (parser->data != NULL)
    g_string_free (g_steal_pointer (&parser->data), TRUE);
  g_clear_pointer (&parser->event, g_free);
}

static void
set_too_large (GError **error)
{
  g_autofree char *size = g_format_size (ZOT_SSE_MAX_EVENT_BYTES);

  g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
               /* Translators: %s is a size, such as "1.0 MB" */
               _("an event of the stream is larger than %s"), size);
}

static SseStatus
sse_parser_dispatch (SseParser        *parser,
                     ZotSseEventFunc   func,
                     gpointer          func_data,
                     GCancellable     *cancellable,
                     GError          **error)
{
  g_autofree char *event = g_steal_pointer (&parser->event);
  g_autoptr(GError) local_error = NULL;
  gboolean has_data = parser->has_data;
  gboolean go_on;

  parser->has_data = FALSE;

  /* An event without data lines is not dispatched (the SSE spec). */
  if (!has_data)
    {
      g_string_truncate (parser->data, 0);
      return SSE_CONTINUE;
    }

  if (!g_utf8_validate (parser->data->str, parser->data->len, NULL) ||
      (event != NULL && !g_utf8_validate (event, -1, NULL)))
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                           _("the stream is not valid UTF-8"));
      return SSE_FAILED;
    }

  go_on = func (event != NULL ? event : "message", parser->data->str, func_data, &local_error);
  g_string_truncate (parser->data, 0);

  /* The callback may have cancelled the call (a signal handler did). */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return SSE_FAILED;

  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return SSE_FAILED;
    }

  return go_on ? SSE_CONTINUE : SSE_STOP;
}

static SseStatus
sse_parser_line (SseParser        *parser,
                 ZotSseEventFunc   func,
                 gpointer          func_data,
                 GCancellable     *cancellable,
                 GError          **error)
{
  const char *line = parser->line->str;
  gsize len = parser->line->len;
  const char *colon;
  const char *value;
  gsize field_len;
  gsize value_len;

  if (len == 0)
    return sse_parser_dispatch (parser, func, func_data, cancellable, error);

  if (line[0] == ':')
    return SSE_CONTINUE;

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      field_len = colon - line;
      value = colon + 1;
      if (*value == ' ')
        value++;
      value_len = len - (value - line);
    }
  else
    {
      field_len = len;
      value = line + len;
      value_len = 0;
    }

  if (field_len == 4 && memcmp (line, "data", 4) == 0)
    {
      if (parser->data->len + value_len + 1 > ZOT_SSE_MAX_EVENT_BYTES)
        {
          set_too_large (error);
          return SSE_FAILED;
        }
      if (parser->has_data)
        g_string_append_c (parser->data, '\n');
      g_string_append_len (parser->data, value, value_len);
      parser->has_data = TRUE;
    }
  else if (field_len == 5 && memcmp (line, "event", 5) == 0)
    {
      g_free (parser->event);
      parser->event = g_strndup (value, value_len);
    }

  /* "id", "retry" and unknown fields mean nothing to a one-shot stream. */
  return SSE_CONTINUE;
}

static SseStatus
sse_parser_feed (SseParser        *parser,
                 const char       *buffer,
                 gsize             length,
                 ZotSseEventFunc   func,
                 gpointer          func_data,
                 GCancellable     *cancellable,
                 GError          **error)
{
  gsize i = 0;

  while (i < length)
    {
      char c = buffer[i];
      gsize end;

      if (parser->skip_lf)
        {
          parser->skip_lf = FALSE;
          if (c == '\n')
            {
              i++;
              continue;
            }
        }

      if (c == '\r' || c == '\n')
        {
          SseStatus status;

          /* "\r\n" may be split across two reads; remember the "\r". */
          parser->skip_lf = (c == '\r');
          status = sse_parser_line (parser, func, func_data, cancellable, error);
          g_string_truncate (parser->line, 0);
          if (status != SSE_CONTINUE)
            return status;
          i++;
          continue;
        }

      for (end = i; end < length && buffer[end] != '\r' && buffer[end] != '\n'; end++)
        ;

      if (parser->line->len + parser->data->len + (end - i) > ZOT_SSE_MAX_EVENT_BYTES)
        {
          set_too_large (error);
          return SSE_FAILED;
        }

      g_string_append_len (parser->line, buffer + i, end - i);
      i = end;
    }

  return SSE_CONTINUE;
}

/* At EOF: a last line without its newline, then a last event without its
 * blank line, both still count. */
static SseStatus
sse_parser_finish (SseParser        *parser,
                   ZotSseEventFunc   func,
                   gpointer          func_data,
                   GCancellable     *cancellable,
                   GError          **error)
{
  if (parser->line->len > 0)
    {
      SseStatus status = sse_parser_line (parser, func, func_data, cancellable, error);

      g_string_truncate (parser->line, 0);
      if (status != SSE_CONTINUE)
        return status;
    }

  return sse_parser_dispatch (parser, func, func_data, cancellable, error);
}

/* ------------------------------------------------------------------ */
/* Helpers the poster shares                                           */
/* ------------------------------------------------------------------ */

char *
_zot_sse_format_ms (guint ms)
{
  if (ms >= 1000 && ms % 1000 == 0)
    /* Translators: a duration in seconds, used in messages such as "the stream stalled: nothing
     * arrived for 30 s" */
    return g_strdup_printf (_("%u s"), ms / 1000);
  if (ms >= 1000)
    /* Translators: a duration in seconds, with one decimal */
    return g_strdup_printf (_("%.1f s"), ms / 1000.0);
  /* Translators: a duration in milliseconds */
  return g_strdup_printf (_("%u ms"), ms);
}

GSource *
_zot_sse_add_timeout (GTask       *task,
                      guint        ms,
                      GSourceFunc  func,
                      gpointer     data)
{
  GSource *source = g_timeout_source_new (ms);

  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, "[zot-sse] deadline");
  g_source_attach (source, g_task_get_context (task));
  return source;
}

static void
cancel_other_cb (GCancellable *cancellable,
                 gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

/* Links @inner to @outer: cancelling @outer cancels @inner. */
gulong
_zot_sse_link_cancellable (GCancellable *outer,
                           GCancellable *inner)
{
  if (outer == NULL)
    return 0;

  return g_cancellable_connect (outer, G_CALLBACK (cancel_other_cb),
                                g_object_ref (inner), g_object_unref);
}

/* ------------------------------------------------------------------ */
/* The reader                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  GInputStream    *stream;
  ZotSseEventFunc  func;
  gpointer         func_data;
  GCancellable    *read_cancellable;
  gulong           cancel_id;
  GSource         *idle;
  guint            idle_ms;
  gboolean         timed_out;
  GSource         *total;          /* the whole response's deadline */
  gboolean         overlong;
  gsize            received;
  gboolean         cut;            /* the connection broke, not a deadline or a cap */
  SseParser        parser;
  char             buffer[SSE_READ_SIZE];
} SseRead;

static void
sse_read_free (gpointer user_data)
{
  SseRead *data = user_data;

  zot_clear_source (&data->idle);
  zot_clear_source (&data->total);
  sse_parser_clear (&data->parser);
  g_clear_object (&data->stream);
  g_clear_object (&data->read_cancellable);
  g_free (data);
}

static void
sse_read_return (GTask  *task,
                 GError *error)
{
  SseRead *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  zot_clear_source (&data->idle);
  zot_clear_source (&data->total);
  if (data->cancel_id != 0)
    {
      g_cancellable_disconnect (cancellable, data->cancel_id);
      data->cancel_id = 0;
    }

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
sse_read_idle_cb (gpointer user_data)
{
  SseRead *data = user_data;

  data->timed_out = TRUE;
  g_cancellable_cancel (data->read_cancellable);
  g_clear_pointer (&data->idle, g_source_unref);
  return G_SOURCE_REMOVE;
}

static gboolean
sse_read_total_cb (gpointer user_data)
{
  SseRead *data = user_data;

  data->overlong = TRUE;
  g_cancellable_cancel (data->read_cancellable);
  g_clear_pointer (&data->total, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void sse_read_next (GTask *task);

static void
sse_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SseRead *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GError) error = NULL;
  SseStatus status;
  gssize n;

  zot_clear_source (&data->idle);
  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  if (n < 0)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_clear_error (&error);
          g_cancellable_set_error_if_cancelled (cancellable, &error);
          sse_read_return (task, g_steal_pointer (&error));
        }
      else if (data->overlong)
        {
          g_autofree char *total =
            _zot_sse_format_ms (zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_TOTAL));

          sse_read_return (task, g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                                              /* Translators: %s is a duration, such as "10 min"
                                               * or "30 s"; a turn is one answer of the model */
                                              _("the response took longer than %s; the turn was "
                                                "ended (ask for a shorter answer)"),
                                              total));
        }
      else if (data->timed_out)
        {
          g_autofree char *idle = _zot_sse_format_ms (data->idle_ms);

          sse_read_return (task, g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                                              _("the stream stalled: nothing arrived for %s"),
                                              idle));
        }
      else
        {
          data->cut = TRUE;
          sse_read_return (task, g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                                              _("the stream ended early: %s"), error->message));
        }
      return;
    }

  /* What a server may send for one answer is bounded: a 50 MB answer
   * would be held whole in memory and written as one session line. */
  data->received += (gsize) n;
  if (data->received > ZOT_PROVIDER_RESPONSE_MAX_BYTES)
    {
      sse_read_return (task, g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                                          _("the response passed the %u MiB limit; the turn was "
                                            "ended (ask for a shorter answer)"),
                                          (guint) (ZOT_PROVIDER_RESPONSE_MAX_BYTES / (1024 * 1024))));
      return;
    }

  if (n == 0)
    status = sse_parser_finish (&data->parser, data->func, data->func_data, cancellable, &error);
  else
    status = sse_parser_feed (&data->parser, data->buffer, n,
                              data->func, data->func_data, cancellable, &error);

  if (status == SSE_FAILED)
    sse_read_return (task, g_steal_pointer (&error));
  else if (status == SSE_STOP || n == 0)
    sse_read_return (task, NULL);
  else
    sse_read_next (g_steal_pointer (&task));
}

static void
sse_read_next (GTask *task)
{
  SseRead *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    {
      sse_read_return (task, error);
      g_object_unref (task);
      return;
    }

  data->idle_ms = zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_IDLE);
  data->idle = _zot_sse_add_timeout (task, data->idle_ms, sse_read_idle_cb, data);
  g_input_stream_read_async (data->stream, data->buffer, sizeof data->buffer,
                             G_PRIORITY_DEFAULT, data->read_cancellable,
                             sse_read_cb, task);
}

/**
 * zot_sse_read_async:
 * @stream: a text/event-stream body
 * @func: called for each event
 * @func_data: data for @func; must outlive the operation
 * @cancellable: (nullable): cancels the read
 *
 * Reads @stream to its end, or until @func stops it. Fails with
 * ZOT_PROVIDER_ERROR_BAD_STREAM when a read fails, the server stays silent
 * longer than ZOT_TIMEOUT_PROVIDER_IDLE, an event passes
 * ZOT_SSE_MAX_EVENT_BYTES or is not UTF-8; with @func's error when it sets
 * one; with G_IO_ERROR_CANCELLED when cancelled, also from inside @func.
 */
void
zot_sse_read_async (GInputStream        *stream,
                    ZotSseEventFunc      func,
                    gpointer             func_data,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SseRead *data;

  g_return_if_fail (G_IS_INPUT_STREAM (stream));
  g_return_if_fail (func != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_sse_read_async);

  data = g_new0 (SseRead, 1);
  data->stream = g_object_ref (stream);
  data->func = func;
  data->func_data = func_data;
  data->read_cancellable = g_cancellable_new ();
  sse_parser_init (&data->parser);
  g_task_set_task_data (task, data, sse_read_free);

  data->cancel_id = _zot_sse_link_cancellable (cancellable, data->read_cancellable);
  data->total = _zot_sse_add_timeout (task, zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_TOTAL),
                                      sse_read_total_cb, data);

  sse_read_next (g_steal_pointer (&task));
}

/* Whether the read of @result failed because its connection broke. */
gboolean
_zot_sse_read_was_cut (GAsyncResult *result)
{
  SseRead *data = g_task_get_task_data (G_TASK (result));

  return data != NULL && data->cut;
}

gboolean
zot_sse_read_finish (GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_sse_read_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
