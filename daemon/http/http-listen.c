/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The listen address: node_exporter's form (":9863", "127.0.0.1:9863",
 * "[::1]:9863"), its socket, and whether a socket the service manager
 * passed listens where the configuration says.
 */
#include "http.h"
#include "http-internal.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

int http_parse_listen(const char *addr, char *host, size_t hostlen, unsigned *port)
{
	const char *colon = strrchr(addr, ':');
	uint64_t p;
	if (!colon || parse_u64(colon + 1, &p) < 0 || p > 65535)
		return -EINVAL;
	size_t n = (size_t)(colon - addr);
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr++;
		n -= 2;
	} else if (memchr(addr, ':', n)) {
		return -EINVAL;	/* IPv6 addresses need brackets */
	}
	if (n >= hostlen)
		return -ENAMETOOLONG;
	memcpy(host, addr, n);
	host[n] = 0;
	*port = (unsigned)p;
	return 0;
}

bool http_listens_on(int fd, const char *addr, char *ret_bound, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[256], bound[INET6_ADDRSTRLEN] = "?";
	unsigned port;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 || (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		return true;	/* nothing to compare with */
	bool v6 = ss.ss_family == AF_INET6;
	const void *a = v6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
	unsigned bport = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
	inet_ntop(ss.ss_family, a, bound, sizeof bound);
	snprintf(ret_bound, n, v6 ? "[%s]:%u" : "%s:%u", bound, bport);
	if (http_parse_listen(addr, host, sizeof host, &port) < 0)
		return true;
	if (port != bport)
		return false;
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;
	bool wildcard = v6 ? !memcmp(a, &any6, sizeof any6) : ((const struct in_addr *)a)->s_addr == htonl(INADDR_ANY);
	if (!host[0])
		return wildcard;
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_flags = AI_NUMERICHOST}, *res = NULL;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return true;
	bool same = false;
	for (struct addrinfo *ai = res; ai && !same; ai = ai->ai_next) {
		if (ai->ai_family == ss.ss_family)
			same = !memcmp(v6 ? (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr
					  : (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr,
				       a, v6 ? sizeof(struct in6_addr) : sizeof(struct in_addr));
	}
	freeaddrinfo(res);
	return same;
}

int http_url_of(int fd, bool tls, const char *host, char *buf, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char addr[INET6_ADDRSTRLEN];
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	bool v6 = ss.ss_family == AF_INET6;
	const void *a = v6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
	unsigned port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;
	bool wildcard = v6 ? !memcmp(a, &any6, sizeof any6) : ((const struct in_addr *)a)->s_addr == htonl(INADDR_ANY);
	/* listening everywhere: the host's name is how admins reach it */
	if (wildcard)
		snprintf(addr, sizeof addr, "%s", host);
	else
		inet_ntop(ss.ss_family, a, addr, sizeof addr);
	snprintf(buf, n, v6 && !wildcard ? "%s://[%s]:%u" : "%s://%s:%u", tls ? "https" : "http", addr, port);
	return 0;
}

unsigned http_port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					      : ((struct sockaddr_in *)&ss)->sin_port);
}

int http_bind_listen(const char *addr)
{
	char host[256], portstr[8];
	unsigned port;
	int r = http_parse_listen(addr, host, sizeof host, &port);
	if (r < 0)
		return r;
	snprintf(portstr, sizeof portstr, "%u", port);
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *res = NULL;
	if (getaddrinfo(host[0] ? host : NULL, portstr, &hints, &res) != 0)
		return -EADDRNOTAVAIL;
	r = -EADDRNOTAVAIL;
	/* With no host, getaddrinfo lists IPv4 first; prefer a dual-stack IPv6 socket. */
	for (int pass = 0; pass < 2 && r < 0; pass++)
		for (struct addrinfo *ai = res; ai && r < 0; ai = ai->ai_next) {
			if (!host[0] && (pass == 0) != (ai->ai_family == AF_INET6))
				continue;
			int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (fd < 0) {
				r = -errno;
				continue;
			}
			int one = 1, zero = 0;
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
			if (ai->ai_family == AF_INET6)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
				r = -errno;
				close(fd);
				continue;
			}
			r = fd;
		}
	freeaddrinfo(res);
	return r;
}
