/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control protocol from any bytes, both directions: a request that
 * decodes encodes back to one that decodes to the same command; an error
 * always has a code and a message; a reply decodes or is malformed. */
#include <errno.h>

#include "fuzz.h"
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cmd = NULL, *msg = NULL;
	json_object *args = NULL;
	ProtoError e = _PROTO_ERR_INVALID;
	if (proto_decode_request((const char *)data, size, &cmd, &args, &e, &msg) == 0) {
		char *line = proto_encode_request(cmd, args), *cmd2 = NULL, *msg2 = NULL;
		json_object *args2 = NULL;
		FUZZ_ASSERT(line);
		FUZZ_ASSERT(proto_decode_request(line, strlen(line), &cmd2, &args2, &e, &msg2) == 0);
		FUZZ_ASSERT(strcmp(cmd, cmd2) == 0 && json_object_equal(args, args2));
		free(line);
		free(cmd2);
		json_object_put(args2);
		free(msg2);
	} else {
		FUZZ_ASSERT(proto_error_to_string(e) && msg);
	}
	free(cmd);
	free(msg);
	json_object_put(args);
	char *text = fuzz_text(data, size), *code = NULL;
	json_object *res = NULL;
	msg = NULL;
	int r = proto_decode_reply(text, &res, &code, &msg);
	FUZZ_ASSERT(r == 0 || r == -EREMOTE || r == -EBADMSG);
	json_object_put(res);
	free(code);
	free(msg);
	free(text);
	return 0;
}
