/* test-meter.c — the extension meter: the percentiles of its latency
 * ring, the CPU time of a process that burns a known amount, frame and
 * byte counts against the lines that went each way, and the time of
 * interceptors by turn. */

#include "config.h"

#include <string.h>

#include "zot-extension-meter-private.h"
#include "zot-extension-tool.h"
#include "zot-limits.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv           env;
  ZotExtensionManager *manager;
  /* what the traffic trace saw, each way: lines and bytes with newlines */
  guint64              lines[2];
  guint64              bytes[2];
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->manager != NULL)
    zot_test_shutdown_manager (g_steal_pointer (&f->manager));
  zot_test_env_teardown (&f->env);
}

static void
on_traffic (ZotExtensionManager *manager,
            ZotExtension        *extension,
            int                  direction,
            const char          *line,
            Fixture             *f)
{
  g_assert (direction == ZOT_FRAME_DIRECTION_IN || direction == ZOT_FRAME_DIRECTION_OUT);
  f->lines[direction]++;
  f->bytes[direction] += strlen (line) + 1;
}

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(gboolean *) user_data = TRUE;
}

/* Loads one fake extension with @args (NULL-terminated), tracing its
 * traffic from the first frame on, and returns it. */
static ZotExtension *
load_fake (Fixture            *f,
           const char * const *args)
{
  g_autofree char *dir = zot_test_make_fake (f->env.root, "metered", args);
  const char *paths[] = { dir, NULL };
  gboolean done = FALSE;
  ZotExtension *extension;

  f->manager = zot_extension_manager_new ();
  zot_extension_manager_set_cwd (f->manager, f->env.cwd);
  zot_extension_manager_set_explicit_paths (f->manager, paths);
  zot_extension_manager_set_trace_traffic (f->manager, TRUE);
  g_signal_connect (f->manager, "frame-traffic", G_CALLBACK (on_traffic), f);
  zot_extension_manager_load_async (f->manager, NULL, done_cb, &done);
  zot_test_wait_for (&done, 30000);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->manager)), ==, 1);
  extension = g_list_model_get_item (G_LIST_MODEL (f->manager), 0);
  g_object_unref (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  return extension;
}

typedef struct
{
  gboolean       done;
  ZotToolResult *result;
} Call;

static void
call_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Call *call = user_data;
  g_autoptr(GError) error = NULL;

  call->result = zot_tool_execute_finish (ZOT_TOOL (object), result, &error);
  g_assert_no_error (error);
  call->done = TRUE;
}

static void
call_tool (ZotExtension *extension,
           const char   *args_json)
{
  GPtrArray *tools = zot_extension_get_tools (extension);
  g_autoptr(JsonObject) args = zot_test_json_object_from (args_json);
  ZotToolContext context = { .cwd = g_get_tmp_dir (), .call_id = "c1" };
  Call call = { 0 };

  g_assert_cmpuint (tools->len, ==, 1);
  zot_tool_execute_async (g_ptr_array_index (tools, 0), args, &context, NULL, call_cb, &call);
  zot_test_wait_for (&call.done, 60000);
  g_assert_nonnull (call.result);
  g_assert_false (call.result->is_error);
  zot_tool_result_free (call.result);
}

static const char *tool_args[] = {
  "--register-json",
  "{\"type\":\"register_tool\",\"name\":\"probe\",\"description\":\"probe\","
  "\"schema\":{\"type\":\"object\"}}",
  NULL,
};

/* Nearest rank, checked on samples put in directly: no clock involved. */
static void
test_percentile (void)
{
  gint64 samples[ZOT_METER_LATENCY_SAMPLES] = { 0 };

  g_assert_cmpint (_zot_extension_meter_percentile (samples, 0, 50), ==, -1);

  samples[0] = 7;
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 1, 50), ==, 7);
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 1, 95), ==, 7);

  /* 100 … 1 in reverse: the order they came in does not matter. */
  for (guint i = 0; i < 100; i++)
    samples[i] = 100 - i;
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 100, 50), ==, 50);
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 100, 95), ==, 95);
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 100, 100), ==, 100);
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 100, 1), ==, 1);

  /* Ten samples: p95 is the largest, p50 the fifth. */
  for (guint i = 0; i < 10; i++)
    samples[i] = (i + 1) * 10;
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 10, 50), ==, 50);
  g_assert_cmpint (_zot_extension_meter_percentile (samples, 10, 95), ==, 100);
}

