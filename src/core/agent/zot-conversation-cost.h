/* zot-conversation-cost.h — what a saved conversation cost, read from its
 * file.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * ZotConversationCost:
 * @input_tokens: input tokens outside the cache, every model turn
 * @output_tokens: output tokens
 * @cache_read_tokens: input tokens read from the prompt cache
 * @cache_write_tokens: input tokens written to the prompt cache
 * @cost_usd: what the turns with a known price cost, in US dollars
 * @cost_known: whether every turn's price was known, so that @cost_usd is
 *   the whole
 * @turns: the model turns that reported tokens
 */
typedef struct
{
  gint64   input_tokens;
  gint64   output_tokens;
  gint64   cache_read_tokens;
  gint64   cache_write_tokens;
  double   cost_usd;
  gboolean cost_known;
  guint    turns;
} ZotConversationCost;

void     zot_conversation_cost_read_async  (const char           *path,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
gboolean zot_conversation_cost_read_finish (GAsyncResult         *result,
                                            ZotConversationCost  *cost,
                                            GError              **error);
void     zot_conversation_cost_add_data    (ZotConversationCost  *cost,
                                            const char           *data,
                                            gsize                 length);

G_END_DECLS
