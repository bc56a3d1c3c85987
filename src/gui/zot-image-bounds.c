/* zot-image-bounds.c — the size of an image before its pixels.
 *
 * GdkPixbufLoader reports the size from the header (::size-prepared);
 * asking it then for a size of 0×0 makes every loader stop before it
 * allocates the pixels (as gdk_pixbuf_get_file_info() does), and the
 * bytes are fed in pieces so that nothing past the header is read.
 * Scaling down while decoding would not bound the memory: loaders such
 * as PNG's decode at full size and scale afterwards.
 */
#define G_LOG_DOMAIN "zot-image-bounds"

#include "config.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gi18n.h>

#include "zot-image-bounds.h"
#include "zot-limits.h"

/* Bytes fed to the loader at a time: a header fits in the first. */
#define PEEK_CHUNK_BYTES 4096

typedef struct
{
  int      width;
  int      height;
  gboolean known;
} Peek;

static void
on_size_prepared_cb (GdkPixbufLoader *loader,
                     int              width,
                     int              height,
                     Peek            *peek)
{
  peek->width = width;
  peek->height = height;
  peek->known = TRUE;
  gdk_pixbuf_loader_set_size (loader, 0, 0);
}

/**
 * zot_image_peek_size:
 * @bytes: an encoded image (PNG, JPEG, …)
 * @out_width: (out): its width in pixels
 * @out_height: (out): its height in pixels
 *
 * Reads the size an image's header gives, without decoding its pixels.
 *
 * Returns: whether a size was found
 */
gboolean
zot_image_peek_size (GBytes *bytes,
                     int    *out_width,
                     int    *out_height)
{
  g_autoptr(GdkPixbufLoader) loader = gdk_pixbuf_loader_new ();
  Peek peek = { 0 };
  const guchar *data;
  gsize size;

  g_return_val_if_fail (bytes != NULL, FALSE);

  data = g_bytes_get_data (bytes, &size);
  g_signal_connect (loader, "size-prepared", G_CALLBACK (on_size_prepared_cb), &peek);
  for (gsize offset = 0; offset < size && !peek.known; offset += PEEK_CHUNK_BYTES)
    {
      if (!gdk_pixbuf_loader_write (loader, data + offset,
                                    MIN (PEEK_CHUNK_BYTES, size - offset), NULL))
        break;
    }
  /* Closing a loader stopped early reports an error; the size is known. */
  gdk_pixbuf_loader_close (loader, NULL);

  *out_width = peek.width;
  *out_height = peek.height;
  return peek.known && peek.width > 0 && peek.height > 0;
}

/**
 * zot_image_texture_new:
 * @bytes: an encoded image from outside
 * @error: set when it is not shown: too large, or not an image GTK reads
 *
 * Decodes @bytes unless its header says it has more than
 * ZOT_IMAGE_MAX_PIXELS pixels or gives no size.
 *
 * Returns: (transfer full) (nullable): the image
 */
GdkTexture *
zot_image_texture_new (GBytes  *bytes,
                       GError **error)
{
  int width = 0;
  int height = 0;

  g_return_val_if_fail (bytes != NULL, NULL);

  if (!zot_image_peek_size (bytes, &width, &height))
    {
      /* Translators: a note shown in place of an image the window cannot read */
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("not an image the window can show"));
      return NULL;
    }

  if ((guint64) width * (guint64) height > ZOT_IMAGE_MAX_PIXELS)
    {
      /* Translators: a note shown in place of an image; the first two numbers are its width
       * and height, the last the most pixels an image may have */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   _("image too large: %d×%d pixels; at most %u pixels"),
                   width, height, (guint) ZOT_IMAGE_MAX_PIXELS);
      return NULL;
    }

  return gdk_texture_new_from_bytes (bytes, error);
}
