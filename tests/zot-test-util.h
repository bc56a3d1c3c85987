#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-agent.h"
#include "zot-extension-manager.h"
#include "zot-host.h"
#include "zot-fake-server.h"
#include "zot-limits-private.h"
#include "zot-provider.h"

G_BEGIN_DECLS

/* A fresh $ZOT_HOME and working directory per test, removed afterwards. */
typedef struct
{
  char *home;
  char *cwd;
  char *root;
} ZotTestEnv;

void        zot_test_env_setup        (ZotTestEnv         *env);
void        zot_test_env_teardown     (ZotTestEnv         *env);

/* zot_remove_tree() for a test's own files; says what stayed behind. */
gboolean    zot_test_remove_tree      (const char         *path);

/* Writes DIR/extension.json running the fake extension with ARGS, and
 * returns DIR (under @parent). */
char       *zot_test_make_fake        (const char         *parent,
                                       const char         *name,
                                       const char * const *args);
char       *zot_test_make_fake_args   (const char         *parent,
                                       const char         *name,
                                       ...) G_GNUC_NULL_TERMINATED;
char       *zot_test_make_manifest    (const char         *parent,
                                       const char         *dirname,
                                       const char         *json);
char       *zot_test_fixture_dir      (const char         *name);
void        zot_test_manifest_set_string (const char       *dir,
                                          const char       *member,
                                          const char       *value);
void        zot_test_manifest_set_strings (const char       *dir,
                                           const char       *member,
                                           const char      **values);

/* Iterates the default main context until *flag is TRUE, failing the test
 * if @timeout_ms passes first. The deadline is a safety net, never the
 * thing a test waits for. */
void        zot_test_wait_for         (gboolean           *flag,
                                       guint               timeout_ms);
void        zot_test_wait_until       (gboolean          (*check) (gpointer),
                                       gpointer            data,
                                       guint               timeout_ms);

/* Loads a manager with @paths as explicit extensions and waits. */
ZotExtensionManager *zot_test_load_manager (ZotTestEnv         *env,
                                            const char * const *paths);
void        zot_test_shutdown_manager (ZotExtensionManager *manager);
/* The --record file of fake extension @name under @env, and a fake
 * extension recording there with the NULL-terminated arguments after
 * @name; returns its directory. */
char       *zot_test_record_path      (ZotTestEnv         *env,
                                       const char         *name);
char       *zot_test_make_recording_fake (ZotTestEnv       *env,
                                          const char       *name,
                                          ...) G_GNUC_NULL_TERMINATED;

/* A prompt submitted to a host: @done turns TRUE with @ok, the final
 * @text or @error. zot_test_submit() waits for it (up to 60 s). */
typedef struct
{
  gboolean  done;
  gboolean  ok;
  char     *text;
  GError   *error;
} ZotTestSubmit;

void        zot_test_submit_clear     (ZotTestSubmit      *submit);
/* The callback of zot_host_submit_async() that fills a ZotTestSubmit. */
void        zot_test_submit_cb        (GObject            *object,
                                       GAsyncResult       *result,
                                       gpointer            user_data);
void        zot_test_submit_start     (ZotHost            *host,
                                       const char         *text,
                                       ZotTestSubmit      *out);
void        zot_test_submit           (ZotHost            *host,
                                       const char         *text,
                                       ZotTestSubmit      *out);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotTestSubmit, zot_test_submit_clear)

/* Loads @host's extensions and waits for them. */
void        zot_test_load_host        (ZotHost            *host);

/* Runs the extension's shutdown ladder to its end. */
void        zot_test_stop_extension   (ZotExtension        *extension);
void        zot_test_finalize_host    (ZotHost            **host);

/* Runs a command to completion; returns FALSE with @error on failure,
 * whether the command did not answer or its reply carried an error. */
gboolean    zot_test_run_command      (ZotExtensionManager *manager,
                                       const char          *name,
                                       const char          *args,
                                       GError             **error);
/* The same, returning the reply (transfer full), or NULL with @error when
 * the command did not answer. */
ZotCommandReply *zot_test_run_command_reply (ZotExtensionManager *manager,
                                             const char          *name,
                                             const char          *args,
                                             GError             **error);

/* A pretend Flatpak sandbox under @root: the sandbox marker overridden,
 * and tests/fake-flatpak-spawn.py first on $PATH as flatpak-spawn. Returns
 * the file where it logs each call, a JSON object a line ("argv",
 * "directory", "host_pid"; read it with zot_test_read_frames()). _end
 * restores $PATH and the real marker. */
