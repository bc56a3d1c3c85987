/* zot-approval-presenter-private.h — for the tests. */
#pragma once

#include "zot-approval-presenter.h"

G_BEGIN_DECLS

const char *_zot_approval_presenter_get_oldest_id (ZotApprovalPresenter *self);
guint       _zot_approval_presenter_get_n_open    (ZotApprovalPresenter *self);

G_END_DECLS
