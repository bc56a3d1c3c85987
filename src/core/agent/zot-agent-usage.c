/* zot-agent-usage.c — the tokens the model reports, and what they cost,
 * kept as the agent's `usage` property.
 *
 * Providers report each reply's tokens: input outside the prompt cache,
 * output, the part of it spent reasoning (when the API says), and cache
 * reads and writes. The run stores them on the assistant message
 * ("usage", with the call's cost from the prices of the model that
 * answered, when they are known) and the agent keeps the last turn's figures and the
 * conversation's sums, which a window can show without parsing messages.
 * A session that is resumed brings the sums of its stored turns.
 * Compaction's request is not a turn of the conversation and is not
 * counted.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-model-facts.h"

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
         a->total_output_tokens == b->total_output_tokens &&
         a->reasoning_tokens == b->reasoning_tokens &&
         a->cache_read_tokens == b->cache_read_tokens &&
         a->cache_write_tokens == b->cache_write_tokens &&
         a->cost_usd == b->cost_usd &&
         a->total_reasoning_tokens == b->total_reasoning_tokens &&
         a->total_cache_read_tokens == b->total_cache_read_tokens &&
         a->total_cache_write_tokens == b->total_cache_write_tokens &&
         a->total_cost_usd == b->total_cost_usd &&
         a->cost_known == b->cost_known &&
         a->total_cost_known == b->total_cost_known;
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

/* A turn whose model has no known price has no "cost_usd". */
static gboolean
usage_cost (JsonObject *usage,
            double     *cost_usd)
{
  JsonNode *node = usage != NULL ? json_object_get_member (usage, "cost_usd") : NULL;
  GType type;

  *cost_usd = 0.0;
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return FALSE;

  *cost_usd = MAX (json_node_get_double (node), 0.0);
  return TRUE;
}

/* The figures of an assistant message, -1 each where it has none. */
void
_zot_agent_message_usage (JsonObject *message,
                          ZotUsage   *turn)
{
  JsonObject *usage = zot_json_get_object (message, "usage");

  turn->input_tokens = usage_figure (usage, "input_tokens");
  turn->output_tokens = usage_figure (usage, "output_tokens");
  turn->reasoning_tokens = usage_figure (usage, "reasoning_tokens");
  turn->cache_read_tokens = usage_figure (usage, "cache_read_tokens");
  turn->cache_write_tokens = usage_figure (usage, "cache_write_tokens");
  turn->cost_known = usage_cost (usage, &turn->cost_usd);
}

/**
 * _zot_agent_usage_to_message:
 * @reply: a model's reply
 *
 * Stores @reply's figures on its message as "usage", priced with the
 * prices of the model that answered; without known prices it gets no
 * "cost_usd". A reply without figures gets none.
 */
