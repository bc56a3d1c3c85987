/* bench-fanout.c — one lifecycle event to many subscribed extensions.
 *
 * zot: N echo extensions subscribe to every event and send a notify
 * "ack <count>" after every few hundred events. Events are emitted with
 * zot_extension_manager_emit_event from an idle callback, at most PER_TURN
 * per main loop turn, and the run ends when every extension has
 * acknowledged all of them (through ::note-added). The emitter stays at
 * most a window of events ahead of the slowest acknowledgement, the window
 * being what the smallest extension pipe holds: the pipe never fills, so
 * each turn's frames leave at once and no queue nears the protocol's
 * 256-frame bound, past which a consumer that falls behind is disconnected
 * by design. Blocking writes give the baseline the same flow control.
 *
 * Baseline, in the same run: N forked children reading pipes, the parent
 * doing one blocking write() of the same serialized event line per event
 * per child; each child writes a byte back once it has counted every line.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"
#include "zot-extension-manager.h"

#define REPS        5
#define PER_TURN    240
#define WINDOW_MAX  4096
#define ACK_MAX     256
#define TARGET      20.0

/* Baseline: one write() per event per child */

static void
count_lines (int    input,
             int    report,
             guint  expected)
{
  static char buffer[64 * 1024];
  guint lines = 0;

  while (lines < expected)
    {
      ssize_t n = read (input, buffer, sizeof buffer);
      const char *p = buffer;
      const char *end;

      if (n <= 0)
        _exit (1);

      end = buffer + n;
      while ((p = memchr (p, '\n', (gsize) (end - p))) != NULL)
        {
          lines++;
          p++;
        }
    }

  bench_write_full (report, "x", 1);
  _exit (0);
}

static double
baseline_run (guint       n_children,
              guint       n_events,
              const char *line,
              gsize       length)
{
  g_autofree int *fds = g_new (int, n_children);
  g_autofree pid_t *pids = g_new (pid_t, n_children);
  g_autofree char *done = g_malloc (n_children);
  int report[2];
  double start;
  double elapsed;

  if (pipe (report) < 0)
    g_error ("pipe: %s", g_strerror (errno));

  for (guint c = 0; c < n_children; c++)
    {
      int fd[2];

      if (pipe (fd) < 0)
        g_error ("pipe: %s", g_strerror (errno));

      pids[c] = fork ();
      if (pids[c] < 0)
        g_error ("fork: %s", g_strerror (errno));
      if (pids[c] == 0)
        {
          close (fd[1]);
          close (report[0]);
          count_lines (fd[0], report[1], n_events);
        }

      close (fd[0]);
      fds[c] = fd[1];
    }
  close (report[1]);

  start = bench_now ();
  for (guint e = 0; e < n_events; e++)
    for (guint c = 0; c < n_children; c++)
      if (!bench_write_full (fds[c], line, length))
        g_error ("baseline: a child went away");
  if (!bench_read_full (report[0], done, n_children))
    g_error ("baseline: a child did not report");
  elapsed = bench_now () - start;

  for (guint c = 0; c < n_children; c++)
    {
      close (fds[c]);
      waitpid (pids[c], NULL, 0);
    }
  close (report[0]);

  return elapsed;
}

/* zot */

typedef struct
{
  ZotExtensionManager *manager;
  GHashTable          *index;
  guint64             *acks;
  guint                n_extensions;
  JsonObject          *payload;
  guint64              emitted;
  guint64              target;
  guint64              min_ack;
  guint                window;
  guint                ack_every;
  guint                idle_id;
  gboolean             done;
  gboolean             loaded;
  gboolean             stopped;
} Fanout;

static gboolean emit_cb (gpointer user_data);

static void
schedule_emit (Fanout *fanout)
{
  if (fanout->idle_id == 0 &&
      fanout->emitted < fanout->target &&
      fanout->emitted - fanout->min_ack < fanout->window)
    fanout->idle_id = g_idle_add (emit_cb, fanout);
}

