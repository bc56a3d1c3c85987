/* zot-model-picker.c — the header's model button and its popover.
 *
 * The popover lists, per provider, what its server's list endpoint says
 * (zot-model-list.c): the provider in use, each other provider whose key
 * is at hand, and the demo. The lists come in whenever each fetch ends;
 * rows are sorted into their provider's group, and a group whose list is
 * a saved one, or failed, says so in a line of its own. A search filters
 * models and providers by name. Choosing a row emits ::model-chosen; the
 * window applies it.
 */
#define G_LOG_DOMAIN "zot-model-picker"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-model-list.h"
#include "zot-model-picker.h"
#include "zot-provider-table.h"

/* A long id ("accounts/fireworks/models/…") shows its end, this long. */
#define BUTTON_LABEL_MAX_CHARS 28

struct _ZotModelPicker
{
  GtkWidget       parent_instance;

  GtkMenuButton  *button;
  GtkSearchEntry *search;
  GtkListBox     *list;
  char           *provider;
  char           *model;
  char           *base_url;
  GCancellable   *cancellable;
  guint           pending;
  gboolean        stale;
};

G_DEFINE_FINAL_TYPE (ZotModelPicker, zot_model_picker, GTK_TYPE_WIDGET)

enum
{
  MODEL_CHOSEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  ZotModelPicker *self;
  guint           group;
} Fetch;

/* ------------------------------------------------------------------ */
/* Rows                                                                */
/* ------------------------------------------------------------------ */

/* A row of @provider's group: a model, or with @model NULL a note. */
static void
add_row (ZotModelPicker *self,
         guint           group,
         const char     *provider,
         const char     *model,
         const char     *text)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *check = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), check);
  gtk_widget_set_visible (check, model != NULL && g_strcmp0 (provider, self->provider) == 0 &&
                          g_strcmp0 (model, self->model) == 0);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 4);
  gtk_widget_set_margin_bottom (box, 4);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  if (model == NULL)
    {
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_NONE);
    }
  else
    {
      /* Translators: the accessible name of a model in the picker: the model, then its provider */
      g_autofree char *name = g_strdup_printf (_("%s from %s"), model,
                                               zot_provider_info_get_label (zot_provider_table_lookup (provider)));

      gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
    }

  g_object_set_data (G_OBJECT (row), "group", GUINT_TO_POINTER (group));
  g_object_set_data_full (G_OBJECT (row), "provider", g_strdup (provider), g_free);
  g_object_set_data_full (G_OBJECT (row), "model", g_strdup (model), g_free);
  gtk_list_box_append (self->list, row);
}

static const char *
row_string (GtkListBoxRow *row,
            const char    *key)
{
  return g_object_get_data (G_OBJECT (row), key);
}

/* Groups in the order their fetches began; in a group the note first,
 * then the models by id. */
static int
sort_rows (GtkListBoxRow *a,
           GtkListBoxRow *b,
           gpointer       user_data)
{
  guint group_a = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (a), "group"));
  guint group_b = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (b), "group"));
  const char *model_a = row_string (a, "model");
  const char *model_b = row_string (b, "model");

  if (group_a != group_b)
    return group_a < group_b ? -1 : 1;
  if (model_a == NULL || model_b == NULL)
    return (model_a != NULL) - (model_b != NULL);
  return g_strcmp0 (model_a, model_b);
}

/* A heading above the first shown row of each provider. */
static void
update_header (GtkListBoxRow *row,
               GtkListBoxRow *before,
               gpointer       user_data)
{
  const char *provider = row_string (row, "provider");
  GtkWidget *header;

  if (before != NULL && g_strcmp0 (provider, row_string (before, "provider")) == 0)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }

  header = gtk_label_new (zot_provider_info_get_label (zot_provider_table_lookup (provider)));
  gtk_label_set_xalign (GTK_LABEL (header), 0);
  gtk_widget_add_css_class (header, "heading");
  gtk_widget_set_margin_start (header, 6);
  gtk_widget_set_margin_top (header, 8);
  gtk_widget_set_margin_bottom (header, 2);
  gtk_list_box_row_set_header (row, header);
}

/* What the search names: part of a model's id or of its provider's name
 * or label, case aside. */
