/* zot-line-diff.c — line diffs and bounded line text, for the transcript.
 *
 * The diff is Myers' O(ND) greedy algorithm over the lines that differ:
 * the common first and last lines are set aside first, since an edit
 * usually changes a few lines in the middle of many. Myers keeps every
 * round's furthest reaching paths to walk back the shortest edit script,
 * (D + 1)² cells for D edits: ZOT_DIFF_MAX_LINES bounds D, so the memory
 * and the time stay small whatever the input.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-line-diff.h"

typedef struct
{
  const char *start;
  gsize       len;
  guint32     hash;
} Line;

typedef enum
{
  OP_SAME,
  OP_REMOVED,
  OP_ADDED,
} Op;

/* A final newline ends the last line rather than starting another, and a
 * carriage return before a newline is part of the line break. */
static GArray *
split_lines (const char *text)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  const char *p = text != NULL ? text : "";

  while (*p != '\0')
    {
      const char *newline = strchr (p, '\n');
      Line line = { p, newline != NULL ? (gsize) (newline - p) : strlen (p), 0 };

      if (line.len > 0 && p[line.len - 1] == '\r')
        line.len--;
      g_array_append_val (lines, line);
      if (newline == NULL)
        break;
      p = newline + 1;
    }

  return lines;
}

static gboolean
line_equal (const Line *a,
            const Line *b)
{
  return a->len == b->len && memcmp (a->start, b->start, a->len) == 0;
}

static void
hash_lines (Line  *lines,
            guint  n)
{
  for (guint i = 0; i < n; i++)
    {
      guint32 hash = 5381;

      for (gsize j = 0; j < lines[i].len; j++)
        hash = hash * 33 + (guchar) lines[i].start[j];
      lines[i].hash = hash;
    }
}

static gboolean
hashed_equal (const Line *a,
              const Line *b)
{
  return a->hash == b->hash && line_equal (a, b);
}

/* Appends to @ops the shortest edit script from @a to @b. */
static void
myers (Line   *a,
       guint   n,
       Line   *b,
       guint   m,
       GArray *ops)
{
  int max = (int) (n + m);
  g_autofree int *v = g_new0 (int, 2 * max + 3);
  g_autoptr(GPtrArray) trace = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) reversed = g_array_new (FALSE, FALSE, sizeof (guint8));
  int x = 0, y = 0;

  /* v[k + offset] is the furthest x on diagonal k = x - y. */
#define V(k) v[(k) + max + 1]
  for (int d = 0; d <= max; d++)
    {
      int *round = g_new (int, 2 * d + 1);
      gboolean done = FALSE;

      for (int k = -d; k <= d; k += 2)
        {
          if (k == -d || (k != d && V (k - 1) < V (k + 1)))
            x = V (k + 1);
          else
            x = V (k - 1) + 1;
          y = x - k;
          while (x < (int) n && y < (int) m && hashed_equal (&a[x], &b[y]))
            x++, y++;
          V (k) = x;
          if (x >= (int) n && y >= (int) m)
            done = TRUE;
        }
      for (int k = -d; k <= d; k++)
        round[k + d] = V (k);
      g_ptr_array_add (trace, round);
      if (done)
        break;
    }
#undef V

  /* Back from (n, m): each round's move, with the diagonal run after it. */
  x = (int) n;
  y = (int) m;
  for (int d = (int) trace->len - 1; d > 0; d--)
    {
      const int *previous = trace->pdata[d - 1];
      int k = x - y;
      gboolean down = k == -d || (k != d && previous[k - 1 + d - 1] < previous[k + 1 + d - 1]);
      int prev_k = down ? k + 1 : k - 1;
      int prev_x = previous[prev_k + d - 1];
      int prev_y = prev_x - prev_k;
      guint8 op;

      while (x > prev_x + (down ? 0 : 1) && y > prev_y + (down ? 1 : 0))
        {
          op = OP_SAME;
          g_array_append_val (reversed, op);
          x--, y--;
        }
      op = down ? OP_ADDED : OP_REMOVED;
      g_array_append_val (reversed, op);
      x = prev_x;
      y = prev_y;
    }
  for (; x > 0 && y > 0; x--, y--)
    {
      guint8 op = OP_SAME;

      g_array_append_val (reversed, op);
    }
  g_assert (x == 0 && y == 0);

  for (guint i = reversed->len; i > 0; i--)
    g_array_append_val (ops, g_array_index (reversed, guint8, i - 1));
}

static void
append_range (GString *out,
              guint    start,
              guint    count)
{
  /* An empty range names the line before it, as diff(1) does. */
  g_string_append_printf (out, "%u,%u", count == 0 ? start : start + 1, count);
}

static void
append_hunk (GString    *out,
             const guint8 *ops,
             guint       from,
             guint       to,
             guint       old_at,
             guint       new_at,
             const Line *old_lines,
             const Line *new_lines)
{
  guint old_count = 0, new_count = 0;

  for (guint i = from; i < to; i++)
    {
      old_count += ops[i] != OP_ADDED;
      new_count += ops[i] != OP_REMOVED;
    }

  g_string_append (out, "@@ -");
  append_range (out, old_at, old_count);
  g_string_append (out, " +");
  append_range (out, new_at, new_count);
  g_string_append (out, " @@\n");

  for (guint i = from; i < to; i++)
    {
      const Line *line = ops[i] == OP_ADDED ? &new_lines[new_at] : &old_lines[old_at];

      g_string_append_c (out, ops[i] == OP_SAME ? ' ' : ops[i] == OP_ADDED ? '+' : '-');
      g_string_append_len (out, line->start, line->len);
      g_string_append_c (out, '\n');
      old_at += ops[i] != OP_ADDED;
      new_at += ops[i] != OP_REMOVED;
    }
}

