/* fuzz-ansi.c — an extension panel's line, escapes and all, through the
 * ANSI SGR parser. Only Pango is needed: no display.
 *
 * Besides not crashing, the result must be what zot-ansi.h promises a
 * GtkLabel: valid UTF-8 without escapes or control characters other than
 * tab and newline, and attributes that cover whole characters of it.
 */
#include "config.h"

#include <string.h>

#include "zot-ansi.h"
#include "zot-fuzz-util.h"

static void
check_result (const char    *text,
              PangoAttrList *attributes)
{
  g_autoptr(GSList) list = NULL;
  gsize length = strlen (text);

  zot_fuzz_assert_utf8 ("the text of a line", text, -1);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_assert_true (c == '\t' || c == '\n' || !g_unichar_iscntrl (c));
    }

  list = pango_attr_list_get_attributes (attributes);
  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      g_assert_cmpuint (attr->start_index, <, attr->end_index);
      g_assert_cmpuint (attr->end_index, <=, length);
      g_assert_true (attr->start_index == length ||
                     g_utf8_get_char_validated (text + attr->start_index, -1) != (gunichar) -1);
      g_assert_true (attr->end_index == length ||
                     g_utf8_get_char_validated (text + attr->end_index, -1) != (gunichar) -1);
    }
  g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *line = g_strndup ((const char *) data, size);
  g_autoptr(PangoAttrList) attributes = NULL;
  g_autoptr(PangoAttrList) themed = NULL;
  g_autofree char *text = NULL;
  g_autofree char *themed_text = NULL;

  text = zot_ansi_to_pango (line, &attributes);
  check_result (text, attributes);

  /* A dark theme's colours, as the panel view passes them; reverse video
   * swaps them in. The text does not depend on them. */
  themed_text = zot_ansi_to_pango_with_defaults (line, 0xffffff, 0x1e1e1e, &themed);
  g_assert_cmpstr (text, ==, themed_text);
  check_result (themed_text, themed);

  g_free (zot_ansi_to_pango (line, NULL));

  return 0;
}
