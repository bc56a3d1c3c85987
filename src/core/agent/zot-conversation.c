/* zot-conversation.c — one stored conversation, as a list shows it. */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <string.h>

#include "zot-conversation.h"

struct _ZotConversation
{
  GObject  parent_instance;

  char    *path;
  char    *id;
  char    *title;
  gint64   modified;
  guint64  size;
  gboolean renamed;
  char    *forked_from;   /* the file name of the origin, from the header */
  guint    branch_depth;  /* how deep under its origin the list shows it */
};

enum {
  PROP_0,
  PROP_PATH,
  PROP_ID,
  PROP_TITLE,
  PROP_RENAMED,
  PROP_MODIFIED,
  PROP_SIZE,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotConversation, zot_conversation, G_TYPE_OBJECT)

static void
zot_conversation_finalize (GObject *object)
{
  ZotConversation *self = ZOT_CONVERSATION (object);

  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->forked_from, g_free);

  G_OBJECT_CLASS (zot_conversation_parent_class)->finalize (object);
}

static void
zot_conversation_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  ZotConversation *self = ZOT_CONVERSATION (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;

    case PROP_ID:
      g_value_set_string (value, self->id);
      break;

    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;

    case PROP_RENAMED:
      g_value_set_boolean (value, self->renamed);
      break;

    case PROP_MODIFIED:
      g_value_set_int64 (value, self->modified);
      break;

    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_conversation_class_init (ZotConversationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = zot_conversation_finalize;
  object_class->get_property = zot_conversation_get_property;

  properties [PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * ZotConversation:title:
   *
   * The name the user gave it, else the start of its first prompt; %NULL
   * when it has neither (yet).
   */
  properties [PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_RENAMED] =
    g_param_spec_boolean ("renamed", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * ZotConversation:modified:
   *
   * When its file was last written, in microseconds since the epoch.
   */
  properties [PROP_MODIFIED] =
    g_param_spec_int64 ("modified", NULL, NULL, 0, G_MAXINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
zot_conversation_init (ZotConversation *self)
{
}

/**
 * zot_conversation_new:
 * @path: the session file
 * @id: (nullable): the id in its header
 * @title: (nullable): its title
 * @renamed: whether @title is one the user gave
 * @modified: when the file was last written, in microseconds since the epoch
 * @size: its size in bytes
 *
 * Returns: (transfer full): a new #ZotConversation
 */
ZotConversation *
zot_conversation_new (const char *path,
                      const char *id,
                      const char *title,
                      gboolean    renamed,
                      gint64      modified,
                      guint64     size)
{
  ZotConversation *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (ZOT_TYPE_CONVERSATION, NULL);
  self->path = g_strdup (path);
  self->id = g_strdup (id);
  self->title = g_strdup (title);
  self->renamed = !!renamed;
  self->modified = modified;
  self->size = size;
  return self;
}

const char *
zot_conversation_get_path (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), NULL);
  return self->path;
}

const char *
zot_conversation_get_id (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), NULL);
  return self->id;
}

const char *
zot_conversation_get_title (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), NULL);
  return self->title;
}

gboolean
zot_conversation_get_renamed (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), FALSE);
  return self->renamed;
}

gint64
zot_conversation_get_modified (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), 0);
  return self->modified;
}

guint64
zot_conversation_get_size (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), 0);
  return self->size;
}

/**
 * zot_conversation_title_path_for:
 * @session_path: a session file, `<id>.jsonl`
 *
 * Returns: (transfer full): the file that holds the name the user gave
 *   the conversation: `<id>.title` beside it
 */
char *
zot_conversation_title_path_for (const char *session_path)
{
  g_autofree char *stem = NULL;

  g_return_val_if_fail (session_path != NULL, NULL);

  stem = g_str_has_suffix (session_path, ".jsonl") ?
         g_strndup (session_path, strlen (session_path) - strlen (".jsonl")) :
         g_strdup (session_path);
  return g_strconcat (stem, ".title", NULL);
}

/**
 * zot_conversation_get_title_path:
 *
 * Returns: (transfer full): zot_conversation_title_path_for() its file
 */
char *
zot_conversation_get_title_path (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), NULL);
  return zot_conversation_title_path_for (self->path);
}

/**
 * zot_conversation_get_forked_from:
 *
 * Returns: (nullable): the file name, in the same folder, of the
 *   conversation this one branched from (its header's "forked_from")
 */
const char *
zot_conversation_get_forked_from (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), NULL);
  return self->forked_from;
}

void
zot_conversation_set_forked_from (ZotConversation *self,
                                  const char      *file)
{
  g_return_if_fail (ZOT_IS_CONVERSATION (self));

  g_free (self->forked_from);
  self->forked_from = g_strdup (file);
}

/**
 * zot_conversation_get_branch_depth:
 *
 * Returns: 0 for a conversation of its own, 1 for a branch listed under
 *   its origin, 2 for a branch of that, and so on
 */
guint
zot_conversation_get_branch_depth (ZotConversation *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION (self), 0);
  return self->branch_depth;
}

/* Branches shown deeper than this are shown at this depth. */
#define MAX_BRANCH_DEPTH 4

static void
add_with_branches (GPtrArray       *out,
                   GPtrArray       *items,
                   GHashTable      *placed,
                   ZotConversation *origin,
                   guint            depth)
{
  g_autofree char *name = g_path_get_basename (origin->path);

  origin->branch_depth = MIN (depth, MAX_BRANCH_DEPTH);
  g_hash_table_add (placed, origin);
  g_ptr_array_add (out, origin);

  for (guint i = 0; i < items->len; i++)
    {
      ZotConversation *other = g_ptr_array_index (items, i);

      if (other->forked_from != NULL && g_str_equal (other->forked_from, name) &&
          !g_hash_table_contains (placed, other))
        add_with_branches (out, items, placed, other, depth + 1);
    }
}

/**
 * zot_conversation_group_forks:
 * @items: (element-type ZotConversation): a sorted list
 *
 * Moves each branch right under the conversation it was forked from (in
 * the list's order among its siblings), and sets their depths. A branch
 * whose origin is not listed stays where it was, as do branches that name
 * each other in a loop, which a hostile folder can hold.
 */
void
zot_conversation_group_forks (GPtrArray *items)
{
  g_autoptr(GHashTable) names = NULL;
  g_autoptr(GHashTable) placed = NULL;
  g_autoptr(GPtrArray) out = NULL;

  g_return_if_fail (items != NULL);

  /* An empty array has no storage to copy into (pdata is NULL). */
  if (items->len == 0)
    return;
  names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  placed = g_hash_table_new (NULL, NULL);
  out = g_ptr_array_sized_new (items->len);

  for (guint i = 0; i < items->len; i++)
    {
      ZotConversation *item = g_ptr_array_index (items, i);

      g_hash_table_insert (names, g_path_get_basename (item->path), item);
    }

  for (guint i = 0; i < items->len; i++)
    {
      ZotConversation *item = g_ptr_array_index (items, i);
      ZotConversation *origin = item->forked_from != NULL ? g_hash_table_lookup (names, item->forked_from) : NULL;

      if ((origin == NULL || origin == item) && !g_hash_table_contains (placed, item))
        add_with_branches (out, items, placed, item, 0);
    }
  for (guint i = 0; i < items->len; i++)
    if (!g_hash_table_contains (placed, g_ptr_array_index (items, i)))
      add_with_branches (out, items, placed, g_ptr_array_index (items, i), 0);

  /* The same objects, in the new order: the array keeps its references. */
  memcpy (items->pdata, out->pdata, items->len * sizeof (gpointer));
}

