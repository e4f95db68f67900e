/*
 * Unit tests of what confines a command besides Landlock (tools/confine.h),
 * through bash_run with a hand-made confine: its JSON form; no controlling
 * terminal; TIOCSTI refused even on a terminal the command made its own;
 * UDP refused without the network and through the proxy; Unix sockets
 * reached only beneath the allowed directories or when named; TCP only to
 * the proxy's port; read-only paths in a git repository that git add and
 * commit still work in; the process count, memory and file-size limits;
 * no capability left to a command run by root; and no keyring.
 *
 * The reaper is this test program started again (main() below answers
 * REAPER_ARG, as huddle's does).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bash.h"
#include "tools/confine.h"
#include "tools/landlock.h"
#include "tools/mountns.h"
#include "tools/reaper.h"
#include "tools/sysfilter.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* Runs command in tu_wd under c (NULL: none); the output in *o. */
static void
run(const char *command, const struct confine *c, struct tool_output *o)
{
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60, .confine = c };

	tool_output_clear(o);
	ck_assert_msg(bash_run(command, &bo, o) == 0, "%s", o->text);
}

/* Whether the output holds s. */
static int
has(const struct tool_output *o, const char *s)
{
	return strstr(o->text, s) != NULL;
}

#define ASSERT_HAS(o, s) \
	ck_assert_msg(has((o), (s)), "no \"%s\" in:\n%s", (s), (o)->text)
#define ASSERT_HAS_NOT(o, s) \
	ck_assert_msg(!has((o), (s)), "\"%s\" in:\n%s", (s), (o)->text)

START_TEST(json_round_trip)
{
	char *roots[] = { (char *)"/tmp/a", (char *)"/run/b", NULL };
	char *socks[] = { NULL };
	struct confine c = { .landlock = 1, .net = CONFINE_NET_PROXY,
	    .proxy_port = 3128, .unix_roots = roots, .unix_sockets = socks,
	    .max_procs = 7, .max_memory = 1LL << 40, .max_file_size = 5 };
	struct confine back;
	char *text, *err = NULL;

	text = confine_to_json(&c);
	ck_assert_int_eq(confine_from_json(text, &back, &err), 0);
	ck_assert_int_eq(back.landlock, 1);
	ck_assert_int_eq(back.net, CONFINE_NET_PROXY);
	ck_assert_int_eq(back.proxy_port, 3128);
	ck_assert_str_eq(back.unix_roots[0], "/tmp/a");
	ck_assert_str_eq(back.unix_roots[1], "/run/b");
	ck_assert_ptr_null(back.unix_roots[2]);
	/* An empty list (nothing allowed) is not NULL (no rule). */
	ck_assert_ptr_nonnull(back.unix_sockets);
	ck_assert_ptr_null(back.unix_sockets[0]);
	ck_assert_ptr_null(back.readonly);
	ck_assert(back.max_memory == 1LL << 40);
	ck_assert(back.max_procs == 7 && back.max_file_size == 5);
	confine_free(&back);
	ck_assert_ptr_null(back.unix_roots);
	free(text);

	/* Malformed: each refused with a sentence. */
	ck_assert_int_eq(confine_from_json("[", &back, &err), -1);
	ck_assert_ptr_nonnull(err);
	free(err);
	ck_assert_int_eq(confine_from_json("{\"net\":\"wide\"}", &back, &err),
	    -1);
	free(err);
	ck_assert_int_eq(confine_from_json("{\"net\":\"proxy\"}", &back, &err),
	    -1);	/* no port */
	free(err);
	ck_assert_int_eq(confine_from_json("{\"net\":\"open\","
	    "\"readonly\":[\"relative\"]}", &back, &err), -1);
	free(err);
	ck_assert_int_eq(confine_from_json("{\"net\":\"none\","
	    "\"max_procs\":-1}", &back, &err), -1);
	free(err);
	ck_assert_int_eq(confine_from_json("{\"net\":\"none\"}", &back, &err),
	    0);
	confine_free(&back);
}
END_TEST

/*
 * The command has no controlling terminal even when huddle has one. The
 * test gives a process of its own a terminal (a new session and a pty),
 * checks that it has one, and runs the command from there: the answer
 * comes back as an exit status.
 */
START_TEST(no_controlling_terminal)
{
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60 };
	struct tool_output o = { 0 };
	int m, s, st, fd;
	pid_t pid;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		if (setsid() == -1 ||
		    (m = posix_openpt(O_RDWR | O_NOCTTY)) == -1 ||
		    grantpt(m) == -1 || unlockpt(m) == -1 ||
		    (s = open(ptsname(m), O_RDWR)) == -1)
			_exit(10);
		if ((fd = open("/dev/tty", O_RDWR)) == -1)
			_exit(11);	/* we have no terminal to lose */
		close(fd);
		if (bash_run("( : < /dev/tty ) 2>&1; ps -o tty= -p $$", &bo,
		    &o) != 0)
			_exit(12);
		fprintf(stderr, "%s\n", o.text);
		if (strstr(o.text, "No such device or address") == NULL)
			_exit(13);
		if (strstr(o.text, "\n?\n") == NULL &&
		    strstr(o.text, "\n?        \n") == NULL)
			_exit(14);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the terminal check ended with %d", WEXITSTATUS(st));
}
END_TEST

