/* zot-agent-usage.c — the tokens the model reports, kept as the agent's
 * `usage` property.
 *
 * Providers report each reply's input and output tokens; the run stores
 * them on the assistant message ("usage") and the agent keeps the last
 * turn's figures and the conversation's sums, which a window can show
 * without parsing messages. A session that is resumed brings the sums of
 * its stored turns. Compaction's request is not a turn of the
 * conversation and is not counted. No prices are known, so no cost.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-json.h"
#include "zot-message.h"

G_DEFINE_BOXED_TYPE (ZotUsage, zot_usage, zot_usage_copy, zot_usage_free)

/**
 * zot_usage_copy:
 *
 * Returns: (transfer full): a copy of @usage
 */
ZotUsage *
zot_usage_copy (const ZotUsage *usage)
{
  g_return_val_if_fail (usage != NULL, NULL);

  return g_memdup2 (usage, sizeof *usage);
}

void
zot_usage_free (ZotUsage *usage)
{
  g_free (usage);
}

gboolean
zot_usage_equal (const ZotUsage *a,
                 const ZotUsage *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  return a->input_tokens == b->input_tokens &&
         a->output_tokens == b->output_tokens &&
         a->total_input_tokens == b->total_input_tokens &&
         a->total_output_tokens == b->total_output_tokens;
}

/* One figure of a message's "usage", or -1. Read without json-glib's
 * _with_default getters: a resumed session's messages come from a file,
 * and those getters fail a precondition on an object or an array. */
static gint64
usage_figure (JsonObject *usage,
              const char *member)
{
  JsonNode *node = usage != NULL ? json_object_get_member (usage, member) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return -1;

  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return -1;

  return MAX (json_node_get_int (node), -1);
}

/* The figures of an assistant message, -1 each where it has none. */
void
_zot_agent_message_usage (JsonObject *message,
                          gint64     *input_tokens,
                          gint64     *output_tokens)
{
  JsonObject *usage = zot_json_get_object (message, "usage");

  *input_tokens = usage_figure (usage, "input_tokens");
  *output_tokens = usage_figure (usage, "output_tokens");
}

static void
set_usage (ZotAgent       *self,
           const ZotUsage *usage)
{
  if (zot_usage_equal (&self->usage, usage))
    return;

  self->usage = *usage;
  g_object_notify_by_pspec (G_OBJECT (self), _zot_agent_properties [ZOT_AGENT_PROP_USAGE]);
}

static void
add_turn (ZotUsage *usage,
          gint64    input_tokens,
          gint64    output_tokens)
{
  usage->input_tokens = input_tokens;
  usage->output_tokens = output_tokens;
  usage->total_input_tokens += MAX (input_tokens, 0);
  usage->total_output_tokens += MAX (output_tokens, 0);
}

/* After a model turn of a run, with the figures its reply gave. */
void
_zot_agent_add_turn_usage (ZotAgent *self,
                           gint64    input_tokens,
                           gint64    output_tokens)
{
  ZotUsage usage = self->usage;

  add_turn (&usage, input_tokens, output_tokens);
  set_usage (self, &usage);
}

/* A new conversation (or a resumed one) starts from its stored turns. */
void
_zot_agent_reset_usage (ZotAgent *self)
{
  ZotUsage usage = { -1, -1, 0, 0 };
  GPtrArray *messages = zot_session_get_messages (self->session);

  for (guint i = 0; i < messages->len; i++)
    {
      JsonObject *message = g_ptr_array_index (messages, i);
      gint64 input_tokens;
      gint64 output_tokens;

      if (g_strcmp0 (zot_message_get_role (message), "assistant") != 0 ||
          zot_json_get_object (message, "usage") == NULL)
        continue;

      _zot_agent_message_usage (message, &input_tokens, &output_tokens);
      add_turn (&usage, input_tokens, output_tokens);
    }

  set_usage (self, &usage);
}

/**
 * zot_agent_get_usage:
 *
 * The tokens of the conversation's model turns, as the #ZotAgent:usage
 * property has them.
 *
 * Returns: (transfer none): the usage, valid until it changes
 */
const ZotUsage *
zot_agent_get_usage (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);

  return &self->usage;
}
