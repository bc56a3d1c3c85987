/* zot-agent-run.c — the loop: model, tools, results, again.
 *
 * One run at a time; prompts submitted during a run wait in a queue. A run
 * owns a GCancellable and every tool call a child of it, so an abort ends
 * the stream and every running tool, each tool still giving a terminal
 * result so that the transcript stays valid.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-limits.h"
#include "zot-message.h"

typedef struct
{
  char       *text;
  JsonArray  *images;
  JsonObject *synthetic;
  char       *origin_extension;
  gboolean    resume_only;
} PromptData;

static void
prompt_data_free (PromptData *data)
{
  g_free (data->text);
  g_clear_pointer (&data->images, json_array_unref);
  g_clear_pointer (&data->synthetic, json_object_unref);
  g_free (data->origin_extension);
  g_free (data);
}

static void start_next_run       (ZotAgent *self);
static void append_user_message  (Run      *run);

static void
run_free (Run *run)
{
  if (run->cancel_id != 0)
    g_cancellable_disconnect (g_task_get_cancellable (run->task), run->cancel_id);
  g_clear_object (&run->task);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->session);
  g_free (run->text);
  if (run->streamed != NULL)
    g_string_free (run->streamed, TRUE);
  g_clear_pointer (&run->calls, g_ptr_array_unref);
  g_free (run->final_text);
  g_clear_pointer (&run->message, json_object_unref);
  g_clear_pointer (&run->synthetic, json_object_unref);
  g_clear_pointer (&run->images, json_array_unref);
  g_free (run->origin_extension);
  g_free (run->stop);
  g_free (run);
}

/* Run completion */

static void
finish_run (Run    *run,
            GError *error)
{
  ZotAgent *self = run->agent;

  g_assert (self->run == run);
  _zot_agent_set_run (self, NULL);

  if (error != NULL)
    g_task_return_error (run->task, error);
  else
    g_task_return_pointer (run->task, g_strdup (run->final_text ? run->final_text : ""), g_free);

  run_free (run);

  start_next_run (self);
}

static void
emit_turn_end (Run        *run,
               const char *stop,
               const char *error)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  json_object_set_string_member (payload, "stop", stop);
  if (error != NULL)
    json_object_set_string_member (payload, "error", error);
  _zot_agent_emit_event (run->agent, "turn_end", payload);

  g_signal_emit (run->agent, _zot_agent_signals [ZOT_AGENT_TURN_END], 0, stop, error);
}

void
_zot_agent_abort_run (Run *run)
{
  emit_turn_end (run, "aborted", NULL);
  finish_run (run, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("the run was aborted")));
}

void
_zot_agent_fail_run (Run    *run,
                     GError *error)
{
  emit_turn_end (run, "error", error->message);
  finish_run (run, error);
}

/* Model step */

/* What a tool_call event says of every call, whether the model made it or
 * an extension's tool_prompt did; each adds what only it knows. */
static JsonObject *
tool_call_payload (ToolCall *call)
{
  JsonObject *payload = json_object_new ();

  g_assert (call != NULL);

  json_object_set_string_member (payload, "tool_id", call->id);
  json_object_set_string_member (payload, "tool_name", call->name);
  json_object_set_object_member (payload, "tool_args", json_object_ref (call->args));
  return payload;
}

/* After the assistant message: announce the calls, end the turn, run them. */
static void
end_model_turn (Run *run)
{
  ZotAgent *self = run->agent;
  gboolean has_tools;

  _zot_agent_collect_calls (run, run->message);
  has_tools = run->calls->len > 0;

  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_autoptr(JsonObject) payload = tool_call_payload (call);

      if (call->args_raw != NULL)
        json_object_set_string_member (payload, "tool_args_raw", call->args_raw);
      _zot_agent_emit_event (self, "tool_call", payload);
    }

  emit_turn_end (run, has_tools ? "tool_use" : run->stop, NULL);

  /* Every call of the batch is announced before any runs. */
  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_TOOL_CALL], 0, call->id, call->name, call->args);
    }

  if (has_tools)
    {
      _zot_agent_run_group (run);
      return;
    }

  g_clear_pointer (&run->calls, g_ptr_array_unref);
  if (g_cancellable_is_cancelled (run->cancellable))
    _zot_agent_abort_run (run);
  else if (run->prompt_after_resume)
    append_user_message (run);
  else
    finish_run (run, NULL);
}

