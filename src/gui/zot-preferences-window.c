/* zot-preferences-window.c — the preferences: every row is bound to
 * GSettings, and a change of a setting is applied to the running host.
 *
 * A key from the keyring or typed here reaches the core through
 * zot_provider_store_key(), before the provider is switched: never
 * through this process's environment, which every child inherits.
 */
#define G_LOG_DOMAIN "zot-preferences-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-keyring.h"
#include "zot-preferences-window.h"
#include "zot-preferences-window-private.h"
#include "zot-provider.h"
#include "zot-provider-secrets.h"
#include "zot-provider-table.h"

struct _ZotPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  GtkDropDown          *provider_row;
  AdwEntryRow          *model_row;
  AdwEntryRow          *base_url_row;
  AdwPasswordEntryRow  *api_key_row;
  AdwActionRow         *key_status_row;
  AdwComboRow          *policy_row;
  GtkSwitch            *show_resources_switch;
  GtkSpinButton        *auto_compact_spin;
  GtkSpinButton        *retries_spin;

  GSettings            *settings;
  ZotHost              *host;
  GCancellable         *cancellable;      /* cancelled only when the window goes */
  char                 *key_provider;     /* whose key the key row holds */
  char                 *last_toast;
  guint                 apply_serial;     /* the latest model change; older ones give way */
  guint                 busy;
};

G_DEFINE_FINAL_TYPE (ZotPreferencesWindow, zot_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* The provider row's items are Automatic (the setting's "") and then the
 * table's providers in table order: item i + 1 is row i. */

/* The approval policy row's items, in order, as the schema's enum nicks. */
static const char * const policy_ids[] = { "ask", "yolo" };

/* Resolving keys for a model change: the providers still to look up. */
typedef struct
{
  ZotPreferencesWindow *self;
  guint                 serial;
  GPtrArray            *pending;
} ModelApply;

/* A keyring call for one provider. */
typedef struct
{
  ZotPreferencesWindow *self;
  char                 *provider;
  char                 *key;
} KeyCall;

static void apply_model_step (ModelApply *apply);

static void
model_apply_free (ModelApply *apply)
{
  g_clear_pointer (&apply->pending, g_ptr_array_unref);
  g_free (apply);
}

static void
key_call_free (KeyCall *call)
{
  g_free (call->provider);
  if (call->key != NULL)
    memset (call->key, 0, strlen (call->key));
  g_free (call->key);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KeyCall, key_call_free)

static KeyCall *
key_call_new (ZotPreferencesWindow *self,
              const char           *provider,
              const char           *key)
{
  KeyCall *call = g_new0 (KeyCall, 1);

  call->self = self;
  call->provider = g_strdup (provider);
  call->key = g_strdup (key);
  return call;
}

static const char *
key_variable (const char *provider)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (provider);

  return info != NULL ? info->key_variable : NULL;
}

static const char *
provider_display_name (const char *provider)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (provider);

  return info != NULL ? zot_provider_info_get_label (info) : provider;
}

static gboolean
environment_has_key (const char *provider)
{
  const char *variable = key_variable (provider);
  const char *value = variable != NULL ? zot_provider_get_environment_key (variable) : NULL;

  return value != NULL && *value != '\0';
}

/* The table row of the provider row's selection; %NULL for Automatic. */
static const ZotProviderInfo *
selected_provider (ZotPreferencesWindow *self)
{
  guint selected = gtk_drop_down_get_selected (self->provider_row);

  if (selected == 0 || selected > zot_provider_table_get_n_providers ())
    return NULL;
  return zot_provider_table_get_nth (selected - 1);
}

static GListModel *
new_provider_model (void)
{
  GtkStringList *list = gtk_string_list_new (NULL);

  /* Translators: the first choice of model provider: pick the first provider that has an API key */
  gtk_string_list_append (list, _("Automatic"));
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    gtk_string_list_append (list, zot_provider_info_get_label (zot_provider_table_get_nth (i)));
  return G_LIST_MODEL (list);
}

static void
show_toast (ZotPreferencesWindow *self,
            const char           *text)
{
  g_autofree char *markup = g_markup_escape_text (text, -1);

  g_free (self->last_toast);
  self->last_toast = g_strdup (text);

  /* An AdwToast title is markup. */
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (markup));
}

static void
set_key_status (ZotPreferencesWindow *self,
                const char           *status)
{
  adw_action_row_set_subtitle (self->key_status_row, status);
}

/* GSettings mappings */

