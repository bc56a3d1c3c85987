/* zot-transcript-item.c — one row of the transcript, as data.
 *
 * Everything a row shows is here, so that a recycled row widget can show
 * any item after any other. The caches (Markdown, argument preview and
 * pretty print, image textures) are filled when a row first asks, not
 * when the item is made: a long conversation added at once pays only for
 * the rows that are ever shown.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-image-bounds.h"
#include "zot-message.h"
#include "zot-transcript-item.h"

/* Past this, tool output is cut: a row with megabytes of text would stall
 * the window. */
#define MAX_RESULT_CHARS  (256 * 1024)
#define MAX_PREVIEW_CHARS 80

typedef struct
{
  char       *mime_type;
  char       *data;       /* base64, freed once decoded */
  GdkTexture *texture;
  char       *note;       /* why there is no texture */
  gboolean    decoded;
} Image;

struct _ZotTranscriptItem
{
  GObject                  parent_instance;

  ZotTranscriptItemKind    kind;
  GString                 *text;
  char                    *extension_name;
  char                    *level;
  char                    *title;
  char                    *detail;
  char                    *path;            /* a load failure's extension directory */
  ZotMarkdownDocument     *document;        /* of text, made when first asked for */

  GArray                  *images;          /* Image, or NULL */

  char                    *tool_id;
  char                    *origin;
  char                    *parent_id;
  char                    *requested_by;    /* the extension that asked (call_tool) */
  char                    *waiting_panel;   /* the key of the panel the call waits in */
  char                    *waiting_title;
  char                    *progress;        /* the running call's latest progress text */
  guint                    depth;           /* calls above this one */
  JsonObject              *args;
  char                    *args_preview;
  char                    *args_pretty;
  char                    *result;
  GListStore              *children;
  ZotReasoningText        *reasoning;       /* a reply's, made when first asked for */
  ZotTranscriptToolStatus  status;

  guint                    streaming : 1;
  guint                    stopped : 1;
  guint                    is_error : 1;
  guint                    expanded : 1;
};

enum {
  PROP_0,
  PROP_KIND,
  PROP_TEXT,
  PROP_EXTENSION_NAME,
  PROP_LEVEL,
  PROP_STREAMING,
  PROP_STOPPED,
  PROP_TOOL_ID,
  PROP_TOOL_NAME,
  PROP_ORIGIN,
  PROP_PARENT_ID,
  PROP_STATUS,
  PROP_RESULT,
  PROP_EXPANDED,
  PROP_WAITING_PANEL,
  PROP_PROGRESS,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_ENUM_TYPE (ZotTranscriptItemKind, zot_transcript_item_kind,
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_USER, "user"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_ASSISTANT, "assistant"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_TOOL, "tool"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_NOTE, "note"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_ERROR, "error"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_WARNING, "warning"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_CRASH, "crash"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_INFO, "info"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_DISPLAY, "display"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE, "load-failure"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_SUMMARY, "summary"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_STARTUP, "startup"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_ITEM_RETRY, "retry"))

G_DEFINE_ENUM_TYPE (ZotTranscriptToolStatus, zot_transcript_tool_status,
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_TOOL_RUNNING, "running"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_TOOL_COMPLETED, "completed"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_TOOL_FAILED, "failed"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_TOOL_BLOCKED, "blocked"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_TOOL_CANCELLED, "cancelled"),
                    G_DEFINE_ENUM_VALUE (ZOT_TRANSCRIPT_TOOL_TIMED_OUT, "timed-out"))

G_DEFINE_FINAL_TYPE (ZotTranscriptItem, zot_transcript_item, G_TYPE_OBJECT)

static void
image_clear (Image *image)
{
  g_clear_pointer (&image->mime_type, g_free);
  g_clear_pointer (&image->data, g_free);
  g_clear_object (&image->texture);
  g_clear_pointer (&image->note, g_free);
}

static ZotTranscriptItem *
item_new (ZotTranscriptItemKind  kind,
          const char            *text)
{
  ZotTranscriptItem *self = g_object_new (ZOT_TYPE_TRANSCRIPT_ITEM, NULL);
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);

  self->kind = kind;
  g_string_assign (self->text, valid);
  return self;
}

static char *
truncate_text (const char *text,
               glong       max_chars)
{
  g_autofree char *cut = NULL;

  if (text == NULL)
    return g_strdup ("");

  if (g_utf8_strlen (text, -1) <= max_chars)
    return g_strdup (text);

  cut = g_utf8_substring (text, 0, max_chars);
  return g_strconcat (cut, "…", NULL);
}

