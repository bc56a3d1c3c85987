/* zot-transcript-view.c — the scrolling list that shows the transcript.
 *
 * Why not GtkListView: GTK 4.8's list view keeps widgets for 200 items
 * around an anchor that it places by where the anchor's row sits in the
 * window. While a long conversation scrolls, that range swings by tens of
 * items a frame, and every row that joins it is bound, moved among its
 * siblings and styled again: at 2,000 messages, scrolling spent most of
 * each frame on that and could not keep to 16 ms.
 *
 * This view makes rows only for the items in view. The place of every
 * item comes from the heights of the rows measured so far, and an
 * estimate (their average) for the others, and the view holds on to one
 * row on the page and how far above or below its top the page starts, so
 * rows measured elsewhere never move what is on screen
 * (zot_transcript_view_size_allocate() says which row). A row that
 * scrolls out of view leaves the widget tree but stays bound to its item,
 * following its changes, and comes back with its text laid out; once
 * TRANSCRIPT_ROW_CACHE rows exist, the one farthest from the view goes to
 * the next item that needs a row. Between frames, the rows just off the
 * page are made ready the same way. So a scroll step costs the rows that
 * enter the view, a few at most and mostly ready, whatever the length of
 * the conversation. The view also follows the end of the conversation
 * while the user is there.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include "zot-transcript-private.h"
#include "zot-transcript-row.h"
#include "zot-transcript-view.h"

/* Space above the first row and below the last. */
#define TOP_PADDING        6
#define BOTTOM_PADDING     12
/* The height taken for rows not measured, before any row has been. */
#define DEFAULT_ROW_HEIGHT 80
/* Rows made at once for items that come at the end (on_items_changed_cb()). */
#define EAGER_ROWS         4
/* Allocations at most to learn a new row's height (measure_row()). */
#define SETTLE_ATTEMPTS    3
/* Pixels from the end that still count as "at the end". */
#define END_SLACK          24.0

typedef struct
{
  ZotTranscriptItem *item;       /* a reference */
  GtkWidget         *row;        /* a reference */
  guint              position;   /* in the model, kept up to date */
  guint              measured;   /* the layout that last measured it */
  int                alloc_width;   /* its last allocation */
  int                alloc_height;
  guint              placed;     /* the layout that last gave it a place */
  guint              since;      /* on the page since that layout */
  guint              shown : 1;  /* a child of the view */
} RowEntry;

struct _ZotTranscriptView
{
  GtkWidget                  parent_instance;

  GListModel                *model;
  GtkAdjustment             *adjustment[2];
  guint                      scroll_policy[2];

  GArray                    *heights;        /* int per item: measured, or -1 */
  int                        heights_width;  /* the width they were measured at */
  double                     estimate;       /* for the items not measured */

  GHashTable                *rows;           /* ZotTranscriptItem → RowEntry */
  GPtrArray                 *placed_rows;    /* the rows the last layout placed */
  guint                      n_rows_created;
  guint                      n_rows_shown;
  guint                      pass;
  guint                      first_placed;   /* the rows on the page */
  guint                      last_placed;
  guint                      prefetch_source;

  guint                      anchor;         /* the item at the top of the view */
  double                     anchor_offset;  /* from its top down to the view's */
  guint                      at_end : 1;     /* following the end */
  guint                      pinned : 1;     /* scrolled to the anchor */
  guint                      configuring : 1;

  ZotTranscriptViewBindFunc  bind_func;
  gpointer                   bind_data;
};

enum {
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
  N_PROPS
};

static void on_adjustment_value_changed_cb (GtkAdjustment     *adjustment,
                                            ZotTranscriptView *self);

