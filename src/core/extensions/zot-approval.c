#define G_LOG_DOMAIN "zot-approval"

#include "config.h"

#include <string.h>

#include "zot-approval.h"
#include "zot-limits.h"
#include "zot-message.h"

struct _ZotApproval
{
  GObject            parent_instance;

  char              *tool_id;
  char              *tool_name;
  JsonObject        *args;
  char              *preview;
  char              *detail;
  char              *origin_extension;
  gboolean           from_script;
  char              *agent_id;
  char              *agent_name;
  char              *reason;
  ZotApprovalChoice  choice;
  gboolean           resolved;
  gboolean           can_remember;
  gboolean           withdrawn;
};

enum {
  RESOLVED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_ENUM_TYPE (ZotApprovalPolicy, zot_approval_policy,
                    G_DEFINE_ENUM_VALUE (ZOT_APPROVAL_POLICY_ASK, "ask"),
                    G_DEFINE_ENUM_VALUE (ZOT_APPROVAL_POLICY_YOLO, "yolo"))

G_DEFINE_FINAL_TYPE (ZotApproval, zot_approval, G_TYPE_OBJECT)

static void
zot_approval_finalize (GObject *object)
{
  ZotApproval *self = (ZotApproval *)object;

  g_clear_pointer (&self->tool_id, g_free);
  g_clear_pointer (&self->tool_name, g_free);
  g_clear_pointer (&self->args, json_object_unref);
  g_clear_pointer (&self->preview, g_free);
  g_clear_pointer (&self->detail, g_free);
  g_clear_pointer (&self->origin_extension, g_free);
  g_clear_pointer (&self->agent_id, g_free);
  g_clear_pointer (&self->agent_name, g_free);
  g_clear_pointer (&self->reason, g_free);

  G_OBJECT_CLASS (zot_approval_parent_class)->finalize (object);
}

static void
zot_approval_class_init (ZotApprovalClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_approval_finalize;

  /**
   * ZotApproval::resolved:
   * @choice: a #ZotApprovalChoice
   */
  signals [RESOLVED] =
    g_signal_new ("resolved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_INT);
}

static void
zot_approval_init (ZotApproval *self)
{
}

/* How a character the user must not miss reads in an approval. Line
 * breaks and tabs get an arrow (↵, →): blank lines and runs of white
 * space are otherwise invisible, and a wrapped line would look like two.
 * With @keep_lines the real break (or tab) follows the arrow, so a
 * multi-line script still reads as the shell sees it in a monospace view;
 * without it the arrow alone keeps one line. Every other control
 * character, invisible format character (bidirectional overrides,
 * zero-width ones) and line or paragraph separator is written as the
 * escape a programmer knows (\x1b, \r, \u202e), not as a control
 * picture: those glyphs are tiny and many fonts lack them. Bytes that are
 * not UTF-8 read as \xNN. */
static void
append_visible (GString  *out,
                gunichar  c,
                gboolean  keep_lines)
{
  GUnicodeType type;

  if (c == '\n')
    {
      g_string_append (out, keep_lines ? "\u21B5\n" : "\u21B5");
      return;
    }
  if (c == '\t')
    {
      g_string_append (out, keep_lines ? "\u2192\t" : "\u2192");
      return;
    }
  if (c == '\r')
    {
      g_string_append (out, "\\r");
      return;
    }

  type = g_unichar_type (c);
  if (c < 0x20 || c == 0x7f)
    g_string_append_printf (out, "\\x%02x", c);
  else if (type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT ||
           type == G_UNICODE_LINE_SEPARATOR || type == G_UNICODE_PARAGRAPH_SEPARATOR)
    g_string_append_printf (out, "\\u%04x", c);
  else
    g_string_append_unichar (out, c);
}

/**
 * zot_approval_escape_text:
 * @text: what a tool call would run, as it came
 * @keep_lines: keep line breaks and tabs (after their marks) for a
 *   monospace view; without, the result is one line
 * @max_chars: at most this many characters of the result, 0 for all of
 *   it; an escape is never cut in two
 * @out_cut: (out) (optional): set to whether anything was left out
 *
 * The one way approvals show a command: the dialog, the notification and
 * the tool_confirmation_requested event all go through here, so a control
 * character, a line break or a tab is visible in each of them.
 *
 * Returns: (transfer full): the visible text
 */
char *
zot_approval_escape_text (const char *text,
                          gboolean    keep_lines,
                          guint       max_chars,
                          gboolean   *out_cut)
{
  GString *out = g_string_new (NULL);
  const char *p = text != NULL ? text : "";
  const char *end = p + strlen (p);
  guint n_chars = 0;
  gboolean cut = FALSE;

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);
      gsize mark = out->len;
      guint added;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
        }
      else
        {
          append_visible (out, c, keep_lines);
          p = g_utf8_next_char (p);
        }