static char *
args_preview (JsonObject *args)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *compact = NULL;
  GList *members;

  if (args == NULL)
    return g_strdup ("");

  /* One string argument (a command, a path) reads best bare. */
  members = json_object_get_members (args);
  if (members != NULL && members->next == NULL)
    {
      JsonNode *member = json_object_get_member (args, members->data);

      if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING)
        compact = g_strdup (json_node_get_string (member));
    }
  g_list_free (members);

  if (compact == NULL)
    {
      node = json_node_init_object (json_node_alloc (), args);
      compact = zot_json_to_string (node);
    }

  g_strdelimit (compact, "\n\r\t", ' ');
  return truncate_text (compact, MAX_PREVIEW_CHARS);
}

static char *
args_pretty (JsonObject *args)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) node = NULL;

  if (args == NULL)
    return g_strdup ("{}");

  node = json_node_init_object (json_node_alloc (), args);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

static ZotTranscriptToolStatus
status_from_outcome (ZotToolOutcome outcome)
{
  switch (outcome)
    {
    case ZOT_TOOL_OUTCOME_COMPLETED:
      return ZOT_TRANSCRIPT_TOOL_COMPLETED;
    case ZOT_TOOL_OUTCOME_BLOCKED:
      return ZOT_TRANSCRIPT_TOOL_BLOCKED;
    case ZOT_TOOL_OUTCOME_CANCELLED:
      return ZOT_TRANSCRIPT_TOOL_CANCELLED;
    case ZOT_TOOL_OUTCOME_TIMED_OUT:
      return ZOT_TRANSCRIPT_TOOL_TIMED_OUT;
    case ZOT_TOOL_OUTCOME_FAILED:
    default:
      return ZOT_TRANSCRIPT_TOOL_FAILED;
    }
}

static void
zot_transcript_item_finalize (GObject *object)
{
  ZotTranscriptItem *self = ZOT_TRANSCRIPT_ITEM (object);

  g_string_free (self->text, TRUE);
  g_clear_pointer (&self->extension_name, g_free);
  g_clear_pointer (&self->level, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->detail, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->document, zot_markdown_document_unref);
  g_clear_pointer (&self->images, g_array_unref);
  g_clear_pointer (&self->tool_id, g_free);
  g_clear_pointer (&self->origin, g_free);
  g_clear_pointer (&self->parent_id, g_free);
  g_clear_pointer (&self->args, json_object_unref);
  g_clear_pointer (&self->args_preview, g_free);
  g_clear_pointer (&self->args_pretty, g_free);
  g_clear_pointer (&self->result, g_free);
  g_clear_object (&self->children);
  g_clear_object (&self->reasoning);

  G_OBJECT_CLASS (zot_transcript_item_parent_class)->finalize (object);
}