/* The ring keeps the last ZOT_METER_LATENCY_SAMPLES; the count goes on. */
static void
test_ring (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "never ran");
  g_autoptr(ZotExtension) extension = NULL;
  g_autoptr(ZotExtensionStats) empty = NULL;
  g_autoptr(ZotExtensionStats) full = NULL;
  g_autoptr(ZotExtensionStats) wrapped = NULL;
  g_autoptr(JsonObject) json = NULL;

  extension = zot_extension_new_failed (f->env.root, ZOT_EXTENSION_SCOPE_EXPLICIT, error);

  empty = zot_extension_dup_stats (extension);
  g_assert_false (empty->running);
  g_assert_cmpuint (empty->latency_samples, ==, 0);
  g_assert_cmpint (empty->latency_p95_us, ==, -1);
  g_assert_null (zot_extension_stats_format_line (empty));
  json = zot_extension_stats_to_json (empty);
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (json, "latency_p95_us")));
  g_clear_pointer (&json, json_object_unref);

  /* Exactly full: 1 ms … 256 ms. */
  for (guint i = 1; i <= ZOT_METER_LATENCY_SAMPLES; i++)
    _zot_extension_meter_add_latency (extension, i * 1000);
  full = zot_extension_dup_stats (extension);
  g_assert_cmpuint (full->latency_samples, ==, ZOT_METER_LATENCY_SAMPLES);
  g_assert_cmpuint (full->tool_calls, ==, ZOT_METER_LATENCY_SAMPLES);
  g_assert_cmpint (full->latency_p50_us, ==, 128 * 1000);
  g_assert_cmpint (full->latency_p95_us, ==, 244 * 1000);

  /* One more turns the oldest (1 ms) out: every sample is now 2 … 257 ms. */
  _zot_extension_meter_add_latency (extension, 257 * 1000);
  /* A clock that went backwards counts as nothing, not as negative. */
  for (guint i = 0; i < ZOT_METER_LATENCY_SAMPLES - 1; i++)
    _zot_extension_meter_add_latency (extension, 500 * 1000);
  _zot_extension_meter_add_latency (extension, -5);
  wrapped = zot_extension_dup_stats (extension);
  g_assert_cmpuint (wrapped->latency_samples, ==, ZOT_METER_LATENCY_SAMPLES);
  g_assert_cmpuint (wrapped->tool_calls, ==, 2 * ZOT_METER_LATENCY_SAMPLES + 1);
  g_assert_cmpint (wrapped->latency_p50_us, ==, 500 * 1000);
  g_assert_cmpint (wrapped->latency_p95_us, ==, 500 * 1000);
  /* The smallest is the clamped one, the 257 ms sample is gone. */
  g_assert_cmpint (_zot_extension_meter_percentile ((gint64[]) { 0 }, 1, 1), ==, 0);

  json = zot_extension_stats_to_json (wrapped);
  g_assert_cmpint (json_object_get_int_member (json, "latency_p95_us"), ==, 500 * 1000);
  g_assert_cmpint (json_object_get_int_member (json, "tool_calls"), ==, 2 * ZOT_METER_LATENCY_SAMPLES + 1);
}

/* A tool call that spins for 300 ms of CPU, answered after at least
 * 200 ms more: the CPU figure with generous bounds, the latency above
 * what the fixture took, and the resident memory of a live process. */
static void
test_cpu_and_latency (Fixture       *f,
                      gconstpointer  data)
{
  ZotExtension *extension = load_fake (f, tool_args);
  g_autoptr(ZotExtensionStats) before = zot_extension_dup_stats (extension);
  g_autoptr(ZotExtensionStats) after = NULL;
  g_autofree char *line = NULL;
  g_autofree char *details = NULL;

  g_assert_true (before->running);
  g_assert_cmpuint (before->resident_bytes, >, 0);
  g_assert_cmpuint (before->tool_calls, ==, 0);

  call_tool (extension, "{\"burn_ms\":300,\"late_ms\":200}");

  after = zot_extension_dup_stats (extension);
  g_assert_cmpuint (after->cpu_us - before->cpu_us, >=, 250 * 1000);
  g_assert_cmpuint (after->cpu_us - before->cpu_us, <, 30 * G_USEC_PER_SEC);
  g_assert_cmpuint (after->tool_calls, ==, 1);
  g_assert_cmpuint (after->latency_samples, ==, 1);
  g_assert_cmpint (after->latency_p50_us, ==, after->latency_p95_us);
  g_assert_cmpint (after->latency_p95_us, >=, 500 * 1000);
  g_assert_cmpint (after->latency_p95_us, <, 60 * G_USEC_PER_SEC);

  line = zot_extension_stats_format_line (after);
  g_assert_nonnull (strstr (line, " s CPU · "));
  g_assert_nonnull (strstr (line, " frames · p95 "));
  details = zot_extension_stats_format_details (after);
  g_assert_nonnull (strstr (details, "Tool calls: 1; latency p50 "));
}

/* Every line the trace saw, and not one more, is counted; a tool call is
 * one frame each way. */
