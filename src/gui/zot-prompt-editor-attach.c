/* zot-prompt-editor-attach.c — images, and texts such as an MCP
 * resource's, attached to the next message, shown as chips above the
 * text. */
#define G_LOG_DOMAIN "zot-prompt-editor"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-image-bounds.h"
#include "zot-message.h"
#include "zot-prompt-editor-private.h"
#include "zot-tooltip.h"

typedef struct
{
  ZotPromptEditor *self;
  GFile           *file;
  char            *name;
} Attach;

static void
attach_free (Attach *attach)
{
  g_clear_object (&attach->self);
  g_clear_object (&attach->file);
  g_free (attach->name);
  g_free (attach);
}

static void
update_attachments (ZotPromptEditor *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->attachments), zot_prompt_editor_get_n_images (self) > 0);
}

static void
on_remove_attachment_clicked_cb (GtkButton *button,
                                 GtkWidget *chip)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (gtk_widget_get_ancestor (chip, ZOT_TYPE_PROMPT_EDITOR));

  gtk_flow_box_remove (self->attachments, gtk_widget_get_parent (chip));
  update_attachments (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

/* A thumbnail, the name and a remove button; the chip keeps the block. */
static void
add_chip (ZotPromptEditor *self,
          JsonObject      *block,
          GBytes          *bytes,
          const char      *name)
{
  g_autoptr(GdkTexture) texture = bytes != NULL ? zot_image_texture_new (bytes, NULL) : NULL;
  GtkWidget *chip = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *thumbnail;
  GtkWidget *label = gtk_label_new (name);
  GtkWidget *remove = gtk_button_new_from_icon_name ("window-close-symbolic");
  /* Translators: the name screen readers give the button that removes an attached image; %s is
   * the image's name */
  g_autofree char *remove_label = g_strdup_printf (_("Remove %s"), name);

  /* GTK may not decode every format a provider takes (WebP): an icon then. */
  if (texture != NULL)
    {
      thumbnail = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
      gtk_picture_set_content_fit (GTK_PICTURE (thumbnail), GTK_CONTENT_FIT_COVER);
    }
  else if (bytes == NULL)
    thumbnail = gtk_image_new_from_icon_name ("text-x-generic-symbolic");
  else
    thumbnail = gtk_image_new_from_icon_name ("image-x-generic-symbolic");
  gtk_widget_set_size_request (thumbnail, 32, 32);
  gtk_widget_add_css_class (thumbnail, "attachment-thumbnail");

  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 24);

  zot_tooltip_set (remove, remove_label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_add_css_class (remove, "circular");
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_attachment_clicked_cb), chip);

  gtk_widget_add_css_class (chip, "attachment");
  gtk_widget_set_halign (chip, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (chip), thumbnail);
  gtk_box_append (GTK_BOX (chip), label);
  gtk_box_append (GTK_BOX (chip), remove);
  /* The chip is a plain box, one per attachment; the block it shows stays
   * on it so that sending reads the blocks off the chips in their order,
   * with no second list to keep in step when one is removed. */
  g_object_set_data_full (G_OBJECT (chip), "zot-image-block", json_object_ref (block),
                          (GDestroyNotify) json_object_unref);

  gtk_flow_box_append (self->attachments, chip);
  update_attachments (self);
}

static gboolean
attach_bytes (ZotPromptEditor *self,
              GBytes          *bytes,
              const char      *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) block = zot_image_block_new (bytes, name, &error);

  if (block == NULL)
    {
      _zot_prompt_editor_attach_failed (self, error->message);
      return FALSE;
    }

  add_chip (self, block, bytes, name);
  return TRUE;
}

static void
attach_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Attach *attach = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_file_load_bytes_finish (G_FILE (object), result, NULL, &error);

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      attach->self->n_loading--;
      if (bytes == NULL)
        {
          /* Translators: %s is the name of an attached image, then the system's error message */
          g_autofree char *message = g_strdup_printf (_("%s could not be read: %s"), attach->name, error->message);

          _zot_prompt_editor_attach_failed (attach->self, message);
        }
      else
        attach_bytes (attach->self, bytes, attach->name);
    }

  attach_free (attach);
}