static void
show_assistant_message (Run        *run,
                        const char *visible_text,
                        gboolean    suppressed)
{
  ZotAgent *self = run->agent;

  if (!suppressed)
    {
      g_autoptr(JsonObject) shown = NULL;

      if (visible_text != NULL)
        {
          /* Only what the user sees changes; the transcript keeps the original. */
          JsonArray *content = json_object_get_array_member (run->message, "content");
          g_autoptr(JsonArray) replaced = zot_content_new_text (visible_text);

          for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
            {
              JsonObject *block = json_array_get_object_element (content, i);
              if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", ""), "text") != 0)
                json_array_add_element (replaced, json_node_copy (json_array_get_element (content, i)));
            }
          shown = json_object_new ();
          json_object_set_string_member (shown, "role", "assistant");
          if (json_object_has_member (run->message, "time"))
            json_object_set_string_member (shown, "time", json_object_get_string_member (run->message, "time"));
          json_object_set_array_member (shown, "content", g_steal_pointer (&replaced));

          g_free (run->final_text);
          run->final_text = g_strdup (visible_text);
        }
      else
        shown = json_object_ref (run->message);

      g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_ASSISTANT_MESSAGE], 0, shown);
    }
  else
    {
      g_free (run->final_text);
      run->final_text = g_strdup ("");
    }

  /* The property first, so that handlers of the signal read the same. */
  _zot_agent_add_turn_usage (self, run->message);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_USAGE], 0,
                 self->usage.input_tokens, self->usage.output_tokens);

  end_model_turn (run);
}

static void
assistant_intercepted_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(ZotInterception) interception = NULL;
  g_autoptr(GError) error = NULL;

  interception = zot_extension_manager_intercept_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (interception == NULL)
    show_assistant_message (run, NULL, FALSE);
  else if (interception->blocked)
    show_assistant_message (run, NULL, TRUE);
  else if (interception->rewritten)
    show_assistant_message (run, json_object_get_string_member_with_default (interception->payload, "text", ""),
                            FALSE);
  else
    show_assistant_message (run, NULL, FALSE);
}

static void
assistant_appended_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  ZotAgent *self = run->agent;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      _zot_agent_fail_run (run, g_steal_pointer (&error));
      return;
    }

  text = zot_message_get_text (run->message);
  g_free (run->final_text);
  run->final_text = g_strdup (text);

  if (*text == '\0')
    {
      show_assistant_message (run, NULL, FALSE);
      return;
    }

  {
    g_autoptr(JsonObject) payload = json_object_new ();

    json_object_set_string_member (payload, "text", text);
    _zot_agent_emit_event (self, "assistant_message", payload);

    if (_zot_agent_hooks_manager (self) != NULL &&
        zot_extension_manager_has_interceptors (self->manager, "assistant_message"))
      {
        zot_extension_manager_intercept_async (self->manager, "assistant_message", payload,
                                               run->cancellable, assistant_intercepted_cb, run);
        return;
      }
  }

  show_assistant_message (run, NULL, FALSE);
}

static void
streamed_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  ZotAgent *self = run->agent;
  g_autoptr(ZotProviderReply) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_provider_stream_finish (ZOT_PROVIDER (object), result, &error);

  if (reply == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* Keep what was said before the abort, without half a tool call. */
          if (run->streamed->len > 0)
            {
              g_autoptr(JsonObject) partial = zot_message_new_assistant_text (run->streamed->str);
              zot_session_append_message_async (run->session, partial, NULL, NULL, NULL);
            }
          _zot_agent_abort_run (run);
          return;
        }

      if (run->streamed->len == 0 && _zot_agent_auto_compact_on_overflow (run, error))
        return;

      _zot_agent_fail_run (run, g_steal_pointer (&error));
      return;
    }

  _zot_agent_usage_to_message (self, reply);

  g_clear_pointer (&run->message, json_object_unref);
  run->message = json_object_ref (reply->message);
  g_free (run->stop);
  run->stop = g_strdup (reply->stop_reason ? reply->stop_reason : "end_turn");

  zot_session_append_message_async (run->session, reply->message, NULL, assistant_appended_cb, run);
}