/* TIOCSTI on a terminal the command opened itself and made its own
 * controlling terminal (which the kernel allows without privileges):
 * refused by the filter. */
START_TEST(tiocsti_is_refused)
{
	struct confine c = { .net = CONFINE_NET_OPEN };
	struct tool_output o = { 0 };

	run("python3 -c '\n"
	    "import os, pty, fcntl, termios\n"
	    "m, s = pty.openpty()\n"
	    "os.setsid()\n"
	    "t = os.open(os.ttyname(s), os.O_RDWR)\n"
	    "try:\n"
	    "    fcntl.ioctl(t, termios.TIOCSTI, b\"x\")\n"
	    "    print(\"typed\")\n"
	    "except OSError as e:\n"
	    "    print(\"errno\", e.errno)\n"
	    "for req in (termios.TIOCSETD,):\n"
	    "    try:\n"
	    "        fcntl.ioctl(t, req, b\"\\0\\0\\0\\0\")\n"
	    "        print(\"set\")\n"
	    "    except OSError as e:\n"
	    "        print(\"errno\", e.errno)\n"
	    "'", &c, &o);
	ck_assert_str_eq(o.text, "errno 1\nerrno 1\n[exit status 0]");
	tool_output_clear(&o);
}
END_TEST

/* A UDP socket bound to 127.0.0.1; its port in *port. */
static int
udp_listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);

	ck_assert_int_ne(fd, -1);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

START_TEST(udp_is_refused)
{
	static const enum confine_net nets[] = { CONFINE_NET_OPEN,
	    CONFINE_NET_NONE, CONFINE_NET_PROXY };
	struct confine c = { .proxy_port = 9 };
	struct tool_output o = { 0 };
	char cmd[512], buf[64];
	int fd, port;
	size_t i;

	for (i = 0; i < 3; i++) {
		fd = udp_listener(&port);
		c.net = nets[i];
		snprintf(cmd, sizeof cmd, "python3 -c '\n"
		    "import socket\n"
		    "try:\n"
		    "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
		    "    s.sendto(b\"secret\", (\"127.0.0.1\", %d))\n"
		    "    print(\"sent\")\n"
		    "except OSError as e:\n"
		    "    print(\"refused\", e.errno)\n"
		    "'", port);
		run(cmd, &c, &o);
		if (nets[i] == CONFINE_NET_OPEN) {
			/* The open network is the control. */
			ASSERT_HAS(&o, "sent");
			ck_assert_int_eq(recv(fd, buf, sizeof buf, 0), 6);
		} else {
			ASSERT_HAS(&o, "refused 13");
			ck_assert_int_eq(recv(fd, buf, sizeof buf, 0), -1);
			ck_assert_int_eq(errno, EAGAIN);
		}
		close(fd);
	}
	tool_output_clear(&o);
}
END_TEST

/* A Unix stream socket listening at path. */
static int
unix_listener(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ne(fd, -1);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	return fd;
}

/* Runs a connect to path from the command; returns its output line. */
static void
unix_try(const char *path, const struct confine *c, struct tool_output *o)
{
	char *cmd;

	cmd = xasprintf("python3 -c '\n"
	    "import socket, sys\n"
	    "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
	    "try:\n"
	    "    s.connect(sys.argv[1])\n"
	    "    s.sendall(b\"hi\")\n"
	    "    print(\"connected\")\n"
	    "except OSError as e:\n"
	    "    print(\"refused\", e.errno)\n"
	    "' '%s'", path);
	run(cmd, c, o);
	free(cmd);
}

