/* zot-http-provider.h — the base of the providers that talk to a model
 * API over HTTP and read its answer as server-sent events.
 *
 * It owns what those providers share: the libsoup session (aborted in
 * dispose), the configuration (a key where the provider's table row wants
 * one, a base URL checked to be http or https), and the call itself: one
 * GTask per stream, the POST with its retries, deadlines, size caps and
 * error mapping (zot_sse_post_async()), cancellation. A subclass sets its
 * table row and says how to address the API, build a request body, and
 * read the events of one answer.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-provider.h"
#include "zot-provider-table.h"

G_BEGIN_DECLS

#define ZOT_TYPE_HTTP_PROVIDER (zot_http_provider_get_type ())
G_DECLARE_DERIVABLE_TYPE (ZotHttpProvider, zot_http_provider, ZOT, HTTP_PROVIDER, ZotProvider)

/**
 * ZotHttpProviderClass:
 * @info: the provider's table row, set in class_init; it gives the name,
 *   the default model, the key variable and the default base URL. A
 *   preset of the same API (zot_http_provider_new_for_info()) brings its
 *   own row, which zot_http_provider_get_info() returns
 * @build_url: the endpoint under @base, a checked http(s) URL without a
 *   trailing slash (transfer full)
 * @add_headers: appends request headers, as name then value, to @headers
 * @build_body: the JSON request body of @request (transfer full)
 * @stream_new: the state of one answer, given to the three below
 * @stream_free: frees that state
 * @stream_event: takes one event of the answer (see #ZotSseEventFunc)
 * @stream_end: after the body ended without an error: the reply, or
 *   %NULL with an error for an answer that ended early or made no sense
 * @request_url: (nullable): for an API whose endpoint depends on the
 *   request (Gemini names the model in the path): the URL of @request,
 *   given the one @build_url made (transfer full); %NULL to always POST
 *   to that one
 */
struct _ZotHttpProviderClass
{
  ZotProviderClass parent_class;

  const ZotProviderInfo *info;

  char             *(*build_url)    (ZotHttpProvider     *self,
                                     const char          *base);
  void              (*add_headers)  (ZotHttpProvider     *self,
                                     GStrvBuilder        *headers);
  JsonObject       *(*build_body)   (ZotHttpProvider     *self,
                                     ZotProviderRequest  *request);
  gpointer          (*stream_new)   (ZotHttpProvider     *self);
  void              (*stream_free)  (gpointer             stream);
  gboolean          (*stream_event) (const char          *event,
                                     const char          *data,
                                     gpointer             stream,
                                     GError             **error);
  ZotProviderReply *(*stream_end)   (gpointer             stream,
                                     GError             **error);
  char             *(*request_url)  (ZotHttpProvider     *self,
                                     const char          *url,
                                     ZotProviderRequest  *request);

  /*< private >*/
  gpointer padding[7];
};

ZotProvider      *zot_http_provider_new             (GType                     type,
                                                     const ZotProviderConfig  *config,
                                                     GError                  **error);
ZotProvider      *zot_http_provider_new_for_info    (GType                     type,
                                                     const ZotProviderInfo    *info,
                                                     const ZotProviderConfig  *config,
                                                     GError                  **error);
const ZotProviderInfo *zot_http_provider_get_info   (ZotHttpProvider          *self);
const char       *zot_http_provider_get_api_key     (ZotHttpProvider          *self);
const char       *zot_http_provider_get_url         (ZotHttpProvider          *self);
const char       *zot_http_provider_request_model   (ZotHttpProvider          *self,
                                                     ZotProviderRequest       *request);

/* For the subclasses' request bodies, and their readers of a stream. */
ZotProviderReply *zot_http_provider_new_reply       (JsonArray               **content);
void              zot_http_provider_set_stop_reason (ZotProviderReply         *reply,
                                                     gboolean                  hit_limit,
                                                     guint                     n_calls);
JsonObject       *zot_http_provider_new_tool_use    (const char               *id,
                                                     const char               *name,
                                                     const char               *arguments);
void              zot_http_provider_add_turn        (JsonArray                *turns,
                                                     const char               *role,
                                                     const char               *member,
                                                     JsonArray                *blocks);
JsonObject       *zot_http_provider_parse_event     (const char               *event,
                                                     const char               *data,
                                                     GError                  **error);

G_END_DECLS
