/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * node_exporter's web configuration file (the Prometheus exporter-toolkit
 * format, --web.config.file), parsed as strictly as exporter-toolkit does:
 * unknown keys are errors, relative paths are relative to the file's
 * directory. Pure: text in, struct out; the files it names are read by the
 * HTTP server.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum WebClientAuth {
	WEB_CLIENT_NONE,		/* NoClientCert */
	WEB_CLIENT_REQUEST,		/* RequestClientCert */
	WEB_CLIENT_REQUIRE_ANY,		/* RequireAnyClientCert */
	WEB_CLIENT_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	WEB_CLIENT_REQUIRE_AND_VERIFY,	/* RequireAndVerifyClientCert */
	_WEB_CLIENT_MAX,
	_WEB_CLIENT_INVALID = -EINVAL,
} WebClientAuth;

typedef struct WebPair {
	char *key, *value;
} WebPair;

#define WEB_MAX_ENTRIES 256		/* users, headers, SANs: each */

typedef struct WebConfig {
	bool tls;			/* a tls_server_config with a certificate */
	char *cert_file, *key_file, *client_ca_file;	/* absolute */
	char *cert, *key, *client_ca;	/* inline PEM */
	WebClientAuth client_auth;
	unsigned min_version, max_version;	/* 0x0301 (TLS 1.0) .. 0x0304 (TLS 1.3) */
	char **allowed_sans;
	unsigned n_allowed_sans;
	WebPair *users;			/* name -> bcrypt hash */
	unsigned n_users;
	WebPair *headers;		/* extra response headers */
	unsigned n_headers;
	double rate_interval;		/* seconds between requests; 0 = no limit */
	unsigned rate_burst;
	char *ignored;			/* keys accepted but not applied, comma-separated, or NULL */
} WebConfig;

/* Parses the file's text; base_dir resolves relative paths. -EINVAL with
 * *ret_error naming the problem (and its line, when YAML knows it). */
int webconfig_parse(const char *text, size_t len, const char *base_dir, WebConfig *ret, char **ret_error);
void webconfig_done(WebConfig *c);
const char *web_client_auth_to_string(WebClientAuth a);
/* A bcrypt hash as exporter-toolkit accepts it ($2a$, $2b$, $2y$, cost 4..31). */
bool webconfig_hash_valid(const char *hash);
