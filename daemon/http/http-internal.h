/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What http.c takes from http-listen.c and http-body.c; nobody else. */
#pragma once

#include <stdbool.h>

/* The port a socket is bound to, 0 if unknown. */
unsigned http_port_of(int fd);
/* A listening socket for addr (non-blocking, dual-stack without a host); -errno. */
int http_bind_listen(const char *addr);
/* Whether an Accept-Encoding header takes gzip. */
bool http_accepts_gzip(const char *accept_encoding);
