/* zot-ext-command-invocation.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "zot-ext"

#include "zot-ext-private.h"

/**
 * ZotExtCommandInvocation:
 *
 * One run of a slash command, handed to the
 * [signal@ZotExt.Extension::command] handlers. Answer once, now or later,
 * with one of the `return_` methods; the host waits 30 s for it. A second
 * answer is written to stderr and dropped.
 */
struct _ZotExtCommandInvocation
{
  GObject          parent_instance;

  ZotExtExtension *extension;
  char            *id;
  char            *name;
  char            *args;
  gboolean         finished;
};

G_DEFINE_FINAL_TYPE (ZotExtCommandInvocation, zot_ext_command_invocation, G_TYPE_OBJECT)

static JsonBuilder *
begin_response (ZotExtCommandInvocation *self,
                const char              *action)
{
  JsonBuilder *builder = json_builder_new_immutable ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "command_response");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, self->id);
  json_builder_set_member_name (builder, "action");
  json_builder_add_string_value (builder, action);
  return builder;
}

static gboolean
claim (ZotExtCommandInvocation *self)
{
  if (self->finished)
    {
      g_printerr ("[%s] second reply to command %s (%s) dropped\n",
                  zot_ext_extension_get_name (self->extension), self->name, self->id);
      return FALSE;
    }
  self->finished = TRUE;
  return TRUE;
}

/* Takes @builder, whose object is still open. */
static void
finish_response (ZotExtCommandInvocation *self,
                 JsonBuilder             *builder)
{
  g_autoptr(JsonBuilder) owned = builder;
  g_autoptr(JsonNode) frame = NULL;
  g_autoptr(GError) error = NULL;

  json_builder_end_object (owned);
  frame = json_builder_get_root (owned);
  if (!_zot_ext_extension_send (self->extension, frame, &error))
    {
      g_autoptr(JsonBuilder) fallback = begin_response (self, "noop");

      g_printerr ("[%s] command %s: %s\n",
                  zot_ext_extension_get_name (self->extension), self->name, error->message);
      json_builder_set_member_name (fallback, "error");
      json_builder_add_string_value (fallback, error->message);
      json_builder_end_object (fallback);
      g_clear_pointer (&frame, json_node_unref);
      frame = json_builder_get_root (fallback);
      _zot_ext_extension_send (self->extension, frame, NULL);
    }
}

static void
respond_string (ZotExtCommandInvocation *self,
                const char              *action,
                const char              *member,
                const char              *value)
{
  JsonBuilder *builder;

  if (!claim (self))
    return;

  builder = begin_response (self, action);
  if (member != NULL)
    {
      json_builder_set_member_name (builder, member);
      json_builder_add_string_value (builder, value != NULL ? value : "");
    }
  finish_response (self, builder);
}

static void
zot_ext_command_invocation_dispose (GObject *object)
{
  ZotExtCommandInvocation *self = (ZotExtCommandInvocation *)object;

  g_clear_object (&self->extension);

  G_OBJECT_CLASS (zot_ext_command_invocation_parent_class)->dispose (object);
}

static void
zot_ext_command_invocation_finalize (GObject *object)
{
  ZotExtCommandInvocation *self = (ZotExtCommandInvocation *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->args, g_free);

  G_OBJECT_CLASS (zot_ext_command_invocation_parent_class)->finalize (object);
}

static void
zot_ext_command_invocation_class_init (ZotExtCommandInvocationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_ext_command_invocation_dispose;
  object_class->finalize = zot_ext_command_invocation_finalize;
}

static void
zot_ext_command_invocation_init (ZotExtCommandInvocation *self)
{
}

ZotExtCommandInvocation *
_zot_ext_command_invocation_new (ZotExtExtension *extension,
                                 const char      *id,
                                 const char      *name,
                                 const char      *args)
{
  ZotExtCommandInvocation *self = g_object_new (ZOT_EXT_TYPE_COMMAND_INVOCATION, NULL);

  self->extension = g_object_ref (extension);
  self->id = g_strdup (id);
  self->name = g_strdup (name);
  self->args = g_strdup (args != NULL ? args : "");
  return self;
}

