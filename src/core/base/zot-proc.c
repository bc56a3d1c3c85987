/* zot-proc.c — reading /proc/PID/stat, status and statm.
 *
 * Each read is one small file read: cheap enough to do when someone looks,
 * so nothing samples on a timer. */
#define G_LOG_DOMAIN "zot-proc"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "zot-proc.h"

/**
 * zot_proc_read_cpu_time:
 * @pid: a process of ours
 * @cpu_us: (out): its user and system CPU time, and that of the children
 *   it has waited for, in microseconds
 *
 * Returns: %FALSE when the process is gone or /proc cannot be read
 */
gboolean
zot_proc_read_cpu_time (GPid     pid,
                        guint64 *cpu_us)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *field;
  guint64 ticks = 0;
  long hz = sysconf (_SC_CLK_TCK);

  g_return_val_if_fail (cpu_us != NULL, FALSE);

  if (pid <= 0 || hz <= 0 || !g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;

  /* The command name (field 2) is in parentheses and may hold spaces and
   * parentheses itself: the fields are counted from the last ")". */
  field = strrchr (stat, ')');
  if (field == NULL)
    return FALSE;
  field++;

  /* After ")": state (3) … utime (14), stime (15), cutime (16), cstime (17). */
  for (guint i = 3; i <= 17; i++)
    {
      char *end = NULL;
      guint64 value;

      while (*field == ' ')
        field++;
      if (*field == '\0')
        return FALSE;
      value = g_ascii_strtoull (field, &end, 10);
      if (i >= 14)
        ticks += value;
      field = end != field ? end : field + strcspn (field, " ");
    }

  *cpu_us = ticks * G_USEC_PER_SEC / (guint64) hz;
  return TRUE;
}

/**
 * zot_proc_read_status_kib:
 * @field: a line of /proc/PID/status, like "VmRSS" or "VmHWM"
 * @kib: (out): its value, in KiB
 *
 * Returns: %FALSE when the process is gone or has no such line
 */
gboolean
zot_proc_read_status_kib (GPid        pid,
                          const char *field,
                          guint64    *kib)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *status = NULL;
  g_autofree char *key = g_strdup_printf ("\n%s:", field);
  const char *line;

  g_return_val_if_fail (field != NULL && kib != NULL, FALSE);

  if (pid <= 0 || !g_file_get_contents (path, &status, NULL, NULL))
    return FALSE;
  line = strstr (status, key);
  if (line == NULL)
    return FALSE;
  *kib = g_ascii_strtoull (line + strlen (key), NULL, 10);
  return TRUE;
}

/**
 * zot_proc_read_statm_resident:
 * @path: a statm file
 *
 * Returns: the resident bytes, the second field of statm; 0 when it
 *   cannot be read
 */
gsize
zot_proc_read_statm_resident (const char *path)
{
  g_autofree char *statm = NULL;
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  char *end = NULL;
  guint64 pages;

  g_return_val_if_fail (path != NULL, 0);

  if (!g_file_get_contents (path, &statm, NULL, NULL))
    return 0;
  (void) g_ascii_strtoull (statm, &end, 10);
  pages = g_ascii_strtoull (end, NULL, 10);
  return (gsize) MIN (pages, G_MAXSIZE / page) * page;
}
