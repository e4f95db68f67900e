/*
 * The reaper's judge of connect() (see sockgate.h).
 *
 * For each notification: the target's socket is duplicated with
 * pidfd_getfd, and its family read from it (SO_DOMAIN cannot change, so
 * there is no race there). The address is read from the target's memory,
 * which it may change at any moment: so it is only ever judged and used
 * from our copy, never handed back to the kernel with "continue". A
 * notification's target is known by a thread id that could be reused
 * once the thread is gone, so every look at the target (its pidfd, its
 * memory, its /proc entries) is followed by a check that the
 * notification is still pending, which means the thread still lives.
 *
 * A Unix socket's path is resolved as the target would: relative to its
 * working directory or its root, following links. The file found is
 * opened O_PATH and its real location (where the links led) judged; the
 * connect then goes to that very file through /proc/self/fd, so a
 * rename or a swapped link after the check changes nothing.
 *
 * The reaper waits for the connect it makes on the target's behalf, at
 * most SOCKGATE_CONNECT_S for a blocking socket (a listener whose queue
 * is full would otherwise hold the reaper); a non-blocking socket gets
 * EINPROGRESS back, as it would have from the kernel.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/kcmp.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "tools/confine.h"
#include "tools/sockgate.h"
#include "util/xmalloc.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE	1
#endif
#define SOCKGATE_PIDFD_THREAD	O_EXCL	/* PIDFD_THREAD, Linux 6.9 */
#define SOCKGATE_CONNECT_S	5
#define SOCKGATE_CONTINUE	1	/* answer: let the kernel do it */

struct sockgate {
	const struct confine	*c;
	int			 fd;
	struct seccomp_notif	*req;
	struct seccomp_notif_resp *resp;
};

/* One notification being judged. */
struct sockgate_call {
	struct sockgate		*g;
	pid_t			 tid;
	int			 pidfd;
	int			 via_group;	/* pidfd is the thread group's */
	int			 sock;		/* our duplicate, or -1 */
	struct sockaddr_storage	 addr;		/* our copy */
	socklen_t		 len;
};

struct sockgate *
sockgate_new(const struct confine *c, int listener)
{
	struct sockgate *g = xcalloc(1, sizeof *g);

	g->c = c;
	g->fd = listener;
	if (seccomp_notify_alloc(&g->req, &g->resp) != 0)
		abort();	/* only out of memory */
	return g;
}

int
sockgate_fd(const struct sockgate *g)
{
	return g->fd;
}

void
sockgate_free(struct sockgate *g)
{
	if (g == NULL)
		return;
	close(g->fd);
	seccomp_notify_free(g->req, g->resp);
	free(g);
}

/* Whether the notification is still pending: its target lives. */
static int
sockgate_valid(struct sockgate_call *k)
{
	return seccomp_notify_id_valid(k->g->fd, k->g->req->id) == 0;
}

/* The thread group of a thread, from /proc. */
static pid_t
sockgate_tgid(pid_t tid)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "Tgid: %ld", &v) == 1)
			break;
	fclose(f);
	return (pid_t)v;
}

/* A pidfd for the target: its thread, or its thread group. */
static int
sockgate_pidfd(pid_t tid, int *via_group)
{
	int fd;
	pid_t tgid;

	*via_group = 0;
	/* A thread other than the leader is refused (EINVAL, or ENOENT on
	 * newer kernels) unless asked for as a thread, which kernels
	 * before 6.9 do not know: then its thread group serves, whose
	 * descriptors it shares. */
	fd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (fd == -1 && errno != ESRCH)
		fd = (int)syscall(SYS_pidfd_open, tid, SOCKGATE_PIDFD_THREAD);
	if (fd == -1 && errno != ESRCH && (tgid = sockgate_tgid(tid)) > 0) {
		fd = (int)syscall(SYS_pidfd_open, tgid, 0);
		*via_group = tgid != tid;
	}
	return fd;
}

/* Copies the address connect() was given; an errno, or 0. */
static int
sockgate_read_addr(struct sockgate_call *k)
{
	const struct seccomp_data *d = &k->g->req->data;
	struct iovec local, remote;
	int len = (int)d->args[2];

	if (len < 0 || (size_t)len > sizeof k->addr)
		return EINVAL;
	memset(&k->addr, 0, sizeof k->addr);
	local.iov_base = &k->addr;
	local.iov_len = (size_t)len;
	remote.iov_base = (void *)(uintptr_t)d->args[1];
	remote.iov_len = (size_t)len;
	if (len > 0 && process_vm_readv(k->tid, &local, 1, &remote, 1, 0) !=
	    len)
		return EFAULT;
	k->len = (socklen_t)len;
	return sockgate_valid(k) ? 0 : ESRCH;
}