/**
 * zot_line_diff:
 * @old_text: (nullable): the text before
 * @new_text: (nullable): the text after
 * @context: unchanged lines shown around each change
 * @out_added: (out) (optional): lines added
 * @out_removed: (out) (optional): lines removed
 *
 * Returns: (transfer full) (nullable): the changes as unified diff hunks
 *   (without file headers), "" when the texts have the same lines; %NULL
 *   when the lines that differ are more than ZOT_DIFF_MAX_LINES
 */
char *
zot_line_diff (const char *old_text,
               const char *new_text,
               guint       context,
               guint      *out_added,
               guint      *out_removed)
{
  g_autoptr(GArray) old_lines = split_lines (old_text);
  g_autoptr(GArray) new_lines = split_lines (new_text);
  g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (guint8));
  Line *a = (Line *) old_lines->data;
  Line *b = (Line *) new_lines->data;
  guint n = old_lines->len, m = new_lines->len;
  guint prefix = 0, suffix = 0;
  guint added = 0, removed = 0;
  GString *out;
  guint old_at = 0, new_at = 0;
  guint8 same = OP_SAME;

  while (prefix < n && prefix < m && line_equal (&a[prefix], &b[prefix]))
    prefix++;
  while (suffix < n - prefix && suffix < m - prefix &&
         line_equal (&a[n - 1 - suffix], &b[m - 1 - suffix]))
    suffix++;

  if ((n - prefix - suffix) + (m - prefix - suffix) > ZOT_DIFF_MAX_LINES)
    return NULL;

  for (guint i = 0; i < prefix; i++)
    g_array_append_val (ops, same);
  hash_lines (a + prefix, n - prefix - suffix);
  hash_lines (b + prefix, m - prefix - suffix);
  myers (a + prefix, n - prefix - suffix, b + prefix, m - prefix - suffix, ops);
  for (guint i = 0; i < suffix; i++)
    g_array_append_val (ops, same);

  out = g_string_new (NULL);
  for (guint i = 0; i < ops->len;)
    {
      const guint8 *op = (const guint8 *) ops->data;
      guint from, to, last;

      if (op[i] == OP_SAME)
        {
          old_at++, new_at++, i++;
          continue;
        }

      /* A hunk: this change and those close enough to share its context. */
      from = i - MIN (i, context);
      last = i;
      for (guint j = i; j < ops->len && j <= last + 2 * context + 1; j++)
        if (op[j] != OP_SAME)
          last = j;
      to = MIN (ops->len, last + context + 1);

      old_at -= i - from;
      new_at -= i - from;
      append_hunk (out, op, from, to, old_at, new_at, a, b);
      for (guint j = from; j < to; j++)
        {
          added += op[j] == OP_ADDED;
          removed += op[j] == OP_REMOVED;
          old_at += op[j] != OP_ADDED;
          new_at += op[j] != OP_REMOVED;
        }
      i = to;
    }

  if (out_added != NULL)
    *out_added = added;
  if (out_removed != NULL)
    *out_removed = removed;
  return g_string_free (out, FALSE);
}

/**
 * zot_line_count:
 * @text: (nullable): some text
 *
 * Returns: its lines, as zot_line_clip() counts them: a final newline
 *   starts no line
 */
guint
zot_line_count (const char *text)
{
  guint count = 0;
  const char *p = text != NULL ? text : "";

  while (*p != '\0')
    {
      count++;
      p = strchr (p, '\n');
      if (p == NULL)
        break;
      p++;
    }

  return count;
}

/**
 * zot_line_clip:
 * @text: (nullable): some text
 * @prefix: (nullable): put before each line ("+" for added lines)
 * @max_lines: the most lines wanted; never more than ZOT_TOOL_VIEW_MAX_LINES
 * @out_shown: (out) (optional): how many lines the result holds
 *
 * The first lines of @text, each cut at ZOT_TOOL_VIEW_LINE_MAX_CHARS
 * characters with an ellipsis, stopping before ZOT_TOOL_VIEW_MAX_BYTES,
 * joined by newlines without a final one.
 *
 * Returns: (transfer full): the lines
 */
char *
zot_line_clip (const char *text,
               const char *prefix,
               guint       max_lines,
               guint      *out_shown)
{
  GString *out = g_string_new (NULL);
  const char *p = text != NULL ? text : "";
  gsize prefix_len = prefix != NULL ? strlen (prefix) : 0;
  guint shown = 0;

  max_lines = MIN (max_lines, ZOT_TOOL_VIEW_MAX_LINES);
  while (*p != '\0' && shown < max_lines)
    {
      const char *newline = strchr (p, '\n');
      const char *end = newline != NULL ? newline : p + strlen (p);
      const char *cut = p;
      guint chars = 0;

      if (end > p && end[-1] == '\r')
        end--;
      while (cut < end && chars < ZOT_TOOL_VIEW_LINE_MAX_CHARS)
        {
          cut = g_utf8_find_next_char (cut, end);
          if (cut == NULL)
            cut = end;
          chars++;
        }
      if (out->len + (shown > 0) + prefix_len + (gsize) (cut - p) + strlen ("…") > ZOT_TOOL_VIEW_MAX_BYTES)
        break;

      if (shown > 0)
        g_string_append_c (out, '\n');
      if (prefix != NULL)
        g_string_append (out, prefix);
      g_string_append_len (out, p, cut - p);
      if (cut < end)
        g_string_append (out, "…");
      shown++;
      if (newline == NULL)
        break;
      p = newline + 1;
    }

  if (out_shown != NULL)
    *out_shown = shown;
  return g_string_free (out, FALSE);
}
