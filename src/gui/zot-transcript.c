/* zot-transcript.c — the conversation as the window shows it.
 *
 * The conversation is a GListStore of ZotTranscriptItem, one per row, and
 * the view a ZotTranscriptView that makes ZotTranscriptRow widgets for
 * the items in view only, and keeps a bounded number of them bound to
 * their items when they scroll away: what a long conversation costs the
 * window is those rows, not the rows in it. The startup section is an
 * item of its own in a second store, before the conversation, so that
 * clearing one leaves the other. The handlers below only make and change
 * items; the rows follow the items' notifications. The view keeps to the
 * bottom while the user is there.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "zot-limits.h"
#include "zot-message.h"
#include "zot-tool.h"
#include "zot-tool-registry.h"
#include "zot-transcript.h"
#include "zot-transcript-item.h"
#include "zot-transcript-private.h"
#include "zot-transcript-row.h"
#include "zot-transcript-view.h"

enum {
  PROP_0,
  PROP_SHOW_STARTUP,
  PROP_HOST,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotTranscript, zot_transcript, GTK_TYPE_WIDGET)

/* Items */

static void
add_item (ZotTranscript     *self,
          ZotTranscriptItem *item)
{
  g_list_store_append (self->items, item);
}

/* Removes @item, looking from the end, where the items that go are. */
static void
remove_item (ZotTranscript     *self,
             ZotTranscriptItem *item)
{
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->items));

  for (guint i = n_items; i > 0; i--)
    {
      g_autoptr(ZotTranscriptItem) other = g_list_model_get_item (G_LIST_MODEL (self->items), i - 1);

      if (other == item)
        {
          g_list_store_remove (self->items, i - 1);
          return;
        }
    }
}

static void
add_note_item (ZotTranscript         *self,
               ZotTranscriptItemKind  kind,
               const char            *extension_name,
               const char            *level,
               const char            *message)
{
  g_autoptr(ZotTranscriptItem) item = zot_transcript_item_new_note (kind, extension_name, level, message);

  add_item (self, item);
}

static const char *
extension_name_or_null (ZotExtension *extension)
{
  return extension != NULL ? zot_extension_get_name (extension) : NULL;
}

/* The startup section */

static void
update_startup (ZotTranscript *self)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *text = NULL;
  ZotExtensionManager *manager;
  gboolean shown = self->show_startup && self->host != NULL;
  guint n_items;

  if (shown != (g_list_model_get_n_items (G_LIST_MODEL (self->head)) > 0))
    {
      if (shown)
        g_list_store_append (self->head, self->startup);
      else
        g_list_store_remove_all (self->head);
    }
  if (self->host == NULL)
    return;

  manager = zot_host_get_manager (self->host);
  n_items = g_list_model_get_n_items (G_LIST_MODEL (manager));
  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        continue;
      if (names->len > 0)
        g_string_append (names, ", ");
      g_string_append (names, zot_extension_get_name (extension));
    }

  if (names->len > 0)
    /* Translators: %s is a comma-separated list of extension names */
    text = g_strdup_printf (_("Extensions: %s"), names->str);
  else
    text = g_strdup (_("No extensions loaded"));

  zot_transcript_item_set_text (self->startup, text);
}

/* Assistant streaming */

static void
remove_streaming (ZotTranscript *self)
{
  g_autoptr(ZotTranscriptItem) item = g_steal_pointer (&self->streaming);

  if (item != NULL)
    remove_item (self, item);
}

static ZotTranscriptItem *
begin_streaming (ZotTranscript *self)
{
  if (self->streaming == NULL)
    {
      self->streaming = zot_transcript_item_new_assistant ();
      add_item (self, self->streaming);
    }

  return self->streaming;
}

/* Tool calls */

