#define G_LOG_DOMAIN "zot-approval"

#include "config.h"

#include "zot-approval.h"
#include "zot-message.h"

#define PREVIEW_MAX_CHARS 200

struct _ZotApproval
{
  GObject            parent_instance;

  char              *tool_id;
  char              *tool_name;
  JsonObject        *args;
  char              *preview;
  char              *origin_extension;
  gboolean           from_script;
  char              *agent_id;
  char              *agent_name;
  ZotApprovalChoice  choice;
  gboolean           resolved;
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
  g_clear_pointer (&self->origin_extension, g_free);
  g_clear_pointer (&self->agent_id, g_free);
  g_clear_pointer (&self->agent_name, g_free);

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

/* A short, one-line summary of the call for the confirmation dialog and
 * the tool_confirmation_requested event. */
char *
zot_approval_build_preview (const char *tool_name,
                            JsonObject *args)
{
  const char *keys[] = { "command", "path", "query", "name", NULL };
  g_autofree char *detail = NULL;
  g_autofree char *flat = NULL;

  for (guint i = 0; keys[i] != NULL && detail == NULL; i++)
    {
      JsonNode *node = args ? json_object_get_member (args, keys[i]) : NULL;

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_STRING)
        detail = g_strdup (json_node_get_string (node));
    }

  if (detail == NULL)
    detail = args ? zot_json_object_to_string (args) : g_strdup ("{}");

  flat = g_strdelimit (g_strdup (detail), "\n\r\t", ' ');
  if (g_utf8_strlen (flat, -1) > PREVIEW_MAX_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (flat, 0, PREVIEW_MAX_CHARS);
      return g_strdup_printf ("%s: %s…", tool_name, cut);
    }

  return g_strdup_printf ("%s: %s", tool_name, flat);
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
  g_return_if_fail (ZOT_IS_APPROVAL (self));
  g_return_if_fail (choice <= ZOT_APPROVAL_DENY);

  if (self->resolved)
    return;

  self->resolved = TRUE;
  self->choice = choice;
  g_signal_emit (self, signals [RESOLVED], 0, (int) choice);
}