/**
 * zot_ext_command_invocation_get_name:
 * @self: a #ZotExtCommandInvocation
 *
 * Gets the command's name as registered.
 *
 * Returns: the command's name as registered
 */
const char *
zot_ext_command_invocation_get_name (ZotExtCommandInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self), NULL);

  return self->name;
}

/**
 * zot_ext_command_invocation_get_id:
 * @self: a #ZotExtCommandInvocation
 *
 * Gets the host's correlation id.
 *
 * Returns: the host's correlation id
 */
const char *
zot_ext_command_invocation_get_id (ZotExtCommandInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self), NULL);

  return self->id;
}

/**
 * zot_ext_command_invocation_get_args:
 * @self: a #ZotExtCommandInvocation
 *
 * Gets everything the user typed after the command name, trimmed.
 *
 * Returns: everything the user typed after the command name, trimmed
 */
const char *
zot_ext_command_invocation_get_args (ZotExtCommandInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self), NULL);

  return self->args;
}

/**
 * zot_ext_command_invocation_is_finished:
 * @self: a #ZotExtCommandInvocation
 *
 * Tells whether the command was answered.
 *
 * Returns: whether the command was answered
 */
gboolean
zot_ext_command_invocation_is_finished (ZotExtCommandInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self), TRUE);

  return self->finished;
}

/**
 * zot_ext_command_invocation_return_prompt:
 * @self: a #ZotExtCommandInvocation
 * @prompt: the user message to submit
 *
 * Submits @prompt as a user message; the agent runs a turn.
 */
void
zot_ext_command_invocation_return_prompt (ZotExtCommandInvocation *self,
                                          const char              *prompt)
{
  g_return_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self));

  respond_string (self, "prompt", "prompt", prompt);
}

/**
 * zot_ext_command_invocation_return_insert:
 * @self: a #ZotExtCommandInvocation
 * @text: what to insert
 *
 * Puts @text into the editor at the cursor without submitting it.
 */
void
zot_ext_command_invocation_return_insert (ZotExtCommandInvocation *self,
                                          const char              *text)
{
  g_return_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self));

  respond_string (self, "insert", "insert", text);
}

/**
 * zot_ext_command_invocation_return_display:
 * @self: a #ZotExtCommandInvocation
 * @text: what to show
 *
 * Shows @text as a one-shot note; no model call.
 */
void
zot_ext_command_invocation_return_display (ZotExtCommandInvocation *self,
                                           const char              *text)
{
  g_return_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self));

  respond_string (self, "display", "display", text);
}

/**
 * zot_ext_command_invocation_return_noop:
 * @self: a #ZotExtCommandInvocation
 *
 * Answers that the extension did its own thing.
 */
void
zot_ext_command_invocation_return_noop (ZotExtCommandInvocation *self)
{
  g_return_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self));

  respond_string (self, "noop", NULL, NULL);
}

/**
 * zot_ext_command_invocation_return_error:
 * @self: a #ZotExtCommandInvocation
 * @message: the error line to show
 *
 * Answers with action `noop` and an `error` the host shows as an error line.
 */
void
zot_ext_command_invocation_return_error (ZotExtCommandInvocation *self,
                                         const char              *message)
{
  g_return_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self));

  respond_string (self, "noop", "error", message);
}

/**
 * zot_ext_command_invocation_return_open_panel:
 * @self: a #ZotExtCommandInvocation
 * @panel_id: the panel's id
 * @title: its title
 * @lines: (array zero-terminated=1) (nullable): its lines (ANSI SGR allowed)
 * @footer: (nullable): its footer
 *
 * Opens a line panel. Keys arrive as [signal@ZotExt.Extension::panel-key].
 */
void
zot_ext_command_invocation_return_open_panel (ZotExtCommandInvocation *self,
                                              const char              *panel_id,
                                              const char              *title,
                                              const char * const      *lines,
                                              const char              *footer)
{
  JsonBuilder *builder;

  g_return_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self));
  g_return_if_fail (panel_id != NULL);

  if (!claim (self))
    return;

  builder = begin_response (self, "open_panel");
  json_builder_set_member_name (builder, "open_panel");
  json_builder_add_value (builder, _zot_ext_open_panel_node (panel_id, title, lines, NULL, footer));
  finish_response (self, builder);
}