/* connect() on our duplicate; its errno, or 0. A blocking socket waits
 * at most SOCKGATE_CONNECT_S. */
static int
sockgate_connect(int sock, const struct sockaddr *a, socklen_t len)
{
	struct timeval old, cap = { SOCKGATE_CONNECT_S, 0 };
	socklen_t ol = sizeof old;
	int blocking, rc, e;

	blocking = !(fcntl(sock, F_GETFL) & O_NONBLOCK) &&
	    getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, &ol) == 0 &&
	    old.tv_sec == 0 && old.tv_usec == 0;
	if (blocking)
		(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &cap,
		    sizeof cap);
	rc = connect(sock, a, len);
	e = rc == 0 ? 0 : errno;
	if (blocking)
		(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old,
		    sizeof old);
	return e;
}

/* Whether the real path lies beneath root (or is it). */
static int
sockgate_beneath(const char *path, const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '/' ||
	    path[n] == '\0');
}

/* Whether the socket file open at fd may be connected to. */
static int
sockgate_unix_allowed(const struct confine *c, int fd,
    const struct stat *st)
{
	char link[64], real[4096];
	struct stat ns;
	ssize_t n;
	char **p;

	for (p = c->unix_sockets; p != NULL && *p != NULL; p++)
		if (stat(*p, &ns) == 0 && ns.st_dev == st->st_dev &&
		    ns.st_ino == st->st_ino)
			return 1;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, real, sizeof real - 1)) <= 0 || real[0] != '/')
		return 0;
	real[n] = '\0';
	if (n > 10 && strcmp(real + n - 10, " (deleted)") == 0)
		return 0;
	for (p = c->unix_roots; p != NULL && *p != NULL; p++)
		if (sockgate_beneath(real, *p))
			return 1;
	return 0;
}

/* A Unix socket's connect: an errno, or 0 once connected by us. */
static int
sockgate_unix(struct sockgate_call *k)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&k->addr, via;
	char path[sizeof un->sun_path + 1], proc[64];
	size_t off = offsetof(struct sockaddr_un, sun_path), n;
	struct stat st;
	int dir, fd, e;

	if ((e = sockgate_read_addr(k)) != 0)
		return e;
	if (k->len <= off || k->len > sizeof *un ||
	    un->sun_family != AF_UNIX)
		return EINVAL;
	if (un->sun_path[0] == '\0')
		return EACCES;		/* abstract: never */
	n = k->len - off;
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	snprintf(proc, sizeof proc, "/proc/%ld/%s", (long)k->tid,
	    path[0] == '/' ? "root" : "cwd");
	if ((dir = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return EACCES;
	fd = openat(dir, path[0] == '/' ? path + 1 : path,
	    O_PATH | O_CLOEXEC);
	e = errno;
	close(dir);
	if (fd == -1)
		return e == ENOENT || e == ENOTDIR ? e : EACCES;
	if (!sockgate_valid(k) || fstat(fd, &st) == -1) {
		close(fd);
		return ESRCH;
	}
	if (!S_ISSOCK(st.st_mode))
		e = ECONNREFUSED;
	else if (!sockgate_unix_allowed(k->g->c, fd, &st))
		e = EACCES;
	else {
		memset(&via, 0, sizeof via);
		via.sun_family = AF_UNIX;
		snprintf(via.sun_path, sizeof via.sun_path,
		    "/proc/self/fd/%d", fd);
		e = sockgate_connect(k->sock, (struct sockaddr *)&via,
		    sizeof via);
	}
	close(fd);
	return e;
}

/* Whether the address is huddle's proxy on loopback. */
static int
sockgate_is_proxy(const struct sockgate_call *k, int port)
{
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)&k->addr;
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&k->addr;
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0xff, 0xff };

	if (v4->sin_family == AF_INET && k->len >= sizeof *v4)
		return v4->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
		    ntohs(v4->sin_port) == port;
	if (v6->sin6_family != AF_INET6 || k->len < sizeof *v6 ||
	    ntohs(v6->sin6_port) != port)
		return 0;
	if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr))
		return 1;
	return memcmp(v6->sin6_addr.s6_addr, mapped, 12) == 0 &&
	    v6->sin6_addr.s6_addr[12] == 127 &&
	    v6->sin6_addr.s6_addr[13] == 0 && v6->sin6_addr.s6_addr[14] == 0 &&
	    v6->sin6_addr.s6_addr[15] == 1;
}

