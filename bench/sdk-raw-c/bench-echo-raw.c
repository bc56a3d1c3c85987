/* bench-echo-raw.c — the hand-written C loop bench-sdk measures an SDK
 * against: the frames of `bench_echo` answered with nothing but stdio and
 * json-glib, one parse per line, one write per reply.
 *
 * hello (tools, tool_cancel), register_tool bench_echo, ready; each
 * tool_call gets a tool_result whose text is args.text; shutdown gets
 * shutdown_ack and exit 0. Cancels need no work here: every call is
 * answered before the next line is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

/* PROTOCOL.md §0: a longer line is skipped (a baseline, so getline reads
 * it whole first: the host never sends one). */
#define FRAME_MAX_BYTES (4 * 1024 * 1024)

static void
write_line (const char *line)
{
  fputs (line, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

static void
answer (JsonObject *frame)
{
  JsonObject *args = json_object_get_object_member (frame, "args");
  const char *id = json_object_get_string_member_with_default (frame, "id", "");
  const char *text = args != NULL ? json_object_get_string_member_with_default (args, "text", "") : "";
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *line = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "tool_result");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, id);
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  line = json_to_string (root, FALSE);
  write_line (line);
}

int
main (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  char *line = NULL;
  size_t size = 0;
  ssize_t length;

  write_line ("{\"type\":\"hello\",\"name\":\"bench-raw-c\",\"version\":\"1.0.0\","
              "\"capabilities\":[\"tools\",\"tool_cancel\"]}");

  while ((length = getline (&line, &size, stdin)) >= 0)
    {
      JsonNode *root;
      JsonObject *frame;
      const char *type;

      if (length > FRAME_MAX_BYTES || !json_parser_load_from_data (parser, line, length, NULL))
        {
          fprintf (stderr, "bench-echo-raw: skipped a line that is not a frame\n");
          continue;
        }
      root = json_parser_get_root (parser);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        continue;
      frame = json_node_get_object (root);
      type = json_object_get_string_member_with_default (frame, "type", "");

      if (strcmp (type, "hello_ack") == 0)
        {
          write_line ("{\"type\":\"register_tool\",\"name\":\"bench_echo\",\"description\":\"Echo text\","
                      "\"schema\":{\"type\":\"object\"}}");
          write_line ("{\"type\":\"ready\"}");
        }
      else if (strcmp (type, "tool_call") == 0)
        answer (frame);
      else if (strcmp (type, "shutdown") == 0)
        {
          write_line ("{\"type\":\"shutdown_ack\"}");
          break;
        }
    }

  free (line);
  return 0;
}
