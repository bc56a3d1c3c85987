/* zot-reasoning-text.c — a reply's reasoning, as data.
 *
 * The time it took is measured here, from the first piece of reasoning to
 * the first piece of the answer (or the end of the reply): a reply loaded
 * from a session has none, and says so by a duration of -1.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include "zot-json.h"
#include "zot-reasoning-text.h"

struct _ZotReasoningText
{
  GObject   parent_instance;

  GString  *text;
  gint64    started_us;
  gint64    duration_ms;
  gboolean  streaming;
  gboolean  expanded;
};

enum {
  PROP_0,
  PROP_TEXT,
  PROP_STREAMING,
  PROP_EXPANDED,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotReasoningText, zot_reasoning_text, G_TYPE_OBJECT)

static void
zot_reasoning_text_finalize (GObject *object)
{
  ZotReasoningText *self = ZOT_REASONING_TEXT (object);

  g_string_free (self->text, TRUE);

  G_OBJECT_CLASS (zot_reasoning_text_parent_class)->finalize (object);
}

static void
zot_reasoning_text_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  ZotReasoningText *self = ZOT_REASONING_TEXT (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      g_value_set_string (value, self->text->str);
      break;
    case PROP_STREAMING:
      g_value_set_boolean (value, self->streaming);
      break;
    case PROP_EXPANDED:
      g_value_set_boolean (value, self->expanded);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_reasoning_text_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  ZotReasoningText *self = ZOT_REASONING_TEXT (object);

  switch (prop_id)
    {
    case PROP_EXPANDED:
      zot_reasoning_text_set_expanded (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_reasoning_text_class_init (ZotReasoningTextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = zot_reasoning_text_finalize;
  object_class->get_property = zot_reasoning_text_get_property;
  object_class->set_property = zot_reasoning_text_set_property;

  properties [PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_STREAMING] =
    g_param_spec_boolean ("streaming", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties [PROP_EXPANDED] =
    g_param_spec_boolean ("expanded", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
zot_reasoning_text_init (ZotReasoningText *self)
{
  self->text = g_string_new (NULL);
  self->duration_ms = -1;
}

ZotReasoningText *
zot_reasoning_text_new (void)
{
  return g_object_new (ZOT_TYPE_REASONING_TEXT, NULL);
}

const char *
zot_reasoning_text_get_text (ZotReasoningText *self)
{
  g_return_val_if_fail (ZOT_IS_REASONING_TEXT (self), NULL);

  return self->text->str;
}

gsize
zot_reasoning_text_get_length (ZotReasoningText *self)
{
  g_return_val_if_fail (ZOT_IS_REASONING_TEXT (self), 0);

  return self->text->len;
}

gboolean
zot_reasoning_text_get_streaming (ZotReasoningText *self)
{
  g_return_val_if_fail (ZOT_IS_REASONING_TEXT (self), FALSE);

  return self->streaming;
}

/**
 * zot_reasoning_text_get_duration_ms:
 * @self: a #ZotReasoningText
 *
 * Returns: how long the model reasoned, or -1 when that is not known
 *   (still streaming, or loaded from a session)
 */
gint64
zot_reasoning_text_get_duration_ms (ZotReasoningText *self)
{
  g_return_val_if_fail (ZOT_IS_REASONING_TEXT (self), -1);

  return self->duration_ms;
}

gboolean
zot_reasoning_text_get_expanded (ZotReasoningText *self)
{
  g_return_val_if_fail (ZOT_IS_REASONING_TEXT (self), FALSE);

  return self->expanded;
}

void
zot_reasoning_text_set_expanded (ZotReasoningText *self,
                                 gboolean          expanded)
{
  g_return_if_fail (ZOT_IS_REASONING_TEXT (self));

  expanded = !!expanded;
  if (self->expanded == expanded)
    return;

  self->expanded = expanded;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_EXPANDED]);
}

/**
 * zot_reasoning_text_append:
 * @self: a #ZotReasoningText
 * @delta: the next piece of reasoning as it streams
 *
 * The first piece starts the clock.
 */
void
zot_reasoning_text_append (ZotReasoningText *self,
                           const char       *delta)
{
  g_return_if_fail (ZOT_IS_REASONING_TEXT (self));

  if (delta == NULL || *delta == '\0')
    return;

  g_string_append (self->text, delta);
  if (!self->streaming)
    {
      self->streaming = TRUE;
      self->started_us = g_get_monotonic_time ();
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STREAMING]);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TEXT]);
}

/**
 * zot_reasoning_text_end:
 * @self: a #ZotReasoningText
 *
 * The reasoning is over (the answer began, the reply ended or was
 * stopped); stops the clock if it ran.
 */
void
zot_reasoning_text_end (ZotReasoningText *self)
{
  g_return_if_fail (ZOT_IS_REASONING_TEXT (self));

  if (!self->streaming)
    return;

  self->streaming = FALSE;
  self->duration_ms = (g_get_monotonic_time () - self->started_us) / 1000;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STREAMING]);
}

/**
 * zot_reasoning_text_set_message:
 * @self: a #ZotReasoningText
 * @message: the finished assistant message
 *
 * Ends the stream and takes the reasoning the message keeps, which is
 * what the session saved.
 */
void
zot_reasoning_text_set_message (ZotReasoningText *self,
                                JsonObject       *message)
{
  g_autofree char *text = NULL;

  g_return_if_fail (ZOT_IS_REASONING_TEXT (self));

  zot_reasoning_text_end (self);
  text = zot_reasoning_text_from_message (message);
  if (g_strcmp0 (self->text->str, text != NULL ? text : "") == 0)
    return;

  g_string_assign (self->text, text != NULL ? text : "");
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TEXT]);
}

/**
 * zot_reasoning_text_from_message:
 * @message: an assistant message, zot-message.h shape
 *
 * Returns: (transfer full) (nullable): the text of its "thinking" blocks,
 *   one paragraph each, or %NULL when it has none
 */
char *
zot_reasoning_text_from_message (JsonObject *message)
{
  JsonArray *content = zot_json_get_array (message, "content");
  GString *text = g_string_new (NULL);

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);
      const char *thinking = zot_json_get_string (block, "thinking");

      if (g_strcmp0 (zot_json_get_string (block, "type"), "thinking") != 0 ||
          thinking == NULL || *thinking == '\0')
        continue;
      if (text->len > 0)
        g_string_append (text, "\n\n");
      g_string_append (text, thinking);
    }

  return g_string_free (text, text->len == 0);
}