void
_zot_agent_on_text_delta (ZotProvider *provider,
                          const char  *delta,
                          ZotAgent    *self)
{
  if (self->run == NULL || self->run->compacting)
    return;

  g_string_append (self->run->streamed, delta);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_TEXT_DELTA], 0, delta);
}

void
_zot_agent_on_reasoning_delta (ZotProvider *provider,
                               const char  *delta,
                               ZotAgent    *self)
{
  if (self->run == NULL || self->run->compacting)
    return;

  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_REASONING_DELTA], 0, delta);
}

static void
call_model (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(ZotProviderRequest) request = NULL;
  GPtrArray *messages;

  if (_zot_agent_auto_compact_before_call (run))
    return;

  request = zot_provider_request_new ();
  request->model = g_strdup (zot_provider_get_model (self->provider));
  request->system_prompt = g_strdup (self->system_prompt);
  request->tools = zot_tool_registry_definitions (self->registry);
  request->messages = json_array_new ();
  messages = zot_session_get_messages (run->session);
  for (guint i = 0; i < messages->len; i++)
    json_array_add_object_element (request->messages, json_object_ref (g_ptr_array_index (messages, i)));

  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_ASSISTANT_START], 0);
  zot_provider_stream_async (self->provider, request, run->cancellable, streamed_cb, run);
}

static void
turn_intercepted_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(ZotInterception) interception = NULL;
  g_autoptr(GError) error = NULL;

  interception = zot_extension_manager_intercept_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (interception == NULL)
    {
      _zot_agent_abort_run (run);
      return;
    }

  if (interception->blocked)
    {
      _zot_agent_fail_run (run, g_error_new (ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_BLOCKED,
                                             _("%s blocked the turn: %s"),
                                             interception->blocked_by, interception->reason));
      return;
    }

  call_model (run);
}

static void
intercept_turn (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) payload = NULL;

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      _zot_agent_abort_run (run);
      return;
    }

  if (_zot_agent_hooks_manager (self) == NULL || !zot_extension_manager_has_interceptors (self->manager, "turn_start"))
    {
      call_model (run);
      return;
    }

  payload = json_object_new ();
  json_object_set_int_member (payload, "step", run->step);
  zot_extension_manager_intercept_async (self->manager, "turn_start", payload, run->cancellable,
                                         turn_intercepted_cb, run);
}

static void prepare_system_prompt (Run *run);

typedef struct
{
  Run   *run;
  guint  generation;
} PromptPass;

static void
before_agent_start_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  PromptPass *pass = user_data;
  Run *run = pass->run;
  ZotAgent *self = run->agent;
  g_autofree char *prompt = NULL;
  g_autoptr(GError) error = NULL;
  guint generation = pass->generation;

  g_free (pass);
  prompt = zot_extension_manager_before_agent_start_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (prompt == NULL)
    {
      /* Cancellation does not commit a pending replacement. */
      _zot_agent_abort_run (run);
      return;
    }

  if (generation != self->prompt_generation)
    {
      /* Reset while the chain ran: this result is stale, run it again. */
      prepare_system_prompt (run);
      return;
    }

  g_free (self->system_prompt);
  self->system_prompt = g_steal_pointer (&prompt);
  self->system_prompt_built = TRUE;
  intercept_turn (run);
}

/* The first model call of a run (and the first after a rebuild) assembles
 * the prompt and passes it through the `before_agent_start` chain; the
 * result is reused until the next rebuild. */
static void
prepare_system_prompt (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) context = NULL;
  g_autofree char *run_id = NULL;
  g_autofree char *base = NULL;
  PromptPass *pass;

  if (self->system_prompt_built)
    {
      intercept_turn (run);
      return;
    }

  base = _zot_agent_build_base_prompt (self);

  if (_zot_agent_hooks_manager (self) == NULL ||
      !zot_extension_manager_has_interceptors (self->manager, "before_agent_start"))
    {
      g_free (self->system_prompt);
      self->system_prompt = g_steal_pointer (&base);
      self->system_prompt_built = TRUE;
      intercept_turn (run);
      return;
    }

  run_id = g_uuid_string_random ();
  context = json_object_new ();
  json_object_set_string_member (context, "session_id", zot_extension_manager_get_session_id (self->manager));
  json_object_set_string_member (context, "agent_run_id", run_id);
  json_object_set_string_member (context, "cwd", self->cwd);
  json_object_set_string_member (context, "provider", zot_provider_get_name (self->provider));
  json_object_set_string_member (context, "model", zot_provider_get_model (self->provider));

  pass = g_new0 (PromptPass, 1);
  pass->run = run;
  pass->generation = self->prompt_generation;
  zot_extension_manager_before_agent_start_async (self->manager, context, base, run->cancellable,
                                                  before_agent_start_cb, pass);
}