static void
test_frames (Fixture       *f,
             gconstpointer  data)
{
  ZotExtension *extension = load_fake (f, tool_args);
  g_autoptr(ZotExtensionStats) before = zot_extension_dup_stats (extension);
  g_autoptr(ZotExtensionStats) after = NULL;

  /* hello, register_tool, ready in; hello_ack out (and whatever else the
   * host sends at start, which the trace saw too). */
  g_assert_cmpuint (before->frames_in, ==, f->lines[ZOT_FRAME_DIRECTION_IN]);
  g_assert_cmpuint (before->bytes_in, ==, f->bytes[ZOT_FRAME_DIRECTION_IN]);
  g_assert_cmpuint (before->frames_out, ==, f->lines[ZOT_FRAME_DIRECTION_OUT]);
  g_assert_cmpuint (before->bytes_out, ==, f->bytes[ZOT_FRAME_DIRECTION_OUT]);
  g_assert_cmpuint (before->frames_in, >=, 3);
  g_assert_cmpuint (before->frames_out, >=, 1);

  call_tool (extension, "{\"reply\":\"ok\"}");

  after = zot_extension_dup_stats (extension);
  g_assert_cmpuint (after->frames_in, ==, before->frames_in + 1);
  g_assert_cmpuint (after->frames_out, ==, before->frames_out + 1);
  g_assert_cmpuint (after->bytes_in, ==, f->bytes[ZOT_FRAME_DIRECTION_IN]);
  g_assert_cmpuint (after->bytes_out, ==, f->bytes[ZOT_FRAME_DIRECTION_OUT]);
  g_assert_cmpuint (after->bytes_out, >, before->bytes_out + strlen ("{\"type\":\"tool_call\"}\n"));
}

static void
intercept (ZotExtensionManager *manager)
{
  g_autoptr(JsonObject) payload = zot_test_json_object_from ("{\"tool_id\":\"t\",\"tool_name\":\"read\","
                                                             "\"tool_args\":{}}");
  gboolean done = FALSE;

  zot_extension_manager_intercept_async (manager, "tool_call", payload, NULL, done_cb, &done);
  zot_test_wait_for (&done, 30000);
}

/* Each interception adds its time to the turn and to the total; a new
 * turn starts its own figure from zero. */
static void
test_intercepts (Fixture       *f,
                 gconstpointer  data)
{
  const char *args[] = {
    "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
    "--intercept-delay-ms", "100",
    NULL,
  };
  ZotExtension *extension = load_fake (f, args);
  g_autoptr(ZotExtensionStats) two = NULL;
  g_autoptr(ZotExtensionStats) turned = NULL;
  g_autoptr(ZotExtensionStats) three = NULL;

  intercept (f->manager);
  intercept (f->manager);
  two = zot_extension_dup_stats (extension);
  g_assert_cmpuint (two->intercepts, ==, 2);
  g_assert_cmpuint (two->intercept_total_us, >=, 200 * 1000);
  g_assert_cmpuint (two->intercept_total_us, <, 30 * G_USEC_PER_SEC);
  g_assert_cmpuint (two->intercept_turn_us, ==, two->intercept_total_us);

  zot_extension_manager_emit_event (f->manager, "turn_start", NULL);
  turned = zot_extension_dup_stats (extension);
  g_assert_cmpuint (turned->intercept_turn_us, ==, 0);
  g_assert_cmpuint (turned->intercept_total_us, ==, two->intercept_total_us);

  /* Other events leave the turn alone. */
  intercept (f->manager);
  zot_extension_manager_emit_event (f->manager, "turn_end", NULL);
  three = zot_extension_dup_stats (extension);
  g_assert_cmpuint (three->intercepts, ==, 3);
  g_assert_cmpuint (three->intercept_turn_us, >=, 100 * 1000);
  g_assert_cmpuint (three->intercept_total_us, ==, two->intercept_total_us + three->intercept_turn_us);
}

/* Once the process is gone, the last figures read stay. */
static void
test_after_exit (Fixture       *f,
                 gconstpointer  data)
{
  ZotExtension *extension = load_fake (f, tool_args);
  g_autoptr(ZotExtensionStats) live = NULL;
  g_autoptr(ZotExtensionStats) gone = NULL;

  call_tool (extension, "{\"burn_ms\":50}");
  live = zot_extension_dup_stats (extension);
  zot_test_stop_extension (extension);
  gone = zot_extension_dup_stats (extension);

  g_assert_false (gone->running);
  g_assert_cmpuint (gone->cpu_us, ==, live->cpu_us);
  g_assert_cmpuint (gone->resident_bytes, ==, live->resident_bytes);
  g_assert_cmpuint (gone->frames_in, >=, live->frames_in);
  g_assert_cmpuint (gone->tool_calls, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/zot/meter/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

  g_test_add_func ("/zot/meter/percentile", test_percentile);
  ADD ("ring", test_ring);
  ADD ("cpu-and-latency", test_cpu_and_latency);
  ADD ("frames", test_frames);
  ADD ("intercepts", test_intercepts);
  ADD ("after-exit", test_after_exit);

#undef ADD

  return g_test_run ();
}