G_DEFINE_FINAL_TYPE_WITH_CODE (ZotTranscriptView, zot_transcript_view, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

/* Rows */

static void
row_entry_free (gpointer data)
{
  RowEntry *entry = data;

  if (entry->shown)
    gtk_widget_unparent (entry->row);
  zot_transcript_row_unbind (ZOT_TRANSCRIPT_ROW (entry->row));
  g_object_unref (entry->row);
  g_object_unref (entry->item);
  g_free (entry);
}

static void
hide_row (RowEntry *entry)
{
  if (entry->shown)
    {
      gtk_widget_unparent (entry->row);
      entry->shown = FALSE;
    }
}

static guint
distance (guint a,
          guint b)
{
  return a > b ? a - b : b - a;
}

/* A row for an item that has none: once there are TRANSCRIPT_ROW_CACHE
 * rows, the one out of view farthest from @position, else a new one. */
static GtkWidget *
take_row (ZotTranscriptView *self,
          guint              position)
{
  if (g_hash_table_size (self->rows) >= TRANSCRIPT_ROW_CACHE)
    {
      RowEntry *farthest = NULL;
      GHashTableIter iter;
      RowEntry *entry;

      g_hash_table_iter_init (&iter, self->rows);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
        if (!entry->shown &&
            (farthest == NULL || distance (entry->position, position) > distance (farthest->position, position)))
          farthest = entry;

      if (farthest != NULL)
        {
          GtkWidget *row = g_object_ref (farthest->row);

          /* Freeing the entry unbinds the row. */
          g_hash_table_remove (self->rows, farthest->item);
          return row;
        }
    }

  self->n_rows_created++;
  return g_object_ref_sink (zot_transcript_row_new ());
}

/* The row of the item at @position, a child of the view. */
static RowEntry *
show_row (ZotTranscriptView *self,
          guint              position)
{
  g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (self->model, position);
  RowEntry *entry = g_hash_table_lookup (self->rows, item);

  if (entry == NULL)
    {
      entry = g_new0 (RowEntry, 1);
      entry->item = g_object_ref (item);
      entry->row = take_row (self, position);
      zot_transcript_row_bind (ZOT_TRANSCRIPT_ROW (entry->row), item);
      g_hash_table_insert (self->rows, item, entry);
      if (self->bind_func != NULL)
        self->bind_func (entry->row, item, self->bind_data);
    }
  entry->position = position;

  if (!entry->shown)
    {
      gtk_widget_insert_before (entry->row, GTK_WIDGET (self), NULL);
      entry->shown = TRUE;
    }

  return entry;
}

/* Heights */

static int
height_at (ZotTranscriptView *self,
           guint              position)
{
  int height = g_array_index (self->heights, int, position);

  return height >= 0 ? height : (int) self->estimate;
}

/* Measures a row on the page at the layout's width. */
static int
measure_row (ZotTranscriptView *self,
             RowEntry          *entry)
{
  int height;

  entry->measured = self->pass;
  gtk_widget_measure (entry->row, GTK_ORIENTATION_VERTICAL, self->heights_width, NULL, &height, NULL, NULL);

  /* A text view reports the height of its text as last laid out, at the
   * width it was last given, whatever width it is asked about: a row that
   * is new, or new to this width, or changed, may say a wrong height until
   * it has been allocated. So it is, and asked again, so that it goes on
   * screen at its real height rather than for a frame at another. */
  for (guint i = 0;
       i < SETTLE_ATTEMPTS && (entry->alloc_width != self->heights_width || entry->alloc_height != height);
       i++)
    {
      gtk_widget_size_allocate (entry->row, &(GtkAllocation) { 0, 0, self->heights_width, height }, -1);
      entry->alloc_width = self->heights_width;
      entry->alloc_height = height;
      gtk_widget_measure (entry->row, GTK_ORIENTATION_VERTICAL, self->heights_width, NULL, &height, NULL, NULL);
    }

  g_array_index (self->heights, int, entry->position) = height;
  return height;
}

static double
item_top (ZotTranscriptView *self,
          guint              position)
{
  double y = TOP_PADDING;

  for (guint i = 0; i < position; i++)
    y += height_at (self, i);

  return y;
}

static double
content_height (ZotTranscriptView *self)
{
  return item_top (self, self->heights->len) + BOTTOM_PADDING;
}

static void
update_estimate (ZotTranscriptView *self)
{
  double sum = 0;
  guint n_known = 0;

  for (guint i = 0; i < self->heights->len; i++)
    {
      int height = g_array_index (self->heights, int, i);

      if (height >= 0)
        {
          sum += height;
          n_known++;
        }
    }

  self->estimate = n_known > 0 ? sum / n_known : DEFAULT_ROW_HEIGHT;
}

/* Holds on to a row of the page that starts at @value (in content
 * coordinates) and is @page high: the top row at the top of the
 * conversation, so that the view stays there while the rows there are
 * measured, and elsewhere the row in the middle. */
static void
anchor_page (ZotTranscriptView *self,
             double             value,
             double             page)
{
  double point = value > 0 ? value + page / 2 : 0;
  double y = TOP_PADDING;
  double top = y;
  guint n = self->heights->len;

  self->anchor = 0;
  for (guint i = 0; i < n; i++)
    {
      int height = height_at (self, i);

      self->anchor = i;
      top = y;
      if (point < y + height)
        break;
      y += height;
    }
  self->anchor_offset = value - top;
}

/* Layout */

static int
round_to_pixel (double y)
{
  return (int) (y >= 0 ? y + 0.5 : y - 0.5);
}

static void
zot_transcript_view_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (widget);

  *minimum = *natural = 0;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      for (GtkWidget *child = gtk_widget_get_first_child (widget);
           child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          int child_min, child_nat;

          gtk_widget_measure (child, orientation, -1, &child_min, &child_nat, NULL, NULL);
          *minimum = MAX (*minimum, child_min);
          *natural = MAX (*natural, child_nat);
        }
    }
  else
    {
      *natural = (int) MIN (content_height (self), G_MAXINT / 2);
    }
}

