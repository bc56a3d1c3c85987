/* zot-approval-presenter-private.h — for the tests. */
#pragma once

#include <adwaita.h>

#include "zot-approval-presenter.h"

G_BEGIN_DECLS

ZotApproval      *_zot_approval_presenter_get_current    (ZotApprovalPresenter *self);
const char       *_zot_approval_presenter_get_current_id (ZotApprovalPresenter *self);
AdwMessageDialog *_zot_approval_presenter_get_dialog     (ZotApprovalPresenter *self);
guint             _zot_approval_presenter_get_n_waiting  (ZotApprovalPresenter *self);
void              _zot_approval_presenter_respond        (ZotApprovalPresenter *self,
                                                          const char           *response_id);

G_END_DECLS
