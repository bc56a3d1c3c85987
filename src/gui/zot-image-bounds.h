/* zot-image-bounds.h — images from outside, decoded only when small enough.
 *
 * A PNG of a few kilobytes can say it is 16000×16000 pixels, a gigabyte
 * decoded. Every image the window shows (panel images, the transcript's,
 * tool results') is measured from its header first and refused past
 * ZOT_IMAGE_MAX_PIXELS, with a note the user reads instead.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean    zot_image_peek_size          (GBytes  *bytes,
                                          int     *out_width,
                                          int     *out_height);
GdkTexture *zot_image_texture_new        (GBytes  *bytes,
                                          GError **error);

G_END_DECLS
