#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ZOT_PROTOCOL_ERROR (zot_protocol_error_quark ())
#define ZOT_MANIFEST_ERROR (zot_manifest_error_quark ())
#define ZOT_INSTALL_ERROR  (zot_install_error_quark ())

/**
 * ZotProtocolError:
 * @ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE: an inbound line exceeded %ZOT_FRAME_MAX_BYTES
 * @ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW: the outbound queue passed its frame or byte bound
 * @ZOT_PROTOCOL_ERROR_WRITE_TIMEOUT: a request write did not finish within its deadline
 * @ZOT_PROTOCOL_ERROR_CLOSED: the peer closed its end, or the channel was closed
 * @ZOT_PROTOCOL_ERROR_TIMEOUT: a reply did not arrive within its deadline
 * @ZOT_PROTOCOL_ERROR_HANDSHAKE: the first frame was not a valid hello
 * @ZOT_PROTOCOL_ERROR_EXITED: the process exited or was killed
 * @ZOT_PROTOCOL_ERROR_SPAWN: the process could not be started
 * @ZOT_PROTOCOL_ERROR_BAD_REPLY: a reply was malformed
 * @ZOT_PROTOCOL_ERROR_UNKNOWN_COMMAND: no command of that name is registered
 * @ZOT_PROTOCOL_ERROR_NOT_READY: the extension cannot take requests in its state
 * @ZOT_PROTOCOL_ERROR_COMMAND_FAILED: a command answered with an `error`
 * @ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION: a command answered with an action this host cannot do
 */
typedef enum
{
  ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE,
  ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW,
  ZOT_PROTOCOL_ERROR_WRITE_TIMEOUT,
  ZOT_PROTOCOL_ERROR_CLOSED,
  ZOT_PROTOCOL_ERROR_TIMEOUT,
  ZOT_PROTOCOL_ERROR_HANDSHAKE,
  ZOT_PROTOCOL_ERROR_EXITED,
  ZOT_PROTOCOL_ERROR_SPAWN,
  ZOT_PROTOCOL_ERROR_BAD_REPLY,
  ZOT_PROTOCOL_ERROR_UNKNOWN_COMMAND,
  ZOT_PROTOCOL_ERROR_NOT_READY,
  ZOT_PROTOCOL_ERROR_COMMAND_FAILED,
  ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION,
} ZotProtocolError;

/**
 * ZotManifestError:
 * @ZOT_MANIFEST_ERROR_NOT_FOUND: the directory has no extension.json
 * @ZOT_MANIFEST_ERROR_PARSE: extension.json is not valid JSON
 * @ZOT_MANIFEST_ERROR_INVALID: a field is missing or has the wrong type
 * @ZOT_MANIFEST_ERROR_EXEC: the program named by exec cannot be found
 */
typedef enum
{
  ZOT_MANIFEST_ERROR_NOT_FOUND,
  ZOT_MANIFEST_ERROR_PARSE,
  ZOT_MANIFEST_ERROR_INVALID,
  ZOT_MANIFEST_ERROR_EXEC,
} ZotManifestError;

/**
 * ZotInstallError:
 * @ZOT_INSTALL_ERROR_EXISTS: an extension of that name is installed already
 * @ZOT_INSTALL_ERROR_NOT_INSTALLED: no installed extension has that name
 * @ZOT_INSTALL_ERROR_GIT: git failed
 * @ZOT_INSTALL_ERROR_COPY: copying the files failed
 * @ZOT_INSTALL_ERROR_NOT_GIT: the extension is not a git checkout
 * @ZOT_INSTALL_ERROR_SOURCE: the source is not a usable directory or git URL
 * @ZOT_INSTALL_ERROR_INVALID_NAME: the name cannot be an installed extension's
 * @ZOT_INSTALL_ERROR_BUILD: the manifest's build failed (`zot ext install --build`)
 */
typedef enum
{
  ZOT_INSTALL_ERROR_EXISTS,
  ZOT_INSTALL_ERROR_NOT_INSTALLED,
  ZOT_INSTALL_ERROR_GIT,
  ZOT_INSTALL_ERROR_COPY,
  ZOT_INSTALL_ERROR_NOT_GIT,
  ZOT_INSTALL_ERROR_SOURCE,
  ZOT_INSTALL_ERROR_INVALID_NAME,
  ZOT_INSTALL_ERROR_BUILD,
} ZotInstallError;

GQuark zot_protocol_error_quark (void);
GQuark zot_manifest_error_quark (void);
GQuark zot_install_error_quark  (void);

G_END_DECLS