/* An IPv4 or IPv6 socket's connect. */
static int
sockgate_inet(struct sockgate_call *k)
{
	const struct confine *c = k->g->c;
	int e;

	if (c->net == CONFINE_NET_OPEN)
		return -SOCKGATE_CONTINUE;
	if (c->net == CONFINE_NET_NONE)
		return EACCES;
	if ((e = sockgate_read_addr(k)) != 0)
		return e;
	/* AF_UNSPEC dissolves a connection: harmless. */
	if (k->addr.ss_family != AF_UNSPEC &&
	    !sockgate_is_proxy(k, c->proxy_port))
		return ECONNREFUSED;
	return sockgate_connect(k->sock, (struct sockaddr *)&k->addr, k->len);
}

/* A listen(): on a Unix socket made here, as asked; on any other, an
 * inbound port, refused. */
static int
sockgate_listen(struct sockgate_call *k, int domain)
{
	int backlog = (int)k->g->req->data.args[1];

	if (domain != AF_UNIX)
		return EACCES;
	return listen(k->sock, backlog) == 0 ? 0 : errno;
}

/* The verdict on one connect or listen: an errno, 0 (done by us), or
 * -SOCKGATE_CONTINUE. */
static int
sockgate_judge(struct sockgate_call *k)
{
	const struct confine *c = k->g->c;
	int domain, fd = (int)k->g->req->data.args[0];
	socklen_t dl = sizeof domain;

	if ((k->pidfd = sockgate_pidfd(k->tid, &k->via_group)) == -1)
		return EACCES;
	if (!sockgate_valid(k))
		return ESRCH;
	k->sock = (int)syscall(SYS_pidfd_getfd, k->pidfd, fd, 0);
	if (k->sock == -1)
		return errno == EBADF ? EBADF : EACCES;
	if (getsockopt(k->sock, SOL_SOCKET, SO_DOMAIN, &domain, &dl) == -1)
		return errno == ENOTSOCK ? ENOTSOCK : EACCES;
	/* Found through the thread group, not the thread: the two may not
	 * share their descriptors (a thread made without CLONE_FILES), so
	 * the socket must be the very one the caller named. */
	if (k->via_group && syscall(SYS_kcmp, k->tid, getpid(), KCMP_FILE,
	    fd, k->sock) != 0)
		return EACCES;
	/* Letting the kernel redo the call (CONTINUE) would look the
	 * descriptor up again, and another thread may have put another
	 * socket there since: only where the rules allow anything of
	 * every kind does it go on untouched. Otherwise the call is made
	 * here, on the socket that was judged. */
	if (k->g->req->data.nr == SCMP_SYS(listen))
		return sockgate_listen(k, domain);
	switch (domain) {
	case AF_UNIX:
		if (c->unix_roots == NULL && c->unix_sockets == NULL)
			return c->net == CONFINE_NET_OPEN ?
			    -SOCKGATE_CONTINUE : EACCES;
		return sockgate_unix(k);
	case AF_INET:
	case AF_INET6:
		return sockgate_inet(k);
	default:
		if ((fd = sockgate_read_addr(k)) != 0)
			return fd;
		return sockgate_connect(k->sock, (struct sockaddr *)&k->addr,
		    k->len);
	}
}

void
sockgate_handle(struct sockgate *g)
{
	struct sockgate_call k;
	int v;

	memset(g->req, 0, sizeof *g->req);
	/* A target that died since the poll leaves nothing to take. */
	if (seccomp_notify_receive(g->fd, g->req) != 0)
		return;
	memset(&k, 0, sizeof k);
	k.g = g;
	k.tid = (pid_t)g->req->pid;
	k.pidfd = k.sock = -1;
	v = sockgate_judge(&k);
	if (k.sock != -1)
		close(k.sock);
	if (k.pidfd != -1)
		close(k.pidfd);
	if (v == ESRCH)
		return;		/* the target is gone: no one to answer */
	memset(g->resp, 0, sizeof *g->resp);
	g->resp->id = g->req->id;
	if (v == -SOCKGATE_CONTINUE)
		g->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else
		g->resp->error = -v;
	(void)seccomp_notify_respond(g->fd, g->resp);
}