      added = g_utf8_strlen (out->str + mark, -1);
      if (max_chars > 0 && n_chars + added > max_chars)
        {
          g_string_truncate (out, mark);
          cut = TRUE;
          break;
        }
      n_chars += added;
    }

  if (out_cut != NULL)
    *out_cut = cut;
  return g_string_free (out, FALSE);
}

/**
 * zot_approval_count_text:
 * @text: a command as it came
 * @out_chars: (out): its characters (a byte that is not UTF-8 counts one)
 * @out_lines: (out): its lines: one more than its line breaks
 *
 * The size an approval states, so that a user sees how much there is
 * before reading it.
 */
void
zot_approval_count_text (const char *text,
                         guint      *out_chars,
                         guint      *out_lines)
{
  const char *p = text != NULL ? text : "";
  const char *end = p + strlen (p);
  guint chars = 0;
  guint lines = 1;

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        p++;
      else
        p = g_utf8_next_char (p);
      if (c == '\n')
        lines++;
      chars++;
    }

  *out_chars = chars;
  *out_lines = lines;
}

/* What the call would do, whole: the argument a user judges it by (a
 * command, a path, …) or else all of its arguments as JSON. */
static char *
build_detail (JsonObject *args)
{
  const char *keys[] = { "command", "path", "query", "name", NULL };

  for (guint i = 0; keys[i] != NULL; i++)
    {
      JsonNode *node = args ? json_object_get_member (args, keys[i]) : NULL;

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_STRING)
        return g_strdup (json_node_get_string (node));
    }

  return args ? zot_json_object_to_string (args) : g_strdup ("{}");
}

/* A one-line summary of the call for the tool_confirmation_requested
 * event, at most ZOT_APPROVAL_PREVIEW_MAX_CHARS of the detail; a cut one
 * says so and how long the whole is, so nobody takes it for all of it. */
char *
zot_approval_build_preview (const char *tool_name,
                            JsonObject *args)
{
  g_autofree char *detail = build_detail (args);
  g_autofree char *shown = NULL;
  gboolean cut = FALSE;
  guint chars;
  guint lines;

  shown = zot_approval_escape_text (detail, FALSE, ZOT_APPROVAL_PREVIEW_MAX_CHARS, &cut);
  if (!cut)
    return g_strdup_printf ("%s: %s", tool_name, shown);

  zot_approval_count_text (detail, &chars, &lines);
  return g_strdup_printf ("%s: %s… (shortened; %u characters in all)", tool_name, shown, chars);
}

ZotApproval *
zot_approval_new (const char *tool_id,
                  const char *tool_name,
                  JsonObject *args,
                  const char          *preview,
                  const ZotCallOrigin *origin)
{
  ZotApproval *self;

  g_return_val_if_fail (tool_name != NULL, NULL);

  self = g_object_new (ZOT_TYPE_APPROVAL, NULL);
  self->tool_id = g_strdup (tool_id);
  self->tool_name = g_strdup (tool_name);
  self->args = args ? json_object_ref (args) : json_object_new ();
  self->preview = preview ? g_strdup (preview) : zot_approval_build_preview (tool_name, args);
  self->detail = build_detail (args);
  if (origin != NULL)
    {
      self->origin_extension = g_strdup (origin->extension);
      self->agent_id = g_strdup (origin->agent_id);
      self->agent_name = g_strdup (origin->agent_name);
      self->from_script = origin->script;
    }
  return self;
}