static gboolean
string_to_index (GValue             *value,
                 GVariant           *variant,
                 const char * const *ids,
                 guint               n_ids)
{
  const char *id = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < n_ids; i++)
    if (g_str_equal (id, ids[i]))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }

  /* An unknown provider typed by hand reads as Automatic. */
  g_value_set_uint (value, 0);
  return TRUE;
}

static gboolean
provider_get_mapping (GValue   *value,
                      GVariant *variant,
                      gpointer  user_data)
{
  const char *id = g_variant_get_string (variant, NULL);

  /* An unknown provider typed by hand reads as Automatic. */
  g_value_set_uint (value, 0);
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    if (g_str_equal (id, zot_provider_table_get_nth (i)->name))
      g_value_set_uint (value, i + 1);
  return TRUE;
}

static GVariant *
provider_set_mapping (const GValue       *value,
                      const GVariantType *expected_type,
                      gpointer            user_data)
{
  guint index = g_value_get_uint (value);

  if (index == 0)
    return g_variant_new_string ("");
  if (index > zot_provider_table_get_n_providers ())
    return NULL;
  return g_variant_new_string (zot_provider_table_get_nth (index - 1)->name);
}

static gboolean
policy_get_mapping (GValue   *value,
                    GVariant *variant,
                    gpointer  user_data)
{
  return string_to_index (value, variant, policy_ids, G_N_ELEMENTS (policy_ids));
}

static GVariant *
policy_set_mapping (const GValue       *value,
                    const GVariantType *expected_type,
                    gpointer            user_data)
{
  guint index = g_value_get_uint (value);

  if (index >= G_N_ELEMENTS (policy_ids))
    return NULL;
  return g_variant_new_string (policy_ids[index]);
}

/* Applying the model to the host */

static void
apply_model_now (ZotPreferencesWindow *self)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");
  g_autofree char *model = g_settings_get_string (self->settings, "model");
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  ZotProvider *current;

  if (self->host == NULL)
    return;

  /* Automatic: what the command line would pick, from the keys at hand. */
  if (*provider == '\0')
    {
      zot_provider_resolve_config (&config);
      g_free (provider);
      provider = g_strdup (config.name);
    }

  current = zot_agent_get_provider (zot_host_get_agent (self->host));
  if (g_strcmp0 (provider, zot_provider_get_name (current)) == 0 &&
      *model != '\0' && g_strcmp0 (model, zot_provider_get_model (current)) == 0)
    return;

  if (!zot_host_set_model (self->host, provider, *model != '\0' ? model : NULL, &error))
    show_toast (self, error->message);
}

static void
apply_lookup_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ModelApply *apply = user_data;
  ZotPreferencesWindow *self = apply->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  const char *provider;

  key = zot_keyring_lookup_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      model_apply_free (apply);
      return;
    }

  self->busy--;

  provider = g_ptr_array_index (apply->pending, 0);
  /* The environment wins, as on the command line. */
  if (key != NULL)
    zot_provider_store_key (provider, key, FALSE);
  g_ptr_array_remove_index (apply->pending, 0);

  apply_model_step (apply);
}

static void
apply_model_step (ModelApply *apply)
{
  ZotPreferencesWindow *self = apply->self;

  /* A later change started over: it applies, this one does not. */
  if (apply->serial != self->apply_serial)
    {
      model_apply_free (apply);
      return;
    }

  if (apply->pending->len > 0)
    {
      self->busy++;
      zot_keyring_lookup_async (g_ptr_array_index (apply->pending, 0), self->cancellable,
                                apply_lookup_cb, apply);
      return;
    }

  model_apply_free (apply);
  apply_model_now (self);
}

/* Applies provider and model, after fetching from the keyring the keys
 * that a switch needs and the environment lacks. */
static void
apply_model (ZotPreferencesWindow *self)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");
  ModelApply *apply = g_new0 (ModelApply, 1);

  apply->self = self;
  apply->serial = ++self->apply_serial;
  apply->pending = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const char *id = zot_provider_table_get_nth (i)->name;

      if (key_variable (id) == NULL || environment_has_key (id))
        continue;
      if (*provider == '\0' || g_str_equal (provider, id))
        g_ptr_array_add (apply->pending, g_strdup (id));
    }

  apply_model_step (apply);
}

static void
on_model_settings_changed_cb (ZotPreferencesWindow *self,
                              const char           *key,
                              GSettings            *settings)
{
  apply_model (self);
}