/* As fast as the window allows, then back to the main loop. */
static gboolean
emit_cb (gpointer user_data)
{
  Fanout *fanout = user_data;

  for (guint n = 0;
       n < PER_TURN && fanout->emitted < fanout->target && fanout->emitted - fanout->min_ack < fanout->window;
       n++)
    {
      zot_extension_manager_emit_event (fanout->manager, "tool_call", fanout->payload);
      fanout->emitted++;
    }

  /* Back to the main loop, so that this turn's frames are written. */
  if (fanout->emitted < fanout->target && fanout->emitted - fanout->min_ack < fanout->window)
    return G_SOURCE_CONTINUE;

  fanout->idle_id = 0;
  return G_SOURCE_REMOVE;
}

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               Fanout              *fanout)
{
  guint position = GPOINTER_TO_UINT (g_hash_table_lookup (fanout->index, extension));
  guint64 min = G_MAXUINT64;

  if (position == 0 || !g_str_has_prefix (message, "ack "))
    g_error ("unexpected note from %s: %s", zot_extension_get_name (extension), message);

  fanout->acks[position - 1] = g_ascii_strtoull (message + 4, NULL, 10);
  for (guint i = 0; i < fanout->n_extensions; i++)
    min = MIN (min, fanout->acks[i]);
  fanout->min_ack = min;

  if (fanout->min_ack >= fanout->target)
    fanout->done = TRUE;
  else
    schedule_emit (fanout);
}

static void
on_extension_crashed (ZotExtensionManager *manager,
                      ZotExtension        *extension,
                      const char          *message,
                      Fanout              *fanout)
{
  g_error ("%s", message);
}

static void
fanout_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Fanout *fanout = user_data;

  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  fanout->loaded = TRUE;
}

static void
fanout_stopped_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Fanout *fanout = user_data;

  zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  fanout->stopped = TRUE;
}

/* What a pipe can hold here: the channel asks for 1 MiB, which the
 * kernel may refuse to a user past its pipe page limit. */
static gsize
probe_pipe_capacity (void)
{
  int fds[2];
  int size;

  if (pipe (fds) < 0)
    g_error ("pipe: %s", g_strerror (errno));
  (void) fcntl (fds[1], F_SETPIPE_SZ, 1024 * 1024);
  size = fcntl (fds[1], F_GETPIPE_SZ);
  close (fds[0]);
  close (fds[1]);
  return size > 0 ? (gsize) size : 65536;
}

/* The write ends of pipes this process holds, with their sizes. */
static GHashTable *
output_pipes (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  GHashTable *pipes = g_hash_table_new (NULL, NULL);
  const char *name;

  if (dir == NULL)
    g_error ("cannot list /proc/self/fd");

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      int fd = atoi (name);
      struct stat st;
      int flags = fcntl (fd, F_GETFL);
      int size;

      if (flags < 0 || (flags & O_ACCMODE) != O_WRONLY || fstat (fd, &st) < 0 || !S_ISFIFO (st.st_mode))
        continue;
      size = fcntl (fd, F_GETPIPE_SZ);
      if (size > 0)
        g_hash_table_insert (pipes, GINT_TO_POINTER (fd + 1), GINT_TO_POINTER (size));
    }

  return pipes;
}

/* The smallest pipe opened since @before: the extensions' stdin. */
static gsize
smallest_new_pipe (GHashTable *before)
{
  g_autoptr(GHashTable) after = output_pipes ();
  GHashTableIter iter;
  gpointer fd, size;
  gsize smallest = G_MAXSIZE;

  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &fd, &size))
    if (!g_hash_table_contains (before, fd))
      smallest = MIN (smallest, (gsize) GPOINTER_TO_INT (size));

  if (smallest == G_MAXSIZE)
    g_error ("found none of the extensions' pipes in /proc/self/fd");
  return smallest;
}