static gboolean
filter_row (GtkListBoxRow *row,
            gpointer       user_data)
{
  ZotModelPicker *self = user_data;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search));
  const ZotProviderInfo *info = zot_provider_table_lookup (row_string (row, "provider"));
  g_autofree char *needle = NULL;
  g_autofree char *names = NULL;
  g_autofree char *haystack = NULL;

  if (*text == '\0')
    return TRUE;

  needle = g_utf8_casefold (text, -1);
  names = g_strjoin (" ", info->name, zot_provider_info_get_label (info),
                     row_string (row, "model") != NULL ? row_string (row, "model") : "", NULL);
  haystack = g_utf8_casefold (names, -1);
  return strstr (haystack, needle) != NULL;
}

/* ------------------------------------------------------------------ */
/* Fetching                                                            */
/* ------------------------------------------------------------------ */

static void
fetch_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Fetch *fetch = user_data;
  g_autoptr(ZotModelPicker) self = fetch->self;
  g_autoptr(ZotModelList) list = NULL;
  g_autoptr(GError) error = NULL;
  guint group = fetch->group;

  g_free (fetch);
  list = zot_model_list_fetch_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->pending--;
  if (list == NULL)
    {
      const char *name = zot_provider_table_get_nth (group)->name;

      add_row (self, group, name, NULL, error->message);
      /* The model in use is listed even when its server is not. */
      if (g_strcmp0 (name, self->provider) == 0 && self->model != NULL)
        add_row (self, group, name, self->model, self->model);
      return;
    }

  if (list->fetch_error != NULL)
    {
      g_autofree char *age = zot_model_list_describe_age (list);
      /* Translators: the age ("3 hours"), then why the server was not asked */
      g_autofree char *note = g_strdup_printf (_("Saved %s ago: %s"), age, list->fetch_error);

      add_row (self, group, list->provider, NULL, note);
    }
  for (guint i = 0; i < list->ids->len; i++)
    add_row (self, group, list->provider, g_ptr_array_index (list->ids, i), g_ptr_array_index (list->ids, i));
}

static void
start_fetch (ZotModelPicker *self,
             guint           group)
{
  const ZotProviderInfo *info = zot_provider_table_get_nth (group);
  g_auto(ZotProviderConfig) config = { 0 };
  Fetch *fetch = g_new0 (Fetch, 1);

  config.name = g_strdup (info->name);
  /* The base URL set is the provider's in use; the others' are their own. */
  if (g_strcmp0 (info->name, self->provider) == 0)
    config.base_url = g_strdup (self->base_url);
  config.api_key = g_strdup (zot_provider_get_key (info->name, NULL));

  fetch->self = g_object_ref (self);
  fetch->group = group;
  self->pending++;
  zot_model_list_fetch_async (&config, ZOT_MODEL_LIST_NONE, self->cancellable, fetch_cb, fetch);
}

/**
 * zot_model_picker_refresh:
 *
 * Fetches the lists again (each from its cache when that is recent): of
 * the provider in use, of each provider whose key is at hand, of the demo.
 */
void
zot_model_picker_refresh (ZotModelPicker *self)
{
  GtkWidget *child;

  g_return_if_fail (ZOT_IS_MODEL_PICKER (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->pending = 0;
  self->stale = FALSE;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);

  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);

      if (g_strcmp0 (info->name, self->provider) == 0 || info->offline ||
          (info->key_variable != NULL && zot_provider_get_key (info->name, NULL) != NULL))
        start_fetch (self, i);
    }
}

static void
on_popover_show_cb (ZotModelPicker *self)
{
  if (self->stale)
    zot_model_picker_refresh (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->search));
}

static void
on_row_activated_cb (ZotModelPicker *self,
                     GtkListBoxRow  *row)
{
  const char *model = row_string (row, "model");

  if (model == NULL)
    return;

  gtk_menu_button_popdown (self->button);
  g_signal_emit (self, signals[MODEL_CHOSEN], 0, row_string (row, "provider"), model);
}

static void
on_search_changed_cb (ZotModelPicker *self)
{
  gtk_list_box_invalidate_filter (self->list);
  gtk_list_box_invalidate_headers (self->list);
}

/* Enter in the search takes the first model shown. */
static void
on_search_activate_cb (ZotModelPicker *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_BOX_ROW (child) && gtk_widget_get_child_visible (child) &&
        row_string (GTK_LIST_BOX_ROW (child), "model") != NULL)
      {
        on_row_activated_cb (self, GTK_LIST_BOX_ROW (child));
        return;
      }
}

