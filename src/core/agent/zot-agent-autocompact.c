/* zot-agent-autocompact.c — compaction the run does on its own.
 *
 * Two moments. Before a model call: when the last call's input (cache
 * reads and writes included) reached the agent's share of the model's
 * context window, the conversation is compacted first; a model whose
 * window is unknown is never compacted this way. After a model call the
 * API refused as too long for the window, before any output: compacted
 * once and the call made again; a second refusal ends the run. Each is
 * announced with ::auto-compaction and goes through `pre_compact` and
 * `post_compact` like /compact. The prompt the run answers stays after
 * the summary.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-model-facts.h"

typedef struct
{
  Run    *run;
  GError *overflow;   /* the refusal, when it was one */
} AutoCompact;

static void
announce (ZotAgent   *self,
          const char *message)
{
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_AUTO_COMPACTION], 0, message);
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  AutoCompact *auto_compact = user_data;
  Run *run = auto_compact->run;
  g_autoptr(GError) overflow = auto_compact->overflow;
  g_autoptr(ZotCompaction) compaction = NULL;
  g_autoptr(GError) error = NULL;

  g_free (auto_compact);
  run->compacting = FALSE;
  compaction = zot_agent_compact_finish (ZOT_AGENT (object), result, &error);

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      _zot_agent_abort_run (run);
      return;
    }

  if (compaction == NULL || compaction->summary == NULL)
    {
      g_autofree char *message = NULL;

      run->compact_failed = TRUE;
      if (overflow != NULL)
        {
          _zot_agent_fail_run (run, g_steal_pointer (&overflow));
          return;
        }

      /* Translators: %s is why; the model is called all the same */
      message = g_strdup_printf (_("The conversation could not be compacted (%s); going on without"),
                                 error != NULL ? error->message : _("nothing to summarize"));
      announce (run->agent, message);
    }

  _zot_agent_prepare_call (run);
}

static void
compact (Run    *run,
         GError *overflow)
{
  AutoCompact *auto_compact = g_new0 (AutoCompact, 1);

  auto_compact->run = run;
  auto_compact->overflow = overflow;
  run->compacting = TRUE;
  _zot_agent_compact_in_run (run, compacted_cb, auto_compact);
}

/* Called before each model call of @run. Returns whether it compacts
 * first; the call is made when that is done. */
gboolean
_zot_agent_auto_compact_before_call (Run *run)
{
  ZotAgent *self = run->agent;
  const ZotModelInfo *model;
  g_autofree char *used = NULL;
  g_autofree char *window = NULL;
  g_autofree char *message = NULL;

  if (self->auto_compact == 0 || self->context_tokens < 0 || run->compact_failed)
    return FALSE;

  model = zot_model_info_lookup (zot_provider_get_name (self->provider), zot_provider_get_model (self->provider));
  if (model == NULL || model->context_window == 0 ||
      (guint64) self->context_tokens * 100 < (guint64) model->context_window * self->auto_compact)
    return FALSE;

  used = g_strdup_printf ("%" G_GINT64_FORMAT, self->context_tokens);
  window = g_strdup_printf ("%u", model->context_window);
  /* Translators: the first %u is a percentage; then the tokens the last model call read, and
   * the most the model reads */
  message = g_strdup_printf (_("The conversation reached %u %% of the model's context window "
                               "(%s of %s tokens): compacting it before the next model call"),
                             self->auto_compact, used, window);
  announce (self, message);
  compact (run, NULL);
  return TRUE;
}

/* Called when a model call of @run failed before any output. Returns
 * whether it takes over: @error says the conversation is too long, and
 * this run has not compacted for that yet. */
gboolean
_zot_agent_auto_compact_on_overflow (Run          *run,
                                     const GError *error)
{
  ZotAgent *self = run->agent;

  if (self->auto_compact == 0 || run->overflow_retried || !zot_model_error_is_context_overflow (error))
    return FALSE;

  run->overflow_retried = TRUE;
  announce (self, _("The model answered that the conversation is too long for its context window: "
                    "compacting it and trying once more"));
  compact (run, g_error_copy (error));
  return TRUE;
}

/**
 * zot_agent_set_auto_compact:
 * @percent: the share of the model's context window, 1 to 100, past
 *   which a run compacts before its next model call; 0 never compacts on
 *   its own, not even when the API refuses a conversation as too long
 */
void
zot_agent_set_auto_compact (ZotAgent *self,
                            guint     percent)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (percent <= 100);

  self->auto_compact = percent;
}

guint
zot_agent_get_auto_compact (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), 0);

  return self->auto_compact;
}