static void
on_policy_changed_cb (ZotPreferencesWindow *self,
                      const char           *key,
                      GSettings            *settings)
{
  if (self->host != NULL)
    zot_extension_manager_set_policy (zot_host_get_manager (self->host),
                                      g_settings_get_enum (settings, "approval-policy"));
}

static void
on_model_row_apply_cb (ZotPreferencesWindow *self)
{
  g_autofree char *model = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->model_row))));

  g_settings_set_string (self->settings, "model", model);
}

static void
on_base_url_row_apply_cb (ZotPreferencesWindow *self)
{
  g_autofree char *base_url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->base_url_row))));
  g_autofree char *before = g_settings_get_string (self->settings, "base-url");

  if (g_str_equal (base_url, before))
    return;

  /* The provider in use checks it first: a URL it refuses is not saved,
   * so that the next start does not fail on it. */
  if (self->host != NULL)
    {
      g_autoptr(GError) error = NULL;

      if (!zot_host_set_base_url (self->host, base_url, &error))
        {
          show_toast (self, error->message);
          return;
        }
    }

  g_settings_set_string (self->settings, "base-url", base_url);

  /* A switch to a provider for compatible servers that found no key may
   * go through now: a local server needs none. */
  if (self->host != NULL)
    apply_model (self);

  show_toast (self, *base_url != '\0' ? _("Base URL applied") : _("Back to the default base URL"));
}

/* The key row */

static void
key_stored_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(KeyCall) call = user_data;
  ZotPreferencesWindow *self = call->self;
  g_autoptr(GError) error = NULL;
  gboolean stored;

  stored = zot_keyring_store_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->busy--;

  /* Either way this session uses the key; only the keyring keeps it. */
  zot_provider_store_key (call->provider, call->key, TRUE);
  if (self->host != NULL)
    {
      g_autoptr(GError) apply_error = NULL;

      /* The provider in use takes it at once. */
      if (!zot_host_set_api_key (self->host, call->provider, call->key, &apply_error))
        show_toast (self, apply_error->message);
    }

  if (stored)
    {
      if (g_strcmp0 (call->provider, self->key_provider) == 0)
        set_key_status (self, _("Stored in the keyring"));
      show_toast (self, _("API key stored in the keyring"));
    }
  else
    {
      /* Translators: %s is why the key could not be stored in the keyring */
      g_autofree char *text = g_strdup_printf (_("%s. The key is used until you quit."),
                                               error->message);

      if (g_strcmp0 (call->provider, self->key_provider) == 0)
        set_key_status (self, _("Not stored: no keyring is available"));
      show_toast (self, text);
    }

  apply_model (self);
}

static void
key_cleared_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(KeyCall) call = user_data;
  ZotPreferencesWindow *self = call->self;
  g_autoptr(GError) error = NULL;

  if (!zot_keyring_clear_finish (result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->busy--;
  zot_provider_store_key (call->provider, NULL, TRUE);
  zot_provider_store_key (call->provider, NULL, FALSE);

  if (error != NULL)
    {
      show_toast (self, error->message);
      return;
    }

  if (g_strcmp0 (call->provider, self->key_provider) == 0)
    set_key_status (self, _("No key stored"));
  show_toast (self, _("API key removed from the keyring"));
}

static void
on_api_key_row_apply_cb (ZotPreferencesWindow *self)
{
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->api_key_row));
  g_autofree char *stripped = g_strstrip (g_strdup (key));

  if (self->key_provider == NULL)
    return;

  self->busy++;
  if (*stripped == '\0')
    zot_keyring_clear_async (self->key_provider, self->cancellable, key_cleared_cb,
                             key_call_new (self, self->key_provider, NULL));
  else
    zot_keyring_store_async (self->key_provider, stripped, self->cancellable, key_stored_cb,
                             key_call_new (self, self->key_provider, stripped));
  memset (stripped, 0, strlen (stripped));
}

static void
key_looked_up_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(KeyCall) call = user_data;
  ZotPreferencesWindow *self = call->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  key = zot_keyring_lookup_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->busy--;

  if (g_strcmp0 (call->provider, self->key_provider) != 0)
    return;

  if (key != NULL)
    {
      gtk_editable_set_text (GTK_EDITABLE (self->api_key_row), key);
      set_key_status (self, _("Stored in the keyring"));
      memset (key, 0, strlen (key));
    }
  else if (environment_has_key (call->provider))
    {
      /* Translators: %s is the name of an environment variable such as ANTHROPIC_API_KEY; keep
       * the "$" */
      g_autofree char *status = g_strdup_printf (_("None in the keyring; $%s is used"),
                                                 key_variable (call->provider));

      set_key_status (self, status);
    }
  else
    {
      set_key_status (self, _("No key stored"));
    }
}