/* The model call of the step, after a compaction within it: the system
 * prompt is built again first. */
void
_zot_agent_prepare_call (Run *run)
{
  prepare_system_prompt (run);
}

void
_zot_agent_run_step (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) payload = NULL;

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      _zot_agent_abort_run (run);
      return;
    }

  if (run->step >= self->max_steps)
    {
      g_autofree char *message = g_strdup_printf (_("stopped after %u steps (--max-steps)"), self->max_steps);

      emit_turn_end (run, "max_steps", message);
      finish_run (run, g_error_new_literal (ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_MAX_STEPS, message));
      return;
    }

  run->step++;
  g_string_truncate (run->streamed, 0);

  payload = json_object_new ();
  json_object_set_int_member (payload, "step", run->step);
  _zot_agent_emit_event (self, "turn_start", payload);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_TURN_START], 0, run->step);

  prepare_system_prompt (run);
}

static void
synthetic_appended_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  ZotAgent *self = run->agent;
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      finish_run (run, g_steal_pointer (&error));
      return;
    }

  g_clear_pointer (&run->message, json_object_unref);
  run->message = json_object_ref (run->synthetic);
  _zot_agent_collect_calls (run, run->message);

  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_autoptr(JsonObject) payload = tool_call_payload (call);

      json_object_set_string_member (payload, "origin_extension",
                                     json_object_get_string_member_with_default (run->synthetic, "origin_extension", ""));
      _zot_agent_emit_event (self, "tool_call", payload);
      g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_TOOL_CALL], 0, call->id, call->name, call->args);
    }

  _zot_agent_run_group (run);
}

static void
user_appended_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      finish_run (run, g_steal_pointer (&error));
      return;
    }

  if (run->synthetic != NULL)
    {
      /* tool_prompt: the extension's call is stored as the assistant's,
       * then runs through the same checks, interception and approval. */
      zot_session_append_message_async (run->session, run->synthetic, NULL,
                                        synthetic_appended_cb, run);
      return;
    }

  _zot_agent_run_step (run);
}

/* The calls of the step the host stopped in the middle of: the last
 * message of a continuous conversation. Each is answered from the journal
 * or by its tool's replay contract (zot-agent-tools.c), then the model
 * goes on from their results. */
static void user_appended_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data);

static void
append_user_message (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) message = NULL;

  run->prompt_after_resume = FALSE;
  run->resuming = FALSE;
  message = zot_message_new_user (run->text, run->images);
  if (run->origin_extension != NULL)
    json_object_set_string_member (message, "origin_extension", run->origin_extension);
  zot_message_stamp_time (message);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_USER_MESSAGE], 0, message);
  zot_session_append_message_async (run->session, message, NULL, user_appended_cb, run);
}

static void
resume_step (Run *run)
{
  ZotAgent *self = run->agent;
  GPtrArray *messages = zot_session_get_messages (run->session);

  run->resuming = TRUE;
  g_clear_pointer (&run->message, json_object_unref);
  run->message = json_object_ref (g_ptr_array_index (messages, messages->len - 1));
  _zot_agent_collect_calls (run, run->message);

  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_autoptr(JsonObject) payload = tool_call_payload (call);

      call->resumed = TRUE;
      _zot_agent_emit_event (self, "tool_call", payload);
    }
  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_TOOL_CALL], 0, call->id, call->name, call->args);
    }

  _zot_agent_run_group (run);
}