void
_zot_agent_usage_to_message (ZotAgent         *self,
                             ZotProviderReply *reply)
{
  const ZotModelInfo *model = zot_model_info_lookup (zot_provider_get_name (self->provider),
                                                     zot_provider_get_model (self->provider));
  ZotTokenCounts counts = {
    reply->input_tokens, reply->output_tokens, reply->cache_read_tokens, reply->cache_write_tokens,
  };
  JsonObject *usage;
  double cost;

  if (reply->input_tokens < 0 && reply->output_tokens < 0)
    return;

  usage = json_object_new ();
  self->context_tokens = MAX (reply->input_tokens, 0) + MAX (reply->cache_read_tokens, 0) +
                         MAX (reply->cache_write_tokens, 0);
  json_object_set_int_member (usage, "input_tokens", MAX (reply->input_tokens, 0));
  json_object_set_int_member (usage, "output_tokens", MAX (reply->output_tokens, 0));
  if (reply->reasoning_tokens >= 0)
    json_object_set_int_member (usage, "reasoning_tokens", reply->reasoning_tokens);
  if (reply->cache_read_tokens >= 0)
    json_object_set_int_member (usage, "cache_read_tokens", reply->cache_read_tokens);
  if (reply->cache_write_tokens >= 0)
    json_object_set_int_member (usage, "cache_write_tokens", reply->cache_write_tokens);
  if (zot_model_info_get_price (model, &counts, &cost))
    json_object_set_double_member (usage, "cost_usd", cost);
  json_object_set_object_member (reply->message, "usage", usage);
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
add_turn (ZotUsage       *usage,
          const ZotUsage *turn)
{
  usage->input_tokens = turn->input_tokens;
  usage->output_tokens = turn->output_tokens;
  usage->reasoning_tokens = turn->reasoning_tokens;
  usage->cache_read_tokens = turn->cache_read_tokens;
  usage->cache_write_tokens = turn->cache_write_tokens;
  usage->cost_usd = turn->cost_usd;
  usage->cost_known = turn->cost_known;

  usage->total_input_tokens += MAX (turn->input_tokens, 0);
  usage->total_output_tokens += MAX (turn->output_tokens, 0);
  if (turn->reasoning_tokens >= 0)
    usage->total_reasoning_tokens = MAX (usage->total_reasoning_tokens, 0) + turn->reasoning_tokens;
  usage->total_cache_read_tokens += MAX (turn->cache_read_tokens, 0);
  usage->total_cache_write_tokens += MAX (turn->cache_write_tokens, 0);
  usage->total_cost_usd += turn->cost_usd;
  /* A turn that reported no tokens has no cost to miss. */
  if (turn->input_tokens >= 0 || turn->output_tokens >= 0)
    usage->total_cost_known = usage->total_cost_known && turn->cost_known;
}

/* After a model turn of a run, with the figures its message holds. */
void
_zot_agent_add_turn_usage (ZotAgent   *self,
                           JsonObject *message)
{
  ZotUsage usage = self->usage;
  ZotUsage turn;

  _zot_agent_message_usage (message, &turn);
  add_turn (&usage, &turn);
  set_usage (self, &usage);
}

static void
usage_init (ZotUsage *usage)
{
  *usage = (ZotUsage) { 0 };
  usage->input_tokens = -1;
  usage->output_tokens = -1;
  usage->reasoning_tokens = -1;
  usage->cache_read_tokens = -1;
  usage->cache_write_tokens = -1;
  usage->total_reasoning_tokens = -1;
  usage->total_cost_known = TRUE;
}

/* A new conversation (or a resumed one) starts from its stored turns. */
void
_zot_agent_reset_usage (ZotAgent *self)
{
  GPtrArray *messages = zot_session_get_messages (self->session);
  ZotUsage usage;

  usage_init (&usage);
  self->context_tokens = -1;
  for (guint i = 0; i < messages->len; i++)
    {
      JsonObject *message = g_ptr_array_index (messages, i);
      ZotUsage turn;

      if (g_strcmp0 (zot_message_get_role (message), "assistant") != 0 ||
          zot_json_get_object (message, "usage") == NULL)
        continue;

      _zot_agent_message_usage (message, &turn);
      add_turn (&usage, &turn);
      self->context_tokens = MAX (turn.input_tokens, 0) + MAX (turn.cache_read_tokens, 0) +
                             MAX (turn.cache_write_tokens, 0);
    }

  set_usage (self, &usage);
}

/* The initial value, before any session. */
void
_zot_agent_init_usage (ZotAgent *self)
{
  usage_init (&self->usage);
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

/**
 * zot_agent_get_context_tokens:
 *
 * What the conversation fills of the model's context window now: the last
 * model call's prompt and its answer, as the provider counted them. Not
 * a sum over turns: each call reads the whole conversation again. After a
 * compaction, until the model answers again, the stored messages' size
 * stands in for it (bytes / 4, as compaction estimates).
 *
 * Returns: tokens, 0 for a conversation without messages
 */
gint64
zot_agent_get_context_tokens (ZotAgent *self)
{
  GPtrArray *messages;
  gsize bytes = 0;

  g_return_val_if_fail (ZOT_IS_AGENT (self), 0);

  if (self->context_tokens >= 0)
    return self->context_tokens + MAX (self->usage.output_tokens, 0);

  messages = self->session != NULL ? zot_session_get_messages (self->session) : NULL;
  for (guint i = 0; messages != NULL && i < messages->len; i++)
    bytes += zot_message_estimate_bytes (g_ptr_array_index (messages, i));
  return (gint64) (bytes / 4);
}
