/* zot-sse-private.h — what the reader (zot-sse.c) and the poster
 * (zot-sse-post.c) share: their deadlines and how a duration reads in a
 * message.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

char    *_zot_sse_format_ms        (guint         ms);
GSource *_zot_sse_add_timeout      (GTask        *task,
                                    guint         ms,
                                    GSourceFunc   func,
                                    gpointer      data);
gulong   _zot_sse_link_cancellable (GCancellable *outer,
                                    GCancellable *inner);
gboolean _zot_sse_read_was_cut     (GAsyncResult *result);

/* zot-sse-retry.c */
gboolean _zot_sse_connection_error_is_retryable (const GError *error);
char    *_zot_sse_retry_reason     (const char   *label,
                                    guint         status);
char    *_zot_sse_retry_message    (const char   *label,
                                    guint         status,
                                    guint         retry,
                                    guint         max_retries,
                                    gint64        delay_ms);

G_END_DECLS
