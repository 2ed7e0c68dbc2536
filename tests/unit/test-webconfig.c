/* SPDX-License-Identifier: GPL-2.0-or-later */
/* node_exporter's web configuration files parse as exporter-toolkit parses
 * them: the documented sample, relative paths, every client_auth_type, the
 * cross-field rules, strict keys, and hostile input. */
#include "test.h"
#include "util.h"
#include "webconfig.h"

static int parse(const char *text, WebConfig *c, char **err)
{
	return webconfig_parse(text, strlen(text), "/etc/smrd", c, err);
}

static void test_full(void)
{
	const char *text =
		"# exporter-toolkit's docs, filled in\n"
		"tls_server_config:\n"
		"  cert_file: server.crt\n"
		"  key_file: /abs/server.key\n"
		"  client_auth_type: RequireAndVerifyClientCert\n"
		"  client_ca_file: ca.crt\n"
		"  client_allowed_sans: [prometheus.example, 10.0.0.1]\n"
		"  min_version: TLS13\n"
		"  cipher_suites:\n"
		"    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
		"  prefer_server_cipher_suites: false\n"
		"http_server_config:\n"
		"  http2: false\n"
		"  headers:\n"
		"    X-Frame-Options: deny\n"
		"    Strict-Transport-Security: max-age=31536000\n"
		"    X-XSS-Protection: ''\n"
		"basic_auth_users:\n"
		"  alice: $2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG\n"
		"  bob: \"$2b$04$9xxJYYhdUxRt36DaKDAK5eKDVWf4OKcqw66dhxJYGsTFPWzzHuDXi\"\n"
		"rate_limit:\n"
		"  interval: 100ms\n"
		"  burst: 20\n";
	WebConfig c;
	char *err = NULL;
	int r = parse(text, &c, &err);
	if (r < 0)
		fprintf(stderr, "%s\n", err);
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	CHECK(c.tls);
	CHECK_STR(c.cert_file, "/etc/smrd/server.crt");
	CHECK_STR(c.key_file, "/abs/server.key");
	CHECK_STR(c.client_ca_file, "/etc/smrd/ca.crt");
	CHECK_INT(c.client_auth, WEB_CLIENT_REQUIRE_AND_VERIFY);
	CHECK_INT(c.min_version, 0x0304);
	CHECK_INT(c.max_version, 0x0304);
	CHECK_INT(c.n_allowed_sans, 2);
	CHECK_STR(c.allowed_sans[1], "10.0.0.1");
	CHECK_INT(c.n_users, 2);
	CHECK_STR(c.users[0].key, "alice");
	CHECK_INT(c.n_headers, 2);	/* the blank one is unset */
	CHECK_STR(c.headers[0].value, "deny");
	CHECK_NEAR(c.rate_interval, 0.1, 1e-12);
	CHECK_INT(c.rate_burst, 20);
	CHECK(c.ignored && strstr(c.ignored, "cipher_suites") && strstr(c.ignored, "http2"));
	webconfig_done(&c);
}

static void test_defaults(void)
{
	WebConfig c;
	char *err = NULL;
	CHECK_INT(parse("", &c, &err), 0);
	CHECK(!c.tls && c.n_users == 0 && c.min_version == 0x0303 && c.max_version == 0x0304);
	webconfig_done(&c);
	CHECK_INT(parse("basic_auth_users:\n  u: $2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy\n", &c, &err), 0);
	CHECK(!c.tls && c.n_users == 1);
	webconfig_done(&c);
	/* every client_auth_type exporter-toolkit knows, old spelling included */
	const char *types[] = {"RequestClientCert", "RequireAnyClientCert", "RequireClientCert", "VerifyClientCertIfGiven",
			       "RequireAndVerifyClientCert"};
	for (size_t i = 0; i < ELEMENTSOF(types); i++) {
		char text[256];
		snprintf(text, sizeof text, "tls_server_config:\n  cert: x\n  key: y\n  client_ca: z\n  client_auth_type: %s\n",
			 types[i]);
		CHECK_INT(parse(text, &c, &err), 0);
		CHECK(c.tls && c.client_auth != WEB_CLIENT_NONE);
		webconfig_done(&c);
	}
}

static void test_refused(void)
{
	static const struct { const char *text, *says; } bad[] = {
		{"tls_server_config:\n  cert_file: a\n", "missing one of key or key_file"},
		{"tls_server_config:\n  key_file: a\n", "missing one of cert or cert_file"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n", "without a Client Auth Policy"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n", "invalid client_auth_type"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
		 "needs client_ca_file"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n", "unknown TLS version"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n", "above"},
		{"tls_config:\n  cert_file: a\n", "field tls_config not found"},
		{"tls_server_config:\n  certfile: a\n", "field certfile not found in tls_server_config"},
		{"basic_auth_users:\n  alice: plaintext\n", "not a bcrypt hash"},
		{"basic_auth_users:\n  alice: $2y$99$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG\n", "not a bcrypt hash"},
		{"basic_auth_users:\n  'a:b': $2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG\n", "not a valid user name"},
		{"http_server_config:\n  headers:\n    X-Frame-Options: allow\n", "Expected one of: deny, sameorigin"},
		{"http_server_config:\n  headers:\n    Set-Cookie: a\n", "can not be configured"},
		{"http_server_config:\n  http2: maybe\n", "true or false"},
		{"rate_limit:\n  interval: soon\n", "not a duration"},
		{"basic_auth_users: [a, b]\n", "must be a mapping"},
		{"- just\n- a list\n", "must be a mapping"},
		{"tls_server_config: {cert_file: a, key_file: b, cert_file: c}\n", "given twice"},
		{"key: [unclosed\n", "line"},
		{"tls_server_config:\n  cert_file: [a]\n  key_file: b\n", "must be a string"},
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		WebConfig c;
		char *err = NULL;
		int r = parse(bad[i].text, &c, &err);
		if (r == 0)
			webconfig_done(&c);
		if (r == 0 || !err || !strstr(err, bad[i].says))
			fprintf(stderr, "case %zu: got %d '%s', wanted an error saying '%s'\n", i, r, err ? err : "",
				bad[i].says);
		CHECK(r < 0 && err && strstr(err, bad[i].says));
		free(err);
	}
	/* a NUL byte, and a file too large */
	WebConfig c;
	char *err = NULL;
	CHECK(webconfig_parse("a: b\0c", 6, NULL, &c, &err) < 0);
	free(err);
	err = NULL;
	size_t n = 2 << 20;
	char *big = malloc(n);
	memset(big, ' ', n);
	CHECK_INT(webconfig_parse(big, n, NULL, &c, &err), -EFBIG);
	free(big);
	free(err);
}

int main(void)
{
	test_full();
	test_defaults();
	test_refused();
	CHECK(webconfig_hash_valid("$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG"));
	CHECK(!webconfig_hash_valid("$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7z"));
	CHECK(!webconfig_hash_valid("$1$abc$def"));
	return test_done("test-webconfig");
}