/* Which provider's key the row is for: the chosen one, or for Automatic
 * the one in use (the first that takes a key when the demo model runs). */
static const char *
selected_key_provider (ZotPreferencesWindow *self)
{
  const ZotProviderInfo *info = selected_provider (self);

  if (info == NULL)
    {
      const char *current = NULL;

      if (self->host != NULL)
        current = zot_provider_get_name (zot_agent_get_provider (zot_host_get_agent (self->host)));
      if (key_variable (current) != NULL)
        return current;

      for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
        if (zot_provider_table_get_nth (i)->key_variable != NULL)
          return zot_provider_table_get_nth (i)->name;
      return NULL;
    }

  return info->key_variable != NULL ? info->name : NULL;
}

/* @force: also when the row is already for that provider (the first
 * time, when it is for none yet). */
static void
update_key_row (ZotPreferencesWindow *self,
                gboolean              force)
{
  const char *provider = selected_key_provider (self);
  g_autofree char *title = NULL;

  if (!force && g_strcmp0 (provider, self->key_provider) == 0)
    return;

  g_free (self->key_provider);
  self->key_provider = g_strdup (provider);

  gtk_editable_set_text (GTK_EDITABLE (self->api_key_row), "");
  gtk_widget_set_sensitive (GTK_WIDGET (self->api_key_row), provider != NULL);

  if (provider == NULL)
    {
      const ZotProviderInfo *info = selected_provider (self);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->api_key_row), _("API _Key"));
      set_key_status (self, info == NULL || info->offline ? _("The demo model needs no key")
                                                          : _("This provider needs no key"));
      return;
    }

  /* Translators: %s is a provider name such as Anthropic */
  title = g_strdup_printf (_("%s API _Key"), provider_display_name (provider));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->api_key_row), title);
  set_key_status (self, _("Looking in the keyring…"));

  /* An answer for a provider no longer chosen is dropped when it comes. */
  self->busy++;
  zot_keyring_lookup_async (provider, self->cancellable, key_looked_up_cb,
                            key_call_new (self, provider, NULL));
}

static void
update_provider_rows (ZotPreferencesWindow *self,
                      gboolean              force)
{
  const ZotProviderInfo *info = selected_provider (self);

  /* Anthropic takes a base URL too, but the row is there for local
   * servers, which only the providers for compatible servers reach, and
   * for Azure's deployment URL. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->base_url_row),
                            info != NULL && (info->compatible_servers || info->quirks.needs_base_url));
  update_key_row (self, force);
}

static void
on_provider_row_selected_cb (ZotPreferencesWindow *self)
{
  update_provider_rows (self, FALSE);
}

static void
zot_preferences_window_dispose (GObject *object)
{
  ZotPreferencesWindow *self = ZOT_PREFERENCES_WINDOW (object);

  /* Callbacks see the cancellation and leave the window alone. */
  g_cancellable_cancel (self->cancellable);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_PREFERENCES_WINDOW);

  g_clear_object (&self->settings);
  g_clear_object (&self->host);

  G_OBJECT_CLASS (zot_preferences_window_parent_class)->dispose (object);
}

static void
zot_preferences_window_finalize (GObject *object)
{
  ZotPreferencesWindow *self = ZOT_PREFERENCES_WINDOW (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->key_provider, g_free);
  g_clear_pointer (&self->last_toast, g_free);

  G_OBJECT_CLASS (zot_preferences_window_parent_class)->finalize (object);
}

static void
zot_preferences_window_class_init (ZotPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_preferences_window_dispose;
  object_class->finalize = zot_preferences_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, provider_row);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, model_row);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, api_key_row);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, key_status_row);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, policy_row);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, show_resources_switch);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, auto_compact_spin);
  gtk_widget_class_bind_template_child (widget_class, ZotPreferencesWindow, retries_spin);
  gtk_widget_class_bind_template_callback (widget_class, on_model_row_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_base_url_row_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_api_key_row_apply_cb);
}

