/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control protocol codec: round trips and every kind of bad request. */
#include <stdlib.h>

#include "protocol.h"
#include "test.h"

static void test_roundtrip(void)
{
	json_object *args = json_object_new_object();
	json_object_object_add(args, "device", json_object_new_string("sda"));
	char *line = proto_encode_request("show", args);
	json_object_put(args);
	CHECK(line && line[strlen(line) - 1] == '\n');

	char *cmd = NULL, *msg = NULL;
	json_object *got = NULL, *dev;
	ProtoError e;
	CHECK_INT(proto_decode_request(line, strlen(line), &cmd, &got, &e, &msg), 0);
	CHECK_STR(cmd, "show");
	CHECK(json_object_object_get_ex(got, "device", &dev));
	CHECK_STR(json_object_get_string(dev), "sda");
	free(cmd);
	free(line);
	json_object_put(got);

	json_object *res = json_object_new_object();
	json_object_object_add(res, "x", json_object_new_int(3));
	line = proto_encode_ok(res);
	json_object *out = NULL;
	char *code = NULL;
	CHECK_INT(proto_decode_reply(line, &out, &code, &msg), 0);
	CHECK(json_object_object_get_ex(out, "x", &dev) && json_object_get_int(dev) == 3);
	json_object_put(out);
	free(line);

	line = proto_encode_error(PROTO_ERR_NO_SUCH_DEVICE, "sdz is not a watched disk");
	CHECK_INT(proto_decode_reply(line, &out, &code, &msg), -EREMOTE);
	CHECK_STR(code, "no-such-device");
	CHECK_STR(msg, "sdz is not a watched disk");
	free(code);
	free(msg);
	free(line);
	CHECK_INT(proto_decode_reply("{\"status\":", &out, &code, &msg), -EBADMSG);
	CHECK_INT(proto_decode_reply("[]", &out, &code, &msg), -EBADMSG);
}

static void expect_error(const char *req, size_t len, ProtoError want)
{
	char *cmd = NULL, *msg = NULL;
	json_object *args = NULL;
	ProtoError e = _PROTO_ERR_INVALID;
	int r = proto_decode_request(req, len, &cmd, &args, &e, &msg);
	CHECK_INT(r, -EINVAL);
	if (e != want)
		fprintf(stderr, "request %.40s: got %s\n", req, proto_error_to_string(e));
	CHECK_INT(e, want);
	CHECK(msg != NULL && *msg);
	CHECK(cmd == NULL && args == NULL);
	free(msg);
}

static void test_bad_requests(void)
{
#define BAD(s, e) expect_error(s, sizeof(s) - 1, e)
	BAD("", PROTO_ERR_BAD_REQUEST);
	BAD("hello\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":1,\"command\":\"status\"", PROTO_ERR_BAD_REQUEST);	/* half-sent */
	BAD("[1,2]\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"command\":\"status\"}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":\"1\",\"command\":\"status\"}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":2,\"command\":\"status\"}\n", PROTO_ERR_VERSION);
	BAD("{\"version\":1,\"command\":7}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":1,\"command\":\"show\",\"args\":[1]}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":1,\"command\":\"status\"} trailing\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":1,\"command\":\"st\0atus\"}\n", PROTO_ERR_BAD_REQUEST);
	/* RFC 8259 strictly (fuzz-protocol found both read back otherwise) */
	BAD("{\"version\":1,\"command\":\"events\",\"args\":{\"since\":40E}}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":1,\"command\":\"events\",\"args\":{\"\xd7n\":0}}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{'version':1,'command':'status'}\n", PROTO_ERR_BAD_REQUEST);
	/* json-c reads these, RFC 8259 has no such number; NaN never equals
	 * itself read back (fuzz-protocol at seed 1) */
	BAD("{\"version\":1,\"command\":\"sw\",\"args\":{\"d\":NaN}}\n", PROTO_ERR_BAD_REQUEST);
	BAD("{\"version\":1,\"command\":\"events\",\"args\":{\"since\":[-Infinity]}}\n", PROTO_ERR_BAD_REQUEST);
#undef BAD
	{
		/* UTF-8 that is valid stays welcome */
		const char ok[] = "{\"version\":1,\"command\":\"show\",\"args\":{\"device\":\"d\xc3\xa9v\"}}\n";
		char *cmd = NULL, *msg = NULL;
		json_object *args = NULL;
		ProtoError e;
		CHECK_INT(proto_decode_request(ok, sizeof ok - 1, &cmd, &args, &e, &msg), 0);
		free(cmd);
		free(msg);
		json_object_put(args);
	}
	char *big = malloc(PROTO_MAX_REQUEST + 10);
	memset(big, ' ', PROTO_MAX_REQUEST + 9);
	big[PROTO_MAX_REQUEST + 9] = 0;
	expect_error(big, PROTO_MAX_REQUEST + 9, PROTO_ERR_TOO_LARGE);
	free(big);
	/* Deep nesting must not blow the stack: the tokenizer depth is bounded. */
	char deep[4096];
	memset(deep, '[', sizeof deep - 1);
	deep[sizeof deep - 1] = 0;
	expect_error(deep, strlen(deep), PROTO_ERR_BAD_REQUEST);
}

int main(void)
{
	test_roundtrip();
	test_bad_requests();
	return test_done("test-protocol");
}