static const char *
tool_origin (ZotTranscript *self,
             const char    *name)
{
  ZotToolRegistry *registry;
  ZotTool *tool;

  if (self->host == NULL || name == NULL)
    return NULL;

  registry = zot_agent_get_registry (zot_host_get_agent (self->host));
  if (registry == NULL)
    return NULL;

  tool = zot_tool_registry_lookup (registry, name);
  return tool != NULL ? zot_tool_get_origin (tool) : NULL;
}

static ZotTranscriptItem *
add_tool_item (ZotTranscript *self,
               const char    *id,
               const char    *name,
               JsonObject    *args)
{
  g_autoptr(ZotTranscriptItem) item = zot_transcript_item_new_tool (id, name, args, tool_origin (self, name), NULL);

  add_item (self, item);
  g_hash_table_replace (self->tool_items, g_strdup (id ? id : ""), g_object_ref (item));
  return item;
}

/* Agent signals */

static void
on_agent_user_message_cb (ZotAgent      *agent,
                          JsonObject    *message,
                          ZotTranscript *self)
{
  g_autofree char *text = zot_message_get_text (message);
  g_autoptr(ZotTranscriptItem) item = NULL;
  JsonArray *content = NULL;

  if (json_object_get_boolean_member_with_default (message, "summary", FALSE))
    {
      item = zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_SUMMARY, NULL, text);
      add_item (self, item);
      return;
    }

  if (json_object_has_member (message, "content") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (message, "content")))
    content = json_object_get_array_member (message, "content");

  item = zot_transcript_item_new_user (text, content);
  add_item (self, item);
}

static void
on_agent_assistant_start_cb (ZotAgent      *agent,
                             ZotTranscript *self)
{
  /* A message that never arrived (suppressed) leaves nothing behind. */
  remove_streaming (self);
  begin_streaming (self);
}

static void
on_agent_text_delta_cb (ZotAgent      *agent,
                        const char    *delta,
                        ZotTranscript *self)
{
  if (delta == NULL || *delta == '\0')
    return;

  zot_transcript_item_append_text (begin_streaming (self), delta);
}

static void
on_agent_reasoning_delta_cb (ZotAgent      *agent,
                             const char    *delta,
                             ZotTranscript *self)
{
  zot_reasoning_text_append (zot_transcript_item_get_reasoning (begin_streaming (self)), delta);
}

static void
on_agent_assistant_message_cb (ZotAgent      *agent,
                               JsonObject    *message,
                               ZotTranscript *self)
{
  g_autofree char *text = zot_message_get_text (message);
  g_autofree char *stripped = g_strstrip (g_strdup (text));
  g_autofree char *reasoning = zot_reasoning_text_from_message (message);
  g_autoptr(ZotTranscriptItem) item = NULL;

  if (*stripped == '\0' && reasoning == NULL)
    {
      /* Only tool calls: their rows say it all. */
      remove_streaming (self);
      return;
    }

  item = g_steal_pointer (&self->streaming);
  if (item == NULL)
    {
      item = zot_transcript_item_new_assistant ();
      add_item (self, item);
    }

  zot_reasoning_text_set_message (zot_transcript_item_get_reasoning (item), message);
  zot_transcript_item_finish (item, text);
}

static void
on_agent_tool_call_cb (ZotAgent      *agent,
                       const char    *id,
                       const char    *name,
                       JsonObject    *args,
                       ZotTranscript *self)
{
  add_tool_item (self, id, name, args);
}

static void
on_agent_tool_progress_cb (ZotAgent      *agent,
                           const char    *id,
                           const char    *text,
                           ZotTranscript *self)
{
  ZotTranscriptItem *item = g_hash_table_lookup (self->tool_items, id);

  if (item != NULL)
    zot_transcript_item_set_progress (item, text);
}

static void
on_agent_tool_result_cb (ZotAgent      *agent,
                         const char    *id,
                         const char    *name,
                         ZotToolResult *result,
                         ZotTranscript *self)
{
  ZotTranscriptItem *item = g_hash_table_lookup (self->tool_items, id ? id : "");

  if (result == NULL)
    return;

  /* A result whose call was never announced still gets a row. */
  if (item == NULL)
    item = add_tool_item (self, id, name, NULL);

  zot_transcript_item_set_result (item, result);
}

