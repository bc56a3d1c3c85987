#include "zot-error.h"

G_DEFINE_QUARK (zot-protocol-error-quark, zot_protocol_error)
G_DEFINE_QUARK (zot-manifest-error-quark, zot_manifest_error)
G_DEFINE_QUARK (zot-install-error-quark, zot_install_error)
