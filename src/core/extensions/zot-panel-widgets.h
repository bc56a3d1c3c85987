/* zot-panel-widgets.h — a panel's native widgets, validated (PROTOCOL.md
 * §10, docs/protocol.md "Panel widgets").
 *
 * An extension offered `panel_widgets` may describe its panel as a tree of
 * controls instead of lines. Nothing of that tree reaches the window
 * unchecked: zot_panel_widgets_parse() reads it into ZotPanelNodes whose
 * every field has the type and range the docs give. A node that is wrong
 * (an unknown type, a bad field, a missing or repeated id) becomes an
 * error node, which the window shows as an error row in its place, and a
 * problem line for the extension's log; a tree past a cap (depth, nodes,
 * rows, size) becomes one error node. Parsing never fails.
 *
 * Plain C on json-glib: the window's factory builds GTK widgets from the
 * nodes, and the unit tests read them directly.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ZotPanelNodeType:
 * @ZOT_PANEL_NODE_ERROR: what was sent is wrong; @text says how
 * @ZOT_PANEL_NODE_BOX: children in a row or a column
 * @ZOT_PANEL_NODE_TEXT: a paragraph, plain or with an emphasis
 * @ZOT_PANEL_NODE_HEADING: a title, level 1 to 3
 * @ZOT_PANEL_NODE_BUTTON: a push button ("clicked")
 * @ZOT_PANEL_NODE_ENTRY: one line of text ("changed", "submit")
 * @ZOT_PANEL_NODE_TEXTAREA: several lines of text ("changed", "submit")
 * @ZOT_PANEL_NODE_SWITCH: an on/off switch with a label ("toggled")
 * @ZOT_PANEL_NODE_CHECK: a check box with a label ("toggled")
 * @ZOT_PANEL_NODE_DROPDOWN: one of several options ("selected")
 * @ZOT_PANEL_NODE_LIST: rows of title, subtitle, icon, check box and
 *   buttons ("activated", "toggled", "button"), recycled when long
 * @ZOT_PANEL_NODE_PROGRESS: a progress bar, or a pulse when unknown
 * @ZOT_PANEL_NODE_SPINNER: something is going on
 * @ZOT_PANEL_NODE_SEPARATOR: a line between widgets
 * @ZOT_PANEL_NODE_CODE: monospace text, ANSI colours allowed (a log)
 * @ZOT_PANEL_NODE_IMAGE: a PNG
 */
typedef enum
{
  ZOT_PANEL_NODE_ERROR,
  ZOT_PANEL_NODE_BOX,
  ZOT_PANEL_NODE_TEXT,
  ZOT_PANEL_NODE_HEADING,
  ZOT_PANEL_NODE_BUTTON,
  ZOT_PANEL_NODE_ENTRY,
  ZOT_PANEL_NODE_TEXTAREA,
  ZOT_PANEL_NODE_SWITCH,
  ZOT_PANEL_NODE_CHECK,
  ZOT_PANEL_NODE_DROPDOWN,
  ZOT_PANEL_NODE_LIST,
  ZOT_PANEL_NODE_PROGRESS,
  ZOT_PANEL_NODE_SPINNER,
  ZOT_PANEL_NODE_SEPARATOR,
  ZOT_PANEL_NODE_CODE,
  ZOT_PANEL_NODE_IMAGE,
} ZotPanelNodeType;

/**
 * ZotPanelStyle:
 *
 * A text's emphasis or a button's look; which apply to which type is in
 * the docs, others are refused.
 */
typedef enum
{
  ZOT_PANEL_STYLE_PLAIN,
  ZOT_PANEL_STYLE_DIM,
  ZOT_PANEL_STYLE_BOLD,
  ZOT_PANEL_STYLE_ITALIC,
  ZOT_PANEL_STYLE_CAPTION,
  ZOT_PANEL_STYLE_SUCCESS,
  ZOT_PANEL_STYLE_WARNING,
  ZOT_PANEL_STYLE_ERROR,
  ZOT_PANEL_STYLE_SUGGESTED,
  ZOT_PANEL_STYLE_DESTRUCTIVE,
  ZOT_PANEL_STYLE_FLAT,
} ZotPanelStyle;

typedef struct
{
  char          *id;
  char          *label;
  char          *icon;
  ZotPanelStyle  style;
} ZotPanelRowButton;

/**
 * ZotPanelRow:
 * @checked: -1 without a check box, else 0 or 1
 * @buttons: (element-type ZotPanelRowButton): suffix buttons
 *
 * One row of a list; refcounted, so that the window's list model can hold
 * rows without copying them.
 */
typedef struct
{
  gatomicrefcount  ref_count;
  char            *id;
  char            *title;
  char            *subtitle;
  char            *icon;
  int              checked;
  gboolean         activatable;
  GPtrArray       *buttons;
} ZotPanelRow;

typedef struct
{
  char *value;
  char *label;
} ZotPanelOption;

typedef struct _ZotPanelNode ZotPanelNode;

/**
 * ZotPanelNode:
 * @id: stable within the panel; "" for the root and for an error node
 *   whose own id was unusable
 * @text: the words shown: text, heading, code, a button's label, a
 *   progress bar's text, a spinner's label, the error of an error node
 * @label: (nullable): the accessible name (and the visible label of
 *   switches, checks, dropdowns, entries and text areas)
 * @description: (nullable): the accessible description, also the tooltip
 * @placeholder: (nullable): an entry's or text area's hint
 * @value: (nullable): an entry's or text area's text, a dropdown's
 *   option; %NULL keeps what the window has
 * @active: a switch's or check's state: -1 keeps what the window has
 * @fraction: a progress bar's fill from 0 to 1, or -1 to pulse
 * @level: a heading's level
 * @horizontal: a box's orientation
 * @spacing: a box's spacing in pixels
 * @max_height: a list's or code block's height before it scrolls, pixels
 * @sensitive: whether the user can operate it
 * @children: (element-type ZotPanelNode): a box's
 * @rows: (element-type ZotPanelRow): a list's
 * @options: (element-type ZotPanelOption): a dropdown's
 * @image: (nullable): an image's PNG bytes
 */
struct _ZotPanelNode
{
  ZotPanelNodeType  type;
  char             *id;
  char             *text;
  char             *label;
  char             *description;
  char             *placeholder;
  char             *value;
  char             *icon;
  char             *submit_label;
  ZotPanelStyle     style;
  int               active;
  double            fraction;
  guint             level;
  gboolean          horizontal;
  guint             spacing;
  guint             max_height;
  gboolean          sensitive;
  gboolean          secret;
  GPtrArray        *children;
  GPtrArray        *rows;
  GPtrArray        *options;
  GBytes           *image;
};

ZotPanelNode *zot_panel_widgets_parse     (JsonNode      *widgets,
                                           GPtrArray     *problems);
void          zot_panel_node_free         (ZotPanelNode  *node);
ZotPanelNode *zot_panel_node_find         (ZotPanelNode  *root,
                                           const char    *id);
guint         zot_panel_node_count_errors (ZotPanelNode  *root);
const char   *zot_panel_node_type_to_string (ZotPanelNodeType type);

ZotPanelRow  *zot_panel_row_ref           (ZotPanelRow   *row);
void          zot_panel_row_unref         (ZotPanelRow   *row);
gboolean      zot_panel_row_equal         (const ZotPanelRow *a,
                                           const ZotPanelRow *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotPanelNode, zot_panel_node_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotPanelRow, zot_panel_row_unref)

G_END_DECLS