START_TEST(unix_sockets_only_where_allowed)
{
	struct tool_output o = { 0 };
	char *root = xasprintf("%s/root", tu_wd);
	char *out = xasprintf("%s/out", tu_wd);
	char *named = xasprintf("%s/out/named.sock", tu_wd), *p, buf[8];
	char *roots[] = { root, NULL }, *socks[] = { named, NULL };
	struct confine c = { .net = CONFINE_NET_OPEN, .unix_roots = roots,
	    .unix_sockets = socks };
	int in_fd, out_fd, named_fd, a;

	ck_assert_int_eq(mkdir(root, 0700), 0);
	ck_assert_int_eq(mkdir(out, 0700), 0);
	p = xasprintf("%s/in.sock", root);
	in_fd = unix_listener(p);
	free(p);
	p = xasprintf("%s/out.sock", out);
	out_fd = unix_listener(p);
	free(p);
	named_fd = unix_listener(named);

	/* Outside the roots: refused, and nothing queued. */
	unix_try("out/out.sock", &c, &o);
	ASSERT_HAS(&o, "refused 13");
	/* Unconfined, the same connect succeeds (the control). */
	unix_try("out/out.sock", NULL, &o);
	ASSERT_HAS(&o, "connected");
	ck_assert_int_ne((a = accept(out_fd, NULL, NULL)), -1);
	close(a);

	/* In a root, relative and absolute; the named one; and the data
	 * arrives on the very socket the command made. */
	unix_try("root/in.sock", &c, &o);
	ASSERT_HAS(&o, "connected");
	ck_assert_int_ne((a = accept(in_fd, NULL, NULL)), -1);
	ck_assert_int_eq(read(a, buf, sizeof buf), 2);
	ck_assert_int_eq(memcmp(buf, "hi", 2), 0);
	close(a);
	p = xasprintf("%s/in.sock", root);
	unix_try(p, &c, &o);
	free(p);
	ASSERT_HAS(&o, "connected");
	unix_try(named, &c, &o);
	ASSERT_HAS(&o, "connected");

	/* From a thread other than the first (a pidfd of a thread). */
	run("python3 -c '\n"
	    "import socket, threading\n"
	    "def go():\n"
	    "    s = socket.socket(socket.AF_UNIX)\n"
	    "    s.connect(\"root/in.sock\")\n"
	    "    print(\"thread connected\")\n"
	    "t = threading.Thread(target=go)\n"
	    "t.start()\n"
	    "t.join()\n"
	    "'", &c, &o);
	ASSERT_HAS(&o, "thread connected");

	/* A link in a root that leads out is judged where it leads. */
	p = xasprintf("%s/link.sock", root);
	ck_assert_int_eq(symlink("../out/out.sock", p), 0);
	unix_try(p, &c, &o);
	free(p);
	ASSERT_HAS(&o, "refused 13");
	ck_assert_int_eq(fcntl(out_fd, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(accept(out_fd, NULL, NULL), -1);

	/* Abstract addresses and datagrams: never. */
	run("python3 -c '\n"
	    "import socket\n"
	    "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
	    "try:\n"
	    "    s.connect(\"\\0huddle-test\")\n"
	    "except OSError as e:\n"
	    "    print(\"abstract\", e.errno)\n"
	    "try:\n"
	    "    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
	    "except OSError as e:\n"
	    "    print(\"dgram\", e.errno)\n"
	    "'", &c, &o);
	ASSERT_HAS(&o, "abstract 13");
	ASSERT_HAS(&o, "dgram 13");

	close(in_fd);
	close(out_fd);
	close(named_fd);
	free(root);
	free(out);
	free(named);
	tool_output_clear(&o);
}
END_TEST

/* A TCP listener on 127.0.0.1; its port in *port. */
static int
tcp_listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ne(fd, -1);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

START_TEST(tcp_only_to_the_proxy)
{
	struct confine c = { .net = CONFINE_NET_PROXY };
	struct tool_output o = { 0 };
	int proxy, other, pport, oport, a;
	char *cmd, buf[8];

	proxy = tcp_listener(&pport);
	other = tcp_listener(&oport);
	c.proxy_port = pport;
	cmd = xasprintf("python3 -c '\n"
	    "import socket\n"
	    "for port in (%d, %d):\n"
	    "    s = socket.socket()\n"
	    "    try:\n"
	    "        s.connect((\"127.0.0.1\", port))\n"
	    "        s.sendall(b\"hi\")\n"
	    "        print(port, \"connected\")\n"
	    "    except OSError as e:\n"
	    "        print(port, \"refused\", e.errno)\n"
	    "'", pport, oport);
	run(cmd, &c, &o);
	free(cmd);
	cmd = xasprintf("%d connected", pport);
	ASSERT_HAS(&o, cmd);
	free(cmd);
	cmd = xasprintf("%d refused 111", oport);
	ASSERT_HAS(&o, cmd);
	free(cmd);
	ck_assert_int_ne((a = accept(proxy, NULL, NULL)), -1);
	ck_assert_int_eq(read(a, buf, sizeof buf), 2);
	close(a);
	ck_assert_int_eq(fcntl(other, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(accept(other, NULL, NULL), -1);

	/* Open: the other port is reached (the control). */
	c.net = CONFINE_NET_OPEN;
	cmd = xasprintf("python3 -c 'import socket; "
	    "socket.create_connection((\"127.0.0.1\", %d)); "
	    "print(\"connected\")'", oport);
	run(cmd, &c, &o);
	free(cmd);
	ASSERT_HAS(&o, "connected");
	close(proxy);
	close(other);
	tool_output_clear(&o);
}
END_TEST

START_TEST(git_metadata_is_read_only)
{
	struct tool_output o = { 0 };
	char *ro[4];
	struct confine c = { .net = CONFINE_NET_OPEN, .readonly = ro };

	run("git init -q . && git -c user.name=t -c user.email=t@t "
	    "commit -q --allow-empty -m first && echo ok", NULL, &o);
	ASSERT_HAS(&o, "ok\n");
	ro[0] = xasprintf("%s/.git/hooks", tu_wd);
	ro[1] = xasprintf("%s/.git/config", tu_wd);
	ro[2] = xasprintf("%s/.git/info", tu_wd);
	ro[3] = NULL;

	run("echo a > f && git add f && git -c user.name=t -c user.email=t@t "
	    "commit -q -m second && echo committed; "
	    "echo x > .git/hooks/pre-commit || echo hook refused; "
	    "git config core.fsmonitor x || echo config refused; "
	    "echo x >> .git/info/exclude || echo exclude refused; "
	    "rm -rf .git/hooks || echo rm refused; "
	    "mv .git/config .git/config.old || echo mv refused; "
	    "mv .git gitx || echo git dir kept; "
	    "test -f .git/config && echo still there", &c, &o);
	ASSERT_HAS(&o, "committed");
	ASSERT_HAS(&o, "hook refused");
	ASSERT_HAS(&o, "config refused");
	ASSERT_HAS(&o, "exclude refused");
	ASSERT_HAS(&o, "rm refused");
	ASSERT_HAS(&o, "mv refused");
	ASSERT_HAS(&o, "git dir kept");
	ASSERT_HAS(&o, "still there");

	/* Nothing of it stayed: the same commands, unconfined, work. */
	run("git log --oneline | wc -l; echo x > .git/hooks/pre-commit && "
	    "echo hook written", NULL, &o);
	ASSERT_HAS(&o, "2\nhook written");

	/* A path that is a link is refused, and the command does not run. */
	ck_assert_int_eq(unlink(ro[1]), 0);
	ck_assert_int_eq(symlink("/etc/hostname", ro[1]), 0);
	run("echo ran", &c, &o);
	ASSERT_HAS(&o, "cannot make");
	ASSERT_HAS_NOT(&o, "ran\n");
	ASSERT_HAS(&o, "[exit status 126]");
	free(ro[0]);
	free(ro[1]);
	free(ro[2]);
	tool_output_clear(&o);
}
END_TEST

START_TEST(process_count_is_limited)
{
	struct confine c = { .net = CONFINE_NET_OPEN, .max_procs = 50 };
	struct tool_output o = { 0 };
	const char *loop = "n=0; while [ $n -lt 200 ]; do "
	    "sleep 5 & n=$((n+1)); done; echo started $n";

	run(loop, &c, &o);
	ASSERT_HAS_NOT(&o, "started 200");
	ASSERT_HAS(&o, "fork");
	/* The same loop unconfined (the control). */
	c.max_procs = 0;
	run(loop, &c, &o);
	ASSERT_HAS(&o, "started 200");
	tool_output_clear(&o);
}
END_TEST

/* 3 GiB asked of malloc, untouched (touching it would take minutes on
 * a small machine): the control shows the allocation alone succeeds. */
START_TEST(memory_is_limited)
{
	struct confine c = { .net = CONFINE_NET_OPEN,
	    .max_memory = 1LL << 30 };
	struct tool_output o = { 0 };
	const char *cmd = "python3 -c '\n"
	    "import ctypes\n"
	    "libc = ctypes.CDLL(None)\n"
	    "libc.malloc.restype = ctypes.c_void_p\n"
	    "libc.malloc.argtypes = [ctypes.c_size_t]\n"
	    "p = libc.malloc(3 << 30)\n"
	    "print(\"malloc\", \"ok\" if p else \"refused\")\n"
	    "'";

	run(cmd, &c, &o);
	ASSERT_HAS(&o, "malloc refused");
	run("python3 -c '\n"
	    "try:\n"
	    "    b = bytearray(3 << 30)\n"
	    "except MemoryError:\n"
	    "    print(\"refused\")\n"
	    "'", &c, &o);
	ASSERT_HAS(&o, "refused");
	c.max_memory = 0;
	run(cmd, &c, &o);
	ASSERT_HAS(&o, "malloc ok");
	tool_output_clear(&o);
}
END_TEST

START_TEST(file_size_is_limited)
{
	struct confine c = { .net = CONFINE_NET_OPEN,
	    .max_file_size = 10LL << 20 };
	struct tool_output o = { 0 };
	struct stat st;
	char *f = xasprintf("%s/big", tu_wd);

	run("dd if=/dev/zero of=big bs=1M count=20 2>/dev/null; "
	    "echo dd=$?", &c, &o);
	ASSERT_HAS_NOT(&o, "dd=0\n");
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert(st.st_size <= 10LL << 20);
	c.max_file_size = 0;
	run("dd if=/dev/zero of=big bs=1M count=20 2>/dev/null; "
	    "echo dd=$?", &c, &o);
	ASSERT_HAS(&o, "dd=0\n");
	free(f);
	tool_output_clear(&o);
}
END_TEST

START_TEST(root_keeps_no_capability)
{
	struct confine c = { .net = CONFINE_NET_OPEN };
	struct tool_output o = { 0 };
	char *why = NULL;

	if (geteuid() != 0)
		return;		/* nothing to drop */
	run("grep -E '^Cap(Eff|Bnd|Prm|Amb|Inh)' /proc/self/status", NULL,
	    &o);
	ASSERT_HAS(&o, "CapEff:\t000001");	/* the control */
	run("grep -E '^Cap(Eff|Bnd|Prm|Amb|Inh)' /proc/self/status", &c, &o);
	ck_assert_str_eq(o.text, "CapInh:\t0000000000000000\n"
	    "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
	    "CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n"
	    "[exit status 0]");
	/* Here, as root, a cgroup keeps the process count. */
	ck_assert_msg(confine_limits_hold(&why), "%s", why);
	tool_output_clear(&o);
}
END_TEST

/* All of it at once, inside the Landlock sandbox, as huddle runs it. */
START_TEST(with_the_landlock_sandbox)
{
	struct tool_output o = { 0 };
	char *roots[] = { tu_wd, NULL }, *ro[] = { NULL, NULL }, *err = NULL;
	struct confine c = { .net = CONFINE_NET_NONE, .unix_roots = roots,
	    .readonly = ro, .max_procs = CONFINE_DEFAULT_PROCS,
	    .max_memory = CONFINE_DEFAULT_MEMORY,
	    .max_file_size = CONFINE_DEFAULT_FILE_SIZE };
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60, .confine = &c, .sandboxed = 1 };
	const char *const w[] = { tu_wd };
	struct landlock_rules rules = { NULL, 0, NULL, 0, w, 1, 1, 0 };

	if (landlock_abi() == 0)
		return;
	ck_assert_int_ge((bo.sandbox_fd = landlock_ruleset(&rules, &err)), 0);
	ro[0] = xasprintf("%s/locked", tu_wd);
	ck_assert_int_eq(mkdir(ro[0], 0700), 0);
	ck_assert_int_eq(bash_run("exec 2>/dev/null; echo a > f && cat f; "
	    "echo b > locked/x || echo locked refused; "
	    "echo c > /etc/huddle-test || echo outside refused; "
	    "python3 -c 'import socket; socket.socket(socket.AF_INET, "
	    "socket.SOCK_DGRAM)' 2>/dev/null || echo udp refused", &bo, &o),
	    0);
	ck_assert_str_eq(o.text, "a\nlocked refused\noutside refused\n"
	    "udp refused\n[exit status 0]");
	close(bo.sandbox_fd);
	free(ro[0]);
	tool_output_clear(&o);
}
END_TEST

/* Forks a child that runs as nobody (uid and gid 65534) and is given
 * tu_wd (the folder tu_wd is made in, the test's TMPDIR, made passable to
 * it). Returns the child's pid in the parent; in the child, 0, once the
 * program and tu_wd are in its reach (else it exits 0: nothing to learn
 * here) or exits 10 when it could not become nobody. */
static pid_t
fork_as_nobody(void)
{
	uid_t nobody = 65534;
	char *p;
	pid_t pid;

	ck_assert_int_eq(chown(tu_wd, nobody, nobody), 0);
	p = xstrdup(tu_wd);
	*strrchr(p, '/') = '\0';
	if (p[0] != '\0' && strcmp(p, "/tmp") != 0)
		ck_assert_int_eq(chmod(p, 0711), 0);
	free(p);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		if (setgroups(0, NULL) == -1 || setresgid(nobody, nobody,
		    nobody) == -1 || setresuid(nobody, nobody, nobody) == -1)
			_exit(10);
		if (access(tu_program, X_OK) == -1 ||
		    access(tu_wd, W_OK) == -1)
			_exit(0);
	}
	return pid;
}

/*
 * A user other than root: the read-only paths in a user namespace, and
 * the process count kept by RLIMIT_NPROC, exact there. Run from a child
 * that becomes nobody (when the test runs as root and nobody can reach
 * the program); the verdict comes back as its exit status.
 */
START_TEST(a_user_other_than_root)
{
	char *ro[] = { NULL, NULL }, *roots[] = { NULL, NULL };
	struct confine c = { .net = CONFINE_NET_OPEN, .readonly = ro,
	    .unix_roots = roots, .max_procs = 20 };
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60, .confine = &c };
	struct tool_output o = { 0 };
	uid_t nobody = 65534;
	char *p;
	int st, in_fd, out_fd;
	pid_t pid;

#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer keeps a thread of its own in every process, the
	 * forked shell's too, and the kernel makes a user namespace only
	 * for a process of one thread. */
	return;
#endif

	if (geteuid() != 0)
		return;
	ro[0] = xasprintf("%s/locked", tu_wd);
	ck_assert_int_eq(mkdir(ro[0], 0700), 0);
	ck_assert_int_eq(chown(ro[0], nobody, nobody), 0);
	roots[0] = ro[0];
	/* Sockets nobody may write to: one in a root, one outside. */
	p = xasprintf("%s/in.sock", ro[0]);
	in_fd = unix_listener(p);
	ck_assert_int_eq(chmod(p, 0666), 0);
	free(p);
	p = xasprintf("%s/out.sock", tu_wd);
	out_fd = unix_listener(p);
	ck_assert_int_eq(chmod(p, 0666), 0);
	free(p);
	pid = fork_as_nobody();
	if (pid == 0) {
		if (bash_run("id -u; echo b > locked/x || echo locked refused; "
		    "for s in locked/in.sock out.sock; do python3 -c '\n"
		    "import socket, sys\n"
		    "s = socket.socket(socket.AF_UNIX)\n"
		    "try:\n"
		    "    s.connect(sys.argv[1])\n"
		    "    print(sys.argv[1], \"connected\")\n"
		    "except OSError as e:\n"
		    "    print(sys.argv[1], \"refused\", e.errno)\n"
		    "' $s; done; "
		    "n=0; while [ $n -lt 100 ]; do sleep 5 & n=$((n+1)); "
		    "done; echo started $n", &bo, &o) != 0)
			_exit(11);
		fprintf(stderr, "%s\n", o.text);
		if (strstr(o.text, "65534\n") == NULL)
			_exit(12);
		if (strstr(o.text, "locked refused") == NULL)
			_exit(13);
		if (strstr(o.text, "in.sock connected") == NULL ||
		    strstr(o.text, "out.sock refused 13") == NULL)
			_exit(15);
		if (strstr(o.text, "started 100") != NULL ||
		    strstr(o.text, "fork") == NULL)
			_exit(14);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "as nobody: exit %d", WEXITSTATUS(st));
	close(in_fd);
	close(out_fd);
	free(ro[0]);
}
END_TEST

/* Under the proxy no TCP socket listens (not even unbound, where the
 * kernel would pick the port past Landlock's bind rule); a Unix one
 * may. Under the open network TCP listens (the control). */
START_TEST(no_inbound_tcp_under_the_proxy)
{
	struct confine c = { .net = CONFINE_NET_PROXY, .proxy_port = 9 };
	struct tool_output o = { 0 };
	char *roots[] = { tu_wd, NULL };
	const char *cmd = "python3 -c '\n"
	    "import socket\n"
	    "for fam, addr in ((socket.AF_INET, None),"
	    " (socket.AF_INET6, None), (socket.AF_UNIX, \"l.sock\")):\n"
	    "    s = socket.socket(fam)\n"
	    "    try:\n"
	    "        if addr: s.bind(addr)\n"
	    "        s.listen(4)\n"
	    "        print(fam.name, \"listening\")\n"
	    "    except OSError as e:\n"
	    "        print(fam.name, \"refused\", e.errno)\n"
	    "'";

	c.unix_roots = roots;
	run(cmd, &c, &o);
	ASSERT_HAS(&o, "AF_INET refused 13");
	ASSERT_HAS(&o, "AF_INET6 refused 13");
	ASSERT_HAS(&o, "AF_UNIX listening");
	c.net = CONFINE_NET_OPEN;
	run(cmd, &c, &o);
	ASSERT_HAS(&o, "AF_INET listening");
	tool_output_clear(&o);
}
END_TEST

/* In a child: loads the filter for c (prebuilt: from the program
 * huddle keeps, on REAPER_FILTER_FD), then exits with what TIOCSTI on
 * /dev/null got: EPERM from the filter, ENOTTY without one. */
static int
filtered_tiocsti(const struct confine *c, int built)
{
	char *err = NULL, ch = 'x';
	int status, fd;
	pid_t pid = fork();

	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		if (built != -1 && dup2(built, REAPER_FILTER_FD) == -1)
			_exit(100);
		if (sysfilter_load(c, REAPER_FILTER_FD, -1, &err) == -1)
			_exit(101);
		fd = open("/dev/null", O_RDONLY);
		_exit(ioctl(fd, TIOCSTI, &ch) == -1 ? errno : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* The filter built once in huddle is the one a command gets, and is
 * kept (the same descriptor each time, sealed); built in the shell's
 * process instead, it refuses the same. */
START_TEST(the_filter_is_built_once)
{
	struct confine c = { .net = CONFINE_NET_PROXY, .proxy_port = 9 };
	struct tool_output o = { 0 };
	char *err = NULL;
	int built, again;

	built = sysfilter_program(&c, &err);
	ck_assert_msg(built >= 10, "%s", err != NULL ? err : "?");
	again = sysfilter_program(&c, &err);
	ck_assert_int_eq(built, again);
	ck_assert_int_eq(write(built, "x", 1), -1);
	ck_assert_int_eq(errno, EPERM);
	c.prebuilt = 1;
	ck_assert_int_eq(filtered_tiocsti(&c, built), EPERM);
	c.prebuilt = 0;
	ck_assert_int_eq(filtered_tiocsti(&c, -1), EPERM);
	/* Through a real command: one filter, in filter mode. */
	run("grep Seccomp /proc/self/status", &c, &o);
	ASSERT_HAS(&o, "Seccomp:\t2");
	ASSERT_HAS(&o, "Seccomp_filters:\t1");
	tool_output_clear(&o);
}
END_TEST

/* The test's own keyring calls (no keyutils needed). */
#define KEYCTL_JOIN	1	/* KEYCTL_JOIN_SESSION_KEYRING */
#define KEYCTL_PERM	5	/* KEYCTL_SETPERM */
#define KEY_SESSION	(-3L)	/* KEY_SPEC_SESSION_KEYRING */
#define KEY_POSSESSOR	0x3f000000UL	/* every right, to its possessor */
#define KEY_VALUE	"keyring-secret-5e0c"
/* What a confined command gets: EPERM for every call, no key listed. */
#define KEYRING_NONE	"search 1\nread 1\nvalue \nadd 1\nrequest 1\n" \
	"listed False\n[exit status 0]"

/*
 * Puts the calling process in a session keyring of its own holding a
 * key only its possessor may see or read, and returns a command that,
 * given that key's id, tries from Python what a command could: search
 * the session keyring, read the key, add one, request one, and find the
 * key in /proc/keys (where a key shows only to who may view it).
 */
static char *
keyring_plant(long *id)
{
	ck_assert_int_gt(syscall(SYS_keyctl, KEYCTL_JOIN, (char *)NULL), 0);
	*id = syscall(SYS_add_key, "user", "huddle-test-key", KEY_VALUE,
	    strlen(KEY_VALUE), KEY_SESSION);
	ck_assert_int_gt(*id, 0);
	ck_assert_int_eq(syscall(SYS_keyctl, KEYCTL_PERM, *id,
	    KEY_POSSESSOR), 0);
	return xasprintf("python3 -c '\n"
	    "import ctypes\n"
	    "l = ctypes.CDLL(None, use_errno=True)\n"
	    "l.syscall.restype = ctypes.c_long\n"
	    "L = ctypes.c_long\n"
	    "def say(what, r):\n"
	    "    print(what, \"ok\" if r >= 0 else ctypes.get_errno())\n"
	    "say(\"search\", l.syscall(L(%d), L(10), L(-3), b\"user\", "
	    "b\"huddle-test-key\", L(0)))\n"
	    "b = ctypes.create_string_buffer(64)\n"
	    "say(\"read\", l.syscall(L(%d), L(11), L(%ld), b, L(64)))\n"
	    "print(\"value\", b.value.decode())\n"
	    "say(\"add\", l.syscall(L(%d), b\"user\", b\"planted\", b\"x\", "
	    "L(1), L(-3)))\n"
	    "say(\"request\", l.syscall(L(%d), b\"user\", "
	    "b\"huddle-test-key\", None, L(-3)))\n"
	    "print(\"listed\", \"huddle-test-key\" in open(\"/proc/keys\")."
	    "read())\n"
	    "'", SYS_keyctl, SYS_keyctl, *id, SYS_add_key, SYS_request_key);
}

/*
 * No keyring: a key in the session keyring huddle runs in is out of a
 * confined command's reach, by both walls. The command starts in a
 * session keyring of its own (the key is not listed, as it is to a
 * command that is not confined) and every keyring call fails with EPERM
 * (so the search is refused, not merely empty). With read-only paths
 * too, the namespaces made for the command change none of it.
 */
START_TEST(no_keyring)
{
	char *ro[] = { NULL, NULL };
	struct confine none = { .net = CONFINE_NET_NONE },
	    held = { .net = CONFINE_NET_PROXY, .proxy_port = 9, .readonly = ro,
	    .max_procs = 64 };
	struct tool_output o = { 0 };
	char *cmd;
	long id;

	cmd = keyring_plant(&id);
	/* The test can fail: unconfined, everything reaches the key. */
	run(cmd, NULL, &o);
	ASSERT_HAS(&o, "search ok\nread ok\nvalue " KEY_VALUE "\n");
	ASSERT_HAS(&o, "listed True\n");
	tool_output_clear(&o);
	run(cmd, &none, &o);
	ck_assert_str_eq(o.text, KEYRING_NONE);
	tool_output_clear(&o);
	ro[0] = xasprintf("%s/locked", tu_wd);
	ck_assert_int_eq(mkdir(ro[0], 0700), 0);
	run(cmd, &held, &o);
	ck_assert_str_eq(o.text, KEYRING_NONE);
	tool_output_clear(&o);
	free(ro[0]);
	free(cmd);
}
END_TEST

/* The same for a user other than root (a user namespace of its own
 * for the read-only paths), from a child that becomes nobody when the
 * test runs as root; the verdict comes back as its exit status. */
START_TEST(no_keyring_for_a_user)
{
	char *ro[] = { NULL, NULL };
	struct confine c = { .net = CONFINE_NET_NONE, .readonly = ro,
	    .max_procs = 64 };
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60, .confine = &c };
	struct tool_output o = { 0 };
	char *cmd;
	long id;
	int st;
	pid_t pid;

#ifdef __SANITIZE_THREAD__
	return;	/* no user namespace for a process of two threads */
#endif
	if (geteuid() != 0)
		return;
	ro[0] = xasprintf("%s/locked", tu_wd);
	ck_assert_int_eq(mkdir(ro[0], 0755), 0);
	pid = fork_as_nobody();
	if (pid == 0) {
		cmd = keyring_plant(&id);
		if (bash_run(cmd, &bo, &o) != 0)
			_exit(11);
		_exit(strcmp(o.text, KEYRING_NONE) == 0 ? 0 : 12);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	free(ro[0]);
}
END_TEST

/* How many processes' command lines hold the marker, in the test's own
 * view of /proc (the bracket keeps grep and its shell from matching). */
#define PROC_MARKER	"proxy-port-marker-4711"
#define PROC_COUNT	"grep -l 'proxy-port-[m]arker-4711' /proc/[0-9]*/cmdline " \
	"2>/dev/null | wc -l"

/*
 * Another command's processes are out of sight, as root. As huddle runs
 * them: each command in a Landlock sandbox of its own, joining the
 * namespaces of a holder (with read-only paths and without), whose proc
 * the ruleset is given. One command holds a marker on its command line
 * (as a team's reaper holds its proxy port); the other looks for it
 * through /proc, and still reads its own. The test itself finds it, so
 * the test can fail. A user other than root cannot mount a proc of its
 * own without a PID namespace (doc/security.md).
 */
START_TEST(another_commands_processes_are_hidden)
{
	char *ro[] = { NULL, NULL }, *none[] = { NULL }, *err = NULL, *proc;
	struct confine plain = { .net = CONFINE_NET_NONE },
	    held = { .net = CONFINE_NET_NONE, .readonly = ro };
	const char *const w[] = { tu_wd };
	struct landlock_rules rules = { NULL, 0, NULL, 0, w, 1, 1, 0 };
	struct bash_options bo = { .program = tu_program, .workdir = tu_wd,
	    .timeout_s = 60, .confine = &plain, .sandboxed = 1 };
	struct mountns_pin pin;
	struct bash_piped other;
	struct tool_output o = { 0 };
	int64_t until;
	int k;

#ifdef __SANITIZE_THREAD__
	return;	/* no user namespace, so no holder, for a process of two
		 * threads */
#endif
	if (geteuid() != 0 || landlock_abi() == 0)
		return;
	ck_assert_int_ge((bo.sandbox_fd = landlock_ruleset(&rules, &err)), 0);
	memset(&other, 0, sizeof other);
	ck_assert_msg(bash_start_piped("exec python3 -c 'import sys; "
	    "sys.stdin.read()' " PROC_MARKER, &bo, &other, &err) == 0,
	    "%s", err != NULL ? err : "?");
	/* Its reaper's command line holds the marker too. */
	until = clock_mono_ms() + 30000;
	for (;;) {
		run(PROC_COUNT, NULL, &o);
		if (strcmp(o.text, "0\n[exit status 0]") != 0)
			break;
		ck_assert_msg(clock_mono_ms() < until, "never seen");
		tool_output_clear(&o);
	}
	tool_output_clear(&o);
	ro[0] = xasprintf("%s/locked", tu_wd);
	ck_assert_int_eq(mkdir(ro[0], 0700), 0);
	for (k = 0; k < 2; k++) {
		bo.confine = k == 0 ? &plain : &held;
		ck_assert_msg(mountns_pin_new(tu_program, k == 0 ? none : ro,
		    &pin, &err) == 0, "%s", err != NULL ? err : "?");
		proc = mountns_pin_proc(&pin);
		ck_assert_msg(landlock_readable(bo.sandbox_fd, proc, &err) == 0,
		    "%s", err != NULL ? err : "?");
		free(proc);
		bo.pinned = 1;
		bo.pin_fd = pin.pidfd;
		ck_assert_int_eq(bash_run(PROC_COUNT "; grep -c . "
		    "/proc/self/status | sed s/^[1-9].*/own/", &bo, &o), 0);
		ck_assert_str_eq(o.text, "0\nown\n[exit status 0]");
		tool_output_clear(&o);
		mountns_pin_free(&pin);
	}
	bash_end_piped(&other);
	close(bo.sandbox_fd);
	free(ro[0]);
}
END_TEST

static Suite *
confine_suite(void)
{
	Suite *s = suite_create("confine");
	TCase *tc = tcase_create("confine");

	tcase_add_checked_fixture(tc, tu_commands_setup,
	    tu_commands_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, json_round_trip);
	tcase_add_test(tc, no_controlling_terminal);
	tcase_add_test(tc, tiocsti_is_refused);
	tcase_add_test(tc, udp_is_refused);
	tcase_add_test(tc, unix_sockets_only_where_allowed);
	tcase_add_test(tc, tcp_only_to_the_proxy);
	tcase_add_test(tc, no_inbound_tcp_under_the_proxy);
	tcase_add_test(tc, the_filter_is_built_once);
	tcase_add_test(tc, no_keyring);
	tcase_add_test(tc, no_keyring_for_a_user);
	tcase_add_test(tc, another_commands_processes_are_hidden);
	tcase_add_test(tc, git_metadata_is_read_only);
	tcase_add_test(tc, process_count_is_limited);
	tcase_add_test(tc, memory_is_limited);
	tcase_add_test(tc, file_size_is_limited);
	tcase_add_test(tc, root_keeps_no_capability);
	tcase_add_test(tc, with_the_landlock_sandbox);
	tcase_add_test(tc, a_user_other_than_root);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	return tu_main(argc, argv, confine_suite());
}