/* A call an extension asked for: under its parent's row and the rows of
 * the parent's earlier children, or at the end for one without a parent. */
static void
on_agent_extension_call_cb (ZotAgent      *agent,
                            const char    *id,
                            const char    *parent_id,
                            const char    *name,
                            JsonObject    *args,
                            const char    *origin_extension,
                            ZotTranscript *self)
{
  ZotTranscriptItem *parent = parent_id != NULL ? g_hash_table_lookup (self->tool_items, parent_id) : NULL;
  g_autoptr(ZotTranscriptItem) item = zot_transcript_item_new_tool (id, name, args, tool_origin (self, name),
                                                                    parent_id);
  guint depth = parent != NULL ? zot_transcript_item_get_depth (parent) + 1 : 0;
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  guint position = n_items;

  zot_transcript_item_set_requested_by (item, origin_extension, depth);

  if (parent != NULL)
    {
      zot_transcript_item_add_child (parent, item);
      for (guint i = n_items; i > 0; i--)
        {
          g_autoptr(ZotTranscriptItem) other = g_list_model_get_item (G_LIST_MODEL (self->items), i - 1);

          if (other == parent)
            {
              position = i;
              break;
            }
        }
      /* Past the parent's descendants: the deeper rows right after it. */
      while (position < n_items)
        {
          g_autoptr(ZotTranscriptItem) other = g_list_model_get_item (G_LIST_MODEL (self->items), position);

          if (zot_transcript_item_get_kind (other) != ZOT_TRANSCRIPT_ITEM_TOOL ||
              zot_transcript_item_get_depth (other) < depth)
            break;
          position++;
        }
    }

  g_list_store_insert (self->items, position, item);
  g_hash_table_replace (self->tool_items, g_strdup (id), g_object_ref (item));
}

/* An interactive call waits for the user in a panel: its row says where. */
static void
on_manager_panel_waiting_cb (ZotExtensionManager *manager,
                             ZotExtension        *extension,
                             ZotPanel            *panel,
                             const char          *tool_id,
                             ZotTranscript       *self)
{
  ZotTranscriptItem *item = tool_id != NULL ? g_hash_table_lookup (self->tool_items, tool_id) : NULL;

  if (item != NULL)
    zot_transcript_item_set_waiting_panel (item, zot_panel_get_key (panel), zot_panel_get_title (panel));
}

static void
on_agent_turn_end_cb (ZotAgent      *agent,
                      const char    *stop,
                      const char    *error,
                      ZotTranscript *self)
{
  gboolean aborted = g_strcmp0 (stop, "aborted") == 0;

  if (self->streaming != NULL)
    {
      ZotReasoningText *reasoning = zot_transcript_item_get_reasoning (self->streaming);

      /* An aborted reply keeps what had arrived; anything else that never
       * became a message (suppressed, failed) goes. */
      if (aborted && (zot_transcript_item_get_text_length (self->streaming) > 0 ||
                      zot_reasoning_text_get_length (reasoning) > 0))
        {
          zot_transcript_item_stop (self->streaming);
          g_clear_object (&self->streaming);
        }
      else
        remove_streaming (self);
    }

  if (error != NULL && *error != '\0' && !aborted)
    zot_transcript_add_error (self, error);
}

static void
on_agent_warning_cb (ZotAgent      *agent,
                     const char    *message,
                     ZotTranscript *self)
{
  add_note_item (self, ZOT_TRANSCRIPT_ITEM_WARNING, NULL, "warn", message);
}

/* Manager signals */

static void
on_manager_note_added_cb (ZotExtensionManager *manager,
                          ZotExtension        *extension,
                          const char          *level,
                          const char          *message,
                          ZotTranscript       *self)
{
  zot_transcript_add_note (self, extension_name_or_null (extension), level, message);
}

