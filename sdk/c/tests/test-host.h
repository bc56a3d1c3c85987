/* test-host.h: the host's side of the wire, for the SDK's tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Every wait in the tests has this deadline; reaching it fails the test. */
#define TEST_HOST_DEADLINE_SECONDS 20

typedef struct _TestHost TestHost;

TestHost   *test_host_new          (GInputStream  *from_extension,
                                    GOutputStream *to_extension);
void        test_host_free         (TestHost      *host);
void        test_host_send         (TestHost      *host,
                                    const char    *lines);
void        test_host_send_printf  (TestHost      *host,
                                    const char    *format,
                                    ...) G_GNUC_PRINTF (2, 3);
void        test_host_send_bytes   (TestHost      *host,
                                    GBytes        *bytes);
void        test_host_close        (TestHost      *host);
void        test_host_stop_reading (TestHost      *host);
JsonObject *test_host_next         (TestHost      *host);
JsonObject *test_host_expect       (TestHost      *host,
                                    const char    *type);
gboolean    test_host_at_eof       (TestHost      *host);
void        test_host_wait_for     (gboolean      *flag);
void        test_host_wait_until   (gboolean     (*predicate) (gpointer),
                                    gpointer       data);
void        test_host_open_pipes   (GInputStream  **extension_in,
                                    GOutputStream **host_out,
                                    GInputStream  **host_in,
                                    GOutputStream **extension_out);

const char *test_str               (JsonObject    *object,
                                    const char    *member);
char       *test_first_text        (JsonObject    *tool_result);
gboolean    test_strv_has          (JsonObject    *object,
                                    const char    *member,
                                    const char    *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestHost, test_host_free)

G_END_DECLS
