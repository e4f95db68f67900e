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
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
#define SYSFILTER_FD_MIN	10	/* above the reaper's descriptors */

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
	/* The kernel's keyrings: the person's keys live there. */
	sysfilter_rule(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(keyctl), 0, NULL);
	sysfilter_rule(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(add_key), 0, NULL);
	sysfilter_rule(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(request_key), 0,
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

/* One message that carries a descriptor over a Unix socket: a byte of
 * data and the SCM_RIGHTS control (last: its size is a macro's, which
 * not every compiler takes for a constant). */
struct sysfilter_fdmsg {
	char		 data;
	struct iovec	 iov;
	struct msghdr	 m;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} u;
};

/* Sets up msg to send or receive (its data byte: data). */
static void
sysfilter_fdmsg_init(struct sysfilter_fdmsg *msg, char data)
{
	memset(msg, 0, sizeof *msg);
	msg->data = data;
	msg->iov.iov_base = &msg->data;
	msg->iov.iov_len = 1;
	msg->m.msg_iov = &msg->iov;
	msg->m.msg_iovlen = 1;
	msg->m.msg_control = msg->u.buf;
	msg->m.msg_controllen = sizeof msg->u.buf;
}

/* Sends fd over sock. */
static int
sysfilter_send(int sock, int fd)
{
	struct sysfilter_fdmsg msg;
	struct cmsghdr *cm;

	sysfilter_fdmsg_init(&msg, 'L');
	cm = CMSG_FIRSTHDR(&msg.m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sendmsg(sock, &msg.m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* A filter context with every rule for c. Returns NULL with *err. */
static scmp_filter_ctx
sysfilter_build(const struct confine *c, int notify, char **err)
{
	struct sysfilter f = { NULL, 0 };

	if ((f.ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		*err = xstrdup("cannot make the seccomp filter");
		return NULL;
	}
	sysfilter_rules(&f, c, notify);
	if (f.failed) {
		seccomp_release(f.ctx);
		*err = xstrdup("cannot make the seccomp filter: a rule was "
		    "refused");
		return NULL;
	}
	return f.ctx;
}

int
sysfilter_supervised(const struct confine *c)
{
	return c->unix_roots != NULL || c->unix_sockets != NULL ||
	    c->net == CONFINE_NET_PROXY;
}

/* Whether the filter for c hands connect to the reaper, given whether
 * the reaper waits for it. */
static int
sysfilter_notifies(const struct confine *c, int reaper_waits)
{
	return sysfilter_supervised(c) && reaper_waits &&
	    seccomp_api_get() >= SYSFILTER_API_NOTIFY;
}

/* The filters made so far, by their shape: the rules depend on the
 * network, on whether Unix sockets are judged, and on notification. */
#define SYSFILTER_SHAPES	(3 * 2 * 2)
static pthread_mutex_t sysfilter_lock = PTHREAD_MUTEX_INITIALIZER;
static int sysfilter_made[SYSFILTER_SHAPES];	/* fd + 1; 0: not yet */

int
sysfilter_program(const struct confine *c, char **err)
{
	int judged = c->unix_roots != NULL || c->unix_sockets != NULL;
	int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
	int notify, shape, fd, hi, rc = 0;
	scmp_filter_ctx ctx;

	/* libseccomp probes the kernel once and keeps what it found. */
	pthread_mutex_lock(&sysfilter_lock);
	notify = sysfilter_notifies(c, 1);
	shape = ((int)c->net * 2 + judged) * 2 + notify;
	if ((fd = sysfilter_made[shape] - 1) >= 0)
		goto out;
	if ((ctx = sysfilter_build(c, notify, err)) == NULL)
		goto out;
	fd = memfd_create("huddle-filter", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd == -1 || (rc = seccomp_export_bpf(ctx, fd)) != 0 ||
	    fcntl(fd, F_ADD_SEALS, seals) == -1 ||
	    (hi = fcntl(fd, F_DUPFD_CLOEXEC, SYSFILTER_FD_MIN)) == -1) {
		*err = xasprintf("cannot keep the seccomp filter: %s",
		    strerror(fd == -1 || rc == 0 ? errno : -rc));
		if (fd != -1)
			close(fd);
		fd = -1;
	} else {
		close(fd);
		sysfilter_made[shape] = (fd = hi) + 1;
	}
	seccomp_release(ctx);
out:
	pthread_mutex_unlock(&sysfilter_lock);
	return fd;
}

/* Loads the program built by sysfilter_program from fd: its listener
 * when notify, else 0; -1 with errno. */
static int
sysfilter_load_built(int fd, int notify)
{
	struct sock_fprog prog;
	struct stat st;
	void *insns;
	int rc;

	if (fstat(fd, &st) == -1)
		return -1;
	if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 ||
	    st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		errno = EINVAL;
		return -1;
	}
	insns = xmalloc((size_t)st.st_size);
	if (pread(fd, insns, (size_t)st.st_size, 0) != st.st_size) {
		free(insns);
		errno = EIO;
		return -1;
	}
	prog.len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	prog.filter = insns;
	rc = -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		rc = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
	free(insns);
	return rc;
}

int
sysfilter_load(const struct confine *c, int built_fd, int notify_sock,
    char **err)
{
	int notify = sysfilter_notifies(c, notify_sock != -1), fd = 0, rc;
	scmp_filter_ctx ctx = NULL;

	/* Built by huddle for a reaper that waits for the listener; a
	 * reaper that could not make its socket pair gets one without. */
	if (c->prebuilt && notify == sysfilter_notifies(c, 1)) {
		if ((fd = sysfilter_load_built(built_fd, notify)) == -1) {
			*err = xasprintf("cannot load the seccomp filter: %s",
			    strerror(errno));
			return -1;
		}
	} else {
		if ((ctx = sysfilter_build(c, notify, err)) == NULL)
			return -1;
		if ((rc = seccomp_load(ctx)) != 0) {
			seccomp_release(ctx);
			*err = xasprintf("cannot load the seccomp filter: %s",
			    strerror(-rc));
			return -1;
		}
		if (notify)
			fd = seccomp_notify_fd(ctx);
	}
	if (notify && (fd < 0 || sysfilter_send(notify_sock, fd) == -1)) {
		*err = xasprintf("cannot hand connect to the reaper: %s",
		    strerror(fd < 0 ? -fd : errno));
		seccomp_release(ctx);
		return -1;
	}
	if (notify)
		close(fd);
	seccomp_release(ctx);
	return 0;
}

int
sysfilter_receive(int sock)
{
	struct sysfilter_fdmsg msg;
	struct cmsghdr *cm;
	ssize_t n;
	int fd = -1;

	sysfilter_fdmsg_init(&msg, 0);
	while ((n = recvmsg(sock, &msg.m, MSG_CMSG_CLOEXEC)) == -1 &&
	    errno == EINTR)
		;
	if (n != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg.m);
	if (cm != NULL && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}
