/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The smrctl <-> smrd control protocol, version 1: one JSON object per line
 * each way over a UNIX stream socket. docs/protocol.md is the reference;
 * both sides encode and validate through these functions.
 */
#pragma once

#include <errno.h>
#include <json-c/json.h>

#define PROTO_VERSION 1
#define PROTO_MAX_REQUEST 8192		/* bytes, newline included */
#define PROTO_MAX_REPLY (8 * 1024 * 1024)

typedef enum ProtoError {
	PROTO_ERR_BAD_REQUEST,		/* not JSON, not an object, missing fields */
	PROTO_ERR_VERSION,		/* a version this daemon does not speak */
	PROTO_ERR_TOO_LARGE,
	PROTO_ERR_UNKNOWN_COMMAND,
	PROTO_ERR_BAD_ARGUMENT,
	PROTO_ERR_NO_SUCH_DEVICE,
	PROTO_ERR_PERMISSION,
	PROTO_ERR_BUSY,
	PROTO_ERR_INTERNAL,
	_PROTO_ERR_MAX,
	_PROTO_ERR_INVALID = -EINVAL,
} ProtoError;

const char *proto_error_to_string(ProtoError e);

/* Encodes a request line (with '\n'); args may be NULL. The caller frees. */
char *proto_encode_request(const char *command, json_object *args);
/* A JSON number written with the precision it carries (see format_number):
 * 0.8, not 0.80000000000000004; NULL (JSON null) for NaN and infinities. */
json_object *json_number(double v, int decimals);
/* Decodes one request line; on failure returns -EINVAL and sets *ret_err. */
int proto_decode_request(const char *line, size_t len, char **ret_command, json_object **ret_args,
			 ProtoError *ret_err, char **ret_message);
/* Encodes a success reply; takes ownership of result (may be NULL). */
char *proto_encode_ok(json_object *result);
/* Encodes an error reply. */
char *proto_encode_error(ProtoError e, const char *message);
/* Decodes a reply: 0 with *ret_result on success, -EREMOTE with the daemon's
 * error code and message, -EBADMSG for a malformed reply. */
int proto_decode_reply(const char *line, json_object **ret_result, char **ret_code, char **ret_message);