/**
 * zot_model_picker_set_current:
 * @provider: (nullable): the provider in use
 * @model: (nullable): its model
 * @base_url: (nullable): the base URL it was given
 *
 * Says which model to check; the lists are fetched again the next time
 * the popover opens.
 */
void
zot_model_picker_set_current (ZotModelPicker *self,
                              const char     *provider,
                              const char     *model,
                              const char     *base_url)
{
  g_autofree char *label = NULL;
  g_autofree char *tooltip = NULL;
  const char *shown;

  g_return_if_fail (ZOT_IS_MODEL_PICKER (self));

  g_free (self->provider);
  self->provider = g_strdup (provider);
  g_free (self->model);
  self->model = g_strdup (model);
  g_free (self->base_url);
  self->base_url = g_strdup (base_url);
  self->stale = TRUE;

  shown = model != NULL ? model : "";
  if (g_utf8_strlen (shown, -1) > BUTTON_LABEL_MAX_CHARS)
    label = g_strconcat ("…", g_utf8_offset_to_pointer (shown, g_utf8_strlen (shown, -1) - BUTTON_LABEL_MAX_CHARS + 1),
                         NULL);
  else
    label = g_strdup (shown);
  gtk_menu_button_set_label (self->button, label);
  /* Translators: the tooltip of the header's model button: the provider, then the model */
  tooltip = g_strdup_printf (_("Model: %s · %s"), provider != NULL ? provider : "", shown);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->button), tooltip);
}

/* ------------------------------------------------------------------ */

static void
zot_model_picker_dispose (GObject *object)
{
  ZotModelPicker *self = ZOT_MODEL_PICKER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_pointer ((GtkWidget **) &self->button, gtk_widget_unparent);

  G_OBJECT_CLASS (zot_model_picker_parent_class)->dispose (object);
}

static void
zot_model_picker_finalize (GObject *object)
{
  ZotModelPicker *self = ZOT_MODEL_PICKER (object);

  g_clear_object (&self->cancellable);
  g_free (self->provider);
  g_free (self->model);
  g_free (self->base_url);

  G_OBJECT_CLASS (zot_model_picker_parent_class)->finalize (object);
}

static void
zot_model_picker_class_init (ZotModelPickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_model_picker_dispose;
  object_class->finalize = zot_model_picker_finalize;

  /**
   * ZotModelPicker::model-chosen:
   * @provider: the provider's name
   * @model: the model's id
   *
   * The user chose a model.
   */
  signals[MODEL_CHOSEN] = g_signal_new ("model-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
zot_model_picker_init (ZotModelPicker *self)
{
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->cancellable = g_cancellable_new ();
  self->stale = TRUE;

  self->button = GTK_MENU_BUTTON (gtk_menu_button_new ());
  gtk_widget_set_parent (GTK_WIDGET (self->button), GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  /* Translators: the accessible name of the header's model button */
                                  _("Choose a Model"), -1);

  self->search = GTK_SEARCH_ENTRY (gtk_search_entry_new ());
  /* Translators: the placeholder of the model picker's search */
  g_object_set (self->search, "placeholder-text", _("Search models"), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Search models"), -1);
  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_list_box_set_sort_func (self->list, sort_rows, NULL, NULL);
  gtk_list_box_set_header_func (self->list, update_header, NULL, NULL);
  gtk_list_box_set_filter_func (self->list, filter_row, self, NULL);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "navigation-sidebar");

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 360);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 360);
  gtk_widget_set_size_request (scrolled, 340, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->search));
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_menu_button_set_popover (self->button, popover);

  g_signal_connect_object (popover, "show", G_CALLBACK (on_popover_show_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->list, "row-activated", G_CALLBACK (on_row_activated_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search, "search-changed", G_CALLBACK (on_search_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search, "activate", G_CALLBACK (on_search_activate_cb), self,
                           G_CONNECT_SWAPPED);
}

GtkWidget *
zot_model_picker_new (void)
{
  return g_object_new (ZOT_TYPE_MODEL_PICKER, NULL);
}

GtkWidget *
_zot_model_picker_get_list (ZotModelPicker *self)
{
  return GTK_WIDGET (self->list);
}

GtkWidget *
_zot_model_picker_get_search (ZotModelPicker *self)
{
  return GTK_WIDGET (self->search);
}

guint
_zot_model_picker_get_pending (ZotModelPicker *self)
{
  return self->pending;
}
