/*
 * The command's seccomp filter (see sysfilter.h).
 *
 * Every argument the kernel reads as an int is compared on its low 32
 * bits only (a masked comparison): seccomp sees all 64, and a caller
 * could otherwise set a high bit the kernel ignores and slip past an
 * equality. Socket families are refused one by one, every number below
 * SYSFILTER_FAMILIES but those allowed; the kernel itself refuses any
 * family beyond the ones it knows.
 */
#include "config.h"

#include <errno.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <unistd.h>

#include "tools/confine.h"
#include "tools/sysfilter.h"
#include "util/xmalloc.h"

#define SYSFILTER_FAMILIES	64	/* above every AF_* known */
#define SYSFILTER_INT		0xffffffffULL
#define SYSFILTER_TYPE_MASK	0xfULL	/* SOCK_TYPE_MASK */
#define SYSFILTER_API_NOTIFY	5	/* user notification works */

/* arg n, as an int, equals v. */
#define SYSFILTER_EQ(n, v) \
	SCMP_CMP((n), SCMP_CMP_MASKED_EQ, SYSFILTER_INT, (scmp_datum_t)(v))

struct sysfilter {
	scmp_filter_ctx	 ctx;
	int		 failed;	/* a rule could not be added */
};

static void
sysfilter_rule(struct sysfilter *f, uint32_t action, int call,
    unsigned n, const struct scmp_arg_cmp *cmp)
{
	if (seccomp_rule_add_array(f->ctx, action, call, n, cmp) != 0)
		f->failed = 1;
}

/* Refuses socket(family, ...) with err. */
static void
sysfilter_family(struct sysfilter *f, int family, int err)
{
	struct scmp_arg_cmp c[] = { SYSFILTER_EQ(0, family) };

	sysfilter_rule(f, SCMP_ACT_ERRNO(err), SCMP_SYS(socket), 1, c);
}

/* Refuses socket(family, type), and socketpair too when pair. */
static void
sysfilter_type(struct sysfilter *f, int family, int type, int pair)
{
	struct scmp_arg_cmp c[] = { SYSFILTER_EQ(0, family),
	    SCMP_CMP(1, SCMP_CMP_MASKED_EQ, SYSFILTER_TYPE_MASK,
	    (scmp_datum_t)type) };

	sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 2, c);
	if (pair)
		sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES),
		    SCMP_SYS(socketpair), 2, c);
}

/* IPv4 or IPv6 as the proxy mode allows it: TCP only. */
static void
sysfilter_tcp_only(struct sysfilter *f, int family)
{
	struct scmp_arg_cmp c[2] = { SYSFILTER_EQ(0, family) };
	int t, p;

	for (t = 0; t <= (int)SYSFILTER_TYPE_MASK; t++)
		if (t != SOCK_STREAM)
			sysfilter_type(f, family, t, 0);
	/* Protocol 0 or IPPROTO_TCP; not SCTP nor MPTCP nor others. */
	for (p = 1; p < IPPROTO_TCP; p++) {
		c[1] = SYSFILTER_EQ(2, p);
		sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket),
		    2, c);
	}
	c[1] = SCMP_CMP(2, SCMP_CMP_GT, (scmp_datum_t)IPPROTO_TCP, 0);
	sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 2, c);
}

/* TCP Fast Open connects from sendto and sendmsg, without connect. */
static void
sysfilter_no_fastopen(struct sysfilter *f)
{
	struct scmp_arg_cmp c;

	c = SCMP_CMP(3, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
	sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendto), 1, &c);
	sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendmmsg), 1, &c);
	c = SCMP_CMP(2, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
	sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(sendmsg), 1, &c);
}

/* Every rule for c; notify: whether connect (and listen) go to the
 * reaper. */