static void
configure_adjustment (ZotTranscriptView *self,
                      double             value,
                      double             upper,
                      double             page)
{
  GtkAdjustment *adjustment = self->adjustment[GTK_ORIENTATION_VERTICAL];

  if (adjustment == NULL)
    return;

  self->configuring = TRUE;
  gtk_adjustment_configure (adjustment, value, 0, MAX (upper, page), page * 0.1, page * 0.9, page);
  self->configuring = FALSE;
}

/* Lays out the rows from the end up, until they fill @page. */
static void
fill_from_end (ZotTranscriptView *self,
               int                page)
{
  double covered = BOTTOM_PADDING;
  guint i = self->heights->len;

  while (i > 0 && covered < page)
    covered += measure_row (self, show_row (self, --i));
}

/* Measures the rows around the anchor that the page shows, and returns
 * where the page starts, in content coordinates. */
static double
measure_page (ZotTranscriptView *self,
              int                page)
{
  guint n = self->heights->len;
  double value, above, below;
  guint i, j;

  if (n == 0)
    return 0;

  if (self->at_end)
    {
      fill_from_end (self, page);
      return MAX (0, content_height (self) - page);
    }

  self->anchor = MIN (self->anchor, n - 1);
  measure_row (self, show_row (self, self->anchor));

  /* Up to the top of the page, and down to its bottom, from the anchor's
   * top. A row measured above moves only the rows above it. */
  for (i = self->anchor, above = 0; i > 0 && above > self->anchor_offset; )
    above -= measure_row (self, show_row (self, --i));
  for (j = self->anchor, below = height_at (self, j); j + 1 < n && below < self->anchor_offset + page; )
    below += measure_row (self, show_row (self, ++j));

  value = item_top (self, self->anchor) + self->anchor_offset;
  if (value + page > content_height (self))
    {
      /* Past the end: the end goes to the bottom of the page. */
      fill_from_end (self, page);
      value = content_height (self) - page;
    }

  return MAX (0, value);
}

/* Between frames, the rows just off the page are made ready: bound, laid
 * out at the page's width, and kept out of the widget tree, so that a
 * scroll step finds them so. One row a call, the nearest first, so that
 * the next frame is not held up for long. */
