/*
 * Unit tests of tools/netlocal: which addresses lead to this machine or
 * its link, in every IPv4 and IPv6 form; the person's host:port entries,
 * matched by the name asked or by the address; entries that are not
 * host:port.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "testutil.h"
#include "tools/netlocal.h"

/* An address from its text, IPv4 or IPv6. */
static struct sockaddr_storage
addr(const char *text)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1)
		in->sin_family = AF_INET;
	else {
		ck_assert_int_eq(inet_pton(AF_INET6, text, &in6->sin6_addr), 1);
		in6->sin6_family = AF_INET6;
	}
	return ss;
}

static enum netlocal_kind
kind_of(const char *text, const struct ifaddrs *own)
{
	struct sockaddr_storage ss = addr(text);

	return netlocal_kind((struct sockaddr *)&ss, own);
}

START_TEST(every_form_of_this_machine_is_known)
{
	static const struct {
		const char		*text;
		enum netlocal_kind	 kind;
	} cases[] = {
		{ "127.0.0.1", NETLOCAL_LOOPBACK },
		{ "127.255.0.9", NETLOCAL_LOOPBACK },
		{ "::1", NETLOCAL_LOOPBACK },
		{ "::ffff:127.0.0.1", NETLOCAL_LOOPBACK },
		{ "::127.0.0.1", NETLOCAL_LOOPBACK },
		{ "0.0.0.0", NETLOCAL_UNSPECIFIED },
		{ "0.1.2.3", NETLOCAL_UNSPECIFIED },
		{ "::", NETLOCAL_UNSPECIFIED },
		{ "::ffff:0.0.0.0", NETLOCAL_UNSPECIFIED },
		{ "169.254.169.254", NETLOCAL_LINK },
		{ "fe80::1", NETLOCAL_LINK },
		{ "febf::1", NETLOCAL_LINK },
		{ "::ffff:169.254.1.1", NETLOCAL_LINK },
		{ "192.0.2.1", NETLOCAL_REMOTE },
		{ "128.0.0.1", NETLOCAL_REMOTE },
		{ "169.255.0.1", NETLOCAL_REMOTE },
		{ "fec0::1", NETLOCAL_REMOTE },
		{ "2001:db8::1", NETLOCAL_REMOTE },
		{ "::ffff:192.0.2.1", NETLOCAL_REMOTE },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++)
		ck_assert_msg(kind_of(cases[i].text, NULL) == cases[i].kind,
		    "%s", cases[i].text);
	ck_assert_str_eq(netlocal_words(NETLOCAL_LOOPBACK), "this machine");
	ck_assert_str_eq(netlocal_words(NETLOCAL_OWN), "this machine");
	ck_assert_str_eq(netlocal_words(NETLOCAL_LINK), "the local link");
}
END_TEST

/* The machine's own addresses, as getifaddrs lists them, in both forms. */
START_TEST(the_machines_own_addresses_are_this_machine)
{
	struct ifaddrs *own, *i;
	char text[INET6_ADDRSTRLEN + 8];
	int seen = 0;

	ck_assert_int_eq(getifaddrs(&own), 0);
	for (i = own; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
			continue;
		netlocal_text(i->ifa_addr, text, sizeof text);
		if (strncmp(text, "127.", 4) == 0)
			continue;
		ck_assert_int_eq(netlocal_kind(i->ifa_addr, own), NETLOCAL_OWN);
		ck_assert_int_eq(kind_of(text, NULL), NETLOCAL_REMOTE);
		memmove(text + 7, text, strlen(text) + 1);
		memcpy(text, "::ffff:", 7);
		ck_assert_int_eq(kind_of(text, own), NETLOCAL_OWN);
		seen++;
	}
	freeifaddrs(own);
	(void)seen;	/* a machine with loopback alone has none */
}
END_TEST

START_TEST(entries_match_the_name_or_the_address)
{
	static const char *const list[] = { "127.0.0.1:8080", "[::1]:5432",
	    "Registry.Test:3141" };
	struct sockaddr_storage v4 = addr("127.0.0.1"),
	    mapped = addr("::ffff:127.0.0.1"), v6 = addr("::1"),
	    zero = addr("0.0.0.0");
	const char *why;
	char text[64];

	ck_assert(netlocal_allowed(list, 3, "2130706433", 8080,
	    (struct sockaddr *)&v4));
	ck_assert(netlocal_allowed(list, 3, "x", 8080,
	    (struct sockaddr *)&mapped));
	ck_assert(!netlocal_allowed(list, 3, "127.0.0.1", 8081,
	    (struct sockaddr *)&v4));
	ck_assert(!netlocal_allowed(list, 3, "0", 8080,
	    (struct sockaddr *)&zero));
	ck_assert(netlocal_allowed(list, 3, "localhost", 5432,
	    (struct sockaddr *)&v6));
	ck_assert(!netlocal_allowed(list, 3, "localhost", 5432,
	    (struct sockaddr *)&v4));
	ck_assert(netlocal_allowed(list, 3, "registry.test", 3141,
	    (struct sockaddr *)&v4));
	ck_assert(!netlocal_allowed(list, 3, "registry.test.evil", 3141,
	    (struct sockaddr *)&v4));
	ck_assert(!netlocal_allowed(list, 0, "127.0.0.1", 8080,
	    (struct sockaddr *)&v4));
	netlocal_text((struct sockaddr *)&mapped, text, sizeof text);
	ck_assert_str_eq(text, "127.0.0.1");

	ck_assert(netlocal_entry_ok("localhost:1", &why));
	ck_assert(netlocal_entry_ok("[fe80::1]:65535", &why));
	ck_assert(!netlocal_entry_ok("localhost", &why));
	ck_assert(!netlocal_entry_ok("::1:80", &why));
	ck_assert(!netlocal_entry_ok("[::1]", &why));
	ck_assert(!netlocal_entry_ok("host:0", &why));
	ck_assert(!netlocal_entry_ok("host:65536", &why));
	ck_assert(!netlocal_entry_ok("host:80x", &why));
	ck_assert(!netlocal_entry_ok(":80", &why));
	ck_assert(!netlocal_entry_ok("a b:80", &why));
	ck_assert_ptr_nonnull(strstr(why, "HOST:PORT"));
}
END_TEST

static Suite *
netlocal_suite(void)
{
	Suite *s = suite_create("netlocal");
	TCase *tc = tcase_create("netlocal");

	tcase_add_test(tc, every_form_of_this_machine_is_known);
	tcase_add_test(tc, the_machines_own_addresses_are_this_machine);
	tcase_add_test(tc, entries_match_the_name_or_the_address);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(netlocal_suite());
}
