/* zot-fuzz-util.h — what the fuzz targets share.
 *
 * Each target is one LLVMFuzzerTestOneInput() over one parser. They are
 * deterministic (no clock or random numbers decide what is parsed) and
 * leave nothing behind between inputs: LeakSanitizer runs after each one.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What each target defines; LLVMFuzzerInitialize() is here, for all. */
int          LLVMFuzzerTestOneInput    (const guint8    *data,
                                        size_t           size);
int          LLVMFuzzerInitialize      (int             *argc,
                                        char          ***argv);

/* A private directory for the process, made on first use and removed at
 * a normal exit. */
const char  *zot_fuzz_get_tmpdir       (void);

/* Aborts with @what and an excerpt of @text when @text is not UTF-8. */
void         zot_fuzz_assert_utf8      (const char  *what,
                                        const char  *text,
                                        gssize       length);

/**
 * ZotFuzzSplitter:
 *
 * Cuts input into chunks whose sizes follow from @seed alone, so that the
 * same input is always fed the same way: some seeds give single bytes,
 * some a few bytes, some large pieces. After ZOT_FUZZ_MAX_CHUNKS chunks
 * the rest comes whole: every chunk costs a main loop turn or two.
 */
#define ZOT_FUZZ_MAX_CHUNKS 48

typedef struct
{
  guint32 state;
  gsize   max_chunk;
  guint   n_chunks;
} ZotFuzzSplitter;

void         zot_fuzz_splitter_init    (ZotFuzzSplitter *splitter,
                                        guint8           seed);
gsize        zot_fuzz_splitter_next    (ZotFuzzSplitter *splitter,
                                        gsize            remaining);

typedef gboolean (*ZotFuzzDoneFunc) (gpointer user_data);

/* Iterates @context until no source is ready (or @done says so). */
void         zot_fuzz_drain            (GMainContext    *context,
                                        ZotFuzzDoneFunc  done,
                                        gpointer         user_data);

/* Writes @data into the pipe @fd in the chunks of @seed, draining
 * @context after each so that the reader sees every cut; stops early once
 * @done says so. Does not close @fd. */
void         zot_fuzz_feed_pipe        (int              fd,
                                        const guint8    *data,
                                        gsize            size,
                                        guint8           seed,
                                        GMainContext    *context,
                                        ZotFuzzDoneFunc  done,
                                        gpointer         user_data);

G_END_DECLS
