/* zot-gui-test-util.h — what the window's tests share: finding widgets,
 * measuring them. */
#pragma once

#include <gtk/gtk.h>

#include "zot-application.h"
#include "zot-test-util.h"
#include "zot-transcript.h"
#include "zot-window.h"

G_BEGIN_DECLS

/* Every widget under @root (not @root itself), depth first, of @type
 * (G_TYPE_NONE for any) carrying @css_class (NULL for any). */
GPtrArray *zot_test_find_widgets (GtkWidget  *root,
                                  GType       type,
                                  const char *css_class);

/* The first of them, @root itself included, or NULL. */
GtkWidget *zot_test_find_widget  (GtkWidget  *root,
                                  GType       type,
                                  const char *css_class);

/* Measures @widget's height at its minimum width, as a window at its
 * narrowest does: where GTK finds layouts that cannot fit ("Expect
 * overlapping widgets", fatal in these tests). */
void       zot_test_measure_narrowest (GtkWidget *widget);

void        zot_test_gui_tolerate_relayout_warning (void);

/* Every label's text and text view's contents under @widget, @widget
 * included, one a line; hidden ones too (a hidden label that kept an old
 * text is stale all the same). */
char       *zot_test_widget_text (GtkWidget *widget);
/* The shown toplevel window of @type, or %NULL. */
GtkWindow  *zot_test_find_window (GType      type);
GBytes     *zot_test_black_png   (guint32    width,
                                  guint32    height);

/* zot_test_env_setup() without the provider keys of the environment the
 * tests run in: the window must not find a real model. */
void            zot_test_gui_env_setup   (ZotTestEnv           *env);
/* GTK and libadwaita set up for a test program, with the relayout
 * warning tolerated; its application, from zot_test_application_new(). */
ZotApplication *zot_test_gui_init        (int                  *argc,
                                          char               ***argv);
/* One application for a test program's windows, registered. */
ZotApplication *zot_test_application_new (void);
/* A window on @options (yolo), @width × @height unless @width is 0,
 * shown, with its host. */
ZotWindow  *zot_test_open_window  (ZotApplication       *application,
                                   ZotHostOptions       *options,
                                   int                   width,
                                   int                   height);
/* For zot_test_wait_until(): @data, a ZotWindow, has a host with
 * extensions, all of them ready. */
gboolean    zot_test_extensions_ready (gpointer            data);
/* A transcript of @host alone in a plain window, 720 × 480, shown, with
 * @host loaded and its session begun; the window in *@window. */
ZotTranscript *zot_test_show_transcript  (ZotHost             *host,
                                          GtkWidget          **window);
/* Destroys *@window and finalizes *@host, clearing both. */
void           zot_test_close_transcript (GtkWidget          **window,
                                          ZotHost            **host);
/* The text on @widget's clipboard, once read. */
char          *zot_test_clipboard_text   (GtkWidget           *widget);
/* The action of @widget's own shortcut that @accelerator (as
 * gtk_accelerator_parse() reads it) triggers, or NULL. */
GtkShortcutAction *zot_test_find_shortcut (GtkWidget          *widget,
                                           const char         *accelerator);
/* Closes *@window, waits until it is gone, and clears it. */
void        zot_test_close_window (ZotWindow           **window);

G_END_DECLS
