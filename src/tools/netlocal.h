/*
 * Where an address leads, for huddle's proxy (tools/proxy.h): the
 * addresses that reach this machine or its link — loopback, unspecified,
 * link-local, the machine's own, and the IPv4-mapped IPv6 forms of each —
 * and the person's list of "host:port" entries that may be reached there
 * all the same. Only resolved addresses are judged, never the spelling
 * of a name: "2130706433", "0x7f.1" and "127.1" are all 127.0.0.1.
 */
#ifndef HUDDLE_TOOLS_NETLOCAL_H
#define HUDDLE_TOOLS_NETLOCAL_H

#include <stddef.h>

struct ifaddrs;
struct sockaddr;

/* What an address is. */
enum netlocal_kind {
	NETLOCAL_REMOTE,	/* none of the below */
	NETLOCAL_LOOPBACK,	/* 127/8, ::1 */
	NETLOCAL_UNSPECIFIED,	/* 0/8, :: (reach this machine) */
	NETLOCAL_LINK,		/* 169.254/16, fe80::/10 */
	NETLOCAL_OWN		/* an address of one of this machine's
				 * interfaces (getifaddrs) */
};

/* What address a (AF_INET or AF_INET6) is, `own` being this machine's
 * interfaces as getifaddrs listed them (read once for all the addresses
 * of a name: a listing costs tens of microseconds); an IPv4-mapped IPv6
 * address is judged as its IPv4 one. Anything else is NETLOCAL_REMOTE. */
enum netlocal_kind netlocal_kind(const struct sockaddr *a,
    const struct ifaddrs *own);

/* Words for a kind, for people: "this machine", "the local link". */
const char *netlocal_words(enum netlocal_kind k);

/* Writes a's address, numeric (an IPv4-mapped one as IPv4), into out
 * (at least 46 bytes). */
void netlocal_text(const struct sockaddr *a, char *out, size_t size);

/* Whether entry is "host:port" or "[v6]:port" with a port from 1 to
 * 65535; 0 with *why (static) when not. */
int netlocal_entry_ok(const char *entry, const char **why);

/*
 * Whether one of the n entries allows address a for a connection asked
 * as host (lower case; an IPv6 address without brackets) and port: the
 * entry's port is that port, and its host is the name asked or, written
 * as an address, is a itself.
 */
int netlocal_allowed(const char *const *entries, size_t n,
    const char *host, int port, const struct sockaddr *a);

#endif
