/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libyaml builds the document; this walks it against the schema of
 * exporter-toolkit's docs/web-configuration.md. The same rules as there:
 * the defaults (TLS 1.2 to 1.3), "client CA's have been configured without
 * a Client Auth Policy" is an error, headers are limited to the five that
 * exporter-toolkit allows with their allowed values. What Go's TLS stack
 * has and GnuTLS names differently (cipher_suites, curve_preferences,
 * prefer_server_cipher_suites, http2) is accepted and listed as ignored, so
 * that a node_exporter file works unchanged.
 */
#include "webconfig.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util.h"

#define WEB_MAX_BYTES (1024 * 1024)

static const char *const auth_names[_WEB_CLIENT_MAX] = {
	[WEB_CLIENT_NONE] = "NoClientCert",
	[WEB_CLIENT_REQUEST] = "RequestClientCert",
	[WEB_CLIENT_REQUIRE_ANY] = "RequireAnyClientCert",
	[WEB_CLIENT_VERIFY_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEB_CLIENT_REQUIRE_AND_VERIFY] = "RequireAndVerifyClientCert",
};

const char *web_client_auth_to_string(WebClientAuth a)
{
	return a >= 0 && a < _WEB_CLIENT_MAX ? auth_names[a] : NULL;
}

typedef struct Parse {
	yaml_document_t *doc;
	const char *base;
	WebConfig *c;
	char **err;
} Parse;

static int fail(Parse *p, const yaml_node_t *n, const char *fmt, ...) _printf_(3, 4);
static int fail(Parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p->err && asprintf(p->err, "line %zu: %s", n ? n->start_mark.line + 1 : 0, msg) < 0)
		*p->err = NULL;
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *node(Parse *p, int id) { return yaml_document_get_node(p->doc, id); }

/* A scalar that must be a string; strings may not hold NUL bytes. */
static int get_string(Parse *p, const yaml_node_t *n, const char *key, char **slot)
{
	const char *v = scalar(n);
	if (!v || strlen(v) != n->data.scalar.length)
		return fail(p, n, "%s must be a string", key);
	char *copy = strdup(v);
	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

static int get_path(Parse *p, const yaml_node_t *n, const char *key, char **slot)
{
	int r = get_string(p, n, key, slot);
	if (r < 0 || !**slot || (*slot)[0] == '/' || !p->base)
		return r;
	char *joined;
	if (asprintf(&joined, "%s/%s", p->base, *slot) < 0)
		return -ENOMEM;
	free(*slot);
	*slot = joined;
	return 0;
}

static int get_version(Parse *p, const yaml_node_t *n, const char *key, unsigned *slot)
{
	static const struct { const char *name; unsigned v; } vers[] = {
		{"TLS10", 0x0301}, {"TLS11", 0x0302}, {"TLS12", 0x0303}, {"TLS13", 0x0304},
	};
	const char *v = scalar(n);
	for (size_t i = 0; v && i < ELEMENTSOF(vers); i++)
		if (streq(v, vers[i].name)) {
			*slot = vers[i].v;
			return 0;
		}
	return fail(p, n, "%s: unknown TLS version '%.40s' (TLS10, TLS11, TLS12, TLS13)", key, v ? v : "?");
}

static int note_ignored(Parse *p, const char *key)
{
	char *n;
	if (asprintf(&n, "%s%s%s", p->c->ignored ? p->c->ignored : "", p->c->ignored ? ", " : "", key) < 0)
		return -ENOMEM;
	free(p->c->ignored);
	p->c->ignored = n;
	return 0;
}

/* A list of strings (client_allowed_sans), or one ignored. */
static int get_list(Parse *p, const yaml_node_t *n, const char *key, char ***list, unsigned *count)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(p, n, "%s must be a list", key);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		const char *v = scalar(node(p, *it));
		if (!v)
			return fail(p, n, "%s must be a list of strings", key);
		if (!list)
			continue;
		if (*count >= WEB_MAX_ENTRIES)
			return fail(p, n, "%s: more than %d entries", key, WEB_MAX_ENTRIES);
		char **nl = realloc(*list, (*count + 1) * sizeof *nl);
		if (!nl)
			return -ENOMEM;
		*list = nl;
		if (!(nl[*count] = strdup(v)))
			return -ENOMEM;
		(*count)++;
	}
	return 0;
}