static void
zot_preferences_window_init (ZotPreferencesWindow *self)
{
  g_autoptr(GListModel) providers = new_provider_model ();

  gtk_widget_init_template (GTK_WIDGET (self));
  zot_accessible_fix_preferences (GTK_WIDGET (self));
  gtk_drop_down_set_model (self->provider_row, providers);
  gtk_drop_down_set_expression (self->provider_row,
                                gtk_property_expression_new (GTK_TYPE_STRING_OBJECT, NULL, "string"));

  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new (APP_ID);

  g_settings_bind_with_mapping (self->settings, "provider",
                                self->provider_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                provider_get_mapping, provider_set_mapping, NULL, NULL);
  /* Typing is not choosing: the model and the URL are saved on Apply. */
  g_settings_bind (self->settings, "model", self->model_row, "text", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "base-url", self->base_url_row, "text",
                   G_SETTINGS_BIND_GET | G_SETTINGS_BIND_NO_SENSITIVITY);
  g_settings_bind_with_mapping (self->settings, "approval-policy",
                                self->policy_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                policy_get_mapping, policy_set_mapping, NULL, NULL);
  g_settings_bind (self->settings, "show-loaded-resources",
                   self->show_resources_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "auto-compact", self->auto_compact_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "max-retries", self->retries_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);

  g_signal_connect_object (self->settings, "changed::provider",
                           G_CALLBACK (on_model_settings_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::model",
                           G_CALLBACK (on_model_settings_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::approval-policy",
                           G_CALLBACK (on_policy_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->provider_row, "notify::selected",
                           G_CALLBACK (on_provider_row_selected_cb), self, G_CONNECT_SWAPPED);
}

/**
 * zot_preferences_window_new:
 * @parent: (nullable): the window it belongs to
 * @host: (nullable): the running host, which changes apply to
 *
 * Returns: (transfer none): a new preferences window; present it
 */
GtkWidget *
zot_preferences_window_new (GtkWindow *parent,
                            ZotHost   *host)
{
  ZotPreferencesWindow *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (host == NULL || ZOT_IS_HOST (host), NULL);

  self = g_object_new (ZOT_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       NULL);
  self->host = host != NULL ? g_object_ref (host) : NULL;

  update_provider_rows (self, TRUE);

  return GTK_WIDGET (self);
}

/* For the tests */

/**
 * _zot_preferences_window_get_widget:
 * @self: a #ZotPreferencesWindow
 * @name: "provider", "model", "base-url", "api-key", "key-status", "policy"
 *   or "show-resources"
 *
 * Returns: (transfer none) (nullable): that row, or the switch
 */
GtkWidget *
_zot_preferences_window_get_widget (ZotPreferencesWindow *self,
                                    const char           *name)
{
  g_return_val_if_fail (ZOT_IS_PREFERENCES_WINDOW (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (g_str_equal (name, "provider"))
    return GTK_WIDGET (self->provider_row);
  if (g_str_equal (name, "model"))
    return GTK_WIDGET (self->model_row);
  if (g_str_equal (name, "base-url"))
    return GTK_WIDGET (self->base_url_row);
  if (g_str_equal (name, "api-key"))
    return GTK_WIDGET (self->api_key_row);
  if (g_str_equal (name, "key-status"))
    return GTK_WIDGET (self->key_status_row);
  if (g_str_equal (name, "policy"))
    return GTK_WIDGET (self->policy_row);
  if (g_str_equal (name, "show-resources"))
    return GTK_WIDGET (self->show_resources_switch);
  if (g_str_equal (name, "auto-compact"))
    return GTK_WIDGET (self->auto_compact_spin);
  if (g_str_equal (name, "max-retries"))
    return GTK_WIDGET (self->retries_spin);
  return NULL;
}

const char *
_zot_preferences_window_get_last_toast (ZotPreferencesWindow *self)
{
  g_return_val_if_fail (ZOT_IS_PREFERENCES_WINDOW (self), NULL);

  return self->last_toast;
}

const char *
_zot_preferences_window_get_key_status (ZotPreferencesWindow *self)
{
  g_return_val_if_fail (ZOT_IS_PREFERENCES_WINDOW (self), NULL);

  return adw_action_row_get_subtitle (self->key_status_row);
}

/**
 * _zot_preferences_window_is_busy:
 * @self: a #ZotPreferencesWindow
 *
 * Returns: whether a keyring call is still running
 */
gboolean
_zot_preferences_window_is_busy (ZotPreferencesWindow *self)
{
  g_return_val_if_fail (ZOT_IS_PREFERENCES_WINDOW (self), FALSE);

  return self->busy > 0;
}
