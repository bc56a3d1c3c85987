/* zot-transcript-approvals.c — approvals in the tool calls' rows
 *
 * An approval joins the row of its call (a call nobody announced gets a
 * row of its own). Alt+A and Alt+D go through
 * zot_transcript_focus_approval(): the first press brings the row into
 * view and focuses it, and only a press while it is in view and focused
 * answers, so that no key meant for something else does.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include "zot-approval-row.h"
#include "zot-transcript-private.h"
#include "zot-transcript-view.h"

/* Where a row brought into view ends up: this part of the page from the
 * top, as the find bar's match. */
#define APPROVAL_PAGE_FRACTION 0.25

/* Frames to wait for a scrolled-to row to be laid out before giving up
 * on focusing it (the next Alt+A tries again). */
#define FOCUS_MAX_FRAMES 30

static ZotTranscriptItem *
find_item (ZotTranscript *self,
           ZotApproval   *approval)
{
  const char *id = zot_approval_get_tool_id (approval);
  ZotTranscriptItem *item = g_hash_table_lookup (self->tool_items, id != NULL ? id : "");

  return item != NULL && zot_transcript_item_get_approval (item) == approval ? item : NULL;
}

/**
 * zot_transcript_show_approval:
 * @approval: a question about a tool call
 *
 * Shows @approval in its call's row, to be answered there.
 */
void
zot_transcript_show_approval (ZotTranscript *self,
                              ZotApproval   *approval)
{
  const char *id;
  const char *cwd = NULL;
  ZotTranscriptItem *item;

  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (ZOT_IS_APPROVAL (approval));

  id = zot_approval_get_tool_id (approval);
  item = g_hash_table_lookup (self->tool_items, id != NULL ? id : "");
  if (item == NULL)
    {
      g_autoptr(ZotTranscriptItem) made = zot_transcript_item_new_tool (id, zot_approval_get_tool_name (approval),
                                                                       zot_approval_get_args (approval),
                                                                       zot_approval_get_origin_extension (approval),
                                                                       NULL);

      _zot_transcript_append_items (self, &made, 1);
      item = made;
    }

  if (self->host != NULL)
    cwd = zot_agent_get_cwd (zot_host_get_agent (self->host));
  zot_transcript_item_set_approval (item, approval, cwd);
}

static ZotApprovalRow *
approval_view_of (GtkWidget *row)
{
  for (GtkWidget *child = row != NULL ? gtk_widget_get_first_child (row) : NULL;
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (ZOT_IS_APPROVAL_ROW (child))
      return ZOT_APPROVAL_ROW (child);
  return NULL;
}

static gboolean
has_focus_within (GtkWidget *widget)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

typedef struct
{
  ZotTranscript     *self;
  ZotTranscriptItem *item;
  ZotApprovalChoice  choice;
  guint              frames;
} PendingFocus;

static void
pending_focus_free (gpointer data)
{
  PendingFocus *pending = data;

  g_object_unref (pending->item);
  g_free (pending);
}

static gboolean
focus_when_shown_cb (GtkWidget     *widget,
                     GdkFrameClock *clock,
                     gpointer       data)
{
  PendingFocus *pending = data;
  GtkWidget *row = zot_transcript_view_get_shown_row (pending->self->view, pending->item);
  ZotApprovalRow *view = approval_view_of (row);

  if (view != NULL && gtk_widget_get_visible (GTK_WIDGET (view)))
    {
      zot_approval_row_focus (view, pending->choice);
      return G_SOURCE_REMOVE;
    }
  return ++pending->frames < FOCUS_MAX_FRAMES ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/**
 * zot_transcript_focus_approval:
 * @approval: a question shown with zot_transcript_show_approval()
 * @choice: %ZOT_APPROVAL_ALLOW (Alt+A) or %ZOT_APPROVAL_DENY (Alt+D)
 *
 * Answers @approval with @choice if its row is in view and has the focus;
 * otherwise scrolls to the row and focuses it, for the next press.
 *
 * Returns: whether it answered
 */
gboolean
zot_transcript_focus_approval (ZotTranscript     *self,
                               ZotApproval       *approval,
                               ZotApprovalChoice  choice)
{
  ZotTranscriptItem *item;
  ZotApprovalRow *view;
  PendingFocus *pending;
  guint n_items;

  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), FALSE);
  g_return_val_if_fail (ZOT_IS_APPROVAL (approval), FALSE);

  item = find_item (self, approval);
  if (item == NULL)
    return FALSE;

  view = approval_view_of (zot_transcript_view_get_shown_row (self->view, item));
  if (view != NULL && gtk_widget_get_visible (GTK_WIDGET (view)) && zot_approval_row_get_approval (view) == approval)
    {
      if (has_focus_within (GTK_WIDGET (view)))
        {
          zot_approval_row_answer (view, choice);
          return TRUE;
        }
      zot_approval_row_focus (view, choice);
      return FALSE;
    }

  n_items = g_list_model_get_n_items (self->shown);
  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(ZotTranscriptItem) other = g_list_model_get_item (self->shown, i);

      if (other == item)
        {
          zot_transcript_view_scroll_to (self->view, i, APPROVAL_PAGE_FRACTION);
          break;
        }
    }

  pending = g_new0 (PendingFocus, 1);
  pending->self = self;
  pending->item = g_object_ref (item);
  pending->choice = choice;
  gtk_widget_add_tick_callback (GTK_WIDGET (self->view), focus_when_shown_cb, pending, pending_focus_free);
  return FALSE;
}