const char *
zot_approval_get_tool_id (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->tool_id;
}

const char *
zot_approval_get_tool_name (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->tool_name;
}

/**
 * zot_approval_get_args:
 *
 * Returns: (transfer none): the arguments the call would run with
 */
JsonObject *
zot_approval_get_args (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->args;
}

const char *
zot_approval_get_preview (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->preview;
}

/**
 * zot_approval_get_detail:
 *
 * Returns: what the call would do, whole and as it came (the command,
 *   the path, … or all arguments as JSON); show it through
 *   zot_approval_escape_text()
 */
const char *
zot_approval_get_detail (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->detail;
}

const char *
zot_approval_get_origin_extension (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->origin_extension;
}

/**
 * zot_approval_get_from_script:
 *
 * Returns: whether a codemode script asked for the call
 */
gboolean
zot_approval_get_from_script (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), FALSE);
  return self->from_script;
}

/**
 * zot_approval_get_agent_id:
 *
 * Returns: (nullable): the subagent that asks, if one does
 */
const char *
zot_approval_get_agent_id (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->agent_id;
}

/**
 * zot_approval_get_agent_name:
 *
 * Returns: (nullable): the label of the subagent that asks
 */
const char *
zot_approval_get_agent_name (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->agent_name;
}

gboolean
zot_approval_is_resolved (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), FALSE);
  return self->resolved;
}

ZotApprovalChoice
zot_approval_get_choice (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), ZOT_APPROVAL_DENY);
  return self->choice;
}

/**
 * zot_approval_resolve:
 *
 * Answers the question. Only the first answer counts.
 */
void
zot_approval_resolve (ZotApproval       *self,
                      ZotApprovalChoice  choice)
{
  zot_approval_resolve_with_reason (self, choice, NULL);
}

/**
 * zot_approval_resolve_with_reason:
 * @reason: (nullable): why the user denied the call, for the model; empty
 *   is none
 *
 * Answers the question, as zot_approval_resolve() does, with the user's
 * reason.
 */
void
zot_approval_resolve_with_reason (ZotApproval       *self,
                                  ZotApprovalChoice  choice,
                                  const char        *reason)
{
  g_return_if_fail (ZOT_IS_APPROVAL (self));
  g_return_if_fail (choice <= ZOT_APPROVAL_DENY);

  if (self->resolved)
    return;

  self->resolved = TRUE;
  self->choice = choice;
  if (reason != NULL && *reason != '\0')
    self->reason = g_utf8_make_valid (reason, -1);
  g_signal_emit (self, signals [RESOLVED], 0, (int) choice);
}

/**
 * zot_approval_get_reason:
 *
 * Returns: (nullable): the reason the user gave with the answer
 */
const char *
zot_approval_get_reason (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), NULL);
  return self->reason;
}

/**
 * zot_approval_set_can_remember:
 *
 * Whether "always allow this tool" would be remembered for this call;
 * the asker sets it (a destructive tool is never remembered).
 */
void
zot_approval_set_can_remember (ZotApproval *self,
                               gboolean     can_remember)
{
  g_return_if_fail (ZOT_IS_APPROVAL (self));
  self->can_remember = !!can_remember;
}

gboolean
zot_approval_get_can_remember (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), FALSE);
  return self->can_remember;
}

/**
 * zot_approval_withdraw:
 *
 * Ends an unanswered question without an answer: the call was cancelled
 * or dropped while it waited. Views showing it see ::resolved (with
 * %ZOT_APPROVAL_DENY) and zot_approval_get_withdrawn() says why.
 */
void
zot_approval_withdraw (ZotApproval *self)
{
  g_return_if_fail (ZOT_IS_APPROVAL (self));

  if (self->resolved)
    return;

  self->withdrawn = TRUE;
  self->resolved = TRUE;
  self->choice = ZOT_APPROVAL_DENY;
  g_signal_emit (self, signals [RESOLVED], 0, (int) ZOT_APPROVAL_DENY);
}

gboolean
zot_approval_get_withdrawn (ZotApproval *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (self), FALSE);
  return self->withdrawn;
}
