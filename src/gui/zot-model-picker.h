/* zot-model-picker.h — the header's model button: a searchable popover
 * of the models the providers' servers have, grouped by provider, the
 * current one checked. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ZOT_TYPE_MODEL_PICKER (zot_model_picker_get_type ())
G_DECLARE_FINAL_TYPE (ZotModelPicker, zot_model_picker, ZOT, MODEL_PICKER, GtkWidget)

GtkWidget *zot_model_picker_new         (void);
void       zot_model_picker_set_current (ZotModelPicker *self,
                                         const char     *provider,
                                         const char     *model,
                                         const char     *base_url);
void       zot_model_picker_refresh     (ZotModelPicker *self);

/* For the tests. */
GtkWidget *_zot_model_picker_get_list   (ZotModelPicker *self);
GtkWidget *_zot_model_picker_get_search (ZotModelPicker *self);
guint      _zot_model_picker_get_pending (ZotModelPicker *self);

G_END_DECLS
