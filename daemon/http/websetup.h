/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A web configuration file made ready for the HTTP server: parsed
 * (daemon/http/webconfig.c), the certificate, key and CA files it names read and
 * loaded once with GnuTLS (a bad pair is refused at load, with a reason,
 * not at every handshake), the TLS version range as a GnuTLS priority
 * string, and the basic-auth users behind their bcrypt cache. Used by the
 * HTTP server at start and reload, and by --check-config.
 */
#pragma once

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "webauth.h"
#include "webconfig.h"

typedef struct WebSetup {
	WebConfig cfg;
	char *cert_pem, *key_pem, *ca_pem;	/* PEM text; the key is wiped on free */
	char *priorities;			/* GnuTLS, from min_version..max_version */
	WebAuth *auth;
	uint8_t digest[32];			/* SHA-256 of the file and every file it names, as read */
} WebSetup;

/* Reads, parses and checks path; *ret_error says what is wrong (caller frees). */
int websetup_load(const char *path, WebSetup **ret, char **ret_error);
WebSetup *websetup_free(WebSetup *w);
/* Whether a and b were loaded from the same texts (NULL: no web configuration). */
bool websetup_same(const WebSetup *a, const WebSetup *b);

/* exporter-toolkit's client_allowed_sans: whether the client certificate
 * names one of them (DNS, IP, e-mail or URI), exactly. */
bool websetup_san_allowed(const WebSetup *w, gnutls_x509_crt_t crt);
/* Whether the client certificate of TLS session s (NULL: none) passes
 * client_auth_type, client_ca_file and client_allowed_sans. */
bool websetup_client_cert_ok(const WebSetup *w, gnutls_session_t s);
