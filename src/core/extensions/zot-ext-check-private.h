/* zot-ext-check-private.h — what the checker's engine (zot-ext-check.c)
 * shares with its scenario (zot-ext-check-scenario.c).
 */
#pragma once

#include "zot-ext-check.h"
#include "zot-frame-channel.h"
#include "zot-manifest.h"

G_BEGIN_DECLS

/* What the checker's own `read` tool answers a nested call with. */
#define ZOT_EXT_CHECK_READ_TEXT     "checker file text"
/* A nested `read` of this path fails, so that a failed reply is seen too. */
#define ZOT_EXT_CHECK_MISSING_PATH  "missing.txt"

typedef enum
{
  CHECK_REQUEST_TOOL,
  CHECK_REQUEST_COMMAND,
  CHECK_REQUEST_INTERCEPT,
} CheckRequestKind;

typedef enum
{
  CHECK_REQUEST_PENDING,
  CHECK_REQUEST_REPLIED,
  CHECK_REQUEST_CANCELLED,
  /* The deadline passed without a cancel (no capability, or a command or
   * intercept): the host dropped the call and would drop a late reply. */
  CHECK_REQUEST_ABANDONED,
} CheckRequestState;

typedef struct
{
  char              *id;
  CheckRequestKind   kind;
  CheckRequestState  state;
  char              *name;
  JsonObject        *sent;
  JsonObject        *reply;
  /* The cancel went out with the call: the extension may have answered
   * before it read the cancel, which is no fault of its own. */
  gboolean           cancel_raced;
} CheckRequest;

typedef struct
{
  /* the whole run */
  char                *directory;
  ZotManifest         *manifest;
  JsonObject          *examples;     /* the manifest's "examples", or NULL */
  ZotExtCheckFlags     flags;
  ZotExtCheckItemFunc  func;
  gpointer             user_data;
  char                *log_path;
  JsonArray           *steps;
  JsonArray           *violations;
  JsonArray           *notes;
  JsonObject          *registrations;   /* of the first session */
  guint                n_failed;
  guint                next_id;

  /* one session: a process from spawn to exit */
  GSubprocess         *process;
  GCancellable        *cancellable;    /* the wait for the process's exit */
  ZotFrameChannel     *channel;
  gboolean             durable;
  gboolean             second_session; /* --scenario's durable one */
  gboolean             exited;
  gboolean             channel_closed;
  gboolean             fatal;          /* the session cannot go on */
  gboolean             stopping;       /* an exit now is expected */
  gboolean             got_hello;
  gboolean             got_ready;
  gboolean             got_ack;
  gboolean             shutdown_sent;  /* running handlers are cancelled */
  JsonObject          *hello;
  GStrv                capabilities;
  GPtrArray           *tools;          /* accepted register_tool frames */
  GPtrArray           *commands;       /* accepted command names */
  GHashTable          *tool_names;
  GHashTable          *command_keys;
  GHashTable          *events;
  GHashTable          *intercepts;
  GHashTable          *requests;       /* id → CheckRequest */
  GPtrArray           *inbox;          /* frames that answer no request */
  GPtrArray           *nested;         /* call_tool frames, as received */
  guint64              n_frames;
  gint64               last_frame_us;
  JsonObject          *step;           /* the step under way, or NULL */
} Check;

typedef gboolean (*CheckCondition) (Check    *check,
                                    gpointer  data);

/* the engine, for the generic run and the scenario */
gboolean      _zot_ext_check_wait_until    (Check          *check,
                                            CheckCondition  condition,
                                            gpointer        data,
                                            guint           timeout_ms);
gboolean      _zot_ext_check_inbox_has     (Check        *check,
                                            const char   *type);
void          _zot_ext_check_step_skip     (Check        *check,
                                            const char   *name,
                                            const char   *why);
void          _zot_ext_check_step_begin    (Check        *check,
                                            const char   *format,
                                            ...) G_GNUC_PRINTF (2, 3);
void          _zot_ext_check_step_end      (Check        *check,
                                            gboolean      ok,
                                            const char   *format,
                                            ...) G_GNUC_PRINTF (3, 4);
void          _zot_ext_check_violation     (Check        *check,
                                            const char   *rule,
                                            JsonObject   *frame,
                                            const char   *detail);
void          _zot_ext_check_note          (Check        *check,
                                            const char   *text,
                                            JsonObject   *frame);
void          _zot_ext_check_send          (Check        *check,
                                            JsonObject   *frame,
                                            gboolean      now);
CheckRequest *_zot_ext_check_request       (Check        *check,
                                            CheckRequestKind kind,
                                            const char   *name,
                                            JsonObject   *frame,
                                            gboolean      now);
JsonObject   *_zot_ext_check_wait_reply    (Check        *check,
                                            CheckRequest *request,
                                            guint         timeout_ms);
void          _zot_ext_check_cancel        (Check        *check,
                                            CheckRequest *request,
                                            gboolean      now);
JsonObject   *_zot_ext_check_expect        (Check        *check,
                                            const char   *type,
                                            const char   *member,
                                            const char   *value,
                                            guint         timeout_ms);
JsonObject   *_zot_ext_check_call_tool     (Check        *check,
                                            const char   *name,
                                            JsonObject   *args,
                                            CheckRequest **out_request);
JsonObject   *_zot_ext_check_run_command   (Check        *check,
                                            const char   *name,
                                            const char   *args);
JsonObject   *_zot_ext_check_intercept     (Check        *check,
                                            const char   *event,
                                            JsonObject   *payload,
                                            const char   *label);
void          _zot_ext_check_event         (Check        *check,
                                            const char   *event,
                                            JsonObject   *payload);
char         *_zot_ext_check_result_text   (JsonObject   *result);
gboolean      _zot_ext_check_has_capability (Check       *check,
                                             const char  *capability);
JsonObject   *_zot_ext_check_find_tool     (Check        *check,
                                            const char   *name);
char         *_zot_ext_check_shorten       (JsonObject   *frame);
JsonObject   *_zot_ext_check_bash_args     (const char   *command);

void          _zot_ext_check_step_record   (Check        *check,
                                            const char   *member,
                                            JsonObject   *frame);

/* the extension's frames, zot-ext-check-frames.c */
void          _zot_ext_check_on_frame_received    (ZotFrameChannel *channel,
                                                   JsonObject      *frame,
                                                   gpointer         user_data);
void          _zot_ext_check_on_bad_line          (ZotFrameChannel *channel,
                                                   const char      *message,
                                                   gpointer         user_data);
void          _zot_ext_check_on_closed            (ZotFrameChannel *channel,
                                                   const GError    *error,
                                                   gpointer         user_data);
void          _zot_ext_check_on_process_exited_cb (GObject         *object,
                                                   GAsyncResult    *result,
                                                   gpointer         user_data);

/* the generic run, zot-ext-check-generic.c */
void          _zot_ext_check_generic_run            (Check *check);

/* the scenario of sdk/SCENARIO.md */
void          _zot_ext_check_scenario_registrations (Check *check);
void          _zot_ext_check_scenario_run           (Check *check);
void          _zot_ext_check_scenario_durable       (Check *check);

G_END_DECLS