static int get_bool(Parse *p, const yaml_node_t *n, const char *key)
{
	const char *v = scalar(n);
	if (!v || !(streq(v, "true") || streq(v, "false")))
		return fail(p, n, "%s must be true or false", key);
	return 0;
}

static int get_client_auth(Parse *p, const yaml_node_t *n)
{
	const char *v = scalar(n);
	for (int i = 0; v && i < _WEB_CLIENT_MAX; i++)
		if (streq(v, auth_names[i])) {
			p->c->client_auth = i;
			return 0;
		}
	if (v && (streq(v, "RequireClientCert") || !*v)) {	/* exporter-toolkit's old name; "" = default */
		p->c->client_auth = *v ? WEB_CLIENT_REQUIRE_ANY : WEB_CLIENT_NONE;
		return 0;
	}
	return fail(p, n, "invalid client_auth_type '%.40s'", v ? v : "?");
}

typedef int (*FieldFn)(Parse *p, const char *key, const yaml_node_t *v);

/* Calls fn for every key of a mapping; keys must be strings, once each. */
static int each_pair(Parse *p, const yaml_node_t *map, const char *what, FieldFn fn)
{
	if (map->type == YAML_SCALAR_NODE && !map->data.scalar.length)
		return 0;	/* "key:" with nothing: an empty mapping */
	if (map->type != YAML_MAPPING_NODE)
		return fail(p, map, "%s must be a mapping", what);
	for (yaml_node_pair_t *a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top; a++) {
		const char *k = scalar(node(p, a->key));
		if (!k)
			return fail(p, node(p, a->key), "%s: keys must be strings", what);
		for (yaml_node_pair_t *b = map->data.mapping.pairs.start; b < a; b++)
			if (streq_ptr(scalar(node(p, b->key)), k))
				return fail(p, node(p, a->key), "%s: '%.60s' is given twice", what, k);
		int r = fn(p, k, node(p, a->value));
		if (r < 0)
			return r;
	}
	return 0;
}

static int tls_field(Parse *p, const char *k, const yaml_node_t *v)
{
	WebConfig *c = p->c;
	if (streq(k, "cert_file"))
		return get_path(p, v, k, &c->cert_file);
	if (streq(k, "key_file"))
		return get_path(p, v, k, &c->key_file);
	if (streq(k, "client_ca_file"))
		return get_path(p, v, k, &c->client_ca_file);
	if (streq(k, "cert"))
		return get_string(p, v, k, &c->cert);
	if (streq(k, "key"))
		return get_string(p, v, k, &c->key);
	if (streq(k, "client_ca"))
		return get_string(p, v, k, &c->client_ca);
	if (streq(k, "client_auth_type"))
		return get_client_auth(p, v);
	if (streq(k, "min_version"))
		return get_version(p, v, k, &c->min_version);
	if (streq(k, "max_version"))
		return get_version(p, v, k, &c->max_version);
	if (streq(k, "client_allowed_sans"))
		return get_list(p, v, k, &c->allowed_sans, &c->n_allowed_sans);
	if (streq(k, "cipher_suites") || streq(k, "curve_preferences")) {
		int r = get_list(p, v, k, NULL, NULL);
		return r < 0 ? r : note_ignored(p, k);
	}
	if (streq(k, "prefer_server_cipher_suites")) {
		int r = get_bool(p, v, k);
		return r < 0 ? r : note_ignored(p, k);
	}
	return fail(p, v, "field %.60s not found in tls_server_config", k);
}

