/* zot-fake-server.h — a scripted HTTP server for the provider and agent tests.
 *
 * It listens on 127.0.0.1 on a random port and answers each POST with the
 * next queued response: a JSON body with a status, or an event stream
 * written event by event (each one its own chunk, sent from an idle source
 * once the previous one was written), optionally cut off abruptly or left
 * hanging. Every request is recorded: path, headers, JSON body.
 *
 * It runs on the thread-default main context of its creator, so the test
 * drives client and server with the same loop.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The usage the helper scripts below report. */
#define ZOT_FAKE_SERVER_INPUT_TOKENS  12
#define ZOT_FAKE_SERVER_OUTPUT_TOKENS 34

typedef struct _ZotFakeServer ZotFakeServer;

ZotFakeServer *zot_fake_server_new                (void);
void           zot_fake_server_free               (ZotFakeServer      *server);
const char    *zot_fake_server_get_url            (ZotFakeServer      *server);

/* Queue one response; each incoming POST takes the next one. With the
 * queue empty the answer is 500 {"error":{"message":"no scripted response left"}}.
 *
 * push_json: @status with @body as application/json, and a Retry-After
 * header when @retry_after is not NULL.
 * push_sse: 200 text/event-stream; each string of @events is one whole SSE
 * event ("data: {…}" or "event: x\ndata: {…}", without the blank line) and
 * goes out as its own chunk. With @cut_before_end the connection dies after
 * the last event, mid-chunk; otherwise the body ends properly.
 * push_reset: the connection is closed before any answer.
 * push_hang: like push_sse, but the body never ends (until the client goes
 * away or the server is freed). */
void           zot_fake_server_push_json          (ZotFakeServer      *server,
                                                   guint               status,
                                                   const char         *body,
                                                   const char         *retry_after);
void           zot_fake_server_push_sse           (ZotFakeServer      *server,
                                                   const char * const *events,
                                                   gboolean            cut_before_end);
void           zot_fake_server_push_reset         (ZotFakeServer      *server);
void           zot_fake_server_push_hang          (ZotFakeServer      *server,
                                                   const char * const *events);
void           zot_fake_server_push_endless       (ZotFakeServer      *server,
                                                   const char * const *events,
                                                   const char         *repeat);

/* Requests in arrival order, owned by the server (transfer none); the body
 * is NULL when it was not a JSON object, a header NULL when absent (names
 * are case-insensitive). */
guint          zot_fake_server_get_n_requests     (ZotFakeServer      *server);
JsonObject    *zot_fake_server_get_request_body   (ZotFakeServer      *server,
                                                   guint               index);
const char    *zot_fake_server_get_request_header (ZotFakeServer      *server,
                                                   guint               index,
                                                   const char         *name);
const char    *zot_fake_server_get_request_path   (ZotFakeServer      *server,
                                                   guint               index);
const char    *zot_fake_server_get_request_query  (ZotFakeServer      *server,
                                                   guint               index);

/* Scripts for zot_fake_server_push_sse(). Tool call ids are "call_1",
 * "call_2" (openai) and "toolu_1", "toolu_2" (anthropic); the second call
 * is left out when its name is NULL. Usage is
 * ZOT_FAKE_SERVER_INPUT_TOKENS in, ZOT_FAKE_SERVER_OUTPUT_TOKENS out. */
GStrv          zot_fake_server_openai_text        (const char         *text,
                                                   gsize               chunk);
GStrv          zot_fake_server_openai_tool_calls  (const char         *first_name,
                                                   const char         *first_args,
                                                   const char         *second_name,
                                                   const char         *second_args,
                                                   gsize               chunk);
GStrv          zot_fake_server_anthropic_text     (const char         *text,
                                                   gsize               chunk);
GStrv          zot_fake_server_anthropic_tool_uses (const char        *first_name,
                                                    const char        *first_args,
                                                    const char        *second_name,
                                                    const char        *second_args,
                                                    gsize              chunk);

/* Gemini: one GenerateContentResponse per event; text in pieces of
 * @chunk bytes, or each function call whole, then an event with
 * finishReason "STOP" and the usage above. In gemini_tool_calls the ids
 * are "call_1" and "call_2" and the first call alone is signed, with
 * ZOT_FAKE_SERVER_GEMINI_SIGNATURE, as Gemini signs parallel calls;
 * @chunk is unused, calls come whole. gemini_calls takes each call's id
 * and signature (either may be NULL) from @calls. */
#define ZOT_FAKE_SERVER_GEMINI_SIGNATURE "c2lnbmVkIGJ5IHRoZSBmYWtlIHNlcnZlcg=="

typedef struct
{
  const char *name;
  const char *args;
  const char *id;
  const char *signature;
} ZotFakeGeminiCall;

GStrv          zot_fake_server_gemini_text        (const char         *text,
                                                   gsize               chunk);
GStrv          zot_fake_server_gemini_tool_calls  (const char         *first_name,
                                                   const char         *first_args,
                                                   const char         *second_name,
                                                   const char         *second_args,
                                                   gsize               chunk);
GStrv          zot_fake_server_gemini_calls       (const ZotFakeGeminiCall *calls,
                                                   guint               n_calls);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotFakeServer, zot_fake_server_free)

G_END_DECLS