/**
 * zot_ext_command_invocation_return_open_panel_widgets:
 * @self: a #ZotExtCommandInvocation
 * @panel_id: the panel's id
 * @title: its title
 * @widgets_json: the widget tree, a JSON array
 * @footer: (nullable): its footer
 * @error: return location for a #GError
 *
 * Opens a panel of native widgets. Fails without answering when the host
 * did not advertise `panel_widgets` (answer with lines then) or
 * @widgets_json is not a JSON array.
 *
 * Returns: %TRUE when the answer was sent
 */
gboolean
zot_ext_command_invocation_return_open_panel_widgets (ZotExtCommandInvocation  *self,
                                                      const char               *panel_id,
                                                      const char               *title,
                                                      const char               *widgets_json,
                                                      const char               *footer,
                                                      GError                  **error)
{
  JsonBuilder *builder;
  JsonNode *widgets;

  g_return_val_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self), FALSE);
  g_return_val_if_fail (panel_id != NULL, FALSE);
  g_return_val_if_fail (widgets_json != NULL, FALSE);

  if (!zot_ext_extension_has_host_capability (self->extension, "panel_widgets"))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED,
                   "the host does not offer panel_widgets; open a panel of lines");
      return FALSE;
    }
  widgets = _zot_ext_parse_json (widgets_json, JSON_NODE_ARRAY, "widgets", error);
  if (widgets == NULL)
    return FALSE;
  if (!claim (self))
    {
      json_node_unref (widgets);
      return TRUE;
    }

  builder = begin_response (self, "open_panel");
  json_builder_set_member_name (builder, "open_panel");
  json_builder_add_value (builder, _zot_ext_open_panel_node (panel_id, title, NULL, widgets, footer));
  finish_response (self, builder);
  return TRUE;
}

/**
 * zot_ext_command_invocation_return_tool_prompt:
 * @self: a #ZotExtCommandInvocation
 * @prompt: the user message to submit (not empty)
 * @tool_name: the tool the host runs before the model's turn (not empty)
 * @args_json: (nullable): the tool's arguments, a JSON object (%NULL for `{}`)
 * @error: return location for a #GError
 *
 * Submits @prompt and has the host run @tool_name through its normal
 * interception and confirmation path before the model's turn (interactive
 * hosts only). The handler does not see the tool's result.
 *
 * An empty prompt or tool name, or arguments that are not a JSON object,
 * fail without answering.
 *
 * Returns: %TRUE when the answer was sent
 */
gboolean
zot_ext_command_invocation_return_tool_prompt (ZotExtCommandInvocation  *self,
                                               const char               *prompt,
                                               const char               *tool_name,
                                               const char               *args_json,
                                               GError                  **error)
{
  JsonBuilder *builder;
  JsonNode *args;

  g_return_val_if_fail (ZOT_EXT_IS_COMMAND_INVOCATION (self), FALSE);

  if (prompt == NULL || *prompt == '\0' || tool_name == NULL || *tool_name == '\0')
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT,
                   "tool_prompt requires a non-empty prompt and tool name");
      return FALSE;
    }
  args = _zot_ext_parse_json (args_json != NULL ? args_json : "{}", JSON_NODE_OBJECT,
                              "tool_prompt args", error);
  if (args == NULL)
    return FALSE;
  if (!claim (self))
    {
      json_node_unref (args);
      return TRUE;
    }

  builder = begin_response (self, "tool_prompt");
  json_builder_set_member_name (builder, "prompt");
  json_builder_add_string_value (builder, prompt);
  json_builder_set_member_name (builder, "tool_name");
  json_builder_add_string_value (builder, tool_name);
  json_builder_set_member_name (builder, "tool_args");
  json_builder_add_value (builder, args);
  finish_response (self, builder);
  return TRUE;
}