/* exporter-toolkit's extraHTTPHeaders: these five, some with fixed values. */
static int header_field(Parse *p, const char *k, const yaml_node_t *v)
{
	static const struct { const char *name, *allowed[2]; } known[] = {
		{"Strict-Transport-Security", {NULL}}, {"X-Content-Type-Options", {"nosniff"}},
		{"X-Frame-Options", {"deny", "sameorigin"}}, {"X-XSS-Protection", {NULL}},
		{"Content-Security-Policy", {NULL}},
	};
	const char *val = scalar(v);
	if (!val || strpbrk(val, "\r\n") || strlen(val) != v->data.scalar.length)
		return fail(p, v, "header %.60s must be a one-line string", k);
	for (size_t i = 0; i < ELEMENTSOF(known); i++) {
		if (!streq(k, known[i].name))
			continue;
		bool ok = !known[i].allowed[0];
		for (size_t j = 0; j < ELEMENTSOF(known[i].allowed) && known[i].allowed[j]; j++)
			ok |= streq(val, known[i].allowed[j]);
		if (!ok)
			return fail(p, v, "invalid value for %s. Expected one of: %s%s%s, but got: %.60s", k,
				    known[i].allowed[0], known[i].allowed[1] ? ", " : "",
				    known[i].allowed[1] ? known[i].allowed[1] : "", val);
		if (!*val)
			return 0;	/* "Unset if blank" */
		WebConfig *c = p->c;
		if (c->n_headers >= WEB_MAX_ENTRIES)
			return -E2BIG;
		WebPair *n = realloc(c->headers, (c->n_headers + 1) * sizeof *n);
		if (!n)
			return -ENOMEM;
		c->headers = n;
		n[c->n_headers] = (WebPair){strdup(k), strdup(val)};
		if (!n[c->n_headers].key || !n[c->n_headers].value)
			return -ENOMEM;
		c->n_headers++;
		return 0;
	}
	return fail(p, v, "HTTP header \"%.60s\" can not be configured", k);
}

static int http_field(Parse *p, const char *k, const yaml_node_t *v)
{
	if (streq(k, "headers"))
		return each_pair(p, v, "headers", header_field);
	if (streq(k, "http2")) {
		int r = get_bool(p, v, k);
		return r < 0 ? r : note_ignored(p, "http2");
	}
	return fail(p, v, "field %.60s not found in http_server_config", k);
}

bool webconfig_hash_valid(const char *h)
{
	/* $2?$NN$ then 53 characters of bcrypt's base64 */
	if (!h || strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' || h[6] != '$')
		return false;
	int cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || cost < 4 || cost > 31)
		return false;
	return strspn(h + 7, "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == 53;
}

static int user_field(Parse *p, const char *k, const yaml_node_t *v)
{
	WebConfig *c = p->c;
	const char *hash = scalar(v);
	if (!*k || strchr(k, ':'))
		return fail(p, v, "basic_auth_users: '%.60s' is not a valid user name", k);
	if (!webconfig_hash_valid(hash))
		return fail(p, v, "basic_auth_users: the password of %.60s is not a bcrypt hash (htpasswd -nBC 10 \"\")", k);
	if (c->n_users >= WEB_MAX_ENTRIES)
		return fail(p, v, "basic_auth_users: more than %d users", WEB_MAX_ENTRIES);
	WebPair *n = realloc(c->users, (c->n_users + 1) * sizeof *n);
	if (!n)
		return -ENOMEM;
	c->users = n;
	n[c->n_users] = (WebPair){strdup(k), strdup(hash)};
	if (!n[c->n_users].key || !n[c->n_users].value)
		return -ENOMEM;
	c->n_users++;
	return 0;
}

/* Go's time.ParseDuration, for the few units a rate limit needs. */
static int parse_duration(const char *s, double *ret)
{
	double total = 0;
	if (!s || !*s)
		return -EINVAL;
	if (streq(s, "0")) {
		*ret = 0;
		return 0;
	}
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		if (end == s || v < 0 || !isfinite(v))
			return -EINVAL;
		double unit = startswith(end, "ms") ? 1e-3 : startswith(end, "us") ? 1e-6 : startswith(end, "ns") ? 1e-9
			    : *end == 'h' ? 3600 : *end == 'm' ? 60 : *end == 's' ? 1 : -1;
		if (unit < 0)
			return -EINVAL;
		total += v * unit;
		s = end + (unit < 1 && unit > 0 ? 2 : 1);
	}
	*ret = total;
	return 0;
}