static gboolean
prefetch_cb (gpointer user_data)
{
  ZotTranscriptView *self = user_data;
  guint n = self->heights->len;

  for (guint k = 1; k <= TRANSCRIPT_PREFETCH_ROWS; k++)
    {
      guint sides[2] = {
        self->first_placed >= k ? self->first_placed - k : G_MAXUINT,
        self->last_placed + k < n ? self->last_placed + k : G_MAXUINT,
      };

      for (guint side = 0; side < G_N_ELEMENTS (sides); side++)
        {
          g_autoptr(ZotTranscriptItem) item = NULL;
          RowEntry *entry;

          if (sides[side] >= n)
            continue;
          item = g_list_model_get_item (self->model, sides[side]);
          entry = g_hash_table_lookup (self->rows, item);
          if (entry != NULL &&
              (entry->shown ||
               (entry->alloc_width == self->heights_width && g_array_index (self->heights, int, sides[side]) >= 0)))
            continue;

          entry = show_row (self, sides[side]);
          measure_row (self, entry);
          hide_row (entry);
          return G_SOURCE_CONTINUE;
        }
    }

  self->prefetch_source = 0;
  return G_SOURCE_REMOVE;
}

static void
zot_transcript_view_size_allocate (GtkWidget *widget,
                                   int        width,
                                   int        height,
                                   int        baseline)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (widget);
  GtkAdjustment *hadjustment = self->adjustment[GTK_ORIENTATION_HORIZONTAL];
  guint n = self->heights->len;
  double value, y, held_top = 0;
  int min_width;
  guint first;
  guint held = G_MAXUINT;
  GHashTableIter iter;
  RowEntry *entry;

  self->pass++;
  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  width = MAX (width, min_width);
  if (width != self->heights_width)
    {
      /* Every row wraps its text again: the heights are estimates now. */
      for (guint i = 0; i < n; i++)
        g_array_index (self->heights, int, i) = -1;
      self->heights_width = width;
    }
  update_estimate (self);

  value = measure_page (self, height);

  /* The rows on the page, measured now if they were not on the way. */
  self->n_rows_shown = 0;
  g_ptr_array_set_size (self->placed_rows, 0);
  for (first = 0, y = TOP_PADDING; first + 1 < n && y + height_at (self, first) <= value; first++)
    y += height_at (self, first);
  for (guint i = first; i < n && y < value + height; i++)
    {
      entry = show_row (self, i);
      if (entry->measured != self->pass)
        measure_row (self, entry);
      gtk_widget_size_allocate (entry->row,
                                &(GtkAllocation) { 0, round_to_pixel (y - value), width, height_at (self, i) },
                                -1);
      entry->alloc_width = width;
      entry->alloc_height = height_at (self, i);
      if (entry->placed == 0 || entry->placed + 1 != self->pass)
        entry->since = self->pass;
      entry->placed = self->pass;
      if (held == G_MAXUINT && y >= value && entry->since < self->pass)
        {
          held = i;
          held_top = y;
        }
      g_ptr_array_add (self->placed_rows, g_object_ref (entry->row));
      self->n_rows_shown++;
      y += height_at (self, i);
    }

  self->first_placed = first;
  self->last_placed = self->n_rows_shown > 0 ? first + self->n_rows_shown - 1 : first;

  /* Rows that scrolled away, and rows measured on the way that ended up
   * off the page, leave the widget tree. */
  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    if (entry->shown && entry->placed != self->pass)
      hide_row (entry);

  /* What the view holds on to from now on: the first row whose top is on
   * the page and that was on it before this layout. A row the user opens
   * grows downwards, and rows that just joined at the top or the bottom
   * (which may take their real height on the next frame: a text view does
   * once it is laid out) move only themselves. Failing one, after a
   * jump, or at the top, anchor_page()'s row. A row scrolled to keeps its
   * place until the user scrolls. */
  if (n > 0 && self->pinned)
    self->anchor_offset = value - item_top (self, self->anchor);
  else if (n > 0 && value > 0 && held != G_MAXUINT)
    {
      self->anchor = held;
      self->anchor_offset = value - held_top;
    }
  else if (n > 0)
    anchor_page (self, value, height);

  configure_adjustment (self, value, content_height (self), height);
  if (hadjustment != NULL)
    gtk_adjustment_configure (hadjustment, 0, 0, width, width * 0.1, width * 0.9, width);

  if (n > 0 && self->prefetch_source == 0)
    {
      self->prefetch_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, prefetch_cb, self, NULL);
      g_source_set_name_by_id (self->prefetch_source, "[zot] transcript prefetch");
    }
}

