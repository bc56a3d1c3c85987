/* zot-codemode-box.c — the resident memory and the number of processes
 * of a script's box, everything the runtime started included.
 *
 * The box has its own pid namespace and mounts its own /proc, in which
 * only its processes are; the host reads it through the root of the
 * box's first process (/proc/PID/root/proc). No cgroup is needed, and
 * the count holds for root too, which RLIMIT_NPROC does not. */
#define G_LOG_DOMAIN "zot-codemode"

#include "config.h"

#include "zot-codemode-box.h"
#include "zot-proc.h"

static gboolean
is_pid (const char *name)
{
  if (*name == '\0')
    return FALSE;
  for (; *name != '\0'; name++)
    if (!g_ascii_isdigit (*name))
      return FALSE;
  return TRUE;
}

static gsize
read_resident (const char *proc,
               const char *pid)
{
  g_autofree char *path = g_build_filename (proc, pid, "statm", NULL);

  return zot_proc_read_statm_resident (path);
}

/**
 * zot_codemode_box_measure:
 * @first: the host's pid of the box's first process (pid 1 inside)
 * @max_processes: the count stops past this: more is more
 * @usage: (out): what the box's processes use together
 *
 * Returns: %FALSE when the box cannot be seen (it has ended)
 */
gboolean
zot_codemode_box_measure (GPid                 first,
                          guint                max_processes,
                          ZotCodemodeBoxUsage *usage)
{
  g_autofree char *proc = g_strdup_printf ("/proc/%d/root/proc", (int) first);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  usage->resident = 0;
  usage->processes = 0;
  dir = g_dir_open (proc, 0, NULL);
  if (dir == NULL)
    return FALSE;

  while ((name = g_dir_read_name (dir)) != NULL && usage->processes <= max_processes)
    {
      if (!is_pid (name))
        continue;
      usage->processes++;
      usage->resident += read_resident (proc, name);
    }
  return usage->processes > 0;
}