static void
on_manager_extension_crashed_cb (ZotExtensionManager *manager,
                                 ZotExtension        *extension,
                                 const char          *message,
                                 ZotTranscript       *self)
{
  const char *name = extension_name_or_null (extension);
  g_autofree char *text = NULL;

  /* Translators: the first %s is an extension name, the second what happened */
  text = g_strdup_printf (_("The extension %s stopped: %s"), name ? name : "?", message ? message : "");
  add_note_item (self, ZOT_TRANSCRIPT_ITEM_CRASH, name, "error", text);
  update_startup (self);
}

static void
on_manager_warning_cb (ZotExtensionManager *manager,
                       ZotExtension        *extension,
                       const char          *message,
                       ZotTranscript       *self)
{
  add_note_item (self, ZOT_TRANSCRIPT_ITEM_WARNING, extension_name_or_null (extension), "warn", message);
}

static void
on_manager_extension_state_changed_cb (ZotExtensionManager *manager,
                                       ZotExtension        *extension,
                                       ZotTranscript       *self)
{
  update_startup (self);
}

static void
on_manager_items_changed_cb (GListModel    *model,
                             guint          position,
                             guint          removed,
                             guint          added,
                             ZotTranscript *self)
{
  update_startup (self);
}

/* Host signals */

static void
on_host_info_cb (ZotHost       *host,
                 const char    *text,
                 ZotTranscript *self)
{
  zot_transcript_add_info (self, text);
}

/* A command's `display` is a styled one-shot note, never in the
 * conversation sent to the model. */
static void
on_host_command_replied_cb (ZotHost         *host,
                            ZotCommandReply *reply,
                            ZotTranscript   *self)
{
  g_autoptr(ZotTranscriptItem) item = NULL;

  if (zot_command_reply_get_kind (reply) != ZOT_COMMAND_REPLY_DISPLAY)
    return;

  item = zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_DISPLAY,
                                       extension_name_or_null (zot_command_reply_get_extension (reply)),
                                       zot_command_reply_get_text (reply));
  add_item (self, item);
}

static void
on_host_warning_cb (ZotHost       *host,
                    const char    *message,
                    ZotTranscript *self)
{
  add_note_item (self, ZOT_TRANSCRIPT_ITEM_WARNING, NULL, "warn", message);
}


static void
on_host_session_notify_cb (ZotHost       *host,
                           GParamSpec    *pspec,
                           ZotTranscript *self)
{
  _zot_transcript_show_session (self, TRUE);
}

/* GObject */

static void
zot_transcript_dispose (GObject *object)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (object);

  if (self->host_signals != NULL)
    g_signal_group_set_target (self->host_signals, NULL);
  if (self->agent_signals != NULL)
    g_signal_group_set_target (self->agent_signals, NULL);
  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->host_signals);
  g_clear_object (&self->agent_signals);
  g_clear_object (&self->manager_signals);
  g_clear_object (&self->host);

  _zot_transcript_stop_following (self);
  g_clear_pointer (&self->tool_items, g_hash_table_unref);
  g_clear_object (&self->streaming);
  g_clear_object (&self->retrying);

  g_clear_object (&self->match);
  g_clear_pointer (&self->match_needle, g_free);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_TRANSCRIPT);

  /* After the view: it no longer follows them. */
  g_clear_object (&self->shown);
  g_clear_object (&self->items);
  g_clear_object (&self->head);
  g_clear_object (&self->startup);

  G_OBJECT_CLASS (zot_transcript_parent_class)->dispose (object);
}

