/* The rules for names, and what reaches a terminal. */
#include "config.h"

#include "zot-limits.h"
#include "zot-names.h"

static void
test_tool_names (void)
{
  g_autofree char *longest = g_strnfill (ZOT_TOOL_NAME_MAX_CHARS, 'a');
  g_autofree char *too_long = g_strnfill (ZOT_TOOL_NAME_MAX_CHARS + 1, 'a');

  g_assert_true (zot_name_is_tool_name ("read"));
  g_assert_true (zot_name_is_tool_name ("_private"));
  g_assert_true (zot_name_is_tool_name ("todo-add_2"));
  g_assert_true (zot_name_is_tool_name ("a"));
  g_assert_true (zot_name_is_tool_name (longest));
  g_assert_false (zot_name_is_tool_name (too_long));
  g_assert_false (zot_name_is_tool_name (NULL));
  g_assert_false (zot_name_is_tool_name (""));
  g_assert_false (zot_name_is_tool_name ("9lives"));
  g_assert_false (zot_name_is_tool_name ("-dash"));
  g_assert_false (zot_name_is_tool_name ("has space"));
  g_assert_false (zot_name_is_tool_name ("dot.ted"));
  g_assert_false (zot_name_is_tool_name ("caf\xc3\xa9"));
  g_assert_false (zot_name_is_tool_name ("new\nline"));
}

static void
test_command_names (void)
{
  g_autofree char *longest = g_strnfill (ZOT_COMMAND_NAME_MAX_CHARS, 'c');
  g_autofree char *too_long = g_strnfill (ZOT_COMMAND_NAME_MAX_CHARS + 1, 'c');

  g_assert_true (zot_name_is_command_name ("todo"));
  g_assert_true (zot_name_is_command_name ("Caf\xc3\xa9"));
  g_assert_true (zot_name_is_command_name ("reload.all"));
  g_assert_true (zot_name_is_command_name (longest));
  g_assert_false (zot_name_is_command_name (too_long));
  g_assert_false (zot_name_is_command_name ("--force"));
  g_assert_false (zot_name_is_command_name ("two words"));
  g_assert_false (zot_name_is_command_name ("bell\x07"));
  g_assert_false (zot_name_is_command_name ("csi\xc2\x9b"));
  g_assert_false (zot_name_is_command_name ("rtl\xe2\x80\xae"));
  g_assert_false (zot_name_is_command_name ("bad\xff"));
}

static void
check_terminal (const char *in,
                const char *expected)
{
  g_autofree char *out = zot_text_for_terminal (in, -1);

  g_assert_cmpstr (out, ==, expected);
}

static void
test_text_for_terminal (void)
{
  check_terminal ("plain text\n\tindented", "plain text\n\tindented");
  check_terminal ("osc \x1b]52;c;aGk=\x07", "osc ^[]52;c;aGk=^G");
  check_terminal ("clear \x1b[2J", "clear ^[[2J");
  check_terminal ("del \x7f", "del ^?");
  check_terminal ("crlf\r\nkept, \roverwrite", "crlf\nkept, ^Moverwrite");
  check_terminal ("c1 \xc2\x9b" "31m", "c1 <U+009B>31m");
  check_terminal ("rtl \xe2\x80\xae" "exe", "rtl <U+202E>exe");
  check_terminal ("caf\xc3\xa9 \xe2\x98\x83", "caf\xc3\xa9 \xe2\x98\x83");
  check_terminal ("raw \x9b byte", "raw \xef\xbf\xbd byte");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/names/tool", test_tool_names);
  g_test_add_func ("/zot/names/command", test_command_names);
  g_test_add_func ("/zot/names/text-for-terminal", test_text_for_terminal);

  return g_test_run ();
}
