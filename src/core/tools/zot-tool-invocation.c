#define G_LOG_DOMAIN "zot-tool"

#include "config.h"

#include "zot-tool-invocation.h"

typedef struct
{
  guint                     id;
  ZotToolInvocationHoldFunc func;
  gpointer                  user_data;
} HoldFunc;

struct _ZotToolInvocation
{
  grefcount          ref_count;
  ZotToolInvocation *parent;
  char              *tool_id;
  char              *name;
  guint              depth;
  guint              n_children;
  guint              n_durable;
  char              *task_id;
  GCancellable      *cancellable;
  GWeakRef           runner;
  guint              holds;
  GArray            *hold_funcs;
  guint              next_hold_id;
};

G_DEFINE_INTERFACE (ZotToolRunner, zot_tool_runner, G_TYPE_OBJECT)
G_DEFINE_BOXED_TYPE (ZotToolInvocation, zot_tool_invocation,
                     zot_tool_invocation_ref, zot_tool_invocation_unref)

static void
zot_tool_runner_default_init (ZotToolRunnerInterface *iface)
{
}

/**
 * zot_tool_runner_call_async:
 * @request: the call; the runner copies what it keeps
 * @cancellable: (nullable): cancels the call
 *
 * Runs @request's tool as the runner's agent runs a model's call.
 */
void
zot_tool_runner_call_async (ZotToolRunner        *self,
                            const ZotToolRequest *request,
                            GCancellable         *cancellable,
                            GAsyncReadyCallback   callback,
                            gpointer              user_data)
{
  g_return_if_fail (ZOT_IS_TOOL_RUNNER (self));
  g_return_if_fail (request != NULL && request->name != NULL && request->args != NULL);

  ZOT_TOOL_RUNNER_GET_IFACE (self)->call_async (self, request, cancellable, callback, user_data);
}

/**
 * zot_tool_runner_call_finish:
 *
 * Returns: (transfer full): the result; a refusal, a failure, a deadline
 *   or a cancellation is an error result with its outcome
 */
ZotToolResult *
zot_tool_runner_call_finish (ZotToolRunner *self,
                             GAsyncResult  *result)
{
  g_return_val_if_fail (ZOT_IS_TOOL_RUNNER (self), NULL);

  return ZOT_TOOL_RUNNER_GET_IFACE (self)->call_finish (self, result);
}

/**
 * zot_tool_invocation_new:
 * @parent: (nullable): the call that asked for this one
 * @tool_id: the lifecycle id of the call
 * @cancellable: (nullable): cancelled when the call is abandoned
 * @runner: (nullable): who runs the calls this one asks for; held weakly
 */
ZotToolInvocation *
zot_tool_invocation_new (ZotToolInvocation *parent,
                         const char        *tool_id,
                         const char        *name,
                         GCancellable      *cancellable,
                         ZotToolRunner     *runner)
{
  ZotToolInvocation *self;

  g_return_val_if_fail (tool_id != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  self = g_new0 (ZotToolInvocation, 1);
  g_ref_count_init (&self->ref_count);
  self->parent = parent != NULL ? zot_tool_invocation_ref (parent) : NULL;
  self->tool_id = g_strdup (tool_id);
  self->name = g_strdup (name);
  self->depth = parent != NULL ? parent->depth + 1 : 1;
  self->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  g_weak_ref_init (&self->runner, runner);
  self->hold_funcs = g_array_new (FALSE, FALSE, sizeof (HoldFunc));
  return self;
}

ZotToolInvocation *
zot_tool_invocation_ref (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_ref_count_inc (&self->ref_count);
  return self;
}

void
zot_tool_invocation_unref (ZotToolInvocation *self)
{
  g_return_if_fail (self != NULL);

  if (!g_ref_count_dec (&self->ref_count))
    return;

  g_clear_pointer (&self->parent, zot_tool_invocation_unref);
  g_free (self->tool_id);
  g_free (self->task_id);
  g_free (self->name);
  g_clear_object (&self->cancellable);
  g_weak_ref_clear (&self->runner);
  g_array_unref (self->hold_funcs);
  g_free (self);
}

const char *
zot_tool_invocation_get_tool_id (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->tool_id;
}

const char *
zot_tool_invocation_get_name (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->name;
}

/**
 * zot_tool_invocation_get_parent:
 *
 * Returns: (transfer none) (nullable): the call that asked for this one
 */
ZotToolInvocation *
zot_tool_invocation_get_parent (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->parent;
}

/**
 * zot_tool_invocation_get_depth:
 *
 * Returns: the number of calls in the chain down to this one, itself
 *   included: 1 for a call nobody asked for from a running call
 */
guint
zot_tool_invocation_get_depth (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->depth;
}

/**
 * zot_tool_invocation_raise_depth:
 * @depth: the length of the chain that this call ends
 *
 * Counts the chain along the calls that led to this one when they are
 * more than its parent's: an extension may name an ancestor as parent.
 */
void
zot_tool_invocation_raise_depth (ZotToolInvocation *self,
                                 guint              depth)
{
  g_return_if_fail (self != NULL);
  self->depth = MAX (self->depth, depth);
}

/**
 * zot_tool_invocation_get_cancellable:
 *
 * Returns: (transfer none) (nullable): cancelled when the call is abandoned
 */
GCancellable *
zot_tool_invocation_get_cancellable (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->cancellable;
}

/**
 * zot_tool_invocation_dup_runner:
 *
 * Returns: (transfer full) (nullable): who runs this call's children,
 *   while it exists
 */
ZotToolRunner *
zot_tool_invocation_dup_runner (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_weak_ref_get (&self->runner);
}

/**
 * zot_tool_invocation_chain_has:
 *
 * Returns: whether this call or one above it is a call of @name
 */
gboolean
zot_tool_invocation_chain_has (ZotToolInvocation *self,
                               const char        *name)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (ZotToolInvocation *node = self; node != NULL; node = node->parent)
    if (g_str_equal (node->name, name))
      return TRUE;
  return FALSE;
}

