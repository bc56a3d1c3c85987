/* zot-session-private.h — what the files of ZotSession share.
 *
 * Only for zot-session*.c.
 */
#pragma once

#include "zot-session.h"

G_BEGIN_DECLS

/* The file format this zot writes; a file of a newer one is refused. */
#define ZOT_SESSION_VERSION 1

/* Shared by the session (on its context) and the worker thread. */
typedef struct
{
  gatomicrefcount  ref_count;
  GMutex           lock;
  char            *path;
  int              fd;                  /* the file, locked; -1 until opened */
  GMainContext    *context;
  GQueue           jobs;                /* Job *, waiting for the worker */
  GQueue           done;                /* Job *, written, waiting for delivery */
  gboolean         running;             /* a worker thread is draining `jobs` */
  gboolean         delivery_scheduled;
  GError          *failure;             /* the first write error; never cleared */
  gpointer         owner;               /* the ZotSession; NULL once finalized */
} Writer;

struct _ZotSession
{
  GObject        parent_instance;

  char          *id;
  char          *path;          /* NULL when in memory */
  char          *cwd;
  GPtrArray     *messages;      /* JsonObject */
  GStrv          activated_tools; /* sorted; the last "activated_tools" entry */
  JsonObject    *script_state;  /* the last "script_state" entry's state */
  GPtrArray     *warnings;      /* char *, NULL-terminated */
  GMainContext  *context;
  Writer        *writer;        /* NULL when in memory */
  GQueue         inflight;      /* Pending *, one per job given to the writer, in order */
  GError        *write_error;   /* as the session's context has learnt it */
  JsonObject    *unsaved;       /* results made up at load, written with the next entry */
  gboolean       need_header;
  gboolean       need_newline;  /* the file ends in a torn line, to end before the next entry */
  gboolean       read_only;
  gboolean       continuous;    /* the header says "mode":"continuous" */
  GHashTable    *tasks;         /* task id → JsonObject, continuous mode's journal */
  GPtrArray     *task_order;    /* char *, task ids in the order they were first journaled */
  GPtrArray     *earlier;       /* JsonObject, what compactions in the file replaced, for display */
  char          *forked_from;   /* the header's "forked_from" file name, when valid */
  gint64         forked_from_entry;
};

Writer      *_zot_session_writer_new       (const char   *path);
void         _zot_session_stop_writing     (ZotSession   *self);
void         _zot_session_append_line      (GString      *lines,
                                            JsonObject   *entry);
JsonObject  *_zot_session_header_new       (const char   *id,
                                            const char   *cwd);
void         _zot_session_set_write_error  (GError      **error,
                                            const char   *path,
                                            int           errsv);
gboolean     _zot_session_lock_file        (int           fd,
                                            const char   *path,
                                            GError      **error);

gboolean     _zot_session_check_entry      (JsonObject   *entry,
                                            GError      **error);
void         _zot_session_apply_entry      (ZotSession   *self,
                                            JsonObject   *entry);
void         _zot_session_replace_str      (char        **slot,
                                            const char   *value);

/* zot-session-edit.c */
gboolean     _zot_session_check_remove     (JsonObject   *entry,
                                            GError      **error);
void         _zot_session_apply_remove     (ZotSession   *self,
                                            JsonObject   *entry);
void         _zot_session_load_fork        (ZotSession   *self,
                                            JsonObject   *header);

/* zot-session-journal.c */
gboolean     _zot_session_check_task       (JsonObject   *entry,
                                            GError      **error);
void         _zot_session_apply_task       (ZotSession   *self,
                                            JsonObject   *entry);

gboolean     _zot_session_lock_for_load    (ZotSession   *self,
                                            GError      **error);
gboolean     _zot_session_load             (ZotSession   *self,
                                            GError      **error);

G_END_DECLS