static void
attach_info_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Attach *attach = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      attach_free (attach);
      return;
    }

  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_autofree char *message = info == NULL
        /* Translators: %s is the name of an attached image, then the system's error message */
        ? g_strdup_printf (_("%s could not be read: %s"), attach->name, error->message)
        /* Translators: %s is the name of an attached file */
        : g_strdup_printf (_("%s is not a file"), attach->name);

      attach->self->n_loading--;
      _zot_prompt_editor_attach_failed (attach->self, message);
      attach_free (attach);
      return;
    }

  /* Refused before reading: a huge file never enters memory. */
  if (!zot_image_check_size (g_file_info_get_size (info), attach->name, &error))
    {
      attach->self->n_loading--;
      _zot_prompt_editor_attach_failed (attach->self, error->message);
      attach_free (attach);
      return;
    }

  g_file_load_bytes_async (attach->file, attach->self->cancellable, attach_loaded_cb, attach);
}

/**
 * zot_prompt_editor_attach_file:
 * @file: an image file
 *
 * Reads @file in the background and shows it above the text, to go with
 * the next message; ::attach-failed says why when it is not a PNG, JPEG,
 * GIF or WebP image of at most %ZOT_READ_IMAGE_MAX_BYTES.
 */
void
zot_prompt_editor_attach_file (ZotPromptEditor *self,
                               GFile           *file)
{
  Attach *attach;

  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));
  g_return_if_fail (G_IS_FILE (file));

  attach = g_new0 (Attach, 1);
  attach->self = g_object_ref (self);
  attach->file = g_object_ref (file);
  attach->name = g_file_get_basename (file);
  self->n_loading++;
  g_file_query_info_async (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                           G_FILE_QUERY_INFO_NONE, G_PRIORITY_DEFAULT, self->cancellable,
                           attach_info_cb, attach);
}

/**
 * zot_prompt_editor_attach_texture:
 * @texture: an image dropped or pasted as pixels
 *
 * Attaches @texture as a PNG.
 *
 * Returns: whether it was attached; ::attach-failed says why not
 */
gboolean
zot_prompt_editor_attach_texture (ZotPromptEditor *self,
                                  GdkTexture      *texture)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), FALSE);
  g_return_val_if_fail (GDK_IS_TEXTURE (texture), FALSE);

  bytes = gdk_texture_save_to_png_bytes (texture);
  /* Translators: the name given to an image dragged onto the message entry */
  return attach_bytes (self, bytes, _("Dropped image"));
}

/**
 * zot_prompt_editor_attach_text:
 * @name: what the chip shows, and what the model reads the text as
 *
 * Attaches @text, as a text block of the next message that names @name.
 */
void
zot_prompt_editor_attach_text (ZotPromptEditor *self,
                               const char      *name,
                               const char      *text)
{
  g_autoptr(JsonObject) block = json_object_new ();
  /* Translators: heads a text attached to a message, as the model reads it; %s names it (a URI) */
  g_autofree char *body = g_strdup_printf (_("Attached %s:\n\n%s"), name, text);

  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", body);
  add_chip (self, block, NULL, name);
}

guint
zot_prompt_editor_get_n_images (ZotPromptEditor *self)
{
  guint n = 0;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), 0);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->attachments));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n++;
  return n;
}

/**
 * zot_prompt_editor_get_n_loading:
 *
 * Returns: how many attached files are still being read
 */
guint
zot_prompt_editor_get_n_loading (ZotPromptEditor *self)
{
  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), 0);
  return self->n_loading;
}

/**
 * zot_prompt_editor_take_images:
 *
 * Returns: (transfer full) (nullable): the attached image blocks in order,
 *   which leave the editor; %NULL when there are none
 */
JsonArray *
zot_prompt_editor_take_images (ZotPromptEditor *self)
{
  JsonArray *images;
  GtkWidget *child;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  if (zot_prompt_editor_get_n_images (self) == 0)
    return NULL;

  images = json_array_new ();
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->attachments))) != NULL)
    {
      GtkWidget *chip = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child));
      JsonObject *block = g_object_get_data (G_OBJECT (chip), "zot-image-block");

      json_array_add_object_element (images, json_object_ref (block));
      gtk_flow_box_remove (self->attachments, child);
    }
  update_attachments (self);
  return images;
}
