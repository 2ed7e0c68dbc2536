/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What http.c takes from http-listen.c and http-body.c; nobody else. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The port a socket is bound to, 0 if unknown. */
unsigned http_port_of(int fd);
/* "http://ADDR:PORT" of the listening socket fd (https with tls; host for a
 * socket that listens on every address): 0, or -errno. */
int http_url_of(int fd, bool tls, const char *host, char *buf, size_t n);
/* A listening socket for addr (non-blocking, dual-stack without a host); -errno. */
int http_bind_listen(const char *addr);
/* Whether an Accept-Encoding header takes gzip. */
bool http_accepts_gzip(const char *accept_encoding);
