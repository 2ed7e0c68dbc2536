/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "websetup.h"

#include <fcntl.h>
#include <gnutls/crypto.h>
#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define WEB_FILE_MAX (1024 * 1024)


WebSetup *websetup_free(WebSetup *w)
{
	if (!w)
		return NULL;
	webconfig_done(&w->cfg);
	free(w->cert_pem);
	if (w->key_pem)
		explicit_bzero(w->key_pem, strlen(w->key_pem));
	free(w->key_pem);
	free(w->ca_pem);
	free(w->priorities);
	webauth_free(w->auth);
	free(w);
	return NULL;
}

static void websetup_freep(WebSetup **w) { websetup_free(*w); }


/* An inline PEM, or the file it is in. */
static int load_pem(const char *inline_pem, const char *file, const char *what, char **ret, char **ret_error)
{
	if (inline_pem) {
		*ret = strdup(inline_pem);
		return *ret ? 0 : -ENOMEM;
	}
	if (!file)
		return 0;
	int r = read_file_at(AT_FDCWD, file, WEB_FILE_MAX, ret, NULL);
	if (r < 0)
		return set_errorf(ret_error, -EINVAL, "failed to read %s (%s): %s", what, file, read_error_string(r));
	return 0;
}

/* GnuTLS loads them the way libmicrohttpd will: a bad pair is refused here,
 * with a reason, instead of failing every handshake later. */
static int check_credentials(WebSetup *w, char **ret_error)
{
	gnutls_certificate_credentials_t cred;
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return -ENOMEM;
	gnutls_datum_t cert = {(unsigned char *)w->cert_pem, (unsigned)strlen(w->cert_pem)};
	gnutls_datum_t key = {(unsigned char *)w->key_pem, (unsigned)strlen(w->key_pem)};
	int r = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	if (r < 0)
		set_errorf(ret_error, -EINVAL, "failed to load the certificate and key: %s", gnutls_strerror(r));
	if (r >= 0 && w->ca_pem) {
		gnutls_datum_t ca = {(unsigned char *)w->ca_pem, (unsigned)strlen(w->ca_pem)};
		int n = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (n <= 0)
			r = set_errorf(ret_error, -EINVAL, "no client CA certificate could be loaded%s%s", n < 0 ? ": " : "",
				    n < 0 ? gnutls_strerror(n) : "");
	}
	gnutls_certificate_free_credentials(cred);
	return r < 0 ? -EINVAL : 0;
}

static int priorities(WebSetup *w)
{
	Buf b = {0};
	buf_printf(&b, "NORMAL:-VERS-ALL");
	for (unsigned v = w->cfg.min_version; v <= w->cfg.max_version; v++)
		buf_printf(&b, ":+VERS-TLS1.%u", v - 0x0301);
	if (b.oom) {
		buf_free(&b);
		return -ENOMEM;
	}
	w->priorities = b.data;
	return 0;
}

int websetup_load(const char *path, WebSetup **ret, char **ret_error)
{
	_cleanup_(websetup_freep) WebSetup *w = calloc(1, sizeof *w);
	_cleanup_free_ char *text = NULL, *dir = NULL;
	size_t len;
	if (!w)
		return -ENOMEM;
	int r = read_file_at(AT_FDCWD, path, WEB_FILE_MAX, &text, &len);
	if (r < 0)
		return set_errorf(ret_error, -EINVAL, "cannot read %s: %s", path, read_error_string(r));
	dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		strcpy(dir, ".");
	_cleanup_free_ char *perr = NULL;
	r = webconfig_parse(text, len, dir, &w->cfg, &perr);
	if (r < 0)
		return set_errorf(ret_error, -EINVAL, "%s: %s", path, perr ? perr : "invalid");
	if (w->cfg.tls) {
		if ((r = load_pem(w->cfg.cert, w->cfg.cert_file, "cert_file", &w->cert_pem, ret_error)) < 0 ||
		    (r = load_pem(w->cfg.key, w->cfg.key_file, "key_file", &w->key_pem, ret_error)) < 0 ||
		    (r = load_pem(w->cfg.client_ca, w->cfg.client_ca_file, "client_ca_file", &w->ca_pem, ret_error)) < 0)
			return r;
		if ((r = check_credentials(w, ret_error)) < 0 || (r = priorities(w)) < 0)
			return r;
	}
	w->auth = webauth_new(w->cfg.users, w->cfg.n_users);
	if (!w->auth)
		return -ENOMEM;
	/* what a reload compares: the texts, each with its length */
	gnutls_hash_hd_t hd;
	if (gnutls_hash_init(&hd, GNUTLS_DIG_SHA256) < 0)
		return -ENOMEM;
	const char *parts[] = {text, w->cert_pem, w->key_pem, w->ca_pem};
	for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
		uint64_t n = parts[i] ? strlen(parts[i]) : UINT64_MAX;
		gnutls_hash(hd, &n, sizeof n);
		if (parts[i])
			gnutls_hash(hd, parts[i], strlen(parts[i]));
	}
	gnutls_hash_deinit(hd, w->digest);
	*ret = TAKE_PTR(w);
	return 0;
}

bool websetup_same(const WebSetup *a, const WebSetup *b)
{
	if (!a || !b)
		return a == b;
	return memcmp(a->digest, b->digest, sizeof a->digest) == 0;
}

/* exporter-toolkit's client_allowed_sans: DNS, IP, e-mail or URI, exactly. */
bool websetup_san_allowed(const WebSetup *w, gnutls_x509_crt_t crt)
{
	for (unsigned i = 0;; i++) {
		char san[512];
		size_t len = sizeof san - 1;
		int type = gnutls_x509_crt_get_subject_alt_name(crt, i, san, &len, NULL);
		if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			return false;
		if (type < 0)
			continue;
		san[len] = 0;
		if (type == GNUTLS_SAN_IPADDRESS) {
			char ip[INET6_ADDRSTRLEN];
			if (!inet_ntop(len == 4 ? AF_INET : AF_INET6, san, ip, sizeof ip))
				continue;
			snprintf(san, sizeof san, "%s", ip);
		} else if (type != GNUTLS_SAN_DNSNAME && type != GNUTLS_SAN_RFC822NAME && type != GNUTLS_SAN_URI) {
			continue;
		}
		for (unsigned k = 0; k < w->cfg.n_allowed_sans; k++)
			if (streq(w->cfg.allowed_sans[k], san))
				return true;
	}
}

bool websetup_client_cert_ok(const WebSetup *w, gnutls_session_t s)
{
	unsigned n = 0, status = 0;
	const gnutls_datum_t *peer = s ? gnutls_certificate_get_peers(s, &n) : NULL;
	bool given = peer && n > 0, ok;
	WebClientAuth mode = w->cfg.client_auth;
	bool must_give = mode == WEB_CLIENT_REQUIRE_ANY || mode == WEB_CLIENT_REQUIRE_AND_VERIFY;
	bool must_verify = mode == WEB_CLIENT_VERIFY_IF_GIVEN || mode == WEB_CLIENT_REQUIRE_AND_VERIFY;
	ok = given || !must_give;
	if (ok && given && must_verify)
		ok = gnutls_certificate_verify_peers2(s, &status) == 0 && status == 0;
	if (ok && given && w->cfg.n_allowed_sans) {
		gnutls_x509_crt_t crt;
		ok = gnutls_x509_crt_init(&crt) == 0;
		if (ok) {
			ok = gnutls_x509_crt_import(crt, &peer[0], GNUTLS_X509_FMT_DER) == 0 && websetup_san_allowed(w, crt);
			gnutls_x509_crt_deinit(crt);
		}
	}
	return ok;
}