static int rate_field(Parse *p, const char *k, const yaml_node_t *v)
{
	const char *s = scalar(v);
	if (streq(k, "interval")) {
		if (parse_duration(s, &p->c->rate_interval) < 0 || p->c->rate_interval > 86400)
			return fail(p, v, "rate_limit interval: '%.40s' is not a duration such as 100ms or 1s", s ? s : "?");
		return 0;
	}
	if (streq(k, "burst")) {
		uint64_t b;
		if (parse_u64(s, &b) < 0 || b > 1000000)
			return fail(p, v, "rate_limit burst must be a whole number");
		p->c->rate_burst = (unsigned)b;
		return 0;
	}
	return fail(p, v, "field %.60s not found in rate_limit", k);
}

static int top_field(Parse *p, const char *k, const yaml_node_t *v)
{
	if (streq(k, "tls_server_config"))
		return each_pair(p, v, k, tls_field);
	if (streq(k, "http_server_config"))
		return each_pair(p, v, k, http_field);
	if (streq(k, "basic_auth_users"))
		return each_pair(p, v, k, user_field);
	if (streq(k, "rate_limit"))
		return each_pair(p, v, k, rate_field);
	return fail(p, v, "field %.60s not found in the web configuration", k);
}

/* The cross-field rules, as exporter-toolkit's ConfigToTLSConfig has them. */
static int validate(Parse *p)
{
	WebConfig *c = p->c;
	bool any = c->cert_file || c->key_file || c->cert || c->key || c->client_ca_file || c->client_ca ||
		   c->client_auth != WEB_CLIENT_NONE;
	if (c->min_version > c->max_version)
		return fail(p, NULL, "tls_server_config: min_version is above max_version");
	if (!any)
		return 0;
	if ((c->cert_file && c->cert) || (c->key_file && c->key) || (c->client_ca_file && c->client_ca))
		return fail(p, NULL, "tls_server_config: give a certificate, key or CA either inline or as a file, not both");
	if (!c->cert_file && !c->cert)
		return fail(p, NULL, "tls_server_config: missing one of cert or cert_file");
	if (!c->key_file && !c->key)
		return fail(p, NULL, "tls_server_config: missing one of key or key_file");
	if ((c->client_ca_file || c->client_ca) && c->client_auth == WEB_CLIENT_NONE)
		return fail(p, NULL, "tls_server_config: client CA's have been configured without a Client Auth Policy");
	/* GnuTLS asks for a client certificate only when it has CAs to name */
	if (c->client_auth != WEB_CLIENT_NONE && !c->client_ca_file && !c->client_ca)
		return fail(p, NULL, "tls_server_config: client_auth_type %s needs client_ca_file (or client_ca) in smrd",
			    web_client_auth_to_string(c->client_auth));
	c->tls = true;
	return 0;
}

int webconfig_parse(const char *text, size_t len, const char *base_dir, WebConfig *ret, char **ret_error)
{
	WebConfig c = {.min_version = 0x0303, .max_version = 0x0304};
	yaml_parser_t parser;
	yaml_document_t doc;
	*ret_error = NULL;
	if (len > WEB_MAX_BYTES) {
		*ret_error = strdup("larger than 1 MiB");
		return -EFBIG;
	}
	if (memchr(text, 0, len)) {
		*ret_error = strdup("contains a NUL byte");
		return -EINVAL;
	}
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (asprintf(ret_error, "line %zu: %s", parser.problem_mark.line + 1,
			     parser.problem ? parser.problem : "invalid YAML") < 0)
			*ret_error = NULL;
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	Parse p = {.doc = &doc, .base = base_dir, .c = &c, .err = ret_error};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	int r = root ? each_pair(&p, root, "the web configuration", top_field) : 0;	/* an empty file: defaults */
	if (r == 0)
		r = validate(&p);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (r < 0) {
		if (r == -ENOMEM && !*ret_error)
			*ret_error = strdup("out of memory");
		webconfig_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

static void free_pairs(WebPair *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(p[i].key);
		free(p[i].value);
	}
	free(p);
}

void webconfig_done(WebConfig *c)
{
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	free(c->cert);
	if (c->key)
		explicit_bzero(c->key, strlen(c->key));
	free(c->key);
	free(c->client_ca);
	for (unsigned i = 0; i < c->n_allowed_sans; i++)
		free(c->allowed_sans[i]);
	free(c->allowed_sans);
	free_pairs(c->users, c->n_users);
	free_pairs(c->headers, c->n_headers);
	free(c->ignored);
	*c = (WebConfig){0};
}