char       *zot_test_fake_sandbox_begin (const char       *root);
void        zot_test_fake_sandbox_end   (void);

char       *zot_test_read_file        (const char         *path);
/* How often @needle occurs in @text (without overlaps). */
guint       zot_test_count            (const char         *text,
                                       const char         *needle);
GPtrArray  *zot_test_read_frames      (const char         *path);
JsonObject *zot_test_find_frame       (GPtrArray          *frames,
                                       const char         *type);
/* Among lifecycle event frames: the first event @name whose tool_id is
 * @tool_id (any when %NULL); and the tool_id of the model's first call of
 * @tool (the one without origin_extension), failing the test if none. */
JsonObject *zot_test_find_event       (GPtrArray          *events,
                                       const char         *name,
                                       const char         *tool_id);
const char *zot_test_model_call_id    (GPtrArray          *events,
                                       const char         *tool);

/* Keeps every lifecycle event frame of @manager in @events (references),
 * and every note as "level: message" in @notes (strings), until the
 * handlers are disconnected by the array as data. */
void        zot_test_record_events    (ZotExtensionManager *manager,
                                       GPtrArray          *events);
void        zot_test_record_notes     (ZotExtensionManager *manager,
                                       GPtrArray          *notes);

/* A loaded interactive host with the demo model, no session file and no
 * extensions, its session begun, asking before tools run. */
ZotHost    *zot_test_demo_host        (ZotTestEnv          *env);

/* An approval asked of @manager for @tool with {"command": @command}, as a
 * tool call from @origin (NULL for the model) would; @out->done turns TRUE
 * with @out->decision (free it with zot_decision_free()). */
typedef struct
{
  gboolean     done;
  ZotDecision *decision;
} ZotTestAuthorize;

void        zot_test_authorize        (ZotExtensionManager *manager,
                                       const char          *tool,
                                       const char          *command,
                                       const ZotCallOrigin *origin,
                                       GCancellable        *cancellable,
                                       ZotTestAuthorize    *out);
/* The same, for a tool that needs approval only when @requires_approval. */
void        zot_test_authorize_full   (ZotExtensionManager *manager,
                                       const char          *tool,
                                       const char          *command,
                                       gboolean             requires_approval,
                                       const ZotCallOrigin *origin,
                                       GCancellable        *cancellable,
                                       ZotTestAuthorize    *out);

/* Lookups by a path of member names and array indices, such as
 * "messages/1/content/0/text", under @root (borrowed from it). node_at
 * returns NULL where the path leads nowhere; string_at does too, with a
 * test message naming the path, so that a cmpstr shows what is missing;
 * int_at and length_at (of an array or object) fail the test instead. */
JsonNode   *zot_test_json_node_at     (JsonObject         *root,
                                       const char         *path);
const char *zot_test_json_string_at   (JsonObject         *root,
                                       const char         *path);
gint64      zot_test_json_int_at      (JsonObject         *root,
                                       const char         *path);
guint       zot_test_json_length_at   (JsonObject         *root,
                                       const char         *path);
/* Parses @json, which must be an object (transfer full). */
JsonObject *zot_test_json_object_from (const char         *json);
char       *zot_test_nested_json      (const char         *prefix,
                                       guint               depth,
                                       const char         *suffix);

/* Frees the events of a NULL-terminated @events from @keep on, which must
 * be before its end, so a script can stop part-way. */
void        zot_test_truncate_events  (GStrv               events,
                                       guint               keep);

/* The constructor of the provider under test, such as zot_openai_provider_new. */
typedef ZotProvider *(*ZotTestProviderNew) (const ZotProviderConfig  *config,
                                            GError                  **error);

/* One provider under test, talking to its own ZotFakeServer, and what it
 * reported: a test fixture for g_test_add(). The provider sees every
 * delta and the reply through the fields below; a test may read and
 * reset them, and may replace @provider with zot_test_provider_make(). */
typedef struct
{
  /* Set up once, for zot_test_provider_make(). */
  const char         *name;
  GType               provider_type;
  ZotTestProviderNew  provider_new;

  ZotFakeServer      *server;
  ZotProvider        *provider;
  GCancellable       *cancellable;
  /* Each ::text-delta, and each ::tool-call-delta as "index|id|name|arguments". */
  GPtrArray          *text_deltas;
  GPtrArray          *tool_deltas;
  /* The outcome of the last request: exactly one of @reply and @error. */
  ZotProviderReply   *reply;
  GError             *error;
  gboolean            done;
  /* When set, the first text delta cancels @cancellable and notes when. */
  gboolean            cancel_on_delta;
  gint64              cancelled_at;
} ZotTestProvider;