static void
zot_transcript_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (object);

  switch (prop_id)
    {
    case PROP_SHOW_STARTUP:
      g_value_set_boolean (value, self->show_startup);
      break;

    case PROP_HOST:
      g_value_set_object (value, self->host);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (object);

  switch (prop_id)
    {
    case PROP_SHOW_STARTUP:
      zot_transcript_set_show_startup (self, g_value_get_boolean (value));
      break;

    case PROP_HOST:
      zot_transcript_set_host (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_class_init (ZotTranscriptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_transcript_dispose;
  object_class->get_property = zot_transcript_get_property;
  object_class->set_property = zot_transcript_set_property;

  /**
   * ZotTranscript:show-startup:
   *
   * Whether a compact section at the top lists the active extensions.
   */
  properties [PROP_SHOW_STARTUP] =
    g_param_spec_boolean ("show-startup", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotTranscript:host:
   *
   * The host whose conversation the transcript shows
   * (zot_transcript_set_host()).
   */
  properties [PROP_HOST] =
    g_param_spec_object ("host", NULL, NULL, ZOT_TYPE_HOST,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-transcript.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotTranscript, scrolled_window);
  gtk_widget_class_bind_template_child (widget_class, ZotTranscript, view);

  _zot_transcript_install_retry_action (widget_class);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "transcript");
}

static void
zot_transcript_init (ZotTranscript *self)
{
  g_autoptr(GListStore) sections = g_list_store_new (G_TYPE_LIST_MODEL);

  g_type_ensure (ADW_TYPE_CLAMP_SCROLLABLE);
  g_type_ensure (ZOT_TYPE_TRANSCRIPT_VIEW);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->tool_items = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);

  self->head = g_list_store_new (ZOT_TYPE_TRANSCRIPT_ITEM);
  self->items = g_list_store_new (ZOT_TYPE_TRANSCRIPT_ITEM);
  self->startup = zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_STARTUP, NULL, NULL);
  g_list_store_append (sections, self->head);
  g_list_store_append (sections, self->items);
  self->shown = G_LIST_MODEL (gtk_flatten_list_model_new (G_LIST_MODEL (g_steal_pointer (&sections))));

  zot_transcript_view_set_bind_func (self->view, _zot_transcript_mark_row, self);
  zot_transcript_view_set_model (self->view, self->shown);

  self->host_signals = g_signal_group_new (ZOT_TYPE_HOST);
  g_signal_group_connect (self->host_signals, "info", G_CALLBACK (on_host_info_cb), self);
  g_signal_group_connect (self->host_signals, "command-replied",
                          G_CALLBACK (on_host_command_replied_cb), self);
  g_signal_group_connect (self->host_signals, "warning", G_CALLBACK (on_host_warning_cb), self);
  g_signal_group_connect (self->host_signals, "notify::session", G_CALLBACK (on_host_session_notify_cb), self);

  self->agent_signals = g_signal_group_new (ZOT_TYPE_AGENT);
  g_signal_group_connect (self->agent_signals, "user-message",
                          G_CALLBACK (on_agent_user_message_cb), self);
  g_signal_group_connect (self->agent_signals, "assistant-start",
                          G_CALLBACK (on_agent_assistant_start_cb), self);
  g_signal_group_connect (self->agent_signals, "text-delta",
                          G_CALLBACK (on_agent_text_delta_cb), self);
  g_signal_group_connect (self->agent_signals, "reasoning-delta",
                          G_CALLBACK (on_agent_reasoning_delta_cb), self);
  g_signal_group_connect (self->agent_signals, "assistant-message",
                          G_CALLBACK (on_agent_assistant_message_cb), self);
  g_signal_group_connect (self->agent_signals, "tool-call",
                          G_CALLBACK (on_agent_tool_call_cb), self);
  g_signal_group_connect (self->agent_signals, "tool-result",
                          G_CALLBACK (on_agent_tool_result_cb), self);
  g_signal_group_connect (self->agent_signals, "tool-progress",
                          G_CALLBACK (on_agent_tool_progress_cb), self);
  g_signal_group_connect (self->agent_signals, "extension-call",
                          G_CALLBACK (on_agent_extension_call_cb), self);
  g_signal_group_connect (self->agent_signals, "extension-call-result",
                          G_CALLBACK (on_agent_tool_result_cb), self);
  g_signal_group_connect (self->agent_signals, "turn-end",
                          G_CALLBACK (on_agent_turn_end_cb), self);
  g_signal_group_connect (self->agent_signals, "warning",
                          G_CALLBACK (on_agent_warning_cb), self);
  _zot_transcript_watch_retries (self, self->agent_signals);

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect (self->manager_signals, "note-added",
                          G_CALLBACK (on_manager_note_added_cb), self);
  _zot_transcript_watch_load_failures (self, self->manager_signals);
  g_signal_group_connect (self->manager_signals, "extension-crashed",
                          G_CALLBACK (on_manager_extension_crashed_cb), self);
  g_signal_group_connect (self->manager_signals, "panel-waiting",
                          G_CALLBACK (on_manager_panel_waiting_cb), self);
  g_signal_group_connect (self->manager_signals, "warning",
                          G_CALLBACK (on_manager_warning_cb), self);
  g_signal_group_connect (self->manager_signals, "extension-state-changed",
                          G_CALLBACK (on_manager_extension_state_changed_cb), self);
  g_signal_group_connect (self->manager_signals, "items-changed",
                          G_CALLBACK (on_manager_items_changed_cb), self);
}

/* API */

/**
 * zot_transcript_new:
 *
 * Returns: (transfer floating): an empty transcript
 */
GtkWidget *
zot_transcript_new (void)
{
  return g_object_new (ZOT_TYPE_TRANSCRIPT, NULL);
}

/**
 * zot_transcript_set_host:
 * @self: a #ZotTranscript
 * @host: (nullable): the host to show
 *
 * Connects to @host, its agent and its extension manager (and away from
 * the previous host's), and shows its conversation: a resumed one from
 * its start. Whenever the host's session changes (/new, a conversation
 * opened), the transcript shows that one instead.
 */
void
zot_transcript_set_host (ZotTranscript *self,
                         ZotHost       *host)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (host == NULL || ZOT_IS_HOST (host));

  if (!g_set_object (&self->host, host))
    return;

  g_signal_group_set_target (self->host_signals, host);
  g_signal_group_set_target (self->agent_signals, host ? zot_host_get_agent (host) : NULL);
  g_signal_group_set_target (self->manager_signals, host ? zot_host_get_manager (host) : NULL);

  update_startup (self);
  _zot_transcript_show_session (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HOST]);
}

