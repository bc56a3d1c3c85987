/* zot-model-facts.h — what the host knows of each model: its limits and
 * its prices.
 *
 * The known models ship in data/models/models.json (compiled in); the
 * user's own, or corrections to the shipped ones, come from
 * $ZOT_HOME/models.json in the same shape. Both are read once, at the
 * first question; zot_model_facts_reload() reads them again.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ZotModelInfo:
 * @provider: the provider's name, as in the provider table
 * @id: the model id as the API knows it
 * @context_window: the tokens it reads at most, prompt and answer; 0 when
 *   unknown or unlimited (the demo model)
 * @max_output: the tokens it writes at most in one answer; 0 for no limit
 * @reasoning: whether it can think before it answers (extended thinking,
 *   reasoning effort)
 * @priced: whether the prices below are known; without them a call's
 *   cost is unknown, never 0
 * @input_price: US dollars per million input tokens
 * @output_price: US dollars per million output tokens
 * @cache_read_price: US dollars per million input tokens read from the
 *   prompt cache
 * @cache_write_price: US dollars per million input tokens written to the
 *   prompt cache
 * @prices_date: (nullable): when the prices were taken, "2025-11" or
 *   "2025-11-24"
 * @user: whether the user's models.json gave or changed it
 */
typedef struct
{
  const char *provider;
  const char *id;
  guint       context_window;
  guint       max_output;
  gboolean    reasoning;
  gboolean    priced;
  double      input_price;
  double      output_price;
  double      cache_read_price;
  double      cache_write_price;
  const char *prices_date;
  gboolean    user;
} ZotModelInfo;

/**
 * ZotTokenCounts:
 * @input: input tokens outside the cache
 * @output: output tokens, reasoning included
 * @cache_read: input tokens read from the prompt cache
 * @cache_write: input tokens written to the prompt cache
 *
 * The tokens of one model call that have a price; a negative count is
 * unknown and costs nothing.
 */
typedef struct
{
  gint64 input;
  gint64 output;
  gint64 cache_read;
  gint64 cache_write;
} ZotTokenCounts;

const ZotModelInfo  *zot_model_info_lookup          (const char           *provider,
                                                     const char           *model);
gboolean             zot_model_info_get_price       (const ZotModelInfo   *model,
                                                     const ZotTokenCounts *counts,
                                                     double               *cost_usd);

GPtrArray           *zot_model_facts_list           (const char           *provider);
const char * const  *zot_model_facts_get_warnings   (void);
char                *zot_model_facts_get_user_file  (void);
void                 zot_model_facts_reload         (void);

gboolean             zot_model_error_is_context_overflow (const GError *error);

G_END_DECLS