/* Starts the fake server and a provider @name of @provider_type, built by
 * @provider_new, pointed at it with @api_key ("--api-key" as its source).
 * Teardown checks that the provider is finalized and lets the server's
 * connections close before the next test. */
void        zot_test_provider_setup   (ZotTestProvider    *self,
                                       const char         *name,
                                       GType               provider_type,
                                       ZotTestProviderNew  provider_new,
                                       const char         *api_key);
void        zot_test_provider_teardown (ZotTestProvider   *self);

/* A new provider like the fixture's, recording into @self, for a test
 * that swaps the fixture's own; @key and @key_source may be NULL. */
ZotProvider *zot_test_provider_make   (ZotTestProvider    *self,
                                       const char         *base_url,
                                       const char         *key,
                                       const char         *key_source);

/* A request holding one user message with @text. */
ZotProviderRequest *zot_test_provider_request_new (const char *text);

/* start: sends @request, and @self->done turns TRUE once it has finished.
 * run_request: the same, and waits for that. run: runs a request with "hi". */
void        zot_test_provider_start   (ZotTestProvider    *self,
                                       ZotProviderRequest *request);
void        zot_test_provider_run_request (ZotTestProvider    *self,
                                           ZotProviderRequest *request);
void        zot_test_provider_run     (ZotTestProvider    *self);

/* Queues @events (transfer full) on the fake server, see
 * zot_fake_server_push_sse(). */
void        zot_test_provider_push_events (ZotTestProvider *self,
                                           GStrv            events,
                                           gboolean         cut);

/* All text deltas, joined; the argument fragments of tool call @index,
 * joined; the content block @index of the reply (which must exist). */
char       *zot_test_provider_joined_text           (ZotTestProvider *self);
char       *zot_test_provider_joined_tool_arguments (ZotTestProvider *self,
                                                     guint            index);
JsonObject *zot_test_provider_reply_block           (ZotTestProvider *self,
                                                     guint            index);

/* How many entries the folder @path holds. */
guint       zot_test_count_entries    (const char         *path);

/* A program run to its end, its output kept. */
typedef struct
{
  char     *out;
  char     *err;
  int       status;   /* the exit status */
  gboolean  done;
} ZotTestRun;

void        zot_test_run_clear        (ZotTestRun         *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotTestRun, zot_test_run_clear)

/* Runs @argv in @cwd (or here) with LC_ALL=C and @env's pairs set (a NULL
 * value unsets), @setup in the child, within @timeout_ms. */
void        zot_test_run_argv         (ZotTestRun           *run,
                                       const char           *cwd,
                                       const char * const   *env,
                                       GSpawnChildSetupFunc  setup,
                                       guint                 timeout_ms,
                                       const char * const   *argv);

/* An agent with the built-in tools and a provider of the fake server, in
 * a fresh working directory that holds hello.txt ("hi from disk"): a test
 * fixture for g_test_add(). open makes the agent on @session (transfer
 * full); close finalizes both; prompt runs one prompt to its end, which
 * must succeed, its answer in @final_text. */
typedef struct
{
  ZotTestEnv       env;
  ZotFakeServer   *server;
  ZotProvider     *provider;
  ZotToolRegistry *registry;
  ZotSession      *session;
  ZotAgent        *agent;
  gboolean         done;
  char            *final_text;
  GError          *error;
} ZotTestAgent;

void         zot_test_agent_setup     (ZotTestAgent       *self,
                                       const char         *provider,
                                       const char         *model);
void         zot_test_agent_teardown  (ZotTestAgent       *self);
ZotProvider *zot_test_agent_provider  (ZotTestAgent       *self,
                                       const char         *provider,
                                       const char         *model);
void         zot_test_agent_open      (ZotTestAgent       *self,
                                       ZotSession         *session);
void         zot_test_agent_close     (ZotTestAgent       *self);
/* The callback of zot_agent_prompt_async() and its kin, and the wait for it. */
void         zot_test_agent_prompt_cb (GObject            *object,
                                       GAsyncResult       *result,
                                       gpointer            user_data);
void         zot_test_agent_wait      (ZotTestAgent       *self);
void         zot_test_agent_prompt    (ZotTestAgent       *self,
                                       const char         *text);

/* The roles and texts of @session's messages, the model's view of it:
 * "user:a assistant:b"; of the conversation stored at @path. */
char        *zot_test_describe_session      (ZotSession         *session);
char        *zot_test_describe_session_file (const char         *path);

G_END_DECLS
