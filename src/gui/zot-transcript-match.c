/* zot-transcript-match.c — the find bar's matches in the transcript: the
 * text of each marked where it shows (zot-find-text.c), the current one
 * in its own colour, its row scrolled into view. */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include "zot-find-text.h"
#include "zot-transcript-private.h"
#include "zot-transcript-view.h"

/* The find bar's mark goes with the item, to whichever row shows it. */
void
_zot_transcript_mark_row (GtkWidget         *row,
                          ZotTranscriptItem *item,
                          gpointer           user_data)
{
  ZotTranscript *self = user_data;

  if (item == self->match && item != NULL)
    gtk_widget_add_css_class (row, "find-match");
  else
    gtk_widget_remove_css_class (row, "find-match");
  zot_find_text_mark (row, self->match_needle,
                      item == self->match && item != NULL ? (int) self->match_index : -1);
}

static void
mark_all (ZotTranscript *self)
{
  guint n_items = g_list_model_get_n_items (self->shown);

  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (self->shown, i);
      GtkWidget *row = zot_transcript_view_peek_row (self->view, item);

      if (row != NULL)
        _zot_transcript_mark_row (row, item, self);
    }
}

/* Where a match ends up: this part of the page from the top. */
#define MATCH_PAGE_FRACTION 0.25

static guint
shown_position_of (ZotTranscript     *self,
                   ZotTranscriptItem *item)
{
  guint n_items = g_list_model_get_n_items (self->shown);

  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(ZotTranscriptItem) other = g_list_model_get_item (self->shown, i);

      if (other == item)
        return i;
    }

  return G_MAXUINT;
}

static void
mark_item (ZotTranscript     *self,
           ZotTranscriptItem *item)
{
  GtkWidget *row = item != NULL ? zot_transcript_view_peek_row (self->view, item) : NULL;

  if (row != NULL)
    _zot_transcript_mark_row (row, item, self);
}

/**
 * _zot_transcript_show_match:
 * @self: a #ZotTranscript
 * @item: (nullable): an item of the conversation, or %NULL for none
 *
 * Marks @item's row and scrolls it into view, near the top; the view no
 * longer keeps to the bottom.
 */
void
_zot_transcript_show_match (ZotTranscript     *self,
                            ZotTranscriptItem *item)
{
  g_autoptr(ZotTranscriptItem) before = NULL;
  guint position;

  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (item == NULL || ZOT_IS_TRANSCRIPT_ITEM (item));

  before = g_steal_pointer (&self->match);
  g_set_object (&self->match, item);
  mark_item (self, before);
  mark_item (self, item);
  if (item == NULL)
    return;

  position = shown_position_of (self, item);
  if (position != G_MAXUINT)
    zot_transcript_view_scroll_to (self->view, position, MATCH_PAGE_FRACTION);
}

/**
 * _zot_transcript_show_find:
 * @self: a #ZotTranscript
 * @needle: (nullable): what the find bar found, case folded; %NULL when
 *   it is closed
 * @item: (nullable): the item of the current match
 * @index: which of @item's matches is the current one, from 0
 *
 * Marks every match of @needle in the rows there are, the current one
 * in its own colour, and shows @item as _zot_transcript_show_match() does.
 */
void
_zot_transcript_show_find (ZotTranscript     *self,
                           const char        *needle,
                           ZotTranscriptItem *item,
                           guint              index)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (item == NULL || ZOT_IS_TRANSCRIPT_ITEM (item));

  if (needle != NULL && *needle == '\0')
    needle = NULL;
  if (g_strcmp0 (self->match_needle, needle) != 0)
    {
      g_free (self->match_needle);
      self->match_needle = g_strdup (needle);
      self->match_index = index;
      mark_all (self);
    }
  self->match_index = index;
  _zot_transcript_show_match (self, item);
}

/**
 * _zot_transcript_get_match:
 *
 * Returns: (transfer none) (nullable): the item marked as the find bar's match
 */
ZotTranscriptItem *
_zot_transcript_get_match (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return self->match;
}