static void
zot_transcript_item_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  ZotTranscriptItem *self = ZOT_TRANSCRIPT_ITEM (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text->str);
      break;
    case PROP_EXTENSION_NAME:
      g_value_set_string (value, self->extension_name);
      break;
    case PROP_LEVEL:
      g_value_set_string (value, self->level);
      break;
    case PROP_STREAMING:
      g_value_set_boolean (value, self->streaming);
      break;
    case PROP_STOPPED:
      g_value_set_boolean (value, self->stopped);
      break;
    case PROP_TOOL_ID:
      g_value_set_string (value, self->tool_id);
      break;
    case PROP_TOOL_NAME:
      g_value_set_string (value, self->title);
      break;
    case PROP_ORIGIN:
      g_value_set_string (value, self->origin);
      break;
    case PROP_PARENT_ID:
      g_value_set_string (value, self->parent_id);
      break;
    case PROP_STATUS:
      g_value_set_enum (value, self->status);
      break;
    case PROP_RESULT:
      g_value_set_string (value, self->result);
      break;
    case PROP_EXPANDED:
      g_value_set_boolean (value, self->expanded);
      break;
    case PROP_WAITING_PANEL:
      g_value_set_string (value, self->waiting_panel);
      break;
    case PROP_PROGRESS:
      g_value_set_string (value, self->progress);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_item_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  ZotTranscriptItem *self = ZOT_TRANSCRIPT_ITEM (object);

  switch (prop_id)
    {
    case PROP_EXPANDED:
      zot_transcript_item_set_expanded (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_item_class_init (ZotTranscriptItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = zot_transcript_item_finalize;
  object_class->get_property = zot_transcript_item_get_property;
  object_class->set_property = zot_transcript_item_set_property;

  properties [PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, ZOT_TYPE_TRANSCRIPT_ITEM_KIND, ZOT_TRANSCRIPT_ITEM_NOTE, flags);
  /**
   * ZotTranscriptItem:text:
   *
   * The row's text: a message (Markdown for a reply), a note, host output.
   * A streaming reply notifies once per delta; the text only grows then.
   */
  properties [PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, "", flags);
  properties [PROP_EXTENSION_NAME] = g_param_spec_string ("extension-name", NULL, NULL, NULL, flags);
  properties [PROP_LEVEL] = g_param_spec_string ("level", NULL, NULL, NULL, flags);
  properties [PROP_STREAMING] = g_param_spec_boolean ("streaming", NULL, NULL, FALSE, flags);
  properties [PROP_STOPPED] = g_param_spec_boolean ("stopped", NULL, NULL, FALSE, flags);
  properties [PROP_TOOL_ID] = g_param_spec_string ("tool-id", NULL, NULL, NULL, flags);
  properties [PROP_TOOL_NAME] = g_param_spec_string ("tool-name", NULL, NULL, NULL, flags);
  properties [PROP_ORIGIN] = g_param_spec_string ("origin", NULL, NULL, NULL, flags);
  properties [PROP_PARENT_ID] = g_param_spec_string ("parent-id", NULL, NULL, NULL, flags);
  properties [PROP_STATUS] =
    g_param_spec_enum ("status", NULL, NULL, ZOT_TYPE_TRANSCRIPT_TOOL_STATUS, ZOT_TRANSCRIPT_TOOL_RUNNING, flags);
  properties [PROP_RESULT] = g_param_spec_string ("result", NULL, NULL, NULL, flags);
  /**
   * ZotTranscriptItem:waiting-panel:
   *
   * The key (zot_panel_get_key()) of the panel an interactive tool call
   * waits for the user in, while it runs.
   */
  properties [PROP_WAITING_PANEL] = g_param_spec_string ("waiting-panel", NULL, NULL, NULL, flags);
  /* The latest progress line of a running tool call (bash's output, an
   * extension's `tool_progress`), shown as its status. */
  properties [PROP_PROGRESS] = g_param_spec_string ("progress", NULL, NULL, NULL, flags);
  /**
   * ZotTranscriptItem:expanded:
   *
   * Whether a tool call's details are open. Kept with the item, not the
   * row, so that it survives the row being recycled.
   */
  properties [PROP_EXPANDED] =
    g_param_spec_boolean ("expanded", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
zot_transcript_item_init (ZotTranscriptItem *self)
{
  self->text = g_string_new (NULL);
}

/* Constructors */

/**
 * zot_transcript_item_new_user:
 * @text: what the user wrote
 * @content: (nullable): the message's content blocks, for its images
 *
 * Returns: (transfer full): a user message
 */
ZotTranscriptItem *
zot_transcript_item_new_user (const char *text,
                              JsonArray  *content)
{
  ZotTranscriptItem *self = item_new (ZOT_TRANSCRIPT_ITEM_USER, text);

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block;
      Image image = { 0 };

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      block = json_node_get_object (node);
      if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", ""), "image") != 0)
        continue;

      if (self->images == NULL)
        {
          self->images = g_array_new (FALSE, TRUE, sizeof (Image));
          g_array_set_clear_func (self->images, (GDestroyNotify) image_clear);
        }
      image.mime_type = g_strdup (json_object_get_string_member_with_default (block, "mime_type", "?"));
      image.data = g_strdup (json_object_get_string_member_with_default (block, "data", ""));
      g_array_append_val (self->images, image);
    }

  return self;
}

/**
 * zot_transcript_item_new_assistant:
 *
 * Returns: (transfer full): a reply that is streaming, still empty
 */
ZotTranscriptItem *
zot_transcript_item_new_assistant (void)
{
  ZotTranscriptItem *self = item_new (ZOT_TRANSCRIPT_ITEM_ASSISTANT, NULL);

  self->streaming = TRUE;
  return self;
}

/**
 * zot_transcript_item_new_tool:
 * @id: (nullable): the call id
 * @name: (nullable): the tool
 * @args: (nullable): its arguments
 * @origin: (nullable): the extension or subagent that provides the tool
 * @parent_id: (nullable): the call this one runs under, for nested calls
 *
 * Returns: (transfer full): a running tool call
 */
ZotTranscriptItem *
zot_transcript_item_new_tool (const char *id,
                              const char *name,
                              JsonObject *args,
                              const char *origin,
                              const char *parent_id)
{
  ZotTranscriptItem *self = item_new (ZOT_TRANSCRIPT_ITEM_TOOL, NULL);

  self->tool_id = g_strdup (id);
  self->title = g_utf8_make_valid (name ? name : "", -1);
  self->origin = origin != NULL && *origin != '\0' ? g_strdup (origin) : NULL;
  self->parent_id = g_strdup (parent_id);
  self->args = args != NULL ? json_object_ref (args) : NULL;
  self->status = ZOT_TRANSCRIPT_TOOL_RUNNING;
  return self;
}

/**
 * zot_transcript_item_new_note:
 * @kind: %ZOT_TRANSCRIPT_ITEM_NOTE, _ERROR, _WARNING or _CRASH
 * @extension_name: (nullable): who it came from
 * @level: (nullable): "info", "success", "warn" or "error"; anything else
 *   is "info"; %NULL takes the kind's
 * @text: the note
 *
 * Returns: (transfer full): a note
 */
ZotTranscriptItem *
zot_transcript_item_new_note (ZotTranscriptItemKind  kind,
                              const char            *extension_name,
                              const char            *level,
                              const char            *text)
{
  ZotTranscriptItem *self = item_new (kind, text);
  const char *normal = "info";

  if (level == NULL)
    level = kind == ZOT_TRANSCRIPT_ITEM_WARNING ? "warn" :
            kind == ZOT_TRANSCRIPT_ITEM_ERROR || kind == ZOT_TRANSCRIPT_ITEM_CRASH ? "error" : "info";

  if (g_str_equal (level, "success"))
    normal = "success";
  else if (g_str_equal (level, "warn") || g_str_equal (level, "warning"))
    normal = "warn";
  else if (g_str_equal (level, "error"))
    normal = "error";

  self->level = g_strdup (normal);
  self->extension_name = extension_name != NULL && *extension_name != '\0' ? g_strdup (extension_name) : NULL;
  return self;
}

/**
 * zot_transcript_item_new_retry:
 * @text: what the wait is for, and how long
 *
 * Returns: (transfer full): a warning that streams while the wait lasts;
 *   zot_transcript_item_finish() ends it
 */
ZotTranscriptItem *
zot_transcript_item_new_retry (const char *text)
{
  ZotTranscriptItem *self = zot_transcript_item_new_note (ZOT_TRANSCRIPT_ITEM_RETRY, NULL, "warn", text);

  self->streaming = TRUE;
  return self;
}

/**
 * zot_transcript_item_new_text:
 * @kind: %ZOT_TRANSCRIPT_ITEM_INFO, _DISPLAY, _SUMMARY or _STARTUP
 * @extension_name: (nullable): who it came from
 * @text: the text
 *
 * Returns: (transfer full): a row of text
 */
ZotTranscriptItem *
zot_transcript_item_new_text (ZotTranscriptItemKind  kind,
                              const char            *extension_name,
                              const char            *text)
{
  ZotTranscriptItem *self = item_new (kind, text);

  self->extension_name = extension_name != NULL && *extension_name != '\0' ? g_strdup (extension_name) : NULL;
  return self;
}

/**
 * zot_transcript_item_new_load_failure:
 * @path: (nullable): the extension's directory
 * @message: (nullable): what went wrong
 * @log_path: (nullable): its log file
 *
 * Returns: (transfer full): a load failure
 */
ZotTranscriptItem *
zot_transcript_item_new_load_failure (const char *path,
                                      const char *message,
                                      const char *log_path)
{
  ZotTranscriptItem *self = item_new (ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE, message);

  self->path = g_strdup (path);
  /* Translators: %s is the extension's directory */
  self->title = g_strdup_printf (_("Could not load the extension in %s"), path ? path : "?");
  if (log_path != NULL && *log_path != '\0')
    /* Translators: %s is the path of a log file */
    self->detail = g_strdup_printf (_("Log: %s"), log_path);
  return self;
}

/* Every row */

ZotTranscriptItemKind
zot_transcript_item_get_kind (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), ZOT_TRANSCRIPT_ITEM_NOTE);

  return self->kind;
}

const char *
zot_transcript_item_get_text (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->text->str;
}

/**
 * zot_transcript_item_get_text_length:
 * @self: a #ZotTranscriptItem
 *
 * Returns: the length of the text in bytes: while it streams, a row that
 *   has shown this much needs only what comes after it
 */
gsize
zot_transcript_item_get_text_length (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), 0);

  return self->text->len;
}

