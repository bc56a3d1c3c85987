/* zot-manager-submit.c — `submit` and `submit_slash`: an extension asks
 * for a prompt, or for an extension command, as if the user typed it
 * (PROTOCOL.md §5a).
 *
 * The manager checks the frame and asks the views through
 * ::submit-requested and ::submit-slash-requested; whether a mode takes
 * them is the view's decision (the window takes both, RPC only commands,
 * print and JSON neither). What nobody takes is logged and ignored. At
 * most one `submit` or `submit_slash` per extension is pending: the view
 * that took it calls zot_extension_manager_submit_done() once a prompt's
 * message is in the conversation (or will never be), or once a command
 * is over, with the model run its `prompt` answer started, if any.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include "zot-extension-manager-private.h"
#include "zot-json.h"
#include "zot-names.h"

/* The frame's "text" when it is a non-empty string; otherwise logged. */
static const char *
frame_text (ZotExtension *extension,
            JsonObject   *frame)
{
  const char *type = json_object_get_string_member (frame, "type");
  const char *text = zot_json_get_string (frame, "text");

  if (text == NULL || *text == '\0')
    {
      zot_extension_log (extension, "%s without a non-empty string \"text\", ignored", type);
      return NULL;
    }

  return text;
}

void
_zot_manager_submit_frame (ZotExtensionManager *self,
                           ZotExtension        *extension,
                           JsonObject          *frame)
{
  const char *name = zot_extension_get_name (extension);
  const char *text = frame_text (extension, frame);
  gboolean taken = FALSE;

  if (text == NULL)
    return;

  /* An extension must not be able to flood the model with prompts. */
  if (g_hash_table_contains (self->pending_submits, name))
    {
      zot_extension_log (extension, "submit refused: the prompt or command it submitted before is "
                         "not done yet (one at a time)");
      return;
    }

  /* Pending before the view takes it: a prompt that starts at once is
   * done before the signal returns. */
  g_hash_table_add (self->pending_submits, g_strdup (name));
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_SUBMIT_REQUESTED], 0, extension, text, &taken);
  if (!taken)
    {
      g_hash_table_remove (self->pending_submits, name);
      zot_extension_log (extension, "submit ignored: this mode takes no prompts from extensions "
                         "(only the window does)");
    }
}

void
_zot_manager_submit_slash_frame (ZotExtensionManager *self,
                                 ZotExtension        *extension,
                                 JsonObject          *frame)
{
  const char *text = frame_text (extension, frame);
  g_autofree char *name = NULL;
  g_autofree char *args = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *line = NULL;
  const char *canonical = NULL;
  gboolean taken = FALSE;

  if (text == NULL)
    return;

  if (text[0] != '/' || !zot_split_slash_command (text, &name, &args))
    {
      zot_extension_log (extension, "submit_slash: \"text\" must start with \"/\" and a command "
                         "name, ignored");
      return;
    }

  shown = zot_name_excerpt (name);

  /* An extension must not change the approval policy or the conversation. */
  if (zot_extension_manager_is_builtin_command (name))
    {
      zot_extension_log (extension, "submit_slash /%s refused: built-in commands are the user's", shown);
      return;
    }

  if (zot_extension_manager_lookup_command (self, name, &canonical) == NULL)
    {
      zot_extension_log (extension, "submit_slash /%s ignored: no extension command of that name", shown);
      return;
    }

  /* A command may answer with a prompt: counted like `submit`, or a
   * burst of them would start as many model runs. */
  if (g_hash_table_contains (self->pending_submits, zot_extension_get_name (extension)))
    {
      zot_extension_log (extension, "submit_slash /%s refused: the prompt or command it submitted "
                         "before is not done yet (one at a time)", shown);
      return;
    }

  line = *args != '\0' ? g_strdup_printf ("/%s %s", canonical, args) : g_strdup_printf ("/%s", canonical);
  /* Pending before the view takes it, as for `submit`. */
  g_hash_table_add (self->pending_submits, g_strdup (zot_extension_get_name (extension)));
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_SUBMIT_SLASH_REQUESTED], 0,
                 extension, line, &taken);
  if (!taken)
    {
      g_hash_table_remove (self->pending_submits, zot_extension_get_name (extension));
      zot_extension_log (extension, "submit_slash /%s ignored: this mode runs no commands for "
                         "extensions (the window and RPC do)", shown);
    }
}

/**
 * zot_extension_manager_submit_done:
 * @extension_name: the name of the extension whose `submit` or
 *   `submit_slash` a view took
 *
 * Says that the prompt of @extension's pending `submit` is in the
 * conversation, or never will be (aborted, failed before it started), or
 * that the command of its pending `submit_slash` is over, with the model
 * run its answer started: its next `submit` or `submit_slash` is taken
 * again.
 */
void
zot_extension_manager_submit_done (ZotExtensionManager *self,
                                   const char          *extension_name)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (extension_name != NULL);

  g_hash_table_remove (self->pending_submits, extension_name);
}
