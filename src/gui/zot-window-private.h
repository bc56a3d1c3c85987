/* zot-window-private.h — the window's insides, shared by zot-window.c and
 * zot-window-actions.c. */
#pragma once

#include "zot-approval-presenter.h"
#include "zot-conversation-sidebar.h"
#include "zot-extensions-page.h"
#include "zot-find-bar.h"
#include "zot-inspector.h"
#include "zot-model-picker.h"
#include "zot-notes-view.h"
#include "zot-panel-pane.h"
#include "zot-prompt-editor.h"
#include "zot-transcript.h"
#include "zot-trust-banner.h"
#include "zot-usage-label.h"
#include "zot-empty-state.h"
#include "zot-window.h"

G_BEGIN_DECLS

struct _ZotWindow
{
  AdwApplicationWindow  parent_instance;

  /* template */
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  AdwHeaderBar         *header_bar;
  GtkToggleButton      *side_pane_button;
  GtkRevealer          *demo_banner;
  GtkRevealer          *resume_bar;
  GtkLabel             *demo_label;
  GtkBox               *conversation_box;
  GtkBox               *side_pane;
  AdwViewStack         *side_stack;
  AdwFlap              *flap;
  /* zot-window-layout.c */
  AdwFlap              *side_flap;
  AdwBin               *sidebar_bin;
  AdwBin               *side_bin;
  GtkSeparator         *sidebar_handle;
  GtkSeparator         *side_handle;
  GtkWidget            *header_extras;
  GtkWidget            *new_button;
  struct _ZotWindowLayout *layout;

  /* views */
  ZotTranscript        *transcript;
  ZotPromptEditor      *prompt_editor;
  ZotPanelPane         *panel_pane;
  ZotNotesView         *notes_view;
  ZotInspector         *inspector;
  ZotExtensionsPage    *extensions_page;
  ZotApprovalPresenter *approvals;
  ZotUsageLabel        *usage_label;
  ZotModelPicker       *model_picker;
  ZotTrustBanner       *trust_banner;
  AdwMessageDialog     *close_dialog;
  /* Asked while a turn runs: where to go once it has stopped. */
  AdwMessageDialog     *switch_dialog;
  int                   switch_kind;
  char                 *switch_path;
  ZotConversationSidebar *sidebar;
  ZotFindBar           *find_bar;
  ZotEmptyState        *empty_state;

  GSettings            *settings;
  ZotHostOptions        options;
  int                   yolo;
  ZotHost              *host;
  /* The views that show the host's manager and agent follow ZotWindow:host
   * through these, and the ones that take the host itself through plain
   * bindings on the window. */
  GBindingGroup        *host_bindings;
  GCancellable         *cancellable;
  char                 *pending_prompt;
  GFile                *pending_install;
  guint                 keyring_pending;
  guint                 n_submitting;
  gboolean              agent_running;
  gboolean              opening_session;
  gboolean              closing;
  gboolean              closed;
  gboolean              close_confirmed;
};

void _zot_window_class_actions_init (ZotWindowClass *klass);
/* zot-window-approvals.c */
void _zot_window_class_approvals_init (ZotWindowClass *klass);
void _zot_window_watch_approvals      (ZotWindow      *self);
void _zot_window_actions_update     (ZotWindow      *self);
void _zot_window_on_policy_notify   (ZotExtensionManager *manager,
                                     GParamSpec          *pspec,
                                     ZotWindow           *self);
void _zot_window_submit_command     (ZotWindow      *self,
                                     const char     *command);

void _zot_window_update_resume_bar (ZotWindow *self);
void _zot_window_submit_finish     (ZotWindow    *self,
                                    GObject      *host,
                                    GAsyncResult *result);

/* zot-window-keynav.c */
gboolean _zot_window_keynav_focus            (GtkWidget        *widget,
                                              GtkDirectionType  direction);
gboolean _zot_window_keynav_handle_prompt_key (ZotWindow       *self,
                                               guint            keyval,
                                               GdkModifierType  state);
void     _zot_window_keynav_init             (ZotWindow        *self);

GtkStyleProvider *_zot_window_ensure_style (GdkDisplay *display);

/* zot-window-switch.c */
typedef enum
{
  ZOT_WINDOW_SWITCH_NONE,
  ZOT_WINDOW_SWITCH_NEW,
  ZOT_WINDOW_SWITCH_NEW_CONTINUOUS,
  ZOT_WINDOW_SWITCH_OPEN,
} ZotWindowSwitch;

void     _zot_window_new_conversation  (ZotWindow  *self,
                                        gboolean    continuous);
void     _zot_window_open_conversation (ZotWindow  *self,
                                        const char *path);
gboolean _zot_window_is_new_command    (const char *text);

G_END_DECLS