/**
 * zot_transcript_item_set_text:
 * @self: a #ZotTranscriptItem
 * @text: (nullable): the new text; invalid UTF-8 is repaired
 */
void
zot_transcript_item_set_text (ZotTranscriptItem *self,
                              const char        *text)
{
  g_autofree char *valid = NULL;

  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  valid = g_utf8_make_valid (text ? text : "", -1);
  if (g_str_equal (valid, self->text->str))
    return;

  g_string_assign (self->text, valid);
  g_clear_pointer (&self->document, zot_markdown_document_unref);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TEXT]);
}

/**
 * zot_transcript_item_append_text:
 * @self: a #ZotTranscriptItem
 * @delta: (nullable): text streamed in; invalid UTF-8 is repaired
 */
void
zot_transcript_item_append_text (ZotTranscriptItem *self,
                                 const char        *delta)
{
  g_autofree char *valid = NULL;

  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  if (delta == NULL || *delta == '\0')
    return;

  /* The answer began: the reasoning before it is over. */
  if (self->reasoning != NULL)
    zot_reasoning_text_end (self->reasoning);
  valid = g_utf8_make_valid (delta, -1);
  g_string_append (self->text, valid);
  g_clear_pointer (&self->document, zot_markdown_document_unref);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_TEXT]);
}