static void
fanout_start (Fanout              *fanout,
              ZotExtensionManager *manager,
              BenchEnv            *env,
              guint                n_extensions,
              JsonObject          *payload,
              gsize                line_length)
{
  g_autofree char *ack_every = NULL;
  const char *args[] = { "--subscribe", "--no-intercept", "--ack-every", NULL, NULL };
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) pipes_before = output_pipes ();
  guint window;

  fanout->window = (guint) MIN (WINDOW_MAX, probe_pipe_capacity () / line_length);
  fanout->ack_every = CLAMP (fanout->window / 8, 8, ACK_MAX);
  ack_every = g_strdup_printf ("%u", fanout->ack_every);
  args[3] = ack_every;

  for (guint i = 0; i < n_extensions; i++)
    {
      g_autofree char *name = g_strdup_printf ("fan-%u-%02u", n_extensions, i);
      g_ptr_array_add (paths, bench_make_extension (env, name, args));
    }
  g_ptr_array_add (paths, NULL);

  fanout->manager = g_object_ref (manager);
  fanout->n_extensions = n_extensions;
  fanout->acks = g_new0 (guint64, n_extensions);
  fanout->index = g_hash_table_new (NULL, NULL);
  fanout->payload = json_object_ref (payload);

  zot_extension_manager_set_explicit_paths (manager, (const char * const *) paths->pdata);
  g_signal_connect (manager, "note-added", G_CALLBACK (on_note_added), fanout);
  g_signal_connect (manager, "extension-crashed", G_CALLBACK (on_extension_crashed), fanout);

  zot_extension_manager_load_async (manager, NULL, fanout_loaded_cb, fanout);
  bench_wait_for (&fanout->loaded, 60, "the extensions to load");

  for (guint i = 0; i < n_extensions; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        g_error ("%s did not start: %s", zot_extension_get_name (extension),
                 zot_extension_get_last_error (extension));
      g_hash_table_insert (fanout->index, extension, GUINT_TO_POINTER (i + 1));
    }

  window = (guint) MIN (fanout->window, smallest_new_pipe (pipes_before) / line_length);
  if (window < 2 * fanout->ack_every)
    g_error ("the extensions' pipes hold only %u events; raise /proc/sys/fs/pipe-user-pages-soft "
             "or run fewer extensions", window);
  fanout->window = window;
}

static double
fanout_run (Fanout *fanout,
            guint   n_events)
{
  double start;

  g_assert (fanout->emitted == fanout->min_ack);

  fanout->target = fanout->emitted + n_events;
  fanout->done = FALSE;

  start = bench_now ();
  schedule_emit (fanout);
  bench_wait_for (&fanout->done, 120, "every extension to acknowledge every event");
  return bench_now () - start;
}

static void
fanout_stop (Fanout *fanout)
{
  g_signal_handlers_disconnect_by_data (fanout->manager, fanout);
  zot_extension_manager_shutdown_async (fanout->manager, NULL, fanout_stopped_cb, fanout);
  bench_wait_for (&fanout->stopped, 30, "the extensions to stop");

  g_clear_object (&fanout->manager);
  g_clear_pointer (&fanout->index, g_hash_table_unref);
  g_clear_pointer (&fanout->acks, g_free);
  g_clear_pointer (&fanout->payload, json_object_unref);
}

/* What emit_event sends: the common members, then the payload. */
static char *
event_line (ZotExtensionManager *manager,
            JsonObject          *payload,
            gsize               *length)
{
  g_autoptr(JsonObject) frame = json_object_new ();
  GList *members = json_object_get_members (payload);

  json_object_set_string_member (frame, "type", "event");
  json_object_set_string_member (frame, "event", "tool_call");
  json_object_set_string_member (frame, "session_id", zot_extension_manager_get_session_id (manager));
  json_object_set_string_member (frame, "cwd", zot_extension_manager_get_cwd (manager));
  json_object_set_int_member (frame, "sequence", 123456);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (frame, l->data, json_object_dup_member (payload, l->data));
  g_list_free (members);

  return bench_json_to_line (frame, length);
}

static JsonObject *
make_payload (void)
{
  JsonObject *payload = json_object_new ();
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_string_member (args, "path", "src/core/extensions/zot-extension-manager.c");
  json_object_set_int_member (args, "offset", 1200);
  json_object_set_int_member (args, "limit", 200);
  json_object_set_string_member (payload, "tool_id", "toolu_01A09q90qw90lq917835lq9");
  json_object_set_string_member (payload, "tool_name", "read");
  json_object_set_object_member (payload, "tool_args", g_steal_pointer (&args));
  return payload;
}

/* What json-glib alone takes to serialize @payload once, in µs: the floor
 * of the host's work per event, whatever it does around it. */
