/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A web configuration file made ready for the HTTP server: parsed
 * (core/webconfig.c), the certificate, key and CA files it names read and
 * loaded once with GnuTLS (a bad pair is refused at load, with a reason,
 * not at every handshake), the TLS version range as a GnuTLS priority
 * string, and the basic-auth users behind their bcrypt cache. Used by the
 * HTTP server at start and reload, and by --check-config.
 */
#pragma once

#include "webauth.h"
#include "webconfig.h"

typedef struct WebSetup {
	WebConfig cfg;
	char *cert_pem, *key_pem, *ca_pem;	/* PEM text; the key is wiped on free */
	char *priorities;			/* GnuTLS, from min_version..max_version */
	WebAuth *auth;
} WebSetup;

/* Reads, parses and checks path; *ret_error says what is wrong (caller frees). */
int websetup_load(const char *path, WebSetup **ret, char **ret_error);
WebSetup *websetup_free(WebSetup *w);