/**
 * zot_transcript_get_host:
 * @self: a #ZotTranscript
 *
 * Returns: (transfer none) (nullable): the host shown
 */
ZotHost *
zot_transcript_get_host (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return self->host;
}

/**
 * zot_transcript_clear:
 * @self: a #ZotTranscript
 *
 * Removes every row: messages, tool calls, notes and load failures. The
 * startup section stays.
 */
void
zot_transcript_clear (ZotTranscript *self)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));

  if (self->tool_items != NULL)
    g_hash_table_remove_all (self->tool_items);
  g_clear_object (&self->streaming);
  g_clear_object (&self->retrying);

  g_clear_object (&self->match);
  if (self->items != NULL)
    g_list_store_remove_all (self->items);
  /* The view lets go of the rows of the items gone. */
  if (self->view != NULL)
    zot_transcript_view_scroll_to_end (self->view);
}

/**
 * zot_transcript_add_note:
 * @self: a #ZotTranscript
 * @extension_name: (nullable): who sent it
 * @level: "info", "success", "warn" or "error"
 * @message: the note
 */
void
zot_transcript_add_note (ZotTranscript *self,
                         const char    *extension_name,
                         const char    *level,
                         const char    *message)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (message != NULL);

  add_note_item (self, ZOT_TRANSCRIPT_ITEM_NOTE, extension_name, level ? level : "info", message);
}