const char *
zot_transcript_item_get_extension_name (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->extension_name;
}

/**
 * zot_transcript_item_get_level:
 * @self: a #ZotTranscriptItem
 *
 * Returns: (nullable): a note's level: "info", "success", "warn" or "error"
 */
const char *
zot_transcript_item_get_level (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->level;
}

/**
 * zot_transcript_item_get_title:
 * @self: a #ZotTranscriptItem
 *
 * Returns: (nullable): a load failure's heading, a tool call's name
 */
const char *
zot_transcript_item_get_title (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->title;
}

/**
 * zot_transcript_item_get_detail:
 * @self: a #ZotTranscriptItem
 *
 * Returns: (nullable): a load failure's log line
 */
const char *
zot_transcript_item_get_detail (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->detail;
}

/**
 * zot_transcript_item_get_path:
 * @self: a #ZotTranscriptItem
 *
 * Returns: (nullable): a load failure's extension directory
 */
const char *
zot_transcript_item_get_path (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->path;
}

/**
 * zot_transcript_item_get_document:
 * @self: a #ZotTranscriptItem
 *
 * The text walked as Markdown, once: the same document is returned until
 * the text changes.
 *
 * Returns: (transfer none): the document
 */
ZotMarkdownDocument *
zot_transcript_item_get_document (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  if (self->document == NULL)
    self->document = zot_markdown_document_new (self->text->str);

  return self->document;
}

/* Replies */

gboolean
zot_transcript_item_get_streaming (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), FALSE);

  return self->streaming;
}

gboolean
zot_transcript_item_get_stopped (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), FALSE);

  return self->stopped;
}

/**
 * zot_transcript_item_finish:
 * @self: a #ZotTranscriptItem
 * @text: the whole reply, as Markdown
 *
 * Ends streaming: the row shows @text rendered.
 */
void
zot_transcript_item_finish (ZotTranscriptItem *self,
                            const char        *text)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  g_object_freeze_notify (G_OBJECT (self));
  zot_transcript_item_set_text (self, text);
  if (self->streaming)
    {
      self->streaming = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STREAMING]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * zot_transcript_item_stop:
 * @self: a #ZotTranscriptItem
 *
 * Ends streaming of a reply that was aborted: what arrived stays, marked.
 */
void
zot_transcript_item_stop (ZotTranscriptItem *self)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  if (self->stopped)
    return;

  if (self->reasoning != NULL)
    zot_reasoning_text_end (self->reasoning);
  g_object_freeze_notify (G_OBJECT (self));
  self->stopped = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STOPPED]);
  if (self->streaming)
    {
      self->streaming = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STREAMING]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