static void
start_run (ZotAgent *self,
           GTask    *task)
{
  Run *run;

  PromptData *data = g_task_get_task_data (task);

  run = g_new0 (Run, 1);
  run->agent = self;
  run->session = g_object_ref (self->session);
  run->task = task;
  run->text = g_strdup (data->text);
  if (data->synthetic != NULL)
    run->synthetic = json_object_ref (data->synthetic);
  run->streamed = g_string_new (NULL);
  run->cancellable = g_cancellable_new ();

  if (g_task_get_cancellable (task) != NULL)
    run->cancel_id = g_cancellable_connect (g_task_get_cancellable (task),
                                            G_CALLBACK (g_cancellable_cancel),
                                            g_object_ref (run->cancellable),
                                            g_object_unref);

  if (data->images != NULL)
    run->images = json_array_ref (data->images);
  run->origin_extension = g_strdup (data->origin_extension);

  /* Set up before `running` says so: a handler may abort it at once. */
  _zot_agent_set_run (self, run);

  /* A continuous conversation finishes the step it was stopped in
   * before anything else (PROTOCOL.md §5). */
  if (zot_session_get_continuous (self->session) && zot_session_has_pending_step (self->session) &&
      !zot_session_is_read_only (self->session))
    {
      run->prompt_after_resume = !data->resume_only;
      resume_step (run);
      return;
    }

  if (data->resume_only)
    {
      finish_run (run, NULL);
      return;
    }

  append_user_message (run);
}

static void
start_next_run (ZotAgent *self)
{
  GTask *task;

  if (self->run != NULL)
    return;

  while ((task = g_queue_pop_head (&self->queue)) != NULL)
    {
      if (g_task_return_error_if_cancelled (task))
        {
          g_object_unref (task);
          continue;
        }
      start_run (self, task);
      return;
    }
}

/* Announced once, at acceptance; a queued prompt says so. */
static void
accept_prompt (ZotAgent   *self,
               GTask      *task,
               const char *text)
{
  PromptData *data = g_task_get_task_data (task);

  if (self->manager != NULL)
    {
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_string_member (payload, "text", text);
      if (self->run != NULL || self->queue.length > 0)
        json_object_set_boolean_member (payload, "queued", TRUE);
      json_object_set_int_member (payload, "image_count",
                                  data->images != NULL ? json_array_get_length (data->images) : 0);
      if (data->origin_extension != NULL)
        json_object_set_string_member (payload, "origin_extension", data->origin_extension);
      _zot_agent_emit_event (self, "user_prompt_submit", payload);
    }

  g_queue_push_tail (&self->queue, task);
  start_next_run (self);
}

/**
 * zot_agent_prompt_async:
 *
 * Submits a user message. When a run is in progress, it waits in the queue
 * and starts when the run before it ends. Completes with the final text
 * of the run.
 */
void
zot_agent_prompt_async (ZotAgent            *self,
                        const char          *text,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  zot_agent_prompt_with_images_async (self, text, NULL, cancellable, callback, user_data);
}

static void
prompt_async (ZotAgent            *self,
              const char          *text,
              JsonArray           *images,
              const char          *origin_extension,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  PromptData *data;
  GTask *task;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_prompt_async);
  data = g_new0 (PromptData, 1);
  data->text = g_strdup (text);
  if (images != NULL && json_array_get_length (images) > 0)
    data->images = json_array_ref (images);
  data->origin_extension = g_strdup (origin_extension);
  g_task_set_task_data (task, data, (GDestroyNotify) prompt_data_free);

  accept_prompt (self, task, text);
}

/**
 * zot_agent_prompt_with_images_async:
 * @text: the message's text, "" for images alone
 * @images: (nullable): image blocks from zot_image_block_new(), shown to
 *   the model after the text
 *
 * Like zot_agent_prompt_async(), with images; complete with
 * zot_agent_prompt_finish().
 */
void
zot_agent_prompt_with_images_async (ZotAgent            *self,
                                    const char          *text,
                                    JsonArray           *images,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (text != NULL);

  prompt_async (self, text, images, NULL, cancellable, callback, user_data);
}

/**
 * zot_agent_prompt_for_extension_async:
 * @text: the message's text
 * @origin_extension: the extension that submitted it (`submit`)
 *
 * Like zot_agent_prompt_async(), for a prompt an extension submitted: the
 * user message, and its `user_prompt_submit` event, name the extension
 * in `origin_extension`. Complete with zot_agent_prompt_finish().
 */
