/* zot-builtin-tools-private.h — what the built-in tools' files share.
 *
 * Only for zot-builtin-tools.c and the zot-tool-*.c files of the tools.
 */
#pragma once

#include <sys/stat.h>

#include "zot-tool.h"

G_BEGIN_DECLS

/* Reads go in chunks of this size. */
#define ZOT_BUILTIN_CHUNK_BYTES ((gsize) 64 * 1024)

typedef enum
{
  ZOT_ARG_MISSING,
  ZOT_ARG_OK,
  ZOT_ARG_INVALID,
} ZotArgStatus;

ZotArgStatus   _zot_builtin_args_get_int        (JsonObject           *args,
                                                 const char           *member,
                                                 gint64               *value);
ZotArgStatus   _zot_builtin_args_get_bool       (JsonObject           *args,
                                                 const char           *member,
                                                 gboolean             *value);

ZotToolResult *_zot_builtin_result_printf       (ZotToolOutcome        outcome,
                                                 const char           *format,
                                                 ...) G_GNUC_PRINTF (2, 3);
ZotToolResult *_zot_builtin_missing_string_arg  (const char           *member);
ZotToolResult *_zot_builtin_errno_result        (int                   errsv,
                                                 const char           *path);
void           _zot_builtin_return_result       (GTask                *task,
                                                 ZotToolResult        *result);
void           _zot_builtin_return_result_now   (ZotTool              *self,
                                                 gpointer              source_tag,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data,
                                                 ZotToolResult        *result);
void           _zot_builtin_run_job             (ZotTool              *self,
                                                 gpointer              source_tag,
                                                 gboolean              finish_once_started,
                                                 gpointer              job,
                                                 GDestroyNotify        job_free,
                                                 GTaskThreadFunc       thread_func,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
ZotToolResult *_zot_builtin_execute_finish      (ZotTool              *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);

int            _zot_builtin_open_regular_file   (const char           *path,
                                                 struct stat          *st,
                                                 ZotToolResult       **result);
GBytes        *_zot_builtin_read_fd_bounded     (int                   fd,
                                                 const char           *path,
                                                 gsize                 max_bytes,
                                                 gboolean             *too_big,
                                                 GError              **error);

G_END_DECLS