static double
payload_serialize_us (JsonObject *payload)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), payload);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  const guint n = bench_scaled (100000, 1);
  double start;

  json_generator_set_root (generator, node);
  start = bench_now ();
  for (guint i = 0; i < n; i++)
    {
      GString *text = g_string_sized_new (256);

      json_generator_to_gstring (generator, text);
      g_string_free (text, TRUE);
    }
  return (bench_now () - start) * 1e6 / n;
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  g_autoptr(JsonObject) payload = make_payload ();
  const guint sizes[] = { 8, 32 };
  const guint zot_wanted[] = { 65536, 16384 };
  guint zot_events[2];
  guint windows[2];
  guint acks[2];
  const guint base_events[] = { bench_scaled (4096, 1), bench_scaled (2048, 1) };
  double zot_rate[2];
  double zot_cpu[2];
  double base_rate[2];
  g_autofree char *line = NULL;
  gsize length = 0;
  gboolean skip_baseline = g_getenv ("ZOT_BENCH_SKIP_BASELINE") != NULL;
  double serialize_us;

  signal (SIGPIPE, SIG_IGN);
  bench_env_init (&env, argv[0]);

  bench_print_header ("bench-fanout", "one event to N subscribed extensions vs one write() per event per extension");

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr(ZotExtensionManager) manager = zot_extension_manager_new ();
      Fanout fanout = { 0 };
      double base[REPS];
      double zot[REPS];
      double cpu[REPS];

      zot_extension_manager_set_cwd (manager, env.root);
      zot_extension_manager_set_no_ext (manager, TRUE);
      g_clear_pointer (&line, g_free);
      line = event_line (manager, payload, &length);
      line = g_realloc (line, length + 1);
      line[length++] = '\n';

      /* The baseline forks before any extension process exists. */
      /* $ZOT_BENCH_SKIP_BASELINE: zot alone, for a profiler. */
      for (guint r = 0; r < REPS; r++)
        base[r] = skip_baseline ? 0 : base_events[s] / baseline_run (sizes[s], base_events[s], line, length);
      base_rate[s] = bench_median (base, REPS);

      fanout_start (&fanout, manager, &env, sizes[s], payload, length);
      windows[s] = fanout.window;
      acks[s] = fanout.ack_every;
      zot_events[s] = bench_scaled (zot_wanted[s], fanout.ack_every);
      fanout_run (&fanout, fanout.ack_every * 4);
      for (guint r = 0; r < REPS; r++)
        {
          double cpu_start = bench_cpu_seconds ();

          zot[r] = zot_events[s] / fanout_run (&fanout, zot_events[s]);
          cpu[r] = (bench_cpu_seconds () - cpu_start) * 1e6 / zot_events[s];
        }
      zot_rate[s] = bench_median (zot, REPS);
      zot_cpu[s] = bench_median (cpu, REPS);
      fanout_stop (&fanout);
    }

  g_print ("a %" G_GSIZE_FORMAT "-byte tool_call event line; zot: at most %d events per main loop turn, each "
           "extension acks every %u events,\nthe emitter stays at most %u events (what the smallest pipe holds) "
           "ahead of the slowest ack;\nmedian of %d runs; rates are events emitted per second, each delivered "
           "to every extension\n\n",
           length, PER_TURN, acks[0], windows[0], REPS);
  g_print ("%-46s %11s %8s %12s %15s %13s %8s\n",
           "path", "extensions", "events", "events/s", "deliveries/s", "host CPU us/ev", "vs base");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autofree char *ratio = skip_baseline ? g_strdup ("-") : g_strdup_printf ("%.1fx", zot_rate[s] / base_rate[s]);

      if (!skip_baseline)
        g_print ("%-46s %11u %8u %12.0f %15.0f %13s %8s\n",
                 "baseline: one blocking write() per event each", sizes[s], base_events[s],
                 base_rate[s], base_rate[s] * sizes[s], "-", "1.0x");
      g_print ("%-46s %11u %8u %12.0f %15.0f %13.2f %8s\n",
               "zot_extension_manager_emit_event", sizes[s], zot_events[s],
               zot_rate[s], zot_rate[s] * sizes[s], zot_cpu[s], ratio);
    }

  if (skip_baseline)
    {
      g_print ("\nthe baseline was skipped ($ZOT_BENCH_SKIP_BASELINE): no ratios\n");
      bench_env_clear (&env);
      return 0;
    }

  g_print ("\ntarget: at least %.0fx the rate of one write() per event per extension\n", TARGET);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    g_print ("  %2u extensions: %.1fx (%s)\n", sizes[s], zot_rate[s] / base_rate[s],
             bench_verdict (zot_rate[s] / base_rate[s] >= TARGET));
  serialize_us = payload_serialize_us (payload);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    g_print ("note: with %u extensions the host spends %.2f us of CPU per %.2f us event; 20x the baseline "
             "would be %.2f us per event\n",
             sizes[s], zot_cpu[s], 1e6 / zot_rate[s], 1e6 / (TARGET * base_rate[s]));
  g_print ("      json-glib alone takes %.2f us to serialize this payload once (the host does it once per "
           "event);\n      the rest is per delivery: queueing, and the kernel copying each batch into "
           "every pipe and waking\n      its reader, on the same two CPUs as the extensions\n",
           serialize_us);

  bench_env_clear (&env);
  return 0;
}
