/* bench-raw.c: bench_echo as a hand-written stdio loop, the baseline the
 * SDK is measured against. It answers the same frames and nothing more:
 * hello, register_tool and ready, tool_call with tool_result, shutdown
 * with shutdown_ack.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

static void
send_frame (JsonObject *frame)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), frame);
  g_autofree char *text = json_to_string (node, FALSE);

  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

int
main (void)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  char *line = NULL;
  size_t capacity = 0;
  ssize_t len;

  fputs ("{\"type\":\"hello\",\"name\":\"bench-c-raw\",\"version\":\"1.0.0\","
         "\"capabilities\":[\"tools\",\"tool_cancel\"]}\n", stdout);
  fflush (stdout);

  while ((len = getline (&line, &capacity, stdin)) > 0)
    {
      g_autoptr(JsonNode) root = NULL;
      JsonObject *frame;
      const char *type;

      if (!json_parser_load_from_data (parser, line, len, NULL))
        continue;
      root = json_parser_steal_root (parser);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        continue;
      frame = json_node_get_object (root);
      type = json_object_get_string_member_with_default (frame, "type", "");

      if (strcmp (type, "tool_call") == 0)
        {
          JsonObject *result = json_object_new ();
          JsonObject *block = json_object_new ();
          JsonArray *content = json_array_new ();
          JsonNode *args = json_object_get_member (frame, "args");
          const char *text = "";

          if (args != NULL && JSON_NODE_HOLDS_OBJECT (args))
            text = json_object_get_string_member_with_default (json_node_get_object (args), "text", "");
          json_object_set_string_member (block, "type", "text");
          json_object_set_string_member (block, "text", text);
          json_array_add_object_element (content, block);
          json_object_set_string_member (result, "type", "tool_result");
          json_object_set_string_member (result, "id",
                                         json_object_get_string_member_with_default (frame, "id", ""));
          json_object_set_array_member (result, "content", content);
          json_object_set_boolean_member (result, "is_error", FALSE);
          send_frame (result);
        }
      else if (strcmp (type, "hello_ack") == 0)
        {
          fputs ("{\"type\":\"register_tool\",\"name\":\"bench_echo\",\"description\":\"Echo text\","
                 "\"schema\":{\"type\":\"object\"}}\n{\"type\":\"ready\"}\n", stdout);
          fflush (stdout);
        }
      else if (strcmp (type, "shutdown") == 0)
        {
          fputs ("{\"type\":\"shutdown_ack\"}\n", stdout);
          fflush (stdout);
          break;
        }
    }

  free (line);
  return 0;
}