/* Images */

guint
zot_transcript_item_get_n_images (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), 0);

  return self->images != NULL ? self->images->len : 0;
}

const char *
zot_transcript_item_get_image_mime_type (ZotTranscriptItem *self,
                                         guint              index)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  g_return_val_if_fail (index < zot_transcript_item_get_n_images (self), NULL);

  return g_array_index (self->images, Image, index).mime_type;
}

/**
 * zot_transcript_item_get_image_texture:
 * @self: a #ZotTranscriptItem
 * @index: which image
 *
 * Decodes the image the first time it is asked for.
 *
 * Returns: (transfer none) (nullable): the image, or %NULL when GTK
 *   cannot decode it
 */
GdkTexture *
zot_transcript_item_get_image_texture (ZotTranscriptItem *self,
                                       guint              index)
{
  Image *image;

  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  g_return_val_if_fail (index < zot_transcript_item_get_n_images (self), NULL);

  image = &g_array_index (self->images, Image, index);
  if (!image->decoded)
    {
      gsize size = 0;
      guchar *decoded = g_base64_decode (image->data, &size);

      if (size > 0)
        {
          g_autoptr(GBytes) bytes = g_bytes_new_take (decoded, size);
          g_autoptr(GError) error = NULL;

          image->texture = zot_image_texture_new (bytes, &error);
          if (image->texture == NULL)
            image->note = g_strdup (error->message);
        }
      else
        g_free (decoded);

      image->decoded = TRUE;
      g_clear_pointer (&image->data, g_free);
    }

  return image->texture;
}

/**
 * zot_transcript_item_get_image_note:
 * @self: a #ZotTranscriptItem
 * @index: which image
 *
 * Returns: (nullable): why the image is not shown (too large, not an
 *   image), once zot_transcript_item_get_image_texture() gave %NULL
 */
const char *
zot_transcript_item_get_image_note (ZotTranscriptItem *self,
                                    guint              index)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  g_return_val_if_fail (index < zot_transcript_item_get_n_images (self), NULL);

  return g_array_index (self->images, Image, index).note;
}

/* Tool calls */

const char *
zot_transcript_item_get_tool_id (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->tool_id;
}

const char *
zot_transcript_item_get_tool_name (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->kind == ZOT_TRANSCRIPT_ITEM_TOOL ? self->title : NULL;
}

/**
 * zot_transcript_item_get_origin:
 * @self: a #ZotTranscriptItem
 *
 * Returns: (nullable): the extension or subagent a tool came from; %NULL
 *   for a built-in
 */
const char *
zot_transcript_item_get_origin (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->origin;
}

const char *
zot_transcript_item_get_parent_id (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->parent_id;
}

/**
 * zot_transcript_item_get_children:
 * @self: a #ZotTranscriptItem
 *
 * The calls made under this one (a subagent's), for a view that nests
 * them: a #GListStore of #ZotTranscriptItem.
 *
 * Returns: (transfer none): the nested calls
 */
GListModel *
zot_transcript_item_get_children (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  if (self->children == NULL)
    self->children = g_list_store_new (ZOT_TYPE_TRANSCRIPT_ITEM);

  return G_LIST_MODEL (self->children);
}

/**
 * zot_transcript_item_get_args_preview:
 * @self: a #ZotTranscriptItem
 *
 * Returns: the arguments on one short line
 */
const char *
zot_transcript_item_get_args_preview (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  if (self->args_preview == NULL)
    self->args_preview = args_preview (self->args);

  return self->args_preview;
}

/**
 * zot_transcript_item_get_args_pretty:
 * @self: a #ZotTranscriptItem
 *
 * Returns: the arguments as indented JSON
 */
const char *
zot_transcript_item_get_args_pretty (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  if (self->args_pretty == NULL)
    self->args_pretty = args_pretty (self->args);

  return self->args_pretty;
}

/* Returns: (nullable): a tool call's arguments, as the model sent them */
JsonObject *
zot_transcript_item_get_args (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  return self->args;
}

ZotTranscriptToolStatus
zot_transcript_item_get_status (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), ZOT_TRANSCRIPT_TOOL_RUNNING);

  return self->status;
}

gboolean
zot_transcript_item_get_is_error (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), FALSE);

  return self->is_error;
}