/* The rows placed, not every child: a row made since the layout (one for
 * an item that just came) has no place until the next. */
static void
zot_transcript_view_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (widget);

  for (guint i = 0; i < self->placed_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->placed_rows, i);

      if (gtk_widget_get_parent (row) == widget)
        gtk_widget_snapshot_child (widget, row, snapshot);
    }
}

/* Scrolling */

/* Keyboard focus moving to a row partly out of view brings it in, as
 * far as the page allows. */
static void
zot_transcript_view_set_focus_child (GtkWidget *widget,
                                     GtkWidget *child)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (widget);
  GtkAdjustment *adjustment = self->adjustment[GTK_ORIENTATION_VERTICAL];
  graphene_rect_t bounds;
  double top, bottom, page;

  GTK_WIDGET_CLASS (zot_transcript_view_parent_class)->set_focus_child (widget, child);

  if (child == NULL || adjustment == NULL || !gtk_widget_compute_bounds (child, widget, &bounds))
    return;

  top = bounds.origin.y;
  bottom = bounds.origin.y + bounds.size.height;
  page = gtk_widget_get_height (widget);
  if (top < 0)
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + top);
  else if (bottom > page)
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + MIN (bottom - page, top));
}

static void
on_adjustment_value_changed_cb (GtkAdjustment     *adjustment,
                                ZotTranscriptView *self)
{
  double value = gtk_adjustment_get_value (adjustment);
  double page = gtk_adjustment_get_page_size (adjustment);

  if (self->configuring)
    return;

  /* The user scrolled: what is now on the page stays in place until the
   * next layout picks a row. */
  self->at_end = value + page >= gtk_adjustment_get_upper (adjustment) - END_SLACK;
  self->pinned = FALSE;
  anchor_page (self, value, page);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

static void
set_adjustment (ZotTranscriptView *self,
                GtkOrientation     orientation,
                GtkAdjustment     *adjustment)
{
  if (self->adjustment[orientation] == adjustment)
    return;

  if (adjustment == NULL)
    adjustment = gtk_adjustment_new (0, 0, 0, 0, 0, 0);

  if (self->adjustment[orientation] != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->adjustment[orientation], on_adjustment_value_changed_cb, self);
      g_object_unref (self->adjustment[orientation]);
    }

  self->adjustment[orientation] = g_object_ref_sink (adjustment);
  if (orientation == GTK_ORIENTATION_VERTICAL)
    g_signal_connect (adjustment, "value-changed", G_CALLBACK (on_adjustment_value_changed_cb), self);

  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

/* The model */

static void
on_items_changed_cb (GListModel        *model,
                     guint              position,
                     guint              removed,
                     guint              added,
                     ZotTranscriptView *self)
{
  GHashTableIter iter;
  RowEntry *entry;

  g_array_remove_range (self->heights, position, removed);
  g_array_set_size (self->heights, self->heights->len + added);
  if (position + added < self->heights->len)
    memmove (&g_array_index (self->heights, int, position + added),
             &g_array_index (self->heights, int, position),
             (self->heights->len - position - added) * sizeof (int));
  for (guint i = position; i < position + added; i++)
    g_array_index (self->heights, int, i) = -1;

  /* The rows of the items that went go too. */
  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    {
      if (entry->position >= position + removed)
        entry->position = entry->position - removed + added;
      else if (entry->position >= position)
        g_hash_table_iter_remove (&iter);
    }

  if (self->anchor >= position + removed)
    self->anchor = self->anchor - removed + added;
  else if (self->anchor >= position)
    {
      self->anchor = position;
      self->anchor_offset = 0;
    }

  /* Items that come at the end while the view follows it are in view:
   * their rows are there at once, for what streams into them before the
   * next frame. */
  if (self->at_end && added > 0 && position + added == self->heights->len)
    for (guint i = position + added - MIN (added, EAGER_ROWS); i < position + added; i++)
      show_row (self, i);

  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/* GObject */

static void
zot_transcript_view_dispose (GObject *object)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (object);

  g_clear_handle_id (&self->prefetch_source, g_source_remove);
  zot_transcript_view_set_model (self, NULL);
  g_clear_pointer (&self->placed_rows, g_ptr_array_unref);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  for (guint i = 0; i < G_N_ELEMENTS (self->adjustment); i++)
    {
      if (self->adjustment[i] != NULL)
        g_signal_handlers_disconnect_by_func (self->adjustment[i], on_adjustment_value_changed_cb, self);
      g_clear_object (&self->adjustment[i]);
    }

  G_OBJECT_CLASS (zot_transcript_view_parent_class)->dispose (object);
}

static void
zot_transcript_view_finalize (GObject *object)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (object);

  g_array_unref (self->heights);

  G_OBJECT_CLASS (zot_transcript_view_parent_class)->finalize (object);
}