/**
 * zot_transcript_add_error:
 * @self: a #ZotTranscript
 * @message: what went wrong, for the user
 */
void
zot_transcript_add_error (ZotTranscript *self,
                          const char    *message)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (message != NULL);

  add_note_item (self, ZOT_TRANSCRIPT_ITEM_ERROR, NULL, "error", message);
}

/**
 * zot_transcript_add_info:
 * @self: a #ZotTranscript
 * @text: host output such as /help, shown in a monospace font
 */
void
zot_transcript_add_info (ZotTranscript *self,
                         const char    *text)
{
  g_autoptr(ZotTranscriptItem) item = NULL;

  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (text != NULL);

  item = zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_INFO, NULL, text);
  add_item (self, item);
}

gboolean
zot_transcript_get_show_startup (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), FALSE);

  return self->show_startup;
}

void
zot_transcript_set_show_startup (ZotTranscript *self,
                                 gboolean       show_startup)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));

  show_startup = !!show_startup;
  if (self->show_startup == show_startup)
    return;

  self->show_startup = show_startup;
  update_startup (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SHOW_STARTUP]);
}

/* In-app API */

/**
 * _zot_transcript_append_items:
 * @self: a #ZotTranscript
 * @items: (array length=n_items): items to add after the last
 * @n_items: how many
 *
 * Adds many rows in one change of the model, as a stored conversation
 * would be: the view makes rows for the ones in view only.
 */
void
_zot_transcript_append_items (ZotTranscript      *self,
                              ZotTranscriptItem **items,
                              guint               n_items)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (items != NULL || n_items == 0);

  for (guint i = 0; i < n_items; i++)
    if (zot_transcript_item_get_kind (items[i]) == ZOT_TRANSCRIPT_ITEM_TOOL)
      g_hash_table_replace (self->tool_items,
                            g_strdup (zot_transcript_item_get_tool_id (items[i]) ?: ""),
                            g_object_ref (items[i]));

  g_list_store_splice (self->items, g_list_model_get_n_items (G_LIST_MODEL (self->items)), 0,
                       (gpointer *) items, n_items);
}

/**
 * _zot_transcript_get_items:
 * @self: a #ZotTranscript
 *
 * Returns: (transfer none): the conversation's rows, without the startup
 *   section: a #GListModel of #ZotTranscriptItem
 */
GListModel *
_zot_transcript_get_items (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return G_LIST_MODEL (self->items);
}

/**
 * _zot_transcript_get_n_rows_created:
 * @self: a #ZotTranscript
 *
 * Returns: how many row widgets the view has made so far
 */
guint
_zot_transcript_get_n_rows_created (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), 0);

  return zot_transcript_view_get_n_rows_created (self->view);
}

/**
 * _zot_transcript_get_row:
 * @self: a #ZotTranscript
 * @item: an item of the transcript
 *
 * Returns: (transfer none) (nullable): the row bound to @item, if it is
 *   in view
 */
GtkWidget *
_zot_transcript_get_row (ZotTranscript     *self,
                         ZotTranscriptItem *item)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return zot_transcript_view_get_shown_row (self->view, item);
}

/**
 * _zot_transcript_peek_kept_row:
 * @self: a #ZotTranscript
 * @item: an item of the transcript
 *
 * Returns: (transfer none) (nullable): the row kept for @item, in view or
 *   not
 */
GtkWidget *
_zot_transcript_peek_kept_row (ZotTranscript     *self,
                               ZotTranscriptItem *item)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return zot_transcript_view_peek_row (self->view, item);
}

/**
 * _zot_transcript_get_vadjustment:
 * @self: a #ZotTranscript
 *
 * Returns: (transfer none): the adjustment that scrolls the conversation
 */
GtkAdjustment *
_zot_transcript_get_vadjustment (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return gtk_scrolled_window_get_vadjustment (self->scrolled_window);
}