/**
 * zot_transcript_item_get_result:
 * @self: a #ZotTranscriptItem
 *
 * Returns: (nullable): the tool's output as text, shortened when very
 *   long; %NULL while it runs
 */
const char *
zot_transcript_item_get_result (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  return self->result;
}

/**
 * zot_transcript_item_set_result:
 * @self: a #ZotTranscriptItem
 * @result: what the tool returned
 */
void
zot_transcript_item_set_result (ZotTranscriptItem *self,
                                ZotToolResult     *result)
{
  g_autofree char *text = NULL;
  g_autofree char *valid = NULL;

  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));
  g_return_if_fail (result != NULL);

  text = zot_content_get_text (result->content);
  valid = g_utf8_make_valid (text ? text : "", -1);

  g_free (self->result);
  if (g_utf8_strlen (valid, -1) > MAX_RESULT_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (valid, 0, MAX_RESULT_CHARS);

      self->result = g_strdup_printf ("%s\n%s", cut, _("… (output shortened)"));
    }
  else
    self->result = g_steal_pointer (&valid);

  self->status = status_from_outcome (result->outcome);
  self->is_error = !!result->is_error;

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_RESULT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STATUS]);
  g_object_thaw_notify (G_OBJECT (self));
}

/* Returns: (transfer none): the reasoning of a reply, empty when it has none */
ZotReasoningText *
zot_transcript_item_get_reasoning (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);

  if (self->reasoning == NULL)
    self->reasoning = zot_reasoning_text_new ();
  return self->reasoning;
}

gboolean
zot_transcript_item_get_expanded (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), FALSE);

  return self->expanded;
}

void
zot_transcript_item_set_expanded (ZotTranscriptItem *self,
                                  gboolean           expanded)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  expanded = !!expanded;
  if (self->expanded == expanded)
    return;

  self->expanded = expanded;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_EXPANDED]);
}

/**
 * zot_transcript_item_set_requested_by:
 * @extension: the extension that asked for this call (call_tool)
 * @depth: how many calls are above it: 0 for one asked outside any call
 *
 * Makes a tool item a call an extension asked for, before it is shown.
 */
void
zot_transcript_item_set_requested_by (ZotTranscriptItem *self,
                                      const char        *extension,
                                      guint              depth)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));
  g_return_if_fail (self->kind == ZOT_TRANSCRIPT_ITEM_TOOL);

  g_free (self->requested_by);
  g_free (self->waiting_panel);
  g_free (self->waiting_title);
  g_free (self->progress);
  self->requested_by = g_utf8_make_valid (extension, -1);
  self->depth = depth;
}

/**
 * zot_transcript_item_get_requested_by:
 *
 * Returns: (nullable): the extension that asked for the call, when it was
 *   not the model
 */
const char *
zot_transcript_item_get_requested_by (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  return self->requested_by;
}

guint
zot_transcript_item_get_depth (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), 0);
  return self->depth;
}

void
zot_transcript_item_add_child (ZotTranscriptItem *self,
                               ZotTranscriptItem *child)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (child));

  g_list_store_append (G_LIST_STORE (zot_transcript_item_get_children (self)), child);
}

/**
 * zot_transcript_item_set_waiting_panel:
 * @key: (nullable): the panel's key, %NULL when the call no longer waits
 * @title: (nullable): its title, for the row
 */
void
zot_transcript_item_set_waiting_panel (ZotTranscriptItem *self,
                                       const char        *key,
                                       const char        *title)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  if (g_strcmp0 (self->waiting_panel, key) == 0 && g_strcmp0 (self->waiting_title, title) == 0)
    return;

  g_free (self->waiting_panel);
  g_free (self->waiting_title);
  self->waiting_panel = g_strdup (key);
  self->waiting_title = title != NULL ? g_utf8_make_valid (title, -1) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_WAITING_PANEL]);
}

const char *
zot_transcript_item_get_waiting_panel (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  return self->waiting_panel;
}

const char *
zot_transcript_item_get_waiting_title (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  return self->waiting_title;
}

void
zot_transcript_item_set_progress (ZotTranscriptItem *self,
                                  const char        *text)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self));

  if (g_strcmp0 (self->progress, text) == 0)
    return;
  g_free (self->progress);
  self->progress = g_strdup (text);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_PROGRESS]);
}

const char *
zot_transcript_item_get_progress (ZotTranscriptItem *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (self), NULL);
  return self->progress;
}
