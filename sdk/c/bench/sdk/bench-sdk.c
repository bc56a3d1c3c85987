/* bench-sdk.c: bench_echo on libzot-ext
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <zot-ext.h>

static gboolean
on_echo (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gpointer          data)
{
  const char *text = zot_ext_invocation_get_string_arg (inv, "text");

  zot_ext_invocation_return_text (inv, text != NULL ? text : "");
  return TRUE;
}

int
main (void)
{
  g_autoptr(ZotExtExtension) ext = zot_ext_extension_new ("bench-c-sdk", "1.0.0");

  zot_ext_extension_add_tool (ext, "bench_echo", "Echo text", "{\"type\":\"object\"}", 0, NULL);
  g_signal_connect (ext, "tool-call::bench_echo", G_CALLBACK (on_echo), NULL);
  return zot_ext_extension_run (ext);
}
