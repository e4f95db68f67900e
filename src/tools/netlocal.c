/*
 * Where an address leads (see netlocal.h). IPv4-mapped IPv6 addresses
 * (::ffff:a.b.c.d) and the old IPv4-compatible ones (::a.b.c.d) are
 * judged as the IPv4 address they carry, so that no spelling of an
 * address hides where it goes.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "tools/netlocal.h"

/* An address without its port: IPv4 (4 bytes) or IPv6 (16). */
struct netlocal_addr {
	int		 family;
	unsigned char	 b[16];
};

/* Reads a's address into *out, an IPv6 one that carries an IPv4 address
 * as that IPv4 address. Returns 0, or -1 for another family. */
static int
netlocal_plain(const struct sockaddr *a, struct netlocal_addr *out)
{
	static const unsigned char zero[12];
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0xff, 0xff };
	const unsigned char *b;

	memset(out, 0, sizeof *out);
	if (a->sa_family == AF_INET) {
		out->family = AF_INET;
		memcpy(out->b, &((const struct sockaddr_in *)(const void *)a)->
		    sin_addr, 4);
		return 0;
	}
	if (a->sa_family != AF_INET6)
		return -1;
	b = (const unsigned char *)&((const struct sockaddr_in6 *)
	    (const void *)a)->sin6_addr;
	/* ::a.b.c.d (but not :: or ::1, which are IPv6's own) and
	 * ::ffff:a.b.c.d. */
	if (memcmp(b, mapped, 12) == 0 || (memcmp(b, zero, 12) == 0 &&
	    (b[12] | b[13] | b[14]) != 0)) {
		out->family = AF_INET;
		memcpy(out->b, b + 12, 4);
		return 0;
	}
	out->family = AF_INET6;
	memcpy(out->b, b, 16);
	return 0;
}

static int
netlocal_same(const struct netlocal_addr *x, const struct netlocal_addr *y)
{
	return x->family == y->family && memcmp(x->b, y->b,
	    x->family == AF_INET ? 4 : 16) == 0;
}

/* Whether x is an address of one of the interfaces of list. */
static int
netlocal_own(const struct netlocal_addr *x, const struct ifaddrs *list)
{
	const struct ifaddrs *i;
	struct netlocal_addr y;

	for (i = list; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr != NULL && netlocal_plain(i->ifa_addr,
		    &y) == 0 && netlocal_same(x, &y))
			return 1;
	}
	return 0;
}

enum netlocal_kind
netlocal_kind(const struct sockaddr *a, const struct ifaddrs *own)
{
	static const unsigned char zero[16];
	struct netlocal_addr x;

	if (netlocal_plain(a, &x) == -1)
		return NETLOCAL_REMOTE;
	if (x.family == AF_INET) {
		if (x.b[0] == 127)
			return NETLOCAL_LOOPBACK;
		if (x.b[0] == 0)
			return NETLOCAL_UNSPECIFIED;
		if (x.b[0] == 169 && x.b[1] == 254)
			return NETLOCAL_LINK;
	} else {
		if (memcmp(x.b, zero, 15) == 0 && x.b[15] == 1)
			return NETLOCAL_LOOPBACK;
		if (memcmp(x.b, zero, 16) == 0)
			return NETLOCAL_UNSPECIFIED;
		if (x.b[0] == 0xfe && (x.b[1] & 0xc0) == 0x80)
			return NETLOCAL_LINK;
	}
	return netlocal_own(&x, own) ? NETLOCAL_OWN : NETLOCAL_REMOTE;
}

const char *
netlocal_words(enum netlocal_kind k)
{
	return k == NETLOCAL_LINK ? "the local link" : k == NETLOCAL_REMOTE ?
	    "elsewhere" : "this machine";
}

void
netlocal_text(const struct sockaddr *a, char *out, size_t size)
{
	struct netlocal_addr x;
	char buf[INET6_ADDRSTRLEN];

	if (netlocal_plain(a, &x) == -1 || inet_ntop(x.family, x.b, buf,
	    sizeof buf) == NULL)
		snprintf(buf, sizeof buf, "?");
	snprintf(out, size, "%s", buf);
}

/* Splits entry into its host (out, without brackets) and port. Returns
 * 0, or -1 with *why. */
static int
netlocal_split(const char *entry, char *out, size_t size, int *port,
    const char **why)
{
	const char *colon = strrchr(entry, ':'), *hs = entry;
	size_t hl;
	char *end;
	long n;

	*why = "takes HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080";
	if (colon == NULL || colon == entry)
		return -1;
	hl = (size_t)(colon - entry);
	if (entry[0] == '[') {
		if (hl < 3 || colon[-1] != ']')
			return -1;
		hs++;
		hl -= 2;
	} else if (memchr(entry, ':', hl) != NULL)
		return -1;
	if (hl == 0 || hl >= size)
		return -1;
	memcpy(out, hs, hl);
	out[hl] = '\0';
	if (entry[0] == '[' && strspn(out, "0123456789abcdefABCDEF:.") != hl)
		return -1;
	if (entry[0] != '[' && strspn(out, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") != hl)
		return -1;
	n = strtol(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || n < 1 ||
	    n > 65535) {
		*why = "takes HOST:PORT with a port from 1 to 65535";
		return -1;
	}
	*port = (int)n;
	return 0;
}

int
netlocal_entry_ok(const char *entry, const char **why)
{
	char host[256];
	int port;

	return netlocal_split(entry, host, sizeof host, &port, why) == 0;
}

/* Whether the numeric address written in text is a. */
static int
netlocal_is(const char *text, const struct sockaddr *a)
{
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	struct netlocal_addr x, y;

	memset(&s4, 0, sizeof s4);
	memset(&s6, 0, sizeof s6);
	s4.sin_family = AF_INET;
	s6.sin6_family = AF_INET6;
	if (inet_pton(AF_INET, text, &s4.sin_addr) == 1)
		netlocal_plain((struct sockaddr *)&s4, &x);
	else if (inet_pton(AF_INET6, text, &s6.sin6_addr) == 1)
		netlocal_plain((struct sockaddr *)&s6, &x);
	else
		return 0;
	return netlocal_plain(a, &y) == 0 && netlocal_same(&x, &y);
}

int
netlocal_allowed(const char *const *entries, size_t n, const char *host,
    int port, const struct sockaddr *a)
{
	char eh[256];
	const char *why;
	size_t i;
	int ep;

	for (i = 0; i < n; i++) {
		if (netlocal_split(entries[i], eh, sizeof eh, &ep, &why) ==
		    -1 || ep != port)
			continue;
		if (strcasecmp(eh, host) == 0 || netlocal_is(eh, a))
			return 1;
	}
	return 0;
}