static void
sysfilter_rules(struct sysfilter *f, const struct confine *c, int notify)
{
	static const unsigned long ttys[] = { TIOCSTI, TIOCLINUX, TIOCSETD };
	struct scmp_arg_cmp a;
	size_t i;
	int fam, t, unix_judged = c->unix_roots != NULL ||
	    c->unix_sockets != NULL;

	for (i = 0; i < sizeof ttys / sizeof ttys[0]; i++) {
		a = SYSFILTER_EQ(1, ttys[i]);
		sysfilter_rule(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		    &a);
	}
	sysfilter_rule(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0,
	    NULL);
	if (unix_judged && !notify)
		sysfilter_family(f, AF_UNIX, EACCES);
	else if (unix_judged) {
		/* Only connected kinds: a datagram (and SOCK_RAW, which the
		 * kernel makes a datagram socket) reaches any path by
		 * sendto, without connect. */
		for (t = 0; t <= (int)SYSFILTER_TYPE_MASK; t++)
			if (t != SOCK_STREAM && t != SOCK_SEQPACKET)
				sysfilter_type(f, AF_UNIX, t, 1);
	}
	if (c->net != CONFINE_NET_OPEN) {
		for (fam = 0; fam < SYSFILTER_FAMILIES; fam++) {
			if (fam == AF_UNIX || fam == AF_NETLINK ||
			    (c->net == CONFINE_NET_PROXY &&
			    (fam == AF_INET || fam == AF_INET6)))
				continue;
			sysfilter_family(f, fam, EACCES);
		}
	}
	if (c->net == CONFINE_NET_PROXY) {
		sysfilter_tcp_only(f, AF_INET);
		sysfilter_tcp_only(f, AF_INET6);
		sysfilter_no_fastopen(f);
	}
	if (notify)
		sysfilter_rule(f, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0, NULL);
	/* listen() on a TCP socket never bound binds it to a port of the
	 * kernel's choosing, past Landlock's bind rule: under the proxy
	 * the reaper judges it too, and without the reaper, where only
	 * TCP sockets can be made, it is refused. */
	if (notify && c->net == CONFINE_NET_PROXY)
		sysfilter_rule(f, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0, NULL);
	else if (c->net == CONFINE_NET_PROXY)
		sysfilter_rule(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(listen), 0,
		    NULL);
}

/* Sends fd over sock. */
static int
sysfilter_send(int sock, int fd)
{
	char data = 'L';
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { &data, 1 };
	struct msghdr m;
	struct cmsghdr *cm;

	memset(&m, 0, sizeof m);
	memset(&u, 0, sizeof u);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof u.buf;
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int
sysfilter_load(const struct confine *c, int notify_sock, char **err)
{
	struct sysfilter f = { NULL, 0 };
	int notify = confine_supervises(c) && notify_sock != -1 &&
	    seccomp_api_get() >= SYSFILTER_API_NOTIFY, rc, fd;

	if ((f.ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		*err = xstrdup("cannot make the seccomp filter");
		return -1;
	}
	sysfilter_rules(&f, c, notify);
	if (f.failed) {
		seccomp_release(f.ctx);
		*err = xstrdup("cannot make the seccomp filter: a rule was "
		    "refused");
		return -1;
	}
	if ((rc = seccomp_load(f.ctx)) != 0) {
		seccomp_release(f.ctx);
		*err = xasprintf("cannot load the seccomp filter: %s",
		    strerror(-rc));
		return -1;
	}
	if (notify) {
		fd = seccomp_notify_fd(f.ctx);
		if (fd < 0 || sysfilter_send(notify_sock, fd) == -1) {
			seccomp_release(f.ctx);
			*err = xasprintf("cannot hand connect to the reaper: "
			    "%s", strerror(fd < 0 ? -fd : errno));
			return -1;
		}
		close(fd);
	}
	seccomp_release(f.ctx);
	return 0;
}

int
sysfilter_receive(int sock)
{
	char data;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { &data, 1 };
	struct msghdr m;
	struct cmsghdr *cm;
	ssize_t n;
	int fd = -1;

	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof u.buf;
	while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) == -1 &&
	    errno == EINTR)
		;
	if (n != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm != NULL && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}