void
zot_agent_prompt_for_extension_async (ZotAgent            *self,
                                      const char          *text,
                                      const char          *origin_extension,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (text != NULL);
  g_return_if_fail (origin_extension != NULL);

  prompt_async (self, text, NULL, origin_extension, cancellable, callback, user_data);
}

/**
 * zot_agent_prompt_finish:
 *
 * Returns: (transfer full): the text of the last assistant message
 */
char *
zot_agent_prompt_finish (ZotAgent      *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * zot_agent_has_pending_step:
 *
 * Returns: whether the conversation is continuous and was stopped in the
 *   middle of a step, which the next run finishes first
 */
gboolean
zot_agent_has_pending_step (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), FALSE);

  return zot_session_get_continuous (self->session) && !zot_session_is_read_only (self->session) &&
         zot_session_has_pending_step (self->session);
}

/**
 * zot_agent_resume_async:
 *
 * Finishes the step a continuous conversation was stopped in, model turn
 * included, without a new prompt (zot_agent_has_pending_step()); nothing
 * to finish completes at once. Finish with zot_agent_prompt_finish().
 */
void
zot_agent_resume_async (ZotAgent            *self,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  PromptData *data;
  GTask *task;

  g_return_if_fail (ZOT_IS_AGENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_prompt_async);
  data = g_new0 (PromptData, 1);
  data->text = g_strdup ("");
  data->resume_only = TRUE;
  g_task_set_task_data (task, data, (GDestroyNotify) prompt_data_free);

  g_queue_push_tail (&self->queue, task);
  start_next_run (self);
}

/**
 * zot_agent_tool_prompt_async:
 * @prompt: the user message to append
 * @tool_name: the tool to run before the model turn
 * @tool_args: its arguments
 * @origin_extension: the extension whose command asked for it
 *
 * What an extension command's `tool_prompt` answer does in a window: the
 * prompt is appended as a user message, the tool runs through the usual
 * checks, interception and approval, the pair is stored (the call records
 * its origin), then the model takes its turn with the full result.
 */
void
zot_agent_tool_prompt_async (ZotAgent            *self,
                             const char          *prompt,
                             const char          *tool_name,
                             JsonObject          *tool_args,
                             const char          *origin_extension,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(JsonArray) content = json_array_new ();
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *id = g_strdup_printf ("prompt_%.8s", uuid);
  JsonObject *block = json_object_new ();
  PromptData *data;
  GTask *task;

  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (prompt != NULL && tool_name != NULL && tool_args != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_prompt_async);

  json_object_set_string_member (block, "type", "tool_use");
  json_object_set_string_member (block, "id", id);
  json_object_set_string_member (block, "name", tool_name);
  json_object_set_object_member (block, "input", json_object_ref (tool_args));
  if (origin_extension != NULL)
    json_object_set_string_member (block, "origin_extension", origin_extension);
  json_array_add_object_element (content, block);

  data = g_new0 (PromptData, 1);
  data->text = g_strdup (prompt);
  data->synthetic = json_object_new ();
  json_object_set_string_member (data->synthetic, "role", "assistant");
  json_object_set_array_member (data->synthetic, "content", g_steal_pointer (&content));
  if (origin_extension != NULL)
    json_object_set_string_member (data->synthetic, "origin_extension", origin_extension);
  g_task_set_task_data (task, data, (GDestroyNotify) prompt_data_free);

  accept_prompt (self, task, prompt);
}

guint
zot_agent_get_queue_length (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), 0);
  return self->queue.length;
}

/**
 * zot_agent_abort:
 *
 * Cancels the running run (the stream and every running tool), every
 * queued prompt, and a compaction in progress.
 */
void
zot_agent_abort (ZotAgent *self)
{
  GTask *task;

  g_return_if_fail (ZOT_IS_AGENT (self));

  while ((task = g_queue_pop_head (&self->queue)) != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("the run was aborted"));
      g_object_unref (task);
    }

  if (self->run != NULL)
    g_cancellable_cancel (self->run->cancellable);
  _zot_agent_abort_compaction (self);
}

gboolean
zot_agent_is_running (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), FALSE);
  return self->run != NULL;
}