static void
zot_transcript_view_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->adjustment[GTK_ORIENTATION_HORIZONTAL]);
      break;

    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->adjustment[GTK_ORIENTATION_VERTICAL]);
      break;

    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->scroll_policy[GTK_ORIENTATION_HORIZONTAL]);
      break;

    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->scroll_policy[GTK_ORIENTATION_VERTICAL]);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_view_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  ZotTranscriptView *self = ZOT_TRANSCRIPT_VIEW (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      set_adjustment (self, GTK_ORIENTATION_HORIZONTAL, g_value_get_object (value));
      break;

    case PROP_VADJUSTMENT:
      set_adjustment (self, GTK_ORIENTATION_VERTICAL, g_value_get_object (value));
      break;

    case PROP_HSCROLL_POLICY:
      self->scroll_policy[GTK_ORIENTATION_HORIZONTAL] = g_value_get_enum (value);
      break;

    case PROP_VSCROLL_POLICY:
      self->scroll_policy[GTK_ORIENTATION_VERTICAL] = g_value_get_enum (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_view_class_init (ZotTranscriptViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_transcript_view_dispose;
  object_class->finalize = zot_transcript_view_finalize;
  object_class->get_property = zot_transcript_view_get_property;
  object_class->set_property = zot_transcript_view_set_property;

  widget_class->measure = zot_transcript_view_measure;
  widget_class->size_allocate = zot_transcript_view_size_allocate;
  widget_class->snapshot = zot_transcript_view_snapshot;
  widget_class->set_focus_child = zot_transcript_view_set_focus_child;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "transcriptview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_LIST);
}

static void
zot_transcript_view_init (ZotTranscriptView *self)
{
  self->heights = g_array_new (FALSE, FALSE, sizeof (int));
  self->heights_width = -1;
  self->estimate = DEFAULT_ROW_HEIGHT;
  self->rows = g_hash_table_new_full (NULL, NULL, NULL, row_entry_free);
  self->placed_rows = g_ptr_array_new_with_free_func (g_object_unref);
  self->at_end = TRUE;
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
}

/**
 * zot_transcript_view_new:
 *
 * Returns: (transfer floating): a view showing nothing
 */
GtkWidget *
zot_transcript_view_new (void)
{
  return g_object_new (ZOT_TYPE_TRANSCRIPT_VIEW, NULL);
}

/**
 * zot_transcript_view_set_model:
 * @self: a #ZotTranscriptView
 * @model: (nullable): a #GListModel of #ZotTranscriptItem
 *
 * Shows @model, from its end.
 */
void
zot_transcript_view_set_model (ZotTranscriptView *self,
                               GListModel        *model)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self));
  g_return_if_fail (model == NULL || G_IS_LIST_MODEL (model));

  if (self->model == model)
    return;

  if (self->model != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->model, on_items_changed_cb, self);
      g_clear_object (&self->model);
    }
  if (self->rows != NULL)
    g_hash_table_remove_all (self->rows);
  g_array_set_size (self->heights, 0);

  if (model != NULL)
    {
      guint n = g_list_model_get_n_items (model);

      self->model = g_object_ref (model);
      g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed_cb), self);
      g_array_set_size (self->heights, n);
      for (guint i = 0; i < n; i++)
        g_array_index (self->heights, int, i) = -1;
    }

  self->anchor = 0;
  self->anchor_offset = 0;
  self->at_end = TRUE;
  self->pinned = FALSE;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/**
 * zot_transcript_view_set_bind_func:
 * @self: a #ZotTranscriptView
 * @func: (nullable): called each time a row is bound to an item
 * @user_data: for @func
 */
