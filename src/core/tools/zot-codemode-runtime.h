/* zot-codemode-runtime.h — one confined JavaScript runtime for one
 * codemode script (PROTOCOL.md §4a).
 *
 * gjs runs data/codemode/runtime.js inside bubblewrap (inside a Flatpak,
 * in the portal's sub-sandbox): no network, no home, no project
 * directory, read-only /usr, a private /tmp, killed with the host. It
 * talks JSON lines on its stdin and stdout (ZotFrameChannel, 4 MiB per
 * frame). Starting completes once the runtime said "ready"; a runtime
 * that cannot be confined never starts, and the error names the fix.
 *
 * Each runtime serves one script and is then stopped; one started ahead of
 * time (a spare) is only ever given one script too. Its memory is watched
 * from its first frame sent: past ZOT_CODEMODE_MEMORY_MAX_BYTES of peak
 * resident size it is killed, and ::ended says why.
 *
 * Main thread only.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ZOT_TYPE_CODEMODE_RUNTIME (zot_codemode_runtime_get_type ())
G_DECLARE_FINAL_TYPE (ZotCodemodeRuntime, zot_codemode_runtime, ZOT, CODEMODE_RUNTIME, GObject)

void                zot_codemode_runtime_start_async      (GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
ZotCodemodeRuntime *zot_codemode_runtime_start_finish     (GAsyncResult         *result,
                                                           GError              **error);
gboolean            zot_codemode_runtime_send             (ZotCodemodeRuntime   *self,
                                                           JsonObject           *frame,
                                                           GError              **error);
gboolean            zot_codemode_runtime_is_alive         (ZotCodemodeRuntime   *self);
gsize               zot_codemode_runtime_get_peak_memory  (ZotCodemodeRuntime   *self);
void                zot_codemode_runtime_stop             (ZotCodemodeRuntime   *self);

/* Test-only: the programs to run instead of those on $PATH (a path that
 * does not exist stands for a missing one); NULL for the real ones. */
void                _zot_codemode_runtime_set_programs_for_testing (const char *bwrap,
                                                                    const char *gjs);

void                _zot_codemode_runtime_set_limits_for_testing   (gsize       memory_bytes,
                                                                    guint       processes);

G_END_DECLS