/**
 * zot_tool_invocation_next_child_id:
 *
 * Returns: (transfer full): the lifecycle id of this call's next child,
 *   `<tool_id>/<n>` counting from 1
 */
char *
zot_tool_invocation_next_child_id (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_strdup_printf ("%s/%u", self->tool_id, ++self->n_children);
}

static void
tell_hold_funcs (ZotToolInvocation *self,
                 gboolean           held)
{
  /* A function may remove itself: walk a copy. */
  g_autoptr(GArray) funcs = g_array_copy (self->hold_funcs);

  for (guint i = 0; i < funcs->len; i++)
    {
      HoldFunc *entry = &g_array_index (funcs, HoldFunc, i);
      entry->func (held, entry->user_data);
    }
}

/**
 * zot_tool_invocation_hold:
 *
 * Stops the deadlines of this call and of every call above it, until as
 * many zot_tool_invocation_release(): a child waiting for the user's
 * approval must not make its parents run out of time.
 */
void
zot_tool_invocation_hold (ZotToolInvocation *self)
{
  g_return_if_fail (self != NULL);

  for (ZotToolInvocation *node = self; node != NULL; node = node->parent)
    if (node->holds++ == 0)
      tell_hold_funcs (node, TRUE);
}

void
zot_tool_invocation_release (ZotToolInvocation *self)
{
  g_return_if_fail (self != NULL);

  for (ZotToolInvocation *node = self; node != NULL; node = node->parent)
    {
      g_return_if_fail (node->holds > 0);
      if (--node->holds == 0)
        tell_hold_funcs (node, FALSE);
    }
}

gboolean
zot_tool_invocation_is_held (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->holds > 0;
}

/**
 * zot_tool_invocation_add_hold_func:
 * @func: called with %TRUE when the call's deadlines must stop, and with
 *   %FALSE when they go on; at once with %TRUE if they are held already
 *
 * Returns: an id for zot_tool_invocation_remove_hold_func()
 */
guint
zot_tool_invocation_add_hold_func (ZotToolInvocation         *self,
                                   ZotToolInvocationHoldFunc  func,
                                   gpointer                   user_data)
{
  HoldFunc entry = { 0 };

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (func != NULL, 0);

  entry.id = ++self->next_hold_id;
  entry.func = func;
  entry.user_data = user_data;
  g_array_append_val (self->hold_funcs, entry);

  if (self->holds > 0)
    func (TRUE, user_data);

  return entry.id;
}

void
zot_tool_invocation_remove_hold_func (ZotToolInvocation *self,
                                      guint              id)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; i < self->hold_funcs->len; i++)
    if (g_array_index (self->hold_funcs, HoldFunc, i).id == id)
      {
        g_array_remove_index (self->hold_funcs, i);
        return;
      }
}

/**
 * zot_tool_invocation_get_task_id:
 *
 * Returns: (nullable): the durable identity of the call, in a continuous
 *   conversation
 */
const char *
zot_tool_invocation_get_task_id (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->task_id;
}

void
zot_tool_invocation_set_task_id (ZotToolInvocation *self,
                                 const char        *task_id)
{
  g_return_if_fail (self != NULL);

  g_free (self->task_id);
  self->task_id = g_strdup (task_id);
}

/**
 * zot_tool_invocation_next_ordinal:
 *
 * Returns: the ordinal, from 1, of this call's next durable child: what
 *   names a child that has no key
 */
guint
zot_tool_invocation_next_ordinal (ZotToolInvocation *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return ++self->n_durable;
}
