/* zot-window-layout-private.h — how the window lays its sidebar, its
 * conversation and its side pane out at the width it has. */
#pragma once

#include "zot-window.h"

G_BEGIN_DECLS

typedef struct _ZotWindowLayout ZotWindowLayout;

/* Binds the layout's template children; from the window's class_init. */
void     _zot_window_class_layout_init       (ZotWindowClass *klass);
/* Starts following the window's width; from the window's init. */
void     _zot_window_layout_init             (ZotWindow      *self);
void     _zot_window_layout_free             (ZotWindow      *self);

/* What the layout does at a window width, for the tests' edges. */
gboolean _zot_window_layout_folds_sidebar    (int             window_width);
gboolean _zot_window_layout_folds_side_pane  (int             window_width);
/* The width a pane takes by default at @window_width: @share percent of
 * it, within @min and @max. */
int      _zot_window_layout_default_width    (int             window_width,
                                              int             share,
                                              int             min,
                                              int             max);
/* A pane's width as the layout asks for it now: the remembered one, or
 * the default one. */
int      _zot_window_layout_get_sidebar_width   (ZotWindow   *self);
int      _zot_window_layout_get_side_pane_width (ZotWindow   *self);
/* As dragging a pane's edge does: @width is remembered. */
void     _zot_window_layout_resize_side_pane    (ZotWindow   *self,
                                                 int          width);

G_END_DECLS