void
zot_transcript_view_set_bind_func (ZotTranscriptView         *self,
                                   ZotTranscriptViewBindFunc  func,
                                   gpointer                   user_data)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self));

  self->bind_func = func;
  self->bind_data = user_data;
}

/**
 * zot_transcript_view_scroll_to:
 * @self: a #ZotTranscriptView
 * @position: an item of the model
 * @page_fraction: where its top goes: this part of the page from the top
 *
 * Scrolls @position's row to its place at the next layout; the view no
 * longer follows the end.
 */
void
zot_transcript_view_scroll_to (ZotTranscriptView *self,
                               guint              position,
                               double             page_fraction)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self));

  self->anchor = position;
  self->anchor_offset = -page_fraction * gtk_widget_get_height (GTK_WIDGET (self));
  self->at_end = FALSE;
  self->pinned = TRUE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

/**
 * zot_transcript_view_scroll_to_end:
 * @self: a #ZotTranscriptView
 *
 * Shows the end of the model, and follows it from now on.
 */
void
zot_transcript_view_scroll_to_end (ZotTranscriptView *self)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self));

  self->at_end = TRUE;
  self->pinned = FALSE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

/**
 * zot_transcript_view_get_at_end:
 * @self: a #ZotTranscriptView
 *
 * Returns: whether the view follows the end of the model
 */
gboolean
zot_transcript_view_get_at_end (ZotTranscriptView *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self), FALSE);

  return self->at_end;
}

/**
 * zot_transcript_view_get_shown_row:
 * @self: a #ZotTranscriptView
 * @item: an item of the model
 *
 * Returns: (transfer none) (nullable): @item's row, if it is in view
 */
GtkWidget *
zot_transcript_view_get_shown_row (ZotTranscriptView *self,
                                   ZotTranscriptItem *item)
{
  RowEntry *entry;

  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self), NULL);

  entry = g_hash_table_lookup (self->rows, item);
  return entry != NULL && entry->shown ? entry->row : NULL;
}

/**
 * zot_transcript_view_peek_row:
 * @self: a #ZotTranscriptView
 * @item: an item of the model
 *
 * Returns: (transfer none) (nullable): the row kept for @item, in view or not
 */
GtkWidget *
zot_transcript_view_peek_row (ZotTranscriptView *self,
                              ZotTranscriptItem *item)
{
  RowEntry *entry;

  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self), NULL);

  entry = g_hash_table_lookup (self->rows, item);
  return entry != NULL ? entry->row : NULL;
}

/**
 * zot_transcript_view_get_n_rows_created:
 * @self: a #ZotTranscriptView
 *
 * Returns: how many row widgets the view has made so far
 */
guint
zot_transcript_view_get_n_rows_created (ZotTranscriptView *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self), 0);

  return self->n_rows_created;
}

/**
 * zot_transcript_view_get_n_rows_shown:
 * @self: a #ZotTranscriptView
 *
 * Returns: how many rows the last layout showed
 */
guint
zot_transcript_view_get_n_rows_shown (ZotTranscriptView *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_VIEW (self), 0);

  return self->n_rows_shown;
}
