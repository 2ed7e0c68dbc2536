/* SPDX-License-Identifier: GPL-2.0-or-later */
/* node_exporter's web configuration from any text: refused with a reason,
 * or accepted with every rule exporter-toolkit has holding. */
#include "fuzz.h"
#include "webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	WebConfig c;
	char *err = NULL;
	if (webconfig_parse((const char *)data, size, "/etc/smrd", &c, &err) == 0) {
		FUZZ_ASSERT(c.min_version <= c.max_version);
		FUZZ_ASSERT(!c.tls || ((c.cert || c.cert_file) && (c.key || c.key_file)));
		FUZZ_ASSERT(c.client_auth == WEB_CLIENT_NONE || c.client_ca || c.client_ca_file);
		for (unsigned i = 0; i < c.n_users; i++)
			FUZZ_ASSERT(webconfig_hash_valid(c.users[i].value));
		webconfig_done(&c);
	} else {
		FUZZ_ASSERT(err && *err);
	}
	free(err);
	return 0;
}
